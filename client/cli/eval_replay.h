/* eval_replay.h — `blendsync eval --replay OUT.bsreplay`: record an eval run as a match replay that
 * `blendsync replay verify | info | cut` read like any other (docs/graph-config.md, docs/replay-verify.md).
 *
 * The match of the run (its config text goes into the replay HEADER, as the server's does):
 *   {"match_id": 1, "players": [{"token": "eval"}],
 *    "input": {"parameters": [one per parameter column of the script, in column order:
 *                             {"name": PARAM, "min": the least of its default and its scripted values,
 *                              "max": the greatest}],
 *              "triggers": [one per distinct (play:NODE column, fade, carry, inertialize) the script's
 *                           cells use, columns in script order, within a column in order of first use:
 *                           {"name": "play:NODE fade=N[ carry][ inertialize]" (or "trigger J" when that
 *                            is longer than 63 bytes), "switch": NODE, "fade_ticks": N
 *                            [, "carry": true][, "inertialize": true]}]},
 *    "characters": [{"name": "eval", "graph": GRAPH, "slot": 0}],
 *    "input_delay": 0, "checksum_interval": 1}
 * GRAPH is CONFIG's path relative to the replay's directory (both through realpath), and the recorded
 * config path is "<the replay's directory, absolute>/<OUT's file name>.match.json" (a name only: no such
 * file is written), or just "<OUT's file name>.match.json" when the absolute one would exceed 256 bytes.
 * So `replay verify` finds the graph through the recorded directory, and through the replay's own
 * directory when the replay and the graph were moved together.
 *
 * Records: per tick t a FRAME (param i = the target of column i's parameter after the script's row for
 * t; trigger j = child + 1 of the state a cell of trigger j's kind plays at t, else 0; defaulted mask 0,
 * no payload), then a CHECKSUM of the state after frame t (every tick; with the pose checksum when CONFIG
 * binds clips), a SNAPSHOT before frame t for t = 600, 1200, ..., END (ticks N, reason normal). Written
 * to OUT.tmp.<pid> and renamed to OUT when complete.
 *
 * The match runs beside eval's own instance, and after every tick its character's state checksum (and
 * pose checksum) must equal the instance's: otherwise the recording stops with an error, so a replay
 * that exists holds exactly the states eval printed.
 * CLI code (malloc, stdio). Errors are printed as "blendsync eval: --replay: ...". */
#ifndef BLENDSYNC_CLI_EVAL_REPLAY_H
#define BLENDSYNC_CLI_EVAL_REPLAY_H

#include <stdint.h>

#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "script_csv.h"

typedef struct bsync_eval_replay bsync_eval_replay;

/* Build the match, check that its graph is CONFIG's graph, open OUT.tmp.<pid>. NULL on error (printed). */
bsync_eval_replay* bsync_eval_replay_open(const char* out_path, const char* config_path, const bsync_graph* graph,
                                          const bsync_cli_script* sc, int posed);
/* Record tick t: targets (indexed by graph parameter) and triggers as eval applied them this tick, and
 * eval's instance checksums after the tick (pose ignored unless posed). 0, or -1 (printed). */
int bsync_eval_replay_tick(bsync_eval_replay* r, uint64_t t, const fix16_t* targets,
                           const bsync_switch_trigger* triggers, uint32_t trigger_count, uint64_t state, uint64_t pose);
/* END (ticks), fsync, rename to OUT; frees r. 0, or -1 (printed; the temporary file removed). */
int bsync_eval_replay_finish(bsync_eval_replay* r, uint64_t ticks);
/* Stop without a replay: remove the temporary file, free r (NULL is ignored). */
void bsync_eval_replay_abort(bsync_eval_replay* r);

#endif /* BLENDSYNC_CLI_EVAL_REPLAY_H */
