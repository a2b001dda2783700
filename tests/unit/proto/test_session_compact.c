/* The compact sealed form of protocol 7 messages (docs/protocol.md "Sessions", compact form): its bytes
 * are libsodium's XChaCha20-Poly1305 over the documented header, nonce and plaintext, recomputed here by
 * calling libsodium directly; it is 12 bytes longer than the message (26 for the long form); every
 * flipped bit is refused; a packet opens once, reordering within the window is fine, older ones are
 * refused; the 16-bit counter on the wire stands for the full counter across its wrap; a packet of one
 * connection never opens in the next one (fresh nonces, fresh keys) and the two forms never open as
 * each other. */
#include "test_support.h"

#include <string.h>

#include <sodium.h>

#include "blendsync/session.h"

static void keyed(bsync_session* c, bsync_session* s, bsync_session_mode mode, uint8_t cn0, uint8_t* c2s_key) {
    uint8_t secret[32], cn[32], sn[32];
    for (int i = 0; i < 32; i++) secret[i] = (uint8_t)i, cn[i] = (uint8_t)(cn0 + i * 7), sn[i] = (uint8_t)(255 - i * 3);
    assert_int_equal(bsync_session_derive(c, BSYNC_SESSION_CLIENT, mode, secret, 34, 2, cn, sn), BSYNC_OK);
    assert_int_equal(bsync_session_derive(s, BSYNC_SESSION_SERVER, mode, secret, 34, 2, cn, sn), BSYNC_OK);
    if (!c2s_key) return;
    /* docs/protocol.md "Sessions" step 2, computed here independently */
    uint8_t in[20 + 8 + 4 + 1 + 64], keys[64];
    size_t k = 0;
    memcpy(in, "blendsync session 1", 20), k = 20;
    in[k++] = 34;
    for (int i = 0; i < 7; i++) in[k++] = 0;
    in[k++] = 2, in[k++] = 0, in[k++] = 0, in[k++] = 0;
    in[k++] = (uint8_t)mode;
    memcpy(in + k, cn, 32), k += 32;
    memcpy(in + k, sn, 32), k += 32;
    assert_int_equal(crypto_generichash(keys, 64, in, k, secret, 32), 0);
    memcpy(c2s_key, keys, 32);
}

/* A version 7 INPUT as docs/protocol.md's worked example gives it (body 23). */
#define BODY 23
static const uint8_t k_input[] = {0x42, 0x53, 0x07, 0x03, BODY, 0x00, 0x00, 0x00, 0x12, 0x04, 0x01, 0xF4,
                                  0x03, 0x03, 0x80, 0x80, 0x04, 0xFF, 0xFF, 0x01, 0x80, 0x80, 0x08, 0x00,
                                  0x03, 0x80, 0x01, 0x00, 0x01, 0x04, 0x00};

static void test_compact_bytes(void** state) {
    (void)state;
    for (int mode = BSYNC_SESSION_ENCRYPT; mode <= BSYNC_SESSION_AUTHENTICATE; mode++) {
        bsync_session c, s;
        uint8_t key[32];
        keyed(&c, &s, (bsync_session_mode)mode, 1, key);
        uint8_t sealed[128], opened[128];
        size_t n = 0, m = 0;
        for (int i = 0; i < 3; i++) /* the third on lane 1: counter 2 */
            assert_int_equal(bsync_session_seal(&c, 1, k_input, sizeof k_input, sealed, sizeof sealed, &n), BSYNC_OK);
        assert_int_equal(n, sizeof k_input + 12); /* 43: a message's 8-byte header becomes 1, the seal adds 19 */
        const uint8_t head[3] = {(uint8_t)(0xC0 | (mode == BSYNC_SESSION_AUTHENTICATE ? 8 : 0) | 1), 2, 0};
        assert_memory_equal(sealed, head, 3);
        uint8_t nonce[24] = {0};
        nonce[16] = 2, nonce[23] = 1; /* direction 0 (client -> server); counter LE with lane 1 in its top byte */
        uint8_t plain[1 + BODY];
        plain[0] = 0x03; /* the type, then the body */
        memcpy(plain + 1, k_input + 8, BODY);
        uint8_t want[1 + BODY + 16];
        unsigned long long wl = 0;
        if (mode == BSYNC_SESSION_ENCRYPT) {
            crypto_aead_xchacha20poly1305_ietf_encrypt(want, &wl, plain, sizeof plain, head, 3, NULL, nonce, key);
        } else {
            uint8_t ad[3 + sizeof plain];
            memcpy(ad, head, 3), memcpy(ad + 3, plain, sizeof plain);
            memcpy(want, plain, sizeof plain);
            uint8_t none[1] = {0};
            crypto_aead_xchacha20poly1305_ietf_encrypt_detached(none, want + sizeof plain, &wl, none, 0, ad, sizeof ad, NULL,
                                                                nonce, key);
            wl += sizeof plain;
        }
        assert_int_equal(n, 3 + wl);
        assert_memory_equal(sealed + 3, want, wl);
        assert_true(bsync_session_is_sealed(sealed, n));
        assert_int_equal(bsync_session_lane(sealed, n), 1);
        /* the receiver of packet 2 (0 and 1 lost) gets the message back, header and all */
        assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
        assert_int_equal(m, sizeof k_input);
        assert_memory_equal(opened, k_input, sizeof k_input);
        assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof k_input - 1, &m), BSYNC_SESSION_NO_ROOM);
    }
}

/* Messages the compact form cannot restore exactly go long: version 6, flags set, a length that disagrees. */
static void test_what_goes_long(void** state) {
    (void)state;
    bsync_session c, s;
    keyed(&c, &s, BSYNC_SESSION_ENCRYPT, 1, NULL);
    uint8_t msg[sizeof k_input], sealed[128], opened[128];
    size_t n = 0, m = 0;
    for (int variant = 0; variant < 4; variant++) {
        memcpy(msg, k_input, sizeof msg);
        if (variant == 1) msg[2] = 6;
        if (variant == 2) msg[6] = 1;
        if (variant == 3) msg[4] = BODY - 1;
        assert_int_equal(bsync_session_seal(&c, 1, msg, sizeof msg, sealed, sizeof sealed, &n), BSYNC_OK);
        assert_int_equal(n, sizeof msg + (variant == 0 ? 12u : 26u));
        assert_int_equal(sealed[0], variant == 0 ? 0xC1 : BSYNC_SESSION_MARKER);
        assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
        assert_int_equal(m, sizeof msg);
        assert_memory_equal(opened, msg, sizeof msg);
    }
    /* the smallest compact packet: an empty body (20 bytes); 19 bytes is not sealed */
    const uint8_t empty[8] = {0x42, 0x53, 0x07, 0x09, 0, 0, 0, 0};
    assert_int_equal(bsync_session_seal(&c, 0, empty, 8, sealed, sizeof sealed, &n), BSYNC_OK);
    assert_int_equal(n, 20);
    assert_false(bsync_session_is_sealed(sealed, 19));
    assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(m, 8);
    assert_memory_equal(opened, empty, 8);
}

static void test_compact_every_flipped_bit(void** state) {
    (void)state;
    for (int mode = BSYNC_SESSION_ENCRYPT; mode <= BSYNC_SESSION_AUTHENTICATE; mode++) {
        bsync_session c, s;
        keyed(&c, &s, (bsync_session_mode)mode, 1, NULL);
        uint8_t sealed[128], opened[128];
        size_t n = 0, m = 0;
        assert_int_equal(bsync_session_seal(&c, 1, k_input, sizeof k_input, sealed, sizeof sealed, &n), BSYNC_OK);
        for (size_t bit = 0; bit < 8 * n; bit++) {
            sealed[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            assert_int_not_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
            sealed[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        /* form bits 4..7 (not sealed any more: 0x42-like or 0xB5-like firsts are other forms) and the mode bit
         * (bit 3): NOT_SEALED, 5; the lane bits 0..2 and every other bit: a bad tag (the lane and counter are
         * in the nonce), none REPLAYED: nothing moved the window */
        assert_int_equal(s.not_sealed, 5);
        assert_int_equal(s.replayed, 0);
        assert_int_equal(s.bad_tag, 8 * n - 5);
        assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
        /* and once opened, the same bytes again are a replay */
        assert_int_equal(bsync_session_open(&s, sealed, n, opened, sizeof opened, &m), BSYNC_SESSION_REPLAYED);
    }
}

/* Reorder within the window, replays, and the 16-bit counter across its wrap (65536 packets). */
static void test_compact_window_and_wrap(void** state) {
    (void)state;
    bsync_session c, s;
    keyed(&c, &s, BSYNC_SESSION_ENCRYPT, 1, NULL);
    enum { KEEP = 8 };
    static uint8_t kept[KEEP][64];
    size_t kept_n[KEEP];
    /* the packets kept: counters 10, 5 (reordered), 70 (5 now 65 behind: refused), 65535, 65536 (wrap),
     * 65530 (reordered across the wrap), 90000 (24464 later: within half the 16-bit range), 90000 again */
    const uint32_t pick[KEEP] = {10, 5, 70, 65535, 65536, 65530, 90000, 90000};
    uint8_t sealed[64], opened[64];
    size_t n = 0, m = 0;
    for (uint32_t i = 0; i <= 90000; i++) {
        assert_int_equal(bsync_session_seal(&c, 1, k_input, sizeof k_input, sealed, sizeof sealed, &n), BSYNC_OK);
        for (int k = 0; k < KEEP; k++)
            if (pick[k] == i) memcpy(kept[k], sealed, n), kept_n[k] = n;
    }
    assert_int_equal(bsync_session_open(&s, kept[0], kept_n[0], opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s, kept[1], kept_n[1], opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s, kept[1], kept_n[1], opened, sizeof opened, &m), BSYNC_SESSION_REPLAYED);
    assert_int_equal(bsync_session_open(&s, kept[2], kept_n[2], opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s, kept[1], kept_n[1], opened, sizeof opened, &m), BSYNC_SESSION_REPLAYED);
    assert_int_equal(bsync_session_open(&s, kept[3], kept_n[3], opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(kept[4][1] | kept[4][2], 0); /* 65536's low 16 bits are 0 */
    assert_int_equal(bsync_session_open(&s, kept[4], kept_n[4], opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s, kept[5], kept_n[5], opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s, kept[6], kept_n[6], opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_memory_equal(opened, k_input, sizeof k_input);
    assert_int_equal(bsync_session_open(&s, kept[7], kept_n[7], opened, sizeof opened, &m), BSYNC_SESSION_REPLAYED);
    /* 65530 again, now 24470 behind the newest: older than the window */
    assert_int_equal(bsync_session_open(&s, kept[5], kept_n[5], opened, sizeof opened, &m), BSYNC_SESSION_REPLAYED);
    assert_int_equal(s.opened, 7);
    assert_int_equal(s.bad_tag, 0);
}

/* A reconnect derives new keys from fresh nonces: the first packet of the new connection (counter 0 again)
 * has other bytes, and no packet of the old connection opens in the new one. The long and compact forms
 * share one counter per lane, so no (key, nonce) pair is used twice, and neither form's bytes open as the
 * other's. */
static void test_reconnect_and_forms(void** state) {
    (void)state;
    bsync_session c1, s1, c2, s2;
    keyed(&c1, &s1, BSYNC_SESSION_ENCRYPT, 1, NULL);
    keyed(&c2, &s2, BSYNC_SESSION_ENCRYPT, 2, NULL); /* another client nonce: the next connection */
    uint8_t a[64], b[64], opened[64];
    size_t na = 0, nb = 0, m = 0;
    assert_int_equal(bsync_session_seal(&c1, 1, k_input, sizeof k_input, a, sizeof a, &na), BSYNC_OK);
    assert_int_equal(bsync_session_seal(&c2, 1, k_input, sizeof k_input, b, sizeof b, &nb), BSYNC_OK);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, 3); /* same header: counter 0 on lane 1 */
    assert_memory_not_equal(a + 3, b + 3, na - 3);
    assert_int_equal(bsync_session_open(&s2, a, na, opened, sizeof opened, &m), BSYNC_SESSION_BAD_TAG);
    assert_int_equal(bsync_session_open(&s2, b, nb, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    /* one counter for both forms: long (1), compact (2) */
    uint8_t v6[sizeof k_input];
    memcpy(v6, k_input, sizeof v6);
    v6[2] = 6;
    uint8_t l[80];
    size_t nl = 0;
    assert_int_equal(bsync_session_seal(&c2, 1, v6, sizeof v6, l, sizeof l, &nl), BSYNC_OK);
    assert_int_equal(l[2], 1);
    assert_int_equal(bsync_session_seal(&c2, 1, k_input, sizeof k_input, b, sizeof b, &nb), BSYNC_OK);
    assert_int_equal(b[1], 2);
    /* the compact packet's ciphertext put behind a long header with its full counter: refused */
    uint8_t forged[80] = {BSYNC_SESSION_MARKER, BSYNC_SESSION_ENCRYPT, 2, 0, 0, 0, 0, 0, 0, 1};
    memcpy(forged + 10, b + 3, nb - 3);
    assert_int_equal(bsync_session_open(&s2, forged, 10 + nb - 3, opened, sizeof opened, &m), BSYNC_SESSION_BAD_TAG);
    assert_int_equal(bsync_session_open(&s2, l, nl, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_int_equal(bsync_session_open(&s2, b, nb, opened, sizeof opened, &m), BSYNC_SESSION_OPENED);
    assert_memory_equal(opened, k_input, sizeof k_input);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compact_bytes),
        cmocka_unit_test(test_what_goes_long),
        cmocka_unit_test(test_compact_every_flipped_bit),
        cmocka_unit_test(test_compact_window_and_wrap),
        cmocka_unit_test(test_reconnect_and_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
