/* test_checksum.c — XXH64 against the published xxHash test vectors, streaming, the canonical byte
 * layouts of checksum.h (built by hand here, byte by byte), and independence from memory layout. */
#include "test_support.h"

#include <stdlib.h>
#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/clip.h"
#include "blendsync/skeleton.h"

/* ---------------------------------------------------------------- helpers (test side) */

/* A growable byte list that the tests fill by hand in the documented canonical order. */
typedef struct bytes_ {
    uint8_t data[4096];
    size_t len;
} bytes_;

static void put_u8(bytes_* b, uint8_t v) {
    assert_true(b->len < sizeof(b->data));
    b->data[b->len++] = v;
}
/* Little-endian, written out explicitly (independent of the host and of the code under test). */
static void put_u32(bytes_* b, uint32_t v) {
    put_u8(b, (uint8_t)(v & 0xFF));
    put_u8(b, (uint8_t)((v >> 8) & 0xFF));
    put_u8(b, (uint8_t)((v >> 16) & 0xFF));
    put_u8(b, (uint8_t)((v >> 24) & 0xFF));
}
static void put_i32(bytes_* b, int32_t v) { put_u32(b, (uint32_t)v); }
static void put_trs(bytes_* b, const bsync_trs* x) {
    put_i32(b, x->t.x); put_i32(b, x->t.y); put_i32(b, x->t.z);
    put_i32(b, x->r.x); put_i32(b, x->r.y); put_i32(b, x->r.z); put_i32(b, x->r.w);
    put_i32(b, x->s.x); put_i32(b, x->s.y); put_i32(b, x->s.z);
}
static void put_str(bytes_* b, const char* s) {
    put_u32(b, (uint32_t)strlen(s));
    for (const char* p = s; *p; p++) put_u8(b, (uint8_t)*p);
}

static bsync_trs make_trs(int32_t seed) {
    bsync_trs x;
    x.t = bsync_vec3_make(seed * 65536 + 1, -seed * 3000 - 7, 0x12345 + seed);
    x.r = bsync_quat_make(0x4000 + seed, -0x3000 - seed, 0x2000, 0xC000 - seed);
    x.s = bsync_vec3_make(BSYNC_FX_ONE + seed, BSYNC_FX_ONE * 2, -BSYNC_FX_ONE / 3 - seed);
    return x;
}

/* The xxHash sanity buffer (cli/xsum_sanity_check.c): byteGen = PRIME32; each byte is the top byte
 * of byteGen, then byteGen *= PRIME64. */
static void sanity_buffer(uint8_t* buf, size_t len) {
    uint64_t gen = 2654435761u;
    for (size_t i = 0; i < len; i++) {
        buf[i] = (uint8_t)(gen >> 56);
        gen *= 11400714785074694797ull;
    }
}

/* ---------------------------------------------------------------- XXH64 itself */

static void test_xxh64_published_strings(void** st) {
    (void)st;
    /* Published values (xxHash README / spec examples). */
    assert_true(bsync_checksum_xxh64("", 0, 0) == 0xEF46DB3751D8E999ull);
    assert_true(bsync_checksum_xxh64(NULL, 0, 0) == 0xEF46DB3751D8E999ull);
    assert_true(bsync_checksum_xxh64("a", 1, 0) == 0xD24EC4F1A98C6E5Bull);
    assert_true(bsync_checksum_xxh64("abc", 3, 0) == 0x44BC2CF5AD770999ull);
}

static void test_xxh64_sanity_vectors(void** st) {
    (void)st;
    /* Cyan4973/xxHash cli/xsum_sanity_check.c, XXH64 rows: (length, seed, hash). */
    static const struct { size_t len; uint64_t seed; uint64_t hash; } v[] = {
        {0, 0, 0xEF46DB3751D8E999ull},   {0, 2654435761u, 0xAC75FDA2929B17EFull},
        {1, 0, 0xE934A84ADB052768ull},   {1, 2654435761u, 0x5014607643A9B4C3ull},
        {4, 0, 0x9136A0DCA57457EEull},   {14, 0, 0x8282DCC4994E35C8ull},
        {14, 2654435761u, 0xC3BD6BF63DEB6DF0ull}, {222, 0, 0xB641AE8CB691C174ull},
        {222, 2654435761u, 0x20CB8AB7AE10C14Aull},
    };
    uint8_t buf[222];
    sanity_buffer(buf, sizeof buf);
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        assert_true(bsync_checksum_xxh64(buf, v[i].len, v[i].seed) == v[i].hash);
        /* The same through the streaming API, one byte at a time. */
        bsync_checksum_state s;
        bsync_checksum_init(&s, v[i].seed);
        for (size_t k = 0; k < v[i].len; k++) bsync_checksum_bytes(&s, buf + k, 1);
        assert_true(bsync_checksum_final(&s) == v[i].hash);
    }
    /* An unaligned start (buffer + 1) must read bytes, not words: compare with an aligned copy. */
    uint8_t copy[221];
    memcpy(copy, buf + 1, sizeof copy);
    assert_true(bsync_checksum_xxh64(buf + 1, sizeof copy, 7) == bsync_checksum_xxh64(copy, sizeof copy, 7));
}

static void test_streaming_random_chunks(void** st) {
    (void)st;
    enum { N = 5003 };
    static uint8_t buf[N];
    uint64_t rng = 42;
    for (size_t i = 0; i < N; i++) buf[i] = (uint8_t)bsync_test_rand(&rng);
    /* Streaming the 222-byte sanity buffer in random chunks still gives the published value. */
    uint8_t sb[222];
    sanity_buffer(sb, sizeof sb);
    for (int round = 0; round < 50; round++) {
        bsync_checksum_state s;
        bsync_checksum_init(&s, 0);
        size_t off = 0;
        while (off < sizeof sb) {
            size_t c = (size_t)(bsync_test_rand(&rng) % 70);
            if (c > sizeof sb - off) c = sizeof sb - off;
            bsync_checksum_bytes(&s, sb + off, c);
            off += c;
        }
        assert_true(bsync_checksum_final(&s) == 0xB641AE8CB691C174ull);
    }
    /* A long buffer: every chunking equals the one-shot digest, for several seeds and lengths. */
    const uint64_t seeds[] = {0, 1, 2654435761u, 0xFFFFFFFFFFFFFFFFull, BSYNC_CHECKSUM_SEED_POSE};
    for (size_t si = 0; si < sizeof seeds / sizeof seeds[0]; si++) {
        for (int round = 0; round < 20; round++) {
            size_t len = (size_t)(1000 + bsync_test_rand(&rng) % (N - 1000));
            uint64_t one = bsync_checksum_xxh64(buf, len, seeds[si]);
            bsync_checksum_state s;
            bsync_checksum_init(&s, seeds[si]);
            size_t off = 0;
            while (off < len) {
                size_t c = (size_t)(bsync_test_rand(&rng) % (round % 2 ? 100 : 33));
                if (c > len - off) c = len - off;
                bsync_checksum_bytes(&s, buf + off, c);
                off += c;
            }
            assert_true(bsync_checksum_final(&s) == one);
            /* Differing in one byte or in length gives a different digest. */
            assert_true(bsync_checksum_xxh64(buf, len - 1, seeds[si]) != one);
        }
    }
}

static void test_final_does_not_consume(void** st) {
    (void)st;
    uint8_t buf[300];
    sanity_buffer(buf, sizeof buf);
    for (size_t split = 0; split <= 222; split += 13) {
        bsync_checksum_state s, before;
        bsync_checksum_init(&s, 0);
        bsync_checksum_bytes(&s, buf, split);
        memcpy(&before, &s, sizeof s);
        uint64_t h1 = bsync_checksum_final(&s);
        uint64_t h2 = bsync_checksum_final(&s);
        assert_true(h1 == h2);
        assert_memory_equal(&before, &s, sizeof s); /* const in the signature, and in fact */
        assert_true(h1 == bsync_checksum_xxh64(buf, split, 0));
        bsync_checksum_bytes(&s, buf + split, 222 - split);
        assert_true(bsync_checksum_final(&s) == 0xB641AE8CB691C174ull);
    }
    assert_true(bsync_checksum_final(NULL) == 0);
}

/* ---------------------------------------------------------------- feeders */

static uint64_t hash_bytes_(const bytes_* b, uint64_t seed) { return bsync_checksum_xxh64(b->data, b->len, seed); }

static void test_feeders_little_endian(void** st) {
    (void)st;
    bsync_checksum_state s;
    bsync_checksum_init(&s, 99);
    bsync_checksum_u32(&s, 0x01020304u);
    bsync_checksum_i32(&s, -2);
    bsync_checksum_u64(&s, 0x0102030405060708ull);
    bsync_checksum_i64(&s, -3);
    bsync_checksum_fx(&s, BSYNC_FX_MIN);
    bsync_checksum_vec3(&s, bsync_vec3_make(1, -1, 0x7F));
    bsync_checksum_quat(&s, bsync_quat_make(0x100, 0x10000, -0x10000, INT32_MIN));
    const uint8_t expect[] = {
        0x04, 0x03, 0x02, 0x01,                         /* u32 */
        0xFE, 0xFF, 0xFF, 0xFF,                         /* i32 -2 */
        0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* u64 */
        0xFD, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, /* i64 -3 */
        0x01, 0x00, 0x00, 0x80,                         /* fx -0x7FFFFFFF */
        0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x00, /* vec3 */
        0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x80,
    };
    assert_true(bsync_checksum_final(&s) == bsync_checksum_xxh64(expect, sizeof expect, 99));

    bsync_trs x = make_trs(5);
    bytes_ b = {{0}, 0};
    put_trs(&b, &x);
    assert_int_equal(b.len, 40);
    bsync_checksum_init(&s, 5);
    bsync_checksum_trs(&s, &x);
    assert_true(bsync_checksum_final(&s) == hash_bytes_(&b, 5));
}

/* ---------------------------------------------------------------- poses */

static void test_pose_canonical_bytes(void** st) {
    (void)st;
    enum { N = 5 };
    bsync_trs pose[N];
    for (int j = 0; j < N; j++) pose[j] = make_trs(j * 17 - 30);
    bytes_ b = {{0}, 0};
    put_u32(&b, N);
    for (int j = 0; j < N; j++) put_trs(&b, &pose[j]);
    assert_int_equal(b.len, 4 + N * 40);
    assert_true(bsync_checksum_pose(pose, N) == hash_bytes_(&b, BSYNC_CHECKSUM_SEED_POSE));

    uint64_t per[N];
    bsync_checksum_pose_joints(pose, N, per);
    for (uint32_t j = 0; j < N; j++) {
        bytes_ bj = {{0}, 0};
        put_u32(&bj, j);
        put_trs(&bj, &pose[j]);
        assert_true(per[j] == hash_bytes_(&bj, BSYNC_CHECKSUM_SEED_JOINT));
    }
    /* Identical joints at different indices still get different per-joint checksums (index fed). */
    bsync_trs same[2] = {make_trs(1), make_trs(1)};
    uint64_t ps[2];
    bsync_checksum_pose_joints(same, 2, ps);
    assert_true(ps[0] != ps[1]);

    /* Empty pose: seed + u32 0. */
    bytes_ e = {{0}, 0};
    put_u32(&e, 0);
    assert_true(bsync_checksum_pose(pose, 0) == hash_bytes_(&e, BSYNC_CHECKSUM_SEED_POSE));
    assert_true(bsync_checksum_pose(NULL, 0) == hash_bytes_(&e, BSYNC_CHECKSUM_SEED_POSE));
    assert_true(bsync_checksum_pose(NULL, 3) == 0);
    /* NULL per-joint output or pose: nothing written. */
    uint64_t guard[2] = {7, 7};
    bsync_checksum_pose_joints(NULL, 2, guard);
    assert_true(guard[0] == 7 && guard[1] == 7);
    bsync_checksum_pose_joints(pose, 2, NULL);
}

static fix16_t* field_ptr(bsync_trs* x, int f) {
    switch (f) {
    case 0: return &x->t.x;
    case 1: return &x->t.y;
    case 2: return &x->t.z;
    case 3: return &x->r.x;
    case 4: return &x->r.y;
    case 5: return &x->r.z;
    case 6: return &x->r.w;
    case 7: return &x->s.x;
    case 8: return &x->s.y;
    default: return &x->s.z;
    }
}

static void test_bit_flip_localised(void** st) {
    (void)st;
    enum { N = 16 };
    bsync_trs pose[N], flipped[N];
    for (int j = 0; j < N; j++) pose[j] = make_trs(j);
    uint64_t base = bsync_checksum_pose(pose, N);
    uint64_t per[N], per2[N];
    bsync_checksum_pose_joints(pose, N, per);
    for (uint32_t joint = 0; joint < N; joint += 5) {
        for (int f = 0; f < 10; f++) {
            for (unsigned bit = 0; bit < 32; bit += 7) {
                memcpy(flipped, pose, sizeof pose);
                fix16_t* p = field_ptr(&flipped[joint], f);
                *p = (fix16_t)((uint32_t)*p ^ (1u << bit));
                assert_true(bsync_checksum_pose(flipped, N) != base);
                bsync_checksum_pose_joints(flipped, N, per2);
                for (uint32_t j = 0; j < N; j++) {
                    if (j == joint) assert_true(per2[j] != per[j]);
                    else assert_true(per2[j] == per[j]);
                }
            }
        }
    }
    /* Swapping two joints changes the pose checksum (order matters). */
    memcpy(flipped, pose, sizeof pose);
    flipped[2] = pose[3];
    flipped[3] = pose[2];
    assert_true(bsync_checksum_pose(flipped, N) != base);
}

static void test_memory_garbage_irrelevant(void** st) {
    (void)st;
    enum { N = 9 };
    /* Two heap buffers with different background bytes (and room past the end), filled field by
     * field with the same values. */
    bsync_trs* a = malloc(sizeof(bsync_trs) * (N + 3));
    bsync_trs* b = malloc(sizeof(bsync_trs) * (N + 3));
    assert_non_null(a);
    assert_non_null(b);
    memset(a, 0xAA, sizeof(bsync_trs) * (N + 3));
    memset(b, 0x00, sizeof(bsync_trs) * (N + 3));
    for (int j = 0; j < N; j++) {
        bsync_trs x = make_trs(j * 3 + 1);
        a[j].t = x.t; a[j].r = x.r; a[j].s = x.s;
        b[j].t.x = x.t.x; b[j].t.y = x.t.y; b[j].t.z = x.t.z;
        b[j].r.x = x.r.x; b[j].r.y = x.r.y; b[j].r.z = x.r.z; b[j].r.w = x.r.w;
        b[j].s.x = x.s.x; b[j].s.y = x.s.y; b[j].s.z = x.s.z;
    }
    assert_true(bsync_checksum_pose(a, N) == bsync_checksum_pose(b, N));
    uint64_t pa[N], pb[N];
    bsync_checksum_pose_joints(a, N, pa);
    bsync_checksum_pose_joints(b, N, pb);
    assert_memory_equal(pa, pb, sizeof pa);
    /* The state struct's own padding/unused buffer bytes do not matter either. */
    bsync_checksum_state s1, s2;
    memset(&s1, 0xAA, sizeof s1);
    memset(&s2, 0x55, sizeof s2);
    bsync_checksum_init(&s1, 3);
    bsync_checksum_init(&s2, 3);
    bsync_checksum_bytes(&s1, "xyz", 3);
    bsync_checksum_bytes(&s2, "xyz", 3);
    assert_true(bsync_checksum_final(&s1) == bsync_checksum_final(&s2));
    assert_true(bsync_checksum_final(&s1) == bsync_checksum_xxh64("xyz", 3, 3));
    free(a);
    free(b);
}

/* ---------------------------------------------------------------- skeletons and clips */

static bsync_trs unit_trs(fix16_t tx, bsync_quat r, fix16_t s) {
    bsync_trs x;
    x.t = bsync_vec3_make(tx, -tx, 3 * BSYNC_FX_ONE);
    x.r = r;
    x.s = bsync_vec3_make(s, s, s);
    return x;
}

static void test_skeleton_canonical_bytes(void** st) {
    (void)st;
    /* Rest rotations exactly unit (0.5 components, 0/1), so normalisation when built keeps them. */
    const bsync_quat h = bsync_quat_make(BSYNC_FX_HALF, BSYNC_FX_HALF, -BSYNC_FX_HALF, BSYNC_FX_HALF);
    bsync_joint_desc joints[3] = {
        {"root", BSYNC_NO_PARENT, unit_trs(0, bsync_quat_identity(), BSYNC_FX_ONE)},
        {"spine", 0, unit_trs(BSYNC_FX_ONE, h, BSYNC_FX_ONE * 2)},
        {"head_end", 1, unit_trs(-5, bsync_quat_make(0, BSYNC_FX_ONE, 0, 0), BSYNC_FX_HALF)},
    };
    bsync_skeleton_desc desc = {joints, 3};
    bsync_skeleton* sk = NULL;
    assert_int_equal(bsync_skeleton_create(&desc, NULL, &sk), BSYNC_OK);

    bytes_ b = {{0}, 0};
    put_u32(&b, 3);
    for (int j = 0; j < 3; j++) {
        put_str(&b, joints[j].name);
        put_i32(&b, joints[j].parent);
        put_trs(&b, &joints[j].rest);
    }
    uint64_t c = bsync_checksum_skeleton(sk);
    assert_true(c == hash_bytes_(&b, BSYNC_CHECKSUM_SEED_SKELETON));

    /* A relocated copy has the same checksum; a renamed joint does not. */
    size_t size = bsync_skeleton_block_size(sk);
    void* mem = aligned_alloc(8, (size + 7) / 8 * 8);
    assert_non_null(mem);
    memcpy(mem, sk, size);
    assert_true(bsync_checksum_skeleton((const bsync_skeleton*)mem) == c);
    free(mem);
    joints[2].name = "head_enD";
    bsync_skeleton* sk2 = NULL;
    assert_int_equal(bsync_skeleton_create(&desc, NULL, &sk2), BSYNC_OK);
    assert_true(bsync_checksum_skeleton(sk2) != c);
    assert_true(bsync_checksum_skeleton(NULL) == 0);
    bsync_skeleton_destroy(sk2);
    bsync_skeleton_destroy(sk);
}

static void test_clip_canonical_bytes(void** st) {
    (void)st;
    bsync_joint_desc joints[2] = {
        {"a", BSYNC_NO_PARENT, unit_trs(0, bsync_quat_identity(), BSYNC_FX_ONE)},
        {"b", 0, unit_trs(BSYNC_FX_ONE, bsync_quat_identity(), BSYNC_FX_ONE)},
    };
    bsync_skeleton_desc sd = {joints, 2};
    bsync_skeleton* sk = NULL;
    assert_int_equal(bsync_skeleton_create(&sd, NULL, &sk), BSYNC_OK);

    const fix16_t t2[2] = {0, BSYNC_FX_ONE};
    const fix16_t t1[1] = {BSYNC_FX_HALF};
    const bsync_vec3 pos[2] = {{1, 2, 3}, {-4, 5, -6}};
    const bsync_vec3 scl[1] = {{BSYNC_FX_ONE, 2 * BSYNC_FX_ONE, BSYNC_FX_HALF}};
    /* Exactly unit, sign-continuous keys (dot of consecutive keys >= 0): stored unchanged. */
    const bsync_quat rot[2] = {{0, 0, 0, BSYNC_FX_ONE},
                               {BSYNC_FX_HALF, BSYNC_FX_HALF, BSYNC_FX_HALF, BSYNC_FX_HALF}};
    /* Given out of (joint, kind) order on purpose: stored sorted. */
    bsync_raw_track tracks[3] = {
        {1, BSYNC_TRACK_SCALE, 1, t1, scl, NULL},
        {1, BSYNC_TRACK_TRANSLATION, 2, t2, pos, NULL},
        {0, BSYNC_TRACK_ROTATION, 2, t2, NULL, rot},
    };
    bsync_clip_desc cd = {"walk", BSYNC_FX_ONE, 1, tracks, 3};
    bsync_clip* clip = NULL;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &clip), BSYNC_OK);

    bytes_ b = {{0}, 0};
    put_str(&b, "walk");
    put_i32(&b, BSYNC_FX_ONE); /* duration */
    put_u32(&b, 1);            /* loop */
    put_u32(&b, 2);            /* joint_count */
    put_u32(&b, 3);            /* track_count */
    /* joint 0 rotation */
    put_u32(&b, 0); put_u32(&b, 1); put_u32(&b, 2);
    put_i32(&b, 0); put_i32(&b, BSYNC_FX_ONE);
    for (int k = 0; k < 2; k++) { put_i32(&b, rot[k].x); put_i32(&b, rot[k].y); put_i32(&b, rot[k].z); put_i32(&b, rot[k].w); }
    /* joint 1 translation */
    put_u32(&b, 1); put_u32(&b, 0); put_u32(&b, 2);
    put_i32(&b, 0); put_i32(&b, BSYNC_FX_ONE);
    for (int k = 0; k < 2; k++) { put_i32(&b, pos[k].x); put_i32(&b, pos[k].y); put_i32(&b, pos[k].z); }
    /* joint 1 scale */
    put_u32(&b, 1); put_u32(&b, 2); put_u32(&b, 1);
    put_i32(&b, BSYNC_FX_HALF);
    put_i32(&b, scl[0].x); put_i32(&b, scl[0].y); put_i32(&b, scl[0].z);
    uint64_t c = bsync_checksum_clip(clip);
    assert_true(c == hash_bytes_(&b, BSYNC_CHECKSUM_SEED_CLIP));

    /* Relocated copy: same; any changed field: different. */
    size_t size = bsync_clip_block_size(clip);
    void* mem = aligned_alloc(8, (size + 7) / 8 * 8);
    assert_non_null(mem);
    memcpy(mem, clip, size);
    assert_true(bsync_checksum_clip((const bsync_clip*)mem) == c);
    free(mem);

    bsync_clip* c2 = NULL;
    cd.loop = 0;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &c2), BSYNC_OK);
    assert_true(bsync_checksum_clip(c2) != c);
    bsync_clip_destroy(c2);
    cd.loop = 1;
    const bsync_vec3 pos2[2] = {{1, 2, 3}, {-4, 5, -5}};
    tracks[1].vec3s = pos2;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &c2), BSYNC_OK);
    assert_true(bsync_checksum_clip(c2) != c);
    bsync_clip_destroy(c2);
    /* NULL name is stored as "" : length 0, no bytes. */
    tracks[1].vec3s = pos;
    cd.name = NULL;
    assert_int_equal(bsync_clip_create(&cd, sk, NULL, &c2), BSYNC_OK);
    bytes_ b2 = {{0}, 0};
    put_str(&b2, "");
    for (size_t i = 4 + 4; i < b.len; i++) put_u8(&b2, b.data[i]); /* skip "walk"'s length and bytes */
    assert_true(bsync_checksum_clip(c2) == hash_bytes_(&b2, BSYNC_CHECKSUM_SEED_CLIP));
    bsync_clip_destroy(c2);

    assert_true(bsync_checksum_clip(NULL) == 0);
    bsync_clip_destroy(clip);
    bsync_skeleton_destroy(sk);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xxh64_published_strings),
        cmocka_unit_test(test_xxh64_sanity_vectors),
        cmocka_unit_test(test_streaming_random_chunks),
        cmocka_unit_test(test_final_does_not_consume),
        cmocka_unit_test(test_feeders_little_endian),
        cmocka_unit_test(test_pose_canonical_bytes),
        cmocka_unit_test(test_bit_flip_localised),
        cmocka_unit_test(test_memory_garbage_irrelevant),
        cmocka_unit_test(test_skeleton_canonical_bytes),
        cmocka_unit_test(test_clip_canonical_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
