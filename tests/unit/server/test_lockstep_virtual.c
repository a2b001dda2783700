/* test_lockstep_virtual.c — the lockstep session on virtual time (tests/support/vnet.h): the real
 * server sessions (server_session.c, server_match.c) and client sessions (client.c) on their transport
 * ports, in one process, no socket, no clock. Every run is the same run, so what the tests here assert
 * is exact: a clean match agrees and two runs are byte for byte alike; a planted desync (client_testing.h)
 * is reported at the next checksum tick and traced to its frame; lost inputs are defaulted and nothing
 * desyncs; a connection dropped on the client's side is taken over and resumed from the frame ring,
 * also when the frames come before the resume's WELCOME; a client that leaves says BYE. (Real sockets: tests/net.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/io/match_config.h"
#include "client_testing.h"
#include "fixtures.h"
#include "vnet.h"

#define RATE 60u
#define PERIOD_US (1000000u / RATE)

static const char* k_graph =
    "{ \"tick_rate\": 60,\n"
    "  \"parameters\": { \"speed\": { \"default\": 0, \"smooth_time\": 0.2, \"max_speed\": 10 },\n"
    "                  \"lean\": { \"default\": 0 } },\n"
    "  \"root\": \"locomotion\",\n"
    "  \"nodes\": { \"locomotion\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [\n"
    "      { \"motion\": \"idle\", \"threshold\": 0 }, { \"motion\": \"walk\", \"threshold\": 1.4 },\n"
    "      { \"motion\": \"run\", \"threshold\": 3.5 } ] } },\n"
    "  \"clips\": { \"idle\": { \"source\": \"builtin:humanoid\" }, \"walk\": { \"source\": \"builtin:humanoid\" },\n"
    "             \"run\": { \"source\": \"builtin:humanoid\" } } }\n";

typedef struct world {
    char dir[64];
    char match_path[128];
    bsync_match_config* cfg;
    vn_net* net;
    bsync_server* server;
    uint32_t players;
    bsync_client* clients[4];
    bsync_match_script scripts[4];
    uint64_t next_input_us[4];
    int ended[4];
    uint32_t bye[4];
    uint32_t desyncs[4], welcomes[4], reconnecting[4];
    bsync_proto_desync last_desync[4];
    uint16_t defaulted[4][512];
} world;

/* A match of `players` players and one NPC at 60 Hz, input delay 3, duration `ticks`, the server on a
 * virtual network (its log kept for vn_log_count). */
static void start(world* w, uint32_t players, uint32_t interval, uint32_t ticks, uint64_t seed) {
    memset(w, 0, sizeof *w);
    w->players = players;
    assert_int_equal(bsync_test_tmpdir(w->dir, sizeof w->dir, "vnet"), 0);
    assert_int_equal(bsync_test_write_text(w->dir, "loco.json", k_graph), 0);
    char text[2048];
    size_t n = (size_t)snprintf(text, sizeof text, "{ \"match_id\": 42, \"players\": [");
    for (uint32_t p = 0; p < players; p++) n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"token\": \"tok-%u\"}", p ? ", " : "", p);
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "], \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5}, "
                          "{\"name\": \"lean\", \"min\": -1, \"max\": 1} ], \"hold_ticks\": [10, 40] }, \"characters\": [");
    for (uint32_t p = 0; p < players; p++)
        n += (size_t)snprintf(text + n, sizeof text - n, "{\"name\": \"p%u\", \"graph\": \"loco.json\", \"slot\": %u}, ", p, p);
    snprintf(text + n, sizeof text - n,
             "{\"name\": \"npc\", \"graph\": \"loco.json\", \"npc_seed\": 7} ], \"input_delay\": 3, "
             "\"checksum_interval\": %u, \"replay\": \"match.bsreplay\", \"duration_ticks\": %u, "
             "\"timeouts\": {\"start_ms\": 3000, \"peer_ms\": 5000, \"idle_ms\": 3000} }\n",
             interval, ticks);
    assert_int_equal(bsync_test_write_text(w->dir, "match.json", text), 0);
    snprintf(w->match_path, sizeof w->match_path, "%s", bsync_test_path(w->dir, "match.json"));
    bsync_error err;
    assert_int_equal(bsync_match_config_load(w->match_path, NULL, &w->cfg, &err), BSYNC_OK);
    w->net = vn_create(seed);
    assert_non_null(w->net);
    const char* paths[1] = {w->match_path};
    bsync_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.match_paths = paths;
    sc.match_count = 1;
    sc.verify_poses = 1;
    assert_int_equal(vn_server(w->net, &sc, 2u * players + 16u, &w->server, &err), BSYNC_OK);
}

static void connect_client(world* w, uint32_t slot, const vn_link* link) {
    static char tokens[4][8];
    snprintf(tokens[slot], sizeof tokens[slot], "tok-%u", slot);
    bsync_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.match_id = 42;
    cc.slot = (uint8_t)slot;
    cc.token = (const uint8_t*)tokens[slot];
    cc.token_len = (uint32_t)strlen(tokens[slot]);
    cc.desc = bsync_match_config_desc(w->cfg);
    cc.compute_poses = 1;
    bsync_error err;
    assert_int_equal(vn_client(w->net, &cc, link, &w->clients[slot], &err), BSYNC_OK);
    bsync_match_script_init(&w->scripts[slot], 500u + slot);
}

/* Events of every client, and one seeded input per tick period each once welcomed. */
static void pump(world* w, uint64_t us) {
    const uint64_t end = vn_now(w->net) + us;
    while (vn_now(w->net) < end) {
        vn_run(w->net, 1000u);
        const uint64_t now = vn_now(w->net);
        for (uint32_t p = 0; p < w->players; p++) {
            bsync_client* c = w->clients[p];
            if (!c) continue;
            bsync_client_event ev;
            while (bsync_client_poll_event(c, &ev)) {
                if (ev.type == BSYNC_CLIENT_EVENT_WELCOME) {
                    w->welcomes[p]++;
                    if (!w->next_input_us[p]) w->next_input_us[p] = now;
                } else if (ev.type == BSYNC_CLIENT_EVENT_FRAME && ev.tick < 512) {
                    w->defaulted[p][ev.tick] = ev.defaulted_mask;
                } else if (ev.type == BSYNC_CLIENT_EVENT_DESYNC) {
                    w->desyncs[p]++;
                    w->last_desync[p] = ev.desync;
                } else if (ev.type == BSYNC_CLIENT_EVENT_RECONNECTING) {
                    w->reconnecting[p]++;
                } else if (ev.type == BSYNC_CLIENT_EVENT_BYE || ev.type == BSYNC_CLIENT_EVENT_DISCONNECTED) {
                    w->ended[p] = 1;
                    w->bye[p] = ev.type == BSYNC_CLIENT_EVENT_BYE ? ev.bye_reason : UINT32_MAX;
                }
            }
            if (w->next_input_us[p] && !w->ended[p] && now >= w->next_input_us[p]) {
                bsync_match_input in;
                bsync_match_random_input(&w->scripts[p], bsync_match_config_desc(w->cfg), &in);
                (void)bsync_client_send_input(c, &in, NULL);
                w->next_input_us[p] += PERIOD_US;
            }
        }
    }
}

/* Until the match is over on the server and every client has ended (at most `seconds` of virtual time). */
static void run_to_end(world* w, uint32_t seconds) {
    for (uint32_t i = 0; i < seconds * 10u; i++) {
        pump(w, 100000u);
        int all = bsync_server_done(w->server);
        for (uint32_t p = 0; p < w->players; p++) all = all && (!w->clients[p] || w->ended[p]);
        if (all) return;
    }
    fail_msg("the match did not end within %u s of virtual time", seconds);
}

static void stop(world* w) {
    vn_destroy(w->net);
    bsync_match_config_destroy(w->cfg);
    bsync_test_rmtree(w->dir); /* the match's replay and desync bundle too */
}

static void checksums(world* w, uint32_t p, bsync_match_checksums* out) {
    assert_int_equal(bsync_match_get_checksums(bsync_client_match(w->clients[p]), 1, out), BSYNC_OK);
}

/* A clean 3-player match: every frame applied, every checksum verified, all states alike; and the same
 * seed plays the same run again, to the byte. */
static void test_clean_match_agrees_and_repeats(void** state) {
    (void)state;
    const uint32_t ticks = 180, interval = 20;
    bsync_server_match_stats runs[2];
    bsync_match_checksums ends[2];
    for (int run = 0; run < 2; run++) {
        world w;
        start(&w, 3, interval, ticks, 9);
        const vn_link link = {10000u, 0};
        for (uint32_t p = 0; p < 3; p++) connect_client(&w, p, &link);
        pump(&w, 1000000u);
        for (uint32_t p = 0; p < 3; p++) {
            bsync_client_stats cs;
            bsync_client_get_stats(w.clients[p], &cs);
            assert_int_equal(cs.rtt_ms, 20); /* the link's two 10 ms legs */
        }
        run_to_end(&w, 20);
        bsync_server_match_stats st;
        bsync_server_get_match_stats(w.server, 0, &st);
        assert_int_equal(st.ticks, ticks);
        assert_int_equal(st.desyncs, 0);
        assert_int_equal(st.mismatched_checksums, 0);
        assert_int_equal(st.checksums_verified, 3u * (ticks / interval));
        for (uint32_t t = 10; t < ticks; t++) assert_int_equal(w.defaulted[0][t], 0); /* inputs on time (pacing) */
        bsync_match_checksums a, b;
        checksums(&w, 0, &a);
        for (uint32_t p = 0; p < 3; p++) {
            bsync_client_stats cs;
            bsync_client_get_stats(w.clients[p], &cs);
            assert_int_equal(cs.frames_applied, ticks);
            assert_int_equal(cs.checksums_sent, ticks / interval);
            assert_int_equal(w.bye[p], BSYNC_PROTO_BYE_MATCH_OVER);
            checksums(&w, p, &b);
            assert_int_equal(b.tick, ticks);
            assert_true(a.blend == b.blend && a.pose == b.pose && a.pose != 0);
        }
        assert_int_equal(vn_log_count(w.net, "event=match_end match=42 ticks=180 reason=normal"), 1);
        runs[run] = st;
        ends[run] = a;
        stop(&w);
    }
    /* virtual time: the second run is the first one again */
    assert_true(ends[0].blend == ends[1].blend && ends[0].pose == ends[1].pose);
    assert_int_equal(runs[0].bytes_in, runs[1].bytes_in);
    assert_int_equal(runs[0].bytes_out, runs[1].bytes_out);
    assert_int_equal(runs[0].jitter_max_us, runs[1].jitter_max_us);
}

/* client_testing.h's desync: planted after frame 40, reported at the first checksum tick after it (44,
 * interval 15) for that slot's character, and traced to frame 40 from the client's trail. */
static void test_planted_desync_reported_and_traced(void** state) {
    (void)state;
    world w;
    start(&w, 2, 15, 90, 3);
    for (uint32_t p = 0; p < 2; p++) connect_client(&w, p, NULL);
    bsync_client_fault_desync(w.clients[1], 40);
    run_to_end(&w, 20);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 1);
    assert_int_equal(st.last_desync_tick, 44);
    assert_int_equal(st.last_desync_slot, 1);
    assert_int_equal(st.last_desync_kind, BSYNC_PROTO_DESYNC_CHARACTER_BLEND);
    assert_int_equal(st.last_desync_character, 1);
    assert_int_equal(w.desyncs[0], 0);
    assert_int_equal(w.desyncs[1], 1);
    assert_int_equal(w.last_desync[1].tick, 44);
    assert_int_equal(vn_log_count(w.net, "event=desync_bundle match=42 slot=1 tick=44"), 1);
    assert_int_equal(vn_log_count(w.net, "event=desync_origin match=42 slot=1 tick=40 character=1"), 1);
    stop(&w);
}

/* Lost INPUTs (50% of slot 1's unreliable packets, either way) are defaulted by the server, the frames
 * say so to everyone alike, and nothing desyncs: a default is a confirmed input like any other. */
static void test_lost_inputs_defaulted_alike(void** state) {
    (void)state;
    const uint32_t ticks = 240;
    world w;
    start(&w, 2, 20, ticks, 5);
    const vn_link clean = {5000u, 0}, lossy = {5000u, 500};
    connect_client(&w, 0, &clean);
    connect_client(&w, 1, &lossy);
    run_to_end(&w, 20);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.ticks, ticks);
    assert_int_equal(st.desyncs, 0);
    uint32_t lossy_defaults = 0, clean_defaults = 0;
    for (uint32_t t = 10; t < ticks; t++) {
        assert_int_equal(w.defaulted[0][t], w.defaulted[1][t]);
        lossy_defaults += (w.defaulted[0][t] >> 1) & 1u;
        clean_defaults += w.defaulted[0][t] & 1u;
    }
    assert_true(lossy_defaults > 0);
    assert_int_equal(clean_defaults, 0);
    bsync_match_checksums a, b;
    checksums(&w, 0, &a);
    checksums(&w, 1, &b);
    assert_true(a.blend == b.blend && a.pose == b.pose);
    stop(&w);
}

/* client_testing.h's drop: the connection is lost on the client's side only. The client reconnects by
 * itself; the server, still holding the silent connection, refuses the slot until it has been silent
 * for a second, then hands it over (a takeover) and resends the missed frames from its ring (a
 * resume): the client applies every frame exactly once and ends with everyone else's state. */
static void test_dropped_connection_resumes(void** state) {
    (void)state;
    const uint32_t ticks = 360;
    world w;
    start(&w, 2, 20, ticks, 11);
    for (uint32_t p = 0; p < 2; p++) connect_client(&w, p, NULL);
    pump(&w, 1500000u); /* about 80 ticks in */
    bsync_client_fault_drop(w.clients[1]);
    assert_int_equal(bsync_client_get_state(w.clients[1]), BSYNC_CLIENT_CONNECTING);
    run_to_end(&w, 30);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 0);
    assert_int_equal(st.takeovers, 1);
    assert_int_equal(st.resumes, 1);
    assert_true(st.frames_resent > 0);
    bsync_client_stats cs;
    bsync_client_get_stats(w.clients[1], &cs);
    assert_int_equal(cs.reconnects, 1);
    assert_int_equal(cs.resumes, 1);
    assert_int_equal(cs.frames_applied, ticks);
    assert_int_equal(cs.incomplete, 0);
    assert_int_equal(w.reconnecting[1], 1);
    assert_int_equal(w.welcomes[1], 2);
    assert_int_equal(w.bye[1], BSYNC_PROTO_BYE_MATCH_OVER);
    bsync_match_checksums a, b;
    checksums(&w, 0, &a);
    checksums(&w, 1, &b);
    assert_true(a.blend == b.blend && a.pose == b.pose);
    stop(&w);
}

/* The same drop, but the resume's WELCOME comes 200 ms late (a reliable packet resent after a loss)
 * while the frames from the resume tick on travel on their own channel and arrive first. Those frames
 * are held until the WELCOME says "keep your state from R": it must find the client still at R (the
 * tick its HELLO asked for), resume, and apply every frame once. Applied early, the client stood past
 * R when the WELCOME came, took it for a protocol error and ended INCOMPLETE. */
static void test_resume_frames_before_welcome(void** state) {
    (void)state;
    const uint32_t ticks = 360;
    world w;
    start(&w, 2, 20, ticks, 11);
    const vn_link link = {10000u, 0};
    for (uint32_t p = 0; p < 2; p++) connect_client(&w, p, &link);
    pump(&w, 1500000u);
    bsync_client_fault_drop(w.clients[1]);
    vn_client_late(w.net, 1, BSYNC_PROTO_WELCOME, 200000u); /* 12 ticks of 60 Hz */
    run_to_end(&w, 30);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.resumes, 1);
    assert_int_equal(st.desyncs, 0);
    bsync_client_stats cs;
    bsync_client_get_stats(w.clients[1], &cs);
    assert_true(cs.frames_early >= 6); /* the case itself: frames came before the WELCOME */
    assert_int_equal(cs.reconnects, 1);
    assert_int_equal(cs.resumes, 1);
    assert_int_equal(cs.resumes_snapshot, 0);
    assert_int_equal(cs.incomplete, 0);
    assert_int_equal(cs.frames_applied, ticks);
    assert_int_equal(w.welcomes[1], 2);
    assert_int_equal(w.bye[1], BSYNC_PROTO_BYE_MATCH_OVER);
    bsync_match_checksums a, b;
    checksums(&w, 0, &a);
    checksums(&w, 1, &b);
    assert_int_equal(b.tick, ticks);
    assert_true(a.blend == b.blend && a.pose == b.pose);
    stop(&w);
}

/* A client destroyed mid-match says BYE: the server logs it and frees the slot; the match goes on. */
static void test_leaving_client_says_bye(void** state) {
    (void)state;
    world w;
    start(&w, 2, 20, 240, 13);
    for (uint32_t p = 0; p < 2; p++) connect_client(&w, p, NULL);
    pump(&w, 1000000u);
    bsync_client_destroy(w.clients[1]);
    w.clients[1] = NULL;
    pump(&w, 100000u);
    assert_int_equal(vn_log_count(w.net, "event=bye match=42 slot=1 reason=normal"), 1);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.players_connected, 1);
    run_to_end(&w, 20);
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.ticks, 240);
    assert_int_equal(st.desyncs, 0);
    stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_match_agrees_and_repeats),
        cmocka_unit_test(test_planted_desync_reported_and_traced),
        cmocka_unit_test(test_lost_inputs_defaulted_alike),
        cmocka_unit_test(test_dropped_connection_resumes),
        cmocka_unit_test(test_resume_frames_before_welcome),
        cmocka_unit_test(test_leaving_client_says_bye),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
