/* Operating a pool from another thread (blendsync/server.h, docs/operations.md): a pool started with
 * no match and room for 8 players per worker takes a match config as text; a bad config is refused
 * with its JSON path and nothing is added; a match whose id is in use, one with too many players, and
 * any match once the pool drains are refused with their own codes; the worker takes the added match
 * on its next pass (pending -> lobby) and ends it on request (END reason shutdown). And the Prometheus
 * text of hand-made counters: cumulative histogram buckets, exact decimal seconds, the length
 * contract. Real ENet hosts on loopback (port 0). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/server.h"

static const char* k_demo = BSYNC_SOURCE_DIR "/scripts/demo";

/* A match of `players` tokens, one character on the demo's graph (character_key: "slot", or a typo). */
static void config_text(char* out, size_t cap, unsigned id, const char* character_key, unsigned players) {
    char toks[1024] = "";
    for (unsigned p = 0; p < players; p++) {
        char t[40];
        snprintf(t, sizeof t, "%s{\"token\": \"t%u-%u\"}", p ? ", " : "", id, p);
        strncat(toks, t, sizeof toks - strlen(toks) - 1);
    }
    snprintf(out, cap,
             "{\"match_id\": %u, \"players\": [%s],"
             " \"input\": {\"parameters\": [{\"name\": \"speed\", \"min\": 0, \"max\": 3.5}]},"
             " \"characters\": [{\"name\": \"p0\", \"graph\": \"humanoid_locomotion.json\", \"%s\": 0}],"
             " \"duration_ticks\": 300}",
             id, toks, character_key);
}

static FILE* g_log; /* the servers' log lines: not this test's subject */

static void pool_done(bsync_server_pool* pool) {
    bsync_server_pool_destroy(pool);
    if (g_log) fclose(g_log);
    g_log = NULL;
}

static bsync_server_pool* empty_pool(uint32_t workers) {
    bsync_server_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.host = "127.0.0.1";
    cfg.player_capacity = 8;
    g_log = fopen("/dev/null", "w");
    cfg.log = g_log;
    bsync_server_pool* pool = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(bsync_server_pool_create(&cfg, workers, &pool, &err), BSYNC_OK);
    return pool;
}

static int g_passes;
static int stop_after_passes(void* user) {
    (void)user;
    return ++g_passes > 6; /* six service passes of at most 50 ms */
}

static void test_add_validate_take_end(void** state) {
    (void)state;
    bsync_server_pool* pool = empty_pool(2);
    char text[4096];
    bsync_server_match_info info;
    bsync_error err;
    /* a bad config: the loader's path, nothing added */
    config_text(text, sizeof text, 7, "slott", 2);
    memset(&err, 0, sizeof err);
    assert_int_equal(bsync_server_pool_match_add(pool, text, strlen(text), "api/match-7.json", k_demo, NULL, &info, &err),
                     BSYNC_CONFIG_ERROR);
    assert_non_null(strstr(err.message, "/characters/0/slott"));
    assert_int_equal(bsync_server_pool_match_list(pool, NULL, 0), 0);
    /* a good one: pending, with its hash and the least loaded worker (both empty: worker 0) */
    config_text(text, sizeof text, 7, "slot", 2);
    assert_int_equal(bsync_server_pool_match_add(pool, text, strlen(text), "api/match-7.json", k_demo, NULL, &info, &err),
                     BSYNC_OK);
    assert_int_equal(info.state, BSYNC_SERVER_MATCH_PENDING);
    assert_int_equal(info.match_id, 7);
    assert_int_equal(info.worker, 0);
    assert_true(info.match_hash != 0);
    /* the next one goes to the other worker (fewer players) */
    config_text(text, sizeof text, 8, "slot", 2);
    assert_int_equal(bsync_server_pool_match_add(pool, text, strlen(text), "api/match-8.json", k_demo, NULL, &info, &err),
                     BSYNC_OK);
    assert_int_equal(info.worker, 1);
    /* the same id again */
    config_text(text, sizeof text, 7, "slot", 2);
    assert_int_equal(bsync_server_pool_match_add(pool, text, strlen(text), "api/match-7.json", k_demo, NULL, &info, &err),
                     BSYNC_DUPLICATE_NAME);
    /* 9 players: over the 8 each worker makes room for */
    config_text(text, sizeof text, 9, "slot", 9);
    assert_int_equal(bsync_server_pool_match_add(pool, text, strlen(text), "api/match-9.json", k_demo, NULL, &info, &err),
                     BSYNC_LIMIT_EXCEEDED);
    bsync_server_match_info list[4];
    assert_int_equal(bsync_server_pool_match_list(pool, list, 4), 2);
    assert_int_equal(list[0].state, BSYNC_SERVER_MATCH_PENDING);
    /* the workers take them on their passes */
    g_passes = 0;
    bsync_server_pool_run_ex(pool, stop_after_passes, NULL, NULL, 0, 0, 100);
    assert_int_equal(bsync_server_pool_match_list(pool, list, 4), 2);
    assert_int_equal(list[0].state, BSYNC_SERVER_MATCH_ENDED); /* the run's end shut them down */
    assert_int_equal(list[0].end_reason, 1u);                  /* shutdown */
    assert_int_equal(list[0].players, 2);
    assert_int_equal(list[1].match_id, 8);
    assert_int_equal(list[1].worker, 1);
    bsync_server_counters c;
    bsync_server_pool_counters(pool, &c);
    assert_int_equal(c.workers, 2);
    assert_int_equal(c.matches[BSYNC_SERVER_MATCH_ENDED], 2);
    assert_int_equal(c.matches[BSYNC_SERVER_MATCH_PENDING], 0);
    assert_int_equal(bsync_server_pool_match_end(pool, 999), -1);
    /* draining: nothing new */
    bsync_server_pool_drain(pool);
    assert_true(bsync_server_pool_draining(pool));
    config_text(text, sizeof text, 10, "slot", 2);
    assert_int_equal(bsync_server_pool_match_add(pool, text, strlen(text), "api/match-10.json", k_demo, NULL, &info, &err),
                     BSYNC_LIMIT_EXCEEDED);
    pool_done(pool);
}

static int g_calls;
static int end_then_stop(void* user) {
    bsync_server_pool* pool = user;
    g_calls++;
    if (g_calls == 3) assert_int_equal(bsync_server_pool_match_end(pool, 21), 0); /* from inside the run */
    return g_calls > 8;
}

static void test_end_request(void** state) {
    (void)state;
    bsync_server_pool* pool = empty_pool(1);
    char text[4096];
    bsync_server_match_info info;
    bsync_error err;
    config_text(text, sizeof text, 21, "slot", 2);
    assert_int_equal(bsync_server_pool_match_add(pool, text, strlen(text), "api/match-21.json", k_demo, NULL, &info, &err),
                     BSYNC_OK);
    g_calls = 0;
    bsync_server_pool_run_ex(pool, end_then_stop, NULL, pool, 0, 0, 100);
    bsync_server_match_info m;
    assert_int_equal(bsync_server_pool_match_list(pool, &m, 1), 1);
    assert_int_equal(m.state, BSYNC_SERVER_MATCH_ENDED);
    assert_int_equal(m.end_reason, 1u);
    pool_done(pool);
}

static void test_metrics_text(void** state) {
    (void)state;
    bsync_server_counters c;
    memset(&c, 0, sizeof c);
    c.workers = 1;
    c.matches[BSYNC_SERVER_MATCH_RUNNING] = 3;
    c.inputs_received = 12345;
    /* observations 10 us, 30 us, 30 us and 0.2 s: buckets 25 us (1), 50 us (2), the rest past 100 ms */
    c.tick_lateness.count[0] = 1;
    c.tick_lateness.count[1] = 2;
    c.tick_lateness.overflow = 1;
    c.tick_lateness.sum_us = 10 + 30 + 30 + 200000;
    c.host.busy_permille = 475;
    size_t need = bsync_server_metrics_text(&c, NULL, 0);
    char* text = malloc(need);
    assert_non_null(text);
    assert_int_equal(bsync_server_metrics_text(&c, text, need), need);
    assert_int_equal(strlen(text) + 1, need);
    assert_non_null(strstr(text, "\nblendsync_matches{state=\"running\"} 3\n"));
    assert_non_null(strstr(text, "\nblendsync_inputs_received_total 12345\n"));
    assert_non_null(strstr(text, "\nblendsync_tick_lateness_seconds_bucket{le=\"0.000025\"} 1\n"));
    assert_non_null(strstr(text, "\nblendsync_tick_lateness_seconds_bucket{le=\"0.000050\"} 3\n"));
    assert_non_null(strstr(text, "\nblendsync_tick_lateness_seconds_bucket{le=\"0.100000\"} 3\n"));
    assert_non_null(strstr(text, "\nblendsync_tick_lateness_seconds_bucket{le=\"+Inf\"} 4\n"));
    assert_non_null(strstr(text, "\nblendsync_tick_lateness_seconds_sum 0.200070\n"));
    assert_non_null(strstr(text, "\nblendsync_tick_lateness_seconds_count 4\n"));
    assert_non_null(strstr(text, "\nblendsync_busy_ratio 0.475\n"));
    assert_non_null(strstr(text, "# TYPE blendsync_tick_duration_seconds histogram\n"));
    /* a short buffer: cut, NUL-terminated, the same length asked for */
    char small[64];
    memset(small, 'x', sizeof small);
    assert_int_equal(bsync_server_metrics_text(&c, small, sizeof small), need);
    assert_true(memchr(small, '\0', sizeof small) != NULL);
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_validate_take_end),
        cmocka_unit_test(test_end_request),
        cmocka_unit_test(test_metrics_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
