/* fuzz_desync.c — desync dumps (io/desync.h): two match snapshots of the fuzz match (fuzz_match.h), A
 * then B (A's length from its own "total length" field, B the rest; each re-sealed), loaded and
 * compared by bsync_desync_describe. Oracles: a state described against itself has no difference;
 * the text stays inside its buffer and is NUL-terminated. Then the inputs.csv of a desync bundle:
 * frames made from the input bytes (every fix16 value but INT32_MIN) written by
 * bsync_desync_inputs_csv must parse back with bsync_desync_bundle_inputs_parse to the same frames
 * (desync_bundle.h: its inverse), and the size query must say the bytes written.
 * Seeds: a desync bundle's server.bsms followed by its client.bsms (make_seeds.sh). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/desync.h"
#include "blendsync/io/desync_bundle.h"
#include "fuzz_match.h"
#include "fuzz_target.h"

static bsync_match *fresh, *ma, *mb;
static size_t mem_size;
static char text[16384];
static bsync_match_frame frames[8], back[8];
static uint16_t defaulted[8];

static uint32_t u32_at(const uint8_t* p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

static int load(bsync_match* m, const uint8_t* data, size_t size) {
    memcpy(m, fresh, mem_size);
    if (bsync_match_load(m, data, size) == BSYNC_OK) return 1;
    uint8_t* s = fuzz_reseal(data, size, 0);
    int ok = s && bsync_match_load(m, s, size) == BSYNC_OK;
    free(s);
    return ok;
}

static void describe(bsync_match* a, bsync_match* b, const bsync_match_config* cfg, int same) {
    memset(text, 0x5A, sizeof text);
    size_t cap = (sizeof text - 1) / (same ? 1 : 3); /* text[cap] stays untouched */
    unsigned lines = bsync_desync_describe(a, b, cfg, text, cap);
    if (memchr(text, 0, cap) == NULL || text[cap] != 0x5A) abort();
    if (same && lines != 0) abort();
}

static void csv_roundtrip(const uint8_t* data, size_t size) {
    const bsync_match_config* cfg = fuzz_match_config();
    const bsync_match_desc* d = bsync_match_config_desc(cfg);
    uint8_t h[5];
    for (int q = 0; q < 5; q++) h[q] = data[(size_t)q % size];
    uint32_t count = 1 + h[0] % 8, first = u32_at(h + 1) % 1000000u;
    memset(frames, 0, sizeof frames);
    size_t k = 5;
    for (uint32_t i = 0; i < count; i++) {
        frames[i].player_count = d->player_count;
        defaulted[i] = (uint16_t)(data[k++ % size] & ((1u << d->player_count) - 1u));
        for (uint32_t p = 0; p < d->player_count; p++) {
            for (uint32_t j = 0; j < d->param_count; j++, k += 4) {
                uint8_t b4[4];
                for (int q = 0; q < 4; q++) b4[q] = data[(k + (size_t)q) % size];
                fix16_t v = (fix16_t)u32_at(b4);
                frames[i].players[p].params[j] = v == INT32_MIN ? INT32_MIN + 1 : v;
            }
            for (uint32_t j = 0; j < d->trigger_count; j++) frames[i].players[p].triggers[j] = data[k++ % size];
        }
    }
    size_t need = bsync_desync_inputs_csv(d, (data[0] & 0x80) ? NULL : cfg, frames, defaulted, first, count, NULL, 0);
    char* csv = malloc(need + 1);
    if (!csv) return;
    if (bsync_desync_inputs_csv(d, (data[0] & 0x80) ? NULL : cfg, frames, defaulted, first, count, csv, need + 1) != need ||
        strlen(csv) != need)
        abort();
    bsync_error err;
    if (bsync_desync_bundle_inputs_parse(csv, need, "inputs.csv", d, first, count, back, NULL, &err) != BSYNC_OK) abort();
    if (bsync_desync_bundle_inputs_rows(csv, need) != (size_t)count * d->player_count) abort();
    for (uint32_t i = 0; i < count; i++) {
        if (back[i].player_count != d->player_count) abort();
        for (uint32_t p = 0; p < d->player_count; p++)
            if (memcmp(back[i].players[p].params, frames[i].players[p].params, d->param_count * sizeof(fix16_t)) ||
                memcmp(back[i].players[p].triggers, frames[i].players[p].triggers, d->trigger_count))
                abort();
    }
    free(csv);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!fresh) {
        fresh = fuzz_match_new(&mem_size);
        ma = fuzz_match_new(NULL);
        mb = fuzz_match_new(NULL);
    }
    if (size == 0) return 0;
    size_t split = size >= 24 ? u32_at(data + 16) : size;
    if (split > size) split = size;
    int a = load(ma, data, split), b = load(mb, data + split, size - split);
    const bsync_match_config* cfg = (data[size - 1] & 1) ? fuzz_match_config() : NULL;
    if (a) describe(ma, ma, cfg, 1);
    if (a && b) describe(ma, mb, cfg, 0);
    csv_roundtrip(data, size);
    return 0;
}
