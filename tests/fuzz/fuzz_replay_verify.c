/* fuzz_replay_verify.c — replay verification from memory (io/replay_verify.h): bsync_replay_verify_memory
 * of any bytes against the fuzz match (fuzz_match.h, given as options.config, so no file is searched),
 * with every record's XXH64 re-sealed so mutated frames, checksums, snapshots and desyncs are
 * re-simulated and compared. Options vary with the input's first byte: stop at the first mismatch or
 * go on, start from a snapshot (has_from), keep the states for an on_mismatch callback. Oracles: a
 * verdict in range, VERIFIED exactly when BSYNC_OK is returned, a mismatch count matching the verdict,
 * at most one callback per mismatch, and the callback's states inside their buffers.
 * Seeds: the fuzz match's replays from `blendsync replay record`, `replay cut` and the server. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/replay_verify.h"
#include "fuzz_match.h"
#include "fuzz_target.h"

static uint32_t u32_at(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static void on_mismatch(const bsync_replay_verify_states* s, void* user) {
    unsigned* calls = user;
    ++*calls;
    if (!s->mismatch || !s->here || !s->previous || (s->frame_count && (!s->frames || !s->defaulted))) abort();
    volatile uint8_t t = s->here[s->here_len - 1];
    t = s->previous[s->previous_len - 1];
    if (s->recorded && s->recorded_len) t = s->recorded[s->recorded_len - 1];
    if (s->frame_count) t = (uint8_t)s->frames[s->frame_count - 1].player_count;
    (void)t;
}

static void verify(const uint8_t* data, size_t size, uint8_t knobs) {
    bsync_replay_verify_options o;
    memset(&o, 0, sizeof o);
    o.config = fuzz_match_config();
    o.continue_after_mismatch = knobs & 1;
    o.has_from = (knobs >> 1) & 1;
    o.from = (uint32_t)knobs * 3u;
    unsigned calls = 0;
    if (knobs & 4) {
        o.on_mismatch = on_mismatch;
        o.user = &calls;
    }
    bsync_replay_verify_result res;
    bsync_result r = bsync_replay_verify_memory(data, size, &o, &res);
    if ((unsigned)res.verdict > BSYNC_VERIFY_UNUSABLE) abort();
    if ((r == BSYNC_OK) != (res.verdict == BSYNC_VERIFY_VERIFIED)) abort();
    if (res.verdict == BSYNC_VERIFY_MISMATCH && (res.mismatches == 0 || res.first_mismatch.kind == BSYNC_VERIFY_NONE)) abort();
    if (res.verdict == BSYNC_VERIFY_VERIFIED && res.mismatches != 0) abort();
    if (calls > res.mismatches) abort(); /* called per mismatch once a state agreed */
    if (res.desync_count && !res.desyncs) abort();
    bsync_replay_verify_result_destroy(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < BSYNC_REPLAY_MAGIC_SIZE + BSYNC_REPLAY_RECORD_OVERHEAD) {
        verify(data, size, 0);
        return 0;
    }
    uint8_t* sealed = malloc(size);
    if (!sealed) return 0;
    memcpy(sealed, data, size);
    size_t pos = BSYNC_REPLAY_MAGIC_SIZE;
    while (pos + BSYNC_REPLAY_RECORD_OVERHEAD <= size) {
        uint32_t n = u32_at(sealed + pos + 4);
        if (n > size - pos - BSYNC_REPLAY_RECORD_OVERHEAD) break;
        uint64_t h = bsync_checksum_xxh64(sealed + pos, 8u + n, BSYNC_REPLAY_RECORD_SEED);
        for (int i = 0; i < 8; i++) sealed[pos + 8 + n + (size_t)i] = (uint8_t)(h >> (8 * i));
        pos += BSYNC_REPLAY_RECORD_OVERHEAD + n;
    }
    verify(sealed, size, data[size - 1]);
    free(sealed);
    return 0;
}
