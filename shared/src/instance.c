/* instance.c — one character's state over a graph: the memory layout, init, the derived state and
 * the blend-state accessors (see blendsync/instance.h for the contract). The tick is instance_tick.c,
 * root motion instance_root_motion.c, switches and inertialization instance_switch.c, the pose
 * instance_pose.c, checksums instance_checksum.c, snapshots instance_snapshot.c; they share the
 * layout helpers of internal/instance_impl.h.
 *
 * Memory layout (caller memory, 8-aligned; offsets from the instance start, so a memcpy is a copy):
 *   struct bsync_instance, then 8-aligned arrays: targets fx[P], filtered fx[P], states[P],
 *   changed u32[P], weights fx[S], contrib fx[S], mass fx[N], length fx[N], steps[N], clocks[N],
 *   slot_clocks[C], leaf fx[M], cursors (B, each bound_cursor_bytes), scratch trs[(B + 1) * J]; with
 *   layers (L > 0) the scratch has two more poses (the layer pose, the combined pose), then layer
 *   caches: mass fx[N], contrib fx[S], joint weights fx[J] (instance_pose.c's layer_caches()); with
 *   switches AND a skeleton (W > 0, J > 0) the inertialization area (instance_inert_of()): sw_inert[W],
 *   offset translations vec3[W * J], offset rotations quat[W * J], one more pose trs[J] (the new pose
 *   while offsets are computed), the initial velocities fx[2 * W * J] (translation, rotation per
 *   joint), the pre-tick pose trs[J]; last the switch stacks sw_stack[W] (instance_switch_stacks()).
 *   A graph with actions (graph_impl.h has_actions) has the actions area (instance_actions_of(): the last
 *   tick's reports and the range states) just before the inertialization area.
 *   The inertialization area and the stacks are found from the end of the instance, so every earlier
 *   offset is exactly what it was before they existed.
 * The struct holds the last tick's root-motion delta (rm_t, rm_r). */
#include "blendsync/instance.h"

#include "internal/graph_impl.h"
#include "internal/instance_impl.h"

static size_t layout(const bsync_graph* g, struct bsync_instance* li) {
    const size_t P = g->param_count, S = g->slot_count, N = g->node_count, C = g->clock_count;
    const size_t M = g->motion_count, B = g->bound_count, J = g->joint_count;
    size_t off = instance_align8(sizeof(struct bsync_instance));
    li->off_targets = off; off = instance_align8(off + P * sizeof(fix16_t));
    li->off_filtered = off; off = instance_align8(off + P * sizeof(fix16_t));
    li->off_states = off; off = instance_align8(off + P * sizeof(bsync_param_state));
    li->off_changed = off; off = instance_align8(off + P * sizeof(uint32_t));
    li->off_weights = off; off = instance_align8(off + S * sizeof(fix16_t));
    li->off_contrib = off; off = instance_align8(off + S * sizeof(fix16_t));
    li->off_mass = off; off = instance_align8(off + N * sizeof(fix16_t));
    li->off_length = off; off = instance_align8(off + N * sizeof(fix16_t));
    li->off_steps = off; off = instance_align8(off + N * sizeof(bsync_time_step));
    li->off_clocks = off; off = instance_align8(off + N * sizeof(bsync_clip_time));
    li->off_slot_clocks = off; off = instance_align8(off + C * sizeof(bsync_clip_time));
    li->off_leaf = off; off = instance_align8(off + M * sizeof(fix16_t));
    li->off_cursors = off;
    for (size_t b = 0; b < B; b++) off += (size_t)g->bound_cursor_bytes[b];
    off = instance_align8(off);
    li->off_scratch = off;
    off = instance_align8(off + (B + 1) * J * sizeof(bsync_trs));
    if (g->layer_count > 0) {
        off = instance_align8(off + 2u * J * sizeof(bsync_trs));
        off = instance_align8(off + N * sizeof(fix16_t));
        off = instance_align8(off + S * sizeof(fix16_t));
        off = instance_align8(off + J * sizeof(fix16_t));
    }
    off = instance_align8(off + instance_actions_bytes(g)); /* actions, inertialization, stacks: from the end */
    off = instance_align8(off + instance_inert_bytes(g)); /* then the stacks: both found from the end */
    off = instance_align8(off + (size_t)g->switch_count * sizeof(sw_stack)); /* last: see instance_switch_stacks() */
    return off;
}

size_t bsync_instance_memory_size(const bsync_graph* graph) {
    if (!graph) return 0;
    struct bsync_instance li;
    return layout(graph, &li);
}

const bsync_graph* bsync_instance_graph(const bsync_instance* inst) { return instance_valid(inst) ? inst->graph : NULL; }
/* ---------------------------------------------------------------- derived state */

void instance_eval_node_weights(bsync_instance* inst, uint32_t n) {
    const bsync_graph* g = inst->graph;
    fix16_t* w = ARR(inst, fix16_t, off_weights) + g->nodes[n].first_slot;
    /* cannot fail: the tree, node index and pointers are instance_valid */
    (void)bsync_blend_tree_eval_node(g->tree, n, CARR(inst, fix16_t, off_filtered), w);
}

/* Slot contributions of the subtree of `node` with mass 1.0 there: the rule of blend_tree.h's
 * flattening, node by node in parents-first order; motion slots get their contribution, child nodes
 * accumulate mass). */
void instance_flatten_from(const bsync_instance* inst, uint32_t node, fix16_t* mass, fix16_t* contrib) {
    const bsync_graph* g = inst->graph;
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    for (uint32_t n = 0; n < g->node_count; n++) mass[n] = 0;
    for (uint32_t s = 0; contrib && s < g->slot_count; s++) contrib[s] = 0;
    mass[node] = BSYNC_FX_ONE;
    for (uint32_t i = 0; i < g->node_count; i++) {
        const uint32_t n = g->topo[i];
        const fix16_t m = mass[n];
        if (m <= 0) continue;
        const graph_node* gn = &g->nodes[n];
        for (uint32_t k = 0; k < gn->child_count; k++) {
            const uint32_t s = gn->first_slot + k;
            if (w[s] <= 0) continue;
            const fix16_t c = bsync_fx_mul(m, w[s]);
            if (c <= 0) continue;
            const graph_slot* gs = &g->slots[s];
            if (gs->kind == (uint32_t)BSYNC_CHILD_NODE) mass[gs->index] = bsync_fx_add(mass[gs->index], c);
            else if (contrib) contrib[s] = c;
        }
    }
}

/* Masses, slot contributions, leaf weights, cycle lengths and phase steps from the node weights. */
void instance_flatten_and_lengths(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    fix16_t* contrib = ARR(inst, fix16_t, off_contrib);
    fix16_t* mass = ARR(inst, fix16_t, off_mass);
    fix16_t* leaf = ARR(inst, fix16_t, off_leaf);
    fix16_t* length = ARR(inst, fix16_t, off_length);
    bsync_time_step* steps = ARR(inst, bsync_time_step, off_steps);
    instance_flatten_from(inst, g->root, mass, contrib);
    for (uint32_t m = 0; m < g->motion_count; m++) leaf[m] = 0;
    for (uint32_t sl = 0; sl < g->slot_count; sl++) /* a motion's weight: its slots' contributions */
        if (contrib[sl] > 0 && g->slots[sl].kind == (uint32_t)BSYNC_CHILD_MOTION)
            leaf[g->slots[sl].index] = bsync_fx_add(leaf[g->slots[sl].index], contrib[sl]);
    for (uint32_t i = g->node_count; i-- > 0;) { /* children before parents */
        const uint32_t n = g->topo[i];
        const graph_node* gn = &g->nodes[n];
        uint64_t sum = 0;
        for (uint32_t k = 0; k < gn->child_count; k++) {
            const uint32_t s = gn->first_slot + k;
            if (w[s] <= 0) continue;
            const graph_slot* gs = &g->slots[s];
            const uint64_t wi = (uint64_t)(w[s] > 64 * BSYNC_FX_ONE ? 64 * BSYNC_FX_ONE : w[s]);
            const uint64_t li = (uint64_t)(gs->kind == (uint32_t)BSYNC_CHILD_NODE ? length[gs->index]
                                                                                 : g->motion_length[gs->index]);
            const uint64_t ts = (uint64_t)gs->time_scale;        /* >= 64 */
            sum += (wi * li + ts / 2) / ts;                       /* <= 2^53 / 64 per term */
        }
        length[n] = sum > (uint64_t)BSYNC_FX_MAX ? BSYNC_FX_MAX : (fix16_t)sum;
        const fix16_t speed = length[n] > 0 ? bsync_fx_div(gn->own_scale, length[n]) : 0;
        (void)bsync_time_step_init(BSYNC_FX_ONE, speed, g->tick_rate, &steps[n]); /* rate instance_valid */
    }
}



void instance_derive_all(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    const bsync_param_state* st = CARR(inst, bsync_param_state, off_states);
    fix16_t* filtered = ARR(inst, fix16_t, off_filtered);
    uint32_t* changed = ARR(inst, uint32_t, off_changed);
    for (uint32_t i = 0; i < g->param_count; i++) {
        changed[i] = 0;
        if (g->param_kind[i] == GRAPH_PARAM_PAIR_SECOND) filtered[i] = st[i - 1].value[1];
        else filtered[i] = st[i].value[0];
    }
    for (uint32_t n = 0; n < g->node_count; n++) instance_eval_node_weights(inst, n);
    instance_apply_switches(inst);
    instance_flatten_and_lengths(inst);
}

void instance_reset_cursors(bsync_instance* inst) {
    for (uint32_t b = 0; b < inst->graph->bound_count; b++) bsync_sample_cursor_reset(instance_cursor_of(inst, b));
}


bsync_result bsync_instance_init(void* mem, size_t size, const bsync_graph* graph, bsync_instance** out) {
    if (!mem || !graph || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    struct bsync_instance li;
    size_t need = layout(graph, &li);
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;
    unsigned char* base = (unsigned char*)mem;
    for (size_t i = 0; i < need; i++) base[i] = 0;
    struct bsync_instance* inst = (struct bsync_instance*)mem;
    *inst = li;
    inst->graph = graph;
    inst->pad_ptr_ = 0;
    inst->tick = 0;
    inst->size = need;
    inst->magic = INSTANCE_MAGIC;
    inst->reserved = 0;
    const bsync_graph* g = graph;
    fix16_t* targets = ARR(inst, fix16_t, off_targets);
    bsync_param_state* st = ARR(inst, bsync_param_state, off_states);
    for (uint32_t i = 0; i < g->param_count; i++) targets[i] = bsync_blend_tree_parameter_default(g->tree, i);
    for (uint32_t i = 0; i < g->param_count; i++) {
        if (g->param_kind[i] == GRAPH_PARAM_PAIR_SECOND) continue;
        fix16_t y = g->param_kind[i] == GRAPH_PARAM_PAIR_FIRST ? targets[i + 1] : 0;
        bsync_param_state_init(&g->filters[i], &st[i], targets[i], y);
    }
    for (uint32_t b = 0; b < g->bound_count; b++) {
        bsync_sample_cursor* c = NULL;
        const bsync_clip* clip = g->clips[g->slots[g->bound_slot[b]].index];
        (void)bsync_sample_cursor_init(instance_cursor_of(inst, b), (size_t)g->bound_cursor_bytes[b], clip, &c);
    }
    sw_stack* stacks = instance_switch_stacks(inst);
    for (uint32_t i = 0; i < g->switch_count; i++) {
        stacks[i].count = 1;
        stacks[i].e[0].child = g->switches[i].initial;
        stacks[i].e[0].base = BSYNC_FX_ONE;
    }
    instance_derive_all(inst);
    instance_update_root_motion(inst); /* tick 0: zero / identity */
    *out = inst;
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- blend state */

uint64_t bsync_instance_tick_count(const bsync_instance* inst) { return instance_valid(inst) ? inst->tick : 0; }

fix16_t bsync_instance_parameter(const bsync_instance* inst, uint32_t p) {
    return instance_valid(inst) && p < inst->graph->param_count ? CARR(inst, fix16_t, off_filtered)[p] : 0;
}
fix16_t bsync_instance_target(const bsync_instance* inst, uint32_t p) {
    return instance_valid(inst) && p < inst->graph->param_count ? CARR(inst, fix16_t, off_targets)[p] : 0;
}
const bsync_param_state* bsync_instance_parameter_state(const bsync_instance* inst, uint32_t p) {
    return instance_valid(inst) && p < inst->graph->param_count ? &CARR(inst, bsync_param_state, off_states)[p] : NULL;
}
const fix16_t* bsync_instance_leaf_weights(const bsync_instance* inst) {
    return instance_valid(inst) ? CARR(inst, fix16_t, off_leaf) : NULL;
}
const fix16_t* bsync_instance_node_weights(const bsync_instance* inst, uint32_t n) {
    if (!instance_valid(inst) || n >= inst->graph->node_count) return NULL;
    return CARR(inst, fix16_t, off_weights) + inst->graph->nodes[n].first_slot;
}
const bsync_clip_time* bsync_instance_node_time(const bsync_instance* inst, uint32_t n) {
    return instance_valid(inst) && n < inst->graph->node_count ? &CARR(inst, bsync_clip_time, off_clocks)[n] : NULL;
}
fix16_t bsync_instance_node_phase(const bsync_instance* inst, uint32_t n) {
    const bsync_clip_time* t = bsync_instance_node_time(inst, n);
    return t ? bsync_time_normalized(t) : 0;
}
uint32_t bsync_instance_node_sample_phase(const bsync_instance* inst, uint32_t n) {
    return instance_valid(inst) && n < inst->graph->node_count ? instance_sample_phase(inst, n) : 0;
}
fix16_t bsync_instance_node_length(const bsync_instance* inst, uint32_t n) {
    return instance_valid(inst) && n < inst->graph->node_count ? CARR(inst, fix16_t, off_length)[n] : 0;
}
