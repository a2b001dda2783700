/* instance_switch.c — switch nodes' cross-fade stacks and inertialization (blendsync/instance.h
 * "Switches", "Inertialization"): stack weights, triggers, fades, the decay curves, starting an
 * inertialization's offsets and velocities, and the inspection calls. */
#include "blendsync/instance.h"

#include "internal/graph_impl.h"
#include "internal/instance_impl.h"

/* Entry weights from base / fade / done (docs/instance.md "Switches"). */
void instance_sw_weights(sw_stack* st) {
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
void instance_apply_switches(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    fix16_t* w = ARR(inst, fix16_t, off_weights);
    sw_stack* stacks = instance_switch_stacks(inst);
    for (uint32_t i = 0; i < g->switch_count; i++) {
        const graph_node* gn = &g->nodes[g->switches[i].node];
        sw_stack* st = &stacks[i];
        instance_sw_weights(st);
        for (uint32_t k = 0; k < gn->child_count; k++) w[gn->first_slot + k] = 0;
        for (uint32_t k = 0; k < st->count; k++)
            w[gn->first_slot + st->e[k].child] = bsync_fx_add(w[gn->first_slot + st->e[k].child], st->e[k].weight);
    }
}

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

/* Pushes a trigger onto switch i's stack (docs/instance.md "Switches"); an inertialized trigger pushes an
 * instant entry (fade 0). Returns 0 when the trigger is ignored (its state is the newest already). */
int instance_sw_push(bsync_instance* inst, uint32_t i, const bsync_switch_trigger* t) {
    sw_stack* st = &instance_switch_stacks(inst)[i];
    instance_sw_weights(st);
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
        const bsync_graph* g = inst->graph;
        const graph_slot* slots = &g->slots[g->nodes[g->switches[i].node].first_slot];
        const graph_slot *ds = &slots[st->e[dom].child], *ns = &slots[t->child];
        uint32_t mp;
        if (t->carry_time == BSYNC_SWITCH_START_MARKER && ds->kind == (uint32_t)BSYNC_CHILD_MOTION &&
            ns->kind == (uint32_t)BSYNC_CHILD_MOTION && instance_marker_map(g, ds->index, ns->index, src.phase, &mp)) {
            n.phase = mp; /* docs/actions.md "Sync markers": the matching marker phase, carry 0 */
        } else if (t->carry_time) { /* 1, or 2 without a matching marker pair: the normalised phase */
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
void instance_sw_advance_one(sw_stack* st) {
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

void instance_sw_advance(bsync_instance* inst) {
    sw_stack* stacks = instance_switch_stacks(inst);
    for (uint32_t i = 0; i < inst->graph->switch_count; i++) instance_sw_advance_one(&stacks[i]);
}

/* The decay factor (docs/instance.md "Inertialization"). */
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
fix16_t instance_inert_angle(bsync_quat q) {
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
void instance_inert_clear(bsync_instance* inst, uint32_t i) {
    const inert_area a = instance_inert_of(inst);
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

/* Start the inertializations of the switches with start[i] (docs/instance.md "Inertialization"): offsets
 * between the pose with switch i's stack old[i] (plus switch i's own running offset) and the pose of
 * the current state, both at the current clocks; initial velocities from the pose shown before the
 * tick (a.prev, instance_valid when have_prev). */
void instance_inert_start(bsync_instance* inst, const uint32_t* start, const uint32_t* total, sw_stack* old,
                        int have_prev) {
    const bsync_graph* g = inst->graph;
    const uint32_t J = g->joint_count;
    const inert_area a = instance_inert_of(inst);
    bsync_trs* pnew = a.pose;
    bsync_trs* pold = instance_scratch_pose(inst, g->bound_count);
    sw_stack* stacks = instance_switch_stacks(inst);
    const bsync_result rn = instance_blend_base(inst, pnew);
    for (uint32_t i = 0; i < g->switch_count; i++) {
        if (!start[i]) continue;
        const sw_stack keep = stacks[i];
        stacks[i] = old[i];
        instance_apply_switches(inst);
        instance_flatten_and_lengths(inst);
        const bsync_result ro = instance_blend_base(inst, pold);
        stacks[i] = keep;
        instance_apply_switches(inst);
        instance_flatten_and_lengths(inst); /* the same derived state as before: a function of the weights */
        if (a.st[i].active) instance_inert_apply_one(inst, i, pold); /* the running offset is part of the old pose */
        instance_inert_clear(inst, i);
        if (rn != BSYNC_OK || ro != BSYNC_OK) continue; /* cannot happen: instance_valid clips and buffers */
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
            if (vr != 0 && instance_inert_angle(q) == 0) vr = 0; /* a velocity needs a magnitude (snapshot rule) */
            a.v[2u * at + 1u] = vr;
        }
        a.st[i].active = 1;
        a.st[i].elapsed = 0;
        a.st[i].total = total[i];
    }
}

bsync_result bsync_instance_switch_state(const bsync_instance* inst, uint32_t sw,
                                        bsync_switch_entry out[BSYNC_SWITCH_STACK_DEPTH], uint32_t* count) {
    if (!instance_valid(inst) || !out || !count || sw >= inst->graph->switch_count) return BSYNC_INVALID_ARGUMENT;
    const sw_stack* st = &instance_cswitch_stacks(inst)[sw];
    for (uint32_t k = 0; k < st->count; k++) {
        out[k].child = st->e[k].child;
        out[k].weight = st->e[k].weight;
        out[k].fade_ticks = st->e[k].fade;
        out[k].fade_done = st->e[k].done;
    }
    *count = st->count;
    return BSYNC_OK;
}

/* t1 (Q16 ticks) of a curve with magnitude x0, velocity v0 <= 0 and length T (docs/instance.md "Inertialization"). */
static uint64_t inert_t1(fix16_t x0, fix16_t v0, uint32_t T) {
    const uint64_t full = (uint64_t)T * 65536u, V = bsync_u64_abs(v0);
    if (x0 <= 0 || v0 >= 0 || V * T <= 5u * (uint64_t)x0) return full;
    return (5u * (uint64_t)x0 * 65536u + V / 2u) / V; /* < T * 65536 <= 2^36; numerator < 5 * 2^47 */
}

bsync_result bsync_instance_inertia_state(const bsync_instance* inst, uint32_t sw, bsync_inertia_state* out) {
    if (!instance_valid(inst) || !out || sw >= inst->graph->switch_count) return BSYNC_INVALID_ARGUMENT;
    out->active = out->elapsed = out->total = 0;
    out->decay = 0;
    out->moving = out->shortened = 0;
    if (!instance_can_inertialize(inst->graph)) return BSYNC_OK;
    const inert_area a = instance_cinert_of(inst);
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
                          inert_t1(instance_inert_angle(a.r[at]), vr, st->total) < full;
    }
    return BSYNC_OK;
}

bsync_result bsync_instance_inertia_joint(const bsync_instance* inst, uint32_t sw, uint32_t joint,
                                          bsync_inertia_joint* out) {
    if (!instance_valid(inst) || !out || sw >= inst->graph->switch_count) return BSYNC_INVALID_ARGUMENT;
    const uint32_t J = inst->graph->joint_count;
    if (joint >= J) return BSYNC_INVALID_ARGUMENT;
    out->x0_t = out->v0_t = out->factor_t = out->x0_r = out->v0_r = out->factor_r = 0;
    out->t1_t = out->t1_r = 0;
    if (!instance_can_inertialize(inst->graph)) return BSYNC_OK;
    const inert_area a = instance_cinert_of(inst);
    const sw_inert* st = &a.st[sw];
    if (!st->active) return BSYNC_OK;
    const size_t at = (size_t)sw * J + joint;
    out->x0_t = bsync_vec3_length(a.t[at]);
    out->v0_t = a.v[2u * at];
    out->t1_t = inert_t1(out->x0_t, out->v0_t, st->total);
    out->factor_t = bsync_instance_inertia_curve(st->elapsed, st->total, out->x0_t, out->v0_t);
    out->x0_r = instance_inert_angle(a.r[at]);
    out->v0_r = a.v[2u * at + 1u];
    out->t1_r = inert_t1(out->x0_r, out->v0_r, st->total);
    out->factor_r = bsync_instance_inertia_curve(st->elapsed, st->total, out->x0_r, out->v0_r);
    return BSYNC_OK;
}
