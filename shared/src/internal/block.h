/* internal/block.h — the header every one-block runtime object (skeleton, clip, curve, blend space,
 * blend tree) starts with, and the create and destroy rules they share. Not a public header. */
#ifndef BLENDSYNC_INTERNAL_BLOCK_H
#define BLENDSYNC_INTERNAL_BLOCK_H

#include "alloc.h"

/* v rounded up to a multiple of a (a power of two). */
static inline size_t bsync_align_up(size_t v, size_t a) { return (v + (a - 1)) & ~(a - 1); }

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

/* The start of every *_init: zero the `size` bytes at mem and write the block header (magic,
 * version, block size; no allocator). Returns mem as bytes. */
static inline unsigned char* bsync_block_start(void* mem, size_t size, uint32_t magic, uint32_t version) {
    unsigned char* base = (unsigned char*)mem;
    for (size_t i = 0; i < size; i++) base[i] = 0;
    bsync_block_header* h = (bsync_block_header*)mem;
    h->magic = magic;
    h->version = version;
    h->block_size = size;
    return base;
}

/* The allocation half of every *_create: resolve the allocator into *a and take `size` bytes from
 * it (NULL when out of memory). */
static inline void* bsync_block_alloc(const bsync_allocator* allocator, size_t size, bsync_allocator* a) {
    *a = bsync_allocator_resolve(allocator);
    return bsync_allocator_alloc(a, size);
}

/* The end of every *_create, given init_result, what the module's *_init returned for the `size`
 * bytes at mem from bsync_block_alloc: on failure give the memory back to a; on success record a in
 * the block's header (mem starts with it) so that bsync_block_destroy frees the block. Returns
 * init_result. */
static inline bsync_result bsync_block_adopt(bsync_result init_result, void* mem, size_t size, const bsync_allocator* a) {
    if (init_result != BSYNC_OK) {
        bsync_allocator_free(a, mem, size);
        return init_result;
    }
    ((bsync_block_header*)mem)->alloc.allocator = *a;
    return BSYNC_OK;
}

#endif
