/* simd_avx2.c — the core's AVX2 kernels (internal/simd_impl.h): the quaternion normalisation of
 * internal/quat_normalize.h in AVX2 lanes, the pose blend of four and of eight joints and local to model
 * of four joints, each with the scalar code's bits (x86-64 with gcc or clang; compiled for AVX2 with a
 * function attribute, run only when the CPU has it: simd.c decides). The AVX-512 kernels, the same
 * steps in 512-bit registers, are in simd_avx512.c; this comment explains the steps for both. Not a
 * public interface.
 *
 * The kernels read and write transforms as 64-bit words: a bsync_trs is ten int32, five words (t.x|t.y,
 * t.z|r.x, r.y|r.z, r.w|s.x, s.y|s.z), a rotation the two words x|y and z|w; x86 is little-endian, so a
 * word's low half is its even component. Words of several transforms are brought into one register
 * lane per transform (blends and lane rotations for consecutive transforms, a 4 x 4 transpose for any
 * addresses); _mm256_mul_epi32 / _mm512_mul_epi32 read the low 32 bits of a lane as signed, so a word
 * serves as it is for its even component and shifted right by 32 for its odd one.
 *
 * The normalisation (v_normalize_mag, z_normalize_mag_n): every step of bsync_quat_normalize_inl_ +
 * bsync_root_recip_ + bsync_div_round_shared_ is the same integer expression in each 64-bit lane:
 *   - every product there is at most 32 x 32 bits unsigned (_mm256_mul_epu32 is exact) except two,
 *     rem * zk (rem < 2^47) and inv0 (2^48 - inv0 t) (the second factor < 2^36), which are formed as
 *     lo32 * b + ((hi32 * b) << 32), exact as the true product is below 2^63 (quat_normalize.h's
 *     overflow notes);
 *   - clz is a branchless binary search (six compare-and-shift steps; vplzcntq on AVX-512), which also
 *     yields s << clz(s);
 *   - the per-lane shifts are _mm256_sllv/srlv_epi64, the tables are read with 64-bit reads of two
 *     neighbouring entries (table[m - 256] and table[m - 255] at once);
 *   - the unsigned comparisons compare values below 2^63, so the signed _mm256_cmpgt_epi64 is exact;
 *   - the sign comes back from the component's sign (a zero component has a zero quotient).
 * The scalar code's unit-within-rounding shortcut is not taken: its proof shows the full computation
 * returns the same q. Lanes the shortcut does not cover — an all-zero rotation or a component of
 * magnitude 2^30 or more (the halving branch) — are redone with the scalar function after the group
 * (their lanes' vector values are computed from a safe stand-in and discarded). A group shorter than
 * eight repeats its last rotation (all loads happen before any store). */
#include "internal/simd_impl.h"

#if BSYNC_HAVE_AVX2_PATH

#include <immintrin.h>
#include <stddef.h>

#include "internal/force_inline.h"
#include "internal/quat_normalize.h"
#include "internal/simd_words_avx2.h"

#define AVX2_FN __attribute__((target("avx2")))

/* Eight lanes as two AVX2 vectors: every step below is issued for both halves next to each other, so
 * the two independent dependency chains overlap (one group of four alone is latency-bound). */
typedef struct v8 {
    __m256i h[2];
} v8;

#define V8_OP2(name, intr)                                  \
    AVX2_FN static inline v8 name(v8 a, v8 b) {             \
        v8 r;                                               \
        r.h[0] = intr(a.h[0], b.h[0]);                      \
        r.h[1] = intr(a.h[1], b.h[1]);                      \
        return r;                                           \
    }
V8_OP2(vadd, _mm256_add_epi64)
V8_OP2(vsub, _mm256_sub_epi64)
V8_OP2(vmul, _mm256_mul_epu32) /* low 32 bits of each lane, exact 64-bit product */
V8_OP2(vand, _mm256_and_si256)
V8_OP2(vsllv, _mm256_sllv_epi64)
V8_OP2(vsrlv, _mm256_srlv_epi64)
V8_OP2(vcmpeq, _mm256_cmpeq_epi64)
V8_OP2(vcmpgt, _mm256_cmpgt_epi64) /* signed: exact for values below 2^63 */
V8_OP2(vminu32, _mm256_min_epu32)
V8_OP2(vmuls, _mm256_mul_epi32) /* signed low 32 bits of each lane, exact 64-bit product */
V8_OP2(vor, _mm256_or_si256)
V8_OP2(vxor, _mm256_xor_si256)
#undef V8_OP2
#define VSRLI(a, k) vsrli_((a), (k))
#define VSLLI(a, k) vslli_((a), (k))
AVX2_FN static inline v8 vsrli_(v8 a, const int k) {
    v8 r;
    r.h[0] = _mm256_srli_epi64(a.h[0], k);
    r.h[1] = _mm256_srli_epi64(a.h[1], k);
    return r;
}
AVX2_FN static inline v8 vslli_(v8 a, const int k) {
    v8 r;
    r.h[0] = _mm256_slli_epi64(a.h[0], k);
    r.h[1] = _mm256_slli_epi64(a.h[1], k);
    return r;
}
AVX2_FN static inline v8 vblend(v8 a, v8 b, v8 m) { /* m ? b : a, m all-ones or zero per lane */
    v8 r;
    r.h[0] = _mm256_blendv_epi8(a.h[0], b.h[0], m.h[0]);
    r.h[1] = _mm256_blendv_epi8(a.h[1], b.h[1], m.h[1]);
    return r;
}
AVX2_FN static inline v8 vset(int64_t x) {
    v8 r;
    r.h[0] = r.h[1] = _mm256_set1_epi64x(x);
    return r;
}
/* a * b for b < 2^32, modulo 2^64 (exact when the product is below 2^64) */
AVX2_FN static inline v8 vmul_u64_u32(v8 a, v8 b32) { return vadd(vmul(a, b32), VSLLI(vmul(VSRLI(a, 32), b32), 32)); }

/* table[i] | table[i + 1] << 32 for the four lane indices i (0 <= i < 768): four scalar 8-byte reads
 * (faster than a hardware gather here), assembled little-endian. */
AVX2_FN static inline __m256i pair_gather(const uint32_t* table, __m256i idx) {
    const __m128i lo = _mm256_castsi256_si128(idx), hi = _mm256_extracti128_si256(idx, 1);
    const uint32_t* p0 = table + _mm_cvtsi128_si64(lo);
    const uint32_t* p1 = table + _mm_extract_epi64(lo, 1);
    const uint32_t* p2 = table + _mm_cvtsi128_si64(hi);
    const uint32_t* p3 = table + _mm_extract_epi64(hi, 1);
    const __m128i a = _mm_set_epi32((int)p1[1], (int)p1[0], (int)p0[1], (int)p0[0]);
    const __m128i b = _mm_set_epi32((int)p3[1], (int)p3[0], (int)p2[1], (int)p2[0]);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
}
AVX2_FN static inline v8 vpair_gather(const uint32_t* table, v8 idx) {
    v8 r;
    r.h[0] = pair_gather(table, idx.h[0]);
    r.h[1] = pair_gather(table, idx.h[1]);
    return r;
}

/* round(b 2^16 / l) by bsync_div_round_shared_: e = (b inv + 2^31) >> 32, + [(2e + 1) l <= b << 17]. */
AVX2_FN static inline v8 div_round_shared8(v8 b, v8 l, v8 inv) {
    const v8 one = vset(1);
    const v8 e = VSRLI(vadd(vmul(b, inv), vset((int64_t)1 << 31)), 32);
    const v8 lhs = vmul(vadd(vadd(e, e), one), l);
    return vadd(vadd(e, one), vcmpgt(lhs, VSLLI(b, 17))); /* -1 where the correction is 0 */
}

/* bsync_quat_normalize_inl_'s computation after its special cases for eight rotations of component
 * magnitudes A[0 .. 4) (each below 2^30, so the halving branch never applies), in 64-bit lanes: the
 * quotients' magnitudes round(|c| 2^(16+e) / l) in o. A lane of sp (all ones: an all-zero rotation, or
 * one the caller redoes) computes from a harmless stand-in sum (2^32): its o is to be discarded. */
AVX2_FN static BSYNC_FORCE_INLINE void v_normalize_mag(const v8 A[4], v8 sp, v8 o[4]) {
    v8 s = vadd(vadd(vmul(A[0], A[0]), vmul(A[1], A[1])), vadd(vmul(A[2], A[2]), vmul(A[3], A[3])));
    s = vblend(s, vset((int64_t)1 << 32), sp); /* a harmless stand-in keeps every table index in range */

    /* lz = clz(s) (1 <= s < 2^62) and top = s << lz: a branchless binary search */
    const v8 zero = vset(0);
    v8 top = s, lz = zero;
#define CLZ_STEP(k)                                                        \
    do {                                                                   \
        const v8 m_ = vcmpeq(VSRLI(top, 64 - (k)), zero);                  \
        top = vblend(top, VSLLI(top, (k)), m_);                            \
        lz = vadd(lz, vand(m_, vset(k)));                                  \
    } while (0)
    CLZ_STEP(32);
    CLZ_STEP(16);
    CLZ_STEP(8);
    CLZ_STEP(4);
    CLZ_STEP(2);
    CLZ_STEP(1);
#undef CLZ_STEP
    /* e = min((lz - 2) / 2, 28): the smallest e with s 4^e >= 2^60, capped (quat_normalize.h) */
    const v8 e = vminu32(VSRLI(vsub(lz, vset(2)), 1), vset(28));
    const v8 p = vand(lz, vset(1));
    const v8 e2 = vadd(e, e);
    const v8 half = VSRLI(vsub(vadd(vadd(vset(54), p), e2), lz), 1);
    const v8 n = vsllv(s, e2);
    const v8 m = vsrlv(top, vadd(p, vset(54)));
    const v8 f = vand(vsrlv(top, vadd(p, vset(34))), vset(0xFFFFF));
    const v8 idx = vsub(m, vset(256));
    /* table[idx] in the low half, table[idx + 1] in the high half */
    const v8 spair = vpair_gather(bsync_isqrt_seed_, idx);
    const v8 ppair = vpair_gather(bsync_rsqrt_seed_, idx);
    const v8 lo32 = vset(0xFFFFFFFF);
    const v8 s0 = vand(spair, lo32), s1 = VSRLI(spair, 32);
    const v8 p0 = vand(ppair, lo32), p1 = VSRLI(ppair, 32);
    const v8 y = vadd(s0, VSRLI(vmul(vsub(s1, s0), f), 20));
    const v8 z = vsub(p0, VSRLI(vmul(vsub(p0, p1), f), 20));
    const v8 zk = vsrlv(z, vsub(half, vset(24)));
    const v8 x0 = vsllv(vadd(y, vset(2)), vsub(half, vset(16)));
    const v8 rem = vsub(vmul(x0, x0), n);
    const v8 t = vsub(x0, VSRLI(vmul_u64_u32(rem, zk), 49));
    const v8 inv0 = vsub(zk, vset(3));
    const v8 d = vsub(vset((int64_t)1 << 48), vmul(inv0, t));
    const v8 inv = vadd(inv0, VSRLI(vmul_u64_u32(d, inv0), 48));
    /* l = t - [n + t <= t^2] = t - 1 - (n + t > t^2 ? -1 : 0) */
    const v8 l = vsub(vsub(t, vset(1)), vcmpgt(vadd(n, t), vmul(t, t)));
    o[0] = div_round_shared8(vsllv(A[0], e), l, inv);
    o[1] = div_round_shared8(vsllv(A[1], e), l, inv);
    o[2] = div_round_shared8(vsllv(A[2], e), l, inv);
    o[3] = div_round_shared8(vsllv(A[3], e), l, inv);
}

/* m where neg is zero, -m where it is all ones (per 64-bit lane) */
AVX2_FN static BSYNC_FORCE_INLINE v8 vsign(v8 m, v8 neg) { return vsub(vxor(m, neg), neg); }
/* A word from two int64 lanes holding int32 values: lo's low half, then hi's. */
AVX2_FN static BSYNC_FORCE_INLINE __m256i word_of(__m256i lo, __m256i hi) {
    return _mm256_blend_epi32(lo, _mm256_slli_epi64(hi, 32), 0xAA);
}

/* Eight rotations q[0 .. 8) (distinct, or repeated with the same content), in 64-bit words: a rotation
 * is the two words x|y and z|w (the even component in the low half: x86 is little-endian). Two 16-byte
 * loads per register and one unpack each give the x|y words of four rotations in one register and their
 * z|w words in another (lanes in the order 0, 2, 1, 3: any order serves, as the lanes are independent,
 * and the same unpacks put them back). */
AVX2_FN static void normalize8(bsync_quat* const q[8]) {
#define LQ(i) _mm_loadu_si128((const __m128i*)(const void*)q[i])
#define PAIR(a, b) _mm256_inserti128_si256(_mm256_castsi128_si256(LQ(a)), LQ(b), 1)
    const __m256i z0 = PAIR(0, 1), z1 = PAIR(2, 3), z2 = PAIR(4, 5), z3 = PAIR(6, 7);
#undef PAIR
#undef LQ
    v8 xy, zw;
    xy.h[0] = _mm256_unpacklo_epi64(z0, z1);
    zw.h[0] = _mm256_unpackhi_epi64(z0, z1);
    xy.h[1] = _mm256_unpacklo_epi64(z2, z3);
    zw.h[1] = _mm256_unpackhi_epi64(z2, z3);
    v8 axy, azw; /* |c| per int32 (INT32_MIN gives 2^31 unsigned, its magnitude) */
    for (int h = 0; h < 2; h++) {
        axy.h[h] = _mm256_abs_epi32(xy.h[h]);
        azw.h[h] = _mm256_abs_epi32(zw.h[h]);
    }
    const v8 lo32 = vset(0xFFFFFFFF), zero = vset(0);
    const v8 A[4] = {vand(axy, lo32), VSRLI(axy, 32), vand(azw, lo32), VSRLI(azw, 32)};
    /* the lanes for the scalar function: an all-zero rotation, or a component of magnitude 2^30 or more */
    const v8 mx = vor(vor(A[0], A[1]), vor(A[2], A[3]));
    const v8 sp = vor(vcmpeq(mx, zero), vcmpgt(mx, vset(((int64_t)1 << 30) - 1)));
    /* lane bits in the lanes' order 0, 2, 1, 3: swap the middle two of each half for rotation order */
    const int lanes = _mm256_movemask_pd(_mm256_castsi256_pd(sp.h[0])) | (_mm256_movemask_pd(_mm256_castsi256_pd(sp.h[1])) << 4);
    const int special = (lanes & 0x99) | ((lanes & 0x22) << 1) | ((lanes & 0x44) >> 1);
    bsync_quat orig[8];
    if (special != 0)
        for (int i = 0; i < 8; i++) orig[i] = *q[i];
    v8 o[4];
    v_normalize_mag(A, sp, o);
    /* the signs come back (c < 0: the low half's sign is the top bit once shifted up) */
    const v8 o0 = vsign(o[0], vcmpgt(zero, VSLLI(xy, 32))), o1 = vsign(o[1], vcmpgt(zero, xy));
    const v8 o2 = vsign(o[2], vcmpgt(zero, VSLLI(zw, 32))), o3 = vsign(o[3], vcmpgt(zero, zw));
    for (int h = 0; h < 2; h++) {
        const __m256i wxy = word_of(o0.h[h], o1.h[h]), wzw = word_of(o2.h[h], o3.h[h]);
        const __m256i a = _mm256_unpacklo_epi64(wxy, wzw), b = _mm256_unpackhi_epi64(wxy, wzw);
        _mm_storeu_si128((__m128i*)(void*)q[4 * h], _mm256_castsi256_si128(a));
        _mm_storeu_si128((__m128i*)(void*)q[4 * h + 1], _mm256_extracti128_si256(a, 1));
        _mm_storeu_si128((__m128i*)(void*)q[4 * h + 2], _mm256_castsi256_si128(b));
        _mm_storeu_si128((__m128i*)(void*)q[4 * h + 3], _mm256_extracti128_si256(b, 1));
    }
    if (special != 0)
        for (int i = 0; i < 8; i++)
            if (special & (1 << i)) *q[i] = bsync_quat_normalize_inl_(orig[i], NULL);
}

AVX2_FN void bsync_simd_normalize_avx2_(bsync_trs* pose, const uint16_t* joints, uint32_t n) {
    bsync_quat* q[8];
    for (uint32_t i = 0; i < n; i += 8) {
        /* fewer than 8 left: repeat the last one (same input, same output; all loads precede the stores,
         * and a repeated lane's scalar redo writes the same value) */
        for (uint32_t k = 0; k < 8; k++) q[k] = &pose[joints[i + k < n ? i + k : n - 1]].r;
        normalize8(q);
    }
}

/* ---------------------------------------------------------------- the blend of four joints (AVX2)
 *
 * bsync_pose_blend's per-joint rule (pose.c) for joints j .. j+3 at once, structure-of-arrays: lane i
 * is joint j + i. Only the case pose.c hands over: no masks, the weights summing to at most one (the
 * remainder 1 - total goes to the rest pose, as one more input), so every weight fits 16 bits and the
 * denominator is 2^16. Every sum is the exact int64 sum of _mm256_mul_epi32 products (signed 32 x 32),
 * in any order (exact integers); translation and scale are rounded as div_round_sat_one (half away
 * from zero, saturated to +-(2^31 - 1)), the rotation's hemisphere signs come from the exact dot with
 * the first input's rotation (negative when <= -2^15, quat_dot_negative), and its sum is scaled by
 * scale_sum's symmetric shift; the normalisation is left to the caller's batch. pose.c's shortcuts for
 * channels where every value is the same give these same bits (their proofs are there), so they are not
 * taken. A group where some rotation component is outside [-2^30, 2^30) (quat_dot_negative's general
 * case) returns 0 and writes nothing: pose.c blends it with the scalar code. */

/* The blend reads and writes transforms as ten consecutive int32 (t.xyz, r.xyzw, s.xyz). */
_Static_assert(sizeof(bsync_trs) == 40 && offsetof(bsync_trs, r) == 12 && offsetof(bsync_trs, s) == 28,
               "bsync_trs is ten consecutive int32");


AVX2_FN static BSYNC_FORCE_INLINE void transpose4(__m128i v0, __m128i v1, __m128i v2, __m128i v3, __m128i out[4]) {
    const __m128i t0 = _mm_unpacklo_epi32(v0, v1), t1 = _mm_unpacklo_epi32(v2, v3);
    const __m128i t2 = _mm_unpackhi_epi32(v0, v1), t3 = _mm_unpackhi_epi32(v2, v3);
    out[0] = _mm_unpacklo_epi64(t0, t1);
    out[1] = _mm_unpackhi_epi64(t0, t1);
    out[2] = _mm_unpacklo_epi64(t2, t3);
    out[3] = _mm_unpackhi_epi64(t2, t3);
}

/* One pose's joints j .. j+3 as component vectors: t (x y z), r (x y z w), s (x y z), sign-extended
 * to 64-bit lanes. Reads only inside the four transforms. */
typedef struct soa4 {
    __m256i t[3], r[4], s[3];
    __m128i r32[4]; /* the rotation components as int32, for the range check */
} soa4;

/* Loops over the channels are written out (REP3 / REP4): a loop over arrays of vectors kept them in
 * stack slots instead of registers. */
#define REP3(M) M(0) M(1) M(2)
#define REP4(M) M(0) M(1) M(2) M(3)

AVX2_FN static BSYNC_FORCE_INLINE void load_soa4p(const bsync_trs* p0, const bsync_trs* p1, const bsync_trs* p2,
                                                  const bsync_trs* p3, soa4* o) {
    __m128i c[4];
    /* [t.x t.y t.z r.x], [r.x r.y r.z r.w], [r.w s.x s.y s.z] of each transform */
    transpose4(_mm_loadu_si128((const __m128i*)(const void*)&p0->t), _mm_loadu_si128((const __m128i*)(const void*)&p1->t),
               _mm_loadu_si128((const __m128i*)(const void*)&p2->t), _mm_loadu_si128((const __m128i*)(const void*)&p3->t), c);
#define T_(k) o->t[k] = _mm256_cvtepi32_epi64(c[k]);
    REP3(T_)
#undef T_
    transpose4(_mm_loadu_si128((const __m128i*)(const void*)&p0->r), _mm_loadu_si128((const __m128i*)(const void*)&p1->r),
               _mm_loadu_si128((const __m128i*)(const void*)&p2->r), _mm_loadu_si128((const __m128i*)(const void*)&p3->r), o->r32);
#define R_(k) o->r[k] = _mm256_cvtepi32_epi64(o->r32[k]);
    REP4(R_)
#undef R_
    transpose4(_mm_loadu_si128((const __m128i*)(const void*)&p0->r.w), _mm_loadu_si128((const __m128i*)(const void*)&p1->r.w),
               _mm_loadu_si128((const __m128i*)(const void*)&p2->r.w), _mm_loadu_si128((const __m128i*)(const void*)&p3->r.w), c);
#define S_(k) o->s[k] = _mm256_cvtepi32_epi64(c[k + 1]);
    REP3(S_)
#undef S_
}
/* the four consecutive transforms p[0 .. 4) */
AVX2_FN static BSYNC_FORCE_INLINE void load_soa4(const bsync_trs* p, soa4* o) { load_soa4p(&p[0], &p[1], &p[2], &p[3], o); }

/* The inverse: ten component vectors of four int32 lanes (t.xyz, r.xyzw, s.xyz) written as the four
 * transforms at o[0 .. 4): [t.x t.y t.z r.x] [r.y r.z r.w s.x] and s.y s.z each. */
AVX2_FN static BSYNC_FORCE_INLINE void store_soa4p(const __m128i v[10], bsync_trs* const o[4]) {
    __m128i a[4], b[4], c[4];
    transpose4(v[0], v[1], v[2], v[3], a);
    transpose4(v[4], v[5], v[6], v[7], b);
    transpose4(v[8], v[9], _mm_setzero_si128(), _mm_setzero_si128(), c);
    for (int i = 0; i < 4; i++) {
        int32_t* x = (int32_t*)(void*)o[i];
        _mm_storeu_si128((__m128i*)(void*)x, a[i]);
        _mm_storeu_si128((__m128i*)(void*)(x + 4), b[i]);
        _mm_storel_epi64((__m128i*)(void*)(x + 8), c[i]);
    }
}

/* any rotation component outside [-2^30, 2^30)? (c + 2^30, wrapping, has its top bit set exactly then) */
AVX2_FN static BSYNC_FORCE_INLINE __m128i out_of_small(const soa4* x) {
    const __m128i b = _mm_set1_epi32(0x40000000);
    return _mm_or_si128(_mm_or_si128(_mm_add_epi32(x->r32[0], b), _mm_add_epi32(x->r32[1], b)),
                        _mm_or_si128(_mm_add_epi32(x->r32[2], b), _mm_add_epi32(x->r32[3], b)));
}

/* |v| and the sign mask of int64 lanes (|v| < 2^63 here) */
AVX2_FN static BSYNC_FORCE_INLINE __m256i abs64(__m256i v, __m256i* neg) {
    *neg = _mm256_cmpgt_epi64(_mm256_setzero_si256(), v);
    return _mm256_sub_epi64(_mm256_xor_si256(v, *neg), *neg);
}
AVX2_FN static BSYNC_FORCE_INLINE __m256i apply_sign64(__m256i m, __m256i neg) {
    return _mm256_sub_epi64(_mm256_xor_si256(m, neg), neg);
}
/* the low 32 bits of the four lanes */
AVX2_FN static BSYNC_FORCE_INLINE __m128i low32(__m256i v) {
    return _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
}
/* div_round_sat_one: sign(a) min((|a| + 2^15) >> 16, 2^31 - 1) */
AVX2_FN static BSYNC_FORCE_INLINE __m128i round_one(__m256i a) {
    __m256i neg;
    __m256i m = _mm256_srli_epi64(_mm256_add_epi64(abs64(a, &neg), _mm256_set1_epi64x(32768)), 16);
    const __m256i cap = _mm256_set1_epi64x(0x7FFFFFFF);
    m = _mm256_blendv_epi8(m, cap, _mm256_cmpgt_epi64(m, cap));
    return low32(apply_sign64(m, neg));
}

AVX2_FN int bsync_simd_blend4_avx2_(const bsync_trs* rest, const bsync_trs* const* locals, const int64_t* weight,
                                    uint32_t n, int64_t total, uint32_t j, bsync_trs* out) {
    const int with_rest = total < 65536;
    soa4 f;
    load_soa4(&locals[0][j], &f);
    __m128i bad = out_of_small(&f);
    __m256i at0, at1, at2, as0, as1, as2, ar0, ar1, ar2, ar3;
    {
        const __m256i w = _mm256_set1_epi64x(weight[0]);
#define INIT3(k) at##k = _mm256_mul_epi32(f.t[k], w); as##k = _mm256_mul_epi32(f.s[k], w);
#define INIT4(k) ar##k = _mm256_mul_epi32(f.r[k], w);
        REP3(INIT3)
        REP4(INIT4)
#undef INIT3
#undef INIT4
    }
    const uint32_t count = n + (with_rest ? 1u : 0u);
    for (uint32_t k = 1; k < count; k++) {
        const int is_rest = k == n;
        soa4 x;
        load_soa4(is_rest ? &rest[j] : &locals[k][j], &x);
        bad = _mm_or_si128(bad, out_of_small(&x));
        const __m256i w = _mm256_set1_epi64x(is_rest ? 65536 - total : weight[k]);
#define ACC3(c)                                                            \
    at##c = _mm256_add_epi64(at##c, _mm256_mul_epi32(x.t[c], w));         \
    as##c = _mm256_add_epi64(as##c, _mm256_mul_epi32(x.s[c], w));
        REP3(ACC3)
#undef ACC3
        /* the hemisphere of the first input: negate the weight where the exact dot is <= -2^15 */
        const __m256i dot = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epi32(f.r[0], x.r[0]), _mm256_mul_epi32(f.r[1], x.r[1])),
                                             _mm256_add_epi64(_mm256_mul_epi32(f.r[2], x.r[2]), _mm256_mul_epi32(f.r[3], x.r[3])));
        const __m256i flip = _mm256_cmpgt_epi64(_mm256_set1_epi64x(-32767), dot);
        const __m256i sw = apply_sign64(w, flip);
#define ACC4(c) ar##c = _mm256_add_epi64(ar##c, _mm256_mul_epi32(x.r[c], sw));
        REP4(ACC4)
#undef ACC4
    }
    if (_mm_movemask_ps(_mm_castsi128_ps(bad)) != 0) return 0; /* the scalar code decides those dots */

    const __m128i t0 = round_one(at0), t1 = round_one(at1), t2 = round_one(at2);
    const __m128i s0 = round_one(as0), s1 = round_one(as1), s2 = round_one(as2);
    /* scale_sum: the smallest shift s with max|r| >> s < 2^29, then symmetric rounding */
    __m256i n0, n1, n2, n3;
    const __m256i m0 = abs64(ar0, &n0), m1 = abs64(ar1, &n1), m2 = abs64(ar2, &n2), m3 = abs64(ar3, &n3);
    const __m256i mx = _mm256_or_si256(_mm256_or_si256(m0, m1), _mm256_or_si256(m2, m3));
    /* bits(mx) = 64 - clz(mx) by a binary search on the top bits (mx < 2^47); s = max(0, bits - 29) */
    const __m256i zero = _mm256_setzero_si256();
    __m256i top = _mm256_or_si256(mx, _mm256_set1_epi64x(1)), lz = zero; /* mx = 0: s = 0 either way */
#define CLZ_STEP(k)                                                                                   \
    do {                                                                                              \
        const __m256i m_ = _mm256_cmpeq_epi64(_mm256_srli_epi64(top, 64 - (k)), zero);                \
        top = _mm256_blendv_epi8(top, _mm256_slli_epi64(top, (k)), m_);                               \
        lz = _mm256_add_epi64(lz, _mm256_and_si256(m_, _mm256_set1_epi64x(k)));                       \
    } while (0)
    CLZ_STEP(32);
    CLZ_STEP(16);
    CLZ_STEP(8);
    CLZ_STEP(4);
    CLZ_STEP(2);
    CLZ_STEP(1);
#undef CLZ_STEP
    const __m256i bits_minus = _mm256_sub_epi64(_mm256_set1_epi64x(64 - 29), lz); /* bits - 29, may be < 0 */
    const __m256i sh = _mm256_andnot_si256(_mm256_cmpgt_epi64(zero, bits_minus), bits_minus);
    const __m256i halfs = _mm256_srli_epi64(_mm256_sllv_epi64(_mm256_set1_epi64x(1), sh), 1);
#define RQ(c) const __m128i r##c = low32(apply_sign64(_mm256_srlv_epi64(_mm256_add_epi64(m##c, halfs), sh), n##c));
    REP4(RQ)
#undef RQ
    const __m128i v[10] = {t0, t1, t2, r0, r1, r2, r3, s0, s1, s2};
    bsync_trs* const o[4] = {&out[j], &out[j + 1], &out[j + 2], &out[j + 3]};
    store_soa4p(v, o);
    return 1;
}

/* ---------------------------------------------------------------- the blend of eight joints (AVX2)
 *
 * bsync_simd_blend4_avx2_'s steps for joints j .. j+7 as two halves of four (v8; the two dependency
 * chains overlap), with the transforms read and written as 64-bit words instead of transposed and the
 * blended rotations normalised in registers (v_normalize_mag), so the joints come out final: the AVX2
 * counterpart of bsync_simd_blend8_avx512_ (simd_avx512.c; its comment explains the words and the
 * normalisation). Four consecutive transforms are read and written as words by load_words4 and
 * store_words4 (internal/simd_words_avx2.h, which explains the layout). The same exact integers, so the same bits; a group with a rotation component outside [-2^30, 2^30)
 * returns 0 and writes nothing. */

/* Nonzero where a rotation component of the words is outside [-2^30, 2^30): c + 2^30 (int32, wrapping)
 * has its top bit set; the rotation's halves are word 1's high, word 2's both and word 3's low. */
AVX2_FN static BSYNC_FORCE_INLINE __m256i words_out_of_small(const __m256i w[5]) {
    const __m256i b30 = _mm256_set1_epi32(0x40000000);
    const __m256i hi_bit = _mm256_set1_epi64x((int64_t)(UINT64_C(1) << 63)), both_bits = _mm256_set1_epi32(INT32_MIN);
    const __m256i lo_bit = _mm256_set1_epi64x((int64_t)UINT64_C(0x80000000));
    return _mm256_or_si256(_mm256_and_si256(_mm256_add_epi32(w[1], b30), hi_bit),
                           _mm256_or_si256(_mm256_and_si256(_mm256_add_epi32(w[2], b30), both_bits),
                                           _mm256_and_si256(_mm256_add_epi32(w[3], b30), lo_bit)));
}

/* div_round_sat_one of int64 lanes: sign(a) min((|a| + 2^15) >> 16, 2^31 - 1), an int32 value */
AVX2_FN static BSYNC_FORCE_INLINE __m256i round_one64(__m256i a) {
    __m256i neg;
    __m256i m = _mm256_srli_epi64(_mm256_add_epi64(abs64(a, &neg), _mm256_set1_epi64x(32768)), 16);
    const __m256i cap = _mm256_set1_epi64x(0x7FFFFFFF);
    m = _mm256_blendv_epi8(m, cap, _mm256_cmpgt_epi64(m, cap));
    return apply_sign64(m, neg);
}

AVX2_FN int bsync_simd_blend8_avx2_(const bsync_trs* rest, const bsync_trs* const* locals, const int64_t* weight,
                                    uint32_t n, int64_t total, uint32_t j, bsync_trs* out) {
    const int with_rest = total < 65536;
#define BAD(w) words_out_of_small(w)
    __m256i f0[5], f1[5];
    load_words4(&locals[0][j], f0);
    load_words4(&locals[0][j + 4], f1);
    __m256i bad = _mm256_or_si256(BAD(f0), BAD(f1));
    v8 F[5];
    for (int k = 0; k < 5; k++) F[k].h[0] = f0[k], F[k].h[1] = f1[k];
    const v8 fr0 = VSRLI(F[1], 32), fr1 = F[2], fr2 = VSRLI(F[2], 32), fr3 = F[3];
    v8 at0, at1, at2, as0, as1, as2, ar0, ar1, ar2, ar3;
    {
        const v8 w = vset(weight[0]);
        at0 = vmuls(F[0], w);
        at1 = vmuls(VSRLI(F[0], 32), w);
        at2 = vmuls(F[1], w);
        ar0 = vmuls(fr0, w);
        ar1 = vmuls(fr1, w);
        ar2 = vmuls(fr2, w);
        ar3 = vmuls(fr3, w);
        as0 = vmuls(VSRLI(F[3], 32), w);
        as1 = vmuls(F[4], w);
        as2 = vmuls(VSRLI(F[4], 32), w);
    }
    const uint32_t count = n + (with_rest ? 1u : 0u);
    for (uint32_t k = 1; k < count; k++) {
        const int is_rest = k == n;
        const bsync_trs* src = is_rest ? rest : locals[k];
        __m256i x0[5], x1[5];
        load_words4(&src[j], x0);
        load_words4(&src[j + 4], x1);
        bad = _mm256_or_si256(bad, _mm256_or_si256(BAD(x0), BAD(x1)));
        v8 X[5];
        for (int c = 0; c < 5; c++) X[c].h[0] = x0[c], X[c].h[1] = x1[c];
        const v8 w = vset(is_rest ? 65536 - total : weight[k]);
        at0 = vadd(at0, vmuls(X[0], w));
        at1 = vadd(at1, vmuls(VSRLI(X[0], 32), w));
        at2 = vadd(at2, vmuls(X[1], w));
        as0 = vadd(as0, vmuls(VSRLI(X[3], 32), w));
        as1 = vadd(as1, vmuls(X[4], w));
        as2 = vadd(as2, vmuls(VSRLI(X[4], 32), w));
        const v8 xr0 = VSRLI(X[1], 32), xr1 = X[2], xr2 = VSRLI(X[2], 32), xr3 = X[3];
        /* the hemisphere of the first input: negate the weight where the exact dot is <= -2^15 */
        const v8 dot = vadd(vadd(vmuls(fr0, xr0), vmuls(fr1, xr1)), vadd(vmuls(fr2, xr2), vmuls(fr3, xr3)));
        const v8 sw = vsign(w, vcmpgt(vset(-32767), dot));
        ar0 = vadd(ar0, vmuls(xr0, sw));
        ar1 = vadd(ar1, vmuls(xr1, sw));
        ar2 = vadd(ar2, vmuls(xr2, sw));
        ar3 = vadd(ar3, vmuls(xr3, sw));
    }
#undef BAD
    if (!_mm256_testz_si256(bad, bad)) return 0; /* the scalar code decides those dots */

    /* scale_sum: the smallest shift s with max|r| >> s < 2^29, then symmetric rounding */
    const v8 zero = vset(0);
    const v8 n0 = vcmpgt(zero, ar0), n1 = vcmpgt(zero, ar1), n2 = vcmpgt(zero, ar2), n3 = vcmpgt(zero, ar3);
    const v8 m0 = vsign(ar0, n0), m1 = vsign(ar1, n1), m2 = vsign(ar2, n2), m3 = vsign(ar3, n3); /* |r| */
    const v8 mx = vor(vor(m0, m1), vor(m2, m3));
    /* bits(mx) = 64 - clz(mx) by a binary search on the top bits (mx < 2^47); s = max(0, bits - 29) */
    v8 top = vor(mx, vset(1)), lz = zero; /* mx = 0: s = 0 either way */
#define CLZ_STEP(k)                                                  \
    do {                                                             \
        const v8 m_ = vcmpeq(VSRLI(top, 64 - (k)), zero);            \
        top = vblend(top, VSLLI(top, (k)), m_);                      \
        lz = vadd(lz, vand(m_, vset(k)));                            \
    } while (0)
    CLZ_STEP(32);
    CLZ_STEP(16);
    CLZ_STEP(8);
    CLZ_STEP(4);
    CLZ_STEP(2);
    CLZ_STEP(1);
#undef CLZ_STEP
    const v8 bits_minus = vsub(vset(64 - 29), lz); /* bits - 29, may be < 0 */
    v8 sh;
    for (int h = 0; h < 2; h++) sh.h[h] = _mm256_andnot_si256(_mm256_cmpgt_epi64(zero.h[h], bits_minus.h[h]), bits_minus.h[h]);
    const v8 halfs = VSRLI(vsllv(vset(1), sh), 1);
    /* the scaled sum's magnitudes (|c| <= 2^29: the scalar normalisation's halving never applies) */
    const v8 A[4] = {vsrlv(vadd(m0, halfs), sh), vsrlv(vadd(m1, halfs), sh), vsrlv(vadd(m2, halfs), sh),
                     vsrlv(vadd(m3, halfs), sh)};
    /* an all-zero scaled sum normalises to the identity */
    const v8 zq = vcmpeq(vor(vor(A[0], A[1]), vor(A[2], A[3])), zero);
    v8 o[4];
    v_normalize_mag(A, zq, o);
    for (int h = 0; h < 2; h++) {
        /* the signs come back (a zero quotient stays zero); the identity in the all-zero lanes */
        const __m256i z = zq.h[h];
        const __m256i q0 = _mm256_andnot_si256(z, apply_sign64(o[0].h[h], n0.h[h]));
        const __m256i q1 = _mm256_andnot_si256(z, apply_sign64(o[1].h[h], n1.h[h]));
        const __m256i q2 = _mm256_andnot_si256(z, apply_sign64(o[2].h[h], n2.h[h]));
        const __m256i q3 = _mm256_blendv_epi8(apply_sign64(o[3].h[h], n3.h[h]), _mm256_set1_epi64x(65536), z);
        const __m256i w[5] = {word_of(round_one64(at0.h[h]), round_one64(at1.h[h])), word_of(round_one64(at2.h[h]), q0),
                              word_of(q1, q2), word_of(q3, round_one64(as0.h[h])),
                              word_of(round_one64(as1.h[h]), round_one64(as2.h[h]))};
        store_words4(w, &out[j + 4u * (uint32_t)h]);
    }
    return 1;
}
#undef REP3
#undef REP4

/* ---------------------------------------------------------------- local to model, four joints (AVX2)
 *
 * pose.c's compose_fast (bsync_trs_compose's bits) for four joints whose parents' model transforms are
 * already written, lane i joint joints[i]: with every rotation component (the parents' model rotations
 * and the joints' local ones) in [-2^30, 2^30), every product is exact in int64 lanes and every sum of
 * two or four of them below 2^62 (pose.c's quat_mul_fast and cross_small), so each step is the scalar
 * one: a product or sum rounded as round_q32_small (half away from zero, saturated to +-(2^31 - 1)) and
 * the saturating adds of fixed.h clamped to the same range. Otherwise returns 0 and writes nothing. */

/* round(v / 2^16), ties away from zero, saturated to [-(2^31 - 1), 2^31 - 1], sign-extended (|v| < 2^63) */
AVX2_FN static BSYNC_FORCE_INLINE __m256i rsat64(__m256i v) {
    __m256i neg;
    __m256i m = _mm256_srli_epi64(_mm256_add_epi64(abs64(v, &neg), _mm256_set1_epi64x(0x8000)), 16);
    const __m256i cap = _mm256_set1_epi64x(0x7FFFFFFF);
    m = _mm256_blendv_epi8(m, cap, _mm256_cmpgt_epi64(m, cap));
    return apply_sign64(m, neg);
}
/* bsync_fx_sat64 of lanes (|v| < 2^62) */
AVX2_FN static BSYNC_FORCE_INLINE __m256i sat64(__m256i v) {
    const __m256i hi = _mm256_set1_epi64x(0x7FFFFFFF), lo = _mm256_set1_epi64x(-0x7FFFFFFF);
    v = _mm256_blendv_epi8(v, hi, _mm256_cmpgt_epi64(v, hi));
    return _mm256_blendv_epi8(v, lo, _mm256_cmpgt_epi64(lo, v));
}
#define MUL_(a, b) _mm256_mul_epi32((a), (b))
#define ADD_(a, b) _mm256_add_epi64((a), (b))
#define SUB_(a, b) _mm256_sub_epi64((a), (b))

/* Four transforms at any addresses as their five 64-bit words (w[k] lane i = word k of *p[i]; blend8's
 * layout): words 0 .. 3 by a 4 x 4 transpose of one 32-byte load each, word 4 by 8-byte loads. */
AVX2_FN static BSYNC_FORCE_INLINE void gather_words4(const bsync_trs* const p[4], __m256i w[5]) {
    const __m256i a0 = _mm256_loadu_si256((const __m256i*)(const void*)p[0]);
    const __m256i a1 = _mm256_loadu_si256((const __m256i*)(const void*)p[1]);
    const __m256i a2 = _mm256_loadu_si256((const __m256i*)(const void*)p[2]);
    const __m256i a3 = _mm256_loadu_si256((const __m256i*)(const void*)p[3]);
    const __m256i t0 = _mm256_unpacklo_epi64(a0, a1), t1 = _mm256_unpackhi_epi64(a0, a1);
    const __m256i t2 = _mm256_unpacklo_epi64(a2, a3), t3 = _mm256_unpackhi_epi64(a2, a3);
    w[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
    w[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
    w[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
    w[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
#define W4_(i) _mm_loadl_epi64((const __m128i*)(const void*)((const char*)(const void*)p[i] + 32))
    w[4] = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_unpacklo_epi64(W4_(0), W4_(1))),
                                   _mm_unpacklo_epi64(W4_(2), W4_(3)), 1);
#undef W4_
}
/* The inverse: the five words of four transforms written at p[0 .. 4) (distinct, or repeated with the same value). */
AVX2_FN static BSYNC_FORCE_INLINE void scatter_words4(const __m256i w[5], bsync_trs* const p[4]) {
    const __m256i t0 = _mm256_unpacklo_epi64(w[0], w[1]), t1 = _mm256_unpackhi_epi64(w[0], w[1]);
    const __m256i t2 = _mm256_unpacklo_epi64(w[2], w[3]), t3 = _mm256_unpackhi_epi64(w[2], w[3]);
    _mm256_storeu_si256((__m256i*)(void*)p[0], _mm256_permute2x128_si256(t0, t2, 0x20));
    _mm256_storeu_si256((__m256i*)(void*)p[1], _mm256_permute2x128_si256(t1, t3, 0x20));
    _mm256_storeu_si256((__m256i*)(void*)p[2], _mm256_permute2x128_si256(t0, t2, 0x31));
    _mm256_storeu_si256((__m256i*)(void*)p[3], _mm256_permute2x128_si256(t1, t3, 0x31));
    const __m128i lo = _mm256_castsi256_si128(w[4]), hi = _mm256_extracti128_si256(w[4], 1);
    _mm_storel_epi64((__m128i*)(void*)((char*)(void*)p[0] + 32), lo);
    _mm_storel_epi64((__m128i*)(void*)((char*)(void*)p[1] + 32), _mm_unpackhi_epi64(lo, lo));
    _mm_storel_epi64((__m128i*)(void*)((char*)(void*)p[2] + 32), hi);
    _mm_storel_epi64((__m128i*)(void*)((char*)(void*)p[3] + 32), _mm_unpackhi_epi64(hi, hi));
}

/* The words' components as _mm256_mul_epi32 operands (the low 32 bits of a lane, signed) */
#define EVEN_(w) (w)
#define ODD_(w) _mm256_srli_epi64((w), 32)

AVX2_FN int bsync_simd_compose4_avx2_(const bsync_trs* local, bsync_trs* model, const int16_t* parents,
                                      const uint16_t* joints) {
    const bsync_trs* const pp[4] = {&model[parents[joints[0]]], &model[parents[joints[1]]], &model[parents[joints[2]]],
                                    &model[parents[joints[3]]]};
    const bsync_trs* const lp[4] = {&local[joints[0]], &local[joints[1]], &local[joints[2]], &local[joints[3]]};
    __m256i P[5], L[5];
    gather_words4(pp, P);
    gather_words4(lp, L);
    const __m256i bad = _mm256_or_si256(words_out_of_small(P), words_out_of_small(L));
    if (!_mm256_testz_si256(bad, bad)) return 0; /* the scalar code composes them */
    const __m256i one = _mm256_set1_epi64x(1);
    const __m256i ux = ODD_(P[1]), uy = EVEN_(P[2]), uz = ODD_(P[2]), uw = EVEN_(P[3]);
    const __m256i psx = ODD_(P[3]), psy = EVEN_(P[4]), psz = ODD_(P[4]);
    /* v = s p (bsync_vec3_mul), c = u x v, t = c + c (saturating) */
    const __m256i vx = rsat64(MUL_(psx, EVEN_(L[0]))), vy = rsat64(MUL_(psy, ODD_(L[0]))), vz = rsat64(MUL_(psz, EVEN_(L[1])));
    const __m256i tx = sat64(_mm256_slli_epi64(rsat64(SUB_(MUL_(uy, vz), MUL_(uz, vy))), 1));
    const __m256i ty = sat64(_mm256_slli_epi64(rsat64(SUB_(MUL_(uz, vx), MUL_(ux, vz))), 1));
    const __m256i tz = sat64(_mm256_slli_epi64(rsat64(SUB_(MUL_(ux, vy), MUL_(uy, vx))), 1));
    /* r = (v + w t) + u x t, then parent t + r, every add saturating (the parent's t sign-extended by a
     * product with one) */
    const __m256i ax = sat64(ADD_(vx, rsat64(MUL_(tx, uw)))), ay = sat64(ADD_(vy, rsat64(MUL_(ty, uw))));
    const __m256i az = sat64(ADD_(vz, rsat64(MUL_(tz, uw))));
    const __m256i bx = sat64(ADD_(ax, rsat64(SUB_(MUL_(uy, tz), MUL_(uz, ty)))));
    const __m256i by = sat64(ADD_(ay, rsat64(SUB_(MUL_(uz, tx), MUL_(ux, tz)))));
    const __m256i bz = sat64(ADD_(az, rsat64(SUB_(MUL_(ux, ty), MUL_(uy, tx)))));
    const __m256i Tx = sat64(ADD_(MUL_(EVEN_(P[0]), one), bx)), Ty = sat64(ADD_(MUL_(ODD_(P[0]), one), by));
    const __m256i Tz = sat64(ADD_(MUL_(EVEN_(P[1]), one), bz));
    /* parent r * local r (quat_mul_fast) */
    const __m256i lx = ODD_(L[1]), ly = EVEN_(L[2]), lz = ODD_(L[2]), lw = EVEN_(L[3]);
    const __m256i Rx = rsat64(ADD_(ADD_(MUL_(uw, lx), MUL_(ux, lw)), SUB_(MUL_(uy, lz), MUL_(uz, ly))));
    const __m256i Ry = rsat64(ADD_(SUB_(MUL_(uw, ly), MUL_(ux, lz)), ADD_(MUL_(uy, lw), MUL_(uz, lx))));
    const __m256i Rz = rsat64(ADD_(ADD_(MUL_(uw, lz), MUL_(ux, ly)), SUB_(MUL_(uz, lw), MUL_(uy, lx))));
    const __m256i Rw = rsat64(SUB_(SUB_(MUL_(uw, lw), MUL_(ux, lx)), ADD_(MUL_(uy, ly), MUL_(uz, lz))));
    /* parent s * local s */
    const __m256i Sx = rsat64(MUL_(psx, ODD_(L[3]))), Sy = rsat64(MUL_(psy, EVEN_(L[4])));
    const __m256i Sz = rsat64(MUL_(psz, ODD_(L[4])));
    const __m256i w[5] = {word_of(Tx, Ty), word_of(Tz, Rx), word_of(Ry, Rz), word_of(Rw, Sx), word_of(Sy, Sz)};
    bsync_trs* const o[4] = {&model[joints[0]], &model[joints[1]], &model[joints[2]], &model[joints[3]]};
    scatter_words4(w, o);
    return 1;
}
#undef EVEN_
#undef ODD_
#undef MUL_
#undef ADD_
#undef SUB_

#else
typedef int bsync_simd_avx2_empty_; /* ISO C wants a declaration in every translation unit */
#endif
