/* simd_sample_avx512.c — the planned sampler's interpolated rotations eight at a time in AVX-512 F lanes
 * (bsync_simd_lerp_rotations_avx512_, internal/simd_impl.h), with the bits of bsync_keys_nlerp_
 * (internal/rotation_lerp.h): simd_sample_avx2.c's steps (its head comment explains the layout and the
 * arithmetic) in one 512-bit register per word. The keys of eight jobs are two registers of four
 * quaternions, unpacked so that lane l holds job (0, 4, 1, 5, 2, 6, 3, 7)[l]. A call of fewer than eight
 * jobs takes the AVX2 kernel. x86-64 with gcc or clang, compiled for the instruction set with a function
 * attribute and run only on the AVX512 path, when the CPU has it (simd.c decides). Not a public
 * interface. */
#include "internal/simd_impl.h"

#if BSYNC_HAVE_AVX2_PATH

#include <immintrin.h>

#include "internal/rotation_lerp.h"
#include "internal/simd_lerp_groups.h"

#define AVX512_FN __attribute__((target("avx2,avx512f")))

AVX512_FN static inline __m512i load_four(const bsync_rotation_lerp_* j, int next) {
#define LQ(i) _mm_loadu_si128((const __m128i*)(const void*)(j[i].keys + next))
    return _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(_mm512_castsi128_si512(LQ(0)), LQ(1), 1), LQ(2), 2), LQ(3), 3);
#undef LQ
}

AVX512_FN static inline __m512i lerp_word8(__m512i a, __m512i b, __m512i alpha) {
    const __m512i bias = _mm512_set1_epi64(((int64_t)1 << 48) + 0x8000);
    const __m512i d = _mm512_sub_epi32(b, a);
    const __m512i pe = _mm512_mul_epi32(d, alpha);
    const __m512i po = _mm512_mul_epi32(_mm512_srli_epi64(d, 32), alpha);
    const __m512i qe = _mm512_srli_epi64(_mm512_sub_epi64(_mm512_add_epi64(pe, bias), _mm512_srli_epi64(pe, 63)), 16);
    const __m512i qo = _mm512_srli_epi64(_mm512_sub_epi64(_mm512_add_epi64(po, bias), _mm512_srli_epi64(po, 63)), 16);
    return _mm512_add_epi32(_mm512_mask_blend_epi32((__mmask16)0xAAAA, qe, _mm512_slli_epi64(qo, 32)), a);
}

/* Eight jobs; returns nonzero when one of them must be redone by the scalar rule. */
AVX512_FN static BSYNC_FORCE_INLINE unsigned lerp8(const bsync_rotation_lerp_* j, int plain) {
    const __m512i a03 = load_four(j, 0), a47 = load_four(j + 4, 0);
    const __m512i b03 = load_four(j, 1), b47 = load_four(j + 4, 1);
    const __m512i axy = _mm512_unpacklo_epi64(a03, a47), azw = _mm512_unpackhi_epi64(a03, a47);
    __m512i bxy = _mm512_unpacklo_epi64(b03, b47), bzw = _mm512_unpackhi_epi64(b03, b47);
    const __m512i alpha = _mm512_set_epi64(j[7].alpha, j[3].alpha, j[6].alpha, j[2].alpha, j[5].alpha, j[1].alpha,
                                           j[4].alpha, j[0].alpha); /* lanes 0, 4, 1, 5, 2, 6, 3, 7 */
    unsigned redo = 0;
    if (!plain) {
        const __m512i off = _mm512_set1_epi32(0x40000000);
        const __m512i top = _mm512_or_si512(_mm512_or_si512(_mm512_add_epi32(axy, off), _mm512_add_epi32(azw, off)),
                                            _mm512_or_si512(_mm512_add_epi32(bxy, off), _mm512_add_epi32(bzw, off)));
        const __m512i dot = _mm512_add_epi64(
            _mm512_add_epi64(_mm512_mul_epi32(axy, bxy), _mm512_mul_epi32(_mm512_srli_epi64(axy, 32), _mm512_srli_epi64(bxy, 32))),
            _mm512_add_epi64(_mm512_mul_epi32(azw, bzw), _mm512_mul_epi32(_mm512_srli_epi64(azw, 32), _mm512_srli_epi64(bzw, 32))));
        redo = (unsigned)_mm512_cmplt_epi32_mask(top, _mm512_setzero_si512()) |
               (unsigned)_mm512_cmpeq_epi64_mask(dot, _mm512_setzero_si512());
        const __m512i neg = _mm512_srai_epi64(dot, 63); /* all ones where dot < 0 */
        bxy = _mm512_sub_epi32(_mm512_xor_si512(bxy, neg), neg);
        bzw = _mm512_sub_epi32(_mm512_xor_si512(bzw, neg), neg);
    }
    const __m512i rxy = lerp_word8(axy, bxy, alpha), rzw = lerp_word8(azw, bzw, alpha);
    const __m512i r03 = _mm512_unpacklo_epi64(rxy, rzw), r47 = _mm512_unpackhi_epi64(rxy, rzw);
    _mm_storeu_si128((__m128i*)(void*)j[0].out, _mm512_castsi512_si128(r03));
    _mm_storeu_si128((__m128i*)(void*)j[1].out, _mm512_extracti32x4_epi32(r03, 1));
    _mm_storeu_si128((__m128i*)(void*)j[2].out, _mm512_extracti32x4_epi32(r03, 2));
    _mm_storeu_si128((__m128i*)(void*)j[3].out, _mm512_extracti32x4_epi32(r03, 3));
    _mm_storeu_si128((__m128i*)(void*)j[4].out, _mm512_castsi512_si128(r47));
    _mm_storeu_si128((__m128i*)(void*)j[5].out, _mm512_extracti32x4_epi32(r47, 1));
    _mm_storeu_si128((__m128i*)(void*)j[6].out, _mm512_extracti32x4_epi32(r47, 2));
    _mm_storeu_si128((__m128i*)(void*)j[7].out, _mm512_extracti32x4_epi32(r47, 3));
    return redo;
}

AVX512_FN void bsync_simd_lerp_rotations_avx512_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain) {
    if (n < 8) bsync_simd_lerp_rotations_avx2_(jobs, n, plain);
    else in_groups(jobs, n, plain, 8, lerp8);
}

#else
typedef int bsync_simd_sample_avx512_empty_; /* ISO C wants a declaration in every translation unit */
#endif
