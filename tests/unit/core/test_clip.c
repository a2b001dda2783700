/* test_clip.c — building clips (blendsync/clip.h): validation codes, sorting, normalising, sign
 * continuity, relocation and allocation. Sampling is in test_sample.c. */
#include "test_support.h"
#include "fixtures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/clip.h"

#define PI_D 3.14159265358979323846
#define FX(v) ((fix16_t)lround((v) * 65536.0))

/* a chain of n joints j0, j1, ... at their parents' origins, unrotated */
static bsync_skeleton* make_skeleton(uint32_t n) {
    static const char* const names[8] = {"j0", "j1", "j2", "j3", "j4", "j5", "j6", "j7"};
    return bsync_test_chain_skeleton(names, n, NULL);
}

static void* aligned_buffer(size_t size) {
    void* p = NULL;
    if (posix_memalign(&p, 8, size ? size : 8) != 0) return NULL;
    return p;
}

/* A 3-joint clip with tracks given out of order. */
static const fix16_t k_times3[3] = {0, BSYNC_FX_ONE, 2 * BSYNC_FX_ONE};
static const fix16_t k_times2[2] = {0, 2 * BSYNC_FX_ONE};
static const fix16_t k_times1[1] = {BSYNC_FX_HALF};
static bsync_vec3 g_t2[3], g_s0[2], g_t0[1];
static bsync_quat g_r1[3], g_r2[2];

static void make_tracks(bsync_raw_track tr[5]) {
    g_t2[0] = bsync_vec3_make(1, 2, 3);
    g_t2[1] = bsync_vec3_make(-4, 5, -6);
    g_t2[2] = bsync_vec3_make(7 << 16, -(8 << 16), 9);
    g_s0[0] = bsync_vec3_make(BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE);
    g_s0[1] = bsync_vec3_make(2 * BSYNC_FX_ONE, BSYNC_FX_HALF, 3 * BSYNC_FX_ONE);
    g_t0[0] = bsync_vec3_make(11, 12, 13);
    g_r1[0] = bsync_quat_make(0, 2 * BSYNC_FX_ONE, 0, 0);  /* length 2: -> (0,1,0,0) */
    g_r1[1] = bsync_quat_make(3 << 14, 0, 0, 4 << 14);    /* length 1.25: -> (0.6,0,0,0.8) */
    g_r1[2] = bsync_quat_identity();
    g_r2[0] = bsync_quat_identity();
    g_r2[1] = bsync_quat_make(0, 0, FX(0.5), FX(0.5));
    /* order: (2,T) (1,R) (0,S) (2,R) (0,T) -> sorted: (0,T) (0,S) (1,R) (2,T) (2,R) */
    bsync_raw_track t[5] = {
        {2, BSYNC_TRACK_TRANSLATION, 3, k_times3, g_t2, NULL},
        {1, BSYNC_TRACK_ROTATION, 3, k_times3, NULL, g_r1},
        {0, BSYNC_TRACK_SCALE, 2, k_times2, g_s0, NULL},
        {2, BSYNC_TRACK_ROTATION, 2, k_times2, NULL, g_r2},
        {0, BSYNC_TRACK_TRANSLATION, 1, k_times1, g_t0, NULL},
    };
    memcpy(tr, t, sizeof t);
}

static void check_clip(const bsync_clip* c) {
    assert_int_equal(bsync_clip_duration(c), 2 * BSYNC_FX_ONE);
    assert_int_equal(bsync_clip_loops(c), 1);
    assert_string_equal(bsync_clip_name(c), "walk");
    assert_int_equal(bsync_clip_joint_count(c), 3);
    assert_int_equal(bsync_clip_track_count(c), 5);
    const uint32_t joints[5] = {0, 0, 1, 2, 2};
    const bsync_track_kind kinds[5] = {BSYNC_TRACK_TRANSLATION, BSYNC_TRACK_SCALE, BSYNC_TRACK_ROTATION,
                                       BSYNC_TRACK_TRANSLATION, BSYNC_TRACK_ROTATION};
    const uint32_t counts[5] = {1, 2, 3, 3, 2};
    for (uint32_t i = 0; i < 5; i++) {
        bsync_track_info info;
        assert_int_equal(bsync_clip_track_info(c, i, &info), BSYNC_OK);
        assert_int_equal(info.joint, joints[i]);
        assert_int_equal(info.kind, kinds[i]);
        assert_int_equal(info.key_count, counts[i]);
        if (kinds[i] == BSYNC_TRACK_ROTATION) {
            assert_null(info.vec3s);
            assert_non_null(info.quats);
        } else {
            assert_null(info.quats);
            assert_non_null(info.vec3s);
        }
    }
    bsync_track_info info;
    assert_int_equal(bsync_clip_track_info(c, 5, &info), BSYNC_INVALID_ARGUMENT);
    /* values copied exactly */
    assert_int_equal(bsync_clip_track_info(c, 0, &info), BSYNC_OK);
    assert_int_equal(info.times[0], BSYNC_FX_HALF);
    assert_memory_equal(&info.vec3s[0], &g_t0[0], sizeof(bsync_vec3));
    assert_int_equal(bsync_clip_track_info(c, 1, &info), BSYNC_OK);
    assert_memory_equal(info.times, k_times2, sizeof k_times2);
    assert_memory_equal(info.vec3s, g_s0, sizeof g_s0);
    assert_int_equal(bsync_clip_track_info(c, 3, &info), BSYNC_OK);
    assert_memory_equal(info.times, k_times3, sizeof k_times3);
    assert_memory_equal(info.vec3s, g_t2, sizeof g_t2);
    /* rotations normalised (hand values), and sign-continuous */
    assert_int_equal(bsync_clip_track_info(c, 2, &info), BSYNC_OK);
    assert_memory_equal(info.times, k_times3, sizeof k_times3);
    bsync_quat want0 = bsync_quat_make(0, BSYNC_FX_ONE, 0, 0);
    assert_memory_equal(&info.quats[0], &want0, sizeof want0);
    /* key 1 = (0.6,0,0,0.8): dot with (0,1,0,0) is 0, not negative: kept */
    assert_true(abs(info.quats[1].x - FX(0.6)) <= 1);
    assert_int_equal(info.quats[1].y, 0);
    assert_true(abs(info.quats[1].w - FX(0.8)) <= 1);
    bsync_quat id = bsync_quat_identity();
    assert_memory_equal(&info.quats[2], &id, sizeof id);
    assert_int_equal(bsync_clip_track_info(c, 4, &info), BSYNC_OK);
    assert_true(abs(info.quats[1].z - FX(sqrt(0.5))) <= 1);
    assert_true(abs(info.quats[1].w - FX(sqrt(0.5))) <= 1);
}

static void make_desc(bsync_clip_desc* d, bsync_raw_track* tr) {
    make_tracks(tr);
    d->name = "walk";
    d->duration = 2 * BSYNC_FX_ONE;
    d->loop = 7; /* any nonzero: loops */
    d->tracks = tr;
    d->track_count = 5;
}

static void test_build_sorted_normalised(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(3);
    bsync_raw_track tr[5];
    bsync_clip_desc d;
    make_desc(&d, tr);
    assert_int_equal(bsync_clip_validate(&d, sk), BSYNC_OK);
    size_t size = bsync_clip_memory_size(&d, sk);
    assert_true(size > 0);
    assert_int_equal(size % 8, 0);
    void* mem = aligned_buffer(size);
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_init(mem, size - 8, &d, sk, &c), BSYNC_BUFFER_TOO_SMALL);
    assert_null(c);
    assert_int_equal(bsync_clip_init(mem, size, &d, sk, &c), BSYNC_OK);
    assert_ptr_equal(c, mem);
    assert_int_equal(bsync_clip_block_size(c), size);
    check_clip(c);
    /* a second build, from a differently ordered desc, gives the same bytes */
    bsync_raw_track rev[5];
    for (int i = 0; i < 5; i++) rev[i] = tr[4 - i];
    bsync_clip_desc d2 = d;
    d2.tracks = rev;
    d2.loop = 1;
    void* mem2 = aligned_buffer(size);
    memset(mem2, 0xEE, size);
    bsync_clip* c2 = NULL;
    assert_int_equal(bsync_clip_init(mem2, size, &d2, sk, &c2), BSYNC_OK);
    assert_memory_equal(mem2, mem, size);
    /* relocation: copy, wipe the original, read the copy */
    void* copy = aligned_buffer(size);
    memcpy(copy, mem, size);
    memset(mem, 0x11, size);
    check_clip((const bsync_clip*)copy);
    free(copy);
    free(mem2);
    free(mem);
    /* misaligned / null arguments */
    unsigned char* raw = aligned_buffer(size + 8);
    assert_int_equal(bsync_clip_init(raw + 4, size, &d, sk, &c), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_init(NULL, size, &d, sk, &c), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_init(raw, size, &d, sk, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_init(raw, size, &d, NULL, &c), BSYNC_INVALID_ARGUMENT);
    free(raw);
    bsync_skeleton_destroy(sk);
}

static void test_sign_continuity(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(1);
    /* rotations about Y by 0, 20, 40, 60, 80 degrees, with signs +, -, +, -, - given */
    const double deg[5] = {0, 20, 40, 60, 80};
    const int sign[5] = {1, -1, 1, -1, -1};
    bsync_quat q[5];
    fix16_t times[5];
    for (int i = 0; i < 5; i++) {
        double h = deg[i] * PI_D / 360.0;
        q[i] = bsync_quat_make(0, FX(sign[i] * sin(h)), 0, FX(sign[i] * cos(h)));
        times[i] = (fix16_t)(i * BSYNC_FX_ONE);
    }
    bsync_raw_track t = {0, BSYNC_TRACK_ROTATION, 5, times, NULL, q};
    bsync_clip_desc d = {NULL, 4 * BSYNC_FX_ONE, 0, &t, 1};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    assert_string_equal(bsync_clip_name(c), "");
    assert_int_equal(bsync_clip_loops(c), 0);
    bsync_track_info info;
    assert_int_equal(bsync_clip_track_info(c, 0, &info), BSYNC_OK);
    for (int i = 0; i < 5; i++) {
        /* every stored key is the positive-w form (the shortest path from identity onwards) */
        double h = deg[i] * PI_D / 360.0;
        assert_true(abs(info.quats[i].y - FX(sin(h))) <= 2);
        assert_true(abs(info.quats[i].w - FX(cos(h))) <= 2);
        assert_int_equal(info.quats[i].x, 0);
        assert_int_equal(info.quats[i].z, 0);
        if (i > 0) assert_true(bsync_quat_dot(info.quats[i - 1], info.quats[i]) >= 0);
    }
    bsync_clip_destroy(c);

    /* A half-turn chain: 0, 170, 340 degrees about Y. 340 degrees is the same rotation as -20, and
     * its key (0, sin 170, 0, cos 170) has dot > 0 with the 170 key, so it is kept; then a key at
     * 10 degrees with dot < 0 against it is flipped. */
    const double deg2[4] = {0, 170, 340, 10};
    for (int i = 0; i < 4; i++) {
        double h = deg2[i] * PI_D / 360.0;
        q[i] = bsync_quat_make(0, FX(sin(h)), 0, FX(cos(h)));
    }
    t.key_count = 4;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    assert_int_equal(bsync_clip_track_info(c, 0, &info), BSYNC_OK);
    assert_true(abs(info.quats[2].y - FX(sin(340 * PI_D / 360))) <= 2);
    assert_true(abs(info.quats[2].w - FX(cos(340 * PI_D / 360))) <= 2);
    assert_true(abs(info.quats[3].y + FX(sin(10 * PI_D / 360))) <= 2); /* negated */
    assert_true(abs(info.quats[3].w + FX(cos(10 * PI_D / 360))) <= 2);
    bsync_clip_destroy(c);
    bsync_skeleton_destroy(sk);
}

static void test_create_destroy_counting(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(3);
    bsync_raw_track tr[5];
    bsync_clip_desc d;
    make_desc(&d, tr);
    bsync_test_counting_allocator a;
    bsync_test_counting_allocator_init(&a);
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, &a.allocator, &c), BSYNC_OK);
    assert_int_equal(a.allocs, 1);
    assert_int_equal(a.live_bytes, bsync_clip_memory_size(&d, sk));
    check_clip(c);
    bsync_clip_destroy(c);
    assert_int_equal(a.frees, 1);
    assert_int_equal(a.live_bytes, 0);
    bsync_clip_destroy(NULL);
    assert_int_equal(bsync_clip_create(&d, sk, &a.allocator, NULL), BSYNC_INVALID_ARGUMENT);
    d.duration = -1;
    assert_int_equal(bsync_clip_create(&d, sk, &a.allocator, &c), BSYNC_BAD_DURATION);
    assert_int_equal(a.allocs, 1);
    bsync_skeleton_destroy(sk);
}


static void test_out_of_memory(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(3);
    bsync_raw_track tr[5];
    bsync_clip_desc d;
    make_desc(&d, tr);
    int calls = 0;
    bsync_allocator a = bsync_test_failing_allocator(&calls);
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, &a, &c), BSYNC_OUT_OF_MEMORY);
    assert_int_equal(calls, 1);
    assert_null(c);
    bsync_skeleton_destroy(sk);
}

static void expect_invalid(const bsync_clip_desc* d, const bsync_skeleton* sk, bsync_result code) {
    assert_int_equal(bsync_clip_validate(d, sk), code);
    assert_int_equal(bsync_clip_memory_size(d, sk), 0);
    uint64_t buf[256];
    memset(buf, 0x5A, sizeof buf);
    bsync_clip* c = (bsync_clip*)(uintptr_t)1;
    assert_int_equal(bsync_clip_init(buf, sizeof buf, d, sk, &c), code);
    assert_ptr_equal(c, (bsync_clip*)(uintptr_t)1);
    for (size_t i = 0; i < 256; i++) assert_true(buf[i] == 0x5A5A5A5A5A5A5A5Aull);
    bsync_test_counting_allocator a;
    bsync_test_counting_allocator_init(&a);
    assert_int_equal(bsync_clip_create(d, sk, &a.allocator, &c), code);
    assert_int_equal(a.allocs, 0);
}

static void test_validation(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(3);
    bsync_raw_track tr[5];
    bsync_clip_desc d;

    make_desc(&d, tr);
    expect_invalid(NULL, sk, BSYNC_INVALID_ARGUMENT);
    expect_invalid(&d, NULL, BSYNC_INVALID_ARGUMENT);

    d.duration = -1;
    expect_invalid(&d, sk, BSYNC_BAD_DURATION);

    make_desc(&d, tr);
    d.tracks = NULL;
    expect_invalid(&d, sk, BSYNC_INVALID_ARGUMENT);
    d.track_count = 0; /* no tracks at all is fine: every joint takes the rest pose */
    assert_int_equal(bsync_clip_validate(&d, sk), BSYNC_OK);

    make_desc(&d, tr);
    tr[3].key_count = 0;
    expect_invalid(&d, sk, BSYNC_INVALID_ARGUMENT);
    make_desc(&d, tr);
    tr[3].times = NULL;
    expect_invalid(&d, sk, BSYNC_INVALID_ARGUMENT);
    make_desc(&d, tr);
    tr[3].quats = NULL; /* rotation track without quats */
    tr[3].vec3s = g_t2;
    expect_invalid(&d, sk, BSYNC_INVALID_ARGUMENT);
    make_desc(&d, tr);
    tr[0].vec3s = NULL; /* translation track without vec3s */
    tr[0].quats = g_r1;
    expect_invalid(&d, sk, BSYNC_INVALID_ARGUMENT);
    make_desc(&d, tr);
    tr[2].kind = (bsync_track_kind)3;
    expect_invalid(&d, sk, BSYNC_INVALID_ARGUMENT);

    make_desc(&d, tr);
    tr[1].joint = 3;
    expect_invalid(&d, sk, BSYNC_NO_SUCH_JOINT);
    tr[1].joint = UINT32_MAX;
    expect_invalid(&d, sk, BSYNC_NO_SUCH_JOINT);

    make_desc(&d, tr);
    tr[4].joint = 2; /* (2, T) twice */
    expect_invalid(&d, sk, BSYNC_DUPLICATE_TRACK);
    make_desc(&d, tr);
    tr[4].kind = BSYNC_TRACK_SCALE; /* (0, S) twice */
    expect_invalid(&d, sk, BSYNC_DUPLICATE_TRACK);

    fix16_t unsorted[3] = {0, BSYNC_FX_ONE, BSYNC_FX_HALF};
    make_desc(&d, tr);
    tr[0].times = unsorted;
    expect_invalid(&d, sk, BSYNC_KEYS_UNSORTED);
    fix16_t equal[3] = {0, BSYNC_FX_ONE, BSYNC_FX_ONE};
    tr[0].times = equal;
    expect_invalid(&d, sk, BSYNC_KEYS_UNSORTED);

    fix16_t late[3] = {0, BSYNC_FX_ONE, 2 * BSYNC_FX_ONE + 1};
    make_desc(&d, tr);
    tr[1].times = late;
    expect_invalid(&d, sk, BSYNC_KEY_OUT_OF_RANGE);
    fix16_t early[3] = {-1, BSYNC_FX_ONE, 2 * BSYNC_FX_ONE};
    tr[1].times = early;
    expect_invalid(&d, sk, BSYNC_KEY_OUT_OF_RANGE);
    tr[1].times = k_times3; /* keys exactly at 0 and at duration are in range */
    assert_int_equal(bsync_clip_validate(&d, sk), BSYNC_OK);

    bsync_quat zero_key[3] = {{0, 0, 0, BSYNC_FX_ONE}, {0, 0, 0, 0}, {0, 0, 0, BSYNC_FX_ONE}};
    make_desc(&d, tr);
    tr[1].quats = zero_key;
    expect_invalid(&d, sk, BSYNC_BAD_ROTATION);

    char longname[BSYNC_MAX_NAME + 1];
    memset(longname, 'n', BSYNC_MAX_NAME);
    longname[BSYNC_MAX_NAME] = '\0';
    make_desc(&d, tr);
    d.name = longname;
    expect_invalid(&d, sk, BSYNC_BAD_NAME);
    longname[BSYNC_MAX_NAME - 1] = '\0'; /* 63 bytes: fine */
    assert_int_equal(bsync_clip_validate(&d, sk), BSYNC_OK);
    d.name = ""; /* empty is fine too */
    assert_int_equal(bsync_clip_validate(&d, sk), BSYNC_OK);

    bsync_skeleton_destroy(sk);
}

/* Total keys must stay below 2^24: two tracks of 2^23 keys hit the limit exactly. */
static void test_total_key_limit(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(1);
    const uint32_t half = 1u << 23;
    fix16_t* times = malloc(half * sizeof(fix16_t));
    bsync_vec3* values = calloc(half, sizeof(bsync_vec3));
    assert_non_null(times);
    assert_non_null(values);
    for (uint32_t i = 0; i < half; i++) times[i] = (fix16_t)i;
    bsync_raw_track t[2] = {{0, BSYNC_TRACK_TRANSLATION, half, times, values, NULL},
                            {0, BSYNC_TRACK_SCALE, half, times, values, NULL}};
    bsync_clip_desc d = {"big", (fix16_t)half, 1, t, 2};
    assert_int_equal(bsync_clip_validate(&d, sk), BSYNC_LIMIT_EXCEEDED);
    assert_int_equal(bsync_clip_memory_size(&d, sk), 0);
    t[1].key_count = half - 1; /* 2^24 - 1 keys: allowed */
    assert_int_equal(bsync_clip_validate(&d, sk), BSYNC_OK);
    free(values);
    free(times);
    bsync_skeleton_destroy(sk);
}

static void test_zero_length_and_empty(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(2);
    fix16_t t0[1] = {0};
    bsync_vec3 v[1] = {{1, 2, 3}};
    bsync_raw_track t = {1, BSYNC_TRACK_TRANSLATION, 1, t0, v, NULL};
    bsync_clip_desc d = {"pose", 0, 1, &t, 1};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, sk, NULL, &c), BSYNC_OK);
    assert_int_equal(bsync_clip_duration(c), 0);
    assert_int_equal(bsync_clip_track_count(c), 1);
    bsync_clip_destroy(c);
    fix16_t t1[1] = {1};
    t.times = t1; /* a key after a zero duration */
    assert_int_equal(bsync_clip_validate(&d, sk), BSYNC_KEY_OUT_OF_RANGE);
    bsync_clip_desc e = {NULL, BSYNC_FX_ONE, 0, NULL, 0};
    assert_int_equal(bsync_clip_create(&e, sk, NULL, &c), BSYNC_OK);
    assert_int_equal(bsync_clip_track_count(c), 0);
    assert_int_equal(bsync_clip_joint_count(c), 2);
    bsync_clip_destroy(c);
    /* accessors on NULL */
    assert_int_equal(bsync_clip_duration(NULL), 0);
    assert_int_equal(bsync_clip_track_count(NULL), 0);
    assert_int_equal(bsync_clip_joint_count(NULL), 0);
    assert_int_equal(bsync_clip_block_size(NULL), 0);
    assert_string_equal(bsync_clip_name(NULL), "");
    bsync_track_info info;
    assert_int_equal(bsync_clip_track_info(NULL, 0, &info), BSYNC_INVALID_ARGUMENT);
    bsync_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_sorted_normalised), cmocka_unit_test(test_sign_continuity),
        cmocka_unit_test(test_create_destroy_counting), cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_validation),              cmocka_unit_test(test_total_key_limit),
        cmocka_unit_test(test_zero_length_and_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
