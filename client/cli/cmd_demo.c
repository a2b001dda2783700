/* cmd_demo.c — `blendsync demo`: the built-in humanoid blended from idle to walk to run and back,
 * tick by tick in fixed point, printing weights, a bone position and the pose checksum.
 *
 * The speed parameter follows a fixed script over the run (idle, accelerate to a walk, to a run, slow
 * to a jog); 1D weights are tents between the clips' root speeds (0, 1.4, 3.5 m/s); the clips share
 * one normalised phase whose cycle length is the weighted mean of their lengths (the time sync that
 * Unity's blend trees apply: L = sum of w_i * L_i), advanced with the exact integer clock of
 * time.h; each tick samples the three clips, blends them, computes model space and checksums the
 * pose.
 *
 * `--data DIR` runs the example graphs of scripts/examples/ on real characters instead
 * (cmd_demo_data.c, routed there by main.c); without it the output is exactly the built-in demo's. */
#define _XOPEN_SOURCE 700 /* mkstemp, fdopen, realpath, access */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/pose.h"
#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "blendsync/time.h"
#include "commands.h"

#include <unistd.h>

#define CLIPS BSYNC_PROCEDURAL_CLIP_COUNT

static const fix16_t k_thresholds[CLIPS] = {BSYNC_PROCEDURAL_SPEED_IDLE, BSYNC_PROCEDURAL_SPEED_WALK,
                                            BSYNC_PROCEDURAL_SPEED_RUN};

/* The input-to-screen latency a networked player of this demo would see (docs/prediction.md "Input to
 * screen", the model; measured: docs/benchmarks.md), at the demo match's input delay d = 3, a 100 ms
 * round trip and a 60 Hz display. Lockstep: the input goes to tick s + max(d, ceil(RTT/2 * rate)) ahead
 * of the server's tick s, is confirmed one tick later and reaches the client half a round trip after
 * that; then the next display frame (half a frame on average). Prediction: the predicted tick (where
 * the input goes, local delay 0) is s + max(1, ceil(RTT/2 * rate)), and the input is shown at the next
 * display frame while the ticks ahead of confirmation fit the rollback window (8). */
static void print_latency(long rate) {
    const double rtt = 0.100, frame = 1.0 / 60.0;
    long need = (long)(rtt / 2 * (double)rate + 0.999999);
    const long ahead = need > 3 ? need : 3;
    const double lockstep = (double)(ahead + 1) / (double)rate + rtt / 2 + frame / 2;
    const long depth = (need > 1 ? need : 1) + 1 + need;
    const double predicted = depth <= 8 ? frame / 2 : (double)(depth - 8) / (double)rate + frame / 2;
    printf("\ninput-to-screen at 100 ms round trip, 60 Hz display (model, docs/prediction.md): lockstep %.0f ms, "
           "with prediction %.0f ms (%ld ticks ahead of confirmation, window 8)\n",
           lockstep * 1000.0, predicted * 1000.0, depth);
}

/* Target speed at tick t of n: idle for 15%, to walk by 45%, to run by 75%, then down to 0.7 m/s. */
static fix16_t scripted_speed(int64_t t, int64_t n) {
    static const struct { int per_mille; fix16_t speed; } k[] = {
        {0, 0}, {150, 0}, {450, BSYNC_PROCEDURAL_SPEED_WALK}, {750, BSYNC_PROCEDURAL_SPEED_RUN},
        {1000, 45875 /* 0.7 m/s */}};
    int64_t pm = n > 1 ? t * 1000 / (n - 1) : 1000;
    for (size_t i = 1; i < sizeof k / sizeof k[0]; i++) {
        if (pm <= k[i].per_mille) {
            fix16_t f = bsync_fx_div(bsync_fx_from_int((int32_t)(pm - k[i - 1].per_mille)),
                                     bsync_fx_from_int(k[i].per_mille - k[i - 1].per_mille));
            return bsync_fx_lerp(k[i - 1].speed, k[i].speed, f);
        }
    }
    return k[sizeof k / sizeof k[0] - 1].speed;
}

/* Tents between sorted thresholds, clamped at the ends. */
static void weights_1d(fix16_t x, fix16_t* w) {
    for (int i = 0; i < CLIPS; i++) w[i] = 0;
    if (x <= k_thresholds[0]) { w[0] = BSYNC_FX_ONE; return; }
    if (x >= k_thresholds[CLIPS - 1]) { w[CLIPS - 1] = BSYNC_FX_ONE; return; }
    for (int i = 0; i + 1 < CLIPS; i++) {
        if (x <= k_thresholds[i + 1]) {
            fix16_t f = bsync_fx_div(bsync_fx_sub(x, k_thresholds[i]), bsync_fx_sub(k_thresholds[i + 1], k_thresholds[i]));
            w[i + 1] = f;
            w[i] = bsync_fx_sub(BSYNC_FX_ONE, f);
            return;
        }
    }
}

static int parse_int(const char* s, long lo, long hi, long* out) {
    char* end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static void demo_usage(FILE* f) {
    fprintf(f,
            "usage: blendsync demo [--ticks N] [--rate HZ] [--every K] [--quiet]\n"
            "  --ticks N   ticks to simulate (default 300; 1..10000000)\n"
            "  --rate HZ   tick rate (default 30; 15..60)\n"
            "  --every K   print a row every K ticks (default: once a second)\n"
            "  --quiet     print only the summary\n"
            "       blendsync demo --data DIR [--out-dir OUT] [--every K] [--quiet]\n"
            "  --data DIR  run scripts/examples' pab_locomotion and kaykit_strafe graphs on the shared\n"
            "              data folder DIR (e.g. ../shared/data) and bake each to OUT/NAME.glb\n"
            "  --out-dir OUT  where the .glb files go (default: the current folder)\n"
            "       blendsync demo --locomotion [--out-dir OUT] [--every K] [--quiet]\n"
            "  --locomotion  the match demo's graph (scripts/demo/humanoid_locomotion.json: 2D stick +\n"
            "              speed, upper-body wave/punch) along scripts/demo/locomotion_path.csv, baked\n"
            "              to OUT/locomotion.glb\n");
}

int bsync_cmd_demo(int argc, char** argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--data") || !strcmp(argv[i], "--locomotion")) {
            /* the tool routes --data to bsync_cmd_demo_data (cmd_demo_data.c) before calling this */
            fprintf(stderr, "blendsync demo: --data is not available in this build\n");
            return 2;
        }
    long ticks = 300, rate = 30, every = -1;
    int quiet = 0;
    for (int i = 1; i < argc; i++) {
        long* target = NULL;
        long lo = 1, hi = 10000000;
        if (!strcmp(argv[i], "--ticks")) target = &ticks;
        else if (!strcmp(argv[i], "--rate")) { target = &rate; lo = 15; hi = 60; }
        else if (!strcmp(argv[i], "--every")) target = &every;
        else if (!strcmp(argv[i], "--quiet")) { quiet = 1; continue; }
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { demo_usage(stdout); return 0; }
        else { fprintf(stderr, "blendsync demo: unknown option '%s'\n", argv[i]); demo_usage(stderr); return 2; }
        if (i + 1 >= argc || !parse_int(argv[i + 1], lo, hi, target)) {
            fprintf(stderr, "blendsync demo: %s needs a whole number from %ld to %ld\n", argv[i], lo, hi);
            return 2;
        }
        i++;
    }
    if (every < 0) every = rate;

    bsync_procedural_humanoid h;
    bsync_result r = bsync_procedural_humanoid_create(NULL, &h);
    if (r != BSYNC_OK) {
        fprintf(stderr, "blendsync demo: cannot build the humanoid: %s\n", bsync_result_string(r));
        return 2;
    }
    const uint32_t n = bsync_skeleton_joint_count(h.skeleton);
    const bsync_trs* rest = bsync_skeleton_rest_pose(h.skeleton);
    uint32_t hand = 0;
    bsync_skeleton_find(h.skeleton, "hand_l", &hand);

    /* Setup-time memory: one local pose and one cursor per clip, the blend result, model space. */
    bsync_trs* poses = calloc((size_t)n * (CLIPS + 2), sizeof *poses);
    bsync_sample_cursor* cursors[CLIPS];
    void* cursor_mem[CLIPS] = {0};
    int ok = poses != NULL;
    for (int c = 0; ok && c < CLIPS; c++) {
        size_t sz = bsync_sample_cursor_memory_size(h.clips[c]);
        cursor_mem[c] = malloc(sz);
        ok = cursor_mem[c] && bsync_sample_cursor_init(cursor_mem[c], sz, h.clips[c], &cursors[c]) == BSYNC_OK;
    }
    if (!ok) {
        fprintf(stderr, "blendsync demo: out of memory\n");
        return 2;
    }
    bsync_trs* blended = poses + (size_t)n * CLIPS;
    bsync_trs* model = blended + n;

    /* One shared normalised cycle: a 1-second "clip" whose speed is the weighted cycle rate. */
    bsync_clip_time phase = bsync_time_start();
    fix16_t w[CLIPS] = {0}; /* read by the summary even when --ticks leaves the loop unrun */
    uint64_t checksum = 0;

    if (!quiet) {
        printf("blendsync demo: built-in humanoid, %u joints; clips", n);
        for (int c = 0; c < CLIPS; c++)
            printf(" %s %.3f s%s", bsync_clip_name(h.clips[c]), bsync_fx_to_double(bsync_clip_duration(h.clips[c])),
                   c + 1 < CLIPS ? "," : "");
        printf("; %ld ticks at %ld Hz\n\n", ticks, rate);
        printf("%6s %7s %7s %7s %7s %6s   %-26s %s\n", "tick", "speed", "idle", "walk", "run", "phase",
               "hand_l from root (m)", "pose checksum");
    }
    for (long t = 0; t < ticks; t++) {
        fix16_t speed = scripted_speed(t, ticks);
        weights_1d(speed, w);

        bsync_pose_input in[CLIPS];
        for (int c = 0; c < CLIPS; c++) {
            fix16_t d = bsync_clip_duration(h.clips[c]);
            fix16_t local_t = bsync_time_seconds(&phase, d, BSYNC_LOOP_WRAP);
            r = bsync_clip_sample(h.clips[c], local_t, BSYNC_LOOP_WRAP, rest, n, cursors[c], poses + (size_t)n * c);
            if (r != BSYNC_OK) break;
            in[c].local = poses + (size_t)n * c;
            in[c].weight = w[c];
            in[c].joint_weights = NULL;
        }
        if (r == BSYNC_OK) r = bsync_pose_blend(rest, n, in, CLIPS, blended);
        if (r == BSYNC_OK) r = bsync_pose_local_to_model(bsync_skeleton_parents(h.skeleton), n, blended, 0, n, model);
        if (r != BSYNC_OK) {
            fprintf(stderr, "blendsync demo: tick %ld: %s\n", t, bsync_result_string(r));
            return 2;
        }
        checksum = bsync_checksum_pose(blended, n);

        if (!quiet && (t % every == 0 || t == ticks - 1)) {
            bsync_vec3 p = bsync_vec3_sub(model[hand].t, model[0].t); /* root motion aside */
            printf("%6ld %7.3f %7.4f %7.4f %7.4f %6.3f   (%7.4f, %7.4f, %7.4f)  %016llx\n", t,
                   bsync_fx_to_double(speed), bsync_fx_to_double(w[0]), bsync_fx_to_double(w[1]),
                   bsync_fx_to_double(w[2]), bsync_fx_to_double(bsync_time_normalized(&phase)),
                   bsync_fx_to_double(p.x), bsync_fx_to_double(p.y), bsync_fx_to_double(p.z),
                   (unsigned long long)checksum);
        }

        /* advance the shared phase by one tick: Unity's synchronised cycle length L = sum(w_i * d_i)
         * (weights sum to one), so the phase moves 1/L cycles per second */
        fix16_t cycle_length = 0;
        for (int c = 0; c < CLIPS; c++)
            cycle_length = bsync_fx_add(cycle_length, bsync_fx_mul(w[c], bsync_clip_duration(h.clips[c])));
        fix16_t cycle_rate = bsync_fx_div(BSYNC_FX_ONE, cycle_length);
        bsync_time_step step;
        r = bsync_time_step_init(BSYNC_FX_ONE, cycle_rate, (uint32_t)rate, &step);
        if (r != BSYNC_OK) {
            fprintf(stderr, "blendsync demo: %s\n", bsync_result_string(r));
            return 2;
        }
        bsync_time_advance(&phase, &step);
    }

    if (!quiet) print_latency(rate);
    printf("%sjoints %u, ticks %ld at %ld Hz (%.3f s), final weights idle %.4f walk %.4f run %.4f\n",
           quiet ? "" : "\n", n, ticks, rate, (double)ticks / (double)rate, bsync_fx_to_double(w[0]),
           bsync_fx_to_double(w[1]), bsync_fx_to_double(w[2]));
    printf("final pose checksum %016llx\n", (unsigned long long)checksum);

    for (int c = 0; c < CLIPS; c++) free(cursor_mem[c]);
    free(poses);
    bsync_procedural_humanoid_destroy(&h);
    return 0;
}
