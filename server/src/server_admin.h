/* server_admin.h — the admin HTTP API of blendsync-server (libmicrohttpd, its own thread): matches
 * created, listed, shown and ended on a running pool, /metrics, /healthz, /readyz. Internal to the
 * program (not installed, not in libblendsync). Every route, status and field: docs/operations.md. */
#ifndef BLENDSYNC_SERVER_ADMIN_H
#define BLENDSYNC_SERVER_ADMIN_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/server.h"

typedef struct bsync_server_admin_config {
    const char* host;        /* numeric IPv4 or "localhost"; loopback unless allow_public */
    uint16_t port;           /* 0: any free port */
    int allow_public;
    const char* token;       /* the bearer token, 1..512 bytes */
    const char* assets_dir;  /* graphs are named relative to it; the config's recorded path is in it */
    const char* replay_dir;  /* a posted config's "replay" is relative to it (NULL: assets_dir) */
    const char* match_host;  /* the host part of each match's address (the --listen host) */
    size_t body_max;         /* 0: 1 MiB */
} bsync_server_admin_config;

typedef struct bsync_server_admin bsync_server_admin;

/* Before bsync_server_pool_run (it reads the workers' ports). */
bsync_result bsync_server_admin_start(const bsync_server_admin_config* config, bsync_server_pool* pool,
                                      bsync_server_admin** out, bsync_error* err);
uint16_t bsync_server_admin_port(const bsync_server_admin* admin);
void bsync_server_admin_stop(bsync_server_admin* admin); /* NULL is ignored */

#endif /* BLENDSYNC_SERVER_ADMIN_H */
