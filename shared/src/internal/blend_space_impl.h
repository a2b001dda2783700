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

#endif
