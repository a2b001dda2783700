/* test_blend_canonical.c — the canonical bytes of blend space blocks (what the graph hash feeds,
 * internal/blend_space_impl.h), for every type over random layouts:
 *   - as many bytes as the block has after its 48-byte header;
 *   - on a little-endian host, exactly the block's memory (so graph hashes are the ones they were
 *     when the hash read raw memory: replays and pinned checksums keep verifying);
 *   - on any host, the header fields and the thresholds or positions at their documented offsets,
 *     decoded from little-endian here, equal what the accessors return (a big-endian host that fed
 *     host-order memory would fail this);
 *   - two builds of one layout give the same stream, and moving one sample changes it. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_space.h"
#include "test_support.h"

#include "internal/blend_space_impl.h"

typedef struct collect {
    unsigned char* p;
    size_t len, cap;
} collect;

static void put(void* ctx, const unsigned char* bytes, size_t n) {
    collect* c = (collect*)ctx;
    assert_true(c->len + n <= c->cap);
    memcpy(c->p + c->len, bytes, n);
    c->len += n;
}

static uint32_t le32(const unsigned char* p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static int host_is_little_endian(void) {
    const uint32_t probe = 1;
    unsigned char b[4];
    memcpy(b, &probe, 4);
    return b[0] == 1;
}

/* Builds desc, returns its canonical stream (caller frees) and checks the properties above. */
static unsigned char* check_one(const bsync_blend_space_desc* d, size_t* out_len) {
    bsync_blend_space* sp = NULL;
    assert_int_equal(bsync_blend_space_create(d, NULL, &sp, NULL), BSYNC_OK);
    const size_t size = bsync_blend_space_memory_size(d);
    collect c = {malloc(size), 0, size};
    assert_non_null(c.p);
    const bsync_canon_sink sink = {put, &c};
    bsync_blend_space_canonical_(sp, &sink);
    assert_int_equal(c.len, size - 48);
    if (host_is_little_endian()) assert_memory_equal(c.p, (const unsigned char*)sp + 48, c.len);
    /* header: type, child_count, param_count at the block's offsets 48, 52, 56 (stream 0, 4, 8) */
    assert_int_equal(le32(c.p + 0), (uint32_t)d->type);
    assert_int_equal(le32(c.p + 4), d->child_count);
    assert_int_equal(le32(c.p + 8), bsync_blend_space_param_count(sp));
    /* values at block offset 128 (stream offset 80) */
    for (uint32_t i = 0; i < d->child_count; i++) {
        if (d->type == BSYNC_BLEND_SIMPLE_1D) {
            assert_int_equal((fix16_t)le32(c.p + 80 + 4u * i), bsync_blend_space_threshold(sp, i));
        } else if (d->type != BSYNC_BLEND_DIRECT) {
            bsync_vec2 p = bsync_blend_space_position(sp, i);
            assert_int_equal((fix16_t)le32(c.p + 80 + 8u * i), p.x);
            assert_int_equal((fix16_t)le32(c.p + 84 + 8u * i), p.y);
        }
    }
    /* a second build of the same desc streams the same bytes */
    bsync_blend_space* again = NULL;
    assert_int_equal(bsync_blend_space_create(d, NULL, &again, NULL), BSYNC_OK);
    collect c2 = {malloc(size), 0, size};
    assert_non_null(c2.p);
    const bsync_canon_sink sink2 = {put, &c2};
    bsync_blend_space_canonical_(again, &sink2);
    assert_int_equal(c2.len, c.len);
    assert_memory_equal(c2.p, c.p, c.len);
    free(c2.p);
    bsync_blend_space_destroy(again);
    bsync_blend_space_destroy(sp);
    *out_len = c.len;
    return c.p;
}

static void every_type_random_layouts(void** state) {
    (void)state;
    uint64_t rng = 0x5eed0f15u;
    const bsync_blend_type types[] = {BSYNC_BLEND_SIMPLE_1D,          BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D,
                                      BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D, BSYNC_BLEND_FREEFORM_CARTESIAN_2D,
                                      BSYNC_BLEND_DIRECT,             BSYNC_BLEND_DELAUNAY_2D,
                                      BSYNC_BLEND_INVERSE_DISTANCE_2D};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
        for (int round = 0; round < 12; round++) {
            fix16_t th[BSYNC_MAX_BLEND_CHILDREN];
            bsync_vec2 pos[BSYNC_MAX_BLEND_CHILDREN];
            const uint32_t n = 1 + (uint32_t)(bsync_test_rand(&rng) % (round < 6 ? 9 : 24));
            for (uint32_t i = 0; i < n; i++) {
                /* small grid values: duplicates, centres and collinear layouts happen often */
                th[i] = (fix16_t)((int64_t)(bsync_test_rand(&rng) % 9) - 4) * 32768;
                pos[i].x = (fix16_t)((int64_t)(bsync_test_rand(&rng) % 7) - 3) * 21845;
                pos[i].y = (fix16_t)((int64_t)(bsync_test_rand(&rng) % 7) - 3) * 21845;
                if (round % 3 == 2) pos[i].x = (fix16_t)(bsync_test_rand(&rng) & 0x3FFFFF) - 0x200000;
            }
            bsync_blend_space_desc d = {types[ti], n, th, pos, 1 + (uint32_t)(round % 8), round & 1};
            if (bsync_blend_space_validate(&d) != BSYNC_OK) continue; /* e.g. Delaunay limits */
            size_t len = 0, len2 = 0;
            unsigned char* a = check_one(&d, &len);
            if (types[ti] != BSYNC_BLEND_DIRECT) { /* move one sample: the stream changes */
                th[0] += 1;
                pos[0].y += 1;
                unsigned char* b = check_one(&d, &len2);
                assert_int_equal(len, len2);
                assert_true(memcmp(a, b, len) != 0);
                free(b);
            }
            free(a);
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(every_type_random_layouts)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
