/* blendsync/io/replay_verify.h — verify a replay as a library call: rebuild its match (from the
 * recorded config, found as `blendsync replay verify` finds it, or from one given), refuse a replay
 * whose match differs from the one built here, re-simulate every frame and compare every recorded
 * checksum and snapshot; sequentially, or over the segments between snapshots on N threads with the
 * same result. What `blendsync replay verify` prints is this result (docs/replay-verify.md).
 *
 * Index
 *   bsync_replay_verify_options      what to verify and how (zero-initialised: the CLI's defaults)
 *   bsync_replay_verify_result       the verdict and everything counted on the way
 *   bsync_replay_verify_file/memory  run it
 *   bsync_replay_verify_config_load  the replay's match config, found as verify finds it
 *   bsync_replay_verify_compare      the refusal: every difference between a header and a config
 *
 * Memory: what verification allocates itself (its matches, buffers, the desync list, texts) comes
 * from options.allocator (NULL or zero: malloc/free), and so does the replay reader (a memory replay is
 * read in place, not copied); the match config loader allocates as its header says (malloc). Edge code (blendsync_io): reads the file, starts threads
 * through the platform layer, never writes a file (the CLI's mismatch dump is its on_mismatch). */
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
    BSYNC_VERIFY_VERIFIED = 0, /* every checksum and snapshot read matches (also an incomplete replay) */
    BSYNC_VERIFY_MISMATCH = 1, /* first_mismatch says where */
    BSYNC_VERIFY_ERROR = 2,    /* stopped by an error after the match was set up (message); what came
                                  before it verified */
    BSYNC_VERIFY_REFUSED = 3,  /* the replay's match differs from the one built here (differences) */
    BSYNC_VERIFY_UNUSABLE = 4  /* nothing verified: unreadable, no header, no config, no memory (message) */
} bsync_replay_verify_verdict;

typedef enum bsync_replay_verify_kind {
    BSYNC_VERIFY_NONE = 0,
    BSYNC_VERIFY_BLEND_CHECKSUM = 1, /* a CHECKSUM record's root blend checksum */
    BSYNC_VERIFY_POSE_CHECKSUM = 2,  /* a CHECKSUM record's root pose checksum */
    BSYNC_VERIFY_SNAPSHOT = 3        /* a SNAPSHOT record's bytes */
} bsync_replay_verify_kind;

/* One mismatch. */
typedef struct bsync_replay_verify_mismatch {
    bsync_replay_verify_kind kind;
    uint32_t tick;      /* a checksum's tick (the state after that frame), a snapshot's (the state at its start) */
    uint32_t character; /* a snapshot: the first character whose blend state differs; a checksum
                           (root checksums only) or a difference outside every character:
                           BSYNC_REPLAY_VERIFY_NO_CHARACTER */
    uint64_t expected, got; /* a checksum: recorded and here (0 for a snapshot) */
    char what[64];          /* "blend checksum", "pose checksum", "snapshot" */
    char text[400];         /* one sentence: "blend checksum (the state after frame 59): expected ..." */
} bsync_replay_verify_mismatch;

/* What on_mismatch gets: the mismatch and the states around it, valid during the call only. */
typedef struct bsync_replay_verify_states {
    const bsync_replay_verify_mismatch* mismatch;
    const char* describe;            /* a snapshot: bsync_desync_describe(recorded, here), else NULL */
    const uint8_t* previous;         /* bsync_match_save bytes at the last agreeing point */
    size_t previous_len;
    uint32_t previous_tick;          /* previous is the state at the start of this tick */
    const uint8_t* here;             /* this build's state at the mismatch */
    size_t here_len;
    const uint8_t* recorded;         /* a snapshot mismatch: the replay's state, else NULL */
    size_t recorded_len;
    const bsync_match_frame* frames; /* frames previous_tick .. previous_tick + frame_count - 1 */
    const uint16_t* defaulted;       /* their defaulted masks */
    uint32_t frame_count;
    const bsync_replay_header* header;
    const bsync_match_config* config;
    const char* config_used; /* the result's config_used */
} bsync_replay_verify_states;

typedef void (*bsync_replay_verify_mismatch_fn)(const bsync_replay_verify_states* states, void* user);

typedef struct bsync_replay_verify_options {
    const bsync_allocator* allocator; /* NULL or zero: malloc/free */
    /* Which match. config given: that one (not owned; it must outlive the call). Else match_path:
     * that match config file. Else graph_path: the recorded match config with every character's
     * "graph" set to that file (assets compared by clip name). Else the recorded config, its graph
     * files looked for (1) in the directory of the recorded config path, (2) when that is relative,
     * in the replay's directory joined with it, (3) in the replay's directory. */
    const bsync_match_config* config;
    const char* match_path;
    const char* graph_path;
    /* verify_memory: where the replay lies, for (2) and (3) and for messages (NULL: "replay", and the
     * current directory). verify_file uses its path. */
    const char* replay_path;
    int poses;          /* compute every character's pose after every frame (a viewer's work) */
    unsigned jobs;      /* 0 or 1: sequential; 2..64: segments between snapshots on that many threads
                           (a replay starting at tick 0 without from; else sequential). Any mismatch
                           found in parallel is found again sequentially, so the result is the same. */
    int has_from;       /* start at the newest snapshot with tick <= from */
    uint32_t from;
    int continue_after_mismatch; /* 0: stop at the first mismatch. 1: count every mismatch and go on
                                    (after a snapshot mismatch from the recorded state) */
    /* Called for each mismatch with the states a dump needs (the CLI writes FILE.mismatch/tick<T>/).
     * Only when set is the last agreeing state kept (one save per compared record). */
    bsync_replay_verify_mismatch_fn on_mismatch;
    void* user;
} bsync_replay_verify_options;

typedef struct bsync_replay_verify_result {
    bsync_replay_verify_verdict verdict;
    char message[1600];     /* ERROR / UNUSABLE: what went wrong ("" otherwise) */
    char config_used[1400]; /* which config was used, in words ("recorded match.json (graphs from ...)") */
    char* differences;      /* REFUSED: one line per difference, each ending in "\n"; else NULL */
    unsigned difference_count;
    /* the header (have_header 0: none was read) */
    int have_header;
    uint64_t match_id, match_hash;
    uint32_t tick_rate, player_count, character_count, start_tick, checksum_interval;
    const bsync_match_config* config; /* the config used (options.config, or loaded and owned by the
                                         result); NULL when none was loaded */
    /* how it ran */
    unsigned jobs;     /* threads used: 1 sequential */
    uint64_t segments; /* segments verified in parallel (0: sequential) */
    uint32_t first_tick;
    int from_snapshot; /* started by loading a SNAPSHOT (a cut replay, or has_from) */
    uint64_t ticks_verified;  /* frames simulated */
    uint64_t verified_up_to;  /* the tick count reached: the state at the start of this tick */
    uint64_t frames_skipped;  /* frames before the starting snapshot */
    uint64_t checksums_compared, pose_checksums_compared; /* compared and equal */
    uint64_t checksums_skipped;                           /* not at a tick simulated here */
    uint64_t snapshots_compared, snapshots_skipped;
    bsync_replay_desync* desyncs; /* the DESYNC records (what the server saw; not failures) */
    size_t desync_count;
    int complete;           /* an END record was read (end holds it) */
    int incomplete;         /* no END: the data ends (after a crash); everything there verified */
    bsync_replay_end end;
    bsync_replay_status stop; /* why reading stopped */
    char stop_detail[200];
    uint64_t valid_bytes;     /* bsync_replay_reader_valid_bytes at the end */
    uint64_t mismatches;      /* 1 when stopping at the first; every one with continue_after_mismatch */
    bsync_replay_verify_mismatch first_mismatch; /* kind NONE when there was none */
    char* describe;           /* a snapshot first_mismatch: bsync_desync_describe text, else NULL */
    double seconds;           /* reading and simulating (a timing, never simulated) */
    /* private: what destroy frees */
    bsync_allocator allocator_;
    bsync_match_config* owned_config_;
    size_t desyncs_capacity_;
} bsync_replay_verify_result;

/* Verify the replay file at path (read once; twice with jobs > 1). Returns BSYNC_OK for VERIFIED,
 * BSYNC_MISMATCH for MISMATCH, BSYNC_IO_ERROR for ERROR and UNUSABLE, BSYNC_CONFIG_ERROR for REFUSED,
 * BSYNC_INVALID_ARGUMENT (result zeroed, verdict UNUSABLE) for NULL arguments or jobs above 64. The
 * result always needs bsync_replay_verify_result_destroy. */
BSYNC_API bsync_result bsync_replay_verify_file(const char* path, const bsync_replay_verify_options* options,
                                                bsync_replay_verify_result* result);
/* The same over bytes in memory (copied by the reader). */
BSYNC_API bsync_result bsync_replay_verify_memory(const void* data, size_t len, const bsync_replay_verify_options* options,
                                                  bsync_replay_verify_result* result);
/* Frees what the result holds (config, differences, desyncs, describe) and zeroes it. NULL ignored. */
BSYNC_API void bsync_replay_verify_result_destroy(bsync_replay_verify_result* result);

/* The match config of a replay, by the rules of options.config / match_path / graph_path above
 * (replay_path: where the replay lies; NULL: the current directory). used (may be NULL) receives
 * the words of config_used. BSYNC_OK, or an error with err->message (for the recorded config: the
 * error of the first directory tried). */
BSYNC_API bsync_result bsync_replay_verify_config_load(const bsync_replay_header* header, const char* replay_path,
                                                       const char* match_path, const char* graph_path,
                                                       const bsync_allocator* allocator, bsync_match_config** out,
                                                       char* used, size_t used_cap, bsync_error* err);

/* Everything that makes the replay unfit for cfg's match: format version, match hash, tick rate and
 * counts, assets by name (by_clip: by the CLIP part of "GRAPH:CLIP" only, as for graph_path). One
 * line per difference ("match hash mismatch ...: replay X, here Y\n") into out (truncated to cap);
 * returns the number of differences (0: fit). */
BSYNC_API unsigned bsync_replay_verify_compare(const bsync_replay_header* header, const bsync_match_config* cfg,
                                               int by_clip, char* out, size_t cap);

/* "root blend", "root pose", "character blend", "character pose", "joint", else "unknown". */
BSYNC_API const char* bsync_replay_desync_kind_name(uint32_t kind);
/* "normal", "shutdown", "aborted", else "unknown". */
BSYNC_API const char* bsync_replay_end_reason_name(uint32_t reason);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_REPLAY_VERIFY_H */
