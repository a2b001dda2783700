/* instance.c — one character's state over a graph: tick, blend state, checksums, pose, snapshots
 * (see blendsync/instance.h for the contract).
 *
 * Memory layout (caller memory, 8-aligned; offsets from the instance start, so a memcpy is a copy):
 *   struct bsync_instance, then 8-aligned arrays: targets fx[P], filtered fx[P], states[P],
 *   changed u32[P], weights fx[S], contrib fx[S], mass fx[N], length fx[N], steps[N], clocks[N],
 *   slot_clocks[C], leaf fx[M], cursors (B, each bound_cursor_bytes), scratch trs[(B + 1) * J]; with
 *   layers (L > 0) the scratch has two more poses (the layer pose, the combined pose), then layer
 *   caches: mass fx[N], contrib fx[S], joint weights fx[J] (layer_area()); with switches AND a skeleton
 *   (W > 0, J > 0) the inertialization area (inert_area()): sw_inert[W], offset translations vec3[W * J],
 *   offset rotations quat[W * J], one more pose trs[J] (the new pose while offsets are computed), the
 *   initial velocities fx[2 * W * J] (translation, rotation per joint), the pre-tick pose trs[J]; last
 *   the switch stacks sw_stack[W] (switch_stacks()). The inertialization area and the stacks are found
 *   from the end of the instance, so every earlier offset is exactly what it was before they existed.
 * The struct holds the last tick's root-motion delta (rm_t, rm_r). */
#include "blendsync/instance.h"

#include "blendsync/checksum.h"
#include "blendsync/pose.h"
#include "blendsync/sample.h"
#include "internal/graph_impl.h"
#include "internal/instance_impl.h"

static size_t align8(size_t v) { return (v + 7u) & ~(size_t)7u; }

/* Two's complement reinterpretation without implementation-defined conversions. */
static int32_t to_i32(uint32_t v) { return v <= 0x7FFFFFFFu ? (int32_t)v : -(int32_t)(~v) - 1; }
static int64_t to_i64(uint64_t v) {
    return v <= 0x7FFFFFFFFFFFFFFFull ? (int64_t)v : -(int64_t)(~v) - 1;
}

static size_t align8_(size_t v) { return (v + 7u) & ~(size_t)7u; }

/* A switch's inertialization (instance.h "Inertialization"): state while active, all zero otherwise. */
typedef struct sw_inert {
    uint32_t active;  /* 0 or 1 */
    uint32_t elapsed; /* ticks since the trigger tick (0 after it), < total */
    uint32_t total;   /* T: the trigger's fade_ticks, >= 1 */
    uint32_t pad_;    /* 0 */
} sw_inert;

/* Switches on a graph with a skeleton may inertialize: only those graphs have the area. */
static int can_inertialize(const bsync_graph* g) { return g->switch_count > 0 && g->skeleton != NULL && g->joint_count > 0; }

/* Bytes of the inertialization area (every part a multiple of 8). */
static size_t inert_bytes(const bsync_graph* g) {
    if (!can_inertialize(g)) return 0;
    const size_t W = g->switch_count, J = g->joint_count;
    return W * sizeof(sw_inert) + align8_(W * J * sizeof(bsync_vec3)) + W * J * sizeof(bsync_quat) +
           J * sizeof(bsync_trs) + align8_(2u * W * J * sizeof(fix16_t)) + J * sizeof(bsync_trs);
}

static size_t layout(const bsync_graph* g, struct bsync_instance* li) {
    const size_t P = g->param_count, S = g->slot_count, N = g->node_count, C = g->clock_count;
    const size_t M = g->motion_count, B = g->bound_count, J = g->joint_count;
    size_t off = align8(sizeof(struct bsync_instance));
    li->off_targets = off; off = align8(off + P * sizeof(fix16_t));
    li->off_filtered = off; off = align8(off + P * sizeof(fix16_t));
    li->off_states = off; off = align8(off + P * sizeof(bsync_param_state));
    li->off_changed = off; off = align8(off + P * sizeof(uint32_t));
    li->off_weights = off; off = align8(off + S * sizeof(fix16_t));
    li->off_contrib = off; off = align8(off + S * sizeof(fix16_t));
    li->off_mass = off; off = align8(off + N * sizeof(fix16_t));
    li->off_length = off; off = align8(off + N * sizeof(fix16_t));
    li->off_steps = off; off = align8(off + N * sizeof(bsync_time_step));
    li->off_clocks = off; off = align8(off + N * sizeof(bsync_clip_time));
    li->off_slot_clocks = off; off = align8(off + C * sizeof(bsync_clip_time));
    li->off_leaf = off; off = align8(off + M * sizeof(fix16_t));
    li->off_cursors = off;
    for (size_t b = 0; b < B; b++) off += (size_t)g->bound_cursor_bytes[b];
    off = align8(off);
    li->off_scratch = off;
    off = align8(off + (B + 1) * J * sizeof(bsync_trs));
    if (g->layer_count > 0) {
        off = align8(off + 2u * J * sizeof(bsync_trs));
        off = align8(off + N * sizeof(fix16_t));
        off = align8(off + S * sizeof(fix16_t));
        off = align8(off + J * sizeof(fix16_t));
    }
    off = align8(off + inert_bytes(g)); /* then the stacks: both found from the end */
    off = align8(off + (size_t)g->switch_count * sizeof(sw_stack)); /* last: see switch_stacks() */
    return off;
}

static int valid(const bsync_instance* inst) { return inst && inst->magic == INSTANCE_MAGIC && inst->graph; }

/* The switch stacks are the last switch_count * sizeof(sw_stack) bytes of the instance. */
static sw_stack* switch_stacks(bsync_instance* inst) {
    return (sw_stack*)(void*)((unsigned char*)inst + (size_t)inst->size -
                              (size_t)inst->graph->switch_count * sizeof(sw_stack));
}
static const sw_stack* cswitch_stacks(const bsync_instance* inst) {
    return (const sw_stack*)(const void*)((const unsigned char*)inst + (size_t)inst->size -
                                          (size_t)inst->graph->switch_count * sizeof(sw_stack));
}

/* The inertialization area (just before the stacks); only for can_inertialize() graphs. */
typedef struct inert_area {
    sw_inert* st;     /* W */
    bsync_vec3* t;    /* W * J: switch i's joint j at [i * J + j] */
    bsync_quat* r;    /* W * J */
    bsync_trs* pose;  /* J: scratch */
    fix16_t* v;       /* 2 * W * J: switch i's joint j: translation v0 at [2 (i J + j)], rotation v0 next */
    bsync_trs* prev;  /* J: the pose shown before this tick (computed only in ticks that inertialize) */
} inert_area;
static inert_area inert_of(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    const size_t W = g->switch_count, J = g->joint_count;
    unsigned char* p = (unsigned char*)inst + (size_t)inst->size - W * sizeof(sw_stack) - inert_bytes(g);
    inert_area a;
    a.st = (sw_inert*)(void*)p;
    p += W * sizeof(sw_inert);
    a.t = (bsync_vec3*)(void*)p;
    p += align8_(W * J * sizeof(bsync_vec3));
    a.r = (bsync_quat*)(void*)p;
    p += W * J * sizeof(bsync_quat);
    a.pose = (bsync_trs*)(void*)p;
    p += J * sizeof(bsync_trs);
    a.v = (fix16_t*)(void*)p;
    p += align8_(2u * W * J * sizeof(fix16_t));
    a.prev = (bsync_trs*)(void*)p;
    return a;
}
static inert_area cinert_of(const bsync_instance* inst) { return inert_of((bsync_instance*)(uintptr_t)inst); }

size_t bsync_instance_memory_size(const bsync_graph* graph) {
    if (!graph) return 0;
    struct bsync_instance li;
    return layout(graph, &li);
}

const bsync_graph* bsync_instance_graph(const bsync_instance* inst) { return valid(inst) ? inst->graph : NULL; }

static bsync_sample_cursor* cursor_of(bsync_instance* inst, uint32_t bound) {
    unsigned char* p = (unsigned char*)inst + (size_t)inst->off_cursors;
    for (uint32_t b = 0; b < bound; b++) p += (size_t)inst->graph->bound_cursor_bytes[b];
    return (bsync_sample_cursor*)(void*)p;
}

/* ---------------------------------------------------------------- derived state */

static void eval_node_weights(bsync_instance* inst, uint32_t n) {
    const bsync_graph* g = inst->graph;
    fix16_t* w = ARR(inst, fix16_t, off_weights) + g->nodes[n].first_slot;
    /* cannot fail: the tree, node index and pointers are valid */
    (void)bsync_blend_tree_eval_node(g->tree, n, CARR(inst, fix16_t, off_filtered), w);
}

/* Slot contributions of the subtree of `node` with mass 1.0 there: the rule of blend_tree.h's
 * flattening, node by node in parents-first order; motion slots get their contribution, child nodes
 * accumulate mass). */
static void flatten_from(const bsync_instance* inst, uint32_t node, fix16_t* mass, fix16_t* contrib) {
    const bsync_graph* g = inst->graph;
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    for (uint32_t n = 0; n < g->node_count; n++) mass[n] = 0;
    for (uint32_t s = 0; s < g->slot_count; s++) contrib[s] = 0;
    mass[node] = BSYNC_FX_ONE;
    for (uint32_t i = 0; i < g->node_count; i++) {
        const uint32_t n = g->topo[i];
        const fix16_t m = mass[n];
        if (m <= 0) continue;
        const graph_node* gn = &g->nodes[n];
        for (uint32_t k = 0; k < gn->child_count; k++) {
            const uint32_t s = gn->first_slot + k;
            if (w[s] <= 0) continue;
            const fix16_t c = bsync_fx_mul(m, w[s]);
            if (c <= 0) continue;
            const graph_slot* gs = &g->slots[s];
            if (gs->kind == (uint32_t)BSYNC_CHILD_NODE) mass[gs->index] = bsync_fx_add(mass[gs->index], c);
            else contrib[s] = c;
        }
    }
}

/* Masses, slot contributions, leaf weights, cycle lengths and phase steps from the node weights. */
static void flatten_and_lengths(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    fix16_t* contrib = ARR(inst, fix16_t, off_contrib);
    fix16_t* mass = ARR(inst, fix16_t, off_mass);
    fix16_t* leaf = ARR(inst, fix16_t, off_leaf);
    fix16_t* length = ARR(inst, fix16_t, off_length);
    bsync_time_step* steps = ARR(inst, bsync_time_step, off_steps);
    flatten_from(inst, g->root, mass, contrib);
    for (uint32_t m = 0; m < g->motion_count; m++) leaf[m] = 0;
    for (uint32_t sl = 0; sl < g->slot_count; sl++) /* a motion's weight: its slots' contributions */
        if (contrib[sl] > 0 && g->slots[sl].kind == (uint32_t)BSYNC_CHILD_MOTION)
            leaf[g->slots[sl].index] = bsync_fx_add(leaf[g->slots[sl].index], contrib[sl]);
    for (uint32_t i = g->node_count; i-- > 0;) { /* children before parents */
        const uint32_t n = g->topo[i];
        const graph_node* gn = &g->nodes[n];
        uint64_t sum = 0;
        for (uint32_t k = 0; k < gn->child_count; k++) {
            const uint32_t s = gn->first_slot + k;
            if (w[s] <= 0) continue;
            const graph_slot* gs = &g->slots[s];
            const uint64_t wi = (uint64_t)(w[s] > 64 * BSYNC_FX_ONE ? 64 * BSYNC_FX_ONE : w[s]);
            const uint64_t li = (uint64_t)(gs->kind == (uint32_t)BSYNC_CHILD_NODE ? length[gs->index]
                                                                                 : g->motion_length[gs->index]);
            const uint64_t ts = (uint64_t)gs->time_scale;        /* >= 64 */
            sum += (wi * li + ts / 2) / ts;                       /* <= 2^53 / 64 per term */
        }
        length[n] = sum > (uint64_t)BSYNC_FX_MAX ? BSYNC_FX_MAX : (fix16_t)sum;
        const fix16_t speed = length[n] > 0 ? bsync_fx_div(gn->own_scale, length[n]) : 0;
        (void)bsync_time_step_init(BSYNC_FX_ONE, speed, g->tick_rate, &steps[n]); /* rate valid */
    }
}

/* For present.c: the derived state of a copy whose node weights it changed (instance_impl.h). */
void instance_flatten_and_lengths(bsync_instance* inst) { flatten_and_lengths(inst); }

/* Entry weights from base / fade / done (instance.h "Switches"). */
static void sw_weights(sw_stack* st) {
    if (st->count <= 1u) {
        st->e[0].weight = BSYNC_FX_ONE;
        return;
    }
    const uint32_t top = st->count - 1u;
    const uint64_t f = st->e[top].fade, d = st->e[top].done; /* 0 <= d < f, or f = 0 (below) */
    /* f = 0: an instant (or inertialized) entry pushed earlier in this tick's trigger list, not yet
     * collapsed by the fade step: it already has full weight (before, this divided by zero) */
    const fix16_t wt = f == 0 ? BSYNC_FX_ONE : (fix16_t)((d * 65536u + f / 2u) / f);
    const fix16_t rem = BSYNC_FX_ONE - wt;
    st->e[top].weight = wt;
    fix16_t sum = 0;
    for (uint32_t i = 0; i + 2u < st->count; i++) {
        st->e[i].weight = (fix16_t)(((uint64_t)st->e[i].base * (uint64_t)rem) >> 16); /* floor */
        sum += st->e[i].weight;
    }
    st->e[top - 1u].weight = rem - sum; /* >= 0: the floors sum to at most rem */
}

/* Writes every switch node's child weights from its stack. */
static void apply_switches(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    fix16_t* w = ARR(inst, fix16_t, off_weights);
    sw_stack* stacks = switch_stacks(inst);
    for (uint32_t i = 0; i < g->switch_count; i++) {
        const graph_node* gn = &g->nodes[g->switches[i].node];
        sw_stack* st = &stacks[i];
        sw_weights(st);
        for (uint32_t k = 0; k < gn->child_count; k++) w[gn->first_slot + k] = 0;
        for (uint32_t k = 0; k < st->count; k++)
            w[gn->first_slot + st->e[k].child] = bsync_fx_add(w[gn->first_slot + st->e[k].child], st->e[k].weight);
    }
}

static void derive_all(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    const bsync_param_state* st = CARR(inst, bsync_param_state, off_states);
    fix16_t* filtered = ARR(inst, fix16_t, off_filtered);
    uint32_t* changed = ARR(inst, uint32_t, off_changed);
    for (uint32_t i = 0; i < g->param_count; i++) {
        changed[i] = 0;
        if (g->param_kind[i] == GRAPH_PARAM_PAIR_SECOND) filtered[i] = st[i - 1].value[1];
        else filtered[i] = st[i].value[0];
    }
    for (uint32_t n = 0; n < g->node_count; n++) eval_node_weights(inst, n);
    apply_switches(inst);
    flatten_and_lengths(inst);
}

static void reset_cursors(bsync_instance* inst) {
    for (uint32_t b = 0; b < inst->graph->bound_count; b++) bsync_sample_cursor_reset(cursor_of(inst, b));
}

static void update_root_motion(bsync_instance* inst); /* root motion section below */

bsync_result bsync_instance_init(void* mem, size_t size, const bsync_graph* graph, bsync_instance** out) {
    if (!mem || !graph || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    struct bsync_instance li;
    size_t need = layout(graph, &li);
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;
    unsigned char* base = (unsigned char*)mem;
    for (size_t i = 0; i < need; i++) base[i] = 0;
    struct bsync_instance* inst = (struct bsync_instance*)mem;
    *inst = li;
    inst->graph = graph;
    inst->pad_ptr_ = 0;
    inst->tick = 0;
    inst->size = need;
    inst->magic = INSTANCE_MAGIC;
    inst->reserved = 0;
    const bsync_graph* g = graph;
    fix16_t* targets = ARR(inst, fix16_t, off_targets);
    bsync_param_state* st = ARR(inst, bsync_param_state, off_states);
    for (uint32_t i = 0; i < g->param_count; i++) targets[i] = bsync_blend_tree_parameter_default(g->tree, i);
    for (uint32_t i = 0; i < g->param_count; i++) {
        if (g->param_kind[i] == GRAPH_PARAM_PAIR_SECOND) continue;
        fix16_t y = g->param_kind[i] == GRAPH_PARAM_PAIR_FIRST ? targets[i + 1] : 0;
        bsync_param_state_init(&g->filters[i], &st[i], targets[i], y);
    }
    for (uint32_t b = 0; b < g->bound_count; b++) {
        bsync_sample_cursor* c = NULL;
        const bsync_clip* clip = g->clips[g->slots[g->bound_slot[b]].index];
        (void)bsync_sample_cursor_init(cursor_of(inst, b), (size_t)g->bound_cursor_bytes[b], clip, &c);
    }
    sw_stack* stacks = switch_stacks(inst);
    for (uint32_t i = 0; i < g->switch_count; i++) {
        stacks[i].count = 1;
        stacks[i].e[0].child = g->switches[i].initial;
        stacks[i].e[0].base = BSYNC_FX_ONE;
    }
    derive_all(inst);
    update_root_motion(inst); /* tick 0: zero / identity */
    *out = inst;
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- root motion (instance.h) */

typedef struct rm_xf { bsync_vec3 t; bsync_quat r; } rm_xf; /* a relative transform */

static rm_xf rm_identity(void) {
    rm_xf x;
    x.t = bsync_vec3_make(0, 0, 0);
    x.r = bsync_quat_identity();
    return x;
}

/* bsync_quat_normalize, skipped for the exact identity (which it returns unchanged: same bits). */
static bsync_quat rm_normalize(bsync_quat q) {
    if (q.x == 0 && q.y == 0 && q.z == 0 && q.w == BSYNC_FX_ONE) return q;
    return bsync_quat_normalize(q);
}

/* The twist about +Y: normalize(0, q.y, 0, q.w); a zero quaternion normalises to the identity. */
static bsync_quat yaw_twist(bsync_quat q) { return rm_normalize(bsync_quat_make(0, q.y, 0, q.w)); }

static bsync_quat rm_frame(const bsync_graph* g, bsync_quat q) {
    return g->root_rotation == (uint32_t)BSYNC_ROOT_ROTATION_FULL ? q : yaw_twist(q);
}

/* sample.c's rule for one track at t in [0, duration]: first key before the range, last key after
 * it, key k exactly at times[k], else interpolate keys k, k+1 with alpha = (t - t_k) / (t_k+1 - t_k). */
static uint32_t rm_locate(const fix16_t* times, uint32_t n, fix16_t t, int* exact, fix16_t* alpha) {
    *exact = 1;
    *alpha = 0;
    if (t <= times[0]) return 0;
    if (t >= times[n - 1]) return n - 1;
    uint32_t lo = 0, hi = n - 1; /* times[lo] <= t < times[hi] */
    while (hi - lo > 1) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= t) lo = mid;
        else hi = mid;
    }
    if (t == times[lo]) return lo;
    *exact = 0;
    *alpha = bsync_fx_div(t - times[lo], times[lo + 1] - times[lo]); /* 0 <= times[lo] < t: no overflow */
    return lo;
}

/* The root joint's local translation and rotation of motion m's clip at clip time t in [0, duration]
 * (as bsync_clip_sample with CLAMP). */
static void rm_sample(const bsync_graph* g, uint32_t m, fix16_t t, rm_xf* out) {
    const bsync_clip* clip = g->clips[m];
    const bsync_trs* rest = &bsync_skeleton_rest_pose(g->skeleton)[g->root_joint];
    out->t = rest->t;
    out->r = rest->r;
    bsync_track_info ti;
    int exact;
    fix16_t alpha;
    if (g->root_tracks[2u * m] != GRAPH_NONE && bsync_clip_track_info(clip, g->root_tracks[2u * m], &ti) == BSYNC_OK) {
        const uint32_t k = rm_locate(ti.times, ti.key_count, t, &exact, &alpha);
        out->t = exact ? ti.vec3s[k] : bsync_vec3_lerp(ti.vec3s[k], ti.vec3s[k + 1], alpha);
    }
    if (g->root_tracks[2u * m + 1u] != GRAPH_NONE &&
        bsync_clip_track_info(clip, g->root_tracks[2u * m + 1u], &ti) == BSYNC_OK) {
        const uint32_t k = rm_locate(ti.times, ti.key_count, t, &exact, &alpha);
        out->r = exact ? ti.quats[k] : bsync_quat_nlerp(ti.quats[k], ti.quats[k + 1], alpha);
    }
}

/* The piece a -> b in the frame at a. */
static rm_xf rm_piece(const bsync_graph* g, const rm_xf* a, const rm_xf* b) {
    const bsync_quat ca = bsync_quat_conj(rm_frame(g, a->r));
    rm_xf x;
    x.t = bsync_quat_rotate(ca, bsync_vec3_sub(b->t, a->t));
    if (g->root_rotation != (uint32_t)BSYNC_ROOT_ROTATION_FULL) x.t.y = 0;
    x.r = bsync_quat_mul(ca, rm_frame(g, b->r));
    return x;
}

/* x o y: y applied in x's end frame. */
static rm_xf rm_compose(const rm_xf* x, const rm_xf* y) {
    rm_xf o;
    o.t = bsync_vec3_add(x->t, bsync_quat_rotate(x->r, y->t));
    o.r = bsync_quat_mul(x->r, y->r);
    return o;
}

/* x^n by repeated squaring (n may be large: many loop cycles in one tick). */
static rm_xf rm_power(const rm_xf* x, uint64_t n) {
    rm_xf result = rm_identity(), base = *x;
    while (n > 0) {
        if (n & 1u) result = rm_compose(&result, &base);
        n >>= 1;
        if (n > 0) base = rm_compose(&base, &base);
    }
    return result;
}

/* 1 when phase + offset carries past the end of the cycle. */
static int64_t rm_carry(uint32_t phase, uint32_t offset) {
    return (uint64_t)phase + (uint64_t)offset > 0xFFFFFFFFu ? 1 : 0;
}

static fix16_t rm_seconds(uint32_t phase, fix16_t duration) {
    bsync_clip_time t = bsync_time_start();
    t.phase = phase;
    return bsync_time_seconds(&t, duration, BSYNC_LOOP_WRAP);
}

/* The root motion of motion m between the positions p0 and p1 (+ offset) of its driving clock. */
static rm_xf rm_slot_delta(const bsync_graph* g, uint32_t m, const bsync_clip_time* p0,
                           const bsync_clip_time* p1, uint32_t offset) {
    const fix16_t dur = bsync_clip_duration(g->clips[m]);
    if (dur <= 0) return rm_identity();
    /* |cycles| <= 2^62 on both sides: the modular difference is the true one */
    int64_t k = to_i64((uint64_t)p1->cycles - (uint64_t)p0->cycles);
    if (k > ((int64_t)1 << 40)) k = (int64_t)1 << 40; /* unreachable bounds; keeps k +- 1 defined */
    if (k < -((int64_t)1 << 40)) k = -((int64_t)1 << 40);
    k += rm_carry(p1->phase, offset) - rm_carry(p0->phase, offset);
    rm_xf a, b, x;
    rm_sample(g, m, rm_seconds(p0->phase + offset, dur), &a); /* phases wrap mod 2^32 */
    rm_sample(g, m, rm_seconds(p1->phase + offset, dur), &b);
    if (k == 0) {
        x = rm_piece(g, &a, &b);
    } else {
        rm_xf s, e;
        rm_sample(g, m, 0, &s);
        rm_sample(g, m, dur, &e);
        const int fwd = k > 0;
        const rm_xf* first_end = fwd ? &e : &s;   /* where the current cycle is left */
        const rm_xf* next_start = fwd ? &s : &e;  /* where the next one is entered */
        const rm_xf head = rm_piece(g, &a, first_end);
        const rm_xf cycle = rm_piece(g, next_start, first_end);
        const rm_xf tail = rm_piece(g, next_start, &b);
        const uint64_t whole = (fwd ? (uint64_t)k : (uint64_t)(-k)) - 1u;
        const rm_xf mid = rm_power(&cycle, whole);
        x = rm_compose(&head, &mid);
        x = rm_compose(&x, &tail);
    }
    x.r = rm_normalize(x.r);
    return x;
}

/* The position before the last tick: the exact inverse of bsync_time_advance with this step. */
static bsync_clip_time rm_unstep(const bsync_clip_time* now, const bsync_time_step* step) {
    bsync_clip_time t = *now;
    bsync_time_step back = *step;
    back.negative = !step->negative;
    bsync_time_advance(&t, &back);
    return t;
}

/* Rounded num / den (den > 0), ties away from zero, saturated. */
static fix16_t rm_div_round(int64_t num, uint64_t den) {
    const uint64_t m = (bsync_u64_abs(num) + den / 2u) / den;
    return bsync_fx_signed_sat(m, num < 0);
}

static void update_root_motion(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    inst->rm_t = bsync_vec3_make(0, 0, 0);
    inst->rm_r = bsync_quat_identity();
    inst->rm_pad_ = 0;
    if (g->root_motion != (uint32_t)BSYNC_ROOT_MOTION_EXTRACT || inst->tick == 0) return;
    const fix16_t* contrib = CARR(inst, fix16_t, off_contrib);
    const bsync_clip_time* clocks = CARR(inst, bsync_clip_time, off_clocks);
    const bsync_time_step* steps = CARR(inst, bsync_time_step, off_steps);
    const bsync_clip_time* sc = CARR(inst, bsync_clip_time, off_slot_clocks);
    int64_t W = 0, st[3] = {0, 0, 0}, sq[4] = {0, 0, 0, 0};
    uint32_t count = 0;
    bsync_quat single = bsync_quat_identity();
    for (uint32_t b = 0; b < g->bound_count; b++) {
        const uint32_t s = g->bound_slot[b];
        const fix16_t c = contrib[s];
        if (c <= 0) continue;
        const graph_slot* gs = &g->slots[s];
        const bsync_clip_time* now;
        bsync_clip_time before;
        uint32_t offset;
        if (gs->clock != GRAPH_NONE) {
            now = &sc[gs->clock];
            before = rm_unstep(now, &g->clock_steps[gs->clock]);
            offset = gs->offset32;
        } else {
            const graph_node* gn = &g->nodes[gs->node];
            now = &clocks[gn->driver];
            before = rm_unstep(now, &steps[gn->driver]);
            offset = gn->offset32 + gs->offset32; /* wraps mod 2^32 */
        }
        const rm_xf d = rm_slot_delta(g, gs->index, &before, now, offset);
        const int64_t w = c > 64 * BSYNC_FX_ONE ? 64 * BSYNC_FX_ONE : c;
        bsync_quat r = d.r;
        if (r.w < 0 || (r.w == 0 && bsync_quat_lex_negative_(r))) r = bsync_quat_neg(r);
        W += w;
        st[0] += w * d.t.x; st[1] += w * d.t.y; st[2] += w * d.t.z; /* |.| <= 2^22 * 2^31, 64 terms */
        sq[0] += w * r.x; sq[1] += w * r.y; sq[2] += w * r.z; sq[3] += w * r.w;
        single = r;
        count++;
    }
    if (count == 0) return;
    const uint64_t den = W > BSYNC_FX_ONE ? (uint64_t)W : (uint64_t)BSYNC_FX_ONE;
    inst->rm_t = bsync_vec3_make(rm_div_round(st[0], den), rm_div_round(st[1], den), rm_div_round(st[2], den));
    if (count == 1 && W >= BSYNC_FX_ONE) {
        inst->rm_r = single;
        return;
    }
    if (W < BSYNC_FX_ONE) sq[3] += (BSYNC_FX_ONE - W) * BSYNC_FX_ONE; /* the rest of the weight: identity */
    inst->rm_r = rm_normalize(bsync_quat_make(rm_div_round(sq[0], 65536u), rm_div_round(sq[1], 65536u),
                                                      rm_div_round(sq[2], 65536u), rm_div_round(sq[3], 65536u)));
}

bsync_result bsync_instance_root_motion(const bsync_instance* inst, bsync_root_motion* out) {
    if (!valid(inst) || !out) return BSYNC_INVALID_ARGUMENT;
    out->translation = inst->rm_t;
    out->rotation = inst->rm_r;
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- tick */

/* The clock a state of switch i keeps (its motion clock in the NONE node, or its child node's clock)
 * and that clock's denominator. */
static bsync_clip_time* sw_clock(bsync_instance* inst, uint32_t i, uint32_t child, uint64_t* den) {
    const bsync_graph* g = inst->graph;
    const graph_slot* gs = &g->slots[g->nodes[g->switches[i].node].first_slot + child];
    if (gs->kind == (uint32_t)BSYNC_CHILD_NODE) {
        *den = bsync_graph_node_den_(g);
        return &ARR(inst, bsync_clip_time, off_clocks)[gs->index];
    }
    *den = g->clock_steps[gs->clock].den; /* a NONE node's motion child always has a clock */
    return &ARR(inst, bsync_clip_time, off_slot_clocks)[gs->clock];
}

/* Pushes a trigger onto switch i's stack (instance.h "Switches"); an inertialized trigger pushes an
 * instant entry (fade 0). Returns 0 when the trigger is ignored (its state is the newest already). */
static int sw_push(bsync_instance* inst, uint32_t i, const bsync_switch_trigger* t) {
    sw_stack* st = &switch_stacks(inst)[i];
    sw_weights(st);
    const uint32_t top = st->count - 1u;
    if (st->e[top].child == t->child) return 0; /* already the newest state: nothing changes */
    int present = 0;
    uint32_t dom = 0;
    for (uint32_t k = 0; k < st->count; k++) {
        if (st->e[k].child == t->child) present = 1;
        if (st->e[k].weight >= st->e[dom].weight) dom = k; /* ties: the newest */
    }
    if (!present) {
        uint64_t dden, nden;
        const bsync_clip_time* dc = sw_clock(inst, i, st->e[dom].child, &dden);
        const bsync_clip_time src = *dc;
        bsync_clip_time* nc = sw_clock(inst, i, t->child, &nden);
        bsync_clip_time n = bsync_time_start();
        if (t->carry_time) {
            n.phase = src.phase;
            n.carry = dden == nden ? src.carry : 0;
        }
        *nc = n;
    }
    for (uint32_t k = 0; k < st->count; k++) {
        st->e[k].base = st->e[k].weight;
        st->e[k].fade = 0;
        st->e[k].done = 0;
    }
    if (st->count == BSYNC_SWITCH_STACK_DEPTH) { /* full: the oldest goes, its weight to the next */
        st->e[1].base += st->e[0].base;
        for (uint32_t k = 0; k + 1u < st->count; k++) st->e[k] = st->e[k + 1u];
        st->count--;
    }
    sw_entry* e = &st->e[st->count++];
    e->child = t->child;
    e->base = 0;
    e->weight = 0;
    e->fade = t->inertialize ? 0u : t->fade_ticks;
    e->done = 0;
    for (uint32_t k = st->count; k < BSYNC_SWITCH_STACK_DEPTH; k++) {
        sw_entry z = {0, 0, 0, 0, 0};
        st->e[k] = z;
    }
    return 1;
}

/* One tick of one stack's fade: the newest entry's count advances; a finished fade leaves only it. */
static void sw_advance_one(sw_stack* st) {
    if (st->count <= 1u) return;
    sw_entry* top = &st->e[st->count - 1u];
    if (top->done < top->fade) top->done++;
    if (top->done < top->fade) return;
    st->e[0].child = top->child;
    st->e[0].base = BSYNC_FX_ONE;
    st->e[0].fade = 0;
    st->e[0].done = 0;
    for (uint32_t k = 1; k < BSYNC_SWITCH_STACK_DEPTH; k++) {
        sw_entry z = {0, 0, 0, 0, 0};
        st->e[k] = z;
    }
    st->count = 1;
}

static void sw_advance(bsync_instance* inst) {
    sw_stack* stacks = switch_stacks(inst);
    for (uint32_t i = 0; i < inst->graph->switch_count; i++) sw_advance_one(&stacks[i]);
}

static bsync_result blend_base(bsync_instance* inst, bsync_trs* out_local); /* pose section below */
static bsync_trs* scratch_pose(bsync_instance* inst, uint32_t i);
static void inert_apply_one(bsync_instance* inst, uint32_t i, bsync_trs* pose);
static bsync_result blend_local(bsync_instance* inst, bsync_trs* out_local);

/* The decay factor (instance.h "Inertialization"). */
fix16_t bsync_instance_inertia_decay(uint32_t k, uint32_t total) {
    if (total == 0 || k >= total) return 0;
    const fix16_t s = (fix16_t)(((uint64_t)k * 65536u + total / 2u) / total); /* k/T rounded, ties up */
    fix16_t h = bsync_fx_mul(4 * BSYNC_FX_ONE, s);                            /* exact: 4s */
    h = bsync_fx_mul(h - 15 * BSYNC_FX_ONE, s);
    h = bsync_fx_mul(h + 20 * BSYNC_FX_ONE, s);
    h = bsync_fx_mul(h - 10 * BSYNC_FX_ONE, s);
    h = bsync_fx_mul(h, s) + BSYNC_FX_ONE; /* |h| stays below 16.0 throughout: no overflow */
    return h < 0 ? 0 : h > BSYNC_FX_ONE ? BSYNC_FX_ONE : h;
}

fix16_t bsync_instance_inertia_curve(uint32_t e, uint32_t total, fix16_t x0, fix16_t v0) {
    if (x0 <= 0 || v0 >= 0) return bsync_instance_inertia_decay(e, total); /* zero velocity: bit for bit */
    if (total == 0 || e >= total) return 0;
    if (e == 0) return BSYNC_FX_ONE;
    /* No overflow, for every argument: X = x0 < 2^31, V = |v0| <= 2^31, e < T < 2^32, so N = e V < 2^63,
     * V T < 2^63, D5 = 5 X < 5 * 2^31, e * 65536 < 2^48; N * 65536 is formed only when N < D5 (the
     * shortened branch checks it; otherwise N < V T <= D5), so it is < 5 * 2^47; u2 <= 2^32, u2^2 <
     * 2^64 - 2^49 for u < 65536 (u = 65536 handled apart); u4 p <= 2^32 * 5 * 2^16 < 2^51. Unsigned
     * throughout, no shifts of negative values. Rounding (half a raw step each for s, m and the final
     * product; u4's rounding adds < 2^-15): unshortened, f = u^4 (1 + 4 s - m) with 0 <= m <= 5 s has
     * |df/ds| = 4 u^3 |m - 5 s| <= 20 s (1 - s)^3 <= 2.11 and |df/dm| <= 1, so the error is < 2.1 raw
     * steps; shortened, f = (1 - s)^5 has |df/ds| <= 5 and no m: < 3.0 raw steps of the exact
     * x(e) / x0 (tests/unit/test_inertialize.c measures at most 2.45 over its grid). */
    const uint64_t X = (uint64_t)x0, V = bsync_u64_abs(v0), D5 = 5u * X, N = (uint64_t)e * V;
    uint64_t s, p; /* s = e / t1 and p = 1 + 4 s - e |v0| / x0, both Q16 (rounded to nearest, ties up) */
    if (V * total > D5) {             /* shortened: t1 = 5 x0 / |v0| < T */
        if (N >= D5) return 0;        /* e >= t1 */
        s = (N * 65536u + D5 / 2u) / D5; /* s = e |v0| / (5 x0) exactly, rounded once */
        p = 65536u - s;                  /* e |v0| / x0 = 5 s exactly: p = 1 - s, the curve is (1 - s)^5 */
    } else {                          /* t1 = T; e |v0| / x0 = s |v0| T / x0 <= 5 s */
        s = ((uint64_t)e * 65536u + total / 2u) / total; /* the s of bsync_instance_inertia_decay */
        const uint64_t m = (N * 65536u + X / 2u) / X;    /* e |v0| / x0 <= 5.0 */
        const uint64_t c = 65536u + 4u * s;
        p = c > m ? c - m : 0; /* exactly >= 1 - s >= 0; the clamp only absorbs rounding */
    }
    if (s >= 65536u) return 0;
    const uint64_t u = 65536u - s;                 /* 1 - s in (0, 1] */
    const uint64_t u2 = u * u;                     /* Q32, exact, <= 2^32 */
    const uint64_t u4 = u == 65536u ? (uint64_t)1 << 32 : (u2 * u2 + ((uint64_t)1 << 31)) >> 32; /* Q32 */
    const uint64_t f = (u4 * p + ((uint64_t)1 << 31)) >> 32; /* u4 <= 2^32, p <= 5 * 2^16: < 2^51 */
    return f >= 65536u ? BSYNC_FX_ONE : (fix16_t)f;
}

/* The offset's magnitude x0 for a rotation offset q (w >= 0): its angle 2 atan2(|q.xyz|, q.w) in
 * [0, pi]. */
static fix16_t inert_angle(bsync_quat q) {
    return 2 * bsync_fx_atan2(bsync_vec3_length(bsync_vec3_make(q.x, q.y, q.z)), q.w); /* <= 2 * 102944 */
}

/* Bollo's per-vector initial velocity v0 = x0 - x_-1 per tick, x_-1 the previous offset projected on
 * the offset's direction d = o / |o| (fx_div per component): for a translation v0 = (o - o_prev) . d
 * (the same as |o| - o_prev . d for the exact d, but exactly 0 when the source did not move); for a
 * rotation (o = q.xyz, w = q.w; o_prev, w_prev the previous offset in q's hemisphere) both angles are
 * taken the same way, 2 atan2(. . d, w), so again exactly 0 without motion. v0 > 0 (away from zero)
 * and x0 = 0 give 0. Saturating. */
static fix16_t inert_velocity(bsync_vec3 o, fix16_t w, bsync_vec3 o_prev, fix16_t w_prev, int rotation) {
    const fix16_t len = bsync_vec3_length(o);
    if (len <= 0) return 0;
    const bsync_vec3 dir = bsync_vec3_make(bsync_fx_div(o.x, len), bsync_fx_div(o.y, len), bsync_fx_div(o.z, len));
    fix16_t v;
    if (rotation) /* each angle in [-2 pi, 2 pi]: no overflow */
        v = 2 * bsync_fx_atan2(bsync_vec3_dot(o, dir), w) - 2 * bsync_fx_atan2(bsync_vec3_dot(o_prev, dir), w_prev);
    else
        v = bsync_vec3_dot(bsync_vec3_sub(o, o_prev), dir);
    return v > 0 ? 0 : v;
}

/* Clears switch i's inertialization (state, offsets and velocities all zero). */
static void inert_clear(bsync_instance* inst, uint32_t i) {
    const inert_area a = inert_of(inst);
    const uint32_t J = inst->graph->joint_count;
    sw_inert z = {0, 0, 0, 0};
    a.st[i] = z;
    for (uint32_t j = 0; j < J; j++) {
        a.t[(size_t)i * J + j] = bsync_vec3_make(0, 0, 0);
        a.r[(size_t)i * J + j] = bsync_quat_make(0, 0, 0, 0);
        a.v[2u * ((size_t)i * J + j)] = 0;
        a.v[2u * ((size_t)i * J + j) + 1u] = 0;
    }
}

/* Start the inertializations of the switches with start[i] (instance.h "Inertialization"): offsets
 * between the pose with switch i's stack old[i] (plus switch i's own running offset) and the pose of
 * the current state, both at the current clocks; initial velocities from the pose shown before the
 * tick (a.prev, valid when have_prev). */
static void inert_start(bsync_instance* inst, const uint32_t* start, const uint32_t* total, sw_stack* old,
                        int have_prev) {
    const bsync_graph* g = inst->graph;
    const uint32_t J = g->joint_count;
    const inert_area a = inert_of(inst);
    bsync_trs* pnew = a.pose;
    bsync_trs* pold = scratch_pose(inst, g->bound_count);
    sw_stack* stacks = switch_stacks(inst);
    const bsync_result rn = blend_base(inst, pnew);
    for (uint32_t i = 0; i < g->switch_count; i++) {
        if (!start[i]) continue;
        const sw_stack keep = stacks[i];
        stacks[i] = old[i];
        apply_switches(inst);
        flatten_and_lengths(inst);
        const bsync_result ro = blend_base(inst, pold);
        stacks[i] = keep;
        apply_switches(inst);
        flatten_and_lengths(inst); /* the same derived state as before: a function of the weights */
        if (a.st[i].active) inert_apply_one(inst, i, pold); /* the running offset is part of the old pose */
        inert_clear(inst, i);
        if (rn != BSYNC_OK || ro != BSYNC_OK) continue; /* cannot happen: valid clips and buffers */
        for (uint32_t j = 0; j < J; j++) {
            const size_t at = (size_t)i * J + j;
            const bsync_vec3 o = bsync_vec3_sub(pold[j].t, pnew[j].t);
            bsync_quat q = bsync_quat_mul(pold[j].r, bsync_quat_conj(pnew[j].r));
            q = bsync_quat_normalize(q);
            if (q.w < 0 || (q.w == 0 && bsync_quat_lex_negative_(q))) q = bsync_quat_neg(q);
            a.t[at] = o;
            a.r[at] = q;
            if (!have_prev) continue; /* cannot happen: the pre-tick pose blends like these two */
            /* x_-1 = (pose shown before the tick) - NEW, against the same NEW pose (Bollo) */
            a.v[2u * at] = inert_velocity(o, 0, bsync_vec3_sub(a.prev[j].t, pnew[j].t), 0, 0);
            /* normalised like q, so an unmoved source gives q' = q bit for bit and v_r = 0 exactly */
            bsync_quat qp = bsync_quat_normalize(bsync_quat_mul(a.prev[j].r, bsync_quat_conj(pnew[j].r)));
            if (bsync_quat_dot_sign_(qp, q) < 0) qp = bsync_quat_neg(qp); /* the hemisphere of q */
            fix16_t vr =
                inert_velocity(bsync_vec3_make(q.x, q.y, q.z), q.w, bsync_vec3_make(qp.x, qp.y, qp.z), qp.w, 1);
            if (vr != 0 && inert_angle(q) == 0) vr = 0; /* a velocity needs a magnitude (snapshot rule) */
            a.v[2u * at + 1u] = vr;
        }
        a.st[i].active = 1;
        a.st[i].elapsed = 0;
        a.st[i].total = total[i];
    }
}

bsync_result bsync_instance_tick(bsync_instance* inst, const bsync_instance_input* input) {
    return bsync_instance_tick_ex(inst, input, NULL, 0);
}

bsync_result bsync_instance_tick_ex(bsync_instance* inst, const bsync_instance_input* input,
                                    const bsync_switch_trigger* triggers, uint32_t trigger_count) {
    if (!valid(inst) || !input || (trigger_count > 0 && !triggers)) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (input->target_count != g->param_count || (g->param_count > 0 && !input->targets))
        return BSYNC_INVALID_ARGUMENT;
    for (uint32_t k = 0; k < trigger_count; k++) {
        const bsync_switch_trigger* t = &triggers[k];
        if (t->switch_index >= g->switch_count || t->carry_time > 1u || t->fade_ticks > BSYNC_SWITCH_MAX_FADE_TICKS ||
            t->child >= g->nodes[g->switches[t->switch_index].node].child_count || t->inertialize > 1u ||
            (t->inertialize && t->fade_ticks == 0))
            return BSYNC_INVALID_ARGUMENT;
    }
    int inertialize = 0;
    for (uint32_t k = 0; k < trigger_count; k++) {
        if (triggers[k].inertialize && !can_inertialize(g)) return BSYNC_MISMATCH;
        inertialize |= triggers[k].inertialize != 0;
    }
    /* 0. only when a trigger asks for inertialization: the pose shown before this tick (running offsets
     * included), for the initial velocities */
    const int have_prev = inertialize && blend_local(inst, inert_of(inst).prev) == BSYNC_OK;
    fix16_t* targets = ARR(inst, fix16_t, off_targets);
    fix16_t* filtered = ARR(inst, fix16_t, off_filtered);
    bsync_param_state* st = ARR(inst, bsync_param_state, off_states);
    uint32_t* changed = ARR(inst, uint32_t, off_changed);
    /* 1. filters */
    for (uint32_t i = 0; i < g->param_count; i++) {
        const uint32_t kind = g->param_kind[i];
        targets[i] = input->targets[i];
        if (kind == GRAPH_PARAM_PAIR_SECOND) continue;
        int ch = 0;
        if (kind == GRAPH_PARAM_PAIR_FIRST) {
            (void)bsync_param_filter_step2(&g->filters[i], &st[i], input->targets[i], input->targets[i + 1], &ch);
            filtered[i] = st[i].value[0];
            filtered[i + 1] = st[i].value[1];
            changed[i] = changed[i + 1] = ch ? 1u : 0u;
        } else {
            (void)bsync_param_filter_step(&g->filters[i], &st[i], input->targets[i], &ch);
            filtered[i] = st[i].value[0];
            changed[i] = ch ? 1u : 0u;
        }
    }
    /* 2. dirty nodes */
    int any = 0;
    for (uint32_t n = 0; n < g->node_count; n++) {
        const graph_node* gn = &g->nodes[n];
        int dirty = 0;
        for (uint32_t k = 0; k < gn->param_count && !dirty; k++) dirty = changed[g->param_refs[gn->first_param + k]] != 0;
        if (!dirty) continue;
        eval_node_weights(inst, n);
        any = 1;
    }
    /* 2b. switches: running inertializations age by one tick; triggers in order, then one tick of
     * every fade (the stacks an inertialized trigger leaves are kept, aged the same way) */
    sw_stack old[BSYNC_GRAPH_MAX_SWITCHES];
    uint32_t start[BSYNC_GRAPH_MAX_SWITCHES], total[BSYNC_GRAPH_MAX_SWITCHES], any_start = 0;
    if (g->switch_count > 0) {
        sw_stack* stacks = switch_stacks(inst);
        for (uint32_t i = 0; i < g->switch_count; i++) start[i] = total[i] = 0;
        if (can_inertialize(g)) {
            const inert_area a = inert_of(inst);
            for (uint32_t i = 0; i < g->switch_count; i++) {
                if (!a.st[i].active) continue;
                if (++a.st[i].elapsed >= a.st[i].total) inert_clear(inst, i);
            }
            for (uint32_t k = 0; k < trigger_count; k++) /* the stack before this tick's triggers */
                if (triggers[k].inertialize) old[triggers[k].switch_index] = stacks[triggers[k].switch_index];
        }
        for (uint32_t k = 0; k < trigger_count; k++) {
            const uint32_t i = triggers[k].switch_index;
            if (sw_push(inst, i, &triggers[k]) && triggers[k].inertialize) {
                start[i] = 1;
                total[i] = triggers[k].fade_ticks; /* the last applied inertialized trigger's */
                any_start = 1;
            }
        }
        for (uint32_t i = 0; i < g->switch_count; i++)
            if (start[i]) sw_advance_one(&old[i]);
        sw_advance(inst);
        apply_switches(inst);
        any = 1;
    }
    /* 3. flatten, lengths, steps */
    if (any) flatten_and_lengths(inst);
    /* 4. clocks */
    bsync_clip_time* clocks = ARR(inst, bsync_clip_time, off_clocks);
    const bsync_time_step* steps = CARR(inst, bsync_time_step, off_steps);
    for (uint32_t n = 0; n < g->node_count; n++) bsync_time_advance(&clocks[n], &steps[n]);
    bsync_clip_time* sc = ARR(inst, bsync_clip_time, off_slot_clocks);
    for (uint32_t c = 0; c < g->clock_count; c++) bsync_time_advance(&sc[c], &g->clock_steps[c]);
    /* 5. */
    inst->tick++;
    /* 6. */
    update_root_motion(inst);
    /* 7. inertializations started by this tick's triggers: their offsets (two poses each) */
    if (any_start) inert_start(inst, start, total, old, have_prev);
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- blend state */

uint64_t bsync_instance_tick_count(const bsync_instance* inst) { return valid(inst) ? inst->tick : 0; }

fix16_t bsync_instance_parameter(const bsync_instance* inst, uint32_t p) {
    return valid(inst) && p < inst->graph->param_count ? CARR(inst, fix16_t, off_filtered)[p] : 0;
}
fix16_t bsync_instance_target(const bsync_instance* inst, uint32_t p) {
    return valid(inst) && p < inst->graph->param_count ? CARR(inst, fix16_t, off_targets)[p] : 0;
}
const bsync_param_state* bsync_instance_parameter_state(const bsync_instance* inst, uint32_t p) {
    return valid(inst) && p < inst->graph->param_count ? &CARR(inst, bsync_param_state, off_states)[p] : NULL;
}
const fix16_t* bsync_instance_leaf_weights(const bsync_instance* inst) {
    return valid(inst) ? CARR(inst, fix16_t, off_leaf) : NULL;
}
const fix16_t* bsync_instance_node_weights(const bsync_instance* inst, uint32_t n) {
    if (!valid(inst) || n >= inst->graph->node_count) return NULL;
    return CARR(inst, fix16_t, off_weights) + inst->graph->nodes[n].first_slot;
}
const bsync_clip_time* bsync_instance_node_time(const bsync_instance* inst, uint32_t n) {
    return valid(inst) && n < inst->graph->node_count ? &CARR(inst, bsync_clip_time, off_clocks)[n] : NULL;
}
fix16_t bsync_instance_node_phase(const bsync_instance* inst, uint32_t n) {
    const bsync_clip_time* t = bsync_instance_node_time(inst, n);
    return t ? bsync_time_normalized(t) : 0;
}
static uint32_t sample_phase(const bsync_instance* inst, uint32_t n) {
    const graph_node* gn = &inst->graph->nodes[n];
    return CARR(inst, bsync_clip_time, off_clocks)[gn->driver].phase + gn->offset32; /* wraps */
}
uint32_t bsync_instance_node_sample_phase(const bsync_instance* inst, uint32_t n) {
    return valid(inst) && n < inst->graph->node_count ? sample_phase(inst, n) : 0;
}
fix16_t bsync_instance_node_length(const bsync_instance* inst, uint32_t n) {
    return valid(inst) && n < inst->graph->node_count ? CARR(inst, fix16_t, off_length)[n] : 0;
}

bsync_result bsync_instance_switch_state(const bsync_instance* inst, uint32_t sw,
                                        bsync_switch_entry out[BSYNC_SWITCH_STACK_DEPTH], uint32_t* count) {
    if (!valid(inst) || !out || !count || sw >= inst->graph->switch_count) return BSYNC_INVALID_ARGUMENT;
    const sw_stack* st = &cswitch_stacks(inst)[sw];
    for (uint32_t k = 0; k < st->count; k++) {
        out[k].child = st->e[k].child;
        out[k].weight = st->e[k].weight;
        out[k].fade_ticks = st->e[k].fade;
        out[k].fade_done = st->e[k].done;
    }
    *count = st->count;
    return BSYNC_OK;
}

/* t1 (Q16 ticks) of a curve with magnitude x0, velocity v0 <= 0 and length T (instance.h). */
static uint64_t inert_t1(fix16_t x0, fix16_t v0, uint32_t T) {
    const uint64_t full = (uint64_t)T * 65536u, V = bsync_u64_abs(v0);
    if (x0 <= 0 || v0 >= 0 || V * T <= 5u * (uint64_t)x0) return full;
    return (5u * (uint64_t)x0 * 65536u + V / 2u) / V; /* < T * 65536 <= 2^36; numerator < 5 * 2^47 */
}

bsync_result bsync_instance_inertia_state(const bsync_instance* inst, uint32_t sw, bsync_inertia_state* out) {
    if (!valid(inst) || !out || sw >= inst->graph->switch_count) return BSYNC_INVALID_ARGUMENT;
    out->active = out->elapsed = out->total = 0;
    out->decay = 0;
    out->moving = out->shortened = 0;
    if (!can_inertialize(inst->graph)) return BSYNC_OK;
    const inert_area a = cinert_of(inst);
    const sw_inert* st = &a.st[sw];
    if (!st->active) return BSYNC_OK;
    out->active = 1;
    out->elapsed = st->elapsed;
    out->total = st->total;
    out->decay = bsync_instance_inertia_decay(st->elapsed, st->total);
    const uint32_t J = inst->graph->joint_count;
    const uint64_t full = (uint64_t)st->total * 65536u;
    for (uint32_t j = 0; j < J; j++) {
        const size_t at = (size_t)sw * J + j;
        const fix16_t vt = a.v[2u * at], vr = a.v[2u * at + 1u];
        out->moving += vt != 0 || vr != 0;
        out->shortened += inert_t1(bsync_vec3_length(a.t[at]), vt, st->total) < full ||
                          inert_t1(inert_angle(a.r[at]), vr, st->total) < full;
    }
    return BSYNC_OK;
}

bsync_result bsync_instance_inertia_joint(const bsync_instance* inst, uint32_t sw, uint32_t joint,
                                          bsync_inertia_joint* out) {
    if (!valid(inst) || !out || sw >= inst->graph->switch_count) return BSYNC_INVALID_ARGUMENT;
    const uint32_t J = inst->graph->joint_count;
    if (joint >= J) return BSYNC_INVALID_ARGUMENT;
    out->x0_t = out->v0_t = out->factor_t = out->x0_r = out->v0_r = out->factor_r = 0;
    out->t1_t = out->t1_r = 0;
    if (!can_inertialize(inst->graph)) return BSYNC_OK;
    const inert_area a = cinert_of(inst);
    const sw_inert* st = &a.st[sw];
    if (!st->active) return BSYNC_OK;
    const size_t at = (size_t)sw * J + joint;
    out->x0_t = bsync_vec3_length(a.t[at]);
    out->v0_t = a.v[2u * at];
    out->t1_t = inert_t1(out->x0_t, out->v0_t, st->total);
    out->factor_t = bsync_instance_inertia_curve(st->elapsed, st->total, out->x0_t, out->v0_t);
    out->x0_r = inert_angle(a.r[at]);
    out->v0_r = a.v[2u * at + 1u];
    out->t1_r = inert_t1(out->x0_r, out->v0_r, st->total);
    out->factor_r = bsync_instance_inertia_curve(st->elapsed, st->total, out->x0_r, out->v0_r);
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- checksums */

static void feed_clock(bsync_checksum_state* c, const bsync_clip_time* t) {
    bsync_checksum_i64(c, t->cycles);
    bsync_checksum_u32(c, t->phase);
    bsync_checksum_u64(c, t->carry);
}

uint64_t bsync_instance_state_checksum(const bsync_instance* inst) {
    if (!valid(inst)) return 0;
    const bsync_graph* g = inst->graph;
    bsync_checksum_state c;
    bsync_checksum_init(&c, BSYNC_CHECKSUM_SEED_STATE);
    bsync_checksum_u64(&c, inst->tick);
    const bsync_param_state* st = CARR(inst, bsync_param_state, off_states);
    bsync_checksum_u32(&c, g->param_count);
    for (uint32_t i = 0; i < g->param_count; i++) bsync_param_checksum_feed(&st[i], &c);
    const bsync_clip_time* clocks = CARR(inst, bsync_clip_time, off_clocks);
    bsync_checksum_u32(&c, g->node_count);
    for (uint32_t n = 0; n < g->node_count; n++) feed_clock(&c, &clocks[n]);
    const bsync_clip_time* sc = CARR(inst, bsync_clip_time, off_slot_clocks);
    bsync_checksum_u32(&c, g->clock_count);
    for (uint32_t k = 0; k < g->clock_count; k++) feed_clock(&c, &sc[k]);
    const fix16_t* leaf = CARR(inst, fix16_t, off_leaf);
    bsync_checksum_u32(&c, g->motion_count);
    for (uint32_t m = 0; m < g->motion_count; m++) bsync_checksum_fx(&c, leaf[m]);
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    bsync_checksum_u32(&c, g->slot_count);
    for (uint32_t s = 0; s < g->slot_count; s++) bsync_checksum_fx(&c, w[s]);
    bsync_checksum_vec3(&c, inst->rm_t);
    bsync_checksum_quat(&c, inst->rm_r);
    if (g->switch_count > 0) { /* only with switches: other graphs checksum exactly as before */
        const sw_stack* stacks = cswitch_stacks(inst);
        bsync_checksum_u32(&c, g->switch_count);
        for (uint32_t i = 0; i < g->switch_count; i++) {
            bsync_checksum_u32(&c, stacks[i].count);
            for (uint32_t k = 0; k < stacks[i].count; k++) {
                const sw_entry* e = &stacks[i].e[k];
                bsync_checksum_u32(&c, e->child);
                bsync_checksum_fx(&c, e->base);
                bsync_checksum_u32(&c, e->fade);
                bsync_checksum_u32(&c, e->done);
                bsync_checksum_fx(&c, e->weight);
            }
        }
        if (can_inertialize(g)) { /* only while an inertialization runs: else exactly as before */
            const inert_area a = cinert_of(inst);
            uint32_t n = 0;
            for (uint32_t i = 0; i < g->switch_count; i++) n += a.st[i].active;
            if (n > 0) {
                const uint32_t J = g->joint_count;
                bsync_checksum_u32(&c, n);
                for (uint32_t i = 0; i < g->switch_count; i++) {
                    if (!a.st[i].active) continue;
                    bsync_checksum_u32(&c, i);
                    bsync_checksum_u32(&c, a.st[i].elapsed);
                    bsync_checksum_u32(&c, a.st[i].total);
                    for (uint32_t j = 0; j < J; j++) {
                        const size_t at = (size_t)i * J + j;
                        bsync_checksum_vec3(&c, a.t[at]);
                        bsync_checksum_quat(&c, a.r[at]);
                        bsync_checksum_fx(&c, a.v[2u * at]);
                        bsync_checksum_fx(&c, a.v[2u * at + 1u]);
                    }
                }
            }
        }
    }
    return bsync_checksum_final(&c);
}

uint64_t bsync_instance_parameter_checksum(const bsync_instance* inst, uint32_t p) {
    if (!valid(inst) || p >= inst->graph->param_count) return 0;
    bsync_checksum_state c;
    bsync_checksum_init(&c, BSYNC_CHECKSUM_SEED_PARAM);
    bsync_checksum_u32(&c, p);
    bsync_checksum_fx(&c, CARR(inst, fix16_t, off_filtered)[p]);
    bsync_param_checksum_feed(&CARR(inst, bsync_param_state, off_states)[p], &c);
    return bsync_checksum_final(&c);
}

uint64_t bsync_instance_node_checksum(const bsync_instance* inst, uint32_t n) {
    if (!valid(inst) || n >= inst->graph->node_count) return 0;
    const bsync_graph* g = inst->graph;
    const graph_node* gn = &g->nodes[n];
    bsync_checksum_state c;
    bsync_checksum_init(&c, BSYNC_CHECKSUM_SEED_NODE);
    bsync_checksum_u32(&c, n);
    feed_clock(&c, &CARR(inst, bsync_clip_time, off_clocks)[n]);
    bsync_checksum_fx(&c, CARR(inst, fix16_t, off_length)[n]);
    bsync_checksum_u32(&c, gn->child_count);
    const fix16_t* w = CARR(inst, fix16_t, off_weights);
    const bsync_clip_time* sc = CARR(inst, bsync_clip_time, off_slot_clocks);
    for (uint32_t k = 0; k < gn->child_count; k++) {
        const graph_slot* gs = &g->slots[gn->first_slot + k];
        bsync_checksum_fx(&c, w[gn->first_slot + k]);
        if (gs->clock != GRAPH_NONE) feed_clock(&c, &sc[gs->clock]);
    }
    return bsync_checksum_final(&c);
}

/* ---------------------------------------------------------------- pose */

static bsync_trs* scratch_pose(bsync_instance* inst, uint32_t i) {
    return ARR(inst, bsync_trs, off_scratch) + (size_t)i * inst->graph->joint_count;
}

/* The layer caches (instance memory, never state): layer mass fx[N], contrib fx[S], joint weights fx[J]. */
typedef struct layer_area { fix16_t *mass, *contrib, *inv; } layer_area;
static layer_area layer_caches(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    size_t off = (size_t)inst->off_scratch + align8(((size_t)g->bound_count + 1u) * g->joint_count * sizeof(bsync_trs));
    off += align8(2u * (size_t)g->joint_count * sizeof(bsync_trs));
    layer_area a;
    a.mass = (fix16_t*)(void*)((unsigned char*)inst + off);
    off += align8((size_t)g->node_count * sizeof(fix16_t));
    a.contrib = (fix16_t*)(void*)((unsigned char*)inst + off);
    off += align8((size_t)g->slot_count * sizeof(fix16_t));
    a.inv = (fix16_t*)(void*)((unsigned char*)inst + off);
    return a;
}


/* Samples every bound slot with contribution > 0 and blends them (the remainder to the rest pose).
 * *sampled marks the bound slots whose scratch pose already holds this evaluation's sample (bit b for
 * bound slot b; bound_count <= BSYNC_MAX_BLEND_POSES = 64): a sample is a pure function of the clip
 * and the slot's phase, and neither changes during one evaluation (one blend_base call), so a marked
 * slot is not sampled again. (Its key cursor is then not consulted either: results never depend on
 * a cursor, sample.h.) */
_Static_assert(BSYNC_MAX_BLEND_POSES <= 64, "one bit per bound slot in a uint64_t");
static bsync_result blend_slots(bsync_instance* inst, const fix16_t* contrib, bsync_trs* out_local,
                                uint64_t* sampled) {
    const bsync_graph* g = inst->graph;
    const uint32_t J = g->joint_count;
    const bsync_trs* rest = bsync_skeleton_rest_pose(g->skeleton);
    const bsync_clip_time* sc = CARR(inst, bsync_clip_time, off_slot_clocks);
    bsync_pose_input inputs[BSYNC_MAX_BLEND_POSES];
    uint32_t count = 0;
    for (uint32_t b = 0; b < g->bound_count; b++) {
        const uint32_t s = g->bound_slot[b];
        const fix16_t c = contrib[s];
        if (c <= 0) continue;
        bsync_trs* dst = scratch_pose(inst, b);
        const uint64_t bit = (uint64_t)1 << b;
        if (!(*sampled & bit)) {
            const graph_slot* gs = &g->slots[s];
            const bsync_clip* clip = g->clips[gs->index];
            uint32_t phase = gs->clock != GRAPH_NONE ? sc[gs->clock].phase : sample_phase(inst, gs->node);
            phase += gs->offset32; /* wraps mod 2^32 */
            const fix16_t dur = bsync_clip_duration(clip);
            fix16_t seconds = 0;
            if (dur > 0) {
                bsync_clip_time t = bsync_time_start();
                t.phase = phase;
                seconds = bsync_time_seconds(&t, dur, BSYNC_LOOP_WRAP);
            }
            bsync_result r = bsync_clip_sample(clip, seconds, BSYNC_LOOP_WRAP, rest, J, cursor_of(inst, b), dst);
            if (r != BSYNC_OK) return r;
            *sampled |= bit;
        }
        inputs[count].local = dst;
        inputs[count].weight = c > 64 * BSYNC_FX_ONE ? 64 * BSYNC_FX_ONE : c;
        inputs[count].joint_weights = NULL;
        count++;
    }
    return bsync_pose_blend(rest, J, count ? inputs : NULL, count, out_local);
}

/* Do two slot-contribution arrays give blend_slots the same inputs (every bound slot's contribution
 * equal)? Then blend_slots gives the same pose for both. */
static int same_bound_contrib(const bsync_graph* g, const fix16_t* a, const fix16_t* b) {
    for (uint32_t k = 0; k < g->bound_count; k++) {
        const uint32_t s = g->bound_slot[k];
        if (a[s] != b[s]) return 0;
    }
    return 1;
}

/* A layer's weight this tick (graph.h): fixed, or the filtered parameter clamped to [0, 1]. */
static fix16_t layer_weight(const bsync_instance* inst, const graph_layer* l) {
    if (l->source != (uint32_t)BSYNC_LAYER_WEIGHT_PARAM) return l->weight;
    const fix16_t v = CARR(inst, fix16_t, off_filtered)[l->param];
    return v < 0 ? 0 : v > BSYNC_FX_ONE ? BSYNC_FX_ONE : v;
}

/* Applies the layer stack to out_local (instance.h, "Layers"). On entry out_local is blend_slots'
 * pose for base_contrib; `sampled` is that evaluation's sampling mark (blend_slots). A layer whose
 * contributions equal base_contrib has exactly that pose as its layer pose: while out_local still
 * holds it (no earlier layer changed it), it is used directly instead of being blended again. */
static bsync_result apply_layers(bsync_instance* inst, bsync_trs* out_local, const fix16_t* base_contrib,
                                 uint64_t* sampled) {
    const bsync_graph* g = inst->graph;
    const uint32_t J = g->joint_count;
    const bsync_trs* rest = bsync_skeleton_rest_pose(g->skeleton);
    bsync_trs* layer = scratch_pose(inst, g->bound_count + 1u);
    bsync_trs* combined = scratch_pose(inst, g->bound_count + 2u);
    const layer_area a = layer_caches(inst);
    int pure = 1; /* out_local is still the pose of base_contrib */
    for (uint32_t i = 0; i < g->layer_count; i++) {
        const graph_layer* l = &g->layers[i];
        const fix16_t w = layer_weight(inst, l);
        if (w <= 0) continue; /* not sampled; the pose is unchanged */
        flatten_from(inst, l->node, a.mass, a.contrib);
        const bsync_trs* lpose = layer;
        bsync_result r = BSYNC_OK;
        if (pure && same_bound_contrib(g, a.contrib, base_contrib)) lpose = out_local; /* the same pose */
        else r = blend_slots(inst, a.contrib, layer, sampled);
        if (r != BSYNC_OK) return r;
        const fix16_t* mask = l->has_mask ? &g->layer_masks[(size_t)i * J] : NULL;
        if (l->mode == (uint32_t)BSYNC_LAYER_ADDITIVE) {
            r = bsync_pose_blend_additive(out_local, lpose, rest, J, w, mask, combined);
        } else {
            bsync_pose_input in[2];
            in[0].local = out_local;
            in[1].local = lpose;
            in[1].weight = w;
            in[1].joint_weights = mask;
            if (mask) {
                for (uint32_t j = 0; j < J; j++) a.inv[j] = BSYNC_FX_ONE - bsync_fx_mul(w, mask[j]);
                in[0].weight = BSYNC_FX_ONE;
                in[0].joint_weights = a.inv;
            } else {
                in[0].weight = BSYNC_FX_ONE - w;
                in[0].joint_weights = NULL;
            }
            r = bsync_pose_blend(rest, J, in, 2, combined);
        }
        if (r != BSYNC_OK) return r;
        bsync_pose_copy(out_local, combined, J);
        pure = 0;
    }
    return BSYNC_OK;
}

/* The blended pose without inertialization offsets: base, layers, the root-motion pose rule. */
static bsync_result blend_base(bsync_instance* inst, bsync_trs* out_local) {
    const bsync_graph* g = inst->graph;
    if (!g->skeleton) return BSYNC_MISMATCH;
    const bsync_trs* rest = bsync_skeleton_rest_pose(g->skeleton);
    const fix16_t* contrib = CARR(inst, fix16_t, off_contrib);
    uint64_t sampled = 0; /* this evaluation's samples (blend_slots) */
    bsync_result r = blend_slots(inst, contrib, out_local, &sampled);
    if (r != BSYNC_OK) return r;
    if (g->layer_count > 0) {
        r = apply_layers(inst, out_local, contrib, &sampled);
        if (r != BSYNC_OK) return r;
    }
    /* root motion (instance.h): the root joint keeps what was not extracted */
    const uint32_t rj = g->root_joint;
    if (g->root_motion == (uint32_t)BSYNC_ROOT_MOTION_NONE) {
        out_local[rj] = rest[rj];
    } else if (g->root_motion == (uint32_t)BSYNC_ROOT_MOTION_EXTRACT) {
        bsync_trs* x = &out_local[rj];
        if (g->root_rotation == (uint32_t)BSYNC_ROOT_ROTATION_FULL) {
            x->t = rest[rj].t;
            x->r = rest[rj].r;
        } else {
            x->t.x = rest[rj].t.x;
            x->t.z = rest[rj].t.z;
            const bsync_quat swing = bsync_quat_mul(bsync_quat_conj(yaw_twist(x->r)), x->r);
            x->r = bsync_quat_mul(yaw_twist(rest[rj].r), swing);
        }
    }
    return BSYNC_OK;
}

/* Adds switch i's decayed offset to pose (instance.h "Inertialization"). */
static void inert_apply_one(bsync_instance* inst, uint32_t i, bsync_trs* pose) {
    const inert_area a = inert_of(inst);
    const uint32_t J = inst->graph->joint_count;
    const uint32_t e = a.st[i].elapsed, T = a.st[i].total;
    const fix16_t x = bsync_instance_inertia_decay(e, T);
    for (uint32_t j = 0; j < J; j++) {
        const size_t at = (size_t)i * J + j;
        const bsync_vec3 ot = a.t[at];
        const bsync_quat oq = a.r[at];
        const fix16_t vt = a.v[2u * at], vr = a.v[2u * at + 1u];
        const fix16_t ft = vt == 0 ? x : bsync_instance_inertia_curve(e, T, bsync_vec3_length(ot), vt);
        pose[j].t = bsync_vec3_add(pose[j].t, bsync_vec3_scale(ot, ft));
        bsync_quat d;
        if (vr == 0) { /* zero velocity: exactly the curve and the nlerp of before */
            d = x >= BSYNC_FX_ONE ? oq : bsync_quat_nlerp(bsync_quat_identity(), oq, x);
        } else { /* the angle follows Bollo's curve about the offset's axis */
            const fix16_t th = inert_angle(oq);
            const fix16_t fr = bsync_instance_inertia_curve(e, T, th, vr);
            const bsync_vec3 axis = bsync_vec3_make(oq.x, oq.y, oq.z);
            d = fr >= BSYNC_FX_ONE ? oq : bsync_quat_from_axis_angle(axis, bsync_fx_mul(th, fr));
        }
        pose[j].r = bsync_quat_mul(d, pose[j].r);
    }
}

/* The pose every pose call reports: blend_base, then every active inertialization in switch order. */
static bsync_result blend_local(bsync_instance* inst, bsync_trs* out_local) {
    bsync_result r = blend_base(inst, out_local);
    if (r != BSYNC_OK || !can_inertialize(inst->graph)) return r;
    const inert_area a = inert_of(inst);
    for (uint32_t i = 0; i < inst->graph->switch_count; i++)
        if (a.st[i].active) inert_apply_one(inst, i, out_local);
    return BSYNC_OK;
}

bsync_result bsync_instance_pose(bsync_instance* inst, bsync_trs* out_local, bsync_trs* out_model) {
    if (!valid(inst) || !out_local) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (!g->skeleton) return BSYNC_MISMATCH;
    bsync_result r = blend_local(inst, out_local);
    if (r != BSYNC_OK || !out_model) return r;
    return bsync_pose_local_to_model(bsync_skeleton_parents(g->skeleton), g->joint_count, out_local, 0,
                                     g->joint_count, out_model);
}

bsync_result bsync_instance_joint_query(bsync_instance* inst, const uint32_t* joints, uint32_t count,
                                        bsync_trs* out_model) {
    if (!valid(inst) || (count > 0 && (!joints || !out_model))) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (!g->skeleton) return BSYNC_MISMATCH;
    for (uint32_t i = 0; i < count; i++)
        if (joints[i] >= g->joint_count) return BSYNC_INVALID_ARGUMENT;
    bsync_trs* local = scratch_pose(inst, g->bound_count);
    bsync_result r = blend_local(inst, local);
    if (r != BSYNC_OK) return r;
    const int16_t* parents = bsync_skeleton_parents(g->skeleton);
    uint16_t chain[BSYNC_MAX_JOINTS];
    for (uint32_t i = 0; i < count; i++) {
        uint32_t len = 0;
        int32_t j = (int32_t)joints[i];
        while (j >= 0 && len < BSYNC_MAX_JOINTS) { /* parents are lower indices: the walk ends */
            chain[len++] = (uint16_t)j;
            j = parents[j];
        }
        bsync_trs m = local[chain[len - 1]];
        for (uint32_t k = len - 1; k-- > 0;) m = bsync_trs_compose(&m, &local[chain[k]]);
        out_model[i] = m;
    }
    return BSYNC_OK;
}

bsync_result bsync_instance_pose_checksum(bsync_instance* inst, uint64_t* out, uint64_t* out_per_joint) {
    if (!valid(inst) || !out) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (!g->skeleton) return BSYNC_MISMATCH;
    bsync_trs* local = scratch_pose(inst, g->bound_count);
    bsync_result r = blend_local(inst, local);
    if (r != BSYNC_OK) return r;
    *out = bsync_checksum_pose(local, g->joint_count);
    if (out_per_joint) bsync_checksum_pose_joints(local, g->joint_count, out_per_joint);
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- snapshots */

typedef struct writer { unsigned char* p; } writer;
static void w_u32(writer* w, uint32_t v) {
    for (int i = 0; i < 4; i++) *w->p++ = (unsigned char)(v >> (8 * i));
}
static void w_u64(writer* w, uint64_t v) {
    for (int i = 0; i < 8; i++) *w->p++ = (unsigned char)(v >> (8 * i));
}
static uint32_t r_u32(const unsigned char** p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)(*p)[i] << (8 * i);
    *p += 4;
    return v;
}
static uint64_t r_u64(const unsigned char** p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)(*p)[i] << (8 * i);
    *p += 8;
    return v;
}

size_t bsync_instance_snapshot_size(const bsync_graph* g) {
    if (!g) return 0;
    return 32u + 4u + 48u * (size_t)g->param_count + 4u + 20u * (size_t)g->node_count + 4u +
           20u * (size_t)g->clock_count + (g->switch_count > 0 ? 4u + 68u * (size_t)g->switch_count : 0u) + 8u;
}

/* Active inertializations (0 without the area). */
static uint32_t inert_active_count(const bsync_instance* inst) {
    if (!can_inertialize(inst->graph)) return 0;
    const inert_area a = cinert_of(inst);
    uint32_t n = 0;
    for (uint32_t i = 0; i < inst->graph->switch_count; i++) n += a.st[i].active;
    return n;
}

/* Bytes of the inertialization block of a version 3 (without velocities) or 4 snapshot with n active
 * switches. */
static size_t inert_block_bytes(const bsync_graph* g, uint32_t n, uint32_t version) {
    const size_t per_joint = version == BSYNC_SNAPSHOT_VERSION_INERTIA ? 28u : 36u;
    return 4u + (size_t)n * (12u + per_joint * (size_t)g->joint_count);
}

size_t bsync_instance_snapshot_size_max(const bsync_graph* g) {
    if (!g) return 0;
    if (!can_inertialize(g)) return bsync_instance_snapshot_size(g);
    return bsync_instance_snapshot_size(g) +
           inert_block_bytes(g, g->switch_count, BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY);
}

size_t bsync_instance_snapshot_size_now(const bsync_instance* inst) {
    if (!valid(inst)) return 0;
    const uint32_t n = inert_active_count(inst);
    if (n == 0) return bsync_instance_snapshot_size(inst->graph);
    return bsync_instance_snapshot_size(inst->graph) +
           inert_block_bytes(inst->graph, n, BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY);
}

static void w_clock(writer* w, const bsync_clip_time* t) {
    w_u64(w, (uint64_t)t->cycles);
    w_u32(w, t->phase);
    w_u64(w, t->carry);
}

bsync_result bsync_instance_save(const bsync_instance* inst, void* buf, size_t cap, size_t* written) {
    if (!valid(inst) || !buf) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    const size_t total = bsync_instance_snapshot_size_now(inst);
    const uint32_t n_inert = inert_active_count(inst);
    if (cap < total || total > 0xFFFFFFFFu) return BSYNC_BUFFER_TOO_SMALL;
    writer w = {(unsigned char*)buf};
    w_u32(&w, BSYNC_SNAPSHOT_MAGIC);
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
        const sw_stack* stacks = cswitch_stacks(inst);
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
    if (n_inert > 0) {
        const inert_area a = cinert_of(inst);
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
    t.cycles = to_i64(r_u64(p));
    t.phase = r_u32(p);
    t.carry = r_u64(p);
    if (t.cycles > CYCLES_LIMIT || t.cycles < -CYCLES_LIMIT || t.carry >= den) return 0;
    if (out) *out = t;
    return 1;
}

/* Reads (and when `apply`, stores) the inertialization block of a version 3 or 4 snapshot (n active
 * switches, checked by the caller to be 1..W); version 3 has no velocities (all 0); returns 0 on a bad
 * field. */
static int read_inert(bsync_instance* inst, const unsigned char* p, uint32_t n, uint32_t version, int apply) {
    const bsync_graph* g = inst->graph;
    const uint32_t J = g->joint_count;
    const inert_area a = inert_of(inst);
    if (apply)
        for (uint32_t i = 0; i < g->switch_count; i++) inert_clear(inst, i);
    uint32_t next = 0; /* indices strictly increasing */
    for (uint32_t k = 0; k < n; k++) {
        const uint32_t i = r_u32(&p), elapsed = r_u32(&p), total = r_u32(&p);
        if (i < next || i >= g->switch_count || total < 1u || total > BSYNC_SWITCH_MAX_FADE_TICKS || elapsed >= total)
            return 0;
        next = i + 1u;
        for (uint32_t j = 0; j < J; j++) {
            bsync_vec3 t;
            bsync_quat q;
            t.x = to_i32(r_u32(&p)); t.y = to_i32(r_u32(&p)); t.z = to_i32(r_u32(&p));
            q.x = to_i32(r_u32(&p)); q.y = to_i32(r_u32(&p)); q.z = to_i32(r_u32(&p)); q.w = to_i32(r_u32(&p));
            if (t.x == INT32_MIN || t.y == INT32_MIN || t.z == INT32_MIN) return 0;
            if (q.x < -BSYNC_FX_ONE || q.x > BSYNC_FX_ONE || q.y < -BSYNC_FX_ONE || q.y > BSYNC_FX_ONE ||
                q.z < -BSYNC_FX_ONE || q.z > BSYNC_FX_ONE || q.w < 0 || q.w > BSYNC_FX_ONE ||
                (q.w == 0 && bsync_quat_lex_negative_(q)))
                return 0;
            fix16_t vt = 0, vr = 0;
            if (version != BSYNC_SNAPSHOT_VERSION_INERTIA) { /* 4: v0 <= 0, and 0 without an offset */
                vt = to_i32(r_u32(&p));
                vr = to_i32(r_u32(&p));
                if (vt > 0 || vr > 0 || vt == INT32_MIN || vr == INT32_MIN) return 0;
                if ((vt != 0 && bsync_vec3_length(t) == 0) || (vr != 0 && inert_angle(q) == 0)) return 0;
            }
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
        const fix16_t target = to_i32(r_u32(&p));
        s.value[0] = to_i32(r_u32(&p));
        s.value[1] = to_i32(r_u32(&p));
        s.settled = r_u32(&p);
        s.pad_ = 0;
        for (int k = 0; k < 2; k++) {
            s.smooth[k].value = to_i64(r_u64(&p));
            s.smooth[k].velocity = to_i64(r_u64(&p));
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
        sw_stack* stacks = switch_stacks(inst);
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
                e->base = to_i32(r_u32(&p));
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
            if (apply) stacks[i] = ss; /* weights: derive_all */
        }
    }
    if (apply) inst->tick = tick;
    return 1;
}

bsync_result bsync_instance_load(bsync_instance* inst, const void* buf, size_t len) {
    if (!valid(inst) || !buf) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    const size_t total = bsync_instance_snapshot_size(g);
    const unsigned char* p = (const unsigned char*)buf;
    if (len < 32u) return BSYNC_BAD_BLOB;
    if (r_u32(&p) != BSYNC_SNAPSHOT_MAGIC) return BSYNC_BAD_BLOB;
    const uint32_t version = r_u32(&p);
    const int v3 = (version == BSYNC_SNAPSHOT_VERSION_INERTIA || version == BSYNC_SNAPSHOT_VERSION_INERTIA_VELOCITY) &&
                   can_inertialize(g); /* an inertialization block follows */
    if (version != (g->switch_count > 0 ? BSYNC_SNAPSHOT_VERSION_SWITCHES : BSYNC_SNAPSHOT_VERSION) && !v3)
        return BSYNC_BAD_BLOB;
    const uint64_t hash = r_u64(&p);
    const uint32_t declared = r_u32(&p);
    const uint32_t zero = r_u32(&p);
    if (declared != len || zero != 0) return BSYNC_BAD_BLOB;
    if (hash != g->hash) return BSYNC_MISMATCH;
    uint32_t n_inert = 0;
    size_t full = total;
    if (v3) { /* the block count sits right after the version 2 body */
        if (len < total + 4u) return BSYNC_BAD_BLOB;
        const unsigned char* q = (const unsigned char*)buf + total - 8u;
        n_inert = r_u32(&q);
        if (n_inert < 1u || n_inert > g->switch_count) return BSYNC_BAD_BLOB;
        full = total + inert_block_bytes(g, n_inert, version);
    }
    if (len != full) return BSYNC_BAD_BLOB;
    const unsigned char* tail = (const unsigned char*)buf + full - 8u;
    if (r_u64(&tail) != bsync_checksum_xxh64(buf, full - 8u, 0)) return BSYNC_BAD_BLOB;
    const unsigned char* ib = (const unsigned char*)buf + total - 8u + 4u;
    if (!read_body(inst, p, 0) || (v3 && !read_inert(inst, ib, n_inert, version, 0))) return BSYNC_BAD_BLOB;
    (void)read_body(inst, p, 1);
    if (can_inertialize(g)) {
        if (v3) (void)read_inert(inst, ib, n_inert, version, 1);
        else
            for (uint32_t i = 0; i < g->switch_count; i++) inert_clear(inst, i);
    }
    derive_all(inst);
    reset_cursors(inst);
    update_root_motion(inst); /* the last tick's delta, from the clocks stepped back (instance.h) */
    return BSYNC_OK;
}
