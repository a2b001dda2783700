/* test_net_present.c — rendering between ticks on a real client (client.h "rendering between ticks"):
 * a server in-process and one client over ENet on loopback, a 2-character match at 60 Hz for 150
 * ticks. While it runs, the test acts as a render loop every ~3 ms: bsync_client_present_alpha stays in
 * [0, BSYNC_PRESENT_ALPHA_MAX], takes values across the tick (the loop does see in-between alphas),
 * bsync_client_time_since_frame_ns stays well under the stall bound, and the whole match is presented
 * (bsync_present_match) every time; the presentation never touches the simulated state, so the server
 * — which compares every checksum the client sends, poses included — reports no desync, and the client
 * ends the match normally. Bounded: the match is 2.5 s; the test gives it 20 s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/present.h"
#include "net_harness.h"

static void test_render_loop(void** state) {
    (void)state;
    nh_world w;
    assert_int_equal(nh_start(&w, 1, 1, 3, 20, "report", 150, 1), 0);
    const int ci = nh_connect(&w, 0, NULL);
    assert_true(ci >= 0);
    bsync_client* c = w.clients[ci].client;
    bsync_match* m = bsync_client_match(c);
    assert_non_null(m);
    const size_t ss = bsync_present_match_scratch_size(m);
    const uint32_t joints = bsync_present_match_joint_count(m);
    assert_true(ss > 0 && joints > 0);
    void* scratch = malloc(ss); /* aligned for any fundamental type: 8 */
    bsync_trs* local = malloc(sizeof(bsync_trs) * joints);
    bsync_root_motion roots[BSYNC_MATCH_MAX_CHARACTERS];
    assert_non_null(scratch);
    assert_non_null(local);
    uint32_t frames = 0, low = 0, mid = 0, high = 0;
    fix16_t max_alpha = 0;
    uint64_t max_since = 0;
    for (int k = 0; k < 6000 && !(w.clients[ci].ended); k++) {
        nh_pump(&w, 3);
        if (bsync_match_tick_count(m) == 0) continue;
        const fix16_t a = bsync_client_present_alpha(c);
        const uint64_t since = bsync_client_time_since_frame_ns(c);
        assert_true(a >= 0 && a <= BSYNC_PRESENT_ALPHA_MAX);
        if (a > max_alpha) max_alpha = a;
        if (since > max_since) max_since = since;
        if (a < 21845) low++;
        else if (a < 43690) mid++;
        else high++;
        assert_int_equal(bsync_present_match(m, a, scratch, ss, local, NULL, roots), BSYNC_OK);
        frames++;
    }
    print_message("render frames %u: alpha thirds %u / %u / %u, max alpha %.3f, max time since a frame %.1f ms\n",
                  frames, low, mid, high, max_alpha / 65536.0, (double)max_since / 1e6);
    assert_int_equal(nh_run_to_end(&w, 20000), 0);
    assert_true(frames > 100);
    assert_true(low > 0 && mid > 0 && high > 0); /* in-between alphas, not only the tick poses */
    assert_true(max_since < 1000000000ull);      /* a frame at least once a second */
    assert_int_equal(w.clients[ci].desync_events, 0);
    free(scratch);
    free(local);
    nh_stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_render_loop)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
