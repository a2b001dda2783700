/* blendsync/io/desync.h — say in words where two states of the same match differ.
 *
 * Index
 *   bsync_desync_describe   text: per character, the parameters, nodes and leaf weights that differ
 *   bsync_desync_inputs_csv the inputs.csv of a desync bundle or a verification dump
 *   bsync_desync_trace      re-simulate from the last agreeing state against a client's trail
 *                           (io/trail.h): the first divergent tick and the operation that diverged
 *
 * Given two matches of the same desc (e.g. the server's state and a client's, each loaded from a
 * bsync_match_save snapshot), the report lists, per character whose state checksum differs: the
 * character (index and name), then each parameter whose bsync_instance_parameter_checksum differs
 * (name, target, filtered value and filter state of both sides, fix16 raw and exact decimal), each
 * node whose bsync_instance_node_checksum differs (name, phase and cycle length of both sides), and
 * each motion whose leaf weight differs; an NPC whose script generator differs; and the tick counts
 * when they differ. Every difference line starts with two spaces (a stable, greppable form):
 *   "  character 2 (p2) parameter speed: target 1.5 (0x00018000) vs 1.5000152 (0x00018001); ..."
 * The first such line is the earliest field in that order, so a caller can quote it alone.
 * `cfg` (may be NULL) gives character names; without it characters are named by index.
 * Returns the number of difference lines (0: the two states are identical for every field looked
 * at); the text is truncated to cap (always NUL-terminated when cap > 0).
 *
 * Edge code (text formatting); reads the matches only.
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

BSYNC_API unsigned bsync_desync_describe(bsync_match* a, bsync_match* b, const bsync_match_config* cfg, char* out, size_t cap);

/* The inputs of frames first_tick .. first_tick + count - 1 of a match of `desc` as CSV text: a header
 * line "tick,slot,defaulted,<input parameter names>,<input trigger names>" (the names from cfg; cfg NULL:
 * param0, param1, ..., trigger0, ...), then one line per frame and player
 * slot: the tick, the slot, 1 when that slot's input was defaulted (bit `slot` of defaulted[i]; a NULL
 * defaulted means none), each parameter as the shortest exact decimal of its fix16 value
 * (bsync_fx_format, which bsync_fx_parse reads back to the same raw value) and each trigger's value.
 * frames[i] is frame first_tick + i. Returns the bytes the whole text needs (excluding the NUL); writes
 * at most cap - 1 of them and a NUL (cap 0: nothing), so call with cap 0 to size the buffer. */
BSYNC_API size_t bsync_desync_inputs_csv(const bsync_match_desc* desc, const bsync_match_config* cfg, const bsync_match_frame* frames,
                               const uint16_t* defaulted, uint32_t first_tick, uint32_t count, char* out, size_t cap);

/* bsync_desync_trace: where inside an interval a client first diverged, and by which operation.
 * `work` holds the last agreeing state (e.g. a bundle's server-previous.bsms: the state at the start of
 * tick S = bsync_match_tick_count(work)); frames[i] is frame S + i (the server's confirmed frames, which
 * every client applies). The states are re-simulated frame by frame; at every tick the trail covers,
 * each listed character's state (bsync_instance_save bytes) is compared with the trail's. The first
 * tick U whose state differs is the first divergence: the state after frame U - 1. Since the state
 * before it was identical byte for byte and the frame is the same on both sides, the earliest field in
 * the order a tick computes them names the operation that diverged:
 *   1. a parameter's target         the client applied other inputs in that frame;
 *   2. a parameter's filter state   the filter step (dead zone, curve, SmoothDamp) from an equal state
 *                                   and an equal input;
 *   3. a leaf weight                the blend-weight evaluation from equal parameters;
 *   4. a node's cycle length        the synchronised-time lengths from equal weights;
 *   5. a node's phase               the clock advance from an equal phase and cycle length;
 *   6. otherwise                    switch stacks, inertialization or a clock carry.
 * When the trail's first state already differs, the divergence happened before the trail begins
 * (result->earlier = 1) and the fields are still listed. `other` (a match of the same desc) is
 * overwritten (it ends as the client's state at U). On return `work` holds the state at the start of
 * tick S + frame_count, so the caller can check that the re-simulation reproduces the server's state.
 * Text: lines starting with two spaces, the first naming the tick and the operation, then the
 * bsync_desync_describe lines of that character at U. Returns the number of lines (0: the trail agrees
 * at every tick it covers); allocates a snapshot buffer (edge code). */
typedef struct bsync_desync_trace_result {
    int located;        /* 1: a divergent tick was found */
    int earlier;        /* 1: the trail's first state already differs */
    uint32_t tick;      /* located: U, the first state that differs (the state after frame U - 1) */
    uint32_t character; /* located: the character (match index) */
    int operation;      /* located: 1..6 as listed above; 0 when the trail's state of that tick does not load into
                           the character's graph (text: "the client's state does not load") */
    uint32_t compared;  /* trail states compared */
} bsync_desync_trace_result;

BSYNC_API unsigned bsync_desync_trace(bsync_match* work, bsync_match* other, const bsync_match_config* cfg,
                            const bsync_match_frame* frames, uint32_t frame_count, const bsync_trail* trail,
                            bsync_desync_trace_result* result, char* out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_DESYNC_H */
