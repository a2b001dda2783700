/* fixed.c — the out-of-line parts of blendsync/fixed.h: quaternion normalisation (implemented in
 * internal/quat_normalize.h, which sample.c and pose.c inline). */
#include "blendsync/fixed.h"
#include "internal/quat_normalize.h"

uint64_t bsync_u64_isqrt_fast(uint64_t n) { return bsync_isqrt_fast_(n); }

bsync_quat bsync_quat_normalize_ex(bsync_quat q, int* out_was_zero) {
    return bsync_quat_normalize_inl_(q, out_was_zero);
}

/* bsync_vec3_angle and bsync_quat_from_axis_angle live in fixed_trig.c (they share its internals). */
