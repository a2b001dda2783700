/* pose.c — weighted pose blending, additive layers and local-to-model (see pose.h for the rules).
 *
 * All sums are exact int64 sums of raw products, rounded once (ties away from zero). No floats,
 * no allocation, no globals. */
#include "blendsync/pose.h"
#include "internal/force_inline.h"
#include "internal/quat_normalize.h"
#include "internal/simd_impl.h"

#include <stdint.h>
#include <string.h>

#define POSE_MAX_WEIGHT ((int64_t)64 * 65536) /* 64.0 */

/* |v| / den rounded to nearest, ties away from zero, with the sign of v; saturated to fix16.
 * den > 0, |v| < 2^62, den < 2^62. */
static fix16_t div_round_sat(int64_t v, uint64_t den) {
    uint64_t m = bsync_u64_abs(v);
    uint64_t q = (m / den) + ((m % den) >= den - (m % den) ? 1u : 0u); /* rem >= den/2 (exact) */
    return bsync_fx_signed_sat(q, v < 0);
}

/* div_round_sat(v, 65536) without a division (the blend's denominator whenever the weights sum to at
 * most one). The same value: with m = |v| = 65536 k + r, 0 <= r < 65536, div_round_sat's quotient is
 * k + (r >= 65536 - r) = k + (r >= 32768), and (m + 32768) >> 16 = k + floor((r + 32768) / 65536) =
 * k + (r >= 32768) since r + 32768 < 2 * 65536; m < 2^62, so m + 32768 does not wrap. */
static fix16_t div_round_sat_one(int64_t v) {
    uint64_t m = bsync_u64_abs(v);
    return bsync_fx_signed_sat((m + 32768u) >> 16, v < 0);
}

/* v / 2^s rounded to nearest, ties away from zero (symmetric: f(-v) = -f(v)). |v| < 2^62, s < 62. */
static inline int64_t shift_round(int64_t v, unsigned s) {
    const uint64_t m = bsync_u64_abs(v);
    const uint64_t r = (m + (((uint64_t)1 << s) >> 1)) >> s; /* s == 0: (m + 0) >> 0 = m, v itself */
    return v < 0 ? -(int64_t)r : (int64_t)r;
}

/* Do the byte ranges [a, a + an) and [b, b + bn) overlap? Empty ranges never overlap. */
static int ranges_overlap(const void* a, size_t an, const void* b, size_t bn) {
    if (!a || !b || an == 0 || bn == 0) return 0;
    uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
    return pa < pb + bn && pb < pa + an;
}

static fix16_t clamp_unit(fix16_t v) { return bsync_fx_clamp(v, 0, BSYNC_FX_ONE); }

/* ---------------------------------------------------------------- blend */

/* Is bsync_quat_dot(a, b) < 0? The dot is the exact sum V of the four raw products (2^-32 units)
 * rounded to fix16 ties away from zero (bsync_fx_round_q32_), and saturation keeps the sign, so it is
 * negative exactly when V <= -2^15 (V = -2^15 is -0.5 raw and rounds to -1; V = -2^15 + 1 rounds to
 * 0). When every component is in [-2^30, 2^30) (bsync_quat_small_) each product is at most 2^60 and V
 * fits in int64 (|V| <= 2^62), so it is formed directly; otherwise the general accumulator decides. */
static BSYNC_FORCE_INLINE int quat_dot_negative(bsync_quat a, bsync_quat b) {
    if (!bsync_quat_small_(a) || !bsync_quat_small_(b)) return bsync_quat_dot(a, b) < 0;
    const int64_t v = (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z + (int64_t)a.w * b.w;
    return v <= -(int64_t)32768;
}

/* The weighted sum of rotations is normalised from its exact int64 components: they are scaled
 * (rounded symmetrically) so that the largest magnitude is below 2^30, which keeps about 14 more bits
 * than rounding to fix16 first, then handed to bsync_quat_normalize (which only needs the direction).
 * The shift s is the smallest with (mx >> s) < 2^29, i.e. mx < 2^(29 + s): 0 when mx < 2^29, else
 * bits(mx) - 29. */
/* scale_sum returns the scaled quaternion; the caller normalises it (in a batch at the end of the
 * blend, bsync_simd_normalize_rotations_: bsync_quat_normalize on every path). */
static BSYNC_FORCE_INLINE bsync_quat scale_sum(const int64_t r[4]) {
    const uint64_t mx = bsync_u64_abs(r[0]) | bsync_u64_abs(r[1]) | bsync_u64_abs(r[2]) | bsync_u64_abs(r[3]);
    /* the OR has the same bit length as the largest magnitude, which is all the shift depends on */
    unsigned s = 0;
    if (mx >= ((uint64_t)1 << 29)) s = 64u - bsync_u64_clz(mx) - 29u;
    return bsync_quat_make((fix16_t)shift_round(r[0], s), (fix16_t)shift_round(r[1], s), (fix16_t)shift_round(r[2], s),
                           (fix16_t)shift_round(r[3], s));
}

/* Bits in which two vectors / quaternions differ (0: equal). */
static inline uint32_t vec3_diff(bsync_vec3 a, bsync_vec3 b) {
    return ((uint32_t)a.x ^ (uint32_t)b.x) | ((uint32_t)a.y ^ (uint32_t)b.y) | ((uint32_t)a.z ^ (uint32_t)b.z);
}
static inline uint32_t quat_diff(bsync_quat a, bsync_quat b) {
    return ((uint32_t)a.x ^ (uint32_t)b.x) | ((uint32_t)a.y ^ (uint32_t)b.y) | ((uint32_t)a.z ^ (uint32_t)b.z) |
           ((uint32_t)a.w ^ (uint32_t)b.w);
}

/* What the blend's rounding gives for a channel whose every contributing value is v: the weighted sum
 * is W v (W = total, or one with the rest remainder), and div_round_sat_one(65536 v) = (65536 |v| +
 * 2^15) >> 16 = |v|, div_round_sat(W v, W) = |v| (remainder 0), both with v's sign and saturated: v
 * itself, except INT32_MIN, whose magnitude 2^31 saturates to BSYNC_FX_MIN. */
static inline fix16_t same_value(fix16_t v) { return v == INT32_MIN ? BSYNC_FX_MIN : v; }
static inline bsync_vec3 same_vec3(bsync_vec3 v) {
    return bsync_vec3_make(same_value(v.x), same_value(v.y), same_value(v.z));
}

/* The translation (scale = 0) or scale (scale = 1) of joint j: the exact weighted sum (the rest pose
 * takes the remainder when total < 1), rounded once, divided by total when it exceeds 1. */
static BSYNC_FORCE_INLINE bsync_vec3 blend_vec3(const bsync_trs* rest, const bsync_pose_input* inputs, uint32_t j,
                                                const uint32_t* active, const int64_t* weight, uint32_t n,
                                                int64_t total, int scale) {
    int64_t a0 = 0, a1 = 0, a2 = 0;
    for (uint32_t k = 0; k < n; k++) {
        const bsync_trs* x = &inputs[active[k]].local[j];
        const bsync_vec3 v = scale ? x->s : x->t;
        a0 += weight[k] * v.x;
        a1 += weight[k] * v.y;
        a2 += weight[k] * v.z;
    }
    if (total < BSYNC_FX_ONE) {
        const int64_t rest_w = (int64_t)BSYNC_FX_ONE - total;
        const bsync_vec3 v = scale ? rest[j].s : rest[j].t;
        a0 += rest_w * v.x;
        a1 += rest_w * v.y;
        a2 += rest_w * v.z;
    }
    if (total <= BSYNC_FX_ONE) /* den = 65536: the common case (weights summing to one) */
        return bsync_vec3_make(div_round_sat_one(a0), div_round_sat_one(a1), div_round_sat_one(a2));
    return bsync_vec3_make(div_round_sat(a0, (uint64_t)total), div_round_sat(a1, (uint64_t)total),
                           div_round_sat(a2, (uint64_t)total));
}

/* r += sw * x, exact in int64 (sw carries the hemisphere sign). */
static BSYNC_FORCE_INLINE void add_rotation(int64_t r[4], int64_t sw, bsync_quat x) {
    r[0] += sw * x.x;
    r[1] += sw * x.y;
    r[2] += sw * x.z;
    r[3] += sw * x.w;
}

/* Joint j of the blend, given its contributing inputs (indices `active`, weights `weight`, n >= 1,
 * total = their sum > 0). Channels in which every contributing value (the rest pose's included when
 * it takes the remainder) is the same are not summed: see same_value, and for the rotation below. */
/* *pend = 1: the rotation is returned not yet normalised (the caller normalises it), 0: final. */
static BSYNC_FORCE_INLINE bsync_trs blend_joint(const bsync_trs* rest, const bsync_pose_input* inputs, uint32_t j,
                                    const uint32_t* active, const int64_t* weight, uint32_t n, int64_t total,
                                    int lerped, int* pend) {
    const bsync_trs* f = &inputs[active[0]].local[j];
    *pend = 0;
    if (n == 1 && total >= BSYNC_FX_ONE) { /* bit for bit; a lerped input's rotation normalised */
        *pend = lerped && !bsync_quat_unit_shortcut_(f->r); /* the shortcut: normalize(q) is q */
        return *f;
    }
    const int with_rest = total < BSYNC_FX_ONE;
    uint32_t dt = 0, ds = 0, dr = 0;
    for (uint32_t k = 1; k < n; k++) {
        const bsync_trs* x = &inputs[active[k]].local[j];
        dt |= vec3_diff(x->t, f->t);
        ds |= vec3_diff(x->s, f->s);
        dr |= quat_diff(x->r, f->r);
    }
    if (with_rest) {
        dt |= vec3_diff(rest[j].t, f->t);
        ds |= vec3_diff(rest[j].s, f->s);
        dr |= quat_diff(rest[j].r, f->r);
    }
    const int64_t rest_w = (int64_t)BSYNC_FX_ONE - total; /* used only when with_rest */
    bsync_trs o;
    o.t = dt == 0 ? same_vec3(f->t) : blend_vec3(rest, inputs, j, active, weight, n, total, 0);
    o.s = ds == 0 ? same_vec3(f->s) : blend_vec3(rest, inputs, j, active, weight, n, total, 1);
    const bsync_quat q = f->r;
    /* One rotation q everywhere, weights summing to one: every sign is +1 (dot(q, q) >= 0), the sum is
     * 2^16 q exactly, and scale_sum scales it to q' = q 2^m exactly, m = 16 - shift = 29 - b for
     * b = bits(max|q_i|) (shift = bits(2^16 max) - 29 = b - 13 <= 16, no rounding). When 15 <= b <= 29,
     * bsync_quat_normalize gives q' and q the same bits: neither is halved (max < 2^29), s(q) in
     * [2^(2b-2), 2^(2b+2)) has sbits <= 2b + 2 <= 60, so e(q) = floor((62 - sbits) / 2) >= 30 - b > m,
     * no cap (e <= 17), and s(q') = 4^m s(q) gives e(q') = e(q) - m: the same n, the same l and the
     * same numerators |c| 2^m 2^(16 + e - m); q' (components >= 2^28 in magnitude) skips the unit fast
     * path, which q may take, and that path returns what the full computation would (its proof). */
    const uint64_t qbits = bsync_u64_abs(q.x) | bsync_u64_abs(q.y) | bsync_u64_abs(q.z) | bsync_u64_abs(q.w);
    *pend = 1;
    if (dr == 0 && total <= BSYNC_FX_ONE && qbits >= ((uint64_t)1 << 14) && qbits < ((uint64_t)1 << 29)) {
        o.r = q; /* normalize(q): q itself when the unit shortcut applies (most held keys), else below */
        *pend = !bsync_quat_unit_shortcut_(q);
        return o;
    }
    int64_t r[4] = {0, 0, 0, 0};
    for (uint32_t k = 0; k < n; k++) /* dot(q, q) >= 0: the first one keeps its sign */
        add_rotation(r, k > 0 && quat_dot_negative(q, inputs[active[k]].local[j].r) ? -weight[k] : weight[k],
                     inputs[active[k]].local[j].r);
    if (with_rest) add_rotation(r, quat_dot_negative(q, rest[j].r) ? -rest_w : rest_w, rest[j].r);
    o.r = scale_sum(r);
    return o;
}

/* bsync_pose_blend (lerped = 0) and bsync_pose_blend_lerped (1): they differ only where one input of
 * total weight >= 1 is copied, whose rotations the lerped blend normalises. */
static bsync_result pose_blend(const bsync_trs* rest, uint32_t joint_count, const bsync_pose_input* inputs,
                               uint32_t input_count, int lerped, bsync_trs* out_local) {
    if (!rest || !out_local || (!inputs && input_count > 0)) return BSYNC_INVALID_ARGUMENT;
    if (joint_count > BSYNC_MAX_JOINTS || input_count > BSYNC_MAX_BLEND_POSES) return BSYNC_LIMIT_EXCEEDED;
    const size_t out_bytes = (size_t)joint_count * sizeof(bsync_trs);
    if (ranges_overlap(out_local, out_bytes, rest, out_bytes)) return BSYNC_INVALID_ARGUMENT;
    if (ranges_overlap(out_local, out_bytes, inputs, (size_t)input_count * sizeof(bsync_pose_input)))
        return BSYNC_INVALID_ARGUMENT;
    int masked = 0; /* does a contributing input carry per-joint weights? */
    for (uint32_t i = 0; i < input_count; i++) {
        const bsync_pose_input* in = &inputs[i];
        if ((int64_t)in->weight > POSE_MAX_WEIGHT) return BSYNC_INVALID_ARGUMENT;
        if (in->weight <= 0) continue; /* never read: local and mask may be anything, even NULL */
        if (!in->local) return BSYNC_INVALID_ARGUMENT;
        if (ranges_overlap(out_local, out_bytes, in->local, out_bytes)) return BSYNC_INVALID_ARGUMENT;
        if (ranges_overlap(out_local, out_bytes, in->joint_weights, (size_t)joint_count * sizeof(fix16_t)))
            return BSYNC_INVALID_ARGUMENT;
        if (in->joint_weights) masked = 1;
    }

    uint16_t pending[BSYNC_MAX_JOINTS]; /* joints whose rotation is normalised at the end */
    uint32_t np = 0;
    uint32_t active[BSYNC_MAX_BLEND_POSES];
    int64_t weight[BSYNC_MAX_BLEND_POSES];
    uint32_t n = 0;
    int64_t total = 0; /* <= 64 * 64.0 = 2^28 raw */
    if (!masked) { /* the weights do not depend on the joint: gather them once */
        for (uint32_t i = 0; i < input_count; i++) {
            if (inputs[i].weight <= 0) continue;
            active[n] = i;
            weight[n] = inputs[i].weight;
            n++;
            total += inputs[i].weight;
        }
        if (n == 0) {
            if (joint_count > 0) memcpy(out_local, rest, out_bytes); /* no overlap (checked above) */
            return BSYNC_OK;
        }
        if (n == 1 && total >= BSYNC_FX_ONE) { /* every joint is copied bit for bit (blend_joint's first rule) */
            memcpy(out_local, inputs[active[0]].local, out_bytes); /* no overlap (checked above) */
            if (lerped) {
                for (uint32_t j = 0; j < joint_count; j++)
                    if (!bsync_quat_unit_shortcut_(out_local[j].r)) pending[np++] = (uint16_t)j;
                bsync_simd_normalize_rotations_(out_local, pending, np);
            }
            return BSYNC_OK;
        }
        uint32_t j = 0;
#if BSYNC_HAVE_AVX2_PATH
        /* four joints at a time in AVX2 lanes when the weights sum to at most one (simd_avx2.c): the
         * same bits; a group it declines is blended below, joint by joint */
        const bsync_simd_path path = bsync_simd_active();
        if ((path == BSYNC_SIMD_AVX2 || path == BSYNC_SIMD_AVX512) && total <= BSYNC_FX_ONE) {
            const bsync_trs* locals[BSYNC_MAX_BLEND_POSES];
            for (uint32_t k = 0; k < n; k++) locals[k] = inputs[active[k]].local;
            /* eight at a time, normalised; from a declined group on, in fours. The last one to seven joints
             * as the eight ending at the last joint: the joints before them are blended again from the
             * same inputs and written again with the same values (out_local overlaps no input). */
            int (*const blend8)(const bsync_trs*, const bsync_trs* const*, const int64_t*, uint32_t, int64_t, uint32_t,
                                bsync_trs*) = path == BSYNC_SIMD_AVX512 ? bsync_simd_blend8_avx512_ : bsync_simd_blend8_avx2_;
            if (path == BSYNC_SIMD_AVX512) /* sixteen at a time: two groups' dependency chains side by side */
                while (j + 16 <= joint_count && bsync_simd_blend16_avx512_(rest, locals, weight, n, total, j, out_local)) j += 16;
            while (j + 8 <= joint_count && blend8(rest, locals, weight, n, total, j, out_local)) j += 8;
            if (j < joint_count && j + 8 > joint_count && joint_count >= 8 &&
                blend8(rest, locals, weight, n, total, joint_count - 8, out_local))
                j = joint_count;
            for (; j + 4 <= joint_count; j += 4) {
                if (bsync_simd_blend4_avx2_(rest, locals, weight, n, total, j, out_local)) {
                    for (uint32_t i = 0; i < 4; i++) pending[np++] = (uint16_t)(j + i);
                    continue;
                }
                for (uint32_t i = 0; i < 4; i++) {
                    int pend;
                    out_local[j + i] = blend_joint(rest, inputs, j + i, active, weight, n, total, lerped, &pend);
                    if (pend) pending[np++] = (uint16_t)(j + i);
                }
            }
        }
#endif
        for (; j < joint_count; j++) {
            int pend;
            out_local[j] = blend_joint(rest, inputs, j, active, weight, n, total, lerped, &pend);
            if (pend) pending[np++] = (uint16_t)j;
        }
        bsync_simd_normalize_rotations_(out_local, pending, np);
        return BSYNC_OK;
    }
    for (uint32_t j = 0; j < joint_count; j++) {
        n = 0;
        total = 0;
        for (uint32_t i = 0; i < input_count; i++) {
            const bsync_pose_input* in = &inputs[i];
            if (in->weight <= 0) continue;
            fix16_t w = in->weight;
            if (in->joint_weights) w = bsync_fx_mul(w, clamp_unit(in->joint_weights[j]));
            if (w <= 0) continue;
            active[n] = i;
            weight[n] = w;
            n++;
            total += w;
        }
        int pend = 0;
        out_local[j] = n == 0 ? rest[j] : blend_joint(rest, inputs, j, active, weight, n, total, lerped, &pend);
        if (pend) pending[np++] = (uint16_t)j;
    }
    bsync_simd_normalize_rotations_(out_local, pending, np);
    return BSYNC_OK;
}

bsync_result bsync_pose_blend(const bsync_trs* rest, uint32_t joint_count, const bsync_pose_input* inputs,
                              uint32_t input_count, bsync_trs* out_local) {
    return pose_blend(rest, joint_count, inputs, input_count, 0, out_local);
}

bsync_result bsync_pose_blend_lerped(const bsync_trs* rest, uint32_t joint_count, const bsync_pose_input* inputs,
                                     uint32_t input_count, bsync_trs* out_local) {
    return pose_blend(rest, joint_count, inputs, input_count, 1, out_local);
}

/* ---------------------------------------------------------------- additive */

/* base + w * (add - ref), exact product rounded once, saturated. */
static fix16_t additive_component(fix16_t base, fix16_t add, fix16_t ref, fix16_t w) {
    int64_t d = ((int64_t)add - (int64_t)ref) * (int64_t)w; /* |d| <= 2^32 * 2^16 */
    return bsync_fx_sat64((int64_t)base + shift_round(d, 16));
}

/* base * (1 + w * (add / ref - 1)); ref == 0 -> base. */
static fix16_t additive_scale(fix16_t base, fix16_t add, fix16_t ref, fix16_t w) {
    if (ref == 0) return base;
    fix16_t ratio = bsync_fx_div(add, ref);
    int64_t d = ((int64_t)ratio - (int64_t)BSYNC_FX_ONE) * (int64_t)w;
    fix16_t f = bsync_fx_sat64((int64_t)BSYNC_FX_ONE + shift_round(d, 16));
    return bsync_fx_mul(base, f);
}

bsync_result bsync_pose_blend_additive(const bsync_trs* base, const bsync_trs* additive,
                                       const bsync_trs* reference, uint32_t joint_count, fix16_t weight,
                                       const fix16_t* joint_weights, bsync_trs* out_local) {
    if (!base || !additive || !reference || !out_local) return BSYNC_INVALID_ARGUMENT;
    if (joint_count > BSYNC_MAX_JOINTS) return BSYNC_LIMIT_EXCEEDED;
    const size_t bytes = (size_t)joint_count * sizeof(bsync_trs);
    if (ranges_overlap(out_local, bytes, base, bytes) || ranges_overlap(out_local, bytes, additive, bytes) ||
        ranges_overlap(out_local, bytes, reference, bytes) ||
        ranges_overlap(out_local, bytes, joint_weights, (size_t)joint_count * sizeof(fix16_t)))
        return BSYNC_INVALID_ARGUMENT;

    const fix16_t wg = clamp_unit(weight);
    for (uint32_t j = 0; j < joint_count; j++) {
        fix16_t w = wg;
        if (joint_weights && w > 0) w = bsync_fx_mul(w, clamp_unit(joint_weights[j]));
        const bsync_trs* b = &base[j];
        if (w <= 0) {
            out_local[j] = *b;
            continue;
        }
        const bsync_trs* a = &additive[j];
        const bsync_trs* r = &reference[j];
        bsync_trs o;
        o.t = bsync_vec3_make(additive_component(b->t.x, a->t.x, r->t.x, w),
                              additive_component(b->t.y, a->t.y, r->t.y, w),
                              additive_component(b->t.z, a->t.z, r->t.z, w));
        o.s = bsync_vec3_make(additive_scale(b->s.x, a->s.x, r->s.x, w), additive_scale(b->s.y, a->s.y, r->s.y, w),
                              additive_scale(b->s.z, a->s.z, r->s.z, w));
        bsync_quat delta = bsync_quat_mul(bsync_quat_conj(r->r), a->r);
        o.r = bsync_quat_mul(b->r, bsync_quat_nlerp(bsync_quat_identity(), delta, w));
        out_local[j] = o;
    }
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- local to model */

/* round(v / 2^16), ties away from zero, saturated to [BSYNC_FX_MIN, BSYNC_FX_MAX], for |v| < 2^63:
 * bsync_fx_round_q32_'s value for the same sum (for v >= 0 both are floor(v / 2^16) + [frac >= 2^15];
 * for v < 0 the code there rounds |v| = 2^16 (-whole - 1) + (2^16 - frac) half up, which is
 * (|v| + 2^15) >> 16), with bsync_fx_sat64's bounds. */
static BSYNC_FORCE_INLINE fix16_t round_q32_small(int64_t v) {
    return bsync_fx_signed_sat((bsync_u64_abs(v) + 0x8000u) >> 16, v < 0);
}

/* bsync_quat_mul for components in [-2^30, 2^30) (bsync_quat_small_; every unit quaternion): each of
 * the four sums of four products is at most 2^62 in magnitude, so it is formed exactly in int64 and
 * rounded once as the general accumulator rounds it (round_q32_small). Other inputs take
 * bsync_quat_mul itself. */
static BSYNC_FORCE_INLINE bsync_quat quat_mul_fast(bsync_quat a, bsync_quat b) {
    if (!bsync_quat_small_(a) || !bsync_quat_small_(b)) return bsync_quat_mul(a, b);
    const int64_t ax = a.x, ay = a.y, az = a.z, aw = a.w, bx = b.x, by = b.y, bz = b.z, bw = b.w;
    return bsync_quat_make(round_q32_small(aw * bx + ax * bw + ay * bz - az * by),
                           round_q32_small(aw * by - ax * bz + ay * bw + az * bx),
                           round_q32_small(aw * bz + ax * by - ay * bx + az * bw),
                           round_q32_small(aw * bw - ax * bx - ay * by - az * bz));
}

/* bsync_vec3_cross(u, v) for u's components in [-2^30, 2^30) and any v: each product is below 2^61 in
 * magnitude and each difference of two below 2^62, so it is formed exactly in int64 and rounded once as
 * the general accumulator rounds it (round_q32_small). */
static BSYNC_FORCE_INLINE bsync_vec3 cross_small(bsync_vec3 u, bsync_vec3 v) {
    const int64_t ux = u.x, uy = u.y, uz = u.z, vx = v.x, vy = v.y, vz = v.z;
    return bsync_vec3_make(round_q32_small(uy * vz - uz * vy), round_q32_small(uz * vx - ux * vz),
                           round_q32_small(ux * vy - uy * vx));
}

/* bsync_trs_transform_point(parent, p) when parent's rotation is small (bsync_quat_small_): the same
 * steps as bsync_quat_rotate (fixed.h), t = 2 (u x s p) and s p + w t + u x t with their saturating adds
 * and products, the two cross products by cross_small: the same bits. */
static BSYNC_FORCE_INLINE bsync_vec3 transform_point_small(const bsync_trs* parent, bsync_vec3 p) {
    const bsync_quat q = parent->r;
    const bsync_vec3 u = bsync_vec3_make(q.x, q.y, q.z);
    const bsync_vec3 v = bsync_vec3_mul(parent->s, p);
    bsync_vec3 t = cross_small(u, v);
    t = bsync_vec3_make(bsync_fx_add(t.x, t.x), bsync_fx_add(t.y, t.y), bsync_fx_add(t.z, t.z));
    const bsync_vec3 r = bsync_vec3_add(bsync_vec3_add(v, bsync_vec3_scale(t, q.w)), cross_small(u, t));
    return bsync_vec3_add(parent->t, r);
}

/* bsync_trs_compose with quat_mul_fast and transform_point_small: the same bits. */
static BSYNC_FORCE_INLINE bsync_trs compose_fast(const bsync_trs* parent, const bsync_trs* local) {
    bsync_trs out;
    out.t = bsync_quat_small_(parent->r) ? transform_point_small(parent, local->t)
                                         : bsync_trs_transform_point(parent, local->t);
    out.r = quat_mul_fast(parent->r, local->r);
    out.s = bsync_vec3_mul(parent->s, local->s);
    return out;
}

/* Joint j of local-to-model: a root takes its local transform, any other joint its parent's model
 * transform composed with its local one. */
static BSYNC_FORCE_INLINE void model_joint(const int16_t* parents, const bsync_trs* local, uint32_t j,
                                           bsync_trs* out_model) {
    const int32_t p = parents[j];
    out_model[j] = p == BSYNC_NO_PARENT ? local[j] : compose_fast(&out_model[p], &local[j]);
}

#if BSYNC_HAVE_AVX2_PATH
/* Local to model level by level, four joints at a time in AVX2 lanes (bsync_simd_compose4_avx2_). A
 * joint's model transform depends only on its parent's, so any order that puts every parent first gives
 * the same bits as the stored order; by depth (0: a root, or a joint whose parent is before `from` and
 * so already written), the joints of one level depend only on earlier levels. Within a level, groups of
 * four joints with parents go to the vector kernel (the last three of a level too, see below); roots, the
 * last one or two of a level and a group the kernel declines (a rotation component outside [-2^30,
 * 2^30)) take model_joint. The hierarchy is checked by the caller (parents before children). */
static void local_to_model_levels(const int16_t* parents, const bsync_trs* local, uint32_t from, uint32_t to,
                                  bsync_trs* out_model) {
    uint16_t depth[BSYNC_MAX_JOINTS], order[BSYNC_MAX_JOINTS], level_end[BSYNC_MAX_JOINTS];
    uint32_t levels = 0;
    for (uint32_t j = from; j < to; j++) { /* level_end[d]: first the count of depth d */
        const int32_t p = parents[j];
        const uint32_t d = (p == BSYNC_NO_PARENT || (uint32_t)p < from) ? 0u : depth[p] + 1u;
        depth[j] = (uint16_t)d;
        for (; levels <= d; levels++) level_end[levels] = 0;
        level_end[d]++;
    }
    for (uint32_t k = 0, sum = 0; k < levels; k++) { /* then the level's first position */
        const uint32_t c = level_end[k];
        level_end[k] = (uint16_t)sum;
        sum += c;
    }
    for (uint32_t j = from; j < to; j++) order[level_end[depth[j]]++] = (uint16_t)j; /* and now its end */
    for (uint32_t k = 0, i = 0; k < levels; k++) {
        uint16_t group[4];
        uint32_t n = 0;
        for (; i < level_end[k]; i++) {
            const uint32_t j = order[i];
            if (parents[j] == BSYNC_NO_PARENT) {
                model_joint(parents, local, j, out_model);
                continue;
            }
            group[n++] = (uint16_t)j;
            if (n < 4u) continue;
            n = 0;
            if (bsync_simd_compose4_avx2_(local, out_model, parents, group)) continue;
            for (uint32_t g = 0; g < 4u; g++) model_joint(parents, local, group[g], out_model);
        }
        if (n == 3u) { /* the last three of the level: the group filled up with a repeat of its last one (a
                        * repeated joint is computed twice and written twice with the same value; measured
                        * against padding one or two: docs/benchmarks.md) */
            group[3] = group[2];
            if (bsync_simd_compose4_avx2_(local, out_model, parents, group)) continue;
        }
        for (uint32_t g = 0; g < n; g++) model_joint(parents, local, group[g], out_model);
    }
}
#endif

bsync_result bsync_pose_local_to_model(const int16_t* parents, uint32_t joint_count, const bsync_trs* local,
                                       uint32_t from, uint32_t to, bsync_trs* out_model) {
    if (!parents || !local || !out_model) return BSYNC_INVALID_ARGUMENT;
    if (joint_count > BSYNC_MAX_JOINTS) return BSYNC_LIMIT_EXCEEDED;
    if (from > to || to > joint_count) return BSYNC_INVALID_ARGUMENT;
    const size_t bytes = (size_t)joint_count * sizeof(bsync_trs);
    if (ranges_overlap(out_model, bytes, local, bytes) ||
        ranges_overlap(out_model, bytes, parents, (size_t)joint_count * sizeof(int16_t)))
        return BSYNC_INVALID_ARGUMENT;
    for (uint32_t j = from; j < to; j++) {
        int32_t p = parents[j];
        if (p != BSYNC_NO_PARENT && (p < 0 || (uint32_t)p >= j)) return BSYNC_BAD_HIERARCHY;
    }
#if BSYNC_HAVE_AVX2_PATH
    const bsync_simd_path path = bsync_simd_active();
    if ((path == BSYNC_SIMD_AVX2 || path == BSYNC_SIMD_AVX512) && to - from >= 8u) {
        local_to_model_levels(parents, local, from, to, out_model);
        return BSYNC_OK;
    }
#endif
    for (uint32_t j = from; j < to; j++) model_joint(parents, local, j, out_model);
    return BSYNC_OK;
}
