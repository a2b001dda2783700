/* test_predict_virtual.c — prediction and rollback (client_predict.h, docs/prediction.md) on virtual
 * time (tests/support/vnet.h): the real server and client sessions in one process, so every run is the
 * same run. A predicting client and a lockstep one play the same match and end with the same
 * confirmed checksums; rollbacks happen, none deeper than the window, the predicted tick never runs
 * more than W ticks past the confirmed one; the sync test over prediction finds 0 mismatches; a
 * client whose own state is corrupted is still reported; and at 144 Hz over 30 Hz ticks the shown
 * pose never jumps (issue 33's bound: 0.35 of the largest per-tick change of the uncorrected motion),
 * after a misprediction and after a switch trigger. (Real sockets: tests/cli/cli_predict.sh.) */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/client_predict.h"
#include "blendsync/io/match_config.h"
#include "blendsync/present.h"
#include "client_testing.h"
#include "fixtures.h"
#include "vnet.h"

typedef struct world {
    char dir[64];
    bsync_match_config* cfg;
    vn_net* net;
    bsync_server* server;
    bsync_client* clients[2];
    uint32_t rate;
    uint64_t next_input_us[2];
    uint32_t sent[2];
    int ended[2];
    uint32_t bye[2];
    uint32_t desyncs[2], desync_tick[2];
} world;

/* The demo graph (scripts/demo/) at `rate` Hz, two players and an NPC. */
static void start(world* w, uint32_t rate, uint32_t ticks, uint32_t hold_min, uint32_t hold_max) {
    memset(w, 0, sizeof *w);
    w->rate = rate;
    assert_int_equal(bsync_test_tmpdir(w->dir, sizeof w->dir, "predict"), 0);
    FILE* f = fopen(BSYNC_SOURCE_DIR "/scripts/demo/humanoid_locomotion.json", "rb");
    assert_non_null(f);
    static char graph[16384];
    size_t n = fread(graph, 1, sizeof graph - 1, f);
    fclose(f);
    graph[n] = 0;
    char* r = strstr(graph, "\"tick_rate\": 30");
    assert_non_null(r);
    r[13] = (char)('0' + rate / 10u);
    r[14] = (char)('0' + rate % 10u);
    assert_int_equal(bsync_test_write_text(w->dir, "graph.json", graph), 0);
    char text[2048];
    snprintf(text, sizeof text,
             "{ \"match_id\": 43, \"players\": [ {\"token\": \"tok-0\"}, {\"token\": \"tok-1\"} ],\n"
             "  \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5}, {\"name\": \"move_x\", "
             "\"min\": -1, \"max\": 1}, {\"name\": \"move_y\", \"min\": -1, \"max\": 1} ],\n"
             "    \"triggers\": [ {\"name\": \"action\", \"switch\": \"upper\", \"fade_ticks\": 6, \"script_states\": 3} ],\n"
             "    \"hold_ticks\": [%u, %u] },\n"
             "  \"characters\": [ {\"name\": \"p0\", \"graph\": \"graph.json\", \"slot\": 0}, {\"name\": \"p1\", \"graph\": "
             "\"graph.json\", \"slot\": 1}, {\"name\": \"npc\", \"graph\": \"graph.json\", \"npc_seed\": 7} ],\n"
             "  \"input_delay\": 2, \"checksum_interval\": 15, \"duration_ticks\": %u, \"desync_policy\": \"report\",\n"
             "  \"timeouts\": {\"start_ms\": 3000, \"peer_ms\": 5000, \"idle_ms\": 3000} }\n",
             hold_min, hold_max, ticks);
    assert_int_equal(bsync_test_write_text(w->dir, "match.json", text), 0);
    char path[128];
    snprintf(path, sizeof path, "%s", bsync_test_path(w->dir, "match.json"));
    bsync_error err;
    assert_int_equal(bsync_match_config_load(path, NULL, &w->cfg, &err), BSYNC_OK);
    w->net = vn_create(33);
    assert_non_null(w->net);
    const char* paths[1] = {path};
    bsync_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.match_paths = paths;
    sc.match_count = 1;
    sc.verify_poses = 1;
    static char replay[128]; /* the server's replay and desync bundles stay in the test's folder */
    snprintf(replay, sizeof replay, "%s", bsync_test_path(w->dir, "match.bsreplay"));
    sc.replay_override = replay;
    assert_int_equal(vn_server(w->net, &sc, 16u, &w->server, &err), BSYNC_OK);
}

static void connect_client(world* w, uint32_t slot, const vn_link* link, const bsync_client_predict_config* pc) {
    static const char* tokens[2] = {"tok-0", "tok-1"};
    bsync_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.match_id = 43;
    cc.slot = (uint8_t)slot;
    cc.token = (const uint8_t*)tokens[slot];
    cc.token_len = 5;
    cc.desc = bsync_match_config_desc(w->cfg);
    cc.compute_poses = 1;
    if (pc) cc.predict = *pc;
    bsync_error err;
    assert_int_equal(vn_client(w->net, &cc, link, &w->clients[slot], &err), BSYNC_OK);
}

typedef void (*input_fn)(uint32_t slot, uint32_t k, bsync_match_input* in, void* user);
typedef void (*frame_fn)(world* w, void* user);

/* 1 ms steps: events, one input per tick period per client (the k-th from `input`), `frame` each step. */
static void pump(world* w, uint64_t us, input_fn input, frame_fn frame, void* user) {
    const uint64_t end = vn_now(w->net) + us;
    const uint64_t period = 1000000u / w->rate;
    while (vn_now(w->net) < end && !(w->ended[0] && w->ended[1])) {
        vn_run(w->net, 1000u);
        const uint64_t now = vn_now(w->net);
        for (uint32_t p = 0; p < 2; p++) {
            bsync_client* c = w->clients[p];
            bsync_client_event ev;
            while (bsync_client_poll_event(c, &ev)) {
                if (ev.type == BSYNC_CLIENT_EVENT_WELCOME && !w->next_input_us[p]) w->next_input_us[p] = now;
                if (ev.type == BSYNC_CLIENT_EVENT_DESYNC && !w->desyncs[p]++) w->desync_tick[p] = ev.desync.tick;
                if (ev.type == BSYNC_CLIENT_EVENT_BYE || ev.type == BSYNC_CLIENT_EVENT_DISCONNECTED) {
                    w->ended[p] = 1;
                    w->bye[p] = ev.type == BSYNC_CLIENT_EVENT_BYE ? ev.bye_reason : UINT32_MAX;
                }
            }
            if (w->next_input_us[p] && !w->ended[p] && now >= w->next_input_us[p]) {
                bsync_match_input in;
                memset(&in, 0, sizeof in);
                input(p, w->sent[p]++, &in, user);
                (void)bsync_client_send_input(c, &in, NULL);
                w->next_input_us[p] += period;
            }
        }
        if (frame) frame(w, user);
    }
}

static void finish(world* w) {
    vn_destroy(w->net);
    bsync_match_config_destroy(w->cfg);
    bsync_test_rmtree(w->dir);
}

/* ---- a seeded joystick per slot, and the window watched every step */

typedef struct seeded {
    bsync_match_script scripts[2];
    const bsync_match_desc* desc;
    uint32_t window;
    uint32_t worst_ahead, behind;
    uint32_t steps_predicting;
} seeded;

static void seeded_input(uint32_t slot, uint32_t k, bsync_match_input* in, void* user) {
    (void)k;
    seeded* s = user;
    bsync_match_random_input(&s->scripts[slot], s->desc, in);
}

static void watch_window(world* w, void* user) {
    seeded* s = user;
    bsync_client_predict_stats ps;
    bsync_client_predict_get_stats(w->clients[0], &ps);
    if (ps.predicted_tick < ps.confirmed_tick) s->behind++;
    else if (ps.predicted_tick - ps.confirmed_tick > s->worst_ahead) s->worst_ahead = ps.predicted_tick - ps.confirmed_tick;
    if (ps.predicted_tick > ps.confirmed_tick) s->steps_predicting++;
}

static void run_seeded(uint32_t window, uint32_t latency_us, uint32_t loss, int synctest) {
    world w;
    start(&w, 60, 600, 8, 30);
    seeded s;
    memset(&s, 0, sizeof s);
    s.desc = bsync_match_config_desc(w.cfg);
    s.window = window;
    bsync_match_script_init(&s.scripts[0], 501);
    bsync_match_script_init(&s.scripts[1], 502);
    bsync_client_predict_config pc;
    memset(&pc, 0, sizeof pc);
    pc.enabled = 1;
    pc.rollback_window = window;
    pc.synctest = (uint32_t)synctest;
    vn_link link = {latency_us, loss};
    connect_client(&w, 0, &link, &pc);
    connect_client(&w, 1, &link, NULL);
    pump(&w, 30000000u, seeded_input, watch_window, &s);
    assert_true(w.ended[0] && w.ended[1]);
    assert_int_equal(w.bye[0], BSYNC_PROTO_BYE_MATCH_OVER);
    assert_int_equal(w.bye[1], BSYNC_PROTO_BYE_MATCH_OVER);
    assert_int_equal(w.desyncs[0] + w.desyncs[1], 0);
    bsync_client_stats a, b;
    bsync_client_get_stats(w.clients[0], &a);
    bsync_client_get_stats(w.clients[1], &b);
    assert_int_equal(a.frames_applied, 600);
    assert_int_equal(b.frames_applied, 600);
    assert_int_equal(a.last_checksum_tick, 599); /* 15 divides 600: the last tick is a checksum tick */
    assert_int_equal(a.last_checksum_tick, b.last_checksum_tick);
    assert_true(a.last_blend == b.last_blend && a.last_pose == b.last_pose);
    bsync_client_predict_stats ps;
    bsync_client_predict_get_stats(w.clients[0], &ps);
    print_message("window %u, %u us one way, loss %u permille: %llu rollbacks (depth p50 %u max %u), %llu predicted, %llu "
                  "mispredicted frames, %llu window waits, at most %u ahead, synctest %llu/%llu\n",
                  window, latency_us, loss, (unsigned long long)ps.rollbacks, bsync_client_predict_depth_quantile(&ps, 500),
                  ps.depth_max, (unsigned long long)ps.predicted_ticks, (unsigned long long)ps.mispredicted_frames,
                  (unsigned long long)ps.window_waits, s.worst_ahead, (unsigned long long)ps.synctest_checks,
                  (unsigned long long)ps.synctest_mismatches);
    assert_true(ps.rollbacks > 0);
    assert_true(ps.mispredicted_frames >= ps.rollbacks); /* a rollback needs a misprediction */
    assert_true(ps.depth_max >= 1 && ps.depth_max <= window);
    assert_true(s.worst_ahead <= window);
    assert_true(s.steps_predicting > 1000); /* most of the 10 s the shown match was ahead */
    assert_true(ps.predicted_ticks >= 600);
    if (synctest) {
        assert_true(ps.synctest_checks > 500);
        assert_int_equal(ps.synctest_mismatches, 0);
    }
    /* a lockstep client's predict calls show the confirmed match */
    assert_ptr_equal(bsync_client_predict_match(w.clients[1]), bsync_client_match(w.clients[1]));
    finish(&w);
}

static void test_predicting_and_lockstep_agree(void** state) {
    (void)state;
    run_seeded(8, 40000, 0, 1);
}

static void test_window_holds_under_loss(void** state) {
    (void)state;
    run_seeded(3, 80000, 50, 0); /* a path far longer than 3 ticks: waits at the window, never skips */
}

/* ---- a corrupted predicting client is reported within one checksum interval */

static void test_corrupted_predicting_client_reported(void** state) {
    (void)state;
    world w;
    start(&w, 60, 300, 8, 30);
    seeded s;
    memset(&s, 0, sizeof s);
    s.desc = bsync_match_config_desc(w.cfg);
    bsync_match_script_init(&s.scripts[0], 11);
    bsync_match_script_init(&s.scripts[1], 12);
    bsync_client_predict_config pc;
    memset(&pc, 0, sizeof pc);
    pc.enabled = 1;
    vn_link link = {20000, 0};
    connect_client(&w, 0, &link, &pc);
    connect_client(&w, 1, &link, &pc);
    bsync_client_fault_desync(w.clients[0], 100);
    pump(&w, 15000000u, seeded_input, NULL, &s);
    assert_true(w.desyncs[0] >= 1);
    assert_true(w.desync_tick[0] >= 100 && w.desync_tick[0] < 100 + 15); /* the next checksum tick: 104 */
    assert_int_equal(w.desync_tick[0], 104);
    finish(&w);
}

/* ---- at 144 Hz over 30 Hz ticks: corrections and switch onsets never jump */

typedef struct smooth {
    uint32_t joints;
    void* scratch;
    size_t scratch_size;
    bsync_trs *shown, *prev_shown, *raw0, *prev_raw0;
    int have_prev;
    uint64_t next_frame_us;
    uint64_t last_ns;
    double max_frame, max_tick;      /* shown per frame; uncorrected (held tick pose) per frame */
    double max_frame_after_trigger;  /* shown, in the frames after the local trigger was sent */
    double max_tick_after_trigger;   /* uncorrected per tick, in the same frames */
    uint32_t trigger_frames_left;
    uint32_t local_trigger_k;
    uint32_t frames;
    uint32_t rollbacks_seen;
} smooth;

static double angle(bsync_quat a, bsync_quat b) {
    const double d = fabs(((double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w) / 4294967296.0);
    return 2.0 * acos(d > 1.0 ? 1.0 : d);
}

static double max_change(const bsync_trs* a, const bsync_trs* b, uint32_t n) {
    double m = 0;
    for (uint32_t j = 0; j < n; j++) {
        const double x = angle(a[j].r, b[j].r);
        if (x > m) m = x;
    }
    return m;
}

/* Slot 0 (predicting, watched): walks, then waves at its 100th input. Slot 1 (remote, lockstep):
 * stands until its 60th input, then runs and punches at its 90th, then stops at its 150th: changes
 * the predicting client can only learn from confirmed frames (mispredictions). */
static void scripted_input(uint32_t slot, uint32_t k, bsync_match_input* in, void* user) {
    smooth* s = user;
    if (slot == 0) {
        in->params[0] = k < 40 ? 0 : 92000; /* 1.4 m/s */
        in->triggers[0] = k >= s->local_trigger_k && k < s->local_trigger_k + 3 ? 2 : 0;
    } else {
        in->params[0] = k < 60 || k >= 150 ? 0 : 229376; /* 3.5 m/s */
        in->params[1] = k < 60 ? 0 : 65536;
        in->triggers[0] = k >= 90 && k < 93 ? 3 : 0;
    }
}

static void show_frame(world* w, void* user) {
    smooth* s = user;
    const uint64_t now = vn_now(w->net);
    if (now < s->next_frame_us) return;
    s->next_frame_us = now + 6944u; /* 144 Hz */
    bsync_client* c = w->clients[0];
    if (bsync_client_get_state(c) != BSYNC_CLIENT_RUNNING) return;
    const fix16_t alpha = bsync_client_predict_alpha(c);
    const uint64_t ns = now * 1000u;
    assert_int_equal(bsync_client_predict_present(c, alpha, s->last_ns ? ns - s->last_ns : 0, s->scratch, s->scratch_size,
                                                  s->shown, NULL),
                     BSYNC_OK);
    s->last_ns = ns;
    assert_int_equal(bsync_present_match(bsync_client_predict_match(c), 0, s->scratch, s->scratch_size, s->raw0, NULL, NULL),
                     BSYNC_OK);
    if (s->have_prev) {
        const double f = max_change(s->prev_shown, s->shown, s->joints);
        const double t = max_change(s->prev_raw0, s->raw0, s->joints);
        if (f > s->max_frame) s->max_frame = f;
        if (t > s->max_tick) s->max_tick = t;
        if (s->trigger_frames_left && f > s->max_frame_after_trigger) s->max_frame_after_trigger = f;
        if (s->trigger_frames_left && t > s->max_tick_after_trigger) s->max_tick_after_trigger = t;
    }
    if (w->sent[0] >= s->local_trigger_k && w->sent[0] < s->local_trigger_k + 10) s->trigger_frames_left = 60;
    else if (s->trigger_frames_left) s->trigger_frames_left--;
    memcpy(s->prev_shown, s->shown, sizeof *s->shown * s->joints);
    memcpy(s->prev_raw0, s->raw0, sizeof *s->raw0 * s->joints);
    s->have_prev = 1;
    s->frames++;
}

static void test_corrections_and_triggers_smooth_at_144hz(void** state) {
    (void)state;
    world w;
    start(&w, 30, 240, 8, 30);
    bsync_client_predict_config pc;
    memset(&pc, 0, sizeof pc);
    pc.enabled = 1;
    vn_link link = {30000, 0};
    connect_client(&w, 0, &link, &pc);
    connect_client(&w, 1, &link, NULL);
    smooth s;
    memset(&s, 0, sizeof s);
    s.local_trigger_k = 100;
    bsync_match* m = bsync_client_predict_match(w.clients[0]);
    s.joints = bsync_present_match_joint_count(m);
    s.scratch_size = bsync_present_match_scratch_size(m);
    s.scratch = malloc(s.scratch_size);
    s.shown = malloc(sizeof *s.shown * s.joints);
    s.prev_shown = malloc(sizeof *s.shown * s.joints);
    s.raw0 = malloc(sizeof *s.shown * s.joints);
    s.prev_raw0 = malloc(sizeof *s.shown * s.joints);
    assert_true(s.scratch && s.shown && s.prev_shown && s.raw0 && s.prev_raw0);
    pump(&w, 20000000u, scripted_input, show_frame, &s);
    assert_int_equal(w.bye[0], BSYNC_PROTO_BYE_MATCH_OVER);
    assert_int_equal(w.desyncs[0] + w.desyncs[1], 0);
    bsync_client_predict_stats ps;
    bsync_client_predict_get_stats(w.clients[0], &ps);
    print_message("144 Hz over 30 Hz: %u frames, %llu rollbacks, corrections %llu smoothed %llu teleported; largest "
                  "change per frame %.4f rad, of the uncorrected per tick %.4f rad: %.3f; after the trigger %.4f rad, of the "
                  "uncorrected per tick %.4f rad: %.3f\n",
                  s.frames, (unsigned long long)ps.rollbacks, (unsigned long long)ps.corrections_smoothed,
                  (unsigned long long)ps.corrections_teleported, s.max_frame, s.max_tick, s.max_frame / s.max_tick,
                  s.max_frame_after_trigger, s.max_tick_after_trigger, s.max_frame_after_trigger / s.max_tick_after_trigger);
    assert_true(ps.rollbacks >= 2);            /* the remote run, punch and stop were mispredicted */
    assert_true(ps.corrections_smoothed >= 1);
    assert_int_equal(ps.corrections_teleported, 0);
    assert_true(s.max_tick > 0.3);             /* the motion and the pops are large... */
    assert_true(s.max_frame <= 0.35 * s.max_tick); /* ...the shown pose never jumps */
    assert_true(s.max_tick_after_trigger > 0.3); /* the wave's onset and swing */
    assert_true(s.max_frame_after_trigger <= 0.35 * s.max_tick_after_trigger);
    free(s.scratch);
    free(s.shown);
    free(s.prev_shown);
    free(s.raw0);
    free(s.prev_raw0);
    finish(&w);
}

/* ---- a silent server is noticed in a second (client.c), not after the transport's 5 s peer timeout */

typedef struct silence {
    uint64_t rx_bytes, rx_us;  /* client 0: bytes received, and when they last changed */
    uint64_t cut_us, noticed_us, rx_at_notice;
    uint32_t cut_at;           /* frames applied when the link is cut */
} silence;

static void still_input(uint32_t slot, uint32_t k, bsync_match_input* in, void* user) {
    (void)user;
    in->params[0] = slot == 0 && (k / 20u) % 2u ? 92000 : 0;
}

static void watch_silence(world* w, void* user) {
    silence* s = user;
    bsync_client_stats st;
    bsync_client_get_stats(w->clients[0], &st);
    const uint64_t now = vn_now(w->net);
    if (st.bytes_received != s->rx_bytes) {
        s->rx_bytes = st.bytes_received;
        s->rx_us = now;
    }
    if (!s->cut_us && st.frames_applied >= s->cut_at) { /* every packet to and from client 0 lost from now */
        const vn_link cut = {30000, 1000};
        vn_client_link(w->net, 0, &cut);
        s->cut_us = now;
    }
    if (s->cut_us && !s->noticed_us && st.reconnects) {
        s->noticed_us = now;
        s->rx_at_notice = s->rx_us;
        const vn_link back = {30000, 0};
        vn_client_link(w->net, 0, &back);
    }
}

static void test_silent_server_noticed_in_a_second(void** state) {
    (void)state;
    world w;
    start(&w, 30, 300, 8, 30);
    bsync_client_predict_config pc;
    memset(&pc, 0, sizeof pc);
    pc.enabled = 1;
    const vn_link link = {30000, 0};
    connect_client(&w, 0, &link, &pc);
    connect_client(&w, 1, &link, NULL);
    silence s;
    memset(&s, 0, sizeof s);
    s.cut_at = 90;
    pump(&w, 30000000u, still_input, watch_silence, &s);
    print_message("link cut at %.3f s, last packet %.3f s, reconnecting at %.3f s\n", s.cut_us / 1e6, s.rx_at_notice / 1e6,
                  s.noticed_us / 1e6);
    assert_true(s.cut_us > 0 && s.noticed_us > s.cut_us);
    /* the limit is max(1 s, 8 round trips) = 1 s on a 60 ms round trip, checked every 1 ms step; the
     * last packet came at most one tick period (33 ms) + the 30 ms on the way before the cut */
    assert_true(s.noticed_us - s.rx_at_notice > 1000000u);
    assert_true(s.noticed_us - s.rx_at_notice <= 1002000u);
    assert_true(s.noticed_us - s.cut_us <= 1002000u + 30000u);
    /* then it reconnects, resumes (the server hands the silent slot over) and finishes the match */
    assert_int_equal(w.bye[0], BSYNC_PROTO_BYE_MATCH_OVER);
    assert_int_equal(w.bye[1], BSYNC_PROTO_BYE_MATCH_OVER);
    bsync_client_stats cs;
    bsync_client_get_stats(w.clients[0], &cs);
    assert_int_equal(cs.reconnects, 1);
    assert_int_equal(cs.resumes, 1);
    assert_int_equal(cs.frames_applied, 300);
    assert_int_equal(w.desyncs[0] + w.desyncs[1], 0);
    finish(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_predicting_and_lockstep_agree),
        cmocka_unit_test(test_window_holds_under_loss),
        cmocka_unit_test(test_corrupted_predicting_client_reported),
        cmocka_unit_test(test_corrections_and_triggers_smooth_at_144hz),
        cmocka_unit_test(test_silent_server_noticed_in_a_second),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
