/* test_graph_plans.c — the graph's sample plans (graph.c: one bsync_sample_plan per distinct clip over
 * the skeleton's rest pose, in the graph block, shared by every instance) and the pose paths that use
 * them (instance_pose.c: planned sampling, one sample for two slots bound to one clip at one time, an
 * override layer of weight 1.0 done as a per-joint copy).
 *
 * The reference is independent of instance_pose.c: every tick the pose is rebuilt from public calls
 * only, as docs/instance.md "Sampling (pose)" and "Layers" state the rule: each contributing slot
 * sampled with bsync_clip_sample (no plan, no cursor) at bsync_time_seconds of its node's sampling
 * phase, the samples blended by bsync_pose_blend in slot order with the leaf / node weights, and each
 * override layer blended over it with bsync_pose_blend and the layer's mask (the blend the instance
 * did before it had plans). The clips are made so that plans matter: constant tracks (one key, two
 * equal keys), tracks on different key-time grids, and one clip whose tracks share one grid (sampled
 * without its plan there), one clip bound to two motions sampled at one time. Parameters ramp with a
 * smoothing filter, so weights cross between the clips (transitions) over 900 ticks.
 * Also: two instances of one graph ticked alternately with different inputs give exactly the poses
 * of instances on graphs of their own (the shared plans are read-only); a save/load copy continues
 * identically; the plans are in the graph's one allocation (a clip bound to two motions has one
 * plan: the graph is smaller by exactly that plan's size than with a separate copy of the clip), and
 * ticks and poses allocate nothing. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/clip.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/pose.h"
#include "blendsync/sample.h"
#include "blendsync/skeleton.h"
#include "blendsync/time.h"
#include "test_support.h"
#include "fixtures.h"

enum { J = 6, KMAX = 9, CLIPS = 4 };
/* params */
enum { P_SPEED = 0, P_MIX = 1, P_LW = 2, P_COUNT = 3 };
/* motions: a, b, a2 (bound to clip a again, or to a copy of it), c (one key-time grid), d */
enum { M_A = 0, M_B = 1, M_A2 = 2, M_C = 3, M_D = 4, M_COUNT = 5 };
/* nodes: 0 root Simple1D(speed) [a, inner, b]; 1 inner Simple1D(mix) [a2, c];
 *        2 lay Simple1D(mix) [b, d] (no parent: its own phase) */
enum { N_ROOT = 0, N_INNER = 1, N_LAY = 2, N_COUNT = 3 };

static bsync_skeleton* g_sk;
static bsync_clip* g_clips[CLIPS + 1]; /* a, b, c, d, and a copy of a */
static bsync_blend_tree* g_tree;
static bsync_pose_rule g_rule = BSYNC_POSE_RULE_NORMALIZED; /* the rule make_graph and the reference use */

static fix16_t rnd_fx(uint64_t* s, int32_t lo, int32_t hi) {
    return (fix16_t)(lo + (int32_t)(bsync_test_rand(s) % (uint64_t)(hi - lo + 1)));
}
static bsync_quat rnd_quat(uint64_t* s) { /* not unit: the clip builder normalises keys */
    bsync_quat q = bsync_quat_make(rnd_fx(s, -40000, 40000), rnd_fx(s, -40000, 40000), rnd_fx(s, -40000, 40000),
                                   rnd_fx(s, 20000, 65536));
    return q;
}
static bsync_vec3 rnd_vec(uint64_t* s) {
    return bsync_vec3_make(rnd_fx(s, -90000, 90000), rnd_fx(s, -90000, 90000), rnd_fx(s, -90000, 90000));
}

/* A clip over the 6 joints. shared_grid: every track on one grid of 7 keys; else per-track grids and
 * kinds chosen so that there are one-key tracks, two-equal-key tracks and animated tracks. */
static bsync_clip* make_clip(const char* name, fix16_t duration, uint64_t seed, int shared_grid) {
    static fix16_t times[3 * J][KMAX];
    static bsync_quat quats[3 * J][KMAX];
    static bsync_vec3 vecs[3 * J][KMAX];
    bsync_raw_track tracks[3 * J];
    uint32_t n = 0;
    uint64_t s = seed;
    for (uint32_t j = 0; j < J; j++) {
        for (uint32_t kind = 0; kind < 3; kind++) {
            /* which tracks exist: every rotation, translations of joints 0, 2, 4, 5, scales of 3, 5 */
            if (kind == 1 && !(j == 0 || j == 2 || j == 4 || j == 5)) continue;
            if (kind == 2 && !(j == 3 || j == 5)) continue;
            uint32_t keys;
            const uint32_t style = (uint32_t)((j * 3u + kind + seed) % 4u);
            if (shared_grid) keys = 7;
            else if (style == 0) keys = 1;               /* constant */
            else if (style == 1) keys = 2;               /* two equal keys (held) */
            else keys = 3 + (uint32_t)(bsync_test_rand(&s) % (KMAX - 3)); /* animated */
            for (uint32_t k = 0; k < keys; k++) {
                if (shared_grid || keys == 1) times[n][k] = keys == 1 ? duration / 3 : (fix16_t)((int64_t)duration * k / (keys - 1));
                else if (k == 0) times[n][k] = (fix16_t)(bsync_test_rand(&s) % 4000u);
                else times[n][k] = (fix16_t)((int64_t)duration * k / (keys - 1) - (int64_t)(bsync_test_rand(&s) % 3000u));
            }
            if (keys > 1 && !shared_grid) times[n][keys - 1] = duration - (fix16_t)(bsync_test_rand(&s) % 2u) * 1000;
            for (uint32_t k = 0; k < keys; k++) {
                if (keys == 2 && !shared_grid && k == 1) {
                    quats[n][1] = quats[n][0];
                    vecs[n][1] = vecs[n][0];
                    continue;
                }
                quats[n][k] = rnd_quat(&s);
                vecs[n][k] = kind == 2 ? bsync_vec3_make(rnd_fx(&s, 40000, 90000), rnd_fx(&s, 40000, 90000),
                                                         rnd_fx(&s, 40000, 90000))
                                       : rnd_vec(&s);
            }
            bsync_raw_track t;
            t.joint = j;
            t.kind = kind == 0 ? BSYNC_TRACK_ROTATION : kind == 1 ? BSYNC_TRACK_TRANSLATION : BSYNC_TRACK_SCALE;
            t.key_count = keys;
            t.times = times[n];
            t.vec3s = kind == 0 ? NULL : vecs[n];
            t.quats = kind == 0 ? quats[n] : NULL;
            tracks[n++] = t;
        }
    }
    bsync_clip_desc d = {name, duration, 1, tracks, n};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, g_sk, NULL, &c), BSYNC_OK);
    return c;
}

static int setup(void** state) {
    (void)state;
    bsync_joint_desc jd[J];
    static const char* names[J] = {"root", "spine", "head", "arm", "hand", "leg"};
    static const int32_t parents[J] = {BSYNC_NO_PARENT, 0, 1, 1, 3, 0};
    uint64_t s = 99;
    for (uint32_t j = 0; j < J; j++) {
        jd[j].name = names[j];
        jd[j].parent = parents[j];
        jd[j].rest.t = rnd_vec(&s);
        jd[j].rest.r = bsync_quat_normalize(rnd_quat(&s));
        jd[j].rest.s = bsync_vec3_make(BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE);
    }
    bsync_skeleton_desc sd = {jd, J};
    if (bsync_skeleton_create(&sd, NULL, &g_sk) != BSYNC_OK) return -1;
    g_clips[0] = make_clip("a", 65536, 1, 0);
    g_clips[1] = make_clip("b", 52429, 2, 0);         /* 0.8 s */
    g_clips[2] = make_clip("c", 85197, 3, 1);         /* 1.3 s, one key-time grid */
    g_clips[3] = make_clip("d", 98304, 4, 0);         /* 1.5 s */
    g_clips[4] = make_clip("a", 65536, 1, 0);         /* the same content as a, another block */

    static const char* pn[P_COUNT] = {"speed", "mix", "lw"};
    static const char* mn[M_COUNT] = {"a", "b", "a2", "c", "d"};
    static const fix16_t defaults[P_COUNT] = {0, 0, 0};
    static const fix16_t th3[3] = {0, BSYNC_FX_ONE, 2 * BSYNC_FX_ONE};
    static const fix16_t th2[2] = {0, BSYNC_FX_ONE};
    static const bsync_blend_child_ref c0[3] = {{BSYNC_CHILD_MOTION, M_A}, {BSYNC_CHILD_NODE, N_INNER}, {BSYNC_CHILD_MOTION, M_B}};
    static const bsync_blend_child_ref c1[2] = {{BSYNC_CHILD_MOTION, M_A2}, {BSYNC_CHILD_MOTION, M_C}};
    static const bsync_blend_child_ref c2[2] = {{BSYNC_CHILD_MOTION, M_B}, {BSYNC_CHILD_MOTION, M_D}};
    static const uint32_t p0[1] = {P_SPEED}, p1[1] = {P_MIX};
    bsync_blend_node_desc nodes[N_COUNT];
    memset(nodes, 0, sizeof nodes);
    const char* nn[N_COUNT] = {"root", "inner", "lay"};
    const bsync_blend_child_ref* cs[N_COUNT] = {c0, c1, c2};
    for (int i = 0; i < N_COUNT; i++) {
        nodes[i].name = nn[i];
        nodes[i].space.type = BSYNC_BLEND_SIMPLE_1D;
        nodes[i].space.child_count = i == 0 ? 3 : 2;
        nodes[i].space.thresholds = i == 0 ? th3 : th2;
        nodes[i].children = cs[i];
        nodes[i].params = i == 0 ? p0 : p1;
    }
    bsync_blend_tree_desc td = {pn, defaults, P_COUNT, mn, M_COUNT, nodes, N_COUNT, N_ROOT};
    if (bsync_blend_tree_create(&td, NULL, &g_tree, NULL, NULL) != BSYNC_OK) return -1;
    return 0;
}

static int teardown(void** state) {
    (void)state;
    bsync_blend_tree_destroy(g_tree);
    for (int i = 0; i <= CLIPS; i++) bsync_clip_destroy(g_clips[i]);
    bsync_skeleton_destroy(g_sk);
    return 0;
}

static const bsync_layer_bone k_arm_mask[1] = {{3, 1}}; /* arm and hand */

/* The graph: a2 bound to clip a itself (copy_a2 = 0) or to the copy of a. Layers: 0 override "lay" at
 * FIXED 1.0 under the arm mask; 1 override "inner" weighted by the filtered parameter lw, no mask. */
static bsync_graph* make_graph(int copy_a2, bsync_test_counting_allocator* counter) {
    const bsync_clip* clips[M_COUNT] = {g_clips[0], g_clips[1], copy_a2 ? g_clips[4] : g_clips[0], g_clips[2], g_clips[3]};
    bsync_param_filter_desc f[P_COUNT];
    memset(f, 0, sizeof f);
    f[P_SPEED].smooth_time = 16384; /* 0.25 s: the weights glide between the clips */
    bsync_graph_layer_desc layers[2];
    memset(layers, 0, sizeof layers);
    layers[0].node = N_LAY;
    layers[0].mode = BSYNC_LAYER_OVERRIDE;
    layers[0].weight_source = BSYNC_LAYER_WEIGHT_FIXED;
    layers[0].weight = BSYNC_FX_ONE;
    layers[0].mask = k_arm_mask;
    layers[0].mask_count = 1;
    layers[1].node = N_INNER;
    layers[1].mode = BSYNC_LAYER_OVERRIDE;
    layers[1].weight_source = BSYNC_LAYER_WEIGHT_PARAM;
    layers[1].weight_param = P_LW;
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    d.tree = g_tree;
    d.skeleton = g_sk;
    d.clips = clips;
    d.tick_rate = 30;
    d.filters = f;
    d.layers = layers;
    d.layer_count = 2;
    d.pose_rule = g_rule;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, counter ? &counter->allocator : NULL, &g), BSYNC_OK);
    return g;
}

/* Targets: speed sweeps 0 -> 2 -> 0 in steps, mix a slow triangle, lw steps through 0, 1, 0.5, 1.3
 * (clamped to 1), 1, 0.25. variant shifts the script (another character). */
static void script(uint32_t tick, uint32_t variant, fix16_t t[P_COUNT]) {
    static const fix16_t lw[6] = {0, BSYNC_FX_ONE, BSYNC_FX_ONE / 2, 85197, BSYNC_FX_ONE, BSYNC_FX_ONE / 4};
    const uint32_t k = tick + variant * 137u;
    const uint32_t tri = k % 240u;
    t[P_SPEED] = (fix16_t)((k / 40u) % 6u < 3u ? ((k / 40u) % 3u) * BSYNC_FX_ONE : (2u - (k / 40u) % 3u) * BSYNC_FX_ONE);
    t[P_MIX] = (fix16_t)((tri < 120u ? tri : 240u - tri) * (BSYNC_FX_ONE / 120));
    t[P_LW] = lw[(k / 53u) % 6u];
}

/* One slot of the reference: motion m at `phase`, bsync_clip_sample with no plan and no cursor; under
 * pose rule 2 the lerp sampler's rule written out (test_support.c, independent of sample.c). */
static void ref_sample(const bsync_graph* g, uint32_t m, uint32_t phase, bsync_trs* out) {
    const bsync_clip* clip = bsync_graph_motion_clip(g, m);
    bsync_clip_time t = bsync_time_start();
    t.phase = phase;
    const fix16_t sec = bsync_time_seconds(&t, bsync_clip_duration(clip), BSYNC_LOOP_WRAP);
    if (g_rule == BSYNC_POSE_RULE_LERPED) {
        bsync_test_rule_sample_lerp(clip, sec, BSYNC_LOOP_WRAP, bsync_skeleton_rest_pose(g_sk), J, out);
        return;
    }
    assert_int_equal(bsync_clip_sample(clip, sec, BSYNC_LOOP_WRAP, bsync_skeleton_rest_pose(g_sk), J, NULL, out),
                     BSYNC_OK);
}

/* bsync_pose_blend of motions ms[0..n) (samples at `phase`) with weights w (weight <= 0: skipped).
 * Under pose rule 2 (graph.h, pose.h's bsync_pose_blend_lerped written out): the same blend of the
 * lerped samples, except that one input of weight >= 1 is copied with bsync_quat_normalize applied
 * to every rotation. */
static void ref_blend(const bsync_graph* g, const uint32_t* ms, const fix16_t* w, uint32_t n, uint32_t phase,
                      bsync_trs* out) {
    bsync_trs samples[4][J];
    bsync_pose_input in[4];
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (w[i] <= 0) continue;
        ref_sample(g, ms[i], phase, samples[count]);
        in[count].local = samples[count];
        in[count].weight = w[i];
        in[count].joint_weights = NULL;
        count++;
    }
    assert_int_equal(bsync_pose_blend(bsync_skeleton_rest_pose(g_sk), J, count ? in : NULL, count, out), BSYNC_OK);
    if (g_rule == BSYNC_POSE_RULE_LERPED && count == 1 && in[0].weight >= BSYNC_FX_ONE)
        for (uint32_t j = 0; j < J; j++) out[j].r = bsync_quat_normalize(out[j].r);
}

/* The override layer rule (docs/instance.md "Layers") with bsync_pose_blend: pose = blend(pose with
 * weight 1 - w m_j, layer with w m_j). */
static void ref_override(bsync_trs* pose, const bsync_trs* layer, fix16_t w, const fix16_t* mask) {
    if (w <= 0) return;
    fix16_t inv[J];
    bsync_pose_input in[2];
    in[0].local = pose;
    in[1].local = layer;
    in[1].weight = w;
    in[1].joint_weights = mask;
    if (mask) {
        for (uint32_t j = 0; j < J; j++) inv[j] = BSYNC_FX_ONE - bsync_fx_mul(w, mask[j]);
        in[0].weight = BSYNC_FX_ONE;
        in[0].joint_weights = inv;
    } else {
        in[0].weight = BSYNC_FX_ONE - w;
        in[0].joint_weights = NULL;
    }
    bsync_trs out[J];
    assert_int_equal(bsync_pose_blend(bsync_skeleton_rest_pose(g_sk), J, in, 2, out), BSYNC_OK);
    memcpy(pose, out, sizeof out);
}

/* The instance's pose rebuilt from public calls (the instance's state is only read). */
static void reference_pose(const bsync_instance* inst, bsync_trs* out) {
    const bsync_graph* g = bsync_instance_graph(inst);
    const fix16_t* leaf = bsync_instance_leaf_weights(inst);
    const uint32_t base_m[4] = {M_A, M_B, M_A2, M_C}; /* slot order: root's motion children, then inner's */
    const fix16_t base_w[4] = {leaf[M_A], leaf[M_B], leaf[M_A2], leaf[M_C]};
    const uint32_t root_phase = bsync_instance_node_sample_phase(inst, N_ROOT);
    ref_blend(g, base_m, base_w, 4, root_phase, out);
    /* layer 0: "lay" at its own phase, mass 1.0, under the arm mask (arm 3 and its child hand 4) */
    const fix16_t mask[J] = {0, 0, 0, BSYNC_FX_ONE, BSYNC_FX_ONE, 0};
    bsync_trs lp[J];
    const uint32_t lay_m[2] = {M_B, M_D};
    ref_blend(g, lay_m, bsync_instance_node_weights(inst, N_LAY), 2, bsync_instance_node_sample_phase(inst, N_LAY), lp);
    ref_override(out, lp, BSYNC_FX_ONE, mask);
    /* layer 1: "inner" (driven by the root's phase), weight = filtered lw clamped to [0, 1] */
    fix16_t w = bsync_instance_parameter(inst, P_LW);
    w = w < 0 ? 0 : w > BSYNC_FX_ONE ? BSYNC_FX_ONE : w;
    const uint32_t inner_m[2] = {M_A2, M_C};
    assert_int_equal(bsync_instance_node_sample_phase(inst, N_INNER), root_phase);
    ref_blend(g, inner_m, bsync_instance_node_weights(inst, N_INNER), 2, root_phase, lp);
    ref_override(out, lp, w, NULL);
}

static void tick(bsync_instance* inst, uint32_t t, uint32_t variant) {
    fix16_t targets[P_COUNT];
    script(t, variant, targets);
    bsync_instance_input in = {targets, P_COUNT};
    assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
}

/* Planned poses equal the reference bit for bit, local and model, over 900 ticks of transitions,
 * for a2 bound to clip a itself (one plan, one sample for both slots) and to a copy of a. */
static void test_planned_pose_equals_reference(void** state) {
    (void)state;
    for (int copy = 0; copy < 2; copy++) {
        bsync_graph* g = make_graph(copy, NULL);
        void* mem;
        bsync_instance* inst = bsync_test_instance_new(g, &mem);
        uint32_t both_a = 0, lw_partial = 0, lay_mixed = 0;
        for (uint32_t t = 0; t < 900; t++) {
            tick(inst, t, 0);
            bsync_trs got[J], ref[J], gm[J], rm[J];
            assert_int_equal(bsync_instance_pose(inst, got, gm), BSYNC_OK);
            reference_pose(inst, ref);
            assert_memory_equal(got, ref, sizeof got);
            assert_int_equal(bsync_pose_local_to_model(bsync_skeleton_parents(g_sk), J, ref, 0, J, rm), BSYNC_OK);
            assert_memory_equal(gm, rm, sizeof gm);
            const fix16_t* leaf = bsync_instance_leaf_weights(inst);
            both_a += leaf[M_A] > 0 && leaf[M_A2] > 0;
            const fix16_t lw = bsync_instance_parameter(inst, P_LW);
            lw_partial += lw > 0 && lw < BSYNC_FX_ONE;
            const fix16_t* lwts = bsync_instance_node_weights(inst, N_LAY);
            lay_mixed += lwts[0] > 0 && lwts[1] > 0;
        }
        /* the script reached the cases it is there for */
        assert_true(both_a > 50);    /* clip a under two slots at once */
        assert_true(lw_partial > 50); /* the general layer blend, not only weights 0 and 1 */
        assert_true(lay_mixed > 50);
        free(mem);
        bsync_graph_destroy(g);
    }
}


/* Pose rule 2 (graph.h): the same graph made with BSYNC_POSE_RULE_LERPED poses as its reference says
 * (lerped samples written out, one normalisation per blended joint), bit for bit, over the same 900
 * ticks; it is a different graph (hash) whose rotations differ from rule 1's (these random keys are far
 * apart, so the two rules part by up to tenths of a radian here; test_sample_rule bounds it on real
 * data), with the same translations and scales. */
static void test_lerped_rule_pose_equals_reference(void** state) {
    (void)state;
    g_rule = BSYNC_POSE_RULE_LERPED;
    test_planned_pose_equals_reference(state);
    bsync_graph* g2 = make_graph(0, NULL);
    g_rule = BSYNC_POSE_RULE_NORMALIZED;
    bsync_graph* g1 = make_graph(0, NULL);
    assert_int_equal(bsync_graph_pose_rule(g2), BSYNC_POSE_RULE_LERPED);
    assert_int_equal(bsync_graph_pose_rule(g1), BSYNC_POSE_RULE_NORMALIZED);
    assert_true(bsync_graph_hash(g1) != bsync_graph_hash(g2));
    void *m1, *m2;
    bsync_instance* i1 = bsync_test_instance_new(g1, &m1);
    bsync_instance* i2 = bsync_test_instance_new(g2, &m2);
    uint32_t differ = 0;
    double worst = 0;
    for (uint32_t t = 0; t < 900; t++) {
        tick(i1, t, 1);
        tick(i2, t, 1);
        bsync_trs p1[J], p2[J];
        assert_int_equal(bsync_instance_pose(i1, p1, NULL), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(i2, p2, NULL), BSYNC_OK);
        if (memcmp(p1, p2, sizeof p1)) differ++;
        for (uint32_t j = 0; j < J; j++) {
            assert_memory_equal(&p1[j].t, &p2[j].t, sizeof p1[j].t); /* translations and scales: the same rule */
            assert_memory_equal(&p1[j].s, &p2[j].s, sizeof p1[j].s);
            const double d = bsync_test_quat_angle(p1[j].r, p2[j].r);
            if (d > worst) worst = d;
        }
    }
    assert_true(differ > 100);
    print_message("rule 2 vs rule 1: %u of 900 poses differ, max %.3f rad\n", (unsigned)differ, worst);
    assert_true(worst > 0);
    free(m1);
    free(m2);
    bsync_graph_destroy(g1);
    bsync_graph_destroy(g2);
}

/* Two instances of one graph ticked alternately with different scripts: each gives exactly the poses
 * of an instance on a graph of its own; a saved and loaded copy of one continues identically. */
static void test_instances_share_plans_without_interference(void** state) {
    (void)state;
    bsync_graph* shared = make_graph(0, NULL);
    bsync_graph* own0 = make_graph(0, NULL);
    bsync_graph* own1 = make_graph(0, NULL);
    void *m0, *m1, *r0, *r1, *mc = NULL;
    bsync_instance* a = bsync_test_instance_new(shared, &m0);
    bsync_instance* b = bsync_test_instance_new(shared, &m1);
    bsync_instance* ra = bsync_test_instance_new(own0, &r0);
    bsync_instance* rb = bsync_test_instance_new(own1, &r1);
    bsync_instance* copy = NULL;
    uint8_t snap[8192];
    for (uint32_t t = 0; t < 600; t++) {
        tick(a, t, 0);
        tick(ra, t, 0);
        bsync_trs pa[J], pra[J], pb[J], prb[J];
        assert_int_equal(bsync_instance_pose(a, pa, NULL), BSYNC_OK);
        tick(b, t, 1); /* between a's tick and a's second pose */
        assert_int_equal(bsync_instance_pose(b, pb, NULL), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(ra, pra, NULL), BSYNC_OK);
        assert_memory_equal(pa, pra, sizeof pa);
        tick(rb, t, 1);
        assert_int_equal(bsync_instance_pose(rb, prb, NULL), BSYNC_OK);
        assert_memory_equal(pb, prb, sizeof pb);
        bsync_trs again[J];
        assert_int_equal(bsync_instance_pose(a, again, NULL), BSYNC_OK); /* b's pose did not disturb a */
        assert_memory_equal(again, pa, sizeof pa);
        if (t == 250) {
            size_t len = 0;
            assert_int_equal(bsync_instance_save(a, snap, sizeof snap, &len), BSYNC_OK);
            copy = bsync_test_instance_new(shared, &mc);
            assert_int_equal(bsync_instance_load(copy, snap, len), BSYNC_OK);
        } else if (copy) {
            tick(copy, t, 0);
            bsync_trs pc[J];
            assert_int_equal(bsync_instance_pose(copy, pc, NULL), BSYNC_OK);
            assert_memory_equal(pc, pa, sizeof pa);
        }
    }
    assert_non_null(copy);
    free(m0);
    free(m1);
    free(r0);
    free(r1);
    free(mc);
    bsync_graph_destroy(shared);
    bsync_graph_destroy(own0);
    bsync_graph_destroy(own1);
}

/* The plans live in the graph's one allocation, one per distinct clip: binding a2 to a copy of clip a
 * instead of a itself adds exactly one more plan of a's size (an 8-aligned bsync_sample_plan_memory_size);
 * ticks and poses allocate nothing. */
static void test_plans_in_the_graph_block(void** state) {
    (void)state;
    bsync_test_counting_allocator c1, c2;
    bsync_test_counting_allocator_init(&c1);
    bsync_test_counting_allocator_init(&c2);
    bsync_graph* one = make_graph(0, &c1);
    bsync_graph* two = make_graph(1, &c2);
    assert_int_equal(c1.allocs, 1);
    assert_int_equal(c2.allocs, 1);
    const size_t plan_a = (bsync_sample_plan_memory_size(g_clips[0]) + 7u) & ~(size_t)7u;
    assert_true(plan_a > 0);
    assert_int_equal(c2.live_bytes - c1.live_bytes, plan_a);
    /* every distinct clip's plan is counted: the graph is at least their sum larger than the plain
     * arrays could be without them (a lower bound independent of the layout) */
    size_t plans = 0;
    for (int i = 0; i < CLIPS; i++) plans += bsync_sample_plan_memory_size(g_clips[i]);
    assert_true(c1.live_bytes > plans);
    assert_int_equal(bsync_graph_hash(one), bsync_graph_hash(two)); /* the same content: the same graph */
    void* mem;
    bsync_instance* inst = bsync_test_instance_new(one, &mem);
    for (uint32_t t = 0; t < 120; t++) {
        tick(inst, t, 2);
        bsync_trs p[J], m[J];
        assert_int_equal(bsync_instance_pose(inst, p, m), BSYNC_OK);
    }
    assert_int_equal(c1.allocs, 1);
    free(mem);
    bsync_graph_destroy(one);
    bsync_graph_destroy(two);
    assert_int_equal(c1.live_bytes, 0);
    assert_int_equal(c2.live_bytes, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planned_pose_equals_reference),
        cmocka_unit_test(test_lerped_rule_pose_equals_reference),
        cmocka_unit_test(test_instances_share_plans_without_interference),
        cmocka_unit_test(test_plans_in_the_graph_block),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
