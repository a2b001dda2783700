/* blendsync/abi.h — out-of-line twins of the public headers' static inline functions.
 *
 * Index
 *   NAME_abi   one exported twin per static inline function of fixed.h, pose.h, smooth.h, time.h
 *
 * C# (P/Invoke), Python ctypes and WASM imports can only call exported symbols, never a static
 * inline function. So every static inline function of a public header whose name does not end in
 * "_" (those are internals of the header) has an exported twin:
 *
 *     naming rule:   <inline name>_abi   (bsync_fx_mul -> bsync_fx_mul_abi)
 *     contract:      same parameters, same result, the same bits for every input
 *
 * Each twin is the inline function compiled once (shared/src/abi.c); C and C++ callers should keep
 * calling the inline ones. tests/unit/test_abi.c proves the bit identity over sweeps, and
 * tests/cli/shared_symbols.sh fails when an inline function has no exported twin.
 */
#ifndef BLENDSYNC_ABI_H
#define BLENDSYNC_ABI_H

#include "blendsync/fixed.h"
#include "blendsync/pose.h"
#include "blendsync/smooth.h"
#include "blendsync/time.h"

#ifdef __cplusplus
extern "C" {
#endif

/* blendsync/fixed.h */
BSYNC_API int64_t bsync_i64_asr_abi(int64_t v, unsigned s);
BSYNC_API fix16_t bsync_fx_sat64_abi(int64_t v);
BSYNC_API uint64_t bsync_u64_abs_abi(int64_t v);
BSYNC_API fix16_t bsync_fx_signed_sat_abi(uint64_t m, int neg);
BSYNC_API unsigned bsync_u64_clz_abi(uint64_t n);
BSYNC_API uint64_t bsync_u64_isqrt_abi(uint64_t n);
BSYNC_API fix16_t bsync_fx_from_int_abi(int32_t i);
BSYNC_API fix16_t bsync_fx_add_abi(fix16_t a, fix16_t b);
BSYNC_API fix16_t bsync_fx_sub_abi(fix16_t a, fix16_t b);
BSYNC_API fix16_t bsync_fx_neg_abi(fix16_t a);
BSYNC_API fix16_t bsync_fx_abs_abi(fix16_t a);
BSYNC_API fix16_t bsync_fx_min_abi(fix16_t a, fix16_t b);
BSYNC_API fix16_t bsync_fx_max_abi(fix16_t a, fix16_t b);
BSYNC_API fix16_t bsync_fx_clamp_abi(fix16_t x, fix16_t lo, fix16_t hi);
BSYNC_API fix16_t bsync_fx_mul_abi(fix16_t a, fix16_t b);
BSYNC_API fix16_t bsync_fx_div_abi(fix16_t a, fix16_t b);
BSYNC_API fix16_t bsync_fx_sqrt_abi(fix16_t x);
BSYNC_API fix16_t bsync_fx_lerp_abi(fix16_t a, fix16_t b, fix16_t t);
BSYNC_API bsync_vec3 bsync_vec3_make_abi(fix16_t x, fix16_t y, fix16_t z);
BSYNC_API bsync_vec3 bsync_vec3_add_abi(bsync_vec3 a, bsync_vec3 b);
BSYNC_API bsync_vec3 bsync_vec3_sub_abi(bsync_vec3 a, bsync_vec3 b);
BSYNC_API bsync_vec3 bsync_vec3_neg_abi(bsync_vec3 a);
BSYNC_API bsync_vec3 bsync_vec3_scale_abi(bsync_vec3 a, fix16_t s);
BSYNC_API bsync_vec3 bsync_vec3_mul_abi(bsync_vec3 a, bsync_vec3 b);
BSYNC_API fix16_t bsync_vec3_dot_abi(bsync_vec3 a, bsync_vec3 b);
BSYNC_API fix16_t bsync_vec3_length_sq_abi(bsync_vec3 a);
BSYNC_API bsync_vec3 bsync_vec3_cross_abi(bsync_vec3 a, bsync_vec3 b);
BSYNC_API fix16_t bsync_vec3_length_abi(bsync_vec3 a);
BSYNC_API bsync_vec3 bsync_vec3_lerp_abi(bsync_vec3 a, bsync_vec3 b, fix16_t t);
BSYNC_API bsync_quat bsync_quat_make_abi(fix16_t x, fix16_t y, fix16_t z, fix16_t w);
BSYNC_API bsync_quat bsync_quat_identity_abi(void);
BSYNC_API bsync_quat bsync_quat_conj_abi(bsync_quat q);
BSYNC_API bsync_quat bsync_quat_neg_abi(bsync_quat q);
BSYNC_API fix16_t bsync_quat_dot_abi(bsync_quat a, bsync_quat b);
BSYNC_API bsync_quat bsync_quat_mul_abi(bsync_quat a, bsync_quat b);
BSYNC_API bsync_quat bsync_quat_normalize_abi(bsync_quat q);
BSYNC_API bsync_vec3 bsync_quat_rotate_abi(bsync_quat q, bsync_vec3 v);
BSYNC_API bsync_quat bsync_quat_nlerp_abi(bsync_quat a, bsync_quat b, fix16_t t);
BSYNC_API bsync_trs bsync_trs_identity_abi(void);
BSYNC_API bsync_vec3 bsync_trs_transform_point_abi(const bsync_trs* x, bsync_vec3 p);
BSYNC_API bsync_trs bsync_trs_compose_abi(const bsync_trs* parent, const bsync_trs* local);
BSYNC_API double bsync_fx_to_double_abi(fix16_t v);
/* blendsync/pose.h */
BSYNC_API void bsync_pose_copy_abi(bsync_trs* dst, const bsync_trs* src, uint32_t joint_count);
/* blendsync/smooth.h */
BSYNC_API bsync_smooth_state bsync_smooth_state_make_abi(fix16_t value, fix16_t velocity);
BSYNC_API fix16_t bsync_smooth_value_abi(const bsync_smooth_state* s);
BSYNC_API fix16_t bsync_smooth_velocity_abi(const bsync_smooth_state* s);
/* blendsync/time.h */
BSYNC_API bsync_clip_time bsync_time_start_abi(void);
BSYNC_API fix16_t bsync_time_normalized_abi(const bsync_clip_time* time);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_ABI_H */
