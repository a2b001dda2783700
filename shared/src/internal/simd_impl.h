/* internal/simd_impl.h — the core's batch kernels and their dispatch (simd.h is the public choice).
 * Not a public header.
 *
 *   bsync_simd_normalize_rotations_   pose[joints[i]].r = bsync_quat_normalize(pose[joints[i]].r), i < n
 *   bsync_simd_normalize_scalar_      the same, one at a time (the reference; every path equals it)
 *   bsync_simd_normalize_avx2_        the same in 64-bit lanes, eight at a time (x86-64, gcc or clang)
 *   bsync_simd_normalize_avx512_      the same in one AVX-512 register of eight 64-bit lanes (x86-64)
 *   bsync_simd_blend4_avx2_           four joints of bsync_pose_blend's common case (no masks, total <= 1)
 *   bsync_simd_blend8_avx2_           eight joints of it, normalised (two halves of four AVX2 lanes)
 *   bsync_simd_blend8_avx512_         the same in AVX-512 lanes
 *   bsync_simd_blend16_avx512_        sixteen joints as two such groups side by side
 *   bsync_simd_compose4_avx2_         local to model of four joints whose parents are done (small rotations)
 *   bsync_simd_normalize_neon_        the same in 64-bit lanes, four at a time (AArch64)
 *   bsync_simd_lerp_rotations_        *jobs[i].out = bsync_keys_nlerp_(keys[0], keys[1], alpha, plain), i < n
 *   bsync_simd_lerp_rotations_scalar_ the same, one at a time (the reference)
 *   bsync_simd_lerp_rotations_avx2_   the same four at a time in 64-bit lanes (x86-64, the AVX2 path)
 *   bsync_simd_lerp_rotations_avx512_ the same eight at a time in AVX-512 lanes (the AVX512 path)
 *   bsync_simd_copy_                  memcpy of a pose (the planned sampler's base pose)
 *   bsync_simd_copy_avx2_             the same with 32-byte moves (glibc takes `rep movsb` at a pose's size)
 *
 * The joints of one call must be distinct (each rotation is read once, then written once). The
 * dispatch reads the process-wide choice (simd.c) once per call; every path gives the same bits
 * (tests/unit/test_simd.c). No allocation, no globals written. */
#ifndef BLENDSYNC_INTERNAL_SIMD_IMPL_H
#define BLENDSYNC_INTERNAL_SIMD_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/fixed.h"
#include "blendsync/simd.h"

#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__)) && !defined(BSYNC_NO_SIMD)
#define BSYNC_HAVE_AVX2_PATH 1
#else
#define BSYNC_HAVE_AVX2_PATH 0
#endif

#if defined(__aarch64__) && !defined(BSYNC_NO_SIMD)
#define BSYNC_HAVE_NEON_PATH 1
#else
#define BSYNC_HAVE_NEON_PATH 0
#endif

void bsync_simd_normalize_scalar_(bsync_trs* pose, const uint16_t* joints, uint32_t n);
#if BSYNC_HAVE_NEON_PATH
void bsync_simd_normalize_neon_(bsync_trs* pose, const uint16_t* joints, uint32_t n);
#endif
#if BSYNC_HAVE_AVX2_PATH
void bsync_simd_normalize_avx2_(bsync_trs* pose, const uint16_t* joints, uint32_t n);
void bsync_simd_normalize_avx512_(bsync_trs* pose, const uint16_t* joints, uint32_t n);
/* bsync_pose_blend of joints j .. j+3 (simd_avx2.c explains): inputs locals[0 .. n) with weights
 * weight[k] > 0 summing to total <= 2^16 (the rest pose takes 2^16 - total), no masks; writes the four
 * joints with their rotations not yet normalised and returns 1, or returns 0 and writes nothing. */
int bsync_simd_blend4_avx2_(const bsync_trs* rest, const bsync_trs* const* locals, const int64_t* weight, uint32_t n,
                            int64_t total, uint32_t j, bsync_trs* out);
/* model[j] = bsync_trs_compose(&model[parents[j]], &local[j]) for the four joints j = joints[0 .. 4)
 * (distinct, each with a parent whose model transform is written and is none of the four), when every
 * rotation involved has its components in [-2^30, 2^30): returns 1; else returns 0 and writes nothing. */
int bsync_simd_compose4_avx2_(const bsync_trs* local, bsync_trs* model, const int16_t* parents, const uint16_t* joints);
/* The same for joints j .. j+7, except that the rotations written are normalised (bsync_quat_normalize's
 * bits): the joints are final. The AVX-512 one (F and CD): call only on the AVX512 path. */
int bsync_simd_blend8_avx2_(const bsync_trs* rest, const bsync_trs* const* locals, const int64_t* weight, uint32_t n,
                            int64_t total, uint32_t j, bsync_trs* out);
int bsync_simd_blend8_avx512_(const bsync_trs* rest, const bsync_trs* const* locals, const int64_t* weight, uint32_t n,
                              int64_t total, uint32_t j, bsync_trs* out);
/* The same for joints j .. j+15 as two groups of eight side by side (both written, or neither). */
int bsync_simd_blend16_avx512_(const bsync_trs* rest, const bsync_trs* const* locals, const int64_t* weight, uint32_t n,
                               int64_t total, uint32_t j, bsync_trs* out);
#endif
void bsync_simd_normalize_rotations_(bsync_trs* pose, const uint16_t* joints, uint32_t n);

/* One interpolated rotation of a sampled clip (the planned sampler, sample.c): the two keys of the
 * interval (keys[0], keys[1]) and the interpolation weight 0 < alpha < 2^16; what is written to *out is
 * bsync_keys_nlerp_(keys[0], keys[1], alpha, plain) (internal/rotation_lerp.h), not normalised. The outs
 * of one call are distinct and overlap no key. `plain` (the cursor's mark) promises that every key of
 * the call has its components in [-2^30, 2^30) and that no pair needs the hemisphere flip. */
typedef struct bsync_rotation_lerp_ {
    const bsync_quat* keys;
    bsync_quat* out;
    fix16_t alpha;
} bsync_rotation_lerp_;
void bsync_simd_lerp_rotations_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain);
void bsync_simd_lerp_rotations_scalar_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain);
/* memcpy(dst, src, bytes) for disjoint ranges and bytes a multiple of 8. */
void bsync_simd_copy_(void* dst, const void* src, size_t bytes);
#if BSYNC_HAVE_AVX2_PATH
void bsync_simd_lerp_rotations_avx2_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain);
void bsync_simd_lerp_rotations_avx512_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain); /* AVX512 path only */
/* memcpy(dst, src, bytes) for disjoint ranges and bytes a multiple of 8, with 32-byte moves. */
void bsync_simd_copy_avx2_(void* dst, const void* src, size_t bytes);
#endif

#endif
