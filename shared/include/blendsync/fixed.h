/* blendsync/fixed.h — Q16.16 fixed-point arithmetic, vectors, quaternions and transforms.
 *
 * Index
 *   scalars     bsync_fx_add  bsync_fx_sub  bsync_fx_neg  bsync_fx_abs  bsync_fx_mul  bsync_fx_div
 *               bsync_fx_sqrt  bsync_fx_lerp  bsync_fx_clamp  bsync_fx_min  bsync_fx_max
 *   integers    bsync_i64_asr (arithmetic shift without implementation-defined behaviour)
 *               bsync_u64_isqrt  bsync_u64_clz
 *   trig        bsync_fx_sin  bsync_fx_cos  bsync_fx_atan2  (fixed_trig.c; see the bounds below)
 *   vec3        bsync_vec3_make add sub neg scale mul(component-wise) dot cross length_sq length
 *               lerp  bsync_vec3_angle
 *   quat        bsync_quat_identity mul conj dot normalize rotate nlerp from_axis_angle
 *   transform   bsync_trs_identity compose transform_point
 *   conversion  bsync_fx_from_double  bsync_fx_to_double  bsync_fx_from_int  bsync_fx_parse
 *               bsync_fx_format (fixed_text.c)
 *
 * The value type is libfixmath's fix16_t (int32_t, value = raw / 65536). libfixmath is the
 * reference definition of the arithmetic: where fix16_mul, fix16_div and fix16_sqrt return a
 * result that is not their overflow sentinel, bsync_fx_mul, bsync_fx_div and bsync_fx_sqrt return
 * the same bits (tests/unit/test_fixed_reference.c proves it over millions of inputs). Where they
 * overflow, the functions here SATURATE instead:
 *
 *   Saturation rule: a result whose exact rounded value is above  32767.99998 (raw 0x7FFFFFFF)
 *   becomes BSYNC_FX_MAX (raw 0x7FFFFFFF); one below -32767.99998 becomes BSYNC_FX_MIN
 *   (raw -0x7FFFFFFF). INT32_MIN (0x80000000, libfixmath's fix16_overflow) is never produced by any
 *   function in this header, so it never flows on. It is accepted as an input and treated as the
 *   number -32768.0. (Functions that hand an input back unchanged — make, min, max, clamp, lerp at
 *   t <= 0 or t >= 1, the w of conj — pass INT32_MIN through like any other input value.)
 *
 *   Rounding rule: products round to nearest, ties away from zero, exactly (as fix16_mul). Quotients
 *   and square roots round the same way except for libfixmath's documented off-by-one-step quirks,
 *   which bsync_fx_div and bsync_fx_sqrt reproduce bit for bit (see them below). The vector and
 *   quaternion sums below (dot, cross, length, quat_mul) are exact and rounded once.
 *
 *   Division by zero: x/0 is BSYNC_FX_MAX for x > 0, BSYNC_FX_MIN for x < 0 and 0 for x = 0.
 *   Square root of a negative number is 0 (libfixmath returns -sqrt(|x|)).
 *
 * Overflow bounds of the vector functions. Dot products, squared lengths and cross products
 * accumulate exact 64-bit products split into a high and a low part, so no intermediate overflows
 * for ANY int32 inputs; only the final result saturates by the rule above. bsync_vec3_length is exact
 * (correctly rounded sqrt of the exact 64-bit sum of squares) for every input. Quaternion functions
 * expect unit-range components (|c| <= 2.0); they stay free of undefined behaviour for any input, and
 * bsync_quat_normalize accepts any magnitude.
 *
 * Everything here is integer arithmetic on int32/int64/uint64 (no __int128, no floats except the
 * two conversion functions marked "edges only"), so it gives the same bits on 32- and 64-bit targets,
 * with gcc and clang, at every optimisation level.
 *
 * Does not: call libfixmath (its caches are not thread-safe and its library is unoptimised), call
 * libm, allocate, or keep state.
 */
#ifndef BLENDSYNC_FIXED_H
#define BLENDSYNC_FIXED_H

#include <stdint.h>
#include <stddef.h>
#include <libfixmath/fix16.h>

#include "blendsync/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_FX_ONE ((fix16_t)0x00010000)
#define BSYNC_FX_HALF ((fix16_t)0x00008000)
#define BSYNC_FX_MAX ((fix16_t)0x7FFFFFFF)
#define BSYNC_FX_MIN ((fix16_t)(-0x7FFFFFFF))
#define BSYNC_FX_PI ((fix16_t)205887)      /* round(pi * 65536) */
#define BSYNC_FX_HALF_PI ((fix16_t)102944) /* round(pi/2 * 65536) */
#define BSYNC_FX_TWO_PI ((fix16_t)411775)  /* round(2 pi * 65536) */

typedef struct bsync_vec3 { fix16_t x, y, z; } bsync_vec3;
typedef struct bsync_quat { fix16_t x, y, z, w; } bsync_quat;
/* Translation, rotation (unit quaternion), scale (per axis). Applied to a point p as
 * t + rotate(r, s * p). */
typedef struct bsync_trs { bsync_vec3 t; bsync_quat r; bsync_vec3 s; } bsync_trs;

/* ---------------------------------------------------------------- integer helpers */

/* Arithmetic shift right (floor division by 2^s) for s in 0..63, defined for every int64 value. */
static inline int64_t bsync_i64_asr(int64_t v, unsigned s) {
    /* Without a branch: m is 0 for v >= 0 and -1 (all ones) for v < 0, so v ^ m is v or -v - 1 = ~v,
     * never negative; its logical shift is floor((v ^ m) / 2^s), and for v < 0
     * floor(v / 2^s) = -floor((-v - 1) / 2^s) - 1 = ~((-v - 1) >> s) = ((v ^ m) >> s) ^ m. Only
     * bitwise operations and a shift of a nonnegative value. */
    const int64_t m = -(int64_t)((uint64_t)v >> 63);
    return (int64_t)((uint64_t)(v ^ m) >> s) ^ m;
}

/* Saturate an int64 to the fix16 result range [BSYNC_FX_MIN, BSYNC_FX_MAX]. */
static inline fix16_t bsync_fx_sat64(int64_t v) {
    if (v > (int64_t)0x7FFFFFFF) return BSYNC_FX_MAX;
    if (v < -(int64_t)0x7FFFFFFF) return BSYNC_FX_MIN;
    return (fix16_t)v;
}

/* Magnitude of an int64 as uint64 (defined for INT64_MIN). */
static inline uint64_t bsync_u64_abs(int64_t v) {
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* Apply a sign to a magnitude and saturate: neg ? -m : m. */
static inline fix16_t bsync_fx_signed_sat(uint64_t m, int neg) {
    if (m > 0x7FFFFFFFu) return neg ? BSYNC_FX_MIN : BSYNC_FX_MAX;
    return neg ? (fix16_t)(-(int64_t)m) : (fix16_t)m;
}

/* Number of leading zero bits of a nonzero uint64 (gcc/clang builtin, else a portable loop). */
static inline unsigned bsync_u64_clz(uint64_t n) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_clzll(n);
#else
    unsigned c = 0;
    while (!(n & ((uint64_t)1 << 63))) { n <<= 1; c++; }
    return c;
#endif
}

/* floor(sqrt(n)) for every uint64 n. Newton's iteration x' = (x + n/x) / 2 from x0 = 2^ceil(bits/2)
 * >= sqrt(n): the iterates decrease strictly until they reach floor(sqrt(n)), where the next one is
 * not smaller; five or six integer divisions (tests/unit/test_fixed.c checks r^2 <= n < (r+1)^2
 * over millions of inputs and the extremes). No floats. */
static inline uint64_t bsync_u64_isqrt(uint64_t n) {
    if (n < 2) return n;
    unsigned bits = 64u - bsync_u64_clz(n);
    uint64_t x = (uint64_t)1 << ((bits + 1) / 2); /* x <= 2^32, so x + n/x < 2^64 */
    for (;;) {
        uint64_t y = (x + n / x) >> 1;
        if (y >= x) return x;
        x = y;
    }
}

/* The same value as bsync_u64_isqrt, faster for large n (a table seed, two Newton steps and a multiply
 * check; src/internal/quat_normalize.h). */
BSYNC_API uint64_t bsync_u64_isqrt_fast(uint64_t n);

/* Round a value given in 2^-32 units (a sum of raw fix16 products) to fix16, ties away from zero,
 * saturating. The value is hi * 2^16 + lo (hi any int64 with |hi| < 2^62, lo >= 0 any int64 < 2^62). */
static inline fix16_t bsync_fx_round_q32_(int64_t hi, int64_t lo) {
    int64_t whole = hi + bsync_i64_asr(lo, 16); /* floor(value / 2^16) */
    int64_t frac = lo & 0xFFFF;                 /* lo >= 0, so the mask is defined */
    if (whole >= 0) return bsync_fx_sat64(whole + (frac >= 0x8000 ? 1 : 0));
    /* value = whole + frac/65536 < 0; |value| = (-whole-1) + (65536-frac)/65536 when frac > 0 */
    if (frac == 0) return bsync_fx_sat64(whole);
    return bsync_fx_sat64(-((-whole - 1) + ((65536 - frac) >= 0x8000 ? 1 : 0)));
}

/* Accumulator of exact raw products (each |p| <= 2^62) in 2^-32 units, for up to 4 terms. */
typedef struct bsync_acc_ { int64_t hi, lo; } bsync_acc_;
static inline void bsync_acc_add_(bsync_acc_* a, int64_t product) {
    a->hi += bsync_i64_asr(product, 16);
    a->lo += product & 0xFFFF; /* two's complement low bits; defined on int64 via & */
}
static inline void bsync_acc_mul_add_(bsync_acc_* a, fix16_t x, fix16_t y) {
    bsync_acc_add_(a, (int64_t)x * (int64_t)y);
}
static inline void bsync_acc_mul_sub_(bsync_acc_* a, fix16_t x, fix16_t y) {
    /* -(x*y) computed as (-x)*y in int64: |x| <= 2^31 so -x fits */
    bsync_acc_add_(a, -(int64_t)x * (int64_t)y);
}
static inline fix16_t bsync_acc_result_(const bsync_acc_* a) { return bsync_fx_round_q32_(a->hi, a->lo); }

/* ---------------------------------------------------------------- scalars */

static inline fix16_t bsync_fx_from_int(int32_t i) {
    return bsync_fx_sat64((int64_t)i * 65536);
}
static inline fix16_t bsync_fx_add(fix16_t a, fix16_t b) { return bsync_fx_sat64((int64_t)a + b); }
static inline fix16_t bsync_fx_sub(fix16_t a, fix16_t b) { return bsync_fx_sat64((int64_t)a - b); }
static inline fix16_t bsync_fx_neg(fix16_t a) { return bsync_fx_sat64(-(int64_t)a); }
static inline fix16_t bsync_fx_abs(fix16_t a) { return bsync_fx_sat64(a < 0 ? -(int64_t)a : (int64_t)a); }
static inline fix16_t bsync_fx_min(fix16_t a, fix16_t b) { return a < b ? a : b; }
static inline fix16_t bsync_fx_max(fix16_t a, fix16_t b) { return a > b ? a : b; }
static inline fix16_t bsync_fx_clamp(fix16_t x, fix16_t lo, fix16_t hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

/* a * b, rounded to nearest with ties away from zero; saturating. Bit-identical to fix16_mul
 * wherever fix16_mul does not overflow. */
static inline fix16_t bsync_fx_mul(fix16_t a, fix16_t b) {
    int64_t p = (int64_t)a * (int64_t)b;
    uint64_t m = bsync_u64_abs(p);
    return bsync_fx_signed_sat((m + 0x8000u) >> 16, p < 0);
}

/* a / b; saturating; x/0 as documented above. Bit-identical to fix16_div wherever fix16_div does not
 * overflow, INCLUDING its rounding quirk: libfixmath computes Q = floor(2^17 |a/b|) and returns
 * (Q + 1) >> 1 (round half away from zero), but for |b| >= 2^20 it starts from the estimate
 * q0 = floor(|a| / (floor(|b| / 2^17) + 1)) and continues from the remainder |a| - floor(q0 |b| / 2^17),
 * which drops the low bits of q0 |b| / 2^17; Q can then be one unit (2^-17) too large, so a quotient whose
 * fraction is just below one half (down to about 0.47 raw steps measured) rounds away from zero.
 * The same arithmetic is reproduced exactly here. Error vs the exact quotient: < 0.5 + 2^-3 raw steps
 * (see docs/numerics.md for the measured maximum). */
static inline fix16_t bsync_fx_div(fix16_t a, fix16_t b) {
    if (b == 0) return a > 0 ? BSYNC_FX_MAX : (a < 0 ? BSYNC_FX_MIN : 0);
    uint64_t n = bsync_u64_abs(a), d = bsync_u64_abs(b);
    uint64_t q; /* Q in units of 2^-17 */
    if (d >= ((uint64_t)1 << 20)) {
        uint64_t q0 = n / ((d >> 17) + 1);        /* <= 2^28 */
        uint64_t r = n - ((q0 * d) >> 17);        /* q0 * d < 2^60; r < 2^32 */
        q = q0 + (r << 17) / d;
    } else {
        q = (n << 17) / d; /* n << 17 <= 2^48 */
    }
    return bsync_fx_signed_sat((q + 1) >> 1, (a < 0) != (b < 0));
}

/* Square root; 0 for negative inputs. Bit-identical to fix16_sqrt for every x >= 0, including its
 * quirk: libfixmath takes r1 = floor(sqrt(x)) and rem = x - r1^2; when rem > 65535 it continues from
 * an approximated remainder that is 2^14 too small, i.e. it returns round(sqrt(x * 2^16 - 2^14))
 * instead of round(sqrt(x * 2^16)). The two differ only where the exact root's fraction is within
 * about 0.001 raw steps above one half, so the error vs the exact root is < 0.5011 raw steps
 * (measured maximum in docs/numerics.md). Always in range: sqrt(2^47) < 2^24. */
static inline fix16_t bsync_fx_sqrt(fix16_t x) {
    if (x <= 0) return 0;
    uint64_t r1 = bsync_u64_isqrt((uint64_t)x);
    uint64_t n = ((uint64_t)x << 16) - ((uint64_t)x - r1 * r1 > 65535u ? 16384u : 0u);
    uint64_t r = bsync_u64_isqrt(n);
    if (n - r * r > r) r++; /* round to nearest: n >= (r + 1/2)^2  <=>  n - r^2 > r  for integers */
    return (fix16_t)r;
}

/* a + (b - a) * t with t clamped to [0, 1]; exact 64-bit intermediate, rounded ties away from zero.
 * Returns a at t = 0 and b at t = 1 exactly. */
static inline fix16_t bsync_fx_lerp(fix16_t a, fix16_t b, fix16_t t) {
    if (t <= 0) return a;
    if (t >= BSYNC_FX_ONE) return b;
    int64_t p = ((int64_t)b - (int64_t)a) * (int64_t)t; /* |b-a| < 2^32, t < 2^16 */
    /* d = p / 2^16 rounded half away from zero, without a branch: floor((p + 2^15 - [p < 0]) / 2^16).
     * For p >= 0 that is floor((p + 2^15) / 2^16). For p = -q < 0, with q + 2^15 = 2^16 k + r
     * (0 <= r < 2^16): floor((2^15 - 1 - q) / 2^16) = -ceil((q - 2^15 + 1) / 2^16) = -ceil((2^16 (k - 1)
     * + r + 1) / 2^16) = -k, the negated rounding of q. |p| < 2^48, so nothing overflows. */
    int64_t d = bsync_i64_asr(p + 0x8000 - (int64_t)(p < 0), 16);
    return bsync_fx_sat64((int64_t)a + d);
}

/* ---------------------------------------------------------------- trig (fixed_trig.c)
 * Angles in radians (fix16). Error bounds, asserted against libm in tests/unit/test_fixed_trig.c:
 *   bsync_fx_sin, bsync_fx_cos: |error| <= 1e-4 for every input (argument reduced exactly mod 2 pi);
 *                               results in [-1, 1]; sin(0) = 0 and cos(0) = 1 exactly.
 *   bsync_fx_atan2:             |error| <= 1e-4 rad for every (y, x); atan2(0, 0) = 0;
 *                               result in [-BSYNC_FX_PI, BSYNC_FX_PI]; atan2(0, x < 0) = +pi.
 * Internally Q30 polynomials after an exact reduction, rounded once: the measured error is about half
 * a raw step (7.7e-6; see docs/numerics.md). No trig tables, no caches, no globals. */
BSYNC_API fix16_t bsync_fx_sin(fix16_t angle);
BSYNC_API fix16_t bsync_fx_cos(fix16_t angle);
BSYNC_API fix16_t bsync_fx_atan2(fix16_t y, fix16_t x);

/* ---------------------------------------------------------------- vec3 */

static inline bsync_vec3 bsync_vec3_make(fix16_t x, fix16_t y, fix16_t z) {
    bsync_vec3 v = {x, y, z};
    return v;
}
static inline bsync_vec3 bsync_vec3_add(bsync_vec3 a, bsync_vec3 b) {
    return bsync_vec3_make(bsync_fx_add(a.x, b.x), bsync_fx_add(a.y, b.y), bsync_fx_add(a.z, b.z));
}
static inline bsync_vec3 bsync_vec3_sub(bsync_vec3 a, bsync_vec3 b) {
    return bsync_vec3_make(bsync_fx_sub(a.x, b.x), bsync_fx_sub(a.y, b.y), bsync_fx_sub(a.z, b.z));
}
static inline bsync_vec3 bsync_vec3_neg(bsync_vec3 a) {
    return bsync_vec3_make(bsync_fx_neg(a.x), bsync_fx_neg(a.y), bsync_fx_neg(a.z));
}
static inline bsync_vec3 bsync_vec3_scale(bsync_vec3 a, fix16_t s) {
    return bsync_vec3_make(bsync_fx_mul(a.x, s), bsync_fx_mul(a.y, s), bsync_fx_mul(a.z, s));
}
/* Component-wise product. */
static inline bsync_vec3 bsync_vec3_mul(bsync_vec3 a, bsync_vec3 b) {
    return bsync_vec3_make(bsync_fx_mul(a.x, b.x), bsync_fx_mul(a.y, b.y), bsync_fx_mul(a.z, b.z));
}
/* Exact sum of products, rounded once; saturating. No intermediate overflow for any input. */
static inline fix16_t bsync_vec3_dot(bsync_vec3 a, bsync_vec3 b) {
    bsync_acc_ acc = {0, 0};
    bsync_acc_mul_add_(&acc, a.x, b.x);
    bsync_acc_mul_add_(&acc, a.y, b.y);
    bsync_acc_mul_add_(&acc, a.z, b.z);
    return bsync_acc_result_(&acc);
}
static inline fix16_t bsync_vec3_length_sq(bsync_vec3 a) { return bsync_vec3_dot(a, a); }
/* Each component is one exact difference of products rounded once. */
static inline bsync_vec3 bsync_vec3_cross(bsync_vec3 a, bsync_vec3 b) {
    bsync_acc_ x = {0, 0}, y = {0, 0}, z = {0, 0};
    bsync_acc_mul_add_(&x, a.y, b.z); bsync_acc_mul_sub_(&x, a.z, b.y);
    bsync_acc_mul_add_(&y, a.z, b.x); bsync_acc_mul_sub_(&y, a.x, b.z);
    bsync_acc_mul_add_(&z, a.x, b.y); bsync_acc_mul_sub_(&z, a.y, b.x);
    return bsync_vec3_make(bsync_acc_result_(&x), bsync_acc_result_(&y), bsync_acc_result_(&z));
}
/* Correctly rounded length for every input (the sum of squares is exact in uint64: 3 * 2^62 < 2^64);
 * saturates at BSYNC_FX_MAX. */
static inline fix16_t bsync_vec3_length(bsync_vec3 a) {
    uint64_t ax = bsync_u64_abs(a.x), ay = bsync_u64_abs(a.y), az = bsync_u64_abs(a.z);
    uint64_t s = ax * ax + ay * ay + az * az;
    uint64_t r = bsync_u64_isqrt(s);
    if (s - r * r > r) r++;
    return bsync_fx_signed_sat(r, 0);
}
static inline bsync_vec3 bsync_vec3_lerp(bsync_vec3 a, bsync_vec3 b, fix16_t t) {
    return bsync_vec3_make(bsync_fx_lerp(a.x, b.x, t), bsync_fx_lerp(a.y, b.y, t), bsync_fx_lerp(a.z, b.z, t));
}
/* Angle between two vectors in [0, pi], as atan2(|a x b|, a . b) (never acos); 0 if either is zero.
 * Valid for ANY int32 components: each vector is first scaled by a power of two (the angle does not
 * depend on lengths), cross and dot are exact in int64, so near-parallel and antiparallel vectors keep
 * full precision. Error as bsync_fx_atan2 (<= 1e-4 rad; about half a raw step measured). */
BSYNC_API fix16_t bsync_vec3_angle(bsync_vec3 a, bsync_vec3 b);

/* ---------------------------------------------------------------- quaternions */

static inline bsync_quat bsync_quat_make(fix16_t x, fix16_t y, fix16_t z, fix16_t w) {
    bsync_quat q = {x, y, z, w};
    return q;
}
static inline bsync_quat bsync_quat_identity(void) { return bsync_quat_make(0, 0, 0, BSYNC_FX_ONE); }
static inline bsync_quat bsync_quat_conj(bsync_quat q) {
    return bsync_quat_make(bsync_fx_neg(q.x), bsync_fx_neg(q.y), bsync_fx_neg(q.z), q.w);
}
static inline bsync_quat bsync_quat_neg(bsync_quat q) {
    return bsync_quat_make(bsync_fx_neg(q.x), bsync_fx_neg(q.y), bsync_fx_neg(q.z), bsync_fx_neg(q.w));
}
/* 4-component dot product, exact and rounded once. */
static inline fix16_t bsync_quat_dot(bsync_quat a, bsync_quat b) {
    bsync_acc_ acc = {0, 0};
    bsync_acc_mul_add_(&acc, a.x, b.x);
    bsync_acc_mul_add_(&acc, a.y, b.y);
    bsync_acc_mul_add_(&acc, a.z, b.z);
    bsync_acc_mul_add_(&acc, a.w, b.w);
    return bsync_acc_result_(&acc);
}
/* Hamilton product a * b (apply b first, then a). Each component is the exact sum of four products
 * rounded once. */
static inline bsync_quat bsync_quat_mul(bsync_quat a, bsync_quat b) {
    bsync_acc_ x = {0, 0}, y = {0, 0}, z = {0, 0}, w = {0, 0};
    bsync_acc_mul_add_(&x, a.w, b.x); bsync_acc_mul_add_(&x, a.x, b.w);
    bsync_acc_mul_add_(&x, a.y, b.z); bsync_acc_mul_sub_(&x, a.z, b.y);
    bsync_acc_mul_add_(&y, a.w, b.y); bsync_acc_mul_sub_(&y, a.x, b.z);
    bsync_acc_mul_add_(&y, a.y, b.w); bsync_acc_mul_add_(&y, a.z, b.x);
    bsync_acc_mul_add_(&z, a.w, b.z); bsync_acc_mul_add_(&z, a.x, b.y);
    bsync_acc_mul_sub_(&z, a.y, b.x); bsync_acc_mul_add_(&z, a.z, b.w);
    bsync_acc_mul_add_(&w, a.w, b.w); bsync_acc_mul_sub_(&w, a.x, b.x);
    bsync_acc_mul_sub_(&w, a.y, b.y); bsync_acc_mul_sub_(&w, a.z, b.z);
    return bsync_quat_make(bsync_acc_result_(&x), bsync_acc_result_(&y), bsync_acc_result_(&z),
                           bsync_acc_result_(&w));
}

/* Scale q to unit length. The length is computed with about 14 extra bits (isqrt of the exact sum
 * of squares scaled by 2^k), each component divided and rounded once (ties away from zero), so an
 * exactly unit input (such as the identity) comes back unchanged and every component of the result
 * is within one raw step of the exact unit quaternion. A zero quaternion gives the identity. Any
 * input magnitude is accepted. *out_was_zero (when not null) is set to 1 if q was zero, else 0. */
BSYNC_API bsync_quat bsync_quat_normalize_ex(bsync_quat q, int* out_was_zero);
static inline bsync_quat bsync_quat_normalize(bsync_quat q) { return bsync_quat_normalize_ex(q, NULL); }

/* Rotate v by the unit quaternion q: v + 2w (u x v) + 2 u x (u x v), u = q.xyz. */
static inline bsync_vec3 bsync_quat_rotate(bsync_quat q, bsync_vec3 v) {
    bsync_vec3 u = bsync_vec3_make(q.x, q.y, q.z);
    bsync_vec3 t = bsync_vec3_cross(u, v);
    t = bsync_vec3_make(bsync_fx_add(t.x, t.x), bsync_fx_add(t.y, t.y), bsync_fx_add(t.z, t.z));
    return bsync_vec3_add(bsync_vec3_add(v, bsync_vec3_scale(t, q.w)), bsync_vec3_cross(u, t));
}

/* 1 if every component is in [-2^30, 2^30): c + 2^30 is then in [0, 2^31) as uint32, and their OR is
 * below 2^31 exactly when all are. Products of such components are at most 2^60 in magnitude, so
 * sums of four of them fit in int64. */
static inline int bsync_quat_small_(bsync_quat q) {
    return (((uint32_t)q.x + 0x40000000u) | ((uint32_t)q.y + 0x40000000u) | ((uint32_t)q.z + 0x40000000u) |
            ((uint32_t)q.w + 0x40000000u)) < 0x80000000u;
}
/* Sign (-1, 0, 1) of the EXACT dot product a . b (not of its rounded value). */
static inline int bsync_quat_dot_sign_(bsync_quat a, bsync_quat b) {
    /* components in [-2^30, 2^30) (every unit quaternion): the exact dot fits in int64 (each product
     * at most 2^60, the sum at most 2^62), so its sign is read directly */
    if (bsync_quat_small_(a) && bsync_quat_small_(b)) {
        const int64_t v = (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z + (int64_t)a.w * b.w;
        return (v > 0) - (v < 0);
    }
    bsync_acc_ acc = {0, 0};
    bsync_acc_mul_add_(&acc, a.x, b.x);
    bsync_acc_mul_add_(&acc, a.y, b.y);
    bsync_acc_mul_add_(&acc, a.z, b.z);
    bsync_acc_mul_add_(&acc, a.w, b.w);
    int64_t whole = acc.hi + bsync_i64_asr(acc.lo, 16);
    if (whole < 0) return -1;
    return (whole > 0 || (acc.lo & 0xFFFF) != 0) ? 1 : 0;
}
/* 1 if the first nonzero component of q in the order w, x, y, z is negative. */
static inline int bsync_quat_lex_negative_(bsync_quat q) {
    if (q.w != 0) return q.w < 0;
    if (q.x != 0) return q.x < 0;
    if (q.y != 0) return q.y < 0;
    return q.z < 0;
}

/* Normalised linear interpolation along the shorter arc: b is negated when the exact dot(a, b) < 0
 * (the hemisphere alignment; when the exact dot is 0, b is negated if its first nonzero component in
 * the order w, x, y, z is negative, so b and -b ALWAYS give the same result), components are lerped
 * with t clamped to [0, 1], the result normalised. t = 0 gives normalize(a), t = 1 gives
 * normalize(+-b). */
static inline bsync_quat bsync_quat_nlerp(bsync_quat a, bsync_quat b, fix16_t t) {
    int sgn = bsync_quat_dot_sign_(a, b);
    if (sgn < 0 || (sgn == 0 && bsync_quat_lex_negative_(b))) b = bsync_quat_neg(b);
    return bsync_quat_normalize(bsync_quat_make(bsync_fx_lerp(a.x, b.x, t), bsync_fx_lerp(a.y, b.y, t),
                                                bsync_fx_lerp(a.z, b.z, t), bsync_fx_lerp(a.w, b.w, t)));
}

/* Rotation of `angle` radians about `axis` (any length; a zero axis gives the identity):
 * (axis/|axis| * sin(angle/2), cos(angle/2)) with the half angle taken exactly (no rounding of
 * angle/2) and each component rounded once from a Q30 intermediate, so every component is within
 * one raw step of the exact unit quaternion. Not renormalised afterwards. */
BSYNC_API bsync_quat bsync_quat_from_axis_angle(bsync_vec3 axis, fix16_t angle);

/* ---------------------------------------------------------------- transforms */

static inline bsync_trs bsync_trs_identity(void) {
    bsync_trs x;
    x.t = bsync_vec3_make(0, 0, 0);
    x.r = bsync_quat_identity();
    x.s = bsync_vec3_make(BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE);
    return x;
}
static inline bsync_vec3 bsync_trs_transform_point(const bsync_trs* x, bsync_vec3 p) {
    return bsync_vec3_add(x->t, bsync_quat_rotate(x->r, bsync_vec3_mul(x->s, p)));
}
/* parent ∘ local: the transform that applies local, then parent. Translation = parent applied to
 * local.t; rotation = parent.r * local.r (not renormalised: unit inputs stay unit within rounding);
 * scale = component-wise parent.s * local.s. Like ozz's and most engines' TRS hierarchies, this
 * ignores the shear that a non-uniform parent scale puts on a rotated child (exact for uniform scale). */
static inline bsync_trs bsync_trs_compose(const bsync_trs* parent, const bsync_trs* local) {
    bsync_trs out;
    out.t = bsync_trs_transform_point(parent, local->t);
    out.r = bsync_quat_mul(parent->r, local->r);
    out.s = bsync_vec3_mul(parent->s, local->s);
    return out;
}

/* ---------------------------------------------------------------- conversions (fixed_text.c)
 * Edges only: importing float assets and printing. Never upstream of a checksum except through
 * bsync_fx_from_double at import, which is exact for the double it is given. */

/* round(v * 65536), ties away from zero. NaN/inf -> BSYNC_NOT_FINITE; outside
 * [BSYNC_FX_MIN, BSYNC_FX_MAX] after rounding -> BSYNC_OVERFLOW; null out -> BSYNC_INVALID_ARGUMENT.
 * *out untouched on failure. Plain double arithmetic only (no libm). */
BSYNC_API bsync_result bsync_fx_from_double(double v, fix16_t* out);
/* raw / 65536 (exact in double). Display only. */
static inline double bsync_fx_to_double(fix16_t v) { return (double)v / 65536.0; }

/* Parse a decimal number in exactly JSON's number grammar:
 *     -? ( 0 | [1-9][0-9]* ) ( . [0-9]+ )? ( [eE] [+-]? [0-9]+ )?
 * so "+1", "01", "1.", ".5", "1e", "", "-", " 1", "0x1", "inf" and "nan" are BSYNC_PARSE_ERROR. The
 * value is rounded EXACTLY (any number of digits, any exponent; integer arithmetic only) to the
 * nearest raw step, ties away from zero. `len` bytes of `text` are read (no terminator needed); the
 * whole span must be the number, else BSYNC_PARSE_ERROR (also for len > 2^40). A result outside
 * [BSYNC_FX_MIN, BSYNC_FX_MAX] -> BSYNC_OVERFLOW (so "-32768" overflows). "-0" is 0. Null text or
 * out -> BSYNC_INVALID_ARGUMENT. *out untouched on failure. */
BSYNC_API bsync_result bsync_fx_parse(const char* text, size_t len, fix16_t* out);

/* Shortest decimal text that bsync_fx_parse turns back into the same raw value (5 fractional digits
 * always suffice, since 1e-5 < 2^-16), e.g. "1", "-0.5", "0.00002"; of two shortest candidates the
 * nearer to the exact value is chosen. NUL-terminated; `cap` >= 16 always suffices (the longest is
 * "-32767.99998", 12 bytes). Returns the length written (excluding NUL), or 0 if cap is too small
 * (buf then holds "" when cap >= 1) or buf is null. INT32_MIN (never produced) formats as "-32768",
 * which bsync_fx_parse rejects as out of range. */
BSYNC_API size_t bsync_fx_format(fix16_t v, char* buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_FIXED_H */
