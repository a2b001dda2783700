/* test_blend_tree.c — nested blend nodes: flattening against hand-worked products, shared nodes,
 * cycles, validation codes, allocation and accessors (blend_tree.h).
 *
 * Expected weights are worked by hand from the blend-space rules that are exact by contract:
 * Simple1D tents at a midpoint (0.5 / 0.5), Direct (weight = parameter), and an interpolating 2D
 * space at a sample point or at the midpoint of a hull edge. Products follow bsync_fx_mul's
 * documented rounding (nearest, ties away from zero), worked out in the comments. */
#include "test_support.h"

#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/fixed.h"

#define ONE 65536
#define HALF 32768

/* ---------------------------------------------------------------- a small builder */

typedef struct fixture {
    const char* params[8];
    fix16_t defaults[8];
    const char* motions[8];
    bsync_blend_node_desc nodes[8];
    bsync_blend_child_ref children[8][8];
    uint32_t slots[8][8];
    fix16_t thresholds[8][8];
    bsync_vec2 positions[8][8];
    bsync_blend_tree_desc desc;
} fixture;

static void fx_begin(fixture* f) {
    memset(f, 0, sizeof *f);
    f->desc.parameter_names = f->params;
    f->desc.parameter_defaults = f->defaults;
    f->desc.motion_names = f->motions;
    f->desc.nodes = f->nodes;
}

static uint32_t add_param(fixture* f, const char* name, fix16_t def) {
    f->params[f->desc.parameter_count] = name;
    f->defaults[f->desc.parameter_count] = def;
    return f->desc.parameter_count++;
}
static uint32_t add_motion(fixture* f, const char* name) {
    f->motions[f->desc.motion_count] = name;
    return f->desc.motion_count++;
}
static uint32_t add_node(fixture* f, const char* name, bsync_blend_type type) {
    uint32_t i = f->desc.node_count++;
    bsync_blend_node_desc* n = &f->nodes[i];
    n->name = name;
    n->space.type = type;
    n->children = f->children[i];
    n->params = f->slots[i];
    n->space.thresholds = f->thresholds[i];
    n->space.positions = f->positions[i];
    return i;
}
/* Child of node `n`: a motion or node index with a threshold (1D) or position (2D). */
static void add_child(fixture* f, uint32_t n, bsync_blend_child_kind kind, uint32_t index, fix16_t a, fix16_t b) {
    uint32_t c = f->nodes[n].space.child_count++;
    f->children[n][c].kind = kind;
    f->children[n][c].index = index;
    f->thresholds[n][c] = a;
    f->positions[n][c].x = a;
    f->positions[n][c].y = b;
}

static bsync_blend_tree* build(fixture* f) {
    bsync_blend_tree* t = NULL;
    uint32_t failed = 12345;
    assert_int_equal(bsync_blend_tree_create(&f->desc, NULL, &t, NULL, &failed), BSYNC_OK);
    assert_int_equal(failed, UINT32_MAX);
    assert_non_null(t);
    return t;
}

static bsync_result build_fail(fixture* f, uint32_t* failed) {
    bsync_blend_tree* t = NULL;
    bsync_result r = bsync_blend_tree_create(&f->desc, NULL, &t, NULL, failed);
    assert_null(t);
    return r;
}

/* loco: Simple1D over parameter `p`, idle 0 / walk 2 / run 4 (motions idle, walk, run). */
static uint32_t add_loco(fixture* f, const char* name, uint32_t p, uint32_t idle, uint32_t walk, uint32_t run) {
    uint32_t n = add_node(f, name, BSYNC_BLEND_SIMPLE_1D);
    f->slots[n][0] = p;
    add_child(f, n, BSYNC_CHILD_MOTION, idle, 0, 0);
    add_child(f, n, BSYNC_CHILD_MOTION, walk, 2 * ONE, 0);
    add_child(f, n, BSYNC_CHILD_MOTION, run, 4 * ONE, 0);
    return n;
}

/* ---------------------------------------------------------------- flattening */

/* One Simple1D node, idle 0 / walk 1.5 at speed 0.75: the midpoint, 0.5 / 0.5 (raw 32768 each). */
static void test_single_1d_node(void** state) {
    (void)state;
    fixture f;
    fx_begin(&f);
    uint32_t speed = add_param(&f, "speed", 0);
    uint32_t idle = add_motion(&f, "idle"), walk = add_motion(&f, "walk");
    uint32_t n = add_node(&f, "move", BSYNC_BLEND_SIMPLE_1D);
    f.slots[n][0] = speed;
    add_child(&f, n, BSYNC_CHILD_MOTION, idle, 0, 0);
    add_child(&f, n, BSYNC_CHILD_MOTION, walk, 98304 /* 1.5 */, 0);
    bsync_blend_tree* t = build(&f);
    fix16_t params[1] = {49152 /* 0.75 */}, w[2], leaves[2];
    assert_int_equal(bsync_blend_tree_eval_node(t, 0, params, w), BSYNC_OK);
    assert_int_equal(w[0], HALF);
    assert_int_equal(w[1], HALF);
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 0, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[idle], HALF);
    assert_int_equal(leaves[walk], HALF);
    /* at and beyond the ends the tents clamp: all weight to one motion */
    params[0] = -5 * ONE;
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 0, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[idle], ONE);
    assert_int_equal(leaves[walk], 0);
    bsync_blend_tree_destroy(t);
}

/* Direct root [loco, wave] weighted by parameters a and b; loco at speed 1 gives idle/walk 0.5 each.
 *   a = 0.3 (raw 19661), b = 0.25 (raw 16384)
 *   idle = walk = mul(19661, 32768) = 9830.5 -> 9831 (ties away from zero); run = 0; wave = 16384. */
static void test_nested_direct_over_1d(void** state) {
    (void)state;
    fixture f;
    fx_begin(&f);
    uint32_t speed = add_param(&f, "speed", 0), pa = add_param(&f, "a", 0), pb = add_param(&f, "b", 0);
    uint32_t idle = add_motion(&f, "idle"), walk = add_motion(&f, "walk"), run = add_motion(&f, "run");
    uint32_t wave = add_motion(&f, "wave");
    uint32_t root = add_node(&f, "root", BSYNC_BLEND_DIRECT);
    uint32_t loco = add_loco(&f, "loco", speed, idle, walk, run);
    add_child(&f, root, BSYNC_CHILD_NODE, loco, 0, 0);
    add_child(&f, root, BSYNC_CHILD_MOTION, wave, 0, 0);
    f.slots[root][0] = pa;
    f.slots[root][1] = pb;
    f.desc.root = root;
    bsync_blend_tree* t = build(&f);

    fix16_t params[3] = {ONE, 19661, 16384}, w[2], leaves[4];
    assert_int_equal(bsync_blend_tree_eval_node(t, root, params, w), BSYNC_OK);
    assert_int_equal(w[0], 19661);
    assert_int_equal(w[1], 16384);
    assert_int_equal(bsync_blend_tree_eval_leaves(t, root, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[idle], 9831);
    assert_int_equal(leaves[walk], 9831);
    assert_int_equal(leaves[run], 0);
    assert_int_equal(leaves[wave], 16384);

    /* Leaves of the inner node alone: its own weights (the mass starts at exactly 1). */
    assert_int_equal(bsync_blend_tree_eval_leaves(t, loco, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[idle], HALF);
    assert_int_equal(leaves[walk], HALF);
    assert_int_equal(leaves[wave], 0);

    /* A zero weight is not descended into: with a = 0 nothing of loco shows. Negative -> 0. */
    params[1] = 0;
    params[2] = -ONE;
    assert_int_equal(bsync_blend_tree_eval_leaves(t, root, params, leaves), BSYNC_OK);
    for (int i = 0; i < 4; i++) assert_int_equal(leaves[i], 0);
    bsync_blend_tree_destroy(t);
}

/* Three levels: Direct top (param a) -> Direct mid (param b) -> loco at speed 3 (walk/run 0.5 each).
 * a = 0.75 (49152), b = 0.6 (raw round(0.6*65536) = round(39321.6) = 39322):
 *   mass(mid) = 49152; mass(loco) = mul(49152, 39322) = 1932754944/65536 = 29491.5 -> 29492;
 *   walk = run = mul(29492, 32768) = 14746. */
static void test_three_levels(void** state) {
    (void)state;
    fixture f;
    fx_begin(&f);
    uint32_t speed = add_param(&f, "speed", 0), pa = add_param(&f, "a", 0), pb = add_param(&f, "b", 0);
    uint32_t idle = add_motion(&f, "idle"), walk = add_motion(&f, "walk"), run = add_motion(&f, "run");
    uint32_t loco = add_loco(&f, "loco", speed, idle, walk, run);
    uint32_t mid = add_node(&f, "mid", BSYNC_BLEND_DIRECT);
    uint32_t top = add_node(&f, "top", BSYNC_BLEND_DIRECT);
    add_child(&f, top, BSYNC_CHILD_NODE, mid, 0, 0);
    f.slots[top][0] = pa;
    add_child(&f, mid, BSYNC_CHILD_NODE, loco, 0, 0);
    f.slots[mid][0] = pb;
    f.desc.root = top;
    bsync_blend_tree* t = build(&f);
    assert_int_equal(bsync_blend_tree_root(t), top);
    fix16_t params[3] = {3 * ONE, 49152, 39322}, leaves[3];
    assert_int_equal(bsync_blend_tree_eval_leaves(t, top, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[idle], 0);
    assert_int_equal(leaves[walk], 14746);
    assert_int_equal(leaves[run], 14746);
    bsync_blend_tree_destroy(t);
}

/* A node used twice (two child slots of the root, and a diamond through two parents): its mass is
 * the sum of what its parents give it, multiplied down once (blend_tree.h).
 *   root Direct [loco (a), loco (b)], a = b = 1 raw step, loco at speed 1 (0.5 / 0.5):
 *   mass = 2 raw; idle = walk = mul(2, 32768) = 1 raw (per-path products would give 1 + 1).
 *   a = 0.25, b = 0.5: mass 0.75 -> idle = walk = 0.375 (24576). */
static void test_shared_node(void** state) {
    (void)state;
    fixture f;
    fx_begin(&f);
    uint32_t speed = add_param(&f, "speed", 0), pa = add_param(&f, "a", 0), pb = add_param(&f, "b", 0);
    uint32_t idle = add_motion(&f, "idle"), walk = add_motion(&f, "walk"), run = add_motion(&f, "run");
    uint32_t root = add_node(&f, "root", BSYNC_BLEND_DIRECT);
    uint32_t loco = add_loco(&f, "loco", speed, idle, walk, run);
    add_child(&f, root, BSYNC_CHILD_NODE, loco, 0, 0);
    add_child(&f, root, BSYNC_CHILD_NODE, loco, 0, 0);
    f.slots[root][0] = pa;
    f.slots[root][1] = pb;
    bsync_blend_tree* t = build(&f);
    fix16_t params[3] = {ONE, 1, 1}, leaves[3];
    assert_int_equal(bsync_blend_tree_eval_leaves(t, root, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[idle], 1);
    assert_int_equal(leaves[walk], 1);
    assert_int_equal(leaves[run], 0);
    params[1] = 16384;
    params[2] = HALF;
    assert_int_equal(bsync_blend_tree_eval_leaves(t, root, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[idle], 24576);
    assert_int_equal(leaves[walk], 24576);
    bsync_blend_tree_destroy(t);
}

/* Diamond: top Direct [left (a), right (b)], left Direct [loco (c)], right Direct [loco (c), run (c)].
 * a = 0.5, b = 0.25, c = 1, speed 1: mass(loco) = 0.5 + 0.25 = 0.75 -> idle = walk = 0.375;
 * run = 0.25 directly (weight c = 1 under right). Node order puts the shared node FIRST, so the
 * topological order (not the index order) must be followed. */
static void test_diamond(void** state) {
    (void)state;
    fixture f;
    fx_begin(&f);
    uint32_t speed = add_param(&f, "speed", 0), pa = add_param(&f, "a", 0), pb = add_param(&f, "b", 0);
    uint32_t pc = add_param(&f, "c", 0);
    uint32_t idle = add_motion(&f, "idle"), walk = add_motion(&f, "walk"), run = add_motion(&f, "run");
    uint32_t loco = add_loco(&f, "loco", speed, idle, walk, run);
    uint32_t right = add_node(&f, "right", BSYNC_BLEND_DIRECT);
    uint32_t left = add_node(&f, "left", BSYNC_BLEND_DIRECT);
    uint32_t top = add_node(&f, "top", BSYNC_BLEND_DIRECT);
    add_child(&f, top, BSYNC_CHILD_NODE, left, 0, 0);
    add_child(&f, top, BSYNC_CHILD_NODE, right, 0, 0);
    f.slots[top][0] = pa;
    f.slots[top][1] = pb;
    add_child(&f, left, BSYNC_CHILD_NODE, loco, 0, 0);
    f.slots[left][0] = pc;
    add_child(&f, right, BSYNC_CHILD_NODE, loco, 0, 0);
    add_child(&f, right, BSYNC_CHILD_MOTION, run, 0, 0);
    f.slots[right][0] = pc;
    f.slots[right][1] = pc;
    f.desc.root = top;
    bsync_blend_tree* t = build(&f);
    fix16_t params[4] = {ONE, HALF, 16384, ONE}, leaves[3];
    assert_int_equal(bsync_blend_tree_eval_leaves(t, top, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[idle], 24576);
    assert_int_equal(leaves[walk], 24576);
    assert_int_equal(leaves[run], 16384);
    bsync_blend_tree_destroy(t);
}

/* 1D over 1D over 1D at many speeds: every node's weights sum to one, so the leaves sum to one
 * within (edges with nonzero weight)/2 raw steps — here at most 2 nonzero edges per level, 3 levels. */
static void test_leaves_sum_to_one(void** state) {
    (void)state;
    fixture f;
    fx_begin(&f);
    uint32_t s1 = add_param(&f, "s1", 0), s2 = add_param(&f, "s2", 0), s3 = add_param(&f, "s3", 0);
    uint32_t m[4];
    m[0] = add_motion(&f, "m0");
    m[1] = add_motion(&f, "m1");
    m[2] = add_motion(&f, "m2");
    m[3] = add_motion(&f, "m3");
    uint32_t a = add_node(&f, "a", BSYNC_BLEND_SIMPLE_1D);
    uint32_t b = add_node(&f, "b", BSYNC_BLEND_SIMPLE_1D);
    uint32_t c = add_node(&f, "c", BSYNC_BLEND_SIMPLE_1D);
    f.slots[a][0] = s1;
    f.slots[b][0] = s2;
    f.slots[c][0] = s3;
    add_child(&f, a, BSYNC_CHILD_MOTION, m[0], 0, 0);
    add_child(&f, a, BSYNC_CHILD_NODE, b, 3 * ONE, 0);
    add_child(&f, b, BSYNC_CHILD_MOTION, m[1], 0, 0);
    add_child(&f, b, BSYNC_CHILD_NODE, c, 7 * ONE, 0);
    add_child(&f, c, BSYNC_CHILD_MOTION, m[2], 0, 0);
    add_child(&f, c, BSYNC_CHILD_MOTION, m[3], 5 * ONE, 0);
    bsync_blend_tree* t = build(&f);
    uint64_t rng = 7;
    for (int i = 0; i < 2000; i++) {
        fix16_t params[3], leaves[4];
        params[0] = (fix16_t)(bsync_test_rand(&rng) % (3 * ONE + 1));
        params[1] = (fix16_t)(bsync_test_rand(&rng) % (7 * ONE + 1));
        params[2] = (fix16_t)(bsync_test_rand(&rng) % (5 * ONE + 1));
        assert_int_equal(bsync_blend_tree_eval_leaves(t, a, params, leaves), BSYNC_OK);
        int64_t sum = 0;
        for (int k = 0; k < 4; k++) {
            assert_true(leaves[k] >= 0);
            sum += leaves[k];
        }
        assert_true(sum >= ONE - 3 && sum <= ONE + 3);
    }
    bsync_blend_tree_destroy(t);
}

/* Delaunay2D over a unit square, nested under a Direct node: at a sample point that sample has all
 * the weight; at the midpoint of a hull edge the two ends share 0.5 / 0.5 exactly. */
static void test_nested_2d(void** state) {
    (void)state;
    fixture f;
    fx_begin(&f);
    uint32_t px = add_param(&f, "x", 0), py = add_param(&f, "y", 0), pw = add_param(&f, "w", ONE);
    uint32_t m0 = add_motion(&f, "sw"), m1 = add_motion(&f, "se"), m2 = add_motion(&f, "ne"), m3 = add_motion(&f, "nw");
    uint32_t top = add_node(&f, "top", BSYNC_BLEND_DIRECT);
    uint32_t sq = add_node(&f, "square", BSYNC_BLEND_DELAUNAY_2D);
    f.slots[sq][0] = px;
    f.slots[sq][1] = py;
    add_child(&f, sq, BSYNC_CHILD_MOTION, m0, 0, 0);
    add_child(&f, sq, BSYNC_CHILD_MOTION, m1, ONE, 0);
    add_child(&f, sq, BSYNC_CHILD_MOTION, m2, ONE, ONE);
    add_child(&f, sq, BSYNC_CHILD_MOTION, m3, 0, ONE);
    add_child(&f, top, BSYNC_CHILD_NODE, sq, 0, 0);
    f.slots[top][0] = pw;
    bsync_blend_tree* t = build(&f);
    assert_int_equal(bsync_blend_tree_parameter_default(t, pw), ONE);
    fix16_t params[3] = {ONE, ONE, HALF}, leaves[4];
    assert_int_equal(bsync_blend_tree_eval_leaves(t, top, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[m2], HALF); /* mul(32768, 65536) = 32768 */
    assert_int_equal(leaves[m0] + leaves[m1] + leaves[m3], 0);
    params[0] = HALF; /* (0.5, 0): midpoint of the bottom edge */
    params[1] = 0;
    params[2] = ONE;
    assert_int_equal(bsync_blend_tree_eval_leaves(t, top, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[m0], HALF);
    assert_int_equal(leaves[m1], HALF);
    assert_int_equal(leaves[m2] + leaves[m3], 0);
    bsync_blend_tree_destroy(t);
}

/* ---------------------------------------------------------------- cycles */

static void test_cycles(void** state) {
    (void)state;
    fixture f;
    uint32_t failed;
    /* a -> b -> a */
    fx_begin(&f);
    uint32_t p = add_param(&f, "p", 0);
    uint32_t a = add_node(&f, "a", BSYNC_BLEND_DIRECT), b = add_node(&f, "b", BSYNC_BLEND_DIRECT);
    add_child(&f, a, BSYNC_CHILD_NODE, b, 0, 0);
    add_child(&f, b, BSYNC_CHILD_NODE, a, 0, 0);
    f.slots[a][0] = p;
    f.slots[b][0] = p;
    failed = 99;
    assert_int_equal(build_fail(&f, &failed), BSYNC_CYCLE);
    assert_true(failed == a || failed == b);

    /* self loop: the node itself */
    fx_begin(&f);
    p = add_param(&f, "p", 0);
    uint32_t m = add_motion(&f, "m");
    uint32_t x = add_node(&f, "x", BSYNC_BLEND_DIRECT), y = add_node(&f, "y", BSYNC_BLEND_DIRECT);
    add_child(&f, x, BSYNC_CHILD_MOTION, m, 0, 0);
    add_child(&f, y, BSYNC_CHILD_MOTION, m, 0, 0);
    add_child(&f, y, BSYNC_CHILD_NODE, y, 0, 0);
    f.slots[x][0] = p;
    f.slots[y][0] = p;
    f.slots[y][1] = p;
    assert_int_equal(build_fail(&f, &failed), BSYNC_CYCLE);
    assert_int_equal(failed, y);

    /* a longer cycle below an acyclic part: r -> c1 -> c2 -> c3 -> c1; the failed node is on it */
    fx_begin(&f);
    p = add_param(&f, "p", 0);
    uint32_t r = add_node(&f, "r", BSYNC_BLEND_DIRECT);
    uint32_t c1 = add_node(&f, "c1", BSYNC_BLEND_DIRECT), c2 = add_node(&f, "c2", BSYNC_BLEND_DIRECT);
    uint32_t c3 = add_node(&f, "c3", BSYNC_BLEND_DIRECT);
    add_child(&f, r, BSYNC_CHILD_NODE, c1, 0, 0);
    add_child(&f, c1, BSYNC_CHILD_NODE, c2, 0, 0);
    add_child(&f, c2, BSYNC_CHILD_NODE, c3, 0, 0);
    add_child(&f, c3, BSYNC_CHILD_NODE, c1, 0, 0);
    for (uint32_t i = 0; i < 4; i++) f.slots[i][0] = p;
    assert_int_equal(build_fail(&f, &failed), BSYNC_CYCLE);
    assert_true(failed == c1 || failed == c2 || failed == c3);
    assert_true(failed != r);
}

/* ---------------------------------------------------------------- validation */

/* A valid two-node base to break one way at a time: root Simple1D [idle, sub], sub Direct [walk]. */
static void base(fixture* f) {
    fx_begin(f);
    uint32_t s = add_param(f, "speed", 0);
    add_param(f, "w", 0);
    uint32_t idle = add_motion(f, "idle"), walk = add_motion(f, "walk");
    uint32_t root = add_node(f, "root", BSYNC_BLEND_SIMPLE_1D);
    uint32_t sub = add_node(f, "sub", BSYNC_BLEND_DIRECT);
    f->slots[root][0] = s;
    add_child(f, root, BSYNC_CHILD_MOTION, idle, 0, 0);
    add_child(f, root, BSYNC_CHILD_NODE, sub, ONE, 0);
    f->slots[sub][0] = 1;
    add_child(f, sub, BSYNC_CHILD_MOTION, walk, 0, 0);
}

static void test_validation_codes(void** state) {
    (void)state;
    fixture f;
    uint32_t failed;
    bsync_blend_tree* t = NULL;

    base(&f);
    t = build(&f);
    bsync_blend_tree_destroy(t);
    assert_int_equal(bsync_blend_tree_create(NULL, NULL, &t, NULL, &failed), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(failed, UINT32_MAX);
    assert_int_equal(bsync_blend_tree_create(&f.desc, NULL, NULL, NULL, NULL), BSYNC_INVALID_ARGUMENT);

    base(&f);
    f.desc.node_count = 0;
    assert_int_equal(build_fail(&f, &failed), BSYNC_INVALID_ARGUMENT);
    base(&f);
    f.desc.root = 2;
    assert_int_equal(build_fail(&f, &failed), BSYNC_INVALID_ARGUMENT);

    /* names */
    base(&f);
    f.nodes[1].name = "root";
    assert_int_equal(build_fail(&f, &failed), BSYNC_DUPLICATE_NAME);
    assert_int_equal(failed, 1);
    base(&f);
    f.nodes[1].name = "walk"; /* a node named like a motion */
    assert_int_equal(build_fail(&f, &failed), BSYNC_DUPLICATE_NAME);
    assert_int_equal(failed, 1);
    base(&f);
    f.motions[1] = "idle";
    assert_int_equal(build_fail(&f, &failed), BSYNC_DUPLICATE_NAME);
    base(&f);
    f.params[1] = "speed";
    assert_int_equal(build_fail(&f, &failed), BSYNC_DUPLICATE_NAME);
    base(&f);
    f.params[1] = "root"; /* parameters have their own name space */
    t = build(&f);
    bsync_blend_tree_destroy(t);
    base(&f);
    f.nodes[0].name = "";
    assert_int_equal(build_fail(&f, &failed), BSYNC_BAD_NAME);
    assert_int_equal(failed, 0);
    char long_name[BSYNC_MAX_NAME + 1];
    memset(long_name, 'n', BSYNC_MAX_NAME);
    long_name[BSYNC_MAX_NAME] = '\0'; /* 64 bytes: one too many */
    base(&f);
    f.motions[0] = long_name;
    assert_int_equal(build_fail(&f, &failed), BSYNC_BAD_NAME);
    long_name[BSYNC_MAX_NAME - 1] = '\0'; /* 63 bytes: the longest allowed */
    base(&f);
    f.motions[0] = long_name;
    t = build(&f);
    assert_string_equal(bsync_blend_tree_motion_name(t, 0), long_name);
    bsync_blend_tree_destroy(t);

    /* indices */
    base(&f);
    f.children[1][0].index = 2; /* motion 2 does not exist */
    assert_int_equal(build_fail(&f, &failed), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(failed, 1);
    base(&f);
    f.children[0][1].index = 2; /* node 2 does not exist */
    assert_int_equal(build_fail(&f, &failed), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(failed, 0);
    base(&f);
    f.children[0][1].kind = (bsync_blend_child_kind)7;
    assert_int_equal(build_fail(&f, &failed), BSYNC_INVALID_ARGUMENT);
    base(&f);
    f.slots[1][0] = 2; /* parameter 2 does not exist */
    assert_int_equal(build_fail(&f, &failed), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(failed, 1);

    /* arity: Simple1D takes 1, Direct takes child_count, 2D types take 2 */
    base(&f);
    f.nodes[0].param_count = 2;
    assert_int_equal(build_fail(&f, &failed), BSYNC_MISMATCH);
    assert_int_equal(failed, 0);
    base(&f);
    f.nodes[0].param_count = 1;
    f.nodes[1].param_count = 1; /* exactly the arity: fine */
    t = build(&f);
    assert_int_equal(bsync_blend_tree_node_param_count(t, 1), 1);
    bsync_blend_tree_destroy(t);
    base(&f);
    add_child(&f, 1, BSYNC_CHILD_MOTION, 0, 0, 0); /* sub now has 2 children */
    f.nodes[1].param_count = 1;
    assert_int_equal(build_fail(&f, &failed), BSYNC_MISMATCH);
    assert_int_equal(failed, 1);
    base(&f);
    f.nodes[1].space.type = BSYNC_BLEND_FREEFORM_CARTESIAN_2D;
    f.nodes[1].param_count = 1;
    assert_int_equal(build_fail(&f, &failed), BSYNC_MISMATCH);

    /* limits */
    base(&f);
    f.nodes[1].space.child_count = 0;
    assert_int_equal(build_fail(&f, &failed), BSYNC_LIMIT_EXCEEDED);
    assert_int_equal(failed, 1);
    base(&f);
    f.nodes[1].space.child_count = BSYNC_MAX_BLEND_CHILDREN + 1;
    assert_int_equal(build_fail(&f, &failed), BSYNC_LIMIT_EXCEEDED);
    base(&f);
    f.desc.node_count = BSYNC_MAX_BLEND_NODES + 1;
    assert_int_equal(build_fail(&f, &failed), BSYNC_LIMIT_EXCEEDED);
    base(&f);
    f.desc.parameter_count = BSYNC_MAX_PARAMETERS + 1;
    assert_int_equal(build_fail(&f, &failed), BSYNC_LIMIT_EXCEEDED);
    base(&f);
    f.desc.motion_count = BSYNC_MAX_MOTIONS + 1;
    assert_int_equal(build_fail(&f, &failed), BSYNC_LIMIT_EXCEEDED);

    /* the blend space's own refusal comes back with the node: power 9 is outside 1..8 */
    base(&f);
    f.nodes[1].space.type = BSYNC_BLEND_INVERSE_DISTANCE_2D;
    f.slots[1][1] = 0;
    f.nodes[1].space.power = 9;
    assert_int_equal(build_fail(&f, &failed), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(failed, 1);
}

/* ---------------------------------------------------------------- allocation, accessors */

static void test_allocation(void** state) {
    (void)state;
    fixture f;
    base(&f);
    int calls = 0;
    bsync_allocator failing = bsync_test_failing_allocator(&calls);
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&f.desc, &failing, &t, NULL, NULL), BSYNC_OUT_OF_MEMORY);
    assert_null(t);
    assert_int_equal(calls, 1);

    bsync_test_counting_allocator counting;
    bsync_test_counting_allocator_init(&counting);
    assert_int_equal(bsync_blend_tree_create(&f.desc, &counting.allocator, &t, NULL, NULL), BSYNC_OK);
    assert_int_equal(counting.allocs, 1); /* one block */
    fix16_t params[2] = {HALF, ONE}, leaves[2];
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 0, params, leaves), BSYNC_OK);
    assert_int_equal(counting.allocs, 1); /* evaluation allocates nothing */
    assert_int_equal(leaves[0], HALF);
    assert_int_equal(leaves[1], HALF);
    bsync_blend_tree_destroy(t);
    assert_int_equal(counting.frees, 1);
    assert_int_equal(counting.live_bytes, 0);
    bsync_blend_tree_destroy(NULL);
}

static void test_diagnostics_per_node(void** state) {
    (void)state;
    fixture f;
    base(&f);
    add_child(&f, 0, BSYNC_CHILD_MOTION, 1, ONE, 0); /* root: thresholds 0, 1, 1 -> duplicate */
    bsync_blend_diagnostics diags[2];
    memset(diags, 0xAB, sizeof diags);
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&f.desc, NULL, &t, diags, NULL), BSYNC_OK);
    assert_true(diags[0].count >= 1);
    assert_int_equal(diags[0].warnings[0].code, BSYNC_BLEND_WARN_DUPLICATE_THRESHOLD);
    assert_int_equal(diags[1].count, 0);
    bsync_blend_tree_destroy(t);
}

static void test_accessors(void** state) {
    (void)state;
    fixture f;
    base(&f);
    f.defaults[0] = 12345;
    bsync_blend_tree* t = build(&f);
    assert_int_equal(bsync_blend_tree_parameter_count(t), 2);
    assert_string_equal(bsync_blend_tree_parameter_name(t, 0), "speed");
    assert_string_equal(bsync_blend_tree_parameter_name(t, 1), "w");
    assert_string_equal(bsync_blend_tree_parameter_name(t, 2), "");
    assert_int_equal(bsync_blend_tree_parameter_default(t, 0), 12345);
    assert_int_equal(bsync_blend_tree_parameter_default(t, 9), 0);
    uint32_t i = 99;
    assert_int_equal(bsync_blend_tree_find_parameter(t, "w", &i), BSYNC_OK);
    assert_int_equal(i, 1);
    assert_int_equal(bsync_blend_tree_find_parameter(t, "nope", &i), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_blend_tree_motion_count(t), 2);
    assert_string_equal(bsync_blend_tree_motion_name(t, 1), "walk");
    assert_int_equal(bsync_blend_tree_find_motion(t, "walk", &i), BSYNC_OK);
    assert_int_equal(i, 1);
    assert_int_equal(bsync_blend_tree_find_motion(t, "root", &i), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_blend_tree_node_count(t), 2);
    assert_string_equal(bsync_blend_tree_node_name(t, 1), "sub");
    assert_string_equal(bsync_blend_tree_node_name(t, 2), "");
    assert_int_equal(bsync_blend_tree_find_node(t, "sub", &i), BSYNC_OK);
    assert_int_equal(i, 1);
    assert_int_equal(bsync_blend_tree_find_node(t, "walk", &i), BSYNC_NOT_FOUND);
    assert_int_equal(bsync_blend_tree_node_child_count(t, 0), 2);
    assert_int_equal(bsync_blend_tree_node_param_count(t, 0), 1);
    bsync_blend_child_ref c = bsync_blend_tree_node_child(t, 0, 1);
    assert_int_equal(c.kind, BSYNC_CHILD_NODE);
    assert_int_equal(c.index, 1);
    c = bsync_blend_tree_node_child(t, 0, 2);
    assert_int_equal(c.index, UINT32_MAX);
    assert_int_equal(bsync_blend_tree_node_param(t, 1, 0), 1);
    assert_int_equal(bsync_blend_tree_node_param(t, 1, 1), UINT32_MAX);
    const bsync_blend_space* s = bsync_blend_tree_node_space(t, 0);
    assert_non_null(s);
    assert_int_equal(bsync_blend_space_type(s), BSYNC_BLEND_SIMPLE_1D);
    assert_int_equal(bsync_blend_space_child_count(s), 2);
    assert_null(bsync_blend_tree_node_space(t, 5));

    fix16_t params[2] = {0, 0}, out[2];
    assert_int_equal(bsync_blend_tree_eval_node(t, 2, params, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 2, params, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_blend_tree_eval_node(NULL, 0, params, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 0, NULL, out), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 0, params, NULL), BSYNC_INVALID_ARGUMENT);
    bsync_blend_tree_destroy(t);
    assert_int_equal(bsync_blend_tree_node_count(NULL), 0);
    assert_string_equal(bsync_blend_tree_node_name(NULL, 0), "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_1d_node),   cmocka_unit_test(test_nested_direct_over_1d),
        cmocka_unit_test(test_three_levels),     cmocka_unit_test(test_shared_node),
        cmocka_unit_test(test_diamond),          cmocka_unit_test(test_leaves_sum_to_one),
        cmocka_unit_test(test_nested_2d),        cmocka_unit_test(test_cycles),
        cmocka_unit_test(test_validation_codes), cmocka_unit_test(test_allocation),
        cmocka_unit_test(test_diagnostics_per_node), cmocka_unit_test(test_accessors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
