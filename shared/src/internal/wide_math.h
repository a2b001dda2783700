/* internal/wide_math.h — 128-bit integers built from two 64-bit words (no __int128), for time.c,
 * blend_delaunay.c (via exact_predicates.h) and the filters of curve.c, smooth.c and param.c. Not a
 * public header.
 *
 * One type, two readings: bsync_u128 is an unsigned 128-bit value; bsync_i128 (the same struct) is
 * a signed one in two's complement. Every operation is on uint64 words (wrap-around is defined), so
 * it is free of undefined behaviour and gives the same bits on 32- and 64-bit targets.
 *
 *   bsync_u128_make        the value hi * 2^64 + lo
 *   bsync_u128_add         a + b mod 2^128 (also the signed sum, exact whenever it fits)
 *   bsync_u128_add_u64     a + b mod 2^128 for a 64-bit b
 *   bsync_i128_neg         -a mod 2^128
 *   bsync_u128_mul_u64     exact 64 x 64 -> 128-bit unsigned product
 *   bsync_i128_mul_i64     exact signed product of two int64 values (any, including INT64_MIN)
 *   bsync_u128_cmp         -1, 0, 1 as unsigned a <, ==, > b
 *   bsync_i128_sign        -1, 0, 1 as the signed a is negative, zero, positive
 *   bsync_u128_shr         floor(a / 2^s) for 0 <= s < 128
 *   bsync_u128_divmod_u64  floor(n / d) and n mod d for a 64-bit d (quotient saturates at UINT64_MAX)
 *
 * Signed 64-bit helpers for the filters (fixed-point intermediates held in int64):
 *   bsync_w_mul_shr        round(a * b / 2^s) for signed int64 a, b, 0 < s < 64, ties away from zero,
 *                          saturated to [-BSYNC_W_LIMIT, BSYNC_W_LIMIT]
 *   bsync_w_muldiv         round(a * b / d) for signed a, b and d > 0, ties away from zero, saturated
 *   bsync_w_sat            clamp an int64 to [-BSYNC_W_LIMIT, BSYNC_W_LIMIT]
 *
 * BSYNC_W_LIMIT = 2^61: a sum or difference of up to three saturated intermediates cannot overflow
 * int64 (resaturate it with bsync_w_sat before going on).
 */
#ifndef BLENDSYNC_INTERNAL_WIDE_MATH_H
#define BLENDSYNC_INTERNAL_WIDE_MATH_H

#include <stdint.h>
#include "blendsync/fixed.h"

/* ---------------------------------------------------------------- 128-bit integers */

typedef struct bsync_u128 { uint64_t hi, lo; } bsync_u128;
typedef bsync_u128 bsync_i128; /* the same words read as two's complement */

static inline bsync_u128 bsync_u128_make(uint64_t hi, uint64_t lo) {
    bsync_u128 r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

static inline bsync_u128 bsync_u128_add(bsync_u128 a, bsync_u128 b) {
    bsync_u128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo ? 1u : 0u);
    return r;
}

static inline bsync_u128 bsync_u128_add_u64(bsync_u128 a, uint64_t b) {
    return bsync_u128_add(a, bsync_u128_make(0, b));
}

static inline bsync_i128 bsync_i128_neg(bsync_i128 a) {
    bsync_i128 r;
    r.lo = ~a.lo + 1u;
    r.hi = ~a.hi + (r.lo == 0 ? 1u : 0u);
    return r;
}

/* Exact product from 32-bit halves. */
static inline bsync_u128 bsync_u128_mul_u64(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu); /* < 3 * 2^32 */
    bsync_u128 r;
    r.lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

static inline bsync_i128 bsync_i128_mul_i64(int64_t a, int64_t b) {
    bsync_u128 p = bsync_u128_mul_u64(bsync_u64_abs(a), bsync_u64_abs(b));
    return ((a < 0) != (b < 0)) ? bsync_i128_neg(p) : p;
}

static inline int bsync_u128_cmp(bsync_u128 a, bsync_u128 b) {
    if (a.hi != b.hi) return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo) return a.lo < b.lo ? -1 : 1;
    return 0;
}

static inline int bsync_i128_sign(bsync_i128 a) {
    if (a.hi >> 63) return -1;
    return (a.hi | a.lo) != 0 ? 1 : 0;
}

static inline bsync_u128 bsync_u128_shr(bsync_u128 a, unsigned s) {
    if (s == 0) return a;
    if (s >= 64) return bsync_u128_make(0, s >= 128 ? 0 : a.hi >> (s - 64));
    return bsync_u128_make(a.hi >> s, (a.lo >> s) | (a.hi << (64 - s)));
}

/* floor(n / d), d > 0; UINT64_MAX when the quotient does not fit in 64 bits (or d == 0). Restoring
 * long division over the significant bits only. The remainder goes to *rem when rem is not NULL
 * (it is 0, and meaningless, when the quotient saturated). */
static inline uint64_t bsync_u128_divmod_u64(bsync_u128 n, uint64_t d, uint64_t* rem) {
    if (d == 0 || n.hi >= d) {
        if (rem) *rem = 0;
        return UINT64_MAX;
    }
    if (n.hi == 0) {
        if (rem) *rem = n.lo % d;
        return n.lo / d;
    }
    uint64_t r = n.hi; /* < d */
    uint64_t q = 0;
    for (int i = 63; i >= 0; i--) {
        uint64_t top = r >> 63; /* the bit shifted out: r * 2 >= 2^64 > d */
        r = (r << 1) | ((n.lo >> i) & 1u);
        q <<= 1;
        if (top || r >= d) {
            r -= d; /* wraps back into [0, d) when top is set */
            q |= 1u;
        }
    }
    if (rem) *rem = r;
    return q;
}

/* ---------------------------------------------------------------- saturating signed helpers */

#define BSYNC_W_LIMIT ((int64_t)1 << 61)

static inline int64_t bsync_w_sat(int64_t v) {
    if (v > BSYNC_W_LIMIT) return BSYNC_W_LIMIT;
    if (v < -BSYNC_W_LIMIT) return -BSYNC_W_LIMIT;
    return v;
}

static inline int64_t bsync_w_signed_from_mag(uint64_t m, int neg) {
    if (m > (uint64_t)BSYNC_W_LIMIT) m = (uint64_t)BSYNC_W_LIMIT;
    return neg ? -(int64_t)m : (int64_t)m;
}

/* round(a * b / 2^s), ties away from zero, for 1 <= s <= 63, saturated to +-2^61. */
static inline int64_t bsync_w_mul_shr(int64_t a, int64_t b, unsigned s) {
    int neg = (a < 0) != (b < 0);
    bsync_u128 p = bsync_u128_mul_u64(bsync_u64_abs(a), bsync_u64_abs(b));
    bsync_u128 q = bsync_u128_shr(bsync_u128_add_u64(p, (uint64_t)1 << (s - 1)), s); /* + 2^(s-1): rounding */
    if (q.hi != 0) return bsync_w_signed_from_mag(UINT64_MAX, neg); /* >= 2^64 after shift */
    return bsync_w_signed_from_mag(q.lo, neg);
}

/* round(a * b / d), ties away from zero, d > 0 (d <= 0 gives 0), saturated to +-2^61. */
static inline int64_t bsync_w_muldiv(int64_t a, int64_t b, int64_t d) {
    if (d <= 0) return 0;
    int neg = (a < 0) != (b < 0);
    bsync_u128 p = bsync_u128_mul_u64(bsync_u64_abs(a), bsync_u64_abs(b));
    uint64_t rem;
    uint64_t q = bsync_u128_divmod_u64(p, (uint64_t)d, &rem);
    if (q == UINT64_MAX) return bsync_w_signed_from_mag(UINT64_MAX, neg);
    if (rem >= (uint64_t)d - rem) q++; /* rem >= d/2 exactly: ties away from zero */
    return bsync_w_signed_from_mag(q, neg);
}

#endif
