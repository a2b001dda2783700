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

bsync_result bsync_clip_file_write_memory(const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                          uint32_t clip_count, void* buf, size_t size) {
    if (!skeleton || !buf || (clip_count && !clips)) return BSYNC_INVALID_ARGUMENT;
    if (clip_count > BSYNC_IMPORT_MAX_CLIPS) return BSYNC_LIMIT_EXCEEDED;
    for (uint32_t i = 0; i < clip_count; i++)
        if (!clips[i] || bsync_clip_joint_count(clips[i]) != bsync_skeleton_joint_count(skeleton))
            return BSYNC_INVALID_ARGUMENT;
    size_t need = bsync_clip_file_size(skeleton, clips, clip_count);
    if (need == 0) return BSYNC_INVALID_ARGUMENT;
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;
    unsigned char* p = buf;
    memset(p, 0, need);
    memcpy(p, k_magic, 8);
    uint32_t version = BSYNC_CLIP_FILE_VERSION;
    for (uint32_t i = 0; i < clip_count; i++)
        if (bsync_clip_encoding(clips[i]) != 0) version = BSYNC_CLIP_FILE_VERSION_COMPACT;
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
    bsync_le_put64(p + 24, bsync_clip_file_checksum(p, need));
    return BSYNC_OK;
}

bsync_result bsync_clip_file_save(const char* path, const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                  uint32_t clip_count, bsync_error* err) {
    if (!path) return imp_fail(err, BSYNC_INVALID_ARGUMENT, "(no path)", "no output path");
    size_t size = bsync_clip_file_size(skeleton, clips, clip_count);
    if (size == 0) return imp_fail(err, BSYNC_INVALID_ARGUMENT, path, "nothing valid to write");
    void* buf = malloc(size);
    if (!buf) return imp_fail(err, BSYNC_OUT_OF_MEMORY, path, "out of memory");
    bsync_result r = bsync_clip_file_write_memory(skeleton, clips, clip_count, buf, size);
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
    if (version != BSYNC_CLIP_FILE_VERSION && version != BSYNC_CLIP_FILE_VERSION_COMPACT)
        return imp_fail(err, BSYNC_BAD_BLOB, name,
                        "not a valid .bsclip file: unsupported version %u (this build reads versions 1 and 2)",
                        (unsigned)version);
    if (bsync_le_get32(p + 12) != BSYNC_CLIP_FILE_HEADER_SIZE) return bad(err, name, "bad header size", UINT32_MAX);
    if (bsync_le_get64(p + 16) != (uint64_t)size) return bad(err, name, "file size in the header differs (truncated?)", UINT32_MAX);
    if (bsync_le_get64(p + 24) != bsync_clip_file_checksum(p, size)) return bad(err, name, "checksum mismatch", UINT32_MAX);
    uint32_t blocks = bsync_le_get32(p + 32);
    if (blocks < 1 || blocks > BSYNC_IMPORT_MAX_CLIPS + 1) return bad(err, name, "bad block count", UINT32_MAX);
    if (bsync_le_get32(p + 36) != 1) return bad(err, name, "unknown convention", UINT32_MAX);
    for (int i = 40; i < 64; i++)
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
