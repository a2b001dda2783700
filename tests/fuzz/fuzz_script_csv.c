/* fuzz_script_csv.c — the graph script of `blendsync eval` / `bake` / `synctest` (blendsync/io/script.h,
 * the config library) parsed against the fuzz match's graph (tests/fuzz/match/humanoid_locomotion.json:
 * parameters speed, move_x, move_y and the switch "upper"). For a script it accepts, the header's
 * contract is checked (abort() on a break): ticks strictly increasing and at most 999999999; parameter
 * columns naming distinct parameters of the tree; play columns distinct switches of the graph, every
 * trigger on its column's switch with a child of that switch, fade <= BSYNC_SWITCH_MAX_FADE_TICKS,
 * carry and inertialize 0 or 1; then bsync_script_apply over every row sets exactly the given cells
 * and advances one row per tick. A rejected script has a message and no script.
 * Seeds: the CSV scripts of scripts/demo (joystick.csv, locomotion_path.csv; make_seeds.sh). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/graph_config.h"
#include "blendsync/io/script.h"
#include "fuzz_target.h"

#ifndef BSYNC_FUZZ_MATCH_DIR
#error "BSYNC_FUZZ_MATCH_DIR (the tests/fuzz/match directory) must be defined"
#endif

static bsync_graph_config* gc;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!gc) {
        bsync_error err;
        if (bsync_graph_config_load(BSYNC_FUZZ_MATCH_DIR "/humanoid_locomotion.json", NULL, &gc, NULL, &err) != BSYNC_OK) abort();
    }
    const bsync_graph* g = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
    const uint32_t pc = bsync_blend_tree_parameter_count(tree), sc = bsync_graph_switch_count(g);
    bsync_script* s = (bsync_script*)&gc; /* any non-NULL value: a failed parse must set NULL */
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_script_parse((const char*)data, size, "fuzz.csv", g, NULL, &s, &err) != BSYNC_OK) {
        if (s != NULL || err.message[0] == '\0') abort();
        return 0;
    }
    const uint32_t columns = bsync_script_column_count(s), play_columns = bsync_script_play_column_count(s);
    const size_t rows = bsync_script_row_count(s);
    if (columns > pc || play_columns > sc) abort();
    for (uint32_t c = 0; c < columns; c++) {
        if (bsync_script_column_index(s, c) >= pc || bsync_script_column_is_trigger(s, c)) abort();
        for (uint32_t k = 0; k < c; k++)
            if (bsync_script_column_index(s, k) == bsync_script_column_index(s, c)) abort();
    }
    for (uint32_t c = 0; c < play_columns; c++) {
        if (bsync_script_play_column_switch(s, c) >= sc) abort();
        for (uint32_t k = 0; k < c; k++)
            if (bsync_script_play_column_switch(s, k) == bsync_script_play_column_switch(s, c)) abort();
    }
    for (size_t r = 0; r < rows; r++) {
        const uint64_t tick = bsync_script_row_tick(s, r);
        if (tick > 999999999u || (r && tick <= bsync_script_row_tick(s, r - 1))) abort();
        for (uint32_t c = 0; c < play_columns; c++) {
            bsync_switch_trigger t;
            if (!bsync_script_play_cell(s, r, c, &t)) continue;
            if (t.switch_index != bsync_script_play_column_switch(s, c) || t.fade_ticks > BSYNC_SWITCH_MAX_FADE_TICKS ||
                t.carry_time > 1 || t.inertialize > 1)
                abort();
            uint32_t node = bsync_graph_switch_node(g, t.switch_index);
            if (t.child >= bsync_blend_tree_node_child_count(tree, node)) abort();
        }
    }
    static fix16_t targets[BSYNC_MAX_PARAMETERS];
    static bsync_switch_trigger trig[BSYNC_GRAPH_MAX_SWITCHES + 1];
    size_t row = 0;
    for (size_t r = 0; r < rows; r++) {
        const uint64_t tick = bsync_script_row_tick(s, r);
        memset(targets, 0x7F, sizeof targets);
        size_t before = row;
        uint32_t tc = bsync_script_apply(s, &row, tick, targets, trig);
        if (row != before + 1 || tc > play_columns) abort();
        for (uint32_t c = 0; c < columns; c++) {
            int32_t v;
            fix16_t want = bsync_script_cell(s, r, c, &v) ? v : (fix16_t)0x7F7F7F7F;
            if (targets[bsync_script_column_index(s, c)] != want) abort();
        }
        if (tick + 1 < (r + 1 < rows ? bsync_script_row_tick(s, r + 1) : tick + 2)) { /* a tick without a row */
            tc = bsync_script_apply(s, &row, tick + 1, targets, trig);
            if (row != before + 1 || tc != 0) abort();
        }
    }
    bsync_script_destroy(s);
    return 0;
}
