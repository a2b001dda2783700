/* test_net_resume.c — reconnect and resume (issue 14, docs/lockstep.md "Reconnect and resume"), real
 * server, real clients, real ENet on loopback. A client's connection is dropped mid-match the way a
 * network drops it (bsync_client_fault_drop, client_testing.h: its ENet peer reset on its side only, no BYE,
 * the server just hears nothing). The client library reconnects by itself and asks to resume from its
 * next frame:
 *   - soon after the drop the server still holds the missed frames (its ring of 256): it gives the slot
 *     to the new connection (the old one has been silent over 1 s), sends those frames, and the client
 *     applies every frame of the match exactly once — its replay holds the same frames as the server's
 *     (inputs, defaulted masks and game payloads, compared record by record), ends "normal" and
 *     verifies; every checksum it sends is verified; all clients end with the same state;
 *   - after a drop longer than the ring (here: the client is not serviced for 5 s at 60 Hz), the server
 *     sends a snapshot instead; the client loads it and plays to the end in agreement with the others,
 *     and its replay, which cannot hold the gap, ends "aborted" (never "normal"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/io/replay.h"
#include "blendsync/net.h"
#include "net_harness.h"

#define PLAYERS 3u
#define TICKS 540u /* 9 s at 60 Hz */

static bsync_replay_header g_header;

typedef struct replay_frames {
    uint32_t count, end_ticks, end_reason;
    bsync_replay_frame* frames; /* by tick (TICKS) */
    uint8_t* have;
} replay_frames;

static void read_replay(const char* path, replay_frames* out) {
    memset(out, 0, sizeof *out);
    out->frames = calloc(TICKS, sizeof *out->frames);
    out->have = calloc(TICKS, 1);
    out->end_ticks = out->end_reason = UINT32_MAX;
    assert_non_null(out->frames);
    bsync_replay_reader* r = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file(path, &r, &err), BSYNC_OK);
    static bsync_replay_record rec;
    uint32_t expect = UINT32_MAX;
    while (bsync_replay_reader_next(r, &rec, NULL, 0) == BSYNC_REPLAY_OK) {
        if (rec.type == BSYNC_REPLAY_FRAME) {
            if (expect != UINT32_MAX) assert_int_equal(rec.frame.tick, expect); /* consecutive */
            expect = rec.frame.tick + 1u;
            assert_true(rec.frame.tick < TICKS);
            out->frames[rec.frame.tick] = rec.frame;
            out->have[rec.frame.tick] = 1;
            out->count++;
        }
        if (rec.type == BSYNC_REPLAY_END) {
            out->end_ticks = rec.end.ticks;
            out->end_reason = rec.end.reason;
        }
    }
    bsync_replay_reader_close(r);
}

static void free_replay(replay_frames* f) {
    free(f->frames);
    free(f->have);
}

/* Frame t of the client's replay is the server's: the same inputs, defaulted mask and payloads. */
static void assert_same_frame(const bsync_replay_frame* a, const bsync_replay_frame* b, uint32_t np, uint32_t ng) {
    assert_int_equal(a->tick, b->tick);
    assert_int_equal(a->defaulted_mask, b->defaulted_mask);
    assert_int_equal(a->inputs.player_count, b->inputs.player_count);
    for (uint32_t p = 0; p < a->inputs.player_count; p++) {
        assert_memory_equal(a->inputs.players[p].params, b->inputs.players[p].params, np * sizeof(fix16_t));
        if (ng) assert_memory_equal(a->inputs.players[p].triggers, b->inputs.players[p].triggers, ng);
        assert_int_equal(a->payload_len[p], b->payload_len[p]);
        if (a->payload_len[p]) assert_memory_equal(a->payload[p], b->payload[p], a->payload_len[p]);
    }
}

static void start_world(nh_world* w, char paths[PLAYERS][400]) {
    nh_config_start_ms = 10000;
    assert_int_equal(nh_start(w, PLAYERS, 1, 3, 20, "report", TICKS, 0), 0);
    bsync_match_config_replay_header(w->cfg, "test_net_resume", 0, &g_header);
    for (uint32_t p = 0; p < PLAYERS; p++) {
        bsync_client_config cc;
        memset(&cc, 0, sizeof cc);
        snprintf(paths[p], sizeof paths[p], "%s/client%u.bsreplay", w->dir, p);
        cc.replay_path = paths[p];
        cc.replay_header = &g_header;
        int i = nh_connect(w, p, &cc);
        assert_int_equal(i, (int)p);
        w->clients[i].send_payload = 1; /* game payloads must survive the resend too */
    }
}

/* Pump until the server has confirmed `tick`. */
static void pump_to_tick(nh_world* w, uint32_t tick) {
    uint64_t limit = bsync_net_now_us() + 20000000u;
    bsync_server_match_stats st;
    do {
        nh_pump(w, 5);
        bsync_server_get_match_stats(w->server, 0, &st);
    } while (st.ticks < tick && bsync_net_now_us() < limit);
    assert_true(st.ticks >= tick);
}

static void assert_all_agree(nh_world* w) {
    bsync_match_checksums ref, other;
    nh_client_checksums(w, 0, &ref);
    assert_int_equal(ref.tick, TICKS);
    for (uint32_t i = 1; i < PLAYERS; i++) {
        nh_client_checksums(w, (int)i, &other);
        assert_int_equal(other.tick, TICKS);
        assert_true(other.blend == ref.blend && other.pose == ref.pose);
    }
}

static void test_resume_from_frames(void** state) {
    (void)state;
    nh_world w;
    char paths[PLAYERS][400];
    start_world(&w, paths);
    pump_to_tick(&w, 150);
    bsync_client_stats before;
    bsync_client_get_stats(w.clients[1].client, &before);
    bsync_client_fault_drop(w.clients[1].client);
    assert_int_equal(bsync_client_get_state(w.clients[1].client), BSYNC_CLIENT_CONNECTING);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);

    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    bsync_client_stats cs;
    bsync_client_get_stats(w.clients[1].client, &cs);
    printf("[resume] dropped at frame %u: reconnects %llu, resumes %llu (snapshot %llu), connect attempts %llu; server: "
           "resumes %llu, frames resent %llu, takeovers %llu, snapshot joins %llu, defaulted %llu\n",
           before.next_frame_tick, (unsigned long long)cs.reconnects, (unsigned long long)cs.resumes,
           (unsigned long long)cs.resumes_snapshot, (unsigned long long)cs.connect_attempts,
           (unsigned long long)st.resumes, (unsigned long long)st.frames_resent, (unsigned long long)st.takeovers,
           (unsigned long long)st.snapshot_joins, (unsigned long long)st.inputs_defaulted);
    /* the client: one reconnect, resumed from the server's frames, every frame applied once */
    assert_int_equal(cs.reconnects, 1);
    assert_int_equal(cs.resumes, 1);
    assert_int_equal(cs.resumes_snapshot, 0);
    assert_int_equal(w.clients[1].reconnecting_events, 1);
    assert_int_equal(w.clients[1].welcome_events, 2);
    assert_int_equal(w.clients[1].incomplete_events, 0);
    assert_int_equal(w.clients[1].first_frame, 0);
    assert_int_equal(w.clients[1].frames, TICKS);
    assert_int_equal(cs.frames_applied, TICKS);
    assert_int_equal(cs.frames_missing, 0);
    /* the server: the slot taken over from the silent connection, the missed frames sent, no snapshot */
    assert_int_equal(st.resumes, 1);
    assert_int_equal(st.takeovers, 1);
    assert_int_equal(st.snapshot_joins, 0);
    assert_true(st.frames_resent > 0);
    assert_true(st.frames_resent <= TICKS - before.next_frame_tick);
    assert_int_equal(st.ticks, TICKS);
    assert_int_equal(st.desyncs, 0);
    /* every checksum of every client compared and agreeing, the resumed one's included */
    assert_int_equal(st.checksums_verified, PLAYERS * (TICKS / 20u));
    for (uint32_t i = 0; i < PLAYERS; i++) assert_int_equal(w.clients[i].bye_reason, BSYNC_PROTO_BYE_MATCH_OVER);
    assert_all_agree(&w);
    /* its replay: every frame, the server's own frames (payloads too), END normal, and it verifies */
    replay_frames mine, server;
    read_replay(paths[1], &mine);
    read_replay(st.replay_path, &server);
    assert_int_equal(mine.count, TICKS);
    assert_int_equal(server.count, TICKS);
    assert_int_equal(mine.end_ticks, TICKS);
    assert_int_equal(mine.end_reason, 0);
    uint32_t with_payload = 0;
    for (uint32_t t = 0; t < TICKS; t++) {
        assert_true(mine.have[t] && server.have[t]);
        assert_same_frame(&mine.frames[t], &server.frames[t], bsync_match_config_desc(w.cfg)->param_count,
                          bsync_match_config_desc(w.cfg)->trigger_count);
        with_payload += mine.frames[t].payload_len[0] > 0;
    }
    assert_true(with_payload > TICKS / 2); /* the payloads were there to compare */
    free_replay(&mine);
    free_replay(&server);
    char cmd[2400];
    snprintf(cmd, sizeof cmd, "'%s' replay verify '%s' > /dev/null", BSYNC_CLI, paths[1]);
    assert_int_equal(system(cmd), 0);
    nh_stop(&w);
}

static void test_resume_falls_back_to_snapshot(void** state) {
    (void)state;
    nh_world w;
    char paths[PLAYERS][400];
    start_world(&w, paths);
    pump_to_tick(&w, 60);
    bsync_client_fault_drop(w.clients[1].client);
    /* the client is not serviced for 5 s (300 ticks at 60 Hz, more than the server's 256-frame ring) */
    bsync_client* away = w.clients[1].client;
    w.clients[1].client = NULL;
    nh_pump(&w, 5000);
    w.clients[1].client = away;
    assert_int_equal(nh_run_to_end(&w, 30000), 0);

    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    bsync_client_stats cs;
    bsync_client_get_stats(w.clients[1].client, &cs);
    printf("[resume] after 5 s away: reconnects %llu, resumes %llu, snapshot %llu, frames applied %llu; server: resumes "
           "%llu, snapshot joins %llu\n",
           (unsigned long long)cs.reconnects, (unsigned long long)cs.resumes, (unsigned long long)cs.resumes_snapshot,
           (unsigned long long)cs.frames_applied, (unsigned long long)st.resumes, (unsigned long long)st.snapshot_joins);
    assert_int_equal(cs.reconnects, 1);
    assert_int_equal(cs.resumes, 0);
    assert_int_equal(cs.resumes_snapshot, 1);
    assert_int_equal(st.resumes, 0);
    assert_int_equal(st.snapshot_joins, 1);
    assert_int_equal(st.desyncs, 0);
    assert_int_equal(w.clients[1].incomplete_events, 0);
    assert_int_equal(w.clients[1].bye_reason, BSYNC_PROTO_BYE_MATCH_OVER);
    assert_true(cs.frames_applied < TICKS);  /* the frames it was away for were never applied ... */
    assert_int_equal(cs.next_frame_tick, TICKS); /* ... but it caught up from the snapshot to the end */
    assert_all_agree(&w);
    replay_frames mine;
    read_replay(paths[1], &mine);
    assert_int_equal(mine.end_reason, 2); /* aborted: the gap cannot be in an append-only replay */
    assert_true(mine.count < TICKS);
    free_replay(&mine);
    nh_stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_resume_from_frames),
                                       cmocka_unit_test(test_resume_falls_back_to_snapshot)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
