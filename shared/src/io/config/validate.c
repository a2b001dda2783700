/* validate.c — the checks of `blendsync validate` (contract: blendsync/io/validate.h). */
#include "blendsync/io/validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_space.h"
#include "blendsync/blend_tree.h"
#include "blendsync/clip.h"
#include "blendsync/fixed.h"
#include "blendsync/io/config.h"
#include "blendsync/io/match_config.h"
#include "blendsync/skeleton.h"

#include <cjson/cJSON.h>

#include "file_internal.h"
#include "graph_config_internal.h"
#include "platform.h"

#define PI_D 3.14159265358979323846

void bsync_validate_options_default(bsync_validate_options* o) {
    if (!o) return;
    o->seam_rotation_deg = 5.0;
    o->seam_translation_m = 0.02;
    o->precision_translation_m = 1e-5;
    o->precision_rotation_rad = 1e-4;
    o->large_translation_m = 1000.0;
    o->cycle_ratio = 0.10;
    o->unit_tolerance = 1e-3;
}

void bsync_validate_report_init(bsync_validate_report* r) {
    if (r) memset(r, 0, sizeof *r);
}

void bsync_validate_report_destroy(bsync_validate_report* r) {
    if (!r) return;
    free(r->findings);
    free(r->clips);
    free(r->suggestions);
    memset(r, 0, sizeof *r);
}

const char* bsync_validate_severity_name(bsync_validate_severity s) {
    switch (s) {
    case BSYNC_VALIDATE_INFO: return "info";
    case BSYNC_VALIDATE_WARNING: return "warning";
    case BSYNC_VALIDATE_ERROR: return "error";
    }
    return "?";
}

int bsync_validate_exit_status(const bsync_validate_report* r) {
    int worst = 0;
    if (!r) return 0;
    for (uint32_t i = 0; i < r->finding_count; i++)
        if ((int)r->findings[i].severity > worst) worst = (int)r->findings[i].severity;
    return worst;
}

/* ---- small helpers */

static void copy_str(char* dst, size_t cap, const char* src) {
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = '\0';
}

static int grow(void** arr, uint32_t* cap, uint32_t count, size_t elem) {
    if (count < *cap) return 1;
    uint32_t ncap = *cap ? *cap * 2u : 16u;
    void* p = realloc(*arr, (size_t)ncap * elem);
    if (!p) return 0;
    *arr = p;
    *cap = ncap;
    return 1;
}

static bsync_result add_finding(bsync_validate_report* r, bsync_validate_severity sev, const char* code,
                                const char* file, const char* clip, const char* joint, double value, double limit,
                                const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 9, 10)))
#endif
    ;

static bsync_result add_finding(bsync_validate_report* r, bsync_validate_severity sev, const char* code,
                                const char* file, const char* clip, const char* joint, double value, double limit,
                                const char* fmt, ...) {
    if (!grow((void**)&r->findings, &r->finding_capacity_, r->finding_count, sizeof *r->findings))
        return BSYNC_OUT_OF_MEMORY;
    bsync_validate_finding* f = &r->findings[r->finding_count++];
    memset(f, 0, sizeof *f);
    f->severity = sev;
    copy_str(f->code, sizeof f->code, code);
    copy_str(f->file, sizeof f->file, file);
    copy_str(f->clip, sizeof f->clip, clip);
    copy_str(f->joint, sizeof f->joint, joint);
    f->value = value;
    f->limit = limit;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return BSYNC_OK;
}

static double dabs(double x) { return x < 0 ? -x : x; }

static double dsqrt(double x) { /* Newton's method; no libm */
    if (!(x > 0)) return 0;
    double g = x > 1 ? x : 1;
    for (int i = 0; i < 200; i++) {
        double n = 0.5 * (g + x / g);
        if (n >= g) break; /* monotone decreasing from above until converged */
        g = n;
    }
    return g;
}

static double fxd(fix16_t v) { return bsync_fx_to_double(v); }

/* Angle in radians between two unit-ish rotations: 2 * atan2(sqrt(1 - d^2), |d|), d the normalised dot.
 * atan2 through the core's fixed-point atan2 (resolution ~1.5e-5 rad, enough for a seam threshold). */
static double quat_angle(bsync_quat a, bsync_quat b) {
    double ax = fxd(a.x), ay = fxd(a.y), az = fxd(a.z), aw = fxd(a.w);
    double bx = fxd(b.x), by = fxd(b.y), bz = fxd(b.z), bw = fxd(b.w);
    double na = dsqrt(ax * ax + ay * ay + az * az + aw * aw), nb = dsqrt(bx * bx + by * by + bz * bz + bw * bw);
    if (na == 0 || nb == 0) return 0;
    double d = dabs((ax * bx + ay * by + az * bz + aw * bw) / (na * nb));
    if (d > 1) d = 1;
    double s = dsqrt(1 - d * d);
    fix16_t fs, fd;
    if (bsync_fx_from_double(s, &fs) != BSYNC_OK || bsync_fx_from_double(d, &fd) != BSYNC_OK) return 0;
    if (fs == 0) return 0;
    return 2.0 * fxd(bsync_fx_atan2(fs, fd));
}

static int cmp_double(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static const char* base_name(const char* path) { return path + bsync_platform_path_dir_len(BSYNC_PATH_NATIVE, path); }

/* ---- one clip */


/* Key k of track i as sampling sees it (any encoding: bsync_clip_track_key decodes compact keys). */
static fix16_t vk_time(const bsync_clip* c, uint32_t i, uint32_t k) {
    fix16_t t = 0;
    bsync_clip_track_key(c, i, k, &t, NULL, NULL);
    return t;
}
static bsync_quat vk_quat(const bsync_clip* c, uint32_t i, uint32_t k) {
    bsync_quat q = bsync_quat_identity();
    bsync_clip_track_key(c, i, k, NULL, NULL, &q);
    return q;
}
static bsync_vec3 vk_vec3(const bsync_clip* c, uint32_t i, uint32_t k) {
    bsync_vec3 v = bsync_vec3_make(0, 0, 0);
    bsync_clip_track_key(c, i, k, NULL, &v, NULL);
    return v;
}

static bsync_result check_clip(bsync_validate_report* r, const bsync_skeleton* sk, const bsync_clip* clip,
                               const bsync_import_stats* stats, const char* file, const char* motion, uint32_t root,
                               const bsync_validate_options* o) {
    bsync_result res;
    const char* cname = bsync_clip_name(clip);
    const char* label = (motion && motion[0]) ? motion : cname;
    uint32_t joints = bsync_skeleton_joint_count(sk);
    uint32_t ntracks = bsync_clip_track_count(clip);
    if (!grow((void**)&r->clips, &r->clip_capacity_, r->clip_count, sizeof *r->clips)) return BSYNC_OUT_OF_MEMORY;
    bsync_validate_clip_summary* s = &r->clips[r->clip_count++];
    memset(s, 0, sizeof *s);
    copy_str(s->file, sizeof s->file, file);
    copy_str(s->clip, sizeof s->clip, cname);
    copy_str(s->motion, sizeof s->motion, motion);
    copy_str(s->root_joint, sizeof s->root_joint, bsync_skeleton_joint_name(sk, root));
    s->duration = fxd(bsync_clip_duration(clip));
    s->tracks = ntracks;
    if (stats) s->stats = *stats;

    if (ntracks == 0) {
        res = add_finding(r, BSYNC_VALIDATE_WARNING, "empty_clip", file, label, "", 0, 0, "clip '%s' has no tracks",
                          cname);
        if (res) return res;
    }
    if (bsync_clip_duration(clip) == 0) {
        res = add_finding(r, BSYNC_VALIDATE_WARNING, "zero_duration", file, label, "", 0, 0,
                          "clip '%s' has duration 0 (a single pose)", cname);
        if (res) return res;
    }

    /* Count keys and intervals, tracks per joint. */
    uint32_t total_keys = 0;
    for (uint32_t i = 0; i < ntracks; i++) {
        bsync_track_info ti;
        if (bsync_clip_track_info(clip, i, &ti) == BSYNC_OK) total_keys += ti.key_count;
    }
    s->keys = total_keys;
    double* intervals = total_keys ? malloc((size_t)total_keys * sizeof *intervals) : NULL;
    uint8_t* per_joint = calloc(joints ? joints : 1, 1);
    if ((total_keys && !intervals) || !per_joint) {
        free(intervals);
        free(per_joint);
        return BSYNC_OUT_OF_MEMORY;
    }
    uint32_t nint = 0;
    double seam_rot = 0, seam_tr = 0, seam_rot_lim = o->seam_rotation_deg, seam_tr_lim = o->seam_translation_m;
    uint32_t seam_rot_joint = 0, seam_tr_joint = 0, seam_over = 0;
    char over_names[256] = "";
    double big = 0, worst_norm = 0;
    uint32_t big_joint = 0, norm_joint = 0;
    uint32_t last_over = UINT32_MAX;
    for (uint32_t i = 0; i < ntracks; i++) {
        bsync_track_info ti;
        if (bsync_clip_track_info(clip, i, &ti) != BSYNC_OK) continue;
        if (ti.joint < joints && per_joint[ti.joint] < 255) per_joint[ti.joint]++;
        for (uint32_t k = 1; k < ti.key_count; k++) intervals[nint++] = fxd(vk_time(clip, i, k)) - fxd(vk_time(clip, i, k - 1));
        uint32_t last = ti.key_count - 1;
        int over = 0;
        if (ti.kind == BSYNC_TRACK_ROTATION) {
            double deg = quat_angle(vk_quat(clip, i, 0), vk_quat(clip, i, last)) * 180.0 / PI_D;
            if (deg > seam_rot) { seam_rot = deg; seam_rot_joint = ti.joint; }
            if (deg > seam_rot_lim) over = 1;
            for (uint32_t k = 0; k < ti.key_count; k++) {
                bsync_quat q = vk_quat(clip, i, k);
                double n = dsqrt(fxd(q.x) * fxd(q.x) + fxd(q.y) * fxd(q.y) + fxd(q.z) * fxd(q.z) + fxd(q.w) * fxd(q.w));
                if (dabs(n - 1) > worst_norm) { worst_norm = dabs(n - 1); norm_joint = ti.joint; }
            }
        } else if (ti.kind == BSYNC_TRACK_TRANSLATION) {
            bsync_vec3 a = vk_vec3(clip, i, 0), b = vk_vec3(clip, i, last);
            double dx = fxd(b.x) - fxd(a.x), dy = fxd(b.y) - fxd(a.y), dz = fxd(b.z) - fxd(a.z);
            double dist = ti.joint == root ? dabs(dy) : dsqrt(dx * dx + dy * dy + dz * dz);
            if (ti.joint == root) {
                s->root_distance = dsqrt(dx * dx + dz * dz);
                s->root_speed = s->duration > 0 ? s->root_distance / s->duration : 0;
            }
            if (dist > seam_tr) { seam_tr = dist; seam_tr_joint = ti.joint; }
            if (dist > seam_tr_lim) over = 1;
            for (uint32_t k = 0; k < ti.key_count; k++) {
                const fix16_t c[3] = {vk_vec3(clip, i, k).x, vk_vec3(clip, i, k).y, vk_vec3(clip, i, k).z};
                for (int j = 0; j < 3; j++)
                    if (dabs(fxd(c[j])) > big) { big = dabs(fxd(c[j])); big_joint = ti.joint; }
            }
        }
        if (over && ti.joint != last_over) {
            last_over = ti.joint;
            seam_over++;
            size_t len = strlen(over_names);
            if (len < 200)
                snprintf(over_names + len, sizeof over_names - len, "%s%s", len ? ", " : "",
                         bsync_skeleton_joint_name(sk, ti.joint));
        }
    }
    s->seam_rotation_deg = seam_rot;
    s->seam_translation_m = seam_tr;
    if (nint) {
        qsort(intervals, nint, sizeof *intervals, cmp_double);
        s->median_key_interval = (nint & 1u) ? intervals[nint / 2] : 0.5 * (intervals[nint / 2 - 1] + intervals[nint / 2]);
        s->key_rate_hz = s->median_key_interval > 0 ? 1.0 / s->median_key_interval : 0;
    }
    for (uint32_t j = 0; j < joints; j++) {
        if (per_joint[j]) s->animated_joints++;
        if (per_joint[j] > s->max_tracks_per_joint) s->max_tracks_per_joint = per_joint[j];
    }
    free(intervals);
    free(per_joint);

    res = BSYNC_OK;
    if (seam_over) {
        int rot_worse = seam_rot / seam_rot_lim >= seam_tr / seam_tr_lim;
        uint32_t wj = rot_worse ? seam_rot_joint : seam_tr_joint;
        res = add_finding(r, BSYNC_VALIDATE_WARNING, "loop_seam", file, label, bsync_skeleton_joint_name(sk, wj),
                          rot_worse ? seam_rot : seam_tr, rot_worse ? seam_rot_lim : seam_tr_lim,
                          "clip '%s' does not loop cleanly: first vs last key differ by up to %.3f deg and %.4f m "
                          "(limits %.3g deg, %.3g m) on %u joint(s): %s%s",
                          cname, seam_rot, seam_tr, seam_rot_lim, seam_tr_lim, (unsigned)seam_over, over_names,
                          strlen(over_names) >= 200 ? ", ..." : "");
        if (res) return res;
    }
    if (worst_norm > o->unit_tolerance) {
        res = add_finding(r, BSYNC_VALIDATE_WARNING, "non_unit_rotation", file, label,
                          bsync_skeleton_joint_name(sk, norm_joint), worst_norm, o->unit_tolerance,
                          "clip '%s': a rotation key's norm differs from 1 by %.3g", cname, worst_norm);
        if (res) return res;
    }
    if (big > o->large_translation_m) {
        res = add_finding(r, BSYNC_VALIDATE_WARNING, "large_translation", file, label,
                          bsync_skeleton_joint_name(sk, big_joint), big, o->large_translation_m,
                          "clip '%s': a translation of %.1f m (above %.0f m: squared lengths overflow fix16)", cname,
                          big, o->large_translation_m);
        if (res) return res;
    }
    if (stats) {
        double pt = o->precision_translation_m, pr = o->precision_rotation_rad;
        if (stats->max_translation_error > pt || stats->max_scale_error > pt || stats->max_time_error > pt) {
            double w = stats->max_translation_error;
            if (stats->max_scale_error > w) w = stats->max_scale_error;
            if (stats->max_time_error > w) w = stats->max_time_error;
            res = add_finding(r, BSYNC_VALIDATE_WARNING, "precision_loss", file, label, "", w, pt,
                              "clip '%s': the fixed-point conversion lost %.3g (translation %.3g m, scale %.3g, "
                              "time %.3g s; bound %.3g)",
                              cname, w, stats->max_translation_error, stats->max_scale_error, stats->max_time_error, pt);
            if (res) return res;
        }
        if (stats->max_rotation_error > pr) {
            res = add_finding(r, BSYNC_VALIDATE_WARNING, "precision_loss", file, label, "", stats->max_rotation_error,
                              pr, "clip '%s': the fixed-point conversion lost %.3g rad of rotation (bound %.3g)", cname,
                              stats->max_rotation_error, pr);
            if (res) return res;
        }
    }
    if (s->root_distance > 0) {
        res = add_finding(r, BSYNC_VALIDATE_INFO, "root_motion", file, label, s->root_joint, s->root_speed, 0,
                          "clip '%s': root '%s' travels %.4f m horizontally in %.4f s (%.4f m/s)", cname,
                          s->root_joint, s->root_distance, s->duration, s->root_speed);
    }
    return res;
}

static uint32_t find_root(const bsync_skeleton* sk, const char* root_joint) {
    uint32_t idx = 0;
    if (root_joint && root_joint[0] && bsync_skeleton_find(sk, root_joint, &idx) == BSYNC_OK) return idx;
    return 0;
}

/* Notes "clip 'X': N channels on nodes outside the skeleton ignored" -> joint_not_in_skeleton. */
static bsync_result check_notes(bsync_validate_report* r, const bsync_asset* a, const char* file) {
    const char* p = a->notes;
    while (p && *p) {
        const char* e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[512];
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = '\0';
        if (strstr(line, "outside the skeleton")) {
            char clip[BSYNC_MAX_NAME] = "";
            const char* q = strstr(line, "clip '");
            if (q) {
                q += 6;
                const char* qe = strstr(q, "': ");
                if (qe && (size_t)(qe - q) < sizeof clip) {
                    memcpy(clip, q, (size_t)(qe - q));
                    clip[qe - q] = '\0';
                }
            }
            bsync_result res = add_finding(r, BSYNC_VALIDATE_WARNING, "joint_not_in_skeleton", file, clip, "", 0, 0,
                                           "%s (the importer's note)", line);
            if (res) return res;
        }
        p = e ? e + 1 : NULL;
    }
    return BSYNC_OK;
}

bsync_result bsync_validate_asset(bsync_validate_report* report, const bsync_asset* asset, const char* file,
                                  const char* root_joint, const bsync_validate_options* options) {
    bsync_validate_options def;
    if (!report || !asset || !asset->skeleton) return BSYNC_INVALID_ARGUMENT;
    if (!options) {
        bsync_validate_options_default(&def);
        options = &def;
    }
    if (!file) file = "";
    uint32_t root = find_root(asset->skeleton, root_joint);
    bsync_result res = check_notes(report, asset, file);
    for (uint32_t i = 0; res == BSYNC_OK && i < asset->clip_count; i++)
        res = check_clip(report, asset->skeleton, asset->clips[i], asset->stats ? &asset->stats[i] : NULL, file, "",
                         root, options);
    return res;
}

static const char* import_code(bsync_result code) {
    switch (code) {
    case BSYNC_NOT_FINITE: return "not_finite";
    case BSYNC_OVERFLOW: return "out_of_range";
    case BSYNC_BAD_ROTATION: return "bad_rotation";
    default: return "import_failed";
    }
}

static bsync_result hierarchy_check(bsync_validate_report* r, const bsync_asset* assets, const char* const* names,
                                    uint32_t n) {
    for (uint32_t a = 0; a < n; a++) {
        if (!assets[a].skeleton) continue;
        for (uint32_t b = a + 1; b < n; b++) {
            if (!assets[b].skeleton) continue;
            const bsync_skeleton* sa = assets[a].skeleton;
            const bsync_skeleton* sb = assets[b].skeleton;
            for (uint32_t j = 0; j < bsync_skeleton_joint_count(sa); j++) {
                const char* jn = bsync_skeleton_joint_name(sa, j);
                uint32_t k;
                if (bsync_skeleton_find(sb, jn, &k) != BSYNC_OK) continue;
                int32_t pa = bsync_skeleton_parent(sa, j), pb = bsync_skeleton_parent(sb, k);
                const char* na = pa == BSYNC_NO_PARENT ? "" : bsync_skeleton_joint_name(sa, (uint32_t)pa);
                const char* nb = pb == BSYNC_NO_PARENT ? "" : bsync_skeleton_joint_name(sb, (uint32_t)pb);
                if (strcmp(na, nb) != 0) {
                    bsync_result res = add_finding(r, BSYNC_VALIDATE_WARNING, "hierarchy_mismatch", names[b], "", jn, 0,
                                                   0, "joint '%s' has parent '%s' in %s but '%s' in %s", jn,
                                                   na[0] ? na : "(root)", names[a], nb[0] ? nb : "(root)", names[b]);
                    if (res) return res;
                }
            }
        }
    }
    return BSYNC_OK;
}

bsync_result bsync_validate_files(bsync_validate_report* report, const char* const* paths, uint32_t count,
                                  const bsync_validate_options* options) {
    if (!report || (count && !paths)) return BSYNC_INVALID_ARGUMENT;
    bsync_asset* assets = calloc(count ? count : 1, sizeof *assets);
    if (!assets) return BSYNC_OUT_OF_MEMORY;
    bsync_result res = BSYNC_OK;
    for (uint32_t i = 0; res == BSYNC_OK && i < count; i++) {
        bsync_error err;
        memset(&err, 0, sizeof err);
        if (bsync_asset_import_file(paths[i], NULL, &assets[i], &err) != BSYNC_OK) {
            if (err.code == BSYNC_OUT_OF_MEMORY) { res = BSYNC_OUT_OF_MEMORY; break; }
            res = add_finding(report, BSYNC_VALIDATE_ERROR, import_code(err.code), paths[i], "", "", 0, 0, "%s",
                              err.message);
            continue;
        }
        res = bsync_validate_asset(report, &assets[i], paths[i], NULL, options);
    }
    if (res == BSYNC_OK) res = hierarchy_check(report, assets, paths, count);
    for (uint32_t i = 0; i < count; i++) bsync_asset_destroy(&assets[i]);
    free(assets);
    return res;
}

/* ---- config mode */

typedef struct bound_clip {
    const bsync_clip* clip;
    const bsync_skeleton* sk;
    const char* file;
} bound_clip;

/* clip_start: the first clip summary of this config (suggestions look up root speeds from there on). */
static bsync_result node_checks(bsync_validate_report* r, const bsync_blend_tree* tree, const bsync_config_graph_fields* g,
                                const bound_clip* bound, const char* cfg, uint32_t clip_start,
                                const bsync_validate_options* o) {
    bsync_result res = BSYNC_OK;
    uint32_t nodes = bsync_blend_tree_node_count(tree);
    char(*seen_buf)[BSYNC_MAX_NAME] = malloc((size_t)BSYNC_MAX_JOINTS * sizeof *seen_buf);
    if (!seen_buf) return BSYNC_OUT_OF_MEMORY;
    for (uint32_t n = 0; n < nodes && res == BSYNC_OK; n++) {
        const char* nname = bsync_blend_tree_node_name(tree, n);
        uint32_t nc = bsync_blend_tree_node_child_count(tree, n);
        const bsync_blend_space* space = bsync_blend_tree_node_space(tree, n);
        /* A Switch node plays one state at a time, each on its own clock ("sync" can only be "none"
         * there, config.h): different cycle lengths do not drift apart, and its Simple1D space only
         * lists its states (thresholds 0, 1, 2, ...), so no threshold suggestions either. */
        int is_switch = 0;
        for (uint32_t k = 0; k < g->switch_count && !is_switch; k++) is_switch = g->switches[k].node == n;
        int simple1d = !is_switch && space && bsync_blend_space_type(space) == BSYNC_BLEND_SIMPLE_1D;
        double dmin = 0, dmax = 0;
        uint32_t withclip = 0;
        const char *minm = "", *maxm = "";
        for (uint32_t c = 0; c < nc && res == BSYNC_OK; c++) {
            bsync_blend_child_ref ref = bsync_blend_tree_node_child(tree, n, c);
            if (ref.kind != BSYNC_CHILD_MOTION || !bound[ref.index].clip) continue;
            const bound_clip* bc = &bound[ref.index];
            const char* mname = bsync_blend_tree_motion_name(tree, ref.index);
            double d = fxd(bsync_clip_duration(bc->clip));
            if (d > 0) {
                if (!withclip || d < dmin) { dmin = d; minm = mname; }
                if (!withclip || d > dmax) { dmax = d; maxm = mname; }
                withclip++;
            }
            if (simple1d) {
                if (!grow((void**)&r->suggestions, &r->suggestion_capacity_, r->suggestion_count,
                          sizeof *r->suggestions)) {
                    free(seen_buf);
                    return BSYNC_OUT_OF_MEMORY;
                }
                bsync_validate_suggestion* sg = &r->suggestions[r->suggestion_count++];
                memset(sg, 0, sizeof *sg);
                copy_str(sg->node, sizeof sg->node, nname);
                copy_str(sg->motion, sizeof sg->motion, mname);
                sg->current = fxd(bsync_blend_space_threshold(space, c));
                for (uint32_t i = clip_start; i < r->clip_count; i++)
                    if (strcmp(r->clips[i].motion, mname) == 0) sg->speed = r->clips[i].root_speed;
            }
            /* Joints animated by a sibling (by name) but not by this clip. */
            uint32_t missing = 0;
            char first[BSYNC_MAX_NAME] = "", list[256] = "";
            char (*seen_names)[BSYNC_MAX_NAME] = seen_buf;
            for (uint32_t c2 = 0; c2 < nc; c2++) {
                bsync_blend_child_ref r2 = bsync_blend_tree_node_child(tree, n, c2);
                if (c2 == c || r2.kind != BSYNC_CHILD_MOTION || !bound[r2.index].clip) continue;
                const bound_clip* other = &bound[r2.index];
                for (uint32_t t = 0; t < bsync_clip_track_count(other->clip); t++) {
                    bsync_track_info ti;
                    if (bsync_clip_track_info(other->clip, t, &ti) != BSYNC_OK) continue;
                    const char* jn = bsync_skeleton_joint_name(other->sk, ti.joint);
                    uint32_t j;
                    int animated = 0;
                    if (bsync_skeleton_find(bc->sk, jn, &j) == BSYNC_OK) {
                        for (uint32_t u = 0; u < bsync_clip_track_count(bc->clip) && !animated; u++) {
                            bsync_track_info tu;
                            if (bsync_clip_track_info(bc->clip, u, &tu) == BSYNC_OK && tu.joint == j) animated = 1;
                        }
                    }
                    if (animated) continue;
                    int seen = 0; /* count each name once */
                    for (uint32_t q = 0; q < missing && !seen; q++) seen = strcmp(seen_names[q], jn) == 0;
                    if (seen || missing >= BSYNC_MAX_JOINTS) continue;
                    copy_str(seen_names[missing], sizeof seen_names[missing], jn);
                    if (!missing) copy_str(first, sizeof first, jn);
                    missing++;
                    size_t len = strlen(list);
                    if (len < 180)
                        snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", jn);
                }
            }
            if (missing) {
                res = add_finding(r, BSYNC_VALIDATE_WARNING, "missing_in_sibling", cfg, mname, first, (double)missing, 0,
                                  "node '%s': motion '%s' does not animate %u joint(s) that a sibling animates: %s%s",
                                  nname, mname, (unsigned)missing, list, strlen(list) >= 180 ? ", ..." : "");
            }
        }
        if (res == BSYNC_OK && !is_switch && withclip >= 2 && dmax / dmin - 1.0 > o->cycle_ratio) {
            int synced = g->nodes[n].sync == BSYNC_SYNC_NORMALIZED;
            res = add_finding(r, synced ? BSYNC_VALIDATE_INFO : BSYNC_VALIDATE_WARNING, "cycle_length_mismatch", cfg,
                              "", "", dmax / dmin - 1.0, o->cycle_ratio,
                              "node '%s': cycle lengths differ by %.1f%% ('%s' %.4f s vs '%s' %.4f s)%s", nname,
                              (dmax / dmin - 1.0) * 100.0, minm, dmin, maxm, dmax,
                              synced ? "; the node's normalized sync time-syncs them"
                                     : "; the node has \"sync\": \"none\", so they drift apart (use \"normalized\")");
        }
    }
    free(seen_buf);
    return res;
}

bsync_result bsync_validate_config(bsync_validate_report* report, const char* path,
                                   const bsync_validate_options* options) {
    bsync_validate_options def;
    if (!report || !path) return BSYNC_INVALID_ARGUMENT;
    if (!options) {
        bsync_validate_options_default(&def);
        options = &def;
    }
    bsync_blend_tree* tree = NULL;
    bsync_config_graph_fields* g = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_config_load_graph(path, NULL, &tree, &g, NULL, &err) != BSYNC_OK) {
        if (err.code == BSYNC_OUT_OF_MEMORY) return BSYNC_OUT_OF_MEMORY;
        return add_finding(report, BSYNC_VALIDATE_ERROR, "config_error", path, "", "", 0, 0, "%s", err.message);
    }
    uint32_t nclips = g->clip_count;
    uint32_t nmotions = bsync_blend_tree_motion_count(tree);
    const uint32_t clip_start = report->clip_count;
    bsync_asset* assets = calloc(nclips ? nclips : 1, sizeof *assets);
    char(*srcpath)[BSYNC_CONFIG_MAX_SOURCE + BSYNC_VALIDATE_MAX_FILE] =
        calloc(nclips ? nclips : 1, sizeof *srcpath);
    int* owner = calloc(nclips ? nclips : 1, sizeof *owner); /* index of the entry whose asset is used */
    int* ok = calloc(nclips ? nclips : 1, sizeof *ok);
    bound_clip* bound = calloc(nmotions ? nmotions : 1, sizeof *bound);
    const char** names = calloc(nclips ? nclips : 1, sizeof *names);
    bsync_result res = BSYNC_OK;
    if (!assets || !srcpath || !owner || !ok || !bound || !names) {
        res = BSYNC_OUT_OF_MEMORY;
        goto done;
    }
    size_t dirlen = (size_t)(base_name(path) - path);
    for (uint32_t i = 0; i < nclips && res == BSYNC_OK; i++) {
        const bsync_config_clip* cc = &g->clips[i];
        /* "builtin:..." names are not paths (graph_config.c does not resolve them either) */
        const int builtin =
            !strncmp(cc->source, BSYNC_CONFIG_BUILTIN_PREFIX, strlen(BSYNC_CONFIG_BUILTIN_PREFIX));
        if (builtin || bsync_platform_path_is_absolute(BSYNC_PATH_NATIVE, cc->source) || dirlen == 0)
            snprintf(srcpath[i], sizeof srcpath[i], "%s", cc->source);
        else
            snprintf(srcpath[i], sizeof srcpath[i], "%.*s%s", (int)dirlen, path, cc->source);
        names[i] = srcpath[i];
        owner[i] = (int)i;
        for (uint32_t k = 0; k < i; k++)
            if (strcmp(srcpath[k], srcpath[i]) == 0) { owner[i] = owner[k]; break; }
        if (owner[i] == (int)i && builtin) {
            if (strcmp(cc->source, BSYNC_CONFIG_BUILTIN_HUMANOID) != 0) { /* config.c refuses these first */
                res = add_finding(report, BSYNC_VALIDATE_ERROR, "import_failed", cc->source, cc->motion, "", 0, 0,
                                  "unknown built-in source \"%s\" (built-ins: %s)", cc->source,
                                  BSYNC_CONFIG_BUILTIN_HUMANOID);
                continue;
            }
            if (bsync_graph_config_builtin_humanoid(&assets[i], g) != BSYNC_OK) {
                res = BSYNC_OUT_OF_MEMORY;
                break;
            }
            ok[i] = 1;
        } else if (owner[i] == (int)i) {
            memset(&err, 0, sizeof err);
            if (bsync_asset_import_file(srcpath[i], NULL, &assets[i], &err) != BSYNC_OK) {
                if (err.code == BSYNC_OUT_OF_MEMORY) { res = BSYNC_OUT_OF_MEMORY; break; }
                res = add_finding(report, BSYNC_VALIDATE_ERROR, import_code(err.code), cc->source, cc->motion, "", 0,
                                  0, "%s", err.message);
                continue;
            }
            ok[i] = 1;
            res = check_notes(report, &assets[i], cc->source);
        }
        const bsync_asset* a = &assets[owner[i]];
        if (!ok[owner[i]]) continue;
        /* the animation: by name, else (not written) the only clip */
        int found = -1;
        for (uint32_t c = 0; c < a->clip_count; c++)
            if (strcmp(bsync_clip_name(a->clips[c]), cc->animation) == 0) { found = (int)c; break; }
        if (found < 0 && !cc->animation_given && a->clip_count == 1) found = 0;
        if (found < 0) {
            char list[400] = "";
            for (uint32_t c = 0; c < a->clip_count; c++) {
                size_t len = strlen(list);
                if (len < 340) snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", bsync_clip_name(a->clips[c]));
            }
            if (res == BSYNC_OK)
                res = add_finding(report, BSYNC_VALIDATE_ERROR, "no_animation", cc->source, cc->motion, "", 0, 0,
                                  "/clips/%s/animation: no animation \"%s\" in %s (animations: %s)", cc->motion,
                                  cc->animation, cc->source, list[0] ? list : "none");
            continue;
        }
        if (res != BSYNC_OK) break;
        uint32_t root = find_root(a->skeleton, g->root_joint);
        if (g->root_joint[0] && root == 0 && strcmp(bsync_skeleton_joint_name(a->skeleton, 0), g->root_joint) != 0) {
            res = add_finding(report, BSYNC_VALIDATE_WARNING, "no_root_joint", cc->source, cc->motion, g->root_joint, 0,
                              0, "root_joint \"%s\" is not in %s's skeleton; joint 0 '%s' used", g->root_joint,
                              cc->source, bsync_skeleton_joint_name(a->skeleton, 0));
            if (res) break;
        }
        res = check_clip(report, a->skeleton, a->clips[found], a->stats ? &a->stats[found] : NULL, cc->source,
                         cc->motion, root, options);
        uint32_t m;
        if (res == BSYNC_OK && bsync_blend_tree_find_motion(tree, cc->motion, &m) == BSYNC_OK && m < nmotions) {
            bound[m].clip = a->clips[found];
            bound[m].sk = a->skeleton;
            bound[m].file = cc->source;
        }
    }
    if (res == BSYNC_OK) {
        /* hierarchy across distinct, imported sources */
        res = hierarchy_check(report, assets, names, nclips);
    }
    if (res == BSYNC_OK) res = node_checks(report, tree, g, bound, path, clip_start, options);
done:
    for (uint32_t i = 0; assets && i < nclips; i++) bsync_asset_destroy(&assets[i]);
    free(assets);
    free(srcpath);
    free(owner);
    free(ok);
    free(bound);
    free(names);
    bsync_config_graph_fields_destroy(g);
    bsync_blend_tree_destroy(tree);
    return res;
}

/* ---- match mode */

int bsync_validate_is_match_config(const char* path) {
    unsigned char* buf = NULL;
    size_t n = 0;
    if (!path || bsync_io_read_file(path, &buf, &n, NULL) != BSYNC_OK) return 0;
    cJSON* doc = cJSON_ParseWithLength((const char*)buf, n);
    free(buf);
    int match = 0;
    if (cJSON_IsObject(doc))
        match = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "characters")) ||
                cJSON_GetObjectItemCaseSensitive(doc, "match_id") != NULL;
    cJSON_Delete(doc);
    return match;
}

/* Tag everything appended since (f0, c0, s0) with the graph file. */
static void tag_graph(bsync_validate_report* r, uint32_t f0, uint32_t c0, uint32_t s0, const char* graph) {
    for (uint32_t i = f0; i < r->finding_count; i++) copy_str(r->findings[i].graph, sizeof r->findings[i].graph, graph);
    for (uint32_t i = c0; i < r->clip_count; i++) copy_str(r->clips[i].graph, sizeof r->clips[i].graph, graph);
    for (uint32_t i = s0; i < r->suggestion_count; i++)
        copy_str(r->suggestions[i].graph, sizeof r->suggestions[i].graph, graph);
}

static bsync_result validate_graph_file(bsync_validate_report* r, const char* resolved,
                                        const bsync_validate_options* o) {
    uint32_t f0 = r->finding_count, c0 = r->clip_count, s0 = r->suggestion_count;
    bsync_result res = bsync_validate_config(r, resolved, o);
    tag_graph(r, f0, c0, s0, resolved);
    return res;
}

/* The match could not be loaded: check the graph files its "characters" entries name (read leniently,
 * resolved as match_config.c does: the match file's folder + the path, an absolute path as is). */
static bsync_result validate_listed_graphs(bsync_validate_report* r, const char* path,
                                           const bsync_validate_options* o) {
    unsigned char* buf = NULL;
    size_t n = 0;
    if (bsync_io_read_file(path, &buf, &n, NULL) != BSYNC_OK) return BSYNC_OK; /* match_error says why */
    cJSON* doc = cJSON_ParseWithLength((const char*)buf, n);
    free(buf);
    const cJSON* chars = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "characters") : NULL;
    size_t dirlen = (size_t)(base_name(path) - path);
    uint32_t count = 0, total = cJSON_IsArray(chars) ? (uint32_t)cJSON_GetArraySize(chars) : 0;
    char** seen = calloc(total ? total : 1, sizeof *seen);
    bsync_result res = seen ? BSYNC_OK : BSYNC_OUT_OF_MEMORY;
    for (const cJSON* c = cJSON_IsArray(chars) ? chars->child : NULL; c && res == BSYNC_OK; c = c->next) {
        const cJSON* g = cJSON_IsObject(c) ? cJSON_GetObjectItemCaseSensitive(c, "graph") : NULL;
        if (!cJSON_IsString(g) || !g->valuestring[0]) continue;
        size_t b = bsync_platform_path_is_absolute(BSYNC_PATH_NATIVE, g->valuestring) ? 0 : dirlen, w = strlen(g->valuestring);
        char* resolved = malloc(b + w + 1);
        if (!resolved) { res = BSYNC_OUT_OF_MEMORY; break; }
        memcpy(resolved, path, b);
        memcpy(resolved + b, g->valuestring, w + 1);
        int dup = 0;
        for (uint32_t k = 0; k < count && !dup; k++) dup = !strcmp(seen[k], resolved);
        if (dup) { free(resolved); continue; }
        seen[count++] = resolved;
        res = validate_graph_file(r, resolved, o);
    }
    for (uint32_t k = 0; seen && k < count; k++) free(seen[k]);
    free(seen);
    cJSON_Delete(doc);
    return res;
}

/* "a, b, c" appended to buf (cut with ", ..." near the end). */
static void list_add(char* buf, size_t cap, const char* item) {
    size_t len = strlen(buf);
    if (len + 8 >= cap || strstr(buf, ", ...")) return;
    if (len + strlen(item) + 8 >= cap) { snprintf(buf + len, cap - len, "%s...", len ? ", " : ""); return; }
    snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", item);
}

static bsync_result match_checks(bsync_validate_report* r, const bsync_match_config* m) {
    const bsync_match_desc* desc = bsync_match_config_desc(m);
    const uint32_t files = bsync_match_config_graph_file_count(m);
    bsync_result res = BSYNC_OK;
    for (uint32_t f = 0; f < files && res == BSYNC_OK; f++) {
        char chars[300] = "";
        uint32_t players = 0, npcs = 0;
        for (uint32_t c = 0; c < desc->character_count; c++) {
            if (bsync_match_config_character_graph_file(m, c) != f) continue;
            list_add(chars, sizeof chars, bsync_match_config_character_name(m, c));
            if (desc->characters[c].slot == BSYNC_MATCH_NPC) npcs++;
            else players++;
        }
        res = add_finding(r, BSYNC_VALIDATE_INFO, "match_graph", bsync_match_config_graph_file_path(m, f), "", "", 0, 0,
                          "graph \"%s\": characters %s (%u player%s, %u NPC%s); tick rate %u",
                          bsync_match_config_graph_file_written(m, f), chars, (unsigned)players,
                          players == 1 ? "" : "s", (unsigned)npcs, npcs == 1 ? "" : "s",
                          (unsigned)bsync_match_config_tick_rate(m));
        if (res == BSYNC_OK) tag_graph(r, r->finding_count - 1, r->clip_count, r->suggestion_count,
                                       bsync_match_config_graph_file_path(m, f));
    }
    /* per input parameter (kind 0) / trigger (kind 1): which graph files map it (the loader's maps,
     * the same facts as its "drives nothing" notes; a map depends only on the character's graph) */
    for (int kind = 0; kind < 2 && res == BSYNC_OK; kind++) {
        uint32_t items = kind == 0 ? desc->param_count : desc->trigger_count;
        for (uint32_t i = 0; i < items && res == BSYNC_OK; i++) {
            uint32_t mapped_files = 0;
            for (uint32_t f = 0; f < files; f++)
                for (uint32_t c = 0; c < desc->character_count; c++)
                    if (bsync_match_config_character_graph_file(m, c) == f) {
                        uint32_t v = kind == 0 ? desc->characters[c].param_map[i] : desc->characters[c].trigger_map[i];
                        if (v != BSYNC_MATCH_UNMAPPED) mapped_files++;
                        break;
                    }
            for (uint32_t f = 0; f < files && res == BSYNC_OK; f++) {
                char chars[300] = "", have[300] = "";
                int unmapped = 0;
                for (uint32_t c = 0; c < desc->character_count; c++) {
                    if (bsync_match_config_character_graph_file(m, c) != f) continue;
                    uint32_t v = kind == 0 ? desc->characters[c].param_map[i] : desc->characters[c].trigger_map[i];
                    if (v != BSYNC_MATCH_UNMAPPED) break;
                    unmapped = 1;
                    list_add(chars, sizeof chars, bsync_match_config_character_name(m, c));
                }
                if (!unmapped) continue;
                const bsync_graph_config* gc = bsync_match_config_graph_file_config(m, f);
                const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
                const bsync_graph* graph = bsync_graph_config_graph(gc);
                const char* file = bsync_match_config_graph_file_path(m, f);
                const char* written = bsync_match_config_graph_file_written(m, f);
                bsync_validate_severity sev = mapped_files ? BSYNC_VALIDATE_INFO : BSYNC_VALIDATE_WARNING;
                const char* where = mapped_files ? "drives nothing in" : "drives no character:";
                const char* it = mapped_files ? ": it" : "";
                const char* elsewhere = mapped_files ? " (other graph files of the match have it)"
                                                     : (files > 1 ? " (nor does any other graph file of the match)" : "");
                if (kind == 0) {
                    for (uint32_t p = 0; p < bsync_blend_tree_parameter_count(tree); p++)
                        list_add(have, sizeof have, bsync_blend_tree_parameter_name(tree, p));
                    res = add_finding(r, sev, "unmapped_input", file, "", "", 0, 0,
                                      "input parameter \"%s\" %s graph \"%s\" (characters %s)%s has no parameter of "
                                      "that name (parameters: %s)%s",
                                      bsync_match_config_param_name(m, i), where, written, chars, it,
                                      have[0] ? have : "none", elsewhere);
                } else {
                    for (uint32_t s = 0; s < bsync_graph_switch_count(graph); s++)
                        list_add(have, sizeof have, bsync_blend_tree_node_name(tree, bsync_graph_switch_node(graph, s)));
                    res = add_finding(r, sev, "unmapped_trigger", file, "", "", 0, 0,
                                      "input trigger \"%s\" %s graph \"%s\" (characters %s)%s has no Switch node "
                                      "\"%s\" (Switch nodes: %s)%s",
                                      bsync_match_config_trigger_name(m, i), where, written, chars, it,
                                      bsync_match_config_trigger_switch(m, i), have[0] ? have : "none", elsewhere);
                }
                if (res == BSYNC_OK) tag_graph(r, r->finding_count - 1, r->clip_count, r->suggestion_count, file);
            }
        }
    }
    return res;
}

bsync_result bsync_validate_match(bsync_validate_report* report, const char* path,
                                  const bsync_validate_options* options) {
    if (!report || !path) return BSYNC_INVALID_ARGUMENT;
    bsync_match_config* m = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    bsync_result lr = bsync_match_config_load(path, NULL, &m, &err);
    if (lr == BSYNC_OUT_OF_MEMORY) return BSYNC_OUT_OF_MEMORY;
    if (lr != BSYNC_OK) {
        bsync_result res = add_finding(report, BSYNC_VALIDATE_ERROR, "match_error", path, "", "", 0, 0, "%s",
                                       err.message);
        if (res == BSYNC_OK) res = validate_listed_graphs(report, path, options);
        return res;
    }
    bsync_result res = BSYNC_OK;
    for (uint32_t f = 0; f < bsync_match_config_graph_file_count(m) && res == BSYNC_OK; f++)
        res = validate_graph_file(report, bsync_match_config_graph_file_path(m, f), options);
    if (res == BSYNC_OK) res = match_checks(report, m);
    bsync_match_config_destroy(m);
    return res;
}
