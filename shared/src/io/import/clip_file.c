/* clip_file.c — the .bsclip file: see blendsync/io/clip_file.h for the layout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/checksum.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/io/file.h"
#include "internal/block.h"
#include "import_internal.h"
#include "internal/le.h"

static const unsigned char k_magic[8] = {'B', 'S', 'C', 'L', 'I', 'P', '\r', '\n'};

static size_t align8(size_t v) { return (v + 7u) & ~(size_t)7u; }


/* ---- byte order. The blocks are the core's in-memory blocks, whose multi-byte fields are in the
 * host's order; the file holds them little-endian. On a little-endian host both are the same bytes
 * and nothing below runs; on a big-endian host every field is swapped in place, by the layouts of
 * skeleton.c and internal/clip_block.h: 64/152-byte headers (u32 and u64 fields, the zero allocator
 * slot, the clip name), then arrays of 32-bit words (rest poses, name offsets, track records, key
 * times and values), except the int16 parents and track lookup. Offsets and counts are bounded by
 * the block size here, so a corrupt block cannot make a swap leave it; the block's own validation
 * runs afterwards. */

static int host_is_big_endian(void) {
    const uint32_t probe = 1;
    unsigned char b[4];
    memcpy(b, &probe, 4);
    return b[0] != 1;
}

static void swap16(unsigned char* p) {
    unsigned char t = p[0];
    p[0] = p[1];
    p[1] = t;
}
static void swap32(unsigned char* p) {
    for (int i = 0; i < 2; i++) {
        unsigned char t = p[i];
        p[i] = p[3 - i];
        p[3 - i] = t;
    }
}
static void swap64(unsigned char* p) {
    for (int i = 0; i < 4; i++) {
        unsigned char t = p[i];
        p[i] = p[7 - i];
        p[7 - i] = t;
    }
}
static void swap32_run(unsigned char* b, size_t from, size_t count, size_t size) {
    for (size_t i = 0; i < count && from + 4 * i + 4 <= size; i++) swap32(b + from + 4 * i);
}
static void swap16_run(unsigned char* b, size_t from, size_t count, size_t size) {
    for (size_t i = 0; i < count && from + 2 * i + 2 <= size; i++) swap16(b + from + 2 * i);
}

/* A u32 of a block that is in host order (to_le) or already swapped to host order (!to_le). */
static uint32_t host32(const unsigned char* p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* A skeleton block read from a file: little-endian to host order. */
static void swap_skeleton_block(unsigned char* b, size_t size) {
    if (size < 64) return;
    swap32(b);
    swap32(b + 4);
    swap64(b + 8);
    swap32_run(b, 48, 4, size); /* joint_count, rest, parents and names offsets */
    const size_t n = host32(b + 48);
    if (n > BSYNC_MAX_JOINTS) return;
    swap32_run(b, host32(b + 52), n * 10u, size); /* bsync_trs: 10 fix16 */
    swap16_run(b, host32(b + 56), n, size);       /* parents */
    swap32_run(b, host32(b + 60), n, size);       /* name offsets */
}
/* A skeleton block being written: host order to little-endian. */
static void swap_skeleton_to_le(unsigned char* b, size_t size) {
    if (size < 64) return;
    /* counts are read in host order first, so swap the arrays before the header */
    const size_t n = host32(b + 48);
    if (n <= BSYNC_MAX_JOINTS) {
        swap32_run(b, host32(b + 52), n * 10u, size);
        swap16_run(b, host32(b + 56), n, size);
        swap32_run(b, host32(b + 60), n, size);
    }
    swap32(b);
    swap32(b + 4);
    swap64(b + 8);
    swap32_run(b, 48, 4, size);
}

/* The clip block's arrays (its header already in host order): track records, lookup, then 32-bit
 * key times and values up to the block end (the padding is zero either way). */
static void swap_clip_arrays(unsigned char* b, size_t size) {
    if (host32(b + 4) == 2u) { /* compact keys: a 16-byte header of u32, then 16-bit words only */
        swap32_run(b, 152, 4, size);
        if (size > 168) swap16_run(b, 168, (size - 168) / 2u, size);
        return;
    }
    const size_t jc = host32(b + 64), tc = host32(b + 68);
    const size_t tracks = host32(b + 76), lookup = host32(b + 80);
    if (jc > BSYNC_MAX_JOINTS || tc > 3u * BSYNC_MAX_JOINTS || tracks > size || lookup > size) return;
    swap32_run(b, tracks, tc * 6u, size);
    swap16_run(b, lookup, jc * 3u, size);
    const size_t data = lookup + ((jc * 3u * 2u + 3u) & ~(size_t)3u);
    if (data < size) swap32_run(b, data, (size - data) / 4u, size);
}
static void swap_clip_header(unsigned char* b) {
    swap32(b);
    swap32(b + 4);
    swap64(b + 8);
    swap64(b + 48); /* fingerprint */
    for (int i = 0; i < 8; i++) swap32(b + 56 + 4 * i);
}

/* FNV-1a 64 of a clip block with its fingerprint read as zero (clip.c's rule, over these bytes). */
static uint64_t clip_fingerprint(const unsigned char* b, size_t size) {
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < size; i++) {
        h ^= (i >= 48 && i < 56) ? 0u : b[i];
        h *= 0x100000001B3ull;
    }
    return h;
}

uint64_t bsync_clip_file_checksum(const void* data, size_t size) {
    if (!data || size < 32) return 0;
    static const unsigned char zeros[8] = {0};
    bsync_checksum_state st;
    bsync_checksum_init(&st, 0);
    bsync_checksum_bytes(&st, data, 24);
    bsync_checksum_bytes(&st, zeros, 8);
    bsync_checksum_bytes(&st, (const unsigned char*)data + 32, size - 32);
    return bsync_checksum_final(&st);
}

/* ---- clip actions (version 3; docs/clip-format.md "Clip actions"): a section after the blocks, u32 count,
 * u32 0, then per action u32 clip, u32 kind, u8 name[64] (NUL-padded), fx time, fx end, i32 payload,
 * u32 key_count, key_count fx times, key_count fx values; all little-endian. */
#define ACTION_HEAD 88u

static size_t name_len(const char* s) {
    size_t n = 0;
    while (n < BSYNC_MAX_NAME && s[n]) n++;
    return n;
}

/* The rules of one action against its clip, and of the list (grouped by clip; per clip, markers by
 * time without a (name, time) twice and one curve per name; at most BSYNC_CLIP_FILE_MAX_ACTIONS). */
static int action_ok(const bsync_clip_action* a, const bsync_clip* const* clips, uint32_t clip_count) {
    if (a->clip >= clip_count || !a->name) return 0;
    const size_t n = name_len(a->name);
    if (n == 0 || n >= BSYNC_MAX_NAME) return 0;
    const fix16_t dur = bsync_clip_duration(clips[a->clip]);
    switch (a->kind) {
    case BSYNC_CLIP_ACTION_EVENT:
        return a->time >= 0 && a->time <= dur && a->end == 0 && a->key_count == 0;
    case BSYNC_CLIP_ACTION_RANGE:
        return a->time >= 0 && a->time < a->end && a->end <= dur && a->key_count == 0;
    case BSYNC_CLIP_ACTION_MARKER:
        return a->time >= 0 && a->time < dur && a->end == 0 && a->payload == 0 && a->key_count == 0;
    case BSYNC_CLIP_ACTION_CURVE:
        if (a->time != 0 || a->end != 0 || a->payload != 0 || a->key_count < 1 || a->key_count > 4096u ||
            !a->key_times || !a->key_values)
            return 0;
        for (uint32_t k = 0; k < a->key_count; k++)
            if (a->key_times[k] < 0 || a->key_times[k] > dur || (k > 0 && a->key_times[k] <= a->key_times[k - 1]))
                return 0;
        return 1;
    default:
        return 0;
    }
}

static int actions_ok(const bsync_clip_action* a, uint32_t count, const bsync_clip* const* clips, uint32_t clip_count) {
    if (count > BSYNC_CLIP_FILE_MAX_ACTIONS || (count && !a)) return 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!action_ok(&a[i], clips, clip_count) || (i > 0 && a[i].clip < a[i - 1].clip)) return 0;
        for (uint32_t j = i; j-- > 0 && a[j].clip == a[i].clip;) {
            if (a[i].kind != a[j].kind || (a[i].kind != BSYNC_CLIP_ACTION_MARKER && a[i].kind != BSYNC_CLIP_ACTION_CURVE))
                continue;
            if (a[i].kind == BSYNC_CLIP_ACTION_MARKER && a[i].time < a[j].time) return 0;
            if (!strcmp(a[i].name, a[j].name) && (a[i].kind == BSYNC_CLIP_ACTION_CURVE || a[i].time == a[j].time)) return 0;
        }
    }
    return 1;
}

static size_t actions_bytes(const bsync_clip_action* a, uint32_t count) {
    size_t n = 8;
    for (uint32_t i = 0; i < count; i++) n += ACTION_HEAD + 8u * (size_t)a[i].key_count;
    return n;
}

static void put_actions(unsigned char* p, const bsync_clip_action* a, uint32_t count) {
    bsync_le_put32(p, count);
    p += 8;
    for (uint32_t i = 0; i < count; i++) {
        bsync_le_put32(p, a[i].clip);
        bsync_le_put32(p + 4, (uint32_t)a[i].kind);
        memcpy(p + 8, a[i].name, name_len(a[i].name)); /* the rest of the 64 bytes stays zero */
        bsync_le_put32(p + 72, (uint32_t)a[i].time);
        bsync_le_put32(p + 76, (uint32_t)a[i].end);
        bsync_le_put32(p + 80, (uint32_t)a[i].payload);
        bsync_le_put32(p + 84, a[i].key_count);
        p += ACTION_HEAD;
        for (uint32_t k = 0; k < a[i].key_count; k++) bsync_le_put32(p + 4u * k, (uint32_t)a[i].key_times[k]);
        p += 4u * (size_t)a[i].key_count;
        for (uint32_t k = 0; k < a[i].key_count; k++) bsync_le_put32(p + 4u * k, (uint32_t)a[i].key_values[k]);
        p += 4u * (size_t)a[i].key_count;
    }
}

/* Action `i` of a section in host order (after load), pointers into it; the walk is bounded by the
 * section's size, which the load checked entry by entry. */
static void get_action(const unsigned char* sec, uint32_t index, bsync_clip_action* out) {
    const unsigned char* p = sec + 8;
    for (uint32_t i = 0;; i++) {
        uint32_t kc;
        memcpy(&kc, p + 84, 4);
        if (i == index) {
            uint32_t v[2];
            int32_t w[3];
            memcpy(v, p, 8);
            memcpy(w, p + 72, 12);
            out->clip = v[0];
            out->kind = (bsync_clip_action_kind)v[1];
            out->name = (const char*)(p + 8);
            out->time = w[0];
            out->end = w[1];
            out->payload = w[2];
            out->key_count = kc;
            out->key_times = kc ? (const fix16_t*)(const void*)(p + ACTION_HEAD) : NULL;
            out->key_values = kc ? (const fix16_t*)(const void*)(p + ACTION_HEAD + 4u * (size_t)kc) : NULL;
            return;
        }
        p += ACTION_HEAD + 8u * (size_t)kc;
    }
}

/* A section (after its checks) from little-endian to host order: every field but the names is 32-bit. */
static void section_to_host(unsigned char* sec, uint32_t count) {
    if (!host_is_big_endian()) return;
    swap32(sec);
    unsigned char* q = sec + 8;
    for (uint32_t i = 0; i < count; i++) {
        swap32_run(q, 0, 2, ACTION_HEAD);
        swap32_run(q, 72, 4, ACTION_HEAD);
        uint32_t kc;
        memcpy(&kc, q + 84, 4);
        swap32_run(q, ACTION_HEAD, 2u * (size_t)kc, ACTION_HEAD + 8u * (size_t)kc);
        q += ACTION_HEAD + 8u * (size_t)kc;
    }
}

bsync_result imp_attach_actions(bsync_asset* asset, const bsync_clip_action* actions, uint32_t count, const char* file,
                                bsync_error* err) {
    if (count == 0) return BSYNC_OK;
    const bsync_clip* const* clips = (const bsync_clip* const*)asset->clips;
    for (uint32_t i = 0; i < count; i++)
        if (!action_ok(&actions[i], clips, asset->clip_count))
            return imp_fail(err, BSYNC_BAD_BLOB, file,
                            "clip '%s': %s '%s': a time outside the clip, an empty range, keys not ascending or a bad name",
                            actions[i].clip < asset->clip_count ? bsync_clip_name(clips[actions[i].clip]) : "?",
                            actions[i].kind == BSYNC_CLIP_ACTION_CURVE    ? "curve"
                            : actions[i].kind == BSYNC_CLIP_ACTION_MARKER ? "marker"
                                                                          : "event",
                            actions[i].name ? actions[i].name : "");
    if (!actions_ok(actions, count, clips, asset->clip_count))
        return imp_fail(err, BSYNC_BAD_BLOB, file,
                        "clip actions: a marker twice (same name and time), a curve twice, or more than %u in all",
                        BSYNC_CLIP_FILE_MAX_ACTIONS);
    /* a version-3 header with only the section (what asset_section reads), host order */
    const size_t sec = actions_bytes(actions, count);
    unsigned char* m = calloc(1, BSYNC_CLIP_FILE_HEADER_SIZE + align8(sec));
    if (!m) return imp_fail(err, BSYNC_OUT_OF_MEMORY, file, "out of memory");
    memcpy(m, k_magic, 8);
    bsync_le_put32(m + 8, BSYNC_CLIP_FILE_VERSION_ACTIONS);
    bsync_le_put64(m + 40, BSYNC_CLIP_FILE_HEADER_SIZE);
    bsync_le_put64(m + 48, sec);
    put_actions(m + BSYNC_CLIP_FILE_HEADER_SIZE, actions, count);
    section_to_host(m + BSYNC_CLIP_FILE_HEADER_SIZE, count);
    free(asset->memory_);
    asset->memory_ = m;
    return BSYNC_OK;
}

/* The section of a loaded asset's file copy (version 3), or NULL. */
static const unsigned char* asset_section(const bsync_asset* asset, uint32_t* count) {
    const unsigned char* m = asset ? (const unsigned char*)asset->memory_ : NULL;
    *count = 0;
    if (!m || memcmp(m, k_magic, 8) != 0 || bsync_le_get32(m + 8) != BSYNC_CLIP_FILE_VERSION_ACTIONS) return NULL;
    const unsigned char* sec = m + bsync_le_get64(m + 40);
    memcpy(count, sec, 4);
    return sec;
}

uint32_t bsync_asset_clip_action_count(const bsync_asset* asset) {
    uint32_t n;
    (void)asset_section(asset, &n);
    return n;
}

bsync_result bsync_asset_get_clip_action(const bsync_asset* asset, uint32_t index, bsync_clip_action* out) {
    uint32_t n;
    const unsigned char* sec = asset_section(asset, &n);
    if (!sec || !out || index >= n) return BSYNC_INVALID_ARGUMENT;
    get_action(sec, index, out);
    return BSYNC_OK;
}

size_t bsync_clip_file_size(const bsync_skeleton* skeleton, const bsync_clip* const* clips, uint32_t clip_count) {
    if (!skeleton || (clip_count && !clips) || clip_count > BSYNC_IMPORT_MAX_CLIPS) return 0;
    size_t size = BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)(clip_count + 1) * 16;
    size = align8(size) + align8(bsync_skeleton_block_size(skeleton));
    for (uint32_t i = 0; i < clip_count; i++) {
        if (!clips[i]) return 0;
        size += align8(bsync_clip_block_size(clips[i]));
    }
    return size;
}

size_t bsync_clip_file_size_ex(const bsync_skeleton* skeleton, const bsync_clip* const* clips, uint32_t clip_count,
                               const bsync_clip_action* actions, uint32_t action_count) {
    const size_t base = bsync_clip_file_size(skeleton, clips, clip_count);
    if (base == 0 || action_count == 0) return base;
    if (!actions_ok(actions, action_count, clips, clip_count)) return 0;
    return base + align8(actions_bytes(actions, action_count));
}

static bsync_result write_file(const bsync_skeleton* skeleton, const bsync_clip* const* clips, uint32_t clip_count,
                               const bsync_clip_action* actions, uint32_t action_count, void* buf, size_t size);

bsync_result bsync_clip_file_write_memory(const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                          uint32_t clip_count, void* buf, size_t size) {
    return write_file(skeleton, clips, clip_count, NULL, 0, buf, size);
}

bsync_result bsync_clip_file_write_memory_ex(const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                             uint32_t clip_count, const bsync_clip_action* actions,
                                             uint32_t action_count, void* buf, size_t size) {
    return write_file(skeleton, clips, clip_count, actions, action_count, buf, size);
}

static bsync_result write_file(const bsync_skeleton* skeleton, const bsync_clip* const* clips, uint32_t clip_count,
                               const bsync_clip_action* actions, uint32_t action_count, void* buf, size_t size) {
    if (!skeleton || !buf || (clip_count && !clips)) return BSYNC_INVALID_ARGUMENT;
    if (clip_count > BSYNC_IMPORT_MAX_CLIPS) return BSYNC_LIMIT_EXCEEDED;
    for (uint32_t i = 0; i < clip_count; i++)
        if (!clips[i] || bsync_clip_joint_count(clips[i]) != bsync_skeleton_joint_count(skeleton))
            return BSYNC_INVALID_ARGUMENT;
    size_t need = bsync_clip_file_size_ex(skeleton, clips, clip_count, actions, action_count);
    if (need == 0) return BSYNC_INVALID_ARGUMENT;
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;
    unsigned char* p = buf;
    memset(p, 0, need);
    memcpy(p, k_magic, 8);
    uint32_t version = BSYNC_CLIP_FILE_VERSION;
    for (uint32_t i = 0; i < clip_count; i++)
        if (bsync_clip_encoding(clips[i]) != 0) version = BSYNC_CLIP_FILE_VERSION_COMPACT;
    if (action_count > 0) version = BSYNC_CLIP_FILE_VERSION_ACTIONS; /* only files with actions */
    bsync_le_put32(p + 8, version);
    bsync_le_put32(p + 12, BSYNC_CLIP_FILE_HEADER_SIZE);
    bsync_le_put64(p + 16, need);
    bsync_le_put32(p + 32, clip_count + 1);
    bsync_le_put32(p + 36, 1); /* metres, Y up, right-handed */
    size_t off = align8(BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)(clip_count + 1) * 16);
    for (uint32_t b = 0; b <= clip_count; b++) {
        const void* blk = b == 0 ? (const void*)skeleton : (const void*)clips[b - 1];
        size_t bs = b == 0 ? bsync_skeleton_block_size(skeleton) : bsync_clip_block_size(clips[b - 1]);
        bsync_le_put64(p + BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)b * 16, off);
        bsync_le_put64(p + BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)b * 16 + 8, bs);
        memcpy(p + off, blk, bs);
        /* the allocator slot belongs to the process that built the block: stored as zero */
        memset(p + off + offsetof(bsync_block_header, alloc), 0, sizeof(((bsync_block_header*)0)->alloc));
        if (host_is_big_endian()) {
            if (b == 0) {
                swap_skeleton_to_le(p + off, bs);
            } else if (bs >= 152) {
                swap_clip_arrays(p + off, bs);
                swap_clip_header(p + off);
                /* the fingerprint of the little-endian bytes: what a little-endian host stores */
                bsync_le_put64(p + off + 48, clip_fingerprint(p + off, bs));
            }
        }
        off += align8(bs);
    }
    if (action_count > 0) {
        bsync_le_put64(p + 40, off);
        bsync_le_put64(p + 48, actions_bytes(actions, action_count));
        put_actions(p + off, actions, action_count);
    }
    bsync_le_put64(p + 24, bsync_clip_file_checksum(p, need));
    return BSYNC_OK;
}

bsync_result bsync_clip_file_save(const char* path, const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                  uint32_t clip_count, bsync_error* err) {
    return bsync_clip_file_save_ex(path, skeleton, clips, clip_count, NULL, 0, err);
}

bsync_result bsync_clip_file_save_ex(const char* path, const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                     uint32_t clip_count, const bsync_clip_action* actions, uint32_t action_count,
                                     bsync_error* err) {
    if (!path) return imp_fail(err, BSYNC_INVALID_ARGUMENT, "(no path)", "no output path");
    size_t size = bsync_clip_file_size_ex(skeleton, clips, clip_count, actions, action_count);
    if (size == 0) return imp_fail(err, BSYNC_INVALID_ARGUMENT, path, "nothing valid to write");
    void* buf = malloc(size);
    if (!buf) return imp_fail(err, BSYNC_OUT_OF_MEMORY, path, "out of memory");
    bsync_result r = write_file(skeleton, clips, clip_count, actions, action_count, buf, size);
    if (r != BSYNC_OK) {
        free(buf);
        return imp_fail(err, r, path, "cannot serialise: %s", bsync_result_string(r));
    }
    r = bsync_file_write(path, buf, size);
    free(buf);
    if (r == BSYNC_OUT_OF_MEMORY) return imp_fail(err, r, path, "out of memory");
    if (r != BSYNC_OK) return imp_fail(err, BSYNC_IO_ERROR, path, "cannot write the file");
    return BSYNC_OK;
}

static bsync_result bad(bsync_error* err, const char* name, const char* what, uint32_t block) {
    if (block == UINT32_MAX) return imp_fail(err, BSYNC_BAD_BLOB, name, "not a valid .bsclip file: %s", what);
    return imp_fail(err, BSYNC_BAD_BLOB, name, "not a valid .bsclip file: block %u (%s): %s", (unsigned)block,
                    block == 0 ? "skeleton" : "clip", what);
}

bsync_result bsync_clip_file_load_memory(const void* data, size_t size, const char* name, bsync_asset* out,
                                         bsync_error* err) {
    if (!name) name = "(memory)";
    if (!out) return imp_fail(err, BSYNC_INVALID_ARGUMENT, name, "no output asset");
    memset(out, 0, sizeof *out);
    if (!data) return imp_fail(err, BSYNC_INVALID_ARGUMENT, name, "no data");
    const unsigned char* p = data;
    if (size < BSYNC_CLIP_FILE_HEADER_SIZE) return bad(err, name, "shorter than the 64-byte header", UINT32_MAX);
    if (memcmp(p, k_magic, 8) != 0) return bad(err, name, "bad magic", UINT32_MAX);
    const uint32_t version = bsync_le_get32(p + 8);
    if (version != BSYNC_CLIP_FILE_VERSION && version != BSYNC_CLIP_FILE_VERSION_COMPACT &&
        version != BSYNC_CLIP_FILE_VERSION_ACTIONS)
        return imp_fail(err, BSYNC_BAD_BLOB, name,
                        "not a valid .bsclip file: unsupported version %u (this build reads versions 1 to 3)",
                        (unsigned)version);
    if (bsync_le_get32(p + 12) != BSYNC_CLIP_FILE_HEADER_SIZE) return bad(err, name, "bad header size", UINT32_MAX);
    if (bsync_le_get64(p + 16) != (uint64_t)size) return bad(err, name, "file size in the header differs (truncated?)", UINT32_MAX);
    if (bsync_le_get64(p + 24) != bsync_clip_file_checksum(p, size)) return bad(err, name, "checksum mismatch", UINT32_MAX);
    uint32_t blocks = bsync_le_get32(p + 32);
    if (blocks < 1 || blocks > BSYNC_IMPORT_MAX_CLIPS + 1) return bad(err, name, "bad block count", UINT32_MAX);
    if (bsync_le_get32(p + 36) != 1) return bad(err, name, "unknown convention", UINT32_MAX);
    const int with_actions = version == BSYNC_CLIP_FILE_VERSION_ACTIONS;
    for (int i = with_actions ? 56 : 40; i < 64; i++)
        if (p[i] != 0) return bad(err, name, "reserved header bytes are not zero", UINT32_MAX);
    size_t dir_end = BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)blocks * 16;
    if (dir_end > size) return bad(err, name, "block directory runs past the end", UINT32_MAX);
    /* the blocks: contiguous, 8-aligned, zero padding, ending at the file size */
    size_t expect = align8(dir_end);
    for (size_t i = dir_end; i < expect && i < size; i++)
        if (p[i] != 0) return bad(err, name, "padding is not zero", UINT32_MAX);
    for (uint32_t b = 0; b < blocks; b++) {
        uint64_t off = bsync_le_get64(p + BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)b * 16);
        uint64_t bs = bsync_le_get64(p + BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)b * 16 + 8);
        if (off != expect || bs > size || off > size - bs) return bad(err, name, "offset or size out of place", b);
        size_t end = (size_t)(off + bs);
        expect = align8(end);
        for (size_t i = end; i < expect && i < size; i++)
            if (p[i] != 0) return bad(err, name, "padding is not zero", b);
    }
    uint32_t action_count = 0;
    size_t sec_off = 0;
    if (with_actions) { /* the actions section: right after the blocks, walked entry by entry */
        const uint64_t so = bsync_le_get64(p + 40), ss = bsync_le_get64(p + 48);
        if (so != expect || ss < 8 || ss > size || so > size - ss) return bad(err, name, "version 3: the actions section is out of place", UINT32_MAX);
        sec_off = (size_t)so;
        action_count = bsync_le_get32(p + sec_off);
        if (action_count < 1 || action_count > BSYNC_CLIP_FILE_MAX_ACTIONS || bsync_le_get32(p + sec_off + 4) != 0)
            return bad(err, name, "bad action count", UINT32_MAX);
        size_t at = sec_off + 8;
        const size_t sec_end = sec_off + (size_t)ss;
        for (uint32_t i = 0; i < action_count; i++) {
            if (sec_end - at < ACTION_HEAD) return bad(err, name, "the actions section is truncated", UINT32_MAX);
            const uint32_t kc = bsync_le_get32(p + at + 84);
            if (kc > 4096u || (sec_end - at - ACTION_HEAD) / 8u < kc) return bad(err, name, "the actions section is truncated", UINT32_MAX);
            const unsigned char* nm = p + at + 8;
            size_t n = 0;
            while (n < BSYNC_MAX_NAME && nm[n]) n++;
            if (n == 0 || n == BSYNC_MAX_NAME) return bad(err, name, "an action's name is empty or not terminated", UINT32_MAX);
            for (size_t k = n; k < BSYNC_MAX_NAME; k++)
                if (nm[k] != 0) return bad(err, name, "an action's name has bytes after its end", UINT32_MAX);
            at += ACTION_HEAD + 8u * (size_t)kc;
        }
        if (at != sec_end) return bad(err, name, "the actions section has bytes after its last action", UINT32_MAX);
        expect = align8(sec_end);
        for (size_t i = sec_end; i < expect && i < size; i++)
            if (p[i] != 0) return bad(err, name, "padding is not zero", UINT32_MAX);
    }
    if (expect != size) return bad(err, name, "blocks do not end at the file size", UINT32_MAX);
    /* own, 8-aligned copy (malloc aligns to at least 8 on every supported target) */
    unsigned char* mem = malloc(size);
    if (!mem) return imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
    memcpy(mem, p, size);
    out->memory_ = mem;
    if (host_is_big_endian()) { /* the blocks into host order (the layout was checked above) */
        for (uint32_t b = 0; b < blocks; b++) {
            unsigned char* blk = mem + bsync_le_get64(mem + BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)b * 16);
            size_t bs = (size_t)bsync_le_get64(mem + BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)b * 16 + 8);
            if (b == 0) {
                swap_skeleton_block(blk, bs);
            } else if (bs >= 152) {
                swap_clip_header(blk);
                swap_clip_arrays(blk, bs);
                /* the file's fingerprint is of its little-endian bytes; the block in memory carries
                 * the one of its host-order bytes (the file checksum has vouched for the content) */
                uint64_t f = clip_fingerprint(blk, bs);
                memcpy(blk + 48, &f, 8);
            }
        }
    }
    const bsync_skeleton* skel = NULL;
    {
        uint64_t off = bsync_le_get64(mem + BSYNC_CLIP_FILE_HEADER_SIZE), bs = bsync_le_get64(mem + BSYNC_CLIP_FILE_HEADER_SIZE + 8);
        if (bsync_skeleton_block_validate(mem + off, (size_t)bs, &skel) != BSYNC_OK) {
            bsync_asset_destroy(out);
            return bad(err, name, "the skeleton block is corrupt", 0);
        }
    }
    out->skeleton = (bsync_skeleton*)(uintptr_t)skel;
    out->clip_count = blocks - 1;
    out->clips = calloc(blocks, sizeof *out->clips);
    out->stats = calloc(blocks, sizeof *out->stats);
    if (!out->clips || !out->stats) {
        bsync_asset_destroy(out);
        return imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
    }
    for (uint32_t b = 1; b < blocks; b++) {
        uint64_t off = bsync_le_get64(mem + BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)b * 16);
        uint64_t bs = bsync_le_get64(mem + BSYNC_CLIP_FILE_HEADER_SIZE + (size_t)b * 16 + 8);
        const bsync_clip* clip = NULL;
        bsync_result r = bsync_clip_block_validate(mem + off, (size_t)bs, skel, &clip);
        if (r != BSYNC_OK) {
            bsync_asset_destroy(out);
            return bad(err, name, r == BSYNC_MISMATCH ? "built for another joint count" : "the clip block is corrupt", b);
        }
        if (version == BSYNC_CLIP_FILE_VERSION && bsync_clip_encoding(clip) != 0) {
            bsync_asset_destroy(out);
            return bad(err, name, "compact keys (clip block version 2) in a version-1 file", b);
        }
        out->clips[b - 1] = (bsync_clip*)(uintptr_t)clip;
    }
    if (with_actions) { /* into host order (every field but the names is 32-bit), then the rules */
        unsigned char* sec = mem + sec_off;
        section_to_host(sec, action_count);
        bsync_clip_action* list = malloc((size_t)action_count * sizeof *list);
        if (!list) {
            bsync_asset_destroy(out);
            return imp_fail(err, BSYNC_OUT_OF_MEMORY, name, "out of memory");
        }
        for (uint32_t i = 0; i < action_count; i++) get_action(sec, i, &list[i]);
        const int ok = actions_ok(list, action_count, (const bsync_clip* const*)out->clips, out->clip_count);
        free(list);
        if (!ok) {
            bsync_asset_destroy(out);
            return bad(err, name,
                       "an action breaks the rules (clip index, kind, times within the clip, markers sorted and unique, "
                       "curve keys ascending, one curve per name, grouped by clip)",
                       UINT32_MAX);
        }
    }
    out->file_checksum = bsync_le_get64(mem + 24);
    snprintf(out->source, sizeof out->source, "%.200s: blendsync clip file v%u (metres, Y up)", imp_basename(name),
             (unsigned)version);
    return BSYNC_OK;
}

bsync_result bsync_clip_file_load(const char* path, bsync_asset* out, bsync_error* err) {
    unsigned char* data;
    size_t size;
    bsync_result r = imp_read_input(NULL, path, out, &data, &size, err);
    if (r != BSYNC_OK) return r;
    r = bsync_clip_file_load_memory(data, size, path, out, err);
    free(data);
    return r;
}
