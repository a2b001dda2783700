/* gltf_write.c — a skeleton and a pose sequence as a binary glTF 2.0 file (io/gltf_write.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/io/gltf_write.h"

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

static void put_u32(unsigned char* p, uint32_t v) {
    p[0] = (unsigned char)(v & 0xFFu);
    p[1] = (unsigned char)((v >> 8) & 0xFFu);
    p[2] = (unsigned char)((v >> 16) & 0xFFu);
    p[3] = (unsigned char)((v >> 24) & 0xFFu);
}

static void put_f32(unsigned char* p, float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(p, u);
}

bsync_result bsync_gltf_write_glb_memory(const bsync_gltf_bake* bake, unsigned char** out, size_t* out_size,
                                         bsync_error* err) {
    if (!bake || !out || !out_size || !bake->skeleton || !bake->poses)
        return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: NULL argument");
    *out = NULL;
    *out_size = 0;
    if (bake->key_count < 1) return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: no keys to write");
    if (bake->tick_rate < 1 || bake->tick_rate > 1000)
        return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: tick rate %u outside 1..1000", (unsigned)bake->tick_rate);
    const bsync_skeleton* sk = bake->skeleton;
    const uint32_t jc = bsync_skeleton_joint_count(sk);
    const uint64_t kc = bake->key_count;
    if (jc < 1) return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: the skeleton has no joints");
    /* BIN: times (4 kc), then per joint translation 12 kc, rotation 16 kc, scale 12 kc. */
    const uint64_t bin64 = 4 * kc + (uint64_t)jc * 40 * kc;
    if (bin64 > GLB_LIMIT / 2)
        return wfail(err, BSYNC_LIMIT_EXCEEDED, "glTF writer: %u joints x %u keys need %llu bytes of data (limit %u)",
                     (unsigned)jc, (unsigned)kc, (unsigned long long)bin64, GLB_LIMIT / 2);
    const size_t bin_len = (size_t)bin64;

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
    const float t_last = (float)((double)(kc - 1) / (double)bake->tick_rate);
    sb_printf(&js,
              "],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%u,\"type\":\"SCALAR\","
              "\"min\":[0],\"max\":[%.17g]}",
              (unsigned)kc, (double)t_last);
    for (uint32_t v = 1; v < 1 + 3 * jc; v++)
        sb_printf(&js, ",{\"bufferView\":%u,\"componentType\":5126,\"count\":%u,\"type\":\"%s\"}", (unsigned)v,
                  (unsigned)kc, (v - 1) % 3 == 1 ? "VEC4" : "VEC3");
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
    sb_printf(&js, "]}]}");
    if (js.oom) {
        free(js.p);
        return wfail(err, BSYNC_OUT_OF_MEMORY, "glTF writer: out of memory");
    }
    const size_t json_pad = (js.n + 3) & ~(size_t)3, bin_pad = (bin_len + 3) & ~(size_t)3;
    const uint64_t total = 12 + 8 + (uint64_t)json_pad + 8 + (uint64_t)bin_pad;
    if (total > GLB_LIMIT) {
        free(js.p);
        return wfail(err, BSYNC_LIMIT_EXCEEDED, "glTF writer: the file would be %llu bytes (limit %u)",
                     (unsigned long long)total, GLB_LIMIT);
    }
    unsigned char* g = (unsigned char*)calloc(1, (size_t)total);
    if (!g) {
        free(js.p);
        return wfail(err, BSYNC_OUT_OF_MEMORY, "glTF writer: out of memory");
    }
    put_u32(g, BSYNC_GLB_MAGIC);
    put_u32(g + 4, 2);
    put_u32(g + 8, (uint32_t)total);
    put_u32(g + 12, (uint32_t)json_pad);
    put_u32(g + 16, BSYNC_GLB_CHUNK_JSON);
    memcpy(g + 20, js.p, js.n);
    memset(g + 20 + js.n, ' ', json_pad - js.n);
    free(js.p);
    unsigned char* bc = g + 20 + json_pad;
    put_u32(bc, (uint32_t)bin_pad);
    put_u32(bc + 4, BSYNC_GLB_CHUNK_BIN);
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
    *out = g;
    *out_size = (size_t)total;
    return BSYNC_OK;
}

bsync_result bsync_gltf_write_glb_file(const char* path, const bsync_gltf_bake* bake, bsync_error* err) {
    if (!path) return wfail(err, BSYNC_INVALID_ARGUMENT, "glTF writer: NULL path");
    unsigned char* g = NULL;
    size_t size = 0;
    bsync_result r = bsync_gltf_write_glb_memory(bake, &g, &size, err);
    if (r != BSYNC_OK) return r;
    size_t pl = strlen(path);
    char* tmp = (char*)malloc(pl + 32);
    if (!tmp) {
        free(g);
        return wfail(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    snprintf(tmp, pl + 32, "%s.tmp.%ld", path, (long)getpid());
    FILE* f = fopen(tmp, "wb");
    int ok = f != NULL;
    if (ok) ok = fwrite(g, 1, size, f) == size;
    if (f && fclose(f) != 0) ok = 0;
    if (ok) ok = rename(tmp, path) == 0;
    if (!ok) remove(tmp);
    free(tmp);
    free(g);
    if (!ok) return wfail(err, BSYNC_IO_ERROR, "%s: cannot write the file", path);
    return BSYNC_OK;
}
