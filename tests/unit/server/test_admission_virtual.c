/* test_admission_virtual.c — admission by predicted cost (docs/server.md "Overload") on virtual time
 * (tests/support/vnet.h): the real server sessions, no socket, no clock, so no busy share is ever
 * measured and every refusal here is the prediction's, from the first HELLO on.
 *
 * Three matches of 2 players at 60 Hz and a budget of 3 permille (3 ms of busy time a second). At the
 * server's prior of 10 µs per player-tick a match is predicted at 2 x 60 x 10 µs = 1.2 ms a second:
 * two fit (2.4 ms), a third would make 3.6 ms. So the third match's first HELLO gets BYE OVERLOADED,
 * the second player of an admitted match is welcomed whatever the prediction says, and once the first
 * match has ended its reservation is released and the third match is admitted (2.4 ms again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/io/match_config.h"
#include "fixtures.h"
#include "vnet.h"

static const char* k_graph =
    "{ \"tick_rate\": 60,\n"
    "  \"parameters\": { \"speed\": { \"default\": 0 } },\n"
    "  \"root\": \"locomotion\",\n"
    "  \"nodes\": { \"locomotion\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [\n"
    "      { \"motion\": \"idle\", \"threshold\": 0 }, { \"motion\": \"run\", \"threshold\": 3.5 } ] } },\n"
    "  \"clips\": { \"idle\": { \"source\": \"builtin:humanoid\" }, \"run\": { \"source\": \"builtin:humanoid\" } } }\n";

#define MATCHES 3u
#define TICKS 60u

typedef struct world {
    char dir[64];
    bsync_match_config* cfg[MATCHES];
    vn_net* net;
    bsync_server* server;
    bsync_client* clients[MATCHES][2];
    int welcomed[MATCHES][2], ended[MATCHES][2];
    uint32_t bye[MATCHES][2];
} world;

static void start(world* w) {
    memset(w, 0, sizeof *w);
    assert_int_equal(bsync_test_tmpdir(w->dir, sizeof w->dir, "admit"), 0);
    assert_int_equal(bsync_test_write_text(w->dir, "loco.json", k_graph), 0);
    static char paths[MATCHES][128];
    const char* list[MATCHES];
    for (uint32_t m = 0; m < MATCHES; m++) {
        char name[32], text[1024];
        snprintf(name, sizeof name, "match%u.json", m + 1u);
        snprintf(text, sizeof text,
                 "{ \"match_id\": %u, \"players\": [ {\"token\": \"a\"}, {\"token\": \"b\"} ],\n"
                 "  \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5} ] },\n"
                 "  \"characters\": [ {\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0},\n"
                 "                  {\"name\": \"p1\", \"graph\": \"loco.json\", \"slot\": 1} ],\n"
                 "  \"input_delay\": 3, \"checksum_interval\": 30, \"duration_ticks\": %u,\n"
                 "  \"timeouts\": {\"start_ms\": 20000, \"peer_ms\": 5000, \"idle_ms\": 20000} }\n",
                 m + 1u, TICKS);
        assert_int_equal(bsync_test_write_text(w->dir, name, text), 0);
        snprintf(paths[m], sizeof paths[m], "%s", bsync_test_path(w->dir, name));
        list[m] = paths[m];
        bsync_error err;
        assert_int_equal(bsync_match_config_load(paths[m], NULL, &w->cfg[m], &err), BSYNC_OK);
    }
    w->net = vn_create(5);
    assert_non_null(w->net);
    bsync_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.match_paths = list;
    sc.match_count = MATCHES;
    sc.overload_busy_permille = 3;
    bsync_error err;
    assert_int_equal(vn_server(w->net, &sc, 32u, &w->server, &err), BSYNC_OK);
}

static void join(world* w, uint32_t m, uint32_t slot) {
    static const char* const tokens[2] = {"a", "b"};
    bsync_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.match_id = m + 1u;
    cc.slot = (uint8_t)slot;
    cc.token = (const uint8_t*)tokens[slot];
    cc.token_len = 1;
    cc.desc = bsync_match_config_desc(w->cfg[m]);
    const vn_link link = {5000u, 0};
    bsync_error err;
    assert_int_equal(vn_client(w->net, &cc, &link, &w->clients[m][slot], &err), BSYNC_OK);
}

/* The clients' events (no inputs: the server defaults them, which costs it the same ticks). */
static void pump(world* w, uint64_t us) {
    const uint64_t end = vn_now(w->net) + us;
    while (vn_now(w->net) < end) {
        vn_run(w->net, 1000u);
        for (uint32_t m = 0; m < MATCHES; m++)
            for (uint32_t s = 0; s < 2; s++) {
                bsync_client* c = w->clients[m][s];
                bsync_client_event ev;
                while (c && bsync_client_poll_event(c, &ev)) {
                    if (ev.type == BSYNC_CLIENT_EVENT_WELCOME) w->welcomed[m][s] = 1;
                    if (ev.type == BSYNC_CLIENT_EVENT_BYE || ev.type == BSYNC_CLIENT_EVENT_DISCONNECTED) {
                        w->ended[m][s] = 1;
                        w->bye[m][s] = ev.type == BSYNC_CLIENT_EVENT_BYE ? ev.bye_reason : UINT32_MAX;
                    }
                }
            }
    }
}

static void stop(world* w) {
    vn_destroy(w->net);
    for (uint32_t m = 0; m < MATCHES; m++) bsync_match_config_destroy(w->cfg[m]);
    bsync_test_rmtree(w->dir);
}

static void test_third_match_refused_until_one_ends(void** state) {
    (void)state;
    world w;
    start(&w);
    /* the first player of matches 1 and 2: both admitted (1.2 and 2.4 ms a second) */
    join(&w, 0, 0);
    join(&w, 1, 0);
    pump(&w, 200000u);
    assert_true(w.welcomed[0][0] && w.welcomed[1][0]);
    /* match 3: 3.6 ms a second over the 3 ms budget, refused at its first HELLO */
    join(&w, 2, 0);
    pump(&w, 200000u);
    assert_false(w.welcomed[2][0]);
    assert_true(w.ended[2][0]);
    assert_int_equal(w.bye[2][0], BSYNC_PROTO_BYE_OVERLOADED);
    assert_int_equal(vn_log_count(w.net, "reason=overloaded busy_permille=0 predicted_us_per_s=3600 threshold_permille=3 player_tick_ns=10000"), 1);
    bsync_server_host_stats hs;
    bsync_server_get_host_stats(w.server, &hs);
    assert_int_equal(hs.overload_refusals, 1);
    assert_int_equal(hs.overloaded, 0); /* no busy share on virtual time: the prediction alone refused */
    /* the second player of an admitted match: welcomed (the match holds its reservation) */
    join(&w, 0, 1);
    pump(&w, 200000u);
    assert_true(w.welcomed[0][1]);
    /* match 1 plays its 60 ticks (1 s at 60 Hz) and ends: its 1.2 ms are released */
    for (uint32_t i = 0; i < 40 && !(w.ended[0][0] && w.ended[0][1]); i++) pump(&w, 100000u);
    assert_int_equal(w.bye[0][0], BSYNC_PROTO_BYE_MATCH_OVER);
    assert_int_equal(w.bye[0][1], BSYNC_PROTO_BYE_MATCH_OVER);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.ticks, TICKS);
    /* match 3 again: matches 2 and 3 make 2.4 ms, within the budget */
    bsync_client_destroy(w.clients[2][0]);
    w.clients[2][0] = NULL;
    w.ended[2][0] = 0;
    join(&w, 2, 0);
    pump(&w, 200000u);
    assert_true(w.welcomed[2][0]);
    assert_false(w.ended[2][0]);
    bsync_server_get_host_stats(w.server, &hs);
    assert_int_equal(hs.overload_refusals, 1);
    stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_third_match_refused_until_one_ends)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
