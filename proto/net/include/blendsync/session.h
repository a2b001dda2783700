/* blendsync/session.h — authenticated, optionally encrypted sessions over the wire protocol: pure
 * functions over buffers (libsodium; without it every call fails).
 *
 * Index
 *   bsync_session, bsync_session_mode, bsync_session_role   one connection's keys and counters
 *   bsync_session_available, bsync_session_random, bsync_session_secret_parse
 *   bsync_session_derive          the keys from the slot's secret and both nonces
 *   bsync_session_seal / _open    one packet (bsync_session_open_result)
 *   bsync_session_is_sealed, bsync_session_clear, bsync_session_open_result_string
 *
 * design: docs/protocol.md#sessions-version-6 (bytes), docs/security.md (threat model)
 */
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
#define BSYNC_SESSION_HEADER_BYTES 10u
#define BSYNC_SESSION_TAG_BYTES 16u
#define BSYNC_SESSION_OVERHEAD (BSYNC_SESSION_HEADER_BYTES + BSYNC_SESSION_TAG_BYTES) /* the most seal adds */
/* Compact form (protocol 7 messages): 0xC0 | authenticate << 3 | lane, u16 counter low bits; the
 * message's 8-byte header shrinks to its type byte. Sealed = message + 12 bytes. */
#define BSYNC_SESSION_COMPACT_FORM 0xC0u
#define BSYNC_SESSION_COMPACT_VERSION 7u
#define BSYNC_SESSION_COMPACT_HEADER_BYTES 3u
#define BSYNC_SESSION_COMPACT_OVERHEAD (BSYNC_SESSION_COMPACT_HEADER_BYTES + BSYNC_SESSION_TAG_BYTES)
#define BSYNC_SESSION_WINDOW 64u
#define BSYNC_SESSION_LANES 8u   /* ENet channels */

typedef enum bsync_session_mode {
    BSYNC_SESSION_ENCRYPT = 1,
    BSYNC_SESSION_AUTHENTICATE = 2  /* readable */
} bsync_session_mode;

typedef enum bsync_session_role { BSYNC_SESSION_CLIENT = 0, BSYNC_SESSION_SERVER = 1 } bsync_session_role;

typedef enum bsync_session_open_result {
    BSYNC_SESSION_OPENED = 0,
    BSYNC_SESSION_NOT_SEALED,
    BSYNC_SESSION_BAD_TAG,
    BSYNC_SESSION_REPLAYED,
    BSYNC_SESSION_NO_ROOM
} bsync_session_open_result;

typedef struct bsync_session {
    uint8_t send_key[BSYNC_SESSION_KEY_BYTES];
    uint8_t recv_key[BSYNC_SESSION_KEY_BYTES];
    uint8_t mode;
    uint8_t role;
    uint8_t ready;            /* 1 after derive */
    uint64_t send_counter[BSYNC_SESSION_LANES];
    uint64_t recv_highest[BSYNC_SESSION_LANES];
    uint64_t recv_window[BSYNC_SESSION_LANES];  /* bit i: recv_highest - i accepted */
    uint8_t recv_any[BSYNC_SESSION_LANES];
    uint64_t opened, bad_tag, replayed, not_sealed; /* open's results */
} bsync_session;

BSYNC_API int bsync_session_available(void);
BSYNC_API bsync_result bsync_session_random(uint8_t* out, size_t n);
/* 64 hex digits; 0, or -1. */
BSYNC_API int bsync_session_secret_parse(const char* hex, uint8_t out[BSYNC_SESSION_SECRET_BYTES]);

BSYNC_API bsync_result bsync_session_derive(bsync_session* s, bsync_session_role role, bsync_session_mode mode,
                                            const uint8_t secret[BSYNC_SESSION_SECRET_BYTES], uint64_t match_id,
                                            uint32_t slot, const uint8_t client_nonce[BSYNC_SESSION_NONCE_BYTES],
                                            const uint8_t server_nonce[BSYNC_SESSION_NONCE_BYTES]);
/* cap >= len + BSYNC_SESSION_OVERHEAD; lane: the ENet channel. A plain version 7 message (flags 0)
 * goes compact (len + 12 bytes), anything else long (len + 26). */
BSYNC_API bsync_result bsync_session_seal(bsync_session* s, unsigned lane, const uint8_t* msg, size_t len, uint8_t* out,
                                          size_t cap, size_t* out_len);
/* The window moves only for a right tag; every result is counted. */
BSYNC_API bsync_session_open_result bsync_session_open(bsync_session* s, const uint8_t* packet, size_t len, uint8_t* out,
                                                       size_t cap, size_t* out_len);
BSYNC_API int bsync_session_is_sealed(const uint8_t* packet, size_t len);
/* The lane a sealed packet claims (unauthenticated until opened); -1 if not sealed. */
BSYNC_API int bsync_session_lane(const uint8_t* packet, size_t len);
BSYNC_API void bsync_session_clear(bsync_session* s);
BSYNC_API const char* bsync_session_open_result_string(bsync_session_open_result r);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SESSION_H */
