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
 * fix16_t is libfixmath's (int32, raw / 65536); mul, div and sqrt return its bits wherever it does
 * not overflow. Results saturate to [BSYNC_FX_MIN, BSYNC_FX_MAX] (INT32_MIN is never produced, read
 * as -32768), round to nearest with ties away from zero, x/0 saturates by sign (0/0 = 0), sqrt of a
 * negative is 0. Integer arithmetic only (same bits on every target, compiler and -O); no libm, no
 * libfixmath calls, no allocation, no state. design: docs/numerics.md#rules
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

/* floor(sqrt(n)) for every uint64 n (Newton, integers only). */
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

/* The same value as bsync_u64_isqrt, faster for large n. */
BSYNC_API uint64_t bsync_u64_isqrt_fast(uint64_t n);

/* hi * 2^16 + lo (2^-32 units) rounded to fix16, ties away from zero, saturating. */
static inline fix16_t bsync_fx_round_q32_(int64_t hi, int64_t lo) {
    int64_t whole = hi + bsync_i64_asr(lo, 16); /* floor(value / 2^16) */
    int64_t frac = lo & 0xFFFF;                 /* lo >= 0, so the mask is defined */
    if (whole >= 0) return bsync_fx_sat64(whole + (frac >= 0x8000 ? 1 : 0));
    if (frac == 0) return bsync_fx_sat64(whole);
    return bsync_fx_sat64(-((-whole - 1) + ((65536 - frac) >= 0x8000 ? 1 : 0)));
}

/* Exact sum of up to 4 raw products, in 2^-32 units. */
typedef struct bsync_acc_ { int64_t hi, lo; } bsync_acc_;
static inline void bsync_acc_add_(bsync_acc_* a, int64_t product) {
    a->hi += bsync_i64_asr(product, 16);
    a->lo += product & 0xFFFF;
}
static inline void bsync_acc_mul_add_(bsync_acc_* a, fix16_t x, fix16_t y) {
    bsync_acc_add_(a, (int64_t)x * (int64_t)y);
}
static inline void bsync_acc_mul_sub_(bsync_acc_* a, fix16_t x, fix16_t y) {
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

/* a * b, rounded ties away from zero, saturating; fix16_mul's bits where it does not overflow. */
static inline fix16_t bsync_fx_mul(fix16_t a, fix16_t b) {
    int64_t p = (int64_t)a * (int64_t)b;
    uint64_t m = bsync_u64_abs(p);
    return bsync_fx_signed_sat((m + 0x8000u) >> 16, p < 0);
}

/* a / b, saturating (x/0 by sign); fix16_div's bits, rounding quirk included (error < 0.625 raw
 * steps). design: docs/numerics.md#rules */
static inline fix16_t bsync_fx_div(fix16_t a, fix16_t b) {
    if (b == 0) return a > 0 ? BSYNC_FX_MAX : (a < 0 ? BSYNC_FX_MIN : 0);
    uint64_t n = bsync_u64_abs(a), d = bsync_u64_abs(b);
    uint64_t q;
    if (d >= ((uint64_t)1 << 20)) {
        uint64_t q0 = n / ((d >> 17) + 1);
        uint64_t r = n - ((q0 * d) >> 17);
        q = q0 + (r << 17) / d;
    } else {
        q = (n << 17) / d;
    }
    return bsync_fx_signed_sat((q + 1) >> 1, (a < 0) != (b < 0));
}

/* Square root, 0 for x <= 0; fix16_sqrt's bits for every x >= 0, quirk included (error < 0.5011 raw
 * steps). design: docs/numerics.md#rules */
static inline fix16_t bsync_fx_sqrt(fix16_t x) {
    if (x <= 0) return 0;
    uint64_t r1 = bsync_u64_isqrt((uint64_t)x);
    uint64_t n = ((uint64_t)x << 16) - ((uint64_t)x - r1 * r1 > 65535u ? 16384u : 0u);
    uint64_t r = bsync_u64_isqrt(n);
    if (n - r * r > r) r++;
    return (fix16_t)r;
}

/* a + (b - a) * t, t clamped to [0, 1], rounded once; exactly a at t = 0 and b at t = 1. */
static inline fix16_t bsync_fx_lerp(fix16_t a, fix16_t b, fix16_t t) {
    if (t <= 0) return a;
    if (t >= BSYNC_FX_ONE) return b;
    int64_t p = ((int64_t)b - (int64_t)a) * (int64_t)t;
    int64_t d = bsync_i64_asr(p + 0x8000 - (int64_t)(p < 0), 16);
    return bsync_fx_sat64((int64_t)a + d);
}

/* ---------------------------------------------------------------- trig (fixed_trig.c)
 * Radians. |error| <= 1e-4 for every input; sin, cos in [-1, 1]; atan2 in [-pi, pi], atan2(0, 0) = 0.
 * design: docs/numerics.md#trigonometry */
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
/* Exact sum of products, rounded once; saturating. */
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
/* Correctly rounded length for every input; saturating. */
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
/* Angle in [0, pi] as atan2(|a x b|, a . b), any components; 0 if either is zero; error as atan2. */
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
/* Hamilton product a * b (apply b first, then a); each component rounded once. */
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

/* q scaled to unit length (any magnitude; zero gives the identity), each component within one raw
 * step; *out_was_zero (if not null) = 1 when q was zero, else 0. */
BSYNC_API bsync_quat bsync_quat_normalize_ex(bsync_quat q, int* out_was_zero);
static inline bsync_quat bsync_quat_normalize(bsync_quat q) { return bsync_quat_normalize_ex(q, NULL); }

/* Rotate v by the unit quaternion q: v + 2w (u x v) + 2 u x (u x v), u = q.xyz. */
static inline bsync_vec3 bsync_quat_rotate(bsync_quat q, bsync_vec3 v) {
    bsync_vec3 u = bsync_vec3_make(q.x, q.y, q.z);
    bsync_vec3 t = bsync_vec3_cross(u, v);
    t = bsync_vec3_make(bsync_fx_add(t.x, t.x), bsync_fx_add(t.y, t.y), bsync_fx_add(t.z, t.z));
    return bsync_vec3_add(bsync_vec3_add(v, bsync_vec3_scale(t, q.w)), bsync_vec3_cross(u, t));
}

/* 1 if every component is in [-2^30, 2^30). */
static inline int bsync_quat_small_(bsync_quat q) {
    return (((uint32_t)q.x + 0x40000000u) | ((uint32_t)q.y + 0x40000000u) | ((uint32_t)q.z + 0x40000000u) |
            ((uint32_t)q.w + 0x40000000u)) < 0x80000000u;
}
/* Sign (-1, 0, 1) of the EXACT dot product a . b (not of its rounded value). */
static inline int bsync_quat_dot_sign_(bsync_quat a, bsync_quat b) {
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

/* Normalised lerp along the shorter arc (t clamped to [0, 1]); b and -b always give the same result.
 * design: docs/numerics.md#bounds-of-the-vector-quaternion-and-transform-functions */
static inline bsync_quat bsync_quat_nlerp(bsync_quat a, bsync_quat b, fix16_t t) {
    int sgn = bsync_quat_dot_sign_(a, b);
    if (sgn < 0 || (sgn == 0 && bsync_quat_lex_negative_(b))) b = bsync_quat_neg(b);
    return bsync_quat_normalize(bsync_quat_make(bsync_fx_lerp(a.x, b.x, t), bsync_fx_lerp(a.y, b.y, t),
                                                bsync_fx_lerp(a.z, b.z, t), bsync_fx_lerp(a.w, b.w, t)));
}

/* Rotation of `angle` radians about `axis` (any length; zero gives the identity), each component
 * within one raw step of the exact unit quaternion. */
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
/* parent ∘ local (apply local, then parent); no shear, so exact only for uniform parent scale. */
static inline bsync_trs bsync_trs_compose(const bsync_trs* parent, const bsync_trs* local) {
    bsync_trs out;
    out.t = bsync_trs_transform_point(parent, local->t);
    out.r = bsync_quat_mul(parent->r, local->r);
    out.s = bsync_vec3_mul(parent->s, local->s);
    return out;
}

/* ---------------------------------------------------------------- conversions (fixed_text.c)
 * Edges only (import, printing). design: docs/numerics.md#conversions-at-the-edges-fixed_textc */

/* round(v * 65536), ties away from zero. BSYNC_NOT_FINITE, BSYNC_OVERFLOW, BSYNC_INVALID_ARGUMENT
 * (null out); *out untouched on failure. */
BSYNC_API bsync_result bsync_fx_from_double(double v, fix16_t* out);
/* raw / 65536 (exact in double). Display only. */
static inline double bsync_fx_to_double(fix16_t v) { return (double)v / 65536.0; }

/* The `len` bytes of `text` as one JSON number, rounded exactly to the nearest raw step.
 * BSYNC_PARSE_ERROR (not the whole span a JSON number), BSYNC_OVERFLOW ("-32768" too),
 * BSYNC_INVALID_ARGUMENT; *out untouched on failure. */
BSYNC_API bsync_result bsync_fx_parse(const char* text, size_t len, fix16_t* out);

/* Shortest decimal that bsync_fx_parse reads back to v, NUL-terminated (cap >= 16 always suffices).
 * Returns its length, or 0 when cap is too small or buf is null. */
BSYNC_API size_t bsync_fx_format(fix16_t v, char* buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_FIXED_H */
