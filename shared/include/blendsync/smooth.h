/* blendsync/smooth.h — Unity's Mathf.SmoothDamp and Vector2.SmoothDamp in fixed point.
 *
 * Index
 *   bsync_smooth              one filter's constants (plain data)
 *   bsync_smooth_state, bsync_smooth_state_make   one component's state
 *   bsync_smooth_init         make the constants
 *   bsync_smooth_step         one tick of the scalar filter
 *   bsync_smooth_step_2d        one tick of the 2D filter
 *   bsync_smooth_value, bsync_smooth_velocity   the state rounded to fix16
 *
 * dt = 1 / tick_rate exactly; NULL arguments: a step returns 0.
 * design: docs/parameters.md#smoothdamp
 */
#ifndef BLENDSYNC_SMOOTH_H
#define BLENDSYNC_SMOOTH_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_smooth {
    int64_t c1, c2, c3, c4;  /* Q32 */
    int64_t max_change;      /* Q32 value units; -1 = unlimited */
    uint32_t tick_rate;      /* 0 = identity */
    uint32_t pad_;
} bsync_smooth;

/* Q32 value units (raw * 2^16); velocity in units/s. */
typedef struct bsync_smooth_state {
    int64_t value;
    int64_t velocity;
} bsync_smooth_state;

static inline bsync_smooth_state bsync_smooth_state_make(fix16_t value, fix16_t velocity) {
    bsync_smooth_state s;
    s.value = (int64_t)value * 65536;
    s.velocity = (int64_t)velocity * 65536;
    return s;
}
static inline fix16_t bsync_smooth_round_(int64_t q) {
    if (q > (int64_t)BSYNC_FX_MAX * 65536) return BSYNC_FX_MAX;
    if (q < (int64_t)BSYNC_FX_MIN * 65536) return BSYNC_FX_MIN;
    return (fix16_t)bsync_i64_asr(q + 0x8000, 16);
}
static inline fix16_t bsync_smooth_value(const bsync_smooth_state* s) { return bsync_smooth_round_(s->value); }
static inline fix16_t bsync_smooth_velocity(const bsync_smooth_state* s) { return bsync_smooth_round_(s->velocity); }

/* BSYNC_INVALID_ARGUMENT, BSYNC_BAD_TICK_RATE (> 1000); *out written only on success. */
BSYNC_API bsync_result bsync_smooth_init(bsync_smooth* out, fix16_t smooth_time, fix16_t max_speed, uint32_t tick_rate);

/* Returns 1 if bsync_smooth_value changed. */
BSYNC_API int bsync_smooth_step(const bsync_smooth* s, bsync_smooth_state* state, fix16_t target);

/* Clamps the change's length. Returns 1 if either rounded component changed. */
BSYNC_API int bsync_smooth_step_2d(const bsync_smooth* s, bsync_smooth_state state[2], const fix16_t target[2]);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SMOOTH_H */
