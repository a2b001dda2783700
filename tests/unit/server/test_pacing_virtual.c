/* test_pacing_virtual.c — lockstep pacing and the server's probes on virtual time (tests/support/vnet.h):
 * the real client (client/lib/client.c) and server sessions, no socket, no clock (docs/lockstep.md
 * "Pacing", issue 33). What is asserted is exact, from the match config and the link alone:
 * - no INPUT before START: a client alone in the lobby sends nothing, and its first input after START
 *   is the input delay d ahead of the server, as every later one (0 extra ticks on a 1 ms path);
 * - the lead follows the path: with d = 3 at 60 Hz an input is d + max(0, ceil(one way x 60) - d)
 *   ticks ahead of the server (3 at 20 ms, 6 at 100 ms, 12 at 200 ms), none of them defaulted, and
 *   when the 200 ms path drops to 20 ms the lead comes back down to 3, one tick per 4 sends at most,
 *   never going back up on the way (no oscillation);
 * - the server's probes: an INPUT before START, on the wrong channel, a second different input for a
 *   tick, and a sealed packet whose lane is not its channel are each dropped (or counted) per reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/io/match_config.h"
#include "client_testing.h"
#include "fixtures.h"
#include "vnet.h"

#define RATE 60u
#define PERIOD_US (1000000u / RATE)
#define DELAY 3u
#define MAXP 3u
#define KEEP 4096u

static const char* k_graph =
    "{ \"tick_rate\": 60,\n"
    "  \"parameters\": { \"speed\": { \"default\": 0, \"smooth_time\": 0.2, \"max_speed\": 10 } },\n"
    "  \"root\": \"locomotion\",\n"
    "  \"nodes\": { \"locomotion\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [\n"
    "      { \"motion\": \"idle\", \"threshold\": 0 }, { \"motion\": \"run\", \"threshold\": 3.5 } ] } },\n"
    "  \"clips\": { \"idle\": { \"source\": \"builtin:humanoid\" }, \"run\": { \"source\": \"builtin:humanoid\" } } }\n";

static const char* k_secret = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

typedef struct world {
    char dir[64];
    char match_path[128];
    bsync_match_config* cfg;
    vn_net* net;
    bsync_server* server;
    uint32_t players;
    bsync_client* clients[MAXP];
    bsync_match_script scripts[MAXP];
    uint64_t next_input_us[MAXP];
    int ended[MAXP], started[MAXP];
    /* per send: the assigned tick minus the server's next tick at that moment (-1000: refused) */
    int32_t lead[MAXP][KEEP];
    uint32_t sends[MAXP];
    uint32_t refused_before_start[MAXP];
    uint32_t defaulted_self[MAXP]; /* frames from tick `from_tick` on with the own bit set */
    uint32_t from_tick;
    uint64_t desync_us; /* when the first DESYNC (not DETAIL) reached a client (0: none) */
    const char* watch;  /* a server log text to time (vn_log_count; the log kept, config->log NULL) */
    uint64_t watch_us;  /* when it first appeared (0: not yet) */
} world;

static void start(world* w, uint32_t players, uint32_t ticks, uint32_t start_ms, int sessions) {
    memset(w, 0, sizeof *w);
    w->players = players;
    w->from_tick = UINT32_MAX;
    assert_int_equal(bsync_test_tmpdir(w->dir, sizeof w->dir, "pace"), 0);
    assert_int_equal(bsync_test_write_text(w->dir, "loco.json", k_graph), 0);
    char text[2048];
    size_t n = (size_t)snprintf(text, sizeof text, "{ \"match_id\": 9, \"players\": [");
    for (uint32_t p = 0; p < players; p++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"token\": \"tok-%u\"%s%s%s}", p ? ", " : "", p,
                              sessions ? ", \"secret\": \"" : "", sessions ? k_secret : "", sessions ? "\"" : "");
    n += (size_t)snprintf(text + n, sizeof text - n,
                          "], \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5} ], "
                          "\"hold_ticks\": [10, 40] }, \"characters\": [");
    for (uint32_t p = 0; p < players; p++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%s{\"name\": \"p%u\", \"graph\": \"loco.json\", \"slot\": %u}",
                              p ? ", " : "", p, p);
    snprintf(text + n, sizeof text - n,
             "], \"input_delay\": %u, \"checksum_interval\": 60, \"replay\": \"match.bsreplay\", "
             "\"duration_ticks\": %u, \"timeouts\": {\"start_ms\": %u, \"peer_ms\": 5000, \"idle_ms\": 3000} }\n",
             DELAY, ticks, start_ms);
    assert_int_equal(bsync_test_write_text(w->dir, "match.json", text), 0);
    snprintf(w->match_path, sizeof w->match_path, "%s", bsync_test_path(w->dir, "match.json"));
    bsync_error err;
    assert_int_equal(bsync_match_config_load(w->match_path, NULL, &w->cfg, &err), BSYNC_OK);
    w->net = vn_create(11);
    assert_non_null(w->net);
    const char* paths[1] = {w->match_path};
    bsync_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.match_paths = paths;
    sc.match_count = 1;
    assert_int_equal(vn_server(w->net, &sc, 2u * players + 16u, &w->server, &err), BSYNC_OK);
}

static uint32_t g_protocol; /* bsync_client_config.protocol_version of the next connect_client (0: newest) */
static uint32_t g_loss;     /* its link's loss of unreliable packets, permille */

static void connect_client(world* w, uint32_t slot, uint32_t latency_us, int sessions) {
    static char tokens[MAXP][8];
    static uint8_t secret[32];
    snprintf(tokens[slot], sizeof tokens[slot], "tok-%u", slot);
    bsync_client_config cc;
    memset(&cc, 0, sizeof cc);
    cc.match_id = 9;
    cc.slot = (uint8_t)slot;
    cc.token = (const uint8_t*)tokens[slot];
    cc.token_len = (uint32_t)strlen(tokens[slot]);
    cc.desc = bsync_match_config_desc(w->cfg);
    if (sessions) {
        for (uint32_t i = 0; i < 32; i++) secret[i] = (uint8_t)i; /* k_secret's bytes */
        cc.secret = secret;
    }
    cc.protocol_version = g_protocol;
    const vn_link link = {latency_us, g_loss};
    bsync_error err;
    assert_int_equal(vn_client(w->net, &cc, &link, &w->clients[slot], &err), BSYNC_OK);
    bsync_match_script_init(&w->scripts[slot], 900u + slot);
}

static uint32_t server_next_tick(const world* w) {
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w->server, 0, &st);
    return st.ticks;
}

/* Events, and one seeded input per tick period from each client's WELCOME on (as blendsync bot does:
 * it does not wait for START; the library must). */
static void pump(world* w, uint64_t us) {
    const uint64_t end = vn_now(w->net) + us;
    while (vn_now(w->net) < end) {
        vn_run(w->net, 1000u);
        const uint64_t now = vn_now(w->net);
        if (w->watch && !w->watch_us && vn_log_count(w->net, w->watch)) w->watch_us = now;
        for (uint32_t p = 0; p < w->players; p++) {
            bsync_client* c = w->clients[p];
            if (!c) continue;
            bsync_client_event ev;
            while (bsync_client_poll_event(c, &ev)) {
                if (ev.type == BSYNC_CLIENT_EVENT_WELCOME && !w->next_input_us[p]) w->next_input_us[p] = now;
                if (ev.type == BSYNC_CLIENT_EVENT_START) w->started[p] = 1;
                if (ev.type == BSYNC_CLIENT_EVENT_DESYNC && ev.desync.action != BSYNC_PROTO_ACTION_DETAIL && !w->desync_us) w->desync_us = now;
                if (ev.type == BSYNC_CLIENT_EVENT_FRAME && ev.tick >= w->from_tick && ((ev.defaulted_mask >> p) & 1u))
                    w->defaulted_self[p]++;
                if (ev.type == BSYNC_CLIENT_EVENT_BYE || ev.type == BSYNC_CLIENT_EVENT_DISCONNECTED) w->ended[p] = 1;
            }
            if (w->next_input_us[p] && !w->ended[p] && now >= w->next_input_us[p]) {
                w->next_input_us[p] += PERIOD_US;
                bsync_match_input in;
                bsync_match_random_input(&w->scripts[p], bsync_match_config_desc(w->cfg), &in);
                uint32_t assigned = 0;
                const bsync_result r = bsync_client_send_input(c, &in, &assigned);
                if (!w->started[p]) {
                    assert_int_equal(r, BSYNC_LIMIT_EXCEEDED);
                    w->refused_before_start[p]++;
                } else if (w->sends[p] < KEEP) {
                    w->lead[p][w->sends[p]++] = r == BSYNC_OK ? (int32_t)(assigned - server_next_tick(w)) : -1000;
                }
            }
        }
    }
}

static void stop(world* w) {
    vn_destroy(w->net);
    bsync_match_config_destroy(w->cfg);
    bsync_test_rmtree(w->dir);
}

static int cmp_i32(const void* a, const void* b) {
    const int32_t x = *(const int32_t*)a, y = *(const int32_t*)b;
    return (x > y) - (x < y);
}

/* The median lead of sends [from, to) of player p (refused sends left out). */
static int32_t median_lead(const world* w, uint32_t p, uint32_t from, uint32_t to) {
    static int32_t v[KEEP];
    uint32_t n = 0;
    for (uint32_t i = from; i < to && i < w->sends[p]; i++)
        if (w->lead[p][i] != -1000) v[n++] = w->lead[p][i];
    assert_true(n > 0);
    qsort(v, n, sizeof v[0], cmp_i32);
    return v[n / 2];
}

/* A client alone in the lobby for 1.5 s (the start timeout) sends nothing before START, and from its
 * first input on plays exactly d = 3 ticks ahead of the server on a 1 ms path: no head start kept. */
static void test_lobby_then_delay_only(void** state) {
    (void)state;
    world w;
    start(&w, 2, 300, 1500, 0);
    connect_client(&w, 0, 1000u, 0);
    pump(&w, 1600000u); /* the lobby, then the start */
    assert_true(w.started[0]);
    assert_true(w.refused_before_start[0] >= 80u); /* ~1.5 s of ticks at 60 Hz, all refused */
    w.from_tick = server_next_tick(&w) + DELAY + 1u;
    pump(&w, 4000000u);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_BEFORE_START], 0); /* the library sent none */
    assert_true(w.sends[0] > 200u);
    /* START comes about 100 ms before tick S's deadline: sends until the server's clock reaches S (one
     * period before that deadline) are refused too; every one after is exactly d ahead */
    uint32_t i = 0;
    while (i < w.sends[0] && w.lead[0][i] == -1000) i++;
    assert_true(i <= 100000u / PERIOD_US + 1u);
    for (; i < w.sends[0]; i++) assert_int_equal(w.lead[0][i], (int32_t)DELAY);
    assert_int_equal(w.defaulted_self[0], 0);
    stop(&w);
}

/* Three paths, 20, 100 and 200 ms one way, d = 3 at 60 Hz: the lead is what each path needs and no
 * more (3, 6 and 12 ticks: ceil(0.02 x 60) = 2 <= d; ceil(0.1 x 60) = 6; ceil(0.2 x 60) = 12), nobody's
 * inputs are late, and the 20 ms player is not behind the 200 ms one. Then the 200 ms path becomes a
 * 20 ms one: the lead comes back to 3, by at most one tick per 4 sends, never rising on the way. */
static void test_lead_follows_path(void** state) {
    (void)state;
    world w;
    start(&w, 3, 1200, 3000, 0);
    connect_client(&w, 0, 20000u, 0);
    connect_client(&w, 1, 100000u, 0);
    connect_client(&w, 2, 200000u, 0);
    pump(&w, 1500000u);
    assert_true(w.started[0] && w.started[1] && w.started[2]);
    w.from_tick = server_next_tick(&w) + 30u;
    pump(&w, 5000000u);
    uint32_t steady[MAXP];
    for (uint32_t p = 0; p < 3; p++) steady[p] = w.sends[p];
    assert_int_equal(median_lead(&w, 0, 60, steady[0]), 3);
    assert_int_equal(median_lead(&w, 1, 60, steady[1]), 6);
    assert_int_equal(median_lead(&w, 2, 60, steady[2]), 12);
    for (uint32_t p = 0; p < 3; p++) {
        for (uint32_t i = 60; i < steady[p]; i++) assert_true(w.lead[p][i] >= median_lead(&w, p, 60, steady[p]) - 1);
        assert_int_equal(w.defaulted_self[p], 0);
    }
    assert_true(median_lead(&w, 0, 60, steady[0]) <= median_lead(&w, 2, 60, steady[2]));
    /* the long path becomes short */
    const vn_link fast = {20000u, 0};
    vn_client_link(w.net, 2, &fast);
    pump(&w, 6000000u);
    const uint32_t after = steady[2];
    int32_t prev = 12, first3 = -1;
    uint32_t last_step = UINT32_MAX;
    for (uint32_t i = after; i < w.sends[2] && first3 < 0; i++) {
        const int32_t l = w.lead[2][i];
        if (l == -1000) continue; /* a paused send refused: no tick */
        assert_true(l <= prev);   /* never back up */
        if (l < prev) {
            assert_int_equal(prev - l, 1);      /* one tick at a time */
            if (last_step != UINT32_MAX) assert_true(i - last_step >= 4u); /* at most one per 4 sends */
            last_step = i;
        }
        if (l == 3 && first3 < 0) first3 = (int32_t)i;
        prev = l;
    }
    assert_true(first3 > 0);                                       /* back to d on a 20 ms path */
    assert_true((uint32_t)first3 - after <= 9u * 8u + 20u);        /* 9 ticks, 4..8 sends each (+ the turn) */
    /* and stays there. The sends of this test fall on whole milliseconds (17, 17, 16 ms apart), so a
     * sender whose phase sits on a server tick boundary sees the server's next tick advance by 0, 1 or
     * 2 between sends: such a send is one tick ahead (t = last + 1) without a hole, and the next one is
     * on target again (no pause, no skip). At most every other send is at 4. */
    uint32_t at4 = 0, n = 0;
    for (uint32_t i = (uint32_t)first3; i < w.sends[2]; i++) {
        if (w.lead[2][i] == -1000) continue;
        assert_true(w.lead[2][i] == 3 || w.lead[2][i] == 4);
        at4 += w.lead[2][i] == 4;
        n++;
    }
    assert_true(n > 200u && at4 * 2u <= n);
    assert_int_equal(median_lead(&w, 2, (uint32_t)first3, w.sends[2]), 3);
    stop(&w);
}

/* What the server counts: an INPUT before START (harmless: a version 6 client may send in the lobby);
 * a message on another channel than its type's (a violation); a second, different input for a tick
 * (the first stays; counted), while an identical copy is only redundancy. */
static void test_server_probes(void** state) {
    (void)state;
    world w;
    start(&w, 1, 600, 3000, 0);
    const uint32_t conn = vn_raw_open(w.net, 77);
    assert_true(conn != UINT32_MAX);
    uint8_t buf[BSYNC_PROTO_MAX_PACKET];
    size_t len = 0;
    bsync_proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_HELLO;
    m.hello.match_id = 9;
    m.hello.graph_hash = bsync_match_hash(bsync_match_config_desc(w.cfg));
    m.hello.slot = 0;
    m.hello.token_len = 5;
    memcpy(m.hello.token, "tok-0", 5);
    assert_int_equal(bsync_proto_encode(&m, buf, sizeof buf, &len), BSYNC_PROTO_OK);
    assert_int_equal(vn_raw_packet(w.net, conn, buf, len), 0);
    vn_run(w.net, 1000u);
    /* the only slot is connected: the match starts at once, but START is this packet's future */
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_INPUT;
    m.input.param_count = 1;
    m.input.record_count = 1;
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    if (!st.started) {
        m.input.first_tick = DELAY;
        assert_int_equal(bsync_proto_encode(&m, buf, sizeof buf, &len), BSYNC_PROTO_OK);
        assert_int_equal(vn_raw_packet(w.net, conn, buf, len), 0);
        bsync_server_get_match_stats(w.server, 0, &st);
        assert_int_equal(st.dropped[BSYNC_SERVER_DROP_BEFORE_START], 1);
    }
    vn_run(w.net, 300000u);
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_true(st.started);
    const uint32_t t = st.ticks + 10u;
    m.input.first_tick = t;
    m.input.records[0].params[0] = fix16_one;
    assert_int_equal(bsync_proto_encode(&m, buf, sizeof buf, &len), BSYNC_PROTO_OK);
    assert_int_equal(vn_raw_packet_on(w.net, conn, BSYNC_PROTO_CHANNEL_FRAME, buf, len), 0); /* wrong channel */
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_WRONG_CHANNEL], 1);
    const uint64_t received = st.inputs_received;
    assert_int_equal(vn_raw_packet(w.net, conn, buf, len), 0);  /* the right channel: stored */
    assert_int_equal(vn_raw_packet(w.net, conn, buf, len), 0);  /* an identical copy: redundancy */
    m.input.records[0].params[0] = 2 * fix16_one;               /* a different input for the same tick */
    assert_int_equal(bsync_proto_encode(&m, buf, sizeof buf, &len), BSYNC_PROTO_OK);
    assert_int_equal(vn_raw_packet(w.net, conn, buf, len), 0);
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.inputs_received, received + 1u);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_SECOND_INPUT], 1);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_WRONG_CHANNEL], 1);
    assert_int_equal(st.players_connected, 1); /* nothing here is worth a kick */
    stop(&w);
}

/* A sealed INPUT (lane 1) delivered on the frame channel is dropped before it is opened, counted as
 * wrong_lane, and leaves the lane's replay window alone: the client plays on, its inputs used. */
static void test_sealed_lane_checked(void** state) {
    (void)state;
    world w;
    start(&w, 1, 240, 3000, 1);
    connect_client(&w, 0, 2000u, 1);
    pump(&w, 1000000u);
    assert_true(w.started[0]);
    vn_client_misroute(w.net, 0, BSYNC_PROTO_CHANNEL_INPUT, BSYNC_PROTO_CHANNEL_FRAME, 3);
    w.from_tick = server_next_tick(&w) + 20u;
    pump(&w, 3500000u);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_WRONG_LANE], 3);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_BAD_TAG], 0);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_REPLAYED], 0);
    assert_int_equal(st.ticks, 240);
    assert_int_equal(w.defaulted_self[0], 0); /* the redundant copies in the next INPUTs covered them */
    stop(&w);
}

/* The client paces its TRAIL and DUMP uploads under the server's 32 KiB/s per peer (a 6 KiB burst,
 * then 22 KiB/s; sent at once, a DUMP of more than 32 KiB had its chunks past 32 KiB in one second
 * dropped as a flood, and 32 drops made the client a BYE ABUSE): with a 61-character match whose
 * DUMP alone is 9 chunks of up to 1,074 bytes on the wire, the bundle is complete no sooner than
 * (9 x 1,074 - 6,144) / 22,528 s = 156 ms after the DESYNC reached the client (5 ms without pacing),
 * and nothing is dropped. */
static void test_large_dump_paced(void** state) {
    (void)state;
    world w;
    memset(&w, 0, sizeof w);
    w.players = 1;
    w.from_tick = UINT32_MAX;
    assert_int_equal(bsync_test_tmpdir(w.dir, sizeof w.dir, "pace"), 0);
    /* a wide blend: 32 clips under one node, so every character's state is large */
    static char graph[8192];
    size_t g = (size_t)snprintf(graph, sizeof graph,
                                "{ \"tick_rate\": 60, \"parameters\": { \"speed\": { \"default\": 0 } }, \"root\": \"wide\",\n"
                                "  \"nodes\": { \"wide\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [");
    for (uint32_t k = 0; k < 32; k++)
        g += (size_t)snprintf(graph + g, sizeof graph - g, "%s{ \"motion\": \"m%u\", \"threshold\": %u }", k ? ", " : "", k, k);
    g += (size_t)snprintf(graph + g, sizeof graph - g, "] } },\n  \"clips\": {");
    for (uint32_t k = 0; k < 32; k++)
        g += (size_t)snprintf(graph + g, sizeof graph - g, "%s\"m%u\": { \"source\": \"builtin:humanoid\", \"animation\": \"%s\" }", k ? ", " : "", k,
                              k % 3 == 0 ? "idle" : k % 3 == 1 ? "walk" : "run");
    snprintf(graph + g, sizeof graph - g, "} }\n");
    assert_int_equal(bsync_test_write_text(w.dir, "loco.json", graph), 0);
    static char text[8192];
    size_t n = (size_t)snprintf(text, sizeof text,
                                "{ \"match_id\": 9, \"players\": [ {\"token\": \"tok-0\"} ], \"input\": { \"parameters\": "
                                "[ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5} ] }, \"characters\": [ "
                                "{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0}");
    for (uint32_t k = 0; k < 60; k++)
        n += (size_t)snprintf(text + n, sizeof text - n, ", {\"name\": \"n%u\", \"graph\": \"loco.json\", \"npc_seed\": %u}", k,
                              k + 1u);
    snprintf(text + n, sizeof text - n,
             " ], \"input_delay\": 3, \"checksum_interval\": 20, \"replay\": \"match.bsreplay\", \"duration_ticks\": 600, "
             "\"timeouts\": {\"start_ms\": 3000, \"peer_ms\": 5000, \"idle_ms\": 3000} }\n");
    assert_int_equal(bsync_test_write_text(w.dir, "match.json", text), 0);
    snprintf(w.match_path, sizeof w.match_path, "%s", bsync_test_path(w.dir, "match.json"));
    bsync_error err;
    if (bsync_match_config_load(w.match_path, NULL, &w.cfg, &err) != BSYNC_OK) fail_msg("%s", err.message);
    w.net = vn_create(12);
    const char* paths[1] = {w.match_path};
    bsync_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.match_paths = paths;
    sc.match_count = 1;
    assert_int_equal(vn_server(w.net, &sc, 8, &w.server, &err), BSYNC_OK);
    connect_client(&w, 0, 5000u, 0);
    bsync_client_fault_desync(w.clients[0], 40);
    w.watch = "event=desync_bundle match=9 slot=0";
    pump(&w, 3000000u);
    /* the state the client uploads: larger than one second of the server's per-peer cap */
    static uint8_t snap[1u << 20];
    size_t len = 0;
    assert_int_equal(bsync_match_save(bsync_client_match(w.clients[0]), snap, sizeof snap, &len), BSYNC_OK);
    assert_true(len > 8u * BSYNC_PROTO_SNAPSHOT_CHUNK && len <= 9u * BSYNC_PROTO_SNAPSHOT_CHUNK); /* 9 chunks */
    assert_true(w.desync_us > 0 && w.watch_us > w.desync_us);
    assert_true(w.watch_us - w.desync_us >= 156000u);
    assert_true(w.watch_us - w.desync_us <= 2000000u); /* the trail (<= 16 KiB) and the dump at 22 KiB/s */
    pump(&w, 1000000u);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_true(st.desyncs >= 1);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_FLOOD], 0);
    assert_int_equal(st.players_connected, 1); /* not kicked for abuse */
    assert_int_equal(vn_log_count(w.net, "event=abuse"), 0);
    assert_int_equal(vn_log_count(w.net, "event=desync_bundle match=9 slot=0"), st.desyncs);
    stop(&w);
}

/* Received packets by type (the packet hook: messages as the client decodes them). */
static void count_types(void* user, int sent, unsigned channel, const uint8_t* data, size_t len) {
    uint32_t* by_type = user;
    (void)channel;
    if (!sent && len >= 4 && data[3] < 16) by_type[data[3]]++;
}

/* Protocol versions 6 and 7 in one match, each client losing 40% of its unreliable packets both ways
 * (version 7: its frames too): both apply every frame, end with the server's checksums and the
 * same state, nothing desyncs; the version 7 client gets its frames only as FRAMES (a frame lost in
 * one packet comes in the next) and the version 6 client only as FRAME. */
static void test_versions_6_and_7_in_one_match(void** state) {
    (void)state;
    world w;
    start(&w, 2, 300, 3000, 0);
    g_loss = 400;
    g_protocol = 6;
    connect_client(&w, 0, 20000u, 0);
    g_protocol = 7;
    connect_client(&w, 1, 20000u, 0);
    g_protocol = 0;
    g_loss = 0;
    static uint32_t types[2][16];
    memset(types, 0, sizeof types);
    for (uint32_t p = 0; p < 2; p++) bsync_client_set_packet_hook(w.clients[p], count_types, types[p]);
    uint32_t frames[2] = {0, 0};
    for (uint32_t i = 0; i < 200 && !(w.ended[0] && w.ended[1]); i++) {
        pump(&w, 50000u);
        for (uint32_t p = 0; p < 2; p++) {
            bsync_client_stats cs;
            bsync_client_get_stats(w.clients[p], &cs);
            frames[p] = (uint32_t)cs.frames_applied;
        }
    }
    assert_true(w.ended[0] && w.ended[1]);
    assert_int_equal(frames[0], 300);
    assert_int_equal(frames[1], 300);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.ticks, 300);
    assert_int_equal(st.desyncs, 0);
    assert_true(st.checksums_verified >= 2u * (300u / 60u) - 2u);
    bsync_match_checksums a, b;
    assert_int_equal(bsync_match_get_checksums(bsync_client_match(w.clients[0]), 0, &a), BSYNC_OK);
    assert_int_equal(bsync_match_get_checksums(bsync_client_match(w.clients[1]), 0, &b), BSYNC_OK);
    assert_true(a.blend == b.blend);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_BAD_VERSION], 0);
    assert_true(types[0][BSYNC_PROTO_FRAME] >= 300u && types[0][BSYNC_PROTO_FRAMES] == 0u);
    assert_true(types[1][BSYNC_PROTO_FRAMES] > 0u && types[1][BSYNC_PROTO_FRAME] == 0u);
    stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lobby_then_delay_only),
        cmocka_unit_test(test_lead_follows_path),
        cmocka_unit_test(test_server_probes),
        cmocka_unit_test(test_sealed_lane_checked),
        cmocka_unit_test(test_large_dump_paced),
        cmocka_unit_test(test_versions_6_and_7_in_one_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
