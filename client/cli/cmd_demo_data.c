/* cmd_demo_data.c — `blendsync demo --data DIR`: the example graphs on real characters, and
 * `blendsync demo --locomotion`: the match demo's locomotion graph along a scripted joystick path
 * (main.c routes `demo` with --data or --locomotion here, so cmd_demo.c keeps only the core dependencies the determinism test
 * compiles it with). */
#define _XOPEN_SOURCE 700 /* mkstemp, fdopen, realpath */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/blend_tree.h"
#include "platform.h"
#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/gltf_write.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/pose.h"
#include "cli_graph_config.h"
#include "cli_json.h"
#include "commands.h"
#include "demo_embed.h" /* k_demo_graph_json, k_demo_path_csv: scripts/demo/, compiled in */

static int parse_int(const char* s, long lo, long hi, long* out) {
    char* end = NULL;
    long v = strtol(s, &end, 10);
    if (!end || *end || end == s || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}

static void demo_usage(FILE* f) {
    fprintf(f, "usage: blendsync demo --data DIR [--out-dir OUT] [--every K] [--quiet]\n"
               "       blendsync demo --locomotion [--out-dir OUT] [--every K] [--quiet]\n"
               "  (blendsync demo --help for the built-in demo's options)\n");
}

/* ------------------------------------------------------------------------------------------------
 * `blendsync demo --data DIR [--out-dir OUT] [--every K] [--quiet]`: the two example graphs of
 * scripts/examples/ on real characters from the shared data folder DIR (the folder holding
 * ozz-animation-pab/ and kaykit-character-animations/, e.g. ../shared/data):
 *   pab_locomotion  scripts/examples/pab_locomotion.json + pab_speed_ramp.csv (1D speed, walk/jog/run)
 *   kaykit_strafe   scripts/examples/kaykit_strafe.json + kaykit_joystick.csv (2D directional strafe)
 * The configs and scripts are compiled in below, copies of those files with each clip source's
 * "../../../shared/data" prefix replaced by "@DATA@"; the demo substitutes the absolute path of DIR
 * (realpath, JSON-escaped), writes the config to a temporary file ($TMPDIR or /tmp, removed right
 * after loading: clip sources are resolved at load time) and loads it like `blendsync bake` does.
 * Each graph runs one instance tick by tick (script rows applied as eval/bake apply them), prints a
 * row per second (parameters, leaf weights, root node phase, a hand joint relative to joint 0 in
 * model space, the pose checksum eval prints as "pose_checksum") and writes OUT/NAME.glb exactly as
 * `blendsync bake CONFIG --script SCRIPT -o OUT/NAME.glb --skin` would, except that asset.generator
 * is "blendsync demo" (tests/cli/cli_demo_data.sh compares the two files). Without --data none of
 * this runs: the built-in demo above is unchanged. */

static const char k_pab_config[] =
    "{\n"
    "  \"tick_rate\": 30,\n"
    "  \"parameters\": {\n"
    "    \"speed\": { \"default\": 0, \"smooth_time\": 0.3, \"max_speed\": 8 }\n"
    "  },\n"
    "  \"root\": \"locomotion\",\n"
    "  \"nodes\": {\n"
    "    \"locomotion\": {\n"
    "      \"type\": \"Simple1D\",\n"
    "      \"parameter\": \"speed\",\n"
    "      \"sync\": \"normalized\",\n"
    "      \"children\": [\n"
    "        { \"motion\": \"walk\", \"threshold\": 1.06913 },\n"
    "        { \"motion\": \"jog\", \"threshold\": 3.125 },\n"
    "        { \"motion\": \"run\", \"threshold\": 5.01837 }\n"
    "      ]\n"
    "    }\n"
    "  },\n"
    "  \"clips\": {\n"
    "    \"walk\": { \"source\": \"@DATA@/ozz-animation-pab/converted/pab_locomotion_runtime.gltf\", \"animation\": \"walk\", \"loop\": true },\n"
    "    \"jog\": { \"source\": \"@DATA@/ozz-animation-pab/converted/pab_locomotion_runtime.gltf\", \"animation\": \"jog\", \"loop\": true },\n"
    "    \"run\": { \"source\": \"@DATA@/ozz-animation-pab/converted/pab_locomotion_runtime.gltf\", \"animation\": \"run\", \"loop\": true }\n"
    "  },\n"
    "  \"root_motion\": \"keep\",\n"
    "  \"root_joint\": \"Hips\"\n"
    "}\n";
static const char k_pab_script[] =
    "tick,speed\n"
    "0,0\n"
    "15,1.06913\n"
    "45,2\n"
    "75,3.125\n"
    "105,4\n"
    "135,5.01837\n"
    "165,6\n"
    "195,3\n"
    "225,1.06913\n"
    "255,1.06913\n"
    "300,1.06913\n";
static const char k_kaykit_config[] =
    "{\n"
    "  \"tick_rate\": 30,\n"
    "  \"parameters\": {\n"
    "    \"move_x\": { \"default\": 0, \"smooth_time\": 0.25, \"max_speed\": 12, \"pair\": \"move_y\" },\n"
    "    \"move_y\": { \"default\": 0 }\n"
    "  },\n"
    "  \"root\": \"move\",\n"
    "  \"nodes\": {\n"
    "    \"move\": {\n"
    "      \"type\": \"FreeformDirectional2D\",\n"
    "      \"parameters\": [\"move_x\", \"move_y\"],\n"
    "      \"sync\": \"normalized\",\n"
    "      \"children\": [\n"
    "        { \"motion\": \"idle\", \"position\": [0, 0] },\n"
    "        { \"motion\": \"walk\", \"position\": [0, 0.85] },\n"
    "        { \"motion\": \"run\", \"position\": [0, 3.3] },\n"
    "        { \"motion\": \"strafe_right\", \"position\": [2.61, 1.5] },\n"
    "        { \"motion\": \"walk_back\", \"position\": [0, -0.66] },\n"
    "        { \"motion\": \"strafe_left\", \"position\": [-2.61, 1.5] }\n"
    "      ]\n"
    "    }\n"
    "  },\n"
    "  \"clips\": {\n"
    "    \"idle\": { \"source\": \"@DATA@/kaykit-character-animations/Med_General.glb\", \"animation\": \"Rig_Medium|Idle_A\", \"loop\": true },\n"
    "    \"walk\": { \"source\": \"@DATA@/kaykit-character-animations/Med_MovementBasic.glb\", \"animation\": \"Rig_Medium|Walking_A\", \"loop\": true },\n"
    "    \"run\": { \"source\": \"@DATA@/kaykit-character-animations/Med_MovementBasic.glb\", \"animation\": \"Rig_Medium|Running_A\", \"loop\": true },\n"
    "    \"strafe_right\": { \"source\": \"@DATA@/kaykit-character-animations/Med_MovementAdvanced.glb\", \"animation\": \"Rig_Medium|Running_Strafe_Right\", \"loop\": true },\n"
    "    \"walk_back\": { \"source\": \"@DATA@/kaykit-character-animations/Med_MovementAdvanced.glb\", \"animation\": \"Rig_Medium|Walking_Backwards\", \"loop\": true },\n"
    "    \"strafe_left\": { \"source\": \"@DATA@/kaykit-character-animations/Med_MovementAdvanced.glb\", \"animation\": \"Rig_Medium|Running_Strafe_Left\", \"loop\": true }\n"
    "  },\n"
    "  \"root_motion\": \"keep\",\n"
    "  \"root_joint\": \"hips\"\n"
    "}\n";
static const char k_kaykit_script[] =
    "tick,move_x,move_y\n"
    "0,0,0\n"
    "30,0,0.85\n"
    "60,0,3.3\n"
    "90,0,3\n"
    "100,0.7765,2.8978\n"
    "110,1.5,2.5981\n"
    "120,2.1213,2.1213\n"
    "130,2.5981,1.5\n"
    "140,2.8978,0.7765\n"
    "150,3,0\n"
    "160,2.8978,-0.7765\n"
    "170,2.5981,-1.5\n"
    "180,2.1213,-2.1213\n"
    "190,1.5,-2.5981\n"
    "200,0.7765,-2.8978\n"
    "210,0,-3\n"
    "220,-0.7765,-2.8978\n"
    "230,-1.5,-2.5981\n"
    "240,-2.1213,-2.1213\n"
    "250,-2.5981,-1.5\n"
    "260,-2.8978,-0.7765\n"
    "270,-3,0\n"
    "280,-2.8978,0.7765\n"
    "290,-2.5981,1.5\n"
    "300,-2.1213,2.1213\n"
    "310,-1.5,2.5981\n"
    "320,-0.7765,2.8978\n"
    "330,0,3\n"
    "340,0,0.85\n"
    "370,0,0\n"
    "400,0,0\n";

typedef struct demo_example {
    const char* name;       /* the .glb's base name and animation name */
    const char* title;
    const char* config;     /* JSON with @DATA@ */
    const char* script_name;
    const char* script;
    const char* probe;      /* a source file under DIR, checked first for a clear message */
    const char* bone;       /* joint printed relative to joint 0 */
} demo_example;

static const demo_example k_examples[] = {
    {"pab_locomotion", "ozz-animation pab walk/jog/run, 1D speed", k_pab_config, "pab_speed_ramp.csv", k_pab_script,
     "ozz-animation-pab/converted/pab_locomotion_runtime.gltf", "Lefthand"},
    {"kaykit_strafe", "KayKit Rig_Medium idle/walk/run/strafes/back, 2D directional", k_kaykit_config,
     "kaykit_joystick.csv", k_kaykit_script, "kaykit-character-animations/Med_MovementAdvanced.glb", "hand.l"},
};

/* `blendsync demo --locomotion`: the match demo's graph (scripts/demo/humanoid_locomotion.json, the
 * built-in humanoid: no data folder) along scripts/demo/locomotion_path.csv (walk, run, strafe, back
 * up, wave, punch with inertialization), both compiled in by the build. */
static const demo_example k_locomotion = {"locomotion", "the demo graph: 2D stick + speed, upper-body actions",
                                          k_demo_graph_json, "locomotion_path.csv", k_demo_path_csv, NULL, "hand_l"};

/* text with every @DATA@ replaced by `dir` JSON-escaped by cJSON (malloc'ed; NULL when out of memory) */
static char* demo_config_text(const char* tmpl, const char* dir) {
    char* quoted = bsync_cli_json_quote(dir);
    if (!quoted) return NULL;
    const size_t dl = strlen(quoted) - 2; /* without its quotes */
    size_t n = 0;
    for (const char* p = strstr(tmpl, "@DATA@"); p; p = strstr(p + 6, "@DATA@")) n++;
    char* out = (char*)malloc(strlen(tmpl) + n * dl + 1);
    char* o = out;
    for (const char* p = tmpl; out && *p;) {
        if (!strncmp(p, "@DATA@", 6)) {
            memcpy(o, quoted + 1, dl);
            o += dl;
            p += 6;
        } else {
            *o++ = *p++;
        }
    }
    if (out) *o = '\0';
    cJSON_free(quoted);
    return out;
}

/* Loads the config text through a temporary file. NULL on failure (message printed). */
static bsync_graph_config* demo_load_config(const char* text, bsync_blend_diagnostics* diags) {
    const char* tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    size_t cap = strlen(tmpdir) + 40;
    char* path = (char*)malloc(cap);
    if (!path) {
        fprintf(stderr, "blendsync demo: out of memory\n");
        return NULL;
    }
    snprintf(path, cap, "%s/blendsync-demo-XXXXXX", tmpdir);
    int fd = mkstemp(path);
    FILE* f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "blendsync demo: cannot create a temporary config in %s\n", tmpdir);
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        free(path);
        return NULL;
    }
    size_t len = strlen(text);
    int ok = fwrite(text, 1, len, f) == len;
    if (fclose(f) != 0) ok = 0;
    bsync_graph_config* gc = NULL;
    if (!ok) fprintf(stderr, "blendsync demo: cannot write the temporary config %s\n", path);
    else gc = bsync_cli_load_graph_config("demo", path, diags);
    unlink(path);
    free(path);
    return gc;
}

static int demo_run_example(const demo_example* ex, const char* data_dir, const char* out_dir, long every, int quiet) {
    static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    char* text = demo_config_text(ex->config, data_dir);
    if (!text) {
        fprintf(stderr, "blendsync demo: out of memory\n");
        return 2;
    }
    bsync_graph_config* gc = demo_load_config(text, diags);
    free(text);
    if (!gc) return 2;
    const bsync_graph* graph = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
    const bsync_skeleton* sk = bsync_graph_config_skeleton(gc);
    int status = 2;
    bsync_script* sc = NULL;
    bsync_error err;
    void* mem = NULL;
    fix16_t* targets = NULL;
    bsync_trs *poses = NULL, *model = NULL;
    char* out_path = NULL;
    if (!sk) {
        fprintf(stderr, "blendsync demo: %s: no skeleton\n", ex->name);
        goto done;
    }
    if (bsync_script_parse(ex->script, strlen(ex->script), ex->script_name, graph, NULL, &sc, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync demo: %s\n", err.message);
        goto done;
    }
    if (bsync_script_row_count(sc) == 0) goto done;
    const uint64_t ticks = bsync_script_row_tick(sc, bsync_script_row_count(sc) - 1) + 1;
    const uint32_t rate = bsync_graph_tick_rate(graph);
    const uint32_t jc = bsync_skeleton_joint_count(sk);
    const uint32_t pc = bsync_graph_parameter_count(graph);
    const uint32_t mc = bsync_graph_motion_count(graph);
    const uint32_t root_node = bsync_blend_tree_root(tree);
    uint32_t bone = 0;
    bsync_skeleton_find(sk, ex->bone, &bone);
    size_t size = bsync_instance_memory_size(graph);
    mem = malloc(size);
    targets = (fix16_t*)calloc(pc ? pc : 1, sizeof(fix16_t));
    poses = (bsync_trs*)malloc(((size_t)ticks + 1) * jc * sizeof(bsync_trs));
    model = (bsync_trs*)malloc((size_t)jc * sizeof(bsync_trs));
    bsync_instance* inst = NULL;
    if (!mem || !targets || !poses || !model || bsync_instance_init(mem, size, graph, &inst) != BSYNC_OK) {
        fprintf(stderr, "blendsync demo: cannot create the instance (out of memory)\n");
        goto done;
    }
    for (uint32_t i = 0; i < pc; i++) targets[i] = bsync_blend_tree_parameter_default(tree, i);
    if (bsync_instance_pose(inst, poses, NULL) != BSYNC_OK) {
        fprintf(stderr, "blendsync demo: %s: the initial pose failed\n", ex->name);
        goto done;
    }
    int wid[64];
    const uint32_t shown_params = pc < 64 ? pc : 64, shown_motions = mc < 64 ? mc : 64;
    if (!quiet) {
        printf("blendsync demo: %s (%s), %u joints; clips", ex->name, ex->title, (unsigned)jc);
        for (uint32_t m = 0; m < mc; m++) {
            const bsync_clip* c = bsync_graph_motion_clip(graph, m);
            printf(" %s %.3f s%s", bsync_blend_tree_motion_name(tree, m),
                   c ? bsync_fx_to_double(bsync_clip_duration(c)) : 0.0, m + 1 < mc ? "," : "");
        }
        printf("; %llu ticks at %u Hz\n\n", (unsigned long long)ticks, (unsigned)rate);
        printf("%6s", "tick");
        for (uint32_t i = 0; i < shown_params; i++) {
            const char* nm = bsync_blend_tree_parameter_name(tree, i);
            wid[i] = (int)strlen(nm) > 7 ? (int)strlen(nm) : 7;
            printf(" %*s", wid[i], nm);
        }
        for (uint32_t m = 0; m < shown_motions; m++) {
            const char* nm = bsync_blend_tree_motion_name(tree, m);
            int w = (int)strlen(nm) > 7 ? (int)strlen(nm) : 7;
            printf(" %*s", w, nm);
        }
        char label[96];
        snprintf(label, sizeof label, "%s from %s (m)", bsync_skeleton_joint_name(sk, bone),
                 bsync_skeleton_joint_name(sk, 0));
        printf(" %6s   %-26s %s\n", "phase", label, "pose checksum");
    }
    size_t row = 0;
    bsync_instance_input input = {targets, pc};
    bsync_switch_trigger trig[BSYNC_GRAPH_MAX_SWITCHES];
    uint64_t pose_sum = 0;
    for (uint64_t t = 0; t < ticks; t++) {
        const uint32_t tn = bsync_script_apply(sc, &row, t, targets, trig);
        if (bsync_instance_tick_ex(inst, &input, trig, tn) != BSYNC_OK ||
            bsync_instance_pose(inst, poses + ((size_t)t + 1) * jc, model) != BSYNC_OK ||
            bsync_instance_pose_checksum(inst, &pose_sum, NULL) != BSYNC_OK) {
            fprintf(stderr, "blendsync demo: %s: tick %llu failed\n", ex->name, (unsigned long long)t);
            goto done;
        }
        if (!quiet && (t % (uint64_t)every == 0 || t == ticks - 1)) {
            printf("%6llu", (unsigned long long)t);
            for (uint32_t i = 0; i < shown_params; i++)
                printf(" %*.3f", wid[i], bsync_fx_to_double(bsync_instance_parameter(inst, i)));
            const fix16_t* w = bsync_instance_leaf_weights(inst);
            for (uint32_t m = 0; m < shown_motions; m++) {
                const char* nm = bsync_blend_tree_motion_name(tree, m);
                printf(" %*.4f", (int)strlen(nm) > 7 ? (int)strlen(nm) : 7, bsync_fx_to_double(w[m]));
            }
            bsync_vec3 p = bsync_vec3_sub(model[bone].t, model[0].t);
            printf(" %6.3f   (%7.4f, %7.4f, %7.4f)  %016llx\n", bsync_fx_to_double(bsync_instance_node_phase(inst, root_node)),
                   bsync_fx_to_double(p.x), bsync_fx_to_double(p.y), bsync_fx_to_double(p.z),
                   (unsigned long long)pose_sum);
        }
    }
    size_t cap = strlen(out_dir) + strlen(ex->name) + 8;
    out_path = (char*)malloc(cap);
    if (!out_path) {
        fprintf(stderr, "blendsync demo: out of memory\n");
        goto done;
    }
    snprintf(out_path, cap, "%s/%s.glb", out_dir, ex->name);
    bsync_gltf_bake bake = {sk, ex->name, "blendsync demo", rate, (uint32_t)ticks + 1, poses};
    if (bsync_gltf_write_glb_file_ex(out_path, &bake, BSYNC_GLTF_WRITE_SKIN, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync demo: %s\n", err.message);
        goto done;
    }
    printf("%s%s: %u joints, %llu ticks at %u Hz (%.3f s), final pose checksum %016llx; wrote %s (%llu keys, skin)\n",
           quiet ? "" : "\n", ex->name, (unsigned)jc, (unsigned long long)ticks, (unsigned)rate,
           (double)ticks / (double)rate, (unsigned long long)pose_sum, out_path, (unsigned long long)ticks + 1);
    status = 0;
done:
    free(out_path);
    free(mem);
    free(targets);
    free(poses);
    free(model);
    bsync_script_destroy(sc);
    bsync_graph_config_destroy(gc);
    return status;
}

int bsync_cmd_demo_data(int argc, char** argv) {
    const char *data = NULL, *out_dir = ".";
    long every = -1;
    int quiet = 0, locomotion = 0;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--quiet")) {
            quiet = 1;
        } else if (!strcmp(a, "--locomotion")) {
            locomotion = 1;
        } else if (!strcmp(a, "--data") || !strcmp(a, "--out-dir") || !strcmp(a, "--every")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync demo: %s needs a value\n", a);
                return 2;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "--data")) data = v;
            else if (!strcmp(a, "--out-dir")) out_dir = v;
            else if (!parse_int(v, 1, 10000000, &every)) {
                fprintf(stderr, "blendsync demo: --every needs a whole number from 1 to 10000000\n");
                return 2;
            }
        } else if (!strcmp(a, "--ticks") || !strcmp(a, "--rate")) {
            fprintf(stderr, "blendsync demo: %s does not go with --data (the example scripts and configs set them)\n", a);
            return 2;
        } else {
            fprintf(stderr, "blendsync demo: unknown option '%s'\n", a);
            demo_usage(stderr);
            return 2;
        }
    }
    if (locomotion && data) {
        fprintf(stderr, "blendsync demo: --locomotion and --data are two different demos: give one\n");
        return 2;
    }
    if (locomotion) return demo_run_example(&k_locomotion, "", out_dir, every < 0 ? 30 : every, quiet);
    char* dir = bsync_platform_realpath(data, NULL);
    if (!dir) {
        fprintf(stderr, "blendsync demo: --data %s: %s\n", data, strerror(errno));
        return 2;
    }
    int status = 0;
    for (size_t e = 0; e < sizeof k_examples / sizeof k_examples[0]; e++) {
        size_t cap = strlen(dir) + strlen(k_examples[e].probe) + 2;
        char* probe = (char*)malloc(cap);
        if (!probe) {
            status = 2;
            break;
        }
        snprintf(probe, cap, "%s/%s", dir, k_examples[e].probe);
        int there = access(probe, R_OK) == 0;
        if (!there)
            fprintf(stderr, "blendsync demo: --data %s: no %s (give the shared data folder, e.g. ../shared/data)\n",
                    data, probe);
        free(probe);
        if (!there) {
            status = 2;
            break;
        }
    }
    for (size_t e = 0; status == 0 && e < sizeof k_examples / sizeof k_examples[0]; e++) {
        if (e > 0 && !quiet) printf("\n");
        status = demo_run_example(&k_examples[e], dir, out_dir, every < 0 ? 30 : every, quiet);
    }
    free(dir);
    return status;
}

