/* replay_sim.h — what `blendsync replay` and `blendsync desync` share: a match in heap memory with a
 * save buffer, and small output helpers (lines as JSON, whole files). Finding a replay's config and refusing
 * a different match are library calls (blendsync/io/replay_verify.h). CLI code (files, malloc, stdio);
 * see docs/replay-verify.md. */
#ifndef BLENDSYNC_CLI_REPLAY_SIM_H
#define BLENDSYNC_CLI_REPLAY_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/match.h"
#include "cli_json.h"

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

/* The lines of text as a JSON array of strings added to parent (cli_json.h); only_indented: only
 * the lines starting with two spaces, without them (the difference lines of io/desync.h). */
cJSON* replay_lines_json(cJSON* parent, const char* key, const char* text, int only_indented);
/* Read a whole file (malloc'd, NUL added; free()). 0 or -1 (errno set). */
int replay_read_file(const char* path, uint8_t** out, size_t* len);

#endif
