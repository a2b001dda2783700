/* bsync_replay_verify_*: a replay recorded here (the demo match, 130 ticks, a snapshot every 20
 * ticks, the config's checksum every 30) verifies; a frame re-encoded with another value, a
 * checksum with a flipped bit and a raw flipped byte are reported at the tick the record schedule
 * says; sequential and parallel give the same result; the states given to on_mismatch are those of
 * an independently ticked match; every byte allocated through the caller's allocator is freed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/io/replay_verify.h"
#include "test_support.h"
#include "fixtures.h"
#include "blendsync/match.h"

#define TICKS 130u
#define SNAP_EVERY 20u
/* From the schedule (replay_recorder.h) and the demo's checksum_interval 30: checksums after frames
 * 29, 59, 89, 119; snapshots at the start of ticks 20, 40, ..., 120; 7 segments between them. */
#define CHECKSUMS 4u
#define SNAPSHOTS 6u
#define SEGMENTS 7u

typedef struct fixture {
    char config_path[1024];
    bsync_match_config* mc;
    const bsync_match_desc* d;
    char good[64]; /* the recorded replay */
    bsync_match_frame* inputs; /* TICKS frames, as recorded */
} fixture;


static void temp_path(char* out, size_t cap) { bsync_test_tmpfile(out, cap, "verify", NULL, 0); }

static int setup(void** state) {
    fixture* f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->config_path, sizeof f->config_path, "%s/scripts/demo/match.json", BSYNC_SOURCE_DIR);
    bsync_error err;
    assert_int_equal(bsync_match_config_load(f->config_path, NULL, &f->mc, &err), BSYNC_OK);
    f->d = bsync_match_config_desc(f->mc);
    f->inputs = calloc(TICKS, sizeof *f->inputs);
    assert_non_null(f->inputs);
    for (uint32_t t = 0; t < TICKS; t++) {
        bsync_match_frame* in = &f->inputs[t];
        in->player_count = f->d->player_count;
        for (uint32_t p = 0; p < f->d->player_count; p++) {
            in->players[p].params[0] = (fix16_t)((t * 977u + p * 131u) % (3u << 16));        /* speed 0..3 */
            in->players[p].params[1] = (fix16_t)((int32_t)((t * 311u + p) % 65536u) - 32768); /* move_x */
            in->players[p].params[2] = (fix16_t)((int32_t)((t * 173u + p) % 65536u) - 32768); /* move_y */
            in->players[p].triggers[0] = (uint8_t)(t % 50u == 10u + p);
        }
    }
    void* mem = NULL;
    bsync_match* m = bsync_test_match_new(f->d, &mem);
    static bsync_replay_header h;
    bsync_match_config_replay_header(f->mc, "test", 0, &h);
    assert_int_equal(h.checksum_interval, 30);
    temp_path(f->good, sizeof f->good);
    bsync_replay_writer* w = NULL;
    assert_int_equal(bsync_replay_writer_open(f->good, &h, &w, &err), BSYNC_OK);
    size_t cap = bsync_match_snapshot_size_max(m);
    uint8_t* snap = malloc(cap);
    assert_non_null(snap);
    static bsync_replay_recorder r;
    bsync_replay_recorder_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.writer = w;
    rd.match = m;
    rd.checksum_interval = h.checksum_interval;
    rd.snapshot_every = SNAP_EVERY;
    rd.poses = 1;
    rd.snapshot_buffer = snap;
    rd.snapshot_capacity = cap;
    assert_int_equal(bsync_replay_recorder_init(&r, &rd), BSYNC_OK);
    for (uint32_t t = 0; t < TICKS; t++) assert_int_equal(bsync_replay_recorder_tick(&r, t, &f->inputs[t], NULL, NULL, &err), BSYNC_OK);
    assert_int_equal(bsync_replay_recorder_end(&r, TICKS, 0, &err), BSYNC_OK);
    bsync_replay_writer_close(w);
    free(snap);
    free(mem);
    *state = f;
    return 0;
}

static int teardown(void** state) {
    fixture* f = *state;
    remove(f->good);
    bsync_match_config_destroy(f->mc);
    free(f->inputs);
    free(f);
    return 0;
}

/* A copy of src at dst with every record passed through edit (which may change it) before it is
 * re-encoded (a valid XXH64: the change is a different replay, not a corrupt one). */
typedef void (*edit_fn)(bsync_replay_record* rec);
static void rewrite(const char* src, const char* dst, edit_fn edit) {
    bsync_replay_reader* rdr = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file(src, &rdr, &err), BSYNC_OK);
    bsync_replay_record* rec = malloc(sizeof *rec);
    assert_non_null(rec);
    assert_int_equal(bsync_replay_reader_next(rdr, rec, NULL, 0), BSYNC_REPLAY_OK);
    bsync_replay_writer* w = NULL;
    assert_int_equal(bsync_replay_writer_open(dst, bsync_replay_reader_header(rdr), &w, &err), BSYNC_OK);
    while (bsync_replay_reader_next(rdr, rec, NULL, 0) == BSYNC_REPLAY_OK) {
        edit(rec);
        assert_int_equal(bsync_replay_writer_append(w, rec, &err), BSYNC_OK);
    }
    bsync_replay_writer_close(w);
    bsync_replay_reader_close(rdr);
    free(rec);
}

static void edit_frame61_p1(bsync_replay_record* rec) {
    if (rec->type == BSYNC_REPLAY_FRAME && rec->frame.tick == 61) rec->frame.inputs.players[1].params[0] += 0x8000; /* +0.5 */
}
static void edit_frame50_p0(bsync_replay_record* rec) {
    if (rec->type == BSYNC_REPLAY_FRAME && rec->frame.tick == 50) rec->frame.inputs.players[0].params[0] += 0x8000;
}
static uint64_t g_checksum89; /* the recorded value before the flip (set by edit_checksum89) */
static void edit_checksum89(bsync_replay_record* rec) {
    if (rec->type == BSYNC_REPLAY_CHECKSUM && rec->checksum.tick == 89) {
        g_checksum89 = rec->checksum.blend;
        rec->checksum.blend ^= 1u << 7;
    }
}
static void edit_checksums_29_89(bsync_replay_record* rec) {
    if (rec->type == BSYNC_REPLAY_CHECKSUM && (rec->checksum.tick == 29 || rec->checksum.tick == 89))
        rec->checksum.blend ^= 1u;
}

static void run(const char* path, const bsync_replay_verify_options* o, bsync_replay_verify_result* res) {
    bsync_replay_verify_file(path, o, res);
}

/* The facts two runs must share (sequential vs parallel, file vs memory). */
static void same_result(const bsync_replay_verify_result* a, const bsync_replay_verify_result* b) {
    assert_int_equal(a->verdict, b->verdict);
    assert_int_equal(a->ticks_verified, b->ticks_verified);
    assert_int_equal(a->verified_up_to, b->verified_up_to);
    assert_int_equal(a->checksums_compared, b->checksums_compared);
    assert_int_equal(a->pose_checksums_compared, b->pose_checksums_compared);
    assert_int_equal(a->snapshots_compared, b->snapshots_compared);
    assert_int_equal(a->desync_count, b->desync_count);
    assert_int_equal(a->complete, b->complete);
    assert_int_equal(a->end.ticks, b->end.ticks);
    assert_int_equal(a->valid_bytes, b->valid_bytes);
    assert_int_equal(a->mismatches, b->mismatches);
    assert_int_equal(a->first_mismatch.kind, b->first_mismatch.kind);
    assert_int_equal(a->first_mismatch.tick, b->first_mismatch.tick);
    assert_int_equal(a->first_mismatch.character, b->first_mismatch.character);
    assert_true(a->first_mismatch.expected == b->first_mismatch.expected);
    assert_true(a->first_mismatch.got == b->first_mismatch.got);
    assert_string_equal(a->first_mismatch.text, b->first_mismatch.text);
    assert_string_equal(a->message, b->message);
    assert_int_equal(a->describe != NULL, b->describe != NULL);
    if (a->describe) assert_string_equal(a->describe, b->describe);
}

/* Sequential and with 2 and 3 threads: the same result; returned is the sequential one. */
static void run_both(const char* path, bsync_replay_verify_options* o, bsync_replay_verify_result* seq) {
    o->jobs = 1;
    run(path, o, seq);
    assert_int_equal(seq->jobs, 1);
    assert_int_equal(seq->segments, 0);
    for (unsigned jobs = 2; jobs <= 3; jobs++) {
        bsync_replay_verify_result par;
        o->jobs = jobs;
        run(path, o, &par);
        same_result(seq, &par);
        if (par.verdict == BSYNC_VERIFY_MISMATCH) {
            assert_int_equal(par.jobs, 1); /* a mismatch is found again sequentially */
        } else {
            assert_int_equal(par.jobs, jobs);
            if (par.complete) assert_int_equal(par.segments, SEGMENTS);
        }
        bsync_replay_verify_result_destroy(&par);
    }
    o->jobs = 1;
}

static void test_good(void** state) {
    fixture* f = *state;
    for (int poses = 0; poses <= 1; poses++) {
        bsync_replay_verify_options o;
        memset(&o, 0, sizeof o);
        o.poses = poses;
        bsync_replay_verify_result res;
        run_both(f->good, &o, &res); /* the recorded config, found next to its recorded path */
        assert_int_equal(res.verdict, BSYNC_VERIFY_VERIFIED);
        assert_int_equal(res.ticks_verified, TICKS);
        assert_int_equal(res.verified_up_to, TICKS);
        assert_int_equal(res.checksums_compared, CHECKSUMS);
        assert_int_equal(res.pose_checksums_compared, CHECKSUMS);
        assert_int_equal(res.snapshots_compared, SNAPSHOTS);
        assert_int_equal(res.mismatches, 0);
        assert_int_equal(res.first_mismatch.kind, BSYNC_VERIFY_NONE);
        assert_true(res.complete);
        assert_false(res.incomplete);
        assert_int_equal(res.end.ticks, TICKS);
        assert_int_equal(res.stop, BSYNC_REPLAY_EOF);
        assert_int_equal(res.player_count, 4);
        assert_int_equal(res.character_count, 6);
        assert_non_null(res.config);
        assert_non_null(strstr(res.config_used, "match.json"));
        bsync_replay_verify_result_destroy(&res);
        assert_null(res.config);
    }
}

static void test_memory_and_given_config(void** state) {
    fixture* f = *state;
    FILE* fp = fopen(f->good, "rb");
    assert_non_null(fp);
    static uint8_t bytes[1 << 20];
    size_t len = fread(bytes, 1, sizeof bytes, fp);
    fclose(fp);
    assert_true(len > 0 && len < sizeof bytes);
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    bsync_replay_verify_result from_file, from_memory;
    run(f->good, &o, &from_file);
    o.config = f->mc; /* a service that holds the config already */
    assert_int_equal(bsync_replay_verify_memory(bytes, len, &o, &from_memory), BSYNC_OK);
    same_result(&from_file, &from_memory);
    assert_ptr_equal(from_memory.config, f->mc);
    bsync_replay_verify_result_destroy(&from_file);
    bsync_replay_verify_result_destroy(&from_memory);
    /* cut inside the last record (END, 24 bytes): incomplete, everything before it verified */
    o.jobs = 2;
    assert_int_equal(bsync_replay_verify_memory(bytes, len - 5, &o, &from_memory), BSYNC_OK);
    assert_int_equal(from_memory.verdict, BSYNC_VERIFY_VERIFIED);
    assert_false(from_memory.complete);
    assert_true(from_memory.incomplete);
    assert_int_equal(from_memory.stop, BSYNC_REPLAY_TRUNCATED);
    assert_int_equal(from_memory.valid_bytes, len - 24);
    assert_int_equal(from_memory.ticks_verified, TICKS);
    bsync_replay_verify_result_destroy(&from_memory);
    /* not a replay */
    assert_int_equal(bsync_replay_verify_memory("nonsense", 8, &o, &from_memory), BSYNC_IO_ERROR);
    assert_int_equal(from_memory.verdict, BSYNC_VERIFY_UNUSABLE);
    assert_non_null(strstr(from_memory.message, "not a readable replay"));
    bsync_replay_verify_result_destroy(&from_memory);
    o.jobs = BSYNC_REPLAY_VERIFY_MAX_JOBS + 1;
    assert_int_equal(bsync_replay_verify_memory(bytes, len, &o, &from_memory), BSYNC_INVALID_ARGUMENT);
    bsync_replay_verify_result_destroy(&from_memory);
}

/* p1's speed in frame 61: the next compared record is the snapshot at the start of tick 80 (the
 * checksum after frame 89 comes later), and the character that differs is p1's (slot 1 drives
 * character 1 in the demo match). */
static void test_frame_changed_snapshot(void** state) {
    fixture* f = *state;
    char path[64];
    temp_path(path, sizeof path);
    rewrite(f->good, path, edit_frame61_p1);
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    bsync_replay_verify_result res;
    run_both(path, &o, &res);
    assert_int_equal(res.verdict, BSYNC_VERIFY_MISMATCH);
    assert_int_equal(res.first_mismatch.kind, BSYNC_VERIFY_SNAPSHOT);
    assert_int_equal(res.first_mismatch.tick, 80);
    assert_int_equal(res.first_mismatch.character, 1);
    assert_int_equal(f->d->characters[1].slot, 1);
    assert_string_equal(res.first_mismatch.what, "snapshot");
    assert_non_null(res.describe);
    assert_non_null(strstr(res.describe, "character 1 (p1)"));
    assert_int_equal(res.ticks_verified, 80);
    assert_int_equal(res.checksums_compared, 2); /* 29, 59 */
    assert_int_equal(res.snapshots_compared, 3); /* 20, 40, 60 */
    bsync_replay_verify_result_destroy(&res);
    remove(path);
}

/* p0's speed in frame 50: the checksum after frame 59 comes before the snapshot at 60. */
static void test_frame_changed_checksum(void** state) {
    fixture* f = *state;
    char path[64];
    temp_path(path, sizeof path);
    rewrite(f->good, path, edit_frame50_p0);
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    bsync_replay_verify_result res;
    run_both(path, &o, &res);
    assert_int_equal(res.verdict, BSYNC_VERIFY_MISMATCH);
    assert_int_equal(res.first_mismatch.kind, BSYNC_VERIFY_BLEND_CHECKSUM);
    assert_int_equal(res.first_mismatch.tick, 59);
    assert_int_equal(res.first_mismatch.character, BSYNC_REPLAY_VERIFY_NO_CHARACTER);
    assert_null(res.describe);
    bsync_replay_verify_result_destroy(&res);
    remove(path);
}

typedef struct seen {
    int calls;
    uint32_t tick, previous_tick, frame_count;
    int frames_ok, previous_ok, here_ok;
    const fixture* f;
} seen;

/* The states at a mismatch are compared with a match ticked here with the recorded inputs. */
static void on_mismatch(const bsync_replay_verify_states* s, void* user) {
    seen* w = user;
    w->calls++;
    w->tick = s->mismatch->tick;
    w->previous_tick = s->previous_tick;
    w->frame_count = s->frame_count;
    const bsync_match_desc* d = w->f->d;
    void* mem = NULL;
    bsync_match* m = bsync_test_match_new(d, &mem);
    size_t cap = bsync_match_snapshot_size_max(m), len = 0;
    uint8_t* buf = malloc(cap);
    assert_non_null(buf);
    for (uint32_t t = 0; t < s->previous_tick; t++) assert_int_equal(bsync_match_tick(m, &w->f->inputs[t]), BSYNC_OK);
    assert_int_equal(bsync_match_save(m, buf, cap, &len), BSYNC_OK);
    w->previous_ok = len == s->previous_len && memcmp(buf, s->previous, len) == 0;
    w->frames_ok = 1;
    for (uint32_t k = 0; k < s->frame_count; k++) {
        w->frames_ok &= memcmp(&s->frames[k], &w->f->inputs[s->previous_tick + k], sizeof s->frames[k]) == 0;
        w->frames_ok &= s->defaulted[k] == 0;
        assert_int_equal(bsync_match_tick(m, &s->frames[k]), BSYNC_OK);
    }
    assert_int_equal(bsync_match_save(m, buf, cap, &len), BSYNC_OK);
    w->here_ok = len == s->here_len && memcmp(buf, s->here, len) == 0;
    free(buf);
    free(mem);
}

/* The checksum after frame 89 with a flipped bit: mismatch at 89 with the flipped value expected and
 * the recorded one got; the last agreeing point is the snapshot at 80, 10 frames before. */
static void test_checksum_flipped(void** state) {
    fixture* f = *state;
    char path[64];
    temp_path(path, sizeof path);
    rewrite(f->good, path, edit_checksum89);
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    seen w;
    memset(&w, 0, sizeof w);
    w.f = f;
    o.on_mismatch = on_mismatch;
    o.user = &w;
    bsync_replay_verify_result res;
    run_both(path, &o, &res);
    assert_int_equal(res.verdict, BSYNC_VERIFY_MISMATCH);
    assert_int_equal(res.first_mismatch.kind, BSYNC_VERIFY_BLEND_CHECKSUM);
    assert_int_equal(res.first_mismatch.tick, 89);
    assert_true(res.first_mismatch.expected == (g_checksum89 ^ (1u << 7)));
    assert_true(res.first_mismatch.got == g_checksum89);
    assert_int_equal(res.ticks_verified, 90);
    assert_int_equal(res.checksums_compared, 2);
    assert_int_equal(res.snapshots_compared, 4);
    /* once per sequential run: jobs 1, and the sequential re-run of jobs 2 and 3 */
    assert_int_equal(w.calls, 3);
    assert_int_equal(w.tick, 89);
    assert_int_equal(w.previous_tick, 80);
    assert_int_equal(w.frame_count, 10);
    assert_true(w.previous_ok);
    assert_true(w.frames_ok);
    assert_true(w.here_ok);
    bsync_replay_verify_result_destroy(&res);
    remove(path);
}

static void test_continue_after_mismatch(void** state) {
    fixture* f = *state;
    char path[64];
    temp_path(path, sizeof path);
    rewrite(f->good, path, edit_checksums_29_89);
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    o.continue_after_mismatch = 1;
    bsync_replay_verify_result res;
    run_both(path, &o, &res);
    assert_int_equal(res.verdict, BSYNC_VERIFY_MISMATCH);
    assert_int_equal(res.mismatches, 2);
    assert_int_equal(res.first_mismatch.tick, 29);
    assert_int_equal(res.ticks_verified, TICKS);
    assert_int_equal(res.checksums_compared, CHECKSUMS - 2);
    assert_int_equal(res.snapshots_compared, SNAPSHOTS);
    bsync_replay_verify_result_destroy(&res);
    o.continue_after_mismatch = 0;
    run(path, &o, &res);
    assert_int_equal(res.mismatches, 1);
    assert_int_equal(res.ticks_verified, 30);
    bsync_replay_verify_result_destroy(&res);
    remove(path);
}

/* A raw flipped byte inside frame 50: its XXH64 fails, the reader stops there (CORRUPT), and
 * everything before it verified: 50 frames, the state at the start of tick 50. */
static void test_raw_flip(void** state) {
    fixture* f = *state;
    bsync_replay_reader* rdr = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file(f->good, &rdr, &err), BSYNC_OK);
    bsync_replay_record* rec = malloc(sizeof *rec);
    assert_non_null(rec);
    uint64_t offset = 0;
    while (bsync_replay_reader_next(rdr, rec, NULL, 0) == BSYNC_REPLAY_OK)
        if (rec->type == BSYNC_REPLAY_FRAME && rec->frame.tick == 50) offset = rec->offset;
    bsync_replay_reader_close(rdr);
    free(rec);
    assert_true(offset > 0);
    char path[64];
    temp_path(path, sizeof path);
    FILE* in = fopen(f->good, "rb");
    FILE* out = fopen(path, "wb");
    assert_non_null(in);
    assert_non_null(out);
    int ch;
    for (uint64_t i = 0; (ch = fgetc(in)) != EOF; i++) fputc(i == offset + 8 + 9 ? ch ^ 0x10 : ch, out);
    fclose(in);
    fclose(out);
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    bsync_replay_verify_result res;
    run_both(path, &o, &res);
    assert_int_equal(res.verdict, BSYNC_VERIFY_ERROR);
    assert_int_equal(res.stop, BSYNC_REPLAY_CORRUPT);
    assert_int_equal(res.valid_bytes, offset);
    assert_int_equal(res.ticks_verified, 50);
    assert_int_equal(res.verified_up_to, 50);
    assert_non_null(strstr(res.message, "unreadable"));
    bsync_replay_verify_result_destroy(&res);
    remove(path);
}

/* A graph other than the recorded one (pab_locomotion: no idle clip) changes the match hash: refused,
 * nothing simulated. Its clips come from ../shared/data: skipped without it. */
static void test_refused(void** state) {
    fixture* f = *state;
    if (!bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf")) {
        print_message("shared data absent (the pab example's clips): skipped\n");
        skip();
        return;
    }
    char graph[1024];
    snprintf(graph, sizeof graph, "%s/scripts/examples/pab_locomotion.json", BSYNC_SOURCE_DIR);
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    o.graph_path = graph;
    bsync_replay_verify_result res;
    bsync_result r = bsync_replay_verify_file(f->good, &o, &res);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_int_equal(res.verdict, BSYNC_VERIFY_REFUSED);
    assert_true(res.difference_count >= 1);
    assert_true(strncmp(res.differences, "match hash mismatch", 19) == 0);
    assert_non_null(strstr(res.differences, "asset missing here: clip humanoid_locomotion.json:idle"));
    assert_int_equal(res.ticks_verified, 0);
    bsync_replay_verify_result_destroy(&res);
    o.graph_path = NULL;
    o.match_path = "/nonexistent/match.json";
    assert_int_equal(bsync_replay_verify_file(f->good, &o, &res), BSYNC_IO_ERROR);
    assert_int_equal(res.verdict, BSYNC_VERIFY_UNUSABLE);
    bsync_replay_verify_result_destroy(&res);
}

typedef struct counting {
    long live;
    size_t live_bytes;
    long calls;
    int bad_free;
} counting;

static void* count_alloc(size_t size, size_t align, void* user) {
    counting* c = user;
    assert_true(align <= 16);
    uint8_t* p = aligned_alloc(16, ((size + 16u) + 15u) & ~(size_t)15u);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    c->live++;
    c->live_bytes += size;
    c->calls++;
    return p + 16;
}

static void count_free(void* ptr, size_t size, void* user) {
    counting* c = user;
    uint8_t* p = (uint8_t*)ptr - 16;
    size_t had;
    memcpy(&had, p, sizeof had);
    if (had != size) c->bad_free = 1;
    c->live--;
    c->live_bytes -= had;
    free(p);
}

static void test_allocator(void** state) {
    fixture* f = *state;
    counting c;
    memset(&c, 0, sizeof c);
    bsync_allocator a = {count_alloc, count_free, &c};
    char path[64];
    temp_path(path, sizeof path);
    rewrite(f->good, path, edit_frame61_p1); /* a snapshot mismatch: describe text too */
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    o.allocator = &a;
    seen w;
    memset(&w, 0, sizeof w);
    w.f = f;
    o.on_mismatch = on_mismatch;
    o.user = &w;
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        const char* files[2] = {f->good, path};
        for (int k = 0; k < 2; k++) {
            o.jobs = jobs;
            bsync_replay_verify_result res;
            bsync_replay_verify_file(files[k], &o, &res);
            assert_int_equal(res.verdict, k ? BSYNC_VERIFY_MISMATCH : BSYNC_VERIFY_VERIFIED);
            assert_true(c.live > 0); /* the result holds its config (and describe) */
            bsync_replay_verify_result_destroy(&res);
            assert_int_equal(c.live, 0);
            assert_int_equal(c.live_bytes, 0);
        }
    }
    assert_false(c.bad_free);
    assert_true(c.calls > 10);
    remove(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_memory_and_given_config),
        cmocka_unit_test(test_frame_changed_snapshot),
        cmocka_unit_test(test_frame_changed_checksum),
        cmocka_unit_test(test_checksum_flipped),
        cmocka_unit_test(test_continue_after_mismatch),
        cmocka_unit_test(test_raw_flip),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_allocator),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
