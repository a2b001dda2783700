/* replay_sim.h — what `blendsync replay` and `blendsync desync` share: rebuilding a replay's match from
 * its recorded config (or --match), refusing a replay whose match differs from the one built here,
 * a match in heap memory with a save buffer, and small output helpers (JSON strings, hex).
 * CLI code (files, malloc, stdio); see docs/replay-verify.md. */
#ifndef BLENDSYNC_CLI_REPLAY_SIM_H
#define BLENDSYNC_CLI_REPLAY_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/match.h"

/* Load the match config for a replay. match_path non-NULL: that file (bsync_match_config_load).
 * Else graph_path non-NULL: the header's config text with every character's "graph" replaced by that
 * file's absolute path (re-printed by cJSON; the match hash still tells whether it is the recorded
 * graph). Otherwise the header's config text is parsed (bsync_match_config_parse, named by the recorded config
 * path) against these base directories, the first that loads wins:
 *   1. the directory of the recorded config path (as recorded: relative to the server's working dir);
 *   2. when that is relative: the replay file's directory joined with it;
 *   3. the replay file's directory.
 * `used` (may be NULL) receives a short description of what was loaded. Returns 0, or -1 with a
 * message in msg (the error of the first candidate). */
int replay_sim_config(const bsync_replay_header* h, const char* replay_path, const char* match_path,
                      const char* graph_path, bsync_match_config** out, char* used, size_t used_cap, char* msg,
                      size_t msg_cap);

/* Everything that makes a replay unfit for this match: format version, match hash, tick rate and
 * counts, assets compared by name (hash mismatch, missing on either side; by_clip: by the clip part of
 * "GRAPH:CLIP" only, for --graph). One line per difference
 * (each ending in "\n") into out; returns the number of differences (0: fit). */
unsigned replay_sim_compare(const bsync_replay_header* h, const bsync_match_config* cfg, int by_clip, char* out,
                            size_t cap);

/* A match of cfg's desc in heap memory, plus a second one (for describing a difference) and a save
 * buffer of bsync_match_snapshot_size_max bytes (the largest snapshot of the match). */
typedef struct replay_sim {
    const bsync_match_config* cfg;
    const bsync_match_desc* desc;
    void* mem[2];
    bsync_match* match;
    bsync_match* other;
    uint8_t* buf;
    size_t buf_cap;
} replay_sim;
int replay_sim_open(replay_sim* s, const bsync_match_config* cfg, char* msg, size_t msg_cap);
void replay_sim_close(replay_sim* s);

/* The newest SNAPSHOT record with tick <= limit among the readable records of the file: 1 and *tick,
 * or 0 when there is none. */
int replay_sim_find_snapshot(const char* path, uint32_t limit, uint32_t* tick);

/* Every character's local pose into `local` (BSYNC_MAX_JOINTS transforms, the caller's: one per
 * thread), as a viewer computes it after a tick: --poses between checksum ticks, where no checksum is
 * compared, does the pose work without the XXH64s. 0, or -1 when a pose fails. */
int replay_sim_pose_all(bsync_match* m, bsync_trs* local);

/* Helpers for output. */
void replay_json_string(FILE* f, const char* s); /* "..." with JSON escapes */
/* The lines of text as a JSON array of strings; only_indented: only the lines starting with two
 * spaces, without them (the difference lines of io/desync.h). */
void replay_lines_json(FILE* f, const char* text, int only_indented);
const char* replay_desync_kind(uint32_t kind);   /* "root blend", "character pose", ... */
const char* replay_end_reason(uint32_t reason);  /* "normal", "shutdown", "aborted", "unknown" */
/* Read a whole file (malloc'd, NUL added; free()). 0 or -1 (errno set). */
int replay_read_file(const char* path, uint8_t** out, size_t* len);

#endif
