/* blendsync/io/desync.h — say in words where two states of the same match differ.
 *
 * Index
 *   bsync_desync_describe   text: per character, the parameters, nodes and leaf weights that differ
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
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

unsigned bsync_desync_describe(bsync_match* a, bsync_match* b, const bsync_match_config* cfg, char* out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_DESYNC_H */
