/* fixtures.c — the builders of fixtures.h. */
#define _XOPEN_SOURCE 700
#include "fixtures.h"

#include <stdarg.h>
#include <setjmp.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "blendsync/fixed.h"
#include "test_support.h"

bsync_test_chain_rest bsync_test_chain_rest_identity(void) {
    bsync_test_chain_rest r;
    memset(&r, 0, sizeof r);
    r.r = bsync_quat_identity();
    r.s0 = bsync_vec3_make(BSYNC_FX_ONE, BSYNC_FX_ONE, BSYNC_FX_ONE);
    return r;
}

static bsync_vec3 line_(bsync_vec3 a, bsync_vec3 d, uint32_t i) {
    const fix16_t k = (fix16_t)i;
    return bsync_vec3_make(a.x + k * d.x, a.y + k * d.y, a.z + k * d.z);
}

bsync_skeleton* bsync_test_chain_skeleton(const char* const* names, uint32_t n, const bsync_test_chain_rest* rest) {
    const bsync_test_chain_rest identity = bsync_test_chain_rest_identity();
    if (!rest) rest = &identity;
    bsync_joint_desc j[64];
    assert_true(n <= 64);
    memset(j, 0, sizeof j);
    for (uint32_t i = 0; i < n; i++) {
        j[i].name = names[i];
        j[i].parent = (int32_t)i - 1;
        j[i].rest.t = line_(rest->t0, rest->dt, i);
        j[i].rest.r = rest->r;
        j[i].rest.s = line_(rest->s0, rest->ds, i);
    }
    bsync_skeleton_desc d = {j, n};
    bsync_skeleton* s = NULL;
    assert_int_equal(bsync_skeleton_create(&d, NULL, &s), BSYNC_OK);
    return s;
}

bsync_blend_tree* bsync_test_tree_1d(const char* node, const char* param, fix16_t param_default,
                                     const char* const* motions, const fix16_t* thresholds, uint32_t n) {
    assert_true(n <= 16);
    const char* pn[1] = {param};
    const fix16_t defaults[1] = {param_default};
    bsync_blend_child_ref children[16];
    for (uint32_t i = 0; i < n; i++) {
        children[i].kind = BSYNC_CHILD_MOTION;
        children[i].index = i;
    }
    static const uint32_t p0[1] = {0};
    bsync_blend_node_desc nd;
    memset(&nd, 0, sizeof nd);
    nd.name = node;
    nd.space.type = BSYNC_BLEND_SIMPLE_1D;
    nd.space.child_count = n;
    nd.space.thresholds = thresholds;
    nd.children = children;
    nd.params = p0;
    bsync_blend_tree_desc td = {pn, defaults, 1, motions, n, &nd, 1, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

bsync_blend_tree* bsync_test_tree_direct(uint32_t n, const fix16_t* weights) {
    static const char* const pn[8] = {"w0", "w1", "w2", "w3", "w4", "w5", "w6", "w7"};
    static const char* const mn[8] = {"m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7"};
    static const uint32_t index[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    assert_true(n <= 8);
    bsync_blend_child_ref refs[8];
    for (uint32_t i = 0; i < n; i++) {
        refs[i].kind = BSYNC_CHILD_MOTION;
        refs[i].index = i;
    }
    bsync_blend_node_desc node;
    memset(&node, 0, sizeof node);
    node.name = "root";
    node.space.type = BSYNC_BLEND_DIRECT;
    node.space.child_count = n;
    node.children = refs;
    node.params = index;
    bsync_blend_tree_desc td = {pn, weights, n, mn, n, &node, 1, 0};
    bsync_blend_tree* t = NULL;
    assert_int_equal(bsync_blend_tree_create(&td, NULL, &t, NULL, NULL), BSYNC_OK);
    return t;
}

bsync_instance* bsync_test_instance_new(const bsync_graph* g, void** mem) {
    const size_t sz = bsync_instance_memory_size(g);
    *mem = aligned_alloc(8, (sz + 7) & ~(size_t)7);
    assert_non_null(*mem);
    bsync_instance* inst = NULL;
    assert_int_equal(bsync_instance_init(*mem, sz, g, &inst), BSYNC_OK);
    return inst;
}

bsync_result bsync_test_pak_read(const char* path, const void** data, size_t* size, void* user) {
    bsync_test_pak* p = user;
    for (unsigned i = 0; i < p->count; i++)
        if (!strcmp(p->names[i], path)) {
            *data = p->data[i];
            *size = p->size[i];
            p->reads++;
            return BSYNC_OK;
        }
    snprintf(p->missing, sizeof p->missing, "%s", path);
    return BSYNC_IO_ERROR;
}

void bsync_test_pak_release(const char* path, const void* data, size_t size, void* user) {
    (void)path;
    (void)data;
    (void)size;
    ((bsync_test_pak*)user)->releases++;
}

void bsync_test_pak_add_file(bsync_test_pak* p, const char* name, const char* disk) {
    assert_true(p->count < BSYNC_TEST_PAK_MAX);
    FILE* f = fopen(name, "rb");
    assert_null(f);
    char* data = bsync_test_read_file(disk, &p->size[p->count]);
    assert_non_null(data);
    p->owned[p->count] = data;
    p->data[p->count] = data;
    p->names[p->count++] = name;
}

void bsync_test_pak_free(bsync_test_pak* p) {
    for (unsigned i = 0; i < p->count; i++) {
        free(p->owned[i]);
        p->owned[i] = NULL;
    }
}

int bsync_test_tmpdir(char* dir, size_t cap, const char* tag) {
    const int n = snprintf(dir, cap, "/tmp/bsync_%s_XXXXXX", tag);
    if (n < 0 || (size_t)n >= cap) return -1;
    return mkdtemp(dir) ? 0 : -1;
}

void bsync_test_tmpfile(char* path, size_t cap, const char* tag, const void* data, size_t len) {
    const int n = snprintf(path, cap, "/tmp/bsync_%s_XXXXXX", tag);
    assert_true(n > 0 && (size_t)n < cap);
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE* f = fdopen(fd, "wb");
    assert_non_null(f);
    if (len) assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

const char* bsync_test_path(const char* dir, const char* name) {
    static char paths[8][1024];
    static unsigned next;
    char* p = paths[next++ % 8u];
    snprintf(p, sizeof paths[0], "%s/%s", dir, name);
    return p;
}

int bsync_test_write(const char* dir, const char* name, const void* data, size_t len) {
    FILE* f = fopen(bsync_test_path(dir, name), "wb");
    if (!f) return -1;
    const int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int bsync_test_write_text(const char* dir, const char* name, const char* text) {
    return bsync_test_write(dir, name, text, strlen(text));
}

static int remove_entry_(const char* path, const struct stat* st, int flag, struct FTW* ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void bsync_test_rmtree(const char* dir) {
    nftw(dir, remove_entry_, 16, FTW_DEPTH | FTW_PHYS);
}
