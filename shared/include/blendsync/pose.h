/* blendsync/pose.h — blending local poses, additive layers, masks, local-to-model.
 *
 * Index
 *   bsync_pose_input          one weighted pose (with an optional per-joint weight mask)
 *   bsync_pose_blend          weighted blend of N poses with the rest pose as remainder
 *   bsync_pose_blend_additive base + weight * (additive - reference), with an optional mask
 *   bsync_pose_local_to_model model-space transforms from local ones (parents before children)
 *   bsync_pose_copy           copy joint_count transforms
 *
 * Blend rule (per joint j; w_i = weight_i * mask_i[j] when input i has a mask, else weight_i;
 * a negative weight counts as 0; weights above 64.0 are BSYNC_INVALID_ARGUMENT):
 *   W = sum of w_i (exact, 64-bit).
 *   W == 0          -> the rest pose (all-zero weights give the rest pose).
 *   0 < W < 1       -> the rest pose takes the remainder 1 - W (as Unity does for Direct trees).
 *   W == 1 exactly  -> the poses blend with the weights as given.
 *   W > 1           -> the weights are normalised: every component is divided by W once.
 *   Inputs with w_i == 0 are skipped (never read).
 *   translation, scale: exact 64-bit sum of w_i * v_i (plus remainder * rest), rounded once (divided
 *     by W once when W > 1);
 *   rotation: every quaternion is first aligned to the hemisphere of the first contributing one
 *     (negated when their dot product is negative), then the weighted sum is formed the same way and
 *     normalised (bsync_quat_normalize). A single input with weight 1 is reproduced bit for bit.
 *
 * Additive rule (per joint; w = weight * mask[j] when mask != NULL, clamped to [0, 1]):
 *   translation = base.t + w * (add.t - ref.t);  scale = base.s * (1 + w * (add.s / ref.s - 1))
 *   (ref.s component 0 -> that factor is 1); rotation = base.r * nlerp(identity, conj(ref.r) * add.r, w).
 *   w == 0 reproduces base bit for bit.
 *
 * Local-to-model: model[j] = model[parent[j]] ∘ local[j] (bsync_trs_compose), roots unchanged;
 * processes joints [from, to) only (from = 0, to = joint_count for all); parents must already be
 * in out_model for joints below `from`.
 *
 * Every function checks its arguments (NULL, counts above BSYNC_MAX_JOINTS / BSYNC_MAX_BLEND_POSES,
 * bad parents) and returns BSYNC_INVALID_ARGUMENT / BSYNC_LIMIT_EXCEEDED / BSYNC_BAD_HIERARCHY
 * without writing anything. The output may not alias an input.
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

bsync_result bsync_pose_blend(const bsync_trs* rest, uint32_t joint_count, const bsync_pose_input* inputs,
                              uint32_t input_count, bsync_trs* out_local);

bsync_result bsync_pose_blend_additive(const bsync_trs* base, const bsync_trs* additive,
                                       const bsync_trs* reference, uint32_t joint_count, fix16_t weight,
                                       const fix16_t* joint_weights, bsync_trs* out_local);

bsync_result bsync_pose_local_to_model(const int16_t* parents, uint32_t joint_count, const bsync_trs* local,
                                       uint32_t from, uint32_t to, bsync_trs* out_model);

static inline void bsync_pose_copy(bsync_trs* dst, const bsync_trs* src, uint32_t joint_count) {
    for (uint32_t i = 0; i < joint_count; i++) dst[i] = src[i];
}

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_POSE_H */
