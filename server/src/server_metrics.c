/* server_metrics.c — the server's metrics: the tick histograms its worker fills (srv_hist_note, on the
 * worker's own thread, no lock) and the Prometheus text exposition of a pool's published counters
 * (bsync_server_metrics_text). Names, types and meanings: docs/operations.md "Metrics". */
#include <stdarg.h>
#include <string.h>

#include "server_internal.h"

/* upper bounds in microseconds: 30 Hz has 33,333 us per tick; lateness past 100 ms is a collapse */
static const uint32_t bsync_server_hist_bounds_us[BSYNC_SERVER_HIST_BUCKETS] = {25,   50,    100,   250,   500,   1000,
                                                                         2000, 5000, 10000, 25000, 50000, 100000};

void srv_hist_note(bsync_server_hist* h, uint64_t us) {
    h->sum_us += us;
    for (uint32_t b = 0; b < BSYNC_SERVER_HIST_BUCKETS; b++)
        if (us <= bsync_server_hist_bounds_us[b]) {
            h->count[b]++;
            return;
        }
    h->overflow++;
}

typedef struct out_buf {
    char* buf;
    size_t cap, len;
} out_buf;

static void put(out_buf* o, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(out_buf* o, const char* fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1u;
    if (o->buf && o->len + len < o->cap) memcpy(o->buf + o->len, line, len);
    o->len += len;
}

static void head(out_buf* o, const char* name, const char* type, const char* help) {
    put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(out_buf* o, const char* name, const char* type, const char* help, uint64_t v) {
    head(o, name, type, help);
    put(o, "%s %llu\n", name, (unsigned long long)v);
}

/* microseconds as exact decimal seconds */
static void seconds(char* out, size_t cap, uint64_t us) {
    snprintf(out, cap, "%llu.%06llu", (unsigned long long)(us / 1000000u), (unsigned long long)(us % 1000000u));
}

static void hist(out_buf* o, const char* name, const char* help, const bsync_server_hist* h) {
    head(o, name, "histogram", help);
    uint64_t cum = 0;
    char le[32];
    for (uint32_t b = 0; b < BSYNC_SERVER_HIST_BUCKETS; b++) {
        cum += h->count[b];
        seconds(le, sizeof le, bsync_server_hist_bounds_us[b]);
        put(o, "%s_bucket{le=\"%s\"} %llu\n", name, le, (unsigned long long)cum);
    }
    cum += h->overflow;
    put(o, "%s_bucket{le=\"+Inf\"} %llu\n", name, (unsigned long long)cum);
    seconds(le, sizeof le, h->sum_us);
    put(o, "%s_sum %s\n%s_count %llu\n", name, le, name, (unsigned long long)cum);
}

size_t bsync_server_metrics_text(const bsync_server_counters* c, char* buf, size_t cap) {
    out_buf o = {buf, cap, 0};
    if (!c) return 0;
    head(&o, "blendsync_build_info", "gauge", "The server's build (always 1).");
    put(&o, "blendsync_build_info{version=\"%s\"} 1\n", bsync_version_string());
    one(&o, "blendsync_workers", "gauge", "Worker threads (one ENet host each).", c->workers);
    one(&o, "blendsync_draining", "gauge", "1 while the server drains (SIGTERM): not ready, no new matches.", c->draining);
    head(&o, "blendsync_matches", "gauge", "Matches by state.");
    static const char* const states[4] = {"lobby", "running", "ended", "pending"};
    for (uint32_t s = 0; s < 4; s++) put(&o, "blendsync_matches{state=\"%s\"} %u\n", states[s], c->matches[s]);
    one(&o, "blendsync_players_connected", "gauge", "Players connected to a match.", c->players_connected);
    one(&o, "blendsync_inputs_received_total", "counter", "Player inputs received.", c->inputs_received);
    one(&o, "blendsync_inputs_defaulted_total", "counter",
        "Player-ticks confirmed without the player's input (the last one repeated).", c->inputs_defaulted);
    one(&o, "blendsync_inputs_clamped_total", "counter", "Input parameters outside their declared range, clamped.",
        c->inputs_clamped);
    one(&o, "blendsync_desyncs_total", "counter", "Desyncs detected.", c->desyncs);
    one(&o, "blendsync_checksums_compared_total", "counter", "Client checksums compared with the reference.",
        c->checksums_verified);
    one(&o, "blendsync_checksums_mismatched_total", "counter", "Client checksums that differed.", c->mismatched_checksums);
    one(&o, "blendsync_match_bytes_received_total", "counter", "blendsync protocol bytes received by matches.", c->bytes_in);
    one(&o, "blendsync_match_bytes_sent_total", "counter", "blendsync protocol bytes sent by matches.", c->bytes_out);
    one(&o, "blendsync_udp_bytes_received_total", "counter", "UDP payload bytes received (with ENet's framing).", c->udp_in);
    one(&o, "blendsync_udp_bytes_sent_total", "counter", "UDP payload bytes sent (with ENet's framing).", c->udp_out);
    head(&o, "blendsync_packets_dropped_total", "counter", "Packets dropped by the matches, by reason.");
    for (uint32_t d = 0; d < BSYNC_SERVER_DROP_COUNT; d++)
        put(&o, "blendsync_packets_dropped_total{reason=\"%s\"} %llu\n", bsync_server_drop_name(d),
            (unsigned long long)c->dropped[d]);
    head(&o, "blendsync_refusals_total", "counter", "Connections and HELLOs refused, by reason.");
    const struct {
        const char* reason;
        uint64_t v;
    } refusals[] = {{"rate_limited", c->host.connects_refused},  {"hello_timeout", c->host.hello_timeouts},
                    {"oversized", c->host.oversized},            {"protocol_error", c->host.protocol_errors},
                    {"overloaded", c->host.overload_refusals},   {"auth_failed", c->host.auth_failures},
                    {"auth_required", c->host.auth_required},    {"sealed_rejected", c->host.sealed_rejected}};
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++)
        put(&o, "blendsync_refusals_total{reason=\"%s\"} %llu\n", refusals[i].reason, (unsigned long long)refusals[i].v);
    /* HELLOs a match (or the server, for an unknown match) refused, by their BYE reason */
    const struct {
        const char* reason;
        uint32_t bye;
    } hellos[] = {{"bad_token", BSYNC_PROTO_BYE_BAD_TOKEN},         {"bad_slot", BSYNC_PROTO_BYE_BAD_SLOT},
                  {"slot_taken", BSYNC_PROTO_BYE_SLOT_TAKEN},       {"graph_mismatch", BSYNC_PROTO_BYE_GRAPH_MISMATCH},
                  {"match_over", BSYNC_PROTO_BYE_MATCH_OVER},       {"unknown_match", BSYNC_PROTO_BYE_UNKNOWN_MATCH},
                  {"version_mismatch", BSYNC_PROTO_BYE_VERSION_MISMATCH}};
    for (size_t i = 0; i < sizeof hellos / sizeof hellos[0]; i++)
        put(&o, "blendsync_refusals_total{reason=\"%s\"} %llu\n", hellos[i].reason,
            (unsigned long long)(hellos[i].bye < BSYNC_SERVER_REFUSAL_KINDS ? c->hello_refused[hellos[i].bye] : 0u));
    one(&o, "blendsync_overloaded", "gauge", "Workers refusing new matches as overloaded now.", c->host.overloaded);
    char busy[32];
    snprintf(busy, sizeof busy, "%u.%03u", c->host.busy_permille / 1000u, c->host.busy_permille % 1000u);
    head(&o, "blendsync_busy_ratio", "gauge", "The busiest worker's busy share of the last second.");
    put(&o, "blendsync_busy_ratio %s\n", busy);
    one(&o, "blendsync_overload_episodes_total", "counter", "Times a worker entered the overloaded state.",
        c->host.overload_episodes);
    one(&o, "blendsync_sessions_opened_total", "counter", "Authenticated sessions opened.", c->host.sessions_opened);
    hist(&o, "blendsync_tick_duration_seconds", "Time to confirm one tick of one match (frame, sends, replay, simulation).",
         &c->tick_duration);
    hist(&o, "blendsync_tick_lateness_seconds", "Confirm time minus the tick's deadline.", &c->tick_lateness);
    if (buf && cap) buf[o.len < cap ? o.len : cap - 1u] = '\0';
    return o.len + 1u;
}
