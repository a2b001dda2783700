/* server_agones.h — the Agones GameServer lifecycle of blendsync-server through the Agones SDK
 * sidecar's local REST API (libcurl): Ready once loaded, Health pings from a thread of its own, the
 * GameServer's state observed (Allocated), Shutdown at the end. Internal: built into blendsync-server
 * only when libcurl is found (BSYNC_HAVE_AGONES). design: docs/deploy.md#the-agones-lifecycle */
#ifndef BLENDSYNC_SERVER_AGONES_H
#define BLENDSYNC_SERVER_AGONES_H

#include <stdint.h>
#include <stdio.h>

#include "blendsync/base.h"

typedef struct srv_agones srv_agones;

typedef struct srv_agones_config {
    const char* base_url;        /* NULL: http://localhost:${AGONES_SDK_HTTP_PORT}, port default 9358 */
    uint32_t health_interval_ms; /* 0: 5000 */
    uint32_t connect_timeout_ms; /* how long to wait for the sidecar; 0: 60000 */
    FILE* log;                   /* NULL: stderr */
} srv_agones_config;

/* The default base URL (from the environment) into out. */
void srv_agones_default_url(char* out, size_t cap);
/* Starts the thread: it waits for the sidecar (retries with backoff), sends Ready, then Health every
 * interval and reads the GameServer's state. Call once the server is loaded and listening. */
bsync_result srv_agones_start(const srv_agones_config* cfg, srv_agones** out, bsync_error* err);
/* The last GameServer state seen ("" before any; "Ready", "Allocated", ...) into out. */
void srv_agones_state(srv_agones* a, char* out, size_t cap);
/* Stops the thread, then Shutdown (a few retries). 0 when the sidecar took it. Frees a. */
int srv_agones_shutdown(srv_agones* a);

#endif /* BLENDSYNC_SERVER_AGONES_H */
