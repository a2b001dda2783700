/* clip.c — the clip block: validation against a skeleton, layout, build, accessors.
 * The layout is described in internal/clip_block.h (shared with sample.c). */
#include "blendsync/clip.h"
#include "internal/block.h"
#include "internal/clip_block.h"

#define CLIP_MAX_TOTAL_KEYS ((uint64_t)1 << 24) /* total keys must stay below this */


static int quat_is_zero(bsync_quat q) { return q.x == 0 && q.y == 0 && q.z == 0 && q.w == 0; }

static size_t value_size(uint32_t kind) {
    return kind == BSYNC_TRACK_ROTATION ? sizeof(bsync_quat) : sizeof(bsync_vec3);
}

/* Length of the clip name (NULL -> 0); BSYNC_MAX_NAME when too long. Reads at most BSYNC_MAX_NAME bytes. */
static size_t clip_name_length(const char* name) {
    if (!name) return 0;
    for (size_t i = 0; i < BSYNC_MAX_NAME; i++)
        if (name[i] == '\0') return i;
    return BSYNC_MAX_NAME;
}

static bsync_result validate_and_size(const bsync_clip_desc* desc, const bsync_skeleton* skeleton, size_t* out_size) {
    if (!desc || !skeleton) return BSYNC_INVALID_ARGUMENT;
    const uint32_t joint_count = bsync_skeleton_joint_count(skeleton);
    if (joint_count == 0 || joint_count > BSYNC_MAX_JOINTS) return BSYNC_INVALID_ARGUMENT;
    if (desc->duration < 0) return BSYNC_BAD_DURATION;
    if (clip_name_length(desc->name) >= BSYNC_MAX_NAME) return BSYNC_BAD_NAME;
    if (desc->track_count > 0 && !desc->tracks) return BSYNC_INVALID_ARGUMENT;

    unsigned char seen[(BSYNC_MAX_JOINTS * 3 + 7) / 8];
    for (size_t i = 0; i < sizeof seen; i++) seen[i] = 0;
    uint64_t total_keys = 0;
    size_t data_bytes = 0;
    for (uint32_t i = 0; i < desc->track_count; i++) {
        const bsync_raw_track* t = &desc->tracks[i];
        if (t->kind != BSYNC_TRACK_TRANSLATION && t->kind != BSYNC_TRACK_ROTATION && t->kind != BSYNC_TRACK_SCALE)
            return BSYNC_INVALID_ARGUMENT;
        if (t->key_count == 0 || !t->times) return BSYNC_INVALID_ARGUMENT;
        if (t->kind == BSYNC_TRACK_ROTATION ? !t->quats : !t->vec3s) return BSYNC_INVALID_ARGUMENT;
        if (t->joint >= joint_count) return BSYNC_NO_SUCH_JOINT;
        uint32_t slot = t->joint * 3u + (uint32_t)t->kind;
        if (seen[slot >> 3] & (1u << (slot & 7u))) return BSYNC_DUPLICATE_TRACK;
        seen[slot >> 3] = (unsigned char)(seen[slot >> 3] | (1u << (slot & 7u)));
        total_keys += t->key_count;
        if (total_keys >= CLIP_MAX_TOTAL_KEYS) return BSYNC_LIMIT_EXCEEDED;
        for (uint32_t k = 0; k < t->key_count; k++) {
            if (t->times[k] < 0 || t->times[k] > desc->duration) return BSYNC_KEY_OUT_OF_RANGE;
            if (k > 0 && t->times[k] <= t->times[k - 1]) return BSYNC_KEYS_UNSORTED;
        }
        if (t->kind == BSYNC_TRACK_ROTATION)
            for (uint32_t k = 0; k < t->key_count; k++)
                if (quat_is_zero(t->quats[k])) return BSYNC_BAD_ROTATION;
        data_bytes += (size_t)t->key_count * (sizeof(fix16_t) + value_size((uint32_t)t->kind));
    }
    size_t size = sizeof(struct bsync_clip);
    size += (size_t)desc->track_count * sizeof(bsync_clip_track_);
    size += bsync_align_up((size_t)joint_count * 3u * sizeof(int16_t), 4);
    size += data_bytes;
    *out_size = bsync_align_up(size, 8);
    return BSYNC_OK;
}

bsync_result bsync_clip_validate(const bsync_clip_desc* desc, const bsync_skeleton* skeleton) {
    size_t size;
    return validate_and_size(desc, skeleton, &size);
}

size_t bsync_clip_memory_size(const bsync_clip_desc* desc, const bsync_skeleton* skeleton) {
    size_t size;
    return validate_and_size(desc, skeleton, &size) == BSYNC_OK ? size : 0;
}

static uint64_t fnv1a64(const unsigned char* p, size_t n) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

bsync_result bsync_clip_init(void* mem, size_t size, const bsync_clip_desc* desc, const bsync_skeleton* skeleton,
                             bsync_clip** out) {
    if (!mem || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    size_t need;
    bsync_result r = validate_and_size(desc, skeleton, &need);
    if (r != BSYNC_OK) return r;
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;

    unsigned char* base = bsync_block_start(mem, need, BSYNC_CLIP_MAGIC, BSYNC_CLIP_VERSION);

    const uint32_t joint_count = bsync_skeleton_joint_count(skeleton);
    struct bsync_clip* c = (struct bsync_clip*)mem;
    c->duration = desc->duration;
    c->loop = desc->loop ? 1u : 0u;
    c->joint_count = joint_count;
    c->track_count = desc->track_count;
    size_t name_len = clip_name_length(desc->name);
    for (size_t i = 0; i < name_len; i++) c->name[i] = desc->name[i];

    size_t off = sizeof(struct bsync_clip);
    c->tracks_offset = (uint32_t)off;
    off += (size_t)desc->track_count * sizeof(bsync_clip_track_);
    c->lookup_offset = (uint32_t)off;
    off += bsync_align_up((size_t)joint_count * 3u * sizeof(int16_t), 4);

    bsync_clip_track_* tracks = (bsync_clip_track_*)(base + c->tracks_offset);
    int16_t* lookup = (int16_t*)(base + c->lookup_offset);
    /* First the desc index of each (joint, kind); then rewritten to the sorted index. */
    for (uint32_t i = 0; i < joint_count * 3u; i++) lookup[i] = -1;
    for (uint32_t i = 0; i < desc->track_count; i++)
        lookup[desc->tracks[i].joint * 3u + (uint32_t)desc->tracks[i].kind] = (int16_t)i;

    uint32_t sorted = 0, total_keys = 0;
    for (uint32_t slot = 0; slot < joint_count * 3u; slot++) {
        if (lookup[slot] < 0) continue;
        const bsync_raw_track* src = &desc->tracks[lookup[slot]];
        bsync_clip_track_* dst = &tracks[sorted];
        lookup[slot] = (int16_t)sorted;
        sorted++;
        dst->joint = src->joint;
        dst->kind = (uint32_t)src->kind;
        dst->key_count = src->key_count;
        total_keys += src->key_count;
        dst->times_offset = (uint32_t)off;
        fix16_t* times = (fix16_t*)(base + off);
        for (uint32_t k = 0; k < src->key_count; k++) times[k] = src->times[k];
        off += (size_t)src->key_count * sizeof(fix16_t);
        dst->values_offset = (uint32_t)off;
        if (src->kind == BSYNC_TRACK_ROTATION) {
            bsync_quat* q = (bsync_quat*)(base + off);
            for (uint32_t k = 0; k < src->key_count; k++) {
                q[k] = bsync_quat_normalize(src->quats[k]);
                if (k > 0 && bsync_quat_dot(q[k - 1], q[k]) < 0) q[k] = bsync_quat_neg(q[k]);
            }
            off += (size_t)src->key_count * sizeof(bsync_quat);
        } else {
            bsync_vec3* v = (bsync_vec3*)(base + off);
            for (uint32_t k = 0; k < src->key_count; k++) v[k] = src->vec3s[k];
            off += (size_t)src->key_count * sizeof(bsync_vec3);
        }
    }
    c->total_keys = total_keys;
    c->fingerprint = fnv1a64(base, need); /* allocator slot and fingerprint are still zero here */
    *out = c;
    return BSYNC_OK;
}

bsync_result bsync_clip_create(const bsync_clip_desc* desc, const bsync_skeleton* skeleton,
                               const bsync_allocator* allocator, bsync_clip** out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    size_t need;
    bsync_result r = validate_and_size(desc, skeleton, &need);
    if (r != BSYNC_OK) return r;
    bsync_allocator a;
    void* mem = bsync_block_alloc(allocator, need, &a);
    if (!mem) return BSYNC_OUT_OF_MEMORY;
    bsync_clip* c = NULL;
    r = bsync_block_adopt(bsync_clip_init(mem, need, desc, skeleton, &c), mem, need, &a); /* fails only if misaligned */
    if (r == BSYNC_OK) *out = c;
    return r;
}

void bsync_clip_destroy(bsync_clip* clip) { bsync_block_destroy(clip ? &clip->head : NULL); }

size_t bsync_clip_block_size(const bsync_clip* clip) { return clip ? (size_t)clip->head.block_size : 0; }
fix16_t bsync_clip_duration(const bsync_clip* clip) { return clip ? clip->duration : 0; }
int bsync_clip_loops(const bsync_clip* clip) { return clip ? (int)clip->loop : 0; }
const char* bsync_clip_name(const bsync_clip* clip) { return clip ? clip->name : ""; }
uint32_t bsync_clip_joint_count(const bsync_clip* clip) { return clip ? clip->joint_count : 0; }
uint32_t bsync_clip_track_count(const bsync_clip* clip) { return clip ? clip->track_count : 0; }

bsync_result bsync_clip_track_info(const bsync_clip* clip, uint32_t index, bsync_track_info* out) {
    if (!clip || !out || index >= clip->track_count) return BSYNC_INVALID_ARGUMENT;
    bsync_track_info info;
    if (bsync_clip_is_compact_(clip)) { /* no fix16 arrays to point at: bsync_clip_track_key decodes */
        const bsync_clip_ctrack_* ct = &bsync_clip_ctracks_(clip)[index];
        info.joint = ct->joint;
        info.kind = (bsync_track_kind)(ct->flags & BSYNC_CTRACK_KIND_MASK);
        info.key_count = ct->key_count;
        info.times = NULL;
        info.vec3s = NULL;
        info.quats = NULL;
        *out = info;
        return BSYNC_OK;
    }
    const bsync_clip_track_* t = &bsync_clip_tracks_(clip)[index];
    info.joint = t->joint;
    info.kind = (bsync_track_kind)t->kind;
    info.key_count = t->key_count;
    info.times = bsync_clip_times_(clip, t);
    info.vec3s = t->kind == BSYNC_TRACK_ROTATION ? NULL : bsync_clip_vec3s_(clip, t);
    info.quats = t->kind == BSYNC_TRACK_ROTATION ? bsync_clip_quats_(clip, t) : NULL;
    *out = info;
    return BSYNC_OK;
}

/* ------------------------------------------------------------------ untrusted blocks */

static uint64_t fnv1a64_more(uint64_t h, const unsigned char* p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

/* FNV-1a 64 of the block with the (zero) allocator slot and the fingerprint as zero */
static uint64_t block_fingerprint(const unsigned char* base, size_t size) {
    const size_t fp = offsetof(struct bsync_clip, fingerprint);
    static const unsigned char zeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t f = fnv1a64_more(0xCBF29CE484222325ull, base, fp);
    f = fnv1a64_more(f, zeros, 8);
    return fnv1a64_more(f, base + fp + 8, size - fp - 8);
}

static bsync_result compact_block_validate(const unsigned char* base, size_t size, const struct bsync_clip* c);

bsync_result bsync_clip_block_validate(const void* mem, size_t size, const bsync_skeleton* skeleton,
                                       const bsync_clip** out) {
    if (!mem || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    if (size < sizeof(struct bsync_clip)) return BSYNC_BAD_BLOB;
    const unsigned char* base = (const unsigned char*)mem;
    const struct bsync_clip* c = (const struct bsync_clip*)mem;
    const bsync_block_header* h = &c->head;
    if (h->magic != BSYNC_CLIP_MAGIC || (h->version != BSYNC_CLIP_VERSION && h->version != BSYNC_CLIP_VERSION_COMPACT) ||
        h->block_size != (uint64_t)size)
        return BSYNC_BAD_BLOB;
    if (h->alloc.raw[0] != 0 || h->alloc.raw[1] != 0 || h->alloc.raw[2] != 0 || h->alloc.raw[3] != 0)
        return BSYNC_BAD_BLOB;
    if (c->reserved != 0 || c->loop > 1u || c->duration < 0) return BSYNC_BAD_BLOB;
    const uint32_t jc = c->joint_count;
    if (jc == 0 || jc > BSYNC_MAX_JOINTS) return BSYNC_BAD_BLOB;
    /* name: NUL-terminated inside the field, zero after the NUL */
    size_t nl = clip_name_length(c->name);
    if (nl >= BSYNC_MAX_NAME) return BSYNC_BAD_BLOB;
    for (size_t i = nl; i < BSYNC_MAX_NAME; i++)
        if (c->name[i] != 0) return BSYNC_BAD_BLOB;
    const uint32_t tc = c->track_count;
    if (tc > jc * 3u) return BSYNC_BAD_BLOB;
    if (h->version == BSYNC_CLIP_VERSION_COMPACT) {
        if (compact_block_validate(base, size, c) != BSYNC_OK) return BSYNC_BAD_BLOB;
        if (block_fingerprint(base, size) != c->fingerprint) return BSYNC_BAD_BLOB;
        if (skeleton && bsync_skeleton_joint_count(skeleton) != jc) return BSYNC_MISMATCH;
        *out = c;
        return BSYNC_OK;
    }
    size_t off = sizeof(struct bsync_clip);
    if (c->tracks_offset != off) return BSYNC_BAD_BLOB;
    off += (size_t)tc * sizeof(bsync_clip_track_);
    if (c->lookup_offset != off) return BSYNC_BAD_BLOB;
    size_t lookup_end = off + (size_t)jc * 3u * sizeof(int16_t);
    off += bsync_align_up((size_t)jc * 3u * sizeof(int16_t), 4);
    if (off > size) return BSYNC_BAD_BLOB;
    for (size_t i = lookup_end; i < off; i++)
        if (base[i] != 0) return BSYNC_BAD_BLOB;
    const bsync_clip_track_* tracks = bsync_clip_tracks_(c);
    const int16_t* lookup = bsync_clip_lookup_(c);
    uint64_t total = 0;
    uint32_t prev_slot = 0;
    for (uint32_t i = 0; i < tc; i++) {
        const bsync_clip_track_* t = &tracks[i];
        if (t->kind > 2u || t->joint >= jc || t->key_count == 0 || t->reserved != 0) return BSYNC_BAD_BLOB;
        uint32_t slot = t->joint * 3u + t->kind;
        if (i > 0 && slot <= prev_slot) return BSYNC_BAD_BLOB;
        prev_slot = slot;
        total += t->key_count;
        if (total >= CLIP_MAX_TOTAL_KEYS) return BSYNC_BAD_BLOB;
        if (t->times_offset != off) return BSYNC_BAD_BLOB;
        off += (size_t)t->key_count * sizeof(fix16_t);
        if (t->values_offset != off) return BSYNC_BAD_BLOB;
        off += (size_t)t->key_count * value_size(t->kind);
        if (off > size) return BSYNC_BAD_BLOB;
    }
    if (total != c->total_keys || bsync_align_up(off, 8) != size) return BSYNC_BAD_BLOB;
    for (size_t i = off; i < size; i++)
        if (base[i] != 0) return BSYNC_BAD_BLOB;
    /* the lookup table is exactly the one the tracks imply */
    uint32_t next = 0;
    for (uint32_t slot = 0; slot < jc * 3u; slot++) {
        int16_t want = -1;
        if (next < tc && tracks[next].joint * 3u + tracks[next].kind == slot) want = (int16_t)next++;
        if (lookup[slot] != want) return BSYNC_BAD_BLOB;
    }
    for (uint32_t i = 0; i < tc; i++) {
        const bsync_clip_track_* t = &tracks[i];
        const fix16_t* times = bsync_clip_times_(c, t);
        for (uint32_t k = 0; k < t->key_count; k++) {
            if (times[k] < 0 || times[k] > c->duration) return BSYNC_BAD_BLOB;
            if (k > 0 && times[k] <= times[k - 1]) return BSYNC_BAD_BLOB;
        }
        if (t->kind == BSYNC_TRACK_ROTATION) {
            const bsync_quat* q = bsync_clip_quats_(c, t);
            for (uint32_t k = 0; k < t->key_count; k++)
                if (quat_is_zero(q[k])) return BSYNC_BAD_BLOB;
        }
    }
    if (block_fingerprint(base, size) != c->fingerprint) return BSYNC_BAD_BLOB;
    if (skeleton && bsync_skeleton_joint_count(skeleton) != jc) return BSYNC_MISMATCH;
    *out = c;
    return BSYNC_OK;
}

/* ------------------------------------------------------------------ the compact encoding
 * Built from a default (version 1) clip: the layout and decode rules are in internal/clip_block.h and
 * docs/clip-format.md. Everything here is integer arithmetic, so every machine builds the same bytes.
 * Blobs (a track's time indices, a track's values) are written once: a later track whose blob has
 * the same content points at the first one's. memory_size and init run the same walk (init writes). */

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* The u in [0, 32767] whose bsync_cq_component_ is closest to c (the lower on a tie). */
static uint32_t cq_best(int64_t c) {
    int64_t u0 = (c + BSYNC_CQ_OFFSET) * 65536 / (int64_t)BSYNC_CQ_STEP;
    uint32_t best = 0;
    int64_t best_err = -1;
    for (int64_t u = u0 - 1; u <= u0 + 1; u++) {
        if (u < 0 || u > 32767) continue;
        const int64_t e = abs64((int64_t)bsync_cq_component_((uint32_t)u) - c);
        if (best_err < 0 || e < best_err) {
            best_err = e;
            best = (uint32_t)u;
        }
    }
    if (best_err < 0) best = u0 < 0 ? 0u : 32767u;
    return best;
}

/* Smallest three: the largest |component| (the first on a tie) is dropped and made positive by
 * negating the whole key (the sign bit records it, so the decoded key keeps the stored hemisphere). */
static void cq_encode(bsync_quat q, uint16_t w[3]) {
    const int64_t v[4] = {q.x, q.y, q.z, q.w};
    uint32_t L = 0;
    for (uint32_t i = 1; i < 4; i++)
        if (abs64(v[i]) > abs64(v[L])) L = i;
    const int neg = v[L] < 0;
    uint32_t u[3], s = 0;
    for (uint32_t i = 0; i < 4; i++)
        if (i != L) u[s++] = cq_best(neg ? -v[i] : v[i]);
    w[0] = (uint16_t)(u[0] | ((L & 1u) << 15));
    w[1] = (uint16_t)(u[1] | ((L >> 1) << 15));
    w[2] = (uint16_t)(u[2] | ((uint32_t)neg << 15));
}

/* Per-component range/offset quantisation of a translation or scale track (see clip_block.h). */
typedef struct cv_quant_ {
    int32_t base[3];
    uint32_t shift[3];
} cv_quant_;

static cv_quant_ cv_params(const bsync_vec3* v, uint32_t n) {
    cv_quant_ p;
    for (uint32_t i = 0; i < 3; i++) {
        int64_t lo = INT32_MAX, hi = INT32_MIN;
        for (uint32_t k = 0; k < n; k++) {
            const int64_t x = i == 0 ? v[k].x : i == 1 ? v[k].y : v[k].z;
            if (x < lo) lo = x;
            if (x > hi) hi = x;
        }
        uint32_t s = 0;
        while (s < 16 && ((hi - lo) + (s ? ((int64_t)1 << (s - 1)) : 0)) >> s > 65535) s++;
        int64_t base = lo;
        if (base + ((int64_t)65535 << s) > INT32_MAX) base = INT32_MAX - ((int64_t)65535 << s);
        p.base[i] = (int32_t)base;
        p.shift[i] = s;
    }
    return p;
}

static uint16_t cv_u(const cv_quant_* p, uint32_t i, fix16_t x) {
    const uint32_t s = p->shift[i];
    int64_t u = (((int64_t)x - p->base[i]) + (s ? ((int64_t)1 << (s - 1)) : 0)) >> s; /* x >= base: non-negative */
    return (uint16_t)(u > 65535 ? 65535 : u);
}

static int src_vec3_const(const bsync_vec3* v, uint32_t n) {
    for (uint32_t k = 1; k < n; k++)
        if (v[k].x != v[0].x || v[k].y != v[0].y || v[k].z != v[0].z) return 0;
    return 1;
}

/* The compact form of source track t: flags and the value blob's length in u16 words. */
static uint32_t ct_flags(const bsync_clip* src, const bsync_clip_track_* t) {
    if (t->kind == BSYNC_TRACK_ROTATION) {
        const bsync_quat* q = bsync_clip_quats_(src, t);
        uint16_t w0[3], w[3];
        cq_encode(q[0], w0);
        for (uint32_t k = 1; k < t->key_count; k++) {
            cq_encode(q[k], w);
            if (w[0] != w0[0] || w[1] != w0[1] || w[2] != w0[2]) return t->kind;
        }
        return t->kind | BSYNC_CTRACK_CONST;
    }
    if (src_vec3_const(bsync_clip_vec3s_(src, t), t->key_count)) return t->kind | BSYNC_CTRACK_CONST;
    return t->kind | BSYNC_CTRACK_QUANT;
}
static uint32_t ct_blob_len(uint32_t flags, uint32_t n) {
    if ((flags & BSYNC_CTRACK_KIND_MASK) == BSYNC_TRACK_ROTATION) return (flags & BSYNC_CTRACK_CONST) ? 3u : 3u * n;
    if (flags & BSYNC_CTRACK_CONST) return 6u;
    return 7u + 3u * n;
}
/* Word w of the value blob of source track t (with its flags and, for QUANT, its parameters). */
static uint16_t ct_blob_word(const bsync_clip* src, const bsync_clip_track_* t, uint32_t flags, const cv_quant_* p,
                             uint32_t w) {
    if (t->kind == BSYNC_TRACK_ROTATION) {
        uint16_t q[3];
        cq_encode(bsync_clip_quats_(src, t)[w / 3u], q);
        return q[w % 3u];
    }
    const bsync_vec3* v = bsync_clip_vec3s_(src, t);
    if (flags & BSYNC_CTRACK_CONST) {
        const fix16_t c[3] = {v[0].x, v[0].y, v[0].z};
        return (uint16_t)((uint32_t)c[w / 2u] >> (16u * (w % 2u)));
    }
    if (w < 6) return (uint16_t)((uint32_t)p->base[w / 2u] >> (16u * (w % 2u)));
    if (w == 6) return (uint16_t)(p->shift[0] | (p->shift[1] << 5) | (p->shift[2] << 10));
    const bsync_vec3 x = v[(w - 7u) / 3u];
    const uint32_t i = (w - 7u) % 3u;
    return cv_u(p, i, i == 0 ? x.x : i == 1 ? x.y : x.z);
}

/* The smallest key time of any track of src greater than `after` (after = -1: the smallest); 0 and
 * *found = 0 when there is none. */
static fix16_t next_time(const bsync_clip* src, int64_t after, int* found) {
    const bsync_clip_track_* tracks = bsync_clip_tracks_(src);
    int64_t best = INT64_MAX;
    for (uint32_t i = 0; i < src->track_count; i++) {
        const fix16_t* t = bsync_clip_times_(src, &tracks[i]);
        uint32_t lo = 0, hi = tracks[i].key_count; /* first key > after */
        while (lo < hi) {
            const uint32_t mid = lo + (hi - lo) / 2;
            if ((int64_t)t[mid] > after) hi = mid;
            else lo = mid + 1;
        }
        if (lo < tracks[i].key_count && t[lo] < best) best = t[lo];
    }
    *found = best != INT64_MAX;
    return *found ? (fix16_t)best : 0;
}

/* The walk shared by memory_size (base == NULL) and init. Returns the block size, 0 if src cannot be
 * compacted (BSYNC_LIMIT_EXCEEDED: a track of more than 65535 keys or more than 65536 key times). */
static size_t compact_walk(const bsync_clip* src, unsigned char* base) {
    const bsync_clip_track_* tracks = bsync_clip_tracks_(src);
    const uint32_t tc = src->track_count;
    uint32_t time_count = 0;
    int found = 0;
    for (int64_t after = -1;; time_count++) {
        const fix16_t t = next_time(src, after, &found);
        if (!found) break;
        if (time_count >= 65536u) return 0;
        if (base) {
            uint16_t* table = (uint16_t*)(base + BSYNC_CLIP_COMPACT_HEADER + (size_t)tc * sizeof(bsync_clip_ctrack_));
            table[2u * time_count] = (uint16_t)((uint32_t)t & 0xFFFFu);
            table[2u * time_count + 1u] = (uint16_t)((uint32_t)t >> 16);
        }
        after = t;
    }
    if (time_count == 0) time_count = 1; /* no tracks: a table of one zero time */
    size_t off = BSYNC_CLIP_COMPACT_HEADER + (size_t)tc * sizeof(bsync_clip_ctrack_);
    const size_t table_off = off;
    off += (size_t)time_count * 4u;
    bsync_clip_ctrack_* rec = base ? (bsync_clip_ctrack_*)(base + BSYNC_CLIP_COMPACT_HEADER) : NULL;
    const uint16_t* table = base ? (const uint16_t*)(base + table_off) : NULL;
    for (uint32_t i = 0; i < tc; i++) {
        const bsync_clip_track_* t = &tracks[i];
        if (t->key_count > 65535u) return 0;
        const uint32_t n = t->key_count;
        const fix16_t* times = bsync_clip_times_(src, t);
        /* the time indices: shared with the first earlier track of the same times */
        uint32_t same = i;
        for (uint32_t j = 0; j < i && same == i; j++) {
            if (tracks[j].key_count != n) continue;
            const fix16_t* tj = bsync_clip_times_(src, &tracks[j]);
            uint32_t k = 0;
            while (k < n && tj[k] == times[k]) k++;
            if (k == n) same = j;
        }
        size_t times_off = off;
        if (same < i) {
            if (base) times_off = (size_t)rec[same].times_lo | ((size_t)rec[same].times_hi << 16);
        } else {
            if (base) {
                uint16_t* idx = (uint16_t*)(base + off);
                uint32_t lo = 0;
                for (uint32_t k = 0; k < n; k++) { /* times ascend, so the search starts at the last index */
                    uint32_t hi = time_count - 1;
                    while (lo < hi) {
                        const uint32_t mid = lo + (hi - lo) / 2;
                        if (bsync_clip_ctime_(table, mid) < times[k]) lo = mid + 1;
                        else hi = mid;
                    }
                    idx[k] = (uint16_t)lo;
                }
            }
            off += (size_t)n * 2u;
        }
        /* the values: shared with the first earlier track of the same blob */
        const uint32_t flags = ct_flags(src, t);
        const uint32_t len = ct_blob_len(flags, n);
        cv_quant_ p = {{0, 0, 0}, {0, 0, 0}};
        if (flags & BSYNC_CTRACK_QUANT) p = cv_params(bsync_clip_vec3s_(src, t), n);
        same = i;
        for (uint32_t j = 0; j < i && same == i; j++) {
            if (tracks[j].kind != t->kind) continue;
            const uint32_t fj = ct_flags(src, &tracks[j]);
            if (fj != flags || ct_blob_len(fj, tracks[j].key_count) != len) continue;
            cv_quant_ pj = {{0, 0, 0}, {0, 0, 0}};
            if (fj & BSYNC_CTRACK_QUANT) pj = cv_params(bsync_clip_vec3s_(src, &tracks[j]), tracks[j].key_count);
            uint32_t w = 0;
            while (w < len && ct_blob_word(src, &tracks[j], fj, &pj, w) == ct_blob_word(src, t, flags, &p, w)) w++;
            if (w == len) same = j;
        }
        size_t values_off = off;
        if (same < i) {
            if (base) values_off = (size_t)rec[same].values_lo | ((size_t)rec[same].values_hi << 16);
        } else {
            if (base) {
                uint16_t* blob = (uint16_t*)(base + off);
                for (uint32_t w = 0; w < len; w++) blob[w] = ct_blob_word(src, t, flags, &p, w);
            }
            off += (size_t)len * 2u;
        }
        if (base) {
            rec[i].joint = (uint16_t)t->joint;
            rec[i].flags = (uint16_t)flags;
            rec[i].key_count = (uint16_t)n;
            rec[i].times_lo = (uint16_t)(times_off & 0xFFFFu);
            rec[i].times_hi = (uint16_t)(times_off >> 16);
            rec[i].values_lo = (uint16_t)(values_off & 0xFFFFu);
            rec[i].values_hi = (uint16_t)(values_off >> 16);
        }
    }
    if (base) {
        bsync_clip_compact_* ch = (bsync_clip_compact_*)(base + sizeof(struct bsync_clip));
        ch->encoding = BSYNC_CLIP_ENCODING_COMPACT;
        ch->time_count = time_count;
        ch->time_table_offset = (uint32_t)table_off;
        ch->reserved = 0;
    }
    return bsync_align_up(off, 8);
}

static bsync_result compact_source_ok(const bsync_clip* src) {
    if (!src) return BSYNC_INVALID_ARGUMENT;
    if (bsync_clip_is_compact_(src)) return BSYNC_INVALID_ARGUMENT; /* already compact */
    return BSYNC_OK;
}

size_t bsync_clip_compact_memory_size(const bsync_clip* src) {
    if (compact_source_ok(src) != BSYNC_OK) return 0;
    return compact_walk(src, NULL);
}

bsync_result bsync_clip_compact_init(void* mem, size_t size, const bsync_clip* src, bsync_clip** out) {
    if (!mem || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    bsync_result r = compact_source_ok(src);
    if (r != BSYNC_OK) return r;
    const size_t need = compact_walk(src, NULL);
    if (need == 0) return BSYNC_LIMIT_EXCEEDED;
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;
    if ((uintptr_t)mem < (uintptr_t)src + src->head.block_size && (uintptr_t)src < (uintptr_t)mem + need)
        return BSYNC_INVALID_ARGUMENT; /* over the source */
    unsigned char* base = bsync_block_start(mem, need, BSYNC_CLIP_MAGIC, BSYNC_CLIP_VERSION_COMPACT);
    struct bsync_clip* c = (struct bsync_clip*)mem;
    c->duration = src->duration;
    c->loop = src->loop;
    c->joint_count = src->joint_count;
    c->track_count = src->track_count;
    c->total_keys = src->total_keys;
    c->tracks_offset = BSYNC_CLIP_COMPACT_HEADER;
    c->lookup_offset = 0;
    for (size_t i = 0; i < BSYNC_MAX_NAME; i++) c->name[i] = src->name[i];
    compact_walk(src, base);
    c->fingerprint = fnv1a64(base, need); /* the version and encoding are in it */
    *out = c;
    return BSYNC_OK;
}

bsync_result bsync_clip_compact_create(const bsync_clip* src, const bsync_allocator* allocator, bsync_clip** out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    bsync_result r = compact_source_ok(src);
    if (r != BSYNC_OK) return r;
    const size_t need = compact_walk(src, NULL);
    if (need == 0) return BSYNC_LIMIT_EXCEEDED;
    bsync_allocator a;
    void* mem = bsync_block_alloc(allocator, need, &a);
    if (!mem) return BSYNC_OUT_OF_MEMORY;
    bsync_clip* c = NULL;
    r = bsync_block_adopt(bsync_clip_compact_init(mem, need, src, &c), mem, need, &a);
    if (r == BSYNC_OK) *out = c;
    return r;
}

uint32_t bsync_clip_encoding(const bsync_clip* clip) {
    if (!clip) return 0;
    return bsync_clip_is_compact_(clip) ? BSYNC_CLIP_ENCODING_COMPACT : 0u;
}

bsync_result bsync_clip_track_key(const bsync_clip* clip, uint32_t track, uint32_t key, fix16_t* time, bsync_vec3* vec3,
                                  bsync_quat* rotation) {
    if (!clip || track >= clip->track_count) return BSYNC_INVALID_ARGUMENT;
    if (bsync_clip_is_compact_(clip)) {
        const bsync_clip_ctrack_* t = &bsync_clip_ctracks_(clip)[track];
        if (key >= t->key_count) return BSYNC_INVALID_ARGUMENT;
        const uint32_t kind = t->flags & BSYNC_CTRACK_KIND_MASK;
        const bsync_clip_compact_* ch = bsync_clip_compact_header_(clip);
        if (time) *time = bsync_clip_ctime_(bsync_clip_words_(clip, ch->time_table_offset), bsync_ctrack_times_(clip, t)[key]);
        const uint16_t* blob = bsync_ctrack_values_(clip, t);
        if (kind == BSYNC_TRACK_ROTATION) {
            if (rotation) *rotation = bsync_clip_cquat_at_(blob, t->flags, key);
        } else if (vec3) {
            *vec3 = bsync_clip_cvec3_decode_(blob, t->flags, key);
        }
        return BSYNC_OK;
    }
    const bsync_clip_track_* t = &bsync_clip_tracks_(clip)[track];
    if (key >= t->key_count) return BSYNC_INVALID_ARGUMENT;
    if (time) *time = bsync_clip_times_(clip, t)[key];
    if (t->kind == BSYNC_TRACK_ROTATION) {
        if (rotation) *rotation = bsync_clip_quats_(clip, t)[key];
    } else if (vec3) {
        *vec3 = bsync_clip_vec3s_(clip, t)[key];
    }
    return BSYNC_OK;
}

/* bsync_clip_block_validate for a version-2 block (header fields up to the name already checked). */
static bsync_result compact_block_validate(const unsigned char* base, size_t size, const struct bsync_clip* c) {
    (void)base; /* c is base */
    if (size < BSYNC_CLIP_COMPACT_HEADER || (size & 7u) != 0) return BSYNC_BAD_BLOB;
    const bsync_clip_compact_* ch = bsync_clip_compact_header_(c);
    if (ch->encoding != BSYNC_CLIP_ENCODING_COMPACT || ch->reserved != 0 || c->lookup_offset != 0) return BSYNC_BAD_BLOB;
    const uint32_t tc = c->track_count, jc = c->joint_count, D = ch->time_count;
    if (c->tracks_offset != BSYNC_CLIP_COMPACT_HEADER) return BSYNC_BAD_BLOB;
    const size_t table_off = BSYNC_CLIP_COMPACT_HEADER + (size_t)tc * sizeof(bsync_clip_ctrack_);
    if (D < 1 || D > 65536u || ch->time_table_offset != table_off || table_off + (size_t)D * 4u > size) return BSYNC_BAD_BLOB;
    const uint16_t* table = bsync_clip_words_(c, ch->time_table_offset);
    for (uint32_t i = 0; i < D; i++) {
        const fix16_t t = bsync_clip_ctime_(table, i);
        if (t < 0 || t > c->duration || (i > 0 && t <= bsync_clip_ctime_(table, i - 1))) return BSYNC_BAD_BLOB;
    }
    const size_t data_start = table_off + (size_t)D * 4u;
    const bsync_clip_ctrack_* tracks = bsync_clip_ctracks_(c);
    uint64_t total = 0;
    uint32_t prev_slot = 0;
    for (uint32_t i = 0; i < tc; i++) {
        const bsync_clip_ctrack_* t = &tracks[i];
        const uint32_t kind = t->flags & BSYNC_CTRACK_KIND_MASK, n = t->key_count;
        if (kind > 2u || t->joint >= jc || n == 0 || (t->flags & ~15u) != 0) return BSYNC_BAD_BLOB;
        if (kind == BSYNC_TRACK_ROTATION ? (t->flags & BSYNC_CTRACK_QUANT) != 0
                                         : ((t->flags & BSYNC_CTRACK_CONST) != 0) == ((t->flags & BSYNC_CTRACK_QUANT) != 0))
            return BSYNC_BAD_BLOB; /* a vec3 track is exactly one of CONST (raw) and QUANT */
        const uint32_t slot = t->joint * 3u + kind;
        if (i > 0 && slot <= prev_slot) return BSYNC_BAD_BLOB;
        prev_slot = slot;
        total += n;
        const size_t to = (size_t)t->times_lo | ((size_t)t->times_hi << 16);
        const size_t vo = (size_t)t->values_lo | ((size_t)t->values_hi << 16);
        const size_t vlen = ct_blob_len(t->flags, n) * 2u;
        if (to < data_start || (to & 1u) || to > size || (size_t)n * 2u > size - to) return BSYNC_BAD_BLOB;
        if (vo < data_start || (vo & 1u) || vo > size || vlen > size - vo) return BSYNC_BAD_BLOB;
        const uint16_t* idx = bsync_clip_words_(c, (uint32_t)to);
        for (uint32_t k = 0; k < n; k++)
            if (idx[k] >= D || (k > 0 && idx[k] <= idx[k - 1])) return BSYNC_BAD_BLOB;
        if (t->flags & BSYNC_CTRACK_QUANT) {
            const uint16_t* blob = bsync_clip_words_(c, (uint32_t)vo);
            if ((blob[6] >> 15) != 0) return BSYNC_BAD_BLOB;
            for (uint32_t ax = 0; ax < 3; ax++) {
                const uint32_t s = (blob[6] >> (5u * ax)) & 31u;
                if (s > 16u || (int64_t)(int32_t)bsync_u32_of16_(&blob[2u * ax]) + ((int64_t)65535 << s) > INT32_MAX)
                    return BSYNC_BAD_BLOB;
            }
        }
    }
    if (total != c->total_keys || total >= CLIP_MAX_TOTAL_KEYS) return BSYNC_BAD_BLOB;
    return BSYNC_OK;
}
