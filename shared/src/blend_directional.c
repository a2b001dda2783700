/* blend_directional.c — SimpleDirectional2D (blend-spec.md §1.2, recommended policies).
 *
 * Build: children at exactly (0, 0) are centres (they share the centre weight); a child at the same
 * position as an earlier one joins its group (the group shares); a child in exactly the same
 * direction as an earlier direction (exact integer cross = 0, dot > 0) is "shadowed" and never
 * chosen as A or B. Each chosen direction keeps a Q30 unit vector (for ranking dot products only).
 *
 * Eval, for q != 0: among the directions, A has the largest dot(u, q) with cross(p, q) > 0, B the
 * largest with cross(p, q) <= 0 (ties: lower index); the signs are exact 64-bit integers. With both
 * and D = cross(pA, pB) > 0: nA = cross(q, pB) >= 0, nB = cross(pA, q) > 0; if nA + nB >= D (on or
 * beyond edge AB) c = 0 and A, B get nA : nB, else A, B get nA/D, nB/D and c the rest. Otherwise
 * (one side empty, or a gap of 180 degrees or more: D <= 0) c = 1. c goes to the centre(s), or is
 * spread evenly over all n children when there is none. q == (0, 0): the centre(s) get 1, or all n
 * children get 1/n. */
#include "internal/blend_types.h"

enum { KIND_CENTRE = 0, KIND_DIRECTION = 1, KIND_DUPLICATE = 2, KIND_SHADOWED = 3 };

typedef struct bsd_child {
    int32_t ux, uy; /* Q30 unit direction (KIND_DIRECTION) */
    uint8_t kind, rep, group_size, pad;
} bsd_child;

typedef struct bsd_impl {
    uint32_t n_centre;
    uint32_t pad;
} bsd_impl;

size_t bsync_bsd_size_(uint32_t n) { return sizeof(bsd_impl) + (size_t)n * sizeof(bsd_child); }

_Static_assert(sizeof(bsd_impl) == 8 && sizeof(bsd_child) == 12, "the canonical bytes below follow this layout");

size_t bsync_bsd_canonical_(const void* impl, uint32_t n, const bsync_canon_sink* sink) {
    const bsd_impl* h = (const bsd_impl*)impl;
    const bsd_child* c = (const bsd_child*)(h + 1);
    bsync_canon_u32_(sink, h->n_centre);
    bsync_canon_u32_(sink, h->pad);
    for (uint32_t i = 0; i < n; i++) {
        bsync_canon_u32_(sink, (uint32_t)c[i].ux);
        bsync_canon_u32_(sink, (uint32_t)c[i].uy);
        const unsigned char b[4] = {c[i].kind, c[i].rep, c[i].group_size, c[i].pad};
        bsync_canon_bytes_(sink, b, 4);
    }
    return bsync_bsd_size_(n);
}

static int64_t cross64(int64_t ax, int64_t ay, int64_t bx, int64_t by) { return ax * by - ay * bx; }

void bsync_bsd_build_(void* impl, const bsync_vec2* pos, uint32_t n, bsync_blend_diagnostics* diag) {
    bsd_impl* h = (bsd_impl*)impl;
    bsd_child* c = (bsd_child*)(h + 1);
    uint8_t rep[BSYNC_MAX_BLEND_CHILDREN];
    bsync_blend_groups_(pos, n, rep);
    int first_centre = -1;
    for (uint32_t i = 0; i < n; i++) {
        c[i].rep = rep[i];
        c[rep[i]].group_size++;
        if (pos[i].x == 0 && pos[i].y == 0) {
            c[i].kind = KIND_CENTRE;
            h->n_centre++;
            if (first_centre < 0) first_centre = (int)i;
            else bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_MULTIPLE_CENTERS, (uint32_t)first_centre, i);
            continue;
        }
        if (rep[i] != i) {
            c[i].kind = KIND_DUPLICATE;
            continue;
        }
        c[i].kind = KIND_DIRECTION;
        for (uint32_t j = 0; j < i; j++) {
            if (c[j].kind != KIND_DIRECTION) continue;
            int64_t cr = cross64(pos[j].x, pos[j].y, pos[i].x, pos[i].y);
            int64_t dt = (int64_t)pos[j].x * pos[i].x + (int64_t)pos[j].y * pos[i].y;
            if (cr == 0 && dt > 0) {
                c[i].kind = KIND_SHADOWED;
                bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_SAME_DIRECTION, j, i);
                break;
            }
        }
        if (c[i].kind != KIND_DIRECTION) continue;
        /* unit vector: scale up so the larger component is in [2^30, 2^31), then divide by the length */
        int64_t x = pos[i].x, y = pos[i].y;
        uint64_t m = bsync_u64_abs(x) > bsync_u64_abs(y) ? bsync_u64_abs(x) : bsync_u64_abs(y);
        while (m < ((uint64_t)1 << 30)) {
            m <<= 1;
            x *= 2;
            y *= 2;
        }
        uint64_t len = bsync_u64_isqrt((uint64_t)(x * x) + (uint64_t)(y * y)); /* < 2^31.5 */
        uint64_t fx = bsync_blend_frac_q30_(bsync_u64_abs(x), len), fy = bsync_blend_frac_q30_(bsync_u64_abs(y), len);
        c[i].ux = (int32_t)(x < 0 ? -(int64_t)fx : (int64_t)fx);
        c[i].uy = (int32_t)(y < 0 ? -(int64_t)fy : (int64_t)fy);
    }
    /* gap warnings: directions sorted by angle */
    uint8_t idx[BSYNC_MAX_BLEND_CHILDREN];
    fix16_t ang[BSYNC_MAX_BLEND_CHILDREN];
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (c[i].kind != KIND_DIRECTION) continue;
        fix16_t a = bsync_fx_atan2((fix16_t)bsync_i64_asr(c[i].uy, 14), (fix16_t)bsync_i64_asr(c[i].ux, 14));
        uint32_t k = m++;
        while (k > 0 && ang[k - 1] > a) {
            ang[k] = ang[k - 1];
            idx[k] = idx[k - 1];
            k--;
        }
        ang[k] = a;
        idx[k] = (uint8_t)i;
    }
    if (m == 1) bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_GAP_180, idx[0], idx[0]);
    for (uint32_t k = 0; m >= 2 && k < m; k++) {
        uint32_t a = idx[k], b = idx[(k + 1) % m];
        int64_t gap = k + 1 < m ? (int64_t)ang[k + 1] - ang[k] : (int64_t)ang[0] + BSYNC_FX_TWO_PI - ang[k];
        if (cross64(pos[a].x, pos[a].y, pos[b].x, pos[b].y) <= 0) /* exact: 180 degrees or more */
            bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_GAP_180, a, b);
        else if (gap < 2288) /* 2 degrees = 0.0349066 rad = 2287.6 raw */
            bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_SMALL_GAP, a < b ? a : b, a < b ? b : a);
    }
}

void bsync_bsd_eval_(const void* impl, const bsync_vec2* pos, uint32_t n, bsync_vec2 q, fix16_t* w) {
    const bsd_impl* h = (const bsd_impl*)impl;
    const bsd_child* c = (const bsd_child*)(h + 1);
    for (uint32_t i = 0; i < n; i++) w[i] = 0;
    int32_t cw = BSYNC_FX_ONE, wa = 0, wb = 0;
    int ia = -1, ib = -1;
    if (q.x != 0 || q.y != 0) {
        int64_t da = 0, db = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (c[i].kind != KIND_DIRECTION) continue;
            int64_t s = cross64(pos[i].x, pos[i].y, q.x, q.y);
            int64_t d = (int64_t)c[i].ux * q.x + (int64_t)c[i].uy * q.y;
            if (s > 0) {
                if (ia < 0 || d > da) { ia = (int)i; da = d; }
            } else {
                if (ib < 0 || d > db) { ib = (int)i; db = d; }
            }
        }
        if (ia >= 0 && ib >= 0) {
            bsync_vec2 a = pos[ia], b = pos[ib];
            int64_t dd = cross64(a.x, a.y, b.x, b.y);
            if (dd > 0) {
                int64_t na = cross64(q.x, q.y, b.x, b.y), nb = cross64(a.x, a.y, q.x, q.y);
                if (na < 0) na = 0;
                if (nb < 0) nb = 0;
                uint64_t sum = (uint64_t)na + (uint64_t)nb;
                if (sum >= (uint64_t)dd) {
                    cw = 0;
                    wa = (int32_t)bsync_blend_frac_q16_((uint64_t)na, sum);
                    wb = BSYNC_FX_ONE - wa;
                } else {
                    wa = (int32_t)bsync_blend_frac_q16_((uint64_t)na, (uint64_t)dd);
                    wb = (int32_t)bsync_blend_frac_q16_((uint64_t)nb, (uint64_t)dd);
                    cw = BSYNC_FX_ONE - wa - wb;
                    if (cw < 0) cw = 0;
                }
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t r = c[i].rep;
        if (ia >= 0 && r == (uint32_t)ia) w[i] += wa / c[r].group_size;
        if (ib >= 0 && r == (uint32_t)ib) w[i] += wb / c[r].group_size;
        if (h->n_centre > 0) {
            if (c[i].kind == KIND_CENTRE) w[i] += cw / (int32_t)h->n_centre;
        } else {
            w[i] += cw / (int32_t)n;
        }
    }
}
