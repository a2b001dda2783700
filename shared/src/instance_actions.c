/* instance_actions.c — what actions do in an instance (docs/actions.md): the per-tick crossing report of
 * events and ranges with their firing policies, the range states, the exit-time transitions due at the
 * start of a tick, and the motion time queries. */
#include "blendsync/instance.h"

#include "internal/graph_impl.h"
#include "internal/instance_impl.h"

#define UNITS_PER_CYCLE ((uint64_t)1 << 32)

/* N(e, P) = #{k >= 0 : e + k * 2^32 < P} for a looping slot, #{k = 0 : e < P} for a one-shot
 * (docs/actions.md "Crossings"); e in [0, 2^32]. The crossings of e in a tick are N(e, P1) - N(e, P0). */
static uint64_t passed(uint64_t e, const bsync_clip_time* P, int one_shot) {
    const int64_t c = P->cycles;
    const uint64_t p = P->phase;
    if (c < 0) return 0;
    if (c == 0 && p <= e) return 0;
    if (c == 1 && e == UNITS_PER_CYCLE && p == 0) return 0;
    if (one_shot) return 1;
    /* P > e: c + 1 + floor((p - e - 1) / 2^32), the floor in {-2, -1, 0} */
    const int64_t f = p >= e + 1u ? 0 : (e + 1u - p > UNITS_PER_CYCLE ? -2 : -1);
    return (uint64_t)(c + 1 + f);
}

static uint32_t sat32(uint64_t v) { return v > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)v; }

/* The sync group of a motion slot on a node clock: its driving node n, or for a node of a named sync
 * group (marker_sync v >= 2, docs/actions.md "Sync groups") BSYNC_MAX_BLEND_NODES + v. */
static uint32_t group_of(const bsync_graph* g, const graph_slot* gs) {
    if (g->has_marker_sync && g->marker_sync[gs->node] >= 2u) return BSYNC_MAX_BLEND_NODES + g->marker_sync[gs->node];
    return g->nodes[gs->node].driver;
}

/* Does motion slot s pass action a's policy this tick? leader[group_of]: the leading slot of its group. */
static int policy_passes(const bsync_graph* g, const graph_action* a, uint32_t s, fix16_t c, const uint32_t* leader) {
    switch (a->policy) {
    case BSYNC_ACTION_POLICY_ALWAYS: return 1;
    case BSYNC_ACTION_POLICY_LEADER: {
        if (c <= 0) return 0;
        const graph_slot* gs = &g->slots[s];
        return gs->clock != GRAPH_NONE || leader[group_of(g, gs)] == s;
    }
    default: return c > 0 && c >= a->threshold;
    }
}

/* The policy contribution of every slot (docs/actions.md "Policies"): its base-tree contribution, or,
 * when larger, the largest over the layers of layer weight x its contribution with mass 1.0 at the
 * layer's node (a layer of weight 0 contributes nothing, as it is not sampled). */
static const fix16_t* policy_contributions(bsync_instance* inst, const actions_area* ar) {
    const bsync_graph* g = inst->graph;
    const fix16_t* base = CARR(inst, fix16_t, off_contrib);
    if (!ar->policy) return base;
    for (uint32_t s = 0; s < g->slot_count; s++) ar->policy[s] = base[s];
    for (uint32_t i = 0; i < g->layer_count; i++) {
        const graph_layer* l = &g->layers[i];
        fix16_t w = l->weight;
        if (l->source == (uint32_t)BSYNC_LAYER_WEIGHT_PARAM) {
            const fix16_t v = CARR(inst, fix16_t, off_filtered)[l->param];
            w = v < 0 ? 0 : v > BSYNC_FX_ONE ? BSYNC_FX_ONE : v;
        }
        if (w <= 0) continue;
        instance_flatten_from(inst, l->node, ar->mass, ar->lcontrib);
        for (uint32_t s = 0; s < g->slot_count; s++) {
            const fix16_t c = bsync_fx_mul(w, ar->lcontrib[s]);
            if (c > ar->policy[s]) ar->policy[s] = c;
        }
    }
    return ar->policy;
}

void instance_actions_tick(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    if (!g->has_actions) return;
    actions_area ar = instance_actions_of(inst);
    *ar.count = 0;
    if (g->action_count == 0) return;
    const fix16_t* contrib = policy_contributions(inst, &ar);
    /* sync groups (motion slots sampled at a driving node's clock): the largest contribution leads,
     * ties to the lowest slot index */
    uint32_t leader[2u * BSYNC_MAX_BLEND_NODES];
    for (uint32_t s = 0; g->has_leader && s < g->slot_count; s++) { /* only LEADER actions read them */
        const graph_slot* gs = &g->slots[s];
        if (gs->kind == (uint32_t)BSYNC_CHILD_MOTION && gs->clock == GRAPH_NONE) leader[group_of(g, gs)] = GRAPH_NONE;
    }
    for (uint32_t s = 0; g->has_leader && s < g->slot_count; s++) {
        const graph_slot* gs = &g->slots[s];
        if (gs->kind != (uint32_t)BSYNC_CHILD_MOTION || gs->clock != GRAPH_NONE) continue;
        const uint32_t d = group_of(g, gs);
        if (leader[d] == GRAPH_NONE || contrib[s] > contrib[leader[d]]) leader[d] = s;
    }
    uint32_t out = 0;
    for (uint32_t s = 0; s < g->slot_count; s++) {
        const graph_slot* gs = &g->slots[s];
        if (gs->kind != (uint32_t)BSYNC_CHILD_MOTION) continue;
        const uint32_t m = gs->index, first = g->motion_first_action[m], last = g->motion_first_action[m + 1];
        if (first == last) continue;
        const int once = bsync_graph_one_shot_(g, m);
        bsync_clip_time P0, P1;
        instance_slot_position(inst, s, &P1, &P0);
        /* a marker position that moved back (docs/actions.md "The marker position") is a jump to P1 */
        if (P1.cycles < P0.cycles || (P1.cycles == P0.cycles && P1.phase < P0.phase)) P0 = P1;
        const fix16_t c = contrib[s];
        uint32_t range = g->slot_range_base[s];
        for (uint32_t i = first; i < last; i++) {
            const graph_action* a = &g->actions[i];
            const int pass = policy_passes(g, a, s, c, leader);
            bsync_action_report r;
            r.action = i;
            r.node = gs->node;
            r.child = s - g->nodes[gs->node].first_slot;
            r.kind = a->kind;
            r.count = r.exits = r.active = 0;
            r.payload = a->payload;
            if (a->kind == (uint32_t)BSYNC_ACTION_EVENT) {
                if (pass) r.count = sat32(passed(a->at, &P1, once) - passed(a->at, &P0, once));
                if (r.count == 0) continue;
            } else {
                uint8_t* open = &ar.open[range++];
                const uint64_t in0 = passed(a->at, &P0, once) - passed(a->until, &P0, once);
                const uint64_t in1 = passed(a->at, &P1, once) - passed(a->until, &P1, once);
                uint64_t enters = 0, exits = 0;
                if (*open && !(pass && in0)) exits++;   /* closed by the policy (or a jump) */
                if (pass && in0 && !*open) enters++;    /* opened by the policy mid-range */
                if (pass) {
                    enters += passed(a->at, &P1, once) - passed(a->at, &P0, once);
                    exits += passed(a->until, &P1, once) - passed(a->until, &P0, once);
                }
                *open = (uint8_t)(pass && in1);
                r.count = sat32(enters);
                r.exits = sat32(exits);
                r.active = *open;
                if (r.count == 0 && r.exits == 0 && !r.active) continue;
            }
            ar.report[out++] = r;
        }
    }
    *ar.count = out;
}

/* The clock a switch state plays on: its motion clock (motion child of the NONE node), or the child
 * node's own clock; plus the slot's cycle offset for a motion (the sampled position). */
static bsync_clip_time state_position(const bsync_instance* inst, uint32_t s) {
    const bsync_graph* g = inst->graph;
    const graph_slot* gs = &g->slots[s];
    if (gs->kind == (uint32_t)BSYNC_CHILD_MOTION) {
        bsync_clip_time t;
        instance_slot_position(inst, s, &t, NULL);
        return t;
    }
    return CARR(inst, bsync_clip_time, off_clocks)[gs->index];
}

uint32_t instance_exit_triggers(const bsync_instance* inst, bsync_switch_trigger* out) {
    const bsync_graph* g = inst->graph;
    if (g->exit_count == 0) return 0;
    const sw_stack* stacks = instance_cswitch_stacks(inst);
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->switch_count; i++) {
        const uint32_t state = stacks[i].e[stacks[i].count - 1u].child;
        for (uint32_t k = 0; k < g->exit_count; k++) {
            const graph_exit* x = &g->exits[k];
            if (x->sw != i || x->state != state) continue;
            const bsync_clip_time t = state_position(inst, g->nodes[g->switches[i].node].first_slot + state);
            /* past exit_time: cycles * 2^32 + phase > at * 2^16 (at <= 2^26, so compare in cycles first) */
            const int64_t whole = (int64_t)(x->at >> 16);
            const uint64_t frac = (uint64_t)((uint32_t)x->at & 0xFFFFu) << 16;
            if (t.cycles > whole || (t.cycles == whole && (uint64_t)t.phase > frac)) {
                out[n].switch_index = i;
                out[n].child = x->target;
                out[n].fade_ticks = x->fade;
                out[n].carry_time = x->carry;
                out[n].inertialize = x->inertialize;
                n++;
            }
            break;
        }
    }
    return n;
}

bsync_result bsync_instance_actions(const bsync_instance* inst, const bsync_action_report** out, uint32_t* count) {
    if (!instance_valid(inst) || !out || !count) return BSYNC_INVALID_ARGUMENT;
    if (!inst->graph->has_actions) {
        *out = NULL;
        *count = 0;
        return BSYNC_OK;
    }
    const actions_area a = instance_cactions_of(inst);
    *out = a.report;
    *count = *a.count;
    return BSYNC_OK;
}

bsync_result bsync_instance_motion_time(const bsync_instance* inst, uint32_t node, uint32_t child,
                                        bsync_motion_time* out) {
    if (!instance_valid(inst) || !out) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (node >= g->node_count || child >= g->nodes[node].child_count) return BSYNC_INVALID_ARGUMENT;
    const uint32_t s = g->nodes[node].first_slot + child;
    const graph_slot* gs = &g->slots[s];
    if (gs->kind != (uint32_t)BSYNC_CHILD_MOTION) return BSYNC_INVALID_ARGUMENT;
    bsync_clip_time t;
    instance_slot_position(inst, s, &t, NULL);
    const int once = bsync_graph_one_shot_(g, gs->index);
    const fix16_t len = g->motion_length[gs->index];
    out->cycles = t.cycles;
    out->one_shot = once ? 1u : 0u;
    out->finished = once && t.cycles >= 1 ? 1u : 0u;
    out->seconds = bsync_time_seconds(&t, len, once ? BSYNC_LOOP_CLAMP : BSYNC_LOOP_WRAP);
    out->normalized = out->finished ? BSYNC_FX_ONE : bsync_time_normalized(&t);
    out->pad_ = 0;
    return BSYNC_OK;
}
