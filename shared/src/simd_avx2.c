/* simd_avx2.c — the quaternion normalisation of internal/quat_normalize.h in four AVX2 lanes, with the
 * same bits (x86-64 with gcc or clang; compiled for AVX2 with a function attribute, run only when the
 * CPU has it: simd.c decides). Not a public interface (internal/simd_impl.h).
 *
 * Four rotations are loaded and transposed to structure-of-arrays (one vector per component), and
 * every step of bsync_quat_normalize_inl_ + bsync_root_recip_ + bsync_div_round_shared_ is the same
 * integer expression in each 64-bit lane:
 *   - every product there is at most 32 x 32 bits unsigned (_mm256_mul_epu32 is exact) except two,
 *     rem * zk (rem < 2^47) and inv0 (2^48 - inv0 t) (the second factor < 2^36), which are formed as
 *     lo32 * b + ((hi32 * b) << 32), exact as the true product is below 2^63 (quat_normalize.h's
 *     overflow notes);
 *   - clz is a branchless binary search (six compare-and-shift steps), which also yields s << clz(s);
 *   - the per-lane shifts are _mm256_sllv/srlv_epi64, the tables are read with 64-bit gathers of two
 *     neighbouring entries (table[m - 256] and table[m - 255] at once);
 *   - the unsigned comparisons compare values below 2^63, so the signed _mm256_cmpgt_epi64 is exact;
 *   - the sign comes back with _mm_sign_epi32 (a zero component has a zero quotient).
 * The scalar code's unit-within-rounding shortcut is not taken: its proof shows the full computation
 * returns the same q. Lanes the shortcut does not cover — an all-zero rotation or a component of
 * magnitude 2^30 or more (the halving branch) — are redone with the scalar function after the group
 * (their lanes' vector values are computed from a safe stand-in and discarded). A group shorter than
 * four repeats its last rotation (all loads happen before any store). */
#include "internal/simd_impl.h"

#if BSYNC_HAVE_AVX2_PATH

#include <immintrin.h>

#include "internal/quat_normalize.h"

#define AVX2_FN __attribute__((target("avx2")))

AVX2_FN static inline __m256i mul_u64_u32(__m256i a, __m256i b32) {
    /* a * b for a < 2^64, b < 2^32, modulo 2^64 (exact when the product is below 2^64) */
    const __m256i lo = _mm256_mul_epu32(a, b32);
    const __m256i hi = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b32);
    return _mm256_add_epi64(lo, _mm256_slli_epi64(hi, 32));
}

/* round(b 2^16 / l) by bsync_div_round_shared_: e = (b inv + 2^31) >> 32, + [(2e + 1) l <= b << 17]. */
AVX2_FN static inline __m256i div_round_shared4(__m256i b, __m256i l, __m256i inv) {
    const __m256i one = _mm256_set1_epi64x(1);
    const __m256i e = _mm256_srli_epi64(_mm256_add_epi64(_mm256_mul_epu32(b, inv), _mm256_set1_epi64x((int64_t)1 << 31)), 32);
    const __m256i lhs = _mm256_mul_epu32(_mm256_add_epi64(_mm256_add_epi64(e, e), one), l);
    const __m256i gt = _mm256_cmpgt_epi64(lhs, _mm256_slli_epi64(b, 17)); /* -1 where the correction is 0 */
    return _mm256_add_epi64(_mm256_add_epi64(e, one), gt);
}

AVX2_FN static void normalize4(bsync_quat* q0, bsync_quat* q1, bsync_quat* q2, bsync_quat* q3) {
    const __m128i v0 = _mm_loadu_si128((const __m128i*)(const void*)q0);
    const __m128i v1 = _mm_loadu_si128((const __m128i*)(const void*)q1);
    const __m128i v2 = _mm_loadu_si128((const __m128i*)(const void*)q2);
    const __m128i v3 = _mm_loadu_si128((const __m128i*)(const void*)q3);
    const __m128i t0 = _mm_unpacklo_epi32(v0, v1), t1 = _mm_unpacklo_epi32(v2, v3);
    const __m128i t2 = _mm_unpackhi_epi32(v0, v1), t3 = _mm_unpackhi_epi32(v2, v3);
    const __m128i cx = _mm_unpacklo_epi64(t0, t1), cy = _mm_unpackhi_epi64(t0, t1);
    const __m128i cz = _mm_unpacklo_epi64(t2, t3), cw = _mm_unpackhi_epi64(t2, t3);
    /* |c| as unsigned 32-bit (INT32_MIN gives 2^31, its magnitude) */
    const __m128i ax = _mm_abs_epi32(cx), ay = _mm_abs_epi32(cy), az = _mm_abs_epi32(cz), aw = _mm_abs_epi32(cw);
    const __m128i zero128 = _mm_setzero_si128();
    const __m128i mx = _mm_or_si128(_mm_or_si128(ax, ay), _mm_or_si128(az, aw));
    const __m128i special = _mm_or_si128(_mm_cmpeq_epi32(mx, zero128), _mm_cmpgt_epi32(_mm_srli_epi32(mx, 30), zero128));
    const int special_mask = _mm_movemask_ps(_mm_castsi128_ps(special));
    bsync_quat orig[4];
    if (special_mask != 0) {
        _mm_storeu_si128((__m128i*)(void*)&orig[0], v0);
        _mm_storeu_si128((__m128i*)(void*)&orig[1], v1);
        _mm_storeu_si128((__m128i*)(void*)&orig[2], v2);
        _mm_storeu_si128((__m128i*)(void*)&orig[3], v3);
    }

    const __m256i zero = _mm256_setzero_si256();
    const __m256i A0 = _mm256_cvtepu32_epi64(ax), A1 = _mm256_cvtepu32_epi64(ay);
    const __m256i A2 = _mm256_cvtepu32_epi64(az), A3 = _mm256_cvtepu32_epi64(aw);
    __m256i s = _mm256_add_epi64(_mm256_add_epi64(_mm256_mul_epu32(A0, A0), _mm256_mul_epu32(A1, A1)),
                                 _mm256_add_epi64(_mm256_mul_epu32(A2, A2), _mm256_mul_epu32(A3, A3)));
    /* special lanes: a harmless stand-in (2^32) keeps every table index in range */
    s = _mm256_blendv_epi8(s, _mm256_set1_epi64x((int64_t)1 << 32), _mm256_cvtepi32_epi64(special));

    /* lz = clz(s) (1 <= s < 2^62) and top = s << lz */
    __m256i top = s, lz = zero;
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
    /* e = min((lz - 2) / 2, 28): the smallest e with s 4^e >= 2^60, capped (quat_normalize.h) */
    const __m256i e = _mm256_min_epu32(_mm256_srli_epi64(_mm256_sub_epi64(lz, _mm256_set1_epi64x(2)), 1), _mm256_set1_epi64x(28));
    const __m256i p = _mm256_and_si256(lz, _mm256_set1_epi64x(1));
    const __m256i e2 = _mm256_add_epi64(e, e);
    const __m256i half = _mm256_srli_epi64(_mm256_sub_epi64(_mm256_add_epi64(_mm256_add_epi64(_mm256_set1_epi64x(54), p), e2), lz), 1);
    const __m256i n = _mm256_sllv_epi64(s, e2);
    const __m256i m = _mm256_srlv_epi64(top, _mm256_add_epi64(p, _mm256_set1_epi64x(54)));
    const __m256i f = _mm256_and_si256(_mm256_srlv_epi64(top, _mm256_add_epi64(p, _mm256_set1_epi64x(34))), _mm256_set1_epi64x(0xFFFFF));
    const __m256i idx = _mm256_sub_epi64(m, _mm256_set1_epi64x(256));
    /* table[idx] in the low half, table[idx + 1] in the high half (little-endian 8-byte reads) */
    const __m256i sp = _mm256_i64gather_epi64((const long long*)(const void*)bsync_isqrt_seed_, idx, 4);
    const __m256i pp = _mm256_i64gather_epi64((const long long*)(const void*)bsync_rsqrt_seed_, idx, 4);
    const __m256i lo32 = _mm256_set1_epi64x(0xFFFFFFFF);
    const __m256i s0 = _mm256_and_si256(sp, lo32), s1 = _mm256_srli_epi64(sp, 32);
    const __m256i p0 = _mm256_and_si256(pp, lo32), p1 = _mm256_srli_epi64(pp, 32);
    const __m256i y = _mm256_add_epi64(s0, _mm256_srli_epi64(_mm256_mul_epu32(_mm256_sub_epi64(s1, s0), f), 20));
    const __m256i z = _mm256_sub_epi64(p0, _mm256_srli_epi64(_mm256_mul_epu32(_mm256_sub_epi64(p0, p1), f), 20));
    const __m256i zk = _mm256_srlv_epi64(z, _mm256_sub_epi64(half, _mm256_set1_epi64x(24)));
    const __m256i x0 = _mm256_sllv_epi64(_mm256_add_epi64(y, _mm256_set1_epi64x(2)), _mm256_sub_epi64(half, _mm256_set1_epi64x(16)));
    const __m256i rem = _mm256_sub_epi64(_mm256_mul_epu32(x0, x0), n);
    const __m256i t = _mm256_sub_epi64(x0, _mm256_srli_epi64(mul_u64_u32(rem, zk), 49));
    const __m256i inv0 = _mm256_sub_epi64(zk, _mm256_set1_epi64x(3));
    const __m256i d = _mm256_sub_epi64(_mm256_set1_epi64x((int64_t)1 << 48), _mm256_mul_epu32(inv0, t));
    const __m256i inv = _mm256_add_epi64(inv0, _mm256_srli_epi64(mul_u64_u32(d, inv0), 48));
    /* l = t - [n + t <= t^2] = t - 1 - (n + t > t^2 ? -1 : 0) */
    const __m256i l = _mm256_sub_epi64(_mm256_sub_epi64(t, _mm256_set1_epi64x(1)),
                                       _mm256_cmpgt_epi64(_mm256_add_epi64(n, t), _mm256_mul_epu32(t, t)));

    const __m256i pack = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
#define COMPONENT(A, c) \
    _mm_sign_epi32(_mm256_castsi256_si128(_mm256_permutevar8x32_epi32(div_round_shared4(_mm256_sllv_epi64((A), e), l, inv), pack)), (c))
    const __m128i ox = COMPONENT(A0, cx), oy = COMPONENT(A1, cy), oz = COMPONENT(A2, cz), ow = COMPONENT(A3, cw);
#undef COMPONENT
    /* back to one rotation per vector */
    const __m128i u0 = _mm_unpacklo_epi32(ox, oy), u1 = _mm_unpacklo_epi32(oz, ow);
    const __m128i u2 = _mm_unpackhi_epi32(ox, oy), u3 = _mm_unpackhi_epi32(oz, ow);
    _mm_storeu_si128((__m128i*)(void*)q0, _mm_unpacklo_epi64(u0, u1));
    _mm_storeu_si128((__m128i*)(void*)q1, _mm_unpackhi_epi64(u0, u1));
    _mm_storeu_si128((__m128i*)(void*)q2, _mm_unpacklo_epi64(u2, u3));
    _mm_storeu_si128((__m128i*)(void*)q3, _mm_unpackhi_epi64(u2, u3));
    if (special_mask != 0) {
        bsync_quat* out[4] = {q0, q1, q2, q3};
        for (int i = 0; i < 4; i++)
            if (special_mask & (1 << i)) *out[i] = bsync_quat_normalize_inl_(orig[i], NULL);
    }
}

AVX2_FN void bsync_simd_normalize_avx2_(bsync_trs* pose, const uint16_t* joints, uint32_t n) {
    uint32_t i = 0;
    for (; i + 4 <= n; i += 4)
        normalize4(&pose[joints[i]].r, &pose[joints[i + 1]].r, &pose[joints[i + 2]].r, &pose[joints[i + 3]].r);
    if (i < n) { /* 1 to 3 left: repeat the last one (same input, same output, loaded before stored) */
        bsync_quat* last = &pose[joints[n - 1]].r;
        normalize4(&pose[joints[i]].r, i + 1 < n ? &pose[joints[i + 1]].r : last, i + 2 < n ? &pose[joints[i + 2]].r : last,
                   last);
    }
}

#else
typedef int bsync_simd_avx2_empty_; /* ISO C wants a declaration in every translation unit */
#endif
