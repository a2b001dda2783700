/* test_validate.c — io/validate.h on glTF fixtures this test writes, each with a planted problem
 * (missing joint between siblings, NaN key, broken loop seam, out-of-range and large translations,
 * clips of different lengths in one node, a channel outside the skeleton, a zero-duration clip, a
 * hierarchy mismatch between files), a clean fixture, and the shared data when present.
 *
 * Expected numbers are worked by hand from the planted keys: e.g. the broken seam is a 30 degree
 * rotation about Y between the first and last key, the root travels 1 m in 1 s (1 m/s), keys every
 * 0.25 s (4 Hz). */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "blendsync/io/validate.h"
#include "test_support.h"
#include "fixtures.h"

/* ---- fixture writer: nodes hips(0) -> spine(1) -> head(2) (or head under hips), prop(3) outside the skin */

typedef struct chan {
    int node;
    const char* path;     /* translation | rotation */
    const float* values;  /* nkeys * 3 or 4 */
} chan;

typedef struct anim {
    const char* name;
    int nkeys;
    const float* times;
    int nchan;
    chan ch[4];
} anim;


static char g_dir[64];

static const char* fixture_path(const char* name) { return bsync_test_path(g_dir, name); }

static void appendf(char** s, size_t* len, size_t* cap, const char* fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(*s + *len, *cap - *len, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap = *cap * 2 + (size_t)n;
        *s = realloc(*s, *cap);
        assert_non_null(*s);
    }
}

static void write_gltf(const char* name, const anim* anims, int nanims, int head_under_hips) {
    unsigned char* buf = malloc(1 << 16);
    size_t blen = 0;
    size_t cap = 4096, len = 0;
    char* views = malloc(cap);
    size_t vcap = 4096, vlen = 0;
    char* acc = malloc(vcap);
    size_t acap = 4096, alen = 0;
    char* an = malloc(acap);
    views[0] = acc[0] = an[0] = '\0';
    int naccessor = 0;
    for (int a = 0; a < nanims; a++) {
        const anim* A = &anims[a];
        int tacc = naccessor++;
        memcpy(buf + blen, A->times, (size_t)A->nkeys * 4);
        appendf(&views, &len, &cap, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%d}", tacc ? "," : "", blen,
                A->nkeys * 4);
        appendf(&acc, &vlen, &vcap, "%s{\"bufferView\":%d,\"componentType\":5126,\"count\":%d,\"type\":\"SCALAR\"}",
                tacc ? "," : "", tacc, A->nkeys);
        blen += (size_t)A->nkeys * 4;
        appendf(&an, &alen, &acap, "%s{\"name\":\"%s\",\"samplers\":[", a ? "," : "", A->name);
        for (int c = 0; c < A->nchan; c++) {
            int comps = strcmp(A->ch[c].path, "rotation") == 0 ? 4 : 3;
            int vacc = naccessor++;
            memcpy(buf + blen, A->ch[c].values, (size_t)(A->nkeys * comps) * 4);
            appendf(&views, &len, &cap, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%d}", blen,
                    A->nkeys * comps * 4);
            appendf(&acc, &vlen, &vcap, ",{\"bufferView\":%d,\"componentType\":5126,\"count\":%d,\"type\":\"%s\"}", vacc,
                    A->nkeys, comps == 4 ? "VEC4" : "VEC3");
            blen += (size_t)(A->nkeys * comps) * 4;
            appendf(&an, &alen, &acap, "%s{\"input\":%d,\"output\":%d}", c ? "," : "", tacc, vacc);
        }
        appendf(&an, &alen, &acap, "],\"channels\":[");
        for (int c = 0; c < A->nchan; c++)
            appendf(&an, &alen, &acap, "%s{\"sampler\":%d,\"target\":{\"node\":%d,\"path\":\"%s\"}}", c ? "," : "", c,
                    A->ch[c].node, A->ch[c].path);
        appendf(&an, &alen, &acap, "]}");
    }
    char* e = bsync_test_base64(buf, blen);
    FILE* f = fopen(fixture_path(name), "wb");
    assert_non_null(f);
    fprintf(f,
            "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"hips\",\"children\":%s},"
            "{\"name\":\"spine\",\"translation\":[0,0.5,0]%s},{\"name\":\"head\",\"translation\":[0,0.3,0]},"
            "{\"name\":\"prop\"}],\"scenes\":[{\"nodes\":[0,3]}],\"scene\":0,\"skins\":[{\"joints\":[0,1,2]}],"
            "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
            "\"bufferViews\":[%s],\"accessors\":[%s],\"animations\":[%s]}",
            head_under_hips ? "[1,2]" : "[1]", head_under_hips ? "" : ",\"children\":[2]", blen, e, views, acc, an);
    fclose(f);
    free(e);
    free(buf);
    free(views);
    free(acc);
    free(an);
}

/* Keys every 0.25 s over 1 s. Yaw rotations (about Y): (0, sin(a/2), 0, cos(a/2)). */
static const float k_t5[5] = {0, 0.25f, 0.5f, 0.75f, 1.0f};
static float q_yaw[5][4], q_seam[5][4], tr_root[5][3], tr_root3[5][3], tr_nan[5][3], tr_far[5][3], tr_big[5][3];
static float tr_long[5][3], t_long[5];

static void yaw(float* q, double deg) {
    double h = deg * 3.14159265358979323846 / 360.0;
    q[0] = 0;
    q[1] = (float)sin(h);
    q[2] = 0;
    q[3] = (float)cos(h);
}

static void init_keys(void) {
    static const double sway[5] = {0, 10, 0, -10, 0};
    for (int k = 0; k < 5; k++) {
        yaw(q_yaw[k], sway[k]);
        yaw(q_seam[k], k == 4 ? 30.0 : sway[k]); /* last key 30 degrees off the first */
        tr_root[k][0] = 0.25f * (float)k;        /* 1 m in 1 s */
        tr_root[k][1] = 1.0f;
        tr_root[k][2] = 0;
        tr_root3[k][0] = 0;
        tr_root3[k][1] = 1.0f;
        tr_root3[k][2] = 0.75f * (float)k; /* 3 m along z in 1 s */
        tr_nan[k][0] = tr_far[k][0] = tr_big[k][0] = 0;
        tr_nan[k][1] = tr_far[k][1] = tr_big[k][1] = 1.0f;
        tr_nan[k][2] = tr_far[k][2] = tr_big[k][2] = 0;
        t_long[k] = 0.5f * (float)k; /* 2 s */
        tr_long[k][0] = 0.5f * (float)k; /* 2 m in 2 s */
        tr_long[k][1] = 1.0f;
        tr_long[k][2] = 0;
    }
    tr_nan[2][1] = NAN;
    tr_far[3][0] = 40000.0f;
    tr_big[3][0] = 1500.0f;
}

static anim make(const char* name, const float* times, const float* root_tr, const float* spine_q,
                 const float* head_q) {
    anim a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.nkeys = 5;
    a.times = times;
    a.ch[a.nchan++] = (chan){0, "translation", root_tr};
    a.ch[a.nchan++] = (chan){1, "rotation", spine_q};
    if (head_q) a.ch[a.nchan++] = (chan){2, "rotation", head_q};
    return a;
}

static void write_config(const char* name, const char* sync, const char* const* motions, int n) {
    FILE* f = fopen(fixture_path(name), "wb");
    assert_non_null(f);
    fprintf(f, "{\"parameters\":{\"speed\":{}},\"root\":\"move\",\"nodes\":{\"move\":{\"type\":\"Simple1D\","
               "\"parameter\":\"speed\",\"sync\":\"%s\",\"children\":[", sync);
    for (int i = 0; i < n; i++) fprintf(f, "%s{\"motion\":\"%s\",\"threshold\":%d}", i ? "," : "", motions[i], i);
    fprintf(f, "]}},\"clips\":{");
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\"%s\":{\"source\":\"set.gltf\",\"animation\":\"%s\"}", i ? "," : "", motions[i], motions[i]);
    fprintf(f, "},\"root_joint\":\"hips\"}");
    fclose(f);
}

static int setup(void** state) {
    (void)state;
    assert_int_equal(bsync_test_tmpdir(g_dir, sizeof g_dir, "validate"), 0);
    init_keys();
    anim clean[2] = {make("walk", k_t5, &tr_root[0][0], &q_yaw[0][0], &q_yaw[0][0]),
                     make("run", k_t5, &tr_root3[0][0], &q_yaw[0][0], &q_yaw[0][0])};
    write_gltf("clean.gltf", clean, 2, 0);
    anim set[5] = {make("walk", k_t5, &tr_root[0][0], &q_yaw[0][0], &q_yaw[0][0]),
                   make("limp", k_t5, &tr_root[0][0], &q_yaw[0][0], NULL), /* no head track */
                   make("stumble", k_t5, &tr_root[0][0], &q_seam[0][0], &q_yaw[0][0]),
                   make("crawl", t_long, &tr_long[0][0], &q_yaw[0][0], &q_yaw[0][0]),
                   make("big", k_t5, &tr_big[0][0], &q_yaw[0][0], &q_yaw[0][0])};
    set[0].ch[set[0].nchan++] = (chan){3, "translation", &tr_root[0][0]}; /* prop: outside the skin */
    write_gltf("set.gltf", set, 5, 0);
    anim nan1[1] = {make("walk", k_t5, &tr_nan[0][0], &q_yaw[0][0], &q_yaw[0][0])};
    write_gltf("nan.gltf", nan1, 1, 0);
    anim far1[1] = {make("walk", k_t5, &tr_far[0][0], &q_yaw[0][0], &q_yaw[0][0])};
    write_gltf("far.gltf", far1, 1, 0);
    anim flat[1] = {make("walk", k_t5, &tr_root[0][0], &q_yaw[0][0], &q_yaw[0][0])};
    write_gltf("flat.gltf", flat, 1, 1); /* head's parent is hips here */
    static const float t1[1] = {0}, tr1[3] = {0, 1, 0};
    anim pose = {"pose", 1, t1, 1, {{0, "translation", tr1}}};
    write_gltf("pose.gltf", &pose, 1, 0);
    return 0;
}

static int teardown(void** state) {
    (void)state;
    bsync_test_rmtree(g_dir);
    return 0;
}

static int count_code(const bsync_validate_report* r, const char* code) {
    int n = 0;
    for (uint32_t i = 0; i < r->finding_count; i++) n += strcmp(r->findings[i].code, code) == 0;
    return n;
}

static const bsync_validate_finding* find_code(const bsync_validate_report* r, const char* code, const char* clip) {
    for (uint32_t i = 0; i < r->finding_count; i++)
        if (strcmp(r->findings[i].code, code) == 0 && (!clip || strcmp(r->findings[i].clip, clip) == 0))
            return &r->findings[i];
    return NULL;
}

static const bsync_validate_clip_summary* find_clip(const bsync_validate_report* r, const char* name) {
    for (uint32_t i = 0; i < r->clip_count; i++)
        if (strcmp(r->clips[i].clip, name) == 0) return &r->clips[i];
    return NULL;
}

static void test_clean_file(void** state) {
    (void)state;
    bsync_validate_report r;
    bsync_validate_report_init(&r);
    const char* p[1] = {fixture_path("clean.gltf")};
    assert_int_equal(bsync_validate_files(&r, p, 1, NULL), BSYNC_OK);
    assert_int_equal(bsync_validate_exit_status(&r), 0);
    assert_int_equal(r.clip_count, 2);
    for (uint32_t i = 0; i < r.finding_count; i++) assert_int_equal(r.findings[i].severity, BSYNC_VALIDATE_INFO);
    const bsync_validate_clip_summary* w = find_clip(&r, "walk");
    assert_non_null(w);
    assert_true(fabs(w->duration - 1.0) < 1e-9);
    assert_true(fabs(w->median_key_interval - 0.25) < 1e-4);
    assert_true(fabs(w->key_rate_hz - 4.0) < 2e-3);
    assert_int_equal(w->tracks, 3);
    assert_int_equal(w->keys, 15);
    assert_int_equal(w->animated_joints, 3);
    assert_int_equal(w->max_tracks_per_joint, 1);
    assert_string_equal(w->root_joint, "hips");
    assert_true(fabs(w->root_distance - 1.0) < 1e-4);
    assert_true(fabs(w->root_speed - 1.0) < 1e-4);
    assert_true(w->seam_rotation_deg < 0.01); /* first and last keys are the same rotation */
    assert_true(w->seam_translation_m < 1e-4);
    /* precision: half a raw step for translations and times */
    assert_true(w->stats.max_translation_error <= 0.5 / 65536.0 + 1e-12);
    assert_true(w->stats.max_time_error <= 0.5 / 65536.0 + 1e-12);
    const bsync_validate_clip_summary* run = find_clip(&r, "run");
    assert_non_null(run);
    assert_true(fabs(run->root_speed - 3.0) < 1e-4); /* 3 m along z in 1 s */
    const bsync_validate_finding* rm = find_code(&r, "root_motion", "run");
    assert_non_null(rm);
    assert_true(fabs(rm->value - 3.0) < 1e-4);
    bsync_validate_report_destroy(&r);
    assert_int_equal(r.finding_count, 0);
    assert_null(r.findings);
}

static void test_clean_config(void** state) {
    (void)state;
    /* Same-length clips animating the same joints: no warning. */
    FILE* f = fopen(fixture_path("clean.json"), "wb");
    assert_non_null(f);
    fputs("{\"parameters\":{\"speed\":{}},\"root\":\"move\",\"nodes\":{\"move\":{\"type\":\"Simple1D\","
          "\"parameter\":\"speed\",\"children\":[{\"motion\":\"walk\",\"threshold\":1},{\"motion\":\"run\","
          "\"threshold\":2.5}]}},\"clips\":{\"walk\":{\"source\":\"clean.gltf\"},\"run\":{\"source\":\"clean.gltf\"}}}",
          f);
    fclose(f);
    bsync_validate_report r;
    bsync_validate_report_init(&r);
    assert_int_equal(bsync_validate_config(&r, fixture_path("clean.json"), NULL), BSYNC_OK);
    assert_int_equal(bsync_validate_exit_status(&r), 0);
    assert_int_equal(r.clip_count, 2);
    assert_int_equal(count_code(&r, "cycle_length_mismatch"), 0);
    assert_int_equal(count_code(&r, "missing_in_sibling"), 0);
    /* Unity's Compute Thresholds (Speed): walk 1 m/s, run 3 m/s; current thresholds 1 and 2.5 */
    assert_int_equal(r.suggestion_count, 2);
    assert_string_equal(r.suggestions[0].node, "move");
    assert_string_equal(r.suggestions[0].motion, "walk");
    assert_true(fabs(r.suggestions[0].speed - 1.0) < 1e-4);
    assert_true(fabs(r.suggestions[0].current - 1.0) < 1e-9);
    assert_string_equal(r.suggestions[1].motion, "run");
    assert_true(fabs(r.suggestions[1].speed - 3.0) < 1e-4);
    assert_true(fabs(r.suggestions[1].current - 2.5) < 1e-9);
    bsync_validate_report_destroy(&r);
}

static void test_planted_file_problems(void** state) {
    (void)state;
    bsync_validate_report r;
    bsync_validate_report_init(&r);
    const char* p[1] = {fixture_path("set.gltf")};
    assert_int_equal(bsync_validate_files(&r, p, 1, NULL), BSYNC_OK);
    assert_int_equal(bsync_validate_exit_status(&r), 1);
    /* broken seam: spine's last key is 30 deg of yaw, the first 0 */
    const bsync_validate_finding* s = find_code(&r, "loop_seam", "stumble");
    assert_non_null(s);
    assert_int_equal(s->severity, BSYNC_VALIDATE_WARNING);
    assert_string_equal(s->joint, "spine");
    assert_true(fabs(s->value - 30.0) < 0.01);
    assert_true(fabs(s->limit - 5.0) < 1e-12);
    assert_int_equal(count_code(&r, "loop_seam"), 1); /* the other clips loop */
    /* translation of 1500 m: large but representable */
    const bsync_validate_finding* b = find_code(&r, "large_translation", "big");
    assert_non_null(b);
    assert_string_equal(b->joint, "hips");
    assert_true(fabs(b->value - 1500.0) < 1e-9);
    /* prop's channel is outside the skeleton */
    const bsync_validate_finding* o = find_code(&r, "joint_not_in_skeleton", "walk");
    assert_non_null(o);
    assert_non_null(strstr(o->message, "1 channels on nodes outside the skeleton"));
    /* limp animates 2 joints, walk 3 */
    assert_int_equal(find_clip(&r, "limp")->animated_joints, 2);
    assert_true(fabs(find_clip(&r, "crawl")->duration - 2.0) < 1e-9);
    assert_true(fabs(find_clip(&r, "crawl")->root_speed - 1.0) < 1e-4);
    bsync_validate_report_destroy(&r);
}

static void test_errors_do_not_stop(void** state) {
    (void)state;
    bsync_validate_report r;
    bsync_validate_report_init(&r);
    const char* p[3] = {fixture_path("nan.gltf"), fixture_path("far.gltf"), fixture_path("clean.gltf")};
    assert_int_equal(bsync_validate_files(&r, p, 3, NULL), BSYNC_OK);
    assert_int_equal(bsync_validate_exit_status(&r), 2);
    const bsync_validate_finding* n = find_code(&r, "not_finite", NULL);
    assert_non_null(n);
    assert_int_equal(n->severity, BSYNC_VALIDATE_ERROR);
    assert_string_equal(n->file, p[0]);
    const bsync_validate_finding* f = find_code(&r, "out_of_range", NULL);
    assert_non_null(f);
    assert_int_equal(f->severity, BSYNC_VALIDATE_ERROR);
    assert_string_equal(f->file, p[1]);
    assert_int_equal(r.clip_count, 2); /* clean.gltf was still checked */
    bsync_validate_report_destroy(&r);
}

static void test_hierarchy_and_zero_duration(void** state) {
    (void)state;
    bsync_validate_report r;
    bsync_validate_report_init(&r);
    const char* p[3] = {fixture_path("clean.gltf"), fixture_path("flat.gltf"), fixture_path("pose.gltf")};
    assert_int_equal(bsync_validate_files(&r, p, 3, NULL), BSYNC_OK);
    /* only head moved: flat vs clean and flat vs pose (pose.gltf has clean's hierarchy) */
    assert_int_equal(count_code(&r, "hierarchy_mismatch"), 2);
    const bsync_validate_finding* h = find_code(&r, "hierarchy_mismatch", NULL);
    assert_string_equal(h->joint, "head");
    assert_non_null(strstr(h->message, "parent 'spine'"));
    assert_non_null(strstr(h->message, "'hips'"));
    const bsync_validate_finding* z = find_code(&r, "zero_duration", "pose");
    assert_non_null(z);
    assert_int_equal(z->severity, BSYNC_VALIDATE_WARNING);
    assert_int_equal(bsync_validate_exit_status(&r), 1);
    bsync_validate_report_destroy(&r);
}

static void test_config_nodes(void** state) {
    (void)state;
    bsync_validate_report r;
    /* missing joint between siblings */
    const char* m1[2] = {"walk", "limp"};
    write_config("missing.json", "normalized", m1, 2);
    bsync_validate_report_init(&r);
    assert_int_equal(bsync_validate_config(&r, fixture_path("missing.json"), NULL), BSYNC_OK);
    const bsync_validate_finding* f = find_code(&r, "missing_in_sibling", "limp");
    assert_non_null(f);
    assert_string_equal(f->joint, "head");
    assert_true(f->value == 1.0);
    assert_null(find_code(&r, "missing_in_sibling", "walk"));
    assert_int_equal(bsync_validate_exit_status(&r), 1);
    bsync_validate_report_destroy(&r);

    /* 2 s vs 1 s: 100 % apart; info under normalized sync, warning with sync none */
    const char* m2[2] = {"walk", "crawl"};
    write_config("lengths.json", "normalized", m2, 2);
    bsync_validate_report_init(&r);
    assert_int_equal(bsync_validate_config(&r, fixture_path("lengths.json"), NULL), BSYNC_OK);
    f = find_code(&r, "cycle_length_mismatch", NULL);
    assert_non_null(f);
    assert_int_equal(f->severity, BSYNC_VALIDATE_INFO);
    assert_true(fabs(f->value - 1.0) < 1e-9);
    /* the only warning is set.gltf's channel outside the skeleton (walk's prop track) */
    for (uint32_t i = 0; i < r.finding_count; i++)
        if (r.findings[i].severity != BSYNC_VALIDATE_INFO) assert_string_equal(r.findings[i].code, "joint_not_in_skeleton");
    assert_int_equal(count_code(&r, "joint_not_in_skeleton"), 1);
    bsync_validate_report_destroy(&r);
    write_config("lengths_none.json", "none", m2, 2);
    bsync_validate_report_init(&r);
    assert_int_equal(bsync_validate_config(&r, fixture_path("lengths_none.json"), NULL), BSYNC_OK);
    f = find_code(&r, "cycle_length_mismatch", NULL);
    assert_non_null(f);
    assert_int_equal(f->severity, BSYNC_VALIDATE_WARNING);
    bsync_validate_report_destroy(&r);

    /* a threshold just above the measured ratio silences it: 10 % bound is a strict "more than" */
    bsync_validate_options o;
    bsync_validate_options_default(&o);
    o.cycle_ratio = 1.0;
    bsync_validate_report_init(&r);
    assert_int_equal(bsync_validate_config(&r, fixture_path("lengths_none.json"), &o), BSYNC_OK);
    assert_int_equal(count_code(&r, "cycle_length_mismatch"), 0);
    bsync_validate_report_destroy(&r);

    /* config with a bad animation name and one with a broken source: error findings */
    FILE* fp = fopen(fixture_path("seam.json"), "wb");
    fputs("{\"parameters\":{\"speed\":{}},\"root\":\"move\",\"nodes\":{\"move\":{\"type\":\"Simple1D\","
          "\"parameter\":\"speed\",\"children\":[{\"motion\":\"a\",\"threshold\":0},{\"motion\":\"b\",\"threshold\":1}]}},"
          "\"clips\":{\"a\":{\"source\":\"set.gltf\",\"animation\":\"wlak\"},\"b\":{\"source\":\"nan.gltf\"}}}",
          fp);
    fclose(fp);
    bsync_validate_report_init(&r);
    assert_int_equal(bsync_validate_config(&r, fixture_path("seam.json"), NULL), BSYNC_OK);
    f = find_code(&r, "no_animation", "a");
    assert_non_null(f);
    assert_non_null(strstr(f->message, "wlak"));
    assert_non_null(find_code(&r, "not_finite", "b"));
    assert_int_equal(bsync_validate_exit_status(&r), 2);
    bsync_validate_report_destroy(&r);

    /* unparsable config */
    bsync_validate_report_init(&r);
    assert_int_equal(bsync_validate_config(&r, fixture_path("set.gltf"), NULL), BSYNC_OK);
    assert_non_null(find_code(&r, "config_error", NULL));
    bsync_validate_report_destroy(&r);
}

static void test_options_and_arguments(void** state) {
    (void)state;
    bsync_validate_options o;
    bsync_validate_options_default(&o);
    assert_true(o.seam_rotation_deg == 5.0 && o.seam_translation_m == 0.02 && o.cycle_ratio == 0.10);
    assert_true(o.large_translation_m == 1000.0);
    /* a stricter precision bound than half a raw step: 0.25 m is exact, but 10 degrees of yaw is not */
    o.precision_rotation_rad = 1e-12;
    bsync_validate_report r;
    bsync_validate_report_init(&r);
    const char* p[1] = {fixture_path("clean.gltf")};
    assert_int_equal(bsync_validate_files(&r, p, 1, &o), BSYNC_OK);
    assert_non_null(find_code(&r, "precision_loss", "walk"));
    /* a seam limit of 0 deg: still no seam for clips whose first and last keys are equal */
    bsync_validate_report_destroy(&r);
    assert_int_equal(bsync_validate_files(NULL, p, 1, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_validate_config(&r, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_validate_asset(&r, NULL, "", NULL, NULL), BSYNC_INVALID_ARGUMENT);
    assert_string_equal(bsync_validate_severity_name(BSYNC_VALIDATE_ERROR), "error");
    assert_int_equal(bsync_validate_exit_status(NULL), 0);
}

static void test_shared_data(void** state) {
    (void)state;
    const char* fox = bsync_test_shared_path("data/khronos-fox/Fox.glb");
    if (!fox) {
        skip();
        return;
    }
    bsync_validate_report r;
    bsync_validate_report_init(&r);
    const char* p[1] = {fox};
    assert_int_equal(bsync_validate_files(&r, p, 1, NULL), BSYNC_OK);
    assert_int_equal(r.clip_count, 3);
    assert_int_equal(bsync_validate_exit_status(&r), 0);
    for (uint32_t i = 0; i < r.clip_count; i++) {
        assert_true(fabs(r.clips[i].key_rate_hz - 24.0) < 0.01); /* Fox is keyed at 24 fps */
        printf("  Fox %s: %.4f s, seam %.3f deg %.5f m, root %.4f m/s\n", r.clips[i].clip, r.clips[i].duration,
               r.clips[i].seam_rotation_deg, r.clips[i].seam_translation_m, r.clips[i].root_speed);
    }
    bsync_validate_report_destroy(&r);

    const char* pab = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf");
    if (!pab) return;
    FILE* f = fopen(fixture_path("pab.json"), "wb");
    assert_non_null(f);
    fprintf(f,
            "{\"parameters\":{\"speed\":{}},\"root\":\"loco\",\"nodes\":{\"loco\":{\"type\":\"Simple1D\","
            "\"parameter\":\"speed\",\"children\":[{\"motion\":\"walk\",\"threshold\":1},{\"motion\":\"jog\","
            "\"threshold\":3},{\"motion\":\"run\",\"threshold\":5}]}},\"clips\":{\"walk\":{\"source\":\"%s\"},"
            "\"jog\":{\"source\":\"%s\"},\"run\":{\"source\":\"%s\"}},\"root_joint\":\"Hips\"}",
            pab, pab, pab);
    fclose(f);
    bsync_validate_report_init(&r);
    assert_int_equal(bsync_validate_config(&r, fixture_path("pab.json"), NULL), BSYNC_OK);
    remove(fixture_path("pab.json"));
    assert_int_equal(r.suggestion_count, 3);
    /* speeds increase walk < jog < run and lie near the thresholds the example config uses
     * (1.06913, 3.125, 5.01837 in scripts/examples/pab_locomotion.json) */
    assert_true(fabs(r.suggestions[0].speed - 1.06913) < 1e-3);
    assert_true(fabs(r.suggestions[1].speed - 3.125) < 1e-3);
    assert_true(fabs(r.suggestions[2].speed - 5.01837) < 1e-3);
    assert_non_null(find_code(&r, "cycle_length_mismatch", NULL));
    printf("  pab: status %d, %u findings\n", bsync_validate_exit_status(&r), (unsigned)r.finding_count);
    bsync_validate_report_destroy(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_file),        cmocka_unit_test(test_clean_config),
        cmocka_unit_test(test_planted_file_problems), cmocka_unit_test(test_errors_do_not_stop),
        cmocka_unit_test(test_hierarchy_and_zero_duration), cmocka_unit_test(test_config_nodes),
        cmocka_unit_test(test_options_and_arguments), cmocka_unit_test(test_shared_data),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
