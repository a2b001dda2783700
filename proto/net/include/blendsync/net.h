/* blendsync/net.h — the protocol over ENet, shared by server/ and client/lib/. Edge code.
 *
 * Index
 *   bsync_net_init / _deinit     ENet set-up and teardown (counted)
 *   bsync_net_host_limits, bsync_net_peer_limits   the protocol's ENet limits and timeouts
 *   bsync_net_host_retransmit_linear   no exponential retransmission backoff
 *   bsync_net_send / _send_ex, bsync_net_send_bytes   one message on its channel (sealed with a session)
 *   bsync_net_send_snapshot / _send_snapshot_ex, bsync_net_snapshot_chunk   SNAPSHOT chunks
 *   bsync_net_now_us, bsync_net_parse_address
 *
 * design: docs/protocol.md#enet-channels-and-reliability
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
/* Call after every enet_host_service of the host. */
BSYNC_API void bsync_net_host_retransmit_linear(ENetHost* host);
/* Returns the packet size, or -1 (nothing sent). */
BSYNC_API int bsync_net_send(ENetPeer* peer, const bsync_proto_msg* msg);
/* Sealed when the session is ready; NULL: plain. */
BSYNC_API int bsync_net_send_ex(ENetPeer* peer, const bsync_proto_msg* msg, bsync_session* session);
BSYNC_API int bsync_net_send_bytes(ENetPeer* peer, unsigned channel, uint32_t flags, const uint8_t* data, size_t len,
                                   bsync_session* session);

/* Returns the chunk count. */
BSYNC_API uint32_t bsync_net_snapshot_chunk(bsync_proto_msg* msg, uint32_t kind, uint32_t tick, const uint8_t* data,
                                           size_t len, uint32_t index);
/* Returns the bytes queued, or -1. */
BSYNC_API long bsync_net_send_snapshot(ENetPeer* peer, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                             uint32_t first_chunk);
BSYNC_API long bsync_net_send_snapshot_ex(ENetPeer* peer, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                                          uint32_t first_chunk, bsync_session* session);
BSYNC_API uint64_t bsync_net_now_us(void);
/* "HOST:PORT"; 0, or -1 on bad text. */
BSYNC_API int bsync_net_parse_address(const char* text, char* host, size_t host_cap, uint16_t* port);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_NET_H */
