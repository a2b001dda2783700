/* blendsync/smooth.h — Unity's Mathf.SmoothDamp and Vector2.SmoothDamp in fixed point.
 *
 * Index
 *   bsync_smooth              the per-filter constants (plain data, made once by bsync_smooth_init)
 *   bsync_smooth_init         smooth_time, max_speed and the tick rate -> constants
 *   bsync_smooth_step         one tick of the scalar filter (Mathf.SmoothDamp)
 *   bsync_smooth_step2        one tick of the 2D filter (Vector2.SmoothDamp)
 *
 * Unity's step (UnityCsReference Mathf.cs; the reference text blend-spec.md §5), with
 * x = ω·dt, ω = 2 / smooth_time, e = 1 / (1 + x + 0.48x² + 0.235x³), change = current - target
 * (after the max-speed clamp), is algebraically
 *     output   = target + change·c1 + velocity·c2        c1 = (1 + x)·e    c2 = dt·e
 *     velocity = velocity·c3 - change·c4                 c3 = (1 - x)·e    c4 = ω·x·e = x²·e/dt
 * followed by Unity's overshoot guard. c1..c4 depend only on (smooth_time, tick rate), so
 * bsync_smooth_init computes them once, in Q32 (2^-32 units) from exact 64/128-bit integer
 * arithmetic (docs/parameters.md gives the formulation and the measured errors); a step is then four
 * exact 64x64-bit products on the Q32 state (bsync_smooth_state), each rounded to Q32 (to nearest).
 *
 * Time step: dt = 1 / tick_rate exactly (the graph's fixed tick; no rounded fix16 dt).
 *   tick_rate 1..1000 Hz; tick_rate 0 means dt = 0 and makes every step the identity (value and
 *   velocity unchanged, reports "unchanged"): Unity >= 6000.5.0a3 behaviour; older Unity returned a
 *   NaN velocity there. Above 1000: BSYNC_BAD_TICK_RATE.
 *
 * smooth_time bound (Unity's own rule, which also bounds the arithmetic): smooth_time is raised to
 *   0.0001 s when below it (any value <= 6 raw, including 0 and negatives, is EXACTLY 0.0001 s, i.e.
 *   ω = 20000/s; raw 7 = 0.000107 s is the smallest other value). Hence x = ω·dt <= 20000 for every
 *   accepted input, x³ < 2^43, and 1 + x + 0.48x² + 0.235x³ < 2^43: it is computed in Q32 when
 *   x < 256 and in Q16 above (both < 2^61), so no input can overflow it.
 *
 * max_speed: fix16 units per second; <= 0 means unlimited (Unity's default +Infinity). The clamp is
 *   Unity's: |change| <= max_speed · smooth_time (the raised smooth time), component-wise length for
 *   the 2D filter.
 *
 * Rest rule (ours, so a filter settles and a "changed" flag can rest): after Unity's step, when the
 *   output is within one raw step of the target (each component) and the new velocity would move the
 *   value by at most one raw step per tick (|velocity| <= tick_rate raw steps per second, each
 *   component), the output snaps to the target exactly and the velocity to 0. A filter at rest (value == target,
 *   velocity == 0) stays there and reports unchanged.
 *
 * Range: targets are any fix16 (INT32_MIN counts as -32768), states any int64 (clamped to the fix16
 *   range * 2^16 on entry); change = current - target is exact in int64; every product is exact
 *   (128-bit) and saturates at 2^61 before it is summed; the new value is clamped to the fix16 range
 *   * 2^16 and the velocity to +-2^58. No input causes undefined behaviour.
 *
 * Does not: allocate, keep globals, use floating point. NULL pointers make a step return 0 and do
 * nothing.
 */
#ifndef BLENDSYNC_SMOOTH_H
#define BLENDSYNC_SMOOTH_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The constants of one filter. Plain data, no padding; compare with memcmp. */
typedef struct bsync_smooth {
    int64_t c1, c2, c3, c4;  /* Q32, see above (c3 may be negative) */
    int64_t max_change;      /* Q32 value units (raw * 2^16, exact: max_speed_raw * smooth_time_raw),
                                at most 2^50; -1 = unlimited */
    uint32_t tick_rate;      /* 0 = zero time step (identity) */
    uint32_t pad_;           /* always 0 */
} bsync_smooth;

/* The state of one component, in Q32 value units (value * 2^32 = raw * 2^16), so that motion below
 * one raw step per tick accumulates instead of being rounded away (with a fix16 state a slow filter
 * stalls a few hundred raw steps short of its target). The filtered value is its rounding,
 * bsync_smooth_value. value stays within the fix16 range * 2^16; velocity (units/s) within +-2^58
 * (2^26 units/s, so that a full-range jump at a tiny smooth time is not slowed by the fix16 range);
 * bsync_smooth_velocity saturates it to fix16 for display. */
typedef struct bsync_smooth_state {
    int64_t value;
    int64_t velocity;
} bsync_smooth_state;

/* A state at `value` moving at `velocity` (units/s). */
static inline bsync_smooth_state bsync_smooth_state_make(fix16_t value, fix16_t velocity) {
    bsync_smooth_state s;
    s.value = (int64_t)value * 65536;
    s.velocity = (int64_t)velocity * 65536;
    return s;
}
/* round(state / 2^16) to nearest (halves up), saturated to [BSYNC_FX_MIN, BSYNC_FX_MAX]. */
static inline fix16_t bsync_smooth_round_(int64_t q) {
    if (q > (int64_t)BSYNC_FX_MAX * 65536) return BSYNC_FX_MAX;
    if (q < (int64_t)BSYNC_FX_MIN * 65536) return BSYNC_FX_MIN;
    return (fix16_t)bsync_i64_asr(q + 0x8000, 16);
}
static inline fix16_t bsync_smooth_value(const bsync_smooth_state* s) { return bsync_smooth_round_(s->value); }
static inline fix16_t bsync_smooth_velocity(const bsync_smooth_state* s) { return bsync_smooth_round_(s->velocity); }

/* Compute the constants. BSYNC_INVALID_ARGUMENT for a NULL out, BSYNC_BAD_TICK_RATE for
 * tick_rate > 1000; *out is written only on success. Any smooth_time and max_speed are accepted. */
BSYNC_API bsync_result bsync_smooth_init(bsync_smooth* out, fix16_t smooth_time, fix16_t max_speed, uint32_t tick_rate);

/* One tick of Mathf.SmoothDamp toward target. Returns 1 if bsync_smooth_value changed. */
BSYNC_API int bsync_smooth_step(const bsync_smooth* s, bsync_smooth_state* state, fix16_t target);

/* One tick of Vector2.SmoothDamp on state[2] toward target[2]: the length of the change is clamped
 * (not its components) and overshoot is the exact sign of dot(target - current, output - target) > 0
 * (then output = target, velocity = 0). Returns 1 if either rounded component changed. */
BSYNC_API int bsync_smooth_step2(const bsync_smooth* s, bsync_smooth_state state[2], const fix16_t target[2]);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SMOOTH_H */
