/* blendsync/curve.h — response curves with Unity AnimationCurve semantics, in fixed point.
 *
 * Index
 *   bsync_curve_key, bsync_curve_desc      the editable form (keys in any order)
 *   bsync_curve_wrap                       what happens outside the keys (Clamp, Loop, PingPong)
 *   bsync_curve_validate / _memory_size / _init / _create / _destroy
 *   bsync_curve_evaluate                   value at a time (pure)
 *   bsync_curve_key_count, bsync_curve_key_at, bsync_curve_block_size
 *   bsync_curve_checksum_feed              canonical content, for graph hashes
 *
 * Evaluation (the reference text blend-spec.md §6; com.unity.animation AnimationCurveEvaluator):
 *   0 keys -> 0; 1 key -> its value, whatever the time.
 *   Inside [first, last] key time: the segment k0 = the last key with time <= t (the last segment at
 *   t == last time), k1 the next; dx = t1 - t0, s = (t - t0)/dx (Q32, rounded down).
 *     - stepped: k0 has BSYNC_CURVE_OUT_STEPPED or k1 has BSYNC_CURVE_IN_STEPPED (Unity: an infinite
 *       tangent) -> v0 (so at exactly t1 the next segment gives v1);
 *     - weighted: k0 has BSYNC_CURVE_OUT_WEIGHTED or k1 has BSYNC_CURVE_IN_WEIGHTED (Unity's
 *       weightedMode Out/Both and In/Both) -> cubic Bezier with time control points 0, w_out,
 *       1 - w_in, 1 (an unweighted side uses 1/3) and value control points v0, v0 + w_out·m0,
 *       v1 - w_in·m1, v1 (m0 = out_tangent0·dx, m1 = in_tangent1·dx). The parameter u with
 *       x(u) = s is found by bisection on u in Q32 (32 halvings; x is non-decreasing because the
 *       weights are in [0, 1]), then the value Bezier is evaluated at u (de Casteljau). Unity solves
 *       x(u) = s with Cardano's formula; the root is the same one, to 2^-32.
 *     - otherwise cubic Hermite, Horner form ((a·s + b)·s + m0)·s + v0 with a = 2v0 + m0 - 2v1 + m1,
 *       b = -3v0 - 2m0 + 3v1 - m1.
 *   Outside the keys: pre_wrap before the first key, post_wrap after the last, with len = last - first:
 *     CLAMP     the end key's value (Unity's Clamp, ClampForever, Once and Default);
 *     LOOP      t -> first + Repeat(t - first, len), Repeat(a, l) = a - floor(a/l)·l (exact integers);
 *     PINGPONG  t -> first + PingPong(t - first, len), PingPong(a, l) = l - |Repeat(a, 2l) - l|.
 *   Precision: all intermediates are Q32 value units (raw · 2^16) in int64 with exact 128-bit
 *   products, rounded once at the end to nearest; measured errors in docs/parameters.md.
 *   Overflow: intermediates saturate at 2^61 (Q32 units, i.e. 2^29 in value) and the result to the
 *   fix16 range: no key data and no time can cause undefined behaviour.
 *
 * Rules checked by validate (and so by init/create):
 *   desc != NULL, keys != NULL when key_count > 0, wraps and flags known   else BSYNC_INVALID_ARGUMENT
 *   key_count <= BSYNC_MAX_CURVE_KEYS                                      else BSYNC_LIMIT_EXCEEDED
 *   in_weight and out_weight in [0, 1] (only checked for a side that is weighted)
 *                                                                          else BSYNC_INVALID_ARGUMENT
 *   no two keys with the same time                                         else BSYNC_KEYS_UNSORTED
 * Keys may be given in any order: the builder sorts them by time (like Unity's AnimationCurve).
 * Weights of an unweighted side are stored as 1/3 (raw 21845) whatever the desc says, so two descs
 * that evaluate alike build alike.
 *
 * The built curve is one immutable, relocatable block (offsets only; memcpy gives a working copy),
 * 8-byte aligned, every byte written, same layout on 32- and 64-bit targets; blocks from init belong
 * to the caller, blocks from create are freed by destroy (internal/block.h's rule).
 *
 * Does not: allocate except in bsync_curve_create, keep globals, or use floating point.
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

/* Key flags. Unity's weightedMode: None = 0, In = IN_WEIGHTED, Out = OUT_WEIGHTED, Both = both. */
#define BSYNC_CURVE_IN_STEPPED 1u    /* in tangent is infinite (constant segment ending here) */
#define BSYNC_CURVE_OUT_STEPPED 2u   /* out tangent is infinite (constant segment starting here) */
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
    fix16_t in_tangent, out_tangent;  /* slopes, value per time unit (ignored on a stepped side) */
    fix16_t in_weight, out_weight;    /* [0, 1]; used only on a weighted side */
    uint32_t flags;                   /* BSYNC_CURVE_* bits */
} bsync_curve_key;

typedef struct bsync_curve_desc {
    const bsync_curve_key* keys;
    uint32_t key_count;
    bsync_curve_wrap pre_wrap, post_wrap;
} bsync_curve_desc;

typedef struct bsync_curve bsync_curve; /* opaque; lives in one block */

BSYNC_API bsync_result bsync_curve_validate(const bsync_curve_desc* desc);
/* Bytes of the built curve; 0 if the desc is invalid. */
BSYNC_API size_t bsync_curve_memory_size(const bsync_curve_desc* desc);
/* Build into mem (8-byte aligned, size >= memory_size). Writes nothing on failure.
 * BSYNC_INVALID_ARGUMENT for NULL mem/out or misaligned mem, validation codes, then
 * BSYNC_BUFFER_TOO_SMALL. */
BSYNC_API bsync_result bsync_curve_init(void* mem, size_t size, const bsync_curve_desc* desc, bsync_curve** out);
/* One allocation of memory_size bytes (allocator NULL: malloc); none if validation fails. */
BSYNC_API bsync_result bsync_curve_create(const bsync_curve_desc* desc, const bsync_allocator* allocator, bsync_curve** out);
/* Free a curve made by bsync_curve_create (NULL and init'ed curves are ignored). */
BSYNC_API void bsync_curve_destroy(bsync_curve* curve);

/* Value at time t (NULL curve: 0). Pure: same inputs, same bits. */
BSYNC_API fix16_t bsync_curve_evaluate(const bsync_curve* curve, fix16_t t);

BSYNC_API uint32_t bsync_curve_key_count(const bsync_curve* curve);
/* Key i of the sorted, normalised keys (a zero key for i out of range or a NULL curve). */
BSYNC_API bsync_curve_key bsync_curve_key_at(const bsync_curve* curve, uint32_t i);
BSYNC_API size_t bsync_curve_block_size(const bsync_curve* curve);
/* Feed the canonical content: u32 key_count, u32 pre_wrap, u32 post_wrap, then per sorted key:
 * fx time, value, in_tangent, out_tangent, in_weight, out_weight, u32 flags. (Seed of a standalone
 * curve checksum: BSYNC_CHECKSUM_SEED_CURVE.) NULL curve: feeds u32 0 (an empty curve). */
BSYNC_API void bsync_curve_checksum_feed(const bsync_curve* curve, bsync_checksum_state* state);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CURVE_H */
