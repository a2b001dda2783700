/* loadgen.c — bsync_loadgen: many players in one process against a real blendsync-server (issue 14,
 * capacity). Each player is a real ENet peer speaking the protocol (docs/protocol.md): HELLO with the
 * match hash, then, from START on, one INPUT per tick of its own pacing (docs/lockstep.md "Pacing":
 * the newest record is max(last + 1, server tick + input delay), with up to 3 earlier ticks not yet
 * acknowledged by FRAME's input ack (or INPUT_ACK before the first frame); targets held for 20..90 ticks as a joystick does), until END and BYE. It does not simulate (no checksums are sent: the server compares only
 * what it gets), so its own cost stays small next to the server's.
 *
 * When each player sends (--phase): real clients send from their own game loops, so each player's INPUT
 * leaves at its own point of the server's tick, not at one instant for everybody. With `spread` (the
 * default) player i draws a phase phi_i uniform in [0, period) once (splitmix64 of --seed and i), and its
 * k-th INPUT leaves at start + (k - 1) x period + phi_i + u_k, u_k uniform in [0, --jitter-us] drawn per
 * send (a game loop's frame time and the network's jitter). With `burst` phi_i = 0 and u_k = 0: every
 * player at the tick's boundary together (clients paced by the same clock, the worst case for one
 * socket). The tick each INPUT carries follows the pacing rule whatever the phase. The generator's loop
 * waits at most 1 ms, so times are kept to about 1 ms.
 *
 * Players are spread over ENet hosts of PEERS_PER_HOST peers, each bound to its own loopback address
 * (127.0.x.y), because the server admits at most 8 new connections per second per address.
 *
 * usage: bsync_loadgen --server HOST:PORT --matches LIST [--seconds S] [--stagger MS] [--address-base N]
 *                      [--phase spread|burst] [--jitter-us J] [--seed N] [--json]
 *   --phase, --jitter-us (default 1000), --seed (default 1): when each player sends (above)
 *   --address-base N: start the loopback addresses at index N (several generators side by side, each
 *   with its own addresses, so the per-address connect limit counts each generator's own peers)
 *   LIST: a text file, one match config path per line (the server's --match files), optionally
 *   followed by a tab and the port that serves that match (a server with --workers: each worker has
 *   its own port); without it, the port of --server
 *   --stagger MS: the players of match i begin connecting i x MS after the start (matches arriving
 *   over time, so an overloaded server can refuse the later ones; default 0: all at once)
 * Prints one summary (text or one JSON object): players, connected, welcomed, completed (END and
 * every frame), BYE reasons, matches refused with BYE OVERLOADED, timeouts, frames received, bytes per player per second down and up.
 * Exit 0 when every player completed its match or was refused with BYE OVERLOADED, 1 otherwise, 2 on
 * bad arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <enet/enet.h>

#include "blendsync/io/match_config.h"
#include "blendsync/match.h"
#include "blendsync/net.h"
#include "blendsync/proto.h"
#include "platform.h" /* bsync_platform_sleep_us */

#define PEERS_PER_HOST 4u
#define MAX_MATCHES 1024u

typedef struct lg_player {
    const bsync_match_config* cfg; /* its match's */
    uint64_t hash;
    ENetHost* host;
    ENetPeer* peer;
    uint32_t match;
    uint8_t slot;
    int connected, welcomed, started, ended, got_end, timed_out;
    uint32_t bye_reason; /* UINT32_MAX: none */
    uint8_t rate, delay, params, triggers;
    uint64_t start_local_us; /* when tick `start_tick` is confirmed, on our clock */
    uint32_t start_tick;
    uint32_t last_sent;      /* newest input tick sent (UINT32_MAX: none) */
    uint32_t acked_next;     /* the server holds our inputs below this tick */
    uint64_t next_send_us;      /* UINT64_MAX until START */
    uint64_t phase_us;          /* its point in the tick (--phase) */
    uint64_t rng;               /* its jitter draws */
    uint32_t send_k;            /* sends so far on the tick grid */
    uint32_t frames, end_ticks;
    uint64_t bytes_down, bytes_up;
    uint64_t first_us, last_us; /* first packet received, END received */
    uint64_t connect_at_us;     /* --stagger: when to begin connecting */
    ENetAddress to;
    /* a match with secrets: the session (docs/protocol.md "Sessions") */
    int auth;                   /* 0 plain, 1 AUTH_INIT sent, 2 keys */
    uint8_t cn[BSYNC_SESSION_NONCE_BYTES];
    bsync_session sess;
} lg_player;

typedef struct lg_match {
    bsync_match_config* cfg;
    uint64_t hash;
    uint16_t port; /* 0: --server's */
} lg_match;

static uint32_t g_burst;              /* --phase burst */
static uint32_t g_jitter_us = 1000u;  /* --jitter-us */
static uint64_t g_seed = 1u;          /* --seed */

/* splitmix64: the players' phases and jitter (a fixed, documented generator: runs repeat) */
static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* When the player's next INPUT leaves: tick slot send_k of its grid (slot 0 is one period before the
 * start tick's deadline), at its phase, plus this send's jitter. */
static uint64_t next_send_time(lg_player* pl) {
    if (!pl->rate) return UINT64_MAX; /* no WELCOME yet */
    const uint64_t period = 1000000u / pl->rate;
    const uint64_t slot = pl->start_local_us + ((uint64_t)pl->send_k * 1000000u) / pl->rate;
    const uint64_t base = slot > period ? slot - period : 0u;
    const uint64_t jitter = g_burst || !g_jitter_us ? 0u : splitmix64(&pl->rng) % ((uint64_t)g_jitter_us + 1u);
    return base + pl->phase_us + jitter;
}

static uint64_t rtt_half_us(const ENetPeer* p) { return p ? 500ull * p->roundTripTime : 0; }

static void send_raw(lg_player* pl, const bsync_proto_msg* m) {
    int n = bsync_net_send_ex(pl->peer, m, pl->auth == 2 ? &pl->sess : NULL);
    if (n > 0) pl->bytes_up += (uint64_t)n;
}

static void send_hello(lg_player* pl);

static void on_packet(lg_player* pl, const uint8_t* d, size_t len, uint64_t now) {
    pl->bytes_down += len;
    if (!pl->first_us) pl->first_us = now;
    static uint8_t opened[BSYNC_PROTO_ENET_MAX_PACKET];
    if (pl->auth == 2 && bsync_session_is_sealed(d, len)) { /* a session: open first */
        size_t n = 0;
        if (bsync_session_open(&pl->sess, d, len, opened, sizeof opened, &n) != BSYNC_SESSION_OPENED) return;
        d = opened;
        len = n;
    }
    if (len < 8) return;
    if (pl->auth == 1 && d[3] == BSYNC_PROTO_AUTH_CHALLENGE) {
        static bsync_proto_msg c;
        if (bsync_proto_decode(d, len, &c) != BSYNC_PROTO_OK) return;
        uint8_t secret[BSYNC_SESSION_SECRET_BYTES];
        bsync_match_config_secret(pl->cfg, pl->slot, secret);
        if (bsync_session_derive(&pl->sess, BSYNC_SESSION_CLIENT, (bsync_session_mode)c.auth_challenge.mode, secret,
                                 bsync_match_config_match_id(pl->cfg), pl->slot, pl->cn, c.auth_challenge.server_nonce) !=
            BSYNC_OK)
            return;
        pl->auth = 2;
        send_hello(pl);
        return;
    }
    switch (d[3]) {
    case BSYNC_PROTO_FRAME: /* counted, not decoded (the generator stays cheap): only the input ack, byte 8 + 12 */
        pl->frames++;
        if (len >= 21) {
            uint32_t tick = (uint32_t)d[8] | (uint32_t)d[9] << 8 | (uint32_t)d[10] << 16 | (uint32_t)d[11] << 24;
            if (tick + 1u + d[20] > pl->acked_next) pl->acked_next = tick + 1u + d[20];
        }
        return;
    case BSYNC_PROTO_INPUT_ACK:
    case BSYNC_PROTO_WELCOME:
    case BSYNC_PROTO_START:
    case BSYNC_PROTO_END:
    case BSYNC_PROTO_BYE: break;
    default: return;
    }
    static bsync_proto_msg m; /* large (WELCOME carries a chunk) */
    if (bsync_proto_decode(d, len, &m) != BSYNC_PROTO_OK) return;
    switch (m.type) {
    case BSYNC_PROTO_WELCOME:
        pl->welcomed = 1;
        pl->rate = m.welcome.tick_rate;
        pl->delay = m.welcome.input_delay;
        pl->params = m.welcome.param_count;
        pl->triggers = m.welcome.trigger_count;
        break;
    case BSYNC_PROTO_START: {
        uint64_t due = now + m.start.deadline_in_us;
        uint64_t half = rtt_half_us(pl->peer);
        pl->start_local_us = due > half ? due - half : 0;
        pl->start_tick = m.start.tick;
        pl->started = 1;
        pl->send_k = 0;
        pl->next_send_us = next_send_time(pl);
        break;
    }
    case BSYNC_PROTO_INPUT_ACK:
        if (m.input_ack.next_tick > pl->acked_next) pl->acked_next = m.input_ack.next_tick;
        break;
    case BSYNC_PROTO_END:
        pl->got_end = 1;
        pl->end_ticks = m.end.ticks;
        pl->last_us = now;
        break;
    case BSYNC_PROTO_BYE: pl->bye_reason = m.bye.reason; break;
    default: break;
    }
}

static void send_hello(lg_player* p) {
    static bsync_proto_msg m;
    memset(&m.hello, 0, sizeof m.hello);
    m.type = BSYNC_PROTO_HELLO;
    m.hello.match_id = bsync_match_config_match_id(p->cfg);
    m.hello.graph_hash = p->hash;
    m.hello.slot = p->slot;
    size_t tl = 0;
    const char* tok = bsync_match_config_token(p->cfg, p->slot, &tl);
    m.hello.token_len = (uint8_t)(tl < BSYNC_PROTO_MAX_TOKEN ? tl : BSYNC_PROTO_MAX_TOKEN);
    memcpy(m.hello.token, tok, m.hello.token_len);
    send_raw(p, &m);
}

/* The pacing rule: newest tick max(last + 1, server tick + d), at most 3 unacknowledged ticks before it. */
static void send_input(lg_player* pl, uint64_t now) {
    uint64_t per_tick = 1000000u / pl->rate;
    uint32_t server_tick = pl->start_tick;
    if (now > pl->start_local_us) server_tick += (uint32_t)((now - pl->start_local_us) / per_tick);
    uint32_t newest = server_tick + pl->delay;
    if (pl->last_sent != UINT32_MAX && newest <= pl->last_sent) newest = pl->last_sent + 1u;
    uint32_t first = newest >= 3u ? newest - 3u : 0u;
    if (first < pl->acked_next) first = pl->acked_next;
    if (first > newest) first = newest;
    static bsync_proto_msg m;
    memset(&m.input, 0, sizeof m.input);
    m.type = BSYNC_PROTO_INPUT;
    m.input.slot = pl->slot;
    m.input.param_count = pl->params;
    m.input.trigger_count = pl->triggers;
    m.input.first_tick = first;
    m.input.record_count = (uint8_t)(newest - first + 1u);
    /* like `blendsync bot`'s joystick: a target held for 20..90 ticks (per player), then another; values
     * in 0..0.47, inside any range that holds 0..0.5 */
    uint32_t hold = 20u + (pl->match * 31u + pl->slot * 17u) % 71u;
    for (uint32_t r = 0; r < m.input.record_count; r++) {
        uint32_t step = (first + r) / hold + pl->slot;
        for (uint32_t k = 0; k < pl->params; k++) m.input.records[r].params[k] = (fix16_t)(((step * 7u + k) % 8u) * 4096u);
    }
    send_raw(pl, &m);
    pl->last_sent = newest;
    /* the next slot of its grid that is still ahead (a late loop skips slots instead of bursting) */
    do {
        pl->send_k++;
        pl->next_send_us = next_send_time(pl);
    } while (pl->next_send_us + per_tick <= now);
}

static uint32_t g_address_base; /* --address-base: this generator's first loopback address index */

static int parse_args(int argc, char** argv, const char** server, const char** list, uint32_t* seconds, uint32_t* stagger,
                      int* json) {
    for (int i = 1; i < argc; i++) {
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--json")) {
            *json = 1;
            continue;
        }
        if (!v) return -1;
        if (!strcmp(argv[i], "--server")) *server = v;
        else if (!strcmp(argv[i], "--matches")) *list = v;
        else if (!strcmp(argv[i], "--seconds")) *seconds = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "--stagger")) *stagger = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "--address-base")) g_address_base = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "--jitter-us")) g_jitter_us = (uint32_t)strtoul(v, NULL, 10);
        else if (!strcmp(argv[i], "--seed")) g_seed = strtoull(v, NULL, 10);
        else if (!strcmp(argv[i], "--phase")) {
            if (!strcmp(v, "burst")) g_burst = 1;
            else if (strcmp(v, "spread") != 0) return -1;
        }
        else return -1;
        i++;
    }
    return *server && *list && *seconds ? 0 : -1;
}

int main(int argc, char** argv) {
    const char* server = NULL;
    const char* list = NULL;
    uint32_t seconds = 120, stagger_ms = 0;
    int json = 0;
    if (parse_args(argc, argv, &server, &list, &seconds, &stagger_ms, &json) != 0) {
        fprintf(stderr, "usage: bsync_loadgen --server HOST:PORT --matches LIST [--seconds S] [--stagger MS] [--address-base N] "
                        "[--phase spread|burst] [--jitter-us J] [--seed N] [--json]\n");
        return 2;
    }
    char host_text[256];
    uint16_t port = 0;
    if (bsync_net_parse_address(server, host_text, sizeof host_text, &port) != 0 || bsync_net_init() != 0) {
        fprintf(stderr, "bsync_loadgen: bad --server %s\n", server);
        return 2;
    }
    static lg_match matches[MAX_MATCHES];
    uint32_t match_count = 0, player_count = 0;
    FILE* f = fopen(list, "r");
    if (!f) {
        fprintf(stderr, "bsync_loadgen: cannot read %s\n", list);
        return 2;
    }
    char line[1024];
    while (fgets(line, sizeof line, f) && match_count < MAX_MATCHES) {
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0]) continue;
        bsync_error err;
        memset(&err, 0, sizeof err);
        lg_match* m = &matches[match_count];
        m->port = 0;
        char* tab = strchr(line, '\t');
        if (tab) {
            *tab = 0;
            char* end = NULL;
            unsigned long v = strtoul(tab + 1, &end, 10);
            if (!end || *end || v < 1 || v > 65535) {
                fprintf(stderr, "bsync_loadgen: %s: expected a port after the tab, got \"%s\"\n", list, tab + 1);
                fclose(f);
                return 2;
            }
            m->port = (uint16_t)v;
        }
        if (bsync_match_config_load(line, NULL, &m->cfg, &err) != BSYNC_OK) {
            fprintf(stderr, "bsync_loadgen: %s\n", err.message);
            fclose(f);
            return 2;
        }
        m->hash = bsync_match_hash(bsync_match_config_desc(m->cfg));
        player_count += bsync_match_config_player_count(m->cfg);
        match_count++;
    }
    fclose(f);
    lg_player* pl = calloc(player_count ? player_count : 1, sizeof *pl);
    uint32_t host_count = (player_count + PEERS_PER_HOST - 1) / PEERS_PER_HOST;
    ENetHost** hosts = calloc(host_count ? host_count : 1, sizeof *hosts);
    if (!pl || !hosts) return 2;
    ENetAddress to;
    memset(&to, 0, sizeof to);
    enet_address_set_host(&to, host_text);
    to.port = port;
    uint32_t n = 0;
    for (uint32_t mi = 0; mi < match_count; mi++)
        for (uint32_t s = 0; s < bsync_match_config_player_count(matches[mi].cfg); s++, n++) {
            uint32_t h = n / PEERS_PER_HOST;
            if (!hosts[h]) {
                ENetAddress bind;
                memset(&bind, 0, sizeof bind);
                char ip[32];
                const uint32_t a = g_address_base + h; /* several generators: disjoint addresses */
                snprintf(ip, sizeof ip, "127.%u.%u.%u", (a / 62500u) % 250u, 1u + (a / 250u) % 250u, 1u + a % 250u);
                enet_address_set_host(&bind, ip);
                bind.port = 0;
                hosts[h] = enet_host_create(&bind, PEERS_PER_HOST, BSYNC_PROTO_CHANNEL_COUNT, 0, 0);
                if (!hosts[h]) {
                    fprintf(stderr, "bsync_loadgen: cannot open a socket on %s (file descriptors?)\n", ip);
                    return 2;
                }
                bsync_net_host_limits(hosts[h]);
            }
            lg_player* p = &pl[n];
            p->host = hosts[h];
            p->match = mi;
            p->slot = (uint8_t)s;
            p->bye_reason = UINT32_MAX;
            p->last_sent = UINT32_MAX;
            p->next_send_us = UINT64_MAX;
            { /* its phase: uniform in [0, period) of its match's rate, from (seed, player index) */
                uint64_t st = g_seed * 0x100000001B3ull + n;
                const uint32_t rate = bsync_match_config_tick_rate(matches[mi].cfg);
                p->phase_us = g_burst || !rate ? 0u : splitmix64(&st) % (1000000u / rate);
                p->rng = st;
            }
            p->to = to;
            if (matches[mi].port) p->to.port = matches[mi].port;
            p->cfg = matches[mi].cfg;
            p->hash = matches[mi].hash;
            p->connect_at_us = 1000ull * stagger_ms * mi; /* from the start (below) */
        }
    /* The loop runs every millisecond and services only the hosts whose socket has datagrams (one
     * select over every socket) and flushes only the hosts it queued something on; every 20 ms it
     * services and flushes them all (ENet's retransmissions and pings). Servicing 500 hosts each round
     * cost about as much CPU as the server it measures. */
    uint8_t* dirty = calloc(host_count ? host_count : 1, 1);
    if (!dirty) return 2;
    static ENetSocketSet ready;
    int selectable = 1, have_ready = 0;
    ENetSocket max_socket = 0;
    for (uint32_t h = 0; h < host_count; h++) {
#if defined(_WIN32)
        selectable = 0;
#else
        if (hosts[h]->socket >= FD_SETSIZE) selectable = 0;
#endif
        if (hosts[h]->socket > max_socket) max_socket = hosts[h]->socket;
    }
    uint64_t last_full = 0;
    uint64_t begin = bsync_net_now_us(), deadline = begin + 1000000ull * seconds;
    for (uint32_t i = 0; i < player_count; i++) pl[i].connect_at_us += begin;
    uint32_t done = 0;
    while (done < player_count && bsync_net_now_us() < deadline) {
        uint64_t now = bsync_net_now_us();
        const uint64_t round_start = now;
        const int full = !selectable || !have_ready || now - last_full >= 20000u;
        if (full) last_full = now;
        for (uint32_t i = 0; i < player_count; i++) { /* the players whose match is due begin connecting */
            lg_player* p = &pl[i];
            if (p->peer || p->ended || p->connect_at_us == 0 || now < p->connect_at_us) continue;
            p->connect_at_us = 0; /* once */
            p->peer = enet_host_connect(p->host, &p->to, BSYNC_PROTO_CHANNEL_COUNT, 0);
            if (!p->peer) return 2;
            p->peer->data = p;
            bsync_net_peer_limits(p->peer);
            dirty[i / PEERS_PER_HOST] = 1;
        }
        for (uint32_t h = 0; h < host_count; h++) {
            if (!full && !ENET_SOCKETSET_CHECK(ready, hosts[h]->socket)) continue;
            ENetEvent e;
            while (enet_host_service(hosts[h], &e, 0) > 0) {
                lg_player* p = e.peer ? e.peer->data : NULL;
                if (!p) {
                    if (e.type == ENET_EVENT_TYPE_RECEIVE) enet_packet_destroy(e.packet);
                    continue;
                }
                if (e.type == ENET_EVENT_TYPE_CONNECT) {
                    p->connected = 1;
                    bsync_net_peer_limits(p->peer);
                    if (bsync_match_config_session(p->cfg) == BSYNC_MATCH_SESSION_PLAIN) {
                        send_hello(p);
                    } else { /* the handshake: AUTH_INIT, then the sealed HELLO on AUTH_CHALLENGE */
                        static bsync_proto_msg a;
                        memset(&a, 0, sizeof a);
                        a.type = BSYNC_PROTO_AUTH_INIT;
                        a.auth_init.match_id = bsync_match_config_match_id(p->cfg);
                        a.auth_init.slot = p->slot;
                        a.auth_init.mode = (uint8_t)bsync_match_config_session(p->cfg);
                        bsync_session_random(p->cn, sizeof p->cn);
                        memcpy(a.auth_init.client_nonce, p->cn, sizeof p->cn);
                        p->auth = 1;
                        send_raw(p, &a);
                    }
                } else if (e.type == ENET_EVENT_TYPE_RECEIVE) {
                    on_packet(p, e.packet->data, e.packet->dataLength, now);
                    enet_packet_destroy(e.packet);
                } else if (e.type == ENET_EVENT_TYPE_DISCONNECT) {
                    if (p->bye_reason == UINT32_MAX) p->timed_out = 1;
                    p->peer = NULL;
                    if (!p->ended) p->ended = 1, done++;
                }
            }
            bsync_net_host_retransmit_linear(hosts[h]);
        }
        now = bsync_net_now_us();
        for (uint32_t i = 0; i < player_count; i++) {
            lg_player* p = &pl[i];
            if (p->peer && p->started && !p->got_end && p->bye_reason == UINT32_MAX && now >= p->next_send_us &&
                now + 1000000u / p->rate >= p->start_local_us) {
                send_input(p, now);
                dirty[i / PEERS_PER_HOST] = 1;
            }
        }
        for (uint32_t h = 0; h < host_count; h++)
            if (full || dirty[h]) enet_host_flush(hosts[h]), dirty[h] = 0;
        /* the rest of the millisecond, then which sockets have datagrams (taken next round) */
        now = bsync_net_now_us();
        if (now < round_start + 1000u) bsync_platform_sleep_us(round_start + 1000u - now);
        have_ready = 0;
        if (selectable && host_count) {
            ENET_SOCKETSET_EMPTY(ready);
            for (uint32_t h = 0; h < host_count; h++) ENET_SOCKETSET_ADD(ready, hosts[h]->socket);
            have_ready = enet_socketset_select(max_socket, &ready, NULL, 0) >= 0;
        }
    }
    /* summary */
    uint32_t connected = 0, welcomed = 0, completed = 0, timeouts = 0, byes[16] = {0}, no_bye = 0;
    uint64_t frames = 0, down = 0, up = 0, play_us = 0;
    uint32_t frames_min = UINT32_MAX;
    for (uint32_t i = 0; i < player_count; i++) {
        lg_player* p = &pl[i];
        connected += (uint32_t)p->connected;
        welcomed += (uint32_t)p->welcomed;
        if (p->got_end && p->frames >= p->end_ticks && p->end_ticks > 0) completed++;
        timeouts += (uint32_t)p->timed_out;
        if (p->bye_reason < 16) byes[p->bye_reason]++;
        else no_bye++;
        frames += p->frames;
        if (p->frames < frames_min) frames_min = p->frames;
        down += p->bytes_down;
        up += p->bytes_up;
        uint64_t last = p->last_us ? p->last_us : bsync_net_now_us();
        if (p->first_us && last > p->first_us) play_us += last - p->first_us;
    }
    /* matches the server refused because it was overloaded (any of their players got BYE OVERLOADED) */
    uint32_t refused_matches = 0, refused_players = 0;
    for (uint32_t i = 0; i < player_count; i++) refused_players += pl[i].bye_reason == BSYNC_PROTO_BYE_OVERLOADED;
    for (uint32_t mi = 0; mi < match_count; mi++) {
        int refused = 0;
        for (uint32_t i = 0; i < player_count; i++)
            if (pl[i].match == mi && pl[i].bye_reason == BSYNC_PROTO_BYE_OVERLOADED) refused = 1;
        refused_matches += (uint32_t)refused;
    }
    double secs = play_us ? (double)play_us / 1e6 : 1.0; /* player-seconds (printing only) */
    uint64_t enet_down = 0, enet_up = 0; /* datagram bytes with ENet's headers (not UDP/IP's) */
    for (uint32_t h = 0; h < host_count; h++) enet_down += hosts[h]->totalReceivedData, enet_up += hosts[h]->totalSentData;
    if (json) {
        printf("{\"matches\": %u, \"players\": %u, \"connected\": %u, \"welcomed\": %u, \"completed\": %u, "
               "\"timeouts\": %u, \"no_bye\": %u, \"refused_matches\": %u, \"bye\": {",
               match_count, player_count, connected, welcomed, completed, timeouts, no_bye, refused_matches);
        int first = 1;
        for (uint32_t r = 0; r < 16; r++)
            if (byes[r]) printf("%s\"%s\": %u", first ? "" : ", ", bsync_proto_bye_reason_string(r), byes[r]), first = 0;
        printf("}, \"frames\": %llu, \"frames_min\": %u, \"down_bytes_per_player_s\": %.0f, \"up_bytes_per_player_s\": %.0f, "
               "\"enet_down_bytes_per_player_s\": %.0f, \"enet_up_bytes_per_player_s\": %.0f}\n",
               (unsigned long long)frames, player_count ? frames_min : 0, (double)down / secs, (double)up / secs,
               (double)enet_down / secs, (double)enet_up / secs);
    } else {
        printf("bsync_loadgen: %u matches, %u players: %u connected, %u welcomed, %u completed, %u timed out, "
               "%u matches refused (overloaded); %llu frames (min %u per player); down %.0f B/s, up %.0f B/s per player\n",
               match_count, player_count, connected, welcomed, completed, timeouts, refused_matches,
               (unsigned long long)frames,
               player_count ? frames_min : 0, (double)down / secs, (double)up / secs);
    }
    for (uint32_t h = 0; h < host_count; h++) enet_host_destroy(hosts[h]);
    for (uint32_t i = 0; i < match_count; i++) bsync_match_config_destroy(matches[i].cfg);
    free(hosts);
    free(dirty);
    free(pl);
    bsync_net_deinit();
    return completed + refused_players == player_count ? 0 : 1;
}
