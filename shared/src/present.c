/* present.c — presentation poses between ticks (see blendsync/present.h for the contract,
 * docs/presentation.md for the design).
 *
 * The pose at tick + alpha is the instance's own pose function run on a copy of the instance whose
 * clocks were moved forward by alpha of their steps. Running the same code (instead of a second,
 * "presentation" blend) is what makes alpha = 0 the tick pose bit for bit and keeps every rule —
 * layers, switches, inertialization offsets, the root-motion pose rule — identical without
 * restating it. The copy lives in caller scratch, so the instance stays const and nothing here
 * allocates. */
#include "blendsync/present.h"

#include <string.h>

#include "blendsync/pose.h"
#include "internal/graph_impl.h"
#include "internal/instance_impl.h"
#include "internal/wide_math.h"

static int valid(const bsync_instance* inst) { return inst && inst->magic == INSTANCE_MAGIC && inst->graph; }

static fix16_t clamp_alpha(fix16_t alpha) { return alpha > BSYNC_PRESENT_ALPHA_MAX ? BSYNC_PRESENT_ALPHA_MAX : alpha; }

/* f / 65536 of a step (0 <= f < 65536), floored to 1/den of a phase unit: exactly
 * floor((whole * den + rem) * f / 65536) units of 1/den, split back into whole + rem / den.
 * whole * f is exact in 128 bits; the rest fits 64 bits because den < 2^41 (tick_rate <= 1000 times
 * a fix16 duration) and rem < den: r1 * den + rem * f < 2^16 * 2^41 + 2^41 * 2^16 = 2^58. */
static bsync_time_step partial_step(const bsync_time_step* s, uint32_t f) {
    bsync_time_step out = *s;
    const bsync_u128 p = bsync_u128_mul_u64(s->whole, (uint64_t)f);
    const uint64_t whole = (p.hi << 48) | (p.lo >> 16); /* < s->whole: fits */
    const uint64_t r1 = p.lo & 0xFFFFu;
    const uint64_t rem_total = (r1 * s->den + s->rem * (uint64_t)f) >> 16;
    out.whole = whole + rem_total / s->den;
    out.rem = rem_total % s->den;
    return out;
}

/* A clock advanced by alpha = n + f / 65536 of its step (present.h). */
static void advance_alpha(bsync_clip_time* c, const bsync_time_step* s, fix16_t alpha) {
    if (s->den == 0) return; /* a step never made by bsync_time_step_init: the clock does not move */
    const uint32_t n = (uint32_t)alpha >> 16, f = (uint32_t)alpha & 0xFFFFu;
    if (n > 0) bsync_time_advance_n(c, s, n);
    if (f > 0) {
        const bsync_time_step part = partial_step(s, f);
        bsync_time_advance(c, &part);
    }
}

size_t bsync_present_scratch_size(const bsync_graph* graph) { return bsync_instance_memory_size(graph); }

bsync_result bsync_present_root_motion(const bsync_instance* inst, fix16_t alpha, bsync_root_motion* out) {
    if (!valid(inst) || !out || alpha < 0) return BSYNC_INVALID_ARGUMENT;
    alpha = clamp_alpha(alpha);
    const bsync_vec3 t = inst->rm_t;
    const bsync_quat r = inst->rm_r;
    out->translation = bsync_vec3_make(bsync_fx_mul(alpha, t.x), bsync_fx_mul(alpha, t.y), bsync_fx_mul(alpha, t.z));
    const uint32_t n = (uint32_t)alpha >> 16, f = (uint32_t)alpha & 0xFFFFu;
    bsync_quat q = bsync_quat_identity();
    for (uint32_t i = 0; i < n; i++) q = i == 0 ? r : bsync_quat_normalize(bsync_quat_mul(q, r));
    if (f > 0) {
        const bsync_quat part = bsync_quat_nlerp(bsync_quat_identity(), r, (fix16_t)f);
        q = n == 0 ? part : bsync_quat_normalize(bsync_quat_mul(q, part));
    }
    out->rotation = q;
    return BSYNC_OK;
}

/* Switch cross-fades at tick + alpha (present.h): a fade is time, not input — it advances one tick per
 * tick whatever the inputs — so the newest entry's weight is taken at done + alpha instead of done:
 * w_T = round((d * 65536 + alpha) / F) with d * 65536 + alpha capped at F * 65536 (the end of the fade),
 * the older entries scaled by 1 - w_T exactly as instance_switch.c's instance_sw_weights does
 * (floors, the one below the newest taking the rest). alpha = 0 gives the tick's weights; alpha = 1 the next tick's when no
 * trigger comes. The switch nodes' child weights are rewritten from them and the copy's derived state
 * (contributions, leaf weights) recomputed. */
static void present_fades(bsync_instance* copy, fix16_t alpha) {
    const bsync_graph* g = copy->graph;
    sw_stack* stacks = INSTANCE_SWITCH_STACKS(copy);
    fix16_t* w = ARR(copy, fix16_t, off_weights);
    int any = 0;
    for (uint32_t i = 0; i < g->switch_count; i++) {
        sw_stack* st = &stacks[i];
        if (st->count <= 1u) continue;
        const uint32_t top = st->count - 1u;
        const uint64_t f = st->e[top].fade, d = st->e[top].done;
        if (f == 0) continue; /* an instant entry not yet collapsed: already 1.0 */
        uint64_t x = d * 65536u + (uint64_t)alpha;
        if (x > f * 65536u) x = f * 65536u;
        const fix16_t wt = (fix16_t)((x + f / 2u) / f);
        const fix16_t rem = BSYNC_FX_ONE - wt;
        st->e[top].weight = wt;
        fix16_t sum = 0;
        for (uint32_t k = 0; k + 2u < st->count; k++) {
            st->e[k].weight = (fix16_t)(((uint64_t)st->e[k].base * (uint64_t)rem) >> 16);
            sum += st->e[k].weight;
        }
        st->e[top - 1u].weight = rem - sum;
        const graph_node* gn = &g->nodes[g->switches[i].node];
        for (uint32_t k = 0; k < gn->child_count; k++) w[gn->first_slot + k] = 0;
        for (uint32_t k = 0; k < st->count; k++)
            w[gn->first_slot + st->e[k].child] = bsync_fx_add(w[gn->first_slot + st->e[k].child], st->e[k].weight);
        any = 1;
    }
    if (any) instance_flatten_and_lengths(copy); /* the clocks were already moved with the tick's steps */
}

/* Copies the instance into scratch and moves the copy's clocks to tick + alpha. */
static bsync_result present_copy(const bsync_instance* inst, fix16_t alpha, void* scratch, size_t scratch_size,
                                 bsync_instance** out) {
    const size_t size = (size_t)inst->size;
    if (scratch_size < size) return BSYNC_BUFFER_TOO_SMALL;
    const unsigned char* src = (const unsigned char*)inst;
    unsigned char* dst = (unsigned char*)scratch;
    /* no overlap: the copy must never write the instance (pointer comparison through integers, as
     * unrelated objects may not be compared directly) */
    const uintptr_t a = (uintptr_t)src, b = (uintptr_t)dst;
    if (a < b + size && b < a + size) return BSYNC_INVALID_ARGUMENT;
    /* A scratch that already holds a copy of an instance of this graph keeps its own sample cursors:
     * they follow the presented times from call to call (the instance's may be far behind when the
     * game never asks it for a tick pose), and a cursor never changes a result (sample.h: cached
     * indices are range-checked), only the cost of the key search. */
    const bsync_instance* prev = (const bsync_instance*)scratch;
    const int warm = prev->magic == INSTANCE_MAGIC && prev->graph == inst->graph && prev->size == inst->size &&
                     prev->off_cursors == inst->off_cursors && prev->off_scratch == inst->off_scratch;
    const size_t skip_from = warm ? (size_t)inst->off_cursors : size, skip_to = warm ? (size_t)inst->off_scratch : size;
    memcpy(dst, src, skip_from);
    memcpy(dst + skip_to, src + skip_to, size - skip_to);
    bsync_instance* copy = (bsync_instance*)scratch;
    const bsync_graph* g = inst->graph;
    if (alpha > 0) {
        bsync_clip_time* clocks = ARR(copy, bsync_clip_time, off_clocks);
        const bsync_time_step* steps = CARR(copy, bsync_time_step, off_steps);
        for (uint32_t n = 0; n < g->node_count; n++) advance_alpha(&clocks[n], &steps[n], alpha);
        bsync_clip_time* sc = ARR(copy, bsync_clip_time, off_slot_clocks);
        for (uint32_t c = 0; c < g->clock_count; c++) advance_alpha(&sc[c], &g->clock_steps[c], alpha);
    }
    if (alpha > 0 && g->switch_count > 0) present_fades(copy, alpha);
    *out = copy;
    return BSYNC_OK;
}

bsync_result bsync_present_pose(const bsync_instance* inst, fix16_t alpha, void* scratch, size_t scratch_size,
                                bsync_trs* out_local, bsync_trs* out_model, bsync_root_motion* out_root) {
    if (!valid(inst) || !out_local || !scratch || ((uintptr_t)scratch & 7u) != 0 || alpha < 0)
        return BSYNC_INVALID_ARGUMENT;
    if (!inst->graph->skeleton) return BSYNC_MISMATCH;
    alpha = clamp_alpha(alpha);
    bsync_instance* copy = NULL;
    bsync_result r = present_copy(inst, alpha, scratch, scratch_size, &copy);
    if (r != BSYNC_OK) return r;
    r = bsync_instance_pose(copy, out_local, out_model);
    if (r != BSYNC_OK) return r;
    return out_root ? bsync_present_root_motion(inst, alpha, out_root) : BSYNC_OK;
}

/* ---------------------------------------------------------------- a whole match */

size_t bsync_present_match_scratch_size(const bsync_match* match) {
    size_t most = 0;
    const uint32_t n = bsync_match_character_count(match);
    for (uint32_t c = 0; c < n; c++) {
        const size_t s = bsync_present_scratch_size(bsync_instance_graph(bsync_match_instance_const(match, c)));
        if (s > most) most = s;
    }
    return most;
}

uint32_t bsync_present_match_joint_count(const bsync_match* match) {
    uint32_t total = 0;
    const uint32_t n = bsync_match_character_count(match);
    for (uint32_t c = 0; c < n; c++) {
        const bsync_graph* g = bsync_instance_graph(bsync_match_instance_const(match, c));
        total += g ? g->joint_count : 0u;
    }
    return total;
}

bsync_result bsync_present_match(const bsync_match* match, fix16_t alpha, void* scratch, size_t scratch_size,
                                 bsync_trs* out_local, bsync_trs* out_model, bsync_root_motion* out_root) {
    if (!match || !out_local) return BSYNC_INVALID_ARGUMENT;
    const uint32_t n = bsync_match_character_count(match);
    size_t at = 0;
    for (uint32_t c = 0; c < n; c++) {
        const bsync_instance* inst = bsync_match_instance_const(match, c);
        const bsync_graph* g = bsync_instance_graph(inst);
        if (!g) return BSYNC_INVALID_ARGUMENT;
        bsync_result r = bsync_present_pose(inst, alpha, scratch, scratch_size, out_local + at,
                                            out_model ? out_model + at : NULL, out_root ? &out_root[c] : NULL);
        if (r != BSYNC_OK) return r;
        at += g->joint_count;
    }
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- floats (the edge) */

static float to_f(fix16_t v) { return (float)v / 65536.0f; }

void bsync_present_to_float(const bsync_trs* in, uint32_t count, bsync_present_trs_f* out) {
    if (!in || !out) return;
    for (uint32_t j = 0; j < count; j++) {
        const bsync_trs* x = &in[j];
        bsync_present_trs_f* o = &out[j];
        o->t[0] = to_f(x->t.x); o->t[1] = to_f(x->t.y); o->t[2] = to_f(x->t.z);
        o->r[0] = to_f(x->r.x); o->r[1] = to_f(x->r.y); o->r[2] = to_f(x->r.z); o->r[3] = to_f(x->r.w);
        o->s[0] = to_f(x->s.x); o->s[1] = to_f(x->s.y); o->s[2] = to_f(x->s.z);
    }
}
