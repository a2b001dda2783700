/* blendsync/io/clip_file.h — the .bsclip file: a skeleton and N clips, loaded without parsing.
 *
 * Index
 *   bsync_clip_file_size, bsync_clip_file_write_memory, bsync_clip_file_save
 *   bsync_clip_file_load_memory, bsync_clip_file_load   check and load
 *   bsync_clip_file_checksum
 *   bsync_clip_file_size_ex, _write_memory_ex, _save_ex   with clip actions (version 3)
 *
 * Bad bytes: BSYNC_BAD_BLOB. design: docs/import.md#the-bsclip-file
 */
#ifndef BLENDSYNC_IO_CLIP_FILE_H
#define BLENDSYNC_IO_CLIP_FILE_H

#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_CLIP_FILE_VERSION 1u
#define BSYNC_CLIP_FILE_VERSION_COMPACT 2u /* a compact clip block */
#define BSYNC_CLIP_FILE_VERSION_ACTIONS 3u /* clip actions: events, ranges, markers, curves */
#define BSYNC_CLIP_FILE_HEADER_SIZE 64u
#define BSYNC_CLIP_FILE_MAX_ACTIONS 8192u

/* 0 for invalid arguments. */
BSYNC_API size_t bsync_clip_file_size(const bsync_skeleton* skeleton, const bsync_clip* const* clips, uint32_t clip_count);
/* BSYNC_INVALID_ARGUMENT, BSYNC_BUFFER_TOO_SMALL, BSYNC_LIMIT_EXCEEDED. */
BSYNC_API bsync_result bsync_clip_file_write_memory(const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                          uint32_t clip_count, void* buf, size_t size);
/* Through path.tmp.<pid> and a rename. */
BSYNC_API bsync_result bsync_clip_file_save(const char* path, const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                  uint32_t clip_count, bsync_error* err);
/* The asset owns a copy of the bytes. */
BSYNC_API bsync_result bsync_clip_file_load_memory(const void* data, size_t size, const char* name, bsync_asset* out,
                                         bsync_error* err);
BSYNC_API bsync_result bsync_clip_file_load(const char* path, bsync_asset* out, bsync_error* err);
/* With clip actions (asset.h; grouped by clip, checked against the clips): version 3 when
 * action_count > 0, else exactly the calls above. BSYNC_INVALID_ARGUMENT for a bad action. */
BSYNC_API size_t bsync_clip_file_size_ex(const bsync_skeleton* skeleton, const bsync_clip* const* clips, uint32_t clip_count,
                                         const bsync_clip_action* actions, uint32_t action_count);
BSYNC_API bsync_result bsync_clip_file_write_memory_ex(const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                                       uint32_t clip_count, const bsync_clip_action* actions,
                                                       uint32_t action_count, void* buf, size_t size);
BSYNC_API bsync_result bsync_clip_file_save_ex(const char* path, const bsync_skeleton* skeleton, const bsync_clip* const* clips,
                                               uint32_t clip_count, const bsync_clip_action* actions, uint32_t action_count,
                                               bsync_error* err);
/* size >= 32, else 0. */
BSYNC_API uint64_t bsync_clip_file_checksum(const void* data, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_CLIP_FILE_H */
