/* internal/simd_lerp_groups.h — the groups of the batch of interpolated rotations
 * (bsync_simd_lerp_rotations_avx2_ in simd_sample_avx2.c, bsync_simd_lerp_rotations_avx512_ in
 * simd_sample_avx512.c): one loop over the jobs for every group width. It and the group functions are
 * force-inlined, so that each kernel is one loop with its group in it, compiled for the kernel's
 * instruction set (a group function with a target attribute cannot be inlined into this loop's own
 * copy, compiled for the baseline; when the loop sat in the file of both kernels, gcc's cloning did the
 * same). Not a public header. */
#ifndef BLENDSYNC_INTERNAL_SIMD_LERP_GROUPS_H
#define BLENDSYNC_INTERNAL_SIMD_LERP_GROUPS_H

#include <stdint.h>

#include "force_inline.h"
#include "simd_impl.h"

/* jobs[0 .. n) (n >= width) in groups of `width` through `group`, which returns nonzero when its group
 * must be redone by the scalar rule (rare); the last one to width - 1 jobs as the group ending at the
 * last job: the ones before them are computed again from the same keys and the same values written
 * again, as no out overlaps a key. */
static BSYNC_FORCE_INLINE void in_groups(const bsync_rotation_lerp_* jobs, uint32_t n, int plain, uint32_t width,
                                         unsigned (*group)(const bsync_rotation_lerp_*, int)) {
    for (uint32_t i = 0;; i += width) {
        if (i + width > n) i = n - width;
        if (group(jobs + i, plain)) bsync_simd_lerp_rotations_scalar_(jobs + i, width, plain);
        if (i + width == n) break;
    }
}

#endif
