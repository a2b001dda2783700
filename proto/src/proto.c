/* proto.c — encoding, decoding and validation of the wire protocol (blendsync/proto.h). */
#include "blendsync/proto.h"

#include <string.h>

#include "internal/le.h"

/* ---------------------------------------------------------------- tables */

size_t bsync_proto_max_body(uint32_t type) {
    switch (type) {
    case BSYNC_PROTO_HELLO: return BSYNC_PROTO_MAX_BODY_HELLO;
    case BSYNC_PROTO_WELCOME: return BSYNC_PROTO_MAX_BODY_WELCOME;
    case BSYNC_PROTO_INPUT: return BSYNC_PROTO_MAX_BODY_INPUT;
    case BSYNC_PROTO_INPUT_ACK: return BSYNC_PROTO_MAX_BODY_INPUT_ACK;
    case BSYNC_PROTO_FRAME: return BSYNC_PROTO_MAX_BODY_FRAME;
    case BSYNC_PROTO_CHECKSUM: return BSYNC_PROTO_MAX_BODY_CHECKSUM;
    case BSYNC_PROTO_DESYNC: return BSYNC_PROTO_MAX_BODY_DESYNC;
    case BSYNC_PROTO_SNAPSHOT: return BSYNC_PROTO_MAX_BODY_SNAPSHOT;
    case BSYNC_PROTO_BYE: return BSYNC_PROTO_MAX_BODY_BYE;
    case BSYNC_PROTO_END: return BSYNC_PROTO_MAX_BODY_END;
    case BSYNC_PROTO_START: return BSYNC_PROTO_MAX_BODY_START;
    case BSYNC_PROTO_AUTH_INIT: return BSYNC_PROTO_MAX_BODY_AUTH_INIT;
    case BSYNC_PROTO_AUTH_CHALLENGE: return BSYNC_PROTO_MAX_BODY_AUTH_CHALLENGE;
    case BSYNC_PROTO_FRAMES: return BSYNC_PROTO_MAX_BODY_FRAMES;
    default: return 0;
    }
}

unsigned bsync_proto_channel(uint32_t type) {
    switch (type) {
    case BSYNC_PROTO_INPUT:
    case BSYNC_PROTO_INPUT_ACK:
    case BSYNC_PROTO_FRAMES: /* version 7: unreliable, redundant, acknowledged */
        return BSYNC_PROTO_CHANNEL_INPUT;
    case BSYNC_PROTO_FRAME:
    case BSYNC_PROTO_END:   /* ordered after the last FRAME */
    case BSYNC_PROTO_START: /* ordered before the first FRAME the client must apply */
        return BSYNC_PROTO_CHANNEL_FRAME;
    case BSYNC_PROTO_CHECKSUM:
    case BSYNC_PROTO_DESYNC: return BSYNC_PROTO_CHANNEL_CHECK;
    case BSYNC_PROTO_SNAPSHOT: return BSYNC_PROTO_CHANNEL_BULK;
    default: return BSYNC_PROTO_CHANNEL_CONTROL;
    }
}

int bsync_proto_reliable(uint32_t type) {
    return !(type == BSYNC_PROTO_INPUT || type == BSYNC_PROTO_INPUT_ACK || type == BSYNC_PROTO_FRAMES);
}

/* ---------------------------------------------------------------- zigzag */

static uint64_t zigzag64(int64_t v) {
    /* 2v for v >= 0, -2v - 1 for v < 0, without shifting a negative value */
    return v >= 0 ? (uint64_t)v << 1 : (((uint64_t)(-(v + 1))) << 1) | 1u;
}
static int64_t unzigzag64(uint64_t z) {
    /* z < 2^34 here, so both branches are far inside int64 */
    return (z & 1u) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
}

/* ---------------------------------------------------------------- writer */

typedef struct writer_ {
    uint8_t* buf; /* NULL: count only */
    size_t cap;
    size_t pos;
} writer_;

static void put_u8(writer_* w, uint32_t v) {
    if (w->buf && w->pos < w->cap) w->buf[w->pos] = (uint8_t)(v & 0xFFu);
    w->pos++;
}
static void put_u16(writer_* w, uint32_t v) {
    put_u8(w, v);
    put_u8(w, v >> 8);
}
static void put_u32(writer_* w, uint32_t v) {
    put_u16(w, v & 0xFFFFu);
    put_u16(w, v >> 16);
}
static void put_u64(writer_* w, uint64_t v) {
    put_u32(w, (uint32_t)(v & 0xFFFFFFFFu));
    put_u32(w, (uint32_t)(v >> 32));
}
static void put_bytes(writer_* w, const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; i++) put_u8(w, p[i]);
}
static void put_varint(writer_* w, uint64_t v) {
    while (v >= 0x80u) {
        put_u8(w, (uint32_t)((v & 0x7Fu) | 0x80u));
        v >>= 7;
    }
    put_u8(w, (uint32_t)v);
}

/* ---------------------------------------------------------------- reader */

typedef struct reader_ {
    const uint8_t* p;
    size_t len;
    size_t pos;
} reader_;

#define TRY_(expr)                                        \
    do {                                                  \
        bsync_proto_result r_ = (expr);                   \
        if (r_ != BSYNC_PROTO_OK) return r_;              \
    } while (0)

static bsync_proto_result get_u8(reader_* r, uint8_t* v) {
    if (r->len - r->pos < 1) return BSYNC_PROTO_TRUNCATED;
    *v = r->p[r->pos++];
    return BSYNC_PROTO_OK;
}
static bsync_proto_result get_u16(reader_* r, uint16_t* v) {
    if (r->len - r->pos < 2) return BSYNC_PROTO_TRUNCATED;
    *v = (uint16_t)bsync_le_get16(r->p + r->pos);
    r->pos += 2;
    return BSYNC_PROTO_OK;
}
static bsync_proto_result get_u32(reader_* r, uint32_t* v) {
    if (r->len - r->pos < 4) return BSYNC_PROTO_TRUNCATED;
    *v = bsync_le_get32(r->p + r->pos);
    r->pos += 4;
    return BSYNC_PROTO_OK;
}
static bsync_proto_result get_u64(reader_* r, uint64_t* v) {
    uint32_t lo, hi;
    TRY_(get_u32(r, &lo));
    TRY_(get_u32(r, &hi));
    *v = (uint64_t)lo | ((uint64_t)hi << 32);
    return BSYNC_PROTO_OK;
}
static bsync_proto_result get_bytes(reader_* r, uint8_t* out, size_t n) {
    if (r->len - r->pos < n) return BSYNC_PROTO_TRUNCATED;
    if (n) memcpy(out, r->p + r->pos, n);
    r->pos += n;
    return BSYNC_PROTO_OK;
}
static bsync_proto_result get_varint(reader_* r, uint64_t* v) {
    uint64_t acc = 0;
    for (unsigned i = 0; i < BSYNC_PROTO_VARINT_MAX; i++) {
        uint8_t b;
        TRY_(get_u8(r, &b));
        acc |= (uint64_t)(b & 0x7Fu) << (7u * i);
        if (!(b & 0x80u)) {
            if (i > 0 && b == 0) return BSYNC_PROTO_BAD_VARINT;                        /* not minimal */
            if (i == BSYNC_PROTO_VARINT_MAX - 1 && b > 0x3Fu) return BSYNC_PROTO_BAD_VARINT; /* >= 2^34 */
            *v = acc;
            return BSYNC_PROTO_OK;
        }
    }
    return BSYNC_PROTO_BAD_VARINT; /* sixth byte announced */
}
/* An absolute fix16: varint(zigzag(v)) with v in (INT32_MIN, INT32_MAX]. */
static bsync_proto_result get_fx_abs(reader_* r, fix16_t* v) {
    uint64_t z;
    TRY_(get_varint(r, &z));
    int64_t x = unzigzag64(z);
    if (x <= (int64_t)INT32_MIN || x > (int64_t)INT32_MAX) return BSYNC_PROTO_BAD_VALUE;
    *v = (fix16_t)x;
    return BSYNC_PROTO_OK;
}
static bsync_proto_result get_fx_delta(reader_* r, fix16_t prev, fix16_t* v) {
    uint64_t z;
    TRY_(get_varint(r, &z));
    int64_t x = (int64_t)prev + unzigzag64(z);
    if (x <= (int64_t)INT32_MIN || x > (int64_t)INT32_MAX) return BSYNC_PROTO_BAD_VALUE;
    *v = (fix16_t)x;
    return BSYNC_PROTO_OK;
}

/* ---------------------------------------------------------------- validation */

static int fx_ok(fix16_t v) { return v != INT32_MIN; }

static bsync_proto_result validate_hello(const bsync_proto_hello* m) {
    if (m->slot >= BSYNC_PROTO_MAX_PLAYERS) return BSYNC_PROTO_BAD_VALUE;
    if (m->token_len < 1 || m->token_len > BSYNC_PROTO_MAX_TOKEN) return BSYNC_PROTO_BAD_LENGTH;
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_welcome(const bsync_proto_welcome* m) {
    if (m->player_count < 1 || m->player_count > BSYNC_PROTO_MAX_PLAYERS) return BSYNC_PROTO_BAD_COUNT;
    if (m->param_count > BSYNC_PROTO_MAX_PARAMS || m->trigger_count > BSYNC_PROTO_MAX_TRIGGERS)
        return BSYNC_PROTO_BAD_COUNT;
    if (m->tick_rate < BSYNC_PROTO_MIN_TICK_RATE || m->tick_rate > BSYNC_PROTO_MAX_TICK_RATE)
        return BSYNC_PROTO_BAD_VALUE;
    if (m->input_delay > BSYNC_PROTO_MAX_INPUT_DELAY) return BSYNC_PROTO_BAD_VALUE;
    if (m->slot >= m->player_count) return BSYNC_PROTO_BAD_VALUE;
    if (m->checksum_interval < 1 || m->checksum_interval > BSYNC_PROTO_MAX_CHECKSUM_INTERVAL)
        return BSYNC_PROTO_BAD_VALUE;
    if (m->player_count < 16 && (m->connected_mask >> m->player_count) != 0) return BSYNC_PROTO_RESERVED_NONZERO;
    if (!((m->connected_mask >> m->slot) & 1u)) return BSYNC_PROTO_BAD_VALUE;
    if (m->snapshot_size > BSYNC_PROTO_MAX_SNAPSHOT) return BSYNC_PROTO_BAD_LENGTH;
    uint32_t want = m->snapshot_size < BSYNC_PROTO_SNAPSHOT_CHUNK ? m->snapshot_size : BSYNC_PROTO_SNAPSHOT_CHUNK;
    if (m->snapshot_len != want) return BSYNC_PROTO_BAD_LENGTH;
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_input(const bsync_proto_input* m, uint32_t version) {
    if (version >= 7u && m->frame_ack > m->first_tick) return BSYNC_PROTO_BAD_VALUE;
    if (m->slot >= BSYNC_PROTO_MAX_PLAYERS) return BSYNC_PROTO_BAD_VALUE;
    if (m->param_count > BSYNC_PROTO_MAX_PARAMS || m->trigger_count > BSYNC_PROTO_MAX_TRIGGERS)
        return BSYNC_PROTO_BAD_COUNT;
    if (m->record_count < 1 || m->record_count > BSYNC_PROTO_MAX_INPUT_RECORDS) return BSYNC_PROTO_BAD_COUNT;
    if ((uint64_t)m->first_tick + m->record_count - 1u > UINT32_MAX) return BSYNC_PROTO_BAD_VALUE;
    for (unsigned r = 0; r < m->record_count; r++) {
        for (unsigned p = 0; p < m->param_count; p++)
            if (!fx_ok(m->records[r].params[p])) return BSYNC_PROTO_BAD_VALUE;
        if (m->records[r].payload_len > BSYNC_PROTO_MAX_PAYLOAD) return BSYNC_PROTO_BAD_LENGTH;
    }
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_frame(const bsync_proto_frame* m) {
    if (m->player_count < 1 || m->player_count > BSYNC_PROTO_MAX_PLAYERS) return BSYNC_PROTO_BAD_COUNT;
    if (m->param_count > BSYNC_PROTO_MAX_PARAMS || m->trigger_count > BSYNC_PROTO_MAX_TRIGGERS)
        return BSYNC_PROTO_BAD_COUNT;
    if (m->player_count < 16 && (m->defaulted_mask >> m->player_count) != 0) return BSYNC_PROTO_RESERVED_NONZERO;
    if (m->coding > BSYNC_PROTO_FRAME_CHANGES) return BSYNC_PROTO_BAD_ENUM;
    if (m->coding == BSYNC_PROTO_FRAME_CHANGES && m->player_count < 16 && (m->changed_mask >> m->player_count) != 0)
        return BSYNC_PROTO_RESERVED_NONZERO;
    if (m->coding == BSYNC_PROTO_FRAME_CHANGES && m->changed_mask == (1u << m->player_count) - 1u)
        return BSYNC_PROTO_BAD_VALUE;
    for (unsigned i = 0; i < m->player_count; i++) {
        const bsync_proto_frame_player* pl = &m->players[i];
        if (m->coding == BSYNC_PROTO_FRAME_CHANGES && !((m->changed_mask >> i) & 1u)) continue; /* not on the wire */
        for (unsigned p = 0; p < m->param_count; p++)
            if (!fx_ok(pl->params[p])) return BSYNC_PROTO_BAD_VALUE;
        if (pl->payload_len > BSYNC_PROTO_MAX_PAYLOAD) return BSYNC_PROTO_BAD_LENGTH;
    }
    return BSYNC_PROTO_OK;
}

/* version 7: one layout, consecutive ticks, the first frame FULL */
static bsync_proto_result validate_frames(const bsync_proto_frames* m) {
    if (m->count < 1 || m->count > BSYNC_PROTO_MAX_FRAMES) return BSYNC_PROTO_BAD_COUNT;
    if ((uint64_t)m->first_tick + m->count - 1u > UINT32_MAX) return BSYNC_PROTO_BAD_VALUE;
    const bsync_proto_frame* f0 = &m->frames[0];
    if (f0->coding != BSYNC_PROTO_FRAME_FULL) return BSYNC_PROTO_BAD_VALUE;
    for (unsigned i = 0; i < m->count; i++) {
        const bsync_proto_frame* f = &m->frames[i];
        TRY_(validate_frame(f));
        if (f->tick != m->first_tick + i || f->player_count != f0->player_count || f->param_count != f0->param_count ||
            f->trigger_count != f0->trigger_count)
            return BSYNC_PROTO_BAD_VALUE;
    }
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_checksum(const bsync_proto_checksum* m) {
    if (m->character_count > BSYNC_PROTO_MAX_CHARACTERS) return BSYNC_PROTO_BAD_COUNT;
    if (m->joint_count > BSYNC_PROTO_MAX_JOINTS) return BSYNC_PROTO_BAD_COUNT;
    if (m->joint_count > 0 && m->joint_character >= BSYNC_PROTO_MAX_CHARACTERS) return BSYNC_PROTO_BAD_VALUE;
    if (m->joint_count == 0 && m->joint_character != 0) return BSYNC_PROTO_BAD_VALUE;
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_desync(const bsync_proto_desync* m) {
    if (m->kind >= BSYNC_PROTO_DESYNC_KIND_COUNT || m->action >= BSYNC_PROTO_ACTION_COUNT)
        return BSYNC_PROTO_BAD_ENUM;
    int root = m->kind == BSYNC_PROTO_DESYNC_ROOT_BLEND || m->kind == BSYNC_PROTO_DESYNC_ROOT_POSE;
    if (root) {
        if (m->character != BSYNC_PROTO_NO_CHARACTER) return BSYNC_PROTO_BAD_VALUE;
    } else if (m->character >= BSYNC_PROTO_MAX_CHARACTERS) {
        return BSYNC_PROTO_BAD_VALUE;
    }
    if (m->kind == BSYNC_PROTO_DESYNC_JOINT) {
        if (m->part >= BSYNC_PROTO_MAX_JOINTS) return BSYNC_PROTO_BAD_VALUE;
    } else if (m->part != BSYNC_PROTO_NO_PART) {
        return BSYNC_PROTO_BAD_VALUE;
    }
    if (m->action == BSYNC_PROTO_ACTION_DETAIL && root) return BSYNC_PROTO_BAD_VALUE;
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_snapshot(const bsync_proto_snapshot* m) {
    if (m->kind >= BSYNC_PROTO_SNAPSHOT_KIND_COUNT) return BSYNC_PROTO_BAD_ENUM;
    if (m->total_size < 1 || m->total_size > BSYNC_PROTO_MAX_SNAPSHOT) return BSYNC_PROTO_BAD_LENGTH;
    uint32_t count = (m->total_size + BSYNC_PROTO_SNAPSHOT_CHUNK - 1u) / BSYNC_PROTO_SNAPSHOT_CHUNK;
    if (m->chunk_count != count || m->chunk_index >= count) return BSYNC_PROTO_BAD_COUNT;
    uint32_t want = m->chunk_index + 1u < count
                        ? BSYNC_PROTO_SNAPSHOT_CHUNK
                        : m->total_size - (count - 1u) * BSYNC_PROTO_SNAPSHOT_CHUNK;
    if (m->len != want) return BSYNC_PROTO_BAD_LENGTH;
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_bye(const bsync_proto_bye* m) {
    if (m->reason >= BSYNC_PROTO_BYE_REASON_COUNT) return BSYNC_PROTO_BAD_ENUM;
    if (m->version_min < 1 || m->version_min > m->version_max) return BSYNC_PROTO_BAD_VALUE;
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_end(const bsync_proto_end* m) {
    return m->reason >= BSYNC_PROTO_END_REASON_COUNT ? BSYNC_PROTO_BAD_ENUM : BSYNC_PROTO_OK;
}

static bsync_proto_result validate_auth_init(const bsync_proto_auth_init* m) {
    if (m->slot >= BSYNC_PROTO_MAX_PLAYERS) return BSYNC_PROTO_BAD_VALUE;
    if (m->mode < 1 || m->mode > 2) return BSYNC_PROTO_BAD_ENUM;
    return BSYNC_PROTO_OK;
}

static bsync_proto_result validate_start(const bsync_proto_start* m) {
    return m->deadline_in_us > BSYNC_PROTO_MAX_START_IN_US ? BSYNC_PROTO_BAD_VALUE : BSYNC_PROTO_OK;
}

static bsync_proto_result validate_as(const bsync_proto_msg* msg, uint32_t version) {
    if (msg->type != BSYNC_PROTO_BYE && (version < BSYNC_PROTO_VERSION_MIN || version > BSYNC_PROTO_VERSION))
        return BSYNC_PROTO_UNSUPPORTED_VERSION;
    switch (msg->type) {
    case BSYNC_PROTO_HELLO: return validate_hello(&msg->hello);
    case BSYNC_PROTO_WELCOME: return validate_welcome(&msg->welcome);
    case BSYNC_PROTO_INPUT: return validate_input(&msg->input, version);
    case BSYNC_PROTO_INPUT_ACK: return BSYNC_PROTO_OK;
    case BSYNC_PROTO_FRAME: return validate_frame(&msg->frame);
    case BSYNC_PROTO_CHECKSUM: return validate_checksum(&msg->checksum);
    case BSYNC_PROTO_DESYNC: return validate_desync(&msg->desync);
    case BSYNC_PROTO_SNAPSHOT: return validate_snapshot(&msg->snapshot);
    case BSYNC_PROTO_BYE: return validate_bye(&msg->bye);
    case BSYNC_PROTO_END: return validate_end(&msg->end);
    case BSYNC_PROTO_START: return validate_start(&msg->start);
    case BSYNC_PROTO_AUTH_INIT: return validate_auth_init(&msg->auth_init);
    case BSYNC_PROTO_AUTH_CHALLENGE:
        return msg->auth_challenge.mode >= 1 && msg->auth_challenge.mode <= 2 ? BSYNC_PROTO_OK : BSYNC_PROTO_BAD_ENUM;
    case BSYNC_PROTO_FRAMES: return version >= 7u ? validate_frames(&msg->frames) : BSYNC_PROTO_UNKNOWN_TYPE;
    default: return BSYNC_PROTO_UNKNOWN_TYPE;
    }
}

bsync_proto_result bsync_proto_validate(const bsync_proto_msg* msg) {
    if (!msg) return BSYNC_PROTO_INVALID_ARGUMENT;
    return validate_as(msg, msg->version ? msg->version : BSYNC_PROTO_VERSION_DEFAULT);
}

/* ---------------------------------------------------------------- encoding */

/* A frame's payload mask: the players with a payload that are on the wire. */
static uint32_t frame_payload_mask(const bsync_proto_frame* m) {
    const int changes = m->coding == BSYNC_PROTO_FRAME_CHANGES;
    uint32_t mask = 0;
    for (unsigned i = 0; i < m->player_count; i++)
        if (m->players[i].payload_len && (!changes || ((m->changed_mask >> i) & 1u))) mask |= 1u << i;
    return mask;
}

/* The players on the wire of a FULL or CHANGES frame (FRAME and FRAMES alike). */
static void put_frame_players(writer_* w, const bsync_proto_frame* m) {
    const int changes = m->coding == BSYNC_PROTO_FRAME_CHANGES;
    for (unsigned i = 0; i < m->player_count; i++) {
        const bsync_proto_frame_player* pl = &m->players[i];
        if (changes && !((m->changed_mask >> i) & 1u)) continue;
        for (unsigned p = 0; p < m->param_count; p++) put_varint(w, zigzag64(pl->params[p]));
        put_bytes(w, pl->triggers, m->trigger_count);
        if (pl->payload_len) {
            put_u16(w, pl->payload_len);
            put_bytes(w, pl->payload, pl->payload_len);
        }
    }
}

static void write_body(writer_* w, const bsync_proto_msg* msg, uint32_t version) {
    switch (msg->type) {
    case BSYNC_PROTO_HELLO: {
        const bsync_proto_hello* m = &msg->hello;
        put_u64(w, m->match_id);
        put_u64(w, m->graph_hash);
        put_u8(w, m->slot);
        put_u32(w, m->resume); /* version 5 */
        put_u8(w, m->token_len);
        put_bytes(w, m->token, m->token_len);
        break;
    }
    case BSYNC_PROTO_WELCOME: {
        const bsync_proto_welcome* m = &msg->welcome;
        put_u8(w, m->tick_rate);
        put_u8(w, m->input_delay);
        put_u8(w, m->player_count);
        put_u8(w, m->slot);
        put_u8(w, m->param_count);
        put_u8(w, m->trigger_count);
        put_u16(w, m->checksum_interval);
        put_u16(w, m->connected_mask);
        put_u32(w, m->start_tick);
        put_u32(w, m->snapshot_size);
        put_u16(w, m->snapshot_len);
        put_bytes(w, m->snapshot, m->snapshot_len);
        break;
    }
    case BSYNC_PROTO_INPUT: {
        const bsync_proto_input* m = &msg->input;
        unsigned payloads = 0;
        for (unsigned r = 0; r < m->record_count; r++) payloads |= m->records[r].payload_len != 0;
        if (version >= 7u) { /* slot, record count - 1 and the payload flag in one byte; the ticks as varints */
            put_u8(w, (uint32_t)m->slot | (uint32_t)(m->record_count - 1u) << 4 | (payloads ? 0x40u : 0u));
            put_u8(w, m->param_count);
            put_u8(w, m->trigger_count);
            put_varint(w, m->first_tick);
            put_varint(w, (uint64_t)(m->first_tick - m->frame_ack)); /* <= first_tick: validated */
        } else {
            put_u8(w, m->slot);
            put_u8(w, m->param_count);
            put_u8(w, m->trigger_count);
            put_u8(w, m->record_count | (payloads ? 0x80u : 0u));
            put_u32(w, m->first_tick);
        }
        for (unsigned r = 0; r < m->record_count; r++) {
            for (unsigned p = 0; p < m->param_count; p++) {
                int64_t v = m->records[r].params[p];
                put_varint(w, zigzag64(r == 0 ? v : v - (int64_t)m->records[r - 1].params[p]));
            }
            put_bytes(w, m->records[r].triggers, m->trigger_count);
            if (payloads) {
                put_u16(w, m->records[r].payload_len);
                put_bytes(w, m->records[r].payload, m->records[r].payload_len);
            }
        }
        break;
    }
    case BSYNC_PROTO_INPUT_ACK:
        put_u32(w, msg->input_ack.next_tick);
        put_u32(w, msg->input_ack.server_tick);
        break;
    case BSYNC_PROTO_FRAME: {
        const bsync_proto_frame* m = &msg->frame;
        const int changes = m->coding == BSYNC_PROTO_FRAME_CHANGES;
        const uint32_t payload_mask = frame_payload_mask(m);
        put_u32(w, m->tick);
        put_u8(w, m->player_count);
        put_u8(w, m->param_count);
        put_u8(w, m->trigger_count);
        put_u8(w, changes ? 1u : 0u);
        put_u16(w, m->defaulted_mask);
        put_u16(w, payload_mask);
        put_u8(w, m->input_ack); /* version 5 */
        if (changes) put_u16(w, m->changed_mask);
        put_frame_players(w, m);
        break;
    }
    case BSYNC_PROTO_FRAMES: {
        const bsync_proto_frames* m = &msg->frames;
        put_u32(w, m->first_tick);
        put_u8(w, m->count);
        put_u8(w, m->frames[0].player_count);
        put_u8(w, m->frames[0].param_count);
        put_u8(w, m->frames[0].trigger_count);
        put_u8(w, m->input_ack);
        for (unsigned i = 0; i < m->count; i++) {
            const bsync_proto_frame* f = &m->frames[i];
            const int changes = f->coding == BSYNC_PROTO_FRAME_CHANGES;
            if (i > 0) put_u8(w, changes ? 1u : 0u); /* frame 0 is FULL: no coding byte */
            put_u16(w, f->defaulted_mask);
            put_u16(w, frame_payload_mask(f));
            if (changes) put_u16(w, f->changed_mask);
            put_frame_players(w, f);
        }
        break;
    }
    case BSYNC_PROTO_CHECKSUM: {
        const bsync_proto_checksum* m = &msg->checksum;
        put_u32(w, m->tick);
        put_u64(w, m->blend);
        put_u64(w, m->pose);
        put_u8(w, m->character_count);
        put_u8(w, m->joint_count ? 1u : 0u);
        for (unsigned c = 0; c < m->character_count; c++) {
            put_u64(w, m->characters[c].blend);
            put_u64(w, m->characters[c].pose);
        }
        if (m->joint_count) {
            put_u8(w, m->joint_character);
            put_u16(w, m->joint_count);
            for (unsigned j = 0; j < m->joint_count; j++) put_u64(w, m->joints[j]);
        }
        break;
    }
    case BSYNC_PROTO_DESYNC: {
        const bsync_proto_desync* m = &msg->desync;
        put_u32(w, m->tick);
        put_u8(w, m->kind);
        put_u8(w, m->character);
        put_u16(w, m->part);
        put_u8(w, m->action);
        put_u8(w, 0);
        put_u64(w, m->expected);
        put_u64(w, m->got);
        break;
    }
    case BSYNC_PROTO_SNAPSHOT: {
        const bsync_proto_snapshot* m = &msg->snapshot;
        put_u32(w, m->tick);
        put_u8(w, m->kind);
        put_u8(w, 0);
        put_u16(w, m->chunk_index);
        put_u16(w, m->chunk_count);
        put_u32(w, m->total_size);
        put_u16(w, m->len);
        put_bytes(w, m->data, m->len);
        break;
    }
    case BSYNC_PROTO_BYE:
        put_u8(w, msg->bye.reason);
        put_u8(w, msg->bye.version_min);
        put_u8(w, msg->bye.version_max);
        put_u8(w, 0);
        break;
    case BSYNC_PROTO_END:
        put_u32(w, msg->end.ticks);
        put_u8(w, msg->end.reason);
        put_u8(w, 0);
        put_u16(w, 0);
        break;
    case BSYNC_PROTO_START:
        put_u32(w, msg->start.tick);
        put_u32(w, msg->start.deadline_in_us);
        if (version >= 7u) put_u32(w, msg->start.match_ticks);
        break;
    case BSYNC_PROTO_AUTH_INIT:
        put_u64(w, msg->auth_init.match_id);
        put_u8(w, msg->auth_init.slot);
        put_u8(w, msg->auth_init.mode);
        put_u16(w, 0);
        put_bytes(w, msg->auth_init.client_nonce, BSYNC_PROTO_AUTH_NONCE);
        break;
    case BSYNC_PROTO_AUTH_CHALLENGE:
        put_bytes(w, msg->auth_challenge.server_nonce, BSYNC_PROTO_AUTH_NONCE);
        put_u8(w, msg->auth_challenge.mode);
        put_u8(w, 0);
        put_u16(w, 0);
        break;
    }
}

bsync_proto_result bsync_proto_encode(const bsync_proto_msg* msg, uint8_t* buf, size_t cap, size_t* out_len) {
    if (!msg) return BSYNC_PROTO_INVALID_ARGUMENT;
    return bsync_proto_encode_as(msg, msg->version ? msg->version : BSYNC_PROTO_VERSION_DEFAULT, buf, cap, out_len);
}

bsync_proto_result bsync_proto_encode_as(const bsync_proto_msg* msg, uint32_t as, uint8_t* buf, size_t cap,
                                         size_t* out_len) {
    if (!msg || (!buf && !out_len)) return BSYNC_PROTO_INVALID_ARGUMENT;
    const uint32_t version = msg->type == BSYNC_PROTO_BYE && msg->bye.header_version != 0 ? msg->bye.header_version : as;
    TRY_(validate_as(msg, version));
    writer_ counter = {NULL, 0, 0};
    write_body(&counter, msg, version);
    size_t body = counter.pos;
    if (body > bsync_proto_max_body(msg->type)) return BSYNC_PROTO_TOO_LONG; /* FRAMES: too many frames */
    size_t total = BSYNC_PROTO_HEADER_SIZE + body;
    if (out_len) *out_len = total;
    if (!buf) return BSYNC_PROTO_OK;
    if (cap < total) return BSYNC_PROTO_BUFFER_TOO_SMALL;
    writer_ w = {buf, cap, 0};
    put_u8(&w, BSYNC_PROTO_MAGIC0);
    put_u8(&w, BSYNC_PROTO_MAGIC1);
    put_u8(&w, version);
    put_u8(&w, (uint32_t)msg->type);
    put_u16(&w, (uint32_t)body); /* body <= bsync_proto_max_body(type) < 65536 once validated */
    put_u16(&w, 0);
    write_body(&w, msg, version);
    return BSYNC_PROTO_OK;
}

/* ---------------------------------------------------------------- decoding */

bsync_proto_result bsync_proto_peek_header(const uint8_t* data, size_t len, bsync_proto_header* out) {
    if (!data || !out) return BSYNC_PROTO_INVALID_ARGUMENT;
    if (len >= 1 && data[0] != BSYNC_PROTO_MAGIC0) return BSYNC_PROTO_BAD_MAGIC;
    if (len >= 2 && data[1] != BSYNC_PROTO_MAGIC1) return BSYNC_PROTO_BAD_MAGIC;
    if (len < BSYNC_PROTO_HEADER_SIZE) return BSYNC_PROTO_TRUNCATED;
    out->version = data[2];
    out->type = data[3];
    out->body_len = (uint16_t)(data[4] | ((uint32_t)data[5] << 8));
    out->flags = (uint16_t)(data[6] | ((uint32_t)data[7] << 8));
    return BSYNC_PROTO_OK;
}

/* The masks and players of one frame after its tick and counts (FRAME and FRAMES alike). */
static bsync_proto_result get_frame_players(reader_* r, bsync_proto_frame* m, uint16_t payload_mask) {
    if (m->player_count < 16 &&
        (((uint32_t)m->defaulted_mask | payload_mask | m->changed_mask) >> m->player_count) != 0)
        return BSYNC_PROTO_RESERVED_NONZERO;
    if (payload_mask & ~(uint32_t)m->changed_mask) return BSYNC_PROTO_BAD_VALUE; /* a payload is a change */
    if (m->coding == BSYNC_PROTO_FRAME_CHANGES && m->changed_mask == (1u << m->player_count) - 1u)
        return BSYNC_PROTO_BAD_VALUE; /* every player changed: only FULL (canonical, shorter) */
    for (unsigned i = 0; i < m->player_count; i++) {
        bsync_proto_frame_player* pl = &m->players[i];
        if (!((m->changed_mask >> i) & 1u)) continue;
        for (unsigned p = 0; p < m->param_count; p++) TRY_(get_fx_abs(r, &pl->params[p]));
        TRY_(get_bytes(r, pl->triggers, m->trigger_count));
        if ((payload_mask >> i) & 1u) {
            TRY_(get_u16(r, &pl->payload_len));
            if (pl->payload_len < 1 || pl->payload_len > BSYNC_PROTO_MAX_PAYLOAD) return BSYNC_PROTO_BAD_LENGTH;
            TRY_(get_bytes(r, pl->payload, pl->payload_len));
        }
    }
    return BSYNC_PROTO_OK;
}

static bsync_proto_result read_body(reader_* r, bsync_proto_msg* msg, uint32_t version) {
    switch (msg->type) {
    case BSYNC_PROTO_HELLO: {
        bsync_proto_hello* m = &msg->hello;
        TRY_(get_u64(r, &m->match_id));
        TRY_(get_u64(r, &m->graph_hash));
        TRY_(get_u8(r, &m->slot));
        TRY_(get_u32(r, &m->resume)); /* version 5: any value */
        TRY_(get_u8(r, &m->token_len));
        if (m->token_len < 1 || m->token_len > BSYNC_PROTO_MAX_TOKEN) return BSYNC_PROTO_BAD_LENGTH;
        return get_bytes(r, m->token, m->token_len);
    }
    case BSYNC_PROTO_WELCOME: {
        bsync_proto_welcome* m = &msg->welcome;
        TRY_(get_u8(r, &m->tick_rate));
        TRY_(get_u8(r, &m->input_delay));
        TRY_(get_u8(r, &m->player_count));
        TRY_(get_u8(r, &m->slot));
        TRY_(get_u8(r, &m->param_count));
        TRY_(get_u8(r, &m->trigger_count));
        TRY_(get_u16(r, &m->checksum_interval));
        TRY_(get_u16(r, &m->connected_mask));
        TRY_(get_u32(r, &m->start_tick));
        TRY_(get_u32(r, &m->snapshot_size));
        TRY_(get_u16(r, &m->snapshot_len));
        if (m->snapshot_len > BSYNC_PROTO_SNAPSHOT_CHUNK) return BSYNC_PROTO_BAD_LENGTH;
        return get_bytes(r, m->snapshot, m->snapshot_len);
    }
    case BSYNC_PROTO_INPUT: {
        bsync_proto_input* m = &msg->input;
        unsigned payloads;
        if (version >= 7u) {
            uint8_t packed;
            TRY_(get_u8(r, &packed));
            if (packed & 0x80u) return BSYNC_PROTO_RESERVED_NONZERO;
            m->slot = packed & 0x0Fu;
            m->record_count = (uint8_t)(((packed >> 4) & 3u) + 1u);
            payloads = (packed & 0x40u) != 0;
            TRY_(get_u8(r, &m->param_count));
            TRY_(get_u8(r, &m->trigger_count));
            if (m->param_count > BSYNC_PROTO_MAX_PARAMS || m->trigger_count > BSYNC_PROTO_MAX_TRIGGERS)
                return BSYNC_PROTO_BAD_COUNT;
            uint64_t first, lag;
            TRY_(get_varint(r, &first));
            if (first > UINT32_MAX) return BSYNC_PROTO_BAD_VALUE;
            m->first_tick = (uint32_t)first;
            TRY_(get_varint(r, &lag));
            if (lag > m->first_tick) return BSYNC_PROTO_BAD_VALUE;
            m->frame_ack = m->first_tick - (uint32_t)lag;
        } else {
            TRY_(get_u8(r, &m->slot));
            TRY_(get_u8(r, &m->param_count));
            TRY_(get_u8(r, &m->trigger_count));
            TRY_(get_u8(r, &m->record_count));
            payloads = (m->record_count & 0x80u) != 0;
            m->record_count &= 0x7Fu;
            if (m->param_count > BSYNC_PROTO_MAX_PARAMS || m->trigger_count > BSYNC_PROTO_MAX_TRIGGERS ||
                m->record_count < 1 || m->record_count > BSYNC_PROTO_MAX_INPUT_RECORDS)
                return BSYNC_PROTO_BAD_COUNT;
            TRY_(get_u32(r, &m->first_tick));
        }
        unsigned any = 0;
        for (unsigned i = 0; i < m->record_count; i++) {
            for (unsigned p = 0; p < m->param_count; p++) {
                if (i == 0) TRY_(get_fx_abs(r, &m->records[0].params[p]));
                else TRY_(get_fx_delta(r, m->records[i - 1].params[p], &m->records[i].params[p]));
            }
            TRY_(get_bytes(r, m->records[i].triggers, m->trigger_count));
            if (payloads) {
                TRY_(get_u16(r, &m->records[i].payload_len));
                if (m->records[i].payload_len > BSYNC_PROTO_MAX_PAYLOAD) return BSYNC_PROTO_BAD_LENGTH;
                TRY_(get_bytes(r, m->records[i].payload, m->records[i].payload_len));
                any |= m->records[i].payload_len != 0;
            }
        }
        /* canonical: the flag is set exactly when some record carries a payload */
        if (payloads && !any) return BSYNC_PROTO_RESERVED_NONZERO;
        return BSYNC_PROTO_OK;
    }
    case BSYNC_PROTO_INPUT_ACK:
        TRY_(get_u32(r, &msg->input_ack.next_tick));
        return get_u32(r, &msg->input_ack.server_tick);
    case BSYNC_PROTO_FRAME: {
        bsync_proto_frame* m = &msg->frame;
        uint8_t reserved;
        uint16_t payload_mask;
        TRY_(get_u32(r, &m->tick));
        TRY_(get_u8(r, &m->player_count));
        TRY_(get_u8(r, &m->param_count));
        TRY_(get_u8(r, &m->trigger_count));
        if (m->player_count < 1 || m->player_count > BSYNC_PROTO_MAX_PLAYERS ||
            m->param_count > BSYNC_PROTO_MAX_PARAMS || m->trigger_count > BSYNC_PROTO_MAX_TRIGGERS)
            return BSYNC_PROTO_BAD_COUNT;
        TRY_(get_u8(r, &reserved)); /* the coding (version 4) */
        if (reserved > BSYNC_PROTO_FRAME_CHANGES) return BSYNC_PROTO_BAD_ENUM;
        m->coding = reserved;
        TRY_(get_u16(r, &m->defaulted_mask));
        TRY_(get_u16(r, &payload_mask));
        TRY_(get_u8(r, &m->input_ack)); /* version 5: any value */
        m->changed_mask = (uint16_t)((1u << m->player_count) - 1u);
        if (m->coding == BSYNC_PROTO_FRAME_CHANGES) TRY_(get_u16(r, &m->changed_mask));
        return get_frame_players(r, m, payload_mask);
    }
    case BSYNC_PROTO_FRAMES: {
        bsync_proto_frames* m = &msg->frames;
        uint8_t n, p, g;
        if (version < 7u) return BSYNC_PROTO_UNKNOWN_TYPE;
        TRY_(get_u32(r, &m->first_tick));
        TRY_(get_u8(r, &m->count));
        TRY_(get_u8(r, &n));
        TRY_(get_u8(r, &p));
        TRY_(get_u8(r, &g));
        if (m->count < 1 || m->count > BSYNC_PROTO_MAX_FRAMES || n < 1 || n > BSYNC_PROTO_MAX_PLAYERS ||
            p > BSYNC_PROTO_MAX_PARAMS || g > BSYNC_PROTO_MAX_TRIGGERS)
            return BSYNC_PROTO_BAD_COUNT;
        if ((uint64_t)m->first_tick + m->count - 1u > UINT32_MAX) return BSYNC_PROTO_BAD_VALUE;
        TRY_(get_u8(r, &m->input_ack));
        for (unsigned i = 0; i < m->count; i++) {
            bsync_proto_frame* f = &m->frames[i];
            uint16_t payload_mask;
            f->tick = m->first_tick + i;
            f->player_count = n;
            f->param_count = p;
            f->trigger_count = g;
            f->input_ack = (uint8_t)(m->count - 1u - i + m->input_ack > 255u ? 255u : m->count - 1u - i + m->input_ack);
            f->coding = BSYNC_PROTO_FRAME_FULL;
            if (i > 0) {
                TRY_(get_u8(r, &f->coding));
                if (f->coding > BSYNC_PROTO_FRAME_CHANGES) return BSYNC_PROTO_BAD_ENUM;
            }
            TRY_(get_u16(r, &f->defaulted_mask));
            TRY_(get_u16(r, &payload_mask));
            f->changed_mask = (uint16_t)((1u << n) - 1u);
            if (f->coding == BSYNC_PROTO_FRAME_CHANGES) TRY_(get_u16(r, &f->changed_mask));
            TRY_(get_frame_players(r, f, payload_mask));
        }
        return BSYNC_PROTO_OK;
    }
    case BSYNC_PROTO_CHECKSUM: {
        bsync_proto_checksum* m = &msg->checksum;
        uint8_t flags;
        TRY_(get_u32(r, &m->tick));
        TRY_(get_u64(r, &m->blend));
        TRY_(get_u64(r, &m->pose));
        TRY_(get_u8(r, &m->character_count));
        if (m->character_count > BSYNC_PROTO_MAX_CHARACTERS) return BSYNC_PROTO_BAD_COUNT;
        TRY_(get_u8(r, &flags));
        if (flags & ~1u) return BSYNC_PROTO_RESERVED_NONZERO;
        for (unsigned c = 0; c < m->character_count; c++) {
            TRY_(get_u64(r, &m->characters[c].blend));
            TRY_(get_u64(r, &m->characters[c].pose));
        }
        if (flags & 1u) {
            TRY_(get_u8(r, &m->joint_character));
            TRY_(get_u16(r, &m->joint_count));
            if (m->joint_count < 1 || m->joint_count > BSYNC_PROTO_MAX_JOINTS) return BSYNC_PROTO_BAD_COUNT;
            for (unsigned j = 0; j < m->joint_count; j++) TRY_(get_u64(r, &m->joints[j]));
        }
        return BSYNC_PROTO_OK;
    }
    case BSYNC_PROTO_DESYNC: {
        bsync_proto_desync* m = &msg->desync;
        uint8_t reserved;
        TRY_(get_u32(r, &m->tick));
        TRY_(get_u8(r, &m->kind));
        TRY_(get_u8(r, &m->character));
        TRY_(get_u16(r, &m->part));
        TRY_(get_u8(r, &m->action));
        TRY_(get_u8(r, &reserved));
        if (reserved) return BSYNC_PROTO_RESERVED_NONZERO;
        TRY_(get_u64(r, &m->expected));
        return get_u64(r, &m->got);
    }
    case BSYNC_PROTO_SNAPSHOT: {
        bsync_proto_snapshot* m = &msg->snapshot;
        uint8_t reserved;
        TRY_(get_u32(r, &m->tick));
        TRY_(get_u8(r, &m->kind));
        TRY_(get_u8(r, &reserved));
        if (reserved) return BSYNC_PROTO_RESERVED_NONZERO;
        TRY_(get_u16(r, &m->chunk_index));
        TRY_(get_u16(r, &m->chunk_count));
        TRY_(get_u32(r, &m->total_size));
        TRY_(get_u16(r, &m->len));
        if (m->len > BSYNC_PROTO_SNAPSHOT_CHUNK) return BSYNC_PROTO_BAD_LENGTH;
        return get_bytes(r, m->data, m->len);
    }
    case BSYNC_PROTO_BYE: {
        uint8_t reserved;
        TRY_(get_u8(r, &msg->bye.reason));
        TRY_(get_u8(r, &msg->bye.version_min));
        TRY_(get_u8(r, &msg->bye.version_max));
        TRY_(get_u8(r, &reserved));
        if (reserved) return BSYNC_PROTO_RESERVED_NONZERO;
        return BSYNC_PROTO_OK;
    }
    case BSYNC_PROTO_END: {
        uint8_t r8;
        uint16_t r16;
        TRY_(get_u32(r, &msg->end.ticks));
        TRY_(get_u8(r, &msg->end.reason));
        TRY_(get_u8(r, &r8));
        TRY_(get_u16(r, &r16));
        if (r8 || r16) return BSYNC_PROTO_RESERVED_NONZERO;
        return BSYNC_PROTO_OK;
    }
    case BSYNC_PROTO_START:
        TRY_(get_u32(r, &msg->start.tick));
        TRY_(get_u32(r, &msg->start.deadline_in_us));
        return version >= 7u ? get_u32(r, &msg->start.match_ticks) : BSYNC_PROTO_OK;
    case BSYNC_PROTO_AUTH_INIT: {
        uint16_t r16;
        TRY_(get_u64(r, &msg->auth_init.match_id));
        TRY_(get_u8(r, &msg->auth_init.slot));
        TRY_(get_u8(r, &msg->auth_init.mode));
        TRY_(get_u16(r, &r16));
        if (r16) return BSYNC_PROTO_RESERVED_NONZERO;
        return get_bytes(r, msg->auth_init.client_nonce, BSYNC_PROTO_AUTH_NONCE);
    }
    case BSYNC_PROTO_AUTH_CHALLENGE: {
        uint8_t r8;
        uint16_t r16;
        TRY_(get_bytes(r, msg->auth_challenge.server_nonce, BSYNC_PROTO_AUTH_NONCE));
        TRY_(get_u8(r, &msg->auth_challenge.mode));
        TRY_(get_u8(r, &r8));
        TRY_(get_u16(r, &r16));
        if (r8 || r16) return BSYNC_PROTO_RESERVED_NONZERO;
        return BSYNC_PROTO_OK;
    }
    }
    return BSYNC_PROTO_UNKNOWN_TYPE;
}

bsync_proto_result bsync_proto_decode(const uint8_t* data, size_t len, bsync_proto_msg* out) {
    if (!data || !out) return BSYNC_PROTO_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    bsync_proto_header h;
    TRY_(bsync_proto_peek_header(data, len, &h));
    if ((h.version < BSYNC_PROTO_VERSION_MIN || h.version > BSYNC_PROTO_VERSION) &&
        !(h.type == BSYNC_PROTO_BYE && h.version >= 1))
        return BSYNC_PROTO_UNSUPPORTED_VERSION;
    if (h.type < BSYNC_PROTO_TYPE_FIRST || h.type > BSYNC_PROTO_TYPE_LAST) return BSYNC_PROTO_UNKNOWN_TYPE;
    if (h.flags != 0) return BSYNC_PROTO_RESERVED_NONZERO;
    if (h.body_len > bsync_proto_max_body(h.type)) return BSYNC_PROTO_TOO_LONG;
    size_t body_avail = len - BSYNC_PROTO_HEADER_SIZE;
    if (body_avail < h.body_len) return BSYNC_PROTO_TRUNCATED;
    if (body_avail > h.body_len) return BSYNC_PROTO_TRAILING_BYTES;
    out->type = (bsync_proto_type)h.type;
    reader_ r = {data + BSYNC_PROTO_HEADER_SIZE, h.body_len, 0};
    out->version = h.version;
    TRY_(read_body(&r, out, h.version));
    if (r.pos != r.len) return BSYNC_PROTO_TRAILING_BYTES;
    if (out->type == BSYNC_PROTO_BYE) out->bye.header_version = h.version;
    return bsync_proto_validate(out);
}

/* ---------------------------------------------------------------- frame codings */

static int same_layout(const bsync_proto_frame* f, const bsync_proto_frame* prev) {
    return prev && prev->tick + 1u == f->tick && f->tick != 0 && prev->player_count == f->player_count &&
           prev->param_count == f->param_count && prev->trigger_count == f->trigger_count;
}

int bsync_proto_frame_changes(bsync_proto_frame* f, const bsync_proto_frame* prev) {
    if (!f) return -1;
    f->coding = BSYNC_PROTO_FRAME_FULL;
    f->changed_mask = 0;
    if (!same_layout(f, prev) || f->player_count > BSYNC_PROTO_MAX_PLAYERS || f->param_count > BSYNC_PROTO_MAX_PARAMS ||
        f->trigger_count > BSYNC_PROTO_MAX_TRIGGERS)
        return -1;
    uint32_t changed = 0;
    for (unsigned i = 0; i < f->player_count; i++) {
        const bsync_proto_frame_player* a = &f->players[i];
        const bsync_proto_frame_player* b = &prev->players[i];
        int c = a->payload_len != 0 || memcmp(a->params, b->params, f->param_count * sizeof a->params[0]) != 0 ||
                memcmp(a->triggers, b->triggers, f->trigger_count) != 0;
        if (c) changed |= 1u << i;
    }
    if (changed == (1u << f->player_count) - 1u) return 0; /* everyone changed: FULL is 2 bytes shorter */
    f->coding = BSYNC_PROTO_FRAME_CHANGES;
    f->changed_mask = (uint16_t)changed;
    return 0;
}

int bsync_proto_frame_expand(bsync_proto_frame* f, const bsync_proto_frame* prev) {
    if (!f) return -1;
    if (f->coding != BSYNC_PROTO_FRAME_CHANGES) return 0;
    if (!same_layout(f, prev) || f->player_count > BSYNC_PROTO_MAX_PLAYERS) return -1;
    for (unsigned i = 0; i < f->player_count; i++) {
        if ((f->changed_mask >> i) & 1u) continue;
        bsync_proto_frame_player* pl = &f->players[i];
        memcpy(pl->params, prev->players[i].params, sizeof pl->params);
        memcpy(pl->triggers, prev->players[i].triggers, sizeof pl->triggers);
        pl->payload_len = 0;
    }
    f->coding = BSYNC_PROTO_FRAME_FULL;
    f->changed_mask = (uint16_t)((1u << f->player_count) - 1u);
    return 0;
}

