/* test_net_tamper.c — an on-path attacker inside ENet's commands (the relay's tamper hook,
 * tests/net/net_relay.h), against a match with encrypted sessions (issue 18, docs/security.md), real
 * sockets on loopback:
 *   - one bit flipped in every 53rd datagram that carries sealed data, both directions, every channel
 *     but control: each is refused and counted; a tampered FRAME costs its client a reconnect and a
 *     resume (ENet acknowledged the bad copy), and both clients apply every frame with agreeing
 *     checksums;
 *   - an old sealed INPUT put into a later datagram in place of the genuine one (ENet's sequence
 *     numbers stay fresh, so only the session's counter can tell): each is refused as replayed. */
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

#define TICKS 480u

static void assert_all_agree(nh_world* w, uint32_t ticks) {
    bsync_match_checksums first, other;
    int have = 0;
    for (uint32_t i = 0; i < w->client_count; i++) {
        if (!w->clients[i].client || w->clients[i].frames == 0) continue;
        nh_client_checksums(w, (int)i, &other);
        assert_int_equal(other.tick, ticks);
        if (!have) {
            first = other;
            have = 1;
            continue;
        }
        assert_true(first.blend == other.blend);
        assert_true(first.pose == other.pose);
    }
    assert_true(have);
}

/* ---------------------------------------------------------------- the on-path attacker */

/* ENet's wire (protocol.h): a 2-byte peer id (bit 15: a 2-byte sent time follows), then commands, each
 * a 4-byte header (command & 0x0F, channel, reliable sequence) and its fields, big-endian; the SEND
 * commands carry a u16 data length and then the packet's bytes (fragments: a piece of them). */
#define EN_SEND_RELIABLE 6u
#define EN_SEND_UNRELIABLE 7u
#define EN_SEND_FRAGMENT 8u
#define EN_SEND_UNSEQUENCED 9u

typedef struct en_cmd {
    uint32_t type, channel;
    size_t data_off, data_len, len_field; /* offset of the data, its length, offset of the length field */
} en_cmd;

/* The commands of a datagram that carry data; returns how many (at most cap). */
static uint32_t en_parse(const uint8_t* d, size_t len, en_cmd* out, uint32_t cap) {
    if (len < 2) return 0;
    size_t off = (d[0] & 0x80u) ? 4u : 2u;
    uint32_t n = 0;
    while (off + 4u <= len && n < cap) {
        uint32_t type = d[off] & 0x0Fu;
        size_t size = enet_protocol_command_size((enet_uint8)type);
        if (!size || off + size > len) break;
        size_t data_len = 0, len_field = 0;
        if (type == EN_SEND_RELIABLE) len_field = off + 4u;
        else if (type == EN_SEND_UNRELIABLE || type == EN_SEND_UNSEQUENCED || type == EN_SEND_FRAGMENT) len_field = off + 6u;
        if (len_field) {
            data_len = (size_t)d[len_field] << 8 | d[len_field + 1u];
            if (off + size + data_len > len) break;
            out[n].type = type;
            out[n].channel = d[off + 1u];
            out[n].data_off = off + size;
            out[n].data_len = data_len;
            out[n].len_field = len_field;
            n++;
        }
        off += size + data_len;
    }
    return n;
}

static int sealed_data(const uint8_t* d, const en_cmd* c) {
    return bsync_session_is_sealed(d + c->data_off, c->data_len);
}

typedef struct flipper {
    uint32_t every, seen[2], flipped[2], flipped_reliable[2];
} flipper;

/* One bit flipped in the sealed bytes of every `every`-th datagram that carries sealed data, per
 * direction, except on the control channel: a tampered HELLO or WELCOME refuses that connection
 * (BYE BAD_TOKEN: the secret is not proven), which is what dropping it would do too (docs/security.md). */
static void flip_tamper(void* ctx, uint32_t session, int down, uint8_t* d, uint32_t* len, uint32_t cap) {
    (void)session, (void)cap;
    flipper* f = ctx;
    en_cmd cmds[8];
    uint32_t n = en_parse(d, *len, cmds, 8);
    for (uint32_t i = 0; i < n; i++) {
        if (!sealed_data(d, &cmds[i]) || cmds[i].type == EN_SEND_FRAGMENT || cmds[i].channel == BSYNC_PROTO_CHANNEL_CONTROL)
            continue;
        if (++f->seen[down] % f->every) return;
        uint32_t bit = (f->seen[down] * 2654435761u) % (uint32_t)(8u * cmds[i].data_len);
        d[cmds[i].data_off + bit / 8u] ^= (uint8_t)(1u << (bit % 8u));
        f->flipped[down]++;
        if (cmds[i].type == EN_SEND_RELIABLE) f->flipped_reliable[down]++;
        return;
    }
}

static void test_flipped_bits_refused(void** state) {
    (void)state;
    nh_world w;
    nh_config_session = "encrypt";
    assert_int_equal(nh_start(&w, 2, 1, 3, 20, "report", TICKS, 0), 0);
    nh_config_session = NULL;
    nr_impair none;
    memset(&none, 0, sizeof none);
    assert_int_equal(nh_use_relay(&w, &none, 18), 0);
    flipper f;
    memset(&f, 0, sizeof f);
    f.every = 53;
    nr_relay_set_tamper(w.relay, flip_tamper, &f);
    for (uint32_t p = 0; p < 2; p++) assert_true(nh_connect(&w, p, NULL) >= 0);
    assert_int_equal(nh_run_to_end(&w, 60000), 0);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    uint64_t refused_up = st.dropped[BSYNC_SERVER_DROP_BAD_TAG] + st.dropped[BSYNC_SERVER_DROP_NOT_SEALED];
    uint64_t refused_down = 0, resets = 0;
    for (uint32_t i = 0; i < 2; i++) {
        bsync_client_stats cs;
        bsync_client_get_stats(w.clients[i].client, &cs);
        refused_down += cs.sealed_rejected;
        resets += cs.reconnects;
        assert_int_equal(w.clients[i].frames >= TICKS, 1);
        assert_int_equal(w.clients[i].bye_reason, BSYNC_PROTO_BYE_MATCH_OVER);
        assert_int_equal(w.clients[i].incomplete_events, 0);
    }
    printf("[auth] flips: up %u (reliable %u), down %u (reliable %u); server refused %llu (bad_tag %llu, not_sealed "
           "%llu), clients refused %llu, session resets %llu, resumes %llu\n",
           f.flipped[0], f.flipped_reliable[0], f.flipped[1], f.flipped_reliable[1], (unsigned long long)refused_up,
           (unsigned long long)st.dropped[BSYNC_SERVER_DROP_BAD_TAG], (unsigned long long)st.dropped[BSYNC_SERVER_DROP_NOT_SEALED],
           (unsigned long long)refused_down, (unsigned long long)resets, (unsigned long long)st.resumes);
    assert_true(f.flipped[0] >= 5);
    assert_true(f.flipped[1] >= 5);
    /* every flip the server got was refused (a flip in a packet that ENet then dropped, or that went to
     * a dropped connection, never reached it: at most as many as flipped); none opened */
    assert_true(refused_up >= 1);
    assert_true(refused_up <= f.flipped[0]);
    assert_true(refused_down >= 1);
    assert_true(refused_down <= f.flipped[1]);
    /* a tampered reliable packet (version 6's FRAME, a START, END or DESYNC) costs its receiver a
     * reconnect and resume: ENet had acknowledged the bad copy, so the genuine one never comes again.
     * Version 7's frames travel unreliable (FRAMES): a tampered copy is dropped and the next packet
     * carries its frames again, so flips of frames alone cost nothing. */
    if (f.flipped_reliable[1]) {
        assert_true(resets >= 1);
        assert_true(st.resumes >= 1);
    } else {
        assert_int_equal(resets, 0);
    }
    assert_int_equal(st.desyncs, 0);
    assert_all_agree(&w, TICKS);
    nh_stop(&w);
}

/* An old sealed INPUT put into a later datagram in place of the genuine one (ENet's own sequence
 * numbers stay fresh, so only the session's counter can tell). */
typedef struct replayer {
    uint8_t old[512];
    size_t old_len;
    uint32_t inputs, replayed;
} replayer;

static void replay_tamper(void* ctx, uint32_t session, int down, uint8_t* d, uint32_t* len, uint32_t cap) {
    (void)session;
    replayer* r = ctx;
    if (down) return;
    en_cmd cmds[8];
    uint32_t n = en_parse(d, *len, cmds, 8);
    if (n == 0) return;
    en_cmd* c = &cmds[n - 1]; /* the last command: its data ends the datagram */
    if (c->type != EN_SEND_UNRELIABLE || c->channel != BSYNC_PROTO_CHANNEL_INPUT || !sealed_data(d, c) ||
        c->data_off + c->data_len != *len)
        return;
    r->inputs++;
    if (r->inputs == 20 && c->data_len <= sizeof r->old) { /* keep the 20th */
        memcpy(r->old, d + c->data_off, c->data_len);
        r->old_len = c->data_len;
        return;
    }
    if (r->old_len && r->inputs > 100 && r->inputs % 40 == 0 && c->data_off + r->old_len <= cap) {
        memcpy(d + c->data_off, r->old, r->old_len);
        d[c->len_field] = (uint8_t)(r->old_len >> 8);
        d[c->len_field + 1u] = (uint8_t)r->old_len;
        *len = (uint32_t)(c->data_off + r->old_len);
        r->replayed++;
    }
}

static void test_replayed_packet_refused(void** state) {
    (void)state;
    nh_world w;
    nh_config_session = "encrypt";
    assert_int_equal(nh_start(&w, 2, 0, 3, 20, "report", TICKS, 0), 0);
    nh_config_session = NULL;
    nr_impair none;
    memset(&none, 0, sizeof none);
    assert_int_equal(nh_use_relay(&w, &none, 7), 0);
    replayer rp;
    memset(&rp, 0, sizeof rp);
    nr_relay_set_tamper(w.relay, replay_tamper, &rp);
    for (uint32_t p = 0; p < 2; p++) assert_true(nh_connect(&w, p, NULL) >= 0);
    assert_int_equal(nh_run_to_end(&w, 60000), 0);
    bsync_server_match_stats st;
    bsync_server_get_match_stats(w.server, 0, &st);
    printf("[auth] replays: %u injected (of %u sealed inputs seen); server replayed %llu, bad_tag %llu\n", rp.replayed,
           rp.inputs, (unsigned long long)st.dropped[BSYNC_SERVER_DROP_REPLAYED],
           (unsigned long long)st.dropped[BSYNC_SERVER_DROP_BAD_TAG]);
    assert_true(rp.replayed >= 3);
    /* ENet delivers each (a fresh sequence number); the session refuses each as replayed */
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_REPLAYED], rp.replayed);
    assert_int_equal(st.dropped[BSYNC_SERVER_DROP_BAD_TAG], 0);
    for (uint32_t i = 0; i < 2; i++) {
        assert_int_equal(w.clients[i].frames, TICKS);
        assert_int_equal(w.clients[i].bye_reason, BSYNC_PROTO_BYE_MATCH_OVER);
    }
    assert_all_agree(&w, TICKS);
    nh_stop(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flipped_bits_refused),
        cmocka_unit_test(test_replayed_packet_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
