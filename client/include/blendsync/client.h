/* blendsync/client.h — the client library a game links: connect to a blendsync server, send this
 * tick's input, receive confirmed frames and advance the local match exactly one tick per frame,
 * send checksums, answer desync notices, reload snapshots (late join, resync). docs/lockstep.md is
 * the session this library follows.
 *
 * Index
 *   bsync_client_config             where to connect, which slot, the local match desc, replay, dumps
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
 * Without a server: a game with its own lockstep loop needs none of this — bsync_match (match.h)
 * is the whole simulation; it gets the same checksums and can still be verified by a server.
 *
 * Transport: the session runs on a port (client/lib/client_transport.h, not installed); the client
 * here is its ENet adapter. Loss, delay and reordering for tests come from a relay between client and
 * server (tests/net/net_relay.h, the bsync_udp_relay program), planted faults from a testing header
 * (client/lib/client_testing.h), neither from this API (docs/lockstep.md "Transport").
 *
 * Edge code: allocates at create, uses ENet sockets and the clock. The match it runs is the core's.
 */
#ifndef BLENDSYNC_CLIENT_H
#define BLENDSYNC_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/match.h"
#include "blendsync/present.h"
#include "blendsync/proto.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_client_config {
    const char* host;       /* e.g. "127.0.0.1" */
    uint16_t port;
    uint64_t match_id;
    uint8_t slot;
    const uint8_t* token;   /* 1..32 bytes */
    uint32_t token_len;
    const bsync_match_desc* desc; /* the match (same config as the server's); graphs outlive the client */
    int compute_poses;      /* 1: pose checksums too (what a rendering client has anyway) */
    uint32_t connect_timeout_ms; /* 0 -> 5000. Without a WELCOME 2 s into an attempt (or after a refused
                                    or dropped attempt, 1 s later) the client connects again, until then */
    /* The client's own view as a replay (io/replay.h), optional: every frame it applies, the checksums
     * it sends (with the pose when compute_poses), a SNAPSHOT first when it joined late, END when the
     * match ends or the client leaves. replay_header: as bsync_match_config_replay_header gives it (the
     * client sets start_tick from the WELCOME); both NULL: no replay. A resync cannot be expressed in
     * an append-only replay: the file then ends there (END reason 2, aborted). */
    const char* replay_path;
    const struct bsync_replay_header* replay_header;
    /* Sync test while playing (GGPO's idea; docs/synctest.md): after every frame, the state of
     * synctest_distance ticks earlier (1..16; 0 = off) is reloaded into a second match, those frames
     * are applied again, and its blend checksum (and pose checksum with compute_poses) must equal the
     * live match's; a difference is an event BSYNC_CLIENT_EVENT_SYNCTEST (tick, both checksums) and a
     * counter. It catches hidden state and order dependence on this machine, at the cost of D extra
     * ticks per tick. */
    uint32_t synctest_distance;
    /* Always: the client keeps its state at the start of each of the last 64 ticks (bsync_match_save
     * into a ring; about 1.8 us per tick for 6 demo characters) and, when the server reports a desync
     * of this client, uploads the desynced character's states since the last agreeing checksum tick
     * (a trail, io/trail.h, at most BSYNC_PROTO_MAX_TRAIL bytes) before its DUMP, so the server can
     * name the first divergent tick and operation (io/desync.h, bsync_desync_trace).
     * The client's own desync dump, optional (docs/lockstep.md "Desync bundles"): when the server
     * reports a desync of this client (any action but DETAIL), the client writes
     * <desync_dir>/tick<T>-slot<S>/ with client.bsms (its state after frame T, the one it uploads),
     * client-previous.bsms (its state at the last agreeing checksum tick, T - interval, while its ring
     * of the last 64 ticks holds it), client-trail.bstrail (the trail it uploads), inputs.csv (the
     * frames in between, as the server's bundle has them) and desync.txt (the server's verdict). Each
     * file through a temporary name and rename. desync_dir NULL: none. names (optional): the match
     * config, for the input names in inputs.csv (else param0.., trigger0..). */
    const char* desync_dir;
    const struct bsync_match_config* names;
    /* Reconnect and resume (docs/lockstep.md "Reconnect and resume"): when the connection drops after
     * the WELCOME and before the match is over (no END, no BYE MATCH_OVER/SHUTDOWN yet), the client
     * connects again by itself (event RECONNECTING, state CONNECTING meanwhile) and sends a HELLO that
     * asks to resume from its next frame; the server sends the frames it missed (if its ring of 256
     * frames still holds them; else a snapshot) and play goes on. Attempts: a new one when no WELCOME
     * came 2 s into an attempt, or 1 s after one was refused or dropped, until reconnect_timeout_ms has
     * passed since the drop (0 -> 10000: about 5 to 10 attempts); then INCOMPLETE and DISCONNECTED
     * as before. reconnect_off = 1: no reconnect (a drop ends the session at once). */
    uint32_t reconnect_timeout_ms;
    int reconnect_off;
    /* An authenticated session (blendsync/session.h, docs/security.md; protocol version 6): the slot's
     * 32-byte secret from the match's organiser (the match config's "secret"), copied at create. The
     * client proves it without sending it (AUTH_INIT, AUTH_CHALLENGE, a sealed HELLO) and seals every
     * packet after; packets from the server that do not open are dropped and counted. NULL: the plain
     * token alone (insecure: anyone who sees the HELLO can take the slot). */
    const uint8_t* secret;
    uint32_t session_mode; /* with a secret: 1 encrypt (0 -> 1), 2 authenticate only (readable captures) */
} bsync_client_config;

typedef enum bsync_client_state {
    BSYNC_CLIENT_CONNECTING = 0, /* ENet connect / HELLO sent (again while reconnecting) */
    BSYNC_CLIENT_JOINING = 1,    /* WELCOME received; waiting for the snapshot or the first frame */
    BSYNC_CLIENT_RUNNING = 2,    /* applying frames */
    BSYNC_CLIENT_ENDED = 3       /* BYE received, disconnected, or failed to connect */
} bsync_client_state;

typedef enum bsync_client_event_type {
    BSYNC_CLIENT_EVENT_WELCOME = 1,   /* tick = start tick */
    BSYNC_CLIENT_EVENT_FRAME = 2,     /* tick = the frame just applied (one event per frame) */
    BSYNC_CLIENT_EVENT_CHECKSUM = 3,  /* tick = the frame after which checksums were sent */
    BSYNC_CLIENT_EVENT_DESYNC = 4,    /* desync = the server's notice */
    BSYNC_CLIENT_EVENT_RESYNC = 5,    /* tick = the snapshot's tick, loaded */
    BSYNC_CLIENT_EVENT_BYE = 6,       /* bye_reason; the client is ENDED */
    BSYNC_CLIENT_EVENT_DISCONNECTED = 7, /* the connection dropped or never came up */
    BSYNC_CLIENT_EVENT_SYNCTEST = 8,     /* tick; desync.expected = live checksum, desync.got = re-simulated */
    /* The session ended before this client applied every frame of the match (a BYE other than the
     * end of the match, a dropped connection that could not be reconnected within reconnect_timeout_ms,
     * or the server's END naming frames it never got): tick =
     * the first frame not applied, end_ticks = the match's frame count when known (else 0),
     * bye_reason = why it ended (BSYNC_PROTO_BYE_*, or BSYNC_PROTO_BYE_TIMEOUT for a dropped
     * connection). Comes just before the BYE / DISCONNECTED event; stats.incomplete is then 1 and the
     * client's replay ends with reason 2 (aborted), never "normal". */
    BSYNC_CLIENT_EVENT_INCOMPLETE = 9,
    /* START (protocol version 3): the server's tick clock is known. tick = the start tick;
     * stats.start_deadline_us = when the server confirms it, on bsync_net_now_us's clock. */
    BSYNC_CLIENT_EVENT_START = 10,
    /* The connection dropped mid-match and the client is connecting again by itself (client config
     * reconnect_timeout_ms): tick = its next frame. A WELCOME event follows when it is back (tick = where
     * it resumes; stats.resumes or stats.resumes_snapshot tell how), or INCOMPLETE + DISCONNECTED. */
    BSYNC_CLIENT_EVENT_RECONNECTING = 11
} bsync_client_event_type;

typedef struct bsync_client_event {
    bsync_client_event_type type;
    uint32_t tick;
    uint32_t bye_reason;
    uint16_t defaulted_mask;     /* FRAME: the frame's */
    uint32_t end_ticks;          /* INCOMPLETE: the match's frame count when known (END), else 0 */
    bsync_proto_desync desync;   /* DESYNC */
} bsync_client_event;

typedef struct bsync_client_stats {
    uint64_t frames_applied;
    uint64_t inputs_sent;
    uint64_t checksums_sent;
    uint64_t desyncs;
    uint64_t resyncs;
    uint64_t frames_defaulted_self; /* frames where this slot's input was defaulted */
    uint64_t bytes_sent, bytes_received; /* payload bytes of blendsync packets */
    uint32_t rtt_ms;            /* ENet's mean round-trip time */
    uint32_t next_frame_tick;   /* the next frame to apply */
    uint32_t server_tick;       /* the server's next confirm tick, as last heard */
    uint64_t last_blend, last_pose; /* checksums after the last checksum tick */
    uint32_t last_checksum_tick;
    uint64_t synctest_checks, synctest_mismatches; /* with synctest_distance */
    /* The end of the match (docs/lockstep.md "Leaving and ending"): END carries the match's frame count;
     * the client ends only once it has applied every frame below it. */
    uint32_t end_ticks;        /* from END (0: not received) */
    uint32_t incomplete;       /* 1: the session ended before every frame was applied (EVENT_INCOMPLETE) */
    uint64_t frames_missing;   /* then: frames of the match not applied (END's count, else the newest
                                  tick heard of, minus the next frame to apply) */
    uint64_t frames_early;     /* frames that arrived before the WELCOME (held, then applied) */
    uint64_t frames_received;  /* FRAME messages received (all, early ones included) */
    uint32_t frames_received_upto; /* one past the newest frame tick received */
    uint64_t connect_attempts; /* connections begun again because no WELCOME came within 2 s */
    /* START: the server's tick clock */
    uint32_t start_known;
    uint32_t start_tick;
    uint64_t start_deadline_us; /* the deadline of start_tick, on bsync_net_now_us's clock (one-way delay
                                   estimated as half the round-trip time) */
    /* reconnects after a dropped connection (client config reconnect_timeout_ms) */
    uint64_t reconnects;        /* times the connection dropped mid-match and the client began reconnecting */
    uint64_t resumes;           /* reconnects the server served with the missed frames (state kept) */
    uint64_t resumes_snapshot;  /* reconnects the server served with a snapshot (frames no longer held) */
    uint64_t sessions_opened;   /* connections whose authenticated session got its WELCOME (sealed) */
    uint64_t sealed_rejected;   /* packets from the server that did not open (bad tag, replayed, plain)
                                   on an authenticated session: dropped. One on a reliable channel after
                                   the WELCOME (ENet acknowledged it: its genuine message is lost) makes
                                   the client reconnect and resume (counted in reconnects) */
} bsync_client_stats;

typedef struct bsync_client bsync_client;

/* Allocates the client and its match, starts connecting (returns at once). IO_ERROR when ENet
 * cannot start or the address does not resolve; INVALID_ARGUMENT for a bad config. */
BSYNC_API bsync_result bsync_client_create(const bsync_client_config* config, bsync_client** out, bsync_error* err);
/* Sends BYE NORMAL if connected, flushes, frees. NULL ignored. */
BSYNC_API void bsync_client_destroy(bsync_client* client);
/* Every blendsync packet this client sends or receives, as bytes on the wire (header included), with
 * its ENet channel: sent = 1 for outgoing (at the moment it is handed to ENet), 0 for incoming
 * (before it is decoded, so malformed packets too). For captures
 * (`blendsync bot --capture`, docs/protocol.md "Captures") and debugging; set it right after
 * bsync_client_create to see the HELLO. NULL removes it. Called from inside bsync_client_service. */
typedef void (*bsync_client_packet_hook)(void* user, int sent, unsigned channel, const uint8_t* data, size_t len);
BSYNC_API void bsync_client_set_packet_hook(bsync_client* client, bsync_client_packet_hook hook, void* user);

/* Called right after each frame is applied to the local match (bsync_client_match), before the
 * client computes and sends that tick's checksums: tick = the frame's tick. One call per frame, in
 * order, from inside bsync_client_service, also when several frames are applied in one pass (a game
 * that reads per-tick state, e.g. each tick's root motion, reads it here). The match must not be
 * changed: a change is a desync, reported at the next checksum tick (what `blendsync bot
 * --inject-desync` does on purpose). NULL removes it. */
typedef void (*bsync_client_frame_hook)(void* user, bsync_match* match, uint32_t tick);
BSYNC_API void bsync_client_set_frame_hook(bsync_client* client, bsync_client_frame_hook hook, void* user);

/* Pump the network for at most timeout_ms (0: only what is waiting): receive and handle every
 * message, apply every frame that can be applied, send checksums. */
BSYNC_API bsync_result bsync_client_service(bsync_client* client, uint32_t timeout_ms);

/* Queue this tick's input: it goes to the server for tick max(last + 1, b + input delay + lead)
 * (*assigned_tick, may be NULL), b the server's next tick as this client knows it — the larger of the
 * newest server tick heard and the server's clock since START on this client's clock — and lead the
 * extra ticks a path longer than the input delay needs (docs/lockstep.md "Pacing"), with up to 3
 * unacknowledged earlier ticks repeated. Returns BSYNC_INVALID_ARGUMENT before the WELCOME or after
 * the end; BSYNC_LIMIT_EXCEEDED (nothing sent) when that tick would be more than 32 ticks
 * (BSYNC_PROTO_PEER_MAX_INPUT_LEAD) past the newest server tick heard + the input delay (the client
 * runs fast, or the server's frames are held back): the server would drop it as too far ahead. */
BSYNC_API bsync_result bsync_client_send_input(bsync_client* client, const bsync_match_input* input, uint32_t* assigned_tick);
/* The same with an opaque game payload for that tick (0..256 bytes, at most the match's payload_max:
 * the server drops larger ones), relayed verbatim to every client in the tick's frame and recorded in
 * the replay; a defaulted tick carries no payload. */
BSYNC_API bsync_result bsync_client_send_input_payload(bsync_client* client, const bsync_match_input* input, const void* payload,
                                             uint32_t payload_len, uint32_t* assigned_tick);
/* The payload slot `slot` sent for frame `tick` (one of the last 256 frames received): its length
 * (0: none), copied into out (cap bytes at most); -1 when that frame is not held. */
BSYNC_API int bsync_client_frame_payload(const bsync_client* client, uint32_t tick, uint32_t slot, void* out, uint32_t cap);

/* 1 and *out filled when an event was waiting (oldest first; at most 1024 kept, older dropped). */
BSYNC_API int bsync_client_poll_event(bsync_client* client, bsync_client_event* out);

BSYNC_API bsync_client_state bsync_client_get_state(const bsync_client* client);
BSYNC_API bsync_match* bsync_client_match(bsync_client* client);
BSYNC_API void bsync_client_get_stats(const bsync_client* client, bsync_client_stats* out);
BSYNC_API uint32_t bsync_client_tick_rate(const bsync_client* client);  /* from the WELCOME (0 before) */
BSYNC_API uint32_t bsync_client_input_delay(const bsync_client* client);

/* ---- rendering between ticks (blendsync/present.h; docs/presentation.md "The render loop").
 * A render loop asks "the pose now": alpha = bsync_client_present_alpha(client), then
 * bsync_present_match(bsync_client_match(client), alpha, ...) (or bsync_present_pose per character).
 *
 * The presentation clock (bsync_present_clock, also usable without a client): a shown time S in
 * 2^-16 ticks that advances with the client's own monotonic clock at the tick rate (exact integer
 * conversion, the nanosecond remainder carried: no drift of its own), kept within
 * [T, T + BSYNC_PRESENT_ALPHA_MAX] of the last applied tick T; alpha = S - T. So:
 *   - frames on time: alpha runs from about 0 to about 1 between them, and each arrival lowers it by
 *     exactly 1.0 while S itself goes on: the shown time never jumps;
 *   - a late frame: alpha grows past 1 (extrapolation, present.h) up to BSYNC_PRESENT_ALPHA_MAX (two
 *     ticks late), then S holds (the pose freezes rather than extrapolate further); when the frame
 *     arrives S continues from where it was, at the new tick's weights (no jump back in time);
 *   - a frame earlier than S expected it (a burst after a stall, or a resync that moved T forward):
 *     S jumps forward to T (alpha 0): it never shows a time before the last applied tick;
 *   - a resync to an earlier tick: S is brought back to at most T + BSYNC_PRESENT_ALPHA_MAX.
 * Pure functions of the times given (no clock read inside): tests drive them with made-up times. */
typedef struct bsync_present_clock {
    uint32_t tick_rate;   /* ticks per second (1..1000); 0: alpha is always 0 */
    uint32_t started;     /* 0 until the first frame */
    uint64_t tick;        /* T: the match tick after the last applied frame */
    uint64_t frame_ns;    /* when it was applied */
    uint64_t last_ns;     /* the last time S was advanced to */
    int64_t shown;        /* S, in 2^-16 ticks */
    uint64_t rem;         /* the part of S below 2^-16 ticks, in units of 1e-9 of that */
} bsync_present_clock;
BSYNC_API void bsync_present_clock_init(bsync_present_clock* clock, uint32_t tick_rate);
/* The match is at tick `tick` (bsync_match_tick_count) since time now_ns. */
BSYNC_API void bsync_present_clock_frame(bsync_present_clock* clock, uint64_t tick, uint64_t now_ns);
/* S advanced to now_ns (a time before the last one counts as the last one), then alpha = S - T as fix16
 * in [0, BSYNC_PRESENT_ALPHA_MAX]; 0 before the first frame. */
BSYNC_API fix16_t bsync_present_clock_alpha(bsync_present_clock* clock, uint64_t now_ns);

/* Nanoseconds since the client applied its last frame (its own monotonic clock); 0 before the first. */
BSYNC_API uint64_t bsync_client_time_since_frame_ns(const bsync_client* client);
/* The fraction of a tick to render the local match at now (the presentation clock above, fed by
 * every applied frame and read at the client's monotonic clock); 0 before the first frame. */
BSYNC_API fix16_t bsync_client_present_alpha(bsync_client* client);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CLIENT_H */
