/* test_simd.c — the SIMD paths of the core (blendsync/simd.h) give the bits of the scalar reference.
 *
 * The reference is bsync_quat_normalize (fixed.c: one quaternion at a time, the function the whole
 * suite's golden checksums were made with); the batch kernel of every supported path
 * (internal/simd_impl.h) must return exactly its result for every input: worst cases chosen for the
 * normalisation's branches (zero, components of magnitude 2^30 and more that take the halving,
 * INT32_MIN, sums of squares that hit the cap e = 28, the unit-within-rounding shortcut and its edges,
 * odd and negative components whose quotients round half away from zero), random quaternions over
 * every bit length, and groups of 1 to 9 (the tails that repeat their last rotation). Then the public
 * functions: bsync_pose_blend of random poses with random weights (sums below, at and above one,
 * opposite hemispheres, non-unit rotations, INT32_MIN and saturating components, rotation components
 * outside [-2^30, 2^30) that the vector blend leaves to the scalar code) must be the same bits on every
 * path (the AVX2 blend of four joints included), and the API's
 * contract (names, refusals, the active path). test_sample_rule.c runs its rule comparison on every
 * path too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/fixed.h"
#include "blendsync/pose.h"
#include "blendsync/simd.h"
#include "internal/simd_impl.h"
#include "test_support.h"

static const bsync_simd_path all_paths[] = {BSYNC_SIMD_SCALAR, BSYNC_SIMD_AVX2, BSYNC_SIMD_AVX512, BSYNC_SIMD_NEON};
#define PATH_COUNT (sizeof all_paths / sizeof all_paths[0])

/* The kernel of one path, called directly (not through the process-wide choice). */
static void kernel(bsync_simd_path path, bsync_trs* pose, const uint16_t* joints, uint32_t n) {
    switch (path) {
#if BSYNC_HAVE_AVX2_PATH
    case BSYNC_SIMD_AVX2: bsync_simd_normalize_avx2_(pose, joints, n); return;
    case BSYNC_SIMD_AVX512: bsync_simd_normalize_avx512_(pose, joints, n); return;
#endif
#if BSYNC_HAVE_NEON_PATH
    case BSYNC_SIMD_NEON: bsync_simd_normalize_neon_(pose, joints, n); return;
#endif
    default: bsync_simd_normalize_scalar_(pose, joints, n); return;
    }
}

static fix16_t rand_bits(uint64_t* seed) {
    const uint64_t r = bsync_test_rand(seed);
    const unsigned bits = (unsigned)(r % 33u); /* magnitude below 2^bits, 0 .. 32 */
    const uint64_t m = bits == 0 ? 0 : (bsync_test_rand(seed) & ((bits >= 32 ? 0 : ((uint64_t)1 << bits)) - 1u));
    const int64_t v = (r >> 40) & 1 ? -(int64_t)m : (int64_t)m;
    return (fix16_t)(v < INT32_MIN ? INT32_MIN : (v > INT32_MAX ? INT32_MAX : v));
}

/* Every path on `count` quaternions, in groups of `group`, against bsync_quat_normalize. */
static long check_quats(const bsync_quat* q, uint32_t count, uint32_t group) {
    enum { CAP = 64 };
    bsync_trs pose[CAP];
    uint16_t joints[CAP];
    long checked = 0;
    for (size_t p = 0; p < PATH_COUNT; p++) {
        if (!bsync_simd_supported(all_paths[p])) continue;
        for (uint32_t i = 0; i < count; i += group) {
            const uint32_t n = count - i < group ? count - i : group;
            memset(pose, 0x5A, sizeof pose);
            for (uint32_t k = 0; k < n; k++) {
                joints[k] = (uint16_t)((k * 7u + 3u) % CAP); /* distinct, out of order */
                pose[joints[k]].r = q[i + k];
            }
            kernel(all_paths[p], pose, joints, n);
            for (uint32_t k = 0; k < n; k++) {
                const bsync_quat want = bsync_quat_normalize(q[i + k]);
                const bsync_quat got = pose[joints[k]].r;
                if (memcmp(&want, &got, sizeof want))
                    fail_msg("%s: normalize(%d, %d, %d, %d) = (%d, %d, %d, %d), reference (%d, %d, %d, %d)",
                             bsync_simd_path_name(all_paths[p]), (int)q[i + k].x, (int)q[i + k].y, (int)q[i + k].z,
                             (int)q[i + k].w, (int)got.x, (int)got.y, (int)got.z, (int)got.w, (int)want.x,
                             (int)want.y, (int)want.z, (int)want.w);
                checked++;
            }
            /* the other joints of the pose are untouched */
            for (uint32_t j = 0; j < CAP; j++) {
                int listed = 0;
                for (uint32_t k = 0; k < n; k++) listed |= joints[k] == j;
                if (!listed) {
                    unsigned char pat[sizeof(bsync_trs)];
                    memset(pat, 0x5A, sizeof pat);
                    assert_memory_equal(&pose[j], pat, sizeof pat);
                }
            }
        }
    }
    return checked;
}

static void test_api(void** state) {
    (void)state;
    assert_string_equal(bsync_simd_path_name(BSYNC_SIMD_AUTO), "auto");
    assert_string_equal(bsync_simd_path_name(BSYNC_SIMD_SCALAR), "scalar");
    assert_string_equal(bsync_simd_path_name(BSYNC_SIMD_AVX2), "avx2");
    assert_string_equal(bsync_simd_path_name(BSYNC_SIMD_NEON), "neon");
    assert_string_equal(bsync_simd_path_name(BSYNC_SIMD_AVX512), "avx512");
    assert_string_equal(bsync_simd_path_name((bsync_simd_path)99), "?");
    assert_int_equal(bsync_simd_supported(BSYNC_SIMD_SCALAR), 1);
    assert_int_equal(bsync_simd_supported(BSYNC_SIMD_AUTO), 1);
    assert_int_equal(bsync_simd_supported((bsync_simd_path)-1), 0);
    assert_int_equal(bsync_simd_set((bsync_simd_path)BSYNC_SIMD_PATH_COUNT), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_simd_set((bsync_simd_path)-1), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_simd_set(BSYNC_SIMD_SCALAR), BSYNC_OK);
    assert_int_equal(bsync_simd_active(), BSYNC_SIMD_SCALAR);
    if (!bsync_simd_supported(BSYNC_SIMD_AVX2)) {
        assert_int_equal(bsync_simd_set(BSYNC_SIMD_AVX2), BSYNC_NOT_FOUND);
        assert_int_equal(bsync_simd_active(), BSYNC_SIMD_SCALAR); /* unchanged on failure */
    } else {
        assert_int_equal(bsync_simd_set(BSYNC_SIMD_AVX2), BSYNC_OK);
        assert_int_equal(bsync_simd_active(), BSYNC_SIMD_AVX2);
    }
    assert_int_equal(bsync_simd_set(BSYNC_SIMD_AUTO), BSYNC_OK);
    assert_true(bsync_simd_active() != BSYNC_SIMD_AUTO); /* AUTO resolves to a real path */
    assert_int_equal(bsync_simd_active(), bsync_simd_supported(BSYNC_SIMD_NEON)     ? BSYNC_SIMD_NEON
                                          : bsync_simd_supported(BSYNC_SIMD_AVX512) ? BSYNC_SIMD_AVX512
                                          : bsync_simd_supported(BSYNC_SIMD_AVX2)   ? BSYNC_SIMD_AVX2
                                                                                    : BSYNC_SIMD_SCALAR);
    if (bsync_simd_supported(BSYNC_SIMD_AVX512)) assert_true(bsync_simd_supported(BSYNC_SIMD_AVX2));
    assert_false(bsync_simd_supported(BSYNC_SIMD_NEON) && bsync_simd_supported(BSYNC_SIMD_AVX2)); /* one ISA */
    if (!bsync_simd_supported(BSYNC_SIMD_NEON)) assert_int_equal(bsync_simd_set(BSYNC_SIMD_NEON), BSYNC_NOT_FOUND);
    print_message("paths: scalar%s%s%s; auto takes %s\n", bsync_simd_supported(BSYNC_SIMD_AVX2) ? ", avx2" : "",
                  bsync_simd_supported(BSYNC_SIMD_AVX512) ? ", avx512" : "",
                  bsync_simd_supported(BSYNC_SIMD_NEON) ? ", neon" : "", bsync_simd_path_name(bsync_simd_active()));
}

static void test_worst_cases(void** state) {
    (void)state;
    static const fix16_t edge[] = {0,          1,          -1,          2,           3,          -3,
                                   32767,      32768,      -32768,      46341,       65535,      65536,
                                   -65536,     65537,      92682,       (1 << 29) - 1, 1 << 29,  -(1 << 29),
                                   (1 << 30) - 1, -((1 << 30) - 1), 1 << 30, -(1 << 30), (1 << 30) + 1,
                                   INT32_MAX,  INT32_MIN,  INT32_MIN + 1, 12345,     -54321,     7};
    enum { E = sizeof edge / sizeof edge[0] };
    static bsync_quat q[E * E * 4 + 4096];
    uint32_t n = 0;
    for (int a = 0; a < E; a++) /* pairs of edge values in every position, the others small or zero */
        for (int b = 0; b < E; b++) {
            q[n++] = bsync_quat_make(edge[a], edge[b], 0, 0);
            q[n++] = bsync_quat_make(0, edge[a], 1, edge[b]);
            q[n++] = bsync_quat_make(edge[b], -1, edge[a], 65536);
            q[n++] = bsync_quat_make(edge[a], edge[a], edge[b], edge[b]);
        }
    /* around unit: the shortcut |s - 2^32| <= 2^15 and its edges, and just outside */
    uint64_t seed = 17;
    for (int i = 0; i < 4096; i++) {
        const int32_t d = (int32_t)(bsync_test_rand(&seed) % 401u) - 200;
        const int k = i % 4;
        bsync_quat u = bsync_quat_make(k == 0 ? 65536 + d : d / 7, k == 1 ? 65536 - d : d / 3, k == 2 ? -65536 + d : 0,
                                       k == 3 ? 46341 + d : 46341);
        q[n++] = u;
    }
    const long checked = check_quats(q, n, 4) + check_quats(q, n, 7) + check_quats(q, n, 1);
    print_message("worst cases: %ld normalisations identical to bsync_quat_normalize\n", checked);
    assert_true(checked >= (long)n * 3);
}

static void test_random(void** state) {
    (void)state;
    enum { N = 4096, ROUNDS = 120 };
    static bsync_quat q[N];
    uint64_t seed = 4242;
    long checked = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N; i++) {
            if (r % 3 == 0) { /* every bit length, independently per component */
                q[i] = bsync_quat_make(rand_bits(&seed), rand_bits(&seed), rand_bits(&seed), rand_bits(&seed));
            } else if (r % 3 == 1) { /* lerps of unit keys: what sampling normalises */
                const bsync_quat a = bsync_quat_from_axis_angle(bsync_vec3_make(rand_bits(&seed), 65536, rand_bits(&seed) >> 8),
                                                                (fix16_t)(bsync_test_rand(&seed) % 411775u));
                const bsync_quat b = bsync_quat_from_axis_angle(bsync_vec3_make(65536, rand_bits(&seed) >> 4, 3),
                                                                (fix16_t)(bsync_test_rand(&seed) % 411775u));
                const fix16_t t = (fix16_t)(bsync_test_rand(&seed) % 65536u);
                q[i] = bsync_quat_make(bsync_fx_lerp(a.x, b.x, t), bsync_fx_lerp(a.y, b.y, t), bsync_fx_lerp(a.z, b.z, t),
                                       bsync_fx_lerp(a.w, b.w, t));
            } else { /* one common bit length: the blend's sums scaled below 2^30 */
                const unsigned bits = 1u + (unsigned)(bsync_test_rand(&seed) % 30u);
                const uint64_t mask = ((uint64_t)1 << bits) - 1u;
                fix16_t c[4];
                for (int k = 0; k < 4; k++) {
                    const uint64_t x = bsync_test_rand(&seed);
                    c[k] = (fix16_t)((x >> 1) & 1 ? -(int64_t)((x >> 8) & mask) : (int64_t)((x >> 8) & mask));
                }
                q[i] = bsync_quat_make(c[0], c[1], c[2], c[3]);
            }
        }
        checked += check_quats(q, N, 4 + (uint32_t)(r % 6));
    }
    print_message("random: %ld normalisations identical to bsync_quat_normalize\n", checked);
    assert_true(checked >= (long)N * ROUNDS);
}

/* bsync_pose_blend on every path: the same bits. */
static void test_blend_paths(void** state) {
    (void)state;
    /* 67 joints: eight groups of eight and the eight ending at the last joint (three new ones); 79: nine
     * groups and the last seven; 13: one group and the last five; 5: fewer than eight (fours and single
     * joints) */
    enum { J = 79, POSES = 4, CASES = 3000 };
    static bsync_trs rest[J], in[POSES][J], out[PATH_COUNT][J];
    uint64_t seed = 99;
    long compared = 0;
    for (int c = 0; c < CASES; c++) {
        for (int j = 0; j < J; j++) {
            rest[j] = bsync_trs_identity();
            rest[j].r = bsync_quat_from_axis_angle(bsync_vec3_make(0, 65536, 0), (fix16_t)(j * 1000));
            for (int p = 0; p < POSES; p++) {
                bsync_trs* x = &in[p][j];
                x->t = bsync_vec3_make(rand_bits(&seed) >> 4, rand_bits(&seed) >> 4, 65536);
                x->s = bsync_vec3_make(65536, 65536 + (rand_bits(&seed) >> 16), 65536);
                const fix16_t ang = (fix16_t)(bsync_test_rand(&seed) % 823550u) - 411775;
                x->r = bsync_quat_from_axis_angle(bsync_vec3_make(65536, (fix16_t)(j * 977), 5), ang);
                if (c % 5 == 1) x->r = bsync_quat_neg(x->r);           /* the other hemisphere */
                if (c % 5 == 2) x->r.w = x->r.w / 3 + (fix16_t)p;      /* not unit */
                if (c % 7 == 3 && p > 0) x->r = in[0][j].r;            /* all equal (the shortcut) */
                if (c % 11 == 5 && j % 5 == p) {                         /* extremes: saturation, INT32_MIN, */
                    x->t.x = (j & 1) ? INT32_MIN : INT32_MAX;              /* rotations outside [-2^30, 2^30) */
                    x->s.z = INT32_MIN;
                    x->r.y = (j & 2) ? INT32_MIN : (1 << 30);
                }
            }
            if (c % 11 == 6 && j % 3 == 0) { /* saturation with in-range rotations (the vector kernels') */
                for (int p = 0; p < POSES; p++) in[p][j].t.y = INT32_MIN;
                in[j % POSES][j].s.x = INT32_MAX;
            }
            if (c % 17 == 9 && j % 4 == 1) { /* an all-zero sum: normalised to the identity */
                rest[j].r = bsync_quat_make(0, 0, 0, 0);
                for (int p = 0; p < POSES; p++) in[p][j].r = rest[j].r;
            }
            if (c % 13 == 7) { /* dots near zero: the hemisphere flips only at <= -2^15 (2^-32 units) */
                in[0][j].r = bsync_quat_make(1, 0, 0, 65536);
                in[1][j].r = bsync_quat_make(-(j + 1), 65536, 0, 0);        /* dot -(j + 1): no flip */
                in[2][j].r = bsync_quat_make(-(j + 1) * 500, 0, 65536, 0);  /* -500 .. -33500: flips from j = 65 */
                in[3][j].r = bsync_quat_make(-32768 + (j % 3) - 1, 0, 0, 0); /* -32769 .. -32767 */
            }
        }
        bsync_pose_input inputs[POSES];
        int64_t sum = 0;
        for (int p = 0; p < POSES; p++) {
            inputs[p].local = in[p];
            inputs[p].weight = (fix16_t)(bsync_test_rand(&seed) % (c % 3 == 0 ? 40000u : 90000u));
            inputs[p].joint_weights = NULL;
            sum += inputs[p].weight;
        }
        if (c % 4 == 0) { /* exactly one */
            inputs[POSES - 1].weight = 0;
            sum = 0;
            for (int p = 0; p < POSES - 1; p++) sum += inputs[p].weight;
            if (sum < 65536) inputs[POSES - 1].weight = (fix16_t)(65536 - sum);
        }
        for (size_t p = 0; p < PATH_COUNT; p++) {
            memset(out[p], 0, sizeof out[p]);
            if (!bsync_simd_supported(all_paths[p])) continue;
            assert_int_equal(bsync_simd_set(all_paths[p]), BSYNC_OK);
            static const uint32_t joint_counts[4] = {67u, 79u, 13u, 5u};
            const uint32_t joints = joint_counts[(c / 3) % 4]; /* each with every weight case */
            assert_int_equal(bsync_pose_blend(rest, joints, inputs, POSES, out[p]), BSYNC_OK);
            if (p > 0) {
                assert_memory_equal(out[p], out[0], sizeof out[0]);
                compared += joints;
            }
        }
    }
    assert_int_equal(bsync_simd_set(BSYNC_SIMD_AUTO), BSYNC_OK);
    print_message("blend: %ld joints identical to the scalar path\n", compared);
    long others = 0; /* supported paths besides the scalar one */
    for (size_t p = 1; p < PATH_COUNT; p++) others += bsync_simd_supported(all_paths[p]);
    assert_int_equal(compared, others * (CASES / 4) * (67 + 79 + 13 + 5));
}

/* bsync_pose_local_to_model (its fast quaternion product for components in [-2^30, 2^30)) against a
 * chain of bsync_trs_compose, bit for bit, on random trees with components of every bit length (unit,
 * non-unit, beyond 2^30, INT32_MIN), so that both product paths and the rounding of negative and tie
 * sums are reached. */
static void test_local_to_model_same_as_compose(void** state) {
    (void)state;
    enum { N = 64, ROUNDS = 1000 };
    static bsync_trs local[N], model[N];
    int16_t parents[N];
    uint64_t seed = 777;
    long compared = 0, rounds = 0;
    for (int r = 0; r < ROUNDS; r++) {
        for (int j = 0; j < N; j++) {
            parents[j] = (j == 0 || bsync_test_rand(&seed) % 7 == 0) ? (int16_t)BSYNC_NO_PARENT
                                                                      : (int16_t)(bsync_test_rand(&seed) % (uint64_t)j);
            bsync_trs* x = &local[j];
            x->t = bsync_vec3_make(rand_bits(&seed) >> 8, rand_bits(&seed) >> 8, rand_bits(&seed) >> 8);
            x->s = bsync_vec3_make(65536 + (rand_bits(&seed) >> 16), 65536, 65536 - (rand_bits(&seed) >> 17));
            if (r % 4 == 0) { /* any bits */
                x->r = bsync_quat_make(rand_bits(&seed), rand_bits(&seed), rand_bits(&seed), rand_bits(&seed));
            } else {
                x->r = bsync_quat_from_axis_angle(bsync_vec3_make(rand_bits(&seed), 65536, 3),
                                                  (fix16_t)(bsync_test_rand(&seed) % 823550u) - 411775);
                if (r % 4 == 1) x->r.w = x->r.w / 2 - 1; /* not unit */
                if (r % 4 == 2 && j % 9 == 0) x->r.x = (j & 1) ? INT32_MIN : (1 << 30); /* out of range */
            }
        }
        /* every path (the AVX2 and AVX-512 ones go level by level, four joints in vector lanes), the
         * whole range or two ranges split at a random joint (the second's parents partly in the first) */
        const bsync_simd_path path = all_paths[(size_t)(r / 4) % PATH_COUNT]; /* each path sees every rotation kind */
        if (!bsync_simd_supported(path)) continue;
        assert_int_equal(bsync_simd_set(path), BSYNC_OK);
        memset(model, 0, sizeof model);
        if (r % 3 == 0) {
            assert_int_equal(bsync_pose_local_to_model(parents, N, local, 0, N, model), BSYNC_OK);
        } else {
            const uint32_t cut = 1u + (uint32_t)(bsync_test_rand(&seed) % (N - 1));
            assert_int_equal(bsync_pose_local_to_model(parents, N, local, 0, cut, model), BSYNC_OK);
            assert_int_equal(bsync_pose_local_to_model(parents, N, local, cut, N, model), BSYNC_OK);
        }
        for (int j = 0; j < N; j++) {
            const bsync_trs want = parents[j] == BSYNC_NO_PARENT ? local[j] : bsync_trs_compose(&model[parents[j]], &local[j]);
            assert_memory_equal(&model[j], &want, sizeof want);
            compared++;
        }
        rounds++;
    }
    assert_int_equal(bsync_simd_set(BSYNC_SIMD_AUTO), BSYNC_OK);
    print_message("local-to-model: %ld joints identical to bsync_trs_compose (%ld rounds)\n", compared, rounds);
    assert_true(rounds >= ROUNDS / (long)PATH_COUNT * 2);
    assert_int_equal(compared, (long)N * rounds);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_worst_cases),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_blend_paths),
        cmocka_unit_test(test_local_to_model_same_as_compose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
