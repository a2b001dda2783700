/* bench_core.c — timings of the core's hot operations, one JSON line per case (median of runs).
 * Not a test: run build/tests/bench_core [runs] on a quiet machine; results go to docs/benchmarks.md.
 * Cases: bsync_fx_mul/div/sqrt against libfixmath's fix16_mul/div/sqrt (Debian's unoptimised .a) on
 * the same inputs; sampling + blending + local-to-model + checksum of the 23-joint humanoid per tick. */
#include <stdio.h>
#include <stdlib.h>

#include <libfixmath/fix16.h>

#include "blendsync/checksum.h"
#include "blendsync/fixed.h"
#include "blendsync/pose.h"
#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "blendsync/time.h"

#include "bench_util.h"

#define OPS 4000000
static fix16_t g_a[4096], g_b[4096];
static volatile int64_t g_sink;

#define OP_BENCH(fn_name, expr)                                                \
    static double fn_name(void) {                                              \
        int64_t acc = 0;                                                       \
        double t0 = bench_now_ns();                                                  \
        for (int i = 0; i < OPS; i++) {                                        \
            fix16_t a = g_a[i & 4095], b = g_b[i & 4095];                      \
            (void)b;                                                           \
            acc += (expr);                                                     \
        }                                                                      \
        g_sink = acc;                                                          \
        return (bench_now_ns() - t0) / OPS;                                          \
    }
OP_BENCH(bench_bsync_mul, bsync_fx_mul(a, b))
OP_BENCH(bench_fix16_mul, fix16_mul(a, b))
OP_BENCH(bench_bsync_div, bsync_fx_div(a, b))
OP_BENCH(bench_fix16_div, fix16_div(a, b))
OP_BENCH(bench_bsync_sqrt, bsync_fx_sqrt(a < 0 ? -a : a))
OP_BENCH(bench_fix16_sqrt, fix16_sqrt(a < 0 ? -a : a))

static bsync_procedural_humanoid g_h;
enum { N = 23, TICKS = 20000 };

static double bench_character_tick(void) {
    static bsync_trs local[3][N], blended[N], model[N];
    static uint64_t cursor_mem[3][512];
    bsync_sample_cursor* cur[3];
    for (int c = 0; c < 3; c++) bsync_sample_cursor_init(cursor_mem[c], sizeof cursor_mem[c], g_h.clips[c], &cur[c]);
    const bsync_trs* rest = bsync_skeleton_rest_pose(g_h.skeleton);
    bsync_clip_time t = bsync_time_start();
    bsync_time_step step;
    bsync_time_step_init(BSYNC_FX_ONE, 70000, 60, &step);
    uint64_t acc = 0;
    double t0 = bench_now_ns();
    for (int i = 0; i < TICKS; i++) {
        bsync_pose_input in[3];
        for (int c = 0; c < 3; c++) {
            fix16_t d = bsync_clip_duration(g_h.clips[c]);
            bsync_clip_sample(g_h.clips[c], bsync_time_seconds(&t, d, BSYNC_LOOP_WRAP), BSYNC_LOOP_WRAP, rest, N,
                              cur[c], local[c]);
            in[c].local = local[c];
            in[c].weight = c == 0 ? 0 : (c == 1 ? 40000 : 25536);
            in[c].joint_weights = NULL;
        }
        bsync_pose_blend(rest, N, in, 3, blended);
        bsync_pose_local_to_model(bsync_skeleton_parents(g_h.skeleton), N, blended, 0, N, model);
        acc ^= bsync_checksum_pose(model, N);
        bsync_time_advance(&t, &step);
    }
    g_sink = (int64_t)acc;
    return (bench_now_ns() - t0) / TICKS;
}

typedef struct bench_case { const char* name; double (*run)(void); const char* unit; } bench_case;

int main(int argc, char** argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 11;
    if (runs < 1 || runs > 1000) runs = 11;
    uint64_t s = 12345;
    for (int i = 0; i < 4096; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        g_a[i] = (fix16_t)(int32_t)(s >> 40) * 16; /* |a| < 2^27: no overflow in a*b for unit-range b */
        g_b[i] = (fix16_t)((int32_t)(s >> 47) & 0x1FFFF) + 1;
    }
    if (bsync_procedural_humanoid_create(NULL, &g_h) != BSYNC_OK) return 2;
    const bench_case cases[] = {
        {"bsync_fx_mul", bench_bsync_mul, "ns/op"},   {"fix16_mul", bench_fix16_mul, "ns/op"},
        {"bsync_fx_div", bench_bsync_div, "ns/op"},   {"fix16_div", bench_fix16_div, "ns/op"},
        {"bsync_fx_sqrt", bench_bsync_sqrt, "ns/op"}, {"fix16_sqrt", bench_fix16_sqrt, "ns/op"},
        {"character_tick_23_joints_3_clips", bench_character_tick, "ns/tick"},
    };
    double* samples = malloc(sizeof(double) * (size_t)runs);
    if (!samples) return 2;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (int r = 0; r < runs; r++) samples[r] = cases[c].run();
        bench_sort(samples, runs);
        printf("{\"name\": \"%s\", \"runs\": %d, \"median\": %.3f, \"min\": %.3f, \"unit\": \"%s\"}\n", cases[c].name,
               runs, samples[runs / 2], samples[0], cases[c].unit);
    }
    free(samples);
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}
