/* test_sample.c — sampling clips (blendsync/sample.h): hand-worked keyframes, time policy, exact
 * keys, double-precision references, cursor independence, relocation. */
#include "test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blendsync/sample.h"

#define PI_D 3.14159265358979323846
#define FX(v) ((fix16_t)lround((v) * 65536.0))
#define J 4

static void* aligned_buffer(size_t size) {
    void* p = NULL;
    if (posix_memalign(&p, 8, size ? size : 8) != 0) return NULL;
    return p;
}

/* 4 joints with distinct rest transforms (so "took the rest pose" is visible). */
static bsync_skeleton* make_skeleton(uint32_t n) {
    static char names[64][8];
    bsync_joint_desc j[64];
    for (uint32_t i = 0; i < n; i++) {
        names[i][0] = 'j';
        names[i][1] = (char)('A' + i % 26);
        names[i][2] = (char)('a' + i / 26);
        names[i][3] = '\0';
        j[i].name = names[i];
        j[i].parent = (int32_t)i - 1;
        j[i].rest.t = bsync_vec3_make((fix16_t)(i + 1) * 1000, -(fix16_t)i * 77, 5);
        j[i].rest.r = bsync_quat_make(0, 0, FX(0.6), FX(0.8));
        j[i].rest.s = bsync_vec3_make(BSYNC_FX_ONE + (fix16_t)i, BSYNC_FX_ONE, 3 * BSYNC_FX_HALF);
    }
    bsync_skeleton_desc d = {j, n};
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_create(&d, NULL, &s), BSYNC_OK);
    return s;
}

static void assert_vec3(bsync_vec3 v, fix16_t x, fix16_t y, fix16_t z) {
    assert_int_equal(v.x, x);
    assert_int_equal(v.y, y);
    assert_int_equal(v.z, z);
}

static void assert_trs_equal(const bsync_trs* a, const bsync_trs* b) { assert_memory_equal(a, b, sizeof *a); }

/* The hand-worked clip: duration 2 s.
 *   joint 0: translation (0,0,0) @ 0 s, (2,4,-6) @ 2 s
 *   joint 1: rotation identity @ 0 s, 90 degrees about Y @ 2 s
 *   joint 2: nothing (rest)
 *   joint 3: scale (2,2,2) @ 1 s (one key) */
static const fix16_t k_t01[2] = {0, 2 * 65536};
static const fix16_t k_t1[1] = {65536};
static bsync_vec3 g_tr[2], g_sc[1];
static bsync_quat g_rot[2];

static bsync_clip* make_hand_clip(const bsync_skeleton* sk) {
    g_tr[0] = bsync_vec3_make(0, 0, 0);
    g_tr[1] = bsync_vec3_make(2 << 16, 4 << 16, -(6 << 16));
    g_rot[0] = bsync_quat_identity();
    g_rot[1] = bsync_quat_make(0, FX(sin(PI_D / 4)), 0, FX(cos(PI_D / 4)));
    g_sc[0] = bsync_vec3_make(2 << 16, 2 << 16, 2 << 16);
    bsync_raw_track t[3] = {{0, BSYNC_TRACK_TRANSLATION, 2, k_t01, g_tr, NULL},
                            {1, BSYNC_TRACK_ROTATION, 2, k_t01, NULL, g_rot},
                            {3, BSYNC_TRACK_SCALE, 1, k_t1, g_sc, NULL}};
    bsync_clip_desc d = {"hand", 2 << 16, 1, t, 3};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    return c;
}

static void sample(const bsync_clip* c, const bsync_skeleton* sk, fix16_t t, bsync_loop_mode m, bsync_trs* out) {
    assert_int_equal(bsync_clip_sample(c, t, m, bsync_skeleton_rest_pose(sk), bsync_skeleton_joint_count(sk), NULL, out),
                     BSYNC_OK);
}

/* rest components that untracked parts must keep */
static void check_rest_parts(const bsync_trs* out, const bsync_trs* rest) {
    assert_memory_equal(&out[0].r, &rest[0].r, sizeof(bsync_quat));
    assert_memory_equal(&out[0].s, &rest[0].s, sizeof(bsync_vec3));
    assert_memory_equal(&out[1].t, &rest[1].t, sizeof(bsync_vec3));
    assert_memory_equal(&out[1].s, &rest[1].s, sizeof(bsync_vec3));
    assert_trs_equal(&out[2], &rest[2]);
    assert_memory_equal(&out[3].t, &rest[3].t, sizeof(bsync_vec3));
    assert_memory_equal(&out[3].r, &rest[3].r, sizeof(bsync_quat));
    assert_vec3(out[3].s, 2 << 16, 2 << 16, 2 << 16); /* one-key track: constant */
}

static void test_hand_worked(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(J);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    bsync_clip* c = make_hand_clip(sk);
    bsync_trs out[J];
    bsync_track_info rinfo;
    assert_int_equal(bsync_clip_track_info(c, 1, &rinfo), BSYNC_OK);
    assert_int_equal(rinfo.kind, BSYNC_TRACK_ROTATION);

    /* t = 0.5: alpha = 0.25 exactly -> (0.5, 1, -1.5) exactly */
    sample(c, sk, BSYNC_FX_HALF, BSYNC_LOOP_CLAMP, out);
    assert_vec3(out[0].t, BSYNC_FX_HALF, BSYNC_FX_ONE, -3 * BSYNC_FX_HALF);
    check_rest_parts(out, rest);

    /* t = 1: midpoint of the rotation: 45 degrees about Y within 2 raw steps */
    sample(c, sk, BSYNC_FX_ONE, BSYNC_LOOP_CLAMP, out);
    assert_vec3(out[0].t, BSYNC_FX_ONE, 2 << 16, -(3 << 16));
    assert_true(abs(out[1].r.x) <= 2);
    assert_true(abs(out[1].r.y - FX(sin(PI_D / 8))) <= 2);
    assert_true(abs(out[1].r.z) <= 2);
    assert_true(abs(out[1].r.w - FX(cos(PI_D / 8))) <= 2);
    check_rest_parts(out, rest);

    /* t = 0: the first keys, bit for bit */
    sample(c, sk, 0, BSYNC_LOOP_CLAMP, out);
    assert_vec3(out[0].t, 0, 0, 0);
    assert_memory_equal(&out[1].r, &rinfo.quats[0], sizeof(bsync_quat));
    check_rest_parts(out, rest);

    /* t = duration, clamp: the last keys bit for bit; beyond: the same */
    bsync_trs end[J];
    sample(c, sk, 2 << 16, BSYNC_LOOP_CLAMP, end);
    assert_vec3(end[0].t, 2 << 16, 4 << 16, -(6 << 16));
    assert_memory_equal(&end[1].r, &rinfo.quats[1], sizeof(bsync_quat));
    check_rest_parts(end, rest);
    sample(c, sk, 3 << 16, BSYNC_LOOP_CLAMP, out);
    assert_memory_equal(out, end, sizeof end);
    sample(c, sk, BSYNC_FX_MAX, BSYNC_LOOP_CLAMP, out);
    assert_memory_equal(out, end, sizeof end);

    /* negative time, clamp: the first state */
    bsync_trs start[J];
    sample(c, sk, 0, BSYNC_LOOP_CLAMP, start);
    sample(c, sk, -BSYNC_FX_HALF, BSYNC_LOOP_CLAMP, out);
    assert_memory_equal(out, start, sizeof start);
    sample(c, sk, INT32_MIN, BSYNC_LOOP_CLAMP, out);
    assert_memory_equal(out, start, sizeof start);

    /* wrap: t = duration is t = 0; t = 3 is t = 1; t = -0.5 is t = 1.5 */
    sample(c, sk, 2 << 16, BSYNC_LOOP_WRAP, out);
    assert_memory_equal(out, start, sizeof start);
    bsync_trs one[J];
    sample(c, sk, BSYNC_FX_ONE, BSYNC_LOOP_WRAP, one);
    sample(c, sk, 3 << 16, BSYNC_LOOP_WRAP, out);
    assert_memory_equal(out, one, sizeof one);
    sample(c, sk, -(5 << 16), BSYNC_LOOP_WRAP, out); /* -5 = -3 * 2 + 1 */
    assert_memory_equal(out, one, sizeof one);
    sample(c, sk, -BSYNC_FX_HALF, BSYNC_LOOP_WRAP, out);
    assert_vec3(out[0].t, 3 * BSYNC_FX_HALF, 3 << 16, -(9 * BSYNC_FX_HALF));
    sample(c, sk, INT32_MIN, BSYNC_LOOP_WRAP, out); /* -2^31 is a multiple of 2 s (2^17 raw) */
    assert_memory_equal(out, start, sizeof start);
    sample(c, sk, BSYNC_FX_MAX, BSYNC_LOOP_WRAP, out); /* 2^31-1 mod 2^17 = 2^17 - 1: one raw step short */
    assert_true(abs(out[0].t.x - (2 << 16)) <= 1);
    assert_true(abs(out[0].t.z + (6 << 16)) <= 1);

    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

static void test_zero_length_and_one_key(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(J);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    fix16_t t0[1] = {0};
    bsync_vec3 v[1] = {{7, -8, 9}};
    bsync_quat q[1] = {{0, 0, 0, -3 * BSYNC_FX_ONE}}; /* normalised to (0,0,0,-1) */
    bsync_raw_track tr[2] = {{2, BSYNC_TRACK_TRANSLATION, 1, t0, v, NULL}, {2, BSYNC_TRACK_ROTATION, 1, t0, NULL, q}};
    bsync_clip_desc d = {"pose", 0, 1, tr, 2};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    const fix16_t times[] = {0, 1, -1, BSYNC_FX_ONE, -BSYNC_FX_ONE, BSYNC_FX_MAX, INT32_MIN, 12345};
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
        for (int m = 0; m < 2; m++) {
            bsync_trs out[J];
            sample(c, sk, times[i], (bsync_loop_mode)m, out);
            assert_vec3(out[2].t, 7, -8, 9);
            assert_int_equal(out[2].r.w, -BSYNC_FX_ONE);
            assert_int_equal(out[2].r.x, 0);
            assert_memory_equal(&out[2].s, &rest[2].s, sizeof(bsync_vec3));
            assert_trs_equal(&out[0], &rest[0]);
            assert_trs_equal(&out[1], &rest[1]);
            assert_trs_equal(&out[3], &rest[3]);
        }
    }
    bsync_clip_destroy(c);

    /* one key in the middle of a long clip: constant before and after it */
    fix16_t tm[1] = {3 << 16};
    tr[0].times = tm;
    tr[1].times = tm;
    d.duration = 10 << 16;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    for (fix16_t t = -(20 << 16); t < (20 << 16); t += 12345) {
        bsync_trs out[J];
        sample(c, sk, t, ((uint32_t)t & 1u) ? BSYNC_LOOP_WRAP : BSYNC_LOOP_CLAMP, out);
        assert_vec3(out[2].t, 7, -8, 9);
        assert_int_equal(out[2].r.w, -BSYNC_FX_ONE);
    }
    bsync_clip_destroy(c);

    /* a clip with no tracks: the rest pose */
    bsync_clip_desc e = {NULL, BSYNC_FX_ONE, 0, NULL, 0};
    assert_int_equal(bsync_clip_create(&e, sk, NULL, &c), BSYNC_OK);
    bsync_trs out[J];
    sample(c, sk, BSYNC_FX_HALF, BSYNC_LOOP_WRAP, out);
    assert_memory_equal(out, rest, sizeof out);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

/* ---------------------------------------------------------------- random clips */

#define RJ 24
#define RMAXK 48
static fix16_t r_times[RJ][3][RMAXK];
static bsync_vec3 r_vec[RJ][3][RMAXK];
static bsync_quat r_quat[RJ][RMAXK];
static bsync_raw_track r_tracks[RJ * 3];

static uint64_t rnd(uint64_t* s, uint64_t n) { return bsync_test_rand(s) % n; }

static bsync_clip* make_random_clip(const bsync_skeleton* sk, uint64_t* seed, fix16_t duration) {
    uint32_t n = 0;
    for (uint32_t j = 0; j < RJ; j++) {
        for (uint32_t k = 0; k < 3; k++) {
            if (rnd(seed, 4) == 0) continue; /* some joints lack some kinds */
            fix16_t* times = r_times[j][k];
            uint32_t count = 0;
            fix16_t t = rnd(seed, 3) == 0 ? 0 : (fix16_t)rnd(seed, 20000);
            while (count < RMAXK && t <= duration) {
                times[count++] = t;
                t += (fix16_t)(1 + rnd(seed, rnd(seed, 2) ? 9000 : 300));
            }
            if (count < RMAXK && rnd(seed, 3) == 0 && times[count - 1] < duration) times[count++] = duration;
            for (uint32_t i = 0; i < count; i++) {
                if (k == BSYNC_TRACK_ROTATION) {
                    r_quat[j][i] = bsync_quat_make((fix16_t)rnd(seed, 131072) - 65536, (fix16_t)rnd(seed, 131072) - 65536,
                                                   (fix16_t)rnd(seed, 131072) - 65536, (fix16_t)rnd(seed, 131072) - 65535);
                } else {
                    fix16_t lo = k == BSYNC_TRACK_SCALE ? 0 : -(8 << 16);
                    r_vec[j][k][i] = bsync_vec3_make(lo + (fix16_t)rnd(seed, 16u << 16), lo + (fix16_t)rnd(seed, 16u << 16),
                                                     lo + (fix16_t)rnd(seed, 16u << 16));
                }
            }
            bsync_raw_track tr = {j, (bsync_track_kind)k, count, times, r_vec[j][k], r_quat[j]};
            r_tracks[n++] = tr;
        }
    }
    /* shuffle: the builder sorts */
    for (uint32_t i = n; i > 1; i--) {
        uint32_t o = (uint32_t)rnd(seed, i);
        bsync_raw_track x = r_tracks[i - 1];
        r_tracks[i - 1] = r_tracks[o];
        r_tracks[o] = x;
    }
    bsync_clip_desc d = {"random", duration, 1, r_tracks, n};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    return c;
}

/* Sampling exactly at every key time gives that key's stored value bit for bit. */
static void test_exact_at_keys(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(RJ);
    uint64_t seed = 42;
    for (int rep = 0; rep < 4; rep++) {
        bsync_clip* c = make_random_clip(sk, &seed, 3 << 16);
        for (uint32_t i = 0; i < bsync_clip_track_count(c); i++) {
            bsync_track_info info;
            assert_int_equal(bsync_clip_track_info(c, i, &info), BSYNC_OK);
            for (uint32_t k = 0; k < info.key_count; k++) {
                bsync_trs out[RJ];
                sample(c, sk, info.times[k], BSYNC_LOOP_CLAMP, out);
                const bsync_trs* o = &out[info.joint];
                if (info.kind == BSYNC_TRACK_ROTATION)
                    assert_memory_equal(&o->r, &info.quats[k], sizeof(bsync_quat));
                else
                    assert_memory_equal(info.kind == BSYNC_TRACK_TRANSLATION ? &o->t : &o->s, &info.vec3s[k],
                                        sizeof(bsync_vec3));
            }
        }
        bsync_clip_destroy(c);
    }
    bsync_skeleton_destroy(sk);
}

/* Between keys, against a double-precision lerp / nlerp with the exact alpha. */
static void test_against_double_reference(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(RJ);
    uint64_t seed = 7;
    bsync_clip* c = make_random_clip(sk, &seed, 3 << 16);
    int64_t worst_v = 0, worst_q = 0;
    for (int n = 0; n < 3000; n++) {
        fix16_t t = (fix16_t)rnd(&seed, (3 << 16) + 1);
        bsync_trs out[RJ];
        sample(c, sk, t, BSYNC_LOOP_CLAMP, out);
        for (uint32_t i = 0; i < bsync_clip_track_count(c); i++) {
            bsync_track_info info;
            bsync_clip_track_info(c, i, &info);
            uint32_t k = 0;
            while (k + 1 < info.key_count && info.times[k + 1] <= t) k++;
            if (t <= info.times[0] || k + 1 >= info.key_count || t == info.times[k]) continue; /* exact cases */
            double a = (double)(t - info.times[k]) / (double)(info.times[k + 1] - info.times[k]);
            const bsync_trs* o = &out[info.joint];
            if (info.kind == BSYNC_TRACK_ROTATION) {
                const fix16_t* qa = &info.quats[k].x;
                const fix16_t* qb = &info.quats[k + 1].x;
                double r[4], len = 0;
                const int flip = bsync_quat_dot(info.quats[k], info.quats[k + 1]) < 0; /* never, after the builder */
                for (int e = 0; e < 4; e++) {
                    double b = flip ? -(double)qb[e] : (double)qb[e];
                    r[e] = qa[e] + (b - qa[e]) * a;
                    len += r[e] * r[e];
                }
                len = sqrt(len);
                const fix16_t* got = &o->r.x;
                for (int e = 0; e < 4; e++) {
                    int64_t err = llabs((int64_t)got[e] - (int64_t)llround(r[e] / len * 65536.0));
                    if (len > 0.05 * 65536 && err > worst_q) worst_q = err;
                }
            } else {
                const fix16_t* va = &info.vec3s[k].x;
                const fix16_t* vb = &info.vec3s[k + 1].x;
                const fix16_t* got = info.kind == BSYNC_TRACK_TRANSLATION ? &o->t.x : &o->s.x;
                for (int e = 0; e < 3; e++) {
                    double want = va[e] + ((double)vb[e] - va[e]) * a;
                    double bound = fabs((double)vb[e] - va[e]) / 131072.0 + 1.0; /* alpha rounding + result rounding */
                    assert_true(fabs((double)got[e] - want) <= bound);
                    if (llabs(got[e] - llround(want)) > worst_v) worst_v = llabs(got[e] - llround(want));
                }
            }
        }
    }
    print_message("worst lerp error %lld raw, worst nlerp error %lld raw (normalised keys, |lerp| > 0.05)\n",
                  (long long)worst_v, (long long)worst_q);
    assert_true(worst_q <= 4);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

/* Results never depend on the cursor: fresh, trained, reset, scribbled or none. */
static void test_cursor_independence(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(RJ);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    uint64_t seed = 1234;
    const fix16_t dur = 3 << 16;
    bsync_clip* c = make_random_clip(sk, &seed, dur);
    size_t csize = bsync_sample_cursor_memory_size(c);
    assert_true(csize >= 4 * bsync_clip_track_count(c));
    assert_int_equal(csize % 8, 0);
    void* cmem = aligned_buffer(csize);
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cmem, csize - 1, c, &cur), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_sample_cursor_init(NULL, csize, c, &cur), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_sample_cursor_init(cmem, csize, NULL, &cur), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, NULL), BSYNC_INVALID_ARGUMENT);
    assert_null(cur);
    assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, &cur), BSYNC_OK);

    bsync_trs a[RJ], b[RJ];
    long compared = 0;
#define CHECK_AT(tt, mm)                                                                         \
    do {                                                                                         \
        const fix16_t at_ = (tt); /* evaluated once */                                          \
        assert_int_equal(bsync_clip_sample(c, at_, (mm), rest, RJ, NULL, a), BSYNC_OK);           \
        assert_int_equal(bsync_clip_sample(c, at_, (mm), rest, RJ, cur, b), BSYNC_OK);            \
        assert_memory_equal(a, b, sizeof a);                                                     \
        compared++;                                                                              \
    } while (0)

    /* random times in and around the clip, both modes */
    for (int i = 0; i < 4000; i++) {
        fix16_t t = (fix16_t)rnd(&seed, 5u * dur) - 2 * dur;
        CHECK_AT(t, (bsync_loop_mode)(i & 1));
    }
    /* forward playback with small steps (wrapping several times) */
    for (fix16_t t = 0; t < 4 * dur; t += (fix16_t)(1 + rnd(&seed, 900))) CHECK_AT(t, BSYNC_LOOP_WRAP);
    /* backward playback */
    for (fix16_t t = 4 * dur; t > -dur; t -= (fix16_t)(1 + rnd(&seed, 900))) CHECK_AT(t, BSYNC_LOOP_WRAP);
    /* forward, clamped, past the end */
    bsync_sample_cursor_reset(cur);
    for (fix16_t t = -1000; t < dur + 5000; t += 97) CHECK_AT(t, BSYNC_LOOP_CLAMP);
    /* every key time and its neighbours, in order */
    for (uint32_t i = 0; i < bsync_clip_track_count(c); i++) {
        bsync_track_info info;
        bsync_clip_track_info(c, i, &info);
        for (uint32_t k = 0; k < info.key_count; k++) {
            CHECK_AT(info.times[k] - 1, BSYNC_LOOP_CLAMP);
            CHECK_AT(info.times[k], BSYNC_LOOP_CLAMP);
            CHECK_AT(info.times[k] + 1, BSYNC_LOOP_CLAMP);
        }
    }
    /* white-box: scribble the cached indices (bytes after the 24-byte header) with garbage; the
     * cursor must range-check them and still give the same results */
    for (int rep = 0; rep < 50; rep++) {
        unsigned char* p = (unsigned char*)cmem;
        for (size_t i = 24; i < csize; i++) p[i] = (unsigned char)bsync_test_rand(&seed);
        for (int i = 0; i < 20; i++) CHECK_AT((fix16_t)rnd(&seed, (uint64_t)dur + 1), BSYNC_LOOP_CLAMP);
    }
#undef CHECK_AT
    print_message("cursor vs no cursor: %ld identical samples of %u tracks\n", compared, bsync_clip_track_count(c));
    assert_true(compared > 10000);

    /* a cursor made for another clip is refused, and nothing is written */
    uint64_t seed2 = 99;
    bsync_clip* other = make_random_clip(sk, &seed2, dur);
    void* omem = aligned_buffer(bsync_sample_cursor_memory_size(other));
    bsync_sample_cursor* ocur = NULL;
    assert_int_equal(bsync_sample_cursor_init(omem, bsync_sample_cursor_memory_size(other), other, &ocur), BSYNC_OK);
    memset(b, 0x3C, sizeof b);
    memcpy(a, b, sizeof a);
    assert_int_equal(bsync_clip_sample(c, 0, BSYNC_LOOP_WRAP, rest, RJ, ocur, b), BSYNC_MISMATCH);
    assert_memory_equal(a, b, sizeof a);
    free(omem);
    bsync_clip_destroy(other);

    /* timing (informative): per-joint cost with and without a cursor during forward playback */
    const int frames = 20000;
    clock_t t0 = clock();
    for (int f = 0; f < frames; f++)
        bsync_clip_sample(c, (fix16_t)((f * 2185) % dur), BSYNC_LOOP_WRAP, rest, RJ, NULL, a);
    clock_t t1 = clock();
    for (int f = 0; f < frames; f++)
        bsync_clip_sample(c, (fix16_t)((f * 2185) % dur), BSYNC_LOOP_WRAP, rest, RJ, cur, a);
    clock_t t2 = clock();
    print_message("sample: %.1f ns/joint without cursor, %.1f ns/joint with cursor (%u tracks, %d joints)\n",
                  (double)(t1 - t0) / CLOCKS_PER_SEC * 1e9 / frames / RJ,
                  (double)(t2 - t1) / CLOCKS_PER_SEC * 1e9 / frames / RJ, bsync_clip_track_count(c), RJ);
    free(cmem);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

/* A memcpy'd clip samples the same, and a cursor of the original fits the copy. */
static void test_relocation(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(RJ);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    uint64_t seed = 555;
    bsync_clip* c = make_random_clip(sk, &seed, 2 << 16);
    size_t size = bsync_clip_block_size(c);
    void* copy = aligned_buffer(size);
    memcpy(copy, c, size);
    const bsync_clip* cc = (const bsync_clip*)copy;
    size_t csize = bsync_sample_cursor_memory_size(c);
    void* cmem = aligned_buffer(csize);
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, &cur), BSYNC_OK);
    static bsync_trs before[200][RJ];
    for (int i = 0; i < 200; i++)
        assert_int_equal(bsync_clip_sample(c, (fix16_t)(i * 700 - 3000), BSYNC_LOOP_WRAP, rest, RJ, NULL, before[i]),
                         BSYNC_OK);
    bsync_clip_destroy(c); /* the original is gone */
    for (int i = 0; i < 200; i++) {
        bsync_trs out[RJ];
        assert_int_equal(bsync_clip_sample(cc, (fix16_t)(i * 700 - 3000), BSYNC_LOOP_WRAP, rest, RJ, cur, out), BSYNC_OK);
        assert_memory_equal(out, before[i], sizeof out);
    }
    free(cmem);
    free(copy);
    bsync_skeleton_destroy(sk);
}

static void test_errors_write_nothing(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(J);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    bsync_clip* c = make_hand_clip(sk);
    bsync_trs out[J + 1], guard[J + 1];
    memset(out, 0x77, sizeof out);
    memcpy(guard, out, sizeof out);
    assert_int_equal(bsync_clip_sample(NULL, 0, BSYNC_LOOP_WRAP, rest, J, NULL, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_sample(c, 0, BSYNC_LOOP_WRAP, NULL, J, NULL, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_sample(c, 0, BSYNC_LOOP_WRAP, rest, J, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_sample(c, 0, (bsync_loop_mode)2, rest, J, NULL, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_sample(c, 0, BSYNC_LOOP_WRAP, rest, J - 1, NULL, out), BSYNC_MISMATCH);
    assert_int_equal(bsync_clip_sample(c, 0, BSYNC_LOOP_WRAP, rest, J + 1, NULL, out), BSYNC_MISMATCH);
    assert_memory_equal(out, guard, sizeof out);
    /* success writes exactly joint_count transforms */
    assert_int_equal(bsync_clip_sample(c, 0, BSYNC_LOOP_WRAP, rest, J, NULL, out), BSYNC_OK);
    assert_memory_equal(&out[J], &guard[J], sizeof(bsync_trs));
    assert_int_equal(bsync_sample_cursor_memory_size(NULL), 0);
    bsync_sample_cursor_reset(NULL);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

/* ---------------------------------------------------------------- shared key times */

/* A clip whose tracks all use one key-time grid (`count` keys, random spacing; optionally the last
 * track's time `odd_key` moved by one raw step, which breaks the sharing), random values, a random
 * subset of (joint, kind) tracks (at least one). */
static bsync_clip* make_grid_clip(const bsync_skeleton* sk, uint64_t* seed, fix16_t duration, uint32_t count,
                                  int odd_key) {
    static fix16_t grid[RMAXK], odd[RMAXK];
    uint32_t k = 0;
    fix16_t t = rnd(seed, 2) ? 0 : (fix16_t)rnd(seed, 3000);
    while (k < count && t <= duration) {
        grid[k++] = t;
        t += (fix16_t)(1 + rnd(seed, 4000));
    }
    count = k;
    memcpy(odd, grid, sizeof grid);
    if (odd_key >= 0 && (uint32_t)odd_key < count) {
        const fix16_t lo = odd_key > 0 ? grid[odd_key - 1] : -1, hi = (uint32_t)odd_key + 1 < count ? grid[odd_key + 1] : duration + 1;
        if (grid[odd_key] + 1 < hi && grid[odd_key] + 1 <= duration) odd[odd_key] = grid[odd_key] + 1;
        else if (grid[odd_key] - 1 > lo && grid[odd_key] >= 1) odd[odd_key] = grid[odd_key] - 1;
    }
    uint32_t n = 0;
    for (uint32_t j = 0; j < RJ; j++) {
        for (uint32_t kind = 0; kind < 3; kind++) {
            if (n > 0 && rnd(seed, 3) == 0) continue;
            for (uint32_t i = 0; i < count; i++) {
                r_quat[j][i] = bsync_quat_make((fix16_t)rnd(seed, 131072) - 65536, (fix16_t)rnd(seed, 131072) - 65536,
                                               (fix16_t)rnd(seed, 131072) - 65536, (fix16_t)rnd(seed, 131072) - 65535);
                r_vec[j][kind][i] = bsync_vec3_make((fix16_t)rnd(seed, 1u << 20) - (1 << 19),
                                                    (fix16_t)rnd(seed, 1u << 20) - (1 << 19), (fix16_t)rnd(seed, 1u << 20));
            }
            bsync_raw_track tr = {j, (bsync_track_kind)kind, count, grid, r_vec[j][kind], r_quat[j]};
            r_tracks[n++] = tr;
        }
    }
    if (odd_key >= 0) r_tracks[n - 1].times = odd; /* the builder sorts; this one track differs */
    bsync_clip_desc d = {"grid", duration, 1, r_tracks, n};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    return c;
}

/* A cursor on a clip with one key-time grid takes the one-search path (bsync_sample_cursor_shares_times)
 * and gives the same bits as the per-track search without a cursor: at random times in both modes, in
 * forward playback, at and next to every key, before and after the range, with out_local == rest. A
 * grid with one key of one track moved by a raw step is not shared, and samples the same both ways too.
 * A corrupted shared-times mark in the header is refused and writes nothing. */
static void test_shared_times(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(RJ);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    uint64_t seed = 2026;
    long compared = 0;
    for (int rep = 0; rep < 12; rep++) {
        const fix16_t dur = (fix16_t)(1 + rnd(&seed, 3)) << 16;
        const int odd = rep % 3 == 2 ? (int)rnd(&seed, 6) : -1;
        const uint32_t keys = rep % 4 == 1 ? 1u : 2u + (uint32_t)rnd(&seed, RMAXK - 2);
        bsync_clip* c = make_grid_clip(sk, &seed, dur, keys, odd);
        size_t csize = bsync_sample_cursor_memory_size(c);
        void* cmem = aligned_buffer(csize);
        bsync_sample_cursor* cur = NULL;
        assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, &cur), BSYNC_OK);
        bsync_track_info first;
        assert_int_equal(bsync_clip_track_info(c, 0, &first), BSYNC_OK);
        /* the moved key exists only when the grid had that many keys */
        const int shared = !(odd >= 0 && (uint32_t)odd < first.key_count && bsync_clip_track_count(c) > 1);
        assert_int_equal(bsync_sample_cursor_shares_times(cur), shared);
        bsync_trs a[RJ], b[RJ], in_place[RJ];
#define CHECK_AT(tt, mm)                                                                          \
        do {                                                                                      \
            const fix16_t at_ = (tt);                                                             \
            assert_int_equal(bsync_clip_sample(c, at_, (mm), rest, RJ, NULL, a), BSYNC_OK);        \
            assert_int_equal(bsync_clip_sample(c, at_, (mm), rest, RJ, cur, b), BSYNC_OK);         \
            assert_memory_equal(a, b, sizeof a);                                                  \
            memcpy(in_place, rest, sizeof in_place);                                              \
            assert_int_equal(bsync_clip_sample(c, at_, (mm), in_place, RJ, cur, in_place), BSYNC_OK); \
            assert_memory_equal(a, in_place, sizeof a);                                           \
            compared++;                                                                           \
        } while (0)
        for (int i = 0; i < 600; i++) CHECK_AT((fix16_t)rnd(&seed, 4u * (uint64_t)dur) - dur, (bsync_loop_mode)(i & 1));
        for (fix16_t t = 0; t < 3 * dur; t += (fix16_t)(1 + rnd(&seed, 2500))) CHECK_AT(t, BSYNC_LOOP_WRAP);
        for (uint32_t k = 0; k < first.key_count; k++) {
            CHECK_AT(first.times[k] - 1, BSYNC_LOOP_CLAMP);
            CHECK_AT(first.times[k], BSYNC_LOOP_CLAMP);
            CHECK_AT(first.times[k] + 1, BSYNC_LOOP_CLAMP);
        }
        CHECK_AT(-5, BSYNC_LOOP_CLAMP);
        CHECK_AT(dur, BSYNC_LOOP_CLAMP);
        CHECK_AT(dur + 7, BSYNC_LOOP_CLAMP);
#undef CHECK_AT
        /* flip one bit of the mark (header bytes 16..23): refused, output untouched */
        ((unsigned char*)cmem)[16 + rnd(&seed, 8)] ^= (unsigned char)(1u << rnd(&seed, 8));
        memset(a, 0x5A, sizeof a);
        memcpy(b, a, sizeof b);
        assert_int_equal(bsync_clip_sample(c, dur / 2, BSYNC_LOOP_WRAP, rest, RJ, cur, b), BSYNC_MISMATCH);
        assert_memory_equal(a, b, sizeof a);
        assert_int_equal(bsync_sample_cursor_shares_times(cur), 0);
        free(cmem);
        bsync_clip_destroy(c);
    }
    assert_int_equal(bsync_sample_cursor_shares_times(NULL), 0);
    print_message("shared key times: %ld samples identical to the per-track search\n", compared);
    assert_true(compared > 8000);
    bsync_skeleton_destroy(sk);
}

/* Keys whose exact dot is slightly negative (-5 in 2^-32 units) while the rounded dot is 0: the
 * builder keeps them as they are (both are unit to within the rounding, and it aligns by the rounded
 * dot), but nlerp flips the second one (sample.h: the sign of the exact dot). The cursor's plain-keys
 * mark must not be set for such a clip: sampling with a cursor equals sampling without one and the
 * nlerp rule evaluated here, at every raw step of a key interval's first 4096 and at random times. */
static void test_flipping_pair(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(2);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    static const fix16_t times[2] = {0, 65536};
    static bsync_quat q[2];
    q[0] = bsync_quat_make(46341, 46341, 1, 0); /* s = 2 * 46341^2 + 1 = 2^32 + 9267: unit within rounding */
    q[1] = bsync_quat_make(-46341, 46341, -5, 0); /* dot = -46341^2 + 46341^2 - 5 = -5 */
    bsync_raw_track tr[2] = {{0, BSYNC_TRACK_ROTATION, 2, times, NULL, q}, {1, BSYNC_TRACK_ROTATION, 2, times, NULL, q}};
    bsync_clip_desc d = {"flip", 65536, 0, tr, 2};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    bsync_track_info info;
    assert_int_equal(bsync_clip_track_info(c, 0, &info), BSYNC_OK);
    assert_memory_equal(&info.quats[0], &q[0], sizeof q[0]); /* kept as given */
    assert_memory_equal(&info.quats[1], &q[1], sizeof q[1]);
    assert_int_equal(bsync_quat_dot(q[0], q[1]), 0);
    assert_int_equal(bsync_quat_dot_sign_(q[0], q[1]), -1);
    size_t csize = bsync_sample_cursor_memory_size(c);
    void* cmem = aligned_buffer(csize);
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, &cur), BSYNC_OK);
    assert_int_equal(bsync_sample_cursor_shares_times(cur), 1);
    uint64_t seed = 31;
    for (int i = 0; i < 8192; i++) {
        const fix16_t t = i < 4096 ? (fix16_t)i : (fix16_t)rnd(&seed, 65537);
        bsync_trs a[2], b[2];
        assert_int_equal(bsync_clip_sample(c, t, BSYNC_LOOP_CLAMP, rest, 2, NULL, a), BSYNC_OK);
        assert_int_equal(bsync_clip_sample(c, t, BSYNC_LOOP_CLAMP, rest, 2, cur, b), BSYNC_OK);
        assert_memory_equal(a, b, sizeof a);
        if (t > 0 && t < 65536) {
            /* the rule: alpha = t / 1 s, nlerp with the second key negated (exact dot < 0) */
            const bsync_quat nb = bsync_quat_make(46341, -46341, 5, 0);
            const fix16_t al = bsync_fx_div(t, 65536);
            const bsync_quat want = bsync_quat_normalize(bsync_quat_make(bsync_fx_lerp(q[0].x, nb.x, al), bsync_fx_lerp(q[0].y, nb.y, al),
                                                                         bsync_fx_lerp(q[0].z, nb.z, al), bsync_fx_lerp(q[0].w, nb.w, al)));
            assert_memory_equal(&b[0].r, &want, sizeof want);
            assert_memory_equal(&b[1].r, &want, sizeof want);
        }
    }
    free(cmem);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

/* A track of more keys than 16 bits can index (70,000): forward playback across key 65535 and past
 * it, backward again, and random jumps give the same bits with a cursor as without one (a cursor of
 * 16-bit entries was tried, docs/benchmarks.md "Issue 17, 2026-12-04"; this keeps any narrowing of the
 * entries honest). */
static void test_long_track_cursor(void** state) {
    (void)state;
    enum { KEYS = 70000, SPACING = 16 };
    bsync_skeleton* sk = make_skeleton(RJ);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    static fix16_t times[KEYS];
    static bsync_quat quats[KEYS];
    static bsync_vec3 vecs[KEYS];
    uint64_t seed = 777;
    for (uint32_t i = 0; i < KEYS; i++) {
        times[i] = (fix16_t)(i * SPACING);
        quats[i] = bsync_quat_from_axis_angle(bsync_vec3_make(0, 65536, 0), (fix16_t)(i * 37 % 411775));
        vecs[i] = bsync_vec3_make((fix16_t)rnd(&seed, 1u << 20), (fix16_t)i, -(fix16_t)i);
    }
    static fix16_t short_times[3] = {0, 1000, 500000};
    static bsync_vec3 short_vecs[3];
    for (int i = 0; i < 3; i++) short_vecs[i] = bsync_vec3_make(i << 16, 0, 0);
    const fix16_t dur = (fix16_t)((KEYS - 1) * SPACING);
    bsync_raw_track tracks[3] = {{0, BSYNC_TRACK_ROTATION, KEYS, times, NULL, quats},
                                 {0, BSYNC_TRACK_TRANSLATION, KEYS, times, vecs, NULL},
                                 {1, BSYNC_TRACK_TRANSLATION, 3, short_times, short_vecs, NULL}};
    bsync_clip_desc d = {"long", dur, 1, tracks, 3};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    const size_t csize = bsync_sample_cursor_memory_size(c);
    void* cmem = aligned_buffer(csize);
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, &cur), BSYNC_OK);
    bsync_trs a[RJ], b[RJ];
    long compared = 0, past = 0;
#define CHECK_AT(tt)                                                                                    \
    do {                                                                                                \
        const fix16_t at_ = (tt);                                                                       \
        assert_int_equal(bsync_clip_sample(c, at_, BSYNC_LOOP_CLAMP, rest, RJ, NULL, a), BSYNC_OK);    \
        assert_int_equal(bsync_clip_sample(c, at_, BSYNC_LOOP_CLAMP, rest, RJ, cur, b), BSYNC_OK);     \
        assert_memory_equal(a, b, sizeof a);                                                            \
        compared++;                                                                                     \
        past += at_ > 65535 * SPACING;                                                                  \
    } while (0)
    const fix16_t from = 65000 * SPACING;
    for (fix16_t t = from; t <= dur + 40; t += (fix16_t)(1 + rnd(&seed, 2 * SPACING))) CHECK_AT(t);
    for (fix16_t t = dur; t >= from; t -= (fix16_t)(1 + rnd(&seed, 2 * SPACING))) CHECK_AT(t);
    for (int i = 0; i < 5000; i++) CHECK_AT((fix16_t)rnd(&seed, (uint64_t)dur + 1));
#undef CHECK_AT
    /* and values fixed by sample.h's rule alone: exactly at key k, key k's value (y = k, z = -k) */
    for (uint32_t k = 65534; k < 65540; k++) {
        assert_int_equal(bsync_clip_sample(c, (fix16_t)(k * SPACING), BSYNC_LOOP_CLAMP, rest, RJ, cur, b), BSYNC_OK);
        assert_int_equal(b[0].t.y, (fix16_t)k);
        assert_int_equal(b[0].t.z, -(fix16_t)k);
    }
    print_message("long track: %ld samples identical with and without a cursor, %ld past key 65535\n", compared, past);
    assert_true(past > 8000); /* about 4,460 keys past 65535, walked both ways at about one key per step */
    free(cmem);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_worked),        cmocka_unit_test(test_zero_length_and_one_key),
        cmocka_unit_test(test_exact_at_keys),      cmocka_unit_test(test_against_double_reference),
        cmocka_unit_test(test_cursor_independence), cmocka_unit_test(test_relocation),
        cmocka_unit_test(test_errors_write_nothing), cmocka_unit_test(test_shared_times), cmocka_unit_test(test_flipping_pair),
        cmocka_unit_test(test_long_track_cursor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
