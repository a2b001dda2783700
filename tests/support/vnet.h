/* vnet.h — a virtual network on virtual time: the test adapter of the server's and the client's
 * transport ports (server/src/server_transport.h, client/lib/client_transport.h). The real sessions
 * (server_session.c, server_match.c, client.c) run in one process with no socket and no clock; time
 * moves only in vn_run, so every run of a test is the same run. For the unit-level session tests
 * (tests/unit/server/test_lockstep_virtual.c) and the packet fuzzer (tests/fuzz/fuzz_server_packet.c).
 * The integration tests keep real sockets (tests/net: ENet on loopback, the UDP relay).
 *
 * The model of a connection is ENet's, as the sessions see it: per link one latency for every packet
 * (so each direction stays in order), reliable packets never lost, unreliable ones lost at the link's
 * rate (a seeded stream); a connect takes a round trip; a close reaches the other side after what was
 * queued before it; a side that drops a connection tells nobody, and the other side hears of it after
 * ENet's peer timeout (BSYNC_PROTO_PEER_TIMEOUT_MS).
 *
 * Not thread-safe. One server per net; up to VN_MAX_CLIENTS clients. */
#ifndef BSYNC_VNET_H
#define BSYNC_VNET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blendsync/client.h"
#include "blendsync/server.h"

#define VN_MAX_CLIENTS 16u

typedef struct vn_net vn_net;

typedef struct vn_link {
    uint32_t latency_us;    /* one way, every packet (0: 1 ms) */
    uint32_t loss_permille; /* unreliable packets lost, each direction */
} vn_link;

/* An empty net at virtual time 1 s (a clock of 0 would read as "never" to some timers). */
vn_net* vn_create(uint64_t seed);
/* Destroys the clients and the server it made, then the net. */
void vn_destroy(vn_net* n);
uint64_t vn_now(const vn_net* n);

/* The server, on virtual time: config as bsync_server_create's (host and port unused); the net owns it
 * (vn_destroy destroys it). Its log lines
 * go to config->log with the virtual time in ms when that is set, and are kept for vn_log_count when
 * it is NULL. Room for `connections` connections at once. */
bsync_result vn_server(vn_net* n, const bsync_server_config* config, uint32_t connections, bsync_server** out,
                       bsync_error* err);
/* A client connected to the server over a link (config->host and port unused); it starts connecting
 * at once. bsync_client_destroy (or vn_destroy) ends it, saying BYE as over ENet. */
bsync_result vn_client(vn_net* n, const bsync_client_config* config, const vn_link* link, bsync_client** out,
                       bsync_error* err);

/* The link of client number `client` (in vn_client's order) from now on; packets already on their way
 * keep their time, and a shorter latency never lets a packet overtake an earlier one. */
void vn_client_link(vn_net* n, uint32_t client, const vn_link* link);
/* Its next `count` packets sent on from_channel arrive on to_channel (sealed ones keep their lane). */
void vn_client_misroute(vn_net* n, uint32_t client, uint32_t from_channel, uint32_t to_channel, uint32_t count);
/* The next packet of message type `type` the server sends it (an unsealed header's type byte) arrives
 * late_us after the link's latency, as a reliable packet resent after a loss: the later packets of its
 * channel wait for it, those of the other channels do not. */
void vn_client_late(vn_net* n, uint32_t client, uint32_t type, uint32_t late_us);

/* Advance virtual time by us, at most 1 ms at a time: every event falls due at its own time, then the
 * server (srv_step) and every client (cl_step) take their step. */
void vn_run(vn_net* n, uint64_t us);

/* Raw connections to the server, for the fuzzer: a connection that has just come up (from address
 * key addr_key; UINT32_MAX when the server has no room), one packet delivered on it now (-1 when the
 * connection is not open: the server dropped it, or it is gone), the connection gone (as a lost one).
 * What the server sends on them is counted, then discarded; a close of one waits for vn_raw_gone. */
uint32_t vn_raw_open(vn_net* n, uint32_t addr_key);
int vn_raw_packet(vn_net* n, uint32_t conn, const uint8_t* data, size_t len);
/* The same on a given ENet channel (vn_raw_packet: its type's channel, or a sealed packet's lane). */
int vn_raw_packet_on(vn_net* n, uint32_t conn, uint32_t channel, const uint8_t* data, size_t len);
void vn_raw_gone(vn_net* n, uint32_t conn);
uint64_t vn_raw_bytes_discarded(const vn_net* n);

/* Server log lines kept (config->log NULL) that contain `text`. */
uint32_t vn_log_count(const vn_net* n, const char* text);

#endif /* BSYNC_VNET_H */
