/* test_gltf_skin.c — the .glb writer's optional skin (io/gltf_write.h, BSYNC_GLTF_WRITE_SKIN):
 * skins[0] lists every joint in skeleton order with "skeleton" = the single root, its inverse bind
 * matrices equal a double-precision reference computed here from the rest pose by a different route
 * (inverse of each local TRS, S^-1 R^T T^-1, chained from the root, as 4x4 products: no general
 * matrix inverse), times the rest model matrix they give the identity, their last row is exactly
 * (0, 0, 0, 1); the rest of the file is unchanged by the skin; importing the skinned file gives the
 * same skeleton (names, parents, rest pose) from skin 0; and the errors (unknown flag, zero scale).
 * With the shared data (skipped without it): scripts/examples/kaykit_strafe.json driven by
 * kaykit_joystick.csv, baked with the skin and re-imported, gives back the instance's poses key by
 * key within docs/bake.md's rule (translation and scale within 1 raw step, rotation components
 * within 2, the same rotation up to sign), and the skeleton unchanged. */
#define _XOPEN_SOURCE 700 /* mkstemp, unlink */
#include "test_support.h"
#include "fixtures.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <unistd.h>

#include "blendsync/clip.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/asset.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/gltf.h"
#include "blendsync/io/gltf_write.h"
#include "blendsync/skeleton.h"

#define NJ 6

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

/* Unit quaternion for `deg` degrees about the (normalised) axis (ax, ay, az), as fix16. */
static bsync_quat axis_angle(double ax, double ay, double az, double deg) {
    double n = sqrt(ax * ax + ay * ay + az * az), h = deg * (3.14159265358979323846 / 360.0);
    return (bsync_quat){raw(ax / n * sin(h)), raw(ay / n * sin(h)), raw(az / n * sin(h)), raw(cos(h))};
}

/* root "pelvis" -> "spine" -> "chest" -> "arm.l" -> "hand.l"; "leg" child of pelvis. Rotations about
 * several axes, non-uniform scales (one negative), translations up to 2 m. `two_roots` makes "leg"
 * a second root; `zero_scale` gives "chest" a zero y scale (singular). */
static bsync_skeleton* make_skeleton(int two_roots, int zero_scale) {
    bsync_joint_desc j[NJ];
    memset(j, 0, sizeof j);
    static const char* const names[NJ] = {"pelvis", "spine", "chest", "arm.l", "hand.l", "leg"};
    const int32_t parents[NJ] = {BSYNC_NO_PARENT, 0, 1, 2, 3, two_roots ? BSYNC_NO_PARENT : 0};
    for (int i = 0; i < NJ; i++) {
        j[i].name = names[i];
        j[i].parent = parents[i];
        j[i].rest.r = (bsync_quat){0, 0, 0, raw(1.0)};
        j[i].rest.s = (bsync_vec3){raw(1.0), raw(1.0), raw(1.0)};
    }
    j[0].rest.t = (bsync_vec3){raw(0.1), raw(1.0), raw(-0.25)};
    j[0].rest.r = axis_angle(0, 1, 0, 30);
    j[1].rest.t = (bsync_vec3){0, raw(0.2), raw(0.01)};
    j[1].rest.r = axis_angle(1, 0, 0, -12.5);
    j[1].rest.s = (bsync_vec3){raw(1.25), raw(0.8), raw(1.0)};
    j[2].rest.t = (bsync_vec3){raw(0.05), raw(0.3), 0};
    j[2].rest.r = axis_angle(0.3, 0.4, 0.866, 75);
    j[2].rest.s = (bsync_vec3){raw(1.0), zero_scale ? 0 : raw(1.5), raw(0.5)};
    j[3].rest.t = (bsync_vec3){raw(0.2), raw(0.1), raw(-0.05)};
    j[3].rest.r = axis_angle(0, 0, 1, -90);
    j[3].rest.s = (bsync_vec3){raw(-1.0), raw(1.0), raw(1.0)}; /* mirrored (Nub-like) */
    j[4].rest.t = (bsync_vec3){raw(0.25), 0, 0};
    j[4].rest.r = axis_angle(1, 1, 0, 140);
    j[5].rest.t = (bsync_vec3){raw(-0.15), raw(-2.0), raw(0.02)};
    j[5].rest.r = axis_angle(0, 0, 1, 180);
    j[5].rest.s = (bsync_vec3){raw(2.0), raw(2.0), raw(2.0)};
    bsync_skeleton_desc d = {j, NJ};
    bsync_skeleton* sk = NULL;
    assert_int_equal(bsync_skeleton_create(&d, NULL, &sk), BSYNC_OK);
    return sk;
}

/* 4x4 row-major helpers (m[r][c]). */
typedef struct m4 {
    double m[4][4];
} m4;

static m4 m4_identity(void) {
    m4 r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < 4; i++) r.m[i][i] = 1;
    return r;
}

static m4 m4_mul(const m4* a, const m4* b) {
    m4 r;
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < 4; k++) {
            double s = 0;
            for (int x = 0; x < 4; x++) s += a->m[i][x] * b->m[x][k];
            r.m[i][k] = s;
        }
    return r;
}

static m4 m4_translate(double x, double y, double z) {
    m4 r = m4_identity();
    r.m[0][3] = x;
    r.m[1][3] = y;
    r.m[2][3] = z;
    return r;
}

static m4 m4_scale(double x, double y, double z) {
    m4 r = m4_identity();
    r.m[0][0] = x;
    r.m[1][1] = y;
    r.m[2][2] = z;
    return r;
}

/* rotation of the unit quaternion (x, y, z, w); `transpose` gives its inverse */
static m4 m4_rotate(double x, double y, double z, double w, int transpose) {
    m4 r = m4_identity();
    double a[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) r.m[i][k] = transpose ? a[k][i] : a[i][k];
    return r;
}

/* world[j] = world[parent] * T R S; inv[j] = S^-1 R^T T^-1 * inv[parent]. */
static void reference(const bsync_skeleton* sk, m4* world, m4* inv) {
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    for (uint32_t j = 0; j < bsync_skeleton_joint_count(sk); j++) {
        const bsync_trs* p = &rest[j];
        double t[3] = {p->t.x / 65536.0, p->t.y / 65536.0, p->t.z / 65536.0};
        double s[3] = {p->s.x / 65536.0, p->s.y / 65536.0, p->s.z / 65536.0};
        double q[4] = {p->r.x / 65536.0, p->r.y / 65536.0, p->r.z / 65536.0, p->r.w / 65536.0};
        double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int i = 0; i < 4; i++) q[i] /= n;
        m4 T = m4_translate(t[0], t[1], t[2]), R = m4_rotate(q[0], q[1], q[2], q[3], 0);
        m4 S = m4_scale(s[0], s[1], s[2]);
        m4 TR = m4_mul(&T, &R), local = m4_mul(&TR, &S);
        m4 Si = m4_scale(1 / s[0], 1 / s[1], 1 / s[2]), Rt = m4_rotate(q[0], q[1], q[2], q[3], 1);
        m4 Ti = m4_translate(-t[0], -t[1], -t[2]);
        m4 SR = m4_mul(&Si, &Rt), local_inv = m4_mul(&SR, &Ti);
        int32_t par = bsync_skeleton_parent(sk, j);
        if (par < 0) {
            world[j] = local;
            inv[j] = local_inv;
        } else {
            world[j] = m4_mul(&world[par], &local);
            inv[j] = m4_mul(&local_inv, &inv[par]);
        }
    }
}

typedef struct glb {
    unsigned char* bytes;
    size_t size;
    cJSON* json;
    const unsigned char* bin;
    uint32_t bin_len;
} glb;

static bsync_trs g_poses[3 * NJ];

/* 3 keys: the rest pose raised by 0, 0.1, 0.2 m */
static bsync_gltf_bake make_bake(const bsync_skeleton* sk) {
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < NJ; j++) {
            g_poses[k * NJ + j] = rest[j];
            g_poses[k * NJ + j].t.y = bsync_fx_add(rest[j].t.y, raw(0.1 * k));
        }
    bsync_gltf_bake b = {sk, "pose", NULL, 30, 3, g_poses};
    return b;
}

static void glb_open(glb* g, const bsync_skeleton* sk, uint32_t flags) {
    bsync_gltf_bake b = make_bake(sk);
    bsync_error err;
    memset(g, 0, sizeof *g);
    assert_int_equal(bsync_gltf_write_glb_memory_ex(&b, flags, &g->bytes, &g->size, &err), BSYNC_OK);
    uint32_t jl = rd32(g->bytes + 12);
    assert_int_equal(rd32(g->bytes + 8), g->size);
    g->json = cJSON_ParseWithLength((const char*)g->bytes + 20, jl);
    assert_non_null(g->json);
    g->bin_len = rd32(g->bytes + 20 + jl);
    assert_int_equal(rd32(g->bytes + 24 + jl), BSYNC_GLB_CHUNK_BIN);
    g->bin = g->bytes + 28 + jl;
}

static void glb_close(glb* g) {
    cJSON_Delete(g->json);
    free(g->bytes);
}

static int num(const cJSON* o, const char* key) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valueint;
}

/* The skin's inverse bind matrices against the double reference; the identity check; the layout. */
static void test_inverse_bind_matrices(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(0, 0);
    glb g;
    glb_open(&g, sk, BSYNC_GLTF_WRITE_SKIN);
    const cJSON* skins = cJSON_GetObjectItemCaseSensitive(g.json, "skins");
    assert_int_equal(cJSON_GetArraySize(skins), 1);
    const cJSON* skin = cJSON_GetArrayItem(skins, 0);
    assert_int_equal(num(skin, "skeleton"), 0);
    const cJSON* joints = cJSON_GetObjectItemCaseSensitive(skin, "joints");
    assert_int_equal(cJSON_GetArraySize(joints), NJ);
    for (int j = 0; j < NJ; j++) assert_int_equal(cJSON_GetArrayItem(joints, j)->valueint, j);
    /* accessor: MAT4 FLOAT, NJ matrices, after the 1 + 3 NJ animation accessors */
    int ai = num(skin, "inverseBindMatrices");
    assert_int_equal(ai, 1 + 3 * NJ);
    const cJSON* acc = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g.json, "accessors"), ai);
    assert_non_null(acc);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(acc, "type")->valuestring, "MAT4");
    assert_int_equal(num(acc, "componentType"), 5126);
    assert_int_equal(num(acc, "count"), NJ);
    const cJSON* bv = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g.json, "bufferViews"), num(acc, "bufferView"));
    assert_non_null(bv);
    int off = num(bv, "byteOffset");
    assert_int_equal(num(bv, "byteLength"), 64 * NJ);
    /* animation data: 3 keys -> 12 + NJ * 40 * 3 bytes; the matrices follow, and end the data */
    assert_int_equal(off, 12 + NJ * 120);
    const cJSON* buf = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g.json, "buffers"), 0);
    assert_int_equal(num(buf, "byteLength"), off + 64 * NJ);
    assert_true((uint32_t)(off + 64 * NJ) <= g.bin_len);

    m4 world[NJ], inv[NJ];
    reference(sk, world, inv);
    double worst = 0, worst_id = 0;
    for (int j = 0; j < NJ; j++) {
        const unsigned char* mp = g.bin + off + 64 * j;
        m4 f; /* the file's matrix, column-major in the file */
        for (int c = 0; c < 4; c++)
            for (int r = 0; r < 4; r++) f.m[r][c] = rdf(mp + 4 * (4 * c + r));
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++) {
                double d = fabs(f.m[r][c] - inv[j].m[r][c]) / fmax(1.0, fabs(inv[j].m[r][c]));
                if (d > worst) worst = d;
            }
        /* last row exactly (0, 0, 0, 1) */
        assert_true(f.m[3][0] == 0.0 && f.m[3][1] == 0.0 && f.m[3][2] == 0.0 && f.m[3][3] == 1.0);
        m4 id = m4_mul(&f, &world[j]);
        for (int r = 0; r < 4; r++)
            for (int c = 0; c < 4; c++) {
                double d = fabs(id.m[r][c] - (r == c ? 1.0 : 0.0));
                if (d > worst_id) worst_id = d;
            }
    }
    /* float rounding of the reference: half an ulp is 6e-8 relative */
    print_message("inverse bind matrices: worst relative difference to the double reference %.3g, "
                  "worst |IBM * M - I| %.3g\n", worst, worst_id);
    assert_true(worst <= 1.2e-7);
    assert_true(worst_id <= 1e-6);
    glb_close(&g);
    bsync_skeleton_destroy(sk);
}

/* The skin adds to the file without changing what was there. */
static void test_skin_only_adds(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(0, 0);
    glb a, b, c;
    glb_open(&a, sk, 0);
    glb_open(&b, sk, BSYNC_GLTF_WRITE_SKIN);
    /* the plain function writes what _ex with flags 0 writes */
    bsync_gltf_bake pb = make_bake(sk);
    unsigned char* plain = NULL;
    size_t plain_n = 0;
    bsync_error err;
    assert_int_equal(bsync_gltf_write_glb_memory(&pb, &plain, &plain_n, &err), BSYNC_OK);
    assert_int_equal(plain_n, a.size);
    assert_memory_equal(plain, a.bytes, plain_n);
    free(plain);
    assert_null(cJSON_GetObjectItemCaseSensitive(a.json, "skins"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(b.json, "skins"));
    /* same nodes, animations and scenes; accessors/bufferViews: the skinned file has one more each */
    const char* same[] = {"nodes", "animations", "scenes", "asset"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(a.json, same[i]),
                                  cJSON_GetObjectItemCaseSensitive(b.json, same[i]), 1));
    const cJSON* aa = cJSON_GetObjectItemCaseSensitive(a.json, "accessors");
    const cJSON* ba = cJSON_GetObjectItemCaseSensitive(b.json, "accessors");
    assert_int_equal(cJSON_GetArraySize(ba), cJSON_GetArraySize(aa) + 1);
    for (int i = 0; i < cJSON_GetArraySize(aa); i++)
        assert_true(cJSON_Compare(cJSON_GetArrayItem(aa, i), cJSON_GetArrayItem(ba, i), 1));
    uint32_t anim = 12 + NJ * 120;
    assert_int_equal(a.bin_len, anim); /* 732: a multiple of 4, no padding */
    assert_int_equal(b.bin_len, anim + 64 * NJ);
    assert_memory_equal(a.bin, b.bin, anim);
    glb_close(&a);
    glb_close(&b);

    /* two roots: no "skeleton" property */
    bsync_skeleton* sk2 = make_skeleton(1, 0);
    glb_open(&c, sk2, BSYNC_GLTF_WRITE_SKIN);
    const cJSON* skin = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c.json, "skins"), 0);
    assert_null(cJSON_GetObjectItemCaseSensitive(skin, "skeleton"));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(skin, "joints")), NJ);
    glb_close(&c);
    bsync_skeleton_destroy(sk2);
    bsync_skeleton_destroy(sk);
}

/* Import of the skinned file: the skeleton comes from skin 0 and is the written one. */
static void test_reimport(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(0, 0);
    glb g;
    glb_open(&g, sk, BSYNC_GLTF_WRITE_SKIN);
    bsync_asset as;
    bsync_error err;
    assert_int_equal(bsync_gltf_import_memory(g.bytes, g.size, "skin.glb", NULL, NULL, &as, &err), BSYNC_OK);
    assert_non_null(strstr(as.source, "skeleton from skin 0 'skeleton'"));
    assert_int_equal(bsync_skeleton_joint_count(as.skeleton), NJ);
    const bsync_trs* a = bsync_skeleton_rest_pose(sk);
    const bsync_trs* b = bsync_skeleton_rest_pose(as.skeleton);
    for (uint32_t j = 0; j < NJ; j++) {
        assert_string_equal(bsync_skeleton_joint_name(as.skeleton, j), bsync_skeleton_joint_name(sk, j));
        assert_int_equal(bsync_skeleton_parent(as.skeleton, j), bsync_skeleton_parent(sk, j));
        /* |values| < 256: float(fix16) is exact, so translation and scale come back bit for bit */
        assert_int_equal(b[j].t.x, a[j].t.x);
        assert_int_equal(b[j].t.y, a[j].t.y);
        assert_int_equal(b[j].t.z, a[j].t.z);
        assert_int_equal(b[j].s.x, a[j].s.x);
        assert_int_equal(b[j].s.y, a[j].s.y);
        assert_int_equal(b[j].s.z, a[j].s.z);
        /* rotations: the importer normalises in double again; within 2 raw steps */
        assert_true(labs((long)b[j].r.x - a[j].r.x) <= 2 && labs((long)b[j].r.y - a[j].r.y) <= 2);
        assert_true(labs((long)b[j].r.z - a[j].r.z) <= 2 && labs((long)b[j].r.w - a[j].r.w) <= 2);
    }
    assert_int_equal(as.clip_count, 1);
    assert_int_equal(bsync_clip_track_count(as.clips[0]), 3 * NJ);
    bsync_asset_destroy(&as);
    glb_close(&g);
    bsync_skeleton_destroy(sk);
}

static void test_errors(void** state) {
    (void)state;
    bsync_skeleton* sk = make_skeleton(0, 1);
    bsync_trs poses[NJ];
    memcpy(poses, bsync_skeleton_rest_pose(sk), sizeof poses);
    bsync_gltf_bake b = {sk, "pose", NULL, 30, 1, poses};
    unsigned char* out = (unsigned char*)&b; /* must be reset to NULL on failure */
    size_t n = 7;
    bsync_error err;
    /* a zero scale: the rest model matrix of "chest" (and below) is singular */
    assert_int_equal(bsync_gltf_write_glb_memory_ex(&b, BSYNC_GLTF_WRITE_SKIN, &out, &n, &err), BSYNC_INVALID_ARGUMENT);
    assert_null(out);
    assert_non_null(strstr(err.message, "'chest'"));
    /* without the skin the same skeleton is fine */
    assert_int_equal(bsync_gltf_write_glb_memory_ex(&b, 0, &out, &n, &err), BSYNC_OK);
    free(out);
    /* unknown flags */
    assert_int_equal(bsync_gltf_write_glb_memory_ex(&b, 2u, &out, &n, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_gltf_write_glb_file_ex("/nonexistent-dir/x.glb", &b, 0x80u, &err), BSYNC_INVALID_ARGUMENT);
    bsync_skeleton_destroy(sk);
}

/* The example folder of the source tree (BSYNC_SOURCE_DIR/scripts/examples/). */
static const char* example_path(const char* name) {
    static char path[1024];
    snprintf(path, sizeof path, "%s/scripts/examples/%s", BSYNC_SOURCE_DIR, name);
    return path;
}

static void test_kaykit_round_trip(void** state) {
    (void)state;
    const char* probe = bsync_test_shared_path("data/kaykit-character-animations/Med_MovementAdvanced.glb");
    if (!probe) {
        print_message("skip: shared data absent\n");
        skip();
    }
    char data_dir[1024];
    snprintf(data_dir, sizeof data_dir, "%s/data", bsync_test_shared_dir());
    /* the example config with its "../../../shared/data" prefix pointed at the shared data folder */
    size_t len = 0;
    char* text = bsync_test_read_file(example_path("kaykit_strafe.json"), &len);
    assert_non_null(text);
    const char* prefix = "../../../shared/data";
    size_t n = 0;
    for (const char* p = strstr(text, prefix); p; p = strstr(p + 1, prefix)) n++;
    assert_int_equal(n, 6); /* six clip sources */
    char* cfg = (char*)malloc(len + n * strlen(data_dir) + 1);
    assert_non_null(cfg);
    char* o = cfg;
    for (const char* p = text; *p;) {
        if (!strncmp(p, prefix, strlen(prefix))) {
            o += sprintf(o, "%s", data_dir);
            p += strlen(prefix);
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    free(text);
    char tmp[64];
    bsync_test_tmpfile(tmp, sizeof tmp, "skin_kaykit", cfg, strlen(cfg));
    free(cfg);
    static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    bsync_graph_config* gc = NULL;
    bsync_error err;
    bsync_result lr = bsync_graph_config_load(tmp, NULL, &gc, diags, &err);
    unlink(tmp);
    if (lr != BSYNC_OK) fail_msg("%s", err.message);
    const bsync_graph* graph = bsync_graph_config_graph(gc);
    const bsync_skeleton* sk = bsync_graph_config_skeleton(gc);
    assert_non_null(sk);
    const uint32_t J = bsync_skeleton_joint_count(sk);
    assert_int_equal(J, 23); /* KayKit Rig_Medium */
    assert_int_equal(bsync_graph_parameter_count(graph), 2);

    /* the joystick script: rows "tick,move_x,move_y" (targets from that tick on) */
    char* csv = bsync_test_read_file(example_path("kaykit_joystick.csv"), NULL);
    assert_non_null(csv);
    enum { MAXR = 256 };
    long rt[MAXR];
    double rx[MAXR], ry[MAXR];
    int rows = 0;
    for (char* line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        assert_true(rows < MAXR);
        assert_int_equal(sscanf(line + 1, "%ld,%lf,%lf", &rt[rows], &rx[rows], &ry[rows]), 3);
        rows++;
    }
    free(csv);
    assert_true(rows > 2);
    const uint32_t ticks = (uint32_t)rt[rows - 1] + 1;

    void* mem = NULL;
    bsync_instance* inst = bsync_test_instance_new(graph, &mem);
    bsync_trs* poses = (bsync_trs*)malloc((size_t)(ticks + 1) * J * sizeof(bsync_trs));
    assert_non_null(poses);
    assert_int_equal(bsync_instance_pose(inst, poses, NULL), BSYNC_OK);
    fix16_t target[2] = {0, 0};
    bsync_instance_input in = {target, 2};
    int r = 0;
    for (uint32_t t = 0; t < ticks; t++) {
        if (r < rows && rt[r] == (long)t) {
            target[0] = raw(rx[r]); /* 4 decimals: lround(x * 65536) is the exact decimal rounding */
            target[1] = raw(ry[r]);
            r++;
        }
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(inst, poses + (size_t)(t + 1) * J, NULL), BSYNC_OK);
    }
    bsync_gltf_bake b = {sk, "kaykit_strafe", NULL, bsync_graph_tick_rate(graph), ticks + 1, poses};
    unsigned char* bytes = NULL;
    size_t nbytes = 0;
    assert_int_equal(bsync_gltf_write_glb_memory_ex(&b, BSYNC_GLTF_WRITE_SKIN, &bytes, &nbytes, &err), BSYNC_OK);
    bsync_asset a;
    if (bsync_gltf_import_memory(bytes, nbytes, "kaykit.glb", NULL, NULL, &a, &err) != BSYNC_OK)
        fail_msg("%s", err.message);
    assert_non_null(strstr(a.source, "skeleton from skin 0"));
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), J);
    for (uint32_t j = 0; j < J; j++) {
        assert_string_equal(bsync_skeleton_joint_name(a.skeleton, j), bsync_skeleton_joint_name(sk, j));
        assert_int_equal(bsync_skeleton_parent(a.skeleton, j), bsync_skeleton_parent(sk, j));
    }
    assert_int_equal(a.clip_count, 1);
    assert_int_equal(bsync_clip_track_count(a.clips[0]), 3 * J);
    int worst_q = 0, worst_v = 0;
    for (uint32_t i = 0; i < bsync_clip_track_count(a.clips[0]); i++) {
        bsync_track_info ti;
        assert_int_equal(bsync_clip_track_info(a.clips[0], i, &ti), BSYNC_OK);
        assert_int_equal(ti.key_count, ticks + 1);
        for (uint32_t k = 0; k <= ticks; k++) {
            const bsync_trs* p = &poses[(size_t)k * J + ti.joint];
            if (ti.kind == BSYNC_TRACK_ROTATION) {
                const bsync_quat* q = &ti.quats[k];
                int64_t dot = (int64_t)q->x * p->r.x + (int64_t)q->y * p->r.y + (int64_t)q->z * p->r.z +
                              (int64_t)q->w * p->r.w;
                int s = dot < 0 ? -1 : 1;
                int d[4] = {abs(q->x - s * p->r.x), abs(q->y - s * p->r.y), abs(q->z - s * p->r.z),
                            abs(q->w - s * p->r.w)};
                for (int c = 0; c < 4; c++)
                    if (d[c] > worst_q) worst_q = d[c];
            } else {
                const bsync_vec3* v = ti.kind == BSYNC_TRACK_TRANSLATION ? &p->t : &p->s;
                int d[3] = {abs(ti.vec3s[k].x - v->x), abs(ti.vec3s[k].y - v->y), abs(ti.vec3s[k].z - v->z)};
                for (int c = 0; c < 3; c++)
                    if (d[c] > worst_v) worst_v = d[c];
            }
        }
    }
    print_message("kaykit round trip: %u joints, %u ticks -> %u keys per track, worst translation/scale "
                  "difference %d raw steps, worst rotation component %d raw steps\n",
                  (unsigned)J, (unsigned)ticks, (unsigned)ticks + 1, worst_v, worst_q);
    assert_true(worst_v <= 1);
    assert_true(worst_q <= 2);
    bsync_asset_destroy(&a);
    free(bytes);
    free(poses);
    free(mem);
    bsync_graph_config_destroy(gc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inverse_bind_matrices),
        cmocka_unit_test(test_skin_only_adds),
        cmocka_unit_test(test_reimport),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_kaykit_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
