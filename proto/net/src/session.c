/* session.c — authenticated sessions (blendsync/session.h) over libsodium. */
#include "blendsync/session.h"

#include <string.h>

#include "hex.h" /* the platform library's (shared/src/io/platform) */
#include "blendsync/proto.h"
#include "internal/le.h"

#ifdef BSYNC_HAVE_SODIUM
#include <sodium.h>
#endif

int bsync_session_secret_parse(const char* hex, uint8_t out[BSYNC_SESSION_SECRET_BYTES]) {
    return bsync_io_hex_decode(hex, out, BSYNC_SESSION_SECRET_BYTES);
}

/* the compact form: 0xC0 | authenticate << 3 | lane, u16 LE low bits of the counter */
static int is_compact(const uint8_t* p, size_t len) {
    return p && len >= BSYNC_SESSION_COMPACT_OVERHEAD + 1u && (p[0] & 0xF0u) == BSYNC_SESSION_COMPACT_FORM;
}

static int is_long(const uint8_t* p, size_t len) {
    return p && len >= BSYNC_SESSION_OVERHEAD && p[0] == BSYNC_SESSION_MARKER;
}

int bsync_session_is_sealed(const uint8_t* p, size_t len) { return is_long(p, len) || is_compact(p, len); }

int bsync_session_lane(const uint8_t* p, size_t len) {
    if (is_compact(p, len)) return (int)(p[0] & 7u);
    return is_long(p, len) ? (int)p[2 + 7] : -1; /* the counter is u64 LE at offset 2 */
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

/* 1 when msg is a plain version 7 message the compact form can carry: "BS", version 7, flags 0, the
 * body length that of the rest */
static int compactable(const uint8_t* msg, size_t len) {
    return len >= BSYNC_PROTO_HEADER_SIZE && len - BSYNC_PROTO_HEADER_SIZE <= 0xFFFFu && msg[0] == BSYNC_PROTO_MAGIC0 &&
           msg[1] == BSYNC_PROTO_MAGIC1 && msg[2] == BSYNC_SESSION_COMPACT_VERSION && bsync_le_get16(msg + 4) == len - 8u &&
           bsync_le_get16(msg + 6) == 0u;
}


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

/* The compact form (version 7 messages): the header's "BS", version, body length and flags are implied,
 * the type travels inside the seal, and the counter's low 16 bits stand for all 56 (the nonce and so the
 * tag cover all of them). out has room: cap >= len + BSYNC_SESSION_OVERHEAD was checked. */
static bsync_result seal_compact(bsync_session* s, unsigned lane, uint64_t counter, const uint8_t* nonce,
                                 const uint8_t* msg, size_t len, uint8_t* out, size_t* out_len) {
    const size_t body = len - BSYNC_PROTO_HEADER_SIZE;
    out[0] = (uint8_t)(BSYNC_SESSION_COMPACT_FORM | (s->mode == BSYNC_SESSION_AUTHENTICATE ? 8u : 0u) | lane);
    bsync_le_put16(out + 1, (uint32_t)(counter & 0xFFFFu));
    uint8_t* inner = out + BSYNC_SESSION_COMPACT_HEADER_BYTES; /* type, then the body */
    memmove(inner + 1, msg + BSYNC_PROTO_HEADER_SIZE, body);   /* msg may be out: move before the type byte lands */
    inner[0] = msg[3];
    unsigned long long n = 0;
    if (s->mode == BSYNC_SESSION_ENCRYPT) {
        crypto_aead_xchacha20poly1305_ietf_encrypt(inner, &n, inner, 1u + body, out, BSYNC_SESSION_COMPACT_HEADER_BYTES,
                                                   NULL, nonce, s->send_key);
        *out_len = BSYNC_SESSION_COMPACT_HEADER_BYTES + (size_t)n;
    } else {
        uint8_t none[1] = {0};
        crypto_aead_xchacha20poly1305_ietf_encrypt_detached(none, inner + 1u + body, &n, none, 0, out,
                                                            BSYNC_SESSION_COMPACT_HEADER_BYTES + 1u + body, NULL, nonce,
                                                            s->send_key);
        *out_len = BSYNC_SESSION_COMPACT_HEADER_BYTES + 1u + body + (size_t)n;
    }
    return BSYNC_OK;
}

/* The full counter of a compact packet on lane l: of the values with these low 16 bits, the one
 * nearest the next expected (RFC 9000 A.3). A wrong guess only fails the tag. */
static uint64_t compact_counter(const bsync_session* s, unsigned l, uint32_t low) {
    const uint64_t expected = s->recv_any[l] ? s->recv_highest[l] + 1u : 0u;
    const uint64_t win = UINT64_C(0x10000), half = win / 2u;
    uint64_t c = (expected & ~(win - 1u)) | low;
    if (c + half <= expected && c + win <= LANE_MASK) c += win;
    else if (c > expected + half && c >= win) c -= win;
    return (uint64_t)l << LANE_SHIFT | c;
}

bsync_result bsync_session_seal(bsync_session* s, unsigned lane, const uint8_t* msg, size_t len, uint8_t* out, size_t cap,
                                size_t* out_len) {
    if (!s || !s->ready || (!msg && len) || !out || !out_len || lane >= BSYNC_SESSION_LANES) return BSYNC_INVALID_ARGUMENT;
    if (cap < len + BSYNC_SESSION_OVERHEAD) return BSYNC_BUFFER_TOO_SMALL;
    if (s->send_counter[lane] == LANE_MASK) return BSYNC_LIMIT_EXCEEDED; /* never reuse a nonce */
    const uint64_t counter = (uint64_t)lane << LANE_SHIFT | s->send_counter[lane]++;
    uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
    make_nonce(nonce, s->role == BSYNC_SESSION_CLIENT ? 0u : 1u, counter);
    if (compactable(msg, len)) return seal_compact(s, lane, counter, nonce, msg, len, out, out_len);
    out[0] = BSYNC_SESSION_MARKER;
    out[1] = s->mode;
    bsync_le_put64(out + 2, counter);
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

static bsync_session_open_result open_compact(bsync_session* s, const uint8_t* p, size_t len, uint8_t* out, size_t cap,
                                              size_t* out_len) {
    if (((p[0] & 8u) ? BSYNC_SESSION_AUTHENTICATE : BSYNC_SESSION_ENCRYPT) != s->mode) {
        s->not_sealed++;
        return BSYNC_SESSION_NOT_SEALED;
    }
    const size_t body = len - BSYNC_SESSION_COMPACT_OVERHEAD - 1u; /* after the type byte */
    if (body > 0xFFFFu) {
        s->not_sealed++;
        return BSYNC_SESSION_NOT_SEALED;
    }
    if (cap < BSYNC_PROTO_HEADER_SIZE + body) return BSYNC_SESSION_NO_ROOM;
    const unsigned lane = p[0] & 7u;
    const uint64_t counter = compact_counter(s, lane, bsync_le_get16(p + 1));
    if (!window_allows(s, counter)) {
        s->replayed++;
        return BSYNC_SESSION_REPLAYED;
    }
    uint8_t nonce[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES];
    make_nonce(nonce, s->role == BSYNC_SESSION_CLIENT ? 1u : 0u, counter);
    const uint8_t* inner = p + BSYNC_SESSION_COMPACT_HEADER_BYTES;
    uint8_t* dst = out + BSYNC_PROTO_HEADER_SIZE - 1u; /* the type lands at offset 3, the body at 8 */
    int bad;
    if (s->mode == BSYNC_SESSION_ENCRYPT) {
        unsigned long long m = 0;
        bad = crypto_aead_xchacha20poly1305_ietf_decrypt(dst, &m, NULL, inner, 1u + body + BSYNC_SESSION_TAG_BYTES, p,
                                                         BSYNC_SESSION_COMPACT_HEADER_BYTES, nonce, s->recv_key) != 0;
    } else {
        uint8_t none[1] = {0};
        bad = crypto_aead_xchacha20poly1305_ietf_decrypt_detached(none, NULL, none, 0, inner + 1u + body, p,
                                                                  BSYNC_SESSION_COMPACT_HEADER_BYTES + 1u + body, nonce,
                                                                  s->recv_key) != 0;
        if (!bad) memcpy(dst, inner, 1u + body);
    }
    if (bad) {
        s->bad_tag++;
        return BSYNC_SESSION_BAD_TAG;
    }
    window_accept(s, counter);
    s->opened++;
    out[3] = dst[0];
    out[0] = BSYNC_PROTO_MAGIC0;
    out[1] = BSYNC_PROTO_MAGIC1;
    out[2] = BSYNC_SESSION_COMPACT_VERSION;
    bsync_le_put16(out + 4, (uint32_t)body);
    bsync_le_put16(out + 6, 0u);
    *out_len = BSYNC_PROTO_HEADER_SIZE + body;
    return BSYNC_SESSION_OPENED;
}

bsync_session_open_result bsync_session_open(bsync_session* s, const uint8_t* p, size_t len, uint8_t* out, size_t cap,
                                             size_t* out_len) {
    if (!s || !s->ready || !out || !out_len) return BSYNC_SESSION_NOT_SEALED;
    if (is_compact(p, len)) return open_compact(s, p, len, out, cap, out_len);
    if (!is_long(p, len) || p[1] != s->mode) {
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
