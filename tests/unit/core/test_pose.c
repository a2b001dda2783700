/* test_pose.c — bsync_pose_blend, _blend_additive and _local_to_model against hand-worked values
 * and double-precision references computed here with libm. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/pose.h"
#include "blendsync/simd.h"

#define ONE BSYNC_FX_ONE
#define FX(v) ((fix16_t)lround((double)(v) * 65536.0))

/* ---------------------------------------------------------------- test-side helpers */

static double urand(uint64_t* rng) { return (double)(bsync_test_rand(rng) >> 11) / 9007199254740992.0; }
static double srand1(uint64_t* rng) { return 2.0 * urand(rng) - 1.0; }

static bsync_trs trs_make(fix16_t tx, fix16_t ty, fix16_t tz, bsync_quat r, fix16_t sx, fix16_t sy, fix16_t sz) {
    bsync_trs x;
    x.t = bsync_vec3_make(tx, ty, tz);
    x.r = r;
    x.s = bsync_vec3_make(sx, sy, sz);
    return x;
}

static int trs_equal(const bsync_trs* a, const bsync_trs* b) {
    return a->t.x == b->t.x && a->t.y == b->t.y && a->t.z == b->t.z && a->r.x == b->r.x && a->r.y == b->r.y &&
           a->r.z == b->r.z && a->r.w == b->r.w && a->s.x == b->s.x && a->s.y == b->s.y && a->s.z == b->s.z;
}

static void assert_trs_equal(const bsync_trs* a, const bsync_trs* b) { assert_true(trs_equal(a, b)); }

typedef struct dq { double x, y, z, w; } dq;

static dq dq_of(bsync_quat q) {
    dq d = {q.x / 65536.0, q.y / 65536.0, q.z / 65536.0, q.w / 65536.0};
    return d;
}
static dq dq_normalize(dq q) {
    double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    dq r = {q.x / l, q.y / l, q.z / l, q.w / l};
    return r;
}
static double dq_dot(dq a, dq b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
static dq dq_mul(dq a, dq b) {
    dq r = {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
    return r;
}
static dq dq_conj(dq a) {
    dq r = {-a.x, -a.y, -a.z, a.w};
    return r;
}
/* Rotate v by unit q: q v q*. */
static void dq_rotate(dq q, const double v[3], double out[3]) {
    dq p = {v[0], v[1], v[2], 0};
    dq r = dq_mul(dq_mul(q, p), dq_conj(q));
    out[0] = r.x;
    out[1] = r.y;
    out[2] = r.z;
}
static bsync_quat random_unit_quat(uint64_t* rng) {
    dq q;
    do {
        q.x = srand1(rng); q.y = srand1(rng); q.z = srand1(rng); q.w = srand1(rng);
    } while (dq_dot(q, q) < 0.05);
    q = dq_normalize(q);
    return bsync_quat_make(FX(q.x), FX(q.y), FX(q.z), FX(q.w));
}
/* Largest |component difference| in raw steps between a fix16 quaternion and a double one. */
static double quat_err_raw(bsync_quat a, dq b) {
    double e = fabs(a.x - b.x * 65536.0);
    e = fmax(e, fabs(a.y - b.y * 65536.0));
    e = fmax(e, fabs(a.z - b.z * 65536.0));
    return fmax(e, fabs(a.w - b.w * 65536.0));
}
static bsync_trs random_trs(uint64_t* rng) {
    return trs_make(FX(srand1(rng) * 4), FX(srand1(rng) * 4), FX(srand1(rng) * 4), random_unit_quat(rng),
                    FX(0.5 + urand(rng)), FX(0.5 + urand(rng)), FX(0.5 + urand(rng)));
}

/* ---------------------------------------------------------------- blend: hand-worked values */

/* bsync_pose_blend_lerped (pose.h, pose rule 2): a single input of weight >= 1 comes out with every
 * rotation normalised (the lerps of a half-way sample: length about cos(theta / 2)), translations and
 * scales copied; a rotation unit within the rounding is its own normalisation; every other blend is
 * bsync_pose_blend's, masked or not, on every SIMD path; the argument checks are the same. */
static void test_blend_lerped(void** st) {
    (void)st;
    enum { N = 9 };
    uint64_t rng = 77;
    bsync_trs rest[N], a[N], b[N], out[N], want[N];
    for (int j = 0; j < N; j++) {
        rest[j] = random_trs(&rng);
        a[j] = random_trs(&rng);
        b[j] = random_trs(&rng);
        /* a: lerp-like rotations, half-way between two unit keys (not unit) */
        const bsync_quat k0 = random_unit_quat(&rng), k1 = random_unit_quat(&rng);
        a[j].r = bsync_quat_make(bsync_fx_lerp(k0.x, k1.x, ONE / 2), bsync_fx_lerp(k0.y, k1.y, ONE / 2),
                                 bsync_fx_lerp(k0.z, k1.z, ONE / 2), bsync_fx_lerp(k0.w, k1.w, ONE / 2));
    }
    a[0].r = bsync_quat_identity(); /* unit: copied as it is */
    a[1].r = bsync_quat_make(0, 0, 0, 3 * ONE / 4); /* length 0.75: normalised to the identity */
    static const bsync_simd_path paths[] = {BSYNC_SIMD_SCALAR, BSYNC_SIMD_AVX2, BSYNC_SIMD_AVX512, BSYNC_SIMD_NEON};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!bsync_simd_supported(paths[p])) continue;
        assert_int_equal(bsync_simd_set(paths[p]), BSYNC_OK);
        for (int wi = 0; wi < 2; wi++) {
            bsync_pose_input one = {a, wi ? 2 * ONE : ONE, NULL}; /* W = 1 and W > 1: the copy either way */
            assert_int_equal(bsync_pose_blend_lerped(rest, N, &one, 1, out), BSYNC_OK);
            int normalised = 0;
            for (int j = 0; j < N; j++) {
                assert_memory_equal(&out[j].t, &a[j].t, sizeof a[j].t);
                assert_memory_equal(&out[j].s, &a[j].s, sizeof a[j].s);
                const bsync_quat n = bsync_quat_normalize(a[j].r);
                assert_memory_equal(&out[j].r, &n, sizeof n);
                normalised += memcmp(&n, &a[j].r, sizeof n) != 0;
            }
            assert_true(normalised >= N - 1); /* all but the identity moved */
            const bsync_quat id = bsync_quat_identity();
            assert_memory_equal(&out[1].r, &id, sizeof id);
            /* bsync_pose_blend copies it bit for bit instead */
            assert_int_equal(bsync_pose_blend(rest, N, &one, 1, want), BSYNC_OK);
            assert_memory_equal(want, a, sizeof a);
        }
        /* two inputs, the rest remainder, a mask: the same as bsync_pose_blend */
        fix16_t mask[N];
        for (int j = 0; j < N; j++) mask[j] = j % 3 == 0 ? 0 : j % 3 == 1 ? ONE : ONE / 3;
        const bsync_pose_input cases[3][2] = {{{a, ONE / 3, NULL}, {b, 2 * ONE / 3, NULL}},
                                              {{a, ONE / 4, NULL}, {b, ONE / 4, NULL}},
                                              {{a, ONE, mask}, {b, ONE / 2, NULL}}};
        for (int c = 0; c < 3; c++) {
            assert_int_equal(bsync_pose_blend(rest, N, cases[c], 2, want), BSYNC_OK);
            assert_int_equal(bsync_pose_blend_lerped(rest, N, cases[c], 2, out), BSYNC_OK);
            assert_memory_equal(out, want, sizeof out);
        }
        /* a masked single input of weight 1 where the mask is 1.0: that joint is a copy, normalised */
        const bsync_pose_input masked = {a, ONE, mask};
        assert_int_equal(bsync_pose_blend_lerped(rest, N, &masked, 1, out), BSYNC_OK);
        const bsync_quat n4 = bsync_quat_normalize(a[4].r);
        assert_int_equal(mask[4], ONE);
        assert_memory_equal(&out[4].r, &n4, sizeof n4);
        assert_memory_equal(&out[3], &rest[3], sizeof rest[3]); /* mask 0: the rest pose */
    }
    assert_int_equal(bsync_simd_set(BSYNC_SIMD_AUTO), BSYNC_OK);
    const bsync_pose_input one = {a, ONE, NULL};
    assert_int_equal(bsync_pose_blend_lerped(NULL, N, &one, 1, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_pose_blend_lerped(rest, BSYNC_MAX_JOINTS + 1, &one, 1, out), BSYNC_LIMIT_EXCEEDED);
    assert_int_equal(bsync_pose_blend_lerped(rest, N, &one, 1, a), BSYNC_INVALID_ARGUMENT); /* out over its input */
}

static void test_blend_two_poses_quarter(void** st) {
    (void)st;
    const bsync_quat id = bsync_quat_identity();
    bsync_trs rest[2] = {trs_make(100, 100, 100, id, ONE, ONE, ONE), trs_make(100, 100, 100, id, ONE, ONE, ONE)};
    bsync_trs a[2] = {trs_make(1 * ONE, 2 * ONE, 3 * ONE, id, ONE, ONE, ONE),
                      trs_make(1, -1, 0, id, ONE, ONE, ONE)};
    bsync_trs b[2] = {trs_make(5 * ONE, -2 * ONE, 7 * ONE, bsync_quat_make(0, 0, ONE, 0), 3 * ONE, ONE, 2 * ONE),
                      trs_make(2, -2, 3, id, ONE, ONE, ONE)};
    bsync_pose_input in[2] = {{a, ONE / 4, NULL}, {b, 3 * ONE / 4, NULL}};
    bsync_trs out[2];
    assert_int_equal(bsync_pose_blend(rest, 2, in, 2, out), BSYNC_OK);
    /* 0.25 * (1,2,3) + 0.75 * (5,-2,7) = (4, -1, 6); scale 0.25*(1,1,1) + 0.75*(3,1,2) = (2.5, 1, 1.75) */
    assert_int_equal(out[0].t.x, 4 * ONE);
    assert_int_equal(out[0].t.y, -1 * ONE);
    assert_int_equal(out[0].t.z, 6 * ONE);
    assert_int_equal(out[0].s.x, 5 * ONE / 2);
    assert_int_equal(out[0].s.y, ONE);
    assert_int_equal(out[0].s.z, 7 * ONE / 4);
    /* rotation: normalize(0.25 * (0,0,0,1) + 0.75 * (0,0,1,0)) = (0, 0, 3, 1) / sqrt(10) */
    assert_int_equal(out[0].r.x, 0);
    assert_int_equal(out[0].r.y, 0);
    assert_true(labs((long)out[0].r.z - lround(3.0 / sqrt(10.0) * 65536.0)) <= 1);
    assert_true(labs((long)out[0].r.w - lround(1.0 / sqrt(10.0) * 65536.0)) <= 1);
    /* raw rounding, once, ties away from zero: 0.25*1 + 0.75*2 = 1.75 -> 2; 0.25*-1 + 0.75*-2 = -1.75
     * -> -2; 0.25*0 + 0.75*3 = 2.25 -> 2 */
    assert_int_equal(out[1].t.x, 2);
    assert_int_equal(out[1].t.y, -2);
    assert_int_equal(out[1].t.z, 2);
    /* identity with identity: the exactly unit sum normalises to itself */
    assert_memory_equal(&out[1].r, &id, sizeof id);

    /* exact ties: 0.5 * 1 + 0.5 * 2 = 1.5 -> 2, 0.5 * -1 + 0.5 * -2 = -1.5 -> -2 */
    bsync_pose_input half[2] = {{a, ONE / 2, NULL}, {b, ONE / 2, NULL}};
    assert_int_equal(bsync_pose_blend(rest, 2, half, 2, out), BSYNC_OK);
    assert_int_equal(out[1].t.x, 2);
    assert_int_equal(out[1].t.y, -2);
    assert_int_equal(out[1].t.z, 2); /* 0.5 * 0 + 0.5 * 3 = 1.5 -> 2 */
    assert_int_equal(out[0].t.x, 3 * ONE);
}

static void test_blend_below_one_takes_rest(void** st) {
    (void)st;
    const bsync_quat id = bsync_quat_identity();
    bsync_trs rest = trs_make(10 * ONE, 0, -8 * ONE, id, ONE, 2 * ONE, ONE);
    bsync_trs a = trs_make(2 * ONE, 4 * ONE, 0, bsync_quat_make(FX(0.6), 0, 0, FX(0.8)), 3 * ONE, 2 * ONE, 0);
    bsync_pose_input in = {&a, ONE / 4, NULL};
    bsync_trs out;
    assert_int_equal(bsync_pose_blend(&rest, 1, &in, 1, &out), BSYNC_OK);
    /* 0.25 * a + 0.75 * rest */
    assert_int_equal(out.t.x, 8 * ONE);
    assert_int_equal(out.t.y, 1 * ONE);
    assert_int_equal(out.t.z, -6 * ONE);
    assert_int_equal(out.s.x, 3 * ONE / 2);
    assert_int_equal(out.s.y, 2 * ONE);
    assert_int_equal(out.s.z, 3 * ONE / 4);
    /* 0.25 * (0.6, 0, 0, 0.8) + 0.75 * (0, 0, 0, 1) = (0.15, 0, 0, 0.95), normalised */
    dq e = dq_normalize((dq){0.25 * a.r.x / 65536.0, 0, 0, 0.25 * a.r.w / 65536.0 + 0.75});
    assert_true(quat_err_raw(out.r, e) <= 1.0);
    assert_true(fabs(e.x - 0.15 / sqrt(0.925)) < 1e-4);
    assert_int_equal(out.r.y, 0);
    assert_int_equal(out.r.z, 0);

    /* The rest rotation is aligned to the first input's hemisphere: a rest of -identity gives the
     * same rotation as +identity. */
    bsync_trs rest_neg = rest;
    rest_neg.r = bsync_quat_make(0, 0, 0, -ONE);
    bsync_trs out2;
    assert_int_equal(bsync_pose_blend(&rest_neg, 1, &in, 1, &out2), BSYNC_OK);
    assert_trs_equal(&out, &out2);

    /* Two inputs, W = 0.5 + 0.25: rest takes 0.25. t.x = 0.5*2 + 0.25*6 + 0.25*10 = 5 */
    bsync_trs c = trs_make(6 * ONE, 0, 0, id, ONE, ONE, ONE);
    bsync_pose_input in2[2] = {{&a, ONE / 2, NULL}, {&c, ONE / 4, NULL}};
    assert_int_equal(bsync_pose_blend(&rest, 1, in2, 2, &out), BSYNC_OK);
    assert_int_equal(out.t.x, 5 * ONE);
    assert_int_equal(out.t.y, 2 * ONE);
    assert_int_equal(out.t.z, -2 * ONE);
}

static void test_blend_above_one_normalised(void** st) {
    (void)st;
    uint64_t rng = 11;
    enum { N = 7 };
    bsync_trs rest[N], a[N], b[N], o1[N], o2[N];
    for (int j = 0; j < N; j++) {
        rest[j] = random_trs(&rng);
        a[j] = random_trs(&rng);
        b[j] = random_trs(&rng);
    }
    a[0].t.x = 3 * ONE;
    b[0].t.x = 6 * ONE;
    a[0].t.y = 1;
    b[0].t.y = 2;
    bsync_pose_input half[2] = {{a, ONE / 2, NULL}, {b, ONE / 2, NULL}};
    bsync_pose_input two[2] = {{a, 2 * ONE, NULL}, {b, 2 * ONE, NULL}};
    bsync_pose_input big[2] = {{a, 64 * ONE, NULL}, {b, 64 * ONE, NULL}};
    assert_int_equal(bsync_pose_blend(rest, N, half, 2, o1), BSYNC_OK);
    assert_int_equal(bsync_pose_blend(rest, N, two, 2, o2), BSYNC_OK);
    assert_memory_equal(o1, o2, sizeof o1); /* 2 and 2 = 0.5 and 0.5, bit for bit */
    assert_int_equal(o2[0].t.x, 9 * ONE / 2);
    assert_int_equal(o2[0].t.y, 2); /* (2*1 + 2*2) / 4 = 1.5 -> 2 */
    assert_int_equal(bsync_pose_blend(rest, N, big, 2, o2), BSYNC_OK);
    assert_memory_equal(o1, o2, sizeof o1);

    /* 3 and 1 -> 0.75 and 0.25: (0.75*3 + 0.25*6) = 3.75 */
    bsync_pose_input w31[2] = {{a, 3 * ONE, NULL}, {b, ONE, NULL}};
    assert_int_equal(bsync_pose_blend(rest, N, w31, 2, o2), BSYNC_OK);
    assert_int_equal(o2[0].t.x, 15 * ONE / 4);
    /* 1 and 2: (3 + 12) / 3 = 5 exactly */
    bsync_pose_input w12[2] = {{a, ONE, NULL}, {b, 2 * ONE, NULL}};
    assert_int_equal(bsync_pose_blend(rest, N, w12, 2, o2), BSYNC_OK);
    assert_int_equal(o2[0].t.x, 5 * ONE);
    /* (1*1 + 2*2)/3 = 5/3 = 1.67 -> 2 raw; divided once, not per weight */
    assert_int_equal(o2[0].t.y, 2);

    /* One input of weight exactly 1, or alone above 1: copied bit for bit, even a rotation that is not
     * unit (normalising it would change it). */
    a[1].r = bsync_quat_make(FX(0.6) + 1, FX(0.8), 0, 0);
    a[2].r = bsync_quat_make(1, 2, 3, ONE - 1);
    for (int k = 0; k < 3; k++) {
        const fix16_t ws[3] = {ONE, ONE + 1, 37 * ONE / 2};
        bsync_pose_input one = {a, ws[k], NULL};
        assert_int_equal(bsync_pose_blend(rest, N, &one, 1, o2), BSYNC_OK);
        assert_memory_equal(o2, a, sizeof a);
    }
    /* With a zero-weight second input the single contributor is still copied. */
    bsync_pose_input onez[2] = {{NULL, 0, NULL}, {a, ONE, NULL}};
    assert_int_equal(bsync_pose_blend(rest, N, onez, 2, o2), BSYNC_OK);
    assert_memory_equal(o2, a, sizeof a);
}

static void test_blend_all_zero_gives_rest(void** st) {
    (void)st;
    uint64_t rng = 5;
    enum { N = 4 };
    bsync_trs rest[N], a[N], out[N];
    for (int j = 0; j < N; j++) {
        rest[j] = random_trs(&rng);
        a[j] = random_trs(&rng);
    }
    rest[1].r = bsync_quat_make(3, 1, 4, 1); /* not unit: must still be copied as is */
    memset(out, 0x5A, sizeof out);
    assert_int_equal(bsync_pose_blend(rest, N, NULL, 0, out), BSYNC_OK);
    assert_memory_equal(out, rest, sizeof rest);
    /* zero and negative weights; their local and mask are NULL and never read */
    bsync_pose_input in[3] = {{NULL, 0, NULL}, {NULL, -ONE, NULL}, {NULL, INT32_MIN, NULL}};
    memset(out, 0x5A, sizeof out);
    assert_int_equal(bsync_pose_blend(rest, N, in, 3, out), BSYNC_OK);
    assert_memory_equal(out, rest, sizeof rest);
    /* negative weight with a real pose counts as 0 */
    bsync_pose_input neg = {a, -ONE / 2, NULL};
    assert_int_equal(bsync_pose_blend(rest, N, &neg, 1, out), BSYNC_OK);
    assert_memory_equal(out, rest, sizeof rest);
    /* a zero-weight input between contributing ones changes nothing */
    bsync_pose_input mix[3] = {{a, ONE / 2, NULL}, {NULL, 0, NULL}, {rest, ONE / 2, NULL}};
    bsync_pose_input mix2[2] = {{a, ONE / 2, NULL}, {rest, ONE / 2, NULL}};
    bsync_trs out2[N];
    assert_int_equal(bsync_pose_blend(rest, N, mix, 3, out), BSYNC_OK);
    assert_int_equal(bsync_pose_blend(rest, N, mix2, 2, out2), BSYNC_OK);
    assert_memory_equal(out, out2, sizeof out);
    /* a weight below 1 blended with rest equals blending rest explicitly as second input */
    bsync_pose_input quarter = {a, ONE / 4, NULL};
    bsync_pose_input explicit_rest[2] = {{a, ONE / 4, NULL}, {rest, 3 * ONE / 4, NULL}};
    assert_int_equal(bsync_pose_blend(rest, N, &quarter, 1, out), BSYNC_OK);
    assert_int_equal(bsync_pose_blend(rest, N, explicit_rest, 2, out2), BSYNC_OK);
    assert_memory_equal(out, out2, sizeof out);
    /* joint_count 0 writes nothing */
    memset(out, 0x5A, sizeof out);
    memcpy(out2, out, sizeof out);
    assert_int_equal(bsync_pose_blend(rest, 0, &quarter, 1, out), BSYNC_OK);
    assert_memory_equal(out, out2, sizeof out);
}

static void test_blend_masks(void** st) {
    (void)st;
    const bsync_quat id = bsync_quat_identity();
    enum { N = 5 };
    bsync_trs rest[N], a[N], b[N], out[N];
    for (int j = 0; j < N; j++) {
        rest[j] = trs_make(10 * ONE, 0, 0, id, ONE, ONE, ONE);
        a[j] = trs_make(3 * ONE, 0, 0, bsync_quat_make(0, ONE, 0, 0), 2 * ONE, ONE, ONE);
        b[j] = trs_make(6 * ONE, 0, 0, id, ONE, ONE, ONE);
    }
    /* mask values out of [0, 1] are clamped: 2.0 -> 1, -1 -> 0 */
    const fix16_t mask[N] = {ONE, 0, ONE / 2, 2 * ONE, -ONE};
    bsync_pose_input only_a = {a, ONE, mask};
    assert_int_equal(bsync_pose_blend(rest, N, &only_a, 1, out), BSYNC_OK);
    assert_trs_equal(&out[0], &a[0]);              /* mask 1: a */
    assert_trs_equal(&out[1], &rest[1]);           /* mask 0: rest */
    assert_int_equal(out[2].t.x, 13 * ONE / 2);    /* 0.5 * 3 + 0.5 * 10 */
    assert_int_equal(out[2].s.x, 3 * ONE / 2);
    assert_trs_equal(&out[3], &a[3]);              /* 2.0 clamps to 1 */
    assert_trs_equal(&out[4], &rest[4]);           /* -1 clamps to 0 */

    bsync_pose_input ab[2] = {{a, ONE, mask}, {b, ONE, NULL}};
    assert_int_equal(bsync_pose_blend(rest, N, ab, 2, out), BSYNC_OK);
    assert_int_equal(out[0].t.x, 9 * ONE / 2);     /* W = 2: (3 + 6) / 2 */
    assert_trs_equal(&out[1], &b[1]);              /* only b contributes with weight 1 */
    assert_int_equal(out[2].t.x, 5 * ONE);         /* W = 1.5: (0.5*3 + 6) / 1.5 = 5 */
    assert_int_equal(out[2].s.x, 87381);           /* (0.5*2 + 1) / 1.5 = 4/3 = raw 87381.33 -> 87381 */
    assert_int_equal(out[4].t.x, 6 * ONE);

    /* weight times mask: 0.5 * 0.5 = 0.25 with rest remainder 0.75: 0.25*3 + 0.75*10 = 8.25 */
    bsync_pose_input half_a = {a, ONE / 2, mask};
    assert_int_equal(bsync_pose_blend(rest, N, &half_a, 1, out), BSYNC_OK);
    assert_int_equal(out[2].t.x, 33 * ONE / 4);
    assert_int_equal(out[0].t.x, 13 * ONE / 2);
    assert_trs_equal(&out[1], &rest[1]);
}

/* ---------------------------------------------------------------- blend: rotations vs double */

static void test_blend_rotation_vs_double(void** st) {
    (void)st;
    uint64_t rng = 1234;
    enum { J = 8, MAXIN = 6 };
    double worst = 0;
    int checked = 0;
    for (int round = 0; round < 400; round++) {
        bsync_trs rest[J], poses[MAXIN][J], out[J];
        bsync_pose_input in[MAXIN];
        uint32_t n = 1 + (uint32_t)(bsync_test_rand(&rng) % MAXIN);
        double scale = (round % 3 == 0) ? 0.3 : (round % 3 == 1 ? 1.0 : 5.0); /* W below / near / above 1 */
        for (int j = 0; j < J; j++) rest[j] = random_trs(&rng);
        for (uint32_t i = 0; i < n; i++) {
            for (int j = 0; j < J; j++) poses[i][j] = random_trs(&rng);
            in[i].local = poses[i];
            in[i].weight = FX(urand(&rng) * scale / n + 0.001);
            in[i].joint_weights = NULL;
        }
        assert_int_equal(bsync_pose_blend(rest, J, in, n, out), BSYNC_OK);
        for (int j = 0; j < J; j++) {
            double W = 0;
            for (uint32_t i = 0; i < n; i++) W += in[i].weight / 65536.0;
            if (n == 1 && W >= 1.0) continue; /* copied: covered elsewhere */
            dq q0 = dq_of(poses[0][j].r), acc = {0, 0, 0, 0};
            int near_zero = 0;
            for (uint32_t i = 0; i <= n; i++) {
                double w;
                dq q;
                if (i < n) {
                    w = in[i].weight / 65536.0;
                    q = dq_of(poses[i][j].r);
                } else {
                    if (W >= 1.0) break;
                    w = 1.0 - W;
                    q = dq_of(rest[j].r);
                }
                double d = dq_dot(q0, q);
                if (fabs(d) < 1e-3) near_zero = 1; /* hemisphere ambiguous: skip */
                double sg = d < 0 ? -1.0 : 1.0;
                acc.x += sg * w * q.x; acc.y += sg * w * q.y; acc.z += sg * w * q.z; acc.w += sg * w * q.w;
            }
            if (near_zero) continue;
            if (sqrt(dq_dot(acc, acc)) < 0.2 * (W > 1 ? W : 1)) continue; /* near-cancelling: ill-conditioned */
            dq ref = dq_normalize(acc);
            double e = quat_err_raw(out[j].r, ref);
            if (e > worst) worst = e;
            assert_true(e <= 1.0); /* pose.h: about one raw step (the brief asked for 2) */
            checked++;
        }
    }
    assert_true(checked > 1500);
    print_message("rotation blend: %d joints checked, worst error %.3f raw steps (bound 1)\n", checked, worst);
}

static void test_blend_q_and_minus_q(void** st) {
    (void)st;
    uint64_t rng = 77;
    for (int round = 0; round < 200; round++) {
        bsync_trs rest = random_trs(&rng), p = random_trs(&rng), q = random_trs(&rng);
        bsync_trs qn = q;
        qn.r = bsync_quat_neg(q.r);
        fix16_t wa = FX(urand(&rng) * 1.5 + 0.01), wb = FX(urand(&rng) * 1.5 + 0.01);
        /* skip near-orthogonal pairs, where the rounded dot product may be 0 for both signs */
        if (fabs(dq_dot(dq_of(p.r), dq_of(q.r))) < 1e-3 || fabs(dq_dot(dq_of(rest.r), dq_of(q.r))) < 1e-3) continue;
        bsync_trs o1, o2;
        /* p first: q and -q are both aligned to p -> identical bits */
        bsync_pose_input in1[2] = {{&p, wa, NULL}, {&q, wb, NULL}};
        bsync_pose_input in2[2] = {{&p, wa, NULL}, {&qn, wb, NULL}};
        assert_int_equal(bsync_pose_blend(&rest, 1, in1, 2, &o1), BSYNC_OK);
        assert_int_equal(bsync_pose_blend(&rest, 1, in2, 2, &o2), BSYNC_OK);
        assert_trs_equal(&o1, &o2);
        /* q first vs -q first: everything aligns to it, so the result is exactly negated (same rotation) */
        bsync_pose_input in3[2] = {{&q, wa, NULL}, {&p, wb, NULL}};
        bsync_pose_input in4[2] = {{&qn, wa, NULL}, {&p, wb, NULL}};
        assert_int_equal(bsync_pose_blend(&rest, 1, in3, 2, &o1), BSYNC_OK);
        assert_int_equal(bsync_pose_blend(&rest, 1, in4, 2, &o2), BSYNC_OK);
        assert_int_equal(o1.r.x, -o2.r.x);
        assert_int_equal(o1.r.y, -o2.r.y);
        assert_int_equal(o1.r.z, -o2.r.z);
        assert_int_equal(o1.r.w, -o2.r.w);
        assert_int_equal(o1.t.x, o2.t.x);
        assert_int_equal(o1.s.y, o2.s.y);
        /* q and -q blended together: the rotation of q (within normalisation, 1 raw step) */
        bsync_pose_input in5[2] = {{&q, wa, NULL}, {&qn, wb, NULL}};
        assert_int_equal(bsync_pose_blend(&rest, 1, in5, 2, &o1), BSYNC_OK);
        if (wa + wb >= ONE) assert_true(quat_err_raw(o1.r, dq_normalize(dq_of(q.r))) <= 1.0);
    }
}

static void test_blend_extreme_values(void** st) {
    (void)st;
    /* 64 inputs of weight 64.0 with the most extreme raw values: no overflow (UBSan), averages. */
    enum { N = 2 };
    static bsync_trs poses[BSYNC_MAX_BLEND_POSES][N];
    bsync_pose_input in[BSYNC_MAX_BLEND_POSES];
    bsync_trs rest[N], out[N];
    for (int j = 0; j < N; j++) rest[j] = bsync_trs_identity();
    for (int i = 0; i < BSYNC_MAX_BLEND_POSES; i++) {
        for (int j = 0; j < N; j++) {
            poses[i][j] = trs_make(INT32_MAX, INT32_MIN, i % 2 ? INT32_MAX : INT32_MIN,
                                   bsync_quat_make(INT32_MAX, INT32_MAX, INT32_MIN, INT32_MAX), INT32_MAX,
                                   INT32_MIN, 1);
        }
        in[i].local = poses[i];
        in[i].weight = 64 * ONE;
        in[i].joint_weights = NULL;
    }
    assert_int_equal(bsync_pose_blend(rest, N, in, BSYNC_MAX_BLEND_POSES, out), BSYNC_OK);
    assert_int_equal(out[0].t.x, INT32_MAX);
    assert_int_equal(out[0].t.y, BSYNC_FX_MIN); /* -32768.0 saturates to the result range */
    assert_int_equal(out[0].t.z, -1);           /* 32 (2^31 - 1) - 32 * 2^31 = -32 raw sum / 64 = -0.5 -> -1 */
    assert_int_equal(out[0].s.z, 1);
    /* rotation direction (1, 1, -1, 1) / 2 */
    assert_int_equal(out[0].r.x, ONE / 2);
    assert_int_equal(out[0].r.z, -ONE / 2);
}

/* ---------------------------------------------------------------- additive */

static void test_additive_zero_weight_is_base(void** st) {
    (void)st;
    uint64_t rng = 99;
    enum { N = 6 };
    bsync_trs base[N], add[N], ref[N], out[N];
    for (int j = 0; j < N; j++) {
        base[j] = random_trs(&rng);
        add[j] = random_trs(&rng);
        ref[j] = random_trs(&rng);
    }
    base[0].r = bsync_quat_make(1, 2, 3, 4); /* not unit: still copied */
    const fix16_t zero_weights[3] = {0, -ONE, INT32_MIN};
    for (int k = 0; k < 3; k++) {
        memset(out, 0x5A, sizeof out);
        assert_int_equal(bsync_pose_blend_additive(base, add, ref, N, zero_weights[k], NULL, out), BSYNC_OK);
        assert_memory_equal(out, base, sizeof base);
    }
    /* mask zero (or negative) on some joints: those are base bit for bit */
    const fix16_t mask[N] = {0, ONE, -5, ONE / 2, 0, ONE};
    assert_int_equal(bsync_pose_blend_additive(base, add, ref, N, ONE, mask, out), BSYNC_OK);
    assert_trs_equal(&out[0], &base[0]);
    assert_trs_equal(&out[2], &base[2]);
    assert_trs_equal(&out[4], &base[4]);
    assert_false(trs_equal(&out[1], &base[1]));
}

static void test_additive_full_weight(void** st) {
    (void)st;
    const fix16_t H = BSYNC_FX_HALF;
    /* Quaternions with components in {0, +-0.5, +-1} are exactly unit and their products are exact,
     * so ref * delta, conj(ref) * add and base * delta involve no rounding. */
    const bsync_quat qs[7] = {{H, H, H, H},    {H, -H, H, H}, {-H, H, H, H},  {ONE, 0, 0, 0},
                              {0, 0, ONE, 0}, {0, 0, 0, ONE}, {H, H, -H, -H}};
    for (int ib = 0; ib < 7; ib++) {
        for (int ir = 0; ir < 7; ir++) {
            for (int id = 0; id < 7; id++) {
                bsync_quat delta = qs[id];
                bsync_trs base = trs_make(ONE, -2 * ONE, 3, qs[ib], 2 * ONE, 3 * ONE, ONE / 2);
                bsync_trs ref = trs_make(5 * ONE, 7, -ONE, qs[ir], 2 * ONE, ONE / 2, ONE);
                /* add = ref * delta; translation add - ref = (1, 2, -3) raw-exact; scale add/ref = 1.5, 4, 0.25 */
                bsync_trs add = trs_make(5 * ONE + 1, 7 + 2, -ONE - 3, bsync_quat_mul(qs[ir], delta), 3 * ONE,
                                         2 * ONE, ONE / 4);
                bsync_trs out;
                assert_int_equal(bsync_pose_blend_additive(&base, &add, &ref, 1, ONE, NULL, &out), BSYNC_OK);
                assert_int_equal(out.t.x, ONE + 1);
                assert_int_equal(out.t.y, -2 * ONE + 2);
                assert_int_equal(out.t.z, 0);
                assert_int_equal(out.s.x, 3 * ONE);      /* 2 * 1.5 */
                assert_int_equal(out.s.y, 12 * ONE);     /* 3 * 4 */
                assert_int_equal(out.s.z, ONE / 8);      /* 0.5 * 0.25 */
                /* base * delta, exactly; nlerp takes the short arc, so a delta with w < 0 comes back
                 * as base * (-delta), exactly negated: the same rotation */
                bsync_quat expect = bsync_quat_mul(base.r, delta);
                dq e = dq_of(expect);
                double d = dq_dot(dq_of(out.r), e);
                if (d < 0) e = dq_of(bsync_quat_neg(expect));
                assert_true(quat_err_raw(out.r, e) == 0.0);
                if (delta.w >= 0) assert_memory_equal(&out.r, &expect, sizeof expect);
                else assert_true(d < 0);
                /* weight above 1 clamps to 1 */
                bsync_trs out2;
                assert_int_equal(bsync_pose_blend_additive(&base, &add, &ref, 1, 5 * ONE, NULL, &out2), BSYNC_OK);
                assert_trs_equal(&out, &out2);
            }
        }
    }
}

static void test_additive_partial_weight(void** st) {
    (void)st;
    const bsync_quat id = bsync_quat_identity();
    /* hand values at w = 0.5 */
    bsync_trs base = trs_make(ONE, 0, 0, id, 2 * ONE, ONE, 5 * ONE);
    bsync_trs ref = trs_make(ONE, 0, 0, id, ONE, 0, 2 * ONE);
    bsync_trs add = trs_make(3 * ONE, 1, -1, bsync_quat_make(0, 0, ONE, 0), 3 * ONE, 7 * ONE, 2 * ONE);
    bsync_trs out;
    assert_int_equal(bsync_pose_blend_additive(&base, &add, &ref, 1, ONE / 2, NULL, &out), BSYNC_OK);
    assert_int_equal(out.t.x, 2 * ONE);   /* 1 + 0.5 * 2 */
    assert_int_equal(out.t.y, 1);         /* 0 + 0.5 * 1 raw = 0.5 -> 1 (ties away) */
    assert_int_equal(out.t.z, -1);        /* -0.5 -> -1 */
    assert_int_equal(out.s.x, 4 * ONE);   /* 2 * (1 + 0.5 * (3 - 1)) */
    assert_int_equal(out.s.y, ONE);       /* ref.s 0: factor 1 */
    assert_int_equal(out.s.z, 5 * ONE);   /* ratio 1: factor 1 */
    /* nlerp(identity, 180 deg about z, 0.5) = 90 deg about z */
    dq e = {0, 0, sqrt(0.5), sqrt(0.5)};
    assert_true(quat_err_raw(out.r, e) <= 1.0);
    /* the same via mask 1 with weight 0.5, and via weight 1 with mask 0.5 */
    const fix16_t m1 = ONE, mh = ONE / 2;
    bsync_trs o2;
    assert_int_equal(bsync_pose_blend_additive(&base, &add, &ref, 1, ONE / 2, &m1, &o2), BSYNC_OK);
    assert_trs_equal(&out, &o2);
    assert_int_equal(bsync_pose_blend_additive(&base, &add, &ref, 1, ONE, &mh, &o2), BSYNC_OK);
    assert_trs_equal(&out, &o2);

    /* random rotations vs a double reference: base * normalize(lerp(identity, +-conj(ref) * add, w)) */
    uint64_t rng = 2024;
    double worst = 0;
    for (int round = 0; round < 2000; round++) {
        bsync_trs b = random_trs(&rng), a = random_trs(&rng), r = random_trs(&rng);
        fix16_t w = FX(urand(&rng));
        bsync_trs o;
        assert_int_equal(bsync_pose_blend_additive(&b, &a, &r, 1, w, NULL, &o), BSYNC_OK);
        if (w == 0) continue;
        double wd = w / 65536.0;
        dq d = dq_mul(dq_conj(dq_of(r.r)), dq_of(a.r));
        if (fabs(d.w) < 1e-3) continue; /* short-arc sign ambiguous */
        if (d.w < 0) { d.x = -d.x; d.y = -d.y; d.z = -d.z; d.w = -d.w; }
        dq l = {wd * d.x, wd * d.y, wd * d.z, 1 - wd + wd * d.w};
        dq ref_q = dq_mul(dq_of(b.r), dq_normalize(l));
        double err = quat_err_raw(o.r, ref_q);
        if (err > worst) worst = err;
        assert_true(err <= 4.0);
        /* translation: base + w (add - ref), one rounding */
        double tx = b.t.x / 65536.0 + wd * (a.t.x - r.t.x) / 65536.0;
        assert_true(fabs(o.t.x - tx * 65536.0) <= 0.5);
        /* scale: within the two roundings (ratio, product) and a third (w * (ratio - 1)) */
        double sx = b.s.x / 65536.0 * (1 + wd * ((double)a.s.x / r.s.x - 1));
        assert_true(fabs(o.s.x - sx * 65536.0) <= 3.0);
    }
    print_message("additive rotation: worst error %.3f raw steps (bound 4)\n", worst);
}

/* ---------------------------------------------------------------- local to model */

typedef struct dtrs { double t[3]; dq r; double s[3]; } dtrs;

static dtrs dtrs_of(const bsync_trs* x) {
    dtrs d;
    d.t[0] = x->t.x / 65536.0; d.t[1] = x->t.y / 65536.0; d.t[2] = x->t.z / 65536.0;
    d.r = dq_of(x->r);
    d.s[0] = x->s.x / 65536.0; d.s[1] = x->s.y / 65536.0; d.s[2] = x->s.z / 65536.0;
    return d;
}
static dtrs dtrs_compose(const dtrs* p, const dtrs* l) {
    dtrs o;
    double sp[3] = {p->s[0] * l->t[0], p->s[1] * l->t[1], p->s[2] * l->t[2]}, rp[3];
    dq_rotate(p->r, sp, rp);
    for (int k = 0; k < 3; k++) {
        o.t[k] = p->t[k] + rp[k];
        o.s[k] = p->s[k] * l->s[k];
    }
    o.r = dq_mul(p->r, l->r);
    return o;
}

static void test_local_to_model_chain_vs_double(void** st) {
    (void)st;
    enum { N = 20 };
    uint64_t rng = 31337;
    double worst_t = 0, worst_r = 0, worst_s = 0;
    for (int round = 0; round < 50; round++) {
        int16_t parents[N];
        bsync_trs local[N], model[N];
        dtrs ref[N];
        for (int j = 0; j < N; j++) {
            parents[j] = (int16_t)(j - 1); /* a chain: joint 0 is the root */
            local[j] = random_trs(&rng);
            /* bones up to 1 unit, scale in [0.9, 1.1] (uniform for half of the rounds) */
            local[j].t = bsync_vec3_make(FX(srand1(&rng) * 0.6), FX(srand1(&rng) * 0.6), FX(srand1(&rng) * 0.6));
            fix16_t s0 = FX(0.9 + 0.2 * urand(&rng));
            local[j].s = round % 2 ? bsync_vec3_make(s0, s0, s0)
                                   : bsync_vec3_make(s0, FX(0.9 + 0.2 * urand(&rng)), FX(0.9 + 0.2 * urand(&rng)));
        }
        assert_int_equal(bsync_pose_local_to_model(parents, N, local, 0, N, model), BSYNC_OK);
        assert_trs_equal(&model[0], &local[0]); /* root unchanged */
        ref[0] = dtrs_of(&local[0]);
        for (int j = 1; j < N; j++) {
            dtrs l = dtrs_of(&local[j]);
            ref[j] = dtrs_compose(&ref[j - 1], &l);
        }
        for (int j = 0; j < N; j++) {
            double et = fmax(fabs(model[j].t.x / 65536.0 - ref[j].t[0]),
                             fmax(fabs(model[j].t.y / 65536.0 - ref[j].t[1]), fabs(model[j].t.z / 65536.0 - ref[j].t[2])));
            double er = quat_err_raw(model[j].r, ref[j].r) / 65536.0;
            double es = fmax(fabs(model[j].s.x / 65536.0 - ref[j].s[0]),
                             fmax(fabs(model[j].s.y / 65536.0 - ref[j].s[1]), fabs(model[j].s.z / 65536.0 - ref[j].s[2])));
            worst_t = fmax(worst_t, et);
            worst_r = fmax(worst_r, er);
            worst_s = fmax(worst_s, es);
            /* Stated tolerances for a 20-deep chain: each compose rounds each quaternion component
             * once (<= 2 raw steps with the input error, 3e-5) and the scale once (0.5 raw); errors add
             * along the chain (20 levels), and the position error is the rotation error times the
             * lever arm (<= 20 bones of <= 1 unit) plus its own roundings. */
            assert_true(et <= 1e-3);
            assert_true(er <= 2.5e-4);
            assert_true(es <= 2e-4);
        }
    }
    print_message("local-to-model 20-chain: worst |dt| %.2e, |dq| %.2e, |ds| %.2e\n", worst_t, worst_r, worst_s);
}

static void random_tree(uint64_t* rng, int16_t* parents, bsync_trs* local, int n) {
    for (int j = 0; j < n; j++) {
        /* a few roots, otherwise a random earlier parent */
        parents[j] = (j == 0 || bsync_test_rand(rng) % 8 == 0) ? (int16_t)BSYNC_NO_PARENT
                                                                : (int16_t)(bsync_test_rand(rng) % (uint64_t)j);
        local[j] = random_trs(rng);
    }
}

static void test_local_to_model_partial_equals_full(void** st) {
    (void)st;
    enum { N = 50 };
    uint64_t rng = 4242;
    int16_t parents[N];
    bsync_trs local[N], full[N], part[N];
    random_tree(&rng, parents, local, N);
    assert_int_equal(bsync_pose_local_to_model(parents, N, local, 0, N, full), BSYNC_OK);
    for (int j = 0; j < N; j++) {
        if (parents[j] == BSYNC_NO_PARENT) assert_trs_equal(&full[j], &local[j]);
        else {
            bsync_trs e = bsync_trs_compose(&full[parents[j]], &local[j]);
            assert_trs_equal(&full[j], &e);
        }
    }
    const uint32_t splits[] = {0, 1, 7, 25, 49, 50};
    for (size_t k = 0; k < sizeof splits / sizeof splits[0]; k++) {
        memset(part, 0x5A, sizeof part);
        assert_int_equal(bsync_pose_local_to_model(parents, N, local, 0, splits[k], part), BSYNC_OK);
        assert_int_equal(bsync_pose_local_to_model(parents, N, local, splits[k], N, part), BSYNC_OK);
        assert_memory_equal(part, full, sizeof full);
    }
    /* three pieces, and an empty range writes nothing */
    memset(part, 0x5A, sizeof part);
    assert_int_equal(bsync_pose_local_to_model(parents, N, local, 0, 10, part), BSYNC_OK);
    bsync_trs snapshot[N];
    memcpy(snapshot, part, sizeof part);
    assert_int_equal(bsync_pose_local_to_model(parents, N, local, 10, 10, part), BSYNC_OK);
    assert_memory_equal(part, snapshot, sizeof part);
    assert_int_equal(bsync_pose_local_to_model(parents, N, local, 10, 30, part), BSYNC_OK);
    /* joints >= 30 untouched so far */
    assert_memory_equal(&part[30], &snapshot[30], sizeof(bsync_trs) * 20);
    assert_int_equal(bsync_pose_local_to_model(parents, N, local, 30, N, part), BSYNC_OK);
    assert_memory_equal(part, full, sizeof full);
}

/* ---------------------------------------------------------------- invalid arguments */

static void test_invalid_arguments(void** st) {
    (void)st;
    enum { N = 4 };
    uint64_t rng = 8;
    bsync_trs rest[N], a[N], out[N], sentinel[N];
    int16_t parents[N] = {-1, 0, 1, 2};
    fix16_t mask[N] = {ONE, ONE, ONE, ONE};
    for (int j = 0; j < N; j++) {
        rest[j] = random_trs(&rng);
        a[j] = random_trs(&rng);
    }
    memset(sentinel, 0x5A, sizeof sentinel);
#define EXPECT_UNTOUCHED(call, code)                   \
    do {                                               \
        memcpy(out, sentinel, sizeof out);             \
        assert_int_equal((call), (code));              \
        assert_memory_equal(out, sentinel, sizeof out); \
    } while (0)

    bsync_pose_input ok = {a, ONE / 2, NULL};
    /* blend */
    EXPECT_UNTOUCHED(bsync_pose_blend(NULL, N, &ok, 1, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_pose_blend(rest, N, &ok, 1, NULL), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, N, NULL, 1, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend(NULL, BSYNC_MAX_JOINTS + 1, &ok, 1, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, BSYNC_MAX_JOINTS + 1, &ok, 1, out), BSYNC_LIMIT_EXCEEDED);
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, N, &ok, BSYNC_MAX_BLEND_POSES + 1, out), BSYNC_LIMIT_EXCEEDED);
    bsync_pose_input heavy = {a, 64 * ONE + 1, NULL};
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, N, &heavy, 1, out), BSYNC_INVALID_ARGUMENT);
    bsync_pose_input heavy2[2] = {{a, ONE, NULL}, {NULL, INT32_MAX, NULL}};
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, N, heavy2, 2, out), BSYNC_INVALID_ARGUMENT);
    bsync_pose_input max_ok = {a, 64 * ONE, NULL};
    assert_int_equal(bsync_pose_blend(rest, N, &max_ok, 1, out), BSYNC_OK);
    bsync_pose_input null_local[2] = {{a, ONE / 2, NULL}, {NULL, 1, NULL}};
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, N, null_local, 2, out), BSYNC_INVALID_ARGUMENT);
    /* aliasing: output is the rest pose, an input pose (whole or shifted by one joint), or a mask */
    memcpy(out, sentinel, sizeof out);
    bsync_pose_input self = {out, ONE / 2, NULL};
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, N, &self, 1, out), BSYNC_INVALID_ARGUMENT);
    bsync_pose_input shifted = {out + 1, ONE / 2, NULL};
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, N - 1, &shifted, 1, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend(out, N, &ok, 1, out), BSYNC_INVALID_ARGUMENT);
    bsync_pose_input mask_alias = {a, ONE / 2, (const fix16_t*)(const void*)&out[2]};
    EXPECT_UNTOUCHED(bsync_pose_blend(rest, N, &mask_alias, 1, out), BSYNC_INVALID_ARGUMENT);
    /* a zero-weight input may point anywhere, even at the output (never read) */
    bsync_pose_input ghost[2] = {{a, ONE / 2, mask}, {out, 0, (const fix16_t*)(const void*)out}};
    assert_int_equal(bsync_pose_blend(rest, N, ghost, 2, out), BSYNC_OK);

    /* additive */
    EXPECT_UNTOUCHED(bsync_pose_blend_additive(NULL, a, rest, N, ONE, NULL, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend_additive(rest, NULL, rest, N, ONE, NULL, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend_additive(rest, a, NULL, N, ONE, NULL, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_pose_blend_additive(rest, a, rest, N, ONE, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend_additive(rest, a, rest, BSYNC_MAX_JOINTS + 1, ONE, NULL, out),
                     BSYNC_LIMIT_EXCEEDED);
    EXPECT_UNTOUCHED(bsync_pose_blend_additive(out, a, rest, N, ONE, NULL, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend_additive(rest, out, rest, N, ONE, NULL, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend_additive(rest, a, out + 3, N, ONE, NULL, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_blend_additive(rest, a, rest, N, ONE, (const fix16_t*)(const void*)out, out),
                     BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_pose_blend_additive(rest, a, rest, N, ONE, mask, out), BSYNC_OK);

    /* local to model */
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(NULL, N, a, 0, N, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(parents, N, NULL, 0, N, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_pose_local_to_model(parents, N, a, 0, N, NULL), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(parents, BSYNC_MAX_JOINTS + 1, a, 0, N, out), BSYNC_LIMIT_EXCEEDED);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(parents, N, a, 3, 2, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(parents, N, a, 0, N + 1, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(parents, N, out, 0, N, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(parents, N, out + 2, 0, 2, out), BSYNC_INVALID_ARGUMENT);
    /* bad parents: self, forward, below -1; the valid joints before them are not written either */
    const int16_t bad_self[N] = {-1, 0, 2, 2};
    const int16_t bad_fwd[N] = {-1, 0, 1, 3};
    const int16_t bad_neg[N] = {-1, 0, -2, 1};
    const int16_t bad_root[N] = {0, 0, 1, 2};
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(bad_self, N, a, 0, N, out), BSYNC_BAD_HIERARCHY);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(bad_fwd, N, a, 0, N, out), BSYNC_BAD_HIERARCHY);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(bad_neg, N, a, 0, N, out), BSYNC_BAD_HIERARCHY);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(bad_root, N, a, 0, N, out), BSYNC_BAD_HIERARCHY);
    /* precedence: NULL before limits, limits before ranges and hierarchy */
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(NULL, BSYNC_MAX_JOINTS + 1, a, 0, N, out), BSYNC_INVALID_ARGUMENT);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(bad_self, BSYNC_MAX_JOINTS + 1, a, 5, 2, out), BSYNC_LIMIT_EXCEEDED);
    EXPECT_UNTOUCHED(bsync_pose_local_to_model(bad_self, N, a, 3, 2, out), BSYNC_INVALID_ARGUMENT);
    /* only the parents of [from, to) are checked: joint 2's bad parent is outside [0, 2) */
    assert_int_equal(bsync_pose_local_to_model(bad_self, N, a, 0, 2, out), BSYNC_OK);
    assert_trs_equal(&out[0], &a[0]);
#undef EXPECT_UNTOUCHED
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blend_two_poses_quarter),
        cmocka_unit_test(test_blend_lerped),
        cmocka_unit_test(test_blend_below_one_takes_rest),
        cmocka_unit_test(test_blend_above_one_normalised),
        cmocka_unit_test(test_blend_all_zero_gives_rest),
        cmocka_unit_test(test_blend_masks),
        cmocka_unit_test(test_blend_rotation_vs_double),
        cmocka_unit_test(test_blend_q_and_minus_q),
        cmocka_unit_test(test_blend_extreme_values),
        cmocka_unit_test(test_additive_zero_weight_is_base),
        cmocka_unit_test(test_additive_full_weight),
        cmocka_unit_test(test_additive_partial_weight),
        cmocka_unit_test(test_local_to_model_chain_vs_double),
        cmocka_unit_test(test_local_to_model_partial_equals_full),
        cmocka_unit_test(test_invalid_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
