/* test_fixed_trig.c — bsync_fx_sin, bsync_fx_cos, bsync_fx_atan2, bsync_vec3_angle and
 * bsync_quat_from_axis_angle against double-precision libm references computed here.
 *
 * Contract bound (fixed.h): |error| <= 1e-4. Design bound, also asserted: half a raw step plus 1e-7
 * (the Q30 internals are rounded once), so a regression in the polynomials or the reduction shows. */
#include <math.h>
#include <stdlib.h>

#include "blendsync/fixed.h"
#include "test_support.h"

#define CONTRACT_BOUND 1e-4
#define DESIGN_BOUND (0.5 / 65536.0 + 1e-7)
static const double k_pi = 3.14159265358979323846;

static double fx(fix16_t v) { return (double)v / 65536.0; }

typedef struct err_track { double max_err; long count; fix16_t worst_in; } err_track;

static void track_sincos(err_track* es, err_track* ec, fix16_t a) {
    double x = fx(a);
    fix16_t s = bsync_fx_sin(a), c = bsync_fx_cos(a);
    assert_true(s >= -BSYNC_FX_ONE && s <= BSYNC_FX_ONE);
    assert_true(c >= -BSYNC_FX_ONE && c <= BSYNC_FX_ONE);
    double e = fabs(fx(s) - sin(x));
    if (e > es->max_err) { es->max_err = e; es->worst_in = a; }
    e = fabs(fx(c) - cos(x));
    if (e > ec->max_err) { ec->max_err = e; ec->worst_in = a; }
    es->count++;
    ec->count++;
}

static void test_sincos_full_domain(void** state) {
    (void)state;
    err_track es = {0, 0, 0}, ec = {0, 0, 0};
    /* dense grid over every int32 angle (stride 1021, a prime) */
    for (int64_t a = INT32_MIN; a <= INT32_MAX; a += 1021) track_sincos(&es, &ec, (fix16_t)a);
    track_sincos(&es, &ec, INT32_MIN);
    track_sincos(&es, &ec, INT32_MAX);
    /* random */
    uint64_t st = 42;
    for (int i = 0; i < 1000000; i++) track_sincos(&es, &ec, (fix16_t)(uint32_t)(bsync_test_rand(&st) >> 32));
    /* every raw value within 2000 steps of k pi/2 for |k| <= 64, and near 0 exhaustively */
    for (int k = -64; k <= 64; k++) {
        int64_t c = (int64_t)llround(k * k_pi / 2 * 65536.0);
        for (int64_t d = -2000; d <= 2000; d++) track_sincos(&es, &ec, (fix16_t)(c + d));
    }
    /* near the largest multiples of pi/2 in range */
    for (int k = 20855; k <= 20861; k++) {
        int64_t c = (int64_t)llround(k * k_pi / 2 * 65536.0);
        for (int64_t d = -3000; d <= 3000; d++) {
            int64_t v = c + d;
            if (v <= INT32_MAX) track_sincos(&es, &ec, (fix16_t)v);
            track_sincos(&es, &ec, (fix16_t)(-v > INT32_MIN ? -v : INT32_MIN));
        }
    }
    print_message("sin: %ld inputs, max |error| %.3g (%.5f raw steps) at raw %d\n", es.count, es.max_err,
                  es.max_err * 65536, es.worst_in);
    print_message("cos: %ld inputs, max |error| %.3g (%.5f raw steps) at raw %d\n", ec.count, ec.max_err,
                  ec.max_err * 65536, ec.worst_in);
    assert_true(es.max_err <= CONTRACT_BOUND);
    assert_true(ec.max_err <= CONTRACT_BOUND);
    assert_true(es.max_err <= DESIGN_BOUND);
    assert_true(ec.max_err <= DESIGN_BOUND);
}

static void test_sincos_edges(void** state) {
    (void)state;
    assert_int_equal(bsync_fx_sin(0), 0);
    assert_int_equal(bsync_fx_cos(0), BSYNC_FX_ONE);
    /* sin(-x) = -sin(x), cos(-x) = cos(x) exactly (the reduction works on |x|) */
    uint64_t st = 7;
    for (int i = 0; i < 100000; i++) {
        fix16_t a = (fix16_t)(uint32_t)(bsync_test_rand(&st) >> 32);
        if (a == INT32_MIN) continue;
        assert_int_equal(bsync_fx_sin(-a), -bsync_fx_sin(a));
        assert_int_equal(bsync_fx_cos(-a), bsync_fx_cos(a));
    }
    /* hand values: sin(pi/2) = 1, cos(pi) = -1, sin(pi/6) = 0.5, cos(pi/3) = 0.5 (within a step) */
    assert_int_equal(bsync_fx_sin(BSYNC_FX_HALF_PI), BSYNC_FX_ONE);
    assert_int_equal(bsync_fx_sin(-BSYNC_FX_HALF_PI), -BSYNC_FX_ONE);
    assert_int_equal(bsync_fx_cos(BSYNC_FX_PI), -BSYNC_FX_ONE);
    assert_int_equal(bsync_fx_cos(-BSYNC_FX_PI), -BSYNC_FX_ONE);
    /* raw pi is 0.416 steps below pi: sin is 0.416 steps, rounds to 0 */
    assert_int_equal(bsync_fx_sin(BSYNC_FX_PI), 0);
    assert_int_equal(bsync_fx_sin(-BSYNC_FX_PI), 0);
    /* cos(raw pi/2 = 102944) = -(0.2919 steps) -> 0 */
    assert_int_equal(bsync_fx_cos(BSYNC_FX_HALF_PI), 0);
    assert_true(abs(bsync_fx_sin(34315) - 32768) <= 1); /* pi/6 = 34314.6 raw */
    assert_true(abs(bsync_fx_cos(68629) - 32768) <= 1); /* pi/3 = 68629.1 raw */
    /* huge angles: periodicity is exact in the reduction, so sin(x) = sin(x - 2 pi k) up to the
     * rounding of the raw input; compare with libm on the exact input instead */
    const fix16_t huge[] = {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, 2000000000, -2000000000};
    for (size_t i = 0; i < sizeof huge / sizeof huge[0]; i++) {
        assert_true(fabs(fx(bsync_fx_sin(huge[i])) - sin(fx(huge[i]))) <= DESIGN_BOUND);
        assert_true(fabs(fx(bsync_fx_cos(huge[i])) - cos(fx(huge[i]))) <= DESIGN_BOUND);
    }
}

static void track_atan2(err_track* e, fix16_t y, fix16_t x) {
    fix16_t r = bsync_fx_atan2(y, x);
    assert_true(r >= -BSYNC_FX_PI && r <= BSYNC_FX_PI);
    double ref = (x == 0 && y == 0) ? 0.0 : atan2((double)y, (double)x);
    double err = fabs(fx(r) - ref);
    if (err > e->max_err) e->max_err = err;
    e->count++;
}

static int32_t draw_mag(uint64_t* st) {
    uint64_t r = bsync_test_rand(st);
    unsigned bits = (unsigned)(r % 32); /* magnitude class 2^0 .. 2^31 */
    int64_t v = (int64_t)((r >> 8) & (((uint64_t)1 << bits) - 1));
    if (r & (1ull << 63)) v = -v - 1;
    return (int32_t)v;
}

static void test_atan2_full_domain(void** state) {
    (void)state;
    err_track e = {0, 0, 0};
    uint64_t st = 99;
    for (int i = 0; i < 1000000; i++) track_atan2(&e, draw_mag(&st), draw_mag(&st));
    for (int i = 0; i < 500000; i++)
        track_atan2(&e, (int32_t)(uint32_t)(bsync_test_rand(&st) >> 32), (int32_t)(uint32_t)(bsync_test_rand(&st) >> 32));
    /* dense grid of small integers (every direction at fine resolution) */
    for (int32_t y = -300; y <= 300; y++)
        for (int32_t x = -300; x <= 300; x++) track_atan2(&e, y, x);
    /* around the octant boundaries |y| = |x| and |y| = tan(pi/8) |x| */
    for (int i = 0; i < 200000; i++) {
        int32_t x = draw_mag(&st) / 2;
        int32_t d = (int32_t)(bsync_test_rand(&st) % 64) - 32;
        track_atan2(&e, x + d, x);
        track_atan2(&e, (int32_t)llround(x * 0.41421356237309503) + d, x);
    }
    print_message("atan2: %ld inputs, max |error| %.3g rad (%.5f raw steps)\n", e.count, e.max_err,
                  e.max_err * 65536);
    assert_true(e.max_err <= CONTRACT_BOUND);
    assert_true(e.max_err <= DESIGN_BOUND);
}

static void test_atan2_edges(void** state) {
    (void)state;
    assert_int_equal(bsync_fx_atan2(0, 0), 0);
    assert_int_equal(bsync_fx_atan2(0, 1), 0);
    assert_int_equal(bsync_fx_atan2(0, BSYNC_FX_MAX), 0);
    assert_int_equal(bsync_fx_atan2(0, -1), BSYNC_FX_PI);
    assert_int_equal(bsync_fx_atan2(0, INT32_MIN), BSYNC_FX_PI);
    assert_int_equal(bsync_fx_atan2(1, 0), BSYNC_FX_HALF_PI);
    assert_int_equal(bsync_fx_atan2(INT32_MAX, 0), BSYNC_FX_HALF_PI);
    assert_int_equal(bsync_fx_atan2(-1, 0), -BSYNC_FX_HALF_PI);
    assert_int_equal(bsync_fx_atan2(INT32_MIN, 0), -BSYNC_FX_HALF_PI);
    /* pi/4 * 65536 = 51471.85 */
    assert_int_equal(bsync_fx_atan2(BSYNC_FX_ONE, BSYNC_FX_ONE), 51472);
    assert_int_equal(bsync_fx_atan2(INT32_MIN, INT32_MIN), -154416); /* -3 pi/4 */
    assert_int_equal(bsync_fx_atan2(-5, -5), -154416); /* -3 pi/4 * 65536 = -154415.56 */
    assert_int_equal(bsync_fx_atan2(INT32_MIN, INT32_MAX), -51472); /* -pi/4 - 2^-31: still rounds */
    /* y = -0 does not exist in fix16: atan2(0, x < 0) is +pi */
    for (int32_t x = -1000; x < 0; x++) assert_int_equal(bsync_fx_atan2(0, x), BSYNC_FX_PI);
}

/* ------------------------------------------------------------ vec3_angle */

static double ref_angle(bsync_vec3 a, bsync_vec3 b) {
    /* acos-free reference in long double: atan2(|a x b|, a . b) */
    long double ax = a.x, ay = a.y, az = a.z, bx = b.x, by = b.y, bz = b.z;
    long double cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
    long double d = ax * bx + ay * by + az * bz;
    return (double)atan2l(sqrtl(cx * cx + cy * cy + cz * cz), d);
}

static void test_vec3_angle(void** state) {
    (void)state;
    uint64_t st = 31337;
    double max_err = 0;
    long n = 0;
    for (int i = 0; i < 300000; i++) {
        bsync_vec3 a = bsync_vec3_make(draw_mag(&st), draw_mag(&st), draw_mag(&st));
        bsync_vec3 b = bsync_vec3_make(draw_mag(&st), draw_mag(&st), draw_mag(&st));
        if ((a.x == 0 && a.y == 0 && a.z == 0) || (b.x == 0 && b.y == 0 && b.z == 0)) continue;
        fix16_t r = bsync_vec3_angle(a, b);
        assert_true(r >= 0 && r <= BSYNC_FX_PI);
        double e = fabs(fx(r) - ref_angle(a, b));
        if (e > max_err) max_err = e;
        n++;
    }
    /* near-parallel and near-antiparallel: b = +-a + a small perpendicular-ish offset, at every scale */
    for (int i = 0; i < 100000; i++) {
        bsync_vec3 a = bsync_vec3_make(draw_mag(&st) / 2, draw_mag(&st) / 2, draw_mag(&st) / 2);
        if (a.x == 0 && a.y == 0 && a.z == 0) continue;
        int32_t off = (int32_t)(bsync_test_rand(&st) % 5) - 2;
        bsync_vec3 b = bsync_vec3_make(a.x + off, a.y, a.z - off);
        bsync_vec3 c = bsync_vec3_make(-a.x + off, -a.y, -a.z);
        if (b.x == 0 && b.y == 0 && b.z == 0) continue;
        if (c.x == 0 && c.y == 0 && c.z == 0) continue;
        double e1 = fabs(fx(bsync_vec3_angle(a, b)) - ref_angle(a, b));
        double e2 = fabs(fx(bsync_vec3_angle(a, c)) - ref_angle(a, c));
        if (e1 > max_err) max_err = e1;
        if (e2 > max_err) max_err = e2;
        n += 2;
    }
    print_message("vec3_angle: %ld pairs, max |error| %.3g rad (%.5f raw steps)\n", n, max_err, max_err * 65536);
    assert_true(max_err <= DESIGN_BOUND);

    /* exact cases */
    bsync_vec3 z = bsync_vec3_make(0, 0, 0), x = bsync_vec3_make(BSYNC_FX_ONE, 0, 0);
    bsync_vec3 y = bsync_vec3_make(0, BSYNC_FX_ONE, 0);
    assert_int_equal(bsync_vec3_angle(z, x), 0);
    assert_int_equal(bsync_vec3_angle(x, z), 0);
    assert_int_equal(bsync_vec3_angle(x, x), 0);
    assert_int_equal(bsync_vec3_angle(x, bsync_vec3_make(5, 0, 0)), 0);
    assert_int_equal(bsync_vec3_angle(x, bsync_vec3_neg(x)), BSYNC_FX_PI);
    assert_int_equal(bsync_vec3_angle(x, y), BSYNC_FX_HALF_PI);
    bsync_vec3 big = bsync_vec3_make(INT32_MIN, INT32_MIN, INT32_MIN);
    bsync_vec3 bigp = bsync_vec3_make(INT32_MAX, INT32_MAX, INT32_MAX);
    assert_int_equal(bsync_vec3_angle(big, big), 0);
    assert_int_equal(bsync_vec3_angle(big, bigp), BSYNC_FX_PI);
    assert_int_equal(bsync_vec3_angle(bsync_vec3_make(1, 0, 0), bsync_vec3_make(1, 1, 0)), 51472); /* pi/4 */
    /* one raw step off parallel at length 1: angle 2^-16 rad = 1 raw step; acos(1 - 2^-33) in fix16 would be 0 */
    assert_int_equal(bsync_vec3_angle(x, bsync_vec3_make(BSYNC_FX_ONE, 1, 0)), 1);
    assert_int_equal(bsync_vec3_angle(x, bsync_vec3_make(-BSYNC_FX_ONE, 1, 0)), BSYNC_FX_PI - 1);
}

/* ------------------------------------------------------------ from_axis_angle */

static void test_from_axis_angle(void** state) {
    (void)state;
    uint64_t st = 2024;
    int max_steps = 0;
    long n = 0;
    for (int i = 0; i < 200000; i++) {
        bsync_vec3 ax = bsync_vec3_make(draw_mag(&st), draw_mag(&st), draw_mag(&st));
        if (ax.x == 0 && ax.y == 0 && ax.z == 0) continue;
        fix16_t ang = (i & 1) ? (fix16_t)(uint32_t)(bsync_test_rand(&st) >> 32)
                              : (fix16_t)((int64_t)(bsync_test_rand(&st) % 823550) - 411775);
        bsync_quat q = bsync_quat_from_axis_angle(ax, ang);
        long double l = sqrtl((long double)ax.x * ax.x + (long double)ax.y * ax.y + (long double)ax.z * ax.z);
        double h = fx(ang) / 2, s = sin(h), c = cos(h);
        double ref[4] = {(double)(ax.x / l) * s, (double)(ax.y / l) * s, (double)(ax.z / l) * s, c};
        fix16_t got[4] = {q.x, q.y, q.z, q.w};
        for (int k = 0; k < 4; k++) {
            double e = fabs(got[k] - ref[k] * 65536.0);
            int steps = (int)ceil(e - 1e-9);
            if (steps > max_steps) max_steps = steps;
            assert_true(e <= 0.5 + 0.01); /* rounded once from Q30 */
        }
        n++;
    }
    print_message("quat_from_axis_angle: %ld cases, every component within %d raw step(s)\n", n, max_steps);
    /* hand values: 90 degrees about z = (0, 0, sqrt(1/2), sqrt(1/2)) = 46340.95 -> 46341 */
    bsync_quat q = bsync_quat_from_axis_angle(bsync_vec3_make(0, 0, 5 * BSYNC_FX_ONE), BSYNC_FX_HALF_PI);
    assert_int_equal(q.x, 0);
    assert_int_equal(q.y, 0);
    assert_int_equal(q.z, 46341);
    assert_int_equal(q.w, 46341);
    q = bsync_quat_from_axis_angle(bsync_vec3_make(0, 0, 0), BSYNC_FX_ONE);
    assert_int_equal(q.x, 0);
    assert_int_equal(q.y, 0);
    assert_int_equal(q.z, 0);
    assert_int_equal(q.w, BSYNC_FX_ONE);
    q = bsync_quat_from_axis_angle(bsync_vec3_make(BSYNC_FX_ONE, 0, 0), 0);
    assert_int_equal(q.x, 0);
    assert_int_equal(q.w, BSYNC_FX_ONE);
    /* 180 degrees about y: (0, 1, 0, cos(pi_raw/2) ~ 0) */
    q = bsync_quat_from_axis_angle(bsync_vec3_make(0, 3, 0), BSYNC_FX_PI);
    assert_int_equal(q.y, BSYNC_FX_ONE);
    assert_int_equal(q.w, 0);
    /* negative axis, any length, INT32_MIN components */
    q = bsync_quat_from_axis_angle(bsync_vec3_make(INT32_MIN, 0, 0), BSYNC_FX_PI);
    assert_int_equal(q.x, -BSYNC_FX_ONE);
    /* 120 degrees about (1,1,1): (0.5, 0.5, 0.5, 0.5) */
    q = bsync_quat_from_axis_angle(bsync_vec3_make(7, 7, 7), 137258); /* 2 pi / 3 = 137258.28 raw */
    assert_true(abs(q.x - 32768) <= 1 && abs(q.y - 32768) <= 1 && abs(q.z - 32768) <= 1 && abs(q.w - 32768) <= 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sincos_full_domain), cmocka_unit_test(test_sincos_edges),
        cmocka_unit_test(test_atan2_full_domain),  cmocka_unit_test(test_atan2_edges),
        cmocka_unit_test(test_vec3_angle),         cmocka_unit_test(test_from_axis_angle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
