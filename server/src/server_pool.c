/* server_pool.c — several servers in one process, one per worker thread (blendsync/server.h
 * "Workers"). Each worker is a whole bsync_server: its own ENet host on its own port, its own matches
 * (match k of the config goes to worker k % workers), peers, overload judgement and log lines. The
 * workers share nothing but the log stream (one write per line) and the stop callback, so a match's
 * whole life stays on one thread, as the single-threaded server keeps it. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/server.h"
#include "server_admin_pool.h"

#include "platform.h" /* threads */

bsync_result bsync_server_pool_create(const bsync_server_config* cfg, uint32_t workers, bsync_server_pool** out,
                                      bsync_error* err) {
    if (out) *out = NULL;
    if (!cfg || !out || workers < 1 || workers > BSYNC_SERVER_MAX_WORKERS ||
        (cfg->match_count < workers && !cfg->player_capacity) ||
        (cfg->replay_override && cfg->match_count != 1)) {
        if (err) {
            err->code = BSYNC_INVALID_ARGUMENT;
            snprintf(err->message, sizeof err->message,
                     "workers: 1..%u, and at least one match per worker (%u matches for %u workers)",
                     BSYNC_SERVER_MAX_WORKERS, cfg ? cfg->match_count : 0u, workers);
        }
        return BSYNC_INVALID_ARGUMENT;
    }
    bsync_server_pool* p = calloc(1, sizeof *p);
    if (!p) return BSYNC_OUT_OF_MEMORY;
    if (pool_ops_init(p, workers, cfg->player_capacity) != BSYNC_OK) {
        bsync_server_pool_destroy(p);
        return BSYNC_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < cfg->match_count; i++) {
        pool_worker* w = &p->workers[i % workers];
        w->paths[w->path_count++] = cfg->match_paths[i];
    }
    for (uint32_t k = 0; k < workers; k++) {
        pool_worker* w = &p->workers[k];
        w->pool = p;
        bsync_server_config c = *cfg;
        c.match_paths = w->paths;
        c.match_count = w->path_count;
        c.port = cfg->port ? (uint16_t)(cfg->port + k) : 0u; /* consecutive ports, or any free ones */
        if (cfg->port && (uint32_t)cfg->port + k > 65535u) {
            if (err) {
                err->code = BSYNC_INVALID_ARGUMENT;
                snprintf(err->message, sizeof err->message, "workers: ports %u..%u go past 65535", (unsigned)cfg->port,
                         (unsigned)cfg->port + workers - 1u);
            }
            bsync_server_pool_destroy(p);
            return BSYNC_INVALID_ARGUMENT;
        }
        bsync_result r = bsync_server_create(&c, &w->server, err);
        if (r != BSYNC_OK) {
            bsync_server_pool_destroy(p);
            return r;
        }
        p->count = k + 1;
    }
    pool_ops_register_files(p);
    *out = p;
    return BSYNC_OK;
}

void bsync_server_pool_destroy(bsync_server_pool* p) {
    if (!p) return;
    pool_ops_free(p); /* before the servers: a match handed over and never taken is destroyed with them */
    for (uint32_t k = 0; k < p->count; k++) bsync_server_destroy(p->workers[k].server);
    free(p);
}

uint32_t bsync_server_pool_worker_count(const bsync_server_pool* p) { return p ? p->count : 0u; }

bsync_server* bsync_server_pool_worker(bsync_server_pool* p, uint32_t k) {
    return p && k < p->count ? p->workers[k].server : NULL;
}

/* Until stopped, or (with exit_when_done) every match ended, or a drain's end: every match of the
 * worker ended, or the grace period passed. Between passes: the operator's requests and figures
 * (server_admin_pool.c), never waiting for them. */
static void worker_run(void* arg) {
    pool_worker* w = arg;
    bsync_server_pool* p = w->pool;
    uint64_t drain_until = 0;
    int draining = 0;
    while (!(p->should_stop && p->should_stop(p->user))) {
        if (p->should_drain && !bsync_server_pool_draining(p) && p->should_drain(p->user)) bsync_server_pool_drain(p);
        if (!draining && bsync_server_pool_draining(p)) {
            draining = 1;
            drain_until = bsync_platform_now_ns() / 1000u + 1000ull * p->drain_grace_ms;
            pool_worker_drain_begin(w, p->drain_grace_ms);
        }
        bsync_server_service(w->server, 50);
        pool_worker_exchange(w, 0);
        if (draining && (bsync_server_done(w->server) || bsync_platform_now_ns() / 1000u >= drain_until)) break;
        if (p->exit_when_done && bsync_server_done(w->server)) break;
    }
    if (draining) pool_worker_drain_end(w);
    w->left = bsync_server_drain(w->server, p->drain_ms);
    pool_worker_exchange(w, 1);
}

uint32_t bsync_server_pool_run(bsync_server_pool* p, bsync_server_stop_fn should_stop, void* user, int exit_when_done,
                               uint32_t drain_ms) {
    return bsync_server_pool_run_ex(p, should_stop, NULL, user, exit_when_done, 0, drain_ms);
}

uint32_t bsync_server_pool_run_ex(bsync_server_pool* p, bsync_server_stop_fn should_stop, bsync_server_stop_fn should_drain,
                                  void* user, int exit_when_done, uint32_t drain_grace_ms, uint32_t drain_ms) {
    if (!p) return 0;
    p->should_drain = should_drain;
    p->drain_grace_ms = drain_grace_ms;
    p->should_stop = should_stop;
    p->user = user;
    p->exit_when_done = exit_when_done;
    p->drain_ms = drain_ms;
    for (uint32_t k = 1; k < p->count; k++) {
        pool_worker* w = &p->workers[k];
        w->started = bsync_platform_thread_create(&w->thread, worker_run, w) == 0;
    }
    worker_run(&p->workers[0]);
    /* a worker whose thread could not start runs here, after the others (never silently skipped) */
    for (uint32_t k = 1; k < p->count; k++)
        if (!p->workers[k].started) worker_run(&p->workers[k]);
    uint32_t left = p->workers[0].left;
    for (uint32_t k = 1; k < p->count; k++) {
        if (p->workers[k].started) bsync_platform_thread_join(&p->workers[k].thread);
        left += p->workers[k].left;
    }
    return left;
}
