/* fixtures.h — builders the cmocka tests share (not part of the product): the small skeletons, blend
 * trees, instances and temporary folders that tests used to write out each for itself. Every builder
 * asserts that what it builds is accepted, so a test reads as its own values only. */
#ifndef BSYNC_TEST_FIXTURES_H
#define BSYNC_TEST_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/blend_tree.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/skeleton.h"

/* ---------------------------------------------------------------- skeletons */

/* The rest pose of a chain's joints as a line in the joint index i: translation t0 + i * dt, rotation
 * r, scale s0 + i * ds (component-wise on raw fix16 values). */
typedef struct bsync_test_chain_rest {
    bsync_vec3 t0, dt;
    bsync_quat r;
    bsync_vec3 s0, ds;
} bsync_test_chain_rest;

/* t0 = dt = 0, r = identity, s0 = (1, 1, 1), ds = 0: every joint at its parent's origin, unrotated. */
bsync_test_chain_rest bsync_test_chain_rest_identity(void);

/* A chain of n joints (n <= 64): joint i named names[i], parent i - 1 (joint 0 the root), its rest pose
 * from rest (NULL: bsync_test_chain_rest_identity()). Asserts it is created; destroy with
 * bsync_skeleton_destroy. */
bsync_skeleton* bsync_test_chain_skeleton(const char* const* names, uint32_t n, const bsync_test_chain_rest* rest);

/* ---------------------------------------------------------------- blend trees */

/* A tree of one BSYNC_BLEND_SIMPLE_1D node `node` (the root) over motions 0..n-1 named motions[i] at
 * thresholds[i], driven by the tree's one parameter `param` with default `param_default`. n <= 16.
 * Asserts it is created; destroy with bsync_blend_tree_destroy. */
bsync_blend_tree* bsync_test_tree_1d(const char* node, const char* param, fix16_t param_default,
                                     const char* const* motions, const fix16_t* thresholds, uint32_t n);

/* A tree of one BSYNC_BLEND_DIRECT node "root" over motions m0..m<n-1>, parameter w<i> the weight of
 * motion i with default weights[i]. n <= 8. Asserts it is created. */
bsync_blend_tree* bsync_test_tree_direct(uint32_t n, const fix16_t* weights);

/* ---------------------------------------------------------------- instances */

/* An instance of g in fresh 8-byte aligned memory (*mem: free it); asserts it initialises. */
bsync_instance* bsync_test_instance_new(const bsync_graph* g, void** mem);

/* ---------------------------------------------------------------- a pak in memory */

/* An engine's pak file as the file callbacks of the importers and the config loaders see it (names ->
 * bytes, all in memory; a test fills names, data, size and count). bsync_test_pak_read serves a held
 * name (reads++) and answers any other with BSYNC_IO_ERROR, keeping the name in `missing`;
 * bsync_test_pak_release counts releases. user is the pak. */
#define BSYNC_TEST_PAK_MAX 8
typedef struct bsync_test_pak {
    const char* names[BSYNC_TEST_PAK_MAX];
    const void* data[BSYNC_TEST_PAK_MAX];
    size_t size[BSYNC_TEST_PAK_MAX];
    unsigned count, reads, releases;
    void* owned[BSYNC_TEST_PAK_MAX]; /* what bsync_test_pak_add_file read (bsync_test_pak_free frees it) */
    char missing[1024]; /* the last name asked for that the pak does not hold */
} bsync_test_pak;
bsync_result bsync_test_pak_read(const char* path, const void** data, size_t* size, void* user);
void bsync_test_pak_release(const char* path, const void* data, size_t size, void* user);
/* Put the disk file `disk` into the pak under `name`, which must exist nowhere on disk (asserted: else
 * a test reading through the pak would prove nothing). */
void bsync_test_pak_add_file(bsync_test_pak* p, const char* name, const char* disk);
/* Free what bsync_test_pak_add_file read. */
void bsync_test_pak_free(bsync_test_pak* p);

/* ---------------------------------------------------------------- temporary folders */

/* A new empty folder /tmp/bsync_<tag>_XXXXXX (mkdtemp) written into dir (capacity cap); 0, or -1 when
 * it cannot be made. */
int bsync_test_tmpdir(char* dir, size_t cap, const char* tag);
/* A new file /tmp/bsync_<tag>_XXXXXX (mkstemp) holding len bytes of data (none when len is 0), its path
 * written into path (capacity cap); asserts both. The test removes it. */
void bsync_test_tmpfile(char* path, size_t cap, const char* tag, const void* data, size_t len);
/* dir/name in a static buffer (one of 8 used in turn, so a few can be alive at once). */
const char* bsync_test_path(const char* dir, const char* name);
/* len bytes of data written to dir/name; 0, or -1 when it cannot be written. */
int bsync_test_write(const char* dir, const char* name, const void* data, size_t len);
/* The NUL-terminated text written to dir/name; 0 or -1. */
int bsync_test_write_text(const char* dir, const char* name, const char* text);
/* Remove dir and everything below it (files and folders); quiet when it is already gone. */
void bsync_test_rmtree(const char* dir);

#endif
