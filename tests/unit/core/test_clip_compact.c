/* test_clip_compact.c — compact clip keys (clip block version 2, issue 17; docs/clip-format.md).
 *   - the decode rules against hand-computed vectors (rotation components, the integer sqrt, whole
 *     rotation keys, quantised and raw translations);
 *   - round trip: every decoded key of a compact clip against its source key (times exact, rotations
 *     within the documented 2e-4 rad and unit length within 1e-4, vec3 tracks lossless when their
 *     range fits 16 bits, else within 2^(shift-1) units); the rotation bound over 60000 random keys;
 *   - sampling: a compact clip sampled with no cursor, a cursor, a plan, a plan and a cursor, into an
 *     output that partly overlaps the rest pose, and bsync_clip_sample_track_, all equal bit for bit to
 *     sample.h's rule written out here over the decoded keys (bsync_clip_track_key), on a synthetic clip
 *     and on pab's runtime clips and a CMU BVH when the shared data is present; the pose error of the
 *     compact clips against the default ones is printed (max and 99th percentile) for docs/benchmarks.md;
 *   - identity: the same source gives the same bytes; the fingerprint, bsync_checksum_clip, cursors and
 *     plans and the hash of a graph over the clip tell compact from default; corrupt blocks are refused;
 *   - files: .bsclip version 2 for compact blocks (loads with the same bytes), version 1 kept for
 *     default ones, a version-1 file with a compact block and an unknown version are refused with
 *     messages naming them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/checksum.h"
#include "blendsync/blend_tree.h"
#include "blendsync/clip.h"
#include "blendsync/graph.h"
#include "blendsync/io/asset.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/sample.h"
#include "blendsync/skeleton.h"
#include "test_support.h"
#include "internal/clip_block.h"
#include "internal/sample_impl.h"

/* ---------------------------------------------------------------- decode vectors (by hand) */

static void test_decode_vectors(void** state) {
    (void)state;
    /* ((u * 185364 + 32768) >> 16) - 46341 */
    assert_int_equal(bsync_cq_component_(0), -46341);     /* 32768 >> 16 = 0 */
    assert_int_equal(bsync_cq_component_(16384), 0);      /* 3037036544 >> 16 = 46341 */
    assert_int_equal(bsync_cq_component_(32767), 46338);  /* 6073855756 >> 16 = 92679 */
    assert_int_equal(bsync_cq_component_(1), -46338);     /* 217132 >> 16 = 3 */
    assert_int_equal(bsync_cq_component_(20000), 10228);  /* 3707312768 >> 16 = 56569 */
    assert_int_equal(bsync_isqrt33_(0), 0);
    assert_int_equal(bsync_isqrt33_(2), 1);
    assert_int_equal(bsync_isqrt33_((uint64_t)1 << 32), 65536);
    assert_int_equal(bsync_isqrt33_(((uint64_t)1 << 32) - 1), 65535);
    assert_int_equal(bsync_isqrt33_(2042867031u), 45198); /* 45198^2 = 2042859204 <= x < 45199^2 */
    /* the decode's fast square root: every square r^2 and its neighbours r^2 - 1, r^2 + 1 up to 2^32 */
    for (uint64_t r = 0; r <= 65536; r++) {
        const uint64_t sq = r * r;
        if (bsync_isqrt33_fast_(sq) != r || (sq > 0 && bsync_isqrt33_fast_(sq - 1) != r - 1) ||
            (sq < ((uint64_t)1 << 32) && bsync_isqrt33_fast_(sq + 1) != (r == 0 ? 1u : r)))
            fail_msg("fast isqrt differs at r = %u", (unsigned)r);
    }
    {
        uint64_t rng = 77;
        for (int i = 0; i < 200000; i++) {
            const uint64_t x = bsync_test_rand(&rng) % (((uint64_t)1 << 32) + 1);
            if (bsync_isqrt33_fast_(x) != bsync_isqrt33_(x)) fail_msg("fast isqrt differs at %llu", (unsigned long long)x);
        }
    }
    /* identity: the largest is w (index 3: both top bits), the others u = 16384 (0) */
    const uint16_t id[3] = {0xC000, 0xC000, 0x4000};
    bsync_quat q = bsync_clip_cquat_decode_(id);
    assert_true(q.x == 0 && q.y == 0 && q.z == 0 && q.w == 65536);
    const uint16_t nid[3] = {0xC000, 0xC000, 0xC000}; /* sign bit: all negated */
    q = bsync_clip_cquat_decode_(nid);
    assert_true(q.x == 0 && q.y == 0 && q.z == 0 && q.w == -65536);
    const uint16_t xq[3] = {0x4000, 0x4000, 0x4000}; /* largest index 0 */
    q = bsync_clip_cquat_decode_(xq);
    assert_true(q.x == 65536 && q.y == 0 && q.z == 0 && q.w == 0);
    /* index 2 (w0 top 0, w1 top 1), sign set; smalls x = u 20000 = 10228, y = 0, w = u 0 = -46341;
     * z = isqrt(2^32 - 10228^2 - 46341^2) = isqrt(2042867031) = 45198; then all negated */
    const uint16_t mixed[3] = {0x4E20, 0xC000, 0x8000};
    q = bsync_clip_cquat_decode_(mixed);
    assert_int_equal(q.x, -10228);
    assert_int_equal(q.y, 0);
    assert_int_equal(q.z, -45198);
    assert_int_equal(q.w, 46341);
    /* index 0 (both top bits 0), the three smalls at their largest: 3 * 46338^2 = 6441605532 passes
     * 2^32, so the rebuilt x is 0 */
    const uint16_t over[3] = {0x7FFF, 0x7FFF, 0x7FFF};
    q = bsync_clip_cquat_decode_(over);
    assert_true(q.x == 0 && q.y == 46338 && q.z == 46338 && q.w == 46338);
    /* QUANT vec3: bases -5, 65536, -2^31 + 7 (low, high halves), shifts 2, 0, 16; u = 3, 9, 1 */
    const uint32_t bz = (uint32_t)(-2147483647 - 1 + 7);
    const uint16_t blob[10] = {(uint16_t)((uint32_t)-5 & 0xFFFF), (uint16_t)((uint32_t)-5 >> 16), 0, 1,
                               (uint16_t)(bz & 0xFFFF), (uint16_t)(bz >> 16), (uint16_t)(2 | (0 << 5) | (16 << 10)),
                               3, 9, 1};
    bsync_vec3 v = bsync_clip_cvec3_decode_(blob, BSYNC_TRACK_TRANSLATION | BSYNC_CTRACK_QUANT, 0);
    assert_int_equal(v.x, -5 + (3 << 2));
    assert_int_equal(v.y, 65536 + 9);
    assert_int_equal(v.z, -2147483647 - 1 + 7 + 65536);
    /* RAW const: one value, whatever key is asked for */
    const uint16_t raw[6] = {0x5678, 0x1234, 0xFFFF, 0xFFFF, 0, 1};
    v = bsync_clip_cvec3_decode_(raw, BSYNC_TRACK_SCALE | BSYNC_CTRACK_CONST, 7);
    assert_int_equal(v.x, 0x12345678);
    assert_int_equal(v.y, -1);
    assert_int_equal(v.z, 65536);
}

/* ---------------------------------------------------------------- a synthetic clip */

enum { SJ = 12, SK = 23 };
typedef struct synth {
    bsync_skeleton* sk;
    bsync_clip* clip;
    fix16_t times[SK], times2[2], times3[SK];
    bsync_quat q[SJ][SK];
    bsync_vec3 t_small[SK], t_big[SK], t_const[2], s_const[2], t_odd[SK];
    bsync_quat q_held[2];
} synth;

static void synth_build(synth* s, uint64_t seed) {
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull;
    bsync_joint_desc jd[SJ];
    char names[SJ][8];
    for (uint32_t j = 0; j < SJ; j++) {
        snprintf(names[j], sizeof names[j], "j%u", (unsigned)j);
        jd[j].name = names[j];
        jd[j].parent = j == 0 ? BSYNC_NO_PARENT : (int32_t)j - 1;
        jd[j].rest = bsync_trs_identity();
        jd[j].rest.t = bsync_vec3_make(0, 6554 * (fix16_t)j, 0);
    }
    bsync_skeleton_desc sd = {jd, SJ};
    assert_int_equal(bsync_skeleton_create(&sd, NULL, &s->sk), BSYNC_OK);
    const fix16_t dur = 2 * 65536;
    for (uint32_t k = 0; k < SK; k++) {
        s->times[k] = (fix16_t)((int64_t)dur * k / (SK - 1));
        s->times3[k] = (fix16_t)((int64_t)dur * k * k / ((SK - 1) * (SK - 1))); /* another grid */
    }
    s->times2[0] = 0;
    s->times2[1] = dur;
    for (uint32_t j = 0; j < SJ; j++)
        for (uint32_t k = 0; k < SK; k++) {
            /* random non-unit keys, some with negative components and large magnitudes */
            const int32_t m = (bsync_test_rand(&rng) % 3) == 0 ? 3 * 65536 : 65536;
            fix16_t c[4]; /* one call per statement: the same numbers with every compiler */
            for (int i = 0; i < 4; i++) c[i] = (fix16_t)(bsync_test_rand(&rng) % (2u * (uint64_t)m)) - m;
            s->q[j][k] = bsync_quat_make(c[0], c[1], c[2], c[3] + 1);
        }
    for (uint32_t k = 0; k < SK; k++) {
        const fix16_t a = (fix16_t)(bsync_test_rand(&rng) % 60000u) - 30000;
        const fix16_t b = -(fix16_t)(bsync_test_rand(&rng) % 65000u);
        s->t_small[k] = bsync_vec3_make(a, 65536 + (fix16_t)k, b);
        const fix16_t x = (fix16_t)(bsync_test_rand(&rng) % 4000000u) - 2000000;
        const fix16_t y = (fix16_t)(bsync_test_rand(&rng) % 300000u);
        const fix16_t z = (fix16_t)((bsync_test_rand(&rng) % 2) ? 2147483000 : -2147483000);
        s->t_big[k] = bsync_vec3_make(x, y, z);
        s->t_odd[k] = bsync_vec3_make((fix16_t)k * 1000, 0, 3);
    }
    s->t_const[0] = s->t_const[1] = bsync_vec3_make(123457, -98765, 3);
    s->s_const[0] = s->s_const[1] = bsync_vec3_make(65536, 65536, 65536);
    s->q_held[0] = s->q_held[1] = bsync_quat_make(30000, -1, 5, 40000); /* not unit */
    bsync_raw_track tr[3 * SJ];
    uint32_t n = 0;
    for (uint32_t j = 0; j < SJ; j++) {
        if (j == 3) tr[n++] = (bsync_raw_track){j, BSYNC_TRACK_ROTATION, 2, s->times2, NULL, s->q_held};
        else if (j != 5) tr[n++] = (bsync_raw_track){j, BSYNC_TRACK_ROTATION, SK, j % 2 ? s->times3 : s->times, NULL, s->q[j]};
        if (j == 0) tr[n++] = (bsync_raw_track){j, BSYNC_TRACK_TRANSLATION, SK, s->times, s->t_big, NULL};
        else if (j == 1) tr[n++] = (bsync_raw_track){j, BSYNC_TRACK_TRANSLATION, SK, s->times3, s->t_small, NULL};
        else if (j == 2) tr[n++] = (bsync_raw_track){j, BSYNC_TRACK_TRANSLATION, SK, s->times, s->t_odd, NULL};
        else if (j != 7) tr[n++] = (bsync_raw_track){j, BSYNC_TRACK_TRANSLATION, 2, s->times2, s->t_const, NULL};
        if (j % 3 == 0) tr[n++] = (bsync_raw_track){j, BSYNC_TRACK_SCALE, j == 6 ? 1 : 2, s->times2, NULL, NULL};
        if (j % 3 == 0) tr[n - 1].vec3s = s->s_const;
    }
    bsync_clip_desc cd = {"synth", dur, 1, tr, n};
    assert_int_equal(bsync_clip_create(&cd, s->sk, NULL, &s->clip), BSYNC_OK);
}

static void synth_free(synth* s) {
    bsync_clip_destroy(s->clip);
    bsync_skeleton_destroy(s->sk);
}

/* ---------------------------------------------------------------- round trip */

static double quat_angle_d(bsync_quat a, bsync_quat b) {
    const double na = sqrt((double)a.x * a.x + (double)a.y * a.y + (double)a.z * a.z + (double)a.w * a.w);
    const double nb = sqrt((double)b.x * b.x + (double)b.y * b.y + (double)b.z * b.z + (double)b.w * b.w);
    double d = ((double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w) / (na * nb);
    if (d < 0) d = -d;
    if (d > 1) d = 1;
    return 2.0 * acos(d);
}
static double quat_norm_d(bsync_quat q) {
    return sqrt((double)q.x * q.x + (double)q.y * q.y + (double)q.z * q.z + (double)q.w * q.w) / 65536.0;
}

/* The documented per-track shift of a vec3 component range (docs/clip-format.md). */
static uint32_t doc_shift(int64_t lo, int64_t hi) {
    uint32_t s = 0;
    while (s < 16 && ((hi - lo) + (s ? ((int64_t)1 << (s - 1)) : 0)) >> s > 65535) s++;
    return s;
}

static void check_round_trip(const bsync_clip* src, const bsync_clip* c, double* worst_angle) {
    assert_int_equal(bsync_clip_encoding(src), 0);
    assert_int_equal(bsync_clip_encoding(c), 1);
    assert_int_equal(bsync_clip_track_count(c), bsync_clip_track_count(src));
    assert_int_equal(bsync_clip_duration(c), bsync_clip_duration(src));
    assert_string_equal(bsync_clip_name(c), bsync_clip_name(src));
    for (uint32_t i = 0; i < bsync_clip_track_count(src); i++) {
        bsync_track_info a, b;
        assert_int_equal(bsync_clip_track_info(src, i, &a), BSYNC_OK);
        assert_int_equal(bsync_clip_track_info(c, i, &b), BSYNC_OK);
        assert_int_equal(a.joint, b.joint);
        assert_int_equal(a.kind, b.kind);
        assert_int_equal(a.key_count, b.key_count);
        assert_null(b.times);
        int64_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
        for (uint32_t k = 0; k < a.key_count && a.kind != BSYNC_TRACK_ROTATION; k++) {
            const fix16_t x[3] = {a.vec3s[k].x, a.vec3s[k].y, a.vec3s[k].z};
            for (int e = 0; e < 3; e++) {
                if (x[e] < lo[e]) lo[e] = x[e];
                if (x[e] > hi[e]) hi[e] = x[e];
            }
        }
        for (uint32_t k = 0; k < a.key_count; k++) {
            fix16_t t;
            bsync_vec3 v;
            bsync_quat q;
            assert_int_equal(bsync_clip_track_key(c, i, k, &t, &v, &q), BSYNC_OK);
            assert_int_equal(t, a.times[k]); /* times are lossless */
            if (a.kind == BSYNC_TRACK_ROTATION) {
                const double ang = quat_angle_d(a.quats[k], q);
                if (ang > *worst_angle) *worst_angle = ang;
                assert_true(ang <= 2.0e-4); /* the documented bound (docs/clip-format.md) */
                assert_true(fabs(quat_norm_d(q) - 1.0) <= 1e-4);
                /* the hemisphere is kept (the sign bit): the decoded key is near the key, not its negation */
                assert_true((double)a.quats[k].x * q.x + (double)a.quats[k].y * q.y + (double)a.quats[k].z * q.z +
                                (double)a.quats[k].w * q.w > 0);
            } else {
                const fix16_t x[3] = {a.vec3s[k].x, a.vec3s[k].y, a.vec3s[k].z}, y[3] = {v.x, v.y, v.z};
                for (int e = 0; e < 3; e++) {
                    const uint32_t s = doc_shift(lo[e], hi[e]);
                    const int64_t err = (int64_t)y[e] - x[e];
                    if (s == 0) assert_int_equal(err, 0); /* lossless narrowing */
                    else assert_true(err >= -((int64_t)1 << s) && err <= ((int64_t)1 << (s - 1)));
                }
            }
        }
        assert_int_equal(bsync_clip_track_key(c, i, a.key_count, NULL, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    }
}

static void test_round_trip(void** state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        synth s;
        synth_build(&s, seed);
        bsync_clip* c = NULL;
        assert_int_equal(bsync_clip_compact_create(s.clip, NULL, &c), BSYNC_OK);
        double worst = 0;
        check_round_trip(s.clip, c, &worst);
        if (seed == 1) print_message("synthetic: worst rotation key error %.3g rad\n", worst);
        /* the big translation really was lossy and the small one lossless (what the check relied on) */
        bsync_vec3 v;
        int lossy = 0;
        for (uint32_t k = 0; k < SK; k++) {
            assert_int_equal(bsync_clip_track_key(c, 1, k, NULL, &v, NULL), BSYNC_OK); /* joint 0 translation */
            lossy |= v.x != s.t_big[k].x;
        }
        assert_true(lossy);
        /* a compact clip cannot be compacted again */
        assert_int_equal(bsync_clip_compact_memory_size(c), 0);
        bsync_clip* again = NULL;
        assert_int_equal(bsync_clip_compact_create(c, NULL, &again), BSYNC_INVALID_ARGUMENT);
        bsync_clip_destroy(c);
        synth_free(&s);
    }
}

/* ---------------------------------------------------------------- sampling = the rule over decoded keys */

/* Every sampling path of compact clip c equals the rule at `count` times, both loop modes. */
static long compare_paths(const bsync_clip* c, const bsync_skeleton* sk, const fix16_t* times, size_t count) {
    const uint32_t J = bsync_skeleton_joint_count(sk);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    bsync_trs* want = malloc(sizeof(bsync_trs) * J);
    bsync_trs* got = malloc(sizeof(bsync_trs) * J * 5);
    bsync_trs* overlap = malloc(sizeof(bsync_trs) * (J + 1));
    const size_t cs = bsync_sample_cursor_memory_size(c), ps = bsync_sample_plan_memory_size(c);
    uint64_t* cm1 = malloc(cs);
    uint64_t* cm2 = malloc(cs);
    uint64_t* pm = malloc(ps);
    bsync_sample_cursor *c1 = NULL, *c2 = NULL;
    bsync_sample_plan* plan = NULL;
    assert_int_equal(bsync_sample_cursor_init(cm1, cs, c, &c1), BSYNC_OK);
    assert_int_equal(bsync_sample_cursor_init(cm2, cs, c, &c2), BSYNC_OK);
    assert_int_equal(bsync_sample_plan_init(pm, ps, c, rest, J, &plan), BSYNC_OK);
    long compared = 0;
    for (int m = 0; m < 2; m++) {
        const bsync_loop_mode mode = m ? BSYNC_LOOP_WRAP : BSYNC_LOOP_CLAMP;
        for (size_t i = 0; i < count; i++) {
            bsync_test_rule_sample(c, times[i], mode, rest, J, want);
            assert_int_equal(bsync_clip_sample(c, times[i], mode, rest, J, NULL, got), BSYNC_OK);
            assert_int_equal(bsync_clip_sample(c, times[i], mode, rest, J, c1, got + J), BSYNC_OK);
            assert_int_equal(bsync_clip_sample_planned(plan, c, times[i], mode, NULL, got + 2 * J), BSYNC_OK);
            assert_int_equal(bsync_clip_sample_planned(plan, c, times[i], mode, c2, got + 3 * J), BSYNC_OK);
            /* out partly over rest: rest copied to overlap[1..J], output at overlap[0..J-1] */
            memcpy(overlap + 1, rest, sizeof(bsync_trs) * J);
            assert_int_equal(bsync_clip_sample(c, times[i], mode, overlap + 1, J, NULL, overlap), BSYNC_OK);
            memcpy(got + 4 * J, overlap, sizeof(bsync_trs) * J);
            for (int p = 0; p < 5; p++)
                for (uint32_t j = 0; j < J; j++)
                    if (memcmp(&want[j], &got[(size_t)p * J + j], sizeof want[j]))
                        fail_msg("path %d, joint %u, time %d, mode %d: differs from the rule over the decoded keys", p,
                                 (unsigned)j, (int)times[i], m);
            /* one track alone (root motion's path) */
            const uint32_t ti = (uint32_t)(i % bsync_clip_track_count(c));
            bsync_track_info tr;
            bsync_clip_track_info(c, ti, &tr);
            bsync_vec3 v;
            bsync_quat q;
            assert_int_equal(bsync_clip_sample_track_(c, ti, times[i], mode, &v, &q), BSYNC_OK);
            const bsync_trs* x = &want[tr.joint];
            if (tr.kind == BSYNC_TRACK_ROTATION) assert_memory_equal(&q, &x->r, sizeof q);
            else assert_memory_equal(&v, tr.kind == BSYNC_TRACK_TRANSLATION ? &x->t : &x->s, sizeof v);
            compared += J;
        }
    }
    free(want);
    free(got);
    free(overlap);
    free(cm1);
    free(cm2);
    free(pm);
    return compared;
}

/* Times: every key time, +-1 around it, midpoints, random ones, and some outside [0, duration]. */
static size_t make_times(const bsync_clip* c, fix16_t* out, size_t cap, uint64_t seed) {
    size_t n = 0;
    for (uint32_t i = 0; i < bsync_clip_track_count(c) && n + 4 < cap; i += 3) {
        bsync_track_info tr;
        bsync_clip_track_info(c, i, &tr);
        for (uint32_t k = 0; k < tr.key_count && n + 4 < cap; k++) {
            fix16_t t, u = 0;
            bsync_clip_track_key(c, i, k, &t, NULL, NULL);
            if (k + 1 < tr.key_count) bsync_clip_track_key(c, i, k + 1, &u, NULL, NULL);
            out[n++] = t;
            out[n++] = t - 1;
            out[n++] = t + 1;
            if (k + 1 < tr.key_count) out[n++] = t + (u - t) / 2;
        }
    }
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull;
    const fix16_t d = bsync_clip_duration(c);
    while (n < cap) out[n++] = (fix16_t)(bsync_test_rand(&rng) % (uint32_t)(3 * d + 1)) - d;
    return n;
}

static void test_sample_synthetic(void** state) {
    (void)state;
    synth s;
    synth_build(&s, 11);
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_compact_create(s.clip, NULL, &c), BSYNC_OK);
    static fix16_t times[1500];
    const size_t n = make_times(c, times, 1500, 5);
    const long compared = compare_paths(c, s.sk, times, n);
    print_message("synthetic compact clip: %ld joint samples equal to the rule on 5 paths\n", compared);
    bsync_clip_destroy(c);
    synth_free(&s);
}

/* Pose error of compact against default sampling over `steps` times per clip. */
static int cmp_d(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}
static void pose_error(const char* what, const bsync_asset* a, uint32_t steps, double rot_bound) {
    const uint32_t J = bsync_skeleton_joint_count(a->skeleton);
    const bsync_trs* rest = bsync_skeleton_rest_pose(a->skeleton);
    const size_t cap = (size_t)a->clip_count * steps * J;
    double* rot = malloc(sizeof(double) * cap);
    double* tra = malloc(sizeof(double) * cap);
    bsync_trs* p0 = malloc(sizeof(bsync_trs) * J);
    bsync_trs* p1 = malloc(sizeof(bsync_trs) * J);
    size_t n = 0;
    for (uint32_t ci = 0; ci < a->clip_count; ci++) {
        bsync_clip* c = NULL;
        assert_int_equal(bsync_clip_compact_create(a->clips[ci], NULL, &c), BSYNC_OK);
        double worst = 0;
        check_round_trip(a->clips[ci], c, &worst);
        if (ci == 0) {
            static fix16_t times[400];
            const size_t nt = make_times(c, times, 400, 9);
            compare_paths(c, a->skeleton, times, nt);
        }
        const fix16_t d = bsync_clip_duration(c);
        for (uint32_t s = 0; s < steps; s++) {
            const fix16_t t = (fix16_t)((int64_t)d * s / steps);
            assert_int_equal(bsync_clip_sample(a->clips[ci], t, BSYNC_LOOP_WRAP, rest, J, NULL, p0), BSYNC_OK);
            assert_int_equal(bsync_clip_sample(c, t, BSYNC_LOOP_WRAP, rest, J, NULL, p1), BSYNC_OK);
            for (uint32_t j = 0; j < J; j++) {
                rot[n] = quat_angle_d(p0[j].r, p1[j].r);
                const double dx = (p0[j].t.x - p1[j].t.x) / 65536.0, dy = (p0[j].t.y - p1[j].t.y) / 65536.0,
                             dz = (p0[j].t.z - p1[j].t.z) / 65536.0;
                tra[n++] = sqrt(dx * dx + dy * dy + dz * dz);
            }
        }
        bsync_clip_destroy(c);
    }
    qsort(rot, n, sizeof *rot, cmp_d);
    qsort(tra, n, sizeof *tra, cmp_d);
    print_message("%s: %zu joint samples, rotation error max %.3g rad, p99 %.3g rad; translation error max %.3g, p99 %.3g "
                  "(file units)\n",
                  what, n, rot[n - 1], rot[n * 99 / 100], tra[n - 1], tra[n * 99 / 100]);
    assert_true(rot[n - 1] <= rot_bound);
    free(rot);
    free(tra);
    free(p0);
    free(p1);
}

/* Block bytes of every clip of a, default (*before) and compact (*after). */
static void compact_sizes(const bsync_asset* a, size_t* before, size_t* after) {
    for (uint32_t i = 0; i < a->clip_count; i++) {
        bsync_clip* c = NULL;
        assert_int_equal(bsync_clip_compact_create(a->clips[i], NULL, &c), BSYNC_OK);
        *before += bsync_clip_block_size(a->clips[i]);
        *after += bsync_clip_block_size(c);
        bsync_clip_destroy(c);
    }
}

static void test_pab_and_cmu(void** state) {
    (void)state;
    int ran = 0;
    const char* path = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf");
    bsync_asset a;
    bsync_error err;
    if (path && bsync_asset_import_file(path, NULL, &a, &err) == BSYNC_OK) {
        size_t before = 0, after = 0;
        compact_sizes(&a, &before, &after);
        print_message("pab runtime clips: %zu -> %zu bytes (ozz 0.16: 26491)\n", before, after);
        assert_true(after <= 26491); /* issue 17: clip bytes at most ozz's */
        pose_error("pab walk/jog/run", &a, 240, 2.5e-4);
        bsync_asset_destroy(&a);
        ran = 1;
    }
    path = bsync_test_shared_path("data/cmu-mocap-bvh/02_01_walk.bvh");
    if (path && bsync_asset_import_file(path, NULL, &a, &err) == BSYNC_OK) {
        size_t before = 0, after = 0;
        compact_sizes(&a, &before, &after);
        print_message("CMU 02_01_walk.bvh: %zu -> %zu bytes\n", before, after);
        pose_error("CMU 02_01_walk", &a, 240, 2.5e-4);
        bsync_asset_destroy(&a);
        ran = 1;
    }
    if (!ran) {
        print_message("shared data absent: skipped\n");
        skip();
    }
}

/* ---------------------------------------------------------------- identity, validation */

static void test_identity_and_validation(void** state) {
    (void)state;
    synth s;
    synth_build(&s, 3);
    const size_t need = bsync_clip_compact_memory_size(s.clip);
    assert_true(need > 0 && need % 8 == 0);
    uint64_t* m1 = calloc(need / 8 + 1, 8);
    uint64_t* m2 = calloc(need / 8 + 1, 8);
    bsync_clip *c1 = NULL, *c2 = NULL;
    assert_int_equal(bsync_clip_compact_init(m1, need - 8, s.clip, &c1), BSYNC_BUFFER_TOO_SMALL);
    assert_null(c1);
    assert_int_equal(bsync_clip_compact_init((unsigned char*)m1 + 4, need, s.clip, &c1), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_compact_init(m1, need, s.clip, &c1), BSYNC_OK);
    assert_int_equal(bsync_clip_compact_init(m2, need, s.clip, &c2), BSYNC_OK);
    assert_int_equal(bsync_clip_block_size(c1), need);
    assert_memory_equal(m1, m2, need); /* deterministic bytes */
    /* smaller than the default block */
    assert_true(need < bsync_clip_block_size(s.clip));
    /* what tells them apart: checksum, cursor, plan */
    assert_true(bsync_checksum_clip(c1) != bsync_checksum_clip(s.clip));
    const uint32_t J = bsync_skeleton_joint_count(s.sk);
    const bsync_trs* rest = bsync_skeleton_rest_pose(s.sk);
    const size_t cs = bsync_sample_cursor_memory_size(s.clip);
    uint64_t* cm = malloc(cs);
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cm, cs, s.clip, &cur), BSYNC_OK);
    bsync_trs* out = malloc(sizeof(bsync_trs) * J);
    assert_int_equal(bsync_clip_sample(c1, 100, BSYNC_LOOP_WRAP, rest, J, cur, out), BSYNC_MISMATCH);
    const size_t ps = bsync_sample_plan_memory_size(s.clip);
    uint64_t* pm = malloc(ps);
    bsync_sample_plan* plan = NULL;
    assert_int_equal(bsync_sample_plan_init(pm, ps, s.clip, rest, J, &plan), BSYNC_OK);
    assert_int_equal(bsync_sample_plan_validate(plan, c1, rest, J), BSYNC_MISMATCH);
    assert_int_equal(bsync_clip_sample_planned(plan, c1, 100, BSYNC_LOOP_WRAP, NULL, out), BSYNC_MISMATCH);
    /* the block validates (init leaves the allocator slot zero), and any flipped byte is refused */
    const bsync_clip* v = NULL;
    assert_int_equal(bsync_clip_block_validate(m1, need, s.sk, &v), BSYNC_OK);
    assert_ptr_equal(v, m1);
    unsigned char* b = (unsigned char*)m2;
    long refused = 0;
    for (size_t i = 0; i < need; i += 7) {
        b[i] ^= 0x10;
        v = NULL;
        if (bsync_clip_block_validate(m2, need, NULL, &v) != BSYNC_OK) refused++;
        else fail_msg("byte %zu flipped: still a valid block", i);
        b[i] ^= 0x10;
    }
    assert_true(refused > 0);
    /* a version-1 reader's check: version 2 is not version 1 */
    assert_int_equal(((const uint32_t*)m1)[1], 2u);
    free(cm);
    free(pm);
    free(out);
    free(m1);
    free(m2);
    synth_free(&s);
}

/* ---------------------------------------------------------------- .bsclip */

static void put32le(unsigned char* p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put64le(unsigned char* p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void test_clip_file(void** state) {
    (void)state;
    synth s;
    synth_build(&s, 4);
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_compact_create(s.clip, NULL, &c), BSYNC_OK);
    /* default clips only: version 1, as before */
    const bsync_clip* only_default[1] = {s.clip};
    size_t n1 = bsync_clip_file_size(s.sk, only_default, 1);
    unsigned char* f1 = malloc(n1);
    assert_int_equal(bsync_clip_file_write_memory(s.sk, only_default, 1, f1, n1), BSYNC_OK);
    assert_int_equal(f1[8], 1);
    /* with a compact clip: version 2, and it loads with the same block bytes and the same poses */
    const bsync_clip* both[2] = {s.clip, c};
    size_t n2 = bsync_clip_file_size(s.sk, both, 2);
    unsigned char* f2 = malloc(n2);
    assert_int_equal(bsync_clip_file_write_memory(s.sk, both, 2, f2, n2), BSYNC_OK);
    assert_int_equal(f2[8], 2);
    bsync_asset a;
    bsync_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(bsync_clip_file_load_memory(f2, n2, "t.bsclip", &a, &err), BSYNC_OK);
    assert_int_equal(a.clip_count, 2);
    assert_int_equal(bsync_clip_encoding(a.clips[0]), 0);
    assert_int_equal(bsync_clip_encoding(a.clips[1]), 1);
    const size_t bs = bsync_clip_block_size(c);
    assert_int_equal(bsync_clip_block_size(a.clips[1]), bs);
    assert_memory_equal((const unsigned char*)a.clips[1] + 48, (const unsigned char*)c + 48, bs - 48);
    assert_int_equal(bsync_checksum_clip(a.clips[1]), bsync_checksum_clip(c));
    assert_int_equal(bsync_checksum_clip(a.clips[0]), bsync_checksum_clip(s.clip));
    bsync_asset_destroy(&a);
    /* an unknown version: refused naming it */
    unsigned char* g = malloc(n2);
    memcpy(g, f2, n2);
    put32le(g + 8, 4); /* 3 is the version with clip actions (test_clip_file_actions) */
    put64le(g + 24, bsync_clip_file_checksum(g, n2));
    assert_int_equal(bsync_clip_file_load_memory(g, n2, "t.bsclip", &a, &err), BSYNC_BAD_BLOB);
    assert_non_null(strstr(err.message, "unsupported version 4"));
    /* a compact block in a version-1 file: refused (what a version-1 reader does with the block) */
    memcpy(g, f2, n2);
    put32le(g + 8, 1);
    put64le(g + 24, bsync_clip_file_checksum(g, n2));
    assert_int_equal(bsync_clip_file_load_memory(g, n2, "t.bsclip", &a, &err), BSYNC_BAD_BLOB);
    assert_non_null(strstr(err.message, "compact keys (clip block version 2) in a version-1 file"));
    free(g);
    free(f1);
    free(f2);
    bsync_clip_destroy(c);
    synth_free(&s);
}

/* A graph's hash (what replays and match configs record) covers the clips' checksums: a graph over
 * the compact clip is not the graph over the default one. */
static uint64_t graph_hash_over(const bsync_skeleton* sk, const bsync_clip* clip) {
    static const char* const pn[1] = {"w"};
    static const char* const mn[1] = {"synth"};
    static const bsync_blend_child_ref kids[1] = {{BSYNC_CHILD_MOTION, 0}};
    static const uint32_t params[1] = {0};
    bsync_blend_node_desc node;
    memset(&node, 0, sizeof node);
    node.name = "n";
    node.space.type = BSYNC_BLEND_DIRECT;
    node.space.child_count = 1;
    node.children = kids;
    node.params = params;
    bsync_blend_tree_desc td = {pn, NULL, 1, mn, 1, &node, 1, 0};
    bsync_blend_tree* tree = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &tree, NULL, NULL), BSYNC_OK);
    const bsync_clip* clips[1] = {clip};
    bsync_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.tree = tree;
    gd.skeleton = sk;
    gd.clips = clips;
    gd.tick_rate = 30;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &g), BSYNC_OK);
    const uint64_t h = bsync_graph_hash(g);
    bsync_graph_destroy(g);
    bsync_blend_tree_destroy(tree);
    return h;
}

static void test_graph_hash(void** state) {
    (void)state;
    synth s;
    synth_build(&s, 8);
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_compact_create(s.clip, NULL, &c), BSYNC_OK);
    const uint64_t hd = graph_hash_over(s.sk, s.clip), hc = graph_hash_over(s.sk, c);
    assert_true(hd != hc);
    assert_int_equal(hd, graph_hash_over(s.sk, s.clip)); /* and each is stable */
    assert_int_equal(hc, graph_hash_over(s.sk, c));
    bsync_clip_destroy(c);
    synth_free(&s);
}

/* The rotation bound over many keys: 60000 random keys of every magnitude, one track. */
static void test_rotation_bound(void** state) {
    (void)state;
    enum { N = 60000 };
    bsync_joint_desc jd = {"j", BSYNC_NO_PARENT, bsync_trs_identity()};
    bsync_skeleton_desc sd = {&jd, 1};
    bsync_skeleton* sk = NULL;
    assert_int_equal(bsync_skeleton_create(&sd, NULL, &sk), BSYNC_OK);
    fix16_t* times = malloc(sizeof(fix16_t) * N);
    bsync_quat* q = malloc(sizeof(bsync_quat) * N);
    uint64_t rng = 4242;
    for (uint32_t k = 0; k < N; k++) {
        times[k] = (fix16_t)k;
        fix16_t c[4];
        const uint32_t bits = 1u + (uint32_t)(bsync_test_rand(&rng) % 20u); /* magnitudes 2^1 .. 2^20 */
        for (int i = 0; i < 4; i++) c[i] = (fix16_t)(bsync_test_rand(&rng) % (2u << bits)) - (fix16_t)(1u << bits);
        if (!c[0] && !c[1] && !c[2] && !c[3]) c[3] = 1;
        q[k] = bsync_quat_make(c[0], c[1], c[2], c[3]);
    }
    bsync_raw_track tr = {0, BSYNC_TRACK_ROTATION, N, times, NULL, q};
    bsync_clip_desc cd = {"r", N, 0, &tr, 1};
    bsync_clip *src = NULL, *c = NULL;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &src), BSYNC_OK);
    assert_int_equal(bsync_clip_compact_create(src, NULL, &c), BSYNC_OK);
    bsync_track_info ti;
    bsync_clip_track_info(src, 0, &ti);
    double worst = 0, worst_norm = 0;
    for (uint32_t k = 0; k < N; k++) {
        bsync_quat d;
        assert_int_equal(bsync_clip_track_key(c, 0, k, NULL, NULL, &d), BSYNC_OK);
        const double a = quat_angle_d(ti.quats[k], d), n = fabs(quat_norm_d(d) - 1.0);
        if (a > worst) worst = a;
        if (n > worst_norm) worst_norm = n;
    }
    print_message("%d random keys: worst rotation error %.3g rad, worst |norm - 1| %.3g\n", N, worst, worst_norm);
    assert_true(worst <= 2.0e-4);
    assert_true(worst_norm <= 1e-4);
    bsync_clip_destroy(c);
    bsync_clip_destroy(src);
    bsync_skeleton_destroy(sk);
    free(times);
    free(q);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_vectors),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_rotation_bound),
        cmocka_unit_test(test_sample_synthetic),
        cmocka_unit_test(test_identity_and_validation),
        cmocka_unit_test(test_clip_file),
        cmocka_unit_test(test_graph_hash),
        cmocka_unit_test(test_pab_and_cmu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
