/* test_config.c — JSON graph configuration (io/config.h): exact numbers from their text, every error
 * class with its exact message, a lexer that strings cannot fool, and a full round trip.
 *
 * Expected raw values are worked by hand (round(value * 65536), ties away from zero) or taken from
 * libfixmath's fix16_from_str for short decimals it handles exactly. */
#include "test_support.h"
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libfixmath/fix16.h>

#include "blendsync/blend_space.h"
#include "blendsync/blend_tree.h"
#include "blendsync/io/config.h"

#define ONE 65536
#define HALF 32768

static bsync_blend_tree* parse_ok(const char* json) {
    bsync_blend_tree* t = NULL;
    bsync_error err;
    bsync_result r = bsync_config_parse(json, strlen(json), "loco.json", NULL, &t, NULL, &err);
    if (r != BSYNC_OK) fprintf(stderr, "unexpected error: %s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    assert_int_equal(err.code, BSYNC_OK);
    assert_non_null(t);
    return t;
}

static void expect_error(const char* json, const char* message) {
    bsync_blend_tree* t = (bsync_blend_tree*)(uintptr_t)1;
    bsync_error err;
    bsync_result r = bsync_config_parse(json, strlen(json), "loco.json", NULL, &t, NULL, &err);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_int_equal(err.code, BSYNC_CONFIG_ERROR);
    assert_null(t);
    if (strcmp(err.message, message) != 0) fprintf(stderr, "got:  %s\nwant: %s\n", err.message, message);
    assert_string_equal(err.message, message);
}

/* A config around one parameter default given as `number` text. */
static fix16_t default_of(const char* number) {
    char json[512];
    snprintf(json, sizeof json,
             "{\"parameters\": {\"p\": {\"default\": %s}}, \"root\": \"n\", \"nodes\": {\"n\": {\"type\": \"Simple1D\","
             " \"parameter\": \"p\", \"children\": [{\"motion\": \"m\", \"threshold\": 0}]}}}",
             number);
    bsync_blend_tree* t = parse_ok(json);
    fix16_t v = bsync_blend_tree_parameter_default(t, 0);
    bsync_blend_tree_destroy(t);
    return v;
}

static void default_error(const char* number, const char* message) {
    char json[512];
    snprintf(json, sizeof json,
             "{\"parameters\": {\"p\": {\"default\": %s}}, \"root\": \"n\", \"nodes\": {\"n\": {\"type\": \"Simple1D\","
             " \"parameter\": \"p\", \"children\": [{\"motion\": \"m\", \"threshold\": 0}]}}}",
             number);
    expect_error(json, message);
}

/* ---------------------------------------------------------------- numbers */

static void test_exact_numbers(void** state) {
    (void)state;
    assert_int_equal(default_of("0.1"), 6554);   /* 6553.6 -> 6554 */
    assert_int_equal(default_of("1e-5"), 1);     /* 0.65536 -> 1 */
    assert_int_equal(default_of("-1e-5"), -1);
    assert_int_equal(default_of("0.75"), 49152);
    assert_int_equal(default_of("-2.5E+1"), -25 * ONE);
    assert_int_equal(default_of("-0"), 0);
    assert_int_equal(default_of("32767.99998"), 0x7FFFFFFF);
    /* 32767.99998 * 65536 = 2147483646.689... -> 2147483647 */
    assert_int_equal(default_of("-32767.99998"), -0x7FFFFFFF);
    /* Just below the tie 32768.5/65536: exact rounding gives 32768; the nearest double is the tie
     * itself (0.50000762939453125), which would round to 32769. */
    assert_int_equal(default_of("0.500007629394531249999999999999999"), 32768);
    assert_int_equal(default_of("0.50000762939453125"), 32769); /* the exact tie: away from zero */
    /* 70 characters: longer than cJSON's own 63-character number buffer */
    assert_int_equal(default_of("0.1000000000000000000000000000000000000000000000000000000000000000000001"), 6554);
    /* libfixmath's parser as a reference for short decimals */
    static const char* const shorts[] = {"1.5", "-2.25", "123.456", "0.3", "7", "-0.0001", "1000.125"};
    for (size_t i = 0; i < sizeof shorts / sizeof shorts[0]; i++)
        assert_int_equal(default_of(shorts[i]), fix16_from_str(shorts[i]));

    default_error("32768", "loco.json: /parameters/p/default: 32768 is outside the fixed-point range "
                           "(-32767.99998 to 32767.99998)");
    default_error("-32768", "loco.json: /parameters/p/default: -32768 is outside the fixed-point range "
                            "(-32767.99998 to 32767.99998)");
    default_error("1e400", "loco.json: /parameters/p/default: 1e400 is outside the fixed-point range "
                           "(-32767.99998 to 32767.99998)");
    /* not JSON numbers although cJSON alone would take them */
    default_error("01", "loco.json:1:34: invalid JSON: 01 is not a JSON number");
    default_error("1.", "loco.json:1:34: invalid JSON: 1. is not a JSON number");
    default_error("-", "loco.json:1:34: invalid JSON: - is not a JSON number");
    default_error("1.2.3", "loco.json:1:34: invalid JSON: 1.2.3 is not a JSON number");
    default_error("\"1\"", "loco.json: /parameters/p/default: expected a number");
}

/* Thresholds after strings full of digits, quotes and backslashes still pair with the right numbers. */
static void test_lexer_strings(void** state) {
    (void)state;
    const char* json =
        "{\"parameters\": {\"sp\\\"eed 9\": {\"default\": 1}},\n"
        " \"root\": \"n 2\\\\\",\n"
        " \"nodes\": {\"n 2\\\\\": {\"type\": \"Simple1D\", \"parameter\": \"sp\\\"eed 9\",\n"
        "   \"children\": [{\"motion\": \"a\\\"1.5\\\" -3e4 \\\\\", \"threshold\": 0},\n"
        "                {\"motion\": \"b \\u0031 [2, 3]\", \"threshold\": 2}]}}}";
    bsync_blend_tree* t = parse_ok(json);
    assert_string_equal(bsync_blend_tree_parameter_name(t, 0), "sp\"eed 9");
    assert_int_equal(bsync_blend_tree_parameter_default(t, 0), ONE);
    assert_string_equal(bsync_blend_tree_node_name(t, 0), "n 2\\");
    assert_string_equal(bsync_blend_tree_motion_name(t, 0), "a\"1.5\" -3e4 \\");
    assert_string_equal(bsync_blend_tree_motion_name(t, 1), "b 1 [2, 3]");
    const bsync_blend_space* s = bsync_blend_tree_node_space(t, 0);
    assert_int_equal(bsync_blend_space_threshold(s, 0), 0);
    assert_int_equal(bsync_blend_space_threshold(s, 1), 2 * ONE);
    fix16_t params[1] = {ONE}, leaves[2]; /* speed 1: the midpoint of 0 and 2 */
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 0, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[0], HALF);
    assert_int_equal(leaves[1], HALF);
    bsync_blend_tree_destroy(t);
}

/* ---------------------------------------------------------------- a full valid config */

static const char k_full[] =
    "{\n"
    "  \"parameters\": { \"speed\": { \"default\": 0.75 }, \"x\": {}, \"y\": { \"default\": -0.5 },\n"
    "                  \"a\": { \"default\": 1 }, \"b\": {} },\n"
    "  \"root\": \"top\",\n"
    "  \"nodes\": {\n"
    "    \"top\": { \"type\": \"Direct\", \"normalize\": false, \"children\": [\n"
    "      { \"motion\": \"loco\", \"parameter\": \"a\" }, { \"motion\": \"wave\", \"parameter\": \"b\" },\n"
    "      { \"motion\": \"square\", \"parameter\": \"b\" } ] },\n"
    "    \"loco\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [\n"
    "      { \"motion\": \"idle\", \"threshold\": 0 }, { \"motion\": \"walk\", \"threshold\": 1.5 } ] },\n"
    "    \"square\": { \"type\": \"InverseDistance2D\", \"power\": 3, \"parameters\": [\"x\", \"y\"], \"children\": [\n"
    "      { \"motion\": \"sw\", \"position\": [0, 0] }, { \"motion\": \"se\", \"position\": [1, 0] },\n"
    "      { \"motion\": \"ne\", \"position\": [1, 1.25] }, { \"motion\": \"idle\", \"position\": [0, 1] } ] }\n"
    "  }\n"
    "}\n";

static void test_full_round_trip(void** state) {
    (void)state;
    bsync_blend_tree* t = parse_ok(k_full);
    /* parameters in file order with exact defaults */
    assert_int_equal(bsync_blend_tree_parameter_count(t), 5);
    static const char* const pn[] = {"speed", "x", "y", "a", "b"};
    static const fix16_t pd[] = {49152, 0, -HALF, ONE, 0};
    for (uint32_t i = 0; i < 5; i++) {
        assert_string_equal(bsync_blend_tree_parameter_name(t, i), pn[i]);
        assert_int_equal(bsync_blend_tree_parameter_default(t, i), pd[i]);
    }
    /* nodes in file order; motions in order of first use; a name used twice is one motion */
    assert_int_equal(bsync_blend_tree_node_count(t), 3);
    assert_string_equal(bsync_blend_tree_node_name(t, 0), "top");
    assert_string_equal(bsync_blend_tree_node_name(t, 1), "loco");
    assert_string_equal(bsync_blend_tree_node_name(t, 2), "square");
    assert_int_equal(bsync_blend_tree_root(t), 0);
    static const char* const mn[] = {"wave", "idle", "walk", "sw", "se", "ne"};
    assert_int_equal(bsync_blend_tree_motion_count(t), 6);
    for (uint32_t i = 0; i < 6; i++) assert_string_equal(bsync_blend_tree_motion_name(t, i), mn[i]);
    /* children and parameter slots */
    bsync_blend_child_ref c = bsync_blend_tree_node_child(t, 0, 0);
    assert_int_equal(c.kind, BSYNC_CHILD_NODE);
    assert_int_equal(c.index, 1);
    c = bsync_blend_tree_node_child(t, 0, 1);
    assert_int_equal(c.kind, BSYNC_CHILD_MOTION);
    assert_int_equal(c.index, 0);
    c = bsync_blend_tree_node_child(t, 2, 3);
    assert_int_equal(c.kind, BSYNC_CHILD_MOTION);
    assert_int_equal(c.index, 1); /* idle again */
    assert_int_equal(bsync_blend_tree_node_param(t, 0, 0), 3);
    assert_int_equal(bsync_blend_tree_node_param(t, 0, 1), 4);
    assert_int_equal(bsync_blend_tree_node_param(t, 0, 2), 4);
    assert_int_equal(bsync_blend_tree_node_param(t, 1, 0), 0);
    assert_int_equal(bsync_blend_tree_node_param(t, 2, 0), 1);
    assert_int_equal(bsync_blend_tree_node_param(t, 2, 1), 2);
    /* layouts */
    const bsync_blend_space* s = bsync_blend_tree_node_space(t, 1);
    assert_int_equal(bsync_blend_space_type(s), BSYNC_BLEND_SIMPLE_1D);
    assert_int_equal(bsync_blend_space_threshold(s, 1), 98304);
    s = bsync_blend_tree_node_space(t, 2);
    assert_int_equal(bsync_blend_space_type(s), BSYNC_BLEND_INVERSE_DISTANCE_2D);
    bsync_vec2 p = bsync_blend_space_position(s, 2);
    assert_int_equal(p.x, ONE);
    assert_int_equal(p.y, 81920);
    assert_int_equal(bsync_blend_space_type(bsync_blend_tree_node_space(t, 0)), BSYNC_BLEND_DIRECT);
    /* defaults: speed 0.75 is the midpoint of 0 and 1.5; a = 1, b = 0 */
    fix16_t params[5], leaves[6];
    for (uint32_t i = 0; i < 5; i++) params[i] = bsync_blend_tree_parameter_default(t, i);
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 0, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[1], HALF);
    assert_int_equal(leaves[2], HALF);
    assert_int_equal(leaves[0] + leaves[3] + leaves[4] + leaves[5], 0);
    bsync_blend_tree_destroy(t);

    /* the same text from a file */
    char path[64];
    bsync_test_tmpfile(path, sizeof path, "test_config", k_full, sizeof k_full - 1);
    bsync_error err;
    bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    t = NULL;
    assert_int_equal(bsync_config_load(path, NULL, &t, diags, &err), BSYNC_OK);
    assert_int_equal(bsync_blend_tree_node_count(t), 3);
    assert_int_equal(diags[1].count, 0);
    bsync_blend_tree_destroy(t);
    remove(path);
    assert_int_equal(bsync_config_load("/nonexistent/loco.json", NULL, &t, NULL, &err), BSYNC_IO_ERROR);
    assert_int_equal(err.code, BSYNC_IO_ERROR);
    assert_string_equal(err.message, "/nonexistent/loco.json: cannot read: No such file or directory");

    /* allocation failure is reported as such */
    int calls = 0;
    bsync_allocator failing = bsync_test_failing_allocator(&calls);
    assert_int_equal(bsync_config_parse(k_full, strlen(k_full), "loco.json", &failing, &t, NULL, &err),
                     BSYNC_OUT_OF_MEMORY);
    assert_int_equal(calls, 1);
}

/* ---------------------------------------------------------------- error classes */

/* A template with a 2D node "move" and a 1D node "speed"; %s pieces replace parts. */
#define PARAMS "\"parameters\": {\"x\": {}, \"y\": {}, \"speed\": {}}"
#define MOVE(fields, children)                                                                         \
    "\"move\": {\"type\": \"SimpleDirectional2D\", \"parameters\": [\"x\", \"y\"]" fields ", \"children\": [" \
    "{\"motion\": \"idle\", \"position\": [0, 0]}, {\"motion\": \"fwd\", \"position\": [0, 1]}" children "]}"

static void test_invalid_json(void** state) {
    (void)state;
    expect_error("{\n  \"root\": \"a\",\n  \"nodes\": {]\n}", "loco.json:3:13: invalid JSON: unexpected ']'");
    expect_error("{", "loco.json:1:2: invalid JSON: unexpected end of input");
    expect_error("", "loco.json:1:1: invalid JSON: unexpected end of input");
    expect_error("{} x", "loco.json:1:4: invalid JSON: unexpected 'x'");
    expect_error("{\"a\": \"x\\q\"}", "loco.json:1:10: invalid JSON: unexpected 'q'"); /* bad escape */
    expect_error("{\"a\": tru}", "loco.json:1:10: invalid JSON: unexpected '}'");
    /* a NUL byte (the text is length-delimited) */
    bsync_blend_tree* t = NULL;
    bsync_error err;
    assert_int_equal(bsync_config_parse("{}\0", 3, "loco.json", NULL, &t, NULL, &err), BSYNC_CONFIG_ERROR);
    assert_string_equal(err.message, "loco.json:1:3: invalid JSON: unexpected byte 0x00");
    /* nesting deeper than 1000 arrays */
    static char deep[1100];
    memset(deep, '[', 1001);
    deep[1001] = '\0';
    assert_int_equal(bsync_config_parse(deep, 1001, "loco.json", NULL, &t, NULL, &err), BSYNC_CONFIG_ERROR);
    assert_string_equal(err.message, "loco.json:1:1001: invalid JSON: nested deeper than 1000 levels");
    expect_error("[1, 2]", "loco.json: /: expected an object with \"parameters\", \"root\" and \"nodes\"");
}

static void test_unknown_and_duplicate_fields(void** state) {
    (void)state;
    expect_error("{" PARAMS ", \"rooot\": \"move\", \"nodes\": {" MOVE("", "") "}}",
                 "loco.json: /rooot: unknown field (the top level has: parameters, root, nodes, tick_rate, clips, "
                 "root_motion, root_rotation, root_joint, layers, pose_rule)");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE(", \"threshold\": 1", "") "}}",
                 "loco.json: /nodes/move/threshold: unknown field (a SimpleDirectional2D node has: type, "
                 "parameters, children, sync, sync_group)");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE("", ", {\"motion\": \"run\", \"threshold\": 2}") "}}",
                 "loco.json: /nodes/move/children/2/threshold: unknown field (a SimpleDirectional2D child has: "
                 "motion, position, time_scale, cycle_offset)");
    expect_error("{\"parameters\": {\"x\": {\"min\": 0}}, \"root\": \"move\", \"nodes\": {}}",
                 "loco.json: /parameters/x/min: unknown field (a parameter has: default, dead_zone, "
                 "dead_zone_range, curve, smooth_time, max_speed, pair)");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE(", \"type\": \"Direct\"", "") "}}",
                 "loco.json: /nodes/move/type: duplicate field");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE("", "") ", " MOVE("", "") "}}",
                 "loco.json: /nodes/move: duplicate node name");
    expect_error("{\"parameters\": {\"x\": {}, \"x\": {\"default\": 1}}, \"root\": \"move\", \"nodes\": {}}",
                 "loco.json: /parameters/x: duplicate parameter name");
    /* a JSON Pointer escapes "/" and "~" in names */
    expect_error("{\"parameters\": {\"a/b~c\": {\"max\": 1}}, \"root\": \"m\", \"nodes\": {}}",
                 "loco.json: /parameters/a~1b~0c/max: unknown field (a parameter has: default, dead_zone, "
                 "dead_zone_range, curve, smooth_time, max_speed, pair)");
}

static void test_wrong_types_and_missing(void** state) {
    (void)state;
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE("", ", {\"motion\": \"run\", \"position\": [1]}") "}}",
                 "loco.json: /nodes/move/children/2/position: expected an array of 2 numbers");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE("", ", {\"motion\": \"run\", \"position\": [1, \"2\"]}") "}}",
                 "loco.json: /nodes/move/children/2/position: expected an array of 2 numbers");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE("", ", {\"motion\": \"run\", \"position\": [1, 40000]}") "}}",
                 "loco.json: /nodes/move/children/2/position/1: 40000 is outside the fixed-point range "
                 "(-32767.99998 to 32767.99998)");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE("", ", {\"position\": [1, 1]}") "}}",
                 "loco.json: /nodes/move/children/2: missing field \"motion\"");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {" MOVE("", ", {\"motion\": 3, \"position\": [1, 1]}") "}}",
                 "loco.json: /nodes/move/children/2/motion: expected a string (a motion or node name)");
    expect_error("{" PARAMS ", \"root\": 7, \"nodes\": {" MOVE("", "") "}}",
                 "loco.json: /root: expected a string (a node name)");
    expect_error("{" PARAMS ", \"nodes\": {" MOVE("", "") "}}", "loco.json: /: missing field \"root\"");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", \"parameter\": \"speed\"}}}",
                 "loco.json: /nodes/move: missing field \"children\"");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", \"parameter\": \"speed\","
                 " \"children\": [{\"motion\": \"a\", \"threshold\": \"1\"}]}}}",
                 "loco.json: /nodes/move/children/0/threshold: expected a number");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Direct\", \"normalize\": 1,"
                 " \"children\": [{\"motion\": \"a\", \"parameter\": \"x\"}]}}}",
                 "loco.json: /nodes/move/normalize: expected true or false");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"InverseDistance2D\", \"power\": 2.5,"
                 " \"parameters\": [\"x\", \"y\"], \"children\": [{\"motion\": \"a\", \"position\": [0, 0]}]}}}",
                 "loco.json: /nodes/move/power: expected an integer from 1 to 8");
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", \"parameter\": \"speed\","
                 " \"children\": []}}}",
                 "loco.json: /nodes/move/children: expected an array of 1 to 64 children");
}

static void test_names(void** state) {
    (void)state;
    expect_error("{" PARAMS ", \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple2D\"}}}",
                 "loco.json: /nodes/move/type: unknown type \"Simple2D\" (valid: Simple1D, SimpleDirectional2D, "
                 "FreeformDirectional2D, FreeformCartesian2D, Direct, Delaunay2D, InverseDistance2D, Switch)");
    expect_error("{\"parameters\": {\"x\": {}, \"y\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": "
                 "\"Delaunay2D\", \"parameters\": [\"x\", \"yy\"], \"children\": [{\"motion\": \"a\", \"position\": [0, 0]}]}}}",
                 "loco.json: /nodes/move/parameters/1: unknown parameter \"yy\" (declared: x, y)");
    expect_error("{" PARAMS ", \"root\": \"mvoe\", \"nodes\": {" MOVE("", "") "}}",
                 "loco.json: /root: no node named \"mvoe\" (nodes: move)");
    char json[512], msg[300];
    const char* long_name = "n123456789012345678901234567890123456789012345678901234567890123"; /* 64 bytes */
    snprintf(json, sizeof json, "{" PARAMS ", \"root\": \"%s\", \"nodes\": {\"%s\": {}}}", long_name, long_name);
    snprintf(msg, sizeof msg, "loco.json: /nodes/%s: a node name must be 1 to 63 bytes long", long_name);
    expect_error(json, msg);
}

static void test_graph_errors(void** state) {
    (void)state;
    /* a -> b -> a: the message names the cycle, starting at the node the tree reported */
    const char* cyc = "{\"parameters\": {\"w\": {}}, \"root\": \"a\", \"nodes\": {"
                      "\"a\": {\"type\": \"Direct\", \"children\": [{\"motion\": \"b\", \"parameter\": \"w\"}]},"
                      "\"b\": {\"type\": \"Direct\", \"children\": [{\"motion\": \"a\", \"parameter\": \"w\"},"
                      " {\"motion\": \"clip\", \"parameter\": \"w\"}]}}}";
    bsync_blend_tree* t = NULL;
    bsync_error err;
    assert_int_equal(bsync_config_parse(cyc, strlen(cyc), "loco.json", NULL, &t, NULL, &err), BSYNC_CONFIG_ERROR);
    assert_true(!strcmp(err.message, "loco.json: /nodes/a: cycle: a -> b -> a") ||
                !strcmp(err.message, "loco.json: /nodes/b: cycle: b -> a -> b"));
    /* a layout the blend space refuses: Delaunay2D coordinates beyond its exact bound (8192) */
    char msg[300];
    snprintf(msg, sizeof msg, "loco.json: /nodes/tri: node tri: %s", bsync_result_string(BSYNC_LIMIT_EXCEEDED));
    expect_error("{" PARAMS ", \"root\": \"tri\", \"nodes\": {\"tri\": {\"type\": \"Delaunay2D\", \"parameters\": [\"x\", \"y\"],"
                 " \"children\": [{\"motion\": \"a\", \"position\": [0, 0]}, {\"motion\": \"b\", \"position\": [9000, 0]},"
                 " {\"motion\": \"c\", \"position\": [0, 1]}]}}}",
                 msg);
    /* limits: 65 children */
    char big[8192];
    size_t n = (size_t)snprintf(big, sizeof big, "{" PARAMS ", \"root\": \"big\", \"nodes\": {\"big\": {\"type\": \"Simple1D\","
                                " \"parameter\": \"speed\", \"children\": [");
    for (int i = 0; i < 65; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s{\"motion\": \"m%d\", \"threshold\": %d}", i ? ", " : "", i, i);
    snprintf(big + n, sizeof big - n, "]}}}");
    expect_error(big, "loco.json: /nodes/big/children: expected an array of 1 to 64 children");
    /* a node and a motion under a node name: children resolve to nodes first */
    const char* nest = "{\"parameters\": {\"w\": {\"default\": 0.5}}, \"root\": \"a\", \"nodes\": {"
                       "\"a\": {\"type\": \"Direct\", \"children\": [{\"motion\": \"b\", \"parameter\": \"w\"}]},"
                       "\"b\": {\"type\": \"Direct\", \"children\": [{\"motion\": \"clip\", \"parameter\": \"w\"}]}}}";
    t = parse_ok(nest);
    assert_int_equal(bsync_blend_tree_motion_count(t), 1);
    fix16_t params[1] = {HALF}, leaves[1];
    assert_int_equal(bsync_blend_tree_eval_leaves(t, 0, params, leaves), BSYNC_OK);
    assert_int_equal(leaves[0], 16384); /* 0.5 * 0.5 */
    bsync_blend_tree_destroy(t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_numbers),
        cmocka_unit_test(test_lexer_strings),
        cmocka_unit_test(test_full_round_trip),
        cmocka_unit_test(test_invalid_json),
        cmocka_unit_test(test_unknown_and_duplicate_fields),
        cmocka_unit_test(test_wrong_types_and_missing),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_graph_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
