/* desync.c — see blendsync/io/desync.h. */
#include "blendsync/io/desync.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"

typedef struct text_out {
    char* p;
    size_t cap, len;
    unsigned lines;
} text_out;

static void emit(text_out* t, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void emit(text_out* t, const char* fmt, ...) {
    if (!t->p || t->cap == 0 || t->len + 1 >= t->cap) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    t->len += (size_t)n;
    if (t->len >= t->cap) t->len = t->cap - 1;
}

static const char* fx_text(fix16_t v, char* buf) {
    char dec[24];
    bsync_fx_format(v, dec, sizeof dec);
    snprintf(buf, 48, "%s (0x%08x)", dec, (unsigned)(uint32_t)v);
    return buf;
}

unsigned bsync_desync_describe(bsync_match* a, bsync_match* b, const bsync_match_config* cfg, char* out, size_t cap) {
    text_out t = {out, cap, 0, 0};
    if (out && cap) out[0] = '\0';
    if (!a || !b || bsync_match_character_count(a) != bsync_match_character_count(b)) {
        emit(&t, "  the two states are not of the same match\n");
        return 1;
    }
    char x[48], y[48];
    if (bsync_match_tick_count(a) != bsync_match_tick_count(b)) {
        emit(&t, "  tick: %llu vs %llu\n", (unsigned long long)bsync_match_tick_count(a),
             (unsigned long long)bsync_match_tick_count(b));
        t.lines++;
    }
    for (uint32_t c = 0; c < bsync_match_character_count(a); c++) {
        const bsync_instance* ia = bsync_match_instance_const(a, c);
        const bsync_instance* ib = bsync_match_instance_const(b, c);
        const char* name = cfg ? bsync_match_config_character_name(cfg, c) : "";
        const bsync_match_script* sa = bsync_match_npc_script(a, c);
        const bsync_match_script* sb = bsync_match_npc_script(b, c);
        if (sa && sb && (sa->state != sb->state || sa->hold_left != sb->hold_left)) {
            emit(&t, "  character %u (%s) npc script: generator %016llx hold %u vs %016llx hold %u\n", c, name,
                 (unsigned long long)sa->state, sa->hold_left, (unsigned long long)sb->state, sb->hold_left);
            t.lines++;
        }
        if (bsync_instance_state_checksum(ia) == bsync_instance_state_checksum(ib)) continue;
        const bsync_graph* g = bsync_instance_graph(ia);
        const bsync_blend_tree* tree = bsync_graph_tree(g);
        uint32_t before = t.lines;
        for (uint32_t p = 0; p < bsync_graph_parameter_count(g); p++) {
            if (bsync_instance_parameter_checksum(ia, p) == bsync_instance_parameter_checksum(ib, p)) continue;
            const char* pn = bsync_blend_tree_parameter_name(tree, p);
            fix16_t ta = bsync_instance_target(ia, p), tb = bsync_instance_target(ib, p);
            if (ta != tb) {
                emit(&t, "  character %u (%s) parameter %s: target %s vs %s (the input differs)\n", c, name, pn,
                     fx_text(ta, x), fx_text(tb, y));
            } else {
                emit(&t, "  character %u (%s) parameter %s: filtered value %s vs %s (inputs equal: the filter state "
                     "differs)\n", c, name, pn, fx_text(bsync_instance_parameter(ia, p), x),
                     fx_text(bsync_instance_parameter(ib, p), y));
            }
            t.lines++;
        }
        for (uint32_t n = 0; n < bsync_graph_node_count(g); n++) {
            if (bsync_instance_node_checksum(ia, n) == bsync_instance_node_checksum(ib, n)) continue;
            char la[48], lb[48];
            emit(&t, "  character %u (%s) node %s: phase %s vs %s, cycle length %s vs %s\n", c, name,
                 bsync_blend_tree_node_name(tree, n), fx_text(bsync_instance_node_phase(ia, n), x),
                 fx_text(bsync_instance_node_phase(ib, n), y), fx_text(bsync_instance_node_length(ia, n), la),
                 fx_text(bsync_instance_node_length(ib, n), lb));
            t.lines++;
        }
        const fix16_t* wa = bsync_instance_leaf_weights(ia);
        const fix16_t* wb = bsync_instance_leaf_weights(ib);
        for (uint32_t k = 0; wa && wb && k < bsync_graph_motion_count(g); k++) {
            if (wa[k] == wb[k]) continue;
            emit(&t, "  character %u (%s) motion %s: weight %s vs %s\n", c, name, bsync_blend_tree_motion_name(tree, k),
                 fx_text(wa[k], x), fx_text(wb[k], y));
            t.lines++;
        }
        if (t.lines == before) {
            emit(&t, "  character %u (%s): state checksum %016llx vs %016llx (clock carry or switch state)\n", c, name,
                 (unsigned long long)bsync_instance_state_checksum(ia), (unsigned long long)bsync_instance_state_checksum(ib));
            t.lines++;
        }
    }
    if (t.lines == 0) emit(&t, "no difference: the two states are identical\n");
    return t.lines;
}
