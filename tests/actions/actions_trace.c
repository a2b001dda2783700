/* actions_trace.c — prints a random actions run for tests/actions/actions_reference.py (the independent
 * model of docs/actions.md "Crossings", "Policies", "Ranges", "The marker position").
 * Usage: actions_trace SEED TICKS [markers].
 *
 * Graph (one joint; every clip a two-key translation track of a random duration 0.02..3 s):
 *   root "mix" Simple1D(p) over node "free" (sync none: motions a loop, b one-shot, each with a random
 *   time scale 1/4..8, so several loops per tick happen) and node "synced" (normalised, under the root:
 *   motions c loop, d one-shot, sampled on the root's clock); "free" is Simple1D(q), "synced" (r).
 * Actions: per motion 0..3 events and 0..2 ranges at random times (some exactly 0 or the duration),
 * random policy and threshold, payload = a counter.
 * Each tick: random targets (weights crossing thresholds, sometimes unchanged), one tick, and lines
 *   S tick slot cycles phase contribution     per motion slot (after the tick)
 *   R tick action node child count exits active   per report
 * Every tick is saved (ring of 17); with probability 1/8 the run goes back k = 1..16 ticks: the snapshot of
 * tick t - k is loaded into a second instance and the k ticks re-simulated with the same inputs, each
 * re-simulated tick printed as X lines (same fields as R) and compared here with what was reported the
 * first time (exit 1 on a difference); the run then continues from the re-simulated instance.
 * The header lines describe the graph for the model:
 *   G rate, M slot motion node child one_shot duration_raw clock(none|sync) time_scale_raw,
 *   A index motion kind time_raw end_raw policy threshold payload.
 * With "markers", node "synced" syncs by markers: c and d get 0..3 markers named foot_l / foot_r at random
 * times (sorted, no (name, time) twice; sometimes none, so the fallback is covered), printed as
 *   K motion name(0 foot_l, 1 foot_r) time_raw
 * and each tick prints "W tick w_c w_d" (the synced node's child weights after the tick); its S lines keep
 * printing the node's (root's) clock: the model maps it to each slot's marker position itself.
 * With "groups" (docs/actions.md "Sync groups"): the root is "sync": "none", so "free" and "synced" run
 * their own clocks; both are normalised and in one sync group; all four clips get markers; the S lines
 * give each slot's node clock and the M lines say "group". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"

static uint64_t g_rng;
static uint32_t rnd(void) {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)(g_rng >> 11);
}
static uint32_t rnd_in(uint32_t lo, uint32_t hi) { return lo + rnd() % (hi - lo + 1u); }

#define RING 17u
#define MAXREP 64u

typedef struct tick_log {
    uint32_t n;
    bsync_action_report r[MAXREP];
} tick_log;

static void fail(const char* what) {
    fprintf(stderr, "actions_trace: %s\n", what);
    exit(1);
}

static void log_reports(const bsync_instance* inst, tick_log* out) {
    const bsync_action_report* r = NULL;
    uint32_t n = 0;
    if (bsync_instance_actions(inst, &r, &n) != BSYNC_OK || n > MAXREP) fail("reports");
    out->n = n;
    for (uint32_t i = 0; i < n; i++) out->r[i] = r[i];
}

static void print_reports(char tag, uint64_t tick, const tick_log* l) {
    for (uint32_t i = 0; i < l->n; i++)
        printf("%c %llu %u %u %u %u %u %u\n", tag, (unsigned long long)tick, l->r[i].action, l->r[i].node,
               l->r[i].child, l->r[i].count, l->r[i].exits, l->r[i].active);
}

int main(int argc, char** argv) {
    if (argc != 3 && !(argc == 4 && (strcmp(argv[3], "markers") == 0 || strcmp(argv[3], "groups") == 0)))
        fail("usage: actions_trace SEED TICKS [markers|groups]");
    const int with_markers = argc == 4, groups = argc == 4 && strcmp(argv[3], "groups") == 0;
    g_rng = strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ull + 1u;
    const uint32_t ticks = (uint32_t)strtoul(argv[2], NULL, 10);
    const uint32_t rate = rnd_in(15, 60);
    /* skeleton and clips */
    bsync_joint_desc jd = {"root", BSYNC_NO_PARENT, {{0, 0, 0}, {0, 0, 0, BSYNC_FX_ONE}, {BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE}}};
    bsync_skeleton_desc sd = {&jd, 1};
    bsync_skeleton* skel = NULL;
    if (bsync_skeleton_create(&sd, NULL, &skel) != BSYNC_OK) fail("skeleton");
    bsync_clip* clips[4];
    fix16_t dur[4];
    for (int m = 0; m < 4; m++) {
        dur[m] = (fix16_t)rnd_in(1311, 3 * 65536); /* 0.02 .. 3 s */
        fix16_t times[2] = {0, dur[m]};
        bsync_vec3 v[2] = {{0, 0, 0}, {BSYNC_FX_ONE, 0, 0}};
        bsync_raw_track tr = {0, BSYNC_TRACK_TRANSLATION, 2, times, v, NULL};
        bsync_clip_desc cd = {"c", dur[m], 1, &tr, 1};
        if (bsync_clip_create(&cd, skel, NULL, &clips[m]) != BSYNC_OK) fail("clip");
    }
    /* tree */
    static const char* pn[3] = {"p", "q", "r"};
    static const char* mn[4] = {"a", "b", "c", "d"};
    static const fix16_t defaults[3] = {0, 0, 0};
    static const fix16_t th[2] = {0, BSYNC_FX_ONE};
    static const bsync_blend_child_ref c0[2] = {{BSYNC_CHILD_NODE, 1}, {BSYNC_CHILD_NODE, 2}};
    static const bsync_blend_child_ref c1[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}};
    static const bsync_blend_child_ref c2[2] = {{BSYNC_CHILD_MOTION, 2}, {BSYNC_CHILD_MOTION, 3}};
    static const uint32_t p0[1] = {0}, p1[1] = {1}, p2[1] = {2};
    bsync_blend_node_desc nodes[3];
    memset(nodes, 0, sizeof nodes);
    const char* names[3] = {"mix", "free", "synced"};
    const bsync_blend_child_ref* ch[3] = {c0, c1, c2};
    const uint32_t* ps[3] = {p0, p1, p2};
    for (int n = 0; n < 3; n++) {
        nodes[n].name = names[n];
        nodes[n].space.type = BSYNC_BLEND_SIMPLE_1D;
        nodes[n].space.child_count = 2;
        nodes[n].space.thresholds = th;
        nodes[n].children = ch[n];
        nodes[n].params = ps[n];
    }
    bsync_blend_tree_desc td = {pn, defaults, 3, mn, 4, nodes, 3, 0};
    bsync_blend_tree* tree = NULL;
    if (bsync_blend_tree_create(&td, NULL, &tree, NULL, NULL) != BSYNC_OK) fail("tree");
    fix16_t scales[2] = {(fix16_t)rnd_in(16384, 8 * 65536), (fix16_t)rnd_in(16384, 8 * 65536)};
    bsync_graph_node_options opts[3];
    memset(opts, 0, sizeof opts);
    opts[1].sync = BSYNC_SYNC_NONE;
    opts[1].time_scales = scales;
    if (groups) { /* the root plays its children on their own clocks; both children sync by markers in one group */
        opts[0].sync = BSYNC_SYNC_NONE;
        opts[1].sync = BSYNC_SYNC_NORMALIZED;
    }
    /* actions */
    static bsync_graph_action_desc acts[20];
    uint32_t na = 0;
    for (uint32_t m = 0; m < 4; m++) {
        const uint32_t ne = rnd_in(0, 3), nr = rnd_in(0, 2);
        for (uint32_t k = 0; k < ne + nr; k++) {
            bsync_graph_action_desc* a = &acts[na];
            memset(a, 0, sizeof *a);
            a->name = k < ne ? "event" : "range";
            a->motion = m;
            a->payload = (int32_t)na;
            const uint32_t pick = rnd_in(0, 9);
            fix16_t t0 = pick == 0 ? 0 : pick == 1 ? dur[m] : (fix16_t)rnd_in(0, (uint32_t)dur[m]);
            if (k < ne) {
                a->kind = BSYNC_ACTION_EVENT;
                a->time = t0;
            } else {
                fix16_t t1 = (fix16_t)rnd_in(0, (uint32_t)dur[m]);
                if (rnd_in(0, 4) == 0) t1 = dur[m];
                if (t0 > t1) { fix16_t x = t0; t0 = t1; t1 = x; }
                if (t1 - t0 < 64) continue; /* too short to be a range: skip */
                a->kind = BSYNC_ACTION_RANGE;
                a->time = t0;
                a->end = t1;
            }
            a->policy = (bsync_action_policy)rnd_in(0, 2);
            a->threshold = a->policy == BSYNC_ACTION_POLICY_WEIGHT ? (fix16_t)rnd_in(0, 65536) : 0;
            na++;
        }
    }
    const uint32_t one_shot[4] = {0, 1, 0, 1};
    /* markers on c and d (random, sorted by time; the names alternate only by chance) */
    static const char* const marker_names[2] = {"foot_l", "foot_r"};
    bsync_graph_marker_desc mks[12];
    uint32_t mname[12], nk = 0;
    const uint8_t msync[3] = {0, (uint8_t)(groups ? 2 : 0), (uint8_t)(groups ? 2 : 1)};
    for (uint32_t m = groups ? 0u : 2u; with_markers && m < 4; m++) {
        const uint32_t n = rnd_in(0, 7) == 0 ? 0 : rnd_in(1, 3), first = nk;
        for (uint32_t k = 0; k < n; k++) {
            const uint32_t nm = rnd_in(0, 1);
            const fix16_t t = (fix16_t)rnd_in(0, (uint32_t)dur[m] - 1u);
            uint32_t at = nk; /* insertion by time; a (name, time) pair already there is skipped */
            int dup = 0;
            for (uint32_t i = first; i < nk; i++) {
                if (mks[i].time == t && mname[i] == nm) dup = 1;
                if (mks[i].time > t && at == nk) at = i;
            }
            if (dup) continue;
            for (uint32_t i = nk; i > at; i--) {
                mks[i] = mks[i - 1];
                mname[i] = mname[i - 1];
            }
            mks[at].name = marker_names[nm];
            mks[at].motion = m;
            mks[at].time = t;
            mname[at] = nm;
            nk++;
        }
    }
    bsync_graph_actions_desc ad = {one_shot, acts, na, NULL, 0, NULL, 0, nk ? mks : NULL, nk,
                                   with_markers ? msync : NULL};
    const bsync_clip* cl[4] = {clips[0], clips[1], clips[2], clips[3]};
    bsync_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.tree = tree;
    gd.skeleton = skel;
    gd.clips = cl;
    gd.tick_rate = rate;
    gd.node_options = opts;
    gd.actions = &ad;
    bsync_graph* g = NULL;
    if (bsync_graph_create(&gd, NULL, &g) != BSYNC_OK) fail("graph");
    printf("G %u\n", rate);
    static const uint32_t slot_node[4] = {1, 1, 2, 2}, slot_child[4] = {0, 1, 0, 1};
    for (uint32_t m = 0; m < 4; m++)
        printf("M %u %u %u %u %u %d %s %d\n", 2u + m, m, slot_node[m], slot_child[m], one_shot[m], dur[m],
               groups ? "group" : m < 2 ? "none" : "sync", m < 2 ? scales[m] : BSYNC_FX_ONE);
    for (uint32_t i = 0; i < na; i++)
        printf("A %u %u %u %d %d %u %d %d\n", i, acts[i].motion, (unsigned)acts[i].kind, acts[i].time, acts[i].end,
               (unsigned)acts[i].policy, acts[i].threshold, acts[i].payload);
    for (uint32_t i = 0; i < nk; i++) printf("K %u %u %d\n", mks[i].motion, mname[i], mks[i].time);
    /* instances, ring of snapshots and inputs */
    const size_t isz = bsync_instance_memory_size(g), ssz = bsync_instance_snapshot_size_max(g);
    void* ma = aligned_alloc(8, (isz + 7) & ~(size_t)7);
    void* mb = aligned_alloc(8, (isz + 7) & ~(size_t)7);
    unsigned char* snaps = malloc(ssz * RING);
    size_t snap_len[RING];
    static fix16_t inputs[RING][3];
    static tick_log logs[RING];
    bsync_instance *a = NULL, *b = NULL;
    if (bsync_instance_init(ma, isz, g, &a) != BSYNC_OK || bsync_instance_init(mb, isz, g, &b) != BSYNC_OK)
        fail("init");
    if (bsync_instance_save(a, snaps, ssz, &snap_len[0]) != BSYNC_OK) fail("save");
    fix16_t target[3] = {0, 0, 0};
    for (uint32_t t = 1; t <= ticks; t++) {
        for (int k = 0; k < 3; k++)
            if (rnd_in(0, 2) == 0) target[k] = (fix16_t)rnd_in(0, 65536);
        bsync_instance_input in = {target, 3};
        if (bsync_instance_tick(a, &in) != BSYNC_OK) fail("tick");
        const uint32_t slot = t % RING;
        for (int k = 0; k < 3; k++) inputs[slot][k] = target[k];
        log_reports(a, &logs[slot]);
        print_reports('R', t, &logs[slot]);
        if (bsync_instance_save(a, snaps + slot * ssz, ssz, &snap_len[slot]) != BSYNC_OK) fail("save");
        /* slot positions after the tick: the root's clock (it drives "synced"), and the NONE motion
         * clocks read from the snapshot just written (docs/instance.md "Snapshot bytes": after the
         * 32-byte header, P = 3 parameters of 48 bytes and N = 3 node clocks of 20, u32 C, then them) */
        for (uint32_t m = 0; m < 4; m++) {
            uint64_t cycles, phase;
            if (groups) { /* each node's own clock (its children's normalised position) */
                const bsync_clip_time* nt = bsync_instance_node_time(a, slot_node[m]);
                cycles = (uint64_t)nt->cycles;
                phase = nt->phase;
            } else if (m < 2) {
                const unsigned char* p = snaps + slot * ssz + 32 + 4 + 48 * 3 + 4 + 20 * 3 + 4 + 20 * m;
                cycles = 0;
                for (int i = 0; i < 8; i++) cycles |= (uint64_t)p[i] << (8 * i);
                phase = 0;
                for (int i = 0; i < 4; i++) phase |= (uint64_t)p[8 + i] << (8 * i);
            } else {
                const bsync_clip_time* rt = bsync_instance_node_time(a, 0); /* the root drives "synced" */
                cycles = (uint64_t)rt->cycles;
                phase = rt->phase;
            }
            const fix16_t* w0 = bsync_instance_node_weights(a, 0);
            const fix16_t* wn = bsync_instance_node_weights(a, slot_node[m]);
            const fix16_t contrib = bsync_fx_mul(w0[slot_node[m] - 1], wn[slot_child[m]]);
            printf("S %u %u %lld %llu %d\n", t, 2u + m, (long long)cycles, (unsigned long long)phase,
                   w0[slot_node[m] - 1] > 0 && wn[slot_child[m]] > 0 ? contrib : 0);
        }
        if (with_markers) {
            const fix16_t* ws = bsync_instance_node_weights(a, 2);
            printf("W %u %d %d\n", t, ws[0], ws[1]);
        }
        if (t >= 2 && rnd_in(0, 7) == 0) {
            uint32_t k = rnd_in(1, 16);
            if (k > t) k = t;
            const uint32_t from = (t - k) % RING;
            if (bsync_instance_load(b, snaps + from * ssz, snap_len[from]) != BSYNC_OK) fail("load");
            for (uint32_t u = t - k + 1; u <= t; u++) {
                bsync_instance_input bi = {inputs[u % RING], 3};
                if (bsync_instance_tick(b, &bi) != BSYNC_OK) fail("re-tick");
                tick_log l;
                log_reports(b, &l);
                print_reports('X', u, &l);
                if (l.n != logs[u % RING].n || memcmp(l.r, logs[u % RING].r, l.n * sizeof l.r[0]) != 0)
                    fail("re-simulation reported other actions");
            }
            if (bsync_instance_state_checksum(b) != bsync_instance_state_checksum(a)) fail("re-simulated state");
            memcpy(ma, mb, isz); /* continue from the re-simulated instance (a memcpy is a working copy) */
            a = (bsync_instance*)ma;
        }
    }
    free(snaps);
    free(ma);
    free(mb);
    bsync_graph_destroy(g);
    bsync_blend_tree_destroy(tree);
    for (int m = 0; m < 4; m++) bsync_clip_destroy(clips[m]);
    bsync_skeleton_destroy(skel);
    return 0;
}
