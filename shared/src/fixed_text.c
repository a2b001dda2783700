/* fixed_text.c — conversions at the edges: double -> fix16, decimal text <-> fix16.
 *
 * bsync_fx_parse is exact with integer arithmetic only. Key fact: the rounding decision for
 * "nearest raw step, ties away from zero" only needs h = floor(|value| * 2^17) (the value in
 * half-steps): the magnitude is (h + 1) >> 1 whether the value is exactly on a tie (odd h, nothing
 * left over: away from zero), above a tie (odd h, something left over) or below (even h). And h is
 * decided by the first 17 fractional digits alone: with F = those digits as an integer and
 * delta < 10^-17 the rest (the "sticky" part), |frac| * 2^17 = F / 5^17 + delta * 2^17 where
 * delta * 2^17 < 1/5^17, so the rest can never carry floor(F / 5^17) over an integer. Digits at
 * 10^-18 and below therefore never change the result, however many there are.
 *
 * No stdio, no libm, no allocation: this file is part of the core library.
 */
#include <float.h>
#include <stdint.h>

#include "blendsync/fixed.h"

static const uint64_t k_pow10[18] = {1ull,
                                     10ull,
                                     100ull,
                                     1000ull,
                                     10000ull,
                                     100000ull,
                                     1000000ull,
                                     10000000ull,
                                     100000000ull,
                                     1000000000ull,
                                     10000000000ull,
                                     100000000000ull,
                                     1000000000000ull,
                                     10000000000000ull,
                                     100000000000000ull,
                                     1000000000000000ull,
                                     10000000000000000ull,
                                     100000000000000000ull};

#define FIVE_POW_17 762939453125ull
#define EXP_LIMIT ((int64_t)1 << 50) /* exponents saturate here: far beyond any digit position */
#define LEN_LIMIT ((uint64_t)1 << 40)

bsync_result bsync_fx_from_double(double v, fix16_t* out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    if (v != v) return BSYNC_NOT_FINITE;
    if (v > DBL_MAX || v < -DBL_MAX) return BSYNC_NOT_FINITE;
    double x = v * 65536.0; /* exact (a power of two), or +-inf for huge v, caught below */
    if (x >= 2147483647.5 || x <= -2147483647.5) return BSYNC_OVERFLOW;
    double a = x < 0 ? -x : x;       /* < 2^31 - 0.5 */
    int32_t whole = (int32_t)a;      /* truncation, in range */
    double frac = a - (double)whole; /* exact */
    int64_t m = (int64_t)whole + (frac >= 0.5 ? 1 : 0);
    *out = (fix16_t)(x < 0 ? -m : m);
    return BSYNC_OK;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

bsync_result bsync_fx_parse(const char* text, size_t len, fix16_t* out) {
    if (!text || !out) return BSYNC_INVALID_ARGUMENT;
#if SIZE_MAX > 0xFFFFFFFFu
    if ((uint64_t)len > LEN_LIMIT) return BSYNC_PARSE_ERROR;
#endif
    size_t i = 0;
    int neg = 0;
    if (i < len && text[i] == '-') {
        neg = 1;
        i++;
    }
    /* int = "0" | [1-9][0-9]* */
    size_t int_start = i;
    if (i >= len || !is_digit(text[i])) return BSYNC_PARSE_ERROR;
    if (text[i] == '0') {
        i++;
    } else {
        while (i < len && is_digit(text[i])) i++;
    }
    size_t int_end = i, frac_start = i, frac_end = i;
    /* frac = "." [0-9]+ */
    if (i < len && text[i] == '.') {
        i++;
        frac_start = i;
        if (i >= len || !is_digit(text[i])) return BSYNC_PARSE_ERROR;
        while (i < len && is_digit(text[i])) i++;
        frac_end = i;
    }
    /* exp = [eE] [+-]? [0-9]+ (saturating) */
    int64_t e = 0;
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        i++;
        int eneg = 0;
        if (i < len && (text[i] == '+' || text[i] == '-')) {
            eneg = text[i] == '-';
            i++;
        }
        if (i >= len || !is_digit(text[i])) return BSYNC_PARSE_ERROR;
        while (i < len && is_digit(text[i])) {
            if (e < EXP_LIMIT) e = e * 10 + (text[i] - '0');
            i++;
        }
        if (e > EXP_LIMIT) e = EXP_LIMIT;
        if (eneg) e = -e;
    }
    if (i != len) return BSYNC_PARSE_ERROR;

    /* value = sum of digit * 10^p; p of the first integer digit is n_int - 1 + e. */
    uint64_t whole = 0; /* digits at 10^0 .. 10^4 */
    uint64_t f17 = 0;   /* digits at 10^-1 .. 10^-17, as an integer over 10^17 */
    int64_t p = (int64_t)(int_end - int_start) - 1 + e;
    size_t n_all = (int_end - int_start) + (frac_end - frac_start);
    for (size_t j = 0; j < n_all && p >= -17; j++, p--) {
        size_t at = j < int_end - int_start ? int_start + j : frac_start + (j - (int_end - int_start));
        unsigned d = (unsigned)(text[at] - '0');
        if (d == 0) continue;
        if (p >= 5) return BSYNC_OVERFLOW; /* >= 100000 */
        if (p >= 0)
            whole += d * k_pow10[p];
        else
            f17 += d * k_pow10[17 + p];
    }
    uint64_t h = (whole << 17) + f17 / FIVE_POW_17; /* floor(|value| * 2^17) */
    uint64_t mag = (h + 1) >> 1;                    /* nearest, ties away from zero */
    if (mag > 0x7FFFFFFFu) return BSYNC_OVERFLOW;
    *out = neg ? (fix16_t)(-(int64_t)mag) : (fix16_t)mag;
    return BSYNC_OK;
}

/* Does the decimal d / 10^n parse back to the magnitude m? (same arithmetic as bsync_fx_parse) */
static int round_trips(uint64_t d, unsigned n, uint64_t m) {
    uint64_t h = (d << 17) / k_pow10[n];
    return ((h + 1) >> 1) == m;
}

size_t bsync_fx_format(fix16_t v, char* buf, size_t cap) {
    if (!buf) return 0;
    uint64_t m = bsync_u64_abs(v);
    int neg = v < 0;
    uint64_t digits = 0;
    unsigned n = 0;
    for (n = 0; n <= 5; n++) {
        uint64_t scaled = m * k_pow10[n]; /* value * 10^n * 2^16, < 2^48 */
        uint64_t d0 = scaled >> 16, d1 = d0 + 1;
        int ok0 = round_trips(d0, n, m), ok1 = round_trips(d1, n, m);
        if (ok0 && ok1) {
            /* both parse back: take the nearer one (the lower on a tie) */
            uint64_t dist0 = scaled - (d0 << 16), dist1 = (d1 << 16) - scaled;
            digits = dist1 < dist0 ? d1 : d0;
            break;
        }
        if (ok0 || ok1) {
            digits = ok0 ? d0 : d1;
            break;
        }
    }
    /* n <= 5 always breaks: 10^-5 * 65536 < 1, so a 5-digit decimal lies within half a step. */
    char tmp[32];
    size_t k = 0;
    uint64_t ip = digits / k_pow10[n], fp = digits % k_pow10[n];
    for (unsigned i = 0; i < n; i++) {
        tmp[k++] = (char)('0' + fp % 10);
        fp /= 10;
    }
    if (n > 0) tmp[k++] = '.';
    do {
        tmp[k++] = (char)('0' + ip % 10);
        ip /= 10;
    } while (ip != 0);
    if (neg) tmp[k++] = '-';
    if (k + 1 > cap) {
        if (cap > 0) buf[0] = '\0';
        return 0;
    }
    for (size_t i = 0; i < k; i++) buf[i] = tmp[k - 1 - i];
    buf[k] = '\0';
    return k;
}
