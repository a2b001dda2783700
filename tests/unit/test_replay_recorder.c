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

#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/match.h"

#define TICKS 65u /* the demo checksums every 30 ticks: two checksum records */
#define SNAP_EVERY 5u

static bsync_match* new_match(const bsync_match_desc* d, void** mem) {
    size_t size = bsync_match_memory_size(d);
    *mem = aligned_alloc(16, (size + 15u) & ~(size_t)15u);
    assert_non_null(*mem);
    bsync_match* m = NULL;
    assert_int_equal(bsync_match_init(*mem, size, d, &m), BSYNC_OK);
    return m;
}

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
    bsync_match* m = new_match(d, &mem);
    bsync_match* ref = new_match(d, &mem2);
    static bsync_replay_header h;
    bsync_match_config_replay_header(mc, "test", 0, &h);
    uint32_t ci = h.checksum_interval;
    assert_true(ci >= 1);
    char out[] = "/tmp/bsync_recorder_XXXXXX";
    int fd = mkstemp(out);
    assert_true(fd >= 0);
    close(fd);
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
        assert_int_equal(bsync_match_checksums_get(ref, 1, &rc), BSYNC_OK);
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

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_schedule)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
