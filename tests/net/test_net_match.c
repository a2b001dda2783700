/* test_net_match.c — whole matches over real ENet sockets on loopback: a blendsync server in-process
 * and 2..8 real clients (client library). Checks agreement tick by tick, convergence under packet loss
 * and jitter, desync detection and attribution, resync, late join and reconnect. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/net.h"
#include "blendsync/io/replay.h"
#include "net_harness.h"

#define RATE 60u

/* Every client that played the whole match has the same final checksums (blend and pose) and saw the
 * same defaulted mask for every tick. */
static void assert_all_agree(nh_world* w, uint32_t ticks) {
    bsync_match_checksums first, other;
    int have = 0;
    int ref = -1;
    for (uint32_t i = 0; i < w->client_count; i++) {
        if (!w->clients[i].client) continue;
        nh_client_checksums(w, (int)i, &other);
        assert_int_equal(other.tick, ticks);
        if (!have) {
            first = other;
            have = 1;
            ref = (int)i;
            continue;
        }
        assert_true(first.blend == other.blend);
        assert_true(first.pose == other.pose);
        assert_true(first.pose != 0);
        for (uint32_t t = 0; t < ticks && t < NH_MAX_FRAMES; t++) {
            if (t < w->clients[i].first_frame || t < w->clients[ref].first_frame) continue;
            assert_int_equal(w->clients[i].defaulted[t], w->clients[ref].defaulted[t]);
        }
    }
    assert_true(have);
}

static void print_traffic(nh_world* w, const char* what, uint32_t ticks) {
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w->server, 0, &st);
    double secs = (double)ticks / RATE;
    printf("[traffic] %s: %u players, %u ticks at %u Hz: server out %.0f B/s per client, in %.0f B/s per client; "
           "UDP (ENet headers included) out %.0f B/s, in %.0f B/s per client; "
           "tick jitter p50 %llu us p99 %llu us max %llu us; replay %llu bytes\n",
           what, w->client_count, ticks, RATE, (double)st.bytes_out / secs / w->client_count,
           (double)st.bytes_in / secs / w->client_count, (double)st.host_udp_out / secs / w->client_count,
           (double)st.host_udp_in / secs / w->client_count, (unsigned long long)st.jitter_p50_us,
           (unsigned long long)st.jitter_p99_us, (unsigned long long)st.jitter_max_us,
           (unsigned long long)st.replay_bytes);
}

static void run_clean_match(uint32_t players, uint32_t ticks) {
    nh_world w;
    assert_int_equal(nh_start(&w, players, 1, 3, 20, "report", ticks, 0), 0);
    /* client 0 also runs the library's sync test (D = 4): every tick from tick 3 on is re-simulated */
    bsync_client_config sync_cfg;
    memset(&sync_cfg, 0, sizeof sync_cfg);
    sync_cfg.synctest_distance = 4;
    for (uint32_t p = 0; p < players; p++) assert_true(nh_connect(&w, p, p == 0 ? &sync_cfg : NULL) >= 0);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    bsync_client_stats cs;
    bsync_client_get_stats(w.clients[0].client, &cs);
    assert_int_equal(cs.synctest_checks, ticks - 3);
    assert_int_equal(cs.synctest_mismatches, 0);
    for (uint32_t i = 0; i < players; i++) {
        assert_int_equal(w.clients[i].frames, ticks);
        assert_int_equal(w.clients[i].bye_reason, BSYNC_PROTO_BYE_MATCH_OVER);
        assert_int_equal(w.clients[i].desync_events, 0);
        assert_int_equal(w.clients[i].checksum_ticks, ticks / 20);
    }
    assert_all_agree(&w, ticks);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.ticks, ticks);
    assert_int_equal(st.desyncs, 0);
    assert_int_equal(st.mismatched_checksums, 0);
    /* every client's every checksum was compared with the server's own blend state */
    assert_int_equal(st.checksums_verified, (uint64_t)players * (ticks / 20));
    char what[32];
    snprintf(what, sizeof what, "%u-player match", players);
    print_traffic(&w, what, ticks);
    nh_stop(&w);
}

static void test_two_players_agree(void** state) {
    (void)state;
    run_clean_match(2, 180);
}

static void test_eight_players_agree(void** state) {
    (void)state;
    run_clean_match(8, 240);
}

static void test_loss_and_jitter_converge(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 300, delay = 4;
    assert_int_equal(nh_start(&w, 4, 0, delay, 20, "report", ticks, 0), 0);
    /* slots 0 and 1 straight to the server; slots 2 and 3 through a relay that loses a quarter of what
     * they send and delays the rest 30..200 ms (often past the 67 ms input delay: defaulted inputs),
     * their downstream untouched */
    for (uint32_t p = 0; p < 2; p++) assert_true(nh_connect(&w, p, NULL) >= 0);
    nr_impair lossy;
    memset(&lossy, 0, sizeof lossy);
    lossy.loss_permille = 250;
    lossy.delay_min_ms = 30;
    lossy.delay_max_ms = 200;
    lossy.up_only = 1;
    assert_int_equal(nh_use_relay(&w, &lossy, 77), 0);
    for (uint32_t p = 2; p < 4; p++) assert_true(nh_connect(&w, p, NULL) >= 0);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    assert_all_agree(&w, ticks);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 0);
    /* the lossy slots were defaulted sometimes, the clean ones (almost) never after the first ticks */
    uint32_t lossy_defaults = 0, clean_defaults = 0;
    for (uint32_t t = 10; t < ticks; t++) {
        uint16_t m = w.clients[0].defaulted[t];
        lossy_defaults += ((m >> 2) & 1u) + ((m >> 3) & 1u);
        clean_defaults += (m & 1u) + ((m >> 1) & 1u);
    }
    printf("[loss] defaulted player-ticks: lossy slots %u, clean slots %u of %u\n", lossy_defaults, clean_defaults,
           2 * (ticks - 10));
    assert_true(lossy_defaults > 0);
    assert_true(lossy_defaults > clean_defaults);
    /* no stall: frames keep coming at the tick rate whatever the inputs do */
    uint64_t bound = (uint64_t)(delay + 1) * 1000000u / RATE + 80000u;
    for (uint32_t i = 0; i < 4; i++) {
        printf("[loss] client %u: largest gap between frames %llu us (bound %llu)\n", i,
               (unsigned long long)w.clients[i].max_gap_us, (unsigned long long)bound);
        assert_true(w.clients[i].max_gap_us < bound);
    }
    nh_stop(&w);
}

static void test_desync_detected_and_attributed(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 150, interval = 15, inject = 50;
    assert_int_equal(nh_start(&w, 3, 1, 3, interval, "report", ticks, 0), 0);
    bsync_client_config bad;
    memset(&bad, 0, sizeof bad);
    bad.synctest_distance = 4; /* the flip happens outside the simulation: the sync test sees it too */
    for (uint32_t p = 0; p < 3; p++) assert_true(nh_connect(&w, p, p == 1 ? &bad : NULL) >= 0);
    bsync_client_fault_desync(w.clients[1].client, inject);
    /* run until the desync notice reaches client 1, timing it from the injected frame */
    uint64_t t_inject = 0, t_notice = 0, limit = bsync_net_now_us() + 20000000u;
    while (!t_notice && bsync_net_now_us() < limit) {
        nh_pump(&w, 1);
        if (!t_inject && w.clients[1].frames > inject) t_inject = w.clients[1].frame_time_us[inject];
        if (w.clients[1].desync_events) t_notice = bsync_net_now_us();
    }
    assert_true(t_inject > 0 && t_notice > 0);
    uint64_t expected_tick = ((inject / interval) + 1) * interval - 1; /* the first checksum tick after */
    assert_int_equal(w.clients[1].last_desync.tick, expected_tick);
    assert_int_equal(w.clients[1].last_desync.kind, BSYNC_PROTO_DESYNC_CHARACTER_BLEND);
    assert_int_equal(w.clients[1].last_desync.character, 1); /* p1 is character 1 */
    uint64_t bound = (uint64_t)interval * 1000000u / RATE + 200000u; /* interval + a round trip + slack */
    printf("[desync] injected at tick %u, detected at tick %llu; notice %llu us after the injected frame (bound %llu)\n",
           inject, (unsigned long long)expected_tick, (unsigned long long)(t_notice - t_inject), (unsigned long long)bound);
    assert_true(t_notice - t_inject < bound);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 1);
    assert_int_equal(st.last_desync_slot, 1);
    assert_int_equal(st.last_desync_tick, expected_tick);
    assert_int_equal(w.clients[0].desync_events, 0);
    assert_int_equal(w.clients[2].desync_events, 0);
    /* re-simulating from a state kept before the flip differs at ticks 50..53; from tick 54 on the kept
     * state already holds the flip, so the re-simulation agrees again */
    bsync_client_stats cs;
    bsync_client_get_stats(w.clients[1].client, &cs);
    assert_int_equal(cs.synctest_mismatches, 4);
    /* the bundle: both states and a report naming the character and the node */
    char path[512];
    snprintf(path, sizeof path, "%s/match.bsreplay.desync/tick%llu-slot1/report.txt", w.dir,
             (unsigned long long)expected_tick);
    FILE* f = fopen(path, "r");
    assert_non_null(f);
    char text[4096];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_non_null(strstr(text, "character 1 (p1) node locomotion: phase"));
    /* the client's trail pins the flip to the frame it was injected after (50), in node 0's clock (the
     * flipped field: client_testing.h bsync_client_fault_desync), from an identical state before it */
    char earliest[128];
    snprintf(earliest, sizeof earliest, "earliest: tick %u, character 1 (p1): the clock advance of node locomotion", inject);
    assert_non_null(strstr(text, earliest));
    snprintf(path, sizeof path, "%s/match.bsreplay.desync/tick%llu-slot1/bundle.json", w.dir,
             (unsigned long long)expected_tick);
    f = fopen(path, "r");
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    snprintf(earliest, sizeof earliest, "\"first_divergent_tick\": %u, \"first_divergent_character\": 1", inject);
    assert_non_null(strstr(text, earliest));
    assert_non_null(strstr(text, "\"client_trail\": \"client-trail.bstrail\""));
    /* the HTML page: the divergent tick outlined, slot 1's cell red, the difference listed */
    snprintf(path, sizeof path, "%s/match.bsreplay.desync/tick%llu-slot1/report.html", w.dir,
             (unsigned long long)expected_tick);
    f = fopen(path, "r");
    assert_non_null(f);
    static char html[65536];
    n = fread(html, 1, sizeof html - 1, f);
    fclose(f);
    html[n] = '\0';
    char marked[64];
    snprintf(marked, sizeof marked, "<tr class=\"mark\"><td>%llu</td>", (unsigned long long)expected_tick);
    const char* row = strstr(html, marked);
    assert_non_null(row);
    /* in the marked row: server, slot 0 ok, slot 1 bad, slot 2 ok */
    const char* red = strstr(row, "class=\"bad\"");
    const char* end = strstr(row, "</tr>");
    assert_non_null(red);
    assert_true(red < end);
    assert_null(strstr(html, "class=\"bad\"") < row ? strstr(html, "class=\"bad\"") : NULL); /* no earlier red */
    assert_non_null(strstr(html, "node locomotion"));
    nh_stop(&w);
}

static void test_resync_heals(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 240, interval = 20;
    assert_int_equal(nh_start(&w, 3, 1, 3, interval, "resync", ticks, 0), 0);
    for (uint32_t p = 0; p < 3; p++) assert_true(nh_connect(&w, p, NULL) >= 0);
    bsync_client_fault_desync(w.clients[2].client, 30);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    assert_int_equal(w.clients[2].desync_events, 1);
    assert_int_equal(w.clients[2].resync_events, 1);
    assert_all_agree(&w, ticks); /* healed: identical at the end */
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 1);
    assert_int_equal(st.resyncs, 1);
    assert_int_equal(st.mismatched_checksums, 1); /* every checksum after the resync agreed */
    nh_stop(&w);
}

static void test_late_join_and_reconnect(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 420;
    assert_int_equal(nh_start(&w, 3, 1, 3, 20, "report", ticks, 0), 0);
    /* slots 0 and 1 join; the match starts without slot 2 after start_ms (3 s) */
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    assert_true(nh_connect(&w, 1, NULL) >= 0);
    nh_pump(&w, 3600);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_true(st.started);
    assert_true(st.ticks > 10);
    int late = nh_connect(&w, 2, NULL); /* late join: snapshot + frames */
    assert_true(late >= 0);
    nh_pump(&w, 1000);
    assert_true(w.clients[late].first_frame > 10);
    /* slot 1 leaves and comes back (reconnect) */
    nh_disconnect(&w, 1);
    nh_pump(&w, 500);
    int back = nh_connect(&w, 1, NULL);
    assert_true(back >= 0);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    bsync_match_checksums a, b, c;
    nh_client_checksums(&w, 0, &a);
    nh_client_checksums(&w, late, &b);
    nh_client_checksums(&w, back, &c);
    assert_int_equal(a.tick, ticks);
    assert_true(a.blend == b.blend && a.pose == b.pose);
    assert_true(a.blend == c.blend && a.pose == c.pose);
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 0);
    assert_true(st.inputs_defaulted > 0); /* slot 2 before it joined, slot 1 while away */
    nh_stop(&w);
}

/* Game payloads: relayed verbatim in the frame of their tick to every client, recorded in the replay,
 * never repeated by a defaulted input; one over the match's payload_max (32) is dropped and counted,
 * and a client that keeps sending them is disconnected for abuse. */
static void test_payload_relay(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 120;
    assert_int_equal(nh_start(&w, 3, 0, 3, 20, "report", ticks, 0), 0);
    for (uint32_t p = 0; p < 3; p++) assert_true(nh_connect(&w, p, NULL) >= 0);
    w.clients[0].send_payload = 1;
    w.clients[2].send_payload = 1;
    w.clients[2].payload_size = 33; /* over the limit: slot 2's inputs never arrive */
    /* read each frame's payloads as they come (the client keeps the last 256 frames) */
    static char seen[3][160][64];
    static int seen_len[3][160];
    memset(seen_len, 0xFF, sizeof seen_len);
    uint64_t limit = bsync_net_now_us() + 30000000u;
    int done = 0;
    while (!done && bsync_net_now_us() < limit) {
        nh_pump(&w, 5);
        for (int i = 0; i < 3; i++)
            for (uint32_t t = 0; t < ticks; t++)
                if (seen_len[i][t] < 0 && w.clients[i].frames > t - w.clients[i].first_frame)
                    seen_len[i][t] = bsync_client_frame_payload(w.clients[i].client, t, 0, seen[i][t], 63);
        done = bsync_server_done(w.server) && w.clients[0].ended && w.clients[1].ended && w.clients[2].ended;
    }
    assert_true(done);
    uint32_t with = 0, prev = 0;
    for (uint32_t t = 0; t < ticks; t++) {
        assert_true(seen_len[1][t] >= 0);
        /* every client saw the same bytes */
        assert_int_equal(seen_len[0][t], seen_len[1][t]);
        if (seen_len[2][t] >= 0) assert_int_equal(seen_len[2][t], seen_len[1][t]); /* until it was cut off */
        if (seen_len[1][t] > 0) assert_memory_equal(seen[0][t], seen[1][t], (size_t)seen_len[1][t]);
        int defaulted = (w.clients[1].defaulted[t] & 1u) != 0;
        if (defaulted) {
            assert_int_equal(seen_len[1][t], 0); /* never repeated */
            continue;
        }
        seen[1][t][seen_len[1][t]] = '\0';
        unsigned n = 0;
        assert_int_equal(sscanf(seen[1][t], "s0#%u", &n), 1);
        if (with) assert_true(n > prev); /* in order, one per tick */
        prev = n;
        with++;
    }
    assert_true(with > ticks - 10);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_true(st.dropped[BSYNC_SERVER_DROP_PAYLOAD_TOO_LARGE] > 0);
    for (uint32_t t = 10; t < ticks; t++) assert_true(w.clients[1].defaulted[t] & 4u); /* slot 2 never got through */
    /* every oversized packet is a violation: slot 2 was disconnected for abuse within the match */
    assert_int_equal(w.clients[2].bye_reason, BSYNC_PROTO_BYE_ABUSE);
    assert_true(st.dropped[BSYNC_SERVER_DROP_PAYLOAD_TOO_LARGE] > BSYNC_PROTO_PEER_MAX_VIOLATIONS);
    /* the replay holds the same payloads */
    char path[512];
    snprintf(path, sizeof path, "%s/match.bsreplay", w.dir);
    bsync_replay_reader* r = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file(path, &r, &err), BSYNC_OK);
    static bsync_replay_record rec;
    uint32_t frames = 0;
    while (bsync_replay_reader_next(r, &rec, NULL, 0) == BSYNC_REPLAY_OK) {
        if (rec.type != BSYNC_REPLAY_FRAME) continue;
        uint32_t t = rec.frame.tick;
        assert_int_equal(rec.frame.payload_len[0], seen_len[1][t]);
        if (seen_len[1][t] > 0) assert_memory_equal(rec.frame.payload[0], seen[1][t], (size_t)seen_len[1][t]);
        assert_int_equal(rec.frame.payload_len[1], 0);
        frames++;
    }
    assert_int_equal(frames, ticks);
    bsync_replay_reader_close(r);
    nh_stop(&w);
}

/* A pose-only desync under --verify-poses: the server names the character from the per-character pose
 * checksums, asks for that character's per-joint checksums (DESYNC action DETAIL) and names the joint. */
static void test_pose_desync_narrowed_to_joint(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 120, interval = 20;
    assert_int_equal(nh_start(&w, 2, 0, 3, interval, "report", ticks, 1), 0);
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    assert_true(nh_connect(&w, 1, NULL) >= 0);
    bsync_client_fault_pose(w.clients[1].client, 50, 1, 7); /* from tick 50, character 1, joint 7 */
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.desyncs, 1);
    assert_int_equal(st.last_desync_slot, 1);
    assert_int_equal(st.last_desync_tick, 59); /* the first checksum tick from 50 on */
    assert_int_equal(st.last_desync_kind, BSYNC_PROTO_DESYNC_CHARACTER_POSE);
    assert_int_equal(st.last_desync_character, 1);
    assert_int_equal(st.detail_answers, 1);
    assert_int_equal(st.last_detail_joint, 7);
    assert_int_equal(st.last_detail_joints_differing, 1);
    /* the blend state never diverged: the other client saw nothing */
    assert_int_equal(w.clients[0].desync_events, 0);
    assert_int_equal(w.clients[1].desync_events, 2); /* the REPORT and the DETAIL request */
    nh_stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_players_agree),
        cmocka_unit_test(test_eight_players_agree),
        cmocka_unit_test(test_loss_and_jitter_converge),
        cmocka_unit_test(test_desync_detected_and_attributed),
        cmocka_unit_test(test_resync_heals),
        cmocka_unit_test(test_late_join_and_reconnect),
        cmocka_unit_test(test_payload_relay),
        cmocka_unit_test(test_pose_desync_narrowed_to_joint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
