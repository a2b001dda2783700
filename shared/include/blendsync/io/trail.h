/* blendsync/io/trail.h — a client's per-tick states of chosen characters, uploaded with its desync
 * dump so bsync_desync_trace can find the first divergent tick.
 *
 * Index
 *   bsync_trail             a parsed trail (a view into the bytes)
 *   bsync_trail_write       build one from match snapshots
 *   bsync_trail_parse       check and parse one
 *   bsync_trail_entry       one character's state at one tick
 *
 * design: docs/replay-verify.md (The desync library)
 */
#ifndef BLENDSYNC_IO_TRAIL_H
#define BLENDSYNC_IO_TRAIL_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_TRAIL_VERSION 1u
#define BSYNC_TRAIL_SEED 0x4253545241494C31ull /* "BSTRAIL1" */
#define BSYNC_TRAIL_MAX_TICKS 1024u
#define BSYNC_TRAIL_MAX_CHARACTERS 64u

typedef struct bsync_trail {
    const uint8_t* data; /* not copied */
    size_t len;
    uint64_t match_hash;
    uint32_t first_tick;
    uint32_t tick_count;
    uint32_t character_count;
    uint32_t characters[BSYNC_TRAIL_MAX_CHARACTERS];
    size_t entries_offset;
} bsync_trail;

/* snaps[i]: the state at tick first_tick + i; drops the oldest ticks that do not fit. */
BSYNC_API bsync_result bsync_trail_write(bsync_match* scratch, const uint8_t* const* snaps, const size_t* lens, uint32_t count,
                               uint32_t first_tick, const uint32_t* characters, uint32_t character_count, void* buf,
                               size_t cap, size_t* written, uint32_t* first_kept, bsync_error* err);

/* BSYNC_BAD_BLOB (message in err), BSYNC_INVALID_ARGUMENT. */
BSYNC_API bsync_result bsync_trail_parse(const void* data, size_t len, bsync_trail* out, bsync_error* err);

/* Tick index i, listed character index k. */
BSYNC_API bsync_result bsync_trail_entry(const bsync_trail* trail, uint32_t i, uint32_t k, const uint8_t** bytes, size_t* len);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_TRAIL_H */
