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
    const bsync_clip_track_* t = &bsync_clip_tracks_(clip)[index];
    bsync_track_info info;
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

bsync_result bsync_clip_block_validate(const void* mem, size_t size, const bsync_skeleton* skeleton,
                                       const bsync_clip** out) {
    if (!mem || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    if (size < sizeof(struct bsync_clip)) return BSYNC_BAD_BLOB;
    const unsigned char* base = (const unsigned char*)mem;
    const struct bsync_clip* c = (const struct bsync_clip*)mem;
    const bsync_block_header* h = &c->head;
    if (h->magic != BSYNC_CLIP_MAGIC || h->version != BSYNC_CLIP_VERSION || h->block_size != (uint64_t)size)
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
    /* fingerprint: FNV-1a 64 of the block with the (zero) allocator slot and the fingerprint as zero */
    const size_t fp = offsetof(struct bsync_clip, fingerprint);
    static const unsigned char zeros[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    uint64_t f = fnv1a64_more(0xCBF29CE484222325ull, base, fp);
    f = fnv1a64_more(f, zeros, 8);
    f = fnv1a64_more(f, base + fp + 8, size - fp - 8);
    if (f != c->fingerprint) return BSYNC_BAD_BLOB;
    if (skeleton && bsync_skeleton_joint_count(skeleton) != jc) return BSYNC_MISMATCH;
    *out = c;
    return BSYNC_OK;
}
