/* test_graph_config_layers.c — the issue 4 additions to graph configs (io/config.h, io/graph_config.h):
 *   "source": "builtin:humanoid" — bound like an imported asset; the loaded graph's hash equals the hash
 *     of a graph built by hand from a separately created bsync_procedural_humanoid with the same tree
 *     (an independent path: different clip objects, equal only if the bits are equal); unknown built-ins
 *     and animations are errors with their JSON paths;
 *   "type": "Switch" — the mapping to bsync_graph_desc.switches (hash equal to the hand-built switch graph),
 *     every error with its path; weights after triggers are the hand-worked k/F of instance.h;
 *   "layers" — hash equal to the layered graph built by hand; per tick the state and pose
 *     checksums of the two graphs' instances are equal; an unmasked joint keeps the base pose bit for
 *     bit while a masked joint moves (graph.h: m[j] = 0 keeps P); every error with its path. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/config.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/procedural.h"
#include "blendsync/skeleton.h"

#define ONE 65536

static char g_dir[64];
static bsync_procedural_humanoid g_h;

static const char* cfg_path(void) {
    static char path[128];
    snprintf(path, sizeof path, "%s/cfg.json", g_dir);
    return path;
}

static bsync_graph_config* load_text(const char* json, bsync_error* err, bsync_result* r) {
    FILE* f = fopen(cfg_path(), "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(json, 1, strlen(json), f), strlen(json));
    assert_int_equal(fclose(f), 0);
    bsync_graph_config* gc = (bsync_graph_config*)(uintptr_t)1;
    memset(err, 0, sizeof *err);
    *r = bsync_graph_config_load(cfg_path(), NULL, &gc, NULL, err);
    return gc;
}

static bsync_graph_config* load_ok(const char* json) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load_text(json, &err, &r);
    if (r != BSYNC_OK) fprintf(stderr, "unexpected error: %s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    assert_non_null(gc);
    return gc;
}

/* `message` without the "DIR/cfg.json: " prefix. */
static void load_error(const char* json, const char* message) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load_text(json, &err, &r);
    char want[700];
    snprintf(want, sizeof want, "%s: %s", cfg_path(), message);
    if (r != BSYNC_CONFIG_ERROR || strcmp(err.message, want) != 0)
        fprintf(stderr, "got:  %s\nwant: %s\n", err.message, want);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_null(gc);
    assert_string_equal(err.message, want);
}

static int setup(void** state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/bsync_gcfl_XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    return bsync_procedural_humanoid_create(NULL, &g_h) == BSYNC_OK ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    remove(cfg_path());
    rmdir(g_dir);
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

/* A hand-built tree: params `pn`, motions `mn`, nodes `nd`, root `root`. */
static bsync_blend_tree* hand_tree(const char* const* pn, uint32_t pc, const char* const* mn, uint32_t mc,
                                   const bsync_blend_node_desc* nd, uint32_t nc, uint32_t root) {
    bsync_blend_tree_desc td = {pn, NULL, pc, mn, mc, nd, nc, root};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

/* ------------------------------------------------------------------ builtin:humanoid */

#define SPEED_TREE(clips)                                                                                        \
    "{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", "     \
    "\"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0}, {\"motion\": \"walk\", " \
    "\"threshold\": 1.4}, {\"motion\": \"run\", \"threshold\": 3.5}]}}, \"clips\": {" clips "}}"

static void test_builtin_humanoid(void** state) {
    (void)state;
    bsync_graph_config* gc = load_ok(SPEED_TREE("\"idle\": {\"source\": \"builtin:humanoid\"}, "
                                                "\"walk\": {\"source\": \"builtin:humanoid\"}, "
                                                "\"run\": {\"source\": \"builtin:humanoid\", \"animation\": \"run\"}"));
    assert_int_equal(bsync_graph_config_bound_clip_count(gc), 3);
    const bsync_skeleton* sk = bsync_graph_config_skeleton(gc);
    assert_non_null(sk);
    assert_int_equal(bsync_skeleton_joint_count(sk), 23); /* procedural.h: 23 joints */
    const bsync_graph* g = bsync_graph_config_graph(gc);
    /* each motion is bound to the clip of its name (durations 2.0, 1.0, 0.7 s per procedural.h) */
    assert_string_equal(bsync_clip_name(bsync_graph_motion_clip(g, 0)), "idle");
    assert_string_equal(bsync_clip_name(bsync_graph_motion_clip(g, 1)), "walk");
    assert_string_equal(bsync_clip_name(bsync_graph_motion_clip(g, 2)), "run");
    assert_int_equal(bsync_graph_motion_length(g, 0), 2 * ONE);
    assert_int_equal(bsync_graph_motion_length(g, 1), ONE);
    assert_int_equal(bsync_graph_motion_length(g, 2), 45875); /* round(0.7 * 65536) = round(45875.2) */

    /* by hand, from another humanoid */
    const char* pn[] = {"speed"};
    const char* mn[] = {"idle", "walk", "run"};
    bsync_blend_child_ref ch[3] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    fix16_t th[3] = {0, 91750, 229376}; /* round(1.4 * 65536) = round(91750.4), 3.5 * 65536 */
    uint32_t np[1] = {0};
    bsync_blend_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = "move";
    nd.space.type = BSYNC_BLEND_SIMPLE_1D;
    nd.space.child_count = 3;
    nd.space.thresholds = th;
    nd.children = ch;
    nd.params = np;
    bsync_blend_tree* tree = hand_tree(pn, 1, mn, 3, &nd, 1, 0);
    const bsync_clip* clips[3] = {g_h.clips[BSYNC_PROCEDURAL_IDLE], g_h.clips[BSYNC_PROCEDURAL_WALK],
                                  g_h.clips[BSYNC_PROCEDURAL_RUN]};
    bsync_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.tree = tree;
    gd.skeleton = g_h.skeleton;
    gd.clips = clips;
    gd.tick_rate = 30;
    bsync_graph* hand = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &hand), BSYNC_OK);
    assert_true(bsync_graph_hash(hand) == bsync_graph_hash(g));
    /* sensitivity: run bound to the walk clip is another graph */
    clips[2] = g_h.clips[BSYNC_PROCEDURAL_WALK];
    bsync_graph* other = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &other), BSYNC_OK);
    assert_true(bsync_graph_hash(other) != bsync_graph_hash(g));
    bsync_graph_destroy(other);
    bsync_graph_destroy(hand);
    bsync_blend_tree_destroy(tree);
    bsync_graph_config_destroy(gc);

    /* "animation" picks a clip for a motion of another name; the source is imported once */
    gc = load_ok(SPEED_TREE("\"idle\": {\"source\": \"builtin:humanoid\", \"animation\": \"run\"}"));
    assert_int_equal(bsync_graph_config_bound_clip_count(gc), 1);
    assert_string_equal(bsync_clip_name(bsync_graph_motion_clip(bsync_graph_config_graph(gc), 0)), "run");
    assert_null(bsync_graph_motion_clip(bsync_graph_config_graph(gc), 1));
    assert_non_null(strstr(bsync_graph_config_notes(gc), "builtin:humanoid: 3 animations"));
    bsync_graph_config_destroy(gc);
}

static void test_builtin_errors(void** state) {
    (void)state;
    load_error(SPEED_TREE("\"walk\": {\"source\": \"builtin:xyz\"}"),
               "/clips/walk/source: unknown built-in source \"builtin:xyz\" (built-ins: builtin:humanoid)");
    load_error(SPEED_TREE("\"walk\": {\"source\": \"builtin:\"}"),
               "/clips/walk/source: unknown built-in source \"builtin:\" (built-ins: builtin:humanoid)");
    load_error(SPEED_TREE("\"walk\": {\"source\": \"builtin:humanoid\", \"animation\": \"jog\"}"),
               "/clips/walk/animation: no animation \"jog\" in builtin:humanoid (animations: idle, walk, run)");
    /* the parser alone (no file access) refuses it too */
    const char* json = SPEED_TREE("\"run\": {\"source\": \"builtin:Humanoid\"}");
    bsync_blend_tree* t = NULL;
    bsync_config_graph_fields* cg = NULL;
    bsync_error err;
    assert_int_equal(bsync_config_parse_graph(json, strlen(json), "g.json", NULL, &t, &cg, NULL, &err), BSYNC_CONFIG_ERROR);
    assert_string_equal(err.message,
                        "g.json: /clips/run/source: unknown built-in source \"builtin:Humanoid\" (built-ins: builtin:humanoid)");
    assert_null(t);
    assert_null(cg);
}

/* ------------------------------------------------------------------ switches */

/* Root "act": Switch over node "loco" (Simple1D speed: idle 0, walk 1.4) and motion "run"; initial run. */
static const char k_switch_cfg[] =
    "{\"parameters\": {\"speed\": {}}, \"root\": \"act\", \"nodes\": {"
    "\"act\": {\"type\": \"Switch\", \"initial\": \"run\", \"children\": [{\"motion\": \"loco\"}, "
    "{\"motion\": \"run\", \"time_scale\": 2}]},"
    "\"loco\": {\"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0},"
    " {\"motion\": \"walk\", \"threshold\": 1.4}]}},"
    "\"clips\": {\"idle\": {\"source\": \"builtin:humanoid\"}, \"walk\": {\"source\": \"builtin:humanoid\"},"
    " \"run\": {\"source\": \"builtin:humanoid\"}}}";

static void test_switch_config(void** state) {
    (void)state;
    bsync_graph_config* gc = load_ok(k_switch_cfg);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    assert_int_equal(bsync_graph_switch_count(g), 1);
    assert_int_equal(bsync_graph_switch_node(g, 0), 0);
    const bsync_config_graph_fields* f = bsync_graph_config_fields(gc);
    assert_int_equal(f->switch_count, 1);
    assert_int_equal(f->switches[0].node, 0);
    assert_int_equal(f->switches[0].initial_child, 1);
    assert_int_equal(f->nodes[0].sync, BSYNC_SYNC_NONE);

    /* by hand: motions in order of first use: run (node act), idle, walk (node loco) */
    const char* pn[] = {"speed"};
    const char* mn[] = {"run", "idle", "walk"};
    bsync_blend_child_ref c0[2] = {{BSYNC_CHILD_NODE, 1}, {BSYNC_CHILD_MOTION, 0}};
    bsync_blend_child_ref c1[2] = {{BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    fix16_t th0[2] = {0, ONE}, th1[2] = {0, 91750};
    uint32_t np[1] = {0};
    bsync_blend_node_desc nd[2];
    memset(nd, 0, sizeof nd);
    nd[0].name = "act";
    nd[0].space.type = BSYNC_BLEND_SIMPLE_1D;
    nd[0].space.child_count = 2;
    nd[0].space.thresholds = th0;
    nd[0].children = c0;
    nd[0].params = np;
    nd[1].name = "loco";
    nd[1].space.type = BSYNC_BLEND_SIMPLE_1D;
    nd[1].space.child_count = 2;
    nd[1].space.thresholds = th1;
    nd[1].children = c1;
    nd[1].params = np;
    bsync_blend_tree* tree = hand_tree(pn, 1, mn, 3, nd, 2, 0);
    const bsync_clip* clips[3] = {g_h.clips[BSYNC_PROCEDURAL_RUN], g_h.clips[BSYNC_PROCEDURAL_IDLE],
                                  g_h.clips[BSYNC_PROCEDURAL_WALK]};
    fix16_t ts[2] = {ONE, 2 * ONE};
    bsync_graph_node_options no[2];
    memset(no, 0, sizeof no);
    no[0].sync = BSYNC_SYNC_NONE;
    no[0].time_scales = ts;
    bsync_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.tree = tree;
    gd.skeleton = g_h.skeleton;
    gd.clips = clips;
    gd.tick_rate = 30;
    gd.node_options = no;
    bsync_graph_switch_desc sw = {0, 1};
    gd.switches = &sw;
    gd.switch_count = 1;
    bsync_graph* hand = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &hand), BSYNC_OK);
    assert_true(bsync_graph_hash(hand) == bsync_graph_hash(g));
    sw.initial_child = 0; /* another initial state is another graph */
    bsync_graph* other = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &other), BSYNC_OK);
    assert_true(bsync_graph_hash(other) != bsync_graph_hash(g));
    bsync_graph_destroy(other);
    bsync_graph_destroy(hand);
    bsync_blend_tree_destroy(tree);

    /* the weights: initially run = 1; play loco with fade 4 at tick 0 -> loco k/4 after tick k - 1 */
    size_t sz = bsync_instance_memory_size(g);
    void* mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(mem, sz, g, &inst), BSYNC_OK);
    const fix16_t* w = bsync_instance_node_weights(inst, 0);
    assert_int_equal(w[0], 0);
    assert_int_equal(w[1], ONE);
    fix16_t target[1] = {0};
    bsync_instance_input in = {target, 1};
    bsync_switch_trigger t = {0, 0, 4, 0, 0};
    const fix16_t want[4] = {ONE / 4, ONE / 2, 3 * ONE / 4, ONE};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(bsync_instance_tick_ex(inst, &in, &t, k == 0 ? 1 : 0), BSYNC_OK);
        w = bsync_instance_node_weights(inst, 0);
        assert_int_equal(w[0], want[k]);
        assert_int_equal(w[1], ONE - want[k]);
        /* speed 0: loco is all idle, so idle's leaf weight is loco's */
        assert_int_equal(bsync_instance_leaf_weights(inst)[1], want[k]);
    }
    free(mem);
    bsync_graph_config_destroy(gc);

    /* "initial" defaults to the first child; "sync": "none" may be written */
    gc = load_ok("{\"parameters\": {\"p\": {}}, \"root\": \"s\", \"nodes\": {\"s\": {\"type\": \"Switch\", \"sync\": \"none\","
                 " \"children\": [{\"motion\": \"a\"}, {\"motion\": \"b\"}]}}}");
    assert_int_equal(bsync_graph_config_fields(gc)->switches[0].initial_child, 0);
    assert_int_equal(bsync_graph_switch_count(bsync_graph_config_graph(gc)), 1);
    bsync_graph_config_destroy(gc);
}

#define SW(body) "{\"parameters\": {\"p\": {}}, \"root\": \"s\", \"nodes\": {\"s\": {\"type\": \"Switch\", " body "}}}"

static void test_switch_errors(void** state) {
    (void)state;
    load_error(SW("\"initial\": \"c\", \"children\": [{\"motion\": \"a\"}, {\"motion\": \"b\"}]"),
               "/nodes/s/initial: no child \"c\" (children: a, b)");
    load_error(SW("\"initial\": 1, \"children\": [{\"motion\": \"a\"}]"),
               "/nodes/s/initial: expected a string (the name of one of the children)");
    load_error(SW("\"children\": [{\"motion\": \"a\"}, {\"motion\": \"a\"}]"),
               "/nodes/s/children/1/motion: state \"a\" is already child 0: each state of a switch once (play names it)");
    load_error(SW("\"children\": []"), "/nodes/s/children: expected an array of 1 to 64 children (the states)");
    load_error(SW("\"initial\": \"a\""), "/nodes/s: missing field \"children\"");
    load_error(SW("\"sync\": \"normalized\", \"children\": [{\"motion\": \"a\"}]"),
               "/nodes/s/sync: a Switch node's sync is always \"none\" (every state keeps its own clock)");
    load_error(SW("\"parameter\": \"p\", \"children\": [{\"motion\": \"a\"}]"),
               "/nodes/s/parameter: unknown field (a Switch node has: type, initial, children, sync)");
    load_error(SW("\"children\": [{\"motion\": \"a\", \"threshold\": 1}]"),
               "/nodes/s/children/0/threshold: unknown field (a Switch child has: motion, time_scale, cycle_offset, exit)");
    load_error(SW("\"children\": [{\"motion\": \"a\", \"time_scale\": 0}]"),
               "/nodes/s/children/0/time_scale: expected a number from 0.00098 (1/1024) to 1024");
    load_error("{\"parameters\": {}, \"root\": \"s\", \"nodes\": {\"s\": {\"type\": \"Switch\", \"children\": [{\"motion\": \"a\"}]}}}",
               "/nodes/s: a Switch node needs at least one declared parameter (its tree node is a Simple1D over the "
               "first parameter, whose weights the switch replaces)");
    load_error("{\"parameters\": {\"p\": {}}, \"root\": \"s\", \"nodes\": {\"s\": {\"type\": \"Switch\", \"children\": "
               "[{\"motion\": \"s\"}]}}}",
               "/nodes/s: cycle: s -> s");
}

/* ------------------------------------------------------------------ layers */

/* Base "loco" (Simple1D speed over idle 0 / walk 1.4 / run 3.5); layer node "upper" (Simple1D over
 * run / idle on speed, thresholds 0 / 2) overriding spine_01 and everything below it, weight from
 * parameter "wave"; a second, additive layer on "loco" at fixed 0.25 masked to head only. */
static const char k_layer_cfg[] =
    "{\"parameters\": {\"speed\": {}, \"wave\": {\"default\": 0.8}}, \"root\": \"loco\", \"nodes\": {"
    "\"loco\": {\"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0},"
    " {\"motion\": \"walk\", \"threshold\": 1.4}, {\"motion\": \"run\", \"threshold\": 3.5}]},"
    "\"upper\": {\"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [{\"motion\": \"run\", \"threshold\": 0},"
    " {\"motion\": \"idle\", \"threshold\": 2}]}},"
    "\"clips\": {\"idle\": {\"source\": \"builtin:humanoid\"}, \"walk\": {\"source\": \"builtin:humanoid\"},"
    " \"run\": {\"source\": \"builtin:humanoid\"}},"
    "\"layers\": [{\"node\": \"upper\", \"mode\": \"override\", \"weight_parameter\": \"wave\","
    " \"mask\": {\"joints\": [\"spine_01\"], \"include_children\": true}},"
    " {\"node\": \"loco\", \"mode\": \"additive\", \"weight\": 0.25, \"mask\": {\"joints\": "
    "[{\"joint\": \"head\", \"include_children\": false}]}}]}";

static bsync_graph* hand_layered(bsync_blend_tree** tree_out, fix16_t fixed_weight) {
    const char* pn[] = {"speed", "wave"};
    const char* mn[] = {"idle", "walk", "run"};
    static bsync_blend_child_ref c0[3] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    static bsync_blend_child_ref c1[2] = {{BSYNC_CHILD_MOTION, 2}, {BSYNC_CHILD_MOTION, 0}};
    static fix16_t th0[3] = {0, 91750, 229376}, th1[2] = {0, 2 * ONE};
    static uint32_t np[1] = {0};
    bsync_blend_node_desc nd[2];
    memset(nd, 0, sizeof nd);
    nd[0].name = "loco";
    nd[0].space.type = BSYNC_BLEND_SIMPLE_1D;
    nd[0].space.child_count = 3;
    nd[0].space.thresholds = th0;
    nd[0].children = c0;
    nd[0].params = np;
    nd[1].name = "upper";
    nd[1].space.type = BSYNC_BLEND_SIMPLE_1D;
    nd[1].space.child_count = 2;
    nd[1].space.thresholds = th1;
    nd[1].children = c1;
    nd[1].params = np;
    fix16_t defaults[2] = {0, 52429}; /* round(0.8 * 65536) = round(52428.8) */
    bsync_blend_tree_desc td = {pn, defaults, 2, mn, 3, nd, 2, 0};
    assert_int_equal(bsync_blend_tree_create(&td, NULL, tree_out, NULL, NULL), BSYNC_OK);
    static const bsync_clip* clips[3];
    clips[0] = g_h.clips[BSYNC_PROCEDURAL_IDLE];
    clips[1] = g_h.clips[BSYNC_PROCEDURAL_WALK];
    clips[2] = g_h.clips[BSYNC_PROCEDURAL_RUN];
    uint32_t spine = 0, head = 0;
    assert_int_equal(bsync_skeleton_find(g_h.skeleton, "spine_01", &spine), BSYNC_OK);
    assert_int_equal(bsync_skeleton_find(g_h.skeleton, "head", &head), BSYNC_OK);
    bsync_layer_bone m0[1] = {{spine, 1}}, m1[1] = {{head, 0}};
    bsync_graph_layer_desc L[2];
    memset(L, 0, sizeof L);
    L[0].node = 1;
    L[0].mode = BSYNC_LAYER_OVERRIDE;
    L[0].weight_source = BSYNC_LAYER_WEIGHT_PARAM;
    L[0].weight_param = 1;
    L[0].mask = m0;
    L[0].mask_count = 1;
    L[1].node = 0;
    L[1].mode = BSYNC_LAYER_ADDITIVE;
    L[1].weight_source = BSYNC_LAYER_WEIGHT_FIXED;
    L[1].weight = fixed_weight;
    L[1].mask = m1;
    L[1].mask_count = 1;
    bsync_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.tree = *tree_out;
    gd.skeleton = g_h.skeleton;
    gd.clips = clips;
    gd.tick_rate = 30;
    gd.layers = L;
    gd.layer_count = fixed_weight >= 0 ? 2 : 0;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &g), BSYNC_OK);
    return g;
}

static bsync_instance* new_instance(const bsync_graph* g, void** mem) {
    size_t sz = bsync_instance_memory_size(g);
    *mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(*mem, sz, g, &inst), BSYNC_OK);
    return inst;
}

static void test_layers_config(void** state) {
    (void)state;
    bsync_graph_config* gc = load_ok(k_layer_cfg);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    assert_int_equal(bsync_graph_layer_count(g), 2);
    const bsync_config_graph_fields* f = bsync_graph_config_fields(gc);
    assert_int_equal(f->layer_count, 2);
    assert_int_equal(f->layers[0].node, 1);
    assert_int_equal(f->layers[0].weight_source, BSYNC_LAYER_WEIGHT_PARAM);
    assert_int_equal(f->layers[0].weight_param, 1);
    assert_int_equal(f->layers[0].mask_count, 1);
    assert_string_equal(f->layers[0].mask[0].joint, "spine_01");
    assert_int_equal(f->layers[0].mask[0].include_descendants, 1);
    assert_int_equal(f->layers[1].mode, BSYNC_LAYER_ADDITIVE);
    assert_int_equal(f->layers[1].weight, 16384); /* 0.25 */
    assert_int_equal(f->layers[1].mask[0].include_descendants, 0);

    bsync_blend_tree* tree = NULL;
    bsync_graph* hand = hand_layered(&tree, 16384);
    assert_true(bsync_graph_hash(hand) == bsync_graph_hash(g));
    bsync_blend_tree* tree2 = NULL;
    bsync_graph* other = hand_layered(&tree2, 16385); /* one raw step of weight is another graph */
    assert_true(bsync_graph_hash(other) != bsync_graph_hash(g));
    bsync_graph_destroy(other);
    bsync_blend_tree_destroy(tree2);
    bsync_blend_tree* tree3 = NULL;
    bsync_graph* base = hand_layered(&tree3, -1); /* no layers: the base pose alone */

    void *m1, *m2, *m3;
    bsync_instance* a = new_instance(g, &m1);
    bsync_instance* b = new_instance(hand, &m2);
    bsync_instance* c = new_instance(base, &m3);
    enum { J = 23 };
    bsync_trs pa[J], pb[J], pc[J];
    uint32_t thigh = 0, chest = 0;
    assert_int_equal(bsync_skeleton_find(g_h.skeleton, "thigh_l", &thigh), BSYNC_OK);
    assert_int_equal(bsync_skeleton_find(g_h.skeleton, "chest", &chest), BSYNC_OK);
    int chest_differs = 0;
    for (int t = 0; t < 40; t++) {
        fix16_t target[2] = {(fix16_t)(t * 6000), t < 20 ? 52429 : ONE / 2};
        bsync_instance_input in = {target, 2};
        assert_int_equal(bsync_instance_tick(a, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_tick(b, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_tick(c, &in), BSYNC_OK);
        assert_true(bsync_instance_state_checksum(a) == bsync_instance_state_checksum(b));
        assert_memory_equal(bsync_instance_leaf_weights(a), bsync_instance_leaf_weights(b), 3 * sizeof(fix16_t));
        uint64_t ha = 0, hb = 0;
        assert_int_equal(bsync_instance_pose_checksum(a, &ha, NULL), BSYNC_OK);
        assert_int_equal(bsync_instance_pose_checksum(b, &hb, NULL), BSYNC_OK);
        assert_true(ha == hb);
        assert_int_equal(bsync_instance_pose(a, pa, NULL), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(b, pb, NULL), BSYNC_OK);
        assert_int_equal(bsync_instance_pose(c, pc, NULL), BSYNC_OK);
        assert_memory_equal(pa, pb, sizeof pa);
        /* thigh_l is outside both masks: the base pose bit for bit */
        assert_memory_equal(&pa[thigh], &pc[thigh], sizeof(bsync_trs));
        if (memcmp(&pa[chest], &pc[chest], sizeof(bsync_trs)) != 0) chest_differs++;
    }
    assert_true(chest_differs > 0); /* the override layer moved the upper body */
    free(m1);
    free(m2);
    free(m3);
    bsync_graph_destroy(base);
    bsync_blend_tree_destroy(tree3);
    bsync_graph_destroy(hand);
    bsync_blend_tree_destroy(tree);
    bsync_graph_config_destroy(gc);
}

#define LAYERS(layers)                                                                                           \
    "{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", "     \
    "\"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0}, {\"motion\": \"walk\", " \
    "\"threshold\": 1.4}]}}, \"clips\": {\"idle\": {\"source\": \"builtin:humanoid\"}}, \"layers\": " layers "}"

static void test_layer_errors(void** state) {
    (void)state;
    load_error(LAYERS("{}"), "/layers: expected an array of at most 16 layers ({\"node\": NODE, \"mode\", \"weight\", \"mask\"})");
    load_error(LAYERS("[1]"), "/layers/0: expected an object (a layer: {\"node\": NODE, ...})");
    load_error(LAYERS("[{}]"), "/layers/0: missing field \"node\"");
    load_error(LAYERS("[{\"node\": \"mvoe\"}]"), "/layers/0/node: no node named \"mvoe\" (nodes: move)");
    load_error(LAYERS("[{\"node\": \"move\", \"mode\": \"blend\"}]"),
               "/layers/0/mode: unknown value \"blend\" (valid: override, additive)");
    load_error(LAYERS("[{\"node\": \"move\", \"weight\": 1.00002}]"), "/layers/0/weight: expected a number from 0 to 1");
    load_error(LAYERS("[{\"node\": \"move\", \"weight\": -0.5}]"), "/layers/0/weight: expected a number from 0 to 1");
    load_error(LAYERS("[{\"node\": \"move\", \"weight_parameter\": \"wave\"}]"),
               "/layers/0/weight_parameter: unknown parameter \"wave\" (declared: speed)");
    load_error(LAYERS("[{\"node\": \"move\", \"weight\": 1, \"weight_parameter\": \"speed\"}]"),
               "/layers/0/weight_parameter: a layer has either \"weight\" or \"weight_parameter\", not both");
    load_error(LAYERS("[{\"node\": \"move\", \"blend\": 1}]"),
               "/layers/0/blend: unknown field (a layer has: node, mode, weight, weight_parameter, mask)");
    load_error(LAYERS("[{\"node\": \"move\", \"mask\": [\"head\"]}]"),
               "/layers/0/mask: expected an object ({\"joints\": [NAME, ...], \"include_children\": true})");
    load_error(LAYERS("[{\"node\": \"move\", \"mask\": {\"joints\": [\"head\"], \"weight\": 1}}]"),
               "/layers/0/mask/weight: unknown field (a layer mask has: joints, include_children)");
    load_error(LAYERS("[{\"node\": \"move\", \"mask\": {\"include_children\": false}}]"),
               "/layers/0/mask: missing field \"joints\"");
    load_error(LAYERS("[{\"node\": \"move\", \"mask\": {\"joints\": [\"head\"], \"include_children\": 1}}]"),
               "/layers/0/mask/include_children: expected true or false");
    load_error(LAYERS("[{\"node\": \"move\", \"mask\": {\"joints\": [\"head\", 3]}}]"),
               "/layers/0/mask/joints/1: expected a joint name (a string)");
    load_error(LAYERS("[{\"node\": \"move\", \"mask\": {\"joints\": [{\"joint\": \"head\", \"include_children\": \"yes\"}]}}]"),
               "/layers/0/mask/joints/0/include_children: expected true or false");
    load_error(LAYERS("[{\"node\": \"move\", \"mask\": {\"joints\": [{\"name\": \"head\"}]}}]"),
               "/layers/0/mask/joints/0/name: unknown field (a mask joint has: joint, include_children)");
    load_error(LAYERS("[{\"node\": \"move\"}, {\"node\": \"move\", \"mask\": {\"joints\": [\"head\", \"Spine\"]}}]"),
               "/layers/1/mask/joints/1: no joint named \"Spine\" in the skeleton (from builtin:humanoid)");
    load_error("{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", "
               "\"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0}]}}, \"layers\": [{\"node\": \"move\"}]}",
               "/layers: layers blend poses: they need a skeleton, so clips must be bound");
    /* an empty "joints" is no mask; no "mask" either */
    bsync_graph_config* gc = load_ok(LAYERS("[{\"node\": \"move\", \"mask\": {\"joints\": []}}, {\"node\": \"move\", \"weight\": 0}]"));
    assert_int_equal(bsync_graph_layer_count(bsync_graph_config_graph(gc)), 2);
    assert_int_equal(bsync_graph_config_fields(gc)->layers[0].mask_count, 0);
    assert_int_equal(bsync_graph_config_fields(gc)->layers[0].weight, ONE); /* default weight 1 */
    assert_int_equal(bsync_graph_config_fields(gc)->layers[1].weight, 0);
    bsync_graph_config_destroy(gc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_humanoid), cmocka_unit_test(test_builtin_errors),
        cmocka_unit_test(test_switch_config),    cmocka_unit_test(test_switch_errors),
        cmocka_unit_test(test_layers_config),    cmocka_unit_test(test_layer_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
