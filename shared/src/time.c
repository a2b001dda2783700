/* time.c — exact integer playback time (see blendsync/time.h for the scheme).
 *
 * A position is P + carry/den phase units, P = cycles * 2^32 + phase. One forward tick adds
 * whole + rem/den; one backward tick subtracts it. Backward playback is forward playback of the
 * complement carry' = den - 1 - carry: "carry - rem borrows" <=> "carry' + rem >= den", and the
 * new complement is carry' + rem (- den). So n ticks in either direction move P by
 *     n * whole + floor((c + n * rem) / den)      with c = carry (forward) or carry' (backward)
 * and leave c' = (c + n * rem) mod den. bsync_time_advance_n evaluates exactly that in 128-bit
 * arithmetic built from 64-bit parts (internal/wide_math.h, no __int128); the saturating cycle count is monotone in
 * each direction, so saturating once equals saturating at every tick.
 *
 * Precondition (true of every position made by these functions from bsync_time_start):
 * carry < den and |cycles| <= 2^62. Other inputs give unspecified positions but no undefined
 * behaviour. */
#include "blendsync/time.h"
#include "internal/wide_math.h"

#define CYCLES_LIMIT ((int64_t)1 << 62)
#define U63 ((uint64_t)1 << 63)

/* min(LIMIT, c + x); x >= 2^63 always saturates (c >= -2^62). */
static int64_t cycles_add(int64_t c, uint64_t x) {
    if (x >= U63) return CYCLES_LIMIT;
    if (c > CYCLES_LIMIT - (int64_t)x) return CYCLES_LIMIT;
    return c + (int64_t)x;
}

/* max(-LIMIT, c - x); x >= 2^63 always saturates (c <= 2^62). */
static int64_t cycles_sub(int64_t c, uint64_t x) {
    if (x >= U63) return -CYCLES_LIMIT;
    if (c < -CYCLES_LIMIT + (int64_t)x) return -CYCLES_LIMIT;
    return c - (int64_t)x;
}

bsync_result bsync_time_step_init(fix16_t duration, fix16_t speed, uint32_t tick_rate, bsync_time_step* out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    if (tick_rate < BSYNC_MIN_TICK_RATE || tick_rate > BSYNC_MAX_TICK_RATE) return BSYNC_BAD_TICK_RATE;
    if (duration <= 0) return BSYNC_BAD_DURATION;
    const uint64_t den = (uint64_t)tick_rate * (uint64_t)duration; /* < 1000 * 2^31 < 2^41 */
    const uint64_t num = bsync_u64_abs((int64_t)speed) << 32;       /* |speed| <= 2^31: num <= 2^63 */
    bsync_time_step s;
    s.whole = num / den;
    s.rem = num % den;
    s.den = den;
    s.negative = speed < 0;
    *out = s;
    return BSYNC_OK;
}

void bsync_time_advance(bsync_clip_time* time, const bsync_time_step* step) {
    if (!time || !step || step->den == 0) return;
    if (!step->negative) {
        uint64_t carry = time->carry + step->rem, c = 0;
        if (carry >= step->den) {
            carry -= step->den;
            c = 1;
        }
        const uint64_t sum = (uint64_t)time->phase + step->whole + c; /* <= 2^32 + 2^63 */
        time->carry = carry;
        time->phase = (uint32_t)sum;
        time->cycles = cycles_add(time->cycles, sum >> 32);
    } else {
        uint64_t b = 0;
        if (time->carry < step->rem) {
            time->carry = time->carry + step->den - step->rem;
            b = 1;
        } else {
            time->carry -= step->rem;
        }
        const uint64_t d = step->whole + b; /* <= 2^63 + 1 */
        const uint32_t low = (uint32_t)d;
        const uint64_t borrow = time->phase < low ? 1u : 0u;
        time->phase = (uint32_t)(time->phase - low);
        time->cycles = cycles_sub(time->cycles, (d >> 32) + borrow);
    }
}

void bsync_time_advance_n(bsync_clip_time* time, const bsync_time_step* step, uint64_t n) {
    if (!time || !step || step->den == 0 || n == 0) return;
    const uint64_t den = step->den;
    /* c is the carry (forward) or its complement (backward); both advance by n * rem. */
    const uint64_t c = step->negative ? den - 1 - time->carry : time->carry;
    uint64_t c_new;
    /* q <= n fits in 64 bits, so the division does not saturate */
    const uint64_t q = bsync_u128_divmod_u64(bsync_u128_add_u64(bsync_u128_mul_u64(n, step->rem), c), den, &c_new);
    bsync_u128 s = bsync_u128_add_u64(bsync_u128_mul_u64(n, step->whole), q); /* phase units moved: < 2^127 + 2^64 */
    if (!step->negative) {
        time->carry = c_new;
        s = bsync_u128_add_u64(s, time->phase);
        time->phase = (uint32_t)s.lo;
        const bsync_u128 w = bsync_u128_shr(s, 32);
        const uint64_t whole_cycles = (w.hi || w.lo >= U63) ? U63 : w.lo;
        time->cycles = cycles_add(time->cycles, whole_cycles);
    } else {
        time->carry = den - 1 - c_new;
        const uint32_t low = (uint32_t)s.lo;
        const uint64_t borrow = time->phase < low ? 1u : 0u;
        time->phase = (uint32_t)(time->phase - low);
        const bsync_u128 w = bsync_u128_shr(s, 32);
        const uint64_t whole_cycles = (w.hi || w.lo >= U63) ? U63 : w.lo + borrow;
        time->cycles = cycles_sub(time->cycles, whole_cycles);
    }
}

fix16_t bsync_time_seconds(const bsync_clip_time* time, fix16_t duration, bsync_loop_mode mode) {
    if (!time || duration <= 0) return 0;
    if (mode != BSYNC_LOOP_WRAP) {
        if (time->cycles >= 1) return duration;
        if (time->cycles < 0) return 0;
    }
    return (fix16_t)(((uint64_t)time->phase * (uint64_t)duration) >> 32);
}

fix16_t bsync_time_ticks_to_seconds(int64_t ticks, uint32_t tick_rate) {
    if (tick_rate == 0) return 0;
    const uint64_t m = bsync_u64_abs(ticks);
    const uint64_t whole = m / tick_rate, r = m % tick_rate;
    if (whole > 32767u) return ticks < 0 ? BSYNC_FX_MIN : BSYNC_FX_MAX;
    /* round(r * 65536 / rate), ties away from zero; r < rate < 2^32 so 2 * r * 65536 < 2^49 */
    const uint64_t frac = (2u * r * 65536u + tick_rate) / (2u * (uint64_t)tick_rate);
    return bsync_fx_signed_sat(whole * 65536u + frac, ticks < 0);
}
