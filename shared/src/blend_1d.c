/* blend_1d.c — Simple1D: tents between sorted thresholds, clamped at the ends.
 *
 * impl: fix16_t sorted[n] (ascending; equal values keep desc order), uint8_t order[n] (the child of
 * each sorted slot). Eval: the parameter is clamped to [first, last]; if it equals one or more
 * thresholds exactly those children share BSYNC_FX_ONE equally (an exact hit, a clamped end, or the
 * shared value of duplicates); otherwise it lies strictly between the last threshold below it (the
 * right-most of its duplicates) and the first above it (the left-most of its duplicates), which get
 * 1 - f and f with f = round((p - lo) / (hi - lo) * 2^16). */
#include "internal/blend_types.h"

size_t bsync_b1d_size_(uint32_t n) { return (size_t)n * sizeof(fix16_t) + n; }

size_t bsync_b1d_canonical_(const void* impl, uint32_t n, const bsync_canon_sink* sink) {
    const fix16_t* t = (const fix16_t*)impl;
    for (uint32_t i = 0; i < n; i++) bsync_canon_u32_(sink, (uint32_t)t[i]);
    bsync_canon_bytes_(sink, t + n, n); /* order[n]: bytes */
    return bsync_b1d_size_(n);
}

void bsync_b1d_build_(void* impl, const fix16_t* thresholds, uint32_t n, bsync_blend_diagnostics* diag) {
    fix16_t* t = (fix16_t*)impl;
    uint8_t* order = (uint8_t*)(t + n);
    for (uint32_t i = 0; i < n; i++) { /* stable insertion sort by value */
        uint32_t k = i;
        while (k > 0 && t[k - 1] > thresholds[i]) {
            t[k] = t[k - 1];
            order[k] = order[k - 1];
            k--;
        }
        t[k] = thresholds[i];
        order[k] = (uint8_t)i;
    }
    for (uint32_t k = 1; k < n; k++)
        if (t[k] == t[k - 1]) bsync_blend_diag_add_(diag, BSYNC_BLEND_WARN_DUPLICATE_THRESHOLD, order[k - 1], order[k]);
}

void bsync_b1d_eval_(const void* impl, uint32_t n, fix16_t p, fix16_t* w) {
    const fix16_t* t = (const fix16_t*)impl;
    const uint8_t* order = (const uint8_t*)(t + n);
    for (uint32_t i = 0; i < n; i++) w[i] = 0;
    if (p < t[0]) p = t[0];
    if (p > t[n - 1]) p = t[n - 1];
    uint32_t lo = 0, hi = n; /* first slot with t >= p */
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (t[mid] < p) lo = mid + 1;
        else hi = mid;
    }
    if (t[lo] == p) {
        uint32_t end = lo;
        while (end < n && t[end] == p) end++;
        fix16_t share = (fix16_t)(BSYNC_FX_ONE / (int32_t)(end - lo));
        for (uint32_t k = lo; k < end; k++) w[order[k]] = share;
        return;
    }
    /* t[lo - 1] < p < t[lo]; lo >= 1 because p >= t[0] */
    uint64_t num = (uint64_t)((int64_t)p - t[lo - 1]), den = (uint64_t)((int64_t)t[lo] - t[lo - 1]);
    fix16_t f = (fix16_t)bsync_blend_frac_q16_(num, den);
    w[order[lo]] = f;
    w[order[lo - 1]] = (fix16_t)(BSYNC_FX_ONE - f);
}
