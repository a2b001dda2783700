/* instance_pose.c — the instance's pose: sampling the bound slots, layers, the root-motion pose rule,
 * inertialization offsets, local/model poses, joint queries and the pose checksum (blendsync/instance.h). */
#include "blendsync/instance.h"

#include "blendsync/checksum.h"
#include "internal/graph_impl.h"
#include "internal/instance_impl.h"


/* The layer caches (instance memory, never state): layer mass fx[N], contrib fx[S], joint weights fx[J]. */
typedef struct layer_area { fix16_t *mass, *contrib, *inv; } layer_area;
static layer_area layer_caches(bsync_instance* inst) {
    const bsync_graph* g = inst->graph;
    size_t off = (size_t)inst->off_scratch + instance_align8(((size_t)g->bound_count + 1u) * g->joint_count * sizeof(bsync_trs));
    off += instance_align8(2u * (size_t)g->joint_count * sizeof(bsync_trs));
    layer_area a;
    a.mass = (fix16_t*)(void*)((unsigned char*)inst + off);
    off += instance_align8((size_t)g->node_count * sizeof(fix16_t));
    a.contrib = (fix16_t*)(void*)((unsigned char*)inst + off);
    off += instance_align8((size_t)g->slot_count * sizeof(fix16_t));
    a.inv = (fix16_t*)(void*)((unsigned char*)inst + off);
    return a;
}


/* One evaluation's samples (one instance_blend_base call): bit b of `sampled` says that bound slot b's
 * sample of this evaluation is in scratch pose src[b] (b itself, or an earlier bound slot that sampled
 * the same clip at the same time); seconds[b] is the time it was sampled at (bound_count <=
 * BSYNC_MAX_BLEND_POSES = 64). A sample is a pure function of the clip and the time (sample.h: the
 * cursor never changes a result, and every slot of a graph samples with its clip's one plan over the
 * skeleton's rest pose, or without a plan, with that rest pose: the same bits), and neither changes
 * during one evaluation, so a marked slot is not sampled again, and two slots bound to one clip at one
 * time (the same motion under two nodes of a synchronised tree) share one sample. */
_Static_assert(BSYNC_MAX_BLEND_POSES <= 64, "one bit per bound slot in a uint64_t");
typedef struct eval_samples {
    uint64_t sampled;
    uint8_t src[BSYNC_MAX_BLEND_POSES];
    fix16_t seconds[BSYNC_MAX_BLEND_POSES];
} eval_samples;

/* docs/actions.md "Sync markers": the phase of motion `follower` matching motion `lead` at `phase`: the
 * leader sits between its previous marker p and next marker q; the follower takes the same fraction of its
 * own first marker pair named (p, q). Returns 0 (and leaves *out) when either lacks markers or the pair. */
int instance_marker_map(const bsync_graph* g, uint32_t lead, uint32_t follower, uint32_t phase, uint32_t* out) {
    if (g->marker_count == 0) return 0;
    const graph_marker* mk = g->markers;
    const uint32_t lf = g->motion_first_marker[lead], ll = g->motion_first_marker[lead + 1];
    const uint32_t ff = g->motion_first_marker[follower], fl = g->motion_first_marker[follower + 1];
    if (lf == ll || ff == fl) return 0;
    uint32_t p = ll - 1;
    for (uint32_t i = lf; i < ll && mk[i].at <= phase; i++) p = i;
    const uint32_t q = p + 1 == ll ? lf : p + 1;
    const uint64_t span = mk[q].at != mk[p].at ? (uint64_t)(uint32_t)(mk[q].at - mk[p].at) : (uint64_t)1 << 32;
    const uint64_t pos = (uint32_t)(phase - mk[p].at); /* < span */
    for (uint32_t j = ff; j < fl; j++) {
        const uint32_t k = j + 1 == fl ? ff : j + 1;
        if (mk[j].name_id != mk[p].name_id || mk[k].name_id != mk[q].name_id) continue;
        const uint64_t fspan = mk[k].at != mk[j].at ? (uint64_t)(uint32_t)(mk[k].at - mk[j].at) : (uint64_t)1 << 32;
        *out = mk[j].at + (uint32_t)(pos * fspan / span); /* pos * fspan < 2^64; wraps mod 2^32 */
        return 1;
    }
    return 0;
}

/* The motion slot leading marker-synced slot gs (docs/actions.md "Sync markers", "Sync groups"): in a
 * sync group (marker_sync >= 2), the group's motion slot of largest contribution (> 0; ties to the lowest
 * slot index); otherwise, or when the whole group contributes nothing, the motion child of gs's node with
 * the largest weight (> 0; the first on ties). GRAPH_NONE without one. */
static uint32_t marker_lead_slot(const bsync_instance* inst, const graph_slot* gs) {
    const bsync_graph* g = inst->graph;
    const uint8_t group = g->marker_sync[gs->node];
    uint32_t lead = GRAPH_NONE;
    fix16_t best = 0;
    if (group >= 2u) {
        const fix16_t* contrib = CARR(inst, fix16_t, off_contrib);
        for (uint32_t s = 0; s < g->slot_count; s++) {
            const graph_slot* x = &g->slots[s];
            if (x->kind == (uint32_t)BSYNC_CHILD_MOTION && x->clock == GRAPH_NONE && g->marker_sync[x->node] == group &&
                contrib[s] > best) {
                best = contrib[s];
                lead = s;
            }
        }
        if (lead != GRAPH_NONE) return lead;
    }
    const graph_node* gn = &g->nodes[gs->node];
    const fix16_t* w = CARR(inst, fix16_t, off_weights) + gn->first_slot;
    for (uint32_t c = 0; c < gn->child_count; c++)
        if (g->slots[gn->first_slot + c].kind == (uint32_t)BSYNC_CHILD_MOTION && w[c] > best) {
            best = w[c];
            lead = gn->first_slot + c;
        }
    return lead;
}

uint32_t instance_marker_anchor(const bsync_instance* inst, const graph_slot* gs, uint32_t* lead_motion) {
    const uint32_t lead = marker_lead_slot(inst, gs);
    if (lead == GRAPH_NONE) {
        *lead_motion = GRAPH_NONE;
        return gs->node;
    }
    *lead_motion = inst->graph->slots[lead].index;
    return inst->graph->slots[lead].node;
}

int32_t instance_marker_delta(const bsync_graph* g, uint32_t lead_motion, uint32_t motion, uint32_t f) {
    uint32_t out = f;
    if (lead_motion == GRAPH_NONE || lead_motion == motion || !instance_marker_map(g, lead_motion, motion, f, &out))
        return 0;
    return instance_to_i32(out - f); /* wraps mod 2^32 */
}

/* The sampling phase of motion slot s before one-shot handling (its NONE clock, or its node's phase; on a
 * marker-synced node the anchor node's phase, marker-mapped; plus the slot's offset). */
static uint32_t slot_phase(const bsync_instance* inst, const graph_slot* gs) {
    const bsync_graph* g = inst->graph;
    uint32_t phase;
    if (gs->clock != GRAPH_NONE) {
        phase = CARR(inst, bsync_clip_time, off_slot_clocks)[gs->clock].phase;
    } else if (g->has_marker_sync && g->marker_sync[gs->node]) {
        uint32_t lead;
        phase = instance_sample_phase(inst, instance_marker_anchor(inst, gs, &lead));
        phase += (uint32_t)instance_marker_delta(g, lead, gs->index, phase); /* wraps mod 2^32 */
    } else {
        phase = instance_sample_phase(inst, gs->node);
    }
    return phase + gs->offset32; /* wraps mod 2^32 */
}

uint32_t bsync_instance_child_sample_phase(const bsync_instance* inst, uint32_t node, uint32_t child) {
    if (!instance_valid(inst) || node >= inst->graph->node_count) return 0;
    const graph_node* gn = &inst->graph->nodes[node];
    if (child >= gn->child_count) return 0;
    const graph_slot* gs = &inst->graph->slots[gn->first_slot + child];
    return gs->kind == (uint32_t)BSYNC_CHILD_MOTION ? slot_phase(inst, gs) : 0;
}

/* A one-shot slot's clamped clip seconds (kept out of line: the looping path stays as small as before). */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static fix16_t one_shot_seconds(const bsync_instance* inst, uint32_t slot, fix16_t dur) {
    bsync_clip_time t;
    instance_slot_position(inst, slot, &t, NULL);
    return bsync_time_seconds(&t, dur, BSYNC_LOOP_CLAMP);
}

/* The scratch pose holding bound slot b's sample of this evaluation (sampled first if needed). */
static bsync_result slot_sample(bsync_instance* inst, uint32_t b, eval_samples* ev, const bsync_trs** out) {
    const uint64_t bit = (uint64_t)1 << b;
    if (ev->sampled & bit) {
        *out = instance_scratch_pose(inst, ev->src[b]);
        return BSYNC_OK;
    }
    const bsync_graph* g = inst->graph;
    const graph_slot* gs = &g->slots[g->bound_slot[b]];
    const bsync_clip* clip = g->clips[gs->index];
    const uint32_t phase = slot_phase(inst, gs);
    const fix16_t dur = bsync_clip_duration(clip);
    fix16_t seconds = 0;
    const int once = g->one_shot && g->one_shot[gs->index];
    if (dur > 0 && once) { /* docs/actions.md "One-shot motions" */
        seconds = one_shot_seconds(inst, g->bound_slot[b], dur);
    } else if (dur > 0) {
        bsync_clip_time t = bsync_time_start();
        t.phase = phase;
        seconds = bsync_time_seconds(&t, dur, BSYNC_LOOP_WRAP);
    }
    /* the same clip at the same time, sampled earlier in this evaluation? */
    for (uint32_t k = 0; k < g->bound_count; k++) {
        if (!(ev->sampled & ((uint64_t)1 << k)) || ev->src[k] != k || ev->seconds[k] != seconds) continue;
        if (g->clips[g->slots[g->bound_slot[k]].index] != clip) continue;
        ev->sampled |= bit;
        ev->src[b] = (uint8_t)k;
        ev->seconds[b] = seconds;
        *out = instance_scratch_pose(inst, k);
        return BSYNC_OK;
    }
    bsync_trs* dst = instance_scratch_pose(inst, b);
    const bsync_sample_plan* plan = g->plan_use[gs->index] ? g->plans[gs->index] : NULL;
    bsync_sample_cursor* cursor = instance_cursor_of(inst, b);
    const bsync_trs* rest = bsync_skeleton_rest_pose(g->skeleton);
    const bsync_loop_mode mode = once ? BSYNC_LOOP_CLAMP : BSYNC_LOOP_WRAP;
    bsync_result r;
    if (g->pose_rule == 2u) /* rule 2: the lerped samples, normalised once in blend_slots */
        r = plan ? bsync_clip_sample_planned_lerp(plan, clip, seconds, mode, cursor, dst)
                 : bsync_clip_sample_lerp(clip, seconds, mode, rest, g->joint_count, cursor, dst);
    else
        r = plan ? bsync_clip_sample_planned(plan, clip, seconds, mode, cursor, dst)
                 : bsync_clip_sample(clip, seconds, mode, rest, g->joint_count, cursor, dst);
    if (r != BSYNC_OK) return r;
    ev->sampled |= bit;
    ev->src[b] = (uint8_t)b;
    ev->seconds[b] = seconds;
    *out = dst;
    return BSYNC_OK;
}

/* Samples every bound slot with contribution > 0 (slot_sample) and blends them (the remainder to the
 * rest pose): under pose rule 2 (graph.h) the lerped samples with bsync_pose_blend_lerped, so the pose
 * out of here has normalised rotations under both rules, and everything after it is the same. */
static bsync_result blend_slots(bsync_instance* inst, const fix16_t* contrib, bsync_trs* out_local,
                                eval_samples* ev) {
    const bsync_graph* g = inst->graph;
    const uint32_t J = g->joint_count;
    const bsync_trs* rest = bsync_skeleton_rest_pose(g->skeleton);
    bsync_pose_input inputs[BSYNC_MAX_BLEND_POSES];
    uint32_t count = 0;
    for (uint32_t b = 0; b < g->bound_count; b++) {
        const fix16_t c = contrib[g->bound_slot[b]];
        if (c <= 0) continue;
        const bsync_trs* pose = NULL;
        bsync_result r = slot_sample(inst, b, ev, &pose);
        if (r != BSYNC_OK) return r;
        inputs[count].local = pose;
        inputs[count].weight = c > 64 * BSYNC_FX_ONE ? 64 * BSYNC_FX_ONE : c;
        inputs[count].joint_weights = NULL;
        count++;
    }
    if (g->pose_rule == 2u) return bsync_pose_blend_lerped(rest, J, count ? inputs : NULL, count, out_local);
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

/* Applies the layer stack to out_local (docs/instance.md "Layers"). On entry out_local is blend_slots'
 * pose for base_contrib; `ev` is that evaluation's samples (slot_sample). A layer whose
 * contributions equal base_contrib has exactly that pose as its layer pose: while out_local still
 * holds it (no earlier layer changed it), it is used directly instead of being blended again.
 * An override layer of weight exactly 1.0 is a per-joint choice: its blend below gives every joint one
 * input of weight 1.0 (the layer pose where the mask is 1.0, out_local where it is 0: fx_mul(1.0, m)
 * is m for m in {0, 1.0}, and build_layers makes every mask value one of the two; without a mask
 * out_local's weight is 0), and bsync_pose_blend copies a single input of weight 1.0 bit for bit
 * (pose.h). So that blend is done as the copy it is, and it is skipped when the layer pose is
 * out_local itself. */
static bsync_result apply_layers(bsync_instance* inst, bsync_trs* out_local, const fix16_t* base_contrib,
                                 eval_samples* ev) {
    const bsync_graph* g = inst->graph;
    const uint32_t J = g->joint_count;
    const bsync_trs* rest = bsync_skeleton_rest_pose(g->skeleton);
    bsync_trs* layer = instance_scratch_pose(inst, g->bound_count + 1u);
    bsync_trs* combined = instance_scratch_pose(inst, g->bound_count + 2u);
    const layer_area a = layer_caches(inst);
    int pure = 1; /* out_local is still the pose of base_contrib */
    for (uint32_t i = 0; i < g->layer_count; i++) {
        const graph_layer* l = &g->layers[i];
        const fix16_t w = layer_weight(inst, l);
        if (w <= 0) continue; /* not sampled; the pose is unchanged */
        instance_flatten_from(inst, l->node, a.mass, a.contrib);
        const bsync_trs* lpose = layer;
        bsync_result r = BSYNC_OK;
        if (pure && same_bound_contrib(g, a.contrib, base_contrib)) lpose = out_local; /* the same pose */
        else r = blend_slots(inst, a.contrib, layer, ev);
        if (r != BSYNC_OK) return r;
        const fix16_t* mask = l->has_mask ? &g->layer_masks[(size_t)i * J] : NULL;
        if (l->mode == (uint32_t)BSYNC_LAYER_OVERRIDE && w == BSYNC_FX_ONE) { /* a per-joint choice (above) */
            if (lpose == out_local) continue; /* every joint keeps its value: still the base pose */
            if (!mask) bsync_pose_copy(out_local, lpose, J);
            else
                for (uint32_t j = 0; j < J; j++)
                    if (mask[j] == BSYNC_FX_ONE) out_local[j] = lpose[j];
            pure = 0;
            continue;
        }
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
bsync_result instance_blend_base(bsync_instance* inst, bsync_trs* out_local) {
    const bsync_graph* g = inst->graph;
    if (!g->skeleton) return BSYNC_MISMATCH;
    const bsync_trs* rest = bsync_skeleton_rest_pose(g->skeleton);
    const fix16_t* contrib = CARR(inst, fix16_t, off_contrib);
    eval_samples ev; /* this evaluation's samples (slot_sample) */
    ev.sampled = 0;
    bsync_result r = blend_slots(inst, contrib, out_local, &ev);
    if (r != BSYNC_OK) return r;
    if (g->layer_count > 0) {
        r = apply_layers(inst, out_local, contrib, &ev);
        if (r != BSYNC_OK) return r;
    }
    /* root motion (docs/instance.md "Root motion"): the root joint keeps what was not extracted */
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
            const bsync_quat swing = bsync_quat_mul(bsync_quat_conj(instance_yaw_twist(x->r)), x->r);
            x->r = bsync_quat_mul(instance_yaw_twist(rest[rj].r), swing);
        }
    }
    return BSYNC_OK;
}

/* Adds switch i's decayed offset to pose (docs/instance.md "Inertialization"). */
void instance_inert_apply_one(bsync_instance* inst, uint32_t i, bsync_trs* pose) {
    const inert_area a = instance_inert_of(inst);
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
            const fix16_t th = instance_inert_angle(oq);
            const fix16_t fr = bsync_instance_inertia_curve(e, T, th, vr);
            const bsync_vec3 axis = bsync_vec3_make(oq.x, oq.y, oq.z);
            d = fr >= BSYNC_FX_ONE ? oq : bsync_quat_from_axis_angle(axis, bsync_fx_mul(th, fr));
        }
        pose[j].r = bsync_quat_mul(d, pose[j].r);
    }
}

/* The pose every pose call reports: instance_blend_base, then every active inertialization in switch order. */
bsync_result instance_blend_local(bsync_instance* inst, bsync_trs* out_local) {
    bsync_result r = instance_blend_base(inst, out_local);
    if (r != BSYNC_OK || !instance_can_inertialize(inst->graph)) return r;
    const inert_area a = instance_inert_of(inst);
    for (uint32_t i = 0; i < inst->graph->switch_count; i++)
        if (a.st[i].active) instance_inert_apply_one(inst, i, out_local);
    return BSYNC_OK;
}

bsync_result bsync_instance_pose(bsync_instance* inst, bsync_trs* out_local, bsync_trs* out_model) {
    if (!instance_valid(inst) || !out_local) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (!g->skeleton) return BSYNC_MISMATCH;
    bsync_result r = instance_blend_local(inst, out_local);
    if (r != BSYNC_OK || !out_model) return r;
    return bsync_pose_local_to_model(bsync_skeleton_parents(g->skeleton), g->joint_count, out_local, 0,
                                     g->joint_count, out_model);
}

bsync_result bsync_instance_joint_query(bsync_instance* inst, const uint32_t* joints, uint32_t count,
                                        bsync_trs* out_model) {
    if (!instance_valid(inst) || (count > 0 && (!joints || !out_model))) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (!g->skeleton) return BSYNC_MISMATCH;
    for (uint32_t i = 0; i < count; i++)
        if (joints[i] >= g->joint_count) return BSYNC_INVALID_ARGUMENT;
    bsync_trs* local = instance_scratch_pose(inst, g->bound_count);
    bsync_result r = instance_blend_local(inst, local);
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
    if (!instance_valid(inst) || !out) return BSYNC_INVALID_ARGUMENT;
    const bsync_graph* g = inst->graph;
    if (!g->skeleton) return BSYNC_MISMATCH;
    bsync_trs* local = instance_scratch_pose(inst, g->bound_count);
    bsync_result r = instance_blend_local(inst, local);
    if (r != BSYNC_OK) return r;
    *out = bsync_checksum_pose(local, g->joint_count);
    if (out_per_joint) bsync_checksum_pose_joints(local, g->joint_count, out_per_joint);
    return BSYNC_OK;
}
