/* test_net_abuse.c — a hostile peer over real ENet on loopback: bad tokens, wrong match, wrong hash,
 * taken and out-of-range slots, another protocol version, messages out of order, spoofed slots, stale
 * and far-future ticks, truncated, oversized and garbage packets, a flood. Each is refused with the
 * documented BYE or dropped and counted, while a real match goes on and its clients still agree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "blendsync/net.h"
#include "net_harness.h"

typedef struct raw_peer {
    ENetHost* host;
    ENetPeer* peer;
    int connected, disconnected;
    int got_bye;
    uint32_t bye_reason, bye_version_max;
    int got_welcome;
    uint32_t frames;
    int spoof_seen; /* a frame carried the spoofed value for slot 0 */
    int clamped_seen; /* a frame carried slot 0's clamped values (3.5, -1) */
    uint32_t start_tick_plus1; /* START's tick + 1 (0: none yet) */
    bsync_proto_frame prev;    /* the last frame, whole (CHANGES frames expand from it) */
    int have_prev;
} raw_peer;

#define SPOOF_VALUE (99 << 16)

static void raw_service(nh_world* w, raw_peer* r, uint32_t ms) {
    uint64_t end = bsync_net_now_us() + 1000ull * ms;
    static bsync_proto_msg m;
    do {
        ENetEvent e;
        while (enet_host_service(r->host, &e, 0) > 0) {
            if (e.type == ENET_EVENT_TYPE_CONNECT) r->connected = 1;
            if (e.type == ENET_EVENT_TYPE_DISCONNECT) r->disconnected = 1;
            if (e.type == ENET_EVENT_TYPE_RECEIVE) {
                if (bsync_proto_decode(e.packet->data, e.packet->dataLength, &m) == BSYNC_PROTO_OK) {
                    if (m.type == BSYNC_PROTO_BYE) {
                        r->got_bye = 1;
                        r->bye_reason = m.bye.reason;
                        r->bye_version_max = m.bye.version_max;
                    }
                    if (m.type == BSYNC_PROTO_WELCOME) r->got_welcome = 1;
                    if (m.type == BSYNC_PROTO_START) r->start_tick_plus1 = m.start.tick + 1u;
                    if (m.type == BSYNC_PROTO_FRAME &&
                        bsync_proto_frame_expand(&m.frame, r->have_prev ? &r->prev : NULL) == 0) {
                        r->prev = m.frame;
                        r->have_prev = 1;
                        r->frames++;
                        if (m.frame.players[0].params[0] == SPOOF_VALUE) r->spoof_seen = 1;
                        if (m.frame.players[0].params[0] == (fix16_t)(7 << 15) && m.frame.players[0].params[1] == -65536)
                            r->clamped_seen = 1;
                    }
                }
                enet_packet_destroy(e.packet);
            }
        }
        nh_pump(w, 2);
    } while (bsync_net_now_us() < end);
}

static void raw_open(nh_world* w, raw_peer* r) {
    memset(r, 0, sizeof *r);
    r->host = enet_host_create(NULL, 1, BSYNC_PROTO_CHANNEL_COUNT, 0, 0);
    assert_non_null(r->host);
    ENetAddress a;
    enet_address_set_host(&a, "127.0.0.1");
    a.port = w->port;
    r->peer = enet_host_connect(r->host, &a, BSYNC_PROTO_CHANNEL_COUNT, 0);
    assert_non_null(r->peer);
    for (int i = 0; i < 200 && !r->connected; i++) raw_service(w, r, 5);
    assert_true(r->connected);
}

static void raw_close(raw_peer* r) {
    enet_peer_reset(r->peer);
    enet_host_destroy(r->host);
}

static void raw_send_bytes(raw_peer* r, const uint8_t* data, size_t len, uint8_t channel, int reliable) {
    ENetPacket* p = enet_packet_create(data, len, reliable ? ENET_PACKET_FLAG_RELIABLE : 0);
    assert_int_equal(enet_peer_send(r->peer, channel, p), 0);
    enet_host_flush(r->host);
}

static void raw_send(raw_peer* r, const bsync_proto_msg* m) {
    uint8_t buf[BSYNC_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(bsync_proto_encode(m, buf, sizeof buf, &len), BSYNC_PROTO_OK);
    raw_send_bytes(r, buf, len, (uint8_t)bsync_proto_channel(m->type), bsync_proto_reliable(m->type));
}

static void hello(bsync_proto_msg* m, nh_world* w, uint64_t match, uint32_t slot, const char* token) {
    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_HELLO;
    m->hello.match_id = match;
    m->hello.graph_hash = bsync_match_hash(bsync_match_config_desc(w->cfg));
    m->hello.slot = (uint8_t)slot;
    m->hello.token_len = (uint8_t)strlen(token);
    memcpy(m->hello.token, token, strlen(token));
}

/* One refused HELLO: the BYE reason it gets. */
static uint32_t refused(nh_world* w, const bsync_proto_msg* m) {
    raw_peer r;
    raw_open(w, &r);
    raw_send(&r, m);
    for (int i = 0; i < 100 && !r.got_bye; i++) raw_service(w, &r, 5);
    assert_true(r.got_bye);
    assert_false(r.got_welcome);
    uint32_t reason = r.bye_reason;
    raw_close(&r);
    return reason;
}

static void test_refusals(void** state) {
    (void)state;
    nh_world w;
    assert_int_equal(nh_start(&w, 3, 0, 3, 20, "report", 600, 0), 0);
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    nh_pump(&w, 200);
    bsync_proto_msg m;
    hello(&m, &w, 42, 1, "tok-2"); /* slot 1 with slot 2's token */
    assert_int_equal(refused(&w, &m), BSYNC_PROTO_BYE_BAD_TOKEN);
    hello(&m, &w, 42, 1, "tok-1x");
    assert_int_equal(refused(&w, &m), BSYNC_PROTO_BYE_BAD_TOKEN);
    hello(&m, &w, 43, 1, "tok-1");
    assert_int_equal(refused(&w, &m), BSYNC_PROTO_BYE_UNKNOWN_MATCH);
    hello(&m, &w, 42, 3, "tok-1");
    assert_int_equal(refused(&w, &m), BSYNC_PROTO_BYE_BAD_SLOT);
    hello(&m, &w, 42, 0, "tok-0"); /* slot 0 is connected */
    assert_int_equal(refused(&w, &m), BSYNC_PROTO_BYE_SLOT_TAKEN);
    hello(&m, &w, 42, 1, "tok-1");
    m.hello.graph_hash ^= 1;
    assert_int_equal(refused(&w, &m), BSYNC_PROTO_BYE_GRAPH_MISMATCH);
    nh_pump(&w, 1100); /* below BSYNC_PROTO_MAX_CONNECTS_PER_SEC: the per-address connect limit */
    /* another protocol version: BYE VERSION_MISMATCH with the server's range */
    {
        raw_peer r;
        raw_open(&w, &r);
        hello(&m, &w, 42, 1, "tok-1");
        uint8_t buf[128];
        size_t len = 0;
        assert_int_equal(bsync_proto_encode(&m, buf, sizeof buf, &len), BSYNC_PROTO_OK);
        buf[2] = BSYNC_PROTO_VERSION + 1; /* a newer version */
        raw_send_bytes(&r, buf, len, 0, 1);
        for (int i = 0; i < 100 && !r.got_bye; i++) raw_service(&w, &r, 5);
        assert_true(r.got_bye);
        assert_int_equal(r.bye_reason, BSYNC_PROTO_BYE_VERSION_MISMATCH);
        assert_int_equal(r.bye_version_max, BSYNC_PROTO_VERSION);
        raw_close(&r);
    }
    /* anything but HELLO first */
    {
        bsync_proto_msg c;
        memset(&c, 0, sizeof c);
        c.type = BSYNC_PROTO_CHECKSUM;
        c.checksum.tick = 1;
        assert_int_equal(refused(&w, &c), BSYNC_PROTO_BYE_PROTOCOL_ERROR);
    }
    /* the connect rate limit: 12 connections from one address within a second; at most 8 are served */
    nh_pump(&w, 1100);
    {
        raw_peer many[12];
        hello(&m, &w, 42, 1, "wrong");
        for (int k = 0; k < 12; k++) {
            raw_open(&w, &many[k]);
            raw_send(&many[k], &m);
        }
        int answered = 0, limited = 0;
        for (int i = 0; i < 60; i++)
            for (int k = 0; k < 12; k++) raw_service(&w, &many[k], 1);
        for (int k = 0; k < 12; k++) {
            /* served: the HELLO was judged (BAD_TOKEN); over the limit: told so (issue 14: never silent) */
            answered += many[k].got_bye && many[k].bye_reason == BSYNC_PROTO_BYE_BAD_TOKEN;
            limited += many[k].got_bye && many[k].bye_reason == BSYNC_PROTO_BYE_RATE_LIMITED;
            raw_close(&many[k]);
        }
        printf("[abuse] 12 connections within a second from one address: %d served, %d told RATE_LIMITED\n", answered,
               limited);
        assert_true(answered >= 1 && answered <= (int)BSYNC_PROTO_MAX_CONNECTS_PER_SEC);
        assert_int_equal(answered + limited, 12);
    }
    /* the real client is unaffected */
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.players_connected, 1);
    nh_stop(&w);
}

static void test_hostile_player(void** state) {
    (void)state;
    nh_world w;
    const uint32_t ticks = 360;
    assert_int_equal(nh_start(&w, 3, 1, 3, 20, "report", ticks, 0), 0);
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    assert_true(nh_connect(&w, 2, NULL) >= 0);
    raw_peer r;
    raw_open(&w, &r);
    bsync_proto_msg m;
    hello(&m, &w, 42, 1, "tok-1");
    raw_send(&r, &m);
    for (int i = 0; i < 200 && !r.got_welcome; i++) raw_service(&w, &r, 5);
    assert_true(r.got_welcome);
    for (int i = 0; i < 200 && r.frames < 60; i++) raw_service(&w, &r, 5);
    assert_true(r.frames >= 60);
    bsync_server_match_stats before, after;
    bsync_server_get_match_stats(w.server, 0, &before);
    uint32_t now_tick = before.ticks;
    /* spoofed slot: inputs for slot 0 from slot 1's connection */
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_INPUT;
    m.input.slot = 0;
    m.input.param_count = 2;
    m.input.record_count = 1;
    m.input.first_tick = now_tick + 3;
    m.input.records[0].params[0] = SPOOF_VALUE;
    for (int k = 0; k < 4; k++) {
        m.input.first_tick = now_tick + 3 + (uint32_t)k;
        raw_send(&r, &m);
    }
    /* stale (tick 0) and far future */
    m.input.slot = 1;
    m.input.first_tick = 0;
    raw_send(&r, &m);
    m.input.first_tick = now_tick + 500;
    raw_send(&r, &m);
    /* wrong layout (3 params for a 2-param match) */
    m.input.first_tick = now_tick + 4;
    m.input.param_count = 3;
    raw_send(&r, &m);
    /* truncated: a valid INPUT cut short */
    m.input.param_count = 2;
    uint8_t buf[BSYNC_PROTO_MAX_PACKET];
    size_t len = 0;
    assert_int_equal(bsync_proto_encode(&m, buf, sizeof buf, &len), BSYNC_PROTO_OK);
    raw_send_bytes(&r, buf, len - 3, BSYNC_PROTO_CHANNEL_INPUT, 0);
    /* garbage and an oversized claim: a header saying INPUT with a 9000-byte body */
    uint8_t big[9008];
    memset(big, 0xAB, sizeof big);
    big[0] = 'B';
    big[1] = 'S';
    big[2] = BSYNC_PROTO_VERSION;
    big[3] = BSYNC_PROTO_INPUT;
    big[4] = (uint8_t)(9000 & 0xFF);
    big[5] = (uint8_t)(9000 >> 8);
    big[6] = big[7] = 0;
    raw_send_bytes(&r, big, sizeof big, BSYNC_PROTO_CHANNEL_CONTROL, 1);
    raw_send_bytes(&r, big + 100, 50, BSYNC_PROTO_CHANNEL_CONTROL, 1);
    /* a checksum for a tick the server has no state for */
    bsync_proto_msg c;
    memset(&c, 0, sizeof c);
    c.type = BSYNC_PROTO_CHECKSUM;
    c.checksum.tick = now_tick + 1000;
    raw_send(&r, &c);
    /* an unsolicited DUMP and TRAIL (no desync was reported to this slot): dropped, no bundle written */
    bsync_proto_msg sn;
    memset(&sn, 0, sizeof sn);
    sn.type = BSYNC_PROTO_SNAPSHOT;
    sn.snapshot.tick = now_tick;
    sn.snapshot.chunk_count = 1;
    sn.snapshot.total_size = 100;
    sn.snapshot.len = 100;
    sn.snapshot.kind = BSYNC_PROTO_SNAPSHOT_DUMP;
    raw_send(&r, &sn);
    sn.snapshot.kind = BSYNC_PROTO_SNAPSHOT_TRAIL;
    raw_send(&r, &sn);
    raw_service(&w, &r, 400);
    bsync_server_get_match_stats(w.server, 0, &after);
    assert_int_equal(after.dropped[BSYNC_SERVER_DROP_BAD_STATE] - before.dropped[BSYNC_SERVER_DROP_BAD_STATE], 2);
    {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/match.bsreplay.desync", w.dir);
        struct stat sb;
        assert_int_not_equal(stat(dir, &sb), 0); /* no bundle directory at all */
    }
    assert_int_equal(after.dropped[BSYNC_SERVER_DROP_WRONG_SLOT], 4);
    assert_true(after.dropped[BSYNC_SERVER_DROP_STALE] >= 1);
    assert_int_equal(after.dropped[BSYNC_SERVER_DROP_TOO_FAR_AHEAD], 1);
    assert_int_equal(after.dropped[BSYNC_SERVER_DROP_MALFORMED], 4); /* layout, truncated, oversized, garbage */
    assert_int_equal(after.dropped[BSYNC_SERVER_DROP_BAD_CHECKSUM_TICK], 1);
    assert_false(r.got_bye); /* below the abuse threshold: still connected */
    /* the violations are all on the hostile peer's slot; the honest slots can only have stale inputs
     * (their redundant records), which the totals count too */
    uint64_t violations = 0, stale = after.dropped[BSYNC_SERVER_DROP_STALE] - before.dropped[BSYNC_SERVER_DROP_STALE];
    for (unsigned d = 0; d < BSYNC_SERVER_DROP_COUNT; d++)
        if (d != BSYNC_SERVER_DROP_STALE) violations += after.dropped[d] - before.dropped[d];
    uint64_t hostile = after.dropped_by_slot[1] - before.dropped_by_slot[1];
    assert_true(hostile >= violations && hostile <= violations + stale);
    assert_true((after.dropped_by_slot[0] - before.dropped_by_slot[0]) + (after.dropped_by_slot[2] - before.dropped_by_slot[2]) <=
                stale);
    /* a flood of garbage: BYE ABUSE */
    for (int k = 0; k < 40; k++) raw_send_bytes(&r, big + 100, 20, BSYNC_PROTO_CHANNEL_INPUT, 0);
    for (int i = 0; i < 100 && !r.got_bye; i++) raw_service(&w, &r, 5);
    assert_true(r.got_bye);
    assert_int_equal(r.bye_reason, BSYNC_PROTO_BYE_ABUSE);
    raw_close(&r);
    /* the match went on; the spoofed value never reached slot 0 */
    assert_false(r.spoof_seen);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    bsync_match_checksums a, b;
    nh_client_checksums(&w, 0, &a);
    nh_client_checksums(&w, 1, &b);
    assert_int_equal(a.tick, ticks);
    assert_true(a.blend == b.blend && a.pose == b.pose);
    bsync_server_get_match_stats(w.server, 0, &after);
    assert_int_equal(after.desyncs, 0);
    printf("[abuse] dropped: wrong_slot %llu stale %llu too_far_ahead %llu malformed %llu flood %llu\n",
           (unsigned long long)after.dropped[BSYNC_SERVER_DROP_WRONG_SLOT],
           (unsigned long long)after.dropped[BSYNC_SERVER_DROP_STALE],
           (unsigned long long)after.dropped[BSYNC_SERVER_DROP_TOO_FAR_AHEAD],
           (unsigned long long)after.dropped[BSYNC_SERVER_DROP_MALFORMED],
           (unsigned long long)after.dropped[BSYNC_SERVER_DROP_FLOOD]);
    nh_stop(&w);
}

/* Connection hygiene (issue 14), real sockets: an input outside the declared range is clamped by the
 * server (the frame carries the clamped value) and counted; a packet over 16 KiB is counted and
 * answered with BYE PROTOCOL_ERROR; connections over the per-address rate limit get BYE RATE_LIMITED
 * and are disconnected; connections that never send HELLO get BYE TIMEOUT after
 * BSYNC_PROTO_HELLO_TIMEOUT_MS and are disconnected. */
static void test_hygiene(void** state) {
    (void)state;
    nh_world w;
    assert_int_equal(nh_start(&w, 2, 0, 3, 20, "report", 600, 0), 0);
    assert_true(nh_connect(&w, 1, NULL) >= 0);
    raw_peer r;
    raw_open(&w, &r);
    bsync_proto_msg m;
    hello(&m, &w, 42, 0, "tok-0");
    raw_send(&r, &m);
    for (int i = 0; i < 400 && !r.start_tick_plus1; i++) raw_service(&w, &r, 5);
    assert_true(r.got_welcome);
    assert_true(r.start_tick_plus1 > 0);
    /* speed 100.0 and lean -5 for parameters declared 0..3.5 and -1..1, for ticks 3..6 */
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_INPUT;
    m.input.slot = 0;
    m.input.param_count = 2;
    m.input.first_tick = 3;
    m.input.record_count = 4;
    for (int i = 0; i < 4; i++) {
        m.input.records[i].params[0] = 100 << 16;
        m.input.records[i].params[1] = -5 * 65536;
    }
    raw_send(&r, &m);
    for (int i = 0; i < 200 && r.frames < 10; i++) raw_service(&w, &r, 5);
    assert_true(r.clamped_seen);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.inputs_clamped, 8); /* 4 ticks x 2 parameters */
    /* one packet of 20 KiB: counted and answered */
    static uint8_t huge[20000];
    memset(huge, 0x42, sizeof huge);
    raw_send_bytes(&r, huge, sizeof huge, BSYNC_PROTO_CHANNEL_CONTROL, 1);
    for (int i = 0; i < 400 && !r.got_bye; i++) raw_service(&w, &r, 5);
    assert_true(r.got_bye);
    assert_int_equal(r.bye_reason, BSYNC_PROTO_BYE_PROTOCOL_ERROR);
    for (int i = 0; i < 400 && !r.disconnected; i++) raw_service(&w, &r, 5);
    assert_true(r.disconnected);
    bsync_server_host_stats hs;
    bsync_server_get_host_stats(w.server, &hs);
    assert_int_equal(hs.oversized, 1);
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_OVERSIZED], 1);
    raw_close(&r);
    /* 12 new connections at once from 127.0.0.1 (a fresh second: the two above are older than 1 s) */
    nh_pump(&w, 1100);
    enum { N = 12 };
    static raw_peer many[N];
    ENetAddress a;
    enet_address_set_host(&a, "127.0.0.1");
    a.port = w.port;
    for (int i = 0; i < N; i++) {
        memset(&many[i], 0, sizeof many[i]);
        many[i].host = enet_host_create(NULL, 1, BSYNC_PROTO_CHANNEL_COUNT, 0, 0);
        assert_non_null(many[i].host);
        many[i].peer = enet_host_connect(many[i].host, &a, BSYNC_PROTO_CHANNEL_COUNT, 0);
        assert_non_null(many[i].peer);
    }
    uint64_t t0 = bsync_net_now_us();
    int all_gone = 0;
    while (!all_gone && bsync_net_now_us() - t0 < 12000000u) {
        all_gone = 1;
        for (int i = 0; i < N; i++) {
            raw_service(&w, &many[i], 0);
            if (!many[i].disconnected) all_gone = 0;
        }
    }
    uint64_t took_ms = (bsync_net_now_us() - t0) / 1000u;
    int rate_limited = 0, timed_out = 0;
    for (int i = 0; i < N; i++) {
        assert_true(many[i].disconnected);
        assert_true(many[i].got_bye);
        if (many[i].bye_reason == BSYNC_PROTO_BYE_RATE_LIMITED) rate_limited++;
        if (many[i].bye_reason == BSYNC_PROTO_BYE_TIMEOUT) timed_out++;
        enet_host_destroy(many[i].host);
    }
    bsync_server_get_host_stats(w.server, &hs);
    printf("[hygiene] %d connections: %d rate-limited, %d silent ones timed out; all disconnected after %llu ms\n", N,
           rate_limited, timed_out, (unsigned long long)took_ms);
    assert_int_equal(rate_limited + timed_out, N);
    assert_int_equal(timed_out, (int)BSYNC_PROTO_MAX_CONNECTS_PER_SEC); /* the first 8 were let in, never said HELLO */
    assert_int_equal(hs.connects_refused, (uint64_t)rate_limited);
    assert_int_equal(hs.hello_timeouts, (uint64_t)timed_out);
    assert_true(took_ms >= BSYNC_PROTO_HELLO_TIMEOUT_MS - 200u); /* not before the documented timeout */
    nh_stop(&w);
}

int main(void) {
    if (bsync_net_init() != 0) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_hostile_player),
        cmocka_unit_test(test_hygiene),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    bsync_net_deinit();
    return rc;
}
