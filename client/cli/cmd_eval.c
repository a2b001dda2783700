/* cmd_eval.c — `blendsync eval CONFIG --script INPUT.csv [--ticks N] [--out FRAMES.jsonl] [--hash]`:
 * drive one graph instance tick by tick from a CSV script and print its blend state as JSON Lines.
 *
 * Script: a header `tick,PARAM,...` naming parameters of the config (each at most once), then rows
 * `TICK,VALUE,...` sorted by strictly increasing tick (whole numbers >= 0). A row sets the targets of
 * its columns from its tick on (an empty cell leaves that target as it was); before the first row
 * every target is the parameter's default. Values are exact decimals (bsync_fx_parse). Blank lines
 * are skipped; CRLF is accepted. `play:NODE` columns (switch-node triggers) are refused: the graph has
 * no switch nodes yet.
 *
 * Frames: for tick t = 0 .. N-1 the script's row for t (if any) is applied, one bsync_instance_tick
 * runs, and one line is written:
 *   {"tick": t, "params": {NAME: filtered value, ...}, "weights": {MOTION: leaf weight, ...},
 *    "phase": {NODE: own normalised phase, ...}, "root_motion": [tx, ty, tz, qx, qy, qz, qw],
 *    "state_checksum": "16 hex digits", "pose_checksum": "16 hex digits"}
 * Decimals are the exact fix16 values (bsync_fx_format: shortest text that parses back to the same
 * raw value). root_motion (this tick's extracted root delta: translation in the character's frame,
 * then the rotation quaternion) appears only when the config says "root_motion": "extract";
 * pose_checksum is omitted when no clip is bound. N (--ticks) defaults to the last row's
 * tick + 1.
 *
 * --hash prints only one line: XXH64 (checksum.h's streaming hasher, seed 0) over, for every tick in
 * order, u64 t, u64 state checksum and (when clips are bound) u64 pose checksum, each little-endian
 * (bsync_checksum_u64), as 16 lowercase hex digits. --out FILE writes the frames to FILE through
 * FILE.tmp.<pid> + rename (so FILE is replaced only when complete) instead of stdout; with --hash
 * the frames still go to FILE and the hash to stdout.
 *
 * Exit: 0 success, 2 error (message on stderr: config errors as "FILE: /json/path: message", script
 * errors as "SCRIPT:LINE:COLUMN: message", columns counting bytes from 1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "commands.h"

#define MAX_TICKS 10000000ul

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync eval CONFIG --script INPUT.csv [--ticks N] [--out FRAMES.jsonl] [--hash]\n"
            "\n"
            "Runs one instance of the config's graph tick by tick with parameter targets from a CSV\n"
            "script and writes one JSON object per tick (JSON Lines): filtered parameters, leaf\n"
            "weights, node phases, state checksum and (when clips are bound) pose checksum.\n"
            "\n"
            "  CONFIG             a graph configuration file (JSON; clip sources relative to it)\n"
            "  --script FILE      header \"tick,PARAM,...\", then rows \"TICK,VALUE,...\" sorted by tick;\n"
            "                     a row sets targets from its tick on (empty cell: unchanged)\n"
            "  --ticks N          ticks to run (default: the last row's tick + 1)\n"
            "  --out FILE         write the frames to FILE (atomically: temp file + rename)\n"
            "  --hash             print only XXH64 (seed 0) over every tick's u64 tick, u64 state\n"
            "                     checksum and u64 pose checksum (when clips are bound), little-endian\n"
            "  --help             this text\n"
            "\n"
            "Exit status: 0 success, 2 error.\n");
}

typedef struct script {
    uint32_t columns;      /* parameter columns */
    uint32_t* param;       /* columns: parameter index of each column */
    size_t rows;
    uint64_t* tick;        /* rows */
    fix16_t* value;        /* rows * columns */
    unsigned char* given;  /* rows * columns */
} script;

static void script_free(script* s) {
    free(s->param);
    free(s->tick);
    free(s->value);
    free(s->given);
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

/* Parse the script text. 0 on success; else prints the error and returns -1. */
static int parse_script(const char* name, const char* text, size_t len, const bsync_blend_tree* tree, script* s) {
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
        fprintf(stderr, "blendsync eval: out of memory\n");
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
                fprintf(stderr, "blendsync eval: %s:%lu:1: too many columns (at most %d parameters)\n", name, lineno,
                        BSYNC_MAX_PARAMETERS);
                goto done;
            }
            if (fl[0] != 4 || memcmp(line + st[0], "tick", 4) != 0) {
                fprintf(stderr, "blendsync eval: %s:%lu:%zu: the first column must be \"tick\" (header: tick,PARAM,...)\n",
                        name, lineno, st[0] + 1);
                goto done;
            }
            for (size_t c = 1; c < n; c++) {
                char col[BSYNC_MAX_NAME + 8];
                if (fl[c] == 0 || fl[c] >= sizeof col) {
                    fprintf(stderr, "blendsync eval: %s:%lu:%zu: expected a parameter name\n", name, lineno, st[c] + 1);
                    goto done;
                }
                memcpy(col, line + st[c], fl[c]);
                col[fl[c]] = '\0';
                if (!strncmp(col, "play:", 5)) {
                    fprintf(stderr,
                            "blendsync eval: %s:%lu:%zu: \"%s\": play:NODE trigger columns drive switch nodes, which "
                            "graphs do not have yet\n",
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
                    fprintf(stderr, "blendsync eval: %s:%lu:%zu: unknown parameter \"%s\" (parameters: %s)\n", name,
                            lineno, st[c] + 1, col, pc ? list : "none");
                    goto done;
                }
                for (size_t d = 0; d + 1 < c; d++)
                    if (s->param[d] == p) {
                        fprintf(stderr, "blendsync eval: %s:%lu:%zu: duplicate column \"%s\"\n", name, lineno,
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
                fprintf(stderr, "blendsync eval: out of memory\n");
                goto done;
            }
            header_done = 1;
            if (end >= len) break;
            continue;
        }
        if (n != (size_t)s->columns + 1) {
            fprintf(stderr, "blendsync eval: %s:%lu:1: expected %u fields (as the header), found %zu\n", name, lineno,
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
            fprintf(stderr, "blendsync eval: %s:%lu:%zu: tick must be a whole number from 0 to 999999999, not \"%.*s\"\n",
                    name, lineno, st[0] + 1, (int)(fl[0] > 40 ? 40 : fl[0]), line + st[0]);
            goto done;
        }
        if (s->rows > 0 && t <= s->tick[s->rows - 1]) {
            fprintf(stderr,
                    "blendsync eval: %s:%lu:%zu: tick %llu does not follow the previous row's tick %llu (rows must be "
                    "sorted by tick, one row per tick)\n",
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
                        "blendsync eval: %s:%lu:%zu: %.*s is outside the fixed-point range (-32767.99998 to 32767.99998)\n",
                        name, lineno, st[f] + 1, (int)(fl[f] > 40 ? 40 : fl[f]), line + st[f]);
                goto done;
            }
            if (r != BSYNC_OK) {
                fprintf(stderr, "blendsync eval: %s:%lu:%zu: \"%.*s\" is not a number (column \"%s\")\n", name, lineno,
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
        fprintf(stderr, "blendsync eval: %s: empty script (expected a header line \"tick,PARAM,...\")\n", name);
        goto done;
    }
    rc = 0;
done:
    free(st);
    free(fl);
    return rc;
}

static void json_string(FILE* f, const char* s) {
    fputc('"', f);
    for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static void json_fx(FILE* f, fix16_t v) {
    char buf[24];
    bsync_fx_format(v, buf, sizeof buf);
    fputs(buf, f);
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

int bsync_cmd_eval(int argc, char** argv) {
    const char *config = NULL, *script_path = NULL, *out_path = NULL;
    unsigned long ticks = 0;
    int ticks_given = 0, want_hash = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--hash")) {
            want_hash = 1;
        } else if (!strcmp(a, "--script") || !strcmp(a, "--ticks") || !strcmp(a, "--out")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync eval: %s needs a value\n", a);
                return 2;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "--script")) script_path = v;
            else if (!strcmp(a, "--out")) out_path = v;
            else {
                char* end = NULL;
                errno = 0;
                ticks = strtoul(v, &end, 10);
                if (v[0] < '0' || v[0] > '9' || !end || *end || errno || ticks < 1 || ticks > MAX_TICKS) {
                    fprintf(stderr, "blendsync eval: --ticks needs a whole number from 1 to %lu, not '%s'\n", MAX_TICKS, v);
                    return 2;
                }
                ticks_given = 1;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "blendsync eval: unknown option '%s'\n", a);
            return 2;
        } else if (!config) {
            config = a;
        } else {
            fprintf(stderr, "blendsync eval: one CONFIG file only ('%s' is extra)\n", a);
            return 2;
        }
    }
    if (!config || !script_path) {
        fprintf(stderr, "blendsync eval: missing %s\n", !config ? "CONFIG" : "--script INPUT.csv");
        usage(stderr);
        return 2;
    }

    static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    bsync_graph_config* gc = NULL;
    bsync_error err;
    if (bsync_graph_config_load(config, NULL, &gc, diags, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync eval: %s\n", err.message);
        return 2;
    }
    const char* notes = bsync_graph_config_notes(gc);
    for (const char* p = notes; *p;) {
        const char* nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "note: %.*s\n", (int)n, p);
        p += n + (nl ? 1 : 0);
    }
    const bsync_graph* graph = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);

    int status = 2;
    script sc;
    memset(&sc, 0, sizeof sc);
    size_t text_len = 0;
    char* text = read_all(script_path, &text_len);
    void* mem = NULL;
    fix16_t* targets = NULL;
    FILE* out = NULL;
    char tmp[4200];
    tmp[0] = '\0';
    if (!text) {
        fprintf(stderr, "blendsync eval: %s: cannot read: %s\n", script_path, strerror(errno));
        goto done;
    }
    if (parse_script(script_path, text, text_len, tree, &sc) != 0) goto done;
    if (!ticks_given) {
        if (sc.rows == 0) {
            fprintf(stderr, "blendsync eval: %s: no rows: give --ticks N\n", script_path);
            goto done;
        }
        if (sc.tick[sc.rows - 1] + 1 > MAX_TICKS) {
            fprintf(stderr, "blendsync eval: %s: the last tick is beyond %lu ticks\n", script_path, MAX_TICKS);
            goto done;
        }
        ticks = (unsigned long)sc.tick[sc.rows - 1] + 1;
    }

    const uint32_t pc = bsync_graph_parameter_count(graph);
    const uint32_t mc = bsync_graph_motion_count(graph);
    const uint32_t nc = bsync_graph_node_count(graph);
    const int posed = bsync_graph_config_bound_clip_count(gc) > 0;
    size_t size = bsync_instance_memory_size(graph);
    mem = malloc(size);
    targets = (fix16_t*)calloc(pc ? pc : 1, sizeof(fix16_t));
    bsync_instance* inst = NULL;
    if (!mem || !targets || bsync_instance_init(mem, size, graph, &inst) != BSYNC_OK) {
        fprintf(stderr, "blendsync eval: cannot create the instance (out of memory)\n");
        goto done;
    }
    for (uint32_t i = 0; i < pc; i++) targets[i] = bsync_blend_tree_parameter_default(tree, i);

    if (out_path) {
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_path, (long)getpid());
        out = fopen(tmp, "wb");
        if (!out) {
            fprintf(stderr, "blendsync eval: %s: cannot write: %s\n", tmp, strerror(errno));
            tmp[0] = '\0';
            goto done;
        }
    } else if (!want_hash) {
        out = stdout;
    }
    bsync_checksum_state hs;
    bsync_checksum_init(&hs, 0);
    size_t row = 0;
    bsync_instance_input input = {targets, pc};
    for (unsigned long t = 0; t < ticks; t++) {
        if (row < sc.rows && sc.tick[row] == t) {
            for (uint32_t c = 0; c < sc.columns; c++)
                if (sc.given[row * sc.columns + c]) targets[sc.param[c]] = sc.value[row * sc.columns + c];
            row++;
        }
        if (bsync_instance_tick(inst, &input) != BSYNC_OK) {
            fprintf(stderr, "blendsync eval: tick %lu failed\n", t);
            goto done;
        }
        uint64_t state = bsync_instance_state_checksum(inst), pose = 0;
        if (posed && bsync_instance_pose_checksum(inst, &pose, NULL) != BSYNC_OK) {
            fprintf(stderr, "blendsync eval: tick %lu: the pose failed\n", t);
            goto done;
        }
        bsync_checksum_u64(&hs, (uint64_t)t);
        bsync_checksum_u64(&hs, state);
        if (posed) bsync_checksum_u64(&hs, pose);
        if (!out) continue;
        fprintf(out, "{\"tick\": %lu, \"params\": {", t);
        for (uint32_t i = 0; i < pc; i++) {
            if (i) fputs(", ", out);
            json_string(out, bsync_blend_tree_parameter_name(tree, i));
            fputs(": ", out);
            json_fx(out, bsync_instance_parameter(inst, i));
        }
        fputs("}, \"weights\": {", out);
        const fix16_t* w = bsync_instance_leaf_weights(inst);
        for (uint32_t m = 0; m < mc; m++) {
            if (m) fputs(", ", out);
            json_string(out, bsync_blend_tree_motion_name(tree, m));
            fputs(": ", out);
            json_fx(out, w[m]);
        }
        fputs("}, \"phase\": {", out);
        for (uint32_t n = 0; n < nc; n++) {
            if (n) fputs(", ", out);
            json_string(out, bsync_blend_tree_node_name(tree, n));
            fputs(": ", out);
            json_fx(out, bsync_instance_node_phase(inst, n));
        }
        fputs("}", out);
        if (bsync_graph_root_motion(graph) == BSYNC_ROOT_MOTION_EXTRACT) {
            bsync_root_motion rm;
            if (bsync_instance_root_motion(inst, &rm) == BSYNC_OK) {
                const fix16_t v[7] = {rm.translation.x, rm.translation.y, rm.translation.z, rm.rotation.x,
                                      rm.rotation.y,    rm.rotation.z,    rm.rotation.w};
                fputs(", \"root_motion\": [", out);
                for (int k = 0; k < 7; k++) {
                    if (k) fputs(", ", out);
                    json_fx(out, v[k]);
                }
                fputs("]", out);
            }
        }
        fprintf(out, ", \"state_checksum\": \"%016llx\"", (unsigned long long)state);
        if (posed) fprintf(out, ", \"pose_checksum\": \"%016llx\"", (unsigned long long)pose);
        fputs("}\n", out);
    }
    if (out && out != stdout) {
        int bad = ferror(out);
        bad |= fclose(out) != 0;
        out = NULL;
        if (bad) {
            fprintf(stderr, "blendsync eval: %s: write failed\n", tmp);
            goto done;
        }
        if (rename(tmp, out_path) != 0) {
            fprintf(stderr, "blendsync eval: cannot rename %s to %s: %s\n", tmp, out_path, strerror(errno));
            goto done;
        }
        tmp[0] = '\0';
    } else if (out == stdout && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "blendsync eval: write to stdout failed\n");
        goto done;
    }
    if (want_hash) printf("%016llx\n", (unsigned long long)bsync_checksum_final(&hs));
    status = 0;
done:
    if (out && out != stdout) fclose(out);
    if (tmp[0]) remove(tmp);
    free(mem);
    free(targets);
    free(text);
    script_free(&sc);
    bsync_graph_config_destroy(gc);
    return status;
}
