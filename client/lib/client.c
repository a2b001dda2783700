/* client.c — the client's session (blendsync/client.h, docs/lockstep.md) on any transport
 * (client_transport.h): the handshake, sealing, inputs, frames, checksums, desync answers, snapshots,
 * the end, connect retries and reconnects. The ENet adapter is client_enet.c. */
#include "blendsync/client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>

#include "blendsync/checksum.h"
#include "blendsync/io/desync_bundle.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/io/trail.h"
#include "blendsync/net.h" /* bsync_net_snapshot_chunk: a message, no socket */
#include "client_internal.h"
#include "client_predict_internal.h"
#include "platform.h" /* the presentation clock's time, mkdir, aligned allocation */

static uint64_t now_us(const bsync_client* c) { return c->transport.now_us(c->transport.user); }

const cl_transport* cl_transport_of(const bsync_client* c) { return c ? &c->transport : NULL; }

static void set_err(bsync_error* err, bsync_result code, const char* msg) {
    if (!err) return;
    err->code = code;
    snprintf(err->message, sizeof err->message, "%s", msg);
}

/* ---- the client's own replay */

/* The recording schedule (replay_recorder.h) over the match, with the replay's writer while one is
 * open: the checksum ticks are the recorder's whether or not the client records. */
static void recorder_setup(bsync_client* c) {
    bsync_replay_recorder_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.writer = c->replay;
    rd.match = c->match;
    rd.checksum_interval = c->checksum_interval; /* >= 1: the WELCOME's, checked by the decoder */
    rd.poses = c->cfg.compute_poses;
    (void)bsync_replay_recorder_init(&c->recorder, &rd);
}

static void replay_start(bsync_client* c, uint32_t start_tick, const uint8_t* snapshot, size_t snapshot_len) {
    if (!c->replay_header || c->replay) return;
    c->replay_header->start_tick = start_tick;
    bsync_error err;
    if (bsync_replay_writer_open(c->replay_path, c->replay_header, &c->replay, &err) != BSYNC_OK) {
        c->replay = NULL;
        return;
    }
    recorder_setup(c);
    if (snapshot) {
        memset(&c->rec, 0, sizeof c->rec);
        c->rec.type = BSYNC_REPLAY_SNAPSHOT;
        c->rec.snapshot.tick = start_tick;
        c->rec.snapshot.len = (uint32_t)snapshot_len;
        c->rec.snapshot.data = snapshot;
        (void)bsync_replay_recorder_append(&c->recorder, &c->rec, &err);
    }
}

static void replay_end(bsync_client* c, uint32_t reason) {
    if (!c->replay) return;
    bsync_error err;
    (void)bsync_replay_recorder_end(&c->recorder, c->next_frame, reason, &err);
    bsync_replay_writer_sync(c->replay);
    bsync_replay_writer_close(c->replay);
    c->replay = NULL;
    recorder_setup(c); /* the schedule goes on without a writer */
    free(c->replay_header);
    c->replay_header = NULL; /* one file per client */
}

static void push_event(bsync_client* c, const bsync_client_event* ev) {
    if (c->ev_count == EVENT_CAP) { /* drop the oldest */
        c->ev_head = (c->ev_head + 1) % EVENT_CAP;
        c->ev_count--;
    }
    c->events[(c->ev_head + c->ev_count) % EVENT_CAP] = *ev;
    c->ev_count++;
}

static void event_simple(bsync_client* c, bsync_client_event_type type, uint32_t tick) {
    bsync_client_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = type;
    ev.tick = tick;
    push_event(c, &ev);
}

int bsync_client_poll_event(bsync_client* c, bsync_client_event* out) {
    if (!c || !out || c->ev_count == 0) return 0;
    *out = c->events[c->ev_head];
    c->ev_head = (c->ev_head + 1) % EVENT_CAP;
    c->ev_count--;
    return 1;
}

void bsync_client_set_packet_hook(bsync_client* c, bsync_client_packet_hook hook, void* user) {
    if (!c) return;
    c->hook = hook;
    c->hook_user = user;
}

void bsync_client_set_frame_hook(bsync_client* c, bsync_client_frame_hook hook, void* user) {
    if (!c) return;
    c->frame_hook = hook;
    c->frame_hook_user = user;
}

/* The session packets are sealed with, once it has keys (NULL: plain). */
static bsync_session* sealing(bsync_client* c) { return c->auth_state == 2 ? &c->sess : NULL; }

/* Encoded bytes on a channel: sealed when the session has keys, handed to the transport, counted
 * (sealed size) and shown to the packet hook (as encoded). Returns the size sent, or -1. */
static int send_bytes(bsync_client* c, uint32_t channel, int reliable, const uint8_t* data, size_t len) {
    if (!c->attempting || !c->connected) return -1;
    uint8_t sealed[BSYNC_PROTO_MAX_PACKET + BSYNC_SESSION_OVERHEAD];
    const uint8_t* wire = data;
    size_t wire_len = len;
    bsync_session* sess = sealing(c);
    if (sess && sess->ready) {
        if (bsync_session_seal(sess, channel, data, len, sealed, sizeof sealed, &wire_len) != BSYNC_OK) return -1;
        wire = sealed;
    }
    if (c->transport.send(c->transport.user, channel, reliable, wire, wire_len) != 0) return -1;
    c->stats.bytes_sent += (uint64_t)wire_len;
    if (c->hook) c->hook(c->hook_user, 1, channel, data, len);
    return (int)wire_len;
}

static int send_msg(bsync_client* c, const bsync_proto_msg* m) {
    uint8_t buf[BSYNC_PROTO_MAX_PACKET];
    size_t len = 0;
    if (bsync_proto_encode_as(m, c->proto_version, buf, sizeof buf, &len) != BSYNC_PROTO_OK) return -1;
    return send_bytes(c, bsync_proto_channel(m->type), bsync_proto_reliable(m->type), buf, len);
}

static void end_client(bsync_client* c) {
    c->state = BSYNC_CLIENT_ENDED;
}

/* Every frame of the match applied: END received and nothing below its count left. */
static int match_complete(const bsync_client* c) {
    return c->have_end && c->have_state && c->next_frame >= c->stats.end_ticks;
}

/* The session is over (bye_reason: BSYNC_PROTO_BYE_*, or UINT32_MAX for a dropped connection). A
 * client that had joined and did not apply the whole match says so (EVENT_INCOMPLETE, stats, replay
 * END reason aborted) before its BYE / DISCONNECTED event. */
static void finish(bsync_client* c, uint32_t bye_reason) {
    if (c->state == BSYNC_CLIENT_ENDED) return;
    if (c->state != BSYNC_CLIENT_CONNECTING || c->reconnecting) {
        c->reconnecting = 0;
        if (match_complete(c)) {
            replay_end(c, c->end_reason == BSYNC_PROTO_END_NORMAL ? 0u : c->end_reason == BSYNC_PROTO_END_SHUTDOWN ? 1u : 2u);
        } else {
            uint32_t known = c->have_end ? c->stats.end_ticks : c->frames_received_upto;
            if (c->server_tick > known && !c->have_end) known = c->server_tick;
            c->stats.incomplete = 1;
            c->stats.frames_missing = known > c->next_frame ? known - c->next_frame : 0;
            bsync_client_event ev;
            memset(&ev, 0, sizeof ev);
            ev.type = BSYNC_CLIENT_EVENT_INCOMPLETE;
            ev.tick = c->next_frame;
            ev.end_ticks = c->have_end ? c->stats.end_ticks : 0;
            ev.bye_reason = bye_reason == UINT32_MAX ? BSYNC_PROTO_BYE_TIMEOUT : bye_reason;
            push_event(c, &ev);
            replay_end(c, 2);
        }
    }
    bsync_client_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = bye_reason == UINT32_MAX ? BSYNC_CLIENT_EVENT_DISCONNECTED : BSYNC_CLIENT_EVENT_BYE;
    ev.bye_reason = bye_reason == UINT32_MAX ? 0 : bye_reason;
    ev.tick = c->next_frame;
    push_event(c, &ev);
    end_client(c);
}

/* After anything that may have applied frames: the match is over once END's frames are all applied. */
static void check_end(bsync_client* c) {
    if (c->state == BSYNC_CLIENT_ENDED) return;
    if (match_complete(c)) {
        finish(c, c->bye_pending ? c->bye_pending_reason
                  : c->end_reason == BSYNC_PROTO_END_SHUTDOWN ? (uint32_t)BSYNC_PROTO_BYE_SHUTDOWN
                                                              : (uint32_t)BSYNC_PROTO_BYE_MATCH_OVER);
        return;
    }
    if (c->bye_pending && now_us(c) > c->bye_pending_deadline_us) finish(c, c->bye_pending_reason);
}

bsync_result cl_create_on(const bsync_client_config* cfg, const cl_transport* t, bsync_client** out, bsync_error* err) {
    if (!cfg || !out || !t || !t->connect || !t->send || !t->close || !t->drop || !t->rtt || !t->now_us || !cfg->desc ||
        !cfg->token || cfg->token_len < 1 || cfg->token_len > BSYNC_PROTO_MAX_TOKEN) {
        set_err(err, BSYNC_INVALID_ARGUMENT, "invalid client configuration");
        return BSYNC_INVALID_ARGUMENT;
    }
    *out = NULL;
    size_t msize = bsync_match_memory_size(cfg->desc);
    if (msize == 0 || cfg->slot >= cfg->desc->player_count) {
        set_err(err, BSYNC_INVALID_ARGUMENT, "invalid match description or slot");
        return BSYNC_INVALID_ARGUMENT;
    }
    bsync_client* c = calloc(1, sizeof *c);
    if (!c) return BSYNC_OUT_OF_MEMORY;
    c->cfg = *cfg;
    c->proto_version = cfg->protocol_version ? cfg->protocol_version : BSYNC_PROTO_VERSION;
    if (c->proto_version < BSYNC_PROTO_VERSION_MIN || c->proto_version > BSYNC_PROTO_VERSION) {
        free(c);
        set_err(err, BSYNC_INVALID_ARGUMENT, "protocol version not spoken by this library");
        return BSYNC_INVALID_ARGUMENT;
    }
    c->transport = *t;
    c->transport.release = NULL; /* the caller's until creation succeeds */
    memcpy(c->token, cfg->token, cfg->token_len);
    c->cfg.token = c->token;
    if (cfg->secret) {
        memcpy(c->secret, cfg->secret, BSYNC_SESSION_SECRET_BYTES);
        c->has_secret = 1;
        c->cfg.secret = c->secret;
        if (c->cfg.session_mode == 0) c->cfg.session_mode = BSYNC_SESSION_ENCRYPT;
    }
    c->incoming_kind = -1;
    c->match_size = msize;
    c->match_mem = bsync_platform_aligned_alloc(16, msize);
    c->scratch_mem = bsync_platform_aligned_alloc(16, msize);
    if (!c->match_mem || !c->scratch_mem || bsync_match_init(c->match_mem, msize, cfg->desc, &c->match) != BSYNC_OK ||
        bsync_match_init(c->scratch_mem, msize, cfg->desc, &c->scratch) != BSYNC_OK) {
        bsync_client_destroy(c);
        set_err(err, BSYNC_OUT_OF_MEMORY, "cannot set up the match");
        return BSYNC_OUT_OF_MEMORY;
    }
    c->snap_size = bsync_match_snapshot_size_max(c->match);
    for (uint32_t i = 0; i < SNAP_RING; i++) {
        c->snaps[i].data = malloc(c->snap_size);
        if (!c->snaps[i].data) {
            bsync_client_destroy(c);
            return BSYNC_OUT_OF_MEMORY;
        }
    }
    for (uint32_t i = 0; i < TRAIL_RING; i++) {
        c->trail[i].data = malloc(c->snap_size);
        if (!c->trail[i].data) {
            bsync_client_destroy(c);
            return BSYNC_OUT_OF_MEMORY;
        }
    }
    if (cfg->replay_path && cfg->replay_header) {
        c->replay_header = malloc(sizeof *c->replay_header);
        if (!c->replay_header) {
            bsync_client_destroy(c);
            return BSYNC_OUT_OF_MEMORY;
        }
        *c->replay_header = *cfg->replay_header;
        snprintf(c->replay_path, sizeof c->replay_path, "%s", cfg->replay_path);
    }
    if (cfg->synctest_distance > SYNCTEST_MAX) {
        bsync_client_destroy(c);
        set_err(err, BSYNC_INVALID_ARGUMENT, "synctest_distance must be 0..16");
        return BSYNC_INVALID_ARGUMENT;
    }
    if (cfg->synctest_distance) {
        c->st_snaps = malloc((SYNCTEST_MAX + 1u) * c->snap_size);
        if (!c->st_snaps) {
            bsync_client_destroy(c);
            return BSYNC_OUT_OF_MEMORY;
        }
        for (uint32_t i = 0; i <= SYNCTEST_MAX; i++) c->st_tick[i] = UINT32_MAX;
    }
    c->incoming = malloc(BSYNC_PROTO_MAX_SNAPSHOT);
    if (!c->incoming) {
        bsync_client_destroy(c);
        return BSYNC_OUT_OF_MEMORY;
    }
    bsync_result pr = cl_predict_create(c, &c->predict);
    if (pr != BSYNC_OK) {
        bsync_client_destroy(c);
        set_err(err, pr, pr == BSYNC_OUT_OF_MEMORY ? "cannot set up the predicted match"
                                                   : "predict: rollback_window and local_delay must be 0..32");
        return pr;
    }
    c->transport.release = t->release; /* the client's from here */
    *out = c;
    return BSYNC_OK;
}

bsync_result cl_start(bsync_client* c) {
    if (!c) return BSYNC_INVALID_ARGUMENT;
    c->attempt_start_us = now_us(c);
    c->connect_attempts = 1;
    c->have_prev_frame = 0;
    if (c->transport.connect(c->transport.user) != 0) return BSYNC_IO_ERROR;
    c->attempting = 1;
    c->connect_deadline_us = now_us(c) + 1000ull * (c->cfg.connect_timeout_ms ? c->cfg.connect_timeout_ms : 5000u);
    return BSYNC_OK;
}

void bsync_client_destroy(bsync_client* c) {
    if (!c) return;
    replay_end(c, 1);
    free(c->replay_header);
    if (c->attempting && c->connected) {
        bsync_proto_msg m;
        memset(&m, 0, sizeof m);
        m.type = BSYNC_PROTO_BYE;
        m.bye.reason = BSYNC_PROTO_BYE_NORMAL;
        m.bye.version_min = BSYNC_PROTO_VERSION_MIN;
        m.bye.version_max = BSYNC_PROTO_VERSION;
        send_msg(c, &m);
    }
    if (c->transport.release) c->transport.release(c->transport.user); /* delivers the BYE as far as it can */
    for (uint32_t i = 0; i < SNAP_RING; i++) free(c->snaps[i].data);
    for (uint32_t i = 0; i < TRAIL_RING; i++) free(c->trail[i].data);
    free(c->st_snaps);
    free(c->incoming);
    cl_predict_destroy(c->predict);
    for (uint32_t i = 0; i < CL_UPLOADS; i++) free(c->uploads[i].data);
    bsync_platform_aligned_free(c->match_mem);
    bsync_platform_aligned_free(c->scratch_mem);
    bsync_session_clear(&c->sess); /* keys and secret do not outlive the client */
    memset(c->secret, 0, sizeof c->secret);
    free(c);
}

bsync_client_state bsync_client_get_state(const bsync_client* c) { return c ? c->state : BSYNC_CLIENT_ENDED; }
bsync_match* bsync_client_match(bsync_client* c) { return c ? c->match : NULL; }
uint32_t bsync_client_tick_rate(const bsync_client* c) { return c ? c->tick_rate : 0; }
uint32_t bsync_client_input_delay(const bsync_client* c) { return c ? c->input_delay : 0; }

void bsync_client_get_stats(const bsync_client* c, bsync_client_stats* out) {
    if (!c || !out) return;
    *out = c->stats;
    uint32_t variance = 0;
    out->rtt_ms = 0;
    c->transport.rtt(c->transport.user, &out->rtt_ms, &variance);
    out->next_frame_tick = c->next_frame;
    out->server_tick = c->server_tick;
    out->frames_received_upto = c->frames_received_upto;
}

/* ---------------------------------------------------------------- inputs */

/* The tick of the first frame it lacks: every frame below is applied or held (version 7's frame ack). */
static uint32_t frames_held(const bsync_client* c) {
    uint32_t t = c->next_frame;
    while (t - c->next_frame < FRAME_RING && c->frames[t % FRAME_RING].valid && c->frames[t % FRAME_RING].tick == t) t++;
    return t;
}

static void send_input_packet(bsync_client* c) {
    if (c->history_count == 0) return;
    bsync_proto_msg m;
    memset(&m.input, 0, sizeof m.input); /* the message is large (FRAMES): clear only what INPUT uses */
    m.version = 0;
    m.type = BSYNC_PROTO_INPUT;
    m.input.slot = c->cfg.slot;
    m.input.param_count = (uint8_t)c->cfg.desc->param_count;
    m.input.trigger_count = (uint8_t)c->cfg.desc->trigger_count;
    /* unacknowledged records only (the server holds everything below acked_next) */
    uint32_t first = c->history_first, n = c->history_count;
    while (n > 1 && first < c->acked_next) {
        first++;
        n--;
    }
    m.input.first_tick = first;
    m.input.record_count = (uint8_t)n;
    for (uint32_t i = 0; i < n; i++) {
        const bsync_match_input* in = &c->history[first - c->history_first + i];
        memcpy(m.input.records[i].params, in->params, sizeof in->params);
        memcpy(m.input.records[i].triggers, in->triggers, sizeof in->triggers);
        uint32_t h = first - c->history_first + i;
        m.input.records[i].payload_len = c->history_payload_len[h];
        memcpy(m.input.records[i].payload, c->history_payload[h], c->history_payload_len[h]);
    }
    /* version 7: the frames it holds, acknowledged in every INPUT (at most its first tick: acking less
     * is always true) */
    const uint32_t held = frames_held(c);
    m.input.frame_ack = held < first ? held : first;
    uint8_t buf[BSYNC_PROTO_HEADER_SIZE + BSYNC_PROTO_MAX_BODY_INPUT];
    size_t len = 0;
    if (bsync_proto_encode_as(&m, c->proto_version, buf, sizeof buf, &len) != BSYNC_PROTO_OK) return;
    c->stats.inputs_sent++;
    (void)send_bytes(c, BSYNC_PROTO_CHANNEL_INPUT, 0, buf, len); /* unreliable: the next INPUT repeats it */
}

bsync_result bsync_client_send_input(bsync_client* c, const bsync_match_input* input, uint32_t* assigned) {
    return bsync_client_send_input_payload(c, input, NULL, 0, assigned);
}

int bsync_client_frame_payload(const bsync_client* c, uint32_t tick, uint32_t slot, void* out, uint32_t cap) {
    if (!c || slot >= BSYNC_MATCH_MAX_PLAYERS) return -1;
    const ring_frame* f = &c->frames[tick % FRAME_RING];
    if (!f->valid || f->tick != tick) return -1;
    uint32_t n = f->payload_len[slot];
    if (out) memcpy(out, f->payload[slot], n < cap ? n : cap);
    return (int)n;
}

/* The server tick the pacing rule starts from (docs/lockstep.md "Pacing"): the larger of the newest
 * server tick heard (START, INPUT_ACK, one past the newest FRAME) and the server's next tick by this
 * client's clock (START's deadline, estimated as its arrival + deadline_in_us - RTT / 2, plus one tick
 * per period since). The clock matters on a slow or lossy downstream: the newest frame heard lags the
 * server by the one-way delay and by every retransmission the frame channel waits for, and inputs
 * paced from it arrive after their deadline and are defaulted. */
static uint32_t pacing_tick(const bsync_client* c) {
    uint32_t s = c->server_tick;
    if (!c->stats.start_known || !c->tick_rate) return s;
    uint64_t now = now_us(c) + 1000000u / c->tick_rate; /* S + 1 + floor((now - D) / P) = S + floor((now + P - D) / P) */
    if (now < c->stats.start_deadline_us) return s > c->stats.start_tick ? s : c->stats.start_tick;
    uint64_t clock = (uint64_t)c->stats.start_tick + (now - c->stats.start_deadline_us) * c->tick_rate / 1000000u;
    if (clock > (uint64_t)s + BSYNC_PROTO_PEER_MAX_INPUT_LEAD) clock = (uint64_t)s + BSYNC_PROTO_PEER_MAX_INPUT_LEAD;
    return clock > s ? (uint32_t)clock : s;
}

/* The ticks the path needs (docs/lockstep.md "Pacing"): an input sent now for tick b + n has n periods
 * to reach the server, and the one-way delay (half ENet's round trip plus twice its mean deviation)
 * needs n = ceil(one way x rate); at most d + CL_MAX_LEAD. 0 without a connection. */
static uint32_t path_ticks(const bsync_client* c) {
    uint32_t rtt = 0, variance = 0;
    if (!c->attempting || !c->tick_rate) return 0;
    c->transport.rtt(c->transport.user, &rtt, &variance);
    uint64_t one_way_us = 500ull * rtt + 2000ull * variance;
    uint64_t need = (one_way_us * c->tick_rate + 999999u) / 1000000u; /* ticks, rounded up */
    return need > c->input_delay + CL_MAX_LEAD ? c->input_delay + CL_MAX_LEAD : (uint32_t)need;
}

/* How far past the pacing base b an input goes (docs/lockstep.md "Pacing", docs/prediction.md "Time
 * sync"). Lockstep: d + L, with the lead L the ticks the path needs beyond the input delay (an input
 * that would arrive late goes L ticks later instead of being defaulted; 0 on loopback). Predicting:
 * the predicted tick is b + the path's ticks (half the round trip plus the jitter margin ahead of the
 * server), and the input goes to it + the local delay: the match's input delay is a lockstep
 * client's, a predicting client shows its input at once and needs only that it arrives in time. */
static uint32_t input_ahead(const bsync_client* c) {
    const uint32_t need = path_ticks(c);
    if (c->predict) return (need ? need : 1u) + c->cfg.predict.local_delay; /* b's deadline may be near */
    return need > c->input_delay ? need : c->input_delay;
}

/* An input the server's default reproduces exactly (docs/lockstep.md "Pacing"): the same parameter
 * targets as the last record sent, no trigger, no payload. Dropping it loses nothing. */
static int repeats_last(const bsync_client* c, const bsync_match_input* in, uint32_t payload_len) {
    if (payload_len || c->history_count == 0) return 0;
    const bsync_match_input* last = &c->history[c->history_count - 1];
    for (uint32_t i = 0; i < c->cfg.desc->param_count; i++)
        if (in->params[i] != last->params[i]) return 0;
    for (uint32_t j = 0; j < c->cfg.desc->trigger_count; j++)
        if (in->triggers[j]) return 0;
    return 1;
}

/* The input for tick t at the end of the history (consecutive ticks; anything else restarts it), the
 * oldest record leaving a full window. */
static void history_push(bsync_client* c, const bsync_match_input* input, const void* payload, uint32_t payload_len,
                         uint32_t t) {
    if (c->history_count == 0 || t != c->history_first + c->history_count) {
        c->history_first = t;
        c->history_count = 0;
    }
    if (c->history_count == BSYNC_PROTO_MAX_INPUT_RECORDS) {
        memmove(&c->history[0], &c->history[1], sizeof c->history[0] * (BSYNC_PROTO_MAX_INPUT_RECORDS - 1));
        memmove(&c->history_payload_len[0], &c->history_payload_len[1],
                sizeof c->history_payload_len[0] * (BSYNC_PROTO_MAX_INPUT_RECORDS - 1));
        memmove(&c->history_payload[0], &c->history_payload[1],
                sizeof c->history_payload[0] * (BSYNC_PROTO_MAX_INPUT_RECORDS - 1));
        c->history_first++;
        c->history_count--;
    }
    c->history_payload_len[c->history_count] = (uint16_t)payload_len;
    if (payload_len) memcpy(c->history_payload[c->history_count], payload, payload_len);
    c->history[c->history_count++] = *input;
    for (uint32_t i = c->cfg.desc->param_count; i < BSYNC_MATCH_MAX_PARAMS; i++) c->history[c->history_count - 1].params[i] = 0;
    for (uint32_t j = c->cfg.desc->trigger_count; j < BSYNC_MATCH_MAX_TRIGGERS; j++)
        c->history[c->history_count - 1].triggers[j] = 0;
}

bsync_result bsync_client_send_input_payload(bsync_client* c, const bsync_match_input* input, const void* payload,
                                             uint32_t payload_len, uint32_t* assigned) {
    if (!c || !input || c->state == BSYNC_CLIENT_CONNECTING || c->state == BSYNC_CLIENT_ENDED ||
        payload_len > BSYNC_PROTO_MAX_PAYLOAD || (payload_len && !payload))
        return BSYNC_INVALID_ARGUMENT;
    /* no INPUT before START (the server drops it), nor before the server's clock reaches tick S, one
     * period before S's deadline: the first input goes to S + d (docs/lockstep.md "Pacing") */
    if (!c->stats.start_known || !c->tick_rate || now_us(c) + 1000000u / c->tick_rate < c->stats.start_deadline_us) {
        c->pace_refused_lobby++;
        return BSYNC_LIMIT_EXCEEDED;
    }
    /* the target b + d + L, recomputed every send; behind it: skip ahead at once; ahead of it for
     * CL_PAUSE_EVERY sends in a row: one send is paused (an input the server's default reproduces is
     * merged into the tick before; else, after twice as many, it is refused), so the lead follows the
     * path back down by at most one tick per CL_PAUSE_EVERY and never oscillates on a one-tick wobble */
    const uint32_t want = pacing_tick(c) + input_ahead(c);
    uint32_t t = want;
    if (c->sent_any && c->next_input_tick > want) {
        t = c->next_input_tick;
        if (++c->pace_ahead >= CL_PAUSE_EVERY) {
            const int merge = repeats_last(c, input, payload_len);
            if (merge || c->pace_ahead >= 2u * CL_PAUSE_EVERY) {
                c->pace_ahead = 0;
                c->pace_paused++;
                if (!merge) return BSYNC_LIMIT_EXCEEDED;
                if (assigned) *assigned = t - 1u;
                return BSYNC_OK;
            }
        }
    } else {
        if (c->sent_any && want > c->next_input_tick) c->pace_skipped += want - c->next_input_tick;
        c->pace_ahead = 0;
    }
    /* s + d + 32 with s the newest server tick heard: s is never ahead of the server's next tick, so the
     * server (which keeps inputs up to its next tick + d + BSYNC_PROTO_PEER_MAX_INPUT_LEAD) takes it */
    if (t > c->server_tick + c->input_delay + BSYNC_PROTO_PEER_MAX_INPUT_LEAD) return BSYNC_LIMIT_EXCEEDED;
    /* a skip ahead of up to 3 ticks (the lead grew) fills the ticks it jumps over with this input's
     * parameter targets, without triggers or payload: sent at once, they may still be in time, and a
     * default would repeat the older input instead (docs/lockstep.md "Pacing") */
    if (c->sent_any && t > c->next_input_tick && t - c->next_input_tick < BSYNC_PROTO_MAX_INPUT_RECORDS &&
        c->history_count && c->next_input_tick == c->history_first + c->history_count) {
        bsync_match_input fill = *input;
        memset(fill.triggers, 0, sizeof fill.triggers);
        for (uint32_t k = c->next_input_tick; k < t; k++) history_push(c, &fill, NULL, 0, k);
        c->pace_filled += t - c->next_input_tick;
    }
    history_push(c, input, payload, payload_len, t);
    c->next_input_tick = t + 1;
    c->sent_any = 1;
    send_input_packet(c);
    cl_predict_local(c, t, &c->history[c->history_count - 1]);
    if (assigned) *assigned = t;
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- frames and checksums */

static ring_snap* find_snap(bsync_client* c, uint32_t tick) {
    for (uint32_t i = 0; i < SNAP_RING; i++)
        if (c->snaps[i].valid && c->snaps[i].tick == tick) return &c->snaps[i];
    return NULL;
}

/* A CHECKSUM message of tick with the root and per-character checksums of cs (no joint detail). */
static void checksum_msg(bsync_proto_msg* m, uint32_t tick, const bsync_match_checksums* cs) {
    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_CHECKSUM;
    m->checksum.tick = tick;
    m->checksum.blend = cs->blend;
    m->checksum.pose = cs->pose;
    m->checksum.character_count = (uint8_t)cs->character_count;
    for (uint32_t i = 0; i < cs->character_count; i++) {
        m->checksum.characters[i].blend = cs->character_blend[i];
        m->checksum.characters[i].pose = cs->character_pose[i];
    }
}

static void send_checksum(bsync_client* c, uint32_t tick) {
    bsync_match_checksums cs;
    if (bsync_match_get_checksums(c->match, c->cfg.compute_poses, &cs) != BSYNC_OK) return;
    if (c->faults.report) c->faults.report(c, tick, &cs);
    bsync_proto_msg m;
    checksum_msg(&m, tick, &cs);
    if (send_msg(c, &m) > 0) c->stats.checksums_sent++;
    if (c->replay) { /* the checksums as sent (a planted fault's included) */
        bsync_error err;
        if (bsync_replay_recorder_write_checksum(&c->recorder, tick, &cs, &err) != BSYNC_OK) replay_end(c, 2);
    }
    c->stats.last_blend = cs.blend;
    c->stats.last_pose = cs.pose;
    c->stats.last_checksum_tick = tick;
    /* keep the state for a DETAIL request or a DUMP */
    ring_snap* s = &c->snaps[c->snap_next];
    c->snap_next = (c->snap_next + 1) % SNAP_RING;
    s->valid = 0; /* its old bytes are being overwritten: findable again only once saved */
    if (bsync_match_save(c->match, s->data, c->snap_size, &s->len) == BSYNC_OK) {
        s->valid = 1;
        s->tick = tick + 1;
    }
    event_simple(c, BSYNC_CLIENT_EVENT_CHECKSUM, tick);
}

/* The sync-test switch (client.h): keep the state before this frame; after it, re-simulate the last D
 * frames from the state kept D frames ago in the scratch match and compare. */
static void synctest_before(bsync_client* c, uint32_t tick) {
    uint32_t k = tick % (SYNCTEST_MAX + 1u);
    if (bsync_match_save(c->match, c->st_snaps + (size_t)k * c->snap_size, c->snap_size, &c->st_len[k]) == BSYNC_OK)
        c->st_tick[k] = tick;
    else
        c->st_tick[k] = UINT32_MAX;
}

static void synctest_after(bsync_client* c, uint32_t tick) {
    uint32_t d = c->cfg.synctest_distance;
    if (tick + 1u < d) return;
    uint32_t from = tick + 1u - d; /* re-apply frames from .. tick */
    uint32_t k = from % (SYNCTEST_MAX + 1u);
    if (c->st_tick[k] != from) return; /* not kept (just joined or resynced) */
    if (bsync_match_load(c->scratch, c->st_snaps + (size_t)k * c->snap_size, c->st_len[k]) != BSYNC_OK) return;
    for (uint32_t t = from; t <= tick; t++) {
        const ring_frame* f = &c->frames[t % FRAME_RING];
        if (!f->valid || f->tick != t || bsync_match_tick(c->scratch, &f->frame) != BSYNC_OK) return;
    }
    bsync_match_checksums live, again;
    if (bsync_match_get_checksums(c->match, c->cfg.compute_poses, &live) != BSYNC_OK ||
        bsync_match_get_checksums(c->scratch, c->cfg.compute_poses, &again) != BSYNC_OK)
        return;
    c->stats.synctest_checks++;
    if (live.blend != again.blend || live.pose != again.pose) {
        c->stats.synctest_mismatches++;
        bsync_client_event ev;
        memset(&ev, 0, sizeof ev);
        ev.type = BSYNC_CLIENT_EVENT_SYNCTEST;
        ev.tick = tick;
        ev.desync.tick = tick;
        ev.desync.expected = live.blend != again.blend ? live.blend : live.pose;
        ev.desync.got = live.blend != again.blend ? again.blend : again.pose;
        push_event(c, &ev);
    }
}

/* Keeps the match's state at the start of `tick` in the trail ring (a desync trail is built from it). */
static void trail_keep(bsync_client* c, uint32_t tick) {
    ring_snap* r = &c->trail[tick % TRAIL_RING];
    r->valid = bsync_match_save(c->match, r->data, c->snap_size, &r->len) == BSYNC_OK;
    r->tick = tick;
}

static void apply_frames(bsync_client* c) {
    /* a reconnect holds what arrives before its WELCOME: only the WELCOME says whether the state is
     * kept (resume at next_frame) or replaced (snapshot); applied early, next_frame would no longer be
     * the tick the HELLO asked for (docs/protocol.md "Resume") */
    if (!c->have_state || c->reconnecting) return;
    while (c->next_frame < c->frames_received_upto) {
        ring_frame* f = &c->frames[c->next_frame % FRAME_RING];
        if (!f->valid || f->tick != c->next_frame) break;
        if (c->replay) {
            bsync_error err;
            bsync_replay_frame* rf = &c->rec.frame;
            memset(rf, 0, sizeof *rf);
            rf->tick = f->tick;
            rf->defaulted_mask = f->defaulted_mask;
            rf->inputs = f->frame;
            for (uint32_t p = 0; p < f->frame.player_count; p++) {
                rf->payload_len[p] = f->payload_len[p];
                memcpy(rf->payload[p], f->payload[p], f->payload_len[p]);
            }
            if (bsync_replay_recorder_begin_tick(&c->recorder, rf, &err) != BSYNC_OK) replay_end(c, 2);
        }
        if (c->cfg.synctest_distance) synctest_before(c, f->tick);
        if (bsync_match_tick(c->match, &f->frame) != BSYNC_OK) break;
        if (c->faults.after_frame) c->faults.after_frame(c, f->tick);
        cl_predict_confirmed(c, f->tick, &f->frame);
        if (c->frame_hook) c->frame_hook(c->frame_hook_user, c->match, f->tick);
        if (c->cfg.synctest_distance) synctest_after(c, f->tick);
        c->stats.frames_applied++;
        bsync_present_clock_frame(&c->present, bsync_match_tick_count(c->match), bsync_platform_now_ns());
        if (f->defaulted_mask & (1u << c->cfg.slot)) c->stats.frames_defaulted_self++;
        bsync_client_event ev;
        memset(&ev, 0, sizeof ev);
        ev.type = BSYNC_CLIENT_EVENT_FRAME;
        ev.tick = f->tick;
        ev.defaulted_mask = f->defaulted_mask;
        push_event(c, &ev);
        uint32_t t = c->next_frame++;
        trail_keep(c, t + 1u);
        if (bsync_replay_recorder_checksum_due(&c->recorder, t)) send_checksum(c, t);
        c->state = BSYNC_CLIENT_RUNNING;
    }
}

static void on_frame(bsync_client* c, const bsync_proto_frame* f) {
    /* checked against the local match (the WELCOME may not be here yet: the frame channel is not
     * ordered with the control channel, so frames can arrive first and are held) */
    if (f->player_count != c->cfg.desc->player_count || f->param_count != c->cfg.desc->param_count ||
        f->trigger_count != c->cfg.desc->trigger_count)
        return;
    if (c->state == BSYNC_CLIENT_CONNECTING) c->stats.frames_early++;
    c->stats.frames_received++;
    ring_frame* r = &c->frames[f->tick % FRAME_RING];
    r->tick = f->tick;
    r->valid = 1;
    r->defaulted_mask = f->defaulted_mask;
    memset(&r->frame, 0, sizeof r->frame);
    r->frame.player_count = f->player_count;
    for (uint32_t p = 0; p < f->player_count; p++) {
        memcpy(r->frame.players[p].params, f->players[p].params, sizeof r->frame.players[p].params);
        memcpy(r->frame.players[p].triggers, f->players[p].triggers, sizeof r->frame.players[p].triggers);
        r->payload_len[p] = f->players[p].payload_len;
        memcpy(r->payload[p], f->players[p].payload, f->players[p].payload_len);
    }
    if (f->tick + 1u > c->frames_received_upto) c->frames_received_upto = f->tick + 1u;
    if (f->tick + 1u > c->server_tick) c->server_tick = f->tick + 1u;
    apply_frames(c);
}

/* Queued uploads go out in chunks as the token bucket allows (CL_UPLOAD_BURST, CL_UPLOAD_RATE): the
 * server drops whatever passes 32 KiB/s from one peer and disconnects it after 32 such drops, so a
 * large DUMP sent at once got its client kicked. Called after every pass and after each enqueue. */
static void upload_pump(bsync_client* c) {
    if (c->upload_count == 0) return;
    const uint64_t now = now_us(c);
    c->upload_credit += (now - c->upload_at_us) * CL_UPLOAD_RATE / 1000000u;
    if (c->upload_credit > CL_UPLOAD_BURST) c->upload_credit = CL_UPLOAD_BURST;
    c->upload_at_us = now;
    bsync_proto_msg* m = NULL;
    while (c->upload_count) {
        cl_upload* u = &c->uploads[c->upload_head];
        const uint32_t count = (uint32_t)((u->len + BSYNC_PROTO_SNAPSHOT_CHUNK - 1) / BSYNC_PROTO_SNAPSHOT_CHUNK);
        if (u->next < count) {
            const size_t bytes = BSYNC_PROTO_HEADER_SIZE + BSYNC_PROTO_MAX_BODY_SNAPSHOT + BSYNC_SESSION_OVERHEAD;
            if (c->upload_credit < bytes) break;
            if (!m && !(m = malloc(sizeof *m))) break; /* large: not on the stack */
            bsync_net_snapshot_chunk(m, u->kind, u->tick, u->data, u->len, u->next);
            if (send_msg(c, m) < 0) break;
            c->upload_credit -= bytes;
            u->next++;
            if (u->next < count) continue;
        }
        free(u->data);
        u->data = NULL;
        c->upload_head = (c->upload_head + 1u) % CL_UPLOADS;
        c->upload_count--;
    }
    free(m);
}

/* Forget queued uploads (the connection they were for is gone, or the client is destroyed). */
static void uploads_clear(bsync_client* c) {
    for (uint32_t i = 0; i < CL_UPLOADS; i++) {
        free(c->uploads[i].data);
        c->uploads[i].data = NULL;
    }
    c->upload_head = c->upload_count = 0;
}

static void send_snapshot_chunks(bsync_client* c, uint32_t kind, uint32_t tick, const uint8_t* data, size_t len) {
    if (!c->attempting || !c->connected || len == 0) return;
    if (c->upload_count == CL_UPLOADS) {
        c->uploads_dropped++;
        return;
    }
    cl_upload* u = &c->uploads[(c->upload_head + c->upload_count) % CL_UPLOADS];
    u->data = malloc(len);
    if (!u->data) {
        c->uploads_dropped++;
        return;
    }
    memcpy(u->data, data, len);
    u->len = len;
    u->kind = kind;
    u->tick = tick;
    u->next = 0;
    if (c->upload_count == 0) { /* an idle bucket is full */
        c->upload_credit = CL_UPLOAD_BURST;
        c->upload_at_us = now_us(c);
    }
    c->upload_count++;
    upload_pump(c);
}

/* The trail for a desync at the state of `tick`: the states at the start of ticks tick - interval ..
 * tick that the ring still holds (consecutive, ending at tick), of the named character or, for a
 * root-level desync, of every character; the writer keeps the newest ticks that fit
 * BSYNC_PROTO_MAX_TRAIL bytes. Returns its length (0: none) and the malloc'd bytes in *out. Sent before
 * the DUMP, on the same reliable channel. */
static size_t build_trail(bsync_client* c, uint32_t tick, uint32_t character, uint8_t** out) {
    *out = NULL;
    const uint32_t span = c->checksum_interval < TRAIL_RING - 1u ? c->checksum_interval : TRAIL_RING - 1u;
    const uint8_t* snaps[TRAIL_RING];
    size_t lens[TRAIL_RING];
    uint32_t first = tick, n = 0;
    for (uint32_t k = 0; k <= span && k <= tick; k++) { /* walk back from tick while the ring has it */
        const ring_snap* r = &c->trail[(tick - k) % TRAIL_RING];
        if (!r->valid || r->tick != tick - k) break;
        first = tick - k;
        n++;
    }
    if (n == 0) return 0;
    for (uint32_t i = 0; i < n; i++) {
        const ring_snap* r = &c->trail[(first + i) % TRAIL_RING];
        snaps[i] = r->data;
        lens[i] = r->len;
    }
    const uint32_t count = c->cfg.desc->character_count;
    uint32_t chars[BSYNC_TRAIL_MAX_CHARACTERS];
    uint32_t nc = 0;
    if (character < count) chars[nc++] = character;
    else
        for (uint32_t i = 0; i < count && nc < BSYNC_TRAIL_MAX_CHARACTERS; i++) chars[nc++] = i;
    uint8_t* buf = malloc(BSYNC_PROTO_MAX_TRAIL);
    if (!buf) return 0;
    size_t len = 0;
    bsync_error err;
    if (bsync_trail_write(c->scratch, snaps, lens, n, first, chars, nc, buf, BSYNC_PROTO_MAX_TRAIL, &len, NULL, &err) !=
        BSYNC_OK) {
        free(buf);
        return 0;
    }
    *out = buf;
    return len;
}

/* The client's own desync dump (client.h, desync_dir): bsync_desync_bundle_write, side CLIENT. */
static void write_own_dump(bsync_client* c, const bsync_proto_desync* d, const ring_snap* s, const uint8_t* trail,
                           size_t trail_len) {
    const uint32_t prev = s->tick > c->checksum_interval ? s->tick - c->checksum_interval : 0;
    const ring_snap* p = &c->trail[prev % TRAIL_RING];
    const int have_prev = c->checksum_interval && p->valid && p->tick == prev;
    /* the frames prev .. s->tick - 1, as far as the frame ring holds them */
    uint32_t n = 0;
    bsync_match_frame* fr = malloc((size_t)(s->tick - prev + 1u) * sizeof *fr);
    uint16_t* dm = malloc((size_t)(s->tick - prev + 1u) * sizeof *dm);
    if (fr && dm) {
        for (uint32_t t = prev; t < s->tick; t++) {
            const ring_frame* f = &c->frames[t % FRAME_RING];
            if (!f->valid || f->tick != t) break;
            fr[n] = f->frame;
            dm[n] = f->defaulted_mask;
            n++;
        }
    }
    char text[1024];
    int len = snprintf(text, sizeof text,
                       "blendsync client desync dump\nmatch %llu, slot %u: the server reported a desync at tick %u (the "
                       "state after frame %u)\nkind %u, character %d, expected %016llx, got %016llx, action %u\n"
                       "client.bsms: this client's state after frame %u (uploaded as its DUMP)\n"
                       "client-previous.bsms: its state after frame %u (the last agreeing checksum tick)\n"
                       "client-trail.bstrail: its per-tick states in between (uploaded as its TRAIL)\n"
                       "inputs.csv: the frames it applied in between\n",
                       (unsigned long long)c->cfg.match_id, (unsigned)c->cfg.slot, d->tick, d->tick, (unsigned)d->kind,
                       d->character == BSYNC_PROTO_NO_CHARACTER ? -1 : (int)d->character,
                       (unsigned long long)d->expected, (unsigned long long)d->got, (unsigned)d->action, d->tick,
                       prev ? prev - 1u : 0u);
    bsync_desync_bundle_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.side = BSYNC_DESYNC_BUNDLE_CLIENT;
    bd.root = c->cfg.desync_dir;
    bd.tick = d->tick;
    bd.slot = (uint32_t)c->cfg.slot;
    bd.client_state = s->data;
    bd.client_state_len = s->len;
    bd.client_trail = trail_len ? trail : NULL;
    bd.client_trail_len = trail_len;
    bd.client_previous = have_prev ? p->data : NULL;
    bd.client_previous_len = have_prev ? p->len : 0;
    bd.report = len > 0 ? text : NULL;
    bd.match = fr && dm ? c->cfg.desc : NULL;
    bd.names = c->cfg.names;
    bd.frames = fr;
    bd.defaulted = dm;
    bd.frame_first = prev;
    bd.frame_count = n;
    (void)bsync_desync_bundle_write(&bd, NULL, 0, NULL);
    free(fr);
    free(dm);
}

static void on_desync(bsync_client* c, const bsync_proto_desync* d) {
    c->stats.desyncs++;
    bsync_client_event ev;
    memset(&ev, 0, sizeof ev);
    ev.type = BSYNC_CLIENT_EVENT_DESYNC;
    ev.tick = d->tick;
    ev.desync = *d;
    push_event(c, &ev);
    ring_snap* s = find_snap(c, d->tick + 1u);
    if (d->action == BSYNC_PROTO_ACTION_DETAIL) {
        if (!s || d->character >= c->cfg.desc->character_count) return;
        if (bsync_match_load(c->scratch, s->data, s->len) != BSYNC_OK) return;
        bsync_match_checksums cs;
        if (bsync_match_get_checksums(c->scratch, 1, &cs) != BSYNC_OK) return;
        bsync_proto_msg m;
        checksum_msg(&m, d->tick, &cs);
        uint32_t jc = 0;
        if (bsync_match_joint_checksums(c->scratch, d->character, m.checksum.joints, BSYNC_PROTO_MAX_JOINTS, &jc) ==
                BSYNC_OK &&
            jc > 0) {
            m.checksum.joint_character = d->character;
            m.checksum.joint_count = (uint16_t)jc;
            if (c->faults.report_joints) c->faults.report_joints(c, d->tick, d->character, m.checksum.joints, jc);
        }
        send_msg(c, &m);
        return;
    }
    /* report, resync, kick: upload our per-tick states since the last agreeing tick (the trail), then
     * our state at that tick, for the desync bundle; keep our own dump when asked to */
    if (s) {
        uint8_t* trail = NULL;
        size_t trail_len = build_trail(c, s->tick, d->character, &trail);
        if (trail_len) send_snapshot_chunks(c, BSYNC_PROTO_SNAPSHOT_TRAIL, s->tick, trail, trail_len);
        send_snapshot_chunks(c, BSYNC_PROTO_SNAPSHOT_DUMP, s->tick, s->data, s->len);
        if (c->cfg.desync_dir) write_own_dump(c, d, s, trail, trail_len);
        free(trail);
    }
}

static void on_snapshot_complete(bsync_client* c) {
    if (bsync_match_load(c->match, c->incoming, c->incoming_size) != BSYNC_OK) {
        c->incoming_kind = -1;
        return;
    }
    int kind = c->incoming_kind;
    c->incoming_kind = -1;
    c->next_frame = c->incoming_tick;
    c->have_state = 1;
    cl_predict_reset(c);
    trail_keep(c, c->incoming_tick);
    if (kind == BSYNC_PROTO_SNAPSHOT_JOIN) replay_start(c, c->incoming_tick, c->incoming, c->incoming_size);
    if (kind == BSYNC_PROTO_SNAPSHOT_RESYNC) {
        replay_end(c, 2); /* an append-only replay cannot express the jump back */
        c->stats.resyncs++;
        event_simple(c, BSYNC_CLIENT_EVENT_RESYNC, c->incoming_tick);
    }
    apply_frames(c);
}

static void snapshot_begin(bsync_client* c, int kind, uint32_t tick, uint32_t size) {
    c->incoming_kind = kind;
    c->incoming_tick = tick;
    c->incoming_size = size;
    c->incoming_have = 0;
}

static void snapshot_chunk(bsync_client* c, uint32_t index, const uint8_t* data, uint32_t len) {
    size_t off = (size_t)index * BSYNC_PROTO_SNAPSHOT_CHUNK;
    if (off + len > c->incoming_size || off != c->incoming_have) {
        c->incoming_kind = -1;
        return;
    }
    memcpy(c->incoming + off, data, len);
    c->incoming_have += len;
    if (c->incoming_have == c->incoming_size) on_snapshot_complete(c);
}

/* The WELCOME of a reconnect: a resume (snapshot size 0, start tick = our next frame or one we have
 * passed: keep the state, the frames from there follow) or a snapshot to load (the server no longer
 * holds the frames). */
static void on_rewelcome(bsync_client* c, const bsync_proto_welcome* w) {
    c->reconnecting = 0;
    c->state = BSYNC_CLIENT_JOINING;
    if (w->start_tick > c->server_tick) c->server_tick = w->start_tick;
    event_simple(c, BSYNC_CLIENT_EVENT_WELCOME, w->start_tick);
    if (c->stats.start_known) event_simple(c, BSYNC_CLIENT_EVENT_START, c->stats.start_tick);
    if (w->snapshot_size == 0) {
        /* what we asked for: our next frame. Resumed frames that overtook the WELCOME (their own
         * channel; a lost WELCOME waits for its retransmission) were held, not applied (apply_frames
         * applies nothing while reconnecting), so next_frame is still the tick our HELLO named. */
        if (!c->have_state || w->start_tick != c->next_frame) {
            finish(c, BSYNC_PROTO_BYE_PROTOCOL_ERROR);
            return;
        }
        c->stats.resumes++;
        apply_frames(c); /* the frames from start_tick that came first */
        return;
    }
    /* a snapshot: frames next_frame .. start - 1 will never be applied here, which an append-only
     * replay cannot express (it ends, reason aborted, as after a resync) */
    c->stats.resumes_snapshot++;
    if (c->replay && w->start_tick != c->next_frame) replay_end(c, 2);
    c->have_state = 0;
    snapshot_begin(c, BSYNC_PROTO_SNAPSHOT_JOIN, w->start_tick, w->snapshot_size);
    snapshot_chunk(c, 0, w->snapshot, w->snapshot_len);
}

static void on_welcome(bsync_client* c, const bsync_proto_welcome* w) {
    if (c->state != BSYNC_CLIENT_CONNECTING) return;
    if (c->auth_state == 2) c->stats.sessions_opened++;
    if (c->reconnecting) {
        on_rewelcome(c, w);
        return;
    }
    c->welcomed = 1;
    c->tick_rate = w->tick_rate;
    c->input_delay = w->input_delay;
    c->checksum_interval = w->checksum_interval;
    recorder_setup(c);
    c->player_count = w->player_count;
    c->next_frame = w->start_tick;
    c->server_tick = w->start_tick;
    c->state = BSYNC_CLIENT_JOINING;
    event_simple(c, BSYNC_CLIENT_EVENT_WELCOME, w->start_tick);
    if (c->stats.start_known) event_simple(c, BSYNC_CLIENT_EVENT_START, c->stats.start_tick); /* it came first */
    if (w->snapshot_size == 0) {
        c->have_state = w->start_tick == 0; /* a fresh match: the initial state */
        if (c->have_state) {
            replay_start(c, 0, NULL, 0);
            trail_keep(c, 0);
            apply_frames(c); /* the frames that arrived before the WELCOME */
        }
    } else {
        snapshot_begin(c, BSYNC_PROTO_SNAPSHOT_JOIN, w->start_tick, w->snapshot_size);
        snapshot_chunk(c, 0, w->snapshot, w->snapshot_len);
    }
}

static void send_hello(bsync_client* c);

/* START's clock under loss (docs/lockstep.md "Pacing"): a retransmitted START arrives a retransmission
 * late, and its deadline estimate with it. Frame t leaves the server at the deadline of t, so its
 * arrival - RTT / 2 - (t - S) periods is another estimate of START's deadline; the earliest one seen
 * is kept (a packet is delayed, never early). A frame resent after a resume only gives a later one. */
static void refine_start_clock(bsync_client* c, uint32_t tick) {
    if (!c->stats.start_known || !c->tick_rate || tick < c->stats.start_tick) return;
    uint32_t rtt = 0, variance = 0;
    c->transport.rtt(c->transport.user, &rtt, &variance);
    const uint64_t back = 500ull * rtt + (uint64_t)(tick - c->stats.start_tick) * 1000000u / c->tick_rate;
    const uint64_t now = now_us(c);
    if (now > back && now - back < c->stats.start_deadline_us) c->stats.start_deadline_us = now - back;
}

static void on_packet(bsync_client* c, unsigned channel, const uint8_t* data, size_t len) {
    bsync_proto_msg* mp = &c->rx;
    c->stats.bytes_received += len;
    c->last_recv_us = now_us(c);
    if (c->auth_state == 2) { /* sealed, all of it; a plain BYE only while the handshake is unfinished */
        size_t n = 0;
        if (bsync_session_open(&c->sess, data, len, c->opened, sizeof c->opened, &n) == BSYNC_SESSION_OPENED) {
            data = c->opened;
            len = n;
        } else if (!(c->state == BSYNC_CLIENT_CONNECTING && !c->welcomed && len >= 4 && data[3] == BSYNC_PROTO_BYE &&
                     !bsync_session_is_sealed(data, len))) {
            c->stats.sealed_rejected++;
            /* ENet acknowledged this copy: on a reliable channel the genuine message it replaced (a
             * tampered FRAME) will never come, and the stream cannot go on; reconnect and resume */
            if (channel != BSYNC_PROTO_CHANNEL_INPUT && c->welcomed) c->session_broken = 1;
            return;
        }
    }
    /* captured as messages: with a session, what was inside the seal (as sent ones are) */
    if (c->hook) c->hook(c->hook_user, 0, channel, data, len);
    if (bsync_proto_decode(data, len, mp) != BSYNC_PROTO_OK) return;
#define m (*mp)
    if (c->has_secret && c->auth_state != 2 && m.type != BSYNC_PROTO_AUTH_CHALLENGE && m.type != BSYNC_PROTO_BYE) {
        c->stats.sealed_rejected++; /* before the keys only the challenge or a BYE */
#undef m
        return;
    }
#define m (*mp)
    switch (m.type) {
    case BSYNC_PROTO_AUTH_CHALLENGE:
        if (c->auth_state != 1 || m.auth_challenge.mode != c->cfg.session_mode) break;
        if (bsync_session_derive(&c->sess, BSYNC_SESSION_CLIENT, (bsync_session_mode)c->cfg.session_mode, c->secret,
                                 c->cfg.match_id, c->cfg.slot, c->client_nonce, m.auth_challenge.server_nonce) != BSYNC_OK)
            break;
        c->auth_state = 2;
        send_hello(c); /* sealed: it proves the secret */
        /* the handshake is a round trip longer than a plain join: an attempt that got this far gets its
         * whole retry period again for the HELLO and WELCOME (under loss the first one gave up too soon
         * and joined late, from a snapshot) */
        c->attempt_start_us = now_us(c);
        break;
    case BSYNC_PROTO_WELCOME: on_welcome(c, &m.welcome); break;
    case BSYNC_PROTO_INPUT_ACK:
        if (m.input_ack.next_tick > c->acked_next) c->acked_next = m.input_ack.next_tick;
        if (m.input_ack.server_tick > c->server_tick) c->server_tick = m.input_ack.server_tick;
        break;
    case BSYNC_PROTO_FRAME:
        refine_start_clock(c, m.frame.tick);
        /* the input ack (protocol version 5): no input of ours is needed up to tick + input_ack */
        if (m.frame.tick + 1u + m.frame.input_ack > c->acked_next) c->acked_next = m.frame.tick + 1u + m.frame.input_ack;
        /* CHANGES frames carry only the players whose inputs changed: the rest come from the previous
         * frame of this connection (the frame channel is reliable and ordered) */
        if (bsync_proto_frame_expand(&m.frame, c->have_prev_frame ? &c->prev_frame : NULL) != 0)
            break; /* without its previous frame it cannot be applied: the match ends INCOMPLETE */
        c->prev_frame = m.frame;
        c->have_prev_frame = 1;
        if (c->state != BSYNC_CLIENT_ENDED) on_frame(c, &m.frame);
        break;
    case BSYNC_PROTO_FRAMES: { /* version 7: each frame usable as soon as any copy arrives */
        bsync_proto_frames* fs = &m.frames;
        const uint32_t newest = fs->first_tick + fs->count - 1u;
        refine_start_clock(c, newest);
        if (newest + 1u + fs->input_ack > c->acked_next) c->acked_next = newest + 1u + fs->input_ack;
        for (uint32_t i = 0; i < fs->count; i++) {
            bsync_proto_frame* f = &fs->frames[i];
            if (i > 0 && bsync_proto_frame_expand(f, &fs->frames[i - 1]) != 0) break; /* cannot happen once decoded */
            const ring_frame* r = &c->frames[f->tick % FRAME_RING];
            if (f->tick < c->next_frame || f->tick - c->next_frame >= FRAME_RING || (r->valid && r->tick == f->tick)) {
                c->frames_dup++;
                continue;
            }
            if (c->state != BSYNC_CLIENT_ENDED) on_frame(c, f);
        }
        break;
    }
    case BSYNC_PROTO_END:
        c->have_end = 1;
        c->end_reason = m.end.reason;
        c->stats.end_ticks = m.end.ticks;
        break;
    case BSYNC_PROTO_START: {
        uint32_t rtt = 0, variance = 0;
        c->transport.rtt(c->transport.user, &rtt, &variance);
        uint64_t half_rtt = 500ull * rtt;
        uint64_t due = now_us(c) + m.start.deadline_in_us;
        c->stats.start_known = 1;
        c->stats.start_tick = m.start.tick;
        c->match_ticks = m.start.match_ticks; /* version 7 (0 from a version 6 server) */
        c->stats.start_deadline_us = due > half_rtt ? due - half_rtt : 0;
        if (m.start.tick > c->server_tick) c->server_tick = m.start.tick;
        if (c->state != BSYNC_CLIENT_CONNECTING) event_simple(c, BSYNC_CLIENT_EVENT_START, m.start.tick);
        break;
    }
    case BSYNC_PROTO_DESYNC: on_desync(c, &m.desync); break;
    case BSYNC_PROTO_SNAPSHOT:
        if (m.snapshot.kind == BSYNC_PROTO_SNAPSHOT_DUMP) break;
        if (m.snapshot.chunk_index == 0) snapshot_begin(c, m.snapshot.kind, m.snapshot.tick, m.snapshot.total_size);
        if (c->incoming_kind == (int)m.snapshot.kind && c->incoming_tick == m.snapshot.tick)
            snapshot_chunk(c, m.snapshot.chunk_index, m.snapshot.data, m.snapshot.len);
        break;
    case BSYNC_PROTO_BYE:
        if ((m.bye.reason == BSYNC_PROTO_BYE_MATCH_OVER || m.bye.reason == BSYNC_PROTO_BYE_SHUTDOWN) &&
            c->state != BSYNC_CLIENT_CONNECTING) {
            /* the end of the match: frames (and END) may still be on their way on the frame channel;
             * the server disconnects only once they are delivered */
            if (!c->bye_pending) c->bye_pending_deadline_us = now_us(c) + 2000ull * BSYNC_PROTO_PEER_TIMEOUT_MS;
            c->bye_pending = 1;
            c->bye_pending_reason = m.bye.reason;
        } else if (c->state == BSYNC_CLIENT_CONNECTING &&
                   ((m.bye.reason == BSYNC_PROTO_BYE_SLOT_TAKEN && (c->connect_attempts > 1 || c->reconnecting)) ||
                    m.bye.reason == BSYNC_PROTO_BYE_RATE_LIMITED)) {
            /* SLOT_TAKEN on a later attempt: probably our own earlier one, which the server times out;
             * RATE_LIMITED: too many connections from this address this second. Either way the server
             * disconnects us and we try again 1 s later, until the connect deadline. */
        } else {
            finish(c, m.bye.reason);
        }
        break;
    default: break;
    }
#undef m
    check_end(c);
}

/* A drop mid-match is worth a reconnect: the session had begun (WELCOME) and is not over (no END, no
 * BYE that ends the match), and the config allows it. */
static int can_reconnect(const bsync_client* c) {
    return !c->cfg.reconnect_off && c->welcomed && (c->state == BSYNC_CLIENT_JOINING || c->state == BSYNC_CLIENT_RUNNING) &&
           !c->have_end && !c->bye_pending;
}

/* Connect again (client.h "Reconnect and resume"): the state, the frames received and the replay are
 * kept; what belonged to the dropped connection is not. The service loop starts the attempt. */
static void begin_reconnect(bsync_client* c) {
    const uint64_t now = now_us(c);
    c->state = BSYNC_CLIENT_CONNECTING;
    c->reconnecting = 1;
    c->connected = 0;
    c->have_prev_frame = 0;     /* the new connection's first FRAME is FULL */
    c->stats.start_known = 0;   /* a new START comes with the new WELCOME */
    if (c->incoming_kind >= 0) c->incoming_kind = -1; /* a snapshot half received: asked for again */
    c->connect_attempts = 1;
    c->attempt_start_us = now - CONNECT_RETRY_US; /* the next step begins the first attempt */
    c->connect_deadline_us = now + 1000ull * (c->cfg.reconnect_timeout_ms ? c->cfg.reconnect_timeout_ms : 10000u);
    c->stats.reconnects++;
    event_simple(c, BSYNC_CLIENT_EVENT_RECONNECTING, c->next_frame);
}

/* The connection is gone on this side (lost, dropped or given up): complete (END and every frame) or
 * not, say which; mid-match, reconnect first. */
static void connection_lost(bsync_client* c, uint32_t bye_reason) {
    if (match_complete(c)) check_end(c);
    else if (can_reconnect(c)) begin_reconnect(c);
    else finish(c, bye_reason);
}

void cl_drop_connection(bsync_client* c) {
    if (!c || !c->attempting) return;
    c->transport.drop(c->transport.user); /* gone on this side only: the server is not told, no event */
    c->attempting = 0;
    c->connected = 0;
    connection_lost(c, UINT32_MAX);
}

static void send_hello(bsync_client* c) {
    bsync_proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_HELLO;
    m.hello.match_id = c->cfg.match_id;
    m.hello.graph_hash = bsync_match_hash(c->cfg.desc);
    m.hello.slot = c->cfg.slot;
    /* a reconnect that still holds its state asks for the frames from its next one (version 5) */
    m.hello.resume = c->reconnecting && c->have_state && c->incoming_kind < 0 ? c->next_frame + 1u : 0u;
    m.hello.token_len = (uint8_t)c->cfg.token_len;
    memcpy(m.hello.token, c->token, c->cfg.token_len);
    send_msg(c, &m);
}

/* ---- the transport's calls (client_transport.h) */

void cl_connected(bsync_client* c) {
    if (!c || !c->attempting) return;
    c->connected = 1;
    bsync_session_clear(&c->sess); /* every connection its own session */
    c->auth_state = 0;
    if (!c->has_secret) {
        send_hello(c);
        return;
    }
    bsync_proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_AUTH_INIT;
    m.auth_init.match_id = c->cfg.match_id;
    m.auth_init.slot = c->cfg.slot;
    m.auth_init.mode = (uint8_t)c->cfg.session_mode;
    if (bsync_session_random(c->client_nonce, sizeof c->client_nonce) != BSYNC_OK) {
        finish(c, BSYNC_PROTO_BYE_AUTH_FAILED); /* a build without libsodium cannot play this match */
        return;
    }
    memcpy(m.auth_init.client_nonce, c->client_nonce, sizeof c->client_nonce);
    c->auth_state = 1;
    send_msg(c, &m);
}

void cl_packet(bsync_client* c, uint32_t channel, const uint8_t* data, size_t len) {
    if (!c || (!data && len)) return;
    on_packet(c, channel, data ? data : (const uint8_t*)"", len);
}

void cl_disconnected(bsync_client* c) {
    if (!c || !c->attempting) return;
    c->attempting = 0;
    c->connected = 0;
    const uint64_t now = now_us(c);
    if (c->state == BSYNC_CLIENT_CONNECTING && now + 500000u < c->connect_deadline_us) {
        c->attempt_start_us = now + 1000000u - CONNECT_RETRY_US; /* again in 1 s */
        return;
    }
    connection_lost(c, c->bye_pending ? c->bye_pending_reason : UINT32_MAX);
}

/* A running match's server sends a FRAME every tick: silence for max(1 s, 8 round trips) after START's
 * deadline (1 s more when the match length is unknown) means it is gone (killed, or the path is), and
 * waiting for the transport's peer timeout (5 s for ENet) only delays the reconnect. A resumed or
 * recovered match waits for its new START (start_known is cleared at the reconnect), so a server that
 * stands still between is not counted. */
static int server_silent(const bsync_client* c, uint64_t now) {
    if (!c->connected || c->state != BSYNC_CLIENT_RUNNING || !c->stats.start_known || c->have_end || c->bye_pending)
        return 0;
    const uint64_t since = c->last_recv_us > c->stats.start_deadline_us ? c->last_recv_us : c->stats.start_deadline_us;
    uint32_t rtt = 0, variance = 0;
    c->transport.rtt(c->transport.user, &rtt, &variance);
    uint64_t limit = 1000ull * CL_SILENCE_RTTS * rtt;
    if (limit < CL_SILENCE_MIN_US) limit = CL_SILENCE_MIN_US;
    /* after the last frame the server holds END up to 1 s for the last checksums (docs/lockstep.md):
     * with every frame of a known length here that silence is expected; with the length unknown
     * (a version 6 server, an open match) any silence may be that hold, so it counts 1 s more */
    if (c->match_ticks && c->frames_received_upto >= c->match_ticks) return 0;
    if (!c->match_ticks) limit += CL_END_HOLD_US;
    return now > since && now - since > limit;
}

void cl_step(bsync_client* c) {
    if (!c) return;
    if (server_silent(c, now_us(c))) cl_drop_connection(c); /* as any drop: reconnect and resume */
    if (c->upload_count && (!c->attempting || !c->connected)) uploads_clear(c); /* that connection is gone */
    upload_pump(c);
    cl_predict_update(c);
    if (c->session_broken && c->attempting) { /* a new connection and session, resuming from the next frame */
        c->session_broken = 0;
        c->transport.close(c->transport.user); /* the server frees the slot at once (if this arrives) */
        c->attempting = 0;
        c->connected = 0;
        connection_lost(c, UINT32_MAX);
    }
    check_end(c);
    uint64_t now = now_us(c);
    if (c->state == BSYNC_CLIENT_CONNECTING && now < c->connect_deadline_us && now >= c->attempt_start_us + CONNECT_RETRY_US) {
        /* no WELCOME yet: a fresh connection (the server sees a new peer) */
        c->connected = 0;
        c->have_prev_frame = 0; /* a new connection: its first FRAME is FULL */
        c->attempting = c->transport.connect(c->transport.user) == 0;
        c->attempt_start_us = now;
        c->connect_attempts++;
        c->stats.connect_attempts++;
    }
    if (c->state == BSYNC_CLIENT_CONNECTING && now > c->connect_deadline_us) {
        c->connected = 0;
        finish(c, UINT32_MAX);
        if (c->attempting) {
            c->transport.drop(c->transport.user);
            c->attempting = 0;
        }
    }
}

/* ---- rendering between ticks (client.h; the clock itself is client_present.c) */

uint64_t bsync_client_time_since_frame_ns(const bsync_client* c) {
    if (!c || !c->present.started) return 0;
    const uint64_t now = bsync_platform_now_ns();
    return now > c->present.frame_ns ? now - c->present.frame_ns : 0;
}

fix16_t bsync_client_present_alpha(bsync_client* c) {
    if (!c || !c->match) return 0;
    const uint64_t now = bsync_platform_now_ns();
    c->present.tick_rate = c->tick_rate;
    /* a snapshot load (join, resync) moves the match without applying a frame */
    if (c->present.started && c->present.tick != bsync_match_tick_count(c->match))
        bsync_present_clock_frame(&c->present, bsync_match_tick_count(c->match), now);
    return bsync_present_clock_alpha(&c->present, now);
}
