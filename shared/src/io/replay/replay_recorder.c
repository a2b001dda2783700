/* The replay recording schedule (replay_recorder.h): one place that decides which records a
 * recorded match gets, and in which order. */
#include "blendsync/io/replay_recorder.h"

#include <stdio.h>
#include <string.h>

bsync_result bsync_replay_recorder_init(bsync_replay_recorder* r, const bsync_replay_recorder_desc* desc) {
    if (!r || !desc || !desc->match || desc->checksum_interval == 0) return BSYNC_INVALID_ARGUMENT;
    if (desc->writer && desc->snapshot_every > 0 && (!desc->snapshot_buffer || desc->snapshot_capacity == 0))
        return BSYNC_INVALID_ARGUMENT;
    memset(r, 0, sizeof *r);
    r->desc = *desc;
    return BSYNC_OK;
}

static bsync_result fail(bsync_replay_recorder* r, bsync_replay_recorder_stage stage, bsync_result res) {
    r->failed = stage;
    r->failed_result = res;
    return res;
}

/* A failed recording step: the call fails, or (keep_going) the recording stops and the call goes on. */
static bsync_result record_failed(bsync_replay_recorder* r, bsync_replay_recorder_stage stage, bsync_result res,
                                  const bsync_error* why) {
    if (!r->desc.keep_going) return fail(r, stage, res);
    if (!r->stopped) {
        r->stopped = 1;
        r->stop_stage = stage;
        if (why) r->stop_error = *why;
        else {
            r->stop_error.code = res;
            snprintf(r->stop_error.message, sizeof r->stop_error.message, "the match snapshot failed: %s",
                     bsync_result_string(res));
        }
    }
    return BSYNC_OK;
}

static int recording(const bsync_replay_recorder* r) { return r->desc.writer && !r->stopped; }

static bsync_result append_rec(bsync_replay_recorder* r, const bsync_replay_record* rec, bsync_error* err) {
    if (!recording(r)) return BSYNC_OK;
    bsync_error local;
    bsync_error* e = err ? err : &local;
    bsync_result res = bsync_replay_writer_append(r->desc.writer, rec, e);
    return res == BSYNC_OK ? BSYNC_OK : record_failed(r, BSYNC_RECORDER_WRITE, res, e);
}

static void clear_failure(bsync_replay_recorder* r) {
    r->failed = BSYNC_RECORDER_OK;
    r->failed_result = BSYNC_OK;
}

bsync_result bsync_replay_recorder_begin_tick(bsync_replay_recorder* r, const bsync_replay_frame* frame,
                                              bsync_error* err) {
    if (!r || !frame) return BSYNC_INVALID_ARGUMENT;
    clear_failure(r);
    const uint64_t tick = frame->tick;
    if (tick > UINT32_MAX - 1u) return fail(r, BSYNC_RECORDER_RANGE, BSYNC_INVALID_ARGUMENT);
    bsync_replay_record* rec = &r->rec;
    bsync_result res;
    /* The snapshot is the state before tick t: a verifier may start there and replay frame t on. */
    if (recording(r) && r->desc.snapshot_every > 0 && tick > 0 && tick % r->desc.snapshot_every == 0) {
        size_t len = 0;
        memset(rec, 0, sizeof *rec);
        rec->type = BSYNC_REPLAY_SNAPSHOT;
        res = bsync_match_save(r->desc.match, r->desc.snapshot_buffer, r->desc.snapshot_capacity, &len);
        if (res != BSYNC_OK) {
            if ((res = record_failed(r, BSYNC_RECORDER_SAVE, res, NULL)) != BSYNC_OK) return res;
        } else {
            rec->snapshot.tick = (uint32_t)tick;
            rec->snapshot.len = (uint32_t)len;
            rec->snapshot.data = r->desc.snapshot_buffer;
            if ((res = append_rec(r, rec, err)) != BSYNC_OK) return res;
        }
    }
    if (!recording(r)) return BSYNC_OK;
    /* The frame goes to the file before the tick: a replay cut by a failed tick still holds the
     * inputs that made it fail. */
    memset(rec, 0, sizeof *rec);
    rec->type = BSYNC_REPLAY_FRAME;
    rec->frame = *frame;
    return append_rec(r, rec, err);
}

int bsync_replay_recorder_checksum_due(const bsync_replay_recorder* r, uint64_t tick) {
    return r && r->desc.checksum_interval && (tick + 1u) % r->desc.checksum_interval == 0;
}

bsync_result bsync_replay_recorder_write_checksum(bsync_replay_recorder* r, uint64_t tick,
                                                  const bsync_match_checksums* cs, bsync_error* err) {
    if (!r || !cs) return BSYNC_INVALID_ARGUMENT;
    if (tick > UINT32_MAX - 1u) return fail(r, BSYNC_RECORDER_RANGE, BSYNC_INVALID_ARGUMENT);
    if (!recording(r)) return BSYNC_OK;
    bsync_replay_record* rec = &r->rec;
    memset(rec, 0, sizeof *rec);
    rec->type = BSYNC_REPLAY_CHECKSUM;
    rec->checksum.tick = (uint32_t)tick;
    rec->checksum.has_pose = r->desc.poses ? 1u : 0u;
    rec->checksum.blend = cs->blend;
    rec->checksum.pose = r->desc.poses ? cs->pose : 0u;
    return append_rec(r, rec, err);
}

bsync_result bsync_replay_recorder_end_tick(bsync_replay_recorder* r, uint64_t tick, bsync_match_checksums* cs,
                                            int* checksummed, bsync_error* err) {
    if (checksummed) *checksummed = 0;
    if (!r) return BSYNC_INVALID_ARGUMENT;
    clear_failure(r);
    if (!bsync_replay_recorder_checksum_due(r, tick)) return BSYNC_OK;
    bsync_match_checksums local;
    bsync_match_checksums* c = cs ? cs : &local;
    bsync_result res = bsync_match_get_checksums(r->desc.match, r->desc.poses, c);
    if (res != BSYNC_OK) return fail(r, BSYNC_RECORDER_CHECKSUM, res);
    if ((res = bsync_replay_recorder_write_checksum(r, tick, c, err)) != BSYNC_OK) return res;
    if (checksummed) *checksummed = 1;
    return BSYNC_OK;
}

bsync_result bsync_replay_recorder_tick(bsync_replay_recorder* r, uint64_t tick, const bsync_match_frame* inputs,
                                        bsync_match_checksums* cs, int* checksummed, bsync_error* err) {
    if (checksummed) *checksummed = 0;
    if (!r || !inputs) return BSYNC_INVALID_ARGUMENT;
    clear_failure(r);
    if (tick > UINT32_MAX - 1u) return fail(r, BSYNC_RECORDER_RANGE, BSYNC_INVALID_ARGUMENT);
    /* the frame record is built in place: the recorder's record is its own scratch */
    bsync_replay_frame* frame = &r->frame;
    memset(frame, 0, sizeof *frame);
    frame->tick = (uint32_t)tick;
    frame->inputs = *inputs;
    bsync_result res = bsync_replay_recorder_begin_tick(r, frame, err);
    if (res != BSYNC_OK) return res;
    res = bsync_match_tick(r->desc.match, &frame->inputs);
    if (res != BSYNC_OK) return fail(r, BSYNC_RECORDER_TICK, res);
    return bsync_replay_recorder_end_tick(r, tick, cs, checksummed, err);
}

bsync_result bsync_replay_recorder_append(bsync_replay_recorder* r, const bsync_replay_record* rec, bsync_error* err) {
    if (!r || !rec) return BSYNC_INVALID_ARGUMENT;
    clear_failure(r);
    return append_rec(r, rec, err);
}

bsync_result bsync_replay_recorder_end(bsync_replay_recorder* r, uint32_t ticks, uint32_t reason, bsync_error* err) {
    if (!r) return BSYNC_INVALID_ARGUMENT;
    clear_failure(r);
    memset(&r->rec, 0, sizeof r->rec);
    r->rec.type = BSYNC_REPLAY_END;
    r->rec.end.ticks = ticks;
    r->rec.end.reason = reason;
    return append_rec(r, &r->rec, err);
}
