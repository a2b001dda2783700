/* test_instance.c — graph instances on the procedural humanoid (instance.h): leaf weights equal
 * bsync_blend_tree_eval_leaves of the filtered parameters; the pose equals sampling and blending by hand;
 * joint queries equal the full model pose; layered checksums; save -> load -> replay is bit-identical
 * over 1,200 ticks; every truncation and thousands of random byte flips are rejected without touching
 * the instance; no allocation over 10,000 ticks; a walk -> run transition is smooth (the issue's
 * criterion); init errors. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/pose.h"
#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "test_support.h"

enum { J = 23 };

typedef struct fixture {
    bsync_procedural_humanoid h;
    bsync_blend_tree* tree;
    bsync_graph* graph;
} fixture;

static fixture g_f;

/* Params: speed (SmoothDamp 0.3 s), turn (no filter). Nodes: root "loco" = Simple1D(speed) over
 * [idle 0, "move" node 1.4]; "move" = Simple1D(turn) over [walk -1, run 1]. */
static bsync_blend_tree* make_tree(void) {
    static const char* pn[2] = {"speed", "turn"};
    static const char* mn[3] = {"idle", "walk", "run"};
    static fix16_t defaults[2] = {0, -BSYNC_FX_ONE};
    static fix16_t th_root[2] = {0, BSYNC_PROCEDURAL_SPEED_WALK};
    static fix16_t th_move[2] = {-BSYNC_FX_ONE, BSYNC_FX_ONE};
    static bsync_blend_child_ref r_root[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_NODE, 1}};
    static bsync_blend_child_ref r_move[2] = {{BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    static uint32_t p_root[1] = {0}, p_move[1] = {1};
    bsync_blend_node_desc nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].name = "loco"; nodes[0].space.type = BSYNC_BLEND_SIMPLE_1D; nodes[0].space.child_count = 2;
    nodes[0].space.thresholds = th_root; nodes[0].children = r_root; nodes[0].params = p_root;
    nodes[1].name = "move"; nodes[1].space.type = BSYNC_BLEND_SIMPLE_1D; nodes[1].space.child_count = 2;
    nodes[1].space.thresholds = th_move; nodes[1].children = r_move; nodes[1].params = p_move;
    bsync_blend_tree_desc td = {pn, defaults, 2, mn, 3, nodes, 2, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

static bsync_graph* make_graph(const bsync_procedural_humanoid* h, const bsync_blend_tree* tree,
                               const bsync_allocator* a) {
    bsync_param_filter_desc f[2];
    memset(f, 0, sizeof f);
    f[0].smooth_time = 19661; /* 0.3 s */
    const bsync_clip* clips[3] = {h->clips[0], h->clips[1], h->clips[2]};
    bsync_graph_desc d = {tree, h->skeleton, clips, 30, f, NULL, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW, 0, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, a, &g), BSYNC_OK);
    return g;
}

static int setup(void** state) {
    (void)state;
    if (bsync_procedural_humanoid_create(NULL, &g_f.h) != BSYNC_OK) return -1;
    g_f.tree = make_tree();
    g_f.graph = make_graph(&g_f.h, g_f.tree, NULL);
    return 0;
}
static int teardown(void** state) {
    (void)state;
    bsync_graph_destroy(g_f.graph);
    bsync_blend_tree_destroy(g_f.tree);
    bsync_procedural_humanoid_destroy(&g_f.h);
    return 0;
}

static bsync_instance* new_instance(const bsync_graph* g, void** mem) {
    size_t sz = bsync_instance_memory_size(g);
    *mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(*mem, sz, g, &inst), BSYNC_OK);
    return inst;
}

/* A scripted input: speed steps through 0, 1.4, 3.5 and back, turn sweeps -1..1 (changes every ~37 ticks). */
static void script(uint32_t tick, fix16_t out[2]) {
    static const fix16_t speeds[5] = {0, BSYNC_PROCEDURAL_SPEED_WALK, BSYNC_PROCEDURAL_SPEED_RUN, 65536, 0};
    out[0] = speeds[(tick / 37u) % 5u];
    out[1] = (fix16_t)((int32_t)((tick * 2731u) % 131072u) - 65536);
}

static void tick_script(bsync_instance* inst, uint32_t tick) {
    fix16_t t[2];
    script(tick, t);
    bsync_instance_input in = {t, 2};
    assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
}

static void test_leaf_weights_match_tree(void** state) {
    (void)state;
    void* mem;
    bsync_instance* inst = new_instance(g_f.graph, &mem);
    for (uint32_t k = 0; k < 400; k++) {
        fix16_t params[2] = {bsync_instance_parameter(inst, 0), bsync_instance_parameter(inst, 1)};
        fix16_t leaves[3];
        assert_int_equal(bsync_blend_tree_eval_leaves(g_f.tree, 0, params, leaves), BSYNC_OK);
        const fix16_t* w = bsync_instance_leaf_weights(inst);
        for (int m = 0; m < 3; m++) assert_int_equal(w[m], leaves[m]);
        fix16_t nw[2];
        assert_int_equal(bsync_blend_tree_eval_node(g_f.tree, 1, params, nw), BSYNC_OK);
        assert_int_equal(bsync_instance_node_weights(inst, 1)[0], nw[0]);
        assert_int_equal(bsync_instance_node_weights(inst, 1)[1], nw[1]);
        tick_script(inst, k);
        /* the unfiltered parameter equals its target immediately; the smoothed one lags */
        assert_int_equal(bsync_instance_parameter(inst, 1), bsync_instance_target(inst, 1));
    }
    assert_int_equal(bsync_instance_tick_count(inst), 400);
    free(mem);
}

/* The pose equals sampling every weighted clip at (driver phase) * duration and blending by hand. */
static void test_pose_matches_manual_blend(void** state) {
    (void)state;
    void* mem;
    bsync_instance* inst = new_instance(g_f.graph, &mem);
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_f.h.skeleton);
    const int16_t* parents = bsync_skeleton_parents(g_f.h.skeleton);
    static bsync_trs samples[3][J], want[J], got[J], model[J], want_model[J];
    for (uint32_t k = 0; k < 300; k++) {
        tick_script(inst, k);
        const fix16_t* w = bsync_instance_leaf_weights(inst);
        bsync_pose_input in[3];
        uint32_t n = 0;
        for (int m = 0; m < 3; m++) {
            if (w[m] <= 0) continue;
            /* idle is a child of the root, walk and run of "move", which follows the root's phase */
            bsync_clip_time t = bsync_time_start();
            t.phase = bsync_instance_node_sample_phase(inst, m == 0 ? 0 : 1);
            assert_int_equal(t.phase, bsync_instance_node_time(inst, 0)->phase);
            fix16_t sec = bsync_time_seconds(&t, bsync_clip_duration(g_f.h.clips[m]), BSYNC_LOOP_WRAP);
            assert_int_equal(bsync_clip_sample(g_f.h.clips[m], sec, BSYNC_LOOP_WRAP, rest, J, NULL, samples[m]), BSYNC_OK);
            in[n].local = samples[m];
            in[n].weight = w[m];
            in[n].joint_weights = NULL;
            n++;
        }
        assert_int_equal(bsync_pose_blend(rest, J, in, n, want), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(inst, got, model), BSYNC_OK);
        assert_memory_equal(got, want, sizeof want);
        assert_int_equal(bsync_pose_local_to_model(parents, J, want, 0, J, want_model), BSYNC_OK);
        assert_memory_equal(model, want_model, sizeof model);
        /* joint query: a hand, a foot, the root, the head, a repeat */
        uint32_t q[5] = {J - 1, 12, 0, 6, J - 1};
        bsync_trs qm[5];
        assert_int_equal(bsync_instance_joint_query(inst, q, 5, qm), BSYNC_OK);
        for (int i = 0; i < 5; i++) assert_memory_equal(&qm[i], &want_model[q[i]], sizeof(bsync_trs));
        uint64_t pc, per[J];
        assert_int_equal(bsync_instance_pose_checksum(inst, &pc, per), BSYNC_OK);
        assert_true(pc == bsync_checksum_pose(want, J));
        uint64_t want_per[J];
        bsync_checksum_pose_joints(want, J, want_per);
        assert_memory_equal(per, want_per, sizeof per);
    }
    uint32_t bad = J;
    bsync_trs one;
    assert_int_equal(bsync_instance_joint_query(inst, &bad, 1, &one), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_pose(inst, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    free(mem);
}

static void test_layered_checksums(void** state) {
    (void)state;
    void *ma, *mb;
    bsync_instance* a = new_instance(g_f.graph, &ma);
    bsync_instance* b = new_instance(g_f.graph, &mb);
    assert_true(bsync_instance_state_checksum(a) == bsync_instance_state_checksum(b));
    for (uint32_t k = 0; k < 50; k++) { tick_script(a, k); tick_script(b, k); }
    assert_true(bsync_instance_state_checksum(a) == bsync_instance_state_checksum(b));
    /* b gets another turn target (unfiltered): only parameter 1 and node "move" differ */
    fix16_t ta[2], tb[2];
    script(50, ta);
    tb[0] = ta[0];
    tb[1] = ta[1] + 1000;
    bsync_instance_input ia = {ta, 2}, ib = {tb, 2};
    assert_int_equal(bsync_instance_tick(a, &ia), BSYNC_OK);
    assert_int_equal(bsync_instance_tick(b, &ib), BSYNC_OK);
    assert_true(bsync_instance_state_checksum(a) != bsync_instance_state_checksum(b));
    assert_true(bsync_instance_parameter_checksum(a, 0) == bsync_instance_parameter_checksum(b, 0));
    assert_true(bsync_instance_parameter_checksum(a, 1) != bsync_instance_parameter_checksum(b, 1));
    assert_true(bsync_instance_node_checksum(a, 1) != bsync_instance_node_checksum(b, 1));
    assert_int_equal(bsync_instance_parameter_checksum(a, 2), 0);
    assert_int_equal(bsync_instance_node_checksum(a, 2), 0);
    free(ma);
    free(mb);
}

typedef struct record { uint64_t state, pose; } record;

static void test_save_load_replay(void** state) {
    (void)state;
    enum { TOTAL = 1200, SAVE_AT = 517 };
    void *ma, *mb;
    bsync_instance* a = new_instance(g_f.graph, &ma);
    bsync_instance* b = new_instance(g_f.graph, &mb);
    size_t cap = bsync_instance_snapshot_size(g_f.graph);
    assert_int_equal(cap, 32 + 4 + 48 * 2 + 4 + 20 * 2 + 4 + 0 + 8);
    unsigned char* snap = malloc(cap);
    size_t written = 0;
    static record rec[TOTAL];
    for (uint32_t k = 0; k < TOTAL; k++) {
        if (k == SAVE_AT) {
            assert_int_equal(bsync_instance_save(a, snap, cap - 1, &written), BSYNC_BUFFER_TOO_SMALL);
            assert_int_equal(bsync_instance_save(a, snap, cap, &written), BSYNC_OK);
            assert_int_equal(written, cap);
        }
        tick_script(a, k);
        rec[k].state = bsync_instance_state_checksum(a);
        assert_int_equal(bsync_instance_pose_checksum(a, &rec[k].pose, NULL), BSYNC_OK);
    }
    /* b: a few unrelated ticks (cursors and caches warm), then load and replay */
    for (uint32_t k = 0; k < 90; k++) tick_script(b, k * 7u);
    assert_int_equal(bsync_instance_load(b, snap, written), BSYNC_OK);
    assert_int_equal(bsync_instance_tick_count(b), SAVE_AT);
    for (uint32_t k = SAVE_AT; k < TOTAL; k++) {
        tick_script(b, k);
        assert_true(bsync_instance_state_checksum(b) == rec[k].state);
        uint64_t pc;
        assert_int_equal(bsync_instance_pose_checksum(b, &pc, NULL), BSYNC_OK);
        assert_true(pc == rec[k].pose);
    }
    /* a memcpy of an instance is a working copy */
    size_t sz = bsync_instance_memory_size(g_f.graph);
    void* mc = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    memcpy(mc, mb, sz);
    bsync_instance* c = (bsync_instance*)mc;
    tick_script(b, TOTAL);
    tick_script(c, TOTAL);
    assert_true(bsync_instance_state_checksum(b) == bsync_instance_state_checksum(c));
    free(mc);
    free(snap);
    free(ma);
    free(mb);
}

static void test_snapshot_corruption(void** state) {
    (void)state;
    void *ma, *mb;
    bsync_instance* a = new_instance(g_f.graph, &ma);
    bsync_instance* b = new_instance(g_f.graph, &mb);
    for (uint32_t k = 0; k < 100; k++) tick_script(a, k);
    for (uint32_t k = 0; k < 10; k++) tick_script(b, k);
    const uint64_t before = bsync_instance_state_checksum(b);
    size_t cap = bsync_instance_snapshot_size(g_f.graph), n = 0;
    unsigned char* snap = malloc(cap);
    assert_int_equal(bsync_instance_save(a, snap, cap, &n), BSYNC_OK);
    /* every truncation, copied to an exactly-sized buffer so ASan sees any over-read */
    for (size_t len = 0; len < n; len++) {
        unsigned char* t = malloc(len ? len : 1);
        memcpy(t, snap, len);
        assert_int_not_equal(bsync_instance_load(b, t, len), BSYNC_OK);
        free(t);
    }
    /* random single and multiple byte flips */
    uint64_t rng = 12345;
    unsigned char* t = malloc(n);
    for (int trial = 0; trial < 5000; trial++) {
        memcpy(t, snap, n);
        int flips = 1 + (int)(bsync_test_rand(&rng) % 3);
        int changed = 0;
        for (int f = 0; f < flips; f++) {
            size_t at = (size_t)(bsync_test_rand(&rng) % n);
            unsigned char x = (unsigned char)(1 + bsync_test_rand(&rng) % 255);
            t[at] ^= x;
        }
        changed = memcmp(t, snap, n) != 0;
        if (!changed) continue;
        assert_int_not_equal(bsync_instance_load(b, t, n), BSYNC_OK);
    }
    /* a longer buffer, a wrong graph hash (valid XXH64) */
    unsigned char* longer = calloc(n + 1, 1);
    memcpy(longer, snap, n);
    assert_int_equal(bsync_instance_load(b, longer, n + 1), BSYNC_BAD_BLOB);
    free(longer);
    memcpy(t, snap, n);
    t[8] ^= 1;
    uint64_t h = bsync_checksum_xxh64(t, n - 8, 0);
    for (int i = 0; i < 8; i++) t[n - 8 + (size_t)i] = (unsigned char)(h >> (8 * i));
    assert_int_equal(bsync_instance_load(b, t, n), BSYNC_MISMATCH);
    /* a valid XXH64 over an out-of-range field (settled = 2) is still rejected */
    memcpy(t, snap, n);
    t[32 + 4 + 12] = 2;
    h = bsync_checksum_xxh64(t, n - 8, 0);
    for (int i = 0; i < 8; i++) t[n - 8 + (size_t)i] = (unsigned char)(h >> (8 * i));
    assert_int_equal(bsync_instance_load(b, t, n), BSYNC_BAD_BLOB);
    /* b was never touched */
    assert_true(bsync_instance_state_checksum(b) == before);
    assert_int_equal(bsync_instance_tick_count(b), 10);
    assert_int_equal(bsync_instance_load(b, snap, n), BSYNC_OK);
    assert_true(bsync_instance_state_checksum(b) == bsync_instance_state_checksum(a));
    free(t);
    free(snap);
    free(ma);
    free(mb);
}

static void test_no_allocation_over_10000_ticks(void** state) {
    (void)state;
    bsync_test_counting_allocator ca;
    bsync_test_counting_allocator_init(&ca);
    bsync_graph* g = make_graph(&g_f.h, g_f.tree, &ca.allocator);
    assert_int_equal(ca.allocs, 1);
    void* mem;
    bsync_instance* inst = new_instance(g, &mem);
    static bsync_trs local[J], model[J];
    for (uint32_t k = 0; k < 10000; k++) {
        tick_script(inst, k);
        if (k % 4 == 0) assert_int_equal(bsync_instance_pose(inst, local, model), BSYNC_OK);
    }
    assert_int_equal(ca.allocs, 1);
    assert_int_equal(ca.frees, 0);
    free(mem);
    bsync_graph_destroy(g);
    assert_int_equal(ca.frees, 1);
}

static double quat_angle(bsync_quat a, bsync_quat b) {
    double ax = a.x / 65536.0, ay = a.y / 65536.0, az = a.z / 65536.0, aw = a.w / 65536.0;
    double bx = b.x / 65536.0, by = b.y / 65536.0, bz = b.z / 65536.0, bw = b.w / 65536.0;
    double na = sqrt(ax * ax + ay * ay + az * az + aw * aw), nb = sqrt(bx * bx + by * by + bz * bz + bw * bw);
    double d = fabs(ax * bx + ay * by + az * bz + aw * bw) / (na * nb);
    return 2.0 * acos(d > 1.0 ? 1.0 : d);
}

/* Walk -> run under a Simple1D speed node with SmoothDamp (0.5 s), over 2 s at 30 Hz: the largest
 * per-tick change of any joint's local rotation stays within 1.5x the largest per-tick change inside
 * walk or run sampled at 30 Hz (the "done" criterion). */
static void test_walk_to_run_is_smooth(void** state) {
    (void)state;
    static const char* pn[1] = {"speed"};
    static const char* mn[2] = {"walk", "run"};
    fix16_t defaults[1] = {BSYNC_PROCEDURAL_SPEED_WALK};
    fix16_t th[2] = {BSYNC_PROCEDURAL_SPEED_WALK, BSYNC_PROCEDURAL_SPEED_RUN};
    bsync_blend_child_ref refs[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}};
    uint32_t params[1] = {0};
    bsync_blend_node_desc node;
    memset(&node, 0, sizeof node);
    node.name = "move"; node.space.type = BSYNC_BLEND_SIMPLE_1D; node.space.child_count = 2;
    node.space.thresholds = th; node.children = refs; node.params = params;
    bsync_blend_tree_desc td = {pn, defaults, 1, mn, 2, &node, 1, 0};
    bsync_blend_tree* tree = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &tree, NULL, NULL), BSYNC_OK);
    bsync_param_filter_desc f;
    memset(&f, 0, sizeof f);
    f.smooth_time = BSYNC_FX_HALF;
    const bsync_clip* clips[2] = {g_f.h.clips[BSYNC_PROCEDURAL_WALK], g_f.h.clips[BSYNC_PROCEDURAL_RUN]};
    bsync_graph_desc gd = {tree, g_f.h.skeleton, clips, 30, &f, NULL, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW, 0, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &g), BSYNC_OK);
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_f.h.skeleton);
    /* source: each clip sampled at 30 Hz over two of its cycles */
    double src_max = 0;
    static bsync_trs p0[J], p1[J];
    for (int c = 0; c < 2; c++) {
        for (int k = 0; k < 60; k++) {
            assert_int_equal(bsync_clip_sample(clips[c], bsync_time_ticks_to_seconds(k, 30), BSYNC_LOOP_WRAP, rest, J, NULL, p0), BSYNC_OK);
            assert_int_equal(bsync_clip_sample(clips[c], bsync_time_ticks_to_seconds(k + 1, 30), BSYNC_LOOP_WRAP, rest, J, NULL, p1), BSYNC_OK);
            for (int j = 0; j < J; j++) {
                double a = quat_angle(p0[j].r, p1[j].r);
                if (a > src_max) src_max = a;
            }
        }
    }
    assert_true(src_max > 0.05); /* the clips move */
    void* mem;
    bsync_instance* inst = new_instance(g, &mem);
    fix16_t target[1] = {BSYNC_PROCEDURAL_SPEED_WALK};
    bsync_instance_input in = {target, 1};
    double blend_max = 0;
    assert_int_equal(bsync_instance_pose(inst, p0, NULL), BSYNC_OK);
    for (int k = 0; k < 90; k++) {
        if (k == 15) target[0] = BSYNC_PROCEDURAL_SPEED_RUN;
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(inst, p1, NULL), BSYNC_OK);
        for (int j = 0; j < J; j++) {
            double a = quat_angle(p0[j].r, p1[j].r);
            if (a > blend_max) blend_max = a;
        }
        memcpy(p0, p1, sizeof p0);
    }
    /* the transition happened: run dominates at the end */
    assert_true(bsync_instance_leaf_weights(inst)[1] > 60000);
    print_message("walk->run: max per-tick rotation change %.4f rad, source max %.4f rad (ratio %.3f)\n",
                  blend_max, src_max, blend_max / src_max);
    assert_true(blend_max <= 1.5 * src_max);
    free(mem);
    bsync_graph_destroy(g);
    bsync_blend_tree_destroy(tree);
}

static void test_init_and_argument_errors(void** state) {
    (void)state;
    size_t sz = bsync_instance_memory_size(g_f.graph);
    assert_true(sz > 0);
    assert_int_equal(bsync_instance_memory_size(NULL), 0);
    unsigned char* mem = aligned_alloc(8, sz + 8);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(mem, sz - 1, g_f.graph, &inst), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_instance_init(mem + 4, sz, g_f.graph, &inst), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_init(mem, sz, NULL, &inst), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_init(mem, sz, g_f.graph, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_init(mem, sz, g_f.graph, &inst), BSYNC_OK);
    assert_ptr_equal(bsync_instance_graph(inst), g_f.graph);
    /* defaults at tick 0: speed 0 -> idle only; turn -1 -> walk inside "move" */
    assert_int_equal(bsync_instance_tick_count(inst), 0);
    assert_int_equal(bsync_instance_leaf_weights(inst)[0], BSYNC_FX_ONE);
    assert_int_equal(bsync_instance_node_weights(inst, 1)[0], BSYNC_FX_ONE);
    assert_int_equal(bsync_instance_parameter(inst, 1), -BSYNC_FX_ONE);
    assert_int_equal(bsync_instance_node_length(inst, 0), 2 * BSYNC_FX_ONE); /* idle 2.0 s */
    assert_int_equal(bsync_instance_node_length(inst, 1), BSYNC_FX_ONE);     /* walk 1.0 s */
    fix16_t t[2] = {0, 0};
    bsync_instance_input bad = {t, 1};
    assert_int_equal(bsync_instance_tick(inst, &bad), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_tick(inst, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_tick(NULL, &bad), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_tick_count(inst), 0);
    assert_null(bsync_instance_node_weights(inst, 2));
    assert_null(bsync_instance_node_time(inst, 2));
    assert_null(bsync_instance_parameter_state(inst, 2));
    assert_int_equal(bsync_instance_parameter(inst, 2), 0);
    assert_int_equal(bsync_instance_load(inst, NULL, 0), BSYNC_INVALID_ARGUMENT);
    free(mem);
    /* a graph without a skeleton: state works, poses do not */
    bsync_graph_desc d = {g_f.tree, NULL, NULL, 30, NULL, NULL, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW, 0, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_OK);
    void* m2;
    bsync_instance* i2 = new_instance(g, &m2);
    bsync_instance_input in = {t, 2};
    assert_int_equal(bsync_instance_tick(i2, &in), BSYNC_OK);
    bsync_trs p[J];
    uint64_t pc;
    assert_int_equal(bsync_instance_pose(i2, p, NULL), BSYNC_MISMATCH);
    assert_int_equal(bsync_instance_pose_checksum(i2, &pc, NULL), BSYNC_MISMATCH);
    /* unbound motions count as 1 s */
    assert_int_equal(bsync_instance_node_length(i2, 0), BSYNC_FX_ONE);
    free(m2);
    bsync_graph_destroy(g);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leaf_weights_match_tree),
        cmocka_unit_test(test_pose_matches_manual_blend),
        cmocka_unit_test(test_layered_checksums),
        cmocka_unit_test(test_save_load_replay),
        cmocka_unit_test(test_snapshot_corruption),
        cmocka_unit_test(test_no_allocation_over_10000_ticks),
        cmocka_unit_test(test_walk_to_run_is_smooth),
        cmocka_unit_test(test_init_and_argument_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
