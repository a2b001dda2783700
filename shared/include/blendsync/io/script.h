/* blendsync/io/script.h — CSV scripts driving an instance or a match player tick by tick (docs/scripts.md).
 * Index
 *   bsync_script_parse, bsync_script_load                graph script (eval, bake, synctest)
 *   bsync_script_parse_inputs, bsync_script_load_inputs  input script (bot --script)
 *   bsync_script_destroy, bsync_script_apply, bsync_script_input
 *   bsync_script_row_count, bsync_script_row_tick, bsync_script_column_count, bsync_script_column_index,
 *   bsync_script_column_is_trigger, bsync_script_cell, bsync_script_play_column_count,
 *   bsync_script_play_column_switch, bsync_script_play_cell
 * Only parsing allocates (through the allocator given). */
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

/* A graph script against graph; messages "NAME:LINE:COLUMN: ...". BSYNC_PARSE_ERROR, BSYNC_IO_ERROR,
 * BSYNC_OUT_OF_MEMORY, BSYNC_INVALID_ARGUMENT; on failure *out is NULL. err may be NULL. */
BSYNC_API bsync_result bsync_script_parse(const char* text, size_t len, const char* name, const bsync_graph* graph,
                                          const bsync_allocator* allocator, bsync_script** out, bsync_error* err);
BSYNC_API bsync_result bsync_script_load(const char* path, const bsync_graph* graph, const bsync_allocator* allocator,
                                         bsync_script** out, bsync_error* err);

/* An input script against config's input parameters and triggers; messages "NAME:LINE: ...". */
BSYNC_API bsync_result bsync_script_parse_inputs(const char* text, size_t len, const char* name,
                                                 const bsync_match_config* config, const bsync_allocator* allocator,
                                                 bsync_script** out, bsync_error* err);
BSYNC_API bsync_result bsync_script_load_inputs(const char* path, const bsync_match_config* config,
                                                const bsync_allocator* allocator, bsync_script** out,
                                                bsync_error* err);

BSYNC_API void bsync_script_destroy(bsync_script* s); /* NULL is ignored */

/* Rows in file order, ticks strictly increasing. */
BSYNC_API size_t bsync_script_row_count(const bsync_script* s);
BSYNC_API uint64_t bsync_script_row_tick(const bsync_script* s, size_t row);

/* Graph script, tick = 0, 1, ... with *row from 0: the row of tick (if *row is it) into targets (by
 * parameter) and triggers (play_column_count entries; NULL: none); *row advances; returns the count. */
BSYNC_API uint32_t bsync_script_apply(const bsync_script* s, size_t* row, uint64_t tick, fix16_t* targets,
                                      bsync_switch_trigger* triggers);

/* Input script: parameters held from the rows up to tick, triggers from tick's own row only. */
BSYNC_API void bsync_script_input(const bsync_script* s, uint64_t tick, bsync_match_input* input);

/* Value columns (index: graph parameter, or match parameter / trigger); cell: 1 and *value if written. */
BSYNC_API uint32_t bsync_script_column_count(const bsync_script* s);
BSYNC_API uint32_t bsync_script_column_index(const bsync_script* s, uint32_t c);
BSYNC_API int bsync_script_column_is_trigger(const bsync_script* s, uint32_t c);
BSYNC_API int bsync_script_cell(const bsync_script* s, size_t row, uint32_t c, int32_t* value);

/* play:NODE columns (switch: graph switch index); play_cell: 1 and *trigger if written. */
BSYNC_API uint32_t bsync_script_play_column_count(const bsync_script* s);
BSYNC_API uint32_t bsync_script_play_column_switch(const bsync_script* s, uint32_t c);
BSYNC_API int bsync_script_play_cell(const bsync_script* s, size_t row, uint32_t c, bsync_switch_trigger* trigger);

#ifdef __cplusplus
}
#endif

#endif /* BLENDSYNC_IO_SCRIPT_H */
