/* test_curve.c — AnimationCurve-style curves (blendsync/curve.h).
 *
 * Independent expectations: every case of ../shared/reference/vectors/animation_curve.json (within
 * 1e-3); a double-precision Hermite and weighted-Bezier evaluator written here from the spec (§6)
 * over thousands of random curves and times; exact identities (loop periodicity, ping-pong mirror,
 * stepped values, key values at key times); build rules; extremes under UBSan. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "blendsync/curve.h"

static double fxd(fix16_t v) { return (double)v / 65536.0; }
static fix16_t dfx(double v) {
    fix16_t r = 0;
    assert_int_equal(bsync_fx_from_double(v, &r), BSYNC_OK);
    return r;
}

static bsync_curve* build(const bsync_curve_key* keys, uint32_t n, bsync_curve_wrap pre, bsync_curve_wrap post) {
    bsync_curve_desc d = {keys, n, pre, post};
    bsync_curve* c = NULL;
    assert_int_equal(bsync_curve_create(&d, NULL, &c), BSYNC_OK);
    return c;
}

/* ---------------------------------------------------------------- double reference (spec §6) */

static double ref_bez(double p0, double p1, double p2, double p3, double u) {
    double v = 1 - u;
    return v * v * v * p0 + 3 * v * v * u * p1 + 3 * v * u * u * p2 + u * u * u * p3;
}

/* keys sorted; Clamp wrap only */
static double ref_eval(const bsync_curve_key* k, uint32_t n, double t) {
    if (n == 0) return 0;
    if (n == 1 || t <= fxd(k[0].time)) return fxd(k[0].value);
    if (t >= fxd(k[n - 1].time)) return fxd(k[n - 1].value);
    uint32_t i = 0;
    while (i + 2 < n && fxd(k[i + 1].time) <= t) i++;
    const bsync_curve_key *a = &k[i], *b = &k[i + 1];
    double t0 = fxd(a->time), t1 = fxd(b->time), dx = t1 - t0, s = (t - t0) / dx;
    double v0 = fxd(a->value), v1 = fxd(b->value);
    if ((a->flags & BSYNC_CURVE_OUT_STEPPED) || (b->flags & BSYNC_CURVE_IN_STEPPED)) return v0;
    double m0 = fxd(a->out_tangent) * dx, m1 = fxd(b->in_tangent) * dx;
    int wo = (a->flags & BSYNC_CURVE_OUT_WEIGHTED) != 0, wi = (b->flags & BSYNC_CURVE_IN_WEIGHTED) != 0;
    if (!wo && !wi) {
        double s2 = s * s, s3 = s2 * s;
        return (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * m0 + (-2 * s3 + 3 * s2) * v1 + (s3 - s2) * m1;
    }
    double w0 = wo ? fxd(a->out_weight) : 1.0 / 3, w1 = wi ? fxd(b->in_weight) : 1.0 / 3;
    double lo = 0, hi = 1;
    for (int it = 0; it < 200; it++) {
        double mid = 0.5 * (lo + hi);
        if (ref_bez(0, w0, 1 - w1, 1, mid) < s)
            lo = mid;
        else
            hi = mid;
    }
    double u = 0.5 * (lo + hi);
    return ref_bez(v0, v0 + w0 * m0, v1 - w1 * m1, v1, u);
}

/* ---------------------------------------------------------------- vectors */

static int jinf(const cJSON* j) { return cJSON_IsString(j) && strstr(j->valuestring, "inf") != NULL; }

static void test_vectors(void** state) {
    (void)state;
    const char* path = bsync_test_shared_path("reference/vectors/animation_curve.json");
    if (!path) {
        skip();
        return;
    }
    cJSON* root = bsync_test_load_json(path);
    const cJSON* cases = cJSON_GetObjectItemCaseSensitive(root, "cases");
    const cJSON* c;
    int ncases = 0, npoints = 0;
    char last_group[64] = "";
    double group_worst = 0;
    cJSON_ArrayForEach(c, cases) {
        const char* name = cJSON_GetObjectItemCaseSensitive(c, "curve")->valuestring;
        const char* wrap = cJSON_GetObjectItemCaseSensitive(c, "wrap")->valuestring;
        const cJSON* keys = cJSON_GetObjectItemCaseSensitive(c, "keys");
        const cJSON* modes = cJSON_GetObjectItemCaseSensitive(c, "key_modes");
        bsync_curve_key k[16];
        uint32_t n = (uint32_t)cJSON_GetArraySize(keys);
        assert_true(n <= 16);
        for (uint32_t i = 0; i < n; i++) {
            const cJSON* kj = cJSON_GetArrayItem(keys, (int)i);
            const char* mode = cJSON_GetArrayItem(modes, (int)i)->valuestring;
            memset(&k[i], 0, sizeof k[i]);
            k[i].time = dfx(cJSON_GetArrayItem(kj, 0)->valuedouble);
            k[i].value = dfx(cJSON_GetArrayItem(kj, 1)->valuedouble);
            const cJSON* in = cJSON_GetArrayItem(kj, 2);
            const cJSON* out = cJSON_GetArrayItem(kj, 3);
            if (jinf(in)) k[i].flags |= BSYNC_CURVE_IN_STEPPED; else k[i].in_tangent = dfx(in->valuedouble);
            if (jinf(out)) k[i].flags |= BSYNC_CURVE_OUT_STEPPED; else k[i].out_tangent = dfx(out->valuedouble);
            k[i].in_weight = dfx(cJSON_GetArrayItem(kj, 4)->valuedouble);
            k[i].out_weight = dfx(cJSON_GetArrayItem(kj, 5)->valuedouble);
            if (strcmp(mode, "in") == 0 || strcmp(mode, "both") == 0) k[i].flags |= BSYNC_CURVE_IN_WEIGHTED;
            if (strcmp(mode, "out") == 0 || strcmp(mode, "both") == 0) k[i].flags |= BSYNC_CURVE_OUT_WEIGHTED;
            if (strcmp(mode, "none") != 0 && strcmp(mode, "in") != 0 && strcmp(mode, "out") != 0 &&
                strcmp(mode, "both") != 0)
                fail_msg("unknown key mode %s", mode);
        }
        bsync_curve_wrap w = strcmp(wrap, "loop") == 0       ? BSYNC_CURVE_LOOP
                             : strcmp(wrap, "pingpong") == 0 ? BSYNC_CURVE_PINGPONG
                                                             : BSYNC_CURVE_CLAMP;
        if (w == BSYNC_CURVE_CLAMP && strcmp(wrap, "clamp") != 0) fail_msg("unknown wrap %s", wrap);
        bsync_curve* cv = build(k, n, w, w);
        const cJSON* times = cJSON_GetObjectItemCaseSensitive(c, "times");
        const cJSON* exp = cJSON_GetObjectItemCaseSensitive(c, "expected");
        assert_int_equal(cJSON_GetArraySize(times), cJSON_GetArraySize(exp));
        if (strcmp(last_group, name) != 0) {
            if (last_group[0]) printf("curve vectors: %-26s worst |error| %.3g\n", last_group, group_worst);
            snprintf(last_group, sizeof last_group, "%s", name);
            group_worst = 0;
        }
        for (int i = 0; i < cJSON_GetArraySize(times); i++) {
            double t = cJSON_GetArrayItem(times, i)->valuedouble, e = cJSON_GetArrayItem(exp, i)->valuedouble;
            double got = fxd(bsync_curve_evaluate(cv, dfx(t)));
            double err = fabs(got - e);
            if (err > group_worst) group_worst = err;
            if (err > 1e-3) fail_msg("%s/%s at t=%g: %.6f, expected %.6f", name, wrap, t, got, e);
            npoints++;
        }
        bsync_curve_destroy(cv);
        ncases++;
    }
    if (last_group[0]) printf("curve vectors: %-26s worst |error| %.3g\n", last_group, group_worst);
    printf("curve vectors: %d cases, %d points\n", ncases, npoints);
    assert_int_equal(ncases, cJSON_GetArraySize(cases));
    cJSON_Delete(root);
}

/* ---------------------------------------------------------------- random curves vs double */

static int32_t rnd_range(uint64_t* r, int32_t lo, int32_t hi) {
    return (int32_t)((int64_t)lo + (int64_t)(bsync_test_rand(r) % (uint64_t)((int64_t)hi - lo + 1)));
}

static void random_curve(uint64_t* r, bsync_curve_key* k, uint32_t n, int weighted) {
    int32_t t = rnd_range(r, -5 * 65536, 5 * 65536);
    for (uint32_t i = 0; i < n; i++) {
        memset(&k[i], 0, sizeof k[i]);
        k[i].time = t;
        t += rnd_range(r, 655, 3 * 65536);
        k[i].value = rnd_range(r, -10 * 65536, 10 * 65536);
        k[i].in_tangent = rnd_range(r, -10 * 65536, 10 * 65536);
        k[i].out_tangent = rnd_range(r, -10 * 65536, 10 * 65536);
        if (weighted) {
            k[i].in_weight = rnd_range(r, 0, 65536);
            k[i].out_weight = rnd_range(r, 0, 65536);
            k[i].flags = (uint32_t)(bsync_test_rand(r) % 4) * BSYNC_CURVE_IN_WEIGHTED; /* none/in/out/both */
        }
    }
}

static void check_random(int weighted, double tol_steps, const char* label) {
    uint64_t r = weighted ? 1234 : 4321;
    double worst = 0;
    int points = 0;
    for (int c = 0; c < 2000; c++) {
        bsync_curve_key k[6];
        uint32_t n = 2 + (uint32_t)(bsync_test_rand(&r) % 5);
        random_curve(&r, k, n, weighted);
        bsync_curve* cv = build(k, n, BSYNC_CURVE_CLAMP, BSYNC_CURVE_CLAMP);
        for (int i = 0; i < 10; i++) {
            fix16_t t = rnd_range(&r, k[0].time - 65536, k[n - 1].time + 65536);
            double got = fxd(bsync_curve_evaluate(cv, t)), want = ref_eval(k, n, fxd(t));
            double err = fabs(got - want) * 65536;
            if (err > worst) worst = err;
            if (err > tol_steps) fail_msg("%s curve %d t %d: %.7f vs %.7f", label, c, t, got, want);
            points++;
        }
        /* key values exactly at key times */
        for (uint32_t i = 0; i < n; i++) assert_int_equal(bsync_curve_evaluate(cv, k[i].time), k[i].value);
        bsync_curve_destroy(cv);
    }
    printf("curve random %s: %d points, worst error %.3f raw steps\n", label, points, worst);
}

static void test_random_hermite(void** state) {
    (void)state;
    check_random(0, 1.0, "hermite");
}

static void test_random_weighted(void** state) {
    (void)state;
    check_random(1, 1.0, "weighted");
}

/* Bezier with weights 1/3 is the Hermite segment (spec §6): the two paths agree within the
 * difference of fix16 1/3 from 1/3 (0.33333 vs 21845/65536) */
static void test_weighted_third_is_hermite(void** state) {
    (void)state;
    uint64_t r = 77;
    double worst = 0;
    for (int c = 0; c < 1000; c++) {
        bsync_curve_key k[3];
        random_curve(&r, k, 3, 0);
        bsync_curve_key kw[3];
        memcpy(kw, k, sizeof k);
        for (int i = 0; i < 3; i++) {
            kw[i].flags = BSYNC_CURVE_IN_WEIGHTED | BSYNC_CURVE_OUT_WEIGHTED;
            kw[i].in_weight = kw[i].out_weight = 21845;
        }
        bsync_curve* a = build(k, 3, BSYNC_CURVE_CLAMP, BSYNC_CURVE_CLAMP);
        bsync_curve* b = build(kw, 3, BSYNC_CURVE_CLAMP, BSYNC_CURVE_CLAMP);
        for (int i = 0; i < 20; i++) {
            fix16_t t = rnd_range(&r, k[0].time, k[2].time);
            double d = fabs(fxd(bsync_curve_evaluate(a, t)) - fxd(bsync_curve_evaluate(b, t)));
            if (d > worst) worst = d;
            assert_true(d < 2e-4);
        }
        bsync_curve_destroy(a);
        bsync_curve_destroy(b);
    }
    printf("curve weighted(1/3) vs hermite: worst difference %.3g\n", worst);
}

static void test_stepped_and_wraps(void** state) {
    (void)state;
    bsync_curve_key k[3];
    memset(k, 0, sizeof k);
    k[0].time = 0; k[0].value = 0; k[0].flags = BSYNC_CURVE_OUT_STEPPED;
    k[1].time = 32768; k[1].value = 65536; k[1].flags = BSYNC_CURVE_IN_STEPPED;
    k[2].time = 65536; k[2].value = 3 * 65536; k[2].out_tangent = 5 * 65536; k[2].in_tangent = 2 * 65536;
    bsync_curve* c = build(k, 3, BSYNC_CURVE_CLAMP, BSYNC_CURVE_CLAMP);
    assert_int_equal(bsync_curve_evaluate(c, 0), 0);
    assert_int_equal(bsync_curve_evaluate(c, 32767), 0);      /* stepped: v0 up to the next key */
    assert_int_equal(bsync_curve_evaluate(c, 32768), 65536);  /* the next key's value at its time */
    assert_int_equal(bsync_curve_evaluate(c, -1000000), 0);
    assert_int_equal(bsync_curve_evaluate(c, 65536), 3 * 65536);
    assert_int_equal(bsync_curve_evaluate(c, BSYNC_FX_MAX), 3 * 65536);
    bsync_curve_destroy(c);

    uint64_t r = 9;
    for (int cc = 0; cc < 300; cc++) {
        bsync_curve_key kk[4];
        random_curve(&r, kk, 4, cc % 2);
        bsync_curve* lp = build(kk, 4, BSYNC_CURVE_LOOP, BSYNC_CURVE_LOOP);
        bsync_curve* pp = build(kk, 4, BSYNC_CURVE_PINGPONG, BSYNC_CURVE_PINGPONG);
        const int32_t first = kk[0].time, last = kk[3].time, len = last - first;
        for (int i = 0; i < 30; i++) {
            int32_t t = rnd_range(&r, first, last - 1);
            int32_t k2 = rnd_range(&r, -3, 3);
            int64_t shifted = (int64_t)t + (int64_t)k2 * len;
            if (shifted < INT32_MIN + 1 || shifted > INT32_MAX) continue;
            /* Loop: periodic with period len, exactly */
            assert_int_equal(bsync_curve_evaluate(lp, (fix16_t)shifted), bsync_curve_evaluate(lp, t));
            /* PingPong: the mirror image after the last key, and period 2 len */
            int32_t d = t - first;
            assert_int_equal(bsync_curve_evaluate(pp, last + (len - d)), bsync_curve_evaluate(pp, first + d));
            int64_t s2 = (int64_t)t + (int64_t)k2 * 2 * len;
            if (s2 > INT32_MIN && s2 <= INT32_MAX)
                assert_int_equal(bsync_curve_evaluate(pp, (fix16_t)s2), bsync_curve_evaluate(pp, t));
        }
        bsync_curve_destroy(lp);
        bsync_curve_destroy(pp);
    }
}

static void test_build_rules(void** state) {
    (void)state;
    bsync_curve_key k[3];
    memset(k, 0, sizeof k);
    k[0].time = 2 * 65536; k[0].value = 7;
    k[1].time = 0; k[1].value = 5;
    k[2].time = 65536; k[2].value = 6;
    bsync_curve_desc d = {k, 3, BSYNC_CURVE_CLAMP, BSYNC_CURVE_LOOP};
    assert_int_equal(bsync_curve_validate(&d), BSYNC_OK);
    size_t need = bsync_curve_memory_size(&d);
    assert_true(need >= 64 + 3 * 28 && need % 8 == 0);
    /* sorted at build: same block as a sorted desc */
    uint64_t m1[64], m2[64];
    memset(m1, 0x11, sizeof m1);
    memset(m2, 0x22, sizeof m2);
    bsync_curve *a = NULL, *b = NULL;
    assert_int_equal(bsync_curve_init(m1, sizeof m1, &d, &a), BSYNC_OK);
    bsync_curve_key sorted[3] = {k[1], k[2], k[0]};
    bsync_curve_desc ds = {sorted, 3, BSYNC_CURVE_CLAMP, BSYNC_CURVE_LOOP};
    assert_int_equal(bsync_curve_init(m2, sizeof m2, &ds, &b), BSYNC_OK);
    assert_memory_equal(m1, m2, need);
    assert_int_equal(bsync_curve_key_count(a), 3);
    assert_int_equal(bsync_curve_key_at(a, 0).value, 5);
    assert_int_equal(bsync_curve_key_at(a, 2).time, 2 * 65536);
    assert_int_equal(bsync_curve_key_at(a, 0).in_weight, 21845);
    assert_int_equal(bsync_curve_key_at(a, 9).time, 0);
    assert_int_equal(bsync_curve_block_size(a), need);
    /* relocatable */
    uint64_t m3[64];
    memcpy(m3, m1, need);
    assert_int_equal(bsync_curve_evaluate((const bsync_curve*)(void*)m3, 98304), bsync_curve_evaluate(a, 98304));
    /* checksums agree for both orders */
    bsync_checksum_state c1, c2;
    bsync_checksum_init(&c1, BSYNC_CHECKSUM_SEED_CURVE);
    bsync_checksum_init(&c2, BSYNC_CHECKSUM_SEED_CURVE);
    bsync_curve_checksum_feed(a, &c1);
    bsync_curve_checksum_feed(b, &c2);
    assert_true(bsync_checksum_final(&c1) == bsync_checksum_final(&c2));
    /* the canonical bytes, by hand */
    uint8_t bytes[12 + 3 * 28];
    size_t o = 0;
    const uint32_t head[3] = {3, 0, 1};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) bytes[o++] = (uint8_t)(head[i] >> (8 * j));
    for (int i = 0; i < 3; i++) {
        const uint32_t f[7] = {(uint32_t)sorted[i].time, (uint32_t)sorted[i].value, 0, 0, 21845, 21845, 0};
        for (int q = 0; q < 7; q++)
            for (int j = 0; j < 4; j++) bytes[o++] = (uint8_t)(f[q] >> (8 * j));
    }
    assert_true(bsync_checksum_final(&c1) == bsync_checksum_xxh64(bytes, o, BSYNC_CHECKSUM_SEED_CURVE));

    /* errors, nothing written */
    uint64_t buf[64];
    memset(buf, 0x5A, sizeof buf);
    bsync_curve* out = (bsync_curve*)(void*)1;
    k[2].time = 0;
    assert_int_equal(bsync_curve_init(buf, sizeof buf, &d, &out), BSYNC_KEYS_UNSORTED);
    assert_true(out == (bsync_curve*)(void*)1 && buf[0] == 0x5A5A5A5A5A5A5A5Aull);
    k[2].time = 65536;
    k[2].flags = BSYNC_CURVE_IN_WEIGHTED;
    k[2].in_weight = 65537;
    assert_int_equal(bsync_curve_validate(&d), BSYNC_INVALID_ARGUMENT);
    k[2].in_weight = -1;
    assert_int_equal(bsync_curve_validate(&d), BSYNC_INVALID_ARGUMENT);
    k[2].in_weight = 65536;
    assert_int_equal(bsync_curve_validate(&d), BSYNC_OK);
    k[2].flags = 16;
    assert_int_equal(bsync_curve_validate(&d), BSYNC_INVALID_ARGUMENT);
    k[2].flags = 0;
    d.post_wrap = (bsync_curve_wrap)3;
    assert_int_equal(bsync_curve_validate(&d), BSYNC_INVALID_ARGUMENT);
    d.post_wrap = BSYNC_CURVE_LOOP;
    assert_int_equal(bsync_curve_init(buf, need - 8, &d, &out), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_curve_init((char*)buf + 4, need, &d, &out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_curve_validate(NULL), BSYNC_INVALID_ARGUMENT);
    bsync_curve_desc dn = {NULL, 2, BSYNC_CURVE_CLAMP, BSYNC_CURVE_CLAMP};
    assert_int_equal(bsync_curve_validate(&dn), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_curve_memory_size(&dn), 0);
    dn.key_count = BSYNC_MAX_CURVE_KEYS + 1;
    dn.keys = k;
    assert_int_equal(bsync_curve_validate(&dn), BSYNC_LIMIT_EXCEEDED);
    /* allocation */
    int calls = 0;
    bsync_allocator fail = bsync_test_failing_allocator(&calls);
    assert_int_equal(bsync_curve_create(&d, &fail, &out), BSYNC_OUT_OF_MEMORY);
    assert_int_equal(calls, 1);
    bsync_test_counting_allocator ca;
    bsync_test_counting_allocator_init(&ca);
    assert_int_equal(bsync_curve_create(&d, &ca.allocator, &out), BSYNC_OK);
    assert_int_equal(ca.allocs, 1);
    bsync_curve_destroy(out);
    assert_int_equal(ca.frees, 1);
    assert_int_equal(ca.live_bytes, 0);
    bsync_curve_destroy(NULL);
    bsync_curve_destroy(a); /* init'ed: left alone */
    /* 0 keys -> 0, 1 key -> its value; NULL -> 0 */
    bsync_curve_desc d0 = {NULL, 0, BSYNC_CURVE_LOOP, BSYNC_CURVE_PINGPONG};
    bsync_curve* z = NULL;
    assert_int_equal(bsync_curve_create(&d0, NULL, &z), BSYNC_OK);
    assert_int_equal(bsync_curve_evaluate(z, 12345), 0);
    bsync_curve_destroy(z);
    bsync_curve_desc d1 = {k, 1, BSYNC_CURVE_LOOP, BSYNC_CURVE_PINGPONG};
    assert_int_equal(bsync_curve_create(&d1, NULL, &z), BSYNC_OK);
    assert_int_equal(bsync_curve_evaluate(z, BSYNC_FX_MIN), 7);
    assert_int_equal(bsync_curve_evaluate(z, 999), 7);
    bsync_curve_destroy(z);
    assert_int_equal(bsync_curve_evaluate(NULL, 5), 0);
}

static void test_extremes_no_ub(void** state) {
    (void)state;
    const fix16_t ext[] = {BSYNC_FX_MIN, (fix16_t)INT32_MIN, -1, 0, 1, BSYNC_FX_MAX};
    uint64_t r = 3;
    int evals = 0;
    for (int c = 0; c < 400; c++) {
        bsync_curve_key k[3];
        memset(k, 0, sizeof k);
        k[0].time = (c % 2) ? (fix16_t)INT32_MIN : BSYNC_FX_MIN;
        k[1].time = (fix16_t)(bsync_test_rand(&r) % 1000) - 500;
        k[2].time = BSYNC_FX_MAX;
        for (int i = 0; i < 3; i++) {
            k[i].value = ext[bsync_test_rand(&r) % 6];
            k[i].in_tangent = ext[bsync_test_rand(&r) % 6];
            k[i].out_tangent = ext[bsync_test_rand(&r) % 6];
            k[i].in_weight = (fix16_t)(bsync_test_rand(&r) % 65537);
            k[i].out_weight = (fix16_t)(bsync_test_rand(&r) % 65537);
            k[i].flags = (uint32_t)(bsync_test_rand(&r) % 16);
        }
        bsync_curve* cv = build(k, 3, (bsync_curve_wrap)(c % 3), (bsync_curve_wrap)((c / 3) % 3));
        for (int i = 0; i < 6; i++) {
            fix16_t v = bsync_curve_evaluate(cv, ext[i]);
            assert_true(v != (fix16_t)INT32_MIN || k[0].value == (fix16_t)INT32_MIN ||
                        k[1].value == (fix16_t)INT32_MIN || k[2].value == (fix16_t)INT32_MIN);
            fix16_t t = (fix16_t)bsync_test_rand(&r);
            (void)bsync_curve_evaluate(cv, t);
            evals += 2;
        }
        bsync_curve_destroy(cv);
    }
    printf("curve extremes: %d evaluations\n", evals);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vectors),
        cmocka_unit_test(test_random_hermite),
        cmocka_unit_test(test_random_weighted),
        cmocka_unit_test(test_weighted_third_is_hermite),
        cmocka_unit_test(test_stepped_and_wraps),
        cmocka_unit_test(test_build_rules),
        cmocka_unit_test(test_extremes_no_ub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
