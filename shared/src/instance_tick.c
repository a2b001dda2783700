/* instance_tick.c — one tick of an instance: filters, dirty nodes, switch triggers and fades, flattening,
 * clocks, root motion, inertialization starts (docs/instance.md "One tick", "Switches"). */
#include "blendsync/instance.h"

#include "internal/graph_impl.h"
#include "internal/instance_impl.h"

bsync_result bsync_instance_tick(bsync_instance* inst, const bsync_instance_input* input) {
    return bsync_instance_tick_ex(inst, input, NULL, 0);
}

bsync_result bsync_instance_tick_ex(bsync_instance* inst, const bsync_instance_input* input,
                                    const bsync_switch_trigger* triggers, uint32_t trigger_count) {
    if (!instance_valid(inst) || !input || (trigger_count > 0 && !triggers)) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (input->target_count != g->param_count || (g->param_count > 0 && !input->targets))
        return BSYNC_INVALID_ARGUMENT;
    for (uint32_t k = 0; k < trigger_count; k++) {
        const bsync_switch_trigger* t = &triggers[k];
        if (t->switch_index >= g->switch_count || t->carry_time > (g->marker_count > 0 ? BSYNC_SWITCH_START_MARKER : 1u) || t->fade_ticks > BSYNC_SWITCH_MAX_FADE_TICKS ||
            t->child >= g->nodes[g->switches[t->switch_index].node].child_count || t->inertialize > 1u ||
            (t->inertialize && t->fade_ticks == 0))
            return BSYNC_INVALID_ARGUMENT;
    }
    /* exit-time transitions due at the start of this tick (docs/actions.md "Exit-time transitions"):
     * applied before the tick's own triggers */
    bsync_switch_trigger exits[BSYNC_GRAPH_MAX_SWITCHES];
    const uint32_t exit_count = instance_exit_triggers(inst, exits);
    int inertialize = 0;
    for (uint32_t k = 0; k < exit_count; k++) inertialize |= exits[k].inertialize != 0;
    for (uint32_t k = 0; k < trigger_count; k++) {
        if (triggers[k].inertialize && !instance_can_inertialize(g)) return BSYNC_MISMATCH;
        inertialize |= triggers[k].inertialize != 0;
    }
    /* 0. only when a trigger asks for inertialization: the pose shown before this tick (running offsets
     * included), for the initial velocities */
    const int have_prev = inertialize && instance_blend_local(inst, instance_inert_of(inst).prev) == BSYNC_OK;
    fix16_t* targets = ARR(inst, fix16_t, off_targets);
    fix16_t* filtered = ARR(inst, fix16_t, off_filtered);
    bsync_param_state* st = ARR(inst, bsync_param_state, off_states);
    uint32_t* changed = ARR(inst, uint32_t, off_changed);
    /* 1. filters */
    for (uint32_t i = 0; i < g->param_count; i++) {
        const uint32_t kind = g->param_kind[i];
        targets[i] = input->targets[i];
        if (kind == GRAPH_PARAM_PAIR_SECOND) continue;
        int ch = 0;
        if (kind == GRAPH_PARAM_PAIR_FIRST) {
            (void)bsync_param_filter_step_2d(&g->filters[i], &st[i], input->targets[i], input->targets[i + 1], &ch);
            filtered[i] = st[i].value[0];
            filtered[i + 1] = st[i].value[1];
            changed[i] = changed[i + 1] = ch ? 1u : 0u;
        } else {
            (void)bsync_param_filter_step(&g->filters[i], &st[i], input->targets[i], &ch);
            filtered[i] = st[i].value[0];
            changed[i] = ch ? 1u : 0u;
        }
    }
    /* 2. dirty nodes */
    int any = 0;
    for (uint32_t n = 0; n < g->node_count; n++) {
        const graph_node* gn = &g->nodes[n];
        int dirty = 0;
        for (uint32_t k = 0; k < gn->param_count && !dirty; k++) dirty = changed[g->param_refs[gn->first_param + k]] != 0;
        if (!dirty) continue;
        instance_eval_node_weights(inst, n);
        any = 1;
    }
    /* 2b. switches: running inertializations age by one tick; triggers in order, then one tick of
     * every fade (the stacks an inertialized trigger leaves are kept, aged the same way) */
    sw_stack old[BSYNC_GRAPH_MAX_SWITCHES];
    uint32_t start[BSYNC_GRAPH_MAX_SWITCHES], total[BSYNC_GRAPH_MAX_SWITCHES], any_start = 0;
    if (g->switch_count > 0) {
        sw_stack* stacks = instance_switch_stacks(inst);
        for (uint32_t i = 0; i < g->switch_count; i++) start[i] = total[i] = 0;
        if (instance_can_inertialize(g)) {
            const inert_area a = instance_inert_of(inst);
            for (uint32_t i = 0; i < g->switch_count; i++) {
                if (!a.st[i].active) continue;
                if (++a.st[i].elapsed >= a.st[i].total) instance_inert_clear(inst, i);
            }
            for (uint32_t k = 0; k < exit_count + trigger_count; k++) { /* the stack before the triggers */
                const bsync_switch_trigger* t = k < exit_count ? &exits[k] : &triggers[k - exit_count];
                if (t->inertialize) old[t->switch_index] = stacks[t->switch_index];
            }
        }
        for (uint32_t k = 0; k < exit_count + trigger_count; k++) { /* exits first, then the tick's own */
            const bsync_switch_trigger* t = k < exit_count ? &exits[k] : &triggers[k - exit_count];
            const uint32_t i = t->switch_index;
            if (instance_sw_push(inst, i, t) && t->inertialize) {
                start[i] = 1;
                total[i] = t->fade_ticks; /* the last applied inertialized trigger's */
                any_start = 1;
            }
        }
        for (uint32_t i = 0; i < g->switch_count; i++)
            if (start[i]) instance_sw_advance_one(&old[i]);
        instance_sw_advance(inst);
        instance_apply_switches(inst);
        any = 1;
    }
    /* 3. flatten, lengths, steps */
    if (any) instance_flatten_and_lengths(inst);
    /* 4. clocks */
    bsync_clip_time* clocks = ARR(inst, bsync_clip_time, off_clocks);
    const bsync_time_step* steps = CARR(inst, bsync_time_step, off_steps);
    for (uint32_t n = 0; n < g->node_count; n++) bsync_time_advance(&clocks[n], &steps[n]);
    bsync_clip_time* sc = ARR(inst, bsync_clip_time, off_slot_clocks);
    for (uint32_t c = 0; c < g->clock_count; c++) bsync_time_advance(&sc[c], &g->clock_steps[c]);
    /* 5. */
    inst->tick++;
    /* 6. */
    instance_update_root_motion(inst);
    /* 7. inertializations started by this tick's triggers: their offsets (two poses each) */
    if (any_start) instance_inert_start(inst, start, total, old, have_prev);
    /* 8. actions: the events and ranges this tick crossed (docs/actions.md) */
    instance_actions_tick(inst);
    return BSYNC_OK;
}
