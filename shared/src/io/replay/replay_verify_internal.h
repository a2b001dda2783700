/* replay_verify_internal.h — what the files of replay verification share (not a public header):
 * the source of the replay bytes, the verification context and the parallel pass. */
#ifndef BLENDSYNC_IO_REPLAY_VERIFY_INTERNAL_H
#define BLENDSYNC_IO_REPLAY_VERIFY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/io/replay_verify.h"

/* Where the replay bytes come from: a file (path) or memory (data, len). name is for messages. */
typedef struct bsync_rv_source {
    const char* path;
    const void* data;
    size_t len;
    const char* name;
} bsync_rv_source;

/* Open a reader on the source, allocating from a (a memory source is read in place). BSYNC_OK, or an
 * error with msg ("cannot read PATH: ..."). */
bsync_result bsync_rv_open_reader(const bsync_allocator* a, const bsync_rv_source* src, bsync_replay_reader** out,
                                  char* msg, size_t cap);

/* Allocation through the resolved allocator: 16-byte alignment (matches), sizes remembered by the
 * caller for the free. */
void* bsync_rv_alloc(const bsync_allocator* a, size_t size);
void bsync_rv_free(const bsync_allocator* a, void* p, size_t size);

/* The parallel pass (replay_verify_parallel.c). On success (returns 0, *mismatch 0) final (cap bytes,
 * the caller's) holds bsync_match_save of the state after the last frame and *final_len its length.
 * *mismatch 1: some segment did not verify (the caller re-runs sequentially). -1: not possible
 * (memory, an unreadable file): the caller runs sequentially. */
typedef struct bsync_rv_parallel_out {
    uint64_t ticks, checksums, pose_checksums, snapshots, segments;
    int mismatch;
    size_t final_len;
} bsync_rv_parallel_out;
int bsync_rv_parallel(const bsync_allocator* a, const bsync_rv_source* src, const bsync_match_desc* desc, unsigned jobs,
                      int poses, uint8_t* final, size_t final_cap, bsync_replay_record* rec, bsync_rv_parallel_out* out);

/* The config lookup with a message of any length (the public call wraps it in bsync_error). 0 or -1. */
int bsync_rv_config_load(const bsync_replay_header* h, const char* replay_path, const char* match_path,
                         const char* graph_path, const bsync_allocator* allocator, bsync_match_config** out, char* used,
                         size_t used_cap, char* msg, size_t msg_cap);

/* Every character's local pose into local (BSYNC_MAX_JOINTS transforms): a viewer's work. 0 or -1. */
int bsync_rv_pose_all(bsync_match* m, bsync_trs* local);

#endif
