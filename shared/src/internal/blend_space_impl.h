/* internal/blend_space_impl.h — how blend_space.c (the dispatcher: block layout, far-point pull-back,
 * exact-sum fix-up, diagnostics) talks to the per-type files. Not a public header.
 *
 * Each type's precomputed data ("impl") lives inside the blend space block at an 8-aligned offset;
 * its size is asked first. Build functions may assume validate_ passed. Eval functions get the
 * parameter already pulled back (2D) and write child_count raw weights; the dispatcher then applies
 * the exact-sum rule of blend_space.h. */
#ifndef BLENDSYNC_INTERNAL_BLEND_SPACE_IMPL_H
#define BLENDSYNC_INTERNAL_BLEND_SPACE_IMPL_H

#include "blendsync/blend_space.h"

/* The canonical bytes of a blend space block (what the graph hash feeds): every field written
 * little-endian, one by one, in memory order; padding and unused slots as the zero bytes they are.
 * On a little-endian host the stream is exactly the block's memory, so hashes made before the
 * stream existed are unchanged; on a big-endian host it is the same stream. `put` receives the
 * bytes in order, in pieces of any size. */
typedef struct bsync_canon_sink {
    void (*put)(void* ctx, const unsigned char* bytes, size_t n);
    void* ctx;
} bsync_canon_sink;

static inline void bsync_canon_bytes_(const bsync_canon_sink* s, const void* p, size_t n) {
    if (n) s->put(s->ctx, (const unsigned char*)p, n);
}
static inline void bsync_canon_u32_(const bsync_canon_sink* s, uint32_t v) {
    unsigned char b[4];
    for (unsigned i = 0; i < 4; i++) b[i] = (unsigned char)(v >> (8u * i));
    s->put(s->ctx, b, 4);
}
static inline void bsync_canon_u64_(const bsync_canon_sink* s, uint64_t v) {
    unsigned char b[8];
    for (unsigned i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8u * i));
    s->put(s->ctx, b, 8);
}

/* The bytes after the block header (block_size - 48 of them) of `space`, canonical. */
void bsync_blend_space_canonical_(const bsync_blend_space* space, const bsync_canon_sink* sink);

/* Append a warning (counts it as dropped when full; diag may be NULL). */
void bsync_blend_diag_add_(bsync_blend_diagnostics* diag, bsync_blend_warning_code code, uint32_t a, uint32_t b);

/* Delaunay2D (blend_delaunay.c). */
bsync_result bsync_delaunay_validate_(const bsync_blend_space_desc* desc);
size_t bsync_delaunay_impl_size_(const bsync_blend_space_desc* desc);
bsync_result bsync_delaunay_build_(const bsync_blend_space_desc* desc, void* impl, size_t impl_size,
                                   bsync_blend_diagnostics* diag);
void bsync_delaunay_eval_(const void* impl, const bsync_vec2* positions, uint32_t child_count, bsync_vec2 q,
                          fix16_t* out_weights);
uint32_t bsync_delaunay_triangle_count_(const void* impl);
void bsync_delaunay_triangle_(const void* impl, uint32_t i, uint32_t out_children[3]);
/* The impl's canonical bytes; returns how many (the dispatcher adds the rest as zero padding). */
size_t bsync_delaunay_canonical_(const void* impl, const bsync_canon_sink* sink);

#endif
