/* client_predict_internal.h — the predictor's hooks in the session (client.c) and its state. Not
 * installed. design: docs/prediction.md */
#ifndef BLENDSYNC_CLIENT_PREDICT_INTERNAL_H
#define BLENDSYNC_CLIENT_PREDICT_INTERNAL_H

#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/client.h"
#include "blendsync/match.h"

typedef struct cl_predict cl_predict;

/* At create (cfg.predict.enabled): the predicted match and its rings. NULL config: no predictor. */
bsync_result cl_predict_create(bsync_client* c, cl_predict** out);
void cl_predict_destroy(cl_predict* p);
/* The local input went to `tick` (bsync_client_send_input). */
void cl_predict_local(bsync_client* c, uint32_t tick, const bsync_match_input* input);
/* Confirmed frame `tick` was applied to the confirmed match. */
void cl_predict_confirmed(bsync_client* c, uint32_t tick, const bsync_match_frame* frame);
/* The confirmed match was loaded from a snapshot (join, resync): predictions are void. */
void cl_predict_reset(bsync_client* c);
/* Roll back if a confirmed frame contradicted the prediction, then predict up to the present tick. */
void cl_predict_update(bsync_client* c);

#endif /* BLENDSYNC_CLIENT_PREDICT_INTERNAL_H */
