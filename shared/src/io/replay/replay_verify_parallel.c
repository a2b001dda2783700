/* replay_verify_parallel.c — the segments between a replay's snapshots verified on N threads
 * (replay_verify.h, docs/replay-verify.md "--jobs N").
 *
 * The replay is read once; its SNAPSHOT records cut the match into segments [S_k, S_k+1) (the first
 * starts from the match's initial state at tick 0). N threads take segments in turn; each owns a
 * match (the core keeps no globals, graphs are immutable and shared), loads the segment's starting
 * snapshot, applies its frames, compares every CHECKSUM record inside it (the pose too when recorded,
 * or on every tick with poses), and at the end compares its state byte for byte with the snapshot
 * that closes the segment. Every allocation is made on the calling thread before the threads start
 * (so a caller's allocator is never called from another thread). */
#include "platform.h"
#include "replay_verify_internal.h"

#include <stdatomic.h>
#include <string.h>

typedef struct rp_check {
    uint32_t tick;
    uint32_t has_pose;
    uint64_t blend, pose;
} rp_check;

typedef struct rp_snap {
    uint32_t tick;
    uint32_t len;
    size_t offset; /* into the job's snapshot bytes */
} rp_snap;

typedef struct rp_segment {
    uint32_t first, end;           /* frames [first, end) */
    int start_snap;                /* index into snaps, -1: the initial state */
    int end_snap;                  /* the snapshot closing it (-1: none, the last segment) */
    size_t check_first, check_end; /* checksum records in the segment */
    int mismatch;
    uint64_t ticks, checksums, pose_checksums, snapshots;
} rp_segment;

typedef struct rp_worker {
    struct rp_job* job;
    void* mem;
    uint8_t* buf;
    bsync_trs* pose;
    bsync_platform_thread thread;
} rp_worker;

typedef struct rp_job {
    const bsync_match_desc* desc;
    int poses;
    /* frames packed: frame i is the bytes [i * stride, (i + 1) * stride), per player its param_count
     * fix16 values then its trigger_count trigger bytes (everything else of a frame the reader gives
     * is zero, so frame_unpack rebuilds it exactly) */
    uint8_t* frames;
    size_t frames_bytes, stride; /* frames_bytes: allocated */
    uint32_t player_count, param_count, trigger_count;
    uint32_t frame_count;
    rp_check* checks;
    size_t check_count, checks_cap;
    rp_snap* snaps;
    size_t snap_count, snaps_cap;
    uint8_t* snap_bytes;
    size_t snap_bytes_len, snap_bytes_cap;
    rp_segment* segs;
    size_t seg_count;
    atomic_size_t next; /* the next segment to take */
    size_t match_size, snap_size;
    uint8_t* final; /* the last segment's end state */
    size_t final_cap, final_len;
} rp_job;

/* Grow *p (elem bytes each, *cap of them) to hold at least need elements. 0 or -1. */
static int grow(const bsync_allocator* a, void** p, size_t* cap, size_t need, size_t elem, size_t first) {
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : first;
    while (nc < need) {
        if (nc > ((size_t)-1) / 2 / (elem ? elem : 1)) return -1;
        nc *= 2;
    }
    void* n = bsync_rv_alloc(a, nc * elem);
    if (!n) return -1;
    if (*p) {
        memcpy(n, *p, *cap * elem);
        bsync_rv_free(a, *p, *cap * elem);
    }
    *p = n;
    *cap = nc;
    return 0;
}

static void frame_pack(const rp_job* j, const bsync_match_frame* f, uint8_t* out) {
    for (uint32_t p = 0; p < j->player_count; p++) {
        memcpy(out, f->players[p].params, (size_t)j->param_count * sizeof(fix16_t));
        out += (size_t)j->param_count * sizeof(fix16_t);
        memcpy(out, f->players[p].triggers, j->trigger_count);
        out += j->trigger_count;
    }
}

/* f must start zeroed (its unused parts stay so); fills the used parts of frame t */
static void frame_unpack(const rp_job* j, uint32_t t, bsync_match_frame* f) {
    const uint8_t* in = j->frames + (size_t)t * j->stride;
    f->player_count = j->player_count;
    for (uint32_t p = 0; p < j->player_count; p++) {
        memcpy(f->players[p].params, in, (size_t)j->param_count * sizeof(fix16_t));
        in += (size_t)j->param_count * sizeof(fix16_t);
        memcpy(f->players[p].triggers, in, j->trigger_count);
        in += j->trigger_count;
    }
}

static void run_segment(rp_job* j, rp_segment* s, bsync_match* m, uint8_t* buf, bsync_trs* pose) {
    if (s->start_snap >= 0) {
        const rp_snap* sn = &j->snaps[s->start_snap];
        if (bsync_match_load(m, j->snap_bytes + sn->offset, sn->len) != BSYNC_OK || bsync_match_tick_count(m) != sn->tick) {
            s->mismatch = 1;
            return;
        }
    }
    size_t c = s->check_first;
    bsync_match_checksums sums;
    bsync_match_frame frame;
    memset(&frame, 0, sizeof frame);
    for (uint32_t t = s->first; t < s->end; t++) {
        frame_unpack(j, t, &frame);
        if (bsync_match_tick(m, &frame) != BSYNC_OK) {
            s->mismatch = 1;
            return;
        }
        s->ticks++;
        int have = 0;
        if (j->poses) { /* a viewer's work; the checksums only where one is compared */
            if (c < s->check_end && j->checks[c].tick == t) {
                bsync_match_get_checksums(m, 1, &sums);
                have = 1;
            } else if (bsync_rv_pose_all(m, pose) != 0) {
                s->mismatch = 1;
                return;
            }
        }
        for (; c < s->check_end && j->checks[c].tick == t; c++) {
            const rp_check* k = &j->checks[c];
            if (!have || (k->has_pose && !j->poses)) bsync_match_get_checksums(m, k->has_pose || j->poses, &sums);
            have = 1;
            if (sums.blend != k->blend || (k->has_pose && sums.pose != k->pose)) {
                s->mismatch = 1;
                return;
            }
            s->checksums++;
            s->pose_checksums += k->has_pose != 0;
        }
    }
    size_t len = 0;
    if (bsync_match_save(m, buf, j->snap_size, &len) != BSYNC_OK) {
        s->mismatch = 1;
        return;
    }
    if (s->end_snap >= 0) {
        const rp_snap* sn = &j->snaps[s->end_snap];
        if (len != sn->len || memcmp(buf, j->snap_bytes + sn->offset, len) != 0) {
            s->mismatch = 1;
            return;
        }
        s->snapshots++;
    } else if (len <= j->final_cap) { /* only the last segment has no closing snapshot */
        memcpy(j->final, buf, len);
        j->final_len = len;
    } else {
        s->mismatch = 1;
    }
}

static void worker(void* arg) {
    rp_worker* w = (rp_worker*)arg;
    rp_job* j = w->job;
    bsync_match* m = NULL;
    for (;;) {
        size_t k = atomic_fetch_add(&j->next, 1);
        if (k >= j->seg_count) break;
        rp_segment* s = &j->segs[k];
        if ((s->start_snap < 0 || !m) && bsync_match_init(w->mem, j->match_size, j->desc, &m) != BSYNC_OK) {
            s->mismatch = 1;
            continue;
        }
        run_segment(j, s, m, w->buf, w->pose);
    }
}

/* Read the records: frames packed, checksums, snapshots at frame boundaries. 0 or -1. */
static int collect(const bsync_allocator* a, const bsync_rv_source* src, rp_job* j, bsync_replay_record* rec) {
    bsync_replay_reader* r = NULL;
    char msg[8];
    if (bsync_rv_open_reader(a, src, &r, msg, sizeof msg) != BSYNC_OK) return -1;
    int rc = 0;
    while (rc == 0 && bsync_replay_reader_next(r, rec, NULL, 0) == BSYNC_REPLAY_OK) {
        if (rec->type == BSYNC_REPLAY_HEADER) {
            if (rec->header.start_tick != 0) rc = -1;
            j->player_count = rec->header.player_count;
            j->param_count = rec->header.param_count;
            j->trigger_count = rec->header.trigger_count;
            j->stride = (size_t)j->player_count * ((size_t)j->param_count * sizeof(fix16_t) + j->trigger_count);
        } else if (rec->type == BSYNC_REPLAY_FRAME) {
            if (rec->frame.tick != j->frame_count) break;                 /* the reader guarantees order; defensive */
            if (rec->frame.inputs.player_count != j->player_count) break; /* the reader checks it; defensive */
            size_t stride = j->stride ? j->stride : 1;
            if (grow(a, (void**)&j->frames, &j->frames_bytes, ((size_t)j->frame_count + 1u) * stride, 1, 1024u * stride)) {
                rc = -1;
                break;
            }
            frame_pack(j, &rec->frame.inputs, j->frames + (size_t)j->frame_count * j->stride);
            j->frame_count++;
        } else if (rec->type == BSYNC_REPLAY_CHECKSUM) {
            if (grow(a, (void**)&j->checks, &j->checks_cap, j->check_count + 1, sizeof *j->checks, 256)) {
                rc = -1;
                break;
            }
            rp_check* c = &j->checks[j->check_count++];
            c->tick = rec->checksum.tick;
            c->has_pose = rec->checksum.has_pose;
            c->blend = rec->checksum.blend;
            c->pose = rec->checksum.pose;
        } else if (rec->type == BSYNC_REPLAY_SNAPSHOT) {
            if (rec->snapshot.tick != j->frame_count || rec->snapshot.tick == 0) continue; /* only at a frame boundary */
            if (grow(a, (void**)&j->snaps, &j->snaps_cap, j->snap_count + 1, sizeof *j->snaps, 16) ||
                grow(a, (void**)&j->snap_bytes, &j->snap_bytes_cap, j->snap_bytes_len + rec->snapshot.len + 1u, 1, 65536)) {
                rc = -1;
                break;
            }
            rp_snap* s = &j->snaps[j->snap_count++];
            memcpy(j->snap_bytes + j->snap_bytes_len, rec->snapshot.data, rec->snapshot.len);
            s->offset = j->snap_bytes_len;
            s->len = rec->snapshot.len;
            s->tick = rec->snapshot.tick;
            j->snap_bytes_len += rec->snapshot.len;
        }
    }
    bsync_replay_reader_close(r);
    return rc;
}

int bsync_rv_parallel(const bsync_allocator* a, const bsync_rv_source* src, const bsync_match_desc* desc, unsigned jobs,
                      int poses, uint8_t* final, size_t final_cap, bsync_replay_record* rec, bsync_rv_parallel_out* out) {
    memset(out, 0, sizeof *out);
    rp_job j;
    memset(&j, 0, sizeof j);
    j.desc = desc;
    j.poses = poses;
    j.final = final;
    j.final_cap = final_cap;
    atomic_init(&j.next, 0);
    unsigned n = jobs < 1 ? 1 : jobs > BSYNC_REPLAY_VERIFY_MAX_JOBS ? BSYNC_REPLAY_VERIFY_MAX_JOBS : jobs;
    rp_worker workers[BSYNC_REPLAY_VERIFY_MAX_JOBS];
    memset(workers, 0, sizeof workers);
    int rc = collect(a, src, &j, rec);
    j.match_size = bsync_match_memory_size(desc);
    j.snap_size = final_cap;
    if (rc == 0 && j.match_size == 0) rc = -1;
    if (rc == 0) {
        /* segments: [0, S_1), [S_1, S_2), ..., [S_last, frame_count) */
        j.seg_count = j.snap_count + 1;
        j.segs = bsync_rv_alloc(a, j.seg_count * sizeof *j.segs);
        if (!j.segs) rc = -1;
    }
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        workers[i].job = &j;
        workers[i].mem = bsync_rv_alloc(a, j.match_size);
        workers[i].buf = bsync_rv_alloc(a, j.snap_size ? j.snap_size : 1);
        workers[i].pose = bsync_rv_alloc(a, BSYNC_MAX_JOINTS * sizeof(bsync_trs));
        if (!workers[i].mem || !workers[i].buf || !workers[i].pose) rc = -1;
    }
    if (rc == 0) {
        memset(j.segs, 0, j.seg_count * sizeof *j.segs);
        size_t c = 0;
        for (size_t k = 0; k < j.seg_count; k++) {
            rp_segment* s = &j.segs[k];
            s->first = k == 0 ? 0 : j.snaps[k - 1].tick;
            s->end = k < j.snap_count ? j.snaps[k].tick : j.frame_count;
            s->start_snap = k == 0 ? -1 : (int)k - 1;
            s->end_snap = k < j.snap_count ? (int)k : -1;
            while (c < j.check_count && j.checks[c].tick < s->first) c++;
            s->check_first = c;
            while (c < j.check_count && j.checks[c].tick < s->end) c++;
            s->check_end = c;
        }
        unsigned started = 0;
        for (unsigned i = 0; i < n; i++)
            if (bsync_platform_thread_create(&workers[i].thread, worker, &workers[i]) == 0) started++;
            else break;
        if (started == 0) worker(&workers[0]);
        for (unsigned i = 0; i < started; i++) bsync_platform_thread_join(&workers[i].thread);
        /* merge: every segment before the first mismatch verified completely */
        out->segments = j.seg_count;
        for (size_t k = 0; k < j.seg_count; k++) {
            const rp_segment* s = &j.segs[k];
            out->ticks += s->ticks;
            out->checksums += s->checksums;
            out->pose_checksums += s->pose_checksums;
            out->snapshots += s->snapshots;
            if (s->mismatch) {
                out->mismatch = 1;
                break;
            }
        }
        if (!out->mismatch && j.final_len == 0) out->mismatch = 1;
        out->final_len = j.final_len;
    }
    for (unsigned i = 0; i < n; i++) {
        bsync_rv_free(a, workers[i].mem, j.match_size);
        bsync_rv_free(a, workers[i].buf, j.snap_size ? j.snap_size : 1);
        bsync_rv_free(a, workers[i].pose, BSYNC_MAX_JOINTS * sizeof(bsync_trs));
    }
    bsync_rv_free(a, j.segs, j.seg_count * sizeof *j.segs);
    bsync_rv_free(a, j.frames, j.frames_bytes);
    bsync_rv_free(a, j.checks, j.checks_cap * sizeof *j.checks);
    bsync_rv_free(a, j.snaps, j.snaps_cap * sizeof *j.snaps);
    bsync_rv_free(a, j.snap_bytes, j.snap_bytes_cap);
    return rc;
}
