/* internal/blend_types.h — the per-type files of blend spaces other than Delaunay2D (blend_1d.c,
 * blend_directional.c, blend_gradient.c, blend_idw.c) and the helpers they share (blend_space.c).
 * Not a public header.
 *
 * Every type keeps its layout-only data ("impl") inside the blend space block. size_ functions give
 * its size in bytes (a multiple of 8) for n children; build_ fills it (the memory is zeroed first and
 * validate has passed); eval_ writes n raw weights (>= 0, summing to BSYNC_FX_ONE up to the type's own
 * rounding), which the dispatcher then makes exact (blend_space.h). 2D eval_ functions get the
 * parameter already pulled back; canonical_ functions write the impl's fields little-endian in
 * memory order (internal/blend_space_impl.h) and return the byte count. Nothing here allocates. */
#ifndef BLENDSYNC_INTERNAL_BLEND_TYPES_H
#define BLENDSYNC_INTERNAL_BLEND_TYPES_H

#include "blendsync/blend_space.h"
#include "blend_space_impl.h"

/* ---- shared helpers (blend_space.c) */

/* round(num / den * 2^16) for num <= den, den > 0 (any uint64 magnitudes). */
uint32_t bsync_blend_frac_q16_(uint64_t num, uint64_t den);
/* round(num / den * 2^30) for num <= den, den > 0 (any uint64 magnitudes; relative error < 2^-32). */
uint64_t bsync_blend_frac_q30_(uint64_t num, uint64_t den);
/* Number of significant bits of v (0 for 0). */
unsigned bsync_blend_bitlen_(uint64_t v);
/* For each child, the first child at the same position (duplicates share weight). Returns the
 * number of distinct positions. rep[i] <= i. */
uint32_t bsync_blend_groups_(const bsync_vec2* pos, uint32_t n, uint8_t* rep);
/* The nearest sample(s) to q share BSYNC_FX_ONE equally (floor; the fix-up adds the rest); the
 * others get 0. Distances are compared exactly unless q is more than 2^31 raw steps from a sample,
 * when all differences are first shifted right by one common amount. */
void bsync_blend_nearest_(const bsync_vec2* pos, uint32_t n, bsync_vec2 q, fix16_t* w);
/* Normalise per-group influences h[k] (k < n_groups, any scale, sum may be 0) into child weights:
 * the group's v = round(h / sum * ONE) is split as floor(v / m), the lowest (v mod m) child indices of
 * the group one raw step more. Returns 0 if the sum was 0
 * (nothing written). */
int bsync_blend_normalise_groups_(const uint64_t* h, uint32_t n_groups, const uint8_t* group_of,
                                  const uint8_t* group_size, uint32_t n, fix16_t* w);

/* ---- Simple1D (blend_1d.c) */
size_t bsync_b1d_size_(uint32_t n);
void bsync_b1d_build_(void* impl, const fix16_t* thresholds, uint32_t n, bsync_blend_diagnostics* diag);
void bsync_b1d_eval_(const void* impl, uint32_t n, fix16_t p, fix16_t* w);
size_t bsync_b1d_canonical_(const void* impl, uint32_t n, const bsync_canon_sink* sink);

/* ---- SimpleDirectional2D (blend_directional.c) */
size_t bsync_bsd_size_(uint32_t n);
void bsync_bsd_build_(void* impl, const bsync_vec2* pos, uint32_t n, bsync_blend_diagnostics* diag);
void bsync_bsd_eval_(const void* impl, const bsync_vec2* pos, uint32_t n, bsync_vec2 q, fix16_t* w);
size_t bsync_bsd_canonical_(const void* impl, uint32_t n, const bsync_canon_sink* sink);

/* ---- FreeformCartesian2D (polar = 0) and FreeformDirectional2D (polar = 1) (blend_gradient.c) */
size_t bsync_band_size_(uint32_t n, int polar);
void bsync_band_build_(void* impl, const bsync_vec2* pos, uint32_t n, int polar, bsync_blend_diagnostics* diag);
void bsync_band_eval_(const void* impl, const bsync_vec2* pos, uint32_t n, bsync_vec2 q, fix16_t* w);
size_t bsync_band_canonical_(const void* impl, uint32_t n, int polar, const bsync_canon_sink* sink);

/* ---- InverseDistance2D (blend_idw.c) */
size_t bsync_idw_size_(uint32_t n);
void bsync_idw_build_(void* impl, const bsync_vec2* pos, uint32_t n, uint32_t power);
void bsync_idw_eval_(const void* impl, const bsync_vec2* pos, uint32_t n, bsync_vec2 q, fix16_t* w);
size_t bsync_idw_canonical_(const void* impl, const bsync_canon_sink* sink);

#endif
