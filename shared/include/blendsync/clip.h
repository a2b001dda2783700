/* blendsync/clip.h — animation clips: per-joint translation/rotation/scale keys in fixed point, built
 * into one immutable relocatable block (seconds as fix16).
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
 * design: docs/clip-format.md (rules and their codes, the builder, compact keys)
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
    uint32_t joint;
    bsync_track_kind kind;
    uint32_t key_count;       /* >= 1 */
    const fix16_t* times;     /* strictly ascending, in [0, duration] */
    const bsync_vec3* vec3s;  /* TRANSLATION, SCALE */
    const bsync_quat* quats;  /* ROTATION */
} bsync_raw_track;

typedef struct bsync_clip_desc {
    const char* name;             /* may be NULL */
    fix16_t duration;             /* >= 0 */
    int loop;                     /* default playback: nonzero = wrap */
    const bsync_raw_track* tracks;
    uint32_t track_count;
} bsync_clip_desc;

typedef struct bsync_clip bsync_clip;

/* One built track; tracks are sorted by joint, then kind. */
typedef struct bsync_track_info {
    uint32_t joint;
    bsync_track_kind kind;
    uint32_t key_count;
    const fix16_t* times;
    const bsync_vec3* vec3s;
    const bsync_quat* quats;
} bsync_track_info;

BSYNC_API bsync_result bsync_clip_validate(const bsync_clip_desc* desc, const bsync_skeleton* skeleton);
/* 0 if the desc is invalid. */
BSYNC_API size_t bsync_clip_memory_size(const bsync_clip_desc* desc, const bsync_skeleton* skeleton);
/* 8-byte aligned mem; writes nothing on failure. create: one allocation. */
BSYNC_API bsync_result bsync_clip_init(void* mem, size_t size, const bsync_clip_desc* desc,
                             const bsync_skeleton* skeleton, bsync_clip** out);
BSYNC_API bsync_result bsync_clip_create(const bsync_clip_desc* desc, const bsync_skeleton* skeleton,
                               const bsync_allocator* allocator, bsync_clip** out);
BSYNC_API void bsync_clip_destroy(bsync_clip* clip);

/* BSYNC_OK and *out = mem, else BSYNC_BAD_BLOB (BSYNC_MISMATCH: another joint count). */
BSYNC_API bsync_result bsync_clip_block_validate(const void* mem, size_t size, const bsync_skeleton* skeleton,
                                       const bsync_clip** out);

BSYNC_API size_t bsync_clip_block_size(const bsync_clip* clip);
BSYNC_API fix16_t bsync_clip_duration(const bsync_clip* clip);
BSYNC_API int bsync_clip_loops(const bsync_clip* clip); /* 0 or 1 */
BSYNC_API const char* bsync_clip_name(const bsync_clip* clip);
BSYNC_API uint32_t bsync_clip_joint_count(const bsync_clip* clip);
BSYNC_API uint32_t bsync_clip_track_count(const bsync_clip* clip);
/* Compact clips: NULL key pointers (use bsync_clip_track_key). */
BSYNC_API bsync_result bsync_clip_track_info(const bsync_clip* clip, uint32_t index, bsync_track_info* out);
/* One key as sampling sees it (decoded); NULL outputs are skipped. */
BSYNC_API bsync_result bsync_clip_track_key(const bsync_clip* clip, uint32_t track, uint32_t key, fix16_t* time,
                                            bsync_vec3* vec3, bsync_quat* rotation);

/* ---- compact keys (opt-in, lossy for rotations): docs/clip-format.md#compact-keys-block-version-2 */
BSYNC_API size_t bsync_clip_compact_memory_size(const bsync_clip* src);
BSYNC_API bsync_result bsync_clip_compact_init(void* mem, size_t size, const bsync_clip* src, bsync_clip** out);
BSYNC_API bsync_result bsync_clip_compact_create(const bsync_clip* src, const bsync_allocator* allocator,
                                                 bsync_clip** out);
/* 0: default (block version 1); 1: compact (version 2). */
BSYNC_API uint32_t bsync_clip_encoding(const bsync_clip* clip);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CLIP_H */
