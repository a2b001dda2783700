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

int bsync_cli_script_parse(const char* cmd, const char* name, const char* text, size_t len,
                           const bsync_blend_tree* tree, bsync_cli_script* s) {
    memset(s, 0, sizeof *s);
    const uint32_t pc = bsync_blend_tree_parameter_count(tree);
    const size_t cap = (size_t)BSYNC_MAX_PARAMETERS + 2;
    size_t* st = (size_t*)malloc(cap * sizeof(size_t));
    size_t* fl = (size_t*)malloc(cap * sizeof(size_t));
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    s->param = (uint32_t*)malloc(cap * sizeof(uint32_t));
    s->tick = (uint64_t*)malloc(lines * sizeof(uint64_t));
    if (!st || !fl || !s->param || !s->tick) {
        fprintf(stderr, "blendsync %s: out of memory\n", cmd);
        free(st);
        free(fl);
        return -1;
    }
    int header_done = 0, rc = -1;
    size_t pos = 0;
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
                fprintf(stderr, "blendsync %s: %s:%lu:1: too many columns (at most %d parameters)\n", cmd, name, lineno,
                        BSYNC_MAX_PARAMETERS);
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
                    fprintf(stderr,
                            "blendsync %s: %s:%lu:%zu: \"%s\": play:NODE trigger columns drive switch nodes, which "
                            "graphs do not have yet\n", cmd,
                            name, lineno, st[c] + 1, col);
                    goto done;
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
                for (size_t d = 0; d + 1 < c; d++)
                    if (s->param[d] == p) {
                        fprintf(stderr, "blendsync %s: %s:%lu:%zu: duplicate column \"%s\"\n", cmd, name, lineno,
                                st[c] + 1, col);
                        goto done;
                    }
                s->param[c - 1] = p;
            }
            s->columns = (uint32_t)(n - 1);
            size_t cells = lines * (s->columns ? s->columns : 1);
            s->value = (fix16_t*)calloc(cells, sizeof(fix16_t));
            s->given = (unsigned char*)calloc(cells, 1);
            if (!s->value || !s->given) {
                fprintf(stderr, "blendsync %s: out of memory\n", cmd);
                goto done;
            }
            header_done = 1;
            if (end >= len) break;
            continue;
        }
        if (n != (size_t)s->columns + 1) {
            fprintf(stderr, "blendsync %s: %s:%lu:1: expected %u fields (as the header), found %zu\n", cmd, name, lineno,
                    s->columns + 1, n);
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
        for (uint32_t c = 0; c < s->columns; c++) {
            size_t f = c + 1;
            if (fl[f] == 0) continue;
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
    if (rc != 0) bsync_cli_script_free(s);
    return rc;
}

int bsync_cli_script_load(const char* cmd, const char* path, const bsync_blend_tree* tree, bsync_cli_script* s) {
    memset(s, 0, sizeof *s);
    size_t len = 0;
    char* text = read_all(path, &len);
    if (!text) {
        fprintf(stderr, "blendsync %s: %s: cannot read: %s\n", cmd, path, strerror(errno));
        return -1;
    }
    int rc = bsync_cli_script_parse(cmd, path, text, len, tree, s);
    free(text);
    return rc;
}

void bsync_cli_script_apply(const bsync_cli_script* s, size_t* row, uint64_t t, fix16_t* targets) {
    if (*row < s->rows && s->tick[*row] == t) {
        for (uint32_t c = 0; c < s->columns; c++)
            if (s->given[*row * s->columns + c]) targets[s->param[c]] = s->value[*row * s->columns + c];
        (*row)++;
    }
}
