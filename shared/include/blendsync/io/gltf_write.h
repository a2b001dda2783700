/* blendsync/io/gltf_write.h — a skeleton and a sequence of local poses as a binary glTF 2.0 (.glb):
 * the skeleton as nodes, the poses as one animation. Used by `blendsync bake`.
 *
 * Index
 *   bsync_gltf_bake               what to write
 *   bsync_gltf_write_glb_memory   the .glb bytes (malloc'ed; free() them)
 *   bsync_gltf_write_glb_file     written through PATH.tmp.<pid> + rename
 *   bsync_gltf_write_glb_memory_ex / _file_ex   the same with flags (BSYNC_GLTF_WRITE_SKIN)
 *
 * BSYNC_INVALID_ARGUMENT, BSYNC_LIMIT_EXCEEDED, BSYNC_OUT_OF_MEMORY, BSYNC_IO_ERROR; err may be NULL.
 * design: docs/bake.md#the-layout-iogltf_writeh (byte layout, skin, limits)
 */
#ifndef BLENDSYNC_IO_GLTF_WRITE_H
#define BLENDSYNC_IO_GLTF_WRITE_H

#include <stddef.h>

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_GLB_MAGIC 0x46546C67u
#define BSYNC_GLB_CHUNK_JSON 0x4E4F534Au
#define BSYNC_GLB_CHUNK_BIN 0x004E4942u

typedef struct bsync_gltf_bake {
    const bsync_skeleton* skeleton;
    const char* name;         /* NULL: "bake" */
    const char* generator;    /* NULL: "blendsync" */
    uint32_t tick_rate;       /* key k at k / tick_rate s */
    uint32_t key_count;       /* >= 1 */
    const bsync_trs* poses;   /* [k * joint_count + j] */
} bsync_gltf_bake;

BSYNC_API bsync_result bsync_gltf_write_glb_memory(const bsync_gltf_bake* bake, unsigned char** out, size_t* out_size,
                                         bsync_error* err);
BSYNC_API bsync_result bsync_gltf_write_glb_file(const char* path, const bsync_gltf_bake* bake, bsync_error* err);

#define BSYNC_GLTF_WRITE_SKIN 1u /* add skins[0] with inverse bind matrices */

BSYNC_API bsync_result bsync_gltf_write_glb_memory_ex(const bsync_gltf_bake* bake, uint32_t flags, unsigned char** out,
                                            size_t* out_size, bsync_error* err);
BSYNC_API bsync_result bsync_gltf_write_glb_file_ex(const char* path, const bsync_gltf_bake* bake, uint32_t flags,
                                          bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_GLTF_WRITE_H */
