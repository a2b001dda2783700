/* blendsync/io/bvh.h — Biovision Hierarchy import. design: docs/import.md#bvh-specifics-iobvhh
 *
 * Index
 *   bsync_bvh_import_file     a .bvh file
 *   bsync_bvh_import_memory   the same from text
 */
#ifndef BLENDSYNC_IO_BVH_H
#define BLENDSYNC_IO_BVH_H

#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_BVH_DEFAULT_SCALE 0.01

BSYNC_API bsync_result bsync_bvh_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                   bsync_error* err);
/* `name`: for messages and the clip name. */
BSYNC_API bsync_result bsync_bvh_import_memory(const char* text, size_t len, const char* name,
                                     const bsync_import_options* options, bsync_asset* out, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_BVH_H */
