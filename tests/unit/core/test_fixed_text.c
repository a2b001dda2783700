/* test_fixed_text.c — bsync_fx_parse, bsync_fx_format and bsync_fx_from_double.
 *
 * parse: hand-worked raw values, JSON grammar acceptance and rejection, and a sweep of random decimal
 * strings (up to 60 digits, with exponents) against an independent exact reference written here: the
 * fraction's decimal digits are multiplied by 65536 digit by digit (schoolbook), and the leftover
 * digits decide below / tie / above half. format: every output parses back to the same raw value, no
 * shorter decimal does, and hand examples. from_double: rounding ties, limits, NaN and infinity. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "blendsync/fixed.h"
#include "test_support.h"

static bsync_result parse_str(const char* s, fix16_t* out) { return bsync_fx_parse(s, strlen(s), out); }

static void expect_raw(const char* s, fix16_t raw) {
    fix16_t v = 12345;
    bsync_result r = parse_str(s, &v);
    if (r != BSYNC_OK || v != raw) fail_msg("parse(\"%s\") = %d (result %d), expected %d", s, v, (int)r, raw);
}

static void expect_fail(const char* s, bsync_result want) {
    fix16_t v = 12345;
    bsync_result r = parse_str(s, &v);
    if (r != want) fail_msg("parse(\"%s\") gave result %d, expected %d", s, (int)r, (int)want);
    assert_int_equal(v, 12345); /* untouched */
}

static void test_parse_hand_values(void** state) {
    (void)state;
    expect_raw("0", 0);
    expect_raw("-0", 0);
    expect_raw("0.5", 32768);
    expect_raw("1", 65536);
    expect_raw("-1", -65536);
    expect_raw("-0.00001", -1); /* 0.65536 steps -> 1 */
    expect_raw("0.00001", 1);
    expect_raw("0.000007", 0); /* 0.458752 steps -> 0 */
    /* 2^-17 = 0.0000076293945312500 is exactly half a step: ties go away from zero */
    expect_raw("0.0000076293945312500", 1);
    expect_raw("-0.0000076293945312500", -1);
    expect_raw("0.00000762939453125", 1);
    expect_raw("0.0000076293945312499999999999999999999999", 0); /* just below the tie */
    expect_raw("0.0000076293945312500000000000000000000001", 1); /* just above, one extra digit */
    expect_raw("-0.0000076293945312499999999999999999999999", 0);
    /* 1.5 steps = 0.000022888183593750: tie -> 2 */
    expect_raw("0.00002288818359375", 2);
    expect_raw("0.0000228881835937499", 1);
    expect_raw("32767.99999", 0x7FFFFFFF);  /* 2147483647.34 */
    expect_raw("32767.999992370605", 0x7FFFFFFF); /* 2147483647.5 - 2.6e-7 */
    expect_raw("-32767.99999", -0x7FFFFFFF);
    expect_raw("32767", 32767 * 65536);
    expect_fail("32767.99999237060546875", BSYNC_OVERFLOW); /* exactly 2^31 - 1/2 steps: rounds up */
    expect_fail("32768", BSYNC_OVERFLOW);
    expect_fail("-32768", BSYNC_OVERFLOW); /* INT32_MIN is never produced */
    expect_fail("100000", BSYNC_OVERFLOW);
    expect_fail("1e300", BSYNC_OVERFLOW);
    expect_fail("123456789012345678901234567890", BSYNC_OVERFLOW);
    expect_raw("1e2", 100 * 65536);
    expect_raw("1E2", 100 * 65536);
    expect_raw("1e+2", 100 * 65536);
    expect_raw("1.5E-3", 98);  /* 98.304 */
    expect_raw("-1.5e-3", -98);
    expect_raw("15e-4", 98);
    expect_raw("0.0015e0", 98);
    expect_raw("3.2767e4", 32767 * 65536);
    expect_raw("1e-300", 0);
    expect_raw("1e-99999999999999999999999", 0); /* saturating exponent */
    expect_raw("0e99999999999999999999", 0);
    expect_raw("123456789e-5", 80908641); /* 1234.56789 * 65536 = 80908641.239 */
    expect_raw("3.14159265358979323846264338327950288419716939937510", 205887); /* 205887.416 */
    expect_raw("2.5", 163840);
    expect_raw("0.1", 6554); /* 6553.6 */
    expect_raw("-0.1", -6554);
    expect_raw("0.3", 19661); /* 19660.8 */
    /* many digits before and after */
    char buf[4096];
    strcpy(buf, "0.");
    for (int i = 0; i < 3000; i++) strcat(buf, "0");
    strcat(buf, "1");
    expect_raw(buf, 0);
    strcpy(buf, "0.5");
    for (int i = 0; i < 3000; i++) strcat(buf, "0");
    expect_raw(buf, 32768);
    strcpy(buf, "1");
    for (int i = 0; i < 2000; i++) strcat(buf, "0");
    strcat(buf, "e-2000");
    expect_raw(buf, 65536);
}

static void test_parse_grammar(void** state) {
    (void)state;
    /* JSON number grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
    const char* bad[] = {"", "-", "+1", "1.", ".5", "-.5", "1e", "1e+", "1E-", "e5", "abc", "1a", "1.0x", " 1",
                         "1 ", "01", "-01", "00", "0x10", "1.2.3", "1e5e5", "--1", "inf", "nan", "1,5", "1e1.5",
                         "0.", "-e1", "."};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) expect_fail(bad[i], BSYNC_PARSE_ERROR);
    /* len bounds the span: no terminator needed, and a NUL inside the span is garbage */
    fix16_t v = 0;
    assert_int_equal(bsync_fx_parse("1.5xyz", 3, &v), BSYNC_OK);
    assert_int_equal(v, 98304);
    assert_int_equal(bsync_fx_parse("25", 1, &v), BSYNC_OK);
    assert_int_equal(v, 2 * 65536);
    assert_int_equal(bsync_fx_parse("1\0", 2, &v), BSYNC_PARSE_ERROR);
    assert_int_equal(bsync_fx_parse("", 0, &v), BSYNC_PARSE_ERROR);
    assert_int_equal(bsync_fx_parse(NULL, 0, &v), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_fx_parse("1", 1, NULL), BSYNC_INVALID_ARGUMENT);
    /* overflow is reported only for well-formed text */
    expect_fail("99999x", BSYNC_PARSE_ERROR);
}

/* ------------------------------------------------------------ exact reference */

/* Round |D| / 10^nfrac * 65536 (digits[] = all decimal digits of D, most significant first), half
 * away from zero, by schoolbook multiplication of the digit string by 65536. Returns -1 when the
 * magnitude exceeds 0x7FFFFFFF. */
static int64_t ref_raw_magnitude(const unsigned char* digits, int n, int nfrac) {
    unsigned char d[256];
    memcpy(d, digits, (size_t)n);
    /* multiply the whole number by 65536 from the least significant digit */
    uint64_t carry = 0;
    for (int i = n - 1; i >= 0; i--) {
        uint64_t v = (uint64_t)d[i] * 65536 + carry;
        d[i] = (unsigned char)(v % 10);
        carry = v / 10;
    }
    /* integer part of D * 65536 / 10^nfrac: carry digits then d[0 .. n - nfrac - 1] */
    uint64_t whole = carry;
    for (int i = 0; i < n - nfrac; i++) {
        whole = whole * 10 + d[i];
        if (whole > 0xFFFFFFFFull) return -1;
    }
    int start = n - nfrac < 0 ? 0 : n - nfrac;
    /* leading fraction digits implied by nfrac > n are zeros */
    int implied_zeros = nfrac - n > 0 ? nfrac - n : 0;
    int round_up = 0;
    if (implied_zeros == 0 && start < n) {
        if (d[start] > 5) round_up = 1;
        else if (d[start] == 5) round_up = 1; /* exactly half or above: both go up in magnitude */
    } else if (implied_zeros > 0) {
        /* the carry (< 65536 * 10^?) sits below the point: recompute via full division is simpler */
        return -2;
    }
    uint64_t mag = whole + (uint64_t)round_up;
    return mag > 0x7FFFFFFFu ? -1 : (int64_t)mag;
}

static void test_parse_vs_exact_reference(void** state) {
    (void)state;
    uint64_t st = 0xD1617;
    long checked = 0, ties = 0, overflows = 0;
    char text[512];
    unsigned char digits[256];
    for (int iter = 0; iter < 300000; iter++) {
        /* integer part 0 .. 5 digits, fraction 1 .. 60 digits */
        int nint = (int)(bsync_test_rand(&st) % 6);
        int nfrac = 1 + (int)(bsync_test_rand(&st) % 60);
        int n = 0;
        uint64_t kind = bsync_test_rand(&st) % 8;
        if (nint == 0) {
            digits[n++] = 0;
        } else {
            for (int i = 0; i < nint; i++) digits[n++] = (unsigned char)((i == 0 ? 1 : 0) + bsync_test_rand(&st) % (i == 0 ? 9 : 10));
        }
        int int_digits = n;
        for (int i = 0; i < nfrac; i++) digits[n++] = (unsigned char)(bsync_test_rand(&st) % 10);
        if (kind == 0 && nfrac >= 17) {
            /* force an exact tie: fraction = (odd k) / 2^17, written with 17 digits (k * 5^17) */
            uint64_t k = (bsync_test_rand(&st) % 65536) * 2 + 1, v = k * 762939453125ull;
            for (int i = 16; i >= 0; i--) { digits[int_digits + i] = (unsigned char)(v % 10); v /= 10; }
            for (int i = int_digits + 17; i < n; i++) digits[i] = (bsync_test_rand(&st) & 3) ? 0 : digits[i];
            int any = 0;
            for (int i = int_digits + 17; i < n; i++) any |= digits[i];
            if (!any) ties++;
        }
        int neg = (int)(bsync_test_rand(&st) & 1);
        /* the decimal number D / 10^nfrac, written either plainly or with an exponent that moves the point */
        int64_t mag = ref_raw_magnitude(digits, n, nfrac);
        assert_true(mag != -2);
        int k = 0;
        if (neg) text[k++] = '-';
        int shift = (int)(bsync_test_rand(&st) % 5); /* write as (D / 10^(nfrac - shift)) e-shift */
        if (kind >= 6 && int_digits + shift <= n - 1 && digits[0] != 0) {
            for (int i = 0; i < int_digits + shift; i++) text[k++] = (char)('0' + digits[i]);
            text[k++] = '.';
            for (int i = int_digits + shift; i < n; i++) text[k++] = (char)('0' + digits[i]);
            k += snprintf(text + k, sizeof text - (size_t)k, "e-%d", shift);
        } else {
            for (int i = 0; i < int_digits; i++) text[k++] = (char)('0' + digits[i]);
            text[k++] = '.';
            for (int i = int_digits; i < n; i++) text[k++] = (char)('0' + digits[i]);
        }
        text[k] = '\0';
        fix16_t got = 0;
        bsync_result r = bsync_fx_parse(text, (size_t)k, &got);
        if (mag < 0) {
            if (r != BSYNC_OVERFLOW) fail_msg("parse(\"%s\"): expected overflow, got %d", text, (int)r);
            overflows++;
        } else {
            fix16_t want = neg ? (fix16_t)-mag : (fix16_t)mag;
            if (r != BSYNC_OK || got != want) fail_msg("parse(\"%s\") = %d, exact reference %d", text, got, want);
        }
        checked++;
    }
    print_message("parse: %ld random decimals (1..60 fraction digits, %ld exact ties, %ld overflows) "
                  "matched the exact digit-by-digit reference\n", checked, ties, overflows);
    assert_true(ties > 1000);
    assert_true(overflows > 1000);
}

/* ------------------------------------------------------------ format */

static void check_format(fix16_t v, long* n) {
    char buf[16];
    size_t len = bsync_fx_format(v, buf, sizeof buf);
    assert_true(len > 0 && len <= 12);
    assert_int_equal(strlen(buf), len);
    fix16_t back = 0;
    if (bsync_fx_parse(buf, len, &back) != BSYNC_OK || back != v) fail_msg("format(%d) = \"%s\" parses to %d", v, buf, back);
    /* shortest: no decimal with fewer fraction digits parses to v */
    const char* dot = strchr(buf, '.');
    int nfrac = dot ? (int)(len - (size_t)(dot - buf) - 1) : 0;
    assert_true(nfrac <= 5);
    if (nfrac > 0) assert_true(buf[len - 1] != '0');
    double value = v / 65536.0;
    for (int m = 0; m < nfrac; m++) {
        double scale = pow(10.0, m);
        double c0 = floor(fabs(value) * scale), cands[2] = {c0, c0 + 1};
        for (int c = 0; c < 2; c++) {
            char t[48];
            snprintf(t, sizeof t, "%s%.*f", v < 0 ? "-" : "", m, cands[c] / scale);
            fix16_t w = 0;
            if (bsync_fx_parse(t, strlen(t), &w) == BSYNC_OK && w == v)
                fail_msg("format(%d) = \"%s\" but shorter \"%s\" also parses back", v, buf, t);
        }
    }
    (*n)++;
}

static void test_format(void** state) {
    (void)state;
    char buf[16];
    assert_int_equal(bsync_fx_format(0, buf, sizeof buf), 1);
    assert_string_equal(buf, "0");
    bsync_fx_format(65536, buf, sizeof buf);
    assert_string_equal(buf, "1");
    bsync_fx_format(-32768, buf, sizeof buf);
    assert_string_equal(buf, "-0.5");
    bsync_fx_format(1, buf, sizeof buf);
    assert_string_equal(buf, "0.00002"); /* 1.526e-5: nearer than 0.00001 */
    bsync_fx_format(-1, buf, sizeof buf);
    assert_string_equal(buf, "-0.00002");
    bsync_fx_format(6554, buf, sizeof buf);
    assert_string_equal(buf, "0.1");
    bsync_fx_format(BSYNC_FX_MAX, buf, sizeof buf);
    assert_string_equal(buf, "32767.99998");
    assert_int_equal(bsync_fx_format(BSYNC_FX_MIN, buf, sizeof buf), 12);
    assert_string_equal(buf, "-32767.99998");
    bsync_fx_format(INT32_MIN, buf, sizeof buf);
    assert_string_equal(buf, "-32768");
    bsync_fx_format(205887, buf, sizeof buf);
    assert_string_equal(buf, "3.14159");
    /* too small a buffer */
    assert_int_equal(bsync_fx_format(BSYNC_FX_MIN, buf, 12), 0);
    assert_string_equal(buf, "");
    assert_int_equal(bsync_fx_format(BSYNC_FX_MIN, buf, 13), 12);
    assert_int_equal(bsync_fx_format(5, NULL, 16), 0);
    assert_int_equal(bsync_fx_format(5, buf, 0), 0);
    long n = 0;
    for (int32_t v = -140000; v <= 140000; v++) check_format(v, &n);
    uint64_t st = 11;
    for (int i = 0; i < 300000; i++) {
        fix16_t r = (fix16_t)(uint32_t)(bsync_test_rand(&st) >> 32);
        if (r != INT32_MIN) check_format(r, &n);
    }
    for (int32_t v = 0; v < 3000; v++) {
        check_format(BSYNC_FX_MAX - v, &n);
        check_format(BSYNC_FX_MIN + v, &n);
    }
    print_message("format: %ld values round-trip through parse and are shortest\n", n);
}

/* ------------------------------------------------------------ from_double */

static void test_from_double(void** state) {
    (void)state;
    fix16_t v = 777;
    assert_int_equal(bsync_fx_from_double(NAN, &v), BSYNC_NOT_FINITE);
    assert_int_equal(bsync_fx_from_double(INFINITY, &v), BSYNC_NOT_FINITE);
    assert_int_equal(bsync_fx_from_double(-INFINITY, &v), BSYNC_NOT_FINITE);
    assert_int_equal(bsync_fx_from_double(1e300, &v), BSYNC_OVERFLOW);
    assert_int_equal(bsync_fx_from_double(-1e300, &v), BSYNC_OVERFLOW);
    assert_int_equal(bsync_fx_from_double(32768.0, &v), BSYNC_OVERFLOW);
    assert_int_equal(bsync_fx_from_double(-32768.0, &v), BSYNC_OVERFLOW);
    assert_int_equal(bsync_fx_from_double(2147483647.5 / 65536.0, &v), BSYNC_OVERFLOW); /* tie rounds out */
    assert_int_equal(v, 777);
    assert_int_equal(bsync_fx_from_double(1.0, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_fx_from_double(nextafter(2147483647.5, 0) / 65536.0, &v), BSYNC_OK);
    assert_int_equal(v, BSYNC_FX_MAX);
    assert_int_equal(bsync_fx_from_double(-nextafter(2147483647.5, 0) / 65536.0, &v), BSYNC_OK);
    assert_int_equal(v, BSYNC_FX_MIN);
    assert_int_equal(bsync_fx_from_double(0.5 / 65536.0, &v), BSYNC_OK);
    assert_int_equal(v, 1);
    assert_int_equal(bsync_fx_from_double(-0.5 / 65536.0, &v), BSYNC_OK);
    assert_int_equal(v, -1);
    assert_int_equal(bsync_fx_from_double(nextafter(0.5, 0) / 65536.0, &v), BSYNC_OK);
    assert_int_equal(v, 0);
    assert_int_equal(bsync_fx_from_double(2.5 / 65536.0, &v), BSYNC_OK);
    assert_int_equal(v, 3);
    assert_int_equal(bsync_fx_from_double(-2.5 / 65536.0, &v), BSYNC_OK);
    assert_int_equal(v, -3);
    assert_int_equal(bsync_fx_from_double(-0.0, &v), BSYNC_OK);
    assert_int_equal(v, 0);
    assert_int_equal(bsync_fx_from_double(4.9e-324, &v), BSYNC_OK);
    assert_int_equal(v, 0);
    assert_int_equal(bsync_fx_from_double(0.1, &v), BSYNC_OK);
    assert_int_equal(v, 6554);
    assert_int_equal(bsync_fx_from_double(3.14159265358979, &v), BSYNC_OK);
    assert_int_equal(v, BSYNC_FX_PI);
    /* every raw value's exact double converts back exactly; against libm round() elsewhere */
    uint64_t st = 12;
    for (int i = 0; i < 300000; i++) {
        fix16_t r = (fix16_t)(uint32_t)(bsync_test_rand(&st) >> 32);
        if (r == INT32_MIN) continue;
        assert_int_equal(bsync_fx_from_double(bsync_fx_to_double(r), &v), BSYNC_OK);
        assert_int_equal(v, r);
        double d = ((double)(int64_t)(bsync_test_rand(&st) >> 20) - 8796093022208.0) / 268435456.0; /* +-32768 */
        double want = round(d * 65536.0); /* libm round: half away from zero */
        bsync_result res = bsync_fx_from_double(d, &v);
        if (fabs(want) > 2147483647.0) {
            assert_int_equal(res, BSYNC_OVERFLOW);
        } else {
            assert_int_equal(res, BSYNC_OK);
            assert_int_equal(v, (fix16_t)want);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_hand_values), cmocka_unit_test(test_parse_grammar),
        cmocka_unit_test(test_parse_vs_exact_reference), cmocka_unit_test(test_format),
        cmocka_unit_test(test_from_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
