/* client_present.c — the presentation clock of client.h ("rendering between ticks"): which fraction of
 * a tick to render at, from a monotonic clock and the tick rate. Integer arithmetic; no clock read here
 * (the caller passes the time), so it is a pure function of its inputs. */
#include "blendsync/client.h"

#define NS_PER_S 1000000000ull
#define MAX_STEP_NS (10ull * NS_PER_S) /* longer gaps count as 10 s: S is clamped long before */

void bsync_present_clock_init(bsync_present_clock* k, uint32_t tick_rate) {
    if (!k) return;
    k->tick_rate = tick_rate > 1000u ? 1000u : tick_rate;
    k->started = 0;
    k->tick = 0;
    k->frame_ns = k->last_ns = 0;
    k->shown = 0;
    k->rem = 0;
}

/* Shown time of tick t, in 2^-16 ticks (ticks stay far below 2^46 in any match). */
static int64_t at_tick(uint64_t t) { return (int64_t)(t & ((1ull << 46) - 1u)) * 65536; }

static void clamp(bsync_present_clock* k) {
    const int64_t lo = at_tick(k->tick), hi = lo + BSYNC_PRESENT_ALPHA_MAX;
    if (k->shown < lo) {
        k->shown = lo;
        k->rem = 0;
    } else if (k->shown >= hi) {
        k->shown = hi;
        k->rem = 0;
    }
}

static void advance(bsync_present_clock* k, uint64_t now_ns) {
    if (now_ns <= k->last_ns) return;
    uint64_t d = now_ns - k->last_ns;
    k->last_ns = now_ns;
    if (d > MAX_STEP_NS) d = MAX_STEP_NS;
    /* d * rate * 65536 <= 1e10 * 1000 * 65536 < 2^60: exact, the remainder carried */
    const uint64_t num = d * (uint64_t)k->tick_rate * 65536u + k->rem;
    k->shown += (int64_t)(num / NS_PER_S);
    k->rem = num % NS_PER_S;
}

void bsync_present_clock_frame(bsync_present_clock* k, uint64_t tick, uint64_t now_ns) {
    if (!k) return;
    if (!k->started) {
        k->started = 1;
        k->last_ns = now_ns;
        k->shown = at_tick(tick);
        k->rem = 0;
    } else {
        advance(k, now_ns); /* S up to the arrival, against the old tick's bounds */
        clamp(k);
    }
    k->tick = tick;
    k->frame_ns = now_ns;
    clamp(k);
}

fix16_t bsync_present_clock_alpha(bsync_present_clock* k, uint64_t now_ns) {
    if (!k || !k->started || k->tick_rate == 0) return 0;
    advance(k, now_ns);
    clamp(k);
    return (fix16_t)(k->shown - at_tick(k->tick));
}
