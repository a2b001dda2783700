/* blendsync/io/gltf_write.h — write a skeleton and a sequence of local poses as a binary glTF 2.0
 * (.glb) file: the skeleton as nodes, the poses as one animation. Used by `blendsync bake`.
 *
 * Index
 *   bsync_gltf_bake               what to write
 *   bsync_gltf_write_glb_memory   build the .glb bytes (malloc'ed; free() them)
 *   bsync_gltf_write_glb_file     build and write them through PATH.tmp.<pid> + rename
 *   ..._ex + BSYNC_GLTF_WRITE_SKIN  the same, optionally with the skeleton as a glTF skin
 *
 * Layout (glTF 2.0 specification, https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html):
 *   GLB: 12-byte header (u32 magic 0x46546C67 "glTF", u32 version 2, u32 total length), a JSON chunk
 *   (u32 length, u32 type 0x4E4F534A "JSON", UTF-8 text padded with spaces to a multiple of 4) and a
 *   BIN chunk (u32 length, u32 type 0x004E4942 "BIN\0", data padded with zeros to a multiple of 4);
 *   all little-endian. buffers[0].byteLength is the unpadded data length.
 *   JSON: asset {version "2.0", generator}; scene 0 whose nodes are the root joints; node j = joint j
 *   (name, children in joint order, translation / rotation / scale = the skeleton's rest pose, all
 *   three always written); no mesh, and no skin unless asked for (an animated node hierarchy; the
 *   importer then takes every node as a joint). One animation (named bake->name, "bake" when NULL) with, per joint j,
 *   channels 3j, 3j+1, 3j+2 -> samplers 3j, 3j+1, 3j+2 (translation, rotation, scale; interpolation
 *   LINEAR). Accessor 0: key times, FLOAT SCALAR, key_count values (float)(k / tick_rate) for
 *   k = 0 .. key_count-1, with min [t_0] and max [t_last] written exactly (the float's decimal
 *   expansion to 17 significant digits); accessors 1 + 3j + c: joint j's component c (VEC3 / VEC4 /
 *   VEC3 FLOAT). Each accessor has its own bufferView (tightly packed, no byteStride, no target),
 *   times first, then joint by joint translation, rotation, scale.
 *   Values: float of bsync_fx_to_double(raw) (exact for |v| < 256; else rounded to float's 24 bits).
 *   Rotation keys are written sign-continuous per joint: key k is negated when its 4D dot product
 *   with the written key k-1 is negative (the same rotation; LINEAR takes the short way).
 *
 * Skin (flag BSYNC_GLTF_WRITE_SKIN of the _ex functions; the plain functions write none): everything
 * above stays byte for byte where it was in the JSON's order and the BIN data, and the file gains
 *   skins [{"name": "skeleton", "joints": [0, 1, ..., joint_count-1], "inverseBindMatrices": A}]
 *   (plus "skeleton": R when the skeleton has exactly one root joint R), where accessor A = 1 + 3 *
 *   joint_count is MAT4 FLOAT, count joint_count, in its own bufferView (the last one) appended after
 *   the joints' data (64 bytes per joint, column-major as glTF stores matrices; buffers[0].byteLength
 *   grows by 64 * joint_count). Matrix j is the inverse of joint
 *   j's rest model matrix M_j = M_parent(j) * T(t_j) * R(r_j) * S(s_j), computed in double from the
 *   rest pose's fix16 values (each rest rotation normalised in double first) and written as floats;
 *   the last row is written exactly (0, 0, 0, 1). No node references the skin: the glTF spec allows
 *   node.skin only with a mesh, and there is none; viewers that build armatures from skins
 *   (Blender, three.js, which makes every skin joint a Bone) show the skeleton. The importer takes
 *   skin 0's joints, which are all the nodes in skeleton order, so the skeleton comes back the same.
 *   A rest model matrix that cannot be inverted (a zero scale; |det| < 1e-12) is
 *   BSYNC_INVALID_ARGUMENT naming the joint.
 *
 * Limits: joint_count >= 1 (a skeleton has one), 1 <= key_count, tick_rate 1..1000; the BIN data and
 * the whole file below 2^31 bytes (else BSYNC_LIMIT_EXCEEDED). Joint names are JSON-escaped.
 * Errors: BSYNC_INVALID_ARGUMENT (NULL arguments, key_count 0, tick_rate out of range),
 * BSYNC_LIMIT_EXCEEDED, BSYNC_OUT_OF_MEMORY, BSYNC_IO_ERROR (cannot create, write or rename; the
 * temporary file is removed, and PATH is never left half-written). err may be NULL.
 * I/O layer: uses malloc and stdio. */
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
    const char* name;         /* animation name (NULL -> "bake") */
    const char* generator;    /* asset.generator (NULL -> "blendsync") */
    uint32_t tick_rate;       /* key k is at k / tick_rate seconds */
    uint32_t key_count;       /* >= 1 */
    const bsync_trs* poses;   /* key_count * joint_count local transforms, key-major:
                                 poses[k * joint_count + j] is joint j at key k */
} bsync_gltf_bake;

BSYNC_API bsync_result bsync_gltf_write_glb_memory(const bsync_gltf_bake* bake, unsigned char** out, size_t* out_size,
                                         bsync_error* err);
BSYNC_API bsync_result bsync_gltf_write_glb_file(const char* path, const bsync_gltf_bake* bake, bsync_error* err);

/* Flags of the _ex functions (0 = the plain functions' output). */
#define BSYNC_GLTF_WRITE_SKIN 1u /* add skins[0] with inverse bind matrices (see "Skin" above) */

/* As above with `flags` (unknown bits: BSYNC_INVALID_ARGUMENT). */
BSYNC_API bsync_result bsync_gltf_write_glb_memory_ex(const bsync_gltf_bake* bake, uint32_t flags, unsigned char** out,
                                            size_t* out_size, bsync_error* err);
BSYNC_API bsync_result bsync_gltf_write_glb_file_ex(const char* path, const bsync_gltf_bake* bake, uint32_t flags,
                                          bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_GLTF_WRITE_H */
