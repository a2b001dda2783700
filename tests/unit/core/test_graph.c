/* test_graph.c — the graph definition (graph.h): its hash is equal for equal inputs and changes with
 * every input that affects simulation (root-motion settings included); build errors (root-motion ones
 * included); accessors. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/curve.h"
#include "blendsync/graph.h"
#include "blendsync/procedural.h"
#include "test_support.h"

static bsync_procedural_humanoid g_h;

static int setup(void** state) {
    (void)state;
    return bsync_procedural_humanoid_create(NULL, &g_h) == BSYNC_OK ? 0 : -1;
}
static int teardown(void** state) {
    (void)state;
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

typedef struct variant {
    fix16_t walk_threshold;
    fix16_t speed_default;
    const char* run_name;
} variant;

/* speed (Simple1D: idle 0, walk, run 3.5) + "lean" (unused by nodes, filtered as a pair partner test). */
static bsync_blend_tree* make_tree(const variant* v) {
    static const char* pn[2] = {"speed", "lean"};
    const char* mn[3] = {"idle", "walk", v->run_name};
    fix16_t defaults[2] = {v->speed_default, 0};
    fix16_t th[3] = {0, v->walk_threshold, BSYNC_PROCEDURAL_SPEED_RUN};
    bsync_blend_child_ref refs[3] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    uint32_t params[1] = {0};
    bsync_blend_node_desc node;
    memset(&node, 0, sizeof node);
    node.name = "move";
    node.space.type = BSYNC_BLEND_SIMPLE_1D;
    node.space.child_count = 3;
    node.space.thresholds = th;
    node.children = refs;
    node.params = params;
    bsync_blend_tree_desc td = {pn, defaults, 2, mn, 3, &node, 1, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

static const variant BASE = {BSYNC_PROCEDURAL_SPEED_WALK, BSYNC_PROCEDURAL_SPEED_WALK, "run"};

typedef struct gdesc {
    bsync_graph_desc d;
    bsync_param_filter_desc filters[2];
    bsync_graph_node_options opt[1];
    fix16_t scales[3], offsets[3];
    const bsync_clip* clips[3];
} gdesc;

static void base_desc(gdesc* g, const bsync_blend_tree* tree) {
    memset(g, 0, sizeof *g);
    g->filters[0].smooth_time = BSYNC_FX_HALF;
    for (int i = 0; i < 3; i++) {
        g->scales[i] = BSYNC_FX_ONE;
        g->offsets[i] = 0;
        g->clips[i] = g_h.clips[i];
    }
    g->opt[0].sync = BSYNC_SYNC_NORMALIZED;
    g->opt[0].time_scales = g->scales;
    g->opt[0].cycle_offsets = g->offsets;
    g->d.tree = tree;
    g->d.skeleton = g_h.skeleton;
    g->d.clips = g->clips;
    g->d.tick_rate = 30;
    g->d.filters = g->filters;
    g->d.node_options = g->opt;
}

static uint64_t hash_of(const gdesc* g) {
    bsync_graph* gr = NULL;
    assert_int_equal(bsync_graph_create(&g->d, NULL, &gr), BSYNC_OK);
    uint64_t h = bsync_graph_hash(gr);
    bsync_graph_destroy(gr);
    return h;
}

static void test_hash_equal_for_equal_inputs(void** state) {
    (void)state;
    bsync_blend_tree* t1 = make_tree(&BASE);
    bsync_blend_tree* t2 = make_tree(&BASE);
    gdesc a, b;
    base_desc(&a, t1);
    base_desc(&b, t2);
    /* explicit defaults equal implicit ones: NULL time scales/offsets/options */
    b.opt[0].time_scales = NULL;
    b.opt[0].cycle_offsets = NULL;
    uint64_t ha = hash_of(&a);
    assert_int_not_equal(ha, 0);
    assert_int_equal(ha, hash_of(&a));
    assert_int_equal(ha, hash_of(&b));
    b.d.node_options = NULL;
    assert_int_equal(ha, hash_of(&b));
    /* a second humanoid generated afresh: same content, other memory -> same hash */
    bsync_procedural_humanoid h2;
    assert_int_equal(bsync_procedural_humanoid_create(NULL, &h2), BSYNC_OK);
    b.d.skeleton = h2.skeleton;
    for (int i = 0; i < 3; i++) b.clips[i] = h2.clips[i];
    assert_int_equal(ha, hash_of(&b));
    bsync_procedural_humanoid_destroy(&h2);
    bsync_blend_tree_destroy(t1);
    bsync_blend_tree_destroy(t2);
}

static void test_hash_changes_with_every_input(void** state) {
    (void)state;
    enum { K = 20 };
    uint64_t h[K];
    int k = 0;
    bsync_blend_tree* base_tree = make_tree(&BASE);
    gdesc g;
    base_desc(&g, base_tree);
    h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.d.tick_rate = 60; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.filters[0].smooth_time = BSYNC_FX_ONE; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.filters[0].max_speed = BSYNC_FX_ONE; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.filters[1].dead_zone = 100; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.clips[2] = NULL; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.clips[2] = g_h.clips[1]; h[k++] = hash_of(&g); /* other clip content */
    base_desc(&g, base_tree); g.scales[1] = 2 * BSYNC_FX_ONE; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.offsets[1] = 1; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.opt[0].sync = BSYNC_SYNC_NONE; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.d.skeleton = NULL; g.d.clips = NULL; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.d.root_motion = BSYNC_ROOT_MOTION_EXTRACT; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.d.root_rotation = BSYNC_ROOT_ROTATION_FULL; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.d.root_joint = 1; h[k++] = hash_of(&g);
    base_desc(&g, base_tree); g.d.pose_rule = BSYNC_POSE_RULE_LERPED; h[k++] = hash_of(&g);
    /* rule 1 given explicitly is the default: the same graph, the hash graphs had before rule 2 existed */
    base_desc(&g, base_tree); g.d.pose_rule = BSYNC_POSE_RULE_NORMALIZED; assert_int_equal(hash_of(&g), h[0]);
    bsync_curve_key keys[2] = {{0, 0, BSYNC_FX_ONE, BSYNC_FX_ONE, 0, 0, 0},
                               {BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE, 0, 0, 0}};
    bsync_curve_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.keys = keys;
    cd.key_count = 2;
    bsync_curve* curve = NULL;
    assert_int_equal(bsync_curve_create(&cd, NULL, &curve), BSYNC_OK);
    base_desc(&g, base_tree); g.filters[1].curve = curve; h[k++] = hash_of(&g);
    keys[1].value = 2 * BSYNC_FX_ONE;
    bsync_curve* curve2 = NULL;
    assert_int_equal(bsync_curve_create(&cd, NULL, &curve2), BSYNC_OK);
    base_desc(&g, base_tree); g.filters[1].curve = curve2; h[k++] = hash_of(&g);
    variant v1 = BASE; v1.walk_threshold += 1;
    variant v2 = BASE; v2.speed_default = 0;
    variant v3 = BASE; v3.run_name = "sprint";
    bsync_blend_tree* t1 = make_tree(&v1);
    bsync_blend_tree* t2 = make_tree(&v2);
    bsync_blend_tree* t3 = make_tree(&v3);
    base_desc(&g, t1); h[k++] = hash_of(&g);
    base_desc(&g, t2); h[k++] = hash_of(&g);
    base_desc(&g, t3); h[k++] = hash_of(&g);
    assert_int_equal(k, K);
    for (int i = 0; i < K; i++)
        for (int j = i + 1; j < K; j++) assert_true(h[i] != h[j]);
    bsync_curve_destroy(curve);
    bsync_curve_destroy(curve2);
    bsync_blend_tree_destroy(t1);
    bsync_blend_tree_destroy(t2);
    bsync_blend_tree_destroy(t3);
    bsync_blend_tree_destroy(base_tree);
}

static void test_build_errors(void** state) {
    (void)state;
    bsync_blend_tree* tree = make_tree(&BASE);
    gdesc g;
    bsync_graph* gr = NULL;
    assert_int_equal(bsync_graph_create(NULL, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree);
    assert_int_equal(bsync_graph_create(&g.d, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    g.d.tree = NULL;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.d.tick_rate = 14;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_BAD_TICK_RATE);
    base_desc(&g, tree); g.d.pose_rule = (bsync_pose_rule)3; /* no such rule */
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    assert_null(gr);
    g.d.tick_rate = 61;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_BAD_TICK_RATE);
    base_desc(&g, tree); g.d.skeleton = NULL;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.scales[0] = 0;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.scales[0] = BSYNC_GRAPH_MAX_TIME_SCALE + 1;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.offsets[2] = BSYNC_FX_ONE;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.offsets[2] = -1;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.opt[0].sync = (bsync_graph_sync)2;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.filters[1].pair = 1; /* pair on the last parameter */
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.filters[0].pair = 1; /* partner has a filter of its own */
    g.filters[1].dead_zone = 1;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.filters[0].dead_zone = -1;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    /* a clip made for another skeleton */
    bsync_joint_desc j = {"only", BSYNC_NO_PARENT, {{0, 0, 0}, {0, 0, 0, BSYNC_FX_ONE}, {BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE}}};
    bsync_skeleton_desc sd = {&j, 1};
    bsync_skeleton* small = NULL;
    assert_int_equal(bsync_skeleton_create(&sd, NULL, &small), BSYNC_OK);
    base_desc(&g, tree); g.d.skeleton = small;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_MISMATCH);
    /* root motion: modes, rotation modes, the joint, and a skeleton needed for EXTRACT and NONE */
    base_desc(&g, tree); g.d.root_motion = (bsync_root_motion_mode)3;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.d.root_rotation = (bsync_root_motion_rotation)2;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.d.root_motion = BSYNC_ROOT_MOTION_EXTRACT; g.d.root_joint = 23;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.d.root_joint = 23; /* checked in every mode when a skeleton is given */
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    base_desc(&g, tree); g.d.skeleton = NULL; g.d.clips = NULL; g.d.root_motion = BSYNC_ROOT_MOTION_EXTRACT;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    g.d.root_motion = BSYNC_ROOT_MOTION_NONE;
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_INVALID_ARGUMENT);
    g.d.root_motion = BSYNC_ROOT_MOTION_KEEP; g.d.root_joint = 5; /* no skeleton: the joint is not checked */
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_OK);
    bsync_graph_destroy(gr);
    for (int m = 0; m < 3; m++) {
        for (int r = 0; r < 2; r++) {
            base_desc(&g, tree);
            g.d.root_motion = (bsync_root_motion_mode)m;
            g.d.root_rotation = (bsync_root_motion_rotation)r;
            g.d.root_joint = 22;
            assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_OK);
            assert_int_equal(bsync_graph_root_motion(gr), m);
            assert_int_equal(bsync_graph_root_rotation(gr), r);
            assert_int_equal(bsync_graph_root_joint(gr), 22);
            bsync_graph_destroy(gr);
        }
    }
    assert_int_equal(bsync_graph_root_motion(NULL), BSYNC_ROOT_MOTION_KEEP);
    assert_int_equal(bsync_graph_root_rotation(NULL), BSYNC_ROOT_ROTATION_YAW);
    assert_int_equal(bsync_graph_root_joint(NULL), 0);
    /* allocator failure */
    int calls = 0;
    bsync_allocator fail = bsync_test_failing_allocator(&calls);
    base_desc(&g, tree);
    assert_int_equal(bsync_graph_create(&g.d, &fail, &gr), BSYNC_OUT_OF_MEMORY);
    assert_int_equal(calls, 1);
    /* pair accepted when the partner is unfiltered */
    base_desc(&g, tree); g.filters[0].pair = 1; memset(&g.filters[1], 0, sizeof g.filters[1]);
    assert_int_equal(bsync_graph_create(&g.d, NULL, &gr), BSYNC_OK);
    bsync_graph_destroy(gr);
    bsync_skeleton_destroy(small);
    bsync_blend_tree_destroy(tree);
}

/* 65 motion slots with clips exceed BSYNC_MAX_BLEND_POSES: two Direct nodes of 33 children each. */
static void test_too_many_bound_slots(void** state) {
    (void)state;
    static const char* pn[1] = {"p"};
    const char* mn[1] = {"walk"};
    bsync_blend_child_ref refs_a[34], refs_b[33];
    uint32_t params[34];
    for (int i = 0; i < 34; i++) { refs_a[i].kind = BSYNC_CHILD_MOTION; refs_a[i].index = 0; params[i] = 0; }
    refs_a[33].kind = BSYNC_CHILD_NODE; refs_a[33].index = 1;
    for (int i = 0; i < 33; i++) { refs_b[i].kind = BSYNC_CHILD_MOTION; refs_b[i].index = 0; }
    bsync_blend_node_desc nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].name = "a"; nodes[0].space.type = BSYNC_BLEND_DIRECT; nodes[0].space.child_count = 34;
    nodes[0].children = refs_a; nodes[0].params = params;
    nodes[1].name = "b"; nodes[1].space.type = BSYNC_BLEND_DIRECT; nodes[1].space.child_count = 33;
    nodes[1].children = refs_b; nodes[1].params = params;
    bsync_blend_tree_desc td = {pn, NULL, 1, mn, 1, nodes, 2, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    const bsync_clip* clips[1] = {g_h.clips[1]};
    bsync_graph_desc d = {t, g_h.skeleton, clips, 30, NULL, NULL, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW, 0, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    bsync_graph* gr = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &gr), BSYNC_LIMIT_EXCEEDED);
    clips[0] = NULL; /* unbound: no poses to blend, accepted */
    assert_int_equal(bsync_graph_create(&d, NULL, &gr), BSYNC_OK);
    bsync_graph_destroy(gr);
    bsync_blend_tree_destroy(t);
}

static void test_accessors(void** state) {
    (void)state;
    bsync_blend_tree* tree = make_tree(&BASE);
    gdesc g;
    base_desc(&g, tree);
    g.clips[0] = NULL;
    bsync_test_counting_allocator ca;
    bsync_test_counting_allocator_init(&ca);
    bsync_graph* gr = NULL;
    assert_int_equal(bsync_graph_create(&g.d, &ca.allocator, &gr), BSYNC_OK);
    assert_int_equal(ca.allocs, 1);
    assert_int_equal(bsync_graph_tick_rate(gr), 30);
    assert_int_equal(bsync_graph_parameter_count(gr), 2);
    assert_int_equal(bsync_graph_motion_count(gr), 3);
    assert_int_equal(bsync_graph_node_count(gr), 1);
    assert_int_equal(bsync_graph_joint_count(gr), 23);
    assert_ptr_equal(bsync_graph_tree(gr), tree);
    assert_ptr_equal(bsync_graph_skeleton(gr), g_h.skeleton);
    assert_null(bsync_graph_motion_clip(gr, 0));
    assert_ptr_equal(bsync_graph_motion_clip(gr, 2), g_h.clips[2]);
    assert_null(bsync_graph_motion_clip(gr, 3));
    assert_int_equal(bsync_graph_motion_length(gr, 0), BSYNC_FX_ONE);          /* unbound: 1 s */
    assert_int_equal(bsync_graph_motion_length(gr, 1), BSYNC_FX_ONE);          /* walk 1.0 s */
    assert_int_equal(bsync_graph_motion_length(gr, 2), bsync_clip_duration(g_h.clips[2])); /* run 0.7 s */
    assert_true(abs(bsync_graph_motion_length(gr, 2) - 45875) <= 1);
    uint32_t idx = 99;
    assert_int_equal(bsync_graph_find_joint(gr, "root", &idx), BSYNC_OK);
    assert_int_equal(idx, 0);
    assert_int_equal(bsync_graph_find_joint(gr, "no such joint", &idx), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_graph_hash(NULL), 0);
    bsync_graph_destroy(gr);
    assert_int_equal(ca.frees, 1);
    assert_int_equal(ca.live_bytes, 0);
    bsync_graph_destroy(NULL);
    bsync_blend_tree_destroy(tree);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hash_equal_for_equal_inputs),
        cmocka_unit_test(test_hash_changes_with_every_input),
        cmocka_unit_test(test_build_errors),
        cmocka_unit_test(test_too_many_bound_slots),
        cmocka_unit_test(test_accessors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
