/* test_inertialize.c — inertialized switch triggers (docs/instance.md "Inertialization") on the procedural
 * humanoid. Expectations are independent: the decay factor against hand-worked dyadic values and a
 * double-precision evaluation of (1 - s)^4 (1 + 4 s); poses against twin instances that never see the
 * trigger (the OLD pose), that play the new state from the same clock history (the NEW pose), or that
 * switch instantly at the same tick (same blend state: only the inertialization differs); rotation
 * steps measured in double from the quaternion components.
 * Initial velocities (Bollo's full method) against Bollo's quintic written out in double (A, B, C, a0,
 * the v0 clamp and the t1 shortening) and against x0, v0 the test measures itself from the poses.
 * Covered: decay values and shape; the velocity curve over a grid (v0 = 0 and v0 > 0: the decay bit
 * for bit); idle -> run over 10 ticks (trigger tick = OLD pose, every tick every joint against the
 * double reference, tick T = NEW pose bit for bit, smaller largest per-tick rotation step than an
 * instant switch); run -> idle (continuity of the per-tick step vs zero velocity, away-pointing
 * velocities zeroed, zero-velocity joints bit for bit as before, t1 shortening without overshoot,
 * save / load mid-way); state checksum covers it only while active; save / load mid-inertialization
 * (version 4, sizes, replay identical, corrupted blocks rejected, version 2 load clears it, a
 * hand-built version 3 blob refused: no release wrote one, docs/instance.md);
 * interruption by a cross-fade and by another inertialized trigger; invalid arguments (nothing
 * changes) and BSYNC_MISMATCH without a skeleton; an ignored repeated trigger. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/procedural.h"
#include "test_support.h"
#include "fixtures.h"

enum { J = 23, IDLE = 0, WALK = 1, RUN = 2, T10 = 10 };

static bsync_procedural_humanoid g_h;
static bsync_blend_tree* g_tree;
static const bsync_clip* g_clips[3];
static bsync_graph_node_options g_opts[1];

/* one 1D node "sw" over idle, walk, run at speed 0, 0.5, 1 */
static bsync_blend_tree* make_tree(void) {
    static const char* const mn[3] = {"idle", "walk", "run"};
    static const fix16_t th[3] = {0, 32768, BSYNC_FX_ONE};
    return bsync_test_tree_1d("sw", "speed", 0, mn, th, 3);
}

static bsync_graph* switch_graph(uint32_t initial, int with_skeleton) {
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    for (int i = 0; i < 3; i++) g_clips[i] = g_h.clips[i];
    memset(g_opts, 0, sizeof g_opts);
    g_opts[0].sync = BSYNC_SYNC_NONE;
    d.tree = g_tree;
    d.skeleton = with_skeleton ? g_h.skeleton : NULL;
    d.clips = with_skeleton ? g_clips : NULL;
    d.tick_rate = 30;
    d.node_options = g_opts;
    bsync_graph_switch_desc sw = {0, initial};
    d.switches = &sw;
    d.switch_count = 1;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_OK);
    return g;
}

typedef struct inst_box { void* mem; size_t size; bsync_instance* inst; } inst_box;

static inst_box new_instance(const bsync_graph* g) {
    inst_box b;
    b.size = bsync_instance_memory_size(g);
    b.inst = bsync_test_instance_new(g, &b.mem);
    return b;
}
static inst_box copy_instance(const inst_box* a) { /* memcpy is a working copy (instance.h) */
    inst_box b = *a;
    b.mem = aligned_alloc(8, (b.size + 7) & ~(size_t)7);
    assert_non_null(b.mem);
    memcpy(b.mem, a->mem, a->size);
    b.inst = (bsync_instance*)b.mem;
    return b;
}

static const fix16_t g_target[1] = {0};

static bsync_result tick_r(bsync_instance* inst, const bsync_switch_trigger* t, uint32_t n) {
    bsync_instance_input in = {g_target, 1};
    return bsync_instance_tick_ex(inst, &in, t, n);
}
static void tick(bsync_instance* inst, const bsync_switch_trigger* t, uint32_t n) {
    assert_int_equal(tick_r(inst, t, n), BSYNC_OK);
}
static bsync_switch_trigger play(uint32_t child, uint32_t fade, uint32_t inert) {
    bsync_switch_trigger t;
    memset(&t, 0, sizeof t);
    t.child = child;
    t.fade_ticks = fade;
    t.inertialize = inert;
    return t;
}
static void pose_of(bsync_instance* inst, bsync_trs out[J]) {
    assert_int_equal(bsync_instance_pose(inst, out, NULL), BSYNC_OK);
}
static uint64_t pose_sum(bsync_instance* inst) {
    uint64_t h = 0;
    assert_int_equal(bsync_instance_pose_checksum(inst, &h, NULL), BSYNC_OK);
    return h;
}
static bsync_inertia_state inert_of(const bsync_instance* inst) {
    bsync_inertia_state s;
    assert_int_equal(bsync_instance_inertia_state(inst, 0, &s), BSYNC_OK);
    return s;
}
static int same_pose(const bsync_trs* a, const bsync_trs* b) { return memcmp(a, b, J * sizeof(bsync_trs)) == 0; }

/* Largest |component difference| between rotations a and b taken up to sign (same rotation). */
static int32_t quat_diff(bsync_quat a, bsync_quat b) {
    double dot = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
    int32_t s = dot < 0 ? -1 : 1, m = 0;
    const int32_t d[4] = {a.x - s * b.x, a.y - s * b.y, a.z - s * b.z, a.w - s * b.w};
    for (int i = 0; i < 4; i++) m = abs(d[i]) > m ? abs(d[i]) : m;
    return m;
}
/* Angle (radians) of the rotation from a to b, in double. */
static double quat_angle(bsync_quat a, bsync_quat b) {
    double ax = a.x / 65536.0, ay = a.y / 65536.0, az = a.z / 65536.0, aw = a.w / 65536.0;
    double bx = b.x / 65536.0, by = b.y / 65536.0, bz = b.z / 65536.0, bw = b.w / 65536.0;
    double na = sqrt(ax * ax + ay * ay + az * az + aw * aw), nb = sqrt(bx * bx + by * by + bz * bz + bw * bw);
    double dot = fabs(ax * bx + ay * by + az * bz + aw * bw) / (na * nb);
    if (dot > 1.0) dot = 1.0;
    return 2.0 * acos(dot);
}

/* Quaternions in double (x, y, z, w). */
typedef struct dq { double x, y, z, w; } dq;
static dq dq_of(bsync_quat q) { dq r = {q.x / 65536.0, q.y / 65536.0, q.z / 65536.0, q.w / 65536.0}; return r; }
static dq dq_mul(dq a, dq b) {
    dq r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}
static dq dq_conj(dq a) { dq r = {-a.x, -a.y, -a.z, a.w}; return r; }
static dq dq_unit(dq a) {
    const double n = sqrt(a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w);
    dq r = {a.x / n, a.y / n, a.z / n, a.w / n};
    return r;
}
static double dq_dot(dq a, dq b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
/* The rotation offset from NEW to OLD (normalize(old * conj(new))), w >= 0. */
static dq dq_offset(bsync_quat old, bsync_quat nw) {
    dq q = dq_unit(dq_mul(dq_of(old), dq_conj(dq_of(nw))));
    if (q.w < 0) { q.x = -q.x; q.y = -q.y; q.z = -q.z; q.w = -q.w; }
    return q;
}
static double dq_angle(dq q) { return 2.0 * atan2(sqrt(q.x * q.x + q.y * q.y + q.z * q.z), fabs(q.w)); }

/* Bollo's x0 and v0 (per tick) of one joint, in double, from the OLD pose at the trigger tick, the
 * NEW pose at the trigger tick and the pose shown before it (translation: units of 1.0; rotation:
 * radians about the offset's axis). v0 is NOT clamped here. */
typedef struct bollo_in { double x0t, v0t, x0r, v0r; } bollo_in;
static bollo_in bollo_measure(const bsync_trs* old, const bsync_trs* nw, const bsync_trs* prev) {
    bollo_in b;
    const double o[3] = {(old->t.x - nw->t.x) / 65536.0, (old->t.y - nw->t.y) / 65536.0,
                         (old->t.z - nw->t.z) / 65536.0};
    const double p[3] = {(prev->t.x - nw->t.x) / 65536.0, (prev->t.y - nw->t.y) / 65536.0,
                         (prev->t.z - nw->t.z) / 65536.0};
    b.x0t = sqrt(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
    b.v0t = b.x0t > 0 ? b.x0t - (p[0] * o[0] + p[1] * o[1] + p[2] * o[2]) / b.x0t : 0;
    const dq q = dq_offset(old->r, nw->r);
    dq qp = dq_unit(dq_mul(dq_of(prev->r), dq_conj(dq_of(nw->r))));
    if (dq_dot(qp, q) < 0) { qp.x = -qp.x; qp.y = -qp.y; qp.z = -qp.z; qp.w = -qp.w; }
    const double len = sqrt(q.x * q.x + q.y * q.y + q.z * q.z);
    b.x0r = 2.0 * atan2(len, q.w);
    b.v0r = len > 0 ? b.x0r - 2.0 * atan2((qp.x * q.x + qp.y * q.y + qp.z * q.z) / len, qp.w) : 0;
    return b;
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

/* ------------------------------------------------------------------ the decay factor */

static double decay_ref_exact(double s) { return pow(1.0 - s, 4) * (1.0 + 4.0 * s); }
static double decay_ref(uint32_t k, uint32_t T) {
    const double s = (double)(((uint64_t)k * 65536u + T / 2u) / T) / 65536.0; /* the documented s */
    return pow(1.0 - s, 4) * (1.0 + 4.0 * s);
}

/* Bollo's quintic (GDC 2018) in double, written from the talk's formulas: v0 > 0 zeroed, t1 shortened
 * to -5 x0 / v0, a0 = (-8 v0 t1 - 20 x0) / t1^2, then A, B, C; 0 from t1 on. */
static double bollo_ref(double x0, double v0, double T, double t) {
    if (v0 > 0) v0 = 0;
    double t1 = T;
    if (v0 < 0 && -5.0 * x0 / v0 < t1) t1 = -5.0 * x0 / v0;
    if (t >= t1) return 0.0;
    const double t12 = t1 * t1, t13 = t12 * t1, t14 = t13 * t1, t15 = t14 * t1;
    const double a0 = (-8.0 * v0 * t1 - 20.0 * x0) / t12;
    const double A = -(a0 * t12 + 6.0 * v0 * t1 + 12.0 * x0) / (2.0 * t15);
    const double B = (3.0 * a0 * t12 + 16.0 * v0 * t1 + 30.0 * x0) / (2.0 * t14);
    const double C = -(3.0 * a0 * t12 + 12.0 * v0 * t1 + 20.0 * x0) / (2.0 * t13);
    return A * pow(t, 5) + B * pow(t, 4) + C * pow(t, 3) + 0.5 * a0 * t * t + v0 * t + x0;
}

static void test_decay_values(void** state) {
    (void)state;
    static const uint32_t Ts[] = {1, 2, 3, 4, 7, 10, 60, 1000, BSYNC_SWITCH_MAX_FADE_TICKS};
    for (size_t i = 0; i < sizeof Ts / sizeof Ts[0]; i++) {
        const uint32_t T = Ts[i];
        assert_int_equal(bsync_instance_inertia_decay(0, T), BSYNC_FX_ONE); /* x(0) = 1 */
        assert_int_equal(bsync_instance_inertia_decay(T, T), 0);            /* x(1) = 0 */
        assert_int_equal(bsync_instance_inertia_decay(T + 5u, T), 0);
        if (T % 2u == 0) assert_int_equal(bsync_instance_inertia_decay(T / 2u, T), 12288); /* 3/16 exactly */
    }
    assert_int_equal(bsync_instance_inertia_decay(0, 0), 0);
    /* hand-worked dyadic points: s = 1/4: (3/4)^4 * 2 = 0.6328125 = 41472 raw; s = 3/4: (1/4)^4 * 4 =
     * 0.015625 = 1024 raw (every Horner step is exact there) */
    assert_int_equal(bsync_instance_inertia_decay(1, 4), 41472);
    assert_int_equal(bsync_instance_inertia_decay(3, 4), 1024);
    /* every k of a few lengths: within 3 raw steps of the exact polynomial at the rounded s (five
     * roundings of half a step each, multiplied by |s| <= 1), in [0, 1], non-increasing up to the
     * documented one-raw-step rounding wobble where x is a few raw steps (T = 257 shows it) */
    static const uint32_t Tk[] = {3, 7, 10, 33, 60, 257};
    for (size_t i = 0; i < sizeof Tk / sizeof Tk[0]; i++) {
        fix16_t prev = BSYNC_FX_ONE;
        for (uint32_t k = 0; k <= Tk[i]; k++) {
            const fix16_t x = bsync_instance_inertia_decay(k, Tk[i]);
            assert_true(fabs(x - decay_ref(k, Tk[i]) * 65536.0) <= 3.0);
            assert_true(x >= 0 && x <= prev + 1);
            prev = x;
        }
    }
    /* zero initial velocity: the first step of a long decay is tiny (1 - x ~ 10 s^2) */
    assert_true(BSYNC_FX_ONE - bsync_instance_inertia_decay(1, 1000) <= 2);
}

/* The velocity curve against the double reference: every (T, x0, v0) of a grid, within 3 raw steps;
 * zero and positive velocities give the zero-velocity decay bit for bit; in [0, 1], non-increasing
 * (Bollo's curve with v0 <= 0 is), exactly 0 from t1 on (no overshoot past zero). */
static void test_curve_reference(void** state) {
    (void)state;
    /* the quintic's six conditions in double: x(0) = x0, x'(0) = v0, and x, x', x'' vanish at t1 */
    {
        const double x0 = 2.0, v0 = -0.3, T = 10.0, h = 1e-4;
        assert_true(fabs(bollo_ref(x0, v0, T, 0) - x0) < 1e-12);
        assert_true(fabs((bollo_ref(x0, v0, T, h) - bollo_ref(x0, v0, T, 0)) / h - v0) < 1e-3);
        assert_true(fabs(bollo_ref(x0, v0, T, T - h)) < 1e-12);
        /* and the factorised form documented in instance.h: x0 (1 - s)^4 (1 + 4 s + v0 t / x0) */
        for (double t = 0; t < T; t += 0.37) {
            const double sn = t / T;
            assert_true(fabs(bollo_ref(x0, v0, T, t) - x0 * pow(1 - sn, 4) * (1 + 4 * sn + v0 * t / x0)) < 1e-12);
        }
        /* v0 = 0: Bollo's polynomial is the zero-velocity decay x0 (1 - s)^4 (1 + 4 s) */
        for (double t = 0; t < T; t += 0.37)
            assert_true(fabs(bollo_ref(x0, 0, T, t) - x0 * decay_ref_exact(t / T)) < 1e-12);
    }
    static const uint32_t Ts[] = {1, 2, 3, 7, 10, 30, 257, 100000, BSYNC_SWITCH_MAX_FADE_TICKS};
    static const fix16_t X0[] = {1, 100, BSYNC_FX_ONE, 3 * BSYNC_FX_ONE + 123, 0x7FFFFFFF};
    double worst = 0;
    for (size_t ti = 0; ti < sizeof Ts / sizeof Ts[0]; ti++) {
        const uint32_t T = Ts[ti];
        for (size_t xi = 0; xi < sizeof X0 / sizeof X0[0]; xi++) {
            const fix16_t x0 = X0[xi];
            const int64_t cand[] = {-1, -(int64_t)x0 / (3 * (int64_t)T), -(int64_t)x0 / T, -(5 * (int64_t)x0) / T,
                                    -(20 * (int64_t)x0) / T, -(int64_t)x0, -0x7FFFFFFF, 0, 1, x0};
            for (size_t vi = 0; vi < sizeof cand / sizeof cand[0]; vi++) {
                const fix16_t v0 = (fix16_t)cand[vi];
                fix16_t prev = BSYNC_FX_ONE;
                const uint32_t step = T <= 300u ? 1u : T / 97u;
                for (uint32_t e = 0; e <= T + 1u; e = e + step > T + 1u && e < T + 1u ? T + 1u : e + step) {
                    const fix16_t f = bsync_instance_inertia_curve(e, T, x0, v0);
                    if (v0 >= 0) { /* zero (or zeroed) velocity: the decay bit for bit */
                        assert_int_equal(f, bsync_instance_inertia_decay(e, T));
                        continue;
                    }
                    assert_true(f >= 0 && f <= BSYNC_FX_ONE);
                    assert_true(f <= prev + 1);
                    prev = f;
                    if (e == 0) assert_int_equal(f, BSYNC_FX_ONE);
                    if (e >= T) assert_int_equal(f, 0);
                    const double ref = bollo_ref((double)x0, (double)v0, (double)T, (double)e) / (double)x0 * 65536.0;
                    assert_true(ref >= -1e-9); /* the reference does not overshoot either */
                    const double err = fabs(f - ref);
                    worst = err > worst ? err : worst;
                    if (err > 3.0) print_message("T %u x0 %d v0 %d e %u: %d vs %.3f\n", T, x0, v0, e, f, ref);
                    assert_true(err <= 3.0);
                    /* shortened: exactly 0 from t1 = 5 x0 / |v0| on */
                    if ((double)e * -(double)v0 >= 5.0 * x0) assert_int_equal(f, 0);
                }
            }
        }
    }
    print_message("velocity curve vs double reference: worst %.3f raw steps\n", worst);
    /* a small velocity changes the zero-velocity curve a little, in the documented direction (lower) */
    const fix16_t slow = bsync_instance_inertia_curve(3, 10, BSYNC_FX_ONE, -BSYNC_FX_ONE / 100);
    assert_true(slow < bsync_instance_inertia_decay(3, 10));
    assert_true(bsync_instance_inertia_decay(3, 10) - slow < BSYNC_FX_ONE / 50);
}

/* ------------------------------------------------------------------ idle -> run over 10 ticks */

enum { PRE = 7 }; /* ticks of idle before the trigger */

static void test_idle_to_run(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, 1);
    bsync_graph* gr = switch_graph(RUN, 1);
    inst_box a = new_instance(g), old = new_instance(g), inst = new_instance(g);
    for (int k = 0; k < PRE; k++) {
        tick(a.inst, NULL, 0);
        tick(old.inst, NULL, 0);
        tick(inst.inst, NULL, 0);
    }
    bsync_trs pa[J], po[J], pr[J], pi[J], prev_a[J], prev_i[J];
    pose_of(a.inst, prev_a);
    pose_of(inst.inst, prev_i);
    assert_true(same_pose(prev_a, prev_i));
    /* the trigger tick */
    inst_box r = new_instance(gr); /* run's clock from 0, advanced with the same steps from now on */
    const bsync_switch_trigger ti = play(RUN, T10, 1), t0 = play(RUN, 0, 0);
    tick(a.inst, &ti, 1);
    tick(old.inst, NULL, 0);
    tick(inst.inst, &t0, 1);
    tick(r.inst, NULL, 0);
    /* weights switched at once, like the instant switch */
    const fix16_t* w = bsync_instance_node_weights(a.inst, 0);
    assert_int_equal(w[IDLE], 0);
    assert_int_equal(w[RUN], BSYNC_FX_ONE);
    bsync_inertia_state s = inert_of(a.inst);
    assert_int_equal(s.active, 1);
    assert_int_equal(s.elapsed, 0);
    assert_int_equal(s.total, T10);
    assert_int_equal(s.decay, BSYNC_FX_ONE);
    pose_of(a.inst, pa);
    pose_of(old.inst, po);
    pose_of(r.inst, pr);
    pose_of(inst.inst, pi);
    assert_true(same_pose(pi, pr)); /* the instant switch shows run at once: the pop */
    assert_false(same_pose(po, pr));
    bsync_vec3 off_t[J];
    int32_t worst_r = 0;
    for (int j = 0; j < J; j++) { /* the OLD pose: translation exact, rotation within a raw step */
        assert_int_equal(pa[j].t.x, po[j].t.x);
        assert_int_equal(pa[j].t.y, po[j].t.y);
        assert_int_equal(pa[j].t.z, po[j].t.z);
        const int32_t d = quat_diff(pa[j].r, po[j].r);
        worst_r = d > worst_r ? d : worst_r;
        assert_true(d <= 1);
        assert_true(memcmp(&pa[j].s, &pr[j].s, sizeof pa[j].s) == 0); /* scale: the new state's */
        off_t[j] = bsync_vec3_make(po[j].t.x - pr[j].t.x, po[j].t.y - pr[j].t.y, po[j].t.z - pr[j].t.z);
    }
    /* Bollo's inputs measured in double; the instance's velocities agree within a few raw steps */
    bollo_in bi[J];
    double dv_t[J], dv_r[J], worst_ang = 0;
    uint32_t moving = 0;
    int rzero[J];
    for (int j = 0; j < J; j++) {
        bi[j] = bollo_measure(&po[j], &pr[j], &prev_a[j]);
        bsync_inertia_joint ij;
        assert_int_equal(bsync_instance_inertia_joint(a.inst, 0, (uint32_t)j, &ij), BSYNC_OK);
        const double vt = bi[j].v0t > 0 ? 0 : bi[j].v0t, vr = bi[j].v0r > 0 ? 0 : bi[j].v0r;
        dv_t[j] = fabs(ij.v0_t / 65536.0 - vt) * 65536.0; /* raw steps */
        dv_r[j] = fabs(ij.v0_r / 65536.0 - vr);            /* radians */
        assert_true(dv_t[j] <= 2.0 + 1e-4 * fabs(bi[j].v0t) * 65536.0);
        assert_true(dv_r[j] <= 2e-4);
        assert_true(fabs(ij.x0_r / 65536.0 - bi[j].x0r) <= 2e-4);
        moving += ij.v0_t != 0 || ij.v0_r != 0;
        rzero[j] = ij.v0_r == 0;
        bi[j].x0t *= 65536.0; /* raw, like off_t */
        bi[j].v0t *= 65536.0;
    }
    assert_int_equal(inert_of(a.inst).moving, moving);
    assert_true(moving > 0); /* a case with v0 != 0 */
    print_message("trigger tick: largest rotation component difference from the OLD pose %d raw\n", worst_r);
    double max_a = 0, max_i = 0;
    for (int j = 0; j < J; j++) {
        max_a = fmax(max_a, quat_angle(prev_a[j].r, pa[j].r));
        max_i = fmax(max_i, quat_angle(prev_i[j].r, pi[j].r));
    }
    memcpy(prev_a, pa, sizeof pa);
    memcpy(prev_i, pi, sizeof pi);
    /* the decay ticks */
    for (uint32_t k = 1; k <= T10 + 3u; k++) {
        tick(a.inst, NULL, 0);
        tick(inst.inst, NULL, 0);
        tick(r.inst, NULL, 0);
        pose_of(a.inst, pa);
        pose_of(inst.inst, pi);
        pose_of(r.inst, pr);
        s = inert_of(a.inst);
        if (k < T10) {
            assert_int_equal(s.active, 1);
            assert_int_equal(s.elapsed, k);
            assert_false(same_pose(pa, pr));
            assert_true(bsync_instance_state_checksum(a.inst) != bsync_instance_state_checksum(inst.inst));
        } else {
            assert_int_equal(s.active, 0); /* T ticks after the trigger: the pure new-state pose */
            assert_true(same_pose(pa, pr));
            assert_true(pose_sum(a.inst) == pose_sum(r.inst));
            /* only the inertialization differed: the state checksums agree again */
            assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(inst.inst));
        }
        /* Formerly: at k = T/2 every translation offset was 0.1875 of the trigger tick's (the
         * zero-velocity curve at s = 1/2). With velocities that holds only for joints whose v0 is 0;
         * now every joint, every tick, against Bollo's polynomial in double from the test's own x0, v0
         * (measured above from the OLD, NEW and previous poses). Tolerance: the factor's 3 raw steps of
         * the offset, 2 raw steps of rounding, and e times the velocity difference (fixed vs double).
         * Rotation: the angle of the shown offset (pose * conj(NEW)) in double, within 1e-3 rad plus
         * e times the velocity difference. */
        for (int j = 0; j < J && k < T10; j++) {
            const double f = bollo_ref(bi[j].x0t, bi[j].v0t, T10, k) / (bi[j].x0t > 0 ? bi[j].x0t : 1);
            const double tol = 2.0 + 3.0 * bi[j].x0t + k * dv_t[j];
            assert_true(fabs((pa[j].t.x - pr[j].t.x) - f * off_t[j].x) <= tol);
            assert_true(fabs((pa[j].t.y - pr[j].t.y) - f * off_t[j].y) <= tol);
            assert_true(fabs((pa[j].t.z - pr[j].t.z) - f * off_t[j].z) <= tol);
            const double ang = dq_angle(dq_offset(pa[j].r, pr[j].r));
            double want = bollo_ref(bi[j].x0r, bi[j].v0r, T10, k);
            if (rzero[j] && bi[j].x0r > 0) { /* zero velocity: nlerp(identity, q, x), whose angle is not x times q's */
                const double x = want / bi[j].x0r, h = bi[j].x0r / 2.0;
                want = 2.0 * atan2(x * sin(h), 1.0 - x + x * cos(h));
            }
            worst_ang = fmax(worst_ang, fabs(ang - want));
            assert_true(fabs(ang - want) <= 1e-3 + k * dv_r[j]);
        }
        for (int j = 0; j < J; j++) {
            max_a = fmax(max_a, quat_angle(prev_a[j].r, pa[j].r));
            max_i = fmax(max_i, quat_angle(prev_i[j].r, pi[j].r));
        }
        memcpy(prev_a, pa, sizeof pa);
        memcpy(prev_i, pi, sizeof pi);
    }
    print_message("double reference: worst rotation offset angle difference %.2e rad; %u moving joints\n", worst_ang,
                  moving);
    print_message("largest per-tick joint rotation step: inertialized %.4f rad, instant %.4f rad\n", max_a, max_i);
    assert_true(max_a < max_i);
    free(a.mem); free(old.mem); free(inst.mem); free(r.mem);
    bsync_graph_destroy(g);
    bsync_graph_destroy(gr);
}

/* ------------------------------------------------------------------ snapshots */

static uint32_t rd32(const unsigned char* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(unsigned char* p, uint32_t v) {
    for (int k = 0; k < 4; k++) p[k] = (unsigned char)(v >> (8 * k));
}
static void rehash(unsigned char* b, size_t n) {
    const uint64_t h = bsync_checksum_xxh64(b, n - 8u, 0);
    for (int k = 0; k < 8; k++) b[n - 8u + (size_t)k] = (unsigned char)(h >> (8 * k));
}
/* A version 3 snapshot (the format before velocities, written by no release and no longer read)
 * hand-built from a version 4 one of a graph whose plain snapshot size is `base`: the same bytes
 * without each joint's v_t, v_r. */
static size_t to_v3(const unsigned char* v4, size_t n4, size_t base, unsigned char* out) {
    assert_int_equal(rd32(v4 + 4), 4);
    const size_t blk = base - 8u;
    const uint32_t A = rd32(v4 + blk);
    assert_int_equal(n4, base + 4u + A * (12u + 36u * J));
    memcpy(out, v4, blk + 4u);
    size_t w = blk + 4u, r = blk + 4u;
    for (uint32_t i = 0; i < A; i++) {
        memcpy(out + w, v4 + r, 12u);
        w += 12u;
        r += 12u;
        for (int j = 0; j < J; j++, w += 28u, r += 36u) memcpy(out + w, v4 + r, 28u);
    }
    const size_t n3 = w + 8u;
    wr32(out + 4, 3);
    wr32(out + 16, (uint32_t)n3);
    rehash(out, n3);
    return n3;
}

static void test_save_load(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g);
    const size_t base = bsync_instance_snapshot_size(g), max = bsync_instance_snapshot_size_max(g);
    assert_int_equal(max, base + 4u + 12u + 36u * J); /* one switch, J joints: o, q, v_t, v_r each */
    assert_int_equal(bsync_instance_snapshot_size_now(a.inst), base);
    unsigned char* v2 = (unsigned char*)malloc(max);
    unsigned char* v3 = (unsigned char*)malloc(max);
    size_t n2 = 0, n3 = 0;
    for (int k = 0; k < 5; k++) tick(a.inst, NULL, 0);
    assert_int_equal(bsync_instance_save(a.inst, v2, max, &n2), BSYNC_OK);
    assert_int_equal(n2, base);
    assert_int_equal(v2[4], 2); /* version 2: no inertialization */
    const bsync_switch_trigger ti = play(RUN, T10, 1);
    tick(a.inst, &ti, 1);
    for (int k = 0; k < 3; k++) tick(a.inst, NULL, 0);
    assert_int_equal(bsync_instance_snapshot_size_now(a.inst), max);
    assert_int_equal(bsync_instance_save(a.inst, v3, base, &n3), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_instance_save(a.inst, v3, max, &n3), BSYNC_OK);
    assert_int_equal(n3, max);
    assert_int_equal(v3[4], 4); /* version 4: with velocities (formerly 3) */
    assert_memory_equal(v3 + 8, v2 + 8, 8); /* same graph hash */
    inst_box b = new_instance(g);
    assert_int_equal(bsync_instance_load(b.inst, v3, n3), BSYNC_OK);
    assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(b.inst));
    assert_true(pose_sum(a.inst) == pose_sum(b.inst));
    bsync_inertia_state s = inert_of(b.inst);
    assert_int_equal(s.active, 1);
    assert_int_equal(s.elapsed, 3);
    for (int k = 0; k < 12; k++) { /* the rest of the decay and beyond: identical */
        tick(a.inst, NULL, 0);
        tick(b.inst, NULL, 0);
        assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(b.inst));
        assert_true(pose_sum(a.inst) == pose_sum(b.inst));
    }
    assert_int_equal(inert_of(b.inst).active, 0);
    /* loading the version 2 snapshot into an inertializing instance clears the inertialization */
    inst_box c = new_instance(g);
    assert_int_equal(bsync_instance_load(c.inst, v3, n3), BSYNC_OK);
    assert_int_equal(bsync_instance_load(c.inst, v2, n2), BSYNC_OK);
    assert_int_equal(inert_of(c.inst).active, 0);
    /* corrupted version 3 blobs are refused, the instance untouched */
    assert_int_equal(bsync_instance_load(c.inst, v3, n3), BSYNC_OK);
    const uint64_t before = bsync_instance_state_checksum(c.inst);
    unsigned char* bad = (unsigned char*)malloc(max);
    memcpy(bad, v3, n3);
    bad[base + 10] ^= 1; /* inside the block: the XXH64 catches it */
    assert_int_equal(bsync_instance_load(c.inst, bad, n3), BSYNC_BAD_BLOB);
    const size_t blk = base - 8u; /* the block starts where the version 2 hash was */
    size_t zj = 0; /* a joint whose translation offset is zero (local translations are the bones) */
    for (const unsigned char* o = v3 + blk + 16; zj < J && (rd32(o) | rd32(o + 4) | rd32(o + 8)) != 0; o += 36) zj++;
    assert_true(zj < J);
    struct { size_t at; uint32_t v; } cases[] = {
        {blk, 0},            /* A = 0 */
        {blk, 2},            /* A > W (and the length no longer matches) */
        {blk + 4, 1},        /* switch index 1 >= W */
        {blk + 8, T10},      /* e = T */
        {blk + 12, 0},       /* T = 0 */
        {blk + 16, 0x80000000u}, /* offset translation INT32_MIN */
        {blk + 16 + 24, 0xFFFF0000u}, /* q.w < 0 */
        {blk + 16 + 12, 65537}, /* q.x > 1.0 */
        {blk + 16 + 28, 1},     /* v_t > 0 */
        {blk + 16 + 32, 0x80000000u}, /* v_r INT32_MIN */
        {blk + 16 + 32, 5},     /* v_r > 0 */
        {blk + 16 + 36 * zj + 28, 0xFFFFFFFBu}, /* v_t = -5 for a joint without translation offset */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, v3, n3);
        for (int k = 0; k < 4; k++) bad[cases[i].at + (size_t)k] = (unsigned char)(cases[i].v >> (8 * k));
        const uint64_t h = bsync_checksum_xxh64(bad, n3 - 8u, 0);
        for (int k = 0; k < 8; k++) bad[n3 - 8u + (size_t)k] = (unsigned char)(h >> (8 * k));
        assert_int_equal(bsync_instance_load(c.inst, bad, n3), BSYNC_BAD_BLOB);
        assert_true(bsync_instance_state_checksum(c.inst) == before);
    }
    /* the same state without velocities (version 3) is refused, the instance untouched */
    {
        unsigned char* old = (unsigned char*)malloc(max);
        const size_t n_old = to_v3(v3, n3, base, old);
        assert_int_equal(bsync_instance_load(c.inst, old, n_old), BSYNC_BAD_BLOB);
        assert_true(bsync_instance_state_checksum(c.inst) == before);
        free(old);
    }
    /* a version 3 blob is refused by a graph that cannot inertialize (no skeleton: its own hash
     * differs, so write its own v2 blob and relabel it version 3) */
    bsync_graph* gn = switch_graph(IDLE, 0);
    assert_int_equal(bsync_instance_snapshot_size_max(gn), bsync_instance_snapshot_size(gn));
    inst_box d = new_instance(gn);
    size_t nn = 0;
    assert_int_equal(bsync_instance_save(d.inst, bad, max, &nn), BSYNC_OK);
    bad[4] = 3;
    const uint64_t h = bsync_checksum_xxh64(bad, nn - 8u, 0);
    for (int k = 0; k < 8; k++) bad[nn - 8u + (size_t)k] = (unsigned char)(h >> (8 * k));
    assert_int_equal(bsync_instance_load(d.inst, bad, nn), BSYNC_BAD_BLOB);
    free(bad); free(v2); free(v3);
    free(a.mem); free(b.mem); free(c.mem); free(d.mem);
    bsync_graph_destroy(g);
    bsync_graph_destroy(gn);
}

/* ------------------------------------------------------------------ velocities on run -> idle */

/* The documented zero-velocity offset of one joint (instance.h, as before velocities): t = NEW.t +
 * scale(OLD.t - NEW.t, x), r = d NEW.r with d = q or nlerp(identity, q, x), built from the library's
 * primitives; `old`, `nw` at the trigger tick, `now` the NEW pose at elapsed e. */
static bsync_trs zero_velocity_joint(const bsync_trs* old, const bsync_trs* nw, const bsync_trs* now, uint32_t e,
                                     uint32_t T) {
    const fix16_t x = bsync_instance_inertia_decay(e, T);
    const bsync_vec3 o = bsync_vec3_sub(old->t, nw->t);
    bsync_quat q = bsync_quat_normalize(bsync_quat_mul(old->r, bsync_quat_conj(nw->r)));
    if (q.w < 0 || (q.w == 0 && bsync_quat_lex_negative_(q))) q = bsync_quat_neg(q);
    bsync_trs out = *now;
    out.t = bsync_vec3_add(now->t, bsync_vec3_scale(o, x));
    const bsync_quat d = x >= BSYNC_FX_ONE ? q : bsync_quat_nlerp(bsync_quat_identity(), q, x);
    out.r = bsync_quat_mul(d, now->r);
    return out;
}
static int same_joint(const bsync_trs* a, const bsync_trs* b) { return memcmp(a, b, sizeof *a) == 0; }

/* Velocity mismatch of one joint: how far the step into the next tick (p1 - p0) is from the step into
 * this one (p0 - pm): translation (raw steps) plus rotation (radians, the angle between the two
 * per-tick rotations) scaled by 65536 so both count. */
static double step_mismatch(const bsync_trs* pm, const bsync_trs* p0, const bsync_trs* p1) {
    const double dx = (double)(p1->t.x - p0->t.x) - (double)(p0->t.x - pm->t.x);
    const double dy = (double)(p1->t.y - p0->t.y) - (double)(p0->t.y - pm->t.y);
    const double dz = (double)(p1->t.z - p0->t.z) - (double)(p0->t.z - pm->t.z);
    const dq before = dq_unit(dq_mul(dq_of(p0->r), dq_conj(dq_of(pm->r))));
    const dq after = dq_unit(dq_mul(dq_of(p1->r), dq_conj(dq_of(p0->r))));
    return sqrt(dx * dx + dy * dy + dz * dz) + 65536.0 * dq_angle(dq_unit(dq_mul(after, dq_conj(before))));
}

/* run -> idle (a fast source into a slow target), T ticks, trigger after `pre` ticks of run:
 *   - the trigger tick shows OLD; the tick after continues with the source's velocity: the per-tick
 *     step right after the trigger is closer to the step right before than with zero velocity (the
 *     documented zero-velocity formula applied to the same offsets), summed over the joints and for
 *     the fastest joint;
 *   - every joint of the velocity instance whose v0 is 0 follows the zero-velocity formula bit for bit
 *     (among them those whose motion pointed away from the target: their measured v0 > 0 was zeroed);
 *   - t1 shortening: joints moving toward the target fast (|v0| T > 5 x0) never overshoot past zero
 *     and show NEW exactly from t1 on;
 *   - save -> load of the velocity instance mid-way continues identically. */
static void run_to_idle(uint32_t T, uint32_t pre) {
    bsync_graph* g = switch_graph(RUN, 1);
    inst_box a = new_instance(g), n = new_instance(g);
    bsync_trs pm1[J], p0[J], pn0[J], pa[J], pz[J], pn[J];
    for (uint32_t k = 0; k < pre; k++) {
        tick(a.inst, NULL, 0);
        tick(n.inst, NULL, 0);
    }
    pose_of(a.inst, pm1);
    const bsync_switch_trigger ti = play(IDLE, T, 1), t0 = play(IDLE, 0, 0);
    inst_box old = copy_instance(&a);
    tick(old.inst, NULL, 0);
    pose_of(old.inst, p0); /* OLD at the trigger tick: run, undisturbed */
    tick(a.inst, &ti, 1);
    tick(n.inst, &t0, 1);
    pose_of(n.inst, pn0);
    bsync_trs pa0[J];
    pose_of(a.inst, pa0);
    for (int j = 0; j < J; j++) { /* the trigger tick shows OLD (translation exact, rotation 1 raw) */
        assert_memory_equal(&pa0[j].t, &p0[j].t, sizeof p0[j].t);
        assert_true(quat_diff(pa0[j].r, p0[j].r) <= 1);
    }
    const size_t max = bsync_instance_snapshot_size_max(g);
    unsigned char* v4 = (unsigned char*)malloc(max);
    /* velocities: measured in double; the away-pointing ones are zeroed */
    bsync_inertia_joint ij[J];
    uint32_t away = 0, vel_joints = 0;
    for (int j = 0; j < J; j++) {
        assert_int_equal(bsync_instance_inertia_joint(a.inst, 0, (uint32_t)j, &ij[j]), BSYNC_OK);
        const bollo_in b = bollo_measure(&p0[j], &pn0[j], &pm1[j]);
        if (b.v0t * 65536.0 > 4.0) { assert_int_equal(ij[j].v0_t, 0); away++; }
        if (b.v0r > 1e-3) { assert_int_equal(ij[j].v0_r, 0); away++; }
        vel_joints += ij[j].v0_t != 0 || ij[j].v0_r != 0;
    }
    const bsync_inertia_state st = inert_of(a.inst);
    assert_int_equal(st.moving, vel_joints);
    assert_true(vel_joints > 0);
    /* save -> load mid-way (after 2 ticks): the copy must continue identically */
    inst_box c = new_instance(g);
    double mis_a = 0, mis_z = 0, fast_a = 0, fast_z = 0, fastest = -1;
    int fj = 0;
    for (int j = 0; j < J; j++) { /* the fastest joint before the trigger */
        const double m = step_mismatch(&p0[j], &p0[j], &pm1[j]) ; /* |p0 - pm1| both ways: 2x its step */
        if (m > fastest) { fastest = m; fj = j; }
    }
    uint32_t shortened_seen = 0;
    for (uint32_t e = 1; e <= T + 1u; e++) {
        tick(a.inst, NULL, 0);
        tick(n.inst, NULL, 0);
        if (e == 2) {
            size_t w = 0;
            assert_int_equal(bsync_instance_save(a.inst, v4, max, &w), BSYNC_OK);
            assert_int_equal(v4[4], 4);
            assert_int_equal(bsync_instance_load(c.inst, v4, w), BSYNC_OK);
        }
        if (e > 2) tick(c.inst, NULL, 0);
        if (e >= 2) {
            assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(c.inst));
            assert_true(pose_sum(a.inst) == pose_sum(c.inst));
        }
        pose_of(a.inst, pa);
        pose_of(n.inst, pn);
        for (int j = 0; j < J; j++) { /* the zero-velocity pose: the documented formula, NEW when over */
            pz[j] = e >= T ? pn[j] : zero_velocity_joint(&p0[j], &pn0[j], &pn[j], e, T);
        }
        for (int j = 0; j < J; j++) {
            if (e >= T) { /* over: the plain pose */
                assert_true(same_joint(&pa[j], &pn[j]));
                continue;
            }
            const bsync_trs ref = pz[j];
            if (ij[j].v0_t == 0) assert_memory_equal(&pa[j].t, &ref.t, sizeof ref.t);
            if (ij[j].v0_r == 0) assert_memory_equal(&pa[j].r, &ref.r, sizeof ref.r);
            /* shortening: no overshoot past zero, exactly NEW from t1 on */
            if (ij[j].t1_r < (uint64_t)T * 65536u) {
                const dq q0 = dq_offset(p0[j].r, pn0[j].r);
                const double len = sqrt(q0.x * q0.x + q0.y * q0.y + q0.z * q0.z);
                const dq qs = dq_unit(dq_mul(dq_of(pa[j].r), dq_conj(dq_of(pn[j].r))));
                const double ang = 2.0 * atan2((qs.x * q0.x + qs.y * q0.y + qs.z * q0.z) / len, qs.w);
                assert_true(ang >= -1e-4); /* signed angle about the offset's axis */
                if ((uint64_t)e * 65536u >= ij[j].t1_r) {
                    assert_memory_equal(&pa[j].r, &pn[j].r, sizeof pn[j].r);
                    shortened_seen++;
                }
            }
            if (ij[j].t1_t < (uint64_t)T * 65536u && (uint64_t)e * 65536u >= ij[j].t1_t)
                assert_memory_equal(&pa[j].t, &pn[j].t, sizeof pn[j].t);
        }
        if (e == 1) {
            for (int j = 0; j < J; j++) {
                const double ma = step_mismatch(&pm1[j], &pa0[j], &pa[j]);
                const double mz = step_mismatch(&pm1[j], &pa0[j], &pz[j]);
                mis_a += ma;
                mis_z += mz;
                if (j == fj) { fast_a = ma; fast_z = mz; }
            }
        }
    }
    print_message("run -> idle, T %u, after %u ticks: step mismatch right after the trigger (sum over joints) "
                  "velocity %.0f vs zero velocity %.0f; fastest joint %d: %.0f vs %.0f; %u joints with v0, "
                  "%u zeroed (away), %u shortened, %u joint-ticks at NEW after a shortened t1\n",
                  T, pre, mis_a, mis_z, fj, fast_a, fast_z, vel_joints, away, st.shortened, shortened_seen);
    /* continuity: with T = 10 the curve's own first step (a0 / 2 = -10 x0 / T^2, 0.1 x0 per tick)
     * dwarfs run's velocities along the offsets (|v0| / x0 about 0.02 there: measured 75609 vs 76476
     * summed, a few joints slightly worse), so the clear gain is asserted where the velocity can
     * show: T >= 30 (measured 57344 vs 83411 and 43560 vs 67993). */
    if (T >= 30u) {
        assert_true(mis_a < 0.8 * mis_z);
        assert_true(fast_a < fast_z);
        assert_true(st.shortened > 0 && shortened_seen > 0);
    }
    assert_true(mis_a <= mis_z);
    assert_true(away > 0);
    free(v4);
    free(a.mem); free(n.mem); free(old.mem); free(c.mem);
    bsync_graph_destroy(g);
}

static void test_velocity_run_to_idle(void** state) {
    (void)state;
    run_to_idle(10, 5);
    run_to_idle(30, 9);
    run_to_idle(60, 14);
}

/* ------------------------------------------------------------------ interruptions */

static void test_interrupt_crossfade(void** state) {
    (void)state;
    /* idle -inertialized(10)-> run, 4 ticks later a 6-tick cross-fade to walk: the offset keeps
     * decaying on top of the fade and ends on its own schedule; x = an instance that switched to run
     * instantly at the same tick and cross-fades the same way: identical once the offset is gone */
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g), x = new_instance(g);
    for (int k = 0; k < 3; k++) { tick(a.inst, NULL, 0); tick(x.inst, NULL, 0); }
    const bsync_switch_trigger ti = play(RUN, T10, 1), t0 = play(RUN, 0, 0), tf = play(WALK, 6, 0);
    tick(a.inst, &ti, 1);
    tick(x.inst, &t0, 1);
    for (uint32_t k = 1; k <= 14; k++) {
        const int fade = k == 4;
        tick(a.inst, fade ? &tf : NULL, fade ? 1u : 0u);
        tick(x.inst, fade ? &tf : NULL, fade ? 1u : 0u);
        const bsync_inertia_state s = inert_of(a.inst);
        assert_memory_equal(bsync_instance_node_weights(a.inst, 0), bsync_instance_node_weights(x.inst, 0),
                            3 * sizeof(fix16_t));
        if (k < T10) {
            assert_int_equal(s.active, 1);
            assert_int_equal(s.elapsed, k); /* not restarted by the cross-fade */
            assert_true(pose_sum(a.inst) != pose_sum(x.inst));
        } else {
            assert_int_equal(s.active, 0);
            assert_true(pose_sum(a.inst) == pose_sum(x.inst));
            assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(x.inst));
        }
        if (k == 6) assert_true(bsync_instance_node_weights(a.inst, 0)[WALK] > 0); /* fading in */
    }
    free(a.mem); free(x.mem);
    bsync_graph_destroy(g);
}

static void test_interrupt_inertialized(void** state) {
    (void)state;
    /* idle -inertialized(10)-> run; 4 ticks later -inertialized(8)-> walk: the new offset starts from
     * what was being shown (the running offset included), so the trigger tick shows what an untouched
     * copy shows; 8 ticks later the pose is that of an instance that switched instantly twice */
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g), z = new_instance(g);
    for (int k = 0; k < 3; k++) { tick(a.inst, NULL, 0); tick(z.inst, NULL, 0); }
    const bsync_switch_trigger t1 = play(RUN, T10, 1), t2 = play(WALK, 8, 1);
    const bsync_switch_trigger z1 = play(RUN, 0, 0), z2 = play(WALK, 0, 0);
    tick(a.inst, &t1, 1);
    tick(z.inst, &z1, 1);
    for (int k = 0; k < 3; k++) { tick(a.inst, NULL, 0); tick(z.inst, NULL, 0); }
    inst_box y = copy_instance(&a); /* never sees the second trigger */
    tick(a.inst, &t2, 1);
    tick(y.inst, NULL, 0);
    tick(z.inst, &z2, 1);
    bsync_inertia_state s = inert_of(a.inst);
    assert_int_equal(s.active, 1);
    assert_int_equal(s.elapsed, 0);
    assert_int_equal(s.total, 8);
    assert_int_equal(inert_of(y.inst).elapsed, 4);
    bsync_trs pa[J], py[J];
    pose_of(a.inst, pa);
    pose_of(y.inst, py);
    int32_t worst_t = 0, worst_r = 0;
    for (int j = 0; j < J; j++) {
        worst_t = abs(pa[j].t.x - py[j].t.x) > worst_t ? abs(pa[j].t.x - py[j].t.x) : worst_t;
        worst_t = abs(pa[j].t.y - py[j].t.y) > worst_t ? abs(pa[j].t.y - py[j].t.y) : worst_t;
        worst_t = abs(pa[j].t.z - py[j].t.z) > worst_t ? abs(pa[j].t.z - py[j].t.z) : worst_t;
        const int32_t d = quat_diff(pa[j].r, py[j].r);
        worst_r = d > worst_r ? d : worst_r;
    }
    print_message("interrupting inertialization: trigger tick vs untouched copy: translation %d, rotation %d raw\n",
                  worst_t, worst_r);
    assert_true(worst_t <= 1); /* the running offset is recomputed from the same fields: one rounding */
    assert_true(worst_r <= 2);
    for (uint32_t k = 1; k <= 9; k++) {
        tick(a.inst, NULL, 0);
        tick(z.inst, NULL, 0);
        s = inert_of(a.inst);
        if (k < 8) {
            assert_int_equal(s.elapsed, k);
            assert_true(pose_sum(a.inst) != pose_sum(z.inst));
        } else {
            assert_int_equal(s.active, 0);
            assert_true(pose_sum(a.inst) == pose_sum(z.inst));
            assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(z.inst));
        }
    }
    free(a.mem); free(y.mem); free(z.mem);
    bsync_graph_destroy(g);
}

/* Two triggers for one switch in one tick, the first instant: used to divide by zero. */
static void test_same_tick_pair(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g), b = new_instance(g);
    tick(a.inst, NULL, 0);
    tick(b.inst, NULL, 0);
    const bsync_switch_trigger pair[2] = {play(RUN, 4, 1), play(WALK, 5, 0)};
    tick(a.inst, pair, 2);
    /* run had full weight when walk was pushed: walk fades in over run, idle at 0 */
    const fix16_t* w = bsync_instance_node_weights(a.inst, 0);
    assert_int_equal(w[IDLE], 0);
    assert_int_equal(w[WALK], 13107); /* 1/5 */
    assert_int_equal(w[RUN], BSYNC_FX_ONE - 13107);
    assert_int_equal(inert_of(a.inst).active, 1);
    assert_int_equal(inert_of(a.inst).total, 4);
    free(a.mem); free(b.mem);
    bsync_graph_destroy(g);
}

/* ------------------------------------------------------------------ arguments */

static void test_invalid(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g);
    tick(a.inst, NULL, 0);
    const uint64_t sum = bsync_instance_state_checksum(a.inst);
    bsync_switch_trigger bad[3] = {play(RUN, 5, 2), play(RUN, 0, 1), play(RUN, BSYNC_SWITCH_MAX_FADE_TICKS + 1u, 1)};
    for (int i = 0; i < 3; i++) {
        bsync_switch_trigger two[2] = {play(WALK, 3, 1), bad[i]}; /* a valid one first: nothing applied */
        assert_int_equal(tick_r(a.inst, two, 2), BSYNC_INVALID_ARGUMENT);
        assert_int_equal(bsync_instance_tick_count(a.inst), 1);
        assert_true(bsync_instance_state_checksum(a.inst) == sum);
        assert_int_equal(inert_of(a.inst).active, 0);
    }
    /* the longest decay is accepted */
    bsync_switch_trigger longest = play(RUN, BSYNC_SWITCH_MAX_FADE_TICKS, 1);
    tick(a.inst, &longest, 1);
    assert_int_equal(inert_of(a.inst).total, BSYNC_SWITCH_MAX_FADE_TICKS);
    /* repeating the newest state is ignored, inertialized or not: the running one is untouched */
    bsync_switch_trigger again = play(RUN, 3, 1);
    tick(a.inst, &again, 1);
    assert_int_equal(inert_of(a.inst).total, BSYNC_SWITCH_MAX_FADE_TICKS);
    assert_int_equal(inert_of(a.inst).elapsed, 1);
    bsync_inertia_state s;
    assert_int_equal(bsync_instance_inertia_state(NULL, 0, &s), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_inertia_state(a.inst, 1, &s), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_inertia_state(a.inst, 0, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_snapshot_size_now(NULL), 0);
    assert_int_equal(bsync_instance_snapshot_size_max(NULL), 0);
    /* no skeleton: BSYNC_MISMATCH, but argument errors come first; a cross-fade still works */
    bsync_graph* gn = switch_graph(IDLE, 0);
    inst_box n = new_instance(gn);
    const bsync_switch_trigger ti = play(RUN, 5, 1);
    assert_int_equal(tick_r(n.inst, &ti, 1), BSYNC_MISMATCH);
    assert_int_equal(bsync_instance_tick_count(n.inst), 0);
    bsync_switch_trigger mixed[2] = {ti, play(RUN, 5, 7)};
    assert_int_equal(tick_r(n.inst, mixed, 2), BSYNC_INVALID_ARGUMENT);
    const bsync_switch_trigger tf = play(RUN, 5, 0);
    tick(n.inst, &tf, 1);
    assert_int_equal(bsync_instance_inertia_state(n.inst, 0, &s), BSYNC_OK);
    assert_int_equal(s.active, 0);
    /* the instance memory grows only for switch graphs with a skeleton */
    assert_true(bsync_instance_memory_size(g) > bsync_instance_memory_size(gn));
    free(a.mem); free(n.mem);
    bsync_graph_destroy(g);
    bsync_graph_destroy(gn);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decay_values),
        cmocka_unit_test(test_curve_reference),
        cmocka_unit_test(test_idle_to_run),
        cmocka_unit_test(test_save_load),
        cmocka_unit_test(test_velocity_run_to_idle),
        cmocka_unit_test(test_interrupt_crossfade),
        cmocka_unit_test(test_interrupt_inertialized),
        cmocka_unit_test(test_same_tick_pair),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
