/* blendsync/pose.h — blending local poses, additive layers, masks, local-to-model.
 *
 * Index
 *   bsync_pose_input          one weighted pose (with an optional per-joint weight mask)
 *   bsync_pose_blend          weighted blend of N poses with the rest pose as remainder
 *   bsync_pose_blend_lerped   the same for lerped samples: every blended rotation normalised (rule 2)
 *   bsync_pose_blend_additive base + weight * (additive - reference), with an optional mask
 *   bsync_pose_local_to_model model-space transforms from local ones (parents before children)
 *   bsync_pose_copy           copy joint_count transforms
 *
 * Blend rule (per joint j; w_i = weight_i * mask_i[j] when input i has a mask, else weight_i;
 * a negative weight counts as 0; weights above 64.0 are BSYNC_INVALID_ARGUMENT; mask values are
 * clamped to [0, 1] and the product is bsync_fx_mul, rounded):
 *   W = sum of w_i (exact, 64-bit).
 *   W == 0          -> the rest pose, bit for bit (all-zero weights give the rest pose).
 *   0 < W < 1       -> the rest pose takes the remainder 1 - W (as Unity does for Direct trees).
 *   W == 1 exactly  -> the poses blend with the weights as given.
 *   W > 1           -> the weights are normalised: every component is divided by W once.
 *   Inputs with weight_i <= 0 are skipped and never read: their `local` and `joint_weights` may be
 *     NULL. An input with weight_i > 0 needs a non-NULL `local` (else BSYNC_INVALID_ARGUMENT).
 *   translation, scale: exact 64-bit sum of w_i * v_i (plus remainder * rest), rounded once (divided
 *     by W once when W > 1), ties away from zero, saturated;
 *   rotation: every quaternion (the rest one included when it takes a remainder) is first aligned to
 *     the hemisphere of the first contributing one (negated when bsync_quat_dot is negative), then the
 *     exact weighted sum is formed the same way and normalised (bsync_quat_normalize) straight from
 *     the 64-bit sums (scaled, symmetrically rounded, to below 2^30 first; not rounded to fix16), so
 *     the result is within about one raw step of the exact normalised sum, and negating every input
 *     rotation negates the result exactly.
 *   A single contributing input with W >= 1 (one weight of exactly 1, or one weight above 1 that
 *     normalises to 1) is copied bit for bit, rotation included: bsync_quat_normalize would move a
 *     rotation that is unit only within rounding by a raw step, so it is not applied in that case.
 *
 * Additive rule (per joint; w = weight * mask[j] when mask != NULL (bsync_fx_mul), weight and mask
 * each clamped to [0, 1]):
 *   translation = base.t + w * (add.t - ref.t);  scale = base.s * (1 + w * (add.s / ref.s - 1))
 *   (ref.s component 0 -> that factor is 1); rotation = base.r * nlerp(identity, conj(ref.r) * add.r, w)
 *   (not renormalised; nlerp takes the short arc, so for w = 1 the rotation is base.r * delta or its
 *   negation, the same rotation). w == 0 reproduces base bit for bit (additive and reference are not
 *   read for that joint).
 *
 * Local-to-model: model[j] = model[parent[j]] ∘ local[j] (bsync_trs_compose), roots copied unchanged;
 * processes joints [from, to) only (from = 0, to = joint_count for all); parents must already be
 * in out_model for joints below `from`. Only the parents of joints in [from, to) are checked.
 *
 * Argument checks, in this order, before anything is written (on failure the output is untouched):
 *   a required pointer is NULL (inputs may be NULL only when input_count == 0)  BSYNC_INVALID_ARGUMENT
 *   joint_count > BSYNC_MAX_JOINTS or input_count > BSYNC_MAX_BLEND_POSES       BSYNC_LIMIT_EXCEEDED
 *   from > to or to > joint_count                                               BSYNC_INVALID_ARGUMENT
 *   the output overlaps an input it would read (rest, inputs array, a contributing local or mask,
 *     base, additive, reference, joint_weights, local, parents)                 BSYNC_INVALID_ARGUMENT
 *   an input weight above 64.0, or weight > 0 with local NULL                   BSYNC_INVALID_ARGUMENT
 *   a parent in [from, to) that is neither BSYNC_NO_PARENT nor in [0, j)        BSYNC_BAD_HIERARCHY
 * joint_count == 0 is valid and writes nothing. The output may not alias an input.
 *
 * Does not: allocate, keep globals, or use floating point.
 */
#ifndef BLENDSYNC_POSE_H
#define BLENDSYNC_POSE_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_pose_input {
    const bsync_trs* local;        /* joint_count local transforms */
    fix16_t weight;                /* >= 0, <= 64.0 */
    const fix16_t* joint_weights;  /* NULL, or joint_count per-joint multipliers in [0, 1] */
} bsync_pose_input;

BSYNC_API bsync_result bsync_pose_blend(const bsync_trs* rest, uint32_t joint_count, const bsync_pose_input* inputs,
                              uint32_t input_count, bsync_trs* out_local);

/* bsync_pose_blend for the lerp samplers' poses (sample.h, pose rule 2: docs/instance.md "Pose
 * rules"): the same rule, checks and bits, except for the single contributing input with W >= 1, which
 * is copied with every rotation normalised (bsync_quat_normalize; a rotation that is unit within the
 * rounding, |c| <= 1.0 and |sum of squares - 1| <= 2^-17, is its own normalisation and is copied
 * as it is). So every rotation written is either a normalised weighted sum or normalize(input), the
 * rest pose's where it takes the whole weight. */
BSYNC_API bsync_result bsync_pose_blend_lerped(const bsync_trs* rest, uint32_t joint_count,
                                               const bsync_pose_input* inputs, uint32_t input_count,
                                               bsync_trs* out_local);
BSYNC_API bsync_result bsync_pose_blend_additive(const bsync_trs* base, const bsync_trs* additive,
                                       const bsync_trs* reference, uint32_t joint_count, fix16_t weight,
                                       const fix16_t* joint_weights, bsync_trs* out_local);

BSYNC_API bsync_result bsync_pose_local_to_model(const int16_t* parents, uint32_t joint_count, const bsync_trs* local,
                                       uint32_t from, uint32_t to, bsync_trs* out_model);

static inline void bsync_pose_copy(bsync_trs* dst, const bsync_trs* src, uint32_t joint_count) {
    for (uint32_t i = 0; i < joint_count; i++) dst[i] = src[i];
}

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_POSE_H */
