/* blendsync/io/gltf.h — glTF 2.0 (.gltf and .glb) to a fixed-point skeleton and clips.
 *
 * Index
 *   bsync_gltf_import_file     read a .gltf (external or data: URI buffers) or a .glb
 *   bsync_gltf_import_memory   the same from bytes already in memory
 *
 * What is read (glTF 2.0 specification, https://registry.khronos.org/glTF/specs/2.0/glTF-2.0.html):
 *   Buffers: the GLB BIN chunk (a buffer without uri in a .glb), `data:` URIs in base64, and
 *     external files relative to the .gltf's folder (percent-escapes decoded; absolute paths and
 *     other URI schemes are refused). Accessors: every componentType (5120 byte .. 5126 float),
 *     `normalized` integers (byte c/127, ubyte c/255, short c/32767, ushort c/65535, signed ones
 *     clamped at -1, as the spec says), byteStride, accessors without a bufferView (zeros), and sparse
 *     accessors (indices ubyte/ushort/uint, strictly increasing, < count).
 *   Skeleton: the joints of skin 0 (a note names the others when there are several); each joint's
 *     parent is its nearest ancestor node that is also a joint; joints are reordered so parents come
 *     before children (otherwise skin order). Without a skin (animation-only files) every node is a
 *     joint, with the node tree as hierarchy. Rest pose = each node's TRS, or its `matrix` decomposed
 *     (translation; scale = column lengths, x negated for a negative determinant; rotation from the
 *     normalised columns). Unnamed nodes are called "node<i>"; names longer than 63 bytes are cut at
 *     63 bytes (UTF-8 safe) and duplicates get "#<i>" appended (each noted).
 *   Non-joint ancestors: glTF places a joint by ALL its ancestor nodes, so the transform A of the
 *     non-joint nodes between a joint and its joint parent (for a root joint: up to the scene root;
 *     e.g. a Blender armature node) is folded into that joint: its rest pose and every key of its
 *     channels become A o local, composed in double before the one conversion (translation
 *     A.t + A.r (A.s * t), exact; rotation A.r q; scale A.s * s per axis, exact when A's scale is
 *     uniform, else an approximation that is noted). Several such nodes are composed as matrices
 *     outermost first and decomposed like a `matrix` node; shear (from a `matrix` or a non-uniform
 *     scale above a rotation) cannot be held and is dropped with a note. Identity nodes are skipped,
 *     so files without non-identity ancestors import exactly as before. A note names the folded nodes
 *     and A (rotation in degrees about an axis, translation, scale). Channels animating those nodes
 *     are ignored (as every channel on a non-joint node; a note counts them).
 *   Clips: one per animation (name, else "animation<i>"; duplicate names get "#<i>"), channels with
 *     path translation, rotation, scale. `weights` channels (morph targets), channels whose node is
 *     not a joint, and later duplicates of a (node, path) are ignored, each kind counted in a note.
 *     Interpolation LINEAR (the default) as is; STEP as described in asset.c (a held copy one raw step
 *     before each key, so linear sampling reproduces the step exactly); CUBICSPLINE resampled with the
 *     spec's Hermite formula (Appendix C) at options->resample_hz (default 60 Hz): the samples are
 *     every original key time plus every multiple of 1/rate strictly between the first and last key
 *     (rotations normalised after evaluation).
 *   Rotations are normalised and made sign-continuous in double before the one conversion.
 *   Units: glTF is metres, Y up, right-handed: the project's convention, so nothing is rescaled.
 *
 * Errors (bsync_error names the file and the JSON place, e.g. "a.gltf: accessors[3]: byteOffset +
 * stride * (count - 1) + element size = 120 exceeds bufferView 2's byteLength 96"): malformed JSON or
 * GLB framing, every index out of range, every offset/length/count past its buffer, wrong accessor
 * types, non-finite numbers, decreasing or negative key times, zero rotations, values outside Q16.16.
 * Codes: BSYNC_IO_ERROR (unreadable file), BSYNC_PARSE_ERROR (malformed JSON/GLB/base64),
 * BSYNC_BAD_BLOB (inconsistent structure), BSYNC_OVERFLOW / BSYNC_NOT_FINITE / BSYNC_BAD_ROTATION /
 * BSYNC_KEYS_UNSORTED (values), BSYNC_LIMIT_EXCEEDED, BSYNC_OUT_OF_MEMORY. Hostile input never reads
 * out of bounds.
 */
#ifndef BLENDSYNC_IO_GLTF_H
#define BLENDSYNC_IO_GLTF_H

#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

BSYNC_API bsync_result bsync_gltf_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                    bsync_error* err);

/* `name` is used in messages; `base_dir` is the folder external buffer URIs are relative to (NULL:
 * external buffers are refused). The bytes may be a .glb or .gltf JSON text (need not be
 * NUL-terminated). */
BSYNC_API bsync_result bsync_gltf_import_memory(const void* data, size_t size, const char* name, const char* base_dir,
                                      const bsync_import_options* options, bsync_asset* out, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_GLTF_H */
