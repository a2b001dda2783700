/* sample.c — sampling a clip into a local pose; the optional per-instance key cursor; sample plans.
 *
 * One rule, one key search. Every path — bsync_clip_sample and its lerp twin, the planned samplers,
 * compact clips, the per-joint loop for an output partly overlapping the rest pose, and one track alone
 * (bsync_clip_sample_track_) — samples each track with sample_track (the one per-track rule) and finds
 * its keys with locate (the one key search). Both are force-inlined and generic over how a track's keys
 * are read (track_keys_: a default clip's fix16 times and values, or a compact clip's u16 indices into
 * its time table and its encoded values; the encoding is a constant at every call, so the compiler
 * builds one specialised copy per path). Interpolation is changed in sample_track alone.
 *
 * Key search: for a time strictly inside a track's key range, the interval is the unique k with
 * times[k] <= t < times[k+1] (key times strictly ascend, in both encodings). Without a cursor it is
 * found by binary search (O(log keys)); with a cursor the remembered k (and then k+1) is checked first
 * (O(1) for playback moving forward by less than a key per call), falling back to the binary search.
 * Both find the same unique k, so results never depend on the cursor.
 *
 * Shared key times: when every track of the clip has the same key times (content, checked once at
 * cursor init; baked clips, BVH and the procedural character are like this), the interval and the
 * interpolation weight are the same for every track, so a cursor marked so locates once per call
 * (with track 0's times and cursor entry) and hands that position to the rule for every track. The
 * rule computes every value by the same expressions from the same (k, exact, alpha) as its own search
 * would find, so the result is the same bits.
 *
 * Plain rotation keys: when every rotation key has components in [-2^30, 2^30) and no consecutive
 * pair needs the nlerp's hemisphere flip (checked once at cursor init with bsync_quat_dot_sign_), a
 * cursor marked so lets nlerp_keys skip those two checks per sample; the values are the same.
 *
 * Both marks live in one 64-bit tag tied to the clip's fingerprint (fingerprint ^ the marks' bits),
 * so a corrupted cursor header is refused (BSYNC_MISMATCH) like a wrong magic instead of switching
 * paths. tests/unit/test_sample.c compares every path with the per-track search without a cursor.
 *
 * Track order: whenever the output does not partly overlap the rest pose (it is the rest pose itself or
 * disjoint from it), the output starts as a copy of the rest pose and the tracks are walked in their
 * stored order, each writing its component (joints without a track of a kind keep the rest pose's),
 * with no per-joint lookup; that was a quarter of the time of sampling pab's key-reduced clips
 * (docs/benchmarks.md). Only a partly overlapping output takes the per-joint loop, which reads each
 * rest transform before writing it (tracks are stored sorted by joint, then kind, in both encodings).
 * Every component is the same expression of the same values either way.
 *
 * Rotations are normalised in one batch at the end of the call (bsync_simd_normalize_rotations_,
 * blendsync/simd.h: every path gives bsync_quat_normalize's bits): the lerps and held keys that need
 * it are written first and their joints listed. The lerp samplers (pose rule 2) are the same calls
 * without that batch: what they write for a listed joint is exactly what the batch would normalise.
 *
 * One track alone (bsync_clip_sample_track_, internal/sample_impl.h; root motion samples the root
 * joint's tracks this way): the same local_time and rule without a cursor, its rotation normalised at
 * once, so the same bits as the track's component of a full sample. */
#include <string.h>

#include "internal/clip_block.h"
#include "internal/force_inline.h"
#include "internal/quat_normalize.h"
#include "internal/rotation_lerp.h"
#include "internal/sample_impl.h"
#include "internal/simd_impl.h"

#define CURSOR_MAGIC 0x52534342u /* "BCSR" */
/* The marks of the cursor tag (see above); the tag is fingerprint ^ (the set marks). */
#define SHARED_TIMES_TAG 0x5348415245442D54ull /* "T-DERAHS" */
#define PLAIN_KEYS_TAG 0x4E49414C504B4559ull   /* "YEKPLAIN" */
#define HELD_UNIT_TAG 0x54494E55444C4548ull    /* "HELDUNIT" */

struct bsync_sample_cursor {
    uint32_t magic;
    uint32_t track_count;
    uint64_t fingerprint; /* the clip's content fingerprint */
    uint64_t tag;         /* fingerprint ^ (SHARED_TIMES_TAG if set) ^ (PLAIN_KEYS_TAG if set) ^ (HELD_UNIT_TAG if set) */
    /* uint32_t last_key[track_count] follows */
};

_Static_assert(sizeof(struct bsync_sample_cursor) == 24, "cursor header must be 24 bytes");

/* Are all rotation keys in [-2^30, 2^30) per component, with no consecutive pair that nlerp would
 * flip (exact dot < 0, or 0 with the second key lexicographically negative)? */
static uint32_t rotation_keys_plain(const bsync_clip* clip) {
    const bsync_clip_track_* tracks = bsync_clip_tracks_(clip);
    for (uint32_t i = 0; i < clip->track_count; i++) {
        if (tracks[i].kind != BSYNC_TRACK_ROTATION) continue;
        const bsync_quat* q = bsync_clip_quats_(clip, &tracks[i]);
        for (uint32_t k = 0; k < tracks[i].key_count; k++) {
            if (!bsync_quat_small_(q[k])) return 0;
            if (k == 0) continue;
            const int sgn = bsync_quat_dot_sign_(q[k - 1], q[k]);
            if (sgn < 0 || (sgn == 0 && bsync_quat_lex_negative_(q[k]))) return 0;
        }
    }
    return 1;
}

/* Is every held rotation (a two-key rotation track with equal keys, see "Equal keys" below) a key q
 * with bsync_quat_normalize(q) == q? Then such a track samples to q at every time. */
static uint32_t held_rotations_unit(const bsync_clip* clip) {
    const bsync_clip_track_* tracks = bsync_clip_tracks_(clip);
    for (uint32_t i = 0; i < clip->track_count; i++) {
        if (tracks[i].kind != BSYNC_TRACK_ROTATION || tracks[i].key_count != 2) continue;
        const bsync_quat* q = bsync_clip_quats_(clip, &tracks[i]);
        if (q[0].x != q[1].x || q[0].y != q[1].y || q[0].z != q[1].z || q[0].w != q[1].w) continue;
        const bsync_quat n = bsync_quat_normalize_inl_(q[0], NULL);
        if (n.x != q[0].x || n.y != q[0].y || n.z != q[0].z || n.w != q[0].w) return 0;
    }
    return 1;
}

/* The marks of a tag: bit 0 shared times, bit 1 plain keys, bit 2 held unit rotations; -1 for a
 * corrupted tag. */
#define MARK_SHARED 1
#define MARK_PLAIN 2
#define MARK_HELD_UNIT 4
/* The tag bits of each set of marks (index: the marks), and back. */
static const uint64_t mark_tags[8] = {0,
                                      SHARED_TIMES_TAG,
                                      PLAIN_KEYS_TAG,
                                      SHARED_TIMES_TAG ^ PLAIN_KEYS_TAG,
                                      HELD_UNIT_TAG,
                                      SHARED_TIMES_TAG ^ HELD_UNIT_TAG,
                                      PLAIN_KEYS_TAG ^ HELD_UNIT_TAG,
                                      SHARED_TIMES_TAG ^ PLAIN_KEYS_TAG ^ HELD_UNIT_TAG};
static uint64_t marks_tag(int marks) { return mark_tags[marks & 7]; }
static int tag_marks(const bsync_sample_cursor* c) {
    const uint64_t m = c->tag ^ c->fingerprint;
    for (int marks = 0; marks < 8; marks++)
        if (m == mark_tags[marks]) return marks;
    return -1;
}

/* Do all tracks of the clip have the same key times as track 0 (same count, same values)? */
static uint32_t tracks_share_times(const bsync_clip* clip) {
    if (clip->track_count == 0) return 0;
    const bsync_clip_track_* tracks = bsync_clip_tracks_(clip);
    const uint32_t n = tracks[0].key_count;
    const fix16_t* t0 = bsync_clip_times_(clip, &tracks[0]);
    for (uint32_t i = 1; i < clip->track_count; i++) {
        if (tracks[i].key_count != n) return 0;
        const fix16_t* ti = bsync_clip_times_(clip, &tracks[i]);
        for (uint32_t k = 0; k < n; k++)
            if (ti[k] != t0[k]) return 0;
    }
    return 1;
}

static uint32_t* cursor_keys(bsync_sample_cursor* c) {
    return (uint32_t*)((unsigned char*)c + sizeof(struct bsync_sample_cursor));
}

size_t bsync_sample_cursor_memory_size(const bsync_clip* clip) {
    if (!clip) return 0;
    size_t n = sizeof(struct bsync_sample_cursor) + (size_t)clip->track_count * sizeof(uint32_t);
    return (n + 7u) & ~(size_t)7u;
}

bsync_result bsync_sample_cursor_init(void* mem, size_t size, const bsync_clip* clip, bsync_sample_cursor** out) {
    if (!mem || !clip || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    if (size < bsync_sample_cursor_memory_size(clip)) return BSYNC_BUFFER_TOO_SMALL;
    bsync_sample_cursor* c = (bsync_sample_cursor*)mem;
    c->magic = CURSOR_MAGIC;
    c->track_count = clip->track_count;
    c->fingerprint = clip->fingerprint;
    /* a compact clip takes its own path (below), which uses no marks */
    c->tag = bsync_clip_is_compact_(clip) ? clip->fingerprint
                                          : clip->fingerprint ^ marks_tag((tracks_share_times(clip) ? MARK_SHARED : 0) |
                                                                          (rotation_keys_plain(clip) ? MARK_PLAIN : 0) |
                                                                          (held_rotations_unit(clip) ? MARK_HELD_UNIT : 0));
    bsync_sample_cursor_reset(c);
    *out = c;
    return BSYNC_OK;
}

int bsync_sample_cursor_shares_times(const bsync_sample_cursor* cursor) {
    if (!cursor || cursor->magic != CURSOR_MAGIC) return 0;
    const int m = tag_marks(cursor);
    return m >= 0 && (m & MARK_SHARED) != 0;
}

void bsync_sample_cursor_reset(bsync_sample_cursor* cursor) {
    if (!cursor) return;
    uint32_t* keys = cursor_keys(cursor);
    for (uint32_t i = 0; i < cursor->track_count; i++) keys[i] = 0;
}


/* Clip-local time per the policy in sample.h. */
static fix16_t local_time(fix16_t t, fix16_t duration, bsync_loop_mode mode) {
    if (mode == BSYNC_LOOP_WRAP) {
        if (duration <= 0) return 0;
        fix16_t r = t % duration; /* duration > 0, so no overflow; r has the sign of t */
        return r < 0 ? r + duration : r;
    }
    if (t < 0) return 0;
    return t > duration ? duration : t;
}

/* ---------------------------------------------------------------- how a track's keys are read
 * The encoding of a clip's keys: KEYS_FULL, the default clip (fix16 times and values, internal/
 * clip_block.h), or KEYS_COMPACT (block version 2: key time k is the time table's entry at the track's
 * u16 index k, values decoded with integer arithmetic only by bsync_clip_cquat_at_ and
 * bsync_clip_cvec3_decode_). A compact clip samples exactly like a default clip whose keys are its
 * decoded keys (tests/unit/test_clip_compact.c builds that clip and compares). Every function below
 * takes the encoding as a constant argument and is force-inlined, so each path reads its keys
 * directly. */
enum { KEYS_FULL = 0, KEYS_COMPACT = 1 };

/* A clip's track records and, for a compact clip, its time table: read once per call. */
typedef struct clip_keys_ {
    const bsync_clip* clip;
    const void* tracks;    /* bsync_clip_track_[] or bsync_clip_ctrack_[] */
    const uint16_t* table; /* KEYS_COMPACT: the time table; else NULL */
} clip_keys_;

/* One track: where its key times and values are. */
typedef struct track_keys_ {
    const void* times;     /* KEYS_FULL: fix16_t[n]; KEYS_COMPACT: uint16_t[n], indices into table */
    const uint16_t* table; /* KEYS_COMPACT: the clip's time table */
    const void* values;    /* KEYS_FULL: bsync_quat[n] or bsync_vec3[n]; KEYS_COMPACT: the value blob */
    uint32_t n;            /* key count, >= 1 */
    uint32_t kind;         /* BSYNC_TRACK_* */
    uint32_t flags;        /* KEYS_COMPACT: BSYNC_CTRACK_* (0 otherwise) */
    uint32_t joint;
} track_keys_;

static BSYNC_FORCE_INLINE clip_keys_ clip_keys(const bsync_clip* clip, const int enc) {
    clip_keys_ c;
    c.clip = clip;
    if (enc == KEYS_COMPACT) {
        c.tracks = bsync_clip_ctracks_(clip);
        c.table = bsync_clip_words_(clip, bsync_clip_compact_header_(clip)->time_table_offset);
    } else {
        c.tracks = bsync_clip_tracks_(clip);
        c.table = NULL;
    }
    return c;
}

static BSYNC_FORCE_INLINE uint32_t track_joint(const clip_keys_* c, const int enc, uint32_t i) {
    return enc == KEYS_COMPACT ? ((const bsync_clip_ctrack_*)c->tracks)[i].joint
                               : ((const bsync_clip_track_*)c->tracks)[i].joint;
}

static BSYNC_FORCE_INLINE track_keys_ track_keys(const clip_keys_* c, const int enc, uint32_t i) {
    track_keys_ k;
    if (enc == KEYS_COMPACT) {
        const bsync_clip_ctrack_* tr = &((const bsync_clip_ctrack_*)c->tracks)[i];
        k.times = bsync_ctrack_times_(c->clip, tr);
        k.table = c->table;
        k.values = bsync_ctrack_values_(c->clip, tr);
        k.n = tr->key_count;
        k.kind = tr->flags & BSYNC_CTRACK_KIND_MASK;
        k.flags = tr->flags;
        k.joint = tr->joint;
    } else {
        const bsync_clip_track_* tr = &((const bsync_clip_track_*)c->tracks)[i];
        k.times = bsync_clip_times_(c->clip, tr);
        k.table = NULL;
        k.values = bsync_clip_quats_(c->clip, tr); /* or bsync_vec3s_: the same address */
        k.n = tr->key_count;
        k.kind = tr->kind;
        k.flags = 0;
        k.joint = tr->joint;
    }
    return k;
}

static BSYNC_FORCE_INLINE fix16_t key_time(const track_keys_* k, const int enc, uint32_t i) {
    return enc == KEYS_COMPACT ? bsync_clip_ctime_(k->table, ((const uint16_t*)k->times)[i]) : ((const fix16_t*)k->times)[i];
}
static BSYNC_FORCE_INLINE bsync_quat key_quat(const track_keys_* k, const int enc, uint32_t i) {
    return enc == KEYS_COMPACT ? bsync_clip_cquat_at_((const uint16_t*)k->values, k->flags, i) : ((const bsync_quat*)k->values)[i];
}
static BSYNC_FORCE_INLINE bsync_vec3 key_vec3(const track_keys_* k, const int enc, uint32_t i) {
    return enc == KEYS_COMPACT ? bsync_clip_cvec3_decode_((const uint16_t*)k->values, k->flags, i)
                               : ((const bsync_vec3*)k->values)[i];
}

static BSYNC_FORCE_INLINE int vec3_equal(bsync_vec3 a, bsync_vec3 b) {
    return ((a.x ^ b.x) | (a.y ^ b.y) | (a.z ^ b.z)) == 0;
}
static BSYNC_FORCE_INLINE int quat_equal(bsync_quat a, bsync_quat b) {
    return ((a.x ^ b.x) | (a.y ^ b.y) | (a.z ^ b.z) | (a.w ^ b.w)) == 0;
}

/* Keys i and i+1 are known to hold the same value, cheaply: a default track compares the two keys (the
 * rule reads both anyway); a compact track answers from its CONST flag alone (decoding is not cheap;
 * "no" for equal keys only costs the interpolation, with the same bits: see "Equal keys"). */
static BSYNC_FORCE_INLINE int keys_same(const track_keys_* k, const int enc, uint32_t i) {
    if (enc == KEYS_COMPACT) return (k->flags & BSYNC_CTRACK_CONST) != 0;
    return k->kind == BSYNC_TRACK_ROTATION ? quat_equal(key_quat(k, enc, i), key_quat(k, enc, i + 1))
                                           : vec3_equal(key_vec3(k, enc, i), key_vec3(k, enc, i + 1));
}

/* ---------------------------------------------------------------- the one key search */

/* Position of t within the track: *k and *alpha for the interpolation, or the key index to copy
 * exactly (first key before the range, last key after it, key k exactly at times[k]). */
typedef struct locate_ {
    uint32_t k;
    int exact;     /* nonzero: use key k as is */
    fix16_t alpha; /* between keys k and k+1 */
} locate_;

/* The last interpolation weight computed in one sampling call (t is fixed there): alpha is a function
 * of (t, times[k], times[k+1]) only, and the tracks of a clip usually share their key times, so a
 * track whose interval has the same two key times reuses it instead of dividing again. */
typedef struct alpha_memo_ {
    fix16_t lo, hi, alpha; /* valid when hi > lo (an interval always has times[k] < times[k+1]) */
} alpha_memo_;

/* alpha = (t - lo) / (hi - lo) for lo < t < hi, through the memo: 0 <= lo < t < hi <= duration, so the
 * differences cannot overflow. Both are positive, so below bsync_fx_div's 2^20 branch its quotient is
 * ((n << 17) / d + 1) >> 1 with no sign and no saturation (at most 2^16); that is written out here. */
static BSYNC_FORCE_INLINE fix16_t interval_alpha(fix16_t t, fix16_t lo, fix16_t hi, alpha_memo_* memo) {
    if (lo != memo->lo || hi != memo->hi) {
        const uint32_t n = (uint32_t)(t - lo), d = (uint32_t)(hi - lo);
        memo->lo = lo;
        memo->hi = hi;
        memo->alpha = d < ((uint32_t)1 << 20) ? (fix16_t)((((uint64_t)n << 17) / d + 1) >> 1) : bsync_fx_div(t - lo, hi - lo);
    }
    return memo->alpha;
}

/* k with times[k] <= t < times[k+1], for times[0] < t < times[n-1] (so n >= 2). */
static BSYNC_FORCE_INLINE uint32_t search(const track_keys_* keys, const int enc, fix16_t t) {
    uint32_t lo = 0, hi = keys->n - 1; /* invariant: times[lo] <= t < times[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_time(keys, enc, mid) <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The cursor entry's interval: 1 with times[*out] <= t < times[*out + 1] when that holds for the entry's
 * key or the next one (storing the next one), else 0 with nothing stored. Any entry is range-checked. */
static BSYNC_FORCE_INLINE int cursor_interval(const track_keys_* keys, const int enc, fix16_t t, uint32_t* cached,
                                              uint32_t* out) {
    const uint32_t k = *cached, n = keys->n;
    if (k >= n - 1 || key_time(keys, enc, k) > t) return 0; /* n >= 1: a one-key track never holds an entry's interval */
    if (t < key_time(keys, enc, k + 1)) {
        *out = k;
        return 1;
    }
    if (k + 2 < n && t < key_time(keys, enc, k + 2)) {
        *cached = *out = k + 1;
        return 1;
    }
    return 0;
}

/* The key search: the cursor entry (cached, or NULL) first; an interval it holds is inside the keys
 * (times[k] <= t < times[k+1] <= the last time; t = times[0] only as the exact key 0), so the ends need
 * no check then. Else the ends, else the binary search (remembered in the entry). */
static BSYNC_FORCE_INLINE locate_ locate(const track_keys_* keys, const int enc, fix16_t t, uint32_t* cached,
                                         alpha_memo_* memo) {
    locate_ l = {0, 1, 0};
    uint32_t k;
    if (!cached || !cursor_interval(keys, enc, t, cached, &k)) {
        if (t <= key_time(keys, enc, 0)) return l;
        if (t >= key_time(keys, enc, keys->n - 1)) {
            l.k = keys->n - 1;
            return l;
        }
        k = search(keys, enc, t);
        if (cached) *cached = k;
    }
    l.k = k;
    const fix16_t lo = key_time(keys, enc, k);
    if (t == lo) return l;
    l.exact = 0;
    l.alpha = interval_alpha(t, lo, key_time(keys, enc, k + 1), memo);
    return l;
}

/* ---------------------------------------------------------------- the one per-track rule */

/* The interpolation of two rotation keys (internal/rotation_lerp.h), returned not yet normalised: the
 * caller lists the joint and normalises in a batch (bsync_simd_normalize_rotations_, the same function
 * on every path, so bsync_quat_nlerp's bits), or keeps it as it is for the lerp samplers (pose rule 2,
 * sample.h). */
static BSYNC_FORCE_INLINE bsync_quat nlerp_keys(bsync_quat a, bsync_quat b, fix16_t t, int plain) {
    return bsync_keys_nlerp_(a, b, t, plain);
}

/* The batch of interpolated rotations (bsync_simd_lerp_rotations_, internal/simd_impl.h): the planned
 * sampler of a default clip hands the rule one, and every rotation strictly between two different keys
 * whose weight is strictly between 0 and 1 is listed there instead of interpolated at once; the batch
 * writes what nlerp_keys would (the same keys, weight and `plain`), in vector lanes on the x86 paths,
 * when it is full and at the end of the call. */
#define LERP_BATCH 64u
typedef struct lerp_batch_ {
    bsync_rotation_lerp_ jobs[LERP_BATCH];
    uint32_t n;
    int plain;
} lerp_batch_;

static void batch_flush(lerp_batch_* b) {
    bsync_simd_lerp_rotations_(b->jobs, b->n, b->plain);
    b->n = 0;
}

static BSYNC_FORCE_INLINE void batch_add(lerp_batch_* b, const bsync_quat* keys, bsync_quat* out, fix16_t alpha) {
    bsync_rotation_lerp_* j = &b->jobs[b->n];
    j->keys = keys;
    j->out = out;
    j->alpha = alpha;
    if (++b->n == LERP_BATCH) batch_flush(b);
}

/* Equal keys: two neighbouring keys holding the same value (the held translations and scales of most
 * joints in key-reduced clips, e.g. ozz's runtime data; a compact track marked CONST) sample to that
 * value at every time between them for translation and scale: bsync_fx_lerp(a, a, t) = a + round(0) = a.
 * For rotation: the key itself at a key or outside the keys, and strictly between them
 * nlerp(q, q, alpha) = normalize(q): the exact dot q.q is positive (no hemisphere flip) and each lerp
 * of equal components is exact (bsync_key_lerp_ and bsync_fx_lerp both give a), so what is normalised
 * is q itself. So the interpolation weight and the lerps are skipped with the same bits, and for a
 * two-key track with equal keys (held) the key search as well (tests/unit/test_sample_rule.c compares
 * with sample.h's rule written out from the public functions).
 *
 * Equal neighbours are looked for where that is cheap or pays: a compact track's CONST flag, and the
 * shared position of a clip whose tracks share key times (baked clips hold joints still over many
 * keys); for a default clip's own search the comparison measured slower than the interpolation it
 * saves (the key-reduced clips rarely repeat a rotation).
 *
 * sample_track: the track's component of its joint's transform *x at clip-local time t. The position
 * comes from `at` (the shared position of a clip whose tracks share their key times) or, when it is
 * NULL, from locate with the track's cursor entry `cached` (or none). Returns 1 when the rotation
 * written still needs the normalisation, else 0; a rotation track writes its joint to *listed (when
 * not NULL) either way, for the caller's list of joints to normalise. `marks`: the cursor's
 * MARK_PLAIN (no range or flip checks in the nlerp) and MARK_HELD_UNIT (every held rotation is unit:
 * nothing to normalise). `batch` (or NULL; default clips only) takes the rotations to interpolate. */
static BSYNC_FORCE_INLINE uint32_t sample_track(const track_keys_* keys, const int enc, fix16_t t, const locate_* at,
                                                uint32_t* cached, alpha_memo_* memo, int marks, lerp_batch_* batch,
                                                bsync_trs* x, uint16_t* listed) {
    const int held = keys->n == 2 && keys_same(keys, enc, 0);
    const int look_same = enc == KEYS_COMPACT || at != NULL; /* equal neighbours: see above */
    if (keys->kind == BSYNC_TRACK_ROTATION) {
        if (listed) *listed = (uint16_t)keys->joint;
        if (held) { /* q; normalize(q) strictly between the two keys (below), none when it is unit */
            x->r = key_quat(keys, enc, 0);
            if (marks & MARK_HELD_UNIT) return 0;
            if (at) return at->exact ? 0u : 1u;
            return t > key_time(keys, enc, 0) && t < key_time(keys, enc, 1) ? 1u : 0u;
        }
        const locate_ l = at ? *at : locate(keys, enc, t, cached, memo);
        if (l.exact) {
            x->r = key_quat(keys, enc, l.k);
            return 0;
        }
        if (look_same && keys_same(keys, enc, l.k)) {
            x->r = key_quat(keys, enc, l.k); /* normalize(q): listed */
            return 1;
        }
        if (batch && l.alpha > 0 && l.alpha < BSYNC_FX_ONE) { /* written by the batch, not normalised */
            batch_add(batch, &((const bsync_quat*)keys->values)[l.k], &x->r, l.alpha);
            return 1;
        }
        x->r = nlerp_keys(key_quat(keys, enc, l.k), key_quat(keys, enc, l.k + 1), l.alpha, (marks & MARK_PLAIN) != 0);
        return 1;
    }
    bsync_vec3 value;
    if (held) {
        value = key_vec3(keys, enc, 0);
    } else {
        const locate_ l = at ? *at : locate(keys, enc, t, cached, memo);
        value = l.exact || (look_same && keys_same(keys, enc, l.k))
                    ? key_vec3(keys, enc, l.k)
                    : bsync_vec3_lerp(key_vec3(keys, enc, l.k), key_vec3(keys, enc, l.k + 1), l.alpha);
    }
    if (keys->kind == BSYNC_TRACK_TRANSLATION) x->t = value;
    else x->s = value;
    return 0;
}

/* ---------------------------------------------------------------- the walks over the tracks */

/* The tracks list[0 .. count) (or, list NULL, the tracks 0 .. count) in that order, each into its
 * joint's transform of out; the joints whose rotation needs the normalisation are appended to pending
 * (every rotation track writes its joint to the next slot, only one that needs it counts; one rotation
 * track per joint, so the slot is inside the joints). Returns the new count of pending. */
static BSYNC_FORCE_INLINE uint32_t sample_in_order(const clip_keys_* c, const int enc, const uint16_t* list,
                                                   uint32_t count, fix16_t t, const locate_* at, uint32_t* cached,
                                                   alpha_memo_* memo, int marks, lerp_batch_* batch, bsync_trs* out,
                                                   uint16_t* pending, uint32_t np) {
    for (uint32_t i = 0; i < count; i++) {
        const uint32_t ti = list ? list[i] : i;
        const track_keys_ k = track_keys(c, enc, ti);
        np += sample_track(&k, enc, t, at, cached ? &cached[ti] : NULL, memo, marks, batch, &out[k.joint], &pending[np]);
    }
    return np;
}

/* Joint by joint, each transform read from rest before it is written (for an output partly overlapping
 * the rest pose): from the first joint when out lies below rest (out[j] is at or below rest[j], whose
 * joints are read), from the last one when it lies above (out[j] is above rest[j], whose joints have
 * been read). The tracks are sorted by joint, so each joint's tracks follow each other. */
static BSYNC_FORCE_INLINE uint32_t sample_by_joint(const clip_keys_* c, const int enc, fix16_t t, const bsync_trs* rest,
                                                   uint32_t joint_count, uint32_t* cached, alpha_memo_* memo,
                                                   int marks, bsync_trs* out, uint16_t* pending) {
    const uint32_t track_count = c->clip->track_count;
    const int down = (uintptr_t)out > (uintptr_t)rest; /* from the last joint */
    uint32_t np = 0, end = down ? track_count : 0; /* the tracks not yet walked: [0, end) or [end, count) */
    for (uint32_t i = 0; i < joint_count; i++) {
        const uint32_t j = down ? joint_count - 1 - i : i;
        bsync_trs x = rest[j]; /* read before writing */
        uint32_t pend = 0;
        while (down ? end > 0 : end < track_count) {
            const uint32_t ti = down ? end - 1 : end;
            if (track_joint(c, enc, ti) != j) break;
            const track_keys_ k = track_keys(c, enc, ti);
            pend |= sample_track(&k, enc, t, NULL, cached ? &cached[ti] : NULL, memo, marks, NULL, &x, NULL);
            end = down ? end - 1 : end + 1;
        }
        pending[np] = (uint16_t)j;
        np += pend;
        out[j] = x;
    }
    return np;
}

/* bsync_clip_sample of one encoding (arguments checked); returns the count of pending. */
static BSYNC_FORCE_INLINE uint32_t sample_encoded(const bsync_clip* clip, const int enc, fix16_t t, const bsync_trs* rest,
                                                  uint32_t joint_count, uint32_t* cached, int marks, bsync_trs* out,
                                                  uint16_t* pending) {
    const clip_keys_ c = clip_keys(clip, enc);
    alpha_memo_ memo = {0, 0, 0}; /* lo == hi: matches no interval */
    const size_t pose_bytes = (size_t)joint_count * sizeof(bsync_trs);
    if (!(out == rest || (uintptr_t)out + pose_bytes <= (uintptr_t)rest || (uintptr_t)rest + pose_bytes <= (uintptr_t)out))
        return sample_by_joint(&c, enc, t, rest, joint_count, cached, &memo, marks, out, pending);
    if (out != rest) memcpy(out, rest, pose_bytes); /* the ranges do not overlap (checked above) */
    if (enc == KEYS_FULL && (marks & MARK_SHARED) != 0) { /* one search for every track */
        const track_keys_ k0 = track_keys(&c, enc, 0);
        const locate_ l = locate(&k0, enc, t, &cached[0], &memo);
        return sample_in_order(&c, enc, NULL, clip->track_count, t, &l, NULL, &memo, marks, NULL, out, pending, 0);
    }
    return sample_in_order(&c, enc, NULL, clip->track_count, t, NULL, cached, &memo, marks, NULL, out, pending, 0);
}

/* ---------------------------------------------------------------- plans */

#define PLAN_MAGIC 0x4E4C5042u /* "BPLN" */

struct bsync_sample_plan {
    uint32_t magic;
    uint32_t joint_count;
    uint64_t fingerprint; /* the clip's */
    uint32_t track_count;
    uint32_t animated_count;
    uint64_t rest_hash;   /* FNV-1a 64 of the rest pose's fields, for bsync_sample_plan_validate */
    /* bsync_trs base[joint_count]; uint16_t animated[animated_count] follow */
};
_Static_assert(sizeof(struct bsync_sample_plan) == 32, "plan header must be 32 bytes");

static uint64_t rest_hash(const bsync_trs* rest, uint32_t n) {
    uint64_t h = 14695981039346656037ull;
    for (uint32_t j = 0; j < n; j++) {
        const fix16_t f[10] = {rest[j].t.x, rest[j].t.y, rest[j].t.z, rest[j].r.x, rest[j].r.y,
                               rest[j].r.z, rest[j].r.w, rest[j].s.x, rest[j].s.y, rest[j].s.z};
        for (int i = 0; i < 10; i++) h = (h ^ (uint32_t)f[i]) * 1099511628211ull;
    }
    return h;
}

static size_t plan_header_bytes(void) { return sizeof(struct bsync_sample_plan); }
static bsync_trs* plan_base(const bsync_sample_plan* p) {
    return (bsync_trs*)(uintptr_t)((const unsigned char*)p + plan_header_bytes());
}
static uint16_t* plan_animated(const bsync_sample_plan* p) {
    return (uint16_t*)(uintptr_t)((const unsigned char*)p + plan_header_bytes() + (size_t)p->joint_count * sizeof(bsync_trs));
}

/* Is track i constant over time, with the value the base pose gets? One key; or two equal keys of a
 * translation or scale (always the key, "Equal keys"); or two equal rotation keys q with
 * normalize(q) == q (q at and outside the keys, normalize(q) strictly between: both q). The decoded
 * values are compared in both encodings. */
static BSYNC_FORCE_INLINE int track_constant(const clip_keys_* c, const int enc, uint32_t i) {
    const track_keys_ k = track_keys(c, enc, i);
    if (k.n == 1) return 1;
    if (k.n != 2) return 0;
    if (k.kind == BSYNC_TRACK_ROTATION) {
        const bsync_quat q0 = key_quat(&k, enc, 0);
        return quat_equal(q0, key_quat(&k, enc, 1)) && quat_equal(bsync_quat_normalize_inl_(q0, NULL), q0);
    }
    return vec3_equal(key_vec3(&k, enc, 0), key_vec3(&k, enc, 1));
}

/* The animated tracks (not constant) of the clip listed in animated (when not NULL) in their stored
 * order, the constant ones written into base (when not NULL); returns the count of animated tracks. */
static BSYNC_FORCE_INLINE uint32_t plan_tracks(const bsync_clip* clip, const int enc, bsync_trs* base, uint16_t* animated) {
    const clip_keys_ c = clip_keys(clip, enc);
    uint32_t n = 0;
    for (uint32_t i = 0; i < clip->track_count; i++) {
        if (!track_constant(&c, enc, i)) {
            if (animated) animated[n] = (uint16_t)i;
            n++;
            continue;
        }
        if (!base) continue;
        const track_keys_ k = track_keys(&c, enc, i);
        bsync_trs* x = &base[k.joint];
        if (k.kind == BSYNC_TRACK_ROTATION) x->r = key_quat(&k, enc, 0);
        else if (k.kind == BSYNC_TRACK_TRANSLATION) x->t = key_vec3(&k, enc, 0);
        else x->s = key_vec3(&k, enc, 0);
    }
    return n;
}

static uint32_t plan_clip(const bsync_clip* clip, bsync_trs* base, uint16_t* animated) {
    return bsync_clip_is_compact_(clip) ? plan_tracks(clip, KEYS_COMPACT, base, animated)
                                        : plan_tracks(clip, KEYS_FULL, base, animated);
}

size_t bsync_sample_plan_memory_size(const bsync_clip* clip) {
    if (!clip) return 0;
    const size_t n = plan_header_bytes() + (size_t)clip->joint_count * sizeof(bsync_trs) +
                     (size_t)plan_clip(clip, NULL, NULL) * sizeof(uint16_t);
    return (n + 7u) & ~(size_t)7u;
}

bsync_result bsync_sample_plan_init(void* mem, size_t size, const bsync_clip* clip, const bsync_trs* rest,
                                    uint32_t joint_count, bsync_sample_plan** out) {
    if (!mem || !clip || !rest || !out || ((uintptr_t)mem & 7u) != 0) return BSYNC_INVALID_ARGUMENT;
    if (joint_count != clip->joint_count) return BSYNC_MISMATCH;
    const size_t need = bsync_sample_plan_memory_size(clip);
    if (size < need) return BSYNC_BUFFER_TOO_SMALL;
    if ((uintptr_t)rest < (uintptr_t)mem + need && (uintptr_t)mem < (uintptr_t)rest + (size_t)joint_count * sizeof(bsync_trs))
        return BSYNC_INVALID_ARGUMENT; /* the rest pose inside the plan's memory */
    bsync_sample_plan* p = (bsync_sample_plan*)mem;
    memset(mem, 0, need);
    p->magic = PLAN_MAGIC;
    p->joint_count = joint_count;
    p->fingerprint = clip->fingerprint;
    p->track_count = clip->track_count;
    p->rest_hash = rest_hash(rest, joint_count);
    bsync_trs* base = plan_base(p);
    memcpy(base, rest, (size_t)joint_count * sizeof(bsync_trs));
    p->animated_count = plan_clip(clip, base, plan_animated(p));
    *out = p;
    return BSYNC_OK;
}

bsync_result bsync_sample_plan_validate(const bsync_sample_plan* plan, const bsync_clip* clip, const bsync_trs* rest,
                                        uint32_t joint_count) {
    if (!plan || !clip || !rest) return BSYNC_INVALID_ARGUMENT;
    if (plan->magic != PLAN_MAGIC || plan->fingerprint != clip->fingerprint || plan->track_count != clip->track_count ||
        plan->joint_count != joint_count || joint_count != clip->joint_count ||
        plan->rest_hash != rest_hash(rest, joint_count))
        return BSYNC_MISMATCH;
    return BSYNC_OK;
}


/* The cursor's marks for a sample of clip (0 for a compact clip, whose cursor holds none), or -1 when
 * the cursor is not this clip's or its header is corrupted. */
static int cursor_marks(const bsync_sample_cursor* cursor, const bsync_clip* clip) {
    if (!cursor) return 0;
    const int marks = tag_marks(cursor); /* -1: a corrupted tag */
    if (cursor->magic != CURSOR_MAGIC || cursor->track_count != clip->track_count ||
        cursor->fingerprint != clip->fingerprint || marks < 0)
        return -1;
    return bsync_clip_is_compact_(clip) ? 0 : marks;
}

/* The planned sampling of one encoding (arguments checked): the base pose, then the animated tracks in
 * their stored order (a default clip's interpolated rotations in the batch); returns the count of
 * pending. */
static BSYNC_FORCE_INLINE uint32_t sample_planned_encoded(const bsync_sample_plan* plan, const bsync_clip* clip, const int enc,
                                                          fix16_t t, uint32_t* cached, int marks, bsync_trs* out,
                                                          uint16_t* pending) {
    const clip_keys_ c = clip_keys(clip, enc);
    alpha_memo_ memo = {0, 0, 0};
    bsync_simd_copy_(out, plan_base(plan), (size_t)plan->joint_count * sizeof(bsync_trs)); /* disjoint (checked) */
    if (enc == KEYS_COMPACT)
        return sample_in_order(&c, enc, plan_animated(plan), plan->animated_count, t, NULL, cached, &memo, marks, NULL,
                               out, pending, 0);
    lerp_batch_ batch;
    batch.n = 0;
    batch.plain = (marks & MARK_PLAIN) != 0;
    const uint32_t np = sample_in_order(&c, enc, plan_animated(plan), plan->animated_count, t, NULL, cached, &memo, marks,
                                        &batch, out, pending, 0);
    batch_flush(&batch);
    return np;
}

/* bsync_clip_sample_planned (normalize = 1) and bsync_clip_sample_planned_lerp (0). */
static bsync_result sample_planned(const bsync_sample_plan* plan, const bsync_clip* clip, fix16_t time,
                                   bsync_loop_mode mode, bsync_sample_cursor* cursor, int normalize, bsync_trs* out_local) {
    if (!plan || !clip || !out_local) return BSYNC_INVALID_ARGUMENT;
    if (mode != BSYNC_LOOP_CLAMP && mode != BSYNC_LOOP_WRAP) return BSYNC_INVALID_ARGUMENT;
    if (plan->magic != PLAN_MAGIC || plan->fingerprint != clip->fingerprint || plan->track_count != clip->track_count ||
        plan->joint_count != clip->joint_count)
        return BSYNC_MISMATCH;
    const int marks = cursor_marks(cursor, clip);
    if (marks < 0) return BSYNC_MISMATCH;
    const size_t pose_bytes = (size_t)plan->joint_count * sizeof(bsync_trs);
    const size_t plan_bytes = plan_header_bytes() + pose_bytes + (size_t)plan->animated_count * sizeof(uint16_t);
    if ((uintptr_t)out_local < (uintptr_t)plan + plan_bytes && (uintptr_t)plan < (uintptr_t)out_local + pose_bytes)
        return BSYNC_INVALID_ARGUMENT; /* the output over the plan */
    const uint16_t* animated = plan_animated(plan);
    if (plan->animated_count > clip->track_count) return BSYNC_MISMATCH;
    for (uint32_t i = 0; i < plan->animated_count; i++)
        if (animated[i] >= clip->track_count) return BSYNC_MISMATCH; /* a corrupted plan */
    const fix16_t t = local_time(time, clip->duration, mode);
    uint32_t* cached = cursor ? cursor_keys(cursor) : NULL;
    uint16_t pending[BSYNC_MAX_JOINTS]; /* joints whose rotation is normalised at the end (distinct) */
    const uint32_t np = bsync_clip_is_compact_(clip)
                            ? sample_planned_encoded(plan, clip, KEYS_COMPACT, t, cached, marks, out_local, pending)
                            : sample_planned_encoded(plan, clip, KEYS_FULL, t, cached, marks, out_local, pending);
    if (normalize) bsync_simd_normalize_rotations_(out_local, pending, np);
    return BSYNC_OK;
}

bsync_result bsync_clip_sample_planned(const bsync_sample_plan* plan, const bsync_clip* clip, fix16_t time,
                                       bsync_loop_mode mode, bsync_sample_cursor* cursor, bsync_trs* out_local) {
    return sample_planned(plan, clip, time, mode, cursor, 1, out_local);
}

bsync_result bsync_clip_sample_planned_lerp(const bsync_sample_plan* plan, const bsync_clip* clip, fix16_t time,
                                            bsync_loop_mode mode, bsync_sample_cursor* cursor, bsync_trs* out_local) {
    return sample_planned(plan, clip, time, mode, cursor, 0, out_local);
}

/* bsync_clip_sample (normalize = 1) and bsync_clip_sample_lerp (0). */
static bsync_result sample_clip(const bsync_clip* clip, fix16_t time, bsync_loop_mode mode, const bsync_trs* rest,
                                uint32_t joint_count, bsync_sample_cursor* cursor, int normalize, bsync_trs* out_local) {
    if (!clip || !rest || !out_local) return BSYNC_INVALID_ARGUMENT;
    if (mode != BSYNC_LOOP_CLAMP && mode != BSYNC_LOOP_WRAP) return BSYNC_INVALID_ARGUMENT;
    if (joint_count != clip->joint_count) return BSYNC_MISMATCH;
    const int marks = cursor_marks(cursor, clip);
    if (marks < 0) return BSYNC_MISMATCH;
    const fix16_t t = local_time(time, clip->duration, mode);
    uint32_t* cached = cursor ? cursor_keys(cursor) : NULL;
    uint16_t pending[BSYNC_MAX_JOINTS]; /* joints whose rotation is normalised at the end (distinct) */
    const uint32_t np = bsync_clip_is_compact_(clip)
                            ? sample_encoded(clip, KEYS_COMPACT, t, rest, joint_count, cached, marks, out_local, pending)
                            : sample_encoded(clip, KEYS_FULL, t, rest, joint_count, cached, marks, out_local, pending);
    if (normalize) bsync_simd_normalize_rotations_(out_local, pending, np);
    return BSYNC_OK;
}

bsync_result bsync_clip_sample(const bsync_clip* clip, fix16_t time, bsync_loop_mode mode, const bsync_trs* rest,
                               uint32_t joint_count, bsync_sample_cursor* cursor, bsync_trs* out_local) {
    return sample_clip(clip, time, mode, rest, joint_count, cursor, 1, out_local);
}

bsync_result bsync_clip_sample_lerp(const bsync_clip* clip, fix16_t time, bsync_loop_mode mode, const bsync_trs* rest,
                                    uint32_t joint_count, bsync_sample_cursor* cursor, bsync_trs* out_local) {
    return sample_clip(clip, time, mode, rest, joint_count, cursor, 0, out_local);
}

/* One track of one encoding alone (arguments but the output checked). */
static BSYNC_FORCE_INLINE bsync_result sample_one(const bsync_clip* clip, const int enc, uint32_t track, fix16_t t,
                                                  bsync_vec3* out_vec3, bsync_quat* out_rotation) {
    const clip_keys_ c = clip_keys(clip, enc);
    const track_keys_ k = track_keys(&c, enc, track);
    if (k.kind == BSYNC_TRACK_ROTATION ? !out_rotation : !out_vec3) return BSYNC_INVALID_ARGUMENT;
    alpha_memo_ memo = {0, 0, 0};
    bsync_trs x = bsync_trs_identity();
    if (sample_track(&k, enc, t, NULL, NULL, &memo, 0, NULL, &x, NULL)) x.r = bsync_quat_normalize_inl_(x.r, NULL);
    if (k.kind == BSYNC_TRACK_ROTATION) *out_rotation = x.r;
    else *out_vec3 = k.kind == BSYNC_TRACK_TRANSLATION ? x.t : x.s;
    return BSYNC_OK;
}

bsync_result bsync_clip_sample_track_(const bsync_clip* clip, uint32_t track, fix16_t time, bsync_loop_mode mode,
                                      bsync_vec3* out_vec3, bsync_quat* out_rotation) {
    if (!clip || track >= clip->track_count) return BSYNC_INVALID_ARGUMENT;
    if (mode != BSYNC_LOOP_CLAMP && mode != BSYNC_LOOP_WRAP) return BSYNC_INVALID_ARGUMENT;
    const fix16_t t = local_time(time, clip->duration, mode);
    return bsync_clip_is_compact_(clip) ? sample_one(clip, KEYS_COMPACT, track, t, out_vec3, out_rotation)
                                        : sample_one(clip, KEYS_FULL, track, t, out_vec3, out_rotation);
}
