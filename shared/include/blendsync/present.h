/* blendsync/present.h — presentation poses between ticks: what to draw at the display's rate from a
 * fixed-rate simulation, without touching the simulated state (docs/presentation.md: the design).
 *
 * Index
 *   BSYNC_PRESENT_ALPHA_MAX               the largest alpha (extrapolation bound): 3.0
 *   bsync_present_scratch_size            caller scratch for one instance's presentation pose
 *   bsync_present_pose                    the pose at tick + alpha (local, model, root motion)
 *   bsync_present_root_motion             the root motion from the tick to tick + alpha
 *   bsync_present_match_scratch_size / _joint_count / bsync_present_match   every character of a match
 *   bsync_present_trs_f, bsync_present_to_float   the same poses as floats, for engines
 *
 * Definition. Let the instance be after tick t (bsync_instance_tick_count = t): its clocks C, its
 * phase steps s (the steps of the tick that led to t, which is also what the next tick adds when the
 * node weights stay the same), its blend state (filtered parameters, node / leaf weights, switch
 * stacks, running inertialization offsets) and its root-motion delta D (docs/instance.md "Root motion"). With
 * alpha a fix16 in [0, BSYNC_PRESENT_ALPHA_MAX], written a = n + f / 65536 (n = a >> 16 whole ticks,
 * 0 <= f < 65536), the presentation pose at t + alpha is exactly the pose bsync_instance_pose gives for
 * an instance equal to this one except that every clock (every node's phase clock and every motion
 * clock of a BSYNC_SYNC_NONE node) is advanced by
 *     n whole steps (bsync_time_advance_n, bit-identical to n ticks of that clock), then
 *     floor(f / 65536 of one step), exact to 1/den of a phase unit (the step's own rational
 *     whole + rem / den, times f, floored: no floating point, no drift),
 * and every switch cross-fade is advanced by alpha too: a fade is time, not input (it advances one tick
 * per tick whatever the inputs), so the newest entry's weight is round((done * 65536 + alpha) / fade)
 * (done * 65536 + alpha capped at fade * 65536) instead of round(done * 65536 / fade), the older entries
 * scaled by 1 - that by the rule of docs/instance.md "Switches", and the switch nodes' child weights and the
 * flattened contributions recomputed from them (the clocks have already moved with the tick's steps).
 * Every other part of the blend state is the tick's: filtered parameters and the weights they give,
 * inertialization offsets (held for the tick). The same sampling, blending, layer, root-motion pose and
 * inertialization rules apply (they are run, on a copy in the caller's scratch).
 *   alpha = 0: the pose after tick t, bit for bit (the copy is the instance).
 *   alpha = 1: the clocks are exactly those tick t + 1 produces when its node weights do not change, so
 *     the presentation pose at 1 equals the pose after tick t + 1 bit for bit whenever tick t + 1
 *     changes nothing but the clocks: the same targets with every filter at rest, no switch fading or
 *     triggered and no inertialization running. Otherwise it is the tick t pose carried one tick
 *     forward at tick t's parameter weights: those are held for the tick (they only exist at ticks; the
 *     next tick's are unknown until its frame is confirmed), and the next tick's pose differs from it
 *     by that tick's weight change (and a new trigger's first fade step) only.
 *   alpha > 1: extrapolation (a late frame): the same formula continues the last tick's clocks at the
 *     same steps, up to BSYNC_PRESENT_ALPHA_MAX (two ticks late); larger values are clamped (the pose
 *     holds). When the late frame arrives, presenting tick t + 1 at alpha - 1 shows the same clocks
 *     again (same steps) at the new weights: no jump in time (client.h: bsync_client_present_alpha).
 * Root motion at tick + alpha (EXTRACT graphs; zero / identity otherwise and at tick 0): the fraction
 * alpha of the last delta D = (T, R), in the character's frame at tick t:
 *     translation bsync_fx_mul(alpha, T) for each component (so alpha = 1 gives T exactly, linear
 *     beyond 1); rotation R^n * nlerp(identity, R, f) (bsync_quat_nlerp; f = 0 adds nothing, so alpha = 1
 *     gives R exactly and alpha = 0 identity exactly).
 * A game places the rendered character at world(t) * that (the same composition as its per-tick
 * world(t + 1) = world(t) * D(t + 1)), so alpha = 1 lands on world(t + 1) whenever D(t + 1) = D(t).
 *
 * Nothing in the instance changes: it is const, the scratch receives a copy (bsync_instance_memory_size
 * bytes, 8-byte aligned, not overlapping the instance; its sample cursors and pose buffers are used
 * there), so no checksum, snapshot or later tick can tell a presentation pose was computed. After a
 * successful call the scratch holds that copy, a valid instance at the presented clocks (read it with
 * the instance.h getters, e.g. bsync_instance_node_time; ticking it is the caller's business). The
 * scratch's content on entry is only a cache: when it already holds a copy of an instance of the same
 * graph (the previous call's), its own sample cursors are kept instead of the instance's, so they
 * follow the presented times (a cursor never changes a result, sample.h; a cold or garbage scratch
 * gives the same bits, only the first key search is slower). One scratch serves any number of
 * instances and graphs (bsync_present_match reuses one). No
 * allocation, no globals, integer arithmetic only (the float conversion is a separate call, at the edge:
 * never feed a float pose back into the simulation or a checksum).
 *
 * Cost: a copy of the instance (a few KB, without the cursors) plus one bsync_instance_pose: about
 * the tick pose's (docs/benchmarks.md, bench_present). */
#ifndef BLENDSYNC_PRESENT_H
#define BLENDSYNC_PRESENT_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/instance.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_PRESENT_ALPHA_MAX ((fix16_t)(3 * 65536)) /* extrapolate at most two ticks past the next */

/* Bytes of scratch bsync_present_pose needs for an instance of this graph (0 for NULL):
 * bsync_instance_memory_size(graph). */
BSYNC_API size_t bsync_present_scratch_size(const bsync_graph* graph);

/* The presentation pose at tick + alpha (definition above). alpha < 0 -> BSYNC_INVALID_ARGUMENT; alpha
 * > BSYNC_PRESENT_ALPHA_MAX is clamped to it. out_local: joint_count transforms (required); out_model:
 * NULL or joint_count; out_root: NULL or the root motion at alpha (bsync_present_root_motion).
 * BSYNC_INVALID_ARGUMENT for an invalid instance, NULL out_local, NULL or misaligned scratch, or scratch
 * overlapping the instance; BSYNC_BUFFER_TOO_SMALL for scratch_size < bsync_present_scratch_size;
 * BSYNC_MISMATCH for a graph without a skeleton. The instance is never written. */
BSYNC_API bsync_result bsync_present_pose(const bsync_instance* inst, fix16_t alpha, void* scratch,
                                          size_t scratch_size, bsync_trs* out_local, bsync_trs* out_model,
                                          bsync_root_motion* out_root);

/* The root motion from tick t to t + alpha (definition above; alpha clamped as above). No scratch.
 * BSYNC_INVALID_ARGUMENT for an invalid instance, NULL out or alpha < 0. */
BSYNC_API bsync_result bsync_present_root_motion(const bsync_instance* inst, fix16_t alpha,
                                                 bsync_root_motion* out);

/* A whole match: every character at the match's tick + alpha, characters in index order, their poses
 * one after another (character c's joints start at the sum of the joint counts of characters < c).
 * match_scratch_size: the largest character's bsync_present_scratch_size (one scratch is reused);
 * match_joint_count: the sum of the characters' joint counts (0 for NULL). bsync_present_match:
 * out_local (match_joint_count transforms, required), out_model (NULL or the same count), out_root
 * (NULL or character_count). Errors as bsync_present_pose (the first failing character's; characters
 * before it are written). */
BSYNC_API size_t bsync_present_match_scratch_size(const bsync_match* match);
BSYNC_API uint32_t bsync_present_match_joint_count(const bsync_match* match);
BSYNC_API bsync_result bsync_present_match(const bsync_match* match, fix16_t alpha, void* scratch,
                                           size_t scratch_size, bsync_trs* out_local, bsync_trs* out_model,
                                           bsync_root_motion* out_root);

/* ---- floats, for engines (display only: raw / 65536 as float, nearest; nothing else) */
typedef struct bsync_present_trs_f {
    float t[3]; /* translation x, y, z (metres) */
    float r[4]; /* rotation x, y, z, w (unit) */
    float s[3]; /* scale x, y, z */
} bsync_present_trs_f;
/* in[0 .. count) -> out[0 .. count). NULL in or out with count > 0: nothing written. */
BSYNC_API void bsync_present_to_float(const bsync_trs* in, uint32_t count, bsync_present_trs_f* out);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_PRESENT_H */
