/* internal/wide_math.h — 128-bit products and quotients from 64-bit integers (no __int128), for the
 * filters of curve.c, smooth.c and param.c. Not a public header.
 *
 *   bsync_w_mul_u64      exact 64 x 64 -> 128-bit unsigned product (hi, lo)
 *   bsync_w_div_u128     floor(n / d) of a 128-bit n by a 64-bit d (quotient saturates at UINT64_MAX)
 *   bsync_w_mul_shr      round(a * b / 2^s) for signed int64 a, b, 0 < s < 64, ties away from zero,
 *                        saturated to [-BSYNC_W_LIMIT, BSYNC_W_LIMIT]
 *   bsync_w_muldiv       round(a * b / d) for signed a, b and d > 0, ties away from zero, saturated
 *   bsync_w_sat          clamp an int64 to [-BSYNC_W_LIMIT, BSYNC_W_LIMIT]
 *
 * BSYNC_W_LIMIT = 2^61: a sum or difference of up to three saturated intermediates cannot overflow
 * int64 (resaturate it with bsync_w_sat before going on). All arithmetic is on uint64 (wrap-around is defined) or on int64 values
 * proven in range, so it is free of undefined behaviour and gives the same bits on 32-bit targets.
 */
#ifndef BLENDSYNC_INTERNAL_WIDE_MATH_H
#define BLENDSYNC_INTERNAL_WIDE_MATH_H

#include <stdint.h>
#include "blendsync/fixed.h"

#define BSYNC_W_LIMIT ((int64_t)1 << 61)

typedef struct bsync_w_u128 { uint64_t hi, lo; } bsync_w_u128;

static inline int64_t bsync_w_sat(int64_t v) {
    if (v > BSYNC_W_LIMIT) return BSYNC_W_LIMIT;
    if (v < -BSYNC_W_LIMIT) return -BSYNC_W_LIMIT;
    return v;
}

static inline bsync_w_u128 bsync_w_mul_u64(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu); /* < 3 * 2^32 */
    bsync_w_u128 r;
    r.lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

/* floor(n / d), d > 0; UINT64_MAX when the quotient does not fit in 64 bits. Restoring long
 * division over the significant bits only. The remainder goes to *rem when rem is not NULL (it is
 * meaningless when the quotient saturated). */
static inline uint64_t bsync_w_div_u128(bsync_w_u128 n, uint64_t d, uint64_t* rem) {
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

static inline int64_t bsync_w_signed_from_mag(uint64_t m, int neg) {
    if (m > (uint64_t)BSYNC_W_LIMIT) m = (uint64_t)BSYNC_W_LIMIT;
    return neg ? -(int64_t)m : (int64_t)m;
}

/* round(a * b / 2^s), ties away from zero, for 1 <= s <= 63, saturated to +-2^61. */
static inline int64_t bsync_w_mul_shr(int64_t a, int64_t b, unsigned s) {
    int neg = (a < 0) != (b < 0);
    bsync_w_u128 p = bsync_w_mul_u64(bsync_u64_abs(a), bsync_u64_abs(b));
    /* add 2^(s-1) for rounding */
    uint64_t half = (uint64_t)1 << (s - 1);
    uint64_t lo = p.lo + half;
    uint64_t hi = p.hi + (lo < p.lo ? 1u : 0u);
    if ((hi >> s) != 0) return bsync_w_signed_from_mag(UINT64_MAX, neg); /* >= 2^64 after shift */
    uint64_t m = (lo >> s) | (hi << (64 - s));
    return bsync_w_signed_from_mag(m, neg);
}

/* round(a * b / d), ties away from zero, d > 0 (d <= 0 gives 0), saturated to +-2^61. */
static inline int64_t bsync_w_muldiv(int64_t a, int64_t b, int64_t d) {
    if (d <= 0) return 0;
    int neg = (a < 0) != (b < 0);
    bsync_w_u128 p = bsync_w_mul_u64(bsync_u64_abs(a), bsync_u64_abs(b));
    uint64_t rem;
    uint64_t q = bsync_w_div_u128(p, (uint64_t)d, &rem);
    if (q == UINT64_MAX) return bsync_w_signed_from_mag(UINT64_MAX, neg);
    if (rem >= (uint64_t)d - rem) q++; /* rem >= d/2 exactly: ties away from zero */
    return bsync_w_signed_from_mag(q, neg);
}

#endif
