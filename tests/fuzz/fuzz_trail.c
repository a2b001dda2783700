/* fuzz_trail.c — desync trail bytes (io/trail.h), the one client upload the server parses beyond a
 * snapshot: parse, and walk every entry when it parses. Each input is tried as it is and once more
 * re-sealed (its last 8 bytes replaced by the XXH64 of the rest), so mutations reach the structure
 * checks behind the checksum. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/io/trail.h"
#include "fuzz_target.h"

static void walk(const uint8_t* data, size_t size) {
    bsync_trail t;
    bsync_error err;
    if (bsync_trail_parse(data, size, &t, &err) != BSYNC_OK) return;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < t.tick_count; i++)
        for (uint32_t k = 0; k < t.character_count; k++) {
            const uint8_t* e = NULL;
            size_t n = 0;
            if (bsync_trail_entry(&t, i, k, &e, &n) != BSYNC_OK) abort(); /* parse accepted it: every entry is there */
            if (e < data || e + n > data + size) abort();
            sum += n ? e[0] + e[n - 1] : 0; /* touch both ends (ASan sees an overread) */
        }
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    walk(data, size);
    if (size < 8) return 0;
    uint8_t* sealed = malloc(size);
    if (!sealed) return 0;
    memcpy(sealed, data, size);
    uint64_t h = bsync_checksum_xxh64(sealed, size - 8, BSYNC_TRAIL_SEED);
    for (int i = 0; i < 8; i++) sealed[size - 8 + (size_t)i] = (uint8_t)(h >> (8 * i));
    walk(sealed, size);
    free(sealed);
    return 0;
}
