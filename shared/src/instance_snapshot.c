/* instance_snapshot.c — instance snapshots: sizes, save and load, every field little-endian
 * (docs/instance.md "Snapshot bytes"). */
#include "blendsync/instance.h"

#include "blendsync/checksum.h"
#include "internal/graph_impl.h"
#include "internal/instance_impl.h"
#include "internal/instance_snapshot.h"
#include "internal/le.h"

typedef struct writer { unsigned char* p; } writer;
static void w_u32(writer* w, uint32_t v) {
    bsync_le_put32(w->p, v);
    w->p += 4;
}
static void w_u64(writer* w, uint64_t v) {
    bsync_le_put64(w->p, v);
    w->p += 8;
}
static uint32_t r_u32(const unsigned char** p) {
    uint32_t v = bsync_le_get32(*p);
    *p += 4;
    return v;
}
static uint64_t r_u64(const unsigned char** p) {
    uint64_t v = bsync_le_get64(*p);
    *p += 8;
    return v;
}

size_t bsync_instance_snapshot_size(const bsync_graph* g) {
    if (!g) return 0;
    return 32u + 4u + 48u * (size_t)g->param_count + 4u + 20u * (size_t)g->node_count + 4u +
           20u * (size_t)g->clock_count + (g->switch_count > 0 ? 4u + 68u * (size_t)g->switch_count : 0u) +
           (g->range_states > 0 ? 4u + (size_t)g->range_states : 0u) + 8u;
}

/* Active inertializations (0 without the area). */
static uint32_t inert_active_count(const bsync_instance* inst) {
    if (!instance_can_inertialize(inst->graph)) return 0;
    const inert_area a = instance_cinert_of(inst);
    uint32_t n = 0;
    for (uint32_t i = 0; i < inst->graph->switch_count; i++) n += a.st[i].active;
    return n;
}

/* Bytes of the inertialization block of a version 4 or 6 snapshot with n active switches. */
static size_t inert_block_bytes(const bsync_graph* g, uint32_t n) {
    return 4u + (size_t)n * (12u + 36u * (size_t)g->joint_count);
}

size_t bsync_instance_snapshot_size_max(const bsync_graph* g) {
    if (!g) return 0;
    if (!instance_can_inertialize(g)) return bsync_instance_snapshot_size(g);
    return bsync_instance_snapshot_size(g) + inert_block_bytes(g, g->switch_count);
}

size_t bsync_instance_snapshot_size_now(const bsync_instance* inst) {
    if (!instance_valid(inst)) return 0;
    const uint32_t n = inert_active_count(inst);
    if (n == 0) return bsync_instance_snapshot_size(inst->graph);
    return bsync_instance_snapshot_size(inst->graph) + inert_block_bytes(inst->graph, n);
}

static void w_clock(writer* w, const bsync_clip_time* t) {
    w_u64(w, (uint64_t)t->cycles);
    w_u32(w, t->phase);
    w_u64(w, t->carry);
}

bsync_result bsync_instance_save(const bsync_instance* inst, void* buf, size_t cap, size_t* written) {
    if (!instance_valid(inst) || !buf) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    const size_t total = bsync_instance_snapshot_size_now(inst);
    const uint32_t n_inert = inert_active_count(inst);
    if (cap < total || total > 0xFFFFFFFFu) return BSYNC_BUFFER_TOO_SMALL;
    writer w = {(unsigned char*)buf};
    w_u32(&w, BSYNC_SNAPSHOT_MAGIC);
    if (g->range_states > 0) /* docs/actions.md "Snapshots" */
        w_u32(&w, n_inert > 0 ? BSYNC_SNAPSHOT_VERSION_ACTIONS_INERTIA : BSYNC_SNAPSHOT_VERSION_ACTIONS);
    else
        w_u32(&w, n_inert > 0                ? BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY
                  : g->switch_count > 0 ? BSYNC_SNAPSHOT_VERSION_SWITCHES
                                        : BSYNC_SNAPSHOT_VERSION);
    w_u64(&w, g->hash);
    w_u32(&w, (uint32_t)total);
    w_u32(&w, 0);
    w_u64(&w, inst->tick);
    const fix16_t* targets = CARR(inst, fix16_t, off_targets);
    const bsync_param_state* st = CARR(inst, bsync_param_state, off_states);
    w_u32(&w, g->param_count);
    for (uint32_t i = 0; i < g->param_count; i++) {
        w_u32(&w, (uint32_t)targets[i]);
        w_u32(&w, (uint32_t)st[i].value[0]);
        w_u32(&w, (uint32_t)st[i].value[1]);
        w_u32(&w, st[i].settled);
        for (int k = 0; k < 2; k++) {
            w_u64(&w, (uint64_t)st[i].smooth[k].value);
            w_u64(&w, (uint64_t)st[i].smooth[k].velocity);
        }
    }
    const bsync_clip_time* clocks = CARR(inst, bsync_clip_time, off_clocks);
    w_u32(&w, g->node_count);
    for (uint32_t n = 0; n < g->node_count; n++) w_clock(&w, &clocks[n]);
    const bsync_clip_time* sc = CARR(inst, bsync_clip_time, off_slot_clocks);
    w_u32(&w, g->clock_count);
    for (uint32_t c = 0; c < g->clock_count; c++) w_clock(&w, &sc[c]);
    if (g->switch_count > 0) {
        const sw_stack* stacks = instance_cswitch_stacks(inst);
        w_u32(&w, g->switch_count);
        for (uint32_t i = 0; i < g->switch_count; i++) {
            w_u32(&w, stacks[i].count);
            for (uint32_t k = 0; k < BSYNC_SWITCH_STACK_DEPTH; k++) {
                const sw_entry* e = &stacks[i].e[k];
                w_u32(&w, e->child);
                w_u32(&w, (uint32_t)e->base);
                w_u32(&w, e->fade);
                w_u32(&w, e->done);
            }
        }
    }
    if (g->range_states > 0) {
        const actions_area ac = instance_cactions_of(inst);
        w_u32(&w, g->range_states);
        for (uint32_t k = 0; k < g->range_states; k++) *w.p++ = ac.open[k];
    }
    if (n_inert > 0) {
        const inert_area a = instance_cinert_of(inst);
        const uint32_t J = g->joint_count;
        w_u32(&w, n_inert);
        for (uint32_t i = 0; i < g->switch_count; i++) {
            if (!a.st[i].active) continue;
            w_u32(&w, i);
            w_u32(&w, a.st[i].elapsed);
            w_u32(&w, a.st[i].total);
            for (uint32_t j = 0; j < J; j++) {
                const bsync_vec3 t = a.t[(size_t)i * J + j];
                const bsync_quat q = a.r[(size_t)i * J + j];
                w_u32(&w, (uint32_t)t.x); w_u32(&w, (uint32_t)t.y); w_u32(&w, (uint32_t)t.z);
                w_u32(&w, (uint32_t)q.x); w_u32(&w, (uint32_t)q.y); w_u32(&w, (uint32_t)q.z); w_u32(&w, (uint32_t)q.w);
                w_u32(&w, (uint32_t)a.v[2u * ((size_t)i * J + j)]);
                w_u32(&w, (uint32_t)a.v[2u * ((size_t)i * J + j) + 1u]);
            }
        }
    }
    const uint64_t h = bsync_checksum_xxh64(buf, total - 8u, 0);
    w_u64(&w, h);
    if (written) *written = total;
    return BSYNC_OK;
}

#define SMOOTH_VALUE_LIMIT ((int64_t)BSYNC_FX_MAX * 65536)
#define SMOOTH_VELOCITY_LIMIT ((int64_t)1 << 58)
#define CYCLES_LIMIT ((int64_t)1 << 62)

static int read_clock(const unsigned char** p, uint64_t den, bsync_clip_time* out) {
    bsync_clip_time t = bsync_time_start();
    t.cycles = instance_to_i64(r_u64(p));
    t.phase = r_u32(p);
    t.carry = r_u64(p);
    if (t.cycles > CYCLES_LIMIT || t.cycles < -CYCLES_LIMIT || t.carry >= den) return 0;
    if (out) *out = t;
    return 1;
}

/* Reads (and when `apply`, stores) the inertialization block of a version 4 or 6 snapshot (n active
 * switches, checked by the caller to be 1..W); returns 0 on a bad field. */
static int read_inert(bsync_instance* inst, const unsigned char* p, uint32_t n, int apply) {
    const bsync_graph* g = inst->graph;
    const uint32_t J = g->joint_count;
    const inert_area a = instance_inert_of(inst);
    if (apply)
        for (uint32_t i = 0; i < g->switch_count; i++) instance_inert_clear(inst, i);
    uint32_t next = 0; /* indices strictly increasing */
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = r_u32(&p), elapsed = r_u32(&p), total = r_u32(&p);
        if (i < next || i >= g->switch_count || total < 1u || total > BSYNC_SWITCH_MAX_FADE_TICKS || elapsed >= total)
            return 0;
        next = i + 1u;
        for (uint32_t j = 0; j < J; j++) {
            bsync_vec3 t;
            bsync_quat q;
            t.x = instance_to_i32(r_u32(&p)); t.y = instance_to_i32(r_u32(&p)); t.z = instance_to_i32(r_u32(&p));
            q.x = instance_to_i32(r_u32(&p)); q.y = instance_to_i32(r_u32(&p)); q.z = instance_to_i32(r_u32(&p)); q.w = instance_to_i32(r_u32(&p));
            if (t.x == INT32_MIN || t.y == INT32_MIN || t.z == INT32_MIN) return 0;
            if (q.x < -BSYNC_FX_ONE || q.x > BSYNC_FX_ONE || q.y < -BSYNC_FX_ONE || q.y > BSYNC_FX_ONE ||
                q.z < -BSYNC_FX_ONE || q.z > BSYNC_FX_ONE || q.w < 0 || q.w > BSYNC_FX_ONE ||
                (q.w == 0 && bsync_quat_lex_negative_(q)))
                return 0;
            const fix16_t vt = instance_to_i32(r_u32(&p));
            const fix16_t vr = instance_to_i32(r_u32(&p));
            if (vt > 0 || vr > 0 || vt == INT32_MIN || vr == INT32_MIN) return 0; /* v0 <= 0 */
            if ((vt != 0 && bsync_vec3_length(t) == 0) || (vr != 0 && instance_inert_angle(q) == 0)) return 0;
            if (apply) {
                a.t[(size_t)i * J + j] = t;
                a.r[(size_t)i * J + j] = q;
                a.v[2u * ((size_t)i * J + j)] = vt;
                a.v[2u * ((size_t)i * J + j) + 1u] = vr;
            }
        }
        if (apply) {
            a.st[i].active = 1;
            a.st[i].elapsed = elapsed;
            a.st[i].total = total;
            a.st[i].pad_ = 0;
        }
    }
    return 1;
}

/* Reads (and when `apply`, stores) the body; returns 0 on a bad field. */
static int read_body(bsync_instance* inst, const unsigned char* p, int apply) {
    const bsync_graph* g = inst->graph;
    const uint64_t tick = r_u64(&p);
    if (r_u32(&p) != g->param_count) return 0;
    fix16_t* targets = ARR(inst, fix16_t, off_targets);
    bsync_param_state* st = ARR(inst, bsync_param_state, off_states);
    for (uint32_t i = 0; i < g->param_count; i++) {
        bsync_param_state s;
        const fix16_t target = instance_to_i32(r_u32(&p));
        s.value[0] = instance_to_i32(r_u32(&p));
        s.value[1] = instance_to_i32(r_u32(&p));
        s.settled = r_u32(&p);
        s.pad_ = 0;
        for (int k = 0; k < 2; k++) {
            s.smooth[k].value = instance_to_i64(r_u64(&p));
            s.smooth[k].velocity = instance_to_i64(r_u64(&p));
            if (s.smooth[k].value > SMOOTH_VALUE_LIMIT || s.smooth[k].value < -SMOOTH_VALUE_LIMIT) return 0;
            if (s.smooth[k].velocity > SMOOTH_VELOCITY_LIMIT || s.smooth[k].velocity < -SMOOTH_VELOCITY_LIMIT)
                return 0;
        }
        if (s.settled > 1u || s.value[0] == INT32_MIN || s.value[1] == INT32_MIN) return 0;
        const uint32_t kind = g->param_kind[i];
        if (kind != GRAPH_PARAM_PAIR_FIRST &&
            (s.value[1] != 0 || s.smooth[1].value != 0 || s.smooth[1].velocity != 0))
            return 0;
        if (kind == GRAPH_PARAM_PAIR_SECOND &&
            (s.value[0] != 0 || s.settled != 0 || s.smooth[0].value != 0 || s.smooth[0].velocity != 0))
            return 0;
        if (apply) {
            targets[i] = target;
            st[i] = s;
        }
    }
    if (r_u32(&p) != g->node_count) return 0;
    bsync_clip_time* clocks = ARR(inst, bsync_clip_time, off_clocks);
    for (uint32_t n = 0; n < g->node_count; n++)
        if (!read_clock(&p, bsync_graph_node_den_(g), apply ? &clocks[n] : NULL)) return 0;
    if (r_u32(&p) != g->clock_count) return 0;
    bsync_clip_time* sc = ARR(inst, bsync_clip_time, off_slot_clocks);
    for (uint32_t c = 0; c < g->clock_count; c++)
        if (!read_clock(&p, g->clock_steps[c].den, apply ? &sc[c] : NULL)) return 0;
    if (g->switch_count > 0) {
        if (r_u32(&p) != g->switch_count) return 0;
        sw_stack* stacks = instance_switch_stacks(inst);
        for (uint32_t i = 0; i < g->switch_count; i++) {
            sw_stack ss;
            ss.count = r_u32(&p);
            ss.pad_ = 0;
            if (ss.count < 1u || ss.count > BSYNC_SWITCH_STACK_DEPTH) return 0;
            const uint32_t cc = g->nodes[g->switches[i].node].child_count;
            int64_t sum = 0;
            for (uint32_t k = 0; k < BSYNC_SWITCH_STACK_DEPTH; k++) {
                sw_entry* e = &ss.e[k];
                e->child = r_u32(&p);
                e->base = instance_to_i32(r_u32(&p));
                e->fade = r_u32(&p);
                e->done = r_u32(&p);
                e->weight = 0;
                if (k >= ss.count) {
                    if (e->child != 0 || e->base != 0 || e->fade != 0 || e->done != 0) return 0;
                    continue;
                }
                if (e->child >= cc || e->base < 0 || e->base > BSYNC_FX_ONE) return 0;
                if (k + 1u < ss.count || ss.count == 1u) {
                    if (e->fade != 0 || e->done != 0) return 0;
                    sum += e->base;
                } else if (e->base != 0 || e->fade > BSYNC_SWITCH_MAX_FADE_TICKS || e->done >= e->fade) {
                    return 0; /* the newest of several: fading, 0 <= done < fade */
                }
            }
            if (sum != BSYNC_FX_ONE) return 0;
            if (apply) stacks[i] = ss; /* weights: instance_derive_all */
        }
    }
    if (g->range_states > 0) { /* the range states: each 0 or 1 */
        if (r_u32(&p) != g->range_states) return 0;
        uint8_t* open = instance_actions_of(inst).open;
        for (uint32_t k = 0; k < g->range_states; k++) {
            const uint8_t v = *p++;
            if (v > 1u) return 0;
            if (apply) open[k] = v;
        }
    }
    if (apply) inst->tick = tick;
    return 1;
}

/* The checks of bsync_instance_load, nothing written: BSYNC_OK with the block count (0: none) and the
 * offsets of the body and the inertialization block in the blob. */
static bsync_result snapshot_check(const bsync_instance* inst, const void* buf, size_t len, uint32_t* out_inert,
                                   size_t* out_body, size_t* out_block) {
    bsync_instance* mi = (bsync_instance*)(uintptr_t)inst; /* read_body / read_inert with apply 0 only read */
    const bsync_graph* g = inst->graph;
    const size_t total = bsync_instance_snapshot_size(g);
    const unsigned char* p = (const unsigned char*)buf;
    if (len < 32u) return BSYNC_BAD_BLOB;
    if (r_u32(&p) != BSYNC_SNAPSHOT_MAGIC) return BSYNC_BAD_BLOB;
    const uint32_t version = r_u32(&p);
    int inert; /* an inertialization block follows */
    if (g->range_states > 0) { /* graphs with range actions: versions 5 and 6 only */
        if (version != BSYNC_SNAPSHOT_VERSION_ACTIONS &&
            !(version == BSYNC_SNAPSHOT_VERSION_ACTIONS_INERTIA && instance_can_inertialize(g)))
            return BSYNC_BAD_BLOB;
        inert = version == BSYNC_SNAPSHOT_VERSION_ACTIONS_INERTIA;
    } else { /* 1 or 2, and 4 (docs/instance.md "Snapshot bytes": no release wrote 3) */
        inert = version == BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY && instance_can_inertialize(g);
        if (version != (g->switch_count > 0 ? BSYNC_SNAPSHOT_VERSION_SWITCHES : BSYNC_SNAPSHOT_VERSION) && !inert)
            return BSYNC_BAD_BLOB;
    }
    const uint64_t hash = r_u64(&p);
    const uint32_t declared = r_u32(&p);
    const uint32_t zero = r_u32(&p);
    if (declared != len || zero != 0) return BSYNC_BAD_BLOB;
    if (hash != g->hash) return BSYNC_MISMATCH;
    uint32_t n_inert = 0;
    size_t full = total;
    if (inert) { /* the block count sits right after the version 2 body */
        if (len < total + 4u) return BSYNC_BAD_BLOB;
        const unsigned char* q = (const unsigned char*)buf + total - 8u;
        n_inert = r_u32(&q);
        if (n_inert < 1u || n_inert > g->switch_count) return BSYNC_BAD_BLOB;
        full = total + inert_block_bytes(g, n_inert);
    }
    if (len != full) return BSYNC_BAD_BLOB;
    const unsigned char* tail = (const unsigned char*)buf + full - 8u;
    if (r_u64(&tail) != bsync_checksum_xxh64(buf, full - 8u, 0)) return BSYNC_BAD_BLOB;
    const size_t block = total - 8u + 4u;
    if (!read_body(mi, p, 0) || (inert && !read_inert(mi, (const unsigned char*)buf + block, n_inert, 0)))
        return BSYNC_BAD_BLOB;
    *out_inert = n_inert;
    *out_body = (size_t)(p - (const unsigned char*)buf);
    *out_block = block;
    return BSYNC_OK;
}

bsync_result instance_snapshot_check(const bsync_instance* inst, const void* buf, size_t len) {
    if (!instance_valid(inst) || !buf) return BSYNC_INVALID_ARGUMENT;
    uint32_t n_inert = 0;
    size_t body = 0, block = 0;
    return snapshot_check(inst, buf, len, &n_inert, &body, &block);
}

/* Writes a checked blob into the instance, then the derived state. The sample cursors are reset (a
 * few words each), not rebuilt: a cursor never changes a result (sample.h), and the first sample after
 * the load warms it with one key search (docs/sample.md "Cursors"). */
static void snapshot_apply(bsync_instance* inst, const void* buf, uint32_t n_inert, size_t body, size_t block) {
    const bsync_graph* g = inst->graph;
    const unsigned char* base = (const unsigned char*)buf;
    (void)read_body(inst, base + body, 1);
    if (instance_can_inertialize(g)) {
        if (n_inert > 0) (void)read_inert(inst, base + block, n_inert, 1);
        else
            for (uint32_t i = 0; i < g->switch_count; i++) instance_inert_clear(inst, i);
    }
    instance_derive_all(inst);
    instance_reset_cursors(inst);
    instance_update_root_motion(inst); /* the last tick's delta (docs/instance.md "Root motion") */
    if (g->has_actions) *instance_actions_of(inst).count = 0; /* the saved tick's reports were the saver's */
}

bsync_result bsync_instance_load(bsync_instance* inst, const void* buf, size_t len) {
    if (!instance_valid(inst) || !buf) return BSYNC_INVALID_ARGUMENT;
    uint32_t n_inert = 0;
    size_t body = 0, block = 0;
    const bsync_result r = snapshot_check(inst, buf, len, &n_inert, &body, &block);
    if (r != BSYNC_OK) return r;
    snapshot_apply(inst, buf, n_inert, body, block);
    return BSYNC_OK;
}
