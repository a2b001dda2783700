/* cli_markers.c — `blendsync validate CONFIG --suggest-markers`: proposes foot sync markers for each
 * bound clip of a graph config from its feet's heights and speeds (docs/actions.md "Sync markers").
 *
 * Feet: joints whose name contains "foot" (any case), the side from "_l" / "left" / "l_" (left) or "_r"
 * / "right" / "r_" (right); toes and foot ends excluded ("toe", "end"). Each clip is sampled at 64
 * evenly spaced times over its duration (bsync_clip_sample, WRAP), in model space relative to the
 * root joint (the root's own motion removed). For each foot, per sample: height h (model Y) and
 * horizontal speed v (the distance in X/Z to the next sample, cyclic). A foot is planted where it is
 * low and slow: the marker is the sample minimising (h - hmin)/(hmax - hmin) + (v - vmin)/(vmax - vmin)
 * (the first one on ties), named foot_l / foot_r. An analysis tool: doubles from the fixed-point poses,
 * printed with 3 decimals; nothing simulated reads it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/graph.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/pose.h"
#include "blendsync/sample.h"
#include "blendsync/skeleton.h"
#include "cli_markers.h"

#define SAMPLES 64

static int contains_ci(const char* s, const char* w) {
    const size_t n = strlen(w);
    for (; *s; s++) {
        size_t k = 0;
        while (k < n && s[k] && (s[k] | 32) == (w[k] | 32)) k++;
        if (k == n) return 1;
    }
    return 0;
}

/* -1 not a foot, 0 left, 1 right */
static int foot_side(const char* name) {
    if (!contains_ci(name, "foot") || contains_ci(name, "toe") || contains_ci(name, "end")) return -1;
    if (contains_ci(name, "_l") || contains_ci(name, "left") || contains_ci(name, "l_")) return 0;
    if (contains_ci(name, "_r") || contains_ci(name, "right") || contains_ci(name, "r_")) return 1;
    return -1;
}

static double fx(fix16_t v) { return (double)v / 65536.0; }

int bsync_cli_suggest_markers(const char* config, FILE* out) {
    bsync_graph_config* gc = NULL;
    bsync_error err;
    if (bsync_graph_config_load(config, NULL, &gc, NULL, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync validate: %s\n", err.message);
        return 2;
    }
    const bsync_graph* g = bsync_graph_config_graph(gc);
    const bsync_skeleton* sk = bsync_graph_skeleton(g);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
    if (!sk) {
        fprintf(out, "suggested markers: none (no clip is bound)\n");
        bsync_graph_config_destroy(gc);
        return 0;
    }
    const uint32_t J = bsync_skeleton_joint_count(sk);
    int32_t foot[2] = {-1, -1};
    for (uint32_t j = 0; j < J; j++) {
        const int side = foot_side(bsync_skeleton_joint_name(sk, j));
        if (side >= 0 && foot[side] < 0) foot[side] = (int32_t)j;
    }
    bsync_trs* local = malloc(sizeof(bsync_trs) * J);
    bsync_trs* model = malloc(sizeof(bsync_trs) * J);
    double(*pos)[2][3] = malloc(sizeof(double[2][3]) * SAMPLES);
    if (!local || !model || !pos) {
        free(local), free(model), free(pos);
        bsync_graph_config_destroy(gc);
        fprintf(stderr, "blendsync validate: out of memory\n");
        return 2;
    }
    int status = 0;
    if (foot[0] < 0 && foot[1] < 0) fprintf(out, "suggested markers: no foot joints (names with \"foot\" and a side)\n");
    for (uint32_t m = 0; m < bsync_graph_motion_count(g) && (foot[0] >= 0 || foot[1] >= 0); m++) {
        const bsync_clip* clip = bsync_graph_motion_clip(g, m);
        const fix16_t dur = clip ? bsync_clip_duration(clip) : 0;
        if (dur <= 0) continue;
        for (int i = 0; i < SAMPLES; i++) {
            const fix16_t t = (fix16_t)(((int64_t)dur * i) / SAMPLES);
            if (bsync_clip_sample(clip, t, BSYNC_LOOP_WRAP, bsync_skeleton_rest_pose(sk), J, NULL, local) != BSYNC_OK ||
                bsync_pose_local_to_model(bsync_skeleton_parents(sk), J, local, 0, J, model) != BSYNC_OK) {
                status = 2;
                break;
            }
            for (int s = 0; s < 2; s++) {
                if (foot[s] < 0) continue;
                const bsync_vec3 p = model[foot[s]].t, r = model[0].t;
                pos[i][s][0] = fx(p.x) - fx(r.x);
                pos[i][s][1] = fx(p.y);
                pos[i][s][2] = fx(p.z) - fx(r.z);
            }
        }
        if (status) break;
        fprintf(out, "suggested markers for %s (%.3f s):", bsync_blend_tree_motion_name(tree, m), fx(dur));
        for (int s = 0; s < 2; s++) {
            if (foot[s] < 0) continue;
            double h[SAMPLES], v[SAMPLES], hmin = 1e300, hmax = -1e300, vmin = 1e300, vmax = -1e300;
            for (int i = 0; i < SAMPLES; i++) {
                const int n = (i + 1) % SAMPLES;
                h[i] = pos[i][s][1];
                v[i] = hypot(pos[n][s][0] - pos[i][s][0], pos[n][s][2] - pos[i][s][2]);
                hmin = fmin(hmin, h[i]), hmax = fmax(hmax, h[i]), vmin = fmin(vmin, v[i]), vmax = fmax(vmax, v[i]);
            }
            int best = 0;
            double best_score = 1e300;
            for (int i = 0; i < SAMPLES; i++) {
                const double score = (hmax > hmin ? (h[i] - hmin) / (hmax - hmin) : 0) + (vmax > vmin ? (v[i] - vmin) / (vmax - vmin) : 0);
                if (score < best_score) best_score = score, best = i;
            }
            fprintf(out, " %s %.3f s", s == 0 ? "foot_l" : "foot_r", fx(dur) * best / SAMPLES);
        }
        fprintf(out, "\n");
    }
    free(local), free(model), free(pos);
    bsync_graph_config_destroy(gc);
    return status;
}
