/* blendsync/io/retarget.h — play a clip made for one skeleton on another, by joint name.
 *
 * Index
 *   bsync_retarget_report   what was mapped and what was not
 *   bsync_retarget_clip     one clip onto a target skeleton
 *   bsync_retarget_asset    every clip of an asset onto a target skeleton (the asset takes a copy of it)
 *
 * Rule: a track of source joint J goes to the target joint with exactly the same name (byte
 * comparison); tracks of source joints the target does not have are dropped; target joints that no
 * source joint maps to get no track, so sampling gives them the target's rest pose ("missing joints
 * take the rest pose"). Keys are copied bit for bit (the clip builder renormalises rotations, which
 * may move a component by one raw step). Duration, loop flag and name are kept.
 * Flag BSYNC_RETARGET_TARGET_BONE_LENGTHS drops the translation tracks of every mapped joint that is
 * not a root in the target, so bone lengths come from the target's rest pose (for skeletons of
 * different proportions); by default translations are copied too.
 *
 * Edge code (blendsync_io): allocates with malloc.
 */
#ifndef BLENDSYNC_IO_RETARGET_H
#define BLENDSYNC_IO_RETARGET_H

#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_RETARGET_TARGET_BONE_LENGTHS 1u

typedef struct bsync_retarget_report {
    uint32_t target_joints;      /* joints of the target skeleton */
    uint32_t mapped;             /* target joints that have a source joint of the same name */
    uint32_t unmapped_target;    /* target joints without one (they play their rest pose) */
    uint32_t unmapped_source;    /* source joints the target lacks (their tracks are dropped) */
    uint32_t dropped_tracks;     /* tracks dropped (unmapped source joints, and bone-length flag) */
    char unmapped_target_names[1024]; /* comma-separated, cut with "..." when long */
    char unmapped_source_names[1024];
} bsync_retarget_report;

/* Map `clip` (built for `from`) onto `to`. BSYNC_INVALID_ARGUMENT for NULL arguments or a compact
 * clip (bsync_clip_encoding != 0: retarget before compacting), BSYNC_MISMATCH when the clip was not built for `from`'s joint count; otherwise the clip builder's codes. report
 * may be NULL. *out is a new clip (bsync_clip_destroy) on success. */
BSYNC_API bsync_result bsync_retarget_clip(const bsync_clip* clip, const bsync_skeleton* from, const bsync_skeleton* to,
                                 uint32_t flags, bsync_clip** out, bsync_retarget_report* report);

/* Replace asset's skeleton by a copy of `to` and every clip by its retargeted version (stats are kept;
 * the report covers the skeletons, so it is the same for every clip). On failure the asset is
 * unchanged. */
BSYNC_API bsync_result bsync_retarget_asset(bsync_asset* asset, const bsync_skeleton* to, uint32_t flags,
                                  bsync_retarget_report* report, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_RETARGET_H */
