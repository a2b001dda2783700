/* test_one_shot.c — one-shot motions, their time queries and exit-time transitions (graph.h "actions",
 * docs/actions.md "One-shot motions", "Exit-time transitions") on the procedural humanoid at 30 Hz.
 * Expectations come from the documented rules and the clips' durations (walk 1.0 s = 30 ticks, run
 * 0.7 s), not from the code's output: a one-shot's pose past its end is bsync_clip_sample at the
 * duration with CLAMP (a single slot of weight 1.0 is copied bit for bit by the blend); an exit at 1.0
 * applies in the tick after the one whose clock went past the end (strictly past); in a synchronised
 * node with walk and run at 0.5 each, L = 0.85 s, so the node's cycle ends between ticks 25 and 26. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/procedural.h"
#include "blendsync/sample.h"
#include "test_support.h"

enum { J = 23, IDLE = 0, WALK = 1, RUN = 2 };

static bsync_procedural_humanoid g_h;

/* Param p; motions idle, walk, run; node 0 = Simple1D(p) over the three (thresholds 0, 0.5, 1). */
static bsync_blend_tree* make_tree(void) {
    static const char* pn[1] = {"p"};
    static const char* mn[3] = {"idle", "walk", "run"};
    static const fix16_t defaults[1] = {0};
    static const fix16_t th[3] = {0, 32768, BSYNC_FX_ONE};
    static const bsync_blend_child_ref c0[3] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    static const uint32_t p0[1] = {0};
    bsync_blend_node_desc nodes[1];
    memset(nodes, 0, sizeof nodes);
    nodes[0].name = "n";
    nodes[0].space.type = BSYNC_BLEND_SIMPLE_1D;
    nodes[0].space.child_count = 3;
    nodes[0].space.thresholds = th;
    nodes[0].children = c0;
    nodes[0].params = p0;
    bsync_blend_tree_desc td = {pn, defaults, 1, mn, 3, nodes, 1, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

typedef struct world {
    bsync_blend_tree* tree;
    bsync_graph* graph;
    void* mem;
    bsync_instance* inst;
} world;

/* switch_initial: a switch on node 0 starting there (UINT32_MAX: no switch, synchronised node). */
static world make_world(const uint32_t one_shot[3], uint32_t switch_initial, const bsync_graph_exit_desc* exits,
                        uint32_t exit_count) {
    world w;
    w.tree = make_tree();
    static const bsync_clip* clips[3];
    clips[0] = g_h.clips[0];
    clips[1] = g_h.clips[1];
    clips[2] = g_h.clips[2];
    bsync_graph_node_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sync = switch_initial == UINT32_MAX ? BSYNC_SYNC_NORMALIZED : BSYNC_SYNC_NONE;
    bsync_graph_switch_desc sw = {0, switch_initial};
    bsync_graph_actions_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.one_shot = one_shot;
    ad.exits = exits;
    ad.exit_count = exit_count;
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    d.tree = w.tree;
    d.skeleton = g_h.skeleton;
    d.clips = clips;
    d.tick_rate = 30;
    d.node_options = &opt;
    d.switches = switch_initial == UINT32_MAX ? NULL : &sw;
    d.switch_count = switch_initial == UINT32_MAX ? 0 : 1;
    d.actions = &ad;
    w.graph = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &w.graph), BSYNC_OK);
    const size_t sz = bsync_instance_memory_size(w.graph);
    w.mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    assert_int_equal(bsync_instance_init(w.mem, sz, w.graph, &w.inst), BSYNC_OK);
    return w;
}

static void free_world(world* w) {
    free(w->mem);
    bsync_graph_destroy(w->graph);
    bsync_blend_tree_destroy(w->tree);
}

static void tick(world* w, fix16_t p, const bsync_switch_trigger* t, uint32_t n) {
    const fix16_t target[1] = {p};
    bsync_instance_input in = {target, 1};
    assert_int_equal(bsync_instance_tick_ex(w->inst, &in, t, n), BSYNC_OK);
}

static uint32_t newest_state(const world* w) {
    bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
    uint32_t n = 0;
    assert_int_equal(bsync_instance_switch_state(w->inst, 0, e, &n), BSYNC_OK);
    return e[n - 1].child;
}

static uint64_t clamp_end_pose_checksum(const bsync_clip* clip) {
    bsync_trs pose[J];
    assert_int_equal(bsync_clip_sample(clip, bsync_clip_duration(clip), BSYNC_LOOP_CLAMP,
                                       bsync_skeleton_rest_pose(g_h.skeleton), J, NULL, pose),
                     BSYNC_OK);
    return bsync_checksum_pose(pose, J);
}

static uint64_t pose_sum(world* w) {
    uint64_t h = 0;
    assert_int_equal(bsync_instance_pose_checksum(w->inst, &h, NULL), BSYNC_OK);
    return h;
}

/* walk one-shot as the only state playing: time, finished, and the held end pose. */
static void test_one_shot_holds_end(void** state) {
    (void)state;
    const uint32_t once[3] = {0, 1, 0};
    world w = make_world(once, WALK, NULL, 0);
    assert_int_equal(bsync_graph_motion_one_shot(w.graph, WALK), 1);
    assert_int_equal(bsync_graph_motion_one_shot(w.graph, IDLE), 0);
    bsync_motion_time mt;
    for (int k = 1; k <= 45; k++) {
        tick(&w, 0, NULL, 0);
        assert_int_equal(bsync_instance_motion_time(w.inst, 0, WALK, &mt), BSYNC_OK);
        assert_int_equal(mt.one_shot, 1);
        if (k < 30) { /* k/30 s, floored to a raw step: within one raw step below the exact value */
            const int64_t exact = ((int64_t)k * 65536 + 29) / 30;
            assert_true(mt.seconds <= exact && mt.seconds >= exact - 1);
            assert_int_equal(mt.finished, 0);
            assert_int_equal(mt.cycles, 0);
        } else {
            assert_int_equal(mt.finished, 1);
            assert_int_equal(mt.seconds, BSYNC_FX_ONE);
            assert_int_equal(mt.normalized, BSYNC_FX_ONE);
            assert_true(pose_sum(&w) == clamp_end_pose_checksum(g_h.clips[1]));
        }
    }
    /* the looping idle slot (weight 0, own clock) keeps wrapping: 45 ticks of a 2 s clip = 1.5 s */
    assert_int_equal(bsync_instance_motion_time(w.inst, 0, IDLE, &mt), BSYNC_OK);
    assert_int_equal(mt.finished, 0);
    assert_int_equal(mt.one_shot, 0);
    assert_true(mt.seconds >= 98303 && mt.seconds <= 98304);
    free_world(&w);
}

/* Looping and one-shot children of one synchronised node (Unity's rule): walk loops, run holds. */
static void test_sync_mixed(void** state) {
    (void)state;
    const uint32_t once[3] = {0, 0, 1};
    world w = make_world(once, UINT32_MAX, NULL, 0);
    bsync_motion_time mw, mr;
    for (int k = 1; k <= 40; k++) {
        tick(&w, 49152, NULL, 0); /* p = 0.75: walk 0.5, run 0.5 */
        assert_int_equal(bsync_instance_motion_time(w.inst, 0, WALK, &mw), BSYNC_OK);
        assert_int_equal(bsync_instance_motion_time(w.inst, 0, RUN, &mr), BSYNC_OK);
        /* the weights are set in tick 1 before the clocks move: node phase after k ticks = k / 25.5
         * cycles (L = 0.85 s at 30 Hz), so the cycle ends between k = 25 (0.980) and 26 (1.020) */
        assert_int_equal(mr.finished, k >= 26 ? 1 : 0);
        assert_int_equal(mw.finished, 0);
        assert_int_equal(mw.cycles, k >= 26 ? 1 : 0);
        if (k >= 26) assert_int_equal(mr.seconds, bsync_clip_duration(g_h.clips[2]));
    }
    free_world(&w);
}

/* walk (one-shot) exits to idle at its end, instantly: walk through tick 31, idle from tick 32. */
static void test_exit_at_end(void** state) {
    (void)state;
    const uint32_t once[3] = {0, 1, 0};
    const bsync_graph_exit_desc ex = {0, WALK, IDLE, BSYNC_FX_ONE, 0, 0, 0};
    world w = make_world(once, WALK, &ex, 1);
    assert_int_equal(bsync_graph_exit_count(w.graph), 1);
    for (int k = 1; k <= 40; k++) {
        tick(&w, 0, NULL, 0);
        assert_int_equal(newest_state(&w), k <= 31 ? WALK : IDLE);
        const fix16_t* wt = bsync_instance_node_weights(w.inst, 0);
        assert_int_equal(wt[k <= 31 ? WALK : IDLE], BSYNC_FX_ONE);
    }
    free_world(&w);
}

/* An exit at 0.5 with a 4-tick fade: past 0.5 after tick 16 (16/30 > 0.5, 15/30 = 0.5 is not past),
 * so the fade starts in tick 17: idle 0.25, 0.5, 0.75, 1.0 after ticks 17..20. */
static void test_exit_mid_fade(void** state) {
    (void)state;
    const uint32_t once[3] = {0, 1, 0};
    const bsync_graph_exit_desc ex = {0, WALK, IDLE, 32768, 4, 0, 0};
    world w = make_world(once, WALK, &ex, 1);
    static const fix16_t expect[4] = {16384, 32768, 49152, BSYNC_FX_ONE};
    for (int k = 1; k <= 22; k++) {
        tick(&w, 0, NULL, 0);
        const fix16_t* wt = bsync_instance_node_weights(w.inst, 0);
        const fix16_t idle = k < 17 ? 0 : k > 20 ? BSYNC_FX_ONE : expect[k - 17];
        assert_int_equal(wt[IDLE], idle);
        assert_int_equal(wt[WALK], BSYNC_FX_ONE - idle);
    }
    free_world(&w);
}

/* A trigger at every tick t of walk's play interrupts the exit: run from tick t on, never idle (run
 * has no exit); an instant trigger back to walk restarts it, and its exit fires 31 ticks later. */
static void test_exit_under_triggers(void** state) {
    (void)state;
    const uint32_t once[3] = {0, 1, 0};
    const bsync_graph_exit_desc ex = {0, WALK, IDLE, BSYNC_FX_ONE, 0, 0, 0};
    for (int t = 1; t <= 32; t++) {
        world w = make_world(once, WALK, &ex, 1);
        const bsync_switch_trigger run = {0, RUN, 0, 0, 0};
        for (int k = 1; k <= 40; k++) {
            tick(&w, 0, k == t ? &run : NULL, k == t ? 1u : 0u);
            const uint32_t want = k < t ? (k <= 31 ? WALK : IDLE) : RUN;
            assert_int_equal(newest_state(&w), want);
        }
        const bsync_switch_trigger back = {0, WALK, 0, 0, 0};
        tick(&w, 0, &back, 1); /* walk restarts at 0 and plays one tick */
        for (int k = 2; k <= 33; k++) {
            tick(&w, 0, NULL, 0);
            assert_int_equal(newest_state(&w), k <= 31 ? WALK : IDLE);
        }
        free_world(&w);
    }
}

/* The actions block is format 6 only when something is in it; bad exits are refused. */
static void test_hash_and_errors(void** state) {
    (void)state;
    const uint32_t none[3] = {0, 0, 0}, once[3] = {0, 1, 0};
    world a = make_world(none, WALK, NULL, 0);
    bsync_blend_tree* t = make_tree();
    const bsync_clip* clips[3] = {g_h.clips[0], g_h.clips[1], g_h.clips[2]};
    bsync_graph_node_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sync = BSYNC_SYNC_NONE;
    bsync_graph_switch_desc sw = {0, WALK};
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    d.tree = t;
    d.skeleton = g_h.skeleton;
    d.clips = clips;
    d.tick_rate = 30;
    d.node_options = &opt;
    d.switches = &sw;
    d.switch_count = 1;
    bsync_graph* plain = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &plain), BSYNC_OK);
    assert_true(bsync_graph_hash(plain) == bsync_graph_hash(a.graph)); /* nothing in the block */
    world b = make_world(once, WALK, NULL, 0);
    assert_true(bsync_graph_hash(b.graph) != bsync_graph_hash(a.graph));
    const bsync_graph_exit_desc bad[5] = {
        {0, WALK, WALK, BSYNC_FX_ONE, 0, 0, 0}, /* to itself */
        {0, WALK, 3, BSYNC_FX_ONE, 0, 0, 0},    /* no such state */
        {1, WALK, IDLE, BSYNC_FX_ONE, 0, 0, 0}, /* no such switch */
        {0, WALK, IDLE, 0, 0, 0, 0},            /* exit time 0 */
        {0, WALK, IDLE, BSYNC_FX_ONE, 0, 0, 1}, /* inertialize without fade */
    };
    for (int i = 0; i < 5; i++) {
        bsync_graph_actions_desc ad;
        memset(&ad, 0, sizeof ad);
        ad.exits = &bad[i];
        ad.exit_count = 1;
        d.actions = &ad;
        bsync_graph* g = NULL;
        assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_INVALID_ARGUMENT);
        assert_null(g);
    }
    bsync_graph_destroy(plain);
    bsync_blend_tree_destroy(t);
    free_world(&a);
    free_world(&b);
}

static int setup(void** state) {
    (void)state;
    return bsync_procedural_humanoid_create(NULL, &g_h) == BSYNC_OK ? 0 : -1;
}
static int teardown(void** state) {
    (void)state;
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_shot_holds_end), cmocka_unit_test(test_sync_mixed),
        cmocka_unit_test(test_exit_at_end),        cmocka_unit_test(test_exit_mid_fade),
        cmocka_unit_test(test_exit_under_triggers), cmocka_unit_test(test_hash_and_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
