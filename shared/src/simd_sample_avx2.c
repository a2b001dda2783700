/* simd_sample_avx2.c — the planned sampler's kernels (internal/simd_impl.h): its interpolated rotations
 * (bsync_simd_lerp_rotations_avx2_ four at a time, bsync_simd_lerp_rotations_avx512_ eight at a time,
 * with the bits of bsync_keys_nlerp_, internal/rotation_lerp.h) and the copy of its base pose
 * (bsync_simd_copy_avx2_). x86-64 with gcc or clang, compiled for the instruction set with a function
 * attribute and run only when the CPU has it (simd.c decides). Not a public interface.
 *
 * Layout. A bsync_quat is two 64-bit words, x|y and z|w (x86 is little-endian, so a word's low half is
 * its even component). The keys of four jobs are loaded as two 256-bit registers of two quaternions each
 * and unpacked into one register per word, lane l holding job (0, 2, 1, 3)[l]; the weights are placed in
 * the same lane order, and the results go back through the inverse unpack.
 *
 * Arithmetic, per lane (every step the integer expression of bsync_keys_nlerp_):
 *   - small keys: c + 2^30 has its top bit clear for each of the eight components (bsync_quat_small_);
 *   - the hemisphere: the exact dot of the two keys, four signed 32 x 32 -> 64 products
 *     (_mm256_mul_epi32 reads a lane's low half as signed; the odd component is shifted down first),
 *     at most 2^62 in magnitude for small keys; dot < 0 negates the second key in 32-bit lanes (exact for
 *     small keys). A dot of exactly 0 (bsync_quat_lex_negative_ decides there) and keys that are not
 *     small are redone with bsync_keys_nlerp_ after the group; `plain` skips both checks, as the scalar
 *     rule does;
 *   - the lerp of each component: d = b - a in 32-bit lanes (|d| < 2^31 for small keys),
 *     p = d alpha (|p| < 2^47), q = (p + 2^48 + 2^15 - [p < 0]) >> 16 (logical; the argument is
 *     positive), and the result is q - 2^32 + a: its low 32 bits are q's low 32 bits plus a, added in
 *     32-bit lanes (the true result is an int32, so the wrap-around addition gives it). That is
 *     bsync_key_lerp_'s floor(x / 2^16) with x = p + 2^15 - [p < 0] + 2^16 a, since 2^16 a is a multiple
 *     of 2^16.
 * A call of fewer than four jobs takes the scalar rule. */
#include "internal/simd_impl.h"

#if BSYNC_HAVE_AVX2_PATH

#include <immintrin.h>

#include "internal/rotation_lerp.h"

#define AVX2_FN __attribute__((target("avx2")))

/* Two quaternions (16 bytes each, any alignment) as one register: p in the low half, q in the high. */
AVX2_FN static inline __m256i load_two(const bsync_quat* p, const bsync_quat* q) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i*)(const void*)p)),
                                   _mm_loadu_si128((const __m128i*)(const void*)q), 1);
}

/* The lerp of one word (two components per lane) at the lanes' weights. */
AVX2_FN static inline __m256i lerp_word(__m256i a, __m256i b, __m256i alpha) {
    const __m256i bias = _mm256_set1_epi64x(((int64_t)1 << 48) + 0x8000);
    const __m256i d = _mm256_sub_epi32(b, a);
    const __m256i pe = _mm256_mul_epi32(d, alpha);                        /* even component */
    const __m256i po = _mm256_mul_epi32(_mm256_srli_epi64(d, 32), alpha); /* odd component */
    const __m256i qe = _mm256_srli_epi64(_mm256_sub_epi64(_mm256_add_epi64(pe, bias), _mm256_srli_epi64(pe, 63)), 16);
    const __m256i qo = _mm256_srli_epi64(_mm256_sub_epi64(_mm256_add_epi64(po, bias), _mm256_srli_epi64(po, 63)), 16);
    return _mm256_add_epi32(_mm256_blend_epi32(qe, _mm256_slli_epi64(qo, 32), 0xAA), a);
}

/* Four jobs; returns nonzero when one of them must be redone by the scalar rule. */
AVX2_FN static unsigned lerp4(const bsync_rotation_lerp_* j, int plain) {
    const __m256i a01 = load_two(j[0].keys, j[1].keys), a23 = load_two(j[2].keys, j[3].keys);
    const __m256i b01 = load_two(j[0].keys + 1, j[1].keys + 1), b23 = load_two(j[2].keys + 1, j[3].keys + 1);
    const __m256i axy = _mm256_unpacklo_epi64(a01, a23), azw = _mm256_unpackhi_epi64(a01, a23);
    __m256i bxy = _mm256_unpacklo_epi64(b01, b23), bzw = _mm256_unpackhi_epi64(b01, b23);
    const __m256i alpha = _mm256_set_epi64x(j[3].alpha, j[1].alpha, j[2].alpha, j[0].alpha); /* lanes 0, 2, 1, 3 */
    unsigned redo = 0;
    if (!plain) {
        const __m256i off = _mm256_set1_epi32(0x40000000);
        const __m256i top = _mm256_or_si256(_mm256_or_si256(_mm256_add_epi32(axy, off), _mm256_add_epi32(azw, off)),
                                            _mm256_or_si256(_mm256_add_epi32(bxy, off), _mm256_add_epi32(bzw, off)));
        const unsigned big = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(top)); /* two bits per lane */
        const __m256i dot = _mm256_add_epi64(
            _mm256_add_epi64(_mm256_mul_epi32(axy, bxy), _mm256_mul_epi32(_mm256_srli_epi64(axy, 32), _mm256_srli_epi64(bxy, 32))),
            _mm256_add_epi64(_mm256_mul_epi32(azw, bzw), _mm256_mul_epi32(_mm256_srli_epi64(azw, 32), _mm256_srli_epi64(bzw, 32))));
        const __m256i zero = _mm256_setzero_si256();
        const __m256i neg = _mm256_cmpgt_epi64(zero, dot);
        const unsigned flat = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(dot, zero)));
        redo = big | flat;
        bxy = _mm256_sub_epi32(_mm256_xor_si256(bxy, neg), neg);
        bzw = _mm256_sub_epi32(_mm256_xor_si256(bzw, neg), neg);
    }
    const __m256i rxy = lerp_word(axy, bxy, alpha), rzw = lerp_word(azw, bzw, alpha);
    const __m256i r01 = _mm256_unpacklo_epi64(rxy, rzw), r23 = _mm256_unpackhi_epi64(rxy, rzw);
    _mm_storeu_si128((__m128i*)(void*)j[0].out, _mm256_castsi256_si128(r01));
    _mm_storeu_si128((__m128i*)(void*)j[1].out, _mm256_extracti128_si256(r01, 1));
    _mm_storeu_si128((__m128i*)(void*)j[2].out, _mm256_castsi256_si128(r23));
    _mm_storeu_si128((__m128i*)(void*)j[3].out, _mm256_extracti128_si256(r23, 1));
    return redo;
}

/* jobs[0 .. n) (n >= width) in groups of `width` through `group`, which returns nonzero when its group
 * must be redone by the scalar rule (rare); the last one to width - 1 jobs as the group ending at the
 * last job: the ones before them are computed again from the same keys and the same values written
 * again, as no out overlaps a key. */
static void in_groups(const bsync_rotation_lerp_* jobs, uint32_t n, int plain, uint32_t width,
                      unsigned (*group)(const bsync_rotation_lerp_*, int)) {
    for (uint32_t i = 0;; i += width) {
        if (i + width > n) i = n - width;
        if (group(jobs + i, plain)) bsync_simd_lerp_rotations_scalar_(jobs + i, width, plain);
        if (i + width == n) break;
    }
}

AVX2_FN void bsync_simd_lerp_rotations_avx2_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain) {
    if (n < 4) bsync_simd_lerp_rotations_scalar_(jobs, n, plain);
    else in_groups(jobs, n, plain, 4, lerp4);
}

/* ---------------------------------------------------------------- eight at a time (AVX-512 F)
 * The same steps in one 512-bit register per word: the keys of eight jobs as two registers of four
 * quaternions, unpacked so that lane l holds job (0, 4, 1, 5, 2, 6, 3, 7)[l]. */
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
AVX512_FN static unsigned lerp8(const bsync_rotation_lerp_* j, int plain) {
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

/* memcpy of `bytes` (a multiple of 8) with 32-byte moves (the sampler's base pose, sample.c). */
AVX2_FN void bsync_simd_copy_avx2_(void* dst, const void* src, size_t bytes) {
    unsigned char* d = (unsigned char*)dst;
    const unsigned char* s = (const unsigned char*)src;
    size_t i = 0;
    for (; i + 128 <= bytes; i += 128) {
        const __m256i a = _mm256_loadu_si256((const __m256i*)(const void*)(s + i));
        const __m256i b = _mm256_loadu_si256((const __m256i*)(const void*)(s + i + 32));
        const __m256i c = _mm256_loadu_si256((const __m256i*)(const void*)(s + i + 64));
        const __m256i e = _mm256_loadu_si256((const __m256i*)(const void*)(s + i + 96));
        _mm256_storeu_si256((__m256i*)(void*)(d + i), a);
        _mm256_storeu_si256((__m256i*)(void*)(d + i + 32), b);
        _mm256_storeu_si256((__m256i*)(void*)(d + i + 64), c);
        _mm256_storeu_si256((__m256i*)(void*)(d + i + 96), e);
    }
    for (; i + 32 <= bytes; i += 32)
        _mm256_storeu_si256((__m256i*)(void*)(d + i), _mm256_loadu_si256((const __m256i*)(const void*)(s + i)));
    for (; i + 8 <= bytes; i += 8) {
        uint64_t w;
        __builtin_memcpy(&w, s + i, 8);
        __builtin_memcpy(d + i, &w, 8);
    }
}

#else
typedef int bsync_simd_sample_avx2_empty_; /* ISO C wants a declaration in every translation unit */
#endif
