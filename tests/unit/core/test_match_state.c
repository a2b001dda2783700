/* test_match_state.c — the rollback state (match.h bsync_match_state_*, docs/match.md "Rollback
 * state") and snapshot loads that keep the sample cursors.
 *
 * The reference is a match that is never rolled back: every tick's blend checksum, pose checksum, the
 * characters' action reports (events and ranges) and root-motion deltas are recorded. A second match
 * plays the same frames, but keeps a ring of saved states and, at random points, restores an earlier
 * one (after ticks simulated with wrong frames, as a mispredicting client does, so its caches belong
 * to another timeline) or loads a portable snapshot; after every restore and every tick it must equal
 * the reference at that tick. The graph is the demo's locomotion graph (blend spaces, an override layer
 * with a mask, a Switch) with the trigger set to inertialize, the punch a one-shot with a range event
 * and an instant event, and an exit back to locomotion; the test asserts that events, range entries,
 * exits and inertializations actually happened (otherwise it would prove nothing). The saved bytes
 * must not depend on caches: computing poses between two saves, or having rolled back, changes none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/instance.h"
#include "blendsync/io/match_config.h"
#include "blendsync/match.h"
#include "test_support.h"

#define TICKS 900u
#define RING 32u

/* ---------------------------------------------------------------- the match */

typedef struct graph_text {
    char* text;
    size_t len;
} graph_text;

static graph_text g_graph; /* the patched demo graph */

static char* replace_once(char* text, size_t* len, const char* key, const char* with) {
    char* at = strstr(text, key);
    assert_non_null(at); /* the demo graph changed: this test must be told */
    const size_t head = (size_t)(at - text), kl = strlen(key), wl = strlen(with);
    char* out = malloc(*len - kl + wl + 1u);
    assert_non_null(out);
    memcpy(out, text, head);
    memcpy(out + head, with, wl);
    memcpy(out + head + wl, at + kl, *len - head - kl);
    *len = *len - kl + wl;
    out[*len] = '\0';
    free(text);
    return out;
}

static bsync_result read_graph(const char* path, const void** data, size_t* size, void* user) {
    (void)user;
    const size_t n = strlen(path), m = strlen("humanoid_locomotion.json");
    if (n < m || strcmp(path + n - m, "humanoid_locomotion.json") != 0) return BSYNC_IO_ERROR;
    *data = g_graph.text;
    *size = g_graph.len;
    return BSYNC_OK;
}
static void release_graph(const char* path, const void* data, size_t size, void* user) {
    (void)path, (void)data, (void)size, (void)user;
}

/* inertialize: the trigger's inertialize flag (a different match hash without it). */
static bsync_match_config* load_match(int inertialize) {
    if (!g_graph.text) {
        char path[1024];
        snprintf(path, sizeof path, "%s/scripts/demo/humanoid_locomotion.json", BSYNC_SOURCE_DIR);
        size_t n = 0;
        char* t = bsync_test_read_file(path, &n);
        assert_non_null(t);
        t = replace_once(t, &n, "{ \"motion\": \"punch\" }", "{ \"motion\": \"punch\", \"exit\": { \"to\": \"move\", \"fade\": 4 } }");
        t = replace_once(t, &n, "\"payload\": 10 } ]",
                         "\"payload\": 10 }, { \"name\": \"whoosh\", \"time\": 0.1, \"policy\": \"always\" } ]");
        g_graph.text = t;
        g_graph.len = n;
    }
    char text[4096];
    int len = snprintf(text, sizeof text,
                       "{ \"match_id\": 1, \"players\": [ {\"token\": \"a\"}, {\"token\": \"b\"}, {\"token\": \"c\"} ],\n"
                       " \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5}, "
                       "{\"name\": \"move_x\", \"min\": -1, \"max\": 1}, {\"name\": \"move_y\", \"min\": -1, \"max\": 1} ],\n"
                       " \"triggers\": [ {\"name\": \"action\", \"switch\": \"upper\", \"fade_ticks\": 5, %s\"script_states\": 3} ],"
                       " \"hold_ticks\": [3, 15] },\n \"characters\": [",
                       inertialize ? "\"inertialize\": true, " : "");
    for (uint32_t k = 0; k < 6; k++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%s {\"name\": \"c%u\", \"graph\": \"humanoid_locomotion.json\", %s%u}",
                        k ? "," : "", k, k < 3 ? "\"slot\": " : "\"npc_seed\": ", k < 3 ? k : 40u + k);
    len += snprintf(text + len, sizeof text - (size_t)len, " ] }\n");
    bsync_config_load_options opt;
    memset(&opt, 0, sizeof opt);
    opt.file.read = read_graph;
    opt.file.release = release_graph;
    bsync_match_config* mc = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    const bsync_result r = bsync_match_config_parse_ex(text, (size_t)len, "state-test", "", &opt, NULL, &mc, &err);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    return mc;
}

/* The frames: the players' seeded scripts (seed picks the timeline). */
static bsync_match_frame* make_frames(const bsync_match_desc* d, uint32_t n, uint64_t seed) {
    bsync_match_frame* f = calloc(n, sizeof *f);
    assert_non_null(f);
    bsync_match_script s[BSYNC_MATCH_MAX_PLAYERS];
    for (uint32_t p = 0; p < d->player_count; p++) bsync_match_script_init(&s[p], seed + p);
    for (uint32_t t = 0; t < n; t++) {
        f[t].player_count = d->player_count;
        for (uint32_t p = 0; p < d->player_count; p++) bsync_match_random_input(&s[p], d, &f[t].players[p]);
    }
    return f;
}

/* ---------------------------------------------------------------- what is observable */

typedef struct observed {
    uint64_t tick, blend, pose, events, roots;
    uint32_t reports, entries, exits, inertializing;
} observed;

static observed observe(bsync_match* m, int with_poses) {
    observed o;
    memset(&o, 0, sizeof o);
    bsync_match_checksums cs;
    assert_int_equal(bsync_match_get_checksums(m, with_poses, &cs), BSYNC_OK);
    o.tick = cs.tick;
    o.blend = cs.blend;
    o.pose = cs.pose;
    bsync_checksum_state ev, rm;
    bsync_checksum_init(&ev, 1);
    bsync_checksum_init(&rm, 2);
    for (uint32_t c = 0; c < bsync_match_character_count(m); c++) {
        const bsync_instance* inst = bsync_match_instance_const(m, c);
        const bsync_action_report* rep = NULL;
        uint32_t n = 0;
        assert_int_equal(bsync_instance_actions(inst, &rep, &n), BSYNC_OK);
        bsync_checksum_u32(&ev, n);
        for (uint32_t i = 0; i < n; i++) {
            bsync_checksum_u32(&ev, rep[i].action);
            bsync_checksum_u32(&ev, rep[i].node);
            bsync_checksum_u32(&ev, rep[i].child);
            bsync_checksum_u32(&ev, rep[i].kind);
            bsync_checksum_u32(&ev, rep[i].count);
            bsync_checksum_u32(&ev, rep[i].exits);
            bsync_checksum_u32(&ev, rep[i].active);
            bsync_checksum_u32(&ev, (uint32_t)rep[i].payload);
            o.entries += rep[i].kind == BSYNC_ACTION_RANGE ? rep[i].count : 0u;
            o.exits += rep[i].exits;
        }
        o.reports += n;
        bsync_root_motion r;
        assert_int_equal(bsync_instance_root_motion(inst, &r), BSYNC_OK);
        bsync_checksum_fx(&rm, r.translation.x);
        bsync_checksum_fx(&rm, r.translation.y);
        bsync_checksum_fx(&rm, r.translation.z);
        bsync_checksum_fx(&rm, r.rotation.x);
        bsync_checksum_fx(&rm, r.rotation.y);
        bsync_checksum_fx(&rm, r.rotation.z);
        bsync_checksum_fx(&rm, r.rotation.w);
        bsync_inertia_state in;
        if (bsync_instance_inertia_state(inst, 0, &in) == BSYNC_OK && in.active) o.inertializing++;
    }
    o.events = bsync_checksum_final(&ev);
    o.roots = bsync_checksum_final(&rm);
    return o;
}

static void assert_same(const observed* got, const observed* want, int poses, const char* where, uint64_t t) {
    if (got->tick != want->tick || got->blend != want->blend || got->events != want->events ||
        got->roots != want->roots || (poses && got->pose != want->pose))
        fprintf(stderr, "%s at tick %llu differs from the reference\n", where, (unsigned long long)t);
    assert_int_equal(got->tick, want->tick);
    assert_int_equal(got->blend, want->blend);
    assert_int_equal(got->events, want->events);
    assert_int_equal(got->roots, want->roots);
    if (poses) assert_int_equal(got->pose, want->pose);
}

/* ---------------------------------------------------------------- tests */

static void test_restore_then_ticks_equal_no_rollback(void** state) {
    (void)state;
    bsync_match_config* mc = load_match(1);
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    bsync_match_frame* right = make_frames(d, TICKS, 500);
    bsync_match_frame* wrong = make_frames(d, TICKS, 900); /* another timeline: the mispredictions */
    void *rmem = NULL, *mmem = NULL;
    bsync_match* ref = bsync_test_match_new(d, &rmem);
    bsync_match* m = bsync_test_match_new(d, &mmem);
    observed* want = calloc(TICKS + 1u, sizeof *want);
    assert_non_null(want);
    uint32_t reports = 0, entries = 0, exits = 0, inert_ticks = 0;
    want[0] = observe(ref, 1);
    for (uint32_t t = 0; t < TICKS; t++) {
        assert_int_equal(bsync_match_tick(ref, &right[t]), BSYNC_OK);
        want[t + 1u] = observe(ref, 1);
        reports += want[t + 1u].reports;
        entries += want[t + 1u].entries;
        exits += want[t + 1u].exits;
        inert_ticks += want[t + 1u].inertializing > 0;
    }
    /* the run exercises what a restore must carry */
    assert_true(reports > 20u);
    assert_true(entries > 5u);
    assert_true(exits > 5u);
    assert_true(inert_ticks > 20u);

    const size_t ss = bsync_match_state_size(m);
    assert_true(ss > 0);
    assert_int_equal(ss, bsync_match_state_size(ref)); /* constant per desc */
    unsigned char* ring = malloc(ss * RING);
    uint64_t ring_tick[RING];
    for (uint32_t i = 0; i < RING; i++) ring_tick[i] = UINT64_MAX;
    const size_t snap_cap = bsync_match_snapshot_size_max(m);
    unsigned char* snap = malloc(snap_cap);
    assert_non_null(ring);
    assert_non_null(snap);
    size_t snap_len = 0;
    uint64_t snap_tick = UINT64_MAX;
    uint64_t rng = 77;
    uint32_t restores = 0, loads = 0, mispredicted = 0, max_depth = 0;
    uint64_t t = 0;
    uint32_t steps = 0;
    int just_loaded = 0;
    while (t < TICKS) {
        assert_true(++steps < 50000u); /* the walk moves forward on average */
        size_t w = 0;
        /* the state right after a load has no reports of its tick (instance.h): not kept in the ring */
        if (!just_loaded) {
            assert_int_equal(bsync_match_state_save(m, ring + (t % RING) * ss, ss, &w), BSYNC_OK);
            assert_int_equal(w, ss);
        }
        ring_tick[t % RING] = just_loaded ? UINT64_MAX : t;
        just_loaded = 0;
        const uint64_t r = bsync_test_rand(&rng) % 100u;
        uint64_t s = t - bsync_test_rand(&rng) % (t < RING - 1u ? t + 1u : RING - 1u);
        while (s < t && ring_tick[s % RING] != s) s++; /* after a load only the ticks since it are saved */
        if (r < 3u && ring_tick[s % RING] == s) { /* go back to a random saved tick */
            const uint64_t back = t - s;
            assert_int_equal(bsync_match_state_restore(m, ring + (s % RING) * ss, ss), BSYNC_OK);
            const observed o = observe(m, 1);
            assert_same(&o, &want[s], 1, "restore", s);
            if (back > max_depth) max_depth = (uint32_t)back;
            restores++;
            t = s;
        } else if (r < 15u && ring_tick[t % RING] == t) { /* mispredict k ticks (poses too: the caches follow them), then restore */
            const uint32_t k = 1u + (uint32_t)(bsync_test_rand(&rng) % 8u);
            for (uint32_t i = 0; i < k && t + i < TICKS; i++) {
                assert_int_equal(bsync_match_tick(m, &wrong[t + i]), BSYNC_OK);
                (void)observe(m, 1);
            }
            assert_int_equal(bsync_match_state_restore(m, ring + (t % RING) * ss, ss), BSYNC_OK);
            mispredicted++;
            const observed o = observe(m, (int)(bsync_test_rand(&rng) & 1u));
            assert_same(&o, &want[t], o.pose != 0, "restore after misprediction", t);
        } else if (r < 17u) { /* the portable way: a snapshot saved earlier, loaded over a later state */
            if (snap_tick != UINT64_MAX && snap_tick <= t) {
                assert_int_equal(bsync_match_load(m, snap, snap_len), BSYNC_OK);
                loads++;
                t = snap_tick;
                snap_tick = UINT64_MAX; /* the next one is saved afresh */
                just_loaded = 1;
                for (uint32_t i = 0; i < RING; i++) /* ticks after it: not saved since (the ring is older) */
                    if (ring_tick[i] != UINT64_MAX && ring_tick[i] > t) ring_tick[i] = UINT64_MAX;
                /* a load starts the tick's reports afresh (instance.h): compare the blend and the pose */
                const observed o = observe(m, 1);
                assert_int_equal(o.blend, want[t].blend);
                assert_int_equal(o.pose, want[t].pose);
                assert_int_equal(o.roots, want[t].roots);
            } else {
                assert_int_equal(bsync_match_save(m, snap, snap_cap, &snap_len), BSYNC_OK);
                snap_tick = t;
            }
        } else {
            assert_int_equal(bsync_match_tick(m, &right[t]), BSYNC_OK);
            t++;
            const int poses = (int)(bsync_test_rand(&rng) % 3u == 0u);
            const observed o = observe(m, poses);
            assert_same(&o, &want[t], poses, "tick", t);
        }
    }
    /* and the end state is the reference's, every byte of the rollback state */
    unsigned char* a = malloc(ss);
    unsigned char* b = malloc(ss);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(bsync_match_state_save(m, a, ss, NULL), BSYNC_OK);
    assert_int_equal(bsync_match_state_save(ref, b, ss, NULL), BSYNC_OK);
    assert_memory_equal(a, b, ss);
    assert_true(restores > 30u);
    assert_true(mispredicted > 30u);
    assert_true(loads > 2u);
    assert_true(max_depth >= 20u);
    free(a);
    free(b);
    free(snap);
    free(ring);
    free(want);
    free(right);
    free(wrong);
    free(rmem);
    free(mmem);
    bsync_match_config_destroy(mc);
}

/* bsync_match_state_copy from a live match (the predictor's restore) equals the buffer round trip. */
static void test_copy_from_live_match(void** state) {
    (void)state;
    bsync_match_config* mc = load_match(1);
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    bsync_match_frame* right = make_frames(d, 300, 11);
    bsync_match_frame* wrong = make_frames(d, 300, 12);
    void *cmem = NULL, *pmem = NULL;
    bsync_match* confirmed = bsync_test_match_new(d, &cmem);
    bsync_match* predicted = bsync_test_match_new(d, &pmem);
    const uint32_t W = 8;
    for (uint32_t t = 0; t + W < 300u; t++) {
        assert_int_equal(bsync_match_tick(confirmed, &right[t]), BSYNC_OK);
        assert_int_equal(bsync_match_state_copy(predicted, confirmed), BSYNC_OK);
        for (uint32_t k = 1; k <= W; k++) assert_int_equal(bsync_match_tick(predicted, &wrong[t + k]), BSYNC_OK);
        (void)observe(predicted, 1);
        assert_int_equal(bsync_match_state_copy(predicted, confirmed), BSYNC_OK);
        const observed a = observe(predicted, 1), b = observe(confirmed, 1);
        assert_same(&a, &b, 1, "copy", t);
    }
    free(right);
    free(wrong);
    free(cmem);
    free(pmem);
    bsync_match_config_destroy(mc);
}

/* The bytes hold state only: poses computed in between, cursors of another timeline, a match that
 * never computed a pose — the same bytes for the same state. */
static void test_bytes_do_not_depend_on_caches(void** state) {
    (void)state;
    bsync_match_config* mc = load_match(1);
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    bsync_match_frame* right = make_frames(d, 240, 21);
    bsync_match_frame* wrong = make_frames(d, 240, 22);
    void *xm = NULL, *ym = NULL, *zm = NULL;
    bsync_match* x = bsync_test_match_new(d, &xm); /* poses every tick */
    bsync_match* y = bsync_test_match_new(d, &ym); /* never a pose */
    bsync_match* z = bsync_test_match_new(d, &zm); /* another timeline, then copied from y */
    const size_t ss = bsync_match_state_size(x);
    unsigned char *bx = malloc(ss), *by = malloc(ss), *bz = malloc(ss);
    assert_non_null(bx);
    assert_non_null(by);
    assert_non_null(bz);
    uint32_t differs_from_wrong = 0;
    for (uint32_t t = 0; t < 240u; t++) {
        assert_int_equal(bsync_match_tick(x, &right[t]), BSYNC_OK);
        assert_int_equal(bsync_match_tick(y, &right[t]), BSYNC_OK);
        assert_int_equal(bsync_match_tick(z, &wrong[t]), BSYNC_OK);
        (void)observe(x, 1);
        (void)observe(z, 1);
        assert_int_equal(bsync_match_state_save(x, bx, ss, NULL), BSYNC_OK);
        assert_int_equal(bsync_match_state_save(y, by, ss, NULL), BSYNC_OK);
        assert_memory_equal(bx, by, ss);
        (void)observe(y, 1); /* a pose computed: the bytes stay */
        assert_int_equal(bsync_match_state_save(y, bz, ss, NULL), BSYNC_OK);
        assert_memory_equal(bz, by, ss);
        if (t % 16u == 15u) { /* z leaves its timeline: copied from y, then the same bytes */
            assert_int_equal(bsync_match_state_save(z, bz, ss, NULL), BSYNC_OK);
            differs_from_wrong += memcmp(bz, by, ss) != 0;
            assert_int_equal(bsync_match_state_copy(z, y), BSYNC_OK);
            assert_int_equal(bsync_match_state_save(z, bz, ss, NULL), BSYNC_OK);
            assert_memory_equal(bz, by, ss);
            const observed a = observe(z, 1), b = observe(y, 1);
            assert_same(&a, &b, 1, "copied", t);
        }
    }
    assert_int_equal(differs_from_wrong, 15u); /* the timelines really differed each time */
    free(bx);
    free(by);
    free(bz);
    free(right);
    free(wrong);
    free(xm);
    free(ym);
    free(zm);
    bsync_match_config_destroy(mc);
}

/* Refusals leave the match untouched; matches of another desc or other graph objects. */
static void test_errors(void** state) {
    (void)state;
    bsync_match_config* mc = load_match(1);
    bsync_match_config* other = load_match(0);     /* another trigger option: another match hash */
    bsync_match_config* same_hash = load_match(1); /* the same desc hash, other graph objects */
    const bsync_match_desc* d = bsync_match_config_desc(mc);
    bsync_match_frame* f = make_frames(d, 60, 31);
    void *am = NULL, *om = NULL, *sm = NULL;
    bsync_match* a = bsync_test_match_new(d, &am);
    bsync_match* o = bsync_test_match_new(bsync_match_config_desc(other), &om);
    bsync_match* s = bsync_test_match_new(bsync_match_config_desc(same_hash), &sm);
    assert_int_not_equal(bsync_match_hash(d), bsync_match_hash(bsync_match_config_desc(other)));
    assert_int_equal(bsync_match_hash(d), bsync_match_hash(bsync_match_config_desc(same_hash)));
    for (uint32_t t = 0; t < 60u; t++) assert_int_equal(bsync_match_tick(a, &f[t]), BSYNC_OK);
    const size_t ss = bsync_match_state_size(a);
    unsigned char* buf = malloc(ss + 8u);
    assert_non_null(buf);
    assert_int_equal(bsync_match_state_size(NULL), 0);
    assert_int_equal(bsync_match_state_save(a, buf, ss - 1u, NULL), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_match_state_save(NULL, buf, ss, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_state_save(a, NULL, ss, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_state_save(a, buf, ss + 8u, NULL), BSYNC_OK);
    const observed before_s = observe(s, 1);
    assert_int_equal(bsync_match_state_restore(s, buf, ss - 8u), BSYNC_BAD_BLOB);
    assert_int_equal(bsync_match_state_restore(s, buf, ss + 8u), BSYNC_BAD_BLOB);
    assert_int_equal(bsync_match_state_restore(s, buf, 4u), BSYNC_BAD_BLOB);
    assert_int_equal(bsync_match_state_restore(s, NULL, ss), BSYNC_INVALID_ARGUMENT);
    const observed after_s = observe(s, 1);
    assert_same(&after_s, &before_s, 1, "refused", 0);
    assert_int_equal(bsync_match_state_restore(o, buf, ss), BSYNC_MISMATCH);
    assert_int_equal(bsync_match_state_copy(o, a), BSYNC_MISMATCH);
    assert_int_equal(bsync_match_state_copy(NULL, a), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_match_state_copy(a, a), BSYNC_OK);
    /* other graph objects: a copy would point the layout at the wrong graphs, so it is refused; the
     * buffer holds no pointer and restores */
    assert_int_equal(bsync_match_state_copy(s, a), BSYNC_MISMATCH);
    assert_int_equal(bsync_match_state_restore(s, buf, ss), BSYNC_OK);
    const observed x = observe(s, 1), y = observe(a, 1);
    assert_same(&x, &y, 1, "restored into other graph objects", 60);
    assert_int_equal(bsync_match_tick(s, &f[0]), BSYNC_OK);
    assert_int_equal(bsync_match_tick(a, &f[0]), BSYNC_OK);
    const observed x1 = observe(s, 1), y1 = observe(a, 1);
    assert_same(&x1, &y1, 1, "ticked after restore", 61);
    free(buf);
    free(f);
    free(am);
    free(om);
    free(sm);
    bsync_match_config_destroy(mc);
    bsync_match_config_destroy(other);
    bsync_match_config_destroy(same_hash);
}

static int teardown(void** state) {
    (void)state;
    free(g_graph.text);
    g_graph.text = NULL;
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restore_then_ticks_equal_no_rollback),
        cmocka_unit_test(test_copy_from_live_match),
        cmocka_unit_test(test_bytes_do_not_depend_on_caches),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
