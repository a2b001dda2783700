/* internal/alloc.h — how setup calls allocate through a bsync_allocator (not a public header).
 * The default (malloc/free) lives in io/alloc_default.c, outside the per-tick objects, so that the
 * per-tick part of the core provably references no allocator at all (tests/cli/test_core_symbols). */
#ifndef BLENDSYNC_INTERNAL_ALLOC_H
#define BLENDSYNC_INTERNAL_ALLOC_H

#include "blendsync/base.h"

/* The allocator to use: `a` when it has both callbacks, else the default (malloc/free). */
bsync_allocator bsync_allocator_resolve(const bsync_allocator* a);

static inline void* bsync_allocator_alloc(const bsync_allocator* a, size_t size) {
    return a->alloc_fn(size, 8, a->user);
}
static inline void bsync_allocator_free(const bsync_allocator* a, void* p, size_t size) {
    if (p) a->free_fn(p, size, a->user);
}

#endif
