/* replay_sim.c — the match behind a replay (see replay_sim.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "replay_sim.h"
#include "../../shared/src/io/platform.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

/* The directory part of path ("" when none, "/" for "/x"). */
static void dir_of(const char* path, char* out, size_t cap) {
    const char* slash = bsync_platform_last_separator(path);
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
 * one). malloc'd text, or NULL. */
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

int replay_sim_config(const bsync_replay_header* h, const char* replay_path, const char* match_path,
                      const char* graph_path, bsync_match_config** out, char* used, size_t used_cap, char* msg,
                      size_t msg_cap) {
    bsync_error err;
    *out = NULL;
    if (graph_path && !match_path) {
        char abs_path[4096];
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
        bsync_result r = bsync_match_config_parse(text, strlen(text), name, "", NULL, out, &err);
        free(text);
        if (r != BSYNC_OK) {
            snprintf(msg, msg_cap, "%s", err.message);
            return -1;
        }
        if (used) snprintf(used, used_cap, "recorded %s, every character's graph %s (--graph)", name, abs_path);
        return 0;
    }
    if (match_path) {
        if (bsync_match_config_load(match_path, NULL, out, &err) != BSYNC_OK) {
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
    if (rec_dir[0] && rec_dir[0] != '/' && rep_dir[0]) snprintf(cand[n++], sizeof cand[0], "%s/%s", rep_dir, rec_dir);
    snprintf(cand[n++], sizeof cand[0], "%s", rep_dir);
    const char* name = h->config_path[0] ? h->config_path : "recorded match config";
    char first[600] = "";
    for (unsigned i = 0; i < n; i++) {
        int dup = 0;
        for (unsigned j = 0; j < i; j++) dup |= !strcmp(cand[i], cand[j]);
        if (dup) continue;
        bsync_result r = bsync_match_config_parse(h->config_text ? h->config_text : "", h->config_len, name, cand[i],
                                                  NULL, out, &err);
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

typedef struct lines_out {
    char* p;
    size_t cap, len;
    unsigned count;
} lines_out;

static void add_line(lines_out* t, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
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

unsigned replay_sim_compare(const bsync_replay_header* h, const bsync_match_config* cfg, int by_clip, char* out,
                            size_t cap) {
    lines_out t = {out, cap, 0, 0};
    if (cap) out[0] = '\0';
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
    static const char* names[BSYNC_REPLAY_MAX_ASSETS];
    static uint64_t hashes[BSYNC_REPLAY_MAX_ASSETS];
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

int replay_sim_open(replay_sim* s, const bsync_match_config* cfg, char* msg, size_t msg_cap) {
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->desc = bsync_match_config_desc(cfg);
    size_t size = bsync_match_memory_size(s->desc);
    if (size == 0) {
        snprintf(msg, msg_cap, "the match description is invalid");
        return -1;
    }
    for (int i = 0; i < 2; i++) s->mem[i] = malloc(size);
    if (!s->mem[0] || !s->mem[1] || bsync_match_init(s->mem[0], size, s->desc, &s->match) != BSYNC_OK ||
        bsync_match_init(s->mem[1], size, s->desc, &s->other) != BSYNC_OK) {
        snprintf(msg, msg_cap, "cannot set up the match (%zu bytes)", size);
        replay_sim_close(s);
        return -1;
    }
    s->buf_cap = bsync_match_snapshot_size_max(s->match);
    s->buf = malloc(s->buf_cap ? s->buf_cap : 1);
    if (!s->buf) {
        snprintf(msg, msg_cap, "out of memory");
        replay_sim_close(s);
        return -1;
    }
    return 0;
}

void replay_sim_close(replay_sim* s) {
    free(s->mem[0]);
    free(s->mem[1]);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

int replay_sim_find_snapshot(const char* path, uint32_t limit, uint32_t* tick) {
    bsync_replay_reader* r = NULL;
    bsync_error err;
    if (bsync_replay_reader_open_file(path, &r, &err) != BSYNC_OK) return 0;
    static bsync_replay_record rec;
    int found = 0;
    while (bsync_replay_reader_next(r, &rec, NULL, 0) == BSYNC_REPLAY_OK) {
        if (rec.type == BSYNC_REPLAY_SNAPSHOT && rec.snapshot.tick <= limit && (!found || rec.snapshot.tick >= *tick)) {
            *tick = rec.snapshot.tick;
            found = 1;
        }
    }
    bsync_replay_reader_close(r);
    return found;
}

void replay_json_string(FILE* f, const char* s) {
    fputc('"', f);
    for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

const char* replay_desync_kind(uint32_t kind) {
    static const char* const k[] = {"root blend", "root pose", "character blend", "character pose", "joint"};
    return kind < 5 ? k[kind] : "unknown";
}

const char* replay_end_reason(uint32_t reason) {
    static const char* const k[] = {"normal", "shutdown", "aborted"};
    return reason < 3 ? k[reason] : "unknown";
}

int replay_read_file(const char* path, uint8_t** out, size_t* len) {
    *out = NULL;
    *len = 0;
    FILE* f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 4096, n = 0;
    uint8_t* buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        uint8_t* nb = cap > ((size_t)1 << 30) ? NULL : realloc(buf, cap * 2 + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int e = !buf ? ENOMEM : ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (e) {
        free(buf);
        errno = e;
        return -1;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}


void replay_lines_json(FILE* f, const char* text, int only_indented) {
    fputc('[', f);
    int first = 1;
    const char* p = text;
    char line[1024];
    while (*p) {
        const char* e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!only_indented || (n >= 2 && p[0] == ' ' && p[1] == ' ')) {
            size_t skip = only_indented ? 2 : 0;
            size_t m = n - skip < sizeof line - 1 ? n - skip : sizeof line - 1;
            memcpy(line, p + skip, m);
            line[m] = '\0';
            if (!first) fputs(", ", f);
            replay_json_string(f, line);
            first = 0;
        }
        p += n + (e ? 1 : 0);
    }
    fputc(']', f);
}

int replay_sim_pose_all(bsync_match* m, bsync_trs* local) {
    for (uint32_t c = 0; c < bsync_match_character_count(m); c++) {
        bsync_instance* inst = bsync_match_instance(m, c);
        const bsync_graph* g = bsync_instance_graph(inst);
        if (!bsync_graph_skeleton(g)) continue;
        if (bsync_instance_pose(inst, local, NULL) != BSYNC_OK) return -1;
    }
    return 0;
}
