/* replay_timeline.c REPLAY — what the studio's Replay timeline must show, computed natively: the
 * replay's match re-simulated frame by frame (the replay library, the match config found as
 * `replay verify` finds it), and after each frame, per character, the state each switch plays (its
 * newest switch-stack entry, bsync_instance_switch_state) and the actions reported for that tick
 * (bsync_instance_actions, docs/actions.md "Reports"). One line per tick and character with anything to
 * say is not needed: every tick is printed, as
 *   TICK CHARACTER switches S0,S1,... actions ACTION:KIND:COUNT:EXITS:ACTIVE;...
 * (S: the playing state's child index; "-" for no action). TICK is counted as the page counts it: the
 * header's start tick plus the frame index. Used by studio_test.sh replay_events. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_verify.h"
#include "blendsync/match.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: replay_timeline REPLAY\n");
        return 2;
    }
    bsync_error err;
    bsync_replay_reader* rd = NULL;
    static bsync_replay_record rec;
    char detail[256] = "";
    if (bsync_replay_reader_open_file(argv[1], &rd, &err) != BSYNC_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    if (bsync_replay_reader_next(rd, &rec, detail, sizeof detail) != BSYNC_REPLAY_OK || rec.type != BSYNC_REPLAY_HEADER) {
        fprintf(stderr, "%s: no header\n", argv[1]);
        return 1;
    }
    const bsync_replay_header* h = bsync_replay_reader_header(rd);
    const uint32_t start = h->start_tick;
    bsync_match_config* cfg = NULL;
    if (bsync_replay_verify_config_load(h, argv[1], NULL, NULL, NULL, &cfg, NULL, 0, &err) != BSYNC_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const bsync_match_desc* desc = bsync_match_config_desc(cfg);
    const size_t size = bsync_match_memory_size(desc);
    void* mem = aligned_alloc(8, (size + 7) & ~(size_t)7);
    bsync_match* match = NULL;
    if (!mem || bsync_match_init(mem, size, desc, &match) != BSYNC_OK) {
        fprintf(stderr, "cannot set up the match\n");
        return 1;
    }
    uint32_t frames = 0;
    while (bsync_replay_reader_next(rd, &rec, detail, sizeof detail) == BSYNC_REPLAY_OK) {
        if (rec.type == BSYNC_REPLAY_SNAPSHOT && frames == 0 && rec.snapshot.tick == start) {
            if (bsync_match_load(match, rec.snapshot.data, rec.snapshot.len) != BSYNC_OK) return 1;
            continue;
        }
        if (rec.type != BSYNC_REPLAY_FRAME) continue;
        if (bsync_match_tick(match, &rec.frame.inputs) != BSYNC_OK) {
            fprintf(stderr, "frame %u does not fit the match\n", rec.frame.tick);
            return 1;
        }
        for (uint32_t c = 0; c < desc->character_count; c++) {
            const bsync_instance* inst = bsync_match_instance_const(match, c);
            const bsync_graph* g = desc->characters[c].graph;
            printf("%u %u switches ", start + frames, c);
            for (uint32_t w = 0; w < bsync_graph_switch_count(g); w++) {
                bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
                uint32_t n = 0;
                if (bsync_instance_switch_state(inst, w, e, &n) != BSYNC_OK || n == 0) return 1;
                printf("%s%u", w ? "," : "", e[n - 1].child);
            }
            const bsync_action_report* rep = NULL;
            uint32_t n = 0;
            if (bsync_instance_actions(inst, &rep, &n) != BSYNC_OK) return 1;
            printf(" actions ");
            if (n == 0) printf("-");
            for (uint32_t i = 0; i < n; i++)
                printf("%s%u:%u:%u:%u:%u", i ? ";" : "", rep[i].action, rep[i].kind, rep[i].count, rep[i].exits, rep[i].active);
            printf("\n");
        }
        frames++;
    }
    free(mem);
    bsync_match_config_destroy(cfg);
    bsync_replay_reader_close(rd);
    return frames ? 0 : 1;
}
