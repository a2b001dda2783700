#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char* bsync_test_shared_dir(void) {
    const char* d = getenv("BSYNC_SHARED_DIR");
    /* default: ../shared beside the project, as an absolute path fixed when CMake configured the
     * build, so a test program finds it whatever directory it is started from */
    if (!d || !*d) d = BSYNC_SHARED_DIR_DEFAULT;
    struct stat st;
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return d;
}

const char* bsync_test_shared_path(const char* relative) {
    static char buf[4096];
    const char* d = bsync_test_shared_dir();
    if (!d) return NULL;
    snprintf(buf, sizeof buf, "%s/%s", d, relative);
    struct stat st;
    if (stat(buf, &st) != 0) return NULL;
    return buf;
}

static void* counting_alloc(size_t size, size_t align, void* user) {
    (void)align;
    bsync_test_counting_allocator* c = user;
    c->allocs++;
    c->live_bytes += size;
    return malloc(size);
}

static void counting_free(void* p, size_t size, void* user) {
    bsync_test_counting_allocator* c = user;
    c->frees++;
    c->live_bytes -= size;
    free(p);
}

void bsync_test_counting_allocator_init(bsync_test_counting_allocator* c) {
    c->allocator.alloc_fn = counting_alloc;
    c->allocator.free_fn = counting_free;
    c->allocator.user = c;
    c->allocs = c->frees = c->live_bytes = 0;
}

uint64_t bsync_test_rand(uint64_t* state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

fix16_t bsync_test_round_div(int64_t v, int64_t den) {
    const int64_t m = v < 0 ? -v : v;
    int64_t q = m / den;
    if (2 * (m % den) >= den) q++;
    if (q > 0x7FFFFFFF) q = 0x7FFFFFFF;
    return (fix16_t)(v < 0 ? -q : q);
}

static void* failing_alloc(size_t size, size_t align, void* user) {
    (void)size;
    (void)align;
    (*(int*)user)++;
    return NULL;
}

static void failing_free(void* p, size_t size, void* user) {
    (void)p;
    (void)size;
    (void)user;
    fail_msg("free called for a failed allocation");
}

bsync_allocator bsync_test_failing_allocator(int* calls) {
    bsync_allocator a = {failing_alloc, failing_free, calls};
    return a;
}

char* bsync_test_read_file(const char* path, size_t* size) {
    if (size) *size = 0;
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char* buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
        if (len == cap) {
            char* nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[len] = '\0';
    if (size) *size = len;
    return buf;
}

cJSON* bsync_test_load_json(const char* path) {
    char* text = bsync_test_read_file(path, NULL);
    assert_non_null(text);
    cJSON* root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    return root;
}

double bsync_test_json_number(const cJSON* j) {
    if (cJSON_IsNumber(j)) return j->valuedouble;
    if (cJSON_IsString(j)) {
        if (strcmp(j->valuestring, "inf") == 0) return INFINITY;
        if (strcmp(j->valuestring, "-inf") == 0) return -INFINITY;
        if (strcmp(j->valuestring, "nan") == 0) return NAN;
    }
    fail_msg("not a number in a vector file");
    return 0;
}

void bsync_test_assert_partition(const fix16_t* w, size_t n) {
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(w[i] >= 0);
        sum += w[i];
    }
    assert_int_equal(sum, BSYNC_FX_ONE);
}

char* bsync_test_base64(const unsigned char* d, size_t n) {
    static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char* o = malloc(n / 3 * 4 + 8);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
        o[k++] = t[(v >> 18) & 63];
        o[k++] = t[(v >> 12) & 63];
        o[k++] = i + 1 < n ? t[(v >> 6) & 63] : '=';
        o[k++] = i + 2 < n ? t[v & 63] : '=';
    }
    o[k] = '\0';
    return o;
}

bsync_match* bsync_test_match_new(const bsync_match_desc* desc, void** mem) {
    size_t size = bsync_match_memory_size(desc);
    *mem = aligned_alloc(16, (size + 15u) & ~(size_t)15u);
    assert_non_null(*mem);
    bsync_match* m = NULL;
    assert_int_equal(bsync_match_init(*mem, size, desc, &m), BSYNC_OK);
    return m;
}

/* ---------------------------------------------------------------- sample.h's rule */

/* Pose rule 2's rotation between keys (sample.h, the lerp samplers), written out: b negated when the
 * exact dot of a and b is negative, or zero with b's first nonzero component in the order w, x, y, z
 * negative; then the four components lerped with bsync_fx_lerp; not normalised. */
static bsync_quat rule_lerp_aligned_(bsync_quat a, bsync_quat b, fix16_t alpha) {
    const int64_t dot = (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z + (int64_t)a.w * b.w;
    const fix16_t first = b.w != 0 ? b.w : b.x != 0 ? b.x : b.y != 0 ? b.y : b.z;
    if (dot < 0 || (dot == 0 && first < 0)) b = bsync_quat_make(-b.x, -b.y, -b.z, -b.w);
    return bsync_quat_make(bsync_fx_lerp(a.x, b.x, alpha), bsync_fx_lerp(a.y, b.y, alpha), bsync_fx_lerp(a.z, b.z, alpha),
                           bsync_fx_lerp(a.w, b.w, alpha));
}

static void rule_track_(const bsync_clip* c, uint32_t i, fix16_t t, int lerp, bsync_vec3* v, bsync_quat* q) {
    bsync_track_info tr;
    assert_int_equal(bsync_clip_track_info(c, i, &tr), BSYNC_OK);
    const uint32_t n = tr.key_count;
    fix16_t tk[2];
    uint32_t k = 0;
    int exact = 1;
    fix16_t alpha = 0, first, last;
    bsync_clip_track_key(c, i, 0, &first, NULL, NULL);
    bsync_clip_track_key(c, i, n - 1, &last, NULL, NULL);
    if (t <= first) {
        k = 0;
    } else if (t >= last) {
        k = n - 1;
    } else {
        for (;; k++) { /* linear scan */
            bsync_clip_track_key(c, i, k, &tk[0], NULL, NULL);
            bsync_clip_track_key(c, i, k + 1, &tk[1], NULL, NULL);
            if (tk[0] <= t && t < tk[1]) break;
        }
        if (t != tk[0]) {
            exact = 0;
            alpha = bsync_fx_div(t - tk[0], tk[1] - tk[0]);
        }
    }
    bsync_vec3 va, vb;
    bsync_quat qa, qb;
    bsync_clip_track_key(c, i, k, NULL, &va, &qa);
    if (!exact) bsync_clip_track_key(c, i, k + 1, NULL, &vb, &qb);
    if (tr.kind == BSYNC_TRACK_ROTATION) *q = exact ? qa : lerp ? rule_lerp_aligned_(qa, qb, alpha) : bsync_quat_nlerp(qa, qb, alpha);
    else *v = exact ? va : bsync_vec3_lerp(va, vb, alpha);
}

static void rule_sample_(const bsync_clip* c, fix16_t time, bsync_loop_mode mode, const bsync_trs* rest, uint32_t J,
                         int lerp, bsync_trs* out) {
    memcpy(out, rest, sizeof(bsync_trs) * J);
    const fix16_t d = bsync_clip_duration(c);
    fix16_t t;
    if (mode == BSYNC_LOOP_WRAP) {
        t = d <= 0 ? 0 : time % d;
        if (t < 0) t += d;
    } else {
        t = time < 0 ? 0 : (time > d ? d : time);
    }
    for (uint32_t i = 0; i < bsync_clip_track_count(c); i++) {
        bsync_track_info tr;
        bsync_clip_track_info(c, i, &tr);
        bsync_trs* x = &out[tr.joint];
        if (tr.kind == BSYNC_TRACK_TRANSLATION) rule_track_(c, i, t, lerp, &x->t, NULL);
        else if (tr.kind == BSYNC_TRACK_SCALE) rule_track_(c, i, t, lerp, &x->s, NULL);
        else rule_track_(c, i, t, lerp, NULL, &x->r);
    }
}

void bsync_test_rule_sample(const bsync_clip* c, fix16_t time, bsync_loop_mode mode, const bsync_trs* rest, uint32_t J,
                            bsync_trs* out) {
    rule_sample_(c, time, mode, rest, J, 0, out);
}

void bsync_test_rule_sample_lerp(const bsync_clip* c, fix16_t time, bsync_loop_mode mode, const bsync_trs* rest,
                                 uint32_t J, bsync_trs* out) {
    rule_sample_(c, time, mode, rest, J, 1, out);
}

double bsync_test_quat_angle(bsync_quat a, bsync_quat b) {
    const double ax = a.x / 65536.0, ay = a.y / 65536.0, az = a.z / 65536.0, aw = a.w / 65536.0;
    const double bx = b.x / 65536.0, by = b.y / 65536.0, bz = b.z / 65536.0, bw = b.w / 65536.0;
    const double na = sqrt(ax * ax + ay * ay + az * az + aw * aw), nb = sqrt(bx * bx + by * by + bz * bz + bw * bw);
    const double d = fabs(ax * bx + ay * by + az * bz + aw * bw) / (na * nb);
    return 2 * acos(d > 1 ? 1 : d);
}
