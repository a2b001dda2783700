/* trail.c — see blendsync/io/trail.h. */
#include "blendsync/io/trail.h"

#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/instance.h"
#include "file_internal.h"
#include "internal/le.h"

#define TRAIL_MAGIC "BSTR"
#define TRAIL_ENTRY_MAX 65536u


static size_t header_size(uint32_t character_count) { return 28u + 4u * (size_t)character_count; }

/* Writes ticks [from, count) of the snapshots; BSYNC_BUFFER_TOO_SMALL when they do not fit. */
static bsync_result write_from(bsync_match* scratch, const uint8_t* const* snaps, const size_t* lens, uint32_t count,
                               uint32_t from, uint32_t first_tick, const uint32_t* characters, uint32_t nc,
                               uint8_t* out, size_t cap, size_t* written, bsync_error* err) {
    const size_t head = header_size(nc);
    if (cap < head + 8u) return BSYNC_BUFFER_TOO_SMALL;
    memcpy(out, TRAIL_MAGIC, 4);
    bsync_le_put32(out + 4, BSYNC_TRAIL_VERSION);
    bsync_le_put64(out + 8, bsync_match_hash(bsync_match_get_desc(scratch)));
    bsync_le_put32(out + 16, first_tick + from);
    bsync_le_put32(out + 20, count - from);
    bsync_le_put32(out + 24, nc);
    for (uint32_t k = 0; k < nc; k++) bsync_le_put32(out + 28 + 4u * k, characters[k]);
    size_t at = head;
    for (uint32_t i = from; i < count; i++) {
        bsync_result r = bsync_match_load(scratch, snaps[i], lens[i]);
        if (r != BSYNC_OK) {
            bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "trail: the snapshot of tick %u does not load (%s)",
                               first_tick + i, bsync_result_string(r));
            return BSYNC_INVALID_ARGUMENT;
        }
        for (uint32_t k = 0; k < nc; k++) {
            const bsync_instance* inst = bsync_match_instance_const(scratch, characters[k]);
            size_t n = bsync_instance_snapshot_size_now(inst);
            if (n == 0 || n > TRAIL_ENTRY_MAX) {
                bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "trail: character %u has no savable state", characters[k]);
                return BSYNC_INVALID_ARGUMENT;
            }
            if (cap - at < 4u + n + 8u) return BSYNC_BUFFER_TOO_SMALL;
            size_t w = 0;
            if (bsync_instance_save(inst, out + at + 4, n, &w) != BSYNC_OK || w != n) {
                bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "trail: character %u's state does not save", characters[k]);
                return BSYNC_INVALID_ARGUMENT;
            }
            bsync_le_put32(out + at, (uint32_t)n);
            at += 4u + n;
        }
    }
    bsync_le_put64(out + at, bsync_checksum_xxh64(out, at, BSYNC_TRAIL_SEED));
    *written = at + 8u;
    return BSYNC_OK;
}

bsync_result bsync_trail_write(bsync_match* scratch, const uint8_t* const* snaps, const size_t* lens, uint32_t count,
                               uint32_t first_tick, const uint32_t* characters, uint32_t character_count, void* buf,
                               size_t cap, size_t* written, uint32_t* first_kept, bsync_error* err) {
    if (!scratch || !snaps || !lens || !characters || !buf || !written || count == 0 ||
        count > BSYNC_TRAIL_MAX_TICKS || character_count == 0 || character_count > BSYNC_TRAIL_MAX_CHARACTERS) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "trail: bad arguments");
        return BSYNC_INVALID_ARGUMENT;
    }
    for (uint32_t k = 0; k < character_count; k++)
        if (characters[k] >= bsync_match_character_count(scratch) || (k > 0 && characters[k] <= characters[k - 1])) {
            bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "trail: character indices must be increasing and < %u",
                               bsync_match_character_count(scratch));
            return BSYNC_INVALID_ARGUMENT;
        }
    /* Every entry of a character has the same size unless an inertialization starts or ends, so the
     * first try from the oldest tick usually fits; else drop the oldest ticks one at a time. */
    for (uint32_t from = 0; from < count; from++) {
        bsync_result r = write_from(scratch, snaps, lens, count, from, first_tick, characters, character_count,
                                    (uint8_t*)buf, cap, written, err);
        if (r == BSYNC_OK) {
            if (first_kept) *first_kept = first_tick + from;
            return BSYNC_OK;
        }
        if (r != BSYNC_BUFFER_TOO_SMALL) return r;
    }
    bsync_io_set_error(err, BSYNC_BUFFER_TOO_SMALL, "trail: not even one tick fits in %zu bytes", cap);
    return BSYNC_BUFFER_TOO_SMALL;
}

bsync_result bsync_trail_parse(const void* data, size_t len, bsync_trail* out, bsync_error* err) {
    const uint8_t* p = (const uint8_t*)data;
    if (!p || !out) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "trail: null argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    memset(out, 0, sizeof *out);
    if (len < 28u + 4u + 8u || memcmp(p, TRAIL_MAGIC, 4) != 0) {
        bsync_io_set_error(err, BSYNC_BAD_BLOB, "trail: not a trail (magic \"BSTR\" or size)");
        return BSYNC_BAD_BLOB;
    }
    if (bsync_le_get32(p + 4) != BSYNC_TRAIL_VERSION) {
        bsync_io_set_error(err, BSYNC_BAD_BLOB, "trail: version %u, this build reads %u", bsync_le_get32(p + 4),
                           BSYNC_TRAIL_VERSION);
        return BSYNC_BAD_BLOB;
    }
    if (bsync_le_get64(p + len - 8u) != bsync_checksum_xxh64(p, len - 8u, BSYNC_TRAIL_SEED)) {
        bsync_io_set_error(err, BSYNC_BAD_BLOB, "trail: checksum mismatch (damaged or truncated)");
        return BSYNC_BAD_BLOB;
    }
    const uint32_t ticks = bsync_le_get32(p + 20), nc = bsync_le_get32(p + 24);
    if (ticks == 0 || ticks > BSYNC_TRAIL_MAX_TICKS || nc == 0 || nc > BSYNC_TRAIL_MAX_CHARACTERS ||
        header_size(nc) + 8u > len) {
        bsync_io_set_error(err, BSYNC_BAD_BLOB, "trail: tick count %u or character count %u out of range", ticks, nc);
        return BSYNC_BAD_BLOB;
    }
    for (uint32_t k = 0; k < nc; k++) {
        out->characters[k] = bsync_le_get32(p + 28 + 4u * k);
        if (k > 0 && out->characters[k] <= out->characters[k - 1]) {
            bsync_io_set_error(err, BSYNC_BAD_BLOB, "trail: character indices not increasing");
            return BSYNC_BAD_BLOB;
        }
    }
    size_t at = header_size(nc);
    const size_t end = len - 8u;
    for (uint64_t e = 0; e < (uint64_t)ticks * nc; e++) {
        if (end - at < 4u) {
            bsync_io_set_error(err, BSYNC_BAD_BLOB, "trail: entry %llu truncated", (unsigned long long)e);
            return BSYNC_BAD_BLOB;
        }
        const uint32_t n = bsync_le_get32(p + at);
        if (n == 0 || n > TRAIL_ENTRY_MAX || end - at - 4u < n) {
            bsync_io_set_error(err, BSYNC_BAD_BLOB, "trail: entry %llu has a bad length %u", (unsigned long long)e, n);
            return BSYNC_BAD_BLOB;
        }
        at += 4u + n;
    }
    if (at != end) {
        bsync_io_set_error(err, BSYNC_BAD_BLOB, "trail: %zu bytes after the last entry", end - at);
        return BSYNC_BAD_BLOB;
    }
    out->data = p;
    out->len = len;
    out->match_hash = bsync_le_get64(p + 8);
    out->first_tick = bsync_le_get32(p + 16);
    out->tick_count = ticks;
    out->character_count = nc;
    out->entries_offset = header_size(nc);
    return BSYNC_OK;
}

bsync_result bsync_trail_entry(const bsync_trail* t, uint32_t i, uint32_t k, const uint8_t** bytes, size_t* len) {
    if (!t || !t->data || !bytes || !len || i >= t->tick_count || k >= t->character_count) return BSYNC_INVALID_ARGUMENT;
    /* parse() checked every length, so the walk stays inside the buffer */
    size_t at = t->entries_offset;
    const uint64_t target = (uint64_t)i * t->character_count + k;
    for (uint64_t e = 0; e < target; e++) at += 4u + bsync_le_get32(t->data + at);
    *len = bsync_le_get32(t->data + at);
    *bytes = t->data + at + 4u;
    return BSYNC_OK;
}
