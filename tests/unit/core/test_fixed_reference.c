/* test_fixed_reference.c — bsync_fx_mul, bsync_fx_div and bsync_fx_sqrt are bit-identical to
 * libfixmath's fix16_mul, fix16_div and fix16_sqrt wherever those do not return the overflow sentinel
 * (0x80000000), over millions of inputs stratified by magnitude plus every kind of rounding tie; where
 * libfixmath overflows, ours saturates as documented (checked against exact int64 arithmetic), and
 * x/0 and sqrt(negative) follow our documented rules. The measured error of bsync_fx_sqrt and
 * bsync_fx_div against the exact value (in raw steps) is printed and bounded. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libfixmath/fix16.h>

#include "blendsync/fixed.h"
#include "test_support.h"

/* ------------------------------------------------------------ input strata */

enum { S_TINY, S_UNIT, S_LARGE, S_LIMIT, S_POW2, S_FULL, S_COUNT };

static int32_t rand_sign(uint64_t* st, uint32_t mag) {
    /* mag <= 2^31; -2^31 is INT32_MIN */
    if (bsync_test_rand(st) & 1) return (int32_t)(-(int64_t)mag);
    return mag > 0x7FFFFFFFu ? 0x7FFFFFFF : (int32_t)mag;
}

/* A value from one stratum: tiny |x| < 2^8; unit 2^14..2^18; large 2^24..2^31; limit within 2^12 of
 * +-2^31; pow2 +-2^k + {-1, 0, 1}; full any int32. */
static int32_t draw(uint64_t* st, int stratum) {
    uint64_t r = bsync_test_rand(st);
    switch (stratum) {
    case S_TINY: return rand_sign(st, (uint32_t)(r % 256));
    case S_UNIT: return rand_sign(st, (uint32_t)((1u << 14) + r % ((1u << 18) - (1u << 14))));
    case S_LARGE: return rand_sign(st, (uint32_t)((1u << 24) + r % (0x80000000u - (1u << 24))));
    case S_LIMIT: return rand_sign(st, (uint32_t)(0x80000000u - (uint32_t)(r % 4096)));
    case S_POW2: {
        unsigned k = (unsigned)(r % 32);
        int64_t v = ((int64_t)1 << k) + (int64_t)((r >> 8) % 3) - 1;
        if (v > 0x80000000LL) v = 0x80000000LL;
        return rand_sign(st, (uint32_t)v);
    }
    default: return (int32_t)(uint32_t)(r >> 32);
    }
}

/* ------------------------------------------------------------ multiplication */

/* Exact expectation for an overflowing product: |a*b| rounds (half away) above 0x7FFFFFFF. */
static void check_mul_pair(int32_t a, int32_t b, long* compared, long* saturated) {
    fix16_t ours = bsync_fx_mul(a, b);
    fix16_t ref = fix16_mul(a, b);
    assert_int_not_equal(ours, INT32_MIN);
    if (ref != fix16_overflow) {
        if (ours != ref) fail_msg("fx_mul(%d, %d) = %d, fix16_mul = %d", a, b, ours, ref);
        (*compared)++;
        return;
    }
    /* libfixmath overflowed: the exact product must be out of range (or exactly -2^31), and ours
     * must be the saturated value of the sign of the product. */
    int64_t p = (int64_t)a * (int64_t)b;
    const int64_t lim = ((int64_t)0x7FFFFFFF << 16) + 0x8000; /* (2^31 - 1/2) * 2^16 */
    if (p >= lim) {
        assert_int_equal(ours, BSYNC_FX_MAX);
    } else if (p <= -lim) {
        assert_int_equal(ours, BSYNC_FX_MIN);
    } else {
        fail_msg("fix16_mul(%d, %d) overflowed on an in-range product", a, b);
    }
    (*saturated)++;
}

static void test_mul_strata(void** state) {
    (void)state;
    uint64_t st = 0x1234;
    long compared = 0, saturated = 0;
    for (int sa = 0; sa < S_COUNT; sa++)
        for (int sb = 0; sb < S_COUNT; sb++)
            for (int i = 0; i < 120000; i++) check_mul_pair(draw(&st, sa), draw(&st, sb), &compared, &saturated);
    /* small operands exhaustively: every pair in [-200, 200]^2 and with a few unit values */
    for (int32_t a = -200; a <= 200; a++)
        for (int32_t b = -200; b <= 200; b++) check_mul_pair(a, b, &compared, &saturated);
    for (int32_t a = -70000; a <= 70000; a += 7)
        for (int k = 0; k < 6; k++) {
            static const int32_t bs[6] = {65536, -65536, 32768, 98304, 3, INT32_MIN};
            check_mul_pair(a, bs[k], &compared, &saturated);
        }
    print_message("mul strata: %ld compared bit-for-bit with fix16_mul, %ld overflow cases saturated\n",
                  compared, saturated);
    assert_true(compared > 2500000);
    assert_true(saturated > 10000);
}

/* Every tie: a*b has low 16 bits 0x8000 exactly when v2(a) + v2(b) = 15 (v2 = trailing zeros). For
 * each split j + (15 - j), both signs, many odd parts (all small odd parts exhaustively). */
static void test_mul_ties(void** state) {
    (void)state;
    uint64_t st = 0x77;
    long compared = 0, saturated = 0, ties = 0;
    for (unsigned j = 0; j <= 15; j++) {
        for (int64_t oa = 1; oa < 64; oa += 2)
            for (int64_t ob = 1; ob < 64; ob += 2)
                for (int s = 0; s < 4; s++) {
                    int64_t a = oa << j, b = ob << (15 - j);
                    if (s & 1) a = -a;
                    if (s & 2) b = -b;
                    int64_t p = a * b;
                    assert_int_equal(bsync_u64_abs(p) & 0xFFFF, 0x8000); /* really a tie */
                    /* hand rule: magnitude rounds up (away from zero) */
                    fix16_t expect_mag = (fix16_t)((bsync_u64_abs(p) >> 16) + 1);
                    assert_int_equal(bsync_fx_abs(bsync_fx_mul((fix16_t)a, (fix16_t)b)), expect_mag);
                    check_mul_pair((int32_t)a, (int32_t)b, &compared, &saturated);
                    ties++;
                }
        for (int i = 0; i < 40000; i++) {
            /* random odd parts: oa < 2^la, ob < 2^lb with la + lb <= 31, so |a b| < 2^46 stays in
             * range; both operands in int32 */
            unsigned ja = j, jb = 15 - j;
            unsigned la = (unsigned)(bsync_test_rand(&st) % (32 - ja));
            unsigned lb = 31 - la < 31 - jb ? 31 - la : 31 - jb;
            int64_t oa = (int64_t)((bsync_test_rand(&st) & (((uint64_t)1 << la) - 1)) | 1);
            int64_t ob = (int64_t)((bsync_test_rand(&st) & (((uint64_t)1 << lb) - 1)) | 1);
            int64_t a = oa << ja, b = ob << jb;
            if (bsync_test_rand(&st) & 1) a = -a;
            if (bsync_test_rand(&st) & 1) b = -b;
            assert_int_equal(bsync_u64_abs(a * b) & 0xFFFF, 0x8000);
            check_mul_pair((int32_t)a, (int32_t)b, &compared, &saturated);
            ties++;
        }
    }
    print_message("mul ties: %ld ties (low 16 bits 0x8000, both signs), %ld compared, %ld saturated\n", ties,
                  compared, saturated);
    assert_true(compared > 600000);
}

/* ------------------------------------------------------------ division */

static double g_div_max_err; /* max |ours - exact| in raw steps where no saturation */

static void check_div_pair(int32_t a, int32_t b, long* compared, long* saturated) {
    fix16_t ours = bsync_fx_div(a, b);
    assert_int_not_equal(ours, INT32_MIN);
    if (b == 0) {
        assert_int_equal(ours, a > 0 ? BSYNC_FX_MAX : (a < 0 ? BSYNC_FX_MIN : 0));
        (*saturated)++;
        return;
    }
    fix16_t ref = fix16_div(a, b);
    double exact = (double)a * 65536.0 / (double)b; /* a * 2^16 exact in double; one rounding */
    if (ref != fix16_overflow) {
        if (ours != ref) fail_msg("fx_div(%d, %d) = %d, fix16_div = %d", a, b, ours, ref);
        double e = fabs((double)ours - exact);
        if (e > g_div_max_err) g_div_max_err = e;
        (*compared)++;
        return;
    }
    /* libfixmath overflowed: the quotient must be (about) out of range, ours saturated by sign */
    int neg = (a < 0) != (b < 0);
    if (fabs(exact) < 2147483647.0) fail_msg("fix16_div(%d, %d) overflowed on an in-range quotient", a, b);
    assert_int_equal(ours, neg ? BSYNC_FX_MIN : BSYNC_FX_MAX);
    (*saturated)++;
}

static void test_div_strata(void** state) {
    (void)state;
    uint64_t st = 0x9876;
    long compared = 0, saturated = 0;
    g_div_max_err = 0;
    for (int sa = 0; sa < S_COUNT; sa++)
        for (int sb = 0; sb < S_COUNT; sb++)
            for (int i = 0; i < 80000; i++) check_div_pair(draw(&st, sa), draw(&st, sb), &compared, &saturated);
    for (int32_t a = -300; a <= 300; a++)
        for (int32_t b = -300; b <= 300; b++) check_div_pair(a, b, &compared, &saturated);
    /* divisors around libfixmath's 2^20 switch and the top of the range */
    for (int i = 0; i < 200000; i++) {
        int32_t b = (int32_t)((1 << 20) - 64 + (int32_t)(bsync_test_rand(&st) % 128));
        if (i & 1) b = -b;
        check_div_pair(draw(&st, S_FULL), b, &compared, &saturated);
        check_div_pair(draw(&st, S_LARGE), draw(&st, S_LIMIT), &compared, &saturated);
    }
    print_message("div strata: %ld compared bit-for-bit with fix16_div, %ld saturated or x/0; "
                  "max |error| vs exact where in range: %.6f raw steps\n",
                  compared, saturated, g_div_max_err);
    assert_true(compared > 3000000);
    assert_true(g_div_max_err < 0.5 + 0.125);
}

/* Exact halves: a/b = m / 2^17 with m odd forces b = t * 2^17; every t in 1..2^14, both signs. The
 * hand rule: the magnitude is (|m| + 1) / 2. */
static void test_div_ties(void** state) {
    (void)state;
    uint64_t st = 0x5151;
    long compared = 0, saturated = 0, ties = 0;
    for (int64_t t = 1; t <= (1 << 14); t++) {
        for (int k = 0; k < 12; k++) {
            int64_t mmax = 0x7FFFFFFF / t; /* |a| = |m| t <= 2^31 - 1 */
            int64_t m;
            if (k == 0) {
                m = 1;
            } else if (k == 1) {
                m = (mmax & 1) ? mmax : mmax - 1; /* the largest odd part */
            } else {
                m = (int64_t)(bsync_test_rand(&st) % (uint64_t)mmax) | 1;
                if (m > mmax) m -= 2;
            }
            int64_t a = m * t, b = t << 17;
            if (b > 0x7FFFFFFF) b = -b; /* t = 2^14: b = 2^31 only as INT32_MIN */
            if (k & 4) a = -a;
            if ((k & 8) && b > 0) b = -b;
            fix16_t ours = bsync_fx_div((fix16_t)a, (fix16_t)b);
            int neg = (a < 0) != (b < 0);
            int64_t mag = (m + 1) / 2;
            assert_int_equal(ours, neg ? -mag : mag);
            check_div_pair((int32_t)a, (int32_t)b, &compared, &saturated);
            ties++;
        }
    }
    print_message("div ties: %ld exact halves (every divisor t * 2^17), %ld compared\n", ties, compared);
    assert_true(compared == ties);
}

static void test_div_rules(void** state) {
    (void)state;
    assert_int_equal(bsync_fx_div(BSYNC_FX_ONE, 0), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_div(-1, 0), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_div(0, 0), 0);
    assert_int_equal(bsync_fx_div(INT32_MIN, 0), BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_div(INT32_MIN, BSYNC_FX_ONE), BSYNC_FX_MIN); /* -32768 saturates */
    assert_int_equal(bsync_fx_div(INT32_MIN, -BSYNC_FX_ONE), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_div(BSYNC_FX_MAX, BSYNC_FX_HALF), BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_div(3 * BSYNC_FX_ONE, 2 * BSYNC_FX_ONE), 98304); /* 1.5 */
    assert_int_equal(bsync_fx_div(BSYNC_FX_ONE, 3 * BSYNC_FX_ONE), 21845);     /* 0.33333 */
    assert_int_equal(bsync_fx_div(-BSYNC_FX_ONE, 3 * BSYNC_FX_ONE), -21845);
    assert_int_equal(bsync_fx_div(2 * BSYNC_FX_ONE, 3 * BSYNC_FX_ONE), 43691); /* 43690.67 */
}

/* ------------------------------------------------------------ square root */

static double g_sqrt_max_err;

static void check_sqrt(int32_t x, long* compared) {
    fix16_t ours = bsync_fx_sqrt(x);
    if (x < 0) {
        assert_int_equal(ours, 0); /* our rule; libfixmath gives -sqrt(|x|) */
        return;
    }
    fix16_t ref = fix16_sqrt(x);
    if (ours != ref) fail_msg("fx_sqrt(%d) = %d, fix16_sqrt = %d", x, ours, ref);
    double e = fabs((double)ours - sqrt((double)x * 65536.0));
    if (e > g_sqrt_max_err) g_sqrt_max_err = e;
    (*compared)++;
}

static void test_sqrt_sweeps(void** state) {
    (void)state;
    uint64_t st = 0xABCD;
    long compared = 0;
    g_sqrt_max_err = 0;
    for (int32_t x = 0; x < (1 << 18); x++) check_sqrt(x, &compared); /* tiny and unit: exhaustive */
    for (int64_t x = 0x7FFFFFFF; x > 0x7FFFFFFF - (1 << 17); x--) check_sqrt((int32_t)x, &compared);
    for (unsigned k = 0; k < 31; k++)
        for (int d = -2; d <= 2; d++) {
            int64_t x = ((int64_t)1 << k) + d;
            if (x >= 0 && x <= 0x7FFFFFFF) check_sqrt((int32_t)x, &compared);
        }
    /* perfect squares j^2 (sqrt exactly j * 2^8) and their neighbours */
    for (int64_t j = 1; j <= 46340; j++) {
        for (int d = -1; d <= 1; d++) check_sqrt((int32_t)(j * j + d), &compared);
        assert_int_equal(bsync_fx_sqrt((fix16_t)(j * j)), (fix16_t)(j << 8));
    }
    for (int i = 0; i < 900000; i++) check_sqrt((int32_t)(bsync_test_rand(&st) >> 33), &compared);
    for (int i = 0; i < 200000; i++) check_sqrt(draw(&st, S_LARGE), &compared);
    /* inputs where libfixmath's remainder path is taken (rem = x - floor(sqrt x)^2 > 65535) and the
     * exact root's fraction is just above one half: these are where the quirk shows */
    long quirk_inputs = 0;
    for (int64_t r1 = 32768; r1 <= 46339; r1 += 3) {
        for (int64_t rem = 65536; rem <= 2 * r1; rem += 97) {
            check_sqrt((int32_t)(r1 * r1 + rem), &compared);
            quirk_inputs++;
        }
    }
    for (int32_t x = -1000; x < 0; x++) check_sqrt(x, &compared);
    check_sqrt(INT32_MIN, &compared);
    print_message("sqrt sweeps: %ld inputs compared bit-for-bit with fix16_sqrt (%ld on its remainder "
                  "path); max |error| vs exact: %.6f raw steps = %.3g\n",
                  compared, quirk_inputs, g_sqrt_max_err, g_sqrt_max_err / 65536.0);
    assert_true(compared > 1500000);
    assert_true(g_sqrt_max_err < 0.5011);
}

static void test_sqrt_hand_values(void** state) {
    (void)state;
    assert_int_equal(bsync_fx_sqrt(0), 0);
    assert_int_equal(bsync_fx_sqrt(BSYNC_FX_ONE), BSYNC_FX_ONE);
    assert_int_equal(bsync_fx_sqrt(4 * BSYNC_FX_ONE), 2 * BSYNC_FX_ONE);
    assert_int_equal(bsync_fx_sqrt(2 * BSYNC_FX_ONE), 92682); /* 1.41421356 * 65536 = 92681.9 */
    assert_int_equal(bsync_fx_sqrt(1), 256);                  /* sqrt(2^-16) = 2^-8 */
    assert_int_equal(bsync_fx_sqrt(BSYNC_FX_MAX), 11863283);  /* sqrt(32768) * 65536 = 11863283.2 */
    assert_int_equal(bsync_fx_sqrt(-BSYNC_FX_ONE), 0);
    assert_int_equal(bsync_fx_sqrt(INT32_MIN), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mul_strata),  cmocka_unit_test(test_mul_ties),
        cmocka_unit_test(test_div_strata),  cmocka_unit_test(test_div_ties),
        cmocka_unit_test(test_div_rules),   cmocka_unit_test(test_sqrt_sweeps),
        cmocka_unit_test(test_sqrt_hand_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
