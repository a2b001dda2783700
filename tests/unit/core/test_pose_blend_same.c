/* test_pose_blend_same.c — bsync_pose_blend skips the sums of channels whose contributing values are
 * all the same (translation, scale: that value; rotation with weights summing to one: the normalised
 * rotation, proved equal in pose.c). Checked bit for bit against a reference blend written here from
 * the rule in pose.h (exact int64 sums, one rounding ties away from zero, hemisphere signs from
 * bsync_quat_dot, the rotation sum scaled below 2^29 with symmetric rounding and then
 * bsync_quat_normalize), on poses built so that channels repeat: equal in every input, equal to the
 * rest pose that takes a remainder, equal except in one input, with extreme values (INT32_MIN,
 * quaternion components of every bit length 0..31), weights summing to one, below and above one, and
 * per-joint masks. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/pose.h"
#include "test_support.h"

static fix16_t rand_mag(uint64_t* rng, unsigned bits) { /* uniform in (-2^bits, 2^bits), bits <= 31 */
    const uint64_t r = bsync_test_rand(rng);
    if (bits == 0) return 0;
    int64_t v = (int64_t)((r >> 1) & ((((uint64_t)1) << bits) - 1u));
    return (fix16_t)((r & 1u) ? -v : v);
}

/* v / 2^s, ties away from zero, symmetric. */
static int64_t ref_shift_round(int64_t v, unsigned s) {
    if (s == 0) return v;
    const int64_t m = v < 0 ? -v : v;
    const int64_t r = (m + ((int64_t)1 << (s - 1))) >> s;
    return v < 0 ? -r : r;
}

/* The blend of pose.h, joint by joint, without any shortcut. */
static void ref_blend(const bsync_trs* rest, uint32_t J, const bsync_pose_input* in, uint32_t count, bsync_trs* out) {
    for (uint32_t j = 0; j < J; j++) {
        int64_t w[16];
        uint32_t idx[16], n = 0;
        int64_t total = 0;
        for (uint32_t i = 0; i < count; i++) {
            if (in[i].weight <= 0) continue;
            fix16_t wi = in[i].weight;
            if (in[i].joint_weights) {
                fix16_t m = in[i].joint_weights[j];
                m = m < 0 ? 0 : m > 65536 ? 65536 : m;
                wi = bsync_fx_mul(wi, m);
            }
            if (wi <= 0) continue;
            w[n] = wi;
            idx[n++] = i;
            total += wi;
        }
        if (n == 0) {
            out[j] = rest[j];
            continue;
        }
        if (n == 1 && total >= 65536) {
            out[j] = in[idx[0]].local[j];
            continue;
        }
        const bsync_quat q0 = in[idx[0]].local[j].r;
        int64_t acc[10] = {0};
        for (uint32_t k = 0; k <= n; k++) {
            const bsync_trs* x;
            int64_t wk;
            if (k < n) {
                x = &in[idx[k]].local[j];
                wk = w[k];
            } else {
                if (total >= 65536) break;
                x = &rest[j];
                wk = 65536 - total;
            }
            const int64_t sign = bsync_quat_dot(q0, x->r) < 0 ? -1 : 1;
            const fix16_t* t = &x->t.x;
            const fix16_t* s = &x->s.x;
            const fix16_t* r = &x->r.x;
            for (int c = 0; c < 3; c++) acc[c] += wk * t[c];
            for (int c = 0; c < 3; c++) acc[3 + c] += wk * s[c];
            for (int c = 0; c < 4; c++) acc[6 + c] += sign * wk * r[c];
        }
        const int64_t den = total > 65536 ? total : 65536;
        fix16_t* ot = &out[j].t.x;
        fix16_t* os = &out[j].s.x;
        for (int c = 0; c < 3; c++) ot[c] = bsync_test_round_div(acc[c], den);
        for (int c = 0; c < 3; c++) os[c] = bsync_test_round_div(acc[3 + c], den);
        int64_t mx = 0;
        for (int c = 0; c < 4; c++) {
            const int64_t a = acc[6 + c] < 0 ? -acc[6 + c] : acc[6 + c];
            if (a > mx) mx = a;
        }
        unsigned sh = 0;
        while ((mx >> sh) >= ((int64_t)1 << 29)) sh++;
        out[j].r = bsync_quat_normalize(bsync_quat_make((fix16_t)ref_shift_round(acc[6], sh), (fix16_t)ref_shift_round(acc[7], sh),
                                                        (fix16_t)ref_shift_round(acc[8], sh), (fix16_t)ref_shift_round(acc[9], sh)));
    }
}

enum { NJ = 12, NI = 4 };

static bsync_vec3 rand_vec3(uint64_t* rng) {
    const unsigned b = (unsigned)(bsync_test_rand(rng) % 32u);
    bsync_vec3 v = bsync_vec3_make(rand_mag(rng, b), rand_mag(rng, b), rand_mag(rng, 31));
    if (bsync_test_rand(rng) % 9u == 0) v.x = INT32_MIN; /* saturates to -0x7FFFFFFF when summed */
    if (bsync_test_rand(rng) % 11u == 0) v.y = INT32_MAX;
    return v;
}

static bsync_quat rand_quat(uint64_t* rng) {
    const unsigned b = (unsigned)(bsync_test_rand(rng) % 32u); /* every magnitude, the shortcut's bounds included */
    bsync_quat q = bsync_quat_make(rand_mag(rng, b), rand_mag(rng, b), rand_mag(rng, b), rand_mag(rng, b));
    switch (bsync_test_rand(rng) % 6u) {
    case 0: q = bsync_quat_normalize(q); break; /* unit within rounding (the unit fast path) */
    case 1: q.w = (fix16_t)(((uint32_t)1 << (bsync_test_rand(rng) % 31u)) - 1u); break; /* a bit-length edge */
    case 2: q.x = (fix16_t)((uint32_t)1 << (bsync_test_rand(rng) % 31u)); break;
    default: break;
    }
    return q;
}

static void test_same_channels(void** state) {
    (void)state;
    uint64_t rng = 77;
    static bsync_trs rest[NJ], poses[NI][NJ], got[NJ], want[NJ];
    static fix16_t masks[NI][NJ];
    long same_t = 0, same_s = 0, same_r = 0, blended = 0;
    for (int it = 0; it < 30000; it++) {
        for (int j = 0; j < NJ; j++) {
            rest[j].t = rand_vec3(&rng);
            rest[j].s = rand_vec3(&rng);
            rest[j].r = rand_quat(&rng);
            /* per channel: all inputs equal to one value (often the rest pose's), or all random, or all
             * equal except one input */
            const bsync_vec3 t = bsync_test_rand(&rng) % 2u ? rest[j].t : rand_vec3(&rng);
            const bsync_vec3 s = bsync_test_rand(&rng) % 2u ? rest[j].s : rand_vec3(&rng);
            const bsync_quat r = bsync_test_rand(&rng) % 2u ? rest[j].r : rand_quat(&rng);
            const unsigned mode_t = (unsigned)(bsync_test_rand(&rng) % 3u), mode_s = (unsigned)(bsync_test_rand(&rng) % 3u),
                           mode_r = (unsigned)(bsync_test_rand(&rng) % 3u);
            const int odd = (int)(bsync_test_rand(&rng) % NI);
            for (int i = 0; i < NI; i++) {
                poses[i][j].t = mode_t == 1 || (mode_t == 2 && i == odd) ? rand_vec3(&rng) : t;
                poses[i][j].s = mode_s == 1 || (mode_s == 2 && i == odd) ? rand_vec3(&rng) : s;
                poses[i][j].r = mode_r == 1 || (mode_r == 2 && i == odd) ? rand_quat(&rng) : r;
                if (mode_r == 2 && i == odd && bsync_test_rand(&rng) % 2u) { /* differs by one raw step */
                    poses[i][j].r = r;
                    poses[i][j].r.y = r.y == INT32_MAX ? r.y - 1 : r.y + 1;
                }
                masks[i][j] = (fix16_t)(bsync_test_rand(&rng) % 3u == 0 ? 65536 : bsync_test_rand(&rng) % 65537u);
            }
        }
        /* weights: summing to exactly one, below one (the rest fills up), above one; some inputs off */
        bsync_pose_input in[NI];
        int64_t w[NI], total = 0;
        const int kind = it % 3;
        for (int i = 0; i < NI; i++) {
            w[i] = bsync_test_rand(&rng) % 5u == 0 ? 0 : 1 + (int64_t)(bsync_test_rand(&rng) % (kind == 2 ? 3u * 65536u : 16384u));
            total += w[i];
        }
        if (kind == 0) {
            w[NI - 1] += 65536 - total;
            if (w[NI - 1] <= 0) continue;
        }
        const int masked = it % 4 == 3;
        for (int i = 0; i < NI; i++) {
            in[i].local = poses[i];
            in[i].weight = (fix16_t)w[i];
            in[i].joint_weights = masked && i % 2 == 1 ? masks[i] : NULL;
        }
        assert_int_equal(bsync_pose_blend(rest, NJ, in, NI, got), BSYNC_OK);
        ref_blend(rest, NJ, in, NI, want);
        for (int j = 0; j < NJ; j++) {
            if (memcmp(&got[j], &want[j], sizeof got[j]) != 0)
                fail_msg("iteration %d joint %d: blend (%d %d %d | %d %d %d %d) vs reference (%d %d %d | %d %d %d %d)", it, j,
                         got[j].t.x, got[j].t.y, got[j].t.z, got[j].r.x, got[j].r.y, got[j].r.z, got[j].r.w, want[j].t.x,
                         want[j].t.y, want[j].t.z, want[j].r.x, want[j].r.y, want[j].r.z, want[j].r.w);
            /* count what the cases covered (all contributing inputs equal in a channel) */
            int n = 0, st = 1, ss = 1, sr = 1;
            const bsync_trs* f = NULL;
            for (int i = 0; i < NI; i++) {
                if (w[i] <= 0 || (in[i].joint_weights && bsync_fx_mul((fix16_t)w[i], masks[i][j]) <= 0)) continue;
                if (!f) f = &poses[i][j];
                st &= !memcmp(&poses[i][j].t, &f->t, sizeof f->t);
                ss &= !memcmp(&poses[i][j].s, &f->s, sizeof f->s);
                sr &= !memcmp(&poses[i][j].r, &f->r, sizeof f->r);
                n++;
            }
            if (n >= 2) {
                blended++;
                same_t += st;
                same_s += ss;
                same_r += sr;
            }
        }
    }
    print_message("%ld multi-input joints: %ld with one translation, %ld one scale, %ld one rotation\n", blended, same_t,
                  same_s, same_r);
    assert_true(same_t > 10000 && same_s > 10000 && same_r > 10000 && blended - same_r > 10000);
}

/* Hand-worked: every input holds t = (INT32_MIN, 5, -7), s = (1, 1, 1), r = (0, 0, 0.6, 0.8) scaled by
 * 2^k; the blend gives t = (-0x7FFFFFFF, 5, -7) (the saturation of the exact mean), s unchanged, and r
 * = (0, 0, 0.6, 0.8) rounded to fix16 (39322, 52429 raw) for every k that keeps the components in
 * range — normalising a 3-4-5 direction. */
static void test_same_hand_worked(void** state) {
    (void)state;
    static bsync_trs rest[1], a[1], b[1], out[1];
    for (int k = -2; k <= 14; k++) {
        const int64_t x = k >= 0 ? (int64_t)3 << k : 3, y = k >= 0 ? (int64_t)4 << k : 4;
        a[0].t = bsync_vec3_make(INT32_MIN, 5, -7);
        a[0].s = bsync_vec3_make(65536, 65536, 65536);
        a[0].r = bsync_quat_make(0, 0, (fix16_t)x, (fix16_t)y);
        b[0] = a[0];
        rest[0] = bsync_trs_identity();
        bsync_pose_input in[2] = {{a, 20000, NULL}, {b, 45536, NULL}};
        assert_int_equal(bsync_pose_blend(rest, 1, in, 2, out), BSYNC_OK);
        assert_int_equal(out[0].t.x, -0x7FFFFFFF);
        assert_int_equal(out[0].t.y, 5);
        assert_int_equal(out[0].t.z, -7);
        assert_int_equal(out[0].s.x, 65536);
        assert_int_equal(out[0].r.x, 0);
        assert_int_equal(out[0].r.y, 0);
        assert_int_equal(out[0].r.z, 39322); /* 0.6 * 65536 = 39321.6 */
        assert_int_equal(out[0].r.w, 52429); /* 0.8 * 65536 = 52428.8 */
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_channels),
        cmocka_unit_test(test_same_hand_worked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
