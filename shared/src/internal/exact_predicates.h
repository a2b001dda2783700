/* internal/exact_predicates.h — exact orientation and in-circle tests on raw fix16 coordinates
 * (blend_delaunay.c). Not a public header.
 *
 * Bound. Every coordinate must satisfy |c| <= BSYNC_EXACT_COORD_MAX = 2^29 raw (8192.0). Then
 *   every difference of two coordinates           |d|        <= 2^30
 *   a product of two differences                  |d d'|     <= 2^60
 *   orient2d = dx1 dy2 - dy1 dx2                  |o|        <= 2^61        (int64, exact)
 *   lift = dx^2 + dy^2                             0 <= l     <= 2^61        (int64, exact)
 *   in-circle = sum of 3 terms lift * orient      |det|      <= 3 * 2^122 < 2^124
 * so the in-circle determinant is exact in the 128-bit two's-complement type below (two uint64
 * words, products formed from 32-bit halves: no __int128, the same bits on 32- and 64-bit targets).
 *
 * For a query point q that is NOT bounded (any int32, e.g. a parameter far outside the layout), the
 * "q in the third slot" forms below are still exact in int64: |q - a| < 2^31 + 2^29 = 2.5 * 2^30 and
 * the other factor is a layout difference (<= 2^30), so each product is < 2.5 * 2^60 and a sum or
 * difference of two is < 5 * 2^60 < 2^63.
 */
#ifndef BLENDSYNC_INTERNAL_EXACT_PREDICATES_H
#define BLENDSYNC_INTERNAL_EXACT_PREDICATES_H

#include <stdint.h>

#define BSYNC_EXACT_COORD_MAX ((int32_t)1 << 29)

/* Signed 128-bit integer, two's complement in two words. */
typedef struct bsync_i128_ { uint64_t hi, lo; } bsync_i128_;

/* Exact 64 x 64 -> 128 unsigned product from 32-bit halves. */
static inline bsync_i128_ bsync_u128_mul_(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu); /* < 3 * 2^32 */
    bsync_i128_ r;
    r.lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

static inline bsync_i128_ bsync_i128_neg_(bsync_i128_ a) {
    bsync_i128_ r;
    r.lo = ~a.lo + 1u;
    r.hi = ~a.hi + (r.lo == 0 ? 1u : 0u);
    return r;
}

/* Exact signed product of two int64 values (any values, including INT64_MIN). */
static inline bsync_i128_ bsync_i128_mul_(int64_t a, int64_t b) {
    uint64_t ma = a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a;
    uint64_t mb = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
    bsync_i128_ p = bsync_u128_mul_(ma, mb);
    return ((a < 0) != (b < 0)) ? bsync_i128_neg_(p) : p;
}

/* Wrapping 128-bit sum (exact whenever the true sum fits, as it does under the bound above). */
static inline bsync_i128_ bsync_i128_add_(bsync_i128_ a, bsync_i128_ b) {
    bsync_i128_ r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo ? 1u : 0u);
    return r;
}

static inline int bsync_i128_sign_(bsync_i128_ a) {
    if (a.hi >> 63) return -1;
    return (a.hi | a.lo) != 0 ? 1 : 0;
}

/* (b - a) x (c - a): > 0 when a, b, c turn counter-clockwise, 0 when collinear. a and b must be
 * layout points (bounded); c may be any int32 point (see the header comment). */
static inline int64_t bsync_orient2d_(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy) {
    int64_t ux = (int64_t)bx - ax, uy = (int64_t)by - ay;
    int64_t vx = (int64_t)cx - ax, vy = (int64_t)cy - ay;
    return ux * vy - uy * vx;
}

/* (b - a) . (c - a), with the same bounds as bsync_orient2d_. */
static inline int64_t bsync_dot2d_(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy) {
    int64_t ux = (int64_t)bx - ax, uy = (int64_t)by - ay;
    int64_t vx = (int64_t)cx - ax, vy = (int64_t)cy - ay;
    return ux * vx + uy * vy;
}

/* Sign of the in-circle determinant: > 0 when d lies strictly inside the circle through a, b, c
 * (given counter-clockwise), 0 when on it, < 0 outside. All four points must be bounded. */
static inline int bsync_incircle_sign_(int32_t ax, int32_t ay, int32_t bx, int32_t by, int32_t cx, int32_t cy,
                                       int32_t dx, int32_t dy) {
    int64_t adx = (int64_t)ax - dx, ady = (int64_t)ay - dy;
    int64_t bdx = (int64_t)bx - dx, bdy = (int64_t)by - dy;
    int64_t cdx = (int64_t)cx - dx, cdy = (int64_t)cy - dy;
    int64_t alift = adx * adx + ady * ady, blift = bdx * bdx + bdy * bdy, clift = cdx * cdx + cdy * cdy;
    int64_t bc = bdx * cdy - cdx * bdy, ca = cdx * ady - adx * cdy, ab = adx * bdy - bdx * ady;
    bsync_i128_ det = bsync_i128_mul_(alift, bc);
    det = bsync_i128_add_(det, bsync_i128_mul_(blift, ca));
    det = bsync_i128_add_(det, bsync_i128_mul_(clift, ab));
    return bsync_i128_sign_(det);
}

#endif
