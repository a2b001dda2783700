/* test_abi.c — every exported NAME_abi twin (blendsync/abi.h) returns the same bits as its static
 * inline function, over stratified sweeps (full int32 range, small values, values next to the
 * saturation limits, unit-range values) plus hand-picked edges; and bsync_version() agrees with the
 * BSYNC_VERSION_* macros. The twins live in another translation unit, so each call here is a real
 * out-of-line call, compared with the inline function compiled into this test. */
#include <stdio.h>
#include <string.h>

#include "blendsync/abi.h"
#include "test_support.h"

#define SWEEP 200000

static uint64_t rng = 0x6a09e667f3bcc908ull;

static int32_t draw(void) {
    uint64_t r = bsync_test_rand(&rng);
    switch (r % 5) {
    case 0: return (int32_t)(uint32_t)(r >> 32);
    case 1: return (int32_t)((r >> 40) % 2001) - 1000;
    case 2: return (r >> 63) ? (int32_t)(INT32_MIN + (int32_t)((r >> 40) % 64)) : INT32_MAX - (int32_t)((r >> 40) % 64);
    case 3: return (int32_t)((int64_t)((r >> 32) % (4u << 16)) - (2 << 16)); /* |x| < 2: quaternion range */
    default: return (int32_t)((int64_t)((r >> 32) % (128u << 16)) - (64 << 16));
    }
}
static int64_t draw64(void) {
    uint64_t r = bsync_test_rand(&rng);
    switch (r % 3) {
    case 0: return (int64_t)r;
    case 1: return (int64_t)draw() * draw();
    default: return (int64_t)(r >> (r % 64));
    }
}
static bsync_vec3 draw_vec3(void) { return bsync_vec3_make(draw(), draw(), draw()); }
static bsync_quat draw_quat(void) { return bsync_quat_make(draw(), draw(), draw(), draw()); }
static bsync_trs draw_trs(void) {
    bsync_trs x = {draw_vec3(), draw_quat(), draw_vec3()};
    return x;
}

static void eq_vec3(bsync_vec3 a, bsync_vec3 b) {
    assert_int_equal(a.x, b.x);
    assert_int_equal(a.y, b.y);
    assert_int_equal(a.z, b.z);
}
static void eq_quat(bsync_quat a, bsync_quat b) {
    assert_int_equal(a.x, b.x);
    assert_int_equal(a.y, b.y);
    assert_int_equal(a.z, b.z);
    assert_int_equal(a.w, b.w);
}
static void eq_trs(const bsync_trs* a, const bsync_trs* b) {
    eq_vec3(a->t, b->t);
    eq_quat(a->r, b->r);
    eq_vec3(a->s, b->s);
}

static const int32_t edges[] = {0, 1, -1, 2, -2, BSYNC_FX_ONE, -BSYNC_FX_ONE, BSYNC_FX_HALF, BSYNC_FX_MAX,
                                BSYNC_FX_MIN, INT32_MIN, INT32_MAX - 1, 0x00010001, 0x7FFF0000};
#define N_EDGES (sizeof edges / sizeof edges[0])

static void test_scalars(void** state) {
    (void)state;
    /* every pair of edges, then the sweep */
    for (size_t i = 0; i < N_EDGES; i++)
        for (size_t j = 0; j < N_EDGES; j++) {
            fix16_t a = edges[i], b = edges[j];
            assert_int_equal(bsync_fx_mul_abi(a, b), bsync_fx_mul(a, b));
            assert_int_equal(bsync_fx_div_abi(a, b), bsync_fx_div(a, b));
            assert_int_equal(bsync_fx_add_abi(a, b), bsync_fx_add(a, b));
            assert_int_equal(bsync_fx_sub_abi(a, b), bsync_fx_sub(a, b));
        }
    for (int k = 0; k < SWEEP; k++) {
        fix16_t a = draw(), b = draw(), t = draw();
        assert_int_equal(bsync_fx_add_abi(a, b), bsync_fx_add(a, b));
        assert_int_equal(bsync_fx_sub_abi(a, b), bsync_fx_sub(a, b));
        assert_int_equal(bsync_fx_neg_abi(a), bsync_fx_neg(a));
        assert_int_equal(bsync_fx_abs_abi(a), bsync_fx_abs(a));
        assert_int_equal(bsync_fx_min_abi(a, b), bsync_fx_min(a, b));
        assert_int_equal(bsync_fx_max_abi(a, b), bsync_fx_max(a, b));
        assert_int_equal(bsync_fx_clamp_abi(t, a < b ? a : b, a < b ? b : a), bsync_fx_clamp(t, a < b ? a : b, a < b ? b : a));
        assert_int_equal(bsync_fx_mul_abi(a, b), bsync_fx_mul(a, b));
        assert_int_equal(bsync_fx_div_abi(a, b), bsync_fx_div(a, b));
        assert_int_equal(bsync_fx_sqrt_abi(a), bsync_fx_sqrt(a));
        assert_int_equal(bsync_fx_lerp_abi(a, b, t), bsync_fx_lerp(a, b, t));
        assert_int_equal(bsync_fx_from_int_abi(a >> 16), bsync_fx_from_int(a >> 16));
        double d1 = bsync_fx_to_double_abi(a), d2 = bsync_fx_to_double(a);
        assert_memory_equal(&d1, &d2, sizeof d1);
    }
}

static void test_integers(void** state) {
    (void)state;
    for (int k = 0; k < SWEEP; k++) {
        int64_t v = draw64();
        unsigned s = (unsigned)(bsync_test_rand(&rng) % 64);
        assert_true(bsync_i64_asr_abi(v, s) == bsync_i64_asr(v, s));
        assert_int_equal(bsync_fx_sat64_abi(v), bsync_fx_sat64(v));
        assert_true(bsync_u64_abs_abi(v) == bsync_u64_abs(v));
        assert_int_equal(bsync_fx_signed_sat_abi((uint64_t)v >> s, (int)(s & 1)), bsync_fx_signed_sat((uint64_t)v >> s, (int)(s & 1)));
        if (v != 0) assert_int_equal(bsync_u64_clz_abi((uint64_t)v), bsync_u64_clz((uint64_t)v));
        assert_true(bsync_u64_isqrt_abi((uint64_t)v) == bsync_u64_isqrt((uint64_t)v));
    }
    assert_true(bsync_i64_asr_abi(INT64_MIN, 63) == -1);
    assert_true(bsync_u64_isqrt_abi(UINT64_MAX) == 0xFFFFFFFFu);
}

static void test_vectors_quats_transforms(void** state) {
    (void)state;
    eq_quat(bsync_quat_identity_abi(), bsync_quat_identity());
    bsync_trs id1 = bsync_trs_identity_abi(), id2 = bsync_trs_identity();
    eq_trs(&id1, &id2);
    for (int k = 0; k < SWEEP / 4; k++) {
        bsync_vec3 a = draw_vec3(), b = draw_vec3();
        bsync_quat p = draw_quat(), q = draw_quat();
        fix16_t s = draw();
        eq_vec3(bsync_vec3_make_abi(a.x, a.y, a.z), bsync_vec3_make(a.x, a.y, a.z));
        eq_vec3(bsync_vec3_add_abi(a, b), bsync_vec3_add(a, b));
        eq_vec3(bsync_vec3_sub_abi(a, b), bsync_vec3_sub(a, b));
        eq_vec3(bsync_vec3_neg_abi(a), bsync_vec3_neg(a));
        eq_vec3(bsync_vec3_scale_abi(a, s), bsync_vec3_scale(a, s));
        eq_vec3(bsync_vec3_mul_abi(a, b), bsync_vec3_mul(a, b));
        assert_int_equal(bsync_vec3_dot_abi(a, b), bsync_vec3_dot(a, b));
        assert_int_equal(bsync_vec3_length_sq_abi(a), bsync_vec3_length_sq(a));
        eq_vec3(bsync_vec3_cross_abi(a, b), bsync_vec3_cross(a, b));
        assert_int_equal(bsync_vec3_length_abi(a), bsync_vec3_length(a));
        eq_vec3(bsync_vec3_lerp_abi(a, b, s), bsync_vec3_lerp(a, b, s));
        eq_quat(bsync_quat_make_abi(p.x, p.y, p.z, p.w), bsync_quat_make(p.x, p.y, p.z, p.w));
        eq_quat(bsync_quat_conj_abi(p), bsync_quat_conj(p));
        eq_quat(bsync_quat_neg_abi(p), bsync_quat_neg(p));
        assert_int_equal(bsync_quat_dot_abi(p, q), bsync_quat_dot(p, q));
        eq_quat(bsync_quat_mul_abi(p, q), bsync_quat_mul(p, q));
        eq_quat(bsync_quat_normalize_abi(p), bsync_quat_normalize(p));
        eq_vec3(bsync_quat_rotate_abi(p, a), bsync_quat_rotate(p, a));
        eq_quat(bsync_quat_nlerp_abi(p, q, s), bsync_quat_nlerp(p, q, s));
        bsync_trs x = draw_trs(), y = draw_trs();
        eq_vec3(bsync_trs_transform_point_abi(&x, a), bsync_trs_transform_point(&x, a));
        bsync_trs c1 = bsync_trs_compose_abi(&x, &y), c2 = bsync_trs_compose(&x, &y);
        eq_trs(&c1, &c2);
    }
}

static void test_pose_smooth_time(void** state) {
    (void)state;
    bsync_trs src[17], d1[17], d2[17];
    for (int i = 0; i < 17; i++) src[i] = draw_trs();
    memset(d1, 0x5A, sizeof d1);
    memset(d2, 0x5A, sizeof d2);
    bsync_pose_copy_abi(d1, src, 16);
    bsync_pose_copy(d2, src, 16);
    for (int i = 0; i < 16; i++) eq_trs(&d1[i], &d2[i]);
    assert_memory_equal(&d1[16], &d2[16], sizeof d1[16]); /* the 17th was not written by either */
    for (int k = 0; k < SWEEP; k++) {
        fix16_t v = draw(), w = draw();
        bsync_smooth_state a = bsync_smooth_state_make_abi(v, w), b = bsync_smooth_state_make(v, w);
        assert_true(a.value == b.value && a.velocity == b.velocity);
        a.value = draw64();
        a.velocity = draw64();
        assert_int_equal(bsync_smooth_value_abi(&a), bsync_smooth_value(&a));
        assert_int_equal(bsync_smooth_velocity_abi(&a), bsync_smooth_velocity(&a));
    }
    bsync_clip_time t1 = bsync_time_start_abi(), t2 = bsync_time_start();
    assert_memory_equal(&t1, &t2, sizeof t1);
    for (int k = 0; k < SWEEP; k++) {
        bsync_clip_time t = bsync_time_start();
        t.phase = (uint32_t)draw();
        assert_int_equal(bsync_time_normalized_abi(&t), bsync_time_normalized(&t));
    }
}

static void test_version(void** state) {
    (void)state;
    assert_int_equal(bsync_version(), BSYNC_VERSION_NUMBER);
    assert_int_equal(bsync_version() >> 16, BSYNC_VERSION_MAJOR);
    assert_int_equal((bsync_version() >> 8) & 0xFF, BSYNC_VERSION_MINOR);
    assert_int_equal(bsync_version() & 0xFF, BSYNC_VERSION_PATCH);
    char text[32];
    snprintf(text, sizeof text, "%d.%d.%d", BSYNC_VERSION_MAJOR, BSYNC_VERSION_MINOR, BSYNC_VERSION_PATCH);
    assert_string_equal(bsync_version_string(), text);
    assert_string_equal(bsync_version_string(), BSYNC_VERSION_STRING);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars),
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_vectors_quats_transforms),
        cmocka_unit_test(test_pose_smooth_time),
        cmocka_unit_test(test_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
