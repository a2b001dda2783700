/* blendsync/simd.h — the hot loops' instruction-set path; the same bits on every path.
 *
 * Index
 *   bsync_simd_path, bsync_simd_supported, bsync_simd_set, bsync_simd_active, bsync_simd_path_name
 *
 * design: docs/determinism.md#the-path-choice-simdh
 */
#ifndef BLENDSYNC_SIMD_H
#define BLENDSYNC_SIMD_H

#include "blendsync/base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bsync_simd_path {
    BSYNC_SIMD_AUTO = 0,   /* the default */
    BSYNC_SIMD_SCALAR = 1,
    BSYNC_SIMD_AVX2 = 2,
    BSYNC_SIMD_NEON = 3,
    BSYNC_SIMD_AVX512 = 4,
    BSYNC_SIMD_PATH_COUNT = 5
} bsync_simd_path;

/* AUTO and SCALAR: always 1. */
BSYNC_API int bsync_simd_supported(bsync_simd_path path);
/* At start; BSYNC_NOT_FOUND if unsupported. */
BSYNC_API bsync_result bsync_simd_set(bsync_simd_path path);
/* Never AUTO. */
BSYNC_API bsync_simd_path bsync_simd_active(void);
BSYNC_API const char* bsync_simd_path_name(bsync_simd_path path);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SIMD_H */
