/* server_agones.c — the Agones lifecycle (server_agones.h) over the SDK sidecar's documented REST API
 * (agones.dev "REST Game Server Client API": POST /ready, /health, /shutdown with body {}, GET
 * /gameserver, PUT /metadata/label {"key","value"}), with libcurl, on a thread of its own: nothing here
 * runs on the server's tick path. Edge code (HTTP, a thread, malloc). */
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
/* Only with libcurl (server/CMakeLists.txt defines BSYNC_HAVE_AGONES); builds that compile every
 * server source without it (the platform matrix) get an empty unit. */
#if defined(BSYNC_HAVE_AGONES)
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "platform.h"
#include "server_agones.h"

#define AG_DEFAULT_PORT "9358"
#define AG_BODY_MAX (64u * 1024u)
#define AG_SLICE_MS 50u

/* The GameServer states of Agones' lifecycle (and "other" for one this build does not know). */
static const char* const k_states[] = {"",         "Scheduled", "RequestReady", "Ready",  "Reserved", "Allocated",
                                       "Shutdown", "Unhealthy", "Error",        "Creating", "Starting", "other"};
#define AG_STATE_COUNT (sizeof k_states / sizeof k_states[0])

struct srv_agones {
    char base[512];
    uint32_t health_ms, connect_ms;
    FILE* log;
    CURL* curl; /* the thread's while it runs; the caller's for Shutdown after the join */
    char* body;
    size_t body_len;
    atomic_int stop;
    atomic_int state; /* index into k_states */
    int thread_started;
    bsync_platform_thread thread;
};

static void ag_log(srv_agones* a, const char* level, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void ag_log(srv_agones* a, const char* level, const char* fmt, ...) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    time_t secs = tv.tv_sec;
    gmtime_r(&secs, &tm);
    char ts[32];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
    char line[1024];
    int n = snprintf(line, sizeof line, "ts=%s.%03ldZ level=%s ", ts, (long)(tv.tv_usec / 1000), level);
    if (n < 0 || (size_t)n >= sizeof line) return;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1u, fmt, ap);
    va_end(ap);
    if (m < 0) return;
    size_t used = (size_t)n + (size_t)m;
    if (used > sizeof line - 2u) used = sizeof line - 2u;
    line[used++] = '\n';
    fwrite(line, 1, used, a->log); /* one write per line: the server's workers share the stream */
    fflush(a->log);
}

void srv_agones_default_url(char* out, size_t cap) {
    const char* port = getenv("AGONES_SDK_HTTP_PORT");
    snprintf(out, cap, "http://localhost:%s", port && *port ? port : AG_DEFAULT_PORT);
}

static size_t on_body(char* data, size_t size, size_t n, void* user) {
    srv_agones* a = user;
    const size_t len = size * n;
    if (a->body_len + len > AG_BODY_MAX) return 0; /* larger than any GameServer: refuse */
    memcpy(a->body + a->body_len, data, len);
    a->body_len += len;
    a->body[a->body_len] = '\0';
    return len;
}

/* One request: method and path on the base URL, a JSON body (NULL: none). The HTTP status, or 0 when
 * the sidecar could not be reached. The answer is in a->body. */
static long request(srv_agones* a, const char* method, const char* path, const char* json) {
    char url[640];
    snprintf(url, sizeof url, "%s%s", a->base, path);
    a->body_len = 0;
    a->body[0] = '\0';
    CURL* c = a->curl;
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 1000L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 3000L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
    struct curl_slist* headers = NULL;
    if (json) {
        headers = curl_slist_append(headers, "Content-Type: application/json");
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
    }
    long status = 0;
    if (curl_easy_perform(c) == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    return status;
}

/* Sleep ms in slices, returning 1 early when asked to stop. */
static int nap(srv_agones* a, uint32_t ms) {
    for (uint32_t t = 0; t < ms; t += AG_SLICE_MS) {
        if (atomic_load(&a->stop)) return 1;
        bsync_platform_sleep_ms(ms - t < AG_SLICE_MS ? ms - t : AG_SLICE_MS);
    }
    return atomic_load(&a->stop) != 0;
}

/* GET /gameserver: its status.state, remembered (and logged when it changed). 1 when read. */
static int observe(srv_agones* a) {
    if (request(a, "GET", "/gameserver", NULL) != 200) return 0;
    cJSON* gs = cJSON_Parse(a->body);
    const cJSON* st = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(gs, "status"), "state");
    int idx = (int)AG_STATE_COUNT - 1;
    if (cJSON_IsString(st))
        for (size_t i = 1; i + 1 < AG_STATE_COUNT; i++)
            if (!strcmp(st->valuestring, k_states[i])) idx = (int)i;
    const int before = atomic_exchange(&a->state, idx);
    if (before != idx)
        ag_log(a, idx == 7 || idx == 8 ? "warn" : "info", "event=agones_state state=%s previous=%s",
               cJSON_IsString(st) ? st->valuestring : "-", before ? k_states[before] : "-");
    cJSON_Delete(gs);
    return 1;
}

static void run(void* arg) {
    srv_agones* a = arg;
    /* the sidecar may start after us (agones.dev: "your REST SDK API calls should contain some retry
     * logic"): GET /gameserver with backoff 100 ms doubling to 2 s, until it answers */
    const uint64_t t0 = bsync_platform_now_ns();
    uint32_t backoff = 100, attempts = 0;
    for (;;) {
        attempts++;
        if (observe(a)) break;
        const uint64_t waited_ms = (bsync_platform_now_ns() - t0) / 1000000u;
        if (waited_ms >= a->connect_ms) {
            ag_log(a, "error", "event=agones_unreachable url=%s attempts=%u waited_ms=%llu", a->base, attempts,
                   (unsigned long long)waited_ms);
            return;
        }
        if (nap(a, backoff)) return;
        backoff = backoff * 2u > 2000u ? 2000u : backoff * 2u;
    }
    ag_log(a, "info", "event=agones_sdk url=%s attempts=%u waited_ms=%llu", a->base, attempts,
           (unsigned long long)((bsync_platform_now_ns() - t0) / 1000000u));
    /* Ready: the matches are loaded and the port is bound (the caller starts us only then). Not when
     * the GameServer is already Allocated or Reserved (a server restarted in its pod, e.g. recovering
     * its match): Ready would offer it to the next allocation while its players are still on it */
    const int seen = atomic_load(&a->state);
    if (seen == 5 || seen == 4) {
        ag_log(a, "info", "event=agones_ready skipped=1 state=%s", k_states[seen]);
    } else {
        for (backoff = 100;; backoff = backoff * 2u > 2000u ? 2000u : backoff * 2u) {
            const long st = request(a, "POST", "/ready", "{}");
            if (st == 200) break;
            ag_log(a, "warn", "event=agones_retry call=ready status=%ld", st);
            if (nap(a, backoff)) return;
        }
        char label[160];
        snprintf(label, sizeof label, "{\"key\": \"blendsync-version\", \"value\": \"%s\"}", BSYNC_VERSION_STRING);
        const long lst = request(a, "PUT", "/metadata/label", label);
        ag_log(a, "info", "event=agones_ready label_status=%ld", lst);
    }
    /* Health every interval; the state read back after each (Allocated when a GameServerAllocation took us) */
    while (!atomic_load(&a->stop)) {
        const long st = request(a, "POST", "/health", "{}");
        if (st != 200) ag_log(a, "warn", "event=agones_retry call=health status=%ld", st);
        (void)observe(a);
        if (nap(a, a->health_ms)) break;
    }
}

bsync_result srv_agones_start(const srv_agones_config* cfg, srv_agones** out, bsync_error* err) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    *out = NULL;
    srv_agones* a = calloc(1, sizeof *a);
    if (a) a->body = malloc(AG_BODY_MAX + 1u);
    if (!a || !a->body) {
        if (a) free(a);
        return BSYNC_OUT_OF_MEMORY;
    }
    if (cfg && cfg->base_url) snprintf(a->base, sizeof a->base, "%s", cfg->base_url);
    else srv_agones_default_url(a->base, sizeof a->base);
    size_t n = strlen(a->base);
    while (n > 0 && a->base[n - 1] == '/') a->base[--n] = '\0'; /* paths start with '/' */
    a->health_ms = cfg && cfg->health_interval_ms ? cfg->health_interval_ms : 5000u;
    a->connect_ms = cfg && cfg->connect_timeout_ms ? cfg->connect_timeout_ms : 60000u;
    a->log = cfg && cfg->log ? cfg->log : stderr;
    atomic_init(&a->stop, 0);
    atomic_init(&a->state, 0);
    curl_global_init(CURL_GLOBAL_DEFAULT); /* not thread-safe: here, on the caller's thread */
    a->curl = curl_easy_init();
    if (!a->curl) {
        free(a->body);
        free(a);
        if (err) {
            err->code = BSYNC_OUT_OF_MEMORY;
            snprintf(err->message, sizeof err->message, "agones: cannot set up libcurl");
        }
        return BSYNC_OUT_OF_MEMORY;
    }
    if (bsync_platform_thread_create(&a->thread, run, a) != 0) {
        curl_easy_cleanup(a->curl);
        free(a->body);
        free(a);
        if (err) {
            err->code = BSYNC_IO_ERROR;
            snprintf(err->message, sizeof err->message, "agones: cannot start the lifecycle thread");
        }
        return BSYNC_IO_ERROR;
    }
    a->thread_started = 1;
    *out = a;
    return BSYNC_OK;
}

void srv_agones_state(srv_agones* a, char* out, size_t cap) {
    const int idx = a ? atomic_load(&a->state) : 0;
    snprintf(out, cap, "%s", k_states[idx >= 0 && (size_t)idx < AG_STATE_COUNT ? idx : 0]);
}

int srv_agones_shutdown(srv_agones* a) {
    if (!a) return -1;
    atomic_store(&a->stop, 1);
    if (a->thread_started) bsync_platform_thread_join(&a->thread);
    long st = 0;
    for (uint32_t i = 0, backoff = 100; i < 5 && st != 200; i++, backoff *= 2u) {
        st = request(a, "POST", "/shutdown", "{}");
        if (st != 200) bsync_platform_sleep_ms(backoff);
    }
    ag_log(a, st == 200 ? "info" : "error", "event=agones_shutdown status=%ld", st);
    curl_easy_cleanup(a->curl);
    curl_global_cleanup();
    free(a->body);
    free(a);
    return st == 200 ? 0 : -1;
}
#else
typedef int bsync_server_agones_unavailable; /* ISO C wants a declaration in every unit */
#endif
