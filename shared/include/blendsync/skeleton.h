/* blendsync/skeleton.h — joints, parents and the rest pose, in one immutable relocatable block.
 *
 * Index
 *   bsync_joint_desc, bsync_skeleton_desc    the editable (raw) form, given by the caller
 *   bsync_skeleton_validate                  check a desc without building it
 *   bsync_skeleton_memory_size               bytes a built skeleton needs
 *   bsync_skeleton_init                      build into caller memory (no allocation)
 *   bsync_skeleton_create / _destroy         build with an allocator / free it
 *   bsync_skeleton_joint_count, _parent, _parents, _joint_name, _rest_pose
 *   bsync_skeleton_find                      index of a joint by name
 *   bsync_skeleton_block_validate            check untrusted bytes (a loaded file) are a skeleton block
 *
 * Rules checked by validate (and therefore by init/create), each with its own result code:
 *   joints != NULL and 1 <= joint_count <= BSYNC_MAX_JOINTS        else BSYNC_INVALID_ARGUMENT /
 *                                                                 BSYNC_LIMIT_EXCEEDED
 *   every parent is BSYNC_NO_PARENT or in [0, own index)          else BSYNC_BAD_HIERARCHY
 *     (parents before children, so local-to-model is one forward loop)
 *   every name is non-NULL, non-empty, shorter than BSYNC_MAX_NAME else BSYNC_BAD_NAME
 *   names are unique (byte comparison)                            else BSYNC_DUPLICATE_NAME
 *   the rest rotation is not zero (it is normalised when built)   else BSYNC_BAD_ROTATION
 *
 * The built block holds only offsets, never pointers: it can be copied or memory-mapped anywhere
 * (memcpy of bsync_skeleton_memory_size bytes gives a working copy). It is aligned to 8 bytes, starts
 * with a magic/version word, has the same layout on 32- and 64-bit targets, and every byte of it is
 * written (padding is zero), so two builds of one desc are byte-identical apart from the allocator
 * slot that only bsync_skeleton_create fills in.
 *
 * Does not: allocate except in bsync_skeleton_create, keep globals, or print.
 */
#ifndef BLENDSYNC_SKELETON_H
#define BLENDSYNC_SKELETON_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_joint_desc {
    const char* name;  /* NUL-terminated, 1..BSYNC_MAX_NAME-1 bytes */
    int32_t parent;    /* BSYNC_NO_PARENT or an index lower than this joint's */
    bsync_trs rest;    /* rest (bind) local transform */
} bsync_joint_desc;

typedef struct bsync_skeleton_desc {
    const bsync_joint_desc* joints;
    uint32_t joint_count;
} bsync_skeleton_desc;

typedef struct bsync_skeleton bsync_skeleton; /* opaque; lives in one block */

BSYNC_API bsync_result bsync_skeleton_validate(const bsync_skeleton_desc* desc);
/* Size in bytes of the built skeleton for this desc; 0 if the desc is invalid. */
BSYNC_API size_t bsync_skeleton_memory_size(const bsync_skeleton_desc* desc);
/* Build into `mem` (8-byte aligned, `size` >= bsync_skeleton_memory_size). Writes nothing (neither
 * `mem` nor *out) on failure. BSYNC_INVALID_ARGUMENT if mem or out is NULL or mem is not 8-byte
 * aligned; validation codes as above; then BSYNC_BUFFER_TOO_SMALL if size is short. */
BSYNC_API bsync_result bsync_skeleton_init(void* mem, size_t size, const bsync_skeleton_desc* desc, bsync_skeleton** out);
/* Allocate (allocator may be NULL: malloc) and build: exactly one allocation of
 * bsync_skeleton_memory_size bytes, none if validation fails; BSYNC_OUT_OF_MEMORY if it fails. */
BSYNC_API bsync_result bsync_skeleton_create(const bsync_skeleton_desc* desc, const bsync_allocator* allocator,
                                   bsync_skeleton** out);
/* Free a skeleton made by bsync_skeleton_create (NULL is ignored). Not for init'ed ones. */
BSYNC_API void bsync_skeleton_destroy(bsync_skeleton* skeleton);

/* Check that `size` bytes at `mem` (8-byte aligned) are exactly a skeleton block as
 * bsync_skeleton_init writes it (the blocks of a file, io/clip_file.h): magic, version, block size ==
 * size, a zero allocator slot, 1..BSYNC_MAX_JOINTS joints, every offset equal to the layout's, names
 * packed in order, 1..BSYNC_MAX_NAME-1 bytes, NUL-terminated and unique, parents valid, rest
 * rotations non-zero, padding zero. Reads nothing outside [mem, mem + size). BSYNC_OK and *out = mem,
 * else BSYNC_BAD_BLOB (BSYNC_INVALID_ARGUMENT for NULL or misaligned arguments); *out untouched on
 * failure. A block that passes can be used in place (never destroyed: it has no allocator). */
BSYNC_API bsync_result bsync_skeleton_block_validate(const void* mem, size_t size, const bsync_skeleton** out);

/* Size of the whole block (what memory_size returned when it was built). */
BSYNC_API size_t bsync_skeleton_block_size(const bsync_skeleton* skeleton);
BSYNC_API uint32_t bsync_skeleton_joint_count(const bsync_skeleton* skeleton);
/* Parent of joint i (BSYNC_NO_PARENT for roots); BSYNC_NO_PARENT also for i out of range. */
BSYNC_API int32_t bsync_skeleton_parent(const bsync_skeleton* skeleton, uint32_t joint);
/* All parents, joint_count entries, each < its own index or BSYNC_NO_PARENT. */
BSYNC_API const int16_t* bsync_skeleton_parents(const bsync_skeleton* skeleton);
/* Name of joint i ("" for i out of range). */
BSYNC_API const char* bsync_skeleton_joint_name(const bsync_skeleton* skeleton, uint32_t joint);
/* Rest pose, joint_count local transforms (rotations normalised). */
BSYNC_API const bsync_trs* bsync_skeleton_rest_pose(const bsync_skeleton* skeleton);
/* Index of the joint named `name`: BSYNC_OK, or BSYNC_NOT_FOUND (then *out_index is untouched);
 * BSYNC_INVALID_ARGUMENT for a NULL argument. A linear scan (setup-time use: at most
 * BSYNC_MAX_JOINTS byte comparisons). Accessors given NULL return 0 / NULL / "" / BSYNC_NO_PARENT. */
BSYNC_API bsync_result bsync_skeleton_find(const bsync_skeleton* skeleton, const char* name, uint32_t* out_index);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SKELETON_H */
