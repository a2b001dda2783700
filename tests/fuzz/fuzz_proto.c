/* fuzz_proto.c — the wire protocol (proto.h): bsync_proto_decode of any bytes, and for every packet it
 * accepts the contract's own oracles (abort() on a break):
 *   - validate accepts the message; peek_header agrees with it;
 *   - canonical: encode(decode(bytes)) == bytes, and decode(encode(msg)) == msg field for field;
 *   - the encoder's size query says the same size, a buffer one byte short is BUFFER_TOO_SMALL with
 *     nothing written past it, and the packet cut by one byte decodes as TRUNCATED;
 *   - FRAME: against a previous frame (tick - 1, same layout, derived from the packet itself),
 *     bsync_proto_frame_expand of a CHANGES frame fills exactly the players outside changed_mask with
 *     the previous targets and triggers (no payload); and for the whole frame,
 *     expand(decode(encode(changes(frame, previous))), previous) == frame.
 * Seeds: packets of every type cut from real `blendsync bot --capture` sessions (make_seeds.sh). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/proto.h"
#include "fuzz_target.h"

static bsync_proto_msg msg, again, prev_msg, coded;
static uint8_t buf[BSYNC_PROTO_MAX_PACKET + 64];

static void same_frame(const bsync_proto_frame* x, const bsync_proto_frame* y) {
    if (x->tick != y->tick || x->player_count != y->player_count || x->param_count != y->param_count ||
        x->trigger_count != y->trigger_count || x->coding != y->coding || x->defaulted_mask != y->defaulted_mask ||
        x->changed_mask != y->changed_mask)
        abort();
    for (uint32_t p = 0; p < x->player_count; p++) {
        const bsync_proto_frame_player *a = &x->players[p], *b = &y->players[p];
        if (memcmp(a->params, b->params, x->param_count * sizeof a->params[0]) ||
            memcmp(a->triggers, b->triggers, x->trigger_count) || a->payload_len != b->payload_len ||
            memcmp(a->payload, b->payload, a->payload_len))
            abort();
    }
}

static void roundtrip(const bsync_proto_msg* m, bsync_proto_msg* out) {
    size_t n = 0;
    if (bsync_proto_encode(m, buf, sizeof buf, &n) != BSYNC_PROTO_OK) abort();
    if (bsync_proto_decode(buf, n, out) != BSYNC_PROTO_OK) abort();
}

static void check_frame(const uint8_t* data, size_t size) {
    bsync_proto_frame* f = &msg.frame;
    if (f->tick == 0) return; /* no previous frame */
    /* previous: the same layout at tick - 1, each player the next player's targets and triggers */
    prev_msg = msg;
    bsync_proto_frame* pv = &prev_msg.frame;
    pv->tick = f->tick - 1;
    pv->coding = BSYNC_PROTO_FRAME_FULL;
    for (uint32_t p = 0; p < f->player_count; p++) {
        const bsync_proto_frame_player* src = &f->players[(p + 1) % f->player_count];
        memcpy(pv->players[p].params, src->params, sizeof src->params);
        memcpy(pv->players[p].triggers, src->triggers, sizeof src->triggers);
        pv->players[p].payload_len = 0;
        memset(pv->players[p].payload, 0, sizeof pv->players[p].payload);
    }
    if (f->param_count && (data[size - 1] & 1)) /* sometimes one target differs even for one player */
        pv->players[0].params[0] += pv->players[0].params[0] == INT32_MAX ? -1 : 1;
    if (bsync_proto_validate(&prev_msg) != BSYNC_PROTO_OK) abort();

    if (f->coding == BSYNC_PROTO_FRAME_CHANGES) {
        bsync_proto_frame before = *f;
        if (bsync_proto_frame_expand(f, pv) != 0) abort();
        if (f->coding != BSYNC_PROTO_FRAME_FULL || f->changed_mask != (uint16_t)((1u << f->player_count) - 1u)) abort();
        for (uint32_t p = 0; p < f->player_count; p++) {
            const bsync_proto_frame_player* want = (before.changed_mask >> p & 1u) ? &before.players[p] : &pv->players[p];
            if (memcmp(f->players[p].params, want->params, f->param_count * sizeof want->params[0]) ||
                memcmp(f->players[p].triggers, want->triggers, f->trigger_count))
                abort();
            if (!(before.changed_mask >> p & 1u) && f->players[p].payload_len != 0) abort();
        }
        if (bsync_proto_validate(&msg) != BSYNC_PROTO_OK) abort();
    } else if (bsync_proto_frame_expand(f, pv) != 0 || f->coding != BSYNC_PROTO_FRAME_FULL) {
        abort(); /* a FULL frame is left as it is */
    }
    /* the whole frame through the CHANGES coding and back */
    coded = msg;
    if (bsync_proto_frame_changes(&coded.frame, pv) != 0) abort();
    roundtrip(&coded, &again);
    if (again.frame.coding != coded.frame.coding ||
        (coded.frame.coding == BSYNC_PROTO_FRAME_CHANGES && again.frame.changed_mask != coded.frame.changed_mask))
        abort();
    if (bsync_proto_frame_expand(&again.frame, pv) != 0) abort();
    same_frame(&again.frame, f);
    /* a previous frame of another tick cannot expand a CHANGES frame */
    if (coded.frame.coding == BSYNC_PROTO_FRAME_CHANGES) {
        pv->tick ^= 1u;
        if (bsync_proto_frame_expand(&coded.frame, pv) != -1) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bsync_proto_result r = bsync_proto_decode(data, size, &msg);
    (void)bsync_proto_result_string(r);
    bsync_proto_header h;
    bsync_proto_result hr = bsync_proto_peek_header(data, size, &h);
    if (r != BSYNC_PROTO_OK) {
        if (hr == BSYNC_PROTO_OK) (void)bsync_proto_type_string(h.type);
        return 0;
    }
    /* accepted: every rule holds */
    if (bsync_proto_validate(&msg) != BSYNC_PROTO_OK) abort();
    if (hr != BSYNC_PROTO_OK || h.type != (uint8_t)msg.type || (size_t)h.body_len + BSYNC_PROTO_HEADER_SIZE != size) abort();
    if (h.body_len > bsync_proto_max_body(msg.type) || bsync_proto_channel(msg.type) >= BSYNC_PROTO_CHANNEL_COUNT) abort();
    /* canonical */
    size_t n = 0;
    if (bsync_proto_encode(&msg, NULL, 0, &n) != BSYNC_PROTO_OK || n != size) abort();
    memset(buf, 0xA5, sizeof buf);
    if (bsync_proto_encode(&msg, buf, size - 1, &n) != BSYNC_PROTO_BUFFER_TOO_SMALL || n != size) abort();
    for (size_t i = size - 1; i < sizeof buf; i++)
        if (buf[i] != 0xA5) abort(); /* nothing past cap */
    if (bsync_proto_encode(&msg, buf, sizeof buf, &n) != BSYNC_PROTO_OK || n != size || memcmp(buf, data, size)) abort();
    if (bsync_proto_decode(buf, n, &again) != BSYNC_PROTO_OK || memcmp(&again, &msg, sizeof msg)) abort();
    if (bsync_proto_decode(data, size - 1, &again) != BSYNC_PROTO_TRUNCATED) abort();
    if (msg.type == BSYNC_PROTO_FRAME) check_frame(data, size);
    return 0;
}
