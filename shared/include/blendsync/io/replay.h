/* blendsync/io/replay.h — the replay file: a match's header, every confirmed frame, checksums,
 * snapshots, desyncs and an end record, appended record by record; a crash leaves every complete
 * record readable.
 *
 * Index
 *   bsync_replay_header          what verification needs to rebuild the match or refuse it
 *   bsync_replay_frame           one confirmed frame (inputs, defaulted mask, payloads)
 *   bsync_replay_record          one decoded record (tagged)
 *   bsync_replay_writer_*        create a file and append records (each one write + fflush)
 *   bsync_replay_encode_record   a record -> bytes (what the writer appends)
 *   bsync_replay_reader_*        read record by record; stops at the first bad record and says why
 *
 * Edge code (files, malloc). design: docs/replay.md (byte layout, rules, reader checks, crash safety)
 */
#ifndef BLENDSYNC_IO_REPLAY_H
#define BLENDSYNC_IO_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/io/file.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_REPLAY_FORMAT_VERSION 1u
#define BSYNC_REPLAY_MAGIC_SIZE 8u
#define BSYNC_REPLAY_RECORD_OVERHEAD 16u
#define BSYNC_REPLAY_MAX_BODY (4u * 1024u * 1024u)
#define BSYNC_REPLAY_MAX_ASSETS 256u
#define BSYNC_REPLAY_MAX_TEXT 256u
#define BSYNC_REPLAY_MAX_CONFIG (1024u * 1024u)
#define BSYNC_REPLAY_MAX_PAYLOAD 256u
#define BSYNC_REPLAY_RECORD_SEED ((uint64_t)0x626c656e64727072ull) /* "blendrpr" */

typedef enum bsync_replay_record_type {
    BSYNC_REPLAY_HEADER = 1,
    BSYNC_REPLAY_FRAME = 2,
    BSYNC_REPLAY_CHECKSUM = 3,
    BSYNC_REPLAY_SNAPSHOT = 4,
    BSYNC_REPLAY_DESYNC = 5,
    BSYNC_REPLAY_END = 6
} bsync_replay_record_type;

typedef enum bsync_replay_status {
    BSYNC_REPLAY_OK = 0,
    BSYNC_REPLAY_EOF = 1,
    BSYNC_REPLAY_TRUNCATED = 2, /* a crash mid-append */
    BSYNC_REPLAY_CORRUPT = 3,
    BSYNC_REPLAY_BAD_ORDER = 4,
    BSYNC_REPLAY_UNSUPPORTED = 5
} bsync_replay_status;
BSYNC_API const char* bsync_replay_status_string(bsync_replay_status s);

typedef struct bsync_replay_asset {
    char name[BSYNC_REPLAY_MAX_TEXT + 1];
    uint64_t hash;
} bsync_replay_asset;

typedef struct bsync_replay_header {
    uint32_t format_version;
    char build_version[BSYNC_REPLAY_MAX_TEXT + 1];
    uint64_t match_id;
    uint64_t match_hash;
    uint32_t tick_rate, player_count, param_count, trigger_count, character_count;
    uint32_t input_delay, checksum_interval, start_tick;
    uint32_t asset_count;
    bsync_replay_asset assets[BSYNC_REPLAY_MAX_ASSETS];
    char config_path[BSYNC_REPLAY_MAX_TEXT + 1];
    const char* config_text; /* reader: owned by it, NUL-terminated */
    uint32_t config_len;
} bsync_replay_header;

typedef struct bsync_replay_frame {
    uint32_t tick;
    uint16_t defaulted_mask;
    bsync_match_frame inputs;
    uint16_t payload_len[BSYNC_MATCH_MAX_PLAYERS];
    uint8_t payload[BSYNC_MATCH_MAX_PLAYERS][BSYNC_REPLAY_MAX_PAYLOAD];
} bsync_replay_frame;

typedef struct bsync_replay_checksum {
    uint32_t tick;
    uint32_t has_pose;
    uint64_t blend, pose;
} bsync_replay_checksum;

typedef struct bsync_replay_snapshot {
    uint32_t tick;
    uint32_t len;
    const uint8_t* data; /* reader: valid until the next call */
} bsync_replay_snapshot;

typedef struct bsync_replay_desync {
    uint32_t tick;
    uint8_t slot, kind, character;
    uint16_t part;
    uint64_t expected, got;
} bsync_replay_desync;

typedef struct bsync_replay_end {
    uint32_t ticks;
    uint32_t reason;
} bsync_replay_end;

typedef struct bsync_replay_record {
    bsync_replay_record_type type;
    uint64_t offset;
    uint32_t size;
    union {
        bsync_replay_header header; /* reader: valid until close */
        bsync_replay_frame frame;
        bsync_replay_checksum checksum;
        bsync_replay_snapshot snapshot;
        bsync_replay_desync desync;
        bsync_replay_end end;
    };
} bsync_replay_record;

/* ---- writing */
typedef struct bsync_replay_writer bsync_replay_writer;
/* Create (truncate) `path`; writes the magic and the HEADER. */
BSYNC_API bsync_result bsync_replay_writer_open(const char* path, const bsync_replay_header* header,
                                      bsync_replay_writer** out, bsync_error* err);
/* Not HEADER. BSYNC_IO_ERROR (the writer stays usable), BSYNC_INVALID_ARGUMENT (a broken rule). */
BSYNC_API bsync_result bsync_replay_writer_append(bsync_replay_writer* w, const bsync_replay_record* rec, bsync_error* err);
BSYNC_API bsync_result bsync_replay_writer_sync(bsync_replay_writer* w); /* fsync */
BSYNC_API uint64_t bsync_replay_writer_bytes(const bsync_replay_writer* w);
/* Adds no END record: append it first. */
BSYNC_API void bsync_replay_writer_close(bsync_replay_writer* w);

/* buf NULL: *out_len only; header NULL for the HEADER record. BSYNC_INVALID_ARGUMENT,
 * BSYNC_BUFFER_TOO_SMALL (*out_len set). */
BSYNC_API bsync_result bsync_replay_encode_record(const bsync_replay_record* rec, const bsync_replay_header* header,
                                        uint8_t* buf, size_t cap, size_t* out_len);

/* ---- reading */
typedef struct bsync_replay_reader bsync_replay_reader;
/* BSYNC_IO_ERROR; a file that is not a replay opens, and _next says CORRUPT. */
BSYNC_API bsync_result bsync_replay_reader_open_file(const char* path, bsync_replay_reader** out, bsync_error* err);
BSYNC_API bsync_result bsync_replay_reader_open_memory(const void* data, size_t len, bsync_replay_reader** out);
/* NULL: as the plain ones. borrow: read the caller's bytes in place (unchanged until close). */
typedef struct bsync_replay_reader_options {
    const bsync_allocator* allocator;
    bsync_file_callbacks file;
    int borrow;
} bsync_replay_reader_options;
BSYNC_API bsync_result bsync_replay_reader_open_file_ex(const char* path, const bsync_replay_reader_options* options,
                                                        bsync_replay_reader** out, bsync_error* err);
BSYNC_API bsync_result bsync_replay_reader_open_memory_ex(const void* data, size_t len,
                                                          const bsync_replay_reader_options* options,
                                                          bsync_replay_reader** out);
/* After anything but OK every later call returns the same status. rec may be NULL; detail (may be
 * NULL, 160 bytes) names what is wrong and the byte offset. */
BSYNC_API bsync_replay_status bsync_replay_reader_next(bsync_replay_reader* r, bsync_replay_record* rec, char* detail,
                                             size_t detail_cap);
/* NULL before the first record was read. */
BSYNC_API const bsync_replay_header* bsync_replay_reader_header(const bsync_replay_reader* r);
/* Offset past the last valid record (what a repair keeps). */
BSYNC_API uint64_t bsync_replay_reader_valid_bytes(const bsync_replay_reader* r);
BSYNC_API void bsync_replay_reader_close(bsync_replay_reader* r);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_REPLAY_H */
