/* blendsync/server.h — the lockstep server as a library: `blendsync-server` (server/src/main.c) is a
 * thin command line around it, and the network tests run it in-process next to real clients over
 * ENet on loopback. docs/lockstep.md is the session it implements; docs/server.md the operations.
 *
 * Index
 *   bsync_server_config            address, match files, pose verification, log, status interval
 *   bsync_server_create / _destroy bind, load every match (graphs, replay file)
 *   bsync_server_service           one pass: network events, due ticks of every match, status lines
 *   bsync_server_shutdown          end every match (END record, BYE SHUTDOWN), flush
 *   bsync_server_done              1 when every match has ended
 *   bsync_server_drain             shut down, then serve until every peer has its END and BYE
 *   bsync_server_port              the bound port (useful with port 0)
 *   bsync_server_match_count, bsync_server_match_stats_get   the matches and their counters
 *   bsync_server_host_stats_get    connection hygiene, overload, sessions (the whole server)
 *   bsync_server_drop_name         a drop reason's log token
 *   bsync_server_pool_*            several servers, one per worker thread (more than one core)
 *
 * Transport: the matches and sessions run on a port (server/src/server_transport.h, not installed);
 * the server here is its ENet adapter. The unit-level session tests and the packet fuzzer drive the
 * same sessions on virtual time through another adapter (tests/support/vnet.h; docs/server.md
 * "Transport").
 *
 * Overload: the server measures its busy share of every second and, past a threshold, refuses new
 * matches with BYE OVERLOADED instead of degrading running ones (config overload_busy_permille).
 *
 * Single-threaded: everything happens inside bsync_server_service. A pool (below) runs several servers
 * on threads, one each. Edge code: sockets, files, malloc
 * at setup; per tick it only encodes, sends and appends (the match simulation is the core's).
 */
#ifndef BLENDSYNC_SERVER_H
#define BLENDSYNC_SERVER_H

#include <stdint.h>
#include <stdio.h>

#include "blendsync/base.h"
#include "blendsync/proto.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_SERVER_MAX_MATCHES 256u
#define BSYNC_SERVER_MAX_WORKERS 64u

typedef struct bsync_server_config {
    const char* host;               /* bind address text, e.g. "127.0.0.1" or "0.0.0.0" */
    uint16_t port;                  /* 0: any free port (bsync_server_port tells which) */
    const char* const* match_paths; /* match config files (docs/match-config.md) */
    uint32_t match_count;           /* 1..BSYNC_SERVER_MAX_MATCHES (256) */
    int verify_poses;               /* 1: compute poses too (pose checksums compared with the server's) */
    FILE* log;                      /* structured log lines (NULL: stderr) */
    uint32_t status_interval_ms;    /* a status line per match this often (0: never) */
    const char* replay_override;    /* NULL, or a replay path used instead of the config's (one match) */
    /* Graceful refusal under overload (docs/server.md "Overload"): the server's busy share of the last
     * second (wall time inside bsync_server_service, less the time it slept waiting for packets) in
     * permille; at or above this threshold a HELLO for a match that has not started and has no player
     * connected gets BYE OVERLOADED (counted, logged), while running matches and their players
     * (reconnects included) are served as before. 0: 500 (the default); above 1000: never refuse. */
    uint32_t overload_busy_permille;
} bsync_server_config;

/* Drop reasons (counted per match and per peer). */
#define BSYNC_SERVER_DROPS(X)                                                   \
    X(MALFORMED, "malformed")          /* the decoder refused it */             \
    X(BAD_VERSION, "bad_version")      /* another protocol version */           \
    X(WRONG_SLOT, "wrong_slot")        /* input for a slot not the peer's */    \
    X(STALE, "stale")                  /* input for a confirmed tick */         \
    X(TOO_FAR_AHEAD, "too_far_ahead")  /* input beyond the allowed lead */      \
    X(BAD_STATE, "bad_state")          /* message not allowed in this state */  \
    X(FLOOD, "flood")                  /* over the per-peer packet/byte caps */ \
    X(BAD_CHECKSUM_TICK, "checksum_unknown_tick") /* no server state for that tick */ \
    X(PAYLOAD_TOO_LARGE, "payload_too_large") /* a game payload over the match's payload_max */ \
    X(OVERSIZED, "oversized")          /* a packet over BSYNC_PROTO_ENET_MAX_PACKET: BYE PROTOCOL_ERROR */ \
    X(BAD_TAG, "bad_tag")              /* a sealed packet that does not open (session, version 6) */ \
    X(REPLAYED, "replayed")            /* a sealed packet's counter already seen or too old */      \
    X(NOT_SEALED, "not_sealed")        /* a plain packet on an authenticated session */

typedef enum bsync_server_drop {
#define BSYNC_SERVER_DROP_ENUM_(id, text) BSYNC_SERVER_DROP_##id,
    BSYNC_SERVER_DROPS(BSYNC_SERVER_DROP_ENUM_)
#undef BSYNC_SERVER_DROP_ENUM_
    BSYNC_SERVER_DROP_COUNT
} bsync_server_drop;
BSYNC_API const char* bsync_server_drop_name(uint32_t drop);

typedef struct bsync_server_match_stats {
    uint64_t match_id;
    int started, ended;
    uint32_t ticks;              /* frames confirmed */
    uint32_t players_connected;
    uint64_t inputs_received;    /* input records accepted (first arrival per tick) */
    uint64_t inputs_defaulted;   /* player-ticks whose input was missing at the deadline */
    uint64_t inputs_clamped;     /* parameter values outside the match's declared min/max, clamped into
                                    it before they were stored (the frame carries the clamped value) */
    uint64_t desyncs;            /* desyncs detected (first per diverged client, and after each resync) */
    uint64_t mismatched_checksums; /* every mismatching CHECKSUM, including repeats of a known desync */
    uint64_t checksums_verified;
    uint64_t resyncs, kicks;
    uint64_t resumes;            /* reconnects served from the frame ring (HELLO resume, protocol version 5) */
    uint64_t frames_resent;      /* the frames sent again for them */
    uint64_t snapshot_joins;     /* late joins and reconnects sent a snapshot instead */
    uint64_t takeovers;          /* a reconnect took its slot from a connection silent for over 1 s */
    uint64_t snapshot_failures;  /* match states that could not be saved (logged as snapshot_failed) */
    uint64_t dropped[BSYNC_SERVER_DROP_COUNT];
    uint64_t dropped_by_slot[BSYNC_PROTO_MAX_PLAYERS]; /* the same drops, per player slot (per peer) */
    uint64_t bytes_in, bytes_out; /* blendsync packet bytes (ENet/UDP headers not included) */
    uint64_t host_udp_in, host_udp_out; /* the whole server's UDP payload bytes, ENet headers included */
    uint64_t jitter_p50_us, jitter_p99_us, jitter_max_us; /* confirm time - deadline */
    uint64_t replay_bytes;
    uint32_t last_desync_tick, last_desync_slot, last_desync_kind, last_desync_character;
    uint64_t detail_answers;              /* per-joint checksum answers received (pose desyncs) */
    uint32_t last_detail_joint;           /* first differing joint of the last answer (UINT32_MAX: none) */
    uint32_t last_detail_joints_differing;
    char replay_path[1024];
} bsync_server_match_stats;

typedef struct bsync_server bsync_server;

BSYNC_API bsync_result bsync_server_create(const bsync_server_config* config, bsync_server** out, bsync_error* err);
BSYNC_API void bsync_server_destroy(bsync_server* server);
/* Wait at most timeout_ms for network events (less when a tick is due sooner), handle them, confirm
 * every due tick of every match. */
BSYNC_API bsync_result bsync_server_service(bsync_server* server, uint32_t timeout_ms);
BSYNC_API void bsync_server_shutdown(bsync_server* server);
BSYNC_API int bsync_server_done(const bsync_server* server);
/* Shut down (bsync_server_shutdown: matches still running end with reason shutdown, every peer gets
 * its BYE, new connections are refused), then keep servicing the host until every peer has
 * acknowledged what is queued for it (END, BYE) and is disconnected, or timeout_ms passed. Under loss
 * the END needs retransmissions; a server that exits right away leaves clients without it (they then
 * report the match INCOMPLETE). Returns the number of peers still connected at the end (0: all out). */
BSYNC_API uint32_t bsync_server_drain(bsync_server* server, uint32_t timeout_ms);
BSYNC_API uint16_t bsync_server_port(const bsync_server* server);
BSYNC_API uint32_t bsync_server_match_count(const bsync_server* server);
BSYNC_API void bsync_server_match_stats_get(const bsync_server* server, uint32_t match, bsync_server_match_stats* out);

/* Connection hygiene, for the whole server (peers that never joined a match). */
typedef struct bsync_server_host_stats {
    uint64_t connects_refused; /* over BSYNC_PROTO_MAX_CONNECTS_PER_SEC per address, or while shutting down:
                                  BYE RATE_LIMITED (SHUTDOWN), then disconnected */
    uint64_t hello_timeouts;   /* connected but no HELLO within BSYNC_PROTO_HELLO_TIMEOUT_MS: BYE TIMEOUT */
    uint64_t oversized;        /* packets over BSYNC_PROTO_ENET_MAX_PACKET (up to the host's reassembly
                                  limit, 64 KiB): BYE PROTOCOL_ERROR, then disconnected */
    uint64_t protocol_errors;  /* peers refused with BYE PROTOCOL_ERROR before joining (oversized included) */
    uint64_t overload_refusals; /* HELLOs for a not yet started match refused with BYE OVERLOADED */
    uint64_t overload_episodes; /* times the server entered the overloaded state */
    uint32_t busy_permille;    /* the busy share of the last complete second (0 until one has passed) */
    uint32_t busy_permille_max; /* the highest busy_permille so far (logged as event=load_summary at the end) */
    uint32_t overloaded;       /* 1 while busy_permille is at or above the threshold (off again 50 below) */
    uint64_t sessions_opened;  /* authenticated sessions whose sealed HELLO opened (version 6) */
    uint64_t auth_failures;    /* handshakes refused: unknown match or slot, plain match, a HELLO that did
                                  not open (a wrong secret, a captured HELLO): BYE AUTH_FAILED */
    uint64_t auth_required;    /* plain HELLOs for a match with secrets: BYE AUTH_REQUIRED */
    uint64_t sealed_rejected;  /* sealed packets of established sessions that did not open (bad tag,
                                  replayed, plain): dropped and counted as violations (ABUSE past the cap) */
} bsync_server_host_stats;
BSYNC_API void bsync_server_host_stats_get(const bsync_server* server, bsync_server_host_stats* out);

/* ---- Workers: more than one core (docs/server.md "Workers").
 * A pool is `workers` servers, each run by its own thread: its own ENet host and port, and its own
 * matches — match k of config->match_paths goes to worker k % workers — so a match and its peers stay
 * on one thread and nothing is locked. Ports: config->port + k for worker k, or any free port each
 * when config->port is 0 (bsync_server_port of each worker tells). A client must connect to its
 * match's worker: another worker refuses its HELLO with BYE UNKNOWN_MATCH (the lobby that hands out
 * the match hands out that address). Each worker judges its own overload. The log stream is shared
 * (one write per line). One host holds at most 4,095 peers (ENet's limit), about 2,000 players with
 * the room kept for reconnects: more players need more workers. */
typedef struct bsync_server_pool bsync_server_pool;

/* 1 <= workers <= BSYNC_SERVER_MAX_WORKERS and at least one match per worker; the config as for
 * bsync_server_create (replay_override with a single match only). */
BSYNC_API bsync_result bsync_server_pool_create(const bsync_server_config* config, uint32_t workers,
                                                bsync_server_pool** out, bsync_error* err);
BSYNC_API void bsync_server_pool_destroy(bsync_server_pool* pool);
BSYNC_API uint32_t bsync_server_pool_worker_count(const bsync_server_pool* pool);
/* Worker k's server: its port, match count and stats — read them before bsync_server_pool_run or
 * after it returns, never while it runs (the worker's thread owns it then). */
BSYNC_API bsync_server* bsync_server_pool_worker(bsync_server_pool* pool, uint32_t worker);
/* Runs every worker (workers 1.. on new threads, worker 0 on the caller's) until should_stop(user)
 * returns non-zero (called by every worker between service passes, so it must be thread-safe, e.g.
 * an atomic flag) or, with exit_when_done, until the worker's matches have all ended; then each
 * worker drains (bsync_server_drain, drain_ms) and the threads are joined. Returns the peers still
 * connected after the drains. */
typedef int (*bsync_server_stop_fn)(void* user);
BSYNC_API uint32_t bsync_server_pool_run(bsync_server_pool* pool, bsync_server_stop_fn should_stop, void* user,
                                         int exit_when_done, uint32_t drain_ms);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SERVER_H */
