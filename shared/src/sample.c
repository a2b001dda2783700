/* sample.c — sampling a clip into a local pose; the optional per-instance key cursor.
 *
 * Key search: for a time strictly inside a track's key range, the interval is the unique k with
 * times[k] <= t < times[k+1]. Without a cursor it is found by binary search (O(log keys)); with a
 * cursor the remembered k (and then k+1) is checked first (O(1) for playback moving forward by less
 * than a key per call), falling back to the binary search. Both find the same unique k, so results
 * never depend on the cursor.
 *
 * Shared key times: when every track of the clip has the same key times (content, checked once at
 * cursor init; baked clips, BVH and the procedural character are like this), the interval and the
 * interpolation weight are the same for every track, so a cursor marked so locates once per call
 * (with track 0's times and cursor entry) and then walks the tracks in their stored order, writing
 * each component over a copy of the rest pose. Every value is computed by the same expressions from
 * the same (k, exact, alpha) as the per-track search would find, so the result is the same bits.
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
 * rest transform before writing it. Every component is the same expression of the same values either
 * way.
 *
 * Rotations are normalised in one batch at the end of the call (bsync_simd_normalize_rotations_,
 * blendsync/simd.h: every path gives bsync_quat_normalize's bits): the lerps and held keys that need
 * it are written first and their joints listed. The lerp samplers (pose rule 2) are the same calls
 * without that batch: what they write for a listed joint is exactly what the batch would normalise.
 *
 * One track alone (bsync_clip_sample_track_, internal/sample_impl.h; root motion samples the root
 * joint's tracks this way): the same local_time, locate and interpolation expressions without a
 * cursor, so the same bits as the track's component of a full sample. */
#include "blendsync/sample.h"

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

/* k with times[k] <= t < times[k+1], for times[0] < t < times[n-1] (so n >= 2). */
static uint32_t search(const fix16_t* times, uint32_t n, fix16_t t) {
    uint32_t lo = 0, hi = n - 1; /* invariant: times[lo] <= t < times[hi] */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (times[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* The cursor entry's interval: 1 with times[*out] <= t < times[*out + 1] when that holds for the entry's
 * key or the next one (storing the next one), else 0 with nothing stored. Any entry is range-checked. */
static BSYNC_FORCE_INLINE int cursor_interval(const fix16_t* times, uint32_t n, fix16_t t, uint32_t* cached,
                                              uint32_t* out) {
    const uint32_t k = *cached;
    if (k >= n - 1 || times[k] > t) return 0; /* n >= 1: a one-key track never holds an entry's interval */
    if (t < times[k + 1]) {
        *out = k;
        return 1;
    }
    if (k + 2 < n && t < times[k + 2]) {
        *cached = *out = k + 1;
        return 1;
    }
    return 0;
}

/* Position of t within the track: *k and *alpha for the interpolation, or returns the key index to
 * copy exactly (first key before the range, last key after it, key k exactly at times[k]). */
typedef struct locate_ {
    uint32_t k;
    int exact;     /* nonzero: use key k as is */
    fix16_t alpha; /* between keys k and k+1 */
} locate_;

/* The last interpolation weight computed in one bsync_clip_sample call (t is fixed there): alpha is
 * a function of (t, times[k], times[k+1]) only, and the tracks of a clip usually share their key
 * times, so a track whose interval has the same two key times reuses it instead of dividing again. */
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

static BSYNC_FORCE_INLINE locate_ locate(const fix16_t* times, uint32_t n, fix16_t t, uint32_t* cached, alpha_memo_* memo) {
    locate_ l = {0, 1, 0};
    uint32_t k;
    /* the cursor first: an interval it holds is inside the keys (times[k] <= t < times[k+1] <= the last
     * time; t = times[0] only as the exact key 0), so the ends need no check then */
    if (!cached || !cursor_interval(times, n, t, cached, &k)) {
        if (t <= times[0]) return l;
        if (t >= times[n - 1]) {
            l.k = n - 1;
            return l;
        }
        k = search(times, n, t);
        if (cached) *cached = k;
    }
    l.k = k;
    if (t == times[k]) return l;
    l.exact = 0;
    l.alpha = interval_alpha(t, times[k], times[k + 1], memo);
    return l;
}

/* The interpolation of two keys (internal/rotation_lerp.h). The lerp of two rotation keys is returned
 * not yet normalised (`*pending` = 1, always): the caller normalises it (in a batch,
 * bsync_simd_normalize_rotations_, the same function on every path, so bsync_quat_nlerp's bits), or
 * keeps it as it is for the lerp samplers (pose rule 2, sample.h). */
static BSYNC_FORCE_INLINE bsync_quat nlerp_keys(bsync_quat a, bsync_quat b, fix16_t t, int plain, int* pending) {
    *pending = 1;
    return bsync_keys_nlerp_(a, b, t, plain);
}

/* Equal keys: a two-key track whose keys hold the same value (the held translations and scales of
 * most joints in key-reduced clips, e.g. ozz's runtime data) samples to that value at every time for
 * translation and scale: bsync_fx_lerp(a, a, t) = a + round(0) = a. For rotation: the key itself at
 * or outside the keys, and strictly between them nlerp(q, q, alpha) = normalize(q): the exact dot
 * q.q is positive (no hemisphere flip) and each lerp of equal components is exact (bsync_key_lerp_ and
 * bsync_fx_lerp both give a), so what is normalised is q itself. So the interval search, the
 * interpolation weight and the lerps are skipped with the same bits (tests/unit/test_sample_rule.c
 * compares with sample.h's rule written out from the public functions). */
static BSYNC_FORCE_INLINE int vec3_equal(bsync_vec3 a, bsync_vec3 b) {
    return ((a.x ^ b.x) | (a.y ^ b.y) | (a.z ^ b.z)) == 0;
}
static BSYNC_FORCE_INLINE int quat_equal(bsync_quat a, bsync_quat b) {
    return ((a.x ^ b.x) | (a.y ^ b.y) | (a.z ^ b.z) | (a.w ^ b.w)) == 0;
}

/* The batch of interpolated rotations (bsync_simd_lerp_rotations_, internal/simd_impl.h): the planned
 * sampler hands sample_one_track one, and every rotation strictly between two keys whose weight is
 * strictly between 0 and 1 is listed there instead of interpolated at once; the batch writes what
 * nlerp_keys would (the same keys, weight and `plain`), in vector lanes on the x86 paths, when it is
 * full and at the end of the call. */
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

/* Track ti of the clip at clip-local time t into its joint's component of out (the track-order loop and
 * the planned sampling): returns 1 and lists the joint in *pending when the rotation written still needs
 * the normalisation, else 0. */
static BSYNC_FORCE_INLINE uint32_t sample_one_track(const bsync_clip* clip, const bsync_clip_track_* tr, uint32_t ti,
                                                    fix16_t t, uint32_t* cached, alpha_memo_* memo, int plain,
                                                    int held_unit, lerp_batch_* batch, bsync_trs* out, uint16_t* pending) {
    const fix16_t* times = bsync_clip_times_(clip, tr);
    bsync_trs* x = &out[tr->joint];
    if (tr->kind == BSYNC_TRACK_ROTATION) {
        const bsync_quat* q = bsync_clip_quats_(clip, tr);
        int pend = 0;
        if (tr->key_count == 2 && quat_equal(q[0], q[1])) { /* a held rotation: see "Equal keys" */
            x->r = q[0];
            pend = !held_unit && t > times[0] && t < times[1]; /* then normalize(q[0]): below */
        } else {
            const locate_ l = locate(times, tr->key_count, t, cached ? &cached[ti] : NULL, memo);
            if (l.exact) {
                x->r = q[l.k];
            } else if (batch && l.alpha > 0 && l.alpha < BSYNC_FX_ONE) { /* written by the batch, not normalised */
                batch_add(batch, &q[l.k], &x->r, l.alpha);
                pend = 1;
            } else {
                x->r = nlerp_keys(q[l.k], q[l.k + 1], l.alpha, plain, &pend);
            }
        }
        *pending = (uint16_t)tr->joint;
        return pend ? 1u : 0u;
    }
    const bsync_vec3* v = bsync_clip_vec3s_(clip, tr);
    bsync_vec3 value;
    if (tr->key_count == 2 && vec3_equal(v[0], v[1])) { /* a held value: see "Equal keys" */
        value = v[0];
    } else {
        const locate_ l = locate(times, tr->key_count, t, cached ? &cached[ti] : NULL, memo);
        value = l.exact ? v[l.k] : bsync_vec3_lerp(v[l.k], v[l.k + 1], l.alpha);
    }
    if (tr->kind == BSYNC_TRACK_TRANSLATION) x->t = value;
    else x->s = value;
    return 0;
}


/* ---------------------------------------------------------------- compact clips (block version 2)
 * The same policy as above over decoded keys: key time k of a track is the time table's entry at
 * its u16 index (internal/clip_block.h), so locate_c finds the same (k, exact, alpha) as locate would
 * over the decoded times, and each value is the same expression of the decoded keys as for a
 * default clip: a compact clip samples exactly like a default clip whose keys are its decoded keys
 * (tests/unit/test_clip_compact.c builds that clip and compares). Keys are decoded with integer
 * arithmetic only (bsync_clip_cquat_decode_, bsync_clip_cvec3_decode_), two per animated track. */
static BSYNC_FORCE_INLINE fix16_t ctime_at(const uint16_t* table, const uint16_t* idx, uint32_t k) {
    return bsync_clip_ctime_(table, idx[k]);
}

static uint32_t search_c(const uint16_t* table, const uint16_t* idx, uint32_t n, fix16_t t) {
    uint32_t lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ctime_at(table, idx, mid) <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}

static BSYNC_FORCE_INLINE locate_ locate_c(const uint16_t* table, const uint16_t* idx, uint32_t n, fix16_t t,
                                           uint32_t* cached, alpha_memo_* memo) {
    locate_ l = {0, 1, 0};
    if (t <= ctime_at(table, idx, 0)) return l;
    if (t >= ctime_at(table, idx, n - 1)) {
        l.k = n - 1;
        return l;
    }
    uint32_t k;
    if (cached && *cached < n - 1 && ctime_at(table, idx, *cached) <= t && t < ctime_at(table, idx, *cached + 1)) {
        k = *cached;
    } else if (cached && *cached < n - 2 && ctime_at(table, idx, *cached) <= t && t < ctime_at(table, idx, *cached + 2)) {
        k = *cached + 1;
        *cached = k;
    } else {
        k = search_c(table, idx, n, t);
        if (cached) *cached = k;
    }
    l.k = k;
    const fix16_t lo = ctime_at(table, idx, k);
    if (t == lo) return l;
    l.exact = 0;
    l.alpha = interval_alpha(t, lo, ctime_at(table, idx, k + 1), memo);
    return l;
}

/* Compact track tr at clip-local time t into x (its joint's transform): 1 when x->r still needs the
 * normalisation (listed by the caller), else 0. */
static BSYNC_FORCE_INLINE uint32_t sample_ctrack(const bsync_clip* clip, const uint16_t* table,
                                                 const bsync_clip_ctrack_* tr, fix16_t t, uint32_t* cached,
                                                 alpha_memo_* memo, bsync_trs* x) {
    const uint32_t flags = tr->flags, kind = flags & BSYNC_CTRACK_KIND_MASK;
    const uint16_t* blob = bsync_ctrack_values_(clip, tr);
    const locate_ l = locate_c(table, bsync_ctrack_times_(clip, tr), tr->key_count, t, cached, memo);
    if (kind == BSYNC_TRACK_ROTATION) {
        if (flags & BSYNC_CTRACK_CONST) { /* equal keys: q, or normalize(q) strictly between ("Equal keys") */
            x->r = bsync_clip_cquat_decode_(blob);
            return l.exact ? 0u : 1u;
        }
        if (l.exact) {
            x->r = bsync_clip_cquat_at_(blob, flags, l.k);
            return 0;
        }
        int pend = 0;
        x->r = nlerp_keys(bsync_clip_cquat_at_(blob, flags, l.k), bsync_clip_cquat_at_(blob, flags, l.k + 1), l.alpha, 0,
                          &pend);
        return pend ? 1u : 0u;
    }
    bsync_vec3 v;
    if ((flags & BSYNC_CTRACK_CONST) || l.exact) v = bsync_clip_cvec3_decode_(blob, flags, l.k);
    else v = bsync_vec3_lerp(bsync_clip_cvec3_decode_(blob, flags, l.k), bsync_clip_cvec3_decode_(blob, flags, l.k + 1), l.alpha);
    if (kind == BSYNC_TRACK_TRANSLATION) x->t = v;
    else x->s = v;
    return 0;
}

static const uint16_t* ctable(const bsync_clip* clip) {
    return bsync_clip_words_(clip, bsync_clip_compact_header_(clip)->time_table_offset);
}

/* bsync_clip_sample for a compact clip (arguments checked): tracks in stored order over a copy of the
 * rest pose, or, when out partly overlaps rest, joint by joint (tracks are sorted by joint). */
static void sample_compact(const bsync_clip* clip, fix16_t t, const bsync_trs* rest, uint32_t joint_count,
                           uint32_t* cached, int normalize, bsync_trs* out_local) {
    const bsync_clip_ctrack_* tracks = bsync_clip_ctracks_(clip);
    const uint16_t* table = ctable(clip);
    alpha_memo_ memo = {0, 0, 0};
    uint16_t pending[BSYNC_MAX_JOINTS];
    uint32_t np = 0;
    const size_t pose_bytes = (size_t)joint_count * sizeof(bsync_trs);
    if (out_local == rest || (uintptr_t)out_local + pose_bytes <= (uintptr_t)rest ||
        (uintptr_t)rest + pose_bytes <= (uintptr_t)out_local) {
        if (out_local != rest) memcpy(out_local, rest, pose_bytes);
        for (uint32_t ti = 0; ti < clip->track_count; ti++) {
            const bsync_clip_ctrack_* tr = &tracks[ti];
            if (sample_ctrack(clip, table, tr, t, cached ? &cached[ti] : NULL, &memo, &out_local[tr->joint]))
                pending[np++] = tr->joint;
        }
    } else {
        uint32_t ti = 0;
        for (uint32_t j = 0; j < joint_count; j++) {
            bsync_trs x = rest[j]; /* read before writing: out_local may overlap rest */
            int pend = 0;
            for (; ti < clip->track_count && tracks[ti].joint == j; ti++)
                pend |= (int)sample_ctrack(clip, table, &tracks[ti], t, cached ? &cached[ti] : NULL, &memo, &x);
            if (pend) pending[np++] = (uint16_t)j;
            out_local[j] = x;
        }
    }
    if (normalize) bsync_simd_normalize_rotations_(out_local, pending, np);
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

/* Is track tr constant over time, with the value the base pose gets? One key; or two equal keys of a
 * translation or scale (always v[0], "Equal keys"); or two equal rotation keys q with normalize(q) == q
 * (q at and outside the keys, normalize(q) strictly between: both q). */
static int ctrack_constant(const bsync_clip* clip, const bsync_clip_ctrack_* tr) {
    if (tr->key_count == 1) return 1;
    if (tr->key_count != 2) return 0;
    const uint16_t* blob = bsync_ctrack_values_(clip, tr);
    if ((tr->flags & BSYNC_CTRACK_KIND_MASK) == BSYNC_TRACK_ROTATION) {
        const bsync_quat q0 = bsync_clip_cquat_at_(blob, tr->flags, 0), q1 = bsync_clip_cquat_at_(blob, tr->flags, 1);
        return quat_equal(q0, q1) && quat_equal(bsync_quat_normalize_inl_(q0, NULL), q0);
    }
    return vec3_equal(bsync_clip_cvec3_decode_(blob, tr->flags, 0), bsync_clip_cvec3_decode_(blob, tr->flags, 1));
}

static int track_constant(const bsync_clip* clip, const bsync_clip_track_* tr) {
    if (tr->key_count == 1) return 1;
    if (tr->key_count != 2) return 0;
    if (tr->kind == BSYNC_TRACK_ROTATION) {
        const bsync_quat* q = bsync_clip_quats_(clip, tr);
        if (!quat_equal(q[0], q[1])) return 0;
        return quat_equal(bsync_quat_normalize_inl_(q[0], NULL), q[0]);
    }
    const bsync_vec3* v = bsync_clip_vec3s_(clip, tr);
    return vec3_equal(v[0], v[1]);
}

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

static uint32_t count_animated(const bsync_clip* clip) {
    uint32_t n = 0;
    if (bsync_clip_is_compact_(clip)) {
        for (uint32_t i = 0; i < clip->track_count; i++) n += !ctrack_constant(clip, &bsync_clip_ctracks_(clip)[i]);
        return n;
    }
    const bsync_clip_track_* tracks = bsync_clip_tracks_(clip);
    for (uint32_t i = 0; i < clip->track_count; i++) n += !track_constant(clip, &tracks[i]);
    return n;
}

size_t bsync_sample_plan_memory_size(const bsync_clip* clip) {
    if (!clip) return 0;
    const size_t n = plan_header_bytes() + (size_t)clip->joint_count * sizeof(bsync_trs) +
                     (size_t)count_animated(clip) * sizeof(uint16_t);
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
    uint16_t* animated = plan_animated(p);
    memcpy(base, rest, (size_t)joint_count * sizeof(bsync_trs));
    uint32_t n = 0;
    if (bsync_clip_is_compact_(clip)) {
        for (uint32_t i = 0; i < clip->track_count; i++) {
            const bsync_clip_ctrack_* tr = &bsync_clip_ctracks_(clip)[i];
            if (!ctrack_constant(clip, tr)) {
                animated[n++] = (uint16_t)i;
                continue;
            }
            bsync_trs* x = &base[tr->joint];
            const uint16_t* blob = bsync_ctrack_values_(clip, tr);
            const uint32_t kind = tr->flags & BSYNC_CTRACK_KIND_MASK;
            if (kind == BSYNC_TRACK_ROTATION) x->r = bsync_clip_cquat_at_(blob, tr->flags, 0);
            else if (kind == BSYNC_TRACK_TRANSLATION) x->t = bsync_clip_cvec3_decode_(blob, tr->flags, 0);
            else x->s = bsync_clip_cvec3_decode_(blob, tr->flags, 0);
        }
        p->animated_count = n;
        *out = p;
        return BSYNC_OK;
    }
    const bsync_clip_track_* tracks = bsync_clip_tracks_(clip);
    for (uint32_t i = 0; i < clip->track_count; i++) {
        const bsync_clip_track_* tr = &tracks[i];
        if (!track_constant(clip, tr)) {
            animated[n++] = (uint16_t)i;
            continue;
        }
        bsync_trs* x = &base[tr->joint];
        if (tr->kind == BSYNC_TRACK_ROTATION) x->r = bsync_clip_quats_(clip, tr)[0];
        else if (tr->kind == BSYNC_TRACK_TRANSLATION) x->t = bsync_clip_vec3s_(clip, tr)[0];
        else x->s = bsync_clip_vec3s_(clip, tr)[0];
    }
    p->animated_count = n;
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

/* bsync_clip_sample_planned (normalize = 1) and bsync_clip_sample_planned_lerp (0). */
static bsync_result sample_planned(const bsync_sample_plan* plan, const bsync_clip* clip, fix16_t time,
                                   bsync_loop_mode mode, bsync_sample_cursor* cursor, int normalize, bsync_trs* out_local) {
    if (!plan || !clip || !out_local) return BSYNC_INVALID_ARGUMENT;
    if (mode != BSYNC_LOOP_CLAMP && mode != BSYNC_LOOP_WRAP) return BSYNC_INVALID_ARGUMENT;
    if (plan->magic != PLAN_MAGIC || plan->fingerprint != clip->fingerprint || plan->track_count != clip->track_count ||
        plan->joint_count != clip->joint_count)
        return BSYNC_MISMATCH;
    const int marks = cursor ? tag_marks(cursor) : 0; /* -1: a corrupted tag */
    if (cursor && (cursor->magic != CURSOR_MAGIC || cursor->track_count != clip->track_count ||
                   cursor->fingerprint != clip->fingerprint || marks < 0))
        return BSYNC_MISMATCH;
    const size_t pose_bytes = (size_t)plan->joint_count * sizeof(bsync_trs);
    const size_t plan_bytes = plan_header_bytes() + pose_bytes + (size_t)plan->animated_count * sizeof(uint16_t);
    if ((uintptr_t)out_local < (uintptr_t)plan + plan_bytes && (uintptr_t)plan < (uintptr_t)out_local + pose_bytes)
        return BSYNC_INVALID_ARGUMENT; /* the output over the plan */
    const int plain = (marks & MARK_PLAIN) != 0;
    const int held_unit = (marks & MARK_HELD_UNIT) != 0;
    const fix16_t t = local_time(time, clip->duration, mode);
    const bsync_clip_track_* tracks = bsync_clip_tracks_(clip);
    uint32_t* cached = cursor ? cursor_keys(cursor) : NULL;
    alpha_memo_ memo = {0, 0, 0};
    uint16_t pending[BSYNC_MAX_JOINTS];
    uint32_t np = 0;
    const uint16_t* animated = plan_animated(plan);
    if (plan->animated_count > clip->track_count) return BSYNC_MISMATCH;
    for (uint32_t i = 0; i < plan->animated_count; i++)
        if (animated[i] >= clip->track_count) return BSYNC_MISMATCH; /* a corrupted plan */
    bsync_simd_copy_(out_local, plan_base(plan), pose_bytes); /* disjoint (checked above) */
    if (bsync_clip_is_compact_(clip)) {
        const bsync_clip_ctrack_* ct = bsync_clip_ctracks_(clip);
        const uint16_t* table = ctable(clip);
        for (uint32_t i = 0; i < plan->animated_count; i++) {
            const uint32_t ti = animated[i];
            if (sample_ctrack(clip, table, &ct[ti], t, cached ? &cached[ti] : NULL, &memo, &out_local[ct[ti].joint]))
                pending[np++] = ct[ti].joint;
        }
        if (normalize) bsync_simd_normalize_rotations_(out_local, pending, np);
        return BSYNC_OK;
    }
    lerp_batch_ batch;
    batch.n = 0;
    batch.plain = plain;
    for (uint32_t i = 0; i < plan->animated_count; i++) {
        const uint32_t ti = animated[i];
        np += sample_one_track(clip, &tracks[ti], ti, t, cached, &memo, plain, held_unit, &batch, out_local, &pending[np]);
    }
    batch_flush(&batch);
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
    const int marks = cursor ? tag_marks(cursor) : 0; /* -1: a corrupted tag */
    if (cursor && (cursor->magic != CURSOR_MAGIC || cursor->track_count != clip->track_count ||
                   cursor->fingerprint != clip->fingerprint || marks < 0))
        return BSYNC_MISMATCH;
    const int plain = (marks & MARK_PLAIN) != 0;
    const int held_unit = (marks & MARK_HELD_UNIT) != 0;

    const fix16_t t = local_time(time, clip->duration, mode);
    if (bsync_clip_is_compact_(clip)) {
        sample_compact(clip, t, rest, joint_count, cursor ? cursor_keys(cursor) : NULL, normalize, out_local);
        return BSYNC_OK;
    }
    const bsync_clip_track_* tracks = bsync_clip_tracks_(clip);
    const int16_t* lookup = bsync_clip_lookup_(clip);
    uint32_t* cached = cursor ? cursor_keys(cursor) : NULL;
    alpha_memo_ memo = {0, 0, 0}; /* lo == hi: matches no interval */
    uint16_t pending[BSYNC_MAX_JOINTS]; /* joints whose rotation is normalised at the end (distinct) */
    uint32_t np = 0;

    const size_t pose_bytes = (size_t)joint_count * sizeof(bsync_trs);
    if ((marks & MARK_SHARED) != 0 &&
        (out_local == rest || (uintptr_t)out_local + pose_bytes <= (uintptr_t)rest ||
         (uintptr_t)rest + pose_bytes <= (uintptr_t)out_local)) {
        if (out_local != rest) memcpy(out_local, rest, pose_bytes); /* the ranges do not overlap (checked above) */
        const locate_ l = locate(bsync_clip_times_(clip, &tracks[0]), tracks[0].key_count, t, &cached[0], &memo);
        for (uint32_t ti = 0; ti < clip->track_count; ti++) {
            const bsync_clip_track_* tr = &tracks[ti];
            bsync_trs* x = &out_local[tr->joint];
            if (tr->kind == BSYNC_TRACK_ROTATION) {
                const bsync_quat* q = bsync_clip_quats_(clip, tr);
                int pend = 0;
                if (l.exact) {
                    x->r = q[l.k];
                } else if (quat_equal(q[l.k], q[l.k + 1])) {
                    x->r = q[l.k]; /* normalize(q): below */
                    pend = 1;
                } else {
                    x->r = nlerp_keys(q[l.k], q[l.k + 1], l.alpha, plain, &pend);
                }
                if (pend) pending[np++] = (uint16_t)tr->joint;
            } else {
                const bsync_vec3* v = bsync_clip_vec3s_(clip, tr);
                const bsync_vec3 value = l.exact || vec3_equal(v[l.k], v[l.k + 1])
                                             ? v[l.k]
                                             : bsync_vec3_lerp(v[l.k], v[l.k + 1], l.alpha);
                if (tr->kind == BSYNC_TRACK_TRANSLATION) x->t = value;
                else x->s = value;
            }
        }
        if (normalize) bsync_simd_normalize_rotations_(out_local, pending, np);
        return BSYNC_OK;
    }

    if (out_local == rest || (uintptr_t)out_local + pose_bytes <= (uintptr_t)rest ||
        (uintptr_t)rest + pose_bytes <= (uintptr_t)out_local) {
        /* Tracks in their stored order over a copy of the rest pose (no per-joint lookup): the same
         * expressions per track as the per-joint loop below, so the same bits. */
        if (out_local != rest) memcpy(out_local, rest, pose_bytes); /* the ranges do not overlap (checked above) */
        for (uint32_t ti = 0; ti < clip->track_count; ti++)
            np += sample_one_track(clip, &tracks[ti], ti, t, cached, &memo, plain, held_unit, NULL, out_local, &pending[np]);
        if (normalize) bsync_simd_normalize_rotations_(out_local, pending, np);
        return BSYNC_OK;
    }

    for (uint32_t j = 0; j < joint_count; j++) {
        bsync_trs x = rest[j]; /* read before writing: out_local may equal rest */
        const int16_t* slots = &lookup[j * 3u];
        for (uint32_t kind = 0; kind < 3; kind++) {
            if (slots[kind] < 0) continue;
            const uint32_t ti = (uint32_t)slots[kind];
            const bsync_clip_track_* tr = &tracks[ti];
            const fix16_t* times = bsync_clip_times_(clip, tr);
            if (kind == BSYNC_TRACK_ROTATION) {
                const bsync_quat* q = bsync_clip_quats_(clip, tr);
                int pend = 0;
                if (tr->key_count == 2 && quat_equal(q[0], q[1])) { /* a held rotation: see "Equal keys" */
                    x.r = q[0];
                    pend = !held_unit && t > times[0] && t < times[1]; /* then normalize(q[0]): below */
                } else {
                    const locate_ l = locate(times, tr->key_count, t, cached ? &cached[ti] : NULL, &memo);
                    if (l.exact) x.r = q[l.k];
                    else x.r = nlerp_keys(q[l.k], q[l.k + 1], l.alpha, plain, &pend);
                }
                if (pend) pending[np++] = (uint16_t)j;
            } else {
                const bsync_vec3* v = bsync_clip_vec3s_(clip, tr);
                bsync_vec3 value;
                if (tr->key_count == 2 && vec3_equal(v[0], v[1])) { /* a held value: see "Equal keys" */
                    value = v[0];
                } else {
                    const locate_ l = locate(times, tr->key_count, t, cached ? &cached[ti] : NULL, &memo);
                    value = l.exact ? v[l.k] : bsync_vec3_lerp(v[l.k], v[l.k + 1], l.alpha);
                }
                if (kind == BSYNC_TRACK_TRANSLATION) x.t = value;
                else x.s = value;
            }
        }
        out_local[j] = x;
    }
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

bsync_result bsync_clip_sample_track_(const bsync_clip* clip, uint32_t track, fix16_t time, bsync_loop_mode mode,
                                      bsync_vec3* out_vec3, bsync_quat* out_rotation) {
    if (!clip || track >= clip->track_count) return BSYNC_INVALID_ARGUMENT;
    if (mode != BSYNC_LOOP_CLAMP && mode != BSYNC_LOOP_WRAP) return BSYNC_INVALID_ARGUMENT;
    if (bsync_clip_is_compact_(clip)) {
        const bsync_clip_ctrack_* ct = &bsync_clip_ctracks_(clip)[track];
        const uint32_t kind = ct->flags & BSYNC_CTRACK_KIND_MASK;
        if (kind == BSYNC_TRACK_ROTATION ? !out_rotation : !out_vec3) return BSYNC_INVALID_ARGUMENT;
        alpha_memo_ memo = {0, 0, 0};
        bsync_trs x = bsync_trs_identity();
        if (sample_ctrack(clip, ctable(clip), ct, local_time(time, clip->duration, mode), NULL, &memo, &x))
            x.r = bsync_quat_normalize_inl_(x.r, NULL);
        if (kind == BSYNC_TRACK_ROTATION) *out_rotation = x.r;
        else *out_vec3 = kind == BSYNC_TRACK_TRANSLATION ? x.t : x.s;
        return BSYNC_OK;
    }
    const bsync_clip_track_* tr = &bsync_clip_tracks_(clip)[track];
    if (tr->kind == BSYNC_TRACK_ROTATION ? !out_rotation : !out_vec3) return BSYNC_INVALID_ARGUMENT;
    const fix16_t t = local_time(time, clip->duration, mode);
    alpha_memo_ memo = {0, 0, 0};
    const locate_ l = locate(bsync_clip_times_(clip, tr), tr->key_count, t, NULL, &memo);
    if (tr->kind == BSYNC_TRACK_ROTATION) {
        const bsync_quat* q = bsync_clip_quats_(clip, tr);
        int pend = 0;
        *out_rotation = l.exact ? q[l.k] : nlerp_keys(q[l.k], q[l.k + 1], l.alpha, 0, &pend);
        if (pend) *out_rotation = bsync_quat_normalize_inl_(*out_rotation, NULL);
    } else {
        const bsync_vec3* v = bsync_clip_vec3s_(clip, tr);
        *out_vec3 = l.exact ? v[l.k] : bsync_vec3_lerp(v[l.k], v[l.k + 1], l.alpha);
    }
    return BSYNC_OK;
}
