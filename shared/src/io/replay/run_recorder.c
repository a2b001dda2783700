/* run_recorder.c — an instance run driven by a graph script, recorded as a one-player match replay
 * (bsync_run_recorder in blendsync/io/replay_recorder.h; docs/graph-config.md "--replay OUT.bsreplay"). */
#include "blendsync/io/replay_recorder.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blendsync/blend_tree.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/match.h"
#include "file_internal.h"
#include "platform.h"

#define SNAPSHOT_EVERY 600u /* as the server (server_internal.h SRV_SNAPSHOT_EVERY) and `replay record` */

typedef struct trigger_kind {
    uint32_t column; /* play column of the script */
    uint32_t switch_index;
    uint32_t fade_ticks, carry, inertialize;
} trigger_kind;

struct bsync_run_recorder {
    const bsync_script* sc;
    char program[32];
    int posed;
    uint32_t kinds;
    trigger_kind kind[BSYNC_MATCH_MAX_TRIGGERS];
    bsync_match_config* mc;
    void* mem;
    bsync_match* match;
    uint8_t* snap;
    size_t snap_cap;
    bsync_replay_writer* w;
    bsync_replay_header h;
    bsync_replay_recorder recorder;
    bsync_match_frame in;
    char out[BSYNC_PLATFORM_PATH_MAX];
    char tmp[BSYNC_PLATFORM_PATH_MAX + 32];
};

/* The trigger kind of a play cell of column `column`: index into r->kind, or -1. */
static int find_kind(const bsync_run_recorder* r, uint32_t column, const bsync_switch_trigger* t) {
    for (uint32_t k = 0; k < r->kinds; k++) {
        const trigger_kind* q = &r->kind[k];
        if (q->column == column && q->fade_ticks == t->fade_ticks && q->carry == t->carry_time &&
            q->inertialize == t->inertialize)
            return (int)k;
    }
    return -1;
}

static const char* switch_name(const bsync_graph* graph, uint32_t sw) {
    return bsync_blend_tree_node_name(bsync_graph_tree(graph), bsync_graph_switch_node(graph, sw));
}

/* The trigger kinds (column order, then first use). */
static bsync_result collect_kinds(bsync_run_recorder* r, const bsync_graph* graph, bsync_error* err) {
    const bsync_script* sc = r->sc;
    const size_t rows = bsync_script_row_count(sc);
    for (uint32_t c = 0; c < bsync_script_play_column_count(sc); c++) {
        const uint32_t sw = bsync_script_play_column_switch(sc, c);
        for (size_t row = 0; row < rows; row++) {
            bsync_switch_trigger t;
            if (!bsync_script_play_cell(sc, row, c, &t)) continue;
            if (t.child >= 255u) {
                bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED,
                                   "play:%s at tick %llu: child %u of the switch is beyond what a match trigger carries (254)",
                                   switch_name(graph, sw), (unsigned long long)bsync_script_row_tick(sc, row), t.child);
                return BSYNC_LIMIT_EXCEEDED;
            }
            if (find_kind(r, c, &t) >= 0) continue;
            if (r->kinds == BSYNC_MATCH_MAX_TRIGGERS) {
                bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED,
                                   "the play: columns use more than %u kinds of trigger (switch, fade, carry, inertialize); "
                                   "a match has at most %u input triggers (column play:%s, tick %llu)",
                                   BSYNC_MATCH_MAX_TRIGGERS, BSYNC_MATCH_MAX_TRIGGERS, switch_name(graph, sw),
                                   (unsigned long long)bsync_script_row_tick(sc, row));
                return BSYNC_LIMIT_EXCEEDED;
            }
            trigger_kind* q = &r->kind[r->kinds++];
            q->column = c;
            q->switch_index = sw;
            q->fade_ticks = t.fade_ticks;
            q->carry = t.carry_time;
            q->inertialize = t.inertialize;
        }
    }
    return BSYNC_OK;
}

/* An exact decimal (bsync_fx_format) as a JSON number. */
static cJSON* fx_number(fix16_t v) {
    char buf[24];
    bsync_fx_format(v, buf, sizeof buf);
    return cJSON_CreateRaw(buf);
}

/* Add a new object to array: NULL when out of memory. */
static cJSON* add_object(cJSON* array) {
    cJSON* o = cJSON_CreateObject();
    if (o && !cJSON_AddItemToArray(array, o)) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

/* The match config of the run (docs/graph-config.md "--replay OUT.bsreplay"): the parameters and triggers of the
 * script, one player and one character named program. NULL when out of memory. */
static cJSON* config_json(const bsync_run_recorder* r, const bsync_graph* graph, const char* graph_rel,
                          const char* program) {
    const bsync_script* sc = r->sc;
    const bsync_blend_tree* tree = bsync_graph_tree(graph);
    const size_t rows = bsync_script_row_count(sc);
    cJSON* root = cJSON_CreateObject();
    cJSON* players = NULL;
    cJSON* input = NULL;
    cJSON* params = NULL;
    cJSON* triggers = NULL;
    cJSON* o = NULL;
    int ok = root && cJSON_AddNumberToObject(root, "match_id", 1) && (players = cJSON_AddArrayToObject(root, "players")) &&
             (o = add_object(players)) && cJSON_AddStringToObject(o, "token", program) &&
             (input = cJSON_AddObjectToObject(root, "input")) && (params = cJSON_AddArrayToObject(input, "parameters"));
    for (uint32_t i = 0; ok && i < bsync_script_column_count(sc); i++) {
        const uint32_t p = bsync_script_column_index(sc, i);
        fix16_t lo = bsync_blend_tree_parameter_default(tree, p), hi = lo;
        for (size_t row = 0; row < rows; row++) {
            int32_t v;
            if (!bsync_script_cell(sc, row, i, &v)) continue;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        ok = (o = add_object(params)) && cJSON_AddStringToObject(o, "name", bsync_blend_tree_parameter_name(tree, p)) &&
             cJSON_AddItemToObject(o, "min", fx_number(lo)) && cJSON_AddItemToObject(o, "max", fx_number(hi));
    }
    ok = ok && (triggers = cJSON_AddArrayToObject(input, "triggers"));
    for (uint32_t k = 0; ok && k < r->kinds; k++) {
        const trigger_kind* q = &r->kind[k];
        const char* node = switch_name(graph, q->switch_index);
        char name[160];
        snprintf(name, sizeof name, "play:%s fade=%u%s%s", node, q->fade_ticks, q->carry ? " carry" : "",
                 q->inertialize ? " inertialize" : "");
        if (strlen(name) >= BSYNC_MAX_NAME) snprintf(name, sizeof name, "trigger %u", k);
        ok = (o = add_object(triggers)) && cJSON_AddStringToObject(o, "name", name) &&
             cJSON_AddStringToObject(o, "switch", node) && cJSON_AddNumberToObject(o, "fade_ticks", q->fade_ticks) &&
             (!q->carry || cJSON_AddTrueToObject(o, "carry")) && (!q->inertialize || cJSON_AddTrueToObject(o, "inertialize"));
    }
    cJSON* characters = NULL;
    ok = ok && (characters = cJSON_AddArrayToObject(root, "characters")) && (o = add_object(characters)) &&
         cJSON_AddStringToObject(o, "name", program) && cJSON_AddStringToObject(o, "graph", graph_rel) &&
         cJSON_AddNumberToObject(o, "slot", 0) && cJSON_AddNumberToObject(root, "input_delay", 0) &&
         cJSON_AddNumberToObject(root, "checksum_interval", 1);
    if (!ok) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/* The config's text as eval --replay has always written it, so a run's replay keeps its bytes: cJSON
 * prints every leaf (strings and keys escaped, raw numbers as given) and this adds the punctuation:
 * the objects at depth 0 and 1 and the arrays at depth 2 one member per line (two spaces per level),
 * everything deeper on one line with ", " and ": "; a newline at the end. */
typedef struct text {
    char* p;
    size_t len, cap;
    int bad;
} text;

static void put(text* t, const char* s, size_t n) {
    if (t->bad) return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        while (cap < t->len + n + 1) cap *= 2;
        char* p = (char*)realloc(t->p, cap);
        if (!p) {
            t->bad = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

static void put_str(text* t, const char* s) {
    put(t, s, strlen(s));
}

static void put_leaf(text* t, const cJSON* item) {
    char* s = cJSON_PrintUnformatted(item);
    if (!s) t->bad = 1;
    else put_str(t, s);
    cJSON_free(s);
}

static void put_line(text* t, int depth) {
    put_str(t, "\n");
    for (int i = 0; i < depth; i++) put_str(t, "  ");
}

static void put_value(text* t, const cJSON* item, int depth) {
    const int obj = cJSON_IsObject(item);
    if (!obj && !cJSON_IsArray(item)) {
        put_leaf(t, item);
        return;
    }
    const int lines = obj ? depth < 2 : depth == 2;
    put_str(t, obj ? "{" : "[");
    for (const cJSON* c = item->child; c; c = c->next) {
        if (c != item->child) put_str(t, lines ? "," : ", ");
        if (lines) put_line(t, depth + 1);
        if (obj) {
            cJSON key; /* the member's name as a string leaf, so that cJSON escapes it */
            memset(&key, 0, sizeof key);
            key.type = cJSON_String;
            key.valuestring = c->string;
            put_leaf(t, &key);
            put_str(t, ": ");
        }
        put_value(t, c, depth + 1);
    }
    if (lines && item->child) put_line(t, depth);
    put_str(t, obj ? "}" : "]");
}

/* The text (free()), NULL when out of memory. */
static char* config_text(const cJSON* doc) {
    text t = {NULL, 0, 0, 0};
    put_value(&t, doc, 0);
    put_str(&t, "\n");
    if (!t.bad) return t.p;
    free(t.p);
    return NULL;
}

/* Where the replay and the graph lie: the graph's path relative to the replay's directory (rel), the
 * recorded config path and its directory (docs/graph-config.md "--replay OUT.bsreplay"). */
static bsync_result locate(const bsync_run_recorder_desc* desc, char* rel, char* cfg_path, size_t cfg_cap, char* cfg_dir,
                           bsync_error* err) {
    const char* out_path = desc->path;
    char graph_abs[BSYNC_PLATFORM_PATH_MAX], dir_abs[BSYNC_PLATFORM_PATH_MAX], dir[BSYNC_PLATFORM_PATH_MAX];
    if (!bsync_platform_realpath(desc->graph_path, graph_abs)) {
        bsync_io_set_error(err, BSYNC_IO_ERROR, "%s: %s", desc->graph_path, strerror(errno));
        return BSYNC_IO_ERROR;
    }
    /* the replay's folder: its root (/, C:\ or C:) kept whole, else without the last separator */
    const size_t out_dir = bsync_platform_path_dir_len(BSYNC_PATH_NATIVE, out_path);
    const size_t out_root = bsync_platform_path_root_len(BSYNC_PATH_NATIVE, out_path);
    const char* base = out_path + out_dir;
    if (!*base) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "%s: a file name is needed", out_path);
        return BSYNC_INVALID_ARGUMENT;
    }
    if (out_dir == 0) snprintf(dir, sizeof dir, ".");
    else if (out_dir <= out_root) snprintf(dir, sizeof dir, "%.*s", (int)out_root, out_path);
    else snprintf(dir, sizeof dir, "%.*s", (int)(out_dir - 1), out_path);
    if (!bsync_platform_realpath(dir, dir_abs)) {
        bsync_io_set_error(err, BSYNC_IO_ERROR, "%s: the replay's directory: %s", dir, strerror(errno));
        return BSYNC_IO_ERROR;
    }
    /* written into the match config with '/' (read on every host) */
    if (bsync_platform_path_relative(BSYNC_PATH_NATIVE, graph_abs, dir_abs, rel, BSYNC_PLATFORM_PATH_MAX) != 0 ||
        strlen(rel) >= BSYNC_MATCH_CONFIG_MAX_PATH) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED,
                           "%s has no path relative to %s short enough for a match config (another drive, or too long)",
                           graph_abs, dir_abs);
        return BSYNC_LIMIT_EXCEEDED;
    }
    const bsync_blend_tree* tree = bsync_graph_tree(desc->graph);
    for (uint32_t m = 0; m < bsync_graph_motion_count(desc->graph); m++) {
        const char* mn = bsync_blend_tree_motion_name(tree, m);
        if (strlen(rel) + 1 + strlen(mn) > BSYNC_REPLAY_MAX_TEXT) {
            bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED,
                               "the asset name %s:%s would exceed %u bytes (put the replay nearer to the graph)", rel, mn,
                               BSYNC_REPLAY_MAX_TEXT);
            return BSYNC_LIMIT_EXCEEDED;
        }
    }
    const size_t dl = strlen(dir_abs);
    snprintf(cfg_path, cfg_cap, "%s%s%s.match.json", dir_abs,
             dl > 0 && bsync_platform_is_separator(dir_abs[dl - 1]) ? "" : "/", base);
    snprintf(cfg_dir, BSYNC_PLATFORM_PATH_MAX, "%s", dir_abs);
    if (strlen(cfg_path) > BSYNC_REPLAY_MAX_TEXT) {
        snprintf(cfg_path, cfg_cap, "%s.match.json", base);
        if (strlen(cfg_path) > BSYNC_REPLAY_MAX_TEXT) {
            bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED, "%s: the file name is too long for a replay header", out_path);
            return BSYNC_LIMIT_EXCEEDED;
        }
    }
    return BSYNC_OK;
}

/* The match of the run, checked to hold desc->graph, and its memory. */
static bsync_result set_up_match(bsync_run_recorder* r, const bsync_run_recorder_desc* desc, const char* program,
                                 bsync_error* err) {
    char rel[BSYNC_PLATFORM_PATH_MAX], cfg_path[BSYNC_PLATFORM_PATH_MAX + 64], cfg_dir[BSYNC_PLATFORM_PATH_MAX];
    bsync_result res = locate(desc, rel, cfg_path, sizeof cfg_path, cfg_dir, err);
    if (res != BSYNC_OK) return res;
    cJSON* doc = config_json(r, desc->graph, rel, program);
    char* txt = doc ? config_text(doc) : NULL;
    cJSON_Delete(doc);
    if (!txt) {
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        return BSYNC_OUT_OF_MEMORY;
    }
    bsync_error e;
    memset(&e, 0, sizeof e);
    res = bsync_match_config_parse(txt, strlen(txt), cfg_path, cfg_dir, NULL, &r->mc, &e);
    free(txt);
    if (res != BSYNC_OK) {
        bsync_io_set_error(err, res, "the match of this run: %s", e.message);
        return res;
    }
    const bsync_match_desc* d = bsync_match_config_desc(r->mc);
    if (bsync_graph_hash(d->characters[0].graph) != bsync_graph_hash(desc->graph)) {
        bsync_io_set_error(err, BSYNC_MISMATCH, "%s, loaded as %s from the replay's directory, is not the same graph",
                           desc->graph_path, rel);
        return BSYNC_MISMATCH;
    }
    size_t msize = bsync_match_memory_size(d);
    r->mem = bsync_platform_aligned_alloc(16, msize);
    if (!r->mem || bsync_match_init(r->mem, msize, d, &r->match) != BSYNC_OK) {
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "cannot set up the match");
        return BSYNC_OUT_OF_MEMORY;
    }
    r->snap_cap = bsync_match_snapshot_size_max(r->match);
    r->snap = (uint8_t*)malloc(r->snap_cap);
    if (!r->snap) {
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        return BSYNC_OUT_OF_MEMORY;
    }
    return BSYNC_OK;
}

bsync_result bsync_run_recorder_open(const bsync_run_recorder_desc* desc, bsync_run_recorder** out, bsync_error* err) {
    if (out) *out = NULL;
    if (!desc || !out || !desc->path || !desc->graph_path || !desc->graph || !desc->script) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_run_recorder_open: a NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    const char* program = desc->program ? desc->program : "run";
    bsync_run_recorder* r = (bsync_run_recorder*)calloc(1, sizeof *r);
    if (!r) {
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        return BSYNC_OUT_OF_MEMORY;
    }
    r->sc = desc->script;
    r->posed = desc->poses;
    snprintf(r->program, sizeof r->program, "%s", program);
    bsync_result res;
    if (bsync_script_column_count(r->sc) > BSYNC_MATCH_MAX_PARAMS) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED,
                           "the script drives %u parameters; a match has at most %u input parameters",
                           bsync_script_column_count(r->sc), BSYNC_MATCH_MAX_PARAMS);
        res = BSYNC_LIMIT_EXCEEDED;
        goto fail;
    }
    if ((res = collect_kinds(r, desc->graph, err)) != BSYNC_OK) goto fail;
    if (strlen(desc->path) >= sizeof r->out) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED, "%s: the path is too long", desc->path);
        res = BSYNC_LIMIT_EXCEEDED;
        goto fail;
    }
    snprintf(r->out, sizeof r->out, "%s", desc->path);
    if ((res = set_up_match(r, desc, program, err)) != BSYNC_OK) goto fail;
    char build[64];
    snprintf(build, sizeof build, "blendsync %s %s", BSYNC_VERSION_STRING, program);
    bsync_match_config_replay_header(r->mc, build, 0, &r->h);
    snprintf(r->tmp, sizeof r->tmp, "%s.tmp.%ld", desc->path, bsync_platform_getpid());
    bsync_error e;
    memset(&e, 0, sizeof e);
    if ((res = bsync_replay_writer_open(r->tmp, &r->h, &r->w, &e)) != BSYNC_OK) {
        bsync_io_set_error(err, res, "%s", e.message);
        r->tmp[0] = '\0';
        goto fail;
    }
    bsync_replay_recorder_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.writer = r->w;
    rd.match = r->match;
    rd.checksum_interval = r->h.checksum_interval;
    rd.snapshot_every = SNAPSHOT_EVERY;
    rd.poses = r->posed;
    rd.snapshot_buffer = r->snap;
    rd.snapshot_capacity = r->snap_cap;
    if ((res = bsync_replay_recorder_init(&r->recorder, &rd)) != BSYNC_OK) {
        bsync_io_set_error(err, res, "cannot set up the recorder");
        goto fail;
    }
    *out = r;
    return BSYNC_OK;
fail:
    bsync_run_recorder_abort(r);
    return res;
}

bsync_result bsync_run_recorder_tick(bsync_run_recorder* r, uint64_t t, const fix16_t* targets,
                                     const bsync_switch_trigger* triggers, uint32_t trigger_count, uint64_t state,
                                     uint64_t pose, bsync_error* err) {
    if (!r || !targets || (trigger_count && !triggers)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_run_recorder_tick: a NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    if (t > UINT32_MAX - 1u) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED, "tick %llu: a replay holds ticks below 2^32", (unsigned long long)t);
        return BSYNC_LIMIT_EXCEEDED;
    }
    const bsync_script* sc = r->sc;
    memset(&r->in, 0, sizeof r->in);
    r->in.player_count = 1;
    bsync_match_input* in = &r->in.players[0];
    for (uint32_t i = 0; i < bsync_script_column_count(sc); i++) in->params[i] = targets[bsync_script_column_index(sc, i)];
    for (uint32_t k = 0; k < trigger_count; k++) {
        const bsync_switch_trigger* tr = &triggers[k];
        int j = -1;
        for (uint32_t c = 0; c < bsync_script_play_column_count(sc) && j < 0; c++)
            if (bsync_script_play_column_switch(sc, c) == tr->switch_index) j = find_kind(r, c, tr);
        if (j < 0 || in->triggers[j] != 0) { /* the kinds were collected from these very cells */
            bsync_io_set_error(err, BSYNC_MISMATCH, "tick %llu: a trigger of switch %u has no input trigger",
                               (unsigned long long)t, tr->switch_index);
            return BSYNC_MISMATCH;
        }
        in->triggers[j] = (uint8_t)(tr->child + 1u);
    }
    bsync_match_checksums cs;
    int checksummed = 0;
    bsync_error e;
    memset(&e, 0, sizeof e);
    bsync_result res = bsync_replay_recorder_tick(&r->recorder, t, &r->in, &cs, &checksummed, &e);
    if (res != BSYNC_OK) {
        switch (r->recorder.failed) {
        case BSYNC_RECORDER_WRITE:
            bsync_io_set_error(err, res, "writing %s: %s", r->tmp, e.message);
            break;
        case BSYNC_RECORDER_SAVE:
            bsync_io_set_error(err, res, "tick %llu: saving the match state failed: %s", (unsigned long long)t,
                               bsync_result_string(r->recorder.failed_result));
            break;
        case BSYNC_RECORDER_TICK:
            bsync_io_set_error(err, res, "tick %llu: the match tick failed", (unsigned long long)t);
            break;
        default:
            bsync_io_set_error(err, res, "tick %llu: the match checksums failed", (unsigned long long)t);
            break;
        }
        return res;
    }
    if (!checksummed) { /* the run's match config checksums every tick */
        bsync_io_set_error(err, BSYNC_MISMATCH, "tick %llu: the match checksums failed", (unsigned long long)t);
        return BSYNC_MISMATCH;
    }
    if (cs.character_blend[0] != state || (r->posed && cs.character_pose[0] != pose)) {
        bsync_io_set_error(err, BSYNC_MISMATCH,
                           "tick %llu: the recorded match's character (state %016llx, pose %016llx) differs from %s's "
                           "instance (state %016llx, pose %016llx); no replay written",
                           (unsigned long long)t, (unsigned long long)cs.character_blend[0],
                           (unsigned long long)cs.character_pose[0], r->program, (unsigned long long)state,
                           (unsigned long long)(r->posed ? pose : 0));
        return BSYNC_MISMATCH;
    }
    return BSYNC_OK;
}

bsync_result bsync_run_recorder_finish(bsync_run_recorder* r, uint64_t ticks, bsync_error* err) {
    if (!r) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_run_recorder_finish: a NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bsync_error e;
    memset(&e, 0, sizeof e);
    bsync_result res = bsync_replay_recorder_end(&r->recorder, (uint32_t)ticks, 0, &e);
    if (res == BSYNC_OK && (res = bsync_replay_writer_sync(r->w)) != BSYNC_OK)
        snprintf(e.message, sizeof e.message, "flushing to disk: %s", bsync_result_string(res));
    if (res != BSYNC_OK) {
        bsync_io_set_error(err, res, "writing %s: %s", r->tmp, e.message);
        bsync_run_recorder_abort(r);
        return res;
    }
    bsync_replay_writer_close(r->w);
    r->w = NULL;
    if (bsync_platform_rename(r->tmp, r->out) != 0) {
        bsync_io_set_error(err, BSYNC_IO_ERROR, "cannot rename %s to %s: %s", r->tmp, r->out, strerror(errno));
        bsync_run_recorder_abort(r);
        return BSYNC_IO_ERROR;
    }
    r->tmp[0] = '\0';
    bsync_run_recorder_abort(r);
    return BSYNC_OK;
}

void bsync_run_recorder_abort(bsync_run_recorder* r) {
    if (!r) return;
    if (r->w) bsync_replay_writer_close(r->w);
    if (r->tmp[0]) remove(r->tmp);
    free(r->snap);
    bsync_platform_aligned_free(r->mem);
    bsync_match_config_destroy(r->mc);
    free(r);
}
