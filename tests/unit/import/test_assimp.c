/* test_assimp.c — the optional assimp importer (FBX / Collada). Without assimp (BSYNC_HAVE_ASSIMP
 * unset) every test skips, and .dae keeps the "convert to glTF" message.
 *
 * The Collada file below is written by hand: joint "root" at the origin, joint "child" at (0, 1, 0),
 * and one animation turning the child about Z from 0 to 90 degrees between t = 0 and t = 1 s.
 * Expected values worked by hand:
 *   child rest translation (0, 1, 0)  -> raw (0, 65536, 0)
 *   duration 1 s                      -> raw 65536
 *   90 deg about Z = (0, 0, sin 45, cos 45) = (0, 0, 0.70710678, 0.70710678) -> raw 46340.95 ~ 46341 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_support.h"
#include "blendsync/checksum.h"
#include "blendsync/io/asset.h"
#include "blendsync/sample.h"
#include "blendsync/skeleton.h"

static const char k_dae[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
    "  <asset><unit name=\"meter\" meter=\"1\"/><up_axis>Y_UP</up_axis></asset>\n"
    "  <library_animations>\n"
    "    <animation id=\"turn\" name=\"turn\">\n"
    "      <source id=\"turn-input\">\n"
    "        <float_array id=\"turn-input-array\" count=\"2\">0 1</float_array>\n"
    "        <technique_common><accessor source=\"#turn-input-array\" count=\"2\" stride=\"1\">"
    "<param name=\"TIME\" type=\"float\"/></accessor></technique_common>\n"
    "      </source>\n"
    "      <source id=\"turn-output\">\n"
    "        <float_array id=\"turn-output-array\" count=\"2\">0 90</float_array>\n"
    "        <technique_common><accessor source=\"#turn-output-array\" count=\"2\" stride=\"1\">"
    "<param name=\"ANGLE\" type=\"float\"/></accessor></technique_common>\n"
    "      </source>\n"
    "      <source id=\"turn-interp\">\n"
    "        <Name_array id=\"turn-interp-array\" count=\"2\">LINEAR LINEAR</Name_array>\n"
    "        <technique_common><accessor source=\"#turn-interp-array\" count=\"2\" stride=\"1\">"
    "<param name=\"INTERPOLATION\" type=\"name\"/></accessor></technique_common>\n"
    "      </source>\n"
    "      <sampler id=\"turn-sampler\">\n"
    "        <input semantic=\"INPUT\" source=\"#turn-input\"/>\n"
    "        <input semantic=\"OUTPUT\" source=\"#turn-output\"/>\n"
    "        <input semantic=\"INTERPOLATION\" source=\"#turn-interp\"/>\n"
    "      </sampler>\n"
    "      <channel source=\"#turn-sampler\" target=\"child/rotZ.ANGLE\"/>\n"
    "    </animation>\n"
    "  </library_animations>\n"
    "  <library_visual_scenes>\n"
    "    <visual_scene id=\"Scene\" name=\"Scene\">\n"
    "      <node id=\"root\" name=\"root\" sid=\"root\" type=\"JOINT\">\n"
    "        <translate sid=\"location\">0 0 0</translate>\n"
    "        <node id=\"child\" name=\"child\" sid=\"child\" type=\"JOINT\">\n"
    "          <translate sid=\"location\">0 1 0</translate>\n"
    "          <rotate sid=\"rotZ\">0 0 1 0</rotate>\n"
    "        </node>\n"
    "      </node>\n"
    "    </visual_scene>\n"
    "  </library_visual_scenes>\n"
    "  <scene><instance_visual_scene url=\"#Scene\"/></scene>\n"
    "</COLLADA>\n";

static void write_file(const char* path, const char* text) {
    FILE* f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static void temp_path(char* buf, size_t n, const char* tag) {
    snprintf(buf, n, "/tmp/bsync_assimp_%s_%ld.dae", tag, (long)getpid());
}

#if BSYNC_HAVE_ASSIMP

static void assert_near(int32_t got, int32_t want, int32_t tol) {
    int64_t d = (int64_t)got - (int64_t)want;
    if (d < 0) d = -d;
    if (d > tol) fail_msg("got raw %d, want %d (+-%d)", (int)got, (int)want, (int)tol);
}

static uint32_t joint_named(const bsync_skeleton* s, const char* name) {
    uint32_t n = bsync_skeleton_joint_count(s);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(bsync_skeleton_joint_name(s, i), name) == 0) return i;
    fail_msg("no joint '%s'", name);
    return 0;
}

static void test_collada_two_joints(void** state) {
    (void)state;
    char path[128];
    temp_path(path, sizeof path, "ok");
    write_file(path, k_dae);
    bsync_asset a;
    bsync_error e;
    memset(&e, 0, sizeof e);
    bsync_result r = bsync_asset_import_file(path, NULL, &a, &e);
    if (r != BSYNC_OK) fail_msg("import: %s", e.message);
    /* skeleton: exactly the two JOINT nodes (assimp's scene root is folded, not a joint) */
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 2);
    uint32_t root = joint_named(a.skeleton, "root"), child = joint_named(a.skeleton, "child");
    assert_int_equal(bsync_skeleton_parent(a.skeleton, child), (int32_t)root);
    assert_int_equal(bsync_skeleton_parent(a.skeleton, root), BSYNC_NO_PARENT);
    const bsync_trs* rest = bsync_skeleton_rest_pose(a.skeleton);
    assert_near(rest[child].t.x, 0, 1);
    assert_near(rest[child].t.y, 65536, 1);
    assert_near(rest[child].t.z, 0, 1);
    assert_near(rest[root].t.y, 0, 1);
    /* one clip, 1 s */
    assert_int_equal(a.clip_count, 1);
    assert_near(bsync_clip_duration(a.clips[0]), 65536, 1);
    /* child's rotation at t = 1 s: 90 deg about Z */
    bsync_trs pose[2];
    assert_int_equal(bsync_clip_sample(a.clips[0], 65536, BSYNC_LOOP_CLAMP, rest, 2, NULL, pose), BSYNC_OK);
    bsync_quat q = pose[child].r;
    if (q.w < 0) { /* q and -q are the same rotation */
        q.x = -q.x;
        q.y = -q.y;
        q.z = -q.z;
        q.w = -q.w;
    }
    assert_near(q.x, 0, 2);
    assert_near(q.y, 0, 2);
    assert_near(q.z, 46341, 2);
    assert_near(q.w, 46341, 2);
    /* and at t = 0 the identity (cos 0 = 1 -> raw 65536) */
    assert_int_equal(bsync_clip_sample(a.clips[0], 0, BSYNC_LOOP_CLAMP, rest, 2, NULL, pose), BSYNC_OK);
    assert_near(pose[child].r.z, 0, 2);
    assert_near(pose[child].r.w < 0 ? -pose[child].r.w : pose[child].r.w, 65536, 2);
    assert_non_null(strstr(a.source, "assimp"));
    /* the same file twice: identical clip and skeleton bytes */
    bsync_asset b;
    assert_int_equal(bsync_asset_import_file(path, NULL, &b, &e), BSYNC_OK);
    assert_int_equal(b.clip_count, a.clip_count);
    assert_true(bsync_checksum_clip(a.clips[0]) == bsync_checksum_clip(b.clips[0]));
    assert_true(bsync_checksum_skeleton(a.skeleton) == bsync_checksum_skeleton(b.skeleton));
    bsync_asset_destroy(&a);
    bsync_asset_destroy(&b);
    remove(path);
}

static void test_collada_errors(void** state) {
    (void)state;
    char path[128];
    temp_path(path, sizeof path, "bad");
    write_file(path, "<?xml version=\"1.0\"?><COLLADA><library_visual_scenes>");
    bsync_asset a;
    bsync_error e;
    memset(&e, 0, sizeof e);
    bsync_result r = bsync_asset_import_file(path, NULL, &a, &e);
    assert_int_not_equal(r, BSYNC_OK);
    assert_int_equal(e.code, r);
    assert_null(a.skeleton); /* left empty */
    assert_int_equal(a.clip_count, 0);
    remove(path);
    /* missing file */
    assert_int_equal(bsync_asset_import_file(path, NULL, &a, &e), BSYNC_IO_ERROR);
    assert_null(a.skeleton);
    /* clip filter: no clip named "other" */
    temp_path(path, sizeof path, "filter");
    write_file(path, k_dae);
    static const char* const want[1] = {"other"};
    bsync_import_options o;
    memset(&o, 0, sizeof o);
    o.clip_names = want;
    o.clip_name_count = 1;
    assert_int_equal(bsync_asset_import_file(path, &o, &a, &e), BSYNC_OK);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 2);
    assert_int_equal(a.clip_count, 0);
    bsync_asset_destroy(&a);
    remove(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_collada_two_joints),
        cmocka_unit_test(test_collada_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* no assimp: .dae keeps the conversion message */

static void test_without_assimp(void** state) {
    (void)state;
    char path[128];
    temp_path(path, sizeof path, "none");
    write_file(path, k_dae);
    bsync_asset a;
    bsync_error e;
    memset(&e, 0, sizeof e);
    assert_int_equal(bsync_asset_import_file(path, NULL, &a, &e), BSYNC_INVALID_ARGUMENT);
    assert_non_null(strstr(e.message, "glTF"));
    assert_null(a.skeleton);
    remove(path);
}

static void test_assimp_skipped(void** state) {
    (void)state;
    skip(); /* built without assimp (optional dependency) */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_assimp),
        cmocka_unit_test(test_assimp_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
