/* test_bvh.c — the BVH importer (blendsync/io/bvh.h): a tiny hand-written file with known angles
 * (expected quaternions computed here in double from the Euler definition, as rotation matrices, not
 * with the importer's quaternion products), channel orders, position channels, End Sites, the unit
 * scale, parse errors with line numbers, every truncation, and the CMU file in the shared data. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/bvh.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/sample.h"

#define PI_D 3.14159265358979323846
#define STEP_D (1.0 / 65536.0)

static const char* k_bvh =
    "HIERARCHY\n"
    "ROOT Hips\n"
    "{\n"
    "\tOFFSET 0 100 0\n"
    "\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "\tJOINT Chest\n"
    "\t{\n"
    "\t\tOFFSET 0 20 5\n"
    "\t\tCHANNELS 3 Xrotation Yrotation Zrotation\n"
    "\t\tEnd Site\n"
    "\t\t{\n"
    "\t\t\tOFFSET 0 10 0\n"
    "\t\t}\n"
    "\t}\n"
    "}\n"
    "MOTION\n"
    "Frames: 3\n"
    "Frame Time: 0.5\n"
    "0 100 0 0 0 0 0 0 0\n"
    "10 102 -4 30 45 60 90 0 0\n"
    "20 104 -8 -20 10 170 0 -90 45\n";

/* Rotation matrix of an axis (0 x, 1 y, 2 z) by deg degrees. */
static void axis_matrix(int axis, double deg, double m[3][3]) {
    double a = deg * PI_D / 180.0, c = cos(a), s = sin(a);
    memset(m, 0, 9 * sizeof(double));
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    m[axis][axis] = 1;
    m[i][i] = c;
    m[j][j] = c;
    m[i][j] = -s;
    m[j][i] = s;
}

static void mat_mul(double a[3][3], double b[3][3], double o[3][3]) {
    double t[3][3];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) t[r][c] = a[r][0] * b[0][c] + a[r][1] * b[1][c] + a[r][2] * b[2][c];
    memcpy(o, t, sizeof t);
}

/* |angle| between the rotation matrix m and the quaternion q (in fix16). */
static double angle_to(double m[3][3], bsync_quat qf) {
    double x = bsync_fx_to_double(qf.x), y = bsync_fx_to_double(qf.y), z = bsync_fx_to_double(qf.z),
           w = bsync_fx_to_double(qf.w);
    double n = sqrt(x * x + y * y + z * z + w * w);
    x /= n; y /= n; z /= n; w /= n;
    double q[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    double tr = 0; /* trace of q^T m */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) tr += q[r][c] * m[r][c];
    double cs = (tr - 1) / 2;
    if (cs > 1) cs = 1;
    if (cs < -1) cs = -1;
    return acos(cs);
}

/* The expected local rotation of a joint: product of the channel rotations in listed order. */
static void expected(const int* axes, const double* deg, double m[3][3]) {
    double a[3][3], b[3][3], c[3][3];
    axis_matrix(axes[0], deg[0], a);
    axis_matrix(axes[1], deg[1], b);
    axis_matrix(axes[2], deg[2], c);
    mat_mul(a, b, a);
    mat_mul(a, c, m);
}

static void test_known_angles(void** state) {
    (void)state;
    bsync_asset a;
    bsync_error e;
    assert_int_equal(bsync_bvh_import_memory(k_bvh, strlen(k_bvh), "dir/tiny.bvh", NULL, &a, &e), BSYNC_OK);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 2); /* End Site skipped */
    assert_string_equal(bsync_skeleton_joint_name(a.skeleton, 0), "Hips");
    assert_string_equal(bsync_skeleton_joint_name(a.skeleton, 1), "Chest");
    assert_int_equal(bsync_skeleton_parent(a.skeleton, 1), 0);
    assert_non_null(strstr(a.notes, "1 End Sites skipped"));
    assert_non_null(strstr(a.source, "0.01 m per unit"));
    /* rest: offsets in centimetres * 0.01 */
    const bsync_trs* rest = bsync_skeleton_rest_pose(a.skeleton);
    assert_int_equal(rest[0].t.y, BSYNC_FX_ONE);
    assert_true(fabs(bsync_fx_to_double(rest[1].t.y) - 0.2) <= 0.5 * STEP_D);
    assert_true(fabs(bsync_fx_to_double(rest[1].t.z) - 0.05) <= 0.5 * STEP_D);
    assert_int_equal(rest[1].r.w, BSYNC_FX_ONE);
    assert_int_equal(a.clip_count, 1);
    const bsync_clip* c = a.clips[0];
    assert_string_equal(bsync_clip_name(c), "tiny");
    assert_int_equal(bsync_clip_duration(c), BSYNC_FX_ONE); /* (3 - 1) * 0.5 s */
    assert_int_equal(bsync_clip_track_count(c), 3);
    static const double frames[3][9] = {{0, 100, 0, 0, 0, 0, 0, 0, 0},
                                        {10, 102, -4, 30, 45, 60, 90, 0, 0},
                                        {20, 104, -8, -20, 10, 170, 0, -90, 45}};
    static const int hips_axes[3] = {2, 0, 1}, chest_axes[3] = {0, 1, 2};
    for (int f = 0; f < 3; f++) {
        bsync_trs p[2];
        assert_int_equal(bsync_clip_sample(c, (fix16_t)(f * BSYNC_FX_HALF), BSYNC_LOOP_CLAMP, rest, 2, NULL, p), BSYNC_OK);
        /* position channels are absolute, in cm */
        assert_true(fabs(bsync_fx_to_double(p[0].t.x) - frames[f][0] * 0.01) <= 0.5 * STEP_D);
        assert_true(fabs(bsync_fx_to_double(p[0].t.y) - frames[f][1] * 0.01) <= 0.5 * STEP_D);
        assert_true(fabs(bsync_fx_to_double(p[0].t.z) - frames[f][2] * 0.01) <= 0.5 * STEP_D);
        /* chest has no position channels: its translation is the rest offset */
        assert_int_equal(p[1].t.y, rest[1].t.y);
        double m[3][3];
        expected(hips_axes, frames[f] + 3, m);
        assert_true(angle_to(m, p[0].r) < 3e-5);
        expected(chest_axes, frames[f] + 6, m);
        assert_true(angle_to(m, p[1].r) < 3e-5);
    }
    /* halfway between frame 1 and 2 the chest nlerps: the rotation angle lies between */
    bsync_trs p[2];
    assert_int_equal(bsync_clip_sample(c, BSYNC_FX_HALF / 2, BSYNC_LOOP_CLAMP, rest, 2, NULL, p), BSYNC_OK);
    double m0[3][3];
    double zero[3] = {0, 0, 0};
    expected(chest_axes, zero, m0);
    double ang = angle_to(m0, p[1].r);
    assert_true(ang > 0.7 && ang < 0.9); /* about 45 deg: half of the 90 deg X rotation */
    bsync_asset_destroy(&a);
}

static void test_scale_option(void** state) {
    (void)state;
    bsync_import_options o;
    memset(&o, 0, sizeof o);
    o.bvh_scale = 1.0;
    bsync_asset a;
    bsync_error e;
    /* 100 units at 1 m per unit: 120 m tall; representable, but flagged as a suspicious height */
    assert_int_equal(bsync_bvh_import_memory(k_bvh, strlen(k_bvh), "tiny.bvh", &o, &a, &e), BSYNC_OK);
    assert_int_equal(bsync_skeleton_rest_pose(a.skeleton)[0].t.y, 100 * BSYNC_FX_ONE);
    assert_non_null(strstr(a.notes, "give another BVH scale"));
    bsync_asset_destroy(&a);
    o.bvh_scale = 400.0; /* 40000 m: beyond Q16.16 -> a clear error naming the joint */
    assert_int_equal(bsync_bvh_import_memory(k_bvh, strlen(k_bvh), "tiny.bvh", &o, &a, &e), BSYNC_OVERFLOW);
    assert_non_null(strstr(e.message, "Hips"));
    o.bvh_scale = -1;
    assert_int_equal(bsync_bvh_import_memory(k_bvh, strlen(k_bvh), "tiny.bvh", &o, &a, &e), BSYNC_INVALID_ARGUMENT);
}

static void expect_parse_error(const char* from, const char* to, const char* words) {
    const char* at = strstr(k_bvh, from);
    assert_non_null(at);
    char buf[2048];
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - k_bvh), k_bvh, to, at + strlen(from));
    bsync_asset a;
    bsync_error e;
    bsync_result r = bsync_bvh_import_memory(buf, strlen(buf), "bad.bvh", NULL, &a, &e);
    if (r == BSYNC_OK || !strstr(e.message, words)) print_error("%s -> %s: %d %s\n", from, to, r, e.message);
    assert_int_equal(r, BSYNC_PARSE_ERROR);
    assert_non_null(strstr(e.message, words));
    assert_non_null(strstr(e.message, "bad.bvh"));
    assert_null(a.skeleton);
}

static void test_parse_errors(void** state) {
    (void)state;
    expect_parse_error("Xrotation Yrotation Zrotation", "Xrotation Wrotation Zrotation", "line 9: unknown channel 'Wrotation'");
    expect_parse_error("CHANNELS 3", "CHANNELS 7", "CHANNELS count");
    expect_parse_error("OFFSET 0 20 5", "OFFSET 0 2x0 5", "not a finite number");
    expect_parse_error("Frames: 3", "Frames: 4", "the file ends early");
    expect_parse_error("Frame Time: 0.5", "Frame Time: 0", "Frame Time");
    expect_parse_error("\t}\n}\nMOTION", "\t}\nMOTION", "expected JOINT");
    expect_parse_error("HIERARCHY", "HIERARCHX", "HIERARCHY");
    expect_parse_error("0 -90 45\n", "0 -90 45 7\n", "after the last frame");
    expect_parse_error("Zrotation Xrotation Yrotation", "Zrotation Xrotation Xrotation", "listed twice");
}

static void test_every_truncation(void** state) {
    (void)state;
    size_t n = strlen(k_bvh);
    bsync_asset a;
    bsync_error e;
    int ok = 0;
    for (size_t len = 0; len < n; len++) {
        char* t = malloc(len ? len : 1);
        memcpy(t, k_bvh, len); /* not NUL-terminated: the parser must respect len */
        bsync_result r = bsync_bvh_import_memory(t, len, "t.bvh", NULL, &a, &e);
        if (r == BSYNC_OK) ok++; /* only a cut inside the last number's trailing digits/newline can parse */
        bsync_asset_destroy(&a);
        free(t);
    }
    assert_true(ok <= 3);
}

static void test_shared_cmu(void** state) {
    (void)state;
    const char* p = bsync_test_shared_path("data/cmu-mocap-bvh/02_01_walk.bvh");
    if (!p) {
        print_message("shared data absent: skipped\n");
        skip();
    }
    bsync_asset a, b;
    bsync_error e;
    assert_int_equal(bsync_bvh_import_file(p, NULL, &a, &e), BSYNC_OK);
    /* INVENTORY.md: 31 joints (+7 end sites), 343 frames at 0.008333 s */
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 31);
    assert_int_equal(a.clip_count, 1);
    assert_true(fabs(bsync_fx_to_double(bsync_clip_duration(a.clips[0])) - 342 * 0.008333) <= STEP_D);
    assert_non_null(strstr(a.notes, "7 End Sites"));
    /* twice: identical bytes */
    assert_int_equal(bsync_bvh_import_file(p, NULL, &b, &e), BSYNC_OK);
    size_t n = bsync_clip_file_size(a.skeleton, (const bsync_clip* const*)a.clips, 1);
    unsigned char* x = malloc(n);
    unsigned char* y = malloc(n);
    assert_int_equal(bsync_clip_file_write_memory(a.skeleton, (const bsync_clip* const*)a.clips, 1, x, n), BSYNC_OK);
    assert_int_equal(bsync_clip_file_write_memory(b.skeleton, (const bsync_clip* const*)b.clips, 1, y, n), BSYNC_OK);
    assert_memory_equal(x, y, n);
    free(x);
    free(y);
    bsync_asset_destroy(&a);
    bsync_asset_destroy(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_angles),     cmocka_unit_test(test_scale_option),
        cmocka_unit_test(test_parse_errors),     cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_shared_cmu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
