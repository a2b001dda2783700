/* The replay recording schedule (replay_recorder.h): one place that decides which records a
 * recorded match gets, and in which order. */
#include "blendsync/io/replay_recorder.h"

#include <string.h>

bsync_result bsync_replay_recorder_init(bsync_replay_recorder* r, const bsync_replay_recorder_desc* desc) {
    if (!r || !desc || !desc->writer || !desc->match || desc->checksum_interval == 0) return BSYNC_INVALID_ARGUMENT;
    if (desc->snapshot_every > 0 && (!desc->snapshot_buffer || desc->snapshot_capacity == 0)) return BSYNC_INVALID_ARGUMENT;
    memset(r, 0, sizeof *r);
    r->desc = *desc;
    return BSYNC_OK;
}

static bsync_result fail(bsync_replay_recorder* r, bsync_replay_recorder_stage stage, bsync_result res) {
    r->failed = stage;
    r->failed_result = res;
    return res;
}

static bsync_result append(bsync_replay_recorder* r, bsync_error* err) {
    bsync_result res = bsync_replay_writer_append(r->desc.writer, &r->rec, err);
    return res == BSYNC_OK ? BSYNC_OK : fail(r, BSYNC_RECORDER_WRITE, res);
}

bsync_result bsync_replay_recorder_tick(bsync_replay_recorder* r, uint64_t tick, const bsync_match_frame* inputs,
                                        bsync_match_checksums* cs, int* checksummed, bsync_error* err) {
    if (checksummed) *checksummed = 0;
    if (!r || !inputs) return BSYNC_INVALID_ARGUMENT;
    r->failed = BSYNC_RECORDER_OK;
    r->failed_result = BSYNC_OK;
    if (tick > UINT32_MAX - 1u) return fail(r, BSYNC_RECORDER_RANGE, BSYNC_INVALID_ARGUMENT);
    bsync_replay_record* rec = &r->rec;
    bsync_result res;
    /* The snapshot is the state before tick t: a verifier may start there and replay frame t on. */
    if (r->desc.snapshot_every > 0 && tick > 0 && tick % r->desc.snapshot_every == 0) {
        size_t len = 0;
        memset(rec, 0, sizeof *rec);
        rec->type = BSYNC_REPLAY_SNAPSHOT;
        res = bsync_match_save(r->desc.match, r->desc.snapshot_buffer, r->desc.snapshot_capacity, &len);
        if (res != BSYNC_OK) return fail(r, BSYNC_RECORDER_SAVE, res);
        rec->snapshot.tick = (uint32_t)tick;
        rec->snapshot.len = (uint32_t)len;
        rec->snapshot.data = r->desc.snapshot_buffer;
        if ((res = append(r, err)) != BSYNC_OK) return res;
    }
    memset(rec, 0, sizeof *rec);
    rec->type = BSYNC_REPLAY_FRAME;
    rec->frame.tick = (uint32_t)tick;
    rec->frame.inputs = *inputs;
    /* The frame goes to the file before the tick: a replay cut by a failed tick still holds the
     * inputs that made it fail. */
    if ((res = append(r, err)) != BSYNC_OK) return res;
    res = bsync_match_tick(r->desc.match, &rec->frame.inputs);
    if (res != BSYNC_OK) return fail(r, BSYNC_RECORDER_TICK, res);
    if ((tick + 1) % r->desc.checksum_interval != 0) return BSYNC_OK;
    bsync_match_checksums local;
    bsync_match_checksums* c = cs ? cs : &local;
    res = bsync_match_checksums_get(r->desc.match, r->desc.poses, c);
    if (res != BSYNC_OK) return fail(r, BSYNC_RECORDER_CHECKSUM, res);
    memset(rec, 0, sizeof *rec);
    rec->type = BSYNC_REPLAY_CHECKSUM;
    rec->checksum.tick = (uint32_t)tick;
    rec->checksum.has_pose = r->desc.poses ? 1u : 0u;
    rec->checksum.blend = c->blend;
    rec->checksum.pose = r->desc.poses ? c->pose : 0u;
    if ((res = append(r, err)) != BSYNC_OK) return res;
    if (checksummed) *checksummed = 1;
    return BSYNC_OK;
}

bsync_result bsync_replay_recorder_end(bsync_replay_recorder* r, uint32_t ticks, uint32_t reason, bsync_error* err) {
    if (!r) return BSYNC_INVALID_ARGUMENT;
    r->failed = BSYNC_RECORDER_OK;
    memset(&r->rec, 0, sizeof r->rec);
    r->rec.type = BSYNC_REPLAY_END;
    r->rec.end.ticks = ticks;
    r->rec.end.reason = reason;
    return append(r, err);
}
