/* blendsync/io/config.h — graph configuration files (JSON) -> blend trees.
 *
 * Index
 *   bsync_config_parse        text -> bsync_blend_tree (with exact decimal numbers)
 *   bsync_config_load    a file -> bsync_blend_tree
 *   bsync_config_graph        the graph fields of a config (tick rate, clips, filters, time options,
 *                             root motion) as plain data; bsync_config_parse_graph / _load_graph_file
 *                             parse tree + graph fields, bsync_config_graph_destroy frees them
 *   (io/graph_config.h assembles a whole bsync_graph from a file: skeleton, clips, curves, graph)
 *
 * Format (graph fields below; unknown fields are errors so typos never pass silently):
 *   {
 *     "parameters": { "speed": { "default": 0 }, "x": {}, "y": {} },
 *     "root": "move",
 *     "nodes": {
 *       "move":  { "type": "SimpleDirectional2D", "parameters": ["x", "y"],
 *                  "children": [ { "motion": "idle", "position": [0, 0] }, ... ] },
 *       "speed": { "type": "Simple1D", "parameter": "speed",
 *                  "children": [ { "motion": "idle", "threshold": 0 }, ... ] },
 *       "face":  { "type": "Direct", "normalize": false,
 *                  "children": [ { "motion": "smile", "parameter": "smile" } ] },
 *       "spread":{ "type": "InverseDistance2D", "power": 2, "parameters": ["x", "y"], "children": [...] }
 *     }
 *   }
 * Graph fields (all optional, so a blend-tree-only config stays valid; the tree
 * functions check them too and ignore their values):
 *   top level   "tick_rate": integer 15..60 (default 30);
 *               "clips": { MOTION: {"source": FILE, "animation": NAME, "loop": true}, ... } — FILE is
 *                 relative to the config file's directory (an absolute path is used as is; .gltf .glb
 *                 .bvh .bsclip), or "builtin:humanoid": the built-in procedural humanoid (procedural.h:
 *                 its skeleton and clips "idle", "walk", "run", used like an imported asset); any other
 *                 "builtin:..." is an error at /clips/MOTION/source; "animation" defaults to MOTION;
 *                 "loop" defaults to true; false makes the motion a one-shot; "events" lists
 *                 events and ranges (docs/graph-config.md "Events", docs/actions.md); every MOTION
 *                 must be a motion of the tree; a Switch child may have an "exit";
 *               "layers": [ {"node": NODE, "mode": "override" | "additive" (default override),
 *                 "weight": w in [0, 1] (default 1) | "weight_parameter": PARAM (not both),
 *                 "mask": {"joints": [JOINT | {"joint": JOINT, "include_children": bool}, ...],
 *                          "include_children": bool (default true: the default of string entries)}}, ...]
 *                 at most BSYNC_GRAPH_MAX_LAYERS, applied in array order onto the root's pose (graph.h
 *                 "Layers": bsync_graph_layer_desc; "weight_parameter" is WEIGHT_PARAM: the filtered
 *                 parameter clamped to [0, 1]). The mask is the core's binary per-joint table: a listed
 *                 joint (and, with include_children, every descendant) gets the layer weight, the
 *                 others 0; no "mask" (or "joints": []) = every joint. Joint names are looked up in the
 *                 skeleton by io/graph_config.h (errors at /layers/K/mask/joints/J); layers need clips.
 *               "root_motion": "keep" | "extract" | "none" (default keep); "root_rotation": "yaw" |
 *                 "full" (default yaw); "root_joint": a joint name (default: joint 0).
 *               "pose_rule": "normalized" | "lerped" (default normalized: graph.h's pose rules 1 and 2).
 *   parameter   "dead_zone" (>= 0), "dead_zone_range" (> dead_zone; default 1.0), "curve" (see below),
 *               "smooth_time" (>= 0 seconds; 0 = no SmoothDamp), "max_speed" (>= 0 units/s, 0 =
 *               unlimited; needs smooth_time > 0), "pair": NAME — this parameter (x) and NAME (y) are
 *               one 2D pair (radial dead zone, curve on the length, vector SmoothDamp): NAME must be
 *               the parameter declared right after this one and must have no filter fields itself.
 *   curve       an array of keys, or {"keys": [...], "pre_wrap": W, "post_wrap": W} with W one of
 *               "clamp" (default), "loop", "pingpong". A key: {"time": t, "value": v} plus optional
 *               "in_tangent", "out_tangent" (default 0), "in_weight", "out_weight" (in [0, 1], default
 *               1/3), "weighted_mode": "none" | "in" | "out" | "both" (default none), "stepped": true
 *               (both sides constant, Unity's Constant tangents) | false | "in" | "out" | "both".
 *               1..1024 keys, no two at the same time (curve.h).
 *   node        "sync": "normalized" (default) | "none".
 *   Switch      {"type": "Switch", "initial": STATE, "children": [{"motion": STATE}, ...]}: a switch
 *               node (graph.h, bsync_graph_desc.switches): its children (motions or nodes, each name at most
 *               once) are the states, played by triggers (docs/instance.md "Switches"); "initial" names the
 *               state playing at init (default: the first child). Children take "time_scale" and
 *               "cycle_offset"; "sync" may only be "none" (a switch node always is: every state keeps
 *               its own clock). Its tree node is a Simple1D over the FIRST declared parameter with
 *               thresholds 0, 1, 2, ... (the tree needs some blend space; the switch replaces its
 *               weights), so a config with a Switch must declare at least one parameter. Switches are
 *               numbered in node index (file) order.
 *   child       "time_scale" (1/1024 .. 1024, default 1), "cycle_offset" ([0, 1), default 0).
 * A child's "motion" names another node (nesting) or a motion (a leaf); motions need no clip data.
 * Numbers become fix16 by exact decimal rounding of their text (bsync_fx_parse), never through a
 * float; a number outside Q16.16's range is an error naming its path.
 *
 * "parameters", "root" and "nodes" are required; a parameter's "default" is optional (0). Fields per
 * type: Simple1D "parameter" + children {"motion", "threshold"}; the 2D types "parameters" [x, y] +
 * children {"motion", "position": [x, y]} (InverseDistance2D also "power", an integer 1..8);
 * Direct "normalize" (bool, optional) + children {"motion", "parameter"}. Nodes are indexed in file
 * order, parameters in file order, motions in order of first use (one motion per name).
 * The text must be strict JSON (RFC 8259); invalid JSON is reported as "FILE:LINE:COLUMN: invalid
 * JSON: ..." at the first offending byte (columns count bytes from 1).
 *
 * Errors fill a bsync_error whose message names the file and the JSON path, e.g.
 *   "loco.json: /nodes/move/children/2/position: expected an array of 2 numbers"
 * and return BSYNC_CONFIG_ERROR (BSYNC_IO_ERROR when the file cannot be read, BSYNC_OUT_OF_MEMORY
 * when an allocation fails, BSYNC_INVALID_ARGUMENT for null arguments). *out is NULL on failure. Layout warnings of
 * the blend spaces are reported per node through `diags` (node_count entries, may be NULL).
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

/* `name` is used in messages (a file name). `diags` receives BSYNC_MAX_BLEND_NODES entries at most:
 * pass an array of BSYNC_MAX_BLEND_NODES or NULL. */
BSYNC_API bsync_result bsync_config_parse(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                bsync_blend_tree** out, bsync_blend_diagnostics* diags, bsync_error* err);
BSYNC_API bsync_result bsync_config_load(const char* path, const bsync_allocator* allocator, bsync_blend_tree** out,
                                    bsync_blend_diagnostics* diags, bsync_error* err);

/* ---- graph fields (plain data; parsed along with the tree) */

#define BSYNC_CONFIG_DEFAULT_TICK_RATE 30u
#define BSYNC_CONFIG_BUILTIN_PREFIX "builtin:"          /* a "source" naming a built-in asset */
#define BSYNC_CONFIG_BUILTIN_HUMANOID "builtin:humanoid" /* procedural.h: clips idle, walk, run */
#define BSYNC_CONFIG_MAX_SOURCE 1024 /* bytes of a clip source path, including the NUL */

/* An event or range of a clip ("events" of a clip; docs/actions.md, docs/graph-config.md "Events"). */
typedef struct bsync_config_event {
    char name[BSYNC_MAX_NAME];
    bsync_action_kind kind;     /* "time": EVENT; "begin" + "end": RANGE */
    fix16_t time, end;          /* seconds as written (checked against the clip when it is bound) */
    int32_t payload;            /* "payload" (integer, default 0) */
    bsync_action_policy policy; /* "policy": "weight" (default), "leader", "always" */
    fix16_t threshold;          /* "threshold" (weight policy, default 0: any weight > 0) */
} bsync_config_event;

/* A float curve of a clip ("curves": {"NAME": [[time, value], ...]}; docs/actions.md "Float curves"). */
typedef struct bsync_config_curve {
    char name[BSYNC_MAX_NAME];
    uint32_t key_count;
    fix16_t* times;  /* key_count seconds, strictly increasing (one allocation with values) */
    fix16_t* values; /* key_count values (times + key_count) */
} bsync_config_curve;

/* A sync marker of a clip ("markers": [{"name", "time"}, ...]; docs/actions.md "Sync markers"). */
typedef struct bsync_config_marker {
    char name[BSYNC_MAX_NAME];
    fix16_t time; /* seconds, non-decreasing in file order (checked against the clip when it is bound) */
} bsync_config_marker;

typedef struct bsync_config_clip {
    char motion[BSYNC_MAX_NAME];        /* the key in "clips" (a motion of the tree) */
    char source[BSYNC_CONFIG_MAX_SOURCE]; /* as written in the file */
    char animation[BSYNC_MAX_NAME];     /* the animation name (default: motion) */
    int animation_given;                /* 1 when "animation" was written */
    int loop;                           /* "loop" (default true); 0: a one-shot (docs/actions.md) */
    uint32_t event_count;
    bsync_config_event* events;         /* event_count entries, file order (owned by the graph struct) */
    uint32_t curve_count;
    bsync_config_curve* curves;         /* curve_count entries, file order (owned by the graph struct) */
    uint32_t marker_count;
    bsync_config_marker* markers;       /* marker_count entries, file order (owned by the graph struct) */
} bsync_config_clip;

typedef struct bsync_config_filter {
    fix16_t dead_zone, dead_zone_range; /* as given (range 0 when absent: 1.0) */
    fix16_t smooth_time, max_speed;     /* 0 when absent */
    uint32_t pair;                      /* 1: this parameter and the next form a 2D pair */
    uint32_t has_curve;
    bsync_curve_wrap pre_wrap, post_wrap;
    uint32_t key_count;
    bsync_curve_key* keys;              /* key_count keys in file order (owned by the graph struct) */
} bsync_config_filter;

typedef struct bsync_config_node_time {
    bsync_graph_sync sync;
    uint32_t marker_sync; /* 1: "sync": "markers" (sync NORMALIZED, by markers; docs/actions.md "Sync markers") */
    fix16_t time_scales[BSYNC_MAX_BLEND_CHILDREN];   /* 1.0 where not given */
    fix16_t cycle_offsets[BSYNC_MAX_BLEND_CHILDREN]; /* 0 where not given */
} bsync_config_node_time;

/* A Switch child's "exit": {"to": STATE, "at": 1.0, "fade": N, "carry": false, "inertialize": false}. */
typedef struct bsync_config_exit {
    uint32_t state, target; /* child indices */
    fix16_t at;             /* "at" (default 1.0: when the state's clip ends) */
    uint32_t fade, carry, inertialize; /* carry 2: "start": "marker" (docs/actions.md "Sync markers") */
} bsync_config_exit;

typedef struct bsync_config_switch {
    uint32_t node;          /* the Switch node's index (its tree node: see "Switch" above) */
    uint32_t initial_child; /* the child index "initial" names (0 when not given) */
    uint32_t exit_count;    /* children with an "exit", in child order */
    bsync_config_exit exits[BSYNC_MAX_BLEND_CHILDREN];
} bsync_config_switch;

typedef struct bsync_config_mask_joint {
    char joint[BSYNC_MAX_NAME];   /* a joint name (looked up in the skeleton by io/graph_config.h) */
    uint32_t include_descendants; /* 0 or 1 */
} bsync_config_mask_joint;

typedef struct bsync_config_layer {
    uint32_t node;                           /* a node index */
    bsync_layer_mode mode;                   /* "override" (default) / "additive" */
    bsync_layer_weight_source weight_source; /* FIXED ("weight", default 1) / PARAM ("weight_parameter") */
    fix16_t weight;                          /* FIXED: in [0, 1] */
    uint32_t weight_param;                   /* PARAM: a parameter index */
    uint32_t mask_count;                     /* 0: no mask (every joint) */
    bsync_config_mask_joint* mask;           /* mask_count entries, file order (owned by the graph struct) */
} bsync_config_layer;

typedef struct bsync_config_graph {
    uint32_t tick_rate;
    bsync_root_motion_mode root_motion;
    bsync_root_motion_rotation root_rotation;
    char root_joint[BSYNC_MAX_NAME];    /* "" when not given */
    uint32_t clip_count;
    bsync_config_clip* clips;           /* clip_count entries, file order */
    uint32_t parameter_count, node_count; /* as the tree's */
    bsync_config_filter filters[BSYNC_MAX_PARAMETERS];
    bsync_config_node_time nodes[BSYNC_MAX_BLEND_NODES];
    uint32_t switch_count;              /* Switch nodes, in node index order */
    bsync_config_switch switches[BSYNC_GRAPH_MAX_SWITCHES];
    uint32_t layer_count;               /* "layers", in file order */
    bsync_config_layer layers[BSYNC_GRAPH_MAX_LAYERS];
    bsync_pose_rule pose_rule;          /* "pose_rule": NORMALIZED (default) / LERPED */
} bsync_config_graph;

/* Parse tree and graph fields. On success *out_tree and *out_graph are set (free with
 * bsync_blend_tree_destroy and bsync_config_graph_destroy); on failure both are NULL. Errors as above. */
BSYNC_API bsync_result bsync_config_parse_graph(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                      bsync_blend_tree** out_tree, bsync_config_graph** out_graph,
                                      bsync_blend_diagnostics* diags, bsync_error* err);
BSYNC_API bsync_result bsync_config_load_graph(const char* path, const bsync_allocator* allocator,
                                          bsync_blend_tree** out_tree, bsync_config_graph** out_graph,
                                          bsync_blend_diagnostics* diags, bsync_error* err);
BSYNC_API void bsync_config_graph_destroy(bsync_config_graph* graph); /* NULL is ignored */

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_CONFIG_H */
