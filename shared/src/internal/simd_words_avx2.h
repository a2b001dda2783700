/* internal/simd_words_avx2.h — four consecutive transforms as five AVX2 registers of 64-bit words and
 * back, for the eight-joint blends of simd_avx2.c (bsync_simd_blend8_avx2_) and simd_avx512.c (whose
 * load_words8 / store_words8 do the same steps in both halves of a 512-bit register). Include only
 * inside `#if BSYNC_HAVE_AVX2_PATH` (x86-64 with gcc or clang); compiled for AVX2 with a function
 * attribute. Not a public header.
 *
 * A bsync_trs is ten int32, five words (t.x|t.y, t.z|r.x, r.y|r.z, r.w|s.x, s.y|s.z; x86 is
 * little-endian, so a word's low half is its even component). Four consecutive transforms are 160
 * bytes, five registers R0 .. R4 of four words; word k of transform i is word 5i + k, at position
 * (i + k) % 4 of register (5i + k) / 4: per word three blends pick the four (one per position) and one
 * lane rotation by k puts them in place (load_words4: w[k] lane i is word k of transform i);
 * store_words4 undoes it. */
#ifndef BLENDSYNC_INTERNAL_SIMD_WORDS_AVX2_H
#define BLENDSYNC_INTERNAL_SIMD_WORDS_AVX2_H

#include <immintrin.h>

#include "blendsync/fixed.h"
#include "force_inline.h"

/* V[0] = a[0], V[1] = b[1], V[2] = c[2], V[3] = d[3] (64-bit lanes) */
__attribute__((target("avx2"))) static BSYNC_FORCE_INLINE __m256i pick4(__m256i a, __m256i b, __m256i c, __m256i d) {
    return _mm256_blend_epi32(_mm256_blend_epi32(a, b, 0x0C), _mm256_blend_epi32(c, d, 0xC0), 0xF0);
}
__attribute__((target("avx2"))) static BSYNC_FORCE_INLINE void load_words4(const bsync_trs* p, __m256i w[5]) {
    const __m256i* b = (const __m256i*)(const void*)p;
    const __m256i r0 = _mm256_loadu_si256(b), r1 = _mm256_loadu_si256(b + 1), r2 = _mm256_loadu_si256(b + 2);
    const __m256i r3 = _mm256_loadu_si256(b + 3), r4 = _mm256_loadu_si256(b + 4);
    w[0] = pick4(r0, r1, r2, r3);
    w[1] = _mm256_permute4x64_epi64(pick4(r4, r0, r1, r2), _MM_SHUFFLE(0, 3, 2, 1));
    w[2] = _mm256_permute4x64_epi64(pick4(r3, r4, r0, r1), _MM_SHUFFLE(1, 0, 3, 2));
    w[3] = _mm256_permute4x64_epi64(pick4(r2, r3, r4, r0), _MM_SHUFFLE(2, 1, 0, 3));
    w[4] = pick4(r1, r2, r3, r4);
}
__attribute__((target("avx2"))) static BSYNC_FORCE_INLINE void store_words4(const __m256i w[5], bsync_trs* p) {
    __m256i* b = (__m256i*)(void*)p;
    const __m256i u0 = w[0], u4 = w[4];
    const __m256i u1 = _mm256_permute4x64_epi64(w[1], _MM_SHUFFLE(2, 1, 0, 3));
    const __m256i u2 = _mm256_permute4x64_epi64(w[2], _MM_SHUFFLE(1, 0, 3, 2));
    const __m256i u3 = _mm256_permute4x64_epi64(w[3], _MM_SHUFFLE(0, 3, 2, 1));
    _mm256_storeu_si256(b, pick4(u0, u1, u2, u3));
    _mm256_storeu_si256(b + 1, pick4(u4, u0, u1, u2));
    _mm256_storeu_si256(b + 2, pick4(u3, u4, u0, u1));
    _mm256_storeu_si256(b + 3, pick4(u2, u3, u4, u0));
    _mm256_storeu_si256(b + 4, pick4(u1, u2, u3, u4));
}

#endif
