/* test_match_snapshot_inertia.c — match snapshots whatever state the characters are in.
 *
 * While a switch inertializes, a character's instance snapshot carries an extra block (instance.h), so
 * the match snapshot grows and shrinks with the match's state. The demo match (scripts/demo/match.json,
 * 4 players and 2 NPCs on the locomotion graph) with its trigger set to inertialize is played for a long
 * run of seeded random inputs, and at EVERY tick the state is saved, loaded into a fresh match in
 * poisoned memory, and the run continues from the copy; its checksums must equal an uninterrupted run's
 * at every tick. The snapshot sizes must actually vary (otherwise the test would prove nothing), and
 * blobs whose declared lengths do not fit their graph or the snapshot are refused with the match left
 * untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/checksum.h"
#include "blendsync/instance.h"
#include "blendsync/io/match_config.h"
#include "blendsync/match.h"
#include "test_support.h"

#define TICKS 1500u

static bsync_match_config* load_demo_inertialized(uint32_t fade_ticks) {
    char path[1024];
    snprintf(path, sizeof path, "%s/scripts/demo/match.json", BSYNC_SOURCE_DIR);
    size_t n = 0;
    char* text = bsync_test_read_file(path, &n);
    assert_non_null(text);
    const char* key = "\"fade_ticks\": 6,";
    char* at = strstr(text, key);
    assert_non_null(at); /* the demo's trigger: if it changed, this test must be told */
    char* patched = malloc(n + 128);
    assert_non_null(patched);
    size_t head = (size_t)(at - text);
    memcpy(patched, text, head);
    size_t k = head + (size_t)snprintf(patched + head, 128, "\"fade_ticks\": %u, \"inertialize\": true,", fade_ticks);
    memcpy(patched + k, at + strlen(key), n - head - strlen(key));
    k += n - head - strlen(key);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/scripts/demo", BSYNC_SOURCE_DIR);
    bsync_match_config* cfg = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    bsync_result r = bsync_match_config_parse(patched, k, "match_inert.json", dir, NULL, &cfg, &err);
    if (r != BSYNC_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(r, BSYNC_OK);
    free(patched);
    free(text);
    return cfg;
}

typedef struct world {
    bsync_match_config* cfg;
    const bsync_match_desc* d;
    size_t msize;
    bsync_match_script scripts[BSYNC_MATCH_MAX_PLAYERS];
} world;

static void world_init(world* w, uint32_t fade_ticks, uint64_t seed) {
    memset(w, 0, sizeof *w);
    w->cfg = load_demo_inertialized(fade_ticks);
    w->d = bsync_match_config_desc(w->cfg);
    w->msize = bsync_match_memory_size(w->d);
    assert_true(w->msize > 0);
    for (uint32_t p = 0; p < w->d->player_count; p++) bsync_match_script_init(&w->scripts[p], seed + p);
}

static void next_frame(world* w, bsync_match_frame* f) {
    memset(f, 0, sizeof *f);
    f->player_count = w->d->player_count;
    for (uint32_t p = 0; p < w->d->player_count; p++) bsync_match_random_input(&w->scripts[p], w->d, &f->players[p]);
}

static bsync_match* new_match(const world* w, void** mem, unsigned char poison) {
    *mem = aligned_alloc(16, (w->msize + 15u) & ~(size_t)15u);
    assert_non_null(*mem);
    memset(*mem, poison, w->msize);
    bsync_match* m = NULL;
    assert_int_equal(bsync_match_init(*mem, w->msize, w->d, &m), BSYNC_OK);
    return m;
}

static void assert_same_sums(bsync_match* a, bsync_match* b, int poses) {
    bsync_match_checksums x, y;
    assert_int_equal(bsync_match_get_checksums(a, poses, &x), BSYNC_OK);
    assert_int_equal(bsync_match_get_checksums(b, poses, &y), BSYNC_OK);
    assert_true(x.tick == y.tick);
    assert_true(x.blend == y.blend);
    assert_true(x.pose == y.pose);
}

/* The base size of every character's blob: the snapshot of a match in which no switch inertializes. */
static size_t base_size(const bsync_match* m) {
    size_t n = bsync_match_snapshot_size_max(m);
    for (uint32_t c = 0; c < bsync_match_character_count(m); c++) {
        const bsync_graph* g = bsync_match_get_desc(m)->characters[c].graph;
        n -= bsync_instance_snapshot_size_max(g) - bsync_instance_snapshot_size(g);
    }
    return n;
}

static void test_save_load_continue_every_tick(void** state) {
    (void)state;
    world w;
    world_init(&w, 12, 0x5eed);
    void *mem_ref, *cur_mem, *other_mem;
    bsync_match* ref = new_match(&w, &mem_ref, 0x00);
    bsync_match* cur = new_match(&w, &cur_mem, 0x00);
    bsync_match* unused = new_match(&w, &other_mem, 0x00);
    (void)unused;
    const size_t max = bsync_match_snapshot_size_max(ref);
    const size_t base = base_size(ref);
    assert_true(max > base); /* the trigger inertializes: blobs can grow */
    unsigned char* buf = malloc(max);
    unsigned char* again = malloc(max);
    assert_non_null(buf);
    assert_non_null(again);
    uint32_t grown = 0, plain = 0;
    size_t largest = 0;
    bsync_match_frame f;
    for (uint32_t t = 0; t < TICKS; t++) {
        /* save the current state: exactly bsync_match_snapshot_size bytes, never more than the max */
        const size_t now = bsync_match_snapshot_size(cur);
        assert_true(now >= base && now <= max);
        size_t written = 0;
        assert_int_equal(bsync_match_save(cur, buf, now - 1u, &written), BSYNC_BUFFER_TOO_SMALL);
        assert_int_equal(bsync_match_save(cur, buf, max, &written), BSYNC_OK);
        assert_int_equal(written, now);
        if (now > base) grown++;
        else plain++;
        if (now > largest) largest = now;
        /* into a fresh match in poisoned memory (a different poison every tick) */
        memset(other_mem, (int)(0xA5u ^ t) & 0xFF, w.msize);
        bsync_match* next = NULL;
        assert_int_equal(bsync_match_init(other_mem, w.msize, w.d, &next), BSYNC_OK);
        assert_int_equal(bsync_match_load(next, buf, written), BSYNC_OK);
        /* the copy saves the same bytes */
        size_t w2 = 0;
        assert_int_equal(bsync_match_save(next, again, max, &w2), BSYNC_OK);
        assert_int_equal(w2, written);
        assert_memory_equal(again, buf, written);
        assert_same_sums(ref, next, (t % 50u) == 0);
        /* continue from the copy; the old state's memory takes the next copy */
        void* swap = cur_mem;
        cur_mem = other_mem;
        other_mem = swap;
        cur = next;
        next_frame(&w, &f);
        assert_int_equal(bsync_match_tick(ref, &f), BSYNC_OK);
        assert_int_equal(bsync_match_tick(cur, &f), BSYNC_OK);
        assert_same_sums(ref, cur, (t % 50u) == 7);
    }
    /* both kinds of state were saved often: the property was exercised mid-transition */
    assert_true(grown > TICKS / 10u);
    assert_true(plain > TICKS / 10u);
    assert_true(largest > base);
    assert_same_sums(ref, cur, 1);
    free(buf);
    free(again);
    free(mem_ref);
    free(cur_mem);
    free(other_mem);
    bsync_match_config_destroy(w.cfg);
}

static uint32_t rd32(const unsigned char* p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void wr32(unsigned char* p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static void reseal(unsigned char* p, size_t n) {
    uint64_t h = bsync_checksum_xxh64(p, n - 8u, 0);
    for (int i = 0; i < 8; i++) p[n - 8u + (size_t)i] = (unsigned char)(h >> (8 * i));
}

/* The offset of character c's u32 blob length in a demo-match snapshot (match.h's layout: a 32-byte
 * header, 12 + 4 P + T bytes per NPC, then per character u32 length and the blob). */
static size_t blob_at(const bsync_match_desc* d, const unsigned char* snap, uint32_t c) {
    size_t o = 32;
    for (uint32_t k = 0; k < d->character_count; k++)
        if (d->characters[k].slot == BSYNC_MATCH_NPC) o += 12u + 4u * d->param_count + d->trigger_count;
    for (uint32_t k = 0; k < c; k++) o += 4u + rd32(snap + o);
    return o;
}

static void expect_refused(bsync_match* m, const unsigned char* snap, size_t len, const bsync_match_checksums* before) {
    assert_int_equal(bsync_match_load(m, snap, len), BSYNC_BAD_BLOB);
    bsync_match_checksums now;
    assert_int_equal(bsync_match_get_checksums(m, 0, &now), BSYNC_OK);
    assert_true(now.tick == before->tick && now.blend == before->blend);
}

static void test_blob_lengths_checked(void** state) {
    (void)state;
    world w;
    world_init(&w, 12, 77);
    void* mem;
    bsync_match* m = new_match(&w, &mem, 0);
    const size_t base = base_size(m);
    bsync_match_frame f;
    /* play until some character inertializes and a later one does not (so blobs of both sizes sit
     * side by side) */
    int found = 0;
    uint32_t big = 0;
    for (uint32_t t = 0; t < 3000 && !found; t++) {
        next_frame(&w, &f);
        assert_int_equal(bsync_match_tick(m, &f), BSYNC_OK);
        if (bsync_match_snapshot_size(m) == base) continue;
        for (uint32_t c = 0; c + 1u < w.d->character_count && !found; c++) {
            const bsync_instance* a = bsync_match_instance_const(m, c);
            const bsync_graph* g = w.d->characters[c].graph;
            if (bsync_instance_snapshot_size_now(a) > bsync_instance_snapshot_size(g)) {
                big = c;
                found = 1;
            }
        }
    }
    assert_true(found);
    const size_t len = bsync_match_snapshot_size(m);
    unsigned char* snap = malloc(len + 64);
    unsigned char* bad = malloc(len + 64);
    assert_int_equal(bsync_match_save(m, snap, len, NULL), BSYNC_OK);
    bsync_match_checksums before;
    assert_int_equal(bsync_match_get_checksums(m, 0, &before), BSYNC_OK);
    const size_t at = blob_at(w.d, snap, big);
    const uint32_t blob = rd32(snap + at);
    const bsync_graph* g = w.d->characters[big].graph;
    assert_true(blob > bsync_instance_snapshot_size(g));
    assert_true(blob <= bsync_instance_snapshot_size_max(g));

    /* the blob claims 4 bytes fewer: the blobs no longer fill the snapshot exactly */
    memcpy(bad, snap, len);
    wr32(bad + at, blob - 4u);
    reseal(bad, len);
    expect_refused(m, bad, len, &before);
    /* 4 more bytes than the snapshot holds */
    memcpy(bad, snap, len);
    wr32(bad + at, blob + 4u);
    reseal(bad, len);
    expect_refused(m, bad, len, &before);
    /* shorter than the graph's smallest blob */
    memcpy(bad, snap, len);
    wr32(bad + at, (uint32_t)bsync_instance_snapshot_size(g) - 1u);
    reseal(bad, len);
    expect_refused(m, bad, len, &before);
    /* over the graph's largest blob (a huge length must not be read past the buffer either) */
    memcpy(bad, snap, len);
    wr32(bad + at, 0xFFFFFFF0u);
    reseal(bad, len);
    expect_refused(m, bad, len, &before);
    /* bytes left over before the XXH64 (total length and header say so, the blobs do not cover them) */
    memcpy(bad, snap, len - 8u);
    memset(bad + len - 8u, 0, 4);
    wr32(bad + 16, (uint32_t)(len + 4u));
    reseal(bad, len + 4u);
    expect_refused(m, bad, len + 4u, &before);
    /* truncated */
    expect_refused(m, snap, len - 1u, &before);
    /* and the untouched bytes still load */
    assert_int_equal(bsync_match_load(m, snap, len), BSYNC_OK);
    free(snap);
    free(bad);
    free(mem);
    bsync_match_config_destroy(w.cfg);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_save_load_continue_every_tick),
        cmocka_unit_test(test_blob_lengths_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
