/* instance_curves.c — float curve channels of an instance (docs/actions.md "Float curves"): each motion
 * slot's curve sampled at the slot's clip time (the pose's time: wrapped, or clamped for a one-shot),
 * linear between keys, blended with the slots' base-tree contributions, then through the layers. A pure
 * function of the state, computed when asked (nothing is stored, so save / load / re-simulation need nothing new). */
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

/* One blend of a channel: sum over motion slots of contribution x value, rounded once,
 * floor((sum + 2^15) / 2^16), the sum saturating at +-2^61; *has: some contributing slot has the channel.
 * mass NULL: the base tree's contributions; else a layer's (masses from its node, contributions
 * fx_mul(mass, weight) as the flattening computes them). */
static fix16_t channel_blend(const bsync_instance* inst, uint32_t channel, const fix16_t* mass, int* has) {
    const bsync_graph* g = inst->graph;
    const fix16_t* contrib = CARR(inst, fix16_t, off_contrib);
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    int64_t sum = 0;
    *has = 0;
    for (uint32_t s = 0; s < g->slot_count; s++) {
        const graph_slot* gs = &g->slots[s];
        if (gs->kind != (uint32_t)BSYNC_CHILD_MOTION) continue;
        const uint32_t m = gs->index;
        if (g->motion_first_curve[m] == g->motion_first_curve[m + 1]) continue;
        fix16_t c = contrib[s];
        if (mass) c = mass[gs->node] > 0 && w[s] > 0 ? bsync_fx_mul(mass[gs->node], w[s]) : 0;
        if (c <= 0) continue;
        for (uint32_t i = g->motion_first_curve[m]; i < g->motion_first_curve[m + 1]; i++) {
            const graph_curve* cv = &g->curves[i];
            if (cv->channel != channel) continue;
            const fix16_t dur = bsync_clip_duration(g->clips[m]);
            bsync_clip_time p;
            instance_slot_position(inst, s, &p, NULL);
            const fix16_t t = bsync_time_seconds(&p, dur, bsync_graph_one_shot_(g, m) ? BSYNC_LOOP_CLAMP : BSYNC_LOOP_WRAP);
            sum += (int64_t)c * sample_curve(g, cv, t); /* |term| <= 2^62, |sum| <= 2^61 before */
            if (sum > ((int64_t)1 << 61)) sum = (int64_t)1 << 61; /* saturates (the result is clamped anyway) */
            if (sum < -((int64_t)1 << 61)) sum = -((int64_t)1 << 61);
            *has = 1;
            break;
        }
    }
    return clamp32(floor_div(sum + 32768, 65536));
}

/* docs/actions.md "Curves through layers": the base tree's blend, then each layer in order with weight
 * a > 0 (fixed, or its parameter clamped to [0, 1]): an override layer that has the channel moves the
 * value toward the layer's blend, v + floor((a (L - v) + 2^15) / 2^16); an additive layer adds
 * floor((a L + 2^15) / 2^16). Masks do not enter. */
fix16_t instance_curve_value(const bsync_instance* inst, uint32_t channel) {
    const bsync_graph* g = inst->graph;
    int has;
    fix16_t v = channel_blend(inst, channel, NULL, &has);
    for (uint32_t i = 0; i < g->layer_count; i++) {
        const graph_layer* l = &g->layers[i];
        fix16_t a = l->weight;
        if (l->source == (uint32_t)BSYNC_LAYER_WEIGHT_PARAM) {
            const fix16_t x = CARR(inst, fix16_t, off_filtered)[l->param];
            a = x < 0 ? 0 : x > BSYNC_FX_ONE ? BSYNC_FX_ONE : x;
        }
        if (a <= 0) continue;
        fix16_t mass[BSYNC_MAX_BLEND_NODES];
        instance_flatten_from(inst, l->node, mass, NULL);
        const fix16_t L = channel_blend(inst, channel, mass, &has);
        if (!has) continue;
        /* |a| <= 2^16 and |L - v| < 2^33: the product fits in 63 bits */
        const int64_t d = l->mode == (uint32_t)BSYNC_LAYER_ADDITIVE ? (int64_t)L : (int64_t)L - v;
        v = clamp32((int64_t)v + floor_div((int64_t)a * d + 32768, 65536));
    }
    return v;
}

bsync_result bsync_instance_curve(const bsync_instance* inst, uint32_t channel, fix16_t* out) {
    if (!instance_valid(inst) || !out || channel >= inst->graph->channel_count) return BSYNC_INVALID_ARGUMENT;
    *out = instance_curve_value(inst, channel);
    return BSYNC_OK;
}
