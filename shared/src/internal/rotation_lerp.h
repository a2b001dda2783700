/* internal/rotation_lerp.h — the sampler's interpolation between two keys (sample.h's rule, the steps of
 * bsync_fx_lerp and bsync_quat_nlerp before the normalisation), shared by sample.c and the batch of
 * interpolated rotations that the planned sampler hands to simd.c (bsync_simd_lerp_rotations_,
 * internal/simd_impl.h). Not a public header.
 *
 *   bsync_key_lerp_    bsync_fx_lerp(a, b, t) for |a|, |b| <= 2^30 and 0 < t < 1, without branches
 *   bsync_keys_nlerp_  bsync_quat_nlerp's steps before its normalisation for two rotation keys
 */
#ifndef BLENDSYNC_INTERNAL_ROTATION_LERP_H
#define BLENDSYNC_INTERNAL_ROTATION_LERP_H

#include "blendsync/fixed.h"
#include "force_inline.h"
#include "quat_normalize.h"

/* bsync_fx_lerp(a, b, t) for |a|, |b| <= 2^30 and 0 < t < 1: a + floor((p + 2^15 - [p < 0]) / 2^16)
 * with p = (b - a) t (rounded half away from zero) is floor(x / 2^16) for x = p + 2^15 - [p < 0] + 2^16 a,
 * since 2^16 a is a multiple of 2^16; |p| < 2^47 and |2^16 a| <= 2^46, so x + 2^48 > 0 and its logical
 * shift is floor(x / 2^16) + 2^32: no signed shift, no branch. */
static BSYNC_FORCE_INLINE fix16_t bsync_key_lerp_(fix16_t a, fix16_t b, fix16_t t) {
    const int64_t p = ((int64_t)b - a) * t;
    const uint64_t x = (uint64_t)(p + (int64_t)a * 65536 + (((int64_t)1 << 48) + 0x8000)) - ((uint64_t)p >> 63);
    return (fix16_t)((int64_t)(x >> 16) - ((int64_t)1 << 32));
}

/* bsync_quat_nlerp (sample.h's rotation rule) before its normalisation, with the same bits, shortened
 * for keys whose components are in [-2^30, 2^30) (bsync_quat_small_; every normalised key) and
 * 0 < t < 1 (between keys): the exact dot is formed in int64 (|dot| <= 2^62) and its sign is
 * bsync_quat_dot_sign_'s; negating b cannot saturate; and each lerp a + round((b - a) t) lies between a
 * and b, so bsync_fx_lerp's t checks and saturation change nothing. `plain`: the caller knows that both
 * keys are small and that the pair needs no flip (the cursor's mark, sample.c), so both checks are
 * skipped. Other inputs take bsync_quat_lerp_aligned_inl_, bsync_quat_nlerp's steps before its
 * normalisation. */
static BSYNC_FORCE_INLINE bsync_quat bsync_keys_nlerp_(bsync_quat a, bsync_quat b, fix16_t t, int plain) {
    if (t <= 0 || t >= BSYNC_FX_ONE) return bsync_quat_lerp_aligned_inl_(a, b, t);
    if (!plain) {
        if (!bsync_quat_small_(a) || !bsync_quat_small_(b)) return bsync_quat_lerp_aligned_inl_(a, b, t);
        const int64_t v = (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z + (int64_t)a.w * b.w;
        if (v < 0 || (v == 0 && bsync_quat_lex_negative_(b))) {
            b.x = -b.x;
            b.y = -b.y;
            b.z = -b.z;
            b.w = -b.w;
        }
    }
    return bsync_quat_make(bsync_key_lerp_(a.x, b.x, t), bsync_key_lerp_(a.y, b.y, t), bsync_key_lerp_(a.z, b.z, t),
                           bsync_key_lerp_(a.w, b.w, t));
}

#endif
