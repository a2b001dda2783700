/* internal/le.h — explicit little-endian fields: the one set of byte-order helpers for every file,
 * hash stream, snapshot and packet the project writes or reads (no raw memory is ever copied into
 * one). Header-only and force-inlined, so the checksum's hot loop costs what a hand-written load does.
 * Internal: reached as "internal/le.h" through the include root shared/src (docs/library.md). */
#ifndef BLENDSYNC_INTERNAL_LE_H
#define BLENDSYNC_INTERNAL_LE_H

#include <stdint.h>

#include "force_inline.h"

static BSYNC_FORCE_INLINE void bsync_le_put16(uint8_t* p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}
static BSYNC_FORCE_INLINE void bsync_le_put32(uint8_t* p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}
static BSYNC_FORCE_INLINE void bsync_le_put64(uint8_t* p, uint64_t v) {
    bsync_le_put32(p, (uint32_t)v);
    bsync_le_put32(p + 4, (uint32_t)(v >> 32));
}
static BSYNC_FORCE_INLINE uint32_t bsync_le_get16(const uint8_t* p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }
static BSYNC_FORCE_INLINE uint32_t bsync_le_get32(const uint8_t* p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static BSYNC_FORCE_INLINE uint64_t bsync_le_get64(const uint8_t* p) { /* one OR tree: compilers emit one load */
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
           ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) | ((uint64_t)p[7] << 56);
}

#endif
