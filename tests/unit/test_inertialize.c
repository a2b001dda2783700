/* test_inertialize.c — inertialized switch triggers (instance.h "Inertialization") on the procedural
 * humanoid. Expectations are independent: the decay factor against hand-worked dyadic values and a
 * double-precision evaluation of (1 - s)^4 (1 + 4 s); poses against twin instances that never see the
 * trigger (the OLD pose), that play the new state from the same clock history (the NEW pose), or that
 * switch instantly at the same tick (same blend state: only the inertialization differs); rotation
 * steps measured in double from the quaternion components.
 * Covered: decay values and shape; idle -> run over 10 ticks (trigger tick = OLD pose, halfway =
 * 0.1875 of the offset, tick T = NEW pose bit for bit, smaller largest per-tick rotation step than an
 * instant switch); state checksum covers it only while active; save / load mid-inertialization
 * (version 3, sizes, replay identical, corrupted blocks rejected, version 2 load clears it);
 * interruption by a cross-fade and by another inertialized trigger; invalid arguments (nothing
 * changes) and BSYNC_MISMATCH without a skeleton; an ignored repeated trigger. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_tree.h"
#include "blendsync/checksum.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/procedural.h"
#include "test_support.h"

enum { J = 23, IDLE = 0, WALK = 1, RUN = 2, T10 = 10 };

static bsync_procedural_humanoid g_h;
static bsync_blend_tree* g_tree;
static const bsync_clip* g_clips[3];
static bsync_graph_node_options g_opts[1];

static bsync_blend_tree* make_tree(void) {
    static const char* pn[1] = {"speed"};
    static const char* mn[3] = {"idle", "walk", "run"};
    static const fix16_t defaults[1] = {0};
    static const fix16_t th[3] = {0, 32768, BSYNC_FX_ONE};
    static const bsync_blend_child_ref c0[3] = {{BSYNC_CHILD_MOTION, 0}, {BSYNC_CHILD_MOTION, 1}, {BSYNC_CHILD_MOTION, 2}};
    static const uint32_t p0[1] = {0};
    bsync_blend_node_desc nodes[1];
    memset(nodes, 0, sizeof nodes);
    nodes[0].name = "sw";
    nodes[0].space.type = BSYNC_BLEND_SIMPLE_1D;
    nodes[0].space.child_count = 3;
    nodes[0].space.thresholds = th;
    nodes[0].children = c0;
    nodes[0].params = p0;
    bsync_blend_tree_desc td = {pn, defaults, 1, mn, 3, nodes, 1, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

static bsync_graph* switch_graph(uint32_t initial, int with_skeleton) {
    bsync_graph_desc d;
    memset(&d, 0, sizeof d);
    for (int i = 0; i < 3; i++) g_clips[i] = g_h.clips[i];
    memset(g_opts, 0, sizeof g_opts);
    g_opts[0].sync = BSYNC_SYNC_NONE;
    d.tree = g_tree;
    d.skeleton = with_skeleton ? g_h.skeleton : NULL;
    d.clips = with_skeleton ? g_clips : NULL;
    d.tick_rate = 30;
    d.node_options = g_opts;
    bsync_graph_switch_desc sw = {0, initial};
    bsync_graph_extras x;
    memset(&x, 0, sizeof x);
    x.switches = &sw;
    x.switch_count = 1;
    bsync_graph* g = NULL;
    assert_int_equal(bsync_graph_create_ex(&d, &x, NULL, &g), BSYNC_OK);
    return g;
}

typedef struct inst_box { void* mem; size_t size; bsync_instance* inst; } inst_box;

static inst_box new_instance(const bsync_graph* g) {
    inst_box b;
    b.size = bsync_instance_memory_size(g);
    b.mem = aligned_alloc(8, (b.size + 7) & ~(size_t)7);
    assert_non_null(b.mem);
    assert_int_equal(bsync_instance_init(b.mem, b.size, g, &b.inst), BSYNC_OK);
    return b;
}
static inst_box copy_instance(const inst_box* a) { /* memcpy is a working copy (instance.h) */
    inst_box b = *a;
    b.mem = aligned_alloc(8, (b.size + 7) & ~(size_t)7);
    assert_non_null(b.mem);
    memcpy(b.mem, a->mem, a->size);
    b.inst = (bsync_instance*)b.mem;
    return b;
}

static const fix16_t g_target[1] = {0};

static bsync_result tick_r(bsync_instance* inst, const bsync_switch_trigger* t, uint32_t n) {
    bsync_instance_input in = {g_target, 1};
    return bsync_instance_tick_ex(inst, &in, t, n);
}
static void tick(bsync_instance* inst, const bsync_switch_trigger* t, uint32_t n) {
    assert_int_equal(tick_r(inst, t, n), BSYNC_OK);
}
static bsync_switch_trigger play(uint32_t child, uint32_t fade, uint32_t inert) {
    bsync_switch_trigger t;
    memset(&t, 0, sizeof t);
    t.child = child;
    t.fade_ticks = fade;
    t.inertialize = inert;
    return t;
}
static void pose_of(bsync_instance* inst, bsync_trs out[J]) {
    assert_int_equal(bsync_instance_pose(inst, out, NULL), BSYNC_OK);
}
static uint64_t pose_sum(bsync_instance* inst) {
    uint64_t h = 0;
    assert_int_equal(bsync_instance_pose_checksum(inst, &h, NULL), BSYNC_OK);
    return h;
}
static bsync_inertia_state inert_of(const bsync_instance* inst) {
    bsync_inertia_state s;
    assert_int_equal(bsync_instance_inertia_state(inst, 0, &s), BSYNC_OK);
    return s;
}
static int same_pose(const bsync_trs* a, const bsync_trs* b) { return memcmp(a, b, J * sizeof(bsync_trs)) == 0; }

/* Largest |component difference| between rotations a and b taken up to sign (same rotation). */
static int32_t quat_diff(bsync_quat a, bsync_quat b) {
    double dot = (double)a.x * b.x + (double)a.y * b.y + (double)a.z * b.z + (double)a.w * b.w;
    int32_t s = dot < 0 ? -1 : 1, m = 0;
    const int32_t d[4] = {a.x - s * b.x, a.y - s * b.y, a.z - s * b.z, a.w - s * b.w};
    for (int i = 0; i < 4; i++) m = abs(d[i]) > m ? abs(d[i]) : m;
    return m;
}
/* Angle (radians) of the rotation from a to b, in double. */
static double quat_angle(bsync_quat a, bsync_quat b) {
    double ax = a.x / 65536.0, ay = a.y / 65536.0, az = a.z / 65536.0, aw = a.w / 65536.0;
    double bx = b.x / 65536.0, by = b.y / 65536.0, bz = b.z / 65536.0, bw = b.w / 65536.0;
    double na = sqrt(ax * ax + ay * ay + az * az + aw * aw), nb = sqrt(bx * bx + by * by + bz * bz + bw * bw);
    double dot = fabs(ax * bx + ay * by + az * bz + aw * bw) / (na * nb);
    if (dot > 1.0) dot = 1.0;
    return 2.0 * acos(dot);
}

static int setup(void** state) {
    (void)state;
    if (bsync_procedural_humanoid_create(NULL, &g_h) != BSYNC_OK) return -1;
    g_tree = make_tree();
    return 0;
}
static int teardown(void** state) {
    (void)state;
    bsync_blend_tree_destroy(g_tree);
    bsync_procedural_humanoid_destroy(&g_h);
    return 0;
}

/* ------------------------------------------------------------------ the decay factor */

static double decay_ref(uint32_t k, uint32_t T) {
    const double s = (double)(((uint64_t)k * 65536u + T / 2u) / T) / 65536.0; /* the documented s */
    return pow(1.0 - s, 4) * (1.0 + 4.0 * s);
}

static void test_decay_values(void** state) {
    (void)state;
    static const uint32_t Ts[] = {1, 2, 3, 4, 7, 10, 60, 1000, BSYNC_SWITCH_MAX_FADE_TICKS};
    for (size_t i = 0; i < sizeof Ts / sizeof Ts[0]; i++) {
        const uint32_t T = Ts[i];
        assert_int_equal(bsync_instance_inertia_decay(0, T), BSYNC_FX_ONE); /* x(0) = 1 */
        assert_int_equal(bsync_instance_inertia_decay(T, T), 0);            /* x(1) = 0 */
        assert_int_equal(bsync_instance_inertia_decay(T + 5u, T), 0);
        if (T % 2u == 0) assert_int_equal(bsync_instance_inertia_decay(T / 2u, T), 12288); /* 3/16 exactly */
    }
    assert_int_equal(bsync_instance_inertia_decay(0, 0), 0);
    /* hand-worked dyadic points: s = 1/4: (3/4)^4 * 2 = 0.6328125 = 41472 raw; s = 3/4: (1/4)^4 * 4 =
     * 0.015625 = 1024 raw (every Horner step is exact there) */
    assert_int_equal(bsync_instance_inertia_decay(1, 4), 41472);
    assert_int_equal(bsync_instance_inertia_decay(3, 4), 1024);
    /* every k of a few lengths: within 3 raw steps of the exact polynomial at the rounded s (five
     * roundings of half a step each, multiplied by |s| <= 1), in [0, 1], non-increasing up to the
     * documented one-raw-step rounding wobble where x is a few raw steps (T = 257 shows it) */
    static const uint32_t Tk[] = {3, 7, 10, 33, 60, 257};
    for (size_t i = 0; i < sizeof Tk / sizeof Tk[0]; i++) {
        fix16_t prev = BSYNC_FX_ONE;
        for (uint32_t k = 0; k <= Tk[i]; k++) {
            const fix16_t x = bsync_instance_inertia_decay(k, Tk[i]);
            assert_true(fabs(x - decay_ref(k, Tk[i]) * 65536.0) <= 3.0);
            assert_true(x >= 0 && x <= prev + 1);
            prev = x;
        }
    }
    /* zero initial velocity: the first step of a long decay is tiny (1 - x ~ 10 s^2) */
    assert_true(BSYNC_FX_ONE - bsync_instance_inertia_decay(1, 1000) <= 2);
}

/* ------------------------------------------------------------------ idle -> run over 10 ticks */

enum { PRE = 7 }; /* ticks of idle before the trigger */

static void test_idle_to_run(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, 1);
    bsync_graph* gr = switch_graph(RUN, 1);
    inst_box a = new_instance(g), old = new_instance(g), inst = new_instance(g);
    for (int k = 0; k < PRE; k++) {
        tick(a.inst, NULL, 0);
        tick(old.inst, NULL, 0);
        tick(inst.inst, NULL, 0);
    }
    bsync_trs pa[J], po[J], pr[J], pi[J], prev_a[J], prev_i[J];
    pose_of(a.inst, prev_a);
    pose_of(inst.inst, prev_i);
    assert_true(same_pose(prev_a, prev_i));
    /* the trigger tick */
    inst_box r = new_instance(gr); /* run's clock from 0, advanced with the same steps from now on */
    const bsync_switch_trigger ti = play(RUN, T10, 1), t0 = play(RUN, 0, 0);
    tick(a.inst, &ti, 1);
    tick(old.inst, NULL, 0);
    tick(inst.inst, &t0, 1);
    tick(r.inst, NULL, 0);
    /* weights switched at once, like the instant switch */
    const fix16_t* w = bsync_instance_node_weights(a.inst, 0);
    assert_int_equal(w[IDLE], 0);
    assert_int_equal(w[RUN], BSYNC_FX_ONE);
    bsync_inertia_state s = inert_of(a.inst);
    assert_int_equal(s.active, 1);
    assert_int_equal(s.elapsed, 0);
    assert_int_equal(s.total, T10);
    assert_int_equal(s.decay, BSYNC_FX_ONE);
    pose_of(a.inst, pa);
    pose_of(old.inst, po);
    pose_of(r.inst, pr);
    pose_of(inst.inst, pi);
    assert_true(same_pose(pi, pr)); /* the instant switch shows run at once: the pop */
    assert_false(same_pose(po, pr));
    bsync_vec3 off_t[J];
    int32_t worst_r = 0;
    for (int j = 0; j < J; j++) { /* the OLD pose: translation exact, rotation within a raw step */
        assert_int_equal(pa[j].t.x, po[j].t.x);
        assert_int_equal(pa[j].t.y, po[j].t.y);
        assert_int_equal(pa[j].t.z, po[j].t.z);
        const int32_t d = quat_diff(pa[j].r, po[j].r);
        worst_r = d > worst_r ? d : worst_r;
        assert_true(d <= 1);
        assert_true(memcmp(&pa[j].s, &pr[j].s, sizeof pa[j].s) == 0); /* scale: the new state's */
        off_t[j] = bsync_vec3_make(po[j].t.x - pr[j].t.x, po[j].t.y - pr[j].t.y, po[j].t.z - pr[j].t.z);
    }
    print_message("trigger tick: largest rotation component difference from the OLD pose %d raw\n", worst_r);
    double max_a = 0, max_i = 0;
    for (int j = 0; j < J; j++) {
        max_a = fmax(max_a, quat_angle(prev_a[j].r, pa[j].r));
        max_i = fmax(max_i, quat_angle(prev_i[j].r, pi[j].r));
    }
    memcpy(prev_a, pa, sizeof pa);
    memcpy(prev_i, pi, sizeof pi);
    /* the decay ticks */
    for (uint32_t k = 1; k <= T10 + 3u; k++) {
        tick(a.inst, NULL, 0);
        tick(inst.inst, NULL, 0);
        tick(r.inst, NULL, 0);
        pose_of(a.inst, pa);
        pose_of(inst.inst, pi);
        pose_of(r.inst, pr);
        s = inert_of(a.inst);
        if (k < T10) {
            assert_int_equal(s.active, 1);
            assert_int_equal(s.elapsed, k);
            assert_false(same_pose(pa, pr));
            assert_true(bsync_instance_state_checksum(a.inst) != bsync_instance_state_checksum(inst.inst));
        } else {
            assert_int_equal(s.active, 0); /* T ticks after the trigger: the pure new-state pose */
            assert_true(same_pose(pa, pr));
            assert_true(pose_sum(a.inst) == pose_sum(r.inst));
            /* only the inertialization differed: the state checksums agree again */
            assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(inst.inst));
        }
        if (k == T10 / 2u) /* x = 0.1875 of the trigger tick's offset, on top of run */
            for (int j = 0; j < J; j++) {
                assert_true(fabs((pa[j].t.x - pr[j].t.x) - 0.1875 * off_t[j].x) <= 1.0);
                assert_true(fabs((pa[j].t.y - pr[j].t.y) - 0.1875 * off_t[j].y) <= 1.0);
                assert_true(fabs((pa[j].t.z - pr[j].t.z) - 0.1875 * off_t[j].z) <= 1.0);
            }
        for (int j = 0; j < J; j++) {
            max_a = fmax(max_a, quat_angle(prev_a[j].r, pa[j].r));
            max_i = fmax(max_i, quat_angle(prev_i[j].r, pi[j].r));
        }
        memcpy(prev_a, pa, sizeof pa);
        memcpy(prev_i, pi, sizeof pi);
    }
    print_message("largest per-tick joint rotation step: inertialized %.4f rad, instant %.4f rad\n", max_a, max_i);
    assert_true(max_a < max_i);
    free(a.mem); free(old.mem); free(inst.mem); free(r.mem);
    bsync_graph_destroy(g);
    bsync_graph_destroy(gr);
}

/* ------------------------------------------------------------------ snapshots */

static void test_save_load(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g);
    const size_t base = bsync_instance_snapshot_size(g), max = bsync_instance_snapshot_size_max(g);
    assert_int_equal(max, base + 4u + 12u + 28u * J); /* one switch, J joints */
    assert_int_equal(bsync_instance_snapshot_size_now(a.inst), base);
    unsigned char* v2 = (unsigned char*)malloc(max);
    unsigned char* v3 = (unsigned char*)malloc(max);
    size_t n2 = 0, n3 = 0;
    for (int k = 0; k < 5; k++) tick(a.inst, NULL, 0);
    assert_int_equal(bsync_instance_save(a.inst, v2, max, &n2), BSYNC_OK);
    assert_int_equal(n2, base);
    assert_int_equal(v2[4], 2); /* version 2: no inertialization */
    const bsync_switch_trigger ti = play(RUN, T10, 1);
    tick(a.inst, &ti, 1);
    for (int k = 0; k < 3; k++) tick(a.inst, NULL, 0);
    assert_int_equal(bsync_instance_snapshot_size_now(a.inst), max);
    assert_int_equal(bsync_instance_save(a.inst, v3, base, &n3), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_instance_save(a.inst, v3, max, &n3), BSYNC_OK);
    assert_int_equal(n3, max);
    assert_int_equal(v3[4], 3);
    assert_memory_equal(v3 + 8, v2 + 8, 8); /* same graph hash */
    inst_box b = new_instance(g);
    assert_int_equal(bsync_instance_load(b.inst, v3, n3), BSYNC_OK);
    assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(b.inst));
    assert_true(pose_sum(a.inst) == pose_sum(b.inst));
    bsync_inertia_state s = inert_of(b.inst);
    assert_int_equal(s.active, 1);
    assert_int_equal(s.elapsed, 3);
    for (int k = 0; k < 12; k++) { /* the rest of the decay and beyond: identical */
        tick(a.inst, NULL, 0);
        tick(b.inst, NULL, 0);
        assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(b.inst));
        assert_true(pose_sum(a.inst) == pose_sum(b.inst));
    }
    assert_int_equal(inert_of(b.inst).active, 0);
    /* loading the version 2 snapshot into an inertializing instance clears the inertialization */
    inst_box c = new_instance(g);
    assert_int_equal(bsync_instance_load(c.inst, v3, n3), BSYNC_OK);
    assert_int_equal(bsync_instance_load(c.inst, v2, n2), BSYNC_OK);
    assert_int_equal(inert_of(c.inst).active, 0);
    /* corrupted version 3 blobs are refused, the instance untouched */
    assert_int_equal(bsync_instance_load(c.inst, v3, n3), BSYNC_OK);
    const uint64_t before = bsync_instance_state_checksum(c.inst);
    unsigned char* bad = (unsigned char*)malloc(max);
    memcpy(bad, v3, n3);
    bad[base + 10] ^= 1; /* inside the block: the XXH64 catches it */
    assert_int_equal(bsync_instance_load(c.inst, bad, n3), BSYNC_BAD_BLOB);
    const size_t blk = base - 8u; /* the block starts where the version 2 hash was */
    struct { size_t at; uint32_t v; } cases[] = {
        {blk, 0},            /* A = 0 */
        {blk, 2},            /* A > W (and the length no longer matches) */
        {blk + 4, 1},        /* switch index 1 >= W */
        {blk + 8, T10},      /* e = T */
        {blk + 12, 0},       /* T = 0 */
        {blk + 16, 0x80000000u}, /* offset translation INT32_MIN */
        {blk + 16 + 24, 0xFFFF0000u}, /* q.w < 0 */
        {blk + 16 + 12, 65537}, /* q.x > 1.0 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(bad, v3, n3);
        for (int k = 0; k < 4; k++) bad[cases[i].at + (size_t)k] = (unsigned char)(cases[i].v >> (8 * k));
        const uint64_t h = bsync_checksum_xxh64(bad, n3 - 8u, 0);
        for (int k = 0; k < 8; k++) bad[n3 - 8u + (size_t)k] = (unsigned char)(h >> (8 * k));
        assert_int_equal(bsync_instance_load(c.inst, bad, n3), BSYNC_BAD_BLOB);
        assert_true(bsync_instance_state_checksum(c.inst) == before);
    }
    /* a version 3 blob is refused by a graph that cannot inertialize (no skeleton: its own hash
     * differs, so write its own v2 blob and relabel it version 3) */
    bsync_graph* gn = switch_graph(IDLE, 0);
    assert_int_equal(bsync_instance_snapshot_size_max(gn), bsync_instance_snapshot_size(gn));
    inst_box d = new_instance(gn);
    size_t nn = 0;
    assert_int_equal(bsync_instance_save(d.inst, bad, max, &nn), BSYNC_OK);
    bad[4] = 3;
    const uint64_t h = bsync_checksum_xxh64(bad, nn - 8u, 0);
    for (int k = 0; k < 8; k++) bad[nn - 8u + (size_t)k] = (unsigned char)(h >> (8 * k));
    assert_int_equal(bsync_instance_load(d.inst, bad, nn), BSYNC_BAD_BLOB);
    free(bad); free(v2); free(v3);
    free(a.mem); free(b.mem); free(c.mem); free(d.mem);
    bsync_graph_destroy(g);
    bsync_graph_destroy(gn);
}

/* ------------------------------------------------------------------ interruptions */

static void test_interrupt_crossfade(void** state) {
    (void)state;
    /* idle -inertialized(10)-> run, 4 ticks later a 6-tick cross-fade to walk: the offset keeps
     * decaying on top of the fade and ends on its own schedule; x = an instance that switched to run
     * instantly at the same tick and cross-fades the same way: identical once the offset is gone */
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g), x = new_instance(g);
    for (int k = 0; k < 3; k++) { tick(a.inst, NULL, 0); tick(x.inst, NULL, 0); }
    const bsync_switch_trigger ti = play(RUN, T10, 1), t0 = play(RUN, 0, 0), tf = play(WALK, 6, 0);
    tick(a.inst, &ti, 1);
    tick(x.inst, &t0, 1);
    for (uint32_t k = 1; k <= 14; k++) {
        const int fade = k == 4;
        tick(a.inst, fade ? &tf : NULL, fade ? 1u : 0u);
        tick(x.inst, fade ? &tf : NULL, fade ? 1u : 0u);
        const bsync_inertia_state s = inert_of(a.inst);
        assert_memory_equal(bsync_instance_node_weights(a.inst, 0), bsync_instance_node_weights(x.inst, 0),
                            3 * sizeof(fix16_t));
        if (k < T10) {
            assert_int_equal(s.active, 1);
            assert_int_equal(s.elapsed, k); /* not restarted by the cross-fade */
            assert_true(pose_sum(a.inst) != pose_sum(x.inst));
        } else {
            assert_int_equal(s.active, 0);
            assert_true(pose_sum(a.inst) == pose_sum(x.inst));
            assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(x.inst));
        }
        if (k == 6) assert_true(bsync_instance_node_weights(a.inst, 0)[WALK] > 0); /* fading in */
    }
    free(a.mem); free(x.mem);
    bsync_graph_destroy(g);
}

static void test_interrupt_inertialized(void** state) {
    (void)state;
    /* idle -inertialized(10)-> run; 4 ticks later -inertialized(8)-> walk: the new offset starts from
     * what was being shown (the running offset included), so the trigger tick shows what an untouched
     * copy shows; 8 ticks later the pose is that of an instance that switched instantly twice */
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g), z = new_instance(g);
    for (int k = 0; k < 3; k++) { tick(a.inst, NULL, 0); tick(z.inst, NULL, 0); }
    const bsync_switch_trigger t1 = play(RUN, T10, 1), t2 = play(WALK, 8, 1);
    const bsync_switch_trigger z1 = play(RUN, 0, 0), z2 = play(WALK, 0, 0);
    tick(a.inst, &t1, 1);
    tick(z.inst, &z1, 1);
    for (int k = 0; k < 3; k++) { tick(a.inst, NULL, 0); tick(z.inst, NULL, 0); }
    inst_box y = copy_instance(&a); /* never sees the second trigger */
    tick(a.inst, &t2, 1);
    tick(y.inst, NULL, 0);
    tick(z.inst, &z2, 1);
    bsync_inertia_state s = inert_of(a.inst);
    assert_int_equal(s.active, 1);
    assert_int_equal(s.elapsed, 0);
    assert_int_equal(s.total, 8);
    assert_int_equal(inert_of(y.inst).elapsed, 4);
    bsync_trs pa[J], py[J];
    pose_of(a.inst, pa);
    pose_of(y.inst, py);
    int32_t worst_t = 0, worst_r = 0;
    for (int j = 0; j < J; j++) {
        worst_t = abs(pa[j].t.x - py[j].t.x) > worst_t ? abs(pa[j].t.x - py[j].t.x) : worst_t;
        worst_t = abs(pa[j].t.y - py[j].t.y) > worst_t ? abs(pa[j].t.y - py[j].t.y) : worst_t;
        worst_t = abs(pa[j].t.z - py[j].t.z) > worst_t ? abs(pa[j].t.z - py[j].t.z) : worst_t;
        const int32_t d = quat_diff(pa[j].r, py[j].r);
        worst_r = d > worst_r ? d : worst_r;
    }
    print_message("interrupting inertialization: trigger tick vs untouched copy: translation %d, rotation %d raw\n",
                  worst_t, worst_r);
    assert_true(worst_t <= 1); /* the running offset is recomputed from the same fields: one rounding */
    assert_true(worst_r <= 2);
    for (uint32_t k = 1; k <= 9; k++) {
        tick(a.inst, NULL, 0);
        tick(z.inst, NULL, 0);
        s = inert_of(a.inst);
        if (k < 8) {
            assert_int_equal(s.elapsed, k);
            assert_true(pose_sum(a.inst) != pose_sum(z.inst));
        } else {
            assert_int_equal(s.active, 0);
            assert_true(pose_sum(a.inst) == pose_sum(z.inst));
            assert_true(bsync_instance_state_checksum(a.inst) == bsync_instance_state_checksum(z.inst));
        }
    }
    free(a.mem); free(y.mem); free(z.mem);
    bsync_graph_destroy(g);
}

/* Two triggers for one switch in one tick, the first instant: used to divide by zero. */
static void test_same_tick_pair(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g), b = new_instance(g);
    tick(a.inst, NULL, 0);
    tick(b.inst, NULL, 0);
    const bsync_switch_trigger pair[2] = {play(RUN, 4, 1), play(WALK, 5, 0)};
    tick(a.inst, pair, 2);
    /* run had full weight when walk was pushed: walk fades in over run, idle at 0 */
    const fix16_t* w = bsync_instance_node_weights(a.inst, 0);
    assert_int_equal(w[IDLE], 0);
    assert_int_equal(w[WALK], 13107); /* 1/5 */
    assert_int_equal(w[RUN], BSYNC_FX_ONE - 13107);
    assert_int_equal(inert_of(a.inst).active, 1);
    assert_int_equal(inert_of(a.inst).total, 4);
    free(a.mem); free(b.mem);
    bsync_graph_destroy(g);
}

/* ------------------------------------------------------------------ arguments */

static void test_invalid(void** state) {
    (void)state;
    bsync_graph* g = switch_graph(IDLE, 1);
    inst_box a = new_instance(g);
    tick(a.inst, NULL, 0);
    const uint64_t sum = bsync_instance_state_checksum(a.inst);
    bsync_switch_trigger bad[3] = {play(RUN, 5, 2), play(RUN, 0, 1), play(RUN, BSYNC_SWITCH_MAX_FADE_TICKS + 1u, 1)};
    for (int i = 0; i < 3; i++) {
        bsync_switch_trigger two[2] = {play(WALK, 3, 1), bad[i]}; /* a valid one first: nothing applied */
        assert_int_equal(tick_r(a.inst, two, 2), BSYNC_INVALID_ARGUMENT);
        assert_int_equal(bsync_instance_tick_count(a.inst), 1);
        assert_true(bsync_instance_state_checksum(a.inst) == sum);
        assert_int_equal(inert_of(a.inst).active, 0);
    }
    /* the longest decay is accepted */
    bsync_switch_trigger longest = play(RUN, BSYNC_SWITCH_MAX_FADE_TICKS, 1);
    tick(a.inst, &longest, 1);
    assert_int_equal(inert_of(a.inst).total, BSYNC_SWITCH_MAX_FADE_TICKS);
    /* repeating the newest state is ignored, inertialized or not: the running one is untouched */
    bsync_switch_trigger again = play(RUN, 3, 1);
    tick(a.inst, &again, 1);
    assert_int_equal(inert_of(a.inst).total, BSYNC_SWITCH_MAX_FADE_TICKS);
    assert_int_equal(inert_of(a.inst).elapsed, 1);
    bsync_inertia_state s;
    assert_int_equal(bsync_instance_inertia_state(NULL, 0, &s), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_inertia_state(a.inst, 1, &s), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_inertia_state(a.inst, 0, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_instance_snapshot_size_now(NULL), 0);
    assert_int_equal(bsync_instance_snapshot_size_max(NULL), 0);
    /* no skeleton: BSYNC_MISMATCH, but argument errors come first; a cross-fade still works */
    bsync_graph* gn = switch_graph(IDLE, 0);
    inst_box n = new_instance(gn);
    const bsync_switch_trigger ti = play(RUN, 5, 1);
    assert_int_equal(tick_r(n.inst, &ti, 1), BSYNC_MISMATCH);
    assert_int_equal(bsync_instance_tick_count(n.inst), 0);
    bsync_switch_trigger mixed[2] = {ti, play(RUN, 5, 7)};
    assert_int_equal(tick_r(n.inst, mixed, 2), BSYNC_INVALID_ARGUMENT);
    const bsync_switch_trigger tf = play(RUN, 5, 0);
    tick(n.inst, &tf, 1);
    assert_int_equal(bsync_instance_inertia_state(n.inst, 0, &s), BSYNC_OK);
    assert_int_equal(s.active, 0);
    /* the instance memory grows only for switch graphs with a skeleton */
    assert_true(bsync_instance_memory_size(g) > bsync_instance_memory_size(gn));
    free(a.mem); free(n.mem);
    bsync_graph_destroy(g);
    bsync_graph_destroy(gn);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decay_values),
        cmocka_unit_test(test_idle_to_run),
        cmocka_unit_test(test_save_load),
        cmocka_unit_test(test_interrupt_crossfade),
        cmocka_unit_test(test_interrupt_inertialized),
        cmocka_unit_test(test_same_tick_pair),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
