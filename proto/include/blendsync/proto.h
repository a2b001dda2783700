/* blendsync/proto.h — the lockstep wire protocol: messages, binary encoding, validation, channels
 * and limits. No sockets, no allocation, no floats; canonical (encode(decode(p)) == p).
 *
 * Index
 *   BSYNC_PROTO_*                 version, header, hard limits, channels, per-peer caps
 *   bsync_proto_result            why a message was rejected (stable ids, one string each)
 *   bsync_proto_type              the message types
 *   bsync_proto_hello ... _bye    one plain struct per message; bsync_proto_msg is the tagged union
 *   bsync_proto_encode            message -> bytes in a caller buffer (size query with buf NULL)
 *   bsync_proto_decode            bytes -> message, every field validated
 *   bsync_proto_validate          the semantic rules alone (the encoder and decoder both apply them)
 *   bsync_proto_frame_changes / _frame_expand   FRAME's CHANGES coding, both directions
 *   bsync_proto_peek_header       the header alone (version of a peer we cannot decode)
 *   bsync_proto_max_body          hard maximum body size of a type
 *   bsync_proto_channel / _reliable   the ENet channel and reliability of a type
 *   *_string                      stable text of results, types, bye reasons, desync kinds/actions
 *
 * design: docs/protocol.md (every message byte by byte, versioning, channels, limits, the calls)
 */
#ifndef BLENDSYNC_PROTO_H
#define BLENDSYNC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- constants */
#define BSYNC_PROTO_MAGIC0 0x42u /* 'B' */
#define BSYNC_PROTO_MAGIC1 0x53u /* 'S' */
#define BSYNC_PROTO_VERSION 7u /* history: docs/protocol.md#versioning */
#define BSYNC_PROTO_VERSION_MIN 6u /* oldest version this build decodes */
/* What a message with version 0 is encoded as: 6, so raw ENet clients written for version 6 (the load
 * generator, the network tests) keep speaking it; the client library and the server choose 7. */
#define BSYNC_PROTO_VERSION_DEFAULT 6u
#define BSYNC_PROTO_HEADER_SIZE 8u

/* Hard limits (a decoder rejects anything beyond them). */
#define BSYNC_PROTO_MAX_PLAYERS 16u        /* slots per match (masks are u16) */
#define BSYNC_PROTO_MAX_PARAMS 64u         /* parameter targets per player per tick */
#define BSYNC_PROTO_MAX_TRIGGERS 16u       /* trigger values (u8) per player per tick */
#define BSYNC_PROTO_INPUT_REDUNDANCY 3u    /* earlier unacked ticks repeated in an input packet */
#define BSYNC_PROTO_MAX_INPUT_RECORDS 4u   /* 1 new tick + BSYNC_PROTO_INPUT_REDUNDANCY */
#define BSYNC_PROTO_MAX_FRAMES 8u          /* version 7: confirmed frames in one FRAMES packet */
#define BSYNC_PROTO_MAX_PAYLOAD 256u       /* opaque game payload per player per frame */
#define BSYNC_PROTO_MAX_TOKEN 32u          /* bytes of a connect token (1..32) */
#define BSYNC_PROTO_MAX_CHARACTERS 64u     /* per-character checksums in one CHECKSUM */
#define BSYNC_PROTO_MAX_JOINTS 1024u       /* per-joint checksums in one CHECKSUM (= BSYNC_MAX_JOINTS) */
#define BSYNC_PROTO_SNAPSHOT_CHUNK 1024u   /* bytes per snapshot chunk (every chunk but the last is full) */
#define BSYNC_PROTO_MAX_SNAPSHOT (1024u * 1024u) /* bytes of one whole snapshot (1024 chunks) */
#define BSYNC_PROTO_MAX_TRAIL (16u * 1024u)      /* bytes of a TRAIL upload */
#define BSYNC_PROTO_MIN_TICK_RATE 15u
#define BSYNC_PROTO_MAX_TICK_RATE 60u
#define BSYNC_PROTO_MAX_INPUT_DELAY 30u    /* ticks */
#define BSYNC_PROTO_MAX_CHECKSUM_INTERVAL 3600u /* ticks (1..3600; never 0: checks stay on) */
#define BSYNC_PROTO_VARINT_MAX 5u
#define BSYNC_PROTO_NO_CHARACTER 0xFFu     /* desync.character when not applicable */
#define BSYNC_PROTO_NO_PART 0xFFFFu        /* desync.part when not applicable */

/* Hard maximum body sizes per type (bytes after the header). */
#define BSYNC_PROTO_MAX_BODY_HELLO (22u + BSYNC_PROTO_MAX_TOKEN)                          /* 54 */
#define BSYNC_PROTO_MAX_BODY_WELCOME (20u + BSYNC_PROTO_SNAPSHOT_CHUNK)                   /* 1044 */
#define BSYNC_PROTO_MAX_BODY_INPUT                                                          \
    (8u + BSYNC_PROTO_VARINT_MAX + BSYNC_PROTO_MAX_INPUT_RECORDS *                           \
              (BSYNC_PROTO_MAX_PARAMS * 5u + BSYNC_PROTO_MAX_TRIGGERS + 2u + BSYNC_PROTO_MAX_PAYLOAD)) /* 2389 */
#define BSYNC_PROTO_MAX_BODY_INPUT_ACK 8u
#define BSYNC_PROTO_MAX_BODY_FRAME \
    (13u + BSYNC_PROTO_MAX_PLAYERS *  \
               (BSYNC_PROTO_MAX_PARAMS * 5u + BSYNC_PROTO_MAX_TRIGGERS + 2u + BSYNC_PROTO_MAX_PAYLOAD)) /* 9517 */
#define BSYNC_PROTO_MAX_BODY_CHECKSUM \
    (22u + BSYNC_PROTO_MAX_CHARACTERS * 16u + 3u + BSYNC_PROTO_MAX_JOINTS * 8u)       /* 9241 */
#define BSYNC_PROTO_MAX_BODY_DESYNC 26u
#define BSYNC_PROTO_MAX_BODY_SNAPSHOT (16u + BSYNC_PROTO_SNAPSHOT_CHUNK)                 /* 1040 */
#define BSYNC_PROTO_MAX_BODY_BYE 4u
#define BSYNC_PROTO_MAX_BODY_END 8u
#define BSYNC_PROTO_MAX_BODY_START 12u /* 8 before version 7 */
#define BSYNC_PROTO_MAX_BODY_FRAMES BSYNC_PROTO_MAX_BODY_FRAME /* 9517: one largest frame fits */
#define BSYNC_PROTO_MAX_BODY_AUTH_INIT 44u
#define BSYNC_PROTO_MAX_BODY_AUTH_CHALLENGE 36u
#define BSYNC_PROTO_AUTH_NONCE 32u /* = BSYNC_SESSION_NONCE_BYTES (net/session.h) */
#define BSYNC_PROTO_MAX_START_IN_US 10000000u /* START.deadline_in_us: at most 10 s ahead */
#define BSYNC_PROTO_MAX_PACKET (BSYNC_PROTO_HEADER_SIZE + BSYNC_PROTO_MAX_BODY_FRAME)   /* 9525 */

/* ENet setup (server and client): channels, packet and buffer limits, timeouts. */
#define BSYNC_PROTO_CHANNEL_CONTROL 0u  /* reliable: HELLO, WELCOME, BYE */
#define BSYNC_PROTO_CHANNEL_INPUT 1u    /* unreliable sequenced: INPUT, INPUT_ACK, FRAMES (version 7) */
#define BSYNC_PROTO_CHANNEL_FRAME 2u    /* reliable: FRAME, START, END (ordered with the frames) */
#define BSYNC_PROTO_CHANNEL_CHECK 3u    /* reliable: CHECKSUM, DESYNC */
#define BSYNC_PROTO_CHANNEL_BULK 4u     /* reliable: SNAPSHOT (so chunks never delay frames) */
#define BSYNC_PROTO_CHANNEL_COUNT 5u
#define BSYNC_PROTO_ENET_MAX_PACKET 16384u       /* host->maximumPacketSize (>= BSYNC_PROTO_MAX_PACKET) */
#define BSYNC_PROTO_ENET_MAX_WAITING_DATA 65536u /* host->maximumWaitingData (ENet default: 32 MB) */
#define BSYNC_PROTO_SOCKET_BUFFER (8u << 20)     /* SO_RCVBUF / SO_SNDBUF asked for (the kernel caps it) */
#define BSYNC_PROTO_PEER_TIMEOUT_MS 5000u        /* enet_peer_timeout(limit 32, min 2000, max 5000) */
/* Linear retransmission bounds (bsync_net_host_retransmit_linear). */
#define BSYNC_PROTO_RETRANSMIT_MIN_MS 40u
#define BSYNC_PROTO_RETRANSMIT_MAX_MS 1000u
/* Per-peer caps the server enforces on what a client sends (over a sliding 1 s window). */
#define BSYNC_PROTO_PEER_MAX_PACKETS_PER_TICK 4u /* INPUT packets per tick of the match (average) */
#define BSYNC_PROTO_PEER_MAX_BYTES_PER_SEC 32768u /* all channels; a requested desync dump is paced to fit */
#define BSYNC_PROTO_PEER_MAX_INPUT_LEAD 32u      /* inputs beyond current tick + delay + this: dropped */
#define BSYNC_PROTO_PEER_MAX_VIOLATIONS 32u      /* dropped packets per 10 s before BYE ABUSE */
#define BSYNC_PROTO_MAX_CONNECTS_PER_SEC 8u      /* new connections per source address (BYE RATE_LIMITED) */
#define BSYNC_PROTO_HELLO_TIMEOUT_MS 5000u       /* a connection without HELLO this long: BYE TIMEOUT */
#define BSYNC_PROTO_ENET_ACCEPT_PACKET 65536u    /* server: larger packets arrive, get BYE PROTOCOL_ERROR */

/* ---------------------------------------------------------------- results */
#define BSYNC_PROTO_RESULTS(X)                                                                  \
    X(OK, "ok")                                                                                 \
    X(INVALID_ARGUMENT, "invalid argument (null pointer)")                                      \
    X(BUFFER_TOO_SMALL, "output buffer too small (query the size first)")                      \
    X(TRUNCATED, "packet ends before the message does")                                         \
    X(BAD_MAGIC, "not a blendsync packet (magic is not 'BS')")                                  \
    X(UNSUPPORTED_VERSION, "protocol version not supported by this peer")                       \
    X(UNKNOWN_TYPE, "unknown message type")                                                     \
    X(TOO_LONG, "body longer than the maximum for its message type")                           \
    X(TRAILING_BYTES, "bytes left over after the message")                                      \
    X(RESERVED_NONZERO, "a reserved byte or bit is not zero")                                   \
    X(BAD_COUNT, "a count exceeds its maximum or disagrees with another field")                 \
    X(BAD_LENGTH, "a length field is out of range or disagrees with the data")                  \
    X(BAD_ENUM, "an enumerated field is out of range")                                          \
    X(BAD_VARINT, "a varint is longer than 5 bytes, not minimal, or >= 2^34")                 \
    X(BAD_VALUE, "a field value is out of its documented range")

typedef enum bsync_proto_result {
#define BSYNC_PROTO_RESULT_ENUM_(id, text) BSYNC_PROTO_##id,
    BSYNC_PROTO_RESULTS(BSYNC_PROTO_RESULT_ENUM_)
#undef BSYNC_PROTO_RESULT_ENUM_
    BSYNC_PROTO_RESULT_COUNT
} bsync_proto_result;

/* Never null. */
BSYNC_API const char* bsync_proto_result_string(bsync_proto_result r);

/* ---------------------------------------------------------------- types and enums */
typedef enum bsync_proto_type {
    BSYNC_PROTO_HELLO = 1,     /* client -> server */
    BSYNC_PROTO_WELCOME = 2,   /* server -> client */
    BSYNC_PROTO_INPUT = 3,     /* client -> server */
    BSYNC_PROTO_INPUT_ACK = 4, /* server -> client */
    BSYNC_PROTO_FRAME = 5,     /* server -> clients */
    BSYNC_PROTO_CHECKSUM = 6,  /* client -> server */
    BSYNC_PROTO_DESYNC = 7,    /* server -> client */
    BSYNC_PROTO_SNAPSHOT = 8,  /* server -> client (join, resync); client -> server (desync dump) */
    BSYNC_PROTO_BYE = 9,       /* either way */
    BSYNC_PROTO_END = 10,      /* server -> client */
    BSYNC_PROTO_START = 11,    /* server -> client */
    BSYNC_PROTO_AUTH_INIT = 12,     /* client -> server */
    BSYNC_PROTO_AUTH_CHALLENGE = 13, /* server -> client */
    BSYNC_PROTO_FRAMES = 14          /* server -> client, version 7 */
} bsync_proto_type;
#define BSYNC_PROTO_TYPE_FIRST 1u
#define BSYNC_PROTO_TYPE_LAST 14u

#define BSYNC_PROTO_BYE_REASONS(X)                                            \
    X(NORMAL, "normal disconnect")                                            \
    X(VERSION_MISMATCH, "protocol version mismatch")                          \
    X(UNKNOWN_MATCH, "no such match")                                         \
    X(BAD_TOKEN, "token does not match the slot")                             \
    X(BAD_SLOT, "no such player slot")                                        \
    X(SLOT_TAKEN, "slot already connected")                                   \
    X(GRAPH_MISMATCH, "graph hash differs from the server's")                 \
    X(MATCH_OVER, "match has ended")                                          \
    X(KICKED_DESYNC, "kicked after a desync")                                 \
    X(ABUSE, "too many malformed, stale or excess packets")                   \
    X(TIMEOUT, "peer timed out")                                              \
    X(SHUTDOWN, "server shutting down")                                       \
    X(PROTOCOL_ERROR, "unexpected message for the connection state")          \
    X(RATE_LIMITED, "too many new connections from this address (version 3)") \
    X(OVERLOADED, "server overloaded: no new matches now (version 5)")       \
    X(AUTH_REQUIRED, "this slot needs an authenticated session (version 6)") \
    X(AUTH_FAILED, "authentication failed: wrong secret, or tampered or replayed packets (version 6)")

typedef enum bsync_proto_bye_reason {
#define BSYNC_PROTO_BYE_ENUM_(id, text) BSYNC_PROTO_BYE_##id,
    BSYNC_PROTO_BYE_REASONS(BSYNC_PROTO_BYE_ENUM_)
#undef BSYNC_PROTO_BYE_ENUM_
    BSYNC_PROTO_BYE_REASON_COUNT
} bsync_proto_bye_reason;

typedef enum bsync_proto_desync_kind {
    BSYNC_PROTO_DESYNC_ROOT_BLEND = 0,      /* match blend-state checksum */
    BSYNC_PROTO_DESYNC_ROOT_POSE = 1,       /* match pose checksum */
    BSYNC_PROTO_DESYNC_CHARACTER_BLEND = 2, /* one character's blend state */
    BSYNC_PROTO_DESYNC_CHARACTER_POSE = 3,  /* one character's pose */
    BSYNC_PROTO_DESYNC_JOINT = 4,           /* one joint of one character's pose */
    BSYNC_PROTO_DESYNC_KIND_COUNT
} bsync_proto_desync_kind;

typedef enum bsync_proto_desync_action {
    BSYNC_PROTO_ACTION_REPORT = 0, /* flagged, the match continues */
    BSYNC_PROTO_ACTION_RESYNC = 1, /* a SNAPSHOT (kind RESYNC) follows; reload and continue */
    BSYNC_PROTO_ACTION_KICK = 2,   /* a BYE KICKED_DESYNC follows */
    BSYNC_PROTO_ACTION_DETAIL = 3, /* send a CHECKSUM of that tick with the character's joints */
    BSYNC_PROTO_ACTION_COUNT
} bsync_proto_desync_action;

typedef enum bsync_proto_snapshot_kind {
    BSYNC_PROTO_SNAPSHOT_JOIN = 0,   /* late join / reconnect (chunk 0 travels in the WELCOME) */
    BSYNC_PROTO_SNAPSHOT_RESYNC = 1, /* authoritative state after a desync */
    BSYNC_PROTO_SNAPSHOT_DUMP = 2,   /* client -> server: its own state at a desynced tick */
    BSYNC_PROTO_SNAPSHOT_TRAIL = 3,  /* client -> server, before its DUMP (io/trail.h) */
    BSYNC_PROTO_SNAPSHOT_KIND_COUNT
} bsync_proto_snapshot_kind;

BSYNC_API const char* bsync_proto_type_string(uint32_t type);          /* "hello", ...; "unknown" */
BSYNC_API const char* bsync_proto_bye_reason_string(uint32_t reason);  /* "unknown bye reason" outside */
BSYNC_API const char* bsync_proto_desync_kind_string(uint32_t kind);   /* "unknown" outside */
BSYNC_API const char* bsync_proto_action_string(uint32_t action);      /* "unknown" outside */

/* ---------------------------------------------------------------- messages (field rules: docs/protocol.md) */

typedef struct bsync_proto_hello {
    uint64_t match_id;
    uint64_t graph_hash;  /* bsync_graph_hash of the match's graphs (combined by the server config) */
    uint8_t slot;         /* < BSYNC_PROTO_MAX_PLAYERS */
    uint32_t resume;      /* 0 = a join; R + 1 = a reconnect asking for the frames from tick R */
    uint8_t token_len;    /* 1..BSYNC_PROTO_MAX_TOKEN */
    uint8_t token[BSYNC_PROTO_MAX_TOKEN];
} bsync_proto_hello;

typedef struct bsync_proto_welcome {
    uint8_t tick_rate;          /* 15..60 Hz */
    uint8_t input_delay;        /* 0..30 ticks */
    uint8_t player_count;       /* 1..16 */
    uint8_t slot;               /* the receiver's slot, < player_count */
    uint8_t param_count;        /* 0..64: the match's input layout, same for every slot */
    uint8_t trigger_count;      /* 0..16 */
    uint16_t checksum_interval; /* 1..3600 ticks */
    uint16_t connected_mask;    /* bit i = slot i connected; bits >= player_count zero; own bit set */
    uint32_t start_tick;        /* first tick to simulate (the snapshot's tick for a late joiner) */
    uint32_t snapshot_size;     /* 0 = fresh start; else total snapshot bytes (<= MAX_SNAPSHOT) */
    uint16_t snapshot_len;      /* bytes of chunk 0 here: min(snapshot_size, SNAPSHOT_CHUNK) */
    uint8_t snapshot[BSYNC_PROTO_SNAPSHOT_CHUNK]; /* opaque (bsync_instance snapshots, server's layout) */
} bsync_proto_welcome;

typedef struct bsync_proto_input_record {
    fix16_t params[BSYNC_PROTO_MAX_PARAMS]; /* targets; never INT32_MIN */
    uint8_t triggers[BSYNC_PROTO_MAX_TRIGGERS];
    uint16_t payload_len;                   /* opaque game payload for that tick: 0 = none; 1..256 */
    uint8_t payload[BSYNC_PROTO_MAX_PAYLOAD];
} bsync_proto_input_record;

typedef struct bsync_proto_input {
    uint8_t slot;          /* < BSYNC_PROTO_MAX_PLAYERS */
    uint8_t param_count;   /* 0..64 */
    uint8_t trigger_count; /* 0..16 */
    uint8_t record_count;  /* 1..4; on the wire bit 7 of this byte says payloads follow (below) */
    uint32_t first_tick;   /* records[i] is tick first_tick + i (no u32 wrap); oldest first */
    uint32_t frame_ack;    /* version 7: the sender holds every frame below this tick; <= first_tick */
    bsync_proto_input_record records[BSYNC_PROTO_MAX_INPUT_RECORDS];
} bsync_proto_input;

typedef struct bsync_proto_input_ack {
    uint32_t next_tick;   /* the server holds this slot's inputs for every tick < next_tick */
    uint32_t server_tick; /* the next tick the server will confirm (for the client's pacing) */
} bsync_proto_input_ack;

typedef struct bsync_proto_frame_player {
    fix16_t params[BSYNC_PROTO_MAX_PARAMS];
    uint8_t triggers[BSYNC_PROTO_MAX_TRIGGERS];
    uint16_t payload_len; /* 0 = none; 1..256 */
    uint8_t payload[BSYNC_PROTO_MAX_PAYLOAD];
} bsync_proto_frame_player;

/* FRAME codings. CHANGES: only the players in changed_mask; the others repeat frame tick - 1. */
#define BSYNC_PROTO_FRAME_FULL 0u
#define BSYNC_PROTO_FRAME_CHANGES 1u

typedef struct bsync_proto_frame {
    uint32_t tick;
    uint8_t player_count;    /* 1..16 */
    uint8_t param_count;     /* 0..64 */
    uint8_t trigger_count;   /* 0..16 */
    uint8_t coding;          /* BSYNC_PROTO_FRAME_FULL or _CHANGES */
    uint16_t defaulted_mask; /* bit i = slot i's input was missing and repeated; bits >= player_count zero */
    uint16_t changed_mask;   /* CHANGES: the players on the wire */
    uint8_t input_ack;       /* per connection: no input needed up to tick + input_ack */
    bsync_proto_frame_player players[BSYNC_PROTO_MAX_PLAYERS];
} bsync_proto_frame;

/* FRAMES (version 7, unreliable): frames first_tick .. + count - 1, each whole in this packet. */
typedef struct bsync_proto_frames {
    uint32_t first_tick;
    uint8_t count;     /* 1..BSYNC_PROTO_MAX_FRAMES */
    uint8_t input_ack; /* no input of the receiver needed up to first_tick + count - 1 + input_ack */
    /* [i]: tick first_tick + i, one layout; [0] FULL, [i > 0] FULL or CHANGES against [i - 1] */
    bsync_proto_frame frames[BSYNC_PROTO_MAX_FRAMES];
} bsync_proto_frames;

typedef struct bsync_proto_checksum_pair {
    uint64_t blend; /* blend-state checksum */
    uint64_t pose;  /* pose checksum */
} bsync_proto_checksum_pair;

typedef struct bsync_proto_checksum {
    uint32_t tick;
    uint64_t blend;           /* match root blend-state checksum */
    uint64_t pose;            /* match root pose checksum */
    uint8_t character_count;  /* 0..64 per-character pairs */
    bsync_proto_checksum_pair characters[BSYNC_PROTO_MAX_CHARACTERS];
    uint8_t joint_character;  /* with joint_count > 0: < 64; else 0 */
    uint16_t joint_count;     /* 0 = no joint detail; else 1..1024 */
    uint64_t joints[BSYNC_PROTO_MAX_JOINTS]; /* bsync_checksum_pose_joints of that character */
} bsync_proto_checksum;

typedef struct bsync_proto_desync {
    uint32_t tick;
    uint8_t kind;       /* bsync_proto_desync_kind */
    uint8_t character;  /* ROOT_*: BSYNC_PROTO_NO_CHARACTER; else < 64 */
    uint16_t part;      /* JOINT: joint index < 1024; else BSYNC_PROTO_NO_PART */
    uint8_t action;     /* bsync_proto_desync_action; DETAIL needs a character */
    uint64_t expected;  /* the server's (or the majority's) checksum */
    uint64_t got;       /* the receiver's checksum */
} bsync_proto_desync;

typedef struct bsync_proto_snapshot {
    uint32_t tick;         /* the snapshot is the state at the start of this tick */
    uint8_t kind;          /* bsync_proto_snapshot_kind */
    uint16_t chunk_index;  /* < chunk_count */
    uint16_t chunk_count;  /* = ceil(total_size / SNAPSHOT_CHUNK) */
    uint32_t total_size;   /* 1..BSYNC_PROTO_MAX_SNAPSHOT */
    uint16_t len;          /* SNAPSHOT_CHUNK, except the last chunk: the rest */
    uint8_t data[BSYNC_PROTO_SNAPSHOT_CHUNK];
} bsync_proto_snapshot;

typedef struct bsync_proto_bye {
    uint8_t reason;      /* bsync_proto_bye_reason */
    uint8_t version_min; /* the sender's supported protocol versions, 1 <= min <= max */
    uint8_t version_max;
    uint8_t header_version; /* the packet header's version (0: BSYNC_PROTO_VERSION) */
} bsync_proto_bye;

/* END: after every FRAME; a BYE may overtake it (wait for END). */
typedef enum bsync_proto_end_reason {
    BSYNC_PROTO_END_NORMAL = 0,   /* duration reached or every player left */
    BSYNC_PROTO_END_SHUTDOWN = 1, /* the server is shutting down */
    BSYNC_PROTO_END_ABORTED = 2,  /* abandoned or idle */
    BSYNC_PROTO_END_REASON_COUNT
} bsync_proto_end_reason;

typedef struct bsync_proto_end {
    uint32_t ticks;  /* frames 0 .. ticks - 1 are the whole match (the replay's END tick count) */
    uint8_t reason;  /* bsync_proto_end_reason */
} bsync_proto_end;

/* START: the server's tick clock; before it a client sends no INPUT. */
typedef struct bsync_proto_start {
    uint32_t tick;
    uint32_t deadline_in_us; /* 0..BSYNC_PROTO_MAX_START_IN_US (BAD_VALUE) */
    uint32_t match_ticks;    /* version 7: the match's length (0: until every player has left) */
} bsync_proto_start;

/* AUTH_INIT: a client opening a session; answered by AUTH_CHALLENGE (or BYE). */
typedef struct bsync_proto_auth_init {
    uint64_t match_id;
    uint8_t slot; /* < BSYNC_PROTO_MAX_PLAYERS (BAD_VALUE) */
    uint8_t mode; /* 1 or 2 (BAD_ENUM) */
    uint8_t client_nonce[BSYNC_PROTO_AUTH_NONCE];
} bsync_proto_auth_init;

/* AUTH_CHALLENGE: then the client's HELLO, sealed. */
typedef struct bsync_proto_auth_challenge {
    uint8_t server_nonce[BSYNC_PROTO_AUTH_NONCE];
    uint8_t mode; /* the session's mode, as asked (BAD_ENUM) */
} bsync_proto_auth_challenge;

typedef struct bsync_proto_msg {
    bsync_proto_type type;
    uint8_t version; /* the header's; encode: 0 means BSYNC_PROTO_VERSION_DEFAULT; decode sets it */
    union {
        bsync_proto_hello hello;
        bsync_proto_welcome welcome;
        bsync_proto_input input;
        bsync_proto_input_ack input_ack;
        bsync_proto_frame frame;
        bsync_proto_checksum checksum;
        bsync_proto_desync desync;
        bsync_proto_snapshot snapshot;
        bsync_proto_bye bye;
        bsync_proto_end end;
        bsync_proto_start start;
        bsync_proto_auth_init auth_init;
        bsync_proto_auth_challenge auth_challenge;
        bsync_proto_frames frames;
    };
} bsync_proto_msg;

typedef struct bsync_proto_header {
    uint8_t version;
    uint8_t type;
    uint16_t body_len;
    uint16_t flags;
} bsync_proto_header;

/* ---------------------------------------------------------------- functions */

/* buf NULL: *out_len only. BUFFER_TOO_SMALL sets *out_len; a broken rule gives the decoder's code. */
BSYNC_API bsync_proto_result bsync_proto_encode(const bsync_proto_msg* msg, uint8_t* buf, size_t cap, size_t* out_len);
/* The same in protocol version `version` (VERSION_MIN..VERSION; a BYE keeps its header_version). */
BSYNC_API bsync_proto_result bsync_proto_encode_as(const bsync_proto_msg* msg, uint32_t version, uint8_t* buf, size_t cap,
                                                   size_t* out_len);

/* Exactly one message filling all of data; *out unspecified on failure. */
BSYNC_API bsync_proto_result bsync_proto_decode(const uint8_t* data, size_t len, bsync_proto_msg* out);

/* previous: frame tick - 1. Returns 0, or -1 (frame left FULL). */
BSYNC_API int bsync_proto_frame_changes(bsync_proto_frame* frame, const bsync_proto_frame* previous);
/* A decoded CHANGES frame made FULL. Returns 0, or -1 (a protocol error). */
BSYNC_API int bsync_proto_frame_expand(bsync_proto_frame* frame, const bsync_proto_frame* previous);

BSYNC_API bsync_proto_result bsync_proto_validate(const bsync_proto_msg* msg);

/* Any version or type; TRUNCATED, BAD_MAGIC. */
BSYNC_API bsync_proto_result bsync_proto_peek_header(const uint8_t* data, size_t len, bsync_proto_header* out);

/* 0 for an unknown type. */
BSYNC_API size_t bsync_proto_max_body(uint32_t type);

/* Unknown type: CONTROL, reliable. */
BSYNC_API unsigned bsync_proto_channel(uint32_t type);
BSYNC_API int bsync_proto_reliable(uint32_t type);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_PROTO_H */
