/* fuzz_replay.c — the replay reader (io/replay.h) from memory: bsync_replay_reader_open_memory and
 * every record to the end, with the format's oracles (abort() on a break):
 *   - canonical: every record read re-encodes (bsync_replay_encode_record, with the file's header) to
 *     exactly its bytes in the input, and valid_bytes ends right after it;
 *   - after anything but OK, the reader keeps returning the same status.
 * Each input is read as it is and once more with every record's XXH64 re-sealed (walking the record
 * lengths), so mutations reach the body checks behind the checksums.
 * Seeds: replays written by `blendsync replay record`, `replay cut` and the server (make_seeds.sh). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/io/replay.h"
#include "fuzz_target.h"

static bsync_replay_record rec;

static uint32_t u32_at(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static void walk(const uint8_t* data, size_t size) {
    bsync_replay_reader* r = NULL;
    if (bsync_replay_reader_open_memory(data, size, &r) != BSYNC_OK) return;
    char detail[160];
    bsync_replay_status st;
    for (;;) {
        st = bsync_replay_reader_next(r, &rec, detail, sizeof detail);
        if (st != BSYNC_REPLAY_OK) break;
        if (rec.offset + rec.size > size || bsync_replay_reader_valid_bytes(r) != rec.offset + rec.size) abort();
        const bsync_replay_header* h = rec.type == BSYNC_REPLAY_HEADER ? NULL : bsync_replay_reader_header(r);
        if (rec.type != BSYNC_REPLAY_HEADER && !h) abort();
        size_t n = 0;
        if (bsync_replay_encode_record(&rec, h, NULL, 0, &n) != BSYNC_OK || n != rec.size) abort();
        uint8_t* out = malloc(n);
        if (!out) break;
        if (bsync_replay_encode_record(&rec, h, out, n, &n) != BSYNC_OK || n != rec.size ||
            memcmp(out, data + rec.offset, n) != 0)
            abort();
        free(out);
    }
    if (bsync_replay_reader_next(r, NULL, NULL, 0) != st) abort();
    (void)bsync_replay_status_string(st);
    bsync_replay_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    walk(data, size);
    if (size < BSYNC_REPLAY_MAGIC_SIZE + BSYNC_REPLAY_RECORD_OVERHEAD) return 0;
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
    walk(sealed, size);
    free(sealed);
    return 0;
}
