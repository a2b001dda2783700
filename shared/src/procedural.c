/* procedural.c — the built-in humanoid: a 23-joint skeleton, idle/walk/run cycles and (the _full
 * set) walk_back, strafe_left/right, wave and punch, made by code.
 * Everything is computed with the project's own fixed-point math, so the generated clips are the
 * same bits on every machine. Setup time only (it builds through bsync_skeleton_create/clip_create). */
#include "blendsync/procedural.h"

#include "blendsync/fixed.h"

#define KEYS 25 /* 24 intervals per cycle plus the closing key (equal to the first) */

enum {
    J_ROOT, J_PELVIS, J_SPINE_01, J_SPINE_02, J_CHEST, J_NECK, J_HEAD,
    J_CLAVICLE_L, J_UPPERARM_L, J_LOWERARM_L, J_HAND_L,
    J_CLAVICLE_R, J_UPPERARM_R, J_LOWERARM_R, J_HAND_R,
    J_THIGH_L, J_CALF_L, J_FOOT_L, J_TOE_L,
    J_THIGH_R, J_CALF_R, J_FOOT_R, J_TOE_R,
    J_COUNT
};

/* Rest translations in millimetres (exact in fix16 after /1000 rounding), parents before children. */
static const struct { const char* name; int parent; int x, y, z; } k_joints[J_COUNT] = {
    {"root", -1, 0, 0, 0},
    {"pelvis", J_ROOT, 0, 950, 0},
    {"spine_01", J_PELVIS, 0, 100, 0},
    {"spine_02", J_SPINE_01, 0, 150, 0},
    {"chest", J_SPINE_02, 0, 150, 0},
    {"neck", J_CHEST, 0, 150, 0},
    {"head", J_NECK, 0, 100, 0},
    {"clavicle_l", J_CHEST, 80, 100, 0},
    {"upperarm_l", J_CLAVICLE_L, 120, 0, 0},
    {"lowerarm_l", J_UPPERARM_L, 280, 0, 0},
    {"hand_l", J_LOWERARM_L, 250, 0, 0},
    {"clavicle_r", J_CHEST, -80, 100, 0},
    {"upperarm_r", J_CLAVICLE_R, -120, 0, 0},
    {"lowerarm_r", J_UPPERARM_R, -280, 0, 0},
    {"hand_r", J_LOWERARM_R, -250, 0, 0},
    {"thigh_l", J_PELVIS, 100, -50, 0},
    {"calf_l", J_THIGH_L, 0, -450, 0},
    {"foot_l", J_CALF_L, 0, -420, 0},
    {"toe_l", J_FOOT_L, 0, -50, 120},
    {"thigh_r", J_PELVIS, -100, -50, 0},
    {"calf_r", J_THIGH_R, 0, -450, 0},
    {"foot_r", J_CALF_R, 0, -420, 0},
    {"toe_r", J_FOOT_R, 0, -50, 120},
};

/* Motion parameters of one cycle; angles in degrees, lengths in millimetres, speed in mm/s. */
typedef struct motion {
    const char* name;
    int duration_ms;
    int root_speed;               /* forward root motion */
    int pelvis_height, bob, sway; /* pelvis y, vertical bob (twice per cycle), sideways sway */
    int pelvis_yaw, spine_yaw, lean, breathe;
    int leg_swing, knee_base, knee_flex, foot_roll;
    int arm_down, arm_swing, elbow;
} motion;

static const motion k_motions[BSYNC_PROCEDURAL_CLIP_COUNT] = {
    /* name   ms    speed  hgt  bob sway yaw spine lean brth leg kneeB kneeF foot down swing elbow */
    {"idle", 2000, 0, 950, 5, 10, 0, 0, 0, 2, 0, 3, 0, 0, 72, 3, 10},
    {"walk", 1000, 1400, 950, 25, 20, 5, 6, 2, 0, 28, 5, 30, 10, 75, 20, 15},
    {"run", 700, 3500, 900, 50, 15, 8, 10, 8, 0, 45, 15, 70, 20, 70, 35, 80},
};

static fix16_t fx_mm(int mm) { return bsync_fx_div(bsync_fx_from_int(mm), bsync_fx_from_int(1000)); }
static fix16_t fx_deg(fix16_t degrees) {
    return bsync_fx_div(bsync_fx_mul(degrees, BSYNC_FX_PI), bsync_fx_from_int(180));
}
static bsync_quat rot(int axis, fix16_t degrees) {
    bsync_vec3 a = bsync_vec3_make(axis == 0 ? BSYNC_FX_ONE : 0, axis == 1 ? BSYNC_FX_ONE : 0,
                                   axis == 2 ? BSYNC_FX_ONE : 0);
    return bsync_quat_from_axis_angle(a, fx_deg(degrees));
}
/* amplitude (integer degrees or mm) times a fix16 wave value in [-1, 1] */
static fix16_t amp(int a, fix16_t wave) { return bsync_fx_mul(bsync_fx_from_int(a), wave); }
static fix16_t positive(fix16_t v) { return v > 0 ? v : 0; }

/* The local rotation of every joint and the root/pelvis translations at cycle angle theta. */
static void motion_pose(const motion* m, fix16_t theta, fix16_t seconds, bsync_quat* r, bsync_vec3* root_t,
                        bsync_vec3* pelvis_t) {
    fix16_t s = bsync_fx_sin(theta), c = bsync_fx_cos(theta);
    fix16_t c2 = bsync_fx_cos(bsync_fx_add(theta, theta));
    fix16_t lead = bsync_fx_sin(bsync_fx_add(theta, BSYNC_FX_HALF_PI));  /* knee leads the thigh */
    fix16_t lead_r = bsync_fx_neg(lead);
    for (int j = 0; j < J_COUNT; j++) r[j] = bsync_quat_identity();

    *root_t = bsync_vec3_make(0, 0, bsync_fx_mul(fx_mm(m->root_speed), seconds));
    *pelvis_t = bsync_vec3_make(fx_mm(0), fx_mm(m->pelvis_height), 0);
    pelvis_t->x = bsync_fx_mul(fx_mm(m->sway), s);
    pelvis_t->y = bsync_fx_add(pelvis_t->y, bsync_fx_mul(fx_mm(m->bob), c2));

    r[J_PELVIS] = rot(1, amp(m->pelvis_yaw, s));
    r[J_SPINE_01] = bsync_quat_mul(rot(0, bsync_fx_from_int(m->lean)), rot(1, amp(-m->spine_yaw / 2, s)));
    r[J_SPINE_02] = rot(0, amp(m->breathe, s));
    r[J_CHEST] = rot(1, amp(-m->spine_yaw, s));
    r[J_NECK] = rot(0, bsync_fx_from_int(-m->lean / 2));
    r[J_CLAVICLE_L] = rot(2, amp(m->breathe, c));
    r[J_CLAVICLE_R] = rot(2, amp(-m->breathe, c));

    /* legs: swing about X (negative = forward), knee flex positive = shin backward */
    r[J_THIGH_L] = rot(0, amp(-m->leg_swing, s));
    r[J_THIGH_R] = rot(0, amp(m->leg_swing, s));
    r[J_CALF_L] = rot(0, bsync_fx_add(bsync_fx_from_int(m->knee_base), amp(m->knee_flex, positive(lead))));
    r[J_CALF_R] = rot(0, bsync_fx_add(bsync_fx_from_int(m->knee_base), amp(m->knee_flex, positive(lead_r))));
    r[J_FOOT_L] = rot(0, amp(m->foot_roll, c));
    r[J_FOOT_R] = rot(0, amp(-m->foot_roll, c));

    /* arms: down from the T-pose, counter-swing against the legs, elbows bent forward */
    r[J_UPPERARM_L] = bsync_quat_mul(rot(0, amp(m->arm_swing, s)), rot(2, bsync_fx_from_int(-m->arm_down)));
    r[J_UPPERARM_R] = bsync_quat_mul(rot(0, amp(-m->arm_swing, s)), rot(2, bsync_fx_from_int(m->arm_down)));
    r[J_LOWERARM_L] = rot(1, bsync_fx_from_int(-m->elbow));
    r[J_LOWERARM_R] = rot(1, bsync_fx_from_int(m->elbow));
}

/* Tracks of one clip: a rotation track for every joint but the root, translations for root and pelvis. */
#define ROT_TRACKS (J_COUNT - 1)
#define TRACKS (ROT_TRACKS + 2)

/* The pose of a clip at cycle angle theta (0 at the first and at the closing key) and key time
 * `seconds` (only the root translation may use it: it is the one track that does not close). */
typedef void (*pose_fn)(const void* ctx, fix16_t theta, fix16_t seconds, bsync_quat* r, bsync_vec3* root_t,
                        bsync_vec3* pelvis_t);

static bsync_result build_clip_with(const char* name, int duration_ms, pose_fn pose, const void* ctx,
                                    const bsync_skeleton* sk, const bsync_allocator* a, bsync_clip** out) {
    fix16_t times[KEYS];
    bsync_quat rots[ROT_TRACKS][KEYS];
    bsync_vec3 root_t[KEYS], pelvis_t[KEYS];
    fix16_t duration = fx_mm(duration_ms);
    for (int k = 0; k < KEYS; k++) {
        int kk = k == KEYS - 1 ? 0 : k; /* the closing key repeats the first pose exactly */
        times[k] = (fix16_t)(((int64_t)duration * k + (KEYS - 1) / 2) / (KEYS - 1));
        fix16_t theta = (fix16_t)(((int64_t)BSYNC_FX_TWO_PI * kk + (KEYS - 1) / 2) / (KEYS - 1));
        bsync_quat r[J_COUNT];
        bsync_vec3 pt;
        pose(ctx, theta, times[k], r, &root_t[k], &pt);
        pelvis_t[k] = pt;
        for (int j = 1; j < J_COUNT; j++) rots[j - 1][k] = r[j];
    }
    bsync_raw_track tracks[TRACKS];
    for (int j = 1; j < J_COUNT; j++) {
        bsync_raw_track t = {(uint32_t)j, BSYNC_TRACK_ROTATION, KEYS, times, NULL, rots[j - 1]};
        tracks[j - 1] = t;
    }
    bsync_raw_track tr = {J_ROOT, BSYNC_TRACK_TRANSLATION, KEYS, times, root_t, NULL};
    bsync_raw_track tp = {J_PELVIS, BSYNC_TRACK_TRANSLATION, KEYS, times, pelvis_t, NULL};
    tracks[ROT_TRACKS] = tr;
    tracks[ROT_TRACKS + 1] = tp;
    bsync_clip_desc desc = {name, duration, 1, tracks, TRACKS};
    return bsync_clip_create(&desc, sk, a, out);
}

static void motion_pose_fn(const void* ctx, fix16_t theta, fix16_t seconds, bsync_quat* r, bsync_vec3* root_t,
                           bsync_vec3* pelvis_t) {
    motion_pose((const motion*)ctx, theta, seconds, r, root_t, pelvis_t);
}

/* The original three clips: exactly the computation they always had (motion_pose, untouched). */
static bsync_result build_clip(const motion* m, const bsync_skeleton* sk, const bsync_allocator* a,
                               bsync_clip** out) {
    return build_clip_with(m->name, m->duration_ms, motion_pose_fn, m, sk, a, out);
}

/* ------------------------------------------------------------------ the extra clips (procedural.h) */

/* walk_back: the walk gait played with the cycle angle reversed (a forward walk run backwards in
 * time: the swing leg travels backwards with its knee flexed), shorter steps, a slight backward lean,
 * root moving -Z at 1.2 m/s. Through motion_pose, whose root term is speed * seconds. */
static const motion k_walk_back = {"walk_back", 1000, -1200, 950, 20, 15, 4, 5, -3, 0, 24, 5, 28, 8, 75, 15, 15};

static void walk_back_pose(const void* ctx, fix16_t theta, fix16_t seconds, bsync_quat* r, bsync_vec3* root_t,
                           bsync_vec3* pelvis_t) {
    motion_pose((const motion*)ctx, bsync_fx_neg(theta), seconds, r, root_t, pelvis_t);
}

#define STRAFE_SPEED_MM 1300

/* strafe_right: side steps to the character's right (-X; the _l joints are at +X). The stance widens
 * (each thigh abducts 8 + 8 sin(theta) degrees about Z, the feet counter-rotated so the soles stay
 * level) while the right knee lifts (cos > 0), then closes while the left knee lifts (cos < 0); the
 * pelvis bobs and sways, the arms hang and swing a little out; root moves -X at 1.3 m/s. */
static void strafe_right_pose(const void* ctx, fix16_t theta, fix16_t seconds, bsync_quat* r, bsync_vec3* root_t,
                              bsync_vec3* pelvis_t) {
    (void)ctx;
    fix16_t s = bsync_fx_sin(theta), c = bsync_fx_cos(theta);
    fix16_t c2 = bsync_fx_cos(bsync_fx_add(theta, theta));
    for (int j = 0; j < J_COUNT; j++) r[j] = bsync_quat_identity();
    *root_t = bsync_vec3_make(bsync_fx_neg(bsync_fx_mul(fx_mm(STRAFE_SPEED_MM), seconds)), 0, 0);
    *pelvis_t = bsync_vec3_make(bsync_fx_mul(fx_mm(-20), s), bsync_fx_add(fx_mm(950), bsync_fx_mul(fx_mm(15), c2)), 0);

    fix16_t spread = bsync_fx_add(bsync_fx_from_int(8), amp(8, s)); /* degrees per thigh, 0..16 */
    fix16_t lift_r = positive(c), lift_l = positive(bsync_fx_neg(c));
    r[J_THIGH_R] = bsync_quat_mul(rot(2, bsync_fx_neg(spread)), rot(0, amp(-15, lift_r)));
    r[J_THIGH_L] = bsync_quat_mul(rot(2, spread), rot(0, amp(-15, lift_l)));
    r[J_CALF_R] = rot(0, bsync_fx_add(bsync_fx_from_int(5), amp(30, lift_r)));
    r[J_CALF_L] = rot(0, bsync_fx_add(bsync_fx_from_int(5), amp(30, lift_l)));
    r[J_FOOT_R] = rot(2, spread);
    r[J_FOOT_L] = rot(2, bsync_fx_neg(spread));

    r[J_PELVIS] = rot(2, amp(3, s));
    r[J_SPINE_01] = rot(2, amp(-3, s));
    r[J_SPINE_02] = rot(0, bsync_fx_from_int(2));
    r[J_NECK] = rot(2, amp(2, s));
    r[J_UPPERARM_L] = rot(2, bsync_fx_sub(amp(5, s), bsync_fx_from_int(72)));
    r[J_UPPERARM_R] = rot(2, bsync_fx_sub(bsync_fx_from_int(72), amp(5, s)));
    r[J_LOWERARM_L] = rot(1, bsync_fx_from_int(-15));
    r[J_LOWERARM_R] = rot(1, bsync_fx_from_int(15));
}

/* The mirror image through the YZ plane (x -> -x): joint j takes the pose of its mirror joint (the
 * _l/_r twin, itself for the centre line), a rotation (x, y, z, w) becomes (x, -y, -z, w) and a
 * translation (x, y, z) becomes (-x, y, z). */
static int mirror_joint(int j) {
    if (j >= J_CLAVICLE_L && j <= J_HAND_L) return j + (J_CLAVICLE_R - J_CLAVICLE_L);
    if (j >= J_CLAVICLE_R && j <= J_HAND_R) return j - (J_CLAVICLE_R - J_CLAVICLE_L);
    if (j >= J_THIGH_L && j <= J_TOE_L) return j + (J_THIGH_R - J_THIGH_L);
    if (j >= J_THIGH_R && j <= J_TOE_R) return j - (J_THIGH_R - J_THIGH_L);
    return j;
}

static void strafe_left_pose(const void* ctx, fix16_t theta, fix16_t seconds, bsync_quat* r, bsync_vec3* root_t,
                             bsync_vec3* pelvis_t) {
    bsync_quat m[J_COUNT];
    strafe_right_pose(ctx, theta, seconds, m, root_t, pelvis_t);
    for (int j = 0; j < J_COUNT; j++) {
        bsync_quat q = m[mirror_joint(j)];
        q.y = bsync_fx_neg(q.y);
        q.z = bsync_fx_neg(q.z);
        r[j] = q;
    }
    root_t->x = bsync_fx_neg(root_t->x);
    pelvis_t->x = bsync_fx_neg(pelvis_t->x);
}

/* The rest pose of the lower body: root at the origin, pelvis at its rest translation, the pelvis and
 * every leg joint with the identity rotation (as in the skeleton). */
static void rest_lower_body(bsync_quat* r, bsync_vec3* root_t, bsync_vec3* pelvis_t) {
    for (int j = 0; j < J_COUNT; j++) r[j] = bsync_quat_identity();
    *root_t = bsync_vec3_make(0, 0, 0);
    *pelvis_t = bsync_vec3_make(fx_mm(k_joints[J_PELVIS].x), fx_mm(k_joints[J_PELVIS].y), fx_mm(k_joints[J_PELVIS].z));
}

/* wave (1.2 s): the right arm raised 50 degrees above the shoulder line and turned 20 degrees forward,
 * the forearm raised a further 60 degrees and waving +-25 degrees three times per cycle (sin 3 theta);
 * the left arm hangs; light breathing and head tilt. Legs, pelvis and root at rest. */
static void wave_pose(const void* ctx, fix16_t theta, fix16_t seconds, bsync_quat* r, bsync_vec3* root_t,
                      bsync_vec3* pelvis_t) {
    (void)ctx;
    (void)seconds;
    rest_lower_body(r, root_t, pelvis_t);
    fix16_t s = bsync_fx_sin(theta);
    fix16_t s3 = bsync_fx_sin(bsync_fx_add(theta, bsync_fx_add(theta, theta)));
    r[J_SPINE_02] = rot(0, amp(2, s));
    r[J_CHEST] = rot(1, bsync_fx_from_int(-5));
    r[J_NECK] = rot(2, amp(3, s));
    r[J_CLAVICLE_R] = rot(2, bsync_fx_from_int(-10));
    r[J_UPPERARM_R] = bsync_quat_mul(rot(1, bsync_fx_from_int(20)), rot(2, bsync_fx_from_int(-50)));
    r[J_LOWERARM_R] = rot(2, bsync_fx_sub(bsync_fx_from_int(-60), amp(25, s3)));
    r[J_HAND_R] = rot(2, amp(-10, s3));
    r[J_UPPERARM_L] = rot(2, bsync_fx_from_int(-72));
    r[J_LOWERARM_L] = rot(1, bsync_fx_from_int(-10));
}

/* punch (1.0 s): from a guard (right arm down, elbow bent 110 degrees, left fist up) a right straight
 * punch with extension e = (1 - cos theta) / 2 (0 at the ends, 1 at mid-cycle): the upper arm swings
 * 85 e degrees forward as it rises from 70 (1 - e) degrees down, the elbow straightens to 10 degrees,
 * the chest turns 25 e - 5 degrees and the spine leans 5 e. Legs, pelvis and root at rest. */
static void punch_pose(const void* ctx, fix16_t theta, fix16_t seconds, bsync_quat* r, bsync_vec3* root_t,
                       bsync_vec3* pelvis_t) {
    (void)ctx;
    (void)seconds;
    rest_lower_body(r, root_t, pelvis_t);
    fix16_t e = bsync_fx_mul(bsync_fx_sub(BSYNC_FX_ONE, bsync_fx_cos(theta)), BSYNC_FX_HALF);
    fix16_t g = bsync_fx_sub(BSYNC_FX_ONE, e);
    r[J_SPINE_01] = rot(0, amp(5, e));
    r[J_CHEST] = rot(1, bsync_fx_sub(amp(25, e), bsync_fx_from_int(5)));
    r[J_NECK] = rot(1, amp(-10, e));
    r[J_UPPERARM_R] = bsync_quat_mul(rot(1, amp(85, e)), rot(2, amp(70, g)));
    r[J_LOWERARM_R] = rot(1, bsync_fx_add(bsync_fx_from_int(10), amp(100, g)));
    r[J_UPPERARM_L] = bsync_quat_mul(rot(1, bsync_fx_from_int(-30)), rot(2, bsync_fx_from_int(-60)));
    r[J_LOWERARM_L] = rot(1, bsync_fx_from_int(-110));
}

typedef struct extra_clip {
    const char* name;
    int duration_ms;
    pose_fn pose;
    const void* ctx;
} extra_clip;

/* indices BSYNC_PROCEDURAL_CLIP_COUNT .. BSYNC_PROCEDURAL_FULL_CLIP_COUNT - 1, in order */
static const extra_clip k_extras[BSYNC_PROCEDURAL_FULL_CLIP_COUNT - BSYNC_PROCEDURAL_CLIP_COUNT] = {
    {"walk_back", 1000, walk_back_pose, &k_walk_back},
    {"strafe_left", 1000, strafe_left_pose, NULL},
    {"strafe_right", 1000, strafe_right_pose, NULL},
    {"wave", 1200, wave_pose, NULL},
    {"punch", 1000, punch_pose, NULL},
};

static bsync_result build_skeleton(const bsync_allocator* allocator, bsync_skeleton** out) {
    bsync_joint_desc joints[J_COUNT];
    for (int j = 0; j < J_COUNT; j++) {
        joints[j].name = k_joints[j].name;
        joints[j].parent = k_joints[j].parent;
        joints[j].rest = bsync_trs_identity();
        joints[j].rest.t = bsync_vec3_make(fx_mm(k_joints[j].x), fx_mm(k_joints[j].y), fx_mm(k_joints[j].z));
    }
    bsync_skeleton_desc sd = {joints, J_COUNT};
    return bsync_skeleton_create(&sd, allocator, out);
}

bsync_result bsync_procedural_humanoid_create(const bsync_allocator* allocator, bsync_procedural_humanoid* out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    bsync_procedural_humanoid h = {0};
    bsync_result r = build_skeleton(allocator, &h.skeleton);
    for (int i = 0; r == BSYNC_OK && i < BSYNC_PROCEDURAL_CLIP_COUNT; i++)
        r = build_clip(&k_motions[i], h.skeleton, allocator, &h.clips[i]);
    if (r != BSYNC_OK) {
        bsync_procedural_humanoid_destroy(&h);
        return r;
    }
    *out = h;
    return BSYNC_OK;
}

void bsync_procedural_humanoid_destroy(bsync_procedural_humanoid* h) {
    if (!h) return;
    for (int i = 0; i < BSYNC_PROCEDURAL_CLIP_COUNT; i++) {
        bsync_clip_destroy(h->clips[i]);
        h->clips[i] = NULL;
    }
    bsync_skeleton_destroy(h->skeleton);
    h->skeleton = NULL;
}

bsync_result bsync_procedural_humanoid_full_create(const bsync_allocator* allocator,
                                                   bsync_procedural_humanoid_full* out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    bsync_procedural_humanoid_full h = {0};
    bsync_result r = build_skeleton(allocator, &h.skeleton);
    for (int i = 0; r == BSYNC_OK && i < BSYNC_PROCEDURAL_CLIP_COUNT; i++)
        r = build_clip(&k_motions[i], h.skeleton, allocator, &h.clips[i]);
    for (int i = BSYNC_PROCEDURAL_CLIP_COUNT; r == BSYNC_OK && i < BSYNC_PROCEDURAL_FULL_CLIP_COUNT; i++) {
        const extra_clip* x = &k_extras[i - BSYNC_PROCEDURAL_CLIP_COUNT];
        r = build_clip_with(x->name, x->duration_ms, x->pose, x->ctx, h.skeleton, allocator, &h.clips[i]);
    }
    if (r != BSYNC_OK) {
        bsync_procedural_humanoid_full_destroy(&h);
        return r;
    }
    *out = h;
    return BSYNC_OK;
}

void bsync_procedural_humanoid_full_destroy(bsync_procedural_humanoid_full* h) {
    if (!h) return;
    for (int i = 0; i < BSYNC_PROCEDURAL_FULL_CLIP_COUNT; i++) {
        bsync_clip_destroy(h->clips[i]);
        h->clips[i] = NULL;
    }
    bsync_skeleton_destroy(h->skeleton);
    h->skeleton = NULL;
}
