/* blendsync/simd.h — which instruction-set path the core's hot loops take (same bits on every path).
 *
 * Index
 *   bsync_simd_path            the paths: scalar (the reference), AVX2 and AVX-512 (x86-64), NEON
 *                              (AArch64), auto
 *   bsync_simd_supported       can this machine run a path?
 *   bsync_simd_set             choose a path once, at start
 *   bsync_simd_active          the path the core takes now
 *   bsync_simd_path_name       "scalar", "avx2", "avx512", "neon", "auto" (stable strings)
 *
 * What the paths do: sampling (bsync_clip_sample) and blending (bsync_pose_blend) normalise their
 * rotations in groups of four. The scalar path normalises one at a time with the code of
 * bsync_quat_normalize; the AVX2 path computes the same integer expressions in 64-bit lanes, eight
 * rotations at a time (as two vectors with AVX2, one with AVX-512 F + CD), and the NEON path (every
 * AArch64 CPU has it) four at a time (exact 32 x 32 ->
 * 64-bit products, the same tables, the same rounding), so every result is the same
 * bits on every path (tests/unit/test_simd.c compares them on worst cases and on random and real
 * clips; docs/determinism.md). The choice is a speed choice only: nothing recorded, hashed or
 * checksummed depends on it.
 *
 * The choice is process-wide (the one piece of mutable state of the core, an atomic int): by default
 * (BSYNC_SIMD_AUTO) the core takes the fastest path the CPU supports, detected on first use with the
 * compiler's CPU test (__builtin_cpu_supports, not an OS call). bsync_simd_set is for tools and tests
 * (the CLI maps the environment variable BSYNC_SIMD=scalar|avx2|avx512|neon|auto to it): call it at start, before
 * other threads sample or blend. Calls from several threads are safe (atomic), and a change while
 * another thread samples only changes which path that thread's next group takes: the bits are the
 * same either way.
 *
 * Does not: allocate, print or read the environment.
 */
#ifndef BLENDSYNC_SIMD_H
#define BLENDSYNC_SIMD_H

#include "blendsync/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bsync_simd_path {
    BSYNC_SIMD_AUTO = 0,   /* the fastest supported path (the default) */
    BSYNC_SIMD_SCALAR = 1, /* one quaternion at a time: the reference */
    BSYNC_SIMD_AVX2 = 2,   /* x86-64 with AVX2 (detected at run time) */
    BSYNC_SIMD_NEON = 3,   /* AArch64 (always there) */
    BSYNC_SIMD_AVX512 = 4, /* x86-64 with AVX-512 F and CD (detected at run time) */
    BSYNC_SIMD_PATH_COUNT = 5
} bsync_simd_path;

/* 1 if this build and this CPU can run `path` (AUTO and SCALAR: always), else 0. */
BSYNC_API int bsync_simd_supported(bsync_simd_path path);
/* Take `path` from now on (AUTO: the fastest supported). BSYNC_INVALID_ARGUMENT for a value outside
 * the enum, BSYNC_NOT_FOUND when !bsync_simd_supported(path) (no such path in this build or on this
 * CPU); the choice is unchanged on failure. */
BSYNC_API bsync_result bsync_simd_set(bsync_simd_path path);
/* The path taken now: SCALAR, AVX2, AVX512 or NEON, never AUTO. */
BSYNC_API bsync_simd_path bsync_simd_active(void);
/* "auto", "scalar", "avx2", "neon", "avx512"; "?" for a value outside the enum. */
BSYNC_API const char* bsync_simd_path_name(bsync_simd_path path);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SIMD_H */
