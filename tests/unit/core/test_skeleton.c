/* test_skeleton.c — the skeleton block (blendsync/skeleton.h). */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/skeleton.h"

static bsync_trs trs_make(fix16_t tx, fix16_t ty, fix16_t tz, bsync_quat r, fix16_t s) {
    bsync_trs x;
    x.t = bsync_vec3_make(tx, ty, tz);
    x.r = r;
    x.s = bsync_vec3_make(s, s, s);
    return x;
}

/* root, spine (child of root), head (child of spine), arm (child of spine) */
static void make_joints(bsync_joint_desc j[4]) {
    j[0].name = "root";
    j[0].parent = BSYNC_NO_PARENT;
    j[0].rest = trs_make(0, 0, 0, bsync_quat_identity(), BSYNC_FX_ONE);
    j[1].name = "spine";
    j[1].parent = 0;
    /* rotation given with length 2: stored normalised */
    j[1].rest = trs_make(0, BSYNC_FX_ONE, 0, bsync_quat_make(0, 0, 0, 2 * BSYNC_FX_ONE), BSYNC_FX_ONE);
    j[2].name = "head";
    j[2].parent = 1;
    j[2].rest = trs_make(0, 3 * BSYNC_FX_HALF, 0, bsync_quat_make(3 << 16, 0, 0, 4 << 16), 2 * BSYNC_FX_ONE);
    j[3].name = "arm";
    j[3].parent = 1;
    j[3].rest = trs_make(-BSYNC_FX_ONE, 0, 7, bsync_quat_identity(), BSYNC_FX_HALF);
}

static void* aligned_buffer(size_t size) {
    void* p = NULL;
    if (posix_memalign(&p, 8, size ? size : 8) != 0) return NULL;
    return p;
}

static void check_skeleton(const bsync_skeleton* s, const bsync_joint_desc* j) {
    assert_int_equal(bsync_skeleton_joint_count(s), 4);
    const char* names[4] = {"root", "spine", "head", "arm"};
    const int32_t parents[4] = {-1, 0, 1, 1};
    const int16_t* p = bsync_skeleton_parents(s);
    for (uint32_t i = 0; i < 4; i++) {
        assert_string_equal(bsync_skeleton_joint_name(s, i), names[i]);
        assert_int_equal(bsync_skeleton_parent(s, i), parents[i]);
        assert_int_equal(p[i], parents[i]);
        uint32_t idx = 99;
        assert_int_equal(bsync_skeleton_find(s, names[i], &idx), BSYNC_OK);
        assert_int_equal(idx, i);
    }
    const bsync_trs* rest = bsync_skeleton_rest_pose(s);
    /* translations and scales copied as given */
    for (uint32_t i = 0; i < 4; i++) {
        assert_memory_equal(&rest[i].t, &j[i].rest.t, sizeof(bsync_vec3));
        assert_memory_equal(&rest[i].s, &j[i].rest.s, sizeof(bsync_vec3));
    }
    /* rotations normalised: identity stays, (0,0,0,2) -> identity, (3,0,0,4) -> (0.6,0,0,0.8) */
    bsync_quat id = bsync_quat_identity();
    assert_memory_equal(&rest[0].r, &id, sizeof id);
    assert_memory_equal(&rest[1].r, &id, sizeof id);
    assert_true(abs(rest[2].r.x - (int32_t)lround(0.6 * 65536)) <= 1);
    assert_int_equal(rest[2].r.y, 0);
    assert_int_equal(rest[2].r.z, 0);
    assert_true(abs(rest[2].r.w - (int32_t)lround(0.8 * 65536)) <= 1);
    uint32_t idx = 77;
    assert_int_equal(bsync_skeleton_find(s, "leg", &idx), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_skeleton_find(s, "", &idx), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_skeleton_find(s, "roo", &idx), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_skeleton_find(s, "roots", &idx), BSYNC_NOT_FOUND);
    assert_int_equal(idx, 77);
    /* out of range */
    assert_string_equal(bsync_skeleton_joint_name(s, 4), "");
    assert_int_equal(bsync_skeleton_parent(s, 4), BSYNC_NO_PARENT);
    assert_int_equal(bsync_skeleton_parent(s, UINT32_MAX), BSYNC_NO_PARENT);
}

static void test_build_init(void** state) {
    (void)state;
    bsync_joint_desc j[4];
    make_joints(j);
    bsync_skeleton_desc d = {j, 4};
    assert_int_equal(bsync_skeleton_validate(&d), BSYNC_OK);
    size_t size = bsync_skeleton_memory_size(&d);
    assert_true(size > 4 * sizeof(bsync_trs));
    assert_int_equal(size % 8, 0);
    void* mem = aligned_buffer(size);
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_init(mem, size - 1, &d, &s), BSYNC_BUFFER_TOO_SMALL);
    assert_null(s);
    assert_int_equal(bsync_skeleton_init(mem, size, &d, &s), BSYNC_OK);
    assert_ptr_equal(s, mem);
    assert_int_equal(bsync_skeleton_block_size(s), size);
    check_skeleton(s, j);
    /* misaligned memory is refused */
    unsigned char* raw = aligned_buffer(size + 8);
    bsync_skeleton* s2 = NULL;
    assert_int_equal(bsync_skeleton_init(raw + 4, size, &d, &s2), BSYNC_INVALID_ARGUMENT);
    assert_null(s2);
    assert_int_equal(bsync_skeleton_init(NULL, size, &d, &s2), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_skeleton_init(mem, size, &d, NULL), BSYNC_INVALID_ARGUMENT);
    /* building twice gives identical bytes (every byte written, padding zero) */
    memset(raw, 0xAB, size + 8);
    assert_int_equal(bsync_skeleton_init(raw, size, &d, &s2), BSYNC_OK);
    assert_memory_equal(raw, mem, size);
    free(raw);
    free(mem);
}

static void test_relocation(void** state) {
    (void)state;
    bsync_joint_desc j[4];
    make_joints(j);
    bsync_skeleton_desc d = {j, 4};
    size_t size = bsync_skeleton_memory_size(&d);
    void* a = aligned_buffer(size);
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_init(a, size, &d, &s), BSYNC_OK);
    void* b = aligned_buffer(size);
    memcpy(b, a, size);
    memset(a, 0xCD, size); /* the original is gone */
    free(a);
    check_skeleton((const bsync_skeleton*)b, j);
    free(b);
}

static void test_create_destroy_counting(void** state) {
    (void)state;
    bsync_joint_desc j[4];
    make_joints(j);
    bsync_skeleton_desc d = {j, 4};
    bsync_test_counting_allocator c;
    bsync_test_counting_allocator_init(&c);
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_create(&d, &c.allocator, &s), BSYNC_OK);
    assert_int_equal(c.allocs, 1);
    assert_int_equal(c.live_bytes, bsync_skeleton_memory_size(&d));
    assert_int_equal(bsync_skeleton_block_size(s), bsync_skeleton_memory_size(&d));
    check_skeleton(s, j);
    bsync_skeleton_destroy(s);
    assert_int_equal(c.frees, 1);
    assert_int_equal(c.live_bytes, 0);
    /* a failed validation allocates nothing */
    j[1].parent = 5;
    s = NULL;
    assert_int_equal(bsync_skeleton_create(&d, &c.allocator, &s), BSYNC_BAD_HIERARCHY);
    assert_null(s);
    assert_int_equal(c.allocs, 1);
    /* default allocator (NULL) and a zero allocator both mean malloc/free (ASan checks the free) */
    make_joints(j);
    assert_int_equal(bsync_skeleton_create(&d, NULL, &s), BSYNC_OK);
    check_skeleton(s, j);
    bsync_skeleton_destroy(s);
    bsync_allocator zero = {NULL, NULL, NULL};
    assert_int_equal(bsync_skeleton_create(&d, &zero, &s), BSYNC_OK);
    bsync_skeleton_destroy(s);
    bsync_skeleton_destroy(NULL);
    assert_int_equal(bsync_skeleton_create(&d, NULL, NULL), BSYNC_INVALID_ARGUMENT);
}


static void test_out_of_memory(void** state) {
    (void)state;
    bsync_joint_desc j[4];
    make_joints(j);
    bsync_skeleton_desc d = {j, 4};
    int calls = 0;
    bsync_allocator a = bsync_test_failing_allocator(&calls);
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_create(&d, &a, &s), BSYNC_OUT_OF_MEMORY);
    assert_int_equal(calls, 1);
    assert_null(s);
}

/* Each broken field gives its own code; nothing is written on failure. */
static void expect_invalid(const bsync_skeleton_desc* d, bsync_result code) {
    assert_int_equal(bsync_skeleton_validate(d), code);
    assert_int_equal(bsync_skeleton_memory_size(d), 0);
    uint64_t buf[1024];
    memset(buf, 0x5A, sizeof buf);
    bsync_skeleton* s = (bsync_skeleton*)(uintptr_t)1;
    assert_int_equal(bsync_skeleton_init(buf, sizeof buf, d, &s), code);
    assert_ptr_equal(s, (bsync_skeleton*)(uintptr_t)1);
    for (size_t i = 0; i < 1024; i++) assert_true(buf[i] == 0x5A5A5A5A5A5A5A5Aull);
    bsync_test_counting_allocator c;
    bsync_test_counting_allocator_init(&c);
    assert_int_equal(bsync_skeleton_create(d, &c.allocator, &s), code);
    assert_int_equal(c.allocs, 0);
}

static void test_validation(void** state) {
    (void)state;
    bsync_joint_desc j[4];
    bsync_skeleton_desc d = {j, 4};

    expect_invalid(NULL, BSYNC_INVALID_ARGUMENT);
    make_joints(j);
    d.joints = NULL;
    expect_invalid(&d, BSYNC_INVALID_ARGUMENT);
    d.joints = j;
    d.joint_count = 0;
    expect_invalid(&d, BSYNC_INVALID_ARGUMENT);
    d.joint_count = 4;

    j[2].parent = 2; /* itself */
    expect_invalid(&d, BSYNC_BAD_HIERARCHY);
    j[2].parent = 3; /* a later joint */
    expect_invalid(&d, BSYNC_BAD_HIERARCHY);
    j[2].parent = -2;
    expect_invalid(&d, BSYNC_BAD_HIERARCHY);
    j[0].parent = 0;
    make_joints(j);
    j[0].parent = 0; /* root pointing at itself */
    expect_invalid(&d, BSYNC_BAD_HIERARCHY);

    make_joints(j);
    j[3].name = "";
    expect_invalid(&d, BSYNC_BAD_NAME);
    j[3].name = NULL;
    expect_invalid(&d, BSYNC_BAD_NAME);
    char longname[BSYNC_MAX_NAME + 1];
    memset(longname, 'x', BSYNC_MAX_NAME);
    longname[BSYNC_MAX_NAME] = '\0'; /* 64 bytes: too long */
    j[3].name = longname;
    expect_invalid(&d, BSYNC_BAD_NAME);
    longname[BSYNC_MAX_NAME - 1] = '\0'; /* 63 bytes: the longest allowed */
    assert_int_equal(bsync_skeleton_validate(&d), BSYNC_OK);

    make_joints(j);
    j[3].name = "spine";
    expect_invalid(&d, BSYNC_DUPLICATE_NAME);
    j[3].name = "root";
    expect_invalid(&d, BSYNC_DUPLICATE_NAME);
    j[3].name = "Root"; /* byte comparison: case matters */
    assert_int_equal(bsync_skeleton_validate(&d), BSYNC_OK);

    make_joints(j);
    j[2].rest.r = bsync_quat_make(0, 0, 0, 0);
    expect_invalid(&d, BSYNC_BAD_ROTATION);
    j[2].rest.r = bsync_quat_make(0, 1, 0, 0); /* tiny but not zero: accepted and normalised */
    assert_int_equal(bsync_skeleton_validate(&d), BSYNC_OK);
}

static void test_limits(void** state) {
    (void)state;
    static bsync_joint_desc j[BSYNC_MAX_JOINTS + 1];
    static char names[BSYNC_MAX_JOINTS + 1][16];
    for (uint32_t i = 0; i <= BSYNC_MAX_JOINTS; i++) {
        snprintf(names[i], sizeof names[i], "j%u", i);
        j[i].name = names[i];
        j[i].parent = (int32_t)i - 1;
        j[i].rest = trs_make((fix16_t)i, 0, 0, bsync_quat_identity(), BSYNC_FX_ONE);
    }
    bsync_skeleton_desc d = {j, BSYNC_MAX_JOINTS + 1};
    expect_invalid(&d, BSYNC_LIMIT_EXCEEDED);
    d.joint_count = BSYNC_MAX_JOINTS;
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_create(&d, NULL, &s), BSYNC_OK);
    assert_int_equal(bsync_skeleton_joint_count(s), BSYNC_MAX_JOINTS);
    uint32_t idx = 0;
    assert_int_equal(bsync_skeleton_find(s, "j1023", &idx), BSYNC_OK);
    assert_int_equal(idx, 1023);
    assert_int_equal(bsync_skeleton_parent(s, 1023), 1022);
    assert_int_equal(bsync_skeleton_rest_pose(s)[1000].t.x, 1000);
    bsync_skeleton_destroy(s);
}

static void test_null_accessors(void** state) {
    (void)state;
    assert_int_equal(bsync_skeleton_joint_count(NULL), 0);
    assert_int_equal(bsync_skeleton_block_size(NULL), 0);
    assert_null(bsync_skeleton_parents(NULL));
    assert_null(bsync_skeleton_rest_pose(NULL));
    assert_string_equal(bsync_skeleton_joint_name(NULL, 0), "");
    assert_int_equal(bsync_skeleton_parent(NULL, 0), BSYNC_NO_PARENT);
    uint32_t idx;
    assert_int_equal(bsync_skeleton_find(NULL, "a", &idx), BSYNC_INVALID_ARGUMENT);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_init),      cmocka_unit_test(test_relocation),
        cmocka_unit_test(test_create_destroy_counting), cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test(test_validation),      cmocka_unit_test(test_limits),
        cmocka_unit_test(test_null_accessors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
