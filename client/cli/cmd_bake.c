/* cmd_bake.c — `blendsync bake CONFIG --script INPUT.csv -o OUT.glb [--ticks N] [--skin]`: run one graph
 * instance tick by tick from a CSV script (io/script.h's graph script, the same as `blendsync eval`) and write
 * the local poses as a binary glTF 2.0 file: the skeleton as nodes with their rest TRS, the poses as
 * one animation named after the config file (io/gltf_write.h).
 *
 * Keys: N + 1 keys for N ticks. Key 0 (time 0) is the pose after init, before any tick; key k
 * (time k / tick_rate seconds) is the pose after tick k - 1, that is after the k-th bsync_instance_tick
 * (the script's row for tick t, parameter targets and `play:NODE` switch triggers, applied to tick t
 * through bsync_instance_tick_ex, exactly as eval does). So the pose eval
 * reports after tick t is key t + 1, and the animation lasts N / tick_rate seconds.
 * N (--ticks) defaults to the last row's tick + 1. Limits: N <= 32767 * tick_rate (times stay in the
 * fix16 range) and joints * 3 * (N + 1) < 2^24 (the clip builder's key limit, so the file re-imports).
 *
 * --render-rate HZ (1..1000) bakes what a player sees on a display at HZ instead: the simulation still
 * runs at the graph's tick rate, and key f (time f / HZ seconds, f = 0 .. floor(N * HZ / rate)) is the
 * presentation pose (blendsync/present.h) of the instance after c = floor(f * rate / HZ) ticks at
 * alpha = (f * rate - c * HZ) / HZ, as fix16 rounded to nearest; the file's key rate is HZ. At HZ =
 * rate every alpha is 0 and the file is the plain bake byte for byte.
 * Limits as above with the frame count for N + 1 and HZ for the rate.
 *
 * --skin adds the skeleton as a glTF skin (joints = every node, inverse bind matrices from the rest
 * pose: io/gltf_write.h BSYNC_GLTF_WRITE_SKIN) so viewers show an armature; without it the file is
 * as before (an animated node hierarchy).
 *
 * --compact writes OUT as a .bsclip instead (io/clip_file.h: the skeleton and one clip named after
 * the config): the same keys (key k at time round(k * 65536 / key rate) fix16 seconds, one
 * translation, rotation and scale track per joint) built with bsync_clip_create and stored with
 * compact keys (clip.h bsync_clip_compact_create; .bsclip version 2; docs/clip-format.md). At most
 * 65535 keys (the compact encoding's per-track limit). Graphs with events, ranges or float curves: the
 * run's (bake_collect) go into the file as clip actions (version 3, docs/clip-format.md "Clip actions";
 * not with --render-rate, nor into a .glb).
 *
 * The output is written through OUT.glb.tmp.<pid> + rename, so OUT.glb is either the complete new
 * file or untouched. Exit: 0 success, 2 error (message on stderr; nothing written). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform.h"
#include "blendsync/blend_tree.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/clip.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/io/gltf_write.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/present.h"
#include "blendsync/skeleton.h"
#include "cli_graph_config.h"
#include "commands.h"

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync bake CONFIG --script INPUT.csv -o OUT.glb [--ticks N] [--skin] [--render-rate HZ]\n"
            "                      [--compact]\n"
            "\n"
            "Runs one instance of the config's graph tick by tick with parameter targets from a CSV\n"
            "script (as `blendsync eval`) and writes the poses as a glTF 2.0 binary file: the skeleton\n"
            "as nodes, N + 1 keys (the pose before the first tick, then after each tick) at tick / rate\n"
            "seconds in one animation.\n"
            "\n"
            "  CONFIG             a graph configuration file with clips (JSON)\n"
            "  --script FILE      header \"tick,PARAM,...\", then rows \"TICK,VALUE,...\" sorted by tick;\n"
            "                     \"play:NODE\" columns trigger Switch nodes: \"STATE [fade=N] [carry] [inertialize]\"\n"
            "  -o, --out FILE     the .glb to write (atomically: temp file + rename)\n"
            "  --ticks N          ticks to run (default: the last row's tick + 1)\n"
            "  --render-rate HZ   keys at a display's rate HZ (1..1000): presentation poses between\n"
            "                     the ticks (the simulation still runs at the graph's tick rate)\n"
            "  --skin             also write the skeleton as a glTF skin (inverse bind matrices from\n"
            "                     the rest pose), so viewers show an armature\n"
            "  --compact          write OUT as a .bsclip (version 2) with compact keys instead: the\n"
            "                     same keys as one clip, stored compactly (docs/clip-format.md)\n"
            "  --help             this text\n"
            "\n"
            "Exit status: 0 success, 2 error.\n");
}

/* File name without folders and its last extension: the animation name. */
static void base_name(const char* path, char* out, size_t cap) {
    const char* b = bsync_platform_last_separator(path);
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    const char* dot = strrchr(b, '.');
    if (dot && dot != b) n = (size_t)(dot - b);
    if (n >= cap) n = cap - 1;
    memcpy(out, b, n);
    out[n] = '\0';
    if (!out[0]) snprintf(out, cap, "bake");
}

/* --render-rate: key f is the presentation pose after c = floor(f * rate / hz) ticks at alpha =
 * (f * rate - c * hz) / hz (fix16, rounded to nearest); the instance ticks on demand with the script's
 * rows, exactly as the tick-rate bake does. 0 on success; else a message and -1. */
static int bake_frames(bsync_instance* inst, const bsync_script* sc, fix16_t* targets, uint32_t pc, const bsync_graph* graph,
                       uint32_t hz, uint64_t keys, void* scratch, bsync_trs* poses, uint32_t jc) {
    const uint64_t rate = bsync_graph_tick_rate(graph);
    const size_t scratch_size = bsync_present_scratch_size(graph);
    size_t row = 0;
    bsync_instance_input input = {targets, pc};
    bsync_switch_trigger trig[BSYNC_GRAPH_MAX_SWITCHES];
    for (uint64_t f = 0; f < keys; f++) {
        const uint64_t c = f * rate / hz, rest = f * rate - c * hz; /* rest < hz */
        while (bsync_instance_tick_count(inst) < c) {
            const uint64_t t = bsync_instance_tick_count(inst);
            const uint32_t tn = bsync_script_apply(sc, &row, t, targets, trig);
            if (bsync_instance_tick_ex(inst, &input, trig, tn) != BSYNC_OK) {
                fprintf(stderr, "blendsync bake: tick %llu failed\n", (unsigned long long)t);
                return -1;
            }
        }
        const fix16_t alpha = (fix16_t)((rest * 65536u + hz / 2u) / hz);
        if (bsync_present_pose(inst, alpha, scratch, scratch_size, poses + (size_t)f * jc, NULL, NULL) != BSYNC_OK) {
            fprintf(stderr, "blendsync bake: frame %llu: the presentation pose failed\n", (unsigned long long)f);
            return -1;
        }
    }
    return 0;
}

/* --compact: what the run fired and its float curves, as clip actions of the baked clip (docs/clip-format.md
 * "Clip actions"): an event per event report at its key's time, a range from the key its range opened at
 * to the one it closed at (open at the end: to the clip's end), one curve per channel with a key per key
 * (when there are at most 4096 keys). */
typedef struct bake_open { uint32_t action, node, child; fix16_t begin; } bake_open;
typedef struct bake_actions {
    bsync_clip_action* list;
    uint32_t count, cap;
    bake_open* open;
    uint32_t open_count, open_cap;
    fix16_t* curves; /* channels x keys: values, then one shared time array */
    fix16_t* times;
} bake_actions;

static bsync_clip_action* bake_push(bake_actions* b) {
    if (b->count == b->cap) {
        const uint32_t cap = b->cap ? 2u * b->cap : 64u;
        bsync_clip_action* l = realloc(b->list, cap * sizeof *l);
        if (!l) return NULL;
        b->list = l;
        b->cap = cap;
    }
    bsync_clip_action* a = &b->list[b->count++];
    memset(a, 0, sizeof *a);
    return a;
}

/* The reports of the tick that produced key `key` (at time t). */
static int bake_collect(bake_actions* b, const bsync_graph* g, const bsync_instance* inst, fix16_t t) {
    const bsync_action_report* r = NULL;
    uint32_t n = 0;
    if (bsync_instance_actions(inst, &r, &n) != BSYNC_OK) return -1;
    for (uint32_t i = 0; i < n; i++) {
        bsync_graph_action_desc d;
        if (bsync_graph_action(g, r[i].action, &d) != BSYNC_OK) return -1;
        if (r[i].kind == BSYNC_ACTION_EVENT) {
            bsync_clip_action* a = bake_push(b);
            if (!a) return -1;
            a->kind = BSYNC_CLIP_ACTION_EVENT;
            a->name = d.name;
            a->time = t;
            a->payload = r[i].payload;
            continue;
        }
        uint32_t k = 0;
        while (k < b->open_count && !(b->open[k].action == r[i].action && b->open[k].node == r[i].node &&
                                      b->open[k].child == r[i].child))
            k++;
        if (k < b->open_count && r[i].exits > 0) { /* closed in this tick */
            if (t > b->open[k].begin) {
                bsync_clip_action* a = bake_push(b);
                if (!a) return -1;
                a->kind = BSYNC_CLIP_ACTION_RANGE;
                a->name = d.name;
                a->time = b->open[k].begin;
                a->end = t;
                a->payload = r[i].payload;
            }
            b->open[k] = b->open[--b->open_count];
            k = b->open_count;
        }
        if (k == b->open_count && r[i].active) { /* open after this tick */
            if (b->open_count == b->open_cap) {
                const uint32_t cap = b->open_cap ? 2u * b->open_cap : 16u;
                bake_open* o = realloc(b->open, cap * sizeof *o);
                if (!o) return -1;
                b->open = o;
                b->open_cap = cap;
            }
            b->open[b->open_count++] = (bake_open){r[i].action, r[i].node, r[i].child, t};
        }
    }
    return 0;
}

/* --compact: the keys as a clip (one T, R, S track per joint), compacted, saved as a .bsclip. */
static int write_compact(const char* path, const bsync_skeleton* sk, const char* name, uint32_t key_rate, uint32_t keys,
                         const bsync_trs* poses, bake_actions* acts, const bsync_graph* g) {
    if (keys > 65535u) {
        fprintf(stderr, "blendsync bake: --compact: %u keys is beyond the compact encoding's 65535 keys per track\n",
                (unsigned)keys);
        return -1;
    }
    const uint32_t jc = bsync_skeleton_joint_count(sk);
    fix16_t* times = malloc(sizeof(fix16_t) * keys);
    bsync_vec3* vt = malloc(sizeof(bsync_vec3) * keys * jc);
    bsync_vec3* vs = malloc(sizeof(bsync_vec3) * keys * jc);
    bsync_quat* vr = malloc(sizeof(bsync_quat) * keys * jc);
    bsync_raw_track* tr = malloc(sizeof(bsync_raw_track) * 3u * jc);
    int rc = -1;
    bsync_clip *clip = NULL, *small = NULL;
    if (!times || !vt || !vs || !vr || !tr) {
        fprintf(stderr, "blendsync bake: out of memory\n");
        goto out;
    }
    for (uint32_t k = 0; k < keys; k++) times[k] = (fix16_t)(((uint64_t)k * 65536u + key_rate / 2u) / key_rate);
    for (uint32_t j = 0; j < jc; j++) {
        for (uint32_t k = 0; k < keys; k++) {
            const bsync_trs* x = &poses[(size_t)k * jc + j];
            vt[(size_t)j * keys + k] = x->t;
            vr[(size_t)j * keys + k] = x->r;
            vs[(size_t)j * keys + k] = x->s;
        }
        tr[3u * j] = (bsync_raw_track){j, BSYNC_TRACK_TRANSLATION, keys, times, &vt[(size_t)j * keys], NULL};
        tr[3u * j + 1u] = (bsync_raw_track){j, BSYNC_TRACK_ROTATION, keys, times, NULL, &vr[(size_t)j * keys]};
        tr[3u * j + 2u] = (bsync_raw_track){j, BSYNC_TRACK_SCALE, keys, times, &vs[(size_t)j * keys], NULL};
    }
    bsync_clip_desc cd = {name, times[keys - 1], 0, tr, 3u * jc};
    bsync_result r = bsync_clip_create(&cd, sk, NULL, &clip);
    if (r == BSYNC_OK) r = bsync_clip_compact_create(clip, NULL, &small);
    if (r != BSYNC_OK) {
        fprintf(stderr, "blendsync bake: --compact: cannot build the clip: %s\n", bsync_result_string(r));
        goto out;
    }
    const bsync_clip* clips[1] = {small};
    bsync_error err;
    memset(&err, 0, sizeof err);
    /* ranges still open end with the clip; the curves' keys at the keys' times */
    for (uint32_t k = 0; k < acts->open_count; k++) {
        if (acts->open[k].begin >= times[keys - 1]) continue;
        bsync_graph_action_desc d;
        bsync_clip_action* a = bake_push(acts);
        if (!a || bsync_graph_action(g, acts->open[k].action, &d) != BSYNC_OK) goto out;
        a->kind = BSYNC_CLIP_ACTION_RANGE;
        a->name = d.name;
        a->time = acts->open[k].begin;
        a->end = times[keys - 1];
        a->payload = d.payload;
    }
    for (uint32_t c = 0; acts->curves && c < bsync_graph_curve_channel_count(g); c++) {
        bsync_clip_action* a = bake_push(acts);
        if (!a) goto out;
        a->kind = BSYNC_CLIP_ACTION_CURVE;
        a->name = bsync_graph_curve_channel_name(g, c);
        a->key_count = keys;
        a->key_times = times;
        a->key_values = acts->curves + (size_t)c * keys;
    }
    if (bsync_clip_file_save_ex(path, sk, clips, 1, acts->list, acts->count, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync bake: %s\n", err.message);
        goto out;
    }
    rc = 0;
out:
    if (small) bsync_clip_destroy(small);
    if (clip) bsync_clip_destroy(clip);
    free(times);
    free(vt);
    free(vs);
    free(vr);
    free(tr);
    return rc;
}

int bsync_cmd_bake(int argc, char** argv) {
    const char *config = NULL, *script_path = NULL, *out_path = NULL;
    unsigned long ticks = 0;
    int ticks_given = 0;
    uint32_t write_flags = 0;
    unsigned long render_rate = 0; /* 0: keys at the tick rate */
    int compact = 0;               /* --compact: a .bsclip with compact keys instead of a .glb */
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--skin")) {
            write_flags |= BSYNC_GLTF_WRITE_SKIN;
        } else if (!strcmp(a, "--compact")) {
            compact = 1;
        } else if (!strcmp(a, "--script") || !strcmp(a, "--ticks") || !strcmp(a, "--out") || !strcmp(a, "-o") ||
                   !strcmp(a, "--render-rate")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync bake: %s needs a value\n", a);
                return 2;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "--script")) script_path = v;
            else if (!strcmp(a, "--render-rate")) {
                char* end = NULL;
                errno = 0;
                render_rate = strtoul(v, &end, 10);
                if (v[0] < '0' || v[0] > '9' || !end || *end || errno || render_rate < 1 || render_rate > 1000) {
                    fprintf(stderr, "blendsync bake: --render-rate needs a whole number from 1 to 1000, not '%s'\n", v);
                    return 2;
                }
            } else if (!strcmp(a, "--ticks")) {
                char* end = NULL;
                errno = 0;
                ticks = strtoul(v, &end, 10);
                if (v[0] < '0' || v[0] > '9' || !end || *end || errno || ticks < 1 || ticks > 10000000ul) {
                    fprintf(stderr, "blendsync bake: --ticks needs a whole number from 1 to 10000000, not '%s'\n", v);
                    return 2;
                }
                ticks_given = 1;
            } else out_path = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "blendsync bake: unknown option '%s'\n", a);
            return 2;
        } else if (!config) {
            config = a;
        } else {
            fprintf(stderr, "blendsync bake: one CONFIG file only ('%s' is extra)\n", a);
            return 2;
        }
    }
    if (!config || !script_path || !out_path) {
        fprintf(stderr, "blendsync bake: missing %s\n",
                !config ? "CONFIG" : !script_path ? "--script INPUT.csv" : "-o OUT.glb");
        usage(stderr);
        return 2;
    }

    static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    bsync_graph_config* gc = bsync_cli_load_graph_config("bake", config, diags);
    if (!gc) return 2;
    const bsync_graph* graph = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
    const bsync_skeleton* sk = bsync_graph_config_skeleton(gc);

    int status = 2;
    bake_actions acts; /* --compact: the run's clip actions */
    memset(&acts, 0, sizeof acts);
    bsync_script* sc = NULL;
    void* mem = NULL;
    fix16_t* targets = NULL;
    bsync_trs* poses = NULL;
    void* present_mem = NULL;
    if (!sk || bsync_graph_config_bound_clip_count(gc) == 0) {
        fprintf(stderr, "blendsync bake: %s: the config binds no clips: there is no pose to bake\n", config);
        goto done;
    }
    if (!(sc = bsync_cli_load_script("bake", script_path, graph))) goto done;
    const size_t rows = bsync_script_row_count(sc);
    if (!ticks_given) {
        if (rows == 0) {
            fprintf(stderr, "blendsync bake: %s: no rows: give --ticks N\n", script_path);
            goto done;
        }
        if (bsync_script_row_tick(sc, rows - 1) + 1 > 10000000ull) {
            fprintf(stderr, "blendsync bake: %s: the last tick is beyond 10000000 ticks\n", script_path);
            goto done;
        }
        ticks = (unsigned long)bsync_script_row_tick(sc, rows - 1) + 1;
    }
    const uint32_t rate = bsync_graph_tick_rate(graph);
    const uint32_t jc = bsync_skeleton_joint_count(sk);
    /* keys: one per tick (N + 1), or one per display frame up to N / rate seconds */
    const uint32_t key_rate = render_rate ? (uint32_t)render_rate : rate;
    const uint64_t keys = render_rate ? (uint64_t)ticks * render_rate / rate + 1u : (uint64_t)ticks + 1u;
    if ((uint64_t)ticks > 32767ull * rate || keys - 1u > 32767ull * key_rate) {
        fprintf(stderr, "blendsync bake: %lu ticks at %u Hz is beyond the fixed-point time range (at most %lu ticks)\n",
                ticks, (unsigned)rate, 32767ul * rate);
        goto done;
    }
    if ((uint64_t)jc * 3 * keys >= (1ull << 24)) {
        if (!render_rate)
            fprintf(stderr,
                    "blendsync bake: %lu ticks x %u joints x 3 tracks is too many keys for one clip (fewer than 2^24; at "
                    "most %llu ticks)\n",
                    ticks, (unsigned)jc, (unsigned long long)(((1ull << 24) - 1) / (3ull * jc) - 1));
        else
            fprintf(stderr,
                    "blendsync bake: %llu frames x %u joints x 3 tracks is too many keys for one clip (fewer than 2^24; "
                    "at most %llu frames)\n",
                    (unsigned long long)keys, (unsigned)jc, (unsigned long long)(((1ull << 24) - 1) / (3ull * jc)));
        goto done;
    }

    const uint32_t pc = bsync_graph_parameter_count(graph);
    size_t size = bsync_instance_memory_size(graph);
    mem = malloc(size);
    targets = (fix16_t*)calloc(pc ? pc : 1, sizeof(fix16_t));
    poses = (bsync_trs*)malloc((size_t)keys * jc * sizeof(bsync_trs));
    present_mem = render_rate ? malloc(bsync_present_scratch_size(graph)) : NULL;
    bsync_instance* inst = NULL;
    if (!mem || !targets || !poses || (render_rate && !present_mem) ||
        bsync_instance_init(mem, size, graph, &inst) != BSYNC_OK) {
        fprintf(stderr, "blendsync bake: cannot create the instance (out of memory)\n");
        goto done;
    }
    for (uint32_t i = 0; i < pc; i++) targets[i] = bsync_blend_tree_parameter_default(tree, i);
    if (render_rate) {
        if (bake_frames(inst, sc, targets, pc, graph, (uint32_t)render_rate, keys, present_mem, poses, jc) != 0) goto done;
    } else if (bsync_instance_pose(inst, poses, NULL) != BSYNC_OK) {
        fprintf(stderr, "blendsync bake: the initial pose failed\n");
        goto done;
    }
    const uint32_t channels = bsync_graph_curve_channel_count(graph);
    if (compact && !render_rate && channels > 0 && keys <= 4096u) {
        acts.curves = (fix16_t*)calloc((size_t)channels * keys, sizeof(fix16_t));
        if (!acts.curves) goto done;
        for (uint32_t c = 0; c < channels; c++) (void)bsync_instance_curve(inst, c, &acts.curves[(size_t)c * keys]);
    } else if (compact && !render_rate && channels > 0) {
        fprintf(stderr, "blendsync bake: note: %llu keys: the float curves are not carried (at most 4096 keys a curve)\n",
                (unsigned long long)keys);
    }
    size_t row = 0;
    bsync_instance_input input = {targets, pc};
    bsync_switch_trigger trig[BSYNC_GRAPH_MAX_SWITCHES];
    for (unsigned long t = 0; t < ticks && !render_rate; t++) {
        const uint32_t tn = bsync_script_apply(sc, &row, (uint64_t)t, targets, trig);
        if (bsync_instance_tick_ex(inst, &input, trig, tn) != BSYNC_OK) {
            fprintf(stderr, "blendsync bake: tick %lu failed\n", t);
            goto done;
        }
        if (bsync_instance_pose(inst, poses + ((size_t)t + 1) * jc, NULL) != BSYNC_OK) {
            fprintf(stderr, "blendsync bake: tick %lu: the pose failed\n", t);
            goto done;
        }
        if (compact) { /* key t + 1, at the time write_compact gives it */
            const fix16_t kt = (fix16_t)(((uint64_t)(t + 1) * 65536u + key_rate / 2u) / key_rate);
            if (bake_collect(&acts, graph, inst, kt) != 0) {
                fprintf(stderr, "blendsync bake: out of memory\n");
                goto done;
            }
            for (uint32_t c = 0; acts.curves && c < channels; c++)
                (void)bsync_instance_curve(inst, c, &acts.curves[(size_t)c * keys + t + 1]);
        }
    }
    char name[BSYNC_MAX_NAME];
    base_name(config, name, sizeof name);
    if (compact) {
        if (write_compact(out_path, sk, name, key_rate, (uint32_t)keys, poses, &acts, graph) != 0) goto done;
        status = 0;
        goto done;
    }
    bsync_gltf_bake bake = {sk, name, "blendsync bake", key_rate, (uint32_t)keys, poses};
    bsync_error err;
    if (bsync_gltf_write_glb_file_ex(out_path, &bake, write_flags, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync bake: %s\n", err.message);
        goto done;
    }
    status = 0;
done:
    free(acts.list);
    free(acts.open);
    free(acts.curves);
    free(mem);
    free(present_mem);
    free(targets);
    free(poses);
    bsync_script_destroy(sc);
    bsync_graph_config_destroy(gc);
    return status;
}
