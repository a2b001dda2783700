/* test_procedural.c — the built-in humanoid: structure, closed loops, speeds and symmetry, checked
 * against what procedural.h promises (independent expectations: joint names and counts, metres, the
 * stated root speeds, mirror symmetry of a gait half a cycle apart). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "test_support.h"

static bsync_procedural_humanoid g_h;

static int setup(void** state) {
    (void)state;
    return bsync_procedural_humanoid_create(NULL, &g_h) == BSYNC_OK ? 0 : -1;
}
static int teardown(void** state) {
    (void)state;
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

static void test_skeleton_structure(void** state) {
    (void)state;
    const bsync_skeleton* sk = g_h.skeleton;
    assert_int_equal(bsync_skeleton_joint_count(sk), 23);
    static const char* names[] = {"root", "pelvis", "spine_01", "spine_02", "chest", "neck", "head",
                                  "hand_l", "hand_r", "foot_l", "foot_r", "toe_l", "toe_r"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        uint32_t idx = 999;
        assert_int_equal(bsync_skeleton_find(sk, names[i], &idx), BSYNC_OK);
        assert_string_equal(bsync_skeleton_joint_name(sk, idx), names[i]);
    }
    assert_int_equal(bsync_skeleton_parent(sk, 0), BSYNC_NO_PARENT);
    for (uint32_t j = 1; j < 23; j++) assert_true(bsync_skeleton_parent(sk, j) < (int32_t)j);
    /* the pelvis rests 0.95 m above the root: round(0.95 * 65536) = 62259 */
    uint32_t pelvis = 0;
    bsync_skeleton_find(sk, "pelvis", &pelvis);
    assert_int_equal(bsync_skeleton_rest_pose(sk)[pelvis].t.y, 62259);
}

static void test_clips_are_named_closed_loops(void** state) {
    (void)state;
    static const char* names[] = {"idle", "walk", "run"};
    static const int32_t durations[] = {2 * 65536, 65536, 45875 /* round(0.7 * 65536) */};
    bsync_trs a[23], b[23];
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_h.skeleton);
    for (int c = 0; c < BSYNC_PROCEDURAL_CLIP_COUNT; c++) {
        const bsync_clip* clip = g_h.clips[c];
        assert_string_equal(bsync_clip_name(clip), names[c]);
        assert_int_equal(bsync_clip_duration(clip), durations[c]);
        assert_true(bsync_clip_loops(clip));
        /* the last key repeats the first pose: sampling (clamped) at 0 and at the duration agree on
         * every rotation */
        assert_int_equal(bsync_clip_sample(clip, 0, BSYNC_LOOP_CLAMP, rest, 23, NULL, a), BSYNC_OK);
        assert_int_equal(bsync_clip_sample(clip, durations[c], BSYNC_LOOP_CLAMP, rest, 23, NULL, b), BSYNC_OK);
        for (int j = 1; j < 23; j++) assert_memory_equal(&a[j].r, &b[j].r, sizeof a[j].r);
    }
}

static void test_root_speeds(void** state) {
    (void)state;
    /* root z after one cycle = speed * duration: walk 1.4 m/s * 1 s, run 3.5 m/s * 0.7 s = 2.45 m */
    static const double want[] = {0.0, 1.4, 2.45};
    bsync_trs p[23];
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_h.skeleton);
    for (int c = 0; c < 3; c++) {
        const bsync_clip* clip = g_h.clips[c];
        assert_int_equal(bsync_clip_sample(clip, bsync_clip_duration(clip), BSYNC_LOOP_CLAMP, rest, 23, NULL, p),
                         BSYNC_OK);
        assert_true(fabs(bsync_fx_to_double(p[0].t.z) - want[c]) < 1e-3);
    }
    assert_int_equal(BSYNC_PROCEDURAL_SPEED_WALK, (int32_t)lround(1.4 * 65536));
    assert_int_equal(BSYNC_PROCEDURAL_SPEED_RUN, (int32_t)lround(3.5 * 65536));
}

static void test_gait_is_mirror_symmetric(void** state) {
    (void)state;
    /* half a cycle later the right thigh does what the left thigh did: same X rotation */
    uint32_t tl = 0, tr = 0;
    bsync_skeleton_find(g_h.skeleton, "thigh_l", &tl);
    bsync_skeleton_find(g_h.skeleton, "thigh_r", &tr);
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_h.skeleton);
    bsync_trs a[23], b[23];
    const bsync_clip* walk = g_h.clips[BSYNC_PROCEDURAL_WALK];
    for (int k = 0; k < 12; k++) {
        fix16_t t = (fix16_t)(k * 65536 / 24); /* on keys: 1 s cycle, 24 intervals */
        assert_int_equal(bsync_clip_sample(walk, t, BSYNC_LOOP_WRAP, rest, 23, NULL, a), BSYNC_OK);
        assert_int_equal(bsync_clip_sample(walk, t + 32768, BSYNC_LOOP_WRAP, rest, 23, NULL, b), BSYNC_OK);
        assert_true(abs(a[tl].r.x - b[tr].r.x) <= 64);
        assert_true(abs(a[tl].r.w - b[tr].r.w) <= 64);
    }
    /* and the thigh really swings: at a quarter cycle (sin = 1) about 28 degrees forward */
    assert_int_equal(bsync_clip_sample(walk, 16384, BSYNC_LOOP_WRAP, rest, 23, NULL, a), BSYNC_OK);
    double angle = 2.0 * atan2(bsync_fx_to_double(a[tl].r.x), bsync_fx_to_double(a[tl].r.w)) * 180.0 / 3.14159265358979323846;
    assert_true(fabs(angle + 28.0) < 0.1);
}

static void test_same_bits_every_time(void** state) {
    (void)state;
    bsync_procedural_humanoid h2;
    assert_int_equal(bsync_procedural_humanoid_create(NULL, &h2), BSYNC_OK);
    assert_int_equal(bsync_skeleton_block_size(h2.skeleton), bsync_skeleton_block_size(g_h.skeleton));
    for (int c = 0; c < 3; c++) {
        bsync_track_info x, y;
        assert_int_equal(bsync_clip_track_count(h2.clips[c]), bsync_clip_track_count(g_h.clips[c]));
        for (uint32_t t = 0; t < bsync_clip_track_count(h2.clips[c]); t++) {
            assert_int_equal(bsync_clip_track_info(h2.clips[c], t, &x), BSYNC_OK);
            assert_int_equal(bsync_clip_track_info(g_h.clips[c], t, &y), BSYNC_OK);
            assert_int_equal(x.key_count, y.key_count);
            assert_memory_equal(x.times, y.times, x.key_count * sizeof *x.times);
        }
    }
    bsync_procedural_humanoid_destroy(&h2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_skeleton_structure),
        cmocka_unit_test(test_clips_are_named_closed_loops),
        cmocka_unit_test(test_root_speeds),
        cmocka_unit_test(test_gait_is_mirror_symmetric),
        cmocka_unit_test(test_same_bits_every_time),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
