/* server.c — the ENet adapter of the server (blendsync/server.h): the host, its events turned into the
 * sessions' calls (server_transport.h), the sessions' sends, closes and drops turned into ENet's, the
 * log stream with its time stamps, the service loop with its busy share. The sessions themselves are
 * server_session.c and server_match.c. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include "blendsync/net.h"
#include "platform.h" /* bsync_platform_sleep_us */
#include "server_internal.h"

typedef struct srv_enet {
    bsync_server* server;
    FILE* log;
    ENetHost* host;
    uint16_t port;
    uint64_t last_pass_us; /* when the last pass began reading the socket (the quantum) */
} srv_enet;

#define SRV_SERVICE_QUANTUM_US 1000u /* passes at least this far apart (bsync_server_service) */

static srv_enet* enet_of(const bsync_server* s);

/* ---- the transport's callbacks */

static int enet_send(void* user, uint32_t conn, uint32_t channel, int reliable, const uint8_t* data, size_t len) {
    srv_enet* e = user;
    if (!e->host || conn >= e->host->peerCount) return -1;
    ENetPacket* packet = enet_packet_create(data, len, reliable ? ENET_PACKET_FLAG_RELIABLE : 0);
    if (!packet) return -1;
    if (enet_peer_send(&e->host->peers[conn], (enet_uint8)channel, packet) != 0) {
        enet_packet_destroy(packet);
        return -1;
    }
    return 0;
}

static void enet_close(void* user, uint32_t conn, uint32_t reason) {
    srv_enet* e = user;
    if (e->host && conn < e->host->peerCount) enet_peer_disconnect_later(&e->host->peers[conn], reason);
}

static void enet_drop(void* user, uint32_t conn) {
    srv_enet* e = user;
    if (e->host && conn < e->host->peerCount) enet_peer_reset(&e->host->peers[conn]);
}

static void enet_log(void* user, const char* level, const char* text) {
    srv_enet* e = user;
    FILE* f = e->log ? e->log : stderr;
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    time_t secs = tv.tv_sec;
    gmtime_r(&secs, &tm);
    char ts[32];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    /* one write per line: the workers of a pool (server_pool.c) share the stream */
    char line[4096];
    int n = snprintf(line, sizeof line, "ts=%s.%03ldZ level=%s %s", ts, (long)(tv.tv_usec / 1000), level, text);
    if (n < 0) return;
    size_t used = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1u;
    if (used > sizeof line - 2u) used = sizeof line - 2u; /* a line cut at 4 KiB keeps its newline */
    line[used++] = '\n';
    fwrite(line, 1, used, f);
    fflush(f);
}

static uint64_t enet_now(void* user) {
    (void)user;
    return bsync_net_now_us();
}

static void enet_release(void* user) {
    srv_enet* e = user;
    if (e->host) {
        enet_host_flush(e->host);
        enet_host_destroy(e->host);
        bsync_net_deinit();
    }
    free(e);
}

static srv_enet* enet_of(const bsync_server* s) {
    /* a server on another transport (tests/support/vnet.c) has no host to serve */
    return s && s->transport.send == enet_send ? (srv_enet*)s->transport.user : NULL;
}

/* ENet's byte counters (u32) folded into the server's totals. */
static void fold_traffic(bsync_server* s, srv_enet* e) {
    srv_traffic(s, e->host->totalReceivedData, e->host->totalSentData);
    e->host->totalReceivedData = e->host->totalSentData = 0;
}

/* ---- blendsync/server.h */

static bsync_result fail(bsync_server* s, bsync_error* err, bsync_result code, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static bsync_result fail(bsync_server* s, bsync_error* err, bsync_result code, const char* fmt, ...) {
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    bsync_server_destroy(s);
    return code;
}

bsync_result bsync_server_create(const bsync_server_config* cfg, bsync_server** out, bsync_error* err) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    *out = NULL;
    bsync_server* s = calloc(1, sizeof *s);
    srv_enet* e = calloc(1, sizeof *e);
    if (!s || !e) {
        free(s);
        free(e);
        return BSYNC_OUT_OF_MEMORY;
    }
    e->server = s;
    e->log = cfg && cfg->log ? cfg->log : stderr;
    srv_transport t = {e, enet_send, enet_close, enet_drop, enet_log, enet_now, enet_release};
    s->transport = t; /* the server owns e from here (bsync_server_destroy releases it) */
    bsync_result r = srv_init(s, cfg, &t, err);
    if (r != BSYNC_OK) {
        bsync_server_destroy(s);
        return r;
    }
    if (bsync_net_init() != 0) return fail(s, err, BSYNC_IO_ERROR, "cannot start ENet");
    ENetAddress addr;
    memset(&addr, 0, sizeof addr);
    if (enet_address_set_host(&addr, cfg->host ? cfg->host : "127.0.0.1") != 0) {
        bsync_net_deinit();
        return fail(s, err, BSYNC_IO_ERROR, "cannot resolve the listen address \"%s\"", cfg->host);
    }
    addr.port = cfg->port;
    const uint32_t players = srv_players(s);
    size_t peers = players * 2u + 16u; /* room for reconnects and refused peers */
    if (peers > ENET_PROTOCOL_MAXIMUM_PEER_ID) peers = ENET_PROTOCOL_MAXIMUM_PEER_ID; /* one ENet host's limit */
    if (players + 16u > peers) {
        bsync_net_deinit();
        return fail(s, err, BSYNC_CONFIG_ERROR,
                    "%u players in %u matches: one ENet host holds at most %u peers (players and room for "
                    "reconnects); spread the matches over workers (--workers)",
                    players, s->match_count, (unsigned)ENET_PROTOCOL_MAXIMUM_PEER_ID);
    }
    e->host = enet_host_create(&addr, peers, BSYNC_PROTO_CHANNEL_COUNT, 0, 0);
    if (!e->host) {
        bsync_net_deinit();
        return fail(s, err, BSYNC_IO_ERROR, "cannot listen on %s:%u (address in use?)", cfg->host ? cfg->host : "127.0.0.1",
                    (unsigned)cfg->port);
    }
    bsync_net_host_limits(e->host);
    e->host->maximumPacketSize = BSYNC_PROTO_ENET_ACCEPT_PACKET; /* see on_receive: oversized is answered */
    e->host->duplicatePeers = 64;
    e->port = e->host->address.port;
    if (srv_open_connections(s, (uint32_t)e->host->peerCount) != BSYNC_OK) {
        bsync_server_destroy(s);
        return BSYNC_OUT_OF_MEMORY;
    }
    srv_log(s, "info", "event=listening address=%s:%u matches=%u verify_poses=%d", cfg->host ? cfg->host : "127.0.0.1",
            (unsigned)e->port, s->match_count, cfg->verify_poses);
    *out = s;
    return BSYNC_OK;
}

uint16_t bsync_server_port(const bsync_server* s) {
    const srv_enet* e = enet_of(s);
    return e ? e->port : 0;
}

uint32_t bsync_server_drain(bsync_server* s, uint32_t timeout_ms) {
    if (!s) return 0;
    uint64_t until = bsync_net_now_us() + 1000ull * timeout_ms;
    bsync_server_shutdown(s);
    while (srv_open_count(s) > 0 && bsync_net_now_us() < until) bsync_server_service(s, 10);
    return srv_open_count(s);
}

void bsync_server_shutdown(bsync_server* s) {
    srv_shutdown(s);
    srv_enet* e = enet_of(s);
    if (e) enet_host_flush(e->host);
}

/* One ENet event turned into the sessions' call. */
static void on_event(bsync_server* s, srv_enet* e, ENetEvent* ev) {
    const size_t conn = (size_t)(ev->peer - e->host->peers);
    if (conn >= e->host->peerCount) {
        if (ev->type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(ev->packet);
        return;
    }
    switch (ev->type) {
    case ENET_EVENT_TYPE_CONNECT: {
        bsync_net_peer_limits(ev->peer);
        char ip[64] = "?";
        enet_address_get_host_ip(&ev->peer->address, ip, sizeof ip);
        srv_conn_open(s, (uint32_t)conn, ev->peer->address.host, ip, ev->peer->address.port);
        break;
    }
    case ENET_EVENT_TYPE_RECEIVE:
        srv_conn_receive(s, (uint32_t)conn, ev->channelID, ev->packet->data, ev->packet->dataLength);
        enet_packet_destroy(ev->packet);
        break;
    case ENET_EVENT_TYPE_DISCONNECT: srv_conn_gone(s, (uint32_t)conn); break;
    default: break;
    }
}

/* Every event of `first` (an event already taken, or none) and of the datagrams waiting in the socket.
 * enet_host_service walks the whole peer table twice per call, so it is called once per 256 datagrams
 * (what one call reads) and the events it queued are taken with enet_host_check_events, which walks
 * nothing. A tick falling due meanwhile is confirmed on time. Returns the number of events. */
static uint32_t drain(bsync_server* s, srv_enet* e, ENetEvent* first, int have_first) {
    uint32_t n = 0;
    uint64_t due = srv_next_deadline(s);
    ENetEvent ev;
    if (have_first) ev = *first;
    for (int again = 1; again;) {
        int got = 1;
        again = 0;
        if (!have_first) {
            const enet_uint32 before = e->host->totalReceivedPackets;
            got = enet_host_service(e->host, &ev, 0);
            if (got < 0) break;
            /* read again after a full read (256 datagrams), or after a CONNECT or DISCONNECT, which stops
             * the reading early (a RECEIVE comes from the call's final dispatch, after all it read) */
            again = e->host->totalReceivedPackets - before >= 256u || (got > 0 && ev.type != ENET_EVENT_TYPE_RECEIVE);
        } else {
            again = 1; /* the event taken while waiting: the socket may hold more */
            have_first = 0;
        }
        if (got == 0) continue;
        do {
            on_event(s, e, &ev);
            n++;
            const uint64_t t = bsync_net_now_us();
            if (t >= due) {
                fold_traffic(s, e);
                for (uint32_t i = 0; i < s->match_count; i++)
                    if (srv_match_next_deadline(s->matches[i]) <= t) srv_match_update(s->matches[i], t);
                due = srv_next_deadline(s);
            }
        } while (enet_host_check_events(e->host, &ev) > 0);
    }
    return n;
}

/* One pass: the datagrams waiting (or, when none is and no tick is due, a wait for the first one up to
 * the next deadline), the ticks due, then everything queued sent in one flush. Passes are at least
 * SRV_SERVICE_QUANTUM_US apart (docs/server.md "Capacity"): each costs a few walks of ENet's whole peer
 * table and a wake-up, so under load a pass serves every datagram and tick of its quantum at once,
 * instead of one pass per datagram; a tick is then confirmed up to one quantum after its deadline. */
bsync_result bsync_server_service(bsync_server* s, uint32_t timeout_ms) {
    srv_enet* e = enet_of(s);
    if (!e) return BSYNC_INVALID_ARGUMENT;
    const uint64_t entered = bsync_net_now_us();
    const uint64_t until = entered + 1000ull * timeout_ms;
    uint64_t idle_us = 0; /* slept: the quantum's rest, or waiting for packets while none was pending */
    uint64_t now = entered;
    if (e->last_pass_us && now < e->last_pass_us + SRV_SERVICE_QUANTUM_US) {
        uint64_t wake = e->last_pass_us + SRV_SERVICE_QUANTUM_US;
        if (wake > until) wake = until;
        if (wake > now) bsync_platform_sleep_us(wake - now);
        now = bsync_net_now_us();
        idle_us += now - entered;
    }
    e->last_pass_us = now;
    uint32_t events = drain(s, e, NULL, 0);
    now = bsync_net_now_us();
    const uint64_t next = srv_next_deadline(s);
    if (events == 0 && next > now && until > now) { /* nothing pending, nothing due: wait for either */
        const uint64_t wait_us = (next < until ? next : until) - now;
        const uint64_t t0 = now;
        ENetEvent ev;
        int got = 0;
        if (wait_us >= 1000u) got = enet_host_service(e->host, &ev, (enet_uint32)(wait_us / 1000u));
        else bsync_platform_sleep_us(wait_us);
        now = bsync_net_now_us();
        idle_us += now - t0;
        if (got > 0) {
            e->last_pass_us = now;
            events += drain(s, e, &ev, 1);
        }
    }
    fold_traffic(s, e);
    bsync_net_host_retransmit_linear(e->host); /* what the last flush sent, before ENet's next timeout check */
    now = bsync_net_now_us();
    srv_step(s, now);
    enet_host_flush(e->host);
    fold_traffic(s, e);
    now = bsync_net_now_us();
    const uint64_t pass = now - entered;
    srv_load_note(s, now, pass > idle_us ? pass - idle_us : 0);
    return BSYNC_OK;
}
