/* blendsync/checksum.h — canonical 64-bit checksums of poses, clips and skeletons.
 *
 * Index
 *   bsync_checksum_state               streaming hasher (plain data, no allocation)
 *   bsync_checksum_init / _bytes / _final
 *   bsync_checksum_u32 / _i32 / _u64 / _i64 / _fx / _vec3 / _quat / _trs   canonical field feeders
 *   bsync_checksum_pose                one number for a whole pose
 *   bsync_checksum_pose_joints         one number per joint (to narrow a mismatch down)
 *   bsync_checksum_skeleton, bsync_checksum_clip
 *
 * The hash is XXH64 (Yann Collet's xxHash, 64-bit variant; specification:
 * github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md), implemented here, with the standard
 * test vectors asserted in tests. It is fast (about 1 byte/cycle class), well distributed and
 * documented, so a tool in any language can recompute a blendsync checksum.
 *
 * Canonical input, never raw memory: every field is fed as its value in little-endian byte order in
 * a fixed documented order, so struct padding, pointers, cursors and caches never reach a checksum
 * and every machine feeds the same bytes:
 *   fix16 / int32 / uint32 -> 4 bytes LE; int64 / uint64 -> 8 bytes LE;
 *   vec3 -> x, y, z;  quat -> x, y, z, w;  trs -> t, r, s (10 x 4 bytes).
 *   pose         = seed BSYNC_CHECKSUM_SEED_POSE; u32 joint_count; then trs of joints 0..n-1.
 *   pose joint j = seed BSYNC_CHECKSUM_SEED_JOINT; u32 j; trs of joint j.
 *   skeleton     = seed BSYNC_CHECKSUM_SEED_SKELETON; u32 joint_count; per joint: u32 name length,
 *                  the name bytes, i32 parent, trs rest.
 *   clip         = seed BSYNC_CHECKSUM_SEED_CLIP; u32 name length, name bytes, fx duration, u32 loop
 *                  (1 if bsync_clip_loops is nonzero, else 0), u32 joint_count, u32 track_count; per
 *                  track (in stored order): u32 joint, u32 kind, u32 key_count, the key_count key
 *                  times (fx), then the key_count key values (vec3, or quat for rotation tracks).
 *   Names are fed without their terminating NUL (length = bytes before the NUL).
 *   "seed S" means the XXH64 stream starts with seed S; the checksum is its digest.
 *
 * NULL handling: bsync_checksum_init/_bytes/_final and the feeders ignore a NULL state (final gives
 * 0); _bytes with data NULL or len 0 feeds nothing; bsync_checksum_pose with pose NULL and
 * joint_count > 0, and bsync_checksum_skeleton/_clip with NULL, return 0; bsync_checksum_pose_joints
 * writes nothing when pose or out_per_joint is NULL.
 *
 * Does not: allocate, keep globals, or read uninitialised or padding bytes.
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
/* The XXH64 digest of everything fed so far (the state may be fed further afterwards). */
BSYNC_API uint64_t bsync_checksum_final(const bsync_checksum_state* state);

BSYNC_API void bsync_checksum_u32(bsync_checksum_state* state, uint32_t v);
BSYNC_API void bsync_checksum_i32(bsync_checksum_state* state, int32_t v);
BSYNC_API void bsync_checksum_u64(bsync_checksum_state* state, uint64_t v);
BSYNC_API void bsync_checksum_i64(bsync_checksum_state* state, int64_t v);
BSYNC_API void bsync_checksum_fx(bsync_checksum_state* state, fix16_t v);
BSYNC_API void bsync_checksum_vec3(bsync_checksum_state* state, bsync_vec3 v);
BSYNC_API void bsync_checksum_quat(bsync_checksum_state* state, bsync_quat q);
BSYNC_API void bsync_checksum_trs(bsync_checksum_state* state, const bsync_trs* x);

/* One-shot XXH64 of a byte buffer. */
BSYNC_API uint64_t bsync_checksum_xxh64(const void* data, size_t len, uint64_t seed);

BSYNC_API uint64_t bsync_checksum_pose(const bsync_trs* pose, uint32_t joint_count);
/* out_per_joint[j] = checksum of joint j (joint_count entries). */
BSYNC_API void bsync_checksum_pose_joints(const bsync_trs* pose, uint32_t joint_count, uint64_t* out_per_joint);
BSYNC_API uint64_t bsync_checksum_skeleton(const bsync_skeleton* skeleton);
BSYNC_API uint64_t bsync_checksum_clip(const bsync_clip* clip);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CHECKSUM_H */
