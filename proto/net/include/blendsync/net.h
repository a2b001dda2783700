/* blendsync/net.h — the protocol over ENet: host set-up with the protocol's limits, sending one
 * message on its channel with its reliability, a monotonic clock. Shared by server/ and client/lib/.
 *
 * Index
 *   bsync_net_init / _deinit     enet_initialize / enet_deinitialize (counted: safe to nest)
 *   bsync_net_host_limits        apply BSYNC_PROTO_ENET_* limits to a host (packet size, buffered data)
 *   bsync_net_peer_limits        apply the peer timeout (BSYNC_PROTO_PEER_TIMEOUT_MS) and, once the peer
 *                                is connected (call it again then), switch off ENet's loss throttle
 *   bsync_net_host_retransmit_linear  after every enet_host_service: no exponential backoff of
 *                                reliable retransmissions (a thin stream's linear timeouts)
 *   bsync_net_send               encode a message and queue it on its channel (proto.h)
 *   bsync_net_send_snapshot      a snapshot as its SNAPSHOT chunks
 *   bsync_net_now_us             CLOCK_MONOTONIC in microseconds
 *   bsync_net_parse_address      "HOST:PORT" -> host text and port
 *
 * Edge code: sockets, malloc (ENet's), clocks. Never part of the deterministic core.
 */
#ifndef BLENDSYNC_NET_H
#define BLENDSYNC_NET_H

#include <stddef.h>
#include <stdint.h>

#include <enet/enet.h>

#include "blendsync/proto.h"
#include "blendsync/session.h"

#ifdef __cplusplus
extern "C" {
#endif

BSYNC_API int bsync_net_init(void);   /* 0 on success */
BSYNC_API void bsync_net_deinit(void);
BSYNC_API void bsync_net_host_limits(ENetHost* host);
BSYNC_API void bsync_net_peer_limits(ENetPeer* peer);
/* ENet doubles a reliable command's retransmission timeout on every loss and gives up once it reaches
 * 32 times the first (after at least 2 s). Our streams are thin (a frame per tick, an ack-sized
 * input): under bursty loss a frame lost four or five times in a row then waits seconds for its next
 * try while every later frame queues behind it, and ENet drops a peer whose link is working. This
 * clamps every in-flight reliable command's timeout to rtt + 4 * variance (within
 * BSYNC_PROTO_RETRANSMIT_MIN_MS .. MAX_MS) and moves the peer's next timeout check forward to match;
 * a peer is then dropped only when one command stays unacknowledged for its timeout maximum
 * (BSYNC_PROTO_PEER_TIMEOUT_MS). Call it after every enet_host_service of the host. */
BSYNC_API void bsync_net_host_retransmit_linear(ENetHost* host);
/* Encode `msg` and send it to `peer` on bsync_proto_channel(type), reliable or unreliable sequenced
 * as bsync_proto_reliable(type) says. Returns the packet size in bytes, or -1 (encoding refused or
 * ENet failed; nothing sent). */
BSYNC_API int bsync_net_send(ENetPeer* peer, const bsync_proto_msg* msg);
/* The same through an authenticated session (blendsync/session.h): with a ready session the encoded
 * message is sealed first (BSYNC_SESSION_OVERHEAD bytes more; the return value counts them); NULL or a
 * session without keys: plain, as bsync_net_send. */
BSYNC_API int bsync_net_send_ex(ENetPeer* peer, const bsync_proto_msg* msg, bsync_session* session);
/* Encoded bytes on `channel` with ENet packet `flags`, sealed when the session is ready. */
BSYNC_API int bsync_net_send_bytes(ENetPeer* peer, unsigned channel, uint32_t flags, const uint8_t* data, size_t len,
                                   bsync_session* session);

/* Chunk `index` of a snapshot of `len` bytes as the SNAPSHOT message bsync_net_send_snapshot sends
 * (kind, tick, index, count, total, up to 1024 bytes); returns the chunk count. */
BSYNC_API uint32_t bsync_net_snapshot_chunk(bsync_proto_msg* msg, uint32_t kind, uint32_t tick, const uint8_t* data,
                                           size_t len, uint32_t index);
/* A whole snapshot as SNAPSHOT messages of `kind` (chunks first_chunk .. last, 1024 bytes each but the
 * last; chunk 0 of a JOIN travels in the WELCOME, so joins start at 1). Returns the bytes queued, or -1
 * when a chunk could not be sent (the ones before it were). */
BSYNC_API long bsync_net_send_snapshot(ENetPeer* peer, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                             uint32_t first_chunk);
BSYNC_API long bsync_net_send_snapshot_ex(ENetPeer* peer, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                                          uint32_t first_chunk, bsync_session* session);
BSYNC_API uint64_t bsync_net_now_us(void);
/* "127.0.0.1:7777" -> host "127.0.0.1", port 7777. 0 on success, -1 (with no output) on bad text. */
BSYNC_API int bsync_net_parse_address(const char* text, char* host, size_t host_cap, uint16_t* port);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_NET_H */
