/* script.c — the graph and input CSV scripts (blendsync/io/script.h, docs/scripts.md). */
#include "blendsync/io/script.h"

#include <stdio.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "file_internal.h"
#include "internal/alloc.h"

enum { SCRIPT_GRAPH = 1, SCRIPT_INPUTS = 2 };
enum { SCRIPT_BLOCKS = 8 };
/* input scripts: at most this many columns */
#define INPUT_COLUMNS_MAX (BSYNC_MATCH_MAX_PARAMS + BSYNC_MATCH_MAX_TRIGGERS)

struct bsync_script {
    bsync_allocator alloc;
    int kind;
    uint32_t columns;          /* value columns */
    uint32_t* index;           /* columns: graph parameter, or match parameter / trigger */
    unsigned char* is_trigger; /* columns */
    uint32_t play_columns;
    uint32_t* play_switch;     /* play_columns */
    size_t rows;
    uint64_t* tick;                 /* rows */
    int32_t* value;                 /* rows * columns */
    unsigned char* given;           /* rows * columns */
    bsync_switch_trigger* play;     /* rows * play_columns */
    unsigned char* play_given;      /* rows * play_columns */
    void* block[SCRIPT_BLOCKS];     /* every allocation above, freed by destroy */
    size_t block_size[SCRIPT_BLOCKS];
    uint32_t blocks;
};

/* n * size, or SIZE_MAX when that overflows (the allocation then fails). */
static size_t mul(size_t n, size_t size) {
    return size && n > SIZE_MAX / size ? SIZE_MAX : n * size;
}

/* Zeroed memory of n * size bytes (at least 1) owned by s; NULL when out of memory. */
static void* take(bsync_script* s, size_t n, size_t size) {
    size_t bytes = mul(n ? n : 1, size);
    if (bytes == SIZE_MAX || s->blocks == SCRIPT_BLOCKS) return NULL;
    void* p = bsync_allocator_alloc(&s->alloc, bytes);
    if (!p) return NULL;
    memset(p, 0, bytes);
    s->block[s->blocks] = p;
    s->block_size[s->blocks++] = bytes;
    return p;
}

static bsync_result out_of_memory(bsync_error* err) {
    bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
    return BSYNC_OUT_OF_MEMORY;
}

void bsync_script_destroy(bsync_script* s) {
    if (!s) return;
    bsync_allocator al = s->alloc;
    for (uint32_t i = 0; i < s->blocks; i++) bsync_allocator_free(&al, s->block[i], s->block_size[i]);
    bsync_allocator_free(&al, s, sizeof *s);
}

static bsync_script* script_new(const bsync_allocator* allocator, int kind) {
    bsync_allocator al = bsync_allocator_resolve(allocator);
    bsync_script* s = (bsync_script*)bsync_allocator_alloc(&al, sizeof *s);
    if (!s) return NULL;
    memset(s, 0, sizeof *s);
    s->alloc = al;
    s->kind = kind;
    return s;
}

static size_t count_lines(const char* text, size_t len) {
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    return lines;
}

/* ------------------------------------------------------------------------------------ graph scripts */

/* Split one line (no newline) into fields at commas: starts and lengths, trimmed of spaces/tabs. */
static size_t split(const char* line, size_t len, size_t* start, size_t* flen, size_t cap) {
    size_t n = 0, i = 0;
    for (;;) {
        size_t b = i;
        while (i < len && line[i] != ',') i++;
        size_t e = i;
        while (b < e && (line[b] == ' ' || line[b] == '\t')) b++;
        while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t')) e--;
        if (n < cap) {
            start[n] = b;
            flen[n] = e - b;
        }
        n++;
        if (i >= len) break;
        i++;
    }
    return n;
}

/* The name of child k of node n (a motion's or a node's). */
static const char* child_name(const bsync_blend_tree* tree, uint32_t n, uint32_t k) {
    bsync_blend_child_ref r = bsync_blend_tree_node_child(tree, n, k);
    return r.kind == BSYNC_CHILD_NODE ? bsync_blend_tree_node_name(tree, r.index) : bsync_blend_tree_motion_name(tree, r.index);
}

/* "a, b, c" of the switch nodes' names, or "none". */
static void switch_list(const bsync_graph* graph, char* buf, size_t cap) {
    const bsync_blend_tree* tree = bsync_graph_tree(graph);
    size_t w = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < bsync_graph_switch_count(graph) && w + 70 < cap; i++)
        w += (size_t)snprintf(buf + w, cap - w, "%s%s", i ? ", " : "",
                              bsync_blend_tree_node_name(tree, bsync_graph_switch_node(graph, i)));
    if (!buf[0]) snprintf(buf, cap, "none");
}

/* One play cell "STATE [fade=N] [carry] [inertialize]" of switch sw -> *t. `inertialize` needs fade=N
 * with N >= 1 and a graph with a skeleton (docs/instance.md "Inertialization"). */
static bsync_result parse_play_cell(const char* name, unsigned long lineno, const char* cell, size_t len, size_t col0,
                                    const bsync_graph* graph, uint32_t sw, bsync_switch_trigger* t, bsync_error* err) {
    const bsync_blend_tree* tree = bsync_graph_tree(graph);
    const uint32_t node = bsync_graph_switch_node(graph, sw);
    const uint32_t cc = bsync_blend_tree_node_child_count(tree, node);
    memset(t, 0, sizeof *t);
    t->switch_index = sw;
    size_t i = 0;
    int tok = 0, have_fade = 0, have_carry = 0;
    size_t inert_col = 0; /* column of `inertialize`, 0 if absent */
    while (i < len) {
        while (i < len && (cell[i] == ' ' || cell[i] == '\t')) i++;
        if (i >= len) break;
        size_t b = i;
        while (i < len && cell[i] != ' ' && cell[i] != '\t') i++;
        const char* w = cell + b;
        size_t wl = i - b;
        const size_t col = col0 + b + 1;
        if (tok++ == 0) {
            uint32_t found = UINT32_MAX;
            for (uint32_t k = 0; k < cc && found == UINT32_MAX; k++) {
                const char* cn = child_name(tree, node, k);
                if (strlen(cn) == wl && !memcmp(cn, w, wl)) found = k;
            }
            if (found == UINT32_MAX) {
                char list[400];
                size_t lw = 0;
                list[0] = '\0';
                for (uint32_t k = 0; k < cc && lw + 70 < sizeof list; k++)
                    lw += (size_t)snprintf(list + lw, sizeof list - lw, "%s%s", k ? ", " : "", child_name(tree, node, k));
                bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:%zu: no state \"%.*s\" in switch \"%s\" (states: %s)",
                                   name, lineno, col, (int)(wl > 60 ? 60 : wl), w, bsync_blend_tree_node_name(tree, node),
                                   list);
                return BSYNC_PARSE_ERROR;
            }
            t->child = found;
        } else if (wl > 5 && !memcmp(w, "fade=", 5) && !have_fade) {
            uint64_t v = 0;
            int ok = wl - 5 <= 8;
            for (size_t k = 5; ok && k < wl; k++) {
                if (w[k] < '0' || w[k] > '9') ok = 0;
                else v = v * 10 + (uint64_t)(w[k] - '0');
            }
            if (!ok || v > BSYNC_SWITCH_MAX_FADE_TICKS) {
                bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                                   "%s:%lu:%zu: fade must be a whole number of ticks from 0 to %u, not \"%.*s\"", name,
                                   lineno, col + 5, (unsigned)BSYNC_SWITCH_MAX_FADE_TICKS,
                                   (int)(wl - 5 > 40 ? 40 : wl - 5), w + 5);
                return BSYNC_PARSE_ERROR;
            }
            t->fade_ticks = (uint32_t)v;
            have_fade = 1;
        } else if (wl == 5 && !memcmp(w, "carry", 5) && !have_carry) {
            t->carry_time = 1;
            have_carry = 1;
        } else if (wl == 11 && !memcmp(w, "inertialize", 11) && !inert_col) {
            t->inertialize = 1;
            inert_col = col;
        } else {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                               "%s:%lu:%zu: unexpected \"%.*s\" (a play cell is: STATE [fade=N] [carry], each option once)",
                               name, lineno, col, (int)(wl > 40 ? 40 : wl), w);
            return BSYNC_PARSE_ERROR;
        }
    }
    if (inert_col && t->fade_ticks == 0) {
        bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                           "%s:%lu:%zu: inertialize needs fade=N with N from 1 to %u (the decay length)", name, lineno,
                           inert_col, (unsigned)BSYNC_SWITCH_MAX_FADE_TICKS);
        return BSYNC_PARSE_ERROR;
    }
    if (inert_col && !bsync_graph_skeleton(graph)) {
        bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                           "%s:%lu:%zu: inertialize needs a graph with a skeleton (it offsets the pose)", name, lineno,
                           inert_col);
        return BSYNC_PARSE_ERROR;
    }
    return BSYNC_OK;
}

/* The header's column c (0 < c < n): a parameter (kind 0) or a play:NODE column (kind 1). */
static bsync_result graph_header_column(bsync_script* s, const char* name, unsigned long lineno, const char* line,
                                        size_t st, size_t fl, const bsync_graph* graph, unsigned char* kind,
                                        uint32_t* kidx, bsync_error* err) {
    const bsync_blend_tree* tree = bsync_graph_tree(graph);
    char col[BSYNC_MAX_NAME + 8];
    if (fl == 0 || fl >= sizeof col) {
        bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:%zu: expected a parameter name", name, lineno, st + 1);
        return BSYNC_PARSE_ERROR;
    }
    memcpy(col, line + st, fl);
    col[fl] = '\0';
    if (!strncmp(col, "play:", 5)) {
        const char* node_name = col + 5;
        uint32_t node = UINT32_MAX, sw = UINT32_MAX;
        char list[400];
        switch_list(graph, list, sizeof list);
        if (bsync_blend_tree_find_node(tree, node_name, &node) != BSYNC_OK) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:%zu: \"%s\": no node named \"%s\" (switch nodes: %s)",
                               name, lineno, st + 1, col, node_name, list);
            return BSYNC_PARSE_ERROR;
        }
        for (uint32_t i = 0; i < bsync_graph_switch_count(graph); i++)
            if (bsync_graph_switch_node(graph, i) == node) sw = i;
        if (sw == UINT32_MAX) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                               "%s:%lu:%zu: \"%s\": node \"%s\" is not a Switch node (switch nodes: %s)", name, lineno,
                               st + 1, col, node_name, list);
            return BSYNC_PARSE_ERROR;
        }
        for (uint32_t d = 0; d < s->play_columns; d++)
            if (s->play_switch[d] == sw) {
                bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:%zu: duplicate column \"%s\"", name, lineno, st + 1,
                                   col);
                return BSYNC_PARSE_ERROR;
            }
        *kind = 1;
        *kidx = s->play_columns;
        s->play_switch[s->play_columns++] = sw;
        return BSYNC_OK;
    }
    uint32_t p;
    if (bsync_blend_tree_find_parameter(tree, col, &p) != BSYNC_OK) {
        const uint32_t pc = bsync_blend_tree_parameter_count(tree);
        char list[400];
        size_t w = 0;
        list[0] = '\0';
        for (uint32_t i = 0; i < pc && w + 70 < sizeof list; i++)
            w += (size_t)snprintf(list + w, sizeof list - w, "%s%s", i ? ", " : "", bsync_blend_tree_parameter_name(tree, i));
        bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:%zu: unknown parameter \"%s\" (parameters: %s)", name, lineno,
                           st + 1, col, pc ? list : "none");
        return BSYNC_PARSE_ERROR;
    }
    for (uint32_t d = 0; d < s->columns; d++)
        if (s->index[d] == p) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:%zu: duplicate column \"%s\"", name, lineno, st + 1, col);
            return BSYNC_PARSE_ERROR;
        }
    *kind = 0;
    *kidx = s->columns;
    s->index[s->columns++] = p;
    return BSYNC_OK;
}

/* One row's cells after its tick (fields 1 .. n-1) into row s->rows. */
static bsync_result graph_row_cells(bsync_script* s, const char* name, unsigned long lineno, const char* line,
                                    const size_t* st, const size_t* fl, size_t n, const unsigned char* kind,
                                    const uint32_t* kidx, const bsync_graph* graph, bsync_error* err) {
    const bsync_blend_tree* tree = bsync_graph_tree(graph);
    for (size_t f = 1; f < n; f++) {
        if (fl[f] == 0) continue;
        if (kind[f] == 1) {
            const size_t at = s->rows * s->play_columns + kidx[f];
            bsync_result r = parse_play_cell(name, lineno, line + st[f], fl[f], st[f], graph, s->play_switch[kidx[f]],
                                             &s->play[at], err);
            if (r != BSYNC_OK) return r;
            s->play_given[at] = 1;
            continue;
        }
        const uint32_t c = kidx[f];
        fix16_t v;
        bsync_result r = bsync_fx_parse(line + st[f], fl[f], &v);
        if (r == BSYNC_OVERFLOW) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                               "%s:%lu:%zu: %.*s is outside the fixed-point range (-32767.99998 to 32767.99998)", name,
                               lineno, st[f] + 1, (int)(fl[f] > 40 ? 40 : fl[f]), line + st[f]);
            return BSYNC_PARSE_ERROR;
        }
        if (r != BSYNC_OK) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:%zu: \"%.*s\" is not a number (column \"%s\")", name,
                               lineno, st[f] + 1, (int)(fl[f] > 40 ? 40 : fl[f]), line + st[f],
                               bsync_blend_tree_parameter_name(tree, s->index[c]));
            return BSYNC_PARSE_ERROR;
        }
        s->value[s->rows * s->columns + c] = v;
        s->given[s->rows * s->columns + c] = 1;
    }
    return BSYNC_OK;
}

/* The row's tick (field 0): a whole number 0 .. 999999999 above the previous row's. */
static bsync_result graph_row_tick(const bsync_script* s, const char* name, unsigned long lineno, const char* line,
                                   size_t st, size_t fl, uint64_t* out, bsync_error* err) {
    uint64_t t = 0;
    int ok = fl > 0 && fl <= 9;
    for (size_t i = 0; ok && i < fl; i++) {
        char ch = line[st + i];
        if (ch < '0' || ch > '9') ok = 0;
        else t = t * 10 + (uint64_t)(ch - '0');
    }
    if (!ok) {
        bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:%zu: tick must be a whole number from 0 to 999999999, not \"%.*s\"",
                           name, lineno, st + 1, (int)(fl > 40 ? 40 : fl), line + st);
        return BSYNC_PARSE_ERROR;
    }
    if (s->rows > 0 && t <= s->tick[s->rows - 1]) {
        bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                           "%s:%lu:%zu: tick %llu does not follow the previous row's tick %llu (rows must be sorted by "
                           "tick, one row per tick)",
                           name, lineno, st + 1, (unsigned long long)t, (unsigned long long)s->tick[s->rows - 1]);
        return BSYNC_PARSE_ERROR;
    }
    *out = t;
    return BSYNC_OK;
}

/* Per header column c >= 1 of a graph script: its kind (0 parameter, 1 play) and index into that
 * kind's columns; st / fl: the fields of the line being read. */
typedef struct graph_fields {
    size_t cap;
    size_t* st;
    size_t* fl;
    uint32_t* kidx;
    unsigned char* kind;
} graph_fields;

static bsync_result parse_graph_lines(bsync_script* s, const char* text, size_t len, size_t lines, const char* name,
                                      const bsync_graph* graph, const graph_fields* g, bsync_error* err) {
    size_t *st = g->st, *fl = g->fl;
    int header_done = 0;
    size_t pos = 0, fields = 0;
    unsigned long lineno = 0;
    bsync_result r;
    while (pos < len || (!header_done && pos == len && lineno == 0)) {
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        lineno++;
        const char* line = text + pos;
        size_t ll = end - pos;
        if (ll && line[ll - 1] == '\r') ll--;
        pos = end + 1;
        size_t k = 0;
        while (k < ll && (line[k] == ' ' || line[k] == '\t')) k++;
        if (k == ll) { /* blank */
            if (end >= len) break;
            continue;
        }
        size_t n = split(line, ll, st, fl, g->cap);
        if (!header_done) {
            if (n > g->cap) {
                bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                                   "%s:%lu:1: too many columns (at most %d parameters and %u play columns)", name, lineno,
                                   BSYNC_MAX_PARAMETERS, BSYNC_GRAPH_MAX_SWITCHES);
                return BSYNC_PARSE_ERROR;
            }
            if (fl[0] != 4 || memcmp(line + st[0], "tick", 4) != 0) {
                bsync_io_set_error(err, BSYNC_PARSE_ERROR,
                                   "%s:%lu:%zu: the first column must be \"tick\" (header: tick,PARAM,...)", name, lineno,
                                   st[0] + 1);
                return BSYNC_PARSE_ERROR;
            }
            for (size_t c = 1; c < n; c++)
                if ((r = graph_header_column(s, name, lineno, line, st[c], fl[c], graph, &g->kind[c], &g->kidx[c],
                                             err)) != BSYNC_OK)
                    return r;
            fields = n;
            s->value = (int32_t*)take(s, mul(lines, s->columns), sizeof(int32_t));
            s->given = (unsigned char*)take(s, mul(lines, s->columns), 1);
            s->play = (bsync_switch_trigger*)take(s, mul(lines, s->play_columns), sizeof(bsync_switch_trigger));
            s->play_given = (unsigned char*)take(s, mul(lines, s->play_columns), 1);
            if (!s->value || !s->given || !s->play || !s->play_given) return out_of_memory(err);
            header_done = 1;
            if (end >= len) break;
            continue;
        }
        if (n != fields) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%lu:1: expected %zu fields (as the header), found %zu", name,
                               lineno, fields, n);
            return BSYNC_PARSE_ERROR;
        }
        uint64_t t;
        if ((r = graph_row_tick(s, name, lineno, line, st[0], fl[0], &t, err)) != BSYNC_OK) return r;
        if ((r = graph_row_cells(s, name, lineno, line, st, fl, n, g->kind, g->kidx, graph, err)) != BSYNC_OK) return r;
        s->tick[s->rows++] = t;
        if (end >= len) break;
    }
    if (!header_done) {
        bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s: empty script (expected a header line \"tick,PARAM,...\")", name);
        return BSYNC_PARSE_ERROR;
    }
    return BSYNC_OK;
}

static bsync_result parse_graph(bsync_script* s, const char* text, size_t len, const char* name, const bsync_graph* graph,
                                bsync_error* err) {
    graph_fields g;
    g.cap = (size_t)BSYNC_MAX_PARAMETERS + BSYNC_GRAPH_MAX_SWITCHES + 2;
    const size_t lines = count_lines(text, len);
    const size_t tmp_bytes = g.cap * (2 * sizeof(size_t) + sizeof(uint32_t) + 1);
    unsigned char* tmp = (unsigned char*)bsync_allocator_alloc(&s->alloc, tmp_bytes);
    s->index = (uint32_t*)take(s, g.cap, sizeof(uint32_t));
    s->play_switch = (uint32_t*)take(s, g.cap, sizeof(uint32_t));
    s->tick = (uint64_t*)take(s, lines, sizeof(uint64_t));
    bsync_result r;
    if (!tmp || !s->index || !s->play_switch || !s->tick) {
        r = out_of_memory(err);
    } else {
        memset(tmp, 0, tmp_bytes);
        g.st = (size_t*)(void*)tmp;
        g.fl = g.st + g.cap;
        g.kidx = (uint32_t*)(void*)(g.fl + g.cap);
        g.kind = (unsigned char*)(g.kidx + g.cap);
        r = parse_graph_lines(s, text, len, lines, name, graph, &g, err);
    }
    bsync_allocator_free(&s->alloc, tmp, tmp_bytes);
    return r;
}

bsync_result bsync_script_parse(const char* text, size_t len, const char* name, const bsync_graph* graph,
                                const bsync_allocator* allocator, bsync_script** out, bsync_error* err) {
    if (out) *out = NULL;
    if (!out || !graph || (!text && len)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_script_parse: a NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bsync_script* s = script_new(allocator, SCRIPT_GRAPH);
    if (!s) return out_of_memory(err);
    bsync_result r = parse_graph(s, text ? text : "", len, name ? name : "script", graph, err);
    if (r != BSYNC_OK) {
        bsync_script_destroy(s);
        return r;
    }
    *out = s;
    return BSYNC_OK;
}

/* Read path whole for a load: BSYNC_OK, or the error set ("PATH: cannot read[: REASON]"). */
static bsync_result read_text(const char* path, const bsync_allocator* allocator, int with_reason, unsigned char** text,
                              size_t* len, size_t* cap, bsync_error* err) {
    bsync_io_file_status st;
    bsync_result r = bsync_io_read_file_alloc(NULL, path, allocator, text, len, cap, &st);
    if (r == BSYNC_OUT_OF_MEMORY) return out_of_memory(err);
    if (r != BSYNC_OK) {
        if (!with_reason) bsync_io_set_error(err, r, "%s: cannot read", path);
        else if (r == BSYNC_LIMIT_EXCEEDED) bsync_io_set_error(err, r, "%s: cannot read: larger than 2 GiB", path);
        else bsync_io_set_error(err, r, "%s: cannot read: %s", path, strerror(st.sys_errno));
    }
    return r;
}

bsync_result bsync_script_load(const char* path, const bsync_graph* graph, const bsync_allocator* allocator,
                               bsync_script** out, bsync_error* err) {
    if (out) *out = NULL;
    if (!path || !graph || !out) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_script_load: a NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bsync_allocator al = bsync_allocator_resolve(allocator);
    unsigned char* text = NULL;
    size_t len = 0, cap = 0;
    bsync_result r = read_text(path, &al, 1, &text, &len, &cap, err);
    if (r != BSYNC_OK) return r;
    r = bsync_script_parse((const char*)text, len, path, graph, &al, out, err);
    bsync_allocator_free(&al, text, cap);
    return r;
}

uint32_t bsync_script_apply(const bsync_script* s, size_t* row, uint64_t tick, fix16_t* targets,
                            bsync_switch_trigger* triggers) {
    uint32_t n = 0;
    if (!s || !row || s->kind != SCRIPT_GRAPH || *row >= s->rows || s->tick[*row] != tick) return 0;
    const size_t r = *row;
    for (uint32_t c = 0; c < s->columns; c++)
        if (s->given[r * s->columns + c] && targets) targets[s->index[c]] = s->value[r * s->columns + c];
    for (uint32_t c = 0; c < s->play_columns; c++)
        if (s->play_given[r * s->play_columns + c] && triggers) triggers[n++] = s->play[r * s->play_columns + c];
    (*row)++;
    return n;
}

/* ------------------------------------------------------------------------------------ input scripts */

/* The next comma-separated field of line[*pos .. len): *b, *e, trimmed of leading spaces/tabs and
 * trailing spaces/tabs/CRs. 0 when no field is left (after the last one *pos = SIZE_MAX). */
static int next_field(const char* line, size_t len, size_t* pos, size_t* b, size_t* e) {
    if (*pos == SIZE_MAX) return 0;
    size_t i = *pos;
    while (i < len && line[i] != ',') i++;
    size_t x = *pos, y = i;
    *pos = i < len ? i + 1 : SIZE_MAX;
    while (x < y && (line[x] == ' ' || line[x] == '\t')) x++;
    while (y > x && (line[y - 1] == ' ' || line[y - 1] == '\t' || line[y - 1] == '\r')) y--;
    *b = x;
    *e = y;
    return 1;
}

/* A whole field as the bot always read it: strtoull base 10 in the C locale (leading white space and
 * one sign allowed, a '-' wraps, overflow gives UINT64_MAX), the text fully used, not starting with
 * '-'. 0 on success. */
static int parse_whole_u64(const char* s, size_t n, uint64_t* out) {
    if (n == 0 || s[0] == '-') return -1;
    size_t i = 0;
    while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
    int neg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (i == n) return -1;
    uint64_t v = 0;
    int over = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        const uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) over = 1;
        else v = v * 10 + d;
    }
    *out = over ? UINT64_MAX : neg ? (uint64_t)0 - v : v;
    return 0;
}

static bsync_result input_header(bsync_script* s, const char* name, unsigned lineno, const char* line, size_t len,
                                 size_t pos, const bsync_match_config* mc, bsync_error* err) {
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    size_t b, e;
    while (next_field(line, len, &pos, &b, &e)) {
        const char* f = line + b;
        const size_t fl = e - b;
        uint32_t index = 0;
        int found = 0, trigger = 0;
        for (uint32_t i = 0; i < d->param_count && !found; i++) {
            const char* pn = bsync_match_config_param_name(mc, i);
            if (strlen(pn) == fl && !memcmp(pn, f, fl)) index = i, found = 1;
        }
        for (uint32_t j = 0; j < d->trigger_count && !found; j++) {
            const char* tn = bsync_match_config_trigger_name(mc, j);
            if (strlen(tn) == fl && !memcmp(tn, f, fl)) index = j, found = trigger = 1;
        }
        if (!found || s->columns == INPUT_COLUMNS_MAX) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%u: \"%.*s\" is not an input parameter or trigger of the match",
                               name, lineno, (int)(fl > 4096 ? 4096 : fl), f);
            return BSYNC_PARSE_ERROR;
        }
        s->is_trigger[s->columns] = (unsigned char)trigger;
        s->index[s->columns++] = index;
    }
    return BSYNC_OK;
}

static bsync_result input_row(bsync_script* s, const char* name, unsigned lineno, const char* line, size_t len,
                              size_t pos, bsync_error* err) {
    const size_t r = s->rows;
    size_t b, e;
    for (uint32_t k = 0; k < s->columns; k++) {
        if (!next_field(line, len, &pos, &b, &e) || b == e) continue;
        const char* f = line + b;
        const int fl = (int)(e - b > 4096 ? 4096 : e - b);
        int32_t v = 0;
        if (s->is_trigger[k]) {
            uint64_t u = 0;
            if (parse_whole_u64(f, e - b, &u) || u > 255) {
                bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%u: trigger value \"%.*s\": expected 0..255", name,
                                   lineno, fl, f);
                return BSYNC_PARSE_ERROR;
            }
            v = (int32_t)u;
        } else if (bsync_fx_parse(f, e - b, &v) != BSYNC_OK || v == INT32_MIN) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%u: \"%.*s\" is not a number in the fix16 range", name, lineno,
                               fl, f);
            return BSYNC_PARSE_ERROR;
        }
        s->value[r * s->columns + k] = v;
        s->given[r * s->columns + k] = 1;
    }
    return BSYNC_OK;
}

static bsync_result parse_inputs(bsync_script* s, const char* text, size_t len, const char* name,
                                 const bsync_match_config* mc, bsync_error* err) {
    const size_t lines = count_lines(text, len);
    s->index = (uint32_t*)take(s, INPUT_COLUMNS_MAX, sizeof(uint32_t));
    s->is_trigger = (unsigned char*)take(s, INPUT_COLUMNS_MAX, 1);
    s->tick = (uint64_t*)take(s, lines, sizeof(uint64_t));
    if (!s->index || !s->is_trigger || !s->tick) return out_of_memory(err);
    size_t pos = 0;
    unsigned lineno = 0;
    int header = 1;
    bsync_result r;
    while (pos < len) {
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        const char* line = text + pos;
        const int newline = end < len;
        size_t ll = end - pos;
        pos = newline ? end + 1 : len;
        lineno++;
        if (newline && (ll == 0 || (ll == 1 && line[0] == '\r'))) continue; /* an empty line */
        const char* nul = (const char*)memchr(line, '\0', ll);
        if (nul) ll = (size_t)(nul - line); /* a line ends at a NUL byte */
        size_t at = 0, b, e;
        next_field(line, ll, &at, &b, &e);
        if (header) {
            if (e - b != 4 || memcmp(line + b, "tick", 4) != 0) {
                bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%u: the header must start with \"tick\"", name, lineno);
                return BSYNC_PARSE_ERROR;
            }
            if ((r = input_header(s, name, lineno, line, ll, at, mc, err)) != BSYNC_OK) return r;
            s->value = (int32_t*)take(s, mul(lines, s->columns), sizeof(int32_t));
            s->given = (unsigned char*)take(s, mul(lines, s->columns), 1);
            if (!s->value || !s->given) return out_of_memory(err);
            header = 0;
            continue;
        }
        uint64_t t = 0;
        if (parse_whole_u64(line + b, e - b, &t) || t > UINT32_MAX || (s->rows && t <= s->tick[s->rows - 1])) {
            bsync_io_set_error(err, BSYNC_PARSE_ERROR, "%s:%u: expected a tick greater than the previous row's", name,
                               lineno);
            return BSYNC_PARSE_ERROR;
        }
        if ((r = input_row(s, name, lineno, line, ll, at, err)) != BSYNC_OK) return r;
        s->tick[s->rows++] = t;
    }
    return BSYNC_OK;
}

bsync_result bsync_script_parse_inputs(const char* text, size_t len, const char* name, const bsync_match_config* config,
                                       const bsync_allocator* allocator, bsync_script** out, bsync_error* err) {
    if (out) *out = NULL;
    if (!out || !config || (!text && len)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_script_parse_inputs: a NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bsync_script* s = script_new(allocator, SCRIPT_INPUTS);
    if (!s) return out_of_memory(err);
    bsync_result r = parse_inputs(s, text ? text : "", len, name ? name : "script", config, err);
    if (r != BSYNC_OK) {
        bsync_script_destroy(s);
        return r;
    }
    *out = s;
    return BSYNC_OK;
}

bsync_result bsync_script_load_inputs(const char* path, const bsync_match_config* config,
                                      const bsync_allocator* allocator, bsync_script** out, bsync_error* err) {
    if (out) *out = NULL;
    if (!path || !config || !out) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_script_load_inputs: a NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bsync_allocator al = bsync_allocator_resolve(allocator);
    unsigned char* text = NULL;
    size_t len = 0, cap = 0;
    bsync_result r = read_text(path, &al, 0, &text, &len, &cap, err);
    if (r != BSYNC_OK) return r;
    r = bsync_script_parse_inputs((const char*)text, len, path, config, &al, out, err);
    bsync_allocator_free(&al, text, cap);
    return r;
}

void bsync_script_input(const bsync_script* s, uint64_t tick, bsync_match_input* input) {
    if (!input) return;
    memset(input, 0, sizeof *input);
    if (!s || s->kind != SCRIPT_INPUTS) return;
    for (size_t r = 0; r < s->rows && s->tick[r] <= tick; r++)
        for (uint32_t k = 0; k < s->columns; k++) {
            if (!s->given[r * s->columns + k]) continue;
            const int32_t v = s->value[r * s->columns + k];
            if (!s->is_trigger[k]) input->params[s->index[k]] = v;
            else if (s->tick[r] == tick) input->triggers[s->index[k]] = (uint8_t)v;
        }
}

/* ------------------------------------------------------------------------------------ accessors */

size_t bsync_script_row_count(const bsync_script* s) {
    return s ? s->rows : 0;
}

uint64_t bsync_script_row_tick(const bsync_script* s, size_t row) {
    return s && row < s->rows ? s->tick[row] : 0;
}

uint32_t bsync_script_column_count(const bsync_script* s) {
    return s ? s->columns : 0;
}

uint32_t bsync_script_column_index(const bsync_script* s, uint32_t c) {
    return s && c < s->columns ? s->index[c] : UINT32_MAX;
}

int bsync_script_column_is_trigger(const bsync_script* s, uint32_t c) {
    return s && c < s->columns && s->is_trigger ? s->is_trigger[c] : 0;
}

int bsync_script_cell(const bsync_script* s, size_t row, uint32_t c, int32_t* value) {
    if (!s || row >= s->rows || c >= s->columns || !s->given[row * s->columns + c]) return 0;
    if (value) *value = s->value[row * s->columns + c];
    return 1;
}

uint32_t bsync_script_play_column_count(const bsync_script* s) {
    return s ? s->play_columns : 0;
}

uint32_t bsync_script_play_column_switch(const bsync_script* s, uint32_t c) {
    return s && c < s->play_columns ? s->play_switch[c] : UINT32_MAX;
}

int bsync_script_play_cell(const bsync_script* s, size_t row, uint32_t c, bsync_switch_trigger* trigger) {
    if (!s || row >= s->rows || c >= s->play_columns || !s->play_given[row * s->play_columns + c]) return 0;
    if (trigger) *trigger = s->play[row * s->play_columns + c];
    return 1;
}
