/* alloc_default.c — the default allocator (malloc/free) behind a zero bsync_allocator.
 * Kept in io/ (the part of the core that touches the operating system) so that no per-tick object
 * references malloc or free. Setup calls (skeleton/clip create) use it; per-tick calls never do. */
#include <stdlib.h>
#include "internal/alloc.h"

static void* default_alloc(size_t size, size_t align, void* user) {
    (void)user;
    (void)align; /* malloc's alignment (16 on the supported targets) covers the 8 the core asks for */
    return malloc(size);
}

static void default_free(void* p, size_t size, void* user) {
    (void)size;
    (void)user;
    free(p);
}

bsync_allocator bsync_allocator_resolve(const bsync_allocator* a) {
    if (a && a->alloc_fn && a->free_fn) return *a;
    bsync_allocator d = {default_alloc, default_free, NULL};
    return d;
}
