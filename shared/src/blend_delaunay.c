/* blend_delaunay.c — the Delaunay2D blend space: exact Delaunay triangulation built once, barycentric
 * weights inside, closest hull point outside, 1D tents for collinear layouts.
 *
 * Build (all integer, exact; internal/exact_predicates.h gives the coordinate bound and why):
 *   1. Sort the children by (x, y, child index). Equal positions form one "unique point" whose
 *      representative is its lowest child index (blend_space.c reports
 *      BSYNC_BLEND_WARN_DUPLICATE_POSITION for every such pair). Unique points are numbered in that lexicographic order, so everything
 *      below depends only on the SET of positions, never on the order of the children.
 *   2. One unique point: it takes all the weight. All unique points on one line (2 points, or >= 3
 *      collinear: BSYNC_BLEND_WARN_COLLINEAR (first, last)): 1D tents along the line.
 *   3. Otherwise a lexicographic sweep: the first points up to the first one off their line form a
 *      fan; every later point (lexicographically greater than all before, so outside the hull) is
 *      joined to every hull edge it sees strictly (orient < 0). The result covers the convex hull;
 *      points on a hull edge stay hull vertices.
 *   4. Lawson flips: passes over the triangles (index order, edges in order) flip every edge whose
 *      opposite vertex is STRICTLY inside the circumcircle, until a pass flips nothing (this ends:
 *      every flip lowers the lifted surface). Tie rule: an edge of four co-circular points is never
 *      flipped, so co-circular sets keep the diagonals of the sweep (the same as the spec's reference
 *      triangulator, e.g. the vectors' 3x3 grid and 4-direction layouts).
 *   5. Each triangle is rotated (keeping counter-clockwise order) to start at its lowest
 *      representative child index, and the list is sorted by those three indices.
 * Eval:
 *   inside   the first triangle (in list order) that contains q (closed test: all three exact
 *            orientations >= 0) gives w_a = orient(b, c, q) / orient(a, b, c) etc.; each weight is the
 *            exact quotient rounded once (half up). A point on a shared edge gets the same weights
 *            from either triangle (same exact quotient), and a sample position gets exactly one.
 *   outside  the closest point of the convex hull, found exactly: the first hull edge a->b (counter-
 *            clockwise from the lexicographically smallest point) with q strictly outside its line and
 *            0 < (q - a).(b - a) < |b - a|^2 gives b t and a (1 - t), t = that ratio rounded once;
 *            otherwise the hull vertex v whose normal cone holds q ((q - v).(u - v) <= 0 and
 *            (q - v).(w - v) <= 0 for its neighbours u, w) gets one. The closest point of a convex
 *            polygon is unique, so the order only matters on boundaries, where the results agree.
 *   line     s = (q - p_first).(p_last - p_first); tents between the sorted projections, clamped.
 *   Duplicates share their unique point's weight w: each gets floor(w / m), and the lowest
 *   (w mod m) child indices one raw step more (exact sum).
 */
#include "internal/blend_space_impl.h"
#include "internal/exact_predicates.h"

#define DL_MAX_POINTS BSYNC_MAX_BLEND_CHILDREN
#define DL_MAX_TRIS (2 * DL_MAX_POINTS)

enum { DL_MODE_SINGLE = 0, DL_MODE_LINE = 1, DL_MODE_TRIANGLES = 2 };

typedef struct dl_impl {
    uint32_t mode;
    uint32_t unique_count;
    uint32_t child_count;
    uint32_t tri_count;
    uint32_t hull_count;
    uint32_t reserved;
    uint8_t rep[DL_MAX_POINTS];          /* unique point -> representative child (lowest index) */
    uint8_t child_unique[DL_MAX_POINTS]; /* child -> unique point */
    uint8_t child_rank[DL_MAX_POINTS];   /* child -> rank among the children at its position */
    uint8_t group_size[DL_MAX_POINTS];   /* unique point -> number of children there */
    uint8_t hull[DL_MAX_POINTS];         /* unique points of the hull boundary, counter-clockwise */
    uint8_t tris[DL_MAX_TRIS][3];        /* unique points, counter-clockwise */
} dl_impl;

_Static_assert(sizeof(dl_impl) == 24 + 5 * DL_MAX_POINTS + 3 * DL_MAX_TRIS, "the canonical bytes follow this layout");

size_t bsync_delaunay_canonical_(const void* impl, const bsync_canon_sink* sink) {
    const dl_impl* im = (const dl_impl*)impl;
    bsync_canon_u32_(sink, im->mode);
    bsync_canon_u32_(sink, im->unique_count);
    bsync_canon_u32_(sink, im->child_count);
    bsync_canon_u32_(sink, im->tri_count);
    bsync_canon_u32_(sink, im->hull_count);
    bsync_canon_u32_(sink, im->reserved);
    bsync_canon_bytes_(sink, im->rep, sizeof im->rep);
    bsync_canon_bytes_(sink, im->child_unique, sizeof im->child_unique);
    bsync_canon_bytes_(sink, im->child_rank, sizeof im->child_rank);
    bsync_canon_bytes_(sink, im->group_size, sizeof im->group_size);
    bsync_canon_bytes_(sink, im->hull, sizeof im->hull);
    bsync_canon_bytes_(sink, im->tris, sizeof im->tris);
    return sizeof(dl_impl);
}

/* ------------------------------------------------------------------ helpers */

/* round(num * 2^16 / den) for 0 <= num <= den, den > 0 (den < 2^63): 17 quotient bits by long
 * division, then half up (the rounding of bsync_fx_div for positive operands). */
static fix16_t dl_ratio(uint64_t num, uint64_t den) {
    if (num >= den) return BSYNC_FX_ONE;
    uint64_t r = num, q = 0;
    for (int i = 0; i < 17; i++) {
        r <<= 1; /* r < den < 2^63 */
        q <<= 1;
        if (r >= den) {
            r -= den;
            q |= 1u;
        }
    }
    return (fix16_t)((q + 1u) >> 1);
}

static int dl_lex_less(bsync_vec2 a, uint32_t ia, bsync_vec2 b, uint32_t ib) {
    if (a.x != b.x) return a.x < b.x;
    if (a.y != b.y) return a.y < b.y;
    return ia < ib;
}

/* ------------------------------------------------------------------ validate / size */

bsync_result bsync_delaunay_validate_(const bsync_blend_space_desc* desc) {
    if (!desc || !desc->positions) return BSYNC_INVALID_ARGUMENT;
    if (desc->child_count == 0 || desc->child_count > BSYNC_MAX_BLEND_CHILDREN) return BSYNC_LIMIT_EXCEEDED;
    for (uint32_t i = 0; i < desc->child_count; i++) {
        int32_t x = desc->positions[i].x, y = desc->positions[i].y;
        if (x > BSYNC_EXACT_COORD_MAX || x < -BSYNC_EXACT_COORD_MAX || y > BSYNC_EXACT_COORD_MAX ||
            y < -BSYNC_EXACT_COORD_MAX)
            return BSYNC_LIMIT_EXCEEDED;
    }
    return BSYNC_OK;
}

size_t bsync_delaunay_impl_size_(const bsync_blend_space_desc* desc) {
    (void)desc;
    return (sizeof(dl_impl) + 7u) & ~(size_t)7u;
}

/* ------------------------------------------------------------------ build */

typedef struct dl_work {
    int32_t x[DL_MAX_POINTS], y[DL_MAX_POINTS]; /* unique points, lexicographic order */
    int8_t edge[DL_MAX_POINTS][DL_MAX_POINTS];  /* directed edge a->b -> triangle having it, or -1 */
} dl_work;

static void dl_set_tri(dl_impl* im, dl_work* w, uint32_t t, uint32_t a, uint32_t b, uint32_t c) {
    im->tris[t][0] = (uint8_t)a;
    im->tris[t][1] = (uint8_t)b;
    im->tris[t][2] = (uint8_t)c;
    w->edge[a][b] = (int8_t)t;
    w->edge[b][c] = (int8_t)t;
    w->edge[c][a] = (int8_t)t;
}

static void dl_add_tri(dl_impl* im, dl_work* w, uint32_t a, uint32_t b, uint32_t c) {
    dl_set_tri(im, w, im->tri_count, a, b, c);
    im->tri_count++;
}

static int64_t dl_orient_u(const dl_work* w, uint32_t a, uint32_t b, uint32_t c) {
    return bsync_orient2d_(w->x[a], w->y[a], w->x[b], w->y[b], w->x[c], w->y[c]);
}

/* Lawson flips until no edge has its opposite vertex strictly inside a circumcircle. */
static void dl_flip_all(dl_impl* im, dl_work* w) {
    int changed = 1;
    while (changed) {
        changed = 0;
        for (uint32_t t = 0; t < im->tri_count; t++) {
            for (uint32_t e = 0; e < 3; e++) {
                uint32_t a = im->tris[t][e], b = im->tris[t][(e + 1) % 3], c = im->tris[t][(e + 2) % 3];
                int t2 = w->edge[b][a];
                if (t2 < 0) continue;
                uint32_t d = im->tris[t2][0];
                if (d == a || d == b) d = im->tris[t2][1];
                if (d == a || d == b) d = im->tris[t2][2];
                if (bsync_incircle_sign_(w->x[a], w->y[a], w->x[b], w->y[b], w->x[c], w->y[c], w->x[d], w->y[d]) <=
                    0)
                    continue;
                /* quad a, d, b, c (counter-clockwise): diagonal a-b becomes c-d */
                w->edge[a][b] = -1;
                w->edge[b][a] = -1;
                dl_set_tri(im, w, t, a, d, c);
                dl_set_tri(im, w, (uint32_t)t2, d, b, c);
                changed = 1;
            }
        }
    }
}

bsync_result bsync_delaunay_build_(const bsync_blend_space_desc* desc, void* impl, size_t impl_size,
                                   bsync_blend_diagnostics* diag) {
    bsync_result r = bsync_delaunay_validate_(desc);
    if (r != BSYNC_OK) return r;
    if (!impl || impl_size < sizeof(dl_impl)) return BSYNC_BUFFER_TOO_SMALL;
    dl_impl* im = (dl_impl*)impl;
    const bsync_vec2* pos = desc->positions;
    const uint32_t n = desc->child_count;
    dl_work w;

    uint8_t* base = (uint8_t*)impl;
    for (size_t i = 0; i < sizeof(dl_impl); i++) base[i] = 0;
    for (uint32_t i = 0; i < DL_MAX_POINTS; i++) w.x[i] = w.y[i] = 0;
    im->child_count = n;

    /* 1. lexicographic order of the children (insertion sort, n <= 64) */
    uint8_t order[DL_MAX_POINTS];
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        while (j > 0 && dl_lex_less(pos[i], i, pos[order[j - 1]], order[j - 1])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = (uint8_t)i;
    }
    uint32_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t c = order[k];
        if (k == 0 || pos[c].x != pos[order[k - 1]].x || pos[c].y != pos[order[k - 1]].y) {
            im->rep[m] = (uint8_t)c;
            w.x[m] = pos[c].x;
            w.y[m] = pos[c].y;
            m++;
        }
        uint32_t u = m - 1;
        im->child_unique[c] = (uint8_t)u;
        im->child_rank[c] = im->group_size[u];
        im->group_size[u]++;
    }
    im->unique_count = m;
    /* BSYNC_BLEND_WARN_DUPLICATE_POSITION is reported by the dispatcher for every 2D type (each pair) */

    /* 2. degenerate layouts */
    if (m == 1) {
        im->mode = DL_MODE_SINGLE;
        return BSYNC_OK;
    }
    uint32_t k = 2;
    while (k < m && dl_orient_u(&w, 0, 1, k) == 0) k++;
    if (k == m) {
        im->mode = DL_MODE_LINE;
        if (m >= 3) bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_COLLINEAR, im->rep[0], im->rep[m - 1]);
        return BSYNC_OK;
    }

    /* 3. sweep */
    im->mode = DL_MODE_TRIANGLES;
    for (uint32_t a = 0; a < m; a++)
        for (uint32_t b = 0; b < m; b++) w.edge[a][b] = -1;
    uint8_t hull[DL_MAX_POINTS], nh[DL_MAX_POINTS];
    uint32_t h = 0;
    if (dl_orient_u(&w, 0, 1, k) > 0) {
        for (uint32_t i = 0; i + 1 < k; i++) dl_add_tri(im, &w, i, i + 1, k);
        for (uint32_t i = 0; i <= k; i++) hull[h++] = (uint8_t)i;
    } else {
        for (uint32_t i = 0; i + 1 < k; i++) dl_add_tri(im, &w, i + 1, i, k);
        for (uint32_t i = k; i-- > 0;) hull[h++] = (uint8_t)i;
        hull[h++] = (uint8_t)k;
    }
    for (uint32_t p = k + 1; p < m; p++) {
        uint8_t vis[DL_MAX_POINTS];
        for (uint32_t i = 0; i < h; i++) vis[i] = dl_orient_u(&w, hull[i], hull[(i + 1) % h], p) < 0;
        uint32_t s = 0;
        while (!(vis[s] && !vis[(s + h - 1) % h])) s++; /* p is outside the hull: a chain exists */
        uint32_t cnt = 0;
        while (vis[(s + cnt) % h]) {
            uint32_t i = (s + cnt) % h;
            dl_add_tri(im, &w, hull[(i + 1) % h], hull[i], p);
            cnt++;
        }
        uint32_t nn = 0;
        for (uint32_t i = 0; i <= h - cnt; i++) nh[nn++] = hull[(s + cnt + i) % h];
        nh[nn++] = (uint8_t)p;
        for (uint32_t i = 0; i < nn; i++) hull[i] = nh[i];
        h = nn;
    }

    /* 4. Lawson flips */
    dl_flip_all(im, &w);

    /* hull, rotated to start at unique point 0 (the lexicographically smallest) */
    uint32_t h0 = 0;
    while (h0 + 1 < h && hull[h0] != 0) h0++;
    for (uint32_t i = 0; i < h; i++) im->hull[i] = hull[(h0 + i) % h];
    im->hull_count = h;

    /* 5. canonical order */
    for (uint32_t t = 0; t < im->tri_count; t++) {
        uint8_t* v = im->tris[t];
        while (im->rep[v[0]] > im->rep[v[1]] || im->rep[v[0]] > im->rep[v[2]]) {
            uint8_t tmp = v[0];
            v[0] = v[1];
            v[1] = v[2];
            v[2] = tmp;
        }
    }
    for (uint32_t t = 1; t < im->tri_count; t++) {
        uint8_t cur[3] = {im->tris[t][0], im->tris[t][1], im->tris[t][2]};
        uint32_t j = t;
        while (j > 0) {
            const uint8_t* pv = im->tris[j - 1];
            int less = 0;
            for (uint32_t e = 0; e < 3; e++) {
                if (im->rep[cur[e]] != im->rep[pv[e]]) {
                    less = im->rep[cur[e]] < im->rep[pv[e]];
                    break;
                }
            }
            if (!less) break;
            im->tris[j][0] = pv[0];
            im->tris[j][1] = pv[1];
            im->tris[j][2] = pv[2];
            j--;
        }
        im->tris[j][0] = cur[0];
        im->tris[j][1] = cur[1];
        im->tris[j][2] = cur[2];
    }
    return BSYNC_OK;
}

/* ------------------------------------------------------------------ eval */

static void dl_eval_unique(const dl_impl* im, const bsync_vec2* pos, bsync_vec2 q, fix16_t* wu) {
    const uint32_t m = im->unique_count;
    for (uint32_t u = 0; u < m; u++) wu[u] = 0;
    if (im->mode == DL_MODE_SINGLE) {
        wu[0] = BSYNC_FX_ONE;
        return;
    }
    if (im->mode == DL_MODE_LINE) {
        bsync_vec2 p0 = pos[im->rep[0]], pl = pos[im->rep[m - 1]];
        int64_t sq = bsync_dot2d_(p0.x, p0.y, pl.x, pl.y, q.x, q.y);
        if (sq <= 0) {
            wu[0] = BSYNC_FX_ONE;
            return;
        }
        int64_t prev = 0;
        for (uint32_t u = 1; u < m; u++) {
            bsync_vec2 pu = pos[im->rep[u]];
            int64_t su = bsync_dot2d_(p0.x, p0.y, pl.x, pl.y, pu.x, pu.y);
            if (sq < su) {
                fix16_t t = dl_ratio((uint64_t)(sq - prev), (uint64_t)(su - prev));
                wu[u] = t;
                wu[u - 1] = BSYNC_FX_ONE - t;
                return;
            }
            prev = su;
        }
        wu[m - 1] = BSYNC_FX_ONE;
        return;
    }
    /* inside a triangle */
    for (uint32_t t = 0; t < im->tri_count; t++) {
        bsync_vec2 a = pos[im->rep[im->tris[t][0]]], b = pos[im->rep[im->tris[t][1]]],
                   c = pos[im->rep[im->tris[t][2]]];
        int64_t oc = bsync_orient2d_(a.x, a.y, b.x, b.y, q.x, q.y);
        if (oc < 0) continue;
        int64_t oa = bsync_orient2d_(b.x, b.y, c.x, c.y, q.x, q.y);
        if (oa < 0) continue;
        int64_t ob = bsync_orient2d_(c.x, c.y, a.x, a.y, q.x, q.y);
        if (ob < 0) continue;
        uint64_t area = (uint64_t)bsync_orient2d_(a.x, a.y, b.x, b.y, c.x, c.y); /* > 0 */
        wu[im->tris[t][0]] = dl_ratio((uint64_t)oa, area);
        wu[im->tris[t][1]] = dl_ratio((uint64_t)ob, area);
        wu[im->tris[t][2]] = dl_ratio((uint64_t)oc, area);
        return;
    }
    /* outside: closest point of the hull */
    const uint32_t h = im->hull_count;
    for (uint32_t i = 0; i < h; i++) {
        uint32_t ua = im->hull[i], ub = im->hull[(i + 1) % h];
        bsync_vec2 a = pos[im->rep[ua]], b = pos[im->rep[ub]];
        if (bsync_orient2d_(a.x, a.y, b.x, b.y, q.x, q.y) >= 0) continue;
        int64_t d = bsync_dot2d_(a.x, a.y, b.x, b.y, q.x, q.y);
        int64_t len = bsync_dot2d_(a.x, a.y, b.x, b.y, b.x, b.y);
        if (d <= 0 || d >= len) continue;
        fix16_t t = dl_ratio((uint64_t)d, (uint64_t)len);
        wu[ub] = t;
        wu[ua] = BSYNC_FX_ONE - t;
        return;
    }
    for (uint32_t i = 0; i < h; i++) {
        uint32_t uv = im->hull[i];
        bsync_vec2 u = pos[im->rep[im->hull[(i + h - 1) % h]]], v = pos[im->rep[uv]],
                   wv = pos[im->rep[im->hull[(i + 1) % h]]];
        if (bsync_dot2d_(v.x, v.y, u.x, u.y, q.x, q.y) <= 0 && bsync_dot2d_(v.x, v.y, wv.x, wv.y, q.x, q.y) <= 0) {
            wu[uv] = BSYNC_FX_ONE;
            return;
        }
    }
    /* unreachable with exact predicates; a defined answer all the same: the nearest sample */
    uint32_t best = 0;
    uint64_t bestd = UINT64_MAX;
    for (uint32_t u = 0; u < m; u++) {
        bsync_vec2 p = pos[im->rep[u]];
        uint64_t dx = bsync_u64_abs((int64_t)q.x - p.x), dy = bsync_u64_abs((int64_t)q.y - p.y);
        uint64_t dd = (dx >> 1) * (dx >> 1) + (dy >> 1) * (dy >> 1); /* < 2^64 for any q */
        if (dd < bestd) {
            bestd = dd;
            best = u;
        }
    }
    wu[best] = BSYNC_FX_ONE;
}

void bsync_delaunay_eval_(const void* impl, const bsync_vec2* positions, uint32_t child_count, bsync_vec2 q,
                          fix16_t* out_weights) {
    const dl_impl* im = (const dl_impl*)impl;
    fix16_t wu[DL_MAX_POINTS];
    dl_eval_unique(im, positions, q, wu);
    uint32_t n = child_count < im->child_count ? child_count : im->child_count;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t u = im->child_unique[c];
        uint32_t g = im->group_size[u];
        uint32_t wv = (uint32_t)wu[u]; /* 0..2^16 */
        out_weights[c] = (fix16_t)(wv / g + (im->child_rank[c] < wv % g ? 1u : 0u));
    }
}

uint32_t bsync_delaunay_triangle_count_(const void* impl) {
    const dl_impl* im = (const dl_impl*)impl;
    return im->mode == DL_MODE_TRIANGLES ? im->tri_count : 0;
}

void bsync_delaunay_triangle_(const void* impl, uint32_t i, uint32_t out_children[3]) {
    const dl_impl* im = (const dl_impl*)impl;
    if (i >= bsync_delaunay_triangle_count_(impl)) {
        out_children[0] = out_children[1] = out_children[2] = 0;
        return;
    }
    for (uint32_t e = 0; e < 3; e++) out_children[e] = im->rep[im->tris[i][e]];
}
