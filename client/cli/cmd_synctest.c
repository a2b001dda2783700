/* cmd_synctest.c — `blendsync synctest CONFIG --script INPUT.csv [--ticks N] [--check-distance D]
 * [--no-fresh] [--poses] [--json]`: run one instance of a graph config under the sync test
 * (io/synctest.h) with the targets and triggers of a CSV script (io/script.h's graph script, exactly as `eval`
 * applies it), and report every mismatch.
 *
 * Inputs: tick t's targets are every parameter's default overwritten by the given cells of every row
 * with tick <= t in order (what eval's running targets are at t); the triggers are those of the row
 * whose tick is t. So the input is a pure function of t, as re-simulation needs. N (--ticks) defaults
 * to the last row's tick + 1 and must be >= D; D (--check-distance) is 1..64, default 4. Fresh
 * simulations in poisoned memory (BSYNC_SYNCTEST_POISON_FRESH) are on unless --no-fresh. The checksum
 * is the instance's state checksum; with --poses (clips must be bound) XXH64 of it and the pose
 * checksum (synctest.h's instance adapter).
 *
 * Text output (stdout):
 *   synctest: CONFIG: N ticks, check distance D, fresh poisoned simulations: yes|no, checksum: state|state+pose
 *   ticks checked: C (M comparisons)
 *   last tick N-1: checksum 16HEX     (the first run's checksum after the last tick: without --poses the
 *                                      state checksum, equal to eval's last state_checksum)
 * then either "no mismatch", or one line per listed mismatch (at most 64, in the order found)
 *   mismatch: tick K (KIND, found by the check at tick T): expected 16HEX, got 16HEX
 * then "... and X more not listed" when more were found, and
 *   mismatches: X (tick, kind) pairs, F failed comparisons; first found: tick K (KIND)
 * --json prints one object instead:
 *   {"config": ..., "ticks": N, "check_distance": D, "fresh": true, "poses": false, "ticks_checked": C,
 *    "comparisons": M, "failed_comparisons": F, "mismatch_count": X, "last_checksum": "HEX",
 *    "mismatches": [{"tick": K, "kind": "rewind", "checked_at": T, "expected": "HEX", "got": "HEX"}, ...]}
 *
 * Exit: 0 no mismatch, 1 mismatches, 2 error (message on stderr). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/synctest.h"
#include "cli_graph_config.h"
#include "cli_json.h"
#include "commands.h"

#define MAX_TICKS 10000000ul
#define DEFAULT_DISTANCE 4u

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync synctest CONFIG --script INPUT.csv [--ticks N] [--check-distance D]\n"
            "                          [--no-fresh] [--poses] [--json]\n"
            "\n"
            "Runs one instance of the config's graph with the CSV script's targets and triggers (as\n"
            "eval does) and, every tick from D on, rewinds it D ticks (loads the snapshot of D ticks\n"
            "ago), re-simulates them and compares each tick's checksum with the first run's; also on\n"
            "fresh instances built in memory filled with 0xA5 and with 0x5A (reads of uninitialised\n"
            "state). Prints every mismatch: the tick, the kind and both checksums.\n"
            "\n"
            "  CONFIG               a graph configuration file (JSON; clip sources relative to it)\n"
            "  --script FILE        the CSV script (header \"tick,PARAM,...\", \"play:NODE\" columns; see eval)\n"
            "  --ticks N            ticks to run (default: the last row's tick + 1; at least D)\n"
            "  --check-distance D   ticks rewound at each check, 1 to 64 (default %u)\n"
            "  --no-fresh           rewind the instance only (no fresh poisoned instances)\n"
            "  --poses              put the pose checksum in the compared checksum (clips must be bound)\n"
            "  --json               print one JSON object instead of text\n"
            "  --help               this text\n"
            "\n"
            "Exit status: 0 no mismatch, 1 mismatches, 2 error.\n",
            DEFAULT_DISTANCE);
}

/* The script as a pure function of t: per row, the full target vector after applying rows 0..r. */
typedef struct script_input {
    const bsync_script* sc;
    uint32_t pc;
    const fix16_t* defaults;      /* pc */
    fix16_t* row_targets;         /* rows * pc */
    bsync_switch_trigger* row_tr; /* rows * BSYNC_GRAPH_MAX_SWITCHES */
    uint32_t* row_tn;             /* rows */
} script_input;

static bsync_result script_input_fn(void* user, uint64_t t, fix16_t* targets, bsync_switch_trigger* tr, uint32_t* n) {
    const script_input* si = (const script_input*)user;
    const bsync_script* sc = si->sc;
    /* the last row with tick <= t */
    size_t lo = 0, hi = bsync_script_row_count(sc);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bsync_script_row_tick(sc, mid) <= t) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) {
        memcpy(targets, si->defaults, (size_t)si->pc * sizeof(fix16_t));
        *n = 0;
        return BSYNC_OK;
    }
    const size_t r = lo - 1;
    memcpy(targets, si->row_targets + r * si->pc, (size_t)si->pc * sizeof(fix16_t));
    *n = 0;
    if (bsync_script_row_tick(sc, r) == t) {
        *n = si->row_tn[r];
        memcpy(tr, si->row_tr + r * BSYNC_GRAPH_MAX_SWITCHES, (size_t)si->row_tn[r] * sizeof *tr);
    }
    return BSYNC_OK;
}

static int parse_ulong(const char* opt, const char* v, unsigned long lo, unsigned long hi, unsigned long* out) {
    char* end = NULL;
    errno = 0;
    unsigned long x = strtoul(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || !end || *end || errno || x < lo || x > hi) {
        fprintf(stderr, "blendsync synctest: %s needs a whole number from %lu to %lu, not '%s'\n", opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

int bsync_cmd_synctest(int argc, char** argv) {
    const char *config = NULL, *script_path = NULL;
    unsigned long ticks = 0, distance = DEFAULT_DISTANCE;
    int ticks_given = 0, fresh = 1, poses = 0, json = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--no-fresh")) {
            fresh = 0;
        } else if (!strcmp(a, "--poses")) {
            poses = 1;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--script") || !strcmp(a, "--ticks") || !strcmp(a, "--check-distance")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync synctest: %s needs a value\n", a);
                return 2;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "--script")) {
                script_path = v;
            } else if (!strcmp(a, "--ticks")) {
                if (parse_ulong(a, v, 1, MAX_TICKS, &ticks) != 0) return 2;
                ticks_given = 1;
            } else if (parse_ulong(a, v, 1, BSYNC_SYNCTEST_MAX_DISTANCE, &distance) != 0) {
                return 2;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "blendsync synctest: unknown option '%s'\n", a);
            return 2;
        } else if (!config) {
            config = a;
        } else {
            fprintf(stderr, "blendsync synctest: one CONFIG file only ('%s' is extra)\n", a);
            return 2;
        }
    }
    if (!config || !script_path) {
        fprintf(stderr, "blendsync synctest: missing %s\n", !config ? "CONFIG" : "--script INPUT.csv");
        usage(stderr);
        return 2;
    }

    static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    bsync_graph_config* gc = bsync_cli_load_graph_config("synctest", config, diags);
    if (!gc) return 2;
    const bsync_graph* graph = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);

    int status = 2;
    bsync_script* sc = NULL;
    script_input si;
    memset(&si, 0, sizeof si);
    fix16_t* defaults = NULL;
    bsync_synctest_instance* adapter = NULL;
    bsync_synctest_report* rep = NULL;
    if (!(sc = bsync_cli_load_script("synctest", script_path, graph))) goto done;
    const size_t rows = bsync_script_row_count(sc);
    if (!ticks_given) {
        if (rows == 0) {
            fprintf(stderr, "blendsync synctest: %s: no rows: give --ticks N\n", script_path);
            goto done;
        }
        if (bsync_script_row_tick(sc, rows - 1) + 1 > MAX_TICKS) {
            fprintf(stderr, "blendsync synctest: %s: the last tick is beyond %lu ticks\n", script_path, MAX_TICKS);
            goto done;
        }
        ticks = (unsigned long)bsync_script_row_tick(sc, rows - 1) + 1;
    }
    if (ticks < distance) {
        fprintf(stderr, "blendsync synctest: %lu ticks are fewer than the check distance %lu: nothing would be checked\n",
                ticks, distance);
        goto done;
    }
    if (poses && bsync_graph_config_bound_clip_count(gc) == 0) {
        fprintf(stderr, "blendsync synctest: --poses: %s binds no clips (no pose to checksum)\n", config);
        goto done;
    }
    if (bsync_script_play_column_count(sc) > BSYNC_GRAPH_MAX_SWITCHES) {
        fprintf(stderr, "blendsync synctest: %s: more play: columns than switches\n", script_path);
        goto done;
    }

    const uint32_t pc = bsync_graph_parameter_count(graph);
    defaults = (fix16_t*)calloc(pc ? pc : 1, sizeof(fix16_t));
    si.row_targets = (fix16_t*)calloc(rows && pc ? rows * pc : 1, sizeof(fix16_t));
    si.row_tr = (bsync_switch_trigger*)calloc(rows ? rows * BSYNC_GRAPH_MAX_SWITCHES : 1, sizeof(bsync_switch_trigger));
    si.row_tn = (uint32_t*)calloc(rows ? rows : 1, sizeof(uint32_t));
    adapter = (bsync_synctest_instance*)calloc(1, sizeof *adapter);
    rep = (bsync_synctest_report*)calloc(1, sizeof *rep);
    if (!defaults || !si.row_targets || !si.row_tr || !si.row_tn || !adapter || !rep) {
        fprintf(stderr, "blendsync synctest: out of memory\n");
        goto done;
    }
    for (uint32_t i = 0; i < pc; i++) defaults[i] = bsync_blend_tree_parameter_default(tree, i);
    {
        fix16_t* running = adapter->targets; /* scratch: the running targets, as eval keeps them */
        memcpy(running, defaults, (size_t)pc * sizeof(fix16_t));
        size_t row = 0;
        for (size_t r = 0; r < rows; r++) {
            const uint32_t tn = bsync_script_apply(sc, &row, bsync_script_row_tick(sc, r), running,
                                                   si.row_tr + r * BSYNC_GRAPH_MAX_SWITCHES);
            si.row_tn[r] = tn;
            memcpy(si.row_targets + r * pc, running, (size_t)pc * sizeof(fix16_t));
        }
    }
    si.sc = sc;
    si.pc = pc;
    si.defaults = defaults;

    adapter->graph = graph;
    adapter->with_pose = poses;
    adapter->input = script_input_fn;
    adapter->input_user = &si;
    bsync_synctest_ops ops;
    bsync_result r = bsync_synctest_instance_ops(adapter, &ops);
    if (r == BSYNC_OK)
        r = bsync_synctest_run(&ops, (uint64_t)ticks, (uint32_t)distance, fresh ? BSYNC_SYNCTEST_POISON_FRESH : 0u, rep,
                               NULL);
    if (r != BSYNC_OK) {
        if (rep->error_tick)
            fprintf(stderr, "blendsync synctest: failed at tick %llu: %s\n", (unsigned long long)rep->error_tick - 1u,
                    bsync_result_string(r));
        else
            fprintf(stderr, "blendsync synctest: cannot run: %s\n", bsync_result_string(r));
        goto done;
    }

    if (json) {
        cJSON* o = cJSON_CreateObject();
        bsync_cli_json_str(o, "config", config);
        bsync_cli_json_num(o, "ticks", "%lu", ticks);
        bsync_cli_json_num(o, "check_distance", "%lu", distance);
        bsync_cli_json_add(o, "fresh", cJSON_CreateBool(fresh));
        bsync_cli_json_add(o, "poses", cJSON_CreateBool(poses));
        bsync_cli_json_num(o, "ticks_checked", "%llu", (unsigned long long)rep->ticks_checked);
        bsync_cli_json_num(o, "comparisons", "%llu", (unsigned long long)rep->comparisons);
        bsync_cli_json_num(o, "failed_comparisons", "%llu", (unsigned long long)rep->failed_comparisons);
        bsync_cli_json_num(o, "mismatch_count", "%llu", (unsigned long long)rep->mismatch_count);
        bsync_cli_json_hex64(o, "last_checksum", rep->last_checksum);
        cJSON* list = bsync_cli_json_add(o, "mismatches", cJSON_CreateArray());
        for (uint32_t i = 0; i < rep->listed; i++) {
            const bsync_synctest_mismatch* m = &rep->mismatches[i];
            cJSON* e = bsync_cli_json_add(list, NULL, cJSON_CreateObject());
            bsync_cli_json_num(e, "tick", "%llu", (unsigned long long)m->tick);
            bsync_cli_json_str(e, "kind", bsync_synctest_kind_name(m->kind));
            bsync_cli_json_num(e, "checked_at", "%llu", (unsigned long long)m->checked_at);
            bsync_cli_json_hex64(e, "expected", m->expected);
            bsync_cli_json_hex64(e, "got", m->got);
        }
        int bad = bsync_cli_json_print(stdout, o, 0);
        cJSON_Delete(o);
        if (bad) goto done;
    } else {
        printf("synctest: %s: %lu ticks, check distance %lu, fresh poisoned simulations: %s, checksum: %s\n", config,
               ticks, distance, fresh ? "yes" : "no", poses ? "state+pose" : "state");
        printf("ticks checked: %llu (%llu comparisons)\n", (unsigned long long)rep->ticks_checked,
               (unsigned long long)rep->comparisons);
        printf("last tick %lu: checksum %016llx\n", ticks - 1u, (unsigned long long)rep->last_checksum);
        if (rep->mismatch_count == 0) {
            puts("no mismatch");
        } else {
            for (uint32_t i = 0; i < rep->listed; i++) {
                const bsync_synctest_mismatch* m = &rep->mismatches[i];
                printf("mismatch: tick %llu (%s, found by the check at tick %llu): expected %016llx, got %016llx\n",
                       (unsigned long long)m->tick, bsync_synctest_kind_name(m->kind), (unsigned long long)m->checked_at,
                       (unsigned long long)m->expected, (unsigned long long)m->got);
            }
            if (rep->mismatch_count > rep->listed)
                printf("... and %llu more not listed\n", (unsigned long long)(rep->mismatch_count - rep->listed));
            printf("mismatches: %llu (tick, kind) pairs, %llu failed comparisons; first found: tick %llu (%s)\n",
                   (unsigned long long)rep->mismatch_count, (unsigned long long)rep->failed_comparisons,
                   (unsigned long long)rep->mismatches[0].tick, bsync_synctest_kind_name(rep->mismatches[0].kind));
        }
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "blendsync synctest: write to stdout failed\n");
        goto done;
    }
    status = rep->mismatch_count ? 1 : 0;
done:
    free(defaults);
    free(si.row_targets);
    free(si.row_tr);
    free(si.row_tn);
    free(adapter);
    free(rep);
    bsync_script_destroy(sc);
    bsync_graph_config_destroy(gc);
    return status;
}
