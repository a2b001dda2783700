/* test_procedural_extra.c — the extra clips of the built-in humanoid (procedural.h, the _full API):
 * walk_back, strafe_left, strafe_right, wave, punch. Independent expectations: the names and
 * durations procedural.h states (fix16 of the decimal seconds computed here with lround), closed loops
 * read from the built keys, root speeds measured from the root translation keys against the decimal
 * speeds of the header (1.2 and 1.3 m/s, rounded here), the exact mirror rule of the header derived from
 * joint NAMES (_l <-> _r) rather than the code's table, exact rest pose of the legs in the actions, unit
 * rotations within the normaliser's stated bound, what the arms do (double-precision forward kinematics
 * of the sampled pose), and the original three clips equal to those of the old API. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/pose.h"
#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "test_support.h"

#define NJ 23
#define KEYS 25

static bsync_procedural_humanoid_full g_f;

static int setup(void** state) {
    (void)state;
    return bsync_procedural_humanoid_full_create(NULL, &g_f) == BSYNC_OK ? 0 : -1;
}
static int teardown(void** state) {
    (void)state;
    bsync_procedural_humanoid_full_destroy(&g_f);
    return 0;
}

static uint32_t joint(const char* name) {
    uint32_t j = 999;
    assert_int_equal(bsync_skeleton_find(g_f.skeleton, name, &j), BSYNC_OK);
    return j;
}

/* the built track of (joint, kind) of a clip */
static bsync_track_info track(const bsync_clip* c, uint32_t j, bsync_track_kind kind) {
    bsync_track_info ti;
    for (uint32_t t = 0; t < bsync_clip_track_count(c); t++) {
        assert_int_equal(bsync_clip_track_info(c, t, &ti), BSYNC_OK);
        if (ti.joint == j && ti.kind == kind) return ti;
    }
    fail_msg("no track kind %d for joint %u in %s", (int)kind, j, bsync_clip_name(c));
    return ti;
}

static const struct {
    int index;
    const char* name;
    double seconds;
} k_extra[] = {
    {BSYNC_PROCEDURAL_WALK_BACK, "walk_back", 1.0},
    {BSYNC_PROCEDURAL_STRAFE_LEFT, "strafe_left", 1.0},
    {BSYNC_PROCEDURAL_STRAFE_RIGHT, "strafe_right", 1.0},
    {BSYNC_PROCEDURAL_WAVE, "wave", 1.2},
    {BSYNC_PROCEDURAL_PUNCH, "punch", 1.0},
};
#define NEXTRA ((int)(sizeof k_extra / sizeof k_extra[0]))

static void test_indices_names_durations(void** state) {
    (void)state;
    assert_int_equal(BSYNC_PROCEDURAL_CLIP_COUNT, 3); /* the original meaning is kept */
    assert_int_equal(BSYNC_PROCEDURAL_FULL_CLIP_COUNT, 8);
    static const char* orig[] = {"idle", "walk", "run"};
    for (int i = 0; i < 3; i++) assert_string_equal(bsync_clip_name(g_f.clips[i]), orig[i]);
    for (int i = 0; i < NEXTRA; i++) {
        const bsync_clip* c = g_f.clips[k_extra[i].index];
        assert_non_null(c);
        assert_string_equal(bsync_clip_name(c), k_extra[i].name);
        assert_int_equal(bsync_clip_duration(c), (int32_t)lround(k_extra[i].seconds * 65536.0));
        assert_true(bsync_clip_loops(c));
        assert_int_equal(bsync_clip_joint_count(c), NJ);
        /* a rotation track per joint but the root, translation tracks for root and pelvis */
        assert_int_equal(bsync_clip_track_count(c), 24);
    }
    assert_int_equal(BSYNC_PROCEDURAL_SPEED_WALK_BACK, (int32_t)lround(1.2 * 65536));
    assert_int_equal(BSYNC_PROCEDURAL_SPEED_STRAFE, (int32_t)lround(1.3 * 65536));
}

static void test_closed_loops(void** state) {
    (void)state;
    for (int i = 0; i < NEXTRA; i++) {
        const bsync_clip* c = g_f.clips[k_extra[i].index];
        for (uint32_t t = 0; t < bsync_clip_track_count(c); t++) {
            bsync_track_info ti;
            assert_int_equal(bsync_clip_track_info(c, t, &ti), BSYNC_OK);
            assert_int_equal(ti.key_count, KEYS);
            assert_int_equal(ti.times[0], 0);
            assert_int_equal(ti.times[KEYS - 1], bsync_clip_duration(c));
            if (ti.kind == BSYNC_TRACK_ROTATION) {
                assert_memory_equal(&ti.quats[0], &ti.quats[KEYS - 1], sizeof ti.quats[0]);
            } else if (ti.joint != 0) { /* pelvis translation closes too */
                assert_memory_equal(&ti.vec3s[0], &ti.vec3s[KEYS - 1], sizeof ti.vec3s[0]);
            } else { /* the root's translation starts at the origin (and moves, below) */
                assert_int_equal(ti.vec3s[0].x, 0);
                assert_int_equal(ti.vec3s[0].y, 0);
                assert_int_equal(ti.vec3s[0].z, 0);
            }
        }
    }
}

static void test_root_speeds(void** state) {
    (void)state;
    /* velocity (vx, vz) in m/s stated by procedural.h */
    static const struct {
        int index;
        double vx, vz;
    } want[] = {
        {BSYNC_PROCEDURAL_WALK_BACK, 0.0, -1.2}, {BSYNC_PROCEDURAL_STRAFE_LEFT, 1.3, 0.0},
        {BSYNC_PROCEDURAL_STRAFE_RIGHT, -1.3, 0.0}, {BSYNC_PROCEDURAL_WAVE, 0.0, 0.0},
        {BSYNC_PROCEDURAL_PUNCH, 0.0, 0.0}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const bsync_clip* c = g_f.clips[want[i].index];
        bsync_track_info root = track(c, 0, BSYNC_TRACK_TRANSLATION);
        const int64_t d = bsync_clip_duration(c);
        const bsync_vec3* v = root.vec3s;
        /* measured speed in raw steps per second over the whole cycle, vs the decimal speed */
        double sx = (double)(v[KEYS - 1].x - v[0].x) * 65536.0 / (double)d;
        double sz = (double)(v[KEYS - 1].z - v[0].z) * 65536.0 / (double)d;
        assert_true(fabs(sx - want[i].vx * 65536.0) <= 1.0);
        assert_true(fabs(sz - want[i].vz * 65536.0) <= 1.0);
        /* and at constant speed: every key on the line (within a raw step), no vertical motion */
        for (int k = 0; k < KEYS; k++) {
            double ts = bsync_fx_to_double(root.times[k]);
            assert_true(fabs(bsync_fx_to_double(v[k].x) - want[i].vx * ts) <= 2.0 / 65536.0);
            assert_true(fabs(bsync_fx_to_double(v[k].z) - want[i].vz * ts) <= 2.0 / 65536.0);
            assert_int_equal(v[k].y, 0);
        }
    }
}

/* the mirror joint by name: "x_l" <-> "x_r", else itself */
static uint32_t mirror_by_name(uint32_t j) {
    const char* n = bsync_skeleton_joint_name(g_f.skeleton, j);
    size_t len = strlen(n);
    if (len < 2 || n[len - 2] != '_' || (n[len - 1] != 'l' && n[len - 1] != 'r')) return j;
    char buf[64];
    memcpy(buf, n, len + 1);
    buf[len - 1] = n[len - 1] == 'l' ? 'r' : 'l';
    return joint(buf);
}

static void test_strafe_left_mirrors_strafe_right(void** state) {
    (void)state;
    /* Rule (procedural.h): mirror through the YZ plane, x -> -x. A joint takes its _l/_r twin's key;
     * a rotation (x, y, z, w) becomes (x, -y, -z, w) (reflection M R M with M = diag(-1, 1, 1): the
     * rotation axis (ax, ay, az) maps to (ax, -ay, -az) and the angle changes sign, so x keeps its
     * sign and y, z flip); a translation (x, y, z) becomes (-x, y, z). Exact, key by key. */
    const bsync_clip* L = g_f.clips[BSYNC_PROCEDURAL_STRAFE_LEFT];
    const bsync_clip* R = g_f.clips[BSYNC_PROCEDURAL_STRAFE_RIGHT];
    int mirrored_pairs = 0;
    for (uint32_t j = 1; j < NJ; j++) {
        uint32_t m = mirror_by_name(j);
        if (m != j) mirrored_pairs++;
        bsync_track_info a = track(L, j, BSYNC_TRACK_ROTATION), b = track(R, m, BSYNC_TRACK_ROTATION);
        for (int k = 0; k < KEYS; k++) {
            assert_int_equal(a.quats[k].x, b.quats[k].x);
            assert_int_equal(a.quats[k].y, -b.quats[k].y);
            assert_int_equal(a.quats[k].z, -b.quats[k].z);
            assert_int_equal(a.quats[k].w, b.quats[k].w);
        }
    }
    assert_int_equal(mirrored_pairs, 16); /* 2 x (clavicle, upperarm, lowerarm, hand, thigh, calf, foot, toe) */
    for (uint32_t j = 0; j < 2; j++) { /* root, pelvis */
        bsync_track_info a = track(L, j, BSYNC_TRACK_TRANSLATION), b = track(R, j, BSYNC_TRACK_TRANSLATION);
        for (int k = 0; k < KEYS; k++) {
            assert_int_equal(a.vec3s[k].x, -b.vec3s[k].x);
            assert_int_equal(a.vec3s[k].y, b.vec3s[k].y);
            assert_int_equal(a.vec3s[k].z, b.vec3s[k].z);
        }
    }
    /* not trivially symmetric: the right thigh really abducts (a Z rotation) somewhere */
    bsync_track_info tr = track(R, joint("thigh_r"), BSYNC_TRACK_ROTATION);
    int32_t maxz = 0;
    for (int k = 0; k < KEYS; k++) maxz = abs(tr.quats[k].z) > maxz ? abs(tr.quats[k].z) : maxz;
    /* 16 degrees of abduction at the widest stance: sin(8 deg) * 65536 = 9121 */
    assert_true(maxz > 8000);
}

static void test_actions_keep_legs_at_rest(void** state) {
    (void)state;
    static const char* legs[] = {"thigh_l", "calf_l", "foot_l", "toe_l", "thigh_r", "calf_r", "foot_r", "toe_r", "pelvis"};
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_f.skeleton);
    const int actions[] = {BSYNC_PROCEDURAL_WAVE, BSYNC_PROCEDURAL_PUNCH};
    for (int a = 0; a < 2; a++) {
        const bsync_clip* c = g_f.clips[actions[a]];
        for (size_t i = 0; i < sizeof legs / sizeof legs[0]; i++) {
            uint32_t j = joint(legs[i]);
            bsync_track_info ti = track(c, j, BSYNC_TRACK_ROTATION);
            for (int k = 0; k < KEYS; k++) {
                /* the rest rotation of the skeleton is the identity (0, 0, 0, 1) */
                assert_int_equal(ti.quats[k].x, 0);
                assert_int_equal(ti.quats[k].y, 0);
                assert_int_equal(ti.quats[k].z, 0);
                assert_int_equal(ti.quats[k].w, 65536);
                assert_memory_equal(&ti.quats[k], &rest[j].r, sizeof rest[j].r);
            }
        }
        bsync_track_info p = track(c, joint("pelvis"), BSYNC_TRACK_TRANSLATION);
        for (int k = 0; k < KEYS; k++) {
            assert_memory_equal(&p.vec3s[k], &rest[joint("pelvis")].t, sizeof p.vec3s[k]);
            assert_int_equal(p.vec3s[k].y, 62259); /* round(0.95 * 65536) */
        }
        /* sampling anywhere gives the rest pose of the legs, bit for bit */
        bsync_trs pose[NJ];
        assert_int_equal(bsync_clip_sample(c, 12345, BSYNC_LOOP_WRAP, rest, NJ, NULL, pose), BSYNC_OK);
        for (size_t i = 0; i < sizeof legs / sizeof legs[0]; i++) {
            uint32_t j = joint(legs[i]);
            assert_memory_equal(&pose[j].r, &rest[j].r, sizeof rest[j].r);
            assert_memory_equal(&pose[j].t, &rest[j].t, sizeof rest[j].t);
        }
    }
    /* ...while the other clips do move the legs */
    bsync_track_info wb = track(g_f.clips[BSYNC_PROCEDURAL_WALK_BACK], joint("thigh_l"), BSYNC_TRACK_ROTATION);
    assert_true(wb.quats[6].w != 65536);
}

static void test_rotations_are_unit(void** state) {
    (void)state;
    /* bsync_quat_normalize: every component within one raw step of the exact unit quaternion, so the
     * length is within sqrt(4) = 2 raw steps of 1 */
    for (int i = 0; i < BSYNC_PROCEDURAL_FULL_CLIP_COUNT; i++) {
        const bsync_clip* c = g_f.clips[i];
        for (uint32_t t = 0; t < bsync_clip_track_count(c); t++) {
            bsync_track_info ti;
            assert_int_equal(bsync_clip_track_info(c, t, &ti), BSYNC_OK);
            if (ti.kind != BSYNC_TRACK_ROTATION) continue;
            for (uint32_t k = 0; k < ti.key_count; k++) {
                double x = ti.quats[k].x, y = ti.quats[k].y, z = ti.quats[k].z, w = ti.quats[k].w;
                double len = sqrt(x * x + y * y + z * z + w * w) / 65536.0;
                assert_true(fabs(len - 1.0) <= 2.0 / 65536.0 + 1e-12);
            }
        }
    }
}

/* model-space position of joint j, double precision, from a sampled local pose */
static void model_positions(const bsync_trs* local, double (*out)[3]) {
    const int16_t* parents = bsync_skeleton_parents(g_f.skeleton);
    double rq[NJ][4];
    for (int j = 0; j < NJ; j++) {
        double q[4] = {bsync_fx_to_double(local[j].r.x), bsync_fx_to_double(local[j].r.y),
                       bsync_fx_to_double(local[j].r.z), bsync_fx_to_double(local[j].r.w)};
        double t[3] = {bsync_fx_to_double(local[j].t.x), bsync_fx_to_double(local[j].t.y),
                       bsync_fx_to_double(local[j].t.z)};
        int p = parents[j];
        if (p < 0) {
            memcpy(rq[j], q, sizeof q);
            memcpy(out[j], t, sizeof t);
            continue;
        }
        /* out = parent position + parent rotation * t; rotation = parent rotation * q */
        const double* P = rq[p];
        double ux = P[1] * t[2] - P[2] * t[1], uy = P[2] * t[0] - P[0] * t[2], uz = P[0] * t[1] - P[1] * t[0];
        double vx = t[0] + 2 * (P[3] * ux + P[1] * uz - P[2] * uy);
        double vy = t[1] + 2 * (P[3] * uy + P[2] * ux - P[0] * uz);
        double vz = t[2] + 2 * (P[3] * uz + P[0] * uy - P[1] * ux);
        out[j][0] = out[p][0] + vx;
        out[j][1] = out[p][1] + vy;
        out[j][2] = out[p][2] + vz;
        rq[j][0] = P[3] * q[0] + P[0] * q[3] + P[1] * q[2] - P[2] * q[1];
        rq[j][1] = P[3] * q[1] - P[0] * q[2] + P[1] * q[3] + P[2] * q[0];
        rq[j][2] = P[3] * q[2] + P[0] * q[1] - P[1] * q[0] + P[2] * q[3];
        rq[j][3] = P[3] * q[3] - P[0] * q[0] - P[1] * q[1] - P[2] * q[2];
    }
}

static void test_actions_move_the_arms(void** state) {
    (void)state;
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_f.skeleton);
    bsync_trs pose[NJ];
    double m[NJ][3];
    const uint32_t hand_r = joint("hand_r"), hand_l = joint("hand_l"), head = joint("head");
    /* wave: the right hand above the head all cycle long, the left hand below the hips */
    const bsync_clip* wave = g_f.clips[BSYNC_PROCEDURAL_WAVE];
    double min_x = 9, max_x = -9;
    for (int k = 0; k < 24; k++) {
        fix16_t t = (fix16_t)((int64_t)bsync_clip_duration(wave) * k / 24);
        assert_int_equal(bsync_clip_sample(wave, t, BSYNC_LOOP_WRAP, rest, NJ, NULL, pose), BSYNC_OK);
        model_positions(pose, m);
        assert_true(m[hand_r][1] > m[head][1] + 0.1);
        assert_true(m[hand_l][1] < 1.0);
        min_x = fmin(min_x, m[hand_r][0]);
        max_x = fmax(max_x, m[hand_r][0]);
    }
    assert_true(max_x - min_x > 0.1); /* it waves: the hand travels sideways */
    /* punch: at mid-cycle (full extension) the right hand is well in front of the chest, at the start
     * it is not */
    const bsync_clip* punch = g_f.clips[BSYNC_PROCEDURAL_PUNCH];
    assert_int_equal(bsync_clip_sample(punch, bsync_clip_duration(punch) / 2, BSYNC_LOOP_WRAP, rest, NJ, NULL, pose),
                     BSYNC_OK);
    model_positions(pose, m);
    double reach = m[hand_r][2];
    assert_true(reach > 0.4);
    assert_int_equal(bsync_clip_sample(punch, 0, BSYNC_LOOP_WRAP, rest, NJ, NULL, pose), BSYNC_OK);
    model_positions(pose, m);
    assert_true(m[hand_r][2] < reach - 0.2);
}

static void test_original_clips_unchanged(void** state) {
    (void)state;
    bsync_procedural_humanoid old;
    assert_int_equal(bsync_procedural_humanoid_create(NULL, &old), BSYNC_OK);
    assert_int_equal(bsync_checksum_skeleton(old.skeleton), bsync_checksum_skeleton(g_f.skeleton));
    assert_int_equal(bsync_skeleton_block_size(old.skeleton), bsync_skeleton_block_size(g_f.skeleton));
    for (int i = 0; i < BSYNC_PROCEDURAL_CLIP_COUNT; i++) {
        assert_int_equal(bsync_checksum_clip(old.clips[i]), bsync_checksum_clip(g_f.clips[i]));
        assert_int_equal(bsync_clip_block_size(old.clips[i]), bsync_clip_block_size(g_f.clips[i]));
        for (uint32_t t = 0; t < bsync_clip_track_count(old.clips[i]); t++) {
            bsync_track_info a, b;
            assert_int_equal(bsync_clip_track_info(old.clips[i], t, &a), BSYNC_OK);
            assert_int_equal(bsync_clip_track_info(g_f.clips[i], t, &b), BSYNC_OK);
            assert_int_equal(a.key_count, b.key_count);
            assert_memory_equal(a.times, b.times, a.key_count * sizeof *a.times);
            if (a.quats) assert_memory_equal(a.quats, b.quats, a.key_count * sizeof *a.quats);
            if (a.vec3s) assert_memory_equal(a.vec3s, b.vec3s, a.key_count * sizeof *a.vec3s);
        }
        /* and no extra clip is a copy of an original one */
        for (int x = BSYNC_PROCEDURAL_CLIP_COUNT; x < BSYNC_PROCEDURAL_FULL_CLIP_COUNT; x++)
            assert_true(bsync_checksum_clip(g_f.clips[x]) != bsync_checksum_clip(old.clips[i]));
    }
    bsync_procedural_humanoid_destroy(&old);
    /* the full set builds the same bits every time */
    bsync_procedural_humanoid_full again;
    assert_int_equal(bsync_procedural_humanoid_full_create(NULL, &again), BSYNC_OK);
    for (int i = 0; i < BSYNC_PROCEDURAL_FULL_CLIP_COUNT; i++)
        assert_int_equal(bsync_checksum_clip(again.clips[i]), bsync_checksum_clip(g_f.clips[i]));
    bsync_procedural_humanoid_full_destroy(&again);
}

/* an allocator that succeeds `left` times, then fails; counts live blocks */
typedef struct fail_after {
    int left, live;
} fail_after;
static void* fa_alloc(size_t size, size_t align, void* user) {
    fail_after* f = (fail_after*)user;
    (void)align;
    if (f->left-- <= 0) return NULL;
    void* p = malloc(size); /* malloc's alignment (16) covers the core's 8 */
    if (p) f->live++;
    return p;
}
static void fa_free(void* ptr, size_t size, void* user) {
    (void)size;
    if (!ptr) return;
    ((fail_after*)user)->live--;
    free(ptr);
}

static void test_arguments_and_failing_allocator(void** state) {
    (void)state;
    assert_int_equal(bsync_procedural_humanoid_full_create(NULL, NULL), BSYNC_INVALID_ARGUMENT);
    bsync_procedural_humanoid_full_destroy(NULL); /* ignored */
    /* the skeleton and 8 clips: 9 allocations; the k-th failing gives OUT_OF_MEMORY, *out untouched
     * and nothing left allocated */
    for (int ok_calls = 0; ok_calls <= BSYNC_PROCEDURAL_FULL_CLIP_COUNT; ok_calls++) {
        fail_after f = {ok_calls, 0};
        bsync_allocator a = {fa_alloc, fa_free, &f};
        bsync_procedural_humanoid_full h;
        memset(&h, 0x5a, sizeof h);
        assert_int_equal(bsync_procedural_humanoid_full_create(&a, &h), BSYNC_OUT_OF_MEMORY);
        unsigned char ff[sizeof h];
        memset(ff, 0x5a, sizeof ff);
        assert_memory_equal(&h, ff, sizeof h);
        assert_int_equal(f.live, 0);
    }
    fail_after f = {1 + BSYNC_PROCEDURAL_FULL_CLIP_COUNT, 0};
    bsync_allocator a = {fa_alloc, fa_free, &f};
    bsync_procedural_humanoid_full h;
    assert_int_equal(bsync_procedural_humanoid_full_create(&a, &h), BSYNC_OK);
    assert_int_equal(f.live, 1 + BSYNC_PROCEDURAL_FULL_CLIP_COUNT);
    bsync_procedural_humanoid_full_destroy(&h);
    assert_int_equal(f.live, 0);
    assert_null(h.skeleton);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_indices_names_durations),
        cmocka_unit_test(test_closed_loops),
        cmocka_unit_test(test_root_speeds),
        cmocka_unit_test(test_strafe_left_mirrors_strafe_right),
        cmocka_unit_test(test_actions_keep_legs_at_rest),
        cmocka_unit_test(test_rotations_are_unit),
        cmocka_unit_test(test_actions_move_the_arms),
        cmocka_unit_test(test_original_clips_unchanged),
        cmocka_unit_test(test_arguments_and_failing_allocator),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
