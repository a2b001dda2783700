/* replay_parallel.c — see replay_parallel.h. */
#include "replay_parallel.h"
#include "../../shared/src/io/platform.h"
#include "replay_sim.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/replay.h"

typedef struct rp_check {
    uint32_t tick;
    uint32_t has_pose;
    uint64_t blend, pose;
} rp_check;

typedef struct rp_snap {
    uint32_t tick;
    uint32_t len;
    uint8_t* data;
} rp_snap;

typedef struct rp_segment {
    uint32_t first, end;  /* frames [first, end) */
    int start_snap;       /* index into snaps, -1: the initial state */
    int end_snap;         /* the snapshot closing it (-1: none, the last segment) */
    size_t check_first, check_end; /* checksum records in the segment */
    /* result */
    int mismatch;
    uint32_t mismatch_tick;
    char what[64];
    char text[400];
    uint64_t ticks, checksums, pose_checksums, snapshots;
    uint8_t* final_state;
    size_t final_len;
} rp_segment;

typedef struct rp_job {
    const bsync_match_desc* desc;
    int poses;
    /* frames packed: frame i is the bytes [i * stride, (i + 1) * stride), per player its param_count
     * fix16 values then its trigger_count trigger bytes (everything else of a frame the reader gives
     * is zero, so frame_unpack rebuilds it exactly) */
    uint8_t* frames;
    size_t stride;
    uint32_t player_count, param_count, trigger_count;
    uint32_t frame_count;
    rp_check* checks;
    size_t check_count;
    rp_snap* snaps;
    size_t snap_count;
    rp_segment* segs;
    size_t seg_count;
    size_t next; /* the next segment to take */
    pthread_mutex_t lock;
    size_t match_size, snap_size;
} rp_job;

static void seg_fail(rp_segment* s, uint32_t tick, const char* what, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void seg_fail(rp_segment* s, uint32_t tick, const char* what, const char* fmt, ...) {
    s->mismatch = 1;
    s->mismatch_tick = tick;
    snprintf(s->what, sizeof s->what, "%s", what);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->text, sizeof s->text, fmt, ap);
    va_end(ap);
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

/* each thread's pose buffer for replay_sim_pose_all */
static _Thread_local bsync_trs pose_scratch[BSYNC_MAX_JOINTS];

static void run_segment(rp_job* j, rp_segment* s, bsync_match* m, uint8_t* buf) {
    if (s->start_snap >= 0) {
        const rp_snap* sn = &j->snaps[s->start_snap];
        if (bsync_match_load(m, sn->data, sn->len) != BSYNC_OK || bsync_match_tick_count(m) != sn->tick) {
            seg_fail(s, sn->tick, "snapshot", "the SNAPSHOT at tick %u does not load", sn->tick);
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
            seg_fail(s, t, "frame", "the FRAME for tick %u does not apply", t);
            return;
        }
        s->ticks++;
        int have = 0;
        if (j->poses) { /* a viewer's work; the checksums only where one is compared (cmd_replay.c) */
            if (c < s->check_end && j->checks[c].tick == t) {
                bsync_match_checksums_get(m, 1, &sums);
                have = 1;
            } else if (replay_sim_pose_all(m, pose_scratch) != 0) {
                seg_fail(s, t, "pose", "a pose after frame %u fails", t);
                return;
            }
        }
        for (; c < s->check_end && j->checks[c].tick == t; c++) {
            const rp_check* k = &j->checks[c];
            if (!have || (k->has_pose && !j->poses)) bsync_match_checksums_get(m, k->has_pose || j->poses, &sums);
            have = 1;
            if (sums.blend != k->blend) {
                seg_fail(s, t, "blend checksum",
                         "blend checksum (the state after frame %u): expected %016" PRIx64 " (recorded), got %016" PRIx64, t,
                         k->blend, sums.blend);
                return;
            }
            if (k->has_pose && sums.pose != k->pose) {
                seg_fail(s, t, "pose checksum",
                         "pose checksum (the state after frame %u): expected %016" PRIx64 " (recorded), got %016" PRIx64, t,
                         k->pose, sums.pose);
                return;
            }
            s->checksums++;
            s->pose_checksums += k->has_pose != 0;
        }
    }
    size_t len = 0;
    bsync_result sr = bsync_match_save(m, buf, j->snap_size, &len);
    if (sr != BSYNC_OK) {
        seg_fail(s, s->end, "snapshot", "cannot save the state at tick %u: %s", s->end, bsync_result_string(sr));
        return;
    }
    if (s->end_snap >= 0) {
        const rp_snap* sn = &j->snaps[s->end_snap];
        if (len != sn->len || memcmp(buf, sn->data, len) != 0) {
            seg_fail(s, sn->tick, "snapshot", "snapshot (the state at the start of tick %u) differs", sn->tick);
            return;
        }
        s->snapshots++;
    } else {
        s->final_state = malloc(len);
        if (s->final_state) {
            memcpy(s->final_state, buf, len);
            s->final_len = len;
        }
    }
}

static void* worker(void* arg) {
    rp_job* j = (rp_job*)arg;
    void* mem = bsync_platform_aligned_alloc(16, j->match_size);
    uint8_t* buf = malloc(j->snap_size);
    bsync_match* m = NULL;
    int ok = mem && buf && bsync_match_init(mem, j->match_size, j->desc, &m) == BSYNC_OK;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        size_t k = j->next++;
        pthread_mutex_unlock(&j->lock);
        if (k >= j->seg_count) break;
        rp_segment* s = &j->segs[k];
        if (!ok) {
            seg_fail(s, s->first, "memory", "out of memory");
            continue;
        }
        if (s->start_snap < 0 && bsync_match_init(mem, j->match_size, j->desc, &m) != BSYNC_OK) {
            seg_fail(s, s->first, "memory", "cannot set up the match");
            continue;
        }
        run_segment(j, s, m, buf);
    }
    free(buf);
    bsync_platform_aligned_free(mem);
    return NULL;
}

int replay_verify_parallel(const char* file, const bsync_match_desc* desc, unsigned jobs, int poses,
                           replay_par_result* out) {
    memset(out, 0, sizeof *out);
    rp_job j;
    memset(&j, 0, sizeof j);
    j.desc = desc;
    j.poses = poses;
    bsync_replay_reader* r = NULL;
    bsync_error err;
    if (bsync_replay_reader_open_file(file, &r, &err) != BSYNC_OK) {
        snprintf(out->error, sizeof out->error, "cannot read %s: %s", file, err.message);
        return -1;
    }
    static bsync_replay_record rec; /* large; the CLI is single-threaded while reading */
    size_t frame_cap = 0, check_cap = 0, snap_cap = 0;
    int rc = 0;
    while (bsync_replay_reader_next(r, &rec, NULL, 0) == BSYNC_REPLAY_OK) {
        if (rec.type == BSYNC_REPLAY_HEADER && rec.header.start_tick != 0) {
            snprintf(out->error, sizeof out->error, "--jobs needs a replay that starts at tick 0 (this one: %u)",
                     rec.header.start_tick);
            rc = -1;
            break;
        }
        if (rec.type == BSYNC_REPLAY_HEADER) {
            j.player_count = rec.header.player_count;
            j.param_count = rec.header.param_count;
            j.trigger_count = rec.header.trigger_count;
            j.stride = (size_t)j.player_count * ((size_t)j.param_count * sizeof(fix16_t) + j.trigger_count);
        } else if (rec.type == BSYNC_REPLAY_FRAME) {
            if (rec.frame.tick != j.frame_count) break; /* the reader guarantees order; defensive */
            if (rec.frame.inputs.player_count != j.player_count) break; /* the reader checks it; defensive */
            if (j.frame_count == frame_cap) {
                frame_cap = frame_cap ? frame_cap * 2 : 1024;
                uint8_t* f = realloc(j.frames, frame_cap * (j.stride ? j.stride : 1));
                if (!f) { rc = -1; break; }
                j.frames = f;
            }
            frame_pack(&j, &rec.frame.inputs, j.frames + (size_t)j.frame_count * j.stride);
            j.frame_count++;
        } else if (rec.type == BSYNC_REPLAY_CHECKSUM) {
            if (j.check_count == check_cap) {
                check_cap = check_cap ? check_cap * 2 : 256;
                rp_check* c = realloc(j.checks, check_cap * sizeof *c);
                if (!c) { rc = -1; break; }
                j.checks = c;
            }
            rp_check* c = &j.checks[j.check_count++];
            c->tick = rec.checksum.tick;
            c->has_pose = rec.checksum.has_pose;
            c->blend = rec.checksum.blend;
            c->pose = rec.checksum.pose;
        } else if (rec.type == BSYNC_REPLAY_SNAPSHOT) {
            if (rec.snapshot.tick != j.frame_count || rec.snapshot.tick == 0) continue; /* only at a frame boundary */
            if (j.snap_count == snap_cap) {
                snap_cap = snap_cap ? snap_cap * 2 : 16;
                rp_snap* s = realloc(j.snaps, snap_cap * sizeof *s);
                if (!s) { rc = -1; break; }
                j.snaps = s;
            }
            rp_snap* s = &j.snaps[j.snap_count];
            s->data = malloc(rec.snapshot.len);
            if (!s->data) { rc = -1; break; }
            memcpy(s->data, rec.snapshot.data, rec.snapshot.len);
            s->len = rec.snapshot.len;
            s->tick = rec.snapshot.tick;
            j.snap_count++;
        }
    }
    bsync_replay_reader_close(r);
    if (rc == 0 && !out->error[0]) {
        /* segments: [0, S_1), [S_1, S_2), ..., [S_last, frame_count) */
        j.seg_count = j.snap_count + 1;
        j.segs = calloc(j.seg_count, sizeof *j.segs);
        if (!j.segs) rc = -1;
    }
    if (rc == 0 && !out->error[0]) {
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
        j.match_size = bsync_match_memory_size(desc);
        void* probe_mem = bsync_platform_aligned_alloc(16, j.match_size);
        bsync_match* probe = NULL;
        if (probe_mem && bsync_match_init(probe_mem, j.match_size, desc, &probe) == BSYNC_OK)
            j.snap_size = bsync_match_snapshot_size_max(probe);
        bsync_platform_aligned_free(probe_mem);
        pthread_mutex_init(&j.lock, NULL);
        unsigned n = jobs < 1 ? 1 : jobs > 64 ? 64 : jobs;
        pthread_t threads[64];
        unsigned started = 0;
        for (unsigned i = 0; i < n; i++)
            if (pthread_create(&threads[i], NULL, worker, &j) == 0) started++;
            else break;
        if (started == 0) worker(&j);
        for (unsigned i = 0; i < started; i++) pthread_join(threads[i], NULL);
        pthread_mutex_destroy(&j.lock);
        /* merge: every segment before the first mismatch verified completely */
        out->segments = j.seg_count;
        for (size_t k = 0; k < j.seg_count; k++) {
            rp_segment* s = &j.segs[k];
            out->ticks += s->ticks;
            out->checksums += s->checksums;
            out->pose_checksums += s->pose_checksums;
            out->snapshots += s->snapshots;
            if (s->mismatch) {
                out->mismatch = 1;
                out->mismatch_tick = s->mismatch_tick;
                snprintf(out->mismatch_what, sizeof out->mismatch_what, "%s", s->what);
                snprintf(out->mismatch_text, sizeof out->mismatch_text, "%s", s->text);
                break;
            }
        }
        rp_segment* last = &j.segs[j.seg_count - 1];
        if (!out->mismatch && last->final_state) {
            out->final_state = last->final_state;
            out->final_len = last->final_len;
            last->final_state = NULL;
        }
        for (size_t k = 0; k < j.seg_count; k++) free(j.segs[k].final_state);
    }
    if (rc != 0 && !out->error[0]) snprintf(out->error, sizeof out->error, "out of memory reading %s", file);
    free(j.segs);
    free(j.frames);
    free(j.checks);
    for (size_t k = 0; k < j.snap_count; k++) free(j.snaps[k].data);
    free(j.snaps);
    return rc;
}
