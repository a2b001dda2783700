/* The replay recording schedule, written once: every program that records a match (replay record,
 * eval --replay, the server and the client library) calls this instead of appending records itself,
 * so that every replay has the same shape (docs/replay.md):
 *
 *   at the start of tick t > 0 with t % snapshot_every == 0: a SNAPSHOT of the state before tick t
 *   every tick: the FRAME (tick t's inputs), then the match ticks
 *   after tick t with (t + 1) % checksum_interval == 0: a CHECKSUM of the state after tick t
 *   at the end: END (ticks, reason)
 *
 * The recorder owns nothing: the caller opens and closes the writer, owns the match and gives the
 * snapshot buffer (at least bsync_match_snapshot_size_max bytes). No allocation.
 *
 * Without a writer the recorder is the schedule alone: it ticks the match and says when a checksum is
 * due (a server or client that records no replay keeps the same checksum ticks).
 *
 * bsync_run_recorder (below) records an instance run through it (and allocates). */
#ifndef BLENDSYNC_IO_REPLAY_RECORDER_H
#define BLENDSYNC_IO_REPLAY_RECORDER_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/match.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/script.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which step of a tick failed (the callers word their messages by it). */
typedef enum bsync_replay_recorder_stage {
    BSYNC_RECORDER_OK = 0,
    BSYNC_RECORDER_WRITE,    /* appending a record (err says why) */
    BSYNC_RECORDER_SAVE,     /* bsync_match_save of the snapshot (the result says why) */
    BSYNC_RECORDER_TICK,     /* bsync_match_tick */
    BSYNC_RECORDER_CHECKSUM, /* bsync_match_checksums_get */
    BSYNC_RECORDER_RANGE     /* a tick at or above 2^32 - 1 (a replay holds ticks below 2^32) */
} bsync_replay_recorder_stage;

typedef struct bsync_replay_recorder_desc {
    bsync_replay_writer* writer; /* open, records are appended to it; NULL: no records, the schedule only */
    bsync_match* match;          /* ticked by the recorder (bsync_replay_recorder_tick) */
    uint32_t checksum_interval;  /* >= 1; the header's */
    uint32_t snapshot_every;     /* 0: no snapshots */
    int poses;                   /* checksum records carry pose checksums */
    uint8_t* snapshot_buffer;    /* caller memory; needed when snapshot_every > 0 */
    size_t snapshot_capacity;    /* >= bsync_match_snapshot_size_max(match) */
    /* 0: a failed write (or snapshot save) fails the call before the match is ticked.
     * 1 (a live match, e.g. the server): the first failure stops the recording (no later record is
     * written, so the file ends there: truncated, never with a hole), `stopped` and `stop_error` say
     * why, and the schedule and the match go on; the calls then return BSYNC_OK. */
    int keep_going;
} bsync_replay_recorder_desc;

/* Public so that a caller can place it (it is large: one record with its payload arrays). */
typedef struct bsync_replay_recorder {
    bsync_replay_recorder_desc desc;
    bsync_replay_record rec;   /* the record being appended */
    bsync_replay_frame frame;  /* bsync_replay_recorder_tick's frame */
    bsync_replay_recorder_stage failed; /* the last failure's step */
    bsync_result failed_result;         /* the match call's result when failed is SAVE, TICK or CHECKSUM */
    int stopped;                        /* keep_going: a record failed, nothing more is written */
    bsync_error stop_error;             /* keep_going: why (stop_stage says which step) */
    bsync_replay_recorder_stage stop_stage;
} bsync_replay_recorder;

/* BSYNC_INVALID_ARGUMENT on a NULL match, a zero interval or a missing snapshot buffer (needed when
 * snapshot_every > 0 and there is a writer). */
BSYNC_API bsync_result bsync_replay_recorder_init(bsync_replay_recorder* r, const bsync_replay_recorder_desc* desc);

/* One tick t (the match's current tick): the snapshot if due, the frame, the match tick, the checksum
 * if due. *checksummed (optional) is set to 1 when a checksum record was written, and *cs (optional)
 * then holds the checksums of the state after tick t. On failure r->failed says which step and the
 * records written so far stay written (callers discard the file). */
BSYNC_API bsync_result bsync_replay_recorder_tick(bsync_replay_recorder* r, uint64_t tick,
                                                  const bsync_match_frame* inputs, bsync_match_checksums* cs,
                                                  int* checksummed, bsync_error* err);

/* The same tick in its steps, for callers that act between them (the client library runs its sync
 * test there, and records the checksums it sends). bsync_replay_recorder_tick(t) is exactly
 *   begin_tick(frame t) · bsync_match_tick · end_tick(t).
 *
 * begin_tick: the snapshot if due (the state before frame->tick), then the FRAME record as given
 * (tick, inputs, defaulted mask and payloads). */
BSYNC_API bsync_result bsync_replay_recorder_begin_tick(bsync_replay_recorder* r, const bsync_replay_frame* frame,
                                                        bsync_error* err);

/* 1 when a checksum of the state after tick t is due: (t + 1) % checksum_interval == 0. */
BSYNC_API int bsync_replay_recorder_checksum_due(const bsync_replay_recorder* r, uint64_t tick);

/* end_tick: when a checksum is due, the match's checksums (into *cs when given) and their CHECKSUM
 * record; *checksummed (optional) says whether one was due. */
BSYNC_API bsync_result bsync_replay_recorder_end_tick(bsync_replay_recorder* r, uint64_t tick, bsync_match_checksums* cs,
                                                      int* checksummed, bsync_error* err);

/* The CHECKSUM record of tick t with the given checksums (a caller that computed them itself; the
 * pose checksum is recorded when desc.poses). */
BSYNC_API bsync_result bsync_replay_recorder_write_checksum(bsync_replay_recorder* r, uint64_t tick,
                                                            const bsync_match_checksums* cs, bsync_error* err);

/* Any other record (a SNAPSHOT the caller holds, a DESYNC), through the same failure rule. */
BSYNC_API bsync_result bsync_replay_recorder_append(bsync_replay_recorder* r, const bsync_replay_record* rec,
                                                    bsync_error* err);

/* The END record. The caller syncs and closes the writer. */
BSYNC_API bsync_result bsync_replay_recorder_end(bsync_replay_recorder* r, uint32_t ticks, uint32_t reason,
                                                 bsync_error* err);

/* ---- An instance run driven by a graph script, recorded as a one-player match replay whose match
 * must give the caller's checksums every tick (eval --replay; docs/graph-config.md "--replay"). */
typedef struct bsync_run_recorder bsync_run_recorder;

typedef struct bsync_run_recorder_desc {
    const char* path;           /* the replay (written as PATH.tmp.<pid>, renamed by finish) */
    const char* graph_path;     /* the config file graph was loaded from */
    const bsync_graph* graph;
    const bsync_script* script; /* a graph script; outlives the recorder */
    int poses;                  /* pose checksums too */
    const char* program;        /* a word < 32 bytes: build "blendsync VERSION PROGRAM", token, name */
} bsync_run_recorder_desc;

/* On failure *out is NULL and nothing is left; err (NULL allowed) gets the message. */
BSYNC_API bsync_result bsync_run_recorder_open(const bsync_run_recorder_desc* desc, bsync_run_recorder** out,
                                               bsync_error* err);
/* Tick t as applied, with the instance's checksums after it; BSYNC_MISMATCH if the match differs. */
BSYNC_API bsync_result bsync_run_recorder_tick(bsync_run_recorder* r, uint64_t tick, const fix16_t* targets,
                                               const bsync_switch_trigger* triggers, uint32_t trigger_count,
                                               uint64_t state_checksum, uint64_t pose_checksum, bsync_error* err);
/* END, fsync, rename; frees r (on failure too, the temporary file removed). */
BSYNC_API bsync_result bsync_run_recorder_finish(bsync_run_recorder* r, uint64_t ticks, bsync_error* err);
/* No replay: the temporary file removed, r freed (NULL ignored). */
BSYNC_API void bsync_run_recorder_abort(bsync_run_recorder* r);

#ifdef __cplusplus
}
#endif

#endif
