/* test_blend_space.c — blend spaces (all types but Delaunay2D's triangulation, which has its own test):
 * names, validation codes, block build, hand-worked cases from blend-spec.md (embedded, so this suite
 * stands without ../shared), edge-case policies, warnings, the far-point pull-back, Direct, and
 * property tests over thousands of random layouts against double-precision implementations of the
 * spec's formulas written here from the spec (not from the library). */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_space.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define ONE BSYNC_FX_ONE
#define F(v) ((fix16_t)lround((v) * 65536.0))
static double D(fix16_t v) { return (double)v / 65536.0; }

typedef struct built {
    bsync_blend_space* s;
    bsync_blend_diagnostics diag;
} built;

static bsync_blend_space* make(bsync_blend_type t, uint32_t n, const fix16_t* th, const bsync_vec2* pos, uint32_t power,
                               bsync_blend_diagnostics* diag) {
    bsync_blend_space_desc d;
    memset(&d, 0, sizeof d);
    d.type = t;
    d.child_count = n;
    d.thresholds = th;
    d.positions = pos;
    d.power = power;
    bsync_blend_space* s = NULL;
    assert_int_equal(bsync_blend_space_create(&d, NULL, &s, diag), BSYNC_OK);
    return s;
}

static void eval2(const bsync_blend_space* s, double x, double y, fix16_t* w) {
    fix16_t p[2] = {F(x), F(y)};
    assert_int_equal(bsync_blend_space_eval(s, p, 2, w), BSYNC_OK);
}

static void expect_weights(const fix16_t* w, const double* e, uint32_t n, double tol) {
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (fabs(D(w[i]) - e[i]) > tol) fail_msg("weight %u: %.7f expected %.7f", i, D(w[i]), e[i]);
        assert_true(w[i] >= 0);
        sum += w[i];
    }
    assert_int_equal(sum, ONE);
}

/* ------------------------------------------------------------------ names, validation, block */

static void test_names(void** state) {
    (void)state;
    const char* names[] = {"Simple1D", "SimpleDirectional2D", "FreeformDirectional2D", "FreeformCartesian2D",
                           "Direct", "Delaunay2D", "InverseDistance2D"};
    for (int t = 0; t < BSYNC_BLEND_TYPE_COUNT; t++) {
        assert_string_equal(bsync_blend_type_name((bsync_blend_type)t), names[t]);
        bsync_blend_type out;
        assert_int_equal(bsync_blend_type_from_name(names[t], &out), BSYNC_OK);
        assert_int_equal(out, t);
    }
    assert_string_equal(bsync_blend_type_name((bsync_blend_type)7), "unknown");
    bsync_blend_type out;
    assert_int_equal(bsync_blend_type_from_name("simple1d", &out), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_blend_type_from_name("Simple1", &out), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_blend_type_from_name("Simple1D ", &out), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_blend_type_from_name(NULL, &out), BSYNC_INVALID_ARGUMENT);
    for (int c = 1; c <= 9; c++) {
        const char* a = bsync_blend_warning_string((bsync_blend_warning_code)c);
        assert_non_null(a);
        assert_string_not_equal(a, "unknown warning");
        for (int k = 1; k < c; k++) assert_string_not_equal(a, bsync_blend_warning_string((bsync_blend_warning_code)k));
    }
    assert_string_equal(bsync_blend_warning_string((bsync_blend_warning_code)99), "unknown warning");
    assert_true(strstr(bsync_blend_warning_string(BSYNC_BLEND_WARN_CLOSE_SAMPLES), "1%") != NULL);
}

static void test_validation(void** state) {
    (void)state;
    fix16_t th[65];
    bsync_vec2 pos[65];
    memset(th, 0, sizeof th);
    memset(pos, 0, sizeof pos);
    bsync_blend_space_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(bsync_blend_space_validate(NULL), BSYNC_INVALID_ARGUMENT);
    d.type = BSYNC_BLEND_SIMPLE_1D;
    d.child_count = 2;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_INVALID_ARGUMENT); /* no thresholds */
    d.thresholds = th;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_OK);
    d.child_count = 0;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_LIMIT_EXCEEDED);
    d.child_count = 65;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_LIMIT_EXCEEDED);
    assert_int_equal(bsync_blend_space_memory_size(&d), 0);
    d.child_count = 64;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_OK);
    d.type = (bsync_blend_type)7;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_INVALID_ARGUMENT);
    d.type = (bsync_blend_type)-1;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_INVALID_ARGUMENT);
    const bsync_blend_type twod[] = {BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D,
                                     BSYNC_BLEND_FREEFORM_CARTESIAN_2D, BSYNC_BLEND_INVERSE_DISTANCE_2D,
                                     BSYNC_BLEND_DELAUNAY_2D};
    for (size_t i = 0; i < 5; i++) {
        d.type = twod[i];
        d.positions = NULL;
        assert_int_equal(bsync_blend_space_validate(&d), BSYNC_INVALID_ARGUMENT);
        d.positions = pos;
        assert_int_equal(bsync_blend_space_validate(&d), BSYNC_OK);
    }
    d.type = BSYNC_BLEND_INVERSE_DISTANCE_2D;
    for (uint32_t p = 0; p <= 8; p++) {
        d.power = p;
        assert_int_equal(bsync_blend_space_validate(&d), BSYNC_OK);
    }
    d.power = 9;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_INVALID_ARGUMENT);
    d.type = BSYNC_BLEND_FREEFORM_CARTESIAN_2D; /* power is ignored by the other types */
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_OK);
    d.type = BSYNC_BLEND_DIRECT; /* needs no arrays */
    d.positions = NULL;
    assert_int_equal(bsync_blend_space_validate(&d), BSYNC_OK);

    /* init: alignment, size, out; create: failing allocator */
    d.type = BSYNC_BLEND_FREEFORM_CARTESIAN_2D;
    d.positions = pos;
    d.child_count = 3;
    pos[1].x = ONE;
    pos[2].y = ONE;
    size_t need = bsync_blend_space_memory_size(&d);
    assert_true(need > 128 && need % 8 == 0);
    uint64_t* mem = calloc(need / 8 + 2, 8);
    bsync_blend_space* s = NULL;
    assert_int_equal(bsync_blend_space_init(mem, need - 1, &d, &s, NULL), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_blend_space_init((char*)mem + 4, need, &d, &s, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_blend_space_init(mem, need, &d, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    bsync_blend_diagnostics diag;
    memset(&diag, 0xAB, sizeof diag);
    assert_int_equal(bsync_blend_space_init(mem, need, &d, &s, &diag), BSYNC_OK);
    assert_int_equal(diag.count, 0); /* cleared first */
    assert_int_equal(diag.dropped, 0);
    /* relocatable: a byte copy works the same */
    uint64_t* copy = calloc(need / 8 + 2, 8);
    memcpy(copy, mem, need);
    fix16_t w1[3], w2[3], p[2] = {F(0.3), F(0.2)};
    assert_int_equal(bsync_blend_space_eval(s, p, 2, w1), BSYNC_OK);
    memset(mem, 0, need);
    assert_int_equal(bsync_blend_space_eval((bsync_blend_space*)copy, p, 2, w2), BSYNC_OK);
    assert_memory_equal(w1, w2, sizeof w1);
    bsync_blend_space_destroy((bsync_blend_space*)copy); /* init block: left alone */
    free(copy);
    free(mem);
    int calls = 0;
    bsync_allocator fa = bsync_test_failing_allocator(&calls);
    assert_int_equal(bsync_blend_space_create(&d, &fa, &s, NULL), BSYNC_OUT_OF_MEMORY);
    assert_int_equal(calls, 1);
    assert_int_equal(bsync_blend_space_create(NULL, NULL, &s, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_blend_space_create(&d, NULL, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    bsync_blend_space_destroy(NULL);

    /* create with a counting allocator frees what it allocated */
    bsync_test_counting_allocator ca;
    bsync_test_counting_allocator_init(&ca);
    assert_int_equal(bsync_blend_space_create(&d, &ca.allocator, &s, NULL), BSYNC_OK);
    assert_int_equal(ca.allocs, 1);
    assert_int_equal(ca.live_bytes, need);
    /* eval errors */
    fix16_t w[3];
    assert_int_equal(bsync_blend_space_eval(s, p, 1, w), BSYNC_MISMATCH);
    assert_int_equal(bsync_blend_space_eval(s, p, 3, w), BSYNC_MISMATCH);
    assert_int_equal(bsync_blend_space_eval(NULL, p, 2, w), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_blend_space_eval(s, NULL, 2, w), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_blend_space_eval(s, p, 2, NULL), BSYNC_INVALID_ARGUMENT);
    /* accessors */
    assert_int_equal(bsync_blend_space_type(s), BSYNC_BLEND_FREEFORM_CARTESIAN_2D);
    assert_int_equal(bsync_blend_space_child_count(s), 3);
    assert_int_equal(bsync_blend_space_param_count(s), 2);
    assert_int_equal(bsync_blend_space_position(s, 1).x, ONE);
    assert_int_equal(bsync_blend_space_position(s, 3).x, 0);
    assert_int_equal(bsync_blend_space_threshold(s, 0), 0);
    bsync_vec2 lo, hi;
    bsync_blend_space_bounds(s, &lo, &hi);
    assert_int_equal(lo.x, 0);
    assert_int_equal(lo.y, 0);
    assert_int_equal(hi.x, ONE);
    assert_int_equal(hi.y, ONE);
    assert_int_equal(bsync_blend_space_triangle_count(s), 0);
    uint32_t tri[3];
    assert_int_equal(bsync_blend_space_triangle(s, 0, tri), BSYNC_INVALID_ARGUMENT);
    bsync_blend_space_destroy(s);
    assert_int_equal(ca.frees, 1);
    assert_int_equal(ca.live_bytes, 0);
}

/* ------------------------------------------------------------------ Simple1D */

static void test_1d(void** state) {
    (void)state;
    const fix16_t th[4] = {F(1.5), 0, F(6), F(3)}; /* walk, idle, sprint, run */
    bsync_blend_diagnostics diag;
    bsync_blend_space* s = make(BSYNC_BLEND_SIMPLE_1D, 4, th, NULL, 0, &diag);
    assert_int_equal(diag.count, 0);
    assert_int_equal(bsync_blend_space_param_count(s), 1);
    assert_int_equal(bsync_blend_space_threshold(s, 2), F(6));
    bsync_vec2 lo, hi;
    bsync_blend_space_bounds(s, &lo, &hi);
    assert_int_equal(lo.x, 0);
    assert_int_equal(hi.x, F(6));
    struct { double p, w[4]; } cases[] = {
        {-1, {0, 1, 0, 0}}, {0, {0, 1, 0, 0}},       {0.75, {0.5, 0.5, 0, 0}}, {1.5, {1, 0, 0, 0}},
        {2, {2.0 / 3, 0, 0, 1.0 / 3}},            {3, {0, 0, 0, 1}},        {4.5, {0, 0, 0.5, 0.5}},
        {6, {0, 0, 1, 0}},  {7, {0, 0, 1, 0}},       {32767, {0, 0, 1, 0}},    {-32768, {0, 1, 0, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fix16_t p = cases[i].p >= 32767 ? BSYNC_FX_MAX : (cases[i].p <= -32768 ? (fix16_t)INT32_MIN : F(cases[i].p));
        fix16_t w[4];
        assert_int_equal(bsync_blend_space_eval(s, &p, 1, w), BSYNC_OK);
        expect_weights(w, cases[i].w, 4, 1.0 / 65536);
    }
    /* exact at thresholds, exactly linear between (independent: f = (p - lo) / (hi - lo)) */
    for (fix16_t p = 0; p <= F(1.5); p += 997) {
        fix16_t w[4];
        assert_int_equal(bsync_blend_space_eval(s, &p, 1, w), BSYNC_OK);
        double f = D(p) / 1.5;
        assert_true(fabs(D(w[0]) - f) <= 0.5 / 65536 + 1e-12);
        assert_int_equal(w[0] + w[1], ONE);
    }
    bsync_blend_space_destroy(s);

    /* duplicates: hard switch, equal split at the shared value */
    const fix16_t dup[4] = {0, ONE, ONE, 2 * ONE};
    s = make(BSYNC_BLEND_SIMPLE_1D, 4, dup, NULL, 0, &diag);
    assert_int_equal(diag.count, 1);
    assert_int_equal(diag.warnings[0].code, BSYNC_BLEND_WARN_DUPLICATE_THRESHOLD);
    assert_int_equal(diag.warnings[0].child_a, 1);
    assert_int_equal(diag.warnings[0].child_b, 2);
    fix16_t w[4], p = ONE;
    bsync_blend_space_eval(s, &p, 1, w);
    expect_weights(w, (double[]){0, 0.5, 0.5, 0}, 4, 0);
    p = ONE - 1;
    bsync_blend_space_eval(s, &p, 1, w);
    assert_int_equal(w[1], ONE - 1);
    assert_int_equal(w[0], 1);
    assert_int_equal(w[2], 0);
    p = ONE + 1;
    bsync_blend_space_eval(s, &p, 1, w);
    assert_int_equal(w[2], ONE - 1);
    assert_int_equal(w[3], 1);
    assert_int_equal(w[1], 0);
    bsync_blend_space_destroy(s);

    /* all equal: three share, the lowest index gets the rounding rest (exact-sum rule) */
    const fix16_t eq[3] = {F(2), F(2), F(2)};
    s = make(BSYNC_BLEND_SIMPLE_1D, 3, eq, NULL, 0, &diag);
    assert_int_equal(diag.count, 2);
    p = -5 * ONE;
    bsync_blend_space_eval(s, &p, 1, w);
    assert_int_equal(w[0], 21846);
    assert_int_equal(w[1], 21845);
    assert_int_equal(w[2], 21845);
    bsync_blend_space_destroy(s);

    /* single */
    const fix16_t one[1] = {F(0.7)};
    s = make(BSYNC_BLEND_SIMPLE_1D, 1, one, NULL, 0, NULL);
    const fix16_t ps[] = {BSYNC_FX_MIN, -ONE, 0, F(0.7), BSYNC_FX_MAX};
    for (int i = 0; i < 5; i++) {
        bsync_blend_space_eval(s, &ps[i], 1, w);
        assert_int_equal(w[0], ONE);
    }
    bsync_blend_space_destroy(s);
}

/* ------------------------------------------------------------------ SimpleDirectional2D */

static const bsync_vec2 DIR4C[5] = {{0, 0}, {0, ONE}, {ONE, 0}, {0, -ONE}, {-ONE, 0}};
static const bsync_vec2 DIR4[4] = {{0, ONE}, {ONE, 0}, {0, -ONE}, {-ONE, 0}};

static void test_simple_directional(void** state) {
    (void)state;
    bsync_blend_diagnostics diag;
    bsync_blend_space* s = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, 5, NULL, DIR4C, 0, &diag);
    assert_int_equal(diag.count, 0);
    fix16_t w[6];
    /* worked by hand: A = right (cross > 0), B = fwd; D = 1, wA = cross(q, fwd), wB = cross(right, q) */
    struct { double x, y, w[5]; } c[] = {
        {0, 0, {1, 0, 0, 0, 0}},         {0, 1, {0, 1, 0, 0, 0}},          {0.5, 0.5, {0, 0.5, 0.5, 0, 0}},
        {0.3, 0.1, {0.6, 0.1, 0.3, 0, 0}}, {0.25, 0, {0.75, 0, 0.25, 0, 0}}, {-0.6, -0.2, {0.2, 0, 0, 0.2, 0.6}},
        {0, 2, {0, 1, 0, 0, 0}},         {1.5, 1.5, {0, 0.5, 0.5, 0, 0}},  {3, 1, {0, 0.25, 0.75, 0, 0}},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        eval2(s, c[i].x, c[i].y, w);
        expect_weights(w, c[i].w, 5, 1.5 / 65536);
    }
    bsync_blend_space_destroy(s);

    /* no centre: c spread over all four */
    s = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, 4, NULL, DIR4, 0, &diag);
    eval2(s, 0, 0, w);
    expect_weights(w, (double[]){0.25, 0.25, 0.25, 0.25}, 4, 0);
    eval2(s, 0.25, 0, w);
    expect_weights(w, (double[]){0.1875, 0.4375, 0.1875, 0.1875}, 4, 1.0 / 65536);
    eval2(s, 0.3, 0.1, w); /* A = right, B = fwd, c = 0.6 / 4 = 0.15 */
    expect_weights(w, (double[]){0.25, 0.45, 0.15, 0.15}, 4, 1.5 / 65536);
    bsync_blend_space_destroy(s);

    /* 180 degree gap: c = 1 below the line (even spread), a GAP_180 warning */
    const bsync_vec2 gap[3] = {{0, ONE}, {ONE, 0}, {-ONE, 0}};
    s = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, 3, NULL, gap, 0, &diag);
    int found = 0;
    for (uint32_t i = 0; i < diag.count; i++)
        if (diag.warnings[i].code == BSYNC_BLEND_WARN_GAP_180) {
            found++;
            assert_true((diag.warnings[i].child_a == 2 && diag.warnings[i].child_b == 1));
        }
    assert_int_equal(found, 1);
    eval2(s, 0.3, -1, w);
    expect_weights(w, (double[]){1.0 / 3, 1.0 / 3, 1.0 / 3}, 3, 1.0 / 65536);
    eval2(s, 0, -1, w);
    expect_weights(w, (double[]){1.0 / 3, 1.0 / 3, 1.0 / 3}, 3, 1.0 / 65536);
    eval2(s, -0.5, 0.5, w);
    expect_weights(w, (double[]){0.5, 0, 0.5}, 3, 1.0 / 65536);
    bsync_blend_space_destroy(s);

    /* two centres share; a duplicate direction shares; a same-direction sample is never chosen */
    const bsync_vec2 lay[7] = {{0, 0}, {ONE, 0}, {ONE, 0}, {0, ONE}, {0, 0}, {2 * ONE, 0}, {0, -ONE}};
    s = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, 7, NULL, lay, 0, &diag);
    int multi = 0, same = 0, dupw = 0;
    for (uint32_t i = 0; i < diag.count; i++) {
        bsync_blend_warning x = diag.warnings[i];
        if (x.code == BSYNC_BLEND_WARN_MULTIPLE_CENTERS && x.child_a == 0 && x.child_b == 4) multi++;
        if (x.code == BSYNC_BLEND_WARN_SAME_DIRECTION && x.child_a == 1 && x.child_b == 5) same++;
        if (x.code == BSYNC_BLEND_WARN_DUPLICATE_POSITION && x.child_a == 0 && x.child_b == 4) dupw++;
    }
    assert_int_equal(multi, 1);
    assert_int_equal(same, 1);
    assert_int_equal(dupw, 1);
    fix16_t w7[7];
    eval2(s, 0, 0, w7);
    expect_weights(w7, (double[]){0.5, 0, 0, 0, 0.5, 0, 0}, 7, 0);
    /* A = back (cross > 0), B = right: nA = 0, nB = 0.5, c = 0.5 */
    eval2(s, 0.5, 0, w7);
    expect_weights(w7, (double[]){0.25, 0.25, 0.25, 0, 0.25, 0, 0}, 7, 1.0 / 65536);
    eval2(s, 2, 0, w7); /* (2, 0) is sample 5, but it is shadowed by sample 1 */
    expect_weights(w7, (double[]){0, 0.5, 0.5, 0, 0, 0, 0}, 7, 0);
    bsync_blend_space_destroy(s);
    /* all directions on one side of q (no A): c = 1, even on a sample's own ray */
    const bsync_vec2 side[3] = {{0, 0}, {ONE, 0}, {0, ONE}};
    s = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, 3, NULL, side, 0, NULL);
    eval2(s, 0.5, 0, w);
    expect_weights(w, (double[]){1, 0, 0}, 3, 0);
    eval2(s, 0.5, 0.5, w);
    expect_weights(w, (double[]){0, 0.5, 0.5}, 3, 1.0 / 65536);
    bsync_blend_space_destroy(s);

    /* small gap warning */
    const bsync_vec2 sg[3] = {{ONE, 0}, {ONE, F(0.01)}, {0, ONE}};
    s = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, 3, NULL, sg, 0, &diag);
    found = 0;
    for (uint32_t i = 0; i < diag.count; i++)
        if (diag.warnings[i].code == BSYNC_BLEND_WARN_SMALL_GAP && diag.warnings[i].child_a == 0 &&
            diag.warnings[i].child_b == 1)
            found++;
    assert_int_equal(found, 1);
    bsync_blend_space_destroy(s);

    /* single sample */
    const bsync_vec2 one[1] = {{F(0.5), F(0.5)}};
    s = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, 1, NULL, one, 0, NULL);
    eval2(s, 9, -3, w);
    assert_int_equal(w[0], ONE);
    eval2(s, 0, 0, w);
    assert_int_equal(w[0], ONE);
    bsync_blend_space_destroy(s);
}

/* ------------------------------------------------------------------ gradient bands */

static void test_cartesian(void** state) {
    (void)state;
    bsync_blend_space* s = make(BSYNC_BLEND_FREEFORM_CARTESIAN_2D, 5, NULL, DIR4C, 0, NULL);
    fix16_t w[9];
    /* by hand at (0.5, 0.5): idle's bands to fwd/right are 1 - 0.5 = 0.5, fwd's band to idle 0.5 and
     * to right 1 - (0.5, -0.5).(1, -1)/2 = 0.5, back/left go negative -> 1/3 each */
    eval2(s, 0.5, 0.5, w);
    expect_weights(w, (double[]){1.0 / 3, 1.0 / 3, 1.0 / 3, 0, 0}, 5, 1.0 / 65536);
    eval2(s, 0.25, 0, w);
    expect_weights(w, (double[]){0.75, 0, 0.25, 0, 0}, 5, 1.0 / 65536);
    eval2(s, 1.5, 1.5, w);
    expect_weights(w, (double[]){0, 0.5, 0.5, 0, 0}, 5, 1.0 / 65536);
    for (int i = 0; i < 5; i++) { /* exact at the samples */
        fix16_t p[2] = {DIR4C[i].x, DIR4C[i].y};
        bsync_blend_space_eval(s, p, 2, w);
        for (int k = 0; k < 5; k++) assert_int_equal(w[k], k == i ? ONE : 0);
    }
    bsync_blend_space_destroy(s);

    /* 3x3 grid at (0.5, -0.5): the four corners of that cell get 1/4 each */
    bsync_vec2 grid[9];
    for (int i = 0; i < 9; i++) {
        grid[i].x = (i % 3 - 1) * ONE;
        grid[i].y = (i / 3 - 1) * ONE;
    }
    s = make(BSYNC_BLEND_FREEFORM_CARTESIAN_2D, 9, NULL, grid, 0, NULL);
    eval2(s, 0.5, -0.5, w);
    expect_weights(w, (double[]){0, 0.25, 0.25, 0, 0.25, 0.25, 0, 0, 0}, 9, 1.0 / 65536);
    bsync_blend_space_destroy(s);

    /* collinear layout: 1D tents along the line */
    const bsync_vec2 line[4] = {{0, 0}, {ONE, 0}, {2 * ONE, 0}, {4 * ONE, 0}};
    s = make(BSYNC_BLEND_FREEFORM_CARTESIAN_2D, 4, NULL, line, 0, NULL);
    eval2(s, 3, -2, w);
    expect_weights(w, (double[]){0, 0, 0.5, 0.5}, 4, 1.0 / 65536);
    eval2(s, -1, 0, w);
    expect_weights(w, (double[]){1, 0, 0, 0}, 4, 0);
    bsync_blend_space_destroy(s);

    /* duplicates share, with the duplicate warning */
    const bsync_vec2 dup[3] = {{0, 0}, {ONE, 0}, {ONE, 0}};
    bsync_blend_diagnostics diag;
    s = make(BSYNC_BLEND_FREEFORM_CARTESIAN_2D, 3, NULL, dup, 0, &diag);
    assert_int_equal(diag.count, 1);
    assert_int_equal(diag.warnings[0].code, BSYNC_BLEND_WARN_DUPLICATE_POSITION);
    eval2(s, 1, 0, w);
    expect_weights(w, (double[]){0, 0.5, 0.5}, 3, 0);
    eval2(s, 0.5, 0, w);
    expect_weights(w, (double[]){0.5, 0.25, 0.25}, 3, 0);
    bsync_blend_space_destroy(s);
}

static void test_polar(void** state) {
    (void)state;
    /* centre + one sample: h_centre = 1 - 4 (|q|/|p|) / (th^2 + 4), h_p = 4 (|q|/|p|) / (th^2 + 4) */
    const bsync_vec2 two[2] = {{0, 0}, {2 * ONE, 0}};
    bsync_blend_diagnostics diag;
    bsync_blend_space* s = make(BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D, 2, NULL, two, 0, &diag);
    assert_int_equal(diag.count, 0);
    fix16_t w[5];
    eval2(s, 0.5, 0, w);
    expect_weights(w, (double[]){0.75, 0.25}, 2, 1.0 / 65536);
    eval2(s, 0, 1, w); /* th = pi/2, r = 0.5: hp = 2 / (pi^2/4 + 4), hc = 1 - hp */
    double hp = 2.0 / (M_PI * M_PI / 4 + 4);
    expect_weights(w, (double[]){1 - hp, hp}, 2, 2e-5);
    bsync_blend_space_destroy(s);

    s = make(BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D, 5, NULL, DIR4C, 0, NULL);
    eval2(s, 0.25, 0, w);
    expect_weights(w, (double[]){0.75, 0, 0.25, 0, 0}, 5, 2e-5);
    for (int i = 0; i < 5; i++) { /* exact at the samples */
        fix16_t p[2] = {DIR4C[i].x, DIR4C[i].y};
        bsync_blend_space_eval(s, p, 2, w);
        for (int k = 0; k < 5; k++) assert_int_equal(w[k], k == i ? ONE : 0);
    }
    bsync_blend_space_destroy(s);

    /* no centre: a warning, and at (0, 0) every band is 0 -> the nearest samples share */
    s = make(BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D, 4, NULL, DIR4, 0, &diag);
    assert_int_equal(diag.count, 1);
    assert_int_equal(diag.warnings[0].code, BSYNC_BLEND_WARN_NO_CENTER);
    eval2(s, 0, 0, w);
    expect_weights(w, (double[]){0.25, 0.25, 0.25, 0.25}, 4, 0);
    eval2(s, 0.5, 0.5, w);
    expect_weights(w, (double[]){0.5, 0.5, 0, 0}, 4, 1.0 / 65536);
    bsync_blend_space_destroy(s);

    /* two centres: warning, they share */
    const bsync_vec2 cc[3] = {{0, 0}, {0, 0}, {ONE, 0}};
    s = make(BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D, 3, NULL, cc, 0, &diag);
    int multi = 0;
    for (uint32_t i = 0; i < diag.count; i++) multi += diag.warnings[i].code == BSYNC_BLEND_WARN_MULTIPLE_CENTERS;
    assert_int_equal(multi, 1);
    eval2(s, 0, 0, w);
    expect_weights(w, (double[]){0.5, 0.5, 0}, 3, 0);
    eval2(s, 0.5, 0, w);
    expect_weights(w, (double[]){0.25, 0.25, 0.5}, 3, 1.0 / 65536);
    bsync_blend_space_destroy(s);
}

/* ------------------------------------------------------------------ InverseDistance2D, Direct */

static void test_idw(void** state) {
    (void)state;
    const bsync_vec2 two[2] = {{0, 0}, {2 * ONE, 0}};
    fix16_t w[5], w2[5];
    for (uint32_t p = 0; p <= 8; p++) {
        bsync_blend_space* s = make(BSYNC_BLEND_INVERSE_DISTANCE_2D, 2, NULL, two, p, NULL);
        uint32_t pw = p == 0 ? 2 : p;
        eval2(s, 0.5, 0, w); /* d = 0.5 and 1.5: w0 = 3^p / (3^p + 1) */
        double a = pow(3.0, pw);
        expect_weights(w, (double[]){a / (a + 1), 1 / (a + 1)}, 2, 1.0 / 65536);
        eval2(s, 2, 0, w);
        expect_weights(w, (double[]){0, 1}, 2, 0);
        eval2(s, 1, 5, w);
        expect_weights(w, (double[]){0.5, 0.5}, 2, 0);
        bsync_blend_space_destroy(s);
    }
    /* default power is 2 */
    bsync_blend_space* s0 = make(BSYNC_BLEND_INVERSE_DISTANCE_2D, 5, NULL, DIR4C, 0, NULL);
    bsync_blend_space* s2 = make(BSYNC_BLEND_INVERSE_DISTANCE_2D, 5, NULL, DIR4C, 2, NULL);
    eval2(s0, 0.3, 0.1, w);
    eval2(s2, 0.3, 0.1, w2);
    assert_memory_equal(w, w2, sizeof(fix16_t) * 5);
    /* (0.5, 0.5): d^2 = 0.5, 0.5, 0.5, 2.5, 2.5 -> 2, 2, 2, 0.4, 0.4 over 6.8 */
    eval2(s0, 0.5, 0.5, w);
    expect_weights(w, (double[]){2 / 6.8, 2 / 6.8, 2 / 6.8, 0.4 / 6.8, 0.4 / 6.8}, 5, 1.5 / 65536);
    /* one raw step from a sample: that sample dominates but is not yet 1 */
    fix16_t p[2] = {1, 0};
    bsync_blend_space_eval(s0, p, 2, w);
    assert_true(w[0] >= ONE - 1);
    bsync_blend_space_destroy(s0);
    bsync_blend_space_destroy(s2);
    /* coincident samples form one sample and share */
    const bsync_vec2 dup[3] = {{0, 0}, {ONE, 0}, {ONE, 0}};
    bsync_blend_space* s = make(BSYNC_BLEND_INVERSE_DISTANCE_2D, 3, NULL, dup, 2, NULL);
    eval2(s, 0.5, 0, w);
    expect_weights(w, (double[]){0.5, 0.25, 0.25}, 3, 0);
    eval2(s, 1, 0, w);
    expect_weights(w, (double[]){0, 0.5, 0.5}, 3, 0);
    bsync_blend_space_destroy(s);
}

static void test_direct(void** state) {
    (void)state;
    bsync_blend_space_desc d;
    memset(&d, 0, sizeof d);
    d.type = BSYNC_BLEND_DIRECT;
    d.child_count = 3;
    bsync_blend_space* s = NULL;
    assert_int_equal(bsync_blend_space_create(&d, NULL, &s, NULL), BSYNC_OK);
    assert_int_equal(bsync_blend_space_param_count(s), 3);
    fix16_t p[3] = {F(0.5), -ONE, F(2.25)}, w[3];
    assert_int_equal(bsync_blend_space_eval(s, p, 2, w), BSYNC_MISMATCH);
    assert_int_equal(bsync_blend_space_eval(s, p, 3, w), BSYNC_OK);
    assert_int_equal(w[0], F(0.5));
    assert_int_equal(w[1], 0);
    assert_int_equal(w[2], F(2.25)); /* not normalised: sum 2.75 */
    bsync_blend_space_destroy(s);
    d.normalize = 1;
    assert_int_equal(bsync_blend_space_create(&d, NULL, &s, NULL), BSYNC_OK);
    bsync_blend_space_eval(s, p, 3, w);
    expect_weights(w, (double[]){0.5 / 2.75, 0, 2.25 / 2.75}, 3, 1.0 / 65536);
    fix16_t z[3] = {0, -ONE, 0};
    bsync_blend_space_eval(s, z, 3, w);
    assert_int_equal(w[0] | w[1] | w[2], 0); /* nothing to normalise */
    fix16_t big[3] = {BSYNC_FX_MAX, BSYNC_FX_MAX, BSYNC_FX_MAX};
    bsync_blend_space_eval(s, big, 3, w);
    expect_weights(w, (double[]){1.0 / 3, 1.0 / 3, 1.0 / 3}, 3, 1.0 / 65536);
    bsync_blend_space_destroy(s);
}

/* ------------------------------------------------------------------ far points, warnings */

static void test_far_pull_back(void** state) {
    (void)state;
    /* dir4: centre (0, 0), size 2, pulled back to 4096 * 2 = 8192 */
    const bsync_blend_type types[] = {BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D,
                                      BSYNC_BLEND_FREEFORM_CARTESIAN_2D, BSYNC_BLEND_INVERSE_DISTANCE_2D};
    for (int t = 0; t < 4; t++) {
        bsync_blend_space* s = make(types[t], 5, NULL, DIR4C, 0, NULL);
        fix16_t w[5], wf[5];
        fix16_t far[2] = {BSYNC_FX_MAX, 0}, at[2] = {8192 * ONE, 0};
        bsync_blend_space_eval(s, far, 2, wf);
        bsync_blend_space_eval(s, at, 2, w);
        assert_memory_equal(w, wf, sizeof w);
        fix16_t far2[2] = {(fix16_t)INT32_MIN, (fix16_t)INT32_MIN}; /* every extreme is defined */
        assert_int_equal(bsync_blend_space_eval(s, far2, 2, wf), BSYNC_OK);
        int64_t sum = 0;
        for (int i = 0; i < 5; i++) sum += wf[i];
        assert_int_equal(sum, ONE);
        if (types[t] == BSYNC_BLEND_INVERSE_DISTANCE_2D) {
            /* at distance 8192 the weights are uniform within 2/8192 */
            for (int i = 0; i < 5; i++) assert_true(fabs(D(w[i]) - 0.2) < 1e-4);
        }
        bsync_blend_space_destroy(s);
    }
    /* size-0 layout: every point maps to the one position; the coincident samples share */
    const bsync_vec2 same[3] = {{ONE, ONE}, {ONE, ONE}, {ONE, ONE}};
    for (int t = 0; t < 4; t++) {
        bsync_blend_space* s = make(types[t], 3, NULL, same, 0, NULL);
        fix16_t w[3];
        fix16_t q[2] = {BSYNC_FX_MIN, BSYNC_FX_MAX};
        bsync_blend_space_eval(s, q, 2, w);
        assert_int_equal(w[0], 21846);
        assert_int_equal(w[1], 21845);
        assert_int_equal(w[2], 21845);
        bsync_blend_space_destroy(s);
    }
    /* layouts spanning the whole fix16 range stay defined */
    const bsync_vec2 huge[4] = {{BSYNC_FX_MIN, BSYNC_FX_MIN}, {BSYNC_FX_MAX, BSYNC_FX_MIN}, {BSYNC_FX_MAX, BSYNC_FX_MAX},
                                {BSYNC_FX_MIN, BSYNC_FX_MAX}};
    for (int t = 0; t < 4; t++) {
        bsync_blend_space* s = make(types[t], 4, NULL, huge, 0, NULL);
        fix16_t w[4];
        for (int k = 0; k < 4; k++) {
            fix16_t q[2] = {huge[k].x, huge[k].y};
            bsync_blend_space_eval(s, q, 2, w);
            if (types[t] != BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D)
                for (int i = 0; i < 4; i++) assert_int_equal(w[i], i == k ? ONE : 0);
        }
        fix16_t q[2] = {0, 0};
        bsync_blend_space_eval(s, q, 2, w);
        if (types[t] != BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D)
            for (int i = 0; i < 4; i++) assert_true(abs(w[i] - ONE / 4) <= 2);
        bsync_blend_space_destroy(s);
    }
}

static void test_warnings(void** state) {
    (void)state;
    /* close samples: 0.5% of a size of 2 */
    const bsync_vec2 close[3] = {{0, 0}, {2 * ONE, 0}, {F(0.01), 0}};
    bsync_blend_diagnostics diag;
    bsync_blend_space* s = make(BSYNC_BLEND_FREEFORM_CARTESIAN_2D, 3, NULL, close, 0, &diag);
    assert_int_equal(diag.count, 1);
    assert_int_equal(diag.warnings[0].code, BSYNC_BLEND_WARN_CLOSE_SAMPLES);
    assert_int_equal(diag.warnings[0].child_a, 0);
    assert_int_equal(diag.warnings[0].child_b, 2);
    bsync_blend_space_destroy(s);
    const bsync_vec2 notclose[3] = {{0, 0}, {2 * ONE, 0}, {F(0.0201), 0}};
    s = make(BSYNC_BLEND_INVERSE_DISTANCE_2D, 3, NULL, notclose, 0, &diag);
    assert_int_equal(diag.count, 0);
    bsync_blend_space_destroy(s);
    /* more than 16 warnings: the rest are counted as dropped */
    bsync_vec2 many[20];
    for (int i = 0; i < 20; i++) many[i] = (bsync_vec2){ONE, ONE};
    s = make(BSYNC_BLEND_INVERSE_DISTANCE_2D, 20, NULL, many, 0, &diag);
    assert_int_equal(diag.count, BSYNC_BLEND_MAX_WARNINGS);
    assert_int_equal(diag.dropped, 20 * 19 / 2 - BSYNC_BLEND_MAX_WARNINGS);
    bsync_blend_space_destroy(s);
}

/* ------------------------------------------------------------------ double references (from the spec) */

static double ang(double ax, double ay, double bx, double by) {
    if ((ax == 0 && ay == 0) || (bx == 0 && by == 0)) return 0;
    return atan2(fabs(ax * by - ay * bx), ax * bx + ay * by);
}

static void ref_cartesian(const double (*p)[2], int n, const double* q, double* w) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double h = 1;
        for (int j = 0; j < n && h > 0; j++) {
            if (j == i) continue;
            double vx = p[j][0] - p[i][0], vy = p[j][1] - p[i][1];
            double t = ((q[0] - p[i][0]) * vx + (q[1] - p[i][1]) * vy) / (vx * vx + vy * vy);
            if (1 - t < h) h = 1 - t;
        }
        w[i] = h > 0 ? h : 0;
        sum += w[i];
    }
    for (int i = 0; i < n; i++) w[i] /= sum;
}

static void ref_polar(const double (*p)[2], int n, const double* q, double* w) {
    double sum = 0, qm = hypot(q[0], q[1]);
    for (int i = 0; i < n; i++) {
        double h = 1, mi = hypot(p[i][0], p[i][1]);
        for (int j = 0; j < n && h > 0; j++) {
            if (j == i) continue;
            double mj = hypot(p[j][0], p[j][1]), ti, to, alpha = 2;
            if (mi == 0) {
                ti = ang(q[0], q[1], p[j][0], p[j][1]);
                to = 0;
                alpha = 1;
            } else if (mj == 0) {
                ti = to = ang(q[0], q[1], p[i][0], p[i][1]);
                alpha = 1;
            } else {
                ti = ang(p[i][0], p[i][1], p[j][0], p[j][1]);
                if (ti > 0) {
                    if (qm == 0) {
                        to = ti;
                    } else {
                        to = ang(p[i][0], p[i][1], q[0], q[1]);
                        double c1 = p[i][0] * q[1] - p[i][1] * q[0], c2 = p[i][0] * p[j][1] - p[i][1] * p[j][0];
                        if (ti < 0.99 * M_PI && c1 * c2 < 0) to = -to;
                    }
                } else {
                    to = 0;
                }
            }
            double m = (mi + mj) / 2;
            double ax = ti * alpha, ay = (mj - mi) / m, bx = to * alpha, by = (qm - mi) / m;
            double v = 1 - (ax * bx + ay * by) / (ax * ax + ay * ay);
            if (v < h) h = v;
        }
        w[i] = h > 0 ? h : 0;
        sum += w[i];
    }
    for (int i = 0; i < n; i++) w[i] /= sum;
}

static void ref_idw(const double (*p)[2], int n, const double* q, int power, double* w) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        double d = hypot(q[0] - p[i][0], q[1] - p[i][1]);
        w[i] = pow(d, -power);
        sum += w[i];
    }
    for (int i = 0; i < n; i++) w[i] /= sum;
}

static void ref_sd(const double (*p)[2], int n, const double* q, double* w) { /* layout has a centre at index 0 */
    int ia = -1, ib = -1;
    double da = 0, db = 0;
    for (int i = 0; i < n; i++) w[i] = 0;
    for (int i = 1; i < n; i++) {
        double m = hypot(p[i][0], p[i][1]);
        double d = (p[i][0] * q[0] + p[i][1] * q[1]) / m, s = (p[i][0] * q[1] - p[i][1] * q[0]) / m;
        if (s > 0) {
            if (ia < 0 || d > da) { ia = i; da = d; }
        } else if (ib < 0 || d > db) { ib = i; db = d; }
    }
    double dd = p[ia][0] * p[ib][1] - p[ia][1] * p[ib][0];
    double wa = (q[0] * p[ib][1] - q[1] * p[ib][0]) / dd, wb = (p[ia][0] * q[1] - p[ia][1] * q[0]) / dd;
    double c = 1 - wa - wb;
    if (c < 0) {
        wa /= wa + wb;
        wb = 1 - wa;
        c = 0;
    }
    w[ia] = wa;
    w[ib] = wb;
    w[0] = c;
}

/* ------------------------------------------------------------------ property tests */

typedef struct prop_counts {
    long layouts, evals;
} prop_counts;

static double rnd01(uint64_t* st) { return (double)(bsync_test_rand(st) >> 11) / 9007199254740992.0; }

/* Random layout of n distinct points with every pair at least `sep` * scale apart, in [-scale, scale]^2. */
static int random_layout(uint64_t* st, int n, double scale, double sep, bsync_vec2* pos, double (*pd)[2]) {
    for (int i = 0; i < n; i++) {
        int tries = 0;
        for (;;) {
            double x = (rnd01(st) * 2 - 1) * scale, y = (rnd01(st) * 2 - 1) * scale;
            pos[i].x = F(x);
            pos[i].y = F(y);
            int ok = 1;
            for (int k = 0; k < i && ok; k++)
                ok = hypot(D(pos[i].x) - D(pos[k].x), D(pos[i].y) - D(pos[k].y)) >= sep * scale;
            if (ok) break;
            if (++tries > 1000) return 0;
        }
        pd[i][0] = D(pos[i].x);
        pd[i][1] = D(pos[i].y);
    }
    return 1;
}

static void test_properties_freeform_idw(void** state) {
    (void)state;
    uint64_t st = 12345;
    prop_counts pc = {0, 0};
    double worst[3] = {0, 0, 0};
    const bsync_blend_type types[3] = {BSYNC_BLEND_FREEFORM_CARTESIAN_2D, BSYNC_BLEND_INVERSE_DISTANCE_2D,
                                       BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D};
    for (int L = 0; L < 4500; L++) {
        int n = 2 + (int)(bsync_test_rand(&st) % 10);
        double scale = (L % 3 == 0) ? 0.5 : (L % 3 == 1 ? 3.0 : 100.0);
        bsync_vec2 pos[16], perm[16];
        double pd[16][2];
        if (!random_layout(&st, n, scale, 0.05, pos, pd)) continue;
        int t = L % 3;
        uint32_t power = 1 + (uint32_t)(bsync_test_rand(&st) % 8);
        if (t == 2) { /* polar: a centre at index 0, samples at least 0.2 scale from it */
            pos[0].x = pos[0].y = 0;
            pd[0][0] = pd[0][1] = 0;
            int ok = 1;
            for (int i = 1; i < n; i++) ok &= hypot(pd[i][0], pd[i][1]) > 0.2 * scale;
            /* accuracy in polar space is about 1e-5 / (polar distance of the closest pair): keep pairs
             * at least 0.1 apart there (angle * 2, magnitude difference / mean magnitude) */
            for (int i = 1; i < n && ok; i++)
                for (int j = 1; j < i && ok; j++) {
                    double mi = hypot(pd[i][0], pd[i][1]), mj = hypot(pd[j][0], pd[j][1]);
                    double a = 2 * ang(pd[i][0], pd[i][1], pd[j][0], pd[j][1]), b = 2 * (mj - mi) / (mi + mj);
                    ok = hypot(a, b) >= 0.1;
                }
            if (!ok) continue;
        }
        bsync_blend_space* s = make(types[t], (uint32_t)n, NULL, pos, power, NULL);
        /* permuted copy (reversed) */
        for (int i = 0; i < n; i++) perm[i] = pos[n - 1 - i];
        bsync_blend_space* sp = make(types[t], (uint32_t)n, NULL, perm, power, NULL);
        /* translated copy (exact integer shift) for the two translation-invariant types */
        bsync_vec2 tr[16];
        fix16_t shx = (fix16_t)(bsync_test_rand(&st) % 65536) * 7, shy = -(fix16_t)(bsync_test_rand(&st) % 65536) * 5;
        for (int i = 0; i < n; i++) tr[i] = (bsync_vec2){pos[i].x + shx, pos[i].y + shy};
        bsync_blend_space* stt = make(types[t], (uint32_t)n, NULL, tr, power, NULL);
        pc.layouts++;
        fix16_t w[16], w2[16], w3[16];
        /* exact at every sample */
        for (int i = 0; i < n; i++) {
            fix16_t q[2] = {pos[i].x, pos[i].y};
            bsync_blend_space_eval(s, q, 2, w);
            for (int k = 0; k < n; k++)
                if (w[k] != (k == i ? ONE : 0)) fail_msg("type %d layout %d: not exact at sample %d", t, L, i);
            pc.evals++;
        }
        for (int k = 0; k < 8; k++) {
            double qd[2] = {(rnd01(&st) * 3 - 1.5) * scale, (rnd01(&st) * 3 - 1.5) * scale};
            if (t == 2 && hypot(qd[0], qd[1]) < 1e-3 * scale) continue;
            fix16_t q[2] = {F(qd[0]), F(qd[1])};
            qd[0] = D(q[0]);
            qd[1] = D(q[1]);
            bsync_blend_space_eval(s, q, 2, w);
            bsync_test_assert_partition(w, n);
            pc.evals++;
            /* against the double reference */
            double r[16];
            if (t == 0) ref_cartesian((const double(*)[2])pd, n, qd, r);
            else if (t == 1) ref_idw((const double(*)[2])pd, n, qd, (int)power, r);
            else ref_polar((const double(*)[2])pd, n, qd, r);
            double tol = t == 2 ? 1e-3 : 2e-4;
            for (int i = 0; i < n; i++) {
                double e = fabs(D(w[i]) - r[i]);
                if (e > worst[t]) worst[t] = e;
                if (e > tol) fail_msg("type %d layout %d: weight %d %.6f vs reference %.6f", t, L, i, D(w[i]), r[i]);
            }
            /* permutation: the same weights, reversed, within the rounding fix-up */
            bsync_blend_space_eval(sp, q, 2, w2);
            for (int i = 0; i < n; i++) assert_true(abs(w2[n - 1 - i] - w[i]) <= n);
            /* translation: FreeformCartesian and IDW depend only on differences (bit-exact) */
            if (t != 2) {
                fix16_t qt[2] = {q[0] + shx, q[1] + shy};
                bsync_blend_space_eval(stt, qt, 2, w3);
                assert_memory_equal(w, w3, sizeof(fix16_t) * (size_t)n);
            }
            /* continuity (Cartesian, IDW): a step of 1e-4 scale moves weights by at most a
             * Lipschitz bound (2 (n + 1) p / separation) times the step, plus rounding */
            if (t != 2) {
                double step = 1e-4 * scale;
                fix16_t q2[2] = {F(qd[0] + step), F(qd[1] - step)};
                bsync_blend_space_eval(s, q2, 2, w2);
                double bound = 2.0 * (n + 1) * (t == 1 ? power : 1) * (1.5 * step) / (0.05 * scale) + 4.0 / 65536;
                for (int i = 0; i < n; i++) assert_true(fabs(D(w2[i]) - D(w[i])) <= bound);
            }
        }
        bsync_blend_space_destroy(s);
        bsync_blend_space_destroy(sp);
        bsync_blend_space_destroy(stt);
    }
    printf("properties: %ld layouts, %ld evaluations; worst error vs double reference: Cartesian %.3g, "
           "IDW %.3g, polar %.3g\n", pc.layouts, pc.evals, worst[0], worst[1], worst[2]);
    assert_true(pc.layouts > 3000);
}

static void test_properties_directional_1d(void** state) {
    (void)state;
    uint64_t st = 777;
    long layouts = 0, evals = 0;
    double worst_sd = 0, worst_1d = 0;
    for (int L = 0; L < 1500; L++) {
        /* SimpleDirectional: centre + k directions, gaps < 180 by construction (jittered even spread) */
        int k = 3 + (int)(bsync_test_rand(&st) % 7);
        int n = k + 1;
        bsync_vec2 pos[16];
        double pd[16][2];
        pos[0].x = pos[0].y = 0;
        pd[0][0] = pd[0][1] = 0;
        double base = rnd01(&st) * 2 * M_PI;
        for (int i = 1; i < n; i++) {
            double a = base + 2 * M_PI * (i - 1 + 0.4 * (rnd01(&st) - 0.5)) / k, r = 0.5 + rnd01(&st) * 3;
            pos[i].x = F(r * cos(a));
            pos[i].y = F(r * sin(a));
            pd[i][0] = D(pos[i].x);
            pd[i][1] = D(pos[i].y);
        }
        bsync_blend_diagnostics diag;
        bsync_blend_space* s = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, (uint32_t)n, NULL, pos, 0, &diag);
        for (uint32_t i = 0; i < diag.count; i++) assert_true(diag.warnings[i].code != BSYNC_BLEND_WARN_GAP_180);
        layouts++;
        fix16_t w[16];
        for (int i = 0; i < n; i++) { /* exact at every sample, centre included */
            fix16_t q[2] = {pos[i].x, pos[i].y};
            bsync_blend_space_eval(s, q, 2, w);
            for (int c = 0; c < n; c++) assert_int_equal(w[c], c == i ? ONE : 0);
            evals++;
        }
        for (int j = 0; j < 8; j++) {
            double qd[2] = {(rnd01(&st) * 2 - 1) * 5, (rnd01(&st) * 2 - 1) * 5};
            fix16_t q[2] = {F(qd[0]), F(qd[1])};
            if (q[0] == 0 && q[1] == 0) continue;
            qd[0] = D(q[0]);
            qd[1] = D(q[1]);
            bsync_blend_space_eval(s, q, 2, w);
            bsync_test_assert_partition(w, n);
            evals++;
            double r[16];
            ref_sd((const double(*)[2])pd, n, qd, r);
            for (int i = 0; i < n; i++) {
                double e = fabs(D(w[i]) - r[i]);
                if (e > worst_sd) worst_sd = e;
                if (e > 2e-4) fail_msg("SD layout %d: weight %d %.6f vs %.6f", L, i, D(w[i]), r[i]);
            }
            /* rotation by 90 degrees (exact in integers) gives the same weights within rounding */
            bsync_vec2 rot[16];
            for (int i = 0; i < n; i++) rot[i] = (bsync_vec2){-pos[i].y, pos[i].x};
            bsync_blend_space* sr = make(BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, (uint32_t)n, NULL, rot, 0, NULL);
            fix16_t qr[2] = {-q[1], q[0]}, wr[16];
            bsync_blend_space_eval(sr, qr, 2, wr);
            for (int i = 0; i < n; i++) assert_true(abs(wr[i] - w[i]) <= 2);
            bsync_blend_space_destroy(sr);
        }
        bsync_blend_space_destroy(s);

        /* Simple1D: random thresholds (distinct), random parameters */
        int m = 1 + (int)(bsync_test_rand(&st) % 10);
        fix16_t th[16];
        for (int i = 0; i < m; i++) {
            th[i] = (fix16_t)((int64_t)(bsync_test_rand(&st) % 2000001) - 1000000) * 3;
            for (int c = 0; c < i; c++)
                if (th[c] == th[i]) th[i] += 1;
        }
        bsync_blend_space* s1 = make(BSYNC_BLEND_SIMPLE_1D, (uint32_t)m, th, NULL, 0, NULL);
        layouts++;
        for (int i = 0; i < m; i++) {
            bsync_blend_space_eval(s1, &th[i], 1, w);
            for (int c = 0; c < m; c++) assert_int_equal(w[c], c == i ? ONE : 0);
        }
        for (int j = 0; j < 8; j++) {
            fix16_t p = (fix16_t)((int64_t)(bsync_test_rand(&st) % 8000001) - 4000000);
            bsync_blend_space_eval(s1, &p, 1, w);
            bsync_test_assert_partition(w, m);
            evals++;
            /* reference: tents between sorted neighbours */
            double lo = -1e30, hi = 1e30;
            int ilo = -1, ihi = -1;
            for (int i = 0; i < m; i++) {
                if (D(th[i]) <= D(p) && D(th[i]) > lo) { lo = D(th[i]); ilo = i; }
                if (D(th[i]) >= D(p) && D(th[i]) < hi) { hi = D(th[i]); ihi = i; }
            }
            double r[16] = {0};
            if (ilo < 0) r[ihi] = 1;
            else if (ihi < 0) r[ilo] = 1;
            else if (ilo == ihi) r[ilo] = 1;
            else {
                r[ihi] = (D(p) - lo) / (hi - lo);
                r[ilo] = 1 - r[ihi];
            }
            for (int i = 0; i < m; i++) {
                double e = fabs(D(w[i]) - r[i]);
                if (e > worst_1d) worst_1d = e;
                assert_true(e <= 1.0 / 65536);
            }
            /* continuity: one raw step changes each weight by at most 1/(gap) + rounding */
            fix16_t p2 = p + 1, w2[16];
            bsync_blend_space_eval(s1, &p2, 1, w2);
            for (int i = 0; i < m; i++) assert_true(abs(w2[i] - w[i]) <= 3 + 65536 / 3);
        }
        bsync_blend_space_destroy(s1);
    }
    printf("properties: %ld layouts, %ld evaluations; worst error vs double reference: SimpleDirectional %.3g, "
           "Simple1D %.3g\n", layouts, evals, worst_sd, worst_1d);
    assert_true(layouts > 2000);
}

/* Degenerate random layouts (duplicates, several centres, collinear, tiny and huge coordinates):
 * every type stays defined, >= 0, sums to one, and coincident children get equal weights (within
 * one raw step of the split). */
static void test_properties_degenerate(void** state) {
    (void)state;
    uint64_t st = 99;
    long evals = 0;
    const bsync_blend_type types[4] = {BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D, BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D,
                                       BSYNC_BLEND_FREEFORM_CARTESIAN_2D, BSYNC_BLEND_INVERSE_DISTANCE_2D};
    for (int L = 0; L < 1200; L++) {
        int n = 1 + (int)(bsync_test_rand(&st) % 9);
        bsync_vec2 pos[16];
        int32_t span = (int32_t)(1 + bsync_test_rand(&st) % 3 == 0 ? 8 : (L % 2 ? 65536 * 4 : 0x7FFFFFFF));
        for (int i = 0; i < n; i++) {
            uint64_t r = bsync_test_rand(&st);
            if (i > 0 && r % 4 == 0) pos[i] = pos[r / 4 % (uint64_t)i];
            else if (r % 4 == 1) pos[i] = (bsync_vec2){0, 0};
            else if (r % 8 == 2) pos[i] = (bsync_vec2){(fix16_t)((int64_t)(r >> 8) % span), 0};
            else pos[i] = (bsync_vec2){(fix16_t)((int64_t)(r >> 8) % span), (fix16_t)((int64_t)(r >> 32) % span)};
        }
        bsync_blend_space* s = make(types[L % 4], (uint32_t)n, NULL, pos, (uint32_t)(L % 9), NULL);
        for (int j = 0; j < 6; j++) {
            uint64_t r = bsync_test_rand(&st);
            fix16_t q[2] = {(fix16_t)(uint32_t)r, (fix16_t)(uint32_t)(r >> 32)};
            if (j == 0) q[0] = q[1] = 0;
            if (j == 1) q[0] = pos[0].x, q[1] = pos[0].y;
            if (j == 2) q[0] = (fix16_t)((int64_t)(r >> 8) % 200000), q[1] = (fix16_t)((int64_t)(r >> 40) % 200000);
            fix16_t w[16];
            assert_int_equal(bsync_blend_space_eval(s, q, 2, w), BSYNC_OK);
            bsync_test_assert_partition(w, n);
            for (int a = 0; a < n; a++)
                for (int b = a + 1; b < n; b++)
                    if (pos[a].x == pos[b].x && pos[a].y == pos[b].y) assert_true(abs(w[a] - w[b]) <= 1 + n);
            evals++;
        }
        bsync_blend_space_destroy(s);
    }
    printf("properties: 1200 degenerate layouts, %ld evaluations\n", evals);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_1d),
        cmocka_unit_test(test_simple_directional),
        cmocka_unit_test(test_cartesian),
        cmocka_unit_test(test_polar),
        cmocka_unit_test(test_idw),
        cmocka_unit_test(test_direct),
        cmocka_unit_test(test_far_pull_back),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_properties_freeform_idw),
        cmocka_unit_test(test_properties_directional_1d),
        cmocka_unit_test(test_properties_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
