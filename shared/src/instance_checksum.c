/* instance_checksum.c — the instance's state, parameter and node checksums (blendsync/instance.h). */
#include "blendsync/instance.h"

#include "blendsync/checksum.h"
#include "internal/graph_impl.h"
#include "internal/instance_impl.h"

static void feed_clock(bsync_checksum_state* c, const bsync_clip_time* t) {
    bsync_checksum_i64(c, t->cycles);
    bsync_checksum_u32(c, t->phase);
    bsync_checksum_u64(c, t->carry);
}

uint64_t bsync_instance_state_checksum(const bsync_instance* inst) {
    if (!instance_valid(inst)) return 0;
    const bsync_graph* g = inst->graph;
    bsync_checksum_state c;
    bsync_checksum_init(&c, BSYNC_CHECKSUM_SEED_STATE);
    bsync_checksum_u64(&c, inst->tick);
    const bsync_param_state* st = CARR(inst, bsync_param_state, off_states);
    bsync_checksum_u32(&c, g->param_count);
    for (uint32_t i = 0; i < g->param_count; i++) bsync_param_checksum_feed(&st[i], &c);
    const bsync_clip_time* clocks = CARR(inst, bsync_clip_time, off_clocks);
    bsync_checksum_u32(&c, g->node_count);
    for (uint32_t n = 0; n < g->node_count; n++) feed_clock(&c, &clocks[n]);
    const bsync_clip_time* sc = CARR(inst, bsync_clip_time, off_slot_clocks);
    bsync_checksum_u32(&c, g->clock_count);
    for (uint32_t k = 0; k < g->clock_count; k++) feed_clock(&c, &sc[k]);
    const fix16_t* leaf = CARR(inst, fix16_t, off_leaf);
    bsync_checksum_u32(&c, g->motion_count);
    for (uint32_t m = 0; m < g->motion_count; m++) bsync_checksum_fx(&c, leaf[m]);
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    bsync_checksum_u32(&c, g->slot_count);
    for (uint32_t s = 0; s < g->slot_count; s++) bsync_checksum_fx(&c, w[s]);
    bsync_checksum_vec3(&c, inst->rm_t);
    bsync_checksum_quat(&c, inst->rm_r);
    if (g->switch_count > 0) { /* only with switches: other graphs checksum exactly as before */
        const sw_stack* stacks = instance_cswitch_stacks(inst);
        bsync_checksum_u32(&c, g->switch_count);
        for (uint32_t i = 0; i < g->switch_count; i++) {
            bsync_checksum_u32(&c, stacks[i].count);
            for (uint32_t k = 0; k < stacks[i].count; k++) {
                const sw_entry* e = &stacks[i].e[k];
                bsync_checksum_u32(&c, e->child);
                bsync_checksum_fx(&c, e->base);
                bsync_checksum_u32(&c, e->fade);
                bsync_checksum_u32(&c, e->done);
                bsync_checksum_fx(&c, e->weight);
            }
        }
        if (instance_can_inertialize(g)) { /* only while an inertialization runs: else exactly as before */
            const inert_area a = instance_cinert_of(inst);
            uint32_t n = 0;
            for (uint32_t i = 0; i < g->switch_count; i++) n += a.st[i].active;
            if (n > 0) {
                const uint32_t J = g->joint_count;
                bsync_checksum_u32(&c, n);
                for (uint32_t i = 0; i < g->switch_count; i++) {
                    if (!a.st[i].active) continue;
                    bsync_checksum_u32(&c, i);
                    bsync_checksum_u32(&c, a.st[i].elapsed);
                    bsync_checksum_u32(&c, a.st[i].total);
                    for (uint32_t j = 0; j < J; j++) {
                        const size_t at = (size_t)i * J + j;
                        bsync_checksum_vec3(&c, a.t[at]);
                        bsync_checksum_quat(&c, a.r[at]);
                        bsync_checksum_fx(&c, a.v[2u * at]);
                        bsync_checksum_fx(&c, a.v[2u * at + 1u]);
                    }
                }
            }
        }
    }
    if (g->range_states > 0) { /* only with range actions (docs/actions.md "State") */
        const actions_area a = instance_cactions_of(inst);
        bsync_checksum_u32(&c, g->range_states);
        for (uint32_t k = 0; k < g->range_states; k++) bsync_checksum_u32(&c, a.open[k]);
    }
    if (g->channel_count > 0) { /* only with float curves (docs/actions.md "Float curves") */
        bsync_checksum_u32(&c, g->channel_count);
        for (uint32_t k = 0; k < g->channel_count; k++) bsync_checksum_fx(&c, instance_curve_value(inst, k));
    }
    return bsync_checksum_final(&c);
}

uint64_t bsync_instance_parameter_checksum(const bsync_instance* inst, uint32_t p) {
    if (!instance_valid(inst) || p >= inst->graph->param_count) return 0;
    bsync_checksum_state c;
    bsync_checksum_init(&c, BSYNC_CHECKSUM_SEED_PARAM);
    bsync_checksum_u32(&c, p);
    bsync_checksum_fx(&c, CARR(inst, fix16_t, off_filtered)[p]);
    bsync_param_checksum_feed(&CARR(inst, bsync_param_state, off_states)[p], &c);
    return bsync_checksum_final(&c);
}

uint64_t bsync_instance_node_checksum(const bsync_instance* inst, uint32_t n) {
    if (!instance_valid(inst) || n >= inst->graph->node_count) return 0;
    const bsync_graph* g = inst->graph;
    const graph_node* gn = &g->nodes[n];
    bsync_checksum_state c;
    bsync_checksum_init(&c, BSYNC_CHECKSUM_SEED_NODE);
    bsync_checksum_u32(&c, n);
    feed_clock(&c, &CARR(inst, bsync_clip_time, off_clocks)[n]);
    bsync_checksum_fx(&c, CARR(inst, fix16_t, off_length)[n]);
    bsync_checksum_u32(&c, gn->child_count);
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    const bsync_clip_time* sc = CARR(inst, bsync_clip_time, off_slot_clocks);
    for (uint32_t k = 0; k < gn->child_count; k++) {
        const graph_slot* gs = &g->slots[gn->first_slot + k];
        bsync_checksum_fx(&c, w[gn->first_slot + k]);
        if (gs->clock != GRAPH_NONE) feed_clock(&c, &sc[gs->clock]);
    }
    return bsync_checksum_final(&c);
}
