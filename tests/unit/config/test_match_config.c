/* test_match_config.c — match configs (io/match_config.h): a full config with two players, two player
 * characters and an NPC over graph configs this test writes into a temp dir, every default, every
 * error with its JSON path, input maps by NAME (not index), graph sharing, trigger maps onto Switch
 * nodes, asset hashes against the procedural humanoid built independently, and the match hash
 * (changes with an NPC seed, equal across two loads). Expected numbers are worked by hand:
 * fix16 raw = round(value * 65536). */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/match_config.h"
#include "blendsync/match.h"
#include "blendsync/procedural.h"

static char g_dir[64];

static const char* const k_files[] = {"loco.json", "speedonly.json", "fast.json", "sw.json", "hum.json", "m.json"};

static void write_file(const char* name, const char* text) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    FILE* f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
}

/* loco.json declares "x" BEFORE "speed", so a by-name map differs from the input order. */
#define LOCO                                                                                                  \
    "{\"parameters\": {\"x\": {}, \"speed\": {\"default\": 0}}, \"root\": \"move\", \"nodes\": {\"move\": "   \
    "{\"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0}, " \
    "{\"motion\": \"walk\", \"threshold\": 1.5}]}}}"
#define SPEEDONLY                                                                                              \
    "{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", "     \
    "\"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0}, {\"motion\": \"walk\", " \
    "\"threshold\": 1.5}]}}}"
#define FAST                                                                                                  \
    "{\"tick_rate\": 60, \"parameters\": {\"speed\": {}, \"x\": {}}, \"root\": \"move\", \"nodes\": {\"move\": " \
    "{\"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0}, " \
    "{\"motion\": \"walk\", \"threshold\": 1.5}]}}}"
/* Two Switch nodes: "lower" (switch 0) and "upper" (switch 1), under a Direct root. */
#define SW                                                                                                    \
    "{\"parameters\": {\"speed\": {}, \"a\": {}, \"b\": {}}, \"root\": \"top\", \"nodes\": {"                   \
    "\"top\": {\"type\": \"Direct\", \"children\": [{\"motion\": \"lower\", \"parameter\": \"a\"}, "             \
    "{\"motion\": \"upper\", \"parameter\": \"b\"}]},"                                                         \
    "\"lower\": {\"type\": \"Switch\", \"children\": [{\"motion\": \"idle\"}, {\"motion\": \"walk\"}]},"        \
    "\"upper\": {\"type\": \"Switch\", \"children\": [{\"motion\": \"wave\"}, {\"motion\": \"point\"}]}}}"
#define HUM                                                                                                   \
    "{\"parameters\": {\"speed\": {}}, \"root\": \"move\", \"nodes\": {\"move\": {\"type\": \"Simple1D\", "     \
    "\"parameter\": \"speed\", \"children\": [{\"motion\": \"idle\", \"threshold\": 0}, {\"motion\": \"run\", "  \
    "\"threshold\": 3.5}, {\"motion\": \"walk\", \"threshold\": 5}]}}, "                                         \
    "\"clips\": {\"walk\": {\"source\": \"builtin:humanoid\"}, \"run\": {\"source\": \"builtin:humanoid\"}}}"

static int setup(void** state) {
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/bsync_mcfg_XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    write_file("loco.json", LOCO);
    write_file("speedonly.json", SPEEDONLY);
    write_file("fast.json", FAST);
    write_file("sw.json", SW);
    write_file("hum.json", HUM);
    return 0;
}

static int teardown(void** state) {
    (void)state;
    char p[256];
    for (size_t i = 0; i < sizeof k_files / sizeof k_files[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_dir, k_files[i]);
        remove(p);
    }
    rmdir(g_dir);
    return 0;
}

static bsync_match_config* parse_ok(const char* json) {
    bsync_match_config* cfg = NULL;
    bsync_error err;
    bsync_result r = bsync_match_config_parse(json, strlen(json), "m.json", g_dir, NULL, &cfg, &err);
    if (r != BSYNC_OK) fprintf(stderr, "unexpected error: %s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    assert_non_null(cfg);
    return cfg;
}

/* The error must be BSYNC_CONFIG_ERROR, start with "m.json: PATH: " and contain `what`. */
static void expect_error(const char* json, const char* path, const char* what) {
    bsync_match_config* cfg = (bsync_match_config*)(uintptr_t)1;
    bsync_error err;
    bsync_result r = bsync_match_config_parse(json, strlen(json), "m.json", g_dir, NULL, &cfg, &err);
    char prefix[200];
    snprintf(prefix, sizeof prefix, "m.json: %s: ", path);
    if (r != BSYNC_CONFIG_ERROR || strncmp(err.message, prefix, strlen(prefix)) != 0 || !strstr(err.message, what))
        fprintf(stderr, "got:  %s\nwant: %s...%s\n", err.message, prefix, what);
    assert_int_equal(r, BSYNC_CONFIG_ERROR);
    assert_int_equal(err.code, BSYNC_CONFIG_ERROR);
    assert_null(cfg);
    assert_memory_equal(err.message, prefix, strlen(prefix));
    assert_non_null(strstr(err.message, what));
}

/* A minimal valid config around a body of extra top-level fields (leading comma). */
#define MINIMAL(extra)                                                                                     \
    "{\"match_id\": 5, \"players\": [{\"token\": \"t\"}], \"characters\": [{\"name\": \"p0\", \"graph\": " \
    "\"loco.json\", \"slot\": 0}]" extra "}"

/* Two players, two player characters on loco.json, one NPC on speedonly.json. */
#define FULL(seed)                                                                                            \
    "{\n"                                                                                                     \
    "  \"match_id\": 9007199254740992,\n"                                                                     \
    "  \"players\": [ {\"token\": \"alpha-7f3k\"}, {\"token\": \"bravo-2q9z\"} ],\n"                         \
    "  \"input\": {\n"                                                                                        \
    "    \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5}, {\"name\": \"x\", \"min\": -1, \"max\": 1} ],\n" \
    "    \"hold_ticks\": [10, 20]\n"                                                                          \
    "  },\n"                                                                                                  \
    "  \"characters\": [\n"                                                                                   \
    "    {\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0},\n"                                        \
    "    {\"name\": \"p1\", \"graph\": \"loco.json\", \"slot\": 1},\n"                                        \
    "    {\"name\": \"npc1\", \"graph\": \"speedonly.json\", \"npc_seed\": " seed "}\n"                       \
    "  ],\n"                                                                                                  \
    "  \"input_delay\": 4,\n"                                                                                 \
    "  \"checksum_interval\": 45,\n"                                                                          \
    "  \"desync_policy\": \"resync\",\n"                                                                      \
    "  \"replay\": \"replays/match-1.bsreplay\",\n"                                                           \
    "  \"duration_ticks\": 600,\n"                                                                            \
    "  \"timeouts\": {\"start_ms\": 20000, \"peer_ms\": 100, \"idle_ms\": 600000},\n"                         \
    "  \"payload_max\": 256\n"                                                                                \
    "}\n"

/* ------------------------------------------------------------------ tests */

static void test_full(void** state) {
    (void)state;
    bsync_match_config* cfg = parse_ok(FULL("7"));
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    assert_non_null(d);
    assert_true(bsync_match_config_match_id(cfg) == ((uint64_t)1 << 53)); /* 9007199254740992 */
    assert_int_equal(bsync_match_config_player_count(cfg), 2);
    assert_int_equal(d->player_count, 2);
    size_t len = 0;
    assert_string_equal(bsync_match_config_token(cfg, 0, &len), "alpha-7f3k");
    assert_int_equal(len, 10);
    assert_string_equal(bsync_match_config_token(cfg, 1, &len), "bravo-2q9z");
    assert_int_equal(len, 10);
    assert_null(bsync_match_config_token(cfg, 2, &len));
    /* input layout: 0 -> 0, 3.5 -> 229376, -1 -> -65536, 1 -> 65536 */
    assert_int_equal(d->param_count, 2);
    assert_int_equal(d->trigger_count, 0);
    assert_int_equal(d->param_min[0], 0);
    assert_int_equal(d->param_max[0], 229376);
    assert_int_equal(d->param_min[1], -65536);
    assert_int_equal(d->param_max[1], 65536);
    assert_string_equal(bsync_match_config_param_name(cfg, 0), "speed");
    assert_string_equal(bsync_match_config_param_name(cfg, 1), "x");
    assert_null(bsync_match_config_param_name(cfg, 2));
    assert_int_equal(d->hold_min, 10);
    assert_int_equal(d->hold_max, 20);
    /* characters */
    assert_int_equal(d->character_count, 3);
    assert_string_equal(bsync_match_config_character_name(cfg, 0), "p0");
    assert_string_equal(bsync_match_config_character_name(cfg, 2), "npc1");
    assert_int_equal(d->characters[0].slot, 0);
    assert_int_equal(d->characters[1].slot, 1);
    assert_int_equal(d->characters[2].slot, BSYNC_MATCH_NPC);
    assert_true(d->characters[2].npc_seed == 7);
    assert_true(d->characters[0].npc_seed == 0);
    /* loco.json declares x (index 0) then speed (index 1): input speed -> 1, input x -> 0 */
    assert_int_equal(d->characters[0].param_map[0], 1);
    assert_int_equal(d->characters[0].param_map[1], 0);
    assert_int_equal(d->characters[1].param_map[0], 1);
    /* speedonly.json has speed only (index 0) and no x */
    assert_int_equal(d->characters[2].param_map[0], 0);
    assert_int_equal(d->characters[2].param_map[1], BSYNC_MATCH_UNMAPPED);
    assert_non_null(strstr(bsync_match_config_notes(cfg), "character npc1: input parameter x drives nothing\n"));
    assert_null(strstr(bsync_match_config_notes(cfg), "character p0"));
    /* the graphs */
    for (uint32_t c = 0; c < 3; c++)
        assert_ptr_equal(d->characters[c].graph, bsync_graph_config_graph(bsync_match_config_character_graph(cfg, c)));
    assert_int_equal(bsync_graph_parameter_count(d->characters[2].graph), 1);
    assert_int_equal(bsync_match_config_tick_rate(cfg), 30);
    assert_int_equal(bsync_match_config_graph_file_count(cfg), 2);
    char want[256];
    snprintf(want, sizeof want, "%s/loco.json", g_dir);
    assert_string_equal(bsync_match_config_graph_file_path(cfg, 0), want);
    assert_string_equal(bsync_match_config_graph_file_written(cfg, 0), "loco.json");
    snprintf(want, sizeof want, "%s/speedonly.json", g_dir);
    assert_string_equal(bsync_match_config_graph_file_path(cfg, 1), want);
    assert_int_equal(bsync_match_config_character_graph_file(cfg, 2), 1);
    assert_true(bsync_match_config_graph_file_hash(cfg, 0) == bsync_graph_hash(d->characters[0].graph));
    assert_true(bsync_match_config_graph_file_hash(cfg, 1) == bsync_graph_hash(d->characters[2].graph));
    assert_true(bsync_match_config_graph_file_hash(cfg, 0) != bsync_match_config_graph_file_hash(cfg, 1));
    /* settings */
    assert_int_equal(bsync_match_config_input_delay(cfg), 4);
    assert_int_equal(bsync_match_config_checksum_interval(cfg), 45);
    assert_int_equal(bsync_match_config_desync_policy(cfg), BSYNC_MATCH_POLICY_RESYNC);
    snprintf(want, sizeof want, "%s/replays/match-1.bsreplay", g_dir);
    assert_string_equal(bsync_match_config_replay_path(cfg), want);
    assert_int_equal(bsync_match_config_duration_ticks(cfg), 600);
    bsync_match_timeouts t = bsync_match_config_timeouts(cfg);
    assert_int_equal(t.start_ms, 20000);
    assert_int_equal(t.peer_ms, 100);
    assert_int_equal(t.idle_ms, 600000);
    assert_int_equal(bsync_match_config_payload_max(cfg), 256);
    /* the text as given, and the names */
    size_t tl = 0;
    assert_string_equal(bsync_match_config_text(cfg, &tl), FULL("7"));
    assert_int_equal(tl, strlen(FULL("7")));
    assert_string_equal(bsync_match_config_path(cfg), "m.json");
    snprintf(want, sizeof want, "%s/", g_dir);
    assert_string_equal(bsync_match_config_base_dir(cfg), want);
    /* no clips bound anywhere */
    assert_int_equal(bsync_match_config_asset_hashes(cfg, NULL, NULL, 0), 0);
    assert_int_equal(bsync_match_desc_validate(d), BSYNC_OK);
    bsync_match_config_destroy(cfg);
}

#define SECRET_A "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF"
#define SECRET_B "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
#define TWO_SECURE(session)                                                                              \
    "{\"match_id\": 6, \"players\": [{\"token\": \"a\", \"secret\": \"" SECRET_A "\"}, {\"token\": \"b\", " \
    "\"secret\": \"" SECRET_B "\"}], \"characters\": [{\"name\": \"p0\", \"graph\": \"loco.json\", "          \
    "\"slot\": 0}]" session "}"

/* Session secrets (issue 18): every player or none, 64 hex digits, zeroed in what replays record. */
static void test_secrets(void** state) {
    (void)state;
    bsync_match_config* plain = parse_ok(MINIMAL(""));
    assert_int_equal(bsync_match_config_session(plain), BSYNC_MATCH_SESSION_PLAIN);
    assert_int_equal(bsync_match_config_secret(plain, 0, NULL), 0);
    size_t a = 0, b = 0;
    assert_ptr_equal(bsync_match_config_replay_text(plain, &a), bsync_match_config_text(plain, &b));
    bsync_match_config_destroy(plain);

    bsync_match_config* cfg = parse_ok(TWO_SECURE(""));
    assert_int_equal(bsync_match_config_session(cfg), BSYNC_MATCH_SESSION_ENCRYPT);
    uint8_t sec[32];
    assert_int_equal(bsync_match_config_secret(cfg, 0, sec), 1);
    assert_int_equal(sec[0], 0x00);
    assert_int_equal(sec[1], 0x11);
    assert_int_equal(sec[31], 0xFF); /* upper-case digits too */
    assert_int_equal(bsync_match_config_secret(cfg, 1, sec), 1);
    assert_int_equal(sec[0], 0xFF);
    assert_int_equal(bsync_match_config_secret(cfg, 2, sec), 0);
    const char* text = bsync_match_config_text(cfg, &a);
    const char* rec = bsync_match_config_replay_text(cfg, &b);
    assert_int_equal(a, b);
    assert_non_null(strstr(text, SECRET_A));
    assert_null(strstr(rec, SECRET_A));
    assert_null(strstr(rec, SECRET_B));
    assert_non_null(strstr(rec, "\"secret\": \"0000000000000000000000000000000000000000000000000000000000000000\""));
    /* the replay header carries the zeroed text, and it is itself a valid config */
    static bsync_replay_header h;
    bsync_match_config_replay_header(cfg, "test", 0, &h);
    assert_int_equal(h.config_len, a);
    assert_memory_equal(h.config_text, rec, b);
    bsync_match_config* again = parse_ok(rec);
    assert_int_equal(bsync_match_config_secret(again, 0, sec), 1);
    for (int i = 0; i < 32; i++) assert_int_equal(sec[i], 0);
    bsync_match_config_destroy(again);
    bsync_match_config_destroy(cfg);

    cfg = parse_ok(TWO_SECURE(", \"session\": \"authenticate\""));
    assert_int_equal(bsync_match_config_session(cfg), BSYNC_MATCH_SESSION_AUTHENTICATE);
    bsync_match_config_destroy(cfg);

    expect_error("{\"match_id\": 6, \"players\": [{\"token\": \"a\", \"secret\": \"" SECRET_A "\"}, {\"token\": \"b\"}], "
                 "\"characters\": [{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0}]}",
                 "/players", "1 of 2 players have a \"secret\"");
    expect_error("{\"match_id\": 6, \"players\": [{\"token\": \"a\", \"secret\": \"00ff\"}], "
                 "\"characters\": [{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0}]}",
                 "/players/0/secret", "expected 64 hex digits");
    expect_error("{\"match_id\": 6, \"players\": [{\"token\": \"a\", \"secret\": \"\\u0030"
                 "0112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF\"}], "
                 "\"characters\": [{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0}]}",
                 "/players/0/secret", "no escapes");
    expect_error(MINIMAL(", \"session\": \"encrypt\""), "/session", "needs a \"secret\" for every player");
    expect_error(TWO_SECURE(", \"session\": \"tls\""), "/session", "expected \"encrypt\" or \"authenticate\"");
}

static void test_defaults(void** state) {
    (void)state;
    bsync_match_config* cfg = parse_ok(MINIMAL(""));
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    assert_true(bsync_match_config_match_id(cfg) == 5);
    assert_int_equal(d->player_count, 1);
    assert_int_equal(d->param_count, 0);
    assert_int_equal(d->trigger_count, 0);
    assert_int_equal(d->hold_min, 15);
    assert_int_equal(d->hold_max, 60);
    assert_int_equal(d->character_count, 1);
    assert_int_equal(bsync_match_config_input_delay(cfg), 3);
    assert_int_equal(bsync_match_config_checksum_interval(cfg), 30);
    assert_int_equal(bsync_match_config_desync_policy(cfg), BSYNC_MATCH_POLICY_REPORT);
    assert_string_equal(bsync_match_config_replay_path(cfg), "");
    assert_int_equal(bsync_match_config_duration_ticks(cfg), 0);
    bsync_match_timeouts t = bsync_match_config_timeouts(cfg);
    assert_int_equal(t.start_ms, 10000);
    assert_int_equal(t.peer_ms, 5000);
    assert_int_equal(t.idle_ms, 30000);
    assert_int_equal(bsync_match_config_payload_max(cfg), 0);
    assert_string_equal(bsync_match_config_notes(cfg), "");
    bsync_match_config_destroy(cfg);

    /* an empty "input", empty "timeouts", "replay": "" and fade_ticks default */
    cfg = parse_ok(MINIMAL(", \"input\": {}, \"timeouts\": {\"peer_ms\": 700}, \"replay\": \"\""));
    t = bsync_match_config_timeouts(cfg);
    assert_int_equal(t.start_ms, 10000);
    assert_int_equal(t.peer_ms, 700);
    assert_int_equal(t.idle_ms, 30000);
    assert_string_equal(bsync_match_config_replay_path(cfg), "");
    assert_int_equal(bsync_match_config_desc(cfg)->hold_min, 15);
    bsync_match_config_destroy(cfg);

    cfg = parse_ok("{\"match_id\": 1, \"players\": [{\"token\": \"t\"}], \"input\": {\"triggers\": "
                   "[{\"name\": \"act\", \"switch\": \"upper\"}]}, \"characters\": [{\"name\": \"c\", \"graph\": "
                   "\"sw.json\", \"slot\": 0}]}");
    assert_int_equal(bsync_match_config_desc(cfg)->characters[0].trigger_fade_ticks[0], 0);
    bsync_match_config_destroy(cfg);

    /* policies by name, and the bounds of each integer field accepted */
    static const char* const pol[] = {"report", "resync", "kick"};
    for (int i = 0; i < 3; i++) {
        char json[400];
        snprintf(json, sizeof json,
                 MINIMAL(", \"desync_policy\": \"%s\", \"input_delay\": %d, \"checksum_interval\": %d, \"payload_max\": %d, "
                         "\"duration_ticks\": %s"),
                 pol[i], i == 0 ? 0 : 30, i == 0 ? 1 : 3600, i == 0 ? 0 : 256, i == 0 ? "0" : "4294967295");
        cfg = parse_ok(json);
        assert_int_equal(bsync_match_config_desync_policy(cfg), i);
        assert_string_equal(bsync_match_policy_name(bsync_match_config_desync_policy(cfg)), pol[i]);
        assert_int_equal(bsync_match_config_input_delay(cfg), i == 0 ? 0 : 30);
        assert_int_equal(bsync_match_config_checksum_interval(cfg), i == 0 ? 1 : 3600);
        assert_int_equal(bsync_match_config_payload_max(cfg), i == 0 ? 0 : 256);
        assert_true(bsync_match_config_duration_ticks(cfg) == (i == 0 ? 0u : 4294967295u));
        bsync_match_config_destroy(cfg);
    }
}

static void test_exact_numbers(void** state) {
    (void)state;
    /* 0.1 * 65536 = 6553.6 -> 6554; 0.00001 * 65536 = 0.655 -> 1; -2.25 -> -147456; 32767.99998 * 65536
     * = 2147483646.69 -> 2147483647; a 30-digit decimal that a double would round: 0.100000000000000000000000000001
     * -> 6554 */
    bsync_match_config* cfg = parse_ok(
        "{\"match_id\": 123456789012345, \"players\": [{\"token\": \"t\"}], \"input\": {\"parameters\": ["
        "{\"name\": \"a\", \"min\": 0.1, \"max\": 0.100000000000000000000000000001},"
        "{\"name\": \"b\", \"min\": 0.00001, \"max\": 32767.99998},"
        "{\"name\": \"c\", \"min\": -2.25, \"max\": -2.25}], \"hold_ticks\": [1, 1000000]},"
        "\"characters\": [{\"name\": \"n\", \"graph\": \"loco.json\", \"npc_seed\": 9007199254740992}]}");
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    assert_true(bsync_match_config_match_id(cfg) == 123456789012345ull);
    assert_int_equal(d->param_min[0], 6554);
    assert_int_equal(d->param_max[0], 6554);
    assert_int_equal(d->param_min[1], 1);
    assert_int_equal(d->param_max[1], 2147483647);
    assert_int_equal(d->param_min[2], -147456);
    assert_int_equal(d->param_max[2], -147456);
    assert_int_equal(d->hold_min, 1);
    assert_int_equal(d->hold_max, 1000000);
    assert_true(d->characters[0].npc_seed == 9007199254740992ull);
    assert_int_equal(d->characters[0].slot, BSYNC_MATCH_NPC);
    /* a character none of whose graph parameters is driven (no input parameters at all here: a..c
     * are not in loco.json) is fine */
    assert_int_equal(d->characters[0].param_map[0], BSYNC_MATCH_UNMAPPED);
    assert_int_equal(d->characters[0].param_map[2], BSYNC_MATCH_UNMAPPED);
    bsync_match_config_destroy(cfg);
}

static void test_shared_graph(void** state) {
    (void)state;
    bsync_match_config* cfg = parse_ok(
        "{\"match_id\": 1, \"players\": [{\"token\": \"a\"}, {\"token\": \"b\"}], \"characters\": ["
        "{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 1},"
        "{\"name\": \"n\", \"graph\": \"speedonly.json\", \"npc_seed\": 0},"
        "{\"name\": \"p1\", \"graph\": \"loco.json\", \"slot\": 0}]}");
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    assert_ptr_equal(bsync_match_config_character_graph(cfg, 0), bsync_match_config_character_graph(cfg, 2));
    assert_ptr_not_equal(bsync_match_config_character_graph(cfg, 0), bsync_match_config_character_graph(cfg, 1));
    assert_ptr_equal(d->characters[0].graph, d->characters[2].graph);
    assert_ptr_not_equal(d->characters[0].graph, d->characters[1].graph);
    assert_int_equal(bsync_match_config_graph_file_count(cfg), 2);
    assert_int_equal(bsync_match_config_character_graph_file(cfg, 0), 0);
    assert_int_equal(bsync_match_config_character_graph_file(cfg, 1), 1);
    assert_int_equal(bsync_match_config_character_graph_file(cfg, 2), 0);
    assert_int_equal(bsync_match_config_character_graph_file(cfg, 3), UINT32_MAX);
    assert_ptr_equal(bsync_match_config_graph_file_config(cfg, 0), bsync_match_config_character_graph(cfg, 0));
    assert_int_equal(d->characters[0].slot, 1);
    assert_int_equal(d->characters[2].slot, 0);
    bsync_match_config_destroy(cfg);
}

static void test_triggers(void** state) {
    (void)state;
    bsync_match_config* cfg = parse_ok(
        "{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"input\": {\"triggers\": ["
        "{\"name\": \"action\", \"switch\": \"upper\", \"fade_ticks\": 6},"
        "{\"name\": \"legs\", \"switch\": \"lower\", \"fade_ticks\": 1048576},"
        "{\"name\": \"ghost\", \"switch\": \"top\"}]}, \"characters\": ["
        "{\"name\": \"p0\", \"graph\": \"sw.json\", \"slot\": 0},"
        "{\"name\": \"n\", \"graph\": \"loco.json\", \"npc_seed\": 3}]}");
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    assert_int_equal(d->trigger_count, 3);
    assert_string_equal(bsync_match_config_trigger_name(cfg, 0), "action");
    assert_string_equal(bsync_match_config_trigger_switch(cfg, 1), "lower");
    /* switches are numbered in node (file) order: lower = 0, upper = 1; "top" is a node, not a switch */
    assert_int_equal(bsync_graph_switch_count(d->characters[0].graph), 2);
    assert_int_equal(d->characters[0].trigger_map[0], 1);
    assert_int_equal(d->characters[0].trigger_map[1], 0);
    assert_int_equal(d->characters[0].trigger_map[2], BSYNC_MATCH_UNMAPPED);
    assert_int_equal(d->characters[0].trigger_fade_ticks[0], 6);
    assert_int_equal(d->characters[0].trigger_fade_ticks[1], 1048576);
    for (int j = 0; j < 3; j++) assert_int_equal(d->characters[1].trigger_map[j], BSYNC_MATCH_UNMAPPED);
    const char* notes = bsync_match_config_notes(cfg);
    assert_non_null(strstr(notes, "character p0: input trigger ghost drives nothing (no switch node \"top\")\n"));
    assert_non_null(strstr(notes, "character n: input trigger action drives nothing (no switch node \"upper\")\n"));
    assert_null(strstr(notes, "character p0: input trigger action"));
    bsync_match_config_destroy(cfg);
}

static void test_asset_hashes(void** state) {
    (void)state;
    bsync_procedural_humanoid h;
    assert_int_equal(bsync_procedural_humanoid_create(NULL, &h), BSYNC_OK);
    const uint64_t walk = bsync_checksum_clip(h.clips[BSYNC_PROCEDURAL_WALK]);
    const uint64_t run = bsync_checksum_clip(h.clips[BSYNC_PROCEDURAL_RUN]);
    bsync_procedural_humanoid_destroy(&h);
    assert_true(walk != run);

    bsync_match_config* cfg = parse_ok(
        "{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
        "{\"name\": \"p0\", \"graph\": \"hum.json\", \"slot\": 0}, {\"name\": \"n\", \"graph\": \"hum.json\", \"npc_seed\": 1},"
        "{\"name\": \"q\", \"graph\": \"speedonly.json\", \"npc_seed\": 2}]}");
    /* hum.json's motions in first-use order: idle (no clip), run, walk */
    assert_int_equal(bsync_match_config_asset_hashes(cfg, NULL, NULL, 0), 2);
    const char* names[3] = {NULL, NULL, NULL};
    uint64_t hashes[3] = {0, 0, 0};
    assert_int_equal(bsync_match_config_asset_hashes(cfg, names, hashes, 1), 2);
    assert_string_equal(names[0], "hum.json:run");
    assert_true(hashes[0] == run);
    assert_null(names[1]);
    assert_int_equal(bsync_match_config_asset_hashes(cfg, names, hashes, 3), 2);
    assert_string_equal(names[1], "hum.json:walk");
    assert_true(hashes[1] == walk);
    assert_null(names[2]);
    assert_true(hashes[2] == 0);
    bsync_match_config_destroy(cfg);
}

static void test_load_file_and_hash(void** state) {
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "%s/m.json", g_dir);
    write_file("m.json", FULL("7"));
    bsync_match_config *a = NULL, *b = NULL, *c = NULL;
    bsync_error err;
    assert_int_equal(bsync_match_config_load(path, NULL, &a, &err), BSYNC_OK);
    assert_int_equal(bsync_match_config_load(path, NULL, &b, &err), BSYNC_OK);
    write_file("m.json", FULL("8"));
    assert_int_equal(bsync_match_config_load(path, NULL, &c, &err), BSYNC_OK);
    assert_string_equal(bsync_match_config_path(a), path);
    assert_string_equal(bsync_match_config_text(a, NULL), FULL("7"));
    char want[256];
    snprintf(want, sizeof want, "%s/loco.json", g_dir);
    assert_string_equal(bsync_match_config_graph_file_path(a, 0), want);

    const uint64_t ha = bsync_match_hash(bsync_match_config_desc(a));
    const uint64_t hb = bsync_match_hash(bsync_match_config_desc(b));
    const uint64_t hc = bsync_match_hash(bsync_match_config_desc(c));
    assert_true(ha != 0);
    assert_true(ha == hb);
    assert_true(ha != hc);
    /* two loads build two graphs (different pointers) with the same identity */
    assert_ptr_not_equal(bsync_match_config_desc(a)->characters[0].graph, bsync_match_config_desc(b)->characters[0].graph);
    assert_true(bsync_match_config_graph_file_hash(a, 0) == bsync_match_config_graph_file_hash(b, 0));
    bsync_match_config_destroy(a);
    bsync_match_config_destroy(b);
    bsync_match_config_destroy(c);

    /* a file that does not exist: IO error naming it */
    snprintf(path, sizeof path, "%s/nope.json", g_dir);
    a = (bsync_match_config*)(uintptr_t)1;
    assert_int_equal(bsync_match_config_load(path, NULL, &a, &err), BSYNC_IO_ERROR);
    assert_null(a);
    assert_memory_equal(err.message, path, strlen(path));
}

static void test_base_dir(void** state) {
    (void)state;
    /* base_dir without a trailing slash gets one; an absolute graph path is kept */
    char json[600], abs_loco[256];
    snprintf(abs_loco, sizeof abs_loco, "%s/loco.json", g_dir);
    snprintf(json, sizeof json,
             "{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"replay\": \"/var/r.bsreplay\", \"characters\": "
             "[{\"name\": \"p0\", \"graph\": \"%s\", \"slot\": 0}]}",
             abs_loco);
    bsync_match_config* cfg = NULL;
    bsync_error err;
    assert_int_equal(bsync_match_config_parse(json, strlen(json), NULL, "/nonexistent/dir", NULL, &cfg, &err), BSYNC_OK);
    assert_string_equal(bsync_match_config_graph_file_path(cfg, 0), abs_loco);
    assert_string_equal(bsync_match_config_replay_path(cfg), "/var/r.bsreplay");
    assert_string_equal(bsync_match_config_base_dir(cfg), "/nonexistent/dir/");
    assert_string_equal(bsync_match_config_path(cfg), "match");
    bsync_match_config_destroy(cfg);
}

/* The allocator goes to the graphs: one that always fails makes the load fail with OUT_OF_MEMORY and
 * leak nothing (ASan checks that). */
static void test_failing_allocator(void** state) {
    (void)state;
    int calls = 0;
    bsync_allocator fa = bsync_test_failing_allocator(&calls);
    const char* json = MINIMAL("");
    bsync_match_config* cfg = (bsync_match_config*)(uintptr_t)1;
    bsync_error err;
    assert_int_equal(bsync_match_config_parse(json, strlen(json), "m.json", g_dir, &fa, &cfg, &err), BSYNC_OUT_OF_MEMORY);
    assert_null(cfg);
    assert_true(calls > 0);
    assert_string_equal(err.message, "m.json: out of memory");
}

static void test_null_arguments(void** state) {
    (void)state;
    bsync_error err;
    bsync_match_config* cfg = (bsync_match_config*)(uintptr_t)1;
    assert_int_equal(bsync_match_config_load(NULL, NULL, &cfg, &err), BSYNC_INVALID_ARGUMENT);
    assert_null(cfg);
    assert_int_equal(bsync_match_config_load("x.json", NULL, NULL, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_config_parse(NULL, 3, "m", NULL, NULL, &cfg, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_config_parse("{}", 2, "m", NULL, NULL, NULL, &err), BSYNC_INVALID_ARGUMENT);
    bsync_match_config_destroy(NULL);
    assert_null(bsync_match_config_desc(NULL));
    assert_int_equal(bsync_match_config_asset_hashes(NULL, NULL, NULL, 0), 0);
    assert_string_equal(bsync_match_config_notes(NULL), "");
    assert_string_equal(bsync_match_policy_name((bsync_match_policy)7), "unknown");
}

/* ---- errors, each with its JSON path */

static void test_error_missing_fields(void** state) {
    (void)state;
    expect_error("{\"players\": [{\"token\": \"t\"}], \"characters\": []}", "/", "missing field \"match_id\"");
    expect_error("{\"match_id\": 1, \"characters\": []}", "/", "missing field \"players\"");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"t\"}]}", "/", "missing field \"characters\"");
    expect_error("{\"match_id\": 1, \"players\": [{}], \"characters\": []}", "/players/0", "missing field \"token\"");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"t\"}], \"characters\": [{\"name\": \"a\", \"slot\": 0}]}",
                 "/characters/0", "missing field \"graph\"");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"t\"}], \"characters\": [{\"name\": \"a\", \"graph\": \"loco.json\"}]}",
                 "/characters/0", "missing field \"slot\"");
    expect_error(MINIMAL(", \"input\": {\"parameters\": [{\"name\": \"a\", \"min\": 0}]}"), "/input/parameters/0",
                 "missing field \"max\"");
    expect_error(MINIMAL(", \"input\": {\"triggers\": [{\"name\": \"a\"}]}"), "/input/triggers/0",
                 "missing field \"switch\"");
}

static void test_error_unknown_fields(void** state) {
    (void)state;
    expect_error(MINIMAL(", \"inputdelay\": 3"), "/inputdelay", "unknown field");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"t\"}], \"characters\": [{\"name\": \"p0\", \"graph\": "
                 "\"loco.json\", \"slott\": 0}]}",
                 "/characters/0/slott", "unknown field (a character has: name, graph, slot, npc_seed)");
    expect_error(MINIMAL(", \"input\": {\"parameters\": [{\"name\": \"a\", \"min\": 0, \"max\": 1, \"mx\": 2}]}"),
                 "/input/parameters/0/mx", "unknown field");
    expect_error(MINIMAL(", \"timeouts\": {\"peer\": 500}"), "/timeouts/peer", "unknown field");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"t\", \"slot\": 0}], \"characters\": []}",
                 "/players/0/slot", "unknown field");
    expect_error(MINIMAL(", \"input_delay\": 3, \"input_delay\": 4"), "/input_delay", "duplicate field");
}

static void test_error_slots(void** state) {
    (void)state;
    /* 2 players: slots 0 and 1; slot 2 is out of range */
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}, {\"token\": \"b\"}], \"characters\": ["
                 "{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0},"
                 "{\"name\": \"p1\", \"graph\": \"loco.json\", \"slot\": 2}]}",
                 "/characters/1/slot", "slot 2 is out of range");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
                 "{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": -1}]}",
                 "/characters/0/slot", "expected an integer");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
                 "{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0},"
                 "{\"name\": \"p1\", \"graph\": \"loco.json\", \"slot\": 0},"
                 "{\"name\": \"n\", \"graph\": \"loco.json\", \"slot\": 0, \"npc_seed\": 4}]}",
                 "/characters/2", "both \"slot\" and \"npc_seed\"");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
                 "{\"name\": \"n\", \"graph\": \"loco.json\", \"npc_seed\": 9007199254740993}]}",
                 "/characters/0/npc_seed", "expected an integer from 0 to 9007199254740992");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
                 "{\"name\": \"n\", \"graph\": \"loco.json\", \"npc_seed\": 1.5}]}",
                 "/characters/0/npc_seed", "expected an integer");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
                 "{\"name\": \"n\", \"graph\": \"loco.json\", \"slot\": 0}, {\"name\": \"n\", \"graph\": \"loco.json\", \"npc_seed\": 1}]}",
                 "/characters/1/name", "duplicate character name \"n\"");
}

static void test_error_tokens_and_counts(void** state) {
    (void)state;
    /* 32 bytes are fine, 33 are not */
    bsync_match_config* cfg =
        parse_ok("{\"match_id\": 1, \"players\": [{\"token\": \"0123456789abcdef0123456789ABCDEF\"}], \"characters\": "
                 "[{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0}]}");
    size_t len = 0;
    assert_non_null(bsync_match_config_token(cfg, 0, &len));
    assert_int_equal(len, 32);
    bsync_match_config_destroy(cfg);
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}, {\"token\": \"0123456789abcdef0123456789ABCDEFx\"}], "
                 "\"characters\": []}",
                 "/players/1/token", "1 to 32 bytes");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"\"}], \"characters\": []}", "/players/0/token",
                 "1 to 32 bytes");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a b\"}], \"characters\": []}", "/players/0/token",
                 "byte 1 is 0x20");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\\u0001\"}], \"characters\": []}", "/players/0/token",
                 "byte 1 is 0x01");
    expect_error("{\"match_id\": 1, \"players\": [], \"characters\": []}", "/players", "expected 1 to 16 players");
    char json[1200];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"match_id\": 1, \"players\": [");
    for (int i = 0; i < 17; i++) n += (size_t)snprintf(json + n, sizeof json - n, "%s{\"token\": \"t%d\"}", i ? "," : "", i);
    snprintf(json + n, sizeof json - n, "], \"characters\": []}");
    expect_error(json, "/players", "expected 1 to 16 players (got 17)");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": []}", "/characters",
                 "expected 1 to 64 characters");
    expect_error("{\"match_id\": 0, \"players\": [{\"token\": \"a\"}], \"characters\": []}", "/match_id",
                 "expected an integer from 1 to 9007199254740992");
    expect_error("{\"match_id\": 9007199254740993, \"players\": [{\"token\": \"a\"}], \"characters\": []}", "/match_id",
                 "expected an integer from 1 to 9007199254740992");
    expect_error("{\"match_id\": 99999999999999999999999, \"players\": [{\"token\": \"a\"}], \"characters\": []}",
                 "/match_id", "expected an integer");
    expect_error("{\"match_id\": 1.0, \"players\": [{\"token\": \"a\"}], \"characters\": []}", "/match_id",
                 "expected an integer");
    expect_error("{\"match_id\": \"1\", \"players\": [{\"token\": \"a\"}], \"characters\": []}", "/match_id",
                 "expected an integer");
}

static void test_error_input(void** state) {
    (void)state;
    expect_error(MINIMAL(", \"input\": {\"parameters\": [{\"name\": \"x\", \"min\": 0, \"max\": 1}, "
                         "{\"name\": \"x\", \"min\": 0, \"max\": 1}]}"),
                 "/input/parameters/1/name", "duplicate input parameter name \"x\"");
    expect_error(MINIMAL(", \"input\": {\"parameters\": [{\"name\": \"x\", \"min\": 1.5, \"max\": 1.49999}]}"),
                 "/input/parameters/0/max", "max 1.49999 is less than min 1.5");
    expect_error(MINIMAL(", \"input\": {\"parameters\": [{\"name\": \"x\", \"min\": 0, \"max\": 40000}]}"),
                 "/input/parameters/0/max", "outside the fixed-point range");
    expect_error(MINIMAL(", \"input\": {\"parameters\": [{\"name\": \"\", \"min\": 0, \"max\": 1}]}"),
                 "/input/parameters/0/name", "1 to 63 bytes");
    expect_error(MINIMAL(", \"input\": {\"hold_ticks\": [60, 15]}"), "/input/hold_ticks/1", "max 15 is less than min 60");
    expect_error(MINIMAL(", \"input\": {\"hold_ticks\": [0, 15]}"), "/input/hold_ticks/0", "expected an integer from 1");
    expect_error(MINIMAL(", \"input\": {\"hold_ticks\": [1]}"), "/input/hold_ticks", "expected an array of 2 integers");
    expect_error(MINIMAL(", \"input\": {\"triggers\": [{\"name\": \"t\", \"switch\": \"s\", \"fade_ticks\": 1048577}]}"),
                 "/input/triggers/0/fade_ticks", "expected an integer from 0 to 1048576");
    expect_error(MINIMAL(", \"input\": {\"triggers\": [{\"name\": \"t\", \"switch\": \"s\"}, {\"name\": \"t\", \"switch\": \"u\"}]}"),
                 "/input/triggers/1/name", "duplicate input trigger name \"t\"");
    char json[4000];
    size_t n = (size_t)snprintf(json, sizeof json, "{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"input\": {\"parameters\": [");
    for (int i = 0; i < 65; i++)
        n += (size_t)snprintf(json + n, sizeof json - n, "%s{\"name\": \"p%d\", \"min\": 0, \"max\": 1}", i ? "," : "", i);
    snprintf(json + n, sizeof json - n, "]}, \"characters\": [{\"name\": \"c\", \"graph\": \"loco.json\", \"slot\": 0}]}");
    expect_error(json, "/input/parameters", "expected 0 to 64 input parameters (got 65)");
}

static void test_error_settings(void** state) {
    (void)state;
    expect_error(MINIMAL(", \"desync_policy\": \"ignore\""), "/desync_policy",
                 "unknown value \"ignore\" (valid: report, resync, kick)");
    expect_error(MINIMAL(", \"desync_policy\": 1"), "/desync_policy", "expected a string");
    expect_error(MINIMAL(", \"input_delay\": 31"), "/input_delay", "expected an integer from 0 to 30");
    expect_error(MINIMAL(", \"checksum_interval\": 0"), "/checksum_interval", "expected an integer from 1 to 3600");
    expect_error(MINIMAL(", \"checksum_interval\": 3601"), "/checksum_interval", "expected an integer from 1 to 3600");
    expect_error(MINIMAL(", \"payload_max\": 257"), "/payload_max", "expected an integer from 0 to 256");
    expect_error(MINIMAL(", \"duration_ticks\": 4294967296"), "/duration_ticks", "expected an integer from 0 to 4294967295");
    expect_error(MINIMAL(", \"timeouts\": {\"peer_ms\": 99}"), "/timeouts/peer_ms", "expected an integer from 100 to 600000");
    expect_error(MINIMAL(", \"timeouts\": {\"idle_ms\": 600001}"), "/timeouts/idle_ms", "expected an integer from 100 to 600000");
    expect_error(MINIMAL(", \"replay\": 3"), "/replay", "expected a string");
}

static void test_error_graphs(void** state) {
    (void)state;
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
                 "{\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0},"
                 "{\"name\": \"npc1\", \"graph\": \"fast.json\", \"npc_seed\": 1}]}",
                 "/characters/1/graph",
                 "tick rate 60 of \"fast.json\" (character npc1) differs from tick rate 30 of \"loco.json\" (character p0)");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
                 "{\"name\": \"p0\", \"graph\": \"missing.json\", \"slot\": 0}]}",
                 "/characters/0/graph", "cannot load \"missing.json\": ");
    expect_error("{\"match_id\": 1, \"players\": [{\"token\": \"a\"}], \"characters\": ["
                 "{\"name\": \"p0\", \"graph\": \"\", \"slot\": 0}]}",
                 "/characters/0/graph", "a file path must be 1 to 1023 bytes long");
}

static void test_error_json(void** state) {
    (void)state;
    bsync_match_config* cfg = (bsync_match_config*)(uintptr_t)1;
    bsync_error err;
    const char* bad = "{\n  \"match_id\": 1,\n  \"players\": [}\n";
    assert_int_equal(bsync_match_config_parse(bad, strlen(bad), "m.json", g_dir, NULL, &cfg, &err), BSYNC_CONFIG_ERROR);
    assert_null(cfg);
    assert_string_equal(err.message, "m.json:3:15: invalid JSON: unexpected '}'");
    expect_error("[1, 2]", "/", "expected an object");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_exact_numbers),
        cmocka_unit_test(test_shared_graph),
        cmocka_unit_test(test_triggers),
        cmocka_unit_test(test_asset_hashes),
        cmocka_unit_test(test_load_file_and_hash),
        cmocka_unit_test(test_base_dir),
        cmocka_unit_test(test_failing_allocator),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_error_missing_fields),
        cmocka_unit_test(test_error_unknown_fields),
        cmocka_unit_test(test_error_slots),
        cmocka_unit_test(test_error_tokens_and_counts),
        cmocka_unit_test(test_error_input),
        cmocka_unit_test(test_error_settings),
        cmocka_unit_test(test_error_graphs),
        cmocka_unit_test(test_error_json),
        cmocka_unit_test(test_secrets),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
