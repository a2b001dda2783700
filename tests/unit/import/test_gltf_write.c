/* test_gltf_write.c — the .glb writer (io/gltf_write.h): GLB header and chunk layout byte by byte,
 * values as floats of the fix16 values, sign-continuous rotations, errors with no file left behind,
 * and the bake round trip: a graph playing exactly one clip, run tick by tick, written and
 * re-imported, gives back the instance's poses within the fixed-point resolution. */
#include "test_support.h"
#include "fixtures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/asset.h"
#include "blendsync/io/gltf.h"
#include "blendsync/io/gltf_write.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/skeleton.h"
#include "blendsync/clip.h"

static char g_dir[64];

static const char* in_dir(const char* name) { return bsync_test_path(g_dir, name); }

static void write_file(const char* name, const void* data, size_t len) {
    assert_int_equal(bsync_test_write(g_dir, name, data, len), 0);
}

static uint32_t rd32(const unsigned char* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float rdf(const unsigned char* p) {
    uint32_t u = rd32(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static fix16_t raw(double v) { return (fix16_t)lround(v * 65536.0); }

/* Skeleton: root "hips" (0), "spine" (1, child of 0), "a\"b\\c" (2, child of 0), "arm" (3, child of 1). */
static bsync_skeleton* make_skeleton(void) {
    const double h = sqrt(0.5);
    bsync_joint_desc j[4];
    memset(j, 0, sizeof j);
    const char* names[4] = {"hips", "spine", "a\"b\\c", "arm"};
    const int32_t parents[4] = {BSYNC_NO_PARENT, 0, 0, 1};
    for (int i = 0; i < 4; i++) {
        j[i].name = names[i];
        j[i].parent = parents[i];
        j[i].rest.t = (bsync_vec3){raw(0.25 * i), raw(1.5), raw(-0.125 * i)};
        j[i].rest.r = (bsync_quat){0, 0, 0, raw(1.0)};
        j[i].rest.s = (bsync_vec3){raw(1.0), raw(1.0), raw(1.0)};
    }
    j[1].rest.r = (bsync_quat){0, raw(h), 0, raw(h)};
    j[3].rest.s = (bsync_vec3){raw(2.0), raw(0.5), raw(1.0)};
    bsync_skeleton_desc d = {j, 4};
    bsync_skeleton* sk = NULL;
    assert_int_equal(bsync_skeleton_create(&d, NULL, &sk), BSYNC_OK);
    return sk;
}

/* 5 keys x 4 joints; joint 1's rotation flips sign at key 2 (same rotation). */
static void make_poses(bsync_trs* p) {
    for (int k = 0; k < 5; k++)
        for (int j = 0; j < 4; j++) {
            bsync_trs* t = &p[k * 4 + j];
            t->t = (bsync_vec3){raw(0.1 * k + j), raw(-0.3 * k), raw(100.0 + k)};
            double a = 0.2 * k + 0.1 * j;
            t->r = (bsync_quat){raw(sin(a) * 0.6), raw(sin(a) * 0.8), 0, raw(cos(a))};
            t->s = (bsync_vec3){raw(1.0 + 0.01 * k), raw(1.0), raw(0.5)};
        }
    bsync_quat* q = &p[2 * 4 + 1].r;
    q->x = -q->x;
    q->y = -q->y;
    q->z = -q->z;
    q->w = -q->w;
}

static void test_layout(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton();
    bsync_trs poses[20];
    make_poses(poses);
    bsync_gltf_bake b = {sk, "walk", NULL, 30, 5, poses};
    unsigned char* g = NULL;
    size_t n = 0;
    bsync_error err;
    assert_int_equal(bsync_gltf_write_glb_memory(&b, &g, &n, &err), BSYNC_OK);
    /* header: "glTF", 2, total */
    assert_memory_equal(g, "glTF", 4);
    assert_int_equal(rd32(g + 4), 2);
    assert_int_equal(rd32(g + 8), n);
    assert_int_equal(n % 4, 0);
    uint32_t jl = rd32(g + 12);
    assert_int_equal(jl % 4, 0);
    assert_memory_equal(g + 16, "JSON", 4);
    const unsigned char* bc = g + 20 + jl;
    uint32_t bl = rd32(bc);
    assert_memory_equal(bc + 4, "BIN\0", 4);
    assert_int_equal(bl % 4, 0);
    assert_int_equal(20 + jl + 8 + bl, n); /* exactly two chunks */
    /* data: times 4*5, per joint (12 + 16 + 12) * 5 = 200 -> 20 + 800 = 820 (already a multiple of 4) */
    assert_int_equal(bl, 820);
    char* json = (char*)malloc(jl + 1);
    memcpy(json, g + 20, jl);
    json[jl] = '\0';
    assert_true(json[0] == '{');
    size_t e = strlen(json);
    while (e > 0 && json[e - 1] == ' ') e--;
    assert_true(json[e - 1] == '}' && jl - e < 4); /* padded with 0..3 spaces */
    assert_non_null(strstr(json, "\"version\":\"2.0\""));
    assert_non_null(strstr(json, "\"buffers\":[{\"byteLength\":820}]"));
    assert_non_null(strstr(json, "\"scenes\":[{\"nodes\":[0]}]"));
    assert_non_null(strstr(json, "\"name\":\"hips\",\"children\":[1,2]"));
    assert_non_null(strstr(json, "\"name\":\"spine\",\"children\":[3]"));
    assert_non_null(strstr(json, "\"name\":\"a\\\"b\\\\c\""));
    assert_non_null(strstr(json, "\"max\":[0.13333334028720856]")); /* (float)(4/30) exactly */
    assert_non_null(strstr(json, "\"name\":\"walk\""));
    assert_non_null(strstr(json, "\"interpolation\":\"LINEAR\""));
    assert_non_null(strstr(json, "{\"sampler\":5,\"target\":{\"node\":1,\"path\":\"scale\"}}"));
    free(json);
    const unsigned char* d = bc + 8;
    for (int k = 0; k < 5; k++) assert_true(rdf(d + 4 * k) == (float)(k / 30.0));
    /* joint j's block starts at 20 + 200 j: translation, rotation (+60), scale (+140) */
    for (int j = 0; j < 4; j++)
        for (int k = 0; k < 5; k++) {
            const unsigned char* jb = d + 20 + 200 * j;
            const bsync_trs* p = &poses[k * 4 + j];
            assert_true(rdf(jb + 12 * k) == (float)(p->t.x / 65536.0));
            assert_true(rdf(jb + 12 * k + 8) == (float)(p->t.z / 65536.0));
            double sgn = (j == 1 && k == 2) ? -1.0 : 1.0; /* written sign-continuous */
            assert_true(rdf(jb + 60 + 16 * k + 4) == (float)(sgn * p->r.y / 65536.0));
            assert_true(rdf(jb + 60 + 16 * k + 12) == (float)(sgn * p->r.w / 65536.0));
            assert_true(rdf(jb + 140 + 12 * k) == (float)(p->s.x / 65536.0));
        }
    free(g);
    bsync_skeleton_destroy(sk);
}

static void test_file_reimport(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton();
    bsync_trs poses[20];
    make_poses(poses);
    bsync_gltf_bake b = {sk, "walk", NULL, 30, 5, poses};
    bsync_error err;
    const char* path = in_dir("w.glb");
    assert_int_equal(bsync_gltf_write_glb_file(path, &b, &err), BSYNC_OK);
    bsync_asset a;
    assert_int_equal(bsync_asset_import_file(path, NULL, &a, &err), BSYNC_OK);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 4);
    const bsync_trs* r0 = bsync_skeleton_rest_pose(sk);
    const bsync_trs* r1 = bsync_skeleton_rest_pose(a.skeleton);
    for (uint32_t j = 0; j < 4; j++) {
        assert_string_equal(bsync_skeleton_joint_name(a.skeleton, j), bsync_skeleton_joint_name(sk, j));
        assert_int_equal(bsync_skeleton_parent(a.skeleton, j), bsync_skeleton_parent(sk, j));
        assert_memory_equal(&r1[j].t, &r0[j].t, sizeof(bsync_vec3)); /* |v| < 256: exact in float */
        assert_memory_equal(&r1[j].s, &r0[j].s, sizeof(bsync_vec3));
        assert_true(abs(r1[j].r.x - r0[j].r.x) <= 2 && abs(r1[j].r.y - r0[j].r.y) <= 2 &&
                    abs(r1[j].r.z - r0[j].r.z) <= 2 && abs(r1[j].r.w - r0[j].r.w) <= 2);
    }
    assert_int_equal(a.clip_count, 1);
    assert_string_equal(bsync_clip_name(a.clips[0]), "walk");
    assert_int_equal(bsync_clip_track_count(a.clips[0]), 12);
    for (uint32_t i = 0; i < 12; i++) {
        bsync_track_info ti;
        assert_int_equal(bsync_clip_track_info(a.clips[0], i, &ti), BSYNC_OK);
        assert_int_equal(ti.key_count, 5);
        for (uint32_t k = 0; k < 5; k++) {
            assert_true(abs(ti.times[k] - raw(k / 30.0)) <= 1);
            const bsync_trs* p = &poses[k * 4 + ti.joint];
            if (ti.kind == BSYNC_TRACK_ROTATION) {
                int s = (ti.joint == 1 && k == 2) ? -1 : 1;
                assert_true(abs(ti.quats[k].x - s * p->r.x) <= 2 && abs(ti.quats[k].y - s * p->r.y) <= 2 &&
                            abs(ti.quats[k].z - s * p->r.z) <= 2 && abs(ti.quats[k].w - s * p->r.w) <= 2);
            } else {
                const bsync_vec3* v = ti.kind == BSYNC_TRACK_TRANSLATION ? &p->t : &p->s;
                assert_memory_equal(&ti.vec3s[k], v, sizeof *v);
            }
        }
    }
    bsync_asset_destroy(&a);
    bsync_skeleton_destroy(sk);
}

static void test_errors(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton();
    bsync_trs poses[20];
    make_poses(poses);
    unsigned char* g = NULL;
    size_t n = 0;
    bsync_error err;
    bsync_gltf_bake b = {sk, NULL, NULL, 30, 0, poses};
    assert_int_equal(bsync_gltf_write_glb_memory(&b, &g, &n, &err), BSYNC_INVALID_ARGUMENT);
    b.key_count = 1;
    b.tick_rate = 0;
    assert_int_equal(bsync_gltf_write_glb_memory(&b, &g, &n, &err), BSYNC_INVALID_ARGUMENT);
    b.tick_rate = 1001;
    assert_int_equal(bsync_gltf_write_glb_memory(&b, &g, &n, NULL), BSYNC_INVALID_ARGUMENT);
    b.tick_rate = 60;
    assert_int_equal(bsync_gltf_write_glb_memory(NULL, &g, &n, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_gltf_write_glb_memory(&b, NULL, &n, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_gltf_write_glb_file(NULL, &b, &err), BSYNC_INVALID_ARGUMENT);
    /* one key: a valid file, times [0], default names */
    assert_int_equal(bsync_gltf_write_glb_memory(&b, &g, &n, &err), BSYNC_OK);
    assert_non_null(strstr((const char*)g + 20, "\"max\":[0]"));
    assert_non_null(strstr((const char*)g + 20, "\"name\":\"bake\""));
    assert_non_null(strstr((const char*)g + 20, "\"generator\":\"blendsync\""));
    free(g);
    /* an unwritable path: IO error, nothing left in the folder */
    const char* bad = in_dir("no/such/dir/x.glb");
    assert_int_equal(bsync_gltf_write_glb_file(bad, &b, &err), BSYNC_IO_ERROR);
    assert_non_null(strstr(err.message, "x.glb"));
    assert_int_equal(access(in_dir("no"), F_OK), -1);
    bsync_skeleton_destroy(sk);
}

/* ---- the bake round trip through a graph config ---- */


/* hips -> spine; animation "walk", 1 s, keys at 0, 0.5, 1: hips moves (0,0,0) (1,0.5,0) (2,0,0), spine
 * turns about +Y by 0, 90, 180 degrees. */
static void write_clip_gltf(void) {
    const float h = 0.70710678f;
    float v[3 + 9 + 12] = {0, 0.5f, 1, 0, 0, 0, 1, 0.5f, 0, 2, 0, 0, 0, 0, 0, 1, 0, h, 0, h, 0, 1, 0, 0};
    char* e = bsync_test_base64((const unsigned char*)v, sizeof v);
    char json[4096];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"name\":\"hips\",\"children\":[1]},{\"name\":\"spine\",\"translation\":[0,1,0]}],"
             "\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,%s\",\"byteLength\":96}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":96}],\"accessors\":["
             "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},"
             "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
             "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"}],"
             "\"animations\":[{\"name\":\"walk\",\"samplers\":[{\"input\":0,\"output\":1},{\"input\":0,\"output\":2}],"
             "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
             "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}}]}]}",
             e);
    free(e);
    write_file("clip.gltf", json, strlen(json));
}

static void test_bake_round_trip(void** state) {
    (void)state;
    write_clip_gltf();
    const char* cfg =
        "{ \"tick_rate\": 30, \"parameters\": { \"speed\": {} }, \"root\": \"move\","
        "  \"clips\": { \"walk\": { \"source\": \"clip.gltf\" } },"
        "  \"nodes\": { \"move\": { \"type\": \"Simple1D\", \"parameter\": \"speed\","
        "                           \"children\": [ { \"motion\": \"walk\", \"threshold\": 0 } ] } } }";
    write_file("cfg.json", cfg, strlen(cfg));
    static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    bsync_graph_config* gc = NULL;
    bsync_error err;
    if (bsync_graph_config_load(in_dir("cfg.json"), NULL, &gc, diags, &err) != BSYNC_OK) fail_msg("%s", err.message);
    const bsync_graph* graph = bsync_graph_config_graph(gc);
    const bsync_skeleton* sk = bsync_graph_config_skeleton(gc);
    assert_non_null(sk);
    enum { TICKS = 45, J = 2 };
    void* mem = NULL;
    bsync_instance* inst = bsync_test_instance_new(graph, &mem);
    bsync_trs poses[(TICKS + 1) * J];
    assert_int_equal(bsync_instance_pose(inst, poses, NULL), BSYNC_OK);
    fix16_t target = 0;
    bsync_instance_input in = {&target, 1};
    for (int t = 0; t < TICKS; t++) {
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(inst, poses + (t + 1) * J, NULL), BSYNC_OK);
    }
    /* independent anchors: one clip at time scale 1 -> tick 15 is 0.5 s (the middle key), tick 30 wraps to 0 */
    assert_int_equal(poses[15 * J].t.x, raw(1.0));
    assert_int_equal(poses[15 * J].t.y, raw(0.5));
    assert_int_equal(poses[30 * J].t.x, 0);
    assert_true(abs(poses[15 * J + 1].r.y - raw(sqrt(0.5))) <= 2);
    bsync_gltf_bake b = {sk, "cfg", NULL, bsync_graph_tick_rate(graph), TICKS + 1, poses};
    assert_int_equal(bsync_gltf_write_glb_file(in_dir("bake.glb"), &b, &err), BSYNC_OK);
    bsync_asset a;
    if (bsync_gltf_import_file(in_dir("bake.glb"), NULL, &a, &err) != BSYNC_OK) fail_msg("%s", err.message);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), J);
    for (uint32_t j = 0; j < J; j++) {
        assert_string_equal(bsync_skeleton_joint_name(a.skeleton, j), bsync_skeleton_joint_name(sk, j));
        assert_int_equal(bsync_skeleton_parent(a.skeleton, j), bsync_skeleton_parent(sk, j));
        assert_memory_equal(&bsync_skeleton_rest_pose(a.skeleton)[j], &bsync_skeleton_rest_pose(sk)[j],
                            sizeof(bsync_trs));
    }
    assert_int_equal(a.clip_count, 1);
    assert_int_equal(bsync_clip_duration(a.clips[0]), raw(45.0 / 30.0));
    int worst_q = 0;
    for (uint32_t i = 0; i < bsync_clip_track_count(a.clips[0]); i++) {
        bsync_track_info ti;
        assert_int_equal(bsync_clip_track_info(a.clips[0], i, &ti), BSYNC_OK);
        assert_int_equal(ti.key_count, TICKS + 1);
        for (uint32_t k = 0; k <= TICKS; k++) {
            const bsync_trs* p = &poses[k * J + ti.joint];
            if (ti.kind == BSYNC_TRACK_ROTATION) {
                const bsync_quat* q = &ti.quats[k];
                int64_t dot = (int64_t)q->x * p->r.x + (int64_t)q->y * p->r.y + (int64_t)q->z * p->r.z +
                              (int64_t)q->w * p->r.w;
                int s = dot < 0 ? -1 : 1; /* the same rotation either sign */
                int d[4] = {abs(q->x - s * p->r.x), abs(q->y - s * p->r.y), abs(q->z - s * p->r.z),
                            abs(q->w - s * p->r.w)};
                for (int c = 0; c < 4; c++) {
                    assert_true(d[c] <= 2);
                    if (d[c] > worst_q) worst_q = d[c];
                }
            } else {
                const bsync_vec3* v = ti.kind == BSYNC_TRACK_TRANSLATION ? &p->t : &p->s;
                assert_true(abs(ti.vec3s[k].x - v->x) <= 1 && abs(ti.vec3s[k].y - v->y) <= 1 &&
                            abs(ti.vec3s[k].z - v->z) <= 1);
            }
        }
    }
    printf("round trip: %d ticks, worst rotation component error %d raw steps\n", TICKS, worst_q);
    bsync_asset_destroy(&a);
    free(mem);
    bsync_graph_config_destroy(gc);
}

static int setup(void** state) {
    (void)state;
    return bsync_test_tmpdir(g_dir, sizeof g_dir, "gltfw");
}

static int teardown(void** state) {
    (void)state;
    bsync_test_rmtree(g_dir);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_file_reimport),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bake_round_trip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
