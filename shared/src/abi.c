/* abi.c — the exported twins of the public headers' static inline functions (blendsync/abi.h).
 * Each body is one call of the inline function, so the twin cannot drift from it. */
#include "blendsync/abi.h"

int64_t bsync_i64_asr_abi(int64_t v, unsigned s) { return bsync_i64_asr(v, s); }
fix16_t bsync_fx_sat64_abi(int64_t v) { return bsync_fx_sat64(v); }
uint64_t bsync_u64_abs_abi(int64_t v) { return bsync_u64_abs(v); }
fix16_t bsync_fx_signed_sat_abi(uint64_t m, int neg) { return bsync_fx_signed_sat(m, neg); }
unsigned bsync_u64_clz_abi(uint64_t n) { return bsync_u64_clz(n); }
uint64_t bsync_u64_isqrt_abi(uint64_t n) { return bsync_u64_isqrt(n); }
fix16_t bsync_fx_from_int_abi(int32_t i) { return bsync_fx_from_int(i); }
fix16_t bsync_fx_add_abi(fix16_t a, fix16_t b) { return bsync_fx_add(a, b); }
fix16_t bsync_fx_sub_abi(fix16_t a, fix16_t b) { return bsync_fx_sub(a, b); }
fix16_t bsync_fx_neg_abi(fix16_t a) { return bsync_fx_neg(a); }
fix16_t bsync_fx_abs_abi(fix16_t a) { return bsync_fx_abs(a); }
fix16_t bsync_fx_min_abi(fix16_t a, fix16_t b) { return bsync_fx_min(a, b); }
fix16_t bsync_fx_max_abi(fix16_t a, fix16_t b) { return bsync_fx_max(a, b); }
fix16_t bsync_fx_clamp_abi(fix16_t x, fix16_t lo, fix16_t hi) { return bsync_fx_clamp(x, lo, hi); }
fix16_t bsync_fx_mul_abi(fix16_t a, fix16_t b) { return bsync_fx_mul(a, b); }
fix16_t bsync_fx_div_abi(fix16_t a, fix16_t b) { return bsync_fx_div(a, b); }
fix16_t bsync_fx_sqrt_abi(fix16_t x) { return bsync_fx_sqrt(x); }
fix16_t bsync_fx_lerp_abi(fix16_t a, fix16_t b, fix16_t t) { return bsync_fx_lerp(a, b, t); }
bsync_vec3 bsync_vec3_make_abi(fix16_t x, fix16_t y, fix16_t z) { return bsync_vec3_make(x, y, z); }
bsync_vec3 bsync_vec3_add_abi(bsync_vec3 a, bsync_vec3 b) { return bsync_vec3_add(a, b); }
bsync_vec3 bsync_vec3_sub_abi(bsync_vec3 a, bsync_vec3 b) { return bsync_vec3_sub(a, b); }
bsync_vec3 bsync_vec3_neg_abi(bsync_vec3 a) { return bsync_vec3_neg(a); }
bsync_vec3 bsync_vec3_scale_abi(bsync_vec3 a, fix16_t s) { return bsync_vec3_scale(a, s); }
bsync_vec3 bsync_vec3_mul_abi(bsync_vec3 a, bsync_vec3 b) { return bsync_vec3_mul(a, b); }
fix16_t bsync_vec3_dot_abi(bsync_vec3 a, bsync_vec3 b) { return bsync_vec3_dot(a, b); }
fix16_t bsync_vec3_length_sq_abi(bsync_vec3 a) { return bsync_vec3_length_sq(a); }
bsync_vec3 bsync_vec3_cross_abi(bsync_vec3 a, bsync_vec3 b) { return bsync_vec3_cross(a, b); }
fix16_t bsync_vec3_length_abi(bsync_vec3 a) { return bsync_vec3_length(a); }
bsync_vec3 bsync_vec3_lerp_abi(bsync_vec3 a, bsync_vec3 b, fix16_t t) { return bsync_vec3_lerp(a, b, t); }
bsync_quat bsync_quat_make_abi(fix16_t x, fix16_t y, fix16_t z, fix16_t w) { return bsync_quat_make(x, y, z, w); }
bsync_quat bsync_quat_identity_abi(void) { return bsync_quat_identity(); }
bsync_quat bsync_quat_conj_abi(bsync_quat q) { return bsync_quat_conj(q); }
bsync_quat bsync_quat_neg_abi(bsync_quat q) { return bsync_quat_neg(q); }
fix16_t bsync_quat_dot_abi(bsync_quat a, bsync_quat b) { return bsync_quat_dot(a, b); }
bsync_quat bsync_quat_mul_abi(bsync_quat a, bsync_quat b) { return bsync_quat_mul(a, b); }
bsync_quat bsync_quat_normalize_abi(bsync_quat q) { return bsync_quat_normalize(q); }
bsync_vec3 bsync_quat_rotate_abi(bsync_quat q, bsync_vec3 v) { return bsync_quat_rotate(q, v); }
bsync_quat bsync_quat_nlerp_abi(bsync_quat a, bsync_quat b, fix16_t t) { return bsync_quat_nlerp(a, b, t); }
bsync_trs bsync_trs_identity_abi(void) { return bsync_trs_identity(); }
bsync_vec3 bsync_trs_transform_point_abi(const bsync_trs* x, bsync_vec3 p) { return bsync_trs_transform_point(x, p); }
bsync_trs bsync_trs_compose_abi(const bsync_trs* parent, const bsync_trs* local) { return bsync_trs_compose(parent, local); }
double bsync_fx_to_double_abi(fix16_t v) { return bsync_fx_to_double(v); }
void bsync_pose_copy_abi(bsync_trs* dst, const bsync_trs* src, uint32_t joint_count) { bsync_pose_copy(dst, src, joint_count); }
bsync_smooth_state bsync_smooth_state_make_abi(fix16_t value, fix16_t velocity) { return bsync_smooth_state_make(value, velocity); }
fix16_t bsync_smooth_value_abi(const bsync_smooth_state* s) { return bsync_smooth_value(s); }
fix16_t bsync_smooth_velocity_abi(const bsync_smooth_state* s) { return bsync_smooth_velocity(s); }
bsync_clip_time bsync_time_start_abi(void) { return bsync_time_start(); }
fix16_t bsync_time_normalized_abi(const bsync_clip_time* time) { return bsync_time_normalized(time); }
