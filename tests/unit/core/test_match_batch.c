/* The match's batch API (match.h "One match over a job system's threads"): a tick split into
 * character ranges, and the checksums likewise, give exactly the bits of bsync_match_tick and
 * bsync_match_get_checksums — whatever the split, and with the ranges run on two threads at once.
 * The reference is the whole-match call (the header defines the batch by it); the match is the demo's
 * (4 players, 2 NPCs on the built-in humanoid, poses checked too). */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

#include "blendsync/io/match_config.h"
#include "blendsync/match.h"

#include "platform.h"

#define TICKS 150u


static void inputs_of(const bsync_match_desc* d, bsync_match_script* scripts, bsync_match_frame* in) {
    memset(in, 0, sizeof *in);
    in->player_count = d->player_count;
    for (uint32_t p = 0; p < d->player_count; p++) bsync_match_random_input(&scripts[p], d, &in->players[p]);
}

typedef struct range_job {
    bsync_match* m;
    const bsync_match_frame* frame;
    bsync_match_checksums* out;
    uint32_t first, count;
    int checksums; /* 0: tick, 1: checksums with poses */
    bsync_result result;
} range_job;

static void run_job(void* arg) {
    range_job* j = arg;
    j->result = j->checksums ? bsync_match_checksums_range(j->m, 1, j->out, j->first, j->count)
                             : bsync_match_tick_range(j->m, j->frame, j->first, j->count);
}

/* Two ranges [0, k) and [k, n), the second on another thread while the first runs here. */
static void split_step(range_job* a, range_job* b) {
    bsync_platform_thread t;
    int started = bsync_platform_thread_create(&t, run_job, b) == 0;
    run_job(a);
    if (started) assert_int_equal(bsync_platform_thread_join(&t), 0);
    else run_job(b);
    assert_int_equal(a->result, BSYNC_OK);
    assert_int_equal(b->result, BSYNC_OK);
}

static void test_batch_is_the_whole_call(void** state) {
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/scripts/demo/match.json", BSYNC_SOURCE_DIR);
    bsync_match_config* mc = NULL;
    bsync_error err;
    assert_int_equal(bsync_match_config_load(path, NULL, &mc, &err), BSYNC_OK);
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    void *ma = NULL, *mb = NULL, *mcmem = NULL;
    bsync_match* whole = bsync_test_match_new(d, &ma);
    bsync_match* threaded = bsync_test_match_new(d, &mb);
    bsync_match* serial = bsync_test_match_new(d, &mcmem);
    const uint32_t n = bsync_match_character_count(whole);
    assert_true(n >= 3);
    bsync_match_script scripts[BSYNC_MATCH_MAX_PLAYERS];
    for (uint32_t p = 0; p < d->player_count; p++) bsync_match_script_init(&scripts[p], 1000u + p);
    static bsync_match_frame in;
    uint32_t poses_nonzero = 0;
    for (uint32_t t = 0; t < TICKS; t++) {
        inputs_of(d, scripts, &in);
        assert_int_equal(bsync_match_tick(whole, &in), BSYNC_OK);
        /* threaded: split at k = 1 + t % (n - 1), the halves at once on two threads */
        const uint32_t k = 1u + t % (n - 1u);
        range_job a = {threaded, &in, NULL, 0, k, 0, BSYNC_IO_ERROR};
        range_job b = {threaded, &in, NULL, k, n - k, 0, BSYNC_IO_ERROR};
        split_step(&a, &b);
        assert_int_equal(bsync_match_tick_finish(threaded), BSYNC_OK);
        /* serial: one range per character, last to first (order does not matter) */
        for (uint32_t c = n; c-- > 0;) assert_int_equal(bsync_match_tick_range(serial, &in, c, 1), BSYNC_OK);
        assert_int_equal(bsync_match_tick_finish(serial), BSYNC_OK);
        assert_int_equal(bsync_match_tick_count(threaded), t + 1u);
        assert_int_equal(bsync_match_tick_count(serial), t + 1u);
        if (t % 10u != 9u) continue;
        bsync_match_checksums w, x, y;
        assert_int_equal(bsync_match_get_checksums(whole, 1, &w), BSYNC_OK);
        memset(&x, 0xA5, sizeof x); /* every field the batch promises must be written */
        range_job ca = {threaded, NULL, &x, 0, n - k, 1, BSYNC_IO_ERROR};
        range_job cb = {threaded, NULL, &x, n - k, k, 1, BSYNC_IO_ERROR};
        split_step(&ca, &cb);
        assert_int_equal(bsync_match_checksums_finish(threaded, 1, &x), BSYNC_OK);
        memset(&y, 0x5A, sizeof y);
        for (uint32_t c = 0; c < n; c++) assert_int_equal(bsync_match_checksums_range(serial, 1, &y, c, 1), BSYNC_OK);
        assert_int_equal(bsync_match_checksums_finish(serial, 1, &y), BSYNC_OK);
        assert_true(x.blend == w.blend && x.pose == w.pose && x.tick == w.tick);
        assert_true(y.blend == w.blend && y.pose == w.pose && y.tick == w.tick);
        assert_int_equal(x.character_count, n);
        for (uint32_t c = 0; c < n; c++) {
            assert_true(x.character_blend[c] == w.character_blend[c] && x.character_pose[c] == w.character_pose[c]);
            assert_true(y.character_blend[c] == w.character_blend[c] && y.character_pose[c] == w.character_pose[c]);
            poses_nonzero += w.character_pose[c] != 0;
        }
    }
    assert_true(poses_nonzero > 0); /* the poses were really computed */
    /* the whole state too, byte for byte */
    size_t la = bsync_match_snapshot_size(whole), lb = bsync_match_snapshot_size(threaded);
    assert_int_equal(la, lb);
    uint8_t* sa = malloc(la);
    uint8_t* sb = malloc(lb);
    assert_non_null(sa);
    assert_non_null(sb);
    assert_int_equal(bsync_match_save(whole, sa, la, NULL), BSYNC_OK);
    assert_int_equal(bsync_match_save(threaded, sb, lb, NULL), BSYNC_OK);
    assert_memory_equal(sa, sb, la);
    free(sa);
    free(sb);
    free(ma);
    free(mb);
    free(mcmem);
    bsync_match_config_destroy(mc);
}

static void test_ranges_checked(void** state) {
    (void)state;
    char path[1024];
    snprintf(path, sizeof path, "%s/scripts/demo/match.json", BSYNC_SOURCE_DIR);
    bsync_match_config* mc = NULL;
    bsync_error err;
    assert_int_equal(bsync_match_config_load(path, NULL, &mc, &err), BSYNC_OK);
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    void* mem = NULL;
    bsync_match* m = bsync_test_match_new(d, &mem);
    const uint32_t n = bsync_match_character_count(m);
    static bsync_match_frame in;
    memset(&in, 0, sizeof in);
    in.player_count = d->player_count;
    bsync_match_checksums cs;
    assert_int_equal(bsync_match_tick_range(m, &in, n, 1), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_tick_range(m, &in, 1, n), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_tick_range(m, &in, 2, UINT32_MAX), BSYNC_INVALID_ARGUMENT); /* no wrap */
    assert_int_equal(bsync_match_tick_range(m, NULL, 0, 1), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_checksums_range(m, 0, &cs, n - 1u, 2), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_tick_range(m, &in, n, 0), BSYNC_OK); /* empty ranges are fine */
    in.player_count = d->player_count + 1u;
    assert_int_equal(bsync_match_tick_range(m, &in, 0, 1), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_tick_count(m), 0); /* nothing finished */
    free(mem);
    bsync_match_config_destroy(mc);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_batch_is_the_whole_call), cmocka_unit_test(test_ranges_checked)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
