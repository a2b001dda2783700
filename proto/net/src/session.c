/* session.c — authenticated sessions (blendsync/session.h) over libsodium. */
#include "blendsync/session.h"

#include <string.h>

#include "hex.h" /* the platform library's (shared/src/io/platform) */
#include "internal/le.h"

#ifdef BSYNC_HAVE_SODIUM
#include <sodium.h>
#endif

int bsync_session_secret_parse(const char* hex, uint8_t out[BSYNC_SESSION_SECRET_BYTES]) {
    return bsync_io_hex_decode(hex, out, BSYNC_SESSION_SECRET_BYTES);
}

int bsync_session_is_sealed(const uint8_t* p, size_t len) {
    return p && len >= BSYNC_SESSION_OVERHEAD && p[0] == BSYNC_SESSION_MARKER;
}

int bsync_session_lane(const uint8_t* p, size_t len) {
    return bsync_session_is_sealed(p, len) ? (int)p[2 + 7] : -1; /* the counter is u64 LE at offset 2 */
}

const char* bsync_session_open_result_string(bsync_session_open_result r) {
    switch (r) {
    case BSYNC_SESSION_OPENED: return "opened";
    case BSYNC_SESSION_NOT_SEALED: return "not sealed";
    case BSYNC_SESSION_BAD_TAG: return "bad tag";
    case BSYNC_SESSION_REPLAYED: return "replayed";
    case BSYNC_SESSION_NO_ROOM: return "no room";
    }
    return "unknown";
}

#ifdef BSYNC_HAVE_SODIUM

static const char k_context[] = "blendsync session 1";


/* sodium_init is thread-safe and idempotent (0 first time, 1 after); called per connection only */
static int sodium_ready(void) { return sodium_init() >= 0; }

int bsync_session_available(void) { return sodium_ready(); }

bsync_result bsync_session_random(uint8_t* out, size_t n) {
    if (!out || !sodium_ready()) return BSYNC_INVALID_ARGUMENT;
    randombytes_buf(out, n);
    return BSYNC_OK;
}

bsync_result bsync_session_derive(bsync_session* s, bsync_session_role role, bsync_session_mode mode,
                                  const uint8_t secret[BSYNC_SESSION_SECRET_BYTES], uint64_t match_id, uint32_t slot,
                                  const uint8_t client_nonce[BSYNC_SESSION_NONCE_BYTES],
                                  const uint8_t server_nonce[BSYNC_SESSION_NONCE_BYTES]) {
    if (!s || !secret || !client_nonce || !server_nonce || !sodium_ready()) return BSYNC_INVALID_ARGUMENT;
    if (mode != BSYNC_SESSION_ENCRYPT && mode != BSYNC_SESSION_AUTHENTICATE) return BSYNC_INVALID_ARGUMENT;
    if (role != BSYNC_SESSION_CLIENT && role != BSYNC_SESSION_SERVER) return BSYNC_INVALID_ARGUMENT;
    uint8_t msg[sizeof k_context + 8 + 4 + 1 + 2 * BSYNC_SESSION_NONCE_BYTES];
    size_t n = 0;
    memcpy(msg, k_context, sizeof k_context); /* with its NUL */
    n += sizeof k_context;
    bsync_le_put64(msg + n, match_id);
    n += 8;
    for (int i = 0; i < 4; i++) msg[n++] = (uint8_t)(slot >> (8 * i));
    msg[n++] = (uint8_t)mode; /* the mode is bound too: a peer cannot be talked down to authenticate-only */
    memcpy(msg + n, client_nonce, BSYNC_SESSION_NONCE_BYTES);
    n += BSYNC_SESSION_NONCE_BYTES;
    memcpy(msg + n, server_nonce, BSYNC_SESSION_NONCE_BYTES);
    n += BSYNC_SESSION_NONCE_BYTES;
    uint8_t keys[2 * BSYNC_SESSION_KEY_BYTES];
    if (crypto_generichash(keys, sizeof keys, msg, n, secret, BSYNC_SESSION_SECRET_BYTES) != 0) return BSYNC_INVALID_ARGUMENT;
    memset(s, 0, sizeof *s);
    const uint8_t* c2s = keys;
    const uint8_t* s2c = keys + BSYNC_SESSION_KEY_BYTES;
    memcpy(s->send_key, role == BSYNC_SESSION_CLIENT ? c2s : s2c, BSYNC_SESSION_KEY_BYTES);
    memcpy(s->recv_key, role == BSYNC_SESSION_CLIENT ? s2c : c2s, BSYNC_SESSION_KEY_BYTES);
    sodium_memzero(keys, sizeof keys);
    s->mode = (uint8_t)mode;
    s->role = (uint8_t)role;
    s->ready = 1;
    return BSYNC_OK;
}

/* direction 0: client -> server, 1: server -> client */
static void make_nonce(uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES], uint8_t direction, uint64_t counter) {
    memset(nonce, 0, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
    nonce[0] = direction;
    bsync_le_put64(nonce + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES - 8, counter);
}

#define LANE_SHIFT 56u
#define LANE_MASK ((UINT64_C(1) << LANE_SHIFT) - 1u)

bsync_result bsync_session_seal(bsync_session* s, unsigned lane, const uint8_t* msg, size_t len, uint8_t* out, size_t cap,
                                size_t* out_len) {
    if (!s || !s->ready || (!msg && len) || !out || !out_len || lane >= BSYNC_SESSION_LANES) return BSYNC_INVALID_ARGUMENT;
    if (cap < len + BSYNC_SESSION_OVERHEAD) return BSYNC_BUFFER_TOO_SMALL;
    if (s->send_counter[lane] == LANE_MASK) return BSYNC_LIMIT_EXCEEDED; /* never reuse a nonce */
    const uint64_t counter = (uint64_t)lane << LANE_SHIFT | s->send_counter[lane]++;
    out[0] = BSYNC_SESSION_MARKER;
    out[1] = s->mode;
    bsync_le_put64(out + 2, counter);
    uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
    make_nonce(nonce, s->role == BSYNC_SESSION_CLIENT ? 0u : 1u, counter);
    uint8_t* body = out + BSYNC_SESSION_HEADER_BYTES;
    if (s->mode == BSYNC_SESSION_ENCRYPT) {
        unsigned long long clen = 0;
        crypto_aead_xchacha20poly1305_ietf_encrypt(body, &clen, msg, len, out, BSYNC_SESSION_HEADER_BYTES, NULL, nonce,
                                                   s->send_key);
        *out_len = BSYNC_SESSION_HEADER_BYTES + (size_t)clen;
    } else { /* the message in clear, the tag over header and message */
        if (len) memmove(body, msg, len);
        unsigned long long tlen = 0;
        uint8_t none[1] = {0}; /* no message to encrypt: everything is associated data */
        crypto_aead_xchacha20poly1305_ietf_encrypt_detached(none, body + len, &tlen, none, 0, out,
                                                            BSYNC_SESSION_HEADER_BYTES + len, NULL, nonce, s->send_key);
        *out_len = BSYNC_SESSION_HEADER_BYTES + len + (size_t)tlen;
    }
    return BSYNC_OK;
}

/* 1 when counter c may be accepted on its lane (not seen, not older than the lane's window) */
static int window_allows(const bsync_session* s, uint64_t counter) {
    const unsigned l = (unsigned)(counter >> LANE_SHIFT);
    const uint64_t c = counter & LANE_MASK;
    if (l >= BSYNC_SESSION_LANES) return 0;
    if (!s->recv_any[l] || c > s->recv_highest[l]) return 1;
    uint64_t back = s->recv_highest[l] - c;
    if (back >= BSYNC_SESSION_WINDOW) return 0;
    return !((s->recv_window[l] >> back) & 1u);
}

static void window_accept(bsync_session* s, uint64_t counter) {
    const unsigned l = (unsigned)(counter >> LANE_SHIFT);
    const uint64_t c = counter & LANE_MASK;
    if (!s->recv_any[l]) {
        s->recv_any[l] = 1;
        s->recv_highest[l] = c;
        s->recv_window[l] = 1u;
    } else if (c > s->recv_highest[l]) {
        uint64_t shift = c - s->recv_highest[l];
        s->recv_window[l] = shift >= 64u ? 1u : (s->recv_window[l] << shift) | 1u;
        s->recv_highest[l] = c;
    } else {
        s->recv_window[l] |= (uint64_t)1u << (s->recv_highest[l] - c);
    }
}

bsync_session_open_result bsync_session_open(bsync_session* s, const uint8_t* p, size_t len, uint8_t* out, size_t cap,
                                             size_t* out_len) {
    if (!s || !s->ready || !out || !out_len) return BSYNC_SESSION_NOT_SEALED;
    if (!bsync_session_is_sealed(p, len) || p[1] != s->mode) {
        s->not_sealed++;
        return BSYNC_SESSION_NOT_SEALED;
    }
    const size_t mlen = len - BSYNC_SESSION_OVERHEAD;
    if (cap < mlen) return BSYNC_SESSION_NO_ROOM;
    const uint64_t counter = bsync_le_get64(p + 2);
    if (!window_allows(s, counter)) {
        s->replayed++;
        return BSYNC_SESSION_REPLAYED;
    }
    uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
    make_nonce(nonce, s->role == BSYNC_SESSION_CLIENT ? 1u : 0u, counter);
    const uint8_t* body = p + BSYNC_SESSION_HEADER_BYTES;
    int bad;
    if (s->mode == BSYNC_SESSION_ENCRYPT) {
        unsigned long long m = 0;
        bad = crypto_aead_xchacha20poly1305_ietf_decrypt(out, &m, NULL, body, mlen + BSYNC_SESSION_TAG_BYTES, p,
                                                         BSYNC_SESSION_HEADER_BYTES, nonce, s->recv_key) != 0;
    } else {
        uint8_t none[1] = {0};
        bad = crypto_aead_xchacha20poly1305_ietf_decrypt_detached(none, NULL, none, 0, body + mlen, p,
                                                                  BSYNC_SESSION_HEADER_BYTES + mlen, nonce, s->recv_key) != 0;
        if (!bad && mlen) memcpy(out, body, mlen);
    }
    if (bad) {
        s->bad_tag++;
        return BSYNC_SESSION_BAD_TAG;
    }
    window_accept(s, counter);
    s->opened++;
    *out_len = mlen;
    return BSYNC_SESSION_OPENED;
}

void bsync_session_clear(bsync_session* s) {
    if (s) sodium_memzero(s, sizeof *s);
}

#else /* no libsodium: sessions are unavailable, and say so */

int bsync_session_available(void) { return 0; }
bsync_result bsync_session_random(uint8_t* out, size_t n) {
    (void)out, (void)n;
    return BSYNC_INVALID_ARGUMENT;
}
bsync_result bsync_session_derive(bsync_session* s, bsync_session_role role, bsync_session_mode mode,
                                  const uint8_t secret[BSYNC_SESSION_SECRET_BYTES], uint64_t match_id, uint32_t slot,
                                  const uint8_t client_nonce[BSYNC_SESSION_NONCE_BYTES],
                                  const uint8_t server_nonce[BSYNC_SESSION_NONCE_BYTES]) {
    (void)s, (void)role, (void)mode, (void)secret, (void)match_id, (void)slot, (void)client_nonce, (void)server_nonce;
    return BSYNC_INVALID_ARGUMENT;
}
bsync_result bsync_session_seal(bsync_session* s, unsigned lane, const uint8_t* msg, size_t len, uint8_t* out, size_t cap,
                                size_t* out_len) {
    (void)s, (void)lane, (void)msg, (void)len, (void)out, (void)cap, (void)out_len;
    return BSYNC_INVALID_ARGUMENT;
}
bsync_session_open_result bsync_session_open(bsync_session* s, const uint8_t* p, size_t len, uint8_t* out, size_t cap,
                                             size_t* out_len) {
    (void)s, (void)p, (void)len, (void)out, (void)cap, (void)out_len;
    return BSYNC_SESSION_NOT_SEALED;
}
void bsync_session_clear(bsync_session* s) {
    if (s) memset(s, 0, sizeof *s);
}

#endif
