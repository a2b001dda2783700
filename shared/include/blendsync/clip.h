/* blendsync/clip.h — animation clips: per-joint translation/rotation/scale keys in fixed point.
 *
 * Index
 *   bsync_track_kind, bsync_raw_track, bsync_clip_desc   the editable (raw) form
 *   bsync_clip_validate                                   check a desc against a skeleton
 *   bsync_clip_memory_size / bsync_clip_init              build into caller memory
 *   bsync_clip_create / bsync_clip_destroy                build with an allocator / free it
 *   bsync_clip_duration, _joint_count, _track_count, _name, _block_size
 *   bsync_clip_track_info                                 what a built track holds (tools, checksums)
 *   bsync_clip_block_validate                             check untrusted bytes (a loaded file) are a clip
 *   bsync_clip_compact_memory_size / _init / _create      the compact key encoding of a built clip
 *   bsync_clip_encoding, bsync_clip_track_key             which encoding; one decoded key (any encoding)
 *
 * Time unit: seconds, as fix16. A key time is in [0, duration]. The loop flag is the clip's default
 * playback mode (bsync_clip_loops); sampling takes the mode explicitly (sample.h).
 *
 * Rules checked by validate (and so by init/create), tracks in the order given:
 *   desc != NULL and skeleton != NULL                           else BSYNC_INVALID_ARGUMENT
 *   duration >= 0                                              else BSYNC_BAD_DURATION
 *   track_count == 0 or tracks != NULL; every track has key_count >= 1 and times != NULL and the
 *     values pointer of its kind != NULL, and kind is one of the three
 *                                                              else BSYNC_INVALID_ARGUMENT
 *   track.joint < skeleton joint count                         else BSYNC_NO_SUCH_JOINT
 *   at most one track of each kind per joint                   else BSYNC_DUPLICATE_TRACK
 *   key times strictly ascending                               else BSYNC_KEYS_UNSORTED
 *   key times in [0, duration]                                 else BSYNC_KEY_OUT_OF_RANGE
 *   rotation keys not zero                                     else BSYNC_BAD_ROTATION
 *   name NULL or shorter than BSYNC_MAX_NAME bytes             else BSYNC_BAD_NAME
 *   total keys < 2^24                                          else BSYNC_LIMIT_EXCEEDED
 *     (the running total is checked before a track's keys are read)
 *
 * What the builder does to the data, so that every machine gets the same bits:
 *   - rotation keys are normalised (bsync_quat_normalize) and made sign-continuous: a key whose dot
 *     product with the previous key is negative is negated (same rotation, shortest interpolation);
 *   - tracks are stored sorted by (joint, kind), whatever order the desc gave them in;
 *   - a joint without a track of some kind takes that component from the skeleton's rest pose.
 *
 * The built clip is one block with offsets only (relocatable: memcpy gives a working copy),
 * 8-byte aligned, immutable, and shared by any number of samplers. It starts with a magic/version
 * word, has the same layout on 32- and 64-bit targets, and every byte is written (padding zero), so
 * two builds of one desc (in any track order) are byte-identical apart from the allocator slot that
 * only bsync_clip_create fills in. A per-joint table maps (joint, kind) to its track, so sampling
 * costs O(joints + tracks), never a search over tracks.
 *
 * Does not: allocate except in bsync_clip_create, keep globals, or print.
 */
#ifndef BLENDSYNC_CLIP_H
#define BLENDSYNC_CLIP_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bsync_track_kind {
    BSYNC_TRACK_TRANSLATION = 0,
    BSYNC_TRACK_ROTATION = 1,
    BSYNC_TRACK_SCALE = 2
} bsync_track_kind;

typedef struct bsync_raw_track {
    uint32_t joint;           /* index in the skeleton */
    bsync_track_kind kind;
    uint32_t key_count;       /* >= 1 */
    const fix16_t* times;     /* key_count seconds, strictly ascending, in [0, duration] */
    const bsync_vec3* vec3s;  /* key_count values for TRANSLATION and SCALE tracks */
    const bsync_quat* quats;  /* key_count values for ROTATION tracks */
} bsync_raw_track;

typedef struct bsync_clip_desc {
    const char* name;             /* may be NULL (stored as "") */
    fix16_t duration;             /* seconds, >= 0 */
    int loop;                     /* default playback: nonzero = wrap, 0 = clamp */
    const bsync_raw_track* tracks;
    uint32_t track_count;
} bsync_clip_desc;

typedef struct bsync_clip bsync_clip; /* opaque; lives in one block */

/* Read-only view of one built track (index in [0, track_count), sorted by joint, then kind). */
typedef struct bsync_track_info {
    uint32_t joint;
    bsync_track_kind kind;
    uint32_t key_count;
    const fix16_t* times;
    const bsync_vec3* vec3s; /* NULL for rotation tracks */
    const bsync_quat* quats; /* NULL for translation and scale tracks */
} bsync_track_info;

BSYNC_API bsync_result bsync_clip_validate(const bsync_clip_desc* desc, const bsync_skeleton* skeleton);
/* Bytes the built clip needs; 0 if the desc is invalid for this skeleton. */
BSYNC_API size_t bsync_clip_memory_size(const bsync_clip_desc* desc, const bsync_skeleton* skeleton);
/* Build into `mem` (8-byte aligned). BSYNC_INVALID_ARGUMENT if mem or out is NULL or mem is not
 * 8-byte aligned; validation codes; then BSYNC_BUFFER_TOO_SMALL if size is short. Writes nothing
 * (neither `mem` nor *out) on failure. The clip does not point to the skeleton; it records its joint
 * count. create makes exactly one allocation (none if validation fails; BSYNC_OUT_OF_MEMORY). */
BSYNC_API bsync_result bsync_clip_init(void* mem, size_t size, const bsync_clip_desc* desc,
                             const bsync_skeleton* skeleton, bsync_clip** out);
BSYNC_API bsync_result bsync_clip_create(const bsync_clip_desc* desc, const bsync_skeleton* skeleton,
                               const bsync_allocator* allocator, bsync_clip** out);
BSYNC_API void bsync_clip_destroy(bsync_clip* clip);

/* Check that `size` bytes at `mem` (8-byte aligned) are exactly a clip block as bsync_clip_init writes
 * it, for `skeleton` (NULL: any joint count 1..BSYNC_MAX_JOINTS): magic, version, block size == size,
 * zero allocator slot and reserved fields, loop 0 or 1, duration >= 0, a NUL-terminated name with
 * zero bytes after the NUL, tracks sorted by (joint, kind) with kinds < 3, joints < joint count,
 * key counts >= 1, total keys < 2^24, every offset equal to the layout's, the lookup table matching
 * the tracks, key times strictly ascending in [0, duration], rotation keys non-zero, padding zero,
 * and the content fingerprint. Reads nothing outside [mem, mem + size). BSYNC_OK and *out = mem, else
 * BSYNC_BAD_BLOB (BSYNC_MISMATCH when only the joint count differs from the skeleton's,
 * BSYNC_INVALID_ARGUMENT for NULL or misaligned arguments); *out untouched on failure. */
BSYNC_API bsync_result bsync_clip_block_validate(const void* mem, size_t size, const bsync_skeleton* skeleton,
                                       const bsync_clip** out);

BSYNC_API size_t bsync_clip_block_size(const bsync_clip* clip);
BSYNC_API fix16_t bsync_clip_duration(const bsync_clip* clip);
BSYNC_API int bsync_clip_loops(const bsync_clip* clip); /* 1 if desc.loop was nonzero, else 0 */
BSYNC_API const char* bsync_clip_name(const bsync_clip* clip);
/* Joint count of the skeleton the clip was built for. */
BSYNC_API uint32_t bsync_clip_joint_count(const bsync_clip* clip);
BSYNC_API uint32_t bsync_clip_track_count(const bsync_clip* clip);
/* BSYNC_INVALID_ARGUMENT if index >= track_count. For a compact clip (bsync_clip_encoding == 1) the
 * times, vec3s and quats pointers are NULL (there are no fix16 arrays): read keys with
 * bsync_clip_track_key. */
BSYNC_API bsync_result bsync_clip_track_info(const bsync_clip* clip, uint32_t index, bsync_track_info* out);
/* Key `key` of track `track` as sampling sees it (for a compact clip: decoded): its time, and its
 * value into *vec3 (translation, scale) or *rotation; NULL outputs are skipped. BSYNC_INVALID_ARGUMENT
 * for a NULL clip or an index out of range. */
BSYNC_API bsync_result bsync_clip_track_key(const bsync_clip* clip, uint32_t track, uint32_t key, fix16_t* time,
                                            bsync_vec3* vec3, bsync_quat* rotation);

/* ---- compact keys (opt-in; issue 17; docs/clip-format.md "Compact keys").
 * bsync_clip_compact_* build, from a built default clip `src`, a clip of the same tracks, key counts
 * and key times whose keys are stored compactly: key times as u16 indices into a per-clip table of
 * the distinct times (lossless); rotations as the smallest three components in 15 bits each, the
 * largest's index in 2 bits and a sign bit (6 bytes; lossy: within 2e-4 rad of the source key);
 * translations and scales with all keys equal stored once as fix16 (lossless), else per track and
 * component as base + (u << shift) with u in 16 bits and the smallest shift that covers the track's
 * range (lossless when the range is below 65536 fix16 units; else within 2^(shift-1) units); a blob
 * of the same content (time indices, values) stored once. The block is version 2 (version-1 readers
 * refuse it); its fingerprint, and so cursors, plans and bsync_checksum_clip, differ from the source's.
 * Sampling decodes the two keys it needs with integer arithmetic only (the same bits everywhere)
 * and then applies sample.h's rule to the decoded keys. Deterministic: the same src gives the same
 * bytes on every machine. Limits: at most 65535 keys per track and 65536 distinct key times
 * (else BSYNC_LIMIT_EXCEEDED; memory_size returns 0). src already compact: BSYNC_INVALID_ARGUMENT. */
BSYNC_API size_t bsync_clip_compact_memory_size(const bsync_clip* src);
/* Into `mem` (8-byte aligned, not overlapping src); BSYNC_BUFFER_TOO_SMALL if size is short. */
BSYNC_API bsync_result bsync_clip_compact_init(void* mem, size_t size, const bsync_clip* src, bsync_clip** out);
BSYNC_API bsync_result bsync_clip_compact_create(const bsync_clip* src, const bsync_allocator* allocator,
                                                 bsync_clip** out);
/* 0: the default encoding (fix16 keys, block version 1); 1: compact (block version 2). */
BSYNC_API uint32_t bsync_clip_encoding(const bsync_clip* clip);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CLIP_H */
