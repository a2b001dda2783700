/* Authenticated sessions (blendsync/session.h): both sides derive matching keys from the slot secret
 * and both nonces; a sealed packet opens to its message in both modes; every single flipped bit is
 * refused; a counter opens once, reordering inside the window is fine, older ones are refused; other
 * secrets, nonces, slots, match ids or directions do not open; encrypt mode hides the message and
 * authenticate mode carries it in clear. The AEAD itself is checked against libsodium called
 * directly (an independent path to the same bytes), not against this module's own output. */
#include "test_support.h"

#include <string.h>

#include <sodium.h>

#include "blendsync/session.h"

static const char* k_hex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

static void pair(bsync_session* client, bsync_session* server, bsync_session_mode mode, const uint8_t* secret,
                 uint64_t match, uint32_t slot, const uint8_t* cn, const uint8_t* sn) {
    assert_int_equal(bsync_session_derive(client, BSYNC_SESSION_CLIENT, mode, secret, match, slot, cn, sn), BSYNC_OK);
    assert_int_equal(bsync_session_derive(server, BSYNC_SESSION_SERVER, mode, secret, match, slot, cn, sn), BSYNC_OK);
}

static void nonces(uint8_t* cn, uint8_t* sn) {
    for (int i = 0; i < 32; i++) cn[i] = (uint8_t)(i * 7 + 1), sn[i] = (uint8_t)(255 - i * 3);
}

static void test_secret_parse(void** state) {
    (void)state;
    uint8_t s[32];
    assert_int_equal(bsync_session_secret_parse(k_hex, s), 0);
    for (int i = 0; i < 32; i++) assert_int_equal(s[i], i);
    assert_int_equal(bsync_session_secret_parse("00", s), -1);
    char bad[65];
    memcpy(bad, k_hex, 65);
    bad[10] = 'g';
    assert_int_equal(bsync_session_secret_parse(bad, s), -1);
    assert_int_equal(bsync_session_available(), 1);
}

static void test_round_trip_both_modes(void** state) {
    (void)state;
    uint8_t secret[32], cn[32], sn[32];
    assert_int_equal(bsync_session_secret_parse(k_hex, secret), 0);
    nonces(cn, sn);
    const uint8_t msg[] = "BS\x05\x03 a message that must arrive intact";
    for (int mode = BSYNC_SESSION_ENCRYPT; mode <= BSYNC_SESSION_AUTHENTICATE; mode++) {
        bsync_session c, s;
        pair(&c, &s, (bsync_session_mode)mode, secret, 42, 3, cn, sn);
        uint8_t sealed[256], opened[256];
        size_t n = 0, m = 0;
        assert_int_equal(bsync_session_seal(&c, 0, msg, sizeof msg, sealed, sizeof sealed, &n), BSYNC_OK);
        assert_int_equal(n, sizeof msg + BSYNC_SESSION_OVERHEAD);
        assert_int_equal(sealed[0], BSYNC_SESSION_MARKER);
        assert_int_equal(sealed[1], mode);
        assert_true(bsync_session_is_sealed(sealed, n));
        assert_false(bsync_session_is_sealed(msg, sizeof msg)); /* plain messages start with "BS" */
        /* encrypt hides the message; authenticate carries it in clear after the header */
        int clear = memcmp(sealed + BSYNC_SESSION_HEADER_BYTES, msg, sizeof msg) == 0;
        assert_int_equal(clear, mode == BSYNC_SESSION_AUTHENTICATE);
        assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
        assert_int_equal(m, sizeof msg);
        assert_memory_equal(opened, msg, sizeof msg);
        /* and back the other way */
        assert_int_equal(bsync_session_seal(&s, 0, msg, sizeof msg, sealed, sizeof sealed, &n), BSYNC_OK);
        assert_int_equal(bsync_session_open(&c, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
        assert_memory_equal(opened, msg, sizeof msg);
        /* a side cannot open its own packets (per-direction keys and nonces) */
        assert_int_equal(bsync_session_seal(&c, 0, msg, sizeof msg, sealed, sizeof sealed, &n), BSYNC_OK);
        assert_int_equal(bsync_session_open(&c, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_BAD_TAG);
        /* an empty message is fine too */
        assert_int_equal(bsync_session_seal(&c, 0, msg, 0, sealed, sizeof sealed, &n), BSYNC_OK);
        assert_int_equal(n, BSYNC_SESSION_OVERHEAD);
        assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
        assert_int_equal(m, 0);
        assert_int_equal(bsync_session_seal(&c, 0, msg, sizeof msg, sealed, sizeof msg + BSYNC_SESSION_OVERHEAD - 1, &n),
                         BSYNC_BUFFER_TOO_SMALL);
    }
}

/* The bytes on the wire are libsodium's XChaCha20-Poly1305 with the documented nonce and AD, from the
 * documented key derivation: recomputed here with libsodium directly. */
static void test_wire_bytes_documented(void** state) {
    (void)state;
    uint8_t secret[32], cn[32], sn[32];
    assert_int_equal(bsync_session_secret_parse(k_hex, secret), 0);
    nonces(cn, sn);
    bsync_session c, s;
    pair(&c, &s, BSYNC_SESSION_ENCRYPT, secret, 0x0102030405060708ull, 5, cn, sn);
    /* derivation as session.h words it */
    uint8_t in[20 + 8 + 4 + 1 + 64];
    size_t k = 0;
    memcpy(in, "blendsync session 1", 20); /* with its NUL */
    k = 20;
    for (int i = 0; i < 8; i++) in[k++] = (uint8_t)(0x0102030405060708ull >> (8 * i));
    in[k++] = 5, in[k++] = 0, in[k++] = 0, in[k++] = 0;
    in[k++] = BSYNC_SESSION_ENCRYPT;
    memcpy(in + k, cn, 32), k += 32;
    memcpy(in + k, sn, 32), k += 32;
    uint8_t keys[64];
    assert_int_equal(crypto_generichash(keys, 64, in, k, secret, 32), 0);
    uint8_t msg[40];
    for (int i = 0; i < 40; i++) msg[i] = (uint8_t)i;
    uint8_t sealed[128];
    size_t n = 0;
    for (int i = 0; i < 3; i++) assert_int_equal(bsync_session_seal(&c, 0, msg, 40, sealed, sizeof sealed, &n), BSYNC_OK);
    /* the third packet: counter 2 */
    uint8_t header[10] = {BSYNC_SESSION_MARKER, BSYNC_SESSION_ENCRYPT, 2, 0, 0, 0, 0, 0, 0, 0};
    uint8_t nonce[24] = {0};
    nonce[0] = 0; /* client -> server */
    nonce[16] = 2;
    uint8_t want[40 + 16];
    unsigned long long wl = 0;
    crypto_aead_xchacha20poly1305_ietf_encrypt(want, &wl, msg, 40, header, 10, NULL, nonce, keys /* c2s */);
    assert_int_equal(n, 10 + wl);
    assert_memory_equal(sealed, header, 10);
    assert_memory_equal(sealed + 10, want, wl);
}

static void test_every_flipped_bit_refused(void** state) {
    (void)state;
    uint8_t secret[32], cn[32], sn[32];
    assert_int_equal(bsync_session_secret_parse(k_hex, secret), 0);
    nonces(cn, sn);
    for (int mode = BSYNC_SESSION_ENCRYPT; mode <= BSYNC_SESSION_AUTHENTICATE; mode++) {
        bsync_session c, s;
        pair(&c, &s, (bsync_session_mode)mode, secret, 7, 0, cn, sn);
        uint8_t msg[30], sealed[64], opened[64];
        for (int i = 0; i < 30; i++) msg[i] = (uint8_t)(i * 13);
        size_t n = 0, m = 0;
        assert_int_equal(bsync_session_seal(&c, 0, msg, sizeof msg, sealed, sizeof sealed, &n), BSYNC_OK);
        uint64_t refused = 0;
        for (size_t bit = 0; bit < 8 * n; bit++) {
            sealed[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            bsync_session_open_result r = bsync_session_open(&s, sealed, n, opened, sizeof opened, &m);
            sealed[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            assert_int_not_equal(r, BSYNC_SESSION_OPENED);
            refused++;
        }
        assert_int_equal(refused, 8 * n);
        /* marker and mode bits: NOT_SEALED (16); the counter's lane byte turned into a lane >= 8: refused by
         * the window (bits 3..7: 5); every other bit: a bad tag */
        assert_int_equal(s.not_sealed, 16);
        assert_int_equal(s.replayed, 5);
        assert_int_equal(s.bad_tag, 8 * n - 21);
        /* the untouched packet still opens: nothing above moved the window */
        assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
        assert_memory_equal(opened, msg, sizeof msg);
    }
}

static void test_replay_window(void** state) {
    (void)state;
    uint8_t secret[32], cn[32], sn[32];
    assert_int_equal(bsync_session_secret_parse(k_hex, secret), 0);
    nonces(cn, sn);
    bsync_session c, s;
    pair(&c, &s, BSYNC_SESSION_ENCRYPT, secret, 1, 1, cn, sn);
    enum { N = 200 };
    static uint8_t pk[N][40];
    size_t len[N];
    uint8_t msg[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[16];
    for (int i = 0; i < N; i++) assert_int_equal(bsync_session_seal(&c, 0, msg, 8, pk[i], 40, &len[i]), BSYNC_OK);
    size_t m = 0;
    /* in order, then each again: refused */
    assert_int_equal(bsync_session_open(&s, pk[0], len[0], out, sizeof out, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s, pk[0], len[0], out, sizeof out, &m), BSYNC_SESSION_REPLAYED);
    /* jump ahead to 100, then late ones inside the window open once */
    assert_int_equal(bsync_session_open(&s, pk[100], len[100], out, sizeof out, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s, pk[60], len[60], out, sizeof out, &m), BSYNC_SESSION_OPENED); /* 40 back */
    assert_int_equal(bsync_session_open(&s, pk[60], len[60], out, sizeof out, &m), BSYNC_SESSION_REPLAYED);
    assert_int_equal(bsync_session_open(&s, pk[37], len[37], out, sizeof out, &m), BSYNC_SESSION_OPENED); /* 63 back */
    assert_int_equal(bsync_session_open(&s, pk[36], len[36], out, sizeof out, &m), BSYNC_SESSION_REPLAYED); /* 64 back: too old */
    assert_int_equal(bsync_session_open(&s, pk[1], len[1], out, sizeof out, &m), BSYNC_SESSION_REPLAYED);
    assert_int_equal(bsync_session_open(&s, pk[100], len[100], out, sizeof out, &m), BSYNC_SESSION_REPLAYED);
    for (int i = 101; i < N; i++) assert_int_equal(bsync_session_open(&s, pk[i], len[i], out, sizeof out, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(s.opened, 4 + (N - 101)); /* 0, 100, 60, 37, then 101.. */
    assert_int_equal(s.replayed, 5);
    /* a forged counter (a replayed body under a new counter) fails the tag and does not move the window */
    uint8_t forged[40];
    memcpy(forged, pk[5], len[5]);
    forged[2] = (uint8_t)(N + 5); /* counter N + 5, never sent */
    assert_int_equal(bsync_session_open(&s, forged, len[5], out, sizeof out, &m), BSYNC_SESSION_BAD_TAG);
    assert_true(s.recv_highest[0] == N - 1);
}

/* Lanes (ENet channels) count and window on their own: a reliable packet retransmitted late on one
 * channel still opens after a hundred packets of another channel; the lane is in the counter. */
static void test_lanes(void** state) {
    (void)state;
    uint8_t secret[32], cn[32], sn[32];
    assert_int_equal(bsync_session_secret_parse(k_hex, secret), 0);
    nonces(cn, sn);
    bsync_session c, s;
    pair(&c, &s, BSYNC_SESSION_ENCRYPT, secret, 1, 1, cn, sn);
    uint8_t msg[4] = {9, 8, 7, 6}, late[64], pk[64], out[16];
    size_t ll = 0, n = 0, m = 0;
    assert_int_equal(bsync_session_seal(&c, 2, msg, 4, late, sizeof late, &ll), BSYNC_OK); /* lane 2, first */
    assert_int_equal(late[9], 2);                                                           /* counter's top byte */
    assert_int_equal(late[2], 0);
    for (int i = 0; i < 100; i++) {
        assert_int_equal(bsync_session_seal(&c, 1, msg, 4, pk, sizeof pk, &n), BSYNC_OK);
        assert_int_equal(bsync_session_open(&s, pk, n, out, sizeof out, &m), BSYNC_SESSION_OPENED);
    }
    assert_int_equal(pk[2], 99); /* lane 1's 100th packet: its own count */
    assert_int_equal(bsync_session_open(&s, late, ll, out, sizeof out, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s, late, ll, out, sizeof out, &m), BSYNC_SESSION_REPLAYED);
    assert_int_equal(bsync_session_seal(&c, BSYNC_SESSION_LANES, msg, 4, pk, sizeof pk, &n), BSYNC_INVALID_ARGUMENT);
    /* a counter naming a lane past the last is refused before any work */
    assert_int_equal(bsync_session_seal(&c, 0, msg, 4, pk, sizeof pk, &n), BSYNC_OK);
    pk[9] = BSYNC_SESSION_LANES;
    assert_int_equal(bsync_session_open(&s, pk, n, out, sizeof out, &m), BSYNC_SESSION_REPLAYED);
}

static void test_other_keys_do_not_open(void** state) {
    (void)state;
    uint8_t secret[32], other[32], cn[32], sn[32], sn2[32];
    assert_int_equal(bsync_session_secret_parse(k_hex, secret), 0);
    memcpy(other, secret, 32);
    other[31] ^= 1;
    nonces(cn, sn);
    memcpy(sn2, sn, 32);
    sn2[0] ^= 0x80;
    uint8_t msg[16] = "hello, server!!", sealed[64], out[64];
    size_t n = 0, m = 0;
    bsync_session c, s;
    assert_int_equal(bsync_session_derive(&c, BSYNC_SESSION_CLIENT, BSYNC_SESSION_ENCRYPT, secret, 9, 2, cn, sn), BSYNC_OK);
    assert_int_equal(bsync_session_seal(&c, 0, msg, 16, sealed, sizeof sealed, &n), BSYNC_OK);
    struct { const uint8_t* secret; uint64_t match; uint32_t slot; const uint8_t* sn; bsync_session_mode mode; } cases[] = {
        {other, 9, 2, sn, BSYNC_SESSION_ENCRYPT},   /* a wrong secret */
        {secret, 10, 2, sn, BSYNC_SESSION_ENCRYPT}, /* another match */
        {secret, 9, 3, sn, BSYNC_SESSION_ENCRYPT},  /* another slot */
        {secret, 9, 2, sn2, BSYNC_SESSION_ENCRYPT}, /* another connection's server nonce (a captured HELLO) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(bsync_session_derive(&s, BSYNC_SESSION_SERVER, cases[i].mode, cases[i].secret, cases[i].match,
                                              cases[i].slot, cn, cases[i].sn), BSYNC_OK);
        assert_int_equal(bsync_session_open(&s, sealed, n, out, sizeof out, &m), BSYNC_SESSION_BAD_TAG);
    }
    /* a server in authenticate mode refuses an encrypt-mode packet outright (the mode is bound too) */
    assert_int_equal(bsync_session_derive(&s, BSYNC_SESSION_SERVER, BSYNC_SESSION_AUTHENTICATE, secret, 9, 2, cn, sn), BSYNC_OK);
    assert_int_equal(bsync_session_open(&s, sealed, n, out, sizeof out, &m), BSYNC_SESSION_NOT_SEALED);
    /* and the right one opens */
    assert_int_equal(bsync_session_derive(&s, BSYNC_SESSION_SERVER, BSYNC_SESSION_ENCRYPT, secret, 9, 2, cn, sn), BSYNC_OK);
    assert_int_equal(bsync_session_open(&s, sealed, n, out, sizeof out, &m), BSYNC_SESSION_OPENED);
    bsync_session_clear(&s);
    assert_int_equal(s.ready, 0);
    assert_int_equal(bsync_session_open(&s, sealed, n, out, sizeof out, &m), BSYNC_SESSION_NOT_SEALED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secret_parse),          cmocka_unit_test(test_round_trip_both_modes),
        cmocka_unit_test(test_wire_bytes_documented), cmocka_unit_test(test_every_flipped_bit_refused),
        cmocka_unit_test(test_replay_window),         cmocka_unit_test(test_other_keys_do_not_open),
        cmocka_unit_test(test_lanes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
