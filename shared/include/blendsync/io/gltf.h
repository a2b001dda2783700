/* blendsync/io/gltf.h — glTF 2.0 import. design: docs/import.md#gltf-specifics
 *
 * Index
 *   bsync_gltf_import_file     a .gltf (external or data: buffers) or .glb file
 *   bsync_gltf_import_memory   the same from bytes
 */
#ifndef BLENDSYNC_IO_GLTF_H
#define BLENDSYNC_IO_GLTF_H

#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

BSYNC_API bsync_result bsync_gltf_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                    bsync_error* err);

/* `base_dir`: where external buffers are (NULL: refused). */
BSYNC_API bsync_result bsync_gltf_import_memory(const void* data, size_t size, const char* name, const char* base_dir,
                                      const bsync_import_options* options, bsync_asset* out, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_GLTF_H */
