/* graph_actions.c — the actions part of a graph (graph.h "actions", docs/actions.md): one-shot motions,
 * events and ranges on motions, exit-time transitions of switch states: validation, the block's actions
 * area, its part of the hash, accessors.
 *
 * Area layout (8-aligned, after the sample plans): one_shot u8[M], motion_first_action u32[M + 1],
 * slot_range_base u32[S], actions graph_action[A], exits graph_exit[E] (8-aligned), then with float
 * curves: curve_bytes(). */
#include "blendsync/graph.h"

#include "internal/graph_impl.h"

static size_t align8(size_t v) { return (v + 7u) & ~(size_t)7u; }

static uint32_t name_len(const char* s) {
    uint32_t n = 0;
    while (s[n] != '\0' && n < BSYNC_MAX_NAME) n++;
    return n;
}

/* ceil(t * 2^32 / duration), t in [0, duration]: the first clock position whose sampled time reaches t. */
static uint64_t to_units(fix16_t t, fix16_t duration) {
    return (((uint64_t)t << 32) + (uint64_t)duration - 1u) / (uint64_t)duration;
}

static int desc_has_actions(const bsync_graph_actions_desc* d, uint32_t M) {
    if (!d) return 0;
    if (d->action_count > 0 || d->exit_count > 0 || d->curve_count > 0 || d->marker_count > 0 || d->marker_sync) return 1;
    if (d->one_shot)
        for (uint32_t m = 0; m < M; m++)
            if (d->one_shot[m]) return 1;
    return 0;
}

static size_t curve_keys(const bsync_graph_actions_desc* d) {
    size_t k = 0;
    for (uint32_t i = 0; i < d->curve_count; i++) k += d->curves[i].key_count;
    return k;
}

/* The curves' part of the area (none without curves): curves graph_curve[C], motion_first_curve
 * u32[M + 1], times fx[K], values fx[K], channels graph_channel[C] (at most one per curve). */
static size_t curve_bytes(const bsync_graph_actions_desc* d, uint32_t M) {
    if (d->curve_count == 0) return 0;
    const size_t K = curve_keys(d);
    return align8((size_t)d->curve_count * sizeof(graph_curve)) + align8(((size_t)M + 1u) * 4u) + align8(K * 4u) +
           align8(K * 4u) + (size_t)d->curve_count * sizeof(graph_channel);
}

/* The markers' part (none without markers or marker sync): markers graph_marker[K], motion_first_marker
 * u32[M + 1], marker_sync u8[N]. */
static size_t marker_bytes(const bsync_graph_actions_desc* d, uint32_t M, uint32_t N) {
    if (d->marker_count == 0 && !d->marker_sync) return 0;
    return align8((size_t)d->marker_count * sizeof(graph_marker)) + align8(((size_t)M + 1u) * 4u) + align8(N);
}

static size_t area_bytes(const bsync_graph_actions_desc* d, uint32_t M, uint32_t S, uint32_t N) {
    return align8(M) + align8(((size_t)M + 1u) * 4u) + align8((size_t)S * 4u) +
           align8((size_t)d->action_count * sizeof(graph_action) + (size_t)d->exit_count * sizeof(graph_exit)) +
           align8(curve_bytes(d, M)) + marker_bytes(d, M, N);
}

static int same_name(const char* a, const char* b) {
    uint32_t i = 0;
    while (i < BSYNC_MAX_NAME && a[i] == b[i] && a[i] != '\0') i++;
    return i == BSYNC_MAX_NAME || a[i] == b[i];
}

size_t graph_actions_validate(const bsync_graph_desc* gd, uint32_t M, uint32_t S, bsync_result* result) {
    *result = BSYNC_OK;
    const bsync_graph_actions_desc* d = gd->actions;
    if (!desc_has_actions(d, M)) return 0;
    const bsync_blend_tree* t = gd->tree;
    if (d->one_shot)
        for (uint32_t m = 0; m < M; m++)
            if (d->one_shot[m] > 1u) goto invalid;
    if (d->action_count > BSYNC_GRAPH_MAX_ACTIONS) {
        *result = BSYNC_LIMIT_EXCEEDED;
        return 0;
    }
    if ((d->action_count > 0 && !d->actions) || (d->exit_count > 0 && !d->exits)) goto invalid;
    for (uint32_t i = 0; i < d->action_count; i++) {
        const bsync_graph_action_desc* a = &d->actions[i];
        if (a->motion >= M || (i > 0 && a->motion < d->actions[i - 1].motion)) goto invalid;
        const bsync_clip* c = gd->clips ? gd->clips[a->motion] : NULL;
        const fix16_t dur = c ? bsync_clip_duration(c) : 0;
        if (dur <= 0 || !a->name) goto invalid;
        const uint32_t n = name_len(a->name);
        if (n == 0 || n >= BSYNC_MAX_NAME) goto invalid;
        if (a->time < 0 || a->time > dur) goto invalid;
        if (a->kind == BSYNC_ACTION_EVENT) {
            if (a->end != 0) goto invalid;
        } else if (a->kind == BSYNC_ACTION_RANGE) {
            if (a->end <= a->time || a->end > dur || to_units(a->time, dur) >= to_units(a->end, dur)) goto invalid;
        } else {
            goto invalid;
        }
        if (a->policy == BSYNC_ACTION_POLICY_WEIGHT) {
            if (a->threshold < 0 || a->threshold > 64 * BSYNC_FX_ONE) goto invalid;
        } else if (a->policy == BSYNC_ACTION_POLICY_LEADER || a->policy == BSYNC_ACTION_POLICY_ALWAYS) {
            if (a->threshold != 0) goto invalid;
        } else {
            goto invalid;
        }
    }
    if (d->curve_count > BSYNC_GRAPH_MAX_CURVES) {
        *result = BSYNC_LIMIT_EXCEEDED;
        return 0;
    }
    if (d->curve_count > 0 && !d->curves) goto invalid;
    for (uint32_t i = 0; i < d->curve_count; i++) {
        const bsync_graph_curve_desc* cv = &d->curves[i];
        if (cv->motion >= M || (i > 0 && cv->motion < d->curves[i - 1].motion)) goto invalid;
        const bsync_clip* c = gd->clips ? gd->clips[cv->motion] : NULL;
        const fix16_t dur = c ? bsync_clip_duration(c) : 0;
        if (dur <= 0 || !cv->name || !cv->times || !cv->values) goto invalid;
        if (cv->key_count == 0 || cv->key_count > BSYNC_GRAPH_MAX_CURVE_KEYS) goto invalid;
        const uint32_t n = name_len(cv->name);
        if (n == 0 || n >= BSYNC_MAX_NAME) goto invalid;
        for (uint32_t k = 0; k < cv->key_count; k++)
            if (cv->times[k] < 0 || cv->times[k] > dur || (k > 0 && cv->times[k] <= cv->times[k - 1])) goto invalid;
        for (uint32_t k = 0; k < i; k++)
            if (d->curves[k].motion == cv->motion && same_name(d->curves[k].name, cv->name)) goto invalid;
    }
    for (uint32_t i = 0; i < d->exit_count; i++) {
        const bsync_graph_exit_desc* e = &d->exits[i];
        if (e->switch_index >= gd->switch_count || !gd->switches) goto invalid;
        const uint32_t cc = bsync_blend_tree_node_child_count(t, gd->switches[e->switch_index].node);
        if (e->state >= cc || e->target >= cc || e->target == e->state) goto invalid;
        if (e->exit_time <= 0 || e->exit_time > BSYNC_GRAPH_MAX_EXIT_TIME) goto invalid;
        if (e->fade_ticks > 0x100000u || e->carry_time > (d->marker_count > 0 ? 2u : 1u) || e->inertialize > 1u) goto invalid;
        if (e->inertialize && (e->fade_ticks == 0 || !gd->skeleton)) goto invalid;
        for (uint32_t k = 0; k < i; k++)
            if (d->exits[k].switch_index == e->switch_index && d->exits[k].state == e->state) goto invalid;
    }
    if (d->marker_count > BSYNC_GRAPH_MAX_MARKERS) {
        *result = BSYNC_LIMIT_EXCEEDED;
        return 0;
    }
    if (d->marker_count > 0 && !d->markers) goto invalid;
    for (uint32_t i = 0; i < d->marker_count; i++) {
        const bsync_graph_marker_desc* mk = &d->markers[i];
        if (mk->motion >= M || !mk->name) goto invalid;
        const bsync_clip* c = gd->clips ? gd->clips[mk->motion] : NULL;
        const fix16_t dur = c ? bsync_clip_duration(c) : 0;
        if (dur <= 0 || mk->time < 0 || mk->time >= dur) goto invalid;
        const uint32_t n = name_len(mk->name);
        if (n == 0 || n >= BSYNC_MAX_NAME) goto invalid;
        if (i > 0) {
            const bsync_graph_marker_desc* pv = &d->markers[i - 1];
            if (mk->motion < pv->motion || (mk->motion == pv->motion && mk->time < pv->time)) goto invalid;
            for (uint32_t k = 0; k < i; k++)
                if (d->markers[k].motion == mk->motion && d->markers[k].time == mk->time &&
                    same_name(d->markers[k].name, mk->name))
                    goto invalid;
        }
    }
    if (d->marker_sync) {
        const uint32_t N = bsync_blend_tree_node_count(t);
        for (uint32_t n = 0; n < N; n++) {
            const bsync_graph_node_options* o = gd->node_options ? &gd->node_options[n] : NULL;
            if (d->marker_sync[n] && o && o->sync != BSYNC_SYNC_NORMALIZED) goto invalid;
        }
    }
    return area_bytes(d, M, S, bsync_blend_tree_node_count(t));
invalid:
    *result = BSYNC_INVALID_ARGUMENT;
    return 0;
}

static void build_curves(struct bsync_graph* g, const bsync_graph_actions_desc* d, unsigned char* mem) {
    const uint32_t M = g->motion_count, C = d->curve_count;
    const size_t K = curve_keys(d);
    g->curves = (graph_curve*)(void*)mem;
    mem += align8((size_t)C * sizeof(graph_curve));
    g->motion_first_curve = (uint32_t*)(void*)mem;
    mem += align8(((size_t)M + 1u) * 4u);
    g->curve_times = (fix16_t*)(void*)mem;
    mem += align8(K * 4u);
    g->curve_values = (fix16_t*)(void*)mem;
    mem += align8(K * 4u);
    g->channels = (graph_channel*)(void*)mem;
    g->curve_count = C;
    g->key_total = (uint32_t)K;
    uint32_t key = 0, channels = 0;
    for (uint32_t i = 0; i < C; i++) {
        const bsync_graph_curve_desc* cv = &d->curves[i];
        uint32_t ch = 0;
        while (ch < channels && !same_name(g->channels[ch].name, cv->name)) ch++;
        if (ch == channels) {
            const uint32_t n = name_len(cv->name);
            for (uint32_t k = 0; k < n; k++) g->channels[ch].name[k] = cv->name[k];
            channels++;
        }
        g->curves[i].motion = cv->motion;
        g->curves[i].channel = ch;
        g->curves[i].first_key = key;
        g->curves[i].key_count = cv->key_count;
        for (uint32_t k = 0; k < cv->key_count; k++) {
            g->curve_times[key + k] = cv->times[k];
            g->curve_values[key + k] = cv->values[k];
        }
        key += cv->key_count;
    }
    g->channel_count = channels;
    uint32_t next = 0;
    for (uint32_t m = 0; m <= M; m++) {
        while (next < C && d->curves[next].motion < m) next++;
        g->motion_first_curve[m] = next;
    }
}

static void build_markers(struct bsync_graph* g, const bsync_graph_actions_desc* d, unsigned char* mem) {
    const uint32_t M = g->motion_count, K = d->marker_count, N = g->node_count;
    g->markers = (graph_marker*)(void*)mem;
    mem += align8((size_t)K * sizeof(graph_marker));
    g->motion_first_marker = (uint32_t*)(void*)mem;
    mem += align8(((size_t)M + 1u) * 4u);
    g->marker_sync = mem;
    g->marker_count = K;
    for (uint32_t i = 0; i < K; i++) {
        const bsync_graph_marker_desc* mk = &d->markers[i];
        graph_marker* x = &g->markers[i];
        x->motion = mk->motion;
        x->time = mk->time;
        x->at = (uint32_t)to_units(mk->time, bsync_clip_duration(g->clips[mk->motion])); /* time < duration */
        const uint32_t n = name_len(mk->name);
        for (uint32_t k = 0; k < n; k++) x->name[k] = mk->name[k];
        x->name_id = i;
        for (uint32_t k = 0; k < i; k++)
            if (same_name(g->markers[k].name, x->name)) {
                x->name_id = k;
                break;
            }
    }
    uint32_t next = 0;
    for (uint32_t m = 0; m <= M; m++) {
        while (next < K && d->markers[next].motion < m) next++;
        g->motion_first_marker[m] = next;
    }
    for (uint32_t n = 0; n < N; n++) {
        g->marker_sync[n] = (uint8_t)(d->marker_sync ? d->marker_sync[n] : 0u);
        if (g->marker_sync[n]) g->has_marker_sync = 1;
    }
}

void graph_actions_build(struct bsync_graph* g, const bsync_graph_desc* gd, unsigned char* mem) {
    const uint32_t M = g->motion_count, S = g->slot_count;
    const bsync_graph_actions_desc* d = gd->actions;
    if (!desc_has_actions(d, M)) return;
    g->has_actions = 1;
    g->one_shot = mem;
    mem += align8(M);
    g->motion_first_action = (uint32_t*)(void*)mem;
    mem += align8(((size_t)M + 1u) * 4u);
    g->slot_range_base = (uint32_t*)(void*)mem;
    mem += align8((size_t)S * 4u);
    g->actions = (graph_action*)(void*)mem;
    mem += (size_t)d->action_count * sizeof(graph_action);
    g->exits = (graph_exit*)(void*)mem;
    mem += align8((size_t)d->action_count * sizeof(graph_action) + (size_t)d->exit_count * sizeof(graph_exit)) -
           (size_t)d->action_count * sizeof(graph_action);
    if (d->curve_count > 0) build_curves(g, d, mem);
    mem += align8(curve_bytes(d, M));
    if (d->marker_count > 0 || d->marker_sync) build_markers(g, d, mem);
    g->action_count = d->action_count;
    g->exit_count = d->exit_count;
    for (uint32_t m = 0; m < M; m++) g->one_shot[m] = (uint8_t)(d->one_shot ? d->one_shot[m] : 0u);
    uint32_t next = 0;
    for (uint32_t m = 0; m <= M; m++) {
        while (next < d->action_count && d->actions[next].motion < m) next++;
        g->motion_first_action[m] = next;
    }
    for (uint32_t i = 0; i < d->action_count; i++) {
        const bsync_graph_action_desc* a = &d->actions[i];
        graph_action* x = &g->actions[i];
        const fix16_t dur = bsync_clip_duration(g->clips[a->motion]);
        x->motion = a->motion;
        x->kind = (uint32_t)a->kind;
        x->policy = (uint32_t)a->policy;
        x->time = a->time;
        x->end = a->end;
        x->threshold = a->threshold;
        x->payload = a->payload;
        if (a->policy == BSYNC_ACTION_POLICY_LEADER) g->has_leader = 1;
        x->at = to_units(a->time, dur);
        x->until = a->kind == BSYNC_ACTION_RANGE ? to_units(a->end, dur) : 0;
        const uint32_t n = name_len(a->name);
        for (uint32_t k = 0; k < n; k++) x->name[k] = a->name[k];
    }
    uint32_t ranges = 0, reports = 0;
    for (uint32_t s = 0; s < S; s++) {
        const graph_slot* gs = &g->slots[s];
        g->slot_range_base[s] = ranges;
        if (gs->kind != (uint32_t)BSYNC_CHILD_MOTION) continue;
        const uint32_t m = gs->index;
        for (uint32_t i = g->motion_first_action[m]; i < g->motion_first_action[m + 1]; i++) {
            ranges += g->actions[i].kind == (uint32_t)BSYNC_ACTION_RANGE;
            reports++;
        }
    }
    g->range_states = ranges;
    g->report_cap = reports;
    for (uint32_t i = 0; i < d->exit_count; i++) {
        const bsync_graph_exit_desc* e = &d->exits[i];
        graph_exit* x = &g->exits[i];
        x->sw = e->switch_index;
        x->state = e->state;
        x->target = e->target;
        x->at = e->exit_time;
        x->fade = e->fade_ticks;
        x->carry = e->carry_time;
        x->inertialize = e->inertialize;
    }
}

void graph_actions_hash(const struct bsync_graph* g, bsync_checksum_state* c) {
    bsync_checksum_u32(c, g->motion_count);
    for (uint32_t m = 0; m < g->motion_count; m++) bsync_checksum_u32(c, g->one_shot[m]);
    bsync_checksum_u32(c, g->action_count);
    for (uint32_t i = 0; i < g->action_count; i++) {
        const graph_action* a = &g->actions[i];
        const uint32_t n = name_len(a->name);
        bsync_checksum_u32(c, n);
        bsync_checksum_bytes(c, a->name, n);
        bsync_checksum_u32(c, a->motion);
        bsync_checksum_u32(c, a->kind);
        bsync_checksum_fx(c, a->time);
        bsync_checksum_fx(c, a->end);
        bsync_checksum_u32(c, (uint32_t)a->payload);
        bsync_checksum_u32(c, a->policy);
        bsync_checksum_fx(c, a->threshold);
    }
    bsync_checksum_u32(c, g->exit_count);
    for (uint32_t i = 0; i < g->exit_count; i++) {
        const graph_exit* e = &g->exits[i];
        bsync_checksum_u32(c, e->sw);
        bsync_checksum_u32(c, e->state);
        bsync_checksum_u32(c, e->target);
        bsync_checksum_fx(c, e->at);
        bsync_checksum_u32(c, e->fade);
        bsync_checksum_u32(c, e->carry);
        bsync_checksum_u32(c, e->inertialize);
    }
}

/* Format 7 (graphs with curves): after the format-6 stream, u32 C, per curve its channel name (u32
 * length + bytes), u32 motion, u32 key_count, per key fx time, fx value (docs/actions.md "Hash"). */
void graph_curves_hash(const struct bsync_graph* g, bsync_checksum_state* c) {
    bsync_checksum_u32(c, g->curve_count);
    for (uint32_t i = 0; i < g->curve_count; i++) {
        const graph_curve* cv = &g->curves[i];
        const char* name = g->channels[cv->channel].name;
        const uint32_t n = name_len(name);
        bsync_checksum_u32(c, n);
        bsync_checksum_bytes(c, name, n);
        bsync_checksum_u32(c, cv->motion);
        bsync_checksum_u32(c, cv->key_count);
        for (uint32_t k = 0; k < cv->key_count; k++) {
            bsync_checksum_fx(c, g->curve_times[cv->first_key + k]);
            bsync_checksum_fx(c, g->curve_values[cv->first_key + k]);
        }
    }
}

/* Format 8 (graphs with markers or marker sync): after the format-7 stream (curves: u32 0 without),
 * u32 K, per marker its name (u32 length + bytes), u32 motion, fx time; then u32 N and per node u32
 * marker_sync (docs/actions.md "Hash"). */
void graph_markers_hash(const struct bsync_graph* g, bsync_checksum_state* c) {
    bsync_checksum_u32(c, g->marker_count);
    for (uint32_t i = 0; i < g->marker_count; i++) {
        const graph_marker* mk = &g->markers[i];
        const uint32_t n = name_len(mk->name);
        bsync_checksum_u32(c, n);
        bsync_checksum_bytes(c, mk->name, n);
        bsync_checksum_u32(c, mk->motion);
        bsync_checksum_fx(c, mk->time);
    }
    bsync_checksum_u32(c, g->node_count);
    for (uint32_t n = 0; n < g->node_count; n++) bsync_checksum_u32(c, g->marker_sync ? g->marker_sync[n] : 0u);
}

uint32_t bsync_graph_curve_channel_count(const bsync_graph* g) { return g ? g->channel_count : 0; }
const char* bsync_graph_curve_channel_name(const bsync_graph* g, uint32_t ch) {
    return g && ch < g->channel_count ? g->channels[ch].name : NULL;
}
bsync_result bsync_graph_find_curve(const bsync_graph* g, const char* name, uint32_t* out) {
    if (!g || !name || !out) return BSYNC_INVALID_ARGUMENT;
    for (uint32_t ch = 0; ch < g->channel_count; ch++)
        if (same_name(g->channels[ch].name, name)) {
            *out = ch;
            return BSYNC_OK;
        }
    return BSYNC_NOT_FOUND;
}

uint32_t bsync_graph_motion_one_shot(const bsync_graph* g, uint32_t m) {
    return g && m < g->motion_count && bsync_graph_one_shot_(g, m) ? 1u : 0u;
}
uint32_t bsync_graph_action_count(const bsync_graph* g) { return g ? g->action_count : 0; }
uint32_t bsync_graph_exit_count(const bsync_graph* g) { return g ? g->exit_count : 0; }

bsync_result bsync_graph_action(const bsync_graph* g, uint32_t i, bsync_graph_action_desc* out) {
    if (!g || !out || i >= g->action_count) return BSYNC_INVALID_ARGUMENT;
    const graph_action* a = &g->actions[i];
    out->name = a->name;
    out->motion = a->motion;
    out->kind = (bsync_action_kind)a->kind;
    out->time = a->time;
    out->end = a->end;
    out->payload = a->payload;
    out->policy = (bsync_action_policy)a->policy;
    out->threshold = a->threshold;
    return BSYNC_OK;
}
