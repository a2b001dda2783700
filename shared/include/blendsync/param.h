/* blendsync/param.h — the filter chain of one blend-graph parameter: dead zone, response curve,
 * SmoothDamp (each optional, in this order).
 *
 * Index
 *   bsync_param_filter_desc     what to filter (zero-initialised: value = target)
 *   bsync_param_filter          the prepared filter (the curve must outlive it)
 *   bsync_param_state           one instance's state (plain data, no pointers)
 *   bsync_param_filter_init     validate a desc, prepare
 *   bsync_param_state_init      start at rest on a target
 *   bsync_param_filter_step / _step_2d  one tick, scalar / pair
 *   bsync_param_shape / _shape_2d dead zone and curve only
 *   bsync_param_checksum_feed   canonical bytes of a state
 *
 * design: docs/parameters.md (formulas, errors)
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
    fix16_t dead_zone;         /* >= 0; 0 = none */
    fix16_t dead_zone_range;   /* > dead_zone; 0 = 1.0 */
    const bsync_curve* curve;  /* NULL = none */
    fix16_t smooth_time;       /* seconds; <= 0 = none */
    fix16_t max_speed;         /* <= 0 = unlimited */
    uint32_t pair;             /* 0 scalar, 1 pair */
} bsync_param_filter_desc;

typedef struct bsync_param_filter {
    bsync_smooth smooth;
    const bsync_curve* curve;
    fix16_t dead_zone, dead_zone_range;
    uint32_t has_smooth, pair;
} bsync_param_filter;

typedef struct bsync_param_state {
    fix16_t value[2];               /* the filtered value; [1] = 0 for a scalar */
    uint32_t settled;
    uint32_t pad_;
    bsync_smooth_state smooth[2];
} bsync_param_state;

/* BSYNC_INVALID_ARGUMENT, BSYNC_BAD_TICK_RATE; *out written only on success. */
BSYNC_API bsync_result bsync_param_filter_init(bsync_param_filter* out, const bsync_param_filter_desc* desc, uint32_t tick_rate);

BSYNC_API void bsync_param_state_init(const bsync_param_filter* filter, bsync_param_state* state, fix16_t x, fix16_t y);

/* *out_changed (may be NULL) = 1 if the value changed. BSYNC_INVALID_ARGUMENT (NULL, wrong kind). */
BSYNC_API bsync_result bsync_param_filter_step(const bsync_param_filter* filter, bsync_param_state* state, fix16_t target,
                                     int* out_changed);
BSYNC_API bsync_result bsync_param_filter_step_2d(const bsync_param_filter* filter, bsync_param_state* state, fix16_t x,
                                      fix16_t y, int* out_changed);

/* Pure; a NULL filter returns the input. */
BSYNC_API fix16_t bsync_param_shape(const bsync_param_filter* filter, fix16_t x);
BSYNC_API void bsync_param_shape_2d(const bsync_param_filter* filter, fix16_t x, fix16_t y, fix16_t out[2]);

BSYNC_API void bsync_param_checksum_feed(const bsync_param_state* state, bsync_checksum_state* checksum);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_PARAM_H */
