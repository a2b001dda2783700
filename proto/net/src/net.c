/* net.c — see blendsync/net.h. */
#include "blendsync/net.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h" /* the platform library (shared/src/io/platform): the monotonic clock */

static int g_init_count; /* enet_initialize is process-wide: counted so server and client can nest */

int bsync_net_init(void) {
    if (g_init_count++ > 0) return 0;
    if (enet_initialize() != 0) {
        g_init_count = 0;
        return -1;
    }
    return 0;
}

void bsync_net_deinit(void) {
    if (g_init_count <= 0) return;
    if (--g_init_count == 0) enet_deinitialize();
}

void bsync_net_host_limits(ENetHost* host) {
    if (!host) return;
    host->maximumPacketSize = BSYNC_PROTO_ENET_MAX_PACKET;
    host->maximumWaitingData = BSYNC_PROTO_ENET_MAX_WAITING_DATA;
    /* A server's socket takes every player's INPUT in the same few milliseconds of each tick; ENet's
     * 256 KiB buffers overflowed there at a few hundred players (datagrams dropped by the kernel, then
     * defaulted inputs and timeouts). The kernel caps this at net.core.rmem_max / wmem_max. */
    enet_socket_set_option(host->socket, ENET_SOCKOPT_RCVBUF, (int)BSYNC_PROTO_SOCKET_BUFFER);
    enet_socket_set_option(host->socket, ENET_SOCKOPT_SNDBUF, (int)BSYNC_PROTO_SOCKET_BUFFER);
}

void bsync_net_peer_limits(ENetPeer* peer) {
    if (!peer) return;
    enet_peer_timeout(peer, 32, 2000, BSYNC_PROTO_PEER_TIMEOUT_MS);
    /* No loss-driven throttle: ENet's default halves its packet throttle on every RTT spike, and the
     * throttle both drops unreliable packets (our inputs) at the sender and shrinks the reliable window
     * to one MTU in flight, so on a lossy path frames queue up behind retransmissions and a client
     * falls seconds behind. Our streams are a few KB/s; the per-peer caps bound them instead.
     * Deceleration 0 keeps the throttle at its maximum (the remote peer is told the same, which is why
     * this waits for the connection: a THROTTLE_CONFIGURE command before it is refused by the remote
     * ENet, with the whole datagram, and wedges the handshake). */
    if (peer->state == ENET_PEER_STATE_CONNECTED)
        enet_peer_throttle_configure(peer, ENET_PEER_PACKET_THROTTLE_INTERVAL, ENET_PEER_PACKET_THROTTLE_SCALE, 0);
}

/* ENet's ENET_TIME_LESS (enet/time.h, not part of enet.h): millisecond clocks that wrap */
static int time_less(enet_uint32 a, enet_uint32 b) { return a - b >= 86400000u; }

static void cap_timeouts(ENetList* list, enet_uint32 cap, enet_uint32* next, int* have_next) {
    for (ENetListIterator it = enet_list_begin(list); it != enet_list_end(list); it = enet_list_next(it)) {
        ENetOutgoingCommand* oc = (ENetOutgoingCommand*)it;
        if (!(oc->command.header.command & ENET_PROTOCOL_COMMAND_FLAG_ACKNOWLEDGE) || oc->roundTripTimeout == 0) continue;
        if (oc->roundTripTimeout > cap) oc->roundTripTimeout = cap;
        if (!next || oc->sendAttempts == 0) continue;
        enet_uint32 due = oc->sentTime + oc->roundTripTimeout;
        if (!*have_next || time_less(due, *next)) *next = due, *have_next = 1;
    }
}

void bsync_net_host_retransmit_linear(ENetHost* host) {
    if (!host) return;
    for (size_t i = 0; i < host->peerCount; i++) {
        ENetPeer* p = &host->peers[i];
        if (p->state == ENET_PEER_STATE_DISCONNECTED || p->state == ENET_PEER_STATE_ZOMBIE) continue;
        enet_uint32 cap = p->roundTripTime + 4u * p->roundTripTimeVariance;
        if (cap < BSYNC_PROTO_RETRANSMIT_MIN_MS) cap = BSYNC_PROTO_RETRANSMIT_MIN_MS;
        if (cap > BSYNC_PROTO_RETRANSMIT_MAX_MS) cap = BSYNC_PROTO_RETRANSMIT_MAX_MS;
        enet_uint32 next = 0;
        int have_next = 0;
        cap_timeouts(&p->sentReliableCommands, cap, &next, &have_next);
        cap_timeouts(&p->outgoingCommands, cap, NULL, NULL); /* queued for a retransmission */
        if (have_next && time_less(next, p->nextTimeout)) p->nextTimeout = next;
    }
}

int bsync_net_send_bytes(ENetPeer* peer, unsigned channel, uint32_t flags, const uint8_t* data, size_t len,
                         bsync_session* session) {
    if (!peer || (!data && len)) return -1;
    uint8_t sealed[BSYNC_PROTO_MAX_PACKET + BSYNC_SESSION_OVERHEAD];
    if (session && session->ready) {
        size_t n = 0;
        if (bsync_session_seal(session, channel, data, len, sealed, sizeof sealed, &n) != BSYNC_OK) return -1;
        data = sealed;
        len = n;
    }
    ENetPacket* packet = enet_packet_create(data, len, flags);
    if (!packet) return -1;
    if (enet_peer_send(peer, (enet_uint8)channel, packet) != 0) {
        enet_packet_destroy(packet);
        return -1;
    }
    return (int)len;
}

int bsync_net_send_ex(ENetPeer* peer, const bsync_proto_msg* msg, bsync_session* session) {
    if (!peer || !msg) return -1;
    uint8_t buf[BSYNC_PROTO_MAX_PACKET];
    size_t len = 0;
    if (bsync_proto_encode(msg, buf, sizeof buf, &len) != BSYNC_PROTO_OK) return -1;
    unsigned type = (unsigned)msg->type;
    enet_uint32 flags = bsync_proto_reliable(type) ? ENET_PACKET_FLAG_RELIABLE : 0;
    return bsync_net_send_bytes(peer, bsync_proto_channel(type), flags, buf, len, session);
}

int bsync_net_send(ENetPeer* peer, const bsync_proto_msg* msg) { return bsync_net_send_ex(peer, msg, NULL); }

uint32_t bsync_net_snapshot_chunk(bsync_proto_msg* m, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                                  uint32_t index) {
    uint32_t count = (uint32_t)((len + BSYNC_PROTO_SNAPSHOT_CHUNK - 1) / BSYNC_PROTO_SNAPSHOT_CHUNK);
    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_SNAPSHOT;
    m->snapshot.tick = tick;
    m->snapshot.kind = (uint8_t)kind;
    m->snapshot.chunk_index = (uint16_t)index;
    m->snapshot.chunk_count = (uint16_t)count;
    m->snapshot.total_size = (uint32_t)len;
    size_t off = (size_t)index * BSYNC_PROTO_SNAPSHOT_CHUNK;
    size_t n = off < len ? (len - off < BSYNC_PROTO_SNAPSHOT_CHUNK ? len - off : BSYNC_PROTO_SNAPSHOT_CHUNK) : 0;
    m->snapshot.len = (uint16_t)n;
    if (n) memcpy(m->snapshot.data, data + off, n);
    return count;
}

long bsync_net_send_snapshot(ENetPeer* peer, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                             uint32_t first_chunk) {
    return bsync_net_send_snapshot_ex(peer, kind, tick, data, len, first_chunk, NULL);
}

long bsync_net_send_snapshot_ex(ENetPeer* peer, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                                uint32_t first_chunk, bsync_session* session) {
    uint32_t count = (uint32_t)((len + BSYNC_PROTO_SNAPSHOT_CHUNK - 1) / BSYNC_PROTO_SNAPSHOT_CHUNK);
    bsync_proto_msg* m = malloc(sizeof *m); /* large: not on the stack */
    if (!m) return -1;
    long total = 0;
    for (uint32_t i = first_chunk; i < count; i++) {
        bsync_net_snapshot_chunk(m, kind, tick, data, len, i);
        int sent = bsync_net_send_ex(peer, m, session);
        if (sent < 0) {
            total = -1;
            break;
        }
        total += sent;
    }
    free(m);
    return total;
}

uint64_t bsync_net_now_us(void) { return bsync_platform_now_ns() / 1000u; }

int bsync_net_parse_address(const char* text, char* host, size_t host_cap, uint16_t* port) {
    if (!text || !host || !port) return -1;
    const char* colon = strrchr(text, ':');
    if (!colon || colon == text) return -1;
    size_t n = (size_t)(colon - text);
    if (n + 1 > host_cap) return -1;
    char* end = NULL;
    long p = strtol(colon + 1, &end, 10);
    if (!end || *end != '\0' || end == colon + 1 || p < 1 || p > 65535) return -1;
    memcpy(host, text, n);
    host[n] = '\0';
    *port = (uint16_t)p;
    return 0;
}
