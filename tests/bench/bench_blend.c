/* bench_blend.c — ns per bsync_blend_space_eval for each blend type, one JSON line per case (median
 * of runs). Not a test: run build/tests/bench_blend [runs] on a quiet machine.
 * Cases: FreeformCartesian2D on a 3x3 grid (9 samples; the issue asks for well under 1 us), and
 * Simple1D (4 thresholds), SimpleDirectional2D (centre + 8 directions), FreeformDirectional2D (centre +
 * 8 directions), InverseDistance2D (3x3 grid, p = 2), Delaunay2D (3x3 grid), Direct (9, normalised).
 * Parameters cycle through 1024 precomputed points in [-1.5, 1.5]^2 (or [-1, 7] for 1D). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_space.h"

#include "bench_util.h"

#define EVALS 200000
static volatile int64_t g_sink;
static fix16_t g_params[1024][9];

static double run_once(const bsync_blend_space* s) {
    fix16_t w[BSYNC_MAX_BLEND_CHILDREN];
    uint32_t pc = bsync_blend_space_param_count(s);
    int64_t acc = 0;
    double t0 = bench_now_ns();
    for (int i = 0; i < EVALS; i++) {
        bsync_blend_space_eval(s, g_params[i & 1023], pc, w);
        acc += w[0];
    }
    g_sink = acc;
    return (bench_now_ns() - t0) / EVALS;
}

static void bench(const char* name, const bsync_blend_space_desc* d, int runs) {
    bsync_blend_space* s = NULL;
    if (bsync_blend_space_create(d, NULL, &s, NULL) != BSYNC_OK) {
        fprintf(stderr, "%s: build failed\n", name);
        exit(1);
    }
    double* t = malloc(sizeof(double) * (size_t)runs);
    for (int r = 0; r < runs; r++) t[r] = run_once(s);
    bench_sort(t, runs);
    printf("{\"case\": \"%s\", \"type\": \"%s\", \"children\": %u, \"ns_per_eval_median\": %.1f, \"min\": %.1f, "
           "\"runs\": %d}\n",
           name, bsync_blend_type_name(d->type), d->child_count, t[runs / 2], t[0], runs);
    free(t);
    bsync_blend_space_destroy(s);
}

int main(int argc, char** argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 11;
    if (runs < 1) runs = 1;
    uint64_t st = 1;
    for (int i = 0; i < 1024; i++)
        for (int k = 0; k < 9; k++) {
            st = st * 6364136223846793005ull + 1442695040888963407ull;
            g_params[i][k] = (fix16_t)((int64_t)(st >> 33) % (3 * 65536)) - 98304; /* [-1.5, 1.5) */
        }
    bsync_vec2 grid[9], dirs[9];
    for (int i = 0; i < 9; i++) {
        grid[i].x = (i % 3 - 1) * 65536;
        grid[i].y = (i / 3 - 1) * 65536;
    }
    dirs[0].x = dirs[0].y = 0;
    for (int i = 1; i < 9; i++) {
        double a = (i - 1) * 3.14159265358979 / 4;
        dirs[i].x = (fix16_t)lround(cos(a) * 65536);
        dirs[i].y = (fix16_t)lround(sin(a) * 65536);
    }
    fix16_t th[4] = {0, 98304, 3 * 65536, 6 * 65536};
    bsync_blend_space_desc d;

    memset(&d, 0, sizeof d);
    d.type = BSYNC_BLEND_FREEFORM_CARTESIAN_2D;
    d.child_count = 9;
    d.positions = grid;
    bench("cartesian_grid_3x3", &d, runs);

    d.type = BSYNC_BLEND_INVERSE_DISTANCE_2D;
    bench("idw_grid_3x3_p2", &d, runs);

    d.type = BSYNC_BLEND_DELAUNAY_2D;
    bench("delaunay_grid_3x3", &d, runs);

    d.type = BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D;
    d.positions = dirs;
    bench("simple_directional_centre_8", &d, runs);

    d.type = BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D;
    bench("polar_centre_8", &d, runs);

    memset(&d, 0, sizeof d);
    d.type = BSYNC_BLEND_SIMPLE_1D;
    d.child_count = 4;
    d.thresholds = th;
    for (int i = 0; i < 1024; i++) g_params[i][0] = (fix16_t)((int64_t)g_params[i][0] * 8 / 3 + 3 * 65536);
    bench("simple1d_4", &d, runs);

    memset(&d, 0, sizeof d);
    d.type = BSYNC_BLEND_DIRECT;
    d.child_count = 9;
    d.normalize = 1;
    bench("direct_9_normalised", &d, runs);
    return 0;
}
