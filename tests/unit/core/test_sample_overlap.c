/* test_sample_overlap.c — bsync_clip_sample and bsync_clip_sample_lerp into an output that partly
 * overlaps the rest pose (shifted one joint down or up), the one case that samples joint by joint
 * (sample.c, sample_by_joint): bit for bit the rule written out (bsync_test_rule_sample, independent of
 * sample.c) and the sample into a separate output, with and without a cursor, in both loop modes, for
 * default and compact clips: random key counts and times, held two-key tracks with equal keys, one-key
 * tracks, joints without tracks, and clips whose tracks share one key-time grid (a cursor marked
 * shared). */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

#include "blendsync/clip.h"
#include "blendsync/sample.h"

#define J 7
#define MAXK 12

static fix16_t g_times[J][3][MAXK];
static bsync_vec3 g_vec[J][3][MAXK];
static bsync_quat g_quat[J][MAXK];
static bsync_raw_track g_tracks[J * 3];

static uint32_t rnd(uint64_t* s, uint32_t n) { return (uint32_t)(bsync_test_rand(s) % n); }

static bsync_skeleton* make_skeleton(void) {
    static const char* names[J] = {"root", "a", "b", "c", "d", "e", "f"};
    bsync_joint_desc j[J];
    for (uint32_t i = 0; i < J; i++) {
        j[i].name = names[i];
        j[i].parent = (int32_t)i - 1;
        j[i].rest.t = bsync_vec3_make((fix16_t)(i + 1) * 3000, -(fix16_t)i * 91, 7);
        j[i].rest.r = bsync_quat_make(0, 39322, 0, 52429); /* (0, 0.6, 0, 0.8) */
        j[i].rest.s = bsync_vec3_make(BSYNC_FX_ONE, BSYNC_FX_ONE + (fix16_t)i, BSYNC_FX_ONE);
    }
    bsync_skeleton_desc d = {j, J};
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_create(&d, NULL, &s), BSYNC_OK);
    return s;
}

/* Key times: `count` strictly ascending times in [0, duration] (count <= MAXK, duration >= MAXK). */
static void random_times(uint64_t* seed, fix16_t duration, uint32_t count, fix16_t* times) {
    fix16_t t = rnd(seed, 2) ? 0 : (fix16_t)rnd(seed, (uint32_t)duration / 4u);
    for (uint32_t k = 0; k < count; k++) {
        times[k] = t;
        const fix16_t room = (duration - t) / (fix16_t)(count - k) - 1;
        t += 1 + (room > 0 ? (fix16_t)rnd(seed, (uint32_t)room) : 0);
    }
}

/* A clip over the skeleton: each (joint, kind) tracked with probability 3/4, with 1 key, 2 equal keys
 * (held), or 2 to MAXK keys of random values; `grid`: every track on the same key times. */
static bsync_clip* make_clip(const bsync_skeleton* sk, uint64_t* seed, int grid) {
    const fix16_t duration = (fix16_t)(1 + rnd(seed, 3)) << 16;
    const uint32_t grid_count = 2 + rnd(seed, MAXK - 1);
    fix16_t grid_times[MAXK];
    random_times(seed, duration, grid_count, grid_times);
    uint32_t n = 0;
    for (uint32_t j = 0; j < J; j++) {
        for (uint32_t kind = 0; kind < 3; kind++) {
            if (rnd(seed, 4) == 0) continue;
            const uint32_t shape = rnd(seed, 3); /* 0: one key (not on a grid), 1: held, 2: random keys */
            const uint32_t count = grid ? grid_count : shape == 0 ? 1u : shape == 1 ? 2u : 2u + rnd(seed, MAXK - 1);
            fix16_t* times = g_times[j][kind];
            if (grid) memcpy(times, grid_times, sizeof grid_times);
            else random_times(seed, duration, count, times);
            for (uint32_t k = 0; k < count; k++) {
                const uint32_t from = shape == 1 && k > 0 ? 0 : k; /* held: every key the first one's value */
                if (from != k) {
                    g_quat[j][k] = g_quat[j][from];
                    g_vec[j][kind][k] = g_vec[j][kind][from];
                    continue;
                }
                const bsync_quat q = bsync_quat_make((fix16_t)rnd(seed, 131072) - 65536, (fix16_t)rnd(seed, 131072) - 65536,
                                                     (fix16_t)rnd(seed, 131072) - 65536, (fix16_t)rnd(seed, 131072) - 65535);
                g_quat[j][k] = rnd(seed, 2) ? bsync_quat_normalize(q) : q;
                g_vec[j][kind][k] = bsync_vec3_make((fix16_t)rnd(seed, 1u << 21) - (1 << 20),
                                                    (fix16_t)rnd(seed, 1u << 21) - (1 << 20), (fix16_t)rnd(seed, 1u << 18));
            }
            bsync_raw_track tr = {j, (bsync_track_kind)kind, count, times, g_vec[j][kind], g_quat[j]};
            g_tracks[n++] = tr;
        }
    }
    if (n == 0) { /* at least one track */
        g_times[0][0][0] = 0;
        g_vec[0][0][0] = bsync_vec3_make(1, 2, 3);
        bsync_raw_track tr = {0, BSYNC_TRACK_TRANSLATION, 1, g_times[0][0], g_vec[0][0], NULL};
        g_tracks[n++] = tr;
    }
    bsync_clip_desc d = {"overlap", duration, 1, g_tracks, n};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    return c;
}

typedef bsync_result (*sample_fn)(const bsync_clip*, fix16_t, bsync_loop_mode, const bsync_trs*, uint32_t,
                                  bsync_sample_cursor*, bsync_trs*);

/* One clip at time t: the rule, the separate output and both overlapping outputs agree bit for bit.
 * Returns the number of overlapping samples compared. */
static long check_at(const bsync_clip* c, const bsync_trs* rest, bsync_sample_cursor* cur, fix16_t t, bsync_loop_mode m,
                     int lerp) {
    const sample_fn fn = lerp ? bsync_clip_sample_lerp : bsync_clip_sample;
    bsync_trs want[J], got[J], buf[J + 1];
    if (lerp) bsync_test_rule_sample_lerp(c, t, m, rest, J, want);
    else bsync_test_rule_sample(c, t, m, rest, J, want);
    assert_int_equal(fn(c, t, m, rest, J, cur, got), BSYNC_OK);
    assert_memory_equal(got, want, sizeof want);
    memcpy(buf + 1, rest, sizeof want); /* output one joint below the rest pose */
    assert_int_equal(fn(c, t, m, buf + 1, J, cur, buf), BSYNC_OK);
    assert_memory_equal(buf, want, sizeof want);
    memcpy(buf, rest, sizeof want); /* output one joint above it */
    assert_int_equal(fn(c, t, m, buf, J, cur, buf + 1), BSYNC_OK);
    assert_memory_equal(buf + 1, want, sizeof want);
    return 2;
}

static long check_clip(const bsync_clip* c, const bsync_trs* rest, uint64_t* seed) {
    const size_t csize = bsync_sample_cursor_memory_size(c);
    uint64_t* cmem = calloc(1, csize);
    assert_non_null(cmem);
    bsync_sample_cursor* cur = NULL;
    assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, &cur), BSYNC_OK);
    const fix16_t d = bsync_clip_duration(c);
    long compared = 0;
    for (int i = 0; i < 200; i++) { /* random times, before, inside and after the clip */
        const fix16_t t = (fix16_t)rnd(seed, 3u * (uint32_t)d) - d;
        compared += check_at(c, rest, i & 2 ? cur : NULL, t, (bsync_loop_mode)(i & 1), (i >> 2) & 1);
    }
    for (fix16_t t = 0; t <= d + 100; t += 1 + (fix16_t)rnd(seed, 3000)) /* forward playback: the cursor's steps */
        compared += check_at(c, rest, cur, t, BSYNC_LOOP_CLAMP, (int)(t & 1));
    for (uint32_t i = 0; i < bsync_clip_track_count(c); i++) { /* at and next to every key */
        bsync_track_info info;
        assert_int_equal(bsync_clip_track_info(c, i, &info), BSYNC_OK);
        for (uint32_t k = 0; k < info.key_count; k++) {
            fix16_t kt;
            assert_int_equal(bsync_clip_track_key(c, i, k, &kt, NULL, NULL), BSYNC_OK);
            for (fix16_t dt = -1; dt <= 1; dt++) compared += check_at(c, rest, k & 1 ? cur : NULL, kt + dt, BSYNC_LOOP_CLAMP, (int)(k & 2));
        }
    }
    free(cmem);
    return compared;
}

static void test_overlapping_output(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton();
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    uint64_t seed = 20261207;
    long compared = 0, shared = 0;
    for (int rep = 0; rep < 24; rep++) {
        bsync_clip* c = make_clip(sk, &seed, rep % 3 == 0);
        bsync_clip* cc = NULL;
        assert_int_equal(bsync_clip_compact_create(c, NULL, &cc), BSYNC_OK);
        const size_t csize = bsync_sample_cursor_memory_size(c);
        uint64_t* cmem = calloc(1, csize);
        assert_non_null(cmem);
        bsync_sample_cursor* cur = NULL;
        assert_int_equal(bsync_sample_cursor_init(cmem, csize, c, &cur), BSYNC_OK);
        shared += bsync_sample_cursor_shares_times(cur);
        free(cmem);
        compared += check_clip(c, rest, &seed);
        compared += check_clip(cc, rest, &seed);
        bsync_clip_destroy(cc);
        bsync_clip_destroy(c);
    }
    print_message("overlapping outputs: %ld samples identical to the rule, %ld clips with shared times\n", compared, shared);
    assert_true(shared >= 4);
    assert_true(compared > 20000);
    bsync_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlapping_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
