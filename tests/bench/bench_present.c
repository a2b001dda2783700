/* bench_present.c — the cost of one presentation pose (blendsync/present.h) next to the tick pose, on a
 * graph config (default: the demo's locomotion graph, scripts/demo/humanoid_locomotion.json: a 2D stick
 * blend with a nested speed blend and an upper-body override layer with a switch; 23 joints, 30 Hz).
 * Per run, three passes of 4,000 ticks over the same moving joystick path from the same start state
 * (a copy of the instance): ticks only; ticks + one bsync_instance_pose (local and model) per tick;
 * ticks + four bsync_present_pose (local and model) per tick at alpha 0.2, 0.4, 0.6, 0.8 (what 144 Hz
 * over 30 Hz asks for, 4.8 per tick). Cost per pose = (pass - ticks-only pass) / poses. Median of RUNS.
 *   build/tests/bench_present [RUNS] [CONFIG]
 * One JSON line. Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/present.h"
#include "bench_util.h"

#ifndef BSYNC_SOURCE_DIR
#define BSYNC_SOURCE_DIR "."
#endif
#define TICKS 4000
static volatile uint64_t g_sink;

typedef struct ctx {
    const bsync_graph* g;
    uint32_t params;
    void* start;   /* the instance at the start of every pass */
    void* mem;     /* the instance a pass runs */
    size_t size;
    void* scratch; /* presentation scratch */
    bsync_trs *local, *model;
} ctx;

/* mode 0: ticks only; 1: + tick pose; 2: + 4 presentation poses */
static double pass(ctx* c, int mode) {
    memcpy(c->mem, c->start, c->size);
    bsync_instance* inst = (bsync_instance*)c->mem;
    fix16_t t[16] = {0};
    bsync_instance_input in = {t, c->params};
    static const fix16_t alphas[4] = {13107, 26214, 39322, 52429};
    uint64_t acc = 0;
    const double t0 = bench_now_ns();
    for (uint32_t k = 0; k < TICKS; k++) {
        for (uint32_t i = 0; i < c->params; i++) t[i] = (fix16_t)((int32_t)(((k + 31u * i) * 977u) % 131072u) - 65536);
        bsync_instance_tick(inst, &in);
        if (mode == 1) {
            bsync_instance_pose(inst, c->local, c->model);
            acc += (uint64_t)c->local[1].r.w;
        } else if (mode == 2) {
            for (int a = 0; a < 4; a++) {
                bsync_present_pose(inst, alphas[a], c->scratch, c->size, c->local, c->model, NULL);
                acc += (uint64_t)c->local[1].r.w;
            }
        }
        acc += (uint64_t)bsync_instance_leaf_weights(inst)[0];
    }
    g_sink = acc;
    return bench_now_ns() - t0;
}

int main(int argc, char** argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 11;
    if (runs < 1) runs = 1;
    const char* path = argc > 2 ? argv[2] : BSYNC_SOURCE_DIR "/scripts/demo/humanoid_locomotion.json";
    bsync_graph_config* gc = NULL;
    bsync_error err;
    if (bsync_graph_config_load(path, NULL, &gc, NULL, &err) != BSYNC_OK) {
        fprintf(stderr, "bench_present: %s\n", err.message);
        return 1;
    }
    ctx c;
    c.g = bsync_graph_config_graph(gc);
    c.params = bsync_graph_parameter_count(c.g);
    if (c.params > 16 || bsync_graph_joint_count(c.g) == 0) return 1;
    c.size = bsync_instance_memory_size(c.g);
    const size_t alloc = (c.size + 15) & ~(size_t)15;
    c.start = malloc(alloc);
    c.mem = malloc(alloc);
    c.scratch = malloc(alloc);
    const uint32_t joints = bsync_graph_joint_count(c.g);
    c.local = malloc(sizeof(bsync_trs) * joints);
    c.model = malloc(sizeof(bsync_trs) * joints);
    bsync_instance* inst = NULL;
    if (!c.start || !c.mem || !c.scratch || !c.local || !c.model ||
        bsync_instance_init(c.start, c.size, c.g, &inst) != BSYNC_OK)
        return 1;
    double* tick_pose = malloc(sizeof(double) * (size_t)runs);
    double* present = malloc(sizeof(double) * (size_t)runs);
    double* ratio = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        const double base = pass(&c, 0);
        tick_pose[r] = (pass(&c, 1) - base) / TICKS;
        present[r] = (pass(&c, 2) - base) / (4.0 * TICKS);
        ratio[r] = present[r] / tick_pose[r];
    }
    bench_sort(tick_pose, runs);
    bench_sort(present, runs);
    bench_sort(ratio, runs);
    printf("{\"case\": \"%s\", \"joints\": %u, \"instance_bytes\": %zu, \"ns_tick_pose_median\": %.1f, "
           "\"ns_present_pose_median\": %.1f, \"present_over_tick_pose_median\": %.3f, \"runs\": %d}\n",
           path, joints, c.size, tick_pose[runs / 2], present[runs / 2], ratio[runs / 2], runs);
    free(tick_pose);
    free(present);
    free(ratio);
    free(c.local);
    free(c.model);
    free(c.start);
    free(c.mem);
    free(c.scratch);
    bsync_graph_config_destroy(gc);
    return 0;
}
