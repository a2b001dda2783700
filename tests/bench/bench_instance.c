/* bench_instance.c — a graph instance on the procedural humanoid (root Simple1D speed over idle and a
 * "move" Simple1D(turn) node over walk and run; speed with SmoothDamp 0.3 s; 30 Hz): the instance size,
 * and the median ns per tick of the blend state alone and of state + pose (local and model), with
 * inputs that change every tick (worst case for the dirty flags); the same graph with root motion KEEP
 * (the two first numbers) and EXTRACT (yaw; the delta is computed every tick, then read). One JSON
 * line. Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/procedural.h"

#define TICKS 20000
static volatile uint64_t g_sink;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
static int cmp_double(const void* x, const void* y) {
    double a = *(const double*)x, b = *(const double*)y;
    return (a > b) - (a < b);
}

static double run(bsync_instance* inst, int with_pose, bsync_trs* local, bsync_trs* model) {
    fix16_t t[2];
    bsync_instance_input in = {t, 2};
    uint64_t acc = 0;
    double t0 = now_ns();
    for (uint32_t k = 0; k < TICKS; k++) {
        t[0] = (fix16_t)((k * 977u) % 262144u); /* 0 .. 4 m/s */
        t[1] = (fix16_t)((int32_t)((k * 2731u) % 131072u) - 65536);
        bsync_instance_tick(inst, &in);
        bsync_root_motion rm;
        bsync_instance_root_motion(inst, &rm);
        acc += (uint64_t)rm.translation.z;
        if (with_pose) {
            bsync_instance_pose(inst, local, model);
            acc += (uint64_t)local[5].r.w;
        }
        acc += (uint64_t)bsync_instance_leaf_weights(inst)[1];
    }
    g_sink = acc;
    return (now_ns() - t0) / TICKS;
}

int main(int argc, char** argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 11;
    if (runs < 1) runs = 1;
    bsync_procedural_humanoid h;
    if (bsync_procedural_humanoid_create(NULL, &h) != BSYNC_OK) return 1;
    static const char* pn[2] = {"speed", "turn"};
    static const char* mn[3] = {"idle", "walk", "run"};
    fix16_t th_root[2] = {0, BSYNC_PROCEDURAL_SPEED_WALK}, th_move[2] = {-65536, 65536};
    bsync_blend_child_ref r_root[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_NODE, 1}};
    bsync_blend_child_ref r_move[2] = {{BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    uint32_t p_root[1] = {0}, p_move[1] = {1};
    bsync_blend_node_desc nodes[2];
    memset(nodes, 0, sizeof nodes);
    nodes[0].name = "loco"; nodes[0].space.type = BSYNC_BLEND_SIMPLE_1D; nodes[0].space.child_count = 2;
    nodes[0].space.thresholds = th_root; nodes[0].children = r_root; nodes[0].params = p_root;
    nodes[1].name = "move"; nodes[1].space.type = BSYNC_BLEND_SIMPLE_1D; nodes[1].space.child_count = 2;
    nodes[1].space.thresholds = th_move; nodes[1].children = r_move; nodes[1].params = p_move;
    bsync_blend_tree_desc td = {pn, NULL, 2, mn, 3, nodes, 2, 0};
    bsync_blend_tree* tree = NULL;
    if (bsync_blend_tree_create(&td, NULL, &tree, NULL, NULL) != BSYNC_OK) return 1;
    bsync_param_filter_desc f[2];
    memset(f, 0, sizeof f);
    f[0].smooth_time = 19661;
    const bsync_clip* clips[3] = {h.clips[0], h.clips[1], h.clips[2]};
    bsync_graph_desc gd = {tree, h.skeleton, clips, 30, f, NULL, BSYNC_ROOT_MOTION_KEEP, BSYNC_ROOT_ROTATION_YAW, 0, NULL, 0, NULL, 0, BSYNC_POSE_RULE_NORMALIZED, NULL};
    bsync_graph* g = NULL;
    if (bsync_graph_create(&gd, NULL, &g) != BSYNC_OK) return 1;
    gd.root_motion = BSYNC_ROOT_MOTION_EXTRACT;
    bsync_graph* ge = NULL;
    if (bsync_graph_create(&gd, NULL, &ge) != BSYNC_OK) return 1;
    size_t sz = bsync_instance_memory_size(g), sze = bsync_instance_memory_size(ge);
    void* mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    void* meme = aligned_alloc(8, (sze + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    bsync_instance* inste = NULL;
    if (bsync_instance_init(mem, sz, g, &inst) != BSYNC_OK) return 1;
    if (bsync_instance_init(meme, sze, ge, &inste) != BSYNC_OK) return 1;
    bsync_trs local[23], model[23];
    double* a = malloc(sizeof(double) * (size_t)runs);
    double* b = malloc(sizeof(double) * (size_t)runs);
    double* c = malloc(sizeof(double) * (size_t)runs);
    double* e = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        a[r] = run(inst, 0, local, model);
        b[r] = run(inst, 1, local, model);
        c[r] = run(inste, 0, local, model);
        e[r] = run(inste, 1, local, model);
    }
    qsort(a, (size_t)runs, sizeof(double), cmp_double);
    qsort(b, (size_t)runs, sizeof(double), cmp_double);
    qsort(c, (size_t)runs, sizeof(double), cmp_double);
    qsort(e, (size_t)runs, sizeof(double), cmp_double);
    printf("{\"case\": \"humanoid speed+turn graph, 30 Hz\", \"joints\": 23, \"instance_bytes\": %zu, "
           "\"snapshot_bytes\": %zu, \"ns_per_tick_state_median\": %.1f, \"ns_per_tick_state_pose_median\": %.1f, "
           "\"ns_per_tick_state_extract_median\": %.1f, \"ns_per_tick_state_pose_extract_median\": %.1f, "
           "\"runs\": %d}\n",
           sz, bsync_instance_snapshot_size(g), a[runs / 2], b[runs / 2], c[runs / 2], e[runs / 2], runs);
    free(a);
    free(b);
    free(c);
    free(e);
    free(mem);
    free(meme);
    bsync_graph_destroy(g);
    bsync_graph_destroy(ge);
    bsync_blend_tree_destroy(tree);
    bsync_procedural_humanoid_destroy(&h);
    return 0;
}
