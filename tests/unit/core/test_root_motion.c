/* test_root_motion.c — root motion of a graph instance (graph.h root_motion / root_rotation / root_joint,
 * docs/instance.md "Root motion"). Expected values are hand-worked or computed here in double precision from
 * the clips' key values (the continuous motion the keys describe), never read back from the code:
 *   - a root moving 1.4 m per 1 s loop along +Z: every tick's delta is 1.4/rate within a raw step,
 *     including the ticks that wrap the loop mid-tick, and the deltas of one whole cycle sum to the
 *     clip's end translation exactly (no jump at the wrap);
 *   - several loop cycles in one tick (2.0 and 1.6 cycles per tick): exact whole-cycle sums;
 *   - a root turning 90 deg about +Y per cycle while moving along the clip's +Z: per-tick yaw and the
 *     translation rotated into the character frame match the continuous motion (wraps included), and
 *     four cycles of integrated deltas bring the character back to where it started;
 *   - YAW vs FULL on a clip with pitch; the pose's root joint in each mode;
 *   - the procedural humanoid's walk/run blend with EXTRACT: 10 s of integrated root motion equals the
 *     blend's speed x time within 5 mm, and the root joint stays put;
 *   - weights: zero-weight slots (phase still advancing) move nothing, unbound weight moves nothing,
 *     weights above 1 are normalised, rotations blend by weight;
 *   - save -> load -> replay gives identical deltas (the delta is recomputed on load, not stored);
 *   - KEEP leaves poses equal to sampling and blending by hand; NONE keeps the root at rest. */
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
#include "blendsync/skeleton.h"
#include "test_support.h"
#include "fixtures.h"

/* ------------------------------------------------------------------ double helpers (reference) */

typedef struct dq { double x, y, z, w; } dq;
typedef struct dv { double x, y, z; } dv;

static double d(fix16_t v) { return (double)v / 65536.0; }
static dq dq_of(bsync_quat q) {
    dq r = {d(q.x), d(q.y), d(q.z), d(q.w)};
    double n = sqrt(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w);
    r.x /= n; r.y /= n; r.z /= n; r.w /= n;
    return r;
}
static dv dv_of(bsync_vec3 v) { dv r = {d(v.x), d(v.y), d(v.z)}; return r; }
static dq dq_mul(dq a, dq b) {
    dq r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}
static dq dq_conj(dq a) { dq r = {-a.x, -a.y, -a.z, a.w}; return r; }
static dv dq_rot(dq q, dv v) {
    dq p = {v.x, v.y, v.z, 0};
    dq r = dq_mul(dq_mul(q, p), dq_conj(q));
    dv o = {r.x, r.y, r.z};
    return o;
}
static dv dv_sub(dv a, dv b) { dv r = {a.x - b.x, a.y - b.y, a.z - b.z}; return r; }
static dv dv_add(dv a, dv b) { dv r = {a.x + b.x, a.y + b.y, a.z + b.z}; return r; }
static dq dq_yaw(double angle) { dq r = {0, sin(angle / 2), 0, cos(angle / 2)}; return r; }
static dq dq_pitch(double angle) { dq r = {sin(angle / 2), 0, 0, cos(angle / 2)}; return r; }
/* |rotation angle| of a unit quaternion, in [0, pi] */
static double dq_angle(dq q) { return 2.0 * atan2(sqrt(q.x * q.x + q.y * q.y + q.z * q.z), fabs(q.w)); }
/* the same rotation? (q and -q), largest component difference */
static double dq_diff(dq a, dq b) {
    double s = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0 ? -1.0 : 1.0;
    double m = fabs(a.x - s * b.x);
    m = fmax(m, fabs(a.y - s * b.y));
    m = fmax(m, fabs(a.z - s * b.z));
    return fmax(m, fabs(a.w - s * b.w));
}
static double dv_diff(dv a, dv b) { return fmax(fabs(a.x - b.x), fmax(fabs(a.y - b.y), fabs(a.z - b.z))); }
static fix16_t dfx(double v) { return (fix16_t)lround(v * 65536.0); }

#define RAW (1.0 / 65536.0)
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------------ fixtures */

/* Two joints: "root" at the origin, "child" under it at (0, 1, 0). */
/* "root" at the origin and "child" at (0, 1, 0), unrotated */
static bsync_skeleton* make_skeleton(void) {
    static const char* const names[2] = {"root", "child"};
    bsync_test_chain_rest rest = bsync_test_chain_rest_identity();
    rest.dt = bsync_vec3_make(0, BSYNC_FX_ONE, 0);
    return bsync_test_chain_skeleton(names, 2, &rest);
}

/* A clip of `keys` keys on `joint`: translations (and rotations when qs != NULL), plus a constant
 * rotation on the other joint so that the pose has something else to keep. */
static bsync_clip* make_clip(const bsync_skeleton* s, uint32_t joint, fix16_t duration, uint32_t keys,
                             const fix16_t* times, const bsync_vec3* ts, const bsync_quat* qs) {
    static const fix16_t t0[1] = {0};
    static bsync_quat other[1];
    other[0] = bsync_quat_from_axis_angle(bsync_vec3_make(BSYNC_FX_ONE, 0, 0), 13107); /* 0.2 rad about X */
    bsync_raw_track tr[3];
    uint32_t n = 0;
    bsync_raw_track a = {joint, BSYNC_TRACK_TRANSLATION, keys, times, ts, NULL};
    tr[n++] = a;
    if (qs) {
        bsync_raw_track b = {joint, BSYNC_TRACK_ROTATION, keys, times, NULL, qs};
        tr[n++] = b;
    }
    bsync_raw_track c = {joint == 0 ? 1u : 0u, BSYNC_TRACK_ROTATION, 1, t0, NULL, other};
    tr[n++] = c;
    bsync_clip_desc cd = {"c", duration, 1, tr, n};
    bsync_clip* clip = NULL;
    assert_int_equal(bsync_clip_create(&cd, s, NULL, &clip), BSYNC_OK);
    return clip;
}


typedef struct world {
    bsync_skeleton* skel;
    bsync_clip* clips[4];
    bsync_blend_tree* tree;
    bsync_graph* graph;
    void* mem;
    bsync_instance* inst;
    uint32_t n;
    fix16_t weights[4];
} world;

/* One Direct node over n motions (parameter i = weight of motion i, defaults = weights), cycle offsets
 * per child (NULL: none), the given root-motion settings. The clips are owned by the world. */
static void world_init(world* w, uint32_t n, const fix16_t* weights, const fix16_t* offsets, uint32_t rate,
                       bsync_root_motion_mode mode, bsync_root_motion_rotation rot, uint32_t root_joint) {
    for (uint32_t i = 0; i < n; i++) w->weights[i] = weights[i];
    w->n = n;
    w->tree = bsync_test_tree_direct(n, weights);
    bsync_graph_node_options opt = {BSYNC_SYNC_NORMALIZED, NULL, offsets};
    bsync_graph_desc gd = {w->tree, w->skel, (const bsync_clip* const*)w->clips, rate, NULL, &opt, mode, rot, root_joint, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    assert_int_equal(bsync_graph_create(&gd, NULL, &w->graph), BSYNC_OK);
    w->inst = bsync_test_instance_new(w->graph, &w->mem);
}

static void world_free(world* w) {
    free(w->mem);
    bsync_graph_destroy(w->graph);
    bsync_blend_tree_destroy(w->tree);
    for (int i = 0; i < 4; i++) bsync_clip_destroy(w->clips[i]);
    bsync_skeleton_destroy(w->skel);
}

static bsync_root_motion tick(world* w) {
    bsync_instance_input in = {w->weights, w->n};
    assert_int_equal(bsync_instance_tick(w->inst, &in), BSYNC_OK);
    bsync_root_motion rm;
    assert_int_equal(bsync_instance_root_motion(w->inst, &rm), BSYNC_OK);
    return rm;
}

static void assert_identity(bsync_quat q) {
    assert_int_equal(q.x, 0);
    assert_int_equal(q.y, 0);
    assert_int_equal(q.z, 0);
    assert_int_equal(q.w, BSYNC_FX_ONE);
}

/* 1.4 m along +Z over a 1 s loop (keys at 0 and 1 s), at a constant height of 0.1 m. */
static bsync_clip* make_walk_line(const bsync_skeleton* s) {
    static const fix16_t times[2] = {0, BSYNC_FX_ONE};
    static const bsync_vec3 ts[2] = {{0, 6554, 0}, {0, 6554, 91750}}; /* 91750 = round(1.4 * 65536) */
    return make_clip(s, 0, BSYNC_FX_ONE, 2, times, ts, NULL);
}

/* ------------------------------------------------------------------ tests */

/* 32 Hz with a cycle offset of 0.3: the sampled clip time is exactly (19661 + 2048 k) mod 65536 raw,
 * so every 32nd tick wraps the loop in the middle of the tick. Each delta is 1.4/32 m = 2867.2 raw
 * within one raw step (the two lerp roundings), x and y are 0 (YAW mode drops y), the rotation is
 * exactly the identity; any 32 consecutive deltas (a whole cycle) sum to exactly 91750 raw (the
 * pieces telescope). At 30 Hz (clip time quantised to a raw step) within two raw steps and the
 * 30-tick sums are exact too. The pose's root keeps its height and stays at rest x, z. */
static void test_linear_translation_across_wraps(void** state) {
    (void)state;
    const uint32_t rates[2] = {32, 30};
    for (int ri = 0; ri < 2; ri++) {
        const uint32_t rate = rates[ri];
        world w;
        memset(&w, 0, sizeof w);
        w.skel = make_skeleton();
        w.clips[0] = make_walk_line(w.skel);
        fix16_t weights[1] = {BSYNC_FX_ONE}, offsets[1] = {19661};
        world_init(&w, 1, weights, offsets, rate, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_YAW, 0);
        bsync_root_motion rm;
        assert_int_equal(bsync_instance_root_motion(w.inst, &rm), BSYNC_OK); /* tick 0: nothing yet */
        assert_int_equal(rm.translation.z, 0);
        assert_identity(rm.rotation);
        const double want = 1.4 * 65536.0 / rate;
        const double tol = rate == 32 ? 1.0 : 2.0;
        int64_t z[200];
        int wraps = 0;
        const uint32_t off = (uint32_t)19661 << 16;
        uint32_t prev_sp = bsync_instance_node_sample_phase(w.inst, 0) + off;
        for (int k = 0; k < 200; k++) {
            rm = tick(&w);
            const uint32_t sp = bsync_instance_node_sample_phase(w.inst, 0) + off; /* clip phase sampled */
            if (sp < prev_sp) wraps++;
            prev_sp = sp;
            z[k] = rm.translation.z;
            assert_true(fabs((double)rm.translation.z - want) <= tol);
            assert_int_equal(rm.translation.x, 0);
            assert_int_equal(rm.translation.y, 0);
            assert_identity(rm.rotation);
            bsync_trs local[2];
            assert_int_equal(bsync_instance_pose(w.inst, local, NULL), BSYNC_OK);
            assert_int_equal(local[0].t.x, 0);
            assert_int_equal(local[0].t.z, 0);
            assert_int_equal(local[0].t.y, 6554);
        }
        assert_true(wraps >= 5);
        for (int k = 0; k + (int)rate <= 200; k++) {
            int64_t sum = 0;
            for (uint32_t i = 0; i < rate; i++) sum += z[k + (int)i];
            assert_int_equal(sum, 91750);
        }
        world_free(&w);
    }
}

/* A 1/32 s loop whose root moves 5000 raw along +Z (offset 0.3 again). At 16 Hz the clock moves
 * exactly 2 cycles per tick: every delta is exactly 2 * 5000. At 20 Hz it moves 1.6 cycles (1 or 2
 * wraps per tick): each delta is 8000 within 4 raw steps (clip time quantised to a raw step, slope
 * 2.44 raw per raw step), and every 20 ticks (32 cycles) sum to exactly 160000. */
static void test_multiple_wraps_per_tick(void** state) {
    (void)state;
    for (int ri = 0; ri < 2; ri++) {
        const uint32_t rate = ri == 0 ? 16 : 20;
        world w;
        memset(&w, 0, sizeof w);
        w.skel = make_skeleton();
        static const fix16_t times[2] = {0, 2048};
        static const bsync_vec3 ts[2] = {{0, 0, 0}, {0, 0, 5000}};
        w.clips[0] = make_clip(w.skel, 0, 2048, 2, times, ts, NULL);
        fix16_t weights[1] = {BSYNC_FX_ONE}, offsets[1] = {19661};
        world_init(&w, 1, weights, offsets, rate, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_FULL, 0);
        int64_t z[100];
        for (int k = 0; k < 100; k++) {
            bsync_root_motion rm = tick(&w);
            z[k] = rm.translation.z;
            if (rate == 16) assert_int_equal(rm.translation.z, 10000);
            else assert_true(llabs(rm.translation.z - 8000) <= 4);
            assert_int_equal(rm.translation.x, 0);
            assert_int_equal(rm.translation.y, 0);
            assert_identity(rm.rotation);
        }
        if (rate == 20) {
            for (int k = 0; k + 20 <= 100; k++) {
                int64_t sum = 0;
                for (int i = 0; i < 20; i++) sum += z[k + i];
                assert_int_equal(sum, 160000);
            }
        }
        world_free(&w);
    }
}

/* The turning clip: 33 keys at k/32 s, rotation yaw(90 deg * u), translation (0, 0, u) (1 m/s along
 * the clip's +Z) for u = k/32. */
static bsync_clip* make_turn(const bsync_skeleton* s, double pitch_deg, double yaw_deg, double side) {
    static fix16_t times[33];
    static bsync_vec3 ts[33];
    static bsync_quat qs[33];
    for (int k = 0; k <= 32; k++) {
        double u = k / 32.0;
        times[k] = 2048 * k;
        ts[k] = bsync_vec3_make(dfx(side * u), dfx(0.05 * u), dfx(u));
        dq q = dq_mul(dq_yaw(yaw_deg * M_PI / 180.0 * u), dq_pitch(pitch_deg * M_PI / 180.0 * u));
        qs[k] = bsync_quat_make(dfx(q.x), dfx(q.y), dfx(q.z), dfx(q.w));
    }
    return make_clip(s, 0, BSYNC_FX_ONE, 33, times, ts, qs);
}

/* The continuous motion of the turning clip (yaw 90 deg per cycle, 1 m/s along the clip's +Z): the
 * character-frame delta from clip time u0 to u0 + du, split at the loop end like the definition. */
static void turn_reference(double u0, double du, dv* t, dq* r) {
    double u1 = u0 + du;
    double a = u0, b = u1 > 1.0 ? 1.0 : u1;
    dq q0 = dq_yaw(M_PI / 2 * a);
    dv p = {0, 0, b - a};
    *t = dq_rot(dq_conj(q0), p);
    *r = dq_mul(dq_conj(q0), dq_yaw(M_PI / 2 * b));
    if (u1 > 1.0) { /* the tail piece 0 -> u1 - 1, in the frame reached at the end of the head */
        dv p2 = {0, 0, u1 - 1.0};
        dv tail = p2; /* frame at clip time 0 is the identity */
        *t = dv_add(*t, dq_rot(*r, tail));
        *r = dq_mul(*r, dq_yaw(M_PI / 2 * (u1 - 1.0)));
    }
}

/* Yaw per tick is pi/64 and the translation is the clip's +Z motion rotated into the frame at the
 * start of the tick, including the wrap ticks (within 3 raw steps / 1e-4 rad); integrating 4 cycles
 * of deltas returns the character to its start, facing the same way (C^4 = identity for a cycle C of
 * (0, 0, 1) m and 90 deg). */
static void test_turn_about_y(void** state) {
    (void)state;
    world w;
    memset(&w, 0, sizeof w);
    w.skel = make_skeleton();
    w.clips[0] = make_turn(w.skel, 0, 90, 0);
    fix16_t weights[1] = {BSYNC_FX_ONE}, offsets[1] = {19661};
    world_init(&w, 1, weights, offsets, 32, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_YAW, 0);
    dq heading = {0, 0, 0, 1};
    dv pos = {0, 0, 0};
    double max_t = 0, max_r = 0;
    for (int k = 0; k < 128; k++) {
        bsync_root_motion rm = tick(&w);
        double u0 = (double)((19661 + 2048 * k) % 65536) / 65536.0;
        dv wt;
        dq wr;
        turn_reference(u0, 1.0 / 32.0, &wt, &wr);
        dv gt = dv_of(rm.translation);
        dq gr = dq_of(rm.rotation);
        max_t = fmax(max_t, dv_diff(gt, wt));
        max_r = fmax(max_r, dq_diff(gr, wr));
        assert_true(dv_diff(gt, wt) <= 3 * RAW);
        assert_true(fabs(dq_angle(gr) - M_PI / 64) <= 1e-4);
        assert_int_equal(rm.rotation.x, 0);
        assert_int_equal(rm.rotation.z, 0);
        assert_true(rm.rotation.y > 0); /* turning left about +Y */
        pos = dv_add(pos, dq_rot(heading, gt));
        heading = dq_mul(heading, gr);
    }
    print_message("turn: max translation error %.3g m, max rotation component error %.3g\n", max_t, max_r);
    assert_true(max_r <= 1e-4);
    assert_true(fabs(pos.x) < 2e-3 && fabs(pos.z) < 2e-3 && fabs(pos.y) < 1e-12);
    assert_true(fabs(fabs(heading.w) - 1.0) < 1e-4);
    world_free(&w);
}

/* Rotation yaw(60 deg u) * pitch(20 deg u) and translation (0.2 u, 0.05 u, u) at 32 Hz, no offset:
 * every tick goes from key k to key k+1 exactly. FULL: translation conj(q_k)(p_k+1 - p_k) and rotation
 * conj(q_k) q_k+1; pose root at rest. YAW: only the yaw: rotation yaw(60 deg / 32) with x = z = 0,
 * translation rotated by the yaw alone and y = 0; pose root keeps its height and its pitch. */
static void test_yaw_vs_full_with_pitch(void** state) {
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        world w;
        memset(&w, 0, sizeof w);
        w.skel = make_skeleton();
        w.clips[0] = make_turn(w.skel, 20, 60, 0.2);
        fix16_t weights[1] = {BSYNC_FX_ONE};
        const bsync_root_motion_rotation rot = mode == 0 ? BSYNC_ROOT_ROTATION_YAW : BSYNC_ROOT_ROTATION_FULL;
        world_init(&w, 1, weights, NULL, 32, BSYNC_ROOT_MOTION_EXTRACT, rot, 0);
        const bsync_trs* rest = bsync_skeleton_rest_pose(w.skel);
        for (int k = 0; k < 31; k++) {
            bsync_root_motion rm = tick(&w);
            double u0 = k / 32.0, u1 = (k + 1) / 32.0;
            dv p0 = {0.2 * u0, 0.05 * u0, u0}, p1 = {0.2 * u1, 0.05 * u1, u1};
            dq q0 = dq_mul(dq_yaw(M_PI / 3 * u0), dq_pitch(M_PI / 9 * u0));
            dq q1 = dq_mul(dq_yaw(M_PI / 3 * u1), dq_pitch(M_PI / 9 * u1));
            dv wt;
            dq wr;
            if (rot == BSYNC_ROOT_ROTATION_FULL) {
                wt = dq_rot(dq_conj(q0), dv_sub(p1, p0));
                wr = dq_mul(dq_conj(q0), q1);
            } else {
                wt = dq_rot(dq_conj(dq_yaw(M_PI / 3 * u0)), dv_sub(p1, p0));
                wt.y = 0;
                wr = dq_yaw(M_PI / 3 / 32);
                assert_int_equal(rm.rotation.x, 0);
                assert_int_equal(rm.rotation.z, 0);
                assert_int_equal(rm.translation.y, 0);
            }
            assert_true(dv_diff(dv_of(rm.translation), wt) <= 3 * RAW);
            assert_true(dq_diff(dq_of(rm.rotation), wr) <= 4 * RAW);
            /* the pose */
            bsync_trs local[2], sampled[2];
            assert_int_equal(bsync_instance_pose(w.inst, local, NULL), BSYNC_OK);
            fix16_t sec = (fix16_t)(2048 * (k + 1));
            assert_int_equal(bsync_clip_sample(w.clips[0], sec, BSYNC_LOOP_WRAP, rest, 2, NULL, sampled), BSYNC_OK);
            assert_memory_equal(&local[1], &sampled[1], sizeof(bsync_trs)); /* other joints untouched */
            if (rot == BSYNC_ROOT_ROTATION_FULL) {
                assert_memory_equal(&local[0].t, &rest[0].t, sizeof(bsync_vec3));
                assert_memory_equal(&local[0].r, &rest[0].r, sizeof(bsync_quat));
            } else {
                assert_int_equal(local[0].t.x, rest[0].t.x);
                assert_int_equal(local[0].t.z, rest[0].t.z);
                assert_int_equal(local[0].t.y, sampled[0].t.y);
                assert_true(dq_diff(dq_of(local[0].r), dq_pitch(M_PI / 9 * u1)) <= 4 * RAW);
            }
            assert_memory_equal(&local[0].s, &sampled[0].s, sizeof(bsync_vec3));
        }
        world_free(&w);
    }
}

/* Weights: (a) a zero-weight motion whose phase advances moves nothing; (b) half the weight on a
 * motion without clip data halves the motion; (c) W = 2 (two moving slots of weight 1) is normalised
 * (and the cycle is 2 s long, so half the speed); (d) a turning and a straight clip at 0.5 each turn
 * half as fast (nlerp halfway from the identity). */
static void test_weights(void** state) {
    (void)state;
    const double step = 1.4 * 65536.0 / 32;
    { /* (a) m0 stands still (weight 1), m1 moves (weight 0) */
        world w;
        memset(&w, 0, sizeof w);
        w.skel = make_skeleton();
        static const fix16_t times[1] = {0};
        static const bsync_vec3 still[1] = {{0, 0, 0}};
        w.clips[0] = make_clip(w.skel, 0, BSYNC_FX_ONE, 1, times, still, NULL);
        w.clips[1] = make_walk_line(w.skel);
        fix16_t weights[2] = {BSYNC_FX_ONE, 0};
        world_init(&w, 2, weights, NULL, 32, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_YAW, 0);
        for (int k = 0; k < 40; k++) {
            bsync_root_motion rm = tick(&w);
            assert_int_equal(rm.translation.z, 0);
            assert_identity(rm.rotation);
        }
        assert_true(bsync_instance_node_time(w.inst, 0)->cycles >= 1); /* the clocks did run */
        world_free(&w);
    }
    { /* (b) m0 unbound at 0.5, m1 moving at 0.5: L = 1 s, half of 2867.2 */
        world w;
        memset(&w, 0, sizeof w);
        w.skel = make_skeleton();
        w.clips[1] = make_walk_line(w.skel);
        fix16_t weights[2] = {BSYNC_FX_HALF, BSYNC_FX_HALF};
        world_init(&w, 2, weights, NULL, 32, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_YAW, 0);
        for (int k = 0; k < 40; k++) {
            bsync_root_motion rm = tick(&w);
            assert_true(fabs((double)rm.translation.z - step / 2) <= 1.0);
            assert_identity(rm.rotation);
        }
        world_free(&w);
    }
    { /* (c) two moving slots of weight 1 each: L = 2 s, each moves half a step, the average too */
        world w;
        memset(&w, 0, sizeof w);
        w.skel = make_skeleton();
        w.clips[0] = make_walk_line(w.skel);
        w.clips[1] = make_walk_line(w.skel);
        fix16_t weights[2] = {BSYNC_FX_ONE, BSYNC_FX_ONE};
        world_init(&w, 2, weights, NULL, 32, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_YAW, 0);
        for (int k = 0; k < 80; k++) {
            bsync_root_motion rm = tick(&w);
            assert_true(fabs((double)rm.translation.z - step / 2) <= 1.0);
        }
        world_free(&w);
    }
    { /* (d) turning (90 deg per cycle) and straight at 0.5 each: yaw pi/128 per tick */
        world w;
        memset(&w, 0, sizeof w);
        w.skel = make_skeleton();
        w.clips[0] = make_turn(w.skel, 0, 90, 0);
        w.clips[1] = make_turn(w.skel, 0, 0, 0);
        fix16_t weights[2] = {BSYNC_FX_HALF, BSYNC_FX_HALF};
        world_init(&w, 2, weights, NULL, 32, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_YAW, 0);
        for (int k = 0; k < 40; k++) {
            bsync_root_motion rm = tick(&w);
            assert_true(fabs(dq_angle(dq_of(rm.rotation)) - M_PI / 128) <= 1e-4);
        }
        world_free(&w);
    }
}

/* root_joint = 1: the child's local motion is extracted, the root joint is left alone. */
static void test_other_root_joint(void** state) {
    (void)state;
    world w;
    memset(&w, 0, sizeof w);
    w.skel = make_skeleton();
    static const fix16_t times[2] = {0, BSYNC_FX_ONE};
    static const bsync_vec3 ts[2] = {{0, BSYNC_FX_ONE, 0}, {0, BSYNC_FX_ONE, 91750}};
    w.clips[0] = make_clip(w.skel, 1, BSYNC_FX_ONE, 2, times, ts, NULL);
    fix16_t weights[1] = {BSYNC_FX_ONE};
    world_init(&w, 1, weights, NULL, 32, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_FULL, 1);
    const bsync_trs* rest = bsync_skeleton_rest_pose(w.skel);
    for (int k = 0; k < 40; k++) {
        bsync_root_motion rm = tick(&w);
        assert_true(fabs((double)rm.translation.z - 1.4 * 65536.0 / 32) <= 1.0);
        bsync_trs local[2], sampled[2];
        assert_int_equal(bsync_instance_pose(w.inst, local, NULL), BSYNC_OK);
        assert_memory_equal(&local[1].t, &rest[1].t, sizeof(bsync_vec3));
        fix16_t sec = (fix16_t)((2048 * (k + 1)) % 65536);
        assert_int_equal(bsync_clip_sample(w.clips[0], sec, BSYNC_LOOP_WRAP, rest, 2, NULL, sampled), BSYNC_OK);
        assert_memory_equal(&local[0], &sampled[0], sizeof(bsync_trs));
    }
    world_free(&w);
}

/* ---- the procedural humanoid */

enum { HJ = 23 };
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

/* Simple1D(speed) over walk 1.4 and run 3.5, no filter, synchronised. */
static bsync_graph* humanoid_graph(bsync_blend_tree** tree, fix16_t speed_default, bsync_root_motion_mode mode,
                                   bsync_root_motion_rotation rot) {
    static const char* pn[1] = {"speed"};
    static const char* mn[2] = {"walk", "run"};
    fix16_t defaults[1] = {speed_default};
    fix16_t th[2] = {BSYNC_PROCEDURAL_SPEED_WALK, BSYNC_PROCEDURAL_SPEED_RUN};
    bsync_blend_child_ref refs[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}};
    uint32_t params[1] = {0};
    bsync_blend_node_desc node;
    memset(&node, 0, sizeof node);
    node.name = "move"; node.space.type = BSYNC_BLEND_SIMPLE_1D; node.space.child_count = 2;
    node.space.thresholds = th; node.children = refs; node.params = params;
    bsync_blend_tree_desc td = {pn, defaults, 1, mn, 2, &node, 1, 0};
    assert_int_equal(bsync_blend_tree_create(&td, NULL, tree, NULL, NULL), BSYNC_OK);
    const bsync_clip* clips[2] = {g_h.clips[BSYNC_PROCEDURAL_WALK], g_h.clips[BSYNC_PROCEDURAL_RUN]};
    bsync_graph_desc gd = {*tree, g_h.skeleton, clips, 30, NULL, NULL, mode, rot, 0, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &g), BSYNC_OK);
    return g;
}

/* Walk, run and halfway, 10 s at 30 Hz each, EXTRACT YAW: the integrated delta equals v * 10 s within
 * 5 mm, where v = (w_walk * 1.4 * 1.0 + w_run * 3.5 * 0.7) / (w_walk * 1.0 + w_run * 0.7) (metres per
 * synchronised cycle over seconds per cycle, from the leaf weights); x, y and the rotation stay 0 /
 * identity. The pose's root stays at its rest translation (x, z; the root has no height motion) and
 * every other joint equals the KEEP pose bit for bit; NONE gives the rest root and the same others. */
static void test_humanoid_walk_run(void** state) {
    (void)state;
    const fix16_t speeds[3] = {BSYNC_PROCEDURAL_SPEED_WALK, BSYNC_PROCEDURAL_SPEED_RUN,
                               (BSYNC_PROCEDURAL_SPEED_WALK + BSYNC_PROCEDURAL_SPEED_RUN) / 2};
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_h.skeleton);
    for (int si = 0; si < 3; si++) {
        bsync_blend_tree *te, *tk, *tn;
        bsync_graph* ge = humanoid_graph(&te, speeds[si], BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_YAW);
        bsync_graph* gk = humanoid_graph(&tk, speeds[si], BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW);
        bsync_graph* gn = humanoid_graph(&tn, speeds[si], BSYNC_ROOT_MOTION_NONE, BSYNC_ROOT_ROTATION_YAW);
        void *me, *mk, *mn;
        bsync_instance* ie = bsync_test_instance_new(ge, &me);
        bsync_instance* ik = bsync_test_instance_new(gk, &mk);
        bsync_instance* in_ = bsync_test_instance_new(gn, &mn);
        fix16_t target[1] = {speeds[si]};
        bsync_instance_input in = {target, 1};
        const fix16_t* lw = bsync_instance_leaf_weights(ie);
        const double ww = d(lw[0]), wr = d(lw[1]);
        const double v = (ww * 1.4 + wr * 3.5 * 0.7) / (ww * 1.0 + wr * 0.7);
        double z = 0;
        int root_moves = 0;
        static bsync_trs le[HJ], lk[HJ], ln[HJ], model[HJ];
        for (int k = 0; k < 300; k++) {
            assert_int_equal(bsync_instance_tick(ie, &in), BSYNC_OK);
            assert_int_equal(bsync_instance_tick(ik, &in), BSYNC_OK);
            assert_int_equal(bsync_instance_tick(in_, &in), BSYNC_OK);
            bsync_root_motion rm;
            assert_int_equal(bsync_instance_root_motion(ie, &rm), BSYNC_OK);
            assert_int_equal(rm.translation.x, 0);
            assert_int_equal(rm.translation.y, 0);
            assert_true(rm.translation.z > 0);
            assert_identity(rm.rotation);
            z += d(rm.translation.z);
            bsync_root_motion rk;
            assert_int_equal(bsync_instance_root_motion(ik, &rk), BSYNC_OK);
            assert_int_equal(rk.translation.z, 0);
            assert_identity(rk.rotation);
            assert_int_equal(bsync_instance_root_motion(in_, &rk), BSYNC_OK);
            assert_int_equal(rk.translation.z, 0);
            assert_int_equal(bsync_instance_pose(ie, le, model), BSYNC_OK);
            assert_int_equal(bsync_instance_pose(ik, lk, NULL), BSYNC_OK);
            assert_int_equal(bsync_instance_pose(in_, ln, NULL), BSYNC_OK);
            assert_memory_equal(&le[1], &lk[1], sizeof(bsync_trs) * (HJ - 1));
            assert_memory_equal(&ln[1], &lk[1], sizeof(bsync_trs) * (HJ - 1));
            assert_memory_equal(&ln[0], &rest[0], sizeof(bsync_trs));
            assert_memory_equal(&le[0], &rest[0], sizeof(bsync_trs)); /* no height or rotation to keep */
            assert_memory_equal(&model[0], &rest[0], sizeof(bsync_trs));
            if (lk[0].t.z != rest[0].t.z) root_moves++; /* KEEP: the root moves in the pose */
        }
        print_message("speed %.4f: weights %.4f/%.4f, 10 s of root motion %.5f m, expected %.5f m\n",
                      d(speeds[si]), ww, wr, z, v * 10.0);
        assert_true(fabs(z - v * 10.0) <= 0.005);
        assert_true(root_moves > 250);
        free(me); free(mk); free(mn);
        bsync_graph_destroy(ge); bsync_graph_destroy(gk); bsync_graph_destroy(gn);
        bsync_blend_tree_destroy(te); bsync_blend_tree_destroy(tk); bsync_blend_tree_destroy(tn);
    }
}

/* KEEP regression: the pose equals sampling each weighted clip at the synchronised time and blending
 * with bsync_pose_blend by hand (the pre-root-motion definition), and the delta is zero / identity. */
static void test_keep_pose_unchanged(void** state) {
    (void)state;
    bsync_blend_tree* t;
    bsync_graph* g = humanoid_graph(&t, BSYNC_PROCEDURAL_SPEED_WALK, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_FULL);
    void* mem;
    bsync_instance* inst = bsync_test_instance_new(g, &mem);
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_h.skeleton);
    const bsync_clip* clips[2] = {g_h.clips[BSYNC_PROCEDURAL_WALK], g_h.clips[BSYNC_PROCEDURAL_RUN]};
    static bsync_trs samples[2][HJ], want[HJ], got[HJ];
    fix16_t target[1];
    bsync_instance_input in = {target, 1};
    for (int k = 0; k < 200; k++) {
        target[0] = BSYNC_PROCEDURAL_SPEED_WALK + (fix16_t)((k * 977) % 140000);
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        const fix16_t* w = bsync_instance_leaf_weights(inst);
        bsync_pose_input pin[2];
        uint32_t n = 0;
        for (int m = 0; m < 2; m++) {
            if (w[m] <= 0) continue;
            bsync_clip_time ct = bsync_time_start();
            ct.phase = bsync_instance_node_time(inst, 0)->phase;
            fix16_t sec = bsync_time_seconds(&ct, bsync_clip_duration(clips[m]), BSYNC_LOOP_WRAP);
            assert_int_equal(bsync_clip_sample(clips[m], sec, BSYNC_LOOP_WRAP, rest, HJ, NULL, samples[m]), BSYNC_OK);
            pin[n].local = samples[m];
            pin[n].weight = w[m];
            pin[n].joint_weights = NULL;
            n++;
        }
        assert_int_equal(bsync_pose_blend(rest, HJ, pin, n, want), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(inst, got, NULL), BSYNC_OK);
        assert_memory_equal(got, want, sizeof want);
        bsync_root_motion rm;
        assert_int_equal(bsync_instance_root_motion(inst, &rm), BSYNC_OK);
        assert_int_equal(rm.translation.x, 0);
        assert_int_equal(rm.translation.y, 0);
        assert_int_equal(rm.translation.z, 0);
        assert_identity(rm.rotation);
    }
    bsync_root_motion rm;
    assert_int_equal(bsync_instance_root_motion(NULL, &rm), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_root_motion(inst, NULL), BSYNC_INVALID_ARGUMENT);
    free(mem);
    bsync_graph_destroy(g);
    bsync_blend_tree_destroy(t);
}

/* Save at tick 517 -> load into an instance that ran other inputs -> the delta right after the load is
 * the one of tick 517 (recomputed from the clocks), and replaying to tick 1200 gives identical deltas,
 * state checksums and pose checksums; the state checksum changes when only the delta differs (the
 * same graph with KEEP and with EXTRACT have different state checksums after a tick). Both rotation
 * modes, with the turning hand-built clip blended in so the deltas have a rotation. */
static void test_save_load_replay_deltas(void** state) {
    (void)state;
    enum { TOTAL = 1200, SAVE_AT = 517 };
    for (int mode = 0; mode < 2; mode++) {
        world w;
        memset(&w, 0, sizeof w);
        w.skel = make_skeleton();
        w.clips[0] = make_turn(w.skel, 20, 90, 0.2);
        w.clips[1] = make_walk_line(w.skel);
        fix16_t weights[2] = {BSYNC_FX_HALF, BSYNC_FX_HALF}, offsets[2] = {0, 30000};
        const bsync_root_motion_rotation rot = mode == 0 ? BSYNC_ROOT_ROTATION_YAW : BSYNC_ROOT_ROTATION_FULL;
        world_init(&w, 2, weights, offsets, 30, BSYNC_ROOT_MOTION_EXTRACT, rot, 0);
        void* mb;
        bsync_instance* b = bsync_test_instance_new(w.graph, &mb);
        size_t cap = bsync_instance_snapshot_size(w.graph), written = 0;
        unsigned char* snap = malloc(cap);
        static bsync_root_motion rec[TOTAL];
        static uint64_t rec_state[TOTAL], rec_pose[TOTAL];
        fix16_t tg[2];
        bsync_instance_input in = {tg, 2};
        for (int k = 0; k < TOTAL; k++) {
            if (k == SAVE_AT) assert_int_equal(bsync_instance_save(w.inst, snap, cap, &written), BSYNC_OK);
            tg[0] = (fix16_t)((k * 2731) % 65536);
            tg[1] = BSYNC_FX_ONE - tg[0];
            assert_int_equal(bsync_instance_tick(w.inst, &in), BSYNC_OK);
            assert_int_equal(bsync_instance_root_motion(w.inst, &rec[k]), BSYNC_OK);
            rec_state[k] = bsync_instance_state_checksum(w.inst);
            assert_int_equal(bsync_instance_pose_checksum(w.inst, &rec_pose[k], NULL), BSYNC_OK);
        }
        assert_true(rec[SAVE_AT - 1].rotation.y != 0 && rec[SAVE_AT - 1].translation.z != 0);
        for (int k = 0; k < 77; k++) {
            tg[0] = (fix16_t)(k * 800);
            tg[1] = 0;
            assert_int_equal(bsync_instance_tick(b, &in), BSYNC_OK);
        }
        assert_int_equal(bsync_instance_load(b, snap, written), BSYNC_OK);
        bsync_root_motion rm;
        assert_int_equal(bsync_instance_root_motion(b, &rm), BSYNC_OK);
        assert_memory_equal(&rm, &rec[SAVE_AT - 1], sizeof rm);
        assert_true(bsync_instance_state_checksum(b) == rec_state[SAVE_AT - 1]);
        for (int k = SAVE_AT; k < TOTAL; k++) {
            tg[0] = (fix16_t)((k * 2731) % 65536);
            tg[1] = BSYNC_FX_ONE - tg[0];
            assert_int_equal(bsync_instance_tick(b, &in), BSYNC_OK);
            assert_int_equal(bsync_instance_root_motion(b, &rm), BSYNC_OK);
            assert_memory_equal(&rm, &rec[k], sizeof rm);
            assert_true(bsync_instance_state_checksum(b) == rec_state[k]);
            uint64_t pc;
            assert_int_equal(bsync_instance_pose_checksum(b, &pc, NULL), BSYNC_OK);
            assert_true(pc == rec_pose[k]);
        }
        free(snap);
        free(mb);
        world_free(&w);
    }
    /* the state checksum covers the delta: same clocks and weights, KEEP vs EXTRACT */
    world a, k;
    memset(&a, 0, sizeof a);
    memset(&k, 0, sizeof k);
    a.skel = make_skeleton();
    k.skel = make_skeleton();
    a.clips[0] = make_walk_line(a.skel);
    k.clips[0] = make_walk_line(k.skel);
    fix16_t weights[1] = {BSYNC_FX_ONE};
    world_init(&a, 1, weights, NULL, 30, BSYNC_ROOT_MOTION_EXTRACT, BSYNC_ROOT_ROTATION_YAW, 0);
    world_init(&k, 1, weights, NULL, 30, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW, 0);
    assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(k.inst)); /* tick 0 */
    tick(&a);
    tick(&k);
    assert_true(bsync_instance_state_checksum(a.inst) != bsync_instance_state_checksum(k.inst));
    world_free(&a);
    world_free(&k);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_translation_across_wraps),
        cmocka_unit_test(test_multiple_wraps_per_tick),
        cmocka_unit_test(test_turn_about_y),
        cmocka_unit_test(test_yaw_vs_full_with_pitch),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_other_root_joint),
        cmocka_unit_test(test_humanoid_walk_run),
        cmocka_unit_test(test_keep_pose_unchanged),
        cmocka_unit_test(test_save_load_replay_deltas),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
