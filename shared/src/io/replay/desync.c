/* desync.c — see blendsync/io/desync.h. */
#include "blendsync/io/desync.h"

#include <stdarg.h>
#include <stdlib.h>
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

/* ---------------------------------------------------------------- trace */

/* The earliest differing field of character c between a (re-simulated) and b (the client), in the
 * order a tick computes them (desync.h). Writes one line; returns the operation number. */
static int classify(const bsync_instance* ia, const bsync_instance* ib, uint32_t c, const char* name, uint32_t tick,
                    text_out* t) {
    char x[48], y[48], z[48];
    const bsync_graph* g = bsync_instance_graph(ia);
    const bsync_blend_tree* tree = bsync_graph_tree(g);
    const uint32_t P = bsync_graph_parameter_count(g), N = bsync_graph_node_count(g), M = bsync_graph_motion_count(g);
    for (uint32_t p = 0; p < P; p++) {
        fix16_t ta = bsync_instance_target(ia, p), tb = bsync_instance_target(ib, p);
        if (ta == tb) continue;
        emit(t, "  earliest: tick %u, character %u (%s): the input of frame %u differs: parameter %s target %s vs %s "
             "(the client applied other inputs than the server confirmed)\n",
             tick - 1, c, name, tick - 1, bsync_blend_tree_parameter_name(tree, p), fx_text(ta, x), fx_text(tb, y));
        return 1;
    }
    for (uint32_t p = 0; p < P; p++) {
        if (bsync_instance_parameter_checksum(ia, p) == bsync_instance_parameter_checksum(ib, p)) continue;
        emit(t, "  earliest: tick %u, character %u (%s): the filter step of parameter %s (dead zone, curve, "
             "SmoothDamp) gave filtered value %s vs %s from an identical state and an identical input %s\n",
             tick - 1, c, name, bsync_blend_tree_parameter_name(tree, p), fx_text(bsync_instance_parameter(ia, p), x),
             fx_text(bsync_instance_parameter(ib, p), y), fx_text(bsync_instance_target(ia, p), z));
        return 2;
    }
    const fix16_t* wa = bsync_instance_leaf_weights(ia);
    const fix16_t* wb = bsync_instance_leaf_weights(ib);
    for (uint32_t k = 0; wa && wb && k < M; k++) {
        if (wa[k] == wb[k]) continue;
        emit(t, "  earliest: tick %u, character %u (%s): the blend weights from equal parameters: motion %s weight "
             "%s vs %s\n", tick - 1, c, name, bsync_blend_tree_motion_name(tree, k), fx_text(wa[k], x), fx_text(wb[k], y));
        return 3;
    }
    for (uint32_t n = 0; n < N; n++) {
        fix16_t la = bsync_instance_node_length(ia, n), lb = bsync_instance_node_length(ib, n);
        if (la == lb) continue;
        emit(t, "  earliest: tick %u, character %u (%s): the synchronised cycle length of node %s from equal "
             "weights: %s vs %s\n", tick - 1, c, name, bsync_blend_tree_node_name(tree, n), fx_text(la, x), fx_text(lb, y));
        return 4;
    }
    for (uint32_t n = 0; n < N; n++) {
        if (bsync_instance_node_checksum(ia, n) == bsync_instance_node_checksum(ib, n)) continue;
        emit(t, "  earliest: tick %u, character %u (%s): the clock advance of node %s: phase %s vs %s from an "
             "identical phase before the tick and an equal cycle length %s\n",
             tick - 1, c, name, bsync_blend_tree_node_name(tree, n), fx_text(bsync_instance_node_phase(ia, n), x),
             fx_text(bsync_instance_node_phase(ib, n), y), fx_text(bsync_instance_node_length(ia, n), z));
        return 5;
    }
    emit(t, "  earliest: tick %u, character %u (%s): switch stacks, inertialization or a clock carry (parameters, "
         "weights and nodes equal; state checksum %016llx vs %016llx)\n",
         tick - 1, c, name, (unsigned long long)bsync_instance_state_checksum(ia),
         (unsigned long long)bsync_instance_state_checksum(ib));
    return 6;
}

/* Compares the listed characters of `work` (state at the start of `tick`) with trail tick index i.
 * Returns the first listed index k whose bytes differ, or -1. */
static int first_differing(const bsync_match* work, const bsync_trail* trail, uint32_t i, uint8_t* buf, size_t cap) {
    for (uint32_t k = 0; k < trail->character_count; k++) {
        const uint8_t* e = NULL;
        size_t n = 0;
        if (bsync_trail_entry(trail, i, k, &e, &n) != BSYNC_OK) return (int)k;
        const bsync_instance* inst = bsync_match_instance_const(work, trail->characters[k]);
        size_t w = 0;
        if (!inst || bsync_instance_save(inst, buf, cap, &w) != BSYNC_OK || w != n || memcmp(buf, e, n) != 0) return (int)k;
    }
    return -1;
}

unsigned bsync_desync_trace(bsync_match* work, bsync_match* other, const bsync_match_config* cfg,
                            const bsync_match_frame* frames, uint32_t frame_count, const bsync_trail* trail,
                            bsync_desync_trace_result* result, char* out, size_t cap) {
    text_out t = {out, cap, 0, 0};
    if (out && cap) out[0] = '\0';
    bsync_desync_trace_result res;
    memset(&res, 0, sizeof res);
    if (result) *result = res;
    if (!work || !other || !trail || (!frames && frame_count > 0)) {
        emit(&t, "  trace: missing arguments\n");
        return 1;
    }
    if (trail->match_hash != bsync_match_hash(bsync_match_get_desc(work))) {
        emit(&t, "  trace: the trail belongs to another match (hash %016llx)\n", (unsigned long long)trail->match_hash);
        return 1;
    }
    for (uint32_t k = 0; k < trail->character_count; k++)
        if (trail->characters[k] >= bsync_match_character_count(work)) {
            emit(&t, "  trace: the trail names character %u, the match has %u\n", trail->characters[k],
                 bsync_match_character_count(work));
            return 1;
        }
    const size_t snap_cap = bsync_match_snapshot_size_max(work);
    uint8_t* snap = malloc(snap_cap + 65536u);
    if (!snap) {
        emit(&t, "  trace: out of memory\n");
        return 1;
    }
    uint8_t* inst_buf = snap + snap_cap;
    const uint32_t start = (uint32_t)bsync_match_tick_count(work);
    char detail[16384];
    detail[0] = '\0';
    for (uint32_t f = 0; f <= frame_count; f++) {
        const uint32_t tick = start + f; /* work holds the state at the start of `tick` */
        if (!res.located && tick >= trail->first_tick && tick - trail->first_tick < trail->tick_count) {
            const uint32_t i = tick - trail->first_tick;
            res.compared++;
            int k = first_differing(work, trail, i, inst_buf, 65536u);
            if (k >= 0) {
                const uint32_t c = trail->characters[k];
                res.located = 1;
                res.earlier = (res.compared == 1);
                res.tick = tick;
                res.character = c;
                size_t sl = 0;
                const uint8_t* e = NULL;
                size_t n = 0;
                int loaded = bsync_match_save(work, snap, snap_cap, &sl) == BSYNC_OK &&
                             bsync_match_load(other, snap, sl) == BSYNC_OK &&
                             bsync_trail_entry(trail, i, (uint32_t)k, &e, &n) == BSYNC_OK &&
                             bsync_instance_load(bsync_match_instance(other, c), e, n) == BSYNC_OK;
                const char* name = cfg ? bsync_match_config_character_name(cfg, c) : "";
                if (!loaded) {
                    emit(&t, "  earliest: tick %u, character %u (%s): the client's state does not load (not this "
                         "graph's snapshot)\n", tick - 1, c, name);
                } else {
                    if (res.earlier)
                        emit(&t, "  the client's first state in the trail (tick %u) already differs: the divergence "
                             "is earlier than the trail; its differences:\n", tick - 1);
                    res.operation = classify(bsync_match_instance_const(work, c), bsync_match_instance_const(other, c),
                                             c, name, tick, &t);
                    t.lines++;
                    bsync_desync_describe(work, other, cfg, detail, sizeof detail);
                }
            }
        }
        if (f == frame_count) break;
        if (bsync_match_tick(work, &frames[f]) != BSYNC_OK) {
            emit(&t, "  trace: frame %u does not apply\n", tick);
            t.lines++;
            break;
        }
    }
    free(snap);
    if (res.located && detail[0]) {
        /* the field lines of that character at that tick, as bsync_desync_describe words them */
        for (const char* p = detail; *p;) {
            const char* e = strchr(p, '\n');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            if (n >= 2 && p[0] == ' ' && p[1] == ' ') {
                emit(&t, "  at tick %u %.*s\n", res.tick - 1, (int)(n - 2), p + 2);
                t.lines++;
            }
            p += n + (e ? 1 : 0);
        }
    }
    if (result) *result = res;
    return t.lines;
}

/* ---------------------------------------------------------------- inputs.csv */

typedef struct sized_out {
    char* p;
    size_t cap, need;
} sized_out;

static void put_text(sized_out* o, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put_text(sized_out* o, const char* fmt, ...) {
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1;
    if (o->cap > 0 && o->need < o->cap - 1) {
        size_t room = o->cap - 1 - o->need;
        memcpy(o->p + o->need, tmp, len < room ? len : room);
    }
    o->need += len;
}

size_t bsync_desync_inputs_csv(const bsync_match_desc* desc, const bsync_match_config* cfg, const bsync_match_frame* frames,
                               const uint16_t* defaulted, uint32_t first_tick, uint32_t count, char* out, size_t cap) {
    sized_out o = {out, out ? cap : 0, 0};
    if (!desc || (!frames && count > 0)) {
        if (out && cap) out[0] = '\0';
        return 0;
    }
    const bsync_match_desc* d = desc;
    put_text(&o, "tick,slot,defaulted");
    for (uint32_t i = 0; i < d->param_count; i++) {
        if (cfg) put_text(&o, ",%s", bsync_match_config_param_name(cfg, i));
        else put_text(&o, ",param%u", i);
    }
    for (uint32_t j = 0; j < d->trigger_count; j++) {
        if (cfg) put_text(&o, ",%s", bsync_match_config_trigger_name(cfg, j));
        else put_text(&o, ",trigger%u", j);
    }
    put_text(&o, "\n");
    for (uint32_t f = 0; f < count; f++) {
        for (uint32_t pl = 0; pl < d->player_count; pl++) {
            const bsync_match_input* in = &frames[f].players[pl];
            put_text(&o, "%u,%u,%u", first_tick + f, pl, defaulted ? (unsigned)((defaulted[f] >> pl) & 1u) : 0u);
            for (uint32_t i = 0; i < d->param_count; i++) {
                char dec[24];
                bsync_fx_format(in->params[i], dec, sizeof dec);
                put_text(&o, ",%s", dec);
            }
            for (uint32_t j = 0; j < d->trigger_count; j++) put_text(&o, ",%u", in->triggers[j]);
            put_text(&o, "\n");
        }
    }
    if (o.cap > 0) o.p[o.need < o.cap ? o.need : o.cap - 1] = '\0';
    return o.need;
}
