/* test_run_recorder.c — bsync_run_recorder (io/replay_recorder.h, docs/replay.md "Instance runs"): the
 * demo graph driven by a graph script is recorded beside its instance; the replay's header holds the
 * match config built from the script (read back with cJSON: parameters with their scripted ranges,
 * one trigger per kind of play cell, the graph relative to the replay) and `replay verify` re-simulates
 * it; a checksum that differs from the match's stops the recording and leaves no file; the refusals
 * (no file name, no directory, more than 16 kinds of trigger) leave nothing either. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "blendsync/blend_tree.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/io/replay_verify.h"
#include "blendsync/io/script.h"
#include "test_support.h"

#define GRAPH BSYNC_SOURCE_DIR "/scripts/demo/humanoid_locomotion.json"

static bsync_graph_config* gc;
static char dir[64];

static int setup(void** state) {
    (void)state;
    bsync_error err;
    snprintf(dir, sizeof dir, "/tmp/bsync_runrec_XXXXXX");
    if (!mkdtemp(dir)) return -1;
    return bsync_graph_config_load(GRAPH, NULL, &gc, NULL, &err) == BSYNC_OK ? 0 : -1;
}

static int teardown(void** state) {
    (void)state;
    bsync_graph_config_destroy(gc);
    DIR* d = opendir(dir);
    struct dirent* e;
    char p[512];
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            remove(p);
        }
    if (d) closedir(d);
    remove(dir);
    return 0;
}

/* The names in dir, one "NAME\n" each, sorted; for "nothing left behind" checks. */
static void listing(char* out, size_t cap) {
    char names[16][260];
    int n = 0;
    DIR* d = opendir(dir);
    struct dirent* e;
    while (d && (e = readdir(d)) != NULL && n < 16)
        if (e->d_name[0] != '.' && strlen(e->d_name) < sizeof names[0]) memcpy(names[n++], e->d_name, strlen(e->d_name) + 1);
    if (d) closedir(d);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[260];
            memcpy(t, names[j], sizeof t);
            memcpy(names[j], names[j - 1], sizeof t);
            memcpy(names[j - 1], t, sizeof t);
        }
    out[0] = '\0';
    size_t w = 0;
    for (int i = 0; i < n; i++) w += (size_t)snprintf(out + w, cap - w, "%s\n", names[i]);
}

static bsync_script* parse(const char* text) {
    bsync_script* s = NULL;
    bsync_error err;
    if (bsync_script_parse(text, strlen(text), "run.csv", bsync_graph_config_graph(gc), NULL, &s, &err) != BSYNC_OK)
        fail_msg("%s", err.message);
    return s;
}

/* Run `ticks` ticks of an instance of the demo graph from script s, recording into path; the state
 * checksum given to the recorder at tick `bad_tick` is flipped. Returns the first failure's result. */
static bsync_result run(const char* path, const bsync_script* s, uint64_t ticks, uint64_t bad_tick, bsync_error* err) {
    const bsync_graph* g = bsync_graph_config_graph(gc);
    bsync_run_recorder_desc d = {path, GRAPH, g, s, 1, "eval"};
    bsync_run_recorder* r = NULL;
    bsync_result res = bsync_run_recorder_open(&d, &r, err);
    if (res != BSYNC_OK) {
        assert_null(r);
        return res;
    }
    const uint32_t pc = bsync_graph_parameter_count(g);
    size_t size = bsync_instance_memory_size(g);
    void* mem = malloc(size);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(mem, size, g, &inst), BSYNC_OK);
    fix16_t targets[8];
    for (uint32_t i = 0; i < pc; i++) targets[i] = bsync_blend_tree_parameter_default(bsync_graph_tree(g), i);
    bsync_instance_input in = {targets, pc};
    bsync_switch_trigger trig[BSYNC_GRAPH_MAX_SWITCHES];
    size_t row = 0;
    for (uint64_t t = 0; t < ticks && res == BSYNC_OK; t++) {
        uint32_t tn = bsync_script_apply(s, &row, t, targets, trig);
        assert_int_equal(bsync_instance_tick_ex(inst, &in, trig, tn), BSYNC_OK);
        uint64_t pose = 0;
        assert_int_equal(bsync_instance_pose_checksum(inst, &pose, NULL), BSYNC_OK);
        uint64_t state = bsync_instance_state_checksum(inst) ^ (t == bad_tick ? 1u : 0u);
        res = bsync_run_recorder_tick(r, t, targets, trig, tn, state, pose, err);
    }
    if (res == BSYNC_OK) res = bsync_run_recorder_finish(r, ticks, err);
    else bsync_run_recorder_abort(r);
    free(mem);
    return res;
}

static double number(const cJSON* o, const char* key) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

static const char* string(const cJSON* o, const char* key) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsString(v));
    return v->valuestring;
}

static void test_record_and_verify(void** state) {
    (void)state;
    bsync_script* s = parse("tick,move_x,play:upper,speed\n0,-0.5,,1\n5,,wave fade=6,3.5\n9,0.25,punch fade=6,\n"
                            "12,,move fade=2 inertialize,0\n");
    char path[128];
    snprintf(path, sizeof path, "%s/run.bsreplay", dir);
    bsync_error err;
    memset(&err, 0, sizeof err);
    assert_int_equal(run(path, s, 20, UINT64_MAX, &err), BSYNC_OK);
    char names[512];
    listing(names, sizeof names);
    assert_string_equal(names, "run.bsreplay\n"); /* no temporary file left */

    bsync_replay_reader* rd = NULL;
    assert_int_equal(bsync_replay_reader_open_file(path, &rd, &err), BSYNC_OK);
    assert_int_equal(bsync_replay_reader_next(rd, NULL, NULL, 0), BSYNC_REPLAY_OK); /* the HEADER */
    const bsync_replay_header* h = bsync_replay_reader_header(rd);
    assert_non_null(h);
    assert_string_equal(h->build_version, "blendsync " BSYNC_VERSION_STRING " eval");
    assert_int_equal(h->player_count, 1);
    assert_int_equal(h->param_count, 2);
    assert_int_equal(h->trigger_count, 2);
    assert_int_equal(h->checksum_interval, 1);
    char want_path[4200];
    char real_dir[4096];
    assert_non_null(realpath(dir, real_dir));
    snprintf(want_path, sizeof want_path, "%s/run.bsreplay.match.json", real_dir);
    assert_string_equal(h->config_path, want_path);
    cJSON* doc = cJSON_ParseWithLength(h->config_text, h->config_len);
    assert_non_null(doc);
    assert_int_equal((int)number(doc, "match_id"), 1);
    assert_string_equal(string(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "players"), 0), "token"), "eval");
    const cJSON* input = cJSON_GetObjectItemCaseSensitive(doc, "input");
    const cJSON* params = cJSON_GetObjectItemCaseSensitive(input, "parameters");
    assert_int_equal(cJSON_GetArraySize(params), 2);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
    uint32_t speed = 0, move_x = 0;
    assert_int_equal(bsync_blend_tree_find_parameter(tree, "speed", &speed), BSYNC_OK);
    assert_int_equal(bsync_blend_tree_find_parameter(tree, "move_x", &move_x), BSYNC_OK);
    const double dx = bsync_fx_to_double(bsync_blend_tree_parameter_default(tree, move_x));
    const double ds = bsync_fx_to_double(bsync_blend_tree_parameter_default(tree, speed));
    const cJSON* p0 = cJSON_GetArrayItem(params, 0);
    const cJSON* p1 = cJSON_GetArrayItem(params, 1);
    assert_string_equal(string(p0, "name"), "move_x"); /* script column order */
    assert_true(number(p0, "min") == (dx < -0.5 ? dx : -0.5) && number(p0, "max") == (dx > 0.25 ? dx : 0.25));
    assert_string_equal(string(p1, "name"), "speed");
    assert_true(number(p1, "min") == (ds < 0 ? ds : 0) && number(p1, "max") == (ds > 3.5 ? ds : 3.5));
    const cJSON* trigs = cJSON_GetObjectItemCaseSensitive(input, "triggers");
    assert_int_equal(cJSON_GetArraySize(trigs), 2); /* wave and punch share "fade=6" */
    const cJSON* t0 = cJSON_GetArrayItem(trigs, 0);
    const cJSON* t1 = cJSON_GetArrayItem(trigs, 1);
    assert_string_equal(string(t0, "name"), "play:upper fade=6");
    assert_string_equal(string(t0, "switch"), "upper");
    assert_int_equal((int)number(t0, "fade_ticks"), 6);
    assert_null(cJSON_GetObjectItemCaseSensitive(t0, "inertialize"));
    assert_string_equal(string(t1, "name"), "play:upper fade=2 inertialize");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t1, "inertialize")));
    const cJSON* ch = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(doc, "characters"), 0);
    assert_string_equal(string(ch, "name"), "eval");
    const char* graph = string(ch, "graph");
    const char* tail = "scripts/demo/humanoid_locomotion.json";
    assert_true(strlen(graph) > strlen(tail) && !strcmp(graph + strlen(graph) - strlen(tail), tail) && graph[0] == '.');
    cJSON_Delete(doc);
    bsync_replay_reader_close(rd);

    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    bsync_replay_verify_result vr;
    assert_int_equal(bsync_replay_verify_file(path, &o, &vr), BSYNC_OK);
    assert_int_equal(vr.verdict, BSYNC_VERIFY_VERIFIED);
    assert_int_equal(vr.ticks_verified, 20);
    assert_int_equal(vr.pose_checksums_compared, 20);
    bsync_replay_verify_result_destroy(&vr);
    bsync_script_destroy(s);
}

static void test_mismatch_and_refusals(void** state) {
    (void)state;
    bsync_script* s = parse("tick,speed,play:upper\n0,1,\n3,2,wave\n");
    char path[128], names[512], want[512];
    bsync_error err;
    listing(want, sizeof want);
    snprintf(path, sizeof path, "%s/bad.bsreplay", dir);
    assert_int_equal(run(path, s, 10, 4, &err), BSYNC_MISMATCH);
    assert_non_null(strstr(err.message, "tick 4: the recorded match's character (state "));
    assert_non_null(strstr(err.message, "differs from eval's instance"));
    listing(names, sizeof names);
    assert_string_equal(names, want); /* nothing written */

    snprintf(path, sizeof path, "%s/", dir);
    assert_int_equal(run(path, s, 10, UINT64_MAX, &err), BSYNC_INVALID_ARGUMENT);
    char msg[256];
    snprintf(msg, sizeof msg, "%s/: a file name is needed", dir);
    assert_string_equal(err.message, msg);
    snprintf(path, sizeof path, "%s/nodir/x.bsreplay", dir);
    assert_int_equal(run(path, s, 10, UINT64_MAX, &err), BSYNC_IO_ERROR);
    snprintf(msg, sizeof msg, "%s/nodir: the replay's directory: No such file or directory", dir);
    assert_string_equal(err.message, msg);
    bsync_script_destroy(s);

    /* 17 kinds of trigger: fade=1 .. fade=17 */
    char text[1024];
    size_t w = (size_t)snprintf(text, sizeof text, "tick,play:upper\n");
    for (int k = 1; k <= 17; k++) w += (size_t)snprintf(text + w, sizeof text - w, "%d,wave fade=%d\n", k - 1, k);
    s = parse(text);
    snprintf(path, sizeof path, "%s/many.bsreplay", dir);
    assert_int_equal(run(path, s, 20, UINT64_MAX, &err), BSYNC_LIMIT_EXCEEDED);
    assert_string_equal(err.message, "the play: columns use more than 16 kinds of trigger (switch, fade, carry, inertialize); "
                                     "a match has at most 16 input triggers (column play:upper, tick 16)");
    listing(names, sizeof names);
    assert_string_equal(names, want);
    bsync_script_destroy(s);

    bsync_run_recorder* r = (bsync_run_recorder*)(void*)&gc;
    assert_int_equal(bsync_run_recorder_open(NULL, &r, &err), BSYNC_INVALID_ARGUMENT);
    assert_null(r);
    bsync_run_recorder_abort(NULL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_record_and_verify),
        cmocka_unit_test(test_mismatch_and_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
