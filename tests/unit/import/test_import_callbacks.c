/* bsync_import_options.file: the importers read through caller callbacks (an engine's pak files)
 * instead of stdio. The same asset imported from a path and through the callbacks, from names that
 * exist nowhere on disk, gives identical skeleton and clip hashes: a BVH written here, the .bsclip of
 * it, and from ../shared (skipped cleanly when absent) a glTF with an external .bin and a .glb. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "blendsync/checksum.h"
#include "blendsync/io/asset.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/io/file.h"
#include "test_support.h"
#include "fixtures.h"

static uint64_t asset_hash(const bsync_asset* a) {
    bsync_checksum_state s;
    bsync_checksum_init(&s, 1);
    bsync_checksum_u64(&s, bsync_checksum_skeleton(a->skeleton));
    bsync_checksum_u32(&s, a->clip_count);
    for (uint32_t i = 0; i < a->clip_count; i++) bsync_checksum_u64(&s, bsync_checksum_clip(a->clips[i]));
    return bsync_checksum_final(&s);
}

/* Import `disk` by path (stdio) and `name` through the pak; both must succeed with equal hashes. */
static void same_both_ways(const char* disk, const char* name, bsync_test_pak* p) {
    bsync_asset a, b;
    bsync_error e;
    assert_int_equal(bsync_asset_import_file(disk, NULL, &a, &e), BSYNC_OK);
    bsync_import_options o;
    memset(&o, 0, sizeof o);
    o.file.read = bsync_test_pak_read;
    o.file.release = bsync_test_pak_release;
    o.file.user = p;
    bsync_result r = bsync_asset_import_file(name, &o, &b, &e);
    if (r != BSYNC_OK) fprintf(stderr, "%s: %s\n", name, e.message);
    assert_int_equal(r, BSYNC_OK);
    assert_true(a.clip_count > 0);
    assert_int_equal(a.clip_count, b.clip_count);
    assert_true(asset_hash(&a) == asset_hash(&b));
    for (uint32_t i = 0; i < a.clip_count; i++) assert_true(bsync_checksum_clip(a.clips[i]) == bsync_checksum_clip(b.clips[i]));
    assert_int_equal(p->reads, p->releases);
    bsync_asset_destroy(&a);
    bsync_asset_destroy(&b);
}

static const char k_bvh[] =
    "HIERARCHY\n"
    "ROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "  JOINT Spine\n  {\n    OFFSET 0 10 0\n    CHANNELS 3 Zrotation Xrotation Yrotation\n"
    "    End Site\n    {\n      OFFSET 0 8 0\n    }\n  }\n}\n"
    "MOTION\nFrames: 3\nFrame Time: 0.033333\n"
    "0 90 0 0 0 0 0 0 0\n"
    "1 91 0 5 0 0 10 0 0\n"
    "2 92 0 10 0 0 20 5 0\n";

static void test_bvh_and_bsclip(void** state) {
    (void)state;
    char dir[64];
    assert_int_equal(bsync_test_tmpdir(dir, sizeof dir, "cb"), 0);
    char path[256], clip_path[256];
    snprintf(path, sizeof path, "%s/walk.bvh", dir);
    assert_int_equal(bsync_test_write_text(dir, "walk.bvh", k_bvh), 0);
    bsync_test_pak p;
    memset(&p, 0, sizeof p);
    p.names[0] = "pak:/anims/walk.bvh";
    p.data[0] = k_bvh;
    p.size[0] = sizeof k_bvh - 1;
    p.count = 1;
    same_both_ways(path, "pak:/anims/walk.bvh", &p);
    assert_int_equal(p.reads, 1);
    /* its .bsclip, written to disk and put into the pak */
    bsync_asset a;
    bsync_error e;
    assert_int_equal(bsync_asset_import_file(path, NULL, &a, &e), BSYNC_OK);
    size_t n = bsync_clip_file_size(a.skeleton, (const bsync_clip* const*)a.clips, a.clip_count);
    void* bytes = malloc(n);
    assert_non_null(bytes);
    assert_int_equal(bsync_clip_file_write_memory(a.skeleton, (const bsync_clip* const*)a.clips, a.clip_count, bytes, n),
                     BSYNC_OK);
    snprintf(clip_path, sizeof clip_path, "%s/walk.bsclip", dir);
    assert_int_equal(bsync_clip_file_save(clip_path, a.skeleton, (const bsync_clip* const*)a.clips, a.clip_count, &e),
                     BSYNC_OK);
    bsync_asset_destroy(&a);
    p.names[1] = "pak:/anims/walk.bsclip";
    p.data[1] = bytes;
    p.size[1] = n;
    p.count = 2;
    same_both_ways(clip_path, "pak:/anims/walk.bsclip", &p);
    /* a name the pak does not hold: the callback's I/O error, named */
    bsync_import_options o;
    memset(&o, 0, sizeof o);
    o.file.read = bsync_test_pak_read;
    o.file.user = &p;
    assert_int_equal(bsync_asset_import_file("pak:/anims/run.bvh", &o, &a, &e), BSYNC_IO_ERROR);
    assert_non_null(strstr(e.message, "run.bvh"));
    assert_string_equal(p.missing, "pak:/anims/run.bvh");
    /* stdio is not asked: the disk path through the pak fails although the file exists */
    assert_int_equal(bsync_asset_import_file(path, &o, &a, &e), BSYNC_IO_ERROR);
    free(bytes);
    bsync_test_rmtree(dir);
}

/* A .gltf whose buffer is an external .bin: both come through the pak (2 reads, 2 releases). */
static void test_gltf_external_buffer(void** state) {
    (void)state;
    char gl_path[1024], bin_disk[1024]; /* bsync_test_shared_path's buffer is static: copied */
    const char* gl = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_raw.gltf");
    if (!gl) {
        skip();
        return;
    }
    snprintf(gl_path, sizeof gl_path, "%s", gl);
    const char* bd = bsync_test_shared_path("data/ozz-animation-pab/converted/pab_locomotion_raw.bin");
    if (!bd) {
        skip();
        return;
    }
    snprintf(bin_disk, sizeof bin_disk, "%s", bd);
    size_t bn = 0, gn = 0;
    char* bin = bsync_test_read_file(bin_disk, &bn);
    char* text = bsync_test_read_file(gl_path, &gn);
    assert_non_null(bin);
    assert_non_null(text);
    assert_non_null(strstr(text, "pab_locomotion_raw.bin")); /* the buffer's uri */
    bsync_test_pak p;
    memset(&p, 0, sizeof p);
    p.names[0] = "pak/pab.gltf";
    p.data[0] = text;
    p.size[0] = gn;
    p.names[1] = "pak/pab_locomotion_raw.bin"; /* the uri joined to the .gltf's folder */
    p.data[1] = bin;
    p.size[1] = bn;
    p.count = 2;
    same_both_ways(gl_path, "pak/pab.gltf", &p);
    assert_int_equal(p.reads, 2);
    assert_int_equal(p.releases, 2);
    free(bin);
    free(text);
}

static void test_glb(void** state) {
    (void)state;
    const char* glb = bsync_test_shared_path("data/khronos-fox/Fox.glb");
    if (!glb) {
        skip();
        return;
    }
    char glb_path[1024];
    snprintf(glb_path, sizeof glb_path, "%s", glb);
    size_t n = 0;
    char* bytes = bsync_test_read_file(glb_path, &n);
    assert_non_null(bytes);
    bsync_test_pak p;
    memset(&p, 0, sizeof p);
    p.names[0] = "Fox.glb";
    p.data[0] = bytes;
    p.size[0] = n;
    p.count = 1;
    same_both_ways(glb_path, "Fox.glb", &p);
    free(bytes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bvh_and_bsclip),
        cmocka_unit_test(test_gltf_external_buffer),
        cmocka_unit_test(test_glb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
