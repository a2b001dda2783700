/* skeleton.c — the skeleton block: validation, layout, build, accessors.
 *
 * Block layout (all offsets from the block start, which is 8-byte aligned; little-endian data):
 *   [0, 64)          header (struct bsync_skeleton below; identical on 32- and 64-bit targets)
 *   rest_offset      bsync_trs[joint_count]      rest pose, rotations normalised
 *   parents_offset   int16_t[joint_count]        BSYNC_NO_PARENT or a lower index
 *   names_offset     uint32_t[joint_count]       offset of each NUL-terminated name in the block
 *   (then)           the name bytes, packed, each followed by NUL
 *   (then)           zero padding up to a multiple of 8 (block_size)
 * Every byte of the block is written (padding is zero), so two builds of one desc are identical
 * except for the allocator slot, which only bsync_skeleton_create fills in.
 */
#include "blendsync/skeleton.h"
#include "internal/block.h"
#include "internal/names.h"

#define SKELETON_MAGIC 0x4C4B5342u /* "BSKL" in little-endian byte order */
#define SKELETON_VERSION 1u

struct bsync_skeleton {
    bsync_block_header head; /* magic, version, block size, allocator */
    uint32_t joint_count;
    uint32_t rest_offset;
    uint32_t parents_offset;
    uint32_t names_offset;
};

_Static_assert(sizeof(struct bsync_skeleton) == 64, "skeleton header must be 64 bytes on every target");
_Static_assert(sizeof(bsync_trs) == 40, "bsync_trs must be 40 bytes");




static int quat_is_zero(bsync_quat q) { return q.x == 0 && q.y == 0 && q.z == 0 && q.w == 0; }

/* Validates and, when valid, returns the block size through *out_size. */
static bsync_result validate_and_size(const bsync_skeleton_desc* desc, size_t* out_size) {
    if (!desc || !desc->joints || desc->joint_count == 0) return BSYNC_INVALID_ARGUMENT;
    if (desc->joint_count > BSYNC_MAX_JOINTS) return BSYNC_LIMIT_EXCEEDED;
    const uint32_t n = desc->joint_count;
    size_t name_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        const bsync_joint_desc* j = &desc->joints[i];
        if (j->parent != BSYNC_NO_PARENT && (j->parent < 0 || (uint32_t)j->parent >= i))
            return BSYNC_BAD_HIERARCHY;
        size_t len = bsync_name_length(j->name);
        if (len == 0) return BSYNC_BAD_NAME;
        for (uint32_t k = 0; k < i; k++)
            if (bsync_names_equal(desc->joints[k].name, j->name)) return BSYNC_DUPLICATE_NAME;
        if (quat_is_zero(j->rest.r)) return BSYNC_BAD_ROTATION;
        name_bytes += len + 1;
    }
    size_t size = sizeof(struct bsync_skeleton);
    size += (size_t)n * sizeof(bsync_trs);
    size += bsync_align_up((size_t)n * sizeof(int16_t), 4);
    size += (size_t)n * sizeof(uint32_t);
    size += name_bytes;
    *out_size = bsync_align_up(size, 8);
    return BSYNC_OK;
}

bsync_result bsync_skeleton_validate(const bsync_skeleton_desc* desc) {
    size_t size;
    return validate_and_size(desc, &size);
}

size_t bsync_skeleton_memory_size(const bsync_skeleton_desc* desc) {
    size_t size;
    return validate_and_size(desc, &size) == BSYNC_OK ? size : 0;
}

bsync_result bsync_skeleton_init(void* mem, size_t size, const bsync_skeleton_desc* desc, bsync_skeleton** out) {
    if (!mem || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    size_t need;
    bsync_result r = validate_and_size(desc, &need);
    if (r != BSYNC_OK) return r;
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;

    unsigned char* base = bsync_block_start(mem, need, SKELETON_MAGIC, SKELETON_VERSION);

    const uint32_t n = desc->joint_count;
    struct bsync_skeleton* s = (struct bsync_skeleton*)mem;
    s->joint_count = n;
    size_t off = sizeof(struct bsync_skeleton);
    s->rest_offset = (uint32_t)off;
    off += (size_t)n * sizeof(bsync_trs);
    s->parents_offset = (uint32_t)off;
    off += bsync_align_up((size_t)n * sizeof(int16_t), 4);
    s->names_offset = (uint32_t)off;
    off += (size_t)n * sizeof(uint32_t);

    bsync_trs* rest = (bsync_trs*)(base + s->rest_offset);
    int16_t* parents = (int16_t*)(base + s->parents_offset);
    uint32_t* name_offsets = (uint32_t*)(base + s->names_offset);
    for (uint32_t i = 0; i < n; i++) {
        const bsync_joint_desc* j = &desc->joints[i];
        rest[i] = j->rest;
        rest[i].r = bsync_quat_normalize(j->rest.r);
        parents[i] = (int16_t)j->parent;
        name_offsets[i] = (uint32_t)off;
        size_t len = bsync_name_length(j->name);
        for (size_t c = 0; c < len; c++) base[off + c] = (unsigned char)j->name[c];
        off += len + 1; /* NUL already written by the zero fill */
    }
    *out = s;
    return BSYNC_OK;
}

bsync_result bsync_skeleton_create(const bsync_skeleton_desc* desc, const bsync_allocator* allocator,
                                   bsync_skeleton** out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    size_t need;
    bsync_result r = validate_and_size(desc, &need);
    if (r != BSYNC_OK) return r;
    bsync_allocator a;
    void* mem = bsync_block_alloc(allocator, need, &a);
    if (!mem) return BSYNC_OUT_OF_MEMORY;
    bsync_skeleton* s = NULL;
    r = bsync_block_adopt(bsync_skeleton_init(mem, need, desc, &s), mem, need, &a); /* fails only if misaligned */
    if (r == BSYNC_OK) *out = s;
    return r;
}

void bsync_skeleton_destroy(bsync_skeleton* skeleton) { bsync_block_destroy(skeleton ? &skeleton->head : NULL); }

size_t bsync_skeleton_block_size(const bsync_skeleton* skeleton) {
    return skeleton ? (size_t)skeleton->head.block_size : 0;
}

uint32_t bsync_skeleton_joint_count(const bsync_skeleton* skeleton) { return skeleton ? skeleton->joint_count : 0; }

int32_t bsync_skeleton_parent(const bsync_skeleton* skeleton, uint32_t joint) {
    if (!skeleton || joint >= skeleton->joint_count) return BSYNC_NO_PARENT;
    return bsync_skeleton_parents(skeleton)[joint];
}

const int16_t* bsync_skeleton_parents(const bsync_skeleton* skeleton) {
    if (!skeleton) return NULL;
    return (const int16_t*)((const unsigned char*)skeleton + skeleton->parents_offset);
}

const char* bsync_skeleton_joint_name(const bsync_skeleton* skeleton, uint32_t joint) {
    if (!skeleton || joint >= skeleton->joint_count) return "";
    const unsigned char* base = (const unsigned char*)skeleton;
    const uint32_t* offs = (const uint32_t*)(base + skeleton->names_offset);
    return (const char*)(base + offs[joint]);
}

const bsync_trs* bsync_skeleton_rest_pose(const bsync_skeleton* skeleton) {
    if (!skeleton) return NULL;
    return (const bsync_trs*)((const unsigned char*)skeleton + skeleton->rest_offset);
}

/* Linear scan: a setup-time lookup (at most BSYNC_MAX_JOINTS name comparisons). */
bsync_result bsync_skeleton_find(const bsync_skeleton* skeleton, const char* name, uint32_t* out_index) {
    if (!skeleton || !name || !out_index) return BSYNC_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < skeleton->joint_count; i++) {
        if (bsync_names_equal(bsync_skeleton_joint_name(skeleton, i), name)) {
            *out_index = i;
            return BSYNC_OK;
        }
    }
    return BSYNC_NOT_FOUND;
}

/* ------------------------------------------------------------------ untrusted blocks */

static int alloc_slot_zero(const bsync_block_header* h) {
    return h->alloc.raw[0] == 0 && h->alloc.raw[1] == 0 && h->alloc.raw[2] == 0 && h->alloc.raw[3] == 0;
}

bsync_result bsync_skeleton_block_validate(const void* mem, size_t size, const bsync_skeleton** out) {
    if (!mem || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    if (size < sizeof(struct bsync_skeleton)) return BSYNC_BAD_BLOB;
    const unsigned char* base = (const unsigned char*)mem;
    const struct bsync_skeleton* s = (const struct bsync_skeleton*)mem;
    if (s->head.magic != SKELETON_MAGIC || s->head.version != SKELETON_VERSION) return BSYNC_BAD_BLOB;
    if (s->head.block_size != (uint64_t)size || !alloc_slot_zero(&s->head)) return BSYNC_BAD_BLOB;
    const uint32_t n = s->joint_count;
    if (n == 0 || n > BSYNC_MAX_JOINTS) return BSYNC_BAD_BLOB;
    size_t off = sizeof(struct bsync_skeleton);
    if (s->rest_offset != off) return BSYNC_BAD_BLOB;
    off += (size_t)n * sizeof(bsync_trs);
    if (s->parents_offset != off) return BSYNC_BAD_BLOB;
    off += bsync_align_up((size_t)n * sizeof(int16_t), 4);
    if (s->names_offset != off) return BSYNC_BAD_BLOB;
    off += (size_t)n * sizeof(uint32_t);
    if (off > size) return BSYNC_BAD_BLOB;
    /* padding after the parents (when n is odd) */
    for (size_t i = s->parents_offset + (size_t)n * sizeof(int16_t); i < s->names_offset; i++)
        if (base[i] != 0) return BSYNC_BAD_BLOB;
    const int16_t* parents = (const int16_t*)(base + s->parents_offset);
    const uint32_t* name_offsets = (const uint32_t*)(base + s->names_offset);
    const bsync_trs* rest = (const bsync_trs*)(base + s->rest_offset);
    for (uint32_t i = 0; i < n; i++) {
        if (parents[i] != BSYNC_NO_PARENT && (parents[i] < 0 || (uint32_t)parents[i] >= i)) return BSYNC_BAD_BLOB;
        if (quat_is_zero(rest[i].r)) return BSYNC_BAD_BLOB;
        if (name_offsets[i] != off) return BSYNC_BAD_BLOB;
        size_t len = 0;
        while (off + len < size && base[off + len] != 0 && len < BSYNC_MAX_NAME) len++;
        if (len == 0 || len >= BSYNC_MAX_NAME || off + len >= size) return BSYNC_BAD_BLOB;
        off += len + 1;
    }
    if (bsync_align_up(off, 8) != size) return BSYNC_BAD_BLOB;
    for (size_t i = off; i < size; i++)
        if (base[i] != 0) return BSYNC_BAD_BLOB;
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t k = 0; k < i; k++)
            if (bsync_names_equal((const char*)(base + name_offsets[k]), (const char*)(base + name_offsets[i])))
                return BSYNC_BAD_BLOB;
    *out = s;
    return BSYNC_OK;
}
