/* test_param.c — parameter filter chain: dead zone -> curve -> SmoothDamp (blendsync/param.h).
 *
 * Independent expectations: hand-worked dead-zone values, a double-precision dead zone (scalar and
 * radial) over random inputs, continuity at the zone's edge, composition identities with curve.h and
 * smooth.h, settling and the changed flag, the canonical checksum bytes built by hand, extremes under
 * UBSan and the determinism of the state bytes. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blendsync/param.h"

static double fxd(fix16_t v) { return (double)v / 65536.0; }

static int32_t rnd_range(uint64_t* r, int32_t lo, int32_t hi) {
    return (int32_t)((int64_t)lo + (int64_t)(bsync_test_rand(r) % (uint64_t)((int64_t)hi - lo + 1)));
}

static bsync_param_filter make(fix16_t zone, fix16_t range, const bsync_curve* curve, fix16_t st, fix16_t ms,
                               uint32_t pair, uint32_t rate) {
    bsync_param_filter_desc d;
    memset(&d, 0, sizeof d);
    d.dead_zone = zone;
    d.dead_zone_range = range;
    d.curve = curve;
    d.smooth_time = st;
    d.max_speed = ms;
    d.pair = pair;
    bsync_param_filter f;
    assert_int_equal(bsync_param_filter_init(&f, &d, rate), BSYNC_OK);
    return f;
}

static void test_dead_zone_scalar(void** state) {
    (void)state;
    bsync_param_filter f = make(13107 /* 0.2 */, 0, NULL, 0, 0, 0, 60);
    assert_int_equal(bsync_param_shape(&f, 6554), 0);           /* 0.1 inside */
    assert_int_equal(bsync_param_shape(&f, 13107), 0);          /* on the edge */
    assert_int_equal(bsync_param_shape(&f, -13107), 0);
    assert_int_equal(bsync_param_shape(&f, 65536), 65536);      /* full scale maps to itself */
    assert_int_equal(bsync_param_shape(&f, -65536), -65536);
    /* 0.6 -> (0.6 - 0.2) / 0.8 = 0.5; in raw steps (0.6 and 0.2 are not exact):
     * (39322 - 13107) * 65536 / (65536 - 13107) = 1718026240 / 52429 = 32768.62 -> 32769 */
    assert_int_equal(bsync_param_shape(&f, 39322), 32769);
    assert_int_equal(bsync_param_shape(&f, -39322), -32769);
    assert_int_equal(bsync_param_shape(&f, 39321), 32767); /* 1717960704 / 52429 = 32767.37 */
    /* range 10, zone 2: 6 -> (6 - 2) * 10 / 8 = 5 */
    bsync_param_filter g = make(2 * 65536, 10 * 65536, NULL, 0, 0, 0, 60);
    assert_int_equal(bsync_param_shape(&g, 6 * 65536), 5 * 65536);
    assert_int_equal(bsync_param_shape(&g, 20 * 65536), 5 * 65536 * 45 / 10); /* (20-2)*10/8 = 22.5: no clamp */

    /* continuity: just outside the edge, within ceil(k r / (r - z)) + 1 raw steps of 0 */
    uint64_t r = 1;
    for (int i = 0; i < 2000; i++) {
        fix16_t zone = rnd_range(&r, 1, 60000);
        bsync_param_filter h = make(zone, 0, NULL, 0, 0, 0, 60);
        double slope = 65536.0 / (65536.0 - zone);
        for (int k = 1; k <= 4; k++) {
            fix16_t o = bsync_param_shape(&h, zone + k);
            assert_true(o >= 0 && o <= (fix16_t)ceil(k * slope) + 1);
            assert_int_equal(bsync_param_shape(&h, -(zone + k)), -o);
        }
    }
    /* double reference over random inputs: within half a raw step */
    double worst = 0;
    for (int i = 0; i < 20000; i++) {
        fix16_t zone = rnd_range(&r, 0, 5 * 65536);
        fix16_t range = zone + rnd_range(&r, 1, 20 * 65536);
        fix16_t x = rnd_range(&r, -30 * 65536, 30 * 65536);
        bsync_param_filter h = make(zone, range, NULL, 0, 0, 0, 60);
        double z = fxd(zone), rr = fxd(range), xd = fxd(x);
        double want = fabs(xd) <= z || zone == 0 ? (zone == 0 ? xd : 0.0)
                                                 : (xd < 0 ? -1 : 1) * (fabs(xd) - z) * rr / (rr - z);
        if (fabs(want) > 32767) continue;
        double err = fabs(fxd(bsync_param_shape(&h, x)) - want) * 65536;
        if (err > worst) worst = err;
        assert_true(err <= 0.5 + 1e-9);
    }
    printf("param dead zone (scalar): worst error %.3f raw steps\n", worst);
}

static void test_dead_zone_radial(void** state) {
    (void)state;
    uint64_t r = 2;
    double worst = 0;
    for (int i = 0; i < 20000; i++) {
        fix16_t zone = rnd_range(&r, 1, 50000);
        fix16_t range = (i % 2) ? 0 : zone + rnd_range(&r, 1, 5 * 65536);
        bsync_param_filter f = make(zone, range, NULL, 0, 0, 1, 60);
        fix16_t x = rnd_range(&r, -3 * 65536, 3 * 65536), y = rnd_range(&r, -3 * 65536, 3 * 65536);
        fix16_t out[2];
        bsync_param_shape_2d(&f, x, y, out);
        double z = fxd(zone), rr = range ? fxd(range) : 1.0, len = hypot(fxd(x), fxd(y));
        double want[2] = {0, 0};
        if (len > z) {
            double g = (len - z) * rr / ((rr - z) * len);
            want[0] = fxd(x) * g;
            want[1] = fxd(y) * g;
        }
        if (fabs(want[0]) > 32000 || fabs(want[1]) > 32000) continue;
        for (int k = 0; k < 2; k++) {
            double err = fabs(fxd(out[k]) - want[k]) * 65536;
            if (err > worst) worst = err;
            if (err > 1.0) fail_msg("radial case %d: %.7f vs %.7f", i, fxd(out[k]), want[k]);
        }
    }
    printf("param dead zone (radial): worst error %.3f raw steps\n", worst);
    /* inside -> zero; just outside in any direction -> a few raw steps */
    bsync_param_filter f = make(19661 /* 0.3 */, 0, NULL, 0, 0, 1, 60);
    fix16_t out[2];
    bsync_param_shape_2d(&f, 13000, -13000, out); /* |v| = 0.2805 */
    assert_true(out[0] == 0 && out[1] == 0);
    for (int i = 0; i < 360; i++) {
        double a = i * 3.14159265358979 / 180, len = 0.3 + 2.0 / 65536;
        fix16_t x = (fix16_t)lround(cos(a) * len * 65536), y = (fix16_t)lround(sin(a) * len * 65536);
        double exact = hypot(fxd(x), fxd(y));
        bsync_param_shape_2d(&f, x, y, out);
        if (exact <= fxd(19661)) {
            assert_true(out[0] == 0 && out[1] == 0);
        } else {
            assert_true(hypot(fxd(out[0]), fxd(out[1])) * 65536 <= 4.0 / 0.7 + 2.0);
        }
    }
}

static bsync_curve* square_curve(void) {
    /* y = x^2 on [0, 2] as Hermite keys with matching tangents (exact for a quadratic) */
    bsync_curve_key k[3];
    memset(k, 0, sizeof k);
    k[0].time = 0; k[0].value = 0; k[0].in_tangent = 0; k[0].out_tangent = 0;
    k[1].time = 65536; k[1].value = 65536; k[1].in_tangent = k[1].out_tangent = 2 * 65536;
    k[2].time = 2 * 65536; k[2].value = 4 * 65536; k[2].in_tangent = k[2].out_tangent = 4 * 65536;
    bsync_curve_desc d = {k, 3, BSYNC_CURVE_CLAMP, BSYNC_CURVE_CLAMP};
    bsync_curve* c = NULL;
    assert_int_equal(bsync_curve_create(&d, NULL, &c), BSYNC_OK);
    return c;
}

static void test_curve_stage(void** state) {
    (void)state;
    bsync_curve* c = square_curve();
    bsync_param_filter f = make(13107, 0, c, 0, 0, 0, 60);
    uint64_t r = 3;
    for (int i = 0; i < 5000; i++) {
        fix16_t x = rnd_range(&r, -3 * 65536, 3 * 65536);
        bsync_param_filter dz = make(13107, 0, NULL, 0, 0, 0, 60);
        /* composition: curve(deadzone(x)) */
        assert_int_equal(bsync_param_shape(&f, x), bsync_curve_evaluate(c, bsync_param_shape(&dz, x)));
    }
    /* pair: radial, direction kept, length = curve(length) */
    bsync_param_filter p = make(0, 0, c, 0, 0, 1, 60);
    double worst = 0;
    for (int i = 0; i < 5000; i++) {
        fix16_t x = rnd_range(&r, -65536, 65536), y = rnd_range(&r, -65536, 65536);
        fix16_t out[2];
        bsync_param_shape_2d(&p, x, y, out);
        double len = hypot(fxd(x), fxd(y));
        if (len == 0) {
            assert_true(out[0] == 0 && out[1] == 0);
            continue;
        }
        double nl = len > 2 ? 4 : len * len;
        for (int k = 0; k < 2; k++) {
            double want = (k ? fxd(y) : fxd(x)) / len * nl;
            double err = fabs(fxd(out[k]) - want) * 65536;
            if (err > worst) worst = err;
            assert_true(err < 3.0);
        }
    }
    printf("param radial curve: worst error %.3f raw steps\n", worst);
    bsync_curve_destroy(c);
}

static void test_zero_desc_is_identity(void** state) {
    (void)state;
    bsync_param_filter_desc d;
    memset(&d, 0, sizeof d);
    bsync_param_filter f;
    assert_int_equal(bsync_param_filter_init(&f, &d, 0), BSYNC_OK); /* no smoothing: no tick rate needed */
    bsync_param_state s;
    memset(&s, 0xCC, sizeof s);
    bsync_param_state_init(&f, &s, 5, 0);
    assert_int_equal(s.value[0], 5);
    assert_int_equal(s.settled, 1);
    assert_int_equal(s.pad_, 0);
    uint64_t r = 4;
    fix16_t prev = 5;
    for (int i = 0; i < 1000; i++) {
        fix16_t t = (i % 3) ? prev : (fix16_t)bsync_test_rand(&r);
        int changed = -1;
        assert_int_equal(bsync_param_filter_step(&f, &s, t, &changed), BSYNC_OK);
        assert_int_equal(s.value[0], t);
        assert_int_equal(changed, t != prev);
        assert_int_equal(s.settled, 1);
        prev = t;
    }
}

static void test_smooth_stage_and_settling(void** state) {
    (void)state;
    bsync_curve* c = square_curve();
    bsync_param_filter f = make(6554, 0, c, 19661, 0, 0, 60);
    bsync_smooth sm;
    assert_int_equal(bsync_smooth_init(&sm, 19661, 0, 60), BSYNC_OK);
    bsync_param_state s;
    bsync_param_state_init(&f, &s, 0, 0);
    bsync_smooth_state ref = bsync_smooth_state_make(0, 0);
    uint64_t r = 5;
    fix16_t target = 0;
    int settles = 0;
    for (int i = 0; i < 3000; i++) {
        if (i % 200 == 0) target = rnd_range(&r, -2 * 65536, 2 * 65536);
        int changed;
        fix16_t before = s.value[0];
        assert_int_equal(bsync_param_filter_step(&f, &s, target, &changed), BSYNC_OK);
        /* identity: SmoothDamp of the shaped target */
        bsync_smooth_step(&sm, &ref, bsync_param_shape(&f, target));
        assert_memory_equal(&ref, &s.smooth[0], sizeof ref);
        assert_int_equal(s.value[0], bsync_smooth_value(&ref));
        assert_int_equal(changed, s.value[0] != before);
        if (i % 200 == 199) {
            /* 200 ticks = 3.3 s = 11 smooth times: settled, exactly on the shaped target */
            assert_int_equal(s.settled, 1);
            assert_int_equal(s.value[0], bsync_param_shape(&f, target));
            assert_int_equal(changed, 0);
            settles++;
        }
    }
    assert_int_equal(settles, 15);
    /* pair with all stages settles too and then reports unchanged */
    bsync_param_filter p = make(6554, 0, c, 19661, 5 * 65536, 1, 60);
    bsync_param_state_init(&p, &s, 0, 0);
    int ticks = 0, changed = 1;
    do {
        assert_int_equal(bsync_param_filter_step_2d(&p, &s, 40000, -30000, &changed), BSYNC_OK);
        ticks++;
        if (ticks == 1) assert_int_equal(s.settled, 0);
    } while (!s.settled && ticks < 1000);
    assert_true(s.settled && ticks < 1000);
    fix16_t shaped[2];
    bsync_param_shape_2d(&p, 40000, -30000, shaped);
    assert_memory_equal(s.value, shaped, sizeof shaped);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(bsync_param_filter_step_2d(&p, &s, 40000, -30000, &changed), BSYNC_OK);
        assert_int_equal(changed, 0);
    }
    printf("param pair (dead zone + curve + SmoothDamp 0.3 s): settled in %d ticks at 60 Hz\n", ticks);
    bsync_curve_destroy(c);
}

static void test_validation(void** state) {
    (void)state;
    bsync_param_filter_desc d;
    memset(&d, 0, sizeof d);
    bsync_param_filter f;
    assert_int_equal(bsync_param_filter_init(NULL, &d, 60), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_param_filter_init(&f, NULL, 60), BSYNC_INVALID_ARGUMENT);
    d.dead_zone = -1;
    assert_int_equal(bsync_param_filter_init(&f, &d, 60), BSYNC_INVALID_ARGUMENT);
    d.dead_zone = 65536; /* range 0 -> 1.0, not above the zone */
    assert_int_equal(bsync_param_filter_init(&f, &d, 60), BSYNC_INVALID_ARGUMENT);
    d.dead_zone_range = 65537;
    assert_int_equal(bsync_param_filter_init(&f, &d, 60), BSYNC_OK);
    d.pair = 2;
    assert_int_equal(bsync_param_filter_init(&f, &d, 60), BSYNC_INVALID_ARGUMENT);
    d.pair = 0;
    d.smooth_time = 65536;
    assert_int_equal(bsync_param_filter_init(&f, &d, 0), BSYNC_BAD_TICK_RATE);
    assert_int_equal(bsync_param_filter_init(&f, &d, 1001), BSYNC_BAD_TICK_RATE);
    assert_int_equal(bsync_param_filter_init(&f, &d, 1000), BSYNC_OK);
    bsync_param_state s;
    bsync_param_state_init(&f, &s, 0, 0);
    int changed = 7;
    assert_int_equal(bsync_param_filter_step_2d(&f, &s, 1, 1, &changed), BSYNC_INVALID_ARGUMENT); /* scalar */
    assert_int_equal(changed, 0);
    assert_int_equal(bsync_param_filter_step(NULL, &s, 1, &changed), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_param_filter_step(&f, NULL, 1, NULL), BSYNC_INVALID_ARGUMENT);
    d.pair = 1;
    assert_int_equal(bsync_param_filter_init(&f, &d, 60), BSYNC_OK);
    assert_int_equal(bsync_param_filter_step(&f, &s, 1, NULL), BSYNC_INVALID_ARGUMENT); /* pair */
    assert_int_equal(bsync_param_shape(NULL, 1234), 1234);
}

static void test_checksum_and_determinism(void** state) {
    (void)state;
    assert_int_equal(sizeof(bsync_param_state), 48);
    bsync_param_filter f = make(3000, 0, NULL, 10000, 3 * 65536, 1, 30);
    bsync_param_state a, b;
    memset(&a, 0x11, sizeof a);
    memset(&b, 0x77, sizeof b);
    bsync_param_state_init(&f, &a, 1000, 2000);
    bsync_param_state_init(&f, &b, 1000, 2000);
    uint64_t r1 = 8, r2 = 8;
    for (int i = 0; i < 3000; i++) {
        fix16_t x1 = rnd_range(&r1, -70000, 70000), y1 = rnd_range(&r1, -70000, 70000);
        fix16_t x2 = rnd_range(&r2, -70000, 70000), y2 = rnd_range(&r2, -70000, 70000);
        int repeat = i % 17;
        for (int k = 0; k <= repeat; k++) bsync_param_filter_step_2d(&f, &a, x1, y1, NULL);
        for (int k = 0; k <= repeat; k++) bsync_param_filter_step_2d(&f, &b, x2, y2, NULL);
        assert_memory_equal(&a, &b, sizeof a); /* every byte: no padding, nothing uninitialised */
    }
    /* canonical bytes by hand */
    bsync_param_state s;
    memset(&s, 0, sizeof s);
    s.value[0] = 0x01020304;
    s.value[1] = -2;
    s.settled = 1;
    s.smooth[0].value = 0x0102030405060708ll;
    s.smooth[0].velocity = -3;
    s.smooth[1].value = 9;
    s.smooth[1].velocity = INT64_MIN;
    uint8_t bytes[4 + 4 + 4 + 32];
    size_t o = 0;
    const uint32_t w32[3] = {0x01020304u, (uint32_t)-2, 1};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) bytes[o++] = (uint8_t)(w32[i] >> (8 * j));
    const uint64_t w64[4] = {0x0102030405060708ull, (uint64_t)-3, 9, 0x8000000000000000ull};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) bytes[o++] = (uint8_t)(w64[i] >> (8 * j));
    bsync_checksum_state c;
    bsync_checksum_init(&c, 42);
    bsync_param_checksum_feed(&s, &c);
    assert_true(bsync_checksum_final(&c) == bsync_checksum_xxh64(bytes, o, 42));
}

static void test_extremes_no_ub(void** state) {
    (void)state;
    bsync_curve* c = square_curve();
    const fix16_t ext[] = {BSYNC_FX_MIN, (fix16_t)INT32_MIN, -65536, -1, 0, 1, 65536, BSYNC_FX_MAX};
    const fix16_t zones[] = {0, 1, 65535, BSYNC_FX_MAX - 1};
    int runs = 0;
    for (int zi = 0; zi < 4; zi++)
        for (int ci = 0; ci < 2; ci++)
            for (int si = 0; si < 3; si++)
                for (uint32_t pair = 0; pair < 2; pair++) {
                    const fix16_t st[] = {0, 1, BSYNC_FX_MAX};
                    bsync_param_filter f = make(zones[zi], zones[zi] >= 65535 ? BSYNC_FX_MAX : 0, ci ? c : NULL,
                                                st[si], si == 2 ? 1 : 0, pair, 60);
                    for (int a = 0; a < 8; a++)
                        for (int b = 0; b < 8; b++) {
                            bsync_param_state s;
                            bsync_param_state_init(&f, &s, ext[a], ext[b]);
                            for (int k = 0; k < 3; k++) {
                                if (pair)
                                    bsync_param_filter_step_2d(&f, &s, ext[b], ext[a], NULL);
                                else
                                    bsync_param_filter_step(&f, &s, ext[b], NULL);
                                assert_true(s.value[0] != (fix16_t)INT32_MIN && s.value[1] != (fix16_t)INT32_MIN);
                            }
                            runs++;
                        }
                }
    printf("param extremes: %d combinations\n", runs);
    bsync_curve_destroy(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dead_zone_scalar),
        cmocka_unit_test(test_dead_zone_radial),
        cmocka_unit_test(test_curve_stage),
        cmocka_unit_test(test_zero_desc_is_identity),
        cmocka_unit_test(test_smooth_stage_and_settling),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_checksum_and_determinism),
        cmocka_unit_test(test_extremes_no_ub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
