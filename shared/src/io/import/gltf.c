/* gltf.c — glTF 2.0 reader (cJSON) into the importers' double form; see blendsync/io/gltf.h.
 * Every index, offset, length and count from the file is checked before it is used. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "blendsync/io/clip_file.h"
#include "blendsync/io/gltf.h"
#include "import_internal.h"
#include "internal/le.h"

#define GL_MAX_NODES 65536u
#define GL_MAX_COUNT ((uint32_t)1 << 24) /* elements of one accessor */
#define GL_MAX_ITEMS 1000000u            /* entries of any top-level array */

typedef struct gl_buffer {
    int loaded;
    const unsigned char* data;
    size_t size;           /* the declared byteLength (<= bytes available) */
    unsigned char* owned;  /* malloc'd (decoded data: URI or external file) */
} gl_buffer;

typedef struct gl_node {
    int32_t parent; /* node index or -1 */
    double t[3], r[4], s[3];
    double shear; /* a `matrix` node: how far its columns are from orthogonal, degrees (dropped) */
    const char* name;
} gl_node;

/* The transform of the non-joint nodes between a joint and its joint parent (or the scene root),
 * folded into that joint's rest pose and keys: local' = A o local (see fold_apply). */
typedef struct gl_fold {
    int on;
    double t[3], r[4], s[3];
} gl_fold;

typedef struct gl_ctx {
    const char* file;
    const char* base_dir;
    cJSON* root;
    const unsigned char* bin;
    size_t bin_size;
    int is_glb;
    gl_buffer* buffers;
    uint32_t buffer_count;
    bsync_error* err;
    bsync_asset* asset;
    const bsync_import_options* opt;
    gl_fold* fold;                 /* per joint (built by build_skeleton) */
    unsigned char* above;          /* per node: 1 = a non-joint ancestor of a joint */
    uint32_t above_channels, above_clips; /* channels on such nodes (ignored), and in how many clips */
    int32_t above_first;           /* the first such animated node, for the note */
    /* clip actions from animations' extras (docs/clip-format.md "glTF extras") */
    bsync_clip_action* acts;
    char (*act_names)[BSYNC_MAX_NAME];
    fix16_t** act_keys;            /* per action: times then values (curves), else NULL */
    uint32_t act_count, act_cap;
} gl_ctx;

/* ------------------------------------------------------------------ JSON helpers */

static const cJSON* jget(const cJSON* obj, const char* key) {
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* Optional unsigned integer member in [0, max]; absent -> def. 0 ok, -1 error (reported). */
static int jget_uint(gl_ctx* c, const cJSON* obj, const char* key, uint64_t def, uint64_t max, uint64_t* out,
                     const char* where) {
    const cJSON* v = jget(obj, key);
    if (!v) {
        *out = def;
        return 0;
    }
    double d = cJSON_IsNumber(v) ? v->valuedouble : -1.0;
    if (!cJSON_IsNumber(v) || !(d >= 0) || d != floor(d) || d > (double)max) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: '%s' must be a whole number from 0 to %llu", where, key,
                 (unsigned long long)max);
        return -1;
    }
    *out = (uint64_t)d;
    return 0;
}

static int jreq_uint(gl_ctx* c, const cJSON* obj, const char* key, uint64_t max, uint64_t* out, const char* where) {
    if (!jget(obj, key)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: missing '%s'", where, key);
        return -1;
    }
    return jget_uint(c, obj, key, 0, max, out, where);
}

static uint32_t jarray_size(const cJSON* a) { return cJSON_IsArray(a) ? (uint32_t)cJSON_GetArraySize(a) : 0; }

/* Numeric array member of exactly n numbers into out (absent -> keep out, return 0). */
static int jget_numbers(gl_ctx* c, const cJSON* obj, const char* key, int n, double* out, const char* where) {
    const cJSON* a = jget(obj, key);
    if (!a) return 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: '%s' must be an array of %d numbers", where, key, n);
        return -1;
    }
    int i = 0;
    const cJSON* e;
    cJSON_ArrayForEach(e, a) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: '%s'[%d] is not a finite number", where, key, i);
            return -1;
        }
        out[i++] = e->valuedouble;
    }
    return 0;
}

/* ------------------------------------------------------------------ buffers */

static int b64_value(unsigned char ch) {
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* Decode base64 (padding optional, no whitespace); returns malloc'd bytes or NULL (*bad set on bad input). */
static unsigned char* b64_decode(const char* s, size_t n, size_t* out_len, int* bad) {
    *bad = 0;
    while (n > 0 && s[n - 1] == '=') n--;
    if (n % 4 == 1) {
        *bad = 1;
        return NULL;
    }
    size_t len = n / 4 * 3 + (n % 4 ? n % 4 - 1 : 0);
    unsigned char* out = malloc(len ? len : 1);
    if (!out) return NULL;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0) {
            free(out);
            *bad = 1;
            return NULL;
        }
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)((acc >> bits) & 0xFFu);
        }
    }
    *out_len = o;
    return out;
}

static int hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

static gl_buffer* get_buffer(gl_ctx* c, uint64_t index, const char* where) {
    if (index >= c->buffer_count) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: buffer %llu does not exist (%u buffers)", where,
                 (unsigned long long)index, (unsigned)c->buffer_count);
        return NULL;
    }
    gl_buffer* b = &c->buffers[index];
    if (b->loaded) return b;
    char at[64];
    snprintf(at, sizeof at, "buffers[%u]", (unsigned)index);
    const cJSON* bj = cJSON_GetArrayItem(jget(c->root, "buffers"), (int)index);
    uint64_t byte_length;
    if (!cJSON_IsObject(bj)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: not an object", at);
        return NULL;
    }
    if (jreq_uint(c, bj, "byteLength", (uint64_t)1 << 40, &byte_length, at)) return NULL;
    const cJSON* uri = jget(bj, "uri");
    const unsigned char* data = NULL;
    size_t avail = 0;
    if (!uri) {
        if (!c->is_glb || index != 0 || !c->bin) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: no uri, and it is not the GLB's BIN chunk", at);
            return NULL;
        }
        data = c->bin;
        avail = c->bin_size;
    } else if (!cJSON_IsString(uri)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: uri is not a string", at);
        return NULL;
    } else if (strncmp(uri->valuestring, "data:", 5) == 0) {
        const char* comma = strstr(uri->valuestring, ";base64,");
        if (!comma) {
            imp_fail(c->err, BSYNC_PARSE_ERROR, c->file, "%s: data: URI without ';base64,'", at);
            return NULL;
        }
        const char* p = comma + 8;
        int bad = 0;
        size_t len = 0;
        b->owned = b64_decode(p, strlen(p), &len, &bad);
        if (!b->owned) {
            imp_fail(c->err, bad ? BSYNC_PARSE_ERROR : BSYNC_OUT_OF_MEMORY, c->file, "%s: %s", at,
                     bad ? "invalid base64 in the data: URI" : "out of memory");
            return NULL;
        }
        data = b->owned;
        avail = len;
    } else {
        const char* u = uri->valuestring;
        size_t ul = strlen(u);
        int scheme = 0;
        for (size_t i = 0; i < ul && u[i] != '/'; i++)
            if (u[i] == ':') scheme = 1;
        if (scheme || u[0] == '/' || u[0] == '\\' || ul == 0) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: uri '%.200s' is not a relative file path", at, u);
            return NULL;
        }
        if (!c->base_dir) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: external buffer '%.200s' but no folder to read it from",
                     at, u);
            return NULL;
        }
        size_t bl = strlen(c->base_dir);
        char* path = malloc(bl + ul + 2);
        if (!path) {
            imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
            return NULL;
        }
        memcpy(path, c->base_dir, bl);
        size_t o = bl;
        if (bl > 0) path[o++] = '/';
        for (size_t i = 0; i < ul; i++) { /* percent-decoding */
            int h1, h2;
            if (u[i] == '%' && i + 2 < ul + 0 && (h1 = hexval(u[i + 1])) >= 0 && (h2 = hexval(u[i + 2])) >= 0 &&
                (h1 | h2) != 0) {
                path[o++] = (char)(h1 * 16 + h2);
                i += 2;
            } else {
                path[o++] = u[i];
            }
        }
        path[o] = '\0';
        bsync_error e2;
        size_t len = 0;
        bsync_result r = imp_read_file(c->opt, path, &b->owned, &len, &e2);
        if (r != BSYNC_OK) {
            imp_fail(c->err, r, c->file, "%s: cannot read external buffer '%s'", at, path);
            free(path);
            return NULL;
        }
        free(path);
        data = b->owned;
        avail = len;
    }
    if (byte_length > avail) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: byteLength %llu but only %zu bytes of data", at,
                 (unsigned long long)byte_length, avail);
        return NULL;
    }
    b->data = data;
    b->size = (size_t)byte_length;
    b->loaded = 1;
    return b;
}

/* ------------------------------------------------------------------ accessors */

static size_t component_size(uint64_t ct) {
    switch (ct) {
    case 5120: case 5121: return 1;
    case 5122: case 5123: return 2;
    case 5125: case 5126: return 4;
    default: return 0;
    }
}

static double read_component(const unsigned char* p, uint64_t ct, int normalized) {
    switch (ct) {
    case 5120: {
        int v = (int)(signed char)p[0];
        return normalized ? fmax(v / 127.0, -1.0) : v;
    }
    case 5121: return normalized ? p[0] / 255.0 : p[0];
    case 5122: {
        int v = (int)(int16_t)(uint16_t)(p[0] | (p[1] << 8));
        return normalized ? fmax(v / 32767.0, -1.0) : v;
    }
    case 5123: {
        unsigned v = (unsigned)(p[0] | (p[1] << 8));
        return normalized ? v / 65535.0 : v;
    }
    case 5125: {
        uint32_t v = bsync_le_get32(p);
        return normalized ? v / 4294967295.0 : (double)v;
    }
    default: {
        uint32_t v = bsync_le_get32(p);
        float f;
        memcpy(&f, &v, 4);
        return (double)f;
    }
    }
}

/* Resolve a bufferView range: the bytes [view start, view start + byteLength) and its stride. */
static int get_view(gl_ctx* c, uint64_t vi, const unsigned char** out, size_t* out_len, uint64_t* stride,
                    const char* where) {
    const cJSON* views = jget(c->root, "bufferViews");
    if (vi >= jarray_size(views)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: bufferView %llu does not exist", where, (unsigned long long)vi);
        return -1;
    }
    const cJSON* v = cJSON_GetArrayItem(views, (int)vi);
    char at[64];
    snprintf(at, sizeof at, "bufferViews[%u]", (unsigned)vi);
    uint64_t bi, off, len;
    if (!cJSON_IsObject(v)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: not an object", at);
        return -1;
    }
    if (jreq_uint(c, v, "buffer", GL_MAX_ITEMS, &bi, at) || jget_uint(c, v, "byteOffset", 0, (uint64_t)1 << 40, &off, at) ||
        jreq_uint(c, v, "byteLength", (uint64_t)1 << 40, &len, at) || jget_uint(c, v, "byteStride", 0, 252, stride, at))
        return -1;
    if (*stride != 0 && (*stride < 4 || *stride % 4 != 0)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: byteStride %llu is not a multiple of 4 in [4, 252]", at,
                 (unsigned long long)*stride);
        return -1;
    }
    gl_buffer* b = get_buffer(c, bi, at);
    if (!b) return -1;
    if (off > b->size || len > b->size - off) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: byteOffset %llu + byteLength %llu exceeds buffer %llu's %zu bytes",
                 at, (unsigned long long)off, (unsigned long long)len, (unsigned long long)bi, b->size);
        return -1;
    }
    *out = b->data + off;
    *out_len = (size_t)len;
    return 0;
}

/* Read accessor `ai` whose type must have `ncomp` components (1 SCALAR, 3 VEC3, 4 VEC4) into a
 * malloc'd array of count * ncomp doubles. */
static int read_accessor(gl_ctx* c, uint64_t ai, int ncomp, double** out, uint32_t* out_count, const char* where) {
    *out = NULL;
    const cJSON* accs = jget(c->root, "accessors");
    if (ai >= jarray_size(accs)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: accessor %llu does not exist", where, (unsigned long long)ai);
        return -1;
    }
    const cJSON* a = cJSON_GetArrayItem(accs, (int)ai);
    char at[64];
    snprintf(at, sizeof at, "accessors[%u]", (unsigned)ai);
    if (!cJSON_IsObject(a)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: not an object", at);
        return -1;
    }
    uint64_t ct, count, off;
    if (jreq_uint(c, a, "componentType", 100000, &ct, at) || jreq_uint(c, a, "count", GL_MAX_COUNT, &count, at) ||
        jget_uint(c, a, "byteOffset", 0, (uint64_t)1 << 40, &off, at))
        return -1;
    size_t cs = component_size(ct);
    if (cs == 0) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: unknown componentType %llu", at, (unsigned long long)ct);
        return -1;
    }
    if (count == 0) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: count is 0", at);
        return -1;
    }
    const cJSON* type = jget(a, "type");
    const char* want = ncomp == 1 ? "SCALAR" : ncomp == 3 ? "VEC3" : "VEC4";
    if (!cJSON_IsString(type) || strcmp(type->valuestring, want) != 0) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s (%s): type must be %s", at, where, want);
        return -1;
    }
    const cJSON* nj = jget(a, "normalized");
    int normalized = cJSON_IsTrue(nj);
    if (nj && !cJSON_IsBool(nj)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: normalized must be true or false", at);
        return -1;
    }
    if (normalized && ct == 5126) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: a float accessor cannot be normalized", at);
        return -1;
    }
    const size_t elem = cs * (size_t)ncomp;
    double* v = calloc((size_t)count * (size_t)ncomp, sizeof *v);
    if (!v) {
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        return -1;
    }
    const cJSON* bvj = jget(a, "bufferView");
    if (bvj) {
        uint64_t vi, stride;
        const unsigned char* data;
        size_t len;
        if (jget_uint(c, a, "bufferView", 0, GL_MAX_ITEMS, &vi, at) || get_view(c, vi, &data, &len, &stride, at)) {
            free(v);
            return -1;
        }
        if (stride == 0) stride = elem;
        if (stride < elem) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: byteStride %llu is smaller than the element (%zu bytes)", at,
                     (unsigned long long)stride, elem);
            free(v);
            return -1;
        }
        uint64_t end = off + stride * (count - 1) + elem; /* < 2^40 + 2^8 * 2^24 + 16: no overflow */
        if (end > len) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file,
                     "%s: byteOffset + stride * (count - 1) + element size = %llu exceeds bufferView %llu's byteLength %zu",
                     at, (unsigned long long)end, (unsigned long long)vi, len);
            free(v);
            return -1;
        }
        for (uint64_t i = 0; i < count; i++)
            for (int k = 0; k < ncomp; k++)
                v[i * (uint64_t)ncomp + (uint64_t)k] =
                    read_component(data + off + i * stride + (uint64_t)k * cs, ct, normalized);
    }
    const cJSON* sp = jget(a, "sparse");
    if (sp) {
        char sat[80];
        snprintf(sat, sizeof sat, "%s.sparse", at);
        uint64_t scount, ict, ioff, voff, ivi, vvi, istride, vstride;
        const cJSON* ind = jget(sp, "indices");
        const cJSON* val = jget(sp, "values");
        const unsigned char *idata, *vdata;
        size_t ilen, vlen;
        if (!cJSON_IsObject(sp) || !cJSON_IsObject(ind) || !cJSON_IsObject(val)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: needs 'indices' and 'values' objects", sat);
            free(v);
            return -1;
        }
        if (jreq_uint(c, sp, "count", count, &scount, sat) || jreq_uint(c, ind, "bufferView", GL_MAX_ITEMS, &ivi, sat) ||
            jget_uint(c, ind, "byteOffset", 0, (uint64_t)1 << 40, &ioff, sat) ||
            jreq_uint(c, ind, "componentType", 100000, &ict, sat) ||
            jreq_uint(c, val, "bufferView", GL_MAX_ITEMS, &vvi, sat) ||
            jget_uint(c, val, "byteOffset", 0, (uint64_t)1 << 40, &voff, sat) ||
            get_view(c, ivi, &idata, &ilen, &istride, sat) || get_view(c, vvi, &vdata, &vlen, &vstride, sat)) {
            free(v);
            return -1;
        }
        size_t ics = (ict == 5121 || ict == 5123 || ict == 5125) ? component_size(ict) : 0;
        if (ics == 0 || scount == 0) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: indices componentType must be 5121, 5123 or 5125 and count >= 1",
                     sat);
            free(v);
            return -1;
        }
        if (ioff + scount * ics > ilen || voff + scount * elem > vlen) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: indices or values run past their bufferView", sat);
            free(v);
            return -1;
        }
        uint64_t prev = 0;
        for (uint64_t i = 0; i < scount; i++) {
            const unsigned char* p = idata + ioff + i * ics;
            uint64_t idx = ics == 1 ? p[0] : ics == 2 ? (uint64_t)(p[0] | (p[1] << 8)) : bsync_le_get32(p);
            if (idx >= count || (i > 0 && idx <= prev)) {
                imp_fail(c->err, BSYNC_BAD_BLOB, c->file,
                         "%s: index %llu (entry %llu) is not below count %llu or not increasing", sat,
                         (unsigned long long)idx, (unsigned long long)i, (unsigned long long)count);
                free(v);
                return -1;
            }
            prev = idx;
            for (int k = 0; k < ncomp; k++)
                v[idx * (uint64_t)ncomp + (uint64_t)k] =
                    read_component(vdata + voff + i * elem + (uint64_t)k * cs, ct, normalized);
        }
    }
    for (uint64_t i = 0; i < count * (uint64_t)ncomp; i++)
        if (!isfinite(v[i])) {
            imp_fail(c->err, BSYNC_NOT_FINITE, c->file, "%s (%s): element %llu is not finite", at, where,
                     (unsigned long long)(i / (uint64_t)ncomp));
            free(v);
            return -1;
        }
    *out = v;
    *out_count = (uint32_t)count;
    return 0;
}

/* ------------------------------------------------------------------ nodes */

static void quat_from_matrix(const double m[9], double q[4]) { /* m row-major 3x3, orthonormal */
    double tr = m[0] + m[4] + m[8];
    if (tr > 0) {
        double s = sqrt(tr + 1.0) * 2;
        q[3] = 0.25 * s;
        q[0] = (m[7] - m[5]) / s;
        q[1] = (m[2] - m[6]) / s;
        q[2] = (m[3] - m[1]) / s;
    } else if (m[0] > m[4] && m[0] > m[8]) {
        double s = sqrt(1.0 + m[0] - m[4] - m[8]) * 2;
        q[3] = (m[7] - m[5]) / s;
        q[0] = 0.25 * s;
        q[1] = (m[1] + m[3]) / s;
        q[2] = (m[2] + m[6]) / s;
    } else if (m[4] > m[8]) {
        double s = sqrt(1.0 + m[4] - m[0] - m[8]) * 2;
        q[3] = (m[2] - m[6]) / s;
        q[0] = (m[1] + m[3]) / s;
        q[1] = 0.25 * s;
        q[2] = (m[5] + m[7]) / s;
    } else {
        double s = sqrt(1.0 + m[8] - m[0] - m[4]) * 2;
        q[3] = (m[3] - m[1]) / s;
        q[0] = (m[2] + m[6]) / s;
        q[1] = (m[5] + m[7]) / s;
        q[2] = 0.25 * s;
    }
    imp_quat_normalize(q);
}

/* Column-major 4x4 -> T, R, S; *shear = the largest departure of two columns from a right angle,
 * in degrees (what T R S cannot hold; 0 when a column is zero). */
static void decompose(const double m[16], double t[3], double r[4], double s[3], double* shear) {
    t[0] = m[12];
    t[1] = m[13];
    t[2] = m[14];
    double cols[3][3];
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++) cols[j][i] = m[j * 4 + i];
        s[j] = sqrt(cols[j][0] * cols[j][0] + cols[j][1] * cols[j][1] + cols[j][2] * cols[j][2]);
    }
    *shear = 0;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++) {
            if (!(s[a] > 0) || !(s[b] > 0)) continue;
            double cs = fabs(cols[a][0] * cols[b][0] + cols[a][1] * cols[b][1] + cols[a][2] * cols[b][2]) / (s[a] * s[b]);
            double deg = asin(cs < 1 ? cs : 1) * (180.0 / 3.14159265358979323846);
            if (deg > *shear) *shear = deg;
        }
    double det = cols[0][0] * (cols[1][1] * cols[2][2] - cols[1][2] * cols[2][1]) -
                 cols[1][0] * (cols[0][1] * cols[2][2] - cols[0][2] * cols[2][1]) +
                 cols[2][0] * (cols[0][1] * cols[1][2] - cols[0][2] * cols[1][1]);
    if (det < 0) s[0] = -s[0];
    if (s[0] == 0 || s[1] == 0 || s[2] == 0) {
        r[0] = r[1] = r[2] = 0;
        r[3] = 1;
        return;
    }
    double rm[9]; /* row-major: rm[i*3+j] = cols[j][i] / s[j] */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) rm[i * 3 + j] = cols[j][i] / s[j];
    quat_from_matrix(rm, r);
}

static int read_nodes(gl_ctx* c, gl_node** out, uint32_t* out_n) {
    const cJSON* nodes = jget(c->root, "nodes");
    if (nodes && !cJSON_IsArray(nodes)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "'nodes' is not an array");
        return -1;
    }
    uint32_t n = jarray_size(nodes);
    if (n > GL_MAX_NODES) {
        imp_fail(c->err, BSYNC_LIMIT_EXCEEDED, c->file, "%u nodes (at most %u)", (unsigned)n, (unsigned)GL_MAX_NODES);
        return -1;
    }
    gl_node* g = calloc(n ? n : 1, sizeof *g);
    if (!g) {
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) g[i].parent = -1;
    uint32_t i = 0;
    const cJSON* nd;
    cJSON_ArrayForEach(nd, nodes) {
        char at[48];
        snprintf(at, sizeof at, "nodes[%u]", (unsigned)i);
        gl_node* x = &g[i];
        if (!cJSON_IsObject(nd)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: not an object", at);
            goto fail;
        }
        const cJSON* name = jget(nd, "name");
        x->name = cJSON_IsString(name) ? name->valuestring : NULL;
        x->t[0] = x->t[1] = x->t[2] = 0;
        x->r[0] = x->r[1] = x->r[2] = 0;
        x->r[3] = 1;
        x->s[0] = x->s[1] = x->s[2] = 1;
        double m[16];
        if (jget(nd, "matrix")) {
            if (jget_numbers(c, nd, "matrix", 16, m, at)) goto fail;
            decompose(m, x->t, x->r, x->s, &x->shear);
        }
        if (jget_numbers(c, nd, "translation", 3, x->t, at) || jget_numbers(c, nd, "rotation", 4, x->r, at) ||
            jget_numbers(c, nd, "scale", 3, x->s, at))
            goto fail;
        double qn = x->r[0] * x->r[0] + x->r[1] * x->r[1] + x->r[2] * x->r[2] + x->r[3] * x->r[3];
        if (!(qn > 1e-12)) {
            imp_fail(c->err, BSYNC_BAD_ROTATION, c->file, "%s: rotation is zero", at);
            goto fail;
        }
        imp_quat_normalize(x->r);
        i++;
    }
    i = 0;
    cJSON_ArrayForEach(nd, nodes) {
        const cJSON* ch = jget(nd, "children");
        if (ch && !cJSON_IsArray(ch)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "nodes[%u]: children is not an array", (unsigned)i);
            goto fail;
        }
        const cJSON* e;
        cJSON_ArrayForEach(e, ch) {
            double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
            if (!(d >= 0) || d != floor(d) || d >= (double)n || (uint32_t)d == i) {
                imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "nodes[%u]: child index is not another node", (unsigned)i);
                goto fail;
            }
            uint32_t k = (uint32_t)d;
            if (g[k].parent >= 0) {
                imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "nodes[%u] has two parents (%d and %u)", (unsigned)k,
                         (int)g[k].parent, (unsigned)i);
                goto fail;
            }
            g[k].parent = (int32_t)i;
        }
        i++;
    }
    for (i = 0; i < n; i++) { /* a cycle would never reach a root */
        uint32_t steps = 0;
        for (int32_t p = g[i].parent; p >= 0; p = g[p].parent)
            if (++steps > n) {
                imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "the node tree has a cycle through nodes[%u]", (unsigned)i);
                goto fail;
            }
    }
    *out = g;
    *out_n = n;
    return 0;
fail:
    free(g);
    return -1;
}

/* ------------------------------------------------------------------ non-joint ancestors
 *
 * glTF places a joint by every ancestor node, joint or not. The skeleton keeps only joints, so the
 * transform A of the non-joint nodes between a joint and its joint parent (for a root joint: up to
 * the scene root; a Blender armature node, typically) is folded into that joint, in double before
 * the one conversion: rest and every key become A o local. Translation keys are exact; rotation and
 * scale are exact when A's scale is uniform (otherwise per axis: an approximation, noted). */

static int node_is_identity(const gl_node* p) {
    return p->t[0] == 0 && p->t[1] == 0 && p->t[2] == 0 && p->r[0] == 0 && p->r[1] == 0 && p->r[2] == 0 &&
           (p->r[3] == 1 || p->r[3] == -1) && p->s[0] == 1 && p->s[1] == 1 && p->s[2] == 1 && p->shear == 0;
}

static void quat_mul(const double a[4], const double b[4], double o[4]) { /* o = a b (b first) */
    double x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    double y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    double z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    double w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x;
    o[1] = y;
    o[2] = z;
    o[3] = w;
}

static void quat_rotate(const double q[4], const double v[3], double o[3]) { /* unit q */
    double c1[3] = {q[1] * v[2] - q[2] * v[1], q[2] * v[0] - q[0] * v[2], q[0] * v[1] - q[1] * v[0]};
    double c2[3] = {q[1] * c1[2] - q[2] * c1[1], q[2] * c1[0] - q[0] * c1[2], q[0] * c1[1] - q[1] * c1[0]};
    for (int i = 0; i < 3; i++) o[i] = v[i] + 2.0 * (q[3] * c1[i] + c2[i]);
}

/* Column-major 4x4 of T R S. */
static void trs_matrix(const double t[3], const double q[4], const double s[3], double m[16]) {
    double x = q[0], y = q[1], z = q[2], w = q[3];
    double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)},
                      {2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)}};
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++) m[j * 4 + i] = r[i][j] * s[j];
        m[j * 4 + 3] = 0;
        m[12 + j] = t[j];
    }
    m[15] = 1;
}

static void mat_mul(const double a[16], const double b[16], double o[16]) { /* o = a b, column-major */
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 4; i++) {
            double acc = 0;
            for (int k = 0; k < 4; k++) acc += a[k * 4 + i] * b[j * 4 + k];
            o[j * 4 + i] = acc;
        }
}

static void fold_translation(const gl_fold* f, double v[3]) {
    double a[3] = {f->s[0] * v[0], f->s[1] * v[1], f->s[2] * v[2]}, o[3];
    quat_rotate(f->r, a, o);
    for (int i = 0; i < 3; i++) v[i] = f->t[i] + o[i];
}

static void fold_rotation(const gl_fold* f, double q[4]) {
    double o[4];
    quat_mul(f->r, q, o);
    memcpy(q, o, sizeof o);
    imp_quat_normalize(q);
}

static void fold_scale(const gl_fold* f, double v[3]) {
    for (int i = 0; i < 3; i++) v[i] *= f->s[i];
}

static double note_num(double x) { return fabs(x) < 5e-10 ? 0.0 : x; } /* no "-0" in notes */

/* Joint `jname` (node k): compose its non-joint ancestors up to the nearest joint ancestor (in[] = is
 * a joint) into *f, outermost first; f->on = 0 when they are all identity. Marks them in c->above.
 * Notes what was folded. 0 ok, -1 out of memory (reported). */
static int ancestor_fold(gl_ctx* c, const gl_node* g, const unsigned char* in, uint32_t k, const char* jname,
                         int is_root, gl_fold* f) {
    memset(f, 0, sizeof *f);
    uint32_t cnt = 0;
    for (int32_t p = g[k].parent; p >= 0 && !in[p]; p = g[p].parent) {
        c->above[p] = 1;
        if (!node_is_identity(&g[p])) cnt++;
    }
    if (cnt == 0) return 0;
    uint32_t* list = malloc((size_t)cnt * sizeof *list);
    if (!list) {
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        return -1;
    }
    uint32_t i = cnt;
    for (int32_t p = g[k].parent; p >= 0 && !in[p]; p = g[p].parent)
        if (!node_is_identity(&g[p])) list[--i] = (uint32_t)p; /* outermost first */
    double shear = 0;
    for (i = 0; i < cnt; i++)
        if (g[list[i]].shear > shear) shear = g[list[i]].shear;
    if (cnt == 1) {
        const gl_node* p = &g[list[0]];
        memcpy(f->t, p->t, sizeof f->t);
        memcpy(f->r, p->r, sizeof f->r);
        memcpy(f->s, p->s, sizeof f->s);
    } else {
        double m[16], x[16], o[16], sh;
        trs_matrix(g[list[0]].t, g[list[0]].r, g[list[0]].s, m);
        for (i = 1; i < cnt; i++) {
            trs_matrix(g[list[i]].t, g[list[i]].r, g[list[i]].s, x);
            mat_mul(m, x, o);
            memcpy(m, o, sizeof m);
        }
        decompose(m, f->t, f->r, f->s, &sh);
        if (sh > shear) shear = sh;
    }
    f->on = 1;
    char names[300];
    size_t used = 0;
    names[0] = '\0';
    for (i = 0; i < cnt && i < 3; i++) {
        const gl_node* p = &g[list[i]];
        int w = p->name ? snprintf(names + used, sizeof names - used, "%s'%.60s'", i ? " > " : "", p->name)
                        : snprintf(names + used, sizeof names - used, "%snodes[%u]", i ? " > " : "", (unsigned)list[i]);
        if (w > 0) used += (size_t)w < sizeof names - used ? (size_t)w : sizeof names - used - 1;
    }
    if (cnt > 3) snprintf(names + used, sizeof names - used, " and %u more", (unsigned)(cnt - 3));
    free(list);
    double vl = sqrt(f->r[0] * f->r[0] + f->r[1] * f->r[1] + f->r[2] * f->r[2]);
    double deg = 2.0 * atan2(vl, fabs(f->r[3])) * (180.0 / 3.14159265358979323846);
    double sg = f->r[3] < 0 ? -1.0 : 1.0, ax[3] = {1, 0, 0};
    if (vl > 0)
        for (i = 0; i < 3; i++) ax[i] = sg * f->r[i] / vl;
    int uniform = fabs(f->s[0] - f->s[1]) <= 1e-7 * fabs(f->s[0]) && fabs(f->s[0] - f->s[2]) <= 1e-7 * fabs(f->s[0]);
    char extra[200];
    snprintf(extra, sizeof extra, "%s%s", uniform ? "" : "; the scale is not uniform, so it is applied per axis (exact only while the joint's rotation is identity)",
             shear > 1e-6 ? "; a shear was dropped" : "");
    bsync_asset_note(c->asset,
                     "%s '%s' sits under non-joint node%s %s: folded into its rest pose and keys: rotation %.4f deg "
                     "about (%.4f, %.4f, %.4f), translation (%.6g, %.6g, %.6g) m, scale (%.6g, %.6g, %.6g)%s",
                     is_root ? "root joint" : "joint", jname, cnt > 1 ? "s" : "", names, deg, note_num(ax[0]),
                     note_num(ax[1]), note_num(ax[2]), note_num(f->t[0]), note_num(f->t[1]), note_num(f->t[2]),
                     note_num(f->s[0]), note_num(f->s[1]), note_num(f->s[2]), extra);
    if (shear > 1e-6)
        bsync_asset_note(c->asset, "joint '%s': the non-joint nodes above it shear by %.3g deg, which a joint cannot "
                         "hold: dropped (approximation)", jname, shear);
    return 0;
}

/* ------------------------------------------------------------------ skeleton */

/* Builds joints from nodes; node_to_joint[n] = joint index or -1. */
static int build_skeleton(gl_ctx* c, const gl_node* g, uint32_t n, int32_t* node_to_joint) {
    const cJSON* skins = jget(c->root, "skins");
    uint32_t nskins = jarray_size(skins);
    unsigned char* in = calloc(n ? n : 1, 1);
    uint32_t* order = malloc((size_t)(n ? n : 1) * sizeof *order); /* candidate nodes in preferred order */
    imp_joint* joints = NULL;
    uint32_t cand = 0;
    int rc = -1;
    if (!in || !order) {
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) node_to_joint[i] = -1;
    if (nskins > 0) {
        const cJSON* skin = cJSON_GetArrayItem(skins, 0);
        const cJSON* sj = jget(skin, "joints");
        if (!cJSON_IsArray(sj) || cJSON_GetArraySize(sj) == 0) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "skins[0]: 'joints' must be a non-empty array");
            goto done;
        }
        const cJSON* e;
        cJSON_ArrayForEach(e, sj) {
            double d = cJSON_IsNumber(e) ? e->valuedouble : -1;
            if (!(d >= 0) || d != floor(d) || d >= (double)n) {
                imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "skins[0].joints: entry %u is not a node index",
                         (unsigned)cand);
                goto done;
            }
            uint32_t k = (uint32_t)d;
            if (in[k]) {
                imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "skins[0].joints: node %u is listed twice", (unsigned)k);
                goto done;
            }
            in[k] = 1;
            order[cand++] = k;
        }
        const cJSON* sname = jget(skin, "name");
        snprintf(c->asset->source + strlen(c->asset->source), sizeof c->asset->source - strlen(c->asset->source),
                 ", skeleton from skin 0%s%.60s%s", cJSON_IsString(sname) ? " '" : "",
                 cJSON_IsString(sname) ? sname->valuestring : "", cJSON_IsString(sname) ? "'" : "");
        if (nskins > 1) bsync_asset_note(c->asset, "%u skins: the skeleton is skin 0's", (unsigned)nskins);
    } else {
        for (uint32_t i = 0; i < n; i++) {
            in[i] = 1;
            order[cand++] = i;
        }
        snprintf(c->asset->source + strlen(c->asset->source), sizeof c->asset->source - strlen(c->asset->source),
                 ", no skin: skeleton from the node tree");
    }
    if (cand > BSYNC_MAX_JOINTS) {
        imp_fail(c->err, BSYNC_LIMIT_EXCEEDED, c->file, "%u joints, more than the limit of %u", (unsigned)cand,
                 (unsigned)BSYNC_MAX_JOINTS);
        goto done;
    }
    joints = calloc(cand ? cand : 1, sizeof *joints);
    c->fold = calloc(cand ? cand : 1, sizeof *c->fold);
    c->above = calloc(n ? n : 1, 1);
    if (!joints || !c->fold || !c->above) {
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        goto done;
    }
    uint32_t nj = 0, renamed = 0, cut = 0;
    for (uint32_t oi = 0; oi < cand; oi++) {
        /* emit the chain of not-yet-emitted joint ancestors first (outermost first) */
        uint32_t chain[BSYNC_MAX_JOINTS];
        uint32_t len = 0;
        for (int32_t k = (int32_t)order[oi]; k >= 0; k = g[k].parent) {
            if (!in[k]) continue;
            if (node_to_joint[k] >= 0) break;
            chain[len++] = (uint32_t)k; /* len <= cand <= BSYNC_MAX_JOINTS: each joint once */
        }
        while (len > 0) {
            uint32_t k = chain[--len];
            int32_t parent = BSYNC_NO_PARENT;
            for (int32_t p = g[k].parent; p >= 0; p = g[p].parent)
                if (in[p]) {
                    parent = node_to_joint[p];
                    break;
                }
            imp_joint* j = &joints[nj];
            if (g[k].name) {
                cut += (uint32_t)imp_copy_name(j->name, g[k].name, strlen(g[k].name));
            } else {
                snprintf(j->name, sizeof j->name, "node%u", (unsigned)k);
                renamed++;
            }
            j->parent = parent;
            memcpy(j->t, g[k].t, sizeof j->t);
            memcpy(j->r, g[k].r, sizeof j->r);
            memcpy(j->s, g[k].s, sizeof j->s);
            gl_fold* f = &c->fold[nj];
            if (ancestor_fold(c, g, in, k, j->name, parent == BSYNC_NO_PARENT, f)) goto done;
            if (f->on) {
                fold_translation(f, j->t);
                fold_rotation(f, j->r);
                fold_scale(f, j->s);
            }
            node_to_joint[k] = (int32_t)nj++;
        }
    }
    uint32_t dup = imp_unique_joint_names(joints, nj);
    if (renamed) bsync_asset_note(c->asset, "%u unnamed nodes were named node<i>", (unsigned)renamed);
    if (cut) bsync_asset_note(c->asset, "%u joint names longer than 63 bytes were shortened", (unsigned)cut);
    if (dup) bsync_asset_note(c->asset, "%u duplicate joint names got a #<index> suffix", (unsigned)dup);
    if (imp_build_skeleton(joints, nj, c->file, c->asset, c->err) != BSYNC_OK) goto done;
    rc = 0;
done:
    free(in);
    free(order);
    free(joints);
    return rc;
}

/* ------------------------------------------------------------------ animations */

static void hermite(const double* p0, const double* m0, const double* p1, const double* m1, double td, double s,
                    int nc, double* out) {
    double s2 = s * s, s3 = s2 * s;
    double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (int i = 0; i < nc; i++) out[i] = h00 * p0[i] + h10 * td * m0[i] + h01 * p1[i] + h11 * td * m1[i];
}

/* Resample a CUBICSPLINE sampler (values: in-tangent, value, out-tangent per key). */
static int resample_cubic(gl_ctx* c, const double* t, uint32_t n, const double* v, int nc, double** out_t,
                          double** out_v, uint32_t* out_n, const char* where) {
    uint32_t hz = c->opt && c->opt->resample_hz ? c->opt->resample_hz : BSYNC_IMPORT_DEFAULT_RESAMPLE_HZ;
    double span = t[n - 1] - t[0];
    double extra = span * hz + 2;
    if (extra > (double)GL_MAX_COUNT) {
        imp_fail(c->err, BSYNC_LIMIT_EXCEEDED, c->file, "%s: resampling %g s at %u Hz gives too many keys", where, span,
                 (unsigned)hz);
        return -1;
    }
    size_t cap = (size_t)n + (size_t)extra + 1;
    double* ot = malloc(cap * sizeof *ot);
    double* ov = malloc(cap * (size_t)nc * sizeof *ov);
    if (!ot || !ov) {
        free(ot);
        free(ov);
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        return -1;
    }
    size_t m = 0;
    uint64_t g = (uint64_t)ceil(t[0] * hz);
    for (uint32_t k = 0; k < n; k++) {
        /* the key itself (value = middle element) */
        ot[m] = t[k];
        memcpy(ov + m * (size_t)nc, v + ((size_t)k * 3 + 1) * (size_t)nc, (size_t)nc * sizeof *ov);
        m++;
        if (k + 1 == n) break;
        double td = t[k + 1] - t[k];
        for (;; g++) {
            double tg = (double)g / hz;
            if (tg <= t[k] + 1e-9) continue;
            if (tg >= t[k + 1] - 1e-9) break;
            if (m + 1 >= cap) break;
            const double* p0 = v + ((size_t)k * 3 + 1) * (size_t)nc;
            const double* b0 = v + ((size_t)k * 3 + 2) * (size_t)nc;
            const double* a1 = v + ((size_t)(k + 1) * 3 + 0) * (size_t)nc;
            const double* p1 = v + ((size_t)(k + 1) * 3 + 1) * (size_t)nc;
            hermite(p0, b0, p1, a1, td, (tg - t[k]) / td, nc, ov + m * (size_t)nc);
            ot[m++] = tg;
        }
    }
    *out_t = ot;
    *out_v = ov;
    *out_n = (uint32_t)m;
    return 0;
}

static int read_animation(gl_ctx* c, const cJSON* anim, uint32_t ai, const int32_t* node_to_joint, uint32_t n,
                          const char* clip_name) {
    imp_clip clip;
    memset(&clip, 0, sizeof clip);
    imp_copy_name(clip.name, clip_name, strlen(clip_name));
    char at[48];
    snprintf(at, sizeof at, "animations[%u]", (unsigned)ai);
    const cJSON* samplers = jget(anim, "samplers");
    const cJSON* channels = jget(anim, "channels");
    if (!cJSON_IsArray(samplers) || !cJSON_IsArray(channels)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: 'samplers' and 'channels' must be arrays", at);
        return -1;
    }
    uint32_t ns = jarray_size(samplers);
    uint32_t nj = bsync_skeleton_joint_count(c->asset->skeleton);
    unsigned char* seen = calloc((size_t)nj * 3, 1);
    if (!seen) {
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        return -1;
    }
    uint32_t ign_weights = 0, ign_node = 0, ign_above = 0, ign_dup = 0, ign_path = 0, cubic = 0, steps = 0, ci = 0;
    const cJSON* ch;
    int rc = -1;
    cJSON_ArrayForEach(ch, channels) {
        char cat[96];
        snprintf(cat, sizeof cat, "%s.channels[%u]", at, (unsigned)ci++);
        uint64_t si, node;
        const cJSON* target = jget(ch, "target");
        if (!cJSON_IsObject(ch) || !cJSON_IsObject(target)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: needs a 'target' object", cat);
            goto done;
        }
        if (jreq_uint(c, ch, "sampler", GL_MAX_ITEMS, &si, cat)) goto done;
        if (si >= ns) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: sampler %llu does not exist (%u samplers)", cat,
                     (unsigned long long)si, (unsigned)ns);
            goto done;
        }
        const cJSON* path = jget(target, "path");
        if (!cJSON_IsString(path)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: target.path must be a string", cat);
            goto done;
        }
        bsync_track_kind kind;
        if (!strcmp(path->valuestring, "translation")) kind = BSYNC_TRACK_TRANSLATION;
        else if (!strcmp(path->valuestring, "rotation")) kind = BSYNC_TRACK_ROTATION;
        else if (!strcmp(path->valuestring, "scale")) kind = BSYNC_TRACK_SCALE;
        else if (!strcmp(path->valuestring, "weights")) {
            ign_weights++;
            continue;
        } else {
            ign_path++;
            continue;
        }
        if (!jget(target, "node")) {
            ign_node++;
            continue;
        }
        if (jget_uint(c, target, "node", 0, GL_MAX_NODES, &node, cat)) goto done;
        if (node >= n) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: target.node %llu does not exist", cat,
                     (unsigned long long)node);
            goto done;
        }
        if (node_to_joint[node] < 0) {
            ign_node++;
            if (c->above && c->above[node]) {
                if (c->above_channels == 0) c->above_first = (int32_t)node;
                c->above_channels++;
                ign_above++;
            }
            continue;
        }
        uint32_t joint = (uint32_t)node_to_joint[node];
        if (seen[joint * 3u + (uint32_t)kind]) {
            ign_dup++;
            continue;
        }
        seen[joint * 3u + (uint32_t)kind] = 1;
        const cJSON* sm = cJSON_GetArrayItem(samplers, (int)si);
        char sat[96];
        snprintf(sat, sizeof sat, "%s.samplers[%u]", at, (unsigned)si);
        uint64_t in_acc, out_acc;
        if (!cJSON_IsObject(sm)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: not an object", sat);
            goto done;
        }
        if (jreq_uint(c, sm, "input", GL_MAX_ITEMS, &in_acc, sat) || jreq_uint(c, sm, "output", GL_MAX_ITEMS, &out_acc, sat))
            goto done;
        const cJSON* ip = jget(sm, "interpolation");
        int mode = 0; /* 0 linear, 1 step, 2 cubic */
        if (ip) {
            if (!cJSON_IsString(ip)) mode = -1;
            else if (!strcmp(ip->valuestring, "LINEAR")) mode = 0;
            else if (!strcmp(ip->valuestring, "STEP")) mode = 1;
            else if (!strcmp(ip->valuestring, "CUBICSPLINE")) mode = 2;
            else mode = -1;
        }
        if (mode < 0) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: interpolation must be LINEAR, STEP or CUBICSPLINE", sat);
            goto done;
        }
        double *t = NULL, *v = NULL;
        uint32_t nt = 0, nv = 0;
        int nc = kind == BSYNC_TRACK_ROTATION ? 4 : 3;
        if (read_accessor(c, in_acc, 1, &t, &nt, sat)) goto done;
        if (read_accessor(c, out_acc, nc, &v, &nv, sat)) {
            free(t);
            goto done;
        }
        const char* jname = bsync_skeleton_joint_name(c->asset->skeleton, joint);
        if ((uint64_t)nv != (uint64_t)nt * (mode == 2 ? 3u : 1u)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s (joint '%s'): %u output values for %u input times%s", sat,
                     jname, (unsigned)nv, (unsigned)nt, mode == 2 ? " (CUBICSPLINE needs 3 per time)" : "");
            free(t);
            free(v);
            goto done;
        }
        for (uint32_t k = 0; k < nt; k++) {
            if (t[k] < 0 || (k > 0 && !(t[k] > t[k - 1]))) {
                imp_fail(c->err, t[k] < 0 ? BSYNC_KEY_OUT_OF_RANGE : BSYNC_KEYS_UNSORTED, c->file,
                         "clip '%s', joint '%s': key time %u (%g s) is %s", clip.name, jname, (unsigned)k, t[k],
                         t[k] < 0 ? "negative" : "not after the previous one");
                free(t);
                free(v);
                goto done;
            }
        }
        if (mode == 2) {
            double *rt, *rv;
            uint32_t rn;
            int bad = resample_cubic(c, t, nt, v, nc, &rt, &rv, &rn, sat);
            free(t);
            free(v);
            if (bad) goto done;
            t = rt;
            v = rv;
            nt = rn;
            cubic++;
        }
        if (kind == BSYNC_TRACK_ROTATION) {
            for (uint32_t k = 0; k < nt; k++) {
                const double* q = v + 4 * (size_t)k;
                if (!(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] > 1e-12)) {
                    imp_fail(c->err, BSYNC_BAD_ROTATION, c->file, "clip '%s', joint '%s': rotation key %u is zero",
                             clip.name, jname, (unsigned)k);
                    free(t);
                    free(v);
                    goto done;
                }
            }
            imp_quats_continuous(v, nt);
        }
        if (c->fold && c->fold[joint].on) { /* non-joint ancestors above this joint (see ancestor_fold) */
            const gl_fold* f = &c->fold[joint];
            for (uint32_t k = 0; k < nt; k++) {
                double* x = v + (size_t)nc * k;
                if (kind == BSYNC_TRACK_TRANSLATION) fold_translation(f, x);
                else if (kind == BSYNC_TRACK_ROTATION) fold_rotation(f, x);
                else fold_scale(f, x);
            }
            if (kind == BSYNC_TRACK_ROTATION) imp_quats_continuous(v, nt);
        }
        if (mode == 1) steps++;
        if (!imp_clip_add_track(&clip, joint, kind, nt, t, v, mode == 1)) {
            imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
            goto done;
        }
    }
    if (imp_build_clip(&clip, c->file, c->asset, c->err) != BSYNC_OK) goto done;
    if (ign_above) c->above_clips++;
    if (ign_weights)
        bsync_asset_note(c->asset, "clip '%s': %u morph-target 'weights' channels ignored", clip.name, (unsigned)ign_weights);
    if (ign_node)
        bsync_asset_note(c->asset, "clip '%s': %u channels on nodes outside the skeleton ignored", clip.name,
                         (unsigned)ign_node);
    if (ign_path)
        bsync_asset_note(c->asset, "clip '%s': %u channels with an unknown target.path ignored", clip.name,
                         (unsigned)ign_path);
    if (ign_dup)
        bsync_asset_note(c->asset, "clip '%s': %u duplicate channels (same node and path) ignored", clip.name,
                         (unsigned)ign_dup);
    if (cubic)
        bsync_asset_note(c->asset, "clip '%s': %u CUBICSPLINE tracks resampled at %u Hz", clip.name, (unsigned)cubic,
                         (unsigned)(c->opt && c->opt->resample_hz ? c->opt->resample_hz : BSYNC_IMPORT_DEFAULT_RESAMPLE_HZ));
    if (steps) bsync_asset_note(c->asset, "clip '%s': %u STEP tracks held with one-raw-step keys", clip.name, (unsigned)steps);
    if (clip.track_count == 0) bsync_asset_note(c->asset, "clip '%s' has no joint tracks (it plays the rest pose)", clip.name);
    rc = 0;
done:
    free(seen);
    imp_clip_free(&clip);
    return rc;
}

/* ------------------------------------------------------------------ clip actions in extras */

static bsync_clip_action* act_push(gl_ctx* c, uint32_t clip, bsync_clip_action_kind kind, const char* name) {
    if (c->act_count == c->act_cap) {
        const uint32_t cap = c->act_cap ? 2u * c->act_cap : 16u;
        if (cap > BSYNC_CLIP_FILE_MAX_ACTIONS * 2u) return NULL;
        bsync_clip_action* a = realloc(c->acts, cap * sizeof *a);
        if (a) c->acts = a;
        char(*nm)[BSYNC_MAX_NAME] = realloc(c->act_names, cap * sizeof *nm);
        if (nm) c->act_names = nm;
        fix16_t** k = realloc(c->act_keys, cap * sizeof *k);
        if (k) c->act_keys = k;
        if (!a || !nm || !k) return NULL;
        c->act_cap = cap;
    }
    const uint32_t i = c->act_count++;
    bsync_clip_action* x = &c->acts[i];
    memset(x, 0, sizeof *x);
    memset(c->act_names[i], 0, BSYNC_MAX_NAME);
    c->act_keys[i] = NULL;
    if (strlen(name) < BSYNC_MAX_NAME) memcpy(c->act_names[i], name, strlen(name));
    x->clip = clip;
    x->kind = kind;
    x->name = c->act_names[i]; /* re-pointed before use: the array may move */
    return x;
}

static int ex_fail(gl_ctx* c, const char* at, const char* what) {
    imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "%s: %s", at, what);
    return -1;
}

/* A number of seconds (or a value) as fix16, rounded to nearest. */
static int ex_number(gl_ctx* c, const cJSON* v, const char* at, fix16_t* out) {
    if (!cJSON_IsNumber(v) || bsync_fx_from_double(v->valuedouble, out) != BSYNC_OK)
        return ex_fail(c, at, "expected a number from -32768 to 32767");
    return 0;
}

/* animations[ai].extras: "events" [{"name", "time" | "begin" + "end", "payload"}], "markers" [{"name",
 * "time"}] (sorted here by time), "curves" {"NAME": [[time, value], ...]} — the graph config's syntax,
 * other keys ignored (docs/clip-format.md "glTF extras"). */
static int read_extras(gl_ctx* c, const cJSON* anim, uint32_t ai, uint32_t clip) {
    const cJSON* ex = jget(anim, "extras");
    if (!cJSON_IsObject(ex)) return 0;
    char at[160];
    const cJSON* evs = jget(ex, "events");
    const cJSON* e;
    uint32_t k = 0;
    if (evs && !cJSON_IsArray(evs)) {
        snprintf(at, sizeof at, "animations[%u].extras.events", (unsigned)ai);
        return ex_fail(c, at, "expected an array of {\"name\", \"time\" | \"begin\" + \"end\", \"payload\"}");
    }
    cJSON_ArrayForEach(e, evs) {
        snprintf(at, sizeof at, "animations[%u].extras.events[%u]", (unsigned)ai, (unsigned)k++);
        const cJSON* nm = jget(e, "name");
        if (!cJSON_IsString(nm) || !nm->valuestring[0] || strlen(nm->valuestring) >= BSYNC_MAX_NAME)
            return ex_fail(c, at, "a name of 1 to 63 bytes is needed");
        const int range = jget(e, "begin") != NULL;
        bsync_clip_action* x = act_push(c, clip, range ? BSYNC_CLIP_ACTION_RANGE : BSYNC_CLIP_ACTION_EVENT, nm->valuestring);
        if (!x) return ex_fail(c, at, "too many clip actions (or out of memory)");
        if (ex_number(c, jget(e, range ? "begin" : "time"), at, &x->time)) return -1;
        if (range && ex_number(c, jget(e, "end"), at, &x->end)) return -1;
        const cJSON* pay = jget(e, "payload");
        if (pay) {
            if (!cJSON_IsNumber(pay) || pay->valuedouble != (double)(int32_t)pay->valuedouble ||
                pay->valuedouble < -2147483648.0 || pay->valuedouble > 2147483647.0)
                return ex_fail(c, at, "a payload is a 32-bit integer");
            x->payload = (int32_t)pay->valuedouble;
        }
    }
    const cJSON* mks = jget(ex, "markers");
    if (mks && !cJSON_IsArray(mks)) {
        snprintf(at, sizeof at, "animations[%u].extras.markers", (unsigned)ai);
        return ex_fail(c, at, "expected an array of {\"name\", \"time\"}");
    }
    const uint32_t first_marker = c->act_count;
    k = 0;
    cJSON_ArrayForEach(e, mks) {
        snprintf(at, sizeof at, "animations[%u].extras.markers[%u]", (unsigned)ai, (unsigned)k++);
        const cJSON* nm = jget(e, "name");
        if (!cJSON_IsString(nm) || !nm->valuestring[0] || strlen(nm->valuestring) >= BSYNC_MAX_NAME)
            return ex_fail(c, at, "a name of 1 to 63 bytes is needed");
        bsync_clip_action* x = act_push(c, clip, BSYNC_CLIP_ACTION_MARKER, nm->valuestring);
        if (!x) return ex_fail(c, at, "too many clip actions (or out of memory)");
        if (ex_number(c, jget(e, "time"), at, &x->time)) return -1;
    }
    for (uint32_t i = first_marker + 1; i < c->act_count; i++) /* by time, stable (insertion) */
        for (uint32_t j = i; j > first_marker && c->acts[j].time < c->acts[j - 1].time; j--) {
            bsync_clip_action t = c->acts[j];
            c->acts[j] = c->acts[j - 1];
            c->acts[j - 1] = t;
            char tn[BSYNC_MAX_NAME];
            memcpy(tn, c->act_names[j], BSYNC_MAX_NAME);
            memcpy(c->act_names[j], c->act_names[j - 1], BSYNC_MAX_NAME);
            memcpy(c->act_names[j - 1], tn, BSYNC_MAX_NAME);
        }
    const cJSON* cvs = jget(ex, "curves");
    if (cvs && !cJSON_IsObject(cvs)) {
        snprintf(at, sizeof at, "animations[%u].extras.curves", (unsigned)ai);
        return ex_fail(c, at, "expected an object {\"NAME\": [[time, value], ...]}");
    }
    cJSON_ArrayForEach(e, cvs) {
        snprintf(at, sizeof at, "animations[%u].extras.curves.%.63s", (unsigned)ai, e->string ? e->string : "");
        if (!e->string || !e->string[0] || strlen(e->string) >= BSYNC_MAX_NAME)
            return ex_fail(c, at, "a name of 1 to 63 bytes is needed");
        const uint32_t n = jarray_size(e);
        if (n < 1 || n > 4096u) return ex_fail(c, at, "expected 1 to 4096 keys [time, value]");
        bsync_clip_action* x = act_push(c, clip, BSYNC_CLIP_ACTION_CURVE, e->string);
        if (!x) return ex_fail(c, at, "too many clip actions (or out of memory)");
        fix16_t* keys = malloc(2u * n * sizeof *keys);
        if (!keys) return ex_fail(c, at, "out of memory");
        c->act_keys[c->act_count - 1] = keys;
        x->key_count = n;
        const cJSON* key;
        uint32_t i = 0;
        cJSON_ArrayForEach(key, e) {
            if (jarray_size(key) != 2) return ex_fail(c, at, "a key is [time, value]");
            if (ex_number(c, cJSON_GetArrayItem(key, 0), at, &keys[i]) ||
                ex_number(c, cJSON_GetArrayItem(key, 1), at, &keys[n + i]))
                return -1;
            i++;
        }
    }
    return 0;
}

/* The actions read from extras, to the asset (checked there) when `attach`, then the scratch freed. */
static int attach_extras(gl_ctx* c, int attach) {
    int rc = 0;
    if (attach && c->act_count > 0) {
        for (uint32_t i = 0; i < c->act_count; i++) { /* the arrays may have moved while growing */
            c->acts[i].name = c->act_names[i];
            if (c->act_keys[i]) {
                c->acts[i].key_times = c->act_keys[i];
                c->acts[i].key_values = c->act_keys[i] + c->acts[i].key_count;
            }
        }
        rc = imp_attach_actions(c->asset, c->acts, c->act_count, c->file, c->err) == BSYNC_OK ? 0 : -1;
        if (rc == 0)
            bsync_asset_note(c->asset, "%u clip actions (events, ranges, markers, curves) read from animation extras",
                             (unsigned)c->act_count);
    }
    for (uint32_t i = 0; i < c->act_count; i++) free(c->act_keys[i]);
    free(c->acts);
    free(c->act_names);
    free(c->act_keys);
    c->acts = NULL;
    c->act_names = NULL;
    c->act_keys = NULL;
    c->act_count = c->act_cap = 0;
    return rc;
}

static int read_animations(gl_ctx* c, const int32_t* node_to_joint, uint32_t n) {
    const cJSON* anims = jget(c->root, "animations");
    if (anims && !cJSON_IsArray(anims)) {
        imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "'animations' is not an array");
        return -1;
    }
    uint32_t na = jarray_size(anims);
    if (na > BSYNC_IMPORT_MAX_CLIPS) {
        imp_fail(c->err, BSYNC_LIMIT_EXCEEDED, c->file, "%u animations (at most %u)", (unsigned)na,
                 (unsigned)BSYNC_IMPORT_MAX_CLIPS);
        return -1;
    }
    char (*names)[BSYNC_MAX_NAME] = calloc(na ? na : 1, BSYNC_MAX_NAME);
    if (!names) {
        imp_fail(c->err, BSYNC_OUT_OF_MEMORY, c->file, "out of memory");
        return -1;
    }
    uint32_t i = 0, cut = 0, dups = 0;
    const cJSON* a;
    cJSON_ArrayForEach(a, anims) {
        const cJSON* nm = jget(a, "name");
        if (cJSON_IsString(nm) && nm->valuestring[0]) cut += (uint32_t)imp_copy_name(names[i], nm->valuestring, strlen(nm->valuestring));
        else snprintf(names[i], BSYNC_MAX_NAME, "animation%u", (unsigned)i);
        for (uint32_t k = 0; k < i; k++)
            if (!strcmp(names[k], names[i])) {
                char suffix[16];
                snprintf(suffix, sizeof suffix, "#%u", (unsigned)i);
                size_t sl = strlen(suffix), nl = strlen(names[i]);
                if (nl + sl > BSYNC_MAX_NAME - 1) nl = BSYNC_MAX_NAME - 1 - sl;
                memcpy(names[i] + nl, suffix, sl + 1);
                dups++;
                break;
            }
        i++;
    }
    if (cut) bsync_asset_note(c->asset, "%u animation names longer than 63 bytes were shortened", (unsigned)cut);
    if (dups) bsync_asset_note(c->asset, "%u duplicate animation names got a #<index> suffix", (unsigned)dups);
    i = 0;
    int rc = 0;
    cJSON_ArrayForEach(a, anims) {
        if (!cJSON_IsObject(a)) {
            imp_fail(c->err, BSYNC_BAD_BLOB, c->file, "animations[%u]: not an object", (unsigned)i);
            rc = -1;
            break;
        }
        const uint32_t before = c->asset->clip_count;
        if (imp_clip_wanted(c->opt, names[i]) && read_animation(c, a, i, node_to_joint, n, names[i])) {
            rc = -1;
            break;
        }
        if (c->asset->clip_count == before + 1u && read_extras(c, a, i, before)) {
            rc = -1;
            break;
        }
        i++;
    }
    free(names);
    if (attach_extras(c, rc == 0)) rc = -1;
    if (rc == 0 && c->above_channels) {
        const cJSON* nm = jget(cJSON_GetArrayItem(jget(c->root, "nodes"), (int)c->above_first), "name");
        char first[80];
        if (cJSON_IsString(nm)) snprintf(first, sizeof first, "'%.60s'", nm->valuestring);
        else snprintf(first, sizeof first, "nodes[%u]", (unsigned)c->above_first);
        bsync_asset_note(c->asset,
                         "%u channels in %u clips animate non-joint nodes above the skeleton's joints (first: %s); "
                         "they are ignored: the joints below them see those nodes' rest transforms (folded in when "
                         "not identity)",
                         (unsigned)c->above_channels, (unsigned)c->above_clips, first);
    }
    return rc;
}

/* ------------------------------------------------------------------ entry points */

bsync_result bsync_gltf_import_memory(const void* data, size_t size, const char* name, const char* base_dir,
                                      const bsync_import_options* options, bsync_asset* out, bsync_error* err) {
    if (!out) return imp_fail(err, BSYNC_INVALID_ARGUMENT, name, "no output asset");
    memset(out, 0, sizeof *out);
    if (!data) return imp_fail(err, BSYNC_INVALID_ARGUMENT, name, "no data");
    if (!name) name = "(memory)";
    gl_ctx c;
    memset(&c, 0, sizeof c);
    c.file = name;
    c.base_dir = base_dir;
    c.err = err;
    c.asset = out;
    c.opt = options;
    const unsigned char* p = data;
    const char* json = (const char*)data;
    size_t json_len = size;
    if (size >= 4 && bsync_le_get32(p) == 0x46546C67u) { /* "glTF" */
        c.is_glb = 1;
        if (size < 20) return imp_fail(err, BSYNC_PARSE_ERROR, name, "GLB shorter than its 20-byte header");
        uint32_t version = bsync_le_get32(p + 4), length = bsync_le_get32(p + 8);
        if (version != 2) return imp_fail(err, BSYNC_PARSE_ERROR, name, "GLB version %u (only 2 is supported)", (unsigned)version);
        if (length > size || length < 20)
            return imp_fail(err, BSYNC_PARSE_ERROR, name, "GLB header length %u but the file has %zu bytes",
                            (unsigned)length, size);
        uint32_t clen = bsync_le_get32(p + 12), ctype = bsync_le_get32(p + 16);
        if (ctype != 0x4E4F534Au || clen > length - 20)
            return imp_fail(err, BSYNC_PARSE_ERROR, name, "GLB first chunk is not a JSON chunk inside the file");
        json = (const char*)p + 20;
        json_len = clen;
        size_t off = 20 + (size_t)clen;
        off = (off + 3) & ~(size_t)3;
        while (off + 8 <= length) {
            uint32_t blen = bsync_le_get32(p + off), btype = bsync_le_get32(p + off + 4);
            if (blen > length - off - 8)
                return imp_fail(err, BSYNC_PARSE_ERROR, name, "GLB chunk at byte %zu runs past the end", off);
            if (btype == 0x004E4942u && !c.bin) {
                c.bin = p + off + 8;
                c.bin_size = blen;
            }
            off = (off + 8 + (size_t)blen + 3) & ~(size_t)3;
        }
    }
    c.root = cJSON_ParseWithLength(json, json_len);
    if (!c.root || !cJSON_IsObject(c.root)) {
        cJSON_Delete(c.root);
        return imp_fail(err, BSYNC_PARSE_ERROR, name, "not valid glTF JSON");
    }
    bsync_result result = BSYNC_OK;
    gl_node* g = NULL;
    int32_t* n2j = NULL;
    uint32_t n = 0;
    const cJSON* asset_j = jget(c.root, "asset");
    const cJSON* ver = jget(asset_j, "version");
    if (!cJSON_IsString(ver) || strncmp(ver->valuestring, "2.", 2) != 0) {
        result = imp_fail(err, BSYNC_PARSE_ERROR, name, "asset.version must be \"2.x\" (glTF 2.0)");
        goto done;
    }
    snprintf(out->source, sizeof out->source, "%.100s: glTF %.10s%s (metres, Y up)", imp_basename(name),
             ver->valuestring, c.is_glb ? " binary" : "");
    const cJSON* bufs = jget(c.root, "buffers");
    if (bufs && !cJSON_IsArray(bufs)) {
        result = imp_fail(err, BSYNC_BAD_BLOB, name, "'buffers' is not an array");
        goto done;
    }
    c.buffer_count = jarray_size(bufs);
    if (c.buffer_count > GL_MAX_ITEMS) {
        result = imp_fail(err, BSYNC_LIMIT_EXCEEDED, name, "too many buffers");
        goto done;
    }
    c.buffers = calloc(c.buffer_count ? c.buffer_count : 1, sizeof *c.buffers);
    if (!c.buffers) {
        result = imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
        goto done;
    }
    if (read_nodes(&c, &g, &n)) goto fail;
    n2j = malloc((size_t)(n ? n : 1) * sizeof *n2j);
    if (!n2j) {
        result = imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
        goto done;
    }
    if (build_skeleton(&c, g, n, n2j)) goto fail;
    if (read_animations(&c, n2j, n)) goto fail;
    goto done;
fail:
    result = err ? err->code : BSYNC_BAD_BLOB;
    if (result == BSYNC_OK) result = BSYNC_BAD_BLOB;
done:
    for (uint32_t i = 0; c.buffers && i < c.buffer_count; i++) free(c.buffers[i].owned);
    free(c.buffers);
    free(g);
    free(n2j);
    free(c.fold);
    free(c.above);
    cJSON_Delete(c.root);
    if (result != BSYNC_OK) bsync_asset_destroy(out);
    return result;
}

bsync_result bsync_gltf_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                    bsync_error* err) {
    unsigned char* data;
    size_t size;
    bsync_result r = imp_read_input(options, path, out, &data, &size, err);
    if (r != BSYNC_OK) return r;
    /* folder of the file, for external buffers */
    const char* base = imp_basename(path);
    size_t dl = (size_t)(base - path);
    char* dir = malloc(dl + 2);
    if (!dir) {
        free(data);
        return imp_fail(err, BSYNC_OUT_OF_MEMORY, path, "out of memory");
    }
    if (dl == 0) {
        dir[0] = '.';
        dir[1] = '\0';
    } else {
        memcpy(dir, path, dl - 1);
        dir[dl - 1] = '\0';
        if (dl == 1) { dir[0] = '/'; dir[1] = '\0'; }
    }
    r = bsync_gltf_import_memory(data, size, path, dir, options, out, err);
    free(dir);
    free(data);
    return r;
}
