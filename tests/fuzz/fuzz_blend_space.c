/* fuzz_blend_space.c — arbitrary blend-space layouts and parameters (blend_space.h): the bytes choose
 * the type, the child count, the thresholds/positions (any int32), the power and the parameters.
 * Whatever builds must evaluate to weights >= 0 that sum to exactly one (all types but Direct). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/blend_space.h"
#include "fuzz_target.h"

static uint32_t take32(const uint8_t** p, size_t* left) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        v |= (uint32_t)(*left ? **p : 0) << (8 * i);
        if (*left) { (*p)++; (*left)--; }
    }
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const uint8_t* p = data;
    size_t left = size;
    uint32_t head = take32(&p, &left);
    bsync_blend_space_desc d;
    memset(&d, 0, sizeof d);
    d.type = (bsync_blend_type)(head % BSYNC_BLEND_TYPE_COUNT);
    d.child_count = 1 + (head >> 8) % 16;
    d.power = (head >> 16) % 10;
    d.normalize = (int)((head >> 24) & 1);
    fix16_t thresholds[16];
    bsync_vec2 positions[16];
    /* small coordinates most of the time (so layouts are interesting), any int32 sometimes */
    int wide = (head >> 25) & 1;
    for (uint32_t i = 0; i < d.child_count; i++) {
        uint32_t a = take32(&p, &left), b = take32(&p, &left);
        thresholds[i] = wide ? (fix16_t)a : (fix16_t)(int32_t)((a & 0x7FFFF) - 0x40000);
        positions[i].x = thresholds[i];
        positions[i].y = wide ? (fix16_t)b : (fix16_t)(int32_t)((b & 0x7FFFF) - 0x40000);
    }
    d.thresholds = thresholds;
    d.positions = positions;
    bsync_blend_space* bs = NULL;
    if (bsync_blend_space_create(&d, NULL, &bs, NULL) != BSYNC_OK) return 0;
    fix16_t params[16], w[16];
    for (int k = 0; k < 8; k++) {
        for (int i = 0; i < 16; i++) params[i] = (fix16_t)take32(&p, &left);
        if (bsync_blend_space_eval(bs, params, bsync_blend_space_param_count(bs), w) != BSYNC_OK) abort();
        if (d.type == BSYNC_BLEND_DIRECT) continue;
        int64_t sum = 0;
        for (uint32_t i = 0; i < d.child_count; i++) {
            if (w[i] < 0) abort();
            sum += w[i];
        }
        if (sum != 65536) abort();
    }
    bsync_blend_space_destroy(bs);
    return 0;
}
