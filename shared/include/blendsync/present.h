/* blendsync/present.h — the pose at tick + alpha from a const instance, in caller scratch.
 *
 * Index
 *   BSYNC_PRESENT_ALPHA_MAX          3.0: extrapolate two ticks at most
 *   bsync_present_scratch_size       scratch for one instance
 *   bsync_present_pose               local, model, root motion at tick + alpha
 *   bsync_present_root_motion        root motion alone
 *   bsync_present_match_scratch_size / _joint_count / bsync_present_match
 *   bsync_present_trs_f, bsync_present_to_float   floats (display only)
 *
 * design: docs/presentation.md
 */
#ifndef BLENDSYNC_PRESENT_H
#define BLENDSYNC_PRESENT_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/instance.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_PRESENT_ALPHA_MAX ((fix16_t)(3 * 65536))

/* bsync_instance_memory_size(graph). */
BSYNC_API size_t bsync_present_scratch_size(const bsync_graph* graph);

/* alpha clamped to ALPHA_MAX; out_model, out_root may be NULL. BSYNC_INVALID_ARGUMENT,
 * BSYNC_BUFFER_TOO_SMALL, BSYNC_MISMATCH. */
BSYNC_API bsync_result bsync_present_pose(const bsync_instance* inst, fix16_t alpha, void* scratch,
                                          size_t scratch_size, bsync_trs* out_local, bsync_trs* out_model,
                                          bsync_root_motion* out_root);

/* No scratch. BSYNC_INVALID_ARGUMENT. */
BSYNC_API bsync_result bsync_present_root_motion(const bsync_instance* inst, fix16_t alpha,
                                                 bsync_root_motion* out);

/* Characters' poses one after another; errors as bsync_present_pose (the first failing one's). */
BSYNC_API size_t bsync_present_match_scratch_size(const bsync_match* match);
BSYNC_API uint32_t bsync_present_match_joint_count(const bsync_match* match);
BSYNC_API bsync_result bsync_present_match(const bsync_match* match, fix16_t alpha, void* scratch,
                                           size_t scratch_size, bsync_trs* out_local, bsync_trs* out_model,
                                           bsync_root_motion* out_root);

/* ---- floats, for engines (display only) */
typedef struct bsync_present_trs_f {
    float t[3];
    float r[4]; /* x, y, z, w */
    float s[3];
} bsync_present_trs_f;
BSYNC_API void bsync_present_to_float(const bsync_trs* in, uint32_t count, bsync_present_trs_f* out);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_PRESENT_H */
