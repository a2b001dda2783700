/* config.c — JSON graph configuration -> bsync_blend_tree, numbers converted exactly from their text.
 *
 * cJSON keeps only a double per number, so the text is scanned first by a small lexer that knows
 * JSON strings (escapes included) and records, in document order, the byte span of every number
 * token (a run of [0-9+-.eE] starting with '-' or a digit outside strings). A strict recognizer then
 * checks the whole text against RFC 8259 (numbers by bsync_fx_parse's grammar) and reports the first
 * error at its line:column. cJSON then parses a copy of the text in which every number token is replaced by "0" and spaces
 * of the same length (so offsets, lines and columns are unchanged and cJSON's 63-character number
 * limit and locale-dependent strtod never matter). cJSON keeps children in document order,
 * duplicates included, so the k-th number node of a depth-first walk is the k-th span; the walk
 * stores k in the node's valueint (unused otherwise: values come from the text), and a number is
 * converted from its span with bsync_fx_parse when the parser uses it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blendsync/fixed.h"
#include "blendsync/io/config.h"
#include "file_internal.h"

typedef struct span {
    size_t off, len;
} span;

typedef struct node_build {
    bsync_blend_child_ref children[BSYNC_MAX_BLEND_CHILDREN];
    uint32_t params[BSYNC_MAX_BLEND_CHILDREN];
    fix16_t thresholds[BSYNC_MAX_BLEND_CHILDREN];
    bsync_vec2 positions[BSYNC_MAX_BLEND_CHILDREN];
} node_build;

typedef struct ctx {
    const char* file;
    const char* text;
    span* spans;
    size_t span_count;
    bsync_error* err;
    char path[768];
    size_t path_len;
    /* the tree being described */
    const char* param_names[BSYNC_MAX_PARAMETERS];
    fix16_t param_defaults[BSYNC_MAX_PARAMETERS];
    uint32_t param_count;
    const char* motion_names[BSYNC_MAX_MOTIONS];
    uint32_t motion_count;
    const char* node_names[BSYNC_MAX_BLEND_NODES];
    const cJSON* node_items[BSYNC_MAX_BLEND_NODES];
    uint32_t node_count;
    bsync_blend_node_desc nodes[BSYNC_MAX_BLEND_NODES];
    node_build* builds; /* node_count entries */
} ctx;

static const char k_range_text[] = "-32767.99998 to 32767.99998";

/* ---------------------------------------------------------------- messages */

static void set_error(bsync_error* err, bsync_result code, const char* fmt, ...) {
    if (!err) return;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

/* "FILE: /path: what" with the current path. Returns BSYNC_CONFIG_ERROR. */
static bsync_result fail(ctx* c, const char* fmt, ...) {
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    set_error(c->err, BSYNC_CONFIG_ERROR, "%s: %s: %s", c->file, c->path_len ? c->path : "/", what);
    return BSYNC_CONFIG_ERROR;
}

/* Append a JSON Pointer token ("~" -> "~0", "/" -> "~1"); returns the old length for path_pop. */
static size_t path_push(ctx* c, const char* token) {
    size_t old = c->path_len, n = c->path_len;
    const size_t cap = sizeof c->path - 4;
    if (n < cap) c->path[n++] = '/';
    for (const char* s = token; *s && n < cap; s++) {
        if (*s == '~' || *s == '/') {
            c->path[n++] = '~';
            if (n < cap) c->path[n++] = *s == '~' ? '0' : '1';
        } else {
            c->path[n++] = *s;
        }
    }
    c->path[n] = '\0';
    c->path_len = n;
    return old;
}

static size_t path_push_index(ctx* c, int i) {
    char buf[16];
    snprintf(buf, sizeof buf, "%d", i);
    return path_push(c, buf);
}

static void path_pop(ctx* c, size_t old) {
    c->path_len = old;
    c->path[old] = '\0';
}

/* Quote a string for a message: at most 60 bytes shown. */
static const char* quoted(const char* s, char* buf, size_t cap) {
    size_t n = strlen(s);
    if (n > 60) snprintf(buf, cap, "\"%.57s...\"", s);
    else snprintf(buf, cap, "\"%s\"", s);
    return buf;
}

/* A list of names "a, b, c" (truncated with ", ..." beyond about 200 bytes). */
static void name_list(char* buf, size_t cap, const char* const* names, uint32_t count) {
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < count; i++) {
        if (n > 200) {
            snprintf(buf + n, cap - n, ", ...");
            return;
        }
        int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", names[i]);
        if (w < 0 || (size_t)w >= cap - n) return;
        n += (size_t)w;
    }
}

static void line_col(const char* text, size_t off, unsigned long* line, unsigned long* col) {
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
static int lex_numbers(const char* text, size_t len, span** out, size_t* count) {
    size_t cap = 64, n = 0;
    span* spans = (span*)malloc(cap * sizeof(span));
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
                span* grown = (span*)realloc(spans, 2 * cap * sizeof(span));
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
    line_col(text, at, &line, &col);
    if (r.bad_number) {
        size_t j = at;
        while (j < len && is_number_char(text[j])) j++;
        set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: %.*s is not a JSON number", name, line, col,
                  (int)(j - at > 40 ? 40 : j - at), text + at);
    } else if (r.depth > 1000) {
        set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: nested deeper than 1000 levels", name, line, col);
    } else if (at >= len) {
        set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: unexpected end of input", name, line, col);
    } else if ((unsigned char)text[at] < 0x20 || (unsigned char)text[at] >= 0x7F) {
        set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: unexpected byte 0x%02X", name, line, col,
                  (unsigned)(unsigned char)text[at]);
    } else {
        set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON: unexpected '%c'", name, line, col, text[at]);
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

/* ---------------------------------------------------------------- typed getters */

static bsync_result get_number(ctx* c, const cJSON* item, fix16_t* out, const char* expected) {
    if (!cJSON_IsNumber(item)) return fail(c, "expected %s", expected);
    const span* s = &c->spans[item->valueint];
    bsync_result r = bsync_fx_parse(c->text + s->off, s->len, out);
    if (r == BSYNC_OVERFLOW)
        return fail(c, "%.*s%s is outside the fixed-point range (%s)", (int)(s->len > 40 ? 40 : s->len),
                    c->text + s->off, s->len > 40 ? "..." : "", k_range_text);
    if (r != BSYNC_OK) return fail(c, "invalid number"); /* the lexer already refused these */
    return BSYNC_OK;
}

static int valid_name(const char* s) {
    size_t n = strlen(s);
    return n >= 1 && n < BSYNC_MAX_NAME;
}

static bsync_result check_name(ctx* c, const char* s, const char* what) {
    if (!valid_name(s))
        return fail(c, "%s name must be 1 to %d bytes long", what, BSYNC_MAX_NAME - 1);
    return BSYNC_OK;
}

/* Every field of `obj` must be in `allowed` (NULL-terminated) and appear once. `describe` says what
 * the object is, for the message ("a Simple1D node"). */
static bsync_result check_fields(ctx* c, const cJSON* obj, const char* const* allowed, const char* describe) {
    for (const cJSON* f = obj->child; f; f = f->next) {
        int known = 0;
        for (const char* const* a = allowed; *a; a++)
            if (!strcmp(*a, f->string)) known = 1;
        size_t old = path_push(c, f->string);
        if (!known) {
            char list[256];
            size_t n = 0;
            list[0] = '\0';
            for (const char* const* a = allowed; *a; a++)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", a == allowed ? "" : ", ", *a);
            return fail(c, "unknown field (%s has: %s)", describe, list);
        }
        for (const cJSON* g = obj->child; g != f; g = g->next)
            if (!strcmp(g->string, f->string)) return fail(c, "duplicate field");
        path_pop(c, old);
    }
    return BSYNC_OK;
}

static const cJSON* field(const cJSON* obj, const char* name) {
    for (const cJSON* f = obj->child; f; f = f->next)
        if (!strcmp(f->string, name)) return f;
    return NULL;
}

static bsync_result require(ctx* c, const cJSON* obj, const char* name, const cJSON** out) {
    *out = field(obj, name);
    if (!*out) return fail(c, "missing field \"%s\"", name);
    return BSYNC_OK;
}

static bsync_result find_parameter(ctx* c, const cJSON* item, uint32_t* out) {
    if (!cJSON_IsString(item)) return fail(c, "expected a string (a parameter name)");
    for (uint32_t i = 0; i < c->param_count; i++)
        if (!strcmp(c->param_names[i], item->valuestring)) {
            *out = i;
            return BSYNC_OK;
        }
    char q[80], list[300];
    if (c->param_count == 0) return fail(c, "unknown parameter %s (no parameters are declared)", quoted(item->valuestring, q, sizeof q));
    name_list(list, sizeof list, c->param_names, c->param_count);
    return fail(c, "unknown parameter %s (declared: %s)", quoted(item->valuestring, q, sizeof q), list);
}

/* ---------------------------------------------------------------- sections */

static bsync_result parse_parameters(ctx* c, const cJSON* params) {
    size_t old = path_push(c, "parameters");
    if (!cJSON_IsObject(params)) return fail(c, "expected an object of parameters");
    if (cJSON_GetArraySize(params) > BSYNC_MAX_PARAMETERS) return fail(c, "too many parameters (at most %d)", BSYNC_MAX_PARAMETERS);
    for (const cJSON* p = params->child; p; p = p->next) {
        size_t o2 = path_push(c, p->string);
        bsync_result r = check_name(c, p->string, "a parameter");
        if (r != BSYNC_OK) return r;
        for (uint32_t i = 0; i < c->param_count; i++)
            if (!strcmp(c->param_names[i], p->string)) return fail(c, "duplicate parameter name");
        if (!cJSON_IsObject(p)) return fail(c, "expected an object (e.g. {\"default\": 0})");
        static const char* const allowed[] = {"default", NULL};
        r = check_fields(c, p, allowed, "a parameter");
        if (r != BSYNC_OK) return r;
        fix16_t def = 0;
        const cJSON* d = field(p, "default");
        if (d) {
            size_t o3 = path_push(c, "default");
            r = get_number(c, d, &def, "a number");
            if (r != BSYNC_OK) return r;
            path_pop(c, o3);
        }
        c->param_names[c->param_count] = p->string;
        c->param_defaults[c->param_count] = def;
        c->param_count++;
        path_pop(c, o2);
    }
    path_pop(c, old);
    return BSYNC_OK;
}

static bsync_result resolve_child(ctx* c, const char* name, bsync_blend_child_ref* out) {
    for (uint32_t i = 0; i < c->node_count; i++)
        if (!strcmp(c->node_names[i], name)) {
            out->kind = BSYNC_CHILD_NODE;
            out->index = i;
            return BSYNC_OK;
        }
    out->kind = BSYNC_CHILD_MOTION;
    for (uint32_t i = 0; i < c->motion_count; i++)
        if (!strcmp(c->motion_names[i], name)) {
            out->index = i;
            return BSYNC_OK;
        }
    if (c->motion_count >= BSYNC_MAX_MOTIONS) return fail(c, "too many motions (at most %d)", BSYNC_MAX_MOTIONS);
    c->motion_names[c->motion_count] = name;
    out->index = c->motion_count++;
    return BSYNC_OK;
}

static bsync_result parse_node(ctx* c, uint32_t index) {
    const cJSON* obj = c->node_items[index];
    bsync_blend_node_desc* nd = &c->nodes[index];
    node_build* b = &c->builds[index];
    bsync_result r;
    size_t old = path_push(c, "nodes");
    path_push(c, obj->string);
    if (!cJSON_IsObject(obj)) return fail(c, "expected an object (a blend node)");
    const cJSON* type_item;
    if ((r = require(c, obj, "type", &type_item)) != BSYNC_OK) return r;
    size_t o2 = path_push(c, "type");
    bsync_blend_type type;
    if (!cJSON_IsString(type_item) || bsync_blend_type_from_name(type_item->valuestring, &type) != BSYNC_OK) {
        char list[300], q[80];
        const char* names[BSYNC_BLEND_TYPE_COUNT];
        for (int t = 0; t < (int)BSYNC_BLEND_TYPE_COUNT; t++) names[t] = bsync_blend_type_name((bsync_blend_type)t);
        name_list(list, sizeof list, names, BSYNC_BLEND_TYPE_COUNT);
        if (!cJSON_IsString(type_item)) return fail(c, "expected a string, one of: %s", list);
        return fail(c, "unknown type %s (valid: %s)", quoted(type_item->valuestring, q, sizeof q), list);
    }
    path_pop(c, o2);
    const char* tname = bsync_blend_type_name(type);
    char describe[64];
    snprintf(describe, sizeof describe, "a %s node", tname);

    const int is_1d = type == BSYNC_BLEND_SIMPLE_1D, is_direct = type == BSYNC_BLEND_DIRECT;
    const int is_2d = !is_1d && !is_direct;
    static const char* const f_1d[] = {"type", "parameter", "children", NULL};
    static const char* const f_2d[] = {"type", "parameters", "children", NULL};
    static const char* const f_idw[] = {"type", "parameters", "power", "children", NULL};
    static const char* const f_direct[] = {"type", "normalize", "children", NULL};
    const char* const* allowed = is_1d ? f_1d : is_direct ? f_direct : type == BSYNC_BLEND_INVERSE_DISTANCE_2D ? f_idw : f_2d;
    if ((r = check_fields(c, obj, allowed, describe)) != BSYNC_OK) return r;

    memset(nd, 0, sizeof *nd);
    nd->name = c->node_names[index];
    nd->space.type = type;
    nd->children = b->children;
    nd->params = b->params;
    nd->space.thresholds = b->thresholds;
    nd->space.positions = b->positions;

    if (is_1d) {
        const cJSON* p;
        if ((r = require(c, obj, "parameter", &p)) != BSYNC_OK) return r;
        o2 = path_push(c, "parameter");
        if ((r = find_parameter(c, p, &b->params[0])) != BSYNC_OK) return r;
        path_pop(c, o2);
    } else if (is_2d) {
        const cJSON* p;
        if ((r = require(c, obj, "parameters", &p)) != BSYNC_OK) return r;
        o2 = path_push(c, "parameters");
        if (!cJSON_IsArray(p) || cJSON_GetArraySize(p) != 2) return fail(c, "expected an array of 2 parameter names (x, y)");
        int k = 0;
        for (const cJSON* e = p->child; e; e = e->next, k++) {
            size_t o3 = path_push_index(c, k);
            if ((r = find_parameter(c, e, &b->params[k])) != BSYNC_OK) return r;
            path_pop(c, o3);
        }
        path_pop(c, o2);
        const cJSON* pw = field(obj, "power");
        if (pw) {
            o2 = path_push(c, "power");
            fix16_t v;
            if (!cJSON_IsNumber(pw) || get_number(c, pw, &v, "an integer from 1 to 8") != BSYNC_OK || (v & 0xFFFF) != 0 ||
                v < BSYNC_FX_ONE || v > 8 * BSYNC_FX_ONE)
                return fail(c, "expected an integer from 1 to 8");
            nd->space.power = (uint32_t)(v >> 16);
            path_pop(c, o2);
        }
    } else {
        const cJSON* nz = field(obj, "normalize");
        if (nz) {
            o2 = path_push(c, "normalize");
            if (!cJSON_IsBool(nz)) return fail(c, "expected true or false");
            nd->space.normalize = cJSON_IsTrue(nz) ? 1 : 0;
            path_pop(c, o2);
        }
    }

    const cJSON* children;
    if ((r = require(c, obj, "children", &children)) != BSYNC_OK) return r;
    o2 = path_push(c, "children");
    int count = cJSON_IsArray(children) ? cJSON_GetArraySize(children) : 0;
    if (!cJSON_IsArray(children) || count < 1 || count > BSYNC_MAX_BLEND_CHILDREN)
        return fail(c, "expected an array of 1 to %d children", BSYNC_MAX_BLEND_CHILDREN);
    static const char* const c_1d[] = {"motion", "threshold", NULL};
    static const char* const c_2d[] = {"motion", "position", NULL};
    static const char* const c_direct[] = {"motion", "parameter", NULL};
    const char* const* callowed = is_1d ? c_1d : is_direct ? c_direct : c_2d;
    char cdescribe[64];
    snprintf(cdescribe, sizeof cdescribe, "a %s child", tname);
    int k = 0;
    for (const cJSON* ch = children->child; ch; ch = ch->next, k++) {
        size_t o3 = path_push_index(c, k);
        if (!cJSON_IsObject(ch)) return fail(c, "expected an object (a child)");
        if ((r = check_fields(c, ch, callowed, cdescribe)) != BSYNC_OK) return r;
        const cJSON* m;
        if ((r = require(c, ch, "motion", &m)) != BSYNC_OK) return r;
        size_t o4 = path_push(c, "motion");
        if (!cJSON_IsString(m)) return fail(c, "expected a string (a motion or node name)");
        if ((r = check_name(c, m->valuestring, "a motion")) != BSYNC_OK) return r;
        if ((r = resolve_child(c, m->valuestring, &b->children[k])) != BSYNC_OK) return r;
        path_pop(c, o4);
        if (is_1d) {
            const cJSON* t;
            if ((r = require(c, ch, "threshold", &t)) != BSYNC_OK) return r;
            o4 = path_push(c, "threshold");
            if ((r = get_number(c, t, &b->thresholds[k], "a number")) != BSYNC_OK) return r;
            path_pop(c, o4);
        } else if (is_2d) {
            const cJSON* pos;
            if ((r = require(c, ch, "position", &pos)) != BSYNC_OK) return r;
            o4 = path_push(c, "position");
            if (!cJSON_IsArray(pos) || cJSON_GetArraySize(pos) != 2 || !cJSON_IsNumber(pos->child) ||
                !cJSON_IsNumber(pos->child->next))
                return fail(c, "expected an array of 2 numbers");
            size_t o5 = path_push(c, "0");
            if ((r = get_number(c, pos->child, &b->positions[k].x, "a number")) != BSYNC_OK) return r;
            path_pop(c, o5);
            o5 = path_push(c, "1");
            if ((r = get_number(c, pos->child->next, &b->positions[k].y, "a number")) != BSYNC_OK) return r;
            path_pop(c, o5);
            path_pop(c, o4);
        } else {
            const cJSON* p;
            if ((r = require(c, ch, "parameter", &p)) != BSYNC_OK) return r;
            o4 = path_push(c, "parameter");
            if ((r = find_parameter(c, p, &b->params[k])) != BSYNC_OK) return r;
            path_pop(c, o4);
        }
        path_pop(c, o3);
    }
    nd->space.child_count = (uint32_t)count;
    path_pop(c, old);
    return BSYNC_OK;
}

/* A shortest cycle through `start` (breadth-first over node children), written as "a -> b -> a". */
static void describe_cycle(ctx* c, uint32_t start, char* buf, size_t cap) {
    uint32_t prev[BSYNC_MAX_BLEND_NODES], queue[BSYNC_MAX_BLEND_NODES];
    unsigned char seen[BSYNC_MAX_BLEND_NODES] = {0};
    uint32_t head = 0, tail = 0, found = UINT32_MAX;
    queue[tail++] = start;
    while (head < tail && found == UINT32_MAX) {
        uint32_t u = queue[head++];
        const bsync_blend_node_desc* nd = &c->nodes[u];
        for (uint32_t k = 0; k < nd->space.child_count; k++) {
            if (nd->children[k].kind != BSYNC_CHILD_NODE) continue;
            uint32_t v = nd->children[k].index;
            if (v == start) {
                found = u;
                break;
            }
            if (!seen[v]) {
                seen[v] = 1;
                prev[v] = u;
                queue[tail++] = v;
            }
        }
    }
    uint32_t path[BSYNC_MAX_BLEND_NODES + 1], n = 0;
    if (found != UINT32_MAX) {
        for (uint32_t v = found; v != start; v = prev[v]) path[n++] = v;
    }
    size_t w = (size_t)snprintf(buf, cap, "%s", c->node_names[start]);
    for (uint32_t i = n; i > 0 && w < cap; i--) w += (size_t)snprintf(buf + w, cap - w, " -> %s", c->node_names[path[i - 1]]);
    if (w < cap) snprintf(buf + w, cap - w, " -> %s", c->node_names[start]);
}

static bsync_result parse_document(ctx* c, const cJSON* doc, const bsync_allocator* allocator,
                                   bsync_blend_tree** out, bsync_blend_diagnostics* diags) {
    bsync_result r;
    if (!cJSON_IsObject(doc)) return fail(c, "expected an object with \"parameters\", \"root\" and \"nodes\"");
    static const char* const top[] = {"parameters", "root", "nodes", NULL};
    if ((r = check_fields(c, doc, top, "the top level")) != BSYNC_OK) return r;
    const cJSON *params, *root, *nodes;
    if ((r = require(c, doc, "parameters", &params)) != BSYNC_OK) return r;
    if ((r = require(c, doc, "root", &root)) != BSYNC_OK) return r;
    if ((r = require(c, doc, "nodes", &nodes)) != BSYNC_OK) return r;
    if ((r = parse_parameters(c, params)) != BSYNC_OK) return r;

    size_t old = path_push(c, "nodes");
    if (!cJSON_IsObject(nodes)) return fail(c, "expected an object of blend nodes");
    int nn = cJSON_GetArraySize(nodes);
    if (nn < 1 || nn > BSYNC_MAX_BLEND_NODES) return fail(c, "expected 1 to %d nodes", BSYNC_MAX_BLEND_NODES);
    for (const cJSON* n = nodes->child; n; n = n->next) {
        size_t o2 = path_push(c, n->string);
        if ((r = check_name(c, n->string, "a node")) != BSYNC_OK) return r;
        for (uint32_t i = 0; i < c->node_count; i++)
            if (!strcmp(c->node_names[i], n->string)) return fail(c, "duplicate node name");
        c->node_names[c->node_count] = n->string;
        c->node_items[c->node_count] = n;
        c->node_count++;
        path_pop(c, o2);
    }
    path_pop(c, old);

    uint32_t root_index = UINT32_MAX;
    old = path_push(c, "root");
    if (!cJSON_IsString(root)) return fail(c, "expected a string (a node name)");
    for (uint32_t i = 0; i < c->node_count; i++)
        if (!strcmp(c->node_names[i], root->valuestring)) root_index = i;
    if (root_index == UINT32_MAX) {
        char q[80], list[300];
        name_list(list, sizeof list, c->node_names, c->node_count);
        return fail(c, "no node named %s (nodes: %s)", quoted(root->valuestring, q, sizeof q), list);
    }
    path_pop(c, old);

    c->builds = (node_build*)calloc(c->node_count, sizeof(node_build));
    if (!c->builds) {
        set_error(c->err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", c->file);
        return BSYNC_OUT_OF_MEMORY;
    }
    for (uint32_t i = 0; i < c->node_count; i++)
        if ((r = parse_node(c, i)) != BSYNC_OK) return r;

    bsync_blend_tree_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.parameter_names = c->param_names;
    desc.parameter_defaults = c->param_defaults;
    desc.parameter_count = c->param_count;
    desc.motion_names = c->motion_names;
    desc.motion_count = c->motion_count;
    desc.nodes = c->nodes;
    desc.node_count = c->node_count;
    desc.root = root_index;
    uint32_t failed = UINT32_MAX;
    r = bsync_blend_tree_create(&desc, allocator, out, diags, &failed);
    if (r == BSYNC_OK) return BSYNC_OK;
    if (r == BSYNC_OUT_OF_MEMORY) {
        set_error(c->err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", c->file);
        return r;
    }
    c->path_len = 0;
    c->path[0] = '\0';
    if (failed >= c->node_count) return fail(c, "cannot build the blend tree: %s", bsync_result_string(r));
    path_push(c, "nodes");
    path_push(c, c->node_names[failed]);
    if (r == BSYNC_CYCLE) {
        char cycle[300];
        describe_cycle(c, failed, cycle, sizeof cycle);
        return fail(c, "cycle: %s", cycle);
    }
    return fail(c, "node %s: %s", c->node_names[failed], bsync_result_string(r));
}

bsync_result bsync_config_parse(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                bsync_blend_tree** out, bsync_blend_diagnostics* diags, bsync_error* err) {
    if (err) {
        err->code = BSYNC_OK;
        err->message[0] = '\0';
    }
    if (!name) name = "config";
    if (!out || (!text && len > 0)) {
        set_error(err, BSYNC_INVALID_ARGUMENT, "%s: %s", name, bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (!text) text = "";
    ctx* c = (ctx*)calloc(1, sizeof(ctx));
    char* copy = (char*)malloc(len + 1);
    span* spans = NULL;
    size_t span_count = 0;
    if (!c || !copy || !lex_numbers(text, len, &spans, &span_count)) {
        free(c);
        free(copy);
        set_error(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", name);
        return BSYNC_OUT_OF_MEMORY;
    }
    c->file = name;
    c->text = text;
    c->spans = spans;
    c->span_count = span_count;
    c->err = err;

    memcpy(copy, text, len);
    copy[len] = '\0';
    for (size_t i = 0; i < span_count; i++) {
        copy[spans[i].off] = '0';
        for (size_t j = 1; j < spans[i].len; j++) copy[spans[i].off + j] = ' ';
    }
    bsync_result r;
    const char* end = NULL;
    cJSON* doc = NULL;
    if (!recognize(name, text, len, err)) {
        r = BSYNC_CONFIG_ERROR;
    } else if (!(doc = cJSON_ParseWithOpts(copy, &end, 1))) { /* e.g. a \u escape of a lone surrogate */
        unsigned long line, col;
        size_t off = end ? (size_t)(end - copy) : 0;
        line_col(text, off < len ? off : len, &line, &col);
        set_error(err, BSYNC_CONFIG_ERROR, "%s:%lu:%lu: invalid JSON (rejected by the JSON parser)", name, line, col);
        r = BSYNC_CONFIG_ERROR;
    } else if (number_walk(doc, 0) != span_count) {
        set_error(err, BSYNC_CONFIG_ERROR, "%s: invalid JSON: numbers could not be matched to their text", name);
        r = BSYNC_CONFIG_ERROR;
    } else {
        r = parse_document(c, doc, allocator, out, diags);
    }
    cJSON_Delete(doc);
    free(c->builds);
    free(c);
    free(spans);
    free(copy);
    return r;
}

bsync_result bsync_config_load_file(const char* path, const bsync_allocator* allocator, bsync_blend_tree** out,
                                    bsync_blend_diagnostics* diags, bsync_error* err) {
    if (!path || !out) {
        set_error(err, BSYNC_INVALID_ARGUMENT, "config: %s", bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    unsigned char* buf;
    size_t n;
    bsync_io_file_status st;
    bsync_result rr = bsync_io_read_file(path, &buf, &n, &st);
    if (rr == BSYNC_IO_ERROR) {
        set_error(err, BSYNC_IO_ERROR, "%s: cannot read: %s", path, strerror(st.sys_errno));
        return BSYNC_IO_ERROR;
    }
    if (rr != BSYNC_OK) {
        set_error(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory (file too large)", path);
        return BSYNC_OUT_OF_MEMORY;
    }
    bsync_result r = bsync_config_parse((const char*)buf, n, path, allocator, out, diags, err);
    free(buf);
    return r;
}
