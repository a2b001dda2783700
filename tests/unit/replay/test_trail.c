/* test_trail.c — the desync trail (io/trail.h) and bsync_desync_trace (io/desync.h).
 *
 * A two-player match with an NPC plays 30 frames twice: A is the reference, B a "client" in which one
 * thing is planted right after frame 19 — another input, a changed filter state, a flipped phase bit
 * (edited through the documented instance snapshot layout, instance.h) — so the expected answer is
 * known independently: the first divergent state is the one at the start of tick 20 (after frame 19),
 * character 1, and the operation is the planted one. Also: a trail of A agrees everywhere; a trail that
 * starts after the plant reports "earlier"; the re-simulation ends in A's final state; the format
 * rejects every truncation and every flipped byte; a small buffer keeps the newest ticks (sizes from
 * the format's own arithmetic). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "blendsync/checksum.h"
#include "blendsync/instance.h"
#include "blendsync/io/desync.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/trail.h"
#include "blendsync/match.h"
#include "fixtures.h"

#define FRAMES 30u
#define PREV 10u  /* the last agreeing state: the start of tick 10 */
#define PLANT 19u /* planted right after frame 19: the state at the start of tick 20 differs */

static char g_dir[64];
static bsync_match_config* g_cfg;
static const bsync_match_desc* g_desc;
static bsync_match_frame g_frames[FRAMES];

static const char* k_graph =
    "{\"tick_rate\": 30, \"parameters\": {\"speed\": {\"smooth_time\": 0.25}}, \"root\": \"move\", \"nodes\": "
    "{\"move\": {\"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0}, "
    "{\"motion\": \"walk\", \"threshold\": 1.4}, {\"motion\": \"run\", \"threshold\": 3.5}]}}, \"clips\": {\"idle\": "
    "{\"source\": \"builtin:humanoid\"}, \"walk\": {\"source\": \"builtin:humanoid\"}, \"run\": {\"source\": "
    "\"builtin:humanoid\"}}}";

static const char* k_match =
    "{\"match_id\": 5, \"players\": [{\"token\": \"a\"}, {\"token\": \"b\"}], \"input\": {\"parameters\": "
    "[{\"name\": \"speed\", \"min\": 0, \"max\": 3.5}]}, \"characters\": [{\"name\": \"p0\", \"graph\": \"g.json\", "
    "\"slot\": 0}, {\"name\": \"p1\", \"graph\": \"g.json\", \"slot\": 1}, {\"name\": \"npc\", \"graph\": \"g.json\", "
    "\"npc_seed\": 3}]}";

static int setup(void** state) {
    (void)state;
    if (bsync_test_tmpdir(g_dir, sizeof g_dir, "trail") != 0) return -1;
    if (bsync_test_write_text(g_dir, "g.json", k_graph) != 0) return -1;
    bsync_error err;
    if (bsync_match_config_parse(k_match, strlen(k_match), "m.json", g_dir, NULL, &g_cfg, &err) != BSYNC_OK) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    g_desc = bsync_match_config_desc(g_cfg);
    for (uint32_t t = 0; t < FRAMES; t++) { /* both players accelerate at different rates */
        memset(&g_frames[t], 0, sizeof g_frames[t]);
        g_frames[t].player_count = 2;
        g_frames[t].players[0].params[0] = (fix16_t)(t * 0x2000);
        g_frames[t].players[1].params[0] = (fix16_t)(t * 0x1800 + 0x4000);
    }
    return 0;
}

static int teardown(void** state) {
    (void)state;
    bsync_match_config_destroy(g_cfg);
    bsync_test_rmtree(g_dir);
    return 0;
}

typedef struct run {
    void* mem;
    bsync_match* m;
    uint8_t* snaps[FRAMES + 1]; /* the state at the start of tick t */
    size_t lens[FRAMES + 1];
} run;

static bsync_match* new_match(void** mem) {
    size_t n = bsync_match_memory_size(g_desc);
    *mem = aligned_alloc(16, (n + 15u) & ~(size_t)15u);
    assert_non_null(*mem);
    bsync_match* m = NULL;
    assert_int_equal(bsync_match_init(*mem, n, g_desc, &m), BSYNC_OK);
    return m;
}

typedef enum plant { PLANT_NONE, PLANT_INPUT, PLANT_FILTER, PLANT_PHASE } plant;

/* Rewrites instance snapshot bytes: flips `mask` in the u32 at `off`, recomputes the XXH64 (seed 0,
 * every byte before the last 8: docs/instance.md "Snapshot bytes"). */
static void edit_instance(bsync_instance* inst, size_t off, uint32_t mask) {
    uint8_t buf[4096];
    size_t n = 0;
    assert_int_equal(bsync_instance_save(inst, buf, sizeof buf, &n), BSYNC_OK);
    assert_true(off + 4 <= n - 8);
    buf[off] ^= (uint8_t)mask;
    buf[off + 1] ^= (uint8_t)(mask >> 8);
    buf[off + 2] ^= (uint8_t)(mask >> 16);
    buf[off + 3] ^= (uint8_t)(mask >> 24);
    uint64_t h = bsync_checksum_xxh64(buf, n - 8, 0);
    for (int i = 0; i < 8; i++) buf[n - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
    assert_int_equal(bsync_instance_load(inst, buf, n), BSYNC_OK);
}

static void play(run* r, plant what) {
    r->m = new_match(&r->mem);
    size_t cap = bsync_match_snapshot_size(r->m);
    for (uint32_t t = 0; t <= FRAMES; t++) {
        r->snaps[t] = malloc(cap);
        assert_non_null(r->snaps[t]);
        assert_int_equal(bsync_match_save(r->m, r->snaps[t], cap, &r->lens[t]), BSYNC_OK);
        if (t == FRAMES) break;
        bsync_match_frame f = g_frames[t];
        if (what == PLANT_INPUT && t == PLANT) f.players[1].params[0] += 1; /* one raw step */
        assert_int_equal(bsync_match_tick(r->m, &f), BSYNC_OK);
        if (t == PLANT && what == PLANT_FILTER) /* parameter 0's value[0]: 32 + 4 + 4 (after the target) */
            edit_instance(bsync_match_instance(r->m, 1), 40, 1u);
        if (t == PLANT && what == PLANT_PHASE) /* node 0's phase: 32 + 4 + 48 P + 4 + 8 (after cycles) */
            edit_instance(bsync_match_instance(r->m, 1), 32 + 4 + 48 + 4 + 8, 1u << 20);
    }
}

static void drop(run* r) {
    for (uint32_t t = 0; t <= FRAMES; t++) free(r->snaps[t]);
    free(r->mem);
}

/* The trail of run r for the start states of ticks [from, FRAMES], character 1. */
static size_t make_trail(run* r, uint32_t from, uint8_t* buf, size_t cap) {
    void* mem = NULL;
    bsync_match* scratch = new_match(&mem);
    const uint32_t ch[1] = {1};
    size_t len = 0;
    uint32_t kept = 0;
    bsync_error err;
    assert_int_equal(bsync_trail_write(scratch, (const uint8_t* const*)&r->snaps[from], &r->lens[from], FRAMES + 1 - from,
                                       from, ch, 1, buf, cap, &len, &kept, &err),
                     BSYNC_OK);
    assert_int_equal(kept, from);
    free(mem);
    return len;
}

/* Traces B's trail (from `from`) against A re-simulated from PREV; returns the result and text. */
static unsigned trace(run* a, run* b, uint32_t from, bsync_desync_trace_result* res, char* text, size_t cap) {
    static uint8_t buf[65536];
    size_t len = make_trail(b, from, buf, sizeof buf);
    bsync_trail trail;
    bsync_error err;
    assert_int_equal(bsync_trail_parse(buf, len, &trail, &err), BSYNC_OK);
    void *wm = NULL, *om = NULL;
    bsync_match* work = new_match(&wm);
    bsync_match* other = new_match(&om);
    assert_int_equal(bsync_match_load(work, a->snaps[PREV], a->lens[PREV]), BSYNC_OK);
    unsigned lines = bsync_desync_trace(work, other, g_cfg, &g_frames[PREV], FRAMES - PREV, &trail, res, text, cap);
    /* the re-simulation ends in A's final state, byte for byte */
    uint8_t* fin = malloc(a->lens[FRAMES]);
    size_t n = 0;
    assert_int_equal(bsync_match_save(work, fin, a->lens[FRAMES], &n), BSYNC_OK);
    assert_int_equal(n, a->lens[FRAMES]);
    assert_memory_equal(fin, a->snaps[FRAMES], n);
    free(fin);
    free(wm);
    free(om);
    return lines;
}

static void expect_located(plant what, int operation, const char* words) {
    run a, b;
    play(&a, PLANT_NONE);
    play(&b, what);
    bsync_desync_trace_result res;
    char text[8192];
    unsigned lines = trace(&a, &b, PREV, &res, text, sizeof text);
    assert_true(lines >= 2);
    assert_int_equal(res.located, 1);
    assert_int_equal(res.earlier, 0);
    assert_int_equal(res.tick, PLANT + 1);
    assert_int_equal(res.character, 1);
    assert_int_equal(res.operation, operation);
    assert_int_equal(res.compared, PLANT + 1 - PREV + 1); /* ticks 10..20 compared, then it stops */
    char head[96];
    snprintf(head, sizeof head, "  earliest: tick %u, character 1 (p1): ", PLANT);
    assert_true(strncmp(text, head, strlen(head)) == 0);
    assert_non_null(strstr(text, words));
    drop(&a);
    drop(&b);
}

static void test_planted_input(void** state) {
    (void)state;
    expect_located(PLANT_INPUT, 1, "the input of frame 19 differs: parameter speed target");
}

static void test_planted_filter_state(void** state) {
    (void)state;
    expect_located(PLANT_FILTER, 2, "the filter step of parameter speed");
}

static void test_planted_phase(void** state) {
    (void)state;
    expect_located(PLANT_PHASE, 5, "the clock advance of node move");
}

static void test_agreeing_trail(void** state) {
    (void)state;
    run a;
    play(&a, PLANT_NONE);
    bsync_desync_trace_result res;
    char text[4096];
    assert_int_equal(trace(&a, &a, PREV, &res, text, sizeof text), 0);
    assert_int_equal(res.located, 0);
    assert_int_equal(res.compared, FRAMES - PREV + 1);
    drop(&a);
}

static void test_divergence_before_the_trail(void** state) {
    (void)state;
    run a, b;
    play(&a, PLANT_NONE);
    play(&b, PLANT_PHASE);
    bsync_desync_trace_result res;
    char text[8192];
    assert_true(trace(&a, &b, PLANT + 3, &res, text, sizeof text) >= 1);
    assert_int_equal(res.located, 1);
    assert_int_equal(res.earlier, 1);
    assert_int_equal(res.tick, PLANT + 3);
    assert_non_null(strstr(text, "the divergence is earlier than the trail"));
    drop(&a);
    drop(&b);
}

static void test_format_rejects_damage(void** state) {
    (void)state;
    run a;
    play(&a, PLANT_NONE);
    static uint8_t buf[65536];
    size_t len = make_trail(&a, PREV, buf, sizeof buf);
    bsync_trail t;
    bsync_error err;
    assert_int_equal(bsync_trail_parse(buf, len, &t, &err), BSYNC_OK);
    assert_int_equal(t.tick_count, FRAMES + 1 - PREV);
    assert_int_equal(t.first_tick, PREV);
    assert_int_equal(t.character_count, 1);
    assert_int_equal(t.characters[0], 1);
    assert_int_equal(t.match_hash, bsync_match_hash(g_desc));
    /* each entry is that tick's instance snapshot of character 1 */
    void* mem = NULL;
    bsync_match* m = new_match(&mem);
    assert_int_equal(bsync_match_load(m, a.snaps[PREV + 4], a.lens[PREV + 4]), BSYNC_OK);
    uint8_t inst[4096];
    size_t n = 0;
    assert_int_equal(bsync_instance_save(bsync_match_instance(m, 1), inst, sizeof inst, &n), BSYNC_OK);
    const uint8_t* e = NULL;
    size_t el = 0;
    assert_int_equal(bsync_trail_entry(&t, 4, 0, &e, &el), BSYNC_OK);
    assert_int_equal(el, n);
    assert_memory_equal(e, inst, n);
    assert_int_equal(bsync_trail_entry(&t, t.tick_count, 0, &e, &el), BSYNC_INVALID_ARGUMENT);
    /* the size is the format's arithmetic: 28 + 4 C + T (4 + n) + 8 */
    assert_int_equal(len, 28 + 4 + (size_t)(FRAMES + 1 - PREV) * (4 + n) + 8);
    for (size_t cut = 0; cut < len; cut++) assert_int_equal(bsync_trail_parse(buf, cut, &t, &err), BSYNC_BAD_BLOB);
    for (size_t i = 0; i < len; i++) {
        buf[i] ^= 0x10;
        assert_int_equal(bsync_trail_parse(buf, len, &t, &err), BSYNC_BAD_BLOB);
        buf[i] ^= 0x10;
    }
    assert_int_equal(bsync_trail_parse(buf, len, &t, &err), BSYNC_OK);
    /* a buffer for exactly 5 ticks keeps the newest 5 */
    void* sm = NULL;
    bsync_match* scratch = new_match(&sm);
    const uint32_t ch[1] = {1};
    size_t cap5 = 28 + 4 + 5 * (4 + n) + 8, w = 0;
    uint32_t kept = 0;
    assert_int_equal(bsync_trail_write(scratch, (const uint8_t* const*)&a.snaps[PREV], &a.lens[PREV], FRAMES + 1 - PREV,
                                       PREV, ch, 1, buf, cap5, &w, &kept, &err),
                     BSYNC_OK);
    assert_int_equal(w, cap5);
    assert_int_equal(kept, FRAMES + 1 - 5);
    assert_int_equal(bsync_trail_parse(buf, w, &t, &err), BSYNC_OK);
    assert_int_equal(t.first_tick, FRAMES + 1 - 5);
    assert_int_equal(bsync_trail_write(scratch, (const uint8_t* const*)&a.snaps[PREV], &a.lens[PREV], FRAMES + 1 - PREV,
                                       PREV, ch, 1, buf, 28 + 4 + (4 + n) + 7, &w, &kept, &err),
                     BSYNC_BUFFER_TOO_SMALL);
    /* bad character lists */
    const uint32_t bad[2] = {2, 1};
    assert_int_equal(bsync_trail_write(scratch, (const uint8_t* const*)&a.snaps[PREV], &a.lens[PREV], 3, PREV, bad, 2, buf,
                                       sizeof buf, &w, &kept, &err),
                     BSYNC_INVALID_ARGUMENT);
    const uint32_t out_of_range[1] = {3};
    assert_int_equal(bsync_trail_write(scratch, (const uint8_t* const*)&a.snaps[PREV], &a.lens[PREV], 3, PREV,
                                       out_of_range, 1, buf, sizeof buf, &w, &kept, &err),
                     BSYNC_INVALID_ARGUMENT);
    free(sm);
    free(mem);
    drop(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planted_input),          cmocka_unit_test(test_planted_filter_state),
        cmocka_unit_test(test_planted_phase),          cmocka_unit_test(test_agreeing_trail),
        cmocka_unit_test(test_divergence_before_the_trail), cmocka_unit_test(test_format_rejects_damage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
