/* test_pose_fastpaths.c — the faster ways the posed tick computes its values, each against the
 * straightforward implementation it replaced (kept here as the reference) or an independent
 * computation, bit for bit:
 *   - bsync_u64_isqrt_fast (two Newton steps and a multiply check) against the three-step original
 *     and bsync_u64_isqrt, at every bit length and around squares;
 *   - bsync_root_recip_ (the division-free rounded root and reciprocal of the normalisation) against
 *     bsync_u64_isqrt and the divisions, at every table entry, bit length and rounding edge;
 *   - bsync_div_round_shared_ (one reciprocal for four quotients, exact or one less) against / and %;
 *   - bsync_quat_normalize_ex and the inline copy against the original algorithm (arrays, three-step
 *     root, four divisions) and against the definition written out (bsync_u64_isqrt, then / and %),
 *     over random and edge-case quaternions of every magnitude, every bit length of the sum of
 *     squares, tiny ones, nlerp outputs of random unit pairs and blend sums;
 *   - bsync_pose_blend's den == 65536 path against an integer reference of the weighted mean;
 *   - bsync_clip_sample (interpolation weight reused across tracks with the same key interval)
 *     against a reference sampler written from the public track data;
 *   - instance poses of layered graphs whose layer repeats the base (the base pose reused, samples
 *     reused) against poses composed here from instances without layers. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/clip.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/pose.h"
#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "test_support.h"
#include "fixtures.h"

#include "internal/quat_normalize.h"

/* The sanitizer build runs the same program several times slower: fewer random cases there. */
#if defined(__SANITIZE_ADDRESS__)
#define FP_SCALE 4
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FP_SCALE 4
#endif
#endif
#ifndef FP_SCALE
#define FP_SCALE 1
#endif

/* ---------------------------------------------------------------- references (the replaced code) */

static const uint32_t* ref_seed(void) { return bsync_isqrt_seed_; } /* the same table */

/* The original bsync_u64_isqrt_fast: Newton from the table seed until it stops decreasing. */
static uint64_t ref_isqrt_fast(uint64_t n) {
    unsigned bits = n ? 64u - bsync_u64_clz(n) : 0u;
    if (bits <= 10u) return bsync_u64_isqrt(n);
    unsigned shift = bits - 10u;
    shift += shift & 1u;
    uint64_t m = n >> shift;
    unsigned half = shift / 2u;
    uint64_t seed = ref_seed()[m - 255u]; /* ceil(sqrt(m + 1) 2^16) */
    uint64_t x = half >= 16u ? seed << (half - 16u) : (seed + ((uint64_t)1 << (16u - half)) - 1u) >> (16u - half);
    for (;;) {
        uint64_t y = (x + n / x) >> 1;
        if (y >= x) return x;
        x = y;
    }
}

/* The original div_round_i64. */
static fix16_t ref_div_round_i64(int64_t num, uint64_t den) {
    uint64_t m = bsync_u64_abs(num);
    uint64_t q = (2 * m + den) / (2 * den);
    return bsync_fx_signed_sat(q, num < 0);
}

/* The original bsync_quat_normalize_ex. */
static bsync_quat ref_normalize_ex(bsync_quat q, int* out_was_zero) {
    int64_t c[4] = {q.x, q.y, q.z, q.w};
    uint64_t mx = 0, s = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t a = bsync_u64_abs(c[i]);
        if (a > mx) mx = a;
    }
    if (out_was_zero) *out_was_zero = (mx == 0);
    if (mx == 0) return bsync_quat_identity();
    if (mx >= ((uint64_t)1 << 30))
        for (int i = 0; i < 4; i++) c[i] = bsync_i64_asr(c[i], 1);
    for (int i = 0; i < 4; i++) {
        uint64_t a = bsync_u64_abs(c[i]);
        s += a * a;
    }
    if (s == 0) return bsync_quat_identity();
    unsigned sbits = 64u - bsync_u64_clz(s);
    unsigned e = sbits >= 61u ? 0u : (61u - sbits + 1u) / 2u;
    if (e > 28u) e = 28u;
    uint64_t l = ref_isqrt_fast(s << (2 * e));
    uint64_t n = s << (2 * e);
    if (n - l * l > l) l++;
    fix16_t r[4];
    for (int i = 0; i < 4; i++) {
        int64_t num = c[i] * ((int64_t)1 << (16 + e));
        r[i] = ref_div_round_i64(num, l);
    }
    return bsync_quat_make(r[0], r[1], r[2], r[3]);
}

/* The definition written out: the same halving and scale 4^e, l the integer nearest sqrt(n) from
 * bsync_u64_isqrt, each component round(|c| 2^(16+e) / l) from / and %, ties away from zero. */
static bsync_quat ref_normalize_def(bsync_quat q) {
    int64_t c[4] = {q.x, q.y, q.z, q.w};
    int any = 0, big = 0;
    for (int i = 0; i < 4; i++) {
        any |= c[i] != 0;
        big |= c[i] >= ((int64_t)1 << 30) || c[i] <= -((int64_t)1 << 30);
    }
    if (!any) return bsync_quat_identity();
    if (big)
        for (int i = 0; i < 4; i++) c[i] = bsync_i64_asr(c[i], 1);
    uint64_t s = 0;
    for (int i = 0; i < 4; i++) s += (uint64_t)(c[i] * c[i]);
    if (s == 0) return bsync_quat_identity();
    unsigned e = 0;
    while (e < 28u && (s << (2u * e)) < ((uint64_t)1 << 60)) e++;
    const uint64_t n = s << (2u * e);
    uint64_t l = bsync_u64_isqrt(n);
    if (n - l * l > l) l++; /* sqrt(n) > l + 1/2 */
    fix16_t r[4];
    for (int i = 0; i < 4; i++) {
        const uint64_t num = bsync_u64_abs(c[i]) << (16u + e);
        const uint64_t mag = num / l + (2u * (num % l) >= l);
        r[i] = bsync_fx_signed_sat(mag, c[i] < 0);
    }
    return bsync_quat_make(r[0], r[1], r[2], r[3]);
}

static int quat_eq(bsync_quat a, bsync_quat b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }
static int trs_eq(const bsync_trs* a, const bsync_trs* b) {
    return a->t.x == b->t.x && a->t.y == b->t.y && a->t.z == b->t.z && quat_eq(a->r, b->r) && a->s.x == b->s.x &&
           a->s.y == b->s.y && a->s.z == b->s.z;
}

/* ---------------------------------------------------------------- integer square roots */

static void check_isqrt(uint64_t n) {
    const uint64_t r = bsync_u64_isqrt_fast(n);
    if (r != ref_isqrt_fast(n) || r != bsync_u64_isqrt(n)) fail_msg("isqrt_fast(%llu) = %llu", (unsigned long long)n, (unsigned long long)r);
}

static void test_isqrt(void** state) {
    (void)state;
    uint64_t rng = 1;
    for (uint64_t n = 0; n < 70000; n++) check_isqrt(n); /* every small n, through the table's start */
    for (unsigned bits = 1; bits <= 64; bits++) {
        const uint64_t lo = (uint64_t)1 << (bits - 1), span = lo; /* [2^(bits-1), 2^bits) */
        check_isqrt(lo);
        check_isqrt(lo + (span - 1));
        check_isqrt(lo + 1);
        for (int i = 0; i < 20000; i++) check_isqrt(lo + (bsync_test_rand(&rng) & (span - 1)));
    }
    /* around squares (where floor(sqrt) steps), for roots of every size up to 2^32 - 1 */
    for (int i = 0; i < 300000; i++) {
        const unsigned rb = 1u + (unsigned)(bsync_test_rand(&rng) % 32u);
        uint64_t k = bsync_test_rand(&rng) >> (64u - rb);
        if (k == 0) k = 1;
        const uint64_t sq = k * k; /* k < 2^32 */
        check_isqrt(sq - 1);
        check_isqrt(sq);
        check_isqrt(sq + 1);
        check_isqrt(sq + k);      /* floor(sqrt) = k up to (k+1)^2 - 1 = sq + 2k */
        check_isqrt(sq + 2 * k);
        if (sq + 2 * k + 1 > sq) check_isqrt(sq + 2 * k + 1);
    }
    /* the top: (2^32 - 1)^2 and everything above it has root 2^32 - 1 */
    const uint64_t top = (uint64_t)0xFFFFFFFFu * 0xFFFFFFFFu;
    for (uint64_t d = 0; d < 4096; d++) {
        check_isqrt(top - d);
        check_isqrt(UINT64_MAX - d);
        check_isqrt(top + d);
    }
    assert_int_equal(bsync_u64_isqrt_fast(UINT64_MAX), 0xFFFFFFFFu);
}

/* ---------------------------------------------------------------- division-free root and reciprocal */

/* n as itself (e = 0) and as s 4^e for every split its trailing zeros allow */
static void check_root_recip(uint64_t n) {
    uint64_t inv = 0;
    const uint64_t l = bsync_root_recip_(n, 0, &inv);
    for (unsigned e = 1; e <= 28u && (n & (((uint64_t)1 << (2u * e)) - 1u)) == 0; e++) {
        uint64_t inv_e = 0;
        if (bsync_root_recip_(n >> (2u * e), e, &inv_e) != l || inv_e != inv)
            fail_msg("root_recip(%llu as s 4^%u) differs", (unsigned long long)n, e);
    }
    const uint64_t r = bsync_u64_isqrt(n);
    const uint64_t want = r + (n - r * r > r); /* n > r^2 + r iff sqrt(n) > r + 1/2 */
    const uint64_t winv = ((uint64_t)1 << 48) / want; /* the reciprocal may be this or one less */
    if (l != want || inv > winv || inv + 1u < winv)
        fail_msg("root_recip(%llu) = %llu, %llu; want %llu, %llu or one less", (unsigned long long)n,
                 (unsigned long long)l, (unsigned long long)inv, (unsigned long long)want, (unsigned long long)winv);
}

static void test_root_recip(void** state) {
    (void)state;
    uint64_t rng = 11;
    const uint64_t lo = (uint64_t)1 << 56, hi = (uint64_t)1 << 62;
    /* every table entry m at every even shift (bit lengths 57 .. 62), at both ends of the interpolation
     * interval and inside it, with the bits below the interpolation all clear, all set and random */
    for (unsigned shift = 48; shift <= 52; shift += 2)
        for (uint64_t m = 256; m < 1024; m++)
            for (int k = 0; k < 6; k++) {
                const uint64_t f = k == 0 ? 0u : k == 1 ? 0xFFFFFu : bsync_test_rand(&rng) & 0xFFFFFu;
                const uint64_t base = (m << shift) | (f << (shift - 20u)), low = ((uint64_t)1 << (shift - 20u)) - 1u;
                if (base < lo || base >= hi) continue;
                check_root_recip(base);
                check_root_recip(base | low);
                check_root_recip(base | (bsync_test_rand(&rng) & low));
            }
    check_root_recip(lo);
    check_root_recip(lo + 1);
    check_root_recip(hi);
    check_root_recip(hi - 1);
    assert_int_equal(bsync_root_recip_(hi, 0, &(uint64_t){0}), (uint64_t)1 << 31);
    assert_int_equal(bsync_root_recip_(1, 28, &(uint64_t){0}), (uint64_t)1 << 28);
    /* random n of every bit length, and n = s 4^e as the normalisation forms it (low bits clear) */
    for (int i = 0; i < 1000000 / FP_SCALE; i++) {
        const unsigned bits = 57u + (unsigned)(bsync_test_rand(&rng) % 6u);
        uint64_t n = ((uint64_t)1 << (bits - 1u)) | (bsync_test_rand(&rng) >> (65u - bits));
        check_root_recip(n);
        const unsigned e = (unsigned)(bsync_test_rand(&rng) % 29u);
        n &= ~(((uint64_t)1 << (2u * e)) - 1u);
        check_root_recip(n < lo ? lo : n);
    }
    /* the rounding edges: l steps from k to k + 1 between k^2 + k and k^2 + k + 1; squares; for roots
     * k of every size in [2^28, 2^31) and at both ends */
    for (int i = 0; i < 400000 / FP_SCALE + 2; i++) {
        uint64_t k = i == 0 ? (uint64_t)1 << 28 : i == 1 ? ((uint64_t)1 << 31) - 1u
                                                         : ((uint64_t)1 << 28) + bsync_test_rand(&rng) % (7u << 28);
        const uint64_t sq = k * k;
        if (sq > lo) check_root_recip(sq - 1);
        check_root_recip(sq);
        check_root_recip(sq + 1);
        check_root_recip(sq + k);
        check_root_recip(sq + k + 1);
        check_root_recip(sq + 2 * k);
    }
}

/* ---------------------------------------------------------------- shared reciprocal */

/* with both reciprocals bsync_root_recip_ may hand over: floor(2^48 / l) and one less */
static void check_div_shared(uint64_t b, uint64_t l) {
    const uint64_t inv = ((uint64_t)1 << 48) / l;
    const uint64_t num = b << 16;
    const uint64_t want = num / l + (2u * (num % l) >= l); /* round half up */
    for (uint64_t d = 0; d < 2; d++) {
        const uint64_t got = bsync_div_round_shared_(b, l, inv - d);
        if (got != want || want != (2u * num + l) / (2u * l))
            fail_msg("round(%llu 2^16 / %llu) = %llu (inv - %llu), want %llu", (unsigned long long)b,
                     (unsigned long long)l, (unsigned long long)got, (unsigned long long)d, (unsigned long long)want);
    }
}

static void test_div_round_shared(void** state) {
    (void)state;
    uint64_t rng = 2;
    const uint64_t lmin = (uint64_t)1 << 28, lmax = (uint64_t)1 << 31, bmax = (uint64_t)1 << 31;
    const uint64_t ls[6] = {lmin, lmin + 1, lmax - 1, lmax, 3u << 29, 0x5A5A5A5Au};
    for (int a = 0; a < 6; a++) {
        const uint64_t l = ls[a];
        for (uint64_t b = 0; b < 4096; b++) check_div_shared(b, l);
        for (uint64_t d = 0; d < 4096; d++) check_div_shared(bmax - d, l);
    }
    for (int i = 0; i < 2000000 / FP_SCALE; i++) {
        const uint64_t l = lmin + bsync_test_rand(&rng) % (lmax - lmin + 1);
        const uint64_t b = bsync_test_rand(&rng) % (bmax + 1);
        check_div_shared(b, l);
        /* b 2^16 next to a multiple of l: the quotient's integer steps */
        const uint64_t q = (b << 16) / l, bq = (q * l) >> 16;
        check_div_shared(bq, l);
        if (bq + 1 <= bmax) check_div_shared(bq + 1, l);
        if (bq > 0) check_div_shared(bq - 1, l);
        /* exact ties: l = k 2^17 makes b 2^16 = q l + l / 2 for b = 2 q k + k; and their neighbours */
        const uint64_t k = ((uint64_t)1 << 11) + bsync_test_rand(&rng) % (((uint64_t)1 << 14) - ((uint64_t)1 << 11) + 1);
        const uint64_t lt = k << 17, qt = bsync_test_rand(&rng) % (bmax / (2 * k));
        const uint64_t bt = 2 * qt * k + k;
        if (bt <= bmax) {
            check_div_shared(bt, lt);
            check_div_shared(bt - 1, lt);
            if (bt < bmax) check_div_shared(bt + 1, lt);
            if (bsync_div_round_shared_(bt, lt, ((uint64_t)1 << 48) / lt) != qt + 1) fail_msg("tie not rounded up");
            if (bsync_div_round_shared_(bt - 1, lt, ((uint64_t)1 << 48) / lt - 1) != qt) fail_msg("below a tie");
        }
    }
}

/* ---------------------------------------------------------------- normalisation */

static void check_norm(fix16_t x, fix16_t y, fix16_t z, fix16_t w) {
    const bsync_quat q = bsync_quat_make(x, y, z, w);
    int za = -1, zb = -1;
    const bsync_quat a = bsync_quat_normalize_ex(q, &za);
    const bsync_quat b = ref_normalize_ex(q, &zb);
    if (!quat_eq(a, b) || za != zb)
        fail_msg("normalize(%d, %d, %d, %d) = (%d, %d, %d, %d), want (%d, %d, %d, %d)", x, y, z, w, a.x, a.y, a.z,
                 a.w, b.x, b.y, b.z, b.w);
    /* the inline copy the samplers use gives the same bits */
    if (!quat_eq(bsync_quat_normalize_inl_(q, NULL), b)) fail_msg("inline normalize differs");
    const bsync_quat d = ref_normalize_def(q);
    if (!quat_eq(a, d))
        fail_msg("normalize(%d, %d, %d, %d) = (%d, %d, %d, %d), definition (%d, %d, %d, %d)", x, y, z, w, a.x, a.y,
                 a.z, a.w, d.x, d.y, d.z, d.w);
}

/* A quaternion whose sum of squares is near target (< 2^63; less where the cap binds): w, a, b at
 * random within the rest, c the floor of the root of what is left, plus 0 or 1; every component at
 * most 2^31 - 1, with random signs and order. */
static void quat_near_sum(uint64_t target, uint64_t* rng, fix16_t v[4]) {
    uint64_t rest = target;
    int64_t c[4];
    for (int k = 0; k < 3; k++) {
        uint64_t r = bsync_u64_isqrt(rest);
        if (r > 0x7FFFFFFFu) r = 0x7FFFFFFFu;
        c[k] = (int64_t)(bsync_test_rand(rng) % (r + 1u));
        rest -= (uint64_t)(c[k] * c[k]);
    }
    uint64_t r = bsync_u64_isqrt(rest) + (bsync_test_rand(rng) & 1u);
    if (r > 0x7FFFFFFFu) r = 0x7FFFFFFFu;
    c[3] = (int64_t)r;
    const int rot = (int)(bsync_test_rand(rng) % 4u);
    for (int k = 0; k < 4; k++) v[k] = (fix16_t)((bsync_test_rand(rng) & 1u) ? -c[(k + rot) % 4] : c[(k + rot) % 4]);
}

/* A random unit quaternion (raw |q|^2 within a few units of 2^32). */
static bsync_quat rand_unit(uint64_t* rng) {
    fix16_t v[4];
    quat_near_sum((uint64_t)1 << 32, rng, v);
    return bsync_quat_make(v[0], v[1], v[2], v[3]);
}

static void test_normalize_more(void** state) {
    (void)state;
    uint64_t rng = 5;
    /* tiny: every quaternion with components in [-4, 4] (s < 16 takes the e = 28 cap) */
    for (int i = 0; i < 9 * 9 * 9 * 9; i++) check_norm(i % 9 - 4, i / 9 % 9 - 4, i / 81 % 9 - 4, i / 729 - 4);
    /* every bit length of the sum of squares, 1 .. 63 (from 2^62 up the components reach 2^31 - 1 and
     * the halving path) */
    for (unsigned b = 1; b <= 63; b++)
        for (int i = 0; i < 6000 / FP_SCALE; i++) {
            const uint64_t r = bsync_test_rand(&rng);
            const uint64_t target = ((uint64_t)1 << (b - 1u)) + (b == 1u ? 0u : r >> (65u - b));
            fix16_t v[4];
            quat_near_sum(target, &rng, v);
            check_norm(v[0], v[1], v[2], v[3]);
        }
    /* the hot case: nlerp of random unit pairs (the shorter arc), |q|^2 in [1/2, 1] 2^32 */
    for (int i = 0; i < 1200000 / FP_SCALE; i++) {
        const bsync_quat a = rand_unit(&rng), b0 = rand_unit(&rng);
        const int64_t dot = (int64_t)a.x * b0.x + (int64_t)a.y * b0.y + (int64_t)a.z * b0.z + (int64_t)a.w * b0.w;
        const bsync_quat b = dot < 0 ? bsync_quat_neg(b0) : b0;
        const fix16_t t = (fix16_t)(bsync_test_rand(&rng) % 65537u);
        check_norm(bsync_fx_lerp(a.x, b.x, t), bsync_fx_lerp(a.y, b.y, t), bsync_fx_lerp(a.z, b.z, t),
                   bsync_fx_lerp(a.w, b.w, t));
    }
    /* blend sums: 2 to 4 unit quaternions weighted by fractions summing to about 1, signs as they come */
    for (int i = 0; i < 300000 / FP_SCALE; i++) {
        const int k = 2 + (int)(bsync_test_rand(&rng) % 3u);
        int64_t acc[4] = {0, 0, 0, 0}, left = 65536;
        for (int j = 0; j < k; j++) {
            const int64_t w = j == k - 1 ? left : (int64_t)(bsync_test_rand(&rng) % (uint64_t)(left + 1));
            left -= w;
            const bsync_quat u = rand_unit(&rng);
            acc[0] += bsync_fx_mul((fix16_t)w, u.x);
            acc[1] += bsync_fx_mul((fix16_t)w, u.y);
            acc[2] += bsync_fx_mul((fix16_t)w, u.z);
            acc[3] += bsync_fx_mul((fix16_t)w, u.w);
        }
        check_norm((fix16_t)acc[0], (fix16_t)acc[1], (fix16_t)acc[2], (fix16_t)acc[3]);
    }
    /* huge components (the halving path): around +-2^30, +-(2^31 - 1) and INT32_MIN, mixed with small */
    for (int i = 0; i < 200000 / FP_SCALE; i++) {
        fix16_t v[4];
        for (int k = 0; k < 4; k++) {
            const uint64_t r = bsync_test_rand(&rng);
            const int64_t base = (r & 3u) == 0 ? ((int64_t)1 << 30) : (r & 3u) == 1 ? 0x7FFFFFFF : (r & 3u) == 2 ? 0 : 65536;
            int64_t x = base - (int64_t)((r >> 2) % 1024u);
            if ((r >> 12) & 1u) x = -x - (int64_t)((r >> 13) & 1u); /* reaches INT32_MIN */
            v[k] = (fix16_t)x;
        }
        check_norm(v[0], v[1], v[2], v[3]);
    }
}

static fix16_t rand_mag(uint64_t* rng, unsigned bits) { /* uniform in (-2^bits, 2^bits), bits <= 31 */
    const uint64_t r = bsync_test_rand(rng);
    int64_t v = (int64_t)((r >> 1) & ((((uint64_t)1) << bits) - 1u));
    return (fix16_t)((r & 1u) ? -v : v);
}

static void test_normalize(void** state) {
    (void)state;
    uint64_t rng = 3;
    static const fix16_t edge[] = {0,          1,          -1,         2,           -2,         3,
                                   32767,      32768,      65535,      65536,       65537,      -65536,
                                   46341,      -46341,     (1 << 30) - 1, 1 << 30,  -(1 << 30), (1 << 30) + 1,
                                   0x7FFFFFFF, -0x7FFFFFFF, INT32_MIN,  0x40000001, 12345678,   -98765};
    const int ne = (int)(sizeof edge / sizeof edge[0]);
    for (int a = 0; a < ne; a++)
        for (int b = 0; b < ne; b++)
            for (int c = 0; c < ne; c++)
                for (int d = 0; d < ne; d++) check_norm(edge[a], edge[b], edge[c], edge[d]);
    /* every magnitude: components of 1..31 bits, mixed and equal sizes, some zero */
    for (int i = 0; i < 1500000; i++) {
        fix16_t c[4];
        const unsigned bits = 1u + (unsigned)(bsync_test_rand(&rng) % 31u);
        for (int k = 0; k < 4; k++) {
            const unsigned b = (bsync_test_rand(&rng) & 3u) == 0 ? 1u + (unsigned)(bsync_test_rand(&rng) % 31u) : bits;
            c[k] = (bsync_test_rand(&rng) % 7u) == 0 ? 0 : rand_mag(&rng, b);
        }
        check_norm(c[0], c[1], c[2], c[3]);
    }
    /* near-unit (what nlerp and the blend hand over): unit quaternions perturbed by a few raw steps */
    for (int i = 0; i < 500000; i++) {
        int64_t c[4];
        uint64_t s = 0;
        for (int k = 0; k < 4; k++) {
            c[k] = (int64_t)(bsync_test_rand(&rng) % 131073u) - 65536;
            s += (uint64_t)(c[k] * c[k]);
        }
        if (s < ((uint64_t)1 << 30)) continue; /* then l >= 2^15 and every |f| <= 2^17 + 2 */
        const int64_t l = (int64_t)bsync_u64_isqrt(s);
        fix16_t f[4];
        for (int k = 0; k < 4; k++) f[k] = (fix16_t)(c[k] * 65536 / l + (int64_t)(bsync_test_rand(&rng) % 5u) - 2);
        check_norm(f[0], f[1], f[2], f[3]);
    }
    /* around the unit band where q comes back unchanged (|q|^2 in [2^32 - 1, 2^32 + 4] raw): sums of
     * squares 2^32 + d for every d in [-12, 12] (d = 0 below), as w = 65536 - k (k <= 64) plus three squares that make up about
     * the rest, in every component order and with random signs */
    int hits[25] = {0};
    for (int tries = 0; tries < 400000; tries++) {
        const int64_t w = 65536 - (int64_t)(1u + bsync_test_rand(&rng) % 64u);
        const int64_t rest = ((int64_t)1 << 32) - w * w; /* 2^17 k - k^2 */
        const int64_t a = (int64_t)(bsync_test_rand(&rng) % (bsync_u64_isqrt((uint64_t)rest) + 1));
        const int64_t r2 = rest - a * a;
        const int64_t b = (int64_t)(bsync_test_rand(&rng) % (bsync_u64_isqrt((uint64_t)r2) + 1));
        const int64_t r3 = r2 - b * b;
        const int64_t c = (int64_t)bsync_u64_isqrt((uint64_t)r3) + (int64_t)(bsync_test_rand(&rng) & 1u);
        const int64_t d = w * w + a * a + b * b + c * c - ((int64_t)1 << 32);
        if (d < -12 || d > 12) continue;
        fix16_t v[4] = {(fix16_t)w, (fix16_t)a, (fix16_t)b, (fix16_t)c};
        for (int m = 0; m < 4; m++)
            if (bsync_test_rand(&rng) & 1u) v[m] = -v[m];
        const int rot = (int)(bsync_test_rand(&rng) % 4u);
        check_norm(v[rot], v[(rot + 1) % 4], v[(rot + 2) % 4], v[(rot + 3) % 4]);
        hits[d + 12]++;
    }
    for (int d = 0; d < 25; d++) assert_true(d == 12 || hits[d] >= 10);
    /* d = 0: 2^32 is a sum of four squares only as (+-2^16, 0, 0, 0) and (+-2^15, ...) (every term of a
     * representation of 4^k must be even), all 24 of them */
    for (int m = 0; m < 16; m++) {
        const fix16_t h = 32768;
        check_norm(m & 1 ? -h : h, m & 2 ? -h : h, m & 4 ? -h : h, m & 8 ? -h : h);
    }
    for (int m = 0; m < 8; m++) {
        fix16_t v[4] = {0, 0, 0, 0};
        v[m / 2] = m & 1 ? -65536 : 65536;
        check_norm(v[0], v[1], v[2], v[3]);
        assert_true(quat_eq(bsync_quat_normalize(bsync_quat_make(v[0], v[1], v[2], v[3])), bsync_quat_make(v[0], v[1], v[2], v[3])));
    }
    /* the wider band of the early return (every |c| <= 2^16, |s - 2^32| <= 2^15) and just outside it:
     * random unit-range quaternions whose sum of squares is 2^32 + d for d up to +-2^17 */
    long inside = 0, outside = 0;
    for (int i = 0; i < 300000; i++) {
        const int64_t target = ((int64_t)1 << 32) + (int64_t)(bsync_test_rand(&rng) % (1u << 18)) - (1 << 17);
        const int64_t w = (int64_t)(bsync_test_rand(&rng) % 65537u);
        const int64_t r1 = target - w * w;
        if (r1 < 0) continue;
        const int64_t a = (int64_t)(bsync_test_rand(&rng) % (bsync_u64_isqrt((uint64_t)r1) + 1));
        const int64_t r2 = r1 - a * a;
        const int64_t b = (int64_t)(bsync_test_rand(&rng) % (bsync_u64_isqrt((uint64_t)r2) + 1));
        const int64_t c = (int64_t)bsync_u64_isqrt((uint64_t)(r2 - b * b)) + (int64_t)(bsync_test_rand(&rng) & 1u);
        if (c > 65536) continue;
        const int64_t d = w * w + a * a + b * b + c * c - ((int64_t)1 << 32);
        if (d >= -(1 << 15) && d <= (1 << 15)) inside++;
        else outside++;
        fix16_t v[4] = {(fix16_t)w, (fix16_t)a, (fix16_t)b, (fix16_t)c};
        for (int m = 0; m < 4; m++)
            if (bsync_test_rand(&rng) & 1u) v[m] = -v[m];
        const int rot = (int)(bsync_test_rand(&rng) % 4u);
        check_norm(v[rot], v[(rot + 1) % 4], v[(rot + 2) % 4], v[(rot + 3) % 4]);
    }
    assert_true(inside > 10000 && outside > 10000);
    /* the identity and an exactly unit input come back unchanged (fixed.h's contract) */
    assert_true(quat_eq(bsync_quat_normalize(bsync_quat_make(0, 0, 0, 65536)), bsync_quat_make(0, 0, 0, 65536)));
    assert_true(quat_eq(bsync_quat_normalize(bsync_quat_make(32768, 32768, -32768, 32768)),
                        bsync_quat_make(32768, 32768, -32768, 32768)));
}

/* ---------------------------------------------------------------- blend denominator */

static void test_blend_mean(void** state) {
    (void)state;
    uint64_t rng = 4;
    enum { NJ = 8, NI = 4 };
    static bsync_trs rest[NJ], poses[NI][NJ], out[NJ];
    for (int it = 0; it < 20000; it++) {
        for (int j = 0; j < NJ; j++) {
            rest[j] = bsync_trs_identity();
            rest[j].t = bsync_vec3_make(rand_mag(&rng, 22), rand_mag(&rng, 20), rand_mag(&rng, 31));
            rest[j].s = bsync_vec3_make(rand_mag(&rng, 18), 65536, rand_mag(&rng, 31));
            for (int i = 0; i < NI; i++) {
                poses[i][j] = rest[j];
                poses[i][j].t = bsync_vec3_make(rand_mag(&rng, 1 + (unsigned)(it % 31)), rand_mag(&rng, 24), rand_mag(&rng, 31));
                poses[i][j].s = bsync_vec3_make(rand_mag(&rng, 17), rand_mag(&rng, 31), rand_mag(&rng, 8));
            }
        }
        /* weights: summing to exactly one, below one (rest fills up), above one (divided by the sum) */
        bsync_pose_input in[NI];
        int64_t w[NI], total = 0;
        const int kind = it % 3;
        for (int i = 0; i < NI; i++) {
            w[i] = 1 + (int64_t)(bsync_test_rand(&rng) % (kind == 2 ? 3u * 65536u : 16384u));
            total += w[i];
        }
        if (kind == 0) { w[NI - 1] += 65536 - total; total = 65536; }
        if (kind == 0 && w[NI - 1] <= 0) continue;
        for (int i = 0; i < NI; i++) {
            in[i].local = poses[i];
            in[i].weight = (fix16_t)w[i];
            in[i].joint_weights = NULL;
        }
        assert_int_equal(bsync_pose_blend(rest, NJ, in, NI, out), BSYNC_OK);
        const int64_t den = total > 65536 ? total : 65536;
        for (int j = 0; j < NJ; j++) {
            for (int c = 0; c < 6; c++) {
                int64_t sum = 0;
                for (int i = 0; i < NI; i++) {
                    const fix16_t v = c < 3 ? (&poses[i][j].t.x)[c] : (&poses[i][j].s.x)[c - 3];
                    sum += w[i] * v;
                }
                if (total < 65536) sum += (65536 - total) * (int64_t)(c < 3 ? (&rest[j].t.x)[c] : (&rest[j].s.x)[c - 3]);
                const fix16_t got = c < 3 ? (&out[j].t.x)[c] : (&out[j].s.x)[c - 3];
                assert_int_equal(got, bsync_test_round_div(sum, den));
            }
        }
    }
}

/* ---------------------------------------------------------------- sampling */

/* The straightforward sampler from the public track data: linear search, one division per track. */
static void ref_sample(const bsync_clip* clip, fix16_t t, const bsync_trs* rest, uint32_t J, bsync_trs* out) {
    for (uint32_t j = 0; j < J; j++) out[j] = rest[j];
    const fix16_t dur = bsync_clip_duration(clip);
    if (dur <= 0) t = 0;
    else {
        t %= dur;
        if (t < 0) t += dur;
    }
    for (uint32_t i = 0; i < bsync_clip_track_count(clip); i++) {
        bsync_track_info tr;
        assert_int_equal(bsync_clip_track_info(clip, i, &tr), BSYNC_OK);
        const uint32_t n = tr.key_count;
        uint32_t k = 0;
        int exact = 1;
        fix16_t alpha = 0;
        if (t <= tr.times[0]) k = 0;
        else if (t >= tr.times[n - 1]) k = n - 1;
        else {
            while (!(tr.times[k] <= t && t < tr.times[k + 1])) k++;
            if (t != tr.times[k]) {
                exact = 0;
                alpha = bsync_fx_div(t - tr.times[k], tr.times[k + 1] - tr.times[k]);
            }
        }
        bsync_trs* x = &out[tr.joint];
        if (tr.kind == BSYNC_TRACK_ROTATION) x->r = exact ? tr.quats[k] : bsync_quat_nlerp(tr.quats[k], tr.quats[k + 1], alpha);
        else {
            const bsync_vec3 v = exact ? tr.vec3s[k] : bsync_vec3_lerp(tr.vec3s[k], tr.vec3s[k + 1], alpha);
            if (tr.kind == BSYNC_TRACK_TRANSLATION) x->t = v;
            else x->s = v;
        }
    }
}

static void check_sampling(const bsync_clip* clip, const bsync_trs* rest, uint32_t J, uint64_t* rng) {
    enum { MAXJ = 64 };
    bsync_trs a[MAXJ], b[MAXJ], c[MAXJ];
    assert_true(J <= MAXJ);
    const size_t cs = bsync_sample_cursor_memory_size(clip);
    void* cm = aligned_alloc(8, (cs + 7) & ~(size_t)7);
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cm, cs, clip, &cur), BSYNC_OK);
    const fix16_t dur = bsync_clip_duration(clip);
    fix16_t t = 0;
    for (int i = 0; i < 3000; i++) {
        /* forward playback (the cursor's case), random jumps, and exact key times */
        if (i % 5 == 4) t = (fix16_t)(bsync_test_rand(rng) % (uint64_t)(dur + 1));
        else t += (fix16_t)(bsync_test_rand(rng) % 3000u);
        if (i % 7 == 3) {
            bsync_track_info tr;
            assert_int_equal(bsync_clip_track_info(clip, (uint32_t)(bsync_test_rand(rng) % bsync_clip_track_count(clip)), &tr), BSYNC_OK);
            t = tr.times[bsync_test_rand(rng) % tr.key_count];
        }
        ref_sample(clip, t, rest, J, a);
        assert_int_equal(bsync_clip_sample(clip, t, BSYNC_LOOP_WRAP, rest, J, NULL, b), BSYNC_OK);
        assert_int_equal(bsync_clip_sample(clip, t, BSYNC_LOOP_WRAP, rest, J, cur, c), BSYNC_OK);
        for (uint32_t j = 0; j < J; j++) {
            if (!trs_eq(&a[j], &b[j]) || !trs_eq(&a[j], &c[j])) fail_msg("sample at %d, joint %u differs", t, j);
        }
    }
    free(cm);
}

static void test_sampling(void** state) {
    (void)state;
    uint64_t rng = 5;
    bsync_procedural_humanoid h;
    assert_int_equal(bsync_procedural_humanoid_create(NULL, &h), BSYNC_OK);
    const uint32_t J = bsync_skeleton_joint_count(h.skeleton);
    const bsync_trs* rest = bsync_skeleton_rest_pose(h.skeleton);
    /* the procedural clips: every track has the same 25 key times (the weight is reused throughout) */
    for (int c = 0; c < BSYNC_PROCEDURAL_CLIP_COUNT; c++) check_sampling(h.clips[c], rest, J, &rng);

    /* a clip whose tracks mix three key-time sets: shared by consecutive tracks, different ones, and
     * one set that shares some intervals with another (equal times at different key indices) */
    static const fix16_t ta[5] = {0, 16384, 32768, 49152, 65536};
    static const fix16_t tb[4] = {0, 10000, 40000, 65536};
    static const fix16_t tc[7] = {6000, 10000, 16384, 32768, 40000, 50000, 60000}; /* from 6000 to 60000 */
    const fix16_t* sets[3] = {ta, tb, tc};
    const uint32_t counts[3] = {5, 4, 7};
    enum { NT = 3 * 23 };
    static bsync_raw_track tracks[NT];
    static bsync_vec3 vv[NT][7];
    static bsync_quat qq[NT][7];
    uint32_t nt = 0;
    for (uint32_t j = 0; j < J && nt + 3 <= NT; j++) {
        for (uint32_t kind = 0; kind < 3; kind++) {
            const uint32_t set = (uint32_t)((j / 3u + kind * (j % 2u)) % 3u);
            bsync_raw_track* tr = &tracks[nt];
            tr->joint = j;
            tr->kind = (bsync_track_kind)kind;
            tr->key_count = counts[set];
            tr->times = sets[set];
            for (uint32_t k = 0; k < counts[set]; k++) {
                vv[nt][k] = bsync_vec3_make(rand_mag(&rng, 18), rand_mag(&rng, 18), rand_mag(&rng, 18));
                qq[nt][k] = bsync_quat_normalize(bsync_quat_make(rand_mag(&rng, 16), rand_mag(&rng, 16),
                                                                 rand_mag(&rng, 16), rand_mag(&rng, 16)));
            }
            tr->vec3s = kind == BSYNC_TRACK_ROTATION ? NULL : vv[nt];
            tr->quats = kind == BSYNC_TRACK_ROTATION ? qq[nt] : NULL;
            nt++;
        }
    }
    bsync_clip_desc d;
    memset(&d, 0, sizeof d);
    d.name = "mixed";
    d.duration = 65536;
    d.loop = 1;
    d.tracks = tracks;
    d.track_count = nt;
    bsync_clip* clip = NULL;
    assert_int_equal(bsync_clip_create(&d, h.skeleton, NULL, &clip), BSYNC_OK);
    check_sampling(clip, rest, J, &rng);
    bsync_clip_destroy(clip);
    bsync_procedural_humanoid_destroy(&h);
}

/* ---------------------------------------------------------------- layers repeating the base */

enum { HJ = 23, UPPERARM_L = 8 };

/* Params: speed, mix. Motions: idle, walk, run. Node 0 "base" = Simple1D(speed) [walk 0, run 1];
 * node 1 "arms" = Simple1D(mix) [idle 0, run 1]. */
static bsync_blend_tree* make_tree(uint32_t root) {
    static const char* pn[2] = {"speed", "mix"};
    static const char* mn[3] = {"idle", "walk", "run"};
    static const fix16_t defaults[2] = {0, 0};
    static const fix16_t th[2] = {0, BSYNC_FX_ONE};
    static const bsync_blend_child_ref c0[2] = {{BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    static const bsync_blend_child_ref c1[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 2}};
    static const uint32_t p0[1] = {0}, p1[1] = {1};
    bsync_blend_node_desc nodes[2];
    memset(nodes, 0, sizeof nodes);
    const char* names[2] = {"base", "arms"};
    const bsync_blend_child_ref* cs[2] = {c0, c1};
    const uint32_t* ps[2] = {p0, p1};
    for (int i = 0; i < 2; i++) {
        nodes[i].name = names[i];
        nodes[i].space.type = BSYNC_BLEND_SIMPLE_1D;
        nodes[i].space.child_count = 2;
        nodes[i].space.thresholds = th;
        nodes[i].children = cs[i];
        nodes[i].params = ps[i];
    }
    bsync_blend_tree_desc td = {pn, defaults, 2, mn, 3, nodes, 2, root};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

static bsync_graph* make_graph(const bsync_procedural_humanoid* h, const bsync_blend_tree* tree,
                               const bsync_graph_layer_desc* layers, uint32_t n) {
    const bsync_clip* clips[3] = {h->clips[0], h->clips[1], h->clips[2]};
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    d.tree = tree;
    d.skeleton = h->skeleton;
    d.clips = clips;
    d.tick_rate = 30;
    d.layers = layers;
    d.layer_count = n;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_OK);
    return g;
}

static bsync_graph_layer_desc layer(uint32_t node, bsync_layer_mode mode, fix16_t w, const bsync_layer_bone* mask,
                                    uint32_t mask_count) {
    bsync_graph_layer_desc l;
    memset(&l, 0, sizeof l);
    l.node = node;
    l.mode = mode;
    l.weight_source = BSYNC_LAYER_WEIGHT_FIXED;
    l.weight = w;
    l.mask = mask;
    l.mask_count = mask_count;
    return l;
}

/* out = override of `base` by `top` at weight w under the joint mask `mask` (NULL: every joint), the
 * rule of docs/instance.md "Layers" written out with bsync_pose_blend. */
static void compose_override(const bsync_trs* rest, const bsync_trs* base, const bsync_trs* top, fix16_t w,
                             const fix16_t* mask, bsync_trs* out) {
    static fix16_t inv[HJ];
    bsync_pose_input in[2];
    in[0].local = base;
    in[1].local = top;
    in[1].weight = w;
    in[1].joint_weights = mask;
    if (mask) {
        for (uint32_t j = 0; j < HJ; j++) inv[j] = BSYNC_FX_ONE - bsync_fx_mul(w, mask[j]);
        in[0].weight = BSYNC_FX_ONE;
        in[0].joint_weights = inv;
    } else {
        in[0].weight = BSYNC_FX_ONE - w;
        in[0].joint_weights = NULL;
    }
    assert_int_equal(bsync_pose_blend(rest, HJ, in, 2, out), BSYNC_OK);
}

static void test_layers_repeating_the_base(void** state) {
    (void)state;
    bsync_procedural_humanoid h;
    assert_int_equal(bsync_procedural_humanoid_create(NULL, &h), BSYNC_OK);
    assert_int_equal(bsync_skeleton_joint_count(h.skeleton), HJ);
    const bsync_trs* rest = bsync_skeleton_rest_pose(h.skeleton);
    bsync_blend_tree* tb = make_tree(0);
    bsync_blend_tree* ta = make_tree(1);
    /* the left-arm mask written out from the skeleton: upper arm and every descendant */
    static const bsync_layer_bone arm[1] = {{UPPERARM_L, 1}};
    fix16_t mask[HJ];
    const int16_t* parents = bsync_skeleton_parents(h.skeleton);
    for (uint32_t j = 0; j < HJ; j++) {
        int32_t p = (int32_t)j;
        while (p >= 0 && p != UPPERARM_L) p = parents[p];
        mask[j] = p == UPPERARM_L ? BSYNC_FX_ONE : 0;
    }
    /* 1: the base node again, override at 1 under the mask (a copy of the base, bit for bit);
     * 2: the base node again, override at 0.3 (a blend of the base with itself);
     * 3: the base node again, additive at 0.6;
     * 4: "arms" override at 1 under the mask, then the base node again at 0.5 (the second layer's
     *    pose is blended from the samples the base already took) */
    const fix16_t w03 = 19661, w06 = 39322, w05 = BSYNC_FX_ONE / 2;
    bsync_graph_layer_desc l1 = layer(0, BSYNC_LAYER_OVERRIDE, BSYNC_FX_ONE, arm, 1);
    bsync_graph_layer_desc l2 = layer(0, BSYNC_LAYER_OVERRIDE, w03, NULL, 0);
    bsync_graph_layer_desc l3 = layer(0, BSYNC_LAYER_ADDITIVE, w06, NULL, 0);
    bsync_graph_layer_desc l4[2] = {layer(1, BSYNC_LAYER_OVERRIDE, BSYNC_FX_ONE, arm, 1),
                                    layer(0, BSYNC_LAYER_OVERRIDE, w05, NULL, 0)};
    bsync_graph* g[6] = {make_graph(&h, tb, NULL, 0), make_graph(&h, ta, NULL, 0), make_graph(&h, tb, &l1, 1),
                         make_graph(&h, tb, &l2, 1),  make_graph(&h, tb, &l3, 1),  make_graph(&h, tb, l4, 2)};
    void* mem[6];
    bsync_instance* in[6];
    for (int i = 0; i < 6; i++) in[i] = bsync_test_instance_new(g[i], &mem[i]);
    static bsync_trs base[HJ], arms[HJ], got[HJ], want[HJ], tmp[HJ];
    uint32_t moving = 0;
    for (uint32_t k = 0; k < 120; k++) {
        fix16_t x[2] = {(fix16_t)((k * 1237u) % 65537u), (fix16_t)((k * 911u) % 65537u)};
        bsync_instance_input input = {x, 2};
        for (int i = 0; i < 6; i++) assert_int_equal(bsync_instance_tick(in[i], &input), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(in[0], base, NULL), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(in[1], arms, NULL), BSYNC_OK);
        /* 1 */
        assert_int_equal(bsync_instance_pose(in[2], got, NULL), BSYNC_OK);
        for (uint32_t j = 0; j < HJ; j++) assert_true(trs_eq(&got[j], &base[j]));
        /* 2 */
        compose_override(rest, base, base, w03, NULL, want);
        assert_int_equal(bsync_instance_pose(in[3], got, NULL), BSYNC_OK);
        for (uint32_t j = 0; j < HJ; j++) assert_true(trs_eq(&got[j], &want[j]));
        /* 3 */
        assert_int_equal(bsync_pose_blend_additive(base, base, rest, HJ, w06, NULL, want), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(in[4], got, NULL), BSYNC_OK);
        for (uint32_t j = 0; j < HJ; j++) assert_true(trs_eq(&got[j], &want[j]));
        /* 4 */
        compose_override(rest, base, arms, BSYNC_FX_ONE, mask, tmp);
        compose_override(rest, tmp, base, w05, NULL, want);
        assert_int_equal(bsync_instance_pose(in[5], got, NULL), BSYNC_OK);
        for (uint32_t j = 0; j < HJ; j++) assert_true(trs_eq(&got[j], &want[j]));
        /* the checks are not vacuous: the arm differs between the layered stack and the base */
        if (!trs_eq(&got[UPPERARM_L + 1], &base[UPPERARM_L + 1])) moving++;
    }
    assert_true(moving > 60);
    for (int i = 0; i < 6; i++) {
        free(mem[i]);
        bsync_graph_destroy(g[i]);
    }
    bsync_blend_tree_destroy(tb);
    bsync_blend_tree_destroy(ta);
    bsync_procedural_humanoid_destroy(&h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isqrt),
        cmocka_unit_test(test_div_round_shared),
        cmocka_unit_test(test_root_recip),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_normalize_more),
        cmocka_unit_test(test_blend_mean),
        cmocka_unit_test(test_sampling),
        cmocka_unit_test(test_layers_repeating_the_base),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
