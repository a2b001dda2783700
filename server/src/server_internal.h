/* server_internal.h — the server's state, shared by server_session.c (connections, messages,
 * abuse accounting), server_match.c (the tick loop, inputs, checksums, desyncs, replay) and the ENet
 * adapter server.c. Not a public header. The transport port: server_transport.h. */
#ifndef BLENDSYNC_SERVER_INTERNAL_H
#define BLENDSYNC_SERVER_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "blendsync/io/desync_bundle.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/session.h"
#include "blendsync/match.h"
#include "blendsync/server.h"
#include "server_transport.h"

#define SRV_INPUT_RING 64u   /* per slot: inputs for ticks next .. next + 63 */
#define SRV_CHECK_RING 256u  /* per tick: the server's checksums */
#define SRV_SNAP_RING 16u    /* snapshots at checksum ticks */
#define SRV_FRAME_RING 256u  /* the last confirmed frames (desync bundles carry them) */
#define SRV_JITTER_KEEP 4096u
#define SRV_SNAPSHOT_EVERY 600u /* ticks between replay snapshots */
#define SRV_VIOLATION_WINDOW_US 10000000ull
#define SRV_RATE_WINDOW_US 1000000ull
#define SRV_CONNECT_TABLE 64u
#define SRV_TAKEOVER_SILENT_US 1000000ull /* a running match's slot whose connection has sent nothing this
                                             long is given to a new HELLO with its token (a reconnect) */
#define SRV_LOAD_BUCKETS 10u          /* the busy share is judged over the last 10 buckets of 100 ms */
#define SRV_LOAD_BUCKET_US 100000ull
#define SRV_OVERLOAD_DEFAULT 500u     /* permille (bsync_server_config.overload_busy_permille 0) */
#define SRV_OVERLOAD_HYSTERESIS 50u   /* permille below the threshold to leave the overloaded state */
#define SRV_COST_PRIOR_NS 10000u      /* admission: a player-tick's busy time until measured (docs/server.md "Overload") */
#define SRV_CALIBRATE_MIN_PT 3000u    /* player-ticks a second needs before it recalibrates that cost */

typedef struct srv_match srv_match;

typedef struct srv_peer {
    bsync_server* server;
    uint32_t conn;    /* its number on the transport */
    uint8_t open;     /* 0: a free entry */
    char ip[48];      /* the address, for the log */
    uint16_t ip_port;
    srv_match* match; /* NULL until a HELLO is accepted */
    int slot;         /* -1 until then */
    uint64_t violations[BSYNC_PROTO_PEER_MAX_VIOLATIONS + 1]; /* times of recent violations (ring) */
    uint32_t violation_next, violation_count;
    uint64_t window_start_us;
    uint32_t window_packets, window_inputs;
    uint64_t window_bytes;
    int closing;
    uint64_t connected_us; /* when the transport opened it (the HELLO timeout) */
    uint64_t last_recv_us; /* when it last sent anything (a reconnect's takeover) */
    /* an incoming DUMP snapshot */
    uint8_t* dump;
    uint32_t dump_size, dump_have, dump_tick;
    /* an incoming TRAIL (sent just before the DUMP), then the last complete one */
    uint8_t* trail_in;
    uint32_t trail_in_size, trail_in_have, trail_in_tick;
    uint8_t* trail;
    uint32_t trail_len, trail_tick;
    uint32_t frame_next; /* the tick after the last FRAME sent on this connection (UINT32_MAX: none yet):
                            only then may the next one be coded CHANGES */
    /* an authenticated session (blendsync/session.h; docs/security.md) */
    uint8_t auth;          /* SRV_AUTH_* */
    uint64_t auth_match_id;
    uint32_t auth_slot;
    bsync_session sess;    /* keys once AUTH_INIT was answered; every packet after it is sealed */
    /* protocol version 7 (docs/protocol.md "FRAMES") */
    uint8_t proto_version; /* of its HELLO (or AUTH_INIT); what the server sends it is in this version */
    uint32_t frames_acked; /* it holds every frame below this tick (its INPUTs' frame ack, or the WELCOME's start) */
} srv_peer;

#define SRV_AUTH_NONE 0u        /* plain: no AUTH_INIT (a plain-token match) */
#define SRV_AUTH_CHALLENGED 1u  /* AUTH_CHALLENGE sent: the next packet must be the sealed HELLO */
#define SRV_AUTH_ESTABLISHED 2u /* the sealed HELLO opened: the peer holds the slot's secret */

typedef struct srv_slot {
    srv_peer* peer; /* NULL: not connected */
    uint64_t token_len;
    int ever_connected;
    bsync_match_input last;  /* the last confirmed input (the default) */
    bsync_match_input ring[SRV_INPUT_RING];
    uint32_t ring_tick[SRV_INPUT_RING]; /* which tick each entry holds (UINT32_MAX: none) */
    uint16_t ring_payload_len[SRV_INPUT_RING];
    uint8_t ring_payload[SRV_INPUT_RING][BSYNC_PROTO_MAX_PAYLOAD];
    int diverged;            /* a desync was reported and not healed */
    uint32_t dump_tick;      /* the DUMP/TRAIL tick the server asked this slot for (UINT32_MAX: none):
                                one bundle per reported desync, nothing unsolicited */
    uint32_t checked_upto;   /* one past the last tick this slot's checksum was compared for */
    /* a pose-only desync's joints for its bundle (server_match.c): */
    uint32_t agreed_next;    /* one past the last tick whose checksums agreed (0: none) */
    uint32_t detail_next;    /* one past the tick whose per-joint checksums were asked for (DETAIL), 0: none */
    uint64_t detail_deadline_us; /* the DUMP waits for the answer until then */
    int have_pose;           /* the answer, compared, in pose */
    bsync_desync_bundle_pose pose;
    uint8_t* held_dump;      /* a complete DUMP (and its TRAIL) waiting for the answer */
    uint8_t* held_trail;
    uint32_t held_dump_len, held_trail_len, held_tick;
} srv_slot;

typedef struct srv_check {
    uint32_t tick; /* UINT32_MAX: empty */
    bsync_match_checksums sums;
    uint64_t client_pose[BSYNC_MATCH_MAX_PLAYERS];
    uint64_t client_blend[BSYNC_MATCH_MAX_PLAYERS];
    uint16_t blend_mask; /* slots that reported for this tick (blend) */
    uint16_t client_mask; /* slots that reported a pose for this tick */
} srv_check;

typedef struct srv_snap {
    uint32_t tick; /* the state at the start of this tick; UINT32_MAX: empty */
    size_t len;
    uint8_t* data;
} srv_snap;

struct srv_match {
    bsync_server* server;
    uint32_t index;
    bsync_match_config* cfg;
    const bsync_match_desc* desc;
    void* mem;
    bsync_match* match;
    void* scratch_mem[2];
    bsync_match* scratch[2];
    size_t snap_size;
    uint8_t* snap_buf;
    uint32_t player_count, tick_rate, input_delay, checksum_interval, duration, payload_max;
    bsync_match_policy policy;
    bsync_match_timeouts timeouts;
    srv_slot slots[BSYNC_MATCH_MAX_PLAYERS];
    int started, ended;
    uint32_t end_reason;      /* END's reason once ended */
    uint64_t hash;            /* bsync_match_hash, once */
    int admitted;             /* its first HELLO was accepted: its predicted cost is reserved until it ends */
    int finishing;            /* the last frame is out: waiting (<= 1 s) for the last checksums */
    uint64_t finish_deadline_us;
    uint64_t created_us, start_us, period_num_us; /* deadline of tick t = start_us + t * 1e6 / rate */
    uint64_t last_activity_us;
    uint32_t next_tick; /* the next tick to confirm */
    srv_check checks[SRV_CHECK_RING];
    srv_snap snaps[SRV_SNAP_RING];
    uint32_t snap_next;
    uint64_t jitter[SRV_JITTER_KEEP];
    uint32_t jitter_count, jitter_next;
    bsync_replay_writer* replay;
    bsync_replay_recorder recorder; /* the schedule (ticks, checksums, replay records): replay_recorder.h */
    int replay_error_logged;
    char replay_path[1024];
    char desync_dir[1100];
    uint64_t last_sync_us, last_status_us;
    bsync_server_match_stats stats;
    bsync_proto_msg tx;
    bsync_proto_frame tx_prev; /* the previous FRAME (FULL), for CHANGES coding */
    int have_tx_prev; /* the frame being built (large) */
    bsync_match_frame* frames; /* SRV_FRAME_RING confirmed frames, by tick % ring */
    uint16_t frame_defaulted[SRV_FRAME_RING];
    /* their game payloads (for a resume): SRV_FRAME_RING x player_count x payload_max bytes and lengths;
     * NULL when payload_max is 0 */
    uint8_t* frame_payload;
    uint16_t* frame_payload_len;
    bsync_proto_frame resend_prev; /* a resume's previous resent frame (FULL), for CHANGES coding */
    uint64_t joint_scratch[BSYNC_PROTO_MAX_JOINTS]; /* per-joint checksums of a DETAIL comparison */
    int recovering; /* rebuilt from its replay (server_recover.c): the clock waits for the players */
    bsync_proto_msg frames_tx; /* a FRAMES packet being built (server_frames.c) */
    uint64_t frames_resend_us; /* finishing: the next resend of unacknowledged last frames (version 7) */
};

struct bsync_server {
    bsync_server_config cfg;
    srv_transport transport; /* server_transport.h */
    srv_match* matches[BSYNC_SERVER_MAX_MATCHES];
    uint32_t match_count;
    srv_peer* peers; /* one per transport connection */
    size_t peer_count;
    struct {
        uint32_t host;
        uint64_t time_us;
    } connects[SRV_CONNECT_TABLE];
    uint32_t connect_next;
    bsync_proto_msg rx; /* the message being handled (large) */
    uint8_t opened[BSYNC_PROTO_ENET_MAX_PACKET]; /* a sealed packet, opened (sessions) */
    int shut_down;
    uint64_t udp_in, udp_out; /* the transport's datagram bytes (srv_traffic) */
    bsync_server_host_stats host_stats;
    uint64_t last_sweep_us; /* the HELLO-timeout sweep, every 100 ms */
    /* the busy share: busy microseconds per 100 ms bucket, by bucket number (time / 100 ms) */
    uint64_t load_busy[SRV_LOAD_BUCKETS];
    uint64_t load_epoch[SRV_LOAD_BUCKETS];
    uint64_t load_first_epoch, load_judged_epoch;
    uint32_t overload_threshold; /* permille; > 1000: never */
    /* the metrics' histograms (server_metrics.c), written by the server's own thread only */
    bsync_server_hist tick_duration, tick_lateness;
    uint64_t hello_refused[BSYNC_SERVER_REFUSAL_KINDS]; /* by BYE reason: bad token, slot taken, ... */
    /* admission by predicted cost: player-ticks confirmed per 100 ms bucket (with load_busy), those not
     * yet noted, and the busy nanoseconds one player-tick costs (SRV_COST_PRIOR_NS, then measured) */
    uint64_t load_pt[SRV_LOAD_BUCKETS];
    uint64_t load_pt_pending;
    uint64_t cost_ns;
};

/* server_session.c */
uint64_t srv_now(const bsync_server* s); /* the transport's clock */
void srv_log(bsync_server* s, const char* level, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int srv_send(srv_match* m, srv_peer* p, const bsync_proto_msg* msg); /* bytes sent (sealed size), or -1 */
/* A snapshot as SNAPSHOT chunks first_chunk .. last (bsync_net_snapshot_chunk), counted in m's bytes_out. */
void srv_send_snapshot(srv_match* m, srv_peer* p, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                       uint32_t first_chunk);
void srv_violation(bsync_server* s, srv_peer* p, bsync_server_drop why);
int srv_drop_harmless(bsync_server_drop why);
void srv_log_drops(bsync_server* s, const bsync_server_match_stats* st);
void srv_peer_close(bsync_server* s, srv_peer* p, uint32_t reason);
void srv_peer_drop(bsync_server* s, srv_peer* p); /* reset now, no BYE, no event (a dead connection) */
int srv_overloaded(const bsync_server* s); /* the busy share is at or above the threshold (server.h) */
/* Admission of a new match (docs/server.md "Overload"): 1 when its predicted cost fits the budget with
 * the matches already admitted; *predicted_us receives the busy µs a second they would make. */
int srv_admit(const bsync_server* s, const srv_match* m, uint64_t* predicted_us);

/* server_match.c */
srv_match* srv_match_create(bsync_server* s, uint32_t index, const char* path, bsync_error* err);
/* From a loaded config (taken over, destroyed on failure too); replay_path NULL: the config's. */
srv_match* srv_match_create_loaded(bsync_server* s, uint32_t index, bsync_match_config* cfg, const char* name,
                                   const char* replay_path, bsync_error* err);
void srv_match_fill_info(const srv_match* m, bsync_server_match_info* out); /* no sorting: cheap */

/* server_metrics_hist.c */
void srv_hist_note(bsync_server_hist* h, uint64_t us);
void srv_match_destroy(srv_match* m);
void srv_match_update(srv_match* m, uint64_t now_us);       /* due ticks, start, end, status */
uint64_t srv_match_next_deadline(const srv_match* m);       /* UINT64_MAX when nothing is due */
void srv_match_hello(srv_match* m, srv_peer* p, const bsync_proto_hello* h);
void srv_match_input(srv_match* m, srv_peer* p, const bsync_proto_input* in);
void srv_match_checksum(srv_match* m, srv_peer* p, const bsync_proto_checksum* c);
/* FRAME's input ack for a frame of `tick` to this slot: no input needed up to tick + the value. */
uint8_t srv_match_input_ack(const srv_match* m, uint32_t slot, uint32_t tick);

/* server_frames.c: protocol version 7's FRAMES to one connection, after each confirmed tick. */
void srv_frames_send(srv_match* m, srv_peer* p);
void srv_match_snapshot(srv_match* m, srv_peer* p, const bsync_proto_snapshot* sn);
void srv_match_leave(srv_match* m, srv_peer* p);
void srv_match_end(srv_match* m, uint32_t reason, uint32_t bye_reason);
void srv_match_fill_stats(const srv_match* m, bsync_server_match_stats* out);
/* A match from a loaded config (owned from here, destroyed on failure); name for messages. */
srv_match* srv_match_create_from(bsync_server* s, uint32_t index, bsync_match_config* cfg, const char* name,
                                 bsync_error* err);
/* A rebuilt match goes on recording into w (frames up to next_tick - 1 in it) and waits for its players. */
void srv_match_resume_at(srv_match* m, bsync_replay_writer* w, const char* replay_path, uint32_t next_tick);

/* server_recover.c: rebuild the match of an unfinished replay (config.recover) */
srv_match* srv_recover_create(bsync_server* s, uint32_t index, const char* replay_path, bsync_error* err);

#endif /* BLENDSYNC_SERVER_INTERNAL_H */
