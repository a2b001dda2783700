/* test_synctest.c — the sync test (io/synctest.h).
 *
 * A toy simulation (state k, x; checksum (k << 32) ^ x ^ (y << 48)) with planted bugs, whose
 * mismatch lists are worked out by hand from the contract's numbering (state k = after k ticks; at
 * check n >= D: load state n - D, compare, re-simulate ticks n - D .. n - 1 comparing states
 * n - D + 1 .. n, then reload state n):
 *   correct toy                     -> no mismatch, counts ticks_checked = N - D + 1, comparisons;
 *   init leaves `junk` unwritten,    -> rewind alone: nothing (the reference memory is zero-filled);
 *   tick adds it                        POISON_FRESH: every re-simulated state, both patterns, with the
 *                                       'got' value computed here from the pattern;
 *   hidden static counter, every tick -> caught at the first check n = D; list (ticks 1..6) with hand-worked
 *                                       checksums; 100 ticks: 100 distinct ticks counted, 64 listed;
 *   hidden static used at tick 2 only -> exactly ticks 3 and 4 (D = 2): the bug's tick and the ones
 *                                       within D that carry it, not every later tick;
 *   a field the checksum covers but   -> caught at the loaded state k = n - D, for k = 0 .. N - D;
 *   the snapshot loses
 * Argument errors, allocation failure, callback failure (error_tick), no leaks (counting allocator).
 * Real simulations: a graph instance (builtin:humanoid, SmoothDamp, a Switch with fades and carry,
 * 600 ticks, D = 4, poses in the checksum, POISON_FRESH) -> no mismatch; the same adapter with an
 * impure input callback (a hidden counter) -> caught at state 1 by the check n = 4; a match of
 * 2 player characters + 1 NPC (match adapter, poses) -> no mismatch. */
#include "test_support.h"
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/synctest.h"
#include "blendsync/match.h"
#include "blendsync/procedural.h"

#define MULT 6364136223846793005ull

/* ------------------------------------------------------------------ the toy simulation */

enum { BUG_NONE, BUG_UNINIT, BUG_STATIC_EVERY, BUG_STATIC_AT2, BUG_LOSSY, BUG_FAIL_TICK };

typedef struct toy {
    uint64_t k, x, junk, y;
} toy;

typedef struct toy_user {
    int bug;
    int reset; /* 1: the hidden static restarts at 0 on the next tick */
    uint64_t fail_at;
} toy_user;

static bsync_result toy_init(void* user, void* mem, size_t size) {
    toy_user* u = (toy_user*)user;
    if (size < sizeof(toy)) return BSYNC_BUFFER_TOO_SMALL;
    toy* s = (toy*)mem;
    s->k = 0;
    s->x = 0;
    s->y = 0;
    if (u->bug != BUG_UNINIT) s->junk = 0; /* the planted bug: junk left as the memory had it */
    return BSYNC_OK;
}

static bsync_result toy_tick(void* user, void* sim, uint64_t t) {
    toy_user* u = (toy_user*)user;
    toy* s = (toy*)sim;
    static uint64_t calls; /* the planted hidden static (used by the STATIC bugs only) */
    if (u->reset) {
        calls = 0;
        u->reset = 0;
    }
    calls++;
    if (u->bug == BUG_FAIL_TICK && t == u->fail_at) return BSYNC_OVERFLOW;
    s->k++;
    switch (u->bug) {
    case BUG_STATIC_EVERY: s->x += calls; break;
    case BUG_STATIC_AT2: s->x += (t == 2 ? calls : 0); break;
    case BUG_UNINIT: s->x = s->x * MULT + (t + 1) + s->junk; break;
    case BUG_LOSSY: s->y = (t + 1) * 7; s->x = s->x * MULT + (t + 1); break;
    default: s->x = s->x * MULT + (t + 1); break;
    }
    return BSYNC_OK;
}

static uint64_t cs(uint64_t k, uint64_t x) { return (k << 32) ^ x; }

static uint64_t toy_checksum(void* user, void* sim) {
    (void)user;
    const toy* s = (const toy*)sim;
    return cs(s->k, s->x) ^ (s->y << 48);
}

static size_t toy_snapshot_size(void* user, void* sim) {
    (void)user;
    (void)sim;
    return 16;
}

static bsync_result toy_save(void* user, void* sim, void* buf, size_t cap) {
    (void)user;
    const toy* s = (const toy*)sim;
    if (cap < 16) return BSYNC_BUFFER_TOO_SMALL;
    memcpy(buf, &s->k, 8);
    memcpy((unsigned char*)buf + 8, &s->x, 8);
    return BSYNC_OK;
}

static bsync_result toy_load(void* user, void* sim, const void* buf, size_t len) {
    (void)user;
    toy* s = (toy*)sim;
    if (len != 16) return BSYNC_BAD_BLOB;
    memcpy(&s->k, buf, 8);
    memcpy(&s->x, (const unsigned char*)buf + 8, 8);
    return BSYNC_OK; /* y (BUG_LOSSY's field) is not restored; junk is never part of the state */
}

static bsync_synctest_ops toy_ops(toy_user* u) {
    bsync_synctest_ops o;
    memset(&o, 0, sizeof o);
    o.user = u;
    o.state_size = sizeof(toy);
    o.init = toy_init;
    o.tick = toy_tick;
    o.checksum = toy_checksum;
    o.snapshot_size = toy_snapshot_size;
    o.save = toy_save;
    o.load = toy_load;
    return o;
}

static void expect_entry(const bsync_synctest_mismatch* m, uint64_t tick, uint64_t at, uint32_t kind, uint64_t expected,
                         uint64_t got) {
    assert_int_equal(m->tick, tick);
    assert_int_equal(m->checked_at, at);
    assert_int_equal(m->kind, kind);
    assert_true(m->expected == expected);
    assert_true(m->got == got);
}

/* ------------------------------------------------------------------ (a) correct */

static void test_toy_correct(void** state) {
    (void)state;
    toy_user u = {BUG_NONE, 1, 0};
    bsync_synctest_ops o = toy_ops(&u);
    bsync_synctest_report rep;
    uint64_t x100 = 0;
    for (uint64_t t = 0; t < 100; t++) x100 = x100 * MULT + (t + 1);
    for (uint32_t d = 1; d <= 64; d += 7) {
        assert_int_equal(bsync_synctest_run(&o, 100, d, BSYNC_SYNCTEST_POISON_FRESH, &rep, NULL), BSYNC_OK);
        assert_int_equal(rep.ticks_run, 100);
        assert_int_equal(rep.ticks_checked, 100 - d + 1);
        assert_int_equal(rep.comparisons, (uint64_t)(100 - d + 1) * 3u * (d + 1u));
        assert_int_equal(rep.failed_comparisons, 0);
        assert_int_equal(rep.mismatch_count, 0);
        assert_int_equal(rep.listed, 0);
        assert_int_equal(rep.check_distance, d);
        assert_int_equal(rep.error_tick, 0);
        assert_true(rep.last_checksum == cs(100, x100));
    }
    /* D = 64 exactly (the limit), rewind only */
    assert_int_equal(bsync_synctest_run(&o, 64, 64, 0, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_checked, 1);
    assert_int_equal(rep.comparisons, 65);
    assert_int_equal(rep.mismatch_count, 0);
    /* fewer ticks than D: nothing checked, still OK */
    assert_int_equal(bsync_synctest_run(&o, 3, 4, 0, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_run, 3);
    assert_int_equal(rep.ticks_checked, 0);
    assert_int_equal(rep.comparisons, 0);
    assert_int_equal(bsync_synctest_run(&o, 0, 1, 0, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_run, 0);
}

/* ------------------------------------------------------------------ (b) uninitialised state */

static void test_toy_uninit(void** state) {
    (void)state;
    toy_user u = {BUG_UNINIT, 1, 0};
    bsync_synctest_ops o = toy_ops(&u);
    bsync_synctest_report rep;
    /* rewind alone: the reference memory is zero-filled, so junk = 0 in the run and the rewinds */
    assert_int_equal(bsync_synctest_run(&o, 6, 2, 0, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_checked, 5);
    assert_int_equal(rep.mismatch_count, 0);
    assert_int_equal(rep.failed_comparisons, 0);

    /* POISON_FRESH: every re-simulated state of a fresh simulation differs; loaded states (k = n - 2)
     * match (junk is not in the checksum). Order per check n: kind 0xA5 then 0x5A, ticks ascending. */
    assert_int_equal(bsync_synctest_run(&o, 6, 2, BSYNC_SYNCTEST_POISON_FRESH, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_checked, 5);
    assert_int_equal(rep.comparisons, 5u * 3u * 3u);
    assert_int_equal(rep.failed_comparisons, 5u * 2u * 2u);
    assert_int_equal(rep.mismatch_count, 12); /* ticks 1..6 x 2 patterns */
    assert_int_equal(rep.listed, 12);
    for (uint32_t i = 0; i < rep.listed; i++) assert_int_not_equal(rep.mismatches[i].kind, BSYNC_SYNCTEST_REWIND);
    const uint64_t a5 = 0xA5A5A5A5A5A5A5A5ull, x5a = 0x5A5A5A5A5A5A5A5Aull;
    /* reference: x1 = 1, x2 = 1 * MULT + 2; check n = 2 loads state 0 (k 0, x 0) into the fresh sim */
    const uint64_t r1 = 1, r2 = MULT + 2;
    expect_entry(&rep.mismatches[0], 1, 2, BSYNC_SYNCTEST_FRESH_A5, cs(1, r1), cs(1, 1 + a5));
    expect_entry(&rep.mismatches[1], 2, 2, BSYNC_SYNCTEST_FRESH_A5, cs(2, r2), cs(2, (1 + a5) * MULT + 2 + a5));
    expect_entry(&rep.mismatches[2], 1, 2, BSYNC_SYNCTEST_FRESH_5A, cs(1, r1), cs(1, 1 + x5a));
    expect_entry(&rep.mismatches[3], 2, 2, BSYNC_SYNCTEST_FRESH_5A, cs(2, r2), cs(2, (1 + x5a) * MULT + 2 + x5a));
    /* check n = 3 loads state 1 (x = 1): state 3 = (1 * MULT + 2 + P) * MULT + 3 + P */
    const uint64_t r3 = r2 * MULT + 3;
    expect_entry(&rep.mismatches[4], 3, 3, BSYNC_SYNCTEST_FRESH_A5, cs(3, r3), cs(3, (MULT + 2 + a5) * MULT + 3 + a5));
    expect_entry(&rep.mismatches[5], 3, 3, BSYNC_SYNCTEST_FRESH_5A, cs(3, r3), cs(3, (MULT + 2 + x5a) * MULT + 3 + x5a));
    for (uint32_t n = 4; n <= 6; n++) {
        assert_int_equal(rep.mismatches[2 * n - 2].tick, n);
        assert_int_equal(rep.mismatches[2 * n - 2].checked_at, n);
        assert_int_equal(rep.mismatches[2 * n - 2].kind, BSYNC_SYNCTEST_FRESH_A5);
        assert_int_equal(rep.mismatches[2 * n - 1].tick, n);
        assert_int_equal(rep.mismatches[2 * n - 1].checked_at, n);
        assert_int_equal(rep.mismatches[2 * n - 1].kind, BSYNC_SYNCTEST_FRESH_5A);
    }
}

/* ------------------------------------------------------------------ (c) hidden static */

static void test_toy_hidden_static(void** state) {
    (void)state;
    toy_user u = {BUG_STATIC_EVERY, 1, 0};
    bsync_synctest_ops o = toy_ops(&u);
    bsync_synctest_report rep;
    /* By hand (calls = the static, +1 per tick call; x += calls):
     *  n=1 tick0 c1 (1,1)            n=2 tick1 c2 (2,3); check: S0, tick0 c3 (1,3)!, tick1 c4 (2,7)!; reload (2,3)
     *  n=3 tick2 c5 (3,8); check: S1 (1,1), tick1 c6 (2,7) dup, tick2 c7 (3,14)!; reload (3,8)
     *  n=4 tick3 c8 (4,16); check: S2 (2,3), c9 (3,12) dup, c10 (4,22)!
     *  n=5 tick4 c11 (5,27); check: S3 (3,8), c12 (4,20) dup, c13 (5,33)!
     *  n=6 tick5 c14 (6,41); check: S4 (4,16), c15 (5,31) dup, c16 (6,47)! */
    assert_int_equal(bsync_synctest_run(&o, 6, 2, 0, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_checked, 5);
    assert_int_equal(rep.comparisons, 15);
    assert_int_equal(rep.failed_comparisons, 10);
    assert_int_equal(rep.mismatch_count, 6);
    assert_int_equal(rep.listed, 6);
    expect_entry(&rep.mismatches[0], 1, 2, BSYNC_SYNCTEST_REWIND, cs(1, 1), cs(1, 3));
    expect_entry(&rep.mismatches[1], 2, 2, BSYNC_SYNCTEST_REWIND, cs(2, 3), cs(2, 7));
    expect_entry(&rep.mismatches[2], 3, 3, BSYNC_SYNCTEST_REWIND, cs(3, 8), cs(3, 14));
    expect_entry(&rep.mismatches[3], 4, 4, BSYNC_SYNCTEST_REWIND, cs(4, 16), cs(4, 22));
    expect_entry(&rep.mismatches[4], 5, 5, BSYNC_SYNCTEST_REWIND, cs(5, 27), cs(5, 33));
    expect_entry(&rep.mismatches[5], 6, 6, BSYNC_SYNCTEST_REWIND, cs(6, 41), cs(6, 47));
    assert_true(rep.last_checksum == cs(6, 41)); /* the first run's, never a re-simulated one */

    /* 100 ticks: every state 1..100 differs once (100 distinct), each of the 99 checks fails twice;
     * only the first 64 are listed, in tick order. */
    u.reset = 1;
    assert_int_equal(bsync_synctest_run(&o, 100, 2, 0, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_checked, 99);
    assert_int_equal(rep.mismatch_count, 100);
    assert_int_equal(rep.failed_comparisons, 198);
    assert_int_equal(rep.listed, 64);
    for (uint32_t i = 0; i < 64; i++) assert_int_equal(rep.mismatches[i].tick, i + 1);
    assert_int_equal(rep.mismatches[63].checked_at, 64);

    /* Used at tick 2 only (x += calls when t == 2):
     *  n=1 (1,0); n=2 (2,0), check: c3 (1,0), c4 (2,0) ok; n=3 tick2 c5 (3,5); check: S1, c6 (2,0), c7 (3,7)!
     *  n=4 tick3 c8 (4,5); check: S2 (2,0), tick2 c9 (3,9) dup, tick3 c10 (4,9)!
     *  n=5 check: S3 (3,5), (4,5), (5,5) ok; n=6 ok. */
    u.bug = BUG_STATIC_AT2;
    u.reset = 1;
    assert_int_equal(bsync_synctest_run(&o, 6, 2, 0, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_checked, 5);
    assert_int_equal(rep.failed_comparisons, 3);
    assert_int_equal(rep.mismatch_count, 2);
    assert_int_equal(rep.listed, 2);
    expect_entry(&rep.mismatches[0], 3, 3, BSYNC_SYNCTEST_REWIND, cs(3, 5), cs(3, 7));
    expect_entry(&rep.mismatches[1], 4, 4, BSYNC_SYNCTEST_REWIND, cs(4, 5), cs(4, 9));
}

/* A field in the checksum but not in the snapshot: y = 7 (t + 1) after tick t. At check n the simulation
 * holds y = 7n; loading state n - D leaves it, so the loaded state's checksum differs (expected y =
 * 7 (n - D), or 0 for state 0); the re-simulated states set y again and match. */
static void test_toy_lossy_snapshot(void** state) {
    (void)state;
    toy_user u = {BUG_LOSSY, 1, 0};
    bsync_synctest_ops o = toy_ops(&u);
    bsync_synctest_report rep;
    assert_int_equal(bsync_synctest_run(&o, 6, 2, 0, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.mismatch_count, 5);
    assert_int_equal(rep.failed_comparisons, 5);
    assert_int_equal(rep.listed, 5);
    uint64_t x = 0;
    for (uint64_t k = 0; k <= 4; k++) {
        const bsync_synctest_mismatch* m = &rep.mismatches[k];
        expect_entry(m, k, k + 2, BSYNC_SYNCTEST_REWIND, cs(k, x) ^ ((7 * k) << 48), cs(k, x) ^ ((7 * (k + 2)) << 48));
        x = x * MULT + (k + 1);
    }
}

/* ------------------------------------------------------------------ errors, allocation */

static void test_errors(void** state) {
    (void)state;
    toy_user u = {BUG_NONE, 1, 0};
    bsync_synctest_ops o = toy_ops(&u);
    bsync_synctest_report rep;
    memset(&rep, 0xEE, sizeof rep);
    assert_int_equal(bsync_synctest_run(&o, 10, 0, 0, &rep, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(rep.ticks_run, 0);
    assert_int_equal(rep.listed, 0);
    assert_int_equal(bsync_synctest_run(&o, 10, 65, 0, &rep, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_synctest_run(&o, 10, 2, 2u, &rep, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_synctest_run(NULL, 10, 2, 0, &rep, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_synctest_run(&o, 10, 2, 0, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    bsync_synctest_ops bad = o;
    bad.load = NULL;
    assert_int_equal(bsync_synctest_run(&bad, 10, 2, 0, &rep, NULL), BSYNC_INVALID_ARGUMENT);
    bad = o;
    bad.state_size = 0;
    assert_int_equal(bsync_synctest_run(&bad, 10, 2, 0, &rep, NULL), BSYNC_INVALID_ARGUMENT);
    bad = o;
    bad.tick = NULL;
    assert_int_equal(bsync_synctest_run(&bad, 10, 2, 0, &rep, NULL), BSYNC_INVALID_ARGUMENT);

    int calls = 0;
    bsync_allocator fail = bsync_test_failing_allocator(&calls);
    assert_int_equal(bsync_synctest_run(&o, 10, 2, BSYNC_SYNCTEST_POISON_FRESH, &rep, &fail), BSYNC_OUT_OF_MEMORY);
    assert_true(calls > 0);
    assert_int_equal(rep.ticks_run, 0);

    /* a callback failure stops the run with its code: tick 7 fails in the forward run of state 8 */
    u.bug = BUG_FAIL_TICK;
    u.fail_at = 7;
    assert_int_equal(bsync_synctest_run(&o, 20, 3, 0, &rep, NULL), BSYNC_OVERFLOW);
    assert_int_equal(rep.error_tick, 8);
    assert_int_equal(rep.ticks_run, 7);
    assert_int_equal(rep.ticks_checked, 5); /* n = 3 .. 7 */

    /* no leaks, one allocator for everything */
    u.bug = BUG_NONE;
    bsync_test_counting_allocator ca;
    bsync_test_counting_allocator_init(&ca);
    assert_int_equal(bsync_synctest_run(&o, 50, 5, BSYNC_SYNCTEST_POISON_FRESH, &rep, &ca.allocator), BSYNC_OK);
    assert_true(ca.allocs > 0);
    assert_int_equal(ca.allocs, ca.frees);
    assert_int_equal(ca.live_bytes, 0);

    assert_string_equal(bsync_synctest_kind_name(BSYNC_SYNCTEST_REWIND), "rewind");
    assert_string_equal(bsync_synctest_kind_name(BSYNC_SYNCTEST_FRESH_A5), "fresh-0xA5");
    assert_string_equal(bsync_synctest_kind_name(BSYNC_SYNCTEST_FRESH_5A), "fresh-0x5A");
    assert_string_equal(bsync_synctest_kind_name(3), "unknown");
}

/* ------------------------------------------------------------------ (d) a real graph instance */

static char g_dir[64];
static bsync_graph_config* g_gc;
static bsync_procedural_humanoid g_h;

/* Root "act": Switch over node "loco" (Simple1D speed, SmoothDamp 0.25 s, max 10) and motion "run". */
static const char k_cfg[] =
    "{\"tick_rate\": 30, \"parameters\": {\"speed\": {\"default\": 0, \"smooth_time\": 0.25, \"max_speed\": 10}},"
    " \"root\": \"act\", \"nodes\": {"
    "\"act\": {\"type\": \"Switch\", \"initial\": \"loco\", \"children\": [{\"motion\": \"loco\"}, "
    "{\"motion\": \"run\", \"time_scale\": 1.25}]},"
    "\"loco\": {\"type\": \"Simple1D\", \"parameter\": \"speed\", \"sync\": \"normalized\", \"children\": ["
    "{\"motion\": \"idle\", \"threshold\": 0}, {\"motion\": \"walk\", \"threshold\": 1.4}, {\"motion\": \"run\", "
    "\"threshold\": 3.5}]}},"
    "\"clips\": {\"idle\": {\"source\": \"builtin:humanoid\"}, \"walk\": {\"source\": \"builtin:humanoid\"},"
    " \"run\": {\"source\": \"builtin:humanoid\"}}}";

static int setup(void** state) {
    (void)state;
    if (bsync_test_tmpdir(g_dir, sizeof g_dir, "synct") != 0) return -1;
    if (bsync_test_write_text(g_dir, "cfg.json", k_cfg) != 0) return -1;
    bsync_error err;
    memset(&err, 0, sizeof err);
    const bsync_result r = bsync_graph_config_load(bsync_test_path(g_dir, "cfg.json"), NULL, &g_gc, NULL, &err);
    bsync_test_rmtree(g_dir);
    if (r != BSYNC_OK) {
        fprintf(stderr, "config: %s\n", err.message);
        return -1;
    }
    return bsync_procedural_humanoid_create(NULL, &g_h) == BSYNC_OK ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    bsync_graph_config_destroy(g_gc);
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

/* speed: a ramp 0 -> 4 over ticks 0..199, down to 0.5 at 200..299, a saw 300..599; triggers: run
 * (fade 10) at 100, loco (fade 20, carry) at 250, run instantly at 400, loco (fade 5) at 401 (mid-fade
 * interruption), run (fade 30, carry) at 500. */
static bsync_result graph_input(void* user, uint64_t t, fix16_t* targets, bsync_switch_trigger* tr, uint32_t* n) {
    (void)user;
    fix16_t s;
    if (t < 200) s = (fix16_t)(t * 65536u * 4u / 200u);
    else if (t < 300) s = 32768;
    else s = (fix16_t)((t % 50u) * 65536u / 10u);
    targets[0] = s;
    static const struct { uint64_t t; uint32_t child, fade, carry; } k_tr[] = {
        {100, 1, 10, 0}, {250, 0, 20, 1}, {400, 1, 0, 0}, {401, 0, 5, 0}, {500, 1, 30, 1}};
    for (size_t i = 0; i < sizeof k_tr / sizeof k_tr[0]; i++)
        if (k_tr[i].t == t) {
            tr[0].switch_index = 0;
            tr[0].child = k_tr[i].child;
            tr[0].fade_ticks = k_tr[i].fade;
            tr[0].carry_time = k_tr[i].carry;
            *n = 1;
        }
    return BSYNC_OK;
}

static void test_graph_instance(void** state) {
    (void)state;
    const bsync_graph* g = bsync_graph_config_graph(g_gc);
    assert_int_equal(bsync_graph_switch_count(g), 1);
    assert_non_null(bsync_graph_skeleton(g));
    bsync_synctest_instance a;
    memset(&a, 0, sizeof a);
    a.graph = g;
    a.with_pose = 1;
    a.input = graph_input;
    bsync_synctest_ops o;
    assert_int_equal(bsync_synctest_instance_ops(&a, &o), BSYNC_OK);
    assert_int_equal(o.state_size, bsync_instance_memory_size(g));
    bsync_synctest_report rep;
    assert_int_equal(bsync_synctest_run(&o, 600, 4, BSYNC_SYNCTEST_POISON_FRESH, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_run, 600);
    assert_int_equal(rep.ticks_checked, 597);
    assert_int_equal(rep.comparisons, 597u * 3u * 5u);
    if (rep.mismatch_count)
        fprintf(stderr, "first mismatch: tick %llu kind %s\n", (unsigned long long)rep.mismatches[0].tick,
                bsync_synctest_kind_name(rep.mismatches[0].kind));
    assert_int_equal(rep.mismatch_count, 0);
    assert_int_equal(rep.failed_comparisons, 0);

    /* adapter errors */
    bsync_synctest_instance b = a;
    b.input = NULL;
    assert_int_equal(bsync_synctest_instance_ops(&b, &o), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_synctest_instance_ops(NULL, &o), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_synctest_instance_ops(&a, NULL), BSYNC_INVALID_ARGUMENT);
}

/* An impure input callback (its own hidden counter): re-simulating tick 0 at the check n = 4 gets
 * another target than the first run, and the target is instance state, so state 1 differs first. */
static bsync_result impure_input(void* user, uint64_t t, fix16_t* targets, bsync_switch_trigger* tr, uint32_t* n) {
    (void)t;
    (void)tr;
    (void)n;
    uint32_t* calls = (uint32_t*)user;
    (*calls)++;
    targets[0] = (fix16_t)(*calls * 655u);
    return BSYNC_OK;
}

static void test_graph_impure_input(void** state) {
    (void)state;
    uint32_t calls = 0;
    bsync_synctest_instance a;
    memset(&a, 0, sizeof a);
    a.graph = bsync_graph_config_graph(g_gc);
    a.input = impure_input;
    a.input_user = &calls;
    bsync_synctest_ops o;
    assert_int_equal(bsync_synctest_instance_ops(&a, &o), BSYNC_OK);
    bsync_synctest_report rep;
    assert_int_equal(bsync_synctest_run(&o, 20, 4, 0, &rep, NULL), BSYNC_OK);
    assert_true(rep.mismatch_count > 0);
    assert_int_equal(rep.mismatches[0].tick, 1);
    assert_int_equal(rep.mismatches[0].checked_at, 4);
    assert_int_equal(rep.mismatches[0].kind, BSYNC_SYNCTEST_REWIND);
    assert_true(rep.mismatches[0].expected != rep.mismatches[0].got);
}

static bsync_result ramp_input(void* user, uint64_t t, fix16_t* targets, bsync_switch_trigger* tr, uint32_t* n) {
    (void)user;
    (void)tr;
    (void)n;
    targets[0] = (fix16_t)((t % 60u) * 65536u / 30u);
    return BSYNC_OK;
}

/* with_pose on a graph without a skeleton -> MISMATCH */
static void test_graph_no_skeleton(void** state) {
    (void)state;
    static const char* pn[1] = {"speed"};
    static const char* mn[2] = {"a", "b"};
    static const fix16_t th[2] = {0, 65536};
    static const bsync_blend_child_ref ch[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}};
    static const uint32_t p[1] = {0};
    bsync_blend_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = "n";
    nd.space.type = BSYNC_BLEND_SIMPLE_1D;
    nd.space.child_count = 2;
    nd.space.thresholds = th;
    nd.children = ch;
    nd.params = p;
    bsync_blend_tree_desc td = {pn, NULL, 1, mn, 2, &nd, 1, 0};
    bsync_blend_tree* tree = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &tree, NULL, NULL), BSYNC_OK);
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    d.tree = tree;
    d.tick_rate = 30;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_OK);
    bsync_synctest_instance a;
    memset(&a, 0, sizeof a);
    a.graph = g;
    a.input = ramp_input;
    a.with_pose = 1;
    bsync_synctest_ops o;
    assert_int_equal(bsync_synctest_instance_ops(&a, &o), BSYNC_MISMATCH);
    /* without poses the blend state alone is tested: no mismatch */
    a.with_pose = 0;
    assert_int_equal(bsync_synctest_instance_ops(&a, &o), BSYNC_OK);
    bsync_synctest_report rep;
    assert_int_equal(bsync_synctest_run(&o, 120, 3, BSYNC_SYNCTEST_POISON_FRESH, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_checked, 118);
    assert_int_equal(rep.mismatch_count, 0);
    bsync_graph_destroy(g);
    bsync_blend_tree_destroy(tree);
}

/* ------------------------------------------------------------------ (e) a match */

/* Two players: player 0 drives speed on a ramp and never triggers; player 1 a saw and triggers
 * (value v plays child v - 1) every 37 ticks. */
static bsync_result match_frame(void* user, uint64_t t, bsync_match_frame* f) {
    (void)user;
    f->players[0].params[0] = (fix16_t)((t % 120u) * 65536u * 3u / 120u);
    f->players[1].params[0] = (fix16_t)((t % 40u) * 65536u / 10u);
    f->players[1].triggers[0] = (uint8_t)(t % 37u == 5u ? 1u + (t / 37u) % 2u : 0u);
    return BSYNC_OK;
}

static void test_match(void** state) {
    (void)state;
    const bsync_graph* g = bsync_graph_config_graph(g_gc); /* has the Switch "act" (switch 0) */
    bsync_match_character_desc ch[3];
    memset(ch, 0, sizeof ch);
    for (uint32_t c = 0; c < 3; c++) {
        ch[c].graph = g;
        for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++) ch[c].param_map[i] = BSYNC_MATCH_UNMAPPED;
        for (uint32_t j = 0; j < BSYNC_MATCH_MAX_TRIGGERS; j++) ch[c].trigger_map[j] = BSYNC_MATCH_UNMAPPED;
        ch[c].param_map[0] = 0;
        ch[c].trigger_map[0] = 0;
        ch[c].trigger_fade_ticks[0] = 8;
    }
    ch[0].slot = 0;
    ch[1].slot = 1;
    ch[2].slot = BSYNC_MATCH_NPC;
    ch[2].npc_seed = 12345;
    bsync_match_desc d;
    memset(&d, 0, sizeof d);
    d.player_count = 2;
    d.param_count = 1;
    d.trigger_count = 1;
    d.param_min[0] = 0;
    d.param_max[0] = 4 * 65536;
    d.hold_min = 5;
    d.hold_max = 40;
    d.character_count = 3;
    d.characters = ch;
    assert_int_equal(bsync_match_desc_validate(&d), BSYNC_OK);

    bsync_synctest_match* a = (bsync_synctest_match*)calloc(1, sizeof *a);
    assert_non_null(a);
    a->desc = &d;
    a->with_poses = 1;
    a->frame_fn = match_frame;
    bsync_synctest_ops o;
    assert_int_equal(bsync_synctest_match_ops(a, &o), BSYNC_OK);
    assert_int_equal(o.state_size, bsync_match_memory_size(&d));
    bsync_synctest_report rep;
    assert_int_equal(bsync_synctest_run(&o, 300, 3, BSYNC_SYNCTEST_POISON_FRESH, &rep, NULL), BSYNC_OK);
    assert_int_equal(rep.ticks_run, 300);
    assert_int_equal(rep.ticks_checked, 298);
    assert_int_equal(rep.comparisons, 298u * 3u * 4u);
    if (rep.mismatch_count)
        fprintf(stderr, "first mismatch: tick %llu kind %s\n", (unsigned long long)rep.mismatches[0].tick,
                bsync_synctest_kind_name(rep.mismatches[0].kind));
    assert_int_equal(rep.mismatch_count, 0);

    /* adapter errors: a desc that breaks a rule, NULL frame function */
    d.hold_min = 0;
    assert_int_equal(bsync_synctest_match_ops(a, &o), BSYNC_INVALID_ARGUMENT);
    d.hold_min = 5;
    a->frame_fn = NULL;
    assert_int_equal(bsync_synctest_match_ops(a, &o), BSYNC_INVALID_ARGUMENT);
    free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toy_correct),        cmocka_unit_test(test_toy_uninit),
        cmocka_unit_test(test_toy_hidden_static),  cmocka_unit_test(test_toy_lossy_snapshot),
        cmocka_unit_test(test_errors),             cmocka_unit_test(test_graph_instance),
        cmocka_unit_test(test_graph_impure_input), cmocka_unit_test(test_graph_no_skeleton),
        cmocka_unit_test(test_match),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
