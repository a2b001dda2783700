/* bench_demo_graph.c — the demo's locomotion graph (scripts/demo/humanoid_locomotion.json, docs/demo.md:
 * a 2D stick blend with a nested speed blend, an upper-body override layer whose Switch plays wave or
 * punch) on the built-in humanoid at 30 Hz: the instance size, and the median ns per tick of the blend
 * state alone and of state + pose (local and model), over a joystick path that moves every tick and
 * an action triggered every 2 seconds (fade 6 ticks), for N runs of 20,000 ticks.
 *   build/tests/bench_demo_graph [RUNS] [CONFIG]   (CONFIG default: the source tree's demo graph)
 * One JSON line. Not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"

#ifndef BSYNC_SOURCE_DIR
#define BSYNC_SOURCE_DIR "."
#endif
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

typedef struct setup {
    const bsync_graph* g;
    uint32_t params, ix, iy, is, sw;
} setup;

static double run(const setup* s, bsync_instance* inst, int with_pose, bsync_trs* local, bsync_trs* model) {
    fix16_t t[16] = {0};
    bsync_instance_input in = {t, s->params};
    uint64_t acc = 0;
    double t0 = now_ns();
    for (uint32_t k = 0; k < TICKS; k++) {
        t[s->ix] = (fix16_t)((int32_t)((k * 977u) % 131072u) - 65536); /* -1 .. 1 */
        t[s->iy] = (fix16_t)((int32_t)((k * 2731u) % 131072u) - 65536);
        t[s->is] = (fix16_t)((k * 1553u) % 229376u); /* 0 .. 3.5 m/s */
        bsync_switch_trigger tr;
        memset(&tr, 0, sizeof tr);
        tr.switch_index = s->sw;
        tr.child = (k / 60u) % 3u; /* move, wave, punch in turn, every 2 s */
        tr.fade_ticks = 6;
        uint32_t n = (k % 60u == 0 && s->sw != UINT32_MAX) ? 1u : 0u;
        bsync_instance_tick_ex(inst, &in, &tr, n);
        if (with_pose) {
            bsync_instance_pose(inst, local, model);
            acc += (uint64_t)local[5].r.w;
        }
        acc += (uint64_t)bsync_instance_leaf_weights(inst)[1];
    }
    g_sink = acc;
    return (now_ns() - t0) / TICKS;
}

static uint32_t param_index(const bsync_blend_tree* tree, const char* name) {
    for (uint32_t i = 0; i < bsync_blend_tree_parameter_count(tree); i++)
        if (!strcmp(bsync_blend_tree_parameter_name(tree, i), name)) return i;
    return 0;
}

int main(int argc, char** argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 11;
    if (runs < 1) runs = 1;
    const char* path = argc > 2 ? argv[2] : BSYNC_SOURCE_DIR "/scripts/demo/humanoid_locomotion.json";
    bsync_graph_config* gc = NULL;
    bsync_error err;
    if (bsync_graph_config_load(path, NULL, &gc, NULL, &err) != BSYNC_OK) {
        fprintf(stderr, "bench_demo_graph: %s\n", err.message);
        return 1;
    }
    setup s;
    s.g = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
    s.params = bsync_graph_parameter_count(s.g);
    if (s.params > 16) return 1;
    s.ix = param_index(tree, "move_x");
    s.iy = param_index(tree, "move_y");
    s.is = param_index(tree, "speed");
    s.sw = bsync_graph_switch_count(s.g) > 0 ? 0u : UINT32_MAX;
    size_t sz = bsync_instance_memory_size(s.g);
    void* mem = aligned_alloc(16, (sz + 15) & ~(size_t)15);
    bsync_instance* inst = NULL;
    if (!mem || bsync_instance_init(mem, sz, s.g, &inst) != BSYNC_OK) return 1;
    uint32_t joints = bsync_graph_joint_count(s.g);
    bsync_trs* local = malloc(sizeof(bsync_trs) * joints);
    bsync_trs* model = malloc(sizeof(bsync_trs) * joints);
    double* a = malloc(sizeof(double) * (size_t)runs);
    double* b = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) {
        a[r] = run(&s, inst, 0, local, model);
        b[r] = run(&s, inst, 1, local, model);
    }
    qsort(a, (size_t)runs, sizeof(double), cmp_double);
    qsort(b, (size_t)runs, sizeof(double), cmp_double);
    printf("{\"case\": \"demo locomotion graph (2D stick + speed, upper-body layer with a switch), 30 Hz\", "
           "\"joints\": %u, \"motions\": %u, \"nodes\": %u, \"instance_bytes\": %zu, \"snapshot_bytes\": %zu, "
           "\"ns_per_tick_state_median\": %.1f, \"ns_per_tick_state_pose_median\": %.1f, \"runs\": %d}\n",
           joints, bsync_graph_motion_count(s.g), bsync_graph_node_count(s.g), sz, bsync_instance_snapshot_size(s.g),
           a[runs / 2], b[runs / 2], runs);
    free(a);
    free(b);
    free(local);
    free(model);
    free(mem);
    bsync_graph_config_destroy(gc);
    return 0;
}
