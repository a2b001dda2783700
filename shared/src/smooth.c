/* smooth.c — SmoothDamp in fixed point (contract and formulation: blendsync/smooth.h,
 * docs/parameters.md). */
#include "blendsync/smooth.h"
#include "internal/wide_math.h"

#define Q32_ONE ((int64_t)1 << 32)
#define MAX_CHANGE_CAP ((int64_t)1 << 50) /* Q32 units; |current - target| < 2^48 Q32: a larger limit never binds */
#define STATE_MAX ((int64_t)BSYNC_FX_MAX * 65536)
#define VELOCITY_MAX ((int64_t)1 << 58) /* 2^26 units/s: a full-range jump at a tiny smooth time is not slowed */

bsync_result bsync_smooth_init(bsync_smooth* out, fix16_t smooth_time, fix16_t max_speed, uint32_t tick_rate) {
    if (!out) return BSYNC_INVALID_ARGUMENT;
    if (tick_rate > BSYNC_MAX_TICK_RATE) return BSYNC_BAD_TICK_RATE;
    bsync_smooth s;
    s.c1 = s.c2 = s.c3 = s.c4 = 0;
    s.tick_rate = tick_rate;
    s.pad_ = 0;

    /* max_change = max_speed * max(0.0001, smooth_time) in Q32 value units: raw * raw is exact */
    const int tiny = smooth_time < 7; /* below 0.0001 s: exactly 0.0001 s (Unity's Mathf.Max) */
    if (max_speed <= 0) {
        s.max_change = -1;
    } else {
        int64_t mc = tiny ? bsync_w_muldiv(max_speed, 65536, 10000) : (int64_t)max_speed * smooth_time;
        s.max_change = mc > MAX_CHANGE_CAP ? MAX_CHANGE_CAP : mc;
    }
    if (tick_rate == 0) { /* dt = 0: the step is the identity and needs no constants */
        *out = s;
        return BSYNC_OK;
    }

    /* x = omega * dt = x_num / x_den exactly */
    const int64_t x_num = tiny ? 20000 : ((int64_t)1 << 17);
    const int64_t x_den = tiny ? (int64_t)tick_rate : (int64_t)smooth_time * (int64_t)tick_rate; /* < 2^41 */
    /* The polynomial in Q48 when x < 1/16, Q32 when x < 256, else Q16 (x <= 20000 < 2^15, so x^3 in Q16
     * < 2^61): x itself then always has at least 24 significant bits. */
    const int64_t x_q32 = bsync_w_muldiv(x_num, Q32_ONE, x_den);
    const unsigned q = x_q32 < ((int64_t)1 << 28) ? 48u : (x_q32 < ((int64_t)1 << 40) ? 32u : 16u);
    const int64_t one = (int64_t)1 << q;
    const int64_t X = bsync_w_muldiv(x_num, one, x_den);
    const int64_t X2 = bsync_w_mul_shr(X, X, q);
    const int64_t X3 = bsync_w_mul_shr(X2, X, q);
    const int64_t P = one + X + bsync_w_muldiv(X2, 12, 25) + bsync_w_muldiv(X3, 47, 200); /* >= one */
    const int64_t R = (int64_t)tick_rate;

    s.c1 = bsync_w_muldiv(one + X, Q32_ONE, P);
    s.c2 = bsync_w_muldiv(bsync_w_muldiv(one, Q32_ONE, P), 1, R);
    s.c3 = bsync_w_muldiv(one - X, Q32_ONE, P);
    /* c4 = x^2 R / P from X directly (never from the rounded X2, which has few bits when x is small):
     * X * (X R) / P = c4 * 2^q */
    if (q == 16u)
        s.c4 = bsync_w_muldiv(X, X * R * 65536, P); /* X R 2^16 < 2^57 */
    else
        s.c4 = bsync_w_muldiv(bsync_w_muldiv(X, X * R, P), 1, (int64_t)1 << (q - 32u)); /* X R < 2^54 */
    *out = s;
    return BSYNC_OK;
}

static int64_t clamp_state(int64_t v) { return v > STATE_MAX ? STATE_MAX : (v < -STATE_MAX ? -STATE_MAX : v); }
static int64_t clamp_velocity(int64_t v) {
    return v > VELOCITY_MAX ? VELOCITY_MAX : (v < -VELOCITY_MAX ? -VELOCITY_MAX : v);
}
static int64_t abs64(int64_t v) { return v < 0 ? -v : v; } /* only for |v| < 2^62 */

/* Unity's steps 5-7 for one component, all in Q32 value units: change (clamped, |change| < 2^50),
 * target (clamped), velocity (|v| <= 2^58) in; new value and velocity out, clamped to their ranges. */
static void spring(const bsync_smooth* s, int64_t change, int64_t target, int64_t velocity, int64_t* out,
                   int64_t* out_velocity) {
    int64_t o = bsync_w_sat(target + bsync_w_mul_shr(change, s->c1, 32) + bsync_w_mul_shr(velocity, s->c2, 32));
    int64_t v = bsync_w_mul_shr(velocity, s->c3, 32) - bsync_w_mul_shr(change, s->c4, 32);
    *out = clamp_state(o);
    *out_velocity = clamp_velocity(v);
}

/* rest rule: within one raw step (65536 Q32 units) and moving at most one raw step per tick */
static int at_rest(const bsync_smooth* s, int64_t out, int64_t target, int64_t velocity) {
    return abs64(out - target) <= 65536 && abs64(velocity) <= (int64_t)s->tick_rate * 65536;
}

int bsync_smooth_step(const bsync_smooth* s, bsync_smooth_state* st, fix16_t target) {
    if (!s || !st) return 0;
    const int64_t cur = clamp_state(st->value);
    const fix16_t before = bsync_smooth_round_(cur);
    if (s->tick_rate == 0) return 0;
    const int64_t tgt = (int64_t)target * 65536;
    int64_t change = cur - tgt; /* |change| < 2^48 */
    if (s->max_change >= 0) {
        if (change > s->max_change) change = s->max_change;
        if (change < -s->max_change) change = -s->max_change;
    }
    int64_t out, vel;
    spring(s, change, cur - change, clamp_velocity(st->velocity), &out, &vel);
    /* Unity's overshoot guard (the legacy and current variants agree for dt > 0) */
    if ((tgt - cur > 0) == (out > tgt)) {
        out = tgt;
        vel = 0;
    }
    if (at_rest(s, out, tgt, vel)) {
        out = tgt;
        vel = 0;
    }
    st->value = out;
    st->velocity = vel;
    return bsync_smooth_round_(out) != before;
}

/* Sign (-1, 0, 1) of a*b + c*d for |a|, |b|, |c|, |d| < 2^63, exactly. */
static int dot_sign(int64_t a, int64_t b, int64_t c, int64_t d) {
    int s1 = (a == 0 || b == 0) ? 0 : ((a < 0) != (b < 0) ? -1 : 1);
    int s2 = (c == 0 || d == 0) ? 0 : ((c < 0) != (d < 0) ? -1 : 1);
    if (s1 == 0) return s2;
    if (s2 == 0 || s1 == s2) return s1;
    int c12 = bsync_u128_cmp(bsync_u128_mul_u64(bsync_u64_abs(a), bsync_u64_abs(b)),
                             bsync_u128_mul_u64(bsync_u64_abs(c), bsync_u64_abs(d)));
    return c12 > 0 ? s1 : (c12 < 0 ? s2 : 0);
}

int bsync_smooth_step_2d(const bsync_smooth* s, bsync_smooth_state st[2], const fix16_t target[2]) {
    if (!s || !st || !target) return 0;
    const int64_t cur[2] = {clamp_state(st[0].value), clamp_state(st[1].value)};
    const fix16_t before[2] = {bsync_smooth_round_(cur[0]), bsync_smooth_round_(cur[1])};
    if (s->tick_rate == 0) return 0;
    const int64_t tgt[2] = {(int64_t)target[0] * 65536, (int64_t)target[1] * 65536};
    int64_t ch[2] = {cur[0] - tgt[0], cur[1] - tgt[1]}; /* |ch| < 2^48 */
    if (s->max_change >= 0) {
        /* |change|^2 > max_change^2, exactly in 128 bits (each square < 2^96, max_change^2 <= 2^100) */
        bsync_u128 sq = bsync_u128_add(bsync_u128_mul_u64(bsync_u64_abs(ch[0]), bsync_u64_abs(ch[0])),
                                       bsync_u128_mul_u64(bsync_u64_abs(ch[1]), bsync_u64_abs(ch[1])));
        bsync_u128 lim = bsync_u128_mul_u64((uint64_t)s->max_change, (uint64_t)s->max_change);
        if (bsync_u128_cmp(sq, lim) > 0) {
            /* scale the change to length max_change: ch * max_change / |ch|, with |ch| taken with
             * about 30 significant bits: components shifted right by k to below 2^30, the sum of
             * squares normalised to [2^60, 2^62) by 4^m before the integer square root, so
             * mag ~ |ch| * 2^(m - k) */
            uint64_t big = bsync_u64_abs(ch[0]) > bsync_u64_abs(ch[1]) ? bsync_u64_abs(ch[0]) : bsync_u64_abs(ch[1]);
            unsigned k = 0;
            while ((big >> k) >= ((uint64_t)1 << 30)) k++;
            uint64_t cx = bsync_u64_abs(ch[0]) >> k, cy = bsync_u64_abs(ch[1]) >> k;
            uint64_t sqk = cx * cx + cy * cy; /* < 2^61, > 0 since big >> k >= 2^29 or k == 0 */
            unsigned bits = 64u - bsync_u64_clz(sqk);
            unsigned m = bits < 62u ? (62u - bits) / 2u : 0u;
            uint64_t mag = bsync_u64_isqrt(sqk << (2u * m));
            for (int i = 0; i < 2; i++) {
                if (m >= k)
                    ch[i] = bsync_w_muldiv(ch[i], s->max_change * ((int64_t)1 << (m - k)), (int64_t)mag);
                else
                    ch[i] = bsync_w_muldiv(ch[i], s->max_change, (int64_t)mag * ((int64_t)1 << (k - m)));
            }
        }
    }
    int64_t out[2], vel[2];
    for (int i = 0; i < 2; i++) spring(s, ch[i], cur[i] - ch[i], clamp_velocity(st[i].velocity), &out[i], &vel[i]);
    /* Vector2 overshoot guard: dot(originalTo - current, output - originalTo) > 0 */
    if (dot_sign(tgt[0] - cur[0], out[0] - tgt[0], tgt[1] - cur[1], out[1] - tgt[1]) > 0) {
        out[0] = tgt[0];
        out[1] = tgt[1];
        vel[0] = vel[1] = 0;
    }
    if (at_rest(s, out[0], tgt[0], vel[0]) && at_rest(s, out[1], tgt[1], vel[1])) {
        out[0] = tgt[0];
        out[1] = tgt[1];
        vel[0] = vel[1] = 0;
    }
    for (int i = 0; i < 2; i++) {
        st[i].value = out[i];
        st[i].velocity = vel[i];
    }
    return bsync_smooth_round_(out[0]) != before[0] || bsync_smooth_round_(out[1]) != before[1];
}
