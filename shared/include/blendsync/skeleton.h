/* blendsync/skeleton.h — joints, parents and rest pose in one relocatable block.
 *
 * Index
 *   bsync_joint_desc, bsync_skeleton_desc   the editable form
 *   bsync_skeleton_validate / _memory_size / _init / _create / _destroy
 *   bsync_skeleton_block_validate           untrusted bytes (a file's block)
 *   bsync_skeleton_joint_count, _parent, _parents, _joint_name, _rest_pose, _find
 *
 * design: docs/skeleton.md (rules and their codes, the block)
 */
#ifndef BLENDSYNC_SKELETON_H
#define BLENDSYNC_SKELETON_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_joint_desc {
    const char* name;  /* unique, 1..BSYNC_MAX_NAME-1 bytes */
    int32_t parent;    /* BSYNC_NO_PARENT or a lower index */
    bsync_trs rest;
} bsync_joint_desc;

typedef struct bsync_skeleton_desc {
    const bsync_joint_desc* joints;
    uint32_t joint_count;
} bsync_skeleton_desc;

typedef struct bsync_skeleton bsync_skeleton;

BSYNC_API bsync_result bsync_skeleton_validate(const bsync_skeleton_desc* desc);
/* 0 if the desc is invalid. */
BSYNC_API size_t bsync_skeleton_memory_size(const bsync_skeleton_desc* desc);
/* Into 8-byte aligned `mem`; writes nothing on failure (codes: docs/skeleton.md#rules). */
BSYNC_API bsync_result bsync_skeleton_init(void* mem, size_t size, const bsync_skeleton_desc* desc, bsync_skeleton** out);
/* One allocation (NULL allocator: malloc); destroy frees it (not for init'ed ones). */
BSYNC_API bsync_result bsync_skeleton_create(const bsync_skeleton_desc* desc, const bsync_allocator* allocator,
                                   bsync_skeleton** out);
BSYNC_API void bsync_skeleton_destroy(bsync_skeleton* skeleton);

/* BSYNC_OK and *out = mem (use in place, never destroy), else BSYNC_BAD_BLOB. */
BSYNC_API bsync_result bsync_skeleton_block_validate(const void* mem, size_t size, const bsync_skeleton** out);

BSYNC_API size_t bsync_skeleton_block_size(const bsync_skeleton* skeleton);
BSYNC_API uint32_t bsync_skeleton_joint_count(const bsync_skeleton* skeleton);
BSYNC_API int32_t bsync_skeleton_parent(const bsync_skeleton* skeleton, uint32_t joint);
BSYNC_API const int16_t* bsync_skeleton_parents(const bsync_skeleton* skeleton);
BSYNC_API const char* bsync_skeleton_joint_name(const bsync_skeleton* skeleton, uint32_t joint);
BSYNC_API const bsync_trs* bsync_skeleton_rest_pose(const bsync_skeleton* skeleton);
/* BSYNC_NOT_FOUND leaves *out_index. Out of range or NULL: 0 / NULL / "" / BSYNC_NO_PARENT. */
BSYNC_API bsync_result bsync_skeleton_find(const bsync_skeleton* skeleton, const char* name, uint32_t* out_index);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_SKELETON_H */
