/* blendsync/client.h — the client library a game links: connect, send this tick's input, apply
 * confirmed frames to the local match one tick each, send checksums, answer desyncs, reload snapshots.
 * No threads: call bsync_client_service every frame. Edge code (allocates at create, ENet, clock).
 *
 * Index
 *   bsync_client_config             where to connect, which slot, the local match desc, replay, dumps,
 *                                   prediction (.predict: blendsync/client_predict.h)
 *   bsync_client_create / _destroy  connect (non-blocking) / say BYE and free
 *   bsync_client_service            pump the network: no threads, call it every frame (timeout 0 is fine)
 *   bsync_client_send_input, _send_input_payload   this tick's input (assigned to the next input tick)
 *   bsync_client_frame_payload      a game payload of a recent frame
 *   bsync_client_poll_event         what happened (welcome, frames applied, desync, resync, bye)
 *   bsync_client_set_packet_hook    every packet as bytes on the wire (captures)
 *   bsync_client_set_frame_hook     called after every frame applied (a game's per-tick step)
 *   bsync_client_match              the local match: poses for rendering (bsync_match_instance + instance.h)
 *   bsync_client_get_state, bsync_client_get_stats, bsync_client_tick_rate, bsync_client_input_delay
 *   bsync_client_time_since_frame_ns, bsync_client_present_alpha   rendering between ticks
 *   bsync_present_clock             the same clock without a client (a game with its own loop)
 *
 * design: docs/client.md (config, events, stats, calls), docs/lockstep.md (the session)
 */
#ifndef BLENDSYNC_CLIENT_H
#define BLENDSYNC_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/client_predict.h"
#include "blendsync/match.h"
#include "blendsync/present.h"
#include "blendsync/proto.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_client_config {
    const char* host;
    uint16_t port;
    uint64_t match_id;
    uint8_t slot;
    const uint8_t* token;   /* 1..32 bytes */
    uint32_t token_len;
    const bsync_match_desc* desc; /* the server's; graphs outlive the client */
    int compute_poses;      /* 1: pose checksums too */
    uint32_t connect_timeout_ms; /* 0 -> 5000 */
    /* Optional (docs/client.md): own replay, sync test, desync dumps, reconnect, session. */
    const char* replay_path;
    const struct bsync_replay_header* replay_header;
    uint32_t synctest_distance; /* 0 = off */
    const char* desync_dir;
    const struct bsync_match_config* names;
    uint32_t reconnect_timeout_ms; /* 0 -> 10000 */
    int reconnect_off;
    const uint8_t* secret; /* 32 bytes, copied; NULL: plain token (insecure) */
    uint32_t session_mode; /* 1 encrypt (0 -> 1), 2 authenticate only */
    bsync_client_predict_config predict; /* prediction and rollback (client_predict.h); zero: lockstep */
    uint32_t protocol_version; /* 0 -> BSYNC_PROTO_VERSION; BSYNC_PROTO_VERSION_MIN.. (docs/protocol.md) */
} bsync_client_config;

typedef enum bsync_client_state {
    BSYNC_CLIENT_CONNECTING = 0,
    BSYNC_CLIENT_JOINING = 1,
    BSYNC_CLIENT_RUNNING = 2,
    BSYNC_CLIENT_ENDED = 3
} bsync_client_state;

typedef enum bsync_client_event_type {
    BSYNC_CLIENT_EVENT_WELCOME = 1,
    BSYNC_CLIENT_EVENT_FRAME = 2,
    BSYNC_CLIENT_EVENT_CHECKSUM = 3,
    BSYNC_CLIENT_EVENT_DESYNC = 4,
    BSYNC_CLIENT_EVENT_RESYNC = 5,
    BSYNC_CLIENT_EVENT_BYE = 6,
    BSYNC_CLIENT_EVENT_DISCONNECTED = 7,
    BSYNC_CLIENT_EVENT_SYNCTEST = 8,
    BSYNC_CLIENT_EVENT_INCOMPLETE = 9, /* the session ended before every frame was applied */
    BSYNC_CLIENT_EVENT_START = 10,
    BSYNC_CLIENT_EVENT_RECONNECTING = 11
} bsync_client_event_type;

typedef struct bsync_client_event {
    bsync_client_event_type type;
    uint32_t tick;
    uint32_t bye_reason;
    uint16_t defaulted_mask;     /* FRAME */
    uint32_t end_ticks;          /* INCOMPLETE */
    bsync_proto_desync desync;   /* DESYNC, SYNCTEST */
} bsync_client_event;

typedef struct bsync_client_stats {
    uint64_t frames_applied;
    uint64_t inputs_sent;
    uint64_t checksums_sent;
    uint64_t desyncs;
    uint64_t resyncs;
    uint64_t frames_defaulted_self;
    uint64_t bytes_sent, bytes_received;
    uint32_t rtt_ms;
    uint32_t next_frame_tick;
    uint32_t server_tick;
    uint64_t last_blend, last_pose;
    uint32_t last_checksum_tick;
    uint64_t synctest_checks, synctest_mismatches;
    uint32_t end_ticks;
    uint32_t incomplete;
    uint64_t frames_missing;
    uint64_t frames_early;
    uint64_t frames_received;
    uint32_t frames_received_upto;
    uint64_t connect_attempts;
    uint32_t start_known;
    uint32_t start_tick;
    uint64_t start_deadline_us; /* bsync_net_now_us's clock */
    uint64_t reconnects;
    uint64_t resumes;
    uint64_t resumes_snapshot;
    uint64_t sessions_opened;
    uint64_t sealed_rejected;
} bsync_client_stats;

typedef struct bsync_client bsync_client;

/* Starts connecting, returns at once. BSYNC_IO_ERROR, BSYNC_INVALID_ARGUMENT. */
BSYNC_API bsync_result bsync_client_create(const bsync_client_config* config, bsync_client** out, bsync_error* err);
/* BYE NORMAL if connected, then free. */
BSYNC_API void bsync_client_destroy(bsync_client* client);
/* Every packet's wire bytes, sent (1) or received (0), from inside service; NULL removes it. */
typedef void (*bsync_client_packet_hook)(void* user, int sent, unsigned channel, const uint8_t* data, size_t len);
BSYNC_API void bsync_client_set_packet_hook(bsync_client* client, bsync_client_packet_hook hook, void* user);

/* After each frame is applied, before its checksums; must not change the match. */
typedef void (*bsync_client_frame_hook)(void* user, bsync_match* match, uint32_t tick);
BSYNC_API void bsync_client_set_frame_hook(bsync_client* client, bsync_client_frame_hook hook, void* user);

/* At most timeout_ms (0: only what is waiting). */
BSYNC_API bsync_result bsync_client_service(bsync_client* client, uint32_t timeout_ms);

/* *assigned_tick (may be NULL): the tick it is for. BSYNC_INVALID_ARGUMENT, BSYNC_LIMIT_EXCEEDED. */
BSYNC_API bsync_result bsync_client_send_input(bsync_client* client, const bsync_match_input* input, uint32_t* assigned_tick);
/* With a game payload (0..payload_max bytes) relayed in the frame. */
BSYNC_API bsync_result bsync_client_send_input_payload(bsync_client* client, const bsync_match_input* input, const void* payload,
                                             uint32_t payload_len, uint32_t* assigned_tick);
/* Its length, copied into out; -1 when the frame is not held. */
BSYNC_API int bsync_client_frame_payload(const bsync_client* client, uint32_t tick, uint32_t slot, void* out, uint32_t cap);

/* 1 when an event was waiting (oldest first). */
BSYNC_API int bsync_client_poll_event(bsync_client* client, bsync_client_event* out);

BSYNC_API bsync_client_state bsync_client_get_state(const bsync_client* client);
BSYNC_API bsync_match* bsync_client_match(bsync_client* client);
BSYNC_API void bsync_client_get_stats(const bsync_client* client, bsync_client_stats* out);
BSYNC_API uint32_t bsync_client_tick_rate(const bsync_client* client);  /* 0 before the WELCOME */
BSYNC_API uint32_t bsync_client_input_delay(const bsync_client* client);

/* ---- rendering between ticks: docs/presentation.md#the-render-loop. Pure functions of the times. */
typedef struct bsync_present_clock {
    uint32_t tick_rate;   /* 0: alpha is always 0 */
    uint32_t started;
    uint64_t tick;
    uint64_t frame_ns;
    uint64_t last_ns;
    int64_t shown;        /* 2^-16 ticks */
    uint64_t rem;
} bsync_present_clock;
BSYNC_API void bsync_present_clock_init(bsync_present_clock* clock, uint32_t tick_rate);
/* The match is at `tick` since now_ns. */
BSYNC_API void bsync_present_clock_frame(bsync_present_clock* clock, uint64_t tick, uint64_t now_ns);
/* In [0, BSYNC_PRESENT_ALPHA_MAX]; 0 before the first frame. */
BSYNC_API fix16_t bsync_present_clock_alpha(bsync_present_clock* clock, uint64_t now_ns);

/* 0 before the first frame. */
BSYNC_API uint64_t bsync_client_time_since_frame_ns(const bsync_client* client);
/* The fraction of a tick to render at now; 0 before the first frame. */
BSYNC_API fix16_t bsync_client_present_alpha(bsync_client* client);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CLIENT_H */
