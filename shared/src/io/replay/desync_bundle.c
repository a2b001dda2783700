/* desync_bundle.c — the desync bundle (desync_bundle.h): written by the server and the client, read by
 * `blendsync desync`. */
#include "blendsync/io/desync_bundle.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal/alloc.h"
#include "blendsync/fixed.h"
#include "blendsync/io/file.h"
#include "blendsync/io/trail.h"
#include "file_internal.h"
#include "platform.h"

/* ---- writing ---- */

static int path_join(char* out, size_t cap, const char* dir, const char* name) {
    int n = snprintf(out, cap, "%s/%s", dir, name);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Text appended to out (cap bytes) while counting what the whole needs: the size-then-fill pattern of
 * bsync_desync_inputs_csv. */
typedef struct text_out {
    char* out;
    size_t cap, len;
} text_out;

static void put_bytes(text_out* t, const char* s, size_t n) {
    if (t->out && t->len < t->cap) {
        const size_t room = t->cap - 1u - t->len < n ? t->cap - 1u - t->len : n;
        memcpy(t->out + t->len, s, room);
        t->out[t->len + room] = '\0';
    }
    t->len += n;
}

static void put(text_out* t, const char* s) { put_bytes(t, s, strlen(s)); }

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
static void putf(text_out* t, const char* fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) put_bytes(t, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1u);
}

/* s with & < > " ' as HTML entities. */
static void put_html(text_out* t, const char* s) {
    for (const char* run = s;; s++) {
        const char* ent = *s == '&' ? "&amp;" : *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '"' ? "&quot;"
                          : *s == '\'' ? "&#39;" : NULL;
        if (!ent && *s) continue;
        put_bytes(t, run, (size_t)(s - run));
        if (!*s) return;
        put(t, ent);
        run = s + 1;
    }
}

static size_t text_end(const text_out* t) {
    if (t->out && t->cap && t->len >= t->cap) t->out[t->cap - 1u] = '\0';
    return t->len;
}

/* ROOT/tick<T>-slot<S> into out; -1 when it does not fit. */
static int bundle_dir(const bsync_desync_bundle_desc* d, char* out, size_t cap) {
    int n = snprintf(out, cap, "%s/tick%u-slot%u", d->root, d->tick, d->slot);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int add_int(cJSON* obj, const char* key, long long v) {
    char num[32];
    snprintf(num, sizeof num, "%lld", v); /* exact, whatever cJSON's double would print */
    return cJSON_AddRawToObject(obj, key, num) != NULL;
}

static int add_u64(cJSON* obj, const char* key, uint64_t v) {
    char num[32];
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    return cJSON_AddRawToObject(obj, key, num) != NULL;
}

static int add_hex(cJSON* obj, const char* key, uint64_t v) {
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)v);
    return cJSON_AddStringToObject(obj, key, hex) != NULL;
}

/* A file's name, or null when the bundle does not hold it. */
static int add_name(cJSON* obj, const char* key, const char* name, int present) {
    return (present ? cJSON_AddStringToObject(obj, key, name) : cJSON_AddNullToObject(obj, key)) != NULL;
}

/* "pose_joints": the pose-only desync's character and joints, or null. */
static int add_pose(cJSON* obj, const bsync_desync_bundle_pose* p) {
    if (!p) return cJSON_AddNullToObject(obj, "pose_joints") != NULL;
    cJSON* o = cJSON_AddObjectToObject(obj, "pose_joints");
    const uint32_t listed = p->joint_count < BSYNC_DESYNC_BUNDLE_JOINTS_MAX ? p->joint_count : BSYNC_DESYNC_BUNDLE_JOINTS_MAX;
    int ok = o && add_int(o, "tick", p->tick) && add_int(o, "agreed_tick", p->agreed_tick) &&
             add_int(o, "character", p->character) &&
             cJSON_AddStringToObject(o, "character_name", p->character_name) != NULL && add_int(o, "compared", p->compared) &&
             add_int(o, "differing", p->differing > listed ? p->differing : listed);
    cJSON* js = ok ? cJSON_AddArrayToObject(o, "joints") : NULL;
    ok = js != NULL;
    for (uint32_t i = 0; ok && i < listed; i++) {
        cJSON* j = cJSON_CreateObject();
        ok = j && cJSON_AddItemToArray(js, j) && add_int(j, "index", p->joints[i].index) &&
             cJSON_AddStringToObject(j, "name", p->joints[i].name) != NULL && add_hex(j, "server", p->joints[i].server) &&
             add_hex(j, "client", p->joints[i].client);
    }
    return ok;
}

static cJSON* meta_object(const bsync_desync_bundle_desc* d) {
    cJSON* o = cJSON_CreateObject();
    if (!o) return NULL;
    int ok = add_int(o, "format", BSYNC_DESYNC_BUNDLE_FORMAT) && add_u64(o, "match_id", d->match_id) &&
             add_hex(o, "match_hash", d->match_hash) &&
             (d->match_config ? cJSON_AddStringToObject(o, "match_config", d->match_config)
                              : cJSON_AddNullToObject(o, "match_config")) != NULL &&
             add_int(o, "tick", d->tick) && add_int(o, "slot", d->slot) &&
             add_name(o, "server", "server.bsms", d->server_state != NULL) &&
             add_name(o, "client", "client.bsms", d->client_state != NULL) &&
             add_name(o, "server_previous", "server-previous.bsms", d->server_previous != NULL) &&
             add_int(o, "previous_tick", d->previous_tick) && add_name(o, "inputs", "inputs.csv", d->match != NULL) &&
             add_name(o, "client_trail", "client-trail.bstrail", d->client_trail != NULL) &&
             add_int(o, "first_divergent_tick", d->first_divergent_tick) &&
             add_int(o, "first_divergent_character", d->first_divergent_character) && add_pose(o, d->pose) &&
             cJSON_AddStringToObject(o, "build", d->build ? d->build : "") != NULL;
    cJSON* assets = ok ? cJSON_AddObjectToObject(o, "assets") : NULL;
    ok = assets != NULL;
    for (uint32_t i = 0; ok && i < d->asset_count; i++) ok = add_hex(assets, d->asset_names[i], d->asset_hashes[i]);
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

size_t bsync_desync_bundle_json(const bsync_desync_bundle_desc* d, char* out, size_t cap) {
    if (out && cap) out[0] = '\0';
    if (!d || (d->asset_count && (!d->asset_names || !d->asset_hashes))) return 0;
    for (uint32_t i = 0; i < d->asset_count; i++)
        if (!d->asset_names[i]) return 0;
    cJSON* o = meta_object(d);
    char* flat = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    if (!flat) return 0;
    /* cJSON's compact text with a space after each ':' and ',' between tokens: one line, as earlier
     * servers wrote it (and as people grep it) */
    text_out t = {out, cap, 0};
    int in_string = 0;
    for (const char* c = flat; *c; c++) {
        put_bytes(&t, c, 1);
        if (in_string) {
            if (*c == '\\' && c[1]) put_bytes(&t, ++c, 1);
            else if (*c == '"') in_string = 0;
        } else if (*c == '"') {
            in_string = 1;
        } else if (*c == ':' || *c == ',') {
            put(&t, " ");
        }
    }
    put(&t, "\n");
    cJSON_free(flat);
    return text_end(&t);
}

size_t bsync_desync_bundle_html(const bsync_desync_bundle_desc* d, char* out, size_t cap) {
    if (out && cap) out[0] = '\0';
    if (!d || !d->root || (d->check_count && !d->checks)) return 0;
    char dir[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    if (bundle_dir(d, dir, sizeof dir) != 0) return 0;
    const uint32_t players = d->player_count < BSYNC_MATCH_MAX_PLAYERS ? d->player_count : BSYNC_MATCH_MAX_PLAYERS;
    text_out t = {out, cap, 0};
    putf(&t, "<!doctype html><html><head><meta charset=\"utf-8\"><title>blendsync desync: match %llu tick %u slot %u</title>",
         (unsigned long long)d->match_id, d->tick, d->slot);
    put(&t, "<style>body{font:14px sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid "
            "#ccc;padding:2px 6px;font-family:monospace}.ok{background:#dfd}.bad{background:#f99;font-weight:bold}"
            ".none{color:#aaa}tr.mark td{outline:2px solid #c00}pre{background:#f6f6f6;padding:1em}</style></head><body>\n");
    putf(&t, "<h1>Desync: match %llu, slot %u, tick %u</h1>\n", (unsigned long long)d->match_id, d->slot, d->tick);
    put(&t, "<p>Blend-state checksums per checksum tick (first 8 hex digits): the server's authoritative value and "
            "each client's report. Green agrees with the server, red differs; the first divergent tick is outlined.</p>"
            "<table><tr><th>tick</th><th>server</th>");
    for (uint32_t pl = 0; pl < players; pl++) putf(&t, "<th>slot %u</th>", pl);
    put(&t, "</tr>\n");
    for (uint32_t i = 0; i < d->check_count; i++) {
        const bsync_desync_bundle_check* ck = &d->checks[i];
        putf(&t, "<tr%s><td>%u</td><td>%08llx</td>", ck->tick == d->tick ? " class=\"mark\"" : "", ck->tick,
             (unsigned long long)(ck->server >> 32));
        for (uint32_t pl = 0; pl < players; pl++) {
            if (!(ck->client_mask & (1u << pl))) put(&t, "<td class=\"none\">-</td>");
            else
                putf(&t, "<td class=\"%s\">%08llx</td>", ck->client[pl] == ck->server ? "ok" : "bad",
                     (unsigned long long)(ck->client[pl] >> 32));
        }
        put(&t, "</tr>\n");
    }
    putf(&t, "</table>\n<h2>What differs (server vs client %u)</h2>\n<pre>", d->slot);
    put_html(&t, d->report ? d->report : "");
    put(&t, "</pre>\n<p>Files: server.bsms, client.bsms, server-previous.bsms, client-trail.bstrail, inputs.csv, bundle.json. "
            "<code>blendsync desync diff ");
    put_html(&t, dir);
    put(&t, "</code> prints the same comparison.</p></body></html>\n");
    return text_end(&t);
}

/* A name on one line: control characters as '?'. */
static void put_name(text_out* t, const char* s) {
    for (; *s; s++) put_bytes(t, (unsigned char)*s < 0x20 || *s == 0x7f ? "?" : s, 1);
}

size_t bsync_desync_bundle_pose_text(const bsync_desync_bundle_pose* p, char* out, size_t cap) {
    if (out && cap) out[0] = '\0';
    if (!p) return 0;
    const uint32_t listed = p->joint_count < BSYNC_DESYNC_BUNDLE_JOINTS_MAX ? p->joint_count : BSYNC_DESYNC_BUNDLE_JOINTS_MAX;
    const uint32_t differing = p->differing > listed ? p->differing : listed;
    text_out t = {out, cap, 0};
    putf(&t, "pose: character %u (", p->character);
    put_name(&t, p->character_name);
    putf(&t, "): its pose checksums first differed at tick %lld", p->tick);
    if (p->agreed_tick >= 0) putf(&t, " (the check before, tick %lld, agreed)", p->agreed_tick);
    if (p->compared == 0)
        put(&t, "; no per-joint checksums were compared (the client sent none, or not as many as the skeleton has), so no joint is named\n");
    else if (differing == 0)
        putf(&t, "; all %u of its joints' checksums agree (only the character's pose checksum differs)\n", p->compared);
    else
        putf(&t, "; %u of its %u joints differ%s\n", differing, p->compared, differing == 1 ? "s:" : ":");
    for (uint32_t i = 0; i < listed; i++) {
        putf(&t, "  joint %u ", p->joints[i].index);
        put_name(&t, p->joints[i].name);
        putf(&t, ": server %016llx, client %016llx\n", (unsigned long long)p->joints[i].server,
             (unsigned long long)p->joints[i].client);
    }
    if (differing > listed) putf(&t, "  and %u more joints (not named)\n", differing - listed);
    return text_end(&t);
}

/* One file of the bundle; the first failure is kept in *rc and err. */
static void write_part(const char* dir, const char* name, const void* data, size_t len, bsync_result* rc, bsync_error* err) {
    char path[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    bsync_result r = path_join(path, sizeof path, dir, name) == 0 ? bsync_file_write(path, data, len) : BSYNC_LIMIT_EXCEEDED;
    if (r == BSYNC_OK || *rc != BSYNC_OK) return;
    *rc = r;
    if (r == BSYNC_LIMIT_EXCEEDED) bsync_io_set_error(err, r, "%s/%s: the path is too long", dir, name);
    else if (r == BSYNC_IO_ERROR) bsync_io_set_error(err, r, "cannot write %s: %s", path, strerror(errno));
    else bsync_io_set_error(err, r, "cannot write %s: %s", path, bsync_result_string(r));
}

/* A text made by one of the size-then-fill functions above, written as one file. */
static void write_text(const char* dir, const char* name, size_t (*make)(const bsync_desync_bundle_desc*, char*, size_t),
                       const bsync_desync_bundle_desc* d, bsync_result* rc, bsync_error* err) {
    const size_t need = make(d, NULL, 0);
    char* text = need ? (char*)malloc(need + 1u) : NULL;
    if (!text) {
        if (*rc == BSYNC_OK) bsync_io_set_error(err, *rc = BSYNC_OUT_OF_MEMORY, "%s/%s: out of memory", dir, name);
        return;
    }
    make(d, text, need + 1u);
    write_part(dir, name, text, need, rc, err);
    free(text);
}

static size_t make_inputs(const bsync_desync_bundle_desc* d, char* out, size_t cap) {
    return bsync_desync_inputs_csv(d->match, d->names, d->frames, d->defaulted, d->frame_first, d->frame_count, out, cap);
}

bsync_result bsync_desync_bundle_write(const bsync_desync_bundle_desc* d, char* dir_out, size_t cap, bsync_error* err) {
    if (dir_out && cap) dir_out[0] = '\0';
    if (!d || !d->root || (d->asset_count && (!d->asset_names || !d->asset_hashes)) ||
        (d->check_count && !d->checks) || (d->frame_count && !d->frames)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_write: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    char dir[BSYNC_DESYNC_BUNDLE_PATH_MAX];
    if (bundle_dir(d, dir, sizeof dir) != 0) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED, "%.400s: the bundle's path is too long", d->root);
        return BSYNC_LIMIT_EXCEEDED;
    }
    (void)bsync_platform_mkdir(d->root); /* its parent is the caller's */
    if (bsync_platform_mkdir(dir) != 0) {
        bsync_io_set_error(err, BSYNC_IO_ERROR, "cannot make %s: %s", dir, strerror(errno));
        return BSYNC_IO_ERROR;
    }
    if (dir_out && cap) snprintf(dir_out, cap, "%s", dir);
    bsync_result rc = BSYNC_OK;
    const struct {
        const char* name;
        const uint8_t* data;
        size_t len;
    } states[] = {{"server.bsms", d->server_state, d->server_state_len},
                  {"client.bsms", d->client_state, d->client_state_len},
                  {"server-previous.bsms", d->server_previous, d->server_previous_len},
                  {"client-previous.bsms", d->client_previous, d->client_previous_len},
                  {"client-trail.bstrail", d->client_trail, d->client_trail_len}};
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++)
        if (states[i].data) write_part(dir, states[i].name, states[i].data, states[i].len, &rc, err);
    const int server = d->side == BSYNC_DESYNC_BUNDLE_SERVER;
    if (d->report) write_part(dir, server ? "report.txt" : "desync.txt", d->report, strlen(d->report), &rc, err);
    if (server) write_text(dir, "report.html", bsync_desync_bundle_html, d, &rc, err);
    if (d->match) write_text(dir, "inputs.csv", make_inputs, d, &rc, err);
    if (server) write_text(dir, "bundle.json", bsync_desync_bundle_json, d, &rc, err);
    if (rc == BSYNC_OK) bsync_io_set_error(err, BSYNC_OK, "%s", "");
    return rc;
}

/* ---- reading bundle.json ---- */

/* Any string of the tree (keys included) holding a control character (JSON's \b \f \n \r \t). */
static int has_control(const cJSON* item) {
    for (; item; item = item->next) {
        const char* strs[2] = {item->string, cJSON_IsString(item) ? item->valuestring : NULL};
        for (int i = 0; i < 2; i++)
            for (const char* c = strs[i]; c && *c; c++)
                if ((unsigned char)*c < 0x20) return 1;
        if (has_control(item->child)) return 1;
    }
    return 0;
}

/* The text with every backslash doubled: an earlier server's unescaped strings, taken literally. */
static cJSON* parse_literal(const char* text, size_t len) {
    size_t extra = 0;
    for (size_t i = 0; i < len; i++) extra += text[i] == '\\';
    if (extra == 0) return NULL;
    char* lit = (char*)malloc(len + extra + 1u);
    if (!lit) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\\') lit[n++] = '\\';
        lit[n++] = text[i];
    }
    lit[n] = '\0';
    cJSON* root = cJSON_ParseWithLength(lit, n);
    free(lit);
    return root;
}

/* bundle.json's object: "format" >= 2 as JSON; without it (an earlier writer) literally when JSON does not
 * read it or gives a control character. NULL: no JSON object. */
static cJSON* parse_meta(const char* given, size_t len, int* format, int* no_memory) {
    len = strnlen(given, len); /* up to the first NUL, as from a file */
    char* text = (char*)malloc(len + 1u); /* cJSON reads NUL-terminated text */
    *no_memory = text == NULL;
    if (!text) return NULL;
    memcpy(text, given, len);
    text[len] = '\0';
    cJSON* root = cJSON_ParseWithLength(text, len + 1u);
    if (root && !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        root = NULL;
    }
    const cJSON* f = root ? cJSON_GetObjectItemCaseSensitive(root, "format") : NULL;
    if (f && cJSON_IsNumber(f) && f->valuedouble >= 2 && f->valuedouble < 1e9) {
        *format = (int)f->valuedouble;
        free(text);
        return root;
    }
    if (!root || has_control(root->child)) {
        cJSON* lit = parse_literal(text, len);
        if (lit && cJSON_IsObject(lit)) {
            cJSON_Delete(root);
            root = lit;
        } else {
            cJSON_Delete(lit);
        }
    }
    free(text);
    *format = root ? 1 : 0;
    return root;
}

static const char* get_string(const cJSON* obj, const char* key) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An integral number within +-2^53 as *out; else *out unchanged. */
static void get_int(const cJSON* obj, const char* key, long long* out) {
    const cJSON* v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsNumber(v)) return;
    const double d = v->valuedouble;
    if (d >= -9007199254740992.0 && d <= 9007199254740992.0 && d == (double)(long long)d) *out = (long long)d;
}

static int parse_hex64(const char* s, uint64_t* out) {
    if (!s || strlen(s) != 16) return -1;
    uint64_t v = 0;
    for (int i = 0; i < 16; i++) {
        const char c = s[i];
        const unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
                           : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                           : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                                  : 16u;
        if (d > 15) return -1;
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

/* s cut to cap - 1 bytes, not inside a UTF-8 sequence. */
static void copy_cut(char* out, size_t cap, const char* s) {
    size_t n = strlen(s);
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    }
    memcpy(out, s, n);
    out[n] = '\0';
}

/* A member that names a file: a string, or null / absent. */
static int names_file(const cJSON* obj, const char* key) { return get_string(obj, key) != NULL; }

/* An integral number in 0 .. 2^32 - 1 as *out, 0; else -1 and *out unchanged. */
static int get_u32(const cJSON* obj, const char* key, uint32_t* out) {
    long long v = -1;
    get_int(obj, key, &v);
    if (v < 0 || v > 0xFFFFFFFFll) return -1;
    *out = (uint32_t)v;
    return 0;
}

/* "pose_joints" (format 3; absent or null before): into *p, 1; 0 when there is none or it lacks its
 * character or tick. A joint without an index is skipped; a checksum that is not 16 hex digits reads 0. */
static int read_pose(const cJSON* root, bsync_desync_bundle_pose* p) {
    const cJSON* o = cJSON_GetObjectItemCaseSensitive(root, "pose_joints");
    memset(p, 0, sizeof *p);
    p->tick = p->agreed_tick = -1;
    if (!cJSON_IsObject(o) || get_u32(o, "character", &p->character) != 0) return 0;
    get_int(o, "tick", &p->tick);
    get_int(o, "agreed_tick", &p->agreed_tick);
    if (p->tick < 0) return 0;
    if (p->agreed_tick < -1) p->agreed_tick = -1;
    const char* cname = get_string(o, "character_name");
    copy_cut(p->character_name, sizeof p->character_name, cname ? cname : "");
    (void)get_u32(o, "compared", &p->compared);
    (void)get_u32(o, "differing", &p->differing);
    const cJSON* js = cJSON_GetObjectItemCaseSensitive(o, "joints");
    for (const cJSON* j = cJSON_IsArray(js) ? js->child : NULL; j && p->joint_count < BSYNC_DESYNC_BUNDLE_JOINTS_MAX;
         j = j->next) {
        bsync_desync_bundle_joint* e = &p->joints[p->joint_count];
        if (!cJSON_IsObject(j) || get_u32(j, "index", &e->index) != 0) continue;
        const char* name = get_string(j, "name");
        copy_cut(e->name, sizeof e->name, name ? name : "");
        if (parse_hex64(get_string(j, "server"), &e->server) != 0) e->server = 0;
        if (parse_hex64(get_string(j, "client"), &e->client) != 0) e->client = 0;
        p->joint_count++;
    }
    if (p->differing < p->joint_count) p->differing = p->joint_count;
    return 1;
}

/* bundle.json's fields into b (b->dir and b->meta already set). */
static bsync_result bundle_fields(bsync_desync_bundle* b, const char* text, size_t len, bsync_error* err) {
    int no_memory = 0;
    cJSON* root = parse_meta(text, len, &b->format, &no_memory);
    if (no_memory) {
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        return BSYNC_OUT_OF_MEMORY;
    }
    const char* srv = root ? get_string(root, "server") : NULL;
    const char* cli = root ? get_string(root, "client") : NULL;
    const char* cfg = root ? get_string(root, "match_config") : NULL;
    bsync_result rc = BSYNC_OK;
    if (path_join(b->server_state, sizeof b->server_state, b->dir, srv ? srv : "server.bsms") ||
        path_join(b->client_state, sizeof b->client_state, b->dir, cli ? cli : "client.bsms") ||
        path_join(b->server_previous, sizeof b->server_previous, b->dir, "server-previous.bsms") ||
        path_join(b->client_trail, sizeof b->client_trail, b->dir, "client-trail.bstrail") ||
        path_join(b->inputs, sizeof b->inputs, b->dir, "inputs.csv")) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED, "%s: a state file's path is too long", b->meta);
        rc = BSYNC_LIMIT_EXCEEDED;
    } else if (cfg && strlen(cfg) >= sizeof b->match_config) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED, "%s: match_config is longer than %u bytes", b->meta,
                           (unsigned)sizeof b->match_config - 1u);
        rc = BSYNC_LIMIT_EXCEEDED;
    }
    if (rc == BSYNC_OK && root) {
        b->has_match_config = cfg != NULL;
        if (cfg) memcpy(b->match_config, cfg, strlen(cfg) + 1u);
        get_int(root, "slot", &b->slot);
        get_int(root, "tick", &b->tick);
        get_int(root, "previous_tick", &b->previous_tick);
        get_int(root, "first_divergent_tick", &b->first_divergent_tick);
        get_int(root, "first_divergent_character", &b->first_divergent_character);
        long long id = 0;
        get_int(root, "match_id", &id);
        b->match_id = id > 0 ? (uint64_t)id : 0u;
        b->has_match_hash = parse_hex64(get_string(root, "match_hash"), &b->match_hash) == 0;
        b->has_server_previous = names_file(root, "server_previous");
        b->has_inputs = names_file(root, "inputs");
        b->has_client_trail = names_file(root, "client_trail");
        const char* build = get_string(root, "build");
        if (build) copy_cut(b->build, sizeof b->build, build);
        b->has_pose = read_pose(root, &b->pose);
        const cJSON* assets = cJSON_GetObjectItemCaseSensitive(root, "assets");
        for (const cJSON* a = cJSON_IsObject(assets) ? assets->child : NULL; a && b->asset_count < BSYNC_REPLAY_MAX_ASSETS;
             a = a->next) {
            bsync_replay_asset* out = &b->assets[b->asset_count];
            if (!a->string || parse_hex64(cJSON_IsString(a) ? a->valuestring : NULL, &out->hash) != 0) continue;
            copy_cut(out->name, sizeof out->name, a->string);
            b->asset_count++;
        }
    }
    cJSON_Delete(root);
    if (rc == BSYNC_OK) bsync_io_set_error(err, BSYNC_OK, "%s", "");
    return rc;
}

static void bundle_names(bsync_desync_bundle* b, const char* dir) {
    memset(b, 0, sizeof *b);
    b->slot = b->tick = b->previous_tick = b->first_divergent_tick = b->first_divergent_character = -1;
    snprintf(b->dir, sizeof b->dir, "%s", dir);
    for (size_t n = strlen(b->dir); n > 1 && bsync_platform_is_separator(b->dir[n - 1]); n--) b->dir[n - 1] = '\0';
    snprintf(b->meta, sizeof b->meta, "%s/bundle.json", b->dir);
}

bsync_result bsync_desync_bundle_open(const char* dir, bsync_desync_bundle* b, bsync_error* err) {
    if (!dir || !b) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_open: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bundle_names(b, dir);
    unsigned char* meta = NULL;
    size_t meta_len = 0;
    bsync_io_file_status fs;
    memset(&fs, 0, sizeof fs);
    bsync_result r = bsync_io_read_file(b->meta, &meta, &meta_len, &fs);
    if (r != BSYNC_OK) {
        bsync_io_set_error(err, BSYNC_IO_ERROR, "cannot read %s: %s", b->meta,
                           fs.sys_errno ? strerror(fs.sys_errno) : bsync_result_string(r));
        return BSYNC_IO_ERROR;
    }
    r = bundle_fields(b, (const char*)meta, meta_len, err);
    free(meta);
    return r;
}

bsync_result bsync_desync_bundle_parse(const char* dir, const char* text, size_t len, bsync_desync_bundle* b, bsync_error* err) {
    if (!dir || !b || (!text && len)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_parse: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bundle_names(b, dir);
    return bundle_fields(b, text ? text : "", len, err);
}

bsync_result bsync_desync_bundle_find_config(const bsync_desync_bundle* b, const char* match_path, char* out, size_t cap,
                                             bsync_error* err) {
    if (!b || !out || cap == 0) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_find_config: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    if (match_path) {
        snprintf(out, cap, "%s", match_path);
        return BSYNC_OK;
    }
    if (!b->has_match_config) {
        bsync_io_set_error(err, BSYNC_NOT_FOUND, "%s names no match_config: pass --match CONFIG", b->meta);
        return BSYNC_NOT_FOUND;
    }
    const char* written = b->match_config;
    if (bsync_platform_is_readable_file(written) && strlen(written) < cap) {
        memcpy(out, written, strlen(written) + 1u);
        return BSYNC_OK;
    }
    if (!bsync_platform_is_separator(written[0])) {
        int n = snprintf(out, cap, "%s/../../%s", b->dir, written);
        if (n > 0 && (size_t)n < cap && bsync_platform_is_readable_file(out)) return BSYNC_OK;
        const char* base = bsync_platform_last_separator(written);
        n = snprintf(out, cap, "%s/../../%s", b->dir, base ? base + 1 : written);
        if (n > 0 && (size_t)n < cap && bsync_platform_is_readable_file(out)) return BSYNC_OK;
    }
    out[0] = '\0';
    bsync_io_set_error(err, BSYNC_NOT_FOUND,
                       "the bundle's match config \"%s\" is not found (as written, or next to the .desync folder): pass "
                       "--match CONFIG",
                       written);
    return BSYNC_NOT_FOUND;
}

bsync_result bsync_desync_bundle_inputs_parse(const char* text, size_t len, const char* name, const bsync_match_desc* d,
                                              uint32_t first, uint32_t count, bsync_match_frame* frames,
                                              const bsync_allocator* allocator, bsync_error* err) {
    if (!d || (!text && len) || (!frames && count)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_inputs_parse: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    if (!name) name = "inputs.csv";
    bsync_allocator a = bsync_allocator_resolve(allocator);
    const size_t seen_size = (size_t)count * d->player_count + 1u;
    const size_t data_size = len + 1u;
    uint8_t* seen = bsync_allocator_alloc(&a, seen_size);
    char* data = bsync_allocator_alloc(&a, data_size); /* a copy to cut into cells */
    if (!seen || !data) {
        bsync_allocator_free(&a, seen, seen_size);
        bsync_allocator_free(&a, data, data_size);
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        return BSYNC_OUT_OF_MEMORY;
    }
    memset(seen, 0, seen_size);
    if (len) memcpy(data, text, len);
    data[len] = '\0';
    if (count) memset(frames, 0, (size_t)count * sizeof *frames);
    for (uint32_t f = 0; f < count; f++) frames[f].player_count = d->player_count;
    const uint32_t want = 3u + d->param_count + d->trigger_count;
    bsync_result rc = BSYNC_OK;
    unsigned line_no = 0;
    char* next = data;
    while (rc == BSYNC_OK && next) {
        /* the next non-empty line (as strtok on "\n" would give it) */
        while (*next == '\n') next++;
        if (!*next) break;
        char* line = next;
        char* nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
            next = nl + 1;
        } else {
            next = NULL;
        }
        line_no++;
        size_t ll = strlen(line);
        if (ll && line[ll - 1] == '\r') line[--ll] = '\0';
        char* cells[3 + BSYNC_MATCH_MAX_PARAMS + BSYNC_MATCH_MAX_TRIGGERS];
        uint32_t nc = 0;
        for (char* c = line; nc < 3u + BSYNC_MATCH_MAX_PARAMS + BSYNC_MATCH_MAX_TRIGGERS;) {
            cells[nc++] = c;
            char* comma = strchr(c, ',');
            if (!comma) break;
            *comma = '\0';
            c = comma + 1;
        }
        if (nc != want) {
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%u: %u columns, the match's inputs need %u", name, line_no, nc, want);
            rc = BSYNC_CONFIG_ERROR;
            break;
        }
        if (line_no == 1) continue; /* the header */
        char* end = NULL;
        unsigned long t = strtoul(cells[0], &end, 10), sl = strtoul(cells[1], NULL, 10);
        if (!end || *end || sl >= d->player_count) {
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%u: bad tick or slot", name, line_no);
            rc = BSYNC_CONFIG_ERROR;
            break;
        }
        if (t < first || t - first >= count) continue;
        bsync_match_input* in = &frames[t - first].players[sl];
        for (uint32_t i = 0; i < d->param_count && rc == BSYNC_OK; i++)
            if (bsync_fx_parse(cells[3 + i], strlen(cells[3 + i]), &in->params[i]) != BSYNC_OK) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%u: parameter %u: \"%s\" is not a fix16 decimal", name, line_no, i,
                                   cells[3 + i]);
                rc = BSYNC_CONFIG_ERROR;
            }
        for (uint32_t j = 0; j < d->trigger_count && rc == BSYNC_OK; j++) {
            unsigned long v = strtoul(cells[3 + d->param_count + j], &end, 10);
            if (!end || *end || v > 255) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%u: trigger %u: bad value", name, line_no, j);
                rc = BSYNC_CONFIG_ERROR;
            }
            in->triggers[j] = (uint8_t)v;
        }
        seen[(size_t)(t - first) * d->player_count + sl] = 1;
    }
    for (uint32_t f = 0; f < count && rc == BSYNC_OK; f++)
        for (uint32_t pl = 0; pl < d->player_count && rc == BSYNC_OK; pl++)
            if (!seen[(size_t)f * d->player_count + pl]) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s has no input for tick %u slot %u", name, first + f, pl);
                rc = BSYNC_CONFIG_ERROR;
            }
    bsync_allocator_free(&a, seen, seen_size);
    bsync_allocator_free(&a, data, data_size);
    if (rc == BSYNC_OK) bsync_io_set_error(err, BSYNC_OK, "%s", "");
    return rc;
}

size_t bsync_desync_bundle_inputs_rows(const char* text, size_t len) {
    size_t lines = 0;
    int in_line = 0;
    for (size_t i = 0; text && i < len; i++) {
        if (text[i] == '\n') {
            lines += (size_t)in_line;
            in_line = 0;
        } else if (text[i] != '\r') {
            in_line = 1;
        }
    }
    lines += (size_t)in_line;
    return lines > 0 ? lines - 1 : 0;
}

/* A whole file, or an error "cannot read PATH: <errno text>". */
static bsync_result read_all(const char* path, unsigned char** data, size_t* len, bsync_error* err) {
    bsync_io_file_status fs;
    memset(&fs, 0, sizeof fs);
    bsync_result r = bsync_io_read_file(path, data, len, &fs);
    if (r != BSYNC_OK)
        bsync_io_set_error(err, BSYNC_IO_ERROR, "cannot read %s: %s", path, fs.sys_errno ? strerror(fs.sys_errno) : bsync_result_string(r));
    return r == BSYNC_OK ? BSYNC_OK : BSYNC_IO_ERROR;
}

static bsync_result load_bytes(bsync_match* m, const char* path, const unsigned char* data, size_t len, bsync_error* err) {
    bsync_result r = bsync_match_load(m, data, len);
    if (r == BSYNC_MISMATCH) {
        bsync_io_set_error(err, r, "%s is a snapshot of another match (its match hash differs from the config's)", path);
        return r;
    }
    if (r != BSYNC_OK) {
        bsync_io_set_error(err, r, "%s is not a valid match snapshot (%s)", path, bsync_result_string(r));
        return r;
    }
    bsync_io_set_error(err, BSYNC_OK, "%s", "");
    return BSYNC_OK;
}

bsync_result bsync_desync_bundle_load_state(bsync_match* m, const char* path, bsync_error* err) {
    if (!m || !path) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_load_state: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    unsigned char* data = NULL;
    size_t len = 0;
    if (read_all(path, &data, &len, err) != BSYNC_OK) return BSYNC_IO_ERROR;
    bsync_result r = load_bytes(m, path, data, len, err);
    free(data);
    return r;
}

bsync_result bsync_desync_bundle_trace_memory(const bsync_desync_bundle* b, const bsync_match_config* cfg, bsync_match* work,
                                              bsync_match* other, const uint8_t* server_final, size_t server_final_len,
                                              const uint8_t* previous, size_t previous_len, const uint8_t* trail_bytes,
                                              size_t trail_len, const char* csv, size_t csv_len,
                                              const bsync_allocator* allocator, bsync_desync_trace_result* res, char* out,
                                              size_t cap, int* reproduced, bsync_error* err) {
    if (!b || !work || !other || !server_final || !res || !reproduced || (!previous && previous_len) ||
        (!trail_bytes && trail_len) || (!csv && csv_len)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_trace: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    memset(res, 0, sizeof *res);
    *reproduced = 0;
    bsync_allocator a = bsync_allocator_resolve(allocator);
    const bsync_match_desc* desc = bsync_match_get_desc(work);
    bsync_match_frame* frames = NULL;
    size_t frames_size = 0;
    uint8_t* buf = NULL;
    size_t buf_cap = 0;
    bsync_result rc;
    bsync_trail trail;
    bsync_error terr;
    memset(&terr, 0, sizeof terr);
    if (bsync_trail_parse(trail_bytes, trail_len, &trail, &terr) != BSYNC_OK) {
        bsync_io_set_error(err, BSYNC_BAD_BLOB, "%.600s: %.500s", b->client_trail, terr.message);
        rc = BSYNC_BAD_BLOB;
        goto out;
    }
    rc = load_bytes(work, b->server_previous, previous, previous_len, err);
    if (rc != BSYNC_OK) goto out;
    const uint32_t start = (uint32_t)bsync_match_tick_count(work);
    if (bsync_match_load(other, server_final, server_final_len) != BSYNC_OK) {
        bsync_io_set_error(err, BSYNC_MISMATCH, "the server's state does not load");
        rc = BSYNC_MISMATCH;
        goto out;
    }
    const uint32_t end = (uint32_t)bsync_match_tick_count(other);
    if (end < start) {
        bsync_io_set_error(err, BSYNC_MISMATCH, "server-previous.bsms is newer than server.bsms");
        rc = BSYNC_MISMATCH;
        goto out;
    }
    /* The frames to re-simulate are bounded by the bundle's own inputs (one row per tick and slot), so
     * a server.bsms whose tick lies far beyond them is refused before anything is sized by it. */
    const size_t rows = bsync_desync_bundle_inputs_rows(csv ? csv : "", csv_len);
    if ((uint64_t)(end - start) * desc->player_count > (uint64_t)rows) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED,
                           "server.bsms is the state after frame %lld but server-previous.bsms the state at the start of "
                           "tick %u: %u frames, and inputs.csv holds %zu rows (%u players a frame)",
                           (long long)end - 1, start, end - start, rows, desc->player_count);
        rc = BSYNC_LIMIT_EXCEEDED;
        goto out;
    }
    frames_size = ((size_t)(end - start) + 1u) * sizeof *frames;
    frames = bsync_allocator_alloc(&a, frames_size);
    buf_cap = bsync_match_snapshot_size_max(work);
    buf = bsync_allocator_alloc(&a, buf_cap ? buf_cap : 1);
    if (!frames || !buf) {
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        rc = BSYNC_OUT_OF_MEMORY;
        goto out;
    }
    rc = bsync_desync_bundle_inputs_parse(csv ? csv : "", csv_len, b->inputs, desc, start, end - start, frames, &a, err);
    if (rc != BSYNC_OK) goto out;
    bsync_desync_trace(work, other, cfg, frames, end - start, &trail, res, out, cap);
    size_t sl = 0;
    *reproduced = bsync_match_save(work, buf, buf_cap, &sl) == BSYNC_OK && sl == server_final_len &&
                  memcmp(buf, server_final, sl) == 0;
    bsync_io_set_error(err, BSYNC_OK, "%s", "");
out:
    bsync_allocator_free(&a, frames, frames_size);
    bsync_allocator_free(&a, buf, buf_cap ? buf_cap : 1);
    return rc;
}

bsync_result bsync_desync_bundle_trace(const bsync_desync_bundle* b, const bsync_match_config* cfg, bsync_match* work,
                                       bsync_match* other, const uint8_t* server_final, size_t server_final_len,
                                       const bsync_allocator* allocator, bsync_desync_trace_result* res, char* out,
                                       size_t cap, int* reproduced, bsync_error* err) {
    if (!b || !work || !other || !server_final || !res || !reproduced) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_trace: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    memset(res, 0, sizeof *res);
    *reproduced = 0;
    if (!bsync_platform_is_readable_file(b->client_trail)) return BSYNC_NOT_FOUND;
    unsigned char* trail_bytes = NULL;
    unsigned char* previous = NULL;
    unsigned char* csv = NULL;
    size_t trail_len = 0, previous_len = 0, csv_len = 0;
    bsync_result rc = read_all(b->client_trail, &trail_bytes, &trail_len, err);
    if (rc == BSYNC_OK) rc = read_all(b->server_previous, &previous, &previous_len, err);
    if (rc == BSYNC_OK) rc = read_all(b->inputs, &csv, &csv_len, err);
    if (rc == BSYNC_OK)
        rc = bsync_desync_bundle_trace_memory(b, cfg, work, other, server_final, server_final_len, previous, previous_len,
                                              trail_bytes, trail_len, (const char*)csv, csv_len, allocator, res, out, cap,
                                              reproduced, err);
    free(trail_bytes);
    free(previous);
    free(csv);
    return rc;
}
