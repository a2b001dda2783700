/* studio_wasm.c — the C API the studio page calls: the deterministic core and the config library,
 * compiled with emscripten into studio_core.js (web/CMakeLists.txt). Every value the page shows is
 * computed here in fixed point; the page only turns the results into pixels (floats for display).
 *
 * Files (clip sources, replays, bundles) live in emscripten's in-memory file system: the page fetches
 * them from `blendsync studio` and writes them there under the names the server lists, so relative
 * clip sources resolve as they do on disk.
 *
 * Every function returning `const char*` returns JSON text (cJSON) valid until the next such call.
 *
 *   bs_load(text, len, name)      parse a graph config; the layout: parameters, nodes (children,
 *                                 thresholds / positions, Delaunay triangles), skeleton, warnings,
 *                                 or {"error": "name: /json/path: message"}
 *   bs_set_param(i, raw)          the parameter point (Q16.16 raw targets; also used for weights)
 *   bs_weights()                  every node's child weights and the leaf weights at the point
 *                                 (bsync_blend_tree_eval_node / _eval_leaves, as `blendsync weights`)
 *   bs_reset() / bs_tick(n)       a graph instance from its defaults, ticked n times toward the point
 *   bs_state()                    tick count, state and pose checksums, filtered parameters, instance
 *                                 leaf weights, model-space joint positions (display floats)
 *   bs_script_load(text, len, name)   a graph script (CSV, io/script.h) for the loaded graph; the
 *                                 instance restarts and bs_script_tick(n) plays it as `blendsync eval` does
 *                                 (each tick: the row of that tick sets targets and triggers, one tick)
 *   bs_region_map(node, w, h, x0, y0, x1, y1)   RGBA pixels of a 2D node: the weight-mixed palette
 *                                 colour of its children (as `blendsync plot` draws it)
 *   bs_curve(node, n, x0, x1)     a 1D node's weight curves (n samples per child)
 *   bs_response(param, n, x0, x1) a scalar parameter's response curve (bsync_curve_evaluate) and its
 *                                 whole shape (dead zone + curve, bsync_param_shape) at n targets
 *   bs_fx_format(raw) / bs_fx_parse(text)       exact decimal text <-> Q16.16
 *   bs_replay_open(path)          a replay's header and match (+ the match config and graphs it names,
 *                                 found as `replay verify` finds them)
 *   bs_replay_step(n)             read and re-simulate up to n more frames (the page shows progress)
 *   bs_replay_info()              after the last step: ticks, characters, skeletons, recorded checksums
 *   bs_replay_tracks()            per frame, per character: leaf weights then filtered parameters (raw)
 *   bs_replay_seek(i)             the state after frame i (from the nearest kept snapshot): root and
 *                                 per-character checksums with poses, model-space joints per character
 *   bs_replay_present(alpha)      every character's model-space joints (x, y, z floats for display, in
 *                                 character order) of the presentation pose at the shown tick + alpha
 *                                 (Q16.16 raw; bsync_present_match: what a display between ticks shows)
 *   bs_desync_open(dir, match)    a desync bundle: the server's and the client's states at the reported
 *                                 tick, the differences (bsync_desync_describe), the first divergence
 *                                 (bsync_desync_bundle_trace over the client's trail), per character both
 *                                 skeletons and the joints whose pose checksums differ; a pose desync's
 *                                 named joints (bundle.json "pose_joints", null when it names none)
 *   bs_validate(path)             `blendsync validate`'s findings for a config file in the file system
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blendsync/blend_space.h"
#include "blendsync/blend_tree.h"
#include "blendsync/curve.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/config.h"
#include "blendsync/io/desync.h"
#include "blendsync/io/desync_bundle.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_verify.h"
#include "blendsync/io/script.h"
#include "blendsync/io/trail.h"
#include "blendsync/io/validate.h"
#include "blendsync/match.h"
#include "blendsync/param.h"
#include "blendsync/present.h"
#include "blendsync/skeleton.h"

/* the exported API (prototypes: this file is its only user) */
int bs_reset(void);
const char* bs_load(const char* text, int len, const char* name);
int bs_set_param(int i, int raw);
const char* bs_weights(void);
int bs_tick(int n);
const char* bs_state(void);
uint8_t* bs_region_map(int node, int w, int h, int x0, int y0, int x1, int y1);
int32_t* bs_curve(int node, int n, int x0, int x1);
int32_t* bs_response(int param, int n, int x0, int x1);
const char* bs_fx_format(int raw);
int bs_fx_parse(const char* text, int* ok);
const char* bs_validate(const char* path);
const char* bs_script_load(const char* text, int len, const char* name);
int bs_script_tick(int n);
const char* bs_replay_open(const char* path);
const char* bs_replay_step(int max_frames);
const char* bs_replay_info(void);
int32_t* bs_replay_tracks(void);
const char* bs_replay_seek(int index);
const char* bs_desync_open(const char* dir, const char* match_path);
const char* bs_desync_at(const char* dir, const char* match_path, int tick);
float* bs_replay_present(int alpha);

static bsync_graph_config* g_config;
static bsync_blend_diagnostics g_diags[BSYNC_MAX_BLEND_NODES];
static fix16_t g_params[BSYNC_MAX_PARAMETERS];
static void* g_inst_mem;
static bsync_instance* g_inst;
static char* g_out;
static uint8_t* g_pixels;
static bsync_script* g_script; /* a graph script being played (NULL: the point drives the instance) */
static size_t g_script_row;
static uint64_t g_script_tick;

static const char* emit(cJSON* o) {
    free(g_out);
    g_out = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return g_out ? g_out : "{\"error\":\"out of memory\"}";
}

static void add_fx(cJSON* parent, const char* key, fix16_t v) {
    char buf[24];
    bsync_fx_format(v, buf, sizeof buf);
    cJSON* n = cJSON_CreateRaw(buf);
    if (key) cJSON_AddItemToObject(parent, key, n);
    else cJSON_AddItemToArray(parent, n);
}

static void add_hex(cJSON* parent, const char* key, uint64_t v) {
    char buf[24];
    snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v);
    cJSON_AddStringToObject(parent, key, buf);
}

static const char* child_name(const bsync_blend_tree* t, uint32_t node, uint32_t c) {
    bsync_blend_child_ref ref = bsync_blend_tree_node_child(t, node, c);
    return ref.kind == BSYNC_CHILD_NODE ? bsync_blend_tree_node_name(t, ref.index) : bsync_blend_tree_motion_name(t, ref.index);
}

static void drop_script(void) {
    bsync_script_destroy(g_script);
    g_script = NULL;
}

static void drop(void) {
    drop_script();
    free(g_inst_mem);
    g_inst_mem = NULL;
    g_inst = NULL;
    bsync_graph_config_destroy(g_config);
    g_config = NULL;
}

int bs_reset(void) {
    if (!g_config) return -1;
    g_script_row = 0;
    g_script_tick = 0;
    if (g_script) /* the script starts over from the parameters' defaults */
        for (uint32_t i = 0; i < bsync_blend_tree_parameter_count(bsync_graph_config_tree(g_config)); i++)
            g_params[i] = bsync_blend_tree_parameter_default(bsync_graph_config_tree(g_config), i);
    const bsync_graph* graph = bsync_graph_config_graph(g_config);
    size_t size = bsync_instance_memory_size(graph);
    free(g_inst_mem);
    g_inst = NULL;
    g_inst_mem = aligned_alloc(8, (size + 7) & ~(size_t)7);
    if (!g_inst_mem) return -1;
    return bsync_instance_init(g_inst_mem, size, graph, &g_inst) == BSYNC_OK ? 0 : -1;
}

const char* bs_load(const char* text, int len, const char* name) {
    drop();
    bsync_error err;
    memset(g_diags, 0, sizeof g_diags);
    cJSON* o = cJSON_CreateObject();
    if (bsync_graph_config_parse(text, (size_t)len, name, NULL, &g_config, g_diags, &err) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", err.message);
        return emit(o);
    }
    if (bs_reset() != 0) {
        drop();
        cJSON_AddStringToObject(o, "error", "cannot create a graph instance");
        return emit(o);
    }
    const bsync_graph* graph = bsync_graph_config_graph(g_config);
    const bsync_blend_tree* t = bsync_graph_config_tree(g_config);
    const uint32_t np = bsync_blend_tree_parameter_count(t), nn = bsync_blend_tree_node_count(t);
    cJSON_AddNumberToObject(o, "tick_rate", bsync_graph_tick_rate(graph));
    cJSON_AddStringToObject(o, "root", bsync_blend_tree_node_name(t, bsync_blend_tree_root(t)));
    cJSON* params = cJSON_AddArrayToObject(o, "parameters");
    for (uint32_t i = 0; i < np; i++) {
        g_params[i] = bsync_blend_tree_parameter_default(t, i);
        cJSON* p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", bsync_blend_tree_parameter_name(t, i));
        add_fx(p, "default", g_params[i]);
        cJSON_AddNumberToObject(p, "default_raw", g_params[i]);
        cJSON_AddItemToArray(params, p);
    }
    cJSON* nodes = cJSON_AddArrayToObject(o, "nodes");
    for (uint32_t n = 0; n < nn; n++) {
        const bsync_blend_space* s = bsync_blend_tree_node_space(t, n);
        cJSON* j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "name", bsync_blend_tree_node_name(t, n));
        cJSON_AddStringToObject(j, "type", bsync_blend_type_name(bsync_blend_space_type(s)));
        cJSON* pj = cJSON_AddArrayToObject(j, "params");
        for (uint32_t k = 0; k < bsync_blend_tree_node_param_count(t, n); k++)
            cJSON_AddItemToArray(pj, cJSON_CreateNumber(bsync_blend_tree_node_param(t, n, k)));
        cJSON* ch = cJSON_AddArrayToObject(j, "children");
        const uint32_t nc = bsync_blend_tree_node_child_count(t, n);
        for (uint32_t c = 0; c < nc; c++) {
            cJSON* e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", child_name(t, n, c));
            cJSON_AddBoolToObject(e, "node", bsync_blend_tree_node_child(t, n, c).kind == BSYNC_CHILD_NODE);
            cJSON_AddNumberToObject(e, "threshold_raw", bsync_blend_space_threshold(s, c));
            bsync_vec2 p = bsync_blend_space_position(s, c);
            cJSON* pos = cJSON_AddArrayToObject(e, "position_raw");
            cJSON_AddItemToArray(pos, cJSON_CreateNumber(p.x));
            cJSON_AddItemToArray(pos, cJSON_CreateNumber(p.y));
            cJSON_AddItemToArray(ch, e);
        }
        cJSON* tris = cJSON_AddArrayToObject(j, "triangles");
        for (uint32_t i = 0; i < bsync_blend_space_triangle_count(s); i++) {
            uint32_t tri[3];
            if (bsync_blend_space_triangle(s, i, tri) != BSYNC_OK) continue;
            cJSON* tj = cJSON_CreateArray();
            for (int k = 0; k < 3; k++) cJSON_AddItemToArray(tj, cJSON_CreateNumber(tri[k]));
            cJSON_AddItemToArray(tris, tj);
        }
        cJSON* warn = cJSON_AddArrayToObject(j, "warnings");
        for (uint32_t w = 0; w < g_diags[n].count; w++) {
            const bsync_blend_warning* wr = &g_diags[n].warnings[w];
            char line[256];
            if (wr->child_a == wr->child_b)
                snprintf(line, sizeof line, "%s (child %u: %s)", bsync_blend_warning_string(wr->code), (unsigned)wr->child_a,
                         child_name(t, n, wr->child_a));
            else
                snprintf(line, sizeof line, "%s (children %u and %u: %s, %s)", bsync_blend_warning_string(wr->code),
                         (unsigned)wr->child_a, (unsigned)wr->child_b, child_name(t, n, wr->child_a), child_name(t, n, wr->child_b));
            cJSON_AddItemToArray(warn, cJSON_CreateString(line));
        }
        cJSON_AddItemToArray(nodes, j);
    }
    const bsync_skeleton* sk = bsync_graph_config_skeleton(g_config);
    cJSON* joints = cJSON_AddArrayToObject(o, "joints");
    for (uint32_t i = 0; sk && i < bsync_skeleton_joint_count(sk); i++) {
        cJSON* e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", bsync_skeleton_joint_name(sk, i));
        cJSON_AddNumberToObject(e, "parent", bsync_skeleton_parent(sk, i));
        cJSON_AddItemToArray(joints, e);
    }
    const char* notes = bsync_graph_config_notes(g_config);
    cJSON_AddStringToObject(o, "notes", notes ? notes : "");
    return emit(o);
}

int bs_set_param(int i, int raw) {
    if (!g_config || i < 0 || (uint32_t)i >= bsync_blend_tree_parameter_count(bsync_graph_config_tree(g_config))) return -1;
    g_params[i] = (fix16_t)raw;
    return 0;
}

const char* bs_weights(void) {
    cJSON* o = cJSON_CreateObject();
    if (!g_config) {
        cJSON_AddStringToObject(o, "error", "no config loaded");
        return emit(o);
    }
    const bsync_blend_tree* t = bsync_graph_config_tree(g_config);
    static fix16_t leaves[BSYNC_MAX_MOTIONS];
    fix16_t w[BSYNC_MAX_BLEND_CHILDREN];
    cJSON* nodes = cJSON_AddObjectToObject(o, "nodes");
    for (uint32_t n = 0; n < bsync_blend_tree_node_count(t); n++) {
        cJSON* arr = cJSON_AddArrayToObject(nodes, bsync_blend_tree_node_name(t, n));
        if (bsync_blend_tree_eval_node(t, n, g_params, w) != BSYNC_OK) continue;
        for (uint32_t c = 0; c < bsync_blend_tree_node_child_count(t, n); c++) add_fx(arr, NULL, w[c]);
    }
    cJSON* lv = cJSON_AddObjectToObject(o, "leaves");
    if (bsync_blend_tree_eval_leaves(t, bsync_blend_tree_root(t), g_params, leaves) == BSYNC_OK)
        for (uint32_t m = 0; m < bsync_blend_tree_motion_count(t); m++) add_fx(lv, bsync_blend_tree_motion_name(t, m), leaves[m]);
    return emit(o);
}

int bs_tick(int n) {
    if (!g_inst) return -1;
    if (g_script) return bs_script_tick(n);
    const uint32_t np = bsync_blend_tree_parameter_count(bsync_graph_config_tree(g_config));
    bsync_instance_input in = {g_params, np};
    for (int i = 0; i < n; i++)
        if (bsync_instance_tick(g_inst, &in) != BSYNC_OK) return -1;
    return 0;
}

const char* bs_state(void) {
    cJSON* o = cJSON_CreateObject();
    if (!g_inst) {
        cJSON_AddStringToObject(o, "error", "no config loaded");
        return emit(o);
    }
    const bsync_graph* graph = bsync_graph_config_graph(g_config);
    const bsync_blend_tree* t = bsync_graph_config_tree(g_config);
    cJSON_AddNumberToObject(o, "tick", (double)bsync_instance_tick_count(g_inst));
    add_hex(o, "state_checksum", bsync_instance_state_checksum(g_inst));
    cJSON* pv = cJSON_AddObjectToObject(o, "params");
    for (uint32_t i = 0; i < bsync_blend_tree_parameter_count(t); i++)
        add_fx(pv, bsync_blend_tree_parameter_name(t, i), bsync_instance_parameter(g_inst, i));
    cJSON* tv = cJSON_AddArrayToObject(o, "targets_raw"); /* the point (a script moves it) */
    for (uint32_t i = 0; i < bsync_blend_tree_parameter_count(t); i++) cJSON_AddItemToArray(tv, cJSON_CreateNumber(g_params[i]));
    cJSON_AddBoolToObject(o, "script", g_script != NULL);
    cJSON* lv = cJSON_AddObjectToObject(o, "weights");
    const fix16_t* leaves = bsync_instance_leaf_weights(g_inst);
    for (uint32_t m = 0; m < bsync_blend_tree_motion_count(t); m++) add_fx(lv, bsync_blend_tree_motion_name(t, m), leaves[m]);
    const uint32_t nj = bsync_graph_joint_count(graph);
    if (nj > 0 && bsync_graph_config_bound_clip_count(g_config) > 0) {
        uint64_t pc = 0;
        bsync_trs* local = malloc(sizeof(bsync_trs) * nj);
        bsync_trs* model = malloc(sizeof(bsync_trs) * nj);
        if (local && model && bsync_instance_pose_checksum(g_inst, &pc, NULL) == BSYNC_OK &&
            bsync_instance_pose(g_inst, local, model) == BSYNC_OK) {
            add_hex(o, "pose_checksum", pc);
            cJSON* pos = cJSON_AddArrayToObject(o, "model");
            for (uint32_t j = 0; j < nj; j++) { /* display only: floats from here on */
                cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.x)));
                cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.y)));
                cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.z)));
            }
        }
        free(local);
        free(model);
    }
    return emit(o);
}

const char* bs_script_load(const char* text, int len, const char* name) {
    cJSON* o = cJSON_CreateObject();
    drop_script();
    bsync_error err;
    if (!g_config) {
        cJSON_AddStringToObject(o, "error", "no config loaded");
        return emit(o);
    }
    if (len <= 0) { /* no text: back to the point */
        bs_reset();
        return emit(o);
    }
    if (bsync_script_parse(text, (size_t)len, name, bsync_graph_config_graph(g_config), NULL, &g_script, &err) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", err.message);
        return emit(o);
    }
    bs_reset();
    const size_t rows = bsync_script_row_count(g_script);
    cJSON_AddNumberToObject(o, "rows", (double)rows);
    cJSON_AddNumberToObject(o, "ticks", rows ? (double)bsync_script_row_tick(g_script, rows - 1) + 1 : 0);
    return emit(o);
}

/* n ticks of the script (eval's loop): the row of each tick sets targets (held after) and triggers. */
int bs_script_tick(int n) {
    if (!g_inst || !g_script) return -1;
    const uint32_t np = bsync_blend_tree_parameter_count(bsync_graph_config_tree(g_config));
    bsync_switch_trigger trig[BSYNC_GRAPH_MAX_SWITCHES * 4 + 16];
    if (bsync_script_play_column_count(g_script) > sizeof trig / sizeof trig[0]) return -1;
    bsync_instance_input in = {g_params, np};
    for (int i = 0; i < n; i++) {
        uint32_t tn = bsync_script_apply(g_script, &g_script_row, g_script_tick, g_params, trig);
        if (bsync_instance_tick_ex(g_inst, &in, trig, tn) != BSYNC_OK) return -1;
        g_script_tick++;
    }
    return 0;
}

/* Palette of `blendsync plot` (cmd_plot.c): child i has colour i (golden-angle hues after 16). */
static const uint8_t k_palette[16][3] = {
    {0xe6, 0x19, 0x4b}, {0x3c, 0xb4, 0x4b}, {0x43, 0x63, 0xd8}, {0xff, 0xe1, 0x19}, {0xf5, 0x82, 0x31}, {0x91, 0x1e, 0xb4},
    {0x42, 0xd4, 0xf4}, {0xf0, 0x32, 0xe6}, {0xbf, 0xef, 0x45}, {0x46, 0x99, 0x90}, {0x9a, 0x63, 0x24}, {0x80, 0x00, 0x00},
    {0x80, 0x80, 0x00}, {0x00, 0x00, 0x75}, {0xfa, 0xbe, 0xd4}, {0xaa, 0xff, 0xc3},
};

/* RGBA pixels (w x h, row 0 at y1) of node's children weights mixed in palette colours over
 * [x0, x1] x [y0, y1] (raw Q16.16); a 1D node is drawn along x. NULL on error. */
uint8_t* bs_region_map(int node, int w, int h, int x0, int y0, int x1, int y1) {
    if (!g_config || w <= 0 || h <= 0 || w > 1024 || h > 1024) return NULL;
    const bsync_blend_tree* t = bsync_graph_config_tree(g_config);
    if (node < 0 || (uint32_t)node >= bsync_blend_tree_node_count(t)) return NULL;
    const bsync_blend_space* s = bsync_blend_tree_node_space(t, (uint32_t)node);
    const uint32_t nc = bsync_blend_space_child_count(s), np = bsync_blend_space_param_count(s);
    free(g_pixels);
    g_pixels = malloc((size_t)w * (size_t)h * 4);
    if (!g_pixels) return NULL;
    fix16_t wt[BSYNC_MAX_BLEND_CHILDREN];
    for (int py = 0; py < h; py++)
        for (int px = 0; px < w; px++) {
            fix16_t p[2];
            p[0] = (fix16_t)(x0 + (int32_t)(((int64_t)(x1 - x0) * (2 * px + 1)) / (2 * w)));
            p[1] = (fix16_t)(y1 - (int32_t)(((int64_t)(y1 - y0) * (2 * py + 1)) / (2 * h)));
            uint8_t* o = g_pixels + ((size_t)py * (size_t)w + (size_t)px) * 4;
            int64_t acc[3] = {0, 0, 0};
            if (np >= 1 && np <= 2 && bsync_blend_space_eval(s, p, np, wt) == BSYNC_OK) {
                for (uint32_t c = 0; c < nc; c++)
                    for (int k = 0; k < 3; k++) acc[k] += (int64_t)wt[c] * (c < 16 ? k_palette[c][k] : 160);
                for (int k = 0; k < 3; k++) {
                    int64_t v = acc[k] >> 16;
                    o[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
                }
            } else {
                o[0] = o[1] = o[2] = 246;
            }
            o[3] = 255;
        }
    return g_pixels;
}

/* A 1D node's child weights at n points evenly over [x0, x1] (raw): n x child_count raw weights. */
int32_t* bs_curve(int node, int n, int x0, int x1) {
    static int32_t* buf;
    if (!g_config || n < 2 || n > 4096) return NULL;
    const bsync_blend_tree* t = bsync_graph_config_tree(g_config);
    if (node < 0 || (uint32_t)node >= bsync_blend_tree_node_count(t)) return NULL;
    const bsync_blend_space* s = bsync_blend_tree_node_space(t, (uint32_t)node);
    const uint32_t nc = bsync_blend_space_child_count(s);
    if (bsync_blend_space_param_count(s) != 1) return NULL;
    free(buf);
    buf = malloc(sizeof(int32_t) * (size_t)n * nc);
    if (!buf) return NULL;
    fix16_t wt[BSYNC_MAX_BLEND_CHILDREN];
    for (int i = 0; i < n; i++) {
        fix16_t p = (fix16_t)(x0 + (int32_t)(((int64_t)(x1 - x0) * i) / (n - 1)));
        if (bsync_blend_space_eval(s, &p, 1, wt) != BSYNC_OK) return NULL;
        for (uint32_t c = 0; c < nc; c++) buf[(size_t)i * nc + c] = wt[c];
    }
    return buf;
}

/* A scalar parameter's response curve at n targets evenly over [x0, x1] (raw): n values of the curve
 * alone (bsync_curve_evaluate), then n of the shape the instance applies before smoothing (dead zone
 * and curve: bsync_param_shape). The curve is built from the config's keys as the loader builds it
 * (graph_config.c: the same desc to bsync_curve_create). NULL for no curve, a pair, or bad arguments. */
int32_t* bs_response(int param, int n, int x0, int x1) {
    static int32_t* buf;
    if (!g_config || n < 2 || n > 4096) return NULL;
    const bsync_config_graph_fields* fields = bsync_graph_config_fields(g_config);
    if (param < 0 || (uint32_t)param >= bsync_blend_tree_parameter_count(bsync_graph_config_tree(g_config))) return NULL;
    const bsync_config_filter* cf = &fields->filters[param];
    if (!cf->has_curve || cf->pair || (param > 0 && fields->filters[param - 1].pair)) return NULL;
    bsync_curve_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.keys = cf->keys;
    cd.key_count = cf->key_count;
    cd.pre_wrap = cf->pre_wrap;
    cd.post_wrap = cf->post_wrap;
    bsync_curve* curve = NULL;
    if (bsync_curve_create(&cd, NULL, &curve) != BSYNC_OK) return NULL;
    bsync_param_filter_desc fd;
    memset(&fd, 0, sizeof fd);
    fd.dead_zone = cf->dead_zone;
    fd.dead_zone_range = cf->dead_zone_range;
    fd.curve = curve;
    bsync_param_filter f;
    free(buf);
    buf = malloc(sizeof(int32_t) * 2u * (size_t)n);
    if (!buf || bsync_param_filter_init(&f, &fd, 30) != BSYNC_OK) {
        bsync_curve_destroy(curve);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        fix16_t x = (fix16_t)(x0 + (int32_t)(((int64_t)(x1 - x0) * i) / (n - 1)));
        buf[i] = bsync_curve_evaluate(curve, x);
        buf[n + i] = bsync_param_shape(&f, x);
    }
    bsync_curve_destroy(curve);
    return buf;
}

const char* bs_fx_format(int raw) {
    static char buf[24];
    bsync_fx_format((fix16_t)raw, buf, sizeof buf);
    return buf;
}

/* Q16.16 of exact decimal text; *ok 1 when it parsed. */
int bs_fx_parse(const char* text, int* ok) {
    fix16_t v = 0;
    *ok = bsync_fx_parse(text, strlen(text), &v) == BSYNC_OK;
    return v;
}

const char* bs_validate(const char* path) {
    bsync_validate_report r;
    bsync_validate_report_init(&r);
    cJSON* o = cJSON_CreateObject();
    cJSON* list = cJSON_AddArrayToObject(o, "findings");
    if (bsync_validate_config(&r, path, NULL) == BSYNC_OK) {
        for (uint32_t i = 0; i < r.finding_count; i++) {
            const bsync_validate_finding* f = &r.findings[i];
            cJSON* e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "severity", bsync_validate_severity_name(f->severity));
            cJSON_AddStringToObject(e, "code", f->code);
            cJSON_AddStringToObject(e, "clip", f->clip);
            cJSON_AddStringToObject(e, "joint", f->joint);
            cJSON_AddStringToObject(e, "message", f->message);
            cJSON_AddItemToArray(list, e);
        }
        cJSON_AddNumberToObject(o, "exit_status", bsync_validate_exit_status(&r));
    } else {
        cJSON_AddStringToObject(o, "error", "validation could not run");
    }
    bsync_validate_report_destroy(&r);
    return emit(o);
}

/* ------------------------------------------------------------------------------------------ replay */
#define REPLAY_SNAPSHOT_EVERY 30u

static struct {
    bsync_match_config* cfg;
    void* mem;
    bsync_match* match;
    uint32_t players, params, triggers, chars, first_tick, frames, cap;
    bsync_match_input* inputs;  /* frames x players */
    uint64_t* blend;            /* frames: root blend checksum after the frame */
    uint32_t motions_max, params_max, switches_max, stride; /* per character per frame: leaf weights,
                                filtered parameters, each switch's playing state (its newest entry's child + 1) */
    int32_t* tracks;            /* frames x chars x stride */
    uint8_t* snaps;             /* one match save every REPLAY_SNAPSHOT_EVERY frames: the state before it */
    size_t snap_size;
    size_t* snap_lens;          /* each save's length */
} g_rp;

static void replay_close(void) {
    free(g_rp.mem);
    free(g_rp.inputs);
    free(g_rp.blend);
    free(g_rp.tracks);
    free(g_rp.snaps);
    free(g_rp.snap_lens);
    bsync_match_config_destroy(g_rp.cfg);
    memset(&g_rp, 0, sizeof g_rp);
}

static int replay_grow(void) {
    uint32_t cap = g_rp.cap ? g_rp.cap * 2 : 1024;
    bsync_match_input* in = realloc(g_rp.inputs, sizeof *in * (size_t)cap * g_rp.players);
    if (!in) return -1;
    g_rp.inputs = in;
    uint64_t* b = realloc(g_rp.blend, sizeof *b * cap);
    if (!b) return -1;
    g_rp.blend = b;
    int32_t* t = realloc(g_rp.tracks, sizeof *t * (size_t)cap * g_rp.chars * g_rp.stride);
    if (!t) return -1;
    g_rp.tracks = t;
    uint8_t* sn = realloc(g_rp.snaps, g_rp.snap_size * (cap / REPLAY_SNAPSHOT_EVERY + 1));
    if (!sn) return -1;
    g_rp.snaps = sn;
    size_t* sl = realloc(g_rp.snap_lens, sizeof *sl * (cap / REPLAY_SNAPSHOT_EVERY + 1));
    if (!sl) return -1;
    g_rp.snap_lens = sl;
    g_rp.cap = cap;
    return 0;
}

static void frame_of(uint32_t i, bsync_match_frame* f) {
    memset(f, 0, sizeof *f);
    f->player_count = g_rp.players;
    memcpy(f->players, g_rp.inputs + (size_t)i * g_rp.players, sizeof *g_rp.inputs * g_rp.players);
}

/* Reading state between bs_replay_open and the last bs_replay_step. */
static struct {
    bsync_replay_reader* reader;
    cJSON* recorded;
    cJSON* desyncs;
    cJSON* actions; /* [frame index, character, action, kind, count, exits, active] per action report */
    char used[1400];
    char stop[300];
    uint32_t tick_rate, checksum_interval, start_tick;
    int done;
} g_rd;

static void replay_reader_close(void) {
    bsync_replay_reader_close(g_rd.reader);
    cJSON_Delete(g_rd.recorded);
    cJSON_Delete(g_rd.desyncs);
    cJSON_Delete(g_rd.actions);
    memset(&g_rd, 0, sizeof g_rd);
}

/* Open the replay and set up its match; the frames are read and simulated by bs_replay_step, so a
 * long replay is re-simulated in slices the page can show progress between. */
const char* bs_replay_open(const char* path) {
    replay_close();
    replay_reader_close();
    cJSON* o = cJSON_CreateObject();
    bsync_error err;
    static bsync_replay_record rec;
    char detail[256] = "";
    if (bsync_replay_reader_open_file(path, &g_rd.reader, &err) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", err.message);
        return emit(o);
    }
    bsync_replay_status st = bsync_replay_reader_next(g_rd.reader, &rec, detail, sizeof detail);
    if (st != BSYNC_REPLAY_OK || rec.type != BSYNC_REPLAY_HEADER) {
        char msg[400];
        snprintf(msg, sizeof msg, "%s: no readable header (%s%s%s)", path, bsync_replay_status_string(st), *detail ? ": " : "", detail);
        cJSON_AddStringToObject(o, "error", msg);
        replay_reader_close();
        return emit(o);
    }
    const bsync_replay_header* h = bsync_replay_reader_header(g_rd.reader);
    if (bsync_replay_verify_config_load(h, path, NULL, NULL, NULL, &g_rp.cfg, g_rd.used, sizeof g_rd.used, &err) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", err.message);
        replay_reader_close();
        replay_close();
        return emit(o);
    }
    const bsync_match_desc* desc = bsync_match_config_desc(g_rp.cfg);
    size_t size = bsync_match_memory_size(desc);
    g_rp.mem = aligned_alloc(8, (size + 7) & ~(size_t)7);
    if (!g_rp.mem || bsync_match_init(g_rp.mem, size, desc, &g_rp.match) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", "cannot set up the match");
        replay_reader_close();
        replay_close();
        return emit(o);
    }
    g_rp.players = desc->player_count;
    g_rp.chars = desc->character_count;
    g_rp.first_tick = h->start_tick;
    for (uint32_t c = 0; c < g_rp.chars; c++) {
        const bsync_graph* gr = desc->characters[c].graph;
        if (bsync_graph_motion_count(gr) > g_rp.motions_max) g_rp.motions_max = bsync_graph_motion_count(gr);
        if (bsync_graph_parameter_count(gr) > g_rp.params_max) g_rp.params_max = bsync_graph_parameter_count(gr);
    }
    for (uint32_t c = 0; c < g_rp.chars; c++) {
        uint32_t n = bsync_graph_switch_count(desc->characters[c].graph);
        if (n > g_rp.switches_max) g_rp.switches_max = n < 4 ? n : 4;
    }
    g_rp.stride = g_rp.motions_max + g_rp.params_max + g_rp.switches_max;
    g_rp.snap_size = bsync_match_snapshot_size_max(g_rp.match);
    g_rd.recorded = cJSON_CreateArray();
    g_rd.desyncs = cJSON_CreateArray();
    g_rd.actions = cJSON_CreateArray();
    g_rd.tick_rate = h->tick_rate;
    g_rd.checksum_interval = h->checksum_interval;
    g_rd.start_tick = h->start_tick;
    cJSON_AddNumberToObject(o, "first_tick", g_rp.first_tick);
    cJSON_AddNumberToObject(o, "tick_rate", h->tick_rate);
    cJSON_AddNumberToObject(o, "bytes", (double)bsync_replay_reader_valid_bytes(g_rd.reader));
    return emit(o);
}

/* Read and simulate up to max_frames more frames: {"frames": done so far, "done": bool}. */
const char* bs_replay_step(int max_frames) {
    cJSON* o = cJSON_CreateObject();
    if (!g_rd.reader || !g_rp.match) {
        cJSON_AddStringToObject(o, "error", "no replay is open");
        return emit(o);
    }
    static bsync_replay_record rec;
    char detail[256] = "";
    const bsync_match_desc* desc = bsync_match_config_desc(g_rp.cfg);
    bsync_replay_status st = BSYNC_REPLAY_OK;
    int failed = 0, stepped = 0;
    while (!g_rd.done && stepped < max_frames && (st = bsync_replay_reader_next(g_rd.reader, &rec, detail, sizeof detail)) == BSYNC_REPLAY_OK) {
        if (rec.type == BSYNC_REPLAY_SNAPSHOT && g_rp.frames == 0 && rec.snapshot.tick == g_rd.start_tick) {
            if (bsync_match_load(g_rp.match, rec.snapshot.data, rec.snapshot.len) != BSYNC_OK) {
                snprintf(g_rd.stop, sizeof g_rd.stop, "the starting snapshot does not load");
                failed = 1;
            }
        } else if (rec.type == BSYNC_REPLAY_CHECKSUM) {
            cJSON* e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "tick", rec.checksum.tick);
            add_hex(e, "blend", rec.checksum.blend);
            if (rec.checksum.has_pose) add_hex(e, "pose", rec.checksum.pose);
            cJSON_AddItemToArray(g_rd.recorded, e);
        } else if (rec.type == BSYNC_REPLAY_DESYNC) {
            cJSON* e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "tick", rec.desync.tick);
            cJSON_AddNumberToObject(e, "slot", rec.desync.slot);
            cJSON_AddNumberToObject(e, "character", rec.desync.character);
            cJSON_AddItemToArray(g_rd.desyncs, e);
        } else if (rec.type == BSYNC_REPLAY_FRAME) {
            if (g_rp.frames == g_rp.cap && replay_grow() != 0) {
                snprintf(g_rd.stop, sizeof g_rd.stop, "out of memory");
                failed = 1;
                break;
            }
            const uint32_t i = g_rp.frames;
            size_t written = 0;
            if (i % REPLAY_SNAPSHOT_EVERY == 0) {
                if (bsync_match_save(g_rp.match, g_rp.snaps + (size_t)(i / REPLAY_SNAPSHOT_EVERY) * g_rp.snap_size, g_rp.snap_size,
                                     &written) != BSYNC_OK) {
                    snprintf(g_rd.stop, sizeof g_rd.stop, "cannot save the match");
                    failed = 1;
                    break;
                }
                g_rp.snap_lens[i / REPLAY_SNAPSHOT_EVERY] = written;
            }
            memcpy(g_rp.inputs + (size_t)i * g_rp.players, rec.frame.inputs.players, sizeof *g_rp.inputs * g_rp.players);
            if (bsync_match_tick(g_rp.match, &rec.frame.inputs) != BSYNC_OK) {
                snprintf(g_rd.stop, sizeof g_rd.stop, "frame %u does not fit the match", rec.frame.tick);
                failed = 1;
                break;
            }
            static bsync_match_checksums cs;
            bsync_match_get_checksums(g_rp.match, 0, &cs);
            g_rp.blend[i] = cs.blend;
            for (uint32_t c = 0; c < g_rp.chars; c++) {
                const bsync_instance* inst = bsync_match_instance_const(g_rp.match, c);
                const bsync_graph* gr = desc->characters[c].graph;
                int32_t* t = g_rp.tracks + ((size_t)i * g_rp.chars + c) * g_rp.stride;
                memset(t, 0, sizeof *t * g_rp.stride);
                const fix16_t* lw = bsync_instance_leaf_weights(inst);
                for (uint32_t m = 0; m < bsync_graph_motion_count(gr); m++) t[m] = lw[m];
                for (uint32_t p = 0; p < bsync_graph_parameter_count(gr); p++) t[g_rp.motions_max + p] = bsync_instance_parameter(inst, p);
                for (uint32_t w = 0; w < g_rp.switches_max && w < bsync_graph_switch_count(gr); w++) {
                    bsync_switch_entry st_[BSYNC_SWITCH_STACK_DEPTH];
                    uint32_t n = 0;
                    if (bsync_instance_switch_state(inst, w, st_, &n) == BSYNC_OK && n > 0)
                        t[g_rp.motions_max + g_rp.params_max + w] = (int32_t)st_[n - 1].child + 1;
                }
                /* what fired in this tick (docs/actions.md "Reports"): events crossed, ranges entered, left or open */
                const bsync_action_report* rep = NULL;
                uint32_t nr = 0;
                if (bsync_instance_actions(inst, &rep, &nr) == BSYNC_OK)
                    for (uint32_t k = 0; k < nr; k++) {
                        const int v[7] = {(int)i, (int)c, (int)rep[k].action, (int)rep[k].kind, (int)rep[k].count, (int)rep[k].exits, (int)rep[k].active};
                        cJSON_AddItemToArray(g_rd.actions, cJSON_CreateIntArray(v, 7));
                    }
            }
            g_rp.frames++;
            stepped++;
        }
    }
    if (failed) g_rd.done = 1;
    else if (st != BSYNC_REPLAY_OK) {
        g_rd.done = 1;
        if (st != BSYNC_REPLAY_EOF)
            snprintf(g_rd.stop, sizeof g_rd.stop, "%s%s%s", bsync_replay_status_string(st), *detail ? ": " : "", detail);
    }
    cJSON_AddNumberToObject(o, "frames", g_rp.frames);
    cJSON_AddNumberToObject(o, "bytes_read", (double)bsync_replay_reader_valid_bytes(g_rd.reader));
    cJSON_AddBoolToObject(o, "done", g_rd.done);
    return emit(o);
}

/* After the last step: everything the view needs besides the tracks. */
const char* bs_replay_info(void) {
    cJSON* o = cJSON_CreateObject();
    if (!g_rp.match || !g_rd.done) {
        cJSON_AddStringToObject(o, "error", "the replay is not read yet");
        return emit(o);
    }
    const bsync_match_desc* desc = bsync_match_config_desc(g_rp.cfg);
    cJSON_AddNumberToObject(o, "first_tick", g_rp.first_tick);
    cJSON_AddNumberToObject(o, "frames", g_rp.frames);
    cJSON_AddNumberToObject(o, "tick_rate", g_rd.tick_rate);
    cJSON_AddNumberToObject(o, "checksum_interval", g_rd.checksum_interval);
    cJSON_AddStringToObject(o, "config_used", g_rd.used);
    cJSON_AddStringToObject(o, "stop", g_rd.stop);
    cJSON_AddNumberToObject(o, "motions_max", g_rp.motions_max);
    cJSON_AddNumberToObject(o, "params_max", g_rp.params_max);
    cJSON_AddNumberToObject(o, "switches_max", g_rp.switches_max);
    cJSON_AddItemReferenceToObject(o, "recorded", g_rd.recorded);
    cJSON_AddItemReferenceToObject(o, "desyncs", g_rd.desyncs);
    cJSON_AddItemReferenceToObject(o, "actions", g_rd.actions);
    cJSON* chars = cJSON_AddArrayToObject(o, "characters");
    for (uint32_t c = 0; c < g_rp.chars; c++) {
        const bsync_graph* gr = desc->characters[c].graph;
        const bsync_blend_tree* t = bsync_graph_tree(gr);
        const bsync_skeleton* sk = bsync_graph_skeleton(gr);
        cJSON* e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", bsync_match_config_character_name(g_rp.cfg, c));
        cJSON* ms = cJSON_AddArrayToObject(e, "motions");
        for (uint32_t m = 0; m < bsync_graph_motion_count(gr); m++) cJSON_AddItemToArray(ms, cJSON_CreateString(bsync_blend_tree_motion_name(t, m)));
        cJSON* ps = cJSON_AddArrayToObject(e, "parameters");
        for (uint32_t p = 0; p < bsync_graph_parameter_count(gr); p++) cJSON_AddItemToArray(ps, cJSON_CreateString(bsync_blend_tree_parameter_name(t, p)));
        cJSON* js = cJSON_AddArrayToObject(e, "joints");
        for (uint32_t j = 0; sk && j < bsync_skeleton_joint_count(sk); j++) {
            cJSON* jj = cJSON_CreateObject();
            cJSON_AddStringToObject(jj, "name", bsync_skeleton_joint_name(sk, j));
            cJSON_AddNumberToObject(jj, "parent", bsync_skeleton_parent(sk, j));
            cJSON_AddItemToArray(js, jj);
        }
        cJSON* acts = cJSON_AddArrayToObject(e, "actions");
        for (uint32_t a = 0; a < bsync_graph_action_count(gr); a++) {
            bsync_graph_action_desc d;
            if (bsync_graph_action(gr, a, &d) != BSYNC_OK) continue;
            cJSON* ad = cJSON_CreateObject();
            cJSON_AddStringToObject(ad, "name", d.name);
            cJSON_AddStringToObject(ad, "kind", d.kind == BSYNC_ACTION_RANGE ? "range" : "event");
            cJSON_AddStringToObject(ad, "motion", bsync_blend_tree_motion_name(t, d.motion));
            cJSON_AddItemToArray(acts, ad);
        }
        cJSON* sws = cJSON_AddArrayToObject(e, "switches");
        for (uint32_t w = 0; w < g_rp.switches_max && w < bsync_graph_switch_count(gr); w++) {
            const uint32_t node = bsync_graph_switch_node(gr, w);
            cJSON* sw = cJSON_CreateObject();
            cJSON_AddStringToObject(sw, "node", bsync_blend_tree_node_name(t, node));
            cJSON* states = cJSON_AddArrayToObject(sw, "states");
            for (uint32_t k = 0; k < bsync_blend_tree_node_child_count(t, node); k++)
                cJSON_AddItemToArray(states, cJSON_CreateString(child_name(t, node, k)));
            cJSON_AddItemToArray(sws, sw);
        }
        cJSON_AddItemToArray(chars, e);
    }
    return emit(o);
}

int32_t* bs_replay_tracks(void) { return g_rp.tracks; }

const char* bs_replay_seek(int index) {
    cJSON* o = cJSON_CreateObject();
    if (!g_rp.match || index < 0 || (uint32_t)index >= g_rp.frames) {
        cJSON_AddStringToObject(o, "error", "no such frame");
        return emit(o);
    }
    const uint32_t base = (uint32_t)index / REPLAY_SNAPSHOT_EVERY * REPLAY_SNAPSHOT_EVERY;
    const uint8_t* snap = g_rp.snaps + (size_t)(base / REPLAY_SNAPSHOT_EVERY) * g_rp.snap_size;
    static bsync_match_frame f;
    if (bsync_match_load(g_rp.match, snap, g_rp.snap_lens[base / REPLAY_SNAPSHOT_EVERY]) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", "cannot load the kept state");
        return emit(o);
    }
    for (uint32_t i = base; i <= (uint32_t)index; i++) {
        frame_of(i, &f);
        bsync_match_tick(g_rp.match, &f);
    }
    static bsync_match_checksums cs;
    bsync_match_get_checksums(g_rp.match, 1, &cs);
    cJSON_AddNumberToObject(o, "index", index);
    cJSON_AddNumberToObject(o, "tick", g_rp.first_tick + (uint32_t)index);
    add_hex(o, "blend", cs.blend);
    add_hex(o, "pose", cs.pose);
    add_hex(o, "blend_at_open", g_rp.blend[index]);
    cJSON* chars = cJSON_AddArrayToObject(o, "characters");
    const bsync_match_desc* desc = bsync_match_config_desc(g_rp.cfg);
    for (uint32_t c = 0; c < g_rp.chars; c++) {
        cJSON* e = cJSON_CreateObject();
        add_hex(e, "blend", cs.character_blend[c]);
        add_hex(e, "pose", cs.character_pose[c]);
        bsync_instance* inst = bsync_match_instance(g_rp.match, c);
        const uint32_t nj = bsync_graph_joint_count(desc->characters[c].graph);
        bsync_trs* local = malloc(sizeof(bsync_trs) * (nj ? nj : 1));
        bsync_trs* model = malloc(sizeof(bsync_trs) * (nj ? nj : 1));
        if (nj && local && model && bsync_instance_pose(inst, local, model) == BSYNC_OK) {
            cJSON* pos = cJSON_AddArrayToObject(e, "model");
            for (uint32_t j = 0; j < nj; j++) { /* display only */
                cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.x)));
                cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.y)));
                cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.z)));
            }
        }
        free(local);
        free(model);
        cJSON_AddItemToArray(chars, e);
    }
    return emit(o);
}

float* bs_replay_present(int alpha) {
    static void* scratch;
    static size_t scratch_cap;
    static bsync_trs *local, *model;
    static float* out;
    static uint32_t joints_cap;
    if (!g_rp.match || alpha < 0) return NULL;
    const size_t need = (bsync_present_match_scratch_size(g_rp.match) + 7) & ~(size_t)7;
    const uint32_t nj = bsync_present_match_joint_count(g_rp.match);
    if (need > scratch_cap) {
        free(scratch);
        scratch = aligned_alloc(8, need);
        scratch_cap = scratch ? need : 0;
    }
    if (nj > joints_cap) {
        free(local);
        free(model);
        free(out);
        local = malloc(sizeof *local * nj);
        model = malloc(sizeof *model * nj);
        out = malloc(sizeof *out * 3 * nj);
        joints_cap = local && model && out ? nj : 0;
    }
    if (!scratch || !joints_cap ||
        bsync_present_match(g_rp.match, (fix16_t)alpha, scratch, scratch_cap, local, model, NULL) != BSYNC_OK)
        return NULL;
    for (uint32_t j = 0; j < nj; j++) { /* display only */
        out[j * 3] = (float)bsync_fx_to_double(model[j].t.x);
        out[j * 3 + 1] = (float)bsync_fx_to_double(model[j].t.y);
        out[j * 3 + 2] = (float)bsync_fx_to_double(model[j].t.z);
    }
    return out;
}

/* ------------------------------------------------------------------------------------------ desync */
static void add_model(cJSON* parent, const char* key, bsync_match* m, uint32_t c, uint32_t nj) {
    bsync_trs* local = malloc(sizeof(bsync_trs) * (nj ? nj : 1));
    bsync_trs* model = malloc(sizeof(bsync_trs) * (nj ? nj : 1));
    if (nj && local && model && bsync_instance_pose(bsync_match_instance(m, c), local, model) == BSYNC_OK) {
        cJSON* pos = cJSON_AddArrayToObject(parent, key);
        for (uint32_t j = 0; j < nj; j++) { /* display only */
            cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.x)));
            cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.y)));
            cJSON_AddItemToArray(pos, cJSON_CreateNumber(bsync_fx_to_double(model[j].t.z)));
        }
    }
    free(local);
    free(model);
}

static void add_lines(cJSON* parent, const char* key, const char* text) {
    cJSON* arr = cJSON_AddArrayToObject(parent, key);
    for (const char* p = text; p && *p;) {
        const char* nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n > 2 && p[0] == ' ' && p[1] == ' ') {
            char* line = malloc(n - 1);
            if (line) {
                memcpy(line, p + 2, n - 2);
                line[n - 2] = '\0';
                cJSON_AddItemToArray(arr, cJSON_CreateString(line));
                free(line);
            }
        }
        p += n + (nl ? 1 : 0);
    }
}

static uint8_t* read_all(const char* path, size_t* len) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 65536, n = 0;
    uint8_t* buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
        if (n == cap) {
            uint8_t* nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Every character of the two matches: name, joints, both model poses, the joints whose per-joint pose
 * checksums differ, and whether the characters' blend states differ. */
static void add_characters(cJSON* o, const bsync_match_config* cfg, bsync_match* a, bsync_match* b) {
    const bsync_match_desc* desc = bsync_match_config_desc(cfg);
    static bsync_match_checksums ca, cb;
    const int sums = bsync_match_get_checksums(a, 0, &ca) == BSYNC_OK && bsync_match_get_checksums(b, 0, &cb) == BSYNC_OK;
    cJSON* chars = cJSON_AddArrayToObject(o, "characters");
    for (uint32_t c = 0; c < desc->character_count; c++) {
        const bsync_graph* gr = desc->characters[c].graph;
        const bsync_skeleton* sk = bsync_graph_skeleton(gr);
        const uint32_t nj = sk ? bsync_skeleton_joint_count(sk) : 0;
        cJSON* e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", bsync_match_config_character_name(cfg, c));
        cJSON* js = cJSON_AddArrayToObject(e, "joints");
        for (uint32_t j = 0; j < nj; j++) {
            cJSON* jj = cJSON_CreateObject();
            cJSON_AddStringToObject(jj, "name", bsync_skeleton_joint_name(sk, j));
            cJSON_AddNumberToObject(jj, "parent", bsync_skeleton_parent(sk, j));
            cJSON_AddItemToArray(js, jj);
        }
        add_model(e, "server", a, c, nj);
        add_model(e, "client", b, c, nj);
        if (sums) cJSON_AddBoolToObject(e, "blend_differs", ca.character_blend[c] != cb.character_blend[c]);
        cJSON* diff = cJSON_AddArrayToObject(e, "differing_joints");
        uint64_t* ja = malloc(sizeof(uint64_t) * (nj ? nj : 1));
        uint64_t* jb = malloc(sizeof(uint64_t) * (nj ? nj : 1));
        uint32_t na = 0, nb = 0;
        if (nj && ja && jb && bsync_match_joint_checksums(a, c, ja, nj, &na) == BSYNC_OK &&
            bsync_match_joint_checksums(b, c, jb, nj, &nb) == BSYNC_OK && na == nb)
            for (uint32_t j = 0; j < na; j++)
                if (ja[j] != jb[j]) cJSON_AddItemToArray(diff, cJSON_CreateNumber(j));
        free(ja);
        free(jb);
        cJSON_AddItemToArray(chars, e);
    }
}

const char* bs_desync_open(const char* dir, const char* match_path) {
    cJSON* o = cJSON_CreateObject();
    static bsync_desync_bundle b;
    bsync_error err;
    char cfg_path[1200];
    bsync_match_config* cfg = NULL;
    void* mem[4] = {NULL, NULL, NULL, NULL};
    bsync_match* m[4] = {NULL, NULL, NULL, NULL};
    uint8_t* server_final = NULL;
    size_t server_final_len = 0;
    static char text[32768];
    if (bsync_desync_bundle_open(dir, &b, &err) != BSYNC_OK ||
        bsync_desync_bundle_find_config(&b, match_path && *match_path ? match_path : NULL, cfg_path, sizeof cfg_path, &err) != BSYNC_OK ||
        bsync_match_config_load(cfg_path, NULL, &cfg, &err) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", err.message);
        goto done;
    }
    const bsync_match_desc* desc = bsync_match_config_desc(cfg);
    size_t size = bsync_match_memory_size(desc);
    for (int i = 0; i < 4; i++) {
        mem[i] = aligned_alloc(8, (size + 7) & ~(size_t)7);
        if (!mem[i] || bsync_match_init(mem[i], size, desc, &m[i]) != BSYNC_OK) {
            cJSON_AddStringToObject(o, "error", "cannot set up the match");
            goto done;
        }
    }
    if (bsync_desync_bundle_load_state(m[0], b.server_state, &err) != BSYNC_OK ||
        bsync_desync_bundle_load_state(m[1], b.client_state, &err) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", err.message);
        goto done;
    }
    cJSON_AddStringToObject(o, "config", cfg_path);
    cJSON_AddNumberToObject(o, "slot", (double)b.slot);
    /* the state after frame T: tick_count T + 1 */
    cJSON_AddNumberToObject(o, "tick", (double)bsync_match_tick_count(m[0]) - 1);
    /* a pose desync: the character and joints the server named (the report's "pose:" paragraph first) */
    text[0] = '\0';
    if (b.has_pose) {
        const bsync_desync_bundle_pose* pj = &b.pose;
        cJSON* po = cJSON_AddObjectToObject(o, "pose_joints");
        cJSON_AddNumberToObject(po, "tick", (double)pj->tick);
        cJSON_AddNumberToObject(po, "agreed_tick", (double)pj->agreed_tick);
        cJSON_AddNumberToObject(po, "character", pj->character);
        cJSON_AddStringToObject(po, "character_name", pj->character_name);
        cJSON_AddNumberToObject(po, "compared", pj->compared);
        cJSON_AddNumberToObject(po, "differing", pj->differing);
        cJSON* js = cJSON_AddArrayToObject(po, "joints");
        for (uint32_t i = 0; i < pj->joint_count; i++) {
            cJSON* e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "index", pj->joints[i].index);
            cJSON_AddStringToObject(e, "name", pj->joints[i].name);
            cJSON_AddItemToArray(js, e);
        }
        (void)bsync_desync_bundle_pose_text(pj, text, sizeof text);
        const char* nl = strchr(text, '\n');
        if (nl) { /* "summary": its first line, as report.txt has it */
            char first[1024];
            snprintf(first, sizeof first, "%.*s", (int)(nl - text), text);
            cJSON_AddStringToObject(po, "summary", first);
        }
    } else {
        cJSON_AddNullToObject(o, "pose_joints");
    }
    size_t pose_len = strlen(text);
    bsync_desync_describe(m[0], m[1], cfg, text + pose_len, sizeof text - pose_len);
    add_lines(o, "differences", text);
    server_final = read_all(b.server_state, &server_final_len);
    double previous_tick = -1; /* the last agreeing state: after frame previous_tick */
    if (bsync_desync_bundle_load_state(m[2], b.server_previous, &err) == BSYNC_OK) previous_tick = (double)bsync_match_tick_count(m[2]) - 1;
    bsync_desync_trace_result tr;
    memset(&tr, 0, sizeof tr);
    int reproduced = 0;
    text[0] = '\0';
    bsync_result rt = server_final ? bsync_desync_bundle_trace(&b, cfg, m[2], m[3], server_final, server_final_len, NULL, &tr, text,
                                                               sizeof text, &reproduced, &err)
                                   : BSYNC_IO_ERROR;
    cJSON* fd = cJSON_AddObjectToObject(o, "first_divergence");
    if (rt == BSYNC_OK) {
        cJSON_AddBoolToObject(fd, "located", tr.located);
        cJSON_AddBoolToObject(fd, "earlier", tr.earlier);
        /* U is the first state that differs, the state after frame U - 1: the report's "tick U - 1" */
        cJSON_AddNumberToObject(fd, "tick", tr.located ? (double)tr.tick - 1 : -1);
        cJSON_AddNumberToObject(fd, "character", tr.character);
        cJSON_AddNumberToObject(fd, "operation", tr.operation);
        cJSON_AddNumberToObject(fd, "previous_tick", previous_tick);
        cJSON_AddBoolToObject(fd, "reproduced", reproduced);
        if (!text[0]) /* no divergence in the trail: the line the server's report.txt writes */
            snprintf(text, sizeof text, "  the client's trail agrees with the re-simulation at every tick it holds (%u)\n",
                     tr.compared);
        add_lines(fd, "lines", text);
    } else {
        cJSON_AddStringToObject(fd, "unavailable", rt == BSYNC_NOT_FOUND ? "the bundle has no client trail" : err.message);
    }
    add_characters(o, cfg, m[0], m[1]);
done:
    free(server_final);
    for (int i = 0; i < 4; i++) free(mem[i]);
    bsync_match_config_destroy(cfg);
    return emit(o);
}

/* Both states of a bundle's match after frame `tick` (previous tick < tick <= reported tick): the
 * server's re-simulated from server-previous.bsms with inputs.csv (as the trace does), the client's
 * the server's with each character of client-trail.bstrail loaded from its entry at the start of tick
 * + 1 (client.bsms itself at the reported tick). {"tick", "server_is_bundle": the re-simulated server
 * state is server.bsms byte for byte (at the reported tick), "client_from": "trail" | "client.bsms",
 * "characters": as bs_desync_open}. */
const char* bs_desync_at(const char* dir, const char* match_path, int tick) {
    cJSON* o = cJSON_CreateObject();
    static bsync_desync_bundle b;
    bsync_error err;
    char cfg_path[1200];
    bsync_match_config* cfg = NULL;
    void* mem[2] = {NULL, NULL};
    bsync_match* m[2] = {NULL, NULL};
    uint8_t *prev = NULL, *fin = NULL, *csv = NULL, *trail_bytes = NULL, *buf = NULL;
    size_t prev_len = 0, fin_len = 0, csv_len = 0, trail_len = 0, buf_cap = 0;
    bsync_match_frame* frames = NULL;
    if (bsync_desync_bundle_open(dir, &b, &err) != BSYNC_OK ||
        bsync_desync_bundle_find_config(&b, match_path && *match_path ? match_path : NULL, cfg_path, sizeof cfg_path, &err) != BSYNC_OK ||
        bsync_match_config_load(cfg_path, NULL, &cfg, &err) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", err.message);
        goto done;
    }
    const bsync_match_desc* desc = bsync_match_config_desc(cfg);
    size_t size = bsync_match_memory_size(desc);
    for (int i = 0; i < 2; i++) {
        mem[i] = aligned_alloc(8, (size + 7) & ~(size_t)7);
        if (!mem[i] || bsync_match_init(mem[i], size, desc, &m[i]) != BSYNC_OK) {
            cJSON_AddStringToObject(o, "error", "cannot set up the match");
            goto done;
        }
    }
    prev = read_all(b.server_previous, &prev_len);
    fin = read_all(b.server_state, &fin_len);
    csv = read_all(b.inputs, &csv_len);
    if (!prev || !fin || !csv || bsync_match_load(m[0], prev, prev_len) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", "the bundle has no loadable server-previous.bsms, server.bsms and inputs.csv");
        goto done;
    }
    const uint32_t start = (uint32_t)bsync_match_tick_count(m[0]); /* the state at the start of tick start */
    if (tick < 0 || (uint32_t)tick + 1u < start || (uint32_t)tick + 1u - start > 4096u) {
        cJSON_AddStringToObject(o, "error", "no such tick in this bundle");
        goto done;
    }
    const uint32_t count = (uint32_t)tick + 1u - start;
    frames = calloc(count + 1u, sizeof *frames);
    if (!frames || bsync_desync_bundle_inputs_parse((const char*)csv, csv_len, b.inputs, desc, start, count, frames, NULL, &err) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", frames ? err.message : "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < count; i++)
        if (bsync_match_tick(m[0], &frames[i]) != BSYNC_OK) {
            cJSON_AddStringToObject(o, "error", "a frame of inputs.csv does not fit the match");
            goto done;
        }
    buf_cap = bsync_match_snapshot_size_max(m[0]);
    buf = malloc(buf_cap ? buf_cap : 1);
    size_t sl = 0;
    if (!buf || bsync_match_save(m[0], buf, buf_cap, &sl) != BSYNC_OK || bsync_match_load(m[1], buf, sl) != BSYNC_OK) {
        cJSON_AddStringToObject(o, "error", "cannot copy the server's state");
        goto done;
    }
    cJSON_AddNumberToObject(o, "tick", tick);
    cJSON_AddBoolToObject(o, "server_is_bundle", sl == fin_len && memcmp(buf, fin, sl) == 0);
    if ((long long)tick >= b.tick) { /* the reported tick: the client's own state */
        if (bsync_desync_bundle_load_state(m[1], b.client_state, &err) != BSYNC_OK) {
            cJSON_AddStringToObject(o, "error", err.message);
            goto done;
        }
        cJSON_AddStringToObject(o, "client_from", "client.bsms");
    } else {
        bsync_trail tr;
        trail_bytes = read_all(b.client_trail, &trail_len);
        if (!trail_bytes || bsync_trail_parse(trail_bytes, trail_len, &tr, &err) != BSYNC_OK || (uint32_t)tick + 1u < tr.first_tick ||
            (uint32_t)tick + 1u - tr.first_tick >= tr.tick_count) {
            cJSON_AddStringToObject(o, "error", "the client's trail does not hold this tick");
            goto done;
        }
        for (uint32_t k = 0; k < tr.character_count; k++) {
            const uint8_t* eb = NULL;
            size_t el = 0;
            if (bsync_trail_entry(&tr, (uint32_t)tick + 1u - tr.first_tick, k, &eb, &el) != BSYNC_OK ||
                bsync_instance_load(bsync_match_instance(m[1], tr.characters[k]), eb, el) != BSYNC_OK) {
                cJSON_AddStringToObject(o, "error", "a trail entry does not load");
                goto done;
            }
        }
        cJSON_AddStringToObject(o, "client_from", "trail");
    }
    add_characters(o, cfg, m[0], m[1]);
done:
    free(frames);
    free(buf);
    free(prev);
    free(fin);
    free(csv);
    free(trail_bytes);
    for (int i = 0; i < 2; i++) free(mem[i]);
    bsync_match_config_destroy(cfg);
    return emit(o);
}
