/* blendsync/io/synctest.h — the sync test: rewind, re-simulate, compare (GGPO's sync test, extended as
 * GGRS does with a check distance and a list of every mismatched tick), for any simulation given by
 * callbacks, with adapters for one graph instance and for a match.
 *
 * Index
 *   bsync_synctest_ops            the simulation under test (callbacks)
 *   bsync_synctest_run            run it for N ticks with check distance D; fill a report
 *   bsync_synctest_report         ticks checked, mismatches (first 64 listed, all counted)
 *   bsync_synctest_kind_name      "rewind", "fresh-0xA5", "fresh-0x5A"
 *   bsync_synctest_instance_ops   adapter: one bsync_instance, inputs from a per-tick callback
 *   bsync_synctest_match_ops      adapter: one bsync_match, frames from a per-tick callback
 *
 * Numbering. State k is the simulation after k ticks (state 0: just initialised); tick t (t = 0, 1, ..)
 * consumes tick t's input and turns state t into state t + 1. "The checksum of tick k" in the report is
 * the checksum of state k (for an instance: bsync_instance_tick_count = k).
 *
 * The run (bsync_synctest_run with N ticks, distance D in 1..64):
 *   the simulation is built by init in memory of state_size bytes that is ZERO-FILLED first (so a
 *   field init forgets is 0 in the reference run, deterministically); state 0's checksum C[0] and
 *   snapshot are recorded. Then for n = 1 .. N:
 *   1. forward: tick(n - 1); C[n] = checksum; the snapshot of state n is saved (a ring of D + 1
 *      snapshots and checksums is kept: states n - D .. n);
 *   2. if n >= D, the check of n ("ticks checked" counts these: N - D + 1 of them when N >= D):
 *      a. rewind: the snapshot of state n - D is loaded into the SAME simulation; its checksum is
 *         compared with C[n - D] (a field the checksum covers but the snapshot loses shows here);
 *         then ticks n - D .. n - 1 are re-simulated, the checksum of each state k = n - D + 1 .. n
 *         compared with C[k];
 *      b. with BSYNC_SYNCTEST_POISON_FRESH, twice more, for pattern 0xA5 and then 0x5A: a second
 *         block of state_size bytes is filled with the pattern, init is called on it (memory init does
 *         not write keeps the pattern), the snapshot of state n - D is loaded into it and compared, and
 *         the same D ticks are re-simulated and compared. A read of state that neither init nor load
 *         writes gives different results for 0x00 (the reference), 0xA5 and 0x5A;
 *      c. the simulation under test is loaded back from the snapshot of state n, so the next forward
 *         tick continues the plain forward run: a bug shows at the ticks where re-simulation differs,
 *         not at every later tick.
 *   The first checksums (C[k]) are never replaced; re-simulated ones are only compared.
 * So each state k is compared up to D + 1 times per kind (at the checks n = k .. k + D). The report
 * LISTS each (tick, kind) pair once, the first time it mismatches, in the order found (by check n,
 * then kind: rewind, 0xA5, 0x5A, then tick k ascending); mismatch_count counts those distinct pairs;
 * failed_comparisons counts every comparison that differed. Only the first
 * BSYNC_SYNCTEST_MAX_LISTED pairs are listed.
 *
 * What the ops must guarantee: tick(t) gets tick t's input from the ops' own script, as a pure
 * function of t (re-simulation asks for the same t again); init must not allocate (no destroy is ever
 * called; simulations are dropped by freeing their memory), and save must write snapshot_size(sim)
 * bytes (the size taken just before each save; it may not exceed the size at init: else
 * BSYNC_BUFFER_TOO_SMALL). A callback that fails stops the run: its result is returned, the report
 * holds what was done so far and error_tick the state n being worked on.
 *
 * Errors: BSYNC_INVALID_ARGUMENT for NULL ops / callbacks / report, state_size 0, D outside 1..64 or
 * unknown flag bits; BSYNC_OUT_OF_MEMORY when the allocator fails (nothing run). The result says
 * nothing about mismatches: BSYNC_OK with mismatch_count > 0 is a failed sync test.
 *
 * Does not: catch non-determinism between machines, compilers or builds (the two runs are the same
 * binary in the same process: tests/cli/determinism.sh compares builds), nor a bug that corrupts the
 * first run and its re-simulation alike.
 *
 * Edge code (blendsync_io): allocates through the allocator (NULL: malloc), never per tick of the
 * simulation itself.
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
#define BSYNC_SYNCTEST_POISON_FRESH 1u /* flag: also re-simulate on fresh simulations in poisoned memory */

typedef struct bsync_synctest_ops {
    void* user;        /* passed to every callback */
    size_t state_size; /* bytes of one simulation object (8-byte aligned memory is given) */
    bsync_result (*init)(void* user, void* mem, size_t size);  /* build a fresh simulation in mem */
    bsync_result (*tick)(void* user, void* sim, uint64_t t);   /* advance one tick with tick t's input */
    uint64_t (*checksum)(void* user, void* sim);               /* the full state checksum */
    size_t (*snapshot_size)(void* user, void* sim);
    bsync_result (*save)(void* user, void* sim, void* buf, size_t cap);
    bsync_result (*load)(void* user, void* sim, const void* buf, size_t len);
} bsync_synctest_ops;

typedef enum bsync_synctest_kind {
    BSYNC_SYNCTEST_REWIND = 0,   /* the simulation itself, rewound by load */
    BSYNC_SYNCTEST_FRESH_A5 = 1, /* a fresh simulation in memory filled with 0xA5 before init */
    BSYNC_SYNCTEST_FRESH_5A = 2  /* the same with 0x5A */
} bsync_synctest_kind;

typedef struct bsync_synctest_mismatch {
    uint64_t tick;       /* state k whose checksum differed */
    uint64_t checked_at; /* the check n that found it first (n - D <= k <= n) */
    uint32_t kind;       /* bsync_synctest_kind */
    uint32_t reserved;   /* 0 */
    uint64_t expected;   /* C[k], the first run's checksum */
    uint64_t got;        /* the re-simulated (or just loaded, k = n - D) checksum */
} bsync_synctest_mismatch;

typedef struct bsync_synctest_report {
    uint64_t ticks_run;          /* forward ticks done */
    uint64_t ticks_checked;      /* checks done (states n >= D) */
    uint64_t comparisons;        /* checksum comparisons made (all kinds) */
    uint64_t failed_comparisons; /* of those, the ones that differed */
    uint64_t mismatch_count;     /* distinct (tick, kind) pairs that differed */
    uint32_t listed;             /* min(mismatch_count, BSYNC_SYNCTEST_MAX_LISTED) */
    uint32_t check_distance;     /* D as run */
    uint64_t error_tick;         /* the state n being worked on when a callback failed (else 0) */
    uint64_t last_checksum;      /* C[ticks_run]: the first run's checksum of its last state */
    bsync_synctest_mismatch mismatches[BSYNC_SYNCTEST_MAX_LISTED];
} bsync_synctest_report;

/* The report is zeroed first (also on an argument error, when report is not NULL). */
BSYNC_API bsync_result bsync_synctest_run(const bsync_synctest_ops* ops, uint64_t ticks, uint32_t check_distance,
                                uint32_t flags, bsync_synctest_report* report, const bsync_allocator* allocator);

/* "rewind", "fresh-0xA5", "fresh-0x5A"; "unknown" otherwise. */
BSYNC_API const char* bsync_synctest_kind_name(uint32_t kind);

/* ---- adapter: one graph instance.
 * input(user, t, targets, triggers, &trigger_count) fills tick t's targets (all parameter_count of
 * them: instance.h's full target vector, not changes) and up to BSYNC_GRAPH_MAX_SWITCHES triggers
 * (trigger_count starts at 0). Checksum: bsync_instance_state_checksum; with with_pose (the graph
 * must have a skeleton: else BSYNC_MISMATCH from _instance_ops) XXH64 (seed 0) of the u64 state
 * checksum then the u64 pose checksum (bsync_instance_pose_checksum), little-endian. Snapshots:
 * bsync_instance_save / _load. The adapter struct must outlive the run (ops.user points to it). */
typedef bsync_result (*bsync_synctest_instance_input_fn)(void* user, uint64_t t, fix16_t* targets,
                                                          bsync_switch_trigger* triggers, uint32_t* trigger_count);
typedef struct bsync_synctest_instance {
    const bsync_graph* graph;
    int with_pose;
    bsync_synctest_instance_input_fn input;
    void* input_user;
    /* scratch, filled by the adapter */
    fix16_t targets[BSYNC_MAX_PARAMETERS];
    bsync_switch_trigger triggers[BSYNC_GRAPH_MAX_SWITCHES];
} bsync_synctest_instance;
/* Fills *out for adapter a (graph, input and with_pose set by the caller). BSYNC_INVALID_ARGUMENT
 * for NULL arguments / graph / input, BSYNC_MISMATCH for with_pose on a graph without a skeleton. */
BSYNC_API bsync_result bsync_synctest_instance_ops(bsync_synctest_instance* a, bsync_synctest_ops* out);

/* ---- adapter: one match.
 * frame(user, t, &frame) fills tick t's frame (player_count is preset to the desc's). Checksum: the
 * root blend checksum (bsync_match_checksums_get); with with_poses, XXH64 (seed 0) of the u64 root
 * blend then the u64 root pose checksum. Snapshots: bsync_match_save / _load. */
typedef bsync_result (*bsync_synctest_frame_fn)(void* user, uint64_t t, bsync_match_frame* frame);
typedef struct bsync_synctest_match {
    const bsync_match_desc* desc;
    int with_poses;
    bsync_synctest_frame_fn frame_fn;
    void* frame_user;
    bsync_match_frame frame; /* scratch */
} bsync_synctest_match;
/* BSYNC_INVALID_ARGUMENT for NULL arguments / desc / frame_fn or a desc that breaks match.h's rules. */
BSYNC_API bsync_result bsync_synctest_match_ops(bsync_synctest_match* a, bsync_synctest_ops* out);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_SYNCTEST_H */
