/* test_clip_file.c — the native .bsclip file (blendsync/io/clip_file.h) and the block validators
 * (bsync_skeleton_block_validate, bsync_clip_block_validate): round trip bit for bit, the header
 * fields at their documented offsets, an independent XXH64 of the documented checksum rule, every
 * truncation, thousands of random byte flips both with the stored checksum (caught by it) and
 * re-sealed with a recomputed checksum (caught by the block validators, never a crash), save through
 * a temporary file, and retargeting by name (blendsync/io/retarget.h). */
#include "test_support.h"
#include "fixtures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/checksum.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/io/retarget.h"
#include "blendsync/sample.h"

#define FXI(v) ((fix16_t)((v) * 65536))

/* a chain, joint i at (i, 1, 0), unrotated, unit scale */
static bsync_skeleton* make_skeleton(const char* const* names, uint32_t n) {
    bsync_test_chain_rest rest = bsync_test_chain_rest_identity();
    rest.t0 = bsync_vec3_make(0, FXI(1), 0);
    rest.dt = bsync_vec3_make(FXI(1), 0, 0);
    return bsync_test_chain_skeleton(names, n, &rest);
}

static const fix16_t k_times[3] = {0, FXI(1) / 2, FXI(1)};
static const bsync_vec3 k_vecs[3] = {{0, 0, 0}, {FXI(1), 0, 0}, {FXI(2), FXI(3), 0}};
static const bsync_quat k_quats[3] = {{0, 0, 0, FXI(1)}, {0, FXI(1), 0, 0}, {0, 0, FXI(1), 0}};

static bsync_clip* make_clip(const bsync_skeleton* s, const char* name, uint32_t joint_a, uint32_t joint_b) {
    bsync_raw_track t[3] = {
        {joint_a, BSYNC_TRACK_TRANSLATION, 3, k_times, k_vecs, NULL},
        {joint_b, BSYNC_TRACK_ROTATION, 3, k_times, NULL, k_quats},
        {joint_b, BSYNC_TRACK_SCALE, 1, k_times, k_vecs + 2, NULL},
    };
    bsync_clip_desc d = {name, FXI(1), 1, t, 3};
    bsync_clip* c = NULL;
    assert_int_equal(bsync_clip_create(&d, s, NULL, &c), BSYNC_OK);
    return c;
}

typedef struct fixture {
    bsync_skeleton* skel;
    bsync_clip* clips[2];
    unsigned char* file;
    size_t size;
} fixture;

static const char* const k_names[3] = {"hips", "spine", "head"};

static void make_fixture(fixture* f) {
    f->skel = make_skeleton(k_names, 3);
    f->clips[0] = make_clip(f->skel, "walk", 0, 1);
    f->clips[1] = make_clip(f->skel, "run", 1, 2);
    f->size = bsync_clip_file_size(f->skel, (const bsync_clip* const*)f->clips, 2);
    assert_true(f->size > 64);
    f->file = malloc(f->size);
    assert_int_equal(bsync_clip_file_write_memory(f->skel, (const bsync_clip* const*)f->clips, 2, f->file, f->size),
                     BSYNC_OK);
}

static void free_fixture(fixture* f) {
    bsync_clip_destroy(f->clips[0]);
    bsync_clip_destroy(f->clips[1]);
    bsync_skeleton_destroy(f->skel);
    free(f->file);
}

static uint64_t rd64(const unsigned char* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static uint32_t rd32(const unsigned char* p) { return (uint32_t)rd64(p) & 0xFFFFFFFFu; }

/* The documented checksum rule, recomputed here from its definition: XXH64 seed 0 of the file with
 * bytes 24..31 read as zero. */
static uint64_t doc_checksum(const unsigned char* p, size_t n) {
    unsigned char* c = malloc(n);
    memcpy(c, p, n);
    memset(c + 24, 0, 8);
    uint64_t h = bsync_checksum_xxh64(c, n, 0);
    free(c);
    return h;
}

static void reseal(unsigned char* p, size_t n) {
    uint64_t h = doc_checksum(p, n);
    for (int i = 0; i < 8; i++) p[24 + i] = (unsigned char)(h >> (8 * i));
}

static void test_layout_and_round_trip(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    const unsigned char* p = f.file;
    assert_memory_equal(p, "BSCLIP\r\n", 8);
    assert_int_equal(rd32(p + 8), 1);
    assert_int_equal(rd32(p + 12), 64);
    assert_int_equal(rd64(p + 16), f.size);
    assert_true(rd64(p + 24) == doc_checksum(p, f.size));
    assert_true(bsync_clip_file_checksum(p, f.size) == rd64(p + 24));
    assert_int_equal(rd32(p + 32), 3); /* skeleton + 2 clips */
    assert_int_equal(rd32(p + 36), 1);
    /* directory: blocks contiguous, 8-aligned, sizes equal to the blocks' own */
    assert_int_equal(rd64(p + 64), 64 + 3 * 16);
    assert_int_equal(rd64(p + 72), bsync_skeleton_block_size(f.skel));
    assert_int_equal(rd64(p + 88), bsync_clip_block_size(f.clips[0]));
    assert_int_equal(rd64(p + 80) % 8, 0);

    bsync_asset a;
    bsync_error e;
    assert_int_equal(bsync_clip_file_load_memory(f.file, f.size, "t.bsclip", &a, &e), BSYNC_OK);
    assert_true(a.file_checksum == rd64(p + 24));
    assert_int_equal(a.clip_count, 2);
    assert_int_equal(bsync_skeleton_joint_count(a.skeleton), 3);
    assert_string_equal(bsync_skeleton_joint_name(a.skeleton, 2), "head");
    assert_true(bsync_checksum_skeleton(a.skeleton) == bsync_checksum_skeleton(f.skel));
    for (int i = 0; i < 2; i++) {
        assert_true(bsync_checksum_clip(a.clips[i]) == bsync_checksum_clip(f.clips[i]));
        assert_string_equal(bsync_clip_name(a.clips[i]), i == 0 ? "walk" : "run");
    }
    /* the loaded clip samples like the original, bit for bit */
    bsync_trs x[3], y[3];
    for (fix16_t t = 0; t <= FXI(1); t += 977) {
        assert_int_equal(bsync_clip_sample(a.clips[0], t, BSYNC_LOOP_WRAP, bsync_skeleton_rest_pose(a.skeleton), 3, NULL, x),
                         BSYNC_OK);
        assert_int_equal(bsync_clip_sample(f.clips[0], t, BSYNC_LOOP_WRAP, bsync_skeleton_rest_pose(f.skel), 3, NULL, y),
                         BSYNC_OK);
        assert_memory_equal(x, y, sizeof x);
    }
    /* writing the loaded asset again gives the same bytes */
    unsigned char* again = malloc(f.size);
    assert_int_equal(bsync_clip_file_size(a.skeleton, (const bsync_clip* const*)a.clips, 2), f.size);
    assert_int_equal(bsync_clip_file_write_memory(a.skeleton, (const bsync_clip* const*)a.clips, 2, again, f.size), BSYNC_OK);
    assert_memory_equal(again, f.file, f.size);
    free(again);
    bsync_asset_destroy(&a);
    assert_null(a.skeleton);
    /* too small a buffer, NULLs, a clip of another skeleton */
    assert_int_equal(bsync_clip_file_write_memory(f.skel, (const bsync_clip* const*)f.clips, 2, f.file, f.size - 1),
                     BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(bsync_clip_file_write_memory(NULL, NULL, 0, f.file, f.size), BSYNC_INVALID_ARGUMENT);
    bsync_skeleton* two = make_skeleton(k_names, 2);
    assert_int_equal(bsync_clip_file_write_memory(two, (const bsync_clip* const*)f.clips, 1, f.file, f.size),
                     BSYNC_INVALID_ARGUMENT);
    bsync_skeleton_destroy(two);
    free_fixture(&f);
}

static void test_every_truncation(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    bsync_asset a;
    bsync_error e;
    for (size_t len = 0; len < f.size; len++) {
        unsigned char* t = malloc(len ? len : 1);
        memcpy(t, f.file, len);
        assert_int_equal(bsync_clip_file_load_memory(t, len, "t.bsclip", &a, &e), BSYNC_BAD_BLOB);
        assert_null(a.skeleton);
        assert_non_null(strstr(e.message, "t.bsclip"));
        /* and re-sealed truncations (size and checksum fixed up) are caught by the structure checks */
        if (len >= 64) {
            for (int i = 0; i < 8; i++) t[16 + i] = (unsigned char)((uint64_t)len >> (8 * i));
            reseal(t, len);
            assert_int_equal(bsync_clip_file_load_memory(t, len, "t.bsclip", &a, &e), BSYNC_BAD_BLOB);
        }
        free(t);
    }
    free_fixture(&f);
}

static void test_byte_flips(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    bsync_asset a;
    bsync_error e;
    unsigned char* t = malloc(f.size);
    uint64_t seed = 99;
    int caught_by_checksum = 0, caught_by_structure = 0, harmless = 0;
    for (int it = 0; it < 6000; it++) {
        memcpy(t, f.file, f.size);
        size_t at = (size_t)(bsync_test_rand(&seed) % f.size);
        t[at] ^= (unsigned char)(1u + bsync_test_rand(&seed) % 255u);
        if (it % 2 == 0) {
            /* checksum intact: any flip is an error */
            assert_int_equal(bsync_clip_file_load_memory(t, f.size, "t.bsclip", &a, &e), BSYNC_BAD_BLOB);
            if (strstr(e.message, "checksum")) caught_by_checksum++;
        } else {
            /* re-sealed: the validators must catch what matters and never crash */
            reseal(t, f.size);
            bsync_result r = bsync_clip_file_load_memory(t, f.size, "t.bsclip", &a, &e);
            if (r == BSYNC_OK) {
                /* a flip in a value (a key or rest value) is a different but valid file: it must work */
                bsync_trs x[3];
                for (uint32_t c = 0; c < a.clip_count; c++)
                    assert_int_equal(bsync_clip_sample(a.clips[c], FXI(1) / 3, BSYNC_LOOP_WRAP,
                                                       bsync_skeleton_rest_pose(a.skeleton), 3, NULL, x),
                                     BSYNC_OK);
                harmless++;
                bsync_asset_destroy(&a);
            } else {
                assert_int_equal(r, BSYNC_BAD_BLOB);
                caught_by_structure++;
            }
        }
    }
    print_message("byte flips: %d caught by the checksum, %d by the structure checks, %d changed only values\n",
                  caught_by_checksum, caught_by_structure, harmless);
    assert_true(caught_by_checksum >= 2800);
    assert_true(caught_by_structure > 500);
    free(t);
    free_fixture(&f);
}

/* Targeted structural corruptions, each re-sealed: header fields, directory, block internals. */
static void test_targeted_corruptions(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    bsync_asset a;
    bsync_error e;
    size_t skel_off = (size_t)rd64(f.file + 64), clip_off = (size_t)rd64(f.file + 80);
    struct { size_t off; unsigned char xor_; const char* words; } cases[] = {
        {0, 0x01, "magic"},
        {8, 0x02, "version"},
        {12, 0x40, "header size"},
        {35, 0x80, "block count"},
        {36, 0x02, "convention"},
        {50, 0x01, "reserved"},
        {64, 0x08, "offset"},
        {72, 0x08, "offset or size"},
        {skel_off + 16, 0x01, "skeleton"},         /* allocator slot must be zero */
        {skel_off + 48, 0x01, "skeleton"},         /* joint count */
        {clip_off + 48, 0x01, "clip"},             /* fingerprint */
        {clip_off + 64, 0x01, "clip"},             /* loop flag 1 -> 0: fingerprint */
        {clip_off + 68, 0x07, "clip"},             /* joint count (fingerprint) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned char* t = malloc(f.size);
        memcpy(t, f.file, f.size);
        t[cases[i].off] ^= cases[i].xor_;
        reseal(t, f.size);
        bsync_result r = bsync_clip_file_load_memory(t, f.size, "t.bsclip", &a, &e);
        if (r != BSYNC_BAD_BLOB || !strstr(e.message, cases[i].words)) print_error("case %zu: %s\n", i, e.message);
        assert_int_equal(r, BSYNC_BAD_BLOB);
        assert_non_null(strstr(e.message, cases[i].words));
        free(t);
    }
    /* the validators directly: misaligned or NULL memory */
    const bsync_skeleton* s;
    const bsync_clip* c;
    assert_int_equal(bsync_skeleton_block_validate(NULL, 64, &s), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_skeleton_block_validate(f.file + 1, 64, &s), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_clip_block_validate(f.file + 4, 64, NULL, &c), BSYNC_INVALID_ARGUMENT);
    /* a freshly built (init) block passes as it is */
    size_t need = bsync_skeleton_block_size(f.skel);
    void* mem = NULL;
    assert_int_equal(posix_memalign(&mem, 8, need), 0);
    memcpy(mem, f.file + skel_off, need);
    assert_int_equal(bsync_skeleton_block_validate(mem, need, &s), BSYNC_OK);
    assert_ptr_equal(s, mem);
    assert_int_equal(bsync_skeleton_block_validate(mem, need - 8, &s), BSYNC_BAD_BLOB);
    free(mem);
    free_fixture(&f);
}

static void test_save_and_load_file(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    char path[64];
    snprintf(path, sizeof path, "/tmp/bsync_cf_%ld.bsclip", (long)getpid());
    bsync_error e;
    assert_int_equal(bsync_clip_file_save(path, f.skel, (const bsync_clip* const*)f.clips, 2, &e), BSYNC_OK);
    bsync_asset a;
    assert_int_equal(bsync_clip_file_load(path, &a, &e), BSYNC_OK);
    assert_int_equal(a.clip_count, 2);
    bsync_asset_destroy(&a);
    /* by extension through the generic entry point too */
    assert_int_equal(bsync_asset_import_file(path, NULL, &a, &e), BSYNC_OK);
    bsync_asset_destroy(&a);
    remove(path);
    assert_int_equal(bsync_clip_file_load(path, &a, &e), BSYNC_IO_ERROR);
    assert_int_equal(bsync_clip_file_save("/nonexistent-dir/x.bsclip", f.skel, (const bsync_clip* const*)f.clips, 2, &e),
                     BSYNC_IO_ERROR);
    /* an extension no importer reads (.fbx/.dae go to assimp when it is built in: test_assimp.c) */
    assert_int_equal(bsync_asset_import_file("x.obj", NULL, &a, &e), BSYNC_INVALID_ARGUMENT);
    assert_non_null(strstr(e.message, "glTF"));
    free_fixture(&f);
}

static void test_retarget(void** state) {
    (void)state;
    fixture f;
    make_fixture(&f);
    /* target: head, hips, tail (spine missing, tail unknown to the source) */
    static const char* const tn[3] = {"hips", "head", "tail"};
    bsync_skeleton* target = make_skeleton(tn, 3);
    bsync_clip* out = NULL;
    bsync_retarget_report rep;
    /* clip 'run' animates spine (translation) and head (rotation, scale) */
    assert_int_equal(bsync_retarget_clip(f.clips[1], f.skel, target, 0, &out, &rep), BSYNC_OK);
    assert_int_equal(rep.target_joints, 3);
    assert_int_equal(rep.mapped, 2);
    assert_int_equal(rep.unmapped_target, 1);
    assert_string_equal(rep.unmapped_target_names, "tail");
    assert_int_equal(rep.unmapped_source, 1);
    assert_string_equal(rep.unmapped_source_names, "spine");
    assert_int_equal(rep.dropped_tracks, 1);
    assert_int_equal(bsync_clip_track_count(out), 2);
    bsync_track_info ti;
    assert_int_equal(bsync_clip_track_info(out, 0, &ti), BSYNC_OK);
    assert_int_equal(ti.joint, 1); /* head is joint 1 in the target */
    assert_int_equal(ti.kind, BSYNC_TRACK_ROTATION);
    assert_int_equal(ti.key_count, 3);
    assert_int_equal(ti.quats[1].y, BSYNC_FX_ONE);
    /* unmapped joints play the target's rest pose */
    bsync_trs p[3];
    assert_int_equal(bsync_clip_sample(out, FXI(1) / 2, BSYNC_LOOP_CLAMP, bsync_skeleton_rest_pose(target), 3, NULL, p),
                     BSYNC_OK);
    assert_memory_equal(&p[2], &bsync_skeleton_rest_pose(target)[2], sizeof p[2]);
    assert_memory_equal(&p[0], &bsync_skeleton_rest_pose(target)[0], sizeof p[0]);
    assert_int_equal(p[1].s.y, FXI(3)); /* the scale key (2, 3, 0) */
    bsync_clip_destroy(out);
    /* wrong source skeleton */
    bsync_skeleton* two = make_skeleton(k_names, 2);
    assert_int_equal(bsync_retarget_clip(f.clips[1], two, target, 0, &out, &rep), BSYNC_MISMATCH);
    bsync_skeleton_destroy(two);
    /* bone lengths flag: translation of the non-root 'spine'... is dropped anyway; use walk on hips (root) */
    assert_int_equal(bsync_retarget_clip(f.clips[0], f.skel, target, BSYNC_RETARGET_TARGET_BONE_LENGTHS, &out, &rep), BSYNC_OK);
    assert_int_equal(bsync_clip_track_count(out), 1); /* hips translation kept (a root), spine tracks dropped */
    bsync_clip_destroy(out);
    bsync_skeleton_destroy(target);
    free_fixture(&f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_and_round_trip), cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_byte_flips),            cmocka_unit_test(test_targeted_corruptions),
        cmocka_unit_test(test_save_and_load_file),    cmocka_unit_test(test_retarget),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
