/* script_csv.h — the CSV parameter script shared by `blendsync eval` and `blendsync bake`.
 *
 * Script: a header `tick,PARAM,...` naming parameters of the graph's tree (each at most once), then
 * rows `TICK,VALUE,...` sorted by strictly increasing tick (whole numbers 0 .. 999999999). A row sets
 * the targets of its columns from its tick on (an empty cell leaves that target as it was); before the
 * first row every target is the parameter's default. Values are exact decimals (bsync_fx_parse).
 * Blank lines are skipped; CRLF is accepted; fields are trimmed of spaces and tabs.
 *
 * `play:NODE` columns (NODE a Switch node of the config; each at most once) carry switch triggers: a
 * cell `STATE [fade=N] [carry] [inertialize]` (space-separated; the options in any order, each at most once)
 * names a child state of NODE by its motion or node name and gives a bsync_switch_trigger for THAT
 * tick only (fade_ticks N, a whole number 0 .. BSYNC_SWITCH_MAX_FADE_TICKS, default 0 = instant;
 * `carry` sets carry_time = 1: the new state starts at the dominant state's phase); an empty cell
 * triggers nothing. The triggers of a row are given in column order (docs/instance.md "Switches").
 *
 * Errors are printed to stderr as "blendsync CMD: SCRIPT:LINE:COLUMN: message" (columns count bytes
 * from 1), "blendsync CMD: SCRIPT: cannot read: REASON", or "blendsync CMD: out of memory".
 * CLI code: uses malloc and stdio. */
#ifndef BLENDSYNC_CLI_SCRIPT_CSV_H
#define BLENDSYNC_CLI_SCRIPT_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/blend_tree.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"

typedef struct bsync_cli_script {
    uint32_t columns;      /* parameter columns */
    uint32_t* param;       /* columns: parameter index of each column */
    size_t rows;
    uint64_t* tick;        /* rows, strictly increasing */
    fix16_t* value;        /* rows * columns */
    unsigned char* given;  /* rows * columns: 1 where the cell was not empty */
    uint32_t play_columns;          /* play:NODE columns (after the parameter columns in the struct, in
                                       header order among themselves) */
    uint32_t* play_switch;          /* play_columns: the switch index of each */
    bsync_switch_trigger* play;     /* rows * play_columns (switch_index filled) */
    unsigned char* play_given;      /* rows * play_columns: 1 where a trigger was written */
} bsync_cli_script;

/* Read and parse the script file `path` against `graph` (its tree's parameters, its switches). 0 on
 * success (free with bsync_cli_script_free); else the error is printed with the prefix
 * "blendsync CMD: ", *s is left empty (freeing it is harmless) and -1 is returned. */
int bsync_cli_script_load(const char* cmd, const char* path, const bsync_graph* graph, bsync_cli_script* s);

/* Parse script text already in memory (`name` is used in messages). Same results as _load. */
int bsync_cli_script_parse(const char* cmd, const char* name, const char* text, size_t len,
                           const bsync_graph* graph, bsync_cli_script* s);

/* If the row at *row is for tick t, copy its given cells into targets (indexed by parameter), its
 * triggers into triggers[0 .. *trigger_count) (an array of play_columns entries; may be NULL when
 * play_columns is 0), and advance *row; else *trigger_count = 0. Call with t = 0, 1, 2, ... and *row
 * starting at 0. */
void bsync_cli_script_apply(const bsync_cli_script* s, size_t* row, uint64_t t, fix16_t* targets,
                            bsync_switch_trigger* triggers, uint32_t* trigger_count);

void bsync_cli_script_free(bsync_cli_script* s);

#endif /* BLENDSYNC_CLI_SCRIPT_CSV_H */
