/* simd_neon.c — the quaternion normalisation of internal/quat_normalize.h in NEON lanes on AArch64
 * (every AArch64 CPU has Advanced SIMD), with the same bits. Not a public interface
 * (internal/simd_impl.h); simd_avx2.c has the same steps for x86-64 and explains them.
 *
 * Four rotations at a time, each quantity as two uint64x2_t (lanes 0-1 and 2-3):
 *   - products: vmull_u32 of the low 32 bits of each lane (exact 32 x 32 -> 64), and the two wider
 *     ones (rem * zk, inv0 (2^48 - inv0 t)) as lo32 * b + ((hi32 * b) << 32), exact below 2^63;
 *   - per-lane shifts: vshlq_u64 (a negative count shifts right);
 *   - clz of a 64-bit lane from the 32-bit vclz of its halves;
 *   - the tables read with scalar loads; unsigned compares are vcgtq_u64;
 *   - the sign comes back by negating where the component is negative (a zero component has a zero
 *     quotient).
 * Lanes outside the vector path's range (an all-zero rotation, a component of magnitude 2^30 or more)
 * are redone with the scalar function; a group shorter than four repeats its last rotation. */
#include "internal/simd_impl.h"

#if BSYNC_HAVE_NEON_PATH

#include <arm_neon.h>

#include "internal/quat_normalize.h"

typedef struct v4 {
    uint64x2_t h[2];
} v4;

#define V4_OP2(name, expr)                                  \
    static inline v4 name(v4 a, v4 b) {                     \
        v4 r;                                               \
        for (int i_ = 0; i_ < 2; i_++) {                    \
            const uint64x2_t x = a.h[i_], y = b.h[i_];      \
            r.h[i_] = (expr);                               \
        }                                                   \
        return r;                                           \
    }
V4_OP2(vadd, vaddq_u64(x, y))
V4_OP2(vsub, vsubq_u64(x, y))
V4_OP2(vmul, vmull_u32(vmovn_u64(x), vmovn_u64(y))) /* low 32 bits of each lane, exact product */
V4_OP2(vand, vandq_u64(x, y))
V4_OP2(vsllv, vshlq_u64(x, vreinterpretq_s64_u64(y)))
V4_OP2(vsrlv, vshlq_u64(x, vnegq_s64(vreinterpretq_s64_u64(y))))
V4_OP2(vcmpgt, vcgtq_u64(x, y))
#undef V4_OP2

static inline v4 vset(uint64_t x) {
    v4 r;
    r.h[0] = r.h[1] = vdupq_n_u64(x);
    return r;
}
static inline v4 vblend(v4 a, v4 b, v4 m) { /* m ? b : a */
    v4 r;
    r.h[0] = vbslq_u64(m.h[0], b.h[0], a.h[0]);
    r.h[1] = vbslq_u64(m.h[1], b.h[1], a.h[1]);
    return r;
}
static inline v4 vsrli(v4 a, int k) { return vsrlv(a, vset((uint64_t)k)); }
static inline v4 vslli(v4 a, int k) { return vsllv(a, vset((uint64_t)k)); }
static inline v4 vmul_u64_u32(v4 a, v4 b32) { return vadd(vmul(a, b32), vslli(vmul(vsrli(a, 32), b32), 32)); }
static inline v4 vmin(v4 a, v4 b) { return vblend(a, b, vcmpgt(a, b)); }

/* clz of each 64-bit lane (x >= 1) */
static inline uint64x2_t clz64(uint64x2_t x) {
    const uint32x2_t hi = vshrn_n_u64(x, 32), lo = vmovn_u64(x);
    const uint64x2_t chi = vmovl_u32(vclz_u32(hi)), clo = vmovl_u32(vclz_u32(lo));
    const uint64x2_t hi_zero = vceqq_u64(vmovl_u32(hi), vdupq_n_u64(0));
    return vbslq_u64(hi_zero, vaddq_u64(clo, vdupq_n_u64(32)), chi);
}

/* table[i] | table[i + 1] << 32 per lane (0 <= i < 768) */
static inline v4 vpair_gather(const uint32_t* table, v4 idx) {
    v4 r;
    for (int h = 0; h < 2; h++) {
        const uint32_t* p0 = table + vgetq_lane_u64(idx.h[h], 0);
        const uint32_t* p1 = table + vgetq_lane_u64(idx.h[h], 1);
        const uint64_t a = (uint64_t)p0[0] | ((uint64_t)p0[1] << 32), b = (uint64_t)p1[0] | ((uint64_t)p1[1] << 32);
        r.h[h] = vcombine_u64(vcreate_u64(a), vcreate_u64(b));
    }
    return r;
}

static inline v4 div_round_shared4(v4 b, v4 l, v4 inv) {
    const v4 one = vset(1);
    const v4 e = vsrli(vadd(vmul(b, inv), vset((uint64_t)1 << 31)), 32);
    const v4 lhs = vmul(vadd(vadd(e, e), one), l);
    /* e + [lhs <= b << 17] = e + 1 + (lhs > b << 17 ? -1 : 0) */
    return vadd(vadd(e, one), vcmpgt(lhs, vslli(b, 17)));
}

static void normalize4(bsync_quat* const q[4]) {
    bsync_quat in[4];
    for (int i = 0; i < 4; i++) in[i] = *q[i]; /* all loads before any store */
    int32_t comp[4][4]; /* comp[k][lane] */
    for (int i = 0; i < 4; i++) {
        comp[0][i] = in[i].x;
        comp[1][i] = in[i].y;
        comp[2][i] = in[i].z;
        comp[3][i] = in[i].w;
    }
    int32x4_t c[4];
    uint32x4_t mx = vdupq_n_u32(0);
    v4 A[4];
    for (int k = 0; k < 4; k++) {
        c[k] = vld1q_s32(comp[k]);
        const uint32x4_t a = vreinterpretq_u32_s32(vabsq_s32(c[k])); /* INT32_MIN: 2^31, its magnitude */
        mx = vorrq_u32(mx, a);
        A[k].h[0] = vmovl_u32(vget_low_u32(a));
        A[k].h[1] = vmovl_u32(vget_high_u32(a));
    }
    const uint32x4_t special = vorrq_u32(vceqq_u32(mx, vdupq_n_u32(0)), vcgtq_u32(mx, vdupq_n_u32((1u << 30) - 1u)));
    uint32_t special_lane[4];
    vst1q_u32(special_lane, special);
    v4 sp;
    sp.h[0] = vreinterpretq_u64_s64(vmovl_s32(vreinterpret_s32_u32(vget_low_u32(special))));
    sp.h[1] = vreinterpretq_u64_s64(vmovl_s32(vreinterpret_s32_u32(vget_high_u32(special))));

    v4 s = vadd(vadd(vmul(A[0], A[0]), vmul(A[1], A[1])), vadd(vmul(A[2], A[2]), vmul(A[3], A[3])));
    s = vblend(s, vset((uint64_t)1 << 32), sp); /* special lanes: a harmless stand-in */
    v4 lz;
    lz.h[0] = clz64(s.h[0]);
    lz.h[1] = clz64(s.h[1]);
    const v4 top = vsllv(s, lz);
    const v4 e = vmin(vsrli(vsub(lz, vset(2)), 1), vset(28));
    const v4 p = vand(lz, vset(1));
    const v4 e2 = vadd(e, e);
    const v4 half = vsrli(vsub(vadd(vadd(vset(54), p), e2), lz), 1);
    const v4 n = vsllv(s, e2);
    const v4 m = vsrlv(top, vadd(p, vset(54)));
    const v4 f = vand(vsrlv(top, vadd(p, vset(34))), vset(0xFFFFF));
    const v4 idx = vsub(m, vset(256));
    const v4 spair = vpair_gather(bsync_isqrt_seed_, idx);
    const v4 ppair = vpair_gather(bsync_rsqrt_seed_, idx);
    const v4 lo32 = vset(0xFFFFFFFFu);
    const v4 s0 = vand(spair, lo32), s1 = vsrli(spair, 32);
    const v4 p0 = vand(ppair, lo32), p1 = vsrli(ppair, 32);
    const v4 y = vadd(s0, vsrli(vmul(vsub(s1, s0), f), 20));
    const v4 z = vsub(p0, vsrli(vmul(vsub(p0, p1), f), 20));
    const v4 zk = vsrlv(z, vsub(half, vset(24)));
    const v4 x0 = vsllv(vadd(y, vset(2)), vsub(half, vset(16)));
    const v4 rem = vsub(vmul(x0, x0), n);
    const v4 t = vsub(x0, vsrli(vmul_u64_u32(rem, zk), 49));
    const v4 inv0 = vsub(zk, vset(3));
    const v4 d = vsub(vset((uint64_t)1 << 48), vmul(inv0, t));
    const v4 inv = vadd(inv0, vsrli(vmul_u64_u32(d, inv0), 48));
    const v4 l = vsub(vsub(t, vset(1)), vcmpgt(vadd(n, t), vmul(t, t))); /* t - [n + t <= t^2] */

    int32_t out[4][4];
    for (int k = 0; k < 4; k++) {
        const v4 o = div_round_shared4(vsllv(A[k], e), l, inv);
        const int32x4_t mag = vreinterpretq_s32_u32(vcombine_u32(vmovn_u64(o.h[0]), vmovn_u64(o.h[1])));
        vst1q_s32(out[k], vbslq_s32(vcltzq_s32(c[k]), vnegq_s32(mag), mag));
    }
    for (int i = 0; i < 4; i++)
        *q[i] = special_lane[i] ? bsync_quat_normalize_inl_(in[i], NULL)
                                : bsync_quat_make(out[0][i], out[1][i], out[2][i], out[3][i]);
}

void bsync_simd_normalize_neon_(bsync_trs* pose, const uint16_t* joints, uint32_t n) {
    bsync_quat* q[4];
    for (uint32_t i = 0; i < n; i += 4) {
        for (uint32_t k = 0; k < 4; k++) q[k] = &pose[joints[i + k < n ? i + k : n - 1]].r;
        normalize4(q);
    }
}

#else
typedef int bsync_simd_neon_empty_; /* ISO C wants a declaration in every translation unit */
#endif
