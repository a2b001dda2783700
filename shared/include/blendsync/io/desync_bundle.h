/* blendsync/io/desync_bundle.h — the desync bundle (<replay>.desync/tick<T>-slot<S>/, docs/server.md
 * "Desync bundles", docs/replay-verify.md): written here by the server and the client, read here by
 * `blendsync desync`. bundle.json is written and read with cJSON; every file goes through a temporary
 * name and a rename.
 *
 * Index
 *   bsync_desync_bundle_desc          what goes into a bundle (states, trail, inputs, report, bundle.json)
 *   bsync_desync_bundle_write         write a bundle's folder and files
 *   bsync_desync_bundle_json          bundle.json's text of a description
 *   bsync_desync_bundle_html          report.html's text of a description
 *   bsync_desync_bundle               the bundle's files and bundle.json's fields, as read
 *   bsync_desync_bundle_open          read bundle.json
 *   bsync_desync_bundle_parse         the same from bundle.json's text in memory
 *   bsync_desync_bundle_find_config   the match config: --match, as written, or next to the .desync folder
 *   bsync_desync_bundle_inputs_parse  inputs.csv text -> frames (the inverse of bsync_desync_inputs_csv)
 *   bsync_desync_bundle_inputs_rows   the data rows of a CSV text
 *   bsync_desync_bundle_trace         server-previous.bsms + inputs.csv re-simulated against
 *                                     client-trail.bstrail (bsync_desync_trace)
 *   bsync_desync_bundle_trace_memory  the same from those files' bytes in memory
 *   bsync_desync_bundle_load_state    a bsync_match_save file into a match
 *
 * Edge code (blendsync_io): reads and writes files; never per tick. */
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
#define BSYNC_DESYNC_BUNDLE_CONFIG_MAX 4096u /* match_config's bytes + 1 (a resolved path) */
#define BSYNC_DESYNC_BUNDLE_FORMAT 2         /* bundle.json's "format" (docs/replay-verify.md) */

typedef enum bsync_desync_bundle_side {
    BSYNC_DESYNC_BUNDLE_SERVER = 0, /* report.txt, report.html, bundle.json (written last) */
    BSYNC_DESYNC_BUNDLE_CLIENT = 1  /* desync.txt: the client's own dump */
} bsync_desync_bundle_side;

/* One checksum tick of report.html's timeline. */
typedef struct bsync_desync_bundle_check {
    uint32_t tick;
    uint64_t server;                          /* the server's blend checksum */
    uint64_t client[BSYNC_MATCH_MAX_PLAYERS]; /* each slot's report, where client_mask has its bit */
    uint32_t client_mask;
} bsync_desync_bundle_check;

/* What a bundle holds. Zero it, then set what there is: a file is written when its pointer is set. */
typedef struct bsync_desync_bundle_desc {
    bsync_desync_bundle_side side;
    const char* root;  /* the bundle is ROOT/tick<T>-slot<S>/ (ROOT made when missing; its parent must exist) */
    uint32_t tick;     /* T: the states are the ones after frame T */
    uint32_t slot;     /* S: the desynced client's slot */
    /* bundle.json (side SERVER) */
    uint64_t match_id;
    uint64_t match_hash;
    const char* match_config; /* the match config's path; NULL: null */
    long long previous_tick;  /* the frame server_previous is the state after */
    long long first_divergent_tick, first_divergent_character; /* -1: not located */
    const char* build;        /* NULL: "" */
    uint32_t asset_count;     /* asset_names[i] (any UTF-8) and asset_hashes[i] */
    const char* const* asset_names;
    const uint64_t* asset_hashes;
    /* the files */
    const uint8_t* server_state;    size_t server_state_len;    /* server.bsms */
    const uint8_t* client_state;    size_t client_state_len;    /* client.bsms */
    const uint8_t* server_previous; size_t server_previous_len; /* server-previous.bsms */
    const uint8_t* client_previous; size_t client_previous_len; /* client-previous.bsms */
    const uint8_t* client_trail;    size_t client_trail_len;    /* client-trail.bstrail */
    const char* report;             /* report.txt (SERVER) or desync.txt (CLIENT) */
    /* inputs.csv when match is set: frames[i] is frame frame_first + i (bsync_desync_inputs_csv; names
     * and defaulted may be NULL; frame_count 0 writes the header alone) */
    const bsync_match_desc* match;
    const bsync_match_config* names;
    const bsync_match_frame* frames;
    const uint16_t* defaulted;
    uint32_t frame_first, frame_count;
    /* report.html (SERVER): the checksum timeline of player_count slots, the row of tick T outlined */
    const bsync_desync_bundle_check* checks;
    uint32_t check_count, player_count;
} bsync_desync_bundle_desc;

/* Make ROOT/tick<T>-slot<S>/ and write d's files into it, each through a temporary name and a rename;
 * bundle.json last, so a bundle with a bundle.json is complete. The folder's path into dir (cap bytes;
 * dir may be NULL). Every file is tried; BSYNC_OK, or the first failure: BSYNC_IO_ERROR "cannot write
 * PATH: <errno text>" / "cannot make PATH: ...", BSYNC_LIMIT_EXCEEDED (a path longer than
 * BSYNC_DESYNC_BUNDLE_PATH_MAX), BSYNC_OUT_OF_MEMORY, BSYNC_INVALID_ARGUMENT (NULL d or d->root, a
 * pointer without its data). */
BSYNC_API bsync_result bsync_desync_bundle_write(const bsync_desync_bundle_desc* d, char* dir, size_t cap, bsync_error* err);

/* bundle.json's text for d (a cJSON object, one line and a newline); returns the bytes it needs
 * (excluding the NUL), writes at most cap - 1 of them and a NUL (cap 0: nothing), 0 when out of
 * memory. */
BSYNC_API size_t bsync_desync_bundle_json(const bsync_desync_bundle_desc* d, char* out, size_t cap);

/* report.html's text for d (one self-contained page; every text HTML-escaped), as _json sizes it. */
BSYNC_API size_t bsync_desync_bundle_html(const bsync_desync_bundle_desc* d, char* out, size_t cap);

/* A bundle as read. Strings NUL-terminated; a field absent from bundle.json (or not of its type) reads
 * as its default. */
typedef struct bsync_desync_bundle {
    char dir[1024];       /* the directory as given, without trailing separators */
    char meta[BSYNC_DESYNC_BUNDLE_PATH_MAX];            /* DIR/bundle.json */
    char server_state[BSYNC_DESYNC_BUNDLE_PATH_MAX];    /* DIR/<"server", default server.bsms> */
    char client_state[BSYNC_DESYNC_BUNDLE_PATH_MAX];    /* DIR/<"client", default client.bsms> */
    char server_previous[BSYNC_DESYNC_BUNDLE_PATH_MAX]; /* DIR/server-previous.bsms */
    char client_trail[BSYNC_DESYNC_BUNDLE_PATH_MAX];    /* DIR/client-trail.bstrail */
    char inputs[BSYNC_DESYNC_BUNDLE_PATH_MAX];          /* DIR/inputs.csv */
    long long slot;         /* "slot", -1 when absent */
    int has_match_config;   /* "match_config" is a string */
    char match_config[BSYNC_DESYNC_BUNDLE_CONFIG_MAX]; /* as written: the server's resolved path of it */
    int format;             /* "format"; 1: none (an earlier writer); 0: bundle.json is no JSON object */
    uint64_t match_id;      /* 0 when absent */
    int has_match_hash;
    uint64_t match_hash;    /* "match_hash": 16 hex digits */
    long long tick, previous_tick;                             /* -1 when absent */
    long long first_divergent_tick, first_divergent_character; /* -1 when absent */
    int has_server_previous, has_inputs, has_client_trail;     /* named (not null) in bundle.json */
    char build[BSYNC_REPLAY_MAX_TEXT + 1];                     /* cut to 256 bytes */
    uint32_t asset_count;                                      /* the first 256, names cut to 256 bytes */
    bsync_replay_asset assets[BSYNC_REPLAY_MAX_ASSETS];
} bsync_desync_bundle;

/* Read DIR/bundle.json with cJSON. A bundle.json without "format" (an earlier server's, which printed
 * its strings unescaped) is read with its backslashes taken literally when JSON's escapes would not read
 * it or would give a control character (a Windows path). Text that is no JSON object reads as no fields
 * (format 0). BSYNC_IO_ERROR ("cannot read DIR/bundle.json: <errno text>"), BSYNC_LIMIT_EXCEEDED
 * ("DIR/bundle.json: a state file's path is too long", "... match_config is longer than 4095 bytes"),
 * BSYNC_OUT_OF_MEMORY, BSYNC_INVALID_ARGUMENT for NULL arguments. */
BSYNC_API bsync_result bsync_desync_bundle_open(const char* dir, bsync_desync_bundle* out, bsync_error* err);

/* bsync_desync_bundle_open from bundle.json's text (len bytes, need not be NUL-terminated; text read up to
 * its first NUL byte, as from a file): dir gives the state files' paths and the messages' names (no file
 * is read). The same results but BSYNC_IO_ERROR. */
BSYNC_API bsync_result bsync_desync_bundle_parse(const char* dir, const char* text, size_t len, bsync_desync_bundle* out,
                                                 bsync_error* err);

/* The match config's path into out: match_path when given (the caller's override), else bundle.json's
 * match_config as written when that file is readable, else (a relative one) DIR/../../<as written>, else
 * DIR/../../<its file name>. BSYNC_NOT_FOUND with a message naming what to pass otherwise. */
BSYNC_API bsync_result bsync_desync_bundle_find_config(const bsync_desync_bundle* b, const char* match_path, char* out,
                                                       size_t cap, bsync_error* err);

/* Frames first .. first + count - 1 of an inputs.csv text (len bytes; need not be NUL-terminated) for
 * a match of d: a header line, then rows "tick,slot,defaulted,<params>,<triggers>" (parameters as
 * exact fix16 decimals, triggers 0..255); rows outside the range are skipped. frames (count of them)
 * are zeroed first; every frame's player_count is d's. Every (tick, slot) in the range must have a
 * row. BSYNC_OK, or BSYNC_CONFIG_ERROR with "NAME:LINE: ..." / "NAME has no input for tick T slot S"
 * (name: for messages), BSYNC_OUT_OF_MEMORY. */
BSYNC_API bsync_result bsync_desync_bundle_inputs_parse(const char* text, size_t len, const char* name, const bsync_match_desc* d,
                                                 uint32_t first, uint32_t count, bsync_match_frame* frames,
                                                 const bsync_allocator* allocator, bsync_error* err);

/* The data rows of a CSV text: its non-blank lines ('\r' alone is blank) after the first. */
BSYNC_API size_t bsync_desync_bundle_inputs_rows(const char* text, size_t len);

/* The first divergence of a bundle: work is loaded with server-previous.bsms, other with server_final
 * (the server's state, server.bsms), the frames between them are read from inputs.csv (refused when
 * inputs.csv holds fewer rows than frames x players, before anything is sized by the states' ticks),
 * and bsync_desync_trace runs against client-trail.bstrail (text into out, cap bytes; *result).
 * *reproduced: the re-simulation ended in server_final, byte for byte. BSYNC_OK traced;
 * BSYNC_NOT_FOUND: the bundle has no readable client-trail.bstrail (nothing done); anything else an
 * error with err->message ("cannot read ...", "... is a snapshot of another match ...",
 * "server-previous.bsms is newer than server.bsms", ...). work and other must be matches of cfg's desc. */
BSYNC_API bsync_result bsync_desync_bundle_trace(const bsync_desync_bundle* b, const bsync_match_config* cfg,
                                                 bsync_match* work, bsync_match* other, const uint8_t* server_final,
                                                 size_t server_final_len, const bsync_allocator* allocator,
                                                 bsync_desync_trace_result* result, char* out, size_t cap,
                                                 int* reproduced, bsync_error* err);

/* bsync_desync_bundle_trace over the files' bytes in memory (b only names them in messages): previous =
 * server-previous.bsms, trail_bytes = client-trail.bstrail, csv = inputs.csv (each may be NULL with length
 * 0). The same checks, in the same order, after the files were read; never BSYNC_NOT_FOUND (an empty or
 * absent trail is a BSYNC_BAD_BLOB). bsync_desync_bundle_trace reads the three files and calls this. */
BSYNC_API bsync_result bsync_desync_bundle_trace_memory(const bsync_desync_bundle* b, const bsync_match_config* cfg,
                                                        bsync_match* work, bsync_match* other, const uint8_t* server_final,
                                                        size_t server_final_len, const uint8_t* previous, size_t previous_len,
                                                        const uint8_t* trail_bytes, size_t trail_len, const char* csv,
                                                        size_t csv_len, const bsync_allocator* allocator,
                                                        bsync_desync_trace_result* result, char* out, size_t cap,
                                                        int* reproduced, bsync_error* err);

/* Load a bsync_match_save file into m: BSYNC_IO_ERROR "cannot read PATH: <errno text>", BSYNC_MISMATCH
 * "PATH is a snapshot of another match (its match hash differs from the config's)", or the load's
 * error "PATH is not a valid match snapshot (<result text>)". */
BSYNC_API bsync_result bsync_desync_bundle_load_state(bsync_match* m, const char* path, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_DESYNC_BUNDLE_H */
