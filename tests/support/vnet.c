/* vnet.c — see vnet.h: the server's and the client's transport ports on a virtual network. */
#include "vnet.h"

#include <stdlib.h>
#include <string.h>

#include "blendsync/session.h"
#include "client_transport.h"
#include "server_transport.h"

#define VN_NONE UINT32_MAX
#define VN_PEER_TIMEOUT_US (1000ull * BSYNC_PROTO_PEER_TIMEOUT_MS)
#define VN_LOG_KEEP (4u << 20) /* kept log text: beyond this the oldest half goes */

typedef enum vn_kind {
    VN_SERVER_OPEN,   /* the connection reaches the server */
    VN_SERVER_PACKET,
    VN_SERVER_GONE,   /* the server hears the connection is gone */
    VN_CLIENT_UP,     /* the client's connection is up */
    VN_CLIENT_PACKET,
    VN_CLIENT_GONE    /* the client hears its connection is gone */
} vn_kind;

typedef struct vn_event {
    uint64_t due, seq;
    vn_kind kind;
    uint32_t conn, gen, client, channel;
    size_t len;
    uint8_t* data;
} vn_event;

typedef struct vn_conn {
    int used;        /* from the connect until the server hears it is gone (or drops it) */
    int server_open; /* srv_conn_open was called */
    int raw;         /* vn_raw_open's */
    uint32_t gen;    /* events of an earlier use of the number are stale */
    uint32_t client;
} vn_conn;

typedef struct vn_cli {
    vn_net* net;
    uint32_t index;
    bsync_client* c; /* NULL: destroyed */
    vn_link link;
    uint32_t conn, gen; /* the current connection (VN_NONE: none) */
    int up;
    uint64_t up_due, down_due; /* the newest packet's arrival each way: a shorter latency never reorders */
    uint32_t misroute_from, misroute_to, misroute_left; /* vn_client_misroute */
    uint32_t late_type, late_us, late_left;              /* vn_client_late: the next such packet, late */
    uint32_t late_channel;
    uint64_t late_due; /* its arrival: the later packets of its channel wait for it (ENet's order) */
} vn_cli;

struct vn_net {
    uint64_t now, seq, rng;
    bsync_server* server;
    FILE* log;
    char* log_text;
    size_t log_len, log_cap;
    vn_conn* conns;
    uint32_t conn_count;
    vn_cli clients[VN_MAX_CLIENTS];
    uint32_t client_count;
    vn_event* ev;
    size_t ev_count, ev_cap;
    uint64_t raw_discarded;
};

static uint64_t splitmix(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t latency(const vn_cli* k) { return k->link.latency_us ? k->link.latency_us : 1000u; }

static int lost(vn_net* n, const vn_cli* k, int reliable) {
    const uint64_t r = splitmix(&n->rng) % 1000u; /* one draw per packet, whatever the outcome */
    return !reliable && r < k->link.loss_permille;
}

static void push(vn_net* n, uint64_t due, vn_kind kind, uint32_t conn, uint32_t client, uint32_t channel,
                 const uint8_t* data, size_t len) {
    if (n->ev_count == n->ev_cap) {
        size_t cap = n->ev_cap ? 2 * n->ev_cap : 256;
        vn_event* ev = realloc(n->ev, cap * sizeof *ev);
        if (!ev) abort(); /* a test harness out of memory: nothing sensible to go on with */
        n->ev = ev;
        n->ev_cap = cap;
    }
    vn_event* e = &n->ev[n->ev_count++];
    memset(e, 0, sizeof *e);
    e->due = due;
    e->seq = n->seq++;
    e->kind = kind;
    e->conn = conn;
    e->gen = conn < n->conn_count ? n->conns[conn].gen : 0;
    e->client = client;
    e->channel = channel;
    if (len) {
        e->data = malloc(len);
        if (!e->data) abort();
        memcpy(e->data, data, len);
        e->len = len;
    }
}

/* The earliest event due at or before t (ties: the first pushed), taken out; 0 when none. */
static int pop(vn_net* n, uint64_t t, vn_event* out) {
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < n->ev_count; i++) {
        const vn_event* e = &n->ev[i];
        if (e->due > t) continue;
        if (best == SIZE_MAX || e->due < n->ev[best].due || (e->due == n->ev[best].due && e->seq < n->ev[best].seq)) best = i;
    }
    if (best == SIZE_MAX) return 0;
    *out = n->ev[best];
    n->ev[best] = n->ev[--n->ev_count];
    return 1;
}

static uint32_t conn_alloc(vn_net* n, uint32_t client, int raw) {
    for (uint32_t i = 0; i < n->conn_count; i++) {
        vn_conn* c = &n->conns[i];
        if (c->used) continue;
        c->used = 1;
        c->server_open = 0;
        c->raw = raw;
        c->gen++;
        c->client = client;
        return i;
    }
    return VN_NONE;
}

static int current(const vn_net* n, const vn_event* e) { return e->conn < n->conn_count && n->conns[e->conn].gen == e->gen; }

static void deliver(vn_net* n, const vn_event* e) {
    vn_conn* c = e->conn < n->conn_count ? &n->conns[e->conn] : NULL;
    vn_cli* k = e->client < n->client_count ? &n->clients[e->client] : NULL;
    switch (e->kind) {
    case VN_SERVER_OPEN: {
        if (!current(n, e) || !c->used) return;
        c->server_open = 1;
        char ip[32];
        snprintf(ip, sizeof ip, "10.0.0.%u", e->client + 1u);
        srv_conn_open(n->server, e->conn, e->client + 1u, ip, (uint16_t)(40000u + e->client));
        return;
    }
    case VN_SERVER_PACKET:
        if (current(n, e) && c->used && c->server_open) srv_conn_receive(n->server, e->conn, e->channel, e->data, e->len);
        return;
    case VN_SERVER_GONE:
        if (!current(n, e) || !c->used) return;
        c->used = 0;
        if (c->server_open) srv_conn_gone(n->server, e->conn);
        return;
    case VN_CLIENT_UP:
        if (!k || !k->c || k->conn != e->conn || k->gen != e->gen) return;
        k->up = 1;
        cl_connected(k->c);
        return;
    case VN_CLIENT_PACKET:
        if (k && k->c && k->conn == e->conn && k->gen == e->gen && k->up) cl_packet(k->c, e->channel, e->data, e->len);
        return;
    case VN_CLIENT_GONE:
        if (!k || !k->c || k->conn != e->conn || k->gen != e->gen) return;
        k->conn = VN_NONE;
        k->up = 0;
        cl_disconnected(k->c);
        return;
    }
}

/* ---- the client's port (client_transport.h) */

/* The client forgets its connection; the server hears of it after `after_us` (a peer timeout for a
 * drop, the latency for a close). */
static void client_forget(vn_cli* k, uint64_t after_us) {
    vn_net* n = k->net;
    if (k->conn == VN_NONE) return;
    if (n->conns[k->conn].gen == k->gen && n->conns[k->conn].used)
        push(n, n->now + after_us, VN_SERVER_GONE, k->conn, k->index, 0, NULL, 0);
    k->conn = VN_NONE;
    k->up = 0;
}

static int cli_connect(void* user) {
    vn_cli* k = user;
    vn_net* n = k->net;
    client_forget(k, VN_PEER_TIMEOUT_US);
    if (!n->server) return -1;
    const uint32_t conn = conn_alloc(n, k->index, 0);
    if (conn == VN_NONE) return -1; /* the server has no room: as an unanswered connect */
    k->conn = conn;
    k->gen = n->conns[conn].gen;
    push(n, n->now + latency(k), VN_SERVER_OPEN, conn, k->index, 0, NULL, 0);
    push(n, n->now + 2u * latency(k), VN_CLIENT_UP, conn, k->index, 0, NULL, 0);
    return 0;
}

static int cli_send(void* user, uint32_t channel, int reliable, const uint8_t* data, size_t len) {
    vn_cli* k = user;
    vn_net* n = k->net;
    if (k->conn == VN_NONE || !k->up) return -1;
    if (k->misroute_left && channel == k->misroute_from) {
        k->misroute_left--;
        channel = k->misroute_to;
    }
    if (!lost(n, k, reliable)) {
        uint64_t due = n->now + latency(k);
        if (due < k->up_due) due = k->up_due;
        k->up_due = due;
        push(n, due, VN_SERVER_PACKET, k->conn, k->index, channel, data, len);
    }
    return 0;
}

static void cli_close(void* user) {
    vn_cli* k = user;
    client_forget(k, latency(k));
}

static void cli_drop(void* user) {
    vn_cli* k = user;
    client_forget(k, VN_PEER_TIMEOUT_US);
}

static void cli_rtt(void* user, uint32_t* rtt_ms, uint32_t* variance_ms) {
    const vn_cli* k = user;
    *rtt_ms = k->conn != VN_NONE ? (uint32_t)(2u * latency(k) / 1000u) : 0u;
    *variance_ms = 0;
}

static uint64_t cli_now(void* user) { return ((vn_cli*)user)->net->now; }

static void cli_release(void* user) {
    vn_cli* k = user;
    client_forget(k, latency(k)); /* after its BYE */
    k->c = NULL;
}

/* ---- the server's port (server_transport.h) */

static int srv_tx_send(void* user, uint32_t conn, uint32_t channel, int reliable, const uint8_t* data, size_t len) {
    vn_net* n = user;
    if (conn >= n->conn_count || !n->conns[conn].used) return -1;
    const vn_conn* c = &n->conns[conn];
    if (c->raw) {
        n->raw_discarded += len;
        return 0;
    }
    vn_cli* k = &n->clients[c->client];
    if (k->c && k->conn == conn && k->gen == c->gen && !lost(n, k, reliable)) {
        uint64_t due = n->now + latency(k);
        if (due < k->down_due) due = k->down_due;
        if (k->late_left && len >= 4 && data[3] == k->late_type) { /* data[3]: the header's type */
            k->late_left = 0;
            k->late_channel = channel;
            k->late_due = due + k->late_us; /* not down_due: the other channels go on meanwhile */
            push(n, k->late_due, VN_CLIENT_PACKET, conn, c->client, channel, data, len);
            return 0;
        }
        if (channel == k->late_channel && due < k->late_due) due = k->late_due;
        else k->down_due = due;
        push(n, due, VN_CLIENT_PACKET, conn, c->client, channel, data, len);
    }
    return 0;
}

static void srv_tx_close(void* user, uint32_t conn, uint32_t reason) {
    vn_net* n = user;
    (void)reason;
    if (conn >= n->conn_count || !n->conns[conn].used || n->conns[conn].raw) return; /* raw: vn_raw_gone */
    const vn_cli* k = &n->clients[n->conns[conn].client];
    push(n, n->now + latency(k), VN_CLIENT_GONE, conn, n->conns[conn].client, 0, NULL, 0);
    push(n, n->now + 2u * latency(k), VN_SERVER_GONE, conn, n->conns[conn].client, 0, NULL, 0);
}

static void srv_tx_drop(void* user, uint32_t conn) {
    vn_net* n = user;
    if (conn >= n->conn_count || !n->conns[conn].used) return;
    vn_conn* c = &n->conns[conn];
    if (!c->raw) push(n, n->now + VN_PEER_TIMEOUT_US, VN_CLIENT_GONE, conn, c->client, 0, NULL, 0);
    c->used = 0; /* forgotten: no gone event at the server */
}

static void srv_tx_log(void* user, const char* level, const char* text) {
    vn_net* n = user;
    char line[4200];
    int len = snprintf(line, sizeof line, "t=%llu.%03llu level=%s %s\n", (unsigned long long)(n->now / 1000000u),
                       (unsigned long long)(n->now / 1000u % 1000u), level, text);
    if (len < 0) return;
    size_t m = (size_t)len < sizeof line ? (size_t)len : sizeof line - 1u;
    if (n->log) {
        fwrite(line, 1, m, n->log);
        return;
    }
    if (n->log_len + m + 1u > VN_LOG_KEEP && n->log_len > VN_LOG_KEEP / 2u) { /* keep the newer half */
        const size_t cut = n->log_len - VN_LOG_KEEP / 2u;
        memmove(n->log_text, n->log_text + cut, n->log_len - cut);
        n->log_len -= cut;
    }
    if (n->log_len + m + 1u > n->log_cap) {
        size_t cap = n->log_cap ? n->log_cap : 65536u;
        while (cap < n->log_len + m + 1u) cap *= 2u;
        char* t = realloc(n->log_text, cap);
        if (!t) return;
        n->log_text = t;
        n->log_cap = cap;
    }
    memcpy(n->log_text + n->log_len, line, m);
    n->log_len += m;
    n->log_text[n->log_len] = '\0';
}

static uint64_t srv_tx_now(void* user) { return ((vn_net*)user)->now; }

/* ---- vnet.h */

vn_net* vn_create(uint64_t seed) {
    vn_net* n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->now = 1000000u;
    n->rng = seed ^ 0x766e65745f726e67ull;
    return n;
}

uint64_t vn_now(const vn_net* n) { return n ? n->now : 0; }

bsync_result vn_server(vn_net* n, const bsync_server_config* cfg, uint32_t connections, bsync_server** out,
                       bsync_error* err) {
    if (!n || n->server || !cfg || !out || connections == 0) return BSYNC_INVALID_ARGUMENT;
    n->conns = calloc(connections, sizeof *n->conns);
    if (!n->conns) return BSYNC_OUT_OF_MEMORY;
    n->conn_count = connections;
    n->log = cfg->log;
    const srv_transport t = {n, srv_tx_send, srv_tx_close, srv_tx_drop, srv_tx_log, srv_tx_now, NULL};
    bsync_result r = srv_create_on(cfg, &t, connections, &n->server, err);
    if (r != BSYNC_OK) {
        free(n->conns);
        n->conns = NULL;
        n->conn_count = 0;
        return r;
    }
    *out = n->server;
    return BSYNC_OK;
}

bsync_result vn_client(vn_net* n, const bsync_client_config* cfg, const vn_link* link, bsync_client** out,
                       bsync_error* err) {
    if (!n || !out || n->client_count == VN_MAX_CLIENTS) return BSYNC_INVALID_ARGUMENT;
    vn_cli* k = &n->clients[n->client_count];
    memset(k, 0, sizeof *k);
    k->net = n;
    k->index = n->client_count;
    k->conn = VN_NONE;
    if (link) k->link = *link;
    const cl_transport t = {k, cli_connect, cli_send, cli_close, cli_drop, cli_rtt, cli_now, cli_release};
    bsync_client* c = NULL;
    bsync_result r = cl_create_on(cfg, &t, &c, err);
    if (r != BSYNC_OK) return r;
    k->c = c;
    n->client_count++;
    r = cl_start(c);
    if (r != BSYNC_OK) {
        bsync_client_destroy(c);
        return r;
    }
    *out = c;
    return BSYNC_OK;
}

void vn_run(vn_net* n, uint64_t us) {
    if (!n) return;
    const uint64_t end = n->now + us;
    while (n->now < end) {
        const uint64_t to = end - n->now > 1000u ? n->now + 1000u : end;
        vn_event e;
        while (pop(n, to, &e)) {
            if (e.due > n->now) n->now = e.due;
            deliver(n, &e);
            free(e.data);
        }
        n->now = to;
        if (n->server) srv_step(n->server, n->now);
        for (uint32_t i = 0; i < n->client_count; i++)
            if (n->clients[i].c) cl_step(n->clients[i].c);
    }
}

uint32_t vn_raw_open(vn_net* n, uint32_t addr_key) {
    if (!n || !n->server) return VN_NONE;
    const uint32_t conn = conn_alloc(n, VN_NONE, 1);
    if (conn == VN_NONE) return VN_NONE;
    n->conns[conn].server_open = 1;
    srv_conn_open(n->server, conn, addr_key, "10.9.9.9", 50000);
    return conn;
}

void vn_client_link(vn_net* n, uint32_t client, const vn_link* link) {
    if (n && link && client < n->client_count) n->clients[client].link = *link;
}

void vn_client_misroute(vn_net* n, uint32_t client, uint32_t from_channel, uint32_t to_channel, uint32_t count) {
    if (!n || client >= n->client_count) return;
    n->clients[client].misroute_from = from_channel;
    n->clients[client].misroute_to = to_channel;
    n->clients[client].misroute_left = count;
}

void vn_client_late(vn_net* n, uint32_t client, uint32_t type, uint32_t late_us) {
    if (!n || client >= n->client_count) return;
    n->clients[client].late_type = type;
    n->clients[client].late_us = late_us;
    n->clients[client].late_left = 1;
}

int vn_raw_packet_on(vn_net* n, uint32_t conn, uint32_t channel, const uint8_t* data, size_t len) {
    if (!n || conn >= n->conn_count || !n->conns[conn].used || !n->conns[conn].raw) return -1;
    srv_conn_receive(n->server, conn, channel, data, len);
    return 0;
}

int vn_raw_packet(vn_net* n, uint32_t conn, const uint8_t* data, size_t len) {
    /* on its type's channel (a sealed packet: on its lane) */
    uint32_t channel = 0;
    if (data && bsync_session_is_sealed(data, len)) channel = (uint32_t)bsync_session_lane(data, len);
    else if (data && len >= 4) channel = bsync_proto_channel(data[3]);
    return vn_raw_packet_on(n, conn, channel, data, len);
}

void vn_raw_gone(vn_net* n, uint32_t conn) {
    if (!n || conn >= n->conn_count || !n->conns[conn].used || !n->conns[conn].raw) return;
    n->conns[conn].used = 0;
    srv_conn_gone(n->server, conn);
}

uint64_t vn_raw_bytes_discarded(const vn_net* n) { return n ? n->raw_discarded : 0; }

uint32_t vn_log_count(const vn_net* n, const char* text) {
    if (!n || !n->log_text || !text || !*text) return 0;
    uint32_t count = 0;
    const char* line = n->log_text;
    while (*line) {
        const char* end = strchr(line, '\n');
        const size_t len = end ? (size_t)(end - line) : strlen(line);
        const size_t tl = strlen(text);
        for (size_t i = 0; i + tl <= len; i++)
            if (memcmp(line + i, text, tl) == 0) {
                count++;
                break;
            }
        line += len + (end ? 1u : 0u);
    }
    return count;
}

void vn_destroy(vn_net* n) {
    if (!n) return;
    for (uint32_t i = 0; i < n->client_count; i++)
        if (n->clients[i].c) bsync_client_destroy(n->clients[i].c); /* cli_release clears it */
    bsync_server_destroy(n->server);
    for (size_t i = 0; i < n->ev_count; i++) free(n->ev[i].data);
    free(n->ev);
    free(n->conns);
    free(n->log_text);
    free(n);
}
