/* bvh.c — the project's BVH parser; decisions and grammar in blendsync/io/bvh.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/bvh.h"
#include "import_internal.h"

#define BVH_MAX_VALUES ((size_t)1 << 26)

enum { CH_XPOS, CH_YPOS, CH_ZPOS, CH_XROT, CH_YROT, CH_ZROT };

typedef struct bvh_joint {
    char name[BSYNC_MAX_NAME];
    int32_t parent;
    double offset[3];
    int nch;
    int ch[6];
    uint32_t first; /* index of its first channel in a frame */
} bvh_joint;

typedef struct bvh_ctx {
    const char* file;
    const char* s;
    size_t len, pos;
    uint32_t line;
    char tok[128];
    bsync_error* err;
    bvh_joint* joints;
    uint32_t count;
    uint32_t channels;
    uint32_t end_sites;
    double min_y, max_y; /* rest model-space heights (unscaled) */
} bvh_ctx;

static bsync_result perr(bvh_ctx* c, const char* fmt, const char* what) {
    char msg[256];
    snprintf(msg, sizeof msg, fmt, what);
    return imp_fail(c->err, BSYNC_PARSE_ERROR, c->file, "line %u: %s", (unsigned)c->line, msg);
}

/* Next token into c->tok ('{' and '}' are tokens of their own); 0 at the end of the text. */
static int next(bvh_ctx* c) {
    while (c->pos < c->len) {
        char ch = c->s[c->pos];
        if (ch == '\n') c->line++;
        if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v') c->pos++;
        else break;
    }
    if (c->pos >= c->len) {
        c->tok[0] = '\0';
        return 0;
    }
    size_t n = 0;
    char ch = c->s[c->pos];
    if (ch == '{' || ch == '}') {
        c->tok[n++] = ch;
        c->pos++;
    } else {
        while (c->pos < c->len) {
            ch = c->s[c->pos];
            if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\f' || ch == '\v' || ch == '{' ||
                ch == '}' || ch == '\0')
                break;
            if (n < sizeof c->tok - 1) c->tok[n++] = ch;
            else c->tok[sizeof c->tok - 1 - 1] = '~'; /* too long: poisoned, fails any comparison/number */
            c->pos++;
        }
        if (n == 0) { /* a NUL byte */
            c->pos++;
            c->tok[n++] = '\x01';
        }
    }
    c->tok[n] = '\0';
    return 1;
}

static int expect(bvh_ctx* c, const char* word) {
    if (!next(c) || strcmp(c->tok, word) != 0) {
        perr(c, "expected '%s'", word);
        return -1;
    }
    return 0;
}

static int number(bvh_ctx* c, double* out) {
    if (!next(c)) return perr(c, "%s", "expected a number, found the end of the file"), -1;
    char* end = NULL;
    double v = strtod(c->tok, &end);
    if (end == c->tok || *end != '\0' || !isfinite(v)) return perr(c, "'%s' is not a finite number", c->tok), -1;
    *out = v;
    return 0;
}

static int parse_joint(bvh_ctx* c, int32_t parent, double base_y, uint32_t depth) {
    if (depth > BSYNC_MAX_JOINTS) return perr(c, "%s", "hierarchy nested too deeply"), -1;
    if (!next(c)) return perr(c, "%s", "expected a joint name"), -1;
    if (c->count >= BSYNC_MAX_JOINTS) {
        imp_fail(c->err, BSYNC_LIMIT_EXCEEDED, c->file, "line %u: more than %u joints", (unsigned)c->line,
                 (unsigned)BSYNC_MAX_JOINTS);
        return -1;
    }
    uint32_t me = c->count++;
    bvh_joint* j = &c->joints[me];
    memset(j, 0, sizeof *j);
    imp_copy_name(j->name, c->tok, strlen(c->tok));
    j->parent = parent;
    j->first = c->channels;
    if (expect(c, "{") || expect(c, "OFFSET")) return -1;
    for (int i = 0; i < 3; i++)
        if (number(c, &j->offset[i])) return -1;
    double y = base_y + j->offset[1];
    if (y < c->min_y) c->min_y = y;
    if (y > c->max_y) c->max_y = y;
    if (!next(c)) return perr(c, "%s", "unexpected end of the file in a joint"), -1;
    if (!strcmp(c->tok, "CHANNELS")) {
        double n;
        if (number(c, &n)) return -1;
        if (n < 0 || n > 6 || n != floor(n)) return perr(c, "%s", "CHANNELS count must be 0 to 6"), -1;
        j->nch = (int)n;
        for (int i = 0; i < j->nch; i++) {
            static const char* const names[6] = {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"};
            if (!next(c)) return perr(c, "%s", "expected a channel name"), -1;
            int k = -1;
            for (int q = 0; q < 6; q++)
                if (!strcmp(c->tok, names[q])) k = q;
            if (k < 0) return perr(c, "unknown channel '%s'", c->tok), -1;
            for (int q = 0; q < i; q++)
                if (j->ch[q] == k) return perr(c, "channel '%s' listed twice", c->tok), -1;
            j->ch[i] = k;
        }
        c->channels += (uint32_t)j->nch;
        if (!next(c)) return perr(c, "%s", "unexpected end of the file in a joint"), -1;
    }
    for (;;) {
        if (!strcmp(c->tok, "}")) return 0;
        if (!strcmp(c->tok, "JOINT")) {
            if (parse_joint(c, (int32_t)me, y, depth + 1)) return -1;
        } else if (!strcmp(c->tok, "End")) {
            double o[3];
            if (expect(c, "Site") || expect(c, "{") || expect(c, "OFFSET")) return -1;
            for (int i = 0; i < 3; i++)
                if (number(c, &o[i])) return -1;
            if (expect(c, "}")) return -1;
            if (y + o[1] < c->min_y) c->min_y = y + o[1];
            if (y + o[1] > c->max_y) c->max_y = y + o[1];
            c->end_sites++;
        } else {
            return perr(c, "expected JOINT, End Site or '}', found '%s'", c->tok), -1;
        }
        if (!next(c)) return perr(c, "%s", "unexpected end of the file (missing '}')"), -1;
    }
}

static void axis_quat(int axis, double deg, double q[4]) {
    double h = deg * (3.14159265358979323846 / 360.0);
    q[0] = q[1] = q[2] = 0;
    q[axis] = sin(h);
    q[3] = cos(h);
}

static void quat_mul(const double a[4], const double b[4], double o[4]) {
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x;
    o[1] = y;
    o[2] = z;
    o[3] = w;
}

bsync_result bsync_bvh_import_memory(const char* text, size_t len, const char* name,
                                     const bsync_import_options* options, bsync_asset* out, bsync_error* err) {
    if (!name) name = "(memory).bvh";
    if (!out) return imp_fail(err, BSYNC_INVALID_ARGUMENT, name, "no output asset");
    memset(out, 0, sizeof *out);
    if (!text) return imp_fail(err, BSYNC_INVALID_ARGUMENT, name, "no text");
    double scale = options && options->bvh_scale != 0 ? options->bvh_scale : BSYNC_BVH_DEFAULT_SCALE;
    if (!isfinite(scale) || scale <= 0) return imp_fail(err, BSYNC_INVALID_ARGUMENT, name, "the BVH scale must be > 0");
    bvh_ctx c;
    memset(&c, 0, sizeof c);
    c.file = name;
    c.s = text;
    c.len = len;
    c.line = 1;
    c.err = err;
    c.min_y = 1e300;
    c.max_y = -1e300;
    double* values = NULL;
    imp_joint* ij = NULL;
    imp_clip clip;
    memset(&clip, 0, sizeof clip);
    bsync_result result = BSYNC_PARSE_ERROR;
    c.joints = calloc(BSYNC_MAX_JOINTS, sizeof *c.joints);
    if (!c.joints) {
        result = imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
        goto done;
    }
    if (expect(&c, "HIERARCHY")) goto fail;
    if (!next(&c)) {
        perr(&c, "%s", "expected ROOT");
        goto fail;
    }
    while (!strcmp(c.tok, "ROOT")) {
        if (parse_joint(&c, BSYNC_NO_PARENT, 0, 0)) goto fail;
        if (!next(&c)) break;
    }
    if (c.count == 0) {
        perr(&c, "%s", "expected ROOT");
        goto fail;
    }
    if (strcmp(c.tok, "MOTION")) {
        perr(&c, "expected ROOT or MOTION, found '%s'", c.tok);
        goto fail;
    }
    double frames, dt;
    if (!next(&c)) {
        perr(&c, "%s", "expected 'Frames:'");
        goto fail;
    }
    if (!strcmp(c.tok, "Frames")) {
        if (expect(&c, ":")) goto fail;
    } else if (strcmp(c.tok, "Frames:")) {
        perr(&c, "expected 'Frames:', found '%s'", c.tok);
        goto fail;
    }
    if (number(&c, &frames) || expect(&c, "Frame")) goto fail;
    if (!next(&c)) goto fail;
    if (!strcmp(c.tok, "Time")) {
        if (expect(&c, ":")) goto fail;
    } else if (strcmp(c.tok, "Time:")) {
        perr(&c, "expected 'Time:', found '%s'", c.tok);
        goto fail;
    }
    if (number(&c, &dt)) goto fail;
    if (frames < 1 || frames != floor(frames) || frames > 16777215.0) {
        perr(&c, "%s", "Frames must be a whole number from 1 to 16777215");
        goto fail;
    }
    if (!(dt > 0) || dt > 3600) {
        perr(&c, "%s", "Frame Time must be above 0 (and at most 3600 s)");
        goto fail;
    }
    uint32_t nf = (uint32_t)frames;
    size_t nvals = (size_t)nf * c.channels;
    if (nvals > BVH_MAX_VALUES) {
        result = imp_fail(err, BSYNC_LIMIT_EXCEEDED, name, "%u frames x %u channels is too much motion data",
                          (unsigned)nf, (unsigned)c.channels);
        goto done;
    }
    values = malloc((nvals ? nvals : 1) * sizeof *values);
    if (!values) {
        result = imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nvals; i++)
        if (number(&c, &values[i])) {
            imp_fail(err, BSYNC_PARSE_ERROR, name, "line %u: motion value %zu of %zu (frame %zu): %s",
                     (unsigned)c.line, i, nvals, i / (c.channels ? c.channels : 1),
                     c.tok[0] ? "not a finite number" : "the file ends early");
            goto fail;
        }
    if (next(&c)) {
        perr(&c, "unexpected '%s' after the last frame", c.tok);
        goto fail;
    }
    /* skeleton */
    ij = calloc(c.count, sizeof *ij);
    if (!ij) {
        result = imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < c.count; i++) {
        memcpy(ij[i].name, c.joints[i].name, sizeof ij[i].name);
        ij[i].parent = c.joints[i].parent;
        for (int k = 0; k < 3; k++) {
            ij[i].t[k] = c.joints[i].offset[k] * scale;
            ij[i].s[k] = 1;
        }
        ij[i].r[3] = 1;
    }
    uint32_t dup = imp_unique_joint_names(ij, c.count);
    snprintf(out->source, sizeof out->source, "%.100s: BVH, %g m per unit%s, Y up, %u joints, %u frames at %g s",
             imp_basename(name), scale, options && options->bvh_scale != 0 ? "" : " (default: centimetres)",
             (unsigned)c.count, (unsigned)nf, dt);
    if (dup) bsync_asset_note(out, "%u duplicate joint names got a #<index> suffix", (unsigned)dup);
    if (c.end_sites) bsync_asset_note(out, "%u End Sites skipped (no motion)", (unsigned)c.end_sites);
    double height = (c.max_y - c.min_y) * scale;
    if (height < 0.3 || height > 3.0)
        bsync_asset_note(out, "rest skeleton is %.3g m tall at %g m per unit: if that is wrong, give another BVH scale",
                         height, scale);
    result = imp_build_skeleton(ij, c.count, name, out, err);
    if (result != BSYNC_OK) goto done;
    /* clip */
    const char* base = imp_basename(name);
    size_t bl = strlen(base);
    for (size_t i = bl; i > 0; i--)
        if (base[i - 1] == '.') {
            bl = i - 1;
            break;
        }
    imp_copy_name(clip.name, base, bl);
    if (!imp_clip_wanted(options, clip.name)) {
        result = BSYNC_OK;
        goto done;
    }
    for (uint32_t i = 0; i < c.count; i++) {
        const bvh_joint* j = &c.joints[i];
        int has_pos = 0, has_rot = 0;
        for (int k = 0; k < j->nch; k++) {
            if (j->ch[k] <= CH_ZPOS) has_pos = 1;
            else has_rot = 1;
        }
        for (int kind = 0; kind < 2; kind++) {
            if (kind == 0 ? !has_pos : !has_rot) continue;
            int nc = kind == 0 ? 3 : 4;
            double* t = malloc((size_t)nf * sizeof *t);
            double* v = malloc((size_t)nf * (size_t)nc * sizeof *v);
            if (!t || !v) {
                free(t);
                free(v);
                result = imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
                goto done;
            }
            for (uint32_t f = 0; f < nf; f++) {
                t[f] = (double)f * dt;
                const double* fr = values + (size_t)f * c.channels + j->first;
                double* o = v + (size_t)f * (size_t)nc;
                if (kind == 0) {
                    for (int k = 0; k < 3; k++) o[k] = j->offset[k];
                    for (int k = 0; k < j->nch; k++)
                        if (j->ch[k] <= CH_ZPOS) o[j->ch[k]] = fr[k];
                    for (int k = 0; k < 3; k++) o[k] *= scale;
                } else {
                    double q[4] = {0, 0, 0, 1}, a[4];
                    for (int k = 0; k < j->nch; k++)
                        if (j->ch[k] >= CH_XROT) {
                            axis_quat(j->ch[k] - CH_XROT, fr[k], a);
                            quat_mul(q, a, q);
                        }
                    memcpy(o, q, sizeof q);
                }
            }
            if (kind == 1) imp_quats_continuous(v, nf);
            if (!imp_clip_add_track(&clip, i, kind == 0 ? BSYNC_TRACK_TRANSLATION : BSYNC_TRACK_ROTATION, nf, t, v, 0)) {
                result = imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
                goto done;
            }
        }
    }
    result = imp_build_clip(&clip, name, out, err);
    goto done;
fail:
    result = err && err->code != BSYNC_OK ? err->code : BSYNC_PARSE_ERROR;
done:
    free(c.joints);
    free(values);
    free(ij);
    imp_clip_free(&clip);
    if (result != BSYNC_OK) bsync_asset_destroy(out);
    return result;
}

bsync_result bsync_bvh_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                   bsync_error* err) {
    unsigned char* data;
    size_t size;
    bsync_result r = imp_read_input(options, path, out, &data, &size, err);
    if (r != BSYNC_OK) return r;
    r = bsync_bvh_import_memory((const char*)data, size, path, options, out, err);
    free(data);
    return r;
}
