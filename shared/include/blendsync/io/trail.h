/* blendsync/io/trail.h — a client's per-tick states of chosen characters: the "trail" a client
 * uploads with its desync dump, so that the first divergent tick and the operation that produced the
 * difference can be found by re-simulating from the last agreeing state (io/desync.h,
 * bsync_desync_trace; docs/lockstep.md "Desync bundles").
 *
 * Index
 *   bsync_trail             a parsed trail (a view into the caller's bytes)
 *   bsync_trail_write       build one from consecutive match snapshots (bsync_match_save bytes)
 *   bsync_trail_parse       check and parse one (every byte checked: never a crash on bad input)
 *   bsync_trail_entry       the instance snapshot of one listed character at one tick
 *
 * Format (all integers little-endian): "BSTR" magic, u32 version (BSYNC_TRAIL_VERSION), u64 match hash
 * (bsync_match_hash), u32 first tick F, u32 tick count T (1..BSYNC_TRAIL_MAX_TICKS), u32 character
 * count C (1..BSYNC_TRAIL_MAX_CHARACTERS), C × u32 character indices (strictly increasing), then T × C
 * entries in tick-major order: u32 length n (1..65536) and n bytes of bsync_instance_save of that
 * character in the state at the START of tick F + i (after frame F + i - 1 was applied); then u64
 * XXH64 (seed BSYNC_TRAIL_SEED) of every byte before it. Nothing may follow.
 *
 * Edge code (files and network uploads), not per-tick; no allocation.
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
    const uint8_t* data; /* the caller's bytes (not copied) */
    size_t len;
    uint64_t match_hash;
    uint32_t first_tick;  /* entry i: the state at the start of tick first_tick + i */
    uint32_t tick_count;
    uint32_t character_count;
    uint32_t characters[BSYNC_TRAIL_MAX_CHARACTERS];
    size_t entries_offset; /* where the first entry's length field starts */
} bsync_trail;

/* Builds a trail into buf (cap bytes) from `count` consecutive match snapshots: snaps[i] (lens[i] bytes)
 * is the state at the start of tick first_tick + i. Each is loaded into `scratch` (a match of the same
 * desc; its state is overwritten) and characters[0..character_count) are saved from it. When the whole
 * trail does not fit, the OLDEST ticks are left out (the newest always kept: they hold the divergence),
 * down to one tick; *written = bytes, *first_kept = the first tick kept (may be NULL).
 * BSYNC_BUFFER_TOO_SMALL when not even one tick fits; BSYNC_INVALID_ARGUMENT for bad arguments or a
 * snapshot that does not load (its result in err). */
BSYNC_API bsync_result bsync_trail_write(bsync_match* scratch, const uint8_t* const* snaps, const size_t* lens, uint32_t count,
                               uint32_t first_tick, const uint32_t* characters, uint32_t character_count, void* buf,
                               size_t cap, size_t* written, uint32_t* first_kept, bsync_error* err);

/* Checks every field and the XXH64. BSYNC_BAD_BLOB (message in err) for anything malformed,
 * BSYNC_INVALID_ARGUMENT for a NULL data or out. */
BSYNC_API bsync_result bsync_trail_parse(const void* data, size_t len, bsync_trail* out, bsync_error* err);

/* The entry of listed character index k (0..character_count) at tick index i (0..tick_count). */
BSYNC_API bsync_result bsync_trail_entry(const bsync_trail* trail, uint32_t i, uint32_t k, const uint8_t** bytes, size_t* len);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_TRAIL_H */
