/* simd_avx512.c — the core's AVX-512 (F + CD) kernels (internal/simd_impl.h): the quaternion
 * normalisation and the pose blend of eight and of sixteen joints, eight 64-bit lanes in one register,
 * the same integer steps as the AVX2 kernels of simd_avx2.c (whose head comment explains the
 * normalisation's steps for both); clz is vplzcntq, the selections use mask registers. Each has the
 * scalar code's bits (x86-64 with gcc or clang; compiled for the instruction set with a function
 * attribute, run only on the AVX512 path, when the CPU has it: simd.c decides). The groups of four are
 * loaded and stored with the AVX2 word helpers (internal/simd_words_avx2.h). Not a public interface. */
#include "internal/simd_impl.h"

#if BSYNC_HAVE_AVX2_PATH

#include <immintrin.h>
#include <stddef.h>

#include "internal/force_inline.h"
#include "internal/quat_normalize.h"
#include "internal/simd_words_avx2.h"

#define AVX512_FN __attribute__((target("avx2,avx512f,avx512cd")))

AVX512_FN static inline __m512i z_join(__m256i lo, __m256i hi) {
    return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
AVX512_FN static inline __m512i z_set(int64_t x) { return _mm512_set1_epi64(x); }
AVX512_FN static inline __m512i z_mul_u64_u32(__m512i a, __m512i b32) {
    return _mm512_add_epi64(_mm512_mul_epu32(a, b32), _mm512_slli_epi64(_mm512_mul_epu32(_mm512_srli_epi64(a, 32), b32), 32));
}
AVX512_FN static inline __m512i z_pair_gather(const uint32_t* table, __m512i idx) {
    return _mm512_i64gather_epi64(idx, (const void*)table, 4); /* table[idx] | table[idx + 1] << 32 */
}

/* Each step below for G groups of eight lanes (G = 1 or 2, a constant after inlining): issued for the
 * groups next to each other, so that two groups' long dependency chains (the normalisation is one) run
 * side by side instead of one after the other. */
#define EACH _Pragma("GCC unroll 2") for (int g = 0; g < G; g++)

/* bsync_quat_normalize_inl_'s computation after its special cases, for G groups of eight rotations of
 * component magnitudes A[g][0 .. 4) (each below 2^30; the halving branch never applies), in 64-bit
 * lanes: the quotients' magnitudes round(|c| 2^(16+e) / l) in o[g]. A lane of `special[g]` (an all-zero
 * rotation, or one the caller redoes) computes from a harmless stand-in sum (2^32): its o is to be
 * discarded. */
AVX512_FN static BSYNC_FORCE_INLINE void z_normalize_mag_n(const int G, const __m512i (*A)[4], const __mmask8* special,
                                                           __m512i (*o)[4]) {
    __m512i s[2], lz[2], top[2], e[2], p[2], e2[2], half[2], n[2], m[2], f[2], idx[2], spair[2], ppair[2];
    __m512i y[2], z[2], zk[2], x0[2], rem[2], t[2], inv0[2], d[2], inv[2], l[2];
    __mmask8 le[2];
    const __m512i lo32 = z_set(0xFFFFFFFF);
    EACH s[g] = _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epu32(A[g][0], A[g][0]), _mm512_mul_epu32(A[g][1], A[g][1])),
                                 _mm512_add_epi64(_mm512_mul_epu32(A[g][2], A[g][2]), _mm512_mul_epu32(A[g][3], A[g][3])));
    EACH s[g] = _mm512_mask_blend_epi64(special[g], s[g], z_set((int64_t)1 << 32)); /* a harmless stand-in */
    EACH lz[g] = _mm512_lzcnt_epi64(s[g]);
    EACH top[g] = _mm512_sllv_epi64(s[g], lz[g]);
    EACH e[g] = _mm512_min_epu64(_mm512_srli_epi64(_mm512_sub_epi64(lz[g], z_set(2)), 1), z_set(28));
    EACH p[g] = _mm512_and_si512(lz[g], z_set(1));
    EACH e2[g] = _mm512_add_epi64(e[g], e[g]);
    EACH half[g] = _mm512_srli_epi64(_mm512_sub_epi64(_mm512_add_epi64(_mm512_add_epi64(z_set(54), p[g]), e2[g]), lz[g]), 1);
    EACH n[g] = _mm512_sllv_epi64(s[g], e2[g]);
    EACH m[g] = _mm512_srlv_epi64(top[g], _mm512_add_epi64(p[g], z_set(54)));
    EACH f[g] = _mm512_and_si512(_mm512_srlv_epi64(top[g], _mm512_add_epi64(p[g], z_set(34))), z_set(0xFFFFF));
    EACH idx[g] = _mm512_sub_epi64(m[g], z_set(256));
    EACH spair[g] = z_pair_gather(bsync_isqrt_seed_, idx[g]);
    EACH ppair[g] = z_pair_gather(bsync_rsqrt_seed_, idx[g]);
    EACH {
        const __m512i s0 = _mm512_and_si512(spair[g], lo32), s1 = _mm512_srli_epi64(spair[g], 32);
        y[g] = _mm512_add_epi64(s0, _mm512_srli_epi64(_mm512_mul_epu32(_mm512_sub_epi64(s1, s0), f[g]), 20));
    }
    EACH {
        const __m512i p0 = _mm512_and_si512(ppair[g], lo32), p1 = _mm512_srli_epi64(ppair[g], 32);
        z[g] = _mm512_sub_epi64(p0, _mm512_srli_epi64(_mm512_mul_epu32(_mm512_sub_epi64(p0, p1), f[g]), 20));
    }
    EACH zk[g] = _mm512_srlv_epi64(z[g], _mm512_sub_epi64(half[g], z_set(24)));
    EACH x0[g] = _mm512_sllv_epi64(_mm512_add_epi64(y[g], z_set(2)), _mm512_sub_epi64(half[g], z_set(16)));
    EACH rem[g] = _mm512_sub_epi64(_mm512_mul_epu32(x0[g], x0[g]), n[g]);
    EACH t[g] = _mm512_sub_epi64(x0[g], _mm512_srli_epi64(z_mul_u64_u32(rem[g], zk[g]), 49));
    EACH inv0[g] = _mm512_sub_epi64(zk[g], z_set(3));
    EACH d[g] = _mm512_sub_epi64(z_set((int64_t)1 << 48), _mm512_mul_epu32(inv0[g], t[g]));
    EACH inv[g] = _mm512_add_epi64(inv0[g], _mm512_srli_epi64(z_mul_u64_u32(d[g], inv0[g]), 48));
    /* l = t - [n + t <= t^2] (unsigned compare) */
    EACH le[g] = _mm512_cmple_epu64_mask(_mm512_add_epi64(n[g], t[g]), _mm512_mul_epu32(t[g], t[g]));
    EACH l[g] = _mm512_mask_sub_epi64(t[g], le[g], t[g], z_set(1));
    _Pragma("GCC unroll 4") for (int k = 0; k < 4; k++) {
        EACH {
            const __m512i b = _mm512_sllv_epi64(A[g][k], e[g]);
            const __m512i eq = _mm512_srli_epi64(_mm512_add_epi64(_mm512_mul_epu32(b, inv[g]), z_set((int64_t)1 << 31)), 32);
            const __m512i lhs = _mm512_mul_epu32(_mm512_add_epi64(_mm512_add_epi64(eq, eq), z_set(1)), l[g]);
            const __mmask8 up = _mm512_cmple_epu64_mask(lhs, _mm512_slli_epi64(b, 17));
            o[g][k] = _mm512_mask_add_epi64(eq, up, eq, z_set(1));
        }
    }
}

/* z_sign is also the blend's (below): m where neg is clear, -m where it is set */
AVX512_FN static BSYNC_FORCE_INLINE __m512i z_sign(__m512i m, __mmask8 neg) {
    return _mm512_mask_sub_epi64(m, neg, _mm512_setzero_si512(), m);
}
/* A word from two int64 lanes holding int32 values: lo's low half, then hi's. */
AVX512_FN static BSYNC_FORCE_INLINE __m512i z_word(__m512i lo, __m512i hi) {
    return _mm512_mask_blend_epi32((__mmask16)0xAAAA, lo, _mm512_slli_epi64(hi, 32));
}

/* Eight rotations q[0 .. 8) (distinct, or repeated with the same content), in 64-bit words: each rotation
 * is the two words x|y and z|w (the even component in the low half: x86 is little-endian). Four
 * rotations per register from 16-byte loads, two permutes give the x|y words of all eight in one
 * register and the z|w words in another; the magnitudes and signs come from the int32 halves; the
 * results go back the same way, 16 bytes per rotation. */
AVX512_FN static void normalize8_512(bsync_quat* const q[8]) {
#define LQ(i) _mm_loadu_si128((const __m128i*)(const void*)q[i])
    const __m512i z0 = _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(LQ(0)), LQ(1), 1), LQ(2), 2), LQ(3), 3);
    const __m512i z1 = _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(LQ(4)), LQ(5), 1), LQ(6), 2), LQ(7), 3);
#undef LQ
    const __m512i xy = _mm512_permutex2var_epi64(z0, _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), z1);
    const __m512i zw = _mm512_permutex2var_epi64(z0, _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15), z1);
    /* |c| per int32 (INT32_MIN gives 2^31 unsigned, its magnitude) */
    const __m512i axy = _mm512_abs_epi32(xy), azw = _mm512_abs_epi32(zw);
    const __m512i lo32 = z_set(0xFFFFFFFF);
    const __m512i A[1][4] = {{_mm512_and_si512(axy, lo32), _mm512_srli_epi64(axy, 32), _mm512_and_si512(azw, lo32),
                              _mm512_srli_epi64(azw, 32)}};
    /* the lanes for the scalar function: an all-zero rotation, or a component of magnitude 2^30 or more */
    const __m512i mx = _mm512_or_si512(_mm512_or_si512(A[0][0], A[0][1]), _mm512_or_si512(A[0][2], A[0][3]));
    const __mmask8 special = _mm512_cmpeq_epi64_mask(mx, _mm512_setzero_si512()) |
                             _mm512_cmpge_epu64_mask(mx, z_set((int64_t)1 << 30));
    bsync_quat orig[8];
    if (special != 0)
        for (int i = 0; i < 8; i++) orig[i] = *q[i];
    __m512i o[1][4];
    z_normalize_mag_n(1, A, &special, o);
    /* the signs come back (c < 0: the low half's sign is the top bit once shifted up) */
    const __m512i zero = _mm512_setzero_si512();
    const __m512i oxy = z_word(z_sign(o[0][0], _mm512_cmplt_epi64_mask(_mm512_slli_epi64(xy, 32), zero)),
                               z_sign(o[0][1], _mm512_cmplt_epi64_mask(xy, zero)));
    const __m512i ozw = z_word(z_sign(o[0][2], _mm512_cmplt_epi64_mask(_mm512_slli_epi64(zw, 32), zero)),
                               z_sign(o[0][3], _mm512_cmplt_epi64_mask(zw, zero)));
    const __m512i r0 = _mm512_permutex2var_epi64(oxy, _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), ozw);
    const __m512i r1 = _mm512_permutex2var_epi64(oxy, _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15), ozw);
    _mm_storeu_si128((__m128i*)(void*)q[0], _mm512_castsi512_si128(r0));
    _mm_storeu_si128((__m128i*)(void*)q[1], _mm512_extracti32x4_epi32(r0, 1));
    _mm_storeu_si128((__m128i*)(void*)q[2], _mm512_extracti32x4_epi32(r0, 2));
    _mm_storeu_si128((__m128i*)(void*)q[3], _mm512_extracti32x4_epi32(r0, 3));
    _mm_storeu_si128((__m128i*)(void*)q[4], _mm512_castsi512_si128(r1));
    _mm_storeu_si128((__m128i*)(void*)q[5], _mm512_extracti32x4_epi32(r1, 1));
    _mm_storeu_si128((__m128i*)(void*)q[6], _mm512_extracti32x4_epi32(r1, 2));
    _mm_storeu_si128((__m128i*)(void*)q[7], _mm512_extracti32x4_epi32(r1, 3));
    if (special != 0)
        for (int i = 0; i < 8; i++)
            if (special & (1 << i)) *q[i] = bsync_quat_normalize_inl_(orig[i], NULL);
}

AVX512_FN void bsync_simd_normalize_avx512_(bsync_trs* pose, const uint16_t* joints, uint32_t n) {
    bsync_quat* q[8];
    for (uint32_t i = 0; i < n; i += 8) {
        for (uint32_t k = 0; k < 8; k++) q[k] = &pose[joints[i + k < n ? i + k : n - 1]].r;
        normalize8_512(q);
    }
}

/* ---------------------------------------------------------------- the blend of eight joints (AVX-512)
 *
 * bsync_simd_blend4_avx2_'s steps for joints j .. j+7 in one register of eight 64-bit lanes (lane i is
 * joint j + i), with the normalisation of the blended rotations done here while their sums are in
 * registers (z_normalize_mag_n: bsync_quat_normalize_inl_'s steps), so the joints come out final.
 * - Loads and stores: the eight transforms are 320 consecutive bytes, five 64-bit words each (t.x|t.y,
 *   t.z|r.x, r.y|r.z, r.w|s.x, s.y|s.z; x86 is little-endian, so the even component is the low half).
 *   Ten 32-byte loads, three blends and one lane rotation per word put word k of joint i in lane i
 *   (load_words8, load_words4's steps in both halves); the products _mm512_mul_epi32 read the low 32
 *   bits of a lane as signed, so a word is used as it is for its even component and shifted right by 32
 *   for its odd one: no sign extension, no transposes. The output words go back the same way
 *   (store_words8).
 * - The hemisphere test and the symmetric roundings use masks, |x| is vpabsq, the shift's bit length is
 *   vplzcntq, the saturation is an unsigned minimum.
 * - The normalisation: the scaled sum's components are below 2^30 (|c| <= 2^29), so the halving branch
 *   never applies, and an all-zero sum gives the identity, as bsync_quat_normalize does.
 * The same exact integers, so the same bits (tests/unit/test_simd.c compares every path with the scalar
 * blend); a group with a rotation component outside [-2^30, 2^30) returns 0 and writes nothing. */
#define REP3(M) M(0) M(1) M(2)
#define REP4(M) M(0) M(1) M(2) M(3)

/* V[q] = a, b, c or d's lane q for q % 4 = 0, 1, 2, 3 (both 256-bit halves alike) */
AVX512_FN static BSYNC_FORCE_INLINE __m512i z_pick4(__m512i a, __m512i b, __m512i c, __m512i d) {
    return _mm512_mask_blend_epi64((__mmask8)0x88, _mm512_mask_blend_epi64((__mmask8)0x44, _mm512_mask_blend_epi64((__mmask8)0x22, a, b), c), d);
}
/* The eight transforms p[0 .. 8) as their five words, w[k] lane i = word k of p[i]: as two groups of
 * four (joints 0 .. 3 in the low 256 bits, 4 .. 7 in the high), load_words4's three blends and one lane
 * rotation per word in both halves at once (measured faster than two-source permutes over the 320 bytes). */
AVX512_FN static BSYNC_FORCE_INLINE void load_words8(const bsync_trs* p, __m512i w[5]) {
    const __m256i* b = (const __m256i*)(const void*)p;
#define LR(m) z_join(_mm256_loadu_si256(b + (m)), _mm256_loadu_si256(b + 5 + (m)))
    const __m512i r0 = LR(0), r1 = LR(1), r2 = LR(2), r3 = LR(3), r4 = LR(4);
#undef LR
    w[0] = z_pick4(r0, r1, r2, r3);
    w[1] = _mm512_permutex_epi64(z_pick4(r4, r0, r1, r2), _MM_SHUFFLE(0, 3, 2, 1));
    w[2] = _mm512_permutex_epi64(z_pick4(r3, r4, r0, r1), _MM_SHUFFLE(1, 0, 3, 2));
    w[3] = _mm512_permutex_epi64(z_pick4(r2, r3, r4, r0), _MM_SHUFFLE(2, 1, 0, 3));
    w[4] = z_pick4(r1, r2, r3, r4);
}
/* The inverse (store_words4's steps in both halves). */
AVX512_FN static BSYNC_FORCE_INLINE void store_words8(const __m512i w[5], bsync_trs* p) {
    __m256i* b = (__m256i*)(void*)p;
    const __m512i u0 = w[0], u4 = w[4];
    const __m512i u1 = _mm512_permutex_epi64(w[1], _MM_SHUFFLE(2, 1, 0, 3));
    const __m512i u2 = _mm512_permutex_epi64(w[2], _MM_SHUFFLE(1, 0, 3, 2));
    const __m512i u3 = _mm512_permutex_epi64(w[3], _MM_SHUFFLE(0, 3, 2, 1));
    const __m512i r[5] = {z_pick4(u0, u1, u2, u3), z_pick4(u4, u0, u1, u2), z_pick4(u3, u4, u0, u1), z_pick4(u2, u3, u4, u0),
                          z_pick4(u1, u2, u3, u4)};
    for (int m = 0; m < 5; m++) {
        _mm256_storeu_si256(b + m, _mm512_castsi512_si256(r[m]));
        _mm256_storeu_si256(b + 5 + m, _mm512_extracti64x4_epi64(r[m], 1));
    }
}


/* The odd component of a word in the low half (for _mm512_mul_epi32) */
#define ODD(w) _mm512_srli_epi64((w), 32)

/* div_round_sat_one of eight int64 lanes: sign(a) min((|a| + 2^15) >> 16, 2^31 - 1), an int32 value */
AVX512_FN static BSYNC_FORCE_INLINE __m512i z_round_one(__m512i a) {
    const __mmask8 neg = _mm512_cmplt_epi64_mask(a, _mm512_setzero_si512());
    const __m512i m = _mm512_min_epu64(_mm512_srli_epi64(_mm512_add_epi64(_mm512_abs_epi64(a), z_set(32768)), 16),
                                       z_set(0x7FFFFFFF));
    return z_sign(m, neg);
}

/* The blend of G groups of eight joints, js[g] .. js[g] + 7 (G = 1 or 2; the groups may overlap: they
 * read only the inputs and write the same values), each step issued for the groups side by side. */
AVX512_FN static BSYNC_FORCE_INLINE int blend_groups(const int G, const bsync_trs* rest, const bsync_trs* const* locals,
                                                     const int64_t* weight, uint32_t n, int64_t total, const uint32_t* js,
                                                     bsync_trs* out) {
    const int with_rest = total < 65536;
    /* a rotation component outside [-2^30, 2^30): c + 2^30 (int32, wrapping) has its top bit set; the
     * rotation's halves are word 1's high, words 2's both and word 3's low */
    const __m512i b30 = _mm512_set1_epi32(0x40000000);
    const __m512i hi_bit = z_set((int64_t)(UINT64_C(1) << 63)), both_bits = _mm512_set1_epi32(INT32_MIN);
    const __m512i lo_bit = z_set((int64_t)UINT64_C(0x80000000));
#define BAD(w) \
    _mm512_or_si512(_mm512_and_si512(_mm512_add_epi32((w)[1], b30), hi_bit), \
                    _mm512_or_si512(_mm512_and_si512(_mm512_add_epi32((w)[2], b30), both_bits), \
                                    _mm512_and_si512(_mm512_add_epi32((w)[3], b30), lo_bit)))
    __m512i f[2][5], bad[2], fr0[2], fr1[2], fr2[2], fr3[2];
    __m512i at0[2], at1[2], at2[2], as0[2], as1[2], as2[2], ar0[2], ar1[2], ar2[2], ar3[2];
    EACH load_words8(&locals[0][js[g]], f[g]);
    EACH {
        bad[g] = BAD(f[g]);
        fr0[g] = ODD(f[g][1]);
        fr1[g] = f[g][2];
        fr2[g] = ODD(f[g][2]);
        fr3[g] = f[g][3];
    }
    {
        const __m512i w = z_set(weight[0]);
        EACH {
            at0[g] = _mm512_mul_epi32(f[g][0], w);
            at1[g] = _mm512_mul_epi32(ODD(f[g][0]), w);
            at2[g] = _mm512_mul_epi32(f[g][1], w);
            ar0[g] = _mm512_mul_epi32(fr0[g], w);
            ar1[g] = _mm512_mul_epi32(fr1[g], w);
            ar2[g] = _mm512_mul_epi32(fr2[g], w);
            ar3[g] = _mm512_mul_epi32(fr3[g], w);
            as0[g] = _mm512_mul_epi32(ODD(f[g][3]), w);
            as1[g] = _mm512_mul_epi32(f[g][4], w);
            as2[g] = _mm512_mul_epi32(ODD(f[g][4]), w);
        }
    }
    const uint32_t count = n + (with_rest ? 1u : 0u);
    for (uint32_t k = 1; k < count; k++) {
        const int is_rest = k == n;
        const bsync_trs* src = is_rest ? rest : locals[k];
        const __m512i w = z_set(is_rest ? 65536 - total : weight[k]);
        __m512i x[2][5];
        EACH load_words8(&src[js[g]], x[g]);
        EACH {
            bad[g] = _mm512_or_si512(bad[g], BAD(x[g]));
            at0[g] = _mm512_add_epi64(at0[g], _mm512_mul_epi32(x[g][0], w));
            at1[g] = _mm512_add_epi64(at1[g], _mm512_mul_epi32(ODD(x[g][0]), w));
            at2[g] = _mm512_add_epi64(at2[g], _mm512_mul_epi32(x[g][1], w));
            as0[g] = _mm512_add_epi64(as0[g], _mm512_mul_epi32(ODD(x[g][3]), w));
            as1[g] = _mm512_add_epi64(as1[g], _mm512_mul_epi32(x[g][4], w));
            as2[g] = _mm512_add_epi64(as2[g], _mm512_mul_epi32(ODD(x[g][4]), w));
        }
        EACH {
            const __m512i xr0 = ODD(x[g][1]), xr1 = x[g][2], xr2 = ODD(x[g][2]), xr3 = x[g][3];
            /* the hemisphere of the first input: negate the weight where the exact dot is <= -2^15 */
            const __m512i dot = _mm512_add_epi64(_mm512_add_epi64(_mm512_mul_epi32(fr0[g], xr0), _mm512_mul_epi32(fr1[g], xr1)),
                                                 _mm512_add_epi64(_mm512_mul_epi32(fr2[g], xr2), _mm512_mul_epi32(fr3[g], xr3)));
            const __m512i sw = z_sign(w, _mm512_cmplt_epi64_mask(dot, z_set(-32767)));
            ar0[g] = _mm512_add_epi64(ar0[g], _mm512_mul_epi32(xr0, sw));
            ar1[g] = _mm512_add_epi64(ar1[g], _mm512_mul_epi32(xr1, sw));
            ar2[g] = _mm512_add_epi64(ar2[g], _mm512_mul_epi32(xr2, sw));
            ar3[g] = _mm512_add_epi64(ar3[g], _mm512_mul_epi32(xr3, sw));
        }
    }
#undef BAD
    {
        __mmask8 any = 0;
        EACH any |= _mm512_test_epi64_mask(bad[g], bad[g]);
        if (any != 0) return 0; /* the scalar code decides those dots */
    }

    /* scale_sum: the smallest shift s with max|r| >> s < 2^29, then symmetric rounding */
    const __m512i zero = _mm512_setzero_si512();
    __mmask8 n0[2], n1[2], n2[2], n3[2], zq[2];
    __m512i A[2][4], o[2][4];
    EACH {
        n0[g] = _mm512_cmplt_epi64_mask(ar0[g], zero);
        n1[g] = _mm512_cmplt_epi64_mask(ar1[g], zero);
        n2[g] = _mm512_cmplt_epi64_mask(ar2[g], zero);
        n3[g] = _mm512_cmplt_epi64_mask(ar3[g], zero);
        const __m512i m0 = _mm512_abs_epi64(ar0[g]), m1 = _mm512_abs_epi64(ar1[g]), m2 = _mm512_abs_epi64(ar2[g]),
                      m3 = _mm512_abs_epi64(ar3[g]);
        const __m512i mx = _mm512_or_si512(_mm512_or_si512(m0, m1), _mm512_or_si512(m2, m3));
        /* s = max(0, bits(mx) - 29) with bits(mx) = 64 - clz(mx); mx = 0 gives s = 0 */
        const __m512i sh = _mm512_max_epi64(_mm512_sub_epi64(z_set(64 - 29), _mm512_lzcnt_epi64(mx)), zero);
        const __m512i halfs = _mm512_srli_epi64(_mm512_sllv_epi64(z_set(1), sh), 1);
        /* the scaled sum's magnitudes (|c| <= 2^29: the scalar normalisation's halving never applies) */
        A[g][0] = _mm512_srlv_epi64(_mm512_add_epi64(m0, halfs), sh);
        A[g][1] = _mm512_srlv_epi64(_mm512_add_epi64(m1, halfs), sh);
        A[g][2] = _mm512_srlv_epi64(_mm512_add_epi64(m2, halfs), sh);
        A[g][3] = _mm512_srlv_epi64(_mm512_add_epi64(m3, halfs), sh);
        /* an all-zero scaled sum normalises to the identity */
        zq[g] = _mm512_cmpeq_epi64_mask(_mm512_or_si512(_mm512_or_si512(A[g][0], A[g][1]), _mm512_or_si512(A[g][2], A[g][3])), zero);
    }
    z_normalize_mag_n(G, A, zq, o);
    EACH {
        /* the signs come back (a zero quotient stays zero); the identity in the all-zero lanes */
        const __m512i q0 = _mm512_maskz_mov_epi64((__mmask8)~zq[g], z_sign(o[g][0], n0[g]));
        const __m512i q1 = _mm512_maskz_mov_epi64((__mmask8)~zq[g], z_sign(o[g][1], n1[g]));
        const __m512i q2 = _mm512_maskz_mov_epi64((__mmask8)~zq[g], z_sign(o[g][2], n2[g]));
        const __m512i q3 = _mm512_mask_mov_epi64(z_sign(o[g][3], n3[g]), zq[g], z_set(65536));
        const __m512i t0 = z_round_one(at0[g]), t1 = z_round_one(at1[g]), t2 = z_round_one(at2[g]);
        const __m512i s0 = z_round_one(as0[g]), s1 = z_round_one(as1[g]), s2 = z_round_one(as2[g]);
        const __m512i w[5] = {z_word(t0, t1), z_word(t2, q0), z_word(q1, q2), z_word(q3, s0), z_word(s1, s2)};
        store_words8(w, &out[js[g]]);
    }
    return 1;
}

AVX512_FN int bsync_simd_blend8_avx512_(const bsync_trs* rest, const bsync_trs* const* locals, const int64_t* weight,
                                        uint32_t n, int64_t total, uint32_t j, bsync_trs* out) {
    return blend_groups(1, rest, locals, weight, n, total, &j, out);
}

AVX512_FN int bsync_simd_blend16_avx512_(const bsync_trs* rest, const bsync_trs* const* locals, const int64_t* weight,
                                         uint32_t n, int64_t total, uint32_t j, bsync_trs* out) {
    const uint32_t js[2] = {j, j + 8};
    return blend_groups(2, rest, locals, weight, n, total, js, out);
}
#undef EACH
#undef ODD
#undef REP3
#undef REP4

#else
typedef int bsync_simd_avx512_empty_; /* ISO C wants a declaration in every translation unit */
#endif
