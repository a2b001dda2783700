/* cmd_bench.c — `blendsync bench`: the core's speed on a reference workload, ns per character per tick.
 *
 *   blendsync bench [--scenario pab|standin] [--data DIR] [--characters N[,N...]] [--threads T[,T...]]
 *                   [--stages sample,blend,ltm,graph] [--rounds R] [--ticks K] [--json] [--compact]
 *                   [--pose-rule 1|2|1,2] [--actions] [--markers]
 *   blendsync bench --rollback [--samples S] [--window W]   (prediction's costs: cmd_bench_rollback.c)
 *
 * The workload (docs/benchmarks.md "Core speed", from issue 17): N characters, each its own state, 60
 * ticks per second; character k starts at phase frac(0.618034 k) with blend ratio
 * b = 0.05 + 0.9 frac(0.754878 k + 0.3); weights w_i ∝ max(0, 1 - |b - i/2|) for walk, jog, run,
 * normalised; one synchronised cycle of duration sum w_i d_i; all three clips sampled every tick at
 * phase × own duration. The numbers above are setup (floats at the edge, converted once to fix16);
 * every tick is fixed point. Stages, each measured on its own:
 *   sample  the three clips sampled (bsync_clip_sample_planned: one sample plan per clip made at
 *           setup and shared by every character and thread, one cursor per clip per character);
 *   blend   + bsync_pose_blend of the three with the character's weights (its local pose);
 *   ltm     + bsync_pose_local_to_model (its model pose);
 *   graph   a graph instance per character (a Direct node over the three weights, synchronised),
 *           bsync_instance_tick then bsync_instance_pose (local and model): the public path a game
 *           uses; the instance samples through the graph's sample plans (graph.h: one per clip, made
 *           at bsync_graph_create and shared by every instance and thread).
 * A character keeps its own state (phase, cursors, its local and model pose; for graph its instance
 * and poses): bytes_per_character. The three sampled poses are per-thread scratch, reused character
 * after character (a job system's worker memory), reported as scratch_bytes_per_thread.
 * 3 warm-up ticks, then K = max(200, 200000 / N) ticks (--ticks overrides); thread CPU time and wall
 * time per character per tick; the median of R rounds (default 5), the stages interleaved within a
 * round. With T threads the characters are split into T contiguous ranges, one thread each.
 * allocations: calls of the counting allocator that every graph, tree and instance is built with,
 * during the measured ticks (the core never allocates per tick: 0). checksum: every character's last
 * local (blend) or model (ltm, graph) pose chained in character order (sample: 0); every run starts
 * from the same state, so it is the same for every round and thread count.
 *
 * Scenario pab: ozz-animation's pab skeleton (67 joints) with ozz's runtime keys for walk, jog and
 * run, read from DATA/ozz-animation-pab/converted/pab_locomotion_runtime.gltf (DATA: --data, else
 * $BSYNC_SHARED_DIR/data, else ../shared/data). Without it (or with --scenario standin) a procedural
 * 67-joint stand-in of the same shape is built, and the output says so (`"source"`).
 * --compact: the three clips also with compact keys (bsync_clip_compact_create, docs/clip-format.md);
 * every (stage, round) runs the default clips and then the compact ones (interleaved), and each
 * result line says which ("encoding": "default" / "compact") with that encoding's clip_bytes.
 * --actions: the graph stage with events, ranges and a float curve per clip, read every tick (the
 * cost of actions and curves; docs/benchmarks.md "Actions and curves").
 * --markers: the graph stage's node syncs by markers (docs/benchmarks.md "Sync markers").
 * --pose-rule (graph.h, docs/instance.md "Pose rules"; default 1): rule 2 samples with
 * bsync_clip_sample_planned_lerp and blends with bsync_pose_blend_lerped (the graph stage: a graph made
 * with that rule); 1,2 runs both, interleaved like the encodings, each line saying its "pose_rule".
 * Exit status: 0; 1 when the core allocated in the measured ticks or two rounds computed different
 * poses; 2 for bad arguments or data that cannot be loaded. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/clip.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/asset.h"
#include "blendsync/pose.h"
#include "blendsync/sample.h"
#include "blendsync/simd.h"
#include "blendsync/skeleton.h"

#include "platform.h"
#include "cli_json.h"
#include "commands.h"

#define BENCH_CLIPS 3
#define BENCH_MAX_LIST 16
#define BENCH_WARMUP 3u
#define BENCH_TICK_RATE 60u
#define BENCH_VARIANTS 4 /* (default, compact) x (pose rule 1, 2) */

enum { STAGE_SAMPLE, STAGE_BLEND, STAGE_LTM, STAGE_GRAPH, STAGE_COUNT };
static const char* const stage_names[STAGE_COUNT] = {"sample", "blend", "ltm", "graph"};

/* ---- the counting allocator (setup only; the measured ticks must not call it) */
typedef struct bench_alloc_count {
    uint64_t calls;
} bench_alloc_count;
static void* count_alloc(size_t size, size_t align, void* user) {
    ((bench_alloc_count*)user)->calls++;
    return bsync_platform_aligned_alloc(align < 8 ? 8 : align, (size + 7u) & ~(size_t)7u);
}
static void count_free(void* p, size_t size, void* user) {
    (void)size;
    (void)user;
    bsync_platform_aligned_free(p);
}

/* ---- the data */
typedef struct bench_data {
    bsync_asset asset;          /* pab: the import */
    bsync_skeleton* skeleton;   /* the stand-in's, or asset.skeleton */
    bsync_clip* owned[BENCH_CLIPS];
    const bsync_clip* clips[BENCH_CLIPS]; /* walk, jog, run */
    char source[1100];
    const char* encoding; /* NULL: not printed (no --compact); "default" or "compact" */
} bench_data;

/* A procedural 67-joint stand-in with pab's shape: a hips root, a spine and head chain, two arms with
 * five-joint hands, two legs, as 67 joints; walk/jog/run of 1.333/0.8/0.667 s with 41/25/21 keys on
 * every rotation track and the hips translation, two keys on the other translation and scale tracks.
 * Rotations are about x by A sin(2 pi (k / (n - 1)) + phi_j), made with fixed-point trig. */
static int standin_build(bench_data* d, const bsync_allocator* al) {
    enum { J = 67 };
    static bsync_joint_desc joints[J];
    static char names[J][16];
    for (uint32_t j = 0; j < J; j++) {
        snprintf(names[j], sizeof names[j], "j%02u", (unsigned)j);
        joints[j].name = names[j];
        /* a tree: joint j hangs from j - 1 within chains of 6, chains from the root's first children */
        joints[j].parent = j == 0 ? BSYNC_NO_PARENT : (j % 6 == 1 ? (int32_t)(j / 12) : (int32_t)j - 1);
        joints[j].rest = bsync_trs_identity();
        joints[j].rest.t = bsync_vec3_make(0, j == 0 ? 65536 : 6554, 0);
    }
    bsync_skeleton_desc sd = {joints, J};
    if (bsync_skeleton_create(&sd, al, &d->skeleton) != BSYNC_OK) return -1;
    static const fix16_t durations[BENCH_CLIPS] = {87381, 52429, 43691}; /* 1.3333, 0.8, 0.6667 s */
    static const uint32_t keys[BENCH_CLIPS] = {41, 25, 21};
    static const char* const clip_names[BENCH_CLIPS] = {"walk", "jog", "run"};
    for (int c = 0; c < BENCH_CLIPS; c++) {
        const uint32_t n = keys[c];
        fix16_t* times = malloc(sizeof(fix16_t) * n);
        fix16_t two[2] = {0, durations[c]};
        bsync_quat* q = malloc(sizeof(bsync_quat) * n * J);
        bsync_vec3* hips = malloc(sizeof(bsync_vec3) * n);
        bsync_vec3 tconst[J][2], sconst[2];
        bsync_raw_track* tr = malloc(sizeof(bsync_raw_track) * 3 * J);
        if (!times || !q || !hips || !tr) return -1;
        for (uint32_t k = 0; k < n; k++) times[k] = (fix16_t)(((int64_t)durations[c] * k) / (n - 1));
        sconst[0] = sconst[1] = bsync_vec3_make(65536, 65536, 65536);
        uint32_t t = 0;
        for (uint32_t j = 0; j < J; j++) {
            const fix16_t amp = (fix16_t)(6000 + 400 * (j % 9) + 3000 * c); /* about 0.09..0.2 rad */
            for (uint32_t k = 0; k < n; k++) {
                const fix16_t a = (fix16_t)(((int64_t)411775 * k) / (n - 1) + 9000 * (int64_t)j); /* 2 pi k/(n-1) + phi */
                const fix16_t angle = bsync_fx_mul(amp, bsync_fx_sin(a));
                q[j * n + k] = bsync_quat_from_axis_angle(bsync_vec3_make(65536, 0, 0), angle);
            }
            tr[t++] = (bsync_raw_track){j, BSYNC_TRACK_ROTATION, n, times, NULL, &q[j * n]};
            if (j == 0) {
                for (uint32_t k = 0; k < n; k++)
                    hips[k] = bsync_vec3_make(0, 65536 + bsync_fx_mul(2000, bsync_fx_sin((fix16_t)(((int64_t)823550 * k) / (n - 1)))),
                                              (fix16_t)(((int64_t)90000 * (c + 1) * k) / (n - 1)));
                tr[t++] = (bsync_raw_track){j, BSYNC_TRACK_TRANSLATION, n, times, hips, NULL};
            } else {
                tconst[j][0] = tconst[j][1] = joints[j].rest.t;
                tr[t++] = (bsync_raw_track){j, BSYNC_TRACK_TRANSLATION, 2, two, tconst[j], NULL};
            }
            tr[t++] = (bsync_raw_track){j, BSYNC_TRACK_SCALE, 2, two, sconst, NULL};
        }
        bsync_clip_desc cd = {clip_names[c], durations[c], 1, tr, t};
        const bsync_result r = bsync_clip_create(&cd, d->skeleton, al, &d->owned[c]);
        free(times);
        free(q);
        free(hips);
        free(tr);
        if (r != BSYNC_OK) return -1;
        d->clips[c] = d->owned[c];
    }
    snprintf(d->source, sizeof d->source, "procedural 67-joint stand-in (pab data not found)");
    return 0;
}

static int pab_load(bench_data* d, const char* data_dir) {
    char path[1024];
    const int len = snprintf(path, sizeof path, "%s/ozz-animation-pab/converted/pab_locomotion_runtime.gltf", data_dir);
    if (len < 0 || (size_t)len >= sizeof path || !bsync_platform_is_readable_file(path)) return 1; /* absent: the stand-in */
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_asset_import_file(path, NULL, &d->asset, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync bench: %s: %s\n", path, err.message);
        return -1;
    }
    static const char* const want[BENCH_CLIPS] = {"walk", "jog", "run"};
    for (int c = 0; c < BENCH_CLIPS; c++) {
        d->clips[c] = NULL;
        for (uint32_t i = 0; i < d->asset.clip_count; i++)
            if (!strcmp(bsync_clip_name(d->asset.clips[i]), want[c])) d->clips[c] = d->asset.clips[i];
        if (!d->clips[c]) {
            fprintf(stderr, "blendsync bench: %s has no clip named %s\n", path, want[c]);
            return -1;
        }
    }
    d->skeleton = d->asset.skeleton;
    snprintf(d->source, sizeof d->source, "%s", path);
    return 0;
}

/* ---- the characters */
typedef struct bench_char {
    fix16_t phase;                       /* [0, 1) of the synchronised cycle */
    fix16_t step;                        /* phase per tick */
    fix16_t weight[BENCH_CLIPS];         /* sum exactly 1 */
    bsync_sample_cursor* cursor[BENCH_CLIPS];
    bsync_trs* local;                    /* its blended local pose */
    bsync_trs* model;                    /* its model pose */
    bsync_instance* inst;                /* stage graph */
    uint64_t action_sink;                /* --actions: what the reads returned (kept live) */
} bench_char;

/* --actions (docs/actions.md, docs/benchmarks.md "Actions"): the graph stage's graph also has, on each of
 * its three motions, two instants (at 1/4 and 3/4 of the clip), one range [0.1, 0.4) of the clip and
 * a 5-key float curve; each tick then also reads the tick's reports and the curve's value. */
static int g_bench_actions;
/* --markers (docs/actions.md "Sync markers"): the graph stage's node syncs by markers: foot_l / foot_r
 * on each motion at (1/4 + i/20) and (3/4 + i/20) of the clip (i = 0, 1, 2), so the followers' phases
 * are mapped, not copied. */
static int g_bench_markers;

typedef struct bench_world {
    const bench_data* data;
    uint32_t joints;
    const bsync_trs* rest;
    const int16_t* parents;
    fix16_t duration[BENCH_CLIPS];
    uint32_t count;
    bench_char* chars;
    unsigned char* memory; /* every character's cursors and poses, one block */
    size_t bytes_per_char;
    bsync_sample_plan* plan[BENCH_CLIPS]; /* each clip's constant tracks over the rest pose, shared */
    unsigned char* plan_memory;
    size_t plan_bytes;
    bsync_graph* graph;
    bsync_blend_tree* tree;
    unsigned char* inst_memory;
    size_t inst_bytes;
    int rule; /* the pose rule: 1 (bsync_clip_sample_planned + bsync_pose_blend) or 2 (the lerped ones) */
} bench_world;

static double frac(double x) { return x - floor(x); }

/* The workload's per-character numbers (setup: doubles converted once, exactly as documented). */
static void character_setup(bench_char* c, uint32_t k, const fix16_t* duration) {
    const double b = 0.05 + 0.9 * frac(0.754878 * k + 0.3);
    double w[BENCH_CLIPS], sum = 0;
    for (int i = 0; i < BENCH_CLIPS; i++) {
        const double x = 1.0 - fabs(b - i / 2.0);
        w[i] = x > 0 ? x : 0;
        sum += w[i];
    }
    int32_t total = 0, largest = 0;
    double cycle = 0;
    for (int i = 0; i < BENCH_CLIPS; i++) {
        c->weight[i] = (fix16_t)lround(w[i] / sum * 65536.0);
        total += c->weight[i];
        if (c->weight[i] > c->weight[largest]) largest = i;
        cycle += w[i] / sum * bsync_fx_to_double(duration[i]);
    }
    c->weight[largest] += 65536 - total; /* exactly one */
    c->phase = (fix16_t)lround(frac(0.618034 * k) * 65536.0) & 0xFFFF;
    c->step = (fix16_t)lround(65536.0 / (BENCH_TICK_RATE * cycle));
}

static size_t align8(size_t n) { return (n + 7u) & ~(size_t)7u; }

static int world_create(bench_world* w, const bench_data* d, uint32_t count, int graph, int rule,
                        const bsync_allocator* al) {
    memset(w, 0, sizeof *w);
    w->data = d;
    w->rule = rule;
    w->joints = bsync_skeleton_joint_count(d->skeleton);
    w->rest = bsync_skeleton_rest_pose(d->skeleton);
    size_t plan_sizes[BENCH_CLIPS], plan_total = 0;
    for (int i = 0; i < BENCH_CLIPS; i++) plan_total += plan_sizes[i] = align8(bsync_sample_plan_memory_size(d->clips[i]));
    w->plan_memory = bsync_platform_aligned_alloc(64, plan_total);
    if (!w->plan_memory) return -1;
    for (int i = 0, off = 0; i < BENCH_CLIPS; off += (int)plan_sizes[i], i++)
        if (bsync_sample_plan_init(w->plan_memory + off, plan_sizes[i], d->clips[i], w->rest,
                                   bsync_skeleton_joint_count(d->skeleton), &w->plan[i]) != BSYNC_OK)
            return -1;
    w->plan_bytes = plan_total;
    w->parents = bsync_skeleton_parents(d->skeleton);
    w->count = count;
    for (int i = 0; i < BENCH_CLIPS; i++) w->duration[i] = bsync_clip_duration(d->clips[i]);
    const size_t pose = align8(sizeof(bsync_trs) * w->joints);
    size_t cursors = 0;
    for (int i = 0; i < BENCH_CLIPS; i++) cursors += align8(bsync_sample_cursor_memory_size(d->clips[i]));
    if (graph) {
        static const char* const pn[BENCH_CLIPS] = {"w_walk", "w_jog", "w_run"};
        static const char* const mn[BENCH_CLIPS] = {"walk", "jog", "run"};
        static const bsync_blend_child_ref kids[BENCH_CLIPS] = {
            {BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
        static const uint32_t params[BENCH_CLIPS] = {0, 1, 2};
        bsync_blend_node_desc node;
        memset(&node, 0, sizeof node);
        node.name = "locomotion";
        node.space.type = BSYNC_BLEND_DIRECT;
        node.space.child_count = BENCH_CLIPS;
        node.children = kids;
        node.params = params;
        bsync_blend_tree_desc td = {pn, NULL, BENCH_CLIPS, mn, BENCH_CLIPS, &node, 1, 0};
        if (bsync_blend_tree_create(&td, al, &w->tree, NULL, NULL) != BSYNC_OK) return -1;
        bsync_graph_desc gd;
        memset(&gd, 0, sizeof gd);
        gd.tree = w->tree;
        gd.skeleton = d->skeleton;
        gd.clips = d->clips;
        gd.tick_rate = BENCH_TICK_RATE;
        gd.pose_rule = rule == 2 ? BSYNC_POSE_RULE_LERPED : BSYNC_POSE_RULE_NORMALIZED;
        bsync_graph_action_desc acts[BENCH_CLIPS * 3];
        bsync_graph_curve_desc curves[BENCH_CLIPS];
        fix16_t times[BENCH_CLIPS][5], values[BENCH_CLIPS][5];
        bsync_graph_actions_desc ad;
        memset(&ad, 0, sizeof ad);
        memset(acts, 0, sizeof acts);
        bsync_graph_marker_desc marks[BENCH_CLIPS * 2];
        static const uint8_t marker_sync[1] = {1};
        if (g_bench_markers) {
            for (int i = 0; i < BENCH_CLIPS; i++) {
                const fix16_t dur = w->duration[i];
                marks[2 * i].name = "foot_l";
                marks[2 * i].time = dur / 4 + dur / 20 * i;
                marks[2 * i + 1].name = "foot_r";
                marks[2 * i + 1].time = dur / 4 * 3 + dur / 20 * i;
                marks[2 * i].motion = marks[2 * i + 1].motion = (uint32_t)i;
            }
            ad.markers = marks;
            ad.marker_count = BENCH_CLIPS * 2;
            ad.marker_sync = marker_sync;
            gd.actions = &ad;
        }
        if (g_bench_actions) {
            for (int i = 0; i < BENCH_CLIPS; i++) {
                const fix16_t dur = w->duration[i];
                bsync_graph_action_desc* a = &acts[3 * i];
                a[0].name = "foot_l";
                a[0].time = dur / 4;
                a[1].name = "foot_r";
                a[1].time = dur / 4 * 3;
                a[2].name = "contact";
                a[2].kind = BSYNC_ACTION_RANGE;
                a[2].time = dur / 10;
                a[2].end = dur / 10 * 4;
                for (int k = 0; k < 3; k++) a[k].motion = (uint32_t)i;
                for (int k = 0; k < 5; k++) {
                    times[i][k] = dur / 4 * k;
                    values[i][k] = (fix16_t)((k & 1) * BSYNC_FX_ONE);
                }
                curves[i].name = "lift";
                curves[i].motion = (uint32_t)i;
                curves[i].key_count = 5;
                curves[i].times = times[i];
                curves[i].values = values[i];
            }
            ad.actions = acts;
            ad.action_count = BENCH_CLIPS * 3;
            ad.curves = curves;
            ad.curve_count = BENCH_CLIPS;
            gd.actions = &ad;
        }
        if (bsync_graph_create(&gd, al, &w->graph) != BSYNC_OK) return -1;
        w->inst_bytes = align8(bsync_instance_memory_size(w->graph));
        w->bytes_per_char = sizeof(bench_char) + w->inst_bytes + 2 * pose;
    } else {
        w->bytes_per_char = sizeof(bench_char) + cursors + 2 * pose;
    }
    const size_t block = graph ? w->inst_bytes + 2 * pose : cursors + 2 * pose;
    w->chars = calloc(count, sizeof(bench_char));
    w->memory = bsync_platform_aligned_alloc(64, block * count);
    if (!w->chars || !w->memory) return -1;
    for (uint32_t k = 0; k < count; k++) {
        bench_char* c = &w->chars[k];
        unsigned char* m = w->memory + block * k;
        character_setup(c, k, w->duration);
        if (graph) {
            if (bsync_instance_init(m, w->inst_bytes, w->graph, &c->inst) != BSYNC_OK) return -1;
            m += w->inst_bytes;
        } else {
            for (int i = 0; i < BENCH_CLIPS; i++) {
                const size_t n = align8(bsync_sample_cursor_memory_size(d->clips[i]));
                if (bsync_sample_cursor_init(m, n, d->clips[i], &c->cursor[i]) != BSYNC_OK) return -1;
                m += n;
            }
        }
        c->local = (bsync_trs*)m;
        c->model = (bsync_trs*)(m + pose);
    }
    return 0;
}

static void world_destroy(bench_world* w) {
    bsync_platform_aligned_free(w->plan_memory);
    free(w->chars);
    bsync_platform_aligned_free(w->memory);
    if (w->graph) bsync_graph_destroy(w->graph);
    if (w->tree) bsync_blend_tree_destroy(w->tree);
    memset(w, 0, sizeof *w);
}

/* Every run starts from the same state (phases, cursors, instances), so its results are a function of
 * the workload alone: the checksum below must not depend on the thread count or the round. */
static int world_reset(bench_world* w) {
    for (uint32_t k = 0; k < w->count; k++) {
        bench_char* c = &w->chars[k];
        character_setup(c, k, w->duration);
        if (c->inst) {
            if (bsync_instance_init(c->inst, w->inst_bytes, w->graph, &c->inst) != BSYNC_OK) return -1;
        } else {
            for (int i = 0; i < BENCH_CLIPS; i++) bsync_sample_cursor_reset(c->cursor[i]);
        }
    }
    return 0;
}

/* What the run computed: every character's last local pose (blend) or model pose (ltm, graph), chained
 * in character order; 0 for sample, whose poses are scratch. */
static uint64_t world_checksum(const bench_world* w, int stage) {
    if (stage == STAGE_SAMPLE) return 0;
    uint64_t h = 0;
    for (uint32_t k = 0; k < w->count; k++) {
        const bench_char* c = &w->chars[k];
        h = h * 1099511628211ull ^ bsync_checksum_pose(stage == STAGE_BLEND ? c->local : c->model, w->joints);
    }
    return h;
}

/* ---- one thread's share of a run */
typedef struct bench_job {
    bench_world* world;
    int stage;
    uint32_t from, to, ticks;
    bsync_trs* scratch; /* BENCH_CLIPS poses */
    uint64_t cpu_ns, wall_start, wall_end;
    int failed;
    uint64_t sink;
} bench_job;

static int tick_character(bench_world* w, bench_char* c, int stage, bsync_trs* scratch) {
    c->phase = (fix16_t)((c->phase + c->step) & 0xFFFF);
    const uint32_t J = w->joints;
    if (stage == STAGE_GRAPH) {
        bsync_instance_input in = {c->weight, BENCH_CLIPS};
        if (bsync_instance_tick(c->inst, &in) != BSYNC_OK) return -1;
        if (g_bench_actions) { /* what a game reads per tick: the reports and a curve */
            const bsync_action_report* r = NULL;
            uint32_t n = 0;
            fix16_t v = 0;
            if (bsync_instance_actions(c->inst, &r, &n) != BSYNC_OK || bsync_instance_curve(c->inst, 0, &v) != BSYNC_OK)
                return -1;
            for (uint32_t i = 0; i < n; i++) c->action_sink += r[i].count + r[i].active;
            c->action_sink += (uint32_t)v;
        }
        return bsync_instance_pose(c->inst, c->local, c->model) == BSYNC_OK ? 0 : -1;
    }
    bsync_pose_input inputs[BENCH_CLIPS];
    for (int i = 0; i < BENCH_CLIPS; i++) {
        bsync_trs* out = scratch + (size_t)i * J;
        const fix16_t t = bsync_fx_mul(c->phase, w->duration[i]);
        const bsync_result r =
            w->rule == 2 ? bsync_clip_sample_planned_lerp(w->plan[i], w->data->clips[i], t, BSYNC_LOOP_WRAP, c->cursor[i], out)
                         : bsync_clip_sample_planned(w->plan[i], w->data->clips[i], t, BSYNC_LOOP_WRAP, c->cursor[i], out);
        if (r != BSYNC_OK) return -1;
        inputs[i].local = out;
        inputs[i].weight = c->weight[i];
        inputs[i].joint_weights = NULL;
    }
    if (stage == STAGE_SAMPLE) return 0;
    const bsync_result b = w->rule == 2 ? bsync_pose_blend_lerped(w->rest, J, inputs, BENCH_CLIPS, c->local)
                                        : bsync_pose_blend(w->rest, J, inputs, BENCH_CLIPS, c->local);
    if (b != BSYNC_OK) return -1;
    if (stage == STAGE_BLEND) return 0;
    return bsync_pose_local_to_model(w->parents, J, c->local, 0, J, c->model) == BSYNC_OK ? 0 : -1;
}

static void job_run(void* arg) {
    bench_job* j = (bench_job*)arg;
    bench_world* w = j->world;
    for (uint32_t t = 0; t < BENCH_WARMUP; t++)
        for (uint32_t k = j->from; k < j->to; k++)
            if (tick_character(w, &w->chars[k], j->stage, j->scratch) != 0) j->failed = 1;
    const uint64_t c0 = bsync_platform_thread_cpu_ns();
    j->wall_start = bsync_platform_now_ns();
    for (uint32_t t = 0; t < j->ticks; t++)
        for (uint32_t k = j->from; k < j->to; k++)
            if (tick_character(w, &w->chars[k], j->stage, j->scratch) != 0) j->failed = 1;
    j->wall_end = bsync_platform_now_ns();
    j->cpu_ns = bsync_platform_thread_cpu_ns() - c0;
    for (uint32_t k = j->from; k < j->to; k++)
        j->sink += (uint64_t)(uint32_t)w->chars[k].local[1].r.w + w->chars[k].action_sink;
}

/* Transforms from one thread's scratch to the next: the three poses rounded up to a multiple of 16
 * transforms (640 bytes, a multiple of 128), so with the 128-byte aligned block every thread's scratch
 * starts on its own 128-byte boundary and two threads never write into one cache line or one
 * adjacent-line prefetch pair (false sharing). */
static size_t scratch_stride(uint32_t joints) {
    _Static_assert(sizeof(bsync_trs) * 16 % 128 == 0, "16 transforms are whole 128-byte blocks");
    return ((size_t)joints * BENCH_CLIPS + 15u) & ~(size_t)15u;
}

/* One run of a stage over all characters with `threads` threads: ns per character per tick. */
static int run_once(bench_world* w, int stage, uint32_t threads, uint32_t ticks, bsync_trs* scratch, double* cpu,
                    double* wall, uint64_t* sink, uint64_t* checksum) {
    if (world_reset(w) != 0) return -1;
    bench_job jobs[BENCH_MAX_LIST];
    bsync_platform_thread th[BENCH_MAX_LIST];
    for (uint32_t t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].world = w;
        jobs[t].stage = stage;
        jobs[t].from = (uint32_t)((uint64_t)w->count * t / threads);
        jobs[t].to = (uint32_t)((uint64_t)w->count * (t + 1) / threads);
        jobs[t].ticks = ticks;
        jobs[t].scratch = scratch + scratch_stride(w->joints) * t;
    }
    if (threads == 1) {
        job_run(&jobs[0]);
    } else {
        for (uint32_t t = 0; t < threads; t++)
            if (bsync_platform_thread_create(&th[t], job_run, &jobs[t]) != 0) return -1;
        for (uint32_t t = 0; t < threads; t++) bsync_platform_thread_join(&th[t]);
    }
    uint64_t cpu_sum = 0, start = UINT64_MAX, end = 0;
    for (uint32_t t = 0; t < threads; t++) {
        if (jobs[t].failed) return -1;
        cpu_sum += jobs[t].cpu_ns;
        if (jobs[t].wall_start < start) start = jobs[t].wall_start;
        if (jobs[t].wall_end > end) end = jobs[t].wall_end;
        *sink += jobs[t].sink;
    }
    *checksum = world_checksum(w, stage);
    const double per = (double)w->count * ticks;
    *cpu = (double)cpu_sum / per;
    *wall = (double)(end - start) / per;
    return 0;
}

static int cmp_double(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}
static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int parse_list(const char* s, uint32_t* out, uint32_t max_value) {
    int n = 0;
    while (*s) {
        char* end;
        const unsigned long v = strtoul(s, &end, 10);
        if (end == s || v < 1 || v > max_value || n >= BENCH_MAX_LIST) return -1;
        out[n++] = (uint32_t)v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return n;
}

static void usage(void) {
    fprintf(stderr,
            "usage: blendsync bench [--scenario pab|standin] [--data DIR] [--characters N[,N...]]\n"
            "                       [--threads T[,T...]] [--stages sample,blend,ltm,graph] [--rounds R]\n"
            "                       [--ticks K] [--json] [--compact] [--pose-rule 1|2|1,2]\n"
            "  ns per character per tick on the issue-17 locomotion workload (see docs/benchmarks.md);\n"
            "  defaults: pab (ozz-animation's 67-joint skeleton and runtime keys from the shared data,\n"
            "  else a procedural stand-in), --characters 1,100,1000,10000 --threads 1 --rounds 5\n"
            "  --compact: also the clips with compact keys, interleaved with the default ones\n"
            "  --pose-rule: the pose rule (graph.h; default 1); 1,2 runs both, interleaved\n"
            "  --actions: the graph stage's graph has events, ranges and a float curve on each clip,\n"
            "  read every tick (docs/actions.md; the pose and its checksum are the same)\n"
            "  --markers: the graph stage's node syncs by markers (docs/actions.md \"Sync markers\"; the\n"
            "  followers' phases, so the pose checksum, differ)\n");
}

int bsync_cmd_bench_rollback(int argc, char** argv); /* cmd_bench_rollback.c: bench --rollback */

int bsync_cmd_bench(int argc, char** argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--rollback")) return bsync_cmd_bench_rollback(argc, argv);
    const char* scenario = "pab";
    const char* data_dir = NULL;
    uint32_t counts[BENCH_MAX_LIST] = {1, 100, 1000, 10000}, threads[BENCH_MAX_LIST] = {1};
    int ncounts = 4, nthreads = 1, stages[STAGE_COUNT] = {1, 1, 1, 1}, json = 0, compact = 0;
    uint32_t rules[BENCH_MAX_LIST] = {1};
    int nrules = 1, rules_given = 0;
    uint32_t rounds = 5, fixed_ticks = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--compact")) {
            compact = 1;
        } else if (!strcmp(a, "--actions")) {
            g_bench_actions = 1;
        } else if (!strcmp(a, "--markers")) {
            g_bench_markers = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage();
            return 0;
        } else if (v && !strcmp(a, "--scenario")) {
            scenario = v, i++;
            if (strcmp(scenario, "pab") && strcmp(scenario, "standin")) {
                fprintf(stderr, "blendsync bench: unknown scenario '%s' (pab, standin)\n", scenario);
                return 2;
            }
        } else if (v && !strcmp(a, "--data")) {
            data_dir = v, i++;
        } else if (v && !strcmp(a, "--characters")) {
            if ((ncounts = parse_list(v, counts, 1000000)) < 1) {
                fprintf(stderr, "blendsync bench: --characters wants N[,N...] with 1 <= N <= 1000000\n");
                return 2;
            }
            i++;
        } else if (v && !strcmp(a, "--threads")) {
            if ((nthreads = parse_list(v, threads, BENCH_MAX_LIST)) < 1) {
                fprintf(stderr, "blendsync bench: --threads wants T[,T...] with 1 <= T <= %d\n", BENCH_MAX_LIST);
                return 2;
            }
            i++;
        } else if (v && !strcmp(a, "--pose-rule")) {
            nrules = parse_list(v, rules, 2);
            if (nrules < 1 || nrules > 2 || (nrules == 2 && rules[0] == rules[1])) {
                fprintf(stderr, "blendsync bench: --pose-rule wants 1, 2 or 1,2\n");
                return 2;
            }
            rules_given = 1;
            i++;
        } else if (v && !strcmp(a, "--rounds")) {
            rounds = (uint32_t)strtoul(v, NULL, 10), i++;
            if (rounds < 1 || rounds > 101) {
                fprintf(stderr, "blendsync bench: --rounds wants 1..101\n");
                return 2;
            }
        } else if (v && !strcmp(a, "--ticks")) {
            fixed_ticks = (uint32_t)strtoul(v, NULL, 10), i++;
            if (fixed_ticks < 1) {
                fprintf(stderr, "blendsync bench: --ticks wants a positive count\n");
                return 2;
            }
        } else if (v && !strcmp(a, "--stages")) {
            memset(stages, 0, sizeof stages);
            char buf[128];
            snprintf(buf, sizeof buf, "%s", v);
            for (char* tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
                int found = 0;
                for (int s = 0; s < STAGE_COUNT; s++)
                    if (!strcmp(tok, stage_names[s])) stages[s] = found = 1;
                if (!found) {
                    fprintf(stderr, "blendsync bench: unknown stage '%s' (sample, blend, ltm, graph)\n", tok);
                    return 2;
                }
            }
            i++;
        } else {
            usage();
            return 2;
        }
    }

    bench_data d;
    memset(&d, 0, sizeof d);
    bench_alloc_count counter = {0};
    const bsync_allocator al = {count_alloc, count_free, &counter};
    char dir[960];
    if (!data_dir) {
        const char* sh = getenv("BSYNC_SHARED_DIR");
        snprintf(dir, sizeof dir, "%s/data", sh && *sh ? sh : "../shared");
        data_dir = dir;
    }
    int loaded = 1;
    if (!strcmp(scenario, "pab")) {
        loaded = pab_load(&d, data_dir);
        if (loaded < 0) return 2;
    }
    if (loaded != 0 && standin_build(&d, &al) != 0) {
        fprintf(stderr, "blendsync bench: cannot build the stand-in\n");
        return 2;
    }
    /* the encodings: d (default) and, with --compact, dc: the same data with compact clips */
    bench_data* dc = NULL;
    const int encodings = compact ? 2 : 1;
    size_t enc_bytes[2] = {0, 0};
    if (compact) {
        dc = calloc(1, sizeof *dc);
        if (!dc) return 2;
        memcpy(dc->source, d.source, sizeof dc->source);
        dc->skeleton = d.skeleton;
        for (int i = 0; i < BENCH_CLIPS; i++) {
            if (bsync_clip_compact_create(d.clips[i], &al, &dc->owned[i]) != BSYNC_OK) {
                fprintf(stderr, "blendsync bench: cannot build the compact clips\n");
                return 2;
            }
            dc->clips[i] = dc->owned[i];
        }
        d.encoding = "default";
        dc->encoding = "compact";
    }
    const bench_data* datas[2] = {&d, dc};
    for (int e = 0; e < encodings; e++)
        for (int i = 0; i < BENCH_CLIPS; i++) enc_bytes[e] += bsync_clip_block_size(datas[e]->clips[i]);
    const size_t clip_bytes = enc_bytes[0];
    /* the variants, interleaved in every (stage, round): each encoding with each pose rule */
    const int variants = encodings * nrules;
    const bench_data* var_data[BENCH_VARIANTS];
    int var_rule[BENCH_VARIANTS];
    for (int v = 0; v < variants; v++) {
        var_data[v] = datas[v / nrules];
        var_rule[v] = (int)rules[v % nrules];
    }
    const uint32_t J = bsync_skeleton_joint_count(d.skeleton);
    uint32_t max_threads = 1;
    for (int t = 0; t < nthreads; t++)
        if (threads[t] > max_threads) max_threads = threads[t];
    bsync_trs* scratch = bsync_platform_aligned_alloc(128, scratch_stride(J) * sizeof(bsync_trs) * max_threads);
    double* cpu = malloc(sizeof(double) * rounds * STAGE_COUNT * BENCH_VARIANTS);
    double* wall = malloc(sizeof(double) * rounds * STAGE_COUNT * BENCH_VARIANTS);
    if (!scratch || !cpu || !wall) return 2;
    if (!json)
        printf("scenario %s (%s), %u joints, clip bytes %zu%s, %u rounds, simd %s\n%10s %7s %7s %12s %12s %10s %7s  %s\n",
               scenario, d.source, (unsigned)J, clip_bytes, compact ? " (compact: see each line)" : "", (unsigned)rounds,
               bsync_simd_path_name(bsync_simd_active()), "characters", "threads", "stage", "cpu ns",
               "wall ns", "bytes/char", "allocs", "checksum");
    int status = 0;
    uint64_t sink = 0;
    for (int ci = 0; ci < ncounts && status < 2; ci++) {
        const uint32_t n = counts[ci];
        const uint32_t ticks = fixed_ticks ? fixed_ticks : (200000u / n > 200u ? 200000u / n : 200u);
        bench_world pose_worlds[BENCH_VARIANTS], graph_worlds[BENCH_VARIANTS];
        const int want_pose = stages[STAGE_SAMPLE] || stages[STAGE_BLEND] || stages[STAGE_LTM];
        for (int e = 0; e < variants; e++)
            if ((want_pose && world_create(&pose_worlds[e], var_data[e], n, 0, var_rule[e], &al) != 0) ||
                (stages[STAGE_GRAPH] && world_create(&graph_worlds[e], var_data[e], n, 1, var_rule[e], &al) != 0)) {
                fprintf(stderr, "blendsync bench: out of memory for %u characters\n", (unsigned)n);
                return 2;
            }
        for (int ti = 0; ti < nthreads && status < 2; ti++) {
            const uint32_t T = threads[ti] < n ? threads[ti] : n;
            uint64_t allocs[BENCH_VARIANTS] = {0}, sums[BENCH_VARIANTS][STAGE_COUNT] = {{0}};
            int differs[BENCH_VARIANTS][STAGE_COUNT] = {{0}};
            for (uint32_t r = 0; r < rounds && status < 2; r++)
                for (int s = 0; s < STAGE_COUNT && status < 2; s++)
                    for (int e = 0; e < variants; e++) {
                        if (!stages[s]) continue;
                        bench_world* w = s == STAGE_GRAPH ? &graph_worlds[e] : &pose_worlds[e];
                        const uint64_t before = counter.calls;
                        uint64_t sum = 0;
                        const size_t at = ((size_t)e * STAGE_COUNT + (size_t)s) * rounds + r;
                        if (run_once(w, s, T, ticks, scratch, &cpu[at], &wall[at], &sink, &sum) != 0) {
                            fprintf(stderr, "blendsync bench: a core call failed (stage %s)\n", stage_names[s]);
                            status = 2;
                            break;
                        }
                        allocs[e] += counter.calls - before;
                        if (r > 0 && sum != sums[e][s]) differs[e][s] = 1;
                        sums[e][s] = sum;
                    }
            for (int s = 0; s < STAGE_COUNT && status < 2; s++)
                for (int e = 0; e < variants; e++) {
                if (!stages[s]) continue;
                const bench_world* w = s == STAGE_GRAPH ? &graph_worlds[e] : &pose_worlds[e];
                const size_t at = ((size_t)e * STAGE_COUNT + (size_t)s) * rounds;
                const double c = median(&cpu[at], (int)rounds), wl = median(&wall[at], (int)rounds);
                if (json) {
                    cJSON* o = cJSON_CreateObject();
                    bsync_cli_json_str(o, "scenario", loaded == 0 ? "pab" : "standin");
                    bsync_cli_json_str(o, "source", d.source);
                    bsync_cli_json_num(o, "joints", "%u", (unsigned)J);
                    bsync_cli_json_num(o, "characters", "%u", (unsigned)n);
                    bsync_cli_json_num(o, "threads", "%u", (unsigned)T);
                    bsync_cli_json_str(o, "stage", stage_names[s]);
                    cJSON* ns = bsync_cli_json_add(o, "ns_per_character_tick", cJSON_CreateObject());
                    bsync_cli_json_dbl(ns, "cpu", "%.1f", c);
                    bsync_cli_json_dbl(ns, "wall", "%.1f", wl);
                    bsync_cli_json_num(o, "bytes_per_character", "%zu", w->bytes_per_char);
                    bsync_cli_json_num(o, "scratch_bytes_per_thread", "%zu",
                                       s == STAGE_GRAPH ? (size_t)0 : sizeof(bsync_trs) * J * BENCH_CLIPS);
                    bsync_cli_json_num(o, "clip_bytes", "%zu", enc_bytes[e / nrules]);
                    bsync_cli_json_num(o, "allocations", "%" PRIu64, allocs[e]);
                    bsync_cli_json_hex64(o, "checksum", sums[e][s]);
                    bsync_cli_json_num(o, "ticks", "%u", (unsigned)ticks);
                    bsync_cli_json_num(o, "rounds", "%u", (unsigned)rounds);
                    bsync_cli_json_str(o, "simd", bsync_simd_path_name(bsync_simd_active()));
                    if (var_data[e]->encoding) bsync_cli_json_str(o, "encoding", var_data[e]->encoding);
                    bsync_cli_json_num(o, "pose_rule", "%d", var_rule[e]);
                    if (g_bench_actions && s == STAGE_GRAPH) bsync_cli_json_num(o, "actions", "%d", 1);
                    if (g_bench_markers && s == STAGE_GRAPH) bsync_cli_json_num(o, "markers", "%d", 1);
                    if (bsync_cli_json_print(stdout, o, 0) != 0) status = 2;
                    cJSON_Delete(o);
                } else {
                    char enc[80] = "";
                    if (var_data[e]->encoding) snprintf(enc, sizeof enc, "  %s", var_data[e]->encoding);
                    if (rules_given) snprintf(enc + strlen(enc), sizeof enc - strlen(enc), "  rule %d", var_rule[e]);
                    printf("%10u %7u %7s %12.1f %12.1f %10zu %7" PRIu64 "  %016" PRIx64 "%s\n", (unsigned)n, (unsigned)T,
                           stage_names[s], c, wl, w->bytes_per_char, allocs[e], sums[e][s], enc);
                }
                if (differs[e][s] || allocs[e] != 0) {
                    fprintf(stderr, "blendsync bench: stage %s: %s\n", stage_names[s],
                            allocs[e] ? "the core allocated during the measured ticks" : "the rounds computed different poses");
                    status = 1;
                }
            }
            fflush(stdout);
        }
        for (int e = 0; e < variants; e++) {
            if (want_pose) world_destroy(&pose_worlds[e]);
            if (stages[STAGE_GRAPH]) world_destroy(&graph_worlds[e]);
        }
    }
    if (sink == 42) fputs("", stderr); /* keep the results observable */
    bsync_platform_aligned_free(scratch);
    free(cpu);
    free(wall);
    for (int i = 0; i < BENCH_CLIPS; i++) {
        if (d.owned[i]) bsync_clip_destroy(d.owned[i]);
        if (dc && dc->owned[i]) bsync_clip_destroy(dc->owned[i]);
    }
    free(dc);
    if (loaded != 0) bsync_skeleton_destroy(d.skeleton);
    else bsync_asset_destroy(&d.asset);
    return status;
}
