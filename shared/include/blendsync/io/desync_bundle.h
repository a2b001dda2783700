/* blendsync/io/desync_bundle.h — read the desync bundle the server writes
 * (<replay>.desync/tick<T>-slot<S>/, docs/replay-verify.md): its bundle.json, where its match config
 * is, its inputs.csv, and the first divergence from its trail (what `blendsync desync diff BUNDLE`
 * prints is made of these calls).
 *
 * Index
 *   bsync_desync_bundle               the bundle's files and bundle.json's fields
 *   bsync_desync_bundle_open          read bundle.json
 *   bsync_desync_bundle_parse         the same from bundle.json's text in memory
 *   bsync_desync_bundle_find_config   the match config: --match, as written, or next to the .desync folder
 *   bsync_desync_bundle_inputs_parse         inputs.csv text -> frames (the inverse of bsync_desync_inputs_csv)
 *   bsync_desync_bundle_inputs_rows          the data rows of a CSV text
 *   bsync_desync_bundle_trace         server-previous.bsms + inputs.csv re-simulated against
 *                                     client-trail.bstrail (bsync_desync_trace)
 *   bsync_desync_bundle_trace_memory  the same from those files' bytes in memory
 *
 * A bundle holds bundle.json (a flat JSON object: "server", "client", "match_config", "slot", ...),
 * server.bsms and client.bsms (bsync_match_save bytes after the desynced frame), report.txt, and from
 * servers that keep a trail also server-previous.bsms (the last agreeing state), inputs.csv (the
 * confirmed frames since) and client-trail.bstrail (io/trail.h).
 *
 * Edge code (blendsync_io): reads files; what it allocates comes from the allocator given (NULL:
 * malloc/free). Never per tick. */
#ifndef BLENDSYNC_IO_DESYNC_BUNDLE_H
#define BLENDSYNC_IO_DESYNC_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/io/desync.h"
#include "blendsync/io/match_config.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_DESYNC_BUNDLE_PATH_MAX 1200u

typedef struct bsync_desync_bundle {
    char dir[1024];       /* the directory as given, without trailing separators */
    char meta[BSYNC_DESYNC_BUNDLE_PATH_MAX];            /* DIR/bundle.json */
    char server_state[BSYNC_DESYNC_BUNDLE_PATH_MAX];    /* DIR/<"server", default server.bsms> */
    char client_state[BSYNC_DESYNC_BUNDLE_PATH_MAX];    /* DIR/<"client", default client.bsms> */
    char server_previous[BSYNC_DESYNC_BUNDLE_PATH_MAX]; /* DIR/server-previous.bsms */
    char client_trail[BSYNC_DESYNC_BUNDLE_PATH_MAX];    /* DIR/client-trail.bstrail */
    char inputs[BSYNC_DESYNC_BUNDLE_PATH_MAX];          /* DIR/inputs.csv */
    long long slot;         /* "slot", -1 when absent */
    int has_match_config;   /* "match_config" is there */
    char match_config[1024]; /* "match_config" as written (relative to the server's working directory) */
} bsync_desync_bundle;

/* Read DIR/bundle.json. BSYNC_IO_ERROR ("cannot read DIR/bundle.json: <errno text>"),
 * BSYNC_LIMIT_EXCEEDED ("DIR/bundle.json: a state file's path is too long"), BSYNC_INVALID_ARGUMENT
 * for NULL arguments. */
BSYNC_API bsync_result bsync_desync_bundle_open(const char* dir, bsync_desync_bundle* out, bsync_error* err);

/* bsync_desync_bundle_open from bundle.json's text (len bytes, need not be NUL-terminated; text read up to
 * its first NUL byte, as from a file): dir gives the state files' paths and the messages' names (no file
 * is read). BSYNC_OK, BSYNC_LIMIT_EXCEEDED as _open, BSYNC_INVALID_ARGUMENT, BSYNC_OUT_OF_MEMORY. */
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
