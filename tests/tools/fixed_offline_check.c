/* fixed_offline_check.c — offline checks of the fixed-point core (not a ctest case; too slow).
 *
 * Build by hand against the core sources, e.g.
 *   cc -O2 -std=c11 -Ishared/include tests/tools/fixed_offline_check.c shared/src/fixed*.c \
 *      -DWITH_LIBFIXMATH -llibfixmath -lm -o /tmp/fxcheck
 * Modes:
 *   hash        digest of every fixed.h function over a fixed pseudo-random input set; build it with
 *               gcc and clang, -O0 and -O3, -m32 (drop -DWITH_LIBFIXMATH there) and compare digests.
 *   sqrt        EVERY x in [0, 2^31): bsync_fx_sqrt == fix16_sqrt (WITH_LIBFIXMATH), and the max
 *               error against the exact root in raw steps.
 *   trig        EVERY int32 angle: max |sin/cos error| against libm.
 *   div N       N random pairs per magnitude class: bsync_fx_div == fix16_div where not overflowing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/fixed.h"

static uint64_t rnd(uint64_t* s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t g_hash = 1469598103934665603ull;
static void mix(int32_t v) {
    for (int i = 0; i < 4; i++) {
        g_hash ^= (uint32_t)v >> (8 * i) & 0xFF;
        g_hash *= 1099511628211ull;
    }
}

static int32_t draw(uint64_t* s) {
    uint64_t r = rnd(s);
    unsigned bits = (unsigned)(r % 33);
    int64_t v = bits == 32 ? (int64_t)(int32_t)(uint32_t)(r >> 16) : (int64_t)((r >> 8) & ((1ull << bits) - 1));
    if (bits < 32 && (r >> 63)) v = -v;
    return (int32_t)v;
}

static int mode_hash(void) {
    uint64_t s = 12345;
    for (int i = 0; i < 2000000; i++) {
        int32_t a = draw(&s), b = draw(&s), c = draw(&s), d = draw(&s);
        mix(bsync_fx_mul(a, b));
        mix(bsync_fx_div(a, b));
        mix(bsync_fx_sqrt(a));
        mix(bsync_fx_lerp(a, b, c));
        mix(bsync_fx_sin(a));
        mix(bsync_fx_cos(a));
        mix(bsync_fx_atan2(a, b));
        bsync_vec3 u = bsync_vec3_make(a, b, c), v = bsync_vec3_make(d, a, b);
        mix(bsync_vec3_dot(u, v));
        bsync_vec3 x = bsync_vec3_cross(u, v);
        mix(x.x); mix(x.y); mix(x.z);
        mix(bsync_vec3_length(u));
        mix(bsync_vec3_angle(u, v));
        bsync_quat q = bsync_quat_normalize(bsync_quat_make(a, b, c, d));
        mix(q.x); mix(q.y); mix(q.z); mix(q.w);
        bsync_quat r = bsync_quat_from_axis_angle(u, d);
        mix(r.x); mix(r.y); mix(r.z); mix(r.w);
        bsync_quat m = bsync_quat_mul(q, r);
        mix(m.x); mix(m.y); mix(m.z); mix(m.w);
        bsync_quat n = bsync_quat_nlerp(q, r, c & 0x1FFFF);
        mix(n.x); mix(n.y); mix(n.z); mix(n.w);
        bsync_vec3 w = bsync_quat_rotate(q, v);
        mix(w.x); mix(w.y); mix(w.z);
        char buf[16];
        size_t len = bsync_fx_format(a, buf, sizeof buf);
        fix16_t p = 0;
        mix((int32_t)len);
        mix(bsync_fx_parse(buf, len, &p));
        mix(p);
    }
    printf("hash %016llx\n", (unsigned long long)g_hash);
    return 0;
}

static int mode_sqrt(void) {
    double max_err = 0;
    int32_t worst = 0;
    long mismatches = 0;
    for (int64_t x = 0; x <= 0x7FFFFFFF; x++) {
        fix16_t r = bsync_fx_sqrt((fix16_t)x);
#ifdef WITH_LIBFIXMATH
        if (r != fix16_sqrt((fix16_t)x) && mismatches++ < 10)
            printf("mismatch %lld: ours %d fix16_sqrt %d\n", (long long)x, r, fix16_sqrt((fix16_t)x));
#endif
        double e = fabs((double)r - sqrt((double)x * 65536.0));
        if (e > max_err) { max_err = e; worst = (int32_t)x; }
    }
    printf("sqrt: 2^31 inputs, %ld mismatches vs fix16_sqrt, max error %.6f raw steps (%.3g) at %d\n",
           mismatches, max_err, max_err / 65536.0, worst);
    return mismatches != 0;
}

static int mode_trig(void) {
    double es = 0, ec = 0;
    for (int64_t a = INT32_MIN; a <= INT32_MAX; a++) {
        double x = (double)a / 65536.0;
        double e = fabs(bsync_fx_sin((fix16_t)a) / 65536.0 - sin(x));
        if (e > es) es = e;
        e = fabs(bsync_fx_cos((fix16_t)a) / 65536.0 - cos(x));
        if (e > ec) ec = e;
    }
    printf("trig: every int32 angle: max |sin error| %.4g (%.5f steps), max |cos error| %.4g (%.5f steps)\n", es,
           es * 65536, ec, ec * 65536);
    return 0;
}

static int mode_div(long n) {
#ifdef WITH_LIBFIXMATH
    uint64_t s = 99;
    long compared = 0, mismatches = 0;
    double max_err = 0;
    for (long i = 0; i < n; i++) {
        int32_t a = draw(&s), b = draw(&s);
        if (b == 0) continue;
        fix16_t ref = fix16_div(a, b);
        if (ref == fix16_overflow) continue;
        fix16_t ours = bsync_fx_div(a, b);
        compared++;
        if (ours != ref && mismatches++ < 10) printf("mismatch %d / %d: ours %d fix16_div %d\n", a, b, ours, ref);
        double e = fabs((double)ours - (double)a * 65536.0 / (double)b);
        if (e > max_err) max_err = e;
    }
    printf("div: %ld compared, %ld mismatches, max error %.6f raw steps\n", compared, mismatches, max_err);
    return mismatches != 0;
#else
    (void)n;
    printf("div needs -DWITH_LIBFIXMATH\n");
    return 1;
#endif
}

int main(int argc, char** argv) {
    if (argc >= 2 && strcmp(argv[1], "hash") == 0) return mode_hash();
    if (argc >= 2 && strcmp(argv[1], "sqrt") == 0) return mode_sqrt();
    if (argc >= 2 && strcmp(argv[1], "trig") == 0) return mode_trig();
    if (argc >= 2 && strcmp(argv[1], "div") == 0) return mode_div(argc >= 3 ? atol(argv[2]) : 100000000L);
    fprintf(stderr, "usage: %s hash | sqrt | trig | div [N]\n", argv[0]);
    return 2;
}
