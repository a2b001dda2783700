/* test_graph_config_curves.c — float curves (docs/actions.md "Float curves") from a graph config: a
 * Simple1D over the built-in walk (1.0 s, threshold 0) and run (0.7 s, threshold 1), "sync": "none"
 * (each clip on its own clock), speed 0.25 with no filter: contributions walk 0.75, run 0.25 (raw
 * 49152 and 16384). Expected values worked by hand from the rule:
 *   "lift": walk [[0, 0], [0.5, 2]] (slope 4: the value at clip time t raw is exactly 4t raw for
 *   t <= 0.5 s, 2.0 after), run [[0, 4], [0.5, 4]] (4.0 throughout): the blend is
 *   (49152 * 4t + 16384 * 262144) / 65536 = 3t + 65536 raw while walk is before 0.5 s, and
 *   (49152 * 131072 + 16384 * 262144) / 65536 = 163840 (2.5) after;
 *   "walk_only": walk [[0, 1]] and nothing on run (a missing curve counts 0): 0.75 always;
 *   "third": walk [[0, 0], [0.3, 1]] (0.3 s = 19661 raw): 0.75 * round(65536 t / 19661), halves up,
 *   computed here in double precision (exact for these magnitudes) for t < 0.3 s.
 * The clip time t is the one bsync_instance_motion_time reports for the walk slot (the pose's time).
 * Also: graphs without curves have no channels; the curve values enter the state checksum (two
 * graphs differing only in a curve value differ there) and survive a snapshot; bad inputs fail with
 * FILE: /json/path: message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "test_support.h"

#define CONFIG(WALK_CURVES, RUN_CURVES)                                                                        \
    "{ \"parameters\": { \"speed\": {} }, \"root\": \"loco\", \"nodes\": { \"loco\": { \"type\": \"Simple1D\", " \
    "\"parameter\": \"speed\", \"sync\": \"none\", \"children\": [ { \"motion\": \"walk\", \"threshold\": 0 }, "  \
    "{ \"motion\": \"run\", \"threshold\": 1 } ] } }, \"clips\": { \"walk\": { \"source\": \"builtin:humanoid\"" \
    WALK_CURVES " }, \"run\": { \"source\": \"builtin:humanoid\"" RUN_CURVES " } } }"

#define WALK ", \"curves\": { \"lift\": [[0, 0], [0.5, 2]], \"walk_only\": [[0, 1]], \"third\": [[0, 0], [0.3, 1]] }"
#define RUN ", \"curves\": { \"lift\": [[0, 4], [0.5, 4]] }"

static bsync_graph_config* load(const char* text, bsync_error* err, bsync_result* r) {
    bsync_graph_config* g = NULL;
    *r = bsync_graph_config_parse(text, strlen(text), "g.json", NULL, &g, NULL, err);
    return g;
}

static bsync_instance* make(const bsync_graph* g, void** mem) {
    const size_t sz = bsync_instance_memory_size(g);
    *mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(*mem, sz, g, &inst), BSYNC_OK);
    return inst;
}

static void test_values(void** state) {
    (void)state;
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(CONFIG(WALK, RUN), &err, &r);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    assert_int_equal(bsync_graph_curve_channel_count(g), 3);
    assert_string_equal(bsync_graph_curve_channel_name(g, 0), "lift");
    assert_string_equal(bsync_graph_curve_channel_name(g, 1), "walk_only");
    assert_string_equal(bsync_graph_curve_channel_name(g, 2), "third");
    assert_null(bsync_graph_curve_channel_name(g, 3));
    uint32_t ch = 99;
    assert_int_equal(bsync_graph_find_curve(g, "third", &ch), BSYNC_OK);
    assert_int_equal(ch, 2);
    assert_int_equal(bsync_graph_find_curve(g, "nope", &ch), BSYNC_NOT_FOUND);
    void* mem;
    bsync_instance* inst = make(g, &mem);
    fix16_t v;
    assert_int_equal(bsync_instance_curve(inst, 3, &v), BSYNC_INVALID_ARGUMENT);
    const fix16_t target[1] = {16384}; /* 0.25 */
    const bsync_instance_input in = {target, 1};
    int checked_before = 0, checked_after = 0, checked_third = 0;
    for (int k = 1; k <= 45; k++) {
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        bsync_motion_time mt;
        assert_int_equal(bsync_instance_motion_time(inst, 0, 0, &mt), BSYNC_OK);
        const int64_t t = mt.seconds;
        fix16_t lift, walk_only, third;
        assert_int_equal(bsync_instance_curve(inst, 0, &lift), BSYNC_OK);
        assert_int_equal(bsync_instance_curve(inst, 1, &walk_only), BSYNC_OK);
        assert_int_equal(bsync_instance_curve(inst, 2, &third), BSYNC_OK);
        assert_int_equal(walk_only, 49152);
        if (t <= 32768) {
            assert_int_equal(lift, 3 * t + 65536);
            checked_before++;
        } else {
            assert_int_equal(lift, 163840);
            checked_after++;
        }
        if (t < 19661) {
            const double w = floor(65536.0 * (double)t / 19661.0 + 0.5);
            assert_int_equal(third, (int64_t)floor(0.75 * w + 0.5));
            checked_third++;
        }
    }
    /* 45 ticks at 30 Hz: walk goes 0 .. 1 s and wraps, so both branches ran */
    assert_true(checked_before >= 20 && checked_after >= 10 && checked_third >= 10);
    /* a snapshot keeps them (they are a function of the state) */
    uint8_t buf[4096];
    size_t len = 0;
    fix16_t lift_before;
    assert_int_equal(bsync_instance_curve(inst, 0, &lift_before), BSYNC_OK);
    const uint64_t sum_before = bsync_instance_state_checksum(inst);
    assert_int_equal(bsync_instance_save(inst, buf, sizeof buf, &len), BSYNC_OK);
    void* mem2;
    bsync_instance* other = make(g, &mem2);
    assert_int_equal(bsync_instance_load(other, buf, len), BSYNC_OK);
    assert_int_equal(bsync_instance_curve(other, 0, &v), BSYNC_OK);
    assert_int_equal(v, lift_before);
    assert_int_equal(bsync_instance_state_checksum(other), sum_before);
    free(mem2);
    free(mem);
    bsync_graph_config_destroy(gc);
}

/* The state checksum covers the values: the same graph with one key value changed, ticked the same,
 * has the same clocks and weights and a different checksum; without curves: no channels. */
static void test_checksum_and_hash(void** state) {
    (void)state;
    bsync_error err;
    bsync_result r;
    bsync_graph_config* a = load(CONFIG(", \"curves\": { \"c\": [[0, 1]] }", ""), &err, &r);
    assert_int_equal(r, BSYNC_OK);
    bsync_graph_config* b = load(CONFIG(", \"curves\": { \"c\": [[0, 2]] }", ""), &err, &r);
    assert_int_equal(r, BSYNC_OK);
    bsync_graph_config* none = load(CONFIG("", ""), &err, &r);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph *ga = bsync_graph_config_graph(a), *gb = bsync_graph_config_graph(b),
                      *gn = bsync_graph_config_graph(none);
    assert_int_equal(bsync_graph_curve_channel_count(gn), 0);
    assert_int_not_equal(bsync_graph_hash(ga), bsync_graph_hash(gb));
    assert_int_not_equal(bsync_graph_hash(ga), bsync_graph_hash(gn));
    void *ma, *mb;
    bsync_instance* ia = make(ga, &ma);
    bsync_instance* ib = make(gb, &mb);
    const fix16_t target[1] = {16384};
    const bsync_instance_input in = {target, 1};
    for (int k = 0; k < 5; k++) {
        assert_int_equal(bsync_instance_tick(ia, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_tick(ib, &in), BSYNC_OK);
        assert_int_equal(bsync_instance_node_phase(ia, 0), bsync_instance_node_phase(ib, 0));
        assert_int_not_equal(bsync_instance_state_checksum(ia), bsync_instance_state_checksum(ib));
    }
    free(ma);
    free(mb);
    bsync_graph_config_destroy(a);
    bsync_graph_config_destroy(b);
    bsync_graph_config_destroy(none);
}

static void expect(const char* text, const char* message) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* g = load(text, &err, &r);
    if (r != BSYNC_CONFIG_ERROR || strcmp(err.message, message) != 0)
        fprintf(stderr, "got:  %s\nwant: %s\n", err.message, message);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_null(g);
    assert_string_equal(err.message, message);
}

static void test_bad_input(void** state) {
    (void)state;
    expect(CONFIG(", \"curves\": { \"c\": [[0, 1], [1.5, 2]] }", ""),
           "g.json: /clips/walk/curves/c/1/0: 1.5 s is outside the clip (0 to 1 s)");
    expect(CONFIG(", \"curves\": { \"c\": [[0.5, 1], [0.25, 2]] }", ""),
           "g.json: /clips/walk/curves/c/1/0: key times increase strictly");
    expect(CONFIG(", \"curves\": { \"c\": [] }", ""),
           "g.json: /clips/walk/curves/c: expected an array of 1 to 4096 keys [time, value]");
    expect(CONFIG(", \"curves\": { \"c\": [[0, 1, 2]] }", ""),
           "g.json: /clips/walk/curves/c/0: expected a key [time, value] (seconds, number)");
    expect(CONFIG(", \"curves\": [ 1 ]", ""),
           "g.json: /clips/walk/curves: expected an object of at most 1024 curves ({\"NAME\": [[time, value], ...]})");
    expect(CONFIG(", \"curves\": { \"c\": [[0, 1]] }, \"speed\": 1", ""),
           "g.json: /clips/walk/speed: unknown field (a clip has: source, animation, loop, events, curves)");
}

/* docs/actions.md "Curves through layers", worked by hand (constant curves, so clip times do not matter):
 * base: speed 0.25 over walk "c" 1.0 and run "c" 3.0: 0.75 * 1 + 0.25 * 3 = 1.5 (raw 98304);
 * layer 0, override, weight parameter "wave" 0.5, over idle with "c" 5.0: 1.5 + 0.5 * (5 - 1.5) = 3.25;
 * layer 1, additive, fixed weight 0.25, over "lean" with "c" 2.0: 3.25 + 0.25 * 2 = 3.75 (raw 245760).
 * "base_only" (walk 1.0): 0.75, untouched by the override layer that lacks it; "layer_only" (idle 2.0):
 * 0 in the base, then 0 + 0.5 * 2 = 1.0. With wave 0 the override layer is skipped: "c" = 1.5 + 0.5 = 2.0.
 * The masks (spine_01 and below; head) do not enter: the same graph without masks gives the same values. */
#define LAYERED(MASK0, MASK1)                                                                                    \
    "{ \"parameters\": { \"speed\": {}, \"wave\": { \"default\": 0.5 } }, \"root\": \"loco\", \"nodes\": { "       \
    "\"loco\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [ { \"motion\": \"walk\", "        \
    "\"threshold\": 0 }, { \"motion\": \"run\", \"threshold\": 1 } ] }, "                                        \
    "\"upper\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [ { \"motion\": \"idle\", "       \
    "\"threshold\": 0 } ] }, "                                                                                  \
    "\"add\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [ { \"motion\": \"lean\", "         \
    "\"threshold\": 0 } ] } }, "                                                                                \
    "\"clips\": { \"walk\": { \"source\": \"builtin:humanoid\", \"curves\": { \"c\": [[0, 1]], \"base_only\": "       \
    "[[0, 1]] } }, \"run\": { \"source\": \"builtin:humanoid\", \"curves\": { \"c\": [[0, 3]] } }, "                \
    "\"idle\": { \"source\": \"builtin:humanoid\", \"curves\": { \"c\": [[0, 5]], \"layer_only\": [[0, 2]] } }, "     \
    "\"lean\": { \"source\": \"builtin:humanoid\", \"animation\": \"idle\", \"curves\": { \"c\": [[0, 2]] } } }, " \
    "\"layers\": [ { \"node\": \"upper\", \"mode\": \"override\", \"weight_parameter\": \"wave\"" MASK0 " }, "      \
    "{ \"node\": \"add\", \"mode\": \"additive\", \"weight\": 0.25" MASK1 " } ] }"

static void layered_values(const char* text, fix16_t out[2][3]) {
    bsync_error err;
    bsync_result r;
    bsync_graph_config* gc = load(text, &err, &r);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    const bsync_graph* g = bsync_graph_config_graph(gc);
    static const char* const names[3] = {"c", "base_only", "layer_only"};
    uint32_t ch[3];
    for (int i = 0; i < 3; i++) assert_int_equal(bsync_graph_find_curve(g, names[i], &ch[i]), BSYNC_OK);
    void* mem;
    bsync_instance* inst = make(g, &mem);
    for (int k = 0; k < 2; k++) {
        const fix16_t target[2] = {16384, k == 0 ? 32768 : 0};
        const bsync_instance_input in = {target, 2};
        assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
        for (int i = 0; i < 3; i++) assert_int_equal(bsync_instance_curve(inst, ch[i], &out[k][i]), BSYNC_OK);
    }
    free(mem);
    bsync_graph_config_destroy(gc);
}

static void test_layers(void** state) {
    (void)state;
    fix16_t v[2][3], u[2][3];
    layered_values(LAYERED(", \"mask\": {\"joints\": [\"spine_01\"], \"include_children\": true}",
                           ", \"mask\": {\"joints\": [\"head\"]}"), v);
    assert_int_equal(v[0][0], 245760); /* 3.75 */
    assert_int_equal(v[0][1], 49152);  /* 0.75 */
    assert_int_equal(v[0][2], 65536);  /* 1.0 */
    assert_int_equal(v[1][0], 131072); /* wave 0: 1.5 + 0.5 */
    assert_int_equal(v[1][1], 49152);
    assert_int_equal(v[1][2], 0);
    layered_values(LAYERED("", ""), u);
    assert_memory_equal(u, v, sizeof v);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_values), cmocka_unit_test(test_checksum_and_hash),
                                       cmocka_unit_test(test_bad_input), cmocka_unit_test(test_layers)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
