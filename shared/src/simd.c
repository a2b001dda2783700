/* simd.c — the process-wide choice of the kernels' path (blendsync/simd.h) and the scalar reference
 * kernel. The choice is an atomic int, the core's one piece of mutable state (documented in simd.h
 * and docs/determinism.md): it selects code, never a result. 0 = not yet resolved; otherwise a
 * bsync_simd_path other than AUTO. Resolving AUTO twice from two threads stores the same value. */
#include "blendsync/simd.h"

#include <stdatomic.h>
#include <string.h>

#include "internal/quat_normalize.h"
#include "internal/rotation_lerp.h"
#include "internal/simd_impl.h"

static atomic_int simd_choice = 0; /* 0: AUTO, not resolved yet */

static int cpu_has_avx2(void) {
#if BSYNC_HAVE_AVX2_PATH
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") ? 1 : 0;
#else
    return 0;
#endif
}

static int cpu_has_avx512(void) { /* F and CD (vplzcntq) */
#if BSYNC_HAVE_AVX2_PATH
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd");
#else
    return 0;
#endif
}

static bsync_simd_path resolve_auto(void) {
    if (BSYNC_HAVE_NEON_PATH) return BSYNC_SIMD_NEON;
    if (cpu_has_avx512()) return BSYNC_SIMD_AVX512;
    return cpu_has_avx2() ? BSYNC_SIMD_AVX2 : BSYNC_SIMD_SCALAR;
}

int bsync_simd_supported(bsync_simd_path path) {
    switch (path) {
    case BSYNC_SIMD_AUTO:
    case BSYNC_SIMD_SCALAR: return 1;
    case BSYNC_SIMD_AVX2: return cpu_has_avx2();
    case BSYNC_SIMD_NEON: return BSYNC_HAVE_NEON_PATH;
    case BSYNC_SIMD_AVX512: return cpu_has_avx512();
    default: return 0;
    }
}

bsync_result bsync_simd_set(bsync_simd_path path) {
    if ((int)path < 0 || (int)path >= (int)BSYNC_SIMD_PATH_COUNT) return BSYNC_INVALID_ARGUMENT;
    if (!bsync_simd_supported(path)) return BSYNC_NOT_FOUND;
    atomic_store_explicit(&simd_choice, (int)(path == BSYNC_SIMD_AUTO ? resolve_auto() : path), memory_order_relaxed);
    return BSYNC_OK;
}

bsync_simd_path bsync_simd_active(void) {
    int c = atomic_load_explicit(&simd_choice, memory_order_relaxed);
    if (c == 0) {
        c = (int)resolve_auto();
        int expected = 0; /* keep a choice another thread set meanwhile */
        if (!atomic_compare_exchange_strong_explicit(&simd_choice, &expected, c, memory_order_relaxed,
                                                     memory_order_relaxed))
            c = expected;
    }
    return (bsync_simd_path)c;
}

const char* bsync_simd_path_name(bsync_simd_path path) {
    switch (path) {
    case BSYNC_SIMD_AUTO: return "auto";
    case BSYNC_SIMD_SCALAR: return "scalar";
    case BSYNC_SIMD_AVX2: return "avx2";
    case BSYNC_SIMD_NEON: return "neon";
    case BSYNC_SIMD_AVX512: return "avx512";
    default: return "?";
    }
}

void bsync_simd_normalize_scalar_(bsync_trs* pose, const uint16_t* joints, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        bsync_quat* q = &pose[joints[i]].r;
        *q = bsync_quat_normalize_inl_(*q, NULL);
    }
}

void bsync_simd_normalize_rotations_(bsync_trs* pose, const uint16_t* joints, uint32_t n) {
    if (n == 0) return;
#if BSYNC_HAVE_AVX2_PATH
    const bsync_simd_path path = bsync_simd_active();
    if (path == BSYNC_SIMD_AVX512) {
        bsync_simd_normalize_avx512_(pose, joints, n);
        return;
    }
    if (path == BSYNC_SIMD_AVX2) {
        bsync_simd_normalize_avx2_(pose, joints, n);
        return;
    }
#endif
#if BSYNC_HAVE_NEON_PATH
    if (bsync_simd_active() == BSYNC_SIMD_NEON) {
        bsync_simd_normalize_neon_(pose, joints, n);
        return;
    }
#endif
    bsync_simd_normalize_scalar_(pose, joints, n);
}

void bsync_simd_lerp_rotations_scalar_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain) {
    for (uint32_t i = 0; i < n; i++) *jobs[i].out = bsync_keys_nlerp_(jobs[i].keys[0], jobs[i].keys[1], jobs[i].alpha, plain);
}

void bsync_simd_lerp_rotations_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain) {
    if (n == 0) return;
#if BSYNC_HAVE_AVX2_PATH
    const bsync_simd_path path = bsync_simd_active();
    if (path == BSYNC_SIMD_AVX512) {
        bsync_simd_lerp_rotations_avx512_(jobs, n, plain);
        return;
    }
    if (path == BSYNC_SIMD_AVX2) {
        bsync_simd_lerp_rotations_avx2_(jobs, n, plain);
        return;
    }
#endif
    bsync_simd_lerp_rotations_scalar_(jobs, n, plain);
}

void bsync_simd_copy_(void* dst, const void* src, size_t bytes) {
#if BSYNC_HAVE_AVX2_PATH
    const bsync_simd_path path = bsync_simd_active();
    if (path == BSYNC_SIMD_AVX2 || path == BSYNC_SIMD_AVX512) {
        bsync_simd_copy_avx2_(dst, src, bytes);
        return;
    }
#endif
    memcpy(dst, src, bytes);
}
