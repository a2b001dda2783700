/* test_gltf_ancestors.c — the glTF importer folds the transform of non-joint ancestor nodes (a
 * Blender armature node above the skin's root joint, typically) into the joint below them, as glTF
 * places every joint by all its ancestors (blendsync/io/gltf.h).
 *
 * Small glTF files are written here as JSON text with a base64 buffer of known keys:
 *   - armature +90 deg X above a root joint whose rest is -90 deg X: the root's rest becomes identity
 *     (within 1 raw step), its rotation keys are premultiplied (Rx(90) * key, a quaternion identity),
 *     and a child at (0, 1, 0) stands at model y = +1 (it was at z = -1 before the fold);
 *   - translation (1, 2, 3) + Rz(90) + uniform scale 2 above the root: rest and every translation,
 *     rotation and scale key, expected values worked by hand (all exactly representable);
 *   - two levels of ancestors compose outer first (the reversed order gives another, hand-worked
 *     value); a non-joint node between two joints is folded into the lower joint;
 *   - identity ancestors (TRS fields or a `matrix`) change nothing: the .bsclip bytes equal those of
 *     the same file without them;
 *   - notes: what was folded, channels on the ancestors (ignored, still counted by the "outside the
 *     skeleton" note the validator reads), non-uniform scale and shear approximations;
 *   - the shared KayKit Med_General.glb (skipped when absent): in the rest pose the head is more than
 *     1 m above the root in model space (the character stands up). */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/clip_file.h"
#include "blendsync/io/gltf.h"
#include "blendsync/pose.h"
#include "blendsync/sample.h"

#define S45 0.70710678118654752440
#define DEG (3.14159265358979323846 / 180.0)

/* ------------------------------------------------------------------ quaternion reference (double) */

static void qmul(const double a[4], const double b[4], double o[4]) { /* Hamilton product a b, (x, y, z, w) */
    o[0] = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    o[1] = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    o[2] = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    o[3] = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
}

static void axis_angle(double x, double y, double z, double deg, double q[4]) {
    double h = deg * DEG / 2;
    q[0] = x * sin(h);
    q[1] = y * sin(h);
    q[2] = z * sin(h);
    q[3] = cos(h);
}

/* ------------------------------------------------------------------ fixture buffer */

/* 132 bytes of floats:
 *   @0   times 0 1 2                                  accessor 0 (SCALAR x3)
 *   @12  translations (0,0,0) (1,0,0) (0.25,-0.5,1)   accessor 1 (VEC3 x3)
 *   @48  rotations Rx(-90), Rx(-90) Ry(30), identity  accessor 2 (VEC4 x3)
 *   @96  scales (1,1,1) (0.5,0.5,0.5) (1,2,4)         accessor 3 (VEC3 x3) */
static const double k_trans[3][3] = {{0, 0, 0}, {1, 0, 0}, {0.25, -0.5, 1}};
static const double k_scale[3][3] = {{1, 1, 1}, {0.5, 0.5, 0.5}, {1, 2, 4}};
static double k_rot[3][4];

static void make_rotations(void) {
    double rx[4], ry[4];
    axis_angle(1, 0, 0, -90, rx);
    axis_angle(0, 1, 0, 30, ry);
    memcpy(k_rot[0], rx, sizeof rx);
    qmul(rx, ry, k_rot[1]);
    k_rot[2][0] = k_rot[2][1] = k_rot[2][2] = 0;
    k_rot[2][3] = 1;
}

static char* buffer_base64(void) {
    unsigned char b[132];
    size_t n = 0;
    float f;
#define PUT(v) (f = (float)(v), memcpy(b + n, &f, 4), n += 4) /* little-endian host */
    for (int i = 0; i < 3; i++) PUT(i);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++) PUT(k_trans[k][i]);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 4; i++) PUT(k_rot[k][i]);
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 3; i++) PUT(k_scale[k][i]);
#undef PUT
    assert_int_equal(n, sizeof b);
    return bsync_test_base64(b, n);
}

/* A glTF with the given nodes (JSON array body), scene roots, skin joints and animation channels
 * (samplers: 0 translation, 1 rotation, 2 scale, all LINEAR over times 0 1 2). */
static char* make_gltf(const char* nodes, const char* scene, const char* joints, const char* channels) {
    char* e = buffer_base64();
    static const char* fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[%s]}],\"nodes\":[%s],"
        "\"skins\":[{\"joints\":[%s]}],"
        "\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,%s\",\"byteLength\":132}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteLength\":132}],"
        "\"accessors\":[{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":96,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"}],"
        "\"animations\":[{\"name\":\"a\",\"samplers\":[{\"input\":0,\"output\":1},{\"input\":0,\"output\":2},"
        "{\"input\":0,\"output\":3}],\"channels\":[%s]}]}";
    size_t cap = strlen(fmt) + strlen(nodes) + strlen(scene) + strlen(joints) + strlen(e) + strlen(channels) + 1;
    char* s = malloc(cap);
    assert_non_null(s);
    snprintf(s, cap, fmt, scene, nodes, joints, e, channels);
    free(e);
    return s;
}

static void import_json(const char* json, bsync_asset* a) {
    bsync_error err;
    memset(&err, 0, sizeof err);
    bsync_result r = bsync_gltf_import_memory(json, strlen(json), "anc.gltf", NULL, NULL, a, &err);
    if (r != BSYNC_OK) print_error("import: %s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
}

static uint32_t joint(const bsync_asset* a, const char* name) {
    uint32_t i = 0;
    assert_int_equal(bsync_skeleton_find(a->skeleton, name, &i), BSYNC_OK);
    return i;
}

/* Sample clip 0 at t seconds (a whole number: t is a key time) into out. */
static void sample_at(const bsync_asset* a, int t, bsync_trs* out) {
    assert_true(a->clip_count >= 1);
    assert_int_equal(bsync_clip_sample(a->clips[0], (fix16_t)(t * 65536), BSYNC_LOOP_CLAMP,
                                       bsync_skeleton_rest_pose(a->skeleton), bsync_skeleton_joint_count(a->skeleton),
                                       NULL, out),
                     BSYNC_OK);
}

/* |raw - x * 65536| <= steps (a rotation: either sign of the whole quaternion). */
static void expect_vec(bsync_vec3 v, double x, double y, double z, double steps) {
    double d[3] = {v.x - x * 65536.0, v.y - y * 65536.0, v.z - z * 65536.0};
    for (int i = 0; i < 3; i++) {
        if (!(fabs(d[i]) <= steps)) print_error("component %d: %g raw steps off (%d, %d, %d) vs (%g, %g, %g)\n", i, d[i],
                                                (int)v.x, (int)v.y, (int)v.z, x, y, z);
        assert_true(fabs(d[i]) <= steps);
    }
}

static void expect_quat(bsync_quat q, const double e[4], double steps) {
    double raw[4] = {q.x, q.y, q.z, q.w};
    double s = raw[0] * e[0] + raw[1] * e[1] + raw[2] * e[2] + raw[3] * e[3] < 0 ? -1.0 : 1.0;
    for (int i = 0; i < 4; i++) {
        double d = raw[i] - s * e[i] * 65536.0;
        if (!(fabs(d) <= steps)) print_error("quat component %d: %g raw steps off\n", i, d);
        assert_true(fabs(d) <= steps);
    }
}

static unsigned char* to_bsclip(const bsync_asset* a, size_t* n) {
    *n = bsync_clip_file_size(a->skeleton, (const bsync_clip* const*)a->clips, a->clip_count);
    assert_true(*n > 0);
    unsigned char* buf = malloc(*n);
    assert_non_null(buf);
    assert_int_equal(bsync_clip_file_write_memory(a->skeleton, (const bsync_clip* const*)a->clips, a->clip_count, buf, *n),
                     BSYNC_OK);
    return buf;
}

static int setup(void** state) {
    (void)state;
    make_rotations();
    return 0;
}

/* ------------------------------------------------------------------ tests */

/* Blender: armature node +90 X, root joint rest -90 X, a child "head" at (0, 1, 0). */
static void test_armature_rotation(void** state) {
    (void)state;
    char nodes[512];
    snprintf(nodes, sizeof nodes,
             "{\"name\":\"Armature\",\"rotation\":[%.17g,0,0,%.17g],\"children\":[1]},"
             "{\"name\":\"root\",\"rotation\":[%.17g,0,0,%.17g],\"children\":[2]},"
             "{\"name\":\"head\",\"translation\":[0,1,0]}",
             S45, S45, -S45, S45);
    char* json = make_gltf(nodes, "0", "1,2",
                           "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
                           "{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
                           "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"rotation\"}}");
    bsync_asset a;
    import_json(json, &a);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 2);
    uint32_t root = joint(&a, "root"), head = joint(&a, "head");
    const bsync_trs* rest = bsync_skeleton_rest_pose(a.skeleton);
    /* Rx(90) Rx(-90) = identity, within 1 raw step */
    const double id[4] = {0, 0, 0, 1};
    expect_quat(rest[root].r, id, 1);
    expect_vec(rest[root].t, 0, 0, 0, 0);
    expect_vec(rest[root].s, 1, 1, 1, 0);
    /* the child stands up: model (0, 1, 0), not (0, 0, -1) */
    bsync_trs model[2];
    assert_int_equal(bsync_pose_local_to_model(bsync_skeleton_parents(a.skeleton), 2, rest, 0, 2, model), BSYNC_OK);
    expect_vec(model[head].t, 0, 1, 0, 2);
    /* rotation keys premultiplied by Rx(90): key k -> Rx(90) k_rot[k] */
    double rx[4], e[4];
    axis_angle(1, 0, 0, 90, rx);
    bsync_trs p[2];
    for (int k = 0; k < 3; k++) {
        qmul(rx, k_rot[k], e);
        sample_at(&a, k, p);
        expect_quat(p[root].r, e, 1);
    }
    /* key 1 was Rx(-90) Ry(30): now Ry(30) (a hand-checkable case of the above) */
    double ry[4];
    axis_angle(0, 1, 0, 30, ry);
    sample_at(&a, 1, p);
    expect_quat(p[root].r, ry, 1);
    /* notes: the fold, and the armature's own channels (ignored, still "outside the skeleton") */
    assert_non_null(strstr(a.notes, "root joint 'root' sits under non-joint node 'Armature': folded"));
    assert_non_null(strstr(a.notes, "rotation 90.0000 deg about (1.0000, 0.0000, 0.0000)"));
    assert_non_null(strstr(a.notes, "clip 'a': 2 channels on nodes outside the skeleton ignored"));
    assert_non_null(strstr(a.notes, "2 channels in 1 clips animate non-joint nodes above the skeleton's joints (first: 'Armature')"));
    assert_null(strstr(a.notes, "not uniform"));
    assert_null(strstr(a.notes, "shear"));
    bsync_asset_destroy(&a);
    free(json);
}

/* Ancestor T = (1, 2, 3), R = Rz(90), S = 2 (uniform); root rest t = (0.5, 0, 0.25).
 * A o x: t' = (1,2,3) + Rz90 (2 t), with Rz90 (x, y, z) = (-y, x, z); r' = Rz90 r; s' = 2 s. */
static void test_translation_uniform_scale(void** state) {
    (void)state;
    char nodes[512];
    snprintf(nodes, sizeof nodes,
             "{\"name\":\"Rig\",\"translation\":[1,2,3],\"rotation\":[0,0,%.17g,%.17g],\"scale\":[2,2,2],"
             "\"children\":[1]},{\"name\":\"hips\",\"translation\":[0.5,0,0.25]}",
             S45, S45);
    char* json = make_gltf(nodes, "0", "1",
                           "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}},"
                           "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
                           "{\"sampler\":2,\"target\":{\"node\":1,\"path\":\"scale\"}}");
    bsync_asset a;
    import_json(json, &a);
    const bsync_trs* rest = bsync_skeleton_rest_pose(a.skeleton);
    /* rest: (1,2,3) + Rz90 (1, 0, 0.5) = (1,2,3) + (0, 1, 0.5) */
    expect_vec(rest[0].t, 1, 3, 3.5, 0);
    const double rz[4] = {0, 0, S45, S45};
    expect_quat(rest[0].r, rz, 1);
    expect_vec(rest[0].s, 2, 2, 2, 0);
    /* translation keys (0,0,0) (1,0,0) (0.25,-0.5,1): doubled (0,0,0) (2,0,0) (0.5,-1,2), turned
     * (0,0,0) (0,2,0) (1,0.5,2), moved (1,2,3) (1,4,3) (2,2.5,5) */
    const double et[3][3] = {{1, 2, 3}, {1, 4, 3}, {2, 2.5, 5}};
    /* scale keys times 2 */
    const double es[3][3] = {{2, 2, 2}, {1, 1, 1}, {2, 4, 8}};
    bsync_trs p[1];
    for (int k = 0; k < 3; k++) {
        sample_at(&a, k, p);
        expect_vec(p[0].t, et[k][0], et[k][1], et[k][2], 0);
        expect_vec(p[0].s, es[k][0], es[k][1], es[k][2], 0);
        double e[4];
        qmul(rz, k_rot[k], e);
        expect_quat(p[0].r, e, 1);
    }
    /* between keys the fold is linear, so sampling at 0.5 s lands halfway: (1, 3, 3) */
    assert_int_equal(bsync_clip_sample(a.clips[0], 32768, BSYNC_LOOP_CLAMP, rest, 1, NULL, p), BSYNC_OK);
    expect_vec(p[0].t, 1, 3, 3, 1);
    assert_non_null(strstr(a.notes, "translation (1, 2, 3) m, scale (2, 2, 2)"));
    assert_non_null(strstr(a.notes, "rotation 90.0000 deg about (0.0000, 0.0000, 1.0000)"));
    assert_null(strstr(a.notes, "not uniform"));
    bsync_asset_destroy(&a);
    free(json);
}

/* Outer P1: t (0,0,1), Ry(90); inner P2: t (1,0,0), scale 3; root rest t (1,0,0), rotation Rx(90).
 * P1 o P2: t = (0,0,1) + Ry90 (1,0,0) = (0,0,1) + (0,0,-1) = (0,0,0), r = Ry90, s = 3.
 * Root: t = Ry90 (3,0,0) = (0,0,-3), r = Ry90 Rx90, s = 3.
 * (The other order, P2 o P1 = t (1,0,3), would put the root at (1,0,3) + Ry90 (3,0,0) = (1,0,0).) */
static void test_two_levels(void** state) {
    (void)state;
    char nodes[768];
    snprintf(nodes, sizeof nodes,
             "{\"name\":\"P1\",\"translation\":[0,0,1],\"rotation\":[0,%.17g,0,%.17g],\"children\":[1]},"
             "{\"name\":\"P2\",\"translation\":[1,0,0],\"scale\":[3,3,3],\"children\":[2]},"
             "{\"name\":\"root\",\"translation\":[1,0,0],\"rotation\":[%.17g,0,0,%.17g]}",
             S45, S45, S45, S45);
    char* json = make_gltf(nodes, "0", "2", "{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}}");
    bsync_asset a;
    import_json(json, &a);
    const bsync_trs* rest = bsync_skeleton_rest_pose(a.skeleton);
    expect_vec(rest[0].t, 0, 0, -3, 1);
    expect_vec(rest[0].s, 3, 3, 3, 1);
    double ry[4], rx[4], e[4];
    axis_angle(0, 1, 0, 90, ry);
    axis_angle(1, 0, 0, 90, rx);
    qmul(ry, rx, e);
    expect_quat(rest[0].r, e, 1);
    /* key (0.25,-0.5,1) -> Ry90 (0.75,-1.5,3) = (3,-1.5,-0.75) (Ry90 (x, y, z) = (z, y, -x)) */
    bsync_trs p[1];
    sample_at(&a, 2, p);
    expect_vec(p[0].t, 3, -1.5, -0.75, 1);
    assert_non_null(strstr(a.notes, "under non-joint nodes 'P1' > 'P2': folded"));
    bsync_asset_destroy(&a);
    free(json);
}

/* A non-joint node between two joints is folded into the lower joint (its parent stays the joint). */
static void test_between_joints(void** state) {
    (void)state;
    const char* nodes = "{\"name\":\"hips\",\"translation\":[0,1,0],\"children\":[1]},"
                        "{\"name\":\"offset\",\"translation\":[0,0.5,0],\"scale\":[2,2,2],\"children\":[2]},"
                        "{\"name\":\"spine\",\"translation\":[0,0.25,0]}";
    char* json = make_gltf(nodes, "0", "0,2", "{\"sampler\":0,\"target\":{\"node\":2,\"path\":\"translation\"}}");
    bsync_asset a;
    import_json(json, &a);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 2);
    uint32_t hips = joint(&a, "hips"), spine = joint(&a, "spine");
    assert_int_equal(bsync_skeleton_parent(a.skeleton, spine), (int32_t)hips);
    const bsync_trs* rest = bsync_skeleton_rest_pose(a.skeleton);
    expect_vec(rest[hips].t, 0, 1, 0, 0); /* no ancestors: untouched */
    expect_vec(rest[spine].t, 0, 1, 0, 0); /* 0.5 + 2 * 0.25 */
    expect_vec(rest[spine].s, 2, 2, 2, 0);
    bsync_trs model[2];
    assert_int_equal(bsync_pose_local_to_model(bsync_skeleton_parents(a.skeleton), 2, rest, 0, 2, model), BSYNC_OK);
    expect_vec(model[spine].t, 0, 2, 0, 1); /* glTF: 1 + 0.5 + 2 * 0.25 */
    bsync_trs p[2];
    sample_at(&a, 1, p); /* key (1,0,0) -> (0,0.5,0) + (2,0,0) */
    expect_vec(p[spine].t, 2, 0.5, 0, 0);
    assert_non_null(strstr(a.notes, "joint 'spine' sits under non-joint node 'offset'"));
    bsync_asset_destroy(&a);
    free(json);
}

/* Identity ancestors (explicit TRS, an identity matrix, none at all) give the same .bsclip bytes. */
static void test_identity_ancestor(void** state) {
    (void)state;
    const char* channels = "{\"sampler\":0,\"target\":{\"node\":%d,\"path\":\"translation\"}},"
                           "{\"sampler\":1,\"target\":{\"node\":%d,\"path\":\"rotation\"}},"
                           "{\"sampler\":2,\"target\":{\"node\":%d,\"path\":\"scale\"}}";
    char ch0[400], ch1[400], ch2[400];
    snprintf(ch0, sizeof ch0, channels, 0, 0, 0);
    snprintf(ch1, sizeof ch1, channels, 1, 1, 1);
    snprintf(ch2, sizeof ch2, channels, 2, 2, 2);
    char joints[256];
    snprintf(joints, sizeof joints,
             "{\"name\":\"root\",\"translation\":[0.5,0.25,0],\"rotation\":[%.17g,0,0,%.17g],\"children\":[%%d]},"
             "{\"name\":\"head\",\"translation\":[0,1,0]}",
             -S45, S45);
    char nodes0[512], nodes1[640], nodes2[768];
    snprintf(nodes0, sizeof nodes0, joints, 1);
    char tmp[512];
    snprintf(tmp, sizeof tmp, joints, 2);
    snprintf(nodes1, sizeof nodes1,
             "{\"name\":\"Rig\",\"translation\":[0,0,0],\"rotation\":[0,0,0,1],\"scale\":[1,1,1],\"children\":[1]},%s",
             tmp);
    snprintf(tmp, sizeof tmp, joints, 3);
    snprintf(nodes2, sizeof nodes2,
             "{\"name\":\"Top\",\"children\":[1]},"
             "{\"name\":\"Rig\",\"matrix\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],\"children\":[2]},%s",
             tmp);
    char* j0 = make_gltf(nodes0, "0", "0,1", ch0);
    char* j1 = make_gltf(nodes1, "0", "1,2", ch1);
    char* j2 = make_gltf(nodes2, "0", "2,3", ch2);
    bsync_asset a0, a1, a2;
    import_json(j0, &a0);
    import_json(j1, &a1);
    import_json(j2, &a2);
    size_t n0, n1, n2;
    unsigned char* b0 = to_bsclip(&a0, &n0);
    unsigned char* b1 = to_bsclip(&a1, &n1);
    unsigned char* b2 = to_bsclip(&a2, &n2);
    assert_int_equal(n0, n1);
    assert_int_equal(n0, n2);
    assert_memory_equal(b0, b1, n0);
    assert_memory_equal(b0, b2, n0);
    assert_null(strstr(a1.notes, "folded"));
    assert_null(strstr(a2.notes, "folded"));
    /* and the rest rotation really is the file's -90 X (nothing folded) */
    const double e[4] = {-S45, 0, 0, S45};
    expect_quat(bsync_skeleton_rest_pose(a1.skeleton)[0].r, e, 1);
    free(b0);
    free(b1);
    free(b2);
    bsync_asset_destroy(&a0);
    bsync_asset_destroy(&a1);
    bsync_asset_destroy(&a2);
    free(j0);
    free(j1);
    free(j2);
}

/* Non-uniform scale (per axis, noted) and a sheared matrix ancestor (dropped, noted). */
static void test_approximations(void** state) {
    (void)state;
    const char* nodes = "{\"name\":\"Squash\",\"scale\":[1,2,1],\"children\":[1]},{\"name\":\"root\",\"translation\":[1,1,1]}";
    char* json = make_gltf(nodes, "0", "1", "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}");
    bsync_asset a;
    import_json(json, &a);
    expect_vec(bsync_skeleton_rest_pose(a.skeleton)[0].t, 1, 2, 1, 0); /* translation: exact */
    expect_vec(bsync_skeleton_rest_pose(a.skeleton)[0].s, 1, 2, 1, 0);
    assert_non_null(strstr(a.notes, "the scale is not uniform"));
    bsync_asset_destroy(&a);
    free(json);
    /* columns (1,0,0) and (1,1,0)/sqrt2... here (1,1,0): 45 degrees from the x column */
    nodes = "{\"name\":\"Shear\",\"matrix\":[1,0,0,0,1,1,0,0,0,0,1,0,0,0,0,1],\"children\":[1]},"
            "{\"name\":\"root\",\"translation\":[0,0,0]}";
    json = make_gltf(nodes, "0", "1", "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}");
    import_json(json, &a);
    assert_non_null(strstr(a.notes, "shear by 45 deg"));
    bsync_asset_destroy(&a);
    free(json);
}

/* The shared KayKit character: the head must be well above the root in the rest pose. */
static void test_kaykit_stands_up(void** state) {
    (void)state;
    const char* path = bsync_test_shared_path("data/kaykit-character-animations/Med_General.glb");
    if (!path) {
        print_message("skip: no shared KayKit data\n");
        skip();
    }
    bsync_asset a;
    bsync_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(bsync_gltf_import_file(path, NULL, &a, &err), BSYNC_OK);
    uint32_t n = bsync_skeleton_joint_count(a.skeleton);
    uint32_t root = joint(&a, "root"), head = joint(&a, "head"), hand = joint(&a, "hand.l");
    bsync_trs* model = malloc(n * sizeof *model);
    assert_non_null(model);
    assert_int_equal(bsync_pose_local_to_model(bsync_skeleton_parents(a.skeleton), n, bsync_skeleton_rest_pose(a.skeleton),
                                               0, n, model),
                     BSYNC_OK);
    double hy = bsync_fx_to_double(model[head].t.y) - bsync_fx_to_double(model[root].t.y);
    double hz = bsync_fx_to_double(model[head].t.z) - bsync_fx_to_double(model[root].t.z);
    print_message("KayKit rest: head - root = y %.4f m, z %.4f m; hand.l y %.4f m\n", hy, hz,
                  bsync_fx_to_double(model[hand].t.y));
    assert_true(hy > 1.0);
    assert_true(fabs(hz) < 0.5);
    assert_true(bsync_fx_to_double(model[hand].t.y) > 0.5);
    /* and when a clip plays (Idle_A at 0.5 s) the character still stands */
    const bsync_clip* idle = NULL;
    for (uint32_t i = 0; i < a.clip_count; i++)
        if (!strcmp(bsync_clip_name(a.clips[i]), "Rig_Medium|Idle_A")) idle = a.clips[i];
    assert_non_null(idle);
    bsync_trs* local = malloc(n * sizeof *local);
    assert_non_null(local);
    assert_int_equal(bsync_clip_sample(idle, 32768, BSYNC_LOOP_WRAP, bsync_skeleton_rest_pose(a.skeleton), n, NULL, local),
                     BSYNC_OK);
    assert_int_equal(bsync_pose_local_to_model(bsync_skeleton_parents(a.skeleton), n, local, 0, n, model), BSYNC_OK);
    assert_true(bsync_fx_to_double(model[head].t.y) - bsync_fx_to_double(model[root].t.y) > 1.0);
    assert_non_null(strstr(a.notes, "root joint 'root' sits under non-joint node 'Rig_Medium': folded"));
    free(local);
    free(model);
    bsync_asset_destroy(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_armature_rotation), cmocka_unit_test(test_translation_uniform_scale),
        cmocka_unit_test(test_two_levels),        cmocka_unit_test(test_between_joints),
        cmocka_unit_test(test_identity_ancestor), cmocka_unit_test(test_approximations),
        cmocka_unit_test(test_kaykit_stands_up),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
