/* test_time_sync.c — synchronised normalised time of a graph instance (instance.h, graph.h):
 * Unity's cycle-length rule against ../shared/reference/vectors/time_sync.json (cycle length and child
 * rates within 1e-4 relative, measured from the phase clocks over 20 s), and hand-worked cases: the
 * exact phase after a second, nested synchronised nodes sharing one phase, sync "none" clocks, cycle
 * offsets, and zero-weight subtrees still advancing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/skeleton.h"
#include "test_support.h"
#include "fixtures.h"

/* ---- fixtures: a one-joint skeleton and "ramp" clips whose joint 0 translation x equals the clip time */

/* one joint "root" at the origin, unrotated */
static bsync_skeleton* make_skeleton(void) {
    static const char* const names[1] = {"root"};
    return bsync_test_chain_skeleton(names, 1, NULL);
}

static bsync_clip* make_ramp(const bsync_skeleton* s, fix16_t duration) {
    fix16_t times[2] = {0, duration};
    bsync_vec3 v[2] = {{0, 0, 0}, {duration, 0, 0}};
    bsync_raw_track t = {0, BSYNC_TRACK_TRANSLATION, 2, times, v, NULL};
    bsync_clip_desc d = {"ramp", duration, 1, &t, 1};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, s, NULL, &c), BSYNC_OK);
    return c;
}


static double position_cycles(const bsync_clip_time* t) { return (double)t->cycles + (double)t->phase / 4294967296.0; }

static char* read_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* b = malloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    fclose(f);
    b[got] = '\0';
    return b;
}

static fix16_t dfx(double v) { return (fix16_t)lround(v * 65536.0); }

typedef struct world {
    bsync_skeleton* skel;
    bsync_clip* clips[8];
    bsync_blend_tree* tree;
    bsync_graph* graph;
    void* mem;
    bsync_instance* inst;
} world;

static void world_free(world* w) {
    free(w->mem);
    bsync_graph_destroy(w->graph);
    bsync_blend_tree_destroy(w->tree);
    for (int i = 0; i < 8; i++) bsync_clip_destroy(w->clips[i]);
    bsync_skeleton_destroy(w->skel);
}

static void world_direct(world* w, uint32_t n, const fix16_t* lengths, const fix16_t* weights, const fix16_t* scales,
                         const fix16_t* offsets, bsync_graph_sync sync, uint32_t rate) {
    memset(w, 0, sizeof *w);
    w->skel = make_skeleton();
    for (uint32_t i = 0; i < n; i++) w->clips[i] = make_ramp(w->skel, lengths[i]);
    w->tree = bsync_test_tree_direct(n, weights);
    bsync_graph_node_options opt = {sync, scales, offsets};
    bsync_graph_desc gd = {w->tree, w->skel, (const bsync_clip* const*)w->clips, rate, NULL, &opt, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW, 0, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    assert_int_equal(bsync_graph_create(&gd, NULL, &w->graph), BSYNC_OK);
    w->inst = bsync_test_instance_new(w->graph, &w->mem);
}

static void tick_n(bsync_instance* inst, const fix16_t* targets, uint32_t count, uint32_t n) {
    bsync_instance_input in = {targets, count};
    for (uint32_t i = 0; i < n; i++) assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
}

static double rel(double a, double b) { return fabs(a - b) / fabs(b); }

static void test_vectors(void** state) {
    (void)state;
    const char* path = bsync_test_shared_path("reference/vectors/time_sync.json");
    if (!path) skip();
    char* text = read_file(path);
    assert_non_null(text);
    cJSON* root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON* cases = cJSON_GetObjectItem(root, "cases");
    int checked = 0;
    const cJSON* c;
    cJSON_ArrayForEach(c, cases) {
        const cJSON* jw = cJSON_GetObjectItem(c, "weights");
        const cJSON* jl = cJSON_GetObjectItem(c, "lengths");
        const cJSON* js = cJSON_GetObjectItem(c, "time_scales");
        uint32_t n = (uint32_t)cJSON_GetArraySize(jw);
        fix16_t w[8], l[8], s[8];
        for (uint32_t i = 0; i < n; i++) {
            w[i] = dfx(cJSON_GetArrayItem(jw, (int)i)->valuedouble);
            l[i] = dfx(cJSON_GetArrayItem(jl, (int)i)->valuedouble);
            s[i] = dfx(cJSON_GetArrayItem(js, (int)i)->valuedouble);
        }
        const double L = cJSON_GetObjectItem(c, "unity_cycle_length")->valuedouble;
        const cJSON* rates = cJSON_GetObjectItem(c, "unity_child_rates");
        world wd;
        world_direct(&wd, n, l, w, s, NULL, BSYNC_SYNC_NORMALIZED, 60);
        assert_true(rel(bsync_instance_node_length(wd.inst, 0) / 65536.0, L) < 1e-4);
        tick_n(wd.inst, w, n, 1200); /* 20 s */
        const double freq = position_cycles(bsync_instance_node_time(wd.inst, 0)) / 20.0;
        assert_true(rel(1.0 / freq, L) < 1e-4);
        for (uint32_t i = 0; i < n; i++) {
            /* child i plays freq cycles per second of its clip: L_i * freq clip seconds per second */
            const double rate = freq * (double)bsync_clip_duration(wd.clips[i]) / 65536.0;
            assert_true(rel(rate, cJSON_GetArrayItem(rates, (int)i)->valuedouble) < 1e-4);
        }
        world_free(&wd);
        checked++;
    }
    assert_true(checked >= 5);
    cJSON_Delete(root);
    free(text);
}

/* Hand-worked: lengths 1.0 and 0.5 at weights 0.5/0.5: L = 0.75 s (49152 raw); speed = div(1, 0.75) =
 * 87381 raw (65536^2 / 49152 = 87381.33); one second (60 ticks) adds exactly 87381 * 2^32 / 65536 =
 * 5726601216 phase units = 1 cycle + 1431633920. Each child is sampled at phase * duration. */
static void test_exact_phase_after_one_second(void** state) {
    (void)state;
    world wd;
    fix16_t l[2] = {BSYNC_FX_ONE, BSYNC_FX_HALF}, w[2] = {BSYNC_FX_HALF, BSYNC_FX_HALF};
    world_direct(&wd, 2, l, w, NULL, NULL, BSYNC_SYNC_NORMALIZED, 60);
    assert_int_equal(bsync_instance_node_length(wd.inst, 0), 49152);
    tick_n(wd.inst, w, 2, 60);
    const bsync_clip_time* t = bsync_instance_node_time(wd.inst, 0);
    assert_int_equal(t->cycles, 1);
    assert_int_equal(t->phase, 1431633920u);
    /* weight 1 on child 0 from here: its ramp shows the sampled time = phase * 1.0 s */
    fix16_t only0[2] = {BSYNC_FX_ONE, 0};
    tick_n(wd.inst, only0, 2, 1); /* L becomes 1.0: + 2^32/60 = 71582788.27 -> phase 1503216708 (carry 16) */
    t = bsync_instance_node_time(wd.inst, 0);
    assert_int_equal(t->phase, 1431633920u + 71582788u);
    bsync_trs pose[1];
    assert_int_equal(bsync_instance_pose(wd.inst, pose, NULL), BSYNC_OK);
    /* seconds = floor(phase * 65536 / 2^32) = floor(1503216708 / 65536) = 22937; ramp x = t within a raw step */
    assert_true(abs(pose[0].t.x - 22937) <= 1);
    world_free(&wd);
}

/* Nested synchronised nodes: root = Direct(A, C), A = Direct(X, Y). X = 1.0 s, Y = 0.5 s, C = 1.5 s,
 * all weights 0.5: L_A = 0.75, L_root = 0.5 * 0.75 + 0.5 * 1.5 = 1.125 (73728 raw). A's children are
 * sampled at the root's phase (Unity: one normalised time), although A's own clock runs at 1/0.75. */
static void test_nested_sync_shares_phase(void** state) {
    (void)state;
    bsync_skeleton* skel = make_skeleton();
    bsync_clip* clips[3] = {make_ramp(skel, BSYNC_FX_ONE), make_ramp(skel, BSYNC_FX_HALF), make_ramp(skel, 98304)};
    const char* pn[4] = {"a", "c", "x", "y"};
    const char* mn[3] = {"X", "Y", "C"};
    fix16_t defaults[4] = {BSYNC_FX_HALF, BSYNC_FX_HALF, BSYNC_FX_HALF, BSYNC_FX_HALF};
    bsync_blend_child_ref root_refs[2] = {{BSYNC_CHILD_NODE, 1}, {BSYNC_CHILD_MOTION, 2}};
    bsync_blend_child_ref a_refs[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}};
    uint32_t root_params[2] = {0, 1}, a_params[2] = {2, 3};
    bsync_blend_node_desc nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].name = "root"; nodes[0].space.type = BSYNC_BLEND_DIRECT; nodes[0].space.child_count = 2;
    nodes[0].children = root_refs; nodes[0].params = root_params;
    nodes[1].name = "A"; nodes[1].space.type = BSYNC_BLEND_DIRECT; nodes[1].space.child_count = 2;
    nodes[1].children = a_refs; nodes[1].params = a_params;
    bsync_blend_tree_desc td = {pn, defaults, 4, mn, 3, nodes, 2, 0};
    bsync_blend_tree* tree = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &tree, NULL, NULL), BSYNC_OK);
    fix16_t offs[2] = {BSYNC_FX_ONE / 4, 0}; /* A sampled a quarter cycle ahead of the root */
    bsync_graph_node_options opts[2] = {{BSYNC_SYNC_NORMALIZED, NULL, offs}, {BSYNC_SYNC_NORMALIZED, NULL, NULL}};
    bsync_graph_desc gd = {tree, skel, (const bsync_clip* const*)clips, 30, NULL, opts, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW, 0, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &g), BSYNC_OK);
    void* mem = NULL;
    bsync_instance* inst = bsync_test_instance_new(g, &mem);
    assert_int_equal(bsync_instance_node_length(inst, 1), 49152);
    assert_int_equal(bsync_instance_node_length(inst, 0), 73728);
    tick_n(inst, defaults, 4, 17);
    const uint32_t root_phase = bsync_instance_node_time(inst, 0)->phase;
    assert_int_equal(bsync_instance_node_sample_phase(inst, 0), root_phase);
    assert_int_equal(bsync_instance_node_sample_phase(inst, 1), root_phase + (1u << 30));
    /* A's own clock: 17 ticks at 30 Hz of 1/0.75 cycles/s = 0.7556 cycles; the root's: 0.5037 */
    assert_true(fabs(position_cycles(bsync_instance_node_time(inst, 1)) - 17.0 / 30.0 / 0.75) < 1e-4);
    assert_true(fabs(position_cycles(bsync_instance_node_time(inst, 0)) - 17.0 / 30.0 / 1.125) < 1e-4);
    /* zero weight on A from now on: A still advances (weights of A unchanged: 1/0.75 cycles/s) */
    fix16_t only_c[4] = {0, BSYNC_FX_ONE, BSYNC_FX_HALF, BSYNC_FX_HALF};
    const double a0 = position_cycles(bsync_instance_node_time(inst, 1));
    tick_n(inst, only_c, 4, 30);
    assert_int_equal(bsync_instance_leaf_weights(inst)[0], 0);
    assert_true(fabs(position_cycles(bsync_instance_node_time(inst, 1)) - a0 - 1.0 / 0.75) < 1e-4);
    assert_int_equal(bsync_instance_node_length(inst, 0), 98304); /* only C: 1.5 s */
    free(mem);
    bsync_graph_destroy(g);
    bsync_blend_tree_destroy(tree);
    for (int i = 0; i < 3; i++) bsync_clip_destroy(clips[i]);
    bsync_skeleton_destroy(skel);
}

/* sync none: each clip plays at its own rate times its time scale. Clip 0: 1.0 s at scale 1, clip 1:
 * 0.5 s at scale 2. After 30 ticks at 60 Hz (0.5 s): clip 0 at 0.5 s (x = 32768 exactly: 0.5 cycle,
 * exact); clip 1 has played 1.0 s = exactly 2 cycles (x = 0). After 33 ticks: clip 1 at 1.1 s mod
 * 0.5 = 0.1 s. The node's own phase does not drive them. */
static void test_sync_none(void** state) {
    (void)state;
    fix16_t l[2] = {BSYNC_FX_ONE, BSYNC_FX_HALF}, s[2] = {BSYNC_FX_ONE, 2 * BSYNC_FX_ONE};
    fix16_t only0[2] = {BSYNC_FX_ONE, 0}, only1[2] = {0, BSYNC_FX_ONE};
    world a, b;
    world_direct(&a, 2, l, only0, s, NULL, BSYNC_SYNC_NONE, 60);
    world_direct(&b, 2, l, only1, s, NULL, BSYNC_SYNC_NONE, 60);
    assert_int_not_equal(bsync_graph_hash(a.graph), 0);
    tick_n(a.inst, only0, 2, 30);
    tick_n(b.inst, only1, 2, 30);
    bsync_trs p[1];
    assert_int_equal(bsync_instance_pose(a.inst, p, NULL), BSYNC_OK);
    assert_int_equal(p[0].t.x, 32768);
    assert_int_equal(bsync_instance_pose(b.inst, p, NULL), BSYNC_OK);
    assert_int_equal(p[0].t.x, 0);
    tick_n(b.inst, only1, 2, 3);
    assert_int_equal(bsync_instance_pose(b.inst, p, NULL), BSYNC_OK);
    assert_true(abs(p[0].t.x - dfx(0.1)) <= 2);
    world_free(&a);
    world_free(&b);
}

/* A cycle offset of 0.25 on a 1.0 s clip samples 0.25 s at tick 0 (phase 2^30 -> 16384 raw seconds). */
static void test_cycle_offset(void** state) {
    (void)state;
    fix16_t l[1] = {BSYNC_FX_ONE}, w[1] = {BSYNC_FX_ONE}, o[1] = {BSYNC_FX_ONE / 4};
    world a;
    world_direct(&a, 1, l, w, NULL, o, BSYNC_SYNC_NORMALIZED, 30);
    bsync_trs p[1];
    assert_int_equal(bsync_instance_pose(a.inst, p, NULL), BSYNC_OK);
    assert_int_equal(p[0].t.x, 16384);
    /* 0.75 cycles later (1.0 s clip, 30 Hz: 22.5 ticks -> 22 ticks = 0.7333 s) -> 0.9833 s */
    tick_n(a.inst, w, 1, 22);
    assert_int_equal(bsync_instance_pose(a.inst, p, NULL), BSYNC_OK);
    assert_true(abs(p[0].t.x - dfx(0.25 + 22.0 / 30.0)) <= 2);
    tick_n(a.inst, w, 1, 1); /* wraps: 1.0167 s -> 0.0167 s */
    assert_int_equal(bsync_instance_pose(a.inst, p, NULL), BSYNC_OK);
    assert_true(abs(p[0].t.x - dfx(0.25 + 23.0 / 30.0 - 1.0)) <= 2);
    world_free(&a);
}

/* A time scale of 2 on a synchronised child halves its share of the cycle length:
 * L = 0.5 * 1.2 / 1 + 0.5 * 0.8 / 2 = 0.8 (vector case 4, by hand). */
static void test_time_scale_in_length(void** state) {
    (void)state;
    fix16_t l[2] = {dfx(1.2), dfx(0.8)}, w[2] = {BSYNC_FX_HALF, BSYNC_FX_HALF}, s[2] = {BSYNC_FX_ONE, 2 * BSYNC_FX_ONE};
    world a;
    world_direct(&a, 2, l, w, s, NULL, BSYNC_SYNC_NORMALIZED, 60);
    /* raw: 0.5 * 78643 = 39321.5 -> 39322 (rounded), 0.5 * 52429 / 2 = 13107.25 -> 13107: 52429 */
    assert_int_equal(bsync_instance_node_length(a.inst, 0), 39322 + 13107);
    world_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_exact_phase_after_one_second),
        cmocka_unit_test(test_nested_sync_shares_phase),
        cmocka_unit_test(test_sync_none),
        cmocka_unit_test(test_cycle_offset),
        cmocka_unit_test(test_time_scale_in_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
