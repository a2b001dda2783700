/* test_sample_track.c — one track sampled alone (internal/sample_impl.h, bsync_clip_sample_track_),
 * the path root motion takes since it stopped carrying its own key search and interpolation:
 *   - against the rule root motion used before (written out again here from sample.h's contract:
 *     first key before the range, last key after it, key k exactly at times[k], else
 *     bsync_vec3_lerp / bsync_quat_nlerp with alpha = (t - t_k) / (t_k+1 - t_k)), bit for bit;
 *   - against the same track's component of a full bsync_clip_sample (CLAMP and WRAP, with and
 *     without a cursor), bit for bit;
 * over random clips (many keys, irregular key times, every key hit exactly, times before, inside and
 * after the range) and the procedural humanoid's clips; plus the argument checks. */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "internal/sample_impl.h"

#define NJ 6
#define MAXK 64

static fix16_t g_times[NJ][3][MAXK];
static bsync_vec3 g_vec[NJ][3][MAXK];
static bsync_quat g_quat[NJ][MAXK];
static bsync_raw_track g_tracks[NJ * 3];

static uint64_t rnd(uint64_t* s, uint64_t n) { return bsync_test_rand(s) % n; }

static bsync_skeleton* make_skeleton(void) {
    static const char* names[NJ] = {"root", "a", "b", "c", "d", "e"};
    bsync_joint_desc j[NJ];
    for (uint32_t i = 0; i < NJ; i++) {
        j[i].name = names[i];
        j[i].parent = (int32_t)i - 1;
        j[i].rest.t = bsync_vec3_make((fix16_t)(i + 1) * 1000, -(fix16_t)i * 77, 5);
        j[i].rest.r = bsync_quat_make(0, 0, 39322, 52429); /* (0, 0, 0.6, 0.8) */
        j[i].rest.s = bsync_vec3_make(BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE);
    }
    bsync_skeleton_desc d = {j, NJ};
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_create(&d, NULL, &s), BSYNC_OK);
    return s;
}

static bsync_clip* make_random_clip(const bsync_skeleton* sk, uint64_t* seed, fix16_t duration) {
    uint32_t n = 0;
    for (uint32_t j = 0; j < NJ; j++) {
        for (uint32_t k = 0; k < 3; k++) {
            if (rnd(seed, 5) == 0) continue;
            fix16_t* times = g_times[j][k];
            uint32_t count = 0;
            fix16_t t = rnd(seed, 3) == 0 ? 0 : (fix16_t)rnd(seed, 30000);
            if (t > duration) t = duration; /* at least one key */
            const uint32_t want = 1u + (uint32_t)rnd(seed, MAXK);
            while (count < want && t <= duration) {
                times[count++] = t;
                t += (fix16_t)(1 + rnd(seed, rnd(seed, 2) ? 12000 : 200));
            }
            if (count < MAXK && rnd(seed, 3) == 0 && times[count - 1] < duration) times[count++] = duration;
            for (uint32_t i = 0; i < count; i++) {
                if (k == BSYNC_TRACK_ROTATION) /* raw: the builder normalises and makes them continuous */
                    g_quat[j][i] = bsync_quat_make((fix16_t)rnd(seed, 131072) - 65536, (fix16_t)rnd(seed, 131072) - 65536,
                                                   (fix16_t)rnd(seed, 131072) - 65536, (fix16_t)rnd(seed, 131072) - 65535);
                else
                    g_vec[j][k][i] = bsync_vec3_make((fix16_t)rnd(seed, 64u << 16) - (32 << 16),
                                                     (fix16_t)rnd(seed, 64u << 16) - (32 << 16),
                                                     (fix16_t)rnd(seed, 64u << 16) - (32 << 16));
            }
            bsync_raw_track tr = {j, (bsync_track_kind)k, count, times, g_vec[j][k], g_quat[j]};
            g_tracks[n++] = tr;
        }
    }
    bsync_clip_desc d = {"random", duration, 1, g_tracks, n};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    return c;
}

/* The rule root motion carried (instance.c rm_locate / rm_sample before it sampled through sample.c). */
static uint32_t ref_locate(const fix16_t* times, uint32_t n, fix16_t t, int* exact, fix16_t* alpha) {
    *exact = 1;
    *alpha = 0;
    if (t <= times[0]) return 0;
    if (t >= times[n - 1]) return n - 1;
    uint32_t k = 0;
    while (times[k + 1] <= t) k++; /* linear, not binary: an independent search */
    if (t == times[k]) return k;
    *exact = 0;
    *alpha = bsync_fx_div(t - times[k], times[k + 1] - times[k]);
    return k;
}

/* Checks track i of clip c at time t against the reference and the full samples. */
static void check_at(const bsync_clip* c, uint32_t i, const bsync_track_info* ti, fix16_t t,
                     const bsync_skeleton* sk, bsync_trs* pose, bsync_sample_cursor* cursor) {
    const fix16_t dur = bsync_clip_duration(c);
    const fix16_t tc = t < 0 ? 0 : t > dur ? dur : t;
    int exact;
    fix16_t alpha;
    const uint32_t k = ref_locate(ti->times, ti->key_count, tc, &exact, &alpha);
    bsync_vec3 v = bsync_vec3_make(1, 2, 3);
    bsync_quat q = bsync_quat_make(1, 2, 3, 4);
    assert_int_equal(bsync_clip_sample_track_(c, i, t, BSYNC_LOOP_CLAMP, &v, &q), BSYNC_OK);
    const uint32_t J = bsync_skeleton_joint_count(sk);
    for (int pass = 0; pass < 2; pass++) {
        assert_int_equal(bsync_clip_sample(c, t, BSYNC_LOOP_CLAMP, bsync_skeleton_rest_pose(sk), J,
                                           pass ? cursor : NULL, pose),
                         BSYNC_OK);
        const bsync_trs* x = &pose[ti->joint];
        if (ti->kind == BSYNC_TRACK_ROTATION) {
            const bsync_quat want = exact ? ti->quats[k] : bsync_quat_nlerp(ti->quats[k], ti->quats[k + 1], alpha);
            assert_memory_equal(&q, &want, sizeof q);
            assert_memory_equal(&x->r, &q, sizeof q);
        } else {
            const bsync_vec3 want = exact ? ti->vec3s[k] : bsync_vec3_lerp(ti->vec3s[k], ti->vec3s[k + 1], alpha);
            assert_memory_equal(&v, &want, sizeof v);
            assert_memory_equal(ti->kind == BSYNC_TRACK_TRANSLATION ? &x->t : &x->s, &v, sizeof v);
        }
    }
    /* WRAP: the same as the full sample's component */
    bsync_vec3 vw;
    bsync_quat qw;
    assert_int_equal(bsync_clip_sample_track_(c, i, t, BSYNC_LOOP_WRAP, &vw, &qw), BSYNC_OK);
    assert_int_equal(bsync_clip_sample(c, t, BSYNC_LOOP_WRAP, bsync_skeleton_rest_pose(sk), J, cursor, pose), BSYNC_OK);
    const bsync_trs* x = &pose[ti->joint];
    if (ti->kind == BSYNC_TRACK_ROTATION) assert_memory_equal(&x->r, &qw, sizeof qw);
    else assert_memory_equal(ti->kind == BSYNC_TRACK_TRANSLATION ? &x->t : &x->s, &vw, sizeof vw);
}

static unsigned long long check_clip(const bsync_clip* c, const bsync_skeleton* sk, uint64_t* seed) {
    const uint32_t J = bsync_skeleton_joint_count(sk);
    bsync_trs* pose = malloc((size_t)J * sizeof(bsync_trs));
    const size_t csize = bsync_sample_cursor_memory_size(c);
    void* cmem = NULL;
    assert_int_equal(posix_memalign(&cmem, 8, csize), 0);
    bsync_sample_cursor* cursor = NULL;
    assert_non_null(pose);
    assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, &cursor), BSYNC_OK);
    const fix16_t dur = bsync_clip_duration(c);
    unsigned long long checks = 0;
    for (uint32_t i = 0; i < bsync_clip_track_count(c); i++) {
        bsync_track_info ti;
        assert_int_equal(bsync_clip_track_info(c, i, &ti), BSYNC_OK);
        for (uint32_t k = 0; k < ti.key_count; k++) { /* at, just before and just after every key, and between */
            const fix16_t tk = ti.times[k];
            check_at(c, i, &ti, tk, sk, pose, cursor);
            check_at(c, i, &ti, tk - 1, sk, pose, cursor);
            check_at(c, i, &ti, tk + 1, sk, pose, cursor);
            if (k + 1 < ti.key_count) check_at(c, i, &ti, tk + (ti.times[k + 1] - tk) / 2, sk, pose, cursor);
            checks += 4;
        }
        for (int r = 0; r < 200; r++) { /* anywhere, including before 0 and after the end */
            const fix16_t t = (fix16_t)rnd(seed, (uint64_t)dur + 2u * 65536u) - 65536;
            check_at(c, i, &ti, t, sk, pose, cursor);
            checks++;
        }
        check_at(c, i, &ti, 0, sk, pose, cursor);
        check_at(c, i, &ti, dur, sk, pose, cursor);
        checks += 2;
    }
    free(cmem);
    free(pose);
    return checks;
}

static void test_random_clips(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton();
    uint64_t seed = 0x5A3D;
    unsigned long long checks = 0;
    for (int rep = 0; rep < 40; rep++) {
        bsync_clip* c = make_random_clip(sk, &seed, (fix16_t)(1 + rnd(&seed, 4u << 16)));
        checks += check_clip(c, sk, &seed);
        bsync_clip_destroy(c);
    }
    assert_true(checks > 20000); /* the sweep really ran */
    bsync_skeleton_destroy(sk);
}

static void test_humanoid_clips(void** state) {
    (void)state;
    bsync_procedural_humanoid_full h;
    assert_int_equal(bsync_procedural_humanoid_full_create(NULL, &h), BSYNC_OK);
    uint64_t seed = 7;
    for (uint32_t m = 0; m < BSYNC_PROCEDURAL_FULL_CLIP_COUNT; m++) assert_true(check_clip(h.clips[m], h.skeleton, &seed) > 0);
    bsync_procedural_humanoid_full_destroy(&h);
}

static void test_arguments(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton();
    uint64_t seed = 3;
    bsync_clip* c = make_random_clip(sk, &seed, 2 << 16);
    bsync_vec3 v = bsync_vec3_make(9, 9, 9);
    bsync_quat q = bsync_quat_make(9, 9, 9, 9);
    const bsync_vec3 v0 = v;
    const bsync_quat q0 = q;
    const uint32_t n = bsync_clip_track_count(c);
    assert_true(n > 0);
    assert_int_equal(bsync_clip_sample_track_(NULL, 0, 0, BSYNC_LOOP_CLAMP, &v, &q), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_sample_track_(c, n, 0, BSYNC_LOOP_CLAMP, &v, &q), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_sample_track_(c, 0, 0, (bsync_loop_mode)7, &v, &q), BSYNC_INVALID_ARGUMENT);
    for (uint32_t i = 0; i < n; i++) {
        bsync_track_info ti;
        assert_int_equal(bsync_clip_track_info(c, i, &ti), BSYNC_OK);
        if (ti.kind == BSYNC_TRACK_ROTATION)
            assert_int_equal(bsync_clip_sample_track_(c, i, 0, BSYNC_LOOP_CLAMP, &v, NULL), BSYNC_INVALID_ARGUMENT);
        else
            assert_int_equal(bsync_clip_sample_track_(c, i, 0, BSYNC_LOOP_CLAMP, NULL, &q), BSYNC_INVALID_ARGUMENT);
    }
    assert_memory_equal(&v, &v0, sizeof v); /* nothing written */
    assert_memory_equal(&q, &q0, sizeof q);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_clips),
        cmocka_unit_test(test_humanoid_clips),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
