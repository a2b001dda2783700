/* instance_curves.c — float curve channels of an instance (docs/actions.md "Float curves"): each motion
 * slot's curve sampled at the slot's clip time (the pose's time: wrapped, or clamped for a one-shot),
 * linear between keys, blended with the slots' base-tree contributions. A pure function of the state,
 * computed when asked (nothing is stored, so save / load / re-simulation need nothing new). */
#include "blendsync/instance.h"

#include "internal/graph_impl.h"
#include "internal/instance_impl.h"

/* floor(a / b) for b > 0, without relying on the rounding of negative division. */
static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if (a % b != 0 && a < 0) q--;
    return q;
}

static fix16_t clamp32(int64_t v) { return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (fix16_t)v; }

/* Value of curve cv at clip time t: v0 before the first key, the last value from the last key on, else
 * v_i + floor((v_{i+1} - v_i) * (t - t_i) / (t_{i+1} - t_i) + 1/2) (halves rounded up). */
static fix16_t sample_curve(const bsync_graph* g, const graph_curve* cv, fix16_t t) {
    const fix16_t* T = g->curve_times + cv->first_key;
    const fix16_t* V = g->curve_values + cv->first_key;
    const uint32_t n = cv->key_count;
    if (t <= T[0]) return V[0];
    if (t >= T[n - 1]) return V[n - 1];
    uint32_t lo = 0, hi = n - 1; /* T[lo] < t < T[hi] */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (T[mid] <= t) lo = mid;
        else hi = mid;
    }
    const int64_t dv = (int64_t)V[hi] - V[lo], dt = (int64_t)T[hi] - T[lo], x = (int64_t)t - T[lo];
    /* floor(dv * x / dt + 1/2) = floor((dv * x + floor(dt / 2)) / dt) (for odd dt both round up from
     * (dt + 1) / 2 over dt). |dv| < 2^32 and 0 < x < dt < 2^31: |dv * x| + dt / 2 < 2^63, no overflow */
    return clamp32((int64_t)V[lo] + floor_div(dv * x + dt / 2, dt));
}

/* sum over slots of contribution x value, rounded once: floor((sum + 2^15) / 2^16). */
fix16_t instance_curve_value(const bsync_instance* inst, uint32_t channel) {
    const bsync_graph* g = inst->graph;
    const fix16_t* contrib = CARR(inst, fix16_t, off_contrib);
    int64_t sum = 0;
    for (uint32_t s = 0; s < g->slot_count; s++) {
        const graph_slot* gs = &g->slots[s];
        if (gs->kind != (uint32_t)BSYNC_CHILD_MOTION || contrib[s] <= 0) continue;
        const uint32_t m = gs->index;
        for (uint32_t i = g->motion_first_curve[m]; i < g->motion_first_curve[m + 1]; i++) {
            const graph_curve* cv = &g->curves[i];
            if (cv->channel != channel) continue;
            const fix16_t dur = bsync_clip_duration(g->clips[m]);
            bsync_clip_time p;
            instance_slot_position(inst, s, &p, NULL);
            const fix16_t t = bsync_time_seconds(&p, dur, bsync_graph_one_shot_(g, m) ? BSYNC_LOOP_CLAMP : BSYNC_LOOP_WRAP);
            sum += (int64_t)contrib[s] * sample_curve(g, cv, t); /* |term| <= 2^62, |sum| <= 2^61 before */
            if (sum > ((int64_t)1 << 61)) sum = (int64_t)1 << 61; /* saturates (the result is clamped anyway) */
            if (sum < -((int64_t)1 << 61)) sum = -((int64_t)1 << 61);
            break;
        }
    }
    return clamp32(floor_div(sum + 32768, 65536));
}

bsync_result bsync_instance_curve(const bsync_instance* inst, uint32_t channel, fix16_t* out) {
    if (!instance_valid(inst) || !out || channel >= inst->graph->channel_count) return BSYNC_INVALID_ARGUMENT;
    *out = instance_curve_value(inst, channel);
    return BSYNC_OK;
}
