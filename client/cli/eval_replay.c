/* eval_replay.c — `blendsync eval --replay` (eval_replay.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "eval_replay.h"
#include "platform.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/blend_tree.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_recorder.h"
#include "blendsync/match.h"
#include "cli_json.h"

#define SNAPSHOT_EVERY 600u /* as the server (server_internal.h SRV_SNAPSHOT_EVERY) and `replay record` */

typedef struct trigger_kind {
    uint32_t column; /* play column of the script */
    uint32_t switch_index;
    uint32_t fade_ticks, carry, inertialize;
} trigger_kind;

struct bsync_eval_replay {
    const bsync_cli_script* sc;
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
    char out[PATH_MAX];
    char tmp[PATH_MAX + 32];
};

/* A growing text buffer. */
typedef struct text {
    char* p;
    size_t len, cap;
    int failed;
} text;

static void add(text* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text* t, const char* fmt, ...) {
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->len : NULL, t->p ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->failed = 1;
            return;
        }
        if (t->p && (size_t)k < t->cap - t->len) {
            t->len += (size_t)k;
            return;
        }
        size_t cap = (t->cap ? t->cap * 2 : 1024) + (size_t)k;
        char* q = (char*)realloc(t->p, cap);
        if (!q) {
            t->failed = 1;
            return;
        }
        t->p = q;
        t->cap = cap;
    }
}

static void add_json_string(text* t, const char* s) {
    char* q = bsync_cli_json_quote(s); /* escaped by cJSON */
    if (q) add(t, "%s", q);
    else t->failed = 1;
    cJSON_free(q);
}

static void add_fx(text* t, fix16_t v) {
    char buf[24];
    bsync_fx_format(v, buf, sizeof buf);
    add(t, "%s", buf);
}

static void fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("blendsync eval: --replay: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The trigger kind of a play cell: index into r->kind, or -1. */
static int find_kind(const bsync_eval_replay* r, uint32_t column, const bsync_switch_trigger* t) {
    for (uint32_t k = 0; k < r->kinds; k++) {
        const trigger_kind* q = &r->kind[k];
        if (q->column == column && q->fade_ticks == t->fade_ticks && q->carry == t->carry_time &&
            q->inertialize == t->inertialize)
            return (int)k;
    }
    return -1;
}

/* Collect the trigger kinds (column order, then first use). 0 or -1 (printed). */
static int collect_kinds(bsync_eval_replay* r, const bsync_blend_tree* tree, const bsync_graph* graph) {
    const bsync_cli_script* sc = r->sc;
    for (uint32_t c = 0; c < sc->play_columns; c++) {
        for (size_t row = 0; row < sc->rows; row++) {
            size_t at = row * sc->play_columns + c;
            if (!sc->play_given[at]) continue;
            const bsync_switch_trigger* t = &sc->play[at];
            if (t->child >= 255u) {
                fail("play:%s at tick %llu: child %u of the switch is beyond what a match trigger carries (254)",
                     bsync_blend_tree_node_name(tree, bsync_graph_switch_node(graph, sc->play_switch[c])),
                     (unsigned long long)sc->tick[row], t->child);
                return -1;
            }
            if (find_kind(r, c, t) >= 0) continue;
            if (r->kinds == BSYNC_MATCH_MAX_TRIGGERS) {
                fail("the play: columns use more than %u kinds of trigger (switch, fade, carry, inertialize); "
                     "a match has at most %u input triggers (column play:%s, tick %llu)",
                     BSYNC_MATCH_MAX_TRIGGERS, BSYNC_MATCH_MAX_TRIGGERS,
                     bsync_blend_tree_node_name(tree, bsync_graph_switch_node(graph, sc->play_switch[c])),
                     (unsigned long long)sc->tick[row]);
                return -1;
            }
            trigger_kind* q = &r->kind[r->kinds++];
            q->column = c;
            q->switch_index = sc->play_switch[c];
            q->fade_ticks = t->fade_ticks;
            q->carry = t->carry_time;
            q->inertialize = t->inertialize;
        }
    }
    return 0;
}

/* The match config text of the run (eval_replay.h). NULL on error (printed). */
static char* config_text(const bsync_eval_replay* r, const bsync_graph* graph, const char* graph_rel) {
    const bsync_cli_script* sc = r->sc;
    const bsync_blend_tree* tree = bsync_graph_tree(graph);
    text t = {NULL, 0, 0, 0};
    add(&t, "{\n  \"match_id\": 1,\n  \"players\": [{\"token\": \"eval\"}],\n  \"input\": {\n    \"parameters\": [");
    for (uint32_t i = 0; i < sc->columns; i++) {
        uint32_t p = sc->param[i];
        fix16_t lo = bsync_blend_tree_parameter_default(tree, p), hi = lo;
        for (size_t row = 0; row < sc->rows; row++) {
            size_t at = row * sc->columns + i;
            if (!sc->given[at]) continue;
            if (sc->value[at] < lo) lo = sc->value[at];
            if (sc->value[at] > hi) hi = sc->value[at];
        }
        add(&t, "%s\n      {\"name\": ", i ? "," : "");
        add_json_string(&t, bsync_blend_tree_parameter_name(tree, p));
        add(&t, ", \"min\": ");
        add_fx(&t, lo);
        add(&t, ", \"max\": ");
        add_fx(&t, hi);
        add(&t, "}");
    }
    add(&t, "%s],\n    \"triggers\": [", sc->columns ? "\n    " : "");
    for (uint32_t k = 0; k < r->kinds; k++) {
        const trigger_kind* q = &r->kind[k];
        const char* node = bsync_blend_tree_node_name(tree, bsync_graph_switch_node(graph, q->switch_index));
        char name[160];
        snprintf(name, sizeof name, "play:%s fade=%u%s%s", node, q->fade_ticks, q->carry ? " carry" : "",
                 q->inertialize ? " inertialize" : "");
        if (strlen(name) >= BSYNC_MAX_NAME) snprintf(name, sizeof name, "trigger %u", k);
        add(&t, "%s\n      {\"name\": ", k ? "," : "");
        add_json_string(&t, name);
        add(&t, ", \"switch\": ");
        add_json_string(&t, node);
        add(&t, ", \"fade_ticks\": %u%s%s}", q->fade_ticks, q->carry ? ", \"carry\": true" : "",
            q->inertialize ? ", \"inertialize\": true" : "");
    }
    add(&t, "%s]\n  },\n  \"characters\": [{\"name\": \"eval\", \"graph\": ", r->kinds ? "\n    " : "");
    add_json_string(&t, graph_rel);
    add(&t, ", \"slot\": 0}],\n  \"input_delay\": 0,\n  \"checksum_interval\": 1\n}\n");
    if (t.failed) {
        free(t.p);
        fail("out of memory");
        return NULL;
    }
    return t.p;
}

bsync_eval_replay* bsync_eval_replay_open(const char* out_path, const char* config_path, const bsync_graph* graph,
                                          const bsync_cli_script* sc, int posed) {
    bsync_eval_replay* r = (bsync_eval_replay*)calloc(1, sizeof *r);
    char* txt = NULL;
    if (!r) {
        fail("out of memory");
        return NULL;
    }
    r->sc = sc;
    r->posed = posed;
    if (sc->columns > BSYNC_MATCH_MAX_PARAMS) {
        fail("the script drives %u parameters; a match has at most %u input parameters", sc->columns,
             BSYNC_MATCH_MAX_PARAMS);
        goto fail;
    }
    if (collect_kinds(r, bsync_graph_tree(graph), graph) != 0) goto fail;
    if (strlen(out_path) >= sizeof r->out) {
        fail("%s: the path is too long", out_path);
        goto fail;
    }
    snprintf(r->out, sizeof r->out, "%s", out_path);

    /* where the graph lies, seen from the replay's directory */
    char graph_abs[BSYNC_PLATFORM_PATH_MAX], dir_abs[BSYNC_PLATFORM_PATH_MAX], dir[BSYNC_PLATFORM_PATH_MAX],
        rel[BSYNC_PLATFORM_PATH_MAX];
    if (!bsync_platform_realpath(config_path, graph_abs)) {
        fail("%s: %s", config_path, strerror(errno));
        goto fail;
    }
    /* the replay's folder: its root (/, C:\ or C:) kept whole, else without the last separator */
    const size_t out_dir = bsync_platform_path_dir_len(BSYNC_PATH_NATIVE, out_path);
    const size_t out_root = bsync_platform_path_root_len(BSYNC_PATH_NATIVE, out_path);
    const char* base = out_path + out_dir;
    if (!*base) {
        fail("%s: a file name is needed", out_path);
        goto fail;
    }
    if (out_dir == 0) snprintf(dir, sizeof dir, ".");
    else if (out_dir <= out_root) snprintf(dir, sizeof dir, "%.*s", (int)out_root, out_path);
    else snprintf(dir, sizeof dir, "%.*s", (int)(out_dir - 1), out_path);
    if (!bsync_platform_realpath(dir, dir_abs)) {
        fail("%s: the replay's directory: %s", dir, strerror(errno));
        goto fail;
    }
    /* written into the match config with '/' (read on every host) */
    if (bsync_platform_path_relative(BSYNC_PATH_NATIVE, graph_abs, dir_abs, rel, sizeof rel) != 0 ||
        strlen(rel) >= BSYNC_MATCH_CONFIG_MAX_PATH) {
        fail("%s has no path relative to %s short enough for a match config (another drive, or too long)", graph_abs,
             dir_abs);
        goto fail;
    }
    const bsync_blend_tree* tree = bsync_graph_tree(graph);
    for (uint32_t m = 0; m < bsync_graph_motion_count(graph); m++) {
        const char* mn = bsync_blend_tree_motion_name(tree, m);
        if (strlen(rel) + 1 + strlen(mn) > BSYNC_REPLAY_MAX_TEXT) {
            fail("the asset name %s:%s would exceed %u bytes (put the replay nearer to the graph)", rel, mn,
                 BSYNC_REPLAY_MAX_TEXT);
            goto fail;
        }
    }
    char cfg_path[PATH_MAX + 64], cfg_dir[PATH_MAX];
    const size_t dl = strlen(dir_abs);
    snprintf(cfg_path, sizeof cfg_path, "%s%s%s.match.json", dir_abs,
             dl > 0 && bsync_platform_is_separator(dir_abs[dl - 1]) ? "" : "/", base);
    snprintf(cfg_dir, sizeof cfg_dir, "%s", dir_abs);
    if (strlen(cfg_path) > BSYNC_REPLAY_MAX_TEXT) {
        snprintf(cfg_path, sizeof cfg_path, "%s.match.json", base);
        if (strlen(cfg_path) > BSYNC_REPLAY_MAX_TEXT) {
            fail("%s: the file name is too long for a replay header", out_path);
            goto fail;
        }
    }

    txt = config_text(r, graph, rel);
    if (!txt) goto fail;
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_match_config_parse(txt, strlen(txt), cfg_path, cfg_dir, NULL, &r->mc, &err) != BSYNC_OK) {
        fail("the match of this run: %s", err.message);
        goto fail;
    }
    const bsync_match_desc* d = bsync_match_config_desc(r->mc);
    if (bsync_graph_hash(d->characters[0].graph) != bsync_graph_hash(graph)) {
        fail("%s, loaded as %s from the replay's directory, is not the same graph", config_path, rel);
        goto fail;
    }
    size_t msize = bsync_match_memory_size(d);
    r->mem = bsync_platform_aligned_alloc(16, msize);
    if (!r->mem || bsync_match_init(r->mem, msize, d, &r->match) != BSYNC_OK) {
        fail("cannot set up the match");
        goto fail;
    }
    r->snap_cap = bsync_match_snapshot_size_max(r->match);
    r->snap = (uint8_t*)malloc(r->snap_cap);
    if (!r->snap) {
        fail("out of memory");
        goto fail;
    }
    char build[64];
    snprintf(build, sizeof build, "blendsync %s eval", BSYNC_VERSION_STRING);
    bsync_match_config_replay_header(r->mc, build, 0, &r->h);
    snprintf(r->tmp, sizeof r->tmp, "%s.tmp.%ld", out_path, bsync_platform_getpid());
    if (bsync_replay_writer_open(r->tmp, &r->h, &r->w, &err) != BSYNC_OK) {
        fail("%s", err.message);
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
    if (bsync_replay_recorder_init(&r->recorder, &rd) != BSYNC_OK) {
        fail("cannot set up the recorder");
        goto fail;
    }
    free(txt);
    return r;
fail:
    free(txt);
    bsync_eval_replay_abort(r);
    return NULL;
}

int bsync_eval_replay_tick(bsync_eval_replay* r, uint64_t t, const fix16_t* targets,
                           const bsync_switch_trigger* triggers, uint32_t trigger_count, uint64_t state, uint64_t pose) {
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (t > UINT32_MAX - 1u) {
        fail("tick %llu: a replay holds ticks below 2^32", (unsigned long long)t);
        return -1;
    }
    memset(&r->in, 0, sizeof r->in);
    r->in.player_count = 1;
    bsync_match_input* in = &r->in.players[0];
    for (uint32_t i = 0; i < r->sc->columns; i++) in->params[i] = targets[r->sc->param[i]];
    for (uint32_t k = 0; k < trigger_count; k++) {
        const bsync_switch_trigger* tr = &triggers[k];
        int j = -1;
        for (uint32_t c = 0; c < r->sc->play_columns && j < 0; c++)
            if (r->sc->play_switch[c] == tr->switch_index) j = find_kind(r, c, tr);
        if (j < 0 || in->triggers[j] != 0) { /* the kinds were collected from these very cells */
            fail("tick %llu: a trigger of switch %u has no input trigger", (unsigned long long)t, tr->switch_index);
            return -1;
        }
        in->triggers[j] = (uint8_t)(tr->child + 1u);
    }
    bsync_match_checksums cs;
    int checksummed = 0;
    if (bsync_replay_recorder_tick(&r->recorder, t, &r->in, &cs, &checksummed, &err) != BSYNC_OK) {
        switch (r->recorder.failed) {
        case BSYNC_RECORDER_WRITE:
            goto write_error;
        case BSYNC_RECORDER_SAVE:
            fail("tick %llu: saving the match state failed: %s", (unsigned long long)t,
                 bsync_result_string(r->recorder.failed_result));
            return -1;
        case BSYNC_RECORDER_TICK:
            fail("tick %llu: the match tick failed", (unsigned long long)t);
            return -1;
        default:
            fail("tick %llu: the match checksums failed", (unsigned long long)t);
            return -1;
        }
    }
    if (!checksummed) { /* eval's match config checksums every tick */
        fail("tick %llu: the match checksums failed", (unsigned long long)t);
        return -1;
    }
    if (cs.character_blend[0] != state || (r->posed && cs.character_pose[0] != pose)) {
        fail("tick %llu: the recorded match's character (state %016llx, pose %016llx) differs from eval's instance "
             "(state %016llx, pose %016llx); no replay written",
             (unsigned long long)t, (unsigned long long)cs.character_blend[0],
             (unsigned long long)cs.character_pose[0], (unsigned long long)state,
             (unsigned long long)(r->posed ? pose : 0));
        return -1;
    }
    return 0;
write_error:
    fail("writing %s: %s", r->tmp, err.message);
    return -1;
}

int bsync_eval_replay_finish(bsync_eval_replay* r, uint64_t ticks) {
    bsync_error err;
    memset(&err, 0, sizeof err);
    bsync_result yr = BSYNC_OK;
    if (bsync_replay_recorder_end(&r->recorder, (uint32_t)ticks, 0, &err) != BSYNC_OK || (yr = bsync_replay_writer_sync(r->w)) != BSYNC_OK) {
        if (yr != BSYNC_OK) snprintf(err.message, sizeof err.message, "flushing to disk: %s", bsync_result_string(yr));
        fail("writing %s: %s", r->tmp, err.message);
        bsync_eval_replay_abort(r);
        return -1;
    }
    bsync_replay_writer_close(r->w);
    r->w = NULL;
    if (bsync_platform_rename(r->tmp, r->out) != 0) {
        fail("cannot rename %s to %s: %s", r->tmp, r->out, strerror(errno));
        bsync_eval_replay_abort(r);
        return -1;
    }
    r->tmp[0] = '\0';
    bsync_eval_replay_abort(r);
    return 0;
}

void bsync_eval_replay_abort(bsync_eval_replay* r) {
    if (!r) return;
    if (r->w) bsync_replay_writer_close(r->w);
    if (r->tmp[0]) remove(r->tmp);
    free(r->snap);
    bsync_platform_aligned_free(r->mem);
    bsync_match_config_destroy(r->mc);
    free(r);
}
