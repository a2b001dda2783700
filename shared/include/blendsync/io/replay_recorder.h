/* blendsync/io/replay_recorder.h — the replay recording schedule, written once: snapshots, frames,
 * checksums and END at the same ticks for every program that records a match (or none, without a
 * writer). Owns nothing, allocates nothing (the run recorder aside).
 *
 * Index
 *   bsync_replay_recorder_desc, bsync_replay_recorder, bsync_replay_recorder_init
 *   bsync_replay_recorder_tick   one tick: snapshot if due, FRAME, match tick, CHECKSUM if due
 *   bsync_replay_recorder_begin_tick / _end_tick / _checksum_due   the same tick in its steps
 *   bsync_replay_recorder_write_checksum / _append / _end          other records
 *   bsync_run_recorder_open / _tick / _finish / _abort             an instance run as a replay
 *
 * design: docs/replay.md#the-recording-schedule-ioreplay_recorderh (schedule, failures, steps)
 */
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

/* Which step of a tick failed. */
typedef enum bsync_replay_recorder_stage {
    BSYNC_RECORDER_OK = 0,
    BSYNC_RECORDER_WRITE,
    BSYNC_RECORDER_SAVE,
    BSYNC_RECORDER_TICK,
    BSYNC_RECORDER_CHECKSUM,
    BSYNC_RECORDER_RANGE     /* a tick >= 2^32 - 1 */
} bsync_replay_recorder_stage;

typedef struct bsync_replay_recorder_desc {
    bsync_replay_writer* writer; /* NULL: the schedule only */
    bsync_match* match;          /* ticked by the recorder */
    uint32_t checksum_interval;  /* >= 1 */
    uint32_t snapshot_every;     /* 0: no snapshots */
    int poses;
    uint8_t* snapshot_buffer;
    size_t snapshot_capacity;    /* >= bsync_match_snapshot_size_max */
    int keep_going;              /* 1: a failed record stops the recording, not the match */
} bsync_replay_recorder_desc;

/* Public so that a caller can place it (it is large). */
typedef struct bsync_replay_recorder {
    bsync_replay_recorder_desc desc;
    bsync_replay_record rec;
    bsync_replay_frame frame;
    bsync_replay_recorder_stage failed;
    bsync_result failed_result;
    int stopped;                        /* keep_going */
    bsync_error stop_error;
    bsync_replay_recorder_stage stop_stage;
} bsync_replay_recorder;

/* BSYNC_INVALID_ARGUMENT. */
BSYNC_API bsync_result bsync_replay_recorder_init(bsync_replay_recorder* r, const bsync_replay_recorder_desc* desc);

/* cs, checksummed optional; on failure r->failed says which step. */
BSYNC_API bsync_result bsync_replay_recorder_tick(bsync_replay_recorder* r, uint64_t tick,
                                                  const bsync_match_frame* inputs, bsync_match_checksums* cs,
                                                  int* checksummed, bsync_error* err);

/* tick(t) == begin_tick(frame t) . bsync_match_tick . end_tick(t). */
BSYNC_API bsync_result bsync_replay_recorder_begin_tick(bsync_replay_recorder* r, const bsync_replay_frame* frame,
                                                        bsync_error* err);

BSYNC_API int bsync_replay_recorder_checksum_due(const bsync_replay_recorder* r, uint64_t tick);

BSYNC_API bsync_result bsync_replay_recorder_end_tick(bsync_replay_recorder* r, uint64_t tick, bsync_match_checksums* cs,
                                                      int* checksummed, bsync_error* err);

BSYNC_API bsync_result bsync_replay_recorder_write_checksum(bsync_replay_recorder* r, uint64_t tick,
                                                            const bsync_match_checksums* cs, bsync_error* err);

BSYNC_API bsync_result bsync_replay_recorder_append(bsync_replay_recorder* r, const bsync_replay_record* rec,
                                                    bsync_error* err);

/* The caller syncs and closes the writer. */
BSYNC_API bsync_result bsync_replay_recorder_end(bsync_replay_recorder* r, uint32_t ticks, uint32_t reason,
                                                 bsync_error* err);

/* ---- An instance run driven by a graph script, recorded as a one-player match replay (allocates). */
typedef struct bsync_run_recorder bsync_run_recorder;

typedef struct bsync_run_recorder_desc {
    const char* path;
    const char* graph_path;
    const bsync_graph* graph;
    const bsync_script* script; /* outlives the recorder */
    int poses;
    const char* program;        /* a word < 32 bytes */
} bsync_run_recorder_desc;

/* On failure *out is NULL and nothing is left. */
BSYNC_API bsync_result bsync_run_recorder_open(const bsync_run_recorder_desc* desc, bsync_run_recorder** out,
                                               bsync_error* err);
/* BSYNC_MISMATCH if the match differs. */
BSYNC_API bsync_result bsync_run_recorder_tick(bsync_run_recorder* r, uint64_t tick, const fix16_t* targets,
                                               const bsync_switch_trigger* triggers, uint32_t trigger_count,
                                               uint64_t state_checksum, uint64_t pose_checksum, bsync_error* err);
/* Frees r (on failure too); abort leaves no replay. */
BSYNC_API bsync_result bsync_run_recorder_finish(bsync_run_recorder* r, uint64_t ticks, bsync_error* err);
BSYNC_API void bsync_run_recorder_abort(bsync_run_recorder* r);

#ifdef __cplusplus
}
#endif

#endif
