/* replay_verify.c — verify a replay (replay_verify.h): open it, rebuild and check its match, then
 * the parallel pass (replay_verify_parallel.c) or the sequential one here, record by record. */
#include "blendsync/io/replay_verify.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal/alloc.h"
#include "blendsync/io/desync.h"
#include "platform.h"
#include "replay_verify_internal.h"

#define RV_DESCRIBE_CAP 16384u
#define RV_DIFF_CAP 16384u

void* bsync_rv_alloc(const bsync_allocator* a, size_t size) {
    return a->alloc_fn(size ? size : 1, 16, a->user);
}

void bsync_rv_free(const bsync_allocator* a, void* p, size_t size) {
    if (p) a->free_fn(p, size ? size : 1, a->user);
}

bsync_result bsync_rv_open_reader(const bsync_allocator* a, const bsync_rv_source* src, bsync_replay_reader** out,
                                  char* msg, size_t cap) {
    bsync_error err;
    memset(&err, 0, sizeof err);
    bsync_replay_reader_options ro;
    memset(&ro, 0, sizeof ro);
    ro.allocator = a;
    ro.borrow = 1; /* the caller's bytes outlive the verification call */
    if (src->path) {
        bsync_result r = bsync_replay_reader_open_file_ex(src->path, &ro, out, &err);
        if (r != BSYNC_OK) snprintf(msg, cap, "cannot read %s: %s", src->path, err.message);
        return r;
    }
    bsync_result r = bsync_replay_reader_open_memory_ex(src->data, src->len, &ro, out);
    if (r != BSYNC_OK) snprintf(msg, cap, "cannot read %s: %s", src->name, bsync_result_string(r));
    return r;
}

int bsync_rv_pose_all(bsync_match* m, bsync_trs* local) {
    for (uint32_t c = 0; c < bsync_match_character_count(m); c++) {
        bsync_instance* inst = bsync_match_instance(m, c);
        const bsync_graph* g = bsync_instance_graph(inst);
        if (!bsync_graph_skeleton(g)) continue;
        if (bsync_instance_pose(inst, local, NULL) != BSYNC_OK) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ the context */

typedef struct vctx {
    bsync_allocator a;
    const bsync_replay_verify_options* o;
    bsync_rv_source src;
    bsync_replay_verify_result* res;
    bsync_replay_reader* reader;
    const bsync_replay_header* h;
    bsync_replay_record* rec;
    size_t match_size;
    void* mem[2];
    bsync_match* match; /* the re-simulation */
    bsync_match* other; /* a recorded snapshot, for describing a difference */
    uint8_t* buf;       /* a save buffer of bsync_match_snapshot_size_max bytes */
    size_t buf_cap;
    uint8_t* agreed; /* the state at the last agreeing point (only with on_mismatch) */
    size_t agreed_len;
    uint32_t agreed_tick;
    bsync_trs* pose; /* BSYNC_MAX_JOINTS */
    char* describe;  /* RV_DESCRIBE_CAP bytes of scratch for a later snapshot mismatch */
    uint64_t callback_ns;
} vctx;

static void push_desync(vctx* c, const bsync_replay_desync* d) {
    bsync_replay_verify_result* r = c->res;
    if (r->desync_count == r->desyncs_capacity_) {
        size_t nc = r->desyncs_capacity_ ? r->desyncs_capacity_ * 2 : 16;
        bsync_replay_desync* n = bsync_rv_alloc(&c->a, nc * sizeof *n);
        if (!n) return;
        if (r->desyncs) {
            memcpy(n, r->desyncs, r->desync_count * sizeof *n);
            bsync_rv_free(&c->a, r->desyncs, r->desyncs_capacity_ * sizeof *n);
        }
        r->desyncs = n;
        r->desyncs_capacity_ = nc;
    }
    r->desyncs[r->desync_count++] = *d;
}

static void close_ctx(vctx* c) {
    bsync_rv_free(&c->a, c->mem[0], c->match_size);
    bsync_rv_free(&c->a, c->mem[1], c->match_size);
    bsync_rv_free(&c->a, c->buf, c->buf_cap);
    bsync_rv_free(&c->a, c->agreed, c->buf_cap);
    bsync_rv_free(&c->a, c->pose, BSYNC_MAX_JOINTS * sizeof(bsync_trs));
    bsync_rv_free(&c->a, c->describe, RV_DESCRIBE_CAP);
    bsync_rv_free(&c->a, c->rec, sizeof *c->rec);
    bsync_replay_reader_close(c->reader);
    c->reader = NULL;
}

static bsync_result unusable(vctx* c) {
    c->res->verdict = BSYNC_VERIFY_UNUSABLE;
    return BSYNC_IO_ERROR;
}

/* Open, read the header, find the config, refuse a different match, set up the matches. BSYNC_OK
 * or the call's result (verdict set). */
static bsync_result open_ctx(vctx* c) {
    bsync_replay_verify_result* res = c->res;
    char detail[200];
    c->rec = bsync_rv_alloc(&c->a, sizeof *c->rec);
    if (!c->rec) {
        snprintf(res->message, sizeof res->message, "out of memory");
        return unusable(c);
    }
    if (bsync_rv_open_reader(&c->a, &c->src, &c->reader, res->message, sizeof res->message) != BSYNC_OK) return unusable(c);
    bsync_replay_status st = bsync_replay_reader_next(c->reader, c->rec, detail, sizeof detail);
    if (st != BSYNC_REPLAY_OK) {
        snprintf(res->message, sizeof res->message, "%s: not a readable replay (%s: %s)", c->src.name,
                 bsync_replay_status_string(st), detail);
        return unusable(c);
    }
    const bsync_replay_header* h = c->h = bsync_replay_reader_header(c->reader);
    res->have_header = 1;
    res->match_id = h->match_id;
    res->match_hash = h->match_hash;
    res->tick_rate = h->tick_rate;
    res->player_count = h->player_count;
    res->character_count = h->character_count;
    res->start_tick = h->start_tick;
    res->checksum_interval = h->checksum_interval;
    const bsync_replay_verify_options* o = c->o;
    if (o->config) {
        res->config = o->config;
        snprintf(res->config_used, sizeof res->config_used, "%s (given)", bsync_match_config_path(o->config));
    } else {
        if (bsync_rv_config_load(h, c->src.path ? c->src.path : o->replay_path, o->match_path, o->graph_path, o->allocator,
                                 &res->owned_config_, res->config_used, sizeof res->config_used, res->message,
                                 sizeof res->message) != 0)
            return unusable(c);
        res->config = res->owned_config_;
    }
    res->differences = bsync_rv_alloc(&c->a, RV_DIFF_CAP);
    if (!res->differences) {
        snprintf(res->message, sizeof res->message, "out of memory");
        return unusable(c);
    }
    res->difference_count = bsync_replay_verify_compare(h, res->config, !o->config && o->graph_path && !o->match_path,
                                                        res->differences, RV_DIFF_CAP);
    if (res->difference_count) {
        res->verdict = BSYNC_VERIFY_REFUSED;
        return BSYNC_CONFIG_ERROR;
    }
    bsync_rv_free(&c->a, res->differences, RV_DIFF_CAP);
    res->differences = NULL;
    const bsync_match_desc* d = bsync_match_config_desc(res->config);
    c->match_size = bsync_match_memory_size(d);
    if (c->match_size == 0) {
        snprintf(res->message, sizeof res->message, "the match description is invalid");
        return unusable(c);
    }
    for (int i = 0; i < 2; i++) c->mem[i] = bsync_rv_alloc(&c->a, c->match_size);
    if (!c->mem[0] || !c->mem[1] || bsync_match_init(c->mem[0], c->match_size, d, &c->match) != BSYNC_OK ||
        bsync_match_init(c->mem[1], c->match_size, d, &c->other) != BSYNC_OK) {
        snprintf(res->message, sizeof res->message, "cannot set up the match (%zu bytes)", c->match_size);
        return unusable(c);
    }
    c->buf_cap = bsync_match_snapshot_size_max(c->match);
    c->buf = bsync_rv_alloc(&c->a, c->buf_cap);
    c->pose = bsync_rv_alloc(&c->a, BSYNC_MAX_JOINTS * sizeof(bsync_trs));
    if (!c->buf || !c->pose) {
        snprintf(res->message, sizeof res->message, "out of memory");
        return unusable(c);
    }
    return BSYNC_OK;
}

/* The newest SNAPSHOT with tick <= limit among the readable records: 1 and *tick, or 0. */
static int find_snapshot(vctx* c, uint32_t limit, uint32_t* tick) {
    bsync_replay_reader* r = NULL;
    char msg[8];
    if (bsync_rv_open_reader(&c->a, &c->src, &r, msg, sizeof msg) != BSYNC_OK) return 0;
    int found = 0;
    while (bsync_replay_reader_next(r, c->rec, NULL, 0) == BSYNC_REPLAY_OK) {
        if (c->rec->type == BSYNC_REPLAY_SNAPSHOT && c->rec->snapshot.tick <= limit &&
            (!found || c->rec->snapshot.tick >= *tick)) {
            *tick = c->rec->snapshot.tick;
            found = 1;
        }
    }
    bsync_replay_reader_close(r);
    return found;
}

/* ------------------------------------------------------------------ parallel */

/* 1 when the parallel pass verified everything (the result is filled), 0 to run sequentially. */
static int try_parallel(vctx* c, unsigned jobs) {
    bsync_replay_verify_result* res = c->res;
    bsync_rv_parallel_out pr;
    uint64_t t0 = bsync_platform_now_ns();
    bsync_replay_record* rec = bsync_rv_alloc(&c->a, sizeof *rec); /* c->rec holds nothing needed now */
    if (!rec) return 0;
    int rc = bsync_rv_parallel(&c->a, &c->src, bsync_match_config_desc(res->config), jobs, c->o->poses, c->buf, c->buf_cap,
                               rec, &pr);
    bsync_rv_free(&c->a, rec, sizeof *rec);
    if (rc != 0 || pr.mismatch || bsync_match_load(c->match, c->buf, pr.final_len) != BSYNC_OK) return 0;
    res->seconds = (double)(bsync_platform_now_ns() - t0) * 1e-9;
    /* the records' other facts (desyncs, END, where reading stopped) without simulating */
    bsync_replay_status st;
    while ((st = bsync_replay_reader_next(c->reader, c->rec, res->stop_detail, sizeof res->stop_detail)) == BSYNC_REPLAY_OK) {
        if (c->rec->type == BSYNC_REPLAY_DESYNC) push_desync(c, &c->rec->desync);
        else if (c->rec->type == BSYNC_REPLAY_END) res->complete = 1, res->end = c->rec->end;
    }
    res->stop = st;
    res->valid_bytes = bsync_replay_reader_valid_bytes(c->reader);
    res->ticks_verified = pr.ticks;
    res->checksums_compared = pr.checksums;
    res->pose_checksums_compared = pr.pose_checksums;
    res->snapshots_compared = pr.snapshots;
    res->jobs = jobs;
    res->segments = pr.segments;
    if (st == BSYNC_REPLAY_CORRUPT || st == BSYNC_REPLAY_BAD_ORDER || st == BSYNC_REPLAY_UNSUPPORTED)
        snprintf(res->message, sizeof res->message, "the replay is unreadable from here on (%s): %s",
                 bsync_replay_status_string(st), res->stop_detail);
    return 1;
}

/* ------------------------------------------------------------------ sequential */

static void agree_here(vctx* c) {
    if (c->agreed && bsync_match_save(c->match, c->agreed, c->buf_cap, &c->agreed_len) == BSYNC_OK)
        c->agreed_tick = (uint32_t)bsync_match_tick_count(c->match);
}

/* The FRAME records of ticks [first, end), read again (a second reader, so the current record stays
 * valid): the count found (frames stop at the first gap); arrays from the allocator (NULL when none). */
static uint32_t read_frames(vctx* c, uint32_t first, uint32_t end, bsync_match_frame** frames, uint16_t** defaulted) {
    *frames = NULL;
    *defaulted = NULL;
    if (end <= first) return 0;
    bsync_replay_reader* rd = NULL;
    char msg[8];
    if (bsync_rv_open_reader(&c->a, &c->src, &rd, msg, sizeof msg) != BSYNC_OK) return 0;
    bsync_replay_record* rec = bsync_rv_alloc(&c->a, sizeof *rec);
    *frames = bsync_rv_alloc(&c->a, (size_t)(end - first) * sizeof **frames);
    *defaulted = bsync_rv_alloc(&c->a, (size_t)(end - first) * sizeof **defaulted);
    uint32_t n = 0;
    while (rec && *frames && *defaulted && first + n < end && bsync_replay_reader_next(rd, rec, NULL, 0) == BSYNC_REPLAY_OK) {
        if (rec->type != BSYNC_REPLAY_FRAME || rec->frame.tick != first + n) continue;
        (*frames)[n] = rec->frame.inputs;
        (*defaulted)[n] = rec->frame.defaulted_mask;
        n++;
    }
    bsync_rv_free(&c->a, rec, sizeof *rec);
    bsync_replay_reader_close(rd);
    return n;
}

/* The first character whose blend checksum differs between a and b, or NO_CHARACTER. */
static uint32_t first_character(bsync_match* a, bsync_match* b) {
    bsync_match_checksums ca, cb;
    if (bsync_match_get_checksums(a, 0, &ca) != BSYNC_OK || bsync_match_get_checksums(b, 0, &cb) != BSYNC_OK)
        return BSYNC_REPLAY_VERIFY_NO_CHARACTER;
    for (uint32_t i = 0; i < ca.character_count && i < cb.character_count; i++)
        if (ca.character_blend[i] != cb.character_blend[i]) return i;
    return BSYNC_REPLAY_VERIFY_NO_CHARACTER;
}

/* A mismatch: counted, the first kept, on_mismatch called with the states. recorded: a snapshot's
 * bytes, else NULL; described: other holds them (loaded), so they can be described. */
static void mismatch(vctx* c, const bsync_replay_verify_mismatch* mm, const uint8_t* recorded, size_t recorded_len,
                     int described) {
    bsync_replay_verify_result* res = c->res;
    const char* describe = NULL;
    int first = res->mismatches == 0;
    res->mismatches++;
    if (recorded && described) {
        char* text = NULL;
        if (first) {
            text = res->describe = bsync_rv_alloc(&c->a, RV_DESCRIBE_CAP);
        } else {
            if (!c->describe) c->describe = bsync_rv_alloc(&c->a, RV_DESCRIBE_CAP);
            text = c->describe;
        }
        if (text) {
            bsync_desync_describe(c->other, c->match, res->config, text, RV_DESCRIBE_CAP); /* recorded = A, here = B */
            describe = text;
        }
    }
    if (first) res->first_mismatch = *mm;
    if (!c->o->on_mismatch || !c->agreed || c->agreed_len == 0) return;
    uint64_t t0 = bsync_platform_now_ns();
    size_t here_len = 0;
    if (bsync_match_save(c->match, c->buf, c->buf_cap, &here_len) == BSYNC_OK) {
        bsync_replay_verify_states s;
        memset(&s, 0, sizeof s);
        s.mismatch = mm;
        s.describe = describe;
        s.previous = c->agreed;
        s.previous_len = c->agreed_len;
        s.previous_tick = c->agreed_tick;
        s.here = c->buf;
        s.here_len = here_len;
        s.recorded = recorded;
        s.recorded_len = recorded_len;
        const uint32_t here_tick = (uint32_t)bsync_match_tick_count(c->match);
        bsync_match_frame* frames = NULL;
        uint16_t* defaulted = NULL;
        s.frame_count = read_frames(c, c->agreed_tick, here_tick, &frames, &defaulted);
        s.frames = frames;
        s.defaulted = defaulted;
        s.header = c->h;
        s.config = res->config;
        s.config_used = res->config_used;
        c->o->on_mismatch(&s, c->o->user);
        size_t n = here_tick > c->agreed_tick ? (size_t)(here_tick - c->agreed_tick) : 0;
        bsync_rv_free(&c->a, frames, n * sizeof *frames);
        bsync_rv_free(&c->a, defaulted, n * sizeof *defaulted);
    }
    c->callback_ns += bsync_platform_now_ns() - t0;
}

static void sequential(vctx* c) {
    bsync_replay_verify_result* res = c->res;
    const bsync_replay_verify_options* o = c->o;
    const bsync_replay_header* h = c->h;
    bsync_match* m = c->match;
    /* where to start: the newest snapshot <= from; a cut replay starts with its snapshot */
    uint32_t wait_tick = 0;
    int waiting = 0;
    if (o->has_from && find_snapshot(c, o->from, &wait_tick) && wait_tick >= h->start_tick) waiting = 1;
    if (!waiting && h->start_tick > 0) wait_tick = h->start_tick, waiting = 1;
    res->first_tick = waiting ? wait_tick : 0;
    int first_record = 1;
    /* for on_mismatch: the state at the last agreeing point (its frames are read again when a mismatch
     * needs them, so nothing is kept per tick) */
    if (o->on_mismatch) c->agreed = bsync_rv_alloc(&c->a, c->buf_cap);
    bsync_match_checksums sums;
    memset(&sums, 0, sizeof sums);
    uint64_t sums_tick = UINT64_MAX; /* the tick count sums (with poses) belongs to */
    const int go_on = o->continue_after_mismatch != 0;
    uint64_t t0 = bsync_platform_now_ns();
    bsync_replay_status st;
    while ((st = bsync_replay_reader_next(c->reader, c->rec, res->stop_detail, sizeof res->stop_detail)) == BSYNC_REPLAY_OK) {
        const bsync_replay_record* r = c->rec;
        if (first_record && h->start_tick > 0 && (r->type != BSYNC_REPLAY_SNAPSHOT || r->snapshot.tick != h->start_tick)) {
            snprintf(res->message, sizeof res->message,
                     "a replay with start tick %u must begin with a SNAPSHOT at tick %u (byte %" PRIu64 ")", h->start_tick,
                     h->start_tick, r->offset);
            break;
        }
        first_record = 0;
        uint64_t tc = bsync_match_tick_count(m);
        if (r->type == BSYNC_REPLAY_SNAPSHOT) {
            if (waiting) {
                if (r->snapshot.tick != wait_tick) continue;
                bsync_result lr = bsync_match_load(m, r->snapshot.data, r->snapshot.len);
                if (lr != BSYNC_OK || bsync_match_tick_count(m) != r->snapshot.tick) {
                    snprintf(res->message, sizeof res->message, "the SNAPSHOT at tick %u (byte %" PRIu64 ") does not load: %s",
                             r->snapshot.tick, r->offset, lr != BSYNC_OK ? bsync_result_string(lr) : "its tick differs");
                    break;
                }
                waiting = 0;
                res->from_snapshot = 1;
                agree_here(c);
                continue;
            }
            if (r->snapshot.tick != tc) {
                res->snapshots_skipped++;
                continue;
            }
            size_t len = 0;
            bsync_result sr = bsync_match_save(m, c->buf, c->buf_cap, &len);
            if (sr != BSYNC_OK) {
                snprintf(res->message, sizeof res->message, "cannot save the match state at tick %" PRIu64 ": %s", tc,
                         bsync_result_string(sr));
                break;
            }
            if (len != r->snapshot.len || memcmp(c->buf, r->snapshot.data, len) != 0) {
                bsync_replay_verify_mismatch mm;
                memset(&mm, 0, sizeof mm);
                mm.kind = BSYNC_VERIFY_SNAPSHOT;
                mm.tick = r->snapshot.tick;
                mm.character = BSYNC_REPLAY_VERIFY_NO_CHARACTER;
                snprintf(mm.what, sizeof mm.what, "snapshot");
                size_t k = 0;
                while (k < len && k < r->snapshot.len && c->buf[k] == r->snapshot.data[k]) k++;
                snprintf(mm.text, sizeof mm.text,
                         "snapshot (the state at the start of tick %u) differs: %u bytes recorded, %zu here, first "
                         "difference at byte %zu",
                         r->snapshot.tick, r->snapshot.len, len, k);
                int described = bsync_match_load(c->other, r->snapshot.data, r->snapshot.len) == BSYNC_OK;
                if (described) mm.character = first_character(c->other, m);
                mismatch(c, &mm, r->snapshot.data, r->snapshot.len, described);
                if (!go_on) break;
                /* go on from the recorded state */
                if (!described || bsync_match_load(m, r->snapshot.data, r->snapshot.len) != BSYNC_OK) {
                    snprintf(res->message, sizeof res->message, "the SNAPSHOT at tick %u (byte %" PRIu64 ") does not load",
                             r->snapshot.tick, r->offset);
                    break;
                }
                sums_tick = UINT64_MAX;
                agree_here(c);
                continue;
            }
            res->snapshots_compared++;
            agree_here(c);
        } else if (r->type == BSYNC_REPLAY_FRAME) {
            if (waiting) {
                res->frames_skipped++;
                continue;
            }
            if (r->frame.tick != tc) {
                snprintf(res->message, sizeof res->message,
                         "FRAME for tick %u (byte %" PRIu64 ") but the state is at tick %" PRIu64, r->frame.tick, r->offset, tc);
                break;
            }
            if (c->agreed && c->agreed_len == 0) agree_here(c); /* a fresh start: the initial state agrees */
            bsync_result tr = bsync_match_tick(m, &r->frame.inputs);
            if (tr != BSYNC_OK) {
                snprintf(res->message, sizeof res->message, "the FRAME for tick %u does not apply: %s", r->frame.tick,
                         bsync_result_string(tr));
                break;
            }
            res->ticks_verified++;
            if (o->poses) {
                /* a viewer's work after every frame; the checksums (with the poses) only where the
                 * replay's checksum interval puts a recorded checksum, the only place one is compared */
                const uint32_t iv = h->checksum_interval;
                if (iv == 0 || (tc + 1u) % iv == 0) {
                    bsync_match_get_checksums(m, 1, &sums);
                    sums_tick = tc + 1;
                } else if (bsync_rv_pose_all(m, c->pose) != 0) {
                    snprintf(res->message, sizeof res->message, "a pose after frame %" PRIu64 " fails", tc);
                    break;
                }
            }
        } else if (r->type == BSYNC_REPLAY_CHECKSUM) {
            if (waiting || (uint64_t)r->checksum.tick + 1u != tc) {
                res->checksums_skipped++;
                continue;
            }
            int want_pose = r->checksum.has_pose != 0;
            if (sums_tick != tc || (want_pose && !o->poses)) {
                bsync_match_get_checksums(m, want_pose || o->poses, &sums);
                sums_tick = (want_pose || o->poses) ? tc : UINT64_MAX;
            }
            bsync_replay_verify_kind kind = BSYNC_VERIFY_NONE;
            uint64_t exp = 0, got = 0;
            if (sums.blend != r->checksum.blend) kind = BSYNC_VERIFY_BLEND_CHECKSUM, exp = r->checksum.blend, got = sums.blend;
            else if (want_pose && sums.pose != r->checksum.pose)
                kind = BSYNC_VERIFY_POSE_CHECKSUM, exp = r->checksum.pose, got = sums.pose;
            if (kind != BSYNC_VERIFY_NONE) {
                bsync_replay_verify_mismatch mm;
                memset(&mm, 0, sizeof mm);
                mm.kind = kind;
                mm.tick = r->checksum.tick;
                mm.character = BSYNC_REPLAY_VERIFY_NO_CHARACTER;
                mm.expected = exp;
                mm.got = got;
                snprintf(mm.what, sizeof mm.what, "%s", kind == BSYNC_VERIFY_BLEND_CHECKSUM ? "blend checksum" : "pose checksum");
                snprintf(mm.text, sizeof mm.text,
                         "%s (the state after frame %u): expected %016" PRIx64 " (recorded), got %016" PRIx64, mm.what,
                         r->checksum.tick, exp, got);
                mismatch(c, &mm, NULL, 0, 0);
                if (!go_on) break;
                continue;
            }
            res->checksums_compared++;
            res->pose_checksums_compared += (uint64_t)want_pose;
            agree_here(c);
        } else if (r->type == BSYNC_REPLAY_DESYNC) {
            push_desync(c, &r->desync);
        } else if (r->type == BSYNC_REPLAY_END) {
            res->complete = 1;
            res->end = r->end;
        }
    }
    res->seconds = (double)(bsync_platform_now_ns() - t0 - c->callback_ns) * 1e-9;
    res->stop = st;
    res->valid_bytes = bsync_replay_reader_valid_bytes(c->reader);
    if (!res->mismatches && !res->message[0]) {
        if (st == BSYNC_REPLAY_CORRUPT || st == BSYNC_REPLAY_BAD_ORDER || st == BSYNC_REPLAY_UNSUPPORTED)
            snprintf(res->message, sizeof res->message, "the replay is unreadable from here on (%s): %s",
                     bsync_replay_status_string(st), res->stop_detail);
        else if (waiting)
            snprintf(res->message, sizeof res->message, "the SNAPSHOT at tick %u to start from was not found", wait_tick);
    }
}

/* ------------------------------------------------------------------ the calls */

static bsync_result run(const bsync_rv_source* src, const bsync_replay_verify_options* options,
                        bsync_replay_verify_result* result) {
    if (!result) return BSYNC_INVALID_ARGUMENT;
    static const bsync_replay_verify_options zero_options; /* const: the defaults */
    const bsync_replay_verify_options* o = options ? options : &zero_options;
    memset(result, 0, sizeof *result);
    result->allocator_ = bsync_allocator_resolve(o->allocator);
    result->jobs = 1;
    if (o->jobs > BSYNC_REPLAY_VERIFY_MAX_JOBS || (!src->path && !src->data && src->len)) {
        result->verdict = BSYNC_VERIFY_UNUSABLE;
        snprintf(result->message, sizeof result->message, "bad arguments (jobs 0..%u, a replay)", BSYNC_REPLAY_VERIFY_MAX_JOBS);
        return BSYNC_INVALID_ARGUMENT;
    }
    vctx c;
    memset(&c, 0, sizeof c);
    c.a = result->allocator_;
    c.o = o;
    c.src = *src;
    c.res = result;
    bsync_result rc = open_ctx(&c);
    if (rc == BSYNC_OK) {
        unsigned jobs = o->jobs < 1 ? 1 : o->jobs;
        if (!(jobs > 1 && !o->has_from && c.h->start_tick == 0 && try_parallel(&c, jobs))) sequential(&c);
        result->verified_up_to = bsync_match_tick_count(c.match);
        result->incomplete = !result->complete && (result->stop == BSYNC_REPLAY_EOF || result->stop == BSYNC_REPLAY_TRUNCATED);
        if (result->mismatches) {
            result->verdict = BSYNC_VERIFY_MISMATCH;
            rc = BSYNC_MISMATCH;
        } else if (result->message[0]) {
            result->verdict = BSYNC_VERIFY_ERROR;
            rc = BSYNC_IO_ERROR;
        } else {
            result->verdict = BSYNC_VERIFY_VERIFIED;
        }
    }
    close_ctx(&c);
    return rc;
}

bsync_result bsync_replay_verify_file(const char* path, const bsync_replay_verify_options* options,
                                      bsync_replay_verify_result* result) {
    if (!path) {
        if (result) {
            memset(result, 0, sizeof *result);
            result->verdict = BSYNC_VERIFY_UNUSABLE;
            snprintf(result->message, sizeof result->message, "bsync_replay_verify_file: NULL path");
        }
        return BSYNC_INVALID_ARGUMENT;
    }
    bsync_rv_source src = {path, NULL, 0, path};
    return run(&src, options, result);
}

bsync_result bsync_replay_verify_memory(const void* data, size_t len, const bsync_replay_verify_options* options,
                                        bsync_replay_verify_result* result) {
    const char* name = options && options->replay_path ? options->replay_path : "replay";
    static const uint8_t empty[1] = {0};
    bsync_rv_source src = {NULL, data ? data : (len ? NULL : empty), len, name};
    return run(&src, options, result);
}

void bsync_replay_verify_result_destroy(bsync_replay_verify_result* result) {
    if (!result) return;
    bsync_allocator a = result->allocator_;
    if (a.alloc_fn && a.free_fn) {
        bsync_rv_free(&a, result->differences, RV_DIFF_CAP);
        bsync_rv_free(&a, result->describe, RV_DESCRIBE_CAP);
        bsync_rv_free(&a, result->desyncs, result->desyncs_capacity_ * sizeof *result->desyncs);
    }
    bsync_match_config_destroy(result->owned_config_);
    memset(result, 0, sizeof *result);
}
