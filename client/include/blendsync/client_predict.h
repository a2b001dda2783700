/* blendsync/client_predict.h — prediction and rollback in the client (opt-in). Checksums, replays and
 * desync answers stay of the confirmed match.
 *
 * Index
 *   bsync_client_predict_config      on/off, window, local delay, sync test, smoothing (client.h's .predict)
 *   bsync_client_predict_stats / _get_stats / _depth_quantile   what prediction did
 *   bsync_client_predict_match, _tick, _alpha   the match to draw, its tick, its presentation clock
 *   bsync_client_predict_present     shown poses: predicted + decaying correction offsets
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
    uint32_t enabled;          /* 0: lockstep */
    uint32_t rollback_window;  /* 0 -> 8; <= 32 */
    uint32_t local_delay;      /* <= 32 */
    uint32_t synctest;
    uint32_t smooth_ticks;     /* half-life; 0 -> 2 */
    fix16_t teleport_distance; /* metres; 0 -> 1.0 */
} bsync_client_predict_config;

typedef struct bsync_client_predict_stats {
    uint64_t predicted_ticks;
    uint64_t resimulated_ticks;
    uint64_t mispredicted_frames;
    uint64_t rollbacks;
    uint32_t depth_max;
    uint64_t depth_histogram[BSYNC_CLIENT_PREDICT_WINDOW_MAX + 1u];
    uint64_t window_waits;
    uint64_t synctest_checks, synctest_mismatches;
    uint64_t corrections_smoothed, corrections_teleported;
    uint32_t confirmed_tick;
    uint32_t predicted_tick;
} bsync_client_predict_stats;

typedef struct bsync_client bsync_client;

/* The confirmed match when prediction is off or not running. */
BSYNC_API bsync_match* bsync_client_predict_match(bsync_client* client);
BSYNC_API uint32_t bsync_client_predict_tick(const bsync_client* client);
BSYNC_API void bsync_client_predict_get_stats(const bsync_client* client, bsync_client_predict_stats* out);
/* The smallest depth with permille/1000 of the rollbacks at or below it; 0: none. */
BSYNC_API uint32_t bsync_client_predict_depth_quantile(const bsync_client_predict_stats* stats, uint32_t permille);

/* bsync_client_present_alpha for the predicted match. */
BSYNC_API fix16_t bsync_client_predict_alpha(bsync_client* client);

/* bsync_present_match's local poses with the offsets, and per character its accumulated root (may be
 * NULL); frame_ns: since the previous call. Errors of bsync_present_match. */
BSYNC_API bsync_result bsync_client_predict_present(bsync_client* client, fix16_t alpha, uint64_t frame_ns, void* scratch,
                                                    size_t scratch_size, bsync_trs* out_local,
                                                    bsync_root_motion* out_root);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CLIENT_PREDICT_H */
