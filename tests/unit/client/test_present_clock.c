/* test_present_clock.c — the presentation clock of client.h (rendering between ticks), driven with
 * made-up times (no sleeping): expected alphas are worked out by hand from the rule "S advances at the
 * tick rate, alpha = S - T, S kept within [T, T + 3.0]". 25 Hz: one tick is exactly 40 ms, so every
 * expected value below is an exact fix16. */
#include <string.h>

#include "blendsync/client.h"
#include "test_support.h"

#define MS 1000000ull

static void test_on_time_late_and_stalled(void** state) {
    (void)state;
    bsync_present_clock k;
    bsync_present_clock_init(&k, 25);
    assert_int_equal(bsync_present_clock_alpha(&k, 5 * MS), 0); /* before the first frame */
    bsync_present_clock_frame(&k, 10, 100 * MS);
    assert_int_equal(bsync_present_clock_alpha(&k, 100 * MS), 0);
    assert_int_equal(bsync_present_clock_alpha(&k, 110 * MS), 16384);  /* 10 ms = 0.25 tick */
    assert_int_equal(bsync_present_clock_alpha(&k, 120 * MS), 32768);
    assert_int_equal(bsync_present_clock_alpha(&k, 119 * MS), 32768);  /* time never goes back */
    /* the next frame on time: alpha drops by exactly one, S goes on */
    bsync_present_clock_frame(&k, 11, 140 * MS);
    assert_int_equal(bsync_present_clock_alpha(&k, 140 * MS), 0);
    /* late: extrapolation past 1 */
    assert_int_equal(bsync_present_clock_alpha(&k, 190 * MS), 81920); /* 50 ms = 1.25 */
    bsync_present_clock_frame(&k, 12, 190 * MS);
    assert_int_equal(bsync_present_clock_alpha(&k, 190 * MS), 16384); /* the same shown time */
    assert_int_equal(bsync_present_clock_alpha(&k, 200 * MS), 32768);
    /* stalled: held at 3.0, then a burst brings alpha back down with no jump */
    assert_int_equal(bsync_present_clock_alpha(&k, 500 * MS), BSYNC_PRESENT_ALPHA_MAX);
    assert_int_equal(bsync_present_clock_alpha(&k, 900 * MS), BSYNC_PRESENT_ALPHA_MAX);
    bsync_present_clock_frame(&k, 13, 901 * MS);
    assert_int_equal(bsync_present_clock_alpha(&k, 901 * MS), 2 * 65536); /* S held at 12 + 3 */
    bsync_present_clock_frame(&k, 14, 901 * MS);
    assert_int_equal(bsync_present_clock_alpha(&k, 901 * MS), 65536);
    bsync_present_clock_frame(&k, 15, 901 * MS);
    assert_int_equal(bsync_present_clock_alpha(&k, 901 * MS), 0);
    assert_int_equal(bsync_present_clock_alpha(&k, 911 * MS), 16384); /* running again */
    /* early (a burst beyond S): S jumps forward to the tick, never before it */
    bsync_present_clock_frame(&k, 18, 912 * MS);
    assert_int_equal(bsync_present_clock_alpha(&k, 912 * MS), 0);
    assert_int_equal(bsync_present_clock_alpha(&k, 932 * MS), 32768);
    /* a resync back to an earlier tick: S brought back within the bound */
    bsync_present_clock_frame(&k, 5, 932 * MS);
    assert_int_equal(bsync_present_clock_alpha(&k, 932 * MS), BSYNC_PRESENT_ALPHA_MAX);
}

/* No drift: frames exactly every 1/30 s in whole nanoseconds that do not divide evenly (33333333 or
 * 33333334 ns, summing to exactly 1 s per 30 ticks), queried every 7 ms for 1,000 s of play: at every
 * whole second (30 ticks) alpha is exactly 0, and it never leaves [0, 1.0 + one query step]. */
static void test_no_drift(void** state) {
    (void)state;
    bsync_present_clock k;
    bsync_present_clock_init(&k, 30);
    uint64_t next_frame_ns = 0, tick = 0, q = 0;
    fix16_t max_alpha = 0;
    bsync_present_clock_frame(&k, tick, 0);
    for (uint64_t s = 0; s < 1000; s++) {
        for (uint32_t i = 0; i < 30; i++) {
            next_frame_ns = s * 1000000000ull + ((uint64_t)(i + 1) * 1000000000ull) / 30u;
            while (q < next_frame_ns) {
                const fix16_t a = bsync_present_clock_alpha(&k, q);
                assert_true(a >= 0 && a <= 65536);
                if (a > max_alpha) max_alpha = a;
                q += 7 * MS;
            }
            bsync_present_clock_frame(&k, ++tick, next_frame_ns);
        }
        assert_int_equal(bsync_present_clock_alpha(&k, next_frame_ns), 0);
    }
    assert_true(max_alpha > 60000); /* it did run up to about a whole tick between frames */
    assert_true(tick == 30000u);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_on_time_late_and_stalled),
        cmocka_unit_test(test_no_drift),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
