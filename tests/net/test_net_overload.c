/* test_net_overload.c — graceful refusal under overload (issue 14, docs/server.md "Overload"), over
 * real ENet on loopback. The overloaded state is forced with the server's threshold knob
 * (overload_busy_permille = 1: any busy time in a second is "too much"): a HELLO for a match that has
 * not started and has nobody connected is answered BYE OVERLOADED and counted, while the match that
 * is already running goes on to its end, and one of its players who leaves and comes back is
 * accepted. The control: with the default threshold the same HELLO is welcomed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/net.h"
#include "net_harness.h"

static const char* k_second =
    "{ \"match_id\": 43, \"players\": [ {\"token\": \"other-0\"}, {\"token\": \"other-1\"} ],\n"
    "  \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5} ] },\n"
    "  \"characters\": [ {\"name\": \"a\", \"graph\": \"loco.json\", \"slot\": 0},\n"
    "                  {\"name\": \"b\", \"graph\": \"loco.json\", \"slot\": 1} ],\n"
    "  \"checksum_interval\": 12, \"replay\": \"match2.bsreplay\", \"duration_ticks\": 150,\n"
    "  \"timeouts\": {\"start_ms\": 3000, \"idle_ms\": 5000} }\n";

/* A client of match 43, slot 0. */
static bsync_client* second_match_client(nh_world* w, bsync_match_config** cfg2) {
    bsync_error err;
    assert_int_equal(bsync_match_config_load(w->second_match_path, NULL, cfg2, &err), BSYNC_OK);
    bsync_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.host = "127.0.0.1";
    cc.port = w->port;
    cc.match_id = 43;
    cc.slot = 0;
    cc.token = (const uint8_t*)"other-0";
    cc.token_len = 7;
    cc.desc = bsync_match_config_desc(*cfg2);
    bsync_client* c = NULL;
    assert_int_equal(bsync_client_create(&cc, &c, &err), BSYNC_OK);
    return c;
}

/* Services the world and c until c gets a WELCOME (returns 0) or a BYE (returns its reason + 1). */
static uint32_t second_match_answer(nh_world* w, bsync_client* c) {
    uint64_t limit = bsync_net_now_us() + 5000000u;
    while (bsync_net_now_us() < limit) {
        nh_pump(w, 2);
        bsync_client_service(c, 0);
        bsync_client_event ev;
        while (bsync_client_poll_event(c, &ev)) {
            if (ev.type == BSYNC_CLIENT_EVENT_WELCOME) return 0;
            if (ev.type == BSYNC_CLIENT_EVENT_BYE) return ev.bye_reason + 1u;
        }
    }
    fail_msg("match 43 never answered");
    return UINT32_MAX;
}

static void test_overloaded_refuses_new_match_only(void** state) {
    (void)state;
    nh_world w;
    nh_config_overload_permille = 1; /* forced: every second has more than 0.1% busy time */
    assert_int_equal(nh_start_two(&w, k_second, 2, 0, 3, 20, "report", 240, 0), 0);
    nh_config_overload_permille = 0;
    /* match 42 fills up and starts before the first second of load history is complete */
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    assert_true(nh_connect(&w, 1, NULL) >= 0);
    nh_pump(&w, 1500);
    bsync_server_host_stats hs;
    bsync_server_get_host_stats(w.server, &hs);
    assert_int_equal(hs.overloaded, 1);
    assert_true(hs.busy_permille >= 1);
    assert_int_equal(hs.overload_episodes, 1);
    bsync_server_match_stats a;
    bsync_server_get_match_stats(w.server, 0, &a);
    assert_true(a.started);
    assert_true(a.ticks > 0);
    /* a new match: refused with the new reason, counted; the match stays unstarted */
    bsync_match_config* cfg2 = NULL;
    bsync_client* c = second_match_client(&w, &cfg2);
    assert_int_equal(second_match_answer(&w, c), BSYNC_PROTO_BYE_OVERLOADED + 1u);
    assert_int_equal(bsync_client_get_state(c), BSYNC_CLIENT_ENDED);
    bsync_server_get_host_stats(w.server, &hs);
    assert_int_equal(hs.overload_refusals, 1);
    bsync_server_match_stats b;
    bsync_server_get_match_stats(w.server, 1, &b);
    assert_false(b.started);
    assert_int_equal(b.players_connected, 0);
    /* a player of the running match leaves and comes back: still accepted (a reconnect) */
    nh_disconnect(&w, 1);
    nh_pump(&w, 300);
    int back = nh_connect(&w, 1, NULL);
    assert_true(back >= 0);
    assert_int_equal(nh_run_to_end(&w, 20000), 0);
    bsync_server_get_match_stats(w.server, 0, &a);
    assert_int_equal(a.ticks, 240);
    assert_int_equal(a.desyncs, 0);
    assert_int_equal(w.clients[0].bye_reason, BSYNC_PROTO_BYE_MATCH_OVER);
    assert_int_equal(w.clients[back].bye_reason, BSYNC_PROTO_BYE_MATCH_OVER);
    assert_true(w.clients[back].frames > 0);
    assert_int_equal(w.clients[back].incomplete_events, 0);
    bsync_match_checksums x, y;
    nh_client_checksums(&w, 0, &x);
    nh_client_checksums(&w, back, &y);
    assert_int_equal(x.tick, 240);
    assert_int_equal(y.tick, 240);
    assert_true(x.blend == y.blend && x.pose == y.pose);
    bsync_server_get_host_stats(w.server, &hs);
    assert_int_equal(hs.overload_refusals, 1); /* the reconnect was not refused */
    bsync_client_destroy(c);
    bsync_match_config_destroy(cfg2);
    nh_stop(&w);
}

/* The control: the default threshold (500 permille) on an idle test server: the same HELLO is welcomed. */
static void test_default_threshold_welcomes(void** state) {
    (void)state;
    nh_world w;
    assert_int_equal(nh_start_two(&w, k_second, 2, 0, 3, 20, "report", 240, 0), 0);
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    assert_true(nh_connect(&w, 1, NULL) >= 0);
    nh_pump(&w, 1500);
    bsync_server_host_stats hs;
    bsync_server_get_host_stats(w.server, &hs);
    assert_int_equal(hs.overloaded, 0);
    assert_true(hs.busy_permille < 500);
    bsync_match_config* cfg2 = NULL;
    bsync_client* c = second_match_client(&w, &cfg2);
    assert_int_equal(second_match_answer(&w, c), 0);
    bsync_server_get_host_stats(w.server, &hs);
    assert_int_equal(hs.overload_refusals, 0);
    bsync_client_destroy(c);
    bsync_match_config_destroy(cfg2);
    nh_stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_overloaded_refuses_new_match_only),
                                       cmocka_unit_test(test_default_threshold_welcomes)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
