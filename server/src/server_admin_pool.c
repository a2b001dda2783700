/* server_admin_pool.c — a running pool operated from another thread (blendsync/server.h, the admin
 * API's side of it; docs/operations.md): matches validated and built on the caller's thread, then
 * handed to a worker through its mailbox; matches ended by request; every worker's figures published
 * between its service passes; the drain. The workers never wait: they try the hand-off's lock once per
 * pass and, when it is busy, come back on the next one. */
#include <stdlib.h>
#include <string.h>

#include "server_admin_pool.h"
#include "server_internal.h"

static void lock(atomic_flag* f) {
    while (atomic_flag_test_and_set_explicit(f, memory_order_acquire)) {
        /* held by a worker for a copy of its figures: microseconds */
    }
}
static int try_lock(atomic_flag* f) { return !atomic_flag_test_and_set_explicit(f, memory_order_acquire); }
static void unlock(atomic_flag* f) { atomic_flag_clear_explicit(f, memory_order_release); }

static uint64_t now_us(void) { return bsync_platform_now_ns() / 1000u; }

bsync_result pool_ops_init(bsync_server_pool* p, uint32_t workers, uint32_t player_capacity) {
    atomic_flag_clear(&p->reg_lock);
    atomic_init(&p->draining, 0);
    p->player_capacity = player_capacity;
    p->entry_cap = workers * BSYNC_SERVER_MAX_MATCHES;
    p->entries = calloc(p->entry_cap, sizeof *p->entries);
    if (!p->entries) return BSYNC_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < workers; k++) {
        pool_worker* w = &p->workers[k];
        atomic_flag_clear(&w->lock);
        atomic_init(&w->mail_pending, 0);
        w->pub = calloc(BSYNC_SERVER_MAX_MATCHES, sizeof *w->pub);
        if (!w->pub) return BSYNC_OUT_OF_MEMORY;
    }
    return BSYNC_OK;
}

void pool_ops_free(bsync_server_pool* p) {
    for (uint32_t i = 0; p->entries && i < p->entry_count; i++) free(p->entries[i].replay_path);
    free(p->entries);
    for (uint32_t k = 0; k < BSYNC_SERVER_MAX_WORKERS; k++) {
        free(p->workers[k].pub);
        for (uint32_t i = 0; i < p->workers[k].mail_count; i++) /* handed over, never taken */
            if (p->workers[k].mail[i].add) srv_match_destroy(p->workers[k].mail[i].add);
    }
}

static void publish(pool_worker* w);

void pool_ops_register_files(bsync_server_pool* p) {
    for (uint32_t k = 0; k < p->count; k++) {
        pool_worker* w = &p->workers[k];
        bsync_server* s = w->server;
        for (uint32_t i = 0; i < s->match_count && p->entry_count < p->entry_cap; i++) {
            pool_entry* e = &p->entries[p->entry_count++];
            e->match_id = s->matches[i]->stats.match_id;
            e->worker = k;
            e->index = i;
            e->replay_path = strdup(s->matches[i]->replay_path);
            w->players_assigned += s->matches[i]->player_count;
        }
        w->matches_assigned = s->match_count;
        publish(w); /* before run: the caller's thread owns every worker still */
    }
}

/* ---- the worker's side */

static void publish(pool_worker* w) {
    bsync_server* s = w->server;
    bsync_server_counters* c = &w->pub_counters;
    memset(c, 0, sizeof *c);
    for (uint32_t i = 0; i < s->match_count; i++) {
        const srv_match* m = s->matches[i];
        /* everything but replay_path (the pool's entries hold it): a copy of about 120 bytes */
        bsync_server_match_info info;
        srv_match_fill_info(m, &info);
        memcpy(&w->pub[i], &info, offsetof(bsync_server_match_info, replay_path));
        c->matches[info.state]++;
        c->players_connected += info.players_connected;
        c->inputs_received += m->stats.inputs_received;
        c->inputs_defaulted += m->stats.inputs_defaulted;
        c->inputs_clamped += m->stats.inputs_clamped;
        c->desyncs += m->stats.desyncs;
        c->checksums_verified += m->stats.checksums_verified;
        c->mismatched_checksums += m->stats.mismatched_checksums;
        c->bytes_in += m->stats.bytes_in;
        c->bytes_out += m->stats.bytes_out;
        for (uint32_t d = 0; d < BSYNC_SERVER_DROP_COUNT; d++) c->dropped[d] += m->stats.dropped[d];
    }
    w->pub_count = s->match_count;
    c->udp_in = s->udp_in;
    c->udp_out = s->udp_out;
    c->host = s->host_stats;
    c->tick_duration = s->tick_duration;
    c->tick_lateness = s->tick_lateness;
    memcpy(c->hello_refused, s->hello_refused, sizeof c->hello_refused);
    c->workers = 1;
}

static void serve_request(pool_worker* w, const pool_request* r) {
    bsync_server* s = w->server;
    if (r->add) {
        if (s->match_count < BSYNC_SERVER_MAX_MATCHES) { /* the operator side kept room for it */
            s->matches[s->match_count++] = r->add;
            srv_log(s, "info", "event=match_added match=%llu players=%u", (unsigned long long)r->add->stats.match_id,
                    r->add->player_count);
            /* added as a drain began (after the API's last check): a lobby, so it ends as the others did */
            if (bsync_server_pool_draining(w->pool)) srv_match_end(r->add, 1, BSYNC_PROTO_BYE_SHUTDOWN);
        } else {
            srv_match_destroy(r->add);
        }
        return;
    }
    for (uint32_t i = 0; i < s->match_count; i++) {
        srv_match* m = s->matches[i];
        if (m->stats.match_id != r->match_id || m->ended) continue;
        srv_log(s, "info", "event=match_end_requested match=%llu tick=%u", (unsigned long long)r->match_id, m->next_tick);
        srv_match_end(m, 1, BSYNC_PROTO_BYE_MATCH_OVER);
    }
}

void pool_worker_exchange(pool_worker* w, int force) {
    const uint64_t now = now_us();
    if (!force && now < w->next_publish_us && !atomic_load_explicit(&w->mail_pending, memory_order_relaxed)) return;
    if (!try_lock(&w->lock)) return; /* the other side holds it: next pass */
    pool_request taken[POOL_MAILBOX];
    const uint32_t n = w->mail_count;
    memcpy(taken, w->mail, n * sizeof taken[0]);
    w->mail_count = 0;
    atomic_store_explicit(&w->mail_pending, 0, memory_order_relaxed);
    unlock(&w->lock);
    for (uint32_t i = 0; i < n; i++) serve_request(w, &taken[i]);
    if (!force && n == 0 && now < w->next_publish_us) return;
    if (!try_lock(&w->lock)) return;
    publish(w);
    unlock(&w->lock);
    w->next_publish_us = now + POOL_PUBLISH_US;
}

void pool_worker_drain_begin(pool_worker* w, uint32_t grace_ms) {
    bsync_server* s = w->server;
    uint32_t running = 0, ended = 0;
    for (uint32_t i = 0; i < s->match_count; i++) {
        srv_match* m = s->matches[i];
        if (m->ended) continue;
        if (m->started) {
            running++;
        } else { /* a lobby is not a running match: it ends now, and its HELLOs get MATCH_OVER */
            srv_match_end(m, 1, BSYNC_PROTO_BYE_SHUTDOWN);
            ended++;
        }
    }
    srv_log(s, "info", "event=drain state=on grace_ms=%u running=%u lobbies_ended=%u", grace_ms, running, ended);
    pool_worker_exchange(w, 1);
}

void pool_worker_drain_end(pool_worker* w) {
    bsync_server* s = w->server;
    uint32_t left = 0;
    for (uint32_t i = 0; i < s->match_count; i++) left += !s->matches[i]->ended;
    srv_log(s, "info", "event=drain state=done matches_cut=%u", left);
}

/* ---- the operator's side (any thread) */

void bsync_server_pool_drain(bsync_server_pool* p) {
    if (p) atomic_store(&p->draining, 1);
}

int bsync_server_pool_draining(const bsync_server_pool* p) {
    return p ? atomic_load(&((bsync_server_pool*)p)->draining) : 0;
}

static int id_in_use(const bsync_server_pool* p, uint64_t id) {
    for (uint32_t i = 0; i < p->entry_count; i++)
        if (p->entries[i].match_id == id) return 1;
    return 0;
}

/* The worker with the fewest players that has room for `players` more, or -1. */
static int pick_worker(const bsync_server_pool* p, uint32_t players) {
    int best = -1;
    for (uint32_t k = 0; k < p->count; k++) {
        const pool_worker* w = &p->workers[k];
        if (w->matches_assigned >= BSYNC_SERVER_MAX_MATCHES || w->players_assigned + players > p->player_capacity) continue;
        if (best < 0 || w->players_assigned < p->workers[best].players_assigned) best = (int)k;
    }
    return best;
}

static bsync_result refuse(bsync_error* err, bsync_result code, const char* text) {
    if (err) {
        err->code = code;
        snprintf(err->message, sizeof err->message, "%s", text);
    }
    return code;
}

bsync_result bsync_server_pool_match_add(bsync_server_pool* p, const char* text, size_t len, const char* name,
                                         const char* base_dir, const char* replay_path, bsync_server_match_info* out,
                                         bsync_error* err) {
    if (!p || !text) return BSYNC_INVALID_ARGUMENT;
    if (bsync_server_pool_draining(p)) return refuse(err, BSYNC_LIMIT_EXCEEDED, "the server is draining");
    bsync_match_config* cfg = NULL;
    bsync_result r = bsync_match_config_parse(text, len, name, base_dir, NULL, &cfg, err);
    if (r != BSYNC_OK) return r;
    const uint64_t id = bsync_match_config_match_id(cfg);
    const uint32_t players = bsync_match_config_player_count(cfg);
    lock(&p->reg_lock);
    const int used = id_in_use(p, id);
    const int k = pick_worker(p, players);
    unlock(&p->reg_lock);
    if (used) {
        bsync_match_config_destroy(cfg);
        return refuse(err, BSYNC_DUPLICATE_NAME, "/match_id: this id is in use by another match of the server");
    }
    if (k < 0) {
        bsync_match_config_destroy(cfg);
        return refuse(err, BSYNC_LIMIT_EXCEEDED, "no worker has room for this match's players");
    }
    pool_worker* w = &p->workers[k];
    /* built here, off the worker's thread: allocations and checks (srv_match_create_loaded) */
    srv_match* m = srv_match_create_loaded(w->server, 0, cfg, name, replay_path, err);
    if (!m) return err && err->code != BSYNC_OK ? err->code : BSYNC_CONFIG_ERROR;
    lock(&p->reg_lock);
    bsync_result verdict = BSYNC_OK;
    const char* why = NULL;
    if (bsync_server_pool_draining(p)) verdict = BSYNC_LIMIT_EXCEEDED, why = "the server is draining";
    else if (id_in_use(p, id)) verdict = BSYNC_DUPLICATE_NAME, why = "/match_id: this id is in use by another match of the server";
    else if (w->matches_assigned >= BSYNC_SERVER_MAX_MATCHES || w->players_assigned + players > p->player_capacity ||
             p->entry_count >= p->entry_cap)
        verdict = BSYNC_LIMIT_EXCEEDED, why = "no worker has room for this match's players";
    char* rp = verdict == BSYNC_OK ? strdup(m->replay_path) : NULL;
    if (verdict == BSYNC_OK && !rp) verdict = BSYNC_OUT_OF_MEMORY, why = "out of memory";
    if (verdict == BSYNC_OK && out) { /* before the hand-over: from then on m is the worker's */
        srv_match_fill_info(m, out);
        out->worker = (uint32_t)k;
        out->state = BSYNC_SERVER_MATCH_PENDING;
        snprintf(out->replay_path, sizeof out->replay_path, "%s", rp);
    }
    if (verdict == BSYNC_OK) {
        lock(&w->lock);
        if (w->mail_count < POOL_MAILBOX) {
            w->mail[w->mail_count].add = m;
            w->mail[w->mail_count].match_id = id;
            w->mail_count++;
            atomic_store(&w->mail_pending, 1);
        } else {
            verdict = BSYNC_LIMIT_EXCEEDED, why = "too many requests waiting for the worker";
        }
        unlock(&w->lock);
    }
    if (verdict == BSYNC_OK) {
        pool_entry* e = &p->entries[p->entry_count++];
        e->match_id = id;
        e->worker = (uint32_t)k;
        e->index = w->matches_assigned++;
        e->replay_path = rp;
        w->players_assigned += players;
    }
    unlock(&p->reg_lock);
    if (verdict != BSYNC_OK) {
        free(rp);
        srv_match_destroy(m);
        return refuse(err, verdict, why);
    }
    return BSYNC_OK;
}

int bsync_server_pool_match_end(bsync_server_pool* p, uint64_t id) {
    if (!p) return -1;
    lock(&p->reg_lock);
    int found = -1;
    for (uint32_t i = 0; i < p->entry_count; i++)
        if (p->entries[i].match_id == id) found = (int)p->entries[i].worker;
    int ok = -1;
    if (found >= 0) {
        pool_worker* w = &p->workers[found];
        lock(&w->lock);
        if (w->mail_count < POOL_MAILBOX) {
            w->mail[w->mail_count].add = NULL;
            w->mail[w->mail_count].match_id = id;
            w->mail_count++;
            atomic_store(&w->mail_pending, 1);
            ok = 0;
        }
        unlock(&w->lock);
    }
    unlock(&p->reg_lock);
    return ok;
}

uint32_t bsync_server_pool_match_list(bsync_server_pool* p, bsync_server_match_info* out, uint32_t cap) {
    if (!p) return 0;
    lock(&p->reg_lock);
    const uint32_t total = p->entry_count;
    for (uint32_t i = 0; i < total && i < cap; i++) {
        const pool_entry* e = &p->entries[i];
        pool_worker* w = &p->workers[e->worker];
        bsync_server_match_info* o = &out[i];
        memset(o, 0, sizeof *o);
        lock(&w->lock);
        if (e->index < w->pub_count) memcpy(o, &w->pub[e->index], offsetof(bsync_server_match_info, replay_path));
        else o->state = BSYNC_SERVER_MATCH_PENDING;
        unlock(&w->lock);
        o->match_id = e->match_id;
        o->worker = e->worker;
        snprintf(o->replay_path, sizeof o->replay_path, "%s", e->replay_path ? e->replay_path : "");
    }
    unlock(&p->reg_lock);
    return total;
}

static void hist_add(bsync_server_hist* to, const bsync_server_hist* h) {
    for (uint32_t b = 0; b < BSYNC_SERVER_HIST_BUCKETS; b++) to->count[b] += h->count[b];
    to->overflow += h->overflow;
    to->sum_us += h->sum_us;
}

void bsync_server_pool_counters(bsync_server_pool* p, bsync_server_counters* out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!p) return;
    for (uint32_t k = 0; k < p->count; k++) {
        pool_worker* w = &p->workers[k];
        lock(&w->lock);
        const bsync_server_counters c = w->pub_counters;
        unlock(&w->lock);
        out->workers++;
        for (uint32_t s = 0; s < 4; s++) out->matches[s] += c.matches[s];
        out->players_connected += c.players_connected;
        out->inputs_received += c.inputs_received;
        out->inputs_defaulted += c.inputs_defaulted;
        out->inputs_clamped += c.inputs_clamped;
        out->desyncs += c.desyncs;
        out->checksums_verified += c.checksums_verified;
        out->mismatched_checksums += c.mismatched_checksums;
        out->bytes_in += c.bytes_in;
        out->bytes_out += c.bytes_out;
        out->udp_in += c.udp_in;
        out->udp_out += c.udp_out;
        for (uint32_t d = 0; d < BSYNC_SERVER_DROP_COUNT; d++) out->dropped[d] += c.dropped[d];
        bsync_server_host_stats* h = &out->host;
        h->connects_refused += c.host.connects_refused;
        h->hello_timeouts += c.host.hello_timeouts;
        h->oversized += c.host.oversized;
        h->protocol_errors += c.host.protocol_errors;
        h->overload_refusals += c.host.overload_refusals;
        h->overload_episodes += c.host.overload_episodes;
        if (c.host.busy_permille > h->busy_permille) h->busy_permille = c.host.busy_permille;
        if (c.host.busy_permille_max > h->busy_permille_max) h->busy_permille_max = c.host.busy_permille_max;
        h->overloaded += c.host.overloaded;
        h->sessions_opened += c.host.sessions_opened;
        h->auth_failures += c.host.auth_failures;
        h->auth_required += c.host.auth_required;
        h->sealed_rejected += c.host.sealed_rejected;
        for (uint32_t r = 0; r < BSYNC_SERVER_REFUSAL_KINDS; r++) out->hello_refused[r] += c.hello_refused[r];
        hist_add(&out->tick_duration, &c.tick_duration);
        hist_add(&out->tick_lateness, &c.tick_lateness);
    }
    /* matches handed over and not yet taken */
    lock(&p->reg_lock);
    uint32_t published = 0;
    for (uint32_t s = 0; s < 4; s++) published += out->matches[s];
    out->matches[BSYNC_SERVER_MATCH_PENDING] += p->entry_count > published ? p->entry_count - published : 0;
    unlock(&p->reg_lock);
    out->draining = (uint32_t)bsync_server_pool_draining(p);
}
