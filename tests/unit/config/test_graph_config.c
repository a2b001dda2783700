/* test_graph_config.c — graph configs (io/config.h graph fields, io/graph_config.h): every new field
 * parsed to the values worked by hand (round(value * 65536)), every new error with its exact message,
 * a graph assembled from a config equal (by bsync_graph_hash) to the same graph built by hand through
 * the C API, clips imported from small glTF files this test writes (binding, retargeting by joint
 * name, root_joint lookup, import errors), and the pab example when ../shared is present. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/blend_tree.h"
#include "blendsync/curve.h"
#include "blendsync/graph.h"
#include "blendsync/io/config.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/skeleton.h"

#define ONE 65536

/* ------------------------------------------------------------------ helpers */

static bsync_config_graph_fields* parse_ok(const char* json, bsync_blend_tree** tree) {
    bsync_config_graph_fields* g = NULL;
    bsync_error err;
    bsync_result r = bsync_config_parse_graph(json, strlen(json), "g.json", NULL, tree, &g, NULL, &err);
    if (r != BSYNC_OK) fprintf(stderr, "unexpected error: %s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    assert_non_null(g);
    return g;
}

static void expect_error(const char* json, const char* message) {
    bsync_config_graph_fields* g = (bsync_config_graph_fields*)(uintptr_t)1;
    bsync_blend_tree* t = (bsync_blend_tree*)(uintptr_t)1;
    bsync_error err;
    bsync_result r = bsync_config_parse_graph(json, strlen(json), "g.json", NULL, &t, &g, NULL, &err);
    if (r != BSYNC_CONFIG_ERROR || strcmp(err.message, message) != 0)
        fprintf(stderr, "got:  %s\nwant: %s\n", err.message, message);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_null(g);
    assert_null(t);
    assert_string_equal(err.message, message);
    /* the tree-only parser checks the graph fields too */
    t = NULL;
    assert_int_equal(bsync_config_parse(json, strlen(json), "g.json", NULL, &t, NULL, &err), BSYNC_CONFIG_ERROR);
    assert_string_equal(err.message, message);
}

/* A one-node config: `params` is the body of "parameters", `extra` top-level fields (leading comma). */
#define ONE_NODE(params, extra)                                                                              \
    "{\"parameters\": {" params "}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", "      \
    "\"parameter\": \"speed\", \"children\": [{\"motion\": \"walk\", \"threshold\": 0}, {\"motion\": \"run\", " \
    "\"threshold\": 1.5}]}}" extra "}"

static char g_dir[64];

static const char* write_file(const char* name, const char* text, size_t len) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE* f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

static bsync_graph_config* load_text(const char* json, bsync_error* err, bsync_result* r) {
    const char* p = write_file("cfg.json", json, strlen(json));
    char path[256];
    snprintf(path, sizeof path, "%s", p);
    bsync_graph_config* gc = (bsync_graph_config*)(uintptr_t)1;
    *r = bsync_graph_config_load(path, NULL, &gc, NULL, err);
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

/* The message with the temp dir replaced by "DIR". */
static void load_error(const char* json, const char* message) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load_text(json, &err, &r);
    char got[600];
    const char* at = strstr(err.message, g_dir);
    if (at) snprintf(got, sizeof got, "%.*sDIR%s", (int)(at - err.message), err.message, at + strlen(g_dir));
    else snprintf(got, sizeof got, "%s", err.message);
    if (r != BSYNC_CONFIG_ERROR || strcmp(got, message) != 0) fprintf(stderr, "got:  %s\nwant: %s\n", got, message);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_null(gc);
    assert_string_equal(got, message);
}

/* ------------------------------------------------------------------ glTF fixtures */


/* A chain of `jc` joints named names[] (joint 0 the root), and `ac` animations: animation a is named
 * anims[a], lasts durs[a] seconds and moves the root from (0, 0, 0) to (2 * dur, 0, 0) (LINEAR). */
static void write_gltf(const char* file, const char* const* names, int jc, const char* const* anims,
                       const float* durs, int ac) {
    unsigned char buf[32 * 4];
    size_t n = 0;
    for (int a = 0; a < ac; a++) {
        float v[8] = {0, durs[a], 0, 0, 0, 2 * durs[a], 0, 0};
        memcpy(buf + n, v, 32); /* little-endian host */
        n += 32;
    }
    char* e = bsync_test_base64(buf, n);
    char json[8192];
    size_t w = (size_t)snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    for (int j = 0; j < jc; j++) {
        w += (size_t)snprintf(json + w, sizeof json - w, "%s{\"name\":\"%s\",\"translation\":[0,%d,0]", j ? "," : "",
                              names[j], j ? 1 : 0);
        if (j + 1 < jc) w += (size_t)snprintf(json + w, sizeof json - w, ",\"children\":[%d]", j + 1);
        w += (size_t)snprintf(json + w, sizeof json - w, "}");
    }
    w += (size_t)snprintf(json + w, sizeof json - w, "],\"skins\":[{\"joints\":[");
    for (int j = 0; j < jc; j++) w += (size_t)snprintf(json + w, sizeof json - w, "%s%d", j ? "," : "", j);
    w += (size_t)snprintf(json + w, sizeof json - w,
                          "]}],\"buffers\":[{\"uri\":\"data:application/octet-stream;base64,%s\",\"byteLength\":%zu}],"
                          "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":%zu}],\"accessors\":[",
                          e, n, n);
    for (int a = 0; a < ac; a++)
        w += (size_t)snprintf(json + w, sizeof json - w,
                              "%s{\"bufferView\":0,\"byteOffset\":%d,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\","
                              "\"min\":[0],\"max\":[%g]},"
                              "{\"bufferView\":0,\"byteOffset\":%d,\"componentType\":5126,\"count\":2,\"type\":\"VEC3\"}",
                              a ? "," : "", 32 * a, (double)durs[a], 32 * a + 8);
    w += (size_t)snprintf(json + w, sizeof json - w, "],\"animations\":[");
    for (int a = 0; a < ac; a++)
        w += (size_t)snprintf(json + w, sizeof json - w,
                              "%s{\"name\":\"%s\",\"samplers\":[{\"input\":%d,\"output\":%d}],"
                              "\"channels\":[{\"sampler\":0,\"target\":{\"node\":0,\"path\":\"translation\"}}]}",
                              a ? "," : "", anims[a], 2 * a, 2 * a + 1);
    snprintf(json + w, sizeof json - w, "]}");
    free(e);
    write_file(file, json, strlen(json));
}

static int setup(void** state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/bsync_gcfg_XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    static const char* const two[] = {"root", "arm"};
    static const char* const three[] = {"root", "arm", "hand"};
    static const char* const other[] = {"x", "y"};
    static const char* const wr[] = {"walk", "run"};
    static const char* const sp[] = {"sprint"};
    static const float d_wr[] = {1.0f, 0.5f}, d_sp[] = {0.25f};
    write_gltf("a.gltf", two, 2, wr, d_wr, 2);
    write_gltf("b.gltf", three, 3, sp, d_sp, 1);
    write_gltf("c.gltf", other, 2, sp, d_sp, 1);
    return 0;
}

static int teardown(void** state) {
    (void)state;
    const char* files[] = {"a.gltf", "b.gltf", "c.gltf", "cfg.json"};
    char p[256];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, files[i]);
        remove(p);
    }
    rmdir(g_dir);
    return 0;
}

/* ------------------------------------------------------------------ tests */

static void test_defaults(void** state) {
    (void)state;
    bsync_blend_tree* t = NULL;
    bsync_config_graph_fields* g = parse_ok(ONE_NODE("\"speed\": {}", ""), &t);
    assert_int_equal(g->tick_rate, 30);
    assert_int_equal(g->root_motion, BSYNC_ROOT_MOTION_KEEP);
    assert_int_equal(g->root_rotation, BSYNC_ROOT_ROTATION_YAW);
    assert_int_equal(g->pose_rule, BSYNC_POSE_RULE_NORMALIZED);
    assert_string_equal(g->root_joint, "");
    assert_int_equal(g->clip_count, 0);
    assert_int_equal(g->parameter_count, 1);
    assert_int_equal(g->node_count, 1);
    const bsync_config_filter* f = &g->filters[0];
    assert_int_equal(f->dead_zone, 0);
    assert_int_equal(f->dead_zone_range, 0);
    assert_int_equal(f->smooth_time, 0);
    assert_int_equal(f->max_speed, 0);
    assert_int_equal(f->pair, 0);
    assert_int_equal(f->has_curve, 0);
    assert_int_equal(g->nodes[0].sync, BSYNC_SYNC_NORMALIZED);
    assert_int_equal(g->nodes[0].time_scales[0], ONE);
    assert_int_equal(g->nodes[0].time_scales[1], ONE);
    assert_int_equal(g->nodes[0].cycle_offsets[1], 0);
    bsync_config_graph_fields_destroy(g);
    bsync_blend_tree_destroy(t);
}

static void test_every_field(void** state) {
    (void)state;
    const char* json =
        "{\"tick_rate\": 60, \"root_motion\": \"none\", \"root_rotation\": \"full\", \"root_joint\": \"Hips\","
        " \"pose_rule\": \"lerped\", \"parameters\": {"
        "  \"speed\": {\"default\": 0.5, \"dead_zone\": 0.1, \"dead_zone_range\": 2, \"smooth_time\": 0.3, \"max_speed\": 4,"
        "    \"curve\": [{\"time\": 1, \"value\": 2, \"in_tangent\": 0.25, \"out_tangent\": -0.5,"
        "                 \"in_weight\": 0.75, \"out_weight\": 0, \"weighted_mode\": \"both\"},"
        "               {\"time\": 0, \"value\": 0, \"stepped\": true},"
        "               {\"time\": 2, \"value\": 1, \"stepped\": \"in\", \"weighted_mode\": \"out\"}]},"
        "  \"x\": {\"pair\": \"y\", \"dead_zone\": 0.25, \"curve\": {\"keys\": [{\"time\": 0, \"value\": 1, \"stepped\": \"out\"}],"
        "          \"pre_wrap\": \"loop\", \"post_wrap\": \"pingpong\"}},"
        "  \"y\": {}},"
        " \"root\": \"top\", \"nodes\": {"
        "  \"top\": {\"type\": \"SimpleDirectional2D\", \"parameters\": [\"x\", \"y\"], \"sync\": \"none\","
        "           \"children\": [{\"motion\": \"move\", \"position\": [0, 1], \"time_scale\": 2},"
        "                          {\"motion\": \"idle\", \"position\": [0, 0], \"cycle_offset\": 0.25}]},"
        "  \"move\": {\"type\": \"Simple1D\", \"parameter\": \"speed\", \"sync\": \"normalized\","
        "            \"children\": [{\"motion\": \"walk\", \"threshold\": 0, \"time_scale\": 0.00098},"
        "                           {\"motion\": \"run\", \"threshold\": 1.5, \"time_scale\": 1024, \"cycle_offset\": 0.99998}]}}}";
    bsync_blend_tree* t = NULL;
    bsync_config_graph_fields* g = parse_ok(json, &t);
    assert_int_equal(g->tick_rate, 60);
    assert_int_equal(g->root_motion, BSYNC_ROOT_MOTION_NONE);
    assert_int_equal(g->root_rotation, BSYNC_ROOT_ROTATION_FULL);
    assert_int_equal(g->pose_rule, BSYNC_POSE_RULE_LERPED);
    assert_string_equal(g->root_joint, "Hips");
    const bsync_config_filter* s = &g->filters[0];
    assert_int_equal(s->dead_zone, 6554);        /* 0.1 * 65536 = 6553.6 */
    assert_int_equal(s->dead_zone_range, 2 * ONE);
    assert_int_equal(s->smooth_time, 19661);     /* 0.3 * 65536 = 19660.8 */
    assert_int_equal(s->max_speed, 4 * ONE);
    assert_int_equal(s->pair, 0);
    assert_int_equal(s->has_curve, 1);
    assert_int_equal(s->pre_wrap, BSYNC_CURVE_CLAMP);
    assert_int_equal(s->post_wrap, BSYNC_CURVE_CLAMP);
    assert_int_equal(s->key_count, 3);
    /* file order kept */
    assert_int_equal(s->keys[0].time, ONE);
    assert_int_equal(s->keys[0].value, 2 * ONE);
    assert_int_equal(s->keys[0].in_tangent, 16384);
    assert_int_equal(s->keys[0].out_tangent, -32768);
    assert_int_equal(s->keys[0].in_weight, 49152);
    assert_int_equal(s->keys[0].out_weight, 0);
    assert_int_equal(s->keys[0].flags, BSYNC_CURVE_IN_WEIGHTED | BSYNC_CURVE_OUT_WEIGHTED);
    assert_int_equal(s->keys[1].time, 0);
    assert_int_equal(s->keys[1].in_weight, 21845); /* default 1/3 */
    assert_int_equal(s->keys[1].out_weight, 21845);
    assert_int_equal(s->keys[1].flags, BSYNC_CURVE_IN_STEPPED | BSYNC_CURVE_OUT_STEPPED);
    assert_int_equal(s->keys[2].flags, BSYNC_CURVE_IN_STEPPED | BSYNC_CURVE_OUT_WEIGHTED);
    const bsync_config_filter* x = &g->filters[1];
    assert_int_equal(x->pair, 1);
    assert_int_equal(x->dead_zone, 16384);
    assert_int_equal(x->pre_wrap, BSYNC_CURVE_LOOP);
    assert_int_equal(x->post_wrap, BSYNC_CURVE_PINGPONG);
    assert_int_equal(x->key_count, 1);
    assert_int_equal(x->keys[0].flags, BSYNC_CURVE_OUT_STEPPED);
    assert_int_equal(g->filters[2].pair, 0);
    assert_int_equal(g->filters[2].has_curve, 0);
    uint32_t top, move;
    assert_int_equal(bsync_blend_tree_find_node(t, "top", &top), BSYNC_OK);
    assert_int_equal(bsync_blend_tree_find_node(t, "move", &move), BSYNC_OK);
    assert_int_equal(g->nodes[top].sync, BSYNC_SYNC_NONE);
    assert_int_equal(g->nodes[move].sync, BSYNC_SYNC_NORMALIZED);
    assert_int_equal(g->nodes[top].time_scales[0], 2 * ONE);
    assert_int_equal(g->nodes[top].time_scales[1], ONE);
    assert_int_equal(g->nodes[top].cycle_offsets[0], 0);
    assert_int_equal(g->nodes[top].cycle_offsets[1], 16384);
    assert_int_equal(g->nodes[move].time_scales[0], 64);         /* 0.00098 * 65536 = 64.2 -> 64 = 1/1024 */
    assert_int_equal(g->nodes[move].time_scales[1], 0x4000000);  /* 1024 */
    assert_int_equal(g->nodes[move].cycle_offsets[1], 65535);    /* 0.99998 * 65536 = 65534.7 */
    bsync_config_graph_fields_destroy(g);
    bsync_blend_tree_destroy(t);
}

static void test_field_errors(void** state) {
    (void)state;
    expect_error(ONE_NODE("\"speed\": {}", ", \"tick_rate\": 14"),
                 "g.json: /tick_rate: expected an integer from 15 to 60 (ticks per second)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"tick_rate\": 30.5"),
                 "g.json: /tick_rate: expected an integer from 15 to 60 (ticks per second)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"tick_rate\": 61"),
                 "g.json: /tick_rate: expected an integer from 15 to 60 (ticks per second)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"root_motion\": \"extracted\""),
                 "g.json: /root_motion: unknown value \"extracted\" (valid: keep, extract, none)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"root_motion\": 1"),
                 "g.json: /root_motion: expected a string, one of: keep, extract, none");
    expect_error(ONE_NODE("\"speed\": {}", ", \"root_rotation\": \"pitch\""),
                 "g.json: /root_rotation: unknown value \"pitch\" (valid: yaw, full)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"pose_rule\": \"fast\""),
                 "g.json: /pose_rule: unknown value \"fast\" (valid: normalized, lerped)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"pose_rule\": 2"),
                 "g.json: /pose_rule: expected a string, one of: normalized, lerped");
    expect_error(ONE_NODE("\"speed\": {}", ", \"root_joint\": 3"), "g.json: /root_joint: expected a string (a joint name)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"root_joint\": \"\""),
                 "g.json: /root_joint: a joint name must be 1 to 63 bytes long");
    /* filters */
    expect_error(ONE_NODE("\"speed\": {\"dead_zone\": -0.1}", ""), "g.json: /parameters/speed/dead_zone: expected a number >= 0");
    expect_error(ONE_NODE("\"speed\": {\"dead_zone\": 1}", ""),
                 "g.json: /parameters/speed/dead_zone: must be less than dead_zone_range (1: 1 when not given)");
    expect_error(ONE_NODE("\"speed\": {\"dead_zone\": 0.5, \"dead_zone_range\": 0.5}", ""),
                 "g.json: /parameters/speed/dead_zone_range: must be greater than dead_zone (0.5)");
    expect_error(ONE_NODE("\"speed\": {\"dead_zone_range\": 0}", ""),
                 "g.json: /parameters/speed/dead_zone_range: expected a number > 0");
    expect_error(ONE_NODE("\"speed\": {\"smooth_time\": -1}", ""),
                 "g.json: /parameters/speed/smooth_time: expected a number >= 0 (seconds; 0 = no smoothing)");
    expect_error(ONE_NODE("\"speed\": {\"smooth_time\": \"fast\"}", ""),
                 "g.json: /parameters/speed/smooth_time: expected a number >= 0 (seconds; 0 = no smoothing)");
    expect_error(ONE_NODE("\"speed\": {\"max_speed\": -2, \"smooth_time\": 1}", ""),
                 "g.json: /parameters/speed/max_speed: expected a number >= 0 (units per second; 0 = unlimited)");
    expect_error(ONE_NODE("\"speed\": {\"max_speed\": 2}", ""),
                 "g.json: /parameters/speed/max_speed: max_speed limits SmoothDamp: it needs smooth_time > 0");
    expect_error(ONE_NODE("\"speed\": {\"dead_zone\": 40000}", ""),
                 "g.json: /parameters/speed/dead_zone: 40000 is outside the fixed-point range (-32767.99998 to 32767.99998)");
    /* pairs */
    expect_error(ONE_NODE("\"speed\": {\"pair\": \"z\"}, \"y\": {}", ""),
                 "g.json: /parameters/speed/pair: unknown parameter \"z\" (declared: speed, y)");
    expect_error(ONE_NODE("\"speed\": {\"pair\": \"speed\"}", ""),
                 "g.json: /parameters/speed/pair: a parameter cannot be paired with itself");
    expect_error(ONE_NODE("\"speed\": {\"pair\": \"y\"}, \"x\": {}, \"y\": {}", ""),
                 "g.json: /parameters/speed/pair: the pair's second parameter \"y\" must be declared right after \"speed\"");
    expect_error(ONE_NODE("\"speed\": {\"pair\": \"y\"}, \"y\": {\"smooth_time\": 1}", ""),
                 "g.json: /parameters/y: the second parameter of a pair takes its filters from \"speed\": it cannot have "
                 "dead_zone, dead_zone_range, curve, smooth_time, max_speed or pair");
    expect_error(ONE_NODE("\"speed\": {\"pair\": 1}, \"y\": {}", ""),
                 "g.json: /parameters/speed/pair: expected a string (a parameter name)");
    /* curves */
    expect_error(ONE_NODE("\"speed\": {\"curve\": 1}", ""),
                 "g.json: /parameters/speed/curve: expected an array of keys or an object {\"keys\": [...], \"pre_wrap\", "
                 "\"post_wrap\"}");
    expect_error(ONE_NODE("\"speed\": {\"curve\": []}", ""),
                 "g.json: /parameters/speed/curve: expected an array of 1 to 1024 keys");
    expect_error(ONE_NODE("\"speed\": {\"curve\": {\"keys\": [{\"time\": 0, \"value\": 0}], \"pre_wrap\": \"mirror\"}}", ""),
                 "g.json: /parameters/speed/curve/pre_wrap: unknown value \"mirror\" (valid: clamp, loop, pingpong)");
    expect_error(ONE_NODE("\"speed\": {\"curve\": {\"key\": []}}", ""),
                 "g.json: /parameters/speed/curve/key: unknown field (a curve has: keys, pre_wrap, post_wrap)");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"value\": 0}]}", ""),
                 "g.json: /parameters/speed/curve/0: missing field \"time\"");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"time\": 0}]}", ""),
                 "g.json: /parameters/speed/curve/0: missing field \"value\"");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"time\": 0, \"value\": 0, \"tangent\": 1}]}", ""),
                 "g.json: /parameters/speed/curve/0/tangent: unknown field (a curve key has: time, value, in_tangent, "
                 "out_tangent, in_weight, out_weight, weighted_mode, stepped)");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"time\": 1, \"value\": 0}, {\"time\": 0, \"value\": 1},"
                          " {\"time\": 1.0, \"value\": 2}]}", ""),
                 "g.json: /parameters/speed/curve/2/time: two keys at time 1 (keys 0 and 2)");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"time\": 0, \"value\": 0, \"in_weight\": 1.5}]}", ""),
                 "g.json: /parameters/speed/curve/0/in_weight: expected a number from 0 to 1");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"time\": 0, \"value\": 0, \"out_weight\": -0.1}]}", ""),
                 "g.json: /parameters/speed/curve/0/out_weight: expected a number from 0 to 1");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"time\": 0, \"value\": 0, \"weighted_mode\": \"all\"}]}", ""),
                 "g.json: /parameters/speed/curve/0/weighted_mode: unknown value \"all\" (valid: none, in, out, both)");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"time\": 0, \"value\": 0, \"stepped\": 1}]}", ""),
                 "g.json: /parameters/speed/curve/0/stepped: expected true, false, \"in\", \"out\" or \"both\"");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [{\"time\": 0, \"value\": 0, \"stepped\": \"left\"}]}", ""),
                 "g.json: /parameters/speed/curve/0/stepped: unknown value \"left\" (valid: in, out, both)");
    expect_error(ONE_NODE("\"speed\": {\"curve\": [3]}", ""),
                 "g.json: /parameters/speed/curve/0: expected an object (a key: {\"time\": t, \"value\": v, ...})");
    /* node options */
    expect_error("{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\","
                 " \"parameter\": \"speed\", \"sync\": \"sync\", \"children\": [{\"motion\": \"a\", \"threshold\": 0}]}}}",
                 "g.json: /nodes/move/sync: unknown value \"sync\" (valid: normalized, none)");
    expect_error("{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\","
                 " \"parameter\": \"speed\", \"children\": [{\"motion\": \"a\", \"threshold\": 0, \"time_scale\": 0}]}}}",
                 "g.json: /nodes/move/children/0/time_scale: expected a number from 0.00098 (1/1024) to 1024");
    expect_error("{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\","
                 " \"parameter\": \"speed\", \"children\": [{\"motion\": \"a\", \"threshold\": 0, \"time_scale\": 1024.00002}]}}}",
                 "g.json: /nodes/move/children/0/time_scale: expected a number from 0.00098 (1/1024) to 1024");
    expect_error("{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\","
                 " \"parameter\": \"speed\", \"children\": [{\"motion\": \"a\", \"threshold\": 0, \"cycle_offset\": 1}]}}}",
                 "g.json: /nodes/move/children/0/cycle_offset: expected a number from 0 to less than 1");
    expect_error("{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\","
                 " \"parameter\": \"speed\", \"children\": [{\"motion\": \"a\", \"threshold\": 0, \"cycle_offset\": -0.5}]}}}",
                 "g.json: /nodes/move/children/0/cycle_offset: expected a number from 0 to less than 1");
    /* clips */
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": []"),
                 "g.json: /clips: expected an object of clips ({\"MOTION\": {\"source\": FILE, ...}})");
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"jog\": {\"source\": \"a.gltf\"}}"),
                 "g.json: /clips/jog: no motion named \"jog\" (motions: walk, run)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"move\": {\"source\": \"a.gltf\"}}"),
                 "g.json: /clips/move: \"move\" is a node, not a motion: only motions take clips");
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": {\"animation\": \"walk\"}}"),
                 "g.json: /clips/walk: missing field \"source\"");
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": {\"source\": \"\"}}"),
                 "g.json: /clips/walk/source: expected a string (a file path)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": {\"source\": \"a.gltf\", \"speed\": 2}}"),
                 "g.json: /clips/walk/speed: unknown field (a clip has: source, animation, loop, events)");
    /* issue 31: "loop": false is a one-shot now (tests/unit/config/test_graph_config_actions.c) */
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": {\"source\": \"a.gltf\", \"loop\": false, \"events\": [{\"name\": \"x\"}]}}"),
                 "g.json: /clips/walk/events/0: an event needs \"time\" (an instant) or both \"begin\" and \"end\" (a range)");
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": {\"source\": \"a.gltf\", \"loop\": 1}}"),
                 "g.json: /clips/walk/loop: expected true or false");
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": {\"source\": \"a.gltf\"}, \"walk\": {\"source\": \"b.gltf\"}}"),
                 "g.json: /clips/walk: duplicate clip");
    expect_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": \"a.gltf\"}"),
                 "g.json: /clips/walk: expected an object ({\"source\": FILE, \"animation\": NAME, \"loop\": true})");
    expect_error(ONE_NODE("\"speed\": {}", ", \"tick_rate\": 30, \"tick_rate\": 30"), "g.json: /tick_rate: duplicate field");
}

/* The graph assembled from a config has the hash of the same graph built by hand with the C API. */
static void test_graph_equals_hand_built(void** state) {
    (void)state;
    const char* json = "{\"tick_rate\": 20, \"parameters\": {\"speed\": {\"default\": 0.5, \"dead_zone\": 0.1, \"smooth_time\": 0.3,"
                       " \"max_speed\": 4, \"curve\": [{\"time\": 0, \"value\": 0, \"out_tangent\": 1},"
                       " {\"time\": 2, \"value\": 1.5, \"in_tangent\": 0.5}]}, \"x\": {\"pair\": \"y\", \"smooth_time\": 0.1}, \"y\": {}},"
                       " \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", \"parameter\": \"speed\","
                       " \"sync\": \"none\", \"children\": [{\"motion\": \"walk\", \"threshold\": 0, \"time_scale\": 2},"
                       " {\"motion\": \"run\", \"threshold\": 1.5, \"cycle_offset\": 0.5}]}}}";
    bsync_graph_config* gc = load_ok(json);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    assert_non_null(g);
    assert_int_equal(bsync_graph_tick_rate(g), 20);
    assert_null(bsync_graph_config_skeleton(gc));
    assert_int_equal(bsync_graph_config_bound_clip_count(gc), 0);

    /* by hand */
    const char* pn[] = {"speed", "x", "y"};
    const fix16_t pd[] = {ONE / 2, 0, 0};
    const char* mn[] = {"walk", "run"};
    bsync_blend_child_ref ch[2] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}};
    fix16_t th[2] = {0, 98304};
    uint32_t np[1] = {0};
    bsync_blend_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = "move";
    nd.space.type = BSYNC_BLEND_SIMPLE_1D;
    nd.space.child_count = 2;
    nd.space.thresholds = th;
    nd.children = ch;
    nd.params = np;
    bsync_blend_tree_desc td = {pn, pd, 3, mn, 2, &nd, 1, 0};
    bsync_blend_tree* tree = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &tree, NULL, NULL), BSYNC_OK);
    bsync_curve_key keys[2];
    memset(keys, 0, sizeof keys);
    keys[0].out_tangent = ONE;
    keys[0].in_weight = keys[0].out_weight = keys[1].in_weight = keys[1].out_weight = 21845;
    keys[1].time = 2 * ONE;
    keys[1].value = 98304;
    keys[1].in_tangent = ONE / 2;
    bsync_curve_desc cd = {keys, 2, BSYNC_CURVE_CLAMP, BSYNC_CURVE_CLAMP};
    bsync_curve* curve = NULL;
    assert_int_equal(bsync_curve_create(&cd, NULL, &curve), BSYNC_OK);
    bsync_param_filter_desc fd[3];
    memset(fd, 0, sizeof fd);
    fd[0].dead_zone = 6554;
    fd[0].curve = curve;
    fd[0].smooth_time = 19661;
    fd[0].max_speed = 4 * ONE;
    fd[1].pair = 1;
    fd[1].smooth_time = 6554;
    fix16_t ts[2] = {2 * ONE, ONE}, co[2] = {0, ONE / 2};
    bsync_graph_node_options no = {BSYNC_SYNC_NONE, ts, co};
    bsync_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.tree = tree;
    gd.tick_rate = 20;
    gd.filters = fd;
    gd.node_options = &no;
    bsync_graph* hand = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &hand), BSYNC_OK);
    assert_true(bsync_graph_hash(hand) == bsync_graph_hash(g));
    /* and a one-field change is seen: another smooth time gives another hash */
    fd[1].smooth_time = 6553;
    bsync_graph* other = NULL;
    assert_int_equal(bsync_graph_create(&gd, NULL, &other), BSYNC_OK);
    assert_true(bsync_graph_hash(other) != bsync_graph_hash(g));
    bsync_graph_destroy(other);
    bsync_graph_destroy(hand);
    bsync_curve_destroy(curve);
    bsync_blend_tree_destroy(tree);
    bsync_graph_config_destroy(gc);
}

#define CLIPS_CFG(clips, extra) ONE_NODE("\"speed\": {}", ", \"clips\": {" clips "}" extra)

static void test_clips_bound_and_retargeted(void** state) {
    (void)state;
    /* walk from a.gltf (its skeleton is the graph's), run by default name from a.gltf, and b.gltf's single
     * clip "sprint" retargeted (root, arm mapped; hand dropped) onto a's skeleton is bound to... run is
     * already bound, so use a tree with three motions. */
    const char* json =
        "{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\","
        " \"parameter\": \"speed\", \"children\": [{\"motion\": \"walk\", \"threshold\": 0}, {\"motion\": \"run\","
        " \"threshold\": 1}, {\"motion\": \"dash\", \"threshold\": 2}, {\"motion\": \"idle\", \"threshold\": 3}]}},"
        " \"root_joint\": \"arm\","
        " \"clips\": {\"walk\": {\"source\": \"a.gltf\", \"animation\": \"walk\", \"loop\": true},"
        "            \"run\": {\"source\": \"a.gltf\"}, \"dash\": {\"source\": \"b.gltf\"}}}";
    bsync_graph_config* gc = load_ok(json);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    const bsync_skeleton* sk = bsync_graph_config_skeleton(gc);
    assert_non_null(sk);
    assert_int_equal(bsync_skeleton_joint_count(sk), 2);
    assert_string_equal(bsync_skeleton_joint_name(sk, 1), "arm");
    assert_int_equal(bsync_graph_joint_count(g), 2);
    assert_int_equal(bsync_graph_config_bound_clip_count(gc), 3);
    const bsync_blend_tree* t = bsync_graph_config_tree(gc);
    uint32_t m;
    assert_int_equal(bsync_blend_tree_find_motion(t, "walk", &m), BSYNC_OK);
    assert_int_equal(bsync_graph_motion_length(g, m), ONE);        /* 1.0 s */
    assert_string_equal(bsync_clip_name(bsync_graph_motion_clip(g, m)), "walk");
    assert_int_equal(bsync_blend_tree_find_motion(t, "run", &m), BSYNC_OK);
    assert_int_equal(bsync_graph_motion_length(g, m), ONE / 2);    /* 0.5 s */
    assert_int_equal(bsync_blend_tree_find_motion(t, "dash", &m), BSYNC_OK);
    assert_int_equal(bsync_graph_motion_length(g, m), ONE / 4);    /* 0.25 s, retargeted */
    assert_int_equal(bsync_clip_joint_count(bsync_graph_motion_clip(g, m)), 2);
    assert_int_equal(bsync_blend_tree_find_motion(t, "idle", &m), BSYNC_OK);
    assert_null(bsync_graph_motion_clip(g, m));
    assert_int_equal(bsync_graph_motion_length(g, m), ONE);        /* no clip: 1 s */
    const char* notes = bsync_graph_config_notes(gc);
    assert_non_null(strstr(notes, "b.gltf: retargeted by joint name onto the skeleton of a.gltf: 2 of 2 joints mapped\n"));
    assert_non_null(strstr(notes, "b.gltf: 1 source joints not in the skeleton were dropped (0 tracks): hand\n"));
    bsync_graph_config_destroy(gc);
}

static void test_clip_errors(void** state) {
    (void)state;
    load_error(CLIPS_CFG("\"walk\": {\"source\": \"a.gltf\", \"animation\": \"wlak\"}", ""),
               "DIR/cfg.json: /clips/walk/animation: no animation \"wlak\" in a.gltf (animations: walk, run)");
    load_error(ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": {\"source\": \"a.gltf\"}, \"run\": {\"source\": \"c.gltf\"}}"),
               "DIR/cfg.json: /clips/run/source: \"c.gltf\" shares no joint name with the skeleton of \"a.gltf\": cannot "
               "retarget its clips");
    /* two clips in the source, none named like the motion, no "animation": the source is named */
    /* no "animation", no clip named like the motion, two clips in the source: the source is blamed */
    load_error("{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\","
               " \"parameter\": \"speed\", \"children\": [{\"motion\": \"dash\", \"threshold\": 0}]}},"
               " \"clips\": {\"dash\": {\"source\": \"a.gltf\"}}}",
               "DIR/cfg.json: /clips/dash/source: no animation \"dash\" in a.gltf (animations: walk, run)");
    /* one clip in the source and no "animation": that clip is used (b.gltf's "sprint") */
    bsync_graph_config* gc = load_ok("{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\","
               " \"parameter\": \"speed\", \"children\": [{\"motion\": \"dash\", \"threshold\": 0}]}},"
               " \"clips\": {\"dash\": {\"source\": \"b.gltf\"}}}");
    assert_string_equal(bsync_clip_name(bsync_graph_motion_clip(bsync_graph_config_graph(gc), 0)), "sprint");
    assert_int_equal(bsync_skeleton_joint_count(bsync_graph_config_skeleton(gc)), 3);
    bsync_graph_config_destroy(gc);
}

static void test_clip_errors2(void** state) {
    (void)state;
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load_text(CLIPS_CFG("\"walk\": {\"source\": \"missing.gltf\"}", ""), &err, &r);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_null(gc);
    char want[300];
    snprintf(want, sizeof want, "%s/cfg.json: /clips/walk/source: cannot import \"missing.gltf\": ", g_dir);
    assert_memory_equal(err.message, want, strlen(want));
    load_error(CLIPS_CFG("\"walk\": {\"source\": \"a.gltf\"}", ", \"root_joint\": \"hand\""),
               "DIR/cfg.json: /root_joint: no joint named \"hand\" in the skeleton (from a.gltf)");
    load_error(ONE_NODE("\"speed\": {}", ", \"root_joint\": \"Hips\""),
               "DIR/cfg.json: /root_joint: no clips are bound, so there is no skeleton to find \"Hips\" in");
    /* a config-level error comes through with its path */
    load_error(ONE_NODE("\"speed\": {}", ", \"tick_rate\": 10"),
               "DIR/cfg.json: /tick_rate: expected an integer from 15 to 60 (ticks per second)");
    bsync_graph_config* out = (bsync_graph_config*)(uintptr_t)1;
    assert_int_equal(bsync_graph_config_load("/nonexistent/x.json", NULL, &out, NULL, &err), BSYNC_IO_ERROR);
    assert_null(out);
    assert_int_equal(bsync_graph_config_load(NULL, NULL, &out, NULL, &err), BSYNC_INVALID_ARGUMENT);
    bsync_graph_config_destroy(NULL);
    assert_null(bsync_graph_config_graph(NULL));
    assert_string_equal(bsync_graph_config_notes(NULL), "");
}

/* bsync_graph_config_parse: the same graph as _load of the same text in a file (by bsync_graph_hash), the
 * clip sources resolved against the name's directory, text that need not be NUL-terminated, and the
 * same error messages with the name as the path. */
static void test_parse_from_memory(void** state) {
    (void)state;
    const char* json = CLIPS_CFG("\"walk\": {\"source\": \"a.gltf\"}", "");
    bsync_graph_config* from_file = load_ok(json);
    char name[256], text[2048];
    snprintf(name, sizeof name, "%s/in-memory.json", g_dir);
    size_t n = strlen(json);
    memcpy(text, json, n);
    text[n] = '}'; /* not NUL-terminated: the length decides */
    bsync_graph_config* gc = (bsync_graph_config*)(uintptr_t)1;
    bsync_error err;
    assert_int_equal(bsync_graph_config_parse(text, n, name, NULL, &gc, NULL, &err), BSYNC_OK);
    assert_non_null(gc);
    assert_int_equal(bsync_graph_config_bound_clip_count(gc), 1);
    assert_true(bsync_graph_hash(bsync_graph_config_graph(gc)) == bsync_graph_hash(bsync_graph_config_graph(from_file)));
    bsync_graph_config_destroy(gc);
    bsync_graph_config_destroy(from_file);
    /* relative to the name's directory: not found next to another name */
    assert_int_equal(bsync_graph_config_parse(json, n, "/nonexistent/in-memory.json", NULL, &gc, NULL, &err), BSYNC_CONFIG_ERROR);
    assert_null(gc);
    assert_non_null(strstr(err.message, "/nonexistent/in-memory.json: /clips/walk/source: cannot import \"a.gltf\""));
    const char* bad = ONE_NODE("\"speed\": {}", ", \"tick_rate\": 10");
    assert_int_equal(bsync_graph_config_parse(bad, strlen(bad), NULL, NULL, &gc, NULL, &err), BSYNC_CONFIG_ERROR);
    assert_string_equal(err.message, "graph: /tick_rate: expected an integer from 15 to 60 (ticks per second)");
    assert_int_equal(bsync_graph_config_parse(NULL, 0, "x.json", NULL, &gc, NULL, &err), BSYNC_INVALID_ARGUMENT);
    assert_null(gc);
}

/* root_motion other than keep: while the graph refuses it the error names /root_motion; once the
 * graph supports it the config builds with the mode. */
static void test_root_motion(void** state) {
    (void)state;
    const char* modes[] = {"extract", "none"};
    for (int i = 0; i < 2; i++) {
        char json[1024];
        snprintf(json, sizeof json,
                 ONE_NODE("\"speed\": {}", ", \"clips\": {\"walk\": {\"source\": \"a.gltf\"}}, \"root_motion\": \"%s\","
                                           " \"root_rotation\": \"full\", \"root_joint\": \"root\""),
                 modes[i]);
        bsync_error err;
        bsync_result r;
        bsync_graph_config* gc = load_text(json, &err, &r);
        if (r == BSYNC_OK) {
            const bsync_config_graph_fields* f = bsync_graph_config_fields(gc);
            assert_int_equal(f->root_motion, i == 0 ? BSYNC_ROOT_MOTION_EXTRACT : BSYNC_ROOT_MOTION_NONE);
            bsync_graph_config_destroy(gc);
        } else {
            char want[400];
            snprintf(want, sizeof want, "%s/cfg.json: /root_motion: the graph refused \"%s\": %s", g_dir, modes[i],
                     bsync_result_string(BSYNC_INVALID_ARGUMENT));
            assert_int_equal(r, BSYNC_CONFIG_ERROR);
            assert_string_equal(err.message, want);
        }
    }
}

/* The pab example (scripts/examples/pab_locomotion.json) with its data path pointed at the shared dir. */
static void test_pab_example(void** state) {
    (void)state;
    const char* shared = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf");
    if (!shared) {
        skip();
        return;
    }
    char root[1024];
    snprintf(root, sizeof root, "%s/scripts/examples/pab_locomotion.json", BSYNC_SOURCE_DIR);
    char* text = bsync_test_read_file(root, NULL);
    assert_non_null(text);
    const char* dir = bsync_test_shared_dir();
    /* replace every "../../../shared/" by the shared dir */
    char* out = malloc(strlen(text) * 2 + 4096);
    size_t w = 0;
    const char* pat = "../../../shared/";
    for (const char* p = text; *p;) {
        if (!strncmp(p, pat, strlen(pat))) {
            w += (size_t)sprintf(out + w, "%s/", dir);
            p += strlen(pat);
        } else {
            out[w++] = *p++;
        }
    }
    out[w] = '\0';
    bsync_graph_config* gc = load_ok(out);
    free(out);
    free(text);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    assert_int_equal(bsync_graph_tick_rate(g), 30);
    assert_int_equal(bsync_graph_joint_count(g), 67);   /* summary.json: num_joints 67 */
    assert_int_equal(bsync_graph_config_bound_clip_count(gc), 3);
    /* summary.json durations 1.33333337, 0.800000012, 0.666666687 s -> raw round(d * 65536) */
    const char* names[] = {"walk", "jog", "run"};
    const fix16_t lens[] = {87381, 52429, 43691};
    for (int i = 0; i < 3; i++) {
        uint32_t m;
        assert_int_equal(bsync_blend_tree_find_motion(bsync_graph_config_tree(gc), names[i], &m), BSYNC_OK);
        assert_int_equal(bsync_graph_motion_length(g, m), lens[i]);
    }
    const bsync_config_graph_fields* f = bsync_graph_config_fields(gc);
    assert_int_equal(f->filters[0].smooth_time, 19661); /* 0.3 s */
    assert_string_equal(f->root_joint, "Hips");
    bsync_graph_config_destroy(gc);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_field),
        cmocka_unit_test(test_field_errors),
        cmocka_unit_test(test_graph_equals_hand_built),
        cmocka_unit_test(test_clips_bound_and_retargeted),
        cmocka_unit_test(test_clip_errors),
        cmocka_unit_test(test_clip_errors2),
        cmocka_unit_test(test_root_motion),
        cmocka_unit_test(test_parse_from_memory),
        cmocka_unit_test(test_pab_example),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
