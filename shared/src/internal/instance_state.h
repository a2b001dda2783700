/* internal/instance_state.h — which bytes of an instance are its state (docs/match.md "Rollback
 * state"): the spans a rollback copy must keep. Everything else is a cache or per-call scratch that is
 * written before it is read: the sample cursors (a cursor never changes a result, sample.h), the
 * scratch poses, the layer caches, the actions area's layer scratch and the inertialization area's two
 * scratch poses. The header's mutable fields (tick, the root-motion delta) are copied by name. */
#ifndef BLENDSYNC_INTERNAL_INSTANCE_STATE_H
#define BLENDSYNC_INTERNAL_INSTANCE_STATE_H

#include "instance_impl.h"

#define INSTANCE_STATE_MAX_SPANS 5u

typedef struct instance_state_span {
    size_t off, len; /* from the instance start */
} instance_state_span;

/* Appends [off, off + len) to the spans, merged with the last one when they touch. */
static inline uint32_t instance_state_span_add(instance_state_span* s, uint32_t n, size_t off, size_t len) {
    if (len == 0) return n;
    if (n > 0 && s[n - 1u].off + s[n - 1u].len == off) {
        s[n - 1u].len += len;
        return n;
    }
    s[n].off = off;
    s[n].len = len;
    return n + 1u;
}

/* The state spans of a live instance, in address order; their count (1..INSTANCE_STATE_MAX_SPANS). */
static inline uint32_t instance_state_spans(const bsync_instance* inst, instance_state_span* out) {
    const bsync_graph* g = inst->graph;
    const size_t size = (size_t)inst->size;
    const size_t stacks = (size_t)g->switch_count * sizeof(sw_stack);
    const size_t inert = instance_inert_bytes(g);
    const size_t actions = instance_actions_bytes(g);
    uint32_t n = 0;
    /* targets, filtered, states, changed, weights, contrib, mass, length, steps, clocks, slot clocks, leaf */
    n = instance_state_span_add(out, n, (size_t)inst->off_targets, (size_t)(inst->off_cursors - inst->off_targets));
    /* the actions area without its layer scratch: report count, reports, range states */
    const size_t actions_at = size - stacks - inert - actions;
    if (actions > 0) n = instance_state_span_add(out, n, actions_at, actions - instance_actions_layer_bytes(g));
    if (inert > 0) { /* sw_inert, offsets, velocities; not the scratch pose nor the pre-tick pose */
        const inert_area a = instance_cinert_of(inst);
        const unsigned char* base = (const unsigned char*)inst;
        const size_t at = size - stacks - inert;
        n = instance_state_span_add(out, n, at, (size_t)((const unsigned char*)a.pose - base) - at);
        n = instance_state_span_add(out, n, (size_t)((const unsigned char*)a.v - base),
                                    (size_t)((const unsigned char*)a.prev - (const unsigned char*)a.v));
    }
    n = instance_state_span_add(out, n, size - stacks, stacks);
    return n;
}

#endif /* BLENDSYNC_INTERNAL_INSTANCE_STATE_H */
