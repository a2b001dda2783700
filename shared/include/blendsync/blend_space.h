/* blendsync/blend_space.h — blend spaces: child weights from parameters, in fixed point.
 *
 * Index
 *   bsync_blend_type, bsync_blend_type_name, bsync_blend_type_from_name
 *   bsync_vec2, bsync_blend_space_desc      the layout (thresholds or positions) and options
 *   bsync_blend_diagnostics, bsync_blend_warning_string   warnings found while building
 *   bsync_blend_space_validate / _memory_size / _init / _create / _destroy
 *   bsync_blend_space_eval                  weights of the children for parameter values
 *   bsync_blend_space_type, _child_count, _param_count, _threshold, _position, _bounds
 *   bsync_blend_space_triangle_count / _triangle   Delaunay2D's triangulation
 *
 * Weights are >= 0 and sum to exactly BSYNC_FX_ONE (Direct: unless not normalised). One relocatable
 * block; eval allocates nothing and uses no floats. design: docs/blend-spaces.md (every type, edge
 * case and warning)
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

/* "unknown" outside the enum. */
BSYNC_API const char* bsync_blend_type_name(bsync_blend_type type);
/* Case-sensitive; BSYNC_NOT_FOUND. */
BSYNC_API bsync_result bsync_blend_type_from_name(const char* name, bsync_blend_type* out);

/* 2D points farther than this times the layout's size are pulled back (docs/blend-spaces.md). */
#define BSYNC_BLEND_FAR_FACTOR 4096

typedef struct bsync_blend_space_desc {
    bsync_blend_type type;
    uint32_t child_count;         /* 1..BSYNC_MAX_BLEND_CHILDREN */
    const fix16_t* thresholds;    /* Simple1D, any order */
    const bsync_vec2* positions;  /* 2D types */
    uint32_t power;               /* InverseDistance2D: 1..8, 0 = 2 */
    int normalize;                /* Direct */
} bsync_blend_space_desc;

/* The layout works, but a designer should look (docs/blend-spaces.md#rules-common-to-every-type). */
typedef enum bsync_blend_warning_code {
    BSYNC_BLEND_WARN_DUPLICATE_THRESHOLD = 1,
    BSYNC_BLEND_WARN_CLOSE_SAMPLES = 2,
    BSYNC_BLEND_WARN_DUPLICATE_POSITION = 3,
    BSYNC_BLEND_WARN_GAP_180 = 4,
    BSYNC_BLEND_WARN_SAME_DIRECTION = 5,
    BSYNC_BLEND_WARN_NO_CENTER = 6,
    BSYNC_BLEND_WARN_MULTIPLE_CENTERS = 7,
    BSYNC_BLEND_WARN_COLLINEAR = 8,
    BSYNC_BLEND_WARN_SMALL_GAP = 9
} bsync_blend_warning_code;

typedef struct bsync_blend_warning {
    bsync_blend_warning_code code;
    uint32_t child_a, child_b; /* child_b = child_a when only one */
} bsync_blend_warning;

#define BSYNC_BLEND_MAX_WARNINGS 16
typedef struct bsync_blend_diagnostics {
    uint32_t count;
    uint32_t dropped;   /* beyond BSYNC_BLEND_MAX_WARNINGS */
    bsync_blend_warning warnings[BSYNC_BLEND_MAX_WARNINGS];
} bsync_blend_diagnostics;

BSYNC_API const char* bsync_blend_warning_string(bsync_blend_warning_code code);

typedef struct bsync_blend_space bsync_blend_space;

/* BSYNC_INVALID_ARGUMENT, BSYNC_LIMIT_EXCEEDED, BSYNC_BAD_LAYOUT (docs/blend-spaces.md). */
BSYNC_API bsync_result bsync_blend_space_validate(const bsync_blend_space_desc* desc);
BSYNC_API size_t bsync_blend_space_memory_size(const bsync_blend_space_desc* desc); /* 0 if invalid */
/* 8-byte aligned `mem`; `diag` may be NULL. */
BSYNC_API bsync_result bsync_blend_space_init(void* mem, size_t size, const bsync_blend_space_desc* desc,
                                    bsync_blend_space** out, bsync_blend_diagnostics* diag);
BSYNC_API bsync_result bsync_blend_space_create(const bsync_blend_space_desc* desc, const bsync_allocator* allocator,
                                      bsync_blend_space** out, bsync_blend_diagnostics* diag);
BSYNC_API void bsync_blend_space_destroy(bsync_blend_space* space);

/* child_count weights in desc order; param_count != _param_count: BSYNC_MISMATCH. */
BSYNC_API bsync_result bsync_blend_space_eval(const bsync_blend_space* space, const fix16_t* params, uint32_t param_count,
                                    fix16_t* out_weights);

BSYNC_API bsync_blend_type bsync_blend_space_type(const bsync_blend_space* space);
BSYNC_API uint32_t bsync_blend_space_child_count(const bsync_blend_space* space);
BSYNC_API uint32_t bsync_blend_space_param_count(const bsync_blend_space* space);
BSYNC_API fix16_t bsync_blend_space_threshold(const bsync_blend_space* space, uint32_t child);
BSYNC_API bsync_vec2 bsync_blend_space_position(const bsync_blend_space* space, uint32_t child);
BSYNC_API void bsync_blend_space_bounds(const bsync_blend_space* space, bsync_vec2* out_min, bsync_vec2* out_max);
/* Delaunay2D, counter-clockwise; 0 / BSYNC_INVALID_ARGUMENT for other types or i out of range. */
BSYNC_API uint32_t bsync_blend_space_triangle_count(const bsync_blend_space* space);
BSYNC_API bsync_result bsync_blend_space_triangle(const bsync_blend_space* space, uint32_t i, uint32_t out_children[3]);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_BLEND_SPACE_H */
