/* blendsync/io/synctest.h — the sync test: rewind, re-simulate, compare (GGPO's, with GGRS's check
 * distance and a list of every mismatched tick), for any simulation given by callbacks.
 *
 * Index
 *   bsync_synctest_ops            the simulation under test (callbacks)
 *   bsync_synctest_run            run it for N ticks with check distance D; fill a report
 *   bsync_synctest_report         ticks checked, mismatches (first 64 listed, all counted)
 *   bsync_synctest_kind_name      "rewind", "fresh-0xA5", "fresh-0x5A"
 *   bsync_synctest_instance_ops   adapter: one graph instance, inputs from a per-tick callback
 *   bsync_synctest_match_ops      adapter: one match, frames from a per-tick callback
 *
 * State k is the simulation after k ticks. Allocates through the allocator (NULL: malloc).
 * design: docs/synctest.md (the run, what the ops must guarantee, the adapters)
 */
#ifndef BLENDSYNC_IO_SYNCTEST_H
#define BLENDSYNC_IO_SYNCTEST_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_SYNCTEST_MAX_DISTANCE 64u
#define BSYNC_SYNCTEST_MAX_LISTED 64u
#define BSYNC_SYNCTEST_POISON_FRESH 1u /* also on fresh simulations in poisoned memory */

typedef struct bsync_synctest_ops {
    void* user;
    size_t state_size;
    bsync_result (*init)(void* user, void* mem, size_t size);  /* no allocation */
    bsync_result (*tick)(void* user, void* sim, uint64_t t);   /* input: a pure function of t */
    uint64_t (*checksum)(void* user, void* sim);
    size_t (*snapshot_size)(void* user, void* sim);
    bsync_result (*save)(void* user, void* sim, void* buf, size_t cap);
    bsync_result (*load)(void* user, void* sim, const void* buf, size_t len);
} bsync_synctest_ops;

typedef enum bsync_synctest_kind {
    BSYNC_SYNCTEST_REWIND = 0,
    BSYNC_SYNCTEST_FRESH_A5 = 1,
    BSYNC_SYNCTEST_FRESH_5A = 2
} bsync_synctest_kind;

typedef struct bsync_synctest_mismatch {
    uint64_t tick;
    uint64_t checked_at;
    uint32_t kind;
    uint32_t reserved;
    uint64_t expected;
    uint64_t got;
} bsync_synctest_mismatch;

typedef struct bsync_synctest_report {
    uint64_t ticks_run;
    uint64_t ticks_checked;
    uint64_t comparisons;
    uint64_t failed_comparisons;
    uint64_t mismatch_count;     /* distinct (tick, kind) pairs */
    uint32_t listed;
    uint32_t check_distance;
    uint64_t error_tick;
    uint64_t last_checksum;
    bsync_synctest_mismatch mismatches[BSYNC_SYNCTEST_MAX_LISTED];
} bsync_synctest_report;

/* BSYNC_OK with mismatch_count > 0 is a failed test. BSYNC_INVALID_ARGUMENT, BSYNC_OUT_OF_MEMORY. */
BSYNC_API bsync_result bsync_synctest_run(const bsync_synctest_ops* ops, uint64_t ticks, uint32_t check_distance,
                                uint32_t flags, bsync_synctest_report* report, const bsync_allocator* allocator);

BSYNC_API const char* bsync_synctest_kind_name(uint32_t kind);

/* ---- adapter: one graph instance; input fills tick t's full targets and triggers. The adapter must
 * outlive the run. */
typedef bsync_result (*bsync_synctest_instance_input_fn)(void* user, uint64_t t, fix16_t* targets,
                                                          bsync_switch_trigger* triggers, uint32_t* trigger_count);
typedef struct bsync_synctest_instance {
    const bsync_graph* graph;
    int with_pose;
    bsync_synctest_instance_input_fn input;
    void* input_user;
    /* scratch */
    fix16_t targets[BSYNC_MAX_PARAMETERS];
    bsync_switch_trigger triggers[BSYNC_GRAPH_MAX_SWITCHES];
} bsync_synctest_instance;
/* BSYNC_INVALID_ARGUMENT, BSYNC_MISMATCH (with_pose without a skeleton). */
BSYNC_API bsync_result bsync_synctest_instance_ops(bsync_synctest_instance* a, bsync_synctest_ops* out);

/* ---- adapter: one match; frame_fn fills tick t's frame. */
typedef bsync_result (*bsync_synctest_frame_fn)(void* user, uint64_t t, bsync_match_frame* frame);
typedef struct bsync_synctest_match {
    const bsync_match_desc* desc;
    int with_poses;
    bsync_synctest_frame_fn frame_fn;
    void* frame_user;
    bsync_match_frame frame; /* scratch */
} bsync_synctest_match;
/* BSYNC_INVALID_ARGUMENT (also an invalid desc). */
BSYNC_API bsync_result bsync_synctest_match_ops(bsync_synctest_match* a, bsync_synctest_ops* out);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_SYNCTEST_H */
