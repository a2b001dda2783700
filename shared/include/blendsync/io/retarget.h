/* blendsync/io/retarget.h — play a clip made for one skeleton on another, by joint name.
 *
 * Index
 *   bsync_retarget_report   what was mapped and what was not
 *   bsync_retarget_clip     one clip onto a target skeleton
 *   bsync_retarget_asset    every clip of an asset (the asset takes a copy of the target)
 *
 * design: docs/import.md#retargeting-ioretargeth
 */
#ifndef BLENDSYNC_IO_RETARGET_H
#define BLENDSYNC_IO_RETARGET_H

#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_RETARGET_TARGET_BONE_LENGTHS 1u

typedef struct bsync_retarget_report {
    uint32_t target_joints;
    uint32_t mapped;
    uint32_t unmapped_target;
    uint32_t unmapped_source;
    uint32_t dropped_tracks;
    char unmapped_target_names[1024]; /* comma-separated */
    char unmapped_source_names[1024];
} bsync_retarget_report;

/* *out: a new clip. BSYNC_INVALID_ARGUMENT (compact clip too), BSYNC_MISMATCH; report may be NULL. */
BSYNC_API bsync_result bsync_retarget_clip(const bsync_clip* clip, const bsync_skeleton* from, const bsync_skeleton* to,
                                 uint32_t flags, bsync_clip** out, bsync_retarget_report* report);

/* On failure the asset is unchanged. */
BSYNC_API bsync_result bsync_retarget_asset(bsync_asset* asset, const bsync_skeleton* to, uint32_t flags,
                                  bsync_retarget_report* report, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_RETARGET_H */
