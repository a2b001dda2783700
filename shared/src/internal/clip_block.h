/* internal/clip_block.h — layout of the built clip block, shared by clip.c and sample.c
 * (not a public header: the layout may change with CLIP_VERSION).
 *
 * Block layout (all offsets from the block start, which is 8-byte aligned):
 *   [0, 152)          header (struct bsync_clip; identical on 32- and 64-bit targets)
 *   tracks_offset     bsync_clip_track_[track_count], sorted by (joint, kind)
 *   lookup_offset     int16_t[joint_count * 3]: track index of (joint, kind), or -1
 *   (then, per track) fix16_t times[key_count], then the values (bsync_vec3 or bsync_quat)
 *   (then)            zero padding up to a multiple of 8 (block_size)
 * Every byte of the block is written; `fingerprint` is FNV-1a 64 of the block with the allocator
 * slot and the fingerprint itself zero (it identifies the content, e.g. for sample cursors).
 */
#ifndef BLENDSYNC_INTERNAL_CLIP_BLOCK_H
#define BLENDSYNC_INTERNAL_CLIP_BLOCK_H

#include "blendsync/clip.h"
#include "block.h"
#include "force_inline.h"

#define BSYNC_CLIP_MAGIC 0x504C4342u /* "BCLP" in little-endian byte order */
#define BSYNC_CLIP_VERSION 1u         /* the default encoding: fix16 times and values */
#define BSYNC_CLIP_VERSION_COMPACT 2u /* the compact key encoding (docs/clip-format.md) */

typedef struct bsync_clip_track_ {
    uint32_t joint;
    uint32_t kind;
    uint32_t key_count;
    uint32_t times_offset;  /* fix16_t[key_count] */
    uint32_t values_offset; /* bsync_vec3[key_count] or bsync_quat[key_count] */
    uint32_t reserved;      /* 0 */
} bsync_clip_track_;

struct bsync_clip {
    bsync_block_header head; /* magic, version, block size, allocator */
    uint64_t fingerprint;
    fix16_t duration;
    uint32_t loop;
    uint32_t joint_count;
    uint32_t track_count;
    uint32_t total_keys;
    uint32_t tracks_offset;
    uint32_t lookup_offset;
    uint32_t reserved;
    char name[BSYNC_MAX_NAME];
};

_Static_assert(sizeof(struct bsync_clip) == 152, "clip header must be 152 bytes on every target");
_Static_assert(sizeof(bsync_clip_track_) == 24, "clip track record must be 24 bytes");

static inline const bsync_clip_track_* bsync_clip_tracks_(const bsync_clip* c) {
    return (const bsync_clip_track_*)((const unsigned char*)c + c->tracks_offset);
}
static inline const int16_t* bsync_clip_lookup_(const bsync_clip* c) {
    return (const int16_t*)((const unsigned char*)c + c->lookup_offset);
}
static inline const fix16_t* bsync_clip_times_(const bsync_clip* c, const bsync_clip_track_* t) {
    return (const fix16_t*)((const unsigned char*)c + t->times_offset);
}
static inline const bsync_vec3* bsync_clip_vec3s_(const bsync_clip* c, const bsync_clip_track_* t) {
    return (const bsync_vec3*)((const unsigned char*)c + t->values_offset);
}
static inline const bsync_quat* bsync_clip_quats_(const bsync_clip* c, const bsync_clip_track_* t) {
    return (const bsync_quat*)((const unsigned char*)c + t->values_offset);
}

/* ------------------------------------------------------------------ the compact encoding (version 2)
 *
 * Block layout (docs/clip-format.md "Compact keys"):
 *   [0, 152)      header (struct bsync_clip, head.version = 2, lookup_offset = 0: no lookup table)
 *   [152, 168)    bsync_clip_compact_ (four u32)
 *   [168, ...)    bsync_clip_ctrack_[track_count] (seven u16 each), sorted by (joint, kind)
 *   time_table    time_count key times as u32 (two u16: low, high), strictly ascending
 *   (then)        the tracks' time-index arrays (u16 per key, into the time table) and value blobs,
 *                 each written once and shared by every track with the same bytes
 *   (then)        zero padding up to a multiple of 8
 * Everything after the 168-byte headers is 16-bit words (what the .bsclip byte swap relies on).
 * Value blobs: rotation: 3 u16 per key (smallest three, see bsync_clip_cquat_decode_); translation
 * or scale RAW: 6 u16 per key (x, y, z as low/high halves); QUANT: base x/y/z (low/high halves), one
 * u16 of shifts (x | y << 5 | z << 10), then 3 u16 per key: value = base + (u << shift). CONST: the
 * blob holds one key's value, shared by every key of the track. */
#define BSYNC_CLIP_ENCODING_COMPACT 1u
#define BSYNC_CTRACK_KIND_MASK 3u
#define BSYNC_CTRACK_CONST 4u /* all keys have the same stored value: the blob holds one */
#define BSYNC_CTRACK_QUANT 8u /* translation or scale: base + (u << shift) (else RAW fix16) */
#define BSYNC_CLIP_COMPACT_HEADER 168u
#define BSYNC_CQ_STEP 185364u /* a rotation component u in [0, 32767] is ((u * STEP + 2^15) >> 16) - 46341 */
#define BSYNC_CQ_OFFSET 46341

typedef struct bsync_clip_compact_ {
    uint32_t encoding;   /* BSYNC_CLIP_ENCODING_COMPACT */
    uint32_t time_count; /* entries of the time table, 1..65536 */
    uint32_t time_table_offset;
    uint32_t reserved; /* 0 */
} bsync_clip_compact_;

typedef struct bsync_clip_ctrack_ {
    uint16_t joint;
    uint16_t flags; /* kind | BSYNC_CTRACK_CONST | BSYNC_CTRACK_QUANT */
    uint16_t key_count;
    uint16_t times_lo, times_hi;   /* byte offset of u16 time indices [key_count] */
    uint16_t values_lo, values_hi; /* byte offset of the value blob */
} bsync_clip_ctrack_;

_Static_assert(sizeof(bsync_clip_compact_) == 16, "compact header must be 16 bytes");
_Static_assert(sizeof(bsync_clip_ctrack_) == 14, "compact track record must be 14 bytes");

static inline int bsync_clip_is_compact_(const bsync_clip* c) { return c->head.version == BSYNC_CLIP_VERSION_COMPACT; }
static inline const bsync_clip_compact_* bsync_clip_compact_header_(const bsync_clip* c) {
    return (const bsync_clip_compact_*)((const unsigned char*)c + sizeof(struct bsync_clip));
}
static inline const bsync_clip_ctrack_* bsync_clip_ctracks_(const bsync_clip* c) {
    return (const bsync_clip_ctrack_*)((const unsigned char*)c + c->tracks_offset);
}
static inline uint32_t bsync_u32_of16_(const uint16_t* w) { return (uint32_t)w[0] | ((uint32_t)w[1] << 16); }
static inline const uint16_t* bsync_clip_words_(const bsync_clip* c, uint32_t offset) {
    return (const uint16_t*)((const unsigned char*)c + offset);
}
static inline const uint16_t* bsync_ctrack_times_(const bsync_clip* c, const bsync_clip_ctrack_* t) {
    return bsync_clip_words_(c, (uint32_t)t->times_lo | ((uint32_t)t->times_hi << 16));
}
static inline const uint16_t* bsync_ctrack_values_(const bsync_clip* c, const bsync_clip_ctrack_* t) {
    return bsync_clip_words_(c, (uint32_t)t->values_lo | ((uint32_t)t->values_hi << 16));
}
/* Entry i of the time table. */
static inline fix16_t bsync_clip_ctime_(const uint16_t* table, uint32_t i) {
    return (fix16_t)bsync_u32_of16_(&table[2u * i]);
}

/* floor(sqrt(x)) for x <= 2^32, bit by bit (exact, integer only; branch-free: the mask is all ones
 * when the digit is 1). */
static inline uint32_t bsync_isqrt33_(uint64_t x) {
    uint64_t r = 0, bit = (uint64_t)1 << 32;
    for (int i = 0; i < 17; i++) {
        const uint64_t t = r + bit;
        const uint64_t take = (uint64_t)0 - (uint64_t)(x >= t);
        x -= t & take;
        r = (r >> 1) + (bit & take);
        bit >>= 2;
    }
    return (uint32_t)r;
}

/* The same floor(sqrt(x)) for x <= 2^32, faster: a seed from a table by x >> 24 (any seed works: the
 * last two loops make the result exact), one or two Newton steps, then the exact correction. Every
 * value is bsync_isqrt33_'s (tests/unit/test_clip_compact.c checks every square and its neighbours). */
static const uint32_t bsync_cq_sqrt_seed_[257] = {
    0, 5017, 6476, 7663, 8689, 9606, 10443, 11217, 11942, 12625, 13273, 13890,
    14482, 15050, 15597, 16126, 16638, 17135, 17618, 18087, 18545, 18992, 19429, 19856,
    20274, 20684, 21085, 21480, 21867, 22247, 22621, 22989, 23351, 23707, 24059, 24405,
    24746, 25083, 25415, 25743, 26067, 26387, 26703, 27015, 27324, 27629, 27931, 28230,
    28525, 28818, 29108, 29394, 29678, 29960, 30238, 30515, 30788, 31059, 31328, 31595,
    31859, 32122, 32382, 32640, 32896, 33150, 33402, 33652, 33900, 34147, 34392, 34635,
    34876, 35116, 35354, 35590, 35825, 36059, 36291, 36521, 36750, 36978, 37204, 37429,
    37652, 37874, 38095, 38315, 38533, 38750, 38966, 39181, 39394, 39606, 39818, 40028,
    40237, 40445, 40652, 40857, 41062, 41266, 41469, 41671, 41871, 42071, 42270, 42468,
    42665, 42861, 43057, 43251, 43445, 43637, 43829, 44020, 44210, 44400, 44588, 44776,
    44963, 45149, 45334, 45519, 45703, 45886, 46069, 46250, 46431, 46612, 46791, 46970,
    47149, 47326, 47503, 47679, 47855, 48030, 48204, 48378, 48551, 48723, 48895, 49067,
    49237, 49407, 49577, 49746, 49914, 50082, 50249, 50416, 50582, 50747, 50912, 51077,
    51241, 51404, 51567, 51730, 51892, 52053, 52214, 52374, 52534, 52694, 52853, 53011,
    53169, 53327, 53484, 53640, 53797, 53952, 54108, 54262, 54417, 54571, 54724, 54877,
    55030, 55182, 55334, 55485, 55636, 55787, 55937, 56087, 56236, 56385, 56534, 56682,
    56830, 56977, 57124, 57271, 57417, 57563, 57709, 57854, 57999, 58143, 58287, 58431,
    58574, 58717, 58860, 59002, 59144, 59286, 59427, 59568, 59709, 59849, 59989, 60129,
    60268, 60407, 60546, 60684, 60822, 60960, 61098, 61235, 61372, 61508, 61644, 61780,
    61916, 62051, 62186, 62321, 62456, 62590, 62724, 62857, 62991, 63124, 63256, 63389,
    63521, 63653, 63785, 63916, 64047, 64178, 64309, 64439, 64569, 64699, 64828, 64957,
    65086, 65215, 65344, 65472, 65600,
};
static inline uint32_t bsync_isqrt33_fast_(uint64_t x) {
    if (x >= ((uint64_t)1 << 32)) return x == ((uint64_t)1 << 32) ? 65536u : bsync_isqrt33_(x);
    const uint32_t i = (uint32_t)(x >> 24), x32 = (uint32_t)x;
    if (i == 0) return bsync_isqrt33_(x); /* below 2^24: a largest component under 1/16 (not a unit key) */
    uint32_t r = bsync_cq_sqrt_seed_[i];
    r = (r + x32 / r) >> 1;
    if (i < 64) r = (r + x32 / r) >> 1;
    while ((uint64_t)r * r > x) r--;
    while ((uint64_t)(r + 1) * (r + 1) <= x) r++;
    return r;
}

/* One smallest-three component: u (15 bits) to fix16 in [-46341, 46339]. */
static inline fix16_t bsync_cq_component_(uint32_t u) {
    return (fix16_t)((int32_t)(((uint64_t)u * BSYNC_CQ_STEP + 32768u) >> 16) - BSYNC_CQ_OFFSET);
}

/* A rotation key from its three u16 words w0, w1, w2: the low 15 bits of each are the three smaller
 * components a, b, c in index order (bsync_cq_component_); the largest component's index is
 * (w0 >> 15) | (w1 >> 15) << 1 and it is rebuilt as floor(sqrt(2^32 - a^2 - b^2 - c^2)) (0 when the
 * sum reaches 2^32); w2 >> 15 set: all four components negated. Integer arithmetic only. */
static BSYNC_FORCE_INLINE bsync_quat bsync_clip_cquat_decode_(const uint16_t* w) {
    const fix16_t a = bsync_cq_component_(w[0] & 0x7FFFu), b = bsync_cq_component_(w[1] & 0x7FFFu),
                  c = bsync_cq_component_(w[2] & 0x7FFFu);
    const uint32_t largest = (uint32_t)(w[0] >> 15) | ((uint32_t)(w[1] >> 15) << 1);
    const uint64_t sum = (uint64_t)((int64_t)a * a) + (uint64_t)((int64_t)b * b) + (uint64_t)((int64_t)c * c);
    const fix16_t big = sum >= ((uint64_t)1 << 32) ? 0 : (fix16_t)bsync_isqrt33_fast_(((uint64_t)1 << 32) - sum);
    /* the three smalls in index order around the largest (branch-free): where a, b, c go for each L */
    static const uint8_t place[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
    fix16_t v[4];
    v[largest] = big;
    v[place[largest][0]] = a;
    v[place[largest][1]] = b;
    v[place[largest][2]] = c;
    const int32_t neg = -(int32_t)(w[2] >> 15); /* 0 or -1: (v ^ neg) - neg is v or -v (|v| <= 65536) */
    return bsync_quat_make((v[0] ^ neg) - neg, (v[1] ^ neg) - neg, (v[2] ^ neg) - neg, (v[3] ^ neg) - neg);
}

/* Key k of a translation or scale track's value blob. */
static inline bsync_vec3 bsync_clip_cvec3_decode_(const uint16_t* blob, uint32_t flags, uint32_t k) {
    if (flags & BSYNC_CTRACK_CONST) k = 0;
    if (flags & BSYNC_CTRACK_QUANT) {
        const uint16_t* u = &blob[7u + 3u * k];
        const uint32_t sh = blob[6];
        fix16_t v[3];
        for (uint32_t i = 0; i < 3; i++)
            v[i] = (fix16_t)((int64_t)(int32_t)bsync_u32_of16_(&blob[2u * i]) +
                             (int64_t)((uint64_t)u[i] << ((sh >> (5u * i)) & 31u)));
        return bsync_vec3_make(v[0], v[1], v[2]);
    }
    const uint16_t* r = &blob[6u * k];
    return bsync_vec3_make((fix16_t)bsync_u32_of16_(&r[0]), (fix16_t)bsync_u32_of16_(&r[2]), (fix16_t)bsync_u32_of16_(&r[4]));
}
static inline bsync_quat bsync_clip_cquat_at_(const uint16_t* blob, uint32_t flags, uint32_t k) {
    return bsync_clip_cquat_decode_(&blob[(flags & BSYNC_CTRACK_CONST) ? 0u : 3u * k]);
}

#endif
