/* blendsync/instance.h — one character's blend state over a graph: tick, blend state, pose, snapshots
 * (the specification: docs/instance.md).
 *
 * Index
 *   bsync_instance_memory_size / _init        the instance in caller memory (8-byte aligned)
 *   bsync_instance_input, bsync_instance_tick  advance exactly one tick
 *   bsync_switch_trigger, bsync_instance_tick_ex   the same with switch triggers ("Switches")
 *   bsync_instance_switch_state                the cross-fade stack of a switch
 *   bsync_instance_inertia_state, _inertia_joint, _inertia_decay, _inertia_curve   inertialized switches
 *                                                                ("Inertialization")
 *   blend state   _tick_count _parameter _target _parameter_state _leaf_weights _node_weights
 *                 _node_time _node_phase _node_sample_phase _node_length
 *   root motion   _root_motion (the last tick's delta; "Root motion")
 *   checksums     _state_checksum _parameter_checksum _node_checksum _pose_checksum
 *   pose          _pose (local, and model on request)  _joint_query (model transforms of chosen joints)
 *   snapshots     _save _load  _snapshot_size _snapshot_size_max _snapshot_size_now
 *   actions       _actions (the last tick's events and ranges)  _motion_time (one-shots: finished)
 *
 * The specification (exact rules, bit for bit) is docs/instance.md, by section: "State" (what a
 * snapshot holds and the state checksum covers; everything else is derived), "One tick" (filters,
 * dirty nodes, flattening and cycle lengths, clocks, tick counter, root motion), "Sampling (pose)",
 * "Layers", "Root motion" (the delta and the pose rule), "Switches" (cross-fade stacks, triggers),
 * "Inertialization" (offsets, velocities, decay curves, pose), "Checksums" (the byte streams),
 * "Snapshot bytes" (versions 1-4) and "Load checks". docs/graph.md is the overview.
 *
 * In short: an instance is plain data in caller memory (offsets only, so a memcpy of memory_size
 * bytes is a working copy for the same graph); init puts every parameter at rest on its default and
 * every clock at zero; each tick steps the filters, re-weights changed nodes, applies switch
 * triggers and fades, advances every clock one step and computes the root-motion delta; the pose is
 * sampled and blended on request and is a pure function of the state. All fixed point.
 *
 * Errors: BSYNC_INVALID_ARGUMENT for NULL arguments, a misaligned or an instance made for no graph;
 * BSYNC_BUFFER_TOO_SMALL for short memory or buffers; pose calls on a graph without a skeleton ->
 * BSYNC_MISMATCH; a joint index out of range -> BSYNC_INVALID_ARGUMENT.
 *
 * Does not: allocate (ever: the instance lives in caller memory), keep globals, use floating point.
 */
#ifndef BLENDSYNC_INSTANCE_H
#define BLENDSYNC_INSTANCE_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/time.h"
#include "blendsync/param.h"
#include "blendsync/graph.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_CHECKSUM_SEED_STATE ((uint64_t)0x626c656e64737461ull) /* "blendsta" */
#define BSYNC_CHECKSUM_SEED_PARAM ((uint64_t)0x626c656e64707261ull) /* "blendpra" */
#define BSYNC_CHECKSUM_SEED_NODE ((uint64_t)0x626c656e646e6f64ull)  /* "blendnod" */
#define BSYNC_SNAPSHOT_MAGIC 0x504E5342u                            /* "BSNP" little-endian */
#define BSYNC_SNAPSHOT_VERSION 1u          /* graphs without switches */
#define BSYNC_SNAPSHOT_VERSION_SWITCHES 2u /* graphs with switches */
#define BSYNC_SNAPSHOT_VERSION_INERTIA 3u  /* read only: inertialization without velocities */
#define BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY 4u /* graphs with switches, while one inertializes */
#define BSYNC_SNAPSHOT_VERSION_ACTIONS 5u  /* graphs with range actions (docs/actions.md "Snapshots") */
#define BSYNC_SNAPSHOT_VERSION_ACTIONS_INERTIA 6u /* the same while a switch inertializes */
#define BSYNC_SWITCH_STACK_DEPTH 4u
#define BSYNC_SWITCH_MAX_FADE_TICKS 0x100000u

typedef struct bsync_instance bsync_instance; /* opaque, caller memory */

typedef struct bsync_instance_input {
    const fix16_t* targets;  /* parameter_count targets (a pair: x in the first, y in the second) */
    uint32_t target_count;   /* must equal the graph's parameter count */
} bsync_instance_input;

/* Bytes an instance of this graph needs (0 for NULL). Includes the pose scratch: one local pose per
 * motion slot with a clip, plus one (plus two and the layer caches when the graph has layers; plus
 * the inertialization area when it has switches and a skeleton: docs/instance.md "Inertialization"). */
BSYNC_API size_t bsync_instance_memory_size(const bsync_graph* graph);
/* Builds an instance of graph in mem (8-byte aligned, size >= bsync_instance_memory_size; the graph
 * must outlive it): tick 0, every parameter at rest on its default, every clock at zero, the derived
 * state computed ("One tick"). BSYNC_INVALID_ARGUMENT for NULL arguments or misaligned mem,
 * BSYNC_BUFFER_TOO_SMALL for short memory. Nothing to free. */
BSYNC_API bsync_result bsync_instance_init(void* mem, size_t size, const bsync_graph* graph, bsync_instance** out);
BSYNC_API const bsync_graph* bsync_instance_graph(const bsync_instance* inst); /* NULL if invalid */

/* Advance exactly one tick (docs/instance.md "One tick"). BSYNC_INVALID_ARGUMENT for NULL arguments or
 * a wrong target_count (nothing changes then). */
BSYNC_API bsync_result bsync_instance_tick(bsync_instance* inst, const bsync_instance_input* input);

/* "play SWITCH CHILD FADE_TICKS [carry] [inertialize]" (docs/instance.md "Switches", "Inertialization").
 * Code that fills a trigger field by field must set every field (inertialize = 0 for a cross-fade). */
typedef struct bsync_switch_trigger {
    uint32_t switch_index; /* index into the graph's switches */
    uint32_t child;        /* child index of the switch node: the state to play */
    uint32_t fade_ticks;   /* 0 = instant; at most BSYNC_SWITCH_MAX_FADE_TICKS; with inertialize: the
                              offset's decay length T (>= 1) */
    uint32_t carry_time;   /* 0 or 1: start at the dominant state's normalised phase */
                           /* 2 (BSYNC_SWITCH_START_MARKER, graphs with markers): at its matching marker (docs/actions.md "Sync markers") */
    uint32_t inertialize;  /* 0 or 1: switch at once and decay a pose offset over fade_ticks ticks */
} bsync_switch_trigger;
#define BSYNC_SWITCH_START_MARKER 2u /* carry_time: start the state at the dominant state's marker phase */
/* bsync_instance_tick with triggers applied in array order (trigger_count 0: the same as
 * bsync_instance_tick). Every argument is checked before anything changes: first every trigger's
 * arguments (BSYNC_INVALID_ARGUMENT, also for inertialize > 1 or inertialize with fade_ticks 0), then
 * BSYNC_MISMATCH for an inertialized trigger on a graph without a skeleton. */
BSYNC_API bsync_result bsync_instance_tick_ex(bsync_instance* inst, const bsync_instance_input* input,
                                    const bsync_switch_trigger* triggers, uint32_t trigger_count);

typedef struct bsync_switch_entry {
    uint32_t child;      /* state */
    fix16_t weight;      /* its current weight */
    uint32_t fade_ticks; /* the newest entry of several: its fade length; else 0 */
    uint32_t fade_done;  /* ticks of that fade done */
} bsync_switch_entry;
/* The stack of switch sw, oldest first, into out[0 .. *count). BSYNC_INVALID_ARGUMENT for NULL
 * arguments or sw out of range. */
BSYNC_API bsync_result bsync_instance_switch_state(const bsync_instance* inst, uint32_t sw,
                                        bsync_switch_entry out[BSYNC_SWITCH_STACK_DEPTH], uint32_t* count);

/* Switch sw's inertialization: active 0/1; while active, elapsed e, total T, the current zero-velocity
 * decay factor x, the joints with a nonzero initial velocity (translation or rotation) and the joints
 * whose t1 was shortened below T (either part); else all 0. BSYNC_INVALID_ARGUMENT for NULL arguments
 * or sw out of range. */
typedef struct bsync_inertia_state {
    uint32_t active, elapsed, total;
    fix16_t decay;
    uint32_t moving, shortened;
} bsync_inertia_state;
BSYNC_API bsync_result bsync_instance_inertia_state(const bsync_instance* inst, uint32_t sw, bsync_inertia_state* out);
/* One joint of switch sw's inertialization (docs/instance.md "Inertialization"): per part (t:
 * translation, r: rotation angle) the offset's magnitude x0 at the trigger, the initial velocity v0 (<=
 * 0, per tick), t1 in 2^-16 ticks (T * 65536 unless shortened) and the current factor x(e) / x0; all 0
 * while inactive. BSYNC_INVALID_ARGUMENT for NULL arguments, sw or joint out of range. */
typedef struct bsync_inertia_joint {
    fix16_t x0_t, v0_t, factor_t, x0_r, v0_r, factor_r;
    uint64_t t1_t, t1_r;
} bsync_inertia_joint;
BSYNC_API bsync_result bsync_instance_inertia_joint(const bsync_instance* inst, uint32_t sw, uint32_t joint,
                                          bsync_inertia_joint* out);
/* The zero-velocity decay factor x(k / total) (docs/instance.md "Inertialization"): 1.0 at k = 0; 0 for
 * k >= total or total 0. */
BSYNC_API fix16_t bsync_instance_inertia_decay(uint32_t k, uint32_t total);
/* Bollo's factor x(e) / x0 (docs/instance.md "Inertialization") for magnitude x0 and initial velocity
 * v0 per tick: exactly bsync_instance_inertia_decay(e, total) when x0 <= 0 or v0 >= 0 (a positive v0 is
 * zeroed); else 1.0 at e = 0, 0 for e >= min(total, 5 x0 / |v0|), in [0, 1.0]. */
BSYNC_API fix16_t bsync_instance_inertia_curve(uint32_t e, uint32_t total, fix16_t x0, fix16_t v0);

/* ---- actions (graph.h "actions"; docs/actions.md is the specification) */
/* One action of one motion slot in the last tick: an EVENT crossed `count` times, or a RANGE entered
 * `count` times, left `exits` times and open (`active`) after the tick. Listed when something happened
 * (an event crossed, a range entered, left or open), by slot (node, child), then action index. */
typedef struct bsync_action_report {
    uint32_t action;  /* graph action index (bsync_graph_action: name, payload, times) */
    uint32_t node;    /* the motion slot that played it: node and child index */
    uint32_t child;
    uint32_t kind;    /* bsync_action_kind */
    uint32_t count;   /* EVENT: crossings this tick; RANGE: entries this tick */
    uint32_t exits;   /* RANGE: exits this tick */
    uint32_t active;  /* RANGE: 1 when open after this tick */
    int32_t payload;  /* the action's payload */
} bsync_action_report;
/* The last tick's reports (a pointer into the instance, valid until its next tick or load); *count 0
 * after init and right after a load (the saved tick's reports were the saver's), and for graphs without
 * actions. BSYNC_INVALID_ARGUMENT for NULL arguments. */
BSYNC_API bsync_result bsync_instance_actions(const bsync_instance* inst, const bsync_action_report** out,
                                              uint32_t* count);
/* Where a motion slot (node, child) is: cycles completed, clip seconds (clamped for a one-shot, wrapped
 * otherwise), normalised time in [0, 1) (1.0 once a one-shot finished), one_shot, finished (a one-shot
 * past its end). BSYNC_INVALID_ARGUMENT for NULL arguments, indices out of range or a node child. */
typedef struct bsync_motion_time {
    int64_t cycles;
    fix16_t seconds;
    fix16_t normalized;
    uint32_t one_shot;
    uint32_t finished;
    uint32_t pad_;
} bsync_motion_time;
BSYNC_API bsync_result bsync_instance_motion_time(const bsync_instance* inst, uint32_t node, uint32_t child,
                                                  bsync_motion_time* out);

/* A float curve channel's value now (docs/actions.md "Float curves"): the sum over motion slots of the
 * slot's base-tree contribution times its motion's curve sampled at the slot's clip time (linear
 * between keys, held before the first and after the last; a motion without the channel gives 0).
 * BSYNC_INVALID_ARGUMENT for NULL arguments or a channel out of range. */
BSYNC_API bsync_result bsync_instance_curve(const bsync_instance* inst, uint32_t channel, fix16_t* out);

/* ---- blend state (no pose needed). Out-of-range indices give 0 / NULL. */
BSYNC_API uint64_t bsync_instance_tick_count(const bsync_instance* inst);
BSYNC_API fix16_t bsync_instance_parameter(const bsync_instance* inst, uint32_t param);  /* filtered value */
BSYNC_API fix16_t bsync_instance_target(const bsync_instance* inst, uint32_t param);     /* last target */
BSYNC_API const bsync_param_state* bsync_instance_parameter_state(const bsync_instance* inst, uint32_t param);
BSYNC_API const fix16_t* bsync_instance_leaf_weights(const bsync_instance* inst);        /* motion_count */
BSYNC_API const fix16_t* bsync_instance_node_weights(const bsync_instance* inst, uint32_t node); /* child_count */
BSYNC_API const bsync_clip_time* bsync_instance_node_time(const bsync_instance* inst, uint32_t node); /* own clock */
BSYNC_API fix16_t bsync_instance_node_phase(const bsync_instance* inst, uint32_t node);  /* own phase, [0, 1) */
/* The phase the node's children are sampled at (its driver's phase + offset), as 2^-32 units. */
BSYNC_API uint32_t bsync_instance_node_sample_phase(const bsync_instance* inst, uint32_t node);
BSYNC_API fix16_t bsync_instance_node_length(const bsync_instance* inst, uint32_t node); /* L_N, seconds */
/* The phase (2^-32 units) motion child `child` of `node` is sampled at, marker sync applied (docs/actions.md "Sync markers"); 0 if none. */
BSYNC_API uint32_t bsync_instance_child_sample_phase(const bsync_instance* inst, uint32_t node, uint32_t child);

/* ---- root motion: the last tick's delta (docs/instance.md "Root motion"). */
typedef struct bsync_root_motion {
    bsync_vec3 translation; /* in the character's frame at the start of the tick, metres */
    bsync_quat rotation;    /* unit; a rotation about +Y in YAW mode */
} bsync_root_motion;
/* BSYNC_INVALID_ARGUMENT for NULL arguments (out untouched). Zero / identity unless EXTRACT. */
BSYNC_API bsync_result bsync_instance_root_motion(const bsync_instance* inst, bsync_root_motion* out);

/* ---- checksums (docs/instance.md "Checksums": the streams hashed); 0 for an invalid instance or index */
BSYNC_API uint64_t bsync_instance_state_checksum(const bsync_instance* inst);
BSYNC_API uint64_t bsync_instance_parameter_checksum(const bsync_instance* inst, uint32_t param);
BSYNC_API uint64_t bsync_instance_node_checksum(const bsync_instance* inst, uint32_t node);
/* Computes the pose (into the instance's scratch) and checksums it; out_per_joint: NULL or
 * joint_count entries. */
BSYNC_API bsync_result bsync_instance_pose_checksum(bsync_instance* inst, uint64_t* out, uint64_t* out_per_joint);

/* ---- pose (docs/instance.md "Sampling (pose)", "Layers", "Root motion", "Inertialization"): a pure
 * function of the state. out_local: joint_count transforms; out_model: NULL or joint_count transforms.
 * BSYNC_MISMATCH for a graph without a skeleton, BSYNC_INVALID_ARGUMENT for NULL arguments or a joint
 * index out of range. */
BSYNC_API bsync_result bsync_instance_pose(bsync_instance* inst, bsync_trs* out_local, bsync_trs* out_model);
/* Model transforms of joints[0 .. count) into out_model[0 .. count) (any order, repeats allowed). */
BSYNC_API bsync_result bsync_instance_joint_query(bsync_instance* inst, const uint32_t* joints, uint32_t count,
                                        bsync_trs* out_model);

/* ---- snapshots (docs/instance.md "Snapshot bytes", "Load checks"): every byte little-endian */
/* The size of a snapshot without a running inertialization (versions 1 and 2; the only size for
 * graphs that cannot inertialize). */
BSYNC_API size_t bsync_instance_snapshot_size(const bsync_graph* graph);
/* The largest snapshot of this graph (every switch inertializing); a buffer of this size always fits. */
BSYNC_API size_t bsync_instance_snapshot_size_max(const bsync_graph* graph);
/* The size bsync_instance_save writes now (0 for an invalid instance). */
BSYNC_API size_t bsync_instance_snapshot_size_now(const bsync_instance* inst);
/* *written (may be NULL) = bytes written (bsync_instance_snapshot_size_now); BSYNC_BUFFER_TOO_SMALL
 * when cap is short (nothing written). */
BSYNC_API bsync_result bsync_instance_save(const bsync_instance* inst, void* buf, size_t cap, size_t* written);
/* Restores a snapshot of the same graph. Every check runs before anything is written (the instance
 * is untouched on failure): BSYNC_BAD_BLOB for a bad length, magic, version, XXH64 or field range,
 * BSYNC_MISMATCH for another graph's hash. Then the derived state is recomputed and the cursors reset. */
BSYNC_API bsync_result bsync_instance_load(bsync_instance* inst, const void* buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_INSTANCE_H */
