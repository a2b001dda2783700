/* blendsync/instance.h — one character's blend state over a graph, in caller memory (a memcpy is a
 * copy): tick, blend state, pose, snapshots. Never allocates; all fixed point.
 *
 * Index
 *   bsync_instance_memory_size / _init, bsync_instance_graph      caller memory, 8-byte aligned
 *   bsync_instance_input, bsync_instance_tick                     one tick
 *   bsync_switch_trigger, bsync_instance_tick_ex, _switch_state   switches
 *   bsync_instance_inertia_state, _inertia_joint, _inertia_decay, _inertia_curve   inertialization
 *   blend state   _tick_count _parameter _target _parameter_state _leaf_weights _node_weights
 *                 _node_time _node_phase _node_sample_phase _node_length
 *   root motion   _root_motion
 *   checksums     _state_checksum _parameter_checksum _node_checksum _pose_checksum
 *   pose          _pose _joint_query
 *   snapshots     _save _load _snapshot_size _snapshot_size_max _snapshot_size_now
 *   actions       _actions _motion_time _curve
 *
 * design: docs/instance.md (exact rules; "The calls"), docs/actions.md
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
#define BSYNC_SNAPSHOT_VERSION_INERTIA 3u  /* written by no release: refused */
#define BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY 4u /* while a switch inertializes */
#define BSYNC_SNAPSHOT_VERSION_ACTIONS 5u  /* graphs with range actions */
#define BSYNC_SNAPSHOT_VERSION_ACTIONS_INERTIA 6u
#define BSYNC_SWITCH_STACK_DEPTH 4u
#define BSYNC_SWITCH_MAX_FADE_TICKS 0x100000u

typedef struct bsync_instance bsync_instance;

typedef struct bsync_instance_input {
    const fix16_t* targets;  /* every parameter's target */
    uint32_t target_count;   /* the graph's parameter count */
} bsync_instance_input;

/* 0 for NULL; includes the pose scratch. */
BSYNC_API size_t bsync_instance_memory_size(const bsync_graph* graph);
/* 8-byte aligned mem; the graph must outlive it. Tick 0, parameters at rest. Nothing to free. */
BSYNC_API bsync_result bsync_instance_init(void* mem, size_t size, const bsync_graph* graph, bsync_instance** out);
BSYNC_API const bsync_graph* bsync_instance_graph(const bsync_instance* inst);

/* Exactly one tick. BSYNC_INVALID_ARGUMENT (nothing changes). */
BSYNC_API bsync_result bsync_instance_tick(bsync_instance* inst, const bsync_instance_input* input);

/* "play SWITCH CHILD FADE_TICKS [carry] [inertialize]"; set every field. */
typedef struct bsync_switch_trigger {
    uint32_t switch_index;
    uint32_t child;        /* the state to play */
    uint32_t fade_ticks;   /* 0 = instant */
    uint32_t carry_time;   /* 0, 1, or BSYNC_SWITCH_START_MARKER (graphs with markers) */
    uint32_t inertialize;  /* 0 or 1 (fade_ticks >= 1) */
} bsync_switch_trigger;
#define BSYNC_SWITCH_START_MARKER 2u /* carry_time: start at the matching marker */
/* Triggers in array order, all checked first. BSYNC_INVALID_ARGUMENT, BSYNC_MISMATCH. */
BSYNC_API bsync_result bsync_instance_tick_ex(bsync_instance* inst, const bsync_instance_input* input,
                                    const bsync_switch_trigger* triggers, uint32_t trigger_count);

typedef struct bsync_switch_entry {
    uint32_t child;
    fix16_t weight;
    uint32_t fade_ticks; /* the newest entry of several, else 0 */
    uint32_t fade_done;
} bsync_switch_entry;
/* Oldest first. BSYNC_INVALID_ARGUMENT. */
BSYNC_API bsync_result bsync_instance_switch_state(const bsync_instance* inst, uint32_t sw,
                                        bsync_switch_entry out[BSYNC_SWITCH_STACK_DEPTH], uint32_t* count);

/* Switch sw's inertialization (all 0 while inactive). */
typedef struct bsync_inertia_state {
    uint32_t active, elapsed, total;
    fix16_t decay;
    uint32_t moving, shortened;
} bsync_inertia_state;
BSYNC_API bsync_result bsync_instance_inertia_state(const bsync_instance* inst, uint32_t sw, bsync_inertia_state* out);
/* One joint of it, per part (t: translation, r: rotation). */
typedef struct bsync_inertia_joint {
    fix16_t x0_t, v0_t, factor_t, x0_r, v0_r, factor_r;
    uint64_t t1_t, t1_r;
} bsync_inertia_joint;
BSYNC_API bsync_result bsync_instance_inertia_joint(const bsync_instance* inst, uint32_t sw, uint32_t joint,
                                          bsync_inertia_joint* out);
/* x(k / total): 1.0 at k = 0, 0 from total on. */
BSYNC_API fix16_t bsync_instance_inertia_decay(uint32_t k, uint32_t total);
/* Bollo's factor x(e) / x0, in [0, 1.0]. */
BSYNC_API fix16_t bsync_instance_inertia_curve(uint32_t e, uint32_t total, fix16_t x0, fix16_t v0);

/* ---- actions (docs/actions.md): one report per action and motion slot that did something. */
typedef struct bsync_action_report {
    uint32_t action;  /* bsync_graph_action index */
    uint32_t node;
    uint32_t child;
    uint32_t kind;
    uint32_t count;   /* EVENT: crossings; RANGE: entries */
    uint32_t exits;   /* RANGE */
    uint32_t active;  /* RANGE: open after the tick */
    int32_t payload;
} bsync_action_report;
/* The last tick's, valid until the next tick or load; none after init or load. */
BSYNC_API bsync_result bsync_instance_actions(const bsync_instance* inst, const bsync_action_report** out,
                                              uint32_t* count);
/* Where a motion slot is; BSYNC_INVALID_ARGUMENT for a node child. */
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

/* A float curve channel's weighted value now (docs/actions.md "Float curves"). */
BSYNC_API bsync_result bsync_instance_curve(const bsync_instance* inst, uint32_t channel, fix16_t* out);

/* ---- blend state (no pose needed). Out-of-range indices give 0 / NULL. */
BSYNC_API uint64_t bsync_instance_tick_count(const bsync_instance* inst);
BSYNC_API fix16_t bsync_instance_parameter(const bsync_instance* inst, uint32_t param);  /* filtered */
BSYNC_API fix16_t bsync_instance_target(const bsync_instance* inst, uint32_t param);     /* last target */
BSYNC_API const bsync_param_state* bsync_instance_parameter_state(const bsync_instance* inst, uint32_t param);
BSYNC_API const fix16_t* bsync_instance_leaf_weights(const bsync_instance* inst);        /* motion_count */
BSYNC_API const fix16_t* bsync_instance_node_weights(const bsync_instance* inst, uint32_t node); /* child_count */
BSYNC_API const bsync_clip_time* bsync_instance_node_time(const bsync_instance* inst, uint32_t node);
BSYNC_API fix16_t bsync_instance_node_phase(const bsync_instance* inst, uint32_t node);  /* [0, 1) */
/* The phase its children are sampled at, 2^-32 units. */
BSYNC_API uint32_t bsync_instance_node_sample_phase(const bsync_instance* inst, uint32_t node);
BSYNC_API fix16_t bsync_instance_node_length(const bsync_instance* inst, uint32_t node); /* L_N, seconds */
/* The phase (2^-32 units) motion child `child` of `node` is sampled at, marker sync applied (docs/actions.md "Sync markers"); 0 if none. */
BSYNC_API uint32_t bsync_instance_child_sample_phase(const bsync_instance* inst, uint32_t node, uint32_t child);

/* ---- root motion: the last tick's delta (docs/instance.md "Root motion"). */
typedef struct bsync_root_motion {
    bsync_vec3 translation; /* metres, in the frame at the tick's start */
    bsync_quat rotation;
} bsync_root_motion;
/* Zero / identity unless EXTRACT. */
BSYNC_API bsync_result bsync_instance_root_motion(const bsync_instance* inst, bsync_root_motion* out);

/* ---- checksums (docs/instance.md#checksums); 0 for an invalid instance or index */
BSYNC_API uint64_t bsync_instance_state_checksum(const bsync_instance* inst);
BSYNC_API uint64_t bsync_instance_parameter_checksum(const bsync_instance* inst, uint32_t param);
BSYNC_API uint64_t bsync_instance_node_checksum(const bsync_instance* inst, uint32_t node);
/* Computes the pose; out_per_joint: NULL or joint_count. */
BSYNC_API bsync_result bsync_instance_pose_checksum(bsync_instance* inst, uint64_t* out, uint64_t* out_per_joint);

/* ---- pose: a pure function of the state; out_model may be NULL. BSYNC_MISMATCH (no skeleton). */
BSYNC_API bsync_result bsync_instance_pose(bsync_instance* inst, bsync_trs* out_local, bsync_trs* out_model);
/* Model transforms of the given joints. */
BSYNC_API bsync_result bsync_instance_joint_query(bsync_instance* inst, const uint32_t* joints, uint32_t count,
                                        bsync_trs* out_model);

/* ---- snapshots (docs/instance.md#snapshot-bytes) */
/* Without a running inertialization. */
BSYNC_API size_t bsync_instance_snapshot_size(const bsync_graph* graph);
/* Always fits. */
BSYNC_API size_t bsync_instance_snapshot_size_max(const bsync_graph* graph);
BSYNC_API size_t bsync_instance_snapshot_size_now(const bsync_instance* inst);
/* BSYNC_BUFFER_TOO_SMALL (nothing written). */
BSYNC_API bsync_result bsync_instance_save(const bsync_instance* inst, void* buf, size_t cap, size_t* written);
/* Untouched on failure: BSYNC_BAD_BLOB, BSYNC_MISMATCH (another graph). */
BSYNC_API bsync_result bsync_instance_load(bsync_instance* inst, const void* buf, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_INSTANCE_H */
