/* server_match.c — one match on the server: joining, the tick loop with input deadlines and
 * defaults, the authoritative match state, checksum verification, desyncs, replay recording
 * (docs/lockstep.md). */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blendsync/checksum.h"
#include "blendsync/fixed.h"
#include "blendsync/skeleton.h"
#include "blendsync/io/desync_bundle.h"
#include "server_internal.h"
#include "platform.h"

#define MATCH_ID(m) ((unsigned long long)(m)->stats.match_id)
#define SRV_DETAIL_WAIT_US 2000000ull /* a desync bundle waits this long for the per-joint answer */

static void release_held_bundle(srv_match* m, uint32_t slot);

/* A held DUMP's bundle needs the server's snapshots of its tick and of the check before, and the
 * frames between, from the rings: it is written before they could be overwritten, answer or not. */
static int held_at_ring_limit(const srv_match* m, const srv_slot* sl) {
    const uint64_t ahead = m->next_tick > sl->held_tick ? m->next_tick - sl->held_tick : 0;
    return ahead >= (uint64_t)(SRV_SNAP_RING / 2u) * m->checksum_interval || ahead >= SRV_FRAME_RING / 2u;
}

static void* alloc16(size_t n) { return bsync_platform_aligned_alloc(16, n); }

/* The recording schedule, with the match's replay writer when it has one (replay_open). A failed write
 * stops the recording (logged once), never the match. */
static bsync_result recorder_init(srv_match* m) {
    bsync_replay_recorder_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.writer = m->replay;
    rd.match = m->match;
    rd.checksum_interval = m->checksum_interval;
    rd.snapshot_every = SRV_SNAPSHOT_EVERY;
    rd.poses = m->server->cfg.verify_poses;
    rd.snapshot_buffer = m->snap_buf;
    rd.snapshot_capacity = m->snap_size;
    rd.keep_going = 1;
    return bsync_replay_recorder_init(&m->recorder, &rd);
}

srv_match* srv_match_create(bsync_server* s, uint32_t index, const char* path, bsync_error* err) {
    if (s->cfg.recover) return srv_recover_create(s, index, path, err); /* path: an unfinished replay */
    bsync_match_config* cfg = NULL;
    if (bsync_match_config_load(path, NULL, &cfg, err) != BSYNC_OK) return NULL;
    return srv_match_create_loaded(s, index, cfg, path, NULL, err);
}

srv_match* srv_match_create_from(bsync_server* s, uint32_t index, bsync_match_config* cfg, const char* path,
                                 bsync_error* err) {
    return srv_match_create_loaded(s, index, cfg, path, NULL, err);
}

srv_match* srv_match_create_loaded(bsync_server* s, uint32_t index, bsync_match_config* cfg, const char* path,
                                   const char* replay_path, bsync_error* err) {
    srv_match* m = calloc(1, sizeof *m);
    if (!m) {
        bsync_match_config_destroy(cfg);
        return NULL;
    }
    m->server = s;
    m->index = index;
    m->cfg = cfg;
    m->desc = bsync_match_config_desc(m->cfg);
    m->hash = bsync_match_hash(m->desc);
    size_t size = bsync_match_memory_size(m->desc);
    m->mem = alloc16(size);
    m->scratch_mem[0] = alloc16(size);
    m->scratch_mem[1] = alloc16(size);
    if (!m->mem || !m->scratch_mem[0] || !m->scratch_mem[1] || bsync_match_init(m->mem, size, m->desc, &m->match) != BSYNC_OK ||
        bsync_match_init(m->scratch_mem[0], size, m->desc, &m->scratch[0]) != BSYNC_OK ||
        bsync_match_init(m->scratch_mem[1], size, m->desc, &m->scratch[1]) != BSYNC_OK) {
        if (err) {
            err->code = BSYNC_OUT_OF_MEMORY;
            snprintf(err->message, sizeof err->message, "%s: cannot set up the match", path);
        }
        srv_match_destroy(m);
        return NULL;
    }
    m->snap_size = bsync_match_snapshot_size_max(m->match);
    m->snap_buf = malloc(m->snap_size);
    m->frames = calloc(SRV_FRAME_RING, sizeof *m->frames);
    m->payload_max = bsync_match_config_payload_max(m->cfg);
    if (m->payload_max) { /* a resume resends the frames with their payloads */
        m->frame_payload = calloc((size_t)SRV_FRAME_RING * m->desc->player_count, m->payload_max);
        m->frame_payload_len = calloc((size_t)SRV_FRAME_RING * m->desc->player_count, sizeof *m->frame_payload_len);
    }
    for (uint32_t i = 0; i < SRV_SNAP_RING; i++) {
        m->snaps[i].data = malloc(m->snap_size);
        m->snaps[i].tick = UINT32_MAX;
    }
    for (uint32_t i = 0; i < SRV_CHECK_RING; i++) m->checks[i].tick = UINT32_MAX;
    m->player_count = m->desc->player_count;
    for (uint32_t p = 0; p < m->player_count; p++) {
        for (uint32_t i = 0; i < SRV_INPUT_RING; i++) m->slots[p].ring_tick[i] = UINT32_MAX;
        m->slots[p].dump_tick = UINT32_MAX;
    }
    m->tick_rate = bsync_match_config_tick_rate(m->cfg);
    m->input_delay = bsync_match_config_input_delay(m->cfg);
    m->checksum_interval = bsync_match_config_checksum_interval(m->cfg);
    m->duration = bsync_match_config_duration_ticks(m->cfg);
    m->payload_max = bsync_match_config_payload_max(m->cfg);
    m->policy = bsync_match_config_desync_policy(m->cfg);
    m->timeouts = bsync_match_config_timeouts(m->cfg);
    m->stats.match_id = bsync_match_config_match_id(m->cfg);
    m->stats.last_detail_joint = UINT32_MAX;
    const char* rp = replay_path                ? replay_path
                     : s->cfg.replay_override ? s->cfg.replay_override
                                              : bsync_match_config_replay_path(m->cfg);
    snprintf(m->replay_path, sizeof m->replay_path, "%s", rp ? rp : "");
    snprintf(m->stats.replay_path, sizeof m->stats.replay_path, "%s", m->replay_path);
    snprintf(m->desync_dir, sizeof m->desync_dir, "%s.desync", m->replay_path[0] ? m->replay_path : "match");
    for (uint32_t i = 0; i < SRV_SNAP_RING; i++)
        if (!m->snaps[i].data || !m->snap_buf || !m->frames || (m->payload_max && (!m->frame_payload || !m->frame_payload_len))) {
            srv_match_destroy(m);
            return NULL;
        }
    if (m->checksum_interval == 0 || recorder_init(m) != BSYNC_OK) {
        if (err) {
            err->code = BSYNC_CONFIG_ERROR;
            snprintf(err->message, sizeof err->message, "%s: checksum interval 0", path);
        }
        srv_match_destroy(m);
        return NULL;
    }
    m->created_us = m->last_activity_us = srv_now(s);
    if (m->tick_rate < BSYNC_PROTO_MIN_TICK_RATE || m->tick_rate > BSYNC_PROTO_MAX_TICK_RATE) {
        if (err) {
            err->code = BSYNC_CONFIG_ERROR;
            snprintf(err->message, sizeof err->message, "%s: tick rate %u outside %u..%u", path, m->tick_rate,
                     (unsigned)BSYNC_PROTO_MIN_TICK_RATE, (unsigned)BSYNC_PROTO_MAX_TICK_RATE);
        }
        srv_match_destroy(m);
        return NULL;
    }
    if (m->snap_size > BSYNC_PROTO_MAX_SNAPSHOT) {
        if (err) {
            err->code = BSYNC_CONFIG_ERROR;
            snprintf(err->message, sizeof err->message,
                     "%s: a snapshot of this match can reach %zu bytes, over the protocol's %u (late join and resync "
                     "send one): fewer characters, joints or inertializing switches",
                     path, m->snap_size, (unsigned)BSYNC_PROTO_MAX_SNAPSHOT);
        }
        srv_match_destroy(m);
        return NULL;
    }
    srv_log(s, "info", "event=match_loaded match=%llu file=%s players=%u characters=%u tick_rate=%u input_delay=%u "
            "checksum_interval=%u policy=%s replay=%s hash=%016llx",
            MATCH_ID(m), path, m->player_count, m->desc->character_count, m->tick_rate, m->input_delay,
            m->checksum_interval, bsync_match_policy_name(m->policy), m->replay_path[0] ? m->replay_path : "-",
            (unsigned long long)bsync_match_hash(m->desc));
    if (bsync_match_config_session(m->cfg) == BSYNC_MATCH_SESSION_PLAIN)
        srv_log(s, "warn", "event=insecure match=%llu detail=\"plain tokens: anyone who sees a HELLO can take its slot; "
                "give every player a secret for authenticated sessions (docs/security.md)\"", MATCH_ID(m));
    else
        srv_log(s, "info", "event=session match=%llu mode=%s", MATCH_ID(m),
                bsync_match_config_session(m->cfg) == BSYNC_MATCH_SESSION_ENCRYPT ? "encrypt" : "authenticate");
    return m;
}

void srv_match_destroy(srv_match* m) {
    if (!m) return;
    bsync_replay_writer_close(m->replay);
    for (uint32_t i = 0; i < SRV_SNAP_RING; i++) free(m->snaps[i].data);
    for (uint32_t p = 0; p < BSYNC_MATCH_MAX_PLAYERS; p++) {
        free(m->slots[p].held_dump);
        free(m->slots[p].held_trail);
    }
    free(m->snap_buf);
    free(m->frames);
    free(m->frame_payload);
    free(m->frame_payload_len);
    bsync_platform_aligned_free(m->mem);
    bsync_platform_aligned_free(m->scratch_mem[0]);
    bsync_platform_aligned_free(m->scratch_mem[1]);
    bsync_match_config_destroy(m->cfg);
    free(m);
}

static uint32_t connected_count(const srv_match* m) {
    uint32_t n = 0;
    for (uint32_t p = 0; p < m->player_count; p++) n += m->slots[p].peer != NULL;
    return n;
}

static uint16_t connected_mask(const srv_match* m) {
    uint16_t mask = 0;
    for (uint32_t p = 0; p < m->player_count; p++)
        if (m->slots[p].peer) mask = (uint16_t)(mask | (1u << p));
    return mask;
}

static uint64_t deadline_of(const srv_match* m, uint32_t tick) {
    return m->start_us + ((uint64_t)tick * 1000000u) / m->tick_rate;
}

uint64_t srv_match_next_deadline(const srv_match* m) {
    if (m->ended) return UINT64_MAX;
    if (m->recovering) { /* waiting for its players: start_ms, then (nobody back) idle_ms */
        const uint64_t wait_until = m->created_us + 1000ull * m->timeouts.start_ms;
        return srv_now(m->server) < wait_until ? wait_until : m->created_us + 1000ull * m->timeouts.idle_ms;
    }
    if (m->finishing) return m->finish_deadline_us;
    if (!m->started) return m->created_us + 1000ull * m->timeouts.start_ms;
    return deadline_of(m, m->next_tick);
}

/* ---------------------------------------------------------------- replay */

static void replay_open(srv_match* m) {
    if (!m->replay_path[0]) return;
    bsync_replay_header* hp = malloc(sizeof *hp); /* large (256 asset names) */
    if (!hp) return;
    char build[64];
    snprintf(build, sizeof build, "blendsync-server %s proto %u", BSYNC_VERSION_STRING, BSYNC_PROTO_VERSION);
    bsync_match_config_replay_header(m->cfg, build, 0, hp);
    bsync_error err;
    /* create the directory of the replay if needed (one level) */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", m->replay_path);
    size_t dlen = bsync_platform_path_dir_len(BSYNC_PATH_NATIVE, dir); /* '/' and, on Windows, '\\' too */
    size_t root = bsync_platform_path_root_len(BSYNC_PATH_NATIVE, dir);
    if (dlen > root && dlen < sizeof dir) {
        dir[dlen - 1] = '\0'; /* without its last separator */
        (void)bsync_platform_mkdir(dir);
    }
    if (bsync_replay_writer_open(m->replay_path, hp, &m->replay, &err) != BSYNC_OK) {
        srv_log(m->server, "error", "event=replay_error match=%llu path=%s error=\"%s\"", MATCH_ID(m), m->replay_path,
                err.message);
        m->replay = NULL;
    }
    free(hp);
    if (m->replay) (void)recorder_init(m); /* at tick 0, before any record: cannot fail (checked at create) */
}

/* After a recorder call: its first recording failure, logged once (the file ends there). */
static void replay_check(srv_match* m) {
    if (!m->recorder.stopped || m->replay_error_logged) return;
    m->replay_error_logged = 1;
    if (m->recorder.stop_stage == BSYNC_RECORDER_SAVE) m->stats.snapshot_failures++;
    srv_log(m->server, "error", "event=replay_error match=%llu tick=%u error=\"%s\" (recording stopped)", MATCH_ID(m),
            m->next_tick, m->recorder.stop_error.message);
}

static void replay_append(srv_match* m, const bsync_replay_record* rec) {
    bsync_error err;
    (void)bsync_replay_recorder_append(&m->recorder, rec, &err);
    replay_check(m);
}

/* ---------------------------------------------------------------- joining */

/* The match state now into buf (m->snap_size bytes, the match's largest snapshot); 0 and a logged error
 * on failure (cannot happen for a loaded match: the buffers are sized by bsync_match_snapshot_size_max). */
static int save_state(srv_match* m, uint8_t* buf, size_t* len, const char* purpose) {
    bsync_result r = bsync_match_save(m->match, buf, m->snap_size, len);
    if (r == BSYNC_OK) return 1;
    *len = 0;
    m->stats.snapshot_failures++;
    srv_log(m->server, "error", "event=snapshot_failed match=%llu tick=%u purpose=%s error=\"%s\"", MATCH_ID(m),
            m->next_tick, purpose, bsync_result_string(r));
    return 0;
}

static void send_snapshot_chunks(srv_match* m, srv_peer* p, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len,
                                 uint32_t first_chunk) {
    srv_send_snapshot(m, p, kind, tick, data, len, first_chunk);
}

/* START (protocol version 3): the tick clock, on the frame channel before the first frame the peer
 * must apply: tick `tick` is confirmed deadline_in_us from now. */
static void send_start(srv_match* m, srv_peer* p, uint32_t tick, uint64_t now) {
    uint64_t due = deadline_of(m, tick);
    uint64_t in = due > now ? due - now : 0;
    bsync_proto_msg st;
    memset(&st, 0, sizeof st);
    st.type = BSYNC_PROTO_START;
    st.start.tick = tick;
    st.start.deadline_in_us = (uint32_t)(in < BSYNC_PROTO_MAX_START_IN_US ? in : BSYNC_PROTO_MAX_START_IN_US);
    st.start.match_ticks = m->duration; /* version 7 */
    srv_send(m, p, &st);
}

static int token_equal(const uint8_t* a, size_t alen, const char* b, size_t blen) {
    unsigned diff = (unsigned)(alen ^ blen);
    for (size_t i = 0; i < alen && i < BSYNC_PROTO_MAX_TOKEN; i++)
        diff |= (unsigned)(a[i] ^ (uint8_t)(i < blen ? b[i] : 0));
    return diff == 0;
}

static uint8_t frame_input_ack(const srv_match* m, const srv_slot* sl, uint32_t tick);

/* A resume (HELLO resume, protocol version 5): the confirmed frames from..next_tick - 1 again, from the
 * ring, the first FULL and CHANGES after it, each with this connection's input ack; then the live
 * frames follow as CHANGES. Returns the number sent. */
static uint32_t resend_frames(srv_match* m, srv_peer* p, uint32_t from) {
    if (p->proto_version >= 7u) { /* version 7: FRAMES after every tick resend what it lacks (server_frames.c) */
        p->frames_acked = from;
        p->frame_next = m->next_tick;
        return m->next_tick - from;
    }
    bsync_proto_msg* msg = &m->tx; /* free outside confirm_tick */
    const srv_slot* sl = &m->slots[p->slot];
    uint32_t n = 0;
    for (uint32_t t = from; t < m->next_tick; t++, n++) {
        const uint32_t k = t % SRV_FRAME_RING;
        memset(msg, 0, sizeof *msg);
        msg->type = BSYNC_PROTO_FRAME;
        bsync_proto_frame* f = &msg->frame;
        f->tick = t;
        f->player_count = (uint8_t)m->player_count;
        f->param_count = (uint8_t)m->desc->param_count;
        f->trigger_count = (uint8_t)m->desc->trigger_count;
        f->defaulted_mask = m->frame_defaulted[k];
        for (uint32_t q = 0; q < m->player_count; q++) {
            memcpy(f->players[q].params, m->frames[k].players[q].params, sizeof f->players[q].params);
            memcpy(f->players[q].triggers, m->frames[k].players[q].triggers, sizeof f->players[q].triggers);
            if (m->frame_payload) {
                const size_t at = ((size_t)k * m->player_count + q) * m->payload_max;
                f->players[q].payload_len = m->frame_payload_len[(size_t)k * m->player_count + q];
                memcpy(f->players[q].payload, m->frame_payload + at, f->players[q].payload_len);
            }
        }
        if (t > from) bsync_proto_frame_changes(f, &m->resend_prev); /* the connection's first: FULL */
        f->input_ack = frame_input_ack(m, sl, t);
        if (srv_send(m, p, msg) < 0) break;
        m->resend_prev = *f;
        m->resend_prev.coding = BSYNC_PROTO_FRAME_FULL;
    }
    p->frame_next = m->next_tick; /* the next live frame continues the connection: CHANGES */
    return n;
}

void srv_match_hello(srv_match* m, srv_peer* p, const bsync_proto_hello* h) {
    bsync_server* s = m->server;
    const uint64_t now = srv_now(s);
    uint32_t reason = UINT32_MAX;
    const char* why = "";
    const int secure = bsync_match_config_session(m->cfg) != BSYNC_MATCH_SESSION_PLAIN;
    uint64_t predicted = 0; /* busy µs a second, admission's prediction (when it refused) */
    if (secure && (p->auth != SRV_AUTH_CHALLENGED || p->auth_match_id != MATCH_ID(m) || p->auth_slot != h->slot)) {
        /* a match with secrets takes only a HELLO sealed in a session for its id and this slot */
        s->host_stats.auth_required++;
        srv_log(s, "warn", "event=refused match=%llu slot=%u reason=auth_required", MATCH_ID(m), h->slot);
        if (p->auth == SRV_AUTH_CHALLENGED) p->auth = SRV_AUTH_ESTABLISHED; /* the peer has the keys: sealed BYE */
        srv_peer_close(s, p, BSYNC_PROTO_BYE_AUTH_REQUIRED);
        return;
    }
    if (secure) {
        p->auth = SRV_AUTH_ESTABLISHED; /* it opened: the peer holds the slot's secret */
        s->host_stats.sessions_opened++;
    }
    if (m->ended) reason = BSYNC_PROTO_BYE_MATCH_OVER, why = "match_over";
    else if (h->slot >= m->player_count) reason = BSYNC_PROTO_BYE_BAD_SLOT, why = "bad_slot";
    else {
        size_t tlen = 0;
        const char* tok = bsync_match_config_token(m->cfg, h->slot, &tlen);
        if (!token_equal(h->token, h->token_len, tok, tlen)) reason = BSYNC_PROTO_BYE_BAD_TOKEN, why = "bad_token";
        else if (m->slots[h->slot].peer && !(m->started && now - m->slots[h->slot].peer->last_recv_us > SRV_TAKEOVER_SILENT_US))
            reason = BSYNC_PROTO_BYE_SLOT_TAKEN, why = "slot_taken";
        else if (h->graph_hash != bsync_match_hash(m->desc)) reason = BSYNC_PROTO_BYE_GRAPH_MISMATCH, why = "graph_mismatch";
        /* a new match (not admitted yet): refused while the server is overloaded, or when its predicted
         * cost does not fit the budget with the matches already admitted (docs/server.md "Overload");
         * running matches and the players of a lobby already begun are served as before */
        else if (!m->admitted && (srv_overloaded(s) || !srv_admit(s, m, &predicted)))
            reason = BSYNC_PROTO_BYE_OVERLOADED, why = "overloaded";
    }
    if (reason != UINT32_MAX) {
        if (reason < BSYNC_SERVER_REFUSAL_KINDS) s->hello_refused[reason]++; /* the metrics (docs/operations.md) */
        if (reason == BSYNC_PROTO_BYE_OVERLOADED) {
            s->host_stats.overload_refusals++;
            srv_log(s, "warn", "event=refused match=%llu slot=%u reason=overloaded busy_permille=%u predicted_us_per_s=%llu "
                    "threshold_permille=%u player_tick_ns=%llu",
                    MATCH_ID(m), h->slot, s->host_stats.busy_permille, (unsigned long long)predicted, s->overload_threshold,
                    (unsigned long long)s->cost_ns);
        } else
            srv_log(s, "info", "event=refused match=%llu slot=%u reason=%s", MATCH_ID(m), h->slot, why);
        p->match = m; /* for the drop counters */
        m->stats.dropped[BSYNC_SERVER_DROP_BAD_STATE] += 0;
        p->match = NULL;
        srv_peer_close(s, p, reason);
        return;
    }
    srv_slot* sl = &m->slots[h->slot];
    if (sl->peer) { /* a running match's slot whose connection went silent: the reconnect takes it */
        m->stats.takeovers++;
        srv_log(s, "info", "event=takeover match=%llu slot=%u silent_ms=%llu", MATCH_ID(m), h->slot,
                (unsigned long long)((now - sl->peer->last_recv_us) / 1000u));
        srv_peer_drop(s, sl->peer);
    }
    m->admitted = 1;
    int rejoin = sl->ever_connected;
    sl->peer = p;
    sl->ever_connected = 1;
    p->match = m;
    p->slot = h->slot;
    m->last_activity_us = now;
    bsync_proto_msg w;
    memset(&w, 0, sizeof w);
    w.type = BSYNC_PROTO_WELCOME;
    w.welcome.tick_rate = (uint8_t)m->tick_rate;
    w.welcome.input_delay = (uint8_t)m->input_delay;
    w.welcome.player_count = (uint8_t)m->player_count;
    w.welcome.slot = h->slot;
    w.welcome.param_count = (uint8_t)m->desc->param_count;
    w.welcome.trigger_count = (uint8_t)m->desc->trigger_count;
    w.welcome.checksum_interval = (uint16_t)m->checksum_interval;
    w.welcome.connected_mask = connected_mask(m);
    size_t snap_len = 0;
    /* a resume: the client holds the state at the start of tick r; the ring still has frames r.. */
    const uint32_t r = h->resume ? h->resume - 1u : 0u;
    const int resume = m->started && h->resume && r <= m->next_tick && m->next_tick - r <= SRV_FRAME_RING;
    if (resume) {
        w.welcome.start_tick = r; /* snapshot size 0: keep your state; frames from r follow */
    } else if (m->started) {
        /* late join / reconnect: the state at the start of the next tick to confirm. Without it the
         * WELCOME would say "fresh start" (snapshot_size 0): refuse instead. */
        if (!save_state(m, m->snap_buf, &snap_len, rejoin ? "reconnect" : "late_join")) {
            sl->peer = NULL;
            p->match = NULL;
            srv_peer_close(s, p, BSYNC_PROTO_BYE_SHUTDOWN);
            return;
        }
        w.welcome.start_tick = m->next_tick;
        w.welcome.snapshot_size = (uint32_t)snap_len;
        w.welcome.snapshot_len = (uint16_t)(snap_len < BSYNC_PROTO_SNAPSHOT_CHUNK ? snap_len : BSYNC_PROTO_SNAPSHOT_CHUNK);
        memcpy(w.welcome.snapshot, m->snap_buf, w.welcome.snapshot_len);
    }
    srv_send(m, p, &w);
    p->frames_acked = w.welcome.start_tick; /* version 7: the frames it lacks start there */
    if (m->started && !m->recovering) send_start(m, p, m->next_tick, now); /* recovering: when the clock runs */
    if (snap_len > BSYNC_PROTO_SNAPSHOT_CHUNK)
        send_snapshot_chunks(m, p, BSYNC_PROTO_SNAPSHOT_JOIN, m->next_tick, m->snap_buf, snap_len, 1);
    if (resume) {
        const uint32_t n = resend_frames(m, p, r);
        m->stats.resumes++;
        m->stats.frames_resent += n;
        srv_log(s, "info", "event=join match=%llu slot=%u kind=resume start_tick=%u frames_resent=%u players=%u/%u",
                MATCH_ID(m), h->slot, r, n, connected_count(m), m->player_count);
        return;
    }
    if (m->started) m->stats.snapshot_joins++;
    srv_log(s, "info", "event=join match=%llu slot=%u kind=%s start_tick=%u snapshot_bytes=%zu players=%u/%u%s", MATCH_ID(m),
            h->slot, m->started ? (rejoin ? "reconnect" : "late_join") : "lobby", m->started ? m->next_tick : 0, snap_len,
            connected_count(m), m->player_count,
            m->started && h->resume ? " resume=refused_frames_gone" : "");
}

void srv_match_leave(srv_match* m, srv_peer* p) {
    if (p->slot >= 0 && (uint32_t)p->slot < m->player_count && m->slots[p->slot].peer == p) {
        m->slots[p->slot].peer = NULL;
        srv_log(m->server, "info", "event=leave match=%llu slot=%d tick=%u players=%u/%u", MATCH_ID(m), p->slot, m->next_tick,
                connected_count(m), m->player_count);
    }
    p->match = NULL;
    p->slot = -1;
}

/* ---------------------------------------------------------------- inputs */

/* The first tick >= from for which the slot's input is not held (INPUT_ACK's next tick with from =
 * next_tick, and FRAME's input ack: the client resends only from there). */
static uint32_t input_needed_from(const srv_slot* sl, uint32_t from) {
    uint32_t next = from;
    while (next - from < SRV_INPUT_RING && sl->ring_tick[next % SRV_INPUT_RING] == next) next++;
    return next;
}

/* FRAME's input ack for a frame of `tick` to this slot (version 5): its inputs are not needed for any
 * tick up to tick + ack (capped at 255, which then says less than the server knows: still true). */
static uint8_t frame_input_ack(const srv_match* m, const srv_slot* sl, uint32_t tick) {
    const uint32_t from = input_needed_from(sl, tick + 1u > m->next_tick ? tick + 1u : m->next_tick);
    const uint32_t ack = from > tick + 1u ? from - tick - 1u : 0u;
    return (uint8_t)(ack < 255u ? ack : 255u);
}

uint8_t srv_match_input_ack(const srv_match* m, uint32_t slot, uint32_t tick) {
    return slot < m->player_count ? frame_input_ack(m, &m->slots[slot], tick) : 0u;
}

/* 1 when record r is not the input held at ring index k (its parameters compared after clamping). */
static int input_differs(const srv_match* m, const srv_slot* sl, uint32_t k, const bsync_proto_input_record* r) {
    for (uint32_t q = 0; q < m->desc->param_count; q++) {
        fix16_t v = r->params[q];
        v = v < m->desc->param_min[q] ? m->desc->param_min[q] : v > m->desc->param_max[q] ? m->desc->param_max[q] : v;
        if (v != sl->ring[k].params[q]) return 1;
    }
    if (memcmp(sl->ring[k].triggers, r->triggers, m->desc->trigger_count) != 0) return 1;
    return sl->ring_payload_len[k] != r->payload_len || memcmp(sl->ring_payload[k], r->payload, r->payload_len) != 0;
}

void srv_match_input(srv_match* m, srv_peer* p, const bsync_proto_input* in) {
    if (in->slot != (uint32_t)p->slot) {
        srv_violation(m->server, p, BSYNC_SERVER_DROP_WRONG_SLOT);
        return;
    }
    if (in->param_count != m->desc->param_count || in->trigger_count != m->desc->trigger_count) {
        srv_violation(m->server, p, BSYNC_SERVER_DROP_MALFORMED);
        return;
    }
    for (uint32_t i = 0; i < in->record_count; i++)
        if (in->records[i].payload_len > m->payload_max) {
            srv_violation(m->server, p, BSYNC_SERVER_DROP_PAYLOAD_TOO_LARGE);
            return;
        }
    srv_slot* sl = &m->slots[p->slot];
    /* the last frame is out (the server waits, up to 1 s, for the last checksums): a client that has not
     * had END yet keeps pacing inputs for ticks that will never be played. Harmless, not abuse (at 60 Hz
     * that second of inputs passed the lead limit and an honest client was kicked with BYE ABUSE). */
    if (m->finishing || m->ended) {
        m->stats.dropped[BSYNC_SERVER_DROP_STALE]++;
        return;
    }
    uint32_t limit = m->next_tick + m->input_delay + BSYNC_PROTO_PEER_MAX_INPUT_LEAD;
    int any_new = 0, any_stale = 0;
    for (uint32_t i = 0; i < in->record_count; i++) {
        uint32_t t = in->first_tick + i;
        if (t < m->next_tick) {
            any_stale = 1;
            continue;
        }
        if (t > limit || t - m->next_tick >= SRV_INPUT_RING) {
            srv_violation(m->server, p, BSYNC_SERVER_DROP_TOO_FAR_AHEAD);
            return;
        }
        uint32_t k = t % SRV_INPUT_RING;
        if (sl->ring_tick[k] == t) { /* a redundant copy; a different one loses to the first, counted */
            if (input_differs(m, sl, k, &in->records[i])) srv_violation(m->server, p, BSYNC_SERVER_DROP_SECOND_INPUT);
            continue;
        }
        sl->ring_tick[k] = t;
        memcpy(sl->ring[k].params, in->records[i].params, sizeof sl->ring[k].params);
        /* the declared range of each parameter (match config "input.parameters" min/max): a value outside
         * it is clamped here, so the frame every machine applies carries the clamped value */
        for (uint32_t q = 0; q < m->desc->param_count; q++) {
            fix16_t v = sl->ring[k].params[q];
            fix16_t c = v < m->desc->param_min[q] ? m->desc->param_min[q] : v > m->desc->param_max[q] ? m->desc->param_max[q] : v;
            if (c != v) {
                sl->ring[k].params[q] = c;
                m->stats.inputs_clamped++;
            }
        }
        memcpy(sl->ring[k].triggers, in->records[i].triggers, sizeof sl->ring[k].triggers);
        sl->ring_payload_len[k] = in->records[i].payload_len;
        memcpy(sl->ring_payload[k], in->records[i].payload, in->records[i].payload_len);
        m->stats.inputs_received++;
        any_new = 1;
    }
    if (any_stale && !any_new) {
        m->stats.dropped[BSYNC_SERVER_DROP_STALE]++;
        m->stats.dropped_by_slot[p->slot]++;
    }
    m->last_activity_us = srv_now(m->server);
    /* protocol version 5: once frames flow, each FRAME carries this connection's input ack; INPUT_ACK
     * answers only the inputs that arrive before the match has started */
    if (m->started) return;
    uint32_t next = input_needed_from(sl, m->next_tick);
    bsync_proto_msg a;
    memset(&a, 0, sizeof a);
    a.type = BSYNC_PROTO_INPUT_ACK;
    a.input_ack.next_tick = next;
    a.input_ack.server_tick = m->next_tick;
    srv_send(m, p, &a);
}

/* ---------------------------------------------------------------- the tick */

static void record_jitter(srv_match* m, uint64_t late_us) {
    m->jitter[m->jitter_next] = late_us;
    m->jitter_next = (m->jitter_next + 1) % SRV_JITTER_KEEP;
    if (m->jitter_count < SRV_JITTER_KEEP) m->jitter_count++;
    if (late_us > m->stats.jitter_max_us) m->stats.jitter_max_us = late_us;
}

static void confirm_tick_(srv_match* m, uint64_t now);
/* one tick, timed for the metrics' histograms (docs/operations.md) */
static void confirm_tick(srv_match* m, uint64_t now) {
    const uint64_t late = now > deadline_of(m, m->next_tick) ? now - deadline_of(m, m->next_tick) : 0;
    srv_hist_note(&m->server->tick_lateness, late);
    confirm_tick_(m, now);
    const uint64_t done = srv_now(m->server);
    srv_hist_note(&m->server->tick_duration, done > now ? done - now : 0);
}

static void confirm_tick_(srv_match* m, uint64_t now) {
    uint32_t t = m->next_tick;
    m->server->load_pt_pending += m->player_count; /* the admission's measure of a player-tick's cost */
    record_jitter(m, now > deadline_of(m, t) ? now - deadline_of(m, t) : 0);
    bsync_proto_msg* msg = &m->tx;
    memset(msg, 0, sizeof *msg);
    msg->type = BSYNC_PROTO_FRAME;
    bsync_proto_frame* f = &msg->frame;
    f->tick = t;
    f->player_count = (uint8_t)m->player_count;
    f->param_count = (uint8_t)m->desc->param_count;
    f->trigger_count = (uint8_t)m->desc->trigger_count;
    bsync_replay_frame fr; /* the confirmed frame as the replay records it */
    memset(&fr, 0, sizeof fr);
    fr.tick = t;
    fr.inputs.player_count = m->player_count;
    for (uint32_t p = 0; p < m->player_count; p++) {
        srv_slot* sl = &m->slots[p];
        uint32_t k = t % SRV_INPUT_RING;
        if (sl->ring_tick[k] == t) {
            sl->last = sl->ring[k];
            /* the game payload is relayed verbatim for its own tick only (never repeated by a default) */
            f->players[p].payload_len = sl->ring_payload_len[k];
            memcpy(f->players[p].payload, sl->ring_payload[k], sl->ring_payload_len[k]);
            fr.payload_len[p] = sl->ring_payload_len[k];
            memcpy(fr.payload[p], sl->ring_payload[k], sl->ring_payload_len[k]);
        } else {
            f->defaulted_mask = (uint16_t)(f->defaulted_mask | (1u << p));
            m->stats.inputs_defaulted++;
            /* triggers are one-shot: a repeated input never repeats a trigger */
            memset(sl->last.triggers, 0, sizeof sl->last.triggers);
        }
        sl->ring_tick[k] = UINT32_MAX;
        fr.inputs.players[p] = sl->last;
        memcpy(f->players[p].params, sl->last.params, sizeof f->players[p].params);
        memcpy(f->players[p].triggers, sl->last.triggers, sizeof f->players[p].triggers);
    }
    fr.defaulted_mask = f->defaulted_mask;
    /* the recorder's schedule: the snapshot if due and the frame, the tick, the checksum if due. The
     * FRAME record is appended (in the kernel: it survives a kill -9) BEFORE the frame goes to any
     * client, so a crash never loses a frame a client has confirmed (docs/server.md "Recovery") */
    bsync_error err;
    (void)bsync_replay_recorder_begin_tick(&m->recorder, &fr, &err);
    replay_check(m);
    /* FULL to a peer whose connection has not had frame t - 1, then CHANGES (only the players whose
     * inputs changed, protocol version 4) to the others */
    for (uint32_t p = 0; p < m->player_count; p++) {
        srv_peer* pe = m->slots[p].peer;
        if (pe && pe->frame_next != t && pe->proto_version < 7u) {
            f->input_ack = frame_input_ack(m, &m->slots[p], t);
            srv_send(m, pe, msg);
            pe->frame_next = t + 1u;
        }
    }
    if (m->have_tx_prev) bsync_proto_frame_changes(f, &m->tx_prev); /* else (or on failure) FULL */
    for (uint32_t p = 0; p < m->player_count; p++) {
        srv_peer* pe = m->slots[p].peer;
        if (pe && pe->frame_next == t && pe->proto_version < 7u) {
            f->input_ack = frame_input_ack(m, &m->slots[p], t);
            srv_send(m, pe, msg);
            pe->frame_next = t + 1u;
        }
    }
    m->tx_prev = *f;
    m->tx_prev.coding = BSYNC_PROTO_FRAME_FULL;
    m->have_tx_prev = 1;
    m->frames[t % SRV_FRAME_RING] = fr.inputs;
    m->frame_defaulted[t % SRV_FRAME_RING] = fr.defaulted_mask;
    if (m->frame_payload)
        for (uint32_t q = 0; q < m->player_count; q++) {
            const size_t at = (size_t)(t % SRV_FRAME_RING) * m->player_count + q;
            const uint16_t len = f->players[q].payload_len <= m->payload_max ? f->players[q].payload_len : 0;
            m->frame_payload_len[at] = len;
            memcpy(m->frame_payload + at * m->payload_max, f->players[q].payload, len);
        }
    bsync_result tr = bsync_match_tick(m->match, &fr.inputs);
    if (tr != BSYNC_OK) /* cannot happen: the frame is built from the match's own counts */
        srv_log(m->server, "error", "event=tick_failed match=%llu tick=%u error=\"%s\"", MATCH_ID(m), t,
                bsync_result_string(tr));
    m->next_tick = t + 1;
    m->stats.ticks = m->next_tick;
    for (uint32_t p = 0; p < m->player_count; p++) /* version 7: from the ring, now that it holds frame t */
        if (m->slots[p].peer && m->slots[p].peer->proto_version >= 7u) srv_frames_send(m, m->slots[p].peer);
    bsync_match_checksums sums;
    int due = 0;
    (void)bsync_replay_recorder_end_tick(&m->recorder, t, &sums, &due, &err);
    replay_check(m);
    if (due) {
        srv_check* c = &m->checks[t % SRV_CHECK_RING];
        c->tick = t;
        c->client_mask = 0;
        c->blend_mask = 0;
        c->sums = sums;
        srv_snap* sn = &m->snaps[m->snap_next];
        m->snap_next = (m->snap_next + 1) % SRV_SNAP_RING;
        sn->tick = UINT32_MAX; /* the entry's old bytes are being overwritten: findable again only when saved */
        if (save_state(m, sn->data, &sn->len, "ring")) sn->tick = t + 1;
    }
}

static int cmp_u64(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

void srv_match_fill_stats(const srv_match* m, bsync_server_match_stats* out) {
    *out = m->stats;
    out->started = m->started;
    out->ended = m->ended;
    out->players_connected = connected_count(m);
    out->replay_bytes = m->replay ? bsync_replay_writer_bytes(m->replay) : out->replay_bytes;
    if (m->jitter_count) {
        uint64_t tmp[SRV_JITTER_KEEP];
        memcpy(tmp, m->jitter, sizeof(uint64_t) * m->jitter_count);
        qsort(tmp, m->jitter_count, sizeof tmp[0], cmp_u64);
        out->jitter_p50_us = tmp[m->jitter_count / 2];
        out->jitter_p99_us = tmp[(m->jitter_count * 99u) / 100u];
    }
}

void srv_match_fill_info(const srv_match* m, bsync_server_match_info* out) {
    out->match_id = m->stats.match_id;
    out->state = m->ended ? BSYNC_SERVER_MATCH_ENDED : m->started ? BSYNC_SERVER_MATCH_RUNNING : BSYNC_SERVER_MATCH_LOBBY;
    out->players = m->player_count;
    out->players_connected = connected_count(m);
    out->ticks = m->next_tick;
    out->duration_ticks = m->duration;
    out->tick_rate = m->tick_rate;
    out->end_reason = m->end_reason;
    out->inputs_received = m->stats.inputs_received;
    out->inputs_defaulted = m->stats.inputs_defaulted;
    out->desyncs = m->stats.desyncs;
    out->checksums_verified = m->stats.checksums_verified;
    out->bytes_in = m->stats.bytes_in;
    out->bytes_out = m->stats.bytes_out;
    out->replay_bytes = m->replay ? bsync_replay_writer_bytes(m->replay) : m->stats.replay_bytes;
    out->match_hash = m->hash;
}

static void status_line(srv_match* m) {
    bsync_server_match_stats st;
    srv_match_fill_stats(m, &st);
    uint64_t dropped = 0;
    for (uint32_t i = 0; i < BSYNC_SERVER_DROP_COUNT; i++) dropped += st.dropped[i];
    srv_log(m->server, "info",
            "event=status match=%llu tick=%u players=%u/%u inputs=%llu defaulted=%llu checksums_ok=%llu desyncs=%llu "
            "dropped=%llu bytes_in=%llu bytes_out=%llu udp_in=%llu udp_out=%llu jitter_p50_us=%llu jitter_p99_us=%llu replay_bytes=%llu",
            MATCH_ID(m), m->next_tick, st.players_connected, m->player_count, (unsigned long long)st.inputs_received,
            (unsigned long long)st.inputs_defaulted, (unsigned long long)st.checksums_verified,
            (unsigned long long)st.desyncs, (unsigned long long)dropped, (unsigned long long)st.bytes_in,
            (unsigned long long)st.bytes_out, (unsigned long long)m->server->udp_in,
            (unsigned long long)m->server->udp_out, (unsigned long long)st.jitter_p50_us, (unsigned long long)st.jitter_p99_us,
            (unsigned long long)st.replay_bytes);
    srv_log_drops(m->server, &st);
}

void srv_match_end(srv_match* m, uint32_t reason, uint32_t bye_reason) {
    if (m->ended) return;
    for (uint32_t p = 0; p < m->player_count; p++) release_held_bundle(m, p); /* no answer will come now */
    m->ended = 1;
    m->end_reason = reason;
    if (m->replay) {
        bsync_error err;
        (void)bsync_replay_recorder_end(&m->recorder, m->next_tick, reason, &err);
        replay_check(m);
        bsync_replay_writer_sync(m->replay);
        m->stats.replay_bytes = bsync_replay_writer_bytes(m->replay);
        bsync_replay_writer_close(m->replay);
        m->replay = NULL;
    }
    /* END on the frame channel, after every FRAME: a client knows it has the whole match only once it
     * has applied every frame below END's count (the BYE on the control channel can overtake them) */
    bsync_proto_msg end;
    memset(&end, 0, sizeof end);
    end.type = BSYNC_PROTO_END;
    end.end.ticks = m->next_tick;
    end.end.reason = (uint8_t)(reason < BSYNC_PROTO_END_REASON_COUNT ? reason : BSYNC_PROTO_END_ABORTED);
    for (uint32_t p = 0; p < m->player_count; p++)
        if (m->slots[p].peer) srv_send(m, m->slots[p].peer, &end);
    for (uint32_t p = 0; p < m->player_count; p++)
        if (m->slots[p].peer) srv_peer_close(m->server, m->slots[p].peer, bye_reason);
    status_line(m);
    static const char* const reasons[] = {"normal", "shutdown", "aborted"};
    srv_log(m->server, "info", "event=match_end match=%llu ticks=%u reason=%s replay=%s replay_bytes=%llu", MATCH_ID(m),
            m->next_tick, reasons[reason < 3 ? reason : 2], m->replay_path[0] ? m->replay_path : "-",
            (unsigned long long)m->stats.replay_bytes);
}

static void recover_wait(srv_match* m, uint64_t now);

void srv_match_update(srv_match* m, uint64_t now) {
    if (m->ended) return;
    if (m->recovering) {
        recover_wait(m, now);
        return;
    }
    for (uint32_t p = 0; p < m->player_count; p++)
        if (m->slots[p].held_dump && (now >= m->slots[p].detail_deadline_us || held_at_ring_limit(m, &m->slots[p])))
            release_held_bundle(m, p);
    if (!m->started) {
        uint32_t n = connected_count(m);
        int all = n == m->player_count;
        int timed_out = now >= m->created_us + 1000ull * m->timeouts.start_ms;
        if (all || (timed_out && n > 0)) {
            m->started = 1;
            m->start_us = now + 100000u; /* 100 ms for the WELCOMEs to land */
            m->last_status_us = m->last_sync_us = now;
            for (uint32_t p = 0; p < m->player_count; p++)
                if (m->slots[p].peer) send_start(m, m->slots[p].peer, 0, now);
            replay_open(m);
            srv_log(m->server, "info", "event=match_start match=%llu players=%u/%u tick_rate=%u", MATCH_ID(m), n,
                    m->player_count, m->tick_rate);
        } else if (timed_out && now >= m->created_us + 1000ull * m->timeouts.idle_ms) {
            srv_log(m->server, "warn", "event=match_abandoned match=%llu reason=no_player_joined", MATCH_ID(m));
            srv_match_end(m, 2, BSYNC_PROTO_BYE_MATCH_OVER);
        }
        return;
    }
    if (m->finishing) {
        /* the last frame went out: end once every connected player's last checksum was compared */
        uint32_t last_check = (m->next_tick / m->checksum_interval) * m->checksum_interval; /* one past it */
        int all = 1;
        for (uint32_t p = 0; p < m->player_count; p++)
            if (m->slots[p].peer && m->slots[p].checked_upto < last_check) all = 0;
        /* version 7: the last frames travel unreliably; resend them once a period until acknowledged */
        const int resend = now >= m->frames_resend_us;
        if (resend) m->frames_resend_us = now + 1000000u / m->tick_rate;
        for (uint32_t p = 0; p < m->player_count; p++) {
            srv_peer* pe = m->slots[p].peer;
            if (!pe || pe->proto_version < 7u || pe->frames_acked >= m->next_tick) continue;
            all = 0;
            if (resend) srv_frames_send(m, pe);
        }
        if (all || now >= m->finish_deadline_us) srv_match_end(m, 0, BSYNC_PROTO_BYE_MATCH_OVER);
        return;
    }
    while (!m->finishing && now >= deadline_of(m, m->next_tick)) {
        confirm_tick(m, now);
        if (m->duration && m->next_tick >= m->duration) {
            m->finishing = 1;
            m->finish_deadline_us = now + 1000000u;
        }
    }
    if (connected_count(m) == 0 && now - m->last_activity_us > 1000ull * m->timeouts.idle_ms) {
        srv_log(m->server, "warn", "event=match_idle match=%llu tick=%u", MATCH_ID(m), m->next_tick);
        srv_match_end(m, 2, BSYNC_PROTO_BYE_MATCH_OVER);
        return;
    }
    if (m->replay && now - m->last_sync_us >= 1000000u) {
        bsync_replay_writer_sync(m->replay);
        m->last_sync_us = now;
    }
    uint32_t every = m->server->cfg.status_interval_ms;
    if (every && now - m->last_status_us >= 1000ull * every) {
        status_line(m);
        m->last_status_us = now;
    }
}

/* ---------------------------------------------------------------- a match rebuilt after a crash */

void srv_match_resume_at(srv_match* m, bsync_replay_writer* w, const char* replay_path, uint32_t next_tick) {
    snprintf(m->replay_path, sizeof m->replay_path, "%s", replay_path);
    snprintf(m->stats.replay_path, sizeof m->stats.replay_path, "%s", m->replay_path);
    snprintf(m->desync_dir, sizeof m->desync_dir, "%s.desync", m->replay_path);
    m->replay = w;
    (void)recorder_init(m); /* the schedule carries no tick state: it goes on from next_tick */
    m->started = 1;
    m->recovering = 1;
    m->next_tick = next_tick;
    m->stats.ticks = next_tick;
    m->have_tx_prev = 0; /* every connection's first frame is FULL */
    m->created_us = m->last_activity_us = srv_now(m->server);
}

/* A rebuilt match holds its clock at next_tick until every player is back (their HELLOs resume from the
 * frames they had: WELCOME and the missing frames, no START yet), or start_ms passed with one back;
 * then START goes to everyone with the next tick 100 ms away and the match plays on. Nobody back by
 * idle_ms: it ends, aborted. */
static void recover_wait(srv_match* m, uint64_t now) {
    const uint32_t n = connected_count(m);
    const int timed_out = now >= m->created_us + 1000ull * m->timeouts.start_ms;
    if (n == m->player_count || (timed_out && n > 0)) {
        const uint64_t offset = ((uint64_t)m->next_tick * 1000000u) / m->tick_rate; /* deadline_of's own sum */
        const uint64_t first = now + 100000u;
        m->recovering = 0;
        m->start_us = first > offset ? first - offset : 0;
        m->last_status_us = m->last_sync_us = m->last_activity_us = now;
        for (uint32_t p = 0; p < m->player_count; p++)
            if (m->slots[p].peer) send_start(m, m->slots[p].peer, m->next_tick, now);
        if (m->duration && m->next_tick >= m->duration) { /* the crash came after the last frame */
            m->finishing = 1;
            m->finish_deadline_us = now + 1000000u;
        }
        srv_log(m->server, "info", "event=match_resume match=%llu tick=%u players=%u/%u waited_ms=%llu", MATCH_ID(m),
                m->next_tick, n, m->player_count, (unsigned long long)((now - m->created_us) / 1000u));
    } else if (n == 0 && now >= m->created_us + 1000ull * m->timeouts.idle_ms) {
        m->recovering = 0;
        srv_log(m->server, "warn", "event=match_abandoned match=%llu tick=%u reason=no_player_returned", MATCH_ID(m),
                m->next_tick);
        srv_match_end(m, 2, BSYNC_PROTO_BYE_MATCH_OVER);
    }
}

/* ---------------------------------------------------------------- checksums and desyncs */

static srv_snap* find_snap(srv_match* m, uint32_t tick) {
    for (uint32_t i = 0; i < SRV_SNAP_RING; i++)
        if (m->snaps[i].tick == tick) return &m->snaps[i];
    return NULL;
}

static void send_desync(srv_match* m, srv_peer* p, uint32_t tick, uint32_t kind, uint32_t character, uint32_t action,
                        uint64_t expected, uint64_t got) {
    bsync_proto_msg d;
    memset(&d, 0, sizeof d);
    d.type = BSYNC_PROTO_DESYNC;
    d.desync.tick = tick;
    d.desync.kind = (uint8_t)kind;
    d.desync.character = (uint8_t)(kind <= BSYNC_PROTO_DESYNC_ROOT_POSE ? BSYNC_PROTO_NO_CHARACTER : character);
    d.desync.part = BSYNC_PROTO_NO_PART;
    d.desync.action = (uint8_t)action;
    d.desync.expected = expected;
    d.desync.got = got;
    srv_send(m, p, &d);
}

/* Log tokens for desync kinds (no spaces: key=value lines). */
static const char* kind_token(uint32_t kind) {
    static const char* const k[] = {"root_blend", "root_pose", "character_blend", "character_pose", "joint"};
    return kind < 5 ? k[kind] : "unknown";
}

static void on_desync(srv_match* m, srv_peer* p, uint32_t tick, uint32_t kind, int character, uint64_t expected,
                      uint64_t got) {
    srv_slot* sl = &m->slots[p->slot];
    m->stats.mismatched_checksums++;
    if (sl->diverged) return; /* already reported; waiting for a resync or for the end */
    sl->diverged = 1;
    release_held_bundle(m, (uint32_t)p->slot);
    sl->have_pose = 0;
    sl->detail_next = 0;
    m->stats.desyncs++;
    m->stats.last_desync_tick = tick;
    m->stats.last_desync_slot = (uint32_t)p->slot;
    m->stats.last_desync_kind = kind;
    m->stats.last_desync_character = character >= 0 ? (uint32_t)character : BSYNC_PROTO_NO_CHARACTER;
    const char* cname = character >= 0 ? bsync_match_config_character_name(m->cfg, (uint32_t)character) : "-";
    srv_log(m->server, "warn",
            "event=desync match=%llu tick=%u slot=%d kind=%s character=%d character_name=%s expected=%016llx got=%016llx "
            "policy=%s",
            MATCH_ID(m), tick, p->slot, kind_token(kind), character, cname,
            (unsigned long long)expected, (unsigned long long)got, bsync_match_policy_name(m->policy));
    bsync_replay_record r;
    memset(&r, 0, sizeof r);
    r.type = BSYNC_REPLAY_DESYNC;
    r.desync.tick = tick;
    r.desync.slot = (uint8_t)p->slot;
    r.desync.kind = (uint8_t)kind;
    r.desync.character = (uint8_t)(character >= 0 ? character : 0xFF);
    r.desync.part = 0xFFFF;
    r.desync.expected = expected;
    r.desync.got = got;
    replay_append(m, &r);
    uint32_t action = m->policy == BSYNC_MATCH_POLICY_RESYNC ? BSYNC_PROTO_ACTION_RESYNC
                      : m->policy == BSYNC_MATCH_POLICY_KICK ? BSYNC_PROTO_ACTION_KICK
                                                             : BSYNC_PROTO_ACTION_REPORT;
    send_desync(m, p, tick, kind, character >= 0 ? (uint32_t)character : 0, action, expected, got);
    sl->dump_tick = action == BSYNC_PROTO_ACTION_KICK ? UINT32_MAX : tick + 1u; /* the client's state after frame tick */
    if (action == BSYNC_PROTO_ACTION_RESYNC) {
        size_t len = 0;
        if (save_state(m, m->snap_buf, &len, "resync")) {
            send_snapshot_chunks(m, p, BSYNC_PROTO_SNAPSHOT_RESYNC, m->next_tick, m->snap_buf, len, 0);
            m->stats.resyncs++;
            sl->diverged = 0; /* healed from the next checksum on */
            srv_log(m->server, "info", "event=resync match=%llu slot=%d tick=%u snapshot_bytes=%zu", MATCH_ID(m), p->slot,
                    m->next_tick, len);
        }
    } else if (action == BSYNC_PROTO_ACTION_KICK) {
        m->stats.kicks++;
        /* the DUMP cannot arrive any more: keep the server's side of the bundle now */
        srv_peer_close(m->server, p, BSYNC_PROTO_BYE_KICKED_DESYNC);
    }
}

/* A client's per-joint checksums of one character at a tick (its answer to DETAIL), compared with
 * the server's own from its snapshot of that tick: the joints that differ are logged by name, the
 * first one is recorded in the replay as a JOINT desync, and (pose not NULL) they go into the pose
 * record of the slot's desync bundle. */
static void compare_joints(srv_match* m, srv_peer* p, const bsync_proto_checksum* c, bsync_desync_bundle_pose* pose) {
    srv_snap* sn = find_snap(m, c->tick + 1u);
    if (!sn || c->joint_character >= m->desc->character_count) return;
    if (bsync_match_load(m->scratch[0], sn->data, sn->len) != BSYNC_OK) return;
    uint64_t* own = m->joint_scratch;
    uint32_t n = 0;
    if (bsync_match_joint_checksums(m->scratch[0], c->joint_character, own, BSYNC_PROTO_MAX_JOINTS, &n) != BSYNC_OK)
        return;
    if (n != c->joint_count) {
        srv_log(m->server, "warn", "event=desync_joints match=%llu slot=%d tick=%u character=%u joint_count=%u expected=%u",
                MATCH_ID(m), p->slot, c->tick, c->joint_character, c->joint_count, n);
        return;
    }
    const bsync_graph* g = m->desc->characters[c->joint_character].graph;
    const bsync_skeleton* sk = bsync_graph_skeleton(g);
    uint32_t differ = 0, first = UINT32_MAX;
    char names[512];
    size_t k = 0;
    names[0] = '\0';
    for (uint32_t j = 0; j < n; j++) {
        if (own[j] == c->joints[j]) continue;
        if (first == UINT32_MAX) first = j;
        if (pose && pose->joint_count < BSYNC_DESYNC_BUNDLE_JOINTS_MAX) {
            bsync_desync_bundle_joint* e = &pose->joints[pose->joint_count++];
            e->index = j;
            snprintf(e->name, sizeof e->name, "%s", sk ? bsync_skeleton_joint_name(sk, j) : "?");
            e->server = own[j];
            e->client = c->joints[j];
        }
        differ++;
        if (k + 70 < sizeof names)
            k += (size_t)snprintf(names + k, sizeof names - k, "%s%s", k ? "," : "", sk ? bsync_skeleton_joint_name(sk, j) : "?");
    }
    m->stats.detail_answers++;
    srv_log(m->server, "warn",
            "event=desync_joints match=%llu slot=%d tick=%u character=%u character_name=%s joints_differing=%u/%u "
            "first_joint=%d joints=%s",
            MATCH_ID(m), p->slot, c->tick, c->joint_character,
            bsync_match_config_character_name(m->cfg, c->joint_character), differ, n,
            first == UINT32_MAX ? -1 : (int)first, differ ? names : "-");
    m->stats.last_detail_joint = first;
    m->stats.last_detail_joints_differing = differ;
    if (pose) {
        pose->compared = n;
        pose->differing = differ;
    }
    if (first != UINT32_MAX) {
        bsync_replay_record r;
        memset(&r, 0, sizeof r);
        r.type = BSYNC_REPLAY_DESYNC;
        r.desync.tick = c->tick;
        r.desync.slot = (uint8_t)p->slot;
        r.desync.kind = BSYNC_PROTO_DESYNC_JOINT;
        r.desync.character = c->joint_character;
        r.desync.part = (uint16_t)first;
        r.desync.expected = own[first];
        r.desync.got = c->joints[first];
        replay_append(m, &r);
    }
}

/* The answer to the DETAIL a pose desync asked: compared, and the slot's bundle written if its DUMP
 * was held for it (an answer that does not compare still ends the wait). */
static void detail_answer(srv_match* m, srv_peer* p, const bsync_proto_checksum* c) {
    srv_slot* sl = &m->slots[p->slot];
    const int awaited = sl->detail_next == c->tick + 1u && sl->have_pose && c->joint_character == sl->pose.character;
    if (awaited) {
        sl->detail_next = 0;
        sl->pose.compared = sl->pose.differing = sl->pose.joint_count = 0;
    }
    compare_joints(m, p, c, awaited ? &sl->pose : NULL);
    if (awaited && sl->held_dump) release_held_bundle(m, (uint32_t)p->slot);
}

void srv_match_checksum(srv_match* m, srv_peer* p, const bsync_proto_checksum* c) {
    srv_check* ck = &m->checks[c->tick % SRV_CHECK_RING];
    if (ck->tick != c->tick || c->tick >= m->next_tick) {
        srv_violation(m->server, p, BSYNC_SERVER_DROP_BAD_CHECKSUM_TICK);
        return;
    }
    m->last_activity_us = srv_now(m->server);
    if (c->joint_count > 0) { /* a DETAIL answer: which joints differ */
        detail_answer(m, p, c);
        return;
    }
    if (c->tick + 1u > m->slots[p->slot].checked_upto) m->slots[p->slot].checked_upto = c->tick + 1u;
    ck->client_blend[p->slot] = c->blend;
    ck->blend_mask = (uint16_t)(ck->blend_mask | (1u << p->slot));
    const bsync_match_checksums* own = &ck->sums;
    if (c->blend != own->blend) {
        int character = -1;
        uint64_t exp = own->blend, got = c->blend;
        uint32_t kind = BSYNC_PROTO_DESYNC_ROOT_BLEND;
        if (c->character_count == own->character_count)
            for (uint32_t i = 0; i < own->character_count; i++)
                if (c->characters[i].blend != own->character_blend[i]) {
                    character = (int)i;
                    kind = BSYNC_PROTO_DESYNC_CHARACTER_BLEND;
                    exp = own->character_blend[i];
                    got = c->characters[i].blend;
                    break;
                }
        on_desync(m, p, c->tick, kind, character, exp, got);
        return;
    }
    /* poses: against the server's own (--verify-poses), else against the clients' majority so far */
    uint64_t ref = 0;
    int have_ref = 0;
    if (m->server->cfg.verify_poses) {
        ref = own->pose;
        have_ref = 1;
    } else if (c->pose != 0) {
        uint32_t best = 0;
        for (uint32_t a = 0; a < m->player_count; a++) {
            if (!(ck->client_mask & (1u << a))) continue;
            uint32_t votes = 0;
            for (uint32_t b = 0; b < m->player_count; b++)
                if ((ck->client_mask & (1u << b)) && ck->client_pose[b] == ck->client_pose[a]) votes++;
            if (votes > best) {
                best = votes;
                ref = ck->client_pose[a];
                have_ref = 1;
            }
        }
        ck->client_pose[p->slot] = c->pose;
        ck->client_mask = (uint16_t)(ck->client_mask | (1u << p->slot));
    }
    if (have_ref && c->pose != 0 && c->pose != ref) {
        int character = -1;
        uint64_t exp = ref, got = c->pose;
        uint32_t kind = BSYNC_PROTO_DESYNC_ROOT_POSE;
        if (m->server->cfg.verify_poses && c->character_count == own->character_count)
            for (uint32_t i = 0; i < own->character_count; i++)
                if (c->characters[i].pose != own->character_pose[i]) {
                    character = (int)i;
                    kind = BSYNC_PROTO_DESYNC_CHARACTER_POSE;
                    exp = own->character_pose[i];
                    got = c->characters[i].pose;
                    break;
                }
        int first = !m->slots[p->slot].diverged;
        on_desync(m, p, c->tick, kind, character, exp, got);
        /* the second step of the narrowing: ask for that character's per-joint checksums of the tick;
         * the bundle waits for the answer (srv_match_snapshot) */
        if (first && character >= 0 && p->open && !p->closing) {
            send_desync(m, p, c->tick, kind, (uint32_t)character, BSYNC_PROTO_ACTION_DETAIL, exp, got);
            srv_slot* sl = &m->slots[p->slot];
            memset(&sl->pose, 0, sizeof sl->pose);
            sl->pose.tick = c->tick;
            sl->pose.agreed_tick = sl->agreed_next ? (long long)sl->agreed_next - 1 : -1;
            sl->pose.character = (uint32_t)character;
            snprintf(sl->pose.character_name, sizeof sl->pose.character_name, "%s",
                     bsync_match_config_character_name(m->cfg, (uint32_t)character));
            sl->have_pose = 1;
            sl->detail_next = c->tick + 1u;
            sl->detail_deadline_us = srv_now(m->server) + SRV_DETAIL_WAIT_US;
        }
        return;
    }
    m->stats.checksums_verified++;
    m->slots[p->slot].agreed_next = c->tick + 1u;
    if (m->slots[p->slot].diverged && m->policy != BSYNC_MATCH_POLICY_REPORT) m->slots[p->slot].diverged = 0;
}

/* The desync bundle: both sides' states and a report, in <replay>.desync/tick<T>-slot<S>/
 * (bsync_desync_bundle_write). client: the slot's state after frame tick - 1; trail (may be NULL) its
 * per-tick states since the last agreeing check; a pose desync's joints from the slot's pose record. */
static void write_bundle(srv_match* m, uint32_t slot, uint32_t tick, const uint8_t* client, size_t client_len,
                         const uint8_t* trail_bytes, size_t trail_len) {
    srv_slot* ss = &m->slots[slot];
    const bsync_desync_bundle_pose* pose = ss->have_pose && ss->pose.tick == (long long)tick - 1 ? &ss->pose : NULL;
    ss->have_pose = 0; /* one bundle per report */
    srv_snap* own = find_snap(m, tick);
    if (!own) {
        srv_log(m->server, "warn", "event=desync_dump_lost match=%llu slot=%u tick=%u reason=server_state_gone", MATCH_ID(m),
                slot, tick);
        return;
    }
    /* the report: which parameters and nodes differ */
    char report[16384];
    size_t n = (size_t)snprintf(report, sizeof report,
                                "blendsync desync report\nmatch %llu, slot %d, tick %u (state after frame %u)\n"
                                "server state: server.bsms, client state: client.bsms (bsync_match_save format)\n\n",
                                MATCH_ID(m), (int)slot, tick - 1, tick - 1);
    /* a pose desync: the character and joints whose pose checksums differ (the states may agree) */
    if (pose && n < sizeof report) {
        n += bsync_desync_bundle_pose_text(pose, report + n, sizeof report - n);
        if (n + 1 < sizeof report) {
            report[n++] = '\n';
            report[n] = '\0';
        }
    }
    if (n >= sizeof report) n = strlen(report);
    if (bsync_match_load(m->scratch[0], own->data, own->len) == BSYNC_OK &&
        bsync_match_load(m->scratch[1], client, client_len) == BSYNC_OK) {
        bsync_desync_describe(m->scratch[0], m->scratch[1], m->cfg, report + n, sizeof report - n);
    } else {
        snprintf(report + n, sizeof report - n, "the client's state does not load (not this match's snapshot)\n");
    }
    /* the server's state at the last agreeing checksum tick (one interval earlier), if still kept */
    uint32_t prev_tick = tick > m->checksum_interval ? tick - m->checksum_interval : 0;
    srv_snap* prev = prev_tick ? find_snap(m, prev_tick) : NULL;
    /* the confirmed frames since then, as far as the ring still holds them */
    const uint32_t ring_first = m->next_tick > SRV_FRAME_RING ? m->next_tick - SRV_FRAME_RING : 0;
    const uint32_t fr_first = prev_tick > ring_first ? prev_tick : ring_first;
    const uint32_t fr_count = tick > fr_first ? tick - fr_first : 0;
    bsync_match_frame* fr = fr_count ? malloc((size_t)fr_count * sizeof *fr) : NULL;
    uint16_t* fr_defaulted = fr_count ? malloc((size_t)fr_count * sizeof *fr_defaulted) : NULL;
    bsync_desync_bundle_check* checks = malloc(SRV_CHECK_RING * sizeof *checks);
    if ((fr_count && (!fr || !fr_defaulted)) || !checks) {
        free(fr);
        free(fr_defaulted);
        free(checks);
        return;
    }
    for (uint32_t t = fr_first; t < tick; t++) {
        fr[t - fr_first] = m->frames[t % SRV_FRAME_RING];
        fr_defaulted[t - fr_first] = m->frame_defaulted[t % SRV_FRAME_RING];
    }
    /* the client's trail (its per-tick states since then): re-simulate and find the first divergence */
    bsync_desync_trace_result tr;
    memset(&tr, 0, sizeof tr);
    int traced = 0;
    const int have_trail = trail_bytes != NULL && trail_len > 0;
    if (have_trail) {
        bsync_trail trail;
        bsync_error terr;
        size_t used = strlen(report);
        int frames_kept = prev && fr_first == prev_tick;
        if (bsync_trail_parse(trail_bytes, trail_len, &trail, &terr) != BSYNC_OK) {
            snprintf(report + used, sizeof report - used, "\nthe client's trail is unreadable: %s\n", terr.message);
        } else if (!frames_kept) {
            snprintf(report + used, sizeof report - used,
                     "\nthe client's trail was kept, but the server no longer holds the state and frames to re-simulate\n");
        } else {
            if (bsync_match_load(m->scratch[0], prev->data, prev->len) == BSYNC_OK) {
                used += (size_t)snprintf(report + used, sizeof report - used,
                                         "\nfirst divergence (re-simulated from server-previous.bsms, tick %u, against the "
                                         "client's per-tick states client-trail.bstrail, ticks %u..%u):\n",
                                         prev_tick - 1, trail.first_tick - 1, trail.first_tick + trail.tick_count - 2);
                unsigned lines = bsync_desync_trace(m->scratch[0], m->scratch[1], m->cfg, fr, fr_count, &trail,
                                                    &tr, report + used, sizeof report - used);
                traced = 1;
                used = strlen(report);
                if (lines == 0)
                    snprintf(report + used, sizeof report - used,
                             "  the client's trail agrees with the re-simulation at every tick it holds (%u)\n",
                             tr.compared);
                size_t sl = 0;
                if (bsync_match_save(m->scratch[0], m->snap_buf, m->snap_size, &sl) == BSYNC_OK &&
                    (sl != own->len || memcmp(m->snap_buf, own->data, sl) != 0)) {
                    used = strlen(report);
                    snprintf(report + used, sizeof report - used,
                             "  (the re-simulation does not reproduce server.bsms: the server's own state is suspect)\n");
                }
            }
        }
    }
    /* report.html's timeline: the checksum ticks still in the ring */
    uint32_t check_count = 0;
    for (uint32_t t = m->next_tick > SRV_CHECK_RING ? m->next_tick - SRV_CHECK_RING : 0; t < m->next_tick; t++) {
        const srv_check* ck = &m->checks[t % SRV_CHECK_RING];
        if (ck->tick != t) continue;
        bsync_desync_bundle_check* row = &checks[check_count++];
        memset(row, 0, sizeof *row);
        row->tick = t;
        row->server = ck->sums.blend;
        row->client_mask = ck->blend_mask;
        for (uint32_t pl = 0; pl < m->player_count && pl < BSYNC_MATCH_MAX_PLAYERS; pl++) row->client[pl] = ck->client_blend[pl];
    }
    char cfg_abs[4096];
    if (!bsync_platform_realpath(bsync_match_config_path(m->cfg), cfg_abs))
        snprintf(cfg_abs, sizeof cfg_abs, "%s", bsync_match_config_path(m->cfg));
    const char* names[BSYNC_REPLAY_MAX_ASSETS];
    uint64_t hashes[BSYNC_REPLAY_MAX_ASSETS];
    uint32_t na = bsync_match_config_asset_hashes(m->cfg, names, hashes, BSYNC_REPLAY_MAX_ASSETS);
    bsync_desync_bundle_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.side = BSYNC_DESYNC_BUNDLE_SERVER;
    bd.root = m->desync_dir;
    bd.tick = tick - 1;
    bd.slot = slot;
    bd.match_id = MATCH_ID(m);
    bd.match_hash = bsync_match_hash(m->desc);
    bd.match_config = cfg_abs;
    bd.previous_tick = prev_tick ? prev_tick - 1 : 0;
    bd.first_divergent_tick = traced && tr.located ? (long long)tr.tick - 1 : -1;
    bd.first_divergent_character = traced && tr.located ? (long long)tr.character : -1;
    char build[64];
    snprintf(build, sizeof build, "blendsync-server " BSYNC_VERSION_STRING " proto %u", BSYNC_PROTO_VERSION);
    bd.build = build;
    bd.asset_count = na < BSYNC_REPLAY_MAX_ASSETS ? na : BSYNC_REPLAY_MAX_ASSETS;
    bd.asset_names = names;
    bd.asset_hashes = hashes;
    bd.server_state = own->data;
    bd.server_state_len = own->len;
    bd.client_state = client;
    bd.client_state_len = client_len;
    bd.server_previous = prev ? prev->data : NULL;
    bd.server_previous_len = prev ? prev->len : 0;
    bd.client_trail = have_trail ? trail_bytes : NULL;
    bd.client_trail_len = have_trail ? trail_len : 0;
    bd.pose = pose;
    bd.report = report;
    bd.match = fr_count > 0 ? m->desc : NULL; /* inputs.csv: frames prev_tick .. tick - 1 still in the ring */
    bd.names = m->cfg;
    bd.frames = fr;
    bd.defaulted = fr_defaulted;
    bd.frame_first = fr_first;
    bd.frame_count = fr_count;
    bd.checks = checks;
    bd.check_count = check_count;
    bd.player_count = m->player_count;
    char dir[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    bsync_error berr;
    bsync_result br = bsync_desync_bundle_write(&bd, dir, sizeof dir, &berr);
    free(checks);
    free(fr);
    free(fr_defaulted);
    if (br != BSYNC_OK && !dir[0]) return; /* the folder was not made */
    srv_log(m->server, "warn", "event=desync_bundle match=%llu slot=%u tick=%u dir=%s", MATCH_ID(m), slot, tick - 1, dir);
    const char* first = strstr(report, "  ");
    if (first) {
        const char* end = strchr(first, '\n');
        srv_log(m->server, "warn", "event=desync_detail match=%llu slot=%u tick=%u first_difference=\"%.*s\"", MATCH_ID(m),
                slot, tick - 1, end ? (int)(end - first - 2) : 0, first + 2);
    }
    if (traced && tr.located)
        srv_log(m->server, "warn", "event=desync_origin match=%llu slot=%u tick=%u character=%u operation=%d",
                MATCH_ID(m), slot, tr.tick - 1, tr.character, tr.operation);
}

/* The slot's DUMP held for a per-joint answer: its bundle written now (with the answer if it came). */
static void release_held_bundle(srv_match* m, uint32_t slot) {
    srv_slot* sl = &m->slots[slot];
    if (!sl->held_dump) return;
    if (sl->detail_next)
        srv_log(m->server, "warn", "event=desync_joints_unanswered match=%llu slot=%u tick=%u", MATCH_ID(m), slot,
                sl->detail_next - 1u);
    sl->detail_next = 0;
    write_bundle(m, slot, sl->held_tick, sl->held_dump, sl->held_dump_len, sl->held_trail, sl->held_trail_len);
    free(sl->held_dump);
    free(sl->held_trail);
    sl->held_dump = sl->held_trail = NULL;
    sl->held_dump_len = sl->held_trail_len = 0;
}

/* A TRAIL upload (the client's per-tick states, io/trail.h): reassembled, then kept for the DUMP that
 * follows it. Chunks must arrive in order (one reliable channel); anything else is a violation. */
static void trail_chunk(srv_match* m, srv_peer* p, const bsync_proto_snapshot* sn) {
    if (sn->total_size == 0 || sn->total_size > BSYNC_PROTO_MAX_TRAIL) {
        srv_violation(m->server, p, BSYNC_SERVER_DROP_BAD_STATE);
        return;
    }
    if (sn->chunk_index == 0) {
        free(p->trail_in);
        p->trail_in = malloc(sn->total_size);
        p->trail_in_size = sn->total_size;
        p->trail_in_have = 0;
        p->trail_in_tick = sn->tick;
    }
    size_t off = (size_t)sn->chunk_index * BSYNC_PROTO_SNAPSHOT_CHUNK;
    if (!p->trail_in || sn->tick != p->trail_in_tick || sn->total_size != p->trail_in_size || off != p->trail_in_have ||
        off + sn->len > p->trail_in_size) {
        srv_violation(m->server, p, BSYNC_SERVER_DROP_BAD_STATE);
        return;
    }
    memcpy(p->trail_in + off, sn->data, sn->len);
    p->trail_in_have += sn->len;
    if (p->trail_in_have == p->trail_in_size) {
        free(p->trail);
        p->trail = p->trail_in;
        p->trail_len = p->trail_in_size;
        p->trail_tick = p->trail_in_tick;
        p->trail_in = NULL;
    }
}

void srv_match_snapshot(srv_match* m, srv_peer* p, const bsync_proto_snapshot* sn) {
    /* only the upload asked for by the last DESYNC sent to this slot: no unsolicited bundles */
    if (sn->tick != m->slots[p->slot].dump_tick) {
        srv_violation(m->server, p, BSYNC_SERVER_DROP_BAD_STATE);
        return;
    }
    if (sn->kind == BSYNC_PROTO_SNAPSHOT_TRAIL) {
        trail_chunk(m, p, sn);
        return;
    }
    if (sn->kind != BSYNC_PROTO_SNAPSHOT_DUMP || sn->total_size > 4u * m->snap_size + 1024u) {
        srv_violation(m->server, p, BSYNC_SERVER_DROP_BAD_STATE);
        return;
    }
    if (sn->chunk_index == 0) {
        free(p->dump);
        p->dump = malloc(sn->total_size);
        p->dump_size = sn->total_size;
        p->dump_have = 0;
        p->dump_tick = sn->tick;
    }
    size_t off = (size_t)sn->chunk_index * BSYNC_PROTO_SNAPSHOT_CHUNK;
    if (!p->dump || sn->tick != p->dump_tick || off != p->dump_have || off + sn->len > p->dump_size) {
        srv_violation(m->server, p, BSYNC_SERVER_DROP_BAD_STATE);
        return;
    }
    memcpy(p->dump + off, sn->data, sn->len);
    p->dump_have += sn->len;
    if (p->dump_have == p->dump_size) {
        srv_slot* sl = &m->slots[p->slot];
        sl->dump_tick = UINT32_MAX; /* one bundle per request */
        const int trail_ok = p->trail && p->trail_tick == p->dump_tick;
        if (sl->detail_next == p->dump_tick && !sl->held_dump) {
            /* a pose desync: the bundle waits (up to SRV_DETAIL_WAIT_US) for the per-joint answer */
            sl->held_dump = p->dump;
            sl->held_dump_len = p->dump_size;
            sl->held_tick = p->dump_tick;
            sl->held_trail = trail_ok ? p->trail : NULL;
            sl->held_trail_len = trail_ok ? p->trail_len : 0;
            if (trail_ok) p->trail = NULL;
        } else {
            write_bundle(m, (uint32_t)p->slot, p->dump_tick, p->dump, p->dump_size, trail_ok ? p->trail : NULL,
                         trail_ok ? p->trail_len : 0);
            free(p->dump);
        }
        p->dump = NULL;
        free(p->trail);
        p->trail = NULL;
        p->trail_len = 0;
    }
}
