/* blendsync/io/script.h — CSV scripts that drive a graph instance or a match player tick by tick.
 * Formats, error wording and limits: docs/scripts.md.
 * Index
 *   bsync_script_parse, bsync_script_load                graph script (eval, bake, synctest)
 *   bsync_script_parse_inputs, bsync_script_load_inputs  input script (bot --script)
 *   bsync_script_destroy
 *   bsync_script_row_count, bsync_script_row_tick
 *   bsync_script_apply                                   graph script: the row of a tick
 *   bsync_script_input                                   input script: the input of a tick
 *   bsync_script_column_count, bsync_script_column_index, bsync_script_column_is_trigger,
 *   bsync_script_cell                                    value columns
 *   bsync_script_play_column_count, bsync_script_play_column_switch, bsync_script_play_cell
 * Parsing allocates (through the allocator given); every other call neither allocates nor fails.
 */
#ifndef BLENDSYNC_IO_SCRIPT_H
#define BLENDSYNC_IO_SCRIPT_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/match.h"
#include "blendsync/io/match_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_script bsync_script;

/* Graph script: header "tick,PARAM,...,play:NODE,...", rows "TICK,VALUE,..." against graph.
 * name names the text in messages ("NAME:LINE:COLUMN: message"). BSYNC_PARSE_ERROR (bad text),
 * BSYNC_IO_ERROR (load: "PATH: cannot read: REASON"), BSYNC_OUT_OF_MEMORY ("out of memory"),
 * BSYNC_INVALID_ARGUMENT; *out is NULL on failure. err may be NULL. */
BSYNC_API bsync_result bsync_script_parse(const char* text, size_t len, const char* name, const bsync_graph* graph,
                                          const bsync_allocator* allocator, bsync_script** out, bsync_error* err);
BSYNC_API bsync_result bsync_script_load(const char* path, const bsync_graph* graph, const bsync_allocator* allocator,
                                         bsync_script** out, bsync_error* err);

/* Input script: header "tick,NAME,..." naming input parameters or triggers of config; messages
 * "NAME:LINE: message" (load: "PATH: cannot read"). Results as bsync_script_parse. */
BSYNC_API bsync_result bsync_script_parse_inputs(const char* text, size_t len, const char* name,
                                                 const bsync_match_config* config, const bsync_allocator* allocator,
                                                 bsync_script** out, bsync_error* err);
BSYNC_API bsync_result bsync_script_load_inputs(const char* path, const bsync_match_config* config,
                                                const bsync_allocator* allocator, bsync_script** out,
                                                bsync_error* err);

BSYNC_API void bsync_script_destroy(bsync_script* s); /* NULL is ignored */

/* Rows in file order; their ticks strictly increase. */
BSYNC_API size_t bsync_script_row_count(const bsync_script* s);
BSYNC_API uint64_t bsync_script_row_tick(const bsync_script* s, size_t row);

/* Graph script, called with tick = 0, 1, 2, ... and *row starting at 0: when row *row is for tick,
 * its written cells go into targets (by graph parameter), its play cells into triggers (room for
 * bsync_script_play_column_count entries; NULL: none) in column order, *row advances and the trigger
 * count is returned; else 0 and nothing changes. */
BSYNC_API uint32_t bsync_script_apply(const bsync_script* s, size_t* row, uint64_t tick, fix16_t* targets,
                                      bsync_switch_trigger* triggers);

/* Input script: *input = zero, then each parameter from the last row at or before tick that writes
 * it, each trigger only from a row of this very tick. */
BSYNC_API void bsync_script_input(const bsync_script* s, uint64_t tick, bsync_match_input* input);

/* Value columns in header order: a graph script's parameter columns (index: graph parameter), an
 * input script's columns (index: match parameter or trigger). cell: 1 and *value (fix16 raw, or a
 * trigger's 0..255) when row wrote column c, else 0. */
BSYNC_API uint32_t bsync_script_column_count(const bsync_script* s);
BSYNC_API uint32_t bsync_script_column_index(const bsync_script* s, uint32_t c);
BSYNC_API int bsync_script_column_is_trigger(const bsync_script* s, uint32_t c);
BSYNC_API int bsync_script_cell(const bsync_script* s, size_t row, uint32_t c, int32_t* value);

/* A graph script's play:NODE columns in header order (switch: graph switch index); play_cell: 1 and
 * *trigger when row wrote column c, else 0. */
BSYNC_API uint32_t bsync_script_play_column_count(const bsync_script* s);
BSYNC_API uint32_t bsync_script_play_column_switch(const bsync_script* s, uint32_t c);
BSYNC_API int bsync_script_play_cell(const bsync_script* s, size_t row, uint32_t c, bsync_switch_trigger* trigger);

#ifdef __cplusplus
}
#endif

#endif /* BLENDSYNC_IO_SCRIPT_H */
