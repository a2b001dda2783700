/* blendsync/time.h — integer playback time: exact clip positions, no drift.
 *
 * Index
 *   bsync_clip_time, bsync_time_start     a position: cycles + 32-bit phase + carry
 *   bsync_time_step, bsync_time_step_init what one tick adds
 *   bsync_time_advance, bsync_time_advance_n
 *   bsync_time_seconds, bsync_time_normalized, bsync_time_ticks_to_seconds
 *
 * design: docs/time.md
 */
#ifndef BLENDSYNC_TIME_H
#define BLENDSYNC_TIME_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/sample.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_clip_time {
    int64_t cycles;
    uint32_t phase;  /* 2^-32 cycle */
    uint32_t pad_;
    uint64_t carry;  /* < den */
} bsync_clip_time;

typedef struct bsync_time_step {
    uint64_t whole;
    uint64_t rem;    /* < den */
    uint64_t den;    /* tick_rate * duration_raw */
    int negative;
} bsync_time_step;

static inline bsync_clip_time bsync_time_start(void) {
    bsync_clip_time t = {0, 0, 0, 0};
    return t;
}

/* BSYNC_BAD_TICK_RATE (1..1000), BSYNC_BAD_DURATION (> 0), BSYNC_INVALID_ARGUMENT. */
BSYNC_API bsync_result bsync_time_step_init(fix16_t duration, fix16_t speed, uint32_t tick_rate, bsync_time_step* out);
BSYNC_API void bsync_time_advance(bsync_clip_time* time, const bsync_time_step* step);
BSYNC_API void bsync_time_advance_n(bsync_clip_time* time, const bsync_time_step* step, uint64_t n);

/* WRAP: in [0, duration); CLAMP: duration after the end, 0 before the start. */
BSYNC_API fix16_t bsync_time_seconds(const bsync_clip_time* time, fix16_t duration, bsync_loop_mode mode);
static inline fix16_t bsync_time_normalized(const bsync_clip_time* time) { return (fix16_t)(time->phase >> 16); }
/* Saturating; tick_rate 0 gives 0. */
BSYNC_API fix16_t bsync_time_ticks_to_seconds(int64_t ticks, uint32_t tick_rate);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_TIME_H */
