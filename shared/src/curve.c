/* curve.c — AnimationCurve-style response curves (contract: blendsync/curve.h).
 *
 * Block layout (offsets from the 8-byte aligned block start):
 *   [0, 64)        struct bsync_curve (block header, key count, wraps)
 *   [64, ...)      key_count stored keys (struct stored_key, 28 bytes each), sorted by time
 *   (then)         zero padding to a multiple of 8
 */
#include "blendsync/curve.h"
#include "internal/block.h"
#include "internal/wide_math.h"

#define CURVE_MAGIC 0x56524342u /* "BCRV" little-endian */
#define CURVE_VERSION 1u
#define Q32_ONE ((int64_t)1 << 32)
#define Q32_THIRD ((int64_t)1431655765) /* round(2^32 / 3) */
#define FX_THIRD ((fix16_t)21845)       /* stored weight of an unweighted side */

struct bsync_curve {
    bsync_block_header head;
    uint32_t key_count;
    uint32_t pre_wrap;
    uint32_t post_wrap;
    uint32_t pad_;
};
_Static_assert(sizeof(struct bsync_curve) == 64, "curve header must be 64 bytes on every target");

typedef struct stored_key {
    int32_t time, value, in_tangent, out_tangent, in_weight, out_weight;
    uint32_t flags;
} stored_key;
_Static_assert(sizeof(stored_key) == 28, "stored key is 7 words");


static const stored_key* keys_of(const bsync_curve* c) {
    return (const stored_key*)(const void*)((const unsigned char*)c + sizeof(struct bsync_curve));
}

static int weight_ok(fix16_t w) { return w >= 0 && w <= BSYNC_FX_ONE; }

static bsync_result validate_and_size(const bsync_curve_desc* desc, size_t* out_size) {
    if (!desc) return BSYNC_INVALID_ARGUMENT;
    if (desc->key_count > 0 && !desc->keys) return BSYNC_INVALID_ARGUMENT;
    if ((unsigned)desc->pre_wrap > BSYNC_CURVE_PINGPONG || (unsigned)desc->post_wrap > BSYNC_CURVE_PINGPONG)
        return BSYNC_INVALID_ARGUMENT;
    if (desc->key_count > BSYNC_MAX_CURVE_KEYS) return BSYNC_LIMIT_EXCEEDED;
    const uint32_t n = desc->key_count;
    for (uint32_t i = 0; i < n; i++) {
        const bsync_curve_key* k = &desc->keys[i];
        if (k->flags & ~BSYNC_CURVE_FLAGS_ALL) return BSYNC_INVALID_ARGUMENT;
        if ((k->flags & BSYNC_CURVE_IN_WEIGHTED) && !weight_ok(k->in_weight)) return BSYNC_INVALID_ARGUMENT;
        if ((k->flags & BSYNC_CURVE_OUT_WEIGHTED) && !weight_ok(k->out_weight)) return BSYNC_INVALID_ARGUMENT;
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++)
            if (desc->keys[i].time == desc->keys[j].time) return BSYNC_KEYS_UNSORTED;
    if (out_size) *out_size = bsync_align_up(sizeof(struct bsync_curve) + (size_t)n * sizeof(stored_key), 8);
    return BSYNC_OK;
}

bsync_result bsync_curve_validate(const bsync_curve_desc* desc) { return validate_and_size(desc, NULL); }

size_t bsync_curve_memory_size(const bsync_curve_desc* desc) {
    size_t need = 0;
    return validate_and_size(desc, &need) == BSYNC_OK ? need : 0;
}

bsync_result bsync_curve_init(void* mem, size_t size, const bsync_curve_desc* desc, bsync_curve** out) {
    if (!mem || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    size_t need;
    bsync_result r = validate_and_size(desc, &need);
    if (r != BSYNC_OK) return r;
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;
    unsigned char* base = bsync_block_start(mem, need, CURVE_MAGIC, CURVE_VERSION);
    struct bsync_curve* c = (struct bsync_curve*)mem;
    c->key_count = desc->key_count;
    c->pre_wrap = (uint32_t)desc->pre_wrap;
    c->post_wrap = (uint32_t)desc->post_wrap;
    stored_key* keys = (stored_key*)(void*)(base + sizeof(struct bsync_curve));
    for (uint32_t i = 0; i < desc->key_count; i++) {
        const bsync_curve_key* k = &desc->keys[i];
        stored_key s;
        s.time = k->time;
        s.value = k->value;
        s.flags = k->flags;
        s.in_tangent = (k->flags & BSYNC_CURVE_IN_STEPPED) ? 0 : k->in_tangent;
        s.out_tangent = (k->flags & BSYNC_CURVE_OUT_STEPPED) ? 0 : k->out_tangent;
        s.in_weight = (k->flags & BSYNC_CURVE_IN_WEIGHTED) ? k->in_weight : FX_THIRD;
        s.out_weight = (k->flags & BSYNC_CURVE_OUT_WEIGHTED) ? k->out_weight : FX_THIRD;
        /* insertion sort by time (times are distinct) */
        uint32_t j = i;
        while (j > 0 && keys[j - 1].time > s.time) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = s;
    }
    *out = c;
    return BSYNC_OK;
}

bsync_result bsync_curve_create(const bsync_curve_desc* desc, const bsync_allocator* allocator, bsync_curve** out) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    size_t need;
    bsync_result r = validate_and_size(desc, &need);
    if (r != BSYNC_OK) return r;
    bsync_allocator a;
    void* mem = bsync_block_alloc(allocator, need, &a);
    if (!mem) return BSYNC_OUT_OF_MEMORY;
    bsync_curve* c = NULL;
    r = bsync_block_adopt(bsync_curve_init(mem, need, desc, &c), mem, need, &a);
    if (r == BSYNC_OK) *out = c;
    return r;
}

void bsync_curve_destroy(bsync_curve* curve) { bsync_block_destroy(curve ? &curve->head : NULL); }

uint32_t bsync_curve_key_count(const bsync_curve* curve) { return curve ? curve->key_count : 0; }
size_t bsync_curve_block_size(const bsync_curve* curve) { return curve ? (size_t)curve->head.block_size : 0; }

bsync_curve_key bsync_curve_key_at(const bsync_curve* curve, uint32_t i) {
    bsync_curve_key k = {0, 0, 0, 0, 0, 0, 0};
    if (!curve || i >= curve->key_count) return k;
    const stored_key* s = &keys_of(curve)[i];
    k.time = s->time;
    k.value = s->value;
    k.in_tangent = s->in_tangent;
    k.out_tangent = s->out_tangent;
    k.in_weight = s->in_weight;
    k.out_weight = s->out_weight;
    k.flags = s->flags;
    return k;
}

void bsync_curve_checksum_feed(const bsync_curve* curve, bsync_checksum_state* state) {
    if (!curve) {
        bsync_checksum_u32(state, 0);
        bsync_checksum_u32(state, 0);
        bsync_checksum_u32(state, 0);
        return;
    }
    bsync_checksum_u32(state, curve->key_count);
    bsync_checksum_u32(state, curve->pre_wrap);
    bsync_checksum_u32(state, curve->post_wrap);
    const stored_key* k = keys_of(curve);
    for (uint32_t i = 0; i < curve->key_count; i++) {
        bsync_checksum_fx(state, k[i].time);
        bsync_checksum_fx(state, k[i].value);
        bsync_checksum_fx(state, k[i].in_tangent);
        bsync_checksum_fx(state, k[i].out_tangent);
        bsync_checksum_fx(state, k[i].in_weight);
        bsync_checksum_fx(state, k[i].out_weight);
        bsync_checksum_u32(state, k[i].flags);
    }
}

/* ---------------------------------------------------------------- evaluation
 * W units: value * 2^32 (raw * 2^16), int64, saturated to +-2^61. */

static int64_t wadd(int64_t a, int64_t b) { return bsync_w_sat(bsync_w_sat(a) + bsync_w_sat(b)); }
static int64_t wsub(int64_t a, int64_t b) { return bsync_w_sat(bsync_w_sat(a) - bsync_w_sat(b)); }
static int64_t wlerp(int64_t a, int64_t b, int64_t u) { return wadd(a, bsync_w_mul_shr(wsub(b, a), u, 32)); }

static fix16_t round_w(int64_t w) { return bsync_fx_sat64(bsync_i64_asr(bsync_w_sat(w) + 0x8000, 16)); }

/* a mod m in [0, m), m > 0 */
static int64_t repeat(int64_t a, int64_t m) {
    int64_t r = a % m;
    return r < 0 ? r + m : r;
}

/* cubic Bezier 0, p1, p2, 1 at u (all Q32), de Casteljau */
static int64_t bezier(int64_t p0, int64_t p1, int64_t p2, int64_t p3, int64_t u) {
    int64_t a = wlerp(p0, p1, u), b = wlerp(p1, p2, u), c = wlerp(p2, p3, u);
    int64_t d = wlerp(a, b, u), e = wlerp(b, c, u);
    return wlerp(d, e, u);
}

static fix16_t eval_segment(const stored_key* k0, const stored_key* k1, int64_t t) {
    const int64_t dx = (int64_t)k1->time - k0->time; /* > 0 */
    if ((k0->flags & BSYNC_CURVE_OUT_STEPPED) || (k1->flags & BSYNC_CURVE_IN_STEPPED)) return k0->value;
    const int64_t d = t - k0->time; /* in [0, dx] */
    const int64_t s = (int64_t)bsync_u128_divmod_u64(bsync_u128_mul_u64((uint64_t)d, (uint64_t)Q32_ONE), (uint64_t)dx, NULL);
    const int64_t v0 = (int64_t)k0->value * 65536, v1 = (int64_t)k1->value * 65536;
    const int64_t m0 = bsync_w_sat((int64_t)k0->out_tangent * dx); /* raw * raw = W units */
    const int64_t m1 = bsync_w_sat((int64_t)k1->in_tangent * dx);
    const int weighted = (k0->flags & BSYNC_CURVE_OUT_WEIGHTED) || (k1->flags & BSYNC_CURVE_IN_WEIGHTED);
    if (!weighted) {
        int64_t a = wadd(wadd(wadd(v0, v0), m0), wsub(m1, wadd(v1, v1)));
        int64_t b = wsub(wsub(wadd(v1, wadd(v1, v1)), wadd(v0, wadd(v0, v0))), wadd(wadd(m0, m0), m1));
        int64_t r = wadd(bsync_w_mul_shr(a, s, 32), b);
        r = wadd(bsync_w_mul_shr(r, s, 32), m0);
        r = wadd(bsync_w_mul_shr(r, s, 32), v0);
        return round_w(r);
    }
    const int64_t wo = (k0->flags & BSYNC_CURVE_OUT_WEIGHTED) ? (int64_t)k0->out_weight * 65536 : Q32_THIRD;
    const int64_t wi = (k1->flags & BSYNC_CURVE_IN_WEIGHTED) ? (int64_t)k1->in_weight * 65536 : Q32_THIRD;
    const int64_t x1 = wo, x2 = Q32_ONE - wi;
    /* bisection for x(u) = s; x(0) = 0 <= s <= 2^32 = x(1) */
    int64_t lo = 0, hi = Q32_ONE;
    int64_t xlo = 0, xhi = Q32_ONE;
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        int64_t xm = bezier(0, x1, x2, Q32_ONE, mid);
        if (xm < s) {
            lo = mid;
            xlo = xm;
        } else {
            hi = mid;
            xhi = xm;
        }
    }
    const int64_t u = (s - xlo <= xhi - s) ? lo : hi;
    const int64_t p1 = wadd(v0, bsync_w_mul_shr(wo, m0, 32));
    const int64_t p2 = wsub(v1, bsync_w_mul_shr(wi, m1, 32));
    return round_w(bezier(v0, p1, p2, v1, u));
}

fix16_t bsync_curve_evaluate(const bsync_curve* curve, fix16_t t) {
    if (!curve || curve->key_count == 0) return 0;
    const stored_key* k = keys_of(curve);
    const uint32_t n = curve->key_count;
    if (n == 1) return k[0].value;
    const int64_t first = k[0].time, last = k[n - 1].time, len = last - first; /* len > 0 */
    int64_t tt = t;
    if (tt < first || tt > last) {
        const uint32_t wrap = tt < first ? curve->pre_wrap : curve->post_wrap;
        if (wrap == BSYNC_CURVE_LOOP) {
            tt = first + repeat(tt - first, len);
        } else if (wrap == BSYNC_CURVE_PINGPONG) {
            int64_t r = repeat(tt - first, 2 * len);
            tt = first + len - (r > len ? r - len : len - r);
        } else {
            return tt < first ? k[0].value : k[n - 1].value;
        }
    }
    if (tt >= last) return k[n - 1].value;
    /* last key with time <= tt, among 0..n-2 */
    uint32_t lo = 0, hi = n - 1; /* k[lo].time <= tt < k[hi].time */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k[mid].time <= tt)
            lo = mid;
        else
            hi = mid;
    }
    return eval_segment(&k[lo], &k[lo + 1], tt);
}
