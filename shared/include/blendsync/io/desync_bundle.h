/* blendsync/io/desync_bundle.h — the desync bundle, <replay>.desync/tick<T>-slot<S>/: written by the
 * server and the client, read by `blendsync desync`.
 *
 * Index
 *   bsync_desync_bundle_desc          what goes into a bundle
 *   bsync_desync_bundle_write         make the folder, write its files (temporary name + rename)
 *   bsync_desync_bundle_json / _html  bundle.json's / report.html's text
 *   bsync_desync_bundle_pose          a pose-only desync's joints; _pose_text its report lines
 *   bsync_desync_bundle               a bundle as read
 *   bsync_desync_bundle_open / _parse read bundle.json (cJSON; earlier servers' files too)
 *   bsync_desync_bundle_find_config   the match config's path
 *   bsync_desync_bundle_inputs_parse  inputs.csv -> frames; _inputs_rows counts its rows
 *   bsync_desync_bundle_trace         the first divergence from the bundle's files; _trace_memory
 *   bsync_desync_bundle_load_state    a .bsms file into a match
 *
 * Edge code (files, malloc), never per tick. design: docs/replay-verify.md#desync-bundles (files,
 * bundle.json and its format history, lookup rules, trace)
 */
#ifndef BLENDSYNC_IO_DESYNC_BUNDLE_H
#define BLENDSYNC_IO_DESYNC_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/io/desync.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_DESYNC_BUNDLE_PATH_MAX 1200u
#define BSYNC_DESYNC_BUNDLE_CONFIG_MAX 4096u
#define BSYNC_DESYNC_BUNDLE_FORMAT 3
#define BSYNC_DESYNC_BUNDLE_JOINTS_MAX 32u /* joints named; more only counted */
#define BSYNC_DESYNC_BUNDLE_NAME_MAX 64u

typedef enum bsync_desync_bundle_side {
    BSYNC_DESYNC_BUNDLE_SERVER = 0, /* report.txt, report.html, bundle.json */
    BSYNC_DESYNC_BUNDLE_CLIENT = 1  /* desync.txt */
} bsync_desync_bundle_side;

typedef struct bsync_desync_bundle_check { /* one row of report.html's timeline */
    uint32_t tick;
    uint64_t server;
    uint64_t client[BSYNC_MATCH_MAX_PLAYERS];
    uint32_t client_mask;
} bsync_desync_bundle_check;

/* A joint whose per-joint pose checksums differ (skeleton index and name, both checksums). */
typedef struct bsync_desync_bundle_joint {
    uint32_t index;
    char name[BSYNC_DESYNC_BUNDLE_NAME_MAX];
    uint64_t server, client;
} bsync_desync_bundle_joint;

/* A pose desync ("pose_joints"): first differing check tick, the check before (-1: none); of
 * `compared` joints (0: none had) `differing` differ, the first joint_count listed. */
typedef struct bsync_desync_bundle_pose {
    long long tick, agreed_tick;
    uint32_t character;
    char character_name[BSYNC_DESYNC_BUNDLE_NAME_MAX];
    uint32_t compared, differing, joint_count;
    bsync_desync_bundle_joint joints[BSYNC_DESYNC_BUNDLE_JOINTS_MAX];
} bsync_desync_bundle_pose;

/* Zeroed, then what there is: a file is written when its pointer is set. */
typedef struct bsync_desync_bundle_desc {
    bsync_desync_bundle_side side;
    const char* root; /* made when missing; its parent must exist */
    uint32_t tick, slot;
    uint64_t match_id, match_hash;
    const char* match_config; /* NULL: null */
    long long previous_tick, first_divergent_tick, first_divergent_character;
    const char* build;
    uint32_t asset_count;
    const char* const* asset_names;
    const uint64_t* asset_hashes;
    const uint8_t* server_state;    size_t server_state_len;    /* server.bsms */
    const uint8_t* client_state;    size_t client_state_len;    /* client.bsms */
    const uint8_t* server_previous; size_t server_previous_len; /* server-previous.bsms */
    const uint8_t* client_previous; size_t client_previous_len; /* client-previous.bsms */
    const uint8_t* client_trail;    size_t client_trail_len;    /* client-trail.bstrail */
    const char* report;
    const bsync_match_desc* match; /* set: inputs.csv of frames[0 .. frame_count) from frame_first */
    const bsync_match_config* names;
    const bsync_match_frame* frames;
    const uint16_t* defaulted;
    uint32_t frame_first, frame_count;
    const bsync_desync_bundle_check* checks;
    uint32_t check_count, player_count;
    const bsync_desync_bundle_pose* pose; /* NULL: "pose_joints": null */
} bsync_desync_bundle_desc;

/* Makes ROOT/tick<T>-slot<S>/ (its path into dir, cap bytes; dir may be NULL) and writes d's files,
 * bundle.json last; every file is tried. BSYNC_OK or the first failure (BSYNC_IO_ERROR,
 * BSYNC_LIMIT_EXCEEDED, BSYNC_OUT_OF_MEMORY, BSYNC_INVALID_ARGUMENT) with err's message. */
BSYNC_API bsync_result bsync_desync_bundle_write(const bsync_desync_bundle_desc* d, char* dir, size_t cap, bsync_error* err);

/* The text for d: returns the bytes it needs without the NUL, writes at most cap - 1 and a NUL;
 * 0 when out of memory. */
BSYNC_API size_t bsync_desync_bundle_json(const bsync_desync_bundle_desc* d, char* out, size_t cap);
BSYNC_API size_t bsync_desync_bundle_html(const bsync_desync_bundle_desc* d, char* out, size_t cap);
/* p in words, as report.txt and `desync diff` print it; sized as _json. */
BSYNC_API size_t bsync_desync_bundle_pose_text(const bsync_desync_bundle_pose* p, char* out, size_t cap);

/* A bundle as read: the state files' paths and bundle.json's fields (absent: -1, 0 or ""). */
typedef struct bsync_desync_bundle {
    char dir[1024];
    char meta[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    char server_state[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    char client_state[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    char server_previous[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    char client_trail[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    char inputs[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    long long slot;
    int has_match_config;
    char match_config[BSYNC_DESYNC_BUNDLE_CONFIG_MAX];
    int format; /* 0: no JSON object, 1: no "format" */
    uint64_t match_id;
    int has_match_hash;
    uint64_t match_hash;
    long long tick, previous_tick, first_divergent_tick, first_divergent_character;
    int has_server_previous, has_inputs, has_client_trail;
    char build[BSYNC_REPLAY_MAX_TEXT + 1];
    uint32_t asset_count;
    bsync_replay_asset assets[BSYNC_REPLAY_MAX_ASSETS];
    int has_pose; /* "pose_joints" (format 3) read into pose */
    bsync_desync_bundle_pose pose;
} bsync_desync_bundle;

/* Reads DIR/bundle.json into out. BSYNC_OK; BSYNC_IO_ERROR, BSYNC_LIMIT_EXCEEDED, BSYNC_OUT_OF_MEMORY,
 * BSYNC_INVALID_ARGUMENT with err's message. */
BSYNC_API bsync_result bsync_desync_bundle_open(const char* dir, bsync_desync_bundle* out, bsync_error* err);
/* The same from bundle.json's text (len bytes, up to a NUL; no file read), paths under dir. */
BSYNC_API bsync_result bsync_desync_bundle_parse(const char* dir, const char* text, size_t len, bsync_desync_bundle* out,
                                                 bsync_error* err);

/* The config's path into out: match_path, else match_config as written, else beside the .desync
 * folder. BSYNC_OK; BSYNC_NOT_FOUND with a message naming --match. */
BSYNC_API bsync_result bsync_desync_bundle_find_config(const bsync_desync_bundle* b, const char* match_path, char* out,
                                                       size_t cap, bsync_error* err);

/* Frames first .. first + count - 1 of an inputs.csv text (the inverse of bsync_desync_inputs_csv)
 * into frames. BSYNC_OK; BSYNC_CONFIG_ERROR "NAME:LINE: ...", BSYNC_OUT_OF_MEMORY. */
BSYNC_API bsync_result bsync_desync_bundle_inputs_parse(const char* text, size_t len, const char* name, const bsync_match_desc* d,
                                                 uint32_t first, uint32_t count, bsync_match_frame* frames,
                                                 const bsync_allocator* allocator, bsync_error* err);
/* The data rows of a CSV text (non-blank lines after the first). */
BSYNC_API size_t bsync_desync_bundle_inputs_rows(const char* text, size_t len);

/* The first divergence: server-previous.bsms and inputs.csv re-simulated against client-trail.bstrail
 * (bsync_desync_trace; work and other are matches of cfg's desc; text into out). *reproduced: it
 * ended in server_final. BSYNC_OK; BSYNC_NOT_FOUND without a readable trail; else an error. */
BSYNC_API bsync_result bsync_desync_bundle_trace(const bsync_desync_bundle* b, const bsync_match_config* cfg,
                                                 bsync_match* work, bsync_match* other, const uint8_t* server_final,
                                                 size_t server_final_len, const bsync_allocator* allocator,
                                                 bsync_desync_trace_result* result, char* out, size_t cap,
                                                 int* reproduced, bsync_error* err);
/* The same over the files' bytes (each may be NULL with length 0); never BSYNC_NOT_FOUND. */
BSYNC_API bsync_result bsync_desync_bundle_trace_memory(const bsync_desync_bundle* b, const bsync_match_config* cfg,
                                                        bsync_match* work, bsync_match* other, const uint8_t* server_final,
                                                        size_t server_final_len, const uint8_t* previous, size_t previous_len,
                                                        const uint8_t* trail_bytes, size_t trail_len, const char* csv,
                                                        size_t csv_len, const bsync_allocator* allocator,
                                                        bsync_desync_trace_result* result, char* out, size_t cap,
                                                        int* reproduced, bsync_error* err);

/* A bsync_match_save file into m. BSYNC_OK; BSYNC_IO_ERROR, BSYNC_MISMATCH (another match), or the
 * load's error, with err's message naming PATH. */
BSYNC_API bsync_result bsync_desync_bundle_load_state(bsync_match* m, const char* path, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_DESYNC_BUNDLE_H */
