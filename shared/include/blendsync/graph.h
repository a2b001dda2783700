/* blendsync/graph.h — the immutable blend-graph definition: built once, shared read-only by any number
 * of instances; it points to the tree, skeleton, clips and curves, which must outlive it.
 *
 * Index
 *   bsync_graph_sync, bsync_graph_node_options   per-node time options (sync, time_scale, cycle_offset)
 *   bsync_pose_rule, bsync_root_motion_mode, bsync_root_motion_rotation   graph-wide choices
 *   bsync_graph_layer_desc, bsync_graph_switch_desc   a layer of the stack, a switch node
 *   bsync_graph_desc                             tree + skeleton + clip bindings + tick rate + filters,
 *                                                layers and switches
 *   bsync_graph_create / _destroy                build (one allocation) / free
 *   bsync_graph_hash                             identity of everything that affects simulation
 *   bsync_action_kind, bsync_action_policy, bsync_graph_action_desc, bsync_graph_exit_desc,
 *   bsync_graph_curve_desc, bsync_graph_actions_desc   one-shots, events and ranges, exits, float curves
 *                                                (docs/actions.md)
 *   accessors: tree, skeleton, tick rate, counts, clip of a motion, length of a motion, find joint,
 *              root-motion settings, layer count, switch count / node, one-shot, actions, exits,
 *              curve channels
 *
 * design: docs/graph.md#the-definition-exactly-graphh (time options, build checks),
 * docs/graph.md#the-graph-hash (byte stream, format history)
 */
#ifndef BLENDSYNC_GRAPH_H
#define BLENDSYNC_GRAPH_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/skeleton.h"
#include "blendsync/clip.h"
#include "blendsync/blend_tree.h"
#include "blendsync/param.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_CHECKSUM_SEED_GRAPH ((uint64_t)0x626c656e64677266ull) /* "blendgrf" */
#define BSYNC_GRAPH_MIN_TICK_RATE 15u
#define BSYNC_GRAPH_MAX_TICK_RATE 60u
#define BSYNC_GRAPH_MIN_TIME_SCALE ((fix16_t)64)        /* 1/1024 */
#define BSYNC_GRAPH_MAX_TIME_SCALE ((fix16_t)0x4000000) /* 1024 */

typedef enum bsync_graph_sync { BSYNC_SYNC_NORMALIZED = 0, BSYNC_SYNC_NONE = 1 } bsync_graph_sync;

typedef struct bsync_graph_node_options {
    bsync_graph_sync sync;
    const fix16_t* time_scales;   /* NULL or child_count values in [1/1024, 1024] */
    const fix16_t* cycle_offsets; /* NULL or child_count values in [0, 1) */
} bsync_graph_node_options;

/* Pose rules: docs/instance.md#pose-rules (part of the graph hash). */
typedef enum bsync_pose_rule { BSYNC_POSE_RULE_NORMALIZED = 1, BSYNC_POSE_RULE_LERPED = 2 } bsync_pose_rule;

/* Root motion: docs/graph.md#root-motion, docs/instance.md#root-motion. */
typedef enum bsync_root_motion_mode {
    BSYNC_ROOT_MOTION_KEEP = 0,
    BSYNC_ROOT_MOTION_EXTRACT = 1,
    BSYNC_ROOT_MOTION_NONE = 2
} bsync_root_motion_mode;
typedef enum bsync_root_motion_rotation {
    BSYNC_ROOT_ROTATION_YAW = 0,  /* about +Y only */
    BSYNC_ROOT_ROTATION_FULL = 1
} bsync_root_motion_rotation;

#define BSYNC_GRAPH_MAX_LAYERS 16u

typedef enum bsync_layer_mode { BSYNC_LAYER_OVERRIDE = 0, BSYNC_LAYER_ADDITIVE = 1 } bsync_layer_mode;
typedef enum bsync_layer_weight_source {
    BSYNC_LAYER_WEIGHT_FIXED = 0, /* `weight` */
    BSYNC_LAYER_WEIGHT_PARAM = 1  /* parameter `weight_param`, filtered, clamped to [0, 1] */
} bsync_layer_weight_source;

typedef struct bsync_layer_bone {
    uint32_t joint;
    uint32_t include_descendants; /* 0 or 1 */
} bsync_layer_bone;

typedef struct bsync_graph_layer_desc {
    uint32_t node;                           /* its subtree is the layer's pose */
    bsync_layer_mode mode;
    bsync_layer_weight_source weight_source;
    fix16_t weight;                          /* FIXED: in [0, 1] */
    uint32_t weight_param;                   /* PARAM */
    const bsync_layer_bone* mask;            /* 0 entries = all joints */
    uint32_t mask_count;
} bsync_graph_layer_desc;

#define BSYNC_GRAPH_MAX_SWITCHES 16u

typedef struct bsync_graph_switch_desc {
    uint32_t node;          /* its children are the states (sync NONE) */
    uint32_t initial_child;
} bsync_graph_switch_desc;

/* ---- actions: one-shots, events and ranges, exit-time transitions (docs/actions.md). */
typedef enum bsync_action_kind { BSYNC_ACTION_EVENT = 0, BSYNC_ACTION_RANGE = 1 } bsync_action_kind;
typedef enum bsync_action_policy {
    BSYNC_ACTION_POLICY_WEIGHT = 0, /* contribution >= threshold (and > 0) */
    BSYNC_ACTION_POLICY_LEADER = 1, /* the largest of its sync group */
    BSYNC_ACTION_POLICY_ALWAYS = 2
} bsync_action_policy;

#define BSYNC_GRAPH_MAX_ACTIONS 4096u
#define BSYNC_GRAPH_MAX_EXIT_TIME ((fix16_t)(1024 * 65536)) /* 1024 cycles */

typedef struct bsync_graph_action_desc {
    const char* name;           /* copied */
    uint32_t motion;            /* with a bound clip */
    bsync_action_kind kind;
    fix16_t time;               /* clip seconds; RANGE: its begin */
    fix16_t end;                /* RANGE */
    int32_t payload;
    bsync_action_policy policy;
    fix16_t threshold;          /* WEIGHT: [0, 64.0] */
} bsync_graph_action_desc;

typedef struct bsync_graph_exit_desc {
    uint32_t switch_index;
    uint32_t state;        /* the child that exits */
    uint32_t target;
    fix16_t exit_time;     /* normalised (1.0: when the clip ends) */
    uint32_t fade_ticks;   /* as bsync_switch_trigger */
    uint32_t carry_time;
    uint32_t inertialize;
} bsync_graph_exit_desc;

/* Float curve: keyed values of a named channel on a motion (docs/actions.md "Float curves"). */
#define BSYNC_GRAPH_MAX_CURVES 1024u
#define BSYNC_GRAPH_MAX_CURVE_KEYS 4096u
typedef struct bsync_graph_curve_desc {
    const char* name;      /* the channel (copied) */
    uint32_t motion;
    uint32_t key_count;
    const fix16_t* times;  /* clip seconds, copied */
    const fix16_t* values; /* copied */
} bsync_graph_curve_desc;

/* Sync marker (docs/actions.md "Sync markers"): a named time on a motion with a bound clip, in [0, duration);
 * listed grouped by motion, by time within a motion, no (name, time) twice. */
#define BSYNC_GRAPH_MAX_MARKERS 1024u
typedef struct bsync_graph_marker_desc {
    const char* name; /* 1..BSYNC_MAX_NAME-1 bytes (copied) */
    uint32_t motion;
    fix16_t time;     /* clip seconds */
} bsync_graph_marker_desc;

typedef struct bsync_graph_actions_desc {
    const uint32_t* one_shot;               /* NULL or motion_count 0/1 */
    const bsync_graph_action_desc* actions; /* grouped by motion */
    uint32_t action_count;
    const bsync_graph_exit_desc* exits;
    uint32_t exit_count;
    const bsync_graph_curve_desc* curves;   /* grouped by motion */
    uint32_t curve_count;                   /* > 0: hash format 7 */
    const bsync_graph_marker_desc* markers; /* docs/actions.md "Sync markers" */
    uint32_t marker_count;                  /* > 0 or marker_sync: hash format 8 */
    const uint8_t* marker_sync;             /* NULL or node_count: 0, 1 (sync by markers), 2..255 (a sync group) */
} bsync_graph_actions_desc;

typedef struct bsync_graph_desc {
    const bsync_blend_tree* tree;
    const bsync_skeleton* skeleton;               /* NULL only without clips */
    const bsync_clip* const* clips;               /* NULL or motion_count (each may be NULL) */
    uint32_t tick_rate;                           /* 15..60 Hz */
    const bsync_param_filter_desc* filters;       /* NULL or parameter_count */
    const bsync_graph_node_options* node_options; /* NULL or node_count */
    bsync_root_motion_mode root_motion;
    bsync_root_motion_rotation root_rotation;
    uint32_t root_joint;
    const bsync_graph_layer_desc* layers;         /* applied in order */
    uint32_t layer_count;
    const bsync_graph_switch_desc* switches;
    uint32_t switch_count;
    bsync_pose_rule pose_rule;                    /* zero: rule 1 */
    const bsync_graph_actions_desc* actions;      /* NULL: none */
} bsync_graph_desc;

typedef struct bsync_graph bsync_graph;

/* One allocation; layer and switch arrays are copied. Zero-initialise the desc. */
BSYNC_API bsync_result bsync_graph_create(const bsync_graph_desc* desc, const bsync_allocator* allocator, bsync_graph** out);
BSYNC_API void bsync_graph_destroy(bsync_graph* graph);

/* Accessors (NULL graph: 0 / NULL). */
BSYNC_API uint64_t bsync_graph_hash(const bsync_graph* graph);
BSYNC_API const bsync_blend_tree* bsync_graph_tree(const bsync_graph* graph);
BSYNC_API const bsync_skeleton* bsync_graph_skeleton(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_tick_rate(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_parameter_count(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_motion_count(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_node_count(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_joint_count(const bsync_graph* graph);
BSYNC_API const bsync_clip* bsync_graph_motion_clip(const bsync_graph* graph, uint32_t motion);
/* Its duration, or 1.0 s without clip data. */
BSYNC_API fix16_t bsync_graph_motion_length(const bsync_graph* graph, uint32_t motion);
/* BSYNC_NOT_FOUND, BSYNC_INVALID_ARGUMENT (no skeleton). */
BSYNC_API bsync_result bsync_graph_find_joint(const bsync_graph* graph, const char* name, uint32_t* out);
BSYNC_API bsync_root_motion_mode bsync_graph_root_motion(const bsync_graph* graph);
BSYNC_API bsync_root_motion_rotation bsync_graph_root_rotation(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_root_joint(const bsync_graph* graph);
BSYNC_API bsync_pose_rule bsync_graph_pose_rule(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_layer_count(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_switch_count(const bsync_graph* graph);
/* UINT32_MAX out of range. */
BSYNC_API uint32_t bsync_graph_switch_node(const bsync_graph* graph, uint32_t sw);

/* Actions (docs/actions.md). */
BSYNC_API uint32_t bsync_graph_motion_one_shot(const bsync_graph* graph, uint32_t motion);
BSYNC_API uint32_t bsync_graph_action_count(const bsync_graph* graph);
/* As given, the name pointing into the graph. BSYNC_INVALID_ARGUMENT. */
BSYNC_API bsync_result bsync_graph_action(const bsync_graph* graph, uint32_t i, bsync_graph_action_desc* out);
BSYNC_API uint32_t bsync_graph_exit_count(const bsync_graph* graph);
/* Float curve channels: distinct names in order of first appearance. */
BSYNC_API uint32_t bsync_graph_curve_channel_count(const bsync_graph* graph);
BSYNC_API const char* bsync_graph_curve_channel_name(const bsync_graph* graph, uint32_t channel);
/* BSYNC_NOT_FOUND without that channel. */
BSYNC_API bsync_result bsync_graph_find_curve(const bsync_graph* graph, const char* name, uint32_t* channel);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_GRAPH_H */
