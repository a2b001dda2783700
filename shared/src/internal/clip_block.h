/* internal/clip_block.h — layout of the built clip block, shared by clip.c and sample.c
 * (not a public header: the layout may change with CLIP_VERSION).
 *
 * Block layout (all offsets from the block start, which is 8-byte aligned):
 *   [0, 152)          header (struct bsync_clip; identical on 32- and 64-bit targets)
 *   tracks_offset     bsync_clip_track_[track_count], sorted by (joint, kind)
 *   lookup_offset     int16_t[joint_count * 3]: track index of (joint, kind), or -1
 *   (then, per track) fix16_t times[key_count], then the values (bsync_vec3 or bsync_quat)
 *   (then)            zero padding up to a multiple of 8 (block_size)
 * Every byte of the block is written; `fingerprint` is FNV-1a 64 of the block with the allocator
 * slot and the fingerprint itself zero (it identifies the content, e.g. for sample cursors).
 */
#ifndef BLENDSYNC_INTERNAL_CLIP_BLOCK_H
#define BLENDSYNC_INTERNAL_CLIP_BLOCK_H

#include "blendsync/clip.h"
#include "block.h"

#define BSYNC_CLIP_MAGIC 0x504C4342u /* "BCLP" in little-endian byte order */
#define BSYNC_CLIP_VERSION 1u

typedef struct bsync_clip_track_ {
    uint32_t joint;
    uint32_t kind;
    uint32_t key_count;
    uint32_t times_offset;  /* fix16_t[key_count] */
    uint32_t values_offset; /* bsync_vec3[key_count] or bsync_quat[key_count] */
    uint32_t reserved;      /* 0 */
} bsync_clip_track_;

struct bsync_clip {
    bsync_block_header head; /* magic, version, block size, allocator */
    uint64_t fingerprint;
    fix16_t duration;
    uint32_t loop;
    uint32_t joint_count;
    uint32_t track_count;
    uint32_t total_keys;
    uint32_t tracks_offset;
    uint32_t lookup_offset;
    uint32_t reserved;
    char name[BSYNC_MAX_NAME];
};

_Static_assert(sizeof(struct bsync_clip) == 152, "clip header must be 152 bytes on every target");
_Static_assert(sizeof(bsync_clip_track_) == 24, "clip track record must be 24 bytes");

static inline const bsync_clip_track_* bsync_clip_tracks_(const bsync_clip* c) {
    return (const bsync_clip_track_*)((const unsigned char*)c + c->tracks_offset);
}
static inline const int16_t* bsync_clip_lookup_(const bsync_clip* c) {
    return (const int16_t*)((const unsigned char*)c + c->lookup_offset);
}
static inline const fix16_t* bsync_clip_times_(const bsync_clip* c, const bsync_clip_track_* t) {
    return (const fix16_t*)((const unsigned char*)c + t->times_offset);
}
static inline const bsync_vec3* bsync_clip_vec3s_(const bsync_clip* c, const bsync_clip_track_* t) {
    return (const bsync_vec3*)((const unsigned char*)c + t->values_offset);
}
static inline const bsync_quat* bsync_clip_quats_(const bsync_clip* c, const bsync_clip_track_* t) {
    return (const bsync_quat*)((const unsigned char*)c + t->values_offset);
}

#endif
