/* server_transport.h — the port between the server's sessions and a transport. Not installed.
 *
 * The sessions (server_session.c: connections, sealing, caps, violations, the handshake, dispatch;
 * server_match.c: the matches) call a transport only through srv_transport, and the transport calls
 * them only through the srv_conn_* / srv_* functions below. ENet is one adapter (server.c, behind
 * blendsync/server.h); tests/support/vnet.c is another, on virtual time, for the unit-level session
 * tests and the packet fuzzer. docs/server.md "Transport" is the design.
 *
 * Connections are numbered 0 .. connections - 1 by the transport (srv_create_on's count). The sessions
 * never block and read no clock of their own: every time is now_us. */
#ifndef BLENDSYNC_SERVER_TRANSPORT_H
#define BLENDSYNC_SERVER_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/server.h"

typedef struct srv_transport {
    void* user;
    /* Queue the bytes to connection conn on protocol channel `channel` (BSYNC_PROTO_CHANNEL_*):
     * reliable (delivered once, in order) or unreliable (sequenced, may be lost). 0, or -1 when it
     * could not be queued (nothing was). */
    int (*send)(void* user, uint32_t conn, uint32_t channel, int reliable, const uint8_t* data, size_t len);
    /* Disconnect conn once what is queued for it is delivered; srv_conn_gone follows. */
    void (*close)(void* user, uint32_t conn, uint32_t reason);
    /* Forget conn now: nothing more is sent or received on it, the peer is not told, no srv_conn_gone. */
    void (*drop)(void* user, uint32_t conn);
    /* One log line without its newline ("event=... key=value ..."); level "info", "warn" or "error". */
    void (*log)(void* user, const char* level, const char* text);
    /* Microseconds on a monotonic clock (a virtual one in tests). */
    uint64_t (*now_us)(void* user);
    /* bsync_server_destroy, after the matches: free the transport. May be NULL. */
    void (*release)(void* user);
} srv_transport;

/* A server on transport t: the config as bsync_server_create's (its host and port are the transport's
 * business), every match loaded, room for `connections` connections. */
bsync_result srv_create_on(const bsync_server_config* config, const srv_transport* t, uint32_t connections,
                           bsync_server** out, bsync_error* err);
/* The two halves of srv_create_on, for an adapter that sizes its connections from the matches (the
 * ENet host: twice the players): srv_init loads the matches into a zeroed server, then
 * srv_open_connections makes room. */
bsync_result srv_init(bsync_server* s, const bsync_server_config* config, const srv_transport* t, bsync_error* err);
bsync_result srv_open_connections(bsync_server* s, uint32_t connections);
uint32_t srv_players(const bsync_server* s); /* players of every match together */

/* Connection conn came up, from address addr_key (the per-address connect limit's key) shown as
 * ip:port in the log. A connection over the limit, or one while shutting down, is told BYE and closed. */
void srv_conn_open(bsync_server* s, uint32_t conn, uint32_t addr_key, const char* ip, uint16_t port);
/* A packet arrived on conn (ignored when conn is not open, or is closing). */
void srv_conn_receive(bsync_server* s, uint32_t conn, uint32_t channel, const uint8_t* data, size_t len);
/* conn is gone (after srv_transport.close, or lost): it leaves its match, the number is free again. */
void srv_conn_gone(bsync_server* s, uint32_t conn);
/* Every due tick of every match, the HELLO timeouts; call it often (at least every millisecond of
 * transport time while a match runs: srv_next_deadline says when the next tick is due). */
void srv_step(bsync_server* s, uint64_t now_us);
/* The transport time the next tick of some match is due (UINT64_MAX: none). */
uint64_t srv_next_deadline(const bsync_server* s);
/* Connections open now (closing ones included). */
uint32_t srv_open_count(const bsync_server* s);
/* End every match (END, BYE SHUTDOWN) and close every connection; new ones are refused from now on. */
void srv_shutdown(bsync_server* s);
/* The busy time of one pass of the adapter's loop (docs/server.md "Overload"): the overload judgement. */
void srv_load_note(bsync_server* s, uint64_t now_us, uint64_t busy_us);
/* Adds the adapter's datagram bytes since its last call (ENet: headers included) to the totals of the
 * status lines and match stats (host_udp_in, host_udp_out). */
void srv_traffic(bsync_server* s, uint64_t bytes_in, uint64_t bytes_out);
/* The transport's user pointer (the adapter's own state). */
void* srv_transport_user(const bsync_server* s);

#endif /* BLENDSYNC_SERVER_TRANSPORT_H */
