/* test_graph_config_markers.c — sync markers (docs/actions.md "Sync markers") from a graph config: a
 * Simple1D over the built-in walk (1.0 s, threshold 0) and run (0.7 s, threshold 1). walk's feet land at
 * 0.25 s (foot_l) and 0.75 s (foot_r): normalised 0.25 and 0.75; run's at 0.28 s and 0.63 s: normalised
 * 0.40 and 0.90. Both clips put half a cycle between the feet.
 * The measure, per tick: each child's offset from its own foot_l marker, (phase - at(foot_l)) mod 2^32 in
 * 2^-32 cycle units (at = ceil(t * 2^32 / duration), the documented marker position), for the child the
 * rule calls the leader (larger weight, the first on ties) minus the other child. With "sync": "markers"
 * this stays 0 (within one Q16.16 raw unit, 2^16 phase units: the two half-cycle spans round differently
 * by a few units) while the speed target sweeps 0 -> 1 -> 0 (the leader changes twice); with "sync":
 * "normalized" both children sit at the same phase, so the difference is the constant
 * at_run(foot_l) - at_walk(foot_l) = 0.15 cycle with the walk leading, its negative with the run leading.
 * Also: the leader's own phase is the node's phase; the pose follows the mapped phase (the two graphs'
 * poses differ while both clips have weight and agree while the walk plays alone); the hash of a graph
 * whose config has no markers is the hash without the feature; FILE: /json/path: message errors for
 * unsorted and duplicate markers and times outside the clip; events and curves of a follower on its
 * marker position (test_follower_events_and_curves). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/clip.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/time.h"
#include "test_support.h"

#define CONFIG(SYNC, WALK_MARKERS, RUN_MARKERS)                                                                  \
    "{ \"parameters\": { \"speed\": {} }, \"root\": \"loco\", \"nodes\": { \"loco\": { \"type\": \"Simple1D\", " \
    "\"parameter\": \"speed\"" SYNC ", \"children\": [ { \"motion\": \"walk\", \"threshold\": 0 }, "              \
    "{ \"motion\": \"run\", \"threshold\": 1 } ] } }, \"clips\": { \"walk\": { \"source\": \"builtin:humanoid\"" \
    WALK_MARKERS " }, \"run\": { \"source\": \"builtin:humanoid\"" RUN_MARKERS " } } }"

#define WALK_M ", \"markers\": [ {\"name\": \"foot_l\", \"time\": 0.25}, {\"name\": \"foot_r\", \"time\": 0.75} ]"
#define RUN_M ", \"markers\": [ {\"name\": \"foot_l\", \"time\": 0.28}, {\"name\": \"foot_r\", \"time\": 0.63} ]"

static bsync_graph_config* load(const char* text, bsync_error* err, bsync_result* r) {
    bsync_graph_config* g = NULL;
    *r = bsync_graph_config_parse(text, strlen(text), "g.json", NULL, &g, NULL, err);
    if (*r != BSYNC_OK) fprintf(stderr, "%s\n", err->message);
    return g;
}

static bsync_instance* make(const bsync_graph* g, void** mem) {
    const size_t sz = bsync_instance_memory_size(g);
    *mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(*mem, sz, g, &inst), BSYNC_OK);
    return inst;
}

/* ceil(t * 2^32 / duration) for t in raw fix16 seconds. */
static uint32_t at_units(int64_t t, int64_t dur) {
    return (uint32_t)((((uint64_t)t << 32) + (uint64_t)dur - 1u) / (uint64_t)dur);
}

typedef struct run_result {
    int64_t min_diff, max_diff;  /* leader-minus-follower foot_l offsets, 2^-32 units */
    int leader_changes, both_weighted;
} run_result;

/* Ticks the graph while the speed target sweeps 0 -> 1 -> 0 in 1/256 steps (two passes), recording the
 * foot_l offset difference; the leader's phase must be the node's sampling phase throughout. */
static run_result sweep(const char* text, uint64_t* pose_at, int pose_ticks) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(text, &err, &r);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    const int64_t dw = bsync_clip_duration(bsync_graph_motion_clip(g, 0));
    const int64_t dr = bsync_clip_duration(bsync_graph_motion_clip(g, 1));
    assert_int_equal(dw, 65536);
    const uint32_t fl[2] = {at_units(16384, dw), at_units(18350, dr)}; /* 0.25 s, 0.28 s (raw 18350) */
    void* mem;
    bsync_instance* inst = make(g, &mem);
    run_result out = {INT64_MAX, INT64_MIN, 0, 0};
    int prev_leader = -1;
    for (int k = 0; k < 1024; k++) {
        const int s = k % 512 < 256 ? k % 512 : 511 - k % 512;
        const fix16_t target[1] = {(fix16_t)(s * 256)};
        const bsync_instance_input in = {target, 1};
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        const fix16_t* w = bsync_instance_node_weights(inst, 0);
        const int leader = w[1] > w[0] ? 1 : 0;
        if (prev_leader >= 0 && leader != prev_leader) out.leader_changes++;
        prev_leader = leader;
        const uint32_t ph[2] = {bsync_instance_child_sample_phase(inst, 0, 0), bsync_instance_child_sample_phase(inst, 0, 1)};
        assert_int_equal(ph[leader], bsync_instance_node_sample_phase(inst, 0));
        if (w[0] > 0 && w[1] > 0) {
            out.both_weighted++;
            const int32_t d = (int32_t)((ph[leader] - fl[leader]) - (ph[1 - leader] - fl[1 - leader]));
            if (d < out.min_diff) out.min_diff = d;
            if (d > out.max_diff) out.max_diff = d;
        }
        if (pose_at && k < pose_ticks) assert_int_equal(bsync_instance_pose_checksum(inst, &pose_at[k], NULL), BSYNC_OK);
    }
    free(mem);
    bsync_graph_config_destroy(gc);
    return out;
}

static void test_phase_difference(void** state) {
    (void)state;
    enum { POSE_TICKS = 40 };
    uint64_t pm[POSE_TICKS], pn[POSE_TICKS];
    const run_result m = sweep(CONFIG(", \"sync\": \"markers\"", WALK_M, RUN_M), pm, POSE_TICKS);
    const run_result n = sweep(CONFIG(", \"sync\": \"normalized\"", WALK_M, RUN_M), pn, POSE_TICKS);
    assert_true(m.leader_changes >= 2);
    assert_true(m.both_weighted > 900);
    /* marker sync: the same marker phase, within one raw unit (2^16 phase units) */
    assert_true(m.min_diff >= -65536 && m.max_diff <= 65536);
    /* normalised sync: the constant 0.15-cycle offset, walk leading (+) or run leading (-) */
    const int64_t off = (int64_t)at_units(18350, 45875) - (int64_t)at_units(16384, 65536);
    assert_true(off > 9830 * 65536LL && off < 9832 * 65536LL); /* 0.15 cycle = 9830.4 raw */
    assert_int_equal(n.max_diff, off);
    assert_int_equal(n.min_diff, -off);
    assert_int_equal(n.leader_changes, m.leader_changes);
    /* the pose: the first tick (speed 0: the walk alone) agrees; once the run has weight they differ */
    assert_int_equal(pm[0], pn[0]);
    int differ = 0;
    for (int k = 1; k < POSE_TICKS; k++) differ += pm[k] != pn[k];
    assert_true(differ > POSE_TICKS / 2);
}

/* A follower without the leader's markers keeps the normalised phase (the documented fallback). */
static void test_fallback(void** state) {
    (void)state;
    const run_result f = sweep(CONFIG(", \"sync\": \"markers\"", WALK_M, ""), NULL, 0);
    const int64_t off = (int64_t)at_units(18350, 45875) - (int64_t)at_units(16384, 65536);
    assert_int_equal(f.max_diff, off);
    assert_int_equal(f.min_diff, -off);
}

/* docs/actions.md "The marker position": with the walk leading (speed 0.25: walk 0.75, run 0.25), an
 * event "step" at each clip's foot_l time (walk 0.25 s, run 0.28 s) fires for the run follower in the tick
 * the walk's own event fires — the tick whose node phase passes at_walk(foot_l), since the mapping sends
 * at_walk(foot_l) exactly to at_run(foot_l) and is increasing between the markers — and with normalised
 * sync in other ticks (0.15 cycle later). A run curve equal to its clip seconds reads the mapped phase:
 * the channel is w_run * seconds(the run's sampled phase), rounded (within 2 raw units). */
#define STEP ", \"events\": [ {\"name\": \"step\", \"time\": "
#define RUN_EV STEP "0.28} ], \"curves\": { \"t\": [ [0, 0], [0.7, 0.7] ] }"

static int follower_run(const char* text, int check_curve) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(text, &err, &r);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    void* mem;
    bsync_instance* inst = make(g, &mem);
    const fix16_t target[1] = {16384};
    const bsync_instance_input in = {target, 1};
    const uint32_t a = at_units(16384, 65536);
    uint32_t f0 = bsync_instance_node_sample_phase(inst, 0);
    int together = 0, apart = 0, walk_steps = 0, curve_checked = 0;
    for (int k = 0; k < 120; k++) {
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        const fix16_t* w = bsync_instance_node_weights(inst, 0);
        assert_int_equal(w[0], 49152);
        assert_int_equal(w[1], 16384);
        const uint32_t f1 = bsync_instance_node_sample_phase(inst, 0);
        const int passes = (uint32_t)(a - f0) < (uint32_t)(f1 - f0);
        f0 = f1;
        const bsync_action_report* rep;
        uint32_t n;
        assert_int_equal(bsync_instance_actions(inst, &rep, &n), BSYNC_OK);
        int fired[2] = {0, 0};
        for (uint32_t i = 0; i < n; i++) fired[rep[i].child] += (int)rep[i].count;
        assert_int_equal(fired[0], passes); /* the leader: the node phase itself */
        walk_steps += fired[0];
        together += fired[0] && fired[1];
        apart += fired[0] != fired[1];
        if (check_curve) {
            fix16_t v;
            assert_int_equal(bsync_instance_curve(inst, 0, &v), BSYNC_OK);
            const int64_t p = bsync_instance_child_sample_phase(inst, 0, 1);
            const int64_t want = (16384 * ((p * 45875) >> 32) + 32768) >> 16;
            assert_true(v >= want - 2 && v <= want + 2);
            const int64_t unmapped = (16384 * (((int64_t)f1 * 45875) >> 32) + 32768) >> 16;
            curve_checked += v - unmapped > 1000 || unmapped - v > 1000;
        }
    }
    assert_true(walk_steps >= 3);
    if (check_curve) assert_true(curve_checked > 60);
    free(mem);
    bsync_graph_config_destroy(gc);
    return apart == 0 ? together : -apart;
}

static void test_follower_events_and_curves(void** state) {
    (void)state;
    const int m = follower_run(CONFIG(", \"sync\": \"markers\"", WALK_M STEP "0.25} ]", RUN_M RUN_EV), 1);
    assert_true(m >= 3); /* every step of the run fired with the walk's */
    const int n = follower_run(CONFIG(", \"sync\": \"normalized\"", WALK_M STEP "0.25} ]", RUN_M RUN_EV), 0);
    assert_true(n <= -6); /* normalised: never in the same tick, so each side counts apart */
}

/* docs/actions.md "Sync groups": two nodes on their own clocks (children of a "sync": "none" root: each
 * keeps its own phase, at 1/1.0 s and 1/0.7 s cycles per second), "w" playing the walk and "r" the run.
 * With "sync_group": "legs" on both, the follower takes the leader's marker phase: the foot_l offset
 * difference stays within one raw unit while the speed sweeps 0 -> 1 -> 0 (the leader, the larger
 * contribution, changes; at 0.5 the tie goes to the walk, the lower slot). Without the group the two
 * clocks drift apart: the difference takes values more than a quarter cycle apart. */
#define GROUP_CONFIG(GROUP)                                                                                      \
    "{ \"parameters\": { \"speed\": {}, \"one\": { \"default\": 1 } }, \"root\": \"mix\", \"nodes\": { "        \
    "\"mix\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"sync\": \"none\", \"children\": [ "            \
    "{ \"motion\": \"w\", \"threshold\": 0 }, { \"motion\": \"r\", \"threshold\": 1 } ] }, "                      \
    "\"w\": { \"type\": \"Direct\", \"normalize\": false" GROUP ", \"children\": [ { \"motion\": \"walk\", "      \
    "\"parameter\": \"one\" } ] }, "                                                                            \
    "\"r\": { \"type\": \"Direct\", \"normalize\": false" GROUP ", \"children\": [ { \"motion\": \"run\", "       \
    "\"parameter\": \"one\" } ] } }, "                                                                           \
    "\"clips\": { \"walk\": { \"source\": \"builtin:humanoid\"" WALK_M " }, \"run\": { \"source\": "           \
    "\"builtin:humanoid\"" RUN_M " } } }"

static uint64_t hash_of(const char* text);
static void expect(const char* text, const char* message);

#define LEAD_EV(T) ", \"events\": [ {\"name\": \"step\", \"time\": " T ", \"policy\": \"leader\"} ]"
#define GROUP_CONFIG_EV(GROUP)                                                                                      \
    "{ \"parameters\": { \"speed\": {}, \"one\": { \"default\": 1 } }, \"root\": \"mix\", \"nodes\": { "        \
    "\"mix\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"sync\": \"none\", \"children\": [ "            \
    "{ \"motion\": \"w\", \"threshold\": 0 }, { \"motion\": \"r\", \"threshold\": 1 } ] }, "                      \
    "\"w\": { \"type\": \"Direct\", \"normalize\": false" GROUP ", \"children\": [ { \"motion\": \"walk\", "      \
    "\"parameter\": \"one\" } ] }, "                                                                            \
    "\"r\": { \"type\": \"Direct\", \"normalize\": false" GROUP ", \"children\": [ { \"motion\": \"run\", "       \
    "\"parameter\": \"one\" } ] } }, "                                                                           \
    "\"clips\": { \"walk\": { \"source\": \"builtin:humanoid\"" WALK_M LEAD_EV("0.25") " }, \"run\": { \"source\": "           \
    "\"builtin:humanoid\"" RUN_M LEAD_EV("0.28") " } } }"

static uint64_t hash_of(const char* text);
static void expect(const char* text, const char* message);

static run_result group_sweep(const char* text) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(text, &err, &r);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    uint32_t nw, nr;
    assert_int_equal(bsync_blend_tree_find_node(bsync_graph_tree(g), "w", &nw), BSYNC_OK);
    assert_int_equal(bsync_blend_tree_find_node(bsync_graph_tree(g), "r", &nr), BSYNC_OK);
    const uint32_t fl[2] = {at_units(16384, 65536), at_units(18350, 45875)};
    void* mem;
    bsync_instance* inst = make(g, &mem);
    run_result out = {INT64_MAX, INT64_MIN, 0, 0};
    int prev_leader = -1;
    for (int k = 0; k < 1024; k++) {
        const int s = k % 512 < 256 ? k % 512 : 511 - k % 512;
        const fix16_t target[2] = {(fix16_t)(s * 256), BSYNC_FX_ONE};
        const bsync_instance_input in = {target, 2};
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        const fix16_t* w = bsync_instance_node_weights(inst, 0);
        const int leader = w[1] > w[0] ? 1 : 0; /* contributions: the Direct children weigh 1.0 */
        if (prev_leader >= 0 && leader != prev_leader) out.leader_changes++;
        prev_leader = leader;
        const uint32_t ph[2] = {bsync_instance_child_sample_phase(inst, nw, 0), bsync_instance_child_sample_phase(inst, nr, 0)};
        assert_int_equal(ph[leader], bsync_instance_node_sample_phase(inst, leader ? nr : nw));
        if (w[0] > 0 && w[1] > 0) {
            out.both_weighted++;
            const int32_t d = (int32_t)((ph[leader] - fl[leader]) - (ph[1 - leader] - fl[1 - leader]));
            if (d < out.min_diff) out.min_diff = d;
            if (d > out.max_diff) out.max_diff = d;
        }
    }
    free(mem);
    bsync_graph_config_destroy(gc);
    return out;
}

/* The leader policy in a named group: events "step" with "policy": "leader" at each clip's foot_l fire
 * only for the group's leader (the larger contribution; the walk on ties); without the group each node
 * is its own group and both fire. Returns the follower's firings; *leader_fired the leader's. */
static int group_leader_events(const char* text, int* leader_fired) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(text, &err, &r);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    uint32_t nw;
    assert_int_equal(bsync_blend_tree_find_node(bsync_graph_tree(g), "w", &nw), BSYNC_OK);
    void* mem;
    bsync_instance* inst = make(g, &mem);
    int follower = 0;
    *leader_fired = 0;
    for (int k = 0; k < 1024; k++) {
        const int s = k % 512 < 256 ? k % 512 : 511 - k % 512;
        const fix16_t target[2] = {(fix16_t)(s * 256), BSYNC_FX_ONE};
        const bsync_instance_input in = {target, 2};
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        const fix16_t* w = bsync_instance_node_weights(inst, 0);
        const uint32_t lead_node = w[1] > w[0] ? 1u : 0u; /* 0: the walk leads, 1: the run */
        const bsync_action_report* rep;
        uint32_t n;
        assert_int_equal(bsync_instance_actions(inst, &rep, &n), BSYNC_OK);
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t who = rep[i].node == nw ? 0u : 1u;
            if (who == lead_node) *leader_fired += (int)rep[i].count;
            else follower += (int)rep[i].count;
        }
    }
    free(mem);
    bsync_graph_config_destroy(gc);
    return follower;
}

static void test_sync_group(void** state) {
    (void)state;
    const run_result gr = group_sweep(GROUP_CONFIG(", \"sync_group\": \"legs\""));
    assert_true(gr.leader_changes >= 2);
    assert_true(gr.both_weighted > 900);
    assert_true(gr.min_diff >= -65536 && gr.max_diff <= 65536);
    const run_result free_run = group_sweep(GROUP_CONFIG(""));
    assert_true(free_run.max_diff - free_run.min_diff > ((int64_t)1 << 30));
    /* the hash tells grouped and ungrouped apart; a node with "sync": "none" cannot join a group */
    assert_true(hash_of(GROUP_CONFIG(", \"sync_group\": \"legs\"")) != hash_of(GROUP_CONFIG("")));
    /* the leader policy follows the named group */
    int lead = 0;
    static const char grouped[] = GROUP_CONFIG_EV(", \"sync_group\": \"legs\"");
    static const char ungrouped[] = GROUP_CONFIG_EV("");
    assert_int_equal(group_leader_events(grouped, &lead), 0);
    assert_true(lead >= 10);
    assert_true(group_leader_events(ungrouped, &lead) >= 10);
    expect(CONFIG(", \"sync\": \"none\", \"sync_group\": \"legs\"", WALK_M, RUN_M),
           "g.json: /nodes/loco/sync_group: a sync group needs the node's clock (\"sync\": \"none\" excludes it)");
    expect(CONFIG(", \"sync_group\": 3", WALK_M, RUN_M), "g.json: /nodes/loco/sync_group: expected a string (the sync group's name)");
}

#define SWITCH(WALK_EXIT)                                                                                        \
    "{ \"parameters\": { \"speed\": {} }, \"root\": \"act\", \"nodes\": { \"act\": { \"type\": \"Switch\", "     \
    "\"initial\": \"walk\", \"children\": [ { \"motion\": \"walk\"" WALK_EXIT " }, { \"motion\": \"run\" } ] } }, "  \
    "\"clips\": { \"walk\": { \"source\": \"builtin:humanoid\"" WALK_M " }, \"run\": { \"source\": "             \
    "\"builtin:humanoid\"" RUN_M " } } }"

/* A switch walk -> run with carry_time 2 (BSYNC_SWITCH_START_MARKER) starts the run at the walk's marker
 * phase: the walk at phase f between foot_l (a) and foot_r (b) puts the run at
 * a' + floor((f - a) * (b' - a') / (b - a)), then the tick advances it one run step (bsync_time_advance
 * with bsync_time_step_init(0.7 s, 1.0, 30)); carry_time 1 starts it at f itself. */
static uint32_t switch_run_phase(uint32_t carry, uint32_t* walk_phase_before) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(SWITCH(""), &err, &r);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    void* mem;
    bsync_instance* inst = make(g, &mem);
    const fix16_t target[1] = {0};
    const bsync_instance_input in = {target, 1};
    for (int k = 0; k < 10; k++) assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
    *walk_phase_before = bsync_instance_child_sample_phase(inst, 0, 0);
    const bsync_switch_trigger t = {0, 1, 4, carry, 0};
    assert_int_equal(bsync_instance_tick_ex(inst, &in, &t, 1), BSYNC_OK);
    const uint32_t run = bsync_instance_child_sample_phase(inst, 0, 1);
    free(mem);
    bsync_graph_config_destroy(gc);
    return run;
}

static void test_switch_start_marker(void** state) {
    (void)state;
    uint32_t f1, f2;
    const uint32_t carried = switch_run_phase(1, &f1);
    const uint32_t marked = switch_run_phase(BSYNC_SWITCH_START_MARKER, &f2);
    assert_int_equal(f1, f2);
    const uint32_t a = at_units(16384, 65536), b = at_units(49152, 65536);   /* walk 0.25 s, 0.75 s */
    const uint32_t a2 = at_units(18350, 45875), b2 = at_units(41288, 45875); /* run 0.28 s, 0.63 s */
    assert_true(f1 > a && f1 < b); /* 10 ticks of 30 Hz on a 1 s clip: 1/3 */
    bsync_time_step step;
    assert_int_equal(bsync_time_step_init(45875, BSYNC_FX_ONE, 30, &step), BSYNC_OK);
    bsync_clip_time want = bsync_time_start();
    want.phase = a2 + (uint32_t)((uint64_t)(f1 - a) * (uint64_t)(b2 - a2) / (uint64_t)(b - a));
    bsync_time_advance(&want, &step);
    assert_int_equal(marked, want.phase);
    bsync_clip_time plain = bsync_time_start();
    plain.phase = f1;
    bsync_time_advance(&plain, &step);
    assert_int_equal(carried, plain.phase);
    /* the two starts are 0.15 cycle apart */
    assert_true((uint32_t)(marked - carried) > 9830u * 65536u && (uint32_t)(marked - carried) < 9832u * 65536u);
    /* an invalid carry value is still refused */
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(SWITCH(""), &err, &r);
    void* mem;
    bsync_instance* inst = make(bsync_graph_config_graph(gc), &mem);
    const fix16_t target[1] = {0};
    const bsync_instance_input in = {target, 1};
    const bsync_switch_trigger t = {0, 1, 4, 3, 0};
    assert_int_equal(bsync_instance_tick_ex(inst, &in, &t, 1), BSYNC_INVALID_ARGUMENT);
    free(mem);
    bsync_graph_config_destroy(gc);
}

static uint64_t hash_of(const char* text) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(text, &err, &r);
    assert_int_equal(r, BSYNC_OK);
    const uint64_t h = bsync_graph_hash(bsync_graph_config_graph(gc));
    bsync_graph_config_destroy(gc);
    return h;
}

static void test_hash(void** state) {
    (void)state;
    const uint64_t plain = hash_of(CONFIG("", "", ""));
    assert_int_equal(plain, hash_of(CONFIG(", \"sync\": \"normalized\"", "", "")));
    const uint64_t with_markers = hash_of(CONFIG("", WALK_M, RUN_M));
    const uint64_t synced = hash_of(CONFIG(", \"sync\": \"markers\"", WALK_M, RUN_M));
    assert_true(with_markers != plain);
    assert_true(synced != with_markers);
    assert_true(hash_of(CONFIG(", \"sync\": \"markers\"", WALK_M, ", \"markers\": [{\"name\": \"foot_l\", \"time\": 0.3}]")) != synced);
}

static void expect(const char* text, const char* message) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* g = NULL;
    r = bsync_graph_config_parse(text, strlen(text), "g.json", NULL, &g, NULL, &err);
    if (r != BSYNC_CONFIG_ERROR || strcmp(err.message, message) != 0)
        fprintf(stderr, "got:  %s\nwant: %s\n", err.message, message);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_null(g);
    assert_string_equal(err.message, message);
}

static void test_bad_input(void** state) {
    (void)state;
    expect(CONFIG("", ", \"markers\": [ {\"name\": \"a\", \"time\": 0.5}, {\"name\": \"b\", \"time\": 0.25} ]", ""),
           "g.json: /clips/walk/markers/1/time: markers are sorted by time (this one is before marker 0)");
    expect(CONFIG("", ", \"markers\": [ {\"name\": \"a\", \"time\": 0.5}, {\"name\": \"a\", \"time\": 0.5} ]", ""),
           "g.json: /clips/walk/markers/1/time: duplicate marker (marker 0 has the same name and time)");
    expect(CONFIG("", "", ", \"markers\": [ {\"name\": \"a\", \"time\": 0.7} ]"),
           "g.json: /clips/run/markers/0/time: 0.7 s is outside the clip (0 to below 0.7 s)");
    expect(CONFIG("", ", \"markers\": [ {\"name\": \"a\", \"time\": -0.5} ]", ""),
           "g.json: /clips/walk/markers/0/time: a marker time is >= 0");
    expect(CONFIG("", ", \"markers\": [ {\"name\": \"a\"} ]", ""),
           "g.json: /clips/walk/markers/0: missing field \"time\"");
    expect(SWITCH(", \"exit\": {\"to\": \"run\", \"at\": 0.5, \"start\": \"phase\"}"),
           "g.json: /nodes/act/children/0/exit/start: expected \"marker\" (the target starts at the matching marker)");
    expect(SWITCH(", \"exit\": {\"to\": \"run\", \"at\": 0.5, \"carry\": true, \"start\": \"marker\"}"),
           "g.json: /nodes/act/children/0/exit/start: \"start\": \"marker\" and \"carry\": true exclude each other");
    expect("{ \"parameters\": { \"speed\": {} }, \"root\": \"act\", \"nodes\": { \"act\": { \"type\": \"Switch\", "
           "\"children\": [ { \"motion\": \"walk\", \"exit\": {\"to\": \"run\", \"start\": \"marker\"} }, { \"motion\": \"run\" } ] } }, "
           "\"clips\": { \"walk\": { \"source\": \"builtin:humanoid\" }, \"run\": { \"source\": \"builtin:humanoid\" } } }",
           "g.json: /nodes/act/children/0/exit/start: \"start\": \"marker\" needs markers on the clips");
    /* an exit with "start": "marker" loads, and its hash differs from the carried exit's */
    assert_true(hash_of(SWITCH(", \"exit\": {\"to\": \"run\", \"at\": 0.5, \"start\": \"marker\"}")) !=
                hash_of(SWITCH(", \"exit\": {\"to\": \"run\", \"at\": 0.5, \"carry\": true}")));
    /* the same name at two times and two names at one time are fine */
    hash_of(CONFIG("", ", \"markers\": [ {\"name\": \"a\", \"time\": 0.5}, {\"name\": \"b\", \"time\": 0.5}, {\"name\": \"a\", \"time\": 0.6} ]", ""));
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_phase_difference), cmocka_unit_test(test_fallback),
                                       cmocka_unit_test(test_hash), cmocka_unit_test(test_switch_start_marker),
                                       cmocka_unit_test(test_bad_input), cmocka_unit_test(test_follower_events_and_curves),
                                       cmocka_unit_test(test_sync_group)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
