/* test_layers.c — layer stacks on graphs (graph.h bsync_graph_desc.layers, docs/instance.md "Layers") on the
 * procedural humanoid. Expectations are independent: the base pose is an instance of the same tree
 * WITHOUT layers, the layer's own pose is an instance of the same nodes with the layer node as the
 * tree's root (the same clocks: an unreferenced node runs on its own phase either way), lerps are
 * worked in double precision, masks are written out joint by joint from the skeleton's hierarchy.
 * Covered: weight 0 (bit-identical to no layers), weight 1 override under a left-arm mask with
 * descendants (masked joints = layer, others = base, bit for bit), weight 0.5 (a double-precision lerp
 * within a raw step), a mask without descendants, additive of a rest-pose layer (no change) and of a
 * moving layer (translation = base + layer - rest, exact), parameter-driven weight following the
 * filtered parameter (clamped), hash sensitivity and canonical masks, build errors, no allocation per
 * tick, save -> load -> replay identical. */
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
#include "fixtures.h"

enum { J = 23, UPPERARM_L = 8, LOWERARM_L = 9, HAND_L = 10, CLAVICLE_L = 7, PELVIS = 1 };

static bsync_procedural_humanoid g_h;
static bsync_blend_tree* g_tree_base;  /* root "base" */
static bsync_blend_tree* g_tree_arms;  /* the same nodes, root "arms" */
static bsync_blend_tree* g_tree_rest;  /* the same nodes, root "restnode" */

/* Params: speed, armw (only a layer reads it), mix. Motions: idle, walk, run, none (no clip), none2.
 * Nodes: 0 "base" = Simple1D(speed) [walk 0, run 1]; 1 "arms" = Simple1D(mix) [idle 0, run 1];
 * 2 "restnode" = Simple1D(mix) [none 0, none2 1] (no clip data: its pose is the rest pose). */
static bsync_blend_tree* make_tree(uint32_t root) {
    static const char* pn[3] = {"speed", "armw", "mix"};
    static const char* mn[5] = {"idle", "walk", "run", "none", "none2"};
    static const fix16_t defaults[3] = {0, 0, 0};
    static const fix16_t th[2] = {0, BSYNC_FX_ONE};
    static const bsync_blend_child_ref c0[2] = {{BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    static const bsync_blend_child_ref c1[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 2}};
    static const bsync_blend_child_ref c2[2] = {{BSYNC_CHILD_MOTION, 3}, {BSYNC_CHILD_MOTION, 4}};
    static const uint32_t p0[1] = {0}, p2[1] = {2};
    bsync_blend_node_desc nodes[3];
    memset(nodes, 0, sizeof nodes);
    const char* names[3] = {"base", "arms", "restnode"};
    const bsync_blend_child_ref* cs[3] = {c0, c1, c2};
    const uint32_t* ps[3] = {p0, p2, p2};
    for (int i = 0; i < 3; i++) {
        nodes[i].name = names[i];
        nodes[i].space.type = BSYNC_BLEND_SIMPLE_1D;
        nodes[i].space.child_count = 2;
        nodes[i].space.thresholds = th;
        nodes[i].children = cs[i];
        nodes[i].params = ps[i];
    }
    bsync_blend_tree_desc td = {pn, defaults, 3, mn, 5, nodes, 3, root};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

static void make_desc(bsync_graph_desc* d, const bsync_blend_tree* tree, const bsync_param_filter_desc* f,
                      const bsync_clip** clips) {
    memset(d, 0, sizeof *d);
    clips[0] = g_h.clips[0];
    clips[1] = g_h.clips[1];
    clips[2] = g_h.clips[2];
    clips[3] = NULL;
    clips[4] = NULL;
    d->tree = tree;
    d->skeleton = g_h.skeleton;
    d->clips = clips;
    d->tick_rate = 30;
    d->filters = f;
}

/* filters: armw gets SmoothDamp 0.25 s (so its filtered value lags its target), others none */
static void make_filters(bsync_param_filter_desc f[3]) {
    memset(f, 0, 3 * sizeof *f);
    f[1].smooth_time = 16384;
}

static bsync_graph* graph_with(const bsync_blend_tree* tree, const bsync_graph_layer_desc* layers, uint32_t n,
                               const bsync_allocator* a) {
    bsync_param_filter_desc f[3];
    make_filters(f);
    const bsync_clip* clips[5];
    bsync_graph_desc d;
    make_desc(&d, tree, f, clips);
    d.layers = layers;
    d.layer_count = n;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, a, &g), BSYNC_OK);
    return g;
}

static int setup(void** state) {
    (void)state;
    if (bsync_procedural_humanoid_create(NULL, &g_h) != BSYNC_OK) return -1;
    g_tree_base = make_tree(0);
    g_tree_arms = make_tree(1);
    g_tree_rest = make_tree(2);
    return 0;
}
static int teardown(void** state) {
    (void)state;
    bsync_blend_tree_destroy(g_tree_base);
    bsync_blend_tree_destroy(g_tree_arms);
    bsync_blend_tree_destroy(g_tree_rest);
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

/* Scripted targets: speed sweeps 0..1, armw steps 0 -> 1 -> 0.5 -> 1.6 -> -0.4, mix 0 mostly. */
static void script(uint32_t tick, fix16_t t[3]) {
    static const fix16_t armw[5] = {0, BSYNC_FX_ONE, BSYNC_FX_ONE / 2, 104858 /* 1.6 */, -26214 /* -0.4 */};
    t[0] = (fix16_t)((tick * 1237u) % 65537u);
    t[1] = armw[(tick / 23u) % 5u];
    t[2] = (tick / 41u) % 3u == 2u ? (fix16_t)((tick * 911u) % 65537u) : 0;
}

/* Three instances (layered, base-only, layer-root) ticked together. */
typedef struct trio {
    bsync_graph *gl, *gb, *ga;
    bsync_instance *il, *ib, *ia;
    void *ml, *mb, *ma;
} trio;

static void trio_open(trio* t, const bsync_graph_layer_desc* layers, uint32_t n, const bsync_blend_tree* layer_tree) {
    t->gl = graph_with(g_tree_base, layers, n, NULL);
    t->gb = graph_with(g_tree_base, NULL, 0, NULL);
    t->ga = graph_with(layer_tree, NULL, 0, NULL);
    t->il = bsync_test_instance_new(t->gl, &t->ml);
    t->ib = bsync_test_instance_new(t->gb, &t->mb);
    t->ia = bsync_test_instance_new(t->ga, &t->ma);
}
static void trio_close(trio* t) {
    free(t->ml); free(t->mb); free(t->ma);
    bsync_graph_destroy(t->gl); bsync_graph_destroy(t->gb); bsync_graph_destroy(t->ga);
}
static void trio_tick(trio* t, uint32_t k) {
    fix16_t x[3];
    script(k, x);
    bsync_instance_input in = {x, 3};
    assert_int_equal(bsync_instance_tick(t->il, &in), BSYNC_OK);
    assert_int_equal(bsync_instance_tick(t->ib, &in), BSYNC_OK);
    assert_int_equal(bsync_instance_tick(t->ia, &in), BSYNC_OK);
}
static void trio_poses(trio* t, bsync_trs* layered, bsync_trs* base, bsync_trs* layer) {
    assert_int_equal(bsync_instance_pose(t->il, layered, NULL), BSYNC_OK);
    assert_int_equal(bsync_instance_pose(t->ib, base, NULL), BSYNC_OK);
    assert_int_equal(bsync_instance_pose(t->ia, layer, NULL), BSYNC_OK);
}

static const bsync_layer_bone k_left_arm[1] = {{UPPERARM_L, 1}};

static bsync_graph_layer_desc layer_fixed(uint32_t node, bsync_layer_mode mode, fix16_t w,
                                          const bsync_layer_bone* mask, uint32_t mask_count) {
    bsync_graph_layer_desc l;
    memset(&l, 0, sizeof l);
    l.node = node;
    l.mode = mode;
    l.weight_source = BSYNC_LAYER_WEIGHT_FIXED;
    l.weight = w;
    l.mask = mask;
    l.mask_count = mask_count;
    return l;
}

static void test_weight_zero_is_the_base(void** state) {
    (void)state;
    bsync_graph_layer_desc l[2] = {layer_fixed(1, BSYNC_LAYER_OVERRIDE, 0, k_left_arm, 1),
                                   layer_fixed(1, BSYNC_LAYER_ADDITIVE, 0, NULL, 0)};
    trio t;
    trio_open(&t, l, 2, g_tree_arms);
    assert_int_equal(bsync_graph_layer_count(t.gl), 2);
    static bsync_trs pl[J], pb[J], pa[J];
    for (uint32_t k = 0; k < 120; k++) {
        trio_tick(&t, k);
        trio_poses(&t, pl, pb, pa);
        assert_memory_equal(pl, pb, sizeof pl);
        assert_true(bsync_instance_state_checksum(t.il) == bsync_instance_state_checksum(t.ib));
    }
    trio_close(&t);
}

/* The left-arm mask by the hierarchy: upperarm_l and every joint whose parent chain reaches it. */
static int in_left_arm(uint32_t j) {
    const int16_t* parents = bsync_skeleton_parents(g_h.skeleton);
    for (int32_t k = (int32_t)j; k >= 0; k = parents[k])
        if (k == UPPERARM_L) return 1;
    return 0;
}

static void test_override_weight_one_left_arm(void** state) {
    (void)state;
    uint32_t found;
    assert_int_equal(bsync_skeleton_find(g_h.skeleton, "upperarm_l", &found), BSYNC_OK);
    assert_int_equal(found, UPPERARM_L);
    assert_true(in_left_arm(LOWERARM_L) && in_left_arm(HAND_L) && !in_left_arm(CLAVICLE_L));
    bsync_graph_layer_desc l = layer_fixed(1, BSYNC_LAYER_OVERRIDE, BSYNC_FX_ONE, k_left_arm, 1);
    trio t;
    trio_open(&t, &l, 1, g_tree_arms);
    static bsync_trs pl[J], pb[J], pa[J], model[J], want_model[J];
    uint32_t arm_differs = 0;
    for (uint32_t k = 0; k < 150; k++) {
        trio_tick(&t, k);
        trio_poses(&t, pl, pb, pa);
        for (uint32_t j = 0; j < J; j++) {
            if (in_left_arm(j)) {
                assert_memory_equal(&pl[j], &pa[j], sizeof(bsync_trs));
                if (memcmp(&pa[j], &pb[j], sizeof(bsync_trs)) != 0) arm_differs++;
            } else {
                assert_memory_equal(&pl[j], &pb[j], sizeof(bsync_trs));
            }
        }
        /* the joint query and the model pose agree with the layered local pose */
        assert_int_equal(bsync_instance_pose(t.il, pl, model), BSYNC_OK);
        assert_int_equal(bsync_pose_local_to_model(bsync_skeleton_parents(g_h.skeleton), J, pl, 0, J, want_model),
                         BSYNC_OK);
        assert_memory_equal(model, want_model, sizeof model);
        uint32_t q = HAND_L;
        bsync_trs qm;
        assert_int_equal(bsync_instance_joint_query(t.il, &q, 1, &qm), BSYNC_OK);
        assert_memory_equal(&qm, &want_model[HAND_L], sizeof qm);
    }
    assert_true(arm_differs > 100); /* the test would notice a layer that does nothing */
    trio_close(&t);
}

/* round(x) with ties away from zero, in raw steps */
static int32_t round_away(double x) { return (int32_t)(x < 0 ? -floor(-x + 0.5) : floor(x + 0.5)); }

static void test_override_half_weight_is_a_lerp(void** state) {
    (void)state;
    bsync_graph_layer_desc l = layer_fixed(1, BSYNC_LAYER_OVERRIDE, BSYNC_FX_ONE / 2, NULL, 0);
    trio t;
    trio_open(&t, &l, 1, g_tree_arms);
    static bsync_trs pl[J], pb[J], pa[J];
    uint32_t pelvis_moved = 0;
    for (uint32_t k = 0; k < 90; k++) {
        trio_tick(&t, k);
        trio_poses(&t, pl, pb, pa);
        for (uint32_t j = 0; j < J; j++) {
            const fix16_t* b = &pb[j].t.x;
            const fix16_t* a = &pa[j].t.x;
            const fix16_t* o = &pl[j].t.x;
            for (int c = 0; c < 3; c++) assert_int_equal(o[c], round_away(0.5 * b[c] + 0.5 * a[c]));
            /* rotation: normalised 0.5 qb + 0.5 qa (qa on qb's hemisphere), within a raw step */
            double qb[4] = {pb[j].r.x, pb[j].r.y, pb[j].r.z, pb[j].r.w};
            double qa[4] = {pa[j].r.x, pa[j].r.y, pa[j].r.z, pa[j].r.w};
            double dot = qb[0] * qa[0] + qb[1] * qa[1] + qb[2] * qa[2] + qb[3] * qa[3];
            double s = dot < 0 ? -1.0 : 1.0, m[4], n2 = 0;
            for (int c = 0; c < 4; c++) { m[c] = 0.5 * qb[c] + 0.5 * s * qa[c]; n2 += m[c] * m[c]; }
            const fix16_t got[4] = {pl[j].r.x, pl[j].r.y, pl[j].r.z, pl[j].r.w};
            for (int c = 0; c < 4; c++) assert_true(fabs(got[c] - 65536.0 * m[c] / sqrt(n2)) <= 1.0);
        }
        if (pb[PELVIS].t.y != pa[PELVIS].t.y) pelvis_moved++;
    }
    assert_true(pelvis_moved > 60);
    trio_close(&t);
}

static void test_mask_without_descendants(void** state) {
    (void)state;
    static const bsync_layer_bone only[1] = {{UPPERARM_L, 0}};
    bsync_graph_layer_desc l = layer_fixed(1, BSYNC_LAYER_OVERRIDE, BSYNC_FX_ONE, only, 1);
    trio t;
    trio_open(&t, &l, 1, g_tree_arms);
    static bsync_trs pl[J], pb[J], pa[J];
    uint32_t differs = 0;
    for (uint32_t k = 0; k < 90; k++) {
        trio_tick(&t, k);
        trio_poses(&t, pl, pb, pa);
        for (uint32_t j = 0; j < J; j++)
            assert_memory_equal(&pl[j], j == UPPERARM_L ? &pa[j] : &pb[j], sizeof(bsync_trs));
        if (memcmp(&pa[LOWERARM_L], &pb[LOWERARM_L], sizeof(bsync_trs)) != 0) differs++;
    }
    assert_true(differs > 60); /* the lower arm would have changed had descendants been included */
    trio_close(&t);
}

static void test_additive(void** state) {
    (void)state;
    /* a layer whose pose is the rest pose (motions without clips) adds nothing, at any weight */
    bsync_graph_layer_desc l = layer_fixed(2, BSYNC_LAYER_ADDITIVE, BSYNC_FX_ONE, NULL, 0);
    trio t;
    trio_open(&t, &l, 1, g_tree_rest);
    static bsync_trs pl[J], pb[J], pa[J];
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_h.skeleton);
    for (uint32_t k = 0; k < 60; k++) {
        trio_tick(&t, k);
        trio_poses(&t, pl, pb, pa);
        assert_memory_equal(pa, rest, sizeof pa);
        assert_memory_equal(pl, pb, sizeof pl);
    }
    trio_close(&t);
    /* a moving layer at weight 1: translation = base + (layer - rest), exactly, on every joint */
    l = layer_fixed(1, BSYNC_LAYER_ADDITIVE, BSYNC_FX_ONE, NULL, 0);
    trio_open(&t, &l, 1, g_tree_arms);
    for (uint32_t k = 0; k < 60; k++) {
        trio_tick(&t, k);
        trio_poses(&t, pl, pb, pa);
        for (uint32_t j = 0; j < J; j++) {
            assert_int_equal(pl[j].t.x, pb[j].t.x + pa[j].t.x - rest[j].t.x);
            assert_int_equal(pl[j].t.y, pb[j].t.y + pa[j].t.y - rest[j].t.y);
            assert_int_equal(pl[j].t.z, pb[j].t.z + pa[j].t.z - rest[j].t.z);
        }
    }
    trio_close(&t);
}

static void test_parameter_weight_follows_filtered_value(void** state) {
    (void)state;
    bsync_graph_layer_desc l = layer_fixed(1, BSYNC_LAYER_OVERRIDE, 0, k_left_arm, 1);
    l.weight_source = BSYNC_LAYER_WEIGHT_PARAM;
    l.weight_param = 1;
    trio t;
    trio_open(&t, &l, 1, g_tree_arms);
    static bsync_trs pl[J], pb[J], pa[J], want[J];
    static fix16_t mask[J], inv[J];
    uint32_t lagging = 0, clamped_hi = 0, clamped_lo = 0, between = 0;
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_h.skeleton);
    for (uint32_t k = 0; k < 5 * 23 * 2; k++) {
        trio_tick(&t, k);
        trio_poses(&t, pl, pb, pa);
        const fix16_t v = bsync_instance_parameter(t.il, 1);
        if (v != bsync_instance_target(t.il, 1)) lagging++;
        const fix16_t w = v < 0 ? 0 : v > BSYNC_FX_ONE ? BSYNC_FX_ONE : v;
        if (v >= BSYNC_FX_ONE) {
            clamped_hi++;
            for (uint32_t j = 0; j < J; j++) assert_memory_equal(&pl[j], in_left_arm(j) ? &pa[j] : &pb[j], sizeof(bsync_trs));
        } else if (v <= 0) {
            clamped_lo++;
            assert_memory_equal(pl, pb, sizeof pl);
        } else {
            between++;
            /* the documented formula with the filtered weight */
            for (uint32_t j = 0; j < J; j++) {
                mask[j] = in_left_arm(j) ? BSYNC_FX_ONE : 0;
                inv[j] = BSYNC_FX_ONE - (in_left_arm(j) ? w : 0);
            }
            bsync_pose_input in[2] = {{pb, BSYNC_FX_ONE, inv}, {pa, w, mask}};
            assert_int_equal(bsync_pose_blend(rest, J, in, 2, want), BSYNC_OK);
            assert_memory_equal(pl, want, sizeof pl);
            for (uint32_t j = 0; j < J; j++)
                if (!in_left_arm(j)) assert_memory_equal(&pl[j], &pb[j], sizeof(bsync_trs));
        }
    }
    assert_true(lagging > 50 && clamped_hi > 5 && clamped_lo > 5 && between > 50);
    trio_close(&t);
}

static uint64_t hash_of(const bsync_graph_layer_desc* l, uint32_t n) {
    bsync_graph* g = graph_with(g_tree_base, l, n, NULL);
    const uint64_t h = bsync_graph_hash(g);
    bsync_graph_destroy(g);
    return h;
}

static void test_hash(void** state) {
    (void)state;
    bsync_param_filter_desc f[3];
    make_filters(f);
    const bsync_clip* clips[5];
    bsync_graph_desc d;
    make_desc(&d, g_tree_base, f, clips);
    bsync_graph* plain = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &plain), BSYNC_OK);
    assert_int_equal(bsync_graph_layer_count(plain), 0);
    const uint64_t h0 = hash_of(NULL, 0);
    assert_true(bsync_graph_hash(plain) == h0);
    bsync_graph_destroy(plain);

    const bsync_graph_layer_desc base = layer_fixed(1, BSYNC_LAYER_OVERRIDE, BSYNC_FX_ONE / 2, k_left_arm, 1);
    const uint64_t h1 = hash_of(&base, 1);
    assert_true(h1 != h0);
    assert_true(hash_of(&base, 1) == h1); /* equal inputs, equal hashes */
    /* the same joints listed one by one: the built table is what is hashed */
    static const bsync_layer_bone listed[3] = {{HAND_L, 0}, {UPPERARM_L, 0}, {LOWERARM_L, 0}};
    bsync_graph_layer_desc v = base;
    v.mask = listed;
    v.mask_count = 3;
    assert_true(hash_of(&v, 1) == h1);
    static const bsync_layer_bone right[1] = {{12, 1}}, no_desc[1] = {{UPPERARM_L, 0}};
    v = base; v.mask = right; assert_true(hash_of(&v, 1) != h1);
    v = base; v.mask = no_desc; assert_true(hash_of(&v, 1) != h1);
    v = base; v.mask = NULL; v.mask_count = 0; assert_true(hash_of(&v, 1) != h1);
    v = base; v.weight = BSYNC_FX_ONE / 2 + 1; assert_true(hash_of(&v, 1) != h1);
    v = base; v.mode = BSYNC_LAYER_ADDITIVE; assert_true(hash_of(&v, 1) != h1);
    v = base; v.node = 2; assert_true(hash_of(&v, 1) != h1);
    v = base; v.weight_source = BSYNC_LAYER_WEIGHT_PARAM; v.weight_param = 1; assert_true(hash_of(&v, 1) != h1);
    bsync_graph_layer_desc two[2] = {base, base};
    assert_true(hash_of(two, 2) != h1);
}

static void test_build_errors(void** state) {
    (void)state;
    bsync_param_filter_desc f[3];
    make_filters(f);
    const bsync_clip* clips[5];
    bsync_graph_desc d;
    make_desc(&d, g_tree_base, f, clips);
    bsync_graph* g = NULL;
    bsync_graph_layer_desc l = layer_fixed(1, BSYNC_LAYER_OVERRIDE, BSYNC_FX_ONE, k_left_arm, 1);
    d.layers = NULL;
    d.layer_count = 1;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    bsync_graph_layer_desc v = l; v.node = 3;
    d.layers = &v;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    v = l; v.mode = (bsync_layer_mode)2;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    v = l; v.weight = BSYNC_FX_ONE + 1;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    v = l; v.weight = -1;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    v = l; v.weight_source = BSYNC_LAYER_WEIGHT_PARAM; v.weight_param = 3;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    v = l; v.weight_source = (bsync_layer_weight_source)2;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    v = l; v.mask = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    static const bsync_layer_bone bad_joint[1] = {{J, 0}}, bad_flag[1] = {{UPPERARM_L, 2}};
    v = l; v.mask = bad_joint;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    v = l; v.mask = bad_flag;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
    bsync_graph_layer_desc many[BSYNC_GRAPH_MAX_LAYERS + 1];
    for (uint32_t i = 0; i <= BSYNC_GRAPH_MAX_LAYERS; i++) many[i] = l;
    d.layers = many;
    d.layer_count = BSYNC_GRAPH_MAX_LAYERS + 1;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_LIMIT_EXCEEDED);
    bsync_graph_desc noskel = d;
    noskel.skeleton = NULL;
    noskel.clips = NULL;
    noskel.layers = &l;
    noskel.layer_count = 1;
    assert_int_equal(bsync_graph_create(&noskel, NULL, &g), BSYNC_INVALID_ARGUMENT);
    assert_null(g);
    d.layer_count = BSYNC_GRAPH_MAX_LAYERS;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_OK);
    assert_int_equal(bsync_graph_layer_count(g), BSYNC_GRAPH_MAX_LAYERS);
    bsync_graph_destroy(g);
    assert_int_equal(bsync_graph_layer_count(NULL), 0);
}

static void test_no_allocation_per_tick(void** state) {
    (void)state;
    bsync_test_counting_allocator ca;
    bsync_test_counting_allocator_init(&ca);
    bsync_graph_layer_desc l[2] = {layer_fixed(1, BSYNC_LAYER_OVERRIDE, BSYNC_FX_ONE / 3, k_left_arm, 1),
                                   layer_fixed(1, BSYNC_LAYER_ADDITIVE, 0, NULL, 0)};
    l[1].weight_source = BSYNC_LAYER_WEIGHT_PARAM;
    l[1].weight_param = 1;
    bsync_graph* g = graph_with(g_tree_base, l, 2, &ca.allocator);
    assert_int_equal(ca.allocs, 1);
    void* mem;
    bsync_instance* inst = bsync_test_instance_new(g, &mem);
    static bsync_trs local[J], model[J];
    for (uint32_t k = 0; k < 2000; k++) {
        fix16_t x[3];
        script(k, x);
        bsync_instance_input in = {x, 3};
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(inst, local, model), BSYNC_OK);
    }
    assert_int_equal(ca.allocs, 1);
    assert_int_equal(ca.frees, 0);
    free(mem);
    bsync_graph_destroy(g);
    assert_int_equal(ca.frees, 1);
}

static void test_save_load_replay(void** state) {
    (void)state;
    bsync_graph_layer_desc l[2] = {layer_fixed(1, BSYNC_LAYER_OVERRIDE, 0, k_left_arm, 1),
                                   layer_fixed(1, BSYNC_LAYER_ADDITIVE, BSYNC_FX_ONE / 4, NULL, 0)};
    l[0].weight_source = BSYNC_LAYER_WEIGHT_PARAM;
    l[0].weight_param = 1;
    bsync_graph* g = graph_with(g_tree_base, l, 2, NULL);
    bsync_graph* plain = graph_with(g_tree_base, NULL, 0, NULL);
    assert_int_equal(bsync_instance_snapshot_size(g), bsync_instance_snapshot_size(plain)); /* no new state */
    void *ma, *mb;
    bsync_instance* a = bsync_test_instance_new(g, &ma);
    bsync_instance* b = bsync_test_instance_new(g, &mb);
    const size_t cap = bsync_instance_snapshot_size(g);
    unsigned char* snap = malloc(cap);
    size_t n = 0;
    enum { SAVE_AT = 137, END = 400 };
    static uint64_t state_cs[END], pose_cs[END];
    for (uint32_t k = 0; k < END; k++) {
        if (k == SAVE_AT) assert_int_equal(bsync_instance_save(a, snap, cap, &n), BSYNC_OK);
        fix16_t x[3];
        script(k, x);
        bsync_instance_input in = {x, 3};
        assert_int_equal(bsync_instance_tick(a, &in), BSYNC_OK);
        state_cs[k] = bsync_instance_state_checksum(a);
        assert_int_equal(bsync_instance_pose_checksum(a, &pose_cs[k], NULL), BSYNC_OK);
    }
    assert_int_equal(n, cap);
    assert_int_equal(bsync_instance_load(b, snap, n), BSYNC_OK);
    for (uint32_t k = SAVE_AT; k < END; k++) {
        fix16_t x[3];
        script(k, x);
        bsync_instance_input in = {x, 3};
        assert_int_equal(bsync_instance_tick(b, &in), BSYNC_OK);
        uint64_t pc;
        assert_int_equal(bsync_instance_pose_checksum(b, &pc, NULL), BSYNC_OK);
        assert_true(bsync_instance_state_checksum(b) == state_cs[k]);
        assert_true(pc == pose_cs[k]);
    }
    /* a snapshot of the layered graph is refused by the graph without layers (hash) */
    void* mp;
    bsync_instance* p = bsync_test_instance_new(plain, &mp);
    assert_int_equal(bsync_instance_load(p, snap, n), BSYNC_MISMATCH);
    free(mp);
    free(snap);
    free(ma);
    free(mb);
    bsync_graph_destroy(g);
    bsync_graph_destroy(plain);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_weight_zero_is_the_base),
        cmocka_unit_test(test_override_weight_one_left_arm),
        cmocka_unit_test(test_override_half_weight_is_a_lerp),
        cmocka_unit_test(test_mask_without_descendants),
        cmocka_unit_test(test_additive),
        cmocka_unit_test(test_parameter_weight_follows_filtered_value),
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_build_errors),
        cmocka_unit_test(test_no_allocation_per_tick),
        cmocka_unit_test(test_save_load_replay),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
