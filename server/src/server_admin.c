/* server_admin.c — the admin HTTP API (server_admin.h; docs/operations.md): libmicrohttpd on its own
 * thread, bearer-token authentication, the routes, cJSON for every body. It talks to the workers only
 * through the pool's thread-safe calls (server_admin_pool.c), so no tick waits for HTTP. */
/* Only with libmicrohttpd (server/CMakeLists.txt defines BSYNC_HAVE_ADMIN); builds that compile every
 * server source without it (the platform matrix) get an empty unit. */
#if defined(BSYNC_HAVE_ADMIN)
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>
#include "server_admin.h"

#define ADMIN_BODY_MAX_DEFAULT (1024u * 1024u)
#define ADMIN_TOKEN_MAX 512u

struct bsync_server_admin {
    struct MHD_Daemon* daemon;
    bsync_server_pool* pool;
    char token[ADMIN_TOKEN_MAX + 1];
    size_t token_len;
    char assets[1024], replays[1024], match_host[256];
    size_t body_max;
    uint16_t port;
    uint16_t worker_port[BSYNC_SERVER_MAX_WORKERS];
};

typedef struct admin_request {
    char* body;
    size_t len, cap;
    int too_big;
} admin_request;

/* ---- responses */

static enum MHD_Result respond(struct MHD_Connection* c, unsigned status, const char* type, const char* data,
                               const char* allow) {
    struct MHD_Response* r = MHD_create_response_from_buffer(strlen(data), (void*)data, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    if (allow) MHD_add_response_header(r, "Allow", allow);
    if (status == MHD_HTTP_UNAUTHORIZED) MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"blendsync\"");
    enum MHD_Result ok = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result respond_json(struct MHD_Connection* c, unsigned status, cJSON* o, const char* allow) {
    char* text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!text) return respond(c, 500, "text/plain; charset=utf-8", "out of memory\n", NULL);
    size_t n = strlen(text);
    char* line = malloc(n + 2);
    enum MHD_Result ok;
    if (line) {
        memcpy(line, text, n);
        line[n] = '\n';
        line[n + 1] = '\0';
        ok = respond(c, status, "application/json", line, allow);
        free(line);
    } else {
        ok = respond(c, 500, "text/plain; charset=utf-8", "out of memory\n", NULL);
    }
    cJSON_free(text);
    return ok;
}

/* {"error": CODE, "message": TEXT[, "path": JSON_PATH]} */
static enum MHD_Result respond_error(struct MHD_Connection* c, unsigned status, const char* code, const char* message,
                                     const char* path, const char* allow) {
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "error", code);
    if (path) cJSON_AddStringToObject(o, "path", path);
    cJSON_AddStringToObject(o, "message", message);
    return respond_json(c, status, o, allow);
}

/* ---- matches as JSON */

static const char* state_name(uint32_t s) {
    static const char* const names[] = {"lobby", "running", "ended", "pending"};
    return s < 4 ? names[s] : "unknown";
}

static void add_u64(cJSON* o, const char* key, uint64_t v) { cJSON_AddNumberToObject(o, key, (double)v); }

static cJSON* match_json(const bsync_server_admin* a, const bsync_server_match_info* m) {
    cJSON* o = cJSON_CreateObject();
    char text[300];
    add_u64(o, "match_id", m->match_id);
    cJSON_AddStringToObject(o, "state", state_name(m->state));
    snprintf(text, sizeof text, "%s:%u", a->match_host, (unsigned)a->worker_port[m->worker % BSYNC_SERVER_MAX_WORKERS]);
    cJSON_AddStringToObject(o, "address", text);
    add_u64(o, "worker", m->worker);
    if (m->match_hash) { /* a pending match has it when just created, not in a list */
        snprintf(text, sizeof text, "%016llx", (unsigned long long)m->match_hash);
        cJSON_AddStringToObject(o, "match_hash", text);
    }
    if (m->state != BSYNC_SERVER_MATCH_PENDING) {
        add_u64(o, "players", m->players);
        add_u64(o, "players_connected", m->players_connected);
        add_u64(o, "tick_rate", m->tick_rate);
        add_u64(o, "ticks", m->ticks);
        add_u64(o, "duration_ticks", m->duration_ticks);
        add_u64(o, "inputs_received", m->inputs_received);
        add_u64(o, "inputs_defaulted", m->inputs_defaulted);
        add_u64(o, "desyncs", m->desyncs);
        add_u64(o, "checksums_compared", m->checksums_verified);
        add_u64(o, "bytes_in", m->bytes_in);
        add_u64(o, "bytes_out", m->bytes_out);
        add_u64(o, "replay_bytes", m->replay_bytes);
    }
    if (m->state == BSYNC_SERVER_MATCH_ENDED) {
        static const char* const reasons[] = {"normal", "shutdown", "aborted"};
        cJSON_AddStringToObject(o, "end_reason", reasons[m->end_reason < 3 ? m->end_reason : 2]);
    }
    cJSON_AddStringToObject(o, "replay", m->replay_path);
    return o;
}

/* The matches as last published (the caller frees *out). */
static uint32_t list_matches(bsync_server_admin* a, bsync_server_match_info** out) {
    *out = NULL;
    uint32_t n = bsync_server_pool_match_list(a->pool, NULL, 0);
    if (n == 0) return 0;
    bsync_server_match_info* all = calloc(n, sizeof *all);
    if (!all) return 0;
    uint32_t total = bsync_server_pool_match_list(a->pool, all, n);
    *out = all;
    return total < n ? total : n;
}

/* ---- routes */

static int safe_relative(const char* p) {
    if (!p[0] || p[0] == '/' || strchr(p, '\\') || strchr(p, ':')) return 0;
    for (const char* s = p; *s;) { /* no ".." component */
        const char* e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 2 && s[0] == '.' && s[1] == '.') return 0;
        s += n + (e ? 1u : 0u);
    }
    return 1;
}

static enum MHD_Result create_match(struct MHD_Connection* c, bsync_server_admin* a, admin_request* rq) {
    if (bsync_server_pool_draining(a->pool))
        return respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "draining", "the server is draining: no new matches", NULL,
                             NULL);
    cJSON* root = cJSON_ParseWithLength(rq->body ? rq->body : "", rq->len);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return respond_error(c, MHD_HTTP_BAD_REQUEST, "malformed_json", "the body is not a JSON object", NULL, NULL);
    }
    /* graphs by name inside the assets folder, the replay inside the replay folder */
    char path[64];
    const cJSON* chars = cJSON_GetObjectItemCaseSensitive(root, "characters");
    int i = 0;
    for (const cJSON* ch = chars && cJSON_IsArray(chars) ? chars->child : NULL; ch; ch = ch->next, i++) {
        const cJSON* g = cJSON_GetObjectItemCaseSensitive(ch, "graph");
        if (cJSON_IsString(g) && !safe_relative(g->valuestring)) {
            snprintf(path, sizeof path, "/characters/%d/graph", i);
            cJSON_Delete(root);
            return respond_error(c, 422u, "invalid_config",
                                 "a graph is named relative to the server's assets folder (no absolute path, no \"..\")",
                                 path, NULL);
        }
    }
    const cJSON* rp = cJSON_GetObjectItemCaseSensitive(root, "replay");
    char replay[2100];
    const char* replay_path = NULL;
    if (cJSON_IsString(rp) && rp->valuestring[0]) {
        if (!safe_relative(rp->valuestring)) {
            cJSON_Delete(root);
            return respond_error(c, 422u, "invalid_config",
                                 "the replay is named relative to the server's replay folder (no absolute path, no \"..\")",
                                 "/replay", NULL);
        }
        snprintf(replay, sizeof replay, "%s/%s", a->replays, rp->valuestring);
        replay_path = replay;
    }
    /* recorded as ASSETS/match-ID.json: the same text in that file started with --match is the same
     * match, byte for byte (docs/operations.md) */
    const cJSON* id = cJSON_GetObjectItemCaseSensitive(root, "match_id");
    char name[1200];
    if (cJSON_IsNumber(id) && id->valuedouble >= 1 && id->valuedouble <= 9007199254740992.0)
        snprintf(name, sizeof name, "%s/match-%llu.json", a->assets, (unsigned long long)id->valuedouble);
    else
        snprintf(name, sizeof name, "%s/match.json", a->assets);
    bsync_server_match_info info;
    bsync_error err;
    memset(&err, 0, sizeof err);
    bsync_result r = bsync_server_pool_match_add(a->pool, rq->body, rq->len, name, a->assets, replay_path, &info, &err);
    if (r != BSYNC_OK) {
        cJSON_Delete(root);
        if (r == BSYNC_DUPLICATE_NAME)
            return respond_error(c, MHD_HTTP_CONFLICT, "match_id_in_use", err.message, "/match_id", NULL);
        if (r == BSYNC_LIMIT_EXCEEDED)
            return respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, bsync_server_pool_draining(a->pool) ? "draining" : "full",
                                 err.message, NULL, NULL);
        if (r == BSYNC_OUT_OF_MEMORY) return respond_error(c, 500, "out_of_memory", err.message, NULL, NULL);
        /* "NAME: /path: message" -> path and message */
        const char* msg = err.message;
        size_t nl = strlen(name);
        if (!strncmp(msg, name, nl) && msg[nl] == ':') msg += nl + 1;
        while (*msg == ' ') msg++;
        char jpath[512] = "";
        const char* colon = msg[0] == '/' ? strstr(msg, ": ") : NULL;
        if (colon && (size_t)(colon - msg) < sizeof jpath) {
            memcpy(jpath, msg, (size_t)(colon - msg));
            jpath[colon - msg] = '\0';
            msg = colon + 2;
        }
        return respond_error(c, 422u, "invalid_config", msg, jpath[0] ? jpath : "/", NULL);
    }
    cJSON* o = match_json(a, &info);
    cJSON* players = cJSON_AddArrayToObject(o, "players");
    const cJSON* ps = cJSON_GetObjectItemCaseSensitive(root, "players");
    int slot = 0;
    for (const cJSON* p = ps ? ps->child : NULL; p; p = p->next, slot++) {
        cJSON* e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "slot", slot);
        const cJSON* t = cJSON_GetObjectItemCaseSensitive(p, "token");
        const cJSON* s = cJSON_GetObjectItemCaseSensitive(p, "secret");
        if (cJSON_IsString(t)) cJSON_AddStringToObject(e, "token", t->valuestring);
        if (cJSON_IsString(s)) cJSON_AddStringToObject(e, "secret", s->valuestring);
        cJSON_AddItemToArray(players, e);
    }
    cJSON_Delete(root);
    return respond_json(c, MHD_HTTP_CREATED, o, NULL);
}

static int parse_id(const char* s, uint64_t* out) {
    uint64_t v = 0;
    if (!*s) return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 900719925474099ull) return 0;
        v = v * 10u + (uint64_t)(*s - '0');
    }
    *out = v;
    return v >= 1;
}

static enum MHD_Result one_match(struct MHD_Connection* c, bsync_server_admin* a, const char* method, const char* tail) {
    uint64_t id = 0;
    if (!parse_id(tail, &id)) return respond_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such match", NULL, NULL);
    int is_get = !strcmp(method, "GET"), is_delete = !strcmp(method, "DELETE");
    if (!is_get && !is_delete)
        return respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method_not_allowed", "use GET or DELETE", NULL, "GET, DELETE");
    bsync_server_match_info* all = NULL;
    uint32_t n = list_matches(a, &all);
    const bsync_server_match_info* m = NULL;
    for (uint32_t i = 0; i < n; i++)
        if (all[i].match_id == id) m = &all[i];
    enum MHD_Result ok;
    if (!m) {
        ok = respond_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such match", NULL, NULL);
    } else if (is_get || m->state == BSYNC_SERVER_MATCH_ENDED) {
        ok = respond_json(c, MHD_HTTP_OK, match_json(a, m), NULL);
    } else if (bsync_server_pool_match_end(a->pool, id) != 0) {
        ok = respond_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "busy", "too many requests waiting for the worker", NULL, NULL);
    } else {
        cJSON* o = match_json(a, m);
        cJSON_ReplaceItemInObjectCaseSensitive(o, "state", cJSON_CreateString("ending"));
        ok = respond_json(c, MHD_HTTP_ACCEPTED, o, NULL);
    }
    free(all);
    return ok;
}

static int authorized(const bsync_server_admin* a, struct MHD_Connection* c) {
    const char* h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncasecmp(h, "Bearer ", 7) != 0) return 0; /* the scheme is case-insensitive (RFC 9110) */
    h += 7;
    size_t n = strlen(h);
    unsigned char diff = (unsigned char)(n != a->token_len);
    for (size_t i = 0; i < a->token_len; i++) diff |= (unsigned char)(a->token[i] ^ (i < n ? h[i] : 0)); /* constant time */
    return diff == 0;
}

static enum MHD_Result route(bsync_server_admin* a, struct MHD_Connection* c, const char* url, const char* method,
                             admin_request* rq) {
    int is_get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
    if (!strcmp(url, "/healthz") || !strcmp(url, "/readyz")) { /* no token: probes (docs/operations.md) */
        if (!is_get) return respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method_not_allowed", "use GET", NULL, "GET");
        if (url[1] == 'h' || !bsync_server_pool_draining(a->pool))
            return respond(c, MHD_HTTP_OK, "text/plain; charset=utf-8", url[1] == 'h' ? "ok\n" : "ready\n", NULL);
        return respond(c, MHD_HTTP_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", "draining\n", NULL);
    }
    if (!authorized(a, c))
        return respond_error(c, MHD_HTTP_UNAUTHORIZED, "unauthorized", "missing or wrong bearer token", NULL, NULL);
    if (rq->too_big) {
        char msg[96];
        snprintf(msg, sizeof msg, "the body is over %zu bytes", a->body_max);
        return respond_error(c, 413u, "too_large", msg, NULL, NULL);
    }
    if (!strcmp(url, "/metrics")) {
        if (!is_get) return respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method_not_allowed", "use GET", NULL, "GET");
        bsync_server_counters k;
        bsync_server_pool_counters(a->pool, &k);
        size_t need = bsync_server_metrics_text(&k, NULL, 0);
        char* text = malloc(need);
        if (!text) return respond(c, 500, "text/plain; charset=utf-8", "out of memory\n", NULL);
        bsync_server_metrics_text(&k, text, need);
        enum MHD_Result ok = respond(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", text, NULL);
        free(text);
        return ok;
    }
    if (!strcmp(url, "/v1/matches")) {
        if (!strcmp(method, "POST")) return create_match(c, a, rq);
        if (!is_get)
            return respond_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method_not_allowed", "use GET or POST", NULL, "GET, POST");
        bsync_server_match_info* all = NULL;
        uint32_t n = list_matches(a, &all);
        cJSON* o = cJSON_CreateObject();
        cJSON* arr = cJSON_AddArrayToObject(o, "matches");
        for (uint32_t i = 0; i < n; i++) cJSON_AddItemToArray(arr, match_json(a, &all[i]));
        cJSON_AddBoolToObject(o, "draining", bsync_server_pool_draining(a->pool));
        free(all);
        return respond_json(c, MHD_HTTP_OK, o, NULL);
    }
    if (!strncmp(url, "/v1/matches/", 12)) return one_match(c, a, method, url + 12);
    return respond_error(c, MHD_HTTP_NOT_FOUND, "not_found", "no such resource", NULL, NULL);
}

static enum MHD_Result handle(void* cls, struct MHD_Connection* c, const char* url, const char* method,
                              const char* version, const char* upload, size_t* upload_size, void** con_cls) {
    (void)version;
    bsync_server_admin* a = cls;
    admin_request* rq = *con_cls;
    if (!rq) {
        rq = calloc(1, sizeof *rq);
        if (!rq) return MHD_NO;
        *con_cls = rq;
        return MHD_YES;
    }
    if (*upload_size) { /* the body, capped (413 once it is complete) */
        if (!rq->too_big && rq->len + *upload_size <= a->body_max) {
            if (rq->len + *upload_size + 1 > rq->cap) {
                size_t cap = rq->cap ? rq->cap : 4096u;
                while (cap < rq->len + *upload_size + 1) cap *= 2u;
                char* nb = realloc(rq->body, cap);
                if (!nb) return MHD_NO;
                rq->body = nb;
                rq->cap = cap;
            }
            memcpy(rq->body + rq->len, upload, *upload_size);
            rq->len += *upload_size;
            rq->body[rq->len] = '\0';
        } else {
            rq->too_big = 1;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    return route(a, c, url, method, rq);
}

static void completed(void* cls, struct MHD_Connection* c, void** con_cls, enum MHD_RequestTerminationCode code) {
    (void)cls;
    (void)c;
    (void)code;
    admin_request* rq = *con_cls;
    if (rq) free(rq->body);
    free(rq);
    *con_cls = NULL;
}

static bsync_result fail(bsync_server_admin* a, bsync_error* err, const char* msg) {
    if (err) {
        err->code = BSYNC_INVALID_ARGUMENT;
        snprintf(err->message, sizeof err->message, "%s", msg);
    }
    free(a);
    return BSYNC_INVALID_ARGUMENT;
}

static void trim_dir(char* out, size_t cap, const char* dir) {
    snprintf(out, cap, "%s", dir && dir[0] ? dir : ".");
    size_t n = strlen(out);
    while (n > 1 && out[n - 1] == '/') out[--n] = '\0';
}

bsync_result bsync_server_admin_start(const bsync_server_admin_config* cfg, bsync_server_pool* pool,
                                      bsync_server_admin** out, bsync_error* err) {
    if (!cfg || !pool || !out) return BSYNC_INVALID_ARGUMENT;
    *out = NULL;
    bsync_server_admin* a = calloc(1, sizeof *a);
    if (!a) return BSYNC_OUT_OF_MEMORY;
    a->pool = pool;
    a->token_len = cfg->token ? strlen(cfg->token) : 0;
    if (a->token_len == 0 || a->token_len > ADMIN_TOKEN_MAX) return fail(a, err, "--admin-token-file: the token must be 1..512 bytes");
    memcpy(a->token, cfg->token, a->token_len);
    trim_dir(a->assets, sizeof a->assets, cfg->assets_dir);
    trim_dir(a->replays, sizeof a->replays, cfg->replay_dir ? cfg->replay_dir : cfg->assets_dir);
    snprintf(a->match_host, sizeof a->match_host, "%s", cfg->match_host ? cfg->match_host : "127.0.0.1");
    a->body_max = cfg->body_max ? cfg->body_max : ADMIN_BODY_MAX_DEFAULT;
    for (uint32_t k = 0; k < bsync_server_pool_worker_count(pool) && k < BSYNC_SERVER_MAX_WORKERS; k++)
        a->worker_port[k] = bsync_server_port(bsync_server_pool_worker(pool, k));
    const char* host = cfg->host && cfg->host[0] ? cfg->host : "127.0.0.1";
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(cfg->port);
    if (!strcmp(host, "localhost")) addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    else if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) return fail(a, err, "--admin: expected a numeric IPv4 address or localhost");
    if ((ntohl(addr.sin_addr.s_addr) >> 24) != 127u && !cfg->allow_public)
        return fail(a, err, "--admin: a non-loopback address serves the API to the network: add --admin-public to mean it");
    a->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, cfg->port, NULL, NULL, handle, a, MHD_OPTION_SOCK_ADDR,
                                 (struct sockaddr*)&addr, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                                 MHD_OPTION_CONNECTION_LIMIT, 64u, MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (!a->daemon) return fail(a, err, "--admin: cannot listen there (address in use?)");
    const union MHD_DaemonInfo* info = MHD_get_daemon_info(a->daemon, MHD_DAEMON_INFO_BIND_PORT);
    a->port = info ? info->port : cfg->port;
    *out = a;
    return BSYNC_OK;
}

uint16_t bsync_server_admin_port(const bsync_server_admin* a) { return a ? a->port : 0; }

void bsync_server_admin_stop(bsync_server_admin* a) {
    if (!a) return;
    if (a->daemon) MHD_stop_daemon(a->daemon);
    free(a);
}
#else
typedef int bsync_server_admin_unavailable; /* ISO C wants a declaration in every unit */
#endif
