#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

const char* bsync_test_shared_dir(void) {
    const char* d = getenv("BSYNC_SHARED_DIR");
    if (!d || !*d) d = "../shared";
    struct stat st;
    if (stat(d, &st) != 0 || !S_ISDIR(st.st_mode)) return NULL;
    return d;
}

const char* bsync_test_shared_path(const char* relative) {
    static char buf[4096];
    const char* d = bsync_test_shared_dir();
    if (!d) return NULL;
    snprintf(buf, sizeof buf, "%s/%s", d, relative);
    struct stat st;
    if (stat(buf, &st) != 0) return NULL;
    return buf;
}

static void* counting_alloc(size_t size, size_t align, void* user) {
    (void)align;
    bsync_test_counting_allocator* c = user;
    c->allocs++;
    c->live_bytes += size;
    return malloc(size);
}

static void counting_free(void* p, size_t size, void* user) {
    bsync_test_counting_allocator* c = user;
    c->frees++;
    c->live_bytes -= size;
    free(p);
}

void bsync_test_counting_allocator_init(bsync_test_counting_allocator* c) {
    c->allocator.alloc_fn = counting_alloc;
    c->allocator.free_fn = counting_free;
    c->allocator.user = c;
    c->allocs = c->frees = c->live_bytes = 0;
}

uint64_t bsync_test_rand(uint64_t* state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void* failing_alloc(size_t size, size_t align, void* user) {
    (void)size;
    (void)align;
    (*(int*)user)++;
    return NULL;
}

static void failing_free(void* p, size_t size, void* user) {
    (void)p;
    (void)size;
    (void)user;
    fail_msg("free called for a failed allocation");
}

bsync_allocator bsync_test_failing_allocator(int* calls) {
    bsync_allocator a = {failing_alloc, failing_free, calls};
    return a;
}
