/* blendsync/checksum.h — canonical 64-bit checksums (XXH64) of poses, clips and skeletons.
 *
 * Index
 *   bsync_checksum_state                 streaming hasher (plain data)
 *   bsync_checksum_init / _bytes / _final, bsync_checksum_xxh64
 *   bsync_checksum_u32 / _i32 / _u64 / _i64 / _fx / _vec3 / _quat / _trs   field feeders (LE)
 *   bsync_checksum_pose, _pose_joints, _skeleton, _clip
 *
 * NULL inputs give 0 or feed nothing. design: docs/checksum.md (streams)
 */
#ifndef BLENDSYNC_CHECKSUM_H
#define BLENDSYNC_CHECKSUM_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/skeleton.h"
#include "blendsync/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_CHECKSUM_SEED_POSE ((uint64_t)0x626c656e64706f73ull)     /* "blendpos" */
#define BSYNC_CHECKSUM_SEED_JOINT ((uint64_t)0x626c656e646a6e74ull)    /* "blendjnt" */
#define BSYNC_CHECKSUM_SEED_SKELETON ((uint64_t)0x626c656e64736b6cull) /* "blendskl" */
#define BSYNC_CHECKSUM_SEED_CLIP ((uint64_t)0x626c656e64636c70ull)     /* "blendclp" */

typedef struct bsync_checksum_state {
    uint64_t acc[4];
    uint64_t seed;
    uint64_t total_len;
    uint8_t buffer[32];
    uint32_t buffer_len;
    uint32_t pad_;
} bsync_checksum_state;

BSYNC_API void bsync_checksum_init(bsync_checksum_state* state, uint64_t seed);
BSYNC_API void bsync_checksum_bytes(bsync_checksum_state* state, const void* data, size_t len);
/* Digest so far; the state may be fed further. */
BSYNC_API uint64_t bsync_checksum_final(const bsync_checksum_state* state);

BSYNC_API void bsync_checksum_u32(bsync_checksum_state* state, uint32_t v);
BSYNC_API void bsync_checksum_i32(bsync_checksum_state* state, int32_t v);
BSYNC_API void bsync_checksum_u64(bsync_checksum_state* state, uint64_t v);
BSYNC_API void bsync_checksum_i64(bsync_checksum_state* state, int64_t v);
BSYNC_API void bsync_checksum_fx(bsync_checksum_state* state, fix16_t v);
BSYNC_API void bsync_checksum_vec3(bsync_checksum_state* state, bsync_vec3 v);
BSYNC_API void bsync_checksum_quat(bsync_checksum_state* state, bsync_quat q);
BSYNC_API void bsync_checksum_trs(bsync_checksum_state* state, const bsync_trs* x);

BSYNC_API uint64_t bsync_checksum_xxh64(const void* data, size_t len, uint64_t seed);

BSYNC_API uint64_t bsync_checksum_pose(const bsync_trs* pose, uint32_t joint_count);
BSYNC_API void bsync_checksum_pose_joints(const bsync_trs* pose, uint32_t joint_count, uint64_t* out_per_joint);
BSYNC_API uint64_t bsync_checksum_skeleton(const bsync_skeleton* skeleton);
BSYNC_API uint64_t bsync_checksum_clip(const bsync_clip* clip);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CHECKSUM_H */
