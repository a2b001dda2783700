/* server_admin_pool.h — the pool's state (server_pool.c runs the workers) and its operator side
 * (server_admin_pool.c: matches added and ended from another thread, the figures the workers
 * publish, the drain). Not a public header; the design: docs/operations.md. */
#ifndef BLENDSYNC_SERVER_ADMIN_POOL_H
#define BLENDSYNC_SERVER_ADMIN_POOL_H

#include <stdatomic.h>
#include <stdint.h>

#include "blendsync/server.h"
#include "platform.h" /* threads */

#define POOL_MAILBOX 64u          /* requests waiting for one worker */
#define POOL_PUBLISH_US 100000ull /* a worker publishes its figures this often */

typedef struct srv_match srv_match;

typedef struct pool_request {
    srv_match* add; /* a match to serve, or NULL: end match_id */
    uint64_t match_id;
} pool_request;

typedef struct pool_worker {
    bsync_server* server;
    bsync_server_pool* pool;
    bsync_platform_thread thread;
    int started;   /* a thread runs it (worker 0 runs on the caller's thread) */
    uint32_t left; /* peers still connected after the drain */
    const char* paths[BSYNC_SERVER_MAX_MATCHES];
    uint32_t path_count;
    /* the hand-off with other threads: `lock` guards the mailbox and the published figures; the
     * worker only ever tries it (a busy lock waits for its next pass) */
    atomic_flag lock;
    atomic_int mail_pending;
    pool_request mail[POOL_MAILBOX];
    uint32_t mail_count;
    bsync_server_match_info* pub; /* BSYNC_SERVER_MAX_MATCHES, by the worker's match index (no replay_path) */
    uint32_t pub_count;
    bsync_server_counters pub_counters; /* this worker's sums */
    uint64_t next_publish_us;
    /* the operator side's bookkeeping (under the pool's reg_lock) */
    uint32_t players_assigned, matches_assigned;
} pool_worker;

typedef struct pool_entry {
    uint64_t match_id;
    uint32_t worker, index; /* the worker's match index */
    char* replay_path;
} pool_entry;

struct bsync_server_pool {
    uint32_t count;
    pool_worker workers[BSYNC_SERVER_MAX_WORKERS];
    /* run's arguments, read by every worker */
    bsync_server_stop_fn should_stop, should_drain;
    void* user;
    int exit_when_done;
    uint32_t drain_ms, drain_grace_ms;
    atomic_int draining;
    /* every match of the pool, in the order added (under reg_lock) */
    atomic_flag reg_lock;
    pool_entry* entries;
    uint32_t entry_count, entry_cap;
    uint32_t player_capacity; /* per worker; 0: no match can be added */
};

bsync_result pool_ops_init(bsync_server_pool* p, uint32_t workers, uint32_t player_capacity);
void pool_ops_register_files(bsync_server_pool* p); /* the --match files, before run */
void pool_ops_free(bsync_server_pool* p);
/* On the worker's thread: take requests, publish figures (every POOL_PUBLISH_US, or force). */
void pool_worker_exchange(pool_worker* w, int force);
void pool_worker_drain_begin(pool_worker* w, uint32_t grace_ms); /* lobbies end, logged */
void pool_worker_drain_end(pool_worker* w);                      /* logged */

#endif /* BLENDSYNC_SERVER_ADMIN_POOL_H */
