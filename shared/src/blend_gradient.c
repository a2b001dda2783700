/* blend_gradient.c — gradient band interpolation (blend-spec.md §1.3, §1.4):
 * FreeformCartesian2D and FreeformDirectional2D (polar space).
 *
 * Both: coincident children form one group (one sample for the bands; the group's weight is split
 * equally); h_k = min over l != k of the band value, clamped at 0 (a running min that starts at 1);
 * weights are h_k / sum h. If every h is 0 (possible only in polar space, e.g. q = (0, 0) with no
 * centre) the nearest sample(s) share the weight equally.
 *
 * Cartesian. For each unordered pair (k < l) the build stores g = v / |v|^2 (v = p_l - p_k) as a
 * Q(e) integer vector of about 30 significant bits, so t = (q - p_k) . v / |v|^2 = (q - p_k) . g / 2^e
 * costs two integer products and no division. h_k takes 1 - t and h_l takes t. To be exact at the
 * samples the product is taken from whichever end of the pair is nearer q (max-norm; t = 1 + (q - p_l)
 * . g / 2^e from the l end), so at q = p_k the band value is exactly 0 or 1. Band values are Q30.
 *
 * Polar (Rune Skovbo Johansen's PolarGradientBandInterpolator, in 2D): for the ordered pair (k, l)
 *   both non-zero: v_kl = (2 th_kl, (|p_l| - |p_k|) / m), v_kq = (2 th_kq, (|q| - |p_k|) / m),
 *     m = (|p_k| + |p_l|) / 2, th_kl = angle(p_k, p_l), th_kq = angle(p_k, q) negated when q is on the
 *     other side of p_k than p_l (exact integer cross signs) unless th_kl >= 0.99 pi; q = 0 uses
 *     th_kq = th_kl; same direction (exact cross = 0, dot > 0) uses th = 0 for both;
 *   p_k = 0: v_kl = (angle(q, p_l), 2), v_kq = (0, |q| / m)        (angle multiplier 1)
 *   p_l = 0: v_kl = (angle(q, p_k), -2), v_kq = (angle(q, p_k), (|q| - |p_k|) / m)
 *   band = 1 - v_kl . v_kq / |v_kl|^2.
 * Angles come from bsync_vec3_angle (atan2(|cross|, dot), ~0.5 raw steps); angles and the magnitude
 * ratios are Q16, the dot products exact in int64 (the ratio is clamped to +-2^28, beyond which the
 * band is certainly outside [0, 1]), the band value Q24. "Is zero" is exact: a fix16 vector shorter
 * than Unity's 1e-5 is the zero vector, since one raw step is 1.53e-5. A pair whose |v_kl|^2 rounds
 * to 0 (two distinct samples the Q16 polar space cannot tell apart) gives no band. */
#include "internal/blend_types.h"

typedef struct band_head {
    uint32_t polar, n_groups;
    uint8_t group_of[BSYNC_MAX_BLEND_CHILDREN];   /* child -> group */
    uint8_t group_size[BSYNC_MAX_BLEND_CHILDREN]; /* group -> children */
    uint8_t uniq[BSYNC_MAX_BLEND_CHILDREN];       /* group -> its first child */
    uint64_t mag[BSYNC_MAX_BLEND_CHILDREN];       /* polar: |p| of each group, raw (rounded) */
} band_head;

typedef struct cart_pair {
    int32_t gx, gy;
    uint32_t e, pad;
} cart_pair;

enum { PK_GENERAL = 0, PK_SAME_DIR = 1, PK_CENTRE_K = 2, PK_CENTRE_L = 3 };

typedef struct polar_pair {
    int64_t den;     /* |v_kl|^2 in Q32 (GENERAL, SAME_DIR) */
    uint64_t two_m;  /* |p_k| + |p_l|, raw */
    int32_t a;       /* 2 th_kl, Q16 (GENERAL) */
    int32_t b;       /* (|p_l| - |p_k|) / m, Q16 */
    int8_t kind, sgn, apply_sign, pad;
    uint32_t pad2;
} polar_pair;

_Static_assert(sizeof(band_head) % 8 == 0, "band head keeps 8-byte alignment");
_Static_assert(sizeof(polar_pair) == 32, "polar pair layout");

size_t bsync_band_size_(uint32_t n, int polar) {
    if (polar) return sizeof(band_head) + (size_t)n * n * sizeof(polar_pair);
    return sizeof(band_head) + (size_t)n * (n - 1) / 2 * sizeof(cart_pair);
}

_Static_assert(offsetof(band_head, mag) == 8 + 3 * BSYNC_MAX_BLEND_CHILDREN && sizeof(cart_pair) == 16,
               "the canonical bytes below follow this layout (no hidden padding)");

size_t bsync_band_canonical_(const void* impl, uint32_t n, int polar, const bsync_canon_sink* sink) {
    const band_head* h = (const band_head*)impl;
    bsync_canon_u32_(sink, h->polar);
    bsync_canon_u32_(sink, h->n_groups);
    bsync_canon_bytes_(sink, h->group_of, sizeof h->group_of);
    bsync_canon_bytes_(sink, h->group_size, sizeof h->group_size);
    bsync_canon_bytes_(sink, h->uniq, sizeof h->uniq);
    for (uint32_t k = 0; k < BSYNC_MAX_BLEND_CHILDREN; k++) bsync_canon_u64_(sink, h->mag[k]);
    if (polar) {
        const polar_pair* p = (const polar_pair*)(h + 1);
        for (size_t i = 0; i < (size_t)n * n; i++) {
            bsync_canon_u64_(sink, (uint64_t)p[i].den);
            bsync_canon_u64_(sink, p[i].two_m);
            bsync_canon_u32_(sink, (uint32_t)p[i].a);
            bsync_canon_u32_(sink, (uint32_t)p[i].b);
            const unsigned char b[4] = {(unsigned char)p[i].kind, (unsigned char)p[i].sgn,
                                        (unsigned char)p[i].apply_sign, (unsigned char)p[i].pad};
            bsync_canon_bytes_(sink, b, 4);
            bsync_canon_u32_(sink, p[i].pad2);
        }
    } else {
        const cart_pair* p = (const cart_pair*)(h + 1);
        for (size_t i = 0; i < (size_t)n * (n - 1) / 2; i++) {
            bsync_canon_u32_(sink, (uint32_t)p[i].gx);
            bsync_canon_u32_(sink, (uint32_t)p[i].gy);
            bsync_canon_u32_(sink, p[i].e);
            bsync_canon_u32_(sink, p[i].pad);
        }
    }
    return bsync_band_size_(n, polar);
}

static size_t cart_index(uint32_t k, uint32_t l, uint32_t g) { /* k < l < g */
    return (size_t)k * (2 * g - k - 1) / 2 + (l - k - 1);
}

/* round(num * 2^k / den) by long division; num <= den < 2^62 or num small; result must fit. */
static uint64_t div_shift(uint64_t num, unsigned k, uint64_t den) {
    uint64_t q = num / den, r = num % den;
    for (unsigned i = 0; i < k; i++) {
        r <<= 1;
        q <<= 1;
        if (r >= den) {
            r -= den;
            q |= 1;
        }
    }
    if (2 * r >= den) q++;
    return q;
}

static uint64_t length_raw(int64_t x, int64_t y) { /* round(sqrt(x^2 + y^2)), |x|, |y| <= 2^31 */
    uint64_t s = (uint64_t)(x * x) + (uint64_t)(y * y);
    uint64_t r = bsync_u64_isqrt(s);
    if (s - r * r > r) r++;
    return r;
}

static fix16_t angle2(bsync_vec2 a, bsync_vec2 b) {
    bsync_vec3 u = {a.x, a.y, 0}, v = {b.x, b.y, 0};
    return bsync_vec3_angle(u, v);
}

/* round(2 diff / two_m * 2^16), ties away from zero; |diff| < 2^33, two_m >= 1. The same rounding for
 * the layout's B and the parameter's D, so that at q = p_l the two vectors are equal bit for bit. */
static int64_t ratio_q16(int64_t diff, uint64_t two_m) {
    uint64_t a = bsync_u64_abs(diff) * 2 * 65536; /* < 2^50 */
    int64_t r = (int64_t)((a + two_m / 2) / two_m);
    return diff < 0 ? -r : r;
}

static int sign64(int64_t v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

void bsync_band_build_(void* impl, const bsync_vec2* pos, uint32_t n, int polar, bsync_blend_diagnostics* diag) {
    band_head* h = (band_head*)impl;
    uint8_t rep[BSYNC_MAX_BLEND_CHILDREN];
    bsync_blend_groups_(pos, n, rep);
    uint32_t g = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (rep[i] == i) {
            h->uniq[g] = (uint8_t)i;
            h->group_of[i] = (uint8_t)g++;
        } else {
            h->group_of[i] = h->group_of[rep[i]];
        }
        h->group_size[h->group_of[i]]++;
    }
    h->polar = polar ? 1u : 0u;
    h->n_groups = g;
    if (!polar) {
        cart_pair* pr = (cart_pair*)(h + 1);
        for (uint32_t k = 0; k < g; k++) {
            for (uint32_t l = k + 1; l < g; l++) {
                bsync_vec2 a = pos[h->uniq[k]], b = pos[h->uniq[l]];
                int64_t vx = (int64_t)b.x - a.x, vy = (int64_t)b.y - a.y;
                unsigned s = 0;
                while ((bsync_u64_abs(vx) >> s) >= ((uint64_t)1 << 30) || (bsync_u64_abs(vy) >> s) >= ((uint64_t)1 << 30)) s++;
                vx = bsync_i64_asr(vx, s);
                vy = bsync_i64_asr(vy, s);
                uint64_t ax = bsync_u64_abs(vx), ay = bsync_u64_abs(vy);
                uint64_t mx = ax > ay ? ax : ay;
                if (mx == 0) mx = 1; /* cannot happen for distinct groups unless shifted to 0 */
                unsigned kk = 30 + bsync_blend_bitlen_(mx) - 1;
                uint64_t den = ax * ax + ay * ay;
                if (den == 0) den = 1;
                uint64_t gx = div_shift(ax, kk, den), gy = div_shift(ay, kk, den);
                cart_pair* p = &pr[cart_index(k, l, g)];
                p->gx = (int32_t)(vx < 0 ? -(int64_t)gx : (int64_t)gx);
                p->gy = (int32_t)(vy < 0 ? -(int64_t)gy : (int64_t)gy);
                p->e = kk + s;
            }
        }
        return;
    }
    /* polar */
    int first_centre = -1;
    for (uint32_t i = 0; i < n; i++) {
        if (pos[i].x != 0 || pos[i].y != 0) continue;
        if (first_centre < 0) first_centre = (int)i;
        else bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_MULTIPLE_CENTERS, (uint32_t)first_centre, i);
    }
    if (first_centre < 0) bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_NO_CENTER, 0, 0);
    for (uint32_t k = 0; k < g; k++) h->mag[k] = length_raw(pos[h->uniq[k]].x, pos[h->uniq[k]].y);
    polar_pair* pr = (polar_pair*)(h + 1);
    for (uint32_t k = 0; k < g; k++) {
        for (uint32_t l = 0; l < g; l++) {
            if (k == l) continue;
            polar_pair* p = &pr[(size_t)k * g + l];
            bsync_vec2 a = pos[h->uniq[k]], b = pos[h->uniq[l]];
            uint64_t mk = h->mag[k], ml = h->mag[l];
            p->two_m = mk + ml;
            p->b = (int32_t)ratio_q16((int64_t)ml - (int64_t)mk, p->two_m); /* |b| <= 2 */
            if (mk == 0) {
                p->kind = PK_CENTRE_K;
                continue;
            }
            if (ml == 0) {
                p->kind = PK_CENTRE_L;
                continue;
            }
            int64_t cr = (int64_t)a.x * b.y - (int64_t)a.y * b.x;
            int64_t dt = (int64_t)a.x * b.x + (int64_t)a.y * b.y;
            if (cr == 0 && dt > 0) {
                p->kind = PK_SAME_DIR;
                p->a = 0;
                p->den = (int64_t)p->b * p->b;
                continue;
            }
            fix16_t th = angle2(a, b);
            p->kind = PK_GENERAL;
            p->a = 2 * th;
            p->sgn = (int8_t)sign64(cr);
            p->apply_sign = th < 203829 ? 1 : 0; /* 0.99 pi = 203828.5 raw */
            p->den = (int64_t)p->a * p->a + (int64_t)p->b * p->b;
        }
    }
}

static void cart_eval(const band_head* h, const bsync_vec2* pos, bsync_vec2 q, uint64_t* hv) {
    const uint32_t g = h->n_groups;
    const cart_pair* pr = (const cart_pair*)(h + 1);
    int64_t dx[BSYNC_MAX_BLEND_CHILDREN], dy[BSYNC_MAX_BLEND_CHILDREN];
    uint64_t nrm[BSYNC_MAX_BLEND_CHILDREN];
    uint64_t big = 0;
    for (uint32_t k = 0; k < g; k++) {
        dx[k] = (int64_t)q.x - pos[h->uniq[k]].x;
        dy[k] = (int64_t)q.y - pos[h->uniq[k]].y;
        uint64_t ax = bsync_u64_abs(dx[k]), ay = bsync_u64_abs(dy[k]);
        nrm[k] = ax > ay ? ax : ay;
        if (nrm[k] > big) big = nrm[k];
        hv[k] = (uint64_t)1 << 30;
    }
    unsigned sd = 0;
    while ((big >> sd) >= ((uint64_t)1 << 31)) sd++;
    if (sd)
        for (uint32_t k = 0; k < g; k++) {
            dx[k] = bsync_i64_asr(dx[k], sd);
            dy[k] = bsync_i64_asr(dy[k], sd);
        }
    const int64_t one30 = (int64_t)1 << 30;
    size_t idx = 0;
    for (uint32_t k = 0; k < g; k++) {
        for (uint32_t l = k + 1; l < g; l++, idx++) {
            if (hv[k] == 0 && hv[l] == 0) continue;
            const cart_pair* p = &pr[idx];
            int e = (int)p->e - (int)sd; /* >= 27 */
            int64_t lim = e >= 63 ? INT64_MAX : ((int64_t)1 << e);
            int from_k = nrm[k] <= nrm[l];
            int64_t dot = from_k ? dx[k] * p->gx + dy[k] * p->gy : -(dx[l] * p->gx + dy[l] * p->gy);
            /* from k: dot = t 2^e; from l: dot = (1 - t) 2^e */
            int64_t tk, tl; /* band values for k and l, Q30, or -1 for "no constraint" */
            if (dot <= 0) {
                if (from_k) { tk = -1; tl = 0; } else { tk = 0; tl = -1; }
            } else if (dot >= lim) {
                if (from_k) { tk = 0; tl = -1; } else { tk = -1; tl = 0; }
            } else {
                int64_t f = e >= 30 ? (dot >> (e - 30)) : (dot << (30 - e));
                if (from_k) { tl = f; tk = one30 - f; } else { tk = f; tl = one30 - f; }
            }
            if (tk >= 0 && (uint64_t)tk < hv[k]) hv[k] = (uint64_t)tk;
            if (tl >= 0 && (uint64_t)tl < hv[l]) hv[l] = (uint64_t)tl;
        }
    }
}

static void polar_eval(const band_head* h, const bsync_vec2* pos, bsync_vec2 q, uint64_t* hv) {
    const uint32_t g = h->n_groups;
    const polar_pair* pr = (const polar_pair*)(h + 1);
    const int qzero = q.x == 0 && q.y == 0;
    const uint64_t qm = length_raw(q.x, q.y);
    fix16_t th[BSYNC_MAX_BLEND_CHILDREN];
    int sc[BSYNC_MAX_BLEND_CHILDREN];
    for (uint32_t k = 0; k < g; k++) {
        bsync_vec2 p = pos[h->uniq[k]];
        th[k] = qzero ? 0 : angle2(p, q);
        sc[k] = sign64((int64_t)p.x * q.y - (int64_t)p.y * q.x);
    }
    const int64_t one24 = (int64_t)1 << 24, dlim = (int64_t)1 << 44;
    for (uint32_t k = 0; k < g; k++) {
        int64_t hk = one24;
        for (uint32_t l = 0; l < g && hk > 0; l++) {
            if (l == k) continue;
            const polar_pair* p = &pr[(size_t)k * g + l];
            int64_t a, c, den;
            switch (p->kind) {
            case PK_CENTRE_K: a = th[l]; c = 0; den = a * a + (int64_t)p->b * p->b; break;
            case PK_CENTRE_L: a = th[k]; c = th[k]; den = a * a + (int64_t)p->b * p->b; break;
            case PK_SAME_DIR: a = 0; c = 0; den = p->den; break;
            default:
                a = p->a;
                den = p->den;
                if (qzero) c = a;
                else c = (p->apply_sign && sc[k] * p->sgn < 0) ? -2 * (int64_t)th[k] : 2 * (int64_t)th[k];
                break;
            }
            if (den <= 0) continue;
            int64_t d = ratio_q16((int64_t)qm - (int64_t)h->mag[k], p->two_m);
            if (d > dlim) d = dlim;
            if (d < -dlim) d = -dlim;
            int64_t num = a * c + (int64_t)p->b * d;
            if (num <= 0) continue;
            if (num >= den) {
                hk = 0;
                break;
            }
            int64_t t = (num << 24) / den; /* den < 2^38 */
            if (one24 - t < hk) hk = one24 - t;
        }
        hv[k] = (uint64_t)hk;
    }
}

void bsync_band_eval_(const void* impl, const bsync_vec2* pos, uint32_t n, bsync_vec2 q, fix16_t* w) {
    const band_head* h = (const band_head*)impl;
    uint64_t hv[BSYNC_MAX_BLEND_CHILDREN];
    if (h->n_groups == 1) {
        hv[0] = 1;
    } else if (h->polar) {
        polar_eval(h, pos, q, hv);
    } else {
        cart_eval(h, pos, q, hv);
    }
    if (!bsync_blend_normalise_groups_(hv, h->n_groups, h->group_of, h->group_size, n, w))
        bsync_blend_nearest_(pos, n, q, w);
}
