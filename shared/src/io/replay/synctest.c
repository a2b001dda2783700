/* synctest.c — the sync test (io/synctest.h): rewind, re-simulate, compare; adapters for an instance
 * and a match. Edge code: allocates through the allocator. */
#include "blendsync/io/synctest.h"

#include <string.h>

#include "internal/alloc.h"
#include "blendsync/checksum.h"

#define RING_MOD (BSYNC_SYNCTEST_MAX_DISTANCE + 1u)
#define KINDS 3u

const char* bsync_synctest_kind_name(uint32_t kind) {
    switch (kind) {
    case BSYNC_SYNCTEST_REWIND: return "rewind";
    case BSYNC_SYNCTEST_FRESH_A5: return "fresh-0xA5";
    case BSYNC_SYNCTEST_FRESH_5A: return "fresh-0x5A";
    default: return "unknown";
    }
}

typedef struct run_ctx {
    const bsync_synctest_ops* ops;
    bsync_synctest_report* rep;
    uint32_t d;
    size_t cap;                     /* bytes of one snapshot slot */
    unsigned char* snaps;           /* (d + 1) * cap */
    size_t snap_len[RING_MOD];      /* per slot: bytes saved */
    uint64_t sums[RING_MOD];        /* per slot: C[k] of the state in it */
    uint64_t reported[KINDS][RING_MOD]; /* k + 1 when (k, kind) is already listed/counted */
} run_ctx;

static unsigned char* slot_buf(run_ctx* c, uint64_t k) {
    return c->snaps + (size_t)(k % (c->d + 1u)) * c->cap;
}

static bsync_result save_state(run_ctx* c, void* sim, uint64_t k) {
    const size_t need = c->ops->snapshot_size(c->ops->user, sim);
    if (need > c->cap) return BSYNC_BUFFER_TOO_SMALL;
    bsync_result r = c->ops->save(c->ops->user, sim, slot_buf(c, k), c->cap);
    if (r != BSYNC_OK) return r;
    c->snap_len[k % (c->d + 1u)] = need;
    return BSYNC_OK;
}

static void compare(run_ctx* c, void* sim, uint64_t k, uint64_t n, uint32_t kind) {
    const uint64_t got = c->ops->checksum(c->ops->user, sim);
    const uint64_t expected = c->sums[k % (c->d + 1u)];
    bsync_synctest_report* rep = c->rep;
    rep->comparisons++;
    if (got == expected) return;
    rep->failed_comparisons++;
    uint64_t* seen = &c->reported[kind][k % RING_MOD];
    if (*seen == k + 1u) return;
    *seen = k + 1u;
    if (rep->listed < BSYNC_SYNCTEST_MAX_LISTED) {
        bsync_synctest_mismatch* m = &rep->mismatches[rep->listed++];
        m->tick = k;
        m->checked_at = n;
        m->kind = kind;
        m->reserved = 0;
        m->expected = expected;
        m->got = got;
    }
    rep->mismatch_count++;
}

/* Load the snapshot of state n - D into sim, compare, re-simulate D ticks comparing each state. */
static bsync_result resimulate(run_ctx* c, void* sim, uint64_t n, uint32_t kind) {
    const uint64_t from = n - c->d;
    bsync_result r = c->ops->load(c->ops->user, sim, slot_buf(c, from), c->snap_len[from % (c->d + 1u)]);
    if (r != BSYNC_OK) return r;
    compare(c, sim, from, n, kind);
    for (uint64_t t = from; t < n; t++) {
        r = c->ops->tick(c->ops->user, sim, t);
        if (r != BSYNC_OK) return r;
        compare(c, sim, t + 1u, n, kind);
    }
    return BSYNC_OK;
}

bsync_result bsync_synctest_run(const bsync_synctest_ops* ops, uint64_t ticks, uint32_t check_distance,
                                uint32_t flags, bsync_synctest_report* report, const bsync_allocator* allocator) {
    if (report) memset(report, 0, sizeof *report);
    if (!ops || !report || !ops->init || !ops->tick || !ops->checksum || !ops->snapshot_size || !ops->save ||
        !ops->load || ops->state_size == 0 || check_distance < 1 || check_distance > BSYNC_SYNCTEST_MAX_DISTANCE ||
        (flags & ~BSYNC_SYNCTEST_POISON_FRESH) != 0)
        return BSYNC_INVALID_ARGUMENT;
    report->check_distance = check_distance;
    const int fresh = (flags & BSYNC_SYNCTEST_POISON_FRESH) != 0;
    const bsync_allocator al = bsync_allocator_resolve(allocator);
    const size_t state_size = ops->state_size;

    run_ctx* c = (run_ctx*)bsync_allocator_alloc(&al, sizeof *c);
    void* sim = bsync_allocator_alloc(&al, state_size);
    void* fresh_mem = fresh ? bsync_allocator_alloc(&al, state_size) : NULL;
    bsync_result r = BSYNC_OK;
    if (!c || !sim || (fresh && !fresh_mem)) {
        r = BSYNC_OUT_OF_MEMORY;
        goto done;
    }
    memset(c, 0, sizeof *c);
    c->ops = ops;
    c->rep = report;
    c->d = check_distance;

    memset(sim, 0, state_size);
    r = ops->init(ops->user, sim, state_size);
    if (r != BSYNC_OK) goto done;
    c->cap = ops->snapshot_size(ops->user, sim);
    if (c->cap == 0) {
        r = BSYNC_INVALID_ARGUMENT;
        goto done;
    }
    if (c->cap > (SIZE_MAX - 8u) / (check_distance + 1u)) {
        r = BSYNC_OUT_OF_MEMORY;
        goto done;
    }
    c->snaps = (unsigned char*)bsync_allocator_alloc(&al, c->cap * (check_distance + 1u));
    if (!c->snaps) {
        r = BSYNC_OUT_OF_MEMORY;
        goto done;
    }
    c->sums[0] = ops->checksum(ops->user, sim);
    report->last_checksum = c->sums[0];
    r = save_state(c, sim, 0);
    if (r != BSYNC_OK) goto done;

    for (uint64_t n = 1; n <= ticks; n++) {
        report->error_tick = n;
        r = ops->tick(ops->user, sim, n - 1u);
        if (r != BSYNC_OK) goto done;
        report->ticks_run++;
        c->sums[n % (check_distance + 1u)] = ops->checksum(ops->user, sim);
        report->last_checksum = c->sums[n % (check_distance + 1u)];
        r = save_state(c, sim, n);
        if (r != BSYNC_OK) goto done;
        if (n < check_distance) continue;
        report->ticks_checked++;
        r = resimulate(c, sim, n, BSYNC_SYNCTEST_REWIND);
        if (r != BSYNC_OK) goto done;
        if (fresh) {
            static const unsigned char pattern[2] = {0xA5u, 0x5Au};
            for (uint32_t p = 0; p < 2u; p++) {
                memset(fresh_mem, pattern[p], state_size);
                r = ops->init(ops->user, fresh_mem, state_size);
                if (r != BSYNC_OK) goto done;
                r = resimulate(c, fresh_mem, n, p == 0 ? BSYNC_SYNCTEST_FRESH_A5 : BSYNC_SYNCTEST_FRESH_5A);
                if (r != BSYNC_OK) goto done;
            }
        }
        /* back to the forward run's state n */
        r = ops->load(ops->user, sim, slot_buf(c, n), c->snap_len[n % (check_distance + 1u)]);
        if (r != BSYNC_OK) goto done;
    }
    report->error_tick = 0;
done:
    if (c) {
        if (c->snaps) bsync_allocator_free(&al, c->snaps, c->cap * (check_distance + 1u));
        bsync_allocator_free(&al, c, sizeof *c);
    }
    bsync_allocator_free(&al, sim, state_size);
    bsync_allocator_free(&al, fresh_mem, state_size);
    return r;
}

/* ------------------------------------------------------------------ instance adapter */

static bsync_result inst_init(void* user, void* mem, size_t size) {
    bsync_synctest_instance* a = (bsync_synctest_instance*)user;
    bsync_instance* inst = NULL;
    return bsync_instance_init(mem, size, a->graph, &inst);
}

static bsync_result inst_tick(void* user, void* sim, uint64_t t) {
    bsync_synctest_instance* a = (bsync_synctest_instance*)user;
    const uint32_t pc = bsync_graph_parameter_count(a->graph);
    uint32_t tn = 0;
    bsync_result r = a->input(a->input_user, t, a->targets, a->triggers, &tn);
    if (r != BSYNC_OK) return r;
    if (tn > BSYNC_GRAPH_MAX_SWITCHES) return BSYNC_INVALID_ARGUMENT;
    bsync_instance_input in = {a->targets, pc};
    return bsync_instance_tick_ex((bsync_instance*)sim, &in, a->triggers, tn);
}

static uint64_t inst_checksum(void* user, void* sim) {
    bsync_synctest_instance* a = (bsync_synctest_instance*)user;
    bsync_instance* inst = (bsync_instance*)sim;
    const uint64_t state = bsync_instance_state_checksum(inst);
    if (!a->with_pose) return state;
    uint64_t pose = 0;
    if (bsync_instance_pose_checksum(inst, &pose, NULL) != BSYNC_OK) pose = 0; /* checked at setup */
    bsync_checksum_state hs;
    bsync_checksum_init(&hs, 0);
    bsync_checksum_u64(&hs, state);
    bsync_checksum_u64(&hs, pose);
    return bsync_checksum_final(&hs);
}

/* The u64 length in front of an adapter's snapshot, little-endian. */
static void put_len(void* buf, size_t n) {
    unsigned char* p = (unsigned char*)buf;
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)((uint64_t)n >> (8 * i));
}
static uint64_t get_len(const void* buf) {
    const unsigned char* p = (const unsigned char*)buf;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* An instance snapshot's length varies (version 3 while an inertialization runs: instance.h), so the
 * adapter's buffer is a u64 length followed by the blob, sized for the largest blob. */
static size_t inst_snapshot_size(void* user, void* sim) {
    (void)sim;
    return 8u + bsync_instance_snapshot_size_max(((bsync_synctest_instance*)user)->graph);
}

static bsync_result inst_save(void* user, void* sim, void* buf, size_t cap) {
    (void)user;
    if (cap < 8u) return BSYNC_BUFFER_TOO_SMALL;
    size_t n = 0;
    bsync_result r = bsync_instance_save((const bsync_instance*)sim, (unsigned char*)buf + 8, cap - 8u, &n);
    if (r != BSYNC_OK) return r;
    put_len(buf, n);
    return BSYNC_OK;
}

static bsync_result inst_load(void* user, void* sim, const void* buf, size_t len) {
    (void)user;
    if (len < 8u) return BSYNC_BAD_BLOB;
    const uint64_t n = get_len(buf);
    if (n > len - 8u) return BSYNC_BAD_BLOB;
    return bsync_instance_load((bsync_instance*)sim, (const unsigned char*)buf + 8, (size_t)n);
}

bsync_result bsync_synctest_instance_ops(bsync_synctest_instance* a, bsync_synctest_ops* out) {
    if (!a || !out || !a->graph || !a->input) return BSYNC_INVALID_ARGUMENT;
    if (a->with_pose && !bsync_graph_skeleton(a->graph)) return BSYNC_MISMATCH;
    memset(out, 0, sizeof *out);
    out->user = a;
    out->state_size = bsync_instance_memory_size(a->graph);
    out->init = inst_init;
    out->tick = inst_tick;
    out->checksum = inst_checksum;
    out->snapshot_size = inst_snapshot_size;
    out->save = inst_save;
    out->load = inst_load;
    return BSYNC_OK;
}

/* ------------------------------------------------------------------ match adapter */

static bsync_result match_init(void* user, void* mem, size_t size) {
    bsync_synctest_match* a = (bsync_synctest_match*)user;
    bsync_match* m = NULL;
    return bsync_match_init(mem, size, a->desc, &m);
}

static bsync_result match_tick(void* user, void* sim, uint64_t t) {
    bsync_synctest_match* a = (bsync_synctest_match*)user;
    memset(&a->frame, 0, sizeof a->frame);
    a->frame.player_count = a->desc->player_count;
    bsync_result r = a->frame_fn(a->frame_user, t, &a->frame);
    if (r != BSYNC_OK) return r;
    return bsync_match_tick((bsync_match*)sim, &a->frame);
}

static uint64_t match_checksum(void* user, void* sim) {
    bsync_synctest_match* a = (bsync_synctest_match*)user;
    bsync_match_checksums cs;
    memset(&cs, 0, sizeof cs);
    if (bsync_match_get_checksums((bsync_match*)sim, a->with_poses ? 1 : 0, &cs) != BSYNC_OK) return 0;
    if (!a->with_poses) return cs.blend;
    bsync_checksum_state hs;
    bsync_checksum_init(&hs, 0);
    bsync_checksum_u64(&hs, cs.blend);
    bsync_checksum_u64(&hs, cs.pose);
    return bsync_checksum_final(&hs);
}

/* A match snapshot's length varies with its characters' states (match.h), so the adapter's buffer is a
 * u64 length (little-endian) followed by the snapshot, sized for the largest one. */
static size_t match_snapshot_size(void* user, void* sim) {
    (void)user;
    return 8u + bsync_match_snapshot_size_max((const bsync_match*)sim);
}

static bsync_result match_save(void* user, void* sim, void* buf, size_t cap) {
    (void)user;
    if (cap < 8u) return BSYNC_BUFFER_TOO_SMALL;
    size_t n = 0;
    bsync_result r = bsync_match_save((const bsync_match*)sim, (unsigned char*)buf + 8, cap - 8u, &n);
    if (r != BSYNC_OK) return r;
    put_len(buf, n);
    return BSYNC_OK;
}

static bsync_result match_load(void* user, void* sim, const void* buf, size_t len) {
    (void)user;
    if (len < 8u) return BSYNC_BAD_BLOB;
    const uint64_t n = get_len(buf);
    if (n > len - 8u) return BSYNC_BAD_BLOB;
    return bsync_match_load((bsync_match*)sim, (const unsigned char*)buf + 8, (size_t)n);
}

bsync_result bsync_synctest_match_ops(bsync_synctest_match* a, bsync_synctest_ops* out) {
    if (!a || !out || !a->desc || !a->frame_fn) return BSYNC_INVALID_ARGUMENT;
    if (bsync_match_desc_validate(a->desc) != BSYNC_OK) return BSYNC_INVALID_ARGUMENT;
    memset(out, 0, sizeof *out);
    out->user = a;
    out->state_size = bsync_match_memory_size(a->desc);
    out->init = match_init;
    out->tick = match_tick;
    out->checksum = match_checksum;
    out->snapshot_size = match_snapshot_size;
    out->save = match_save;
    out->load = match_load;
    return BSYNC_OK;
}
