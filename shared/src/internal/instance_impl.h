/* internal/instance_impl.h — the instance's header struct as instance.c lays it out, the layout
 * helpers and the functions the instance_*.c files share, for the files that read an instance's
 * arrays directly (instance*.c, present.c). Not public.
 *
 * The layout itself (the order and sizes of the arrays behind the struct) is instance.c's layout() and
 * its file comment; offsets are from the instance start, so a memcpy of `size` bytes is a working copy
 * for the same graph (present.c relies on that). */
#ifndef BLENDSYNC_INTERNAL_INSTANCE_IMPL_H
#define BLENDSYNC_INTERNAL_INSTANCE_IMPL_H

#include "blendsync/instance.h"
#include "blendsync/pose.h"
#include "blendsync/sample.h"
#include "graph_impl.h"

#define INSTANCE_MAGIC 0x54534E49u /* "INST" */

struct bsync_instance {
    const bsync_graph* graph;
    uint64_t pad_ptr_;  /* reserved, 0 */
    uint64_t tick;
    uint64_t size;
    uint32_t magic;
    uint32_t reserved;
    uint64_t off_targets, off_filtered, off_states, off_changed, off_weights, off_contrib, off_mass;
    uint64_t off_length, off_steps, off_clocks, off_slot_clocks, off_leaf, off_cursors, off_scratch;
    bsync_vec3 rm_t;    /* the last tick's root-motion delta (state; recomputable: docs/instance.md "Root motion") */
    bsync_quat rm_r;
    uint32_t rm_pad_;   /* 0 */
};

/* A switch's cross-fade stack (docs/instance.md "Switches"), entries oldest first. */
typedef struct sw_entry {
    uint32_t child;  /* child index of the switch node */
    fix16_t base;    /* weight when the newest fade began (older entries; sum 1.0); 0 for the newest */
    fix16_t weight;  /* derived: the current weight */
    uint32_t fade;   /* newest entry: fade length in ticks; else 0 */
    uint32_t done;   /* newest entry: ticks of the fade done (< fade while count > 1); else 0 */
} sw_entry;
typedef struct sw_stack {
    uint32_t count, pad_;
    sw_entry e[BSYNC_SWITCH_STACK_DEPTH];
} sw_stack;

/* The switch stacks are the last switch_count * sizeof(sw_stack) bytes of the instance. */
#define INSTANCE_SWITCH_STACKS(inst) \
    ((sw_stack*)(void*)((unsigned char*)(inst) + (size_t)(inst)->size - \
                        (size_t)(inst)->graph->switch_count * sizeof(sw_stack)))

/* Masses, slot contributions, leaf weights, cycle lengths and phase steps from the node weights
 * (instance.c; present.c calls it on a copy). */
void instance_flatten_and_lengths(bsync_instance* inst);

#define ARR(inst, T, field) ((T*)(void*)((unsigned char*)(inst) + (size_t)(inst)->field))
#define CARR(inst, T, field) ((const T*)(const void*)((const unsigned char*)(inst) + (size_t)(inst)->field))

/* ---- helpers (static inline: every instance_*.c file reads the layout the same way) */

/* Two's complement reinterpretation without implementation-defined conversions. */
static inline int32_t instance_to_i32(uint32_t v) { return v <= 0x7FFFFFFFu ? (int32_t)v : -(int32_t)(~v) - 1; }
static inline int64_t instance_to_i64(uint64_t v) {
    return v <= 0x7FFFFFFFFFFFFFFFull ? (int64_t)v : -(int64_t)(~v) - 1;
}

static inline size_t instance_align8(size_t v) { return (v + 7u) & ~(size_t)7u; }

/* A switch's inertialization (docs/instance.md "Inertialization"): state while active, all zero otherwise. */
typedef struct sw_inert {
    uint32_t active;  /* 0 or 1 */
    uint32_t elapsed; /* ticks since the trigger tick (0 after it), < total */
    uint32_t total;   /* T: the trigger's fade_ticks, >= 1 */
    uint32_t pad_;    /* 0 */
} sw_inert;

/* Switches on a graph with a skeleton may inertialize: only those graphs have the area. */
static inline int instance_can_inertialize(const bsync_graph* g) {
    return g->switch_count > 0 && g->skeleton != NULL && g->joint_count > 0;
}

/* Bytes of the inertialization area (every part a multiple of 8). */
static inline size_t instance_inert_bytes(const bsync_graph* g) {
    if (!instance_can_inertialize(g)) return 0;
    const size_t W = g->switch_count, J = g->joint_count;
    return W * sizeof(sw_inert) + instance_align8(W * J * sizeof(bsync_vec3)) + W * J * sizeof(bsync_quat) +
           J * sizeof(bsync_trs) + instance_align8(2u * W * J * sizeof(fix16_t)) + J * sizeof(bsync_trs);
}

/* The actions area (graph_impl.h has_actions; docs/actions.md "State"): u32 report count, u32 0, the
 * last tick's reports bsync_action_report[report_cap], the range states u8[range_states] (8-aligned).
 * It sits just before the inertialization area (found from the end, so graphs without actions keep
 * their exact layout). */
/* Graphs with actions and layers: the policy contributions fx[S] (base or layer, docs/actions.md
 * "Policies"), a layer's masses fx[N] and contributions fx[S] (per-tick scratch, never state). */
static inline size_t instance_actions_layer_bytes(const bsync_graph* g) {
    if (g->action_count == 0 || g->layer_count == 0) return 0;
    return 2u * instance_align8((size_t)g->slot_count * sizeof(fix16_t)) +
           instance_align8((size_t)g->node_count * sizeof(fix16_t));
}
static inline size_t instance_actions_bytes(const bsync_graph* g) {
    if (!g->has_actions) return 0;
    return 8u + instance_align8((size_t)g->report_cap * sizeof(bsync_action_report)) +
           instance_align8((size_t)g->range_states) + instance_actions_layer_bytes(g);
}

/* instance_curves.c: float curve channel `channel` now (docs/actions.md "Float curves"). */
fix16_t instance_curve_value(const bsync_instance* inst, uint32_t channel);

/* A live instance (instance_init ran on it). */
static inline int instance_valid(const bsync_instance* inst) {
    return inst && inst->magic == INSTANCE_MAGIC && inst->graph;
}

/* The switch stacks are the last switch_count * sizeof(sw_stack) bytes of the instance. */
static inline sw_stack* instance_switch_stacks(bsync_instance* inst) {
    return (sw_stack*)(void*)((unsigned char*)inst + (size_t)inst->size -
                              (size_t)inst->graph->switch_count * sizeof(sw_stack));
}
static inline const sw_stack* instance_cswitch_stacks(const bsync_instance* inst) {
    return (const sw_stack*)(const void*)((const unsigned char*)inst + (size_t)inst->size -
                                          (size_t)inst->graph->switch_count * sizeof(sw_stack));
}

/* The inertialization area (just before the stacks); only for instance_can_inertialize() graphs. */
typedef struct inert_area {
    sw_inert* st;     /* W */
    bsync_vec3* t;    /* W * J: switch i's joint j at [i * J + j] */
    bsync_quat* r;    /* W * J */
    bsync_trs* pose;  /* J: scratch */
    fix16_t* v;       /* 2 * W * J: switch i's joint j: translation v0 at [2 (i J + j)], rotation v0 next */
    bsync_trs* prev;  /* J: the pose shown before this tick (computed only in ticks that inertialize) */
} inert_area;
static inline inert_area instance_inert_of(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    const size_t W = g->switch_count, J = g->joint_count;
    unsigned char* p = (unsigned char*)inst + (size_t)inst->size - W * sizeof(sw_stack) - instance_inert_bytes(g);
    inert_area a;
    a.st = (sw_inert*)(void*)p;
    p += W * sizeof(sw_inert);
    a.t = (bsync_vec3*)(void*)p;
    p += instance_align8(W * J * sizeof(bsync_vec3));
    a.r = (bsync_quat*)(void*)p;
    p += W * J * sizeof(bsync_quat);
    a.pose = (bsync_trs*)(void*)p;
    p += J * sizeof(bsync_trs);
    a.v = (fix16_t*)(void*)p;
    p += instance_align8(2u * W * J * sizeof(fix16_t));
    a.prev = (bsync_trs*)(void*)p;
    return a;
}
static inline inert_area instance_cinert_of(const bsync_instance* inst) {
    return instance_inert_of((bsync_instance*)(uintptr_t)inst);
}

typedef struct actions_area {
    uint32_t* count;              /* reports of the last tick */
    bsync_action_report* report;  /* report_cap */
    uint8_t* open;                /* range_states: 1 while the range is open (state) */
    fix16_t *policy, *mass, *lcontrib; /* instance_actions_layer_bytes (NULL without) */
} actions_area;
static inline actions_area instance_actions_of(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    unsigned char* p = (unsigned char*)inst + (size_t)inst->size - (size_t)g->switch_count * sizeof(sw_stack) -
                       instance_inert_bytes(g) - instance_actions_bytes(g);
    actions_area a;
    a.count = (uint32_t*)(void*)p;
    a.report = (bsync_action_report*)(void*)(p + 8u);
    a.open = p + 8u + instance_align8((size_t)g->report_cap * sizeof(bsync_action_report));
    a.policy = a.mass = a.lcontrib = NULL;
    if (instance_actions_layer_bytes(g) > 0) {
        unsigned char* q = a.open + instance_align8((size_t)g->range_states);
        a.policy = (fix16_t*)(void*)q;
        q += instance_align8((size_t)g->slot_count * sizeof(fix16_t));
        a.lcontrib = (fix16_t*)(void*)q;
        q += instance_align8((size_t)g->slot_count * sizeof(fix16_t));
        a.mass = (fix16_t*)(void*)q;
    }
    return a;
}
static inline actions_area instance_cactions_of(const bsync_instance* inst) {
    return instance_actions_of((bsync_instance*)(uintptr_t)inst);
}

/* The position before the last tick: the exact inverse of bsync_time_advance with this step (the
 * steps of the last tick are the current ones: docs/instance.md "Root motion"). */
static inline bsync_clip_time instance_unstep(const bsync_clip_time* now, const bsync_time_step* step) {
    bsync_clip_time t = *now;
    bsync_time_step back = *step;
    back.negative = !step->negative;
    bsync_time_advance(&t, &back);
    return t;
}

/* `t` + offset (2^-32 cycle units), the carry into cycles counted. */
static inline bsync_clip_time instance_offset_time(bsync_clip_time t, uint32_t offset) {
    if ((uint64_t)t.phase + (uint64_t)offset > 0xFFFFFFFFu) t.cycles += 1;
    t.phase += offset; /* wraps mod 2^32 */
    return t;
}

/* `t` moved by d (2^-32 cycle units, either sign), the borrow or carry into cycles counted. */
static inline bsync_clip_time instance_shift_time(bsync_clip_time t, int32_t d) {
    if (d >= 0) return instance_offset_time(t, (uint32_t)d);
    const uint32_t m = (uint32_t)(-(int64_t)d);
    if (t.phase < m) t.cycles -= 1;
    t.phase -= m; /* wraps mod 2^32 */
    return t;
}

/* instance_pose.c (docs/actions.md "The marker position", "Sync groups"): the node whose clock anchors
 * marker-synced slot gs (its leader's node; gs's own without a leader) and the leader's motion
 * (GRAPH_NONE without one); the marker offset of `motion` for the leader at phase f: (mapped phase - f)
 * as a signed 32-bit value, 0 for the leader's own motion, without a leader or without a matching pair. */
uint32_t instance_marker_anchor(const bsync_instance* inst, const graph_slot* gs, uint32_t* lead_motion);
int32_t instance_marker_delta(const bsync_graph* g, uint32_t lead_motion, uint32_t motion, uint32_t f);

/* Motion slot s's clock position (its NONE clock, or its driving node's clock, plus the offsets, and on
 * a marker-synced node the marker offset: the position the pose samples at, cycles counted) now, and
 * (before != NULL) before the last tick (the clock stepped back, mapped with the current weights). */
static inline void instance_slot_position(const bsync_instance* inst, uint32_t s, bsync_clip_time* now,
                                          bsync_clip_time* before) {
    const bsync_graph* g = inst->graph;
    const graph_slot* gs = &g->slots[s];
    const bsync_clip_time* clk;
    const bsync_time_step* step;
    uint32_t offset;
    if (gs->clock != GRAPH_NONE) {
        clk = &CARR(inst, bsync_clip_time, off_slot_clocks)[gs->clock];
        step = &g->clock_steps[gs->clock];
        offset = gs->offset32;
    } else {
        uint32_t n = gs->node, lead = GRAPH_NONE;
        if (g->has_marker_sync && g->marker_sync[n]) n = instance_marker_anchor(inst, gs, &lead);
        const graph_node* gn = &g->nodes[n];
        clk = &CARR(inst, bsync_clip_time, off_clocks)[gn->driver];
        step = &CARR(inst, bsync_time_step, off_steps)[gn->driver];
        offset = gn->offset32 + gs->offset32; /* wraps mod 2^32 */
        if (lead != GRAPH_NONE) { /* the marker position: the anchor's position plus the marker offset */
            *now = instance_shift_time(instance_offset_time(*clk, offset),
                                       instance_marker_delta(g, lead, gs->index, clk->phase + gn->offset32));
            if (before) {
                const bsync_clip_time b = instance_unstep(clk, step);
                *before = instance_shift_time(instance_offset_time(b, offset),
                                              instance_marker_delta(g, lead, gs->index, b.phase + gn->offset32));
            }
            return;
        }
    }
    *now = instance_offset_time(*clk, offset);
    if (before) *before = instance_offset_time(instance_unstep(clk, step), offset);
}

/* Bound slot b's key cursor (cursors are packed in bound order). */
static inline bsync_sample_cursor* instance_cursor_of(bsync_instance* inst, uint32_t bound) {
    unsigned char* p = (unsigned char*)inst + (size_t)inst->off_cursors;
    for (uint32_t b = 0; b < bound; b++) p += (size_t)inst->graph->bound_cursor_bytes[b];
    return (bsync_sample_cursor*)(void*)p;
}

/* The phase node n samples at: its driving clock's phase plus its offset. */
static inline uint32_t instance_sample_phase(const bsync_instance* inst, uint32_t n) {
    const graph_node* gn = &inst->graph->nodes[n];
    return CARR(inst, bsync_clip_time, off_clocks)[gn->driver].phase + gn->offset32; /* wraps */
}

/* Scratch pose i (J joints): 0 .. B-1 the bound slots' samples, B one more, with layers B+1 and B+2. */
static inline bsync_trs* instance_scratch_pose(bsync_instance* inst, uint32_t i) {
    return ARR(inst, bsync_trs, off_scratch) + (size_t)i * inst->graph->joint_count;
}

/* ---- functions shared by the instance_*.c files (hidden; one definition each) */

/* instance.c: derived state */
void instance_eval_node_weights(bsync_instance* inst, uint32_t n);
/* Slot contributions of the subtree of `node` with mass 1.0 there (blend_tree.h's flattening); contrib
 * may be NULL (masses only: a motion slot's contribution is then fx_mul(mass[its node], its weight) when
 * both and the product are > 0). */
void instance_flatten_from(const bsync_instance* inst, uint32_t node, fix16_t* mass, fix16_t* contrib);
/* Everything derived from the parameter states and stacks: filtered values, node weights, switches,
 * flattening. */
void instance_derive_all(bsync_instance* inst);
void instance_reset_cursors(bsync_instance* inst);

/* instance_pose.c: the marker phase of motion `follower` matching motion `lead` at `phase` (docs/actions.md
 * "Sync markers"); 0 when there is no matching marker pair. */
int instance_marker_map(const bsync_graph* g, uint32_t lead, uint32_t follower, uint32_t phase, uint32_t* out);

/* instance_switch.c: switch stacks and inertialization */
void instance_sw_weights(sw_stack* st);
/* Writes every switch node's child weights from its stack. */
void instance_apply_switches(bsync_instance* inst);
/* Pushes a trigger onto switch i's stack; 0 when it is ignored (its state is the newest already). */
int instance_sw_push(bsync_instance* inst, uint32_t i, const bsync_switch_trigger* t);
void instance_sw_advance_one(sw_stack* st);
void instance_sw_advance(bsync_instance* inst);
/* A rotation offset's angle 2 atan2(|q.xyz|, q.w) in [0, pi] (q.w >= 0). */
fix16_t instance_inert_angle(bsync_quat q);
void instance_inert_clear(bsync_instance* inst, uint32_t i);
void instance_inert_start(bsync_instance* inst, const uint32_t* start, const uint32_t* total, sw_stack* old,
                          int have_prev);

/* instance_actions.c (docs/actions.md) */
/* The exits due at the start of this tick, as triggers (at most one per switch) into out; their count. */
uint32_t instance_exit_triggers(const bsync_instance* inst, bsync_switch_trigger* out);
/* The last tick's reports and the new range states (after the clocks advanced). */
void instance_actions_tick(bsync_instance* inst);

/* instance_root_motion.c */
/* The last tick's root-motion delta (inst->rm_t, rm_r) from the clocks stepped back one tick. */
void instance_update_root_motion(bsync_instance* inst);
/* The twist about +Y: normalize(0, q.y, 0, q.w); a zero quaternion normalises to the identity. */
bsync_quat instance_yaw_twist(bsync_quat q);

/* instance_pose.c */
/* The blended pose without inertialization offsets: base, layers, the root-motion pose rule. */
bsync_result instance_blend_base(bsync_instance* inst, bsync_trs* out_local);
/* The pose every pose call reports: blend_base, then every active inertialization in switch order. */
bsync_result instance_blend_local(bsync_instance* inst, bsync_trs* out_local);
/* Adds switch i's decayed offset to pose. */
void instance_inert_apply_one(bsync_instance* inst, uint32_t i, bsync_trs* pose);

#endif /* BLENDSYNC_INTERNAL_INSTANCE_IMPL_H */
