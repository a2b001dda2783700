/* test_present.c — presentation poses between ticks (present.h) on the procedural humanoid.
 *
 * Expectations come from the instance's own tick poses (which other tests pin down) and from the
 * definition, never from present.c's output:
 *   - end points: alpha 0 is bsync_instance_pose after the tick, bit for bit (local and model), with
 *     zero / identity root motion; alpha 1 gives the tick's root-motion delta exactly; under steady
 *     inputs (no filter moving, no fade) alpha 1 is the pose after the next tick bit for bit, and
 *     1 + x at tick t is x at tick t + 1 (extrapolation continues exactly where the next tick starts);
 *   - between: the presented node phase is within one 2^-32 unit of tick phase + alpha * (next - tick)
 *     computed here in exact integers from two real ticks;
 *   - const: the instance's bytes and state checksum are unchanged by any number of calls (and a
 *     poisoned, cold scratch gives the same bits as a warm one); a whole
 *     match run with and without presentation calls interleaved has identical checksums (blend and
 *     pose) every tick and identical snapshots;
 *   - smoothness: at 144 Hz and 60 Hz over the 30 Hz simulation (a SmoothDamp speed ramp idle -> walk
 *     -> run -> walk, root motion extracted) the largest per-frame joint rotation change is about
 *     30/144 (30/60) of the largest per-tick change, the presented root position likewise, against
 *     pose-at-tick rendering (held), whose per-frame maximum is the per-tick one. Figures are printed.
 *   - arguments: errors, clamping above BSYNC_PRESENT_ALPHA_MAX, floats. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "blendsync/match.h"
#include "blendsync/present.h"
#include "blendsync/procedural.h"
#include "test_support.h"
#include "fixtures.h"

enum { J = 23 };

#ifndef BSYNC_SOURCE_DIR
#define BSYNC_SOURCE_DIR "."
#endif

static bsync_procedural_humanoid g_h;
static bsync_blend_tree* g_tree;
static bsync_graph *g_plain, *g_smooth, *g_none;

/* Simple1D(speed) over idle 0, walk 1.4, run 3.5 (default 1.0). */
/* one 1D node "loco" over idle, walk, run at their procedural speeds; speed defaults to 1 */
static bsync_blend_tree* make_tree(void) {
    static const char* const mn[3] = {"idle", "walk", "run"};
    static const fix16_t th[3] = {BSYNC_PROCEDURAL_SPEED_IDLE, BSYNC_PROCEDURAL_SPEED_WALK, BSYNC_PROCEDURAL_SPEED_RUN};
    return bsync_test_tree_1d("loco", "speed", 65536, mn, th, 3);
}

/* smooth: SmoothDamp 0.3 s on speed; none_switch: the node is BSYNC_SYNC_NONE (own motion clocks) and
 * a switch; extract: root motion EXTRACT YAW (else KEEP). */
static bsync_graph* make_graph(fix16_t smooth, int none_switch, int extract) {
    bsync_param_filter_desc f[1];
    memset(f, 0, sizeof f);
    f[0].smooth_time = smooth;
    const bsync_clip* clips[3] = {g_h.clips[0], g_h.clips[1], g_h.clips[2]};
    bsync_graph_node_options opt[1];
    memset(opt, 0, sizeof opt);
    opt[0].sync = BSYNC_SYNC_NONE;
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    d.tree = g_tree;
    d.skeleton = g_h.skeleton;
    d.clips = clips;
    d.tick_rate = 30;
    d.filters = f;
    d.node_options = none_switch ? opt : NULL;
    d.root_motion = extract ? BSYNC_ROOT_MOTION_EXTRACT : BSYNC_ROOT_MOTION_KEEP;
    d.root_rotation = BSYNC_ROOT_ROTATION_YAW;
    bsync_graph_switch_desc sw = {0, 1};
    d.switches = &sw;
    d.switch_count = none_switch ? 1u : 0u;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create(&d, NULL, &g), BSYNC_OK);
    return g;
}

static int setup(void** state) {
    (void)state;
    if (bsync_procedural_humanoid_create(NULL, &g_h) != BSYNC_OK) return -1;
    g_tree = make_tree();
    g_plain = make_graph(0, 0, 1);
    g_smooth = make_graph(19661 /* 0.3 s */, 0, 1);
    g_none = make_graph(0, 1, 0);
    return 0;
}

static int teardown(void** state) {
    (void)state;
    bsync_graph_destroy(g_plain);
    bsync_graph_destroy(g_smooth);
    bsync_graph_destroy(g_none);
    bsync_blend_tree_destroy(g_tree);
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

typedef struct box {
    void* mem;
    size_t size;
    bsync_instance* inst;
} box;

/* malloc: aligned for any fundamental type, so 8-aligned as instances and scratch need */
static void box_init(box* b, const bsync_graph* g) {
    b->size = bsync_instance_memory_size(g);
    b->mem = malloc((b->size + 7) & ~(size_t)7);
    assert_non_null(b->mem);
    assert_int_equal(bsync_instance_init(b->mem, b->size, g, &b->inst), BSYNC_OK);
}

static void* scratch_for(const bsync_graph* g, size_t* size) {
    *size = bsync_present_scratch_size(g);
    assert_int_equal(*size, bsync_instance_memory_size(g));
    void* s = malloc((*size + 7) & ~(size_t)7);
    assert_non_null(s);
    return s;
}

static void tick(bsync_instance* inst, fix16_t speed) {
    bsync_instance_input in = {&speed, 1};
    assert_int_equal(bsync_instance_tick(inst, &in), BSYNC_OK);
}

/* A speed that changes every 7 ticks (0 .. 4.0). */
static fix16_t varying_speed(uint32_t t) { return (fix16_t)(((t / 7u) * 40503u) % (4u * 65536u)); }

static void assert_same_pose(const bsync_trs* a, const bsync_trs* b) { assert_memory_equal(a, b, J * sizeof(bsync_trs)); }

/* ------------------------------------------------------------------ end points */

static void test_alpha_zero_is_the_tick_pose(void** state) {
    (void)state;
    const bsync_graph* graphs[3] = {g_plain, g_smooth, g_none};
    for (int gi = 0; gi < 3; gi++) {
        box b;
        box_init(&b, graphs[gi]);
        size_t ss;
        void* scratch = scratch_for(graphs[gi], &ss);
        bsync_trs tl[J], tm[J], pl[J], pm[J];
        for (uint32_t t = 0; t < 240; t++) {
            if (t > 0) tick(b.inst, varying_speed(t));
            bsync_root_motion rm, pr;
            assert_int_equal(bsync_present_pose(b.inst, 0, scratch, ss, pl, pm, &pr), BSYNC_OK);
            assert_int_equal(bsync_instance_pose(b.inst, tl, tm), BSYNC_OK);
            assert_same_pose(pl, tl);
            assert_same_pose(pm, tm);
            assert_int_equal(pr.translation.x, 0);
            assert_int_equal(pr.translation.y, 0);
            assert_int_equal(pr.translation.z, 0);
            assert_int_equal(pr.rotation.w, 65536);
            assert_int_equal(pr.rotation.x | pr.rotation.y | pr.rotation.z, 0);
            /* alpha 1: exactly the tick's delta */
            assert_int_equal(bsync_present_root_motion(b.inst, 65536, &pr), BSYNC_OK);
            assert_int_equal(bsync_instance_root_motion(b.inst, &rm), BSYNC_OK);
            assert_memory_equal(&pr, &rm, sizeof rm);
            if (gi != 2 && t > 10) assert_true(rm.translation.z != 0); /* EXTRACT moves */
        }
        free(scratch);
        free(b.mem);
    }
}

/* Steady inputs: alpha 1 at tick t is the pose after tick t + 1; 1 + x at t is x at t + 1. */
static void test_alpha_one_is_the_next_tick_when_steady(void** state) {
    (void)state;
    const bsync_graph* graphs[2] = {g_plain, g_none};
    const fix16_t speeds[3] = {45000, 91750, 170000};
    const fix16_t xs[4] = {1, 16384, 43690, 65535};
    for (int gi = 0; gi < 2; gi++)
        for (int si = 0; si < 3; si++) {
            box b;
            box_init(&b, graphs[gi]);
            size_t ss;
            void* scratch = scratch_for(graphs[gi], &ss);
            tick(b.inst, speeds[si]); /* no filter: steady from here */
            bsync_trs p1[J], m1[J], tl[J], tm[J], ext[4][J], nxt[J];
            uint32_t checked = 0;
            for (uint32_t t = 1; t < 200; t++) {
                assert_int_equal(bsync_present_pose(b.inst, 65536, scratch, ss, p1, m1, NULL), BSYNC_OK);
                for (int k = 0; k < 4; k++)
                    assert_int_equal(bsync_present_pose(b.inst, 65536 + xs[k], scratch, ss, ext[k], NULL, NULL),
                                     BSYNC_OK);
                tick(b.inst, speeds[si]);
                assert_int_equal(bsync_instance_pose(b.inst, tl, tm), BSYNC_OK);
                assert_same_pose(p1, tl);
                assert_same_pose(m1, tm);
                for (int k = 0; k < 4; k++) {
                    assert_int_equal(bsync_present_pose(b.inst, xs[k], scratch, ss, nxt, NULL, NULL), BSYNC_OK);
                    assert_same_pose(ext[k], nxt);
                }
                checked++;
            }
            assert_int_equal(checked, 199);
            free(scratch);
            free(b.mem);
        }
}

/* The presented phase against tick phase + alpha * (next tick's phase - tick phase), exact integers:
 * position P = cycles * 2^32 + phase (< 2^40 here). The scratch holds the presented instance. */
static uint64_t pos_of(const bsync_instance* inst) {
    const bsync_clip_time* c = bsync_instance_node_time(inst, 0);
    return (uint64_t)c->cycles * 4294967296ull + c->phase;
}

static void test_phase_between_ticks(void** state) {
    (void)state;
    box b, next;
    box_init(&b, g_plain);
    box_init(&next, g_plain);
    size_t ss;
    void* scratch = scratch_for(g_plain, &ss);
    bsync_trs pl[J];
    const fix16_t speed = 120000;
    tick(b.inst, speed);
    uint32_t checks = 0;
    for (uint32_t t = 1; t < 90; t++) {
        memcpy(next.mem, b.mem, b.size);
        tick((bsync_instance*)next.mem, speed);
        const uint64_t p0 = pos_of(b.inst), p1 = pos_of((const bsync_instance*)next.mem);
        assert_true(p1 > p0);
        for (uint32_t a = 0; a <= 65536; a += 4099) {
            assert_int_equal(bsync_present_pose(b.inst, (fix16_t)a, scratch, ss, pl, NULL, NULL), BSYNC_OK);
            const uint64_t got = pos_of((const bsync_instance*)scratch);
            /* floor of the straight line between the two ticks; the carries (below one unit at either
             * end) move the exact position by less than one unit either way */
            const uint64_t want = p0 + ((p1 - p0) * a) / 65536u;
            assert_true(got + 1u >= want && got <= want + 1u);
            if (a == 0) assert_true(got == p0);
            checks++;
        }
        tick(b.inst, speed);
    }
    assert_true(checks > 1000);
    free(scratch);
    free(next.mem);
    free(b.mem);
}

/* ------------------------------------------------------------------ nothing changes */

static void test_instance_untouched(void** state) {
    (void)state;
    const bsync_graph* graphs[3] = {g_plain, g_smooth, g_none};
    for (int gi = 0; gi < 3; gi++) {
        box b;
        box_init(&b, graphs[gi]);
        size_t ss;
        void* scratch = scratch_for(graphs[gi], &ss);
        void* before = malloc(b.size);
        void* cold = malloc((ss + 7) & ~(size_t)7);
        bsync_trs pl[J], pm[J], cl[J], cm[J];
        bsync_root_motion pr;
        for (uint32_t t = 0; t < 120; t++) {
            tick(b.inst, varying_speed(t));
            const uint64_t sum = bsync_instance_state_checksum(b.inst);
            memcpy(before, b.mem, b.size);
            for (fix16_t a = 0; a <= BSYNC_PRESENT_ALPHA_MAX + 65536; a += 9001) {
                assert_int_equal(bsync_present_pose(b.inst, a, scratch, ss, pl, pm, &pr), BSYNC_OK);
                /* a cold scratch (poisoned: no warm cursors) gives the same bits as the warm one */
                memset(cold, (int)(0xA5u ^ t), ss);
                assert_int_equal(bsync_present_pose(b.inst, a, cold, ss, cl, cm, NULL), BSYNC_OK);
                assert_same_pose(pl, cl);
                assert_same_pose(pm, cm);
            }
            assert_memory_equal(before, b.mem, b.size);
            assert_true(bsync_instance_state_checksum(b.inst) == sum);
        }
        free(before);
        free(cold);
        free(scratch);
        free(b.mem);
    }
}

/* A 6-character match (players and NPCs over all three graphs), 400 ticks, with and without
 * presentation calls after every tick: the same checksums every tick and the same snapshots. */
static void test_match_with_and_without_presentation(void** state) {
    (void)state;
    bsync_match_character_desc ch[6];
    bsync_match_desc d;
    memset(&d, 0, sizeof d);
    d.player_count = 2;
    d.param_count = 1;
    d.param_min[0] = 0;
    d.param_max[0] = 4 * 65536;
    d.hold_min = 3;
    d.hold_max = 20;
    const bsync_graph* graphs[3] = {g_plain, g_smooth, g_none};
    for (uint32_t c = 0; c < 6; c++) {
        memset(&ch[c], 0, sizeof ch[c]);
        ch[c].graph = graphs[c % 3];
        ch[c].slot = c < 2 ? c : (c < 4 ? c - 2 : BSYNC_MATCH_NPC);
        ch[c].npc_seed = 1000u + c;
        for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++) ch[c].param_map[i] = BSYNC_MATCH_UNMAPPED;
        for (uint32_t j = 0; j < BSYNC_MATCH_MAX_TRIGGERS; j++) ch[c].trigger_map[j] = BSYNC_MATCH_UNMAPPED;
        ch[c].param_map[0] = 0;
    }
    d.character_count = 6;
    d.characters = ch;
    const size_t msize = bsync_match_memory_size(&d);
    assert_true(msize > 0);
    void* mem[2] = {malloc((msize + 15) & ~(size_t)15), malloc((msize + 15) & ~(size_t)15)};
    bsync_match* m[2];
    for (int k = 0; k < 2; k++) assert_int_equal(bsync_match_init(mem[k], msize, &d, &m[k]), BSYNC_OK);
    const size_t ss = bsync_present_match_scratch_size(m[1]);
    assert_int_equal(ss, bsync_instance_memory_size(g_none) > bsync_instance_memory_size(g_plain)
                             ? bsync_instance_memory_size(g_none) : bsync_instance_memory_size(g_plain));
    const uint32_t joints = bsync_present_match_joint_count(m[1]);
    assert_int_equal(joints, 6u * J);
    void* scratch = malloc((ss + 7) & ~(size_t)7);
    bsync_trs* pl = malloc(joints * sizeof(bsync_trs));
    bsync_trs* pm = malloc(joints * sizeof(bsync_trs));
    bsync_trs one[J];
    bsync_root_motion roots[6];
    const size_t snap = bsync_match_snapshot_size(m[0]);
    unsigned char* sn[2] = {malloc(snap), malloc(snap)};
    uint64_t s = 0x5eed;
    for (uint32_t t = 0; t < 400; t++) {
        bsync_match_frame f;
        memset(&f, 0, sizeof f);
        f.player_count = 2;
        for (uint32_t p = 0; p < 2; p++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            f.players[p].params[0] = (fix16_t)((s >> 33) % (4u * 65536u));
        }
        for (int k = 0; k < 2; k++) assert_int_equal(bsync_match_tick(m[k], &f), BSYNC_OK);
        /* match 1 presents between every tick (several alphas, whole match and single characters) */
        const fix16_t alphas[5] = {0, 21845, 65536, 150000, 300000};
        for (int a = 0; a < 5; a++) {
            assert_int_equal(bsync_present_match(m[1], alphas[a], scratch, ss, pl, a & 1 ? pm : NULL, roots), BSYNC_OK);
            const uint32_t c = (t + (uint32_t)a) % 6u;
            assert_int_equal(bsync_present_pose(bsync_match_instance_const(m[1], c), alphas[a], scratch, ss, one,
                                                NULL, NULL), BSYNC_OK);
            assert_memory_equal(one, pl + c * J, sizeof one); /* the match's c-th pose is the character's */
        }
        if (t % 10u == 0u) {
            bsync_match_checksums s0, s1;
            assert_int_equal(bsync_match_get_checksums(m[0], 1, &s0), BSYNC_OK);
            assert_int_equal(bsync_match_get_checksums(m[1], 1, &s1), BSYNC_OK);
            assert_true(s0.blend == s1.blend && s0.pose == s1.pose && s0.tick == s1.tick);
            for (uint32_t c = 0; c < 6; c++)
                assert_true(s0.character_blend[c] == s1.character_blend[c] &&
                            s0.character_pose[c] == s1.character_pose[c]);
        } else {
            bsync_match_checksums s0, s1;
            assert_int_equal(bsync_match_get_checksums(m[0], 0, &s0), BSYNC_OK);
            assert_int_equal(bsync_match_get_checksums(m[1], 0, &s1), BSYNC_OK);
            assert_true(s0.blend == s1.blend);
        }
        if (t % 50u == 49u) {
            size_t w0 = 0, w1 = 0;
            assert_int_equal(bsync_match_save(m[0], sn[0], snap, &w0), BSYNC_OK);
            assert_int_equal(bsync_match_save(m[1], sn[1], snap, &w1), BSYNC_OK);
            assert_int_equal(w0, w1);
            assert_memory_equal(sn[0], sn[1], w0);
        }
    }
    free(sn[0]);
    free(sn[1]);
    free(pl);
    free(pm);
    free(scratch);
    free(mem[0]);
    free(mem[1]);
}

/* ------------------------------------------------------------------ smoothness */

typedef struct dq { double x, y, z, w; } dq;
static dq dq_of(bsync_quat q) {
    dq r = {q.x / 65536.0, q.y / 65536.0, q.z / 65536.0, q.w / 65536.0};
    double n = sqrt(r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w);
    r.x /= n; r.y /= n; r.z /= n; r.w /= n;
    return r;
}
static double angle_between(bsync_quat a, bsync_quat b) {
    dq x = dq_of(a), y = dq_of(b);
    double dot = fabs(x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w);
    if (dot > 1.0) dot = 1.0;
    return 2.0 * acos(dot);
}
static double max_rotation_change(const bsync_trs* a, const bsync_trs* b) {
    double m = 0;
    for (int j = 0; j < J; j++) m = fmax(m, angle_between(a[j].r, b[j].r));
    return m;
}
/* world * (t, r): position and yaw (YAW root motion: rotations about +Y), in doubles. */
typedef struct world { double x, z, yaw; } world;
static world compose(world w, const bsync_root_motion* rm) {
    const double tx = rm->translation.x / 65536.0, tz = rm->translation.z / 65536.0;
    dq r = dq_of(rm->rotation);
    const double yaw = 2.0 * atan2(r.y, r.w);
    world o = {w.x + cos(w.yaw) * tx + sin(w.yaw) * tz, w.z - sin(w.yaw) * tx + cos(w.yaw) * tz, w.yaw + yaw};
    return o;
}

/* speed ramp targets: idle 1 s, walk 2 s, run 2 s, walk 2 s (SmoothDamp 0.3 s smooths them) */
static fix16_t ramp(uint32_t t) {
    if (t < 30) return 0;
    if (t < 90) return BSYNC_PROCEDURAL_SPEED_WALK;
    if (t < 150) return BSYNC_PROCEDURAL_SPEED_RUN;
    return BSYNC_PROCEDURAL_SPEED_WALK;
}

/* frame_rot_steady: the largest per-frame change over the frames that are not the first one shown from
 * a tick with a switch trigger (the onset of a cross-fade: its first weight step, 1/F, is an input the
 * tick before could not know; see test_smooth_demo_graph) */
typedef struct figures { double tick_rot, frame_rot, held_rot, tick_root, frame_root, held_root, frame_rot_steady; } figures;

/* One tick of a scenario: the ramp on the one-parameter graph, or the demo graph's joystick path. */
typedef void (*tick_fn)(bsync_instance* inst, uint32_t t);
static void ramp_tick(bsync_instance* inst, uint32_t t) { tick(inst, ramp(t)); }

static figures render_at(const bsync_graph* g, tick_fn step, uint32_t hz, int (*onset)(uint32_t tick)) {
    enum { TICKS = 210 };
    box b;
    box_init(&b, g);
    size_t ss;
    void* scratch = scratch_for(g, &ss);
    bsync_trs tick_model[TICKS + 1][J];
    world tick_world[TICKS + 1];
    static _Alignas(16) unsigned char inst_at[TICKS + 1][16384]; /* instance copies: 8-aligned rows */
    assert_true(b.size <= sizeof inst_at[0]);
    world w = {0, 0, 0};
    bsync_trs local[J];
    for (uint32_t t = 0; t <= TICKS; t++) {
        if (t > 0) {
            step(b.inst, t);
            bsync_root_motion rm;
            assert_int_equal(bsync_instance_root_motion(b.inst, &rm), BSYNC_OK);
            w = compose(w, &rm);
        }
        assert_int_equal(bsync_instance_pose(b.inst, local, tick_model[t]), BSYNC_OK);
        tick_world[t] = w;
        memcpy(inst_at[t], b.mem, b.size);
    }
    figures f = {0, 0, 0, 0, 0, 0, 0};
    uint32_t shown_tick = UINT32_MAX;
    for (uint32_t t = 1; t <= TICKS; t++) {
        f.tick_rot = fmax(f.tick_rot, max_rotation_change(tick_model[t - 1], tick_model[t]));
        f.tick_root = fmax(f.tick_root, hypot(tick_world[t].x - tick_world[t - 1].x, tick_world[t].z - tick_world[t - 1].z));
    }
    /* frame k is shown at k / hz s = tick floor(k * 30 / hz) + alpha (alpha the rest, in [0, 1)) */
    const uint32_t frames = TICKS * hz / 30u;
    bsync_trs prev[J], cur[J], held_prev[J];
    world prev_w = {0, 0, 0}, held_prev_w = {0, 0, 0};
    for (uint32_t k = 0; k < frames; k++) {
        const uint32_t t = k * 30u / hz;
        const uint64_t rest = (uint64_t)k * 30u - (uint64_t)t * hz; /* < hz */
        const fix16_t alpha = (fix16_t)((rest * 65536u + hz / 2u) / hz);
        const bsync_instance* inst = (const bsync_instance*)(const void*)inst_at[t];
        bsync_root_motion pr;
        assert_int_equal(bsync_present_pose(inst, alpha, scratch, ss, local, cur, &pr), BSYNC_OK);
        const world pw = compose(tick_world[t], &pr);
        if (k > 0) {
            const double ch = max_rotation_change(prev, cur);
            f.frame_rot = fmax(f.frame_rot, ch);
            if (!(onset && t != shown_tick && onset(t))) f.frame_rot_steady = fmax(f.frame_rot_steady, ch);
            f.frame_root = fmax(f.frame_root, hypot(pw.x - prev_w.x, pw.z - prev_w.z));
            f.held_rot = fmax(f.held_rot, max_rotation_change(held_prev, tick_model[t]));
            f.held_root = fmax(f.held_root, hypot(tick_world[t].x - held_prev_w.x, tick_world[t].z - held_prev_w.z));
        }
        memcpy(prev, cur, sizeof prev);
        shown_tick = t;
        memcpy(held_prev, tick_model[t], sizeof held_prev);
        prev_w = pw;
        held_prev_w = tick_world[t];
    }
    free(scratch);
    free(b.mem);
    return f;
}

static void test_smooth_at_display_rates(void** state) {
    (void)state;
    const uint32_t rates[2] = {144, 60};
    for (int i = 0; i < 2; i++) {
        const figures f = render_at(g_smooth, ramp_tick, rates[i], NULL);
        const double ideal = 30.0 / rates[i];
        print_message("%u Hz over 30 Hz: max joint rotation change per tick %.4f rad; per frame presented %.4f "
                      "(%.3f of a tick, ideal %.3f), held %.4f (%.3f); root step per tick %.4f m, per frame "
                      "presented %.4f (%.3f), held %.4f (%.3f)\n",
                      rates[i], f.tick_rot, f.frame_rot, f.frame_rot / f.tick_rot, ideal, f.held_rot,
                      f.held_rot / f.tick_rot, f.tick_root, f.frame_root, f.frame_root / f.tick_root, f.held_root,
                      f.held_root / f.tick_root);
        assert_true(f.tick_rot > 0.05 && f.tick_root > 0.05); /* the ramp moves */
        assert_true(f.frame_rot <= 1.25 * ideal * f.tick_rot);
        assert_true(f.frame_root <= 1.25 * ideal * f.tick_root);
        /* held: a frame that crosses a tick shows the whole tick's change */
        assert_true(f.held_rot >= 0.999 * f.tick_rot);
        assert_true(f.held_root >= 0.999 * f.tick_root);
    }
}

/* The demo's locomotion graph (scripts/demo/humanoid_locomotion.json: filtered 2D stick + speed, an
 * upper-body override layer whose switch cross-fades to wave / punch over 6 ticks; no root motion):
 * stand, walk, run, strafe, back up, with a wave at tick 40 and a punch at tick 130. The weights are
 * held between ticks, so a cross-fade's step (1/6 of the arm's difference per tick) lands in the frame
 * that crosses the tick: the figures show what that costs. */
static const bsync_graph* g_demo;
static uint32_t g_demo_x, g_demo_y, g_demo_speed;
static void demo_tick(bsync_instance* inst, uint32_t t) {
    fix16_t tg[16];
    memset(tg, 0, sizeof tg);
    const uint32_t pc = bsync_graph_parameter_count(g_demo);
    if (t >= 30 && t < 90) { tg[g_demo_y] = 65536; tg[g_demo_speed] = 91750; }
    else if (t >= 90 && t < 140) { tg[g_demo_y] = 65536; tg[g_demo_speed] = 229376; }
    else if (t >= 140 && t < 180) { tg[g_demo_x] = 65536; tg[g_demo_speed] = 85197; }
    else if (t >= 180) { tg[g_demo_y] = -65536; tg[g_demo_speed] = 78643; }
    bsync_switch_trigger tr;
    memset(&tr, 0, sizeof tr);
    tr.fade_ticks = 6;
    tr.child = t == 40 ? 1u : 2u;
    const uint32_t n = (t == 40 || t == 130) && bsync_graph_switch_count(g_demo) > 0 ? 1u : 0u;
    bsync_instance_input in = {tg, pc};
    assert_int_equal(bsync_instance_tick_ex(inst, &in, &tr, n), BSYNC_OK);
}

static int demo_onset(uint32_t t) { return t == 40 || t == 130; }

static uint32_t param_named(const bsync_blend_tree* tree, const char* name) {
    for (uint32_t i = 0; i < bsync_blend_tree_parameter_count(tree); i++)
        if (!strcmp(bsync_blend_tree_parameter_name(tree, i), name)) return i;
    fail_msg("no parameter %s", name);
    return 0;
}

static void test_smooth_demo_graph(void** state) {
    (void)state;
    bsync_graph_config* gc = NULL;
    bsync_error err;
    assert_int_equal(bsync_graph_config_load(BSYNC_SOURCE_DIR "/scripts/demo/humanoid_locomotion.json", NULL, &gc,
                                             NULL, &err), BSYNC_OK);
    g_demo = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
    assert_true(bsync_graph_parameter_count(g_demo) <= 16 && bsync_graph_joint_count(g_demo) == J);
    g_demo_x = param_named(tree, "move_x");
    g_demo_y = param_named(tree, "move_y");
    g_demo_speed = param_named(tree, "speed");
    { /* through the cross-fades too: alpha 0 is the tick pose, bit for bit */
        box b;
        box_init(&b, g_demo);
        size_t ss;
        void* scratch = scratch_for(g_demo, &ss);
        bsync_trs tl[J], tm[J], pl[J], pm[J];
        for (uint32_t t = 0; t < 210; t++) {
            demo_tick(b.inst, t);
            assert_int_equal(bsync_present_pose(b.inst, 0, scratch, ss, pl, pm, NULL), BSYNC_OK);
            assert_int_equal(bsync_instance_pose(b.inst, tl, tm), BSYNC_OK);
            assert_same_pose(pl, tl);
            assert_same_pose(pm, tm);
        }
        free(scratch);
        free(b.mem);
    }
    const uint32_t rates[2] = {144, 60};
    for (int i = 0; i < 2; i++) {
        const figures f = render_at(g_demo, demo_tick, rates[i], demo_onset);
        const double ideal = 30.0 / rates[i];
        print_message("demo graph, %u Hz over 30 Hz: max joint rotation change per tick %.4f rad; per frame "
                      "presented %.4f (%.3f of a tick; at a cross-fade's onset), %.4f (%.3f, ideal %.3f) over every "
                      "other frame; held %.4f (%.3f)\n",
                      rates[i], f.tick_rot, f.frame_rot, f.frame_rot / f.tick_rot, f.frame_rot_steady,
                      f.frame_rot_steady / f.tick_rot, ideal, f.held_rot, f.held_rot / f.tick_rot);
        assert_true(f.tick_rot > 0.05);
        assert_true(f.frame_rot_steady <= 1.25 * ideal * f.tick_rot);
        assert_true(f.frame_rot <= f.held_rot); /* the onset frame is never worse than holding */
        assert_true(f.held_rot >= 0.999 * f.tick_rot);
    }
    bsync_graph_config_destroy(gc);
}

/* ------------------------------------------------------------------ arguments */

static void test_arguments(void** state) {
    (void)state;
    box b;
    box_init(&b, g_plain);
    size_t ss;
    void* scratch = scratch_for(g_plain, &ss);
    bsync_trs a[J], c[J];
    bsync_root_motion r1, r2;
    for (uint32_t t = 0; t < 20; t++) tick(b.inst, 100000);
    assert_int_equal(bsync_present_pose(NULL, 0, scratch, ss, a, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_present_pose(b.inst, -1, scratch, ss, a, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_present_pose(b.inst, 0, NULL, ss, a, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_present_pose(b.inst, 0, scratch, ss, NULL, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_present_pose(b.inst, 0, (unsigned char*)scratch + 4, ss - 8, a, NULL, NULL),
                     BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_present_pose(b.inst, 0, scratch, ss - 8, a, NULL, NULL), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_present_pose(b.inst, 0, b.mem, b.size, a, NULL, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_present_root_motion(b.inst, -5, &r1), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_present_root_motion(b.inst, 0, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_present_scratch_size(NULL), 0);
    /* clamped above the bound */
    assert_int_equal(bsync_present_pose(b.inst, BSYNC_PRESENT_ALPHA_MAX, scratch, ss, a, NULL, &r1), BSYNC_OK);
    assert_int_equal(bsync_present_pose(b.inst, 10 * 65536, scratch, ss, c, NULL, &r2), BSYNC_OK);
    assert_same_pose(a, c);
    assert_memory_equal(&r1, &r2, sizeof r1);
    /* root motion fractions: half the delta within a rounding, 3.0 three times it in a straight walk */
    bsync_root_motion rm, half, three;
    assert_int_equal(bsync_instance_root_motion(b.inst, &rm), BSYNC_OK);
    assert_int_equal(bsync_present_root_motion(b.inst, 32768, &half), BSYNC_OK);
    assert_int_equal(bsync_present_root_motion(b.inst, 3 * 65536, &three), BSYNC_OK);
    assert_true(abs(half.translation.z * 2 - rm.translation.z) <= 1);
    assert_int_equal(three.translation.z, rm.translation.z * 3);
    /* floats: raw / 65536 */
    bsync_present_trs_f fl[J];
    bsync_present_to_float(a, J, fl);
    for (int j = 0; j < J; j++) {
        assert_true(fl[j].t[0] == (float)((double)a[j].t.x / 65536.0));
        assert_true(fl[j].r[3] == (float)((double)a[j].r.w / 65536.0));
        assert_true(fl[j].s[2] == (float)((double)a[j].s.z / 65536.0));
    }
    free(scratch);
    free(b.mem);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alpha_zero_is_the_tick_pose),
        cmocka_unit_test(test_alpha_one_is_the_next_tick_when_steady),
        cmocka_unit_test(test_phase_between_ticks),
        cmocka_unit_test(test_instance_untouched),
        cmocka_unit_test(test_match_with_and_without_presentation),
        cmocka_unit_test(test_smooth_at_display_rates),
        cmocka_unit_test(test_smooth_demo_graph),
        cmocka_unit_test(test_arguments),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
