/* test_net_auth.c — authenticated sessions with real sockets (issue 18; docs/security.md): a match whose
 * players have secrets, played by real clients and by raw ENet peers that speak the handshake from
 * blendsync/session.h and docs/protocol.md. Checks: the match completes for everyone, encrypted and
 * authenticate-only; a wrong secret and a plain HELLO cannot join (BYE AUTH_FAILED, AUTH_REQUIRED) while
 * the others' match goes on; a HELLO captured from a real handshake and replayed by another peer does
 * not get the slot; a flipped bit in a packet is refused and counted; a packet sent again later is
 * refused as replayed and counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/net.h"
#include "blendsync/session.h"
#include "net_harness.h"

/* ---- a raw peer: ENet and the documented handshake, nothing of the client library */
typedef struct raw_peer {
    ENetHost* host;
    ENetPeer* peer;
    int connected, challenged, welcomed, byed, frames;
    uint32_t bye_reason;
    uint8_t cn[32], sn[32];
    bsync_session sess;
    int keyed;
    uint64_t refused; /* packets of ours the raw side could not open */
} raw_peer;

static bsync_proto_msg g_rx;
static uint8_t g_open[BSYNC_PROTO_ENET_MAX_PACKET];

static void raw_open(raw_peer* r, uint16_t port) {
    memset(r, 0, sizeof *r);
    r->host = enet_host_create(NULL, 1, BSYNC_PROTO_CHANNEL_COUNT, 0, 0);
    assert_non_null(r->host);
    ENetAddress a;
    enet_address_set_host(&a, "127.0.0.1");
    a.port = port;
    r->peer = enet_host_connect(r->host, &a, BSYNC_PROTO_CHANNEL_COUNT, 0);
    assert_non_null(r->peer);
}

static void raw_service(raw_peer* r) {
    ENetEvent e;
    while (r->host && enet_host_service(r->host, &e, 0) > 0) {
        if (e.type == ENET_EVENT_TYPE_CONNECT) r->connected = 1;
        if (e.type == ENET_EVENT_TYPE_DISCONNECT) r->connected = 0;
        if (e.type != ENET_EVENT_TYPE_RECEIVE) continue;
        const uint8_t* d = e.packet->data;
        size_t n = e.packet->dataLength;
        if (r->keyed && bsync_session_is_sealed(d, n)) {
            size_t m = 0;
            if (bsync_session_open(&r->sess, d, n, g_open, sizeof g_open, &m) == BSYNC_SESSION_OPENED) d = g_open, n = m;
            else r->refused++;
        }
        if (bsync_proto_decode(d, n, &g_rx) == BSYNC_PROTO_OK) {
            if (g_rx.type == BSYNC_PROTO_AUTH_CHALLENGE) {
                memcpy(r->sn, g_rx.auth_challenge.server_nonce, 32);
                r->challenged = 1;
            }
            if (g_rx.type == BSYNC_PROTO_WELCOME) r->welcomed = 1;
            if (g_rx.type == BSYNC_PROTO_FRAME) r->frames++;
            if (g_rx.type == BSYNC_PROTO_BYE) r->byed = 1, r->bye_reason = g_rx.bye.reason;
        }
        enet_packet_destroy(e.packet);
    }
}

static void raw_close(raw_peer* r) {
    if (r->host) enet_host_destroy(r->host);
    r->host = NULL;
}

/* nh_pump in 5 ms steps, servicing the raw peers between */
static void pump(nh_world* w, raw_peer** raws, int n, uint32_t ms) {
    for (uint32_t t = 0; t < ms; t += 5) {
        nh_pump(w, 5);
        for (int i = 0; i < n; i++) raw_service(raws[i]);
    }
}

static void pump_until(nh_world* w, raw_peer** raws, int n, const int* flag, uint32_t ms) {
    for (uint32_t t = 0; t < ms && !*flag; t += 5) pump(w, raws, n, 5);
    assert_true(*flag);
}

static void send_plain(raw_peer* r, const bsync_proto_msg* m) { assert_true(bsync_net_send(r->peer, m) > 0); }

static void auth_init(raw_peer* r, uint32_t slot) {
    bsync_proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_AUTH_INIT;
    m.auth_init.match_id = 42;
    m.auth_init.slot = (uint8_t)slot;
    m.auth_init.mode = BSYNC_SESSION_ENCRYPT;
    assert_int_equal(bsync_session_random(r->cn, 32), BSYNC_OK);
    memcpy(m.auth_init.client_nonce, r->cn, 32);
    send_plain(r, &m);
}

/* The HELLO of slot, sealed under r's session, into out; returns its length. */
static size_t sealed_hello(nh_world* w, raw_peer* r, uint32_t slot, uint8_t* out, size_t cap) {
    bsync_proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_HELLO;
    m.hello.match_id = 42;
    m.hello.graph_hash = bsync_match_hash(bsync_match_config_desc(w->cfg));
    m.hello.slot = (uint8_t)slot;
    char tok[16];
    snprintf(tok, sizeof tok, "tok-%u", slot);
    m.hello.token_len = (uint8_t)strlen(tok);
    memcpy(m.hello.token, tok, m.hello.token_len);
    uint8_t plain[256];
    size_t n = 0, s = 0;
    assert_int_equal(bsync_proto_encode(&m, plain, sizeof plain, &n), BSYNC_PROTO_OK);
    assert_int_equal(bsync_session_seal(&r->sess, BSYNC_PROTO_CHANNEL_CONTROL, plain, n, out, cap, &s), BSYNC_OK);
    return s;
}

static size_t sealed_input(raw_peer* r, uint32_t slot, uint32_t tick, uint8_t* out, size_t cap) {
    bsync_proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_INPUT;
    m.input.slot = (uint8_t)slot;
    m.input.param_count = 2;
    m.input.record_count = 1;
    m.input.first_tick = tick;
    uint8_t plain[256];
    size_t n = 0, s = 0;
    assert_int_equal(bsync_proto_encode(&m, plain, sizeof plain, &n), BSYNC_PROTO_OK);
    assert_int_equal(bsync_session_seal(&r->sess, BSYNC_PROTO_CHANNEL_INPUT, plain, n, out, cap, &s), BSYNC_OK);
    return s;
}

static void send_bytes(raw_peer* r, unsigned channel, uint32_t flags, const uint8_t* b, size_t n) {
    assert_true(bsync_net_send_bytes(r->peer, channel, flags, b, n, NULL) > 0);
}

static uint64_t dropped(nh_world* w, bsync_server_drop d) {
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w->server, 0, &st);
    return st.dropped[d];
}

static void test_capture_replay_tamper(void** state) {
    (void)state;
    nh_world w;
    nh_config_session = "encrypt";
    assert_int_equal(nh_start(&w, 2, 0, 3, 15, "report", 240, 0), 0);
    nh_config_session = NULL;
    assert_true(nh_connect(&w, 0, NULL) >= 0); /* a real client on slot 0 */
    /* A: the legitimate slot-1 player, speaking the handshake itself */
    raw_peer a, b;
    raw_peer* raws[2] = {&a, &b};
    raw_open(&a, w.port);
    pump_until(&w, raws, 1, &a.connected, 3000);
    auth_init(&a, 1);
    pump_until(&w, raws, 1, &a.challenged, 3000);
    uint8_t secret[32];
    nh_secret(1, secret);
    assert_int_equal(bsync_session_derive(&a.sess, BSYNC_SESSION_CLIENT, BSYNC_SESSION_ENCRYPT, secret, 42, 1, a.cn, a.sn),
                     BSYNC_OK);
    a.keyed = 1;
    uint8_t captured[512];
    size_t captured_len = sealed_hello(&w, &a, 1, captured, sizeof captured);
    send_bytes(&a, BSYNC_PROTO_CHANNEL_CONTROL, ENET_PACKET_FLAG_RELIABLE, captured, captured_len);
    pump_until(&w, raws, 1, &a.welcomed, 3000); /* its WELCOME opened under A's keys */
    assert_int_equal(a.refused, 0);
    bsync_server_host_stats hs;
    bsync_server_get_host_stats(w.server, &hs);
    assert_true(hs.sessions_opened >= 1);

    /* B: another peer replays A's captured HELLO after its own AUTH_INIT: other nonces, other keys */
    raw_open(&b, w.port);
    pump_until(&w, raws, 2, &b.connected, 3000);
    auth_init(&b, 1);
    pump_until(&w, raws, 2, &b.challenged, 3000);
    send_bytes(&b, BSYNC_PROTO_CHANNEL_CONTROL, ENET_PACKET_FLAG_RELIABLE, captured, captured_len);
    pump_until(&w, raws, 2, &b.byed, 3000);
    assert_int_equal(b.bye_reason, BSYNC_PROTO_BYE_AUTH_FAILED);
    bsync_server_get_host_stats(w.server, &hs);
    assert_true(hs.auth_failures >= 1);
    assert_false(b.welcomed);

    /* A's packets: one good INPUT, the same bytes again later (replayed), one with a flipped bit */
    pump_until(&w, raws, 1, &a.frames, 3000);
    uint8_t in1[256], in2[256];
    size_t l1 = sealed_input(&a, 1, 30, in1, sizeof in1);
    size_t l2 = sealed_input(&a, 1, 31, in2, sizeof in2);
    const uint64_t tag0 = dropped(&w, BSYNC_SERVER_DROP_BAD_TAG), rep0 = dropped(&w, BSYNC_SERVER_DROP_REPLAYED);
    send_bytes(&a, BSYNC_PROTO_CHANNEL_INPUT, 0, in1, l1);
    pump(&w, raws, 1, 100);
    send_bytes(&a, BSYNC_PROTO_CHANNEL_INPUT, 0, in1, l1); /* replayed later, a new ENet packet */
    in2[l2 / 2] ^= 0x04;                                    /* a flipped bit in the ciphertext */
    send_bytes(&a, BSYNC_PROTO_CHANNEL_INPUT, 0, in2, l2);
    pump(&w, raws, 1, 200);
    assert_int_equal(dropped(&w, BSYNC_SERVER_DROP_REPLAYED), rep0 + 1);
    assert_int_equal(dropped(&w, BSYNC_SERVER_DROP_BAD_TAG), tag0 + 1);
    bsync_server_get_host_stats(w.server, &hs);
    assert_true(hs.sealed_rejected >= 2);
    assert_false(a.byed); /* two bad packets are counted, not yet abuse */

    /* the match goes on to its end for the real client (A stays connected, its inputs defaulted) */
    for (int t = 0; t < 2000; t++) {
        pump(&w, raws, 1, 5);
        bsync_server_match_stats st;
        bsync_server_get_match_stats(w.server, 0, &st);
        if (st.ended && w.clients[0].ended) break;
    }
    assert_true(w.clients[0].ended);
    assert_int_equal(w.clients[0].frames, 240);
    assert_int_equal(w.clients[0].incomplete_events, 0);
    assert_int_equal(w.clients[0].desync_events, 0);
    bsync_client_stats cs;
    bsync_client_get_stats(w.clients[0].client, &cs);
    assert_int_equal(cs.sessions_opened, 1);
    assert_int_equal(cs.sealed_rejected, 0);
    raw_close(&a);
    raw_close(&b);
    nh_stop(&w);
}

static void test_wrong_secret_and_plain(void** state) {
    (void)state;
    nh_world w;
    nh_config_session = "encrypt";
    assert_int_equal(nh_start(&w, 2, 1, 3, 15, "report", 180, 0), 0);
    nh_config_session = NULL;
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    bsync_client_config bad;
    memset(&bad, 0, sizeof bad);
    uint8_t wrong[32];
    nh_secret(7, wrong);
    bad.secret = wrong;
    int iw = nh_connect(&w, 1, &bad);
    assert_true(iw >= 0);
    for (int t = 0; t < 400 && !w.clients[iw].ended; t++) nh_pump(&w, 5);
    assert_true(w.clients[iw].ended);
    assert_int_equal(w.clients[iw].bye_reason, BSYNC_PROTO_BYE_AUTH_FAILED);
    bsync_client_config plain;
    memset(&plain, 0, sizeof plain);
    plain.session_mode = NH_PLAIN;
    int ip = nh_connect(&w, 1, &plain);
    for (int t = 0; t < 400 && !w.clients[ip].ended; t++) nh_pump(&w, 5);
    assert_true(w.clients[ip].ended);
    assert_int_equal(w.clients[ip].bye_reason, BSYNC_PROTO_BYE_AUTH_REQUIRED);
    bsync_server_host_stats hs;
    bsync_server_get_host_stats(w.server, &hs);
    assert_true(hs.auth_failures >= 1);
    assert_true(hs.auth_required >= 1);
    /* the right secret joins, and the match is played to the end by both */
    int ig = nh_connect(&w, 1, NULL);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    assert_int_equal(w.clients[0].frames, 180);
    assert_int_equal(w.clients[ig].frames, 180);
    bsync_match_checksums c0, c1;
    nh_client_checksums(&w, 0, &c0);
    nh_client_checksums(&w, ig, &c1);
    assert_true(c0.blend == c1.blend && c0.pose == c1.pose);
    assert_int_equal(w.clients[0].desync_events + w.clients[ig].desync_events, 0);
    nh_stop(&w);
}

static void test_authenticate_only(void** state) {
    (void)state;
    nh_world w;
    nh_config_session = "authenticate";
    assert_int_equal(nh_start(&w, 2, 0, 3, 15, "report", 120, 1), 0);
    nh_config_session = NULL;
    assert_true(nh_connect(&w, 0, NULL) >= 0);
    assert_true(nh_connect(&w, 1, NULL) >= 0);
    assert_int_equal(nh_run_to_end(&w, 30000), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(w.clients[i].frames, 120);
        assert_int_equal(w.clients[i].desync_events, 0);
        bsync_client_stats cs;
        bsync_client_get_stats(w.clients[i].client, &cs);
        assert_int_equal(cs.sessions_opened, 1);
    }
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    assert_true(st.checksums_verified > 0); /* the server compared poses too (verify_poses) */
    assert_int_equal(st.desyncs, 0);
    nh_stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_capture_replay_tamper),
                                       cmocka_unit_test(test_wrong_secret_and_plain),
                                       cmocka_unit_test(test_authenticate_only)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
