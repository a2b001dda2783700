/* fuzz_snapshot.c — match snapshots (match.h "Snapshot bytes"): bsync_match_load of any bytes into a
 * match of the fuzz match (fuzz_match.h), as it is and with its trailing XXH64 re-sealed so mutations
 * reach the checks behind it. Oracles (abort() on a break):
 *   - a refused load leaves the match untouched (it saves to the fresh match's bytes);
 *   - an accepted one saves back to exactly the input bytes (save's size says the same), loads again
 *     into a second match with the same root checksums, and both ticks of one frame agree.
 * Seeds: server.bsms, client.bsms and server-previous.bsms of a real desync bundle (make_seeds.sh). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_match.h"
#include "fuzz_target.h"

static bsync_match *fresh, *work, *other;
static size_t mem_size;
static uint8_t *out, *fresh_bytes;
static size_t out_cap, fresh_len;

static void init(void) {
    if (fresh) return;
    fresh = fuzz_match_new(&mem_size);
    work = fuzz_match_new(NULL);
    other = fuzz_match_new(NULL);
    out_cap = bsync_match_snapshot_size_max(fresh);
    out = malloc(out_cap);
    fresh_bytes = malloc(out_cap);
    if (!out || !fresh_bytes || bsync_match_save(fresh, fresh_bytes, out_cap, &fresh_len) != BSYNC_OK) abort();
}

static void try_load(const uint8_t* data, size_t size) {
    memcpy(work, fresh, mem_size); /* "a memcpy of memory_size bytes is a working copy" */
    if (bsync_match_load(work, data, size) != BSYNC_OK) {
        size_t n = 0; /* untouched on failure: it saves as the fresh match does */
        if (bsync_match_save(work, out, out_cap, &n) != BSYNC_OK || n != fresh_len || memcmp(out, fresh_bytes, n) != 0) abort();
        return;
    }
    size_t n = 0;
    if (bsync_match_snapshot_size(work) != size || bsync_match_save(work, out, out_cap, &n) != BSYNC_OK || n != size ||
        memcmp(out, data, size) != 0)
        abort();
    memcpy(other, fresh, mem_size);
    if (bsync_match_load(other, out, n) != BSYNC_OK) abort();
    bsync_match_checksums a, b;
    if (bsync_match_get_checksums(work, 0, &a) != BSYNC_OK || bsync_match_get_checksums(other, 0, &b) != BSYNC_OK ||
        a.blend != b.blend)
        abort();
    bsync_match_frame f;
    memset(&f, 0, sizeof f);
    f.player_count = bsync_match_get_desc(work)->player_count;
    for (uint32_t p = 0; p < f.player_count; p++)
        for (uint32_t i = 0; i < BSYNC_MATCH_MAX_PARAMS; i++) f.players[p].params[i] = (fix16_t)(data[(p * 7 + i) % size] << 8);
    if (bsync_match_tick(work, &f) != BSYNC_OK || bsync_match_tick(other, &f) != BSYNC_OK) abort();
    if (bsync_match_get_checksums(work, 0, &a) != BSYNC_OK || bsync_match_get_checksums(other, 0, &b) != BSYNC_OK ||
        a.blend != b.blend)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    init();
    try_load(data, size);
    uint8_t* sealed = fuzz_reseal(data, size, 0);
    if (sealed) {
        try_load(sealed, size);
        free(sealed);
    }
    return 0;
}
