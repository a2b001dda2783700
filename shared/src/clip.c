/* clip.c — the clip block: validation against a skeleton, layout, build, accessors.
 * The layout is described in internal/clip_block.h (shared with sample.c). */
#include "blendsync/clip.h"
#include "internal/block.h"
#include "internal/clip_block.h"

#define CLIP_MAX_TOTAL_KEYS ((uint64_t)1 << 24) /* total keys must stay below this */

static size_t align_up(size_t v, size_t a) { return (v + (a - 1)) & ~(a - 1); }

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
    size += align_up((size_t)joint_count * 3u * sizeof(int16_t), 4);
    size += data_bytes;
    *out_size = align_up(size, 8);
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

    unsigned char* base = (unsigned char*)mem;
    for (size_t i = 0; i < need; i++) base[i] = 0;

    const uint32_t joint_count = bsync_skeleton_joint_count(skeleton);
    struct bsync_clip* c = (struct bsync_clip*)mem;
    c->head.magic = BSYNC_CLIP_MAGIC;
    c->head.version = BSYNC_CLIP_VERSION;
    c->head.block_size = need;
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
    off += align_up((size_t)joint_count * 3u * sizeof(int16_t), 4);

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
    bsync_allocator a = bsync_allocator_resolve(allocator);
    void* mem = bsync_allocator_alloc(&a, need);
    if (!mem) return BSYNC_OUT_OF_MEMORY;
    bsync_clip* c = NULL;
    r = bsync_clip_init(mem, need, desc, skeleton, &c);
    if (r != BSYNC_OK) { /* only a misaligned allocation can get here */
        bsync_allocator_free(&a, mem, need);
        return r;
    }
    c->head.alloc.allocator = a;
    *out = c;
    return BSYNC_OK;
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
