/* blendsync/param.h — the filter chain of one blend-graph parameter (design: docs/parameters.md).
 *
 * Index
 *   bsync_param_filter_desc     what to filter (zero-initialised = no filters: value = target)
 *   bsync_param_filter          the prepared filter (plain data; bsync_param_filter_init)
 *   bsync_param_state           one instance's filter state (plain data)
 *   bsync_param_filter_init     validate a desc, precompute the SmoothDamp constants
 *   bsync_param_state_init      start a state at rest on a target
 *   bsync_param_filter_step     one tick of a scalar parameter
 *   bsync_param_filter_step2    one tick of a 2D pair
 *   bsync_param_shape / _shape2 the dead zone and curve alone (no state)
 *   bsync_param_checksum_feed   canonical bytes of a state, for the layered checksums
 *
 * Each tick the target (from the tick's input) goes through, in this order, each stage optional:
 *   1. dead zone (zone z >= 0, full-scale magnitude r > z; r = 0 in the desc means 1.0):
 *        scalar:  |x| <= z -> 0;  else sign(x) · (|x| - z) · r / (r - z)
 *        pair:    |v| <= z -> (0, 0);  else v · ((|v| - z) · r / (r - z)) / |v|   (radial)
 *      so the output is continuous at the edge (|x| = z gives 0, slope r/(r - z) beyond it), and the
 *      full-scale magnitude maps to itself (|x| = r -> r). Beyond r it keeps the same slope (no
 *      clamp). The zone is absolute, in the parameter's own units. |v| is the exact Euclidean length
 *      (64-bit sum of squares, about 30 significant bits in the root); each output component is
 *      within about one raw step of the exact value. z = 0 means no dead zone.
 *   2. response curve (blendsync/curve.h, Unity AnimationCurve semantics): scalar y = curve(x);
 *      pair: applied to the length, direction kept: v · curve(|v|) / |v| ((0, 0) stays (0, 0)).
 *   3. SmoothDamp (blendsync/smooth.h; Mathf.SmoothDamp for a scalar, Vector2.SmoothDamp for a pair)
 *      with smooth_time > 0 and max_speed (<= 0: unlimited), dt = 1/tick_rate, including its rest
 *      rule, so a filter reaches the shaped target exactly and then reports unchanged. Without it
 *      the value is the shaped target itself.
 * All fixed point, integer only; any fix16 input is free of undefined behaviour (saturation). An
 * input of INT32_MIN is taken as BSYNC_FX_MIN, so the filters never output INT32_MIN.
 *
 * The prepared filter holds a pointer to the curve (immutable, shared; it must outlive the filter).
 * The state holds no pointers: it can be copied, saved and checksummed.
 *
 * Does not: allocate, keep globals, use floating point.
 */
#ifndef BLENDSYNC_PARAM_H
#define BLENDSYNC_PARAM_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/checksum.h"
#include "blendsync/curve.h"
#include "blendsync/smooth.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_param_filter_desc {
    fix16_t dead_zone;         /* >= 0; 0 = no dead zone */
    fix16_t dead_zone_range;   /* full-scale magnitude, > dead_zone; 0 = 1.0 */
    const bsync_curve* curve;  /* NULL = no response curve */
    fix16_t smooth_time;       /* seconds; > 0 enables SmoothDamp, <= 0 = none */
    fix16_t max_speed;         /* units per second; <= 0 = unlimited */
    uint32_t pair;             /* 0 = scalar, 1 = 2D pair (radial dead zone, vector SmoothDamp) */
} bsync_param_filter_desc;

typedef struct bsync_param_filter {
    bsync_smooth smooth;       /* constants (unused unless has_smooth) */
    const bsync_curve* curve;
    fix16_t dead_zone, dead_zone_range;
    uint32_t has_smooth, pair;
} bsync_param_filter;

/* Filter state of one parameter of one instance. Plain data without padding or pointers (48 bytes);
 * component [1] is 0 for a scalar. */
typedef struct bsync_param_state {
    fix16_t value[2];               /* the filtered value used for blending */
    uint32_t settled;               /* 1 when value == shaped target and velocity == 0 after the last step */
    uint32_t pad_;                  /* always 0 */
    bsync_smooth_state smooth[2];   /* SmoothDamp value and velocity (Q32; all 0 without SmoothDamp) */
} bsync_param_state;

/* BSYNC_INVALID_ARGUMENT: NULL out/desc, dead_zone < 0, range (after 0 -> 1.0) <= dead_zone, pair
 * not 0/1. BSYNC_BAD_TICK_RATE: smooth_time > 0 and tick_rate outside 1..1000. *out is written only
 * on success. */
BSYNC_API bsync_result bsync_param_filter_init(bsync_param_filter* out, const bsync_param_filter_desc* desc, uint32_t tick_rate);

/* Start at rest on the shaped target (x, y) (y ignored for a scalar): value = shape(target),
 * velocity 0, settled 1 (the smooth state holds the value too, or 0 without SmoothDamp). NULL
 * arguments: nothing happens. */
BSYNC_API void bsync_param_state_init(const bsync_param_filter* filter, bsync_param_state* state, fix16_t x, fix16_t y);

/* One tick toward `target`. *out_changed (when not NULL) = 1 if the filtered value changed, else 0.
 * BSYNC_INVALID_ARGUMENT for a NULL filter or state, or a pair filter (use _step2). */
BSYNC_API bsync_result bsync_param_filter_step(const bsync_param_filter* filter, bsync_param_state* state, fix16_t target,
                                     int* out_changed);
/* One tick of a pair toward (x, y). BSYNC_INVALID_ARGUMENT for NULL or a scalar filter. */
BSYNC_API bsync_result bsync_param_filter_step2(const bsync_param_filter* filter, bsync_param_state* state, fix16_t x,
                                      fix16_t y, int* out_changed);

/* Stages 1-2 only (pure). For a NULL filter the input is returned unchanged (shape2 still maps
 * INT32_MIN to BSYNC_FX_MIN). */
BSYNC_API fix16_t bsync_param_shape(const bsync_param_filter* filter, fix16_t x);
BSYNC_API void bsync_param_shape2(const bsync_param_filter* filter, fix16_t x, fix16_t y, fix16_t out[2]);

/* Feed the state canonically: fx value[0], fx value[1], u32 settled, then i64 smooth[0].value,
 * i64 smooth[0].velocity, i64 smooth[1].value, i64 smooth[1].velocity. */
BSYNC_API void bsync_param_checksum_feed(const bsync_param_state* state, bsync_checksum_state* checksum);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_PARAM_H */
