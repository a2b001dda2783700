/* import_build.c — the importers' shared helpers (errors, names, the double-precision intermediate
 * form, file input), the asset container, and THE float -> fixed conversion of imported skeletons and
 * clips (imp_build_skeleton, imp_build_clip). The dispatcher by file type is asset.c.
 *
 * STEP tracks: linear sampling must reproduce a step. For every key k > 0 the builder emits, before
 * key k, a copy of value k-1 at time raw(t_k) - 1 (one raw step, 2^-16 s, earlier) when that is later
 * than the previous emitted key. Between the two the value jumps within one raw step, so sampling at
 * any representable time t gives value k-1 for t < raw(t_k) and value k at t = raw(t_k): exactly the
 * step. Times that round to the same raw step: the later key replaces the earlier (counted in notes).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/asset.h"
#include "file_internal.h"
#include "import_internal.h"

bsync_result imp_fail(bsync_error* err, bsync_result code, const char* file, const char* fmt, ...) {
    if (err) {
        err->code = code;
        int n = snprintf(err->message, sizeof err->message, "%s: ", file ? file : "(input)");
        if (n < 0) n = 0;
        if ((size_t)n < sizeof err->message) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err->message + n, sizeof err->message - (size_t)n, fmt, ap);
            va_end(ap);
        }
    }
    return code;
}

void bsync_asset_note(bsync_asset* asset, const char* fmt, ...) {
    if (!asset) return;
    size_t used = strlen(asset->notes);
    size_t cap = sizeof asset->notes;
    if (used + 8 >= cap) return; /* full: the "..." marker is already there */
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    if (used + len + 2 + 5 > cap) {
        memcpy(asset->notes + used, "...\n", 5);
        return;
    }
    memcpy(asset->notes + used, line, len);
    asset->notes[used + len] = '\n';
    asset->notes[used + len + 1] = '\0';
}

int imp_copy_name(char dst[BSYNC_MAX_NAME], const char* src, size_t n) {
    size_t len = 0;
    while (len < n && src[len] != '\0') len++;
    int cut = 0;
    if (len > BSYNC_MAX_NAME - 1) {
        len = BSYNC_MAX_NAME - 1;
        cut = 1;
        /* do not cut a UTF-8 sequence in half */
        while (len > 0 && ((unsigned char)src[len] & 0xC0u) == 0x80u) len--;
    }
    memcpy(dst, src, len);
    dst[len] = '\0';
    return cut;
}

uint32_t imp_unique_joint_names(imp_joint* joints, uint32_t n) {
    uint32_t changed = 0;
    for (uint32_t i = 0; i < n; i++) {
        int clash = joints[i].name[0] == '\0';
        for (uint32_t k = 0; k < i && !clash; k++)
            if (strcmp(joints[k].name, joints[i].name) == 0) clash = 1;
        if (!clash) continue;
        char suffix[16];
        snprintf(suffix, sizeof suffix, "#%u", (unsigned)i);
        size_t sl = strlen(suffix), nl = strlen(joints[i].name);
        if (nl + sl > BSYNC_MAX_NAME - 1) nl = BSYNC_MAX_NAME - 1 - sl;
        memcpy(joints[i].name + nl, suffix, sl + 1);
        changed++;
    }
    return changed;
}

int imp_clip_add_track(imp_clip* clip, uint32_t joint, bsync_track_kind kind, uint32_t key_count, double* times,
                       double* values, int step) {
    if (clip->track_count == clip->track_cap) {
        uint32_t cap = clip->track_cap ? clip->track_cap * 2 : 16;
        imp_track* t = realloc(clip->tracks, (size_t)cap * sizeof *t);
        if (!t) {
            free(times);
            free(values);
            return 0;
        }
        clip->tracks = t;
        clip->track_cap = cap;
    }
    imp_track* t = &clip->tracks[clip->track_count++];
    t->joint = joint;
    t->kind = kind;
    t->key_count = key_count;
    t->times = times;
    t->values = values;
    t->step = step;
    return 1;
}

void imp_clip_free(imp_clip* clip) {
    if (!clip) return;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        free(clip->tracks[i].times);
        free(clip->tracks[i].values);
    }
    free(clip->tracks);
    clip->tracks = NULL;
    clip->track_count = clip->track_cap = 0;
}

void imp_quat_normalize(double q[4]) {
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0) || !isfinite(n)) return; /* zero or non-finite: left for the conversion to reject */
    for (int i = 0; i < 4; i++) q[i] /= n;
}

void imp_quats_continuous(double* q, uint32_t count) {
    for (uint32_t k = 0; k < count; k++) {
        imp_quat_normalize(q + 4 * (size_t)k);
        if (k == 0) continue;
        const double* p = q + 4 * (size_t)(k - 1);
        double* c = q + 4 * (size_t)k;
        if (p[0] * c[0] + p[1] * c[1] + p[2] * c[2] + p[3] * c[3] < 0)
            for (int i = 0; i < 4; i++) c[i] = -c[i];
    }
}

int imp_clip_wanted(const bsync_import_options* o, const char* name) {
    if (!o || !o->clip_names) return 1;
    for (uint32_t i = 0; i < o->clip_name_count; i++)
        if (o->clip_names[i] && strcmp(o->clip_names[i], name) == 0) return 1;
    return 0;
}

const char* imp_basename(const char* path) {
    const char* b = path;
    for (const char* p = path; *p; p++)
        if (*p == '/' || *p == '\\') b = p + 1;
    return b;
}

bsync_result imp_read_file(const bsync_import_options* o, const char* path, unsigned char** out, size_t* out_size,
                           bsync_error* err) {
    bsync_io_file_status st = {0, 0};
    bsync_result r = bsync_io_read_file_with(o ? &o->file : NULL, path, out, out_size, &st);
    switch (r) {
    case BSYNC_OK: return BSYNC_OK;
    case BSYNC_OUT_OF_MEMORY: return imp_fail(err, r, path, "out of memory reading the file");
    case BSYNC_LIMIT_EXCEEDED: return imp_fail(err, r, path, "file larger than 2 GiB");
    default: return imp_fail(err, r, path, st.opened ? "read error" : "cannot open the file");
    }
}

bsync_result imp_read_input(const bsync_import_options* o, const char* path, bsync_asset* out, unsigned char** data,
                            size_t* size, bsync_error* err) {
    *data = NULL;
    *size = 0;
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return imp_fail(err, BSYNC_INVALID_ARGUMENT, path, "no path or output given");
    return imp_read_file(o, path, data, size, err);
}

/* ------------------------------------------------------------------ conversion */

static bsync_result convert(double v, fix16_t* out, double* max_err) {
    bsync_result r = bsync_fx_from_double(v, out);
    if (r != BSYNC_OK) return r;
    double e = fabs(bsync_fx_to_double(*out) - v);
    if (e > *max_err) *max_err = e;
    return BSYNC_OK;
}

static const char* kind_name(bsync_track_kind k) {
    return k == BSYNC_TRACK_TRANSLATION ? "translation" : k == BSYNC_TRACK_ROTATION ? "rotation" : "scale";
}

/* Angle between a double unit quaternion and a fixed one (normalised in double), in radians. */
static double quat_angle(const double a[4], bsync_quat q) {
    double b[4] = {bsync_fx_to_double(q.x), bsync_fx_to_double(q.y), bsync_fx_to_double(q.z), bsync_fx_to_double(q.w)};
    imp_quat_normalize(b);
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    double s = dot < 0 ? -1.0 : 1.0, dm = 0, dp = 0;
    for (int i = 0; i < 4; i++) {
        dm += (a[i] - s * b[i]) * (a[i] - s * b[i]);
        dp += (a[i] + s * b[i]) * (a[i] + s * b[i]);
    }
    return 2.0 * atan2(sqrt(dm), sqrt(dp));
}

static bsync_result convert_trs(const double t[3], const double r[4], const double s[3], bsync_trs* out,
                                bsync_import_stats* st) {
    bsync_result rc;
    fix16_t* tv[3] = {&out->t.x, &out->t.y, &out->t.z};
    fix16_t* sv[3] = {&out->s.x, &out->s.y, &out->s.z};
    fix16_t* rv[4] = {&out->r.x, &out->r.y, &out->r.z, &out->r.w};
    for (int i = 0; i < 3; i++)
        if ((rc = convert(t[i], tv[i], &st->max_translation_error)) != BSYNC_OK) return rc;
    for (int i = 0; i < 3; i++)
        if ((rc = convert(s[i], sv[i], &st->max_scale_error)) != BSYNC_OK) return rc;
    double unused = 0;
    for (int i = 0; i < 4; i++)
        if ((rc = convert(r[i], rv[i], &unused)) != BSYNC_OK) return rc;
    if (out->r.x == 0 && out->r.y == 0 && out->r.z == 0 && out->r.w == 0) return BSYNC_BAD_ROTATION;
    double e = quat_angle(r, bsync_quat_normalize(out->r));
    if (e > st->max_rotation_error) st->max_rotation_error = e;
    return BSYNC_OK;
}

bsync_result imp_build_skeleton(const imp_joint* joints, uint32_t n, const char* file, bsync_asset* asset,
                                bsync_error* err) {
    if (n == 0) return imp_fail(err, BSYNC_INVALID_ARGUMENT, file, "no joints (the file has no skeleton or nodes)");
    if (n > BSYNC_MAX_JOINTS)
        return imp_fail(err, BSYNC_LIMIT_EXCEEDED, file, "%u joints, more than the limit of %u", (unsigned)n,
                        (unsigned)BSYNC_MAX_JOINTS);
    bsync_joint_desc* d = calloc(n, sizeof *d);
    if (!d) return imp_fail(err, BSYNC_OUT_OF_MEMORY, file, "out of memory");
    bsync_import_stats st;
    memset(&st, 0, sizeof st);
    bsync_result r = BSYNC_OK;
    for (uint32_t i = 0; i < n; i++) {
        d[i].name = joints[i].name;
        d[i].parent = joints[i].parent;
        r = convert_trs(joints[i].t, joints[i].r, joints[i].s, &d[i].rest, &st);
        if (r != BSYNC_OK) {
            imp_fail(err, r, file, "rest pose of joint '%s': %s (translation %g %g %g, scale %g %g %g)",
                     joints[i].name, bsync_result_string(r), joints[i].t[0], joints[i].t[1], joints[i].t[2],
                     joints[i].s[0], joints[i].s[1], joints[i].s[2]);
            free(d);
            return r;
        }
    }
    bsync_skeleton_desc sd = {d, n};
    r = bsync_skeleton_create(&sd, NULL, &asset->skeleton);
    free(d);
    if (r != BSYNC_OK) return imp_fail(err, r, file, "skeleton: %s", bsync_result_string(r));
    asset->rest_stats = st;
    return BSYNC_OK;
}

static bsync_result asset_append(bsync_asset* asset, bsync_clip* clip, const bsync_import_stats* st) {
    bsync_clip** c = realloc(asset->clips, (size_t)(asset->clip_count + 1) * sizeof *c);
    if (!c) return BSYNC_OUT_OF_MEMORY;
    asset->clips = c;
    bsync_import_stats* s = realloc(asset->stats, (size_t)(asset->clip_count + 1) * sizeof *s);
    if (!s) return BSYNC_OUT_OF_MEMORY;
    asset->stats = s;
    asset->clips[asset->clip_count] = clip;
    asset->stats[asset->clip_count] = *st;
    asset->clip_count++;
    return BSYNC_OK;
}

bsync_result imp_build_clip(const imp_clip* clip, const char* file, bsync_asset* asset, bsync_error* err) {
    bsync_import_stats st;
    memset(&st, 0, sizeof st);
    if (asset->clip_count >= BSYNC_IMPORT_MAX_CLIPS)
        return imp_fail(err, BSYNC_LIMIT_EXCEEDED, file, "more than %u clips", (unsigned)BSYNC_IMPORT_MAX_CLIPS);
    const uint32_t nt = clip->track_count;
    uint64_t total = 0;
    for (uint32_t i = 0; i < nt; i++) total += (uint64_t)clip->tracks[i].key_count * (clip->tracks[i].step ? 2 : 1);
    if (total >= ((uint64_t)1 << 24))
        return imp_fail(err, BSYNC_LIMIT_EXCEEDED, file, "clip '%s': %llu keys, more than the limit of 2^24",
                        clip->name, (unsigned long long)total);
    bsync_raw_track* rt = calloc(nt ? nt : 1, sizeof *rt);
    fix16_t* times = malloc((size_t)(total ? total : 1) * sizeof *times);
    bsync_quat* vals = malloc((size_t)(total ? total : 1) * sizeof *vals); /* quats; vec3s reuse the space */
    if (!rt || !times || !vals) {
        free(rt);
        free(times);
        free(vals);
        return imp_fail(err, BSYNC_OUT_OF_MEMORY, file, "out of memory");
    }
    bsync_result r = BSYNC_OK;
    size_t used = 0;
    uint32_t merged = 0;
    fix16_t duration = 0;
    const bsync_trs* rest = bsync_skeleton_rest_pose(asset->skeleton);
    (void)rest;
    for (uint32_t i = 0; i < nt && r == BSYNC_OK; i++) {
        const imp_track* src = &clip->tracks[i];
        const char* jname = bsync_skeleton_joint_name(asset->skeleton, src->joint);
        const int rot = src->kind == BSYNC_TRACK_ROTATION;
        const int comps = rot ? 4 : 3;
        fix16_t* tt = times + used;
        bsync_quat* vq = vals + used;
        bsync_vec3* vv = (bsync_vec3*)(void*)(vals + used); /* vec3 < quat: packs inside this track's slots */
        uint32_t n = 0;
        for (uint32_t k = 0; k < src->key_count; k++) {
            fix16_t t;
            r = convert(src->times[k], &t, &st.max_time_error);
            if (r == BSYNC_OK && t < 0) r = BSYNC_KEY_OUT_OF_RANGE;
            if (r != BSYNC_OK) {
                imp_fail(err, r, file, "clip '%s', joint '%s', %s key %u: time %g: %s", clip->name, jname,
                         kind_name(src->kind), (unsigned)k, src->times[k], bsync_result_string(r));
                break;
            }
            fix16_t c[4] = {0, 0, 0, 0};
            double* me = src->kind == BSYNC_TRACK_TRANSLATION ? &st.max_translation_error
                         : src->kind == BSYNC_TRACK_SCALE     ? &st.max_scale_error
                                                              : NULL;
            double unused = 0;
            const double* v = src->values + (size_t)k * (size_t)comps;
            for (int j = 0; j < comps && r == BSYNC_OK; j++) r = convert(v[j], &c[j], me ? me : &unused);
            if (r == BSYNC_OK && rot && c[0] == 0 && c[1] == 0 && c[2] == 0 && c[3] == 0) r = BSYNC_BAD_ROTATION;
            if (r != BSYNC_OK) {
                imp_fail(err, r, file, "clip '%s', joint '%s', %s key %u at %gs: %s (value %g %g %g%s)", clip->name,
                         jname, kind_name(src->kind), (unsigned)k, src->times[k], bsync_result_string(r), v[0], v[1],
                         v[2], rot ? " ..." : "");
                break;
            }
            if (rot) {
                bsync_quat q = bsync_quat_make(c[0], c[1], c[2], c[3]);
                double e = quat_angle(v, bsync_quat_normalize(q));
                if (e > st.max_rotation_error) st.max_rotation_error = e;
            }
            /* STEP: hold the previous value until one raw step before this key */
            if (src->step && n > 0 && t - 1 > tt[n - 1]) {
                tt[n] = t - 1;
                if (rot) vq[n] = vq[n - 1];
                else vv[n] = vv[n - 1];
                n++;
            }
            if (n > 0 && t <= tt[n - 1]) { /* rounded onto the previous key: the later one wins */
                n--;
                merged++;
            }
            tt[n] = t;
            if (rot) vq[n] = bsync_quat_make(c[0], c[1], c[2], c[3]);
            else vv[n] = bsync_vec3_make(c[0], c[1], c[2]);
            n++;
        }
        if (r != BSYNC_OK) break;
        rt[i].joint = src->joint;
        rt[i].kind = src->kind;
        rt[i].key_count = n;
        rt[i].times = tt;
        rt[i].quats = rot ? vq : NULL;
        rt[i].vec3s = rot ? NULL : vv;
        if (n > 0 && tt[n - 1] > duration) duration = tt[n - 1];
        used += n;
        st.keys += n;
    }
    bsync_clip* built = NULL;
    if (r == BSYNC_OK) {
        st.tracks = nt;
        bsync_clip_desc cd = {clip->name, duration, 1, rt, nt};
        r = bsync_clip_create(&cd, asset->skeleton, NULL, &built);
        if (r != BSYNC_OK) imp_fail(err, r, file, "clip '%s': %s", clip->name, bsync_result_string(r));
    }
    free(rt);
    free(times);
    free(vals);
    if (r != BSYNC_OK) return r;
    if (merged)
        bsync_asset_note(asset, "clip '%s': %u keys closer than 2^-16 s to the previous one were merged (the later kept)",
                         clip->name, (unsigned)merged);
    r = asset_append(asset, built, &st);
    if (r != BSYNC_OK) {
        bsync_clip_destroy(built);
        return imp_fail(err, r, file, "out of memory");
    }
    return BSYNC_OK;
}

/* ------------------------------------------------------------------ asset */

void bsync_asset_destroy(bsync_asset* asset) {
    if (!asset) return;
    for (uint32_t i = 0; i < asset->clip_count; i++) bsync_clip_destroy(asset->clips[i]); /* no-op in a file */
    bsync_skeleton_destroy(asset->skeleton);
    free(asset->clips);
    free(asset->stats);
    free(asset->memory_);
    memset(asset, 0, sizeof *asset);
}
