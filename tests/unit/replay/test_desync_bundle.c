/* bsync_desync_bundle_*: a bundle laid out as docs/replay-verify.md describes it (built here: the demo
 * match, the server's frames 0..44, a client whose slot-1 input differs in frame 40) is read back:
 * bundle.json's fields, the config found by the documented rules, inputs.csv parsed back to the
 * frames bsync_desync_inputs_csv wrote, and the trace locating the divergence at the injected frame. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_support.h"
#include "blendsync/io/desync.h"
#include "blendsync/io/desync_bundle.h"
#include "blendsync/io/file.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/trail.h"
#include "blendsync/match.h"

#define PREV 30u  /* server-previous.bsms: the state at the start of tick 30 */
#define FINAL 45u /* server.bsms: the state after frame 44 */
#define INJECT 40u

typedef struct fixture {
    char root[64];      /* a temporary directory: ROOT/rec/match.json, ROOT/rec/match.bsreplay.desync/tick44-slot1/ */
    char dir[256];
    bsync_match_config* mc;
    const bsync_match_desc* d;
    bsync_match_frame frames[FINAL];
    void* mem[3];
    bsync_match* m[3];
    size_t cap;
    uint8_t* server_final;
    size_t server_final_len;
} fixture;


static void write_text(const char* dir, const char* name, const char* text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(bsync_file_write(path, text, strlen(text)), BSYNC_OK);
}

static void save_to(bsync_match* m, size_t cap, const char* dir, const char* name) {
    uint8_t* buf = malloc(cap);
    assert_non_null(buf);
    size_t len = 0;
    assert_int_equal(bsync_match_save(m, buf, cap, &len), BSYNC_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(bsync_file_write(path, buf, len), BSYNC_OK);
    free(buf);
}

static int setup(void** state) {
    fixture* f = calloc(1, sizeof *f);
    assert_non_null(f);
    char path[1024];
    snprintf(path, sizeof path, "%s/scripts/demo/match.json", BSYNC_SOURCE_DIR);
    bsync_error err;
    assert_int_equal(bsync_match_config_load(path, NULL, &f->mc, &err), BSYNC_OK);
    f->d = bsync_match_config_desc(f->mc);
    for (uint32_t t = 0; t < FINAL; t++) {
        f->frames[t].player_count = f->d->player_count;
        for (uint32_t p = 0; p < f->d->player_count; p++) {
            f->frames[t].players[p].params[0] = (fix16_t)((t * 977u + p * 131u) % (3u << 16));
            f->frames[t].players[p].params[1] = (fix16_t)((int32_t)((t * 311u + p) % 65536u) - 32768);
            f->frames[t].players[p].triggers[0] = (uint8_t)(t % 17u == p);
        }
    }
    snprintf(f->root, sizeof f->root, "/tmp/bsync_bundle_XXXXXX");
    assert_non_null(mkdtemp(f->root));
    snprintf(f->dir, sizeof f->dir, "%s/rec", f->root);
    assert_int_equal(mkdir(f->dir, 0777), 0);
    write_text(f->dir, "match.json", "{}"); /* next to the .desync folder; looked for, never loaded here */
    snprintf(f->dir, sizeof f->dir, "%s/rec/match.bsreplay.desync", f->root);
    assert_int_equal(mkdir(f->dir, 0777), 0);
    snprintf(f->dir, sizeof f->dir, "%s/rec/match.bsreplay.desync/tick44-slot1", f->root);
    assert_int_equal(mkdir(f->dir, 0777), 0);
    write_text(f->dir, "bundle.json",
               "{\"tick\": 44, \"slot\": 1, \"server\": \"server.bsms\", \"client\": \"client.bsms\",\n"
               " \"match_config\": \"elsewhere/match.json\"}\n");
    /* the server: frames 0..44; the client: the same but slot 1's speed + 0.5 in frame 40 */
    for (int i = 0; i < 3; i++) f->m[i] = bsync_test_match_new(f->d, &f->mem[i]);
    bsync_match* server = f->m[0];
    bsync_match* client = f->m[1];
    f->cap = bsync_match_snapshot_size_max(server);
    uint8_t* snaps[FINAL - PREV + 1];
    size_t lens[FINAL - PREV + 1];
    for (uint32_t t = 0; t < FINAL; t++) {
        if (t == PREV) save_to(server, f->cap, f->dir, "server-previous.bsms");
        if (t >= PREV) {
            snaps[t - PREV] = malloc(f->cap);
            assert_non_null(snaps[t - PREV]);
            assert_int_equal(bsync_match_save(client, snaps[t - PREV], f->cap, &lens[t - PREV]), BSYNC_OK);
        }
        bsync_match_frame cf = f->frames[t];
        if (t == INJECT) cf.players[1].params[0] += 0x8000;
        assert_int_equal(bsync_match_tick(server, &f->frames[t]), BSYNC_OK);
        assert_int_equal(bsync_match_tick(client, &cf), BSYNC_OK);
    }
    snaps[FINAL - PREV] = malloc(f->cap);
    assert_non_null(snaps[FINAL - PREV]);
    assert_int_equal(bsync_match_save(client, snaps[FINAL - PREV], f->cap, &lens[FINAL - PREV]), BSYNC_OK);
    save_to(server, f->cap, f->dir, "server.bsms");
    save_to(client, f->cap, f->dir, "client.bsms");
    f->server_final = malloc(f->cap);
    assert_non_null(f->server_final);
    assert_int_equal(bsync_match_save(server, f->server_final, f->cap, &f->server_final_len), BSYNC_OK);
    /* the client's trail of character 1 (slot 1's) over the states at the start of ticks 30..45 */
    uint32_t chars[1] = {1};
    size_t tcap = 1u << 20, tlen = 0;
    uint8_t* tbuf = malloc(tcap);
    assert_non_null(tbuf);
    assert_int_equal(bsync_trail_write(f->m[2], (const uint8_t* const*)snaps, lens, FINAL - PREV + 1, PREV, chars, 1, tbuf,
                                       tcap, &tlen, NULL, &err),
                     BSYNC_OK);
    snprintf(path, sizeof path, "%s/client-trail.bstrail", f->dir);
    assert_int_equal(bsync_file_write(path, tbuf, tlen), BSYNC_OK);
    free(tbuf);
    for (uint32_t i = 0; i <= FINAL - PREV; i++) free(snaps[i]);
    /* inputs.csv: the confirmed (server's) frames 30..44 */
    size_t need = bsync_desync_inputs_csv(f->d, f->mc, &f->frames[PREV], NULL, PREV, FINAL - PREV, NULL, 0);
    char* csv = malloc(need + 1);
    assert_non_null(csv);
    bsync_desync_inputs_csv(f->d, f->mc, &f->frames[PREV], NULL, PREV, FINAL - PREV, csv, need + 1);
    write_text(f->dir, "inputs.csv", csv);
    free(csv);
    *state = f;
    return 0;
}

static int teardown(void** state) {
    fixture* f = *state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->root);
    assert_int_equal(system(cmd), 0);
    for (int i = 0; i < 3; i++) free(f->mem[i]);
    free(f->server_final);
    bsync_match_config_destroy(f->mc);
    free(f);
    return 0;
}

static void test_open_and_config(void** state) {
    fixture* f = *state;
    bsync_desync_bundle b;
    bsync_error err;
    char with_slashes[300];
    snprintf(with_slashes, sizeof with_slashes, "%s//", f->dir);
    assert_int_equal(bsync_desync_bundle_open(with_slashes, &b, &err), BSYNC_OK);
    assert_string_equal(b.dir, f->dir);
    assert_int_equal(b.slot, 1);
    assert_true(b.has_match_config);
    assert_string_equal(b.match_config, "elsewhere/match.json");
    char want[512];
    snprintf(want, sizeof want, "%s/server.bsms", f->dir);
    assert_string_equal(b.server_state, want);
    snprintf(want, sizeof want, "%s/inputs.csv", f->dir);
    assert_string_equal(b.inputs, want);
    /* not readable as written, not at DIR/../../elsewhere/match.json: its file name two levels up */
    char cfg[1300];
    assert_int_equal(bsync_desync_bundle_find_config(&b, NULL, cfg, sizeof cfg, &err), BSYNC_OK);
    snprintf(want, sizeof want, "%s/../../match.json", f->dir);
    assert_string_equal(cfg, want);
    assert_int_equal(bsync_desync_bundle_find_config(&b, "given.json", cfg, sizeof cfg, &err), BSYNC_OK);
    assert_string_equal(cfg, "given.json");
    snprintf(b.match_config, sizeof b.match_config, "nowhere.json");
    assert_int_equal(bsync_desync_bundle_find_config(&b, NULL, cfg, sizeof cfg, &err), BSYNC_NOT_FOUND);
    assert_non_null(strstr(err.message, "\"nowhere.json\" is not found"));
    b.has_match_config = 0;
    assert_int_equal(bsync_desync_bundle_find_config(&b, NULL, cfg, sizeof cfg, &err), BSYNC_NOT_FOUND);
    assert_non_null(strstr(err.message, "names no match_config"));
    assert_int_equal(bsync_desync_bundle_open("/nonexistent/bundle", &b, &err), BSYNC_IO_ERROR);
    assert_non_null(strstr(err.message, "cannot read /nonexistent/bundle/bundle.json"));
}

static void test_inputs(void** state) {
    fixture* f = *state;
    size_t need = bsync_desync_inputs_csv(f->d, f->mc, f->frames, NULL, 0, FINAL, NULL, 0);
    char* csv = malloc(need + 1);
    assert_non_null(csv);
    bsync_desync_inputs_csv(f->d, f->mc, f->frames, NULL, 0, FINAL, csv, need + 1);
    assert_int_equal(bsync_desync_bundle_inputs_rows(csv, need), (size_t)FINAL * f->d->player_count);
    static bsync_match_frame got[FINAL];
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_inputs_parse(csv, need, "x.csv", f->d, 0, FINAL, got, NULL, &err), BSYNC_OK);
    for (uint32_t t = 0; t < FINAL; t++) assert_memory_equal(&got[t], &f->frames[t], sizeof got[t]);
    /* a sub-range */
    assert_int_equal(bsync_desync_bundle_inputs_parse(csv, need, "x.csv", f->d, 10, 5, got, NULL, &err), BSYNC_OK);
    for (uint32_t t = 0; t < 5; t++) assert_memory_equal(&got[t], &f->frames[10 + t], sizeof got[t]);
    /* beyond the rows: tick 45 slot 0 is missing */
    assert_int_equal(bsync_desync_bundle_inputs_parse(csv, need, "x.csv", f->d, 40, 6, got, NULL, &err), BSYNC_CONFIG_ERROR);
    assert_string_equal(err.message, "x.csv has no input for tick 45 slot 0");
    /* a cell cut off on line 3 */
    char* line3 = strchr(strchr(csv, '\n') + 1, '\n') + 1;
    char* nl = strchr(line3, '\n');
    char* last_comma = NULL;
    for (char* p = line3; p < nl; p++)
        if (*p == ',') last_comma = p;
    assert_non_null(last_comma);
    *last_comma = ';';
    assert_int_equal(bsync_desync_bundle_inputs_parse(csv, need, "x.csv", f->d, 0, FINAL, got, NULL, &err), BSYNC_CONFIG_ERROR);
    char want[128];
    snprintf(want, sizeof want, "x.csv:3: %u columns, the match's inputs need %u", 2u + f->d->param_count + f->d->trigger_count,
             3u + f->d->param_count + f->d->trigger_count);
    assert_string_equal(err.message, want);
    free(csv);
    assert_int_equal(bsync_desync_bundle_inputs_rows("h\n\r\n1\n\n2", 9), 2);
}

static void test_trace(void** state) {
    fixture* f = *state;
    bsync_desync_bundle b;
    bsync_error err;
    assert_int_equal(bsync_desync_bundle_open(f->dir, &b, &err), BSYNC_OK);
    bsync_desync_trace_result res;
    int reproduced = 0;
    static char text[32768];
    assert_int_equal(bsync_desync_bundle_trace(&b, f->mc, f->m[0], f->m[1], f->server_final, f->server_final_len, NULL, &res,
                                               text, sizeof text, &reproduced, &err),
                     BSYNC_OK);
    assert_true(res.located);
    assert_false(res.earlier);
    assert_int_equal(res.tick, INJECT + 1); /* the state after frame 40 is the first that differs */
    assert_int_equal(res.character, 1);
    assert_int_equal(res.operation, 1); /* the client applied another input */
    assert_true(reproduced);
    assert_non_null(strstr(text, "character 1 (p1)"));
    /* a "server state" from before server-previous.bsms (the initial state, tick 0 < 30) is refused */
    bsync_match* fresh = f->m[2];
    void* mem = NULL;
    bsync_match* start = bsync_test_match_new(f->d, &mem);
    uint8_t* zero = malloc(f->cap);
    assert_non_null(zero);
    size_t zl = 0;
    assert_int_equal(bsync_match_save(start, zero, f->cap, &zl), BSYNC_OK);
    assert_int_equal(bsync_desync_bundle_trace(&b, f->mc, fresh, f->m[1], zero, zl, NULL, &res, text, sizeof text, &reproduced,
                                               &err),
                     BSYNC_MISMATCH);
    assert_string_equal(err.message, "server-previous.bsms is newer than server.bsms");
    free(zero);
    free(mem);
    /* no trail: nothing done */
    snprintf(b.client_trail, sizeof b.client_trail, "%s/none.bstrail", f->dir);
    assert_int_equal(bsync_desync_bundle_trace(&b, f->mc, f->m[0], f->m[1], f->server_final, f->server_final_len, NULL, &res,
                                               text, sizeof text, &reproduced, &err),
                     BSYNC_NOT_FOUND);
    /* a state of another file name that does not exist */
    assert_int_equal(bsync_desync_bundle_load_state(f->m[0], b.client_trail, &err), BSYNC_IO_ERROR);
    assert_non_null(strstr(err.message, "cannot read"));
    assert_int_equal(bsync_desync_bundle_load_state(f->m[0], b.client_state, &err), BSYNC_OK);
    assert_int_equal(bsync_match_tick_count(f->m[0]), FINAL);
}

static uint8_t* read_bytes(const char* dir, const char* name, size_t* len) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* fp = fopen(path, "rb");
    assert_non_null(fp);
    uint8_t* buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 20, fp);
    fclose(fp);
    return buf;
}

/* The memory entry points (what fuzz_desync_bundle drives) give what the file ones give. */
static void test_memory(void** state) {
    fixture* f = *state;
    bsync_desync_bundle bf, bm;
    bsync_error err;
    size_t ml = 0, tl = 0, pl = 0, cl = 0;
    uint8_t* meta = read_bytes(f->dir, "bundle.json", &ml);
    assert_int_equal(bsync_desync_bundle_open(f->dir, &bf, &err), BSYNC_OK);
    meta[ml] = 'x'; /* need not be NUL-terminated */
    assert_int_equal(bsync_desync_bundle_parse(f->dir, (const char*)meta, ml, &bm, &err), BSYNC_OK);
    assert_memory_equal(&bm, &bf, sizeof bm);
    /* text ending inside the "slot" field's key: no slot, the rest as before */
    const char* slot = strstr((const char*)meta, "\"slot\"");
    assert_non_null(slot);
    assert_int_equal(bsync_desync_bundle_parse("d", (const char*)meta, (size_t)(slot - (const char*)meta) + 3, &bm, &err), BSYNC_OK);
    assert_int_equal(bm.slot, -1);
    assert_string_equal(bm.server_state, "d/server.bsms");
    assert_int_equal(bsync_desync_bundle_parse(NULL, "", 0, &bm, &err), BSYNC_INVALID_ARGUMENT);

    uint8_t* trail = read_bytes(f->dir, "client-trail.bstrail", &tl);
    uint8_t* prev = read_bytes(f->dir, "server-previous.bsms", &pl);
    uint8_t* csv = read_bytes(f->dir, "inputs.csv", &cl);
    bsync_desync_trace_result rf, rm;
    int reproduced_f = 0, reproduced_m = 0;
    static char tf[32768], tm[32768];
    assert_int_equal(bsync_desync_bundle_trace(&bf, f->mc, f->m[0], f->m[1], f->server_final, f->server_final_len, NULL, &rf, tf,
                                               sizeof tf, &reproduced_f, &err),
                     BSYNC_OK);
    assert_int_equal(bsync_desync_bundle_trace_memory(&bf, f->mc, f->m[0], f->m[1], f->server_final, f->server_final_len, prev, pl,
                                                      trail, tl, (const char*)csv, cl, NULL, &rm, tm, sizeof tm, &reproduced_m,
                                                      &err),
                     BSYNC_OK);
    assert_memory_equal(&rm, &rf, sizeof rm);
    assert_int_equal(reproduced_m, reproduced_f);
    assert_true(reproduced_m);
    assert_string_equal(tm, tf);
    assert_int_equal(rm.tick, INJECT + 1);
    /* no trail bytes: refused as a bad trail (the file call says NOT_FOUND before reading) */
    assert_int_equal(bsync_desync_bundle_trace_memory(&bf, f->mc, f->m[0], f->m[1], f->server_final, f->server_final_len, prev, pl,
                                                      NULL, 0, (const char*)csv, cl, NULL, &rm, tm, sizeof tm, &reproduced_m, &err),
                     BSYNC_BAD_BLOB);
    /* inputs.csv cut to its header: fewer rows than frames x players, refused before sizing anything */
    const char* nl = memchr(csv, '\n', cl);
    assert_non_null(nl);
    assert_int_equal(bsync_desync_bundle_trace_memory(&bf, f->mc, f->m[0], f->m[1], f->server_final, f->server_final_len, prev, pl,
                                                      trail, tl, (const char*)csv, (size_t)(nl - (const char*)csv) + 1, NULL,
                                                      &rm, tm, sizeof tm, &reproduced_m, &err),
                     BSYNC_LIMIT_EXCEEDED);
    free(meta);
    free(trail);
    free(prev);
    free(csv);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_open_and_config),
        cmocka_unit_test(test_inputs),
        cmocka_unit_test(test_trace),
        cmocka_unit_test(test_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
