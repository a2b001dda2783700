/* client_enet.c — the ENet adapter of the client (bsync_client_create, bsync_client_service): one
 * ENet host with one peer, the server's address, its events turned into the session's calls
 * (client_transport.h) and the session's sends, closes and drops turned into ENet's. The session
 * itself is client.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/net.h"
#include "client_internal.h"

typedef struct cl_enet {
    ENetHost* host;
    ENetPeer* peer; /* the current connection (connecting or up), NULL: none */
    ENetAddress server;
    int net_started;
    enet_uint32 rtt, rtt_variance; /* the last connection's estimates (0: none measured) */
} cl_enet;

/* Keeps the connection's round trip estimates before ENet's reset forgets them. */
static void keep_rtt(cl_enet* e) {
    if (!e->peer || e->peer->state != ENET_PEER_STATE_CONNECTED) return;
    e->rtt = e->peer->roundTripTime;
    e->rtt_variance = e->peer->roundTripTimeVariance;
}

static int enet_connect(void* user) {
    cl_enet* e = user;
    keep_rtt(e);
    if (e->peer) enet_peer_reset(e->peer); /* a new ENet connect id: the server sees a new peer */
    e->peer = enet_host_connect(e->host, &e->server, BSYNC_PROTO_CHANNEL_COUNT, 0);
    if (!e->peer) return -1;
    bsync_net_peer_limits(e->peer);
    /* a reconnect starts from the path it knows, not ENet's default 500 ms: a lost handshake packet is
     * sent again after the round trip plus 4 deviations instead of after half a second or more */
    if (e->rtt) {
        e->peer->roundTripTime = e->rtt;
        e->peer->roundTripTimeVariance = e->rtt_variance;
    }
    return 0;
}

static int enet_send(void* user, uint32_t channel, int reliable, const uint8_t* data, size_t len) {
    cl_enet* e = user;
    if (!e->peer) return -1;
    ENetPacket* packet = enet_packet_create(data, len, reliable ? ENET_PACKET_FLAG_RELIABLE : 0);
    if (!packet) return -1;
    if (enet_peer_send(e->peer, (enet_uint8)channel, packet) != 0) {
        enet_packet_destroy(packet);
        return -1;
    }
    return 0;
}

static void enet_close(void* user) {
    cl_enet* e = user;
    keep_rtt(e);
    if (e->peer) enet_peer_disconnect_now(e->peer, 0);
    e->peer = NULL;
}

static void enet_drop(void* user) {
    cl_enet* e = user;
    keep_rtt(e);
    if (e->peer) enet_peer_reset(e->peer); /* no disconnect command, no event */
    e->peer = NULL;
}

static void enet_rtt(void* user, uint32_t* rtt_ms, uint32_t* variance_ms) {
    const cl_enet* e = user;
    *rtt_ms = e->peer ? e->peer->roundTripTime : 0;
    *variance_ms = e->peer ? e->peer->roundTripTimeVariance : 0;
}

static uint64_t enet_now(void* user) {
    (void)user;
    return bsync_net_now_us();
}

static void enet_release(void* user) {
    cl_enet* e = user;
    if (e->host) {
        enet_host_flush(e->host); /* the BYE */
        if (e->peer && e->peer->state == ENET_PEER_STATE_CONNECTED) {
            enet_peer_disconnect_later(e->peer, 0);
            enet_host_flush(e->host);
        }
        enet_host_destroy(e->host);
    }
    if (e->net_started) bsync_net_deinit();
    free(e);
}

static cl_enet* enet_of(const bsync_client* c) {
    const cl_transport* t = cl_transport_of(c);
    return t && t->connect == enet_connect ? (cl_enet*)t->user : NULL; /* else another transport's client */
}

static void set_err(bsync_error* err, bsync_result code, const char* msg) {
    if (!err) return;
    err->code = code;
    snprintf(err->message, sizeof err->message, "%s", msg);
}

bsync_result bsync_client_create(const bsync_client_config* cfg, bsync_client** out, bsync_error* err) {
    if (!cfg || !out || !cfg->host) {
        set_err(err, BSYNC_INVALID_ARGUMENT, "invalid client configuration");
        return BSYNC_INVALID_ARGUMENT;
    }
    *out = NULL;
    cl_enet* e = calloc(1, sizeof *e);
    if (!e) return BSYNC_OUT_OF_MEMORY;
    const cl_transport t = {e, enet_connect, enet_send, enet_close, enet_drop, enet_rtt, enet_now, enet_release};
    bsync_client* c = NULL;
    bsync_result r = cl_create_on(cfg, &t, &c, err);
    if (r != BSYNC_OK) {
        free(e);
        return r;
    }
    /* from here the client owns e: bsync_client_destroy releases it */
    const char* why = NULL;
    if (bsync_net_init() != 0) why = "cannot start ENet";
    else {
        e->net_started = 1;
        e->host = enet_host_create(NULL, 1, BSYNC_PROTO_CHANNEL_COUNT, 0, 0);
        if (!e->host) why = "cannot create an ENet host";
    }
    if (!why) {
        bsync_net_host_limits(e->host);
        memset(&e->server, 0, sizeof e->server);
        if (enet_address_set_host(&e->server, cfg->host) != 0) why = "cannot resolve the server address";
        e->server.port = cfg->port;
    }
    if (!why && cl_start(c) != BSYNC_OK) why = "cannot start connecting";
    if (why) {
        bsync_client_destroy(c);
        set_err(err, BSYNC_IO_ERROR, why);
        return BSYNC_IO_ERROR;
    }
    *out = c;
    return BSYNC_OK;
}

bsync_result bsync_client_service(bsync_client* c, uint32_t timeout_ms) {
    if (!c) return BSYNC_INVALID_ARGUMENT;
    cl_enet* e = enet_of(c);
    if (!e || !e->host) return BSYNC_OK;
    ENetEvent ev;
    int first = 1;
    while (enet_host_service(e->host, &ev, first ? timeout_ms : 0) > 0) {
        first = 0;
        switch (ev.type) {
        case ENET_EVENT_TYPE_CONNECT:
            if (ev.peer != e->peer) break;
            bsync_net_peer_limits(e->peer); /* now connected: the throttle setting too */
            cl_connected(c);
            break;
        case ENET_EVENT_TYPE_RECEIVE:
            cl_packet(c, ev.channelID, ev.packet->data, ev.packet->dataLength);
            enet_packet_destroy(ev.packet);
            break;
        case ENET_EVENT_TYPE_DISCONNECT:
            if (ev.peer != e->peer) break; /* an attempt already abandoned */
            e->peer = NULL;
            cl_disconnected(c);
            break;
        default: break;
        }
    }
    cl_step(c);
    bsync_net_host_retransmit_linear(e->host); /* before ENet's next timeout check */
    enet_host_flush(e->host);
    return BSYNC_OK;
}
