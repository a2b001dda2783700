/* internal/block.h — the header every one-block runtime object (skeleton, clip) starts with, and the
 * destroy rule they share. Not a public header. */
#ifndef BLENDSYNC_INTERNAL_BLOCK_H
#define BLENDSYNC_INTERNAL_BLOCK_H

#include "alloc.h"

typedef struct bsync_block_header {
    uint32_t magic;
    uint32_t version;
    uint64_t block_size;
    union {
        bsync_allocator allocator; /* zero unless the block was made by a *_create call */
        uint64_t raw[4];           /* fixes the slot at 32 bytes on every target */
    } alloc;
} bsync_block_header;

_Static_assert(sizeof(bsync_block_header) == 48, "block header layout is the same on 32- and 64-bit");

/* Free a block made by a *_create call with the allocator and size it recorded; blocks made by
 * *_init (zero allocator) belong to their caller and are left alone. */
static inline void bsync_block_destroy(bsync_block_header* h) {
    if (!h) return;
    bsync_allocator a = h->alloc.allocator;
    if (!a.free_fn) return;
    bsync_allocator_free(&a, h, (size_t)h->block_size);
}

#endif
