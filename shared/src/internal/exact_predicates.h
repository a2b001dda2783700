/* internal/exact_predicates.h — exact orientation and in-circle tests on raw fix16 coordinates
 * (blend_delaunay.c). Not a public header.
 *
 * Bound. Every coordinate must satisfy |c| <= BSYNC_EXACT_COORD_MAX = 2^29 raw (8192.0). Then
 *   every difference of two coordinates           |d|        <= 2^30
 *   a product of two differences                  |d d'|     <= 2^60
 *   orient2d = dx1 dy2 - dy1 dx2                  |o|        <= 2^61        (int64, exact)
 *   lift = dx^2 + dy^2                             0 <= l     <= 2^61        (int64, exact)
 *   in-circle = sum of 3 terms lift * orient      |det|      <= 3 * 2^122 < 2^124
 * so the in-circle determinant is exact in the 128-bit two's-complement bsync_i128 of wide_math.h (two
 * uint64 words, products formed from 32-bit halves: no __int128, the same bits on 32- and 64-bit
 * targets).
 *
 * For a query point q that is NOT bounded (any int32, e.g. a parameter far outside the layout), the
 * "q in the third slot" forms below are still exact in int64: |q - a| < 2^31 + 2^29 = 2.5 * 2^30 and
 * the other factor is a layout difference (<= 2^30), so each product is < 2.5 * 2^60 and a sum or
 * difference of two is < 5 * 2^60 < 2^63.
 */
#ifndef BLENDSYNC_INTERNAL_EXACT_PREDICATES_H
#define BLENDSYNC_INTERNAL_EXACT_PREDICATES_H

#include <stdint.h>
#include "wide_math.h"

#define BSYNC_EXACT_COORD_MAX ((int32_t)1 << 29)

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
    bsync_i128 det = bsync_i128_mul_i64(alift, bc);
    det = bsync_u128_add(det, bsync_i128_mul_i64(blift, ca));
    det = bsync_u128_add(det, bsync_i128_mul_i64(clift, ab));
    return bsync_i128_sign(det);
}

#endif
