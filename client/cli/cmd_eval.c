/* cmd_eval.c — `blendsync eval CONFIG --script INPUT.csv [--ticks N] [--out FRAMES.jsonl] [--hash]
 * [--replay OUT.bsreplay]`:
 * drive one graph instance tick by tick from a CSV script and print its blend state as JSON Lines.
 *
 * Script: the graph script of io/script.h (docs/scripts.md): a header `tick,PARAM,...,play:NODE,...`,
 * rows `TICK,VALUE,...` by strictly increasing tick; a row sets its cells' targets from its tick on,
 * before the first row every target is the parameter's default; play cells trigger in their tick only.
 *
 * Frames: for tick t = 0 .. N-1 the script's row for t (if any) is applied, one bsync_instance_tick_ex
 * runs with that row's triggers, and one line is written:
 *   {"tick": t, "params": {NAME: filtered value, ...}, "weights": {MOTION: leaf weight, ...},
 *    "phase": {NODE: own normalised phase, ...}, "switches": {NODE: [[STATE, weight], ...], ...},
 *    "root_motion": [tx, ty, tz, qx, qy, qz, qw],
 *    "state_checksum": "16 hex digits", "pose_checksum": "16 hex digits"}
 * "actions" appears only for graphs with events or ranges (docs/actions.md): the tick's reports in
 * report order, [{"name", "motion", "node", "child", "kind": "event", "count", "payload"} or
 * {..., "kind": "range", "enters", "exits", "active", "payload"}, ...] (an empty array when nothing
 * fired and no range is open), before "state_checksum"; then "curves": {CHANNEL: value, ...} for
 * graphs with float curves (bsync_instance_curve, channels in graph order).
 * "switches" appears only for graphs with Switch nodes: per switch (in switch order) its cross-fade
 * stack after the tick, oldest entry first (bsync_instance_switch_state: one entry [STATE, 1] when
 * no fade runs; a state may appear twice).
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
 * --replay OUT writes the run as a match replay (one player slot, one character playing CONFIG, the
 * script's parameter columns as input parameters and its play: cells as input triggers; a checksum
 * every tick) that `blendsync replay verify | info | cut` read like any other: bsync_run_recorder
 * (io/replay_recorder.h). The frames
 * are still printed (to stdout, or --out, or only the hash with --hash).
 *
 * --render-rate HZ (1..1000; the config must bind clips) adds presentation frames (blendsync/present.h):
 * frame f is what a display at HZ shows at time f / HZ seconds: the presentation pose of the instance
 * after c = floor(f * rate / HZ) ticks at alpha = (f * rate - c * HZ) / HZ (fix16, rounded to nearest),
 * one line per frame written right after the state it is presented from (frames with c = 0 before the
 * first tick's line, the others after the line of tick c - 1):
 *   {"frame": f, "time": seconds, "ticks": c, "alpha": alpha, "pose_checksum": "16 hex digits",
 *    "root_motion": [tx, ty, tz, qx, qy, qz, qw]}
 * pose_checksum is bsync_checksum_pose of the presented local pose (at alpha 0 it is the tick's
 * pose_checksum), root_motion (EXTRACT graphs only) the root motion from tick c to c + alpha. The
 * frames never change the ticks' lines; --hash covers the ticks only.
 *
 * Exit: 0 success, 2 error (message on stderr: config errors as "FILE: /json/path: message", script
 * errors as "SCRIPT:LINE:COLUMN: message", columns counting bytes from 1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/blend_tree.h"
#include "platform.h"
#include "blendsync/checksum.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/present.h"
#include "cli_graph_config.h"
#include "cli_json.h"
#include "commands.h"
#include "blendsync/io/replay_recorder.h"

#define MAX_TICKS 10000000ul

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync eval CONFIG --script INPUT.csv [--ticks N] [--out FRAMES.jsonl] [--hash]\n"
            "                      [--replay OUT.bsreplay] [--render-rate HZ]\n"
            "\n"
            "Runs one instance of the config's graph tick by tick with parameter targets from a CSV\n"
            "script and writes one JSON object per tick (JSON Lines): filtered parameters, leaf\n"
            "weights, node phases, switch stacks (graphs with Switch nodes), state checksum and\n"
            "(when clips are bound) pose checksum.\n"
            "\n"
            "  CONFIG             a graph configuration file (JSON; clip sources relative to it)\n"
            "  --script FILE      header \"tick,PARAM,...\", then rows \"TICK,VALUE,...\" sorted by tick;\n"
            "                     a row sets targets from its tick on (empty cell: unchanged);\n"
            "                     a \"play:NODE\" column (NODE a Switch node) triggers that switch in\n"
            "                     its row's tick only: \"STATE [fade=N] [carry] [inertialize]\" (fade in ticks, default 0)\n"
            "  --ticks N          ticks to run (default: the last row's tick + 1)\n"
            "  --out FILE         write the frames to FILE (atomically: temp file + rename)\n"
            "  --hash             print only XXH64 (seed 0) over every tick's u64 tick, u64 state\n"
            "                     checksum and u64 pose checksum (when clips are bound), little-endian\n"
            "  --render-rate HZ   also print presentation frames at a display's rate HZ (1..1000): the\n"
            "                     pose between ticks (checksum, alpha, root motion), after each tick\n"
            "  --replay FILE      also write the run as a match replay (one player, one character; a\n"
            "                     checksum every tick) for `blendsync replay verify | info | cut`\n"
            "  --help             this text\n"
            "\n"
            "Exit status: 0 success, 2 error.\n");
}

/* root_motion (translation, then rotation) as a JSON array of fix16 decimals */
static void json_root_motion(cJSON* o, const bsync_root_motion* rm) {
    const fix16_t v[7] = {rm->translation.x, rm->translation.y, rm->translation.z, rm->rotation.x,
                          rm->rotation.y,    rm->rotation.z,    rm->rotation.w};
    cJSON* a = bsync_cli_json_add(o, "root_motion", cJSON_CreateArray());
    for (int k = 0; k < 7; k++) bsync_cli_json_fx(a, NULL, v[k]);
}

/* --render-rate: the presentation frames shown from the instance's current state (header comment). */
typedef struct present_frames {
    uint32_t hz;
    uint64_t next; /* the next frame to print */
    void* scratch;
    size_t scratch_size;
    bsync_trs* pose;
} present_frames;

static int print_frames(FILE* out, const bsync_instance* inst, const bsync_graph* graph, present_frames* pf) {
    const uint64_t rate = bsync_graph_tick_rate(graph), c = bsync_instance_tick_count(inst);
    const uint32_t jc = bsync_graph_joint_count(graph);
    for (;; pf->next++) {
        const uint64_t f = pf->next, fc = f * rate / pf->hz, rest = f * rate - fc * pf->hz;
        if (fc != c) return 0;
        const fix16_t alpha = (fix16_t)((rest * 65536u + pf->hz / 2u) / pf->hz);
        bsync_root_motion rm;
        if (bsync_present_pose(inst, alpha, pf->scratch, pf->scratch_size, pf->pose, NULL, &rm) != BSYNC_OK) {
            fprintf(stderr, "blendsync eval: frame %llu: the presentation pose failed\n", (unsigned long long)f);
            return -1;
        }
        cJSON* o = cJSON_CreateObject();
        bsync_cli_json_num(o, "frame", "%llu", (unsigned long long)f);
        bsync_cli_json_fx(o, "time", bsync_time_ticks_to_seconds((int64_t)f, pf->hz));
        bsync_cli_json_num(o, "ticks", "%llu", (unsigned long long)c);
        bsync_cli_json_fx(o, "alpha", alpha);
        bsync_cli_json_hex64(o, "pose_checksum", bsync_checksum_pose(pf->pose, jc));
        if (bsync_graph_root_motion(graph) == BSYNC_ROOT_MOTION_EXTRACT) json_root_motion(o, &rm);
        int bad = bsync_cli_json_print(out, o, 0);
        cJSON_Delete(o);
        if (bad) return -1;
    }
}

/* "actions": the tick's event and range reports (docs/actions.md "Reports"), in report order. */
static void json_actions(cJSON* o, const bsync_instance* inst, const bsync_graph* graph, const bsync_blend_tree* tree) {
    const bsync_action_report* r = NULL;
    uint32_t n = 0;
    if (bsync_instance_actions(inst, &r, &n) != BSYNC_OK) n = 0;
    cJSON* a = bsync_cli_json_add(o, "actions", cJSON_CreateArray());
    for (uint32_t i = 0; i < n; i++) {
        bsync_graph_action_desc d;
        if (bsync_graph_action(graph, r[i].action, &d) != BSYNC_OK) continue;
        cJSON* e = bsync_cli_json_add(a, NULL, cJSON_CreateObject());
        bsync_cli_json_str(e, "name", d.name);
        bsync_cli_json_str(e, "motion", bsync_blend_tree_motion_name(tree, d.motion));
        bsync_cli_json_str(e, "node", bsync_blend_tree_node_name(tree, r[i].node));
        bsync_cli_json_num(e, "child", "%u", (unsigned)r[i].child);
        if (r[i].kind == (uint32_t)BSYNC_ACTION_EVENT) {
            bsync_cli_json_str(e, "kind", "event");
            bsync_cli_json_num(e, "count", "%u", (unsigned)r[i].count);
        } else {
            bsync_cli_json_str(e, "kind", "range");
            bsync_cli_json_num(e, "enters", "%u", (unsigned)r[i].count);
            bsync_cli_json_num(e, "exits", "%u", (unsigned)r[i].exits);
            bsync_cli_json_num(e, "active", "%u", (unsigned)r[i].active);
        }
        bsync_cli_json_num(e, "payload", "%d", (int)r[i].payload);
    }
}

/* One tick's line (the header comment's format). 0, or -1 after a message. */
static int print_tick(FILE* out, const bsync_instance* inst, const bsync_graph* graph, const bsync_blend_tree* tree,
                      unsigned long t, uint64_t state, const uint64_t* pose) {
    cJSON* o = cJSON_CreateObject();
    bsync_cli_json_num(o, "tick", "%lu", t);
    cJSON* params = bsync_cli_json_add(o, "params", cJSON_CreateObject());
    for (uint32_t i = 0; i < bsync_graph_parameter_count(graph); i++)
        bsync_cli_json_fx(params, bsync_blend_tree_parameter_name(tree, i), bsync_instance_parameter(inst, i));
    cJSON* weights = bsync_cli_json_add(o, "weights", cJSON_CreateObject());
    const fix16_t* w = bsync_instance_leaf_weights(inst);
    for (uint32_t m = 0; m < bsync_graph_motion_count(graph); m++)
        bsync_cli_json_fx(weights, bsync_blend_tree_motion_name(tree, m), w[m]);
    cJSON* phase = bsync_cli_json_add(o, "phase", cJSON_CreateObject());
    for (uint32_t n = 0; n < bsync_graph_node_count(graph); n++)
        bsync_cli_json_fx(phase, bsync_blend_tree_node_name(tree, n), bsync_instance_node_phase(inst, n));
    const uint32_t swc = bsync_graph_switch_count(graph);
    cJSON* switches = swc ? bsync_cli_json_add(o, "switches", cJSON_CreateObject()) : NULL;
    for (uint32_t i = 0; i < swc; i++) {
        const uint32_t node = bsync_graph_switch_node(graph, i);
        bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
        uint32_t en = 0;
        if (bsync_instance_switch_state(inst, i, e, &en) != BSYNC_OK) en = 0;
        cJSON* stack = bsync_cli_json_add(switches, bsync_blend_tree_node_name(tree, node), cJSON_CreateArray());
        for (uint32_t k = 0; k < en; k++) {
            bsync_blend_child_ref cr = bsync_blend_tree_node_child(tree, node, e[k].child);
            cJSON* entry = bsync_cli_json_add(stack, NULL, cJSON_CreateArray());
            bsync_cli_json_str(entry, NULL, cr.kind == BSYNC_CHILD_NODE ? bsync_blend_tree_node_name(tree, cr.index)
                                                                        : bsync_blend_tree_motion_name(tree, cr.index));
            bsync_cli_json_fx(entry, NULL, e[k].weight);
        }
    }
    bsync_root_motion rm;
    if (bsync_graph_root_motion(graph) == BSYNC_ROOT_MOTION_EXTRACT && bsync_instance_root_motion(inst, &rm) == BSYNC_OK)
        json_root_motion(o, &rm);
    if (bsync_graph_action_count(graph) > 0) json_actions(o, inst, graph, tree);
    const uint32_t channels = bsync_graph_curve_channel_count(graph);
    cJSON* curves = channels ? bsync_cli_json_add(o, "curves", cJSON_CreateObject()) : NULL;
    for (uint32_t ch = 0; ch < channels; ch++) {
        fix16_t v = 0;
        (void)bsync_instance_curve(inst, ch, &v); /* cannot fail: a live instance, ch in range */
        bsync_cli_json_fx(curves, bsync_graph_curve_channel_name(graph, ch), v);
    }
    bsync_cli_json_hex64(o, "state_checksum", state);
    if (pose) {
        bsync_cli_json_hex64(o, "pose_checksum", *pose);
    }
    int bad = bsync_cli_json_print(out, o, 0);
    cJSON_Delete(o);
    return bad;
}

int bsync_cmd_eval(int argc, char** argv) {
    const char *config = NULL, *script_path = NULL, *out_path = NULL, *replay_path = NULL;
    unsigned long ticks = 0;
    int ticks_given = 0, want_hash = 0;
    unsigned long render_rate = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--hash")) {
            want_hash = 1;
        } else if (!strcmp(a, "--script") || !strcmp(a, "--ticks") || !strcmp(a, "--out") || !strcmp(a, "--replay") ||
                   !strcmp(a, "--render-rate")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync eval: %s needs a value\n", a);
                return 2;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "--script")) script_path = v;
            else if (!strcmp(a, "--out")) out_path = v;
            else if (!strcmp(a, "--replay")) replay_path = v;
            else if (!strcmp(a, "--render-rate")) {
                char* end = NULL;
                errno = 0;
                render_rate = strtoul(v, &end, 10);
                if (v[0] < '0' || v[0] > '9' || !end || *end || errno || render_rate < 1 || render_rate > 1000) {
                    fprintf(stderr, "blendsync eval: --render-rate needs a whole number from 1 to 1000, not '%s'\n", v);
                    return 2;
                }
            } else {
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
    bsync_graph_config* gc = bsync_cli_load_graph_config("eval", config, diags);
    if (!gc) return 2;
    const bsync_graph* graph = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);

    int status = 2;
    bsync_script* sc = NULL;
    void* mem = NULL;
    fix16_t* targets = NULL;
    FILE* out = NULL;
    present_frames pf;
    memset(&pf, 0, sizeof pf);
    bsync_run_recorder* rep = NULL;
    bsync_error err;
    char tmp[4200];
    tmp[0] = '\0';
    if (!(sc = bsync_cli_load_script("eval", script_path, graph))) goto done;
    const size_t rows = bsync_script_row_count(sc);
    if (!ticks_given) {
        if (rows == 0) {
            fprintf(stderr, "blendsync eval: %s: no rows: give --ticks N\n", script_path);
            goto done;
        }
        if (bsync_script_row_tick(sc, rows - 1) + 1 > MAX_TICKS) {
            fprintf(stderr, "blendsync eval: %s: the last tick is beyond %lu ticks\n", script_path, MAX_TICKS);
            goto done;
        }
        ticks = (unsigned long)bsync_script_row_tick(sc, rows - 1) + 1;
    }

    const uint32_t pc = bsync_graph_parameter_count(graph);
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
    if (render_rate) {
        if (!posed) {
            fprintf(stderr, "blendsync eval: %s: --render-rate needs bound clips (there is no pose to present)\n", config);
            goto done;
        }
        pf.hz = (uint32_t)render_rate;
        pf.scratch_size = bsync_present_scratch_size(graph);
        pf.scratch = malloc(pf.scratch_size);
        pf.pose = (bsync_trs*)malloc((size_t)bsync_graph_joint_count(graph) * sizeof(bsync_trs));
        if (!pf.scratch || !pf.pose) {
            fprintf(stderr, "blendsync eval: out of memory\n");
            goto done;
        }
    }
    if (replay_path) {
        bsync_run_recorder_desc rd = {replay_path, config, graph, sc, posed, "eval"};
        if (bsync_run_recorder_open(&rd, &rep, &err) != BSYNC_OK) {
            fprintf(stderr, "blendsync eval: --replay: %s\n", err.message);
            goto done;
        }
    }

    if (out_path) {
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_path, bsync_platform_getpid());
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
    bsync_switch_trigger trig[BSYNC_GRAPH_MAX_SWITCHES];
    if (pf.hz && out && print_frames(out, inst, graph, &pf) != 0) goto done;
    for (unsigned long t = 0; t < ticks; t++) {
        const uint32_t tn = bsync_script_apply(sc, &row, (uint64_t)t, targets, trig);
        if (bsync_instance_tick_ex(inst, &input, trig, tn) != BSYNC_OK) {
            fprintf(stderr, "blendsync eval: tick %lu failed\n", t);
            goto done;
        }
        uint64_t state = bsync_instance_state_checksum(inst), pose = 0;
        if (posed && bsync_instance_pose_checksum(inst, &pose, NULL) != BSYNC_OK) {
            fprintf(stderr, "blendsync eval: tick %lu: the pose failed\n", t);
            goto done;
        }
        if (rep && bsync_run_recorder_tick(rep, (uint64_t)t, targets, trig, tn, state, pose, &err) != BSYNC_OK) {
            fprintf(stderr, "blendsync eval: --replay: %s\n", err.message);
            goto done;
        }
        bsync_checksum_u64(&hs, (uint64_t)t);
        bsync_checksum_u64(&hs, state);
        if (posed) bsync_checksum_u64(&hs, pose);
        if (!out) continue;
        if (print_tick(out, inst, graph, tree, t, state, posed ? &pose : NULL) != 0) goto done;
        if (pf.hz && print_frames(out, inst, graph, &pf) != 0) goto done;
    }
    if (rep) {
        bsync_result fr = bsync_run_recorder_finish(rep, (uint64_t)ticks, &err);
        rep = NULL;
        if (fr != BSYNC_OK) {
            fprintf(stderr, "blendsync eval: --replay: %s\n", err.message);
            goto done;
        }
    }
    if (out && out != stdout) {
        int bad = ferror(out);
        bad |= fclose(out) != 0;
        out = NULL;
        if (bad) {
            fprintf(stderr, "blendsync eval: %s: write failed\n", tmp);
            goto done;
        }
        if (bsync_platform_rename(tmp, out_path) != 0) {
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
    bsync_run_recorder_abort(rep);
    if (out && out != stdout) fclose(out);
    if (tmp[0]) remove(tmp);
    free(mem);
    free(pf.scratch);
    free(pf.pose);
    free(targets);
    bsync_script_destroy(sc);
    bsync_graph_config_destroy(gc);
    return status;
}
