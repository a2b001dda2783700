/* internal/instance_snapshot.h — the checks of bsync_instance_load without the load, for
 * bsync_match_load's all-or-nothing pass (match.c). Not public. */
#ifndef BLENDSYNC_INTERNAL_INSTANCE_SNAPSHOT_H
#define BLENDSYNC_INTERNAL_INSTANCE_SNAPSHOT_H

#include "blendsync/instance.h"

/* What bsync_instance_load(inst, buf, len) would return, with nothing written. */
bsync_result instance_snapshot_check(const bsync_instance* inst, const void* buf, size_t len);

#endif /* BLENDSYNC_INTERNAL_INSTANCE_SNAPSHOT_H */
