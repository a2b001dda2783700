/* client_transport.h — the port between the client's session (client.c) and a transport. Not
 * installed.
 *
 * The session (the handshake, sealing, inputs, frames, checksums, desync answers, snapshots, the end,
 * connect retries and reconnects) calls a transport only through cl_transport, and the transport
 * calls it only through the cl_* functions below. ENet is one adapter (client_enet.c, behind
 * bsync_client_create and bsync_client_service); tests/support/vnet.c is another, on virtual time.
 * The session has one connection to the server at a time and reads no clock of its own: every time
 * is now_us. docs/lockstep.md "Transport" is the design. */
#ifndef BLENDSYNC_CLIENT_TRANSPORT_H
#define BLENDSYNC_CLIENT_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/client.h"

typedef struct cl_transport {
    void* user;
    /* Begin a new connection to the server, forgetting the current one if any (no event for it, the
     * server is not told). 0, or -1 when none could be begun. cl_connected follows once it is up. */
    int (*connect)(void* user);
    /* Queue the bytes on protocol channel `channel` (BSYNC_PROTO_CHANNEL_*): reliable (delivered once,
     * in order) or unreliable (sequenced, may be lost). 0, or -1 when nothing was queued. */
    int (*send)(void* user, uint32_t channel, int reliable, const uint8_t* data, size_t len);
    /* End the connection now, telling the server (what was queued before may be lost); no event follows. */
    void (*close)(void* user);
    /* Forget the connection now without telling the server (it sees silence); no event follows. */
    void (*drop)(void* user);
    /* The connection's round-trip time and its variance in ms (0 and 0 without a connection). */
    void (*rtt)(void* user, uint32_t* rtt_ms, uint32_t* variance_ms);
    /* Microseconds on a monotonic clock (a virtual one in tests). */
    uint64_t (*now_us)(void* user);
    /* bsync_client_destroy, after its BYE: deliver what is queued as far as it can, then free the
     * transport. May be NULL. */
    void (*release)(void* user);
} cl_transport;

/* A client session on transport t, not yet connecting (the config checked as bsync_client_create's;
 * host and port are the transport's business). On failure the caller keeps t; on success
 * bsync_client_destroy releases it. */
bsync_result cl_create_on(const bsync_client_config* config, const cl_transport* t, bsync_client** out, bsync_error* err);
/* The first connection attempt (transport connect) and the connect deadline. BSYNC_IO_ERROR when the
 * transport could not begin one. */
bsync_result cl_start(bsync_client* c);
/* The transport's events: the connection came up; a packet arrived on channel; the connection went
 * down (the server closed it, or it was lost). */
void cl_connected(bsync_client* c);
void cl_packet(bsync_client* c, uint32_t channel, const uint8_t* data, size_t len);
void cl_disconnected(bsync_client* c);
/* After the transport's events: connect retries and their deadline, a broken session's reconnect,
 * the end of the match. Call it every pass (bsync_client_service does). */
void cl_step(bsync_client* c);
/* The client's transport (an adapter recognises its own by its functions). */
const cl_transport* cl_transport_of(const bsync_client* c);

#endif /* BLENDSYNC_CLIENT_TRANSPORT_H */
