/* blendsync/server.h — the lockstep server as a library (blendsync-server is a thin command line
 * around it). Single-threaded: everything happens inside bsync_server_service; a pool runs one server
 * per thread. Edge code (sockets, files, malloc at setup).
 *
 * Index
 *   bsync_server_config            address, match files, pose verification, log, status interval
 *   bsync_server_create / _destroy bind, load every match (graphs, replay file)
 *   bsync_server_service           one pass: network events, due ticks of every match, status lines
 *   bsync_server_shutdown          end every match (END record, BYE SHUTDOWN), flush
 *   bsync_server_done              1 when every match has ended
 *   bsync_server_drain             shut down, then serve until every peer has its END and BYE
 *   bsync_server_port              the bound port (useful with port 0)
 *   bsync_server_match_count, bsync_server_get_match_stats   the matches and their counters
 *   bsync_server_get_host_stats    connection hygiene, overload, sessions (the whole server)
 *   bsync_server_drop_name         a drop reason's log token
 *   bsync_server_pool_*            several servers, one per worker thread (more than one core)
 *   bsync_server_recover_scan      the unfinished replays of a folder (crash recovery)
 *   bsync_server_pool_match_add / _end / _list, _counters, _drain   operated from another thread
 *
 * design: docs/server.md#the-library-serverh (config, drops, counters, pool), docs/lockstep.md
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
    const char* host;               /* bind address */
    uint16_t port;                  /* 0: any free port */
    const char* const* match_paths; /* match config files */
    uint32_t match_count;
    int verify_poses;               /* 1: compute poses too */
    FILE* log;                      /* NULL: stderr */
    uint32_t status_interval_ms;    /* 0: never */
    const char* replay_override;    /* one match only */
    uint32_t overload_busy_permille; /* 0: 500 */
    int recover;                    /* 1: match_paths are unfinished replays to rebuild (crash recovery) */
    uint32_t player_capacity;       /* players to make room for (matches added later); 0: the matches' */
} bsync_server_config;

/* Drop reasons (counted per match and per peer): id, log token. */
#define BSYNC_SERVER_DROPS(X)                                                   \
    X(MALFORMED, "malformed")                                                   \
    X(BAD_VERSION, "bad_version")                                               \
    X(WRONG_SLOT, "wrong_slot")                                                 \
    X(STALE, "stale")                                                           \
    X(TOO_FAR_AHEAD, "too_far_ahead")                                           \
    X(BAD_STATE, "bad_state")                                                   \
    X(FLOOD, "flood")                                                           \
    X(BAD_CHECKSUM_TICK, "checksum_unknown_tick")                               \
    X(PAYLOAD_TOO_LARGE, "payload_too_large")                                   \
    X(OVERSIZED, "oversized")                                                   \
    X(BAD_TAG, "bad_tag")                                                       \
    X(REPLAYED, "replayed")                                                     \
    X(NOT_SEALED, "not_sealed")                                                 \
    X(BEFORE_START, "before_start")                                             \
    X(WRONG_CHANNEL, "wrong_channel")                                           \
    X(WRONG_LANE, "wrong_lane")                                                 \
    X(SECOND_INPUT, "second_input")

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
    uint64_t inputs_received;
    uint64_t inputs_defaulted;
    uint64_t inputs_clamped;
    uint64_t desyncs;
    uint64_t mismatched_checksums;
    uint64_t checksums_verified;
    uint64_t resyncs, kicks;
    uint64_t resumes;
    uint64_t frames_resent;
    uint64_t snapshot_joins;
    uint64_t takeovers;
    uint64_t snapshot_failures;
    uint64_t dropped[BSYNC_SERVER_DROP_COUNT];
    uint64_t dropped_by_slot[BSYNC_PROTO_MAX_PLAYERS];
    uint64_t bytes_in, bytes_out;
    uint64_t host_udp_in, host_udp_out;
    uint64_t jitter_p50_us, jitter_p99_us, jitter_max_us; /* confirm time - deadline */
    uint64_t replay_bytes;
    uint32_t last_desync_tick, last_desync_slot, last_desync_kind, last_desync_character;
    uint64_t detail_answers;
    uint32_t last_detail_joint;
    uint32_t last_detail_joints_differing;
    char replay_path[1024];
    /* crash recovery (config.recover): rebuilt from its replay and served again at recovered_tick */
    uint32_t recovered;
    uint32_t recovered_tick;
    uint32_t recover_lost_ticks; /* ticks whose FRAME record was torn: never sent to a client */
    uint64_t recover_torn_bytes; /* the torn tail cut from the replay */
    uint64_t recover_us;         /* reading and re-simulating the replay */
} bsync_server_match_stats;

typedef struct bsync_server bsync_server;

BSYNC_API bsync_result bsync_server_create(const bsync_server_config* config, bsync_server** out, bsync_error* err);
BSYNC_API void bsync_server_destroy(bsync_server* server);
/* At most timeout_ms: network events, then every due tick. */
BSYNC_API bsync_result bsync_server_service(bsync_server* server, uint32_t timeout_ms);
BSYNC_API void bsync_server_shutdown(bsync_server* server);
BSYNC_API int bsync_server_done(const bsync_server* server);
/* Shut down, then serve until every peer has its END and BYE or timeout_ms; returns the peers left. */
BSYNC_API uint32_t bsync_server_drain(bsync_server* server, uint32_t timeout_ms);
BSYNC_API uint16_t bsync_server_port(const bsync_server* server);
BSYNC_API uint32_t bsync_server_match_count(const bsync_server* server);
BSYNC_API void bsync_server_get_match_stats(const bsync_server* server, uint32_t match, bsync_server_match_stats* out);

/* The whole server: connection hygiene, overload, sessions. */
typedef struct bsync_server_host_stats {
    uint64_t connects_refused;
    uint64_t hello_timeouts;
    uint64_t oversized;
    uint64_t protocol_errors;
    uint64_t overload_refusals;
    uint64_t overload_episodes;
    uint32_t busy_permille;
    uint32_t busy_permille_max;
    uint32_t overloaded;
    uint64_t sessions_opened;
    uint64_t auth_failures;
    uint64_t auth_required;
    uint64_t sealed_rejected;
} bsync_server_host_stats;
BSYNC_API void bsync_server_get_host_stats(const bsync_server* server, bsync_server_host_stats* out);

/* ---- Workers: one server per thread, match k on worker k % workers (docs/server.md#workers). */
typedef struct bsync_server_pool bsync_server_pool;

/* At least one match per worker. */
BSYNC_API bsync_result bsync_server_pool_create(const bsync_server_config* config, uint32_t workers,
                                                bsync_server_pool** out, bsync_error* err);
BSYNC_API void bsync_server_pool_destroy(bsync_server_pool* pool);
BSYNC_API uint32_t bsync_server_pool_worker_count(const bsync_server_pool* pool);
/* Read it only before bsync_server_pool_run or after it returns. */
BSYNC_API bsync_server* bsync_server_pool_worker(bsync_server_pool* pool, uint32_t worker);
/* Until should_stop (thread-safe) or, with exit_when_done, the end; drains; returns the peers left. */
typedef int (*bsync_server_stop_fn)(void* user);
BSYNC_API uint32_t bsync_server_pool_run(bsync_server_pool* pool, bsync_server_stop_fn should_stop, void* user,
                                         int exit_when_done, uint32_t drain_ms);

/* ---- Crash recovery (docs/server.md#recovery): the replays in dir without an END record, sorted by
 * name, into paths (max entries of path_cap bytes each) for a config with recover = 1.
 * BSYNC_IO_ERROR (dir unreadable), BSYNC_LIMIT_EXCEEDED (more than max, or a path too long). */
BSYNC_API bsync_result bsync_server_recover_scan(const char* dir, char* paths, size_t path_cap, uint32_t max,
                                                 uint32_t* out_count, bsync_error* err);
/* ---- Operating a running pool from another thread (docs/operations.md). Thread-safe; a worker takes
 * requests and publishes its figures between service passes (every 100 ms), never blocking on them. */
#define BSYNC_SERVER_MATCH_LOBBY 0u
#define BSYNC_SERVER_MATCH_RUNNING 1u
#define BSYNC_SERVER_MATCH_ENDED 2u
#define BSYNC_SERVER_MATCH_PENDING 3u /* handed to its worker, not yet taken */

typedef struct bsync_server_match_info {
    uint64_t match_id;
    uint32_t worker, state; /* BSYNC_SERVER_MATCH_* */
    uint32_t players, players_connected, ticks, duration_ticks, tick_rate;
    uint32_t end_reason; /* END reason (0 normal, 1 shutdown, 2 aborted) once ended */
    uint64_t inputs_received, inputs_defaulted, desyncs, checksums_verified;
    uint64_t bytes_in, bytes_out, replay_bytes;
    uint64_t match_hash;
    char replay_path[1024];
} bsync_server_match_info;

/* Histograms: counts per bucket, bounds 25 us .. 100 ms (docs/operations.md "Metrics"). */
#define BSYNC_SERVER_HIST_BUCKETS 12u
#define BSYNC_SERVER_REFUSAL_KINDS 32u
typedef struct bsync_server_hist {
    uint64_t count[BSYNC_SERVER_HIST_BUCKETS]; /* observations <= bound k (not cumulative) */
    uint64_t overflow;                          /* above the last bound */
    uint64_t sum_us;
} bsync_server_hist;

typedef struct bsync_server_counters {
    uint32_t workers;
    uint32_t matches[4]; /* by BSYNC_SERVER_MATCH_* */
    uint32_t players_connected;
    uint64_t inputs_received, inputs_defaulted, inputs_clamped;
    uint64_t desyncs, checksums_verified, mismatched_checksums;
    uint64_t bytes_in, bytes_out, udp_in, udp_out;
    uint64_t dropped[BSYNC_SERVER_DROP_COUNT];
    bsync_server_host_stats host; /* summed; busy_permille the largest of the workers */
    bsync_server_hist tick_duration, tick_lateness;
    uint64_t hello_refused[BSYNC_SERVER_REFUSAL_KINDS]; /* HELLOs refused, by BYE reason (proto.h) */
    uint32_t draining;
} bsync_server_counters;

/* The Prometheus text exposition of c (docs/operations.md "Metrics"): the length it needs, written
 * NUL-terminated when it fits cap. */
BSYNC_API size_t bsync_server_metrics_text(const bsync_server_counters* c, char* buf, size_t cap);

/* Validates text fully (name/base_dir as bsync_match_config_parse; replay_path NULL: the config's),
 * then hands the match to the worker with the fewest players. BSYNC_CONFIG_ERROR "NAME: /path: msg",
 * BSYNC_DUPLICATE_NAME (its match id is in use), BSYNC_LIMIT_EXCEEDED (draining, or no room). */
BSYNC_API bsync_result bsync_server_pool_match_add(bsync_server_pool* pool, const char* text, size_t len,
                                                   const char* name, const char* base_dir, const char* replay_path,
                                                   bsync_server_match_info* out, bsync_error* err);
/* Ends the match (END reason shutdown, BYE MATCH_OVER): 0 requested, -1 no such match. */
BSYNC_API int bsync_server_pool_match_end(bsync_server_pool* pool, uint64_t match_id);
/* Every match as last published: writes min(cap, total), returns the total. */
BSYNC_API uint32_t bsync_server_pool_match_list(bsync_server_pool* pool, bsync_server_match_info* out, uint32_t cap);
BSYNC_API void bsync_server_pool_counters(bsync_server_pool* pool, bsync_server_counters* out);
/* Drain: matches not started end now, new ones are refused, running ones play on (run_ex's grace). */
BSYNC_API void bsync_server_pool_drain(bsync_server_pool* pool);
BSYNC_API int bsync_server_pool_draining(const bsync_server_pool* pool);
/* As _run; should_drain (thread-safe, may be NULL) starts a drain; then at most drain_grace_ms of play. */
BSYNC_API uint32_t bsync_server_pool_run_ex(bsync_server_pool* pool, bsync_server_stop_fn should_stop,
                                            bsync_server_stop_fn should_drain, void* user, int exit_when_done,
                                            uint32_t drain_grace_ms, uint32_t drain_ms);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SERVER_H */
