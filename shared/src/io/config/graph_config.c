/* graph_config.c — config file -> tree + graph fields (config.c) -> imported clips, curves, graph. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/curve.h"
#include "blendsync/io/asset.h"
#include "blendsync/io/graph_config.h"
#include "file_internal.h"
#include "blendsync/io/retarget.h"
#include "blendsync/procedural.h"
#include "graph_config_internal.h"
#include "platform.h"

typedef struct source_entry {
    char path[BSYNC_CONFIG_MAX_SOURCE + 512]; /* resolved */
    const char* written;                      /* as in the config */
    bsync_asset asset;
} source_entry;

struct bsync_graph_config {
    bsync_blend_tree* tree;
    bsync_config_graph_fields* fields;
    source_entry* sources; /* fields->clip_count entries at most */
    uint32_t source_count;
    const bsync_clip** clips; /* motion_count */
    bsync_curve* curves[BSYNC_MAX_PARAMETERS];
    bsync_param_filter_desc filters[BSYNC_MAX_PARAMETERS];
    bsync_graph_node_options options[BSYNC_MAX_BLEND_NODES];
    bsync_graph_switch_desc switches[BSYNC_GRAPH_MAX_SWITCHES];
    bsync_graph_layer_desc layers[BSYNC_GRAPH_MAX_LAYERS];
    bsync_layer_bone* bones[BSYNC_GRAPH_MAX_LAYERS]; /* malloc'd mask tables */
    uint32_t* one_shot;                      /* motion_count (docs/actions.md) */
    bsync_graph_action_desc* actions;        /* the clips' events, grouped by motion */
    bsync_graph_curve_desc* float_curves;    /* the clips' float curves, grouped by motion */
    bsync_graph_marker_desc* markers;        /* the clips' sync markers, grouped by motion */
    uint32_t* clip_source;                   /* per config clip: its source entry and the asset's clip */
    uint32_t* clip_index;                    /* (for the file's clip actions, docs/clip-format.md) */
    uint8_t marker_sync[BSYNC_MAX_BLEND_NODES]; /* "sync": "markers" nodes */
    bsync_graph_exit_desc exits[BSYNC_GRAPH_MAX_SWITCHES * BSYNC_MAX_BLEND_CHILDREN];
    bsync_graph_actions_desc actions_desc;
    bsync_graph* graph;
    uint32_t bound;
    char notes[4096];
};

/* JSON Pointer token escaping ("~" -> "~0", "/" -> "~1"). */
static const char* ptr_token(const char* s, char* buf, size_t cap) {
    size_t n = 0;
    for (; *s && n + 3 < cap; s++) {
        if (*s == '~' || *s == '/') {
            buf[n++] = '~';
            buf[n++] = *s == '~' ? '0' : '1';
        } else {
            buf[n++] = *s;
        }
    }
    buf[n] = '\0';
    return buf;
}

static void note(bsync_graph_config* g, const char* fmt, ...) {
    size_t n = strlen(g->notes);
    if (n + 2 >= sizeof g->notes) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->notes + n, sizeof g->notes - n, fmt, ap);
    va_end(ap);
    n = strlen(g->notes);
    if (n + 1 < sizeof g->notes) {
        g->notes[n] = '\n';
        g->notes[n + 1] = '\0';
    }
}

void bsync_graph_config_destroy(bsync_graph_config* g) {
    if (!g) return;
    bsync_graph_destroy(g->graph);
    for (uint32_t i = 0; i < BSYNC_GRAPH_MAX_LAYERS; i++) free(g->bones[i]);
    free(g->one_shot);
    free(g->actions);
    free(g->float_curves);
    free(g->markers);
    free(g->clip_source);
    free(g->clip_index);
    for (uint32_t i = 0; i < BSYNC_MAX_PARAMETERS; i++) bsync_curve_destroy(g->curves[i]);
    for (uint32_t i = 0; i < g->source_count; i++) bsync_asset_destroy(&g->sources[i].asset);
    free(g->sources);
    free(g->clips);
    bsync_config_graph_fields_destroy(g->fields);
    bsync_blend_tree_destroy(g->tree);
    free(g);
}

static bsync_result oom(bsync_graph_config* g, const char* path, bsync_error* err) {
    bsync_graph_config_destroy(g);
    bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", path);
    return BSYNC_OUT_OF_MEMORY;
}

/* The clip actions of config clip k's file (a .bsclip of version 3, docs/clip-format.md "Clip actions") for
 * its animation whose kind is in `kinds` (bit per bsync_clip_action_kind): their count, copied into out
 * (when not NULL). The config uses them for each kind its clip entry lists none of. */
static uint32_t file_actions(const bsync_graph_config* g, uint32_t k, unsigned kinds, bsync_clip_action* out) {
    const bsync_asset* a = &g->sources[g->clip_source[k]].asset;
    const uint32_t n = bsync_asset_clip_action_count(a);
    uint32_t got = 0;
    for (uint32_t i = 0; i < n; i++) {
        bsync_clip_action x;
        if (bsync_asset_get_clip_action(a, i, &x) != BSYNC_OK || x.clip != g->clip_index[k] ||
            !(kinds & (1u << (unsigned)x.kind)))
            continue;
        if (out) out[got] = x;
        got++;
    }
    return got;
}
#define KIND_BIT(K) (1u << (unsigned)(K))

/* "a, b, c" of an asset's clip names. */
static void clip_names(const bsync_asset* a, char* buf, size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < a->clip_count && n + 8 < cap; i++) {
        if (n > 200) {
            snprintf(buf + n, cap - n, ", ...");
            return;
        }
        int w = snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", bsync_clip_name(a->clips[i]));
        if (w < 0) return;
        n += (size_t)w;
    }
    if (a->clip_count == 0) snprintf(buf, cap, "none");
}

/* The built-in procedural humanoid (procedural.h) as an asset: skeleton + clips idle, walk, run, owned
 * by the asset exactly as an import's (bsync_asset_destroy frees them), followed by those of the extra
 * clips (walk_back, strafe_left, strafe_right, wave, punch: bsync_procedural_humanoid_full_create)
 * that some "builtin:humanoid" clip entry of this config names as its animation. So a config using only
 * idle/walk/run sees exactly the three-clip asset it always did (notes and messages unchanged).
 * Declared in graph_config_internal.h (validate.c checks the same asset). */
bsync_result bsync_graph_config_builtin_humanoid(bsync_asset* a, const bsync_config_graph_fields* f) {
    memset(a, 0, sizeof *a);
    bsync_procedural_humanoid_full h;
    bsync_result r = bsync_procedural_humanoid_full_create(NULL, &h);
    if (r != BSYNC_OK) return r;
    a->clips = (bsync_clip**)calloc(BSYNC_PROCEDURAL_FULL_CLIP_COUNT, sizeof(bsync_clip*));
    a->stats = (bsync_import_stats*)calloc(BSYNC_PROCEDURAL_FULL_CLIP_COUNT, sizeof(bsync_import_stats));
    if (!a->clips || !a->stats) {
        free(a->clips);
        free(a->stats);
        a->clips = NULL;
        a->stats = NULL;
        bsync_procedural_humanoid_full_destroy(&h);
        return BSYNC_OUT_OF_MEMORY;
    }
    a->skeleton = h.skeleton;
    uint32_t n = 0;
    for (uint32_t i = 0; i < BSYNC_PROCEDURAL_FULL_CLIP_COUNT; i++) {
        int keep = i < BSYNC_PROCEDURAL_CLIP_COUNT;
        for (uint32_t k = 0; !keep && k < f->clip_count; k++)
            keep = !strcmp(f->clips[k].source, BSYNC_CONFIG_BUILTIN_HUMANOID) &&
                   !strcmp(f->clips[k].animation, bsync_clip_name(h.clips[i]));
        if (keep) a->clips[n++] = h.clips[i];
        else bsync_clip_destroy(h.clips[i]);
    }
    a->clip_count = n;
    snprintf(a->source, sizeof a->source, "built-in procedural humanoid (procedural.h)");
    return BSYNC_OK;
}

/* Import (or reuse) the source of clip entry k; *out = its entry. */
static bsync_result load_source(bsync_graph_config* g, const bsync_config_load_options* options, const char* path,
                                const char* dir, size_t dir_len, const bsync_config_clip* cl, source_entry** out,
                                bsync_error* err) {
    char tok[2 * BSYNC_MAX_NAME + 8];
    char resolved[sizeof g->sources[0].path];
    const int builtin = !strncmp(cl->source, BSYNC_CONFIG_BUILTIN_PREFIX, strlen(BSYNC_CONFIG_BUILTIN_PREFIX));
    if (builtin || bsync_platform_path_is_absolute(BSYNC_PATH_NATIVE, cl->source) || dir_len == 0) snprintf(resolved, sizeof resolved, "%s", cl->source);
    else snprintf(resolved, sizeof resolved, "%.*s%s", (int)dir_len, dir, cl->source);
    for (uint32_t i = 0; i < g->source_count; i++)
        if (!strcmp(g->sources[i].path, resolved)) {
            *out = &g->sources[i];
            return BSYNC_OK;
        }
    source_entry* s = &g->sources[g->source_count];
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", resolved);
    s->written = cl->source;
    bsync_error e;
    memset(&e, 0, sizeof e);
    bsync_result r;
    if (builtin) {
        if (strcmp(cl->source, BSYNC_CONFIG_BUILTIN_HUMANOID) != 0) { /* config.c refuses these first */
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips/%s/source: unknown built-in source \"%s\" (built-ins: %s)",
                      path, ptr_token(cl->motion, tok, sizeof tok), cl->source, BSYNC_CONFIG_BUILTIN_HUMANOID);
            return BSYNC_CONFIG_ERROR;
        }
        r = bsync_graph_config_builtin_humanoid(&s->asset, g->fields);
        if (r != BSYNC_OK) return BSYNC_OUT_OF_MEMORY;
    } else {
        bsync_import_options io;
        memset(&io, 0, sizeof io);
        if (options) io.file = options->file;
        r = bsync_asset_import_file(resolved, &io, &s->asset, &e);
    }
    if (r == BSYNC_OUT_OF_MEMORY) return r;
    if (r != BSYNC_OK) {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips/%s/source: cannot import \"%s\": %s", path,
                  ptr_token(cl->motion, tok, sizeof tok), cl->source, e.message);
        return BSYNC_CONFIG_ERROR;
    }
    g->source_count++;
    note(g, "%s: %u animation%s (%s), skeleton of %u joints", cl->source, s->asset.clip_count,
         s->asset.clip_count == 1 ? "" : "s", s->asset.source, bsync_skeleton_joint_count(s->asset.skeleton));
    if (g->source_count > 1) {
        const source_entry* first = &g->sources[0];
        if (bsync_checksum_skeleton(s->asset.skeleton) != bsync_checksum_skeleton(first->asset.skeleton)) {
            bsync_retarget_report rep;
            memset(&rep, 0, sizeof rep);
            r = bsync_retarget_asset(&s->asset, first->asset.skeleton, 0, &rep, &e);
            if (r == BSYNC_OUT_OF_MEMORY) return r;
            if (r != BSYNC_OK || rep.mapped == 0) {
                if (r == BSYNC_OK)
                    bsync_io_set_error(err, BSYNC_CONFIG_ERROR,
                              "%s: /clips/%s/source: \"%s\" shares no joint name with the skeleton of \"%s\": cannot "
                              "retarget its clips",
                              path, ptr_token(cl->motion, tok, sizeof tok), cl->source, first->written);
                else
                    bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips/%s/source: cannot retarget \"%s\" onto the skeleton of \"%s\": %s",
                              path, ptr_token(cl->motion, tok, sizeof tok), cl->source, first->written, e.message);
                return BSYNC_CONFIG_ERROR;
            }
            note(g, "%s: retargeted by joint name onto the skeleton of %s: %u of %u joints mapped", cl->source,
                 first->written, rep.mapped, rep.target_joints);
            if (rep.unmapped_target)
                note(g, "%s: %u joints without a source track keep the rest pose: %s", cl->source, rep.unmapped_target,
                     rep.unmapped_target_names);
            if (rep.unmapped_source)
                note(g, "%s: %u source joints not in the skeleton were dropped (%u tracks): %s", cl->source,
                     rep.unmapped_source, rep.dropped_tracks, rep.unmapped_source_names);
        }
    }
    *out = s;
    return BSYNC_OK;
}

/* Steps 1-4 of a graph config: text NULL reads the file `path` (through options' callbacks), else parses
 * text[0 .. len) named `path`; clip sources are read through options' callbacks either way. */
static bsync_result graph_config_build(const char* path, const bsync_config_load_options* options, const char* text,
                                       size_t len, const bsync_allocator* allocator, bsync_graph_config** out,
                                       bsync_blend_diagnostics* diags, bsync_error* err) {
    if (err) {
        err->code = BSYNC_OK;
        err->message[0] = '\0';
    }
    if (!path || !out) {
        if (out) *out = NULL;
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "config: %s", bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    *out = NULL;
    bsync_graph_config* g = (bsync_graph_config*)calloc(1, sizeof *g);
    if (!g) return oom(NULL, path, err);
    bsync_result r = text ? bsync_config_parse_graph(text, len, path, allocator, &g->tree, &g->fields, diags, err)
                          : bsync_config_load_graph_with_(options ? &options->file : NULL, path, allocator,
                                                               &g->tree, &g->fields, diags, err);
    if (r != BSYNC_OK) {
        bsync_graph_config_destroy(g);
        return r;
    }
    const bsync_config_graph_fields* f = g->fields;
    const uint32_t motions = bsync_blend_tree_motion_count(g->tree);
    g->clips = (const bsync_clip**)calloc(motions ? motions : 1, sizeof(bsync_clip*));
    g->sources = (source_entry*)calloc(f->clip_count ? f->clip_count : 1, sizeof(source_entry));
    g->clip_source = (uint32_t*)calloc(f->clip_count ? f->clip_count : 1, sizeof(uint32_t));
    g->clip_index = (uint32_t*)calloc(f->clip_count ? f->clip_count : 1, sizeof(uint32_t));
    if (!g->clips || !g->sources || !g->clip_source || !g->clip_index) return oom(g, path, err);

    /* 2. clips */
    const size_t dir_len = bsync_platform_path_dir_len(BSYNC_PATH_NATIVE, path);
    char tok[2 * BSYNC_MAX_NAME + 8];
    for (uint32_t k = 0; k < f->clip_count; k++) {
        const bsync_config_clip* cl = &f->clips[k];
        source_entry* s;
        if ((r = load_source(g, options, path, path, dir_len, cl, &s, err)) != BSYNC_OK) {
            bsync_graph_config_destroy(g);
            if (r == BSYNC_OUT_OF_MEMORY) bsync_io_set_error(err, r, "%s: out of memory", path);
            return r;
        }
        const bsync_clip* found = NULL;
        for (uint32_t i = 0; i < s->asset.clip_count && !found; i++)
            if (!strcmp(bsync_clip_name(s->asset.clips[i]), cl->animation)) {
                found = s->asset.clips[i];
                g->clip_index[k] = i;
            }
        if (!found && !cl->animation_given && s->asset.clip_count == 1) found = s->asset.clips[0];
        g->clip_source[k] = (uint32_t)(s - g->sources);
        if (!found) {
            char names[300];
            clip_names(&s->asset, names, sizeof names);
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips/%s/%s: no animation \"%s\" in %s (animations: %s)", path,
                      ptr_token(cl->motion, tok, sizeof tok), cl->animation_given ? "animation" : "source",
                      cl->animation, cl->source, names);
            bsync_graph_config_destroy(g);
            return BSYNC_CONFIG_ERROR;
        }
        uint32_t m;
        if (bsync_blend_tree_find_motion(g->tree, cl->motion, &m) == BSYNC_OK) { /* config.c checked it */
            g->clips[m] = found;
            g->bound++;
        }
    }
    const bsync_skeleton* skeleton = g->source_count ? g->sources[0].asset.skeleton : NULL;

    /* 3. filters, curves, node options, root joint */
    const uint32_t params = bsync_blend_tree_parameter_count(g->tree);
    for (uint32_t i = 0; i < params; i++) {
        const bsync_config_filter* cf = &f->filters[i];
        bsync_param_filter_desc* d = &g->filters[i];
        d->dead_zone = cf->dead_zone;
        d->dead_zone_range = cf->dead_zone_range;
        d->smooth_time = cf->smooth_time;
        d->max_speed = cf->max_speed;
        d->pair = cf->pair;
        if (cf->has_curve) {
            bsync_curve_desc cd;
            memset(&cd, 0, sizeof cd);
            cd.keys = cf->keys;
            cd.key_count = cf->key_count;
            cd.pre_wrap = cf->pre_wrap;
            cd.post_wrap = cf->post_wrap;
            r = bsync_curve_create(&cd, allocator, &g->curves[i]);
            if (r == BSYNC_OUT_OF_MEMORY) return oom(g, path, err);
            if (r != BSYNC_OK) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /parameters/%s/curve: %s", path,
                          ptr_token(bsync_blend_tree_parameter_name(g->tree, i), tok, sizeof tok), bsync_result_string(r));
                bsync_graph_config_destroy(g);
                return BSYNC_CONFIG_ERROR;
            }
            d->curve = g->curves[i];
        }
    }
    const uint32_t nodes = bsync_blend_tree_node_count(g->tree);
    for (uint32_t n = 0; n < nodes; n++) {
        g->options[n].sync = f->nodes[n].sync;
        g->options[n].time_scales = f->nodes[n].time_scales;
        g->options[n].cycle_offsets = f->nodes[n].cycle_offsets;
    }
    uint32_t root_joint = 0;
    if (f->root_joint[0]) {
        if (!skeleton) {
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /root_joint: no clips are bound, so there is no skeleton to find \"%s\" in",
                      path, f->root_joint);
            bsync_graph_config_destroy(g);
            return BSYNC_CONFIG_ERROR;
        }
        if (bsync_skeleton_find(skeleton, f->root_joint, &root_joint) != BSYNC_OK) {
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /root_joint: no joint named \"%s\" in the skeleton (from %s)", path,
                      f->root_joint, g->sources[0].written);
            bsync_graph_config_destroy(g);
            return BSYNC_CONFIG_ERROR;
        }
    }

    /* 3b. switches and layers (mask joints by name) */
    for (uint32_t i = 0; i < f->switch_count; i++) {
        g->switches[i].node = f->switches[i].node;
        g->switches[i].initial_child = f->switches[i].initial_child;
    }
    if (f->layer_count > 0 && !skeleton) {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /layers: layers blend poses: they need a skeleton, so clips must be bound",
                  path);
        bsync_graph_config_destroy(g);
        return BSYNC_CONFIG_ERROR;
    }
    for (uint32_t i = 0; i < f->layer_count; i++) {
        const bsync_config_layer* cl = &f->layers[i];
        bsync_graph_layer_desc* ld = &g->layers[i];
        ld->node = cl->node;
        ld->mode = cl->mode;
        ld->weight_source = cl->weight_source;
        ld->weight = cl->weight;
        ld->weight_param = cl->weight_param;
        if (cl->mask_count > 0) {
            g->bones[i] = (bsync_layer_bone*)calloc(cl->mask_count, sizeof(bsync_layer_bone));
            if (!g->bones[i]) return oom(g, path, err);
            for (uint32_t k = 0; k < cl->mask_count; k++) {
                if (bsync_skeleton_find(skeleton, cl->mask[k].joint, &g->bones[i][k].joint) != BSYNC_OK) {
                    bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /layers/%u/mask/joints/%u: no joint named \"%s\" in the skeleton (from %s)",
                              path, i, k, cl->mask[k].joint, g->sources[0].written);
                    bsync_graph_config_destroy(g);
                    return BSYNC_CONFIG_ERROR;
                }
                g->bones[i][k].include_descendants = cl->mask[k].include_descendants;
            }
            ld->mask = g->bones[i];
            ld->mask_count = cl->mask_count;
        }
    }
    /* 3c. actions: one-shots, the clips' events (checked against the bound clip), switch exits */
    uint32_t action_total = 0, exit_total = 0, any_once = 0;
    const unsigned ev_kinds = KIND_BIT(BSYNC_CLIP_ACTION_EVENT) | KIND_BIT(BSYNC_CLIP_ACTION_RANGE);
    for (uint32_t k = 0; k < f->clip_count; k++)
        action_total += f->clips[k].event_count ? f->clips[k].event_count : file_actions(g, k, ev_kinds, NULL);
    g->one_shot = (uint32_t*)calloc(motions ? motions : 1, sizeof(uint32_t));
    g->actions = (bsync_graph_action_desc*)calloc(action_total ? action_total : 1, sizeof(bsync_graph_action_desc));
    if (!g->one_shot || !g->actions) return oom(g, path, err);
    action_total = 0;
    for (uint32_t m = 0; m < motions; m++) {
        for (uint32_t k = 0; k < f->clip_count; k++) {
            const bsync_config_clip* cl = &f->clips[k];
            if (strcmp(cl->motion, bsync_blend_tree_motion_name(g->tree, m)) != 0) continue;
            g->one_shot[m] = cl->loop ? 0u : 1u;
            any_once |= g->one_shot[m];
            const fix16_t dur = g->clips[m] ? bsync_clip_duration(g->clips[m]) : 0;
            for (uint32_t e = 0; e < cl->event_count; e++) {
                const bsync_config_event* ce = &cl->events[e];
                const int range = ce->kind == BSYNC_ACTION_RANGE;
                const fix16_t bad = ce->time < 0 || ce->time > dur ? ce->time : range && ce->end > dur ? ce->end : -1;
                if (dur <= 0 || bad != -1) {
                    char t1[32], t2[32];
                    bsync_fx_format(bad != -1 ? bad : ce->time, t1, sizeof t1);
                    bsync_fx_format(dur, t2, sizeof t2);
                    bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips/%s/events/%u/%s: %s s is outside the clip (0 to %s s)",
                                       path, ptr_token(cl->motion, tok, sizeof tok), e,
                                       !range ? "time" : (ce->time < 0 || ce->time > dur) ? "begin" : "end", t1, t2);
                    bsync_graph_config_destroy(g);
                    return BSYNC_CONFIG_ERROR;
                }
                bsync_graph_action_desc* a = &g->actions[action_total++];
                a->name = ce->name;
                a->motion = m;
                a->kind = ce->kind;
                a->time = ce->time;
                a->end = range ? ce->end : 0;
                a->payload = ce->payload;
                a->policy = ce->policy;
                a->threshold = ce->threshold;
            }
            if (cl->event_count == 0) { /* the file's events and ranges, policy weight > 0 */
                const uint32_t n = file_actions(g, k, ev_kinds, NULL);
                bsync_clip_action* x = (bsync_clip_action*)malloc((n ? n : 1) * sizeof *x);
                if (!x) return oom(g, path, err);
                (void)file_actions(g, k, ev_kinds, x);
                for (uint32_t i = 0; i < n; i++) {
                    bsync_graph_action_desc* a = &g->actions[action_total++];
                    a->name = x[i].name;
                    a->motion = m;
                    a->kind = x[i].kind == BSYNC_CLIP_ACTION_RANGE ? BSYNC_ACTION_RANGE : BSYNC_ACTION_EVENT;
                    a->time = x[i].time;
                    a->end = x[i].end;
                    a->payload = x[i].payload;
                }
                free(x);
            }
        }
    }
    /* float curves (docs/actions.md "Float curves"), key times checked against the bound clip */
    uint32_t curve_total = 0;
    const unsigned cv_kind = KIND_BIT(BSYNC_CLIP_ACTION_CURVE);
    for (uint32_t k = 0; k < f->clip_count; k++)
        curve_total += f->clips[k].curve_count ? f->clips[k].curve_count : file_actions(g, k, cv_kind, NULL);
    if (curve_total > BSYNC_GRAPH_MAX_CURVES) {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips: at most %u curves in a graph (got %u)", path,
                           BSYNC_GRAPH_MAX_CURVES, curve_total);
        bsync_graph_config_destroy(g);
        return BSYNC_CONFIG_ERROR;
    }
    g->float_curves = (bsync_graph_curve_desc*)calloc(curve_total ? curve_total : 1, sizeof(bsync_graph_curve_desc));
    if (!g->float_curves) return oom(g, path, err);
    curve_total = 0;
    for (uint32_t m = 0; m < motions; m++) {
        for (uint32_t k = 0; k < f->clip_count; k++) {
            const bsync_config_clip* cl = &f->clips[k];
            if (strcmp(cl->motion, bsync_blend_tree_motion_name(g->tree, m)) != 0) continue;
            const fix16_t dur = g->clips[m] ? bsync_clip_duration(g->clips[m]) : 0;
            for (uint32_t e = 0; e < cl->curve_count; e++) {
                const bsync_config_curve* cc = &cl->curves[e];
                const fix16_t last = cc->times[cc->key_count - 1];
                if (dur <= 0 || last > dur) {
                    char t1[32], t2[32], tok2[2 * BSYNC_MAX_NAME + 8];
                    bsync_fx_format(last, t1, sizeof t1);
                    bsync_fx_format(dur, t2, sizeof t2);
                    bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips/%s/curves/%s/%u/0: %s s is outside the clip (0 to %s s)",
                                       path, ptr_token(cl->motion, tok, sizeof tok), ptr_token(cc->name, tok2, sizeof tok2),
                                       cc->key_count - 1, t1, t2);
                    bsync_graph_config_destroy(g);
                    return BSYNC_CONFIG_ERROR;
                }
                bsync_graph_curve_desc* x = &g->float_curves[curve_total++];
                x->name = cc->name;
                x->motion = m;
                x->key_count = cc->key_count;
                x->times = cc->times;
                x->values = cc->values;
            }
            if (cl->curve_count == 0) { /* the file's curves */
                const uint32_t n = file_actions(g, k, cv_kind, NULL);
                bsync_clip_action* x = (bsync_clip_action*)malloc((n ? n : 1) * sizeof *x);
                if (!x) return oom(g, path, err);
                (void)file_actions(g, k, cv_kind, x);
                for (uint32_t i = 0; i < n; i++) {
                    bsync_graph_curve_desc* c = &g->float_curves[curve_total++];
                    c->name = x[i].name;
                    c->motion = m;
                    c->key_count = x[i].key_count;
                    c->times = x[i].key_times;
                    c->values = x[i].key_values;
                }
                free(x);
            }
        }
    }
    /* sync markers (docs/actions.md "Sync markers"), times checked against the bound clip */
    uint32_t marker_total = 0, any_marker_sync = 0;
    const unsigned mk_kind = KIND_BIT(BSYNC_CLIP_ACTION_MARKER);
    for (uint32_t k = 0; k < f->clip_count; k++)
        marker_total += f->clips[k].marker_count ? f->clips[k].marker_count : file_actions(g, k, mk_kind, NULL);
    if (marker_total > BSYNC_GRAPH_MAX_MARKERS) {
        bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips: at most %u markers in a graph (got %u)", path,
                           BSYNC_GRAPH_MAX_MARKERS, marker_total);
        bsync_graph_config_destroy(g);
        return BSYNC_CONFIG_ERROR;
    }
    g->markers = (bsync_graph_marker_desc*)calloc(marker_total ? marker_total : 1, sizeof(bsync_graph_marker_desc));
    if (!g->markers) return oom(g, path, err);
    marker_total = 0;
    for (uint32_t m = 0; m < motions; m++) {
        for (uint32_t k = 0; k < f->clip_count; k++) {
            const bsync_config_clip* cl = &f->clips[k];
            if (strcmp(cl->motion, bsync_blend_tree_motion_name(g->tree, m)) != 0) continue;
            const fix16_t dur = g->clips[m] ? bsync_clip_duration(g->clips[m]) : 0;
            for (uint32_t e = 0; e < cl->marker_count; e++) {
                const bsync_config_marker* cm = &cl->markers[e];
                if (dur <= 0 || cm->time >= dur) {
                    char t1[32], t2[32];
                    bsync_fx_format(cm->time, t1, sizeof t1);
                    bsync_fx_format(dur, t2, sizeof t2);
                    bsync_io_set_error(err, BSYNC_CONFIG_ERROR,
                                       "%s: /clips/%s/markers/%u/time: %s s is outside the clip (0 to below %s s)", path,
                                       ptr_token(cl->motion, tok, sizeof tok), e, t1, t2);
                    bsync_graph_config_destroy(g);
                    return BSYNC_CONFIG_ERROR;
                }
                bsync_graph_marker_desc* x = &g->markers[marker_total++];
                x->name = cm->name;
                x->motion = m;
                x->time = cm->time;
            }
            if (cl->marker_count == 0) { /* the file's markers (sorted by time in the file) */
                const uint32_t n = file_actions(g, k, mk_kind, NULL);
                bsync_clip_action* x = (bsync_clip_action*)malloc((n ? n : 1) * sizeof *x);
                if (!x) return oom(g, path, err);
                (void)file_actions(g, k, mk_kind, x);
                for (uint32_t i = 0; i < n; i++) {
                    bsync_graph_marker_desc* d = &g->markers[marker_total++];
                    d->name = x[i].name;
                    d->motion = m;
                    d->time = x[i].time;
                }
                free(x);
            }
        }
    }
    for (uint32_t n = 0; n < f->node_count && n < BSYNC_MAX_BLEND_NODES; n++) {
        g->marker_sync[n] = (uint8_t)(f->nodes[n].marker_sync > 255u ? 1u : f->nodes[n].marker_sync); /* 2..: a sync group */
        any_marker_sync |= g->marker_sync[n];
    }
    for (uint32_t i = 0; i < f->switch_count; i++)
        for (uint32_t k = 0; k < f->switches[i].exit_count; k++) {
            const bsync_config_exit* ce = &f->switches[i].exits[k];
            bsync_graph_exit_desc* x = &g->exits[exit_total++];
            x->switch_index = i;
            x->state = ce->state;
            x->target = ce->target;
            x->exit_time = ce->at;
            x->fade_ticks = ce->fade;
            x->carry_time = ce->carry;
            x->inertialize = ce->inertialize;
            if (ce->carry == 2u && marker_total == 0) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /nodes/%s/children/%u/exit/start: \"start\": \"marker\" needs markers on the clips",
                                   path, ptr_token(bsync_blend_tree_node_name(g->tree, f->switches[i].node), tok, sizeof tok), ce->state);
                bsync_graph_config_destroy(g);
                return BSYNC_CONFIG_ERROR;
            }
            if (ce->inertialize && !skeleton) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /nodes/%s/children/%u/exit/inertialize: inertialize needs a graph with a skeleton (bound clips)",
                                   path, ptr_token(bsync_blend_tree_node_name(g->tree, f->switches[i].node), tok, sizeof tok), ce->state);
                bsync_graph_config_destroy(g);
                return BSYNC_CONFIG_ERROR;
            }
        }
    g->actions_desc.one_shot = any_once ? g->one_shot : NULL;
    g->actions_desc.actions = action_total ? g->actions : NULL;
    g->actions_desc.action_count = action_total;
    g->actions_desc.exits = exit_total ? g->exits : NULL;
    g->actions_desc.exit_count = exit_total;
    g->actions_desc.curves = curve_total ? g->float_curves : NULL;
    g->actions_desc.curve_count = curve_total;
    g->actions_desc.markers = marker_total ? g->markers : NULL;
    g->actions_desc.marker_count = marker_total;
    g->actions_desc.marker_sync = any_marker_sync ? g->marker_sync : NULL;

    /* 4. the graph */
    bsync_graph_desc gd;
    memset(&gd, 0, sizeof gd);
    gd.tree = g->tree;
    gd.skeleton = skeleton;
    gd.clips = skeleton ? g->clips : NULL;
    gd.tick_rate = f->tick_rate;
    gd.filters = g->filters;
    gd.node_options = g->options;
    gd.root_motion = f->root_motion;
    gd.root_rotation = f->root_rotation;
    gd.pose_rule = f->pose_rule;
    gd.root_joint = root_joint;
    gd.layers = f->layer_count ? g->layers : NULL;
    gd.layer_count = f->layer_count;
    gd.switches = f->switch_count ? g->switches : NULL;
    gd.switch_count = f->switch_count;
    gd.actions = any_once || action_total || exit_total || curve_total || marker_total || any_marker_sync ? &g->actions_desc : NULL;
    r = bsync_graph_create(&gd, allocator, &g->graph);
    if (r == BSYNC_OUT_OF_MEMORY) return oom(g, path, err);
    if (r != BSYNC_OK) {
        int root_motion_refused = 0;
        if (gd.root_motion != BSYNC_ROOT_MOTION_KEEP) {
            bsync_graph_desc keep = gd;
            bsync_graph* probe = NULL;
            keep.root_motion = BSYNC_ROOT_MOTION_KEEP;
            keep.root_rotation = BSYNC_ROOT_ROTATION_YAW;
            keep.root_joint = 0;
            if (bsync_graph_create(&keep, allocator, &probe) == BSYNC_OK) root_motion_refused = 1;
            bsync_graph_destroy(probe);
        }
        if (root_motion_refused) {
            static const char* const names[] = {"keep", "extract", "none"};
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /root_motion: the graph refused \"%s\": %s", path,
                      names[gd.root_motion], bsync_result_string(r));
        } else if (r == BSYNC_LIMIT_EXCEEDED) {
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /clips: more than %d motion child slots have clips (%s)", path,
                      BSYNC_MAX_BLEND_POSES, bsync_result_string(r));
        } else {
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s: /: cannot build the graph: %s", path, bsync_result_string(r));
        }
        bsync_graph_config_destroy(g);
        return BSYNC_CONFIG_ERROR;
    }
    *out = g;
    return BSYNC_OK;
}

bsync_result bsync_graph_config_load(const char* path, const bsync_allocator* allocator, bsync_graph_config** out,
                                     bsync_blend_diagnostics* diags, bsync_error* err) {
    return graph_config_build(path, NULL, NULL, 0, allocator, out, diags, err);
}

bsync_result bsync_graph_config_load_ex(const char* path, const bsync_config_load_options* options,
                                        const bsync_allocator* allocator, bsync_graph_config** out,
                                        bsync_blend_diagnostics* diags, bsync_error* err) {
    return graph_config_build(path, options, NULL, 0, allocator, out, diags, err);
}

bsync_result bsync_graph_config_parse(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                      bsync_graph_config** out, bsync_blend_diagnostics* diags, bsync_error* err) {
    if (!text) {
        if (out) *out = NULL;
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "config: %s", bsync_result_string(BSYNC_INVALID_ARGUMENT));
        return BSYNC_INVALID_ARGUMENT;
    }
    return graph_config_build(name ? name : "graph", NULL, text, len, allocator, out, diags, err);
}

const bsync_graph* bsync_graph_config_graph(const bsync_graph_config* g) { return g ? g->graph : NULL; }
const bsync_blend_tree* bsync_graph_config_tree(const bsync_graph_config* g) { return g ? g->tree : NULL; }
const bsync_skeleton* bsync_graph_config_skeleton(const bsync_graph_config* g) {
    return g && g->source_count ? g->sources[0].asset.skeleton : NULL;
}
const bsync_config_graph_fields* bsync_graph_config_fields(const bsync_graph_config* g) { return g ? g->fields : NULL; }
uint32_t bsync_graph_config_bound_clip_count(const bsync_graph_config* g) { return g ? g->bound : 0; }
const char* bsync_graph_config_notes(const bsync_graph_config* g) { return g ? g->notes : ""; }
