/* test_fixed.c — scalar saturation, lerp, exact vector sums, quaternion identities and TRS
 * composition of blendsync/fixed.h. References: exact long double arithmetic (64-bit mantissa: every
 * raw product and sum of three is exact), hand-worked values and algebraic identities. */
#include <math.h>
#include <stdlib.h>

#include "blendsync/fixed.h"
#include "test_support.h"

static int64_t clamp_ref(int64_t v) {
    if (v > 0x7FFFFFFF) return 0x7FFFFFFF;
    if (v < -0x7FFFFFFF) return -0x7FFFFFFF;
    return v;
}

/* Saturated round-half-away-from-zero of an exact long double value (in raw units). */
static fix16_t round_sat_ref(long double v) {
    long double r = roundl(v);
    if (r > 2147483647.0L) return BSYNC_FX_MAX;
    if (r < -2147483647.0L) return BSYNC_FX_MIN;
    return (fix16_t)r;
}

static int32_t draw_any(uint64_t* st) {
    uint64_t r = bsync_test_rand(st);
    switch (r % 4) {
    case 0: return (int32_t)(uint32_t)(r >> 32);                           /* full range */
    case 1: return (int32_t)((r >> 40) % 2001) - 1000;                      /* tiny */
    case 2: return (r >> 63) ? (int32_t)(INT32_MIN + (int32_t)((r >> 40) % 64)) : INT32_MAX - (int32_t)((r >> 40) % 64);
    default: return (int32_t)((int64_t)((r >> 32) % (8u << 16)) - (4 << 16)); /* unit-ish, |x| < 4 */
    }
}

/* ------------------------------------------------------------ scalars */

static void test_saturating_scalars(void** state) {
    (void)state;
    assert_int_equal(bsync_fx_add(BSYNC_FX_MAX, 1), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_add(BSYNC_FX_MAX, BSYNC_FX_MAX), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_add(BSYNC_FX_MIN, -1), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_add(INT32_MIN, 0), BSYNC_FX_MIN); /* INT32_MIN never comes out */
    assert_int_equal(bsync_fx_add(INT32_MIN, INT32_MIN), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_add(INT32_MIN, 1), INT32_MIN + 1);
    assert_int_equal(bsync_fx_sub(BSYNC_FX_MIN, 1), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_sub(BSYNC_FX_MAX, -1), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_sub(0, INT32_MIN), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_sub(-1, INT32_MAX), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_neg(INT32_MIN), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_neg(BSYNC_FX_MIN), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_neg(BSYNC_FX_MAX), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_abs(INT32_MIN), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_abs(BSYNC_FX_MIN), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_abs(-5), 5);
    assert_int_equal(bsync_fx_from_int(32767), 32767 * 65536);
    assert_int_equal(bsync_fx_from_int(32768), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_from_int(-32768), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_from_int(INT32_MIN), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_clamp(5, -1, 3), 3);
    assert_int_equal(bsync_fx_clamp(-5, -1, 3), -1);
    assert_int_equal(bsync_fx_min(-2, 7), -2);
    assert_int_equal(bsync_fx_max(-2, 7), 7);
    uint64_t st = 1;
    for (int i = 0; i < 200000; i++) {
        int32_t a = draw_any(&st), b = draw_any(&st);
        assert_int_equal(bsync_fx_add(a, b), clamp_ref((int64_t)a + b));
        assert_int_equal(bsync_fx_sub(a, b), clamp_ref((int64_t)a - b));
        assert_int_equal(bsync_fx_neg(a), clamp_ref(-(int64_t)a));
        assert_int_equal(bsync_fx_abs(a), clamp_ref(llabs((long long)a)));
        assert_int_not_equal(bsync_fx_mul(a, b), INT32_MIN);
        assert_int_equal(bsync_fx_mul(a, b), round_sat_ref((long double)a * b / 65536.0L));
    }
    /* the i64 helpers */
    assert_int_equal(bsync_i64_asr(-1, 5), -1);
    assert_int_equal(bsync_i64_asr(-32, 5), -1);
    assert_int_equal(bsync_i64_asr(-33, 5), -2);
    assert_true(bsync_i64_asr(INT64_MIN, 63) == -1);
    assert_true(bsync_i64_asr(INT64_MAX, 62) == 1);
    assert_true(bsync_u64_isqrt(UINT64_MAX) == 0xFFFFFFFFu);
    assert_true(bsync_u64_isqrt(((uint64_t)1 << 62)) == ((uint64_t)1 << 31));
    assert_true(bsync_u64_isqrt(99) == 9);
}

/* bsync_i64_asr (branch-free) is floor(v / 2^s) for every v and s: against long double division
 * (exact: |v| < 2^64 fits its 64-bit significand, and the quotient by a power of two is exact). */
static void test_asr_floor(void** state) {
    (void)state;
    uint64_t st = 11;
    const int64_t edges[] = {0, 1, -1, 2, -2, INT64_MAX, INT64_MIN, INT64_MIN + 1, INT64_MAX - 1, 32768, -32768, -32769, 65535, -65536};
    for (unsigned s = 0; s < 64; s++) {
        for (size_t e = 0; e < sizeof edges / sizeof edges[0]; e++) {
            const int64_t v = edges[e];
            assert_true(bsync_i64_asr(v, s) == (int64_t)floorl((long double)v / ldexpl(1.0L, (int)s)));
        }
        for (int i = 0; i < 4000; i++) {
            const uint64_t r = bsync_test_rand(&st);
            const int64_t v = (int64_t)(r >> (bsync_test_rand(&st) % 64u)) * ((r & 1u) ? -1 : 1);
            assert_true(bsync_i64_asr(v, s) == (int64_t)floorl((long double)v / ldexpl(1.0L, (int)s)));
        }
    }
}

/* bsync_quat_dot_sign_ (int64 fast path below 2^30, the accumulator above) is the sign of the exact
 * dot. Reference: each product p (|p| <= 2^62, exact in long double's 64-bit significand) is split
 * into floor(p / 2^32) and the remainder in [0, 2^32); the high parts and the low parts are summed
 * separately in int64, which decides the sign exactly. */
static int ref_dot_sign(bsync_quat a, bsync_quat b) {
    /* exact: sum of the products' high parts (floor / 2^32) and low parts, both small enough in int64 */
    const fix16_t* x = &a.x;
    const fix16_t* y = &b.x;
    int64_t hi = 0, lo = 0;
    for (int i = 0; i < 4; i++) {
        const int64_t p = (int64_t)x[i] * y[i];
        hi += (int64_t)floorl((long double)p / 4294967296.0L);
        lo += p - (int64_t)floorl((long double)p / 4294967296.0L) * 4294967296;
    }
    /* value = hi 2^32 + lo with 0 <= lo < 4 2^32 */
    if (hi > 0) return 1;
    if (hi < -4) return -1;
    const int64_t v = hi * 4294967296 + lo; /* |v| <= 4 2^32 + 4 2^32 here */
    return (v > 0) - (v < 0);
}

static void test_dot_sign(void** state) {
    (void)state;
    uint64_t st = 12;
    long fast = 0, slow = 0;
    for (int i = 0; i < 400000; i++) {
        const unsigned bits = (unsigned)(bsync_test_rand(&st) % 33u);
        fix16_t c[8];
        for (int k = 0; k < 8; k++) {
            const uint64_t r = bsync_test_rand(&st);
            int64_t m = bits == 0 ? 0 : (int64_t)((r >> 1) & (((uint64_t)1 << (bits < 32 ? bits : 31)) - 1u));
            if (bits == 32 && (r & 2u)) m = (int64_t)1 << 31; /* INT32_MIN's magnitude */
            c[k] = (r & 1u) ? (fix16_t)(-m) : (fix16_t)(m > INT32_MAX ? INT32_MAX : m);
        }
        bsync_quat a = bsync_quat_make(c[0], c[1], c[2], c[3]), b = bsync_quat_make(c[4], c[5], c[6], c[7]);
        if (i % 3 == 0 && a.y != INT32_MIN && a.w != INT32_MIN)
            b = bsync_quat_make(-a.y, a.x, -a.w, a.z); /* exactly orthogonal: sign 0 */
        assert_int_equal(bsync_quat_dot_sign_(a, b), ref_dot_sign(a, b));
        if (bits < 30) fast++;
        else slow++;
    }
    assert_true(fast > 1000 && slow > 1000);
}

static void test_lerp(void** state) {
    (void)state;
    uint64_t st = 2;
    for (int i = 0; i < 200000; i++) {
        int32_t a = draw_any(&st), b = draw_any(&st);
        assert_int_equal(bsync_fx_lerp(a, b, 0), a);
        assert_int_equal(bsync_fx_lerp(a, b, BSYNC_FX_ONE), b);
        assert_int_equal(bsync_fx_lerp(a, b, -5), a);
        assert_int_equal(bsync_fx_lerp(a, b, INT32_MIN), a);
        assert_int_equal(bsync_fx_lerp(a, b, BSYNC_FX_ONE + 1), b);
        assert_int_equal(bsync_fx_lerp(a, b, BSYNC_FX_MAX), b);
        fix16_t t = (fix16_t)(bsync_test_rand(&st) % 65536);
        fix16_t r = bsync_fx_lerp(a, b, t);
        long double exact = (long double)a + ((long double)b - a) * t / 65536.0L;
        /* within half a step of the exact value (one rounding), between a and b */
        if (exact < -2147483647.5L) {
            assert_int_equal(r, BSYNC_FX_MIN); /* only a = INT32_MIN or b = INT32_MIN can get here */
        } else {
            assert_true(fabsl((long double)r - exact) <= 0.5L);
            assert_true(r >= (a < b ? a : b) && r <= (a < b ? b : a));
        }
    }
    assert_int_equal(bsync_fx_lerp(0, BSYNC_FX_ONE, BSYNC_FX_HALF), BSYNC_FX_HALF);
    assert_int_equal(bsync_fx_lerp(-BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_HALF), 0);
    assert_int_equal(bsync_fx_lerp(0, 3, BSYNC_FX_HALF), 2);   /* 1.5 -> 2 (away from zero) */
    assert_int_equal(bsync_fx_lerp(0, -3, BSYNC_FX_HALF), -2); /* -1.5 -> -2 */
    assert_int_equal(bsync_fx_lerp(BSYNC_FX_MIN, BSYNC_FX_MAX, BSYNC_FX_HALF), 0);
}

/* ------------------------------------------------------------ vectors */

static void test_dot_cross_length(void** state) {
    (void)state;
    uint64_t st = 3;
    long saturated = 0;
    for (int i = 0; i < 200000; i++) {
        bsync_vec3 a = bsync_vec3_make(draw_any(&st), draw_any(&st), draw_any(&st));
        bsync_vec3 b = bsync_vec3_make(draw_any(&st), draw_any(&st), draw_any(&st));
        long double d = (long double)a.x * b.x + (long double)a.y * b.y + (long double)a.z * b.z;
        fix16_t dot = bsync_vec3_dot(a, b);
        assert_int_equal(dot, round_sat_ref(d / 65536.0L));
        if (dot == BSYNC_FX_MAX || dot == BSYNC_FX_MIN) saturated++;
        bsync_vec3 c = bsync_vec3_cross(a, b);
        assert_int_equal(c.x, round_sat_ref(((long double)a.y * b.z - (long double)a.z * b.y) / 65536.0L));
        assert_int_equal(c.y, round_sat_ref(((long double)a.z * b.x - (long double)a.x * b.z) / 65536.0L));
        assert_int_equal(c.z, round_sat_ref(((long double)a.x * b.y - (long double)a.y * b.x) / 65536.0L));
        long double ss = (long double)a.x * a.x + (long double)a.y * a.y + (long double)a.z * a.z;
        assert_int_equal(bsync_vec3_length_sq(a), round_sat_ref(ss / 65536.0L));
        fix16_t len = bsync_vec3_length(a);
        long double exact_len = sqrtl(ss);
        if (exact_len >= 2147483647.5L) {
            assert_int_equal(len, BSYNC_FX_MAX);
        } else {
            assert_true(fabsl((long double)len - exact_len) <= 0.5L + 1e-9L);
        }
        assert_int_not_equal(c.x, INT32_MIN);
        assert_int_not_equal(dot, INT32_MIN);
    }
    print_message("dot/cross/length: 200000 random vector pairs, %ld saturated dots\n", saturated);
    assert_true(saturated > 1000);
    /* hand values */
    bsync_vec3 x = bsync_vec3_make(BSYNC_FX_ONE, 0, 0), y = bsync_vec3_make(0, BSYNC_FX_ONE, 0);
    bsync_vec3 z = bsync_vec3_cross(x, y);
    assert_int_equal(z.x, 0);
    assert_int_equal(z.y, 0);
    assert_int_equal(z.z, BSYNC_FX_ONE);
    assert_int_equal(bsync_vec3_length(bsync_vec3_make(3 * BSYNC_FX_ONE, 4 * BSYNC_FX_ONE, 0)), 5 * BSYNC_FX_ONE);
    assert_int_equal(bsync_vec3_length(bsync_vec3_make(INT32_MIN, INT32_MIN, INT32_MIN)), BSYNC_FX_MAX);
    assert_int_equal(bsync_vec3_length(bsync_vec3_make(INT32_MIN, 0, 0)), BSYNC_FX_MAX);
    assert_int_equal(bsync_vec3_length(bsync_vec3_make(BSYNC_FX_MAX, 0, 0)), BSYNC_FX_MAX);
    assert_int_equal(bsync_vec3_length(bsync_vec3_make(1, 1, 1)), 2); /* sqrt 3 = 1.73 */
    /* exact cancellation far beyond int32: (big * big) - (big * big) = 0 with no overflow */
    bsync_vec3 m = bsync_vec3_make(INT32_MIN, INT32_MIN, INT32_MIN);
    bsync_vec3 n = bsync_vec3_make(INT32_MAX, INT32_MAX, INT32_MAX);
    bsync_vec3 mc = bsync_vec3_cross(m, m);
    assert_int_equal(mc.x, 0);
    assert_int_equal(mc.y, 0);
    assert_int_equal(mc.z, 0);
    assert_int_equal(bsync_vec3_dot(m, m), BSYNC_FX_MAX);
    assert_int_equal(bsync_vec3_dot(m, n), BSYNC_FX_MIN);
    /* a . b with large terms that cancel to a small exact value: 2^30 * 2^30 - (2^30 * 2^30 - 3) */
    bsync_vec3 p = bsync_vec3_make(1 << 30, 1 << 30, 0), q = bsync_vec3_make(1 << 30, -(1 << 30), 0);
    assert_int_equal(bsync_vec3_dot(p, q), 0);
    bsync_vec3 r = bsync_vec3_make(1 << 30, 3, 0), s = bsync_vec3_make(1 << 30, -(1 << 30), 0);
    /* 2^60 - 3 * 2^30 over 2^16 = 2^44 - 3 * 2^14: saturates */
    assert_int_equal(bsync_vec3_dot(r, s), BSYNC_FX_MAX);
    bsync_vec3 u = bsync_vec3_make(65536 + 1, 0, 0), v = bsync_vec3_make(32768, 0, 0);
    assert_int_equal(bsync_vec3_dot(u, v), 32769); /* (65537 * 32768) / 65536 = 32768.5 -> 32769 */
    assert_int_equal(bsync_vec3_dot(u, bsync_vec3_neg(v)), -32769);
}

/* ------------------------------------------------------------ quaternions */

static bsync_quat rand_unit_quat(uint64_t* st) {
    /* from an axis and angle, then checked unit within a few steps */
    bsync_vec3 axis = bsync_vec3_make(draw_any(st), draw_any(st), draw_any(st));
    fix16_t ang = (fix16_t)((int64_t)(bsync_test_rand(st) % 823550) - 411775);
    return bsync_quat_from_axis_angle(axis, ang);
}

static int quat_close(bsync_quat a, bsync_quat b, int steps) {
    return abs(a.x - b.x) <= steps && abs(a.y - b.y) <= steps && abs(a.z - b.z) <= steps && abs(a.w - b.w) <= steps;
}

static int vec_close(bsync_vec3 a, bsync_vec3 b, int steps) {
    return abs(a.x - b.x) <= steps && abs(a.y - b.y) <= steps && abs(a.z - b.z) <= steps;
}

static void test_quat_identities(void** state) {
    (void)state;
    const fix16_t one = BSYNC_FX_ONE;
    bsync_quat i = bsync_quat_make(one, 0, 0, 0), j = bsync_quat_make(0, one, 0, 0), k = bsync_quat_make(0, 0, one, 0);
    bsync_quat ij = bsync_quat_mul(i, j), ji = bsync_quat_mul(j, i), kk = bsync_quat_mul(k, k);
    assert_true(quat_close(ij, k, 0));
    assert_true(quat_close(ji, bsync_quat_neg(k), 0));
    assert_true(quat_close(kk, bsync_quat_make(0, 0, 0, -one), 0));
    assert_true(quat_close(bsync_quat_mul(bsync_quat_mul(i, j), k), bsync_quat_make(0, 0, 0, -one), 0));
    uint64_t st = 4;
    int worst_conj = 0, worst_assoc = 0;
    for (int n = 0; n < 50000; n++) {
        bsync_quat a = rand_unit_quat(&st), b = rand_unit_quat(&st), c = rand_unit_quat(&st);
        bsync_quat qc = bsync_quat_mul(a, bsync_quat_conj(a));
        int e = abs(qc.x) > abs(qc.y) ? abs(qc.x) : abs(qc.y);
        if (abs(qc.z) > e) e = abs(qc.z);
        if (abs(qc.w - one) > e) e = abs(qc.w - one);
        if (e > worst_conj) worst_conj = e;
        bsync_quat l = bsync_quat_mul(bsync_quat_mul(a, b), c), r = bsync_quat_mul(a, bsync_quat_mul(b, c));
        int d = abs(l.x - r.x);
        if (abs(l.y - r.y) > d) d = abs(l.y - r.y);
        if (abs(l.z - r.z) > d) d = abs(l.z - r.z);
        if (abs(l.w - r.w) > d) d = abs(l.w - r.w);
        if (d > worst_assoc) worst_assoc = d;
        /* the dot of a unit quaternion with itself is 1 within a few steps */
        assert_true(abs(bsync_quat_dot(a, a) - one) <= 4);
    }
    print_message("quat: q * conj(q) within %d raw steps of identity; (ab)c vs a(bc) within %d steps\n",
                  worst_conj, worst_assoc);
    assert_true(worst_conj <= 4);
    assert_true(worst_assoc <= 4);
}

static void test_quat_rotate(void** state) {
    (void)state;
    const fix16_t one = BSYNC_FX_ONE;
    /* 90 degrees about z: x -> y, y -> -x */
    bsync_quat qz = bsync_quat_from_axis_angle(bsync_vec3_make(0, 0, one), BSYNC_FX_HALF_PI);
    assert_true(vec_close(bsync_quat_rotate(qz, bsync_vec3_make(one, 0, 0)), bsync_vec3_make(0, one, 0), 2));
    assert_true(vec_close(bsync_quat_rotate(qz, bsync_vec3_make(0, one, 0)), bsync_vec3_make(-one, 0, 0), 2));
    assert_true(vec_close(bsync_quat_rotate(qz, bsync_vec3_make(0, 0, 3 * one)), bsync_vec3_make(0, 0, 3 * one), 0));
    /* 180 degrees about x: y -> -y, z -> -z */
    bsync_quat qx = bsync_quat_from_axis_angle(bsync_vec3_make(2 * one, 0, 0), BSYNC_FX_PI);
    assert_true(vec_close(bsync_quat_rotate(qx, bsync_vec3_make(0, 5 * one, 7 * one)), bsync_vec3_make(0, -5 * one, -7 * one), 3));
    /* 120 degrees about (1,1,1) cycles the axes: x -> y -> z */
    bsync_quat q3 = bsync_quat_from_axis_angle(bsync_vec3_make(one, one, one), 137258);
    assert_true(vec_close(bsync_quat_rotate(q3, bsync_vec3_make(one, 0, 0)), bsync_vec3_make(0, one, 0), 3));
    assert_true(vec_close(bsync_quat_rotate(q3, bsync_vec3_make(0, one, 0)), bsync_vec3_make(0, 0, one), 3));
    /* identity leaves points alone exactly */
    bsync_vec3 p = bsync_vec3_make(12345, -678910, 1 << 28);
    assert_true(vec_close(bsync_quat_rotate(bsync_quat_identity(), p), p, 0));
    /* random rotation vs double reference (rotation matrix from the same quaternion) */
    uint64_t st = 5;
    int worst = 0;
    for (int n = 0; n < 50000; n++) {
        bsync_vec3 axis = bsync_vec3_make(draw_any(&st), draw_any(&st), draw_any(&st));
        if (axis.x == 0 && axis.y == 0 && axis.z == 0) continue;
        double ang = (double)((int64_t)(bsync_test_rand(&st) % 411775)) / 65536.0;
        bsync_quat q = bsync_quat_from_axis_angle(axis, (fix16_t)llround(ang * 65536.0));
        double ax = axis.x, ay = axis.y, az = axis.z, l = sqrt(ax * ax + ay * ay + az * az);
        ax /= l; ay /= l; az /= l;
        double a = (double)llround(ang * 65536.0) / 65536.0, c = cos(a), s = sin(a);
        bsync_vec3 v = bsync_vec3_make((fix16_t)((int64_t)(bsync_test_rand(&st) % (20u << 16)) - (10 << 16)),
                                       (fix16_t)((int64_t)(bsync_test_rand(&st) % (20u << 16)) - (10 << 16)),
                                       (fix16_t)((int64_t)(bsync_test_rand(&st) % (20u << 16)) - (10 << 16)));
        double vx = v.x / 65536.0, vy = v.y / 65536.0, vz = v.z / 65536.0;
        double kd = ax * vx + ay * vy + az * vz;
        /* Rodrigues: v c + (k x v) s + k (k.v)(1 - c) */
        double rx = vx * c + (ay * vz - az * vy) * s + ax * kd * (1 - c);
        double ry = vy * c + (az * vx - ax * vz) * s + ay * kd * (1 - c);
        double rz = vz * c + (ax * vy - ay * vx) * s + az * kd * (1 - c);
        bsync_vec3 r = bsync_quat_rotate(q, v);
        int e = (int)ceil(fabs(r.x - rx * 65536.0));
        if ((int)ceil(fabs(r.y - ry * 65536.0)) > e) e = (int)ceil(fabs(r.y - ry * 65536.0));
        if ((int)ceil(fabs(r.z - rz * 65536.0)) > e) e = (int)ceil(fabs(r.z - rz * 65536.0));
        if (e > worst) worst = e;
    }
    print_message("quat_rotate: |v| <= 17, worst component error %d raw steps vs Rodrigues in double\n", worst);
    assert_true(worst <= 64); /* quaternion rounding (~1 step) scaled by |v| up to ~17 plus the sums */
}

static void test_quat_normalize(void** state) {
    (void)state;
    const fix16_t one = BSYNC_FX_ONE, h = BSYNC_FX_HALF;
    int was_zero = -1;
    bsync_quat q = bsync_quat_normalize_ex(bsync_quat_identity(), &was_zero);
    assert_true(quat_close(q, bsync_quat_identity(), 0));
    assert_int_equal(was_zero, 0);
    q = bsync_quat_normalize_ex(bsync_quat_make(0, 0, 0, 0), &was_zero);
    assert_true(quat_close(q, bsync_quat_identity(), 0));
    assert_int_equal(was_zero, 1);
    const bsync_quat units[] = {{one, 0, 0, 0}, {0, -one, 0, 0}, {0, 0, 0, -one}, {h, h, h, h}, {-h, h, -h, h}};
    for (size_t n = 0; n < sizeof units / sizeof units[0]; n++)
        assert_true(quat_close(bsync_quat_normalize(units[n]), units[n], 0));
    /* any magnitude */
    assert_true(quat_close(bsync_quat_normalize(bsync_quat_make(INT32_MIN, INT32_MIN, INT32_MIN, INT32_MIN)),
                           bsync_quat_make(-h, -h, -h, -h), 0));
    assert_true(quat_close(bsync_quat_normalize(bsync_quat_make(1, 0, 0, 0)), bsync_quat_make(one, 0, 0, 0), 0));
    assert_true(quat_close(bsync_quat_normalize(bsync_quat_make(0, 0, 0, INT32_MAX)), bsync_quat_identity(), 0));
    assert_true(quat_close(bsync_quat_normalize(bsync_quat_make(3, 0, 4, 0)), bsync_quat_make(39322, 0, 52429, 0), 0));
    uint64_t st = 6;
    for (int n = 0; n < 200000; n++) {
        bsync_quat in = bsync_quat_make(draw_any(&st), draw_any(&st), draw_any(&st), draw_any(&st));
        if (in.x == 0 && in.y == 0 && in.z == 0 && in.w == 0) continue;
        bsync_quat r = bsync_quat_normalize(in);
        long double l = sqrtl((long double)in.x * in.x + (long double)in.y * in.y + (long double)in.z * in.z +
                              (long double)in.w * in.w);
        fix16_t c[4] = {in.x, in.y, in.z, in.w}, o[4] = {r.x, r.y, r.z, r.w};
        for (int k = 0; k < 4; k++) assert_true(fabsl(o[k] - c[k] / l * 65536.0L) <= 1.0L);
    }
}

static void test_quat_nlerp(void** state) {
    (void)state;
    uint64_t st = 7;
    for (int n = 0; n < 100000; n++) {
        bsync_quat a = rand_unit_quat(&st), b = rand_unit_quat(&st);
        fix16_t t = (fix16_t)(bsync_test_rand(&st) % 65537);
        bsync_quat r1 = bsync_quat_nlerp(a, b, t), r2 = bsync_quat_nlerp(a, bsync_quat_neg(b), t);
        assert_true(quat_close(r1, r2, 0));
        /* the result lies on a's side */
        assert_true(bsync_quat_dot(a, r1) >= 0);
    }
    /* exactly orthogonal a and b (dot exactly 0): b and -b still agree */
    bsync_quat a = bsync_quat_identity(), b = bsync_quat_make(BSYNC_FX_ONE, 0, 0, 0);
    assert_true(quat_close(bsync_quat_nlerp(a, b, BSYNC_FX_HALF), bsync_quat_nlerp(a, bsync_quat_neg(b), BSYNC_FX_HALF), 0));
    /* dot slightly negative but rounding to 0: exact sign decides (here b is on the far side) */
    bsync_quat c = bsync_quat_make(1, 0, 0, 0), d = bsync_quat_make(-1, BSYNC_FX_ONE, 0, 0);
    assert_int_equal(bsync_quat_dot(c, d), 0);
    assert_true(quat_close(bsync_quat_nlerp(c, d, BSYNC_FX_HALF), bsync_quat_nlerp(c, bsync_quat_neg(d), BSYNC_FX_HALF), 0));
    /* t = 0 and t = 1 */
    bsync_quat e = bsync_quat_make(0, 0, 0, 2 * BSYNC_FX_ONE), f = bsync_quat_make(0, 0, -3 * BSYNC_FX_ONE, 0);
    assert_true(quat_close(bsync_quat_nlerp(e, f, 0), bsync_quat_identity(), 0));
    bsync_quat g = bsync_quat_nlerp(e, f, BSYNC_FX_ONE);
    assert_true(quat_close(g, bsync_quat_make(0, 0, BSYNC_FX_ONE, 0), 0) || quat_close(g, bsync_quat_make(0, 0, -BSYNC_FX_ONE, 0), 0));
    /* halfway between identity and 90 degrees about z is 45 degrees about z */
    bsync_quat qz = bsync_quat_from_axis_angle(bsync_vec3_make(0, 0, 1), BSYNC_FX_HALF_PI);
    bsync_quat mid = bsync_quat_nlerp(bsync_quat_identity(), qz, BSYNC_FX_HALF);
    bsync_quat q45 = bsync_quat_from_axis_angle(bsync_vec3_make(0, 0, 1), BSYNC_FX_HALF_PI / 2);
    assert_true(quat_close(mid, q45, 2));
}

/* ------------------------------------------------------------ transforms */

static void test_trs_compose(void** state) {
    (void)state;
    uint64_t st = 8;
    int worst = 0;
    for (int n = 0; n < 20000; n++) {
        bsync_trs parent, local;
        fix16_t sp = (fix16_t)(32768 + bsync_test_rand(&st) % 65536); /* uniform 0.5 .. 1.5 */
        fix16_t sl = (fix16_t)(32768 + bsync_test_rand(&st) % 65536);
        parent.s = bsync_vec3_make(sp, sp, sp);
        local.s = bsync_vec3_make(sl, (n & 1) ? sl : sl / 2, sl); /* local may be non-uniform */
        parent.r = rand_unit_quat(&st);
        local.r = rand_unit_quat(&st);
        parent.t = bsync_vec3_make((fix16_t)(bsync_test_rand(&st) % (20u << 16)) - (10 << 16), 0, 5 << 16);
        local.t = bsync_vec3_make(1 << 16, (fix16_t)(bsync_test_rand(&st) % (4u << 16)) - (2 << 16), 0);
        bsync_vec3 p = bsync_vec3_make((fix16_t)(bsync_test_rand(&st) % (8u << 16)) - (4 << 16), 3 << 15, -(1 << 16));
        bsync_trs both = bsync_trs_compose(&parent, &local);
        bsync_vec3 one_after_other = bsync_trs_transform_point(&parent, bsync_trs_transform_point(&local, p));
        bsync_vec3 composed = bsync_trs_transform_point(&both, p);
        int e = abs(one_after_other.x - composed.x);
        if (abs(one_after_other.y - composed.y) > e) e = abs(one_after_other.y - composed.y);
        if (abs(one_after_other.z - composed.z) > e) e = abs(one_after_other.z - composed.z);
        if (e > worst) worst = e;
    }
    print_message("trs_compose vs transforming one after the other: worst %d raw steps\n", worst);
    assert_true(worst <= 32);
    /* identity is neutral exactly */
    bsync_trs id = bsync_trs_identity(), x;
    x.t = bsync_vec3_make(1, 2, 3);
    x.r = bsync_quat_identity();
    x.s = bsync_vec3_make(BSYNC_FX_ONE, 2 * BSYNC_FX_ONE, BSYNC_FX_ONE);
    bsync_trs c = bsync_trs_compose(&id, &x);
    assert_true(vec_close(c.t, x.t, 0) && vec_close(c.s, x.s, 0) && quat_close(c.r, x.r, 0));
    bsync_vec3 moved = bsync_trs_transform_point(&x, bsync_vec3_make(BSYNC_FX_ONE, BSYNC_FX_ONE, 0));
    assert_true(vec_close(moved, bsync_vec3_make(BSYNC_FX_ONE + 1, 2 * BSYNC_FX_ONE + 2, 3), 0));
}


/* r = isqrt(n) must satisfy the definition r^2 <= n < (r+1)^2 (checked without overflow). */
static int isqrt_is_floor(uint64_t n, uint64_t r) {
    if (r > 0xFFFFFFFFu) return 0;
    if (r * r > n) return 0;
    uint64_t r1 = r + 1; /* for integers, r1^2 > n  <=>  r1 > floor(n / r1) */
    return r1 > n / r1;
}

static void test_isqrt_definition(void** state) {
    (void)state;
    uint64_t s = 99;
    long checked = 0;
    for (uint64_t n = 0; n < 1000000; n++, checked++) assert_true(isqrt_is_floor(n, bsync_u64_isqrt(n)));
    for (int i = 0; i < 2000000; i++, checked++) {
        uint64_t r = bsync_test_rand(&s);
        uint64_t n = r >> (r & 63);
        assert_true(isqrt_is_floor(n, bsync_u64_isqrt(n)));
    }
    /* perfect squares and their neighbours, across the whole range */
    for (uint64_t k = 1; k <= 0xFFFFFFFFu; k = k * 3 + 1) {
        uint64_t sq = k * k;
        assert_int_equal(bsync_u64_isqrt(sq), k);
        assert_int_equal(bsync_u64_isqrt(sq - 1), k - 1);
        if (k < 0xFFFFFFFFu) assert_int_equal(bsync_u64_isqrt(sq + 1), k);
        checked += 3;
    }
    assert_int_equal(bsync_u64_isqrt(UINT64_MAX), 0xFFFFFFFFu);
    assert_int_equal(bsync_u64_isqrt((uint64_t)0xFFFFFFFFu * 0xFFFFFFFFu), 0xFFFFFFFFu);
    assert_int_equal(bsync_u64_isqrt((uint64_t)0xFFFFFFFFu * 0xFFFFFFFFu - 1), 0xFFFFFFFEu);
    assert_int_equal(bsync_u64_isqrt((uint64_t)1 << 62), (uint64_t)1 << 31);
    print_message("isqrt: %ld inputs satisfy r^2 <= n < (r+1)^2\n", checked);
}

/* The table-seeded square root (fixed.c) against the definition, on the inputs where its seed matters:
 * every bit length with its extremes, each seed-table cell's edges, squares and their neighbours. */
static void test_isqrt_fast_definition(void** state) {
    (void)state;
    uint64_t s = 12345;
    long checked = 0;
    for (uint64_t n = 0; n < 300000; n++, checked++) assert_true(isqrt_is_floor(n, bsync_u64_isqrt_fast(n)));
    for (int i = 0; i < 3000000; i++, checked++) {
        uint64_t r = bsync_test_rand(&s);
        uint64_t n = r >> (r & 63);
        assert_true(isqrt_is_floor(n, bsync_u64_isqrt_fast(n)));
    }
    for (unsigned b = 11; b <= 64; b++)
        for (uint64_t m = 256; m < 1024; m++) {
            unsigned shift = b - 10 + ((b - 10) & 1u);
            if (shift > 54) continue;
            uint64_t lo = m << shift, hi = lo + (((uint64_t)1 << shift) - 1u);
            assert_true(isqrt_is_floor(lo, bsync_u64_isqrt_fast(lo)));
            assert_true(isqrt_is_floor(hi, bsync_u64_isqrt_fast(hi)));
            checked += 2;
        }
    for (uint64_t k = 1; k <= 0xFFFFFFFFu; k = k * 3 + 1) {
        uint64_t sq = k * k;
        assert_int_equal(bsync_u64_isqrt_fast(sq), k);
        assert_int_equal(bsync_u64_isqrt_fast(sq - 1), k - 1);
        if (k < 0xFFFFFFFFu) assert_int_equal(bsync_u64_isqrt_fast(sq + 1), k);
        checked += 3;
    }
    assert_int_equal(bsync_u64_isqrt_fast(UINT64_MAX), 0xFFFFFFFFu);
    assert_int_equal(bsync_u64_isqrt_fast((uint64_t)0xFFFFFFFFu * 0xFFFFFFFFu - 1), 0xFFFFFFFEu);
    print_message("isqrt_fast: %ld inputs satisfy r^2 <= n < (r+1)^2\n", checked);
}


/* bsync_quat_normalize against a plain reference of its documented rule (the sum of squares scaled by
 * 4^e into [2^60, 2^62), its square root rounded to nearest, each component c * 2^(16+e) / L rounded
 * with ties away from zero) written with the plain Newton square root and the loop for e — what
 * fixed.c computed before its table-seeded square root. 2 million inputs, from tiny to full range. */
static fix16_t ref_div_round(int64_t num, uint64_t den) {
    uint64_t m = bsync_u64_abs(num);
    return bsync_fx_signed_sat((2 * m + den) / (2 * den), num < 0);
}
static bsync_quat ref_normalize(bsync_quat q) {
    int64_t c[4] = {q.x, q.y, q.z, q.w};
    uint64_t mx = 0, s = 0;
    for (int i = 0; i < 4; i++) if (bsync_u64_abs(c[i]) > mx) mx = bsync_u64_abs(c[i]);
    if (mx == 0) return bsync_quat_identity();
    if (mx >= ((uint64_t)1 << 30)) for (int i = 0; i < 4; i++) c[i] = bsync_i64_asr(c[i], 1);
    for (int i = 0; i < 4; i++) s += bsync_u64_abs(c[i]) * bsync_u64_abs(c[i]);
    if (s == 0) return bsync_quat_identity();
    unsigned e = 0;
    while (e < 28 && s < ((uint64_t)1 << (60 - 2 * e))) e++;
    uint64_t n = s << (2 * e), l = bsync_u64_isqrt(n);
    if (n - l * l > l) l++;
    fix16_t r[4];
    for (int i = 0; i < 4; i++) r[i] = ref_div_round(c[i] * ((int64_t)1 << (16 + e)), l);
    return bsync_quat_make(r[0], r[1], r[2], r[3]);
}
static void test_quat_normalize_reference(void** state) {
    (void)state;
    uint64_t s = 4242;
    for (long i = 0; i < 2000000; i++) {
        int32_t v[4];
        for (int k = 0; k < 4; k++) {
            uint64_t r = bsync_test_rand(&s);
            int32_t x;
            switch (i % 5) {
            case 0: x = (int32_t)(uint32_t)r; break;
            case 1: x = (int32_t)((int64_t)(r % 131073) - 65536); break;
            case 2: x = (int32_t)((int64_t)(r % 21) - 10); break;
            case 3: x = (int32_t)((uint32_t)r >> (r >> 59)); break;
            default: x = (r & 7) == 0 ? INT32_MAX : (r & 7) == 1 ? -INT32_MAX : (int32_t)((int64_t)(r % 200001) - 100000);
            }
            v[k] = x == INT32_MIN ? -INT32_MAX : x;
        }
        bsync_quat q = bsync_quat_make(v[0], v[1], v[2], v[3]);
        bsync_quat a = ref_normalize(q), b = bsync_quat_normalize(q);
        if (a.x != b.x || a.y != b.y || a.z != b.z || a.w != b.w)
            fail_msg("normalize(%d, %d, %d, %d) differs from the reference", v[0], v[1], v[2], v[3]);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saturating_scalars), cmocka_unit_test(test_isqrt_definition), cmocka_unit_test(test_isqrt_fast_definition), cmocka_unit_test(test_quat_normalize_reference), cmocka_unit_test(test_lerp), cmocka_unit_test(test_asr_floor), cmocka_unit_test(test_dot_sign),
        cmocka_unit_test(test_dot_cross_length),   cmocka_unit_test(test_quat_identities),
        cmocka_unit_test(test_quat_rotate),        cmocka_unit_test(test_quat_normalize),
        cmocka_unit_test(test_quat_nlerp),         cmocka_unit_test(test_trs_compose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
