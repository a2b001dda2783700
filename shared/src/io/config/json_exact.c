/* json_exact.c — see json_exact.h. */
#include "file_internal.h"
#include "json_exact.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/fixed.h"

void bsync_json_line_col(const char* text, size_t off, unsigned long* line, unsigned long* col) {
    unsigned long l = 1;
    size_t start = 0;
    for (size_t i = 0; i < off; i++)
        if (text[i] == '\n') {
            l++;
            start = i + 1;
        }
    *line = l;
    *col = (unsigned long)(off - start) + 1;
}

/* ---------------------------------------------------------------- lexer */

static int is_number_char(char ch) {
    return (ch >= '0' && ch <= '9') || ch == '+' || ch == '-' || ch == '.' || ch == 'e' || ch == 'E';
}

/* Records the number spans (their grammar is checked by the recognizer below). Returns 0 when out
 * of memory. */
static int lex_numbers(const char* text, size_t len, bsync_json_span** out, size_t* count) {
    size_t cap = 64, n = 0;
    bsync_json_span* spans = (bsync_json_span*)malloc(cap * sizeof(bsync_json_span));
    if (!spans) return 0;
    int in_string = 0;
    size_t i = 0;
    while (i < len) {
        char ch = text[i];
        if (in_string) {
            if (ch == '\\') i += 2;
            else {
                if (ch == '"') in_string = 0;
                i++;
            }
            continue;
        }
        if (ch == '"') {
            in_string = 1;
            i++;
            continue;
        }
        if (ch == '-' || (ch >= '0' && ch <= '9')) {
            size_t j = i;
            while (j < len && is_number_char(text[j])) j++;
            if (n == cap) {
                bsync_json_span* grown = (bsync_json_span*)realloc(spans, 2 * cap * sizeof(bsync_json_span));
                if (!grown) {
                    free(spans);
                    return 0;
                }
                spans = grown;
                cap *= 2;
            }
            spans[n].off = i;
            spans[n].len = j - i;
            n++;
            i = j;
            continue;
        }
        i++;
    }
    *out = spans;
    *count = n;
    return 1;
}

/* A strict JSON recognizer (RFC 8259) that finds the FIRST syntax error and its offset, so messages
 * point at the offending byte (cJSON's own error offsets are sometimes one byte late). */
typedef struct rec {
    const char* s;
    size_t len, i;
    int depth;
    int bad_number; /* the error is a malformed number token at i */
} rec;

static void rec_ws(rec* r) {
    while (r->i < r->len && (r->s[r->i] == ' ' || r->s[r->i] == '\t' || r->s[r->i] == '\n' || r->s[r->i] == '\r')) r->i++;
}

static int is_hex(char ch) {
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
}

static int rec_string(rec* r) {
    r->i++; /* the opening quote */
    while (r->i < r->len) {
        unsigned char ch = (unsigned char)r->s[r->i];
        if (ch == '"') {
            r->i++;
            return 1;
        }
        if (ch < 0x20) return 0;
        if (ch == '\\') {
            r->i++;
            if (r->i >= r->len) return 0;
            ch = (unsigned char)r->s[r->i];
            if (ch == 'u') {
                for (int k = 1; k <= 4; k++)
                    if (r->i + (size_t)k >= r->len || !is_hex(r->s[r->i + (size_t)k])) {
                        r->i += (size_t)k;
                        return 0;
                    }
                r->i += 5;
            } else if (ch == '"' || ch == '\\' || ch == '/' || ch == 'b' || ch == 'f' || ch == 'n' || ch == 'r' ||
                       ch == 't') {
                r->i++;
            } else {
                return 0;
            }
        } else {
            r->i++;
        }
    }
    return 0;
}

static int rec_value(rec* r);

static int rec_literal(rec* r, const char* word) {
    size_t n = strlen(word);
    for (size_t k = 0; k < n; k++) {
        if (r->i >= r->len || r->s[r->i] != word[k]) return 0;
        r->i++;
    }
    return 1;
}

static int rec_value(rec* r) {
    rec_ws(r);
    if (r->i >= r->len) return 0;
    char ch = r->s[r->i];
    if (ch == '{' || ch == '[') {
        const char close = ch == '{' ? '}' : ']';
        if (++r->depth > 1000) return 0;
        r->i++;
        rec_ws(r);
        if (r->i < r->len && r->s[r->i] == close) {
            r->i++;
            r->depth--;
            return 1;
        }
        for (;;) {
            if (close == '}') {
                rec_ws(r);
                if (r->i >= r->len || r->s[r->i] != '"' || !rec_string(r)) return 0;
                rec_ws(r);
                if (r->i >= r->len || r->s[r->i] != ':') return 0;
                r->i++;
            }
            if (!rec_value(r)) return 0;
            rec_ws(r);
            if (r->i >= r->len) return 0;
            if (r->s[r->i] == close) {
                r->i++;
                r->depth--;
                return 1;
            }
            if (r->s[r->i] != ',') return 0;
            r->i++;
        }
    }
    if (ch == '"') return rec_string(r);
    if (ch == '-' || (ch >= '0' && ch <= '9')) {
        size_t j = r->i;
        while (j < r->len && is_number_char(r->s[j])) j++;
        fix16_t ignored;
        if (bsync_fx_parse(r->s + r->i, j - r->i, &ignored) == BSYNC_PARSE_ERROR) {
            r->bad_number = 1;
            return 0;
        }
        r->i = j;
        return 1;
    }
    if (ch == 't') return rec_literal(r, "true");
    if (ch == 'f') return rec_literal(r, "false");
    if (ch == 'n') return rec_literal(r, "null");
    return 0;
}

/* 1 when the text is one JSON value (with surrounding whitespace); else 0 with the error message. */
static int recognize(const char* name, const char* text, size_t len, bsync_error* err) {
    rec r = {text, len, 0, 0, 0};
    int ok = rec_value(&r);
    if (ok) {
        rec_ws(&r);
        ok = r.i == len;
    }
    if (ok) return 1;
    unsigned long line, col;
    size_t at = r.i < len ? r.i : len;
    bsync_json_line_col(text, at, &line, &col);
    if (r.bad_number) {
        size_t j = at;
        while (j < len && is_number_char(text[j])) j++;
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: %.*s is not a JSON number", name, line, col,
                  (int)(j - at > 40 ? 40 : j - at), text + at);
    } else if (r.depth > 1000) {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: nested deeper than 1000 levels", name, line, col);
    } else if (at >= len) {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: unexpected end of input", name, line, col);
    } else if ((unsigned char)text[at] < 0x20 || (unsigned char)text[at] >= 0x7F) {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: unexpected byte 0x%02X", name, line, col,
                  (unsigned)(unsigned char)text[at]);
    } else {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: unexpected '%c'", name, line, col, text[at]);
    }
    return 0;
}

/* Depth-first, document order: the k-th number gets valueint = k. Returns the count seen. */
static size_t number_walk(cJSON* item, size_t k) {
    for (; item; item = item->next) {
        if (cJSON_IsNumber(item)) {
            item->valueint = (int)(k < (size_t)0x7FFFFFFF ? k : 0x7FFFFFFF);
            k++;
        }
        if (item->child) k = number_walk(item->child, k);
    }
    return k;
}


bsync_result bsync_json_exact_parse(const char* name, const char* text, size_t len, bsync_json_doc* out,
                                    bsync_error* err) {
    memset(out, 0, sizeof *out);
    char* copy = (char*)malloc(len + 1);
    bsync_json_span* spans = NULL;
    size_t span_count = 0;
    if (!copy || !lex_numbers(text, len, &spans, &span_count)) {
        free(copy);
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", name);
        return BSYNC_OUT_OF_MEMORY;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    for (size_t i = 0; i < span_count; i++) {
        copy[spans[i].off] = '0';
        for (size_t j = 1; j < spans[i].len; j++) copy[spans[i].off + j] = ' ';
    }
    bsync_result r = BSYNC_OK;
    const char* end = NULL;
    cJSON* doc = NULL;
    if (!recognize(name, text, len, err)) {
        r = BSYNC_CONFIG_ERROR;
    } else if (!(doc = cJSON_ParseWithOpts(copy, &end, 1))) { /* e.g. a \u escape of a lone surrogate */
        unsigned long line, col;
        size_t off = end ? (size_t)(end - copy) : 0;
        bsync_json_line_col(text, off < len ? off : len, &line, &col);
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON (rejected by the JSON parser)", name, line, col);
        r = BSYNC_CONFIG_ERROR;
    } else if (number_walk(doc, 0) != span_count) {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: invalid JSON: numbers could not be matched to their text", name);
        r = BSYNC_CONFIG_ERROR;
    }
    free(copy);
    if (r != BSYNC_OK) {
        cJSON_Delete(doc);
        free(spans);
        return r;
    }
    out->root = doc;
    out->spans = spans;
    out->span_count = span_count;
    return BSYNC_OK;
}

void bsync_json_exact_free(bsync_json_doc* doc) {
    if (!doc) return;
    cJSON_Delete(doc->root);
    free(doc->spans);
    memset(doc, 0, sizeof *doc);
}

/* ---------------------------------------------------------------- messages and paths */

bsync_result bsync_json_fail(bsync_json_where* w, const char* fmt, ...) {
    char what[440];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    bsync_io_set_error(w->err, BSYNC_CONFIG_ERROR, "%s: %s: %s", w->file, w->path_len ? w->path : "/", what);
    return BSYNC_CONFIG_ERROR;
}

size_t bsync_json_path_push(bsync_json_where* w, const char* token) {
    size_t old = w->path_len, n = w->path_len;
    const size_t cap = sizeof w->path - 4;
    if (n < cap) w->path[n++] = '/';
    for (const char* s = token; *s && n < cap; s++) {
        if (*s == '~' || *s == '/') {
            w->path[n++] = '~';
            if (n < cap) w->path[n++] = *s == '~' ? '0' : '1';
        } else {
            w->path[n++] = *s;
        }
    }
    w->path[n] = '\0';
    w->path_len = n;
    return old;
}

size_t bsync_json_path_push_index(bsync_json_where* w, long i) {
    char buf[24];
    snprintf(buf, sizeof buf, "%ld", i);
    return bsync_json_path_push(w, buf);
}

void bsync_json_path_pop(bsync_json_where* w, size_t old) {
    w->path_len = old;
    w->path[old] = '\0';
}

const char* bsync_json_quoted(const char* s, char* buf, size_t cap) {
    size_t n = strlen(s);
    if (n > 60) snprintf(buf, cap, "\"%.57s...\"", s);
    else snprintf(buf, cap, "\"%s\"", s);
    return buf;
}

bsync_result bsync_json_check_fields(bsync_json_where* w, const cJSON* obj, const char* const* allowed,
                                     const char* describe) {
    for (const cJSON* f = obj->child; f; f = f->next) {
        int known = 0;
        for (const char* const* a = allowed; *a; a++)
            if (!strcmp(*a, f->string)) known = 1;
        size_t old = bsync_json_path_push(w, f->string);
        if (!known) {
            char list[256];
            size_t n = 0;
            list[0] = '\0';
            for (const char* const* a = allowed; *a && n < sizeof list; a++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", a == allowed ? "" : ", ", *a);
            return bsync_json_fail(w, "unknown field (%s has: %s)", describe, list);
        }
        for (const cJSON* g = obj->child; g != f; g = g->next)
            if (!strcmp(g->string, f->string)) return bsync_json_fail(w, "duplicate field");
        bsync_json_path_pop(w, old);
    }
    return BSYNC_OK;
}

const cJSON* bsync_json_field(const cJSON* obj, const char* name) {
    for (const cJSON* f = obj->child; f; f = f->next)
        if (!strcmp(f->string, name)) return f;
    return NULL;
}

bsync_result bsync_json_require(bsync_json_where* w, const cJSON* obj, const char* name, const cJSON** out) {
    *out = bsync_json_field(obj, name);
    if (!*out) return bsync_json_fail(w, "missing field \"%s\"", name);
    return BSYNC_OK;
}
