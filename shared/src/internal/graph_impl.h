/* internal/graph_impl.h — the graph block as graph.c builds it and instance*.c read it. Not public.
 *
 * The block holds pointers (to the tree, skeleton, clips, curves) and pointers into itself, so it is
 * not relocatable; it is never serialised (its identity is bsync_graph_hash). */
#ifndef BLENDSYNC_INTERNAL_GRAPH_IMPL_H
#define BLENDSYNC_INTERNAL_GRAPH_IMPL_H

#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/sample.h"
#include "blendsync/time.h"
#include "block.h"

#define GRAPH_NONE UINT32_MAX

enum { GRAPH_PARAM_SCALAR = 0, GRAPH_PARAM_PAIR_FIRST = 1, GRAPH_PARAM_PAIR_SECOND = 2 };

typedef struct graph_slot {
    uint32_t kind;       /* BSYNC_CHILD_MOTION or BSYNC_CHILD_NODE */
    uint32_t index;      /* motion or node index */
    fix16_t time_scale;  /* [1/1024, 1024] */
    fix16_t cycle_offset;/* [0, 1) as given (hash) */
    uint32_t offset32;   /* cycle_offset in 2^-32 cycle units */
    uint32_t clock;      /* NONE-node motion slot: its clock index, else GRAPH_NONE */
    uint32_t bound;      /* motion slot with a clip: its bound index (cursor, scratch), else GRAPH_NONE */
    uint32_t node;       /* owner node */
} graph_slot;

typedef struct graph_node {
    uint32_t first_slot, child_count;
    uint32_t first_param, param_count; /* into param_refs */
    uint32_t sync;                     /* bsync_graph_sync */
    uint32_t driver;                   /* node whose own clock drives this node's sampling */
    uint32_t offset32;                 /* added to the driver's phase */
    fix16_t own_scale;                 /* speed factor of the node's own phase */
} graph_node;

typedef struct graph_layer {
    uint32_t node, mode, source, param; /* bsync_graph_layer_desc, validated */
    fix16_t weight;                     /* FIXED weight, in [0, 1] */
    uint32_t has_mask;                  /* 0: every joint (mask NULL) */
} graph_layer;

typedef struct graph_switch {
    uint32_t node, initial; /* bsync_graph_switch_desc, validated */
} graph_switch;

/* An action as built (graph_actions.c; docs/actions.md). */
typedef struct graph_action {
    uint32_t motion, kind, policy, pad_;
    fix16_t time, end, threshold;
    int32_t payload;
    uint64_t at, until; /* time and end in 2^-32 cycle units, ceil(t * 2^32 / duration), <= 2^32 */
    char name[BSYNC_MAX_NAME];
} graph_action;

typedef struct graph_curve {
    uint32_t motion, channel, first_key, key_count;
} graph_curve;

/* A sync marker as built (docs/actions.md "Sync markers"). */
typedef struct graph_marker {
    uint32_t motion;
    uint32_t at; /* its time in 2^-32 cycle units, ceil(t * 2^32 / duration) (< 2^32) */
    fix16_t time;
    uint32_t name_id; /* index of the first marker in the graph with the same name */
    char name[BSYNC_MAX_NAME];
} graph_marker;

typedef struct graph_channel {
    char name[BSYNC_MAX_NAME];
} graph_channel;

typedef struct graph_exit {
    uint32_t sw, state, target;
    fix16_t at; /* exit_time */
    uint32_t fade, carry, inertialize, pad_;
} graph_exit;

struct bsync_graph {
    bsync_block_header head;
    uint64_t hash;
    const bsync_blend_tree* tree;
    const bsync_skeleton* skeleton;
    uint32_t tick_rate, param_count, motion_count, node_count;
    uint32_t slot_count, clock_count, bound_count, joint_count;
    uint32_t root, max_children;
    const bsync_clip** clips;       /* motion_count */
    fix16_t* motion_length;         /* motion_count: duration, or 1.0 s */
    bsync_param_filter* filters;    /* param_count */
    uint32_t* param_kind;           /* param_count: GRAPH_PARAM_* */
    graph_node* nodes;              /* node_count */
    graph_slot* slots;              /* slot_count */
    uint32_t* param_refs;           /* the nodes' parameter indices */
    uint32_t* topo;                 /* node_count, parents before children */
    bsync_time_step* clock_steps;   /* clock_count */
    uint32_t* clock_slot;           /* clock_count -> slot */
    uint32_t* bound_slot;           /* bound_count -> slot */
    uint64_t* bound_cursor_bytes;   /* bound_count: cursor size (rounded up to 8) */
    uint32_t root_motion;           /* bsync_root_motion_mode */
    uint32_t root_rotation;         /* bsync_root_motion_rotation */
    uint32_t root_joint;            /* < joint_count when a skeleton is given */
    uint32_t pose_rule;             /* 1 or 2 (graph.h, bsync_pose_rule) */
    uint32_t* root_tracks;          /* motion_count * 2: the bound clip's track index of the root joint's
                                       translation [2m] and rotation [2m + 1], or GRAPH_NONE */
    uint32_t layer_count, layer_pad_;
    graph_layer* layers;            /* layer_count */
    fix16_t* layer_masks;           /* layer_count * joint_count: the built table m of each layer */
    uint32_t switch_count, switch_pad_;
    graph_switch* switches;         /* switch_count */
    const bsync_sample_plan** plans;/* motion_count: the sample plan of the motion's clip over the
                                       skeleton's rest pose (motions bound to one clip share it; NULL
                                       without a clip), in the block, read-only after create */
    uint8_t* plan_use;              /* motion_count: 1 if the pose samples through plans[m]; 0 if it
                                       calls bsync_clip_sample (clips whose tracks share one key-time
                                       grid: that path searches the keys once per call and is faster
                                       there; the same bits either way, sample.h) */
    /* actions (graph_actions.c, docs/actions.md); all zero / NULL for a graph without them */
    uint32_t has_actions;           /* a one-shot motion, an action or an exit: hash format 6 */
    uint32_t action_count, exit_count;
    uint32_t range_states;          /* instance range states: sum over motion slots of their ranges */
    uint32_t report_cap;            /* sum over motion slots of their motion's actions */
    uint32_t has_leader;            /* some action has the LEADER policy (sync-group leaders needed) */
    uint8_t* one_shot;              /* motion_count (NULL without actions: every motion loops) */
    graph_action* actions;          /* action_count, grouped by motion */
    uint32_t* motion_first_action;  /* motion_count + 1 */
    uint32_t* slot_range_base;      /* slot_count: the slot's first range state (motion slots) */
    graph_exit* exits;              /* exit_count */
    /* float curves (docs/actions.md "Float curves"); zero / NULL without them */
    uint32_t curve_count, channel_count, key_total, curves_pad_;
    graph_curve* curves;            /* curve_count, grouped by motion */
    uint32_t* motion_first_curve;   /* motion_count + 1 */
    fix16_t* curve_times;           /* key_total */
    fix16_t* curve_values;          /* key_total */
    graph_channel* channels;        /* channel_count */
    /* sync markers (docs/actions.md "Sync markers"); zero / NULL without them */
    uint32_t marker_count, has_marker_sync;
    graph_marker* markers;          /* marker_count, grouped by motion, by time */
    uint32_t* motion_first_marker;  /* motion_count + 1 */
    uint8_t* marker_sync;           /* node_count: 1 where the node syncs by markers */
};

/* graph_actions.c: the actions part of graph.c's build (docs/actions.md) */
size_t graph_actions_validate(const bsync_graph_desc* d, uint32_t motion_count, uint32_t slot_count,
                              bsync_result* result);
void graph_actions_build(struct bsync_graph* g, const bsync_graph_desc* d, unsigned char* mem);
void graph_actions_hash(const struct bsync_graph* g, bsync_checksum_state* c);
void graph_curves_hash(const struct bsync_graph* g, bsync_checksum_state* c);
void graph_markers_hash(const struct bsync_graph* g, bsync_checksum_state* c);

/* 1 for a one-shot motion (graphs without actions: none). */
static inline int bsync_graph_one_shot_(const bsync_graph* g, uint32_t m) { return g->one_shot && g->one_shot[m]; }

/* The denominator of node clocks (bsync_time_step_init(1.0, ., rate)). */
static inline uint64_t bsync_graph_node_den_(const bsync_graph* g) { return (uint64_t)g->tick_rate * 65536u; }

#endif
