/* cmd_bench_rollback.c — `blendsync bench --rollback`: what prediction costs (issue 33, benchmarks 1-3;
 * docs/benchmarks.md "Prediction and rollback", docs/prediction.md "Costs").
 *
 * The match: the demo graph (scripts/demo/humanoid_locomotion.json, compiled in) on 16 characters, 4
 * players and 12 NPCs, warmed up by 120 ticks of the players' seeded joysticks (inputs change every
 * 3..12 ticks, triggers included). Then, on one core, each sample timed on its own:
 *   restore    the confirmed match copied over the predicted one (a match is caller memory: memcpy),
 *              bsync_match_save + bsync_match_load through a snapshot buffer (the portable way), and the
 *              rollback state: bsync_match_state_save, _restore, both, and bsync_match_state_copy
 *              (what the predictor does; only the per-tick state, no caches);
 *   rollback   restore (state copy), then W ticks re-simulated (blend state every tick), then the poses of the last
 *              tick: local and model space of every joint of every character (hit boxes ride on them);
 *   rollback-poses   the same with the poses after every re-simulated tick;
 *   worst      one displayed frame at 60 Hz when every remote player's analog input changes every
 *              tick: the confirmed tick applied, then the rollback above (a misprediction each frame).
 * The re-simulated frames are the recorded ones, so each sample does the same work; the output gives
 * p50, p99 and max in microseconds of this thread's CPU time (a preempted sample is not counted as
 * work; the machine is shared) over --samples S (default 2000), the snapshot bytes and the match
 * bytes, and a checksum of the last predicted state (the same every run). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/match_config.h"
#include "blendsync/match.h"
#include "blendsync/present.h"
#include "commands.h"
#include "demo_embed.h" /* k_demo_graph_json */
#include "platform.h"

#define RB_CHARS 16u
#define RB_PLAYERS 4u
#define RB_MAX_W 32u

int bsync_cmd_bench_rollback(int argc, char** argv); /* called by cmd_bench.c */

static bsync_result rb_read(const char* path, const void** data, size_t* size, void* user) {
    (void)user;
    const size_t n = strlen(path), m = strlen("humanoid_locomotion.json");
    if (n < m || strcmp(path + n - m, "humanoid_locomotion.json") != 0) return BSYNC_IO_ERROR;
    *data = k_demo_graph_json;
    *size = sizeof k_demo_graph_json - 1u;
    return BSYNC_OK;
}

static void rb_release(const char* path, const void* data, size_t size, void* user) {
    (void)path, (void)data, (void)size, (void)user;
}

static int rb_cmp(const void* a, const void* b) {
    const uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}

static void rb_print(const char* what, uint64_t* ns, uint32_t n, double goal_us) {
    qsort(ns, n, sizeof *ns, rb_cmp);
    const double p50 = (double)ns[n / 2] / 1000.0, p99 = (double)ns[(uint64_t)n * 99u / 100u] / 1000.0;
    printf("%-16s p50 %8.2f us  p99 %8.2f us  max %8.2f us", what, p50, p99, (double)ns[n - 1] / 1000.0);
    if (goal_us > 0) printf("  (goal p50, p99 <= %.0f us: %s)", goal_us, p50 <= goal_us && p99 <= goal_us ? "met" : "MISSED");
    printf("\n");
}

int bsync_cmd_bench_rollback(int argc, char** argv) {
    uint32_t samples = 2000, window = 8;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--rollback")) continue;
        if (v && !strcmp(a, "--samples")) samples = (uint32_t)strtoul(v, NULL, 10);
        else if (v && !strcmp(a, "--window")) window = (uint32_t)strtoul(v, NULL, 10);
        else {
            fprintf(stderr, "usage: blendsync bench --rollback [--samples S] [--window W]\n");
            return 2;
        }
        i++;
    }
    if (samples < 10 || samples > 1000000 || window < 1 || window > RB_MAX_W) {
        fprintf(stderr, "blendsync bench --rollback: --samples 10..1000000, --window 1..%u\n", RB_MAX_W);
        return 2;
    }
    char text[4096];
    int len = snprintf(text, sizeof text,
                       "{ \"match_id\": 1, \"players\": [ {\"token\": \"a\"}, {\"token\": \"b\"}, {\"token\": \"c\"}, "
                       "{\"token\": \"d\"} ],\n \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5}, "
                       "{\"name\": \"move_x\", \"min\": -1, \"max\": 1}, {\"name\": \"move_y\", \"min\": -1, \"max\": 1} ],\n"
                       " \"triggers\": [ {\"name\": \"action\", \"switch\": \"upper\", \"fade_ticks\": 6, \"script_states\": 3} ],"
                       " \"hold_ticks\": [3, 12] },\n \"characters\": [");
    for (uint32_t k = 0; k < RB_CHARS; k++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%s {\"name\": \"c%u\", \"graph\": \"humanoid_locomotion.json\", %s%u}",
                        k ? "," : "", k, k < RB_PLAYERS ? "\"slot\": " : "\"npc_seed\": ", k < RB_PLAYERS ? k : 100u + k);
    len += snprintf(text + len, sizeof text - (size_t)len, " ] }\n");
    bsync_config_load_options opt;
    memset(&opt, 0, sizeof opt);
    opt.file.read = rb_read;
    opt.file.release = rb_release;
    bsync_match_config* mc = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_match_config_parse_ex(text, (size_t)len, "rollback-bench", "", &opt, NULL, &mc, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync bench --rollback: %s\n", err.message);
        return 2;
    }
    const bsync_match_desc* desc = bsync_match_config_desc(mc);
    const size_t msize = bsync_match_memory_size(desc);
    void* amem = bsync_platform_aligned_alloc(16, msize);
    void* pmem = bsync_platform_aligned_alloc(16, msize);
    bsync_match *a = NULL, *p = NULL;
    bsync_match_frame* frames = malloc(sizeof *frames * (RB_MAX_W + 1u));
    uint64_t* ns = malloc(sizeof *ns * samples);
    bsync_match_script scripts[RB_PLAYERS];
    int rc = 2;
    if (!amem || !pmem || !frames || !ns || bsync_match_init(amem, msize, desc, &a) != BSYNC_OK ||
        bsync_match_init(pmem, msize, desc, &p) != BSYNC_OK) {
        fprintf(stderr, "blendsync bench --rollback: out of memory\n");
        goto done;
    }
    const size_t snap_cap = bsync_match_snapshot_size_max(a);
    const size_t scratch_size = bsync_present_match_scratch_size(a);
    const uint32_t joints = bsync_present_match_joint_count(a);
    uint8_t* snap = malloc(snap_cap);
    void* scratch = bsync_platform_aligned_alloc(16, scratch_size ? scratch_size : 16u);
    bsync_trs* local = malloc(sizeof *local * joints);
    bsync_trs* model = malloc(sizeof *model * joints);
    if (!snap || !scratch || !local || !model) {
        fprintf(stderr, "blendsync bench --rollback: out of memory\n");
        goto done2;
    }
    for (uint32_t s = 0; s < RB_PLAYERS; s++) bsync_match_script_init(&scripts[s], 33u + s);
    bsync_match_frame f;
    memset(&f, 0, sizeof f);
    f.player_count = desc->player_count;
    for (uint32_t t = 0; t < 120; t++) { /* warm up: blends, fades and switches under way */
        for (uint32_t s = 0; s < RB_PLAYERS; s++) bsync_match_random_input(&scripts[s], desc, &f.players[s]);
        if (bsync_match_tick(a, &f) != BSYNC_OK) goto done2;
    }
    /* the frames a rollback re-simulates; every remote analog input changes every tick (worst case) */
    for (uint32_t k = 0; k <= RB_MAX_W; k++) {
        for (uint32_t s = 0; s < RB_PLAYERS; s++) bsync_match_random_input(&scripts[s], desc, &f.players[s]);
        for (uint32_t s = 1; s < RB_PLAYERS; s++) f.players[s].params[1] = (fix16_t)((int32_t)(k * 6553u) - 32768);
        frames[k] = f;
    }
    size_t snap_len = 0;
    if (bsync_match_save(a, snap, snap_cap, &snap_len) != BSYNC_OK) goto done2;
    printf("rollback bench: the demo graph, %u characters (%u players, %u NPCs), %u joints, window %u, %u samples\n",
           RB_CHARS, RB_PLAYERS, RB_CHARS - RB_PLAYERS, joints, window, samples);
    printf("bytes: match memory (memcpy restore) %zu, snapshot (bsync_match_save) %zu\n", msize, snap_len);
    /* restore by memcpy */
    for (uint32_t i = 0; i < samples; i++) {
        const uint64_t t0 = bsync_platform_thread_cpu_ns();
        memcpy(pmem, amem, msize);
        ns[i] = bsync_platform_thread_cpu_ns() - t0;
    }
    rb_print("restore memcpy", ns, samples, 5.0);
    for (uint32_t i = 0; i < samples; i++) {
        const uint64_t t0 = bsync_platform_thread_cpu_ns();
        size_t w = 0;
        if (bsync_match_save(a, snap, snap_cap, &w) != BSYNC_OK || bsync_match_load(p, snap, w) != BSYNC_OK) goto done2;
        ns[i] = bsync_platform_thread_cpu_ns() - t0;
    }
    rb_print("save+load", ns, samples, 5.0);
    /* the rollback state (match.h): only what changes per tick, caches left out */
    const size_t state_size = bsync_match_state_size(a);
    void* state = bsync_platform_aligned_alloc(16, state_size ? state_size : 16u);
    if (!state) goto done2;
    for (uint32_t i = 0; i < samples; i++) {
        const uint64_t t0 = bsync_platform_thread_cpu_ns();
        bsync_match_state_save(a, state, state_size, NULL);
        ns[i] = bsync_platform_thread_cpu_ns() - t0;
    }
    rb_print("state save", ns, samples, 0);
    for (uint32_t i = 0; i < samples; i++) {
        const uint64_t t0 = bsync_platform_thread_cpu_ns();
        bsync_match_state_restore(p, state, state_size);
        ns[i] = bsync_platform_thread_cpu_ns() - t0;
    }
    rb_print("state restore", ns, samples, 0);
    for (uint32_t i = 0; i < samples; i++) {
        const uint64_t t0 = bsync_platform_thread_cpu_ns();
        if (bsync_match_state_save(a, state, state_size, NULL) != BSYNC_OK ||
            bsync_match_state_restore(p, state, state_size) != BSYNC_OK) {
            bsync_platform_aligned_free(state);
            goto done2;
        }
        ns[i] = bsync_platform_thread_cpu_ns() - t0;
    }
    rb_print("state save+rest", ns, samples, 5.0);
    bsync_platform_aligned_free(state);
    for (uint32_t i = 0; i < samples; i++) {
        const uint64_t t0 = bsync_platform_thread_cpu_ns();
        if (bsync_match_state_copy(p, a) != BSYNC_OK) goto done2;
        ns[i] = bsync_platform_thread_cpu_ns() - t0;
    }
    rb_print("state copy", ns, samples, 5.0);
    printf("bytes per retained snapshot (bsync_match_state_size) %zu; a ring of W = %u: %zu\n", state_size, window,
           state_size * window);
    uint64_t check = 0;
    for (int mode = 0; mode < 3; mode++) {
        for (uint32_t i = 0; i < samples; i++) {
            const uint64_t t0 = bsync_platform_thread_cpu_ns();
            bsync_match* from = a;
            if (mode == 2) { /* the displayed frame's new confirmed tick, on a copy so every sample is alike */
                if (bsync_match_state_copy(p, a) != BSYNC_OK || bsync_match_tick(p, &frames[0]) != BSYNC_OK) goto done2;
                from = p;
            }
            if (from != p && bsync_match_state_copy(p, a) != BSYNC_OK) goto done2;
            for (uint32_t k = 1; k <= window; k++) {
                if (bsync_match_tick(p, &frames[k]) != BSYNC_OK) goto done2;
                if (mode == 1 &&
                    bsync_present_match(p, 0, scratch, scratch_size, local, model, NULL) != BSYNC_OK)
                    goto done2;
            }
            if (mode != 1 && bsync_present_match(p, 0, scratch, scratch_size, local, model, NULL) != BSYNC_OK) goto done2;
            ns[i] = bsync_platform_thread_cpu_ns() - t0;
        }
        bsync_match_checksums cs;
        if (bsync_match_get_checksums(p, 1, &cs) != BSYNC_OK) goto done2;
        check ^= cs.blend ^ cs.pose;
        if (mode == 0) rb_print("rollback", ns, samples, 250.0);
        if (mode == 1) rb_print("rollback-poses", ns, samples, 600.0);
        if (mode == 2) {
            rb_print("worst frame", ns, samples, 0);
            qsort(ns, samples, sizeof *ns, rb_cmp);
            printf("worst frame at 60 Hz: p50 %.2f%% p99 %.2f%% of a 16.67 ms frame\n", (double)ns[samples / 2] / 166667.0,
                   (double)ns[(uint64_t)samples * 99u / 100u] / 166667.0);
        }
    }
    printf("checksum %016" PRIx64 "\n", check);
    rc = 0;
done2:
    free(snap);
    bsync_platform_aligned_free(scratch);
    free(local);
    free(model);
done:
    free(frames);
    free(ns);
    bsync_platform_aligned_free(amem);
    bsync_platform_aligned_free(pmem);
    bsync_match_config_destroy(mc);
    return rc;
}
