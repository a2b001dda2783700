/* test_sample_rule.c — bsync_clip_sample against the sampling rule of sample.h written out here from
 * the public fixed-point functions alone (a linear key scan, bsync_fx_div, bsync_vec3_lerp,
 * bsync_quat_nlerp), bit for bit, with and without a cursor, at every key time, between keys and at
 * random times in both loop modes. The sampler's fast paths (the cursor, the shared key-time grid,
 * plain keys, and the equal-key shortcut for held tracks) must all reproduce that rule exactly.
 * Clips: a synthetic one with held tracks (two equal keys: translation, scale and a rotation key that is
 * not unit, as a clip block from a file may hold: the case where the held-rotation shortcut must normalise)
 * next to animated ones, and ozz-animation's pab runtime clips from the shared data when present
 * (63 of 67 translation and 44 of 67 rotation tracks of walk are held). Every comparison runs on every
 * SIMD path this machine supports (blendsync/simd.h: the scalar reference and AVX2), each against the
 * rule, and through a sample plan (bsync_clip_sample_planned, with and without a cursor) as well.
 * The lerp samplers (bsync_clip_sample_lerp / _planned_lerp, pose rule 2) are compared the same way
 * with their rule (test_support.c: the hemisphere-aligned bsync_fx_lerp of the keys, not normalised),
 * and with the normalising sampler: the same translations and scales, and each rotation either the
 * same or one whose bsync_quat_normalize is the normalising sampler's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "blendsync/clip.h"
#include "blendsync/io/asset.h"
#include "blendsync/pose.h"
#include "blendsync/sample.h"
#include "blendsync/simd.h"
#include "blendsync/skeleton.h"
#include "test_support.h"

/* Compare the sampler (no cursor, and one cursor played forward) with the rule at `count` times. */
static long compare_clip_path(const bsync_clip* c, const bsync_skeleton* sk, const fix16_t* times, size_t count) {
    const uint32_t J = bsync_skeleton_joint_count(sk);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    bsync_trs* want = malloc(sizeof(bsync_trs) * J);
    bsync_trs* got = malloc(sizeof(bsync_trs) * J);
    bsync_trs* got_cursor = malloc(sizeof(bsync_trs) * J);
    const size_t cs = bsync_sample_cursor_memory_size(c);
    uint64_t* cmem = malloc(cs + 8);
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cmem, cs, c, &cur), BSYNC_OK);
    /* a plan over the same rest pose, sampled without a cursor and with its own cursor */
    const size_t ps = bsync_sample_plan_memory_size(c);
    assert_true(ps > 0);
    uint64_t* pmem = malloc(ps);
    uint64_t* cmem2 = malloc(cs + 8);
    bsync_sample_plan* plan = NULL;
    bsync_sample_cursor* cur2 = NULL;
    assert_int_equal(bsync_sample_plan_init(pmem, ps, c, rest, J, &plan), BSYNC_OK);
    assert_int_equal(bsync_sample_plan_validate(plan, c, rest, J), BSYNC_OK);
    assert_int_equal(bsync_sample_cursor_init(cmem2, cs, c, &cur2), BSYNC_OK);
    bsync_trs* got_plan = malloc(sizeof(bsync_trs) * J);
    bsync_trs* got_plan_cursor = malloc(sizeof(bsync_trs) * J);
    bsync_trs* want_lerp = malloc(sizeof(bsync_trs) * J);
    bsync_trs* got_lerp[4];
    for (int k = 0; k < 4; k++) got_lerp[k] = malloc(sizeof(bsync_trs) * J);
    long compared = 0, lerp_differs = 0;
    for (int m = 0; m < 2; m++) {
        const bsync_loop_mode mode = m ? BSYNC_LOOP_WRAP : BSYNC_LOOP_CLAMP;
        for (size_t i = 0; i < count; i++) {
            bsync_test_rule_sample(c, times[i], mode, rest, J, want);
            assert_int_equal(bsync_clip_sample(c, times[i], mode, rest, J, NULL, got), BSYNC_OK);
            assert_int_equal(bsync_clip_sample(c, times[i], mode, rest, J, cur, got_cursor), BSYNC_OK);
            assert_int_equal(bsync_clip_sample_planned(plan, c, times[i], mode, NULL, got_plan), BSYNC_OK);
            assert_int_equal(bsync_clip_sample_planned(plan, c, times[i], mode, cur2, got_plan_cursor), BSYNC_OK);
            /* the lerp samplers (pose rule 2) against their rule, and their relation to the normalising ones */
            bsync_test_rule_sample_lerp(c, times[i], mode, rest, J, want_lerp);
            assert_int_equal(bsync_clip_sample_lerp(c, times[i], mode, rest, J, NULL, got_lerp[0]), BSYNC_OK);
            assert_int_equal(bsync_clip_sample_lerp(c, times[i], mode, rest, J, cur, got_lerp[1]), BSYNC_OK);
            assert_int_equal(bsync_clip_sample_planned_lerp(plan, c, times[i], mode, NULL, got_lerp[2]), BSYNC_OK);
            assert_int_equal(bsync_clip_sample_planned_lerp(plan, c, times[i], mode, cur2, got_lerp[3]), BSYNC_OK);
            for (uint32_t j = 0; j < J; j++) {
                for (int k = 0; k < 4; k++)
                    if (memcmp(&want_lerp[j], &got_lerp[k][j], sizeof want_lerp[j]))
                        fail_msg("joint %u at time %d (mode %d): lerp sampler %d differs from its rule", (unsigned)j,
                                 (int)times[i], m, k);
                /* translation and scale as the normalising sampler; the rotation its normalisation or itself */
                assert_memory_equal(&want_lerp[j].t, &want[j].t, sizeof want[j].t);
                assert_memory_equal(&want_lerp[j].s, &want[j].s, sizeof want[j].s);
                const bsync_quat n = bsync_quat_normalize(want_lerp[j].r);
                if (memcmp(&want_lerp[j].r, &want[j].r, sizeof n)) {
                    assert_memory_equal(&n, &want[j].r, sizeof n);
                    lerp_differs++;
                }
                if (memcmp(&want[j], &got[j], sizeof want[j]) || memcmp(&want[j], &got_cursor[j], sizeof want[j]))
                    fail_msg("joint %u at time %d (mode %d): the sampler differs from sample.h's rule", (unsigned)j,
                             (int)times[i], m);
                if (memcmp(&want[j], &got_plan[j], sizeof want[j]) || memcmp(&want[j], &got_plan_cursor[j], sizeof want[j]))
                    fail_msg("joint %u at time %d (mode %d): the planned sampler differs from sample.h's rule",
                             (unsigned)j, (int)times[i], m);
                compared++;
            }
        }
    }
    /* between keys the lerp is not unit in general: the comparison above saw such rotations */
    if (count > 16) assert_true(lerp_differs > 0);
    free(want_lerp);
    for (int k = 0; k < 4; k++) free(got_lerp[k]);
    free(want);
    free(got);
    free(got_cursor);
    free(got_plan);
    free(got_plan_cursor);
    free(cmem);
    free(cmem2);
    free(pmem);
    return compared;
}

/* compare_clip_path on every supported SIMD path; returns the comparisons of one path (each path must
 * make as many). */
static long compare_clip(const bsync_clip* c, const bsync_skeleton* sk, const fix16_t* times, size_t count) {
    static const bsync_simd_path paths[] = {BSYNC_SIMD_SCALAR, BSYNC_SIMD_AVX2, BSYNC_SIMD_AVX512, BSYNC_SIMD_NEON};
    long first = -1;
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!bsync_simd_supported(paths[p])) continue;
        assert_int_equal(bsync_simd_set(paths[p]), BSYNC_OK);
        const long n = compare_clip_path(c, sk, times, count);
        if (first >= 0) assert_int_equal(n, first);
        first = n;
    }
    assert_int_equal(bsync_simd_set(BSYNC_SIMD_AUTO), BSYNC_OK);
    return first;
}

/* Every key time, the raw steps around each, the midpoints, then random times in [-d, 2d]. */
static size_t make_times(const bsync_clip* c, fix16_t* out, size_t cap, uint64_t seed) {
    size_t n = 0;
    for (uint32_t i = 0; i < bsync_clip_track_count(c) && n + 8 < cap / 2; i++) {
        bsync_track_info tr;
        bsync_clip_track_info(c, i, &tr);
        for (uint32_t k = 0; k < tr.key_count && n + 4 < cap / 2; k++) {
            out[n++] = tr.times[k];
            out[n++] = tr.times[k] - 1;
            out[n++] = tr.times[k] + 1;
            if (k + 1 < tr.key_count) out[n++] = tr.times[k] + (tr.times[k + 1] - tr.times[k]) / 2;
        }
    }
    const fix16_t d = bsync_clip_duration(c);
    while (n < cap) {
        const uint64_t r = bsync_test_rand(&seed);
        out[n++] = (fix16_t)((int64_t)(r % (uint64_t)(3 * (int64_t)d + 1)) - d);
    }
    /* forward playback for the cursor: sorted */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            const fix16_t x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return n;
}

/* A chain of J joints (each the child of the one before) with identity rest transforms, named
 * names[j], or "j<index>" when names is NULL. */
static bsync_skeleton* chain_skeleton(uint32_t J, const char* const* names) {
    enum { CAP = 32 };
    bsync_joint_desc joints[CAP];
    static char made[CAP][16];
    assert_true(J <= CAP);
    for (uint32_t j = 0; j < J; j++) {
        snprintf(made[j], sizeof made[j], "j%u", (unsigned)j);
        joints[j].name = names ? names[j] : made[j];
        joints[j].parent = (int32_t)j - 1;
        joints[j].rest = bsync_trs_identity();
    }
    bsync_skeleton_desc sd = {joints, J};
    bsync_skeleton* sk = NULL;
    assert_int_equal(bsync_skeleton_create(&sd, NULL, &sk), BSYNC_OK);
    return sk;
}

static void test_synthetic_held_tracks(void** state) {
    (void)state;
    enum { J = 4 };
    static const char* const names[J] = {"root", "a", "b", "c"};
    bsync_skeleton* sk = chain_skeleton(J, names);
    /* The builder normalises rotation keys, but a clip block read from a file (bsync_clip_block_validate
     * accepts any non-zero key) may hold keys that are not unit: the held track's keys are overwritten
     * below with such a key, so between its keys the rule gives normalize(key) != key, and at them the
     * key itself. */
    const bsync_quat moved = bsync_quat_make(1000, -2000, 3000, 40000);
    const bsync_quat nm = bsync_quat_normalize(moved);
    assert_memory_not_equal(&nm, &moved, sizeof nm);

    const fix16_t two[2] = {6554, 52429}; /* 0.1 s .. 0.8 s of a 1 s clip: before, between, after */
    const fix16_t five[5] = {0, 16384, 32768, 49152, 65536};
    const bsync_vec3 held_t[2] = {{70000, -3, 12}, {70000, -3, 12}};
    const bsync_vec3 held_s[2] = {{65536, 65536, 65536}, {65536, 65536, 65536}};
    const bsync_vec3 moving_t[2] = {{0, 0, 0}, {-65536, 131072, 7}};
    const bsync_quat held_r[2] = {moved, moved};
    bsync_quat anim_r[5];
    bsync_vec3 anim_t[5];
    for (int k = 0; k < 5; k++) {
        anim_r[k] = bsync_quat_from_axis_angle(bsync_vec3_make(0, 65536, 0), 20000 * k);
        anim_t[k] = bsync_vec3_make(1000 * k, k == 2 ? 1000 : 0, 0); /* keys 0/1 and 3/4 differ, 1->2->3 too */
    }
    anim_t[4] = anim_t[3]; /* an equal pair inside a longer track */
    const bsync_raw_track tracks[] = {
        {0, BSYNC_TRACK_TRANSLATION, 5, five, anim_t, NULL}, {0, BSYNC_TRACK_ROTATION, 5, five, NULL, anim_r},
        {1, BSYNC_TRACK_TRANSLATION, 2, two, held_t, NULL},  {1, BSYNC_TRACK_ROTATION, 2, two, NULL, held_r},
        {1, BSYNC_TRACK_SCALE, 2, two, held_s, NULL},        {2, BSYNC_TRACK_TRANSLATION, 2, two, moving_t, NULL},
        {3, BSYNC_TRACK_ROTATION, 2, five + 1, NULL, held_r},
    };
    bsync_clip_desc cd = {"held", 65536, 1, tracks, sizeof tracks / sizeof tracks[0]};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &c), BSYNC_OK);
    for (uint32_t i = 0; i < bsync_clip_track_count(c); i++) { /* the held rotation tracks: not-unit keys */
        bsync_track_info tr;
        assert_int_equal(bsync_clip_track_info(c, i, &tr), BSYNC_OK);
        if (tr.kind != BSYNC_TRACK_ROTATION || tr.key_count != 2) continue;
        bsync_quat* keys = (bsync_quat*)(uintptr_t)tr.quats; /* our own block's memory */
        keys[0] = keys[1] = moved;
    }
    static fix16_t times[4000];
    const size_t n = make_times(c, times, 4000, 7);
    const long compared = compare_clip(c, sk, times, n);
    print_message("synthetic held tracks: %ld joint samples identical to the rule\n", compared);
    assert_int_equal(compared, 2L * 4000 * 4); /* 2 modes, 4000 times, 4 joints */

    /* and the held rotation really is normalised between its keys, the key itself at them */
    bsync_trs out[J];
    assert_int_equal(bsync_clip_sample(c, 30000, BSYNC_LOOP_CLAMP, bsync_skeleton_rest_pose(sk), J, NULL, out), BSYNC_OK);
    assert_memory_equal(&out[1].r, &nm, sizeof nm);
    assert_int_equal(bsync_clip_sample(c, 6554, BSYNC_LOOP_CLAMP, bsync_skeleton_rest_pose(sk), J, NULL, out), BSYNC_OK);
    assert_memory_equal(&out[1].r, &moved, sizeof moved);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

/* The planned sampler's batch of interpolated rotations (sample.c, bsync_simd_lerp_rotations_) and the
 * cases it leaves to the per-track code: intervals of 5 s (the weight rounds to 0 just after a key and to
 * 1 just before the next: a raw step is under half a weight step) and of 20 s (past bsync_fx_div's
 * 2^20-raw branch), a pair of keys 2 raw steps apart, tracks of 2, 6 and 9 keys, keys in opposite
 * hemispheres (negated in turn: the flip), orthogonal keys (an exact dot of 0: the lexicographic rule
 * decides; the last joint), and keys that are not small (a component of 2^30 or more, as a block from a
 * file may hold; joints 0 and 1), twenty joints so that a call batches from one to twenty rotations. The
 * vector kernels redo a group (four or eight jobs) with such a case by the scalar rule, so these cases
 * sit at the two ends and the groups between them are the vector code's own. */
static void test_synthetic_batch_edges(void** state) {
    (void)state;
    enum { J = 20, K = 9 };
    bsync_skeleton* sk = chain_skeleton(J, NULL);
    const fix16_t S = 65536;
    const fix16_t long_times[6] = {0, S, 6 * S, 26 * S, 26 * S + 2, 40 * S};
    fix16_t even_times[K];
    for (int k = 0; k < K; k++) even_times[k] = 5 * S * k;
    const fix16_t two_times[2] = {0, 12 * S};
    static bsync_quat keys[J][K];
    bsync_raw_track tracks[J];
    for (int j = 0; j < J; j++) {
        const uint32_t n = j % 3 == 0 ? 6u : (j % 3 == 1 ? (uint32_t)K : 2u);
        for (uint32_t k = 0; k < n; k++)
            keys[j][k] = bsync_quat_from_axis_angle(bsync_vec3_make(65536, (fix16_t)(j * 5000), 3000), (fix16_t)(j * 7000 + (int)k * 23000));
        tracks[j] = (bsync_raw_track){(uint32_t)j, BSYNC_TRACK_ROTATION, n,
                                      j % 3 == 0 ? long_times : (j % 3 == 1 ? even_times : two_times), NULL, keys[j]};
    }
    bsync_clip_desc cd = {"batch", 40 * S, 1, tracks, J};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &c), BSYNC_OK);
    /* The builder aligns neighbouring keys to one hemisphere; a block from a file need not be: the keys
     * are overwritten in the block (our own memory) for the cases above. */
    for (uint32_t i = 0; i < bsync_clip_track_count(c); i++) {
        bsync_track_info tr;
        assert_int_equal(bsync_clip_track_info(c, i, &tr), BSYNC_OK);
        bsync_quat* q = (bsync_quat*)(uintptr_t)tr.quats;
        for (uint32_t k = 0; k < tr.key_count; k++) {
            if (tr.joint >= 2 && tr.joint <= J - 4 && (k & 1)) q[k] = bsync_quat_neg(q[k]); /* the other hemisphere: the flip */
            if (tr.joint == J - 1) /* orthogonal keys: b's first nonzero component decides (b = -z: a flip) */
                q[k] = k ? bsync_quat_make(0, 0, -65536, 0) : bsync_quat_make(65536, 0, 0, 0);
            if (tr.joint == 0) /* not small, no flip (the exact dot is positive), b.x - a.x beyond int32 */
                q[k] = bsync_quat_make((k & 1) ? -(1 << 30) - 1 : INT32_MAX, INT32_MAX, 0, (fix16_t)k);
            if (tr.joint == 1) /* not small, in one hemisphere */
                q[k] = bsync_quat_make((fix16_t)(1 << 30) - (fix16_t)(k & 1), 5000 * (fix16_t)k, -7, -(1 << 30));
        }
    }
    static fix16_t times[6000];
    const size_t n = make_times(c, times, 6000, 11);
    const long compared = compare_clip(c, sk, times, n);
    print_message("synthetic batch edges: %ld joint samples identical to the rule\n", compared);
    assert_int_equal(compared, 2L * 6000 * J); /* 2 modes, 6000 times, J joints */
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

/* One key-time grid for every track (the cursor's one-search path), with equal neighbouring keys in
 * the middle of tracks (held spans): translation, scale and a rotation pair that is not unit. */
static void test_synthetic_shared_grid(void** state) {
    (void)state;
    enum { J = 3, K = 6 };
    static const char* const names[J] = {"root", "a", "b"};
    bsync_skeleton* sk = chain_skeleton(J, names);
    const fix16_t grid[K] = {0, 9000, 20000, 33000, 50000, 65536};
    bsync_vec3 tv[K], sv[K];
    bsync_quat rv[K], rv2[K];
    for (int k = 0; k < K; k++) {
        tv[k] = bsync_vec3_make(k < 3 ? 5000 : 9000 * k, -k, 3); /* keys 0..2 held */
        sv[k] = bsync_vec3_make(65536, k == 4 ? 70000 : 65536, 65536); /* held except around key 4 */
        rv[k] = bsync_quat_from_axis_angle(bsync_vec3_make(0, 0, 65536), k >= 2 && k <= 4 ? 30000 : 9000 * k);
        rv2[k] = bsync_quat_from_axis_angle(bsync_vec3_make(65536, 0, 0), 12000 * k);
    }
    const bsync_raw_track tracks[] = {
        {0, BSYNC_TRACK_TRANSLATION, K, grid, tv, NULL}, {0, BSYNC_TRACK_ROTATION, K, grid, NULL, rv},
        {1, BSYNC_TRACK_SCALE, K, grid, sv, NULL},       {2, BSYNC_TRACK_ROTATION, K, grid, NULL, rv2},
    };
    bsync_clip_desc cd = {"grid", 65536, 1, tracks, sizeof tracks / sizeof tracks[0]};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &c), BSYNC_OK);
    /* the held span of joint 0's rotation (keys 2..4) gets a key that is not unit (a file's block may) */
    bsync_track_info tr;
    assert_int_equal(bsync_clip_track_info(c, 1, &tr), BSYNC_OK);
    assert_int_equal(tr.kind, BSYNC_TRACK_ROTATION);
    bsync_quat* keys = (bsync_quat*)(uintptr_t)tr.quats;
    keys[2] = keys[3] = keys[4] = bsync_quat_make(-3000, 1000, 20000, 50000);
    uint64_t cmem[64];
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cmem, sizeof cmem, c, &cur), BSYNC_OK);
    assert_int_equal(bsync_sample_cursor_shares_times(cur), 1); /* the path this test is for */
    static fix16_t times[3000];
    const size_t n = make_times(c, times, 3000, 11);
    const long compared = compare_clip(c, sk, times, n);
    print_message("shared key-time grid: %ld joint samples identical to the rule\n", compared);
    assert_int_equal(compared, 2L * 3000 * J);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

/* ozz-animation's pab runtime clips from the shared data: 1, or 0 after skip() when absent. */
static int load_pab(bsync_asset* a) {
    const char* path = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf");
    bsync_error err;
    if (!path || bsync_asset_import_file(path, NULL, a, &err) != BSYNC_OK) {
        print_message("pab runtime data absent: skipped\n");
        skip();
        return 0;
    }
    return 1;
}

static void test_pab_runtime_clips(void** state) {
    (void)state;
    bsync_asset a;
    if (!load_pab(&a)) return;
    assert_int_equal(a.clip_count, 3);
    long compared = 0;
    static fix16_t times[6000];
    for (uint32_t i = 0; i < a.clip_count; i++) {
        const size_t n = make_times(a.clips[i], times, 6000, 100 + i);
        compared += compare_clip(a.clips[i], a.skeleton, times, n);
    }
    print_message("pab runtime clips: %ld joint samples identical to the rule\n", compared);
    assert_int_equal(compared, 3L * 2 * 6000 * 67); /* 3 clips, 2 modes, 6000 times, 67 joints */
    bsync_asset_destroy(&a);
}


/* Pose rule 2 against rule 1 on pab (graph.h "Pose rules"): the issue-17 workload's blends of walk, jog
 * and run (weights max(0, 1 - |b - i/2|) for b over [0, 1], phase over one cycle), sampled and blended
 * both ways. Translations and scales are the same; rotations differ by at most ROT_BOUND: the error
 * ozz-animation's keyframe optimiser accepts when it makes these very runtime keys (its defaults: 1 mm
 * at 10 cm from the joint, 0.01 rad), so rule 2 stays within what the data's own reduction allows.
 * (Rule 2 weighs each interval's lerp by its length, cos of half the angle between its two keys; these
 * key-reduced clips have long intervals, which is where the two rules part most.) */
#define ROT_BOUND 0.01
static void test_pab_rule2_close_to_rule1(void** state) {
    (void)state;
    bsync_asset a;
    if (!load_pab(&a)) return;
    const uint32_t J = bsync_skeleton_joint_count(a.skeleton);
    const bsync_trs* rest = bsync_skeleton_rest_pose(a.skeleton);
    bsync_trs* s1 = malloc(sizeof(bsync_trs) * J * 3);
    bsync_trs* s2 = malloc(sizeof(bsync_trs) * J * 3);
    bsync_trs* p1 = malloc(sizeof(bsync_trs) * J);
    bsync_trs* p2 = malloc(sizeof(bsync_trs) * J);
    double worst = 0, sum = 0;
    long n = 0, differ = 0;
    for (int bi = 0; bi <= 20; bi++) {
        const double b = bi / 20.0;
        bsync_pose_input in1[3], in2[3];
        double w[3], tot = 0;
        for (int i = 0; i < 3; i++) tot += w[i] = fmax(0, 1 - fabs(b - i / 2.0));
        for (int ph = 0; ph < 240; ph++) {
            for (int i = 0; i < 3; i++) {
                const fix16_t t = (fix16_t)((int64_t)bsync_clip_duration(a.clips[i]) * ph / 240);
                assert_int_equal(bsync_clip_sample(a.clips[i], t, BSYNC_LOOP_WRAP, rest, J, NULL, s1 + (size_t)i * J), BSYNC_OK);
                assert_int_equal(bsync_clip_sample_lerp(a.clips[i], t, BSYNC_LOOP_WRAP, rest, J, NULL, s2 + (size_t)i * J),
                                 BSYNC_OK);
                in1[i].local = s1 + (size_t)i * J;
                in2[i].local = s2 + (size_t)i * J;
                in1[i].weight = in2[i].weight = (fix16_t)lround(w[i] / tot * 65536.0);
                in1[i].joint_weights = in2[i].joint_weights = NULL;
            }
            assert_int_equal(bsync_pose_blend(rest, J, in1, 3, p1), BSYNC_OK);
            assert_int_equal(bsync_pose_blend_lerped(rest, J, in2, 3, p2), BSYNC_OK);
            for (uint32_t j = 0; j < J; j++) {
                assert_memory_equal(&p1[j].t, &p2[j].t, sizeof p1[j].t);
                assert_memory_equal(&p1[j].s, &p2[j].s, sizeof p1[j].s);
                const double d = bsync_test_quat_angle(p1[j].r, p2[j].r);
                differ += memcmp(&p1[j].r, &p2[j].r, sizeof p1[j].r) != 0;
                if (d > worst) worst = d;
                sum += d;
                n++;
            }
        }
    }
    print_message("pab, rule 2 vs rule 1: %ld of %ld blended rotations differ; max %.3g rad, mean %.3g rad\n", differ, n,
                  worst, sum / (double)n);
    assert_true(differ > 0);
    assert_true(worst < ROT_BOUND);
    free(s1);
    free(s2);
    free(p1);
    free(p2);
    bsync_asset_destroy(&a);
}

/* The plan's contract: refusals, writes nothing on failure, and what it holds for pab (most tracks
 * constant). */
static void test_plan_contract(void** state) {
    (void)state;
    enum { J = 2 };
    bsync_joint_desc joints[J] = {{"root", -1, bsync_trs_identity()}, {"a", 0, bsync_trs_identity()}};
    bsync_skeleton_desc sd = {joints, J};
    bsync_skeleton* sk = NULL;
    assert_int_equal(bsync_skeleton_create(&sd, NULL, &sk), BSYNC_OK);
    const fix16_t two[2] = {0, 65536}, one[1] = {30000};
    const bsync_vec3 tv[2] = {{0, 0, 0}, {65536, 0, 0}}, sv[1] = {{70000, 65536, 65536}};
    const bsync_quat rq[2] = {bsync_quat_identity(), bsync_quat_from_axis_angle(bsync_vec3_make(0, 65536, 0), 50000)};
    const bsync_raw_track tracks[] = {{0, BSYNC_TRACK_TRANSLATION, 2, two, tv, NULL},
                                      {1, BSYNC_TRACK_ROTATION, 2, two, NULL, rq},
                                      {1, BSYNC_TRACK_SCALE, 1, one, sv, NULL}};
    bsync_clip_desc cd = {"c", 65536, 1, tracks, 3};
    bsync_clip *c = NULL, *c2 = NULL;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &c), BSYNC_OK);
    cd.duration = 70000;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &c2), BSYNC_OK);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    const size_t ps = bsync_sample_plan_memory_size(c);
    assert_int_equal(bsync_sample_plan_memory_size(NULL), 0);
    /* header + 2 transforms + 2 listed tracks (the one-key scale is constant), rounded to 8 */
    assert_int_equal(ps, (32 + 2 * sizeof(bsync_trs) + 2 * 2 + 7) & ~(size_t)7);
    uint64_t mem[64];
    bsync_sample_plan* plan = NULL;
    assert_int_equal(bsync_sample_plan_init(NULL, ps, c, rest, J, &plan), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_sample_plan_init((char*)mem + 4, ps, c, rest, J, &plan), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_sample_plan_init(mem, ps - 1, c, rest, J, &plan), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_sample_plan_init(mem, ps, c, rest, J + 1, &plan), BSYNC_MISMATCH);
    assert_null(plan);
    assert_int_equal(bsync_sample_plan_init(mem, ps, c, rest, J, &plan), BSYNC_OK);
    assert_int_equal(bsync_sample_plan_validate(plan, c, rest, J), BSYNC_OK);
    assert_int_equal(bsync_sample_plan_validate(plan, c2, rest, J), BSYNC_MISMATCH); /* other content */
    assert_int_equal(bsync_sample_plan_validate(NULL, c, rest, J), BSYNC_INVALID_ARGUMENT);
    bsync_trs other[J] = {rest[0], rest[1]};
    other[1].t.y = 1;
    assert_int_equal(bsync_sample_plan_validate(plan, c, other, J), BSYNC_MISMATCH); /* other rest values */
    bsync_trs out[J], before[J];
    memset(out, 0x33, sizeof out);
    memcpy(before, out, sizeof out);
    assert_int_equal(bsync_clip_sample_planned(plan, c2, 100, BSYNC_LOOP_WRAP, NULL, out), BSYNC_MISMATCH);
    assert_int_equal(bsync_clip_sample_planned(plan, c, 100, (bsync_loop_mode)7, NULL, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_sample_planned(NULL, c, 100, BSYNC_LOOP_WRAP, NULL, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_sample_planned(plan, c, 100, BSYNC_LOOP_WRAP, NULL, (bsync_trs*)(void*)mem),
                     BSYNC_INVALID_ARGUMENT); /* the output over the plan */
    uint64_t cm[16];
    bsync_sample_cursor* cur2 = NULL;
    assert_int_equal(bsync_sample_cursor_init(cm, sizeof cm, c2, &cur2), BSYNC_OK);
    assert_int_equal(bsync_clip_sample_planned(plan, c, 100, BSYNC_LOOP_WRAP, cur2, out), BSYNC_MISMATCH);
    assert_memory_equal(out, before, sizeof out); /* nothing written on failure */
    /* and the samples themselves: the scale (one key) from the plan, the rest computed */
    bsync_trs want[J];
    for (fix16_t t = -70000; t < 140000; t += 777) {
        assert_int_equal(bsync_clip_sample_planned(plan, c, t, BSYNC_LOOP_CLAMP, NULL, out), BSYNC_OK);
        assert_int_equal(bsync_clip_sample(c, t, BSYNC_LOOP_CLAMP, rest, J, NULL, want), BSYNC_OK);
        assert_memory_equal(out, want, sizeof out);
        assert_int_equal(out[1].s.x, 70000);
    }
    bsync_clip_destroy(c);
    bsync_clip_destroy(c2);
    bsync_skeleton_destroy(sk);

    /* pab: how much of each clip a plan takes off the per-call work */
    const char* path = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf");
    bsync_asset a;
    bsync_error err;
    if (!path || bsync_asset_import_file(path, NULL, &a, &err) != BSYNC_OK) return;
    for (uint32_t i = 0; i < a.clip_count; i++) {
        const size_t n = bsync_sample_plan_memory_size(a.clips[i]);
        const uint32_t tracks_n = bsync_clip_track_count(a.clips[i]);
        const size_t listed = (n - 32 - 67 * sizeof(bsync_trs)) / 2; /* up to the rounding */
        print_message("pab %s: %u tracks, plan %zu bytes, about %zu tracks sampled per call\n", bsync_clip_name(a.clips[i]),
                      (unsigned)tracks_n, n, listed);
        assert_true(listed < tracks_n / 3); /* most of pab's tracks are constant */
    }
    bsync_asset_destroy(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic_held_tracks),
        cmocka_unit_test(test_synthetic_batch_edges),
        cmocka_unit_test(test_synthetic_shared_grid),
        cmocka_unit_test(test_pab_runtime_clips),
        cmocka_unit_test(test_pab_rule2_close_to_rule1),
        cmocka_unit_test(test_plan_contract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
