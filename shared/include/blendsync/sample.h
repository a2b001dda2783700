/* blendsync/sample.h — the local pose of a clip at a time (no allocation). Cursors and plans only
 * make it faster: every path gives the same bits.
 *
 * Index
 *   bsync_loop_mode                         wrap or clamp, always explicit
 *   bsync_sample_cursor_memory_size / _init per-instance cursor in caller memory
 *   bsync_sample_cursor_reset               forget the history (same results, slower next call)
 *   bsync_sample_cursor_shares_times        does this cursor's clip have one key-time grid?
 *   bsync_clip_sample                       sample every joint into a local pose
 *   bsync_sample_plan_memory_size / _init   a clip's constant tracks baked over a rest pose (shared)
 *   bsync_sample_plan_validate              was this plan made for this clip and rest pose?
 *   bsync_clip_sample_planned               bsync_clip_sample through a plan: the same bits, faster
 *   bsync_clip_sample_lerp / _planned_lerp  the same without normalising the lerped rotations (rule 2)
 *
 * design: docs/sample.md (the rule, cursors, plans, the lerp samplers)
 */
#ifndef BLENDSYNC_SAMPLE_H
#define BLENDSYNC_SAMPLE_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bsync_loop_mode { BSYNC_LOOP_CLAMP = 0, BSYNC_LOOP_WRAP = 1 } bsync_loop_mode;

typedef struct bsync_sample_cursor bsync_sample_cursor; /* caller memory */

/* For 8-byte aligned memory. */
BSYNC_API size_t bsync_sample_cursor_memory_size(const bsync_clip* clip);
/* BSYNC_INVALID_ARGUMENT, BSYNC_BUFFER_TOO_SMALL. */
BSYNC_API bsync_result bsync_sample_cursor_init(void* mem, size_t size, const bsync_clip* clip, bsync_sample_cursor** out);
BSYNC_API void bsync_sample_cursor_reset(bsync_sample_cursor* cursor);
/* 1 if every track has the same key times. */
BSYNC_API int bsync_sample_cursor_shares_times(const bsync_sample_cursor* cursor);

/* rest: joint_count entries; cursor may be NULL. BSYNC_MISMATCH, BSYNC_INVALID_ARGUMENT; writes
 * nothing on failure. */
BSYNC_API bsync_result bsync_clip_sample(const bsync_clip* clip, fix16_t time, bsync_loop_mode mode,
                               const bsync_trs* rest, uint32_t joint_count,
                               bsync_sample_cursor* cursor, bsync_trs* out_local);

/* Plans: a clip's constant tracks baked over a rest pose, shared read-only; the same bits. */
typedef struct bsync_sample_plan bsync_sample_plan; /* caller memory */

BSYNC_API size_t bsync_sample_plan_memory_size(const bsync_clip* clip);
BSYNC_API bsync_result bsync_sample_plan_init(void* mem, size_t size, const bsync_clip* clip, const bsync_trs* rest,
                                              uint32_t joint_count, bsync_sample_plan** out);
BSYNC_API bsync_result bsync_sample_plan_validate(const bsync_sample_plan* plan, const bsync_clip* clip,
                                                  const bsync_trs* rest, uint32_t joint_count);
BSYNC_API bsync_result bsync_clip_sample_planned(const bsync_sample_plan* plan, const bsync_clip* clip, fix16_t time,
                                                 bsync_loop_mode mode, bsync_sample_cursor* cursor,
                                                 bsync_trs* out_local);

/* Pose rule 2: rotations between keys are lerped, not normalised. */
BSYNC_API bsync_result bsync_clip_sample_lerp(const bsync_clip* clip, fix16_t time, bsync_loop_mode mode,
                                              const bsync_trs* rest, uint32_t joint_count,
                                              bsync_sample_cursor* cursor, bsync_trs* out_local);
BSYNC_API bsync_result bsync_clip_sample_planned_lerp(const bsync_sample_plan* plan, const bsync_clip* clip,
                                                      fix16_t time, bsync_loop_mode mode,
                                                      bsync_sample_cursor* cursor, bsync_trs* out_local);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SAMPLE_H */
