/* blendsync/client_predict.h — prediction and rollback in the client (opt-in): a predicted match runs
 * ahead of the confirmed one with the local input at a local delay and the other players' last
 * confirmed inputs repeated (triggers not repeated); a confirmed frame that differs from what was
 * predicted restores the confirmed state and re-simulates to the present tick. Confirmed frames stay
 * the only authority: checksums, replays and desync reports use the confirmed match alone.
 *
 * Index
 *   bsync_client_predict_config      in bsync_client_config.predict: on/off, window, local delay, sync test
 *   bsync_client_predict_match       the predicted match (render from it); the confirmed one when off
 *   bsync_client_predict_tick        the predicted match's tick count (the present tick)
 *   bsync_client_predict_get_stats   rollbacks, their depths, predicted ticks, waits, corrections
 *   bsync_client_predict_depth_quantile   a depth quantile from the stats' histogram
 *   bsync_client_predict_alpha       the fraction of a tick to show the predicted match at
 *   bsync_client_predict_present     shown poses: predicted + a decaying correction offset
 *
 * design: docs/prediction.md
 */
#ifndef BLENDSYNC_CLIENT_PREDICT_H
#define BLENDSYNC_CLIENT_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_CLIENT_PREDICT_WINDOW_DEFAULT 8u
#define BSYNC_CLIENT_PREDICT_WINDOW_MAX 32u

typedef struct bsync_client_predict_config {
    uint32_t enabled;         /* 0: lockstep (the default) */
    uint32_t rollback_window; /* W ticks ahead of the last confirmed frame at most; 0 -> 8, <= 32 */
    uint32_t local_delay;     /* ticks between an input's tick and the shown tick; 0 allowed */
    uint32_t synctest;        /* 1: re-simulate every predicted span from the confirmed state and compare */
    uint32_t smooth_ticks;    /* correction offset half-life in ticks; 0 -> 2 */
    fix16_t teleport_distance; /* root error above it (metres): no smoothing; 0 -> 1.0 */
} bsync_client_predict_config;

typedef struct bsync_client_predict_stats {
    uint64_t predicted_ticks;     /* ticks simulated ahead of confirmation (first time) */
    uint64_t resimulated_ticks;   /* ticks simulated again by rollbacks */
    uint64_t mispredicted_frames; /* confirmed frames that differed from the prediction */
    uint64_t rollbacks;
    uint32_t depth_max;
    uint64_t depth_histogram[BSYNC_CLIENT_PREDICT_WINDOW_MAX + 1u]; /* rollbacks by depth */
    uint64_t window_waits;        /* updates that stopped at the window */
    uint64_t synctest_checks, synctest_mismatches;
    uint64_t corrections_smoothed, corrections_teleported;
    uint32_t confirmed_tick;      /* the confirmed match's tick count */
    uint32_t predicted_tick;      /* the predicted match's tick count */
} bsync_client_predict_stats;

typedef struct bsync_client bsync_client;

/* The match to render: predicted when prediction is on and running, else the confirmed match. */
BSYNC_API bsync_match* bsync_client_predict_match(bsync_client* client);
BSYNC_API uint32_t bsync_client_predict_tick(const bsync_client* client);
BSYNC_API void bsync_client_predict_get_stats(const bsync_client* client, bsync_client_predict_stats* out);
/* The smallest depth d with at least permille/1000 of the rollbacks at depth <= d; 0 when none. */
BSYNC_API uint32_t bsync_client_predict_depth_quantile(const bsync_client_predict_stats* stats, uint32_t permille);

/* As bsync_client_present_alpha, for the predicted match (its clock restarts at each predicted tick). */
BSYNC_API fix16_t bsync_client_predict_alpha(bsync_client* client);

/* The shown pose of every character (bsync_present_match's layout, model space optional) at
 * predicted tick + alpha, plus the correction offset left by the last rollbacks, decaying per shown
 * frame; frame_ns is the time since the previous call (0: the first). Scratch:
 * bsync_present_match_scratch_size(bsync_client_predict_match(client)). BSYNC_INVALID_ARGUMENT,
 * BSYNC_BUFFER_TOO_SMALL, errors of bsync_present_match. */
BSYNC_API bsync_result bsync_client_predict_present(bsync_client* client, fix16_t alpha, uint64_t frame_ns, void* scratch,
                                                    size_t scratch_size, bsync_trs* out_local,
                                                    bsync_root_motion* out_root);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CLIENT_PREDICT_H */
