/* test_gltf.c — the glTF importer (blendsync/io/gltf.h): a hand-built 2-joint fixture written by the
 * test as embedded (.gltf with a data: URI), external (.gltf + .bin) and binary (.glb) files, with
 * known keys for LINEAR, STEP, CUBICSPLINE, normalized shorts with a byteStride, sparse accessors, a
 * matrix node, skin reordering and the no-skin case; hostile input (bad indices, lengths, every
 * truncation and random byte flips of the .glb); every glTF in the shared data; and THE ORACLE:
 * ozz-animation's own sampled and blended poses of pab_locomotion_runtime.gltf. */
#include "test_support.h"
#include "fixtures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "blendsync/checksum.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/io/gltf.h"
#include "blendsync/pose.h"
#include "blendsync/sample.h"

#define STEP_D (1.0 / 65536.0)
#define S45 0.70710678118654752440

/* ------------------------------------------------------------------ fixture */

typedef struct bytes {
    unsigned char d[512];
    size_t n;
} bytes;

static void put_f(bytes* b, double v) {
    float f = (float)v;
    memcpy(b->d + b->n, &f, 4); /* little-endian host (x86, ARM) */
    b->n += 4;
}
static void put_s16(bytes* b, int v) {
    b->d[b->n++] = (unsigned char)(v & 0xFF);
    b->d[b->n++] = (unsigned char)((v >> 8) & 0xFF);
}

/* The 208-byte buffer described in the JSON below. */
static void fixture_buffer(bytes* b) {
    memset(b, 0, sizeof *b);
    /* A0 @0: times 0 1 2 */
    put_f(b, 0); put_f(b, 1); put_f(b, 2);
    /* A1 @12: translations (0,0,0) (1,0,0) (2,0.5,0) */
    put_f(b, 0); put_f(b, 0); put_f(b, 0); put_f(b, 1); put_f(b, 0); put_f(b, 0); put_f(b, 2); put_f(b, 0.5); put_f(b, 0);
    /* A2 @48: times 0 0.5 */
    put_f(b, 0); put_f(b, 0.5);
    /* A3 @56: rotations identity, 90 deg about Z */
    put_f(b, 0); put_f(b, 0); put_f(b, 0); put_f(b, 1); put_f(b, 0); put_f(b, 0); put_f(b, S45); put_f(b, S45);
    /* A4 @88: times 0 1 */
    put_f(b, 0); put_f(b, 1);
    /* A5 @96: cubic scale: key0 in 0, value 1, out 1; key1 in -1, value 2, out 0 (each xyz equal) */
    double cub[6] = {0, 1, 1, -1, 2, 0};
    for (int i = 0; i < 6; i++) { put_f(b, cub[i]); put_f(b, cub[i]); put_f(b, cub[i]); }
    /* A6 @168: normalized shorts VEC4, stride 12: (0,0,0,32767) (0,0,32767,0), 4 padding bytes each */
    put_s16(b, 0); put_s16(b, 0); put_s16(b, 0); put_s16(b, 32767); put_s16(b, 0x5555); put_s16(b, 0x5555);
    put_s16(b, 0); put_s16(b, 0); put_s16(b, 32767); put_s16(b, 0); put_s16(b, 0x5555); put_s16(b, 0x5555);
    /* @192: sparse index 1 (ubyte) + 3 padding; @196: sparse value (3,4,5) */
    b->d[b->n++] = 1; b->n += 3;
    put_f(b, 3); put_f(b, 4); put_f(b, 5);
    assert_int_equal(b->n, 208);
}

/* JSON with the buffer as `uri_json` (e.g. "\"uri\":\"x.bin\"," or ""), node 1 as `node1`, skins on/off. */
static char* fixture_json(const char* uri_json, const char* node1, int skin) {
    static const char* fmt =
        "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,2]}],"
        "\"nodes\":[{\"name\":\"root\",\"translation\":[0,1,0],\"children\":[1]},%s,{\"mesh\":0}],"
        "%s"
        "\"buffers\":[{%s\"byteLength\":208}],"
        "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":168},"
        "{\"buffer\":0,\"byteOffset\":168,\"byteLength\":24,\"byteStride\":12},"
        "{\"buffer\":0,\"byteOffset\":192,\"byteLength\":4},{\"buffer\":0,\"byteOffset\":196,\"byteLength\":12}],"
        "\"accessors\":["
        "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\"},"
        "{\"bufferView\":0,\"byteOffset\":48,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":56,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"},"
        "{\"bufferView\":0,\"byteOffset\":88,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\"},"
        "{\"bufferView\":0,\"byteOffset\":96,\"componentType\":5126,\"count\":6,\"type\":\"VEC3\"},"
        "{\"bufferView\":1,\"componentType\":5122,\"normalized\":true,\"count\":2,\"type\":\"VEC4\"},"
        "{\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"sparse\":{\"count\":1,"
        "\"indices\":{\"bufferView\":2,\"componentType\":5121},\"values\":{\"bufferView\":3}}}],"
        "\"animations\":[{\"name\":\"move\",\"samplers\":[{\"input\":0,\"output\":1},"
        "{\"input\":2,\"output\":3,\"interpolation\":\"STEP\"},{\"input\":4,\"output\":5,\"interpolation\":\"CUBICSPLINE\"}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}},"
        "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
        "{\"sampler\":2,\"target\":{\"node\":1,\"path\":\"scale\"}},"
        "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"weights\"}}]},"
        "{\"name\":\"pose\",\"samplers\":[{\"input\":4,\"output\":6},{\"input\":0,\"output\":7}],"
        "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
        "{\"sampler\":1,\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}";
    const char* skins = skin ? "\"skins\":[{\"joints\":[1,0]}]," : "";
    size_t cap = strlen(fmt) + strlen(uri_json) + strlen(node1) + 64;
    char* s = malloc(cap);
    snprintf(s, cap, fmt, node1, skins, uri_json);
    return s;
}

static const char* k_node1 = "{\"name\":\"arm\",\"translation\":[0.5,0,0]}";


static char* embedded_json(const char* node1, int skin) {
    bytes b;
    fixture_buffer(&b);
    char* e = bsync_test_base64(b.d, b.n);
    size_t cap = strlen(e) + 100;
    char* uri = malloc(cap);
    snprintf(uri, cap, "\"uri\":\"data:application/octet-stream;base64,%s\",", e);
    char* j = fixture_json(uri, node1, skin);
    free(e);
    free(uri);
    return j;
}

static unsigned char* make_glb(size_t* out_size) {
    bytes b;
    fixture_buffer(&b);
    char* j = fixture_json("", k_node1, 1);
    size_t jl = strlen(j), jp = (jl + 3) & ~(size_t)3;
    size_t total = 12 + 8 + jp + 8 + b.n;
    unsigned char* g = calloc(1, total);
    uint32_t h[5] = {0x46546C67u, 2, (uint32_t)total, (uint32_t)jp, 0x4E4F534Au};
    memcpy(g, h, 20);
    memcpy(g + 20, j, jl);
    memset(g + 20 + jl, ' ', jp - jl);
    uint32_t c[2] = {(uint32_t)b.n, 0x004E4942u};
    memcpy(g + 20 + jp, c, 8);
    memcpy(g + 28 + jp, b.d, b.n);
    free(j);
    *out_size = total;
    return g;
}

static bsync_result import_text(const char* json, bsync_asset* a, bsync_error* e) {
    return bsync_gltf_import_memory(json, strlen(json), "fixture.gltf", NULL, NULL, a, e);
}

static const bsync_clip* find_clip(const bsync_asset* a, const char* name) {
    for (uint32_t i = 0; i < a->clip_count; i++)
        if (!strcmp(bsync_clip_name(a->clips[i]), name)) return a->clips[i];
    return NULL;
}

static void sample(const bsync_asset* a, const bsync_clip* c, double t, bsync_trs* out) {
    fix16_t ft;
    assert_int_equal(bsync_fx_from_double(t, &ft), BSYNC_OK);
    assert_int_equal(bsync_clip_sample(c, ft, BSYNC_LOOP_CLAMP, bsync_skeleton_rest_pose(a->skeleton),
                                       bsync_skeleton_joint_count(a->skeleton), NULL, out),
                     BSYNC_OK);
}

#define ASSERT_FX_NEAR(fx, expect, tol_steps) \
    assert_true(fabs(bsync_fx_to_double(fx) - (expect)) <= (tol_steps) * STEP_D + 1e-12)

/* The known keys of the fixture, whichever container carried it. */
static void check_fixture(const bsync_asset* a) {
    assert_non_null(a->skeleton);
    assert_int_equal(bsync_skeleton_joint_count(a->skeleton), 2);
    /* the skin lists [arm, root]: root must come first (parents before children) */
    assert_string_equal(bsync_skeleton_joint_name(a->skeleton, 0), "root");
    assert_string_equal(bsync_skeleton_joint_name(a->skeleton, 1), "arm");
    assert_int_equal(bsync_skeleton_parent(a->skeleton, 0), BSYNC_NO_PARENT);
    assert_int_equal(bsync_skeleton_parent(a->skeleton, 1), 0);
    const bsync_trs* rest = bsync_skeleton_rest_pose(a->skeleton);
    assert_int_equal(rest[0].t.y, BSYNC_FX_ONE);
    assert_int_equal(rest[1].t.x, BSYNC_FX_HALF);
    assert_int_equal(rest[1].r.w, BSYNC_FX_ONE);
    assert_int_equal(a->clip_count, 2);
    const bsync_clip* move = find_clip(a, "move");
    const bsync_clip* pose = find_clip(a, "pose");
    assert_non_null(move);
    assert_non_null(pose);
    assert_int_equal(bsync_clip_duration(move), 2 * BSYNC_FX_ONE); /* latest key: 2 s */
    assert_int_equal(bsync_clip_duration(pose), 2 * BSYNC_FX_ONE);
    assert_int_equal(bsync_clip_loops(move), 1);
    assert_int_equal(bsync_clip_track_count(move), 3); /* weights channel ignored */
    assert_non_null(strstr(a->notes, "'weights' channels ignored"));
    bsync_trs p[2];
    /* LINEAR translation: halfway between keys, exact halves */
    sample(a, move, 0.5, p);
    assert_int_equal(p[0].t.x, BSYNC_FX_HALF);
    assert_int_equal(p[0].t.y, 0);
    sample(a, move, 1.5, p);
    assert_int_equal(p[0].t.x, BSYNC_FX_ONE + BSYNC_FX_HALF);
    assert_int_equal(p[0].t.y, BSYNC_FX_ONE / 4);
    /* STEP rotation: identity until the key at 0.5 s, bit for bit, then 90 deg about Z */
    sample(a, move, 0.25, p);
    assert_int_equal(p[1].r.w, BSYNC_FX_ONE);
    assert_int_equal(p[1].r.z, 0);
    assert_int_equal(bsync_clip_sample(move, BSYNC_FX_HALF - 1, BSYNC_LOOP_CLAMP, rest, 2, NULL, p), BSYNC_OK);
    assert_int_equal(p[1].r.w, BSYNC_FX_ONE);
    assert_int_equal(p[1].r.z, 0);
    sample(a, move, 0.5, p);
    ASSERT_FX_NEAR(p[1].r.z, S45, 1);
    ASSERT_FX_NEAR(p[1].r.w, S45, 1);
    sample(a, move, 1.9, p);
    ASSERT_FX_NEAR(p[1].r.z, S45, 1);
    /* CUBICSPLINE scale (p0 = 1, out-tangent 1; p1 = 2, in-tangent -1; td = 1), spec Hermite by hand:
     * s = 0.5: 0.5*1 + 0.125*1 + 0.5*2 - 0.125*(-1) = 1.75;
     * s = 0.25: 0.84375*1 + 0.140625*1 + 0.15625*2 - 0.046875*(-1) = 1.34375 (both on the 60 Hz grid) */
    sample(a, move, 0.5, p);
    ASSERT_FX_NEAR(p[1].s.x, 1.75, 1);
    ASSERT_FX_NEAR(p[1].s.z, 1.75, 1);
    sample(a, move, 0.25, p);
    ASSERT_FX_NEAR(p[1].s.y, 1.34375, 1);
    sample(a, move, 1.0, p);
    assert_int_equal(p[1].s.x, 2 * BSYNC_FX_ONE);
    /* normalized shorts with stride 12: 32767/32767 = 1 exactly; halfway nlerp of w and z axes */
    sample(a, pose, 0.0, p);
    assert_int_equal(p[1].r.w, BSYNC_FX_ONE);
    sample(a, pose, 1.0, p);
    assert_int_equal(p[1].r.z, BSYNC_FX_ONE);
    assert_int_equal(p[1].r.w, 0);
    sample(a, pose, 0.5, p);
    ASSERT_FX_NEAR(p[1].r.z, S45, 1);
    ASSERT_FX_NEAR(p[1].r.w, S45, 1);
    /* sparse translation: zeros except key 1 = (3, 4, 5) */
    sample(a, pose, 0.0, p);
    assert_int_equal(p[0].t.x, 0);
    sample(a, pose, 1.0, p);
    assert_int_equal(p[0].t.x, 3 * BSYNC_FX_ONE);
    assert_int_equal(p[0].t.y, 4 * BSYNC_FX_ONE);
    assert_int_equal(p[0].t.z, 5 * BSYNC_FX_ONE);
    sample(a, pose, 1.5, p);
    assert_int_equal(p[0].t.x, 3 * BSYNC_FX_HALF);
}

static void test_fixture_embedded(void** state) {
    (void)state;
    char* j = embedded_json(k_node1, 1);
    bsync_asset a;
    bsync_error e;
    assert_int_equal(import_text(j, &a, &e), BSYNC_OK);
    check_fixture(&a);
    bsync_asset_destroy(&a);
    free(j);
}

static void test_fixture_glb(void** state) {
    (void)state;
    size_t n;
    unsigned char* g = make_glb(&n);
    bsync_asset a;
    bsync_error e;
    assert_int_equal(bsync_gltf_import_memory(g, n, "fixture.glb", NULL, NULL, &a, &e), BSYNC_OK);
    check_fixture(&a);
    bsync_asset_destroy(&a);
    free(g);
}

static void test_fixture_external_file(void** state) {
    (void)state;
    char dir[64];
    assert_int_equal(bsync_test_tmpdir(dir, sizeof dir, "gltf"), 0);
    char path[256], bin[256];
    snprintf(bin, sizeof bin, "%s/my buf.bin", dir);
    snprintf(path, sizeof path, "%s/fixture.gltf", dir);
    bytes b;
    fixture_buffer(&b);
    assert_int_equal(bsync_test_write(dir, "my buf.bin", b.d, b.n), 0);
    char* j = fixture_json("\"uri\":\"my%20buf.bin\",", k_node1, 1);
    assert_int_equal(bsync_test_write_text(dir, "fixture.gltf", j), 0);
    bsync_asset a;
    bsync_error e;
    assert_int_equal(bsync_gltf_import_file(path, NULL, &a, &e), BSYNC_OK);
    check_fixture(&a);
    bsync_asset_destroy(&a);
    /* the same JSON from memory without a folder refuses the external buffer */
    assert_int_equal(import_text(j, &a, &e), BSYNC_BAD_BLOB);
    assert_non_null(strstr(e.message, "external buffer"));
    /* a missing external file is an I/O error naming it */
    remove(bin);
    assert_int_equal(bsync_gltf_import_file(path, NULL, &a, &e), BSYNC_IO_ERROR);
    assert_non_null(strstr(e.message, "my buf.bin"));
    bsync_test_rmtree(dir);
    free(j);
}

static void test_no_skin_and_matrix(void** state) {
    (void)state;
    /* matrix = translate(0.5,0,0) * rotZ(90) * scale(2): columns (0,2,0), (-2,0,0), (0,0,2) */
    const char* m = "{\"name\":\"arm\",\"matrix\":[0,2,0,0, -2,0,0,0, 0,0,2,0, 0.5,0,0,1]}";
    char* j = embedded_json(m, 0);
    bsync_asset a;
    bsync_error e;
    assert_int_equal(import_text(j, &a, &e), BSYNC_OK);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 3); /* every node, the mesh node too */
    assert_string_equal(bsync_skeleton_joint_name(a.skeleton, 2), "node2");
    assert_non_null(strstr(a.source, "no skin"));
    const bsync_trs* r = bsync_skeleton_rest_pose(a.skeleton);
    assert_int_equal(r[1].t.x, BSYNC_FX_HALF);
    assert_int_equal(r[1].s.x, 2 * BSYNC_FX_ONE);
    assert_int_equal(r[1].s.y, 2 * BSYNC_FX_ONE);
    ASSERT_FX_NEAR(r[1].r.z, S45, 1);
    ASSERT_FX_NEAR(r[1].r.w, S45, 1);
    bsync_asset_destroy(&a);
    free(j);
}

static void test_clip_filter(void** state) {
    (void)state;
    char* j = embedded_json(k_node1, 1);
    const char* names[1] = {"pose"};
    bsync_import_options o;
    memset(&o, 0, sizeof o);
    o.clip_names = names;
    o.clip_name_count = 1;
    bsync_asset a;
    bsync_error e;
    assert_int_equal(bsync_gltf_import_memory(j, strlen(j), "f.gltf", NULL, &o, &a, &e), BSYNC_OK);
    assert_int_equal(a.clip_count, 1);
    assert_string_equal(bsync_clip_name(a.clips[0]), "pose");
    bsync_asset_destroy(&a);
    free(j);
}

/* Replace the first occurrence of `from` by `to` in the embedded fixture and expect `code` with
 * `words` in the message. */
static void expect_broken(const char* from, const char* to, bsync_result code, const char* words) {
    char* j = embedded_json(k_node1, 1);
    char* at = strstr(j, from);
    assert_non_null(at);
    size_t cap = strlen(j) + strlen(to) + 1;
    char* k = malloc(cap);
    memcpy(k, j, (size_t)(at - j));
    snprintf(k + (at - j), cap - (size_t)(at - j), "%s%s", to, at + strlen(from));
    bsync_asset a;
    bsync_error e;
    memset(&e, 0, sizeof e);
    bsync_result r = import_text(k, &a, &e);
    if (r != code || !strstr(e.message, words)) print_error("replacing %s by %s: got %d '%s'\n", from, to, r, e.message);
    assert_int_equal(r, code);
    assert_non_null(strstr(e.message, words));
    assert_non_null(strstr(e.message, "fixture.gltf"));
    assert_null(a.skeleton);
    assert_int_equal(a.clip_count, 0);
    free(j);
    free(k);
}

static void test_hostile_json(void** state) {
    (void)state;
    expect_broken("\"count\":3,\"type\":\"VEC3\"}", "\"count\":30,\"type\":\"VEC3\"}", BSYNC_BAD_BLOB, "exceeds bufferView");
    expect_broken("\"byteOffset\":196,\"byteLength\":12", "\"byteOffset\":200,\"byteLength\":12", BSYNC_BAD_BLOB, "exceeds buffer");
    expect_broken("\"children\":[1]", "\"children\":[7]", BSYNC_BAD_BLOB, "child index");
    expect_broken("\"children\":[1]", "\"children\":[0]", BSYNC_BAD_BLOB, "child index");
    expect_broken("\"translation\":[0.5,0,0]}", "\"translation\":[0.5,0,0],\"children\":[0]}", BSYNC_BAD_BLOB, "cycle");
    expect_broken("\"joints\":[1,0]", "\"joints\":[1,9]", BSYNC_BAD_BLOB, "joints");
    expect_broken("\"joints\":[1,0]", "\"joints\":[1,1]", BSYNC_BAD_BLOB, "twice");
    expect_broken("{\"input\":0,\"output\":1}", "{\"input\":0,\"output\":12}", BSYNC_BAD_BLOB, "accessor 12");
    expect_broken("{\"input\":0,\"output\":1}", "{\"input\":0,\"output\":3}", BSYNC_BAD_BLOB, "type must be VEC3");
    expect_broken("{\"input\":0,\"output\":1}", "{\"input\":4,\"output\":1}", BSYNC_BAD_BLOB, "output values");
    expect_broken("{\"sampler\":0,\"target\"", "{\"sampler\":5,\"target\"", BSYNC_BAD_BLOB, "sampler 5");
    expect_broken("\"node\":0,\"path\":\"translation\"", "\"node\":99,\"path\":\"translation\"", BSYNC_BAD_BLOB, "node 99");
    expect_broken("\"componentType\":5121}", "\"componentType\":5126}", BSYNC_BAD_BLOB, "indices componentType");
    expect_broken("\"sparse\":{\"count\":1", "\"sparse\":{\"count\":4", BSYNC_BAD_BLOB, "sparse");
    expect_broken("\"byteStride\":12", "\"byteStride\":6", BSYNC_BAD_BLOB, "byteStride");
    expect_broken("\"componentType\":5122", "\"componentType\":5130", BSYNC_BAD_BLOB, "componentType");
    expect_broken("\"interpolation\":\"STEP\"", "\"interpolation\":\"SMOOTH\"", BSYNC_BAD_BLOB, "interpolation");
    expect_broken("\"byteLength\":208", "\"byteLength\":209", BSYNC_BAD_BLOB, "byteLength 209");
    expect_broken("base64,", "base64,!!", BSYNC_PARSE_ERROR, "base64");
    expect_broken("\"version\":\"2.0\"", "\"version\":\"1.0\"", BSYNC_PARSE_ERROR, "2.0");
    expect_broken("{\"asset\"", "[{\"asset\"", BSYNC_PARSE_ERROR, "JSON");
    expect_broken("\"translation\":[0,1,0]", "\"translation\":[0,1]", BSYNC_BAD_BLOB, "3 numbers");
    expect_broken("\"translation\":[0,1,0]", "\"translation\":[0,40000,0]", BSYNC_OVERFLOW, "joint 'root'");
    expect_broken("\"count\":3,\"type\":\"SCALAR\"", "\"count\":-3,\"type\":\"SCALAR\"", BSYNC_BAD_BLOB, "count");
    expect_broken("\"byteOffset\":0,\"componentType\":5126,\"count\":3", "\"byteOffset\":1.5,\"componentType\":5126,\"count\":3",
                  BSYNC_BAD_BLOB, "byteOffset");
}

static void test_hostile_values(void** state) {
    (void)state;
    /* a translation beyond Q16.16: the error names the clip and the joint */
    bytes b;
    fixture_buffer(&b);
    float big = 40000.0f, neg = -1.0f, nan_f = NAN;
    unsigned char* keep = malloc(b.n);
    memcpy(keep, b.d, b.n);
    struct { size_t off; float v; bsync_result code; const char* words; } cases[] = {
        {12 + 12, big, BSYNC_OVERFLOW, "clip 'move', joint 'root'"},
        {8, 0.5f, BSYNC_KEYS_UNSORTED, "not after"},
        {0, neg, BSYNC_KEY_OUT_OF_RANGE, "negative"},
        {12 + 16, nan_f, BSYNC_NOT_FINITE, "not finite"},
        {56 + 12, 0.0f, BSYNC_BAD_ROTATION, "zero"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(b.d, keep, b.n);
        memcpy(b.d + cases[i].off, &cases[i].v, 4);
        char* e64 = bsync_test_base64(b.d, b.n);
        size_t cap = strlen(e64) + 100;
        char* uri = malloc(cap);
        snprintf(uri, cap, "\"uri\":\"data:application/octet-stream;base64,%s\",", e64);
        char* j = fixture_json(uri, k_node1, 1);
        bsync_asset a;
        bsync_error e;
        bsync_result r = import_text(j, &a, &e);
        if (r != cases[i].code || !strstr(e.message, cases[i].words)) print_error("case %zu: %d %s\n", i, r, e.message);
        assert_int_equal(r, cases[i].code);
        assert_non_null(strstr(e.message, cases[i].words));
        free(e64);
        free(uri);
        free(j);
    }
    free(keep);
}

static void test_glb_truncations_and_flips(void** state) {
    (void)state;
    size_t n;
    unsigned char* g = make_glb(&n);
    bsync_asset a;
    bsync_error e;
    /* every truncation fails cleanly (the GLB length field no longer matches) */
    for (size_t len = 0; len < n; len++) {
        unsigned char* t = malloc(len ? len : 1);
        memcpy(t, g, len);
        assert_int_not_equal(bsync_gltf_import_memory(t, len, "t.glb", NULL, NULL, &a, &e), BSYNC_OK);
        assert_null(a.skeleton);
        free(t);
    }
    /* random byte flips: never a crash (ASan/UBSan build), and either a clean error or a valid asset */
    uint64_t seed = 12345;
    unsigned char* t = malloc(n);
    int ok = 0, failed = 0;
    for (int it = 0; it < 3000; it++) {
        memcpy(t, g, n);
        int flips = 1 + (int)(bsync_test_rand(&seed) % 3);
        for (int k = 0; k < flips; k++) t[bsync_test_rand(&seed) % n] ^= (unsigned char)(1u << (bsync_test_rand(&seed) % 8));
        bsync_result r = bsync_gltf_import_memory(t, n, "t.glb", NULL, NULL, &a, &e);
        if (r == BSYNC_OK) {
            assert_non_null(a.skeleton);
            ok++;
        } else {
            assert_null(a.skeleton);
            assert_true(strlen(e.message) > 0);
            failed++;
        }
        bsync_asset_destroy(&a);
    }
    assert_true(failed > 100); /* the flips do hit structure */
    free(t);
    free(g);
}

/* Same bytes twice: identical clip files. */
static void test_deterministic(void** state) {
    (void)state;
    char* j = embedded_json(k_node1, 1);
    unsigned char* out[2];
    size_t sz[2];
    for (int i = 0; i < 2; i++) {
        bsync_asset a;
        bsync_error e;
        assert_int_equal(import_text(j, &a, &e), BSYNC_OK);
        sz[i] = bsync_clip_file_size(a.skeleton, (const bsync_clip* const*)a.clips, a.clip_count);
        out[i] = malloc(sz[i]);
        assert_int_equal(bsync_clip_file_write_memory(a.skeleton, (const bsync_clip* const*)a.clips, a.clip_count, out[i], sz[i]),
                         BSYNC_OK);
        bsync_asset_destroy(&a);
    }
    assert_int_equal(sz[0], sz[1]);
    assert_memory_equal(out[0], out[1], sz[0]);
    free(out[0]);
    free(out[1]);
    free(j);
}

/* ------------------------------------------------------------------ shared data */

static int count_imported;

static void import_tree(const char* dir) {
    DIR* d = opendir(dir);
    if (!d) return;
    struct dirent* ent;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            import_tree(path);
            continue;
        }
        size_t l = strlen(path);
        int gl = (l > 5 && !strcmp(path + l - 5, ".gltf")) || (l > 4 && !strcmp(path + l - 4, ".glb"));
        if (!gl) continue;
        bsync_asset a;
        bsync_error e;
        bsync_result r = bsync_gltf_import_file(path, NULL, &a, &e);
        if (r != BSYNC_OK) print_error("%s: %s\n", path, e.message);
        assert_int_equal(r, BSYNC_OK);
        assert_true(bsync_skeleton_joint_count(a.skeleton) > 0);
        assert_true(a.clip_count > 0);
        for (uint32_t i = 0; i < a.clip_count; i++) {
            /* half a raw step at most, as the conversion rule says */
            assert_true(a.stats[i].max_translation_error <= 0.5 * STEP_D);
            assert_true(a.stats[i].max_time_error <= 0.5 * STEP_D);
            assert_true(a.stats[i].max_scale_error <= 0.5 * STEP_D);
            assert_true(a.stats[i].max_rotation_error < 1e-4);
        }
        print_message("imported %s: %u joints, %u clips\n", ent->d_name, (unsigned)bsync_skeleton_joint_count(a.skeleton),
                      (unsigned)a.clip_count);
        count_imported++;
        bsync_asset_destroy(&a);
    }
    closedir(d);
}

static void test_shared_data_imports(void** state) {
    (void)state;
    const char* d = bsync_test_shared_path("data");
    if (!d) {
        print_message("shared data absent: skipped\n");
        skip();
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", d);
    count_imported = 0;
    import_tree(dir);
    assert_true(count_imported >= 1);
}

/* ------------------------------------------------------------------ the ozz oracle */

static double qangle(const double a[4], const double b[4]) {
    double dm = 0, dp = 0, na = 0, nb = 0;
    for (int i = 0; i < 4; i++) {
        na += a[i] * a[i];
        nb += b[i] * b[i];
    }
    na = sqrt(na);
    nb = sqrt(nb);
    for (int i = 0; i < 4; i++) {
        double x = a[i] / na, y = b[i] / nb;
        dm += (x - y) * (x - y);
        dp += (x + y) * (x + y);
    }
    return 2 * atan2(sqrt(dm < dp ? dm : dp), sqrt(dm < dp ? dp : dm)); /* sign-insensitive */
}

static void fx_quat(bsync_quat q, double o[4]) {
    o[0] = bsync_fx_to_double(q.x);
    o[1] = bsync_fx_to_double(q.y);
    o[2] = bsync_fx_to_double(q.z);
    o[3] = bsync_fx_to_double(q.w);
}

static void json_vec(const cJSON* a, int n, double* o) {
    assert_true(cJSON_IsArray(a));
    assert_int_equal(cJSON_GetArraySize(a), n);
    for (int i = 0; i < n; i++) o[i] = cJSON_GetArrayItem(a, i)->valuedouble;
}

typedef struct worst {
    double t, r, s;
} worst;

static void compare_locals(const cJSON* locals, const bsync_trs* p, uint32_t n, worst* w) {
    assert_int_equal(cJSON_GetArraySize(locals), (int)n);
    for (uint32_t j = 0; j < n; j++) {
        const cJSON* l = cJSON_GetArrayItem(locals, (int)j);
        double t[3], r[4], s[3], q[4];
        json_vec(cJSON_GetObjectItem(l, "t"), 3, t);
        json_vec(cJSON_GetObjectItem(l, "r"), 4, r);
        json_vec(cJSON_GetObjectItem(l, "s"), 3, s);
        double pt[3] = {bsync_fx_to_double(p[j].t.x), bsync_fx_to_double(p[j].t.y), bsync_fx_to_double(p[j].t.z)};
        double ps[3] = {bsync_fx_to_double(p[j].s.x), bsync_fx_to_double(p[j].s.y), bsync_fx_to_double(p[j].s.z)};
        for (int k = 0; k < 3; k++) {
            w->t = fmax(w->t, fabs(pt[k] - t[k]));
            w->s = fmax(w->s, fabs(ps[k] - s[k]));
        }
        fx_quat(p[j].r, q);
        w->r = fmax(w->r, qangle(q, r));
    }
}

/* Rotation of a column-major 4x4 (unit scale) as a quaternion, for the model-space comparison. */
static void matrix_quat(const double m[16], double q[4]) {
    double r[9] = {m[0], m[4], m[8], m[1], m[5], m[9], m[2], m[6], m[10]}; /* row-major */
    double tr = r[0] + r[4] + r[8];
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q[3] = 0.25 * s; q[0] = (r[7] - r[5]) / s; q[1] = (r[2] - r[6]) / s; q[2] = (r[3] - r[1]) / s;
    } else if (r[0] > r[4] && r[0] > r[8]) {
        double s = sqrt(1.0 + r[0] - r[4] - r[8]) * 2;
        q[3] = (r[7] - r[5]) / s; q[0] = 0.25 * s; q[1] = (r[1] + r[3]) / s; q[2] = (r[2] + r[6]) / s;
    } else if (r[4] > r[8]) {
        double s = sqrt(1.0 + r[4] - r[0] - r[8]) * 2;
        q[3] = (r[2] - r[6]) / s; q[0] = (r[1] + r[3]) / s; q[1] = 0.25 * s; q[2] = (r[5] + r[7]) / s;
    } else {
        double s = sqrt(1.0 + r[8] - r[0] - r[4]) * 2;
        q[3] = (r[3] - r[1]) / s; q[0] = (r[2] + r[6]) / s; q[1] = (r[5] + r[7]) / s; q[2] = 0.25 * s;
    }
}

/* Column-major 4x4 of R(q) * diag(s) (q normalised here). */
static void quat_matrix(const double qi[4], const double s[3], double m[16]) {
    double n = sqrt(qi[0] * qi[0] + qi[1] * qi[1] + qi[2] * qi[2] + qi[3] * qi[3]);
    double x = qi[0] / n, y = qi[1] / n, z = qi[2] / n, w = qi[3] / n;
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    memset(m, 0, 16 * sizeof *m);
    for (int c = 0; c < 3; c++)
        for (int row = 0; row < 3; row++) m[c * 4 + row] = r[row][c] * s[c];
    m[15] = 1;
}

static void test_pab_oracle(void** state) {
    (void)state;
    const char* p = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf");
    if (!p) {
        print_message("pab data absent: skipped\n");
        skip();
    }
    char gpath[4096];
    snprintf(gpath, sizeof gpath, "%s", p);
    const char* rp = bsync_test_shared_path("data/ozz-animation-pab/converted/reference_poses.json");
    assert_non_null(rp);
    cJSON* ref = bsync_test_load_json(rp);
    bsync_asset a;
    bsync_error e;
    assert_int_equal(bsync_gltf_import_file(gpath, NULL, &a, &e), BSYNC_OK);
    const uint32_t n = bsync_skeleton_joint_count(a.skeleton);
    assert_int_equal(n, 67);
    const bsync_trs* rest = bsync_skeleton_rest_pose(a.skeleton);
    bsync_trs* pose = calloc(n, sizeof *pose);
    bsync_trs* sampled[3];
    for (int i = 0; i < 3; i++) sampled[i] = calloc(n, sizeof(bsync_trs));
    bsync_trs* model = calloc(n, sizeof *model);

    /* 1. sampled locals: every clip at ratios 0, 0.1 .. 1 (clamped at the end: ratio 1 is the last key) */
    worst ws = {0, 0, 0};
    int samples = 0;
    const cJSON* s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(ref, "samples")) {
        const bsync_clip* c = find_clip(&a, cJSON_GetObjectItem(s, "clip")->valuestring);
        assert_non_null(c);
        fix16_t t;
        assert_int_equal(bsync_fx_from_double(cJSON_GetObjectItem(s, "time_s")->valuedouble, &t), BSYNC_OK);
        assert_int_equal(bsync_clip_sample(c, t, BSYNC_LOOP_CLAMP, rest, n, NULL, pose), BSYNC_OK);
        compare_locals(cJSON_GetObjectItem(s, "locals"), pose, n, &ws);
        samples++;
    }
    assert_int_equal(samples, 33);

    /* 2. blends: every clip at ratio * its duration, ozz BlendingJob weights (threshold: when the sum
     * W is below it, the rest pose takes threshold - W and everything is divided by threshold; else
     * the weights are divided by W), then local-to-model. */
    worst wb = {0, 0, 0}, wm = {0, 0, 0};
    int blends = 0;
    cJSON_ArrayForEach(s, cJSON_GetObjectItem(ref, "blends")) {
        double ratio = cJSON_GetObjectItem(s, "ratio")->valuedouble;
        double thr = cJSON_GetObjectItem(s, "threshold")->valuedouble;
        const cJSON* names = cJSON_GetObjectItem(s, "clips");
        const cJSON* weights = cJSON_GetObjectItem(s, "weights");
        double w[3], W = 0;
        bsync_pose_input in[3];
        for (int i = 0; i < 3; i++) {
            w[i] = cJSON_GetArrayItem(weights, i)->valuedouble;
            W += w[i];
        }
        double total = W < thr ? thr : W;
        for (int i = 0; i < 3; i++) {
            const bsync_clip* c = find_clip(&a, cJSON_GetArrayItem(names, i)->valuestring);
            assert_non_null(c);
            fix16_t t, fw;
            assert_int_equal(bsync_fx_from_double(ratio * bsync_fx_to_double(bsync_clip_duration(c)), &t), BSYNC_OK);
            assert_int_equal(bsync_clip_sample(c, t, BSYNC_LOOP_CLAMP, rest, n, NULL, sampled[i]), BSYNC_OK);
            assert_int_equal(bsync_fx_from_double(w[i] / total, &fw), BSYNC_OK);
            in[i].local = sampled[i];
            in[i].weight = fw;
            in[i].joint_weights = NULL;
        }
        assert_int_equal(bsync_pose_blend(rest, n, in, 3, pose), BSYNC_OK);
        compare_locals(cJSON_GetObjectItem(s, "locals"), pose, n, &wb);
        assert_int_equal(bsync_pose_local_to_model(bsync_skeleton_parents(a.skeleton), n, pose, 0, n, model), BSYNC_OK);
        const cJSON* models = cJSON_GetObjectItem(s, "models");
        assert_int_equal(cJSON_GetArraySize(models), (int)n);
        for (uint32_t j = 0; j < n; j++) {
            double m[16], q[4], mq[4];
            json_vec(cJSON_GetArrayItem(models, (int)j), 16, m);
            wm.t = fmax(wm.t, fabs(bsync_fx_to_double(model[j].t.x) - m[12]));
            wm.t = fmax(wm.t, fabs(bsync_fx_to_double(model[j].t.y) - m[13]));
            wm.t = fmax(wm.t, fabs(bsync_fx_to_double(model[j].t.z) - m[14]));
            /* ours as a matrix R(q) * diag(s) (pab's finger/toe "Nub" joints have scale (1,-1,1), so
             * a model matrix is not always a rotation); the angle of ours^T * ref */
            fx_quat(model[j].r, q);
            double sc[3] = {bsync_fx_to_double(model[j].s.x), bsync_fx_to_double(model[j].s.y), bsync_fx_to_double(model[j].s.z)};
            double ours[16];
            quat_matrix(q, sc, ours);
            double prod[16] = {0};
            for (int r = 0; r < 3; r++)     /* prod = ours^T * ref, column-major */
                for (int c2 = 0; c2 < 3; c2++)
                    for (int k = 0; k < 3; k++) prod[c2 * 4 + r] += ours[r * 4 + k] * m[c2 * 4 + k];
            matrix_quat(prod, mq);
            double ang = 2 * atan2(sqrt(mq[0] * mq[0] + mq[1] * mq[1] + mq[2] * mq[2]), fabs(mq[3]));
            wm.r = fmax(wm.r, ang);
        }
        blends++;
    }
    assert_int_equal(blends, 5);
    print_message("pab oracle, sampled locals (33 poses x 67 joints): worst translation %.3g m, rotation %.3g rad, "
                  "scale %.3g\n", ws.t, ws.r, ws.s);
    print_message("pab oracle, blended locals (5 blends): worst translation %.3g m, rotation %.3g rad, scale %.3g\n",
                  wb.t, wb.r, wb.s);
    print_message("pab oracle, blended model space: worst translation %.3g m, rotation %.3g rad\n", wm.t, wm.r);
    assert_true(ws.t <= 1e-3 && ws.r <= 2e-3 && ws.s <= 1e-3);
    assert_true(wb.t <= 1e-3 && wb.r <= 2e-3 && wb.s <= 1e-3);
    assert_true(wm.t <= 1e-3 && wm.r <= 2e-3);

    /* importing the same file twice gives identical clip bytes */
    bsync_asset b;
    assert_int_equal(bsync_gltf_import_file(gpath, NULL, &b, &e), BSYNC_OK);
    assert_int_equal(b.clip_count, a.clip_count);
    for (uint32_t i = 0; i < a.clip_count; i++) {
        assert_int_equal(bsync_clip_block_size(a.clips[i]), bsync_clip_block_size(b.clips[i]));
        assert_true(bsync_checksum_clip(a.clips[i]) == bsync_checksum_clip(b.clips[i]));
        /* the whole block after the 48-byte header (whose allocator slot holds process pointers) */
        assert_memory_equal((const unsigned char*)a.clips[i] + 48, (const unsigned char*)b.clips[i] + 48,
                            bsync_clip_block_size(a.clips[i]) - 48);
    }
    bsync_asset_destroy(&b);
    for (int i = 0; i < 3; i++) free(sampled[i]);
    free(pose);
    free(model);
    bsync_asset_destroy(&a);
    cJSON_Delete(ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_embedded),   cmocka_unit_test(test_fixture_glb),
        cmocka_unit_test(test_fixture_external_file), cmocka_unit_test(test_no_skin_and_matrix),
        cmocka_unit_test(test_clip_filter),        cmocka_unit_test(test_hostile_json),
        cmocka_unit_test(test_hostile_values),     cmocka_unit_test(test_glb_truncations_and_flips),
        cmocka_unit_test(test_deterministic),      cmocka_unit_test(test_shared_data_imports),
        cmocka_unit_test(test_pab_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
