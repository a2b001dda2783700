/* test_match_trigger_options.c — input triggers with "carry" / "inertialize" (match.h, io/match_config.h):
 *   * the config fields reach the desc (and default to 0), with their errors and JSON paths;
 *   * bsync_match_hash equals a reference written here from match.h's "Hash" text, both for descs
 *     without options (the block is absent: the hash every existing config had) and with them (u32 3,
 *     then per character per trigger u32 carry, u32 inertialize);
 *   * a match whose trigger carries the options plays exactly what one instance driven directly with
 *     bsync_instance_tick_ex and the same bsync_switch_trigger fields plays (state checksum every tick),
 *     and the options change the result (so they are not ignored);
 *   * desc validation: options other than 0/1, a mapped inertialized trigger with fade 0 or on a graph
 *     without a skeleton are refused; an unmapped one is not. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/match_config.h"
#include "blendsync/match.h"

static char g_dir[64];

/* A Switch root over two humanoid clips (a skeleton: may inertialize), and the same without clips. */
#define HUMSW                                                                                                 \
    "{\"parameters\": {\"speed\": {}}, \"root\": \"upper\", \"nodes\": {\"upper\": {\"type\": \"Switch\", "    \
    "\"children\": [{\"motion\": \"idle\"}, {\"motion\": \"wave\"}]}}, \"clips\": {\"idle\": {\"source\": "     \
    "\"builtin:humanoid\"}, \"wave\": {\"source\": \"builtin:humanoid\"}}}"
#define BARESW                                                                                                \
    "{\"parameters\": {\"speed\": {}}, \"root\": \"upper\", \"nodes\": {\"upper\": {\"type\": \"Switch\", "    \
    "\"children\": [{\"motion\": \"idle\"}, {\"motion\": \"wave\"}]}}}"

static void write_file(const char* name, const char* text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE* f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

static int setup(void** state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/bsync_mtopt_XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    write_file("hum.json", HUMSW);
    write_file("bare.json", BARESW);
    return 0;
}

static int teardown(void** state) {
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/hum.json", g_dir);
    remove(p);
    snprintf(p, sizeof p, "%s/bare.json", g_dir);
    remove(p);
    rmdir(g_dir);
    return 0;
}

#define CONFIG(graph, triggers)                                                                            \
    "{\"match_id\": 3, \"players\": [{\"token\": \"t\"}], \"input\": {\"triggers\": [" triggers "]}, "       \
    "\"characters\": [{\"name\": \"p0\", \"graph\": \"" graph "\", \"slot\": 0}]}"

static bsync_match_config* parse_ok(const char* json) {
    bsync_match_config* cfg = NULL;
    bsync_error err;
    bsync_result r = bsync_match_config_parse(json, strlen(json), "m.json", g_dir, NULL, &cfg, &err);
    if (r != BSYNC_OK) fprintf(stderr, "unexpected error: %s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    return cfg;
}

static void expect_error(const char* json, const char* path, const char* what) {
    bsync_match_config* cfg = NULL;
    bsync_error err;
    assert_int_equal(bsync_match_config_parse(json, strlen(json), "m.json", g_dir, NULL, &cfg, &err), BSYNC_CONFIG_ERROR);
    assert_null(cfg);
    char prefix[200];
    snprintf(prefix, sizeof prefix, "m.json: %s: ", path);
    if (strncmp(err.message, prefix, strlen(prefix)) != 0 || !strstr(err.message, what))
        fprintf(stderr, "got:  %s\nwant: %s...%s\n", err.message, prefix, what);
    assert_memory_equal(err.message, prefix, strlen(prefix));
    assert_non_null(strstr(err.message, what));
}

/* match.h "Hash", written from its text. */
static uint64_t reference_hash(const bsync_match_desc* d) {
    bsync_checksum_state s;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_MATCH_DESC);
    bsync_checksum_u32(&s, 1u);
    bsync_checksum_u32(&s, d->player_count);
    bsync_checksum_u32(&s, d->param_count);
    bsync_checksum_u32(&s, d->trigger_count);
    for (uint32_t i = 0; i < d->param_count; i++) {
        bsync_checksum_fx(&s, d->param_min[i]);
        bsync_checksum_fx(&s, d->param_max[i]);
    }
    bsync_checksum_u32(&s, d->hold_min);
    bsync_checksum_u32(&s, d->hold_max);
    int states = 0, options = 0;
    for (uint32_t j = 0; j < d->trigger_count; j++) states |= d->script_states[j] != 0;
    if (states) {
        bsync_checksum_u32(&s, 2u);
        for (uint32_t j = 0; j < d->trigger_count; j++) bsync_checksum_bytes(&s, &d->script_states[j], 1);
    }
    bsync_checksum_u32(&s, d->character_count);
    for (uint32_t c = 0; c < d->character_count; c++) {
        const bsync_match_character_desc* ch = &d->characters[c];
        bsync_checksum_u64(&s, bsync_graph_hash(ch->graph));
        bsync_checksum_u32(&s, ch->slot);
        bsync_checksum_u64(&s, ch->npc_seed);
        for (uint32_t i = 0; i < d->param_count; i++) bsync_checksum_u32(&s, ch->param_map[i]);
        for (uint32_t j = 0; j < d->trigger_count; j++) {
            bsync_checksum_u32(&s, ch->trigger_map[j]);
            bsync_checksum_u32(&s, ch->trigger_fade_ticks[j]);
            options |= ch->trigger_carry[j] != 0 || ch->trigger_inertialize[j] != 0;
        }
    }
    if (options) {
        bsync_checksum_u32(&s, 3u);
        for (uint32_t c = 0; c < d->character_count; c++)
            for (uint32_t j = 0; j < d->trigger_count; j++) {
                bsync_checksum_u32(&s, d->characters[c].trigger_carry[j]);
                bsync_checksum_u32(&s, d->characters[c].trigger_inertialize[j]);
            }
    }
    return bsync_checksum_final(&s);
}

static void test_config_fields_and_hash(void** state) {
    (void)state;
    bsync_match_config* plain = parse_ok(CONFIG("hum.json", "{\"name\": \"a\", \"switch\": \"upper\", \"fade_ticks\": 6}"));
    bsync_match_config* opts = parse_ok(CONFIG("hum.json", "{\"name\": \"a\", \"switch\": \"upper\", \"fade_ticks\": 6},"
                                                           "{\"name\": \"b\", \"switch\": \"upper\", \"fade_ticks\": 8, "
                                                           "\"inertialize\": true, \"carry\": false},"
                                                           "{\"name\": \"c\", \"switch\": \"upper\", \"carry\": true}"));
    const bsync_match_desc* dp = bsync_match_config_desc(plain);
    const bsync_match_desc* d = bsync_match_config_desc(opts);
    assert_int_equal(dp->characters[0].trigger_carry[0], 0);
    assert_int_equal(dp->characters[0].trigger_inertialize[0], 0);
    assert_int_equal(d->trigger_count, 3);
    const bsync_match_character_desc* c = &d->characters[0];
    /* all three name switch 0; a: plain, b: inertialize (fade 8), c: carry (fade 0) */
    assert_int_equal(c->trigger_map[0], 0);
    assert_int_equal(c->trigger_map[1], 0);
    assert_int_equal(c->trigger_map[2], 0);
    assert_int_equal(c->trigger_fade_ticks[1], 8);
    assert_int_equal(c->trigger_carry[0] + 2 * c->trigger_inertialize[0], 0);
    assert_int_equal(c->trigger_carry[1] + 2 * c->trigger_inertialize[1], 2);
    assert_int_equal(c->trigger_carry[2] + 2 * c->trigger_inertialize[2], 1);
    assert_int_equal(bsync_match_hash(dp), reference_hash(dp));
    assert_int_equal(bsync_match_hash(d), reference_hash(d));

    /* The block only when an option is set: clearing b's and c's options gives the plain formula,
     * which differs from the one with options. */
    bsync_match_desc d2 = *d;
    bsync_match_character_desc ch = d->characters[0];
    d2.characters = &ch;
    ch.trigger_inertialize[1] = 0;
    ch.trigger_carry[2] = 0;
    uint64_t h_cleared = bsync_match_hash(&d2);
    assert_int_equal(h_cleared, reference_hash(&d2));
    assert_true(h_cleared != bsync_match_hash(d));
    ch.trigger_carry[2] = 1; /* carry alone enters the hash too */
    assert_true(bsync_match_hash(&d2) != h_cleared);
    assert_int_equal(bsync_match_hash(&d2), reference_hash(&d2));
    bsync_match_config_destroy(plain);
    bsync_match_config_destroy(opts);
}

static void test_config_errors(void** state) {
    (void)state;
    expect_error(CONFIG("hum.json", "{\"name\": \"a\", \"switch\": \"upper\", \"inertialize\": true}"),
                 "/input/triggers/0/inertialize", "needs \"fade_ticks\" of 1 or more");
    expect_error(CONFIG("hum.json", "{\"name\": \"a\", \"switch\": \"upper\", \"fade_ticks\": 2, \"carry\": 1}"),
                 "/input/triggers/0/carry", "expected true or false");
    expect_error(CONFIG("bare.json", "{\"name\": \"a\", \"switch\": \"upper\", \"fade_ticks\": 2, \"inertialize\": true}"),
                 "/characters/0/graph", "input trigger a inertializes switch \"upper\", but \"bare.json\" has no skeleton");
    expect_error(CONFIG("hum.json", "{\"name\": \"a\", \"switch\": \"upper\", \"inertialise\": true}"),
                 "/input/triggers/0/inertialise", "unknown field");
    /* carry on a graph without a skeleton is fine (it is phase only) */
    bsync_match_config* ok = parse_ok(CONFIG("bare.json", "{\"name\": \"a\", \"switch\": \"upper\", \"carry\": true}"));
    bsync_match_config_destroy(ok);
}

/* Frames: trigger 0 = v at the listed ticks. The match vs one instance with the same triggers. */
static void run_pair(const bsync_match_desc* d, const bsync_switch_trigger* direct_kind, uint64_t* final_out) {
    static const uint32_t at[] = {3, 9, 11, 30};
    static const uint8_t val[] = {2, 1, 2, 1};
    const bsync_graph* g = d->characters[0].graph;
    size_t msize = bsync_match_memory_size(d);
    assert_true(msize > 0);
    void* mm = aligned_alloc(16, (msize + 15u) & ~(size_t)15u);
    bsync_match* m = NULL;
    assert_int_equal(bsync_match_init(mm, msize, d, &m), BSYNC_OK);
    size_t isize = bsync_instance_memory_size(g);
    void* im = malloc(isize);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(im, isize, g, &inst), BSYNC_OK);
    fix16_t targets[1] = {0};
    bsync_instance_input input = {targets, 1};
    static bsync_match_frame f;
    memset(&f, 0, sizeof f);
    f.player_count = 1;
    for (uint32_t t = 0; t < 45; t++) {
        uint8_t v = 0;
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
            if (at[k] == t) v = val[k];
        f.players[0].triggers[0] = v;
        assert_int_equal(bsync_match_tick(m, &f), BSYNC_OK);
        bsync_switch_trigger tr = *direct_kind;
        tr.switch_index = 0;
        tr.child = v ? v - 1u : 0u;
        assert_int_equal(bsync_instance_tick_ex(inst, &input, &tr, v ? 1u : 0u), BSYNC_OK);
        uint64_t want = bsync_instance_state_checksum(inst), got = 0, wp = 0, gp = 0;
        bsync_match_checksums cs;
        assert_int_equal(bsync_match_get_checksums(m, 1, &cs), BSYNC_OK);
        got = cs.character_blend[0];
        assert_int_equal(bsync_instance_pose_checksum(inst, &wp, NULL), BSYNC_OK);
        gp = cs.character_pose[0];
        assert_int_equal(got, want);
        assert_int_equal(gp, wp);
    }
    *final_out = bsync_instance_state_checksum(inst);
    free(im);
    free(mm);
}

static void test_match_plays_the_options(void** state) {
    (void)state;
    bsync_match_config* cfg = parse_ok(CONFIG("hum.json", "{\"name\": \"a\", \"switch\": \"upper\", \"fade_ticks\": 6}"));
    const bsync_match_desc* d0 = bsync_match_config_desc(cfg);
    bsync_match_desc d = *d0;
    bsync_match_character_desc ch = d0->characters[0];
    d.characters = &ch;
    uint64_t fin[3];
    bsync_switch_trigger k = {0, 0, 6, 0, 0};
    run_pair(&d, &k, &fin[0]); /* plain cross-fade */
    ch.trigger_inertialize[0] = 1;
    k.inertialize = 1;
    run_pair(&d, &k, &fin[1]);
    ch.trigger_inertialize[0] = 0;
    ch.trigger_carry[0] = 1;
    k.inertialize = 0;
    k.carry_time = 1;
    run_pair(&d, &k, &fin[2]);
    assert_true(fin[0] != fin[1]);
    assert_true(fin[0] != fin[2]);
    assert_true(fin[1] != fin[2]);
    bsync_match_config_destroy(cfg);
}

static void test_validate(void** state) {
    (void)state;
    bsync_match_config* cfg = parse_ok(CONFIG("hum.json", "{\"name\": \"a\", \"switch\": \"upper\", \"fade_ticks\": 6}"));
    bsync_match_config* bare = parse_ok(CONFIG("bare.json", "{\"name\": \"a\", \"switch\": \"upper\", \"fade_ticks\": 6}"));
    bsync_match_desc d = *bsync_match_config_desc(cfg);
    bsync_match_character_desc ch = d.characters[0];
    d.characters = &ch;
    assert_int_equal(bsync_match_desc_validate(&d), BSYNC_OK);
    ch.trigger_carry[0] = 2;
    assert_int_equal(bsync_match_desc_validate(&d), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_hash(&d), 0);
    ch.trigger_carry[0] = 0;
    ch.trigger_inertialize[0] = 2;
    assert_int_equal(bsync_match_desc_validate(&d), BSYNC_INVALID_ARGUMENT);
    ch.trigger_inertialize[0] = 1;
    assert_int_equal(bsync_match_desc_validate(&d), BSYNC_OK);
    ch.trigger_fade_ticks[0] = 0; /* inertialize needs a decay length */
    assert_int_equal(bsync_match_desc_validate(&d), BSYNC_INVALID_ARGUMENT);
    ch.trigger_map[0] = BSYNC_MATCH_UNMAPPED; /* ...unless the trigger drives nothing */
    assert_int_equal(bsync_match_desc_validate(&d), BSYNC_OK);
    /* a graph without a skeleton cannot inertialize */
    bsync_match_desc db = *bsync_match_config_desc(bare);
    bsync_match_character_desc cb = db.characters[0];
    db.characters = &cb;
    cb.trigger_inertialize[0] = 1;
    assert_int_equal(bsync_match_desc_validate(&db), BSYNC_INVALID_ARGUMENT);
    cb.trigger_inertialize[0] = 0;
    cb.trigger_carry[0] = 1;
    assert_int_equal(bsync_match_desc_validate(&db), BSYNC_OK);
    bsync_match_config_destroy(cfg);
    bsync_match_config_destroy(bare);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_config_fields_and_hash),
        cmocka_unit_test(test_config_errors),
        cmocka_unit_test(test_match_plays_the_options),
        cmocka_unit_test(test_validate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
