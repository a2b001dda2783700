/* fuzz_script_inputs.c — the input script of `blendsync bot --script` (blendsync/io/script.h, the
 * config library) parsed against the fuzz match (tests/fuzz/match/match.json: input parameters speed,
 * move_x, move_y and the trigger "action"). A rejected script has a message and no script. For a
 * script it accepts (abort() on a break): at most 80 columns, each naming a parameter or a trigger of
 * the match; ticks strictly increasing and below 2^32; trigger cells 0..255, parameter cells never
 * INT32_MIN; and bsync_script_input at every row's tick and the tick after it gives each parameter the
 * last value written at or before that tick (0 before any) and each trigger its cell of a row of that
 * very tick only (else 0).
 * Seeds: scripts/demo/joystick.csv and one with CRLF, spaces, a '+' tick and trigger cells (make_seeds.sh). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/match_config.h"
#include "blendsync/io/script.h"
#include "fuzz_target.h"

#ifndef BSYNC_FUZZ_MATCH_DIR
#error "BSYNC_FUZZ_MATCH_DIR (the tests/fuzz/match directory) must be defined"
#endif

static bsync_match_config* mc;

/* The input of tick t worked out from the cells alone. */
static void expected(const bsync_script* s, uint64_t t, bsync_match_input* in) {
    memset(in, 0, sizeof *in);
    for (size_t r = 0; r < bsync_script_row_count(s) && bsync_script_row_tick(s, r) <= t; r++)
        for (uint32_t c = 0; c < bsync_script_column_count(s); c++) {
            int32_t v;
            if (!bsync_script_cell(s, r, c, &v)) continue;
            if (!bsync_script_column_is_trigger(s, c)) in->params[bsync_script_column_index(s, c)] = v;
            else if (bsync_script_row_tick(s, r) == t) in->triggers[bsync_script_column_index(s, c)] = (uint8_t)v;
        }
}

static void check_tick(const bsync_script* s, uint64_t t) {
    bsync_match_input got, want;
    memset(&got, 0x5A, sizeof got);
    bsync_script_input(s, t, &got);
    expected(s, t, &want);
    if (memcmp(&got, &want, sizeof got) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!mc) {
        bsync_error err;
        if (bsync_match_config_load(BSYNC_FUZZ_MATCH_DIR "/match.json", NULL, &mc, &err) != BSYNC_OK) abort();
    }
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    static char sentinel;
    bsync_script* s = (bsync_script*)(void*)&sentinel; /* a failed parse must set NULL */
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_script_parse_inputs((const char*)data, size, "fuzz.csv", mc, NULL, &s, &err) != BSYNC_OK) {
        if (s != NULL || err.message[0] == '\0') abort();
        return 0;
    }
    const uint32_t columns = bsync_script_column_count(s);
    const size_t rows = bsync_script_row_count(s);
    if (columns > BSYNC_MATCH_MAX_PARAMS + BSYNC_MATCH_MAX_TRIGGERS || bsync_script_play_column_count(s) != 0) abort();
    for (uint32_t c = 0; c < columns; c++) {
        const int trig = bsync_script_column_is_trigger(s, c);
        if (bsync_script_column_index(s, c) >= (trig ? d->trigger_count : d->param_count)) abort();
    }
    for (size_t r = 0; r < rows; r++) {
        const uint64_t tick = bsync_script_row_tick(s, r);
        if (tick > UINT32_MAX || (r && tick <= bsync_script_row_tick(s, r - 1))) abort();
        for (uint32_t c = 0; c < columns; c++) {
            int32_t v;
            if (!bsync_script_cell(s, r, c, &v)) continue;
            if (bsync_script_column_is_trigger(s, c) ? (v < 0 || v > 255) : v == INT32_MIN) abort();
        }
        check_tick(s, tick);
        check_tick(s, tick + 1);
    }
    check_tick(s, 0);
    bsync_script_destroy(s);
    return 0;
}
