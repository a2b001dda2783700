/* blend_idw.c — InverseDistance2D: Shepard weighting w_i = d_i^-p / sum_k d_k^-p, integer power p
 * in 1..8 (blend-spec.md §4.1).
 *
 * Eval: differences q - p_i are exact in int64; if any exceeds 2^31 raw steps all are shifted right by
 * one common amount (the weights do not depend on the scale). Squared distances D_i are then exact
 * uint64. Any D_i == 0 is a hit: the children at distance 0 share the weight equally (so a parameter
 * closer to a sample than the resolution — the same raw point, or a shifted difference that vanishes —
 * gives that sample, and its coincident twins, the weight). Otherwise, with D_min the smallest,
 * r_i = D_min / D_i in Q30 (relative error < 2^-31), and w_i = r_i^(p/2): for even p by p/2 Q30
 * products, for odd p from s_i = sqrt(r_i) (Q30, correctly rounded) raised to p. The nearest sample's
 * term is exactly 2^30, so the sum is at least 2^30 and normalising is always defined.
 * samples form one group (one sample whose weight they split equally), as in the spec's vectors. O(n), order-free. */
#include "internal/blend_types.h"

typedef struct idw_impl {
    uint32_t power, n_groups;
    uint8_t group_of[BSYNC_MAX_BLEND_CHILDREN];   /* child -> group */
    uint8_t group_size[BSYNC_MAX_BLEND_CHILDREN]; /* group -> children */
    uint8_t uniq[BSYNC_MAX_BLEND_CHILDREN];       /* group -> its first child */
} idw_impl;

size_t bsync_idw_size_(uint32_t n) {
    (void)n;
    return sizeof(idw_impl);
}

_Static_assert(sizeof(idw_impl) == 8 + 3 * BSYNC_MAX_BLEND_CHILDREN, "the canonical bytes below follow this layout");

size_t bsync_idw_canonical_(const void* impl, const bsync_canon_sink* sink) {
    const idw_impl* m = (const idw_impl*)impl;
    bsync_canon_u32_(sink, m->power);
    bsync_canon_u32_(sink, m->n_groups);
    bsync_canon_bytes_(sink, m->group_of, sizeof m->group_of);
    bsync_canon_bytes_(sink, m->group_size, sizeof m->group_size);
    bsync_canon_bytes_(sink, m->uniq, sizeof m->uniq);
    return sizeof(idw_impl);
}

void bsync_idw_build_(void* impl, const bsync_vec2* pos, uint32_t n, uint32_t power) {
    idw_impl* m = (idw_impl*)impl;
    uint8_t rep[BSYNC_MAX_BLEND_CHILDREN];
    bsync_blend_groups_(pos, n, rep);
    uint32_t g = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (rep[i] == i) {
            m->uniq[g] = (uint8_t)i;
            m->group_of[i] = (uint8_t)g++;
        } else {
            m->group_of[i] = m->group_of[rep[i]];
        }
        m->group_size[m->group_of[i]]++;
    }
    m->n_groups = g;
    m->power = power;
}

static uint64_t mul_q30(uint64_t a, uint64_t b) { return (a * b + ((uint64_t)1 << 29)) >> 30; } /* a, b <= 2^30 */

void bsync_idw_eval_(const void* impl, const bsync_vec2* pos, uint32_t n, bsync_vec2 q, fix16_t* w) {
    const idw_impl* m = (const idw_impl*)impl;
    const uint32_t power = m->power, g = m->n_groups;
    uint64_t d2[BSYNC_MAX_BLEND_CHILDREN];
    uint64_t big = 0;
    for (uint32_t i = 0; i < g; i++) {
        bsync_vec2 p = pos[m->uniq[i]];
        uint64_t ax = bsync_u64_abs((int64_t)q.x - p.x), ay = bsync_u64_abs((int64_t)q.y - p.y);
        if (ax > big) big = ax;
        if (ay > big) big = ay;
    }
    unsigned sh = 0;
    while ((big >> sh) >= ((uint64_t)1 << 31)) sh++;
    uint64_t dmin = UINT64_MAX;
    for (uint32_t i = 0; i < g; i++) {
        bsync_vec2 p = pos[m->uniq[i]];
        uint64_t ax = bsync_u64_abs((int64_t)q.x - p.x) >> sh, ay = bsync_u64_abs((int64_t)q.y - p.y) >> sh;
        d2[i] = ax * ax + ay * ay; /* < 2^63 */
        if (d2[i] < dmin) dmin = d2[i];
    }
    uint64_t h[BSYNC_MAX_BLEND_CHILDREN];
    if (dmin == 0) {
        for (uint32_t i = 0; i < g; i++) h[i] = d2[i] == 0;
        bsync_blend_normalise_groups_(h, g, m->group_of, m->group_size, n, w);
        return;
    }
    for (uint32_t i = 0; i < g; i++) {
        uint64_t r = bsync_blend_frac_q30_(dmin, d2[i]); /* (0, 2^30] */
        uint64_t base = r, v = (uint64_t)1 << 30;
        unsigned e = power / 2;
        if (power & 1u) {
            uint64_t x = r << 30; /* < 2^61 */
            base = bsync_u64_isqrt(x);
            if (x - base * base > base) base++;
            e = power;
        }
        for (unsigned k = 0; k < e; k++) v = mul_q30(v, base);
        h[i] = v;
    }
    bsync_blend_normalise_groups_(h, g, m->group_of, m->group_size, n, w);
}
