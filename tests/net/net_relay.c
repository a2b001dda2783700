/* net_relay.c — see net_relay.h. */
#include "net_relay.h"

#include <stdlib.h>
#include <string.h>

#include "blendsync/net.h"

#define NR_MAX_SESSIONS 64u
#define NR_QUEUE 8192u
#define NR_DATAGRAM 2048u /* ENet's datagrams stay under its MTU (1392 by default) */
#define NR_SESSION_IDLE_US 30000000ull

typedef struct nr_dir {
    uint64_t rng;
    uint64_t burst_rng;
    int bad;               /* in a bad (burst) period */
    uint64_t switch_us;    /* when the current period ends (0: schedule not started) */
} nr_dir;

typedef struct nr_session {
    int used;
    ENetAddress client;   /* where the client sends from */
    ENetSocket upstream;  /* our socket towards the server (one per client, so the server sees distinct peers) */
    nr_dir up, down;
    uint64_t last_us;
} nr_session;

typedef struct nr_packet {
    uint64_t due_us;
    uint32_t session;
    int down; /* 1: server -> client */
    uint32_t len;
    uint8_t data[NR_DATAGRAM];
} nr_packet;

struct nr_relay {
    nr_tamper_fn tamper;
    void* tamper_ctx;
    nr_impair im;
    uint64_t seed;
    ENetSocket listen;
    uint16_t port;
    ENetAddress server;
    uint64_t created_us;
    nr_session sessions[NR_MAX_SESSIONS];
    nr_packet* queue; /* NR_QUEUE entries, unordered; len 0 = free */
    uint32_t queued;
    nr_stats stats;
    uint8_t buf[NR_DATAGRAM];
};

static uint64_t splitmix(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t roll(uint64_t* s, uint32_t n) { return n ? (uint32_t)(splitmix(s) % n) : 0u; }

static ENetSocket open_socket(ENetAddress* bound) {
    ENetSocket s = enet_socket_create(ENET_SOCKET_TYPE_DATAGRAM);
    if (s == ENET_SOCKET_NULL) return s;
    ENetAddress a;
    memset(&a, 0, sizeof a);
    enet_address_set_host(&a, "127.0.0.1");
    a.port = 0;
    if (enet_socket_bind(s, &a) != 0) {
        enet_socket_destroy(s);
        return ENET_SOCKET_NULL;
    }
    enet_socket_set_option(s, ENET_SOCKOPT_NONBLOCK, 1);
    enet_socket_set_option(s, ENET_SOCKOPT_RCVBUF, 4 * 1024 * 1024);
    enet_socket_set_option(s, ENET_SOCKOPT_SNDBUF, 4 * 1024 * 1024);
    if (bound && enet_socket_get_address(s, bound) != 0) {
        enet_socket_destroy(s);
        return ENET_SOCKET_NULL;
    }
    return s;
}

nr_relay* nr_relay_create(uint16_t server_port, const nr_impair* impair, uint64_t seed) {
    if (bsync_net_init() != 0) return NULL;
    nr_relay* r = calloc(1, sizeof *r);
    if (!r) {
        bsync_net_deinit();
        return NULL;
    }
    r->queue = calloc(NR_QUEUE, sizeof *r->queue);
    if (impair) r->im = *impair;
    r->seed = seed;
    ENetAddress bound;
    r->listen = open_socket(&bound);
    if (!r->queue || r->listen == ENET_SOCKET_NULL) {
        free(r->queue);
        free(r);
        bsync_net_deinit();
        return NULL;
    }
    r->port = bound.port;
    memset(&r->server, 0, sizeof r->server);
    enet_address_set_host(&r->server, "127.0.0.1");
    r->server.port = server_port;
    r->created_us = bsync_net_now_us();
    return r;
}

uint16_t nr_relay_port(const nr_relay* r) { return r ? r->port : 0; }

void nr_relay_stats(const nr_relay* r, nr_stats* out) {
    if (r && out) *out = r->stats;
}

void nr_relay_destroy(nr_relay* r) {
    if (!r) return;
    for (uint32_t i = 0; i < NR_MAX_SESSIONS; i++)
        if (r->sessions[i].used) enet_socket_destroy(r->sessions[i].upstream);
    enet_socket_destroy(r->listen);
    free(r->queue);
    free(r);
    bsync_net_deinit();
}

/* The end of the stall `now` falls in, or 0 when it falls in none. */
static uint64_t stall_end(const nr_relay* r, uint64_t now) {
    if (!r->im.stall_every_ms || !r->im.stall_ms) return 0;
    uint64_t every = 1000ull * r->im.stall_every_ms, t = now - r->created_us;
    if (t < every) return 0; /* the first stall starts one period in */
    uint64_t in = t % every;
    return in < 1000ull * r->im.stall_ms ? now - in + 1000ull * r->im.stall_ms : 0;
}

static void enqueue(nr_relay* r, uint32_t session, int down, const uint8_t* data, uint32_t len, uint64_t due,
                    nr_dir_stats* st) {
    if (r->queued == NR_QUEUE) {
        st->overflow++;
        return;
    }
    for (uint32_t i = 0; i < NR_QUEUE; i++) {
        nr_packet* p = &r->queue[i];
        if (p->len) continue;
        p->due_us = due;
        p->session = session;
        p->down = down;
        p->len = len;
        memcpy(p->data, data, len);
        r->queued++;
        return;
    }
}

/* One datagram through the impairment: the same sequence of draws for every datagram, whatever the
 * outcome, so the n-th datagram's fate depends only on the seed and n. */
static void impair(nr_relay* r, uint32_t session, int down, uint8_t* data, uint32_t len, uint64_t now) {
    if (r->tamper) r->tamper(r->tamper_ctx, session, down, data, &len, NR_DATAGRAM);
    if (len > NR_DATAGRAM) len = NR_DATAGRAM;
    nr_session* s = &r->sessions[session];
    nr_dir* d = down ? &s->down : &s->up;
    nr_dir_stats* st = down ? &r->stats.down : &r->stats.up;
    const nr_impair* im = &r->im;
    st->in++;
    if (down && im->up_only) {
        enqueue(r, session, down, data, len, now, st);
        return;
    }
    uint32_t u_loss = roll(&d->rng, 1000), u_burst = roll(&d->rng, 1000);
    uint32_t span = im->delay_max_ms > im->delay_min_ms ? im->delay_max_ms - im->delay_min_ms + 1u : 1u;
    uint32_t delay = im->delay_min_ms + roll(&d->rng, span);
    uint32_t u_reorder = roll(&d->rng, 1000), u_dup = roll(&d->rng, 1000);
    uint32_t dup_delay = im->delay_min_ms + roll(&d->rng, span);
    if (im->burst_good_ms && im->burst_bad_ms) {
        if (!d->switch_us) { /* starts good */
            d->bad = 0;
            d->switch_us = now + 1000ull * (im->burst_good_ms / 2u + roll(&d->burst_rng, im->burst_good_ms + 1u));
        }
        while (now >= d->switch_us) {
            d->bad = !d->bad;
            uint32_t mean = d->bad ? im->burst_bad_ms : im->burst_good_ms;
            d->switch_us += 1000ull * (mean / 2u + roll(&d->burst_rng, mean + 1u));
        }
    }
    if (u_loss < im->loss_permille) {
        st->lost++;
        return;
    }
    if (d->bad && u_burst < im->burst_loss_permille) {
        st->burst_lost++;
        return;
    }
    if (im->blackout_after_ms && now - r->created_us >= 1000ull * im->blackout_after_ms) {
        st->stalled++;
        return;
    }
    uint64_t base = now;
    uint64_t se = stall_end(r, now);
    if (se) {
        st->stalled++;
        if (im->stall_drop) return;
        base = se;
    }
    if (im->reorder_permille && u_reorder < im->reorder_permille) {
        delay += im->reorder_ms;
        st->reordered++;
    }
    enqueue(r, session, down, data, len, base + 1000ull * delay, st);
    if (im->dup_permille && u_dup < im->dup_permille) {
        st->duplicated++;
        enqueue(r, session, down, data, len, base + 1000ull * dup_delay, st);
    }
}

static int find_session(nr_relay* r, const ENetAddress* from, uint64_t now) {
    int free_slot = -1;
    for (uint32_t i = 0; i < NR_MAX_SESSIONS; i++) {
        nr_session* s = &r->sessions[i];
        if (s->used && s->client.host == from->host && s->client.port == from->port) return (int)i;
        if (s->used && now - s->last_us > NR_SESSION_IDLE_US) { /* a client long gone */
            enet_socket_destroy(s->upstream);
            s->used = 0;
        }
        if (!s->used && free_slot < 0) free_slot = (int)i;
    }
    if (free_slot < 0) return -1;
    nr_session* s = &r->sessions[free_slot];
    memset(s, 0, sizeof *s);
    s->upstream = open_socket(NULL);
    if (s->upstream == ENET_SOCKET_NULL) return -1;
    s->used = 1;
    s->client = *from;
    uint64_t k = r->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(r->stats.sessions + 1u));
    s->up.rng = splitmix(&k);
    s->down.rng = splitmix(&k);
    s->up.burst_rng = splitmix(&k);
    s->down.burst_rng = splitmix(&k);
    r->stats.sessions++;
    return free_slot;
}

static int receive(ENetSocket sock, ENetAddress* from, uint8_t* buf) {
    ENetBuffer b;
    b.data = buf;
    b.dataLength = NR_DATAGRAM;
    return enet_socket_receive(sock, from, &b, 1);
}

void nr_relay_pump(nr_relay* r) {
    if (!r) return;
    uint64_t now = bsync_net_now_us();
    ENetAddress from;
    int n;
    for (int guard = 0; guard < 4096 && (n = receive(r->listen, &from, r->buf)) > 0; guard++) {
        int s = find_session(r, &from, now);
        if (s < 0) continue;
        r->sessions[s].last_us = now;
        impair(r, (uint32_t)s, 0, r->buf, (uint32_t)n, now);
    }
    for (uint32_t i = 0; i < NR_MAX_SESSIONS; i++) {
        if (!r->sessions[i].used) continue;
        for (int guard = 0; guard < 4096 && (n = receive(r->sessions[i].upstream, &from, r->buf)) > 0; guard++)
            if (from.port == r->server.port) impair(r, i, 1, r->buf, (uint32_t)n, now);
    }
    for (uint32_t i = 0; i < NR_QUEUE && r->queued; i++) {
        nr_packet* p = &r->queue[i];
        if (!p->len || p->due_us > now) continue;
        nr_session* s = &r->sessions[p->session];
        if (s->used) {
            ENetBuffer b;
            b.data = p->data;
            b.dataLength = p->len;
            if (p->down) enet_socket_send(r->listen, &s->client, &b, 1);
            else enet_socket_send(s->upstream, &r->server, &b, 1);
            if (p->down) r->stats.down.delivered++;
            else r->stats.up.delivered++;
        }
        p->len = 0;
        r->queued--;
    }
}

void nr_relay_set_tamper(nr_relay* r, nr_tamper_fn fn, void* ctx) {
    if (!r) return;
    r->tamper = fn;
    r->tamper_ctx = ctx;
}

void nr_relay_run(nr_relay* r, uint32_t ms) {
    uint64_t end = bsync_net_now_us() + 1000ull * ms;
    while (bsync_net_now_us() < end) {
        nr_relay_pump(r);
        ENetSocketSet set;
        ENET_SOCKETSET_EMPTY(set);
        ENET_SOCKETSET_ADD(set, r->listen);
        ENetSocket maxs = r->listen;
        for (uint32_t i = 0; i < NR_MAX_SESSIONS; i++)
            if (r->sessions[i].used) {
                ENET_SOCKETSET_ADD(set, r->sessions[i].upstream);
                if (r->sessions[i].upstream > maxs) maxs = r->sessions[i].upstream;
            }
        enet_socketset_select(maxs, &set, NULL, 1); /* 1 ms: due datagrams go out on time */
    }
}
