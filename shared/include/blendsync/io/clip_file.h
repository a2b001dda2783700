/* blendsync/io/clip_file.h — the native clip file (.bsclip): one skeleton and N clips, fixed point,
 * loaded without parsing.
 *
 * Index
 *   bsync_clip_file_size / bsync_clip_file_write_memory   serialise an asset into bytes
 *   bsync_clip_file_save                                   write a file (temp file + rename)
 *   bsync_clip_file_load_memory / bsync_clip_file_load     check and load
 *   bsync_clip_file_checksum                               the checksum rule, for tools and tests
 *
 * Layout (little-endian; every offset from the file start):
 *   0   u8[8]  magic "BSCLIP\r\n" (0x42 0x53 0x43 0x4C 0x49 0x50 0x0D 0x0A: catches text-mode mangling)
 *   8   u32    version: 1, or 2 when a clip block has compact keys (clip block version 2,
 *                 clip.h bsync_clip_compact_*); the writer writes 1 whenever no clip is compact, so
 *                 such files keep their bytes; readers before version 2 refuse a version-2 file
 *   12  u32    header size (64)
 *   16  u64    file size
 *   24  u64    checksum: XXH64, seed 0, of the whole file with these 8 bytes read as zero
 *   32  u32    block count B = 1 + clip count (1 .. 1 + BSYNC_IMPORT_MAX_CLIPS)
 *   36  u32    convention: 1 = metres, Y up, right-handed (asset.h)
 *   40  u8[24] reserved, zero
 *   64  B x {u64 offset, u64 size}: block 0 the skeleton, then the clips in order
 *   then the blocks, each at an 8-aligned offset right after the previous (zero padding), the last
 *   ending at the file size.
 * A block is the core's own relocatable block (skeleton.h / clip.h) with its allocator slot zero,
 * byte for byte (a compact block's 16-bit words each little-endian); loading checks the checksum, then every field of every block
 * (bsync_skeleton_block_validate, bsync_clip_block_validate), then uses the blocks in place.
 *
 * Any bad byte is an error, never a crash: BSYNC_BAD_BLOB with a message naming the file and what is
 * wrong ("bad magic", "checksum mismatch", "block 3 (clip): ..."); BSYNC_IO_ERROR for an unreadable
 * or unwritable file. Writing the same asset twice gives identical bytes.
 */
#ifndef BLENDSYNC_IO_CLIP_FILE_H
#define BLENDSYNC_IO_CLIP_FILE_H

#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_CLIP_FILE_VERSION 1u         /* default clip blocks only */
#define BSYNC_CLIP_FILE_VERSION_COMPACT 2u /* at least one compact clip block */
#define BSYNC_CLIP_FILE_HEADER_SIZE 64u

/* Bytes the file for this skeleton and these clips takes; 0 for invalid arguments. */
BSYNC_API size_t bsync_clip_file_size(const bsync_skeleton* skeleton, const bsync_clip* const* clips, uint32_t clip_count);
/* Serialise into buf (size >= bsync_clip_file_size). BSYNC_INVALID_ARGUMENT for a NULL argument or a
 * clip built for another joint count, BSYNC_BUFFER_TOO_SMALL, BSYNC_LIMIT_EXCEEDED for too many clips. */
BSYNC_API bsync_result bsync_clip_file_write_memory(const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                          uint32_t clip_count, void* buf, size_t size);
/* Write `path` through `path.tmp.<pid>` and rename (an existing file is replaced only when complete). */
BSYNC_API bsync_result bsync_clip_file_save(const char* path, const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                  uint32_t clip_count, bsync_error* err);
/* Check and load (the bytes are copied into memory the asset owns; `name` is used in messages). */
BSYNC_API bsync_result bsync_clip_file_load_memory(const void* data, size_t size, const char* name, bsync_asset* out,
                                         bsync_error* err);
BSYNC_API bsync_result bsync_clip_file_load(const char* path, bsync_asset* out, bsync_error* err);
/* The checksum rule above, over `size` bytes (size >= 32; else 0). */
BSYNC_API uint64_t bsync_clip_file_checksum(const void* data, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_CLIP_FILE_H */
