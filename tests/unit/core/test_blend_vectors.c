/* test_blend_vectors.c — every blend case of the JSON files in ../shared/reference/vectors against blendsync.
 *
 * Each file with "cases" whose "algorithm" is a blendsync type is checked: the layout ("thresholds"
 * or "points") and the parameter are converted to fix16 (NaN -> 0, +-inf and out-of-range values
 * saturate, as the text and float edges of the library do), the space is built and evaluated, and
 * every weight must be within the type's tolerance of "expected" (the recommended behaviour of
 * blend-spec.md §9): 2e-4 for Simple1D, SimpleDirectional2D, FreeformCartesian2D and Delaunay2D,
 * 1e-3 for FreeformDirectional2D and InverseDistance2D. Cases marked "triangulation_dependent" check
 * their listed "invariants" instead. Every result must also be >= 0 and sum to exactly BSYNC_FX_ONE.
 * Algorithms that are not blendsync types (discrete, delaunay_grid, delaunay_ue, 1d_godot) are
 * skipped by name. The worst absolute error per type is printed. Skips when the folder is absent. */
#include "test_support.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blendsync/blend_space.h"

static double fx_to_d(fix16_t v) { return (double)v / 65536.0; }

/* NaN -> 0, +-inf and out-of-range -> saturate, else round to nearest. */
static fix16_t d_to_fx(double v) {
    if (v != v) return 0;
    if (v >= 32767.99998) return BSYNC_FX_MAX;
    if (v <= -32767.99998) return BSYNC_FX_MIN;
    fix16_t out = 0;
    assert_int_equal(bsync_fx_from_double(v, &out), BSYNC_OK);
    return out;
}

typedef struct type_stats {
    const char* algorithm;
    bsync_blend_type type;
    double tol;
    double worst;
    int cases, invariant_cases;
    char worst_where[128];
} type_stats;

static type_stats STATS[] = {
    {"1d", BSYNC_BLEND_SIMPLE_1D, 2e-4, 0, 0, 0, ""},
    {"simple_directional", BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, 2e-4, 0, 0, 0, ""},
    {"cartesian", BSYNC_BLEND_FREEFORM_CARTESIAN_2D, 2e-4, 0, 0, 0, ""},
    {"polar", BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D, 1e-3, 0, 0, 0, ""},
    {"idw", BSYNC_BLEND_INVERSE_DISTANCE_2D, 1e-3, 0, 0, 0, ""},
    {"delaunay", BSYNC_BLEND_DELAUNAY_2D, 2e-4, 0, 0, 0, ""},
};
static const char* const SKIPPED[] = {"discrete", "delaunay_grid", "delaunay_ue", "1d_godot"};

static int skipped_cases, files_with_cases;

static type_stats* stats_for(const char* alg) {
    for (size_t i = 0; i < sizeof STATS / sizeof STATS[0]; i++)
        if (strcmp(STATS[i].algorithm, alg) == 0) return &STATS[i];
    return NULL;
}

static void check_invariants(const cJSON* c, const fix16_t* w, uint32_t n, const bsync_vec2* pos, const double* q,
                             const char* where) {
    const cJSON* inv = cJSON_GetObjectItemCaseSensitive(c, "invariants");
    const cJSON* exp = cJSON_GetObjectItemCaseSensitive(c, "expected");
    const cJSON* item;
    cJSON_ArrayForEach(item, inv) {
        const char* name = item->valuestring;
        if (strcmp(name, "sum_to_one") == 0 || strcmp(name, "nonnegative") == 0) {
            continue; /* checked for every case */
        } else if (strcmp(name, "at_most_3_nonzero") == 0) {
            uint32_t nz = 0;
            for (uint32_t i = 0; i < n; i++) nz += w[i] != 0;
            if (nz > 3) fail_msg("%s: %u nonzero weights", where, nz);
        } else if (strcmp(name, "linear_precision_inside_hull") == 0) {
            /* q is inside the hull exactly when the expected weights reproduce it */
            double ex = 0, ey = 0, gx = 0, gy = 0;
            for (uint32_t i = 0; i < n; i++) {
                double e = bsync_test_json_number(cJSON_GetArrayItem(exp, (int)i));
                ex += e * fx_to_d(pos[i].x);
                ey += e * fx_to_d(pos[i].y);
                gx += fx_to_d(w[i]) * fx_to_d(pos[i].x);
                gy += fx_to_d(w[i]) * fx_to_d(pos[i].y);
            }
            if (fabs(ex - q[0]) < 1e-6 && fabs(ey - q[1]) < 1e-6) {
                if (fabs(gx - q[0]) > 1e-3 || fabs(gy - q[1]) > 1e-3)
                    fail_msg("%s: no linear precision (%g, %g) vs (%g, %g)", where, gx, gy, q[0], q[1]);
            }
        } else {
            fail_msg("%s: unknown invariant %s", where, name);
        }
    }
}

static void check_file(const char* path, const char* fname) {
    cJSON* root = bsync_test_load_json(path);
    const cJSON* cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    const cJSON* thr = cJSON_GetObjectItemCaseSensitive(root, "thresholds");
    const cJSON* pts = cJSON_GetObjectItemCaseSensitive(root, "points");
    if (!cJSON_IsArray(cases) || (!thr && !pts)) {
        cJSON_Delete(root);
        return;
    }
    files_with_cases++;
    fix16_t th[BSYNC_MAX_BLEND_CHILDREN];
    bsync_vec2 pos[BSYNC_MAX_BLEND_CHILDREN];
    uint32_t n = 0;
    const cJSON* layout = thr ? thr : pts;
    n = (uint32_t)cJSON_GetArraySize(layout);
    assert_true(n >= 1 && n <= BSYNC_MAX_BLEND_CHILDREN);
    for (uint32_t i = 0; i < n; i++) {
        const cJSON* e = cJSON_GetArrayItem(layout, (int)i);
        if (thr) {
            th[i] = d_to_fx(bsync_test_json_number(e));
        } else {
            pos[i].x = d_to_fx(bsync_test_json_number(cJSON_GetArrayItem(e, 0)));
            pos[i].y = d_to_fx(bsync_test_json_number(cJSON_GetArrayItem(e, 1)));
        }
    }
    int idx = 0;
    const cJSON* c;
    cJSON_ArrayForEach(c, cases) {
        idx++;
        const cJSON* alg = cJSON_GetObjectItemCaseSensitive(c, "algorithm");
        if (!cJSON_IsString(alg)) continue;
        type_stats* st = stats_for(alg->valuestring);
        if (!st) {
            int known = 0;
            for (size_t k = 0; k < sizeof SKIPPED / sizeof SKIPPED[0]; k++) known |= strcmp(SKIPPED[k], alg->valuestring) == 0;
            if (!known) fail_msg("%s case %d: unknown algorithm %s", fname, idx, alg->valuestring);
            skipped_cases++;
            continue;
        }
        char where[512];
        snprintf(where, sizeof where, "%.200s case %d (%.40s)", fname, idx, alg->valuestring);
        bsync_blend_space_desc d;
        memset(&d, 0, sizeof d);
        d.type = st->type;
        d.child_count = n;
        if (st->type == BSYNC_BLEND_SIMPLE_1D) d.thresholds = th;
        else d.positions = pos;
        const cJSON* pw = cJSON_GetObjectItemCaseSensitive(c, "power");
        if (pw) d.power = (uint32_t)bsync_test_json_number(pw);
        bsync_blend_space* s = NULL;
        assert_int_equal(bsync_blend_space_create(&d, NULL, &s, NULL), BSYNC_OK);
        const cJSON* param = cJSON_GetObjectItemCaseSensitive(c, "param");
        double q[2] = {0, 0};
        fix16_t fq[2];
        uint32_t pc = 1;
        if (cJSON_IsArray(param)) {
            q[0] = bsync_test_json_number(cJSON_GetArrayItem(param, 0));
            q[1] = bsync_test_json_number(cJSON_GetArrayItem(param, 1));
            pc = 2;
        } else {
            q[0] = bsync_test_json_number(param);
        }
        fq[0] = d_to_fx(q[0]);
        fq[1] = d_to_fx(q[1]);
        if (q[0] != q[0]) q[0] = 0;
        if (q[1] != q[1]) q[1] = 0;
        fix16_t w[BSYNC_MAX_BLEND_CHILDREN];
        assert_int_equal(bsync_blend_space_eval(s, fq, pc, w), BSYNC_OK);
        int64_t sum = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (w[i] < 0) fail_msg("%s: negative weight", where);
            sum += w[i];
        }
        if (sum != BSYNC_FX_ONE) fail_msg("%s: sum %lld", where, (long long)sum);
        const cJSON* exp = cJSON_GetObjectItemCaseSensitive(c, "expected");
        assert_int_equal(cJSON_GetArraySize(exp), (int)n);
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "triangulation_dependent"))) {
            check_invariants(c, w, n, pos, q, where);
            st->invariant_cases++;
        } else {
            for (uint32_t i = 0; i < n; i++) {
                double err = fabs(fx_to_d(w[i]) - bsync_test_json_number(cJSON_GetArrayItem(exp, (int)i)));
                if (err > st->worst) {
                    st->worst = err;
                    snprintf(st->worst_where, sizeof st->worst_where, "%.100s", where);
                }
                if (err > st->tol) {
                    fprintf(stderr, "%s: weight %u = %.6f, expected %.6f\n", where, i, fx_to_d(w[i]),
                            bsync_test_json_number(cJSON_GetArrayItem(exp, (int)i)));
                    fail_msg("%s: error %g above %g", where, err, st->tol);
                }
            }
            st->cases++;
        }
        bsync_blend_space_destroy(s);
    }
    cJSON_Delete(root);
}

static void test_all_vector_files(void** state) {
    (void)state;
    const char* dir = bsync_test_shared_path("reference/vectors");
    if (!dir) {
        skip();
        return;
    }
    char dirpath[1024];
    if (strlen(dir) >= sizeof dirpath) fail_msg("path too long");
    memcpy(dirpath, dir, strlen(dir) + 1);
    DIR* dd = opendir(dirpath);
    if (!dd) {
        skip();
        return;
    }
    static char names[128][256];
    int count = 0;
    struct dirent* e;
    while ((e = readdir(dd)) != NULL && count < 128) {
        size_t len = strlen(e->d_name);
        if (len > 5 && len < 250 && strcmp(e->d_name + len - 5, ".json") == 0) {
            memcpy(names[count], e->d_name, len + 1);
            count++;
        }
    }
    closedir(dd);
    for (int i = 0; i < count; i++) {
        char path[1400];
        size_t a = strlen(dirpath), b = strlen(names[i]);
        memcpy(path, dirpath, a);
        path[a] = '/';
        memcpy(path + a + 1, names[i], b + 1);
        check_file(path, names[i]);
    }
    int total = 0;
    for (size_t i = 0; i < sizeof STATS / sizeof STATS[0]; i++) {
        printf("blend vectors: %-20s %-22s %3d cases, %2d by invariants, worst |error| %.3g (tolerance %g) at %s\n",
               STATS[i].algorithm, bsync_blend_type_name(STATS[i].type), STATS[i].cases, STATS[i].invariant_cases,
               STATS[i].worst, STATS[i].tol, STATS[i].worst_where);
        total += STATS[i].cases + STATS[i].invariant_cases;
        assert_true(STATS[i].cases > 0);
    }
    printf("blend vectors: %d files with blend cases, %d cases checked, %d skipped by name\n", files_with_cases, total,
           skipped_cases);
    assert_true(files_with_cases >= 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_all_vector_files)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
