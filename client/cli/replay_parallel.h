/* replay_parallel.h — `blendsync replay verify --jobs N`: the segments between a replay's snapshots
 * verified in parallel.
 *
 * The replay is read once; its SNAPSHOT records cut the match into segments [S_k, S_k+1) (the first
 * starts from the match's initial state at the header's start tick 0). N threads take segments in
 * turn; each owns a match (bsync_match in its own memory: the core keeps no globals, graphs are
 * immutable and shared), loads the segment's starting snapshot, applies its frames, compares every
 * CHECKSUM record inside it (the pose too when recorded, or on every tick with `poses`), and at the
 * end compares its state byte for byte with the snapshot that closes the segment. The first mismatch
 * in tick order is reported, so the verdict equals the sequential one; the work scales with the
 * number of segments (one per 600 ticks in server replays).
 * CLI code (threads, malloc). */
#ifndef BLENDSYNC_CLI_REPLAY_PARALLEL_H
#define BLENDSYNC_CLI_REPLAY_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/match.h"

typedef struct replay_par_result {
    uint64_t ticks, checksums, pose_checksums, snapshots, segments;
    int mismatch;
    uint32_t mismatch_tick;
    char mismatch_what[64];
    char mismatch_text[400];
    uint8_t* final_state; /* malloc'd bsync_match_save bytes after the last frame verified (free()) */
    size_t final_len;
    char error[600];
} replay_par_result;

/* 0 when it ran (see out: mismatch or not); -1 with out->error when the replay cannot be used this way
 * (unreadable before the first frame, a start tick other than 0, out of memory). */
int replay_verify_parallel(const char* file, const bsync_match_desc* desc, unsigned jobs, int poses,
                           replay_par_result* out);

#endif
