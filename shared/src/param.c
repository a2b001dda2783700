/* param.c — dead zone -> curve -> SmoothDamp per parameter (contract: blendsync/param.h). */
#include "blendsync/param.h"
#include "internal/wide_math.h"

#define Q32_ONE ((int64_t)1 << 32)

bsync_result bsync_param_filter_init(bsync_param_filter* out, const bsync_param_filter_desc* desc, uint32_t tick_rate) {
    if (!out || !desc) return BSYNC_INVALID_ARGUMENT;
    if (desc->dead_zone < 0 || desc->pair > 1) return BSYNC_INVALID_ARGUMENT;
    const fix16_t range = desc->dead_zone_range == 0 ? BSYNC_FX_ONE : desc->dead_zone_range;
    if (range <= desc->dead_zone) return BSYNC_INVALID_ARGUMENT;
    bsync_param_filter f;
    f.curve = desc->curve;
    f.dead_zone = desc->dead_zone;
    f.dead_zone_range = range;
    f.pair = desc->pair;
    f.has_smooth = desc->smooth_time > 0;
    bsync_result r = bsync_smooth_init(&f.smooth, desc->smooth_time, desc->max_speed, f.has_smooth ? tick_rate : 0);
    if (r != BSYNC_OK) return r;
    if (f.has_smooth && tick_rate == 0) return BSYNC_BAD_TICK_RATE;
    *out = f;
    return BSYNC_OK;
}

fix16_t bsync_param_shape(const bsync_param_filter* f, fix16_t x) {
    if (!f) return x;
    if (x < BSYNC_FX_MIN) x = BSYNC_FX_MIN; /* INT32_MIN never flows on */
    if (f->dead_zone > 0) {
        const int64_t z = f->dead_zone, r = f->dead_zone_range;
        const int64_t mag = x < 0 ? -(int64_t)x : (int64_t)x;
        if (mag <= z) {
            x = 0;
        } else {
            int64_t m = bsync_w_muldiv(mag - z, r, r - z);
            x = bsync_fx_sat64(x < 0 ? -m : m);
        }
    }
    if (f->curve) x = bsync_curve_evaluate(f->curve, x);
    return x;
}

/* Length of (x, y) with extra precision: returns L ~ |v|_raw * 2^m (L >= 2^30 unless v == 0), sets m. */
static uint64_t length_scaled(fix16_t x, fix16_t y, unsigned* m_out) {
    uint64_t ax = bsync_u64_abs(x), ay = bsync_u64_abs(y);
    uint64_t sq = ax * ax + ay * ay; /* <= 2^63 */
    if (sq == 0) {
        *m_out = 0;
        return 0;
    }
    unsigned bits = 64u - bsync_u64_clz(sq);
    unsigned m = bits < 62u ? (62u - bits) / 2u : 0u;
    *m_out = m;
    return bsync_u64_isqrt(sq << (2u * m));
}

void bsync_param_shape_2d(const bsync_param_filter* f, fix16_t x, fix16_t y, fix16_t out[2]) {
    if (!out) return;
    out[0] = x < BSYNC_FX_MIN ? BSYNC_FX_MIN : x; /* INT32_MIN never flows on */
    out[1] = y < BSYNC_FX_MIN ? BSYNC_FX_MIN : y;
    if (!f) return;
    x = out[0];
    y = out[1];
    if (f->dead_zone > 0) {
        const int64_t z = f->dead_zone, r = f->dead_zone_range;
        uint64_t ax = bsync_u64_abs(x), ay = bsync_u64_abs(y);
        uint64_t sq = ax * ax + ay * ay;
        if (sq <= (uint64_t)(z * z)) {
            out[0] = out[1] = 0;
        } else {
            unsigned m;
            uint64_t L = length_scaled(x, y, &m); /* > z * 2^m */
            int64_t num = (int64_t)L - (z << m);   /* (|v| - z) * 2^m, >= 0 */
            if (num < 0) num = 0;
            int64_t frac = bsync_w_muldiv(num, Q32_ONE, (int64_t)L); /* (|v| - z) / |v| in Q32 */
            int64_t g = bsync_w_muldiv(frac, r, r - z);              /* times r / (r - z) */
            out[0] = bsync_fx_sat64(bsync_w_mul_shr(x, g, 32));
            out[1] = bsync_fx_sat64(bsync_w_mul_shr(y, g, 32));
        }
    }
    if (f->curve && (out[0] != 0 || out[1] != 0)) {
        unsigned m;
        uint64_t L = length_scaled(out[0], out[1], &m);
        /* |v| rounded to a raw step is the curve's input */
        fix16_t len = bsync_fx_sat64((int64_t)((L + ((uint64_t)1 << m >> 1)) >> m));
        int64_t c = bsync_curve_evaluate(f->curve, len);
        int64_t cs = c * (int64_t)((uint64_t)1 << m); /* |c| < 2^31, m <= 31 */
        fix16_t nx = bsync_fx_sat64(bsync_w_muldiv(out[0], cs, (int64_t)L));
        fix16_t ny = bsync_fx_sat64(bsync_w_muldiv(out[1], cs, (int64_t)L));
        out[0] = nx;
        out[1] = ny;
    }
}

void bsync_param_state_init(const bsync_param_filter* f, bsync_param_state* s, fix16_t x, fix16_t y) {
    if (!f || !s) return;
    if (f->pair) {
        bsync_param_shape_2d(f, x, y, s->value);
    } else {
        s->value[0] = bsync_param_shape(f, x);
        s->value[1] = 0;
    }
    s->settled = 1;
    s->pad_ = 0;
    for (int i = 0; i < 2; i++) s->smooth[i] = bsync_smooth_state_make(f->has_smooth ? s->value[i] : 0, 0);
}

static void clear_smooth(bsync_smooth_state* st) { st->value = st->velocity = 0; }

bsync_result bsync_param_filter_step(const bsync_param_filter* f, bsync_param_state* s, fix16_t target,
                                     int* out_changed) {
    if (out_changed) *out_changed = 0;
    if (!f || !s || f->pair) return BSYNC_INVALID_ARGUMENT;
    const fix16_t shaped = bsync_param_shape(f, target);
    const fix16_t before = s->value[0];
    if (f->has_smooth) {
        bsync_smooth_step(&f->smooth, &s->smooth[0], shaped);
        s->value[0] = bsync_smooth_value(&s->smooth[0]);
    } else {
        s->value[0] = shaped;
        clear_smooth(&s->smooth[0]);
    }
    s->value[1] = 0;
    clear_smooth(&s->smooth[1]);
    s->settled = (s->value[0] == shaped && s->smooth[0].velocity == 0) ? 1u : 0u;
    s->pad_ = 0;
    if (out_changed) *out_changed = s->value[0] != before;
    return BSYNC_OK;
}

bsync_result bsync_param_filter_step_2d(const bsync_param_filter* f, bsync_param_state* s, fix16_t x, fix16_t y,
                                      int* out_changed) {
    if (out_changed) *out_changed = 0;
    if (!f || !s || !f->pair) return BSYNC_INVALID_ARGUMENT;
    fix16_t shaped[2];
    bsync_param_shape_2d(f, x, y, shaped);
    const fix16_t before[2] = {s->value[0], s->value[1]};
    if (f->has_smooth) {
        bsync_smooth_step_2d(&f->smooth, s->smooth, shaped);
        s->value[0] = bsync_smooth_value(&s->smooth[0]);
        s->value[1] = bsync_smooth_value(&s->smooth[1]);
    } else {
        s->value[0] = shaped[0];
        s->value[1] = shaped[1];
        clear_smooth(&s->smooth[0]);
        clear_smooth(&s->smooth[1]);
    }
    s->settled = (s->value[0] == shaped[0] && s->value[1] == shaped[1] && s->smooth[0].velocity == 0 &&
                  s->smooth[1].velocity == 0)
                     ? 1u
                     : 0u;
    s->pad_ = 0;
    if (out_changed) *out_changed = s->value[0] != before[0] || s->value[1] != before[1];
    return BSYNC_OK;
}

void bsync_param_checksum_feed(const bsync_param_state* s, bsync_checksum_state* c) {
    if (!s || !c) return;
    bsync_checksum_fx(c, s->value[0]);
    bsync_checksum_fx(c, s->value[1]);
    bsync_checksum_u32(c, s->settled);
    for (int i = 0; i < 2; i++) {
        bsync_checksum_i64(c, s->smooth[i].value);
        bsync_checksum_i64(c, s->smooth[i].velocity);
    }
}
