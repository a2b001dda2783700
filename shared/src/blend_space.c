/* blend_space.c — the blend space dispatcher: validation, the one-block layout, init/create/destroy,
 * type names, warnings, the 2D far-point pull-back, the exact-sum fix-up, accessors and Direct.
 * The per-type weights live in blend_1d.c, blend_directional.c, blend_gradient.c, blend_idw.c
 * (internal/blend_types.h) and blend_delaunay.c (internal/blend_space_impl.h).
 *
 * Block layout (offsets from the 8-aligned block start):
 *   struct bsync_blend_space      128 bytes (header below)
 *   values_offset                 fix16_t[n] thresholds (Simple1D) or bsync_vec2[n] positions (2D
 *                                 types), desc order; nothing for Direct; padded to 8
 *   impl_offset                   the type's precomputed data (impl_size bytes, a multiple of 8)
 * Every byte is written (zero fill first), so two builds of one desc are identical except for the
 * allocator slot. */
#include "blendsync/blend_space.h"
#include "internal/block.h"
#include "internal/blend_space_impl.h"
#include "internal/blend_types.h"

#define BLEND_MAGIC 0x53425342u /* "BSBS" in little-endian byte order */
#define BLEND_VERSION 1u

struct bsync_blend_space {
    bsync_block_header head; /* magic, version, block size, allocator */
    uint32_t type;
    uint32_t child_count;
    uint32_t param_count;
    uint32_t power; /* InverseDistance2D: resolved power 1..8 */
    int32_t normalize;
    uint32_t values_offset;
    uint32_t impl_offset;
    uint32_t impl_size;
    int64_t centre_x, centre_y; /* raw; 2D types: floor of the bounding box's centre */
    uint64_t size;              /* raw; 2D types: max(width, height) of the bounding box */
    uint64_t far;               /* raw; BSYNC_BLEND_FAR_FACTOR * size */
    bsync_vec2 bmin, bmax;
};

_Static_assert(sizeof(struct bsync_blend_space) == 128, "blend space header must be 128 bytes on every target");
_Static_assert(offsetof(struct bsync_blend_space, centre_x) == 80 && offsetof(struct bsync_blend_space, bmin) == 112,
               "bsync_blend_space_canonical_ writes the header's fields in this order, without gaps");

static size_t align8(size_t v) { return (v + 7u) & ~(size_t)7u; }

static int is_2d(uint32_t type) {
    return type == BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D || type == BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D ||
           type == BSYNC_BLEND_FREEFORM_CARTESIAN_2D || type == BSYNC_BLEND_DELAUNAY_2D ||
           type == BSYNC_BLEND_INVERSE_DISTANCE_2D;
}

/* ------------------------------------------------------------------ names and warnings */

static const char* const TYPE_NAMES[BSYNC_BLEND_TYPE_COUNT] = {
    "Simple1D", "SimpleDirectional2D", "FreeformDirectional2D", "FreeformCartesian2D",
    "Direct",   "Delaunay2D",          "InverseDistance2D"};

const char* bsync_blend_type_name(bsync_blend_type type) {
    if ((unsigned)type >= BSYNC_BLEND_TYPE_COUNT) return "unknown";
    return TYPE_NAMES[type];
}

static int str_eq(const char* a, const char* b) {
    size_t i = 0;
    while (a[i] != '\0' && a[i] == b[i]) i++;
    return a[i] == b[i];
}

bsync_result bsync_blend_type_from_name(const char* name, bsync_blend_type* out) {
    if (!name || !out) return BSYNC_INVALID_ARGUMENT;
    for (unsigned t = 0; t < BSYNC_BLEND_TYPE_COUNT; t++) {
        if (str_eq(name, TYPE_NAMES[t])) {
            *out = (bsync_blend_type)t;
            return BSYNC_OK;
        }
    }
    return BSYNC_NOT_FOUND;
}

const char* bsync_blend_warning_string(bsync_blend_warning_code code) {
    switch (code) {
    case BSYNC_BLEND_WARN_DUPLICATE_THRESHOLD: return "equal thresholds: a hard switch with no blend zone";
    case BSYNC_BLEND_WARN_CLOSE_SAMPLES: return "samples closer than 1% of the layout's size";
    case BSYNC_BLEND_WARN_DUPLICATE_POSITION: return "samples at the same position share their weight";
    case BSYNC_BLEND_WARN_GAP_180: return "angular gap of 180 degrees or more between neighbouring directions";
    case BSYNC_BLEND_WARN_SAME_DIRECTION: return "two samples in the same direction: the second is never chosen";
    case BSYNC_BLEND_WARN_NO_CENTER: return "no sample at (0, 0): weights near the centre are discontinuous";
    case BSYNC_BLEND_WARN_MULTIPLE_CENTERS: return "several samples at (0, 0) share the centre weight";
    case BSYNC_BLEND_WARN_COLLINEAR: return "all samples on one line: 1D tents along the line";
    case BSYNC_BLEND_WARN_SMALL_GAP: return "directions less than 2 degrees apart";
    }
    return "unknown warning";
}

void bsync_blend_diag_add_(bsync_blend_diagnostics* diag, bsync_blend_warning_code code, uint32_t a, uint32_t b) {
    if (!diag) return;
    if (diag->count >= BSYNC_BLEND_MAX_WARNINGS) {
        diag->dropped++;
        return;
    }
    diag->warnings[diag->count].code = code;
    diag->warnings[diag->count].child_a = a;
    diag->warnings[diag->count].child_b = b;
    diag->count++;
}

/* ------------------------------------------------------------------ shared numeric helpers */

unsigned bsync_blend_bitlen_(uint64_t v) { /* branch-light binary search, no builtins */
    unsigned n = 0;
    if (v >> 32) { v >>= 32; n += 32; }
    if (v >> 16) { v >>= 16; n += 16; }
    if (v >> 8) { v >>= 8; n += 8; }
    if (v >> 4) { v >>= 4; n += 4; }
    if (v >> 2) { v >>= 2; n += 2; }
    if (v >> 1) { v >>= 1; n += 1; }
    return n + (unsigned)v;
}

uint32_t bsync_blend_frac_q16_(uint64_t num, uint64_t den) {
    if (den == 0) return 0;
    if (num >= den) return (uint32_t)BSYNC_FX_ONE;
    unsigned b = bsync_blend_bitlen_(den);
    if (b > 46) { /* keep num << 16 below 2^63 */
        num >>= (b - 46);
        den >>= (b - 46);
    }
    return (uint32_t)(((num << 16) + (den >> 1)) / den);
}

uint64_t bsync_blend_frac_q30_(uint64_t num, uint64_t den) {
    if (den == 0) return 0;
    if (num >= den) return (uint64_t)1 << 30;
    unsigned b = bsync_blend_bitlen_(den);
    if (b > 32) { /* keep num << 30 below 2^62; den keeps 32 significant bits */
        num >>= (b - 32);
        den >>= (b - 32);
    }
    return ((num << 30) + (den >> 1)) / den;
}

uint32_t bsync_blend_groups_(const bsync_vec2* pos, uint32_t n, uint8_t* rep) {
    uint32_t groups = 0;
    for (uint32_t i = 0; i < n; i++) {
        rep[i] = (uint8_t)i;
        for (uint32_t j = 0; j < i; j++) {
            if (pos[j].x == pos[i].x && pos[j].y == pos[i].y) {
                rep[i] = rep[j];
                break;
            }
        }
        if (rep[i] == i) groups++;
    }
    return groups;
}

void bsync_blend_nearest_(const bsync_vec2* pos, uint32_t n, bsync_vec2 q, fix16_t* w) {
    uint64_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ax = bsync_u64_abs((int64_t)q.x - pos[i].x), ay = bsync_u64_abs((int64_t)q.y - pos[i].y);
        if (ax > m) m = ax;
        if (ay > m) m = ay;
    }
    unsigned sh = 0;
    while ((m >> sh) >= ((uint64_t)1 << 31)) sh++;
    uint64_t best = UINT64_MAX;
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ax = bsync_u64_abs((int64_t)q.x - pos[i].x) >> sh, ay = bsync_u64_abs((int64_t)q.y - pos[i].y) >> sh;
        uint64_t d = ax * ax + ay * ay; /* < 2^63 */
        if (d < best) {
            best = d;
            count = 1;
        } else if (d == best) {
            count++;
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t ax = bsync_u64_abs((int64_t)q.x - pos[i].x) >> sh, ay = bsync_u64_abs((int64_t)q.y - pos[i].y) >> sh;
        w[i] = (ax * ax + ay * ay == best) ? (fix16_t)(BSYNC_FX_ONE / (int32_t)count) : 0;
    }
}

int bsync_blend_normalise_groups_(const uint64_t* h, uint32_t n_groups, const uint8_t* group_of,
                                  const uint8_t* group_size, uint32_t n, fix16_t* w) {
    uint64_t sum = 0;
    for (uint32_t k = 0; k < n_groups; k++) sum += h[k];
    if (sum == 0) return 0;
    uint8_t seen[BSYNC_MAX_BLEND_CHILDREN] = {0};
    for (uint32_t i = 0; i < n; i++) { /* floor(v / m) each, the lowest (v mod m) children one step more */
        uint32_t g = group_of[i];
        uint32_t v = bsync_blend_frac_q16_(h[g], sum);
        w[i] = (fix16_t)(v / group_size[g] + (seen[g] < v % group_size[g] ? 1u : 0u));
        seen[g]++;
    }
    return 1;
}

/* ------------------------------------------------------------------ validation and layout */

static uint32_t param_count_of(const bsync_blend_space_desc* d) {
    if (d->type == BSYNC_BLEND_SIMPLE_1D) return 1;
    if (d->type == BSYNC_BLEND_DIRECT) return d->child_count;
    return 2;
}

static size_t values_size(const bsync_blend_space_desc* d) {
    if (d->type == BSYNC_BLEND_SIMPLE_1D) return align8((size_t)d->child_count * sizeof(fix16_t));
    if (is_2d((uint32_t)d->type)) return (size_t)d->child_count * sizeof(bsync_vec2);
    return 0;
}

static size_t impl_size_of(const bsync_blend_space_desc* d) {
    uint32_t n = d->child_count;
    switch (d->type) {
    case BSYNC_BLEND_SIMPLE_1D: return align8(bsync_b1d_size_(n));
    case BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D: return align8(bsync_bsd_size_(n));
    case BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D: return align8(bsync_band_size_(n, 1));
    case BSYNC_BLEND_FREEFORM_CARTESIAN_2D: return align8(bsync_band_size_(n, 0));
    case BSYNC_BLEND_INVERSE_DISTANCE_2D: return align8(bsync_idw_size_(n));
    case BSYNC_BLEND_DELAUNAY_2D: return align8(bsync_delaunay_impl_size_(d));
    default: return 0;
    }
}

static bsync_result validate_and_size(const bsync_blend_space_desc* d, size_t* out_size) {
    if (!d) return BSYNC_INVALID_ARGUMENT;
    if ((unsigned)d->type >= BSYNC_BLEND_TYPE_COUNT) return BSYNC_INVALID_ARGUMENT;
    if (d->child_count == 0 || d->child_count > BSYNC_MAX_BLEND_CHILDREN) return BSYNC_LIMIT_EXCEEDED;
    if (d->type == BSYNC_BLEND_SIMPLE_1D && !d->thresholds) return BSYNC_INVALID_ARGUMENT;
    if (is_2d((uint32_t)d->type) && !d->positions) return BSYNC_INVALID_ARGUMENT;
    if (d->type == BSYNC_BLEND_INVERSE_DISTANCE_2D && d->power > 8) return BSYNC_INVALID_ARGUMENT;
    if (d->type == BSYNC_BLEND_DELAUNAY_2D) {
        bsync_result r = bsync_delaunay_validate_(d);
        if (r != BSYNC_OK) return r;
    }
    *out_size = sizeof(struct bsync_blend_space) + values_size(d) + impl_size_of(d);
    return BSYNC_OK;
}

bsync_result bsync_blend_space_validate(const bsync_blend_space_desc* desc) {
    size_t s;
    return validate_and_size(desc, &s);
}

size_t bsync_blend_space_memory_size(const bsync_blend_space_desc* desc) {
    size_t s;
    return validate_and_size(desc, &s) == BSYNC_OK ? s : 0;
}

/* CLOSE_SAMPLES / DUPLICATE_POSITION for every pair of a 2D layout of size S (raw). Distances are
 * compared exactly: 100 |p_a - p_b| < S, on values shifted right together so squares stay in 64 bits. */
static void warn_close_samples(const bsync_vec2* pos, uint32_t n, uint64_t size, bsync_blend_diagnostics* diag) {
    unsigned b = bsync_blend_bitlen_(size);
    unsigned sh = b > 24 ? b - 24 : 0;
    uint64_t s = size >> sh; /* < 2^24 */
    for (uint32_t a = 0; a < n; a++) {
        for (uint32_t c = a + 1; c < n; c++) {
            int64_t dx = (int64_t)pos[c].x - pos[a].x, dy = (int64_t)pos[c].y - pos[a].y;
            if (dx == 0 && dy == 0) {
                bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_DUPLICATE_POSITION, a, c);
                continue;
            }
            /* |dx|, |dy| <= size, so after the shift they are < 2^24 + 1 */
            uint64_t ax = (bsync_u64_abs(dx) >> sh) * 100u, ay = (bsync_u64_abs(dy) >> sh) * 100u;
            if (ax * ax + ay * ay < s * s) bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_CLOSE_SAMPLES, a, c);
        }
    }
}

bsync_result bsync_blend_space_init(void* mem, size_t size, const bsync_blend_space_desc* desc,
                                    bsync_blend_space** out, bsync_blend_diagnostics* diag) {
    if (diag) {
        unsigned char* dp = (unsigned char*)diag;
        for (size_t i = 0; i < sizeof *diag; i++) dp[i] = 0;
    }
    if (!mem || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    size_t need;
    bsync_result r = validate_and_size(desc, &need);
    if (r != BSYNC_OK) return r;
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;

    unsigned char* base = bsync_block_start(mem, need, BLEND_MAGIC, BLEND_VERSION);
    struct bsync_blend_space* s = (struct bsync_blend_space*)mem;
    const uint32_t n = desc->child_count;
    s->type = (uint32_t)desc->type;
    s->child_count = n;
    s->param_count = param_count_of(desc);
    s->power = desc->type == BSYNC_BLEND_INVERSE_DISTANCE_2D ? (desc->power == 0 ? 2u : desc->power) : 0u;
    s->normalize = desc->normalize ? 1 : 0;
    s->values_offset = (uint32_t)sizeof(struct bsync_blend_space);
    s->impl_offset = (uint32_t)(sizeof(struct bsync_blend_space) + values_size(desc));
    s->impl_size = (uint32_t)(need - s->impl_offset);
    void* impl = base + s->impl_offset;

    if (desc->type == BSYNC_BLEND_SIMPLE_1D) {
        fix16_t* t = (fix16_t*)(base + s->values_offset);
        fix16_t lo = desc->thresholds[0], hi = desc->thresholds[0];
        for (uint32_t i = 0; i < n; i++) {
            t[i] = desc->thresholds[i];
            if (t[i] < lo) lo = t[i];
            if (t[i] > hi) hi = t[i];
        }
        s->bmin.x = lo;
        s->bmax.x = hi;
        bsync_b1d_build_(impl, t, n, diag);
    } else if (is_2d(s->type)) {
        bsync_vec2* p = (bsync_vec2*)(base + s->values_offset);
        bsync_vec2 lo = desc->positions[0], hi = desc->positions[0];
        for (uint32_t i = 0; i < n; i++) {
            p[i] = desc->positions[i];
            if (p[i].x < lo.x) lo.x = p[i].x;
            if (p[i].y < lo.y) lo.y = p[i].y;
            if (p[i].x > hi.x) hi.x = p[i].x;
            if (p[i].y > hi.y) hi.y = p[i].y;
        }
        s->bmin = lo;
        s->bmax = hi;
        s->centre_x = bsync_i64_asr((int64_t)lo.x + hi.x, 1);
        s->centre_y = bsync_i64_asr((int64_t)lo.y + hi.y, 1);
        uint64_t w = (uint64_t)((int64_t)hi.x - lo.x), h = (uint64_t)((int64_t)hi.y - lo.y);
        s->size = w > h ? w : h;
        s->far = s->size * (uint64_t)BSYNC_BLEND_FAR_FACTOR;
        warn_close_samples(p, n, s->size, diag);
        switch (s->type) {
        case BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D: bsync_bsd_build_(impl, p, n, diag); break;
        case BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D: bsync_band_build_(impl, p, n, 1, diag); break;
        case BSYNC_BLEND_FREEFORM_CARTESIAN_2D: bsync_band_build_(impl, p, n, 0, diag); break;
        case BSYNC_BLEND_INVERSE_DISTANCE_2D: bsync_idw_build_(impl, p, n, s->power); break;
        default: {
            r = bsync_delaunay_build_(desc, impl, s->impl_size, diag);
            if (r != BSYNC_OK) {
                for (size_t i = 0; i < need; i++) base[i] = 0;
                return r;
            }
        }
        }
    }
    *out = s;
    return BSYNC_OK;
}

bsync_result bsync_blend_space_create(const bsync_blend_space_desc* desc, const bsync_allocator* allocator,
                                      bsync_blend_space** out, bsync_blend_diagnostics* diag) {
    if (diag) {
        unsigned char* dp = (unsigned char*)diag;
        for (size_t i = 0; i < sizeof *diag; i++) dp[i] = 0;
    }
    if (!out) return BSYNC_INVALID_ARGUMENT;
    size_t need;
    bsync_result r = validate_and_size(desc, &need);
    if (r != BSYNC_OK) return r;
    bsync_allocator a;
    void* mem = bsync_block_alloc(allocator, need, &a);
    if (!mem) return BSYNC_OUT_OF_MEMORY;
    bsync_blend_space* s = NULL;
    r = bsync_block_adopt(bsync_blend_space_init(mem, need, desc, &s, diag), mem, need, &a);
    if (r == BSYNC_OK) *out = s;
    return r;
}

void bsync_blend_space_destroy(bsync_blend_space* space) { bsync_block_destroy(space ? &space->head : NULL); }

/* ------------------------------------------------------------------ evaluation */

/* Pull q back towards the layout's centre to distance `far` when it is farther (direction kept). */
static bsync_vec2 pull_back(const struct bsync_blend_space* s, bsync_vec2 q) {
    if (s->size == 0) {
        bsync_vec2 c = {(fix16_t)s->centre_x, (fix16_t)s->centre_y};
        return c;
    }
    int64_t dx = (int64_t)q.x - s->centre_x, dy = (int64_t)q.y - s->centre_y; /* |d| <= 2^32 */
    uint64_t ax = bsync_u64_abs(dx), ay = bsync_u64_abs(dy);
    uint64_t m = ax > ay ? ax : ay;
    if (m <= s->far / 2) return q; /* |d| <= sqrt(2) m < far */
    unsigned sh = 0;
    while ((m >> sh) >= ((uint64_t)1 << 30)) sh++;
    uint64_t sx = ax >> sh, sy = ay >> sh;
    uint64_t len = bsync_u64_isqrt(sx * sx + sy * sy) << sh; /* |d|, relative error < 2^-28 */
    if (len <= s->far) return q;
    int64_t k = (int64_t)bsync_blend_frac_q30_(s->far, len); /* far / |d| in Q30, < 1 */
    int64_t nx = bsync_i64_asr(dx * k + ((int64_t)1 << 29), 30); /* |dx k| < 2^62 */
    int64_t ny = bsync_i64_asr(dy * k + ((int64_t)1 << 29), 30);
    bsync_vec2 r = {bsync_fx_sat64(s->centre_x + nx), bsync_fx_sat64(s->centre_y + ny)};
    return r;
}

/* The exact-sum rule of blend_space.h: add BSYNC_FX_ONE - sum to the largest weight (lowest index
 * among equals); if that would make it negative, it becomes 0 and the rest goes to the next. */
static void exact_sum(fix16_t* w, uint32_t n) {
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) sum += w[i];
    int64_t diff = (int64_t)BSYNC_FX_ONE - sum;
    for (uint32_t guard = 0; diff != 0 && guard < n; guard++) {
        uint32_t big = 0;
        for (uint32_t i = 1; i < n; i++)
            if (w[i] > w[big]) big = i;
        if (diff > 0 || (int64_t)w[big] + diff >= 0) {
            w[big] = (fix16_t)((int64_t)w[big] + diff);
            return;
        }
        diff += w[big];
        w[big] = 0;
    }
}

static void eval_direct(const struct bsync_blend_space* s, const fix16_t* params, fix16_t* w) {
    const uint32_t n = s->child_count;
    int64_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        w[i] = params[i] > 0 ? params[i] : 0;
        sum += w[i];
    }
    if (!s->normalize || sum <= 0) return;
    for (uint32_t i = 0; i < n; i++) w[i] = (fix16_t)((((int64_t)w[i] << 16) + sum / 2) / sum);
    exact_sum(w, n);
}

bsync_result bsync_blend_space_eval(const bsync_blend_space* space, const fix16_t* params, uint32_t param_count,
                                    fix16_t* out_weights) {
    if (!space || !params || !out_weights) return BSYNC_INVALID_ARGUMENT;
    const struct bsync_blend_space* s = space;
    if (param_count != s->param_count) return BSYNC_MISMATCH;
    const unsigned char* base = (const unsigned char*)s;
    const void* impl = base + s->impl_offset;
    const uint32_t n = s->child_count;
    if (s->type == BSYNC_BLEND_DIRECT) {
        eval_direct(s, params, out_weights);
        return BSYNC_OK;
    }
    if (s->type == BSYNC_BLEND_SIMPLE_1D) {
        bsync_b1d_eval_(impl, n, params[0], out_weights);
    } else {
        const bsync_vec2* pos = (const bsync_vec2*)(base + s->values_offset);
        bsync_vec2 q = {params[0], params[1]};
        q = pull_back(s, q);
        switch (s->type) {
        case BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D: bsync_bsd_eval_(impl, pos, n, q, out_weights); break;
        case BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D:
        case BSYNC_BLEND_FREEFORM_CARTESIAN_2D: bsync_band_eval_(impl, pos, n, q, out_weights); break;
        case BSYNC_BLEND_INVERSE_DISTANCE_2D: bsync_idw_eval_(impl, pos, n, q, out_weights); break;
        default: bsync_delaunay_eval_(impl, pos, n, q, out_weights); break;
        }
    }
    exact_sum(out_weights, n);
    return BSYNC_OK;
}

/* ------------------------------------------------------------------ canonical bytes */

/* Raw bytes of the block from `from` to `to` (padding, zero since init fills every byte). */
static void canon_gap(const unsigned char* base, size_t from, size_t to, const bsync_canon_sink* sink) {
    if (to > from) bsync_canon_bytes_(sink, base + from, to - from);
}

void bsync_blend_space_canonical_(const bsync_blend_space* space, const bsync_canon_sink* sink) {
    const struct bsync_blend_space* s = space;
    const unsigned char* base = (const unsigned char*)s;
    const uint32_t n = s->child_count;
    bsync_canon_u32_(sink, s->type);
    bsync_canon_u32_(sink, s->child_count);
    bsync_canon_u32_(sink, s->param_count);
    bsync_canon_u32_(sink, s->power);
    bsync_canon_u32_(sink, (uint32_t)s->normalize);
    bsync_canon_u32_(sink, s->values_offset);
    bsync_canon_u32_(sink, s->impl_offset);
    bsync_canon_u32_(sink, s->impl_size);
    bsync_canon_u64_(sink, (uint64_t)s->centre_x);
    bsync_canon_u64_(sink, (uint64_t)s->centre_y);
    bsync_canon_u64_(sink, s->size);
    bsync_canon_u64_(sink, s->far);
    bsync_canon_u32_(sink, (uint32_t)s->bmin.x);
    bsync_canon_u32_(sink, (uint32_t)s->bmin.y);
    bsync_canon_u32_(sink, (uint32_t)s->bmax.x);
    bsync_canon_u32_(sink, (uint32_t)s->bmax.y);
    size_t at = s->values_offset;
    if (s->type == BSYNC_BLEND_SIMPLE_1D) {
        const fix16_t* t = (const fix16_t*)(base + at);
        for (uint32_t i = 0; i < n; i++) bsync_canon_u32_(sink, (uint32_t)t[i]);
        at += (size_t)n * sizeof(fix16_t);
    } else if (is_2d(s->type)) {
        const bsync_vec2* p = (const bsync_vec2*)(base + at);
        for (uint32_t i = 0; i < n; i++) {
            bsync_canon_u32_(sink, (uint32_t)p[i].x);
            bsync_canon_u32_(sink, (uint32_t)p[i].y);
        }
        at += (size_t)n * sizeof(bsync_vec2);
    }
    canon_gap(base, at, s->impl_offset, sink);
    const void* impl = base + s->impl_offset;
    size_t done = 0;
    switch (s->type) {
    case BSYNC_BLEND_SIMPLE_1D: done = bsync_b1d_canonical_(impl, n, sink); break;
    case BSYNC_BLEND_SIMPLE_DIRECTIONAL_2D: done = bsync_bsd_canonical_(impl, n, sink); break;
    case BSYNC_BLEND_FREEFORM_DIRECTIONAL_2D: done = bsync_band_canonical_(impl, n, 1, sink); break;
    case BSYNC_BLEND_FREEFORM_CARTESIAN_2D: done = bsync_band_canonical_(impl, n, 0, sink); break;
    case BSYNC_BLEND_INVERSE_DISTANCE_2D: done = bsync_idw_canonical_(impl, sink); break;
    case BSYNC_BLEND_DELAUNAY_2D: done = bsync_delaunay_canonical_(impl, sink); break;
    default: break;
    }
    canon_gap(base, (size_t)s->impl_offset + done, (size_t)s->head.block_size, sink);
}

/* ------------------------------------------------------------------ accessors */

bsync_blend_type bsync_blend_space_type(const bsync_blend_space* space) {
    return space ? (bsync_blend_type)space->type : BSYNC_BLEND_SIMPLE_1D;
}
uint32_t bsync_blend_space_child_count(const bsync_blend_space* space) { return space ? space->child_count : 0; }
uint32_t bsync_blend_space_param_count(const bsync_blend_space* space) { return space ? space->param_count : 0; }

fix16_t bsync_blend_space_threshold(const bsync_blend_space* space, uint32_t child) {
    if (!space || space->type != BSYNC_BLEND_SIMPLE_1D || child >= space->child_count) return 0;
    return ((const fix16_t*)((const unsigned char*)space + space->values_offset))[child];
}

bsync_vec2 bsync_blend_space_position(const bsync_blend_space* space, uint32_t child) {
    bsync_vec2 z = {0, 0};
    if (!space || !is_2d(space->type) || child >= space->child_count) return z;
    return ((const bsync_vec2*)((const unsigned char*)space + space->values_offset))[child];
}

void bsync_blend_space_bounds(const bsync_blend_space* space, bsync_vec2* out_min, bsync_vec2* out_max) {
    bsync_vec2 z = {0, 0};
    if (out_min) *out_min = space ? space->bmin : z;
    if (out_max) *out_max = space ? space->bmax : z;
}

uint32_t bsync_blend_space_triangle_count(const bsync_blend_space* space) {
    if (!space || space->type != BSYNC_BLEND_DELAUNAY_2D) return 0;
    return bsync_delaunay_triangle_count_((const unsigned char*)space + space->impl_offset);
}

bsync_result bsync_blend_space_triangle(const bsync_blend_space* space, uint32_t i, uint32_t out_children[3]) {
    if (!space || !out_children || space->type != BSYNC_BLEND_DELAUNAY_2D) return BSYNC_INVALID_ARGUMENT;
    const void* impl = (const unsigned char*)space + space->impl_offset;
    if (i >= bsync_delaunay_triangle_count_(impl)) return BSYNC_INVALID_ARGUMENT;
    bsync_delaunay_triangle_(impl, i, out_children);
    return BSYNC_OK;
}
