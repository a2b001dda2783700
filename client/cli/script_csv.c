/* script_csv.c — the CSV parameter script of `blendsync eval` and `blendsync bake` (script_csv.h). */
#include "script_csv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bsync_cli_script_free(bsync_cli_script* s) {
    if (!s) return;
    free(s->param);
    free(s->tick);
    free(s->value);
    free(s->given);
    free(s->play_switch);
    free(s->play);
    free(s->play_given);
    memset(s, 0, sizeof *s);
}

static char* read_all(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char* buf = (char*)malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        char* grown = (char*)realloc(buf, cap * 2);
        if (!grown) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = grown;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

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

/* One play cell "STATE [fade=N] [carry] [inertialize]" of switch sw -> *t. 0 on success, else -1 (printed).
 * `inertialize` needs fade=N with N >= 1 and a graph with a skeleton (docs/instance.md "Inertialization"). */
static int parse_play_cell(const char* cmd, const char* name, unsigned long lineno, const char* cell, size_t len,
                           size_t col0, const bsync_graph* graph, uint32_t sw, bsync_switch_trigger* t) {
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
                fprintf(stderr, "blendsync %s: %s:%lu:%zu: no state \"%.*s\" in switch \"%s\" (states: %s)\n", cmd, name,
                        lineno, col, (int)(wl > 60 ? 60 : wl), w, bsync_blend_tree_node_name(tree, node), list);
                return -1;
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
                fprintf(stderr, "blendsync %s: %s:%lu:%zu: fade must be a whole number of ticks from 0 to %u, not \"%.*s\"\n",
                        cmd, name, lineno, col + 5, (unsigned)BSYNC_SWITCH_MAX_FADE_TICKS, (int)(wl - 5 > 40 ? 40 : wl - 5),
                        w + 5);
                return -1;
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
            fprintf(stderr,
                    "blendsync %s: %s:%lu:%zu: unexpected \"%.*s\" (a play cell is: STATE [fade=N] [carry], each option "
                    "once)\n", cmd, name, lineno, col, (int)(wl > 40 ? 40 : wl), w);
            return -1;
        }
    }
    if (inert_col && t->fade_ticks == 0) {
        fprintf(stderr, "blendsync %s: %s:%lu:%zu: inertialize needs fade=N with N from 1 to %u (the decay length)\n",
                cmd, name, lineno, inert_col, (unsigned)BSYNC_SWITCH_MAX_FADE_TICKS);
        return -1;
    }
    if (inert_col && !bsync_graph_skeleton(graph)) {
        fprintf(stderr, "blendsync %s: %s:%lu:%zu: inertialize needs a graph with a skeleton (it offsets the pose)\n",
                cmd, name, lineno, inert_col);
        return -1;
    }
    return 0;
}

int bsync_cli_script_parse(const char* cmd, const char* name, const char* text, size_t len,
                           const bsync_graph* graph, bsync_cli_script* s) {
    memset(s, 0, sizeof *s);
    const bsync_blend_tree* tree = bsync_graph_tree(graph);
    const uint32_t pc = bsync_blend_tree_parameter_count(tree);
    const size_t cap = (size_t)BSYNC_MAX_PARAMETERS + BSYNC_GRAPH_MAX_SWITCHES + 2;
    size_t* st = (size_t*)malloc(cap * sizeof(size_t));
    size_t* fl = (size_t*)malloc(cap * sizeof(size_t));
    /* per header column c >= 1: kind (0 parameter, 1 play) and index into that kind's columns */
    unsigned char* kind = (unsigned char*)calloc(cap, 1);
    uint32_t* kidx = (uint32_t*)calloc(cap, sizeof(uint32_t));
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    s->param = (uint32_t*)malloc(cap * sizeof(uint32_t));
    s->play_switch = (uint32_t*)malloc(cap * sizeof(uint32_t));
    s->tick = (uint64_t*)malloc(lines * sizeof(uint64_t));
    if (!st || !fl || !kind || !kidx || !s->param || !s->play_switch || !s->tick) {
        fprintf(stderr, "blendsync %s: out of memory\n", cmd);
        free(st);
        free(fl);
        free(kind);
        free(kidx);
        bsync_cli_script_free(s);
        return -1;
    }
    int header_done = 0, rc = -1;
    size_t pos = 0, fields = 0;
    unsigned long lineno = 0;
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
        size_t n = split(line, ll, st, fl, cap);
        if (!header_done) {
            if (n > cap) {
                fprintf(stderr, "blendsync %s: %s:%lu:1: too many columns (at most %d parameters and %u play columns)\n",
                        cmd, name, lineno, BSYNC_MAX_PARAMETERS, BSYNC_GRAPH_MAX_SWITCHES);
                goto done;
            }
            if (fl[0] != 4 || memcmp(line + st[0], "tick", 4) != 0) {
                fprintf(stderr, "blendsync %s: %s:%lu:%zu: the first column must be \"tick\" (header: tick,PARAM,...)\n", cmd,
                        name, lineno, st[0] + 1);
                goto done;
            }
            for (size_t c = 1; c < n; c++) {
                char col[BSYNC_MAX_NAME + 8];
                if (fl[c] == 0 || fl[c] >= sizeof col) {
                    fprintf(stderr, "blendsync %s: %s:%lu:%zu: expected a parameter name\n", cmd, name, lineno, st[c] + 1);
                    goto done;
                }
                memcpy(col, line + st[c], fl[c]);
                col[fl[c]] = '\0';
                if (!strncmp(col, "play:", 5)) {
                    const char* node_name = col + 5;
                    uint32_t node = UINT32_MAX, sw = UINT32_MAX;
                    char list[400];
                    switch_list(graph, list, sizeof list);
                    if (bsync_blend_tree_find_node(tree, node_name, &node) != BSYNC_OK) {
                        fprintf(stderr, "blendsync %s: %s:%lu:%zu: \"%s\": no node named \"%s\" (switch nodes: %s)\n", cmd,
                                name, lineno, st[c] + 1, col, node_name, list);
                        goto done;
                    }
                    for (uint32_t i = 0; i < bsync_graph_switch_count(graph); i++)
                        if (bsync_graph_switch_node(graph, i) == node) sw = i;
                    if (sw == UINT32_MAX) {
                        fprintf(stderr, "blendsync %s: %s:%lu:%zu: \"%s\": node \"%s\" is not a Switch node (switch nodes: %s)\n",
                                cmd, name, lineno, st[c] + 1, col, node_name, list);
                        goto done;
                    }
                    for (uint32_t d = 0; d < s->play_columns; d++)
                        if (s->play_switch[d] == sw) {
                            fprintf(stderr, "blendsync %s: %s:%lu:%zu: duplicate column \"%s\"\n", cmd, name, lineno,
                                    st[c] + 1, col);
                            goto done;
                        }
                    kind[c] = 1;
                    kidx[c] = s->play_columns;
                    s->play_switch[s->play_columns++] = sw;
                    continue;
                }
                uint32_t p;
                if (bsync_blend_tree_find_parameter(tree, col, &p) != BSYNC_OK) {
                    char list[400];
                    size_t w = 0;
                    list[0] = '\0';
                    for (uint32_t i = 0; i < pc && w + 70 < sizeof list; i++)
                        w += (size_t)snprintf(list + w, sizeof list - w, "%s%s", i ? ", " : "",
                                              bsync_blend_tree_parameter_name(tree, i));
                    fprintf(stderr, "blendsync %s: %s:%lu:%zu: unknown parameter \"%s\" (parameters: %s)\n", cmd, name,
                            lineno, st[c] + 1, col, pc ? list : "none");
                    goto done;
                }
                for (uint32_t d = 0; d < s->columns; d++)
                    if (s->param[d] == p) {
                        fprintf(stderr, "blendsync %s: %s:%lu:%zu: duplicate column \"%s\"\n", cmd, name, lineno,
                                st[c] + 1, col);
                        goto done;
                    }
                kind[c] = 0;
                kidx[c] = s->columns;
                s->param[s->columns++] = p;
            }
            fields = n;
            size_t cells = lines * (s->columns ? s->columns : 1);
            size_t pcells = lines * (s->play_columns ? s->play_columns : 1);
            s->value = (fix16_t*)calloc(cells, sizeof(fix16_t));
            s->given = (unsigned char*)calloc(cells, 1);
            s->play = (bsync_switch_trigger*)calloc(pcells, sizeof(bsync_switch_trigger));
            s->play_given = (unsigned char*)calloc(pcells, 1);
            if (!s->value || !s->given || !s->play || !s->play_given) {
                fprintf(stderr, "blendsync %s: out of memory\n", cmd);
                goto done;
            }
            header_done = 1;
            if (end >= len) break;
            continue;
        }
        if (n != fields) {
            fprintf(stderr, "blendsync %s: %s:%lu:1: expected %zu fields (as the header), found %zu\n", cmd, name, lineno,
                    fields, n);
            goto done;
        }
        uint64_t t = 0;
        int ok = fl[0] > 0 && fl[0] <= 9;
        for (size_t i = 0; ok && i < fl[0]; i++) {
            char ch = line[st[0] + i];
            if (ch < '0' || ch > '9') ok = 0;
            else t = t * 10 + (uint64_t)(ch - '0');
        }
        if (!ok) {
            fprintf(stderr, "blendsync %s: %s:%lu:%zu: tick must be a whole number from 0 to 999999999, not \"%.*s\"\n", cmd,
                    name, lineno, st[0] + 1, (int)(fl[0] > 40 ? 40 : fl[0]), line + st[0]);
            goto done;
        }
        if (s->rows > 0 && t <= s->tick[s->rows - 1]) {
            fprintf(stderr,
                    "blendsync %s: %s:%lu:%zu: tick %llu does not follow the previous row's tick %llu (rows must be "
                    "sorted by tick, one row per tick)\n", cmd,
                    name, lineno, st[0] + 1, (unsigned long long)t, (unsigned long long)s->tick[s->rows - 1]);
            goto done;
        }
        for (size_t f = 1; f < n; f++) {
            if (fl[f] == 0) continue;
            if (kind[f] == 1) {
                const uint32_t pcol = kidx[f];
                if (parse_play_cell(cmd, name, lineno, line + st[f], fl[f], st[f], graph, s->play_switch[pcol],
                                    &s->play[s->rows * s->play_columns + pcol]) != 0)
                    goto done;
                s->play_given[s->rows * s->play_columns + pcol] = 1;
                continue;
            }
            const uint32_t c = kidx[f];
            fix16_t v;
            bsync_result r = bsync_fx_parse(line + st[f], fl[f], &v);
            if (r == BSYNC_OVERFLOW) {
                fprintf(stderr,
                        "blendsync %s: %s:%lu:%zu: %.*s is outside the fixed-point range (-32767.99998 to 32767.99998)\n", cmd,
                        name, lineno, st[f] + 1, (int)(fl[f] > 40 ? 40 : fl[f]), line + st[f]);
                goto done;
            }
            if (r != BSYNC_OK) {
                fprintf(stderr, "blendsync %s: %s:%lu:%zu: \"%.*s\" is not a number (column \"%s\")\n", cmd, name, lineno,
                        st[f] + 1, (int)(fl[f] > 40 ? 40 : fl[f]), line + st[f],
                        bsync_blend_tree_parameter_name(tree, s->param[c]));
                goto done;
            }
            s->value[s->rows * s->columns + c] = v;
            s->given[s->rows * s->columns + c] = 1;
        }
        s->tick[s->rows++] = t;
        if (end >= len) break;
    }
    if (!header_done) {
        fprintf(stderr, "blendsync %s: %s: empty script (expected a header line \"tick,PARAM,...\")\n", cmd, name);
        goto done;
    }
    rc = 0;
done:
    free(st);
    free(fl);
    free(kind);
    free(kidx);
    if (rc != 0) bsync_cli_script_free(s);
    return rc;
}

int bsync_cli_script_load(const char* cmd, const char* path, const bsync_graph* graph, bsync_cli_script* s) {
    memset(s, 0, sizeof *s);
    size_t len = 0;
    char* text = read_all(path, &len);
    if (!text) {
        fprintf(stderr, "blendsync %s: %s: cannot read: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    int rc = bsync_cli_script_parse(cmd, path, text, len, graph, s);
    free(text);
    return rc;
}

void bsync_cli_script_apply(const bsync_cli_script* s, size_t* row, uint64_t t, fix16_t* targets,
                            bsync_switch_trigger* triggers, uint32_t* trigger_count) {
    uint32_t n = 0;
    if (*row < s->rows && s->tick[*row] == t) {
        for (uint32_t c = 0; c < s->columns; c++)
            if (s->given[*row * s->columns + c]) targets[s->param[c]] = s->value[*row * s->columns + c];
        for (uint32_t c = 0; c < s->play_columns; c++)
            if (s->play_given[*row * s->play_columns + c] && triggers) triggers[n++] = s->play[*row * s->play_columns + c];
        (*row)++;
    }
    if (trigger_count) *trigger_count = n;
}
