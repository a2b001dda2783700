/* test_no_alloc_per_tick.c — the per-tick path (time, sampling, blending, local-to-model, checksums)
 * allocates nothing. Every malloc/calloc/realloc/free reference in the linked objects is redirected
 * to the counters below by -Wl,--wrap; the test first proves that the counters see the core's setup
 * allocations, then requires zero over 1,000 ticks. */
#include <stdlib.h>

#include "blendsync/checksum.h"
#include "blendsync/pose.h"
#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "blendsync/time.h"
#include "test_support.h"

void* __real_malloc(size_t size);
void* __real_calloc(size_t n, size_t size);
void* __real_realloc(void* p, size_t size);
void __real_free(void* p);
void* __wrap_malloc(size_t size);
void* __wrap_calloc(size_t n, size_t size);
void* __wrap_realloc(void* p, size_t size);
void __wrap_free(void* p);

static size_t g_calls; /* test-only counter */

void* __wrap_malloc(size_t size) { g_calls++; return __real_malloc(size); }
void* __wrap_calloc(size_t n, size_t size) { g_calls++; return __real_calloc(n, size); }
void* __wrap_realloc(void* p, size_t size) { g_calls++; return __real_realloc(p, size); }
void __wrap_free(void* p) { if (p) g_calls++; __real_free(p); }

enum { N = 23, TICKS = 1000 };

static void test_counter_sees_setup_allocations(void** state) {
    (void)state;
    size_t before = g_calls;
    bsync_procedural_humanoid h;
    assert_int_equal(bsync_procedural_humanoid_create(NULL, &h), BSYNC_OK);
    assert_true(g_calls >= before + 4); /* a skeleton and three clips, through the default allocator */
    bsync_procedural_humanoid_destroy(&h);
}

static void test_thousand_ticks_allocate_nothing(void** state) {
    (void)state;
    bsync_procedural_humanoid h;
    assert_int_equal(bsync_procedural_humanoid_create(NULL, &h), BSYNC_OK);
    assert_int_equal(bsync_skeleton_joint_count(h.skeleton), N);
    const bsync_trs* rest = bsync_skeleton_rest_pose(h.skeleton);
    static bsync_trs local[3][N], blended[N], additive[N], model[N];
    static uint64_t per_joint[N];
    static uint64_t cursor_mem[3][1024];
    bsync_sample_cursor* cursors[3];
    for (int c = 0; c < 3; c++) {
        assert_true(bsync_sample_cursor_memory_size(h.clips[c]) <= sizeof cursor_mem[c]);
        assert_int_equal(bsync_sample_cursor_init(cursor_mem[c], sizeof cursor_mem[c], h.clips[c], &cursors[c]),
                         BSYNC_OK);
    }
    static fix16_t mask[N];
    for (int j = 0; j < N; j++) mask[j] = j < 7 ? BSYNC_FX_ONE : BSYNC_FX_HALF;
    bsync_clip_time t = bsync_time_start();
    bsync_time_step step;
    assert_int_equal(bsync_time_step_init(bsync_clip_duration(h.clips[1]), BSYNC_FX_ONE, 30, &step), BSYNC_OK);

    size_t before = g_calls;
    uint64_t sum = 0;
    for (int i = 0; i < TICKS; i++) {
        bsync_pose_input in[3];
        for (int c = 0; c < 3; c++) {
            fix16_t d = bsync_clip_duration(h.clips[c]);
            assert_int_equal(bsync_clip_sample(h.clips[c], bsync_time_seconds(&t, d, BSYNC_LOOP_WRAP),
                                               BSYNC_LOOP_WRAP, rest, N, cursors[c], local[c]),
                             BSYNC_OK);
            in[c].local = local[c];
            in[c].weight = BSYNC_FX_ONE / 3;
            in[c].joint_weights = c == 2 ? mask : NULL;
        }
        assert_int_equal(bsync_pose_blend(rest, N, in, 3, blended), BSYNC_OK);
        assert_int_equal(bsync_pose_blend_additive(blended, local[0], rest, N, BSYNC_FX_HALF, mask, additive), BSYNC_OK);
        assert_int_equal(bsync_pose_local_to_model(bsync_skeleton_parents(h.skeleton), N, additive, 0, N, model),
                         BSYNC_OK);
        sum ^= bsync_checksum_pose(model, N);
        bsync_checksum_pose_joints(model, N, per_joint);
        bsync_time_advance(&t, &step);
    }
    size_t during = g_calls - before;
    bsync_procedural_humanoid_destroy(&h);
    assert_true(sum != 0);
    assert_int_equal(during, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_sees_setup_allocations),
        cmocka_unit_test(test_thousand_ticks_allocate_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
