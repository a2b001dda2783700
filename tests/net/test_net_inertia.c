/* test_net_inertia.c — late join and resync while switches inertialize, over real ENet sockets.
 *
 * The graph's upper-body layer is a switch whose trigger inertializes over 30 ticks, and the players' seeded
 * scripts change the trigger every 2-4 ticks, so at almost every tick some character is in the middle
 * of an inertialization: its instance snapshot carries the extra block (instance.h) and the match
 * snapshot is larger than its base size. A late joiner's WELCOME snapshot and a resync's snapshot are
 * then taken mid-transition; before match snapshots followed the state's size, the save failed there
 * (a late joiner got "fresh start" with no state, a resync was skipped). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/instance.h"
#include "blendsync/io/replay.h"
#include "net_harness.h"

/* The demo's graph shape (scripts/demo/humanoid_locomotion.json) on the harness's parameters: node 0
 * (locomotion) runs inside the root blend, so the planted fault's flipped phase bit (client_testing.h) persists;
 * the upper body is an override layer whose switch inertializes. */
static const char k_switch_graph[] =
    "{\n"
    "  \"tick_rate\": 60,\n"
    "  \"parameters\": { \"speed\": { \"default\": 0, \"smooth_time\": 0.2, \"max_speed\": 10 },\n"
    "                  \"lean\": { \"default\": 0 } },\n"
    "  \"root\": \"move\",\n"
    "  \"nodes\": {\n"
    "    \"locomotion\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"sync\": \"normalized\",\n"
    "      \"children\": [ { \"motion\": \"idle\", \"threshold\": 0 }, { \"motion\": \"walk\", \"threshold\": 1.4 },\n"
    "                      { \"motion\": \"run\", \"threshold\": 3.5 } ] },\n"
    "    \"move\": { \"type\": \"Simple1D\", \"parameter\": \"lean\", \"sync\": \"normalized\",\n"
    "      \"children\": [ { \"motion\": \"strafe_left\", \"threshold\": -1 }, { \"motion\": \"locomotion\", \"threshold\": 0 },\n"
    "                      { \"motion\": \"strafe_right\", \"threshold\": 1 } ] },\n"
    "    \"upper\": { \"type\": \"Switch\", \"initial\": \"move\",\n"
    "      \"children\": [ { \"motion\": \"move\" }, { \"motion\": \"wave\" }, { \"motion\": \"punch\" } ] } },\n"
    "  \"layers\": [ { \"node\": \"upper\", \"mode\": \"override\", \"weight\": 1,\n"
    "      \"mask\": { \"joints\": [\"spine_01\"], \"include_children\": true } } ],\n"
    "  \"clips\": { \"idle\": { \"source\": \"builtin:humanoid\" }, \"walk\": { \"source\": \"builtin:humanoid\" },\n"
    "             \"run\": { \"source\": \"builtin:humanoid\" }, \"strafe_left\": { \"source\": \"builtin:humanoid\" },\n"
    "             \"strafe_right\": { \"source\": \"builtin:humanoid\" }, \"wave\": { \"source\": \"builtin:humanoid\" },\n"
    "             \"punch\": { \"source\": \"builtin:humanoid\" } }\n"
    "}\n";

static const nh_options k_opts = {
    k_switch_graph,
    "[ { \"name\": \"action\", \"switch\": \"upper\", \"fade_ticks\": 30, \"inertialize\": true, \"script_states\": 3 } ]",
    2, 4};

/* The match snapshot size when no character inertializes (every blob at its graph's base size). */
static size_t base_snapshot_size(const bsync_match_desc* d) {
    size_t n = 32u + 8u;
    for (uint32_t c = 0; c < d->character_count; c++) {
        if (d->characters[c].slot == BSYNC_MATCH_NPC) n += 12u + 4u * d->param_count + d->trigger_count;
        n += 4u + bsync_instance_snapshot_size(d->characters[c].graph);
    }
    return n;
}

static void assert_agree(nh_world* w, int a, int b, uint32_t ticks) {
    bsync_match_checksums x, y;
    nh_client_checksums(w, a, &x);
    nh_client_checksums(w, b, &y);
    assert_int_equal(x.tick, ticks);
    assert_int_equal(y.tick, ticks);
    assert_true(x.blend == y.blend);
    assert_true(x.pose == y.pose);
}

static void test_late_join_mid_inertialization(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 360;
    assert_int_equal(nh_start_with(&w, &k_opts, 3, 1, 3, 20, "report", ticks, 0), 0);
    const bsync_match_desc* d = bsync_match_config_desc(w.cfg);
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    assert_true(nh_connect(&w, 1, NULL) >= 0);
    nh_pump(&w, 3600); /* the match starts without slot 2 after start_ms (3 s) */
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_true(st.started);
    assert_true(st.ticks > 10);
    /* the late joiner keeps its own replay: its first record after the header is the WELCOME snapshot */
    char replay[400];
    snprintf(replay, sizeof replay, "%s/late.bsreplay", w.dir);
    static bsync_replay_header h;
    bsync_match_config_replay_header(w.cfg, "test", 0, &h);
    bsync_client_config late_cfg;
    memset(&late_cfg, 0, sizeof late_cfg);
    late_cfg.replay_path = replay;
    late_cfg.replay_header = &h;
    int late = nh_connect(&w, 2, &late_cfg);
    assert_true(late >= 0);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    assert_true(w.clients[late].first_frame > 10);
    assert_agree(&w, 0, late, ticks);
    assert_agree(&w, 0, 1, ticks);
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 0);
    assert_int_equal(st.snapshot_failures, 0);
    assert_true(st.checksums_verified > 0);

    /* the snapshot the late joiner started from was taken mid-inertialization */
    bsync_replay_reader* r = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file(replay, &r, &err), BSYNC_OK);
    static bsync_replay_record rec;
    assert_int_equal(bsync_replay_reader_next(r, &rec, NULL, 0), BSYNC_REPLAY_OK); /* header */
    assert_int_equal(bsync_replay_reader_next(r, &rec, NULL, 0), BSYNC_REPLAY_OK);
    assert_int_equal(rec.type, BSYNC_REPLAY_SNAPSHOT);
    assert_true(rec.snapshot.tick > 10);
    assert_true(rec.snapshot.len > base_snapshot_size(d));
    bsync_replay_reader_close(r);
    nh_stop(&w);
}

static void test_resync_mid_inertialization(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 300;
    assert_int_equal(nh_start_with(&w, &k_opts, 3, 1, 3, 20, "resync", ticks, 0), 0);
    for (uint32_t p = 0; p < 3; p++) assert_true(nh_connect(&w, p, NULL) >= 0);
    bsync_client_fault_desync(w.clients[2].client, 30);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    assert_int_equal(w.clients[2].desync_events, 1);
    assert_int_equal(w.clients[2].resync_events, 1);
    assert_agree(&w, 0, 2, ticks); /* healed from a mid-transition snapshot */
    assert_agree(&w, 0, 1, ticks);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 1);
    assert_int_equal(st.resyncs, 1);
    assert_int_equal(st.snapshot_failures, 0);
    nh_stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_join_mid_inertialization),
        cmocka_unit_test(test_resync_mid_inertialization),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
