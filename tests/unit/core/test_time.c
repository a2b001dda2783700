/* test_time.c — exact integer playback time (blendsync/time.h).
 *
 * Expected positions are computed here independently of time.c: a 128-bit number as four 32-bit
 * limbs, multiplied by schoolbook limbs and divided bit by bit (restoring division), evaluating
 *   P(N) = floor(N * 2^32 * speed_raw / (tick_rate * duration_raw))   (phase units)
 * directly from the definition, never by simulating ticks. */
#include "test_support.h"

#include <math.h>
#include <string.h>
#include <libfixmath/fix16.h>

#include "blendsync/time.h"

/* ---------------------------------------------------------------- test-side exact arithmetic */

typedef struct big_ { uint32_t w[4]; } big_; /* little-endian limbs, 128 bits */

static big_ big_from_u64(uint64_t v) {
    big_ b = {{(uint32_t)v, (uint32_t)(v >> 32), 0, 0}};
    return b;
}

static big_ big_mul_u64(big_ a, uint64_t m) { /* a * m, a < 2^64 in practice; truncated to 128 bits */
    uint32_t mw[2] = {(uint32_t)m, (uint32_t)(m >> 32)};
    big_ r = {{0, 0, 0, 0}};
    for (int i = 0; i < 4; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < 2 && i + j < 4; j++) {
            uint64_t cur = (uint64_t)r.w[i + j] + (uint64_t)a.w[i] * mw[j] + carry;
            r.w[i + j] = (uint32_t)cur;
            carry = cur >> 32;
        }
        if (i + 2 < 4) r.w[i + 2] += (uint32_t)carry;
    }
    return r;
}

static int big_bit(big_ a, int i) { return (int)((a.w[i / 32] >> (i % 32)) & 1u); }

/* Restoring division by a 64-bit divisor, one bit at a time. */
static big_ big_divmod(big_ a, uint64_t d, uint64_t* rem) {
    big_ q = {{0, 0, 0, 0}};
    uint64_t r = 0;
    for (int i = 127; i >= 0; i--) {
        int top = (int)(r >> 63);
        r = (r << 1) | (uint64_t)big_bit(a, i);
        if (top || r >= d) {
            r -= d;
            q.w[i / 32] |= 1u << (i % 32);
        }
    }
    *rem = r;
    return q;
}

static big_ big_add_u64(big_ a, uint64_t v) {
    uint64_t carry = v;
    for (int i = 0; i < 4 && carry; i++) {
        uint64_t cur = (uint64_t)a.w[i] + (carry & 0xFFFFFFFFu);
        a.w[i] = (uint32_t)cur;
        carry = (carry >> 32) + (cur >> 32);
    }
    return a;
}

#define LIMIT ((int64_t)1 << 62)

/* Expected position after n ticks from the start (with the documented saturation of cycles). */
static bsync_clip_time expected_position(fix16_t duration, fix16_t speed, uint32_t rate, uint64_t n) {
    uint64_t den = (uint64_t)rate * (uint64_t)duration;
    uint64_t mag = speed < 0 ? (uint64_t)(-(int64_t)speed) : (uint64_t)speed;
    big_ x = big_mul_u64(big_from_u64(n), mag);
    /* times 2^32: shift limbs up by one */
    x.w[3] = x.w[2];
    x.w[2] = x.w[1];
    x.w[1] = x.w[0];
    x.w[0] = 0;
    uint64_t r;
    big_ q = big_divmod(x, den, &r);
    bsync_clip_time t = {0, 0, 0, 0};
    if (speed >= 0) {
        /* cycles = q >> 32, phase = low 32 bits */
        t.phase = q.w[0];
        if (q.w[3] != 0 || q.w[2] >= 0x40000000u) t.cycles = LIMIT;
        else t.cycles = (int64_t)(((uint64_t)q.w[2] << 32) | q.w[1]);
        t.carry = r;
    } else {
        /* position = -ceil(x / den) */
        big_ m = r ? big_add_u64(q, 1) : q;
        uint64_t mc = ((uint64_t)m.w[2] << 32) | m.w[1];
        int sat = m.w[3] != 0 || m.w[2] >= 0x40000000u;
        t.phase = (uint32_t)(0u - m.w[0]);
        if (sat) t.cycles = -LIMIT;
        else {
            int64_t c = -(int64_t)mc - (m.w[0] != 0 ? 1 : 0);
            t.cycles = c < -LIMIT ? -LIMIT : c;
        }
        t.carry = r ? den - r : 0;
    }
    return t;
}

static void assert_time_eq(const bsync_clip_time* a, const bsync_clip_time* b) {
    assert_int_equal(a->cycles, b->cycles);
    assert_int_equal(a->phase, b->phase);
    assert_int_equal(a->carry, b->carry);
    assert_int_equal(a->pad_, 0);
    assert_int_equal(b->pad_, 0);
}

/* ---------------------------------------------------------------- tests */

static void test_step_init_codes(void** state) {
    (void)state;
    bsync_time_step s;
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, BSYNC_FX_ONE, 0, &s), BSYNC_BAD_TICK_RATE);
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, BSYNC_FX_ONE, 1001, &s), BSYNC_BAD_TICK_RATE);
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, BSYNC_FX_ONE, UINT32_MAX, &s), BSYNC_BAD_TICK_RATE);
    assert_int_equal(bsync_time_step_init(0, BSYNC_FX_ONE, 30, &s), BSYNC_BAD_DURATION);
    assert_int_equal(bsync_time_step_init(-BSYNC_FX_ONE, BSYNC_FX_ONE, 30, &s), BSYNC_BAD_DURATION);
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, BSYNC_FX_ONE, 30, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, BSYNC_FX_ONE, 1, &s), BSYNC_OK);
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, BSYNC_FX_ONE, 1000, &s), BSYNC_OK);
    assert_int_equal(bsync_time_step_init(1, INT32_MIN, 1000, &s), BSYNC_OK); /* extremes accepted */
    assert_int_equal(bsync_time_step_init(BSYNC_FX_MAX, BSYNC_FX_MAX, 1, &s), BSYNC_OK);

    /* 1 s clip at 30 Hz, speed 1: 2^32/30 = 143165576.533.. phase units per tick */
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, BSYNC_FX_ONE, 30, &s), BSYNC_OK);
    assert_int_equal(s.den, 30u * 65536u);
    assert_int_equal(s.whole, 143165576u);
    assert_true(s.rem < s.den);
    assert_true(s.whole * s.den + s.rem == ((uint64_t)1 << 48)); /* 2^32 * 65536 */
    assert_int_equal(s.negative, 0);
    /* the rounding of 2^32/30 (0.533..) as a fraction: rem/den ~ 0.5333 */
    assert_true(fabs((double)s.rem / (double)s.den - (4294967296.0 / 30.0 - 143165576.0)) < 1e-6);
    /* den does not depend on speed */
    bsync_time_step s2;
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, -3 * BSYNC_FX_ONE, 30, &s2), BSYNC_OK);
    assert_int_equal(s2.den, s.den);
    assert_int_equal(s2.negative, 1);
    assert_int_equal(s2.whole, 429496729u); /* floor(3 * 2^32 / 30) = floor(429496729.6) */
    /* speed 0 never moves */
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, 0, 30, &s2), BSYNC_OK);
    bsync_clip_time t = bsync_time_start();
    bsync_time_advance_n(&t, &s2, 1000000);
    bsync_time_advance(&t, &s2);
    bsync_clip_time z = bsync_time_start();
    assert_memory_equal(&t, &z, sizeof t);
}

/* 10^7 ticks of 1/30 s on a 0.9 s clip at several speeds, checked against the exact formula. */
static void test_long_run_exact(void** state) {
    (void)state;
    const fix16_t duration = fix16_from_dbl(0.9); /* 58982 */
    assert_int_equal(duration, 58982);
    const double speeds[] = {1.0, 0.37, -1.25, 3.0};
    const uint64_t total = 10000000u;
    for (size_t si = 0; si < sizeof speeds / sizeof speeds[0]; si++) {
        fix16_t speed = fix16_from_dbl(speeds[si]);
        bsync_time_step step;
        assert_int_equal(bsync_time_step_init(duration, speed, 30, &step), BSYNC_OK);
        bsync_clip_time t = bsync_time_start();
        uint64_t next_check = 1;
        for (uint64_t n = 1; n <= total; n++) {
            bsync_time_advance(&t, &step);
            if (n == next_check || n == total) {
                bsync_clip_time e = expected_position(duration, speed, 30, n);
                assert_time_eq(&t, &e);
                next_check = next_check * 3 + 7;
            }
        }
        /* the same in one call */
        bsync_clip_time b = bsync_time_start();
        bsync_time_advance_n(&b, &step, total);
        assert_memory_equal(&b, &t, sizeof t);
        /* sanity of the magnitude: 10^7 / 30 s of 0.9 s cycles at |speed| */
        double cycles = (double)t.cycles + (double)t.phase / 4294967296.0;
        double want = 1e7 / 30.0 / (58982.0 / 65536.0) * ((double)speed / 65536.0);
        assert_true(fabs(cycles - want) < 1e-6 * fabs(want) + 1e-6);
    }
}

static void test_phase_wraps(void** state) {
    (void)state;
    bsync_time_step fwd = {0x20, 0, 1, 0}, back = {0x20, 0, 1, 1};
    bsync_clip_time t = {0, 0xFFFFFFF0u, 0, 0};
    bsync_time_advance(&t, &fwd);
    assert_int_equal(t.cycles, 1);
    assert_int_equal(t.phase, 0x10u);
    bsync_time_advance(&t, &back);
    assert_int_equal(t.cycles, 0);
    assert_int_equal(t.phase, 0xFFFFFFF0u);
    bsync_clip_time u = {0, 0x10u, 0, 0};
    bsync_time_advance(&u, &back);
    assert_int_equal(u.cycles, -1);
    assert_int_equal(u.phase, 0xFFFFFFF0u);

    /* more than one cycle per tick: a 1-raw-step clip at speed 1, 1 Hz plays 65536 cycles a tick */
    bsync_time_step big;
    assert_int_equal(bsync_time_step_init(1, BSYNC_FX_ONE, 1, &big), BSYNC_OK);
    assert_int_equal(big.whole, (uint64_t)1 << 48);
    bsync_clip_time v = bsync_time_start();
    bsync_time_advance(&v, &big);
    assert_int_equal(v.cycles, 65536);
    assert_int_equal(v.phase, 0);
    /* half a cycle per tick: phase alternates 0x80000000, 0 */
    bsync_time_step half;
    assert_int_equal(bsync_time_step_init(2 * BSYNC_FX_ONE, BSYNC_FX_ONE, 1, &half), BSYNC_OK);
    bsync_clip_time w = bsync_time_start();
    bsync_time_advance(&w, &half);
    assert_int_equal(w.phase, 0x80000000u);
    assert_int_equal(w.cycles, 0);
    assert_int_equal(bsync_time_normalized(&w), BSYNC_FX_HALF);
    bsync_time_advance(&w, &half);
    assert_int_equal(w.phase, 0);
    assert_int_equal(w.cycles, 1);
    assert_int_equal(w.carry, 0);
}

static uint64_t rand_below(uint64_t* s, uint64_t n) { return bsync_test_rand(s) % n; }

static fix16_t random_speed(uint64_t* s) {
    switch (rand_below(s, 6)) {
        case 0: return INT32_MIN;
        case 1: return BSYNC_FX_MAX;
        case 2: return (fix16_t)(int32_t)(uint32_t)bsync_test_rand(s);
        default: return (fix16_t)((int64_t)rand_below(s, 8u << 16) - (4 << 16)); /* [-4, 4) */
    }
}

static bsync_clip_time random_start(uint64_t* s, uint64_t den) {
    bsync_clip_time t = bsync_time_start();
    t.cycles = (int64_t)rand_below(s, (uint64_t)1 << 41) - ((int64_t)1 << 40);
    t.phase = (uint32_t)bsync_test_rand(s);
    t.carry = rand_below(s, den);
    return t;
}

/* advance_n(n) is bit-identical to n single advances, for random steps and starts. */
static void test_advance_n_equals_loop(void** state) {
    (void)state;
    uint64_t seed = 0x7157u;
    for (int c = 0; c < 400; c++) {
        fix16_t duration = rand_below(&seed, 2) ? (fix16_t)(1 + rand_below(&seed, 0x7FFFFFFE))
                                                : (fix16_t)(1 + rand_below(&seed, 200000));
        uint32_t rate = (uint32_t)(1 + rand_below(&seed, 1000));
        fix16_t speed = random_speed(&seed);
        bsync_time_step step;
        assert_int_equal(bsync_time_step_init(duration, speed, rate, &step), BSYNC_OK);
        bsync_clip_time a = random_start(&seed, step.den), b = a;
        uint64_t n = rand_below(&seed, 2500);
        for (uint64_t i = 0; i < n; i++) bsync_time_advance(&a, &step);
        bsync_time_advance_n(&b, &step, n);
        assert_memory_equal(&a, &b, sizeof a);
    }
}

/* Near saturation the loop and the bulk call still agree, and cycles stop at +-2^62. */
static void test_saturation(void** state) {
    (void)state;
    bsync_time_step step;
    assert_int_equal(bsync_time_step_init(1, BSYNC_FX_MAX, 1, &step), BSYNC_OK); /* ~2^31 cycles/tick */
    bsync_clip_time a = {LIMIT - 5000000000LL, 123, 0, 0}, b = a;
    for (int i = 0; i < 10; i++) bsync_time_advance(&a, &step);
    bsync_time_advance_n(&b, &step, 10);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(a.cycles, LIMIT);

    bsync_time_step back;
    assert_int_equal(bsync_time_step_init(1, INT32_MIN, 1, &back), BSYNC_OK);
    bsync_clip_time c = {-LIMIT + 5000000000LL, 7, 0, 0}, d = c;
    for (int i = 0; i < 10; i++) bsync_time_advance(&c, &back);
    bsync_time_advance_n(&d, &back, 10);
    assert_memory_equal(&c, &d, sizeof c);
    assert_int_equal(c.cycles, -LIMIT);

    /* the largest possible n at the largest speed, both ways */
    bsync_clip_time e = bsync_time_start(), f = bsync_time_start();
    bsync_time_advance_n(&e, &step, UINT64_MAX);
    bsync_time_advance_n(&f, &back, UINT64_MAX);
    assert_int_equal(e.cycles, LIMIT);
    assert_int_equal(f.cycles, -LIMIT);
    bsync_clip_time ee = expected_position(1, BSYNC_FX_MAX, 1, UINT64_MAX);
    bsync_clip_time ff = expected_position(1, INT32_MIN, 1, UINT64_MAX);
    assert_time_eq(&e, &ee);
    assert_time_eq(&f, &ff);
}

/* Huge tick counts: the bulk call matches the formula, and splitting n never changes the result. */
static void test_huge_n(void** state) {
    (void)state;
    uint64_t seed = 99;
    for (int c = 0; c < 300; c++) {
        fix16_t duration = (fix16_t)(1 + rand_below(&seed, 0x7FFFFFFE));
        uint32_t rate = (uint32_t)(1 + rand_below(&seed, 1000));
        fix16_t speed = random_speed(&seed);
        bsync_time_step step;
        assert_int_equal(bsync_time_step_init(duration, speed, rate, &step), BSYNC_OK);
        uint64_t n1 = bsync_test_rand(&seed) >> (uint64_t)rand_below(&seed, 64);
        uint64_t n2 = bsync_test_rand(&seed) >> (uint64_t)rand_below(&seed, 64);
        if (n1 + n2 < n1) n2 = UINT64_MAX - n1;
        bsync_clip_time one = bsync_time_start(), two = bsync_time_start();
        bsync_time_advance_n(&one, &step, n1 + n2);
        bsync_time_advance_n(&two, &step, n1);
        bsync_time_advance_n(&two, &step, n2);
        bsync_clip_time e = expected_position(duration, speed, rate, n1 + n2);
        assert_time_eq(&one, &e);
        assert_memory_equal(&one, &two, sizeof one); /* saturation is monotone: splitting is harmless */
    }
    /* a year at 30 Hz on the 0.9 s clip (no fix16 seconds counter survives 9 hours) */
    const uint64_t year = 30ull * 3600ull * 24ull * 365ull;
    bsync_time_step step;
    assert_int_equal(bsync_time_step_init(58982, BSYNC_FX_ONE, 30, &step), BSYNC_OK);
    bsync_clip_time t = bsync_time_start();
    bsync_time_advance_n(&t, &step, year);
    bsync_clip_time e = expected_position(58982, BSYNC_FX_ONE, 30, year);
    assert_time_eq(&t, &e);
    assert_true(fabs((double)t.cycles - 31536000.0 / (58982.0 / 65536.0)) < 1.0);
}

/* Forward n ticks at speed s, then n ticks at -s: back at the start exactly (carry included). */
static void test_reverse_returns_exactly(void** state) {
    (void)state;
    uint64_t seed = 5;
    for (int c = 0; c < 200; c++) {
        fix16_t duration = (fix16_t)(1 + rand_below(&seed, 10u << 16));
        uint32_t rate = (uint32_t)(1 + rand_below(&seed, 1000));
        fix16_t speed = (fix16_t)(1 + rand_below(&seed, 5u << 16));
        bsync_time_step f, b;
        assert_int_equal(bsync_time_step_init(duration, speed, rate, &f), BSYNC_OK);
        assert_int_equal(bsync_time_step_init(duration, -speed, rate, &b), BSYNC_OK);
        bsync_clip_time start = random_start(&seed, f.den), t = start;
        uint64_t n = rand_below(&seed, 500);
        for (uint64_t i = 0; i < n; i++) bsync_time_advance(&t, &f);
        for (uint64_t i = 0; i < n; i++) bsync_time_advance(&t, &b);
        assert_memory_equal(&t, &start, sizeof t);
        uint64_t big = bsync_test_rand(&seed) >> 30;
        bsync_time_advance_n(&t, &b, big);
        bsync_time_advance_n(&t, &f, big);
        assert_memory_equal(&t, &start, sizeof t);
    }
}

/* The drift argument of time.h: an hour at 30 Hz. */
static void test_one_hour_no_drift(void** state) {
    (void)state;
    const uint64_t ticks = 108000; /* 3600 s * 30 Hz */
    /* Summing fix16 seconds: 1/30 s is 2184.53 raw, stored as 2185 -> drifts. */
    fix16_t dt = fix16_div(fix16_one, fix16_from_int(30));
    assert_int_equal(dt, 2185);
    int64_t sum = 0;
    for (uint64_t i = 0; i < ticks; i++) sum += dt;
    int64_t exact = 3600LL * 65536LL;
    assert_true(sum - exact > (int64_t)(0.7 * 65536)); /* more than 0.7 s off after one hour */
    assert_true(sum * 10 > 0x7FFFFFFFLL); /* and 10 hours would overflow fix16 */
    /* On a 1.5 s clip the drift shows as a wrong pose: (sum mod 1.5 s) is 0.77 s instead of 0. */
    const fix16_t duration = 98304; /* 1.5 s */
    assert_true(sum % duration > 50000);

    bsync_time_step step;
    assert_int_equal(bsync_time_step_init(duration, BSYNC_FX_ONE, 30, &step), BSYNC_OK);
    bsync_clip_time t = bsync_time_start();
    for (uint64_t i = 0; i < ticks; i++) bsync_time_advance(&t, &step);
    assert_int_equal(t.cycles, 2400); /* 3600 / 1.5 */
    assert_int_equal(t.phase, 0);
    assert_int_equal(t.carry, 0);
    assert_int_equal(bsync_time_seconds(&t, duration, BSYNC_LOOP_WRAP), 0);
    /* and the 0.9 s clip after an hour is at the exact rational position */
    bsync_time_step s9;
    assert_int_equal(bsync_time_step_init(58982, BSYNC_FX_ONE, 30, &s9), BSYNC_OK);
    bsync_clip_time u = bsync_time_start();
    for (uint64_t i = 0; i < ticks; i++) bsync_time_advance(&u, &s9);
    bsync_clip_time e = expected_position(58982, BSYNC_FX_ONE, 30, ticks);
    assert_time_eq(&u, &e);
}

static void test_seconds_modes(void** state) {
    (void)state;
    const fix16_t d = BSYNC_FX_ONE;
    bsync_time_step f, b;
    assert_int_equal(bsync_time_step_init(d, BSYNC_FX_ONE, 30, &f), BSYNC_OK);
    assert_int_equal(bsync_time_step_init(d, -BSYNC_FX_ONE, 30, &b), BSYNC_OK);
    bsync_clip_time t = bsync_time_start();
    assert_int_equal(bsync_time_seconds(&t, d, BSYNC_LOOP_WRAP), 0);
    assert_int_equal(bsync_time_seconds(&t, d, BSYNC_LOOP_CLAMP), 0);
    bsync_time_advance_n(&t, &f, 29);
    fix16_t s29 = (fix16_t)floor(29.0 / 30.0 * 65536.0); /* 63351 */
    assert_int_equal(bsync_time_seconds(&t, d, BSYNC_LOOP_WRAP), s29);
    assert_int_equal(bsync_time_seconds(&t, d, BSYNC_LOOP_CLAMP), s29);
    bsync_time_advance(&t, &f); /* exactly one cycle */
    assert_int_equal(t.cycles, 1);
    assert_int_equal(t.phase, 0);
    assert_int_equal(t.carry, 0);
    assert_int_equal(bsync_time_seconds(&t, d, BSYNC_LOOP_WRAP), 0);
    assert_int_equal(bsync_time_seconds(&t, d, BSYNC_LOOP_CLAMP), d);
    bsync_time_advance_n(&t, &f, 1000);
    assert_int_equal(bsync_time_seconds(&t, d, BSYNC_LOOP_CLAMP), d);

    /* one tick backward from the start: cycle -1, wrap shows 29/30 s, clamp shows 0 */
    bsync_clip_time u = bsync_time_start();
    bsync_time_advance(&u, &b);
    assert_int_equal(u.cycles, -1);
    assert_int_equal(bsync_time_seconds(&u, d, BSYNC_LOOP_WRAP), s29);
    assert_int_equal(bsync_time_seconds(&u, d, BSYNC_LOOP_CLAMP), 0);

    /* wrap: floor(phase * duration / 2^32), in [0, duration), for random phases and durations */
    uint64_t seed = 11;
    for (int i = 0; i < 20000; i++) {
        bsync_clip_time x = bsync_time_start();
        x.phase = (uint32_t)bsync_test_rand(&seed);
        fix16_t dur = (fix16_t)(1 + rand_below(&seed, 0x7FFFFFFE));
        fix16_t s = bsync_time_seconds(&x, dur, BSYNC_LOOP_WRAP);
        assert_true(s >= 0 && s < dur);
        double exact = (double)x.phase / 4294967296.0 * (double)dur;
        assert_true((double)s <= exact + 1e-6 && exact < (double)s + 1.0 + 1e-6);
    }
    assert_int_equal(bsync_time_seconds(&t, 0, BSYNC_LOOP_WRAP), 0);
    assert_int_equal(bsync_time_seconds(NULL, d, BSYNC_LOOP_WRAP), 0);
}

static void test_ticks_to_seconds(void** state) {
    (void)state;
    assert_int_equal(bsync_time_ticks_to_seconds(0, 30), 0);
    assert_int_equal(bsync_time_ticks_to_seconds(30, 30), 65536);
    assert_int_equal(bsync_time_ticks_to_seconds(1, 30), 2185);    /* 2184.53 */
    assert_int_equal(bsync_time_ticks_to_seconds(-1, 30), -2185);
    assert_int_equal(bsync_time_ticks_to_seconds(1, 3), 21845);    /* 21845.33 */
    assert_int_equal(bsync_time_ticks_to_seconds(2, 3), 43691);    /* 43690.67 */
    assert_int_equal(bsync_time_ticks_to_seconds(1, 1000), 66);    /* 65.536 */
    assert_int_equal(bsync_time_ticks_to_seconds(108000, 30), 3600 * 65536);
    assert_int_equal(bsync_time_ticks_to_seconds(32767LL * 60, 60), 32767 * 65536);
    assert_int_equal(bsync_time_ticks_to_seconds(32768LL * 60, 60), BSYNC_FX_MAX);
    assert_int_equal(bsync_time_ticks_to_seconds(-32768LL * 60, 60), BSYNC_FX_MIN);
    assert_int_equal(bsync_time_ticks_to_seconds(INT64_MAX, 1), BSYNC_FX_MAX);
    assert_int_equal(bsync_time_ticks_to_seconds(INT64_MIN, 7), BSYNC_FX_MIN);
    assert_int_equal(bsync_time_ticks_to_seconds(12345, 0), 0);
    /* against libm rounding for a sweep (no ties exist: 65536 * t / r is never x.5 for r <= 1000) */
    uint64_t seed = 3;
    for (int i = 0; i < 20000; i++) {
        uint32_t rate = (uint32_t)(1 + rand_below(&seed, 1000));
        int64_t ticks = (int64_t)rand_below(&seed, 2000000) - 1000000;
        double v = (double)ticks * 65536.0 / (double)rate;
        double want = v < 0 ? -floor(-v + 0.5) : floor(v + 0.5);
        if (want > 2147483647.0) want = 2147483647.0;
        if (want < -2147483647.0) want = -2147483647.0;
        assert_int_equal(bsync_time_ticks_to_seconds(ticks, rate), (fix16_t)want);
    }
}

static void test_null_safety(void** state) {
    (void)state;
    bsync_time_step s;
    assert_int_equal(bsync_time_step_init(BSYNC_FX_ONE, BSYNC_FX_ONE, 30, &s), BSYNC_OK);
    bsync_clip_time t = bsync_time_start();
    bsync_time_advance(NULL, &s);
    bsync_time_advance(&t, NULL);
    bsync_time_advance_n(NULL, &s, 5);
    bsync_time_advance_n(&t, NULL, 5);
    bsync_time_advance_n(&t, &s, 0);
    bsync_clip_time z = bsync_time_start();
    assert_memory_equal(&t, &z, sizeof t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_step_init_codes),     cmocka_unit_test(test_long_run_exact),
        cmocka_unit_test(test_phase_wraps),         cmocka_unit_test(test_advance_n_equals_loop),
        cmocka_unit_test(test_saturation),          cmocka_unit_test(test_huge_n),
        cmocka_unit_test(test_reverse_returns_exactly), cmocka_unit_test(test_one_hour_no_drift),
        cmocka_unit_test(test_seconds_modes),       cmocka_unit_test(test_ticks_to_seconds),
        cmocka_unit_test(test_null_safety),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
