/* bsync_desync_bundle_write / _json / _html and the reader: a bundle whose paths hold backslashes,
 * spaces, quotes and non-ASCII letters (UTF-8) is written (the demo match copied into such a folder;
 * the server's frames 0..44, a client whose slot-1 input differs in frame 40), read back field by field
 * and file by file, its report.html escaped, and `blendsync desync diff` run on it (BSYNC_CLI_PATH).
 * Bundles as earlier servers wrote them still read: the stored fuzz seed's bundle.json and a Windows
 * path printed unescaped. */
#include <fcntl.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "fixtures.h"
#include "test_support.h"
#include "blendsync/io/desync.h"
#include "blendsync/io/desync_bundle.h"
#include "blendsync/io/file.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/trail.h"
#include "blendsync/match.h"

extern char** environ;

#define PREV 30u  /* server-previous.bsms: the state at the start of tick 30 */
#define FINAL 45u /* server.bsms: the state after frame 44 */
#define INJECT 40u
/* a folder name with a backslash, spaces, double and single quotes, and letters beyond ASCII */
#define ODD_NAME "we\\ird \"quoted\" it's Ünïcødé 日本 <&>"

typedef struct fixture {
    char root[64];
    char odd[512];    /* ROOT/ODD_NAME: the match config and the bundles */
    char config[600]; /* ODD/match.json */
    char desync[600]; /* ODD/rec.bsreplay.desync */
    bsync_match_config* mc;
    const bsync_match_desc* d;
    bsync_match_frame frames[FINAL];
    void* mem[3];
    bsync_match* m[3];
    uint8_t* state[4]; /* server, client, server previous, trail */
    size_t len[4];
} fixture;

static void copy_file(const char* from, const char* to) {
    size_t n = 0;
    char* text = bsync_test_read_file(from, &n);
    assert_non_null(text);
    assert_int_equal(bsync_file_write(to, text, n), BSYNC_OK);
    free(text);
}

static uint8_t* save(bsync_match* m, size_t* len) {
    size_t cap = bsync_match_snapshot_size_max(m);
    uint8_t* buf = malloc(cap);
    assert_non_null(buf);
    assert_int_equal(bsync_match_save(m, buf, cap, len), BSYNC_OK);
    return buf;
}

static int setup(void** state) {
    fixture* f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(bsync_test_tmpdir(f->root, sizeof f->root, "bundle_write"), 0);
    snprintf(f->odd, sizeof f->odd, "%s/%s", f->root, ODD_NAME);
    assert_int_equal(mkdir(f->odd, 0777), 0);
    const char* names[2] = {"match.json", "humanoid_locomotion.json"};
    for (int i = 0; i < 2; i++) {
        char from[1024], to[1024];
        snprintf(from, sizeof from, "%s/scripts/demo/%s", BSYNC_SOURCE_DIR, names[i]);
        snprintf(to, sizeof to, "%s/%s", f->odd, names[i]);
        copy_file(from, to);
    }
    snprintf(f->config, sizeof f->config, "%s/match.json", f->odd);
    snprintf(f->desync, sizeof f->desync, "%s/rec.bsreplay.desync", f->odd);
    bsync_error err;
    assert_int_equal(bsync_match_config_load(f->config, NULL, &f->mc, &err), BSYNC_OK);
    f->d = bsync_match_config_desc(f->mc);
    for (uint32_t t = 0; t < FINAL; t++) {
        f->frames[t].player_count = f->d->player_count;
        for (uint32_t p = 0; p < f->d->player_count; p++) {
            f->frames[t].players[p].params[0] = (fix16_t)((t * 977u + p * 131u) % (3u << 16));
            f->frames[t].players[p].triggers[0] = (uint8_t)(t % 17u == p);
        }
    }
    /* the server: frames 0..44; the client: the same but slot 1's speed + 0.5 in frame 40 */
    for (int i = 0; i < 3; i++) f->m[i] = bsync_test_match_new(f->d, &f->mem[i]);
    uint8_t* snaps[FINAL - PREV + 1];
    size_t lens[FINAL - PREV + 1];
    for (uint32_t t = 0; t < FINAL; t++) {
        if (t == PREV) f->state[2] = save(f->m[0], &f->len[2]);
        if (t >= PREV) snaps[t - PREV] = save(f->m[1], &lens[t - PREV]);
        bsync_match_frame cf = f->frames[t];
        if (t == INJECT) cf.players[1].params[0] += 0x8000;
        assert_int_equal(bsync_match_tick(f->m[0], &f->frames[t]), BSYNC_OK);
        assert_int_equal(bsync_match_tick(f->m[1], &cf), BSYNC_OK);
    }
    snaps[FINAL - PREV] = save(f->m[1], &lens[FINAL - PREV]);
    f->state[0] = save(f->m[0], &f->len[0]);
    f->state[1] = save(f->m[1], &f->len[1]);
    uint32_t chars[1] = {1};
    size_t tcap = 1u << 20;
    f->state[3] = malloc(tcap);
    assert_non_null(f->state[3]);
    assert_int_equal(bsync_trail_write(f->m[2], (const uint8_t* const*)snaps, lens, FINAL - PREV + 1, PREV, chars, 1, f->state[3],
                                       tcap, &f->len[3], NULL, &err),
                     BSYNC_OK);
    for (uint32_t i = 0; i <= FINAL - PREV; i++) free(snaps[i]);
    *state = f;
    return 0;
}

static int teardown(void** state) {
    fixture* f = *state;
    bsync_test_rmtree(f->root);
    for (int i = 0; i < 3; i++) free(f->mem[i]);
    for (int i = 0; i < 4; i++) free(f->state[i]);
    bsync_match_config_destroy(f->mc);
    free(f);
    return 0;
}

static const char* const odd_assets[] = {"C:\\assets\\walk \"fast\".json:idle", "日本/歩く.json:wälk", "tab\there:x"};
static const char report_text[] = "blendsync desync report\n  character 1 (p1) <b>bold</b> & \"quoted\" it's\n";

/* The server's bundle of the fixture, every field set. */
static void server_desc(fixture* f, bsync_desync_bundle_desc* bd, const char** names, uint64_t* hashes,
                        bsync_desync_bundle_check* checks) {
    memset(bd, 0, sizeof *bd);
    bd->side = BSYNC_DESYNC_BUNDLE_SERVER;
    bd->root = f->desync;
    bd->tick = FINAL - 1;
    bd->slot = 1;
    bd->match_id = ((uint64_t)1 << 53) - 1u; /* the largest: printed exactly */
    bd->match_hash = bsync_match_hash(f->d);
    bd->match_config = f->config;
    bd->previous_tick = PREV - 1;
    bd->first_divergent_tick = INJECT;
    bd->first_divergent_character = 1;
    bd->build = "blendsync-server \"test\" \\ ü 0.3";
    uint32_t n = bsync_match_config_asset_hashes(f->mc, names, hashes, 16);
    assert_true(n > 0 && n <= 13);
    for (uint32_t i = 0; i < 3; i++) {
        names[n + i] = odd_assets[i];
        hashes[n + i] = 0xF00DF00D00000000ull + i;
    }
    bd->asset_count = n + 3;
    bd->asset_names = names;
    bd->asset_hashes = hashes;
    bd->server_state = f->state[0];
    bd->server_state_len = f->len[0];
    bd->client_state = f->state[1];
    bd->client_state_len = f->len[1];
    bd->server_previous = f->state[2];
    bd->server_previous_len = f->len[2];
    bd->client_trail = f->state[3];
    bd->client_trail_len = f->len[3];
    bd->report = report_text;
    bd->match = f->d;
    bd->names = f->mc;
    bd->frames = &f->frames[PREV];
    bd->frame_first = PREV;
    bd->frame_count = FINAL - PREV;
    for (uint32_t i = 0; i < 3; i++) {
        memset(&checks[i], 0, sizeof checks[i]);
        checks[i].tick = PREV - 1 + 15u * i; /* 29, 44, 59 */
        checks[i].server = 0x1111222233334444ull * (i + 1);
        checks[i].client_mask = 0x3;
        checks[i].client[0] = checks[i].server;
        checks[i].client[1] = checks[i].tick == FINAL - 1 ? 0xBADBADBAD0000000ull : checks[i].server;
    }
    bd->checks = checks;
    bd->check_count = 3;
    bd->player_count = 2;
}

static void expect_file(const char* dir, const char* name, const void* data, size_t len) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t n = 0;
    char* got = bsync_test_read_file(path, &n);
    assert_non_null(got);
    assert_int_equal(n, len);
    assert_memory_equal(got, data, len);
    free(got);
}

static int exists(const char* dir, const char* name) {
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_round_trip(void** state) {
    fixture* f = *state;
    bsync_desync_bundle_desc bd;
    const char* names[16];
    uint64_t hashes[16];
    bsync_desync_bundle_check checks[3];
    server_desc(f, &bd, names, hashes, checks);
    char dir[BSYNC_DESYNC_BUNDLE_PATH_MAX], want[1400];
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_write(&bd, dir, sizeof dir, &err), BSYNC_OK);
    snprintf(want, sizeof want, "%s/tick44-slot1", f->desync);
    assert_string_equal(dir, want);
    /* the files, byte for byte; no temporary file left */
    expect_file(dir, "server.bsms", f->state[0], f->len[0]);
    expect_file(dir, "client.bsms", f->state[1], f->len[1]);
    expect_file(dir, "server-previous.bsms", f->state[2], f->len[2]);
    expect_file(dir, "client-trail.bstrail", f->state[3], f->len[3]);
    expect_file(dir, "report.txt", report_text, strlen(report_text));
    size_t need = bsync_desync_inputs_csv(f->d, f->mc, &f->frames[PREV], NULL, PREV, FINAL - PREV, NULL, 0);
    char* csv = malloc(need + 1);
    assert_non_null(csv);
    bsync_desync_inputs_csv(f->d, f->mc, &f->frames[PREV], NULL, PREV, FINAL - PREV, csv, need + 1);
    expect_file(dir, "inputs.csv", csv, need);
    free(csv);
    assert_false(exists(dir, "client-previous.bsms"));
    assert_false(exists(dir, "desync.txt"));
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "ls -a \"%s\" | grep -c tmp", f->root); /* the root's name has no odd bytes */
    FILE* ls = popen(cmd, "r");
    assert_non_null(ls);
    int tmp_count = -1;
    assert_int_equal(fscanf(ls, "%d", &tmp_count), 1);
    pclose(ls);
    assert_int_equal(tmp_count, 0);

    /* every field of bundle.json, read back */
    static bsync_desync_bundle b;
    assert_int_equal(bsync_desync_bundle_open(dir, &b, &err), BSYNC_OK);
    assert_int_equal(b.format, BSYNC_DESYNC_BUNDLE_FORMAT);
    assert_string_equal(b.dir, dir);
    assert_true(b.has_match_config);
    assert_string_equal(b.match_config, f->config);
    assert_true(b.match_id == bd.match_id);
    assert_true(b.has_match_hash);
    assert_true(b.match_hash == bd.match_hash);
    assert_int_equal(b.tick, FINAL - 1);
    assert_int_equal(b.slot, 1);
    assert_int_equal(b.previous_tick, PREV - 1);
    assert_int_equal(b.first_divergent_tick, INJECT);
    assert_int_equal(b.first_divergent_character, 1);
    assert_true(b.has_server_previous && b.has_inputs && b.has_client_trail);
    assert_string_equal(b.build, bd.build);
    assert_int_equal(b.asset_count, bd.asset_count);
    for (uint32_t i = 0; i < bd.asset_count; i++) {
        assert_string_equal(b.assets[i].name, names[i]);
        assert_true(b.assets[i].hash == hashes[i]);
    }
    snprintf(want, sizeof want, "%s/server.bsms", dir);
    assert_string_equal(b.server_state, want);
    snprintf(want, sizeof want, "%s/client.bsms", dir);
    assert_string_equal(b.client_state, want);
    /* the config as written is readable: found there */
    char cfg[5000];
    assert_int_equal(bsync_desync_bundle_find_config(&b, NULL, cfg, sizeof cfg, &err), BSYNC_OK);
    assert_string_equal(cfg, f->config);

    /* the text: valid JSON for any reader, one line, the backslash escaped, UTF-8 as it is */
    size_t n = 0;
    snprintf(want, sizeof want, "%s/bundle.json", dir);
    char* text = bsync_test_read_file(want, &n);
    assert_non_null(text);
    assert_int_equal(n, bsync_desync_bundle_json(&bd, NULL, 0));
    assert_non_null(strstr(text, "we\\\\ird \\\"quoted\\\" it's Ünïcødé 日本 <&>/match.json\""));
    assert_non_null(strstr(text, "\"first_divergent_tick\": 40, \"first_divergent_character\": 1"));
    assert_non_null(strstr(text, "\"match_id\": 9007199254740991,"));
    assert_ptr_equal(strchr(text, '\n'), text + n - 1);
    cJSON* j = cJSON_Parse(text);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "match_config")->valuestring, f->config);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "assets"), odd_assets[0])->valuestring,
                        "f00df00d00000000");
    cJSON_Delete(j);
    /* sized and cut like bsync_desync_inputs_csv */
    char small[10];
    assert_int_equal(bsync_desync_bundle_json(&bd, small, sizeof small), n);
    assert_memory_equal(small, text, sizeof small - 1);
    assert_int_equal(small[sizeof small - 1], '\0');
    free(text);

    /* the trace reads the bundle's own files */
    bsync_desync_trace_result res;
    int reproduced = 0;
    static char trace[32768];
    assert_int_equal(bsync_desync_bundle_trace(&b, f->mc, f->m[0], f->m[1], f->state[0], f->len[0], NULL, &res, trace,
                                               sizeof trace, &reproduced, &err),
                     BSYNC_OK);
    assert_true(res.located);
    assert_int_equal(res.tick, INJECT + 1);
    assert_true(reproduced);
}

static void test_html_escaped(void** state) {
    fixture* f = *state;
    bsync_desync_bundle_desc bd;
    const char* names[16];
    uint64_t hashes[16];
    bsync_desync_bundle_check checks[3];
    server_desc(f, &bd, names, hashes, checks);
    char dir[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_write(&bd, dir, sizeof dir, &err), BSYNC_OK);
    char path[1400];
    snprintf(path, sizeof path, "%s/report.html", dir);
    size_t n = 0;
    char* html = bsync_test_read_file(path, &n);
    assert_non_null(html);
    assert_int_equal(n, bsync_desync_bundle_html(&bd, NULL, 0));
    assert_non_null(strstr(html, "<meta charset=\"utf-8\">"));
    assert_non_null(strstr(html, "&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot; it&#39;s"));
    assert_null(strstr(html, "<b>"));
    assert_non_null(strstr(html, "we\\ird &quot;quoted&quot; it&#39;s Ünïcødé 日本 &lt;&amp;&gt;/rec.bsreplay.desync/tick44-slot1</code>"));
    /* the timeline: tick 44 outlined, its slot-1 cell red, no other red */
    const char* row = strstr(html, "<tr class=\"mark\"><td>44</td>");
    assert_non_null(row);
    const char* red = strstr(html, "class=\"bad\"");
    assert_non_null(red);
    assert_true(red > row && red < strstr(row, "</tr>"));
    assert_null(strstr(red + 1, "class=\"bad\""));
    assert_non_null(strstr(html, "<tr><td>29</td><td>11112222</td><td class=\"ok\">11112222</td>"));
    free(html);
}

/* A client's dump: its own files and desync.txt, nothing of the server's. */
static void test_client_side(void** state) {
    fixture* f = *state;
    bsync_desync_bundle_desc bd;
    memset(&bd, 0, sizeof bd);
    bd.side = BSYNC_DESYNC_BUNDLE_CLIENT;
    char root[700];
    snprintf(root, sizeof root, "%s/cdump", f->odd);
    bd.root = root;
    bd.tick = FINAL - 1;
    bd.slot = 1;
    bd.client_state = f->state[1];
    bd.client_state_len = f->len[1];
    bd.client_previous = f->state[2];
    bd.client_previous_len = f->len[2];
    bd.client_trail = f->state[3];
    bd.client_trail_len = f->len[3];
    bd.report = "blendsync client desync dump\n";
    bd.match = f->d; /* no frames: the header alone */
    char dir[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_write(&bd, dir, sizeof dir, &err), BSYNC_OK);
    expect_file(dir, "client.bsms", f->state[1], f->len[1]);
    expect_file(dir, "client-previous.bsms", f->state[2], f->len[2]);
    expect_file(dir, "client-trail.bstrail", f->state[3], f->len[3]);
    expect_file(dir, "desync.txt", bd.report, strlen(bd.report));
    const char* header = "tick,slot,defaulted,param0,param1,param2,trigger0\n";
    expect_file(dir, "inputs.csv", header, strlen(header));
    const char* absent[] = {"bundle.json", "report.txt", "report.html", "server.bsms", "server-previous.bsms"};
    for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) assert_false(exists(dir, absent[i]));
    /* errors: a root whose parent does not exist, no description */
    char missing[800];
    snprintf(missing, sizeof missing, "%s/no/such", f->odd);
    bd.root = missing;
    assert_int_equal(bsync_desync_bundle_write(&bd, dir, sizeof dir, &err), BSYNC_IO_ERROR);
    assert_non_null(strstr(err.message, "cannot make "));
    assert_string_equal(dir, "");
    assert_int_equal(bsync_desync_bundle_write(NULL, dir, sizeof dir, &err), BSYNC_INVALID_ARGUMENT);
}

/* Runs argv[0] with stdout into out_path; its exit status. */
static int run(char* const argv[], const char* out_path) {
    posix_spawn_file_actions_t fa;
    assert_int_equal(posix_spawn_file_actions_init(&fa), 0);
    assert_int_equal(posix_spawn_file_actions_addopen(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644), 0);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* `blendsync desync diff DIR` on the bundle: its config found at the odd path, the difference named. */
static void test_cli(void** state) {
#ifndef BSYNC_CLI_PATH
    (void)state;
    skip();
#else
    fixture* f = *state;
    bsync_desync_bundle_desc bd;
    const char* names[16];
    uint64_t hashes[16];
    bsync_desync_bundle_check checks[3];
    server_desc(f, &bd, names, hashes, checks);
    char dir[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_write(&bd, dir, sizeof dir, &err), BSYNC_OK);
    char out[200];
    snprintf(out, sizeof out, "%s/out.txt", f->root);
    char* text_argv[] = {BSYNC_CLI_PATH, "desync", "diff", dir, NULL};
    assert_int_equal(run(text_argv, out), 1); /* 1: the states differ */
    size_t n = 0;
    char* text = bsync_test_read_file(out, &n);
    assert_non_null(text);
    char want[1400];
    snprintf(want, sizeof want, "(%s)\n", f->config);
    assert_non_null(strstr(text, want));
    assert_non_null(strstr(text, "B = client (slot 1): "));
    assert_non_null(strstr(text, "\n  character 1 (p1) "));
    assert_non_null(strstr(text, "  earliest: tick 40, character 1 (p1)"));
    free(text);
    char* json_argv[] = {BSYNC_CLI_PATH, "desync", "diff", dir, "--json", NULL};
    assert_int_equal(run(json_argv, out), 1);
    text = bsync_test_read_file(out, &n);
    assert_non_null(text);
    cJSON* j = cJSON_Parse(text);
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "match_config")->valuestring, f->config);
    assert_int_equal(bsync_test_json_number(cJSON_GetObjectItemCaseSensitive(j, "slot")), 1);
    const cJSON* fd = cJSON_GetObjectItemCaseSensitive(j, "first_divergence");
    assert_int_equal(bsync_test_json_number(cJSON_GetObjectItemCaseSensitive(fd, "tick")), INJECT);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(fd, "resimulation_reproduces_server")));
    cJSON_Delete(j);
    free(text);
#endif
}

/* Bundles that earlier servers wrote (bundle.json printed with snprintf, its strings unescaped). */
static void test_earlier_versions(void** state) {
    (void)state;
    static bsync_desync_bundle b;
    bsync_error err;
    /* the stored fuzz seed: a bundle of blendsync-server 0.1.0 */
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/fuzz/corpus/desync_bundle/bundle.bin", BSYNC_SOURCE_DIR);
    size_t n = 0;
    char* seed = bsync_test_read_file(path, &n);
    assert_non_null(seed);
    assert_true(n > 4);
    const size_t len = (size_t)(uint8_t)seed[0] | (size_t)(uint8_t)seed[1] << 8 | (size_t)(uint8_t)seed[2] << 16 |
                       (size_t)(uint8_t)seed[3] << 24;
    assert_true(len + 4 <= n);
    assert_int_equal(bsync_desync_bundle_parse("old", seed + 4, len, &b, &err), BSYNC_OK);
    free(seed);
    assert_int_equal(b.format, 1);
    assert_true(b.match_id == 18);
    assert_true(b.has_match_hash && b.match_hash == 0x6d69f691451fd52full);
    assert_string_equal(b.match_config, "/tmp/tmp.91mKd4NVvZ/match.json");
    assert_int_equal(b.tick, 29);
    assert_int_equal(b.slot, 1);
    assert_int_equal(b.previous_tick, 14);
    assert_int_equal(b.first_divergent_tick, 20);
    assert_int_equal(b.first_divergent_character, 1);
    assert_string_equal(b.build, "blendsync-server 0.1.0 proto 4");
    assert_int_equal(b.asset_count, 8);
    assert_string_equal(b.assets[7].name, "humanoid_locomotion.json:punch");
    assert_true(b.assets[7].hash == 0xe522102645fed0e9ull);
    assert_string_equal(b.server_state, "old/server.bsms");

    /* a Windows server's: its path printed as it is (\U is no JSON escape) */
    const char* win = "{\"match_id\": 3, \"match_config\": \"C:\\Users\\me\\new folder\\match.json\", \"tick\": 9, \"slot\": 2}\n";
    assert_int_equal(bsync_desync_bundle_parse("w", win, strlen(win), &b, &err), BSYNC_OK);
    assert_true(b.has_match_config);
    assert_string_equal(b.match_config, "C:\\Users\\me\\new folder\\match.json");
    assert_int_equal(b.slot, 2);
    assert_int_equal(b.format, 1);
    /* one whose backslashes all happen to be JSON escapes (\n \t \b): still taken literally */
    const char* esc = "{\"match_config\": \"D:\\new\\tests\\b.json\", \"slot\": 0}";
    assert_int_equal(bsync_desync_bundle_parse("w", esc, strlen(esc), &b, &err), BSYNC_OK);
    assert_string_equal(b.match_config, "D:\\new\\tests\\b.json");
    /* a hand-written one with JSON escapes and no control character: read as JSON */
    const char* hand = "{\"match_config\": \"a \\\"b\\\".json\", \"slot\": 0}";
    assert_int_equal(bsync_desync_bundle_parse("w", hand, strlen(hand), &b, &err), BSYNC_OK);
    assert_string_equal(b.match_config, "a \"b\".json");
    /* this version's: "format" 2, escapes as JSON says */
    const char* now = "{\"format\": 2, \"match_config\": \"D:\\\\new\\\\x\\ty.json\"}";
    assert_int_equal(bsync_desync_bundle_parse("w", now, strlen(now), &b, &err), BSYNC_OK);
    assert_string_equal(b.match_config, "D:\\new\\x\ty.json");
    assert_int_equal(b.format, 2);
    /* no JSON object: no fields (format 0), the defaults */
    const char* bad[] = {"[1, 2]", "{\"slot\": 1", "", "\"match_config\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(bsync_desync_bundle_parse("w", bad[i], strlen(bad[i]), &b, &err), BSYNC_OK);
        assert_int_equal(b.format, 0);
        assert_int_equal(b.slot, -1);
        assert_false(b.has_match_config);
        assert_string_equal(b.client_state, "w/client.bsms");
    }
    /* a match_config longer than the reader keeps */
    size_t big = BSYNC_DESYNC_BUNDLE_CONFIG_MAX + 64u;
    char* lng = malloc(big + 64u);
    assert_non_null(lng);
    int k = snprintf(lng, big + 64u, "{\"format\": 2, \"match_config\": \"");
    memset(lng + k, 'a', big);
    snprintf(lng + k + big, 64u, "\"}");
    assert_int_equal(bsync_desync_bundle_parse("w", lng, strlen(lng), &b, &err), BSYNC_LIMIT_EXCEEDED);
    assert_non_null(strstr(err.message, "match_config is longer than 4095 bytes"));
    free(lng);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_html_escaped),
        cmocka_unit_test(test_client_side),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_earlier_versions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
