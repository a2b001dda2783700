/* test_script.c — the CSV scripts of io/script.h (docs/scripts.md): graph scripts against the demo
 * graph (scripts/demo/humanoid_locomotion.json: parameters speed, move_x, move_y; switch upper with
 * states move, wave, punch), input scripts against the demo match (scripts/demo/match.json: input
 * parameters speed, move_x, move_y; trigger action); messages, allocation and the per-tick calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/io/graph_config.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/script.h"
#include "test_support.h"

static bsync_graph_config* gc;
static bsync_match_config* mc;

static int setup(void** state) {
    (void)state;
    bsync_error err;
    if (bsync_graph_config_load(BSYNC_SOURCE_DIR "/scripts/demo/humanoid_locomotion.json", NULL, &gc, NULL, &err) != BSYNC_OK)
        return -1;
    return bsync_match_config_load(BSYNC_SOURCE_DIR "/scripts/demo/match.json", NULL, &mc, &err) == BSYNC_OK ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    bsync_graph_config_destroy(gc);
    bsync_match_config_destroy(mc);
    return 0;
}

static bsync_script* graph_script(const char* text) {
    bsync_script* s = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    bsync_result r = bsync_script_parse(text, strlen(text), "t.csv", bsync_graph_config_graph(gc), NULL, &s, &err);
    if (r != BSYNC_OK) fail_msg("%s", err.message);
    return s;
}

/* The parse must fail with BSYNC_PARSE_ERROR, no script, and exactly this message. */
static void graph_error(const char* text, const char* message) {
    bsync_script* s = (bsync_script*)(void*)&gc;
    bsync_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(bsync_script_parse(text, strlen(text), "t.csv", bsync_graph_config_graph(gc), NULL, &s, &err),
                     BSYNC_PARSE_ERROR);
    assert_null(s);
    assert_string_equal(err.message, message);
}

static void input_error_n(const char* text, size_t len, const char* message) {
    bsync_script* s = (bsync_script*)(void*)&gc;
    bsync_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(bsync_script_parse_inputs(text, len, "b.csv", mc, NULL, &s, &err), BSYNC_PARSE_ERROR);
    assert_null(s);
    assert_string_equal(err.message, message);
}

static void input_error(const char* text, const char* message) {
    input_error_n(text, strlen(text), message);
}

static void test_graph_rows_and_apply(void** state) {
    (void)state;
    /* columns in header order: move_y (parameter 2), play:upper, speed (parameter 0) */
    bsync_script* s = graph_script("tick, move_y ,play:upper,speed\r\n\r\n  \n0,0.5,,1\n7,,wave fade=3 carry,\n9,-1,punch,2.25");
    assert_int_equal(bsync_script_row_count(s), 3);
    assert_int_equal(bsync_script_row_tick(s, 0), 0);
    assert_int_equal(bsync_script_row_tick(s, 2), 9);
    assert_int_equal(bsync_script_column_count(s), 2);
    assert_int_equal(bsync_script_column_index(s, 0), 2);
    assert_int_equal(bsync_script_column_index(s, 1), 0);
    assert_int_equal(bsync_script_column_is_trigger(s, 0), 0);
    assert_int_equal(bsync_script_play_column_count(s), 1);
    assert_int_equal(bsync_script_play_column_switch(s, 0), 0);
    int32_t v = 0;
    assert_int_equal(bsync_script_cell(s, 1, 0, &v), 0);
    assert_int_equal(bsync_script_cell(s, 2, 1, &v), 1);
    assert_int_equal(v, 0x24000); /* 2.25 */
    bsync_switch_trigger t;
    assert_int_equal(bsync_script_play_cell(s, 0, 0, &t), 0);
    assert_int_equal(bsync_script_play_cell(s, 1, 0, &t), 1);
    assert_int_equal(t.child, 1);
    assert_int_equal(t.fade_ticks, 3);
    assert_int_equal(t.carry_time, 1);
    assert_int_equal(t.inertialize, 0);

    fix16_t targets[3] = {11, 22, 33};
    bsync_switch_trigger trig[2];
    size_t row = 0;
    assert_int_equal(bsync_script_apply(s, &row, 0, targets, trig), 0);
    assert_int_equal(row, 1);
    assert_int_equal(targets[0], 0x10000);
    assert_int_equal(targets[1], 22); /* no column: untouched */
    assert_int_equal(targets[2], 0x8000);
    for (uint64_t tick = 1; tick < 7; tick++) assert_int_equal(bsync_script_apply(s, &row, tick, targets, trig), 0);
    assert_int_equal(row, 1);
    assert_int_equal(bsync_script_apply(s, &row, 7, targets, trig), 1);
    assert_int_equal(trig[0].child, 1);
    assert_int_equal(targets[0], 0x10000); /* empty cells keep the targets */
    assert_int_equal(targets[2], 0x8000);
    assert_int_equal(bsync_script_apply(s, &row, 9, targets, NULL), 0); /* no room: the trigger is not given */
    assert_int_equal(row, 3);
    assert_int_equal(targets[2], -0x10000);
    assert_int_equal(targets[0], 0x24000);
    assert_int_equal(bsync_script_apply(s, &row, 10, targets, trig), 0);
    assert_int_equal(row, 3);
    /* a graph script gives no match input */
    bsync_match_input in;
    memset(&in, 0x33, sizeof in);
    bsync_script_input(s, 7, &in);
    assert_int_equal(in.params[0], 0);
    assert_int_equal(in.triggers[0], 0);
    bsync_script_destroy(s);
    bsync_script_destroy(NULL);
}

static void test_graph_errors(void** state) {
    (void)state;
    graph_error("tick,sped\n0,1\n", "t.csv:1:6: unknown parameter \"sped\" (parameters: speed, move_x, move_y)");
    graph_error("tick,speed,speed\n", "t.csv:1:12: duplicate column \"speed\"");
    graph_error("tock,speed\n", "t.csv:1:1: the first column must be \"tick\" (header: tick,PARAM,...)");
    graph_error("\n \n", "t.csv: empty script (expected a header line \"tick,PARAM,...\")");
    graph_error("", "t.csv: empty script (expected a header line \"tick,PARAM,...\")");
    graph_error("tick,speed\n0,1,2\n", "t.csv:2:1: expected 2 fields (as the header), found 3");
    graph_error("tick,speed\n5,1\n4,2\n",
                "t.csv:3:1: tick 4 does not follow the previous row's tick 5 (rows must be sorted by tick, one row per tick)");
    graph_error("tick,speed\n1234567890,1\n", "t.csv:2:1: tick must be a whole number from 0 to 999999999, not \"1234567890\"");
    graph_error("tick,speed\n0,abc\n", "t.csv:2:3: \"abc\" is not a number (column \"speed\")");
    graph_error("tick,speed\n0,40000\n", "t.csv:2:3: 40000 is outside the fixed-point range (-32767.99998 to 32767.99998)");
    graph_error("tick,play:locomotion\n",
                "t.csv:1:6: \"play:locomotion\": node \"locomotion\" is not a Switch node (switch nodes: upper)");
    graph_error("tick,play:upper\n0,dance\n", "t.csv:2:3: no state \"dance\" in switch \"upper\" (states: move, wave, punch)");
    graph_error("tick,play:upper\n0,wave inertialize\n",
                "t.csv:2:8: inertialize needs fade=N with N from 1 to 1048576 (the decay length)");
    graph_error("tick,play:upper\n0,wave carry carry\n",
                "t.csv:2:14: unexpected \"carry\" (a play cell is: STATE [fade=N] [carry], each option once)");
    /* the header's column limit: 256 parameters + 16 switches + tick + 1 */
    char big[4096];
    size_t w = (size_t)snprintf(big, sizeof big, "tick");
    for (int i = 0; i < 275; i++) w += (size_t)snprintf(big + w, sizeof big - w, ",");
    graph_error(big, "t.csv:1:1: too many columns (at most 256 parameters and 16 play columns)");
}

static void test_load(void** state) {
    (void)state;
    bsync_script* s = (bsync_script*)(void*)&gc;
    bsync_error err;
    assert_int_equal(bsync_script_load(BSYNC_SOURCE_DIR "/no/such.csv", bsync_graph_config_graph(gc), NULL, &s, &err),
                     BSYNC_IO_ERROR);
    assert_null(s);
    assert_string_equal(err.message, BSYNC_SOURCE_DIR "/no/such.csv: cannot read: No such file or directory");
    assert_int_equal(bsync_script_load_inputs(BSYNC_SOURCE_DIR "/no/such.csv", mc, NULL, &s, &err), BSYNC_IO_ERROR);
    assert_string_equal(err.message, BSYNC_SOURCE_DIR "/no/such.csv: cannot read");
    assert_int_equal(bsync_script_load(BSYNC_SOURCE_DIR "/scripts/demo/locomotion_path.csv", bsync_graph_config_graph(gc),
                                       NULL, &s, &err),
                     BSYNC_OK);
    assert_true(bsync_script_row_count(s) > 5);
    assert_int_equal(bsync_script_play_column_count(s), 1);
    bsync_script_destroy(s);
    assert_int_equal(bsync_script_load_inputs(BSYNC_SOURCE_DIR "/scripts/demo/joystick.csv", mc, NULL, &s, &err), BSYNC_OK);
    assert_int_equal(bsync_script_column_count(s), 4);
    assert_int_equal(bsync_script_column_is_trigger(s, 3), 1);
    bsync_script_destroy(s);
    assert_int_equal(bsync_script_parse(NULL, 3, "x", bsync_graph_config_graph(gc), NULL, &s, &err), BSYNC_INVALID_ARGUMENT);
}

static void test_allocator(void** state) {
    (void)state;
    const char* good = "tick,speed,play:upper\n0,1,wave\n3,2,\n";
    const char* bad = "tick,speed,play:upper\n0,1,wave\n3,2,nope\n";
    bsync_test_counting_allocator c;
    bsync_test_counting_allocator_init(&c);
    bsync_script* s = NULL;
    bsync_error err;
    assert_int_equal(bsync_script_parse(good, strlen(good), "a", bsync_graph_config_graph(gc), &c.allocator, &s, &err),
                     BSYNC_OK);
    assert_true(c.allocs > 0);
    bsync_script_destroy(s);
    assert_int_equal(c.live_bytes, 0);
    assert_int_equal(c.allocs, c.frees);
    assert_int_equal(bsync_script_parse(bad, strlen(bad), "a", bsync_graph_config_graph(gc), &c.allocator, &s, &err),
                     BSYNC_PARSE_ERROR);
    assert_int_equal(c.live_bytes, 0); /* a failed parse frees what it took */
    assert_int_equal(bsync_script_load_inputs(BSYNC_SOURCE_DIR "/scripts/demo/joystick.csv", mc, &c.allocator, &s, &err),
                     BSYNC_OK);
    bsync_script_destroy(s);
    assert_int_equal(c.live_bytes, 0);
    assert_int_equal(c.allocs, c.frees);
    int calls = 0;
    bsync_allocator none = bsync_test_failing_allocator(&calls);
    assert_int_equal(bsync_script_parse(good, strlen(good), "a", bsync_graph_config_graph(gc), &none, &s, &err),
                     BSYNC_OUT_OF_MEMORY);
    assert_null(s);
    assert_string_equal(err.message, "out of memory");
    assert_true(calls > 0);
}

static void test_inputs(void** state) {
    (void)state;
    /* as the bot always read it: spaces around names, a "\r\n" line skipped, a '+' tick, a short row,
     * duplicate columns (the later one wins), extra cells ignored, a NUL byte ends its line */
    static const char text[] = "tick, speed ,action,move_x,speed\r\n\r\n0,1.4,,,\n+5,,2\n9,,255,-0.5,3,x,y\n12,1\0junk\n";
    bsync_script* s = NULL;
    bsync_error err;
    assert_int_equal(bsync_script_parse_inputs(text, sizeof text - 1, "b.csv", mc, NULL, &s, &err), BSYNC_OK);
    assert_int_equal(bsync_script_row_count(s), 4);
    assert_int_equal(bsync_script_row_tick(s, 1), 5);
    assert_int_equal(bsync_script_column_count(s), 4);
    assert_int_equal(bsync_script_column_index(s, 1), 0); /* action: trigger 0 */
    assert_int_equal(bsync_script_column_is_trigger(s, 1), 1);
    assert_int_equal(bsync_script_column_index(s, 2), 1); /* move_x: parameter 1 */
    bsync_match_input in;
    bsync_script_input(s, 0, &in);
    assert_int_equal(in.params[0], 91750);
    assert_int_equal(in.triggers[0], 0);
    bsync_script_input(s, 5, &in);
    assert_int_equal(in.params[0], 91750);
    assert_int_equal(in.triggers[0], 2);
    bsync_script_input(s, 6, &in);
    assert_int_equal(in.triggers[0], 0);
    bsync_script_input(s, 9, &in);
    assert_int_equal(in.params[0], 3 * 65536);
    assert_int_equal(in.params[1], -32768);
    assert_int_equal(in.triggers[0], 255);
    bsync_script_input(s, 400, &in);
    assert_int_equal(in.params[0], 65536);
    assert_int_equal(in.params[1], -32768);
    assert_int_equal(in.triggers[0], 0);
    /* an input script applies nothing to a graph */
    fix16_t targets[3] = {0, 0, 0};
    size_t row = 0;
    assert_int_equal(bsync_script_apply(s, &row, 0, targets, NULL), 0);
    assert_int_equal(row, 0);
    assert_int_equal(targets[0], 0);
    bsync_script_destroy(s);
    /* an empty file: no columns, no rows */
    assert_int_equal(bsync_script_parse_inputs("", 0, "b.csv", mc, NULL, &s, &err), BSYNC_OK);
    assert_int_equal(bsync_script_row_count(s), 0);
    bsync_script_destroy(s);
}

static void test_input_errors(void** state) {
    (void)state;
    input_error("tick,sped\n", "b.csv:1: \"sped\" is not an input parameter or trigger of the match");
    input_error("tock\n", "b.csv:1: the header must start with \"tick\"");
    input_error("tick,\n", "b.csv:1: \"\" is not an input parameter or trigger of the match");
    input_error("tick,speed\n \n", "b.csv:2: expected a tick greater than the previous row's");
    input_error("tick,speed\n5,1\n5,2\n", "b.csv:3: expected a tick greater than the previous row's");
    input_error("tick,speed\n-1,1\n", "b.csv:2: expected a tick greater than the previous row's");
    input_error("tick,speed\n4294967296,1\n", "b.csv:2: expected a tick greater than the previous row's");
    input_error("tick,action\n0,256\n", "b.csv:2: trigger value \"256\": expected 0..255");
    input_error("tick,action\n0,-1\n", "b.csv:2: trigger value \"-1\": expected 0..255");
    input_error("tick,speed\n0,-32768\n", "b.csv:2: \"-32768\" is not a number in the fix16 range");
    input_error("tick,speed\n0,1.5x\n", "b.csv:2: \"1.5x\" is not a number in the fix16 range");
    /* 80 columns are allowed (64 parameters + 16 triggers), the 81st is refused */
    char big[1024];
    size_t w = (size_t)snprintf(big, sizeof big, "tick");
    for (int i = 0; i < 80; i++) w += (size_t)snprintf(big + w, sizeof big - w, ",speed");
    bsync_script* s = NULL;
    bsync_error err;
    assert_int_equal(bsync_script_parse_inputs(big, w, "b.csv", mc, NULL, &s, &err), BSYNC_OK);
    assert_int_equal(bsync_script_column_count(s), 80);
    bsync_script_destroy(s);
    w += (size_t)snprintf(big + w, sizeof big - w, ",speed");
    input_error_n(big, w, "b.csv:1: \"speed\" is not an input parameter or trigger of the match");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_graph_rows_and_apply), cmocka_unit_test(test_graph_errors), cmocka_unit_test(test_load),
        cmocka_unit_test(test_allocator),           cmocka_unit_test(test_inputs),       cmocka_unit_test(test_input_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
