/* test_switch.c — switch nodes with cross-fade transitions (graph.h bsync_graph_desc.switches, instance.h
 * "Switches") on the procedural humanoid. Expectations are independent: weights are hand-worked
 * k/10 tables (and floor/remainder values worked in double), poses are compared with other instances
 * that simply play one state from the start (same clip, same clock history), the switch-free state
 * checksum is rebuilt field by field from the documented format with public accessors.
 * Covered: instant switch, a 10-tick fade A->B (exact k/10, partition every tick), interrupt at tick 5
 * with ->C (A and B scaled together, no pop: per-tick joint rotation change bounded by the clips' own
 * plus the fade's share), C at 1.0 on tick 15, carry_time phase equality (bit-identical pose), a full
 * stack (oldest dropped, its weight to the next), invalid triggers (nothing changes), save mid-fade ->
 * load -> replay identical and a corrupted switch section rejected, no allocation per tick, switch-free
 * graphs unchanged (hash, checksum format, snapshot version), build errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/pose.h"
#include "blendsync/procedural.h"
#include "test_support.h"

enum { J = 23, IDLE = 0, WALK = 1, RUN = 2, WALK2 = 3 };

static bsync_procedural_humanoid g_h;
static bsync_blend_tree* g_tree;

/* Param speed; motions idle, walk, run, walk2 (walk2 = walk's clip); node 0 "sw" = Simple1D(speed)
 * over the four motions (its blend space is overridden by the switch). */
static bsync_blend_tree* make_tree(void) {
    static const char* pn[1] = {"speed"};
    static const char* mn[4] = {"idle", "walk", "run", "walk2"};
    static const fix16_t defaults[1] = {0};
    static const fix16_t th[4] = {0, 21845, 43690, BSYNC_FX_ONE};
    static const bsync_blend_child_ref c0[4] = {
        {BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}, {BSYNC_CHILD_MOTION, 3}};
    static const uint32_t p0[1] = {0};
    bsync_blend_node_desc nodes[1];
    memset(nodes, 0, sizeof nodes);
    nodes[0].name = "sw";
    nodes[0].space.type = BSYNC_BLEND_SIMPLE_1D;
    nodes[0].space.child_count = 4;
    nodes[0].space.thresholds = th;
    nodes[0].children = c0;
    nodes[0].params = p0;
    bsync_blend_tree_desc td = {pn, defaults, 1, mn, 4, nodes, 1, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

static const bsync_clip* g_clips[4];
static bsync_graph_node_options g_none_opts[1];

static void make_desc(bsync_graph_desc* d, int none_sync) {
    memset(d, 0, sizeof *d);
    g_clips[0] = g_h.clips[0];
    g_clips[1] = g_h.clips[1];
    g_clips[2] = g_h.clips[2];
    g_clips[3] = g_h.clips[1];
    memset(g_none_opts, 0, sizeof g_none_opts);
    g_none_opts[0].sync = BSYNC_SYNC_NONE;
    d->tree = g_tree;
    d->skeleton = g_h.skeleton;
    d->clips = g_clips;
    d->tick_rate = 30;
    d->node_options = none_sync ? g_none_opts : NULL;
}

static bsync_graph* switch_graph(uint32_t initial, const bsync_allocator* a) {
    bsync_graph_desc d;
    make_desc(&d, 1);
    bsync_graph_switch_desc sw = {0, initial};
    d.switches = &sw;
    d.switch_count = 1;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, a, &g), BSYNC_OK);
    return g;
}

static bsync_instance* new_instance(const bsync_graph* g, void** mem) {
    size_t sz = bsync_instance_memory_size(g);
    *mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(*mem, sz, g, &inst), BSYNC_OK);
    return inst;
}

static const fix16_t g_target[1] = {0};

static void tick(bsync_instance* inst, const bsync_switch_trigger* t, uint32_t n) {
    bsync_instance_input in = {g_target, 1};
    assert_int_equal(bsync_instance_tick_ex(inst, &in, t, n), BSYNC_OK);
}

static bsync_switch_trigger play(uint32_t child, uint32_t fade, uint32_t carry) {
    bsync_switch_trigger t = {0, child, fade, carry, 0};
    return t;
}

static uint32_t stack_of(const bsync_instance* inst, bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH]) {
    uint32_t n = 0;
    assert_int_equal(bsync_instance_switch_state(inst, 0, e, &n), BSYNC_OK);
    return n;
}

static uint64_t pose_sum(bsync_instance* inst) {
    uint64_t h = 0;
    assert_int_equal(bsync_instance_pose_checksum(inst, &h, NULL), BSYNC_OK);
    return h;
}

static int setup(void** state) {
    (void)state;
    if (bsync_procedural_humanoid_create(NULL, &g_h) != BSYNC_OK) return -1;
    g_tree = make_tree();
    return 0;
}
static int teardown(void** state) {
    (void)state;
    bsync_blend_tree_destroy(g_tree);
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

/* k/10 of 1.0, rounded (hand-worked: 6553.6, 13107.2, ...). */
static const fix16_t TENTHS[11] = {0, 6554, 13107, 19661, 26214, 32768, 39322, 45875, 52429, 58982, 65536};

static void test_instant_switch(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, NULL);
    bsync_graph* gr = switch_graph(RUN, NULL); /* plays run from tick 0 */
    void *m1, *m2;
    bsync_instance* a = new_instance(g, &m1);
    bsync_instance* r = new_instance(gr, &m2);
    const fix16_t* w = bsync_instance_node_weights(a, 0);
    assert_int_equal(w[0], BSYNC_FX_ONE);
    assert_int_equal(w[1] | w[2] | w[3], 0);
    for (int i = 0; i < 4; i++) tick(a, NULL, 0);
    bsync_switch_trigger t = play(RUN, 0, 0);
    tick(a, &t, 1);
    tick(r, NULL, 0);
    w = bsync_instance_node_weights(a, 0);
    assert_int_equal(w[2], BSYNC_FX_ONE);
    assert_int_equal(w[0] | w[1] | w[3], 0);
    assert_int_equal(bsync_instance_leaf_weights(a)[RUN], BSYNC_FX_ONE);
    bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
    assert_int_equal(stack_of(a, e), 1);
    assert_int_equal(e[0].child, RUN);
    /* run's clock restarted at the trigger: one tick in, exactly like the instance that started on run */
    assert_true(pose_sum(a) == pose_sum(r));
    for (int i = 0; i < 7; i++) {
        tick(a, NULL, 0);
        tick(r, NULL, 0);
        assert_true(pose_sum(a) == pose_sum(r));
    }
    free(m1);
    free(m2);
    bsync_graph_destroy(g);
    bsync_graph_destroy(gr);
}

static void test_fade_ten_ticks(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, NULL);
    void* m;
    bsync_instance* a = new_instance(g, &m);
    bsync_switch_trigger t = play(WALK, 10, 0);
    for (int k = 1; k <= 12; k++) {
        tick(a, k == 1 ? &t : NULL, k == 1 ? 1u : 0u);
        const fix16_t* w = bsync_instance_node_weights(a, 0);
        const fix16_t b = k >= 10 ? BSYNC_FX_ONE : TENTHS[k];
        assert_int_equal(w[WALK], b);
        assert_int_equal(w[IDLE], BSYNC_FX_ONE - b);
        bsync_test_assert_partition(w, 4);
        bsync_test_assert_partition(bsync_instance_leaf_weights(a), 4);
        bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
        assert_int_equal(stack_of(a, e), k >= 10 ? 1u : 2u);
    }
    free(m);
    bsync_graph_destroy(g);
}

/* Max over joints of the rotation angle between two poses (radians, double). */
static double max_rot_change(const bsync_trs* p, const bsync_trs* q) {
    double mx = 0;
    for (int j = 0; j < J; j++) {
        const double s = 1.0 / 65536.0;
        double ax = p[j].r.x * s, ay = p[j].r.y * s, az = p[j].r.z * s, aw = p[j].r.w * s;
        double bx = q[j].r.x * s, by = q[j].r.y * s, bz = q[j].r.z * s, bw = q[j].r.w * s;
        double na = sqrt(ax * ax + ay * ay + az * az + aw * aw), nb = sqrt(bx * bx + by * by + bz * bz + bw * bw);
        double d = fabs(ax * bx + ay * by + az * bz + aw * bw) / (na * nb);
        if (d > 1) d = 1;
        double ang = 2 * acos(d);
        if (ang > mx) mx = ang;
    }
    return mx;
}

static void test_interrupt_no_pop(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, NULL);
    void* m;
    bsync_instance* a = new_instance(g, &m);
    bsync_switch_trigger tb = play(WALK, 10, 0), tc = play(RUN, 10, 0);
    static bsync_trs prev[J], cur[J];
    assert_int_equal(bsync_instance_pose(a, prev, NULL), BSYNC_OK);
    double fade_max = 0;
    for (int k = 1; k <= 20; k++) {
        if (k == 1) tick(a, &tb, 1);
        else if (k == 6) tick(a, &tc, 1); /* interrupt after tick 5 (A = B = 0.5) */
        else tick(a, NULL, 0);
        const fix16_t* w = bsync_instance_node_weights(a, 0);
        bsync_test_assert_partition(w, 4);
        if (k <= 5) {
            assert_int_equal(w[WALK], TENTHS[k]);
        } else if (k <= 14) {
            const fix16_t c = TENTHS[k - 5];
            const double rem = 65536.0 - c;
            const fix16_t ea = (fix16_t)floor(32768.0 * rem / 65536.0); /* A's base 0.5 */
            assert_int_equal(w[RUN], c);
            assert_int_equal(w[IDLE], ea);
            assert_int_equal(w[WALK], (fix16_t)(rem - ea));
            assert_true(w[IDLE] > 0 && w[WALK] > 0); /* A and B keep fading: nothing popped */
        } else {
            assert_int_equal(w[RUN], BSYNC_FX_ONE); /* C reaches 1.0 at tick 15 */
            bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
            assert_int_equal(stack_of(a, e), 1);
        }
        if (k == 14) {
            bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
            assert_int_equal(stack_of(a, e), 3);
        }
        assert_int_equal(bsync_instance_pose(a, cur, NULL), BSYNC_OK);
        const double d = max_rot_change(prev, cur);
        if (d > fade_max) fade_max = d;
        memcpy(prev, cur, sizeof cur);
    }
    /* The clips' own per-tick change and their largest mutual difference, each playing alone. */
    double own = 0, apart = 0;
    static bsync_trs pa[3][J], pp[3][J];
    bsync_graph* gs[3];
    void* ms[3];
    bsync_instance* is[3];
    for (int c = 0; c < 3; c++) {
        gs[c] = switch_graph((uint32_t)c, NULL);
        is[c] = new_instance(gs[c], &ms[c]);
        assert_int_equal(bsync_instance_pose(is[c], pp[c], NULL), BSYNC_OK);
    }
    for (int k = 0; k < 60; k++) {
        for (int c = 0; c < 3; c++) {
            tick(is[c], NULL, 0);
            assert_int_equal(bsync_instance_pose(is[c], pa[c], NULL), BSYNC_OK);
            const double d = max_rot_change(pp[c], pa[c]);
            if (d > own) own = d;
            memcpy(pp[c], pa[c], sizeof pa[c]);
        }
        for (int c = 0; c < 3; c++)
            for (int c2 = c + 1; c2 < 3; c2++) {
                const double d = max_rot_change(pa[c], pa[c2]);
                if (d > apart) apart = d;
            }
    }
    /* each tick moves at most 0.1 of the weight: bounded by the clips' own motion plus that share of
     * their distance (with slack for the nlerp's non-linearity); a pop of B would move 0.5 of it */
    print_message("per-tick max rotation change: fade %.5f rad, clips' own %.5f, clips apart %.5f\n", fade_max,
                  own, apart);
    assert_true(own > 0 && apart > 0);
    assert_true(fade_max <= own + 0.15 * apart + 1e-3);
    for (int c = 0; c < 3; c++) {
        free(ms[c]);
        bsync_graph_destroy(gs[c]);
    }
    free(m);
    bsync_graph_destroy(g);
}

static void test_carry_time(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(WALK, NULL);
    void *m1, *m2, *m3;
    bsync_instance* a = new_instance(g, &m1); /* walk -> walk2 (same clip) with carry_time */
    bsync_instance* b = new_instance(g, &m2); /* stays on walk */
    bsync_instance* c = new_instance(g, &m3); /* walk -> walk2 without carry */
    for (int i = 0; i < 7; i++) {
        tick(a, NULL, 0);
        tick(b, NULL, 0);
        tick(c, NULL, 0);
    }
    bsync_switch_trigger tc = play(WALK2, 6, 1), tn = play(WALK2, 6, 0);
    tick(a, &tc, 1);
    tick(b, NULL, 0);
    tick(c, &tn, 1);
    for (int k = 0; k < 20; k++) {
        /* walk2 runs at walk's phase: the blend of the two equal clips is walk's own pose at every
         * tick, during the fade and after */
        assert_true(pose_sum(a) == pose_sum(b));
        tick(a, NULL, 0);
        tick(b, NULL, 0);
        tick(c, NULL, 0);
    }
    assert_int_equal(bsync_instance_node_weights(a, 0)[WALK2], BSYNC_FX_ONE);
    assert_true(pose_sum(c) != pose_sum(b)); /* without carry walk2 restarted at phase 0 */
    free(m1);
    free(m2);
    free(m3);
    bsync_graph_destroy(g);
}

static void test_full_stack(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, NULL);
    void* m;
    bsync_instance* a = new_instance(g, &m);
    const uint32_t seq[4] = {WALK, RUN, WALK2, IDLE};
    bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
    for (int k = 0; k < 4; k++) {
        bsync_switch_trigger t = play(seq[k], 10, 0);
        tick(a, &t, 1);
        bsync_test_assert_partition(bsync_instance_node_weights(a, 0), 4);
    }
    /* after 3 pushes: [idle, walk, run, walk2]; the 4th push (idle) drops the oldest (idle), whose
     * weight moves to walk: [walk, run, walk2, idle] */
    assert_int_equal(stack_of(a, e), 4);
    assert_int_equal(e[0].child, WALK);
    assert_int_equal(e[1].child, RUN);
    assert_int_equal(e[2].child, WALK2);
    assert_int_equal(e[3].child, IDLE);
    assert_int_equal(e[3].weight, TENTHS[1]);
    /* hand replay in double of the base rule (floor for all but the entry below the newest) */
    double w[4] = {1, 0, 0, 0}; /* idle walk run walk2 stack weights, raw */
    double wr[5];
    wr[0] = 65536;
    int cnt = 1;
    double base[5];
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < cnt; i++) base[i] = wr[i];
        if (cnt == 4) {
            base[1] += base[0];
            for (int i = 0; i < 3; i++) base[i] = base[i + 1];
            cnt = 3;
        }
        const double c = TENTHS[1], rem = 65536 - c;
        double sum = 0;
        for (int i = 0; i + 1 < cnt; i++) {
            wr[i] = floor(base[i] * rem / 65536.0);
            sum += wr[i];
        }
        wr[cnt - 1] = rem - sum;
        wr[cnt] = c;
        cnt++;
    }
    (void)w;
    for (int i = 0; i < 4; i++) assert_int_equal(e[i].weight, (fix16_t)wr[i]);
    free(m);
    bsync_graph_destroy(g);
}

static void test_invalid_triggers(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, NULL);
    void* m;
    bsync_instance* a = new_instance(g, &m);
    bsync_switch_trigger t = play(WALK, 10, 0);
    tick(a, &t, 1);
    const uint64_t before = bsync_instance_state_checksum(a);
    bsync_instance_input in = {g_target, 1};
    bsync_switch_trigger bad[5] = {{1, 0, 0, 0, 0}, {0, 4, 0, 0, 0}, {0, 1, BSYNC_SWITCH_MAX_FADE_TICKS + 1u, 0, 0},
                                   {0, 1, 0, 2, 0}, {0, 2, 0, 0, 0}};
    for (int i = 0; i < 4; i++) {
        bsync_switch_trigger two[2] = {bad[4], bad[i]}; /* a valid one first: still nothing applied */
        assert_int_equal(bsync_instance_tick_ex(a, &in, two, 2), BSYNC_INVALID_ARGUMENT);
        assert_int_equal(bsync_instance_tick_ex(a, &in, &bad[i], 1), BSYNC_INVALID_ARGUMENT);
    }
    assert_int_equal(bsync_instance_tick_ex(a, &in, NULL, 1), BSYNC_INVALID_ARGUMENT);
    assert_true(bsync_instance_state_checksum(a) == before);
    assert_int_equal(bsync_instance_tick_count(a), 1);
    assert_int_equal(bsync_instance_node_weights(a, 0)[WALK], TENTHS[1]);
    bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
    uint32_t n = 0;
    assert_int_equal(bsync_instance_switch_state(a, 1, e, &n), BSYNC_INVALID_ARGUMENT);
    free(m);
    bsync_graph_destroy(g);
}

static void test_save_load_replay(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, NULL);
    void *m1, *m2;
    bsync_instance* a = new_instance(g, &m1);
    bsync_instance* b = new_instance(g, &m2);
    bsync_switch_trigger tb = play(WALK, 10, 0), tc = play(RUN, 8, 1), td = play(IDLE, 5, 0);
    for (int k = 1; k <= 8; k++) tick(a, k == 1 ? &tb : k == 6 ? &tc : NULL, (k == 1 || k == 6) ? 1u : 0u);
    const size_t cap = bsync_instance_snapshot_size(g);
    assert_int_equal(cap, 32u + 4u + 48u + 4u + 20u + 4u + 4u * 20u + 4u + 68u + 8u);
    unsigned char* snap = malloc(cap);
    size_t wr = 0;
    assert_int_equal(bsync_instance_save(a, snap, cap, &wr), BSYNC_OK);
    assert_int_equal(wr, cap);
    assert_int_equal(snap[4], 2); /* version 2 with switches */
    assert_int_equal(bsync_instance_load(b, snap, cap), BSYNC_OK);
    assert_true(bsync_instance_state_checksum(a) == bsync_instance_state_checksum(b));
    for (int k = 0; k < 15; k++) {
        tick(a, k == 3 ? &td : NULL, k == 3 ? 1u : 0u);
        tick(b, k == 3 ? &td : NULL, k == 3 ? 1u : 0u);
        assert_true(bsync_instance_state_checksum(a) == bsync_instance_state_checksum(b));
        assert_true(pose_sum(a) == pose_sum(b));
    }
    /* a corrupted switch section (a state index out of range), re-hashed: rejected, b untouched */
    const uint64_t keep = bsync_instance_state_checksum(b);
    unsigned char* bad = malloc(cap);
    memcpy(bad, snap, cap);
    const size_t sec = cap - 8u - 68u; /* u32 W, then u32 count, then entry 0's child */
    bad[sec + 8] = 9;
    const uint64_t h = bsync_checksum_xxh64(bad, cap - 8u, 0);
    for (int i = 0; i < 8; i++) bad[cap - 8u + (size_t)i] = (unsigned char)(h >> (8 * i));
    assert_int_equal(bsync_instance_load(b, bad, cap), BSYNC_BAD_BLOB);
    assert_true(bsync_instance_state_checksum(b) == keep);
    free(bad);
    free(snap);
    free(m1);
    free(m2);
    bsync_graph_destroy(g);
}

static void test_no_allocation_per_tick(void** state) {
    (void)state;
    bsync_test_counting_allocator ca;
    bsync_test_counting_allocator_init(&ca);
    bsync_graph* g = switch_graph(IDLE, &ca.allocator);
    assert_int_equal(ca.allocs, 1);
    void* m;
    bsync_instance* a = new_instance(g, &m);
    static bsync_trs pose[J];
    for (int k = 0; k < 40; k++) {
        bsync_switch_trigger t = play((uint32_t)(k % 4), (uint32_t)(k % 7), (uint32_t)(k & 1));
        tick(a, (k % 3) == 0 ? &t : NULL, (k % 3) == 0 ? 1u : 0u);
        assert_int_equal(bsync_instance_pose(a, pose, NULL), BSYNC_OK);
    }
    assert_int_equal(ca.allocs, 1);
    free(m);
    bsync_graph_destroy(g);
    assert_int_equal(ca.frees, 1);
}

/* The documented state checksum (instance.h) of a graph without switches and NONE clocks. */
static uint64_t expected_state_checksum(const bsync_instance* inst) {
    bsync_checksum_state c;
    bsync_checksum_init(&c, BSYNC_CHECKSUM_SEED_STATE);
    bsync_checksum_u64(&c, bsync_instance_tick_count(inst));
    bsync_checksum_u32(&c, 1);
    bsync_param_checksum_feed(bsync_instance_parameter_state(inst, 0), &c);
    bsync_checksum_u32(&c, 1);
    const bsync_clip_time* t = bsync_instance_node_time(inst, 0);
    bsync_checksum_i64(&c, t->cycles);
    bsync_checksum_u32(&c, t->phase);
    bsync_checksum_u64(&c, t->carry);
    bsync_checksum_u32(&c, 0);
    bsync_checksum_u32(&c, 4);
    for (int i = 0; i < 4; i++) bsync_checksum_fx(&c, bsync_instance_leaf_weights(inst)[i]);
    bsync_checksum_u32(&c, 4);
    for (int i = 0; i < 4; i++) bsync_checksum_fx(&c, bsync_instance_node_weights(inst, 0)[i]);
    bsync_checksum_vec3(&c, bsync_vec3_make(0, 0, 0));
    bsync_checksum_quat(&c, bsync_quat_identity());
    return bsync_checksum_final(&c);
}

static void test_switch_free_unchanged(void** state) {
    (void)state;
    bsync_graph_desc d;
    make_desc(&d, 0);
    bsync_graph *g_old = NULL, *g_lay = NULL, *g_ex = NULL, *g_sw = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &g_old), BSYNC_OK);
    /* the layer and switch fields given, empty: the graph of a desc without them */
    bsync_graph_desc d_lay = d;
    d_lay.layers = NULL;
    d_lay.layer_count = 0;
    assert_int_equal(bsync_graph_create(&d_lay, NULL, &g_lay), BSYNC_OK);
    bsync_graph_desc d_ex = d_lay;
    d_ex.switches = NULL;
    d_ex.switch_count = 0;
    assert_int_equal(bsync_graph_create(&d_ex, NULL, &g_ex), BSYNC_OK);
    assert_true(bsync_graph_hash(g_old) == bsync_graph_hash(g_lay));
    assert_true(bsync_graph_hash(g_old) == bsync_graph_hash(g_ex));
    assert_int_equal(bsync_graph_switch_count(g_old), 0);
    assert_int_equal(bsync_instance_memory_size(g_old), bsync_instance_memory_size(g_ex));
    g_sw = switch_graph(IDLE, NULL);
    assert_true(bsync_graph_hash(g_sw) != bsync_graph_hash(g_old));
    assert_int_equal(bsync_graph_switch_node(g_sw, 0), 0);
    assert_int_equal(bsync_graph_switch_node(g_sw, 1), UINT32_MAX);
    void *m1, *m2;
    bsync_instance* a = new_instance(g_old, &m1);
    bsync_instance* b = new_instance(g_ex, &m2);
    const fix16_t tg[1] = {40000};
    bsync_instance_input in = {tg, 1};
    for (int k = 0; k < 12; k++) {
        assert_int_equal(bsync_instance_tick(a, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_tick_ex(b, &in, NULL, 0), BSYNC_OK);
        assert_true(bsync_instance_state_checksum(a) == expected_state_checksum(a));
        assert_true(bsync_instance_state_checksum(a) == bsync_instance_state_checksum(b));
    }
    /* a trigger on a graph without switches: an unknown switch */
    bsync_switch_trigger t = play(1, 0, 0);
    assert_int_equal(bsync_instance_tick_ex(b, &in, &t, 1), BSYNC_INVALID_ARGUMENT);
    /* version-1 snapshot, the old size */
    const size_t cap = bsync_instance_snapshot_size(g_old);
    assert_int_equal(cap, 32u + 4u + 48u + 4u + 20u + 4u + 8u);
    unsigned char* s1 = malloc(cap);
    unsigned char* s2 = malloc(cap);
    assert_int_equal(bsync_instance_save(a, s1, cap, NULL), BSYNC_OK);
    assert_int_equal(bsync_instance_save(b, s2, cap, NULL), BSYNC_OK);
    assert_int_equal(s1[4], 1);
    assert_memory_equal(s1, s2, cap);
    assert_int_equal(bsync_instance_load(b, s1, cap), BSYNC_OK);
    free(s1);
    free(s2);
    free(m1);
    free(m2);
    bsync_graph_destroy(g_old);
    bsync_graph_destroy(g_lay);
    bsync_graph_destroy(g_ex);
    bsync_graph_destroy(g_sw);
}

static void test_build_errors_and_hash(void** state) {
    (void)state;
    bsync_graph_desc d;
    bsync_graph* g = NULL;
    bsync_graph_switch_desc sw[BSYNC_GRAPH_MAX_SWITCHES + 1u];
    memset(sw, 0, sizeof sw);
    make_desc(&d, 0); /* synchronised node: rejected */
    d.switches = sw;
    d.switch_count = 1;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    make_desc(&d, 1);
    d.switches = sw;
    d.switch_count = 1;
    sw[0].node = 1;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    sw[0].node = 0;
    sw[0].initial_child = 4;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    sw[0].initial_child = 0;
    d.switch_count = 2; /* two switches on one node */
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    d.switch_count = BSYNC_GRAPH_MAX_SWITCHES + 1u;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_LIMIT_EXCEEDED);
    d.switches = NULL;
    d.switch_count = 1;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    assert_null(g);
    bsync_graph* g0 = switch_graph(IDLE, NULL);
    bsync_graph* g0b = switch_graph(IDLE, NULL);
    bsync_graph* g1 = switch_graph(WALK, NULL);
    assert_true(bsync_graph_hash(g0) == bsync_graph_hash(g0b));
    assert_true(bsync_graph_hash(g0) != bsync_graph_hash(g1));
    /* a snapshot of one graph does not load into the other */
    void *m0, *m1;
    bsync_instance* a = new_instance(g0, &m0);
    bsync_instance* b = new_instance(g1, &m1);
    const size_t cap = bsync_instance_snapshot_size(g0);
    unsigned char* s = malloc(cap);
    assert_int_equal(bsync_instance_save(a, s, cap, NULL), BSYNC_OK);
    assert_int_equal(bsync_instance_load(b, s, cap), BSYNC_MISMATCH);
    free(s);
    free(m0);
    free(m1);
    bsync_graph_destroy(g0);
    bsync_graph_destroy(g0b);
    bsync_graph_destroy(g1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_instant_switch),
        cmocka_unit_test(test_fade_ten_ticks),
        cmocka_unit_test(test_interrupt_no_pop),
        cmocka_unit_test(test_carry_time),
        cmocka_unit_test(test_full_stack),
        cmocka_unit_test(test_invalid_triggers),
        cmocka_unit_test(test_save_load_replay),
        cmocka_unit_test(test_no_allocation_per_tick),
        cmocka_unit_test(test_switch_free_unchanged),
        cmocka_unit_test(test_build_errors_and_hash),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
