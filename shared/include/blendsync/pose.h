/* blendsync/pose.h — blending local poses, additive layers, masks, local-to-model.
 *
 * Index
 *   bsync_pose_input            one weighted pose, optional per-joint mask
 *   bsync_pose_blend            N poses, the rest pose takes the remainder
 *   bsync_pose_blend_lerped     the same, every rotation normalised (rule 2)
 *   bsync_pose_blend_additive   base + weight * (additive - reference)
 *   bsync_pose_local_to_model   joints [from, to), parents first
 *   bsync_pose_copy
 *
 * Outputs untouched on error; no aliasing, allocation or floats. design: docs/pose.md
 */
#ifndef BLENDSYNC_POSE_H
#define BLENDSYNC_POSE_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_pose_input {
    const bsync_trs* local;
    fix16_t weight;                /* <= 64.0 */
    const fix16_t* joint_weights;  /* NULL or joint_count in [0, 1] */
} bsync_pose_input;

BSYNC_API bsync_result bsync_pose_blend(const bsync_trs* rest, uint32_t joint_count, const bsync_pose_input* inputs,
                              uint32_t input_count, bsync_trs* out_local);

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
