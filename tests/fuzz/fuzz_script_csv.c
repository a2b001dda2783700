/* fuzz_script_csv.c — the CSV parameter script of `blendsync eval` / `bake` (client/cli/script_csv.h;
 * CLI code, linked from its source file: it needs nothing else of the CLI) parsed against the fuzz
 * match's graph (tests/fuzz/match/humanoid_locomotion.json: parameters speed, move_x, move_y and the
 * switch "upper"). For a script it accepts, the header's contract is checked (abort() on a break):
 * ticks strictly increasing and at most 999999999; parameter columns naming distinct parameters of
 * the tree; play columns distinct switches of the graph, every trigger on its column's switch with a
 * child of that switch, fade <= BSYNC_SWITCH_MAX_FADE_TICKS, carry and inertialize 0 or 1; then
 * bsync_cli_script_apply over every row sets exactly the given cells and advances one row per tick.
 * The parser prints its errors to stderr (scripts/fuzz.sh runs this target with -close_fd_mask=2).
 * Seeds: the CSV scripts of scripts/demo (joystick.csv, locomotion_path.csv; make_seeds.sh). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/graph_config.h"
#include "fuzz_target.h"
#include "script_csv.h"

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
    bsync_cli_script s;
    memset(&s, 0xEE, sizeof s);
    if (bsync_cli_script_parse("fuzz", "fuzz.csv", (const char*)data, size, g, &s) != 0) {
        bsync_cli_script_free(&s); /* left empty: freeing it is harmless */
        return 0;
    }
    if (s.columns > pc || s.play_columns > sc) abort();
    for (uint32_t c = 0; c < s.columns; c++) {
        if (s.param[c] >= pc) abort();
        for (uint32_t k = 0; k < c; k++)
            if (s.param[k] == s.param[c]) abort();
    }
    for (uint32_t c = 0; c < s.play_columns; c++) {
        if (s.play_switch[c] >= sc) abort();
        for (uint32_t k = 0; k < c; k++)
            if (s.play_switch[k] == s.play_switch[c]) abort();
    }
    for (size_t r = 0; r < s.rows; r++) {
        if (s.tick[r] > 999999999u || (r && s.tick[r] <= s.tick[r - 1])) abort();
        for (uint32_t c = 0; c < s.play_columns; c++) {
            if (!s.play_given[r * s.play_columns + c]) continue;
            const bsync_switch_trigger* t = &s.play[r * s.play_columns + c];
            if (t->switch_index != s.play_switch[c] || t->fade_ticks > BSYNC_SWITCH_MAX_FADE_TICKS || t->carry_time > 1 ||
                t->inertialize > 1)
                abort();
            uint32_t node = bsync_graph_switch_node(g, t->switch_index);
            if (t->child >= bsync_blend_tree_node_child_count(tree, node)) abort();
        }
    }
    static fix16_t targets[BSYNC_MAX_PARAMETERS];
    static bsync_switch_trigger trig[BSYNC_GRAPH_MAX_SWITCHES + 1];
    size_t row = 0;
    for (size_t r = 0; r < s.rows; r++) {
        memset(targets, 0x7F, sizeof targets);
        uint32_t tc = 99;
        size_t before = row;
        bsync_cli_script_apply(&s, &row, s.tick[r], targets, trig, &tc);
        if (row != before + 1 || tc > s.play_columns) abort();
        for (uint32_t c = 0; c < s.columns; c++) {
            fix16_t want = s.given[r * s.columns + c] ? s.value[r * s.columns + c] : (fix16_t)0x7F7F7F7F;
            if (targets[s.param[c]] != want) abort();
        }
        if (s.tick[r] + 1 < (r + 1 < s.rows ? s.tick[r + 1] : s.tick[r] + 2)) { /* a tick without a row */
            bsync_cli_script_apply(&s, &row, s.tick[r] + 1, targets, trig, &tc);
            if (row != before + 1 || tc != 0) abort();
        }
    }
    bsync_cli_script_free(&s);
    return 0;
}
