/* blendsync/sample.h — the local pose of a clip at a time.
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
 * Time policy (seconds, fix16):
 *   BSYNC_LOOP_CLAMP: t is clamped to [0, duration]. t = duration (and beyond) gives the last state.
 *   BSYNC_LOOP_WRAP:  t is wrapped into [0, duration) by an exact integer modulo (negative times
 *                     wrap from the end); so t = duration samples the same pose as t = 0.
 *                     A zero-length clip always samples t = 0.
 * Within a track: before the first key -> the first key's value; after the last key -> the last
 * key's value; exactly at a key -> that key's value, bit for bit; between keys k and k+1 ->
 *   alpha = (t - t_k) / (t_k+1 - t_k)  (bsync_fx_div, so in [0, 1]),
 *   translation/scale: bsync_vec3_lerp(v_k, v_k+1, alpha); rotation: bsync_quat_nlerp(q_k, q_k+1, alpha).
 * A one-key track is constant. Joints without a track of a kind take that component from the rest
 * pose given to bsync_clip_sample.
 *
 * The cursor only makes the key search O(1) for forward (and slowly backward) playback: it remembers
 * the last key index of each track. Its content depends on history, so results never depend on it:
 * sampling with any cursor, a fresh cursor or none (NULL, a binary search per track) gives the same
 * bits (cached indices are range-checked, so even a corrupted cursor cannot change a result). Never
 * checksum a cursor. A cursor is tied to the clip's content (a fingerprint taken at build), so it
 * also fits a memcpy'd copy of its clip.
 * When every track of the clip has the same key times (baked clips, BVH, the procedural character),
 * the cursor notes it at init, and sampling with it searches the keys once per call instead of once
 * per track, with the same bits (bsync_sample_cursor_shares_times tells; a corrupted cursor header
 * is BSYNC_MISMATCH).
 *
 * Does not: allocate, keep globals, or print.
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

typedef struct bsync_sample_cursor bsync_sample_cursor; /* opaque, caller memory */

/* Bytes a cursor for this clip needs (8-byte aligned memory). */
BSYNC_API size_t bsync_sample_cursor_memory_size(const bsync_clip* clip);
/* BSYNC_INVALID_ARGUMENT for NULL or misaligned arguments, BSYNC_BUFFER_TOO_SMALL if size is short. */
BSYNC_API bsync_result bsync_sample_cursor_init(void* mem, size_t size, const bsync_clip* clip, bsync_sample_cursor** out);
BSYNC_API void bsync_sample_cursor_reset(bsync_sample_cursor* cursor);
/* 1 if the cursor's clip has at least one track and every track has the same key times (the one-search
 * path), else 0 (also for NULL). */
BSYNC_API int bsync_sample_cursor_shares_times(const bsync_sample_cursor* cursor);

/* Sample `clip` at `time` into out_local[0 .. joint_count). `rest` is the skeleton's rest pose
 * (joint_count entries). cursor may be NULL; a cursor made for another clip -> BSYNC_MISMATCH.
 * joint_count must equal bsync_clip_joint_count(clip), else BSYNC_MISMATCH. NULL clip, rest or
 * out_local, or a mode other than the two -> BSYNC_INVALID_ARGUMENT. Writes nothing on failure. */
BSYNC_API bsync_result bsync_clip_sample(const bsync_clip* clip, fix16_t time, bsync_loop_mode mode,
                               const bsync_trs* rest, uint32_t joint_count,
                               bsync_sample_cursor* cursor, bsync_trs* out_local);

/* Plans. Key-reduced clips (ozz's runtime keys, most exported clips) hold most tracks constant: one key,
 * or two equal keys. A plan, made once per (clip, rest pose) in caller memory and then shared read-only
 * by any number of characters and threads, holds the rest pose with every constant track applied and
 * the list of the other tracks; sampling through it copies that pose and samples only the listed
 * tracks. A rotation track whose two equal keys q are not a normalisation fixed point (normalize(q) !=
 * q, only in hand-made blocks: the builder normalises keys) stays listed, as its value depends on the
 * time. The result is bsync_clip_sample(clip, time, mode, rest, ...)'s, bit for bit, for the rest pose
 * the plan was made with (tests/unit/test_sample_rule.c compares both with sample.h's rule).
 * memory_size: bytes for this clip's plan (8-byte aligned memory), 0 for NULL.
 * init: BSYNC_INVALID_ARGUMENT for NULL or misaligned arguments or a rest pose inside `mem`,
 *   BSYNC_MISMATCH if joint_count != bsync_clip_joint_count(clip), BSYNC_BUFFER_TOO_SMALL; the plan
 *   copies what it needs (neither rest nor the clip's block is referenced), so it fits a memcpy'd clip.
 * validate: BSYNC_OK if the plan was made for this clip's content and a rest pose with these values,
 *   BSYNC_MISMATCH if not (or the plan is not one), BSYNC_INVALID_ARGUMENT for NULL arguments.
 * sample_planned: BSYNC_INVALID_ARGUMENT for NULL arguments, a bad mode or an output overlapping the
 *   plan; BSYNC_MISMATCH for a plan or cursor made for another clip (the plan's rest pose is not
 *   re-checked per call: bsync_sample_plan_validate does that). Writes nothing on failure. */
typedef struct bsync_sample_plan bsync_sample_plan; /* opaque, caller memory */

BSYNC_API size_t bsync_sample_plan_memory_size(const bsync_clip* clip);
BSYNC_API bsync_result bsync_sample_plan_init(void* mem, size_t size, const bsync_clip* clip, const bsync_trs* rest,
                                              uint32_t joint_count, bsync_sample_plan** out);
BSYNC_API bsync_result bsync_sample_plan_validate(const bsync_sample_plan* plan, const bsync_clip* clip,
                                                  const bsync_trs* rest, uint32_t joint_count);
BSYNC_API bsync_result bsync_clip_sample_planned(const bsync_sample_plan* plan, const bsync_clip* clip, fix16_t time,
                                                 bsync_loop_mode mode, bsync_sample_cursor* cursor,
                                                 bsync_trs* out_local);

/* The lerp samplers (pose rule 2, docs/instance.md "Pose rules"): bsync_clip_sample and
 * bsync_clip_sample_planned with the same arguments, checks and bits, except that a rotation between
 * two keys is bsync_quat_nlerp's value before its normalisation: the second key negated into the
 * first one's hemisphere (bsync_quat_nlerp's rule), then the four components lerped (bsync_fx_lerp).
 * At a key, outside the keys and on a one-key track a rotation is the key, as before; two equal keys
 * give that key at every time (the lerp of equal components is exact). So the result of the normalising
 * sampler is the lerp sampler's with bsync_quat_normalize applied to every rotation that lies strictly
 * between two keys. Not unit rotations (their length is about cos(angle / 2) of the interval's angle):
 * the input of bsync_pose_blend_lerped, which normalises every blended rotation once. */
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
