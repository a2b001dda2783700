/* server_frames.c — protocol version 7's frames (docs/protocol.md "FRAMES"): after every confirmed
 * tick, each version 7 connection gets the newest frames it may lack in one unreliable FRAMES packet
 * (the newest frame and up to BSYNC_PROTO_MAX_FRAMES - 1 before it that it has not acknowledged), and,
 * when it lacks older ones too, a second packet with the oldest frames it lacks. Every packet decodes
 * on its own (its first frame FULL), so a frame is usable as soon as any copy of it arrives; the
 * connection's frame ack (in its INPUTs) says what to stop sending. Frames come from the match's frame
 * ring (SRV_FRAME_RING ticks). */
#include <string.h>

#include "server_internal.h"

/* A FRAMES packet stays under one ENet datagram (ENet's MTU 1,400 less its headers and a seal), so
 * ENet never fragments it (a fragmented unreliable packet is sent reliably by ENet). Always at least
 * one frame, whatever its size. */
#define SRV_FRAMES_BYTES 1200u

/* Confirmed frame t from the ring, FULL. Only what the counts cover is written (the encoder and
 * bsync_proto_frame_changes read no further): a few dozen bytes per player, not the whole struct. */
static void ring_frame(const srv_match* m, uint32_t t, bsync_proto_frame* f) {
    const uint32_t k = t % SRV_FRAME_RING;
    const uint32_t np = m->desc->param_count, ng = m->desc->trigger_count;
    f->tick = t;
    f->player_count = (uint8_t)m->player_count;
    f->param_count = (uint8_t)np;
    f->trigger_count = (uint8_t)ng;
    f->coding = BSYNC_PROTO_FRAME_FULL;
    f->changed_mask = 0;
    f->input_ack = 0;
    f->defaulted_mask = m->frame_defaulted[k];
    for (uint32_t q = 0; q < m->player_count; q++) {
        memcpy(f->players[q].params, m->frames[k].players[q].params, np * sizeof f->players[q].params[0]);
        memcpy(f->players[q].triggers, m->frames[k].players[q].triggers, ng);
        f->players[q].payload_len = 0;
        if (m->frame_payload) {
            const size_t at = (size_t)k * m->player_count + q;
            f->players[q].payload_len = m->frame_payload_len[at];
            memcpy(f->players[q].payload, m->frame_payload + at * m->payload_max, f->players[q].payload_len);
        }
    }
}

/* Frames a..b (a <= b) to p in one FRAMES packet; over SRV_FRAMES_BYTES, frames are left out from the
 * old end (keep_newest) or the new end until it fits or one is left. */
static void send_run(srv_match* m, srv_peer* p, uint32_t a, uint32_t b, int keep_newest) {
    bsync_proto_msg* msg = &m->frames_tx;
    for (;;) {
        msg->type = BSYNC_PROTO_FRAMES;
        msg->version = 0;
        bsync_proto_frames* fs = &msg->frames;
        fs->first_tick = a;
        fs->count = (uint8_t)(b - a + 1u);
        fs->input_ack = srv_match_input_ack(m, (uint32_t)p->slot, b);
        for (uint32_t i = 0; i < fs->count; i++) {
            ring_frame(m, a + i, &fs->frames[i]);
            if (i > 0) bsync_proto_frame_changes(&fs->frames[i], &fs->frames[i - 1]); /* else FULL */
        }
        size_t len = 0;
        const bsync_proto_result r = bsync_proto_encode_as(msg, BSYNC_PROTO_VERSION, NULL, 0, &len);
        if (r == BSYNC_PROTO_OK && len <= BSYNC_PROTO_HEADER_SIZE + SRV_FRAMES_BYTES) break;
        if (a == b) {
            if (r != BSYNC_PROTO_OK) return; /* cannot happen: one frame always fits a packet */
            break;
        }
        if (keep_newest) a++;
        else b--;
    }
    (void)srv_send(m, p, msg);
}

void srv_frames_send(srv_match* m, srv_peer* p) {
    if (!p || p->slot < 0 || m->next_tick == 0) return;
    const uint32_t newest = m->next_tick - 1u;
    uint32_t lacks = p->frames_acked;
    if (newest - lacks >= SRV_FRAME_RING && lacks <= newest) lacks = newest - SRV_FRAME_RING + 1u; /* gone */
    if (lacks > newest) return; /* it has every frame (or acks ahead: nothing to send) */
    const uint32_t span = BSYNC_PROTO_MAX_FRAMES - 1u;
    const uint32_t live = newest - lacks > span ? newest - span : lacks;
    send_run(m, p, live, newest, 1);
    if (lacks < live) send_run(m, p, lacks, lacks + span < live - 1u ? lacks + span : live - 1u, 0);
}
