/* simd_sample_avx2.c — the planned sampler's AVX2 kernels (internal/simd_impl.h): its interpolated
 * rotations four at a time (bsync_simd_lerp_rotations_avx2_, with the bits of bsync_keys_nlerp_,
 * internal/rotation_lerp.h) and the copy of its base pose (bsync_simd_copy_avx2_). The same
 * interpolation eight at a time in AVX-512 lanes is simd_sample_avx512.c's. x86-64 with gcc or clang,
 * compiled for AVX2 with a function attribute and run only when the CPU has it (simd.c decides). Not a
 * public interface.
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
#include "internal/simd_lerp_groups.h"

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
AVX2_FN static BSYNC_FORCE_INLINE unsigned lerp4(const bsync_rotation_lerp_* j, int plain) {
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

AVX2_FN void bsync_simd_lerp_rotations_avx2_(const bsync_rotation_lerp_* jobs, uint32_t n, int plain) {
    if (n < 4) bsync_simd_lerp_rotations_scalar_(jobs, n, plain);
    else in_groups(jobs, n, plain, 4, lerp4);
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
