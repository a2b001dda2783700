/* blendsync/io/config.h — graph configuration files (JSON) -> blend trees and graph fields.
 *
 * Index
 *   bsync_config_parse / _load        text or a file -> a blend tree
 *   bsync_config_graph_fields                the graph fields (tick rate, clips, events, curves, filters, time
 *                                     options, layers, switches and exits, root motion, pose rule)
 *   bsync_config_parse_graph / _load_graph   tree + graph fields; bsync_config_graph_fields_destroy
 *   (io/graph_config.h assembles a whole bsync_graph from a file)
 *
 * Strict JSON, numbers read exactly. Errors: BSYNC_CONFIG_ERROR ("FILE: /json/path: message"),
 * BSYNC_IO_ERROR, BSYNC_OUT_OF_MEMORY, BSYNC_INVALID_ARGUMENT; outputs NULL on failure.
 * design: docs/graph-config.md (every field, limits, the calls)
 */
#ifndef BLENDSYNC_IO_CONFIG_H
#define BLENDSYNC_IO_CONFIG_H

#include "blendsync/base.h"
#include "blendsync/blend_tree.h"
#include "blendsync/curve.h"
#include "blendsync/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `name`: for messages; diags: NULL or BSYNC_MAX_BLEND_NODES entries. */
BSYNC_API bsync_result bsync_config_parse(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                bsync_blend_tree** out, bsync_blend_diagnostics* diags, bsync_error* err);
BSYNC_API bsync_result bsync_config_load(const char* path, const bsync_allocator* allocator, bsync_blend_tree** out,
                                    bsync_blend_diagnostics* diags, bsync_error* err);

/* ---- graph fields (plain data; parsed along with the tree) */

#define BSYNC_CONFIG_DEFAULT_TICK_RATE 30u
#define BSYNC_CONFIG_BUILTIN_PREFIX "builtin:"
#define BSYNC_CONFIG_BUILTIN_HUMANOID "builtin:humanoid" /* procedural.h */
#define BSYNC_CONFIG_MAX_SOURCE 1024 /* with the NUL */

/* An event or range of a clip (docs/actions.md). */
typedef struct bsync_config_event {
    char name[BSYNC_MAX_NAME];
    bsync_action_kind kind;
    fix16_t time, end;          /* seconds as written */
    int32_t payload;
    bsync_action_policy policy;
    fix16_t threshold;
} bsync_config_event;

/* A float curve of a clip (docs/actions.md "Float curves"). */
typedef struct bsync_config_curve {
    char name[BSYNC_MAX_NAME];
    uint32_t key_count;
    fix16_t* times;  /* strictly increasing seconds */
    fix16_t* values; /* times + key_count */
} bsync_config_curve;

/* A sync marker of a clip ("markers": [{"name", "time"}, ...]; docs/actions.md "Sync markers"). */
typedef struct bsync_config_marker {
    char name[BSYNC_MAX_NAME];
    fix16_t time; /* seconds, non-decreasing in file order (checked against the clip when it is bound) */
} bsync_config_marker;

typedef struct bsync_config_clip {
    char motion[BSYNC_MAX_NAME];
    char source[BSYNC_CONFIG_MAX_SOURCE]; /* as written */
    char animation[BSYNC_MAX_NAME];
    int animation_given;
    int loop;                           /* 0: a one-shot */
    uint32_t event_count;
    bsync_config_event* events;         /* owned by the graph struct */
    uint32_t curve_count;
    bsync_config_curve* curves;         /* owned by the graph struct */
    uint32_t marker_count;
    bsync_config_marker* markers;       /* owned by the graph struct */
} bsync_config_clip;

typedef struct bsync_config_filter {
    fix16_t dead_zone, dead_zone_range; /* as given */
    fix16_t smooth_time, max_speed;
    uint32_t pair;                      /* 1: with the next parameter */
    uint32_t has_curve;
    bsync_curve_wrap pre_wrap, post_wrap;
    uint32_t key_count;
    bsync_curve_key* keys;              /* owned by the graph struct */
} bsync_config_filter;

typedef struct bsync_config_node_time {
    bsync_graph_sync sync;
    uint32_t marker_sync; /* 1: "sync": "markers"; 2..255: "sync_group" (docs/actions.md "Sync groups") */
    fix16_t time_scales[BSYNC_MAX_BLEND_CHILDREN];
    fix16_t cycle_offsets[BSYNC_MAX_BLEND_CHILDREN];
} bsync_config_node_time;

/* A Switch child's "exit". */
typedef struct bsync_config_exit {
    uint32_t state, target; /* child indices */
    fix16_t at;
    uint32_t fade, carry, inertialize; /* carry 2: "start": "marker" */
} bsync_config_exit;

typedef struct bsync_config_switch {
    uint32_t node;
    uint32_t initial_child;
    uint32_t exit_count;
    bsync_config_exit exits[BSYNC_MAX_BLEND_CHILDREN];
} bsync_config_switch;

typedef struct bsync_config_mask_joint {
    char joint[BSYNC_MAX_NAME];
    uint32_t include_descendants;
} bsync_config_mask_joint;

typedef struct bsync_config_layer {
    uint32_t node;
    bsync_layer_mode mode;
    bsync_layer_weight_source weight_source;
    fix16_t weight;                          /* FIXED */
    uint32_t weight_param;                   /* PARAM */
    uint32_t mask_count;                     /* 0: every joint */
    bsync_config_mask_joint* mask;           /* owned by the graph struct */
} bsync_config_layer;

typedef struct bsync_config_graph_fields {
    uint32_t tick_rate;
    bsync_root_motion_mode root_motion;
    bsync_root_motion_rotation root_rotation;
    char root_joint[BSYNC_MAX_NAME];
    uint32_t clip_count;
    bsync_config_clip* clips;
    uint32_t parameter_count, node_count;
    bsync_config_filter filters[BSYNC_MAX_PARAMETERS];
    bsync_config_node_time nodes[BSYNC_MAX_BLEND_NODES];
    uint32_t switch_count;
    bsync_config_switch switches[BSYNC_GRAPH_MAX_SWITCHES];
    uint32_t layer_count;
    bsync_config_layer layers[BSYNC_GRAPH_MAX_LAYERS];
    bsync_pose_rule pose_rule;
} bsync_config_graph_fields;

/* Free with bsync_blend_tree_destroy and bsync_config_graph_fields_destroy; both NULL on failure. */
BSYNC_API bsync_result bsync_config_parse_graph(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                      bsync_blend_tree** out_tree, bsync_config_graph_fields** out_graph,
                                      bsync_blend_diagnostics* diags, bsync_error* err);
BSYNC_API bsync_result bsync_config_load_graph(const char* path, const bsync_allocator* allocator,
                                          bsync_blend_tree** out_tree, bsync_config_graph_fields** out_graph,
                                          bsync_blend_diagnostics* diags, bsync_error* err);
BSYNC_API void bsync_config_graph_fields_destroy(bsync_config_graph_fields* graph);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_CONFIG_H */
