/* blendsync/graph.h — the immutable blend-graph definition (design: docs/graph.md).
 *
 * Index
 *   bsync_graph_sync, bsync_graph_node_options   per-node time options (sync, time_scale, cycle_offset)
 *   bsync_graph_layer_desc, bsync_graph_switch_desc   a layer of the stack, a switch node
 *   bsync_graph_desc                             tree + skeleton + clip bindings + tick rate + filters,
 *                                                layers and switches
 *   bsync_graph_create / _destroy                build (one allocation) / free
 *   bsync_graph_hash                             identity of everything that affects simulation
 *   accessors: tree, skeleton, tick rate, counts, clip of a motion, length of a motion, find joint,
 *              root-motion settings, layer count, switch count / node
 *
 * A graph is built once from a blend tree (blend_tree.h), a skeleton, a clip for each motion (or NULL),
 * a tick rate and per-parameter filters (param.h), and is then shared, read-only, by any number of
 * instances (instance.h). It points to the tree, skeleton, clips and filter curves (it does not copy
 * them): they must outlive the graph and must not change.
 * Sample plans: the graph's one allocation also holds one sample plan (sample.h) per distinct clip
 * (motions bound to the same clip share it) over the skeleton's rest pose, made at create
 * (bsync_sample_plan_memory_size bytes each, 8-aligned) and only read afterwards, so every instance
 * of the graph, on any thread, samples through the same plans with no allocation or write to the
 * graph. Instances choose per clip the faster of bsync_clip_sample_planned and bsync_clip_sample
 * (the latter for clips whose tracks share one key-time grid); both give the same bits (sample.h),
 * so poses, checksums and the graph hash do not depend on the plans.
 *
 * Time options per node (bsync_graph_node_options; NULL = defaults for every node):
 *   sync          BSYNC_SYNC_NORMALIZED (default): the node plays its children in one normalised time
 *                 (Unity's synchronised blend tree): its cycle length is
 *                     L = sum over children with weight w_i > 0 of  w_i * L_i / time_scale_i
 *                 (L_i = the clip's duration; a child node's own L; a motion without clip data, or a
 *                 clip of duration 0, counts as 1 second), and every child is sampled at the node's
 *                 phase (+ its cycle_offset). BSYNC_SYNC_NONE: every motion child plays its clip at
 *                 its own rate (time_scale_i clip seconds per second), each with its own clock; a child
 *                 node of a NONE node keeps its own phase.
 *   time_scales   NULL (all 1.0) or child_count values in [1/1024, 1024] (raw 64 .. 0x4000000).
 *   cycle_offsets NULL (all 0) or child_count values in [0, 1): added to the phase the child is
 *                 sampled at (in 2^-16 cycle steps).
 * Which phase drives a child node's sampling: a node N other than the root takes its FIRST parent P
 * (lowest node index, then lowest child slot). If P is synchronised, N's children are sampled at P's
 * sampling phase + the cycle offset of N's slot in P (so a synchronised tree shares one time, as in
 * Unity); otherwise (or for the root, or a node no other node uses) at N's own phase. Every node keeps
 * and advances its own phase anyway (at own_scale / L_N cycles per second, own_scale = the time scale of
 * N's slot in a NONE first parent, else 1), so a node's phase is defined even when nothing samples it.
 *
 * Build checks (bsync_graph_create), first failure returned:
 *   BSYNC_INVALID_ARGUMENT  NULL desc/tree/out; clips given for a motion while skeleton is NULL;
 *                           a filter desc param_filter_init rejects; a pair filter on the last
 *                           parameter or whose partner (next parameter) has a non-zero filter desc;
 *                           a sync value other than the two; time_scale or cycle_offset out of range;
 *                           root_motion or root_rotation not one of the enum values; root_motion
 *                           EXTRACT or NONE without a skeleton; root_joint >= the skeleton's joint
 *                           count (checked only when a skeleton is given)
 *   BSYNC_BAD_TICK_RATE     tick_rate outside 15..60
 *   BSYNC_MISMATCH          a clip whose joint count is not the skeleton's
 *   BSYNC_LIMIT_EXCEEDED    more than BSYNC_MAX_BLEND_POSES (motion child slots that have a clip):
 *                           they bound the poses one pose call blends and the instance's scratch
 *   BSYNC_OUT_OF_MEMORY     the allocator returned null
 * and for layers (desc.layers), after the checks above:
 *   BSYNC_INVALID_ARGUMENT  layer_count > 0 with layers NULL or without a skeleton; a layer's node
 *                           >= node_count; mode or weight_source not one of the enum values; a FIXED
 *                           weight outside [0, 1]; a PARAM weight_param >= parameter_count; mask_count
 *                           > 0 with mask NULL; a mask joint >= joint_count; include_descendants not 0/1
 *   BSYNC_LIMIT_EXCEEDED    layer_count > BSYNC_GRAPH_MAX_LAYERS or mask_count > BSYNC_MAX_JOINTS
 *
 * and for switches (desc.switches), after the layer checks:
 *   BSYNC_INVALID_ARGUMENT  switch_count > 0 with switches NULL; a switch's node >= node_count; a switch
 *                           node whose sync is not BSYNC_SYNC_NONE; initial_child >= the node's child
 *                           count; two switches on the same node
 *   BSYNC_LIMIT_EXCEEDED    switch_count > BSYNC_GRAPH_MAX_SWITCHES
 *
 * Switches (switch nodes driven by input triggers, cross-fades). A switch names a
 * tree node N (its sync must be BSYNC_SYNC_NONE, so every state keeps its own clock); N's children
 * are the switch's STATES. The node's child weights are no longer its blend space's: they are the
 * switch's cross-fade weights (an instance's per-switch stack, docs/instance.md "Switches"), and they
 * multiply into masses, leaf weights, cycle lengths and sampling exactly like any node's weights (so a
 * switch at the root is the instance's base selector; a switch node used as a layer node selects that
 * layer's pose). Initially only `initial_child` plays, with weight 1.0. Triggers (play SWITCH CHILD
 * FADE_TICKS [carry_time] [inertialize]) come with the tick (bsync_instance_tick_ex); an inertialized
 * trigger switches at once and hides the pop with a decaying pose offset (instance.h,
 * "Inertialization"). The switch definition is part of the hash; the stack is instance state.
 *
 * Layers (base + N layers, each with a weight, a bone mask, override or additive).
 * The tree's root node is the BASE; each layer names a node of the same tree whose blended subtree is
 * the LAYER POSE: its slots' contributions are flattened from that node with mass 1.0 exactly as the
 * base is from the root, sampled at the same sampling phases (so a layer node is evaluated and
 * time-synchronised like any node: its own phase, or its first parent's when it also sits under a
 * synchronised node) and blended with bsync_pose_blend. Layer weight w: FIXED -> `weight` (in [0, 1]);
 * PARAM -> the parameter's FILTERED value (param.h filters apply) clamped to [0, 1].
 * Bone mask: a per-joint table m[j] in {0, 1.0} built at graph build time: m[j] = 1 when joint j is
 * listed, or when an ancestor of j is listed with include_descendants = 1; an empty mask (mask_count
 * 0) means m[j] = 1 for every joint. The instance applies, in layer order, to the pose P (starting as
 * the base pose; exact rules in docs/instance.md "Layers"):
 *   a_j = bsync_fx_mul(w, m[j]);
 *   OVERRIDE: P = bsync_pose_blend(rest, {P, weight 1.0, joint_weights 1 - a_j}, {layer, weight w,
 *             joint_weights m}) (no mask: {P, 1 - w}, {layer, w}): per joint lerp(P, layer, a_j);
 *             a_j = 0 keeps P bit for bit, a_j = 1 copies the layer's joint bit for bit;
 *   ADDITIVE: P = bsync_pose_blend_additive(P, layer, rest pose of the skeleton, w, m or NULL): the
 *             layer's difference from the skeleton's REST pose is added (a layer equal to the rest pose
 *             changes nothing).
 * A layer with w = 0 is skipped: not sampled, P unchanged bit for bit. Root motion comes from the base
 * only (layers never contribute to the delta); the root-joint treatment of the root-motion mode is
 * applied to the final, layered pose. Layers add no state: the layer weights come from the fixed desc
 * (the hash) or from parameters (the state checksum and snapshots already hold their filter states).
 *
 * Hash (bsync_graph_hash): XXH64 (checksum.h), seed BSYNC_CHECKSUM_SEED_GRAPH, fed canonically
 * (little-endian fields, names without NUL, each preceded by its u32 length) in this order:
 *   u32 3 (format), u32 tick_rate;
 *   u32 parameter_count; per parameter: name, fx default, fx dead_zone, fx dead_zone_range (0 -> 1.0),
 *     u32 has_curve, [bsync_curve_checksum_feed], fx smooth_time (<= 0 -> 0), fx max_speed (<= 0 -> 0
 *     or with smoothing off), u32 pair (a pair's second parameter: u32 2);
 *   u32 motion_count; per motion: name, u32 bound, [u64 bsync_checksum_clip];
 *   u32 node_count, u32 root; per node: name, u32 sync, u32 param_count, the u32 parameter indices,
 *     u32 child_count, per child: u32 kind, u32 index, fx time_scale, fx cycle_offset; then u64 n and
 *     the n bytes of the node's built blend space after its 48-byte block header (type, counts,
 *     resolved power, normalize, sorted layout, precomputed data: a fixed layout, fully written,
 *     little-endian on the supported targets);
 *   u64 bsync_checksum_skeleton (0 without a skeleton);
 *   u32 root_motion, u32 root_rotation, u32 root_joint (as given, in every mode);
 *   u32 layer_count; per layer: u32 node, u32 mode, u32 weight_source, fx weight (as given), u32
 *     weight_param (as given), u32 has_mask (mask_count > 0), [joint_count fx: the built table m];
 *   only when switch_count > 0 or pose rule 2 (the first u32 is then 4, format 4, or 5 with pose rule
 *     2): u32 switch_count; per switch u32 node, u32 initial_child;
 *   only with pose rule 2 (format 5): u32 2.
 *   Format 6, only for a graph with a one-shot motion, an action or an exit (first u32 6): the stream
 *   above with the switch block always present and then u32 pose_rule (1 or 2), then the actions block
 *   of docs/actions.md ("Hash"). Graphs without them hash exactly as before.
 * So two graphs built from equal inputs have equal hashes, and any change to the tick rate, a name, a
 * default, a filter or its curve, a layout, the tree's structure, a time option, the skeleton, a
 * clip's content, a root-motion setting or a layer (its node, mode, weight, weight source or the joints
 * its mask selects) changes it. Server and clients compare it before playing together. (Format 1 had
 * no root-motion fields, format 2 no layers; a graph without switches hashes as format 3, exactly as
 * before switches existed, so its hash and snapshots are unchanged; a graph with switches is format 4;
 * a graph with pose rule 2 is format 5, and rule 1 graphs, the default, hash as before rule 2 existed.)
 *
 * Does not: allocate except in create, keep globals, use floating point, or print.
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
    const fix16_t* time_scales;   /* NULL or child_count values (see above) */
    const fix16_t* cycle_offsets; /* NULL or child_count values in [0, 1) */
} bsync_graph_node_options;

/* Pose rules (docs/instance.md "Pose rules"): how the clips a blend node weighs are sampled and
 * blended. NORMALIZED (rule 1, the default): every sampled rotation is normalised (bsync_clip_sample,
 * bsync_quat_nlerp between keys), then the blend normalises their weighted sum (bsync_pose_blend).
 * LERPED (rule 2): the samples keep their lerped rotations unnormalised (bsync_clip_sample_lerp) and
 * the blend normalises each joint's weighted sum once (bsync_pose_blend_lerped): one normalisation
 * per blended joint instead of one per sampled key and one per joint. Both are exact integer rules with
 * the same bits on every machine; they give different bits (rotations within about 1e-4 rad of each
 * other on ozz's pab clips, docs/benchmarks.md), so the rule is part of the graph hash (rule 1 graphs
 * hash as before rule 2 existed) and of every replay and snapshot through it. Layers, switches,
 * root motion and everything after the slot blend are the same under both rules. */
typedef enum bsync_pose_rule { BSYNC_POSE_RULE_NORMALIZED = 1, BSYNC_POSE_RULE_LERPED = 2 } bsync_pose_rule;

/* Root motion (the exact rules are in docs/instance.md "Root motion"). KEEP (default): the root
 * joint moves in the pose as animated, nothing is extracted (the delta reads as zero / identity).
 * EXTRACT: each tick the root joint's motion is taken out of the blended pose and reported as a
 * per-tick delta (bsync_instance_root_motion: translation + yaw, or the full rotation), correct across
 * loop wraps; the pose keeps the root in place (YAW: at its rest x, z and without the extracted yaw,
 * keeping its animated height and its pitch/roll; FULL: at its rest translation and rotation).
 * NONE: the root joint stays at its rest transform and the delta reads as zero / identity.
 * EXTRACT and NONE need a skeleton. `root_joint` is the joint whose LOCAL transform (relative to its
 * parent) is root motion: normally the skeleton's root. */
typedef enum bsync_root_motion_mode {
    BSYNC_ROOT_MOTION_KEEP = 0,
    BSYNC_ROOT_MOTION_EXTRACT = 1,
    BSYNC_ROOT_MOTION_NONE = 2
} bsync_root_motion_mode;
typedef enum bsync_root_motion_rotation {
    BSYNC_ROOT_ROTATION_YAW = 0,  /* only the rotation about +Y is extracted */
    BSYNC_ROOT_ROTATION_FULL = 1
} bsync_root_motion_rotation;

#define BSYNC_GRAPH_MAX_LAYERS 16u

typedef enum bsync_layer_mode { BSYNC_LAYER_OVERRIDE = 0, BSYNC_LAYER_ADDITIVE = 1 } bsync_layer_mode;
typedef enum bsync_layer_weight_source {
    BSYNC_LAYER_WEIGHT_FIXED = 0, /* `weight` */
    BSYNC_LAYER_WEIGHT_PARAM = 1  /* the filtered value of parameter `weight_param`, clamped to [0, 1] */
} bsync_layer_weight_source;

typedef struct bsync_layer_bone {
    uint32_t joint;               /* skeleton joint index (bsync_skeleton_find for a name) */
    uint32_t include_descendants; /* 0 or 1 */
} bsync_layer_bone;

typedef struct bsync_graph_layer_desc {
    uint32_t node;                           /* the tree node whose subtree is this layer's pose */
    bsync_layer_mode mode;                   /* zero: OVERRIDE */
    bsync_layer_weight_source weight_source; /* zero: FIXED */
    fix16_t weight;                          /* FIXED: in [0, 1] (zero: the layer is off) */
    uint32_t weight_param;                   /* PARAM: a parameter index */
    const bsync_layer_bone* mask;            /* NULL or mask_count entries; 0 entries = all joints */
    uint32_t mask_count;
} bsync_graph_layer_desc;

#define BSYNC_GRAPH_MAX_SWITCHES 16u

typedef struct bsync_graph_switch_desc {
    uint32_t node;          /* the tree node whose children are the states (sync BSYNC_SYNC_NONE) */
    uint32_t initial_child; /* the state playing at init, a child index of `node` */
} bsync_graph_switch_desc;

/* ---- actions (docs/actions.md is the specification): one-shot motions, events and ranges on motions,
 * exit-time transitions of switch states. A graph with none of them hashes, ticks, checksums and
 * snapshots exactly as before they existed.
 *
 * One-shot motion (desc.one_shot[m] = 1): the motion plays its clip once and holds the last pose. Its
 * position is that of its clock (the NONE node's motion clock, or the driving node's clock in a
 * synchronised node, + the cycle offset): sampled at bsync_time_seconds(position, duration, CLAMP), so
 * from one whole cycle on it holds the clip's end; root motion stops there. In a synchronised node the
 * looping children keep wrapping on the same clock (Unity's rule for a blend tree mixing looping and
 * non-looping clips: the tree's normalised time runs on, non-looping clips clamp).
 *
 * Action (bsync_graph_action_desc): a named EVENT at clip time `time`, or a RANGE [time, end), on a motion
 * with a bound clip of duration > 0 (0 <= time <= duration; a range 0 <= time < end <= duration), an
 * integer payload, and a firing policy: WEIGHT (zero: the slot's contribution this tick >= threshold, and
 * > 0), LEADER (the slot has the largest contribution of its sync group, > 0) or ALWAYS. Actions are
 * listed grouped by motion (motions non-decreasing); names need not be unique.
 *
 * Exit (bsync_graph_exit_desc): while `state` is the newest entry of switch `switch_index`, at the start
 * of a tick whose state clock is past `exit_time` (normalised: 1.0 = the clip's, or the node's, cycle
 * end) the switch plays `target` as if a trigger {switch_index, target, fade_ticks, carry_time,
 * inertialize} came first in that tick (explicit triggers of the tick apply after it). */
typedef enum bsync_action_kind { BSYNC_ACTION_EVENT = 0, BSYNC_ACTION_RANGE = 1 } bsync_action_kind;
typedef enum bsync_action_policy {
    BSYNC_ACTION_POLICY_WEIGHT = 0, /* contribution >= threshold (and > 0) */
    BSYNC_ACTION_POLICY_LEADER = 1, /* the largest contribution of its sync group (and > 0) */
    BSYNC_ACTION_POLICY_ALWAYS = 2  /* whatever the weight (a zero-weight slot's clock runs too) */
} bsync_action_policy;

#define BSYNC_GRAPH_MAX_ACTIONS 4096u
#define BSYNC_GRAPH_MAX_EXIT_TIME ((fix16_t)(1024 * 65536)) /* 1024 cycles */

typedef struct bsync_graph_action_desc {
    const char* name;           /* 1..BSYNC_MAX_NAME-1 bytes (copied) */
    uint32_t motion;            /* a motion with a bound clip of duration > 0 */
    bsync_action_kind kind;     /* zero: EVENT */
    fix16_t time;               /* EVENT: its clip time; RANGE: its begin */
    fix16_t end;                /* RANGE: its end (> time); EVENT: 0 */
    int32_t payload;
    bsync_action_policy policy; /* zero: WEIGHT */
    fix16_t threshold;          /* WEIGHT: in [0, 64.0] (0: any contribution > 0); other policies: 0 */
} bsync_graph_action_desc;

typedef struct bsync_graph_exit_desc {
    uint32_t switch_index; /* a switch of desc.switches */
    uint32_t state;        /* the child of the switch node that exits (one exit per state) */
    uint32_t target;       /* the child it goes to (not `state`) */
    fix16_t exit_time;     /* normalised, in (0, BSYNC_GRAPH_MAX_EXIT_TIME] (1.0: when the clip ends) */
    uint32_t fade_ticks;   /* as bsync_switch_trigger (instance.h) */
    uint32_t carry_time;   /* 0 or 1 */
    uint32_t inertialize;  /* 0 or 1 (fade_ticks >= 1 and a skeleton) */
} bsync_graph_exit_desc;

/* Float curve (docs/actions.md "Float curves"): keyed values of a named channel on a motion with a bound
 * clip of duration > 0; key times strictly increasing in [0, duration], 1..BSYNC_GRAPH_MAX_CURVE_KEYS
 * keys. Curves are listed grouped by motion; one curve per (motion, name). */
#define BSYNC_GRAPH_MAX_CURVES 1024u
#define BSYNC_GRAPH_MAX_CURVE_KEYS 4096u
typedef struct bsync_graph_curve_desc {
    const char* name;      /* the channel: 1..BSYNC_MAX_NAME-1 bytes (copied) */
    uint32_t motion;
    uint32_t key_count;
    const fix16_t* times;  /* key_count clip times (seconds), copied */
    const fix16_t* values; /* key_count values, copied */
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
    const uint32_t* one_shot;               /* NULL or motion_count values 0/1 (1: plays once) */
    const bsync_graph_action_desc* actions; /* NULL or action_count entries, grouped by motion */
    uint32_t action_count;
    const bsync_graph_exit_desc* exits;     /* NULL or exit_count entries */
    uint32_t exit_count;
    const bsync_graph_curve_desc* curves;   /* NULL or curve_count entries, grouped by motion */
    uint32_t curve_count;                   /* > 0: hash format 7 (docs/actions.md "Hash") */
    const bsync_graph_marker_desc* markers; /* NULL or marker_count entries (docs/actions.md "Sync markers") */
    uint32_t marker_count;                  /* > 0 or marker_sync: hash format 8 */
    const uint8_t* marker_sync;             /* NULL or node_count 0/1 (1: a NORMALIZED node syncs by markers) */
} bsync_graph_actions_desc;

typedef struct bsync_graph_desc {
    const bsync_blend_tree* tree;
    const bsync_skeleton* skeleton;               /* NULL only when no clip is bound (no poses then) */
    const bsync_clip* const* clips;               /* NULL or motion_count entries, each may be NULL */
    uint32_t tick_rate;                           /* 15..60 Hz */
    const bsync_param_filter_desc* filters;       /* NULL or parameter_count entries (zero = none) */
    const bsync_graph_node_options* node_options; /* NULL or node_count entries (zero = defaults) */
    bsync_root_motion_mode root_motion;           /* zero: KEEP */
    bsync_root_motion_rotation root_rotation;     /* zero: YAW */
    uint32_t root_joint;                          /* the joint whose motion is root motion (zero: 0) */
    const bsync_graph_layer_desc* layers;         /* NULL or layer_count entries, applied in order */
    uint32_t layer_count;                         /* zero: no layers */
    const bsync_graph_switch_desc* switches;      /* NULL or switch_count entries */
    uint32_t switch_count;                        /* zero: no switch nodes */
    bsync_pose_rule pose_rule;                    /* zero: BSYNC_POSE_RULE_NORMALIZED (rule 1) */
    const bsync_graph_actions_desc* actions;      /* NULL: no one-shots, actions or exits */
} bsync_graph_desc;

typedef struct bsync_graph bsync_graph; /* opaque, one block */

/* Build a graph (one allocation). The layer and switch arrays are copied (they need not outlive the
 * graph); layers are applied in array order. Zero-initialise the desc: fields may be added at the end,
 * and zero layer/switch counts give the same graph and hash as a graph without them. */
BSYNC_API bsync_result bsync_graph_create(const bsync_graph_desc* desc, const bsync_allocator* allocator, bsync_graph** out);
BSYNC_API void bsync_graph_destroy(bsync_graph* graph); /* NULL is ignored */

/* Accessors (NULL graph: 0 / NULL). */
BSYNC_API uint64_t bsync_graph_hash(const bsync_graph* graph);
BSYNC_API const bsync_blend_tree* bsync_graph_tree(const bsync_graph* graph);
BSYNC_API const bsync_skeleton* bsync_graph_skeleton(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_tick_rate(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_parameter_count(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_motion_count(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_node_count(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_joint_count(const bsync_graph* graph); /* 0 without a skeleton */
/* The clip bound to motion i (NULL when none or i out of range). */
BSYNC_API const bsync_clip* bsync_graph_motion_clip(const bsync_graph* graph, uint32_t motion);
/* The length L_i a motion counts with in the cycle-length rule (duration, or 1.0 s; 0 out of range). */
BSYNC_API fix16_t bsync_graph_motion_length(const bsync_graph* graph, uint32_t motion);
/* Index of a joint by name, for bsync_instance_joint_query (BSYNC_NOT_FOUND; BSYNC_INVALID_ARGUMENT
 * for NULL arguments or a graph without a skeleton). */
BSYNC_API bsync_result bsync_graph_find_joint(const bsync_graph* graph, const char* name, uint32_t* out);
/* The root-motion settings as given in the desc (NULL graph: KEEP, YAW, 0). */
BSYNC_API bsync_root_motion_mode bsync_graph_root_motion(const bsync_graph* graph);
BSYNC_API bsync_root_motion_rotation bsync_graph_root_rotation(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_root_joint(const bsync_graph* graph);
/* The pose rule (NULL graph, or a desc with zero: BSYNC_POSE_RULE_NORMALIZED). */
BSYNC_API bsync_pose_rule bsync_graph_pose_rule(const bsync_graph* graph);
BSYNC_API uint32_t bsync_graph_layer_count(const bsync_graph* graph); /* 0 for NULL */
BSYNC_API uint32_t bsync_graph_switch_count(const bsync_graph* graph); /* 0 for NULL */
/* The node of switch i (UINT32_MAX for NULL or i out of range). */
BSYNC_API uint32_t bsync_graph_switch_node(const bsync_graph* graph, uint32_t sw);

/* Actions (docs/actions.md). one_shot: 1 for a one-shot motion (0 for NULL or out of range). */
BSYNC_API uint32_t bsync_graph_motion_one_shot(const bsync_graph* graph, uint32_t motion);
BSYNC_API uint32_t bsync_graph_action_count(const bsync_graph* graph); /* 0 for NULL */
/* Action i as given (name pointing into the graph). BSYNC_INVALID_ARGUMENT for NULL or i out of range. */
BSYNC_API bsync_result bsync_graph_action(const bsync_graph* graph, uint32_t i, bsync_graph_action_desc* out);
BSYNC_API uint32_t bsync_graph_exit_count(const bsync_graph* graph); /* 0 for NULL */
/* Float curve channels (docs/actions.md "Float curves"): distinct curve names in order of first
 * appearance. channel_name: NULL out of range. find_curve: BSYNC_NOT_FOUND without that channel. */
BSYNC_API uint32_t bsync_graph_curve_channel_count(const bsync_graph* graph); /* 0 for NULL */
BSYNC_API const char* bsync_graph_curve_channel_name(const bsync_graph* graph, uint32_t channel);
BSYNC_API bsync_result bsync_graph_find_curve(const bsync_graph* graph, const char* name, uint32_t* channel);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_GRAPH_H */
