/* client_internal.h — the client's state, shared by client.c (the session), client_enet.c (the ENet
 * adapter) and client_testing.c (faults). Not installed. The transport port: client_transport.h. */
#ifndef BLENDSYNC_CLIENT_INTERNAL_H
#define BLENDSYNC_CLIENT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/client.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/session.h"
#include "client_transport.h"

#define FRAME_RING 256u
#define SNAP_RING 8u
#define TRAIL_RING 64u /* per-tick states kept for a desync trail (io/trail.h) */
#define EVENT_CAP 1024u
#define SYNCTEST_MAX 16u
/* No WELCOME this long after an attempt began: start a new connection. ENet's handshake can wedge on a
 * lossy path (the client's last ACK lost, the server still waiting and dropping the HELLO), and ENet
 * alone would give up at its 5 s peer timeout. */
#define CONNECT_RETRY_US 2000000ull
/* pacing (docs/lockstep.md "Pacing"): the largest lead L, and one paused send per this many sends
 * ahead of the target at most */
#define CL_MAX_LEAD 24u
#define CL_PAUSE_EVERY 4u
#define CL_SILENCE_MIN_US 1000000ull /* a running match's server silent this long (or 8 RTTs) is gone */
#define CL_SILENCE_RTTS 8u
#define CL_END_HOLD_US 1000000ull /* the server holds END this long after the last frame at most */
/* uploads (TRAIL, DUMP) paced under the server's 32 KiB/s per peer: a burst of 6 KiB, then 22 KiB/s
 * (docs/lockstep.md "Checksums and desyncs") */
#define CL_UPLOADS 4u
#define CL_UPLOAD_BURST 6144u
#define CL_UPLOAD_RATE 22528u

typedef struct cl_upload {
    uint8_t* data; /* malloc'd copy; NULL: free entry */
    size_t len;
    uint32_t kind, tick, next; /* the next chunk to send */
} cl_upload;

typedef struct ring_frame {
    uint32_t tick;
    int valid;
    uint16_t defaulted_mask;
    bsync_match_frame frame;
    uint16_t payload_len[BSYNC_MATCH_MAX_PLAYERS];
    uint8_t payload[BSYNC_MATCH_MAX_PLAYERS][BSYNC_PROTO_MAX_PAYLOAD];
} ring_frame;

typedef struct ring_snap {
    uint32_t tick; /* state at the start of this tick */
    int valid;
    size_t len;
    uint8_t* data; /* snapshot_size bytes */
} ring_snap;

/* Faults planted by tests and the in-tree bot (client_testing.h): each NULL in a client that plays
 * honestly. The session calls them at fixed points and holds no fault logic of its own. */
typedef struct cl_faults {
    /* right after frame `tick` was applied to the live match, before the client's own checks of it */
    void (*after_frame)(bsync_client* c, uint32_t tick);
    /* the checksums about to be reported for tick (and recorded in the client's replay) */
    void (*report)(bsync_client* c, uint32_t tick, bsync_match_checksums* cs);
    /* the per-joint checksums of `character` about to be sent as a DETAIL answer for tick */
    void (*report_joints)(bsync_client* c, uint32_t tick, uint32_t character, uint64_t* joints, uint32_t count);
    /* what they act on (client_testing.c's business) */
    uint32_t desync_tick;
    uint32_t pose_tick, pose_character, pose_joint;
} cl_faults;

struct bsync_client {
    bsync_client_config cfg;
    bsync_client_packet_hook hook; /* bsync_client_set_packet_hook */
    void* hook_user;
    bsync_proto_frame prev_frame; /* the last FRAME of this connection, whole (CHANGES frames expand from it) */
    int have_prev_frame;
    uint8_t token[BSYNC_PROTO_MAX_TOKEN];
    /* the authenticated session (cfg.secret): 0 none, 1 AUTH_INIT sent, 2 keys (sealed HELLO sent on) */
    uint8_t secret[BSYNC_SESSION_SECRET_BYTES];
    int has_secret;
    int auth_state;
    uint8_t client_nonce[BSYNC_SESSION_NONCE_BYTES];
    bsync_session sess;
    uint8_t opened[BSYNC_PROTO_ENET_MAX_PACKET];
    int session_broken; /* a sealed packet on a reliable channel did not open: that stream lost a message */
    cl_transport transport;    /* client_transport.h */
    int attempting;            /* the transport has a connection (connecting or up) */
    int connected;             /* ... and it is up */
    uint64_t connect_deadline_us;
    uint64_t attempt_start_us; /* when the current connection attempt began */
    uint32_t connect_attempts;
    int reconnecting;          /* connecting again after a drop mid-match (client.h reconnect_timeout_ms) */
    int welcomed;              /* a WELCOME came on some connection: the session had begun */
    uint64_t last_recv_us;     /* the newest packet from the server (a silent server: client.c) */
    bsync_client_state state;
    /* match */
    void* match_mem;
    size_t match_size;
    bsync_match* match;
    void* scratch_mem; /* a second match: answering DETAIL requests from a saved snapshot */
    bsync_match* scratch;
    size_t snap_size;
    /* session */
    uint32_t tick_rate, input_delay, checksum_interval, player_count;
    uint32_t next_frame;      /* the next frame tick to apply */
    int have_state;           /* the match holds the state at the start of next_frame */
    ring_frame frames[FRAME_RING];
    uint32_t frames_received_upto; /* one past the newest frame received */
    ring_snap snaps[SNAP_RING];
    uint32_t snap_next;
    ring_snap trail[TRAIL_RING]; /* the state at the start of every recent tick, by tick % TRAIL_RING */
    /* incoming snapshot (JOIN or RESYNC) */
    uint8_t* incoming;
    uint32_t incoming_size, incoming_have, incoming_tick;
    int incoming_kind; /* -1 none */
    /* inputs */
    uint32_t next_input_tick; /* the tick the last input went to + 1 (0: none yet) */
    int sent_any;
    uint32_t acked_next;      /* the server holds our inputs below this */
    uint32_t server_tick;
    bsync_match_input history[BSYNC_PROTO_MAX_INPUT_RECORDS];
    uint16_t history_payload_len[BSYNC_PROTO_MAX_INPUT_RECORDS];
    uint8_t history_payload[BSYNC_PROTO_MAX_INPUT_RECORDS][BSYNC_PROTO_MAX_PAYLOAD];
    uint32_t history_first;   /* tick of history[0] */
    uint32_t history_count;
    /* pacing (docs/lockstep.md "Pacing"): consecutive sends ahead of the target tick, pauses taken,
     * and the earliest estimate of START's deadline seen (START and every FRAME give one) */
    uint32_t pace_ahead;
    uint64_t pace_paused;
    uint64_t pace_skipped;
    uint64_t pace_filled; /* ticks of a short skip ahead sent with the new input's targets */
    uint64_t pace_refused_lobby;
    /* protocol version 7 (docs/protocol.md "FRAMES") */
    uint32_t proto_version;  /* what it speaks: cfg.protocol_version or BSYNC_PROTO_VERSION */
    uint32_t match_ticks;    /* START's match length (0: open, or a version 6 server) */
    uint64_t frames_dup;     /* FRAMES copies of frames it already held */
    cl_upload uploads[CL_UPLOADS]; /* queued uploads, oldest first from upload_head */
    uint32_t upload_head, upload_count;
    uint64_t upload_credit, upload_at_us; /* the token bucket: bytes, and when it was last filled */
    uint64_t uploads_dropped;
    cl_faults faults;                 /* client_testing.h (all NULL: none) */
    bsync_client_frame_hook frame_hook; /* bsync_client_set_frame_hook */
    void* frame_hook_user;
    /* events */
    bsync_client_event events[EVENT_CAP];
    uint32_t ev_head, ev_count;
    bsync_client_stats stats;
    /* the end of the match: END (frame channel) names the frame count; BYE (control channel) may
     * overtake it and the frames still in flight, so a BYE that ends the match only marks the end as
     * pending until END has arrived and every frame below it is applied (or the connection drops) */
    int have_end;
    uint32_t end_reason;
    int bye_pending;
    uint32_t bye_pending_reason;
    uint64_t bye_pending_deadline_us;
    bsync_proto_msg rx; /* the message being handled (large: kept off the stack) */
    /* the client's own replay */
    bsync_replay_header* replay_header; /* a copy (NULL: no replay) */
    bsync_replay_writer* replay;
    bsync_replay_record rec;            /* the record being built (large) */
    bsync_replay_recorder recorder;     /* the schedule (checksum ticks) and the replay's records */
    char replay_path[1024];
    /* the sync-test switch: the state before each of the last SYNCTEST_MAX + 1 frames */
    uint8_t* st_snaps;  /* (SYNCTEST_MAX + 1) * snap_size */
    size_t st_len[SYNCTEST_MAX + 1];
    uint32_t st_tick[SYNCTEST_MAX + 1]; /* the tick each holds the start of (UINT32_MAX: none) */
    bsync_present_clock present; /* rendering between ticks (client_present.c) */
    struct cl_predict* predict;  /* prediction and rollback (client_predict.c; NULL: lockstep) */
};

/* client.c: the connection is gone on this side only (the transport drops it: the server is not told
 * and sees silence); the session then reconnects as after any drop. */
void cl_drop_connection(bsync_client* c);

#endif /* BLENDSYNC_CLIENT_INTERNAL_H */
