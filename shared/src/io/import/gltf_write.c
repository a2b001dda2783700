/* gltf_write.c — a skeleton and a pose sequence as a binary glTF 2.0 file (io/gltf_write.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/io/file.h"
#include "blendsync/io/gltf_write.h"
#include "internal/le.h"

#define GLB_LIMIT 0x7FFFFFFFu

static bsync_result wfail(bsync_error* err, bsync_result code, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static bsync_result wfail(bsync_error* err, bsync_result code, const char* fmt, ...) {
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

typedef struct sbuf {
    char* p;
    size_t n, cap;
    int oom;
} sbuf;

static void sb_reserve(sbuf* b, size_t more) {
    if (b->oom) return;
    if (b->n + more + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->n + more + 1) cap *= 2;
    char* q = (char*)realloc(b->p, cap);
    if (!q) {
        b->oom = 1;
        return;
    }
    b->p = q;
    b->cap = cap;
}

static void sb_printf(sbuf* b, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf* b, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int need = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (need < 0) {
        b->oom = 1;
        return;
    }
    sb_reserve(b, (size_t)need);
    if (b->oom) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)need + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)need;
}

static void sb_string(sbuf* b, const char* s) {
    sb_printf(b, "\"");
    for (const unsigned char* c = (const unsigned char*)s; *c; c++) {
        if (*c == '"' || *c == '\\') sb_printf(b, "\\%c", *c);
        else if (*c < 0x20) sb_printf(b, "\\u%04x", *c);
        else sb_printf(b, "%c", *c);
    }
    sb_printf(b, "\"");
}

static float fx_float(fix16_t v) { return (float)bsync_fx_to_double(v); }

static void put_f32(unsigned char* p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    bsync_le_put32(p, u);
}

/* Rest model matrices -> inverse bind matrices (double), 16 per joint, column-major. Returns the
 * first joint whose matrix is singular, or -1. */
static int32_t inverse_bind_matrices(const bsync_skeleton* sk, double* ibm) {
    const uint32_t jc = bsync_skeleton_joint_count(sk);
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    for (uint32_t j = 0; j < jc; j++) {
        const bsync_trs* r = &rest[j];
        double qx = bsync_fx_to_double(r->r.x), qy = bsync_fx_to_double(r->r.y), qz = bsync_fx_to_double(r->r.z),
               qw = bsync_fx_to_double(r->r.w);
        double qn = sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
        if (qn > 0) {
            qx /= qn;
            qy /= qn;
            qz /= qn;
            qw /= qn;
        } else {
            qw = 1;
        }
        const double s[3] = {bsync_fx_to_double(r->s.x), bsync_fx_to_double(r->s.y), bsync_fx_to_double(r->s.z)};
        /* local linear part L = R * diag(s), row-major l[row][col]; translation t */
        double rm[3][3] = {{1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw)},
                           {2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw)},
                           {2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy)}};
        double l[3][3], t[3] = {bsync_fx_to_double(r->t.x), bsync_fx_to_double(r->t.y), bsync_fx_to_double(r->t.z)};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++) l[a][b] = rm[a][b] * s[b];
        /* model = parent model * local, row-major 3x4, kept in the second half of ibm (parents come
         * before children, so the parent's is there already) */
        double* m = ibm + 16 * (size_t)jc + 16 * (size_t)j;
        int32_t p = bsync_skeleton_parent(sk, j);
        if (p < 0) {
            for (int a = 0; a < 3; a++) {
                for (int b = 0; b < 3; b++) m[4 * a + b] = l[a][b];
                m[4 * a + 3] = t[a];
            }
        } else {
            const double* pm = ibm + 16 * (size_t)jc + 16 * (size_t)p; /* the parent's model */
            for (int a = 0; a < 3; a++) {
                for (int b = 0; b < 3; b++)
                    m[4 * a + b] = pm[4 * a] * l[0][b] + pm[4 * a + 1] * l[1][b] + pm[4 * a + 2] * l[2][b];
                m[4 * a + 3] = pm[4 * a] * t[0] + pm[4 * a + 1] * t[1] + pm[4 * a + 2] * t[2] + pm[4 * a + 3];
            }
        }
    }
    for (uint32_t j = 0; j < jc; j++) {
        const double* m = ibm + 16 * (size_t)jc + 16 * (size_t)j;
        const double a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
        const double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
        const double det = a * A + b * B + c * C;
        if (!(fabs(det) >= 1e-12)) return (int32_t)j;
        /* inverse linear part (row-major) */
        const double inv[3][3] = {{A / det, -(b * i - c * h) / det, (b * f - c * e) / det},
                                  {B / det, (a * i - c * g) / det, -(a * f - c * d) / det},
                                  {C / det, -(a * h - b * g) / det, (a * e - b * d) / det}};
        double it[3];
        for (int r = 0; r < 3; r++) it[r] = -(inv[r][0] * m[3] + inv[r][1] * m[7] + inv[r][2] * m[11]);
        double* o = ibm + 16 * (size_t)j; /* column-major: o[4 * col + row] */
        for (int col = 0; col < 3; col++) {
            for (int r = 0; r < 3; r++) o[4 * col + r] = inv[r][col];
            o[4 * col + 3] = 0;
        }
        for (int r = 0; r < 3; r++) o[12 + r] = it[r];
        o[15] = 1;
    }
    return -1;
}

bsync_result bsync_gltf_write_glb_memory(const bsync_gltf_bake* bake, unsigned char** out, size_t* out_size,
                                         bsync_error* err) {
    return bsync_gltf_write_glb_memory_ex(bake, 0, out, out_size, err);
}

bsync_result bsync_gltf_write_glb_memory_ex(const bsync_gltf_bake* bake, uint32_t flags, unsigned char** out,
                                            size_t* out_size, bsync_error* err) {
    if (!bake || !out || !out_size || !bake->skeleton || !bake->poses)
        return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: NULL argument");
    *out = NULL;
    *out_size = 0;
    if (flags & ~BSYNC_GLTF_WRITE_SKIN)
        return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: unknown flags 0x%x", (unsigned)flags);
    const int skin = (flags & BSYNC_GLTF_WRITE_SKIN) != 0;
    if (bake->key_count < 1) return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: no keys to write");
    if (bake->tick_rate < BSYNC_MIN_TICK_RATE || bake->tick_rate > BSYNC_MAX_TICK_RATE)
        return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: tick rate %u outside %d..%d", (unsigned)bake->tick_rate,
                     BSYNC_MIN_TICK_RATE, BSYNC_MAX_TICK_RATE);
    const bsync_skeleton* sk = bake->skeleton;
    const uint32_t jc = bsync_skeleton_joint_count(sk);
    const uint64_t kc = bake->key_count;
    if (jc < 1) return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: the skeleton has no joints");
    /* BIN: times (4 kc), then per joint translation 12 kc, rotation 16 kc, scale 12 kc. */
    const uint64_t anim64 = 4 * kc + (uint64_t)jc * 40 * kc;
    const uint64_t bin64 = anim64 + (skin ? 64ull * jc : 0); /* + inverse bind matrices */
    if (bin64 > GLB_LIMIT / 2)
        return wfail(err, BSYNC_LIMIT_EXCEEDED, "glTF writer: %u joints x %u keys need %llu bytes of data (limit %u)",
                     (unsigned)jc, (unsigned)kc, (unsigned long long)bin64, GLB_LIMIT / 2);
    const size_t bin_len = (size_t)bin64;
    double* ibm = NULL;
    if (skin) {
        ibm = (double*)malloc(32 * (size_t)jc * sizeof(double));
        if (!ibm) return wfail(err, BSYNC_OUT_OF_MEMORY, "glTF writer: out of memory");
        int32_t bad = inverse_bind_matrices(sk, ibm);
        if (bad >= 0) {
            free(ibm);
            return wfail(err, BSYNC_INVALID_ARGUMENT,
                         "glTF writer: joint '%s' has a singular rest model matrix (a zero scale?): no inverse bind "
                         "matrix", bsync_skeleton_joint_name(sk, (uint32_t)bad));
        }
    }

    sbuf js = {NULL, 0, 0, 0};
    sb_printf(&js, "{\"asset\":{\"version\":\"2.0\",\"generator\":");
    sb_string(&js, bake->generator ? bake->generator : "blendsync");
    sb_printf(&js, "},\"scene\":0,\"scenes\":[{\"nodes\":[");
    int first = 1;
    for (uint32_t j = 0; j < jc; j++)
        if (bsync_skeleton_parent(sk, j) < 0) {
            sb_printf(&js, "%s%u", first ? "" : ",", (unsigned)j);
            first = 0;
        }
    sb_printf(&js, "]}],\"nodes\":[");
    const bsync_trs* rest = bsync_skeleton_rest_pose(sk);
    for (uint32_t j = 0; j < jc; j++) {
        sb_printf(&js, "%s{\"name\":", j ? "," : "");
        sb_string(&js, bsync_skeleton_joint_name(sk, j));
        first = 1;
        for (uint32_t c = j + 1; c < jc; c++)
            if (bsync_skeleton_parent(sk, c) == (int32_t)j) {
                sb_printf(&js, "%s%u", first ? ",\"children\":[" : ",", (unsigned)c);
                first = 0;
            }
        if (!first) sb_printf(&js, "]");
        const bsync_trs* r = &rest[j];
        sb_printf(&js,
                  ",\"translation\":[%.9g,%.9g,%.9g],\"rotation\":[%.9g,%.9g,%.9g,%.9g],\"scale\":[%.9g,%.9g,%.9g]}",
                  (double)fx_float(r->t.x), (double)fx_float(r->t.y), (double)fx_float(r->t.z),
                  (double)fx_float(r->r.x), (double)fx_float(r->r.y), (double)fx_float(r->r.z),
                  (double)fx_float(r->r.w), (double)fx_float(r->s.x), (double)fx_float(r->s.y),
                  (double)fx_float(r->s.z));
    }
    sb_printf(&js, "],\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[", bin_len);
    size_t off = 0;
    for (uint32_t v = 0; v < 1 + 3 * jc; v++) {
        size_t el = v == 0 ? 4 : ((v - 1) % 3 == 1 ? 16 : 12);
        size_t len = el * (size_t)kc;
        sb_printf(&js, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", v ? "," : "", off, len);
        off += len;
    }
    if (skin) sb_printf(&js, ",{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}", off, (size_t)64 * jc);
    const float t_last = (float)((double)(kc - 1) / (double)bake->tick_rate);
    sb_printf(&js,
              "],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"SCALAR\","
              "\"min\":[0],\"max\":[%.17g]}",
              (unsigned)kc, (double)t_last);
    for (uint32_t v = 1; v < 1 + 3 * jc; v++)
        sb_printf(&js, ",{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"%s\"}", (unsigned)v,
                  (unsigned)kc, (v - 1) % 3 == 1 ? "VEC4" : "VEC3");
    if (skin)
        sb_printf(&js, ",{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"MAT4\"}",
                  (unsigned)(1 + 3 * jc), (unsigned)jc);
    sb_printf(&js, "],\"animations\":[{\"name\":");
    sb_string(&js, bake->name ? bake->name : "bake");
    sb_printf(&js, ",\"samplers\":[");
    for (uint32_t s = 0; s < 3 * jc; s++)
        sb_printf(&js, "%s{\"input\":0,\"interpolation\":\"LINEAR\",\"output\":%u}", s ? "," : "", (unsigned)(s + 1));
    sb_printf(&js, "],\"channels\":[");
    static const char* const paths[3] = {"translation", "rotation", "scale"};
    for (uint32_t s = 0; s < 3 * jc; s++)
        sb_printf(&js, "%s{\"sampler\":%u,\"target\":{\"node\":%u,\"path\":\"%s\"}}", s ? "," : "", (unsigned)s,
                  (unsigned)(s / 3), paths[s % 3]);
    sb_printf(&js, "]}]");
    if (skin) {
        sb_printf(&js, ",\"skins\":[{\"name\":\"skeleton\",\"inverseBindMatrices\":%u", (unsigned)(1 + 3 * jc));
        uint32_t roots = 0, root = 0;
        for (uint32_t j = 0; j < jc; j++)
            if (bsync_skeleton_parent(sk, j) < 0) {
                if (!roots) root = j;
                roots++;
            }
        if (roots == 1) sb_printf(&js, ",\"skeleton\":%u", (unsigned)root);
        sb_printf(&js, ",\"joints\":[");
        for (uint32_t j = 0; j < jc; j++) sb_printf(&js, "%s%u", j ? "," : "", (unsigned)j);
        sb_printf(&js, "]}]");
    }
    sb_printf(&js, "}");
    if (js.oom) {
        free(ibm);
        free(js.p);
        return wfail(err, BSYNC_OUT_OF_MEMORY, "glTF writer: out of memory");
    }
    const size_t json_pad = (js.n + 3) & ~(size_t)3, bin_pad = (bin_len + 3) & ~(size_t)3;
    const uint64_t total = 12 + 8 + (uint64_t)json_pad + 8 + (uint64_t)bin_pad;
    if (total > GLB_LIMIT) {
        free(ibm);
        free(js.p);
        return wfail(err, BSYNC_LIMIT_EXCEEDED, "glTF writer: the file would be %llu bytes (limit %u)",
                     (unsigned long long)total, GLB_LIMIT);
    }
    unsigned char* g = (unsigned char*)calloc(1, (size_t)total);
    if (!g) {
        free(ibm);
        free(js.p);
        return wfail(err, BSYNC_OUT_OF_MEMORY, "glTF writer: out of memory");
    }
    bsync_le_put32(g, BSYNC_GLB_MAGIC);
    bsync_le_put32(g + 4, 2);
    bsync_le_put32(g + 8, (uint32_t)total);
    bsync_le_put32(g + 12, (uint32_t)json_pad);
    bsync_le_put32(g + 16, BSYNC_GLB_CHUNK_JSON);
    memcpy(g + 20, js.p, js.n);
    memset(g + 20 + js.n, ' ', json_pad - js.n);
    free(js.p);
    unsigned char* bc = g + 20 + json_pad;
    bsync_le_put32(bc, (uint32_t)bin_pad);
    bsync_le_put32(bc + 4, BSYNC_GLB_CHUNK_BIN);
    unsigned char* d = bc + 8; /* padding stays zero (calloc) */
    for (uint64_t k = 0; k < kc; k++) put_f32(d + 4 * k, (float)((double)k / (double)bake->tick_rate));
    d += 4 * kc;
    for (uint32_t j = 0; j < jc; j++) {
        unsigned char* tp = d;
        unsigned char* rp = d + 12 * kc;
        unsigned char* sp = d + 28 * kc;
        bsync_quat prev = {0, 0, 0, 0};
        for (uint64_t k = 0; k < kc; k++) {
            const bsync_trs* p = &bake->poses[k * jc + j];
            bsync_quat q = p->r;
            /* each product >> 2 so the sum of four stays in range for any raw values */
            int64_t dot = bsync_i64_asr((int64_t)q.x * prev.x, 2) + bsync_i64_asr((int64_t)q.y * prev.y, 2) +
                          bsync_i64_asr((int64_t)q.z * prev.z, 2) + bsync_i64_asr((int64_t)q.w * prev.w, 2);
            if (k > 0 && dot < 0 && q.x != INT32_MIN && q.y != INT32_MIN && q.z != INT32_MIN && q.w != INT32_MIN) {
                q.x = -q.x;
                q.y = -q.y;
                q.z = -q.z;
                q.w = -q.w;
            }
            prev = q;
            put_f32(tp + 12 * k, fx_float(p->t.x));
            put_f32(tp + 12 * k + 4, fx_float(p->t.y));
            put_f32(tp + 12 * k + 8, fx_float(p->t.z));
            put_f32(rp + 16 * k, fx_float(q.x));
            put_f32(rp + 16 * k + 4, fx_float(q.y));
            put_f32(rp + 16 * k + 8, fx_float(q.z));
            put_f32(rp + 16 * k + 12, fx_float(q.w));
            put_f32(sp + 12 * k, fx_float(p->s.x));
            put_f32(sp + 12 * k + 4, fx_float(p->s.y));
            put_f32(sp + 12 * k + 8, fx_float(p->s.z));
        }
        d += 40 * kc;
    }
    if (skin) {
        for (uint32_t j = 0; j < jc; j++)
            for (int e = 0; e < 16; e++) {
                /* the last row (elements 3, 7, 11, 15) is (0, 0, 0, 1) exactly */
                float f = (e & 3) == 3 ? (e == 15 ? 1.0f : 0.0f) : (float)ibm[16 * (size_t)j + (size_t)e];
                put_f32(d + 64 * (size_t)j + 4 * (size_t)e, f);
            }
        free(ibm);
    }
    *out = g;
    *out_size = (size_t)total;
    return BSYNC_OK;
}

bsync_result bsync_gltf_write_glb_file(const char* path, const bsync_gltf_bake* bake, bsync_error* err) {
    return bsync_gltf_write_glb_file_ex(path, bake, 0, err);
}

bsync_result bsync_gltf_write_glb_file_ex(const char* path, const bsync_gltf_bake* bake, uint32_t flags,
                                          bsync_error* err) {
    if (!path) return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: NULL path");
    unsigned char* g = NULL;
    size_t size = 0;
    bsync_result r = bsync_gltf_write_glb_memory_ex(bake, flags, &g, &size, err);
    if (r != BSYNC_OK) return r;
    r = bsync_file_write(path, g, size);
    free(g);
    if (r == BSYNC_OUT_OF_MEMORY) return wfail(err, r, "%s: out of memory", path);
    if (r != BSYNC_OK) return wfail(err, BSYNC_IO_ERROR, "%s: cannot write the file", path);
    return BSYNC_OK;
}
