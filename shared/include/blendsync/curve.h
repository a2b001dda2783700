/* blendsync/curve.h — response curves with Unity AnimationCurve semantics, in fixed point.
 *
 * Index
 *   bsync_curve_key, bsync_curve_desc      the editable form (keys in any order)
 *   bsync_curve_wrap                       outside the keys: Clamp, Loop, PingPong
 *   bsync_curve_validate / _memory_size / _init / _create / _destroy
 *   bsync_curve_evaluate                   value at a time (pure)
 *   bsync_curve_key_count, bsync_curve_key_at, bsync_curve_block_size
 *   bsync_curve_checksum_feed              canonical content, for graph hashes
 *
 * One relocatable block; no allocation except create, no floats.
 * design: docs/parameters.md#response-curve-animationcurve (evaluation, rules, bytes)
 */
#ifndef BLENDSYNC_CURVE_H
#define BLENDSYNC_CURVE_H

#include "blendsync/base.h"
#include "blendsync/fixed.h"
#include "blendsync/checksum.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_MAX_CURVE_KEYS 1024
#define BSYNC_CHECKSUM_SEED_CURVE ((uint64_t)0x626c656e64637276ull) /* "blendcrv" */

/* Key flags (STEPPED: an infinite tangent; WEIGHTED: Unity's weightedMode). */
#define BSYNC_CURVE_IN_STEPPED 1u
#define BSYNC_CURVE_OUT_STEPPED 2u
#define BSYNC_CURVE_IN_WEIGHTED 4u
#define BSYNC_CURVE_OUT_WEIGHTED 8u
#define BSYNC_CURVE_FLAGS_ALL 15u

typedef enum bsync_curve_wrap {
    BSYNC_CURVE_CLAMP = 0,
    BSYNC_CURVE_LOOP = 1,
    BSYNC_CURVE_PINGPONG = 2
} bsync_curve_wrap;

typedef struct bsync_curve_key {
    fix16_t time, value;
    fix16_t in_tangent, out_tangent;  /* slopes */
    fix16_t in_weight, out_weight;    /* [0, 1] on a weighted side */
    uint32_t flags;
} bsync_curve_key;

typedef struct bsync_curve_desc {
    const bsync_curve_key* keys;
    uint32_t key_count;
    bsync_curve_wrap pre_wrap, post_wrap;
} bsync_curve_desc;

typedef struct bsync_curve bsync_curve;

BSYNC_API bsync_result bsync_curve_validate(const bsync_curve_desc* desc);
/* 0 if the desc is invalid. */
BSYNC_API size_t bsync_curve_memory_size(const bsync_curve_desc* desc);
/* 8-byte aligned mem; writes nothing on failure. */
BSYNC_API bsync_result bsync_curve_init(void* mem, size_t size, const bsync_curve_desc* desc, bsync_curve** out);
/* One allocation (NULL allocator: malloc); destroy ignores NULL and init'ed curves. */
BSYNC_API bsync_result bsync_curve_create(const bsync_curve_desc* desc, const bsync_allocator* allocator, bsync_curve** out);
BSYNC_API void bsync_curve_destroy(bsync_curve* curve);

/* NULL curve: 0. */
BSYNC_API fix16_t bsync_curve_evaluate(const bsync_curve* curve, fix16_t t);

BSYNC_API uint32_t bsync_curve_key_count(const bsync_curve* curve);
/* Sorted, normalised keys; a zero key out of range. */
BSYNC_API bsync_curve_key bsync_curve_key_at(const bsync_curve* curve, uint32_t i);
BSYNC_API size_t bsync_curve_block_size(const bsync_curve* curve);
/* Feeds the canonical bytes (docs/parameters.md); NULL: an empty curve. */
BSYNC_API void bsync_curve_checksum_feed(const bsync_curve* curve, bsync_checksum_state* state);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CURVE_H */
