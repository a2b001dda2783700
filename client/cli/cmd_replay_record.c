/* cmd_replay_record.c — `blendsync replay record MATCH.json --ticks N -o OUT [--seed S] [--poses]`:
 * play a match offline — no server, no network — with every player slot driven by the seeded joystick
 * script the bots use (bsync_match_random_input, seed S + slot, the same as `blendsync bot --seed`),
 * and write it as a replay exactly as blendsync-server records one: HEADER (the match config's text,
 * its hash, every clip's hash), per tick a FRAME (no input defaulted), a CHECKSUM every checksum
 * interval (with the pose under --poses, like the server's --verify-poses), a SNAPSHOT every 600 ticks,
 * END. For regression tests of a new build against old matches, for bug reports, and for the
 * verification benchmark; the file is written to OUT.tmp.<pid> and renamed when complete.
 * Exit: 0 written, 2 error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/io/match_config.h"
#include "platform.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/match.h"
#include "commands.h"

#define SNAPSHOT_EVERY 600u /* as the server (server_internal.h SRV_SNAPSHOT_EVERY) */

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync replay record MATCH.json --ticks N -o OUT.bsreplay [--seed S] [--poses]\n"
            "\n"
            "Plays the match offline (no server): every player slot follows the seeded joystick script\n"
            "the bots use (seed S + slot; default S = 1000, as `blendsync bot` without --seed), and\n"
            "writes the replay as blendsync-server records one (frames, a checksum every checksum\n"
            "interval, a snapshot every 600 ticks, END). --poses records pose checksums too.\n"
            "Exit status: 0 written, 2 error.\n");
}

static int parse_u64(const char* s, uint64_t* out) {
    if (!s || !*s || *s == '-' || *s == '+') return -1;
    char* end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (!end || *end) return -1;
    *out = v;
    return 0;
}

int bsync_cmd_replay_record(int argc, char** argv) {
    const char *config = NULL, *out = NULL;
    uint64_t ticks = 0, seed = 1000;
    int poses = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--poses")) {
            poses = 1;
        } else if (!strcmp(a, "--ticks") && v) {
            if (parse_u64(argv[++i], &ticks) || ticks == 0 || ticks > 100000000u) {
                fprintf(stderr, "blendsync replay record: --ticks: expected 1..100000000, got \"%s\"\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--seed") && v) {
            if (parse_u64(argv[++i], &seed)) {
                fprintf(stderr, "blendsync replay record: --seed: expected a whole number, got \"%s\"\n", argv[i]);
                return 2;
            }
        } else if ((!strcmp(a, "-o") || !strcmp(a, "--out")) && v) {
            out = argv[++i];
        } else if (a[0] != '-' && !config) {
            config = a;
        } else {
            fprintf(stderr, "blendsync replay record: unknown or incomplete argument \"%s\"\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!config || !out || !ticks) {
        fprintf(stderr, "blendsync replay record: MATCH.json, --ticks N and -o OUT are required\n");
        usage(stderr);
        return 2;
    }
    bsync_match_config* mc = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_match_config_load(config, NULL, &mc, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync replay record: %s\n", err.message);
        return 2;
    }
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    size_t msize = bsync_match_memory_size(d);
    void* mem = bsync_platform_aligned_alloc(16, msize);
    bsync_match* m = NULL;
    size_t snap_cap = 0;
    uint8_t* snap = NULL;
    bsync_replay_writer* w = NULL;
    static bsync_replay_recorder recorder; /* large (payload arrays): not on the stack */
    static bsync_match_frame inputs;
    static bsync_replay_header h;
    bsync_match_script scripts[BSYNC_MATCH_MAX_PLAYERS];
    char tmp[4096];
    tmp[0] = '\0';
    int rc = 2;
    if (!mem || bsync_match_init(mem, msize, d, &m) != BSYNC_OK) {
        fprintf(stderr, "blendsync replay record: cannot set up the match\n");
        goto done;
    }
    snap_cap = bsync_match_snapshot_size_max(m);
    snap = malloc(snap_cap);
    if (!snap) {
        fprintf(stderr, "blendsync replay record: out of memory (%zu bytes for a snapshot)\n", snap_cap);
        goto done;
    }
    char build[64];
    snprintf(build, sizeof build, "blendsync %s replay record", BSYNC_VERSION_STRING);
    bsync_match_config_replay_header(mc, build, 0, &h);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, bsync_platform_getpid());
    if (bsync_replay_writer_open(tmp, &h, &w, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync replay record: %s\n", err.message);
        goto done;
    }
    for (uint32_t p = 0; p < d->player_count; p++) bsync_match_script_init(&scripts[p], seed + p);
    bsync_replay_recorder_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.writer = w;
    rd.match = m;
    rd.checksum_interval = h.checksum_interval;
    rd.snapshot_every = SNAPSHOT_EVERY;
    rd.poses = poses;
    rd.snapshot_buffer = snap;
    rd.snapshot_capacity = snap_cap;
    if (bsync_replay_recorder_init(&recorder, &rd) != BSYNC_OK) {
        fprintf(stderr, "blendsync replay record: cannot set up the recorder\n");
        goto done;
    }
    for (uint64_t t = 0; t < ticks; t++) {
        memset(&inputs, 0, sizeof inputs);
        inputs.player_count = d->player_count;
        for (uint32_t p = 0; p < d->player_count; p++) bsync_match_random_input(&scripts[p], d, &inputs.players[p]);
        if (bsync_replay_recorder_tick(&recorder, t, &inputs, NULL, NULL, &err) != BSYNC_OK) {
            switch (recorder.failed) {
            case BSYNC_RECORDER_SAVE:
                snprintf(err.message, sizeof err.message, "saving the match state at tick %llu: %s",
                         (unsigned long long)t, bsync_result_string(recorder.failed_result));
                goto write_error;
            case BSYNC_RECORDER_WRITE:
                goto write_error;
            case BSYNC_RECORDER_CHECKSUM:
                fprintf(stderr, "blendsync replay record: the checksums of tick %llu failed: %s\n",
                        (unsigned long long)t, bsync_result_string(recorder.failed_result));
                goto done;
            default:
                fprintf(stderr, "blendsync replay record: tick %llu failed\n", (unsigned long long)t);
                goto done;
            }
        }
    }
    if (bsync_replay_recorder_end(&recorder, (uint32_t)ticks, 0, &err) != BSYNC_OK) goto write_error;
    bsync_result yr = bsync_replay_writer_sync(w);
    if (yr != BSYNC_OK) {
        snprintf(err.message, sizeof err.message, "flushing to disk: %s", bsync_result_string(yr));
        goto write_error;
    }
    uint64_t bytes = bsync_replay_writer_bytes(w);
    bsync_replay_writer_close(w);
    w = NULL;
    if (bsync_platform_rename(tmp, out) != 0) {
        perror(out);
        goto done;
    }
    printf("recorded %llu ticks of match %llu (%u players, %u characters, %u Hz) to %s: %llu bytes\n",
           (unsigned long long)ticks, (unsigned long long)h.match_id, h.player_count, h.character_count, h.tick_rate,
           out, (unsigned long long)bytes);
    rc = 0;
    goto done;
write_error:
    fprintf(stderr, "blendsync replay record: writing %s: %s\n", tmp, err.message);
done:
    if (w) bsync_replay_writer_close(w);
    if (rc != 0 && tmp[0]) remove(tmp);
    free(snap);
    bsync_platform_aligned_free(mem);
    bsync_match_config_destroy(mc);
    return rc;
}
