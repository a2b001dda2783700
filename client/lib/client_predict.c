/* client_predict.c — prediction and rollback (blendsync/client_predict.h, docs/prediction.md): a second
 * match ahead of the confirmed one. The confirmed match (client.c) is the snapshot a rollback restores
 * (bsync_match_state_copy: the per-tick state without the caches); the frames each predicted tick used are kept so
 * that a confirmed frame can be compared with its prediction. Nothing here allocates after create. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/client_predict.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/present.h"
#include "client_internal.h"
#include "client_predict_internal.h"
#include "platform.h" /* aligned allocation */

#define PRED_RING 64u   /* predicted frames kept: > BSYNC_CLIENT_PREDICT_WINDOW_MAX */
#define LOCAL_RING 128u /* local inputs by tick: the input lead is at most d + 32 ticks */

struct cl_predict {
    bsync_client_predict_config cfg; /* defaults applied */
    void* mem;
    bsync_match* match; /* the predicted match */
    void* check_mem;
    bsync_match* check; /* synctest: the same span simulated again from the confirmed state */
    size_t size;
    uint32_t tick;      /* the predicted match's tick count */
    int valid;          /* it descends from the confirmed match by the frames in used[] */
    int dirty;          /* a confirmed frame contradicted used[]: roll back at the next update */
    bsync_match_frame used[PRED_RING];
    uint32_t used_tick[PRED_RING];
    bsync_match_input local[LOCAL_RING];
    uint32_t local_tick[LOCAL_RING];
    uint32_t local_upto; /* one past the newest local input's tick (0: none) */
    bsync_match_frame last; /* the guess for every player from the newest confirmed frame */
    uint8_t prev_trig[BSYNC_MATCH_MAX_PLAYERS][BSYNC_MATCH_MAX_TRIGGERS]; /* the newest confirmed triggers */
    int have_last;
    bsync_client_predict_stats st;
    /* the shown pose (bsync_client_predict_present): roots accumulated, correction offsets */
    uint32_t chars, joints;
    uint32_t joint_first[BSYNC_MATCH_MAX_CHARACTERS + 1u];
    bsync_vec3 croot[BSYNC_MATCH_MAX_CHARACTERS]; /* accumulated root of the confirmed match */
    bsync_quat crot[BSYNC_MATCH_MAX_CHARACTERS];
    bsync_vec3 proot[BSYNC_MATCH_MAX_CHARACTERS]; /* ... of the predicted match */
    bsync_quat prot[BSYNC_MATCH_MAX_CHARACTERS];
    bsync_vec3 root_off[BSYNC_MATCH_MAX_CHARACTERS];
    bsync_trs* off;     /* per joint: shown = off o raw (rotation and translation) */
    bsync_trs* before;  /* the pose before a rollback */
    bsync_trs* after;   /* ... and after it, at the same tick */
    void* scratch;
    size_t scratch_size;
    int presenting;     /* bsync_client_predict_present was called: corrections are measured */
    uint32_t wait_at;   /* 1 + the confirmed tick of the last window wait counted */
    bsync_present_clock clock; /* the predicted match's presentation clock (transport time) */
};

static void root_identity(bsync_vec3* t, bsync_quat* r, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        t[i] = bsync_vec3_make(0, 0, 0);
        r[i] = bsync_quat_identity();
    }
}

bsync_result cl_predict_create(bsync_client* c, cl_predict** out) {
    *out = NULL;
    const bsync_client_predict_config* in = &c->cfg.predict;
    if (!in->enabled) return BSYNC_OK;
    if (in->rollback_window > BSYNC_CLIENT_PREDICT_WINDOW_MAX || in->local_delay > BSYNC_CLIENT_PREDICT_WINDOW_MAX)
        return BSYNC_INVALID_ARGUMENT;
    cl_predict* p = calloc(1, sizeof *p);
    if (!p) return BSYNC_OUT_OF_MEMORY;
    p->cfg = *in;
    if (!p->cfg.rollback_window) p->cfg.rollback_window = BSYNC_CLIENT_PREDICT_WINDOW_DEFAULT;
    if (!p->cfg.smooth_ticks) p->cfg.smooth_ticks = 2;
    if (!p->cfg.teleport_distance) p->cfg.teleport_distance = BSYNC_FX_ONE;
    p->size = c->match_size;
    p->mem = bsync_platform_aligned_alloc(16, p->size);
    if (p->cfg.synctest) p->check_mem = bsync_platform_aligned_alloc(16, p->size);
    if (!p->mem || (p->cfg.synctest && !p->check_mem) ||
        bsync_match_init(p->mem, p->size, c->cfg.desc, &p->match) != BSYNC_OK ||
        (p->check_mem && bsync_match_init(p->check_mem, p->size, c->cfg.desc, &p->check) != BSYNC_OK)) {
        cl_predict_destroy(p);
        return BSYNC_OUT_OF_MEMORY;
    }
    const bsync_match_desc* d = c->cfg.desc;
    p->chars = d->character_count;
    for (uint32_t i = 0; i < p->chars; i++) {
        p->joint_first[i] = p->joints;
        p->joints += bsync_graph_joint_count(d->characters[i].graph);
    }
    p->joint_first[p->chars] = p->joints;
    p->scratch_size = bsync_present_match_scratch_size(p->match);
    p->off = malloc(sizeof *p->off * (p->joints ? p->joints : 1u));
    p->before = malloc(sizeof *p->before * (p->joints ? p->joints : 1u));
    p->after = malloc(sizeof *p->after * (p->joints ? p->joints : 1u));
    p->scratch = bsync_platform_aligned_alloc(16, p->scratch_size ? p->scratch_size : 16u);
    if (!p->off || !p->before || !p->after || !p->scratch) {
        cl_predict_destroy(p);
        return BSYNC_OUT_OF_MEMORY;
    }
    for (uint32_t j = 0; j < p->joints; j++) p->off[j] = bsync_trs_identity();
    bsync_present_clock_init(&p->clock, 0);
    root_identity(p->croot, p->crot, p->chars);
    root_identity(p->proot, p->prot, p->chars);
    for (uint32_t i = 0; i < PRED_RING; i++) p->used_tick[i] = UINT32_MAX;
    for (uint32_t i = 0; i < LOCAL_RING; i++) p->local_tick[i] = UINT32_MAX;
    *out = p;
    return BSYNC_OK;
}

void cl_predict_destroy(cl_predict* p) {
    if (!p) return;
    bsync_platform_aligned_free(p->mem);
    bsync_platform_aligned_free(p->check_mem);
    bsync_platform_aligned_free(p->scratch);
    free(p->off);
    free(p->before);
    free(p->after);
    free(p);
}

/* ---- the rings */

void cl_predict_local(bsync_client* c, uint32_t tick, const bsync_match_input* input) {
    cl_predict* p = c ? c->predict : NULL;
    if (!p) return;
    p->local[tick % LOCAL_RING] = *input;
    p->local_tick[tick % LOCAL_RING] = tick;
    if (tick + 1u > p->local_upto) p->local_upto = tick + 1u;
    cl_predict_update(c);
}

/* Equal inputs for the frame's players (the used parameters and triggers only). */
static int same_frame(const bsync_match_desc* d, const bsync_match_frame* a, const bsync_match_frame* b) {
    for (uint32_t i = 0; i < d->player_count; i++) {
        if (memcmp(a->players[i].params, b->players[i].params, sizeof(fix16_t) * d->param_count) != 0) return 0;
        if (memcmp(a->players[i].triggers, b->players[i].triggers, d->trigger_count) != 0) return 0;
    }
    return 1;
}

/* Adds each character's root motion of the tick just simulated to an accumulated root. */
static void accumulate_roots(const bsync_match* m, uint32_t chars, bsync_vec3* t, bsync_quat* r) {
    for (uint32_t i = 0; i < chars; i++) {
        bsync_root_motion rm;
        if (bsync_instance_root_motion(bsync_match_instance_const(m, i), &rm) != BSYNC_OK) continue;
        t[i] = bsync_vec3_add(t[i], bsync_quat_rotate(r[i], rm.translation));
        r[i] = bsync_quat_normalize(bsync_quat_mul(r[i], rm.rotation));
    }
}

void cl_predict_confirmed(bsync_client* c, uint32_t tick, const bsync_match_frame* frame) {
    cl_predict* p = c ? c->predict : NULL;
    if (!p) return;
    const bsync_match_desc* d = c->cfg.desc;
    accumulate_roots(c->match, p->chars, p->croot, p->crot);
    if (p->valid && !p->dirty && tick < p->tick && p->used_tick[tick % PRED_RING] == tick &&
        !same_frame(d, frame, &p->used[tick % PRED_RING])) {
        p->dirty = 1;
        p->st.mispredicted_frames++;
    }
    /* the guess: the newest confirmed input; a trigger only when it was held (the same value in the last
     * two confirmed frames): a one-shot trigger is not repeated */
    for (uint32_t i = 0; i < d->player_count; i++) {
        const bsync_match_input* in = &frame->players[i];
        bsync_match_input* g = &p->last.players[i];
        for (uint32_t j = 0; j < d->trigger_count; j++)
            g->triggers[j] = p->have_last && in->triggers[j] && in->triggers[j] == p->prev_trig[i][j] ? in->triggers[j] : 0;
        memcpy(g->params, in->params, sizeof g->params);
        memcpy(p->prev_trig[i], in->triggers, sizeof p->prev_trig[i]);
    }
    p->last.player_count = frame->player_count;
    p->have_last = 1;
}

void cl_predict_reset(bsync_client* c) {
    cl_predict* p = c ? c->predict : NULL;
    if (!p) return;
    p->valid = 0;
    p->dirty = 0;
    root_identity(p->croot, p->crot, p->chars); /* a snapshot carries no accumulated root: start over */
}

/* The frame a predicted tick uses: the confirmed one when it is here, else every other player's last
 * confirmed input (triggers cleared) and the local input sent for the tick (the last one repeated,
 * triggers cleared, when none went to this tick: what the server does with a missing input). */
static void guess(const bsync_client* c, const cl_predict* p, uint32_t tick, bsync_match_frame* f) {
    const ring_frame* r = &c->frames[tick % FRAME_RING];
    if (r->valid && r->tick == tick) {
        *f = r->frame;
        return;
    }
    const bsync_match_desc* d = c->cfg.desc;
    memset(f, 0, sizeof *f);
    f->player_count = d->player_count;
    if (p->have_last)
        for (uint32_t i = 0; i < d->player_count; i++) f->players[i] = p->last.players[i];
    const uint32_t s = c->cfg.slot;
    if (p->local_tick[tick % LOCAL_RING] == tick) {
        f->players[s] = p->local[tick % LOCAL_RING];
        return;
    }
    for (uint32_t back = 1; back < LOCAL_RING && back <= tick; back++) { /* the newest earlier one */
        const uint32_t k = (tick - back) % LOCAL_RING;
        if (p->local_tick[k] == tick - back) { /* the server repeats it without triggers (a defaulted input) */
            f->players[s] = p->local[k];
            memset(f->players[s].triggers, 0, sizeof f->players[s].triggers);
            return;
        }
    }
}

static int step(bsync_client* c, cl_predict* p) {
    bsync_match_frame* f = &p->used[p->tick % PRED_RING];
    guess(c, p, p->tick, f);
    if (bsync_match_tick(p->match, f) != BSYNC_OK) return -1;
    p->used_tick[p->tick % PRED_RING] = p->tick;
    accumulate_roots(p->match, p->chars, p->proot, p->prot);
    p->tick++;
    return 0;
}

/* The predicted match's poses at `alpha` into out; -1 when they cannot be computed. */
static int pose_of(cl_predict* p, fix16_t alpha, bsync_trs* out) {
    return bsync_present_match(p->match, alpha, p->scratch, p->scratch_size, out, NULL, NULL) == BSYNC_OK ? 0 : -1;
}

/* After a rollback re-simulated to the tick shown before it (root_before: the roots then), or after a
 * forward tick (root_before NULL: `before` is the previous state extrapolated by one tick): shown =
 * off o raw stays continuous, so off takes up the difference (before o after^-1 per joint, before -
 * after for roots); a character whose root moved more than the teleport distance drops its offsets
 * instead. Only rollbacks are counted. */
static void take_correction(cl_predict* p, fix16_t alpha, const bsync_vec3* root_before) {
    if (pose_of(p, alpha, p->after) != 0) return;
    for (uint32_t i = 0; i < p->chars; i++) {
        const bsync_vec3 dr = root_before ? bsync_vec3_sub(root_before[i], p->proot[i]) : bsync_vec3_make(0, 0, 0);
        int changed = dr.x || dr.y || dr.z;
        for (uint32_t j = p->joint_first[i]; j < p->joint_first[i + 1u] && !changed; j++)
            changed = memcmp(&p->before[j].r, &p->after[j].r, sizeof p->after[j].r) ||
                      memcmp(&p->before[j].t, &p->after[j].t, sizeof p->after[j].t);
        if (!changed) continue; /* this character was predicted right */
        const int teleport = bsync_vec3_length(dr) > p->cfg.teleport_distance;
        if (root_before && teleport) p->st.corrections_teleported++;
        else if (root_before) p->st.corrections_smoothed++;
        p->root_off[i] = teleport ? bsync_vec3_make(0, 0, 0) : bsync_vec3_add(p->root_off[i], dr);
        for (uint32_t j = p->joint_first[i]; j < p->joint_first[i + 1u]; j++) {
            if (teleport) {
                p->off[j] = bsync_trs_identity();
                continue;
            }
            const bsync_quat dq = bsync_quat_mul(p->before[j].r, bsync_quat_conj(p->after[j].r));
            p->off[j].r = bsync_quat_normalize(bsync_quat_mul(p->off[j].r, dq));
            p->off[j].t = bsync_vec3_add(p->off[j].t, bsync_vec3_sub(p->before[j].t, p->after[j].t));
        }
    }
}

/* Re-simulate the span confirmed .. p->tick - 1 in the check match with the frames used and compare
 * (the sync test over prediction). */
static void synctest(bsync_client* c, cl_predict* p) {
    const uint32_t from = c->next_frame;
    if (!p->check || p->tick <= from) return;
    if (bsync_match_state_copy(p->check, c->match) != BSYNC_OK) memcpy(p->check_mem, c->match_mem, p->size);
    for (uint32_t t = from; t < p->tick; t++) {
        if (p->used_tick[t % PRED_RING] != t || bsync_match_tick(p->check, &p->used[t % PRED_RING]) != BSYNC_OK) return;
    }
    bsync_match_checksums a, b;
    if (bsync_match_get_checksums(p->match, c->cfg.compute_poses, &a) != BSYNC_OK ||
        bsync_match_get_checksums(p->check, c->cfg.compute_poses, &b) != BSYNC_OK)
        return;
    p->st.synctest_checks++;
    if (a.blend != b.blend || a.pose != b.pose) p->st.synctest_mismatches++;
}

/* The alpha the predicted match is shown at now (its presentation clock). */
static fix16_t shown_alpha(const bsync_client* c, cl_predict* p) {
    return p->clock.started ? bsync_present_clock_alpha(&p->clock, 1000u * c->transport.now_us(c->transport.user)) : 0;
}

void cl_predict_update(bsync_client* c) {
    cl_predict* p = c ? c->predict : NULL;
    if (!p) return;
    if (!c->have_state || c->incoming_kind >= 0) {
        p->valid = 0;
        return;
    }
    const uint32_t confirmed = c->next_frame;
    const uint32_t w = p->cfg.rollback_window;
    uint32_t target = p->local_upto > p->cfg.local_delay ? p->local_upto - p->cfg.local_delay : 0;
    if (target > confirmed + w) {
        target = confirmed + w; /* beyond the window: wait for confirmations */
        if (p->wait_at != confirmed + 1u) p->st.window_waits++; /* once per confirmed tick held back */
        p->wait_at = confirmed + 1u;
    }
    if (!p->valid || p->dirty || p->tick < confirmed) {
        const uint32_t shown = p->valid ? p->tick : 0;
        const int rollback = p->valid && p->dirty && p->tick > confirmed;
        /* the correction is measured where the screen is: at the clock's alpha within the shown tick, or
         * at its end (alpha 1) when this update also moves on to the next tick, whose boundary step is
         * taken from there (measured at alpha 0 instead, a remote move that began in the shown tick
         * would pop at that boundary) */
        const fix16_t at = target > shown ? BSYNC_FX_ONE : shown_alpha(c, p);
        const int measure = rollback && p->presenting && pose_of(p, at, p->before) == 0;
        bsync_vec3 root_before[BSYNC_MATCH_MAX_CHARACTERS];
        if (measure) memcpy(root_before, p->proot, sizeof root_before[0] * p->chars);
        /* restore the confirmed state: only the per-tick state (match.h "rollback state"); the whole
         * memory when the two matches do not share graphs and layout */
        if (bsync_match_state_copy(p->match, c->match) != BSYNC_OK) memcpy(p->mem, c->match_mem, p->size);
        memcpy(p->proot, p->croot, sizeof p->proot[0] * p->chars);
        memcpy(p->prot, p->crot, sizeof p->prot[0] * p->chars);
        p->tick = confirmed;
        p->valid = 1;
        p->dirty = 0;
        if (rollback) {
            const uint32_t depth = shown - confirmed;
            p->st.rollbacks++;
            p->st.depth_histogram[depth <= BSYNC_CLIENT_PREDICT_WINDOW_MAX ? depth : BSYNC_CLIENT_PREDICT_WINDOW_MAX]++;
            if (depth > p->st.depth_max) p->st.depth_max = depth;
            while (p->tick < shown)
                if (step(c, p) != 0) {
                    p->valid = 0;
                    return;
                } else {
                    p->st.resimulated_ticks++;
                }
            if (measure) take_correction(p, at, root_before);
        }
    } else if (p->check) {
        synctest(c, p);
    }
    /* one tick forward while shown: its boundary step (a trigger's first fade step, held weights) is
     * absorbed like a correction, against the previous state extrapolated by a tick */
    const int boundary = p->presenting && p->tick + 1u == target &&
                         bsync_present_match(p->match, BSYNC_FX_ONE, p->scratch, p->scratch_size, p->before, NULL, NULL) ==
                             BSYNC_OK;
    while (p->tick < target) {
        if (step(c, p) != 0) {
            p->valid = 0;
            return;
        }
        p->st.predicted_ticks++;
    }
    if (boundary) take_correction(p, 0, NULL);
    if (p->clock.tick != p->tick || !p->clock.started) {
        p->clock.tick_rate = c->tick_rate;
        bsync_present_clock_frame(&p->clock, p->tick, 1000u * c->transport.now_us(c->transport.user));
    }
}

fix16_t bsync_client_predict_alpha(bsync_client* c) {
    if (!c) return 0;
    cl_predict* p = c->predict;
    if (!p || !p->valid) return bsync_client_present_alpha(c);
    cl_predict_update(c);
    return bsync_present_clock_alpha(&p->clock, 1000u * c->transport.now_us(c->transport.user));
}

/* ---- the public calls */

bsync_match* bsync_client_predict_match(bsync_client* c) {
    if (!c) return NULL;
    cl_predict* p = c->predict;
    if (!p) return c->match;
    cl_predict_update(c);
    return p->valid ? p->match : c->match;
}

uint32_t bsync_client_predict_tick(const bsync_client* c) {
    if (!c) return 0;
    if (c->predict && c->predict->valid) return c->predict->tick;
    return c->match ? (uint32_t)bsync_match_tick_count(c->match) : 0;
}

void bsync_client_predict_get_stats(const bsync_client* c, bsync_client_predict_stats* out) {
    if (!c || !out) return;
    memset(out, 0, sizeof *out);
    if (c->predict) *out = c->predict->st;
    out->confirmed_tick = c->next_frame;
    out->predicted_tick = bsync_client_predict_tick(c);
}

uint32_t bsync_client_predict_depth_quantile(const bsync_client_predict_stats* s, uint32_t permille) {
    if (!s || !s->rollbacks) return 0;
    const uint64_t need = (s->rollbacks * (permille > 1000u ? 1000u : permille) + 999u) / 1000u;
    uint64_t sum = 0;
    for (uint32_t d = 0; d <= BSYNC_CLIENT_PREDICT_WINDOW_MAX; d++) {
        sum += s->depth_histogram[d];
        if (sum >= need && sum > 0) return d;
    }
    return BSYNC_CLIENT_PREDICT_WINDOW_MAX;
}

/* 0.5^(frame_ns / (half_ticks ticks)) in fix16: what is left of an offset after a shown frame. */
static fix16_t decay(uint64_t frame_ns, uint32_t half_ticks, uint32_t tick_rate) {
    if (!tick_rate || !half_ticks) return 0;
    const uint64_t half_ns = 1000000000ull * half_ticks / tick_rate;
    const uint64_t e = frame_ns >= half_ns * 16u ? 16u * 65536u : frame_ns * 65536u / half_ns; /* halvings, fix16 */
    const uint32_t whole = (uint32_t)(e >> 16);
    const fix16_t f = (fix16_t)(e & 0xFFFFu);
    /* 2^-f on [0, 1): 1 - 0.6931 f + 0.2402 f^2 - 0.0555 f^3 (within 1e-4) */
    fix16_t r = BSYNC_FX_ONE - bsync_fx_mul(f, 45426) + bsync_fx_mul(bsync_fx_mul(f, f), 15743) -
                bsync_fx_mul(bsync_fx_mul(bsync_fx_mul(f, f), f), 3638);
    return whole >= 16u ? 0 : (fix16_t)(r >> whole);
}

bsync_result bsync_client_predict_present(bsync_client* c, fix16_t alpha, uint64_t frame_ns, void* scratch,
                                          size_t scratch_size, bsync_trs* out_local, bsync_root_motion* out_root) {
    if (!c || !out_local) return BSYNC_INVALID_ARGUMENT;
    bsync_match* m = bsync_client_predict_match(c);
    bsync_result r = bsync_present_match(m, alpha, scratch, scratch_size, out_local, NULL, NULL);
    if (r != BSYNC_OK) return r;
    cl_predict* p = c->predict;
    if (!p) {
        if (out_root)
            for (uint32_t i = 0; i < bsync_match_character_count(m); i++) {
                out_root[i].translation = bsync_vec3_make(0, 0, 0);
                out_root[i].rotation = bsync_quat_identity();
            }
        return BSYNC_OK;
    }
    p->presenting = 1;
    const fix16_t k = decay(frame_ns, p->cfg.smooth_ticks, c->tick_rate);
    for (uint32_t j = 0; j < p->joints; j++) {
        p->off[j].r = bsync_quat_nlerp(bsync_quat_identity(), p->off[j].r, k);
        p->off[j].t = bsync_vec3_scale(p->off[j].t, k);
        out_local[j].r = bsync_quat_normalize(bsync_quat_mul(p->off[j].r, out_local[j].r));
        out_local[j].t = bsync_vec3_add(out_local[j].t, p->off[j].t);
    }
    for (uint32_t i = 0; i < p->chars; i++) {
        p->root_off[i] = bsync_vec3_scale(p->root_off[i], k);
        if (out_root) {
            out_root[i].translation = bsync_vec3_add(p->valid ? p->proot[i] : p->croot[i], p->root_off[i]);
            out_root[i].rotation = p->valid ? p->prot[i] : p->crot[i];
        }
    }
    return BSYNC_OK;
}
