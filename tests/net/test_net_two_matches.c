/* test_net_two_matches.c — one server process, two matches (different ids, players, checksum
 * intervals) played at the same time over real ENet on loopback: each match's clients agree, the
 * matches do not interfere, and a token of one match is refused in the other. */
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
    "                  {\"name\": \"b\", \"graph\": \"loco.json\", \"slot\": 1},\n"
    "                  {\"name\": \"n\", \"graph\": \"loco.json\", \"npc_seed\": 5} ],\n"
    "  \"checksum_interval\": 12, \"replay\": \"match2.bsreplay\", \"duration_ticks\": 150,\n"
    "  \"timeouts\": {\"start_ms\": 3000, \"idle_ms\": 3000} }\n";

static void test_two_matches(void** state) {
    (void)state;
    nh_world w;
    assert_int_equal(nh_start_two(&w, k_second, 2, 1, 3, 20, "report", 180, 0), 0);
    assert_int_equal(bsync_server_match_count(w.server), 2);
    /* match 42: the harness's clients */
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    assert_true(nh_connect(&w, 1, NULL) >= 0);
    /* match 43: its own desc and tokens */
    bsync_match_config* cfg2 = NULL;
    bsync_error err;
    assert_int_equal(bsync_match_config_load(w.second_match_path, NULL, &cfg2, &err), BSYNC_OK);
    bsync_client* other[2] = {NULL, NULL};
    for (uint32_t s = 0; s < 2; s++) {
        bsync_client_config cc;
        memset(&cc, 0, sizeof cc);
        char tok[16];
        snprintf(tok, sizeof tok, "other-%u", s);
        cc.host = "127.0.0.1";
        cc.port = w.port;
        cc.match_id = 43;
        cc.slot = (uint8_t)s;
        cc.token = (const uint8_t*)tok;
        cc.token_len = (uint32_t)strlen(tok);
        cc.desc = bsync_match_config_desc(cfg2);
        cc.compute_poses = 1;
        assert_int_equal(bsync_client_create(&cc, &other[s], &err), BSYNC_OK);
    }
    /* a match-42 token presented to match 43 */
    bsync_client* wrong = NULL;
    {
        bsync_client_config cc;
        memset(&cc, 0, sizeof cc);
        cc.host = "127.0.0.1";
        cc.port = w.port;
        cc.match_id = 43;
        cc.slot = 1;
        cc.token = (const uint8_t*)"tok-1";
        cc.token_len = 5;
        cc.desc = bsync_match_config_desc(cfg2);
        assert_int_equal(bsync_client_create(&cc, &wrong, &err), BSYNC_OK);
    }
    bsync_match_script scripts[2];
    bsync_match_script_init(&scripts[0], 1);
    bsync_match_script_init(&scripts[1], 2);
    uint32_t wrong_bye = 0;
    uint64_t next_input = 0;
    uint64_t limit = bsync_net_now_us() + 30000000u;
    int done = 0;
    while (!done && bsync_net_now_us() < limit) {
        nh_pump(&w, 1);
        uint64_t now = bsync_net_now_us();
        int send = now >= next_input;
        if (send) next_input = now + 16666u;
        for (int s = 0; s < 2; s++) {
            bsync_client_service(other[s], 0);
            bsync_client_event ev;
            while (bsync_client_poll_event(other[s], &ev)) (void)ev;
            if (send && bsync_client_get_state(other[s]) >= BSYNC_CLIENT_JOINING &&
                bsync_client_get_state(other[s]) != BSYNC_CLIENT_ENDED) {
                bsync_match_input in;
                bsync_match_random_input(&scripts[s], bsync_match_config_desc(cfg2), &in);
                bsync_client_send_input(other[s], &in, NULL);
            }
        }
        if (wrong) {
            bsync_client_service(wrong, 0);
            bsync_client_event ev;
            while (bsync_client_poll_event(wrong, &ev))
                if (ev.type == BSYNC_CLIENT_EVENT_BYE) wrong_bye = ev.bye_reason;
            if (bsync_client_get_state(wrong) == BSYNC_CLIENT_ENDED) {
                bsync_client_destroy(wrong);
                wrong = NULL;
            }
        }
        done = bsync_server_done(w.server) && bsync_client_get_state(other[0]) == BSYNC_CLIENT_ENDED &&
               bsync_client_get_state(other[1]) == BSYNC_CLIENT_ENDED && w.clients[0].ended && w.clients[1].ended;
    }
    assert_true(done);
    assert_int_equal(wrong_bye, BSYNC_PROTO_BYE_BAD_TOKEN);
    bsync_server_match_stats a, b;
    bsync_server_get_match_stats(w.server, 0, &a);
    bsync_server_get_match_stats(w.server, 1, &b);
    assert_int_equal(a.match_id, 42);
    assert_int_equal(b.match_id, 43);
    assert_int_equal(a.ticks, 180);
    assert_int_equal(b.ticks, 150);
    assert_int_equal(a.desyncs + b.desyncs, 0);
    assert_int_equal(a.checksums_verified, 2 * (180 / 20));
    assert_int_equal(b.checksums_verified, 2 * (150 / 12));
    bsync_match_checksums x, y;
    nh_client_checksums(&w, 0, &x);
    nh_client_checksums(&w, 1, &y);
    assert_true(x.blend == y.blend && x.pose == y.pose);
    bsync_match_get_checksums(bsync_client_match(other[0]), 1, &x);
    bsync_match_get_checksums(bsync_client_match(other[1]), 1, &y);
    assert_int_equal(x.tick, 150);
    assert_true(x.blend == y.blend && x.pose == y.pose);
    for (int s = 0; s < 2; s++) bsync_client_destroy(other[s]);
    bsync_client_destroy(wrong);
    bsync_match_config_destroy(cfg2);
    nh_stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_two_matches)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
