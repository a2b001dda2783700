/* blendsync/io/desync.h — say in words where two states of the same match differ.
 *
 * Index
 *   bsync_desync_describe   the parameters, nodes and weights that differ
 *   bsync_desync_inputs_csv a bundle's inputs.csv
 *   bsync_desync_trace      the first divergent tick against a client's trail
 *
 * design: docs/replay-verify.md (The desync library)
 */
#ifndef BLENDSYNC_IO_DESYNC_H
#define BLENDSYNC_IO_DESYNC_H

#include <stddef.h>

#include "blendsync/io/match_config.h"
#include "blendsync/io/trail.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns the number of lines (0: equal); cfg may be NULL. */
BSYNC_API unsigned bsync_desync_describe(bsync_match* a, bsync_match* b, const bsync_match_config* cfg, char* out, size_t cap);

/* Returns the bytes the whole text needs (cap 0: a size query). */
BSYNC_API size_t bsync_desync_inputs_csv(const bsync_match_desc* desc, const bsync_match_config* cfg, const bsync_match_frame* frames,
                               const uint16_t* defaulted, uint32_t first_tick, uint32_t count, char* out, size_t cap);


typedef struct bsync_desync_trace_result {
    int located;
    int earlier;
    uint32_t tick;      /* the first state that differs */
    uint32_t character;
    int operation;      /* 1..6, 0: does not load */
    uint32_t compared;
} bsync_desync_trace_result;

/* work: the last agreeing state; other is overwritten. */
BSYNC_API unsigned bsync_desync_trace(bsync_match* work, bsync_match* other, const bsync_match_config* cfg,
                            const bsync_match_frame* frames, uint32_t frame_count, const bsync_trail* trail,
                            bsync_desync_trace_result* result, char* out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_DESYNC_H */
