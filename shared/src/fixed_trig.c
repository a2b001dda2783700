/* fixed_trig.c — sine, cosine and atan2 in pure integer arithmetic, plus the two functions of
 * fixed.h that need them (bsync_vec3_angle, bsync_quat_from_axis_angle).
 *
 * Method (see docs/numerics.md):
 *   - sin/cos: the angle (raw * 2^28, i.e. radians in units of 2^-44, exact) is reduced modulo pi/2
 *     with a 77-bit integer constant for pi/2 (two words), so the reduced argument is exact to about
 *     2^-44 rad for every int32 input. The reduced argument |x| <= pi/4 (Q30) feeds Taylor
 *     polynomials in Q30 (sin to x^11, cos to x^12; truncation error < 1e-11). The Q30 result is
 *     rounded once to Q16.16.
 *   - atan2: octant reduction on the magnitudes, then atan(t) for t = lo/hi <= tan(pi/8), or
 *     pi/4 - atan((hi - lo)/(hi + lo)) above it, both by a Taylor series in Q30 (truncation error
 *     < 1e-12); the quadrant is put back and the Q30 angle rounded once.
 * Error of the Q30 stage is a few 2^-30 rad, so every result is within half a raw step plus ~1e-8 of
 * the exact value. No tables, no globals, no floats, no libfixmath calls.
 */
#include "blendsync/fixed.h"

#define Q30_ONE ((int64_t)1 << 30)
/* pi/2 * 2^44 = PIO2_HI + PIO2_LO / 2^32 (both floors). */
#define PIO2_HI ((int64_t)27633741218861)
#define PIO2_LO ((int64_t)407279768)
#define PI_Q30 ((int64_t)3373259426)   /* round(pi * 2^30) */
#define PIO2_Q30 ((int64_t)1686629713) /* round(pi/2 * 2^30) */
#define PIO4_Q30 ((int64_t)843314857)  /* round(pi/4 * 2^30) */
#define TAN_PI8_Q30 ((int64_t)444758426) /* round((sqrt 2 - 1) * 2^30) */

/* round(a * b / 2^30) for |a|, |b| <= 2^31 (ties towards +inf; deterministic). */
static int64_t mul_q30(int64_t a, int64_t b) {
    return bsync_i64_asr(a * b + ((int64_t)1 << 29), 30);
}

/* Q30 -> fix16, round to nearest, ties away from zero. |v| < 2^46. */
static fix16_t q30_to_fx(int64_t v) {
    uint64_t m = bsync_u64_abs(v);
    return bsync_fx_signed_sat((m + ((uint64_t)1 << 13)) >> 14, v < 0);
}

static int64_t clamp_unit_q30(int64_t v) {
    return v > Q30_ONE ? Q30_ONE : (v < -Q30_ONE ? -Q30_ONE : v);
}

/* sin and cos (Q30) of an angle given in units of 2^-44 rad, |a44| <= 2^60. */
static void sincos_q30(int64_t a44, int64_t* out_sin, int64_t* out_cos) {
    uint64_t a = bsync_u64_abs(a44);
    /* quadrant k = round(a / (pi/2)) (with the high word; the low word only moves x by < 2^-30) */
    uint64_t k = (a + (uint64_t)(PIO2_HI / 2)) / (uint64_t)PIO2_HI; /* k < 2^16 */
    int64_t x44 = (int64_t)(a - k * (uint64_t)PIO2_HI);             /* may be negative */
    x44 -= ((int64_t)k * PIO2_LO + ((int64_t)1 << 31)) >> 32;       /* k * PIO2_LO >= 0 */
    int64_t x = bsync_i64_asr(x44 + ((int64_t)1 << 13), 14);        /* Q30, |x| <= pi/4 + tiny */
    int64_t x2 = mul_q30(x, x);

    int64_t s = -27;
    s = 2959 + mul_q30(x2, s);
    s = -213044 + mul_q30(x2, s);
    s = 8947849 + mul_q30(x2, s);
    s = -178956971 + mul_q30(x2, s);
    s = Q30_ONE + mul_q30(x2, s);
    s = mul_q30(x, s);

    int64_t c = 2;
    c = -296 + mul_q30(x2, c);
    c = 26631 + mul_q30(x2, c);
    c = -1491308 + mul_q30(x2, c);
    c = 44739243 + mul_q30(x2, c);
    c = -536870912 + mul_q30(x2, c);
    c = Q30_ONE + mul_q30(x2, c);

    int64_t rs, rc;
    switch (k & 3u) {
    case 0: rs = s; rc = c; break;
    case 1: rs = c; rc = -s; break;
    case 2: rs = -s; rc = -c; break;
    default: rs = -c; rc = s; break;
    }
    if (a44 < 0) rs = -rs;
    *out_sin = clamp_unit_q30(rs);
    *out_cos = clamp_unit_q30(rc);
}

/* atan(u) in Q30 for 0 <= u <= ~0.4143 (Q30), Taylor series to u^27. */
static int64_t atan_poly_q30(int64_t u) {
    static const int64_t coef[14] = {1073741824, -357913941, 214748365, -153391689, 119304647,
                                     -97612893,  82595525,   -71582788, 63161284,   -56512728,
                                     51130563,   -46684427,  42949673,  -39768216};
    int64_t u2 = mul_q30(u, u);
    int64_t p = coef[13];
    for (int i = 12; i >= 0; i--) p = coef[i] + mul_q30(u2, p);
    return mul_q30(u, p);
}

/* atan2(b, a) in Q30 for magnitudes 0 <= a, b < 2^32: an angle in [0, pi/2]; 0 when both are 0. */
static int64_t atan2_first_quadrant_q30(uint64_t b, uint64_t a) {
    if (a == 0 && b == 0) return 0;
    uint64_t lo = a < b ? a : b, hi = a < b ? b : a;
    int64_t phi;
    if ((lo << 30) <= hi * (uint64_t)TAN_PI8_Q30) {
        uint64_t t = ((lo << 30) + hi / 2) / hi; /* lo/hi in Q30, <= tan(pi/8) */
        phi = atan_poly_q30((int64_t)t);
    } else {
        uint64_t u = (((hi - lo) << 30) + (hi + lo) / 2) / (hi + lo); /* (1-t)/(1+t) in Q30 */
        phi = PIO4_Q30 - atan_poly_q30((int64_t)u);
    }
    if (phi < 0) phi = 0;
    if (phi > PIO4_Q30) phi = PIO4_Q30;
    return b > a ? PIO2_Q30 - phi : phi;
}

fix16_t bsync_fx_sin(fix16_t angle) {
    int64_t s, c;
    sincos_q30((int64_t)angle * ((int64_t)1 << 28), &s, &c);
    return q30_to_fx(s);
}

fix16_t bsync_fx_cos(fix16_t angle) {
    int64_t s, c;
    sincos_q30((int64_t)angle * ((int64_t)1 << 28), &s, &c);
    return q30_to_fx(c);
}

fix16_t bsync_fx_atan2(fix16_t y, fix16_t x) {
    int64_t t = atan2_first_quadrant_q30(bsync_u64_abs(y), bsync_u64_abs(x));
    if (x < 0) t = PI_Q30 - t;
    if (y < 0) t = -t;
    return q30_to_fx(t);
}

/* Scale v by a power of two (exact left shifts, or floor right shifts for large vectors) so that
 * its largest |component| is in [2^29, 2^30). v must not be zero. */
static void scale_to_q29(const bsync_vec3* v, int64_t out[3]) {
    int64_t c[3] = {v->x, v->y, v->z};
    uint64_t m = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t a = bsync_u64_abs(c[i]);
        if (a > m) m = a;
    }
    unsigned right = 0, left = 0;
    while (m >= ((uint64_t)1 << 30)) { m >>= 1; right++; }
    while (m < ((uint64_t)1 << 29)) { m <<= 1; left++; }
    for (int i = 0; i < 3; i++) out[i] = right ? bsync_i64_asr(c[i], right) : c[i] * ((int64_t)1 << left);
}

/* floor(sqrt(n)) rounded to nearest. */
static uint64_t isqrt_round(uint64_t n) {
    uint64_t r = bsync_u64_isqrt(n);
    if (n - r * r > r) r++;
    return r;
}

fix16_t bsync_vec3_angle(bsync_vec3 a, bsync_vec3 b) {
    if ((a.x == 0 && a.y == 0 && a.z == 0) || (b.x == 0 && b.y == 0 && b.z == 0)) return 0;
    int64_t p[3], q[3];
    scale_to_q29(&a, p); /* the angle does not depend on the lengths */
    scale_to_q29(&b, q);
    /* exact cross and dot: products < 2^60, so |cross| < 2^61 and |dot| < 3 * 2^60 */
    int64_t v[4];
    v[0] = p[1] * q[2] - p[2] * q[1];
    v[1] = p[2] * q[0] - p[0] * q[2];
    v[2] = p[0] * q[1] - p[1] * q[0];
    v[3] = p[0] * q[0] + p[1] * q[1] + p[2] * q[2];
    uint64_t m = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t x = bsync_u64_abs(v[i]);
        if (x > m) m = x;
    }
    unsigned sh = 0;
    while ((m >> sh) >= ((uint64_t)1 << 31)) sh++;
    uint64_t ss = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t x = bsync_u64_abs(bsync_i64_asr(v[i], sh)); /* <= 2^31 */
        ss += x * x;                                         /* < 3 * 2^62 + ... < 2^64 */
    }
    int64_t d = bsync_i64_asr(v[3], sh);
    int64_t t = atan2_first_quadrant_q30(isqrt_round(ss), bsync_u64_abs(d));
    if (d < 0) t = PI_Q30 - t;
    return q30_to_fx(t);
}

bsync_quat bsync_quat_from_axis_angle(bsync_vec3 axis, fix16_t angle) {
    if (axis.x == 0 && axis.y == 0 && axis.z == 0) return bsync_quat_identity();
    int64_t u[3];
    scale_to_q29(&axis, u);
    uint64_t len = isqrt_round((uint64_t)(u[0] * u[0] + u[1] * u[1] + u[2] * u[2])); /* >= 2^29 */
    int64_t s, c;
    sincos_q30((int64_t)angle * ((int64_t)1 << 27), &s, &c); /* half the angle, exactly */
    uint64_t den = len << 14;                                 /* < 2^45 */
    fix16_t r[3];
    for (int i = 0; i < 3; i++) {
        int64_t num = u[i] * s; /* |u| <= 2^30, |s| <= 2^30 */
        uint64_t mag = bsync_u64_abs(num);
        r[i] = bsync_fx_signed_sat((2 * mag + den) / (2 * den), num < 0);
    }
    return bsync_quat_make(r[0], r[1], r[2], q30_to_fx(c));
}
