/* bsync_replay_recorder: the records it writes follow the schedule of replay_recorder.h (worked out
 * here from the schedule's own words, not from the recorder), and its checksums are those of a
 * second match ticked with the same inputs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_support.h"
#include "fixtures.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/match.h"

#define TICKS 65u /* the demo checksums every 30 ticks: two checksum records */
#define SNAP_EVERY 5u


static void test_schedule(void** state) {
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/scripts/demo/match.json", BSYNC_SOURCE_DIR);
    bsync_match_config* mc = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(bsync_match_config_load(path, NULL, &mc, &err), BSYNC_OK);
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    void *mem = NULL, *mem2 = NULL;
    bsync_match* m = bsync_test_match_new(d, &mem);
    bsync_match* ref = bsync_test_match_new(d, &mem2);
    static bsync_replay_header h;
    bsync_match_config_replay_header(mc, "test", 0, &h);
    uint32_t ci = h.checksum_interval;
    assert_true(ci >= 1);
    char out[64];
    bsync_test_tmpfile(out, sizeof out, "recorder", NULL, 0);
    bsync_replay_writer* w = NULL;
    assert_int_equal(bsync_replay_writer_open(out, &h, &w, &err), BSYNC_OK);
    size_t cap = bsync_match_snapshot_size_max(m);
    uint8_t* snap = malloc(cap);
    assert_non_null(snap);
    static bsync_replay_recorder r;
    bsync_replay_recorder_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.writer = w;
    rd.match = m;
    rd.snapshot_every = SNAP_EVERY;
    rd.poses = 1;
    rd.snapshot_buffer = snap;
    rd.snapshot_capacity = cap;
    assert_int_equal(bsync_replay_recorder_init(&r, &rd), BSYNC_INVALID_ARGUMENT); /* interval 0 */
    rd.checksum_interval = ci;
    assert_int_equal(bsync_replay_recorder_init(&r, &rd), BSYNC_OK);
    static bsync_match_frame in;
    int checksums = 0;
    uint64_t want_blend[TICKS], want_pose[TICKS];
    for (uint32_t t = 0; t < TICKS; t++) {
        memset(&in, 0, sizeof in);
        in.player_count = d->player_count;
        for (uint32_t p = 0; p < d->player_count; p++) in.players[p].params[0] = (fix16_t)((t * 977u + p) % 65536u);
        bsync_match_checksums cs;
        int summed = -1;
        assert_int_equal(bsync_replay_recorder_tick(&r, t, &in, &cs, &summed, &err), BSYNC_OK);
        assert_int_equal(summed, (t + 1) % ci == 0);
        assert_int_equal(bsync_match_tick(ref, &in), BSYNC_OK);
        bsync_match_checksums rc;
        assert_int_equal(bsync_match_get_checksums(ref, 1, &rc), BSYNC_OK);
        want_blend[t] = rc.blend;
        want_pose[t] = rc.pose;
        checksums += summed;
        if (summed) {
            assert_true(cs.blend == rc.blend);
            assert_true(cs.pose == rc.pose);
        }
    }
    assert_int_equal(checksums, TICKS / ci);
    assert_int_equal(bsync_replay_recorder_end(&r, TICKS, 0, &err), BSYNC_OK);
    bsync_replay_writer_close(w);

    bsync_replay_reader* rdr = NULL;
    assert_int_equal(bsync_replay_reader_open_file(out, &rdr, &err), BSYNC_OK);
    static bsync_replay_record rec;
    char detail[200];
    assert_int_equal(bsync_replay_reader_next(rdr, &rec, detail, sizeof detail), BSYNC_REPLAY_OK);
    assert_int_equal(rec.type, BSYNC_REPLAY_HEADER);
    for (uint32_t t = 0; t < TICKS; t++) {
        if (t > 0 && t % SNAP_EVERY == 0) {
            assert_int_equal(bsync_replay_reader_next(rdr, &rec, detail, sizeof detail), BSYNC_REPLAY_OK);
            assert_int_equal(rec.type, BSYNC_REPLAY_SNAPSHOT);
            assert_int_equal(rec.snapshot.tick, t);
        }
        assert_int_equal(bsync_replay_reader_next(rdr, &rec, detail, sizeof detail), BSYNC_REPLAY_OK);
        assert_int_equal(rec.type, BSYNC_REPLAY_FRAME);
        assert_int_equal(rec.frame.tick, t);
        if ((t + 1) % ci == 0) {
            assert_int_equal(bsync_replay_reader_next(rdr, &rec, detail, sizeof detail), BSYNC_REPLAY_OK);
            assert_int_equal(rec.type, BSYNC_REPLAY_CHECKSUM);
            assert_int_equal(rec.checksum.tick, t);
            assert_int_equal(rec.checksum.has_pose, 1);
            assert_true(rec.checksum.blend == want_blend[t]);
            assert_true(rec.checksum.pose == want_pose[t]);
        }
    }
    assert_int_equal(bsync_replay_reader_next(rdr, &rec, detail, sizeof detail), BSYNC_REPLAY_OK);
    assert_int_equal(rec.type, BSYNC_REPLAY_END);
    assert_int_equal(rec.end.ticks, TICKS);
    bsync_replay_reader_close(rdr);
    remove(out);
    free(snap);
    free(mem);
    free(mem2);
    bsync_match_config_destroy(mc);
}

/* ---- the steps, the schedule without a writer, and the failure rules */

typedef struct fixture {
    bsync_match_config* mc;
    const bsync_match_desc* d;
    void* mem;
    bsync_match* m;
    bsync_replay_header h;
    uint8_t* snap;
    size_t cap;
} fixture;

static void fixture_open(fixture* f) {
    char path[1024];
    snprintf(path, sizeof path, "%s/scripts/demo/match.json", BSYNC_SOURCE_DIR);
    bsync_error err;
    memset(f, 0, sizeof *f);
    assert_int_equal(bsync_match_config_load(path, NULL, &f->mc, &err), BSYNC_OK);
    f->d = bsync_match_config_desc(f->mc);
    f->m = bsync_test_match_new(f->d, &f->mem);
    bsync_match_config_replay_header(f->mc, "test", 0, &f->h);
    f->cap = bsync_match_snapshot_size_max(f->m);
    f->snap = malloc(f->cap);
    assert_non_null(f->snap);
}

static void fixture_close(fixture* f) {
    free(f->snap);
    free(f->mem);
    bsync_match_config_destroy(f->mc);
}

static void inputs_of(const bsync_match_desc* d, uint32_t t, bsync_match_frame* in) {
    memset(in, 0, sizeof *in);
    in->player_count = d->player_count;
    for (uint32_t p = 0; p < d->player_count; p++) in->players[p].params[0] = (fix16_t)((t * 977u + p) % 65536u);
}

static void temp_path(char* out, size_t n) { bsync_test_tmpfile(out, n, "recorder", NULL, 0); }

static uint8_t* slurp(const char* path, size_t* len) {
    FILE* fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t* b = malloc((size_t)n + 1u);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    *len = (size_t)n;
    return b;
}

/* Records `ticks` ticks into a new file, with bsync_replay_recorder_tick (steps 0) or with its steps
 * and a frame record carrying a defaulted mask and payloads (steps 1; tick() records neither, so the
 * files differ exactly there: steps 2 records the same frame as tick() through the steps). */
static void record(fixture* f, const char* path, int steps, uint32_t ticks) {
    bsync_error err;
    void* mem = NULL;
    bsync_match* m = bsync_test_match_new(f->d, &mem);
    bsync_replay_writer* w = NULL;
    assert_int_equal(bsync_replay_writer_open(path, &f->h, &w, &err), BSYNC_OK);
    static bsync_replay_recorder r;
    bsync_replay_recorder_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.writer = w;
    rd.match = m;
    rd.checksum_interval = f->h.checksum_interval;
    rd.snapshot_every = SNAP_EVERY;
    rd.poses = 1;
    rd.snapshot_buffer = f->snap;
    rd.snapshot_capacity = f->cap;
    assert_int_equal(bsync_replay_recorder_init(&r, &rd), BSYNC_OK);
    static bsync_replay_frame fr;
    for (uint32_t t = 0; t < ticks; t++) {
        memset(&fr, 0, sizeof fr);
        fr.tick = t;
        inputs_of(f->d, t, &fr.inputs);
        if (steps == 0) {
            assert_int_equal(bsync_replay_recorder_tick(&r, t, &fr.inputs, NULL, NULL, &err), BSYNC_OK);
            continue;
        }
        if (steps == 1) {
            fr.defaulted_mask = (uint16_t)(t & 1u);
            fr.payload_len[0] = 3;
            fr.payload[0][0] = (uint8_t)t;
        }
        assert_int_equal(bsync_replay_recorder_begin_tick(&r, &fr, &err), BSYNC_OK);
        assert_int_equal(bsync_match_tick(m, &fr.inputs), BSYNC_OK);
        int due = -1;
        assert_int_equal(bsync_replay_recorder_end_tick(&r, t, NULL, &due, &err), BSYNC_OK);
        assert_int_equal(due, (t + 1) % f->h.checksum_interval == 0);
        assert_int_equal(due, bsync_replay_recorder_checksum_due(&r, t));
    }
    assert_int_equal(bsync_replay_recorder_end(&r, ticks, 0, &err), BSYNC_OK);
    bsync_replay_writer_close(w);
    free(mem);
}

/* tick() is begin_tick, the match's tick and end_tick (the header says so): byte-identical files;
 * and the frame record given to begin_tick is the one written (mask, payloads). */
static void test_steps(void** state) {
    (void)state;
    fixture f;
    fixture_open(&f);
    char a[64], b[64], c[64];
    temp_path(a, sizeof a);
    temp_path(b, sizeof b);
    temp_path(c, sizeof c);
    record(&f, a, 0, TICKS);
    record(&f, b, 2, TICKS);
    record(&f, c, 1, TICKS);
    size_t la, lb, lc;
    uint8_t* ba = slurp(a, &la);
    uint8_t* bb = slurp(b, &lb);
    uint8_t* bc = slurp(c, &lc);
    assert_int_equal(la, lb);
    assert_memory_equal(ba, bb, la);
    assert_true(lc > la); /* 65 payloads of 3 bytes */
    bsync_error err;
    bsync_replay_reader* rdr = NULL;
    assert_int_equal(bsync_replay_reader_open_file(c, &rdr, &err), BSYNC_OK);
    static bsync_replay_record rec;
    char detail[200];
    uint32_t frames = 0;
    while (bsync_replay_reader_next(rdr, &rec, detail, sizeof detail) == BSYNC_REPLAY_OK && rec.type != BSYNC_REPLAY_END) {
        if (rec.type != BSYNC_REPLAY_FRAME) continue;
        assert_int_equal(rec.frame.defaulted_mask, rec.frame.tick & 1u);
        assert_int_equal(rec.frame.payload_len[0], 3);
        assert_int_equal(rec.frame.payload[0][0], (uint8_t)rec.frame.tick);
        frames++;
    }
    assert_int_equal(rec.type, BSYNC_REPLAY_END);
    assert_int_equal(frames, TICKS);
    bsync_replay_reader_close(rdr);
    free(ba);
    free(bb);
    free(bc);
    remove(a);
    remove(b);
    remove(c);
    fixture_close(&f);
}

/* Without a writer the recorder is the schedule: the match is ticked, checksums come when due and
 * equal a reference match's. */
static void test_schedule_only(void** state) {
    (void)state;
    fixture f;
    fixture_open(&f);
    void* mem = NULL;
    bsync_match* ref = bsync_test_match_new(f.d, &mem);
    static bsync_replay_recorder r;
    bsync_replay_recorder_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.match = f.m;
    rd.checksum_interval = 7;
    rd.snapshot_every = SNAP_EVERY; /* no buffer needed without a writer */
    assert_int_equal(bsync_replay_recorder_init(&r, &rd), BSYNC_OK);
    bsync_error err;
    static bsync_match_frame in;
    int due_count = 0;
    for (uint32_t t = 0; t < 30; t++) {
        inputs_of(f.d, t, &in);
        bsync_match_checksums cs, rc;
        int due = -1;
        assert_int_equal(bsync_replay_recorder_tick(&r, t, &in, &cs, &due, &err), BSYNC_OK);
        assert_int_equal(due, (t + 1) % 7 == 0);
        assert_int_equal(bsync_match_tick(ref, &in), BSYNC_OK);
        assert_int_equal(bsync_match_get_checksums(ref, 0, &rc), BSYNC_OK);
        if (due) assert_true(cs.blend == rc.blend);
        due_count += due;
    }
    assert_int_equal(due_count, 4); /* after ticks 6, 13, 20, 27 */
    assert_int_equal(bsync_match_tick_count(f.m), 30);
    assert_int_equal(bsync_replay_recorder_end(&r, 30, 0, &err), BSYNC_OK); /* nothing to write */
    free(mem);
    fixture_close(&f);
}

/* A failed write: by default the call fails before the tick; with keep_going the recording stops
 * there (the file ends at the last good record), the reason is kept and the match goes on. */
static void test_failure_rules(void** state) {
    (void)state;
    for (int keep = 0; keep <= 1; keep++) {
        fixture f;
        fixture_open(&f);
        char path[64];
        temp_path(path, sizeof path);
        bsync_error err;
        bsync_replay_writer* w = NULL;
        assert_int_equal(bsync_replay_writer_open(path, &f.h, &w, &err), BSYNC_OK);
        static bsync_replay_recorder r;
        bsync_replay_recorder_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.writer = w;
        rd.match = f.m;
        rd.checksum_interval = 4;
        rd.keep_going = keep;
        assert_int_equal(bsync_replay_recorder_init(&r, &rd), BSYNC_OK);
        static bsync_replay_frame fr;
        for (uint32_t t = 0; t < 3; t++) {
            memset(&fr, 0, sizeof fr);
            fr.tick = t;
            inputs_of(f.d, t, &fr.inputs);
            assert_int_equal(bsync_replay_recorder_begin_tick(&r, &fr, &err), BSYNC_OK);
            assert_int_equal(bsync_match_tick(f.m, &fr.inputs), BSYNC_OK);
        }
        const uint64_t good = bsync_replay_writer_bytes(w);
        /* the writer refuses a frame out of order (tick 9, it expects 3): a real write failure */
        memset(&fr, 0, sizeof fr);
        fr.tick = 9;
        inputs_of(f.d, 9, &fr.inputs);
        bsync_result res = bsync_replay_recorder_begin_tick(&r, &fr, &err);
        if (!keep) {
            assert_int_not_equal(res, BSYNC_OK);
            assert_int_equal(r.failed, BSYNC_RECORDER_WRITE);
            assert_int_equal(r.stopped, 0);
            static bsync_match_frame in;
            inputs_of(f.d, 9, &in);
            res = bsync_replay_recorder_tick(&r, 9, &in, NULL, NULL, &err);
            assert_int_not_equal(res, BSYNC_OK);
            assert_int_equal(bsync_match_tick_count(f.m), 3); /* not ticked after the failed write */
        } else {
            assert_int_equal(res, BSYNC_OK);
            assert_int_equal(r.stopped, 1);
            assert_int_equal(r.stop_stage, BSYNC_RECORDER_WRITE);
            assert_non_null(strstr(r.stop_error.message, "expected tick 3"));
            /* the schedule goes on: ticks and checksums, no record */
            static bsync_match_frame in;
            for (uint32_t t = 3; t < 8; t++) {
                inputs_of(f.d, t, &in);
                int due = -1;
                assert_int_equal(bsync_replay_recorder_tick(&r, t, &in, NULL, &due, &err), BSYNC_OK);
                assert_int_equal(due, (t + 1) % 4 == 0);
            }
            assert_int_equal(bsync_replay_recorder_end(&r, 8, 0, &err), BSYNC_OK);
            assert_int_equal(bsync_match_tick_count(f.m), 8);
            assert_true(bsync_replay_writer_bytes(w) == good);
        }
        bsync_replay_writer_close(w);
        remove(path);
        fixture_close(&f);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_schedule), cmocka_unit_test(test_steps),
                                       cmocka_unit_test(test_schedule_only), cmocka_unit_test(test_failure_rules)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
