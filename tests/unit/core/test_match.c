/* test_match.c — the deterministic match simulation (match.h) on the procedural humanoid.
 *
 * Expectations are independent of match.c: a reference world of plain bsync_instance objects ticked by
 * this file with the targets the contract prescribes (tree defaults at start, mapped inputs overwrite in
 * input order, unmapped parameters keep their default, triggers v -> child v - 1 with the mapped fade),
 * a splitmix64 written here (checked against the published test vector), root checksums, the desc hash
 * and the snapshot layout rebuilt field by field from the documented feed orders.
 * Covered: every desc rule (INVALID_ARGUMENT, memory size 0, hash 0), init memory errors; mapping
 * equivalence over 300 ticks (swapped, unmapped, duplicate maps, NPCs); root blend/pose checksums; the
 * seeded script (values, holds, min = max, full-range parameter, hold 1 and 1000000); NPC = player fed
 * the same records; triggers (order, fade, ignored values); hash sensitivity; snapshots (replay from tick
 * 137, layout, every byte flip, every truncation, field checks with a resealed trailer, all-or-nothing,
 * other desc -> MISMATCH); two matches never interfere; a memcpy'd match ticks identically; per-joint
 * checksums. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/match.h"
#include "blendsync/procedural.h"
#include "test_support.h"

enum { J = 23 };
#define UNM BSYNC_MATCH_UNMAPPED
#define NPC BSYNC_MATCH_NPC

/* ------------------------------------------------------------------ splitmix64 (reference) */

static uint64_t sm64(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------------ fixtures */

static bsync_procedural_humanoid g_h;
static bsync_blend_tree *g_tree_a, *g_tree_b, *g_tree_s;
static bsync_graph *g_a, *g_a60, *g_a2, *g_b, *g_s, *g_nosk;

#define A_SPEED_DEFAULT ((fix16_t)65536) /* 1.0 */
#define B_X_DEFAULT ((fix16_t)16384)     /* 0.25 */
#define B_SPEED_DEFAULT ((fix16_t)49152) /* 0.75 */

/* Tree A: param "speed" (default 1.0); root Simple1D(speed) over idle 0, walk 1.4, run 3.5. */
static bsync_blend_tree* make_tree_a(const char* node_name, fix16_t def) {
    static const char* pn[1] = {"speed"};
    static const char* mn[3] = {"idle", "walk", "run"};
    static const fix16_t th[3] = {BSYNC_PROCEDURAL_SPEED_IDLE, BSYNC_PROCEDURAL_SPEED_WALK, BSYNC_PROCEDURAL_SPEED_RUN};
    static const bsync_blend_child_ref ch[3] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    static const uint32_t p[1] = {0};
    fix16_t defaults[1] = {def};
    bsync_blend_node_desc n;
    memset(&n, 0, sizeof n);
    n.name = node_name;
    n.space.type = BSYNC_BLEND_SIMPLE_1D;
    n.space.child_count = 3;
    n.space.thresholds = th;
    n.children = ch;
    n.params = p;
    bsync_blend_tree_desc td = {pn, defaults, 1, mn, 3, &n, 1, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

/* Tree B: params "x" (0.25), "speed" (0.75); root FreeformCartesian2D(x, speed) over idle (0, 0),
 * walk (-1, 1.4), run (1, 3.5). */
static bsync_blend_tree* make_tree_b(void) {
    static const char* pn[2] = {"x", "speed"};
    static const char* mn[3] = {"idle", "walk", "run"};
    static const fix16_t defaults[2] = {B_X_DEFAULT, B_SPEED_DEFAULT};
    static const bsync_vec2 pos[3] = {{0, 0}, {-65536, BSYNC_PROCEDURAL_SPEED_WALK}, {65536, BSYNC_PROCEDURAL_SPEED_RUN}};
    static const bsync_blend_child_ref ch[3] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    static const uint32_t p[2] = {0, 1};
    bsync_blend_node_desc n;
    memset(&n, 0, sizeof n);
    n.name = "plane";
    n.space.type = BSYNC_BLEND_FREEFORM_CARTESIAN_2D;
    n.space.child_count = 3;
    n.space.positions = pos;
    n.children = ch;
    n.params = p;
    bsync_blend_tree_desc td = {pn, defaults, 2, mn, 3, &n, 1, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

static bsync_graph* make_graph(const bsync_blend_tree* tree, uint32_t rate, fix16_t smooth0, fix16_t smooth1,
                               int skeleton, int switch_none) {
    bsync_param_filter_desc f[2];
    memset(f, 0, sizeof f);
    f[0].smooth_time = smooth0;
    f[1].smooth_time = smooth1;
    const bsync_clip* clips[3] = {g_h.clips[0], g_h.clips[1], g_h.clips[2]};
    bsync_graph_node_options opt[1];
    memset(opt, 0, sizeof opt);
    opt[0].sync = BSYNC_SYNC_NONE;
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    d.tree = tree;
    d.skeleton = skeleton ? g_h.skeleton : NULL;
    d.clips = skeleton ? clips : NULL;
    d.tick_rate = rate;
    d.filters = f;
    d.node_options = switch_none ? opt : NULL;
    bsync_graph_switch_desc sw = {0, 0};
    d.switches = &sw;
    d.switch_count = switch_none ? 1u : 0u;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_OK);
    return g;
}

static int setup(void** state) {
    (void)state;
    if (bsync_procedural_humanoid_create(NULL, &g_h) != BSYNC_OK) return -1;
    g_tree_a = make_tree_a("loco", A_SPEED_DEFAULT);
    g_tree_b = make_tree_b();
    g_tree_s = make_tree_a("sw", 0);
    g_a = make_graph(g_tree_a, 30, 19661 /* 0.3 s */, 0, 1, 0);
    g_a60 = make_graph(g_tree_a, 60, 19661, 0, 1, 0);
    g_a2 = make_graph(g_tree_a, 30, 13107 /* 0.2 s */, 0, 1, 0);
    g_b = make_graph(g_tree_b, 30, 0, 13107, 1, 0);
    g_s = make_graph(g_tree_s, 30, 0, 0, 1, 1);
    g_nosk = make_graph(g_tree_a, 30, 19661, 0, 0, 0);
    return 0;
}

static int teardown(void** state) {
    (void)state;
    bsync_graph_destroy(g_a);
    bsync_graph_destroy(g_a60);
    bsync_graph_destroy(g_a2);
    bsync_graph_destroy(g_b);
    bsync_graph_destroy(g_s);
    bsync_graph_destroy(g_nosk);
    bsync_blend_tree_destroy(g_tree_a);
    bsync_blend_tree_destroy(g_tree_b);
    bsync_blend_tree_destroy(g_tree_s);
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

/* ------------------------------------------------------------------ descs */

typedef struct mdesc {
    bsync_match_desc d;
    bsync_match_character_desc ch[BSYNC_MATCH_MAX_CHARACTERS];
} mdesc;

/* 2 players; inputs: 0 = speed in [-0.5, 4.5], 1 = x in [-1.5, 1.5]; hold 3..12; no characters yet. */
static void mdesc_base(mdesc* m) {
    memset(m, 0, sizeof *m);
    m->d.player_count = 2;
    m->d.param_count = 2;
    m->d.trigger_count = 0;
    m->d.param_min[0] = -32768;
    m->d.param_max[0] = 294912;
    m->d.param_min[1] = -98304;
    m->d.param_max[1] = 98304;
    m->d.hold_min = 3;
    m->d.hold_max = 12;
    m->d.characters = m->ch;
}

static bsync_match_character_desc* add_char(mdesc* m, const bsync_graph* g, uint32_t slot, uint64_t seed,
                                            uint32_t map0, uint32_t map1) {
    bsync_match_character_desc* c = &m->ch[m->d.character_count++];
    memset(c, 0, sizeof *c);
    c->graph = g;
    c->slot = slot;
    c->npc_seed = seed;
    for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++) c->param_map[i] = UNM;
    for (uint32_t j = 0; j < BSYNC_MATCH_MAX_TRIGGERS; j++) c->trigger_map[j] = UNM;
    c->param_map[0] = map0;
    c->param_map[1] = map1;
    m->d.characters = m->ch;
    return c;
}

static void mdesc_copy(mdesc* dst, const mdesc* src) {
    *dst = *src;
    dst->d.characters = dst->ch;
}

/* The main mixed desc: players A(slot 0), B swapped (slot 1), B with speed unmapped (slot 0), A with a
 * duplicate map (slot 1), NPC A, NPC B swapped. */
static void mdesc_mixed(mdesc* m) {
    mdesc_base(m);
    add_char(m, g_a, 0, 0, 0, UNM);
    add_char(m, g_b, 1, 0, 1, 0);
    add_char(m, g_b, 0, 0, UNM, 0);
    add_char(m, g_a, 1, 0, 0, 0);
    add_char(m, g_a, NPC, 77, 0, UNM);
    add_char(m, g_b, NPC, 0xDEADBEEFCAFEull, 1, 0);
}

/* ------------------------------------------------------------------ match memory */

typedef struct mbox {
    void* mem;
    size_t size;
    bsync_match* m;
} mbox;

static void mbox_init(mbox* b, const bsync_match_desc* d) {
    b->size = bsync_match_memory_size(d);
    assert_true(b->size > 0);
    b->mem = aligned_alloc(16, (b->size + 15) & ~(size_t)15);
    assert_non_null(b->mem);
    b->m = NULL;
    assert_int_equal(bsync_match_init(b->mem, b->size, d, &b->m), BSYNC_OK);
    assert_ptr_equal(b->m, b->mem);
}

static void mbox_free(mbox* b) { free(b->mem); }

/* ------------------------------------------------------------------ reference world */

typedef struct ref_script {
    uint64_t state;
    uint32_t hold_left;
    fix16_t rec[BSYNC_MATCH_MAX_PARAMS];
} ref_script;

static void ref_script_init(ref_script* s, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->state = seed;
}

/* The contract: at a change, hold = hold_min + (r mod (hold_max - hold_min + 1)) from the next output,
 * then each parameter from the next outputs in order; the record is then output for `hold` ticks. */
static void ref_script_next(ref_script* s, const bsync_match_desc* d, fix16_t* out) {
    if (s->hold_left == 0) {
        uint64_t span = (uint64_t)d->hold_max - d->hold_min + 1u;
        s->hold_left = d->hold_min + (uint32_t)(sm64(&s->state) % span);
        for (uint32_t i = 0; i < d->param_count; i++) {
            uint64_t range = (uint64_t)((int64_t)d->param_max[i] - (int64_t)d->param_min[i] + 1);
            int64_t v = (int64_t)d->param_min[i] + (int64_t)(sm64(&s->state) % range);
            s->rec[i] = (fix16_t)v;
        }
    }
    s->hold_left--;
    for (uint32_t i = 0; i < d->param_count; i++) out[i] = s->rec[i];
}

typedef struct ref_char {
    void* mem;
    bsync_instance* inst;
    fix16_t targets[4];
    uint32_t target_count;
    ref_script script;
} ref_char;

typedef struct ref_world {
    const bsync_match_desc* d;
    uint32_t n;
    uint64_t tick;
    ref_char c[BSYNC_MATCH_MAX_CHARACTERS];
} ref_world;

static void ref_init(ref_world* w, const bsync_match_desc* d) {
    memset(w, 0, sizeof *w);
    w->d = d;
    w->n = d->character_count;
    for (uint32_t c = 0; c < w->n; c++) {
        const bsync_graph* g = d->characters[c].graph;
        size_t sz = bsync_instance_memory_size(g);
        w->c[c].mem = aligned_alloc(16, (sz + 15) & ~(size_t)15);
        assert_int_equal(bsync_instance_init(w->c[c].mem, sz, g, &w->c[c].inst), BSYNC_OK);
        w->c[c].target_count = bsync_graph_parameter_count(g);
        assert_true(w->c[c].target_count <= 4);
        for (uint32_t i = 0; i < w->c[c].target_count; i++)
            w->c[c].targets[i] = bsync_blend_tree_parameter_default(bsync_graph_tree(g), i);
        ref_script_init(&w->c[c].script, d->characters[c].npc_seed);
    }
}

static void ref_free(ref_world* w) {
    for (uint32_t c = 0; c < w->n; c++) free(w->c[c].mem);
}

static void ref_tick(ref_world* w, const bsync_match_frame* f) {
    const bsync_match_desc* d = w->d;
    for (uint32_t c = 0; c < w->n; c++) {
        const bsync_match_character_desc* cd = &d->characters[c];
        ref_char* rc = &w->c[c];
        fix16_t params[BSYNC_MATCH_MAX_PARAMS];
        uint8_t trig[BSYNC_MATCH_MAX_TRIGGERS];
        memset(trig, 0, sizeof trig);
        if (cd->slot == NPC) {
            ref_script_next(&rc->script, d, params);
        } else {
            memcpy(params, f->players[cd->slot].params, sizeof params);
            memcpy(trig, f->players[cd->slot].triggers, sizeof trig);
        }
        for (uint32_t i = 0; i < d->param_count; i++)
            if (cd->param_map[i] != UNM) rc->targets[cd->param_map[i]] = params[i];
        bsync_switch_trigger t[BSYNC_MATCH_MAX_TRIGGERS];
        uint32_t n = 0;
        for (uint32_t j = 0; j < d->trigger_count; j++) {
            if (cd->trigger_map[j] == UNM || trig[j] == 0) continue;
            uint32_t node = bsync_graph_switch_node(cd->graph, cd->trigger_map[j]);
            uint32_t kids = bsync_blend_tree_node_child_count(bsync_graph_tree(cd->graph), node);
            if ((uint32_t)trig[j] - 1u >= kids) continue;
            t[n].switch_index = cd->trigger_map[j];
            t[n].child = (uint32_t)trig[j] - 1u;
            t[n].fade_ticks = cd->trigger_fade_ticks[j];
            t[n].carry_time = 0;
            t[n].inertialize = 0;
            n++;
        }
        bsync_instance_input in = {rc->targets, rc->target_count};
        assert_int_equal(bsync_instance_tick_ex(rc->inst, &in, n ? t : NULL, n), BSYNC_OK);
    }
    w->tick++;
}

static uint64_t ref_root_blend(ref_world* w) {
    const bsync_match_desc* d = w->d;
    bsync_checksum_state s;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_MATCH);
    bsync_checksum_u64(&s, w->tick);
    bsync_checksum_u32(&s, w->n);
    uint32_t npcs = 0;
    for (uint32_t c = 0; c < w->n; c++) {
        bsync_checksum_u64(&s, bsync_instance_state_checksum(w->c[c].inst));
        if (d->characters[c].slot == NPC) npcs++;
    }
    bsync_checksum_u32(&s, npcs);
    for (uint32_t c = 0; c < w->n; c++) {
        if (d->characters[c].slot != NPC) continue;
        bsync_checksum_u64(&s, w->c[c].script.state);
        bsync_checksum_u32(&s, w->c[c].script.hold_left);
        for (uint32_t i = 0; i < d->param_count; i++) bsync_checksum_fx(&s, w->c[c].script.rec[i]);
        for (uint32_t j = 0; j < d->trigger_count; j++) bsync_checksum_u32(&s, 0);
    }
    return bsync_checksum_final(&s);
}

/* Pose of a character computed by hand: local pose -> bsync_checksum_pose (0 without a skeleton). */
static uint64_t ref_pose(ref_world* w, uint32_t c) {
    if (!bsync_graph_skeleton(w->d->characters[c].graph)) return 0;
    bsync_trs local[J];
    assert_int_equal(bsync_instance_pose(w->c[c].inst, local, NULL), BSYNC_OK);
    return bsync_checksum_pose(local, J);
}

static uint64_t ref_root_pose(ref_world* w) {
    bsync_checksum_state s;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_MATCH_POSE);
    bsync_checksum_u64(&s, w->tick);
    bsync_checksum_u32(&s, w->n);
    for (uint32_t c = 0; c < w->n; c++) bsync_checksum_u64(&s, ref_pose(w, c));
    return bsync_checksum_final(&s);
}

/* ------------------------------------------------------------------ frames */

/* Deterministic, varying frames (a function of seed and tick): each value changes every 5..8 ticks,
 * within [-1.0, 5.0) (outside the script ranges on purpose: player inputs are not clamped). */
static void make_frame(bsync_match_frame* f, uint32_t players, uint64_t seed, uint64_t t) {
    memset(f, 0, sizeof *f);
    f->player_count = players;
    for (uint32_t p = 0; p < players; p++)
        for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++) {
            uint64_t period = 5u + (p + i) % 4u;
            uint64_t s = seed ^ ((t / period) * 0x100000001B3ull) ^ ((uint64_t)p << 40) ^ ((uint64_t)i << 48);
            f->players[p].params[i] = (fix16_t)(-65536 + (int32_t)(sm64(&s) % (6u * 65536u)));
        }
}

static void get_sums(bsync_match* m, int poses, bsync_match_checksums* out) {
    memset(out, 0xEE, sizeof *out);
    assert_int_equal(bsync_match_get_checksums(m, poses, out), BSYNC_OK);
}

static void assert_sums_equal(const bsync_match_checksums* a, const bsync_match_checksums* b) {
    assert_true(a->tick == b->tick);
    assert_true(a->blend == b->blend);
    assert_true(a->pose == b->pose);
    assert_int_equal(a->character_count, b->character_count);
    for (uint32_t c = 0; c < a->character_count; c++) {
        assert_true(a->character_blend[c] == b->character_blend[c]);
        assert_true(a->character_pose[c] == b->character_pose[c]);
    }
}

/* ================================================================== tests */

/* The published splitmix64 sequence for seed 1234567 (Rosetta Code "Pseudo-random numbers/Splitmix64",
 * from Vigna's splitmix64.c). */
static void test_splitmix_reference(void** state) {
    (void)state;
    static const uint64_t want[5] = {6457827717110365317ull, 3203168211198807973ull, 9817491932198370423ull,
                                     4593380528125082431ull, 16408922859458223821ull};
    uint64_t s = 1234567;
    for (int i = 0; i < 5; i++) assert_true(sm64(&s) == want[i]);
}

static void expect_invalid(const mdesc* m) {
    assert_int_equal(bsync_match_desc_validate(&m->d), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_memory_size(&m->d), 0);
    assert_true(bsync_match_hash(&m->d) == 0);
    uint64_t buf[64];
    bsync_match* out = (bsync_match*)0x1;
    assert_int_equal(bsync_match_init(buf, sizeof buf, &m->d, &out), BSYNC_INVALID_ARGUMENT);
}

static void expect_valid(const mdesc* m) {
    assert_int_equal(bsync_match_desc_validate(&m->d), BSYNC_OK);
    assert_true(bsync_match_memory_size(&m->d) > 0);
    assert_true(bsync_match_hash(&m->d) != 0);
}

static void test_desc_validation(void** state) {
    (void)state;
    mdesc base, m;
    mdesc_base(&base);
    add_char(&base, g_a, 0, 0, 0, UNM);
    add_char(&base, g_a, 1, 0, UNM, 0);
    add_char(&base, g_a, NPC, 5, 0, UNM);
    expect_valid(&base);

    assert_int_equal(bsync_match_desc_validate(NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_memory_size(NULL), 0);
    assert_true(bsync_match_hash(NULL) == 0);

    mdesc_copy(&m, &base); m.d.characters = NULL; expect_invalid(&m);
    /* counts */
    mdesc_copy(&m, &base); m.d.player_count = 0; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.player_count = 17; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.player_count = 16; expect_valid(&m);
    mdesc_copy(&m, &base); m.d.param_count = 65; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.param_count = 0; expect_valid(&m);
    mdesc_copy(&m, &base); m.d.trigger_count = 17; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.character_count = 0; expect_invalid(&m);
    mdesc_copy(&m, &base);
    for (uint32_t c = 3; c < 65 && c < BSYNC_MATCH_MAX_CHARACTERS; c++) add_char(&m, g_a, NPC, c, UNM, UNM);
    assert_int_equal(m.d.character_count, 64);
    expect_valid(&m);
    {
        /* 65 characters: a separate array (the desc's array holds 64) */
        static bsync_match_character_desc many[65];
        for (uint32_t c = 0; c < 65; c++) many[c] = base.ch[2];
        mdesc_copy(&m, &base);
        m.d.characters = many;
        m.d.character_count = 65;
        expect_invalid(&m);
        m.d.character_count = 64;
        expect_valid(&m);
    }
    /* slots */
    mdesc_copy(&m, &base); m.ch[1].slot = 2; expect_invalid(&m);
    mdesc_copy(&m, &base); m.ch[1].slot = 0xFFFFFFFEu; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.player_count = 3; m.ch[1].slot = 2; expect_valid(&m);
    /* maps: graph A has 1 parameter and no switch */
    mdesc_copy(&m, &base); m.ch[0].param_map[1] = 1; expect_invalid(&m);
    mdesc_copy(&m, &base); m.ch[2].param_map[0] = 1; expect_invalid(&m);
    mdesc_copy(&m, &base); m.ch[0].param_map[2] = 999; expect_valid(&m); /* beyond param_count: unused */
    mdesc_copy(&m, &base); m.d.trigger_count = 1; expect_valid(&m);
    m.ch[0].trigger_map[0] = 0; expect_invalid(&m); /* no switch in graph A */
    mdesc_copy(&m, &base); m.ch[0].trigger_map[1] = 0; expect_valid(&m); /* trigger_count 0: unused */
    {
        mdesc s;
        mdesc_base(&s);
        s.d.trigger_count = 1;
        bsync_match_character_desc* c = add_char(&s, g_s, 0, 0, 0, UNM);
        c->trigger_map[0] = 0;
        c->trigger_fade_ticks[0] = BSYNC_SWITCH_MAX_FADE_TICKS;
        expect_valid(&s);
        c->trigger_map[0] = 1; /* one switch */
        expect_invalid(&s);
        c->trigger_map[0] = 0;
        c->trigger_fade_ticks[0] = BSYNC_SWITCH_MAX_FADE_TICKS + 1u;
        expect_invalid(&s);
    }
    /* ranges */
    mdesc_copy(&m, &base); m.d.param_min[1] = m.d.param_max[1] + 1; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.param_min[1] = m.d.param_max[1]; expect_valid(&m);
    mdesc_copy(&m, &base); m.d.param_min[0] = INT32_MIN + 1; m.d.param_max[0] = INT32_MAX; expect_valid(&m);
    mdesc_copy(&m, &base); m.d.param_min[2] = 5; m.d.param_max[2] = -5; expect_valid(&m); /* unused entry */
    /* holds */
    mdesc_copy(&m, &base); m.d.hold_min = 0; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.hold_min = 0; m.d.hold_max = 0; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.hold_min = 13; expect_invalid(&m);
    mdesc_copy(&m, &base); m.d.hold_min = 12; expect_valid(&m);
    mdesc_copy(&m, &base); m.d.hold_min = 1; m.d.hold_max = 1000000; expect_valid(&m);
    mdesc_copy(&m, &base); m.d.hold_max = 1000001; expect_invalid(&m);
    /* graphs */
    mdesc_copy(&m, &base); m.ch[1].graph = g_a60; expect_invalid(&m);
    mdesc_copy(&m, &base); m.ch[0].graph = g_a60; m.ch[1].graph = g_a60; m.ch[2].graph = g_a60; expect_valid(&m);
    mdesc_copy(&m, &base); m.ch[2].graph = NULL; expect_invalid(&m);
    mdesc_copy(&m, &base); m.ch[0].graph = NULL; expect_invalid(&m);
}

static void test_init_memory(void** state) {
    (void)state;
    mdesc md;
    mdesc_mixed(&md);
    size_t need = bsync_match_memory_size(&md.d);
    assert_true(need > 0);
    unsigned char* buf = aligned_alloc(16, need + 32);
    bsync_match* m = NULL;
    assert_int_equal(bsync_match_init(buf, need - 1, &md.d, &m), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_match_init(buf, 0, &md.d, &m), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_match_init(buf + 4, need + 8, &md.d, &m), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_init(buf + 1, need + 8, &md.d, &m), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_init(NULL, need, &md.d, &m), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_init(buf, need, NULL, &m), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_init(buf, need, &md.d, NULL), BSYNC_INVALID_ARGUMENT);
    assert_null(m);

    /* 8-byte aligned (not 16) is enough, and works like a 16-aligned one */
    assert_int_equal(bsync_match_init(buf + 8, need, &md.d, &m), BSYNC_OK);
    assert_ptr_equal(m, buf + 8);
    mbox ref;
    mbox_init(&ref, &md.d);
    for (uint64_t t = 0; t < 40; t++) {
        bsync_match_frame f;
        make_frame(&f, 2, 9, t);
        assert_int_equal(bsync_match_tick(m, &f), BSYNC_OK);
        assert_int_equal(bsync_match_tick(ref.m, &f), BSYNC_OK);
    }
    bsync_match_checksums a, b;
    get_sums(m, 1, &a);
    get_sums(ref.m, 1, &b);
    assert_sums_equal(&a, &b);

    /* the desc is copied: changing the caller's copy changes nothing */
    mdesc md2;
    mdesc_copy(&md2, &md);
    bsync_match* m2 = NULL;
    assert_int_equal(bsync_match_init(buf, need, &md2.d, &m2), BSYNC_OK);
    md2.ch[0].slot = 1;
    md2.ch[0].param_map[0] = UNM;
    md2.d.hold_min = 1;
    md2.ch[4].npc_seed = 1;
    const bsync_match_desc* own = bsync_match_get_desc(m2);
    assert_non_null(own);
    assert_ptr_not_equal(own->characters, md2.ch);
    assert_int_equal(own->characters[0].slot, 0);
    assert_int_equal(own->characters[0].param_map[0], 0);
    assert_int_equal(own->hold_min, 3);
    assert_true(own->characters[4].npc_seed == 77);
    assert_int_equal(own->character_count, 6);
    assert_true(bsync_match_hash(own) == bsync_match_hash(&md.d));

    /* accessors */
    assert_int_equal(bsync_match_character_count(m2), 6);
    assert_true(bsync_match_tick_count(m2) == 0);
    assert_non_null(bsync_match_instance(m2, 5));
    assert_null(bsync_match_instance(m2, 6));
    assert_null(bsync_match_instance_const(m2, 6));
    assert_ptr_equal(bsync_instance_graph(bsync_match_instance_const(m2, 1)), g_b);
    for (uint32_t c = 0; c < 4; c++) assert_null(bsync_match_npc_script(m2, c));
    assert_non_null(bsync_match_npc_script(m2, 4));
    assert_null(bsync_match_npc_script(m2, 6));
    const bsync_match_script* sc = bsync_match_npc_script(m2, 5);
    assert_true(sc->state == 0xDEADBEEFCAFEull);
    assert_int_equal(sc->hold_left, 0);
    for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++) assert_int_equal(sc->record.params[i], 0);

    /* tick errors: nothing changes */
    bsync_match_checksums before, after;
    get_sums(m2, 0, &before);
    bsync_match_frame f;
    make_frame(&f, 2, 9, 0);
    f.player_count = 1;
    assert_int_equal(bsync_match_tick(m2, &f), BSYNC_INVALID_ARGUMENT);
    f.player_count = 3;
    assert_int_equal(bsync_match_tick(m2, &f), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_tick(m2, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_tick(NULL, &f), BSYNC_INVALID_ARGUMENT);
    get_sums(m2, 0, &after);
    assert_sums_equal(&before, &after);
    assert_true(bsync_match_tick_count(m2) == 0);
    assert_int_equal(bsync_match_get_checksums(m2, 0, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_get_checksums(NULL, 0, &after), BSYNC_INVALID_ARGUMENT);
    assert_true(bsync_match_snapshot_size(NULL) == 0);
    assert_null(bsync_match_get_desc(NULL));
    mbox_free(&ref);
    free(buf);
}

/* 300 ticks of the mixed desc against the reference world: per-character, root blend and root pose. */
static void test_mapping_equivalence(void** state) {
    (void)state;
    mdesc md;
    mdesc_mixed(&md);
    mbox b;
    mbox_init(&b, &md.d);
    ref_world* w = calloc(1, sizeof *w);
    ref_init(w, &md.d);
    bsync_match_frame f;
    bsync_match_checksums s;
    /* before the first tick too */
    get_sums(b.m, 0, &s);
    assert_true(s.tick == 0);
    assert_true(s.blend == ref_root_blend(w));
    for (uint64_t t = 0; t < 300; t++) {
        make_frame(&f, 2, 1234, t);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
        ref_tick(w, &f);
        int poses = (t % 25) == 24;
        get_sums(b.m, poses, &s);
        assert_true(s.tick == t + 1);
        assert_true(bsync_match_tick_count(b.m) == t + 1);
        assert_int_equal(s.character_count, 6);
        for (uint32_t c = 0; c < 6; c++) {
            assert_true(s.character_blend[c] == bsync_instance_state_checksum(w->c[c].inst));
            if (poses) assert_true(s.character_pose[c] == ref_pose(w, c));
            else assert_true(s.character_pose[c] == 0);
        }
        assert_true(s.blend == ref_root_blend(w));
        if (poses) assert_true(s.pose == ref_root_pose(w));
        else assert_true(s.pose == 0);
        for (uint32_t c = 4; c < 6; c++) {
            const bsync_match_script* sc = bsync_match_npc_script(b.m, c);
            assert_true(sc->state == w->c[c].script.state);
            assert_int_equal(sc->hold_left, w->c[c].script.hold_left);
            for (uint32_t i = 0; i < 2; i++) assert_int_equal(sc->record.params[i], w->c[c].script.rec[i]);
        }
    }
    /* targets, read back from the match's instances */
    const bsync_instance* i0 = bsync_match_instance_const(b.m, 0);
    const bsync_instance* i1 = bsync_match_instance_const(b.m, 1);
    const bsync_instance* i2 = bsync_match_instance_const(b.m, 2);
    const bsync_instance* i3 = bsync_match_instance_const(b.m, 3);
    assert_int_equal(bsync_instance_target(i0, 0), f.players[0].params[0]);
    assert_int_equal(bsync_instance_target(i1, 0), f.players[1].params[1]); /* swapped */
    assert_int_equal(bsync_instance_target(i1, 1), f.players[1].params[0]);
    assert_int_equal(bsync_instance_target(i2, 0), f.players[0].params[1]);
    assert_int_equal(bsync_instance_target(i2, 1), B_SPEED_DEFAULT); /* unmapped: the default forever */
    assert_int_equal(bsync_instance_parameter(i2, 1), B_SPEED_DEFAULT);
    assert_int_equal(bsync_instance_target(i3, 0), f.players[1].params[1]); /* input 1 written last */
    /* the two slots' inputs differ, so the independent path is not trivially equal */
    assert_true(bsync_instance_state_checksum(i0) != bsync_instance_state_checksum(i3));
    /* a world that ignores the maps would differ: feed character 1 unswapped */
    assert_true(f.players[1].params[0] != f.players[1].params[1]);
    ref_free(w);
    free(w);
    mbox_free(&b);
}

/* Unmapped parameters at their default on a graph with a default that is not zero; targets persist
 * (a character whose every input is unmapped is a character fed only its defaults). */
static void test_unmapped_defaults(void** state) {
    (void)state;
    mdesc md;
    mdesc_base(&md);
    add_char(&md, g_a, 0, 0, UNM, UNM);
    add_char(&md, g_b, 1, 0, UNM, UNM);
    mbox b;
    mbox_init(&b, &md.d);
    /* standalone instances fed their defaults */
    size_t sa = bsync_instance_memory_size(g_a), sb = bsync_instance_memory_size(g_b);
    void* ma = aligned_alloc(16, (sa + 15) & ~(size_t)15);
    void* mb = aligned_alloc(16, (sb + 15) & ~(size_t)15);
    bsync_instance *ia, *ib;
    assert_int_equal(bsync_instance_init(ma, sa, g_a, &ia), BSYNC_OK);
    assert_int_equal(bsync_instance_init(mb, sb, g_b, &ib), BSYNC_OK);
    const fix16_t ta[1] = {A_SPEED_DEFAULT};
    const fix16_t tb[2] = {B_X_DEFAULT, B_SPEED_DEFAULT};
    bsync_instance_input ina = {ta, 1}, inb = {tb, 2};
    for (uint64_t t = 0; t < 60; t++) {
        bsync_match_frame f;
        make_frame(&f, 2, 55, t);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
        assert_int_equal(bsync_instance_tick(ia, &ina), BSYNC_OK);
        assert_int_equal(bsync_instance_tick(ib, &inb), BSYNC_OK);
        bsync_match_checksums s;
        get_sums(b.m, 0, &s);
        assert_true(s.character_blend[0] == bsync_instance_state_checksum(ia));
        assert_true(s.character_blend[1] == bsync_instance_state_checksum(ib));
    }
    /* speed 1.0 on thresholds 0 / 1.4: idle 2/7, walk 5/7 of 1.0 (hand-worked: 0.4/1.4, 1.0/1.4) */
    const fix16_t* lw = bsync_instance_leaf_weights(bsync_match_instance_const(b.m, 0));
    assert_true(abs(lw[0] - 18725) <= 1);
    assert_true(abs(lw[1] - 46811) <= 1);
    assert_int_equal(lw[2], 0);
    free(ma);
    free(mb);
    mbox_free(&b);
}

/* Root pose with a skeleton-less character (its pose counts as 0), joint checksums. */
static void test_joint_checksums(void** state) {
    (void)state;
    mdesc md;
    mdesc_base(&md);
    add_char(&md, g_a, 0, 0, 0, UNM);
    add_char(&md, g_nosk, 1, 0, 0, UNM);
    add_char(&md, g_b, NPC, 3, 1, 0);
    mbox b;
    mbox_init(&b, &md.d);
    ref_world* w = calloc(1, sizeof *w);
    ref_init(w, &md.d);
    for (uint64_t t = 0; t < 47; t++) {
        bsync_match_frame f;
        make_frame(&f, 2, 77, t);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
        ref_tick(w, &f);
    }
    bsync_match_checksums s;
    get_sums(b.m, 1, &s);
    assert_true(s.character_pose[1] == 0);
    assert_true(s.character_pose[0] == ref_pose(w, 0) && s.character_pose[0] != 0);
    assert_true(s.character_pose[2] == ref_pose(w, 2) && s.character_pose[2] != 0);
    assert_true(s.pose == ref_root_pose(w));
    assert_true(s.blend == ref_root_blend(w));

    for (uint32_t c = 0; c < 3; c += 2) {
        uint64_t got[J + 2], want[J], whole = 0;
        uint32_t n = 0;
        memset(got, 0, sizeof got);
        assert_int_equal(bsync_match_joint_checksums(b.m, c, got, J + 2, &n), BSYNC_OK);
        assert_int_equal(n, J);
        assert_int_equal(bsync_instance_pose_checksum(w->c[c].inst, &whole, want), BSYNC_OK);
        /* and by hand: seed JOINT, u32 j, trs of joint j of the local pose */
        bsync_trs local[J];
        assert_int_equal(bsync_instance_pose(w->c[c].inst, local, NULL), BSYNC_OK);
        for (uint32_t j = 0; j < J; j++) {
            bsync_checksum_state cs;
            bsync_checksum_init(&cs, BSYNC_CHECKSUM_SEED_JOINT);
            bsync_checksum_u32(&cs, j);
            bsync_checksum_trs(&cs, &local[j]);
            assert_true(got[j] == want[j]);
            assert_true(got[j] == bsync_checksum_final(&cs));
        }
        assert_true(got[J] == 0); /* nothing beyond joint_count */
        n = 99;
        assert_int_equal(bsync_match_joint_checksums(b.m, c, got, J - 1, &n), BSYNC_BUFFER_TOO_SMALL);
    }
    uint64_t buf[J];
    uint32_t n = 0;
    assert_int_equal(bsync_match_joint_checksums(b.m, 1, buf, J, &n), BSYNC_MISMATCH);
    assert_int_equal(bsync_match_joint_checksums(b.m, 3, buf, J, &n), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_joint_checksums(b.m, 0, NULL, J, &n), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_joint_checksums(b.m, 0, buf, J, NULL), BSYNC_INVALID_ARGUMENT);
    /* pose work does not change the blend state */
    bsync_match_checksums s2;
    get_sums(b.m, 0, &s2);
    assert_true(s2.blend == s.blend);
    ref_free(w);
    free(w);
    mbox_free(&b);
}

/* The seeded script against the reference: values, ranges, holds. */
static void run_script(const bsync_match_desc* d, uint64_t seed, uint32_t calls, uint32_t* hold_seen_min,
                       uint32_t* hold_seen_max) {
    bsync_match_script s;
    memset(&s, 0xAB, sizeof s);
    bsync_match_script_init(&s, seed);
    assert_true(s.state == seed);
    assert_int_equal(s.hold_left, 0);
    for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++) assert_int_equal(s.record.params[i], 0);
    for (uint32_t j = 0; j < BSYNC_MATCH_MAX_TRIGGERS; j++) assert_int_equal(s.record.triggers[j], 0);
    ref_script r;
    ref_script_init(&r, seed);
    *hold_seen_min = UINT32_MAX;
    *hold_seen_max = 0;
    bsync_match_input prev;
    memset(&prev, 0, sizeof prev);
    uint32_t run = 0;
    for (uint32_t k = 0; k < calls; k++) {
        uint32_t before = s.hold_left;
        bsync_match_input out;
        memset(&out, 0x5A, sizeof out);
        bsync_match_random_input(&s, d, &out);
        fix16_t want[BSYNC_MATCH_MAX_PARAMS];
        ref_script_next(&r, d, want);
        assert_true(s.state == r.state);
        assert_int_equal(s.hold_left, r.hold_left);
        for (uint32_t i = 0; i < d->param_count; i++) {
            assert_int_equal(out.params[i], want[i]);
            assert_true(out.params[i] >= d->param_min[i] && out.params[i] <= d->param_max[i]);
            assert_int_equal(s.record.params[i], out.params[i]);
        }
        for (uint32_t j = 0; j < d->trigger_count; j++) assert_int_equal(out.triggers[j], 0);
        if (before == 0) {
            /* a change: the new hold is hold_left + 1 in [hold_min, hold_max] */
            uint32_t h = s.hold_left + 1u;
            assert_true(h >= d->hold_min && h <= d->hold_max);
            if (h < *hold_seen_min) *hold_seen_min = h;
            if (h > *hold_seen_max) *hold_seen_max = h;
            if (k > 0) assert_int_equal(run, 0);
            run = h - 1u;
        } else {
            /* held: the same record */
            assert_int_equal(s.hold_left, before - 1u);
            assert_memory_equal(out.params, prev.params, sizeof(fix16_t) * d->param_count);
            run--;
        }
        prev = out;
    }
}

static void test_script(void** state) {
    (void)state;
    mdesc md;
    mdesc_base(&md);
    add_char(&md, g_a, NPC, 1, 0, UNM);
    md.d.param_count = 8;
    md.d.trigger_count = 3;
    md.d.param_min[0] = -196608; md.d.param_max[0] = 131072;     /* [-3, 2] */
    md.d.param_min[1] = 12345; md.d.param_max[1] = 12345;        /* min = max */
    md.d.param_min[2] = INT32_MIN + 1; md.d.param_max[2] = INT32_MAX; /* the full range */
    md.d.param_min[3] = 0; md.d.param_max[3] = 0;
    md.d.param_min[4] = INT32_MAX; md.d.param_max[4] = INT32_MAX;
    md.d.param_min[5] = INT32_MIN + 1; md.d.param_max[5] = INT32_MIN + 1;
    md.d.param_min[6] = -1; md.d.param_max[6] = 0;               /* two raw steps */
    md.d.param_min[7] = INT32_MIN + 1; md.d.param_max[7] = INT32_MIN + 3;
    md.d.hold_min = 2;
    md.d.hold_max = 6;
    assert_int_equal(bsync_match_desc_validate(&md.d), BSYNC_OK);
    uint32_t lo, hi;
    run_script(&md.d, 0x0123456789ABCDEFull, 5000, &lo, &hi);
    assert_int_equal(lo, 2);
    assert_int_equal(hi, 6);

    /* value spread of the full-range and the tiny-range parameters, and both bounds reached */
    {
        bsync_match_script s;
        bsync_match_script_init(&s, 99);
        int neg = 0, pos = 0, big = 0, m1 = 0, z = 0, e7[3] = {0, 0, 0};
        for (uint32_t k = 0; k < 4000; k++) {
            bsync_match_input out;
            bsync_match_random_input(&s, &md.d, &out);
            if (out.params[2] < 0) neg = 1;
            if (out.params[2] > 0) pos = 1;
            if (out.params[2] > (1 << 30) || out.params[2] < -(1 << 30)) big = 1;
            if (out.params[6] == -1) m1 = 1;
            if (out.params[6] == 0) z = 1;
            e7[out.params[7] - (INT32_MIN + 1)] = 1;
            assert_int_equal(out.params[1], 12345);
            assert_int_equal(out.params[3], 0);
            assert_int_equal(out.params[4], INT32_MAX);
            assert_int_equal(out.params[5], INT32_MIN + 1);
        }
        assert_true(neg && pos && big && m1 && z && e7[0] && e7[1] && e7[2]);
    }

    /* hold 1..1: a new record every call */
    md.d.hold_min = md.d.hold_max = 1;
    run_script(&md.d, 7, 300, &lo, &hi);
    assert_int_equal(lo, 1);
    assert_int_equal(hi, 1);
    /* hold_min = hold_max = 1000000: the first call holds for a million ticks */
    md.d.hold_min = md.d.hold_max = 1000000;
    {
        bsync_match_script s;
        bsync_match_script_init(&s, 7);
        bsync_match_input out;
        bsync_match_random_input(&s, &md.d, &out);
        assert_int_equal(s.hold_left, 999999);
        uint64_t st = s.state;
        bsync_match_random_input(&s, &md.d, &out);
        assert_int_equal(s.hold_left, 999998);
        assert_true(s.state == st); /* held: no draw */
    }
    /* hold range [1, 1000000]: holds within bounds */
    md.d.hold_min = 1;
    run_script(&md.d, 11, 200, &lo, &hi);
    /* param_count 0: only the hold is drawn (one output per change) */
    md.d.param_count = 0;
    md.d.hold_min = 1;
    md.d.hold_max = 1;
    {
        bsync_match_script s;
        bsync_match_script_init(&s, 5);
        uint64_t r = 5;
        for (int k = 0; k < 10; k++) {
            bsync_match_input out;
            bsync_match_random_input(&s, &md.d, &out);
            (void)sm64(&r);
            assert_true(s.state == r);
        }
    }
    /* NULL arguments are ignored */
    bsync_match_script s;
    bsync_match_script_init(&s, 3);
    bsync_match_input out;
    bsync_match_random_input(NULL, &md.d, &out);
    bsync_match_random_input(&s, NULL, &out);
    bsync_match_random_input(&s, &md.d, NULL);
    bsync_match_script_init(NULL, 3);
    assert_true(s.state == 3);
}

/* An NPC equals a player character fed the same generated records (and the same seed's script). */
static void test_npc_equals_player(void** state) {
    (void)state;
    mdesc md;
    mdesc_base(&md);
    md.d.player_count = 1;
    md.d.hold_min = 1;
    md.d.hold_max = 9;
    add_char(&md, g_b, 0, 0, 1, 0);
    add_char(&md, g_b, NPC, 0x5EEDull, 1, 0);
    add_char(&md, g_a, NPC, 0x5EEDull, 0, UNM); /* same seed, other graph: same records */
    add_char(&md, g_a, 0, 0, 0, UNM);
    mbox b;
    mbox_init(&b, &md.d);
    bsync_match_script gen;
    bsync_match_script_init(&gen, 0x5EEDull);
    for (uint64_t t = 0; t < 400; t++) {
        bsync_match_frame f;
        memset(&f, 0, sizeof f);
        f.player_count = 1;
        bsync_match_random_input(&gen, &md.d, &f.players[0]);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
        bsync_match_checksums s;
        get_sums(b.m, (t % 50) == 49, &s);
        assert_true(s.character_blend[0] == s.character_blend[1]);
        assert_true(s.character_pose[0] == s.character_pose[1]);
        assert_true(s.character_blend[2] == s.character_blend[3]);
        assert_true(s.character_pose[2] == s.character_pose[3]);
        const bsync_match_script* n1 = bsync_match_npc_script(b.m, 1);
        const bsync_match_script* n2 = bsync_match_npc_script(b.m, 2);
        assert_true(n1->state == gen.state && n2->state == gen.state);
        assert_int_equal(n1->hold_left, gen.hold_left);
        assert_memory_equal(n1->record.params, gen.record.params, 2 * sizeof(fix16_t));
    }
    /* the inputs really moved the characters (not idling at defaults) */
    assert_true(bsync_instance_target(bsync_match_instance_const(b.m, 0), 1) != B_SPEED_DEFAULT);
    mbox_free(&b);
}

/* ------------------------------------------------------------------ triggers */

typedef struct trig_event {
    uint64_t tick;
    uint32_t input;
    uint8_t value;
    int ignorable; /* the contract says it does nothing */
} trig_event;

static const trig_event k_events[] = {
    {5, 0, 3, 0},    /* play run, fade 8 */
    {20, 0, 0, 1},   /* v = 0 */
    {30, 0, 4, 1},   /* child 3 of 3: out of range */
    {31, 1, 255, 1}, /* out of range */
    {40, 2, 1, 1},   /* input 2 is unmapped */
    {50, 0, 2, 0},   /* play walk, fade 8 ... */
    {50, 1, 1, 0},   /* ... then idle, fade 3, in input order */
    {50, 2, 3, 1},   /* unmapped */
    {70, 1, 3, 0},   /* play run, fade 3 */
};

static void trig_frame(bsync_match_frame* f, uint64_t t, int with_ignorable, int skip_tick5) {
    make_frame(f, 1, 4242, t);
    for (size_t k = 0; k < sizeof k_events / sizeof k_events[0]; k++) {
        const trig_event* e = &k_events[k];
        if (e->tick != t) continue;
        if (e->ignorable && !with_ignorable) continue;
        if (skip_tick5 && e->tick == 5) continue;
        f->players[0].triggers[e->input] = e->value;
    }
}

static void test_triggers(void** state) {
    (void)state;
    mdesc md;
    mdesc_base(&md);
    md.d.player_count = 1;
    md.d.param_count = 1;
    md.d.trigger_count = 3;
    bsync_match_character_desc* c = add_char(&md, g_s, 0, 0, 0, UNM);
    c->trigger_map[0] = 0; c->trigger_fade_ticks[0] = 8;
    c->trigger_map[1] = 0; c->trigger_fade_ticks[1] = 3;
    c->trigger_map[2] = UNM; c->trigger_fade_ticks[2] = 5;
    add_char(&md, g_a, 0, 0, 0, UNM);               /* no switches: triggers unmapped */
    add_char(&md, g_s, NPC, 8, 0, UNM)->trigger_map[0] = 0; /* NPC records carry no trigger */
    mbox full, clean, none;
    mbox_init(&full, &md.d);
    mbox_init(&clean, &md.d);
    mbox_init(&none, &md.d);
    ref_world* w = calloc(1, sizeof *w);
    ref_init(w, &md.d);
    int differed = 0;
    for (uint64_t t = 0; t < 90; t++) {
        bsync_match_frame f1, f2, f3;
        trig_frame(&f1, t, 1, 0);
        trig_frame(&f2, t, 0, 0);
        trig_frame(&f3, t, 0, 1);
        assert_int_equal(bsync_match_tick(full.m, &f1), BSYNC_OK);
        assert_int_equal(bsync_match_tick(clean.m, &f2), BSYNC_OK);
        assert_int_equal(bsync_match_tick(none.m, &f3), BSYNC_OK);
        ref_tick(w, &f1);
        bsync_match_checksums a, b, n;
        get_sums(full.m, (t % 10) == 9, &a);
        get_sums(clean.m, (t % 10) == 9, &b);
        get_sums(none.m, 0, &n);
        assert_sums_equal(&a, &b); /* the ignorable values change nothing */
        for (uint32_t k = 0; k < 3; k++) assert_true(a.character_blend[k] == bsync_instance_state_checksum(w->c[k].inst));
        assert_true(a.blend == ref_root_blend(w));
        if (t >= 5 && a.character_blend[0] != n.character_blend[0]) differed = 1;
        if (t < 5) assert_true(a.character_blend[0] == n.character_blend[0]);
        assert_true(a.character_blend[1] == n.character_blend[1]); /* the switch-free character */

        bsync_switch_entry e[BSYNC_SWITCH_STACK_DEPTH];
        uint32_t cnt = 0;
        assert_int_equal(bsync_instance_switch_state(bsync_match_instance_const(full.m, 0), 0, e, &cnt), BSYNC_OK);
        if (t < 5) {
            assert_int_equal(cnt, 1);
            assert_int_equal(e[0].child, 0);
        } else if (t == 5) {
            assert_int_equal(cnt, 2);
            assert_int_equal(e[0].child, 0);
            assert_int_equal(e[1].child, 2);
            assert_int_equal(e[1].fade_ticks, 8);
        } else if (t == 50) {
            assert_int_equal(cnt, 3);
            assert_int_equal(e[0].child, 2);
            assert_int_equal(e[1].child, 1);
            assert_int_equal(e[2].child, 0);
            assert_int_equal(e[2].fade_ticks, 3);
        } else if (t == 70) {
            assert_true(cnt >= 2);
            assert_int_equal(e[cnt - 1].child, 2);
            assert_int_equal(e[cnt - 1].fade_ticks, 3);
        } else if (t == 49 || t == 69) {
            /* fades long done by then: the last state plays alone, at 1.0 */
            uint32_t want = t == 49 ? 2u : 0u;
            fix16_t sum = 0;
            for (uint32_t k = 0; k < cnt; k++)
                if (e[k].child == want) sum += e[k].weight;
            assert_int_equal(sum, BSYNC_FX_ONE);
        }
        /* the NPC's switch never moves */
        assert_int_equal(bsync_instance_switch_state(bsync_match_instance_const(full.m, 2), 0, e, &cnt), BSYNC_OK);
        assert_int_equal(cnt, 1);
        assert_int_equal(e[0].child, 0);
    }
    assert_true(differed);
    ref_free(w);
    free(w);
    mbox_free(&full);
    mbox_free(&clean);
    mbox_free(&none);
}

/* ------------------------------------------------------------------ hash */

static uint64_t hash_by_hand(const bsync_match_desc* d) {
    bsync_checksum_state s;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_MATCH_DESC);
    bsync_checksum_u32(&s, 1);
    bsync_checksum_u32(&s, d->player_count);
    bsync_checksum_u32(&s, d->param_count);
    bsync_checksum_u32(&s, d->trigger_count);
    for (uint32_t i = 0; i < d->param_count; i++) {
        bsync_checksum_fx(&s, d->param_min[i]);
        bsync_checksum_fx(&s, d->param_max[i]);
    }
    bsync_checksum_u32(&s, d->hold_min);
    bsync_checksum_u32(&s, d->hold_max);
    bsync_checksum_u32(&s, d->character_count);
    for (uint32_t c = 0; c < d->character_count; c++) {
        const bsync_match_character_desc* ch = &d->characters[c];
        bsync_checksum_u64(&s, bsync_graph_hash(ch->graph));
        bsync_checksum_u32(&s, ch->slot);
        bsync_checksum_u64(&s, ch->npc_seed);
        for (uint32_t i = 0; i < d->param_count; i++) bsync_checksum_u32(&s, ch->param_map[i]);
        for (uint32_t j = 0; j < d->trigger_count; j++) {
            bsync_checksum_u32(&s, ch->trigger_map[j]);
            bsync_checksum_u32(&s, ch->trigger_fade_ticks[j]);
        }
    }
    return bsync_checksum_final(&s);
}

static void test_hash(void** state) {
    (void)state;
    mdesc base;
    mdesc_base(&base);
    base.d.trigger_count = 1;
    bsync_match_character_desc* c0 = add_char(&base, g_s, 0, 0, 0, UNM);
    c0->trigger_map[0] = 0;
    c0->trigger_fade_ticks[0] = 6;
    add_char(&base, g_a, 1, 0, UNM, 0);
    add_char(&base, g_a, NPC, 31, 0, UNM);
    uint64_t h = bsync_match_hash(&base.d);
    assert_true(h != 0);
    assert_true(h == hash_by_hand(&base.d));

    mdesc m;
    mdesc_copy(&m, &base);
    assert_true(bsync_match_hash(&m.d) == h); /* equal descs in other memory */
    /* unused entries (beyond the counts) do not count */
    m.ch[0].param_map[5] = 3; m.ch[0].trigger_map[4] = 9; m.d.param_min[7] = 100; m.ch[1].trigger_fade_ticks[1] = 2;
    assert_true(bsync_match_hash(&m.d) == h);

    uint64_t seen[32];
    size_t ns = 0;
    seen[ns++] = h;
#define VARY(stmt)                                                         \
    do {                                                                   \
        mdesc_copy(&m, &base);                                             \
        stmt;                                                              \
        uint64_t v = bsync_match_hash(&m.d);                               \
        assert_true(v != 0);                                               \
        assert_true(v == hash_by_hand(&m.d));                              \
        for (size_t k = 0; k < ns; k++) assert_true(v != seen[k]);         \
        seen[ns++] = v;                                                    \
    } while (0)
    VARY(m.ch[0].slot = 1);
    VARY(m.ch[1].slot = NPC);
    VARY(m.ch[2].npc_seed = 32);
    VARY(m.ch[0].npc_seed = 1); /* hashed as given, even for a player */
    VARY(m.ch[0].param_map[0] = UNM);
    VARY(m.ch[1].param_map[1] = UNM);
    VARY(m.d.param_min[0] += 1);
    VARY(m.d.param_max[1] -= 1);
    VARY(m.d.hold_min = 4);
    VARY(m.d.hold_max = 13);
    VARY(m.ch[0].trigger_fade_ticks[0] = 7);
    VARY(m.ch[0].trigger_map[0] = UNM);
    VARY(m.d.player_count = 3);
    VARY(m.d.param_count = 1);
    VARY(m.d.trigger_count = 0);
    VARY(m.ch[2].graph = g_a2);                                   /* content (smoothing) */
    VARY(m.ch[1].graph = g_nosk);                                 /* content (no skeleton) */
    VARY(m.d.character_count = 2);
    VARY(m.ch[1] = m.ch[2]; m.ch[2] = base.ch[1]);                /* order of characters */
#undef VARY
    /* a graph's tick rate: every character at 60 Hz vs every character at 30 Hz (same trees) */
    mdesc r30, r60;
    mdesc_base(&r30);
    add_char(&r30, g_a, 0, 0, 0, UNM);
    add_char(&r30, g_a, NPC, 1, 0, UNM);
    mdesc_copy(&r60, &r30);
    r60.ch[0].graph = g_a60;
    r60.ch[1].graph = g_a60;
    assert_true(bsync_match_hash(&r30.d) != 0 && bsync_match_hash(&r60.d) != 0);
    assert_true(bsync_match_hash(&r30.d) != bsync_match_hash(&r60.d));
    assert_true(bsync_match_hash(&r60.d) == hash_by_hand(&r60.d));
    /* the match's own copy hashes the same */
    mbox b;
    mbox_init(&b, &base.d);
    assert_true(bsync_match_hash(bsync_match_get_desc(b.m)) == h);
    mbox_free(&b);
}

/* ------------------------------------------------------------------ snapshots */

static void put64(unsigned char* p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void put32(unsigned char* p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get64(const unsigned char* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}
static uint32_t get32(const unsigned char* p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static void reseal(unsigned char* p, size_t n) { put64(p + n - 8, bsync_checksum_xxh64(p, n - 8, 0)); }

/* The snapshot desc: players A, B; NPCs A, B (with a trigger input so the NPC trigger bytes exist). */
static void mdesc_snap(mdesc* m, uint64_t npc_seed) {
    mdesc_base(m);
    m->d.trigger_count = 2;
    add_char(m, g_a, 0, 0, 0, UNM);
    bsync_match_character_desc* c = add_char(m, g_s, 1, 0, 0, UNM);
    c->trigger_map[1] = 0;
    c->trigger_fade_ticks[1] = 4;
    add_char(m, g_a, NPC, npc_seed, 0, UNM);
    add_char(m, g_b, NPC, npc_seed + 1, 1, 0);
}

static void snap_frame(bsync_match_frame* f, uint64_t t) {
    make_frame(f, 2, 31337, t);
    if (t % 23 == 7) f->players[1].triggers[1] = (uint8_t)(1 + t % 3);
}

static size_t expected_snapshot_size(const bsync_match_desc* d) {
    size_t n = 32;
    for (uint32_t c = 0; c < d->character_count; c++) {
        if (d->characters[c].slot == NPC) n += 12 + 4 * d->param_count + d->trigger_count;
        n += 4 + bsync_instance_snapshot_size(d->characters[c].graph);
    }
    return n + 8;
}

static void test_snapshot_replay(void** state) {
    (void)state;
    mdesc md;
    mdesc_snap(&md, 1000);
    mbox b;
    mbox_init(&b, &md.d);
    ref_world* w = calloc(1, sizeof *w);
    ref_init(w, &md.d);
    bsync_match_frame f;
    for (uint64_t t = 0; t < 137; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
        ref_tick(w, &f);
    }
    size_t size = bsync_match_snapshot_size(b.m);
    assert_int_equal(size, expected_snapshot_size(&md.d));
    unsigned char* snap = malloc(size + 16);
    size_t written = 0;
    assert_int_equal(bsync_match_save(b.m, snap, size - 1, &written), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_match_save(b.m, snap, size + 16, &written), BSYNC_OK);
    assert_int_equal(written, size);
    assert_int_equal(bsync_match_save(b.m, NULL, size, &written), BSYNC_INVALID_ARGUMENT);

    /* the layout, field by field, against the reference world */
    assert_int_equal(get32(snap), 0x534D5342u);
    assert_int_equal(get32(snap + 4), 1);
    assert_true(get64(snap + 8) == bsync_match_hash(&md.d));
    assert_int_equal(get32(snap + 16), size);
    assert_int_equal(get32(snap + 20), 4);
    assert_true(get64(snap + 24) == 137);
    size_t o = 32;
    for (uint32_t c = 0; c < 4; c++) {
        if (md.ch[c].slot != NPC) continue;
        assert_true(get64(snap + o) == w->c[c].script.state);
        assert_int_equal(get32(snap + o + 8), w->c[c].script.hold_left);
        for (uint32_t i = 0; i < 2; i++) assert_int_equal((fix16_t)get32(snap + o + 12 + 4 * i), w->c[c].script.rec[i]);
        assert_int_equal(snap[o + 20], 0);
        assert_int_equal(snap[o + 21], 0);
        o += 22;
    }
    for (uint32_t c = 0; c < 4; c++) {
        size_t isz = bsync_instance_snapshot_size(md.ch[c].graph);
        assert_int_equal(get32(snap + o), isz);
        unsigned char* mine = malloc(isz);
        assert_int_equal(bsync_instance_save(w->c[c].inst, mine, isz, NULL), BSYNC_OK);
        assert_memory_equal(snap + o + 4, mine, isz);
        free(mine);
        o += 4 + isz;
    }
    assert_int_equal(o + 8, size);
    assert_true(get64(snap + o) == bsync_checksum_xxh64(snap, o, 0));

    /* continue 200 ticks, load, continue 200 again: identical per tick */
    bsync_match_checksums at137, again;
    get_sums(b.m, 1, &at137);
    bsync_match_checksums* run1 = malloc(200 * sizeof *run1);
    for (uint64_t t = 137; t < 337; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
        get_sums(b.m, (t % 4) == 0, &run1[t - 137]);
    }
    assert_int_equal(bsync_match_load(b.m, snap, size), BSYNC_OK);
    assert_true(bsync_match_tick_count(b.m) == 137);
    get_sums(b.m, 1, &again);
    assert_sums_equal(&at137, &again);
    for (uint64_t t = 137; t < 337; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
        bsync_match_checksums s;
        get_sums(b.m, (t % 4) == 0, &s);
        assert_sums_equal(&run1[t - 137], &s);
    }
    /* and into a fresh match of the same desc (tick 0): it continues identically too */
    mbox fresh;
    mbox_init(&fresh, &md.d);
    assert_int_equal(bsync_match_load(fresh.m, snap, size), BSYNC_OK);
    get_sums(fresh.m, 1, &again);
    assert_sums_equal(&at137, &again);
    for (uint64_t t = 137; t < 237; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(fresh.m, &f), BSYNC_OK);
        bsync_match_checksums s;
        get_sums(fresh.m, (t % 4) == 0, &s);
        assert_sums_equal(&run1[t - 137], &s);
    }
    free(run1);
    free(snap);
    mbox_free(&fresh);
    ref_free(w);
    free(w);
    mbox_free(&b);
}

/* Load must fail with `want` and leave the match exactly as it was (checksums and saved bytes). */
static void expect_load_fails(bsync_match* m, const unsigned char* buf, size_t len, bsync_result want,
                              const bsync_match_checksums* before, const unsigned char* before_bytes,
                              size_t before_len, int deep) {
    assert_int_equal(bsync_match_load(m, buf, len), want);
    bsync_match_checksums s;
    get_sums(m, 0, &s);
    assert_true(s.tick == before->tick);
    assert_true(s.blend == before->blend);
    for (uint32_t c = 0; c < s.character_count; c++) assert_true(s.character_blend[c] == before->character_blend[c]);
    if (deep) {
        unsigned char* now = malloc(before_len);
        size_t wr = 0;
        assert_int_equal(bsync_match_save(m, now, before_len, &wr), BSYNC_OK);
        assert_int_equal(wr, before_len);
        assert_memory_equal(now, before_bytes, before_len);
        free(now);
    }
}

static void test_snapshot_corruption(void** state) {
    (void)state;
    mdesc md;
    mdesc_snap(&md, 2000);
    mbox b;
    mbox_init(&b, &md.d);
    bsync_match_frame f;
    for (uint64_t t = 0; t < 137; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
    }
    size_t size = bsync_match_snapshot_size(b.m);
    unsigned char* snap = malloc(size + 1);
    unsigned char* bad = malloc(size + 1);
    assert_int_equal(bsync_match_save(b.m, snap, size, NULL), BSYNC_OK);
    /* move the match on, so a wrongly applied load would show */
    for (uint64_t t = 137; t < 180; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(b.m, &f), BSYNC_OK);
    }
    bsync_match_checksums before;
    get_sums(b.m, 0, &before);
    unsigned char* before_bytes = malloc(size);
    assert_int_equal(bsync_match_save(b.m, before_bytes, size, NULL), BSYNC_OK);

    /* every single-byte corruption (two different flips per byte) */
    static const unsigned char flips[2] = {0x01, 0xC0};
    for (size_t i = 0; i < size; i++)
        for (int k = 0; k < 2; k++) {
            memcpy(bad, snap, size);
            bad[i] ^= flips[k];
            bsync_result want = (i >= 8 && i < 16) ? BSYNC_MISMATCH : BSYNC_BAD_BLOB;
            expect_load_fails(b.m, bad, size, want, &before, before_bytes, size, (i % 97) == 0);
        }
    /* every truncation, and one byte too many */
    for (size_t n = 0; n < size; n++) expect_load_fails(b.m, snap, n, BSYNC_BAD_BLOB, &before, before_bytes, size, 0);
    memcpy(bad, snap, size);
    bad[size] = 0;
    expect_load_fails(b.m, bad, size + 1, BSYNC_BAD_BLOB, &before, before_bytes, size, 1);
    assert_int_equal(bsync_match_load(b.m, NULL, size), BSYNC_INVALID_ARGUMENT);

    /* field checks behind a valid trailer (resealed) */
    const size_t npc0 = 32, npc1 = 32 + 22;
    size_t inst0 = 32 + 2 * 22;
#define RESEALED(stmt, want)                                                        \
    do {                                                                            \
        memcpy(bad, snap, size);                                                    \
        stmt;                                                                       \
        reseal(bad, size);                                                          \
        expect_load_fails(b.m, bad, size, want, &before, before_bytes, size, 1);    \
    } while (0)
    RESEALED(put32(bad, 0x534D5343u), BSYNC_BAD_BLOB);                 /* magic */
    RESEALED(put32(bad + 4, 2), BSYNC_BAD_BLOB);                       /* version */
    RESEALED(put64(bad + 8, get64(bad + 8) ^ 1), BSYNC_MISMATCH);      /* match hash */
    RESEALED(put32(bad + 16, (uint32_t)size + 4), BSYNC_BAD_BLOB);     /* total length */
    RESEALED(put32(bad + 20, 3), BSYNC_BAD_BLOB);                      /* character count */
    RESEALED(put64(bad + 24, 138), BSYNC_BAD_BLOB);                    /* tick != the instances' */
    RESEALED(put32(bad + npc0 + 8, 0xFFFFFFFFu), BSYNC_BAD_BLOB);      /* hold beyond hold_max */
    RESEALED(put32(bad + npc1 + 8, md.d.hold_max + 1), BSYNC_BAD_BLOB);
    RESEALED(bad[npc0 + 20] = 1, BSYNC_BAD_BLOB);                      /* NPC trigger (always 0) */
    RESEALED(bad[npc1 + 21] = 2, BSYNC_BAD_BLOB);
    RESEALED(put32(bad + inst0, get32(bad + inst0) + 1), BSYNC_BAD_BLOB); /* an instance length */
    {
        /* all or nothing: the LAST character's instance blob is bad (its own XXH64 no longer
         * matches), the first three are fine; nothing may be written */
        size_t o = inst0;
        for (uint32_t c = 0; c < 3; c++) o += 4 + bsync_instance_snapshot_size(md.ch[c].graph);
        size_t isz = bsync_instance_snapshot_size(md.ch[3].graph);
        RESEALED(bad[o + 4 + isz / 2] ^= 0x10, BSYNC_BAD_BLOB);
        /* the same with the instance blob's own trailer resealed: a valid blob of an impossible state
         * (the last instance's tick differs from the match's) */
        RESEALED(put64(bad + o + 4 + 24, 136); reseal(bad + o + 4, isz), BSYNC_BAD_BLOB);
        /* the first character's blob taken from another graph position (B's blob in A's slot) cannot
         * even have the right length: covered above; a blob with another graph hash -> not a BAD
         * match: the instance reports MISMATCH or BAD_BLOB; either way nothing changes */
    }
#undef RESEALED

    /* a snapshot from a match with a different desc -> MISMATCH */
    mdesc other;
    mdesc_snap(&other, 2001);
    mbox ob;
    mbox_init(&ob, &other.d);
    for (uint64_t t = 0; t < 137; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(ob.m, &f), BSYNC_OK);
    }
    assert_int_equal(bsync_match_snapshot_size(ob.m), size);
    unsigned char* osnap = malloc(size);
    assert_int_equal(bsync_match_save(ob.m, osnap, size, NULL), BSYNC_OK);
    expect_load_fails(b.m, osnap, size, BSYNC_MISMATCH, &before, before_bytes, size, 1);
    /* and a different structure (3 characters) */
    mdesc small;
    mdesc_snap(&small, 2000);
    small.d.character_count = 3;
    mbox sb;
    mbox_init(&sb, &small.d);
    size_t ssz = bsync_match_snapshot_size(sb.m);
    unsigned char* ssnap = malloc(ssz);
    assert_int_equal(bsync_match_save(sb.m, ssnap, ssz, NULL), BSYNC_OK);
    expect_load_fails(b.m, ssnap, ssz, BSYNC_MISMATCH, &before, before_bytes, size, 1);
    /* the good snapshot still loads after all that */
    assert_int_equal(bsync_match_load(b.m, snap, size), BSYNC_OK);
    assert_true(bsync_match_tick_count(b.m) == 137);
    free(ssnap);
    free(osnap);
    mbox_free(&sb);
    mbox_free(&ob);
    free(before_bytes);
    free(bad);
    free(snap);
    mbox_free(&b);
}

/* ------------------------------------------------------------------ independence, memcpy */

static void test_independence(void** state) {
    (void)state;
    mdesc d1, d2;
    mdesc_mixed(&d1);
    mdesc_snap(&d2, 4321);
    /* solo runs first */
    enum { T = 120 };
    bsync_match_checksums* solo1 = malloc(T * sizeof *solo1);
    bsync_match_checksums* solo2 = malloc(T * sizeof *solo2);
    mbox x, y;
    mbox_init(&x, &d1.d);
    bsync_match_frame f;
    for (uint64_t t = 0; t < T; t++) {
        make_frame(&f, 2, 1, t);
        assert_int_equal(bsync_match_tick(x.m, &f), BSYNC_OK);
        get_sums(x.m, (t % 10) == 0, &solo1[t]);
    }
    mbox_free(&x);
    mbox_init(&y, &d2.d);
    for (uint64_t t = 0; t < T; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(y.m, &f), BSYNC_OK);
        get_sums(y.m, (t % 10) == 0, &solo2[t]);
    }
    mbox_free(&y);
    /* interleaved, plus a third match of d1 fed other frames in between */
    mbox z;
    mbox_init(&x, &d1.d);
    mbox_init(&y, &d2.d);
    mbox_init(&z, &d1.d);
    for (uint64_t t = 0; t < T; t++) {
        bsync_match_checksums s;
        make_frame(&f, 2, 999, t);
        assert_int_equal(bsync_match_tick(z.m, &f), BSYNC_OK);
        make_frame(&f, 2, 1, t);
        assert_int_equal(bsync_match_tick(x.m, &f), BSYNC_OK);
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(y.m, &f), BSYNC_OK);
        get_sums(z.m, 1, &s);
        get_sums(y.m, (t % 10) == 0, &s);
        assert_sums_equal(&solo2[t], &s);
        get_sums(x.m, (t % 10) == 0, &s);
        assert_sums_equal(&solo1[t], &s);
    }
    /* the frames differ, so z really is another state */
    bsync_match_checksums sx, sz;
    get_sums(x.m, 0, &sx);
    get_sums(z.m, 0, &sz);
    assert_true(sx.blend != sz.blend);
    mbox_free(&x);
    mbox_free(&y);
    mbox_free(&z);
    free(solo1);
    free(solo2);
}

/* memcpy of a match (not promised by the contract, but it holds offsets): the copy ticks like the
 * original would, even after the original's memory is overwritten. */
static void test_memcpy_copy(void** state) {
    (void)state;
    mdesc md;
    mdesc_snap(&md, 77);
    mbox ref, orig;
    mbox_init(&ref, &md.d);
    mbox_init(&orig, &md.d);
    bsync_match_frame f;
    for (uint64_t t = 0; t < 60; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(ref.m, &f), BSYNC_OK);
        assert_int_equal(bsync_match_tick(orig.m, &f), BSYNC_OK);
    }
    void* cmem = aligned_alloc(16, (orig.size + 15) & ~(size_t)15);
    memcpy(cmem, orig.mem, orig.size);
    memset(orig.mem, 0xA5, orig.size); /* destroy the original */
    bsync_match* copy = (bsync_match*)cmem;
    for (uint64_t t = 60; t < 180; t++) {
        snap_frame(&f, t);
        assert_int_equal(bsync_match_tick(ref.m, &f), BSYNC_OK);
        assert_int_equal(bsync_match_tick(copy, &f), BSYNC_OK);
        bsync_match_checksums a, b;
        get_sums(ref.m, (t % 10) == 0, &a);
        get_sums(copy, (t % 10) == 0, &b);
        assert_sums_equal(&a, &b);
    }
    size_t size = bsync_match_snapshot_size(copy);
    assert_int_equal(size, bsync_match_snapshot_size(ref.m));
    unsigned char* s1 = malloc(size);
    unsigned char* s2 = malloc(size);
    assert_int_equal(bsync_match_save(ref.m, s1, size, NULL), BSYNC_OK);
    assert_int_equal(bsync_match_save(copy, s2, size, NULL), BSYNC_OK);
    assert_memory_equal(s1, s2, size);
    assert_int_equal(bsync_match_load(copy, s1, size), BSYNC_OK);
    uint64_t joints[J];
    uint32_t n = 0;
    assert_int_equal(bsync_match_joint_checksums(copy, 0, joints, J, &n), BSYNC_OK);
    assert_int_equal(n, J);
    free(s1);
    free(s2);
    free(cmem);
    mbox_free(&orig);
    mbox_free(&ref);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splitmix_reference),
        cmocka_unit_test(test_desc_validation),
        cmocka_unit_test(test_init_memory),
        cmocka_unit_test(test_mapping_equivalence),
        cmocka_unit_test(test_unmapped_defaults),
        cmocka_unit_test(test_joint_checksums),
        cmocka_unit_test(test_script),
        cmocka_unit_test(test_npc_equals_player),
        cmocka_unit_test(test_triggers),
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_snapshot_replay),
        cmocka_unit_test(test_snapshot_corruption),
        cmocka_unit_test(test_independence),
        cmocka_unit_test(test_memcpy_copy),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
