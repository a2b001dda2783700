/* test_graph_config_actions.c — actions in graph configs (docs/graph-config.md "One-shots, events and
 * exits"): a Switch over the built-in humanoid's walk and a one-shot punch with a hit window, an
 * instant and an exit back to walk. Expected ticks are worked by hand from the doc: the punch starts at
 * 0 in the trigger's tick and is at k/30 s after k ticks; 0.1, 0.2 and 0.35 s are 6554, 13107 and 22938
 * raw (0.100006, 0.199997, 0.350006 s), and an instant fires in the tick whose clock goes past it:
 * "whoosh" in tick 4 (3/30 = 0.1 is not past 0.100006), "hit" opens in tick 6 and closes in tick 11;
 * the punch is past 1.0 after tick 31, so its exit starts in tick 32. Bad inputs: one error each,
 * FILE: /json/path: message, and no graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "test_support.h"

#define CONFIG(PUNCH_EVENTS, EXIT)                                                                             \
    "{ \"parameters\": { \"speed\": {} }, \"root\": \"act\", \"nodes\": { \"act\": { \"type\": \"Switch\", "   \
    "\"initial\": \"walk\", \"children\": [ { \"motion\": \"walk\" }, { \"motion\": \"punch\", \"exit\": " EXIT \
    " } ] } }, \"clips\": { \"walk\": { \"source\": \"builtin:humanoid\" }, \"punch\": { \"source\": "          \
    "\"builtin:humanoid\", \"loop\": false, \"events\": " PUNCH_EVENTS " } } }"

#define GOOD_EVENTS                                                                                  \
    "[ { \"name\": \"hit\", \"begin\": 0.2, \"end\": 0.35, \"payload\": 10 }, { \"name\": \"whoosh\", " \
    "\"time\": 0.1, \"policy\": \"always\" } ]"
#define GOOD_EXIT "{ \"to\": \"walk\", \"fade\": 4 }"

static bsync_graph_config* load(const char* text, bsync_error* err, bsync_result* r) {
    bsync_graph_config* g = (bsync_graph_config*)(uintptr_t)1;
    *r = bsync_graph_config_parse(text, strlen(text), "g.json", NULL, &g, NULL, err);
    return g;
}

static void test_punch_hit_window(void** state) {
    (void)state;
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(CONFIG(GOOD_EVENTS, GOOD_EXIT), &err, &r);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    assert_int_equal(bsync_graph_action_count(g), 2);
    assert_int_equal(bsync_graph_exit_count(g), 1);
    assert_int_equal(bsync_graph_motion_one_shot(g, 1), 1);
    assert_int_equal(bsync_graph_motion_one_shot(g, 0), 0);
    bsync_graph_action_desc hit, whoosh;
    assert_int_equal(bsync_graph_action(g, 0, &hit), BSYNC_OK);
    assert_int_equal(bsync_graph_action(g, 1, &whoosh), BSYNC_OK);
    assert_string_equal(hit.name, "hit");
    assert_int_equal(hit.kind, BSYNC_ACTION_RANGE);
    assert_int_equal(hit.payload, 10);
    assert_int_equal(whoosh.policy, BSYNC_ACTION_POLICY_ALWAYS);
    const size_t sz = bsync_instance_memory_size(g);
    void* mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(mem, sz, g, &inst), BSYNC_OK);
    const fix16_t target[1] = {0};
    const bsync_instance_input in = {target, 1};
    const bsync_switch_trigger punch = {0, 1, 0, 0, 0};
    int whoosh_ticks = 0, enter_tick = 0, exit_tick = 0, active_ticks = 0;
    for (int k = 1; k <= 34; k++) {
        assert_int_equal(bsync_instance_tick_ex(inst, &in, k == 1 ? &punch : NULL, k == 1 ? 1u : 0u), BSYNC_OK);
        const bsync_action_report* rep = NULL;
        uint32_t n = 0;
        assert_int_equal(bsync_instance_actions(inst, &rep, &n), BSYNC_OK);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(rep[i].node, 0);
            assert_int_equal(rep[i].child, 1);
            if (rep[i].action == 1) {
                assert_int_equal(k, 4);
                assert_int_equal(rep[i].count, 1);
                whoosh_ticks++;
                continue;
            }
            assert_int_equal(rep[i].payload, 10);
            if (rep[i].count) enter_tick = k;
            if (rep[i].exits) exit_tick = k;
            active_ticks += (int)rep[i].active;
        }
        bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
        uint32_t cnt = 0;
        assert_int_equal(bsync_instance_switch_state(inst, 0, e, &cnt), BSYNC_OK);
        assert_int_equal(e[cnt - 1].child, k <= 31 ? 1u : 0u); /* the exit back to walk from tick 32 */
    }
    assert_int_equal(whoosh_ticks, 1);
    assert_int_equal(enter_tick, 6);
    assert_int_equal(exit_tick, 11);
    assert_int_equal(active_ticks, 5); /* open after ticks 6 .. 10 */
    free(mem);
    bsync_graph_config_destroy(gc);
}

static void expect(const char* text, const char* message) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* g = load(text, &err, &r);
    if (r != BSYNC_CONFIG_ERROR || strcmp(err.message, message) != 0)
        fprintf(stderr, "got:  %s\nwant: %s\n", err.message, message);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_null(g); /* nothing half-loaded */
    assert_string_equal(err.message, message);
}

static void test_bad_input(void** state) {
    (void)state;
    expect(CONFIG("[ { \"name\": \"hit\", \"time\": 1.5 } ]", GOOD_EXIT),
           "g.json: /clips/punch/events/0/time: 1.5 s is outside the clip (0 to 1 s)");
    expect(CONFIG("[ { \"name\": \"hit\", \"begin\": 0.5, \"end\": 1.25 } ]", GOOD_EXIT),
           "g.json: /clips/punch/events/0/end: 1.25 s is outside the clip (0 to 1 s)");
    expect(CONFIG("[ { \"name\": \"hit\", \"begin\": 0.5, \"end\": 0.25 } ]", GOOD_EXIT),
           "g.json: /clips/punch/events/0/end: a range ends after it begins");
    expect(CONFIG("[ { \"name\": \"hit\", \"time\": 0.5, \"end\": 0.75 } ]", GOOD_EXIT),
           "g.json: /clips/punch/events/0: an event has \"time\" (an instant) or \"begin\" and \"end\" (a range), not both");
    expect(CONFIG("[ { \"name\": \"hit\", \"time\": 0.5, \"policy\": \"leader\", \"threshold\": 0.5 } ]", GOOD_EXIT),
           "g.json: /clips/punch/events/0/threshold: only the \"weight\" policy takes a threshold");
    expect(CONFIG("[ { \"name\": \"hit\", \"time\": 0.5, \"policy\": \"loudest\" } ]", GOOD_EXIT),
           "g.json: /clips/punch/events/0/policy: expected \"weight\", \"leader\" or \"always\"");
    expect(CONFIG(GOOD_EVENTS, "{ \"to\": \"jump\" }"),
           "g.json: /nodes/act/children/1/exit/to: no child \"jump\" (children: walk, punch)");
    expect(CONFIG(GOOD_EVENTS, "{ \"to\": \"punch\" }"),
           "g.json: /nodes/act/children/1/exit/to: a state cannot exit to itself");
    expect(CONFIG(GOOD_EVENTS, "{ \"to\": \"walk\", \"at\": 0 }"),
           "g.json: /nodes/act/children/1/exit/at: expected a normalised time in (0, 1024]");
    expect(CONFIG(GOOD_EVENTS, "{ \"to\": \"walk\", \"inertialize\": true }"),
           "g.json: /nodes/act/children/1/exit/inertialize: inertialize needs \"fade\" from 1 to 1048576");
}

/* The demo graph (scripts/demo/humanoid_locomotion.json): the punch is a state of the Switch "upper",
 * which plays only in the override layer, so its base-tree contribution is 0; the weight policy takes
 * the layer's (docs/actions.md "Policies": layer weight x the slot's contribution under the layer's
 * node). The hit window [0.4, 0.6) s is [26214, 39322) raw = [0.399994, 0.600006) s; the punch
 * triggered in tick 1 is at k/30 s after tick k: it opens in tick 12 (12/30 = 0.4 is past 0.399994)
 * and closes in tick 19 (18/30 = 0.6 is not past 0.600006, 19/30 is), open after ticks 12..18.
 * `layer_weight` replaces the layer's "weight": 1, `threshold` is added to the hit (WEIGHT policy).
 * Returns the number of reports of the hit; *enter / *exit: the ticks it entered / left, *open: the
 * ticks it was open after. */
static int demo_punch(const char* layer_weight, const char* threshold, int* enter, int* exit, int* open) {
    FILE* f = fopen(BSYNC_SOURCE_DIR "/scripts/demo/humanoid_locomotion.json", "rb");
    assert_non_null(f);
    static char text[16384], edited[16384];
    const size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = 0;
    const char* w = strstr(text, "\"weight\": 1,");
    const char* p = strstr(text, "\"payload\": 10");
    assert_non_null(w);
    assert_non_null(p);
    assert_true(w < p);
    snprintf(edited, sizeof edited, "%.*s\"weight\": %s,%.*s\"payload\": 10%s%s", (int)(w - text), text, layer_weight,
             (int)(p - (w + 12)), w + 12, threshold ? ", \"threshold\": " : "", threshold ? threshold : "");
    strncat(edited, p + 13, sizeof edited - strlen(edited) - 1);
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(edited, &err, &r);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    const size_t sz = bsync_instance_memory_size(g);
    void* mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(mem, sz, g, &inst), BSYNC_OK);
    const fix16_t target[3] = {0, 0, 0};
    const bsync_instance_input in = {target, 3};
    const bsync_switch_trigger punch = {0, 2, 0, 0, 0};
    int reports = 0;
    *enter = *exit = *open = 0;
    for (int k = 1; k <= 40; k++) {
        assert_int_equal(bsync_instance_tick_ex(inst, &in, k == 1 ? &punch : NULL, k == 1 ? 1u : 0u), BSYNC_OK);
        const bsync_action_report* rep = NULL;
        uint32_t n = 0;
        assert_int_equal(bsync_instance_actions(inst, &rep, &n), BSYNC_OK);
        for (uint32_t i = 0; i < n; i++) {
            reports++;
            assert_int_equal(rep[i].child, 2);
            if (rep[i].count) *enter = k;
            if (rep[i].exits) *exit = k;
            *open += (int)rep[i].active;
        }
    }
    free(mem);
    bsync_graph_config_destroy(gc);
    return reports;
}

static void test_demo_punch_in_a_layer(void** state) {
    (void)state;
    int enter, exit, open;
    assert_int_equal(demo_punch("1", NULL, &enter, &exit, &open), 8); /* ticks 12 .. 19 */
    assert_int_equal(enter, 12);
    assert_int_equal(exit, 19);
    assert_int_equal(open, 7);
    /* a layer of weight 0 is not played: nothing fires */
    assert_int_equal(demo_punch("0", NULL, &enter, &exit, &open), 0);
    /* weight 0.5: the punch contributes 0.5, which passes a threshold of 0.5 and not one of 0.5 + 2^-16 */
    assert_int_equal(demo_punch("0.5", "0.5", &enter, &exit, &open), 8);
    assert_int_equal(enter, 12);
    assert_int_equal(demo_punch("0.5", "0.5000153", &enter, &exit, &open), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_punch_hit_window), cmocka_unit_test(test_bad_input),
                                       cmocka_unit_test(test_demo_punch_in_a_layer)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
