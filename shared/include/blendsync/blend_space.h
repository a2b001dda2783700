/* blendsync/blend_space.h — blend spaces: child weights from parameters, in fixed point.
 *
 * Index
 *   bsync_blend_type, bsync_blend_type_name, bsync_blend_type_from_name
 *   bsync_vec2
 *   bsync_blend_space_desc                  the layout (thresholds or positions) and options
 *   bsync_blend_diagnostics                 warnings found while building (degenerate layouts)
 *   bsync_blend_space_validate / _memory_size / _init / _create / _destroy
 *   bsync_blend_space_eval                  weights of the children for parameter values
 *   bsync_blend_space_type, _child_count, _param_count, _threshold, _position, _bounds
 *   bsync_blend_space_triangles             Delaunay2D: the triangulation (for tools and plots)
 *
 * The specification is the reference text blend-spec.md ("recommended" policies where the anchor
 * engines are undefined); docs/blend-spaces.md says what blendsync does for every type and edge case.
 * Type names follow Unity's BlendTreeType, plus Delaunay2D and InverseDistance2D:
 *   Simple1D               tents between sorted thresholds, clamped at the ends; duplicate thresholds
 *                          are a hard switch (at the shared value the duplicates share equally)
 *   SimpleDirectional2D    angular neighbours + centre triangle; no centre motion -> even spread
 *   FreeformDirectional2D  gradient bands in polar space (Rune Skovbo Johansen's reference code)
 *   FreeformCartesian2D    gradient bands (min of bands, normalised)
 *   Direct                 weight_i = parameter_i (negative -> 0), normalised only when asked
 *   Delaunay2D             exact Delaunay triangulation, barycentric inside, closest hull point
 *                          outside, 1D tents along the line for collinear samples
 *   InverseDistance2D      Shepard weighting with an integer power 1..8 (default 2)
 *
 * Parameters. Simple1D takes 1 value, the 2D types take 2 (x, y), Direct takes child_count values.
 * Values are fix16; NaN and infinity do not exist in fix16 (the text and float edges map NaN to 0
 * and saturate infinities before a value gets here). Every int32 value, INT32_MIN included, is
 * accepted. 2D layout: its "centre" is the centre of the positions' bounding box (rounded down to a
 * raw step) and its "size" is max(width, height) of that box. A 2D point farther from the centre
 * than BSYNC_BLEND_FAR_FACTOR * size is pulled back radially (direction kept, Q30 scale factor) to
 * that distance; a layout of size 0 (all positions equal) maps every point to its centre. 1D values
 * are clamped by the tents.
 *
 * Exact sums. Every type but Direct returns weights >= 0 that sum to exactly BSYNC_FX_ONE: after the
 * type's own rounding, the difference between BSYNC_FX_ONE and the sum is added to the largest
 * weight (the lowest index among equals; if that would go negative it becomes 0 and the rest goes to
 * the next largest). This is the only rounding fix-up, and it is the same on every machine. Direct
 * with `normalize` and a positive sum follows the same rule; otherwise Direct is not normalised.
 *
 * Coincident children (equal positions, or equal thresholds hit exactly) share their weight equally
 * up to the rounding: each gets floor(v / m) of the group's weight v and the remainder (< m raw steps)
 * goes to the lowest child indices (through the exact-sum rule where the type does not place it). Weight exactly BSYNC_FX_ONE at a child's own position (others 0) is promised by Simple1D
 * (distinct thresholds), FreeformCartesian2D, FreeformDirectional2D, InverseDistance2D and Delaunay2D
 * for children without coincident twins, and by SimpleDirectional2D when no gap between neighbouring
 * directions is 180 deg or more, no two children share a direction, and (for the centre) there is
 * one centre child.
 *
 * Build-time work. Everything that depends only on the layout (sorted thresholds, directions and
 * angles, pair vectors, the triangulation) is computed by init/create; eval allocates nothing and
 * reads only the built block. A built blend space is one relocatable block (offsets only).
 *
 * Does not: allocate except in create, keep globals, use floating point, or print.
 */
#ifndef BLENDSYNC_BLEND_SPACE_H
#define BLENDSYNC_BLEND_SPACE_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_vec2 { fix16_t x, y; } bsync_vec2;

typedef enum bsync_blend_type {
    BSYNC_BLEND_SIMPLE_1D = 0,
    BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D = 1,
    BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D = 2,
    BSYNC_BLEND_FREEFORM_CARTESIAN_2D = 3,
    BSYNC_BLEND_DIRECT = 4,
    BSYNC_BLEND_DELAUNAY_2D = 5,
    BSYNC_BLEND_INVERSE_DISTANCE_2D = 6,
    BSYNC_BLEND_TYPE_COUNT = 7
} bsync_blend_type;

/* "Simple1D", "SimpleDirectional2D", ...; "unknown" for a value outside the enum. */
BSYNC_API const char* bsync_blend_type_name(bsync_blend_type type);
/* BSYNC_OK, or BSYNC_NOT_FOUND for a name that is not one of the seven (exact, case-sensitive). */
BSYNC_API bsync_result bsync_blend_type_from_name(const char* name, bsync_blend_type* out);

/* How far a 2D point may be from the layout's centre before it is pulled back (times the layout's
 * size). 4096 keeps InverseDistance2D within 1e-4 of its limit far away (the weights tend to uniform
 * as 1/distance), and every type's arithmetic is exact-in-int64 for any fix16 point anyway. */
#define BSYNC_BLEND_FAR_FACTOR 4096

typedef struct bsync_blend_space_desc {
    bsync_blend_type type;
    uint32_t child_count;         /* 1..BSYNC_MAX_BLEND_CHILDREN */
    const fix16_t* thresholds;    /* Simple1D: child_count values, any order (sorted when built) */
    const bsync_vec2* positions;  /* 2D types: child_count points */
    uint32_t power;               /* InverseDistance2D: 1..8; 0 means the default, 2 */
    int normalize;                /* Direct: nonzero divides by the sum when the sum is positive */
} bsync_blend_space_desc;

/* Warnings (the layout works, but a designer should look) found while building. CLOSE_SAMPLES and
 * DUPLICATE_POSITION are reported for every pair of every 2D type (a < b); GAP_180 names the two
 * neighbouring directions around the gap, counter-clockwise (a, a when there is one direction). */
typedef enum bsync_blend_warning_code {
    BSYNC_BLEND_WARN_DUPLICATE_THRESHOLD = 1, /* Simple1D: equal thresholds (a hard switch) a, b */
    BSYNC_BLEND_WARN_CLOSE_SAMPLES = 2,       /* 2D: a and b closer than 1% of the layout's size */
    BSYNC_BLEND_WARN_DUPLICATE_POSITION = 3,  /* 2D: a and b at the same point (they share weight) */
    BSYNC_BLEND_WARN_GAP_180 = 4,             /* SimpleDirectional2D: a gap of 180 deg or more between a, b */
    BSYNC_BLEND_WARN_SAME_DIRECTION = 5,      /* SimpleDirectional2D: b points where a does (b never chosen) */
    BSYNC_BLEND_WARN_NO_CENTER = 6,           /* FreeformDirectional2D: no motion at (0, 0) */
    BSYNC_BLEND_WARN_MULTIPLE_CENTERS = 7,    /* directional types: a and b both at (0, 0) (they share) */
    BSYNC_BLEND_WARN_COLLINEAR = 8,           /* Delaunay2D: all samples on a line (1D tents used) */
    BSYNC_BLEND_WARN_SMALL_GAP = 9            /* SimpleDirectional2D: directions a, b less than 2 deg apart */
} bsync_blend_warning_code;

typedef struct bsync_blend_warning {
    bsync_blend_warning_code code;
    uint32_t child_a, child_b; /* the children concerned (child_b = child_a when only one) */
} bsync_blend_warning;

#define BSYNC_BLEND_MAX_WARNINGS 16
typedef struct bsync_blend_diagnostics {
    uint32_t count;     /* warnings stored (at most BSYNC_BLEND_MAX_WARNINGS) */
    uint32_t dropped;   /* warnings beyond that */
    bsync_blend_warning warnings[BSYNC_BLEND_MAX_WARNINGS];
} bsync_blend_diagnostics;

/* Text of a warning code, e.g. "samples closer than 1% of the layout's size". */
BSYNC_API const char* bsync_blend_warning_string(bsync_blend_warning_code code);

typedef struct bsync_blend_space bsync_blend_space; /* opaque; one block */

/* Errors: BSYNC_INVALID_ARGUMENT (null desc or missing arrays, unknown type, power outside 1..8),
 * BSYNC_LIMIT_EXCEEDED (child_count 0 or above the maximum; Delaunay2D coordinates beyond its exact
 * bound, see docs/blend-spaces.md), BSYNC_BAD_LAYOUT (a layout no rule can evaluate). */
BSYNC_API bsync_result bsync_blend_space_validate(const bsync_blend_space_desc* desc);
BSYNC_API size_t bsync_blend_space_memory_size(const bsync_blend_space_desc* desc); /* 0 if invalid */
/* Build into caller memory (8-byte aligned). `diag` may be NULL; when given it is cleared first. */
BSYNC_API bsync_result bsync_blend_space_init(void* mem, size_t size, const bsync_blend_space_desc* desc,
                                    bsync_blend_space** out, bsync_blend_diagnostics* diag);
BSYNC_API bsync_result bsync_blend_space_create(const bsync_blend_space_desc* desc, const bsync_allocator* allocator,
                                      bsync_blend_space** out, bsync_blend_diagnostics* diag);
BSYNC_API void bsync_blend_space_destroy(bsync_blend_space* space);

/* Weights of the children, in the order of the desc, for `param_count` values (must equal
 * bsync_blend_space_param_count, else BSYNC_MISMATCH). Writes child_count weights. */
BSYNC_API bsync_result bsync_blend_space_eval(const bsync_blend_space* space, const fix16_t* params, uint32_t param_count,
                                    fix16_t* out_weights);

BSYNC_API bsync_blend_type bsync_blend_space_type(const bsync_blend_space* space);
BSYNC_API uint32_t bsync_blend_space_child_count(const bsync_blend_space* space);
BSYNC_API uint32_t bsync_blend_space_param_count(const bsync_blend_space* space);
/* The layout as given (desc order). Threshold of a 1D child, position of a 2D child; 0 otherwise. */
BSYNC_API fix16_t bsync_blend_space_threshold(const bsync_blend_space* space, uint32_t child);
BSYNC_API bsync_vec2 bsync_blend_space_position(const bsync_blend_space* space, uint32_t child);
/* Bounding box of the thresholds (x only) or positions. */
BSYNC_API void bsync_blend_space_bounds(const bsync_blend_space* space, bsync_vec2* out_min, bsync_vec2* out_max);
/* Delaunay2D: number of triangles, and triangle i's three child indices (counter-clockwise);
 * 0 / BSYNC_INVALID_ARGUMENT for other types or i out of range. */
BSYNC_API uint32_t bsync_blend_space_triangle_count(const bsync_blend_space* space);
BSYNC_API bsync_result bsync_blend_space_triangle(const bsync_blend_space* space, uint32_t i, uint32_t out_children[3]);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_BLEND_SPACE_H */
