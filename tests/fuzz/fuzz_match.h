/* fuzz_match.h — the fixed match some fuzz targets read their inputs against: tests/fuzz/match/match.json
 * (2 players, 3 characters on the built-in humanoid, one of them an NPC), loaded once per process from
 * BSYNC_FUZZ_MATCH_DIR (compiled in by tests/fuzz/CMakeLists.txt and scripts/fuzz.sh). The seeds of
 * those targets were made from this match by tests/fuzz/make_seeds.sh, so their match hash is its own.
 * Aborts when the match cannot be loaded (a broken build, not a finding). */
#ifndef BSYNC_FUZZ_MATCH_H
#define BSYNC_FUZZ_MATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/io/match_config.h"
#include "blendsync/match.h"

#ifndef BSYNC_FUZZ_MATCH_DIR
#error "BSYNC_FUZZ_MATCH_DIR (the tests/fuzz/match directory) must be defined"
#endif

static inline bsync_match_config* fuzz_match_config(void) {
    static bsync_match_config* cfg;
    if (!cfg) {
        bsync_error err;
        memset(&err, 0, sizeof err);
        if (bsync_match_config_load(BSYNC_FUZZ_MATCH_DIR "/match.json", NULL, &cfg, &err) != BSYNC_OK) {
            fprintf(stderr, "fuzz: cannot load %s/match.json: %s\n", BSYNC_FUZZ_MATCH_DIR, err.message);
            abort();
        }
    }
    return cfg;
}

/* A fresh match of the fuzz config in 8-byte aligned heap memory (free with free()). */
static inline bsync_match* fuzz_match_new(size_t* size_out) {
    const bsync_match_desc* d = bsync_match_config_desc(fuzz_match_config());
    size_t size = bsync_match_memory_size(d);
    void* mem = aligned_alloc(8, (size + 7) & ~(size_t)7);
    bsync_match* m = NULL;
    if (!mem || bsync_match_init(mem, size, d, &m) != BSYNC_OK) abort();
    if (size_out) *size_out = size;
    return m;
}

/* A copy of bytes whose last 8 bytes are replaced by the XXH64 (seed `seed`) of the rest, so mutations
 * reach the checks behind a trailing checksum (match snapshots: seed 0; trails: BSYNC_TRAIL_SEED).
 * NULL when size < 8 (free with free()). */
static inline uint8_t* fuzz_reseal(const uint8_t* data, size_t size, uint64_t seed) {
    if (size < 8) return NULL;
    uint8_t* s = (uint8_t*)malloc(size);
    if (!s) return NULL;
    memcpy(s, data, size);
    uint64_t h = bsync_checksum_xxh64(s, size - 8, seed);
    for (int i = 0; i < 8; i++) s[size - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
    return s;
}

#endif
