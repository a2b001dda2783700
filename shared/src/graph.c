/* graph.c — building the immutable graph definition and its canonical hash (see blendsync/graph.h).
 *
 * Block layout: struct bsync_graph, then 8-aligned arrays in this order: clips, motion_length, filters,
 * param_kind, nodes, slots, param_refs, topo, clock_steps, clock_slot, bound_slot, bound_cursor_bytes,
 * root_tracks, layers, layer_masks, switches, plans (motion_count pointers), plan_use, then the sample plans
 * themselves (one per distinct clip, over the skeleton's rest pose; each 8-aligned), then the actions
 * area (graph_actions.c; empty for a graph without actions).
 * Every byte is zeroed before it is filled. */
#include "blendsync/graph.h"

#include "blendsync/checksum.h"
#include "blendsync/sample.h"
#include "internal/blend_space_impl.h"
#include "internal/graph_impl.h"

static size_t align8(size_t v) { return (v + 7u) & ~(size_t)7u; }

static uint32_t name_len(const char* s) {
    uint32_t n = 0;
    while (s[n] != '\0' && n < BSYNC_MAX_NAME) n++;
    return n;
}

static void feed_name(bsync_checksum_state* c, const char* s) {
    uint32_t n = name_len(s);
    bsync_checksum_u32(c, n);
    bsync_checksum_bytes(c, s, n);
}

/* The lowest motion index bound to the same clip as motion m (m itself when it is the first): motions
 * bound to one clip share its sample plan. */
static uint32_t first_motion_of(const bsync_clip* const* clips, uint32_t m) {
    for (uint32_t k = 0; k < m; k++)
        if (clips[k] == clips[m]) return k;
    return m;
}

/* Do all tracks of the clip have track 0's key times (the grid on which bsync_clip_sample with a
 * cursor searches the keys once per call, sample.h)? Only a speed choice: both ways give the same bits. */
static int clip_shares_times(const bsync_clip* c) {
    const uint32_t n = bsync_clip_track_count(c);
    bsync_track_info t0, ti;
    /* a compact clip's track info has no key pointers (clip.h): it samples through its plan */
    if (bsync_clip_encoding(c) != 0) return 0;
    if (n == 0 || bsync_clip_track_info(c, 0, &t0) != BSYNC_OK) return 0;
    for (uint32_t i = 1; i < n; i++) {
        if (bsync_clip_track_info(c, i, &ti) != BSYNC_OK || ti.key_count != t0.key_count) return 0;
        for (uint32_t k = 0; k < ti.key_count; k++)
            if (ti.times[k] != t0.times[k]) return 0;
    }
    return 1;
}

static int filter_desc_is_zero(const bsync_param_filter_desc* d) {
    return d->dead_zone == 0 && d->dead_zone_range == 0 && d->curve == NULL && d->smooth_time == 0 &&
           d->max_speed == 0 && d->pair == 0;
}

typedef struct graph_plan {
    uint32_t P, M, N, S, C, B, L, J, W;
    size_t off_clips, off_len, off_filters, off_kind, off_nodes, off_slots, off_refs, off_topo;
    size_t off_steps, off_clock_slot, off_bound_slot, off_cursor, off_root_tracks, off_layers, off_masks, off_switches;
    size_t off_plans, off_plan_use, off_plan_mem, plan_bytes, off_actions, action_bytes, total;
    uint32_t refs;
    const bsync_graph_layer_desc* layers;
    const bsync_graph_switch_desc* switches;
} graph_plan;

static void plan_layout(graph_plan* p) {
    size_t off = align8(sizeof(struct bsync_graph));
    p->off_clips = off; off = align8(off + (size_t)p->M * sizeof(const bsync_clip*));
    p->off_len = off; off = align8(off + (size_t)p->M * sizeof(fix16_t));
    p->off_filters = off; off = align8(off + (size_t)p->P * sizeof(bsync_param_filter));
    p->off_kind = off; off = align8(off + (size_t)p->P * sizeof(uint32_t));
    p->off_nodes = off; off = align8(off + (size_t)p->N * sizeof(graph_node));
    p->off_slots = off; off = align8(off + (size_t)p->S * sizeof(graph_slot));
    p->off_refs = off; off = align8(off + (size_t)p->refs * sizeof(uint32_t));
    p->off_topo = off; off = align8(off + (size_t)p->N * sizeof(uint32_t));
    p->off_steps = off; off = align8(off + (size_t)p->C * sizeof(bsync_time_step));
    p->off_clock_slot = off; off = align8(off + (size_t)p->C * sizeof(uint32_t));
    p->off_bound_slot = off; off = align8(off + (size_t)p->B * sizeof(uint32_t));
    p->off_cursor = off; off = align8(off + (size_t)p->B * sizeof(uint64_t));
    p->off_root_tracks = off; off = align8(off + (size_t)p->M * 2u * sizeof(uint32_t));
    p->off_layers = off; off = align8(off + (size_t)p->L * sizeof(graph_layer));
    p->off_masks = off; off = align8(off + (size_t)p->L * p->J * sizeof(fix16_t));
    p->off_switches = off; off = align8(off + (size_t)p->W * sizeof(graph_switch));
    p->off_plans = off; off = align8(off + (size_t)p->M * sizeof(const bsync_sample_plan*));
    p->off_plan_use = off; off = align8(off + (size_t)p->M);
    p->off_plan_mem = off; off += p->plan_bytes; /* a sum of 8-aligned sizes */
    p->off_actions = off; off = align8(off + p->action_bytes); /* graph_actions.c (0 without actions) */
    p->total = off;
}

/* Everything that can fail before allocating. */
static bsync_result validate(const bsync_graph_desc* d, graph_plan* p) {
    if (!d || !d->tree) return BSYNC_INVALID_ARGUMENT;
    if (d->tick_rate < BSYNC_GRAPH_MIN_TICK_RATE || d->tick_rate > BSYNC_GRAPH_MAX_TICK_RATE)
        return BSYNC_BAD_TICK_RATE;
    /* root motion (graph.h) */
    if (d->root_motion != BSYNC_ROOT_MOTION_KEEP && d->root_motion != BSYNC_ROOT_MOTION_EXTRACT &&
        d->root_motion != BSYNC_ROOT_MOTION_NONE)
        return BSYNC_INVALID_ARGUMENT;
    if (d->pose_rule != 0 && d->pose_rule != BSYNC_POSE_RULE_NORMALIZED && d->pose_rule != BSYNC_POSE_RULE_LERPED)
        return BSYNC_INVALID_ARGUMENT;
    if (d->root_rotation != BSYNC_ROOT_ROTATION_YAW && d->root_rotation != BSYNC_ROOT_ROTATION_FULL)
        return BSYNC_INVALID_ARGUMENT;
    if (d->skeleton && d->root_joint >= bsync_skeleton_joint_count(d->skeleton)) return BSYNC_INVALID_ARGUMENT;
    if (!d->skeleton && d->root_motion != BSYNC_ROOT_MOTION_KEEP) return BSYNC_INVALID_ARGUMENT;
    const bsync_blend_tree* t = d->tree;
    p->P = bsync_blend_tree_parameter_count(t);
    p->M = bsync_blend_tree_motion_count(t);
    p->N = bsync_blend_tree_node_count(t);
    p->S = p->C = p->B = p->refs = 0;
    p->plan_bytes = 0;
    if (d->clips) {
        for (uint32_t m = 0; m < p->M; m++) {
            const bsync_clip* c = d->clips[m];
            if (!c) continue;
            if (!d->skeleton) return BSYNC_INVALID_ARGUMENT;
            if (bsync_clip_joint_count(c) != bsync_skeleton_joint_count(d->skeleton)) return BSYNC_MISMATCH;
            if (first_motion_of(d->clips, m) == m) p->plan_bytes += align8(bsync_sample_plan_memory_size(c));
        }
    }
    if (d->filters) {
        for (uint32_t i = 0; i < p->P; i++) {
            bsync_param_filter f;
            bsync_result r = bsync_param_filter_init(&f, &d->filters[i], d->tick_rate);
            if (r != BSYNC_OK) return BSYNC_INVALID_ARGUMENT;
            if (d->filters[i].pair) {
                if (i + 1 >= p->P || !filter_desc_is_zero(&d->filters[i + 1])) return BSYNC_INVALID_ARGUMENT;
                i++; /* the partner is covered */
            }
        }
    }
    for (uint32_t n = 0; n < p->N; n++) {
        uint32_t cc = bsync_blend_tree_node_child_count(t, n);
        const bsync_graph_node_options* o = d->node_options ? &d->node_options[n] : NULL;
        if (o && o->sync != BSYNC_SYNC_NORMALIZED && o->sync != BSYNC_SYNC_NONE) return BSYNC_INVALID_ARGUMENT;
        for (uint32_t c = 0; c < cc; c++) {
            if (o && o->time_scales &&
                (o->time_scales[c] < BSYNC_GRAPH_MIN_TIME_SCALE || o->time_scales[c] > BSYNC_GRAPH_MAX_TIME_SCALE))
                return BSYNC_INVALID_ARGUMENT;
            if (o && o->cycle_offsets && (o->cycle_offsets[c] < 0 || o->cycle_offsets[c] >= BSYNC_FX_ONE))
                return BSYNC_INVALID_ARGUMENT;
            bsync_blend_child_ref ref = bsync_blend_tree_node_child(t, n, c);
            if (ref.kind == BSYNC_CHILD_MOTION) {
                if (o && o->sync == BSYNC_SYNC_NONE) p->C++;
                if (d->clips && d->clips[ref.index]) p->B++;
            }
        }
        p->S += cc;
        p->refs += bsync_blend_tree_node_param_count(t, n);
    }
    if (p->B > BSYNC_MAX_BLEND_POSES) return BSYNC_LIMIT_EXCEEDED;
    p->J = d->skeleton ? bsync_skeleton_joint_count(d->skeleton) : 0;
    if (p->L > 0) {
        if (!p->layers || !d->skeleton) return BSYNC_INVALID_ARGUMENT;
        if (p->L > BSYNC_GRAPH_MAX_LAYERS) return BSYNC_LIMIT_EXCEEDED;
        for (uint32_t i = 0; i < p->L; i++) {
            const bsync_graph_layer_desc* l = &p->layers[i];
            if (l->node >= p->N) return BSYNC_INVALID_ARGUMENT;
            if (l->mode != BSYNC_LAYER_OVERRIDE && l->mode != BSYNC_LAYER_ADDITIVE) return BSYNC_INVALID_ARGUMENT;
            if (l->weight_source == BSYNC_LAYER_WEIGHT_FIXED) {
                if (l->weight < 0 || l->weight > BSYNC_FX_ONE) return BSYNC_INVALID_ARGUMENT;
            } else if (l->weight_source == BSYNC_LAYER_WEIGHT_PARAM) {
                if (l->weight_param >= p->P) return BSYNC_INVALID_ARGUMENT;
            } else {
                return BSYNC_INVALID_ARGUMENT;
            }
            if (l->mask_count > BSYNC_MAX_JOINTS) return BSYNC_LIMIT_EXCEEDED;
            if (l->mask_count > 0 && !l->mask) return BSYNC_INVALID_ARGUMENT;
            for (uint32_t k = 0; k < l->mask_count; k++)
                if (l->mask[k].joint >= p->J || l->mask[k].include_descendants > 1u) return BSYNC_INVALID_ARGUMENT;
        }
    }
    if (p->W > 0) {
        if (!p->switches) return BSYNC_INVALID_ARGUMENT;
        if (p->W > BSYNC_GRAPH_MAX_SWITCHES) return BSYNC_LIMIT_EXCEEDED;
        for (uint32_t i = 0; i < p->W; i++) {
            const bsync_graph_switch_desc* w = &p->switches[i];
            if (w->node >= p->N) return BSYNC_INVALID_ARGUMENT;
            const bsync_graph_node_options* o = d->node_options ? &d->node_options[w->node] : NULL;
            if (!o || o->sync != BSYNC_SYNC_NONE) return BSYNC_INVALID_ARGUMENT;
            if (w->initial_child >= bsync_blend_tree_node_child_count(t, w->node)) return BSYNC_INVALID_ARGUMENT;
            for (uint32_t k = 0; k < i; k++)
                if (p->switches[k].node == w->node) return BSYNC_INVALID_ARGUMENT;
        }
    }
    bsync_result ar;
    p->action_bytes = graph_actions_validate(d, p->M, p->S, &ar);
    if (ar != BSYNC_OK) return ar;
    plan_layout(p);
    return BSYNC_OK;
}

static void feed_canonical(void* ctx, const unsigned char* bytes, size_t n) {
    bsync_checksum_bytes((bsync_checksum_state*)ctx, bytes, n);
}

static void compute_hash(struct bsync_graph* g, const bsync_graph_desc* d) {
    const bsync_blend_tree* t = g->tree;
    bsync_checksum_state c;
    bsync_checksum_init(&c, BSYNC_CHECKSUM_SEED_GRAPH);
    const int markers = g->marker_count > 0 || g->has_marker_sync;
    bsync_checksum_u32(&c, markers ? 8u : g->curve_count > 0 ? 7u : g->has_actions ? 6u : g->pose_rule == 2u ? 5u : g->switch_count > 0 ? 4u : 3u); /* format */
    bsync_checksum_u32(&c, g->tick_rate);
    bsync_checksum_u32(&c, g->param_count);
    for (uint32_t i = 0; i < g->param_count; i++) {
        feed_name(&c, bsync_blend_tree_parameter_name(t, i));
        bsync_checksum_fx(&c, bsync_blend_tree_parameter_default(t, i));
        bsync_param_filter_desc z = {0, 0, NULL, 0, 0, 0};
        const bsync_param_filter_desc* f = d->filters ? &d->filters[i] : &z;
        int smooth = f->smooth_time > 0;
        bsync_checksum_fx(&c, f->dead_zone);
        bsync_checksum_fx(&c, f->dead_zone_range == 0 ? BSYNC_FX_ONE : f->dead_zone_range);
        bsync_checksum_u32(&c, f->curve ? 1u : 0u);
        if (f->curve) bsync_curve_checksum_feed(f->curve, &c);
        bsync_checksum_fx(&c, smooth ? f->smooth_time : 0);
        bsync_checksum_fx(&c, smooth && f->max_speed > 0 ? f->max_speed : 0);
        bsync_checksum_u32(&c, g->param_kind[i]);
    }
    bsync_checksum_u32(&c, g->motion_count);
    for (uint32_t m = 0; m < g->motion_count; m++) {
        feed_name(&c, bsync_blend_tree_motion_name(t, m));
        bsync_checksum_u32(&c, g->clips[m] ? 1u : 0u);
        if (g->clips[m]) bsync_checksum_u64(&c, bsync_checksum_clip(g->clips[m]));
    }
    bsync_checksum_u32(&c, g->node_count);
    bsync_checksum_u32(&c, g->root);
    for (uint32_t n = 0; n < g->node_count; n++) {
        const graph_node* gn = &g->nodes[n];
        feed_name(&c, bsync_blend_tree_node_name(t, n));
        bsync_checksum_u32(&c, gn->sync);
        bsync_checksum_u32(&c, gn->param_count);
        for (uint32_t k = 0; k < gn->param_count; k++) bsync_checksum_u32(&c, g->param_refs[gn->first_param + k]);
        bsync_checksum_u32(&c, gn->child_count);
        for (uint32_t k = 0; k < gn->child_count; k++) {
            const graph_slot* s = &g->slots[gn->first_slot + k];
            bsync_checksum_u32(&c, s->kind);
            bsync_checksum_u32(&c, s->index);
            bsync_checksum_fx(&c, s->time_scale);
            bsync_checksum_fx(&c, s->cycle_offset);
        }
        /* the blend space block after its header, field by field little-endian (on little-endian hosts
         * the same bytes as its memory, which is what this hashed before; big-endian hosts agree) */
        const bsync_blend_space* sp = bsync_blend_tree_node_space(t, n);
        const bsync_block_header* h = (const bsync_block_header*)(const void*)sp;
        uint64_t bytes = h->block_size > sizeof(bsync_block_header) ? h->block_size - sizeof(bsync_block_header) : 0;
        bsync_checksum_u64(&c, bytes);
        if (bytes) {
            const bsync_canon_sink sink = {feed_canonical, &c};
            bsync_blend_space_canonical_(sp, &sink);
        }
    }
    bsync_checksum_u64(&c, g->skeleton ? bsync_checksum_skeleton(g->skeleton) : 0u);
    bsync_checksum_u32(&c, g->root_motion);
    bsync_checksum_u32(&c, g->root_rotation);
    bsync_checksum_u32(&c, g->root_joint);
    bsync_checksum_u32(&c, g->layer_count);
    for (uint32_t i = 0; i < g->layer_count; i++) {
        const graph_layer* l = &g->layers[i];
        bsync_checksum_u32(&c, l->node);
        bsync_checksum_u32(&c, l->mode);
        bsync_checksum_u32(&c, l->source);
        bsync_checksum_fx(&c, l->weight);
        bsync_checksum_u32(&c, l->param);
        bsync_checksum_u32(&c, l->has_mask);
        if (l->has_mask)
            for (uint32_t j = 0; j < g->joint_count; j++) bsync_checksum_fx(&c, g->layer_masks[(size_t)i * g->joint_count + j]);
    }
    if (g->switch_count > 0 || g->pose_rule == 2u || g->has_actions) { /* formats 4-6: format 3 as before */
        bsync_checksum_u32(&c, g->switch_count);
        for (uint32_t i = 0; i < g->switch_count; i++) {
            bsync_checksum_u32(&c, g->switches[i].node);
            bsync_checksum_u32(&c, g->switches[i].initial);
        }
    }
    if (g->has_actions) { /* format 6: the pose rule always, then the actions (docs/actions.md "Hash") */
        bsync_checksum_u32(&c, g->pose_rule);
        graph_actions_hash(g, &c);
        if (g->curve_count > 0 || markers) graph_curves_hash(g, &c); /* format 7: the float curves */
        if (markers) graph_markers_hash(g, &c);                       /* format 8: the sync markers */
    } else if (g->pose_rule == 2u) {
        bsync_checksum_u32(&c, 2u); /* format 5: the pose rule (rule 1 graphs hash as before) */
    }
    g->hash = bsync_checksum_final(&c);
}

/* The layers and their mask tables m (graph.h): listed joints, and the descendants of joints listed with
 * include_descendants (parents have lower indices, so one ascending pass sees a parent's flag first). */
static void build_layers(struct bsync_graph* g, const graph_plan* p) {
    const int16_t* parents = p->L ? bsync_skeleton_parents(g->skeleton) : NULL;
    for (uint32_t i = 0; i < p->L; i++) {
        const bsync_graph_layer_desc* d = &p->layers[i];
        graph_layer* l = &g->layers[i];
        l->node = d->node;
        l->mode = (uint32_t)d->mode;
        l->source = (uint32_t)d->weight_source;
        l->weight = d->weight;
        l->param = d->weight_param;
        l->has_mask = d->mask_count > 0 ? 1u : 0u;
        fix16_t* m = &g->layer_masks[(size_t)i * p->J];
        if (!l->has_mask) {
            for (uint32_t j = 0; j < p->J; j++) m[j] = BSYNC_FX_ONE; /* unused (NULL mask), kept defined */
            continue;
        }
        uint8_t listed[BSYNC_MAX_JOINTS], spread[BSYNC_MAX_JOINTS];
        for (uint32_t j = 0; j < p->J; j++) listed[j] = spread[j] = 0;
        for (uint32_t k = 0; k < d->mask_count; k++) {
            listed[d->mask[k].joint] = 1;
            if (d->mask[k].include_descendants) spread[d->mask[k].joint] = 1;
        }
        for (uint32_t j = 0; j < p->J; j++) {
            const int32_t par = parents[j];
            const int inherited = par >= 0 && (uint32_t)par < j && spread[par];
            if (inherited) spread[j] = 1;
            m[j] = listed[j] || inherited ? BSYNC_FX_ONE : 0;
        }
    }
}

static void build(struct bsync_graph* g, const bsync_graph_desc* d, const graph_plan* p) {
    unsigned char* base = (unsigned char*)g;
    const bsync_blend_tree* t = d->tree;
    g->tree = t;
    g->skeleton = d->skeleton;
    g->tick_rate = d->tick_rate;
    g->param_count = p->P;
    g->motion_count = p->M;
    g->node_count = p->N;
    g->slot_count = p->S;
    g->clock_count = p->C;
    g->bound_count = p->B;
    g->joint_count = d->skeleton ? bsync_skeleton_joint_count(d->skeleton) : 0;
    g->root = bsync_blend_tree_root(t);
    g->clips = (const bsync_clip**)(void*)(base + p->off_clips);
    g->motion_length = (fix16_t*)(void*)(base + p->off_len);
    g->filters = (bsync_param_filter*)(void*)(base + p->off_filters);
    g->param_kind = (uint32_t*)(void*)(base + p->off_kind);
    g->nodes = (graph_node*)(void*)(base + p->off_nodes);
    g->slots = (graph_slot*)(void*)(base + p->off_slots);
    g->param_refs = (uint32_t*)(void*)(base + p->off_refs);
    g->topo = (uint32_t*)(void*)(base + p->off_topo);
    g->clock_steps = (bsync_time_step*)(void*)(base + p->off_steps);
    g->clock_slot = (uint32_t*)(void*)(base + p->off_clock_slot);
    g->bound_slot = (uint32_t*)(void*)(base + p->off_bound_slot);
    g->bound_cursor_bytes = (uint64_t*)(void*)(base + p->off_cursor);
    g->root_tracks = (uint32_t*)(void*)(base + p->off_root_tracks);
    g->root_motion = (uint32_t)d->root_motion;
    g->root_rotation = (uint32_t)d->root_rotation;
    g->root_joint = d->root_joint;
    g->pose_rule = d->pose_rule == BSYNC_POSE_RULE_LERPED ? 2u : 1u;
    g->layer_count = p->L;
    g->layer_pad_ = 0;
    g->layers = (graph_layer*)(void*)(base + p->off_layers);
    g->layer_masks = (fix16_t*)(void*)(base + p->off_masks);
    build_layers(g, p);
    g->switch_count = p->W;
    g->switch_pad_ = 0;
    g->switches = (graph_switch*)(void*)(base + p->off_switches);
    for (uint32_t i = 0; i < p->W; i++) {
        g->switches[i].node = p->switches[i].node;
        g->switches[i].initial = p->switches[i].initial_child;
    }

    /* one sample plan per distinct clip over the skeleton's rest pose, shared by every instance's pose
     * (bsync_clip_sample_planned gives bsync_clip_sample's bits for that rest pose: sample.h) */
    g->plans = (const bsync_sample_plan**)(void*)(base + p->off_plans);
    g->plan_use = (uint8_t*)(void*)(base + p->off_plan_use);
    size_t plan_at = p->off_plan_mem;
    for (uint32_t m = 0; m < p->M; m++) {
        const bsync_clip* c = d->clips ? d->clips[m] : NULL;
        g->plans[m] = NULL;
        g->plan_use[m] = 0;
        if (!c) continue;
        const uint32_t first = first_motion_of(d->clips, m);
        if (first != m) {
            g->plans[m] = g->plans[first];
            g->plan_use[m] = g->plan_use[first];
            continue;
        }
        g->plan_use[m] = (uint8_t)!clip_shares_times(c);
        const size_t bytes = align8(bsync_sample_plan_memory_size(c));
        bsync_sample_plan* plan = NULL;
        if (bsync_sample_plan_init(base + plan_at, bytes, c, bsync_skeleton_rest_pose(d->skeleton),
                                   bsync_skeleton_joint_count(d->skeleton), &plan) == BSYNC_OK)
            g->plans[m] = plan; /* else (never for a validated graph) that motion samples without a plan */
        plan_at += bytes;
    }
    for (uint32_t m = 0; m < p->M; m++) {
        const bsync_clip* c = d->clips ? d->clips[m] : NULL;
        g->clips[m] = c;
        fix16_t dur = c ? bsync_clip_duration(c) : 0;
        g->motion_length[m] = dur > 0 ? dur : BSYNC_FX_ONE;
        g->root_tracks[2u * m] = GRAPH_NONE;
        g->root_tracks[2u * m + 1u] = GRAPH_NONE;
        const uint32_t tc = c ? bsync_clip_track_count(c) : 0;
        for (uint32_t k = 0; k < tc; k++) {
            bsync_track_info ti;
            if (bsync_clip_track_info(c, k, &ti) != BSYNC_OK || ti.joint != d->root_joint) continue;
            if (ti.kind == BSYNC_TRACK_TRANSLATION) g->root_tracks[2u * m] = k;
            else if (ti.kind == BSYNC_TRACK_ROTATION) g->root_tracks[2u * m + 1u] = k;
        }
    }
    for (uint32_t i = 0; i < p->P; i++) {
        bsync_param_filter_desc z = {0, 0, NULL, 0, 0, 0};
        const bsync_param_filter_desc* f = d->filters ? &d->filters[i] : &z;
        (void)bsync_param_filter_init(&g->filters[i], f, d->tick_rate); /* validated */
        if (g->param_kind[i] == GRAPH_PARAM_PAIR_SECOND) continue;
        if (f->pair) {
            g->param_kind[i] = GRAPH_PARAM_PAIR_FIRST;
            g->param_kind[i + 1] = GRAPH_PARAM_PAIR_SECOND;
        }
    }
    uint32_t slot = 0, ref = 0, clock = 0, bound = 0, max_children = 0;
    for (uint32_t n = 0; n < p->N; n++) {
        const bsync_graph_node_options* o = d->node_options ? &d->node_options[n] : NULL;
        graph_node* gn = &g->nodes[n];
        gn->first_slot = slot;
        gn->child_count = bsync_blend_tree_node_child_count(t, n);
        gn->first_param = ref;
        gn->param_count = bsync_blend_tree_node_param_count(t, n);
        gn->sync = o ? (uint32_t)o->sync : BSYNC_SYNC_NORMALIZED;
        gn->driver = n;
        gn->offset32 = 0;
        gn->own_scale = BSYNC_FX_ONE;
        if (gn->child_count > max_children) max_children = gn->child_count;
        for (uint32_t k = 0; k < gn->param_count; k++) g->param_refs[ref++] = bsync_blend_tree_node_param(t, n, k);
        for (uint32_t k = 0; k < gn->child_count; k++, slot++) {
            bsync_blend_child_ref cr = bsync_blend_tree_node_child(t, n, k);
            graph_slot* s = &g->slots[slot];
            s->kind = (uint32_t)cr.kind;
            s->index = cr.index;
            s->time_scale = o && o->time_scales ? o->time_scales[k] : BSYNC_FX_ONE;
            s->cycle_offset = o && o->cycle_offsets ? o->cycle_offsets[k] : 0;
            s->offset32 = (uint32_t)s->cycle_offset << 16;
            s->clock = GRAPH_NONE;
            s->bound = GRAPH_NONE;
            s->node = n;
            if (cr.kind == BSYNC_CHILD_MOTION) {
                if (gn->sync == BSYNC_SYNC_NONE) {
                    s->clock = clock;
                    g->clock_slot[clock] = slot;
                    (void)bsync_time_step_init(g->motion_length[cr.index], s->time_scale, d->tick_rate,
                                               &g->clock_steps[clock]); /* length > 0, rate valid */
                    clock++;
                }
                if (g->clips[cr.index]) {
                    s->bound = bound;
                    g->bound_slot[bound] = slot;
                    g->bound_cursor_bytes[bound] = align8(bsync_sample_cursor_memory_size(g->clips[cr.index]));
                    bound++;
                }
            }
        }
    }
    g->max_children = max_children;

    /* Topological order (Kahn, lowest index first) and each node's first parent. */
    uint32_t indeg[BSYNC_MAX_BLEND_NODES], first_parent[BSYNC_MAX_BLEND_NODES], first_slot[BSYNC_MAX_BLEND_NODES];
    for (uint32_t n = 0; n < p->N; n++) { indeg[n] = 0; first_parent[n] = GRAPH_NONE; first_slot[n] = GRAPH_NONE; }
    for (uint32_t s = 0; s < p->S; s++) {
        const graph_slot* gs = &g->slots[s];
        if (gs->kind != BSYNC_CHILD_NODE) continue;
        indeg[gs->index]++;
        if (first_parent[gs->index] == GRAPH_NONE) { first_parent[gs->index] = gs->node; first_slot[gs->index] = s; }
    }
    uint32_t count = 0;
    uint8_t done[BSYNC_MAX_BLEND_NODES];
    for (uint32_t n = 0; n < p->N; n++) done[n] = 0;
    while (count < p->N) { /* acyclic (the tree checked it), so each pass places at least one node */
        for (uint32_t n = 0; n < p->N; n++) {
            if (done[n] || indeg[n] != 0) continue;
            done[n] = 1;
            g->topo[count++] = n;
            const graph_node* gn = &g->nodes[n];
            for (uint32_t k = 0; k < gn->child_count; k++) {
                const graph_slot* gs = &g->slots[gn->first_slot + k];
                if (gs->kind == BSYNC_CHILD_NODE) indeg[gs->index]--;
            }
            break;
        }
    }
    for (uint32_t i = 0; i < p->N; i++) {
        uint32_t n = g->topo[i];
        uint32_t par = first_parent[n];
        if (n == g->root || par == GRAPH_NONE) continue;
        const graph_slot* gs = &g->slots[first_slot[n]];
        if (g->nodes[par].sync == BSYNC_SYNC_NORMALIZED) {
            g->nodes[n].driver = g->nodes[par].driver;
            g->nodes[n].offset32 = g->nodes[par].offset32 + gs->offset32; /* wraps mod 2^32 */
        } else {
            g->nodes[n].own_scale = gs->time_scale;
        }
    }
    graph_actions_build(g, d, base + p->off_actions);
    compute_hash(g, d);
}

bsync_result bsync_graph_create(const bsync_graph_desc* desc, const bsync_allocator* allocator, bsync_graph** out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    graph_plan p;
    p.L = desc ? desc->layer_count : 0;
    p.layers = desc ? desc->layers : NULL;
    p.W = desc ? desc->switch_count : 0;
    p.switches = desc ? desc->switches : NULL;
    bsync_result r = validate(desc, &p);
    if (r != BSYNC_OK) return r;
    bsync_allocator a = bsync_allocator_resolve(allocator);
    void* mem = bsync_allocator_alloc(&a, p.total);
    if (!mem) return BSYNC_OUT_OF_MEMORY;
    unsigned char* b = (unsigned char*)mem;
    for (size_t i = 0; i < p.total; i++) b[i] = 0;
    struct bsync_graph* g = (struct bsync_graph*)mem;
    g->head.magic = 0x46524742u; /* "BGRF" */
    g->head.version = 1u;
    g->head.block_size = p.total;
    build(g, desc, &p);
    g->head.alloc.allocator = a;
    *out = g;
    return BSYNC_OK;
}

void bsync_graph_destroy(bsync_graph* graph) { bsync_block_destroy(graph ? &graph->head : NULL); }

uint64_t bsync_graph_hash(const bsync_graph* g) { return g ? g->hash : 0; }
const bsync_blend_tree* bsync_graph_tree(const bsync_graph* g) { return g ? g->tree : NULL; }
const bsync_skeleton* bsync_graph_skeleton(const bsync_graph* g) { return g ? g->skeleton : NULL; }
uint32_t bsync_graph_tick_rate(const bsync_graph* g) { return g ? g->tick_rate : 0; }
uint32_t bsync_graph_parameter_count(const bsync_graph* g) { return g ? g->param_count : 0; }
uint32_t bsync_graph_motion_count(const bsync_graph* g) { return g ? g->motion_count : 0; }
uint32_t bsync_graph_node_count(const bsync_graph* g) { return g ? g->node_count : 0; }
uint32_t bsync_graph_joint_count(const bsync_graph* g) { return g ? g->joint_count : 0; }
const bsync_clip* bsync_graph_motion_clip(const bsync_graph* g, uint32_t m) {
    return g && m < g->motion_count ? g->clips[m] : NULL;
}
fix16_t bsync_graph_motion_length(const bsync_graph* g, uint32_t m) {
    return g && m < g->motion_count ? g->motion_length[m] : 0;
}
bsync_root_motion_mode bsync_graph_root_motion(const bsync_graph* g) {
    return g ? (bsync_root_motion_mode)g->root_motion : BSYNC_ROOT_MOTION_KEEP;
}
bsync_root_motion_rotation bsync_graph_root_rotation(const bsync_graph* g) {
    return g ? (bsync_root_motion_rotation)g->root_rotation : BSYNC_ROOT_ROTATION_YAW;
}
uint32_t bsync_graph_root_joint(const bsync_graph* g) { return g ? g->root_joint : 0; }
bsync_pose_rule bsync_graph_pose_rule(const bsync_graph* g) {
    return g && g->pose_rule == 2u ? BSYNC_POSE_RULE_LERPED : BSYNC_POSE_RULE_NORMALIZED;
}
uint32_t bsync_graph_layer_count(const bsync_graph* g) { return g ? g->layer_count : 0; }
uint32_t bsync_graph_switch_count(const bsync_graph* g) { return g ? g->switch_count : 0; }
uint32_t bsync_graph_switch_node(const bsync_graph* g, uint32_t sw) {
    return g && sw < g->switch_count ? g->switches[sw].node : UINT32_MAX;
}
bsync_result bsync_graph_find_joint(const bsync_graph* g, const char* name, uint32_t* out) {
    if (!g || !name || !out || !g->skeleton) return BSYNC_INVALID_ARGUMENT;
    return bsync_skeleton_find(g->skeleton, name, out);
}
