/* blendsync/io/replay_verify.h — verify a replay as a library call: rebuild its match, refuse a
 * replay whose match differs, re-simulate every frame and compare every checksum and snapshot
 * (sequentially, or between snapshots on N threads with the same result).
 *
 * Index
 *   bsync_replay_verify_options      what to verify and how (zero: the CLI's defaults)
 *   bsync_replay_verify_result       the verdict and everything counted on the way
 *   bsync_replay_verify_file / _memory / _result_destroy   run it, free the result
 *   bsync_replay_verify_config_load  the replay's match config, found as verify finds it
 *   bsync_replay_verify_compare      the refusal: every difference between a header and a config
 *   bsync_replay_desync_kind_name, bsync_replay_end_reason_name
 *
 * Allocates through options.allocator; never writes a file.
 * design: docs/replay-verify.md#the-library-calls-behind-replay-verify-and-desync-diff
 */
#ifndef BLENDSYNC_IO_REPLAY_VERIFY_H
#define BLENDSYNC_IO_REPLAY_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_REPLAY_VERIFY_MAX_JOBS 64u
#define BSYNC_REPLAY_VERIFY_NO_CHARACTER 0xFFFFFFFFu

typedef enum bsync_replay_verify_verdict {
    BSYNC_VERIFY_VERIFIED = 0,
    BSYNC_VERIFY_MISMATCH = 1, /* first_mismatch */
    BSYNC_VERIFY_ERROR = 2,    /* message; what came before verified */
    BSYNC_VERIFY_REFUSED = 3,  /* differences */
    BSYNC_VERIFY_UNUSABLE = 4  /* message; nothing verified */
} bsync_replay_verify_verdict;

typedef enum bsync_replay_verify_kind {
    BSYNC_VERIFY_NONE = 0,
    BSYNC_VERIFY_BLEND_CHECKSUM = 1,
    BSYNC_VERIFY_POSE_CHECKSUM = 2,
    BSYNC_VERIFY_SNAPSHOT = 3
} bsync_replay_verify_kind;

typedef struct bsync_replay_verify_mismatch {
    bsync_replay_verify_kind kind;
    uint32_t tick;
    uint32_t character; /* or BSYNC_REPLAY_VERIFY_NO_CHARACTER */
    uint64_t expected, got;
    char what[64];
    char text[400];         /* one sentence */
} bsync_replay_verify_mismatch;

/* What on_mismatch gets, valid during the call only. */
typedef struct bsync_replay_verify_states {
    const bsync_replay_verify_mismatch* mismatch;
    const char* describe;
    const uint8_t* previous;         /* the last agreeing state */
    size_t previous_len;
    uint32_t previous_tick;
    const uint8_t* here;
    size_t here_len;
    const uint8_t* recorded;
    size_t recorded_len;
    const bsync_match_frame* frames; /* from previous_tick */
    const uint16_t* defaulted;
    uint32_t frame_count;
    const bsync_replay_header* header;
    const bsync_match_config* config;
    const char* config_used;
} bsync_replay_verify_states;

typedef void (*bsync_replay_verify_mismatch_fn)(const bsync_replay_verify_states* states, void* user);

typedef struct bsync_replay_verify_options {
    const bsync_allocator* allocator;
    /* Which match: config (not owned), else match_path, else graph_path, else the recorded one. */
    const bsync_match_config* config;
    const char* match_path;
    const char* graph_path;
    const char* replay_path; /* verify_memory: where the replay lies (NULL: "replay") */
    int poses;
    unsigned jobs;      /* 0 or 1: sequential; up to 64 threads, the same result */
    int has_from;       /* start at the newest snapshot with tick <= from */
    uint32_t from;
    int continue_after_mismatch;
    bsync_replay_verify_mismatch_fn on_mismatch;
    void* user;
} bsync_replay_verify_options;

typedef struct bsync_replay_verify_result {
    bsync_replay_verify_verdict verdict;
    char message[1600];
    char config_used[1400]; /* in words */
    char* differences;      /* REFUSED: one line each */
    unsigned difference_count;
    int have_header;
    uint64_t match_id, match_hash;
    uint32_t tick_rate, player_count, character_count, start_tick, checksum_interval;
    const bsync_match_config* config; /* the one used */
    unsigned jobs;
    uint64_t segments;
    uint32_t first_tick;
    int from_snapshot;
    uint64_t ticks_verified;
    uint64_t verified_up_to;
    uint64_t frames_skipped;
    uint64_t checksums_compared, pose_checksums_compared;
    uint64_t checksums_skipped;
    uint64_t snapshots_compared, snapshots_skipped;
    bsync_replay_desync* desyncs; /* recorded, not failures */
    size_t desync_count;
    int complete;
    int incomplete;
    bsync_replay_end end;
    bsync_replay_status stop;
    char stop_detail[200];
    uint64_t valid_bytes;
    uint64_t mismatches;
    bsync_replay_verify_mismatch first_mismatch;
    char* describe;
    double seconds;
    /* private */
    bsync_allocator allocator_;
    bsync_match_config* owned_config_;
    size_t desyncs_capacity_;
} bsync_replay_verify_result;

/* BSYNC_OK, BSYNC_MISMATCH, BSYNC_IO_ERROR, BSYNC_CONFIG_ERROR (refused), BSYNC_INVALID_ARGUMENT.
 * The result always needs bsync_replay_verify_result_destroy. */
BSYNC_API bsync_result bsync_replay_verify_file(const char* path, const bsync_replay_verify_options* options,
                                                bsync_replay_verify_result* result);
BSYNC_API bsync_result bsync_replay_verify_memory(const void* data, size_t len, const bsync_replay_verify_options* options,
                                                  bsync_replay_verify_result* result);
BSYNC_API void bsync_replay_verify_result_destroy(bsync_replay_verify_result* result);

/* used (may be NULL): the words of config_used. */
BSYNC_API bsync_result bsync_replay_verify_config_load(const bsync_replay_header* header, const char* replay_path,
                                                       const char* match_path, const char* graph_path,
                                                       const bsync_allocator* allocator, bsync_match_config** out,
                                                       char* used, size_t used_cap, bsync_error* err);

/* One line per difference into out; returns their number (0: fit). */
BSYNC_API unsigned bsync_replay_verify_compare(const bsync_replay_header* header, const bsync_match_config* cfg,
                                               int by_clip, char* out, size_t cap);

BSYNC_API const char* bsync_replay_desync_kind_name(uint32_t kind);
BSYNC_API const char* bsync_replay_end_reason_name(uint32_t reason);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_REPLAY_VERIFY_H */
