/* instance_root_motion.c — the root-motion delta of the last tick (docs/instance.md "Root motion"):
 * each contributing slot's piece between its clock before and after the tick, blended by weight. */
#include "blendsync/instance.h"

#include "internal/graph_impl.h"
#include "internal/instance_impl.h"
#include "internal/sample_impl.h"

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
bsync_quat instance_yaw_twist(bsync_quat q) { return rm_normalize(bsync_quat_make(0, q.y, 0, q.w)); }

static bsync_quat rm_frame(const bsync_graph* g, bsync_quat q) {
    return g->root_rotation == (uint32_t)BSYNC_ROOT_ROTATION_FULL ? q : instance_yaw_twist(q);
}

/* The root joint's local translation and rotation of motion m's clip at clip time t in [0, duration]
 * (bsync_clip_sample's values with CLAMP, through sample.c's one-track sampling; components without
 * a track keep the rest pose). */
static void rm_sample(const bsync_graph* g, uint32_t m, fix16_t t, rm_xf* out) {
    const bsync_clip* clip = g->clips[m];
    const bsync_trs* rest = &bsync_skeleton_rest_pose(g->skeleton)[g->root_joint];
    out->t = rest->t;
    out->r = rest->r;
    if (g->root_tracks[2u * m] != GRAPH_NONE)
        (void)bsync_clip_sample_track_(clip, g->root_tracks[2u * m], t, BSYNC_LOOP_CLAMP, &out->t, NULL);
    if (g->root_tracks[2u * m + 1u] != GRAPH_NONE)
        (void)bsync_clip_sample_track_(clip, g->root_tracks[2u * m + 1u], t, BSYNC_LOOP_CLAMP, NULL, &out->r);
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
    if (bsync_graph_one_shot_(g, m)) { /* plays once: from the clamped position before to the one now */
        const bsync_clip_time q0 = instance_offset_time(*p0, offset), q1 = instance_offset_time(*p1, offset);
        rm_xf a1, b1;
        rm_sample(g, m, bsync_time_seconds(&q0, dur, BSYNC_LOOP_CLAMP), &a1);
        rm_sample(g, m, bsync_time_seconds(&q1, dur, BSYNC_LOOP_CLAMP), &b1);
        rm_xf x1 = rm_piece(g, &a1, &b1);
        x1.r = rm_normalize(x1.r);
        return x1;
    }
    /* |cycles| <= 2^62 on both sides: the modular difference is the true one */
    int64_t k = instance_to_i64((uint64_t)p1->cycles - (uint64_t)p0->cycles);
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


/* Rounded num / den (den > 0), ties away from zero, saturated. */
static fix16_t rm_div_round(int64_t num, uint64_t den) {
    const uint64_t m = (bsync_u64_abs(num) + den / 2u) / den;
    return bsync_fx_signed_sat(m, num < 0);
}

void instance_update_root_motion(bsync_instance* inst) {
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
        bsync_clip_time before, mapped;
        uint32_t offset;
        if (gs->clock != GRAPH_NONE) {
            now = &sc[gs->clock];
            before = instance_unstep(now, &g->clock_steps[gs->clock]);
            offset = gs->offset32;
        } else if (g->has_marker_sync && g->marker_sync[gs->node]) { /* the marker positions, offsets in */
            instance_slot_position(inst, s, &mapped, &before);
            now = &mapped;
            offset = 0;
        } else {
            const graph_node* gn = &g->nodes[gs->node];
            now = &clocks[gn->driver];
            before = instance_unstep(now, &steps[gn->driver]);
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
    if (!instance_valid(inst) || !out) return BSYNC_INVALID_ARGUMENT;
    out->translation = inst->rm_t;
    out->rotation = inst->rm_r;
    return BSYNC_OK;
}
