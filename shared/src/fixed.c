/* fixed.c — the out-of-line parts of blendsync/fixed.h: quaternion normalisation. */
#include "blendsync/fixed.h"

/* round(num / den) with ties away from zero, for |num| < 2^62 and 0 < den < 2^62, saturating. */
static fix16_t div_round_i64(int64_t num, uint64_t den) {
    uint64_t m = bsync_u64_abs(num);
    uint64_t q = (2 * m + den) / (2 * den);
    return bsync_fx_signed_sat(q, num < 0);
}

bsync_quat bsync_quat_normalize_ex(bsync_quat q, int* out_was_zero) {
    int64_t c[4] = {q.x, q.y, q.z, q.w};
    uint64_t mx = 0, s = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t a = bsync_u64_abs(c[i]);
        if (a > mx) mx = a;
    }
    if (out_was_zero) *out_was_zero = (mx == 0);
    if (mx == 0) return bsync_quat_identity();
    if (mx >= ((uint64_t)1 << 30)) /* keep the sum of squares below 2^62; direction is unchanged */
        for (int i = 0; i < 4; i++) c[i] = bsync_i64_asr(c[i], 1);
    for (int i = 0; i < 4; i++) {
        uint64_t a = bsync_u64_abs(c[i]);
        s += a * a;
    }
    if (s == 0) return bsync_quat_identity(); /* only a raw value of +-1 halved to 0 or -1 */
    /* Scale the sum by 4^e so that the root keeps extra bits: L = sqrt(s) * 2^e. */
    unsigned e = 0;
    while (e < 28 && s < ((uint64_t)1 << (60 - 2 * e))) e++; /* s * 4^e < 2^62 */
    uint64_t l = bsync_u64_isqrt(s << (2 * e));
    /* round to nearest for the root itself */
    uint64_t n = s << (2 * e);
    if (n - l * l > l) l++;
    /* out = c * 65536 * 2^e / L; |c| <= 2^30, so |c| * 2^(16+e) <= 2^(46+e) and e is such that
     * s * 4^e < 2^62, i.e. |c| * 2^e < 2^31: the numerator stays below 2^47. */
    fix16_t r[4];
    for (int i = 0; i < 4; i++) {
        int64_t num = c[i] * ((int64_t)1 << (16 + e));
        r[i] = div_round_i64(num, l);
    }
    return bsync_quat_make(r[0], r[1], r[2], r[3]);
}

/* bsync_vec3_angle and bsync_quat_from_axis_angle live in fixed_trig.c (they share its internals). */
