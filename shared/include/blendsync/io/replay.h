/* blendsync/io/replay.h — the replay file: a match's header, every confirmed frame, checksums,
 * periodic snapshots, desyncs and an end record, appended record by record (docs/replay.md).
 *
 * Index
 *   bsync_replay_header          what verification needs to rebuild the match or refuse it
 *   bsync_replay_frame           one confirmed frame (all players' inputs, defaulted mask, payloads)
 *   bsync_replay_record          one decoded record (tagged)
 *   bsync_replay_writer_*        create a file and append records (each one write + fflush)
 *   bsync_replay_encode_record   a record -> bytes (what the writer appends)
 *   bsync_replay_reader_*        read a file or a buffer record by record; stops at the first
 *                                incomplete or corrupt record and says which
 *
 * File: 8 bytes magic "BSRPLY\r\n" (0x42 0x53 0x52 0x50 0x4C 0x59 0x0D 0x0A: a CR/LF mangled in transit
 * shows), then records. The first record is HEADER; the last is END when the match ended cleanly.
 * Record: u8 type, u8 0, u16 0, u32 body length n (<= BSYNC_REPLAY_MAX_BODY), n body bytes, u64 XXH64
 * (seed BSYNC_REPLAY_RECORD_SEED) of the 8 header bytes and the body. All integers little-endian.
 * Bodies:
 *   HEADER   u32 format version (BSYNC_REPLAY_FORMAT_VERSION), u16 + bytes build version text, u64 match
 *            id, u64 match hash (bsync_match_hash), u32 tick rate, u32 player count, u32 param count,
 *            u32 trigger count, u32 character count, u32 input delay, u32 checksum interval, u32 start
 *            tick, u32 asset count, per asset u16 + bytes name, u64 hash; u16 + bytes config path (as
 *            recorded, for resolving the config's relative paths), u32 + bytes config text (the match
 *            config JSON as read).
 *   FRAME    u32 tick, u8 player count, u8 param count, u8 trigger count, u8 0, u16 defaulted mask
 *            (bits >= player count zero), per player: param count zigzag varints (proto.h's varint:
 *            LEB128, minimal, at most 5 bytes) of the fix16 values, trigger count u8, u16 payload length
 *            (<= 256) and the payload bytes.
 *   CHECKSUM u32 tick (the checksums after simulating frame `tick`, i.e. the state at tick + 1), u32
 *            flags (bit 0: pose present; other bits 0), u64 blend, u64 pose (0 without bit 0).
 *   SNAPSHOT u32 tick (the state at the START of this tick, i.e. after tick - 1 frames), u32 n, n bytes
 *            of bsync_match_save.
 *   DESYNC   u32 tick, u8 slot, u8 kind (proto.h's bsync_proto_desync_kind), u8 character
 *            (0xFF: none), u8 0, u16 part (0xFFFF: none), u16 0, u64 expected, u64 got.
 *   END      u32 ticks (the number of frames in the match), u32 reason (0 normal, 1 shutdown, 2
 *            aborted).
 * Frames are strictly consecutive from the header's start tick; the reader checks it
 * (BSYNC_REPLAY_BAD_ORDER). A record of an unknown type is an error in format version 1.
 *
 * Rules (the encoder refuses to write a record that breaks one: INVALID_ARGUMENT; the reader reports
 * one in a record with a good XXH64 as CORRUPT). Canonical: encode(decode(record)) == record.
 *   record header: type 1..6, reserved bytes 0; body length exactly 24 (CHECKSUM), 28 (DESYNC), 8 (END);
 *     FRAME 12..9514, SNAPSHOT >= 8, HEADER >= 4 (all <= BSYNC_REPLAY_MAX_BODY).
 *   HEADER: player count 1..16, param count <= 64, trigger count <= 16, character count 1..64, asset
 *     count <= 256, texts (build version, asset names, config path) <= 256 bytes without a NUL byte,
 *     config text <= BSYNC_REPLAY_MAX_CONFIG bytes (any bytes; a NULL config_text needs config_len 0);
 *     the body ends exactly after the config text. The format version is read first: a value other
 *     than 1 is UNSUPPORTED whatever follows. The writer ignores header.format_version (writes 1).
 *   FRAME: its three counts equal the header's, reserved byte 0, mask bits >= player count 0, varints
 *     minimal and at most 5 bytes, zigzag value <= 2^32 - 2 (0xFFFFFFFF would be INT32_MIN, never
 *     valid: the encoder refuses a 0x80000000 value), payload length <= 256, nothing after the last
 *     player.
 *   CHECKSUM: flags 0 or 1; pose 0 when flags is 0 (has_pose is 0 or 1).
 *   SNAPSHOT: n = body length - 8 (encoder: data non-NULL when n > 0).
 *   DESYNC: slot < player count, kind < 5, character 0xFF or < character count, reserved fields 0.
 *   END: reason 0..2. Its tick count is stored as given (not checked against the frames).
 *   CHECKSUM / SNAPSHOT / DESYNC ticks are not ordered by the reader; only FRAME ticks are.
 *
 * Reader checks, in order, per record: the magic (once; a mismatch is CORRUPT, data ending inside it or
 * right after it is TRUNCATED); the record header bytes that are present (type, reserved, length
 * bounds: CORRUPT); the whole record present (else TRUNCATED); XXH64 (CORRUPT); HEADER first / not
 * twice / nothing after END (BAD_ORDER); the body (UNSUPPORTED for the version, else CORRUPT); the
 * frame tick (BAD_ORDER).
 *
 * Crash safety: the writer appends each record with one fwrite + fflush, so after a kill -9 the file
 * holds every record whose append returned, and at most one partial record at the end; the reader
 * reports that as BSYNC_REPLAY_TRUNCATED after the complete ones. (A power loss can lose more: the
 * writer does not fsync per record; bsync_replay_writer_sync does, and the server calls it about once
 * a second.) The stream is unbuffered; when an append fails (IO_ERROR) the writer cuts the file back
 * to the end of the last complete record (ftruncate), so a later append continues a valid file.
 *
 * Edge code (blendsync_io): files and malloc. Not called per tick by the core; the server appends
 * one frame record per tick.
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
#define BSYNC_REPLAY_RECORD_OVERHEAD 16u            /* 8-byte record header + 8-byte XXH64 */
#define BSYNC_REPLAY_MAX_BODY (4u * 1024u * 1024u)  /* bytes of one record body */
#define BSYNC_REPLAY_MAX_ASSETS 256u
#define BSYNC_REPLAY_MAX_TEXT 256u                  /* build version, asset name, config path bytes */
#define BSYNC_REPLAY_MAX_CONFIG (1024u * 1024u)     /* config text bytes */
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

/* Why reading stopped (bsync_replay_reader_next). */
typedef enum bsync_replay_status {
    BSYNC_REPLAY_OK = 0,        /* a record was read */
    BSYNC_REPLAY_EOF = 1,       /* clean end of data after a complete record */
    BSYNC_REPLAY_TRUNCATED = 2, /* the data ends inside a record (a crash mid-append) */
    BSYNC_REPLAY_CORRUPT = 3,   /* bad magic, bad record header, checksum mismatch, bad body */
    BSYNC_REPLAY_BAD_ORDER = 4, /* header not first / twice, frame ticks not consecutive, record after END */
    BSYNC_REPLAY_UNSUPPORTED = 5 /* format version other than BSYNC_REPLAY_FORMAT_VERSION */
} bsync_replay_status;
BSYNC_API const char* bsync_replay_status_string(bsync_replay_status s);

typedef struct bsync_replay_asset {
    char name[BSYNC_REPLAY_MAX_TEXT + 1];
    uint64_t hash;
} bsync_replay_asset;

typedef struct bsync_replay_header {
    uint32_t format_version;                 /* written as BSYNC_REPLAY_FORMAT_VERSION */
    char build_version[BSYNC_REPLAY_MAX_TEXT + 1];
    uint64_t match_id;
    uint64_t match_hash;
    uint32_t tick_rate, player_count, param_count, trigger_count, character_count;
    uint32_t input_delay, checksum_interval, start_tick;
    uint32_t asset_count;
    bsync_replay_asset assets[BSYNC_REPLAY_MAX_ASSETS];
    char config_path[BSYNC_REPLAY_MAX_TEXT + 1];
    const char* config_text; /* writer: the caller's; reader: owned by the reader (NUL-terminated) */
    uint32_t config_len;
} bsync_replay_header;

typedef struct bsync_replay_frame {
    uint32_t tick;
    uint16_t defaulted_mask;
    bsync_match_frame inputs; /* inputs.player_count players; param/trigger counts from the header */
    uint16_t payload_len[BSYNC_MATCH_MAX_PLAYERS];
    uint8_t payload[BSYNC_MATCH_MAX_PLAYERS][BSYNC_REPLAY_MAX_PAYLOAD]; /* reader: bytes past payload_len[p] are not cleared */
} bsync_replay_frame;

typedef struct bsync_replay_checksum {
    uint32_t tick;
    uint32_t has_pose;
    uint64_t blend, pose;
} bsync_replay_checksum;

typedef struct bsync_replay_snapshot {
    uint32_t tick;
    uint32_t len;
    const uint8_t* data; /* reader: valid until the next call; writer: the caller's */
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
    uint64_t offset; /* byte offset of the record in the file */
    uint32_t size;   /* bytes of the whole record (overhead included) */
    union {
        bsync_replay_header header; /* reader: valid until the reader is closed */
        bsync_replay_frame frame;
        bsync_replay_checksum checksum;
        bsync_replay_snapshot snapshot;
        bsync_replay_desync desync;
        bsync_replay_end end;
    };
} bsync_replay_record;

/* ---- writing */
typedef struct bsync_replay_writer bsync_replay_writer;
/* Create (truncate) `path` and write the magic and the HEADER record. */
BSYNC_API bsync_result bsync_replay_writer_open(const char* path, const bsync_replay_header* header,
                                      bsync_replay_writer** out, bsync_error* err);
/* Append one record (type from rec->type; not HEADER). IO_ERROR when the write fails (the writer
 * stays usable: a later append may succeed); INVALID_ARGUMENT for a record breaking a rule (frame
 * counts different from the header's, non-consecutive frame tick, a record after END). */
BSYNC_API bsync_result bsync_replay_writer_append(bsync_replay_writer* w, const bsync_replay_record* rec, bsync_error* err);
BSYNC_API bsync_result bsync_replay_writer_sync(bsync_replay_writer* w); /* fsync */
BSYNC_API uint64_t bsync_replay_writer_bytes(const bsync_replay_writer* w); /* bytes written so far */
/* Close (no END record is added: append it first for a clean end). NULL ignored. */
BSYNC_API void bsync_replay_writer_close(bsync_replay_writer* w);

/* Encode a record (any type) into buf; buf NULL: only *out_len. The header's counts are needed to
 * check a frame (pass NULL for the HEADER record itself; a DESYNC's slot and character are checked
 * only when a header is given). INVALID_ARGUMENT: NULL rec/out_len, unknown type, a broken rule (then
 * *out_len is 0); BUFFER_TOO_SMALL: cap < *out_len (which is set). */
BSYNC_API bsync_result bsync_replay_encode_record(const bsync_replay_record* rec, const bsync_replay_header* header,
                                        uint8_t* buf, size_t cap, size_t* out_len);

/* ---- reading */
typedef struct bsync_replay_reader bsync_replay_reader;
/* Read the whole file into memory. IO_ERROR when it cannot be read; a file that is not a replay still
 * opens: the first _next says CORRUPT. */
BSYNC_API bsync_result bsync_replay_reader_open_file(const char* path, bsync_replay_reader** out, bsync_error* err);
/* Read from a caller buffer (copied). */
BSYNC_API bsync_result bsync_replay_reader_open_memory(const void* data, size_t len, bsync_replay_reader** out);
/* The two with options (NULL: as above). allocator (NULL or zero: malloc/free) makes every allocation
 * of the reader (itself, its copy of the bytes, the header's config text), each freed at close with
 * the size it was made with. file (_open_file_ex; zero: stdio) reads the file through callbacks
 * (io/file.h; released before the call returns). borrow (_open_memory_ex) reads the caller's bytes in
 * place instead of a copy: they must stay unchanged until the reader is closed. */
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
/* The next record into *rec. After anything but OK, every later call returns the same status. The
 * first record read is always the HEADER (else CORRUPT / BAD_ORDER / UNSUPPORTED). `detail` (may be
 * NULL, 160 bytes) receives a sentence naming what is wrong and the byte offset ("" on OK; EOF and
 * TRUNCATED name the offset too). rec may be NULL (the record is only validated); after anything but
 * OK its contents are unspecified. r NULL: CORRUPT. */
BSYNC_API bsync_replay_status bsync_replay_reader_next(bsync_replay_reader* r, bsync_replay_record* rec, char* detail,
                                             size_t detail_cap);
/* The header (NULL before the first record was read). */
BSYNC_API const bsync_replay_header* bsync_replay_reader_header(const bsync_replay_reader* r);
/* Byte offset just past the last complete, valid record (what a repair would keep); 0 until the
 * HEADER was read. */
BSYNC_API uint64_t bsync_replay_reader_valid_bytes(const bsync_replay_reader* r);
BSYNC_API void bsync_replay_reader_close(bsync_replay_reader* r);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_REPLAY_H */
