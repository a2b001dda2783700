/* internal/sample_impl.h — one track of a clip sampled by bsync_clip_sample's own rule (sample.c),
 * for the core's callers that need a single component (root motion, instance_root_motion.c). Not
 * public. */
#ifndef BLENDSYNC_INTERNAL_SAMPLE_IMPL_H
#define BLENDSYNC_INTERNAL_SAMPLE_IMPL_H

#include "blendsync/clip.h"
#include "blendsync/sample.h"

/* The value bsync_clip_sample(clip, time, mode, ...) writes for track `track` (an index as in
 * bsync_clip_track_info): the same time policy, key search and interpolation (no cursor), so the
 * same bits. A rotation track writes *out_rotation, a translation or scale track *out_vec3; the
 * other pointer may be NULL. BSYNC_INVALID_ARGUMENT (nothing written) for a NULL clip, a track
 * index out of range, a bad mode or a NULL pointer for the track's kind. */
bsync_result bsync_clip_sample_track_(const bsync_clip* clip, uint32_t track, fix16_t time, bsync_loop_mode mode,
                                      bsync_vec3* out_vec3, bsync_quat* out_rotation);

#endif /* BLENDSYNC_INTERNAL_SAMPLE_IMPL_H */
