/* determinism_sweep.c — prints one XXH64 digest per area of the core over fixed pseudo-random inputs.
 * tests/cli/determinism.sh builds it (and the CLI's demo) with gcc and clang, -O0 and -O3, -m32 and
 * under sanitizers, and requires every build to print the same digests; tests/cli/platform_matrix.sh
 * runs it on the cross targets.
 * Every SIMD path this build and CPU support (blendsync/simd.h: scalar, AVX2, AVX-512, NEON) runs the
 * whole sweep in turn; the digests are printed once, and only if every path gave the same ones (else a
 * FAIL line naming the path, and exit status 1). With --paths the paths compared are listed on stderr
 * (stdout stays the same text on every machine). */
#include <stdio.h>
#include <string.h>

#include "blendsync/blend_space.h"
#include "blendsync/checksum.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/param.h"
#include "blendsync/pose.h"
#include "blendsync/present.h"
#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "blendsync/simd.h"
#include "blendsync/time.h"

/* One sweep's digest lines, in order. */
typedef struct digests {
    char text[2048];
    size_t len;
} digests;
static void emit(digests* o, const char* area, uint64_t digest) {
    int n = snprintf(o->text + o->len, sizeof o->text - o->len, "%s %016llx\n", area, (unsigned long long)digest);
    if (n > 0 && (size_t)n < sizeof o->text - o->len) o->len += (size_t)n;
}

static uint64_t rng(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* a raw value of random magnitude: full range, or below 2^k for a random k */
static fix16_t any_fx(uint64_t* s) {
    uint64_t r = rng(s);
    unsigned k = (unsigned)(r >> 58) % 32;
    uint32_t v = (uint32_t)r;
    if (k) v &= (1u << k) - 1;
    return (r >> 57) & 1 ? -(fix16_t)(v & 0x7FFFFFFF) : (fix16_t)(v & 0x7FFFFFFF);
}
static bsync_quat any_quat(uint64_t* s) {
    bsync_quat q = {(fix16_t)(int16_t)rng(s) * 2, (fix16_t)(int16_t)rng(s) * 2, (fix16_t)(int16_t)rng(s) * 2,
                    (fix16_t)(int16_t)rng(s) * 2};
    return q;
}

static int sweep(digests* o) {
    bsync_checksum_state h;
    uint64_t s = 1;

    bsync_checksum_init(&h, 0);
    for (int i = 0; i < 200000; i++) {
        fix16_t a = any_fx(&s), b = any_fx(&s);
        bsync_checksum_fx(&h, bsync_fx_mul(a, b));
        bsync_checksum_fx(&h, bsync_fx_div(a, b));
        bsync_checksum_fx(&h, bsync_fx_sqrt(a));
        bsync_checksum_fx(&h, bsync_fx_lerp(a, b, (fix16_t)(rng(&s) & 0x1FFFF)));
    }
    emit(o, "scalar", bsync_checksum_final(&h));

    bsync_checksum_init(&h, 0);
    for (int i = 0; i < 200000; i++) {
        fix16_t a = any_fx(&s), b = any_fx(&s);
        bsync_checksum_fx(&h, bsync_fx_sin(a));
        bsync_checksum_fx(&h, bsync_fx_cos(a));
        bsync_checksum_fx(&h, bsync_fx_atan2(a, b));
    }
    emit(o, "trig", bsync_checksum_final(&h));

    bsync_checksum_init(&h, 0);
    for (int i = 0; i < 100000; i++) {
        bsync_vec3 a = {any_fx(&s), any_fx(&s), any_fx(&s)}, b = {any_fx(&s), any_fx(&s), any_fx(&s)};
        bsync_quat p = any_quat(&s), q = any_quat(&s);
        bsync_checksum_fx(&h, bsync_vec3_dot(a, b));
        bsync_checksum_vec3(&h, bsync_vec3_cross(a, b));
        bsync_checksum_fx(&h, bsync_vec3_length(a));
        bsync_checksum_quat(&h, bsync_quat_normalize(p));
        bsync_checksum_quat(&h, bsync_quat_mul(p, q));
        bsync_checksum_quat(&h, bsync_quat_nlerp(p, q, (fix16_t)(rng(&s) & 0xFFFF)));
        bsync_checksum_vec3(&h, bsync_quat_rotate(bsync_quat_normalize(p), a));
    }
    emit(o, "vector", bsync_checksum_final(&h));


    /* every blend-space type on random layouts (a jittered 3x3 grid) at random parameter points */
    bsync_checksum_init(&h, 0);
    for (int type = 0; type < BSYNC_BLEND_TYPE_COUNT; type++) {
        for (int layout = 0; layout < 40; layout++) {
            bsync_vec2 pos[9];
            fix16_t thr[9];
            for (int i = 0; i < 9; i++) {
                pos[i].x = (fix16_t)((i % 3 - 1) * 65536 + (int32_t)(rng(&s) % 20000) - 10000);
                pos[i].y = (fix16_t)((i / 3 - 1) * 65536 + (int32_t)(rng(&s) % 20000) - 10000);
                thr[i] = (fix16_t)(i * 30000 + (int32_t)(rng(&s) % 20000));
            }
            if (type == BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D || type == BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D)
                pos[4].x = pos[4].y = 0; /* a centre motion */
            bsync_blend_space_desc d = {(bsync_blend_type)type, 9, thr, pos, (uint32_t)(layout % 8) + 1, layout & 1};
            bsync_blend_space* bs = NULL;
            if (bsync_blend_space_create(&d, NULL, &bs, NULL) != BSYNC_OK) {
                bsync_checksum_u32(&h, 0xDEAD);
                continue;
            }
            for (int k = 0; k < 200; k++) {
                fix16_t p[9], w[9];
                for (int i = 0; i < 9; i++) p[i] = (fix16_t)((int32_t)(rng(&s) % 262144) - 131072);
                if (bsync_blend_space_eval(bs, p, bsync_blend_space_param_count(bs), w) != BSYNC_OK) return 2;
                for (int i = 0; i < 9; i++) bsync_checksum_fx(&h, w[i]);
            }
            bsync_blend_space_destroy(bs);
        }
    }
    emit(o, "blend", bsync_checksum_final(&h));


    /* parameter filters: dead zone + SmoothDamp, scalar and 2D, over random target sequences */
    bsync_checksum_init(&h, 0);
    for (int f = 0; f < 60; f++) {
        bsync_param_filter_desc fd = {(fix16_t)(rng(&s) % 20000), 0, NULL, (fix16_t)(rng(&s) % 80000) + 1,
                                      (fix16_t)(rng(&s) % 400000), (uint32_t)(f & 1)};
        bsync_param_filter pf;
        if (bsync_param_filter_init(&pf, &fd, 30u + (uint32_t)(f % 4) * 10u) != BSYNC_OK) return 2;
        bsync_param_state ps;
        bsync_param_state_init(&pf, &ps, 0, 0);
        fix16_t tx = 0, ty = 0;
        for (int k = 0; k < 600; k++) {
            if (k % 50 == 0) {
                tx = (fix16_t)((int32_t)(rng(&s) % 400000) - 200000);
                ty = (fix16_t)((int32_t)(rng(&s) % 400000) - 200000);
            }
            int changed = 0;
            if (fd.pair) bsync_param_filter_step_2d(&pf, &ps, tx, ty, &changed);
            else bsync_param_filter_step(&pf, &ps, tx, &changed);
            bsync_checksum_u32(&h, (uint32_t)changed);
            bsync_param_checksum_feed(&ps, &h);
        }
    }
    emit(o, "filters", bsync_checksum_final(&h));

    /* the humanoid: every clip sampled at 2000 times, blended, to model space */
    bsync_procedural_humanoid hum;
    if (bsync_procedural_humanoid_create(NULL, &hum) != BSYNC_OK) return 2;
    emit(o, "skeleton", bsync_checksum_skeleton(hum.skeleton));
    bsync_checksum_init(&h, 0);
    for (int c = 0; c < BSYNC_PROCEDURAL_CLIP_COUNT; c++) bsync_checksum_u64(&h, bsync_checksum_clip(hum.clips[c]));
    emit(o, "clips", bsync_checksum_final(&h));

    enum { N = 23 };
    if (bsync_skeleton_joint_count(hum.skeleton) != N) return 2;
    const bsync_trs* rest = bsync_skeleton_rest_pose(hum.skeleton);
    bsync_trs local[3][N], blended[N], model[N];
    bsync_clip_time t = bsync_time_start();
    bsync_time_step step;
    bsync_time_step_init(bsync_clip_duration(hum.clips[1]), 75000, 60, &step);
    bsync_checksum_init(&h, 0);
    for (int i = 0; i < 2000; i++) {
        bsync_pose_input in[3];
        for (int c = 0; c < 3; c++) {
            fix16_t d = bsync_clip_duration(hum.clips[c]);
            bsync_clip_sample(hum.clips[c], bsync_time_seconds(&t, d, BSYNC_LOOP_WRAP), BSYNC_LOOP_WRAP, rest, N,
                              NULL, local[c]);
            in[c].local = local[c];
            in[c].weight = (fix16_t)(rng(&s) & 0xFFFF);
            in[c].joint_weights = NULL;
        }
        bsync_pose_blend(rest, N, in, 3, blended);
        bsync_pose_local_to_model(bsync_skeleton_parents(hum.skeleton), N, blended, 0, N, model);
        bsync_checksum_u64(&h, bsync_checksum_pose(model, N));
        bsync_time_advance(&t, &step);
    }
    emit(o, "poses", bsync_checksum_final(&h));

    /* pose rule 2 (graph.h): the lerp samplers and bsync_pose_blend_lerped over the same kind of blends,
     * then a graph made with the rule (speed over idle, walk, run), its pose checksums per tick */
    {
        uint64_t s2 = 0x72756c6532ull; /* its own generator: the other areas' inputs stay as they were */
        bsync_clip_time t2 = bsync_time_start();
        bsync_checksum_init(&h, 0);
        for (int i = 0; i < 2000; i++) {
            bsync_pose_input in[3];
            for (int c = 0; c < 3; c++) {
                fix16_t d = bsync_clip_duration(hum.clips[c]);
                bsync_clip_sample_lerp(hum.clips[c], bsync_time_seconds(&t2, d, BSYNC_LOOP_WRAP), BSYNC_LOOP_WRAP, rest, N,
                                       NULL, local[c]);
                bsync_checksum_u64(&h, bsync_checksum_pose(local[c], N));
                in[c].local = local[c];
                in[c].weight = i % 7 == 0 && c > 0 ? 0 : (fix16_t)(rng(&s2) & 0xFFFF); /* some single-input copies */
                in[c].joint_weights = NULL;
            }
            if (i % 7 == 0) in[0].weight = 65536;
            bsync_pose_blend_lerped(rest, N, in, 3, blended);
            bsync_checksum_u64(&h, bsync_checksum_pose(blended, N));
            bsync_time_advance(&t2, &step);
        }
        static const char* pn2[1] = {"speed"};
        static const char* mn2[3] = {"idle", "walk", "run"};
        fix16_t th2[3] = {0, BSYNC_PROCEDURAL_SPEED_WALK, 2 * BSYNC_PROCEDURAL_SPEED_WALK};
        bsync_blend_child_ref r2[3] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
        uint32_t p2[1] = {0};
        bsync_blend_node_desc nd2[1] = {{"loco", {BSYNC_BLEND_SIMPLE_1D, 3, th2, NULL, 0, 0}, r2, p2, 0}};
        bsync_blend_tree_desc td2 = {pn2, NULL, 1, mn2, 3, nd2, 1, 0};
        bsync_blend_tree* tree2 = NULL;
        if (bsync_blend_tree_create(&td2, NULL, &tree2, NULL, NULL) != BSYNC_OK) return 2;
        const bsync_clip* clips2[3] = {hum.clips[0], hum.clips[1], hum.clips[2]};
        bsync_graph_desc gd2;
        memset(&gd2, 0, sizeof gd2);
        gd2.tree = tree2;
        gd2.skeleton = hum.skeleton;
        gd2.clips = clips2;
        gd2.tick_rate = 60;
        gd2.pose_rule = BSYNC_POSE_RULE_LERPED;
        bsync_graph* g2 = NULL;
        if (bsync_graph_create(&gd2, NULL, &g2) != BSYNC_OK) return 2;
        static uint64_t inst_mem2[4096];
        bsync_instance* inst2 = NULL;
        if (bsync_instance_memory_size(g2) > sizeof inst_mem2 ||
            bsync_instance_init(inst_mem2, sizeof inst_mem2, g2, &inst2) != BSYNC_OK)
            return 2;
        bsync_checksum_u64(&h, bsync_graph_hash(g2));
        fix16_t tg2[1] = {0};
        bsync_instance_input in2 = {tg2, 1};
        for (int k = 0; k < 600; k++) {
            if (k % 40 == 0) tg2[0] = (fix16_t)(rng(&s2) % 300000);
            if (bsync_instance_tick(inst2, &in2) != BSYNC_OK) return 2;
            uint64_t pose = 0;
            if (bsync_instance_pose_checksum(inst2, &pose, NULL) != BSYNC_OK) return 2;
            bsync_checksum_u64(&h, pose);
        }
        bsync_graph_destroy(g2);
        bsync_blend_tree_destroy(tree2);
        emit(o, "rule2", bsync_checksum_final(&h));
    }

    /* a graph instance on the humanoid (speed 1D over idle and a walk/run 1D on turn), SmoothDamp on
     * speed, root motion extracted (yaw and full): state, root-motion and pose checksums per tick */
    {
        static const char* pn[2] = {"speed", "turn"};
        static const char* mn[3] = {"idle", "walk", "run"};
        fix16_t th_root[2] = {0, BSYNC_PROCEDURAL_SPEED_WALK}, th_move[2] = {-65536, 65536};
        bsync_blend_child_ref r_root[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_NODE, 1}};
        bsync_blend_child_ref r_move[2] = {{BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
        uint32_t p_root[1] = {0}, p_move[1] = {1};
        bsync_blend_node_desc nd[2] = {
            {"loco", {BSYNC_BLEND_SIMPLE_1D, 2, th_root, NULL, 0, 0}, r_root, p_root, 0},
            {"move", {BSYNC_BLEND_SIMPLE_1D, 2, th_move, NULL, 0, 0}, r_move, p_move, 0}};
        bsync_blend_tree_desc td = {pn, NULL, 2, mn, 3, nd, 2, 0};
        bsync_blend_tree* tree = NULL;
        if (bsync_blend_tree_create(&td, NULL, &tree, NULL, NULL) != BSYNC_OK) return 2;
        bsync_param_filter_desc f[2] = {{0, 0, NULL, 19661, 0, 0}, {0, 0, NULL, 0, 0, 0}};
        const bsync_clip* clips[3] = {hum.clips[0], hum.clips[1], hum.clips[2]};
        bsync_checksum_init(&h, 0);
        /* presentation poses between the ticks (present.h): clocks advanced by a fraction of a step in
         * 128-bit integer arithmetic, a copy in scratch; their own digest line */
        bsync_checksum_state hp;
        bsync_checksum_init(&hp, 0);
        static uint64_t present_mem[4096];
        bsync_trs present_pose[64];
        uint64_t sp = 0x70726573656e74ull; /* alphas: their own generator (the inputs' stays as it was) */
        for (int mode = 0; mode < 2; mode++) {
            bsync_graph_desc gd = {tree, hum.skeleton, clips, 30, f, NULL, BSYNC_ROOT_MOTION_EXTRACT,
                                   mode ? BSYNC_ROOT_ROTATION_FULL : BSYNC_ROOT_ROTATION_YAW, 0, NULL, 0, NULL, 0,
                                   BSYNC_POSE_RULE_NORMALIZED, NULL};
            bsync_graph* g = NULL;
            if (bsync_graph_create(&gd, NULL, &g) != BSYNC_OK) return 2;
            static uint64_t inst_mem[4096];
            bsync_instance* inst = NULL;
            if (bsync_instance_memory_size(g) > sizeof inst_mem ||
                bsync_instance_init(inst_mem, sizeof inst_mem, g, &inst) != BSYNC_OK)
                return 2;
            bsync_checksum_u64(&h, bsync_graph_hash(g));
            fix16_t tg[2] = {0, 0};
            bsync_instance_input in = {tg, 2};
            for (int k = 0; k < 600; k++) {
                if (k % 40 == 0) {
                    tg[0] = (fix16_t)(rng(&s) % 300000);
                    tg[1] = (fix16_t)((int32_t)(rng(&s) % 131072) - 65536);
                }
                if (bsync_instance_tick(inst, &in) != BSYNC_OK) return 2;
                bsync_root_motion rm;
                bsync_instance_root_motion(inst, &rm);
                uint64_t pose = 0;
                if (bsync_instance_pose_checksum(inst, &pose, NULL) != BSYNC_OK) return 2;
                bsync_checksum_u64(&h, bsync_instance_state_checksum(inst));
                bsync_checksum_vec3(&h, rm.translation);
                bsync_checksum_quat(&h, rm.rotation);
                bsync_checksum_u64(&h, pose);
                const fix16_t alphas[3] = {(fix16_t)(rng(&sp) % 65536), (fix16_t)(65536 + rng(&sp) % 131072), 65536};
                for (int a = 0; a < 3; a++) {
                    bsync_root_motion pr;
                    if (bsync_skeleton_joint_count(hum.skeleton) > 64 ||
                        bsync_present_pose(inst, alphas[a], present_mem, sizeof present_mem, present_pose, NULL, &pr) !=
                            BSYNC_OK)
                        return 2;
                    bsync_checksum_u64(&hp, bsync_checksum_pose(present_pose, bsync_skeleton_joint_count(hum.skeleton)));
                    bsync_checksum_vec3(&hp, pr.translation);
                    bsync_checksum_quat(&hp, pr.rotation);
                }
            }
            bsync_graph_destroy(g);
        }
        bsync_blend_tree_destroy(tree);
        emit(o, "instance", bsync_checksum_final(&h));
        emit(o, "present", bsync_checksum_final(&hp));
    }

    /* clips with uneven keys (every track its own key count and times, as imported clips have, unlike
     * the humanoid's shared grid): sampled through a sample plan with a cursor and without either (the
     * two must agree bit for bit), then blended with weights that sum below, to and above one */
    {
        enum { CLIPS = 3, KEYS = 12 };
        static fix16_t times[CLIPS][N * 3][KEYS];
        static bsync_quat quats[CLIPS][N][KEYS];
        static bsync_vec3 vecs[CLIPS][N * 2][KEYS];
        static bsync_raw_track tracks[CLIPS][N * 3];
        static uint64_t clip_mem[CLIPS][8192], plan_mem[CLIPS][1024], cursor_mem[CLIPS][512];
        bsync_clip* uc[CLIPS];
        bsync_sample_plan* plan[CLIPS];
        bsync_sample_cursor* cur[CLIPS];
        const fix16_t duration = 2 * 65536;
        for (int c = 0; c < CLIPS; c++) {
            uint32_t nt = 0;
            for (uint32_t j = 0; j < N; j++) {
                for (int kind = 0; kind < 3; kind++) {
                    if (kind != BSYNC_TRACK_ROTATION && rng(&s) % 3u != 0u) continue; /* most joints rotate only */
                    uint32_t keys = 1u + (uint32_t)(rng(&s) % KEYS);
                    fix16_t* tk = times[c][nt];
                    fix16_t at = 0;
                    for (uint32_t k = 0; k < keys; k++) { /* ascending in [0, duration] */
                        at += (fix16_t)(1 + rng(&s) % (uint64_t)(duration / KEYS));
                        tk[k] = at;
                    }
                    for (uint32_t k = 0; k < keys; k++) {
                        if (kind == BSYNC_TRACK_ROTATION) {
                            bsync_quat q = any_quat(&s);
                            if (!q.x && !q.y && !q.z && !q.w) q.w = 65536;
                            quats[c][j][k] = q;
                        } else {
                            fix16_t base = kind == BSYNC_TRACK_SCALE ? 65536 : 0;
                            bsync_vec3 v = {base + (fix16_t)(int16_t)rng(&s), base + (fix16_t)(int16_t)rng(&s),
                                            base + (fix16_t)(int16_t)rng(&s)};
                            vecs[c][j * 2u + (kind == BSYNC_TRACK_SCALE)][k] = v;
                        }
                    }
                    bsync_raw_track t = {j, (bsync_track_kind)kind, keys, tk, NULL, NULL};
                    if (kind == BSYNC_TRACK_ROTATION) t.quats = quats[c][j];
                    else t.vec3s = vecs[c][j * 2u + (kind == BSYNC_TRACK_SCALE)];
                    tracks[c][nt++] = t;
                }
            }
            bsync_clip_desc cd = {"uneven", duration, 1, tracks[c], nt};
            if (bsync_clip_memory_size(&cd, hum.skeleton) > sizeof clip_mem[c] ||
                bsync_clip_init(clip_mem[c], sizeof clip_mem[c], &cd, hum.skeleton, &uc[c]) != BSYNC_OK ||
                bsync_sample_plan_memory_size(uc[c]) > sizeof plan_mem[c] ||
                bsync_sample_plan_init(plan_mem[c], sizeof plan_mem[c], uc[c], rest, N, &plan[c]) != BSYNC_OK ||
                bsync_sample_cursor_memory_size(uc[c]) > sizeof cursor_mem[c] ||
                bsync_sample_cursor_init(cursor_mem[c], sizeof cursor_mem[c], uc[c], &cur[c]) != BSYNC_OK)
                return 2;
        }
        bsync_trs plain[N];
        bsync_checksum_init(&h, 0);
        fix16_t at = 0;
        for (int i = 0; i < 2000; i++) {
            at += (fix16_t)(rng(&s) % 4000u); /* forward, sometimes in place: the cursor's common case */
            if (i % 250 == 249) at -= (fix16_t)(rng(&s) % 40000u); /* and a jump back now and then */
            bsync_pose_input in[CLIPS];
            for (int c = 0; c < CLIPS; c++) {
                if (bsync_clip_sample_planned(plan[c], uc[c], at, BSYNC_LOOP_WRAP, cur[c], local[c]) != BSYNC_OK ||
                    bsync_clip_sample(uc[c], at, BSYNC_LOOP_WRAP, rest, N, NULL, plain) != BSYNC_OK)
                    return 2;
                if (bsync_checksum_pose(plain, N) != bsync_checksum_pose(local[c], N)) {
                    fprintf(stderr, "determinism_sweep: planned and plain sampling differ at step %d\n", i);
                    return 3;
                }
                in[c].local = local[c];
                in[c].weight = (fix16_t)(rng(&s) % 50000u); /* three of them: sums from 0 to about 2.3 */
                in[c].joint_weights = NULL;
            }
            bsync_pose_blend(rest, N, in, CLIPS, blended);
            bsync_checksum_u64(&h, bsync_checksum_pose(blended, N));
        }
        emit(o, "tracks", bsync_checksum_final(&h));
    }
    bsync_procedural_humanoid_destroy(&hum);
    return 0;
}

int main(int argc, char** argv) {
    static const bsync_simd_path paths[] = {BSYNC_SIMD_SCALAR, BSYNC_SIMD_AVX2, BSYNC_SIMD_AVX512, BSYNC_SIMD_NEON};
    static digests first, other;
    int have_first = 0, status = 0;
    const int list = argc > 1 && strcmp(argv[1], "--paths") == 0;
    if (list) fprintf(stderr, "determinism_sweep: simd paths compared:");
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        if (!bsync_simd_supported(paths[p]) || bsync_simd_set(paths[p]) != BSYNC_OK) continue;
        if (list) fprintf(stderr, " %s", bsync_simd_path_name(paths[p]));
        digests* d = have_first ? &other : &first;
        d->len = 0;
        int r = sweep(d);
        if (r != 0) {
            printf("FAIL simd path %s: the sweep stopped with status %d\n", bsync_simd_path_name(paths[p]), r);
            return 1;
        }
        if (have_first && strcmp(first.text, other.text) != 0) {
            printf("FAIL simd path %s differs from %s:\n%s", bsync_simd_path_name(paths[p]), bsync_simd_path_name(paths[0]),
                   other.text);
            status = 1;
        }
        have_first = 1;
    }
    if (list) fprintf(stderr, "\n");
    fputs(first.text, stdout);
    return status;
}
