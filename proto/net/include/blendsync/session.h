/* blendsync/session.h — authenticated, optionally encrypted sessions over the wire protocol (issue 18;
 * docs/security.md is the design and the threat model, docs/protocol.md "Sessions" the bytes).
 *
 * The organiser of a match (a lobby; the match file in tests) gives each player slot a 32-byte secret.
 * A client proves it holds its slot's secret without sending it:
 *   client -> server  AUTH_INIT      match id, slot, a fresh 32-byte client nonce        (plain)
 *   server -> client  AUTH_CHALLENGE a fresh 32-byte server nonce                         (plain)
 *   both              bsync_session_derive: keys = BLAKE2b-512 keyed by the secret over
 *                     "blendsync session 1", match id, slot, client nonce, server nonce;
 *                     the first 32 bytes key client -> server, the last 32 server -> client
 *   client -> server  HELLO, sealed: opening it proves the secret (and binds match, slot, both nonces)
 *   server -> client  WELCOME, sealed: the server holds the secret too
 * and every later packet either way is sealed. A sealed packet is
 *   u8 0xB5 marker | u8 mode | u64 LE counter | body | 16-byte tag
 * XChaCha20-Poly1305 (IETF) from libsodium with the 24-byte nonce = u8 direction (0 client -> server,
 * 1 server -> client), 15 zero bytes, u64 LE counter, and the first 10 bytes as associated data. Mode
 * ENCRYPT: the body is the ciphertext of the message. Mode AUTHENTICATE (for readable captures): the
 * body is the message in clear, and the tag authenticates the header and it (all associated data).
 * The counter's top byte is the packet's lane (its ENet channel, 0..BSYNC_SESSION_LANES - 1) and its
 * low 56 bits count that lane's packets from 0, per direction. The receiver accepts a counter only
 * once, and only within 64 of the highest it has accepted on that lane, so a replayed or very late
 * packet is refused. Lanes are independent because ENet's channels are: a reliable packet retransmitted
 * for a second on one channel must not fall behind the window of another channel's traffic (one
 * window over all channels refused such late retransmissions, which ENet had already acknowledged).
 * On a reliable channel (in order) a lane's counters arrive in order; the unreliable INPUT channel
 * may reorder within the window. Overhead: BSYNC_SESSION_OVERHEAD bytes per packet.
 *
 * Pure functions over buffers (no sockets, no clock); the keys never leave the struct. Built with
 * libsodium (BSYNC_HAVE_SODIUM); without it bsync_session_available() is 0 and every call fails with
 * BSYNC_INVALID_ARGUMENT, so a secure match cannot be played by such a build. */
#ifndef BLENDSYNC_SESSION_H
#define BLENDSYNC_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_SESSION_SECRET_BYTES 32u
#define BSYNC_SESSION_NONCE_BYTES 32u
#define BSYNC_SESSION_KEY_BYTES 32u
#define BSYNC_SESSION_MARKER 0xB5u
#define BSYNC_SESSION_HEADER_BYTES 10u /* marker, mode, counter */
#define BSYNC_SESSION_TAG_BYTES 16u
#define BSYNC_SESSION_OVERHEAD (BSYNC_SESSION_HEADER_BYTES + BSYNC_SESSION_TAG_BYTES)
#define BSYNC_SESSION_WINDOW 64u /* counters accepted below the highest one of their lane */
#define BSYNC_SESSION_LANES 8u   /* lanes (ENet channels) per direction */

typedef enum bsync_session_mode {
    BSYNC_SESSION_ENCRYPT = 1,      /* confidential and authenticated (the default) */
    BSYNC_SESSION_AUTHENTICATE = 2  /* authenticated only: readable captures, for debugging */
} bsync_session_mode;

typedef enum bsync_session_role { BSYNC_SESSION_CLIENT = 0, BSYNC_SESSION_SERVER = 1 } bsync_session_role;

typedef enum bsync_session_open_result {
    BSYNC_SESSION_OPENED = 0,
    BSYNC_SESSION_NOT_SEALED, /* no marker, too short, or another mode than the session's */
    BSYNC_SESSION_BAD_TAG,    /* forged, corrupted, or sealed under other keys */
    BSYNC_SESSION_REPLAYED,   /* a counter already accepted, or older than the window */
    BSYNC_SESSION_NO_ROOM     /* the output buffer is smaller than the message */
} bsync_session_open_result;

typedef struct bsync_session {
    uint8_t send_key[BSYNC_SESSION_KEY_BYTES];
    uint8_t recv_key[BSYNC_SESSION_KEY_BYTES];
    uint8_t mode;             /* bsync_session_mode */
    uint8_t role;             /* bsync_session_role */
    uint8_t ready;            /* 1 after bsync_session_derive */
    uint64_t send_counter[BSYNC_SESSION_LANES]; /* each lane's next packet's (low 56 bits) */
    uint64_t recv_highest[BSYNC_SESSION_LANES]; /* highest counter accepted per lane (valid when recv_any) */
    uint64_t recv_window[BSYNC_SESSION_LANES];  /* bit i: recv_highest - i was accepted */
    uint8_t recv_any[BSYNC_SESSION_LANES];
    uint64_t opened, bad_tag, replayed, not_sealed; /* counters of bsync_session_open's results */
} bsync_session;

/* 1 when this build has libsodium (sessions work), else 0. */
BSYNC_API int bsync_session_available(void);
/* n bytes from the operating system's secure random source (libsodium's randombytes). */
BSYNC_API bsync_result bsync_session_random(uint8_t* out, size_t n);
/* Text of 64 hex digits -> 32 bytes. 0 on success, -1 on anything else. */
BSYNC_API int bsync_session_secret_parse(const char* hex, uint8_t out[BSYNC_SESSION_SECRET_BYTES]);

/* The session keys of one connection (see above); counters and window start afresh. */
BSYNC_API bsync_result bsync_session_derive(bsync_session* s, bsync_session_role role, bsync_session_mode mode,
                                            const uint8_t secret[BSYNC_SESSION_SECRET_BYTES], uint64_t match_id,
                                            uint32_t slot, const uint8_t client_nonce[BSYNC_SESSION_NONCE_BYTES],
                                            const uint8_t server_nonce[BSYNC_SESSION_NONCE_BYTES]);
/* Seals msg (len bytes) on `lane` (< BSYNC_SESSION_LANES: the ENet channel it is sent on) into out
 * (len + BSYNC_SESSION_OVERHEAD bytes; BSYNC_BUFFER_TOO_SMALL else). */
BSYNC_API bsync_result bsync_session_seal(bsync_session* s, unsigned lane, const uint8_t* msg, size_t len, uint8_t* out,
                                          size_t cap, size_t* out_len);
/* Opens a sealed packet into out (the message, len - BSYNC_SESSION_OVERHEAD bytes). The replay window
 * moves only for a packet whose tag is right. Every result is counted in the struct. */
BSYNC_API bsync_session_open_result bsync_session_open(bsync_session* s, const uint8_t* packet, size_t len, uint8_t* out,
                                                       size_t cap, size_t* out_len);
/* 1 when the packet starts like a sealed one (marker and length): plain messages start with "BS". */
BSYNC_API int bsync_session_is_sealed(const uint8_t* packet, size_t len);
/* Clears the keys (sodium_memzero) and the struct. */
BSYNC_API void bsync_session_clear(bsync_session* s);
BSYNC_API const char* bsync_session_open_result_string(bsync_session_open_result r);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SESSION_H */
