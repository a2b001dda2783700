/* cli_json.c — cJSON objects printed in the tool's layout (cli_json.h). cJSON prints every leaf
 * (strings and keys escaped, raw numbers as given); this file adds only the punctuation between. */
#include "cli_json.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int g_failed; /* an add failed since the last print */

cJSON* bsync_cli_json_add(cJSON* parent, const char* key, cJSON* item) {
    int ok = parent && item &&
             (key ? cJSON_AddItemToObject(parent, key, item) : cJSON_AddItemToArray(parent, item));
    if (ok) return item;
    cJSON_Delete(item);
    g_failed = 1;
    return NULL;
}

cJSON* bsync_cli_json_str(cJSON* parent, const char* key, const char* s) {
    return bsync_cli_json_add(parent, key, s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

cJSON* bsync_cli_json_fx(cJSON* parent, const char* key, fix16_t v) {
    char buf[24];
    bsync_fx_format(v, buf, sizeof buf);
    return bsync_cli_json_add(parent, key, cJSON_CreateRaw(buf));
}

cJSON* bsync_cli_json_hex64(cJSON* parent, const char* key, uint64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v);
    return bsync_cli_json_add(parent, key, cJSON_CreateString(buf));
}

cJSON* bsync_cli_json_num(cJSON* parent, const char* key, const char* fmt, ...) {
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return bsync_cli_json_add(parent, key, cJSON_CreateRaw(buf));
}

cJSON* bsync_cli_json_dbl(cJSON* parent, const char* key, const char* fmt, double v) {
    if (!isfinite(v)) return bsync_cli_json_add(parent, key, cJSON_CreateNull());
    char buf[400]; /* "%.1f" of 1e308 */
    snprintf(buf, sizeof buf, fmt, v);
    return bsync_cli_json_add(parent, key, cJSON_CreateRaw(buf));
}

/* The text being printed: grows by doubling; `bad` after a failed allocation. */
typedef struct sbuf {
    char* p;
    size_t len, cap;
    int bad;
} sbuf;

static void put_text(sbuf* b, const char* s) {
    size_t n = strlen(s);
    if (b->bad) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char* p = realloc(b->p, cap);
        if (!p) {
            b->bad = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

/* One leaf as cJSON prints it; a stack buffer for the usual short ones. */
static void put_leaf(sbuf* b, cJSON* item) {
    char buf[256];
    if (cJSON_PrintPreallocated(item, buf, (int)sizeof buf, 0)) {
        put_text(b, buf);
        return;
    }
    char* s = cJSON_PrintUnformatted(item);
    if (s) put_text(b, s);
    else b->bad = 1;
    cJSON_free(s);
}

static void put(sbuf* b, cJSON* item, int lines, int depth) {
    const int obj = cJSON_IsObject(item);
    if (!obj && !cJSON_IsArray(item)) {
        put_leaf(b, item);
        return;
    }
    const int per_line = lines && depth == 1 && !obj;
    put_text(b, obj ? "{" : "[");
    for (cJSON* c = item->child; c; c = c->next) {
        if (per_line) put_text(b, c == item->child ? "\n  " : ",\n  ");
        else if (c != item->child) put_text(b, lines && depth == 0 && cJSON_IsArray(c) ? ",\n " : ", ");
        if (obj) {
            cJSON key; /* the member's name as a string leaf, so that cJSON escapes it */
            memset(&key, 0, sizeof key);
            key.type = cJSON_String;
            key.valuestring = c->string;
            put_leaf(b, &key);
            put_text(b, ": ");
        }
        put(b, c, lines, depth + 1);
    }
    put_text(b, obj ? "}" : "]");
}

char* bsync_cli_json_text(cJSON* root, int flags) {
    sbuf b = {NULL, 0, 0, g_failed || !root};
    g_failed = 0;
    if (!b.bad) put(&b, root, flags & BSYNC_CLI_JSON_LINES, 0);
    put_text(&b, "\n");
    if (!b.bad) return b.p;
    free(b.p);
    fputs("blendsync: out of memory\n", stderr);
    return NULL;
}

int bsync_cli_json_print(FILE* f, cJSON* root, int flags) {
    char* s = bsync_cli_json_text(root, flags);
    int rc = s && fputs(s, f) >= 0 ? 0 : -1;
    free(s);
    return rc;
}

char* bsync_cli_json_quote(const char* s) {
    cJSON* item = cJSON_CreateString(s);
    char* q = item ? cJSON_PrintUnformatted(item) : NULL;
    cJSON_Delete(item);
    return q;
}
