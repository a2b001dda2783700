/* replay_verify_config.c — the match config behind a replay and the refusal of a replay whose match
 * differs from it (replay_verify.h; the lookup rules in docs/replay-verify.md). */
#if !defined(_WIN32)
#define _XOPEN_SOURCE 700
#endif
#include "blendsync/io/replay_verify.h"
#include "platform.h"
#include "replay_verify_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* The directory part of path ("" when none, "/" for "/x"). */
static void dir_of(const char* path, char* out, size_t cap) {
    const char* slash = path ? bsync_platform_last_separator(path) : NULL;
    if (!slash) {
        out[0] = '\0';
        return;
    }
    size_t n = slash == path ? 1u : (size_t)(slash - path);
    if (n >= cap) n = cap - 1;
    memcpy(out, path, n);
    out[n] = '\0';
}

/* The recorded config text with every character's "graph" replaced by graph_abs (cJSON re-prints the
 * document: numbers keep their value; the match hash then tells whether the graph is the recorded
 * one). cJSON-allocated text (cJSON_free), or NULL. */
static char* with_graph(const bsync_replay_header* h, const char* graph_abs) {
    cJSON* root = cJSON_ParseWithLength(h->config_text ? h->config_text : "", h->config_len);
    if (!root) return NULL;
    cJSON* chars = cJSON_GetObjectItemCaseSensitive(root, "characters");
    cJSON* ch = NULL;
    int n = 0;
    cJSON_ArrayForEach(ch, chars) {
        if (!cJSON_IsObject(ch)) continue;
        cJSON* g = cJSON_CreateString(graph_abs);
        if (!g) break;
        if (cJSON_GetObjectItemCaseSensitive(ch, "graph")) cJSON_ReplaceItemInObjectCaseSensitive(ch, "graph", g);
        else cJSON_AddItemToObject(ch, "graph", g);
        n++;
    }
    char* text = n > 0 ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

int bsync_rv_config_load(const bsync_replay_header* h, const char* replay_path, const char* match_path,
                         const char* graph_path, const bsync_allocator* allocator, bsync_match_config** out, char* used,
                         size_t used_cap, char* msg, size_t msg_cap) {
    bsync_error err;
    memset(&err, 0, sizeof err);
    *out = NULL;
    if (graph_path && !match_path) {
        char abs_path[BSYNC_PLATFORM_PATH_MAX];
        if (!bsync_platform_realpath(graph_path, abs_path)) {
            snprintf(msg, msg_cap, "--graph %.1000s: %s", graph_path, strerror(errno));
            return -1;
        }
        char* text = with_graph(h, abs_path);
        if (!text) {
            snprintf(msg, msg_cap, "--graph: the recorded match config has no characters to give the graph");
            return -1;
        }
        const char* name = h->config_path[0] ? h->config_path : "recorded match config";
        bsync_result r = bsync_match_config_parse(text, strlen(text), name, "", allocator, out, &err);
        cJSON_free(text);
        if (r != BSYNC_OK) {
            snprintf(msg, msg_cap, "%s", err.message);
            return -1;
        }
        if (used) snprintf(used, used_cap, "recorded %s, every character's graph %s (--graph)", name, abs_path);
        return 0;
    }
    if (match_path) {
        if (bsync_match_config_load(match_path, allocator, out, &err) != BSYNC_OK) {
            snprintf(msg, msg_cap, "%s", err.message);
            return -1;
        }
        if (used) snprintf(used, used_cap, "%s (--match)", match_path);
        return 0;
    }
    char cand[3][1300];
    unsigned n = 0;
    char rec_dir[600], rep_dir[600];
    dir_of(h->config_path, rec_dir, sizeof rec_dir);
    dir_of(replay_path, rep_dir, sizeof rep_dir);
    snprintf(cand[n++], sizeof cand[0], "%s", rec_dir);
    if (rec_dir[0] && !bsync_platform_is_separator(rec_dir[0]) && rep_dir[0])
        snprintf(cand[n++], sizeof cand[0], "%s/%s", rep_dir, rec_dir);
    snprintf(cand[n++], sizeof cand[0], "%s", rep_dir);
    const char* name = h->config_path[0] ? h->config_path : "recorded match config";
    char first[600] = "";
    for (unsigned i = 0; i < n; i++) {
        int dup = 0;
        for (unsigned j = 0; j < i; j++) dup |= !strcmp(cand[i], cand[j]);
        if (dup) continue;
        bsync_result r = bsync_match_config_parse(h->config_text ? h->config_text : "", h->config_len, name, cand[i],
                                                  allocator, out, &err);
        if (r == BSYNC_OK) {
            if (used)
                snprintf(used, used_cap, "recorded %s (graphs from %s)", name, cand[i][0] ? cand[i] : "the current directory");
            return 0;
        }
        if (i == 0) snprintf(first, sizeof first, "%s", err.message);
    }
    snprintf(msg, msg_cap, "cannot load the recorded match config: %s (pass --match CONFIG)", first);
    return -1;
}

bsync_result bsync_replay_verify_config_load(const bsync_replay_header* header, const char* replay_path,
                                             const char* match_path, const char* graph_path,
                                             const bsync_allocator* allocator, bsync_match_config** out, char* used,
                                             size_t used_cap, bsync_error* err) {
    char msg[sizeof err->message];
    if (out) *out = NULL;
    if (!header || !out) {
        if (err) {
            err->code = BSYNC_INVALID_ARGUMENT;
            snprintf(err->message, sizeof err->message, "bsync_replay_verify_config_load: NULL header or out");
        }
        return BSYNC_INVALID_ARGUMENT;
    }
    if (bsync_rv_config_load(header, replay_path, match_path, graph_path, allocator, out, used, used_cap, msg,
                             sizeof msg) != 0) {
        if (err) {
            err->code = BSYNC_CONFIG_ERROR;
            snprintf(err->message, sizeof err->message, "%s", msg);
        }
        return BSYNC_CONFIG_ERROR;
    }
    if (err) {
        err->code = BSYNC_OK;
        err->message[0] = '\0';
    }
    return BSYNC_OK;
}

typedef struct lines_out {
    char* p;
    size_t cap, len;
    unsigned count;
} lines_out;

static void add_line(lines_out* t, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void add_line(lines_out* t, const char* fmt, ...) {
    t->count++;
    if (t->len + 1 >= t->cap) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (k > 0) t->len = (size_t)k < t->cap - t->len ? t->len + (size_t)k : t->cap - 1;
}
#define APPEND(...) add_line(&t, __VA_ARGS__)

/* An asset's name for comparing: "GRAPH:CLIP" as recorded, or only CLIP when by_clip (--graph: the
 * graph file's name differs from the recorded one by construction; the hashes still decide). */
static const char* asset_key(const char* name, int by_clip) {
    const char* colon = by_clip ? strrchr(name, ':') : NULL;
    return colon ? colon + 1 : name;
}

unsigned bsync_replay_verify_compare(const bsync_replay_header* h, const bsync_match_config* cfg, int by_clip, char* out,
                                     size_t cap) {
    lines_out t = {out, out ? cap : 0, 0, 0};
    if (t.cap) out[0] = '\0';
    if (!h) return 0;
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    if (h->format_version != BSYNC_REPLAY_FORMAT_VERSION)
        APPEND("format version: replay %u, here %u\n", h->format_version, BSYNC_REPLAY_FORMAT_VERSION);
    uint64_t here = bsync_match_hash(d);
    if (h->match_hash != here)
        APPEND("match hash mismatch (graphs, input layout or characters differ): replay %016" PRIx64 ", here %016" PRIx64 "\n",
               h->match_hash, here);
    uint32_t rate = bsync_match_config_tick_rate(cfg);
    if (h->tick_rate != rate) APPEND("tick rate: replay %u Hz, here %u Hz\n", h->tick_rate, rate);
    if (d && h->player_count != d->player_count) APPEND("players: replay %u, here %u\n", h->player_count, d->player_count);
    if (d && h->param_count != d->param_count)
        APPEND("input parameters: replay %u, here %u\n", h->param_count, d->param_count);
    if (d && h->trigger_count != d->trigger_count)
        APPEND("input triggers: replay %u, here %u\n", h->trigger_count, d->trigger_count);
    if (d && h->character_count != d->character_count)
        APPEND("characters: replay %u, here %u\n", h->character_count, d->character_count);
    const char* names[BSYNC_REPLAY_MAX_ASSETS];
    uint64_t hashes[BSYNC_REPLAY_MAX_ASSETS];
    uint32_t n = bsync_match_config_asset_hashes(cfg, names, hashes, BSYNC_REPLAY_MAX_ASSETS);
    if (n > BSYNC_REPLAY_MAX_ASSETS) n = BSYNC_REPLAY_MAX_ASSETS;
    for (uint32_t i = 0; i < h->asset_count; i++) {
        uint32_t k = 0;
        while (k < n && strcmp(asset_key(names[k], by_clip), asset_key(h->assets[i].name, by_clip)) != 0) k++;
        if (k == n)
            APPEND("asset missing here: clip %s (replay %016" PRIx64 ")\n", h->assets[i].name, h->assets[i].hash);
        else if (hashes[k] != h->assets[i].hash)
            APPEND("asset hash mismatch: clip %s (replay %016" PRIx64 ", here %016" PRIx64 ")\n", h->assets[i].name,
                   h->assets[i].hash, hashes[k]);
    }
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = 0;
        while (i < h->asset_count && strcmp(asset_key(names[k], by_clip), asset_key(h->assets[i].name, by_clip)) != 0) i++;
        if (i == h->asset_count) APPEND("asset missing in the replay: clip %s (here %016" PRIx64 ")\n", names[k], hashes[k]);
    }
    return t.count;
}
#undef APPEND

const char* bsync_replay_desync_kind_name(uint32_t kind) {
    static const char* const k[] = {"root blend", "root pose", "character blend", "character pose", "joint"};
    return kind < 5 ? k[kind] : "unknown";
}

const char* bsync_replay_end_reason_name(uint32_t reason) {
    static const char* const k[] = {"normal", "shutdown", "aborted"};
    return reason < 3 ? k[reason] : "unknown";
}
