/* blendsync/time.h — integer playback time: ticks, and exact clip positions.
 *
 * Index
 *   bsync_clip_time                 a playback position: cycles + 32-bit phase + exact carry
 *   bsync_time_step                 what one tick adds to a position (from duration, speed, rate)
 *   bsync_time_step_init            make a step
 *   bsync_time_advance              add one step (one tick)
 *   bsync_time_advance_n            add n steps at once, bit-identical to n calls of advance
 *   bsync_time_seconds              the clip-local time in seconds for sampling (wrap or clamp)
 *   bsync_time_normalized           phase as fix16 in [0, 1)
 *   bsync_time_ticks_to_seconds     tick count -> fix16 seconds at a rate (rounded)
 *
 * Why: summing fix16 seconds per tick drifts (1/30 s is 2184.53 raw: the 0.53 lost per tick is 0.77 s
 * an hour) and overflows after about 9 hours. Instead a position is a whole number of cycles plus a
 * 32-bit fraction of the cycle (`phase`, wrapping by itself), and each tick adds the exact rational
 * increment
 *       2^32 * speed / (tick_rate * duration)   phase units  =  whole + rem / den
 * with den = tick_rate * duration_raw (depends on the clip and the rate only, not on the speed, so a
 * speed change never rescales the carry) and the remainder carried in `carry` (0 <= carry < den).
 * After any number of ticks the position equals the exact rational position rounded down to a phase
 * unit (2^-32 cycle): exact to one step, forever. Reverse playback (negative speed) borrows.
 *
 * Limits: tick_rate in [1, 1000] (else BSYNC_BAD_TICK_RATE); duration > 0 (else BSYNC_BAD_DURATION;
 * zero-length clips have no cycle, sample them at 0); any fix16 speed. `cycles` saturates at
 * +-(2^62) instead of overflowing (no reachable match gets there).
 *
 * Positions are only meaningful when made by these functions from bsync_time_start (carry < den,
 * |cycles| <= 2^62); anything else gives an unspecified position but never undefined behaviour.
 * NULL arguments make advance/advance_n do nothing and bsync_time_seconds return 0.
 *
 * Does not: allocate, keep globals, or use floating point.
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
    int64_t cycles;  /* whole cycles played (negative when played backward past the start) */
    uint32_t phase;  /* fraction of the current cycle, in units of 2^-32 */
    uint32_t pad_;   /* always 0; keeps the struct free of padding bytes */
    uint64_t carry;  /* remainder in units of 1/den of a phase unit, 0 <= carry < den */
} bsync_clip_time;

typedef struct bsync_time_step {
    uint64_t whole;  /* whole phase units per tick (may exceed 2^32: more than a cycle per tick) */
    uint64_t rem;    /* remainder numerator, < den */
    uint64_t den;    /* tick_rate * duration_raw */
    int negative;    /* speed < 0 */
} bsync_time_step;

/* A position at the start of the clip: all zero. */
static inline bsync_clip_time bsync_time_start(void) {
    bsync_clip_time t = {0, 0, 0, 0};
    return t;
}

/* BSYNC_BAD_TICK_RATE, then BSYNC_BAD_DURATION as above; BSYNC_INVALID_ARGUMENT for a NULL out.
 * *out is written only on success. */
BSYNC_API bsync_result bsync_time_step_init(fix16_t duration, fix16_t speed, uint32_t tick_rate, bsync_time_step* out);
BSYNC_API void bsync_time_advance(bsync_clip_time* time, const bsync_time_step* step);
/* n >= 0 ticks at once (64-bit exact); identical to calling bsync_time_advance n times. */
BSYNC_API void bsync_time_advance_n(bsync_clip_time* time, const bsync_time_step* step, uint64_t n);

/* Clip-local seconds: WRAP -> floor(phase * duration / 2^32), in [0, duration);
 * CLAMP -> duration when cycles >= 1, 0 when cycles < 0, else as WRAP. */
BSYNC_API fix16_t bsync_time_seconds(const bsync_clip_time* time, fix16_t duration, bsync_loop_mode mode);
/* phase / 2^32 as fix16 (phase >> 16), in [0, 1). */
static inline fix16_t bsync_time_normalized(const bsync_clip_time* time) { return (fix16_t)(time->phase >> 16); }
/* round(ticks / tick_rate) seconds, saturating (BSYNC_FX_MAX past 32767 s); tick_rate 0 -> 0. */
BSYNC_API fix16_t bsync_time_ticks_to_seconds(int64_t ticks, uint32_t tick_rate);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_TIME_H */
