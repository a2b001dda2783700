/* bench_util.h — the clock and the sort the benchmark programs share (header-only). */
#ifndef BSYNC_BENCH_UTIL_H
#define BSYNC_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

/* Monotonic clock in nanoseconds. */
static inline double bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void* x, const void* y) {
    double a = *(const double*)x, b = *(const double*)y;
    return (a > b) - (a < b);
}

/* Sort n >= 1 timings ascending: then s[0] is the minimum and s[n / 2] the median. */
static inline void bench_sort(double* s, int n) { qsort(s, (size_t)n, sizeof *s, bench_cmp_double); }

#endif
