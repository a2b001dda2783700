/* server_session.c — the server's connections on any transport (server_transport.h): the per-peer
 * caps, sealing and opening (blendsync/session.h), the handshake, violations and ABUSE, the dispatch
 * of every message to its match (server_match.c), the HELLO timeout, the overload judgement, the log.
 * No socket and no clock of its own: a transport adapter (server.c: ENet) drives it. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/net.h" /* bsync_net_snapshot_chunk: a message, no socket */
#include "server_internal.h"

static const char* const drop_names[] = {
#define BSYNC_SERVER_DROP_NAME_(id, text) text,
    BSYNC_SERVER_DROPS(BSYNC_SERVER_DROP_NAME_)
#undef BSYNC_SERVER_DROP_NAME_
};

const char* bsync_server_drop_name(uint32_t d) { return d < BSYNC_SERVER_DROP_COUNT ? drop_names[d] : "unknown"; }

uint64_t srv_now(const bsync_server* s) { return s->transport.now_us(s->transport.user); }

void* srv_transport_user(const bsync_server* s) { return s ? s->transport.user : NULL; }

void srv_log(bsync_server* s, const char* level, const char* fmt, ...) {
    if (!s || !s->transport.log) return;
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    s->transport.log(s->transport.user, level, text);
}

/* Sealed once the peer's session has keys, except an AUTH_CHALLENGE (the client derives its keys from
 * it) and a BYE while the handshake is unfinished (a client with a wrong secret could not open it). */
static bsync_session* send_session(srv_peer* p, uint32_t type) {
    if (p->auth == SRV_AUTH_ESTABLISHED) return &p->sess;
    if (p->auth == SRV_AUTH_CHALLENGED && type != BSYNC_PROTO_AUTH_CHALLENGE && type != BSYNC_PROTO_BYE) return &p->sess;
    return NULL;
}

int srv_send(srv_match* m, srv_peer* p, const bsync_proto_msg* msg) {
    if (!p || !p->open || p->closing || !msg) return -1;
    uint8_t buf[BSYNC_PROTO_MAX_PACKET];
    uint8_t sealed[BSYNC_PROTO_MAX_PACKET + BSYNC_SESSION_OVERHEAD];
    size_t len = 0;
    /* in the peer's version (version 7 peers and version 6 peers play in the same match) */
    const uint32_t version = p->proto_version ? p->proto_version : BSYNC_PROTO_VERSION;
    if (bsync_proto_encode_as(msg, version, buf, sizeof buf, &len) != BSYNC_PROTO_OK) return -1;
    const uint32_t type = (uint32_t)msg->type, channel = bsync_proto_channel(type);
    const uint8_t* data = buf;
    bsync_session* sess = send_session(p, type);
    if (sess && sess->ready) {
        size_t n = 0;
        if (bsync_session_seal(sess, channel, buf, len, sealed, sizeof sealed, &n) != BSYNC_OK) return -1;
        data = sealed;
        len = n;
    }
    const srv_transport* t = &p->server->transport;
    if (t->send(t->user, p->conn, channel, bsync_proto_reliable(type), data, len) != 0) return -1;
    if (m) m->stats.bytes_out += (uint64_t)len;
    return (int)len;
}

void srv_send_snapshot(srv_match* m, srv_peer* p, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                       uint32_t first_chunk) {
    if (!p || !p->open || p->closing) return;
    bsync_proto_msg* msg = malloc(sizeof *msg); /* large: not on the stack */
    if (!msg) return;
    const uint32_t count = (uint32_t)((len + BSYNC_PROTO_SNAPSHOT_CHUNK - 1) / BSYNC_PROTO_SNAPSHOT_CHUNK);
    for (uint32_t i = first_chunk; i < count; i++) {
        bsync_net_snapshot_chunk(msg, kind, tick, data, len, i);
        if (srv_send(m, p, msg) < 0) break;
    }
    free(msg);
}

void srv_peer_close(bsync_server* s, srv_peer* p, uint32_t reason) {
    if (!p || !p->open || p->closing) return;
    bsync_proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_BYE;
    m.bye.reason = (uint8_t)reason;
    m.bye.version_min = BSYNC_PROTO_VERSION_MIN;
    m.bye.version_max = BSYNC_PROTO_VERSION;
    srv_send(p->match, p, &m);
    if (p->match) srv_match_leave(p->match, p);
    p->closing = 1;
    s->transport.close(s->transport.user, p->conn, reason);
}

static void peer_reset(srv_peer* p) {
    bsync_server* s = p->server;
    const uint32_t conn = p->conn;
    free(p->dump);
    free(p->trail_in);
    free(p->trail);
    bsync_session_clear(&p->sess);
    memset(p, 0, sizeof *p);
    p->server = s;
    p->conn = conn;
    p->slot = -1;
    p->frame_next = UINT32_MAX;
}

/* A connection that is gone (a reconnect took its slot): forgotten at once, no BYE (nobody would read
 * it), no gone event follows. */
void srv_peer_drop(bsync_server* s, srv_peer* p) {
    if (!p || !p->open) return;
    if (p->match) srv_match_leave(p->match, p);
    s->transport.drop(s->transport.user, p->conn);
    peer_reset(p);
}

/* Counted, never held against the peer: redundancy makes stale copies normal, a checksum of a tick
 * already forgotten is a slow client, an INPUT before START comes from a protocol version 6 client
 * (which may send in the lobby), and a second, different input for a tick is only the client's loss. */
int srv_drop_harmless(bsync_server_drop why) {
    return why == BSYNC_SERVER_DROP_STALE || why == BSYNC_SERVER_DROP_BAD_CHECKSUM_TICK ||
           why == BSYNC_SERVER_DROP_BEFORE_START || why == BSYNC_SERVER_DROP_SECOND_INPUT;
}

/* The nonzero drop counters of a match, one log line (docs/server.md "Logs"): event=drops. */
void srv_log_drops(bsync_server* s, const bsync_server_match_stats* st) {
    char text[1024]; /* every reason at once: 22 x (name + a 20-digit count) fits */
    size_t n = 0;
    text[0] = 0;
    for (uint32_t i = 0; i < BSYNC_SERVER_DROP_COUNT; i++)
        if (st->dropped[i] && n < sizeof text)
            n += (size_t)snprintf(text + n, sizeof text - n, " %s=%llu", bsync_server_drop_name(i),
                                  (unsigned long long)st->dropped[i]);
    if (n) srv_log(s, "info", "event=drops match=%llu%s", (unsigned long long)st->match_id, text);
}

void srv_violation(bsync_server* s, srv_peer* p, bsync_server_drop why) {
    if (p->match) {
        p->match->stats.dropped[why]++;
        if (p->slot >= 0 && p->slot < (int)BSYNC_PROTO_MAX_PLAYERS) p->match->stats.dropped_by_slot[p->slot]++;
    }
    if (srv_drop_harmless(why)) return;
    uint64_t now = srv_now(s);
    p->violations[p->violation_next] = now;
    p->violation_next = (p->violation_next + 1) % (BSYNC_PROTO_PEER_MAX_VIOLATIONS + 1);
    if (p->violation_count < BSYNC_PROTO_PEER_MAX_VIOLATIONS + 1) p->violation_count++;
    /* more than MAX violations within the window: the oldest kept one is recent */
    if (p->violation_count == BSYNC_PROTO_PEER_MAX_VIOLATIONS + 1) {
        uint64_t oldest = p->violations[p->violation_next];
        if (now - oldest < SRV_VIOLATION_WINDOW_US) {
            srv_log(s, "warn", "event=abuse match=%llu slot=%d last_drop=%s action=disconnect",
                    (unsigned long long)(p->match ? p->match->stats.match_id : 0), p->slot, bsync_server_drop_name(why));
            srv_peer_close(s, p, BSYNC_PROTO_BYE_ABUSE);
        }
    }
}

/* Rate limit of new connections per source address (BSYNC_PROTO_MAX_CONNECTS_PER_SEC). */
static int connect_allowed(bsync_server* s, uint32_t addr) {
    uint64_t now = srv_now(s);
    uint32_t n = 0;
    for (uint32_t i = 0; i < SRV_CONNECT_TABLE; i++)
        if (s->connects[i].host == addr && now - s->connects[i].time_us < SRV_RATE_WINDOW_US) n++;
    s->connects[s->connect_next].host = addr;
    s->connects[s->connect_next].time_us = now;
    s->connect_next = (s->connect_next + 1) % SRV_CONNECT_TABLE;
    return n < BSYNC_PROTO_MAX_CONNECTS_PER_SEC;
}

/* Per-peer caps over a 1 s window: packets, INPUT packets, bytes. */
static int within_caps(bsync_server* s, srv_peer* p, size_t len, int is_input) {
    uint64_t now = srv_now(s);
    if (now - p->window_start_us >= SRV_RATE_WINDOW_US) {
        p->window_start_us = now;
        p->window_packets = p->window_inputs = 0;
        p->window_bytes = 0;
    }
    p->window_packets++;
    p->window_bytes += len;
    if (is_input) p->window_inputs++;
    uint32_t rate = p->match ? p->match->tick_rate : BSYNC_PROTO_MAX_TICK_RATE;
    if (p->window_bytes > BSYNC_PROTO_PEER_MAX_BYTES_PER_SEC) return 0;
    if (p->window_inputs > BSYNC_PROTO_PEER_MAX_PACKETS_PER_TICK * rate) return 0;
    if (p->window_packets > 2u * BSYNC_PROTO_PEER_MAX_PACKETS_PER_TICK * rate + 64u) return 0;
    return 1;
}

static srv_match* find_match(bsync_server* s, uint64_t id) {
    for (uint32_t i = 0; i < s->match_count; i++)
        if (s->matches[i]->stats.match_id == id) return s->matches[i];
    return NULL;
}

/* AUTH_INIT: a client opening a session for (match, slot). Answered with AUTH_CHALLENGE and the keys
 * derived from the slot's secret, or refused with BYE AUTH_FAILED (the same answer whatever was wrong,
 * and logged with the reason). */
static void on_auth_init(bsync_server* s, srv_peer* p, const bsync_proto_auth_init* a) {
    srv_match* mt = find_match(s, a->match_id);
    uint8_t secret[BSYNC_MATCH_CONFIG_SECRET_BYTES];
    const char* why = NULL;
    if (p->auth != SRV_AUTH_NONE) why = "second_auth_init";
    else if (!mt) why = "unknown_match";
    else if (bsync_match_config_session(mt->cfg) == BSYNC_MATCH_SESSION_PLAIN) why = "plain_match";
    else if (a->slot >= mt->player_count || !bsync_match_config_secret(mt->cfg, a->slot, secret)) why = "bad_slot";
    else if ((uint32_t)a->mode != (uint32_t)bsync_match_config_session(mt->cfg)) why = "wrong_mode";
    bsync_proto_msg c;
    memset(&c, 0, sizeof c);
    c.type = BSYNC_PROTO_AUTH_CHALLENGE;
    if (!why && bsync_session_random(c.auth_challenge.server_nonce, BSYNC_PROTO_AUTH_NONCE) != BSYNC_OK) why = "no_sodium";
    if (!why && bsync_session_derive(&p->sess, BSYNC_SESSION_SERVER, (bsync_session_mode)a->mode, secret, a->match_id,
                                     a->slot, a->client_nonce, c.auth_challenge.server_nonce) != BSYNC_OK)
        why = "no_sodium";
    memset(secret, 0, sizeof secret);
    if (why) {
        s->host_stats.auth_failures++;
        srv_log(s, "warn", "event=refused reason=auth_failed detail=%s match=%llu slot=%u", why,
                (unsigned long long)a->match_id, (unsigned)a->slot);
        srv_peer_close(s, p, BSYNC_PROTO_BYE_AUTH_FAILED);
        return;
    }
    p->auth = SRV_AUTH_CHALLENGED;
    p->auth_match_id = a->match_id;
    p->auth_slot = a->slot;
    c.auth_challenge.mode = a->mode;
    srv_send(NULL, p, &c);
}

static void on_receive(bsync_server* s, srv_peer* p, uint32_t channel, const uint8_t* data, size_t len) {
    if (p->closing) return;
    p->last_recv_us = srv_now(s);
    if (p->match) p->match->stats.bytes_in += len;
    if (len > BSYNC_PROTO_ENET_MAX_PACKET) { /* counted and answered, not a silent loss of the connection */
        s->host_stats.oversized++;
        s->host_stats.protocol_errors++;
        if (p->match) srv_violation(s, p, BSYNC_SERVER_DROP_OVERSIZED);
        srv_log(s, "warn", "event=refused reason=oversized match=%llu slot=%d bytes=%zu limit=%u",
                (unsigned long long)(p->match ? p->match->stats.match_id : 0), p->slot, len, BSYNC_PROTO_ENET_MAX_PACKET);
        srv_peer_close(s, p, BSYNC_PROTO_BYE_PROTOCOL_ERROR);
        return;
    }
    bsync_proto_header h;
    if (p->auth != SRV_AUTH_NONE) { /* a session: every packet is sealed (the caps below count it once open) */
        size_t n = 0;
        /* the lane is the ENet channel it was sealed for: another channel's copy would move that lane's
         * replay window (the client's own), so it is dropped before it is opened */
        const int lane = bsync_session_lane(data, len);
        if (lane >= 0 && (uint32_t)lane != channel) {
            s->host_stats.sealed_rejected++;
            srv_violation(s, p, BSYNC_SERVER_DROP_WRONG_LANE);
            return;
        }
        bsync_session_open_result o = bsync_session_open(&p->sess, data, len, s->opened, sizeof s->opened, &n);
        if (o != BSYNC_SESSION_OPENED) {
            if (p->auth == SRV_AUTH_CHALLENGED) { /* the HELLO did not open: not the slot's secret (or a replay) */
                s->host_stats.auth_failures++;
                srv_log(s, "warn", "event=refused reason=auth_failed detail=\"hello %s\" match=%llu slot=%u",
                        bsync_session_open_result_string(o), (unsigned long long)p->auth_match_id, p->auth_slot);
                p->auth = SRV_AUTH_NONE; /* the BYE goes out plain: this peer has no keys of ours */
                srv_peer_close(s, p, BSYNC_PROTO_BYE_AUTH_FAILED);
                return;
            }
            s->host_stats.sealed_rejected++;
            srv_violation(s, p, o == BSYNC_SESSION_REPLAYED ? BSYNC_SERVER_DROP_REPLAYED
                                : o == BSYNC_SESSION_NOT_SEALED ? BSYNC_SERVER_DROP_NOT_SEALED
                                                                : BSYNC_SERVER_DROP_BAD_TAG);
            return;
        }
        data = s->opened;
        len = n;
        if (p->auth == SRV_AUTH_CHALLENGED && (len < 4 || data[3] != BSYNC_PROTO_HELLO)) {
            s->host_stats.auth_failures++;
            srv_log(s, "warn", "event=refused reason=auth_failed detail=\"no hello\" match=%llu slot=%u",
                    (unsigned long long)p->auth_match_id, p->auth_slot);
            srv_peer_close(s, p, BSYNC_PROTO_BYE_AUTH_FAILED);
            return;
        }
    }
    int is_input = len >= 4 && data[3] == BSYNC_PROTO_INPUT;
    if (!within_caps(s, p, len, is_input)) {
        srv_violation(s, p, BSYNC_SERVER_DROP_FLOOD);
        return;
    }
    bsync_proto_msg* m = &s->rx;
    bsync_proto_result r = bsync_proto_decode(data, len, m);
    if (r != BSYNC_PROTO_OK) {
        if (r == BSYNC_PROTO_UNSUPPORTED_VERSION && bsync_proto_peek_header(data, len, &h) == BSYNC_PROTO_OK &&
            h.type == BSYNC_PROTO_HELLO && !p->match) {
            srv_log(s, "info", "event=refused reason=version_mismatch client_version=%u server_version=%u", h.version,
                    BSYNC_PROTO_VERSION);
            s->hello_refused[BSYNC_PROTO_BYE_VERSION_MISMATCH]++; /* the metrics */
            srv_peer_close(s, p, BSYNC_PROTO_BYE_VERSION_MISMATCH);
            return;
        }
        srv_violation(s, p, r == BSYNC_PROTO_UNSUPPORTED_VERSION ? BSYNC_SERVER_DROP_BAD_VERSION : BSYNC_SERVER_DROP_MALFORMED);
        if (!p->match && !p->closing) {
            s->host_stats.protocol_errors++;
            srv_log(s, "info", "event=refused reason=protocol_error detail=\"%s\"", bsync_proto_result_string(r));
            srv_peer_close(s, p, BSYNC_PROTO_BYE_PROTOCOL_ERROR);
        }
        return;
    }
    if (channel != bsync_proto_channel(m->type) && p->match) { /* the table of docs/protocol.md "ENet channels" */
        srv_violation(s, p, BSYNC_SERVER_DROP_WRONG_CHANNEL);
        return;
    }
    if (!p->match && (m->type == BSYNC_PROTO_AUTH_INIT || m->type == BSYNC_PROTO_HELLO))
        p->proto_version = m->version; /* the server answers in it (BSYNC_PROTO_VERSION_MIN .. _VERSION) */
    else if (p->match && m->type != BSYNC_PROTO_BYE && m->version != p->proto_version) {
        srv_violation(s, p, BSYNC_SERVER_DROP_BAD_VERSION); /* one connection, one version */
        return;
    }
    if (!p->match && m->type == BSYNC_PROTO_AUTH_INIT) {
        on_auth_init(s, p, &m->auth_init);
        return;
    }
    if (!p->match) {
        if (m->type != BSYNC_PROTO_HELLO) {
            s->host_stats.protocol_errors++;
            srv_log(s, "info", "event=refused reason=protocol_error detail=\"%s before hello\"",
                    bsync_proto_type_string(m->type));
            srv_peer_close(s, p, BSYNC_PROTO_BYE_PROTOCOL_ERROR);
            return;
        }
        srv_match* mt = find_match(s, m->hello.match_id);
        if (!mt) {
            srv_log(s, "info", "event=refused reason=unknown_match match=%llu", (unsigned long long)m->hello.match_id);
            s->hello_refused[BSYNC_PROTO_BYE_UNKNOWN_MATCH]++; /* the metrics */
            srv_peer_close(s, p, BSYNC_PROTO_BYE_UNKNOWN_MATCH);
            return;
        }
        srv_match_hello(mt, p, &m->hello);
        return;
    }
    switch (m->type) {
    case BSYNC_PROTO_INPUT:
        if (!p->match->started) { /* docs/lockstep.md "Pacing": no INPUT before START */
            srv_violation(s, p, BSYNC_SERVER_DROP_BEFORE_START);
            break;
        }
        /* version 7: the frames it holds (never past the frames confirmed) */
        if (m->version >= 7u && m->input.frame_ack > p->frames_acked && m->input.frame_ack <= p->match->next_tick)
            p->frames_acked = m->input.frame_ack;
        srv_match_input(p->match, p, &m->input);
        break;
    case BSYNC_PROTO_CHECKSUM: srv_match_checksum(p->match, p, &m->checksum); break;
    case BSYNC_PROTO_SNAPSHOT: srv_match_snapshot(p->match, p, &m->snapshot); break;
    case BSYNC_PROTO_BYE:
        srv_log(s, "info", "event=bye match=%llu slot=%d reason=%s", (unsigned long long)p->match->stats.match_id, p->slot,
                bsync_proto_bye_reason_string(m->bye.reason));
        srv_match_leave(p->match, p);
        p->closing = 1;
        s->transport.close(s->transport.user, p->conn, 0);
        break;
    default: srv_violation(s, p, BSYNC_SERVER_DROP_BAD_STATE); break;
    }
}

/* ---- the transport's calls (server_transport.h) */

static srv_peer* conn_peer(bsync_server* s, uint32_t conn) { return s && conn < s->peer_count ? &s->peers[conn] : NULL; }

void srv_conn_open(bsync_server* s, uint32_t conn, uint32_t addr_key, const char* ip, uint16_t port) {
    srv_peer* p = conn_peer(s, conn);
    if (!p) return;
    peer_reset(p);
    p->open = 1;
    snprintf(p->ip, sizeof p->ip, "%s", ip ? ip : "?");
    p->ip_port = port;
    p->connected_us = p->last_recv_us = srv_now(s);
    if (!connect_allowed(s, addr_key) || s->shut_down) {
        srv_log(s, "warn", "event=connect_refused address=%s reason=%s action=bye", p->ip,
                s->shut_down ? "shutting_down" : "rate_limit");
        s->host_stats.connects_refused++;
        /* told, then disconnected (once the BYE is delivered; the transport's timeout otherwise) */
        srv_peer_close(s, p, s->shut_down ? BSYNC_PROTO_BYE_SHUTDOWN : BSYNC_PROTO_BYE_RATE_LIMITED);
    }
}

void srv_conn_receive(bsync_server* s, uint32_t conn, uint32_t channel, const uint8_t* data, size_t len) {
    srv_peer* p = conn_peer(s, conn);
    if (!p || !p->open || (!data && len)) return;
    on_receive(s, p, channel, data ? data : (const uint8_t*)"", len);
}

void srv_conn_gone(bsync_server* s, uint32_t conn) {
    srv_peer* p = conn_peer(s, conn);
    if (!p || !p->open) return;
    if (p->match && !p->closing) {
        srv_log(s, "info", "event=disconnect match=%llu slot=%d", (unsigned long long)p->match->stats.match_id, p->slot);
        srv_match_leave(p->match, p);
    }
    peer_reset(p);
}

uint32_t srv_open_count(const bsync_server* s) {
    uint32_t n = 0;
    for (size_t i = 0; s && i < s->peer_count; i++) n += s->peers[i].open;
    return n;
}

/* Peers connected for BSYNC_PROTO_HELLO_TIMEOUT_MS without a HELLO: BYE TIMEOUT and disconnected. */
static void sweep_silent_peers(bsync_server* s, uint64_t now) {
    if (now - s->last_sweep_us < 100000u) return;
    s->last_sweep_us = now;
    for (size_t i = 0; i < s->peer_count; i++) {
        srv_peer* p = &s->peers[i];
        if (!p->open || p->match || p->closing || now - p->connected_us < 1000ull * BSYNC_PROTO_HELLO_TIMEOUT_MS) continue;
        s->host_stats.hello_timeouts++;
        srv_log(s, "info", "event=refused reason=hello_timeout address=%s:%u after_ms=%u", p->ip, (unsigned)p->ip_port,
                BSYNC_PROTO_HELLO_TIMEOUT_MS);
        srv_peer_close(s, p, BSYNC_PROTO_BYE_TIMEOUT);
    }
}

void srv_step(bsync_server* s, uint64_t now) {
    if (!s) return;
    for (uint32_t i = 0; i < s->match_count; i++) srv_match_update(s->matches[i], now);
    sweep_silent_peers(s, now);
}

uint64_t srv_next_deadline(const bsync_server* s) {
    uint64_t next = UINT64_MAX;
    for (uint32_t i = 0; s && i < s->match_count; i++) {
        uint64_t d = srv_match_next_deadline(s->matches[i]);
        if (d < next) next = d;
    }
    return next;
}

void srv_shutdown(bsync_server* s) {
    if (!s || s->shut_down) return;
    s->shut_down = 1;
    for (uint32_t i = 0; i < s->match_count; i++)
        if (!s->matches[i]->ended) srv_match_end(s->matches[i], 1, BSYNC_PROTO_BYE_SHUTDOWN);
    for (size_t i = 0; i < s->peer_count; i++)
        if (s->peers[i].open && !s->peers[i].closing) srv_peer_close(s, &s->peers[i], BSYNC_PROTO_BYE_SHUTDOWN);
}

void srv_traffic(bsync_server* s, uint64_t bytes_in, uint64_t bytes_out) {
    if (!s) return;
    s->udp_in += bytes_in;
    s->udp_out += bytes_out;
}

/* The busy share (server.h, docs/server.md "Overload"): busy microseconds of each pass of the adapter's
 * loop go to the 100 ms bucket of its end; once a bucket is complete the last SRV_LOAD_BUCKETS complete
 * ones (one second) are summed and compared with the threshold. Judged only after a whole second of
 * history. */
void srv_load_note(bsync_server* s, uint64_t now, uint64_t busy_us) {
    const uint64_t epoch = now / SRV_LOAD_BUCKET_US;
    if (!s->load_first_epoch) s->load_first_epoch = epoch;
    const uint32_t k = (uint32_t)(epoch % SRV_LOAD_BUCKETS);
    if (s->load_epoch[k] != epoch) {
        s->load_epoch[k] = epoch;
        s->load_busy[k] = 0;
        s->load_pt[k] = 0;
    }
    s->load_busy[k] += busy_us;
    s->load_pt[k] += s->load_pt_pending;
    s->load_pt_pending = 0;
    if (epoch == s->load_judged_epoch || epoch < s->load_first_epoch + SRV_LOAD_BUCKETS + 1u) return;
    s->load_judged_epoch = epoch;
    uint64_t busy = 0, pt = 0; /* buckets epoch - 10 .. epoch - 1 (a bucket never written held no busy time) */
    for (uint32_t i = 1; i <= SRV_LOAD_BUCKETS; i++) {
        const uint32_t j = (uint32_t)((epoch - i) % SRV_LOAD_BUCKETS);
        if (s->load_epoch[j] == epoch - i) busy += s->load_busy[j], pt += s->load_pt[j];
    }
    /* the cost of a player-tick, recalibrated from a second that played enough of them (a quarter of
     * the new measure each second: one noisy second moves it little) */
    if (pt >= SRV_CALIBRATE_MIN_PT) s->cost_ns = (3u * s->cost_ns + busy * 1000u / pt + 3u) / 4u;
    uint64_t permille = busy * 1000u / (SRV_LOAD_BUCKETS * SRV_LOAD_BUCKET_US);
    if (permille > 1000u) permille = 1000u;
    s->host_stats.busy_permille = (uint32_t)permille;
    if (permille > s->host_stats.busy_permille_max) s->host_stats.busy_permille_max = (uint32_t)permille;
    const uint32_t on = s->overload_threshold;
    const uint32_t off = on > SRV_OVERLOAD_HYSTERESIS ? on - SRV_OVERLOAD_HYSTERESIS : 0u;
    if (!s->host_stats.overloaded && on <= 1000u && permille >= on) {
        s->host_stats.overloaded = 1;
        s->host_stats.overload_episodes++;
        srv_log(s, "warn", "event=overload state=on busy_permille=%u threshold_permille=%u action=refuse_new_matches",
                (unsigned)permille, on);
    } else if (s->host_stats.overloaded && permille < off) {
        s->host_stats.overloaded = 0;
        srv_log(s, "info", "event=overload state=off busy_permille=%u threshold_permille=%u", (unsigned)permille, on);
    }
}

int srv_overloaded(const bsync_server* s) { return s->host_stats.overloaded != 0; }

/* The budget is the threshold's share of a core (1e6 ns of busy time per second per permille); the
 * prediction, each admitted and unfinished match's player-ticks per second times the cost of one. An
 * idle server admits any one match (else a match larger than the budget could never run). */
int srv_admit(const bsync_server* s, const srv_match* m, uint64_t* predicted_us) {
    uint64_t pt_per_s = (uint64_t)m->player_count * m->tick_rate, committed = 0;
    for (uint32_t i = 0; i < s->match_count; i++) {
        const srv_match* o = s->matches[i];
        if (o != m && o->admitted && !o->ended) committed += (uint64_t)o->player_count * o->tick_rate;
    }
    const uint64_t predicted_ns = (committed + pt_per_s) * s->cost_ns; /* busy ns per second */
    if (predicted_us) *predicted_us = predicted_ns / 1000u;
    if (s->overload_threshold > 1000u || committed == 0) return 1;
    return predicted_ns <= (uint64_t)s->overload_threshold * 1000000u;
}

/* ---- creating, reading, destroying (the parts of blendsync/server.h that are not the transport's) */

bsync_result srv_init(bsync_server* s, const bsync_server_config* cfg, const srv_transport* t, bsync_error* err) {
    /* no match file: only for a server whose matches are added later (player_capacity, docs/operations.md) */
    const uint32_t least = cfg && cfg->player_capacity ? 0u : 1u;
    if (!s || !t || !t->send || !t->close || !t->drop || !t->now_us || !cfg || (!cfg->match_paths && cfg->match_count) ||
        cfg->match_count < least || cfg->match_count > BSYNC_SERVER_MAX_MATCHES) {
        if (err) {
            err->code = BSYNC_INVALID_ARGUMENT;
            snprintf(err->message, sizeof err->message, "need 1..%u match files", BSYNC_SERVER_MAX_MATCHES);
        }
        return BSYNC_INVALID_ARGUMENT;
    }
    s->cfg = *cfg;
    s->transport = *t;
    s->overload_threshold = cfg->overload_busy_permille ? cfg->overload_busy_permille : SRV_OVERLOAD_DEFAULT;
    s->cost_ns = SRV_COST_PRIOR_NS;
    for (uint32_t i = 0; i < cfg->match_count; i++) {
        s->matches[i] = srv_match_create(s, i, cfg->match_paths[i], err);
        if (!s->matches[i]) return err ? err->code : BSYNC_CONFIG_ERROR;
        s->match_count = i + 1;
        for (uint32_t j = 0; j < i; j++)
            if (s->matches[j]->stats.match_id == s->matches[i]->stats.match_id) {
                if (err) {
                    err->code = BSYNC_CONFIG_ERROR;
                    snprintf(err->message, sizeof err->message, "%s: /match_id: %llu is already used by %s",
                             cfg->match_paths[i], (unsigned long long)s->matches[i]->stats.match_id, cfg->match_paths[j]);
                }
                return BSYNC_CONFIG_ERROR;
            }
    }
    return BSYNC_OK;
}

uint32_t srv_players(const bsync_server* s) {
    uint32_t players = 0;
    for (uint32_t i = 0; s && i < s->match_count; i++) players += s->matches[i]->player_count;
    if (s && players < s->cfg.player_capacity) players = s->cfg.player_capacity; /* room for added matches */
    return players;
}

bsync_result srv_open_connections(bsync_server* s, uint32_t connections) {
    if (!s || s->peers || connections == 0) return BSYNC_INVALID_ARGUMENT;
    s->peers = calloc(connections, sizeof *s->peers);
    if (!s->peers) return BSYNC_OUT_OF_MEMORY;
    s->peer_count = connections;
    for (uint32_t i = 0; i < connections; i++) {
        s->peers[i].server = s;
        s->peers[i].conn = i;
        peer_reset(&s->peers[i]);
    }
    return BSYNC_OK;
}

bsync_result srv_create_on(const bsync_server_config* cfg, const srv_transport* t, uint32_t connections,
                           bsync_server** out, bsync_error* err) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    *out = NULL;
    bsync_server* s = calloc(1, sizeof *s);
    if (!s) return BSYNC_OUT_OF_MEMORY;
    bsync_result r = srv_init(s, cfg, t, err);
    if (r == BSYNC_OK) r = srv_open_connections(s, connections);
    if (r != BSYNC_OK) {
        s->transport.release = NULL; /* the caller keeps its transport when creation fails */
        bsync_server_destroy(s);
        return r;
    }
    *out = s;
    return BSYNC_OK;
}

void bsync_server_destroy(bsync_server* s) {
    if (!s) return;
    if (s->peers)
        srv_log(s, "info", "event=load_summary busy_permille_max=%u overload_episodes=%llu overload_refusals=%llu "
                "player_tick_ns=%llu",
                s->host_stats.busy_permille_max, (unsigned long long)s->host_stats.overload_episodes,
                (unsigned long long)s->host_stats.overload_refusals, (unsigned long long)s->cost_ns);
    for (uint32_t i = 0; i < s->match_count; i++) srv_match_destroy(s->matches[i]);
    if (s->transport.release) s->transport.release(s->transport.user);
    if (s->peers)
        for (size_t i = 0; i < s->peer_count; i++) {
            free(s->peers[i].dump);
            free(s->peers[i].trail_in);
            free(s->peers[i].trail);
            bsync_session_clear(&s->peers[i].sess);
        }
    free(s->peers);
    free(s);
}

void bsync_server_get_host_stats(const bsync_server* s, bsync_server_host_stats* out) {
    if (s && out) *out = s->host_stats;
}

uint32_t bsync_server_match_count(const bsync_server* s) { return s ? s->match_count : 0; }

int bsync_server_done(const bsync_server* s) {
    if (!s) return 1;
    for (uint32_t i = 0; i < s->match_count; i++)
        if (!s->matches[i]->ended) return 0;
    return 1;
}

void bsync_server_get_match_stats(const bsync_server* s, uint32_t i, bsync_server_match_stats* out) {
    if (!s || !out || i >= s->match_count) return;
    srv_match_fill_stats(s->matches[i], out);
    out->host_udp_in = s->udp_in;
    out->host_udp_out = s->udp_out;
}
