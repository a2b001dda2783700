/* checksum.c — XXH64 (from the xxHash specification) and the canonical blendsync checksums.
 *
 * Bytes are assembled into little-endian words one byte at a time, so the result does not depend
 * on the host's byte order or alignment rules. Every field of a pose, skeleton or clip is fed
 * through the canonical feeders below (little-endian values), never as raw struct memory. */
#include "blendsync/checksum.h"
#include "internal/le.h"

#define P1 ((uint64_t)0x9E3779B185EBCA87ull)
#define P2 ((uint64_t)0xC2B2AE3D27D4EB4Full)
#define P3 ((uint64_t)0x165667B19E3779F9ull)
#define P4 ((uint64_t)0x85EBCA77C2B2AE63ull)
#define P5 ((uint64_t)0x27D4EB2F165667C5ull)

static uint64_t rotl64(uint64_t x, unsigned r) { return (x << r) | (x >> (64u - r)); }

static inline uint64_t xxh_round(uint64_t acc, uint64_t lane) {
    acc += lane * P2;
    acc = rotl64(acc, 31);
    return acc * P1;
}

static uint64_t xxh_merge(uint64_t acc, uint64_t lane_acc) {
    acc ^= xxh_round(0, lane_acc);
    return acc * P1 + P4;
}

static void xxh_stripe(uint64_t acc[4], const uint8_t* p) {
    acc[0] = xxh_round(acc[0], bsync_le_get64(p));
    acc[1] = xxh_round(acc[1], bsync_le_get64(p + 8));
    acc[2] = xxh_round(acc[2], bsync_le_get64(p + 16));
    acc[3] = xxh_round(acc[3], bsync_le_get64(p + 24));
}

void bsync_checksum_init(bsync_checksum_state* state, uint64_t seed) {
    if (!state) return;
    state->acc[0] = seed + P1 + P2;
    state->acc[1] = seed + P2;
    state->acc[2] = seed;
    state->acc[3] = seed - P1;
    state->seed = seed;
    state->total_len = 0;
    for (unsigned i = 0; i < 32; i++) state->buffer[i] = 0;
    state->buffer_len = 0;
    state->pad_ = 0;
}

void bsync_checksum_bytes(bsync_checksum_state* state, const void* data, size_t len) {
    if (!state || len == 0 || !data) return;
    const uint8_t* p = (const uint8_t*)data;
    state->total_len += (uint64_t)len;
    if (state->buffer_len > 0) {
        size_t need = 32u - state->buffer_len;
        size_t take = len < need ? len : need;
        for (size_t i = 0; i < take; i++) state->buffer[state->buffer_len + i] = p[i];
        state->buffer_len += (uint32_t)take;
        p += take;
        len -= take;
        if (state->buffer_len < 32) return;
        xxh_stripe(state->acc, state->buffer);
        state->buffer_len = 0;
    }
    if (len >= 32) { /* the accumulators in locals (registers) across the stripes */
        uint64_t a0 = state->acc[0], a1 = state->acc[1], a2 = state->acc[2], a3 = state->acc[3];
        do {
            a0 = xxh_round(a0, bsync_le_get64(p));
            a1 = xxh_round(a1, bsync_le_get64(p + 8));
            a2 = xxh_round(a2, bsync_le_get64(p + 16));
            a3 = xxh_round(a3, bsync_le_get64(p + 24));
            p += 32;
            len -= 32;
        } while (len >= 32);
        state->acc[0] = a0;
        state->acc[1] = a1;
        state->acc[2] = a2;
        state->acc[3] = a3;
    }
    for (size_t i = 0; i < len; i++) state->buffer[i] = p[i];
    state->buffer_len = (uint32_t)len;
}

uint64_t bsync_checksum_final(const bsync_checksum_state* state) {
    if (!state) return 0;
    uint64_t h;
    if (state->total_len >= 32) {
        h = rotl64(state->acc[0], 1) + rotl64(state->acc[1], 7) + rotl64(state->acc[2], 12) +
            rotl64(state->acc[3], 18);
        h = xxh_merge(h, state->acc[0]);
        h = xxh_merge(h, state->acc[1]);
        h = xxh_merge(h, state->acc[2]);
        h = xxh_merge(h, state->acc[3]);
    } else {
        h = state->seed + P5;
    }
    h += state->total_len;
    const uint8_t* p = state->buffer;
    uint32_t n = state->buffer_len;
    while (n >= 8) {
        h ^= xxh_round(0, bsync_le_get64(p));
        h = rotl64(h, 27) * P1 + P4;
        p += 8;
        n -= 8;
    }
    if (n >= 4) {
        h ^= (uint64_t)bsync_le_get32(p) * P1;
        h = rotl64(h, 23) * P2 + P3;
        p += 4;
        n -= 4;
    }
    while (n > 0) {
        h ^= (uint64_t)(*p) * P5;
        h = rotl64(h, 11) * P1;
        p++;
        n--;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

uint64_t bsync_checksum_xxh64(const void* data, size_t len, uint64_t seed) {
    bsync_checksum_state s;
    bsync_checksum_init(&s, seed);
    bsync_checksum_bytes(&s, data, len);
    return bsync_checksum_final(&s);
}

/* ---------------------------------------------------------------- canonical feeders */

void bsync_checksum_u32(bsync_checksum_state* state, uint32_t v) {
    uint8_t b[4];
    for (unsigned i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8u * i));
    bsync_checksum_bytes(state, b, 4);
}
void bsync_checksum_i32(bsync_checksum_state* state, int32_t v) { bsync_checksum_u32(state, (uint32_t)v); }
void bsync_checksum_u64(bsync_checksum_state* state, uint64_t v) {
    uint8_t b[8];
    for (unsigned i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8u * i));
    bsync_checksum_bytes(state, b, 8);
}
void bsync_checksum_i64(bsync_checksum_state* state, int64_t v) { bsync_checksum_u64(state, (uint64_t)v); }
void bsync_checksum_fx(bsync_checksum_state* state, fix16_t v) { bsync_checksum_u32(state, (uint32_t)v); }
void bsync_checksum_vec3(bsync_checksum_state* state, bsync_vec3 v) {
    bsync_checksum_fx(state, v.x);
    bsync_checksum_fx(state, v.y);
    bsync_checksum_fx(state, v.z);
}
void bsync_checksum_quat(bsync_checksum_state* state, bsync_quat q) {
    bsync_checksum_fx(state, q.x);
    bsync_checksum_fx(state, q.y);
    bsync_checksum_fx(state, q.z);
    bsync_checksum_fx(state, q.w);
}
void bsync_checksum_trs(bsync_checksum_state* state, const bsync_trs* x) {
    if (!x) return;
    bsync_checksum_vec3(state, x->t);
    bsync_checksum_quat(state, x->r);
    bsync_checksum_vec3(state, x->s);
}

/* ---------------------------------------------------------------- objects */

/* The bytes bsync_checksum_trs feeds for x (40: t, r, s as little-endian fix16), into b. */
static void put_trs(uint8_t* b, const bsync_trs* x) {
    const fix16_t v[10] = {x->t.x, x->t.y, x->t.z, x->r.x, x->r.y, x->r.z, x->r.w, x->s.x, x->s.y, x->s.z};
    for (unsigned i = 0; i < 10; i++) bsync_le_put32(b + 4u * i, (uint32_t)v[i]);
}

/* The same bytes as feeding the count and then every joint through bsync_checksum_trs (XXH64 does
 * not depend on how its input is split into calls), assembled 16 joints at a time so that whole
 * 32-byte stripes are hashed directly instead of 4 bytes per call through the buffer. */
uint64_t bsync_checksum_pose(const bsync_trs* pose, uint32_t joint_count) {
    if (!pose && joint_count > 0) return 0;
    bsync_checksum_state s;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_POSE);
    uint8_t buf[4 + 16 * 40];
    bsync_le_put32(buf, joint_count);
    size_t len = 4;
    for (uint32_t j = 0; j < joint_count; j++) {
        put_trs(buf + len, &pose[j]);
        len += 40;
        if (len + 40 > sizeof buf) {
            bsync_checksum_bytes(&s, buf, len);
            len = 0;
        }
    }
    bsync_checksum_bytes(&s, buf, len);
    return bsync_checksum_final(&s);
}

void bsync_checksum_pose_joints(const bsync_trs* pose, uint32_t joint_count, uint64_t* out_per_joint) {
    if (!pose || !out_per_joint) return;
    for (uint32_t j = 0; j < joint_count; j++) {
        bsync_checksum_state s;
        bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_JOINT);
        bsync_checksum_u32(&s, j);
        bsync_checksum_trs(&s, &pose[j]);
        out_per_joint[j] = bsync_checksum_final(&s);
    }
}

/* Length of a NUL-terminated name, at most BSYNC_MAX_NAME - 1 bytes read before the terminator. */
static uint32_t name_length(const char* name) {
    uint32_t n = 0;
    if (!name) return 0;
    while (n < BSYNC_MAX_NAME - 1 && name[n] != '\0') n++;
    return n;
}

static void feed_name(bsync_checksum_state* s, const char* name) {
    uint32_t n = name_length(name);
    bsync_checksum_u32(s, n);
    if (n > 0) bsync_checksum_bytes(s, name, n);
}

uint64_t bsync_checksum_skeleton(const bsync_skeleton* skeleton) {
    if (!skeleton) return 0;
    uint32_t n = bsync_skeleton_joint_count(skeleton);
    const bsync_trs* rest = bsync_skeleton_rest_pose(skeleton);
    bsync_checksum_state s;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_SKELETON);
    bsync_checksum_u32(&s, n);
    for (uint32_t j = 0; j < n; j++) {
        feed_name(&s, bsync_skeleton_joint_name(skeleton, j));
        bsync_checksum_i32(&s, bsync_skeleton_parent(skeleton, j));
        bsync_checksum_trs(&s, &rest[j]);
    }
    return bsync_checksum_final(&s);
}

uint64_t bsync_checksum_clip(const bsync_clip* clip) {
    if (!clip) return 0;
    bsync_checksum_state s;
    bsync_checksum_init(&s, BSYNC_CHECKSUM_SEED_CLIP);
    feed_name(&s, bsync_clip_name(clip));
    bsync_checksum_fx(&s, bsync_clip_duration(clip));
    bsync_checksum_u32(&s, bsync_clip_loops(clip) ? 1u : 0u);
    bsync_checksum_u32(&s, bsync_clip_joint_count(clip));
    uint32_t tracks = bsync_clip_track_count(clip);
    bsync_checksum_u32(&s, tracks);
    for (uint32_t t = 0; t < tracks; t++) {
        bsync_track_info info;
        if (bsync_clip_track_info(clip, t, &info) != BSYNC_OK) return 0; /* cannot happen for t < count */
        bsync_checksum_u32(&s, info.joint);
        bsync_checksum_u32(&s, (uint32_t)info.kind);
        bsync_checksum_u32(&s, info.key_count);
        /* the keys as sampling sees them (decoded for a compact clip; bsync_clip_track_key) */
        for (uint32_t k = 0; k < info.key_count; k++) {
            fix16_t time = 0;
            bsync_clip_track_key(clip, t, k, &time, NULL, NULL);
            bsync_checksum_fx(&s, time);
        }
        for (uint32_t k = 0; k < info.key_count; k++) {
            bsync_quat q = bsync_quat_identity();
            bsync_vec3 v = bsync_vec3_make(0, 0, 0);
            bsync_clip_track_key(clip, t, k, NULL, &v, &q);
            if (info.kind == BSYNC_TRACK_ROTATION)
                bsync_checksum_quat(&s, q);
            else
                bsync_checksum_vec3(&s, v);
        }
    }
    /* the encoding, for compact clips only (default clips keep their checksums) */
    if (bsync_clip_encoding(clip) != 0) bsync_checksum_u32(&s, 0x43504B31u ^ bsync_clip_encoding(clip));
    return bsync_checksum_final(&s);
}
