/* test_replay.c — the replay file (blendsync/io/replay.h, docs/replay.md).
 *
 * Expected bytes come from a small encoder written here from the format text in replay.h (LE
 * integers, LEB128, zigzag computed in 64 bits, XXH64 framing), never from replay.c's output. */
#define _XOPEN_SOURCE 700
#include "test_support.h"
#include "fixtures.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blendsync/checksum.h"
#include "blendsync/io/replay.h"

/* ------------------------------------------------------------------ spec encoder (test side) */

typedef struct bytes {
    uint8_t* d;
    size_t n, cap;
} bytes;

static void b_raw(bytes* b, const void* p, size_t n) {
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n) nc *= 2;
        b->d = realloc(b->d, nc);
        assert_non_null(b->d);
        b->cap = nc;
    }
    if (n) memcpy(b->d + b->n, p, n);
    b->n += n;
}
static void b_u8(bytes* b, uint32_t v) {
    uint8_t x = (uint8_t)v;
    b_raw(b, &x, 1);
}
static void b_u16(bytes* b, uint32_t v) {
    b_u8(b, v & 0xFF);
    b_u8(b, (v >> 8) & 0xFF);
}
static void b_u32(bytes* b, uint32_t v) {
    b_u16(b, v & 0xFFFF);
    b_u16(b, v >> 16);
}
static void b_u64(bytes* b, uint64_t v) {
    b_u32(b, (uint32_t)(v & 0xFFFFFFFFu));
    b_u32(b, (uint32_t)(v >> 32));
}
static void b_varint(bytes* b, uint64_t v) {
    do {
        uint32_t byte = (uint32_t)(v & 0x7F);
        v /= 128;
        if (v) byte |= 0x80;
        b_u8(b, byte);
    } while (v);
}
static uint64_t spec_zigzag(int64_t n) { return n >= 0 ? (uint64_t)(2 * n) : (uint64_t)(-2 * n - 1); }
static void b_text16(bytes* b, const char* s) {
    b_u16(b, (uint32_t)strlen(s));
    b_raw(b, s, strlen(s));
}
static void b_free(bytes* b) {
    free(b->d);
    b->d = NULL;
    b->n = b->cap = 0;
}
/* record: u8 type, u8 0, u16 0, u32 n, body, u64 XXH64(seed) of the 8 header bytes and the body */
static void spec_record(bytes* out, uint32_t type, const bytes* body) {
    size_t start = out->n;
    b_u8(out, type);
    b_u8(out, 0);
    b_u16(out, 0);
    b_u32(out, (uint32_t)body->n);
    b_raw(out, body->d, body->n);
    b_u64(out, bsync_checksum_xxh64(out->d + start, 8 + body->n, BSYNC_REPLAY_RECORD_SEED));
}
static void spec_magic(bytes* out) {
    static const uint8_t m[8] = {0x42, 0x53, 0x52, 0x50, 0x4C, 0x59, 0x0D, 0x0A};
    b_raw(out, m, 8);
}
static void spec_header_body(bytes* b, const bsync_replay_header* h, uint32_t version) {
    b_u32(b, version);
    b_text16(b, h->build_version);
    b_u64(b, h->match_id);
    b_u64(b, h->match_hash);
    b_u32(b, h->tick_rate);
    b_u32(b, h->player_count);
    b_u32(b, h->param_count);
    b_u32(b, h->trigger_count);
    b_u32(b, h->character_count);
    b_u32(b, h->input_delay);
    b_u32(b, h->checksum_interval);
    b_u32(b, h->start_tick);
    b_u32(b, h->asset_count);
    for (uint32_t i = 0; i < h->asset_count; i++) {
        b_text16(b, h->assets[i].name);
        b_u64(b, h->assets[i].hash);
    }
    b_text16(b, h->config_path);
    b_u32(b, h->config_len);
    b_raw(b, h->config_text, h->config_len);
}
static void spec_frame_body(bytes* b, const bsync_replay_frame* f, const bsync_replay_header* h) {
    b_u32(b, f->tick);
    b_u8(b, h->player_count);
    b_u8(b, h->param_count);
    b_u8(b, h->trigger_count);
    b_u8(b, 0);
    b_u16(b, f->defaulted_mask);
    for (uint32_t p = 0; p < h->player_count; p++) {
        for (uint32_t i = 0; i < h->param_count; i++) b_varint(b, spec_zigzag(f->inputs.players[p].params[i]));
        b_raw(b, f->inputs.players[p].triggers, h->trigger_count);
        b_u16(b, f->payload_len[p]);
        b_raw(b, f->payload[p], f->payload_len[p]);
    }
}
static void spec_any_record(bytes* out, const bsync_replay_record* r, const bsync_replay_header* h) {
    bytes body = {0};
    switch (r->type) {
    case BSYNC_REPLAY_HEADER: spec_header_body(&body, &r->header, 1); break;
    case BSYNC_REPLAY_FRAME: spec_frame_body(&body, &r->frame, h); break;
    case BSYNC_REPLAY_CHECKSUM:
        b_u32(&body, r->checksum.tick);
        b_u32(&body, r->checksum.has_pose);
        b_u64(&body, r->checksum.blend);
        b_u64(&body, r->checksum.pose);
        break;
    case BSYNC_REPLAY_SNAPSHOT:
        b_u32(&body, r->snapshot.tick);
        b_u32(&body, r->snapshot.len);
        b_raw(&body, r->snapshot.data, r->snapshot.len);
        break;
    case BSYNC_REPLAY_DESYNC:
        b_u32(&body, r->desync.tick);
        b_u8(&body, r->desync.slot);
        b_u8(&body, r->desync.kind);
        b_u8(&body, r->desync.character);
        b_u8(&body, 0);
        b_u16(&body, r->desync.part);
        b_u16(&body, 0);
        b_u64(&body, r->desync.expected);
        b_u64(&body, r->desync.got);
        break;
    case BSYNC_REPLAY_END:
        b_u32(&body, r->end.ticks);
        b_u32(&body, r->end.reason);
        break;
    }
    spec_record(out, (uint32_t)r->type, &body);
    b_free(&body);
}

/* ------------------------------------------------------------------ fixtures */

static bsync_replay_record* new_rec(void) {
    bsync_replay_record* r = calloc(1, sizeof *r);
    assert_non_null(r);
    return r;
}

static char* temp_path(void) {
    char* p = malloc(64);
    assert_non_null(p);
    bsync_test_tmpfile(p, 64, "replay", NULL, 0);
    return p;
}

static void fill_header(bsync_replay_header* h, uint32_t players, uint32_t params, uint32_t triggers,
                        uint32_t start_tick) {
    memset(h, 0, sizeof *h);
    h->format_version = BSYNC_REPLAY_FORMAT_VERSION;
    snprintf(h->build_version, sizeof h->build_version, "blendsync 0.1.0 test");
    h->match_id = 0x0123456789ABCDEFull;
    h->match_hash = 0xFEDCBA9876543210ull;
    h->tick_rate = 60;
    h->player_count = players;
    h->param_count = params;
    h->trigger_count = triggers;
    h->character_count = 3;
    h->input_delay = 2;
    h->checksum_interval = 10;
    h->start_tick = start_tick;
    h->asset_count = 2;
    snprintf(h->assets[0].name, sizeof h->assets[0].name, "graphs/loco.bsgraph");
    h->assets[0].hash = 0x1111222233334444ull;
    snprintf(h->assets[1].name, sizeof h->assets[1].name, "clips/walk.bsclip");
    h->assets[1].hash = 0xAAAABBBBCCCCDDDDull;
    snprintf(h->config_path, sizeof h->config_path, "configs/match.json");
    h->config_text = "{\"players\": 2, \"tick_rate\": 60}";
    h->config_len = (uint32_t)strlen(h->config_text);
}

static void append_ok(bsync_replay_writer* w, const bsync_replay_record* r) {
    bsync_error err;
    bsync_result res = bsync_replay_writer_append(w, r, &err);
    if (res != BSYNC_OK) print_error("append: %s\n", err.message);
    assert_int_equal(res, BSYNC_OK);
}

/* The small replay used by the truncation / bit-flip tests: header (2 players, 2 params, 1 trigger,
 * start 7), frames 7, 8, 9, a checksum, a snapshot, a desync, END. ends[k] = end offset of record k. */
#define SMALL_RECORDS 8
static uint8_t g_snap[20];
static void write_small(const char* path, uint64_t ends[SMALL_RECORDS]) {
    bsync_replay_header h;
    fill_header(&h, 2, 2, 1, 7);
    h.asset_count = 1;
    bsync_replay_writer* w = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_writer_open(path, &h, &w, &err), BSYNC_OK);
    int k = 0;
    ends[k++] = bsync_replay_writer_bytes(w);
    bsync_replay_record* r = new_rec();
    for (uint32_t t = 7; t < 10; t++) {
        memset(r, 0, sizeof *r);
        r->type = BSYNC_REPLAY_FRAME;
        r->frame.tick = t;
        r->frame.inputs.player_count = 2;
        r->frame.inputs.players[0].params[0] = (fix16_t)(t * 1000);
        r->frame.inputs.players[0].params[1] = -(fix16_t)t;
        r->frame.inputs.players[1].params[0] = 65536;
        r->frame.inputs.players[1].triggers[0] = (uint8_t)t;
        if (t == 8) {
            r->frame.defaulted_mask = 2;
            r->frame.payload_len[1] = 3;
            r->frame.payload[1][0] = 0xAB;
        }
        append_ok(w, r);
        ends[k++] = bsync_replay_writer_bytes(w);
    }
    memset(r, 0, sizeof *r);
    r->type = BSYNC_REPLAY_CHECKSUM;
    r->checksum = (bsync_replay_checksum){8, 1, 0x1234, 0x5678};
    append_ok(w, r);
    ends[k++] = bsync_replay_writer_bytes(w);
    for (int i = 0; i < 20; i++) g_snap[i] = (uint8_t)(i * 13 + 1);
    r->type = BSYNC_REPLAY_SNAPSHOT;
    r->snapshot = (bsync_replay_snapshot){9, 20, g_snap};
    append_ok(w, r);
    ends[k++] = bsync_replay_writer_bytes(w);
    r->type = BSYNC_REPLAY_DESYNC;
    r->desync = (bsync_replay_desync){8, 1, 2, 0, 0xFFFF, 0x99, 0x98};
    append_ok(w, r);
    ends[k++] = bsync_replay_writer_bytes(w);
    r->type = BSYNC_REPLAY_END;
    r->end = (bsync_replay_end){3, 0};
    append_ok(w, r);
    ends[k++] = bsync_replay_writer_bytes(w);
    assert_int_equal(k, SMALL_RECORDS);
    bsync_replay_writer_close(w);
    free(r);
}

/* Read everything; return the number of OK records, *final the status that stopped it. */
static int read_all(bsync_replay_reader* rd, bsync_replay_status* final, char* detail) {
    bsync_replay_record* r = new_rec();
    int ok = 0;
    bsync_replay_status s;
    while ((s = bsync_replay_reader_next(rd, r, detail, 160)) == BSYNC_REPLAY_OK) ok++;
    *final = s;
    /* sticky */
    assert_int_equal(bsync_replay_reader_next(rd, r, NULL, 0), s);
    free(r);
    return ok;
}

static int read_mem(const uint8_t* d, size_t n, bsync_replay_status* final, uint64_t* valid, char* detail) {
    bsync_replay_reader* rd = NULL;
    assert_int_equal(bsync_replay_reader_open_memory(d, n, &rd), BSYNC_OK);
    int ok = read_all(rd, final, detail);
    if (valid) *valid = bsync_replay_reader_valid_bytes(rd);
    bsync_replay_reader_close(rd);
    return ok;
}

/* ------------------------------------------------------------------ tests */

/* A tiny file, byte for byte and size for size from the format text. */
static void test_tiny_file_exact_bytes(void** state) {
    (void)state;
    bsync_replay_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.build_version, sizeof h.build_version, "t");
    h.match_id = 1;
    h.match_hash = 2;
    h.tick_rate = 60;
    h.player_count = 1;
    h.param_count = 1;
    h.trigger_count = 0;
    h.character_count = 1;
    h.start_tick = 5;
    h.asset_count = 1;
    snprintf(h.assets[0].name, sizeof h.assets[0].name, "a");
    h.assets[0].hash = 3;
    snprintf(h.config_path, sizeof h.config_path, "c.json");
    h.config_text = "{}";
    h.config_len = 2;
    char* path = temp_path();
    bsync_replay_writer* w = NULL;
    assert_int_equal(bsync_replay_writer_open(path, &h, &w, NULL), BSYNC_OK);
    /* header body: 4 version + (2+1) build + 8 id + 8 hash + 8 x u32 + 4 asset count + (2+1+8) asset +
     * (2+6) config path + (4+2) config text = 84; record 16 + 84 = 100; file 8 + 100 */
    assert_int_equal(bsync_replay_writer_bytes(w), 108);
    bsync_replay_record* r = new_rec();
    r->type = BSYNC_REPLAY_FRAME;
    r->frame.tick = 5;
    r->frame.inputs.player_count = 1;
    size_t len = 0;
    assert_int_equal(bsync_replay_encode_record(r, &h, NULL, 0, &len), BSYNC_OK);
    /* FRAME: 16 overhead + 10 fixed (u32 tick, 3 x u8 counts, u8 0, u16 mask) + 1 varint + 0 triggers
     * + 2 payload length = 29 */
    assert_int_equal(len, 29);
    append_ok(w, r);
    assert_int_equal(bsync_replay_writer_bytes(w), 137);
    r->type = BSYNC_REPLAY_END;
    r->end.ticks = 1;
    r->end.reason = 0;
    append_ok(w, r);
    assert_int_equal(bsync_replay_writer_bytes(w), 161); /* END: 16 + 8 */
    assert_int_equal(bsync_replay_writer_sync(w), BSYNC_OK);
    bsync_replay_writer_close(w);

    size_t size = 0;
    uint8_t* file = (uint8_t*)bsync_test_read_file(path, &size);
    assert_non_null(file);
    assert_int_equal(size, 161);
    /* the expected bytes, by hand */
    bytes e = {0};
    spec_magic(&e);
    bytes body = {0};
    b_u32(&body, 1);
    b_u16(&body, 1);
    b_u8(&body, 't');
    b_u64(&body, 1);
    b_u64(&body, 2);
    const uint32_t u32s[8] = {60, 1, 1, 0, 1, 0, 0, 5};
    for (int i = 0; i < 8; i++) b_u32(&body, u32s[i]);
    b_u32(&body, 1);
    b_u16(&body, 1);
    b_u8(&body, 'a');
    b_u64(&body, 3);
    b_u16(&body, 6);
    b_raw(&body, "c.json", 6);
    b_u32(&body, 2);
    b_raw(&body, "{}", 2);
    assert_int_equal(body.n, 84);
    spec_record(&e, 1, &body);
    body.n = 0;
    const uint8_t frame_body[13] = {5, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0x00, 0, 0};
    b_raw(&body, frame_body, 13);
    spec_record(&e, 2, &body);
    body.n = 0;
    b_u32(&body, 1);
    b_u32(&body, 0);
    spec_record(&e, 6, &body);
    assert_int_equal(e.n, 161);
    assert_memory_equal(file, e.d, 161);
    /* literal check of the first record header and the frame record header */
    const uint8_t head[16] = {0x42, 0x53, 0x52, 0x50, 0x4C, 0x59, 0x0D, 0x0A, 1, 0, 0, 0, 84, 0, 0, 0};
    assert_memory_equal(file, head, 16);
    const uint8_t fh[8] = {2, 0, 0, 0, 13, 0, 0, 0};
    assert_memory_equal(file + 108, fh, 8);
    b_free(&e);
    b_free(&body);
    free(file);
    free(r);
    unlink(path);
    free(path);
}

/* varint(zigzag) bytes of chosen values, worked by hand. */
static void test_varint_bytes(void** state) {
    (void)state;
    bsync_replay_header h;
    fill_header(&h, 1, 8, 0, 0);
    bsync_replay_record* r = new_rec();
    r->type = BSYNC_REPLAY_FRAME;
    r->frame.inputs.player_count = 1;
    const fix16_t v[8] = {0x7FFFFFFF, -0x7FFFFFFF, 65536, -1, 63, 64, -65, 0};
    for (int i = 0; i < 8; i++) r->frame.inputs.players[0].params[i] = v[i];
    const uint8_t expect[] = {0xFE, 0xFF, 0xFF, 0xFF, 0x0F, /* 2^32 - 2 */
                              0xFD, 0xFF, 0xFF, 0xFF, 0x0F, /* 2^32 - 3 */
                              0x80, 0x80, 0x08,             /* 131072 */
                              0x01, 0x7E, 0x80, 0x01, 0x81, 0x01, 0x00};
    uint8_t buf[128];
    size_t len = 0;
    assert_int_equal(bsync_replay_encode_record(r, &h, buf, sizeof buf, &len), BSYNC_OK);
    assert_int_equal(len, 16 + 10 + sizeof expect + 2);
    assert_memory_equal(buf + 8 + 10, expect, sizeof expect);
    /* and back */
    bytes f = {0};
    spec_magic(&f);
    bsync_replay_record* hr = new_rec();
    hr->type = BSYNC_REPLAY_HEADER;
    hr->header = h;
    spec_any_record(&f, hr, NULL);
    b_raw(&f, buf, len);
    bsync_replay_reader* rd = NULL;
    assert_int_equal(bsync_replay_reader_open_memory(f.d, f.n, &rd), BSYNC_OK);
    assert_int_equal(bsync_replay_reader_next(rd, hr, NULL, 0), BSYNC_REPLAY_OK);
    assert_int_equal(bsync_replay_reader_next(rd, hr, NULL, 0), BSYNC_REPLAY_OK);
    for (int i = 0; i < 8; i++) assert_int_equal(hr->frame.inputs.players[0].params[i], v[i]);
    assert_int_equal(bsync_replay_reader_next(rd, hr, NULL, 0), BSYNC_REPLAY_EOF);
    bsync_replay_reader_close(rd);
    b_free(&f);
    free(hr);
    free(r);
}

static fix16_t pick_value(uint64_t* rng, uint32_t f, uint32_t p, uint32_t i) {
    static const fix16_t specials[16] = {0,      1,      -1,         0x7FFFFFFF,  -0x7FFFFFFF, 65536, -65536, 229376,
                                         63,     64,     -64,        -65,         8191,        8192,  0x40000000,
                                         -0x40000000};
    if ((f + p + i) % 3 == 0) return specials[(f * 7 + p * 3 + i) % 16];
    int64_t x = (int64_t)(bsync_test_rand(rng) & 0xFFFFFFFFu) - 0x80000000ll;
    if (x == INT32_MIN) x = INT32_MIN + 1;
    return (fix16_t)x;
}

/* 50 frames and every other record type: written, read back field by field, byte-compared with the
 * test's own encoder, and re-encoded (canonical form). */
static void test_roundtrip_50_frames(void** state) {
    (void)state;
    enum { MAXREC = 64 };
    bsync_replay_header h;
    fill_header(&h, 3, 4, 2, 100);
    h.asset_count = 3;
    snprintf(h.assets[2].name, sizeof h.assets[2].name, "%s", "x"); /* short */
    h.assets[2].hash = 0;
    bsync_replay_record* recs = calloc(MAXREC, sizeof *recs);
    uint64_t* offs = calloc(MAXREC, sizeof *offs);
    assert_non_null(recs);
    uint8_t snap[300];
    uint64_t rng = 42;
    for (int i = 0; i < 300; i++) snap[i] = (uint8_t)bsync_test_rand(&rng);
    char* path = temp_path();
    bsync_replay_writer* w = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_writer_open(path, &h, &w, &err), BSYNC_OK);
    int n = 0;
    recs[n].type = BSYNC_REPLAY_HEADER;
    recs[n].header = h;
    offs[n++] = 8;
    for (uint32_t f = 0; f < 50; f++) {
        bsync_replay_record* r = &recs[n];
        r->type = BSYNC_REPLAY_FRAME;
        r->frame.tick = 100 + f;
        r->frame.inputs.player_count = 3;
        r->frame.defaulted_mask = (uint16_t)(bsync_test_rand(&rng) & 7u);
        for (uint32_t p = 0; p < 3; p++) {
            for (uint32_t i = 0; i < 4; i++) r->frame.inputs.players[p].params[i] = pick_value(&rng, f, p, i);
            for (uint32_t t = 0; t < 2; t++) r->frame.inputs.players[p].triggers[t] = (uint8_t)bsync_test_rand(&rng);
            uint16_t pl = (f + p) % 5 == 0 ? 0 : (f + p) % 5 == 1 ? 256 : (uint16_t)(bsync_test_rand(&rng) % 257);
            r->frame.payload_len[p] = pl;
            for (uint32_t b = 0; b < pl; b++) r->frame.payload[p][b] = (uint8_t)bsync_test_rand(&rng);
        }
        offs[n] = bsync_replay_writer_bytes(w);
        append_ok(w, r);
        n++;
        if (f % 10 == 9) {
            r = &recs[n];
            r->type = BSYNC_REPLAY_CHECKSUM;
            r->checksum.tick = 100 + f;
            r->checksum.has_pose = (f / 10) % 2;
            r->checksum.blend = bsync_test_rand(&rng);
            r->checksum.pose = r->checksum.has_pose ? bsync_test_rand(&rng) : 0;
            offs[n] = bsync_replay_writer_bytes(w);
            append_ok(w, r);
            n++;
        }
        if (f == 24) {
            r = &recs[n];
            r->type = BSYNC_REPLAY_SNAPSHOT;
            r->snapshot = (bsync_replay_snapshot){125, 300, snap};
            offs[n] = bsync_replay_writer_bytes(w);
            append_ok(w, r);
            n++;
        }
        if (f == 40) {
            r = &recs[n];
            r->type = BSYNC_REPLAY_DESYNC;
            r->desync = (bsync_replay_desync){139, 2, 4, 1, 17, bsync_test_rand(&rng), bsync_test_rand(&rng)};
            offs[n] = bsync_replay_writer_bytes(w);
            append_ok(w, r);
            n++;
        }
    }
    recs[n].type = BSYNC_REPLAY_END;
    recs[n].end = (bsync_replay_end){50, 1};
    offs[n] = bsync_replay_writer_bytes(w);
    append_ok(w, &recs[n]);
    n++;
    uint64_t total = bsync_replay_writer_bytes(w);
    bsync_replay_writer_close(w);
    assert_int_equal(n, 1 + 50 + 5 + 1 + 1 + 1);

    /* the file equals the test's own encoding of the same records */
    size_t size = 0;
    uint8_t* file = (uint8_t*)bsync_test_read_file(path, &size);
    assert_non_null(file);
    assert_int_equal(size, total);
    bytes e = {0};
    spec_magic(&e);
    for (int k = 0; k < n; k++) {
        assert_int_equal(offs[k], e.n);
        spec_any_record(&e, &recs[k], &h);
    }
    assert_int_equal(e.n, size);
    assert_memory_equal(e.d, file, size);

    /* read back, field by field */
    bsync_replay_reader* rd = NULL;
    assert_int_equal(bsync_replay_reader_open_file(path, &rd, &err), BSYNC_OK);
    assert_null(bsync_replay_reader_header(rd));
    bsync_replay_record* got = new_rec();
    uint8_t* re = malloc(16384);
    for (int k = 0; k < n; k++) {
        char detail[160];
        assert_int_equal(bsync_replay_reader_next(rd, got, detail, sizeof detail), BSYNC_REPLAY_OK);
        const bsync_replay_record* x = &recs[k];
        assert_int_equal(got->type, x->type);
        assert_int_equal(got->offset, offs[k]);
        assert_int_equal(got->offset + got->size, k + 1 < n ? offs[k + 1] : total);
        switch (x->type) {
        case BSYNC_REPLAY_HEADER: {
            const bsync_replay_header* g = &got->header;
            assert_int_equal(g->format_version, 1);
            assert_string_equal(g->build_version, h.build_version);
            assert_true(g->match_id == h.match_id && g->match_hash == h.match_hash);
            assert_int_equal(g->tick_rate, 60);
            assert_int_equal(g->player_count, 3);
            assert_int_equal(g->param_count, 4);
            assert_int_equal(g->trigger_count, 2);
            assert_int_equal(g->character_count, 3);
            assert_int_equal(g->input_delay, 2);
            assert_int_equal(g->checksum_interval, 10);
            assert_int_equal(g->start_tick, 100);
            assert_int_equal(g->asset_count, 3);
            for (int a = 0; a < 3; a++) {
                assert_string_equal(g->assets[a].name, h.assets[a].name);
                assert_true(g->assets[a].hash == h.assets[a].hash);
            }
            assert_string_equal(g->config_path, "configs/match.json");
            assert_int_equal(g->config_len, h.config_len);
            assert_string_equal(g->config_text, h.config_text); /* NUL-terminated */
            assert_true(g->config_text != h.config_text);
            assert_non_null(bsync_replay_reader_header(rd));
            assert_int_equal(bsync_replay_reader_header(rd)->start_tick, 100);
            break;
        }
        case BSYNC_REPLAY_FRAME: {
            const bsync_replay_frame* a = &got->frame;
            const bsync_replay_frame* b = &x->frame;
            assert_int_equal(a->tick, b->tick);
            assert_int_equal(a->defaulted_mask, b->defaulted_mask);
            assert_int_equal(a->inputs.player_count, 3);
            for (int p = 0; p < 3; p++) {
                for (int i = 0; i < 4; i++)
                    assert_int_equal(a->inputs.players[p].params[i], b->inputs.players[p].params[i]);
                for (int t = 0; t < 2; t++)
                    assert_int_equal(a->inputs.players[p].triggers[t], b->inputs.players[p].triggers[t]);
                assert_int_equal(a->payload_len[p], b->payload_len[p]);
                if (b->payload_len[p]) assert_memory_equal(a->payload[p], b->payload[p], b->payload_len[p]);
            }
            break;
        }
        case BSYNC_REPLAY_CHECKSUM:
            assert_int_equal(got->checksum.tick, x->checksum.tick);
            assert_int_equal(got->checksum.has_pose, x->checksum.has_pose);
            assert_true(got->checksum.blend == x->checksum.blend && got->checksum.pose == x->checksum.pose);
            break;
        case BSYNC_REPLAY_SNAPSHOT:
            assert_int_equal(got->snapshot.tick, 125);
            assert_int_equal(got->snapshot.len, 300);
            assert_memory_equal(got->snapshot.data, snap, 300);
            break;
        case BSYNC_REPLAY_DESYNC:
            assert_int_equal(got->desync.tick, 139);
            assert_int_equal(got->desync.slot, 2);
            assert_int_equal(got->desync.kind, 4);
            assert_int_equal(got->desync.character, 1);
            assert_int_equal(got->desync.part, 17);
            assert_true(got->desync.expected == x->desync.expected && got->desync.got == x->desync.got);
            break;
        case BSYNC_REPLAY_END:
            assert_int_equal(got->end.ticks, 50);
            assert_int_equal(got->end.reason, 1);
            break;
        }
        /* canonical: the decoded record encodes to the same bytes */
        if (x->type != BSYNC_REPLAY_HEADER) {
            size_t len = 0;
            assert_int_equal(bsync_replay_encode_record(got, &h, re, 16384, &len), BSYNC_OK);
            assert_int_equal(len, got->size);
            assert_memory_equal(re, file + got->offset, len);
        }
        assert_int_equal(bsync_replay_reader_valid_bytes(rd), got->offset + got->size);
    }
    char detail[160];
    assert_int_equal(bsync_replay_reader_next(rd, got, detail, sizeof detail), BSYNC_REPLAY_EOF);
    assert_int_equal(bsync_replay_reader_next(rd, got, detail, sizeof detail), BSYNC_REPLAY_EOF);
    assert_int_equal(bsync_replay_reader_valid_bytes(rd), total);
    bsync_replay_reader_close(rd);

    /* the same from memory, with rec NULL (validation only) */
    assert_int_equal(bsync_replay_reader_open_memory(file, size, &rd), BSYNC_OK);
    for (int k = 0; k < n; k++) assert_int_equal(bsync_replay_reader_next(rd, NULL, NULL, 0), BSYNC_REPLAY_OK);
    assert_int_equal(bsync_replay_reader_next(rd, NULL, NULL, 0), BSYNC_REPLAY_EOF);
    bsync_replay_reader_close(rd);

    b_free(&e);
    free(re);
    free(got);
    free(file);
    free(recs);
    free(offs);
    unlink(path);
    free(path);
}

/* What a cut at byte L must give: ends[] are record end offsets (ends[0] = end of HEADER). */
static void check_cut(bsync_replay_reader* rd, size_t L, const uint64_t* ends, int nends) {
    int expect_ok = 0;
    uint64_t valid = 0;
    int at_boundary = 0;
    for (int k = 0; k < nends; k++)
        if (ends[k] <= L) {
            expect_ok = k + 1;
            valid = ends[k];
            if (ends[k] == L) at_boundary = 1;
        }
    bsync_replay_status s;
    char detail[160];
    int ok = read_all(rd, &s, detail);
    assert_int_equal(ok, expect_ok);
    assert_int_equal(s, at_boundary ? BSYNC_REPLAY_EOF : BSYNC_REPLAY_TRUNCATED);
    assert_int_equal(bsync_replay_reader_valid_bytes(rd), valid);
    assert_non_null(strstr(detail, "byte "));
}

static void test_every_truncation(void** state) {
    (void)state;
    char* path = temp_path();
    uint64_t ends[SMALL_RECORDS];
    write_small(path, ends);
    size_t size = 0;
    uint8_t* file = (uint8_t*)bsync_test_read_file(path, &size);
    assert_int_equal(size, ends[SMALL_RECORDS - 1]);
    for (size_t L = 0; L <= size; L++) {
        uint8_t* cut = malloc(L ? L : 1); /* exact-size copy so ASan sees any overread */
        memcpy(cut, file, L);
        bsync_replay_reader* rd = NULL;
        assert_int_equal(bsync_replay_reader_open_memory(cut, L, &rd), BSYNC_OK);
        free(cut);
        check_cut(rd, L, ends, SMALL_RECORDS);
        bsync_replay_reader_close(rd);
    }
    free(file);
    unlink(path);
    free(path);
}

/* A writer killed mid-record: the file truncated (ftruncate) to every length, read through the file
 * path. */
static void test_killed_writer_file(void** state) {
    (void)state;
    char* path = temp_path();
    uint64_t ends[SMALL_RECORDS];
    write_small(path, ends);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    for (long L = (long)ends[SMALL_RECORDS - 1]; L >= 0; L--) {
        assert_int_equal(ftruncate(fd, (off_t)L), 0);
        bsync_replay_reader* rd = NULL;
        bsync_error err;
        assert_int_equal(bsync_replay_reader_open_file(path, &rd, &err), BSYNC_OK);
        check_cut(rd, (size_t)L, ends, SMALL_RECORDS);
        bsync_replay_reader_close(rd);
    }
    close(fd);
    unlink(path);
    free(path);
}

static void test_every_bit_flip(void** state) {
    (void)state;
    char* path = temp_path();
    uint64_t ends[SMALL_RECORDS];
    write_small(path, ends);
    size_t size = 0;
    uint8_t* file = (uint8_t*)bsync_test_read_file(path, &size);
    uint8_t* copy = malloc(size);
    for (size_t i = 0; i < size; i++) {
        int before = 0; /* records wholly before byte i */
        uint64_t valid = 0;
        for (int k = 0; k < SMALL_RECORDS; k++)
            if (ends[k] <= i) {
                before = k + 1;
                valid = ends[k];
            }
        for (int bit = 0; bit < 8; bit++) {
            memcpy(copy, file, size);
            copy[i] ^= (uint8_t)(1u << bit);
            bsync_replay_status s;
            uint64_t v = 0;
            char detail[160];
            int ok = read_mem(copy, size, &s, &v, detail);
            assert_int_equal(ok, before);
            assert_true(s == BSYNC_REPLAY_CORRUPT || s == BSYNC_REPLAY_TRUNCATED || s == BSYNC_REPLAY_BAD_ORDER ||
                        s == BSYNC_REPLAY_UNSUPPORTED);
            assert_int_equal(v, valid);
        }
    }
    free(copy);
    free(file);
    unlink(path);
    free(path);
}

/* A file from records encoded one by one. */
static void encode_into(bytes* b, const bsync_replay_record* r, const bsync_replay_header* h) {
    size_t len = 0;
    assert_int_equal(bsync_replay_encode_record(r, h, NULL, 0, &len), BSYNC_OK);
    uint8_t* tmp = malloc(len);
    assert_int_equal(bsync_replay_encode_record(r, h, tmp, len, &len), BSYNC_OK);
    b_raw(b, tmp, len);
    free(tmp);
}
static void frame_rec(bsync_replay_record* r, uint32_t tick, uint32_t players) {
    memset(r, 0, sizeof *r);
    r->type = BSYNC_REPLAY_FRAME;
    r->frame.tick = tick;
    r->frame.inputs.player_count = players;
}

static void test_bad_order(void** state) {
    (void)state;
    bsync_replay_header h;
    fill_header(&h, 2, 1, 0, 10);
    bsync_replay_record* hr = new_rec();
    hr->type = BSYNC_REPLAY_HEADER;
    hr->header = h;
    bsync_replay_record* r = new_rec();
    bsync_replay_record* endr = new_rec();
    endr->type = BSYNC_REPLAY_END;
    endr->end = (bsync_replay_end){1, 0};
    const uint32_t cases[4][2] = {{10, 12}, {10, 10}, {10, 9}, {11, 12}}; /* ticks of two frames */
    for (int c = 0; c < 4; c++) {
        bytes b = {0};
        spec_magic(&b);
        encode_into(&b, hr, NULL);
        size_t after_header = b.n;
        frame_rec(r, cases[c][0], 2);
        encode_into(&b, r, &h);
        size_t after_first = b.n;
        frame_rec(r, cases[c][1], 2);
        encode_into(&b, r, &h);
        bsync_replay_status s;
        uint64_t v;
        char detail[160];
        int ok = read_mem(b.d, b.n, &s, &v, detail);
        assert_int_equal(s, BSYNC_REPLAY_BAD_ORDER);
        if (c < 3) {
            assert_int_equal(ok, 2);
            assert_int_equal(v, after_first);
        } else { /* the first frame is not the start tick */
            assert_int_equal(ok, 1);
            assert_int_equal(v, after_header);
        }
        assert_non_null(strstr(detail, "tick"));
        b_free(&b);
    }
    /* a second HEADER */
    {
        bytes b = {0};
        spec_magic(&b);
        encode_into(&b, hr, NULL);
        frame_rec(r, 10, 2);
        encode_into(&b, r, &h);
        size_t good = b.n;
        encode_into(&b, hr, NULL);
        bsync_replay_status s;
        uint64_t v;
        assert_int_equal(read_mem(b.d, b.n, &s, &v, NULL), 2);
        assert_int_equal(s, BSYNC_REPLAY_BAD_ORDER);
        assert_int_equal(v, good);
        b_free(&b);
    }
    /* records after END: a frame (next tick), a checksum, another END */
    for (int c = 0; c < 3; c++) {
        bytes b = {0};
        spec_magic(&b);
        encode_into(&b, hr, NULL);
        frame_rec(r, 10, 2);
        encode_into(&b, r, &h);
        encode_into(&b, endr, &h);
        size_t good = b.n;
        if (c == 0) frame_rec(r, 11, 2);
        if (c == 1) {
            memset(r, 0, sizeof *r);
            r->type = BSYNC_REPLAY_CHECKSUM;
            r->checksum.tick = 10;
        }
        encode_into(&b, c == 2 ? endr : r, &h);
        bsync_replay_status s;
        uint64_t v;
        assert_int_equal(read_mem(b.d, b.n, &s, &v, NULL), 3);
        assert_int_equal(s, BSYNC_REPLAY_BAD_ORDER);
        assert_int_equal(v, good);
        b_free(&b);
    }
    /* the first record is not the HEADER */
    {
        bytes b = {0};
        spec_magic(&b);
        encode_into(&b, endr, &h);
        bsync_replay_status s;
        uint64_t v = 99;
        assert_int_equal(read_mem(b.d, b.n, &s, &v, NULL), 0);
        assert_int_equal(s, BSYNC_REPLAY_BAD_ORDER);
        assert_int_equal(v, 0);
        b_free(&b);
    }
    /* the writer refuses the same things and stays usable */
    char* path = temp_path();
    bsync_replay_writer* w = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_writer_open(path, &h, &w, &err), BSYNC_OK);
    frame_rec(r, 11, 2); /* not the start tick */
    assert_int_equal(bsync_replay_writer_append(w, r, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(err.code, BSYNC_INVALID_ARGUMENT);
    frame_rec(r, 10, 2);
    append_ok(w, r);
    uint64_t bytes_now = bsync_replay_writer_bytes(w);
    assert_int_equal(bsync_replay_writer_append(w, r, &err), BSYNC_INVALID_ARGUMENT); /* tick 10 again */
    frame_rec(r, 12, 2);
    assert_int_equal(bsync_replay_writer_append(w, r, &err), BSYNC_INVALID_ARGUMENT); /* skips 11 */
    assert_int_equal(bsync_replay_writer_append(w, hr, &err), BSYNC_INVALID_ARGUMENT); /* HEADER */
    assert_int_equal(bsync_replay_writer_bytes(w), bytes_now);
    frame_rec(r, 11, 2);
    append_ok(w, r);
    append_ok(w, endr);
    bytes_now = bsync_replay_writer_bytes(w);
    frame_rec(r, 12, 2);
    assert_int_equal(bsync_replay_writer_append(w, r, &err), BSYNC_INVALID_ARGUMENT); /* after END */
    assert_int_equal(bsync_replay_writer_append(w, endr, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_replay_writer_bytes(w), bytes_now);
    bsync_replay_writer_close(w);
    bsync_replay_reader* rd = NULL;
    assert_int_equal(bsync_replay_reader_open_file(path, &rd, &err), BSYNC_OK);
    bsync_replay_status s;
    char d2[160];
    assert_int_equal(read_all(rd, &s, d2), 4);
    assert_int_equal(s, BSYNC_REPLAY_EOF);
    assert_int_equal(bsync_replay_reader_valid_bytes(rd), bytes_now);
    bsync_replay_reader_close(rd);
    unlink(path);
    free(path);
    free(hr);
    free(r);
    free(endr);
}

static void test_unsupported_version(void** state) {
    (void)state;
    bsync_replay_header h;
    fill_header(&h, 1, 1, 0, 0);
    const uint32_t versions[3] = {2, 0, 0xFFFFFFFFu};
    for (int c = 0; c < 3; c++) {
        bytes b = {0}, body = {0};
        spec_magic(&b);
        spec_header_body(&body, &h, versions[c]);
        spec_record(&b, 1, &body);
        bsync_replay_reader* rd = NULL;
        assert_int_equal(bsync_replay_reader_open_memory(b.d, b.n, &rd), BSYNC_OK);
        char detail[160];
        bsync_replay_record* r = new_rec();
        assert_int_equal(bsync_replay_reader_next(rd, r, detail, sizeof detail), BSYNC_REPLAY_UNSUPPORTED);
        assert_non_null(strstr(detail, "version"));
        assert_null(bsync_replay_reader_header(rd));
        assert_int_equal(bsync_replay_reader_valid_bytes(rd), 0);
        assert_int_equal(bsync_replay_reader_next(rd, r, NULL, 0), BSYNC_REPLAY_UNSUPPORTED);
        bsync_replay_reader_close(rd);
        free(r);
        b_free(&b);
        b_free(&body);
    }
    /* the writer writes version 1 whatever the field says */
    h.format_version = 7;
    bsync_replay_record* hr = new_rec();
    hr->type = BSYNC_REPLAY_HEADER;
    hr->header = h;
    uint8_t* buf = malloc(4096);
    size_t len;
    assert_int_equal(bsync_replay_encode_record(hr, NULL, buf, 4096, &len), BSYNC_OK);
    assert_int_equal(buf[8], 1);
    assert_int_equal(buf[9] | buf[10] | buf[11], 0);
    free(buf);
    free(hr);
}

/* Bodies with a correct XXH64 that break a rule: CORRUPT, with the offset in the detail. */
typedef void (*body_fn)(bytes* body, const bsync_replay_header* h);

static void fr_head(bytes* b, uint32_t tick, uint32_t pc, uint32_t prm, uint32_t trg, uint32_t rsv, uint32_t mask) {
    b_u32(b, tick);
    b_u8(b, pc);
    b_u8(b, prm);
    b_u8(b, trg);
    b_u8(b, rsv);
    b_u16(b, mask);
}
/* the corrupt frames assume a header of 1 player, 1 param, 0 triggers, start 0 */
static void bad_nonminimal(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 0, 0);
    b_u8(b, 0x80); /* 0 in two bytes */
    b_u8(b, 0x00);
    b_u16(b, 0);
}
static void bad_long_varint(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 0, 0);
    for (int i = 0; i < 5; i++) b_u8(b, 0x80);
    b_u8(b, 0x01);
    b_u16(b, 0);
}
static void bad_int32_min(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 0, 0);
    b_varint(b, spec_zigzag(INT32_MIN));
    b_u16(b, 0);
}
static void bad_too_big_varint(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 0, 0);
    b_varint(b, (uint64_t)1 << 32);
    b_u16(b, 0);
}
static void bad_player_count(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 2, 1, 0, 0, 0);
    for (int p = 0; p < 2; p++) {
        b_u8(b, 0);
        b_u16(b, 0);
    }
}
static void bad_param_count(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 0, 0, 0, 0);
    b_u16(b, 0);
}
static void bad_trigger_count(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 1, 0, 0);
    b_u8(b, 0);
    b_u8(b, 0);
    b_u16(b, 0);
}
static void bad_reserved(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 1, 0);
    b_u8(b, 0);
    b_u16(b, 0);
}
static void bad_mask(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 0, 2);
    b_u8(b, 0);
    b_u16(b, 0);
}
static void bad_payload_len(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 0, 0);
    b_u8(b, 0);
    b_u16(b, 257);
    for (int i = 0; i < 257; i++) b_u8(b, 0);
}
static void bad_trailing(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 0, 0);
    b_u8(b, 0);
    b_u16(b, 0);
    b_u8(b, 0);
}
static void bad_short_payload(bytes* b, const bsync_replay_header* h) {
    (void)h;
    fr_head(b, 0, 1, 1, 0, 0, 0);
    b_u8(b, 0);
    b_u16(b, 5);
    b_u8(b, 1);
}

static void test_corrupt_bodies(void** state) {
    (void)state;
    bsync_replay_header h;
    fill_header(&h, 1, 1, 0, 0);
    static const struct {
        body_fn fn;
        uint32_t at; /* offset of the bad field in the body */
    } frames[] = {{bad_nonminimal, 10},  {bad_long_varint, 10},  {bad_int32_min, 10},   {bad_too_big_varint, 10},
                  {bad_player_count, 4}, {bad_param_count, 5},   {bad_trigger_count, 6}, {bad_reserved, 7},
                  {bad_mask, 8},         {bad_payload_len, 11},  {bad_trailing, 13},    {bad_short_payload, 13}};
    bytes base = {0}, hb = {0};
    spec_magic(&base);
    spec_header_body(&hb, &h, 1);
    spec_record(&base, 1, &hb);
    const size_t rec_at = base.n;
    for (size_t c = 0; c < sizeof frames / sizeof frames[0]; c++) {
        bytes b = {0}, body = {0};
        b_raw(&b, base.d, base.n);
        frames[c].fn(&body, &h);
        spec_record(&b, 2, &body);
        bsync_replay_status s;
        uint64_t v;
        char detail[160];
        assert_int_equal(read_mem(b.d, b.n, &s, &v, detail), 1);
        assert_int_equal(s, BSYNC_REPLAY_CORRUPT);
        assert_int_equal(v, rec_at);
        char want[40];
        snprintf(want, sizeof want, "byte %zu ", rec_at + 8 + frames[c].at);
        if (!strstr(detail, want)) print_error("case %zu: '%s' lacks '%s'\n", c, detail, want);
        assert_non_null(strstr(detail, want));
        b_free(&b);
        b_free(&body);
    }
    /* other types: fixed bodies with one field wrong */
    for (int c = 0; c < 9; c++) {
        bytes b = {0}, body = {0};
        b_raw(&b, base.d, base.n);
        uint32_t type = 0;
        switch (c) {
        case 0: /* checksum flags 2 */
            type = 3;
            b_u32(&body, 0);
            b_u32(&body, 2);
            b_u64(&body, 1);
            b_u64(&body, 0);
            break;
        case 1: /* pose without flag */
            type = 3;
            b_u32(&body, 0);
            b_u32(&body, 0);
            b_u64(&body, 1);
            b_u64(&body, 5);
            break;
        case 2: case 3: case 4: case 5: case 6: /* desync: kind 5, slot 1, character 3, reserved */
            type = 5;
            b_u32(&body, 0);
            b_u8(&body, c == 3 ? 1 : 0);
            b_u8(&body, c == 2 ? 5 : 0);
            b_u8(&body, c == 4 ? 3 : 0xFF);
            b_u8(&body, c == 5 ? 1 : 0);
            b_u16(&body, 0xFFFF);
            b_u16(&body, c == 6 ? 1 : 0);
            b_u64(&body, 1);
            b_u64(&body, 2);
            break;
        case 7: /* end reason 3 */
            type = 6;
            b_u32(&body, 0);
            b_u32(&body, 3);
            break;
        case 8: /* snapshot length disagrees with the body */
            type = 4;
            b_u32(&body, 0);
            b_u32(&body, 5);
            b_u32(&body, 0);
            break;
        }
        spec_record(&b, type, &body);
        bsync_replay_status s;
        char detail[160];
        assert_int_equal(read_mem(b.d, b.n, &s, NULL, detail), 1);
        if (s != BSYNC_REPLAY_CORRUPT) print_error("case %d: %s\n", c, detail);
        assert_int_equal(s, BSYNC_REPLAY_CORRUPT);
        b_free(&b);
        b_free(&body);
    }
    /* record headers: unknown types, reserved bytes, impossible lengths, a wrong XXH64 */
    for (int c = 0; c < 7; c++) {
        bytes b = {0}, body = {0};
        b_raw(&b, base.d, base.n);
        b_u32(&body, 0);
        b_u32(&body, 0);
        spec_record(&b, 6, &body); /* a valid END */
        uint8_t* rh = b.d + rec_at;
        if (c == 0) rh[0] = 0;
        if (c == 1) rh[0] = 7;
        if (c == 2) rh[1] = 1;
        if (c == 3) rh[3] = 0x80;
        if (c == 4) rh[4] = 9;    /* END body must be 8 */
        if (c == 5) rh[7] = 0x40; /* > 4 MiB */
        if (c == 6) b.d[b.n - 1] ^= 1;
        bsync_replay_status s;
        uint64_t v;
        assert_int_equal(read_mem(b.d, b.n, &s, &v, NULL), 1);
        assert_int_equal(s, BSYNC_REPLAY_CORRUPT);
        assert_int_equal(v, rec_at);
        b_free(&b);
        b_free(&body);
    }
    /* HEADER bodies */
    for (int c = 0; c < 7; c++) {
        bsync_replay_header x;
        fill_header(&x, 1, 1, 0, 0);
        if (c == 0) x.player_count = 0;
        if (c == 1) x.player_count = 17;
        if (c == 2) x.param_count = 65;
        if (c == 3) x.trigger_count = 17;
        if (c == 4) x.character_count = 0;
        bytes b = {0}, body = {0};
        spec_magic(&b);
        spec_header_body(&body, &x, 1);
        if (c == 5) {
            /* the build version's first byte (after u32 version + u16 length) becomes NUL */
            body.d[6] = 0;
        }
        if (c == 6) b_u8(&body, 0); /* trailing byte */
        spec_record(&b, 1, &body);
        bsync_replay_status s;
        char detail[160];
        assert_int_equal(read_mem(b.d, b.n, &s, NULL, detail), 0);
        assert_int_equal(s, BSYNC_REPLAY_CORRUPT);
        b_free(&b);
        b_free(&body);
    }
    /* not a replay / a mangled CR LF / empty / magic only */
    {
        bsync_replay_status s;
        char detail[160];
        assert_int_equal(read_mem((const uint8_t*)"hello, world", 12, &s, NULL, detail), 0);
        assert_int_equal(s, BSYNC_REPLAY_CORRUPT);
        assert_non_null(strstr(detail, "byte 0"));
        bytes b = {0};
        b_raw(&b, base.d, base.n);
        memmove(b.d + 6, b.d + 7, b.n - 7); /* "\r\n" -> "\n" */
        b.n--;
        assert_int_equal(read_mem(b.d, b.n, &s, NULL, NULL), 0);
        assert_int_equal(s, BSYNC_REPLAY_CORRUPT);
        b_free(&b);
        assert_int_equal(read_mem((const uint8_t*)"", 0, &s, NULL, NULL), 0);
        assert_int_equal(s, BSYNC_REPLAY_TRUNCATED);
        assert_int_equal(read_mem(base.d, 8, &s, NULL, NULL), 0);
        assert_int_equal(s, BSYNC_REPLAY_TRUNCATED);
    }
    b_free(&base);
    b_free(&hb);
}

static void expect_refused(const bsync_replay_record* r, const bsync_replay_header* h) {
    size_t len = 123;
    uint8_t buf[64];
    assert_int_equal(bsync_replay_encode_record(r, h, NULL, 0, &len), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_replay_encode_record(r, h, buf, sizeof buf, &len), BSYNC_INVALID_ARGUMENT);
}

static void test_encoder_refusals(void** state) {
    (void)state;
    bsync_replay_header h;
    fill_header(&h, 2, 2, 1, 0);
    bsync_replay_record* r = new_rec();
    size_t len;
    /* NULLs, unknown types */
    assert_int_equal(bsync_replay_encode_record(NULL, &h, NULL, 0, &len), BSYNC_INVALID_ARGUMENT);
    r->type = BSYNC_REPLAY_END;
    assert_int_equal(bsync_replay_encode_record(r, &h, NULL, 0, NULL), BSYNC_INVALID_ARGUMENT);
    r->type = (bsync_replay_record_type)0;
    expect_refused(r, &h);
    r->type = (bsync_replay_record_type)7;
    expect_refused(r, &h);
    /* HEADER rules */
    for (int c = 0; c < 13; c++) {
        memset(r, 0, sizeof *r);
        r->type = BSYNC_REPLAY_HEADER;
        fill_header(&r->header, 2, 2, 1, 0);
        bsync_replay_header* x = &r->header;
        switch (c) {
        case 0: x->player_count = 0; break;
        case 1: x->player_count = 17; break;
        case 2: x->param_count = 65; break;
        case 3: x->trigger_count = 17; break;
        case 4: x->character_count = 0; break;
        case 5: x->character_count = 65; break;
        case 6: x->asset_count = 257; break;
        case 7: memset(x->build_version, 'v', sizeof x->build_version); break; /* 257 bytes, no NUL */
        case 8: memset(x->assets[1].name, 'n', sizeof x->assets[1].name); break;
        case 9: memset(x->config_path, 'p', sizeof x->config_path); break;
        case 10: x->config_len = BSYNC_REPLAY_MAX_CONFIG + 1; break; /* refused before reading the text */
        case 11: x->config_text = NULL; break;
        case 12: x->config_text = NULL; x->config_len = 0; break; /* allowed */
        }
        if (c == 12) {
            assert_int_equal(bsync_replay_encode_record(r, NULL, NULL, 0, &len), BSYNC_OK);
            continue;
        }
        expect_refused(r, NULL);
        bsync_replay_writer* w = (bsync_replay_writer*)1;
        bsync_error err;
        assert_int_equal(bsync_replay_writer_open("/tmp/bsync_replay_never_created", x, &w, &err),
                         BSYNC_INVALID_ARGUMENT);
        assert_null(w);
        assert_int_equal(access("/tmp/bsync_replay_never_created", F_OK), -1);
    }
    /* exactly at the limits is fine */
    memset(r, 0, sizeof *r);
    r->type = BSYNC_REPLAY_HEADER;
    fill_header(&r->header, 16, 64, 16, 0);
    r->header.character_count = 64;
    memset(r->header.build_version, 'v', BSYNC_REPLAY_MAX_TEXT);
    r->header.build_version[BSYNC_REPLAY_MAX_TEXT] = '\0';
    assert_int_equal(bsync_replay_encode_record(r, NULL, NULL, 0, &len), BSYNC_OK);
    /* FRAME rules */
    for (int c = 0; c < 7; c++) {
        frame_rec(r, 0, 2);
        const bsync_replay_header* hh = &h;
        bsync_replay_header h0 = h;
        switch (c) {
        case 0: hh = NULL; break;
        case 1: r->frame.inputs.player_count = 1; break;
        case 2: r->frame.inputs.player_count = 3; break;
        case 3: r->frame.defaulted_mask = 4; break; /* bit 2 with 2 players */
        case 4: r->frame.payload_len[1] = 257; break;
        case 5: r->frame.inputs.players[1].params[1] = INT32_MIN; break;
        case 6: h0.param_count = 65; hh = &h0; break;
        }
        expect_refused(r, hh);
    }
    frame_rec(r, 0, 2);
    r->frame.defaulted_mask = 3;
    r->frame.payload_len[0] = 256;
    r->frame.inputs.players[0].params[0] = INT32_MIN + 1;
    assert_int_equal(bsync_replay_encode_record(r, &h, NULL, 0, &len), BSYNC_OK);
    /* 16 + 10 + player 0: 2 varints (5 + 1) + 1 trigger + 2 + 256; player 1: 1 + 1 + 1 + 2 */
    assert_int_equal(len, 16 + 10 + (6 + 1 + 2 + 256) + (2 + 1 + 2));
    uint8_t small[64];
    assert_int_equal(bsync_replay_encode_record(r, &h, small, sizeof small, &len), BSYNC_BUFFER_TOO_SMALL);
    assert_int_equal(len, 16 + 10 + (6 + 1 + 2 + 256) + (2 + 1 + 2));
    /* CHECKSUM */
    memset(r, 0, sizeof *r);
    r->type = BSYNC_REPLAY_CHECKSUM;
    r->checksum.has_pose = 2;
    expect_refused(r, &h);
    r->checksum.has_pose = 0;
    r->checksum.pose = 1;
    expect_refused(r, &h);
    /* SNAPSHOT */
    memset(r, 0, sizeof *r);
    r->type = BSYNC_REPLAY_SNAPSHOT;
    r->snapshot.len = 4;
    expect_refused(r, &h); /* data NULL */
    r->snapshot.len = BSYNC_REPLAY_MAX_BODY - 7;
    r->snapshot.data = (const uint8_t*)"x"; /* refused before it is read */
    expect_refused(r, &h);
    /* DESYNC */
    for (int c = 0; c < 3; c++) {
        memset(r, 0, sizeof *r);
        r->type = BSYNC_REPLAY_DESYNC;
        r->desync.character = 0xFF;
        if (c == 0) r->desync.kind = 5;
        if (c == 1) r->desync.slot = 2;
        if (c == 2) r->desync.character = 3;
        expect_refused(r, &h);
    }
    /* END */
    memset(r, 0, sizeof *r);
    r->type = BSYNC_REPLAY_END;
    r->end.reason = 3;
    expect_refused(r, &h);
    r->end.reason = 2;
    assert_int_equal(bsync_replay_encode_record(r, &h, NULL, 0, &len), BSYNC_OK);
    assert_int_equal(len, 24);
    /* the writer refuses a broken record and writes nothing */
    char* path = temp_path();
    bsync_replay_writer* w = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_writer_open(path, &h, &w, &err), BSYNC_OK);
    uint64_t before = bsync_replay_writer_bytes(w);
    frame_rec(r, 0, 2);
    r->frame.defaulted_mask = 0x8000;
    assert_int_equal(bsync_replay_writer_append(w, r, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_replay_writer_append(w, NULL, &err), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_replay_writer_append(NULL, r, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_replay_writer_bytes(w), before);
    r->frame.defaulted_mask = 1;
    append_ok(w, r); /* tick 0 still expected */
    bsync_replay_writer_close(w);
    unlink(path);
    free(path);
    free(r);
}

/* Write failures: IO_ERROR, and the writer stays usable with a readable file. */
static void test_writer_io_errors(void** state) {
    (void)state;
    bsync_replay_header h;
    fill_header(&h, 1, 1, 0, 0);
    bsync_replay_writer* w = NULL;
    bsync_error err;
    assert_int_equal(bsync_replay_writer_open("/nonexistent-dir/x.bsreplay", &h, &w, &err), BSYNC_IO_ERROR);
    assert_null(w);
    assert_non_null(strstr(err.message, "/nonexistent-dir/x.bsreplay"));
    if (access("/dev/full", W_OK) == 0) {
        assert_int_equal(bsync_replay_writer_open("/dev/full", &h, &w, &err), BSYNC_IO_ERROR);
        assert_null(w);
    }
    /* a file size limit makes one append fail half way */
    char* path = temp_path();
    assert_int_equal(bsync_replay_writer_open(path, &h, &w, &err), BSYNC_OK);
    bsync_replay_record* r = new_rec();
    frame_rec(r, 0, 1);
    append_ok(w, r);
    uint64_t good = bsync_replay_writer_bytes(w);
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    if (old.rlim_cur == RLIM_INFINITY || old.rlim_cur > good + 100) {
        void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = old;
        lim.rlim_cur = (rlim_t)(good + 10); /* the 29-byte frame record fits only partly */
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        frame_rec(r, 1, 1);
        r->frame.inputs.players[0].params[0] = 65536;
        bsync_result res = bsync_replay_writer_append(w, r, &err);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        signal(SIGXFSZ, prev);
        assert_int_equal(res, BSYNC_IO_ERROR);
        assert_int_equal(bsync_replay_writer_bytes(w), good);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal((uint64_t)st.st_size, good); /* the partial record was cut off */
        append_ok(w, r);                              /* same tick again: the writer is usable */
        r->type = BSYNC_REPLAY_END;
        r->end = (bsync_replay_end){2, 0};
        append_ok(w, r);
    }
    assert_int_equal(bsync_replay_writer_sync(w), BSYNC_OK);
    assert_int_equal(bsync_replay_writer_sync(NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_replay_writer_bytes(NULL), 0);
    uint64_t total = bsync_replay_writer_bytes(w);
    bsync_replay_writer_close(w);
    bsync_replay_writer_close(NULL);
    bsync_replay_reader* rd = NULL;
    assert_int_equal(bsync_replay_reader_open_file(path, &rd, &err), BSYNC_OK);
    bsync_replay_status s;
    char detail[160];
    int n = read_all(rd, &s, detail);
    assert_int_equal(s, BSYNC_REPLAY_EOF);
    assert_true(n == 4 || n == 2);
    assert_int_equal(bsync_replay_reader_valid_bytes(rd), total);
    bsync_replay_reader_close(rd);
    unlink(path);
    free(path);
    free(r);
}

static void test_reader_misc(void** state) {
    (void)state;
    bsync_replay_reader* rd = (bsync_replay_reader*)1;
    bsync_error err;
    assert_int_equal(bsync_replay_reader_open_file("/nonexistent-dir/none.bsreplay", &rd, &err), BSYNC_IO_ERROR);
    assert_null(rd);
    assert_int_equal(err.code, BSYNC_IO_ERROR);
    assert_non_null(strstr(err.message, "none.bsreplay"));
    assert_int_equal(bsync_replay_reader_open_file(NULL, &rd, NULL), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_replay_reader_open_memory(NULL, 4, &rd), BSYNC_INVALID_ARGUMENT);
    assert_int_equal(bsync_replay_reader_open_memory("x", 1, NULL), BSYNC_INVALID_ARGUMENT);
    assert_null(bsync_replay_reader_header(NULL));
    assert_int_equal(bsync_replay_reader_valid_bytes(NULL), 0);
    bsync_replay_reader_close(NULL);
    char detail[160];
    assert_int_equal(bsync_replay_reader_next(NULL, NULL, detail, sizeof detail), BSYNC_REPLAY_CORRUPT);
    /* the data is copied: changing the caller's buffer afterwards changes nothing */
    char* path = temp_path();
    uint64_t ends[SMALL_RECORDS];
    write_small(path, ends);
    size_t size;
    uint8_t* file = (uint8_t*)bsync_test_read_file(path, &size);
    assert_int_equal(bsync_replay_reader_open_memory(file, size, &rd), BSYNC_OK);
    memset(file, 0, size);
    bsync_replay_status s;
    assert_int_equal(read_all(rd, &s, detail), SMALL_RECORDS);
    assert_int_equal(s, BSYNC_REPLAY_EOF);
    assert_non_null(bsync_replay_reader_header(rd));
    assert_int_equal(bsync_replay_reader_header(rd)->start_tick, 7);
    bsync_replay_reader_close(rd);
    /* a file that is not a replay opens; the first next says CORRUPT */
    FILE* f = fopen(path, "wb");
    fputs("{\"not\": \"a replay\"}\n", f);
    fclose(f);
    assert_int_equal(bsync_replay_reader_open_file(path, &rd, &err), BSYNC_OK);
    assert_int_equal(bsync_replay_reader_next(rd, NULL, detail, sizeof detail), BSYNC_REPLAY_CORRUPT);
    assert_int_equal(bsync_replay_reader_next(rd, NULL, detail, sizeof detail), BSYNC_REPLAY_CORRUPT);
    assert_non_null(strstr(detail, "magic"));
    bsync_replay_reader_close(rd);
    /* status strings: distinct, never NULL */
    for (int a = 0; a <= 6; a++) {
        assert_non_null(bsync_replay_status_string((bsync_replay_status)a));
        for (int b = 0; b < a; b++)
            assert_string_not_equal(bsync_replay_status_string((bsync_replay_status)a),
                                    bsync_replay_status_string((bsync_replay_status)b));
    }
    free(file);
    unlink(path);
    free(path);
}

/* Bytes per FRAME record, 4 players x 3 params (speed 0..3.5, x/y -1..1), no triggers or payload. */
static void test_measure_frame_size(void** state) {
    (void)state;
    bsync_replay_header h;
    fill_header(&h, 4, 3, 0, 0);
    bsync_replay_record* r = new_rec();
    uint64_t rng = 7, sum = 0;
    size_t lo = SIZE_MAX, hi = 0;
    const int N = 10000;
    for (int k = 0; k < N; k++) {
        frame_rec(r, (uint32_t)k, 4);
        for (int p = 0; p < 4; p++) {
            r->frame.inputs.players[p].params[0] = (fix16_t)(bsync_test_rand(&rng) % (229376 + 1));
            for (int i = 1; i < 3; i++)
                r->frame.inputs.players[p].params[i] = (fix16_t)((int64_t)(bsync_test_rand(&rng) % 131073) - 65536);
        }
        size_t len;
        assert_int_equal(bsync_replay_encode_record(r, &h, NULL, 0, &len), BSYNC_OK);
        sum += len;
        if (len < lo) lo = len;
        if (len > hi) hi = len;
    }
    /* every zigzag value is < 2^21 (speed: <= 458752; x/y: <= 131072), so <= 3 varint bytes:
     * at most 16 + 10 + 4 x (3 x 3 + 2) = 70; all-zero would be 16 + 10 + 4 x (3 + 2) = 46 */
    assert_true(hi <= 70);
    assert_true(lo >= 46);
    frame_rec(r, 0, 4);
    size_t idle;
    assert_int_equal(bsync_replay_encode_record(r, &h, NULL, 0, &idle), BSYNC_OK);
    assert_int_equal(idle, 46);
    printf("replay FRAME record, 4 players x 3 params, random speed/x/y: mean %.2f bytes (min %zu, max %zu); "
           "idle %zu bytes; at 60 Hz %.1f KiB/min\n",
           (double)sum / N, lo, hi, idle, (double)sum / N * 60.0 * 60.0 / 1024.0);
    free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_file_exact_bytes), cmocka_unit_test(test_varint_bytes),
        cmocka_unit_test(test_roundtrip_50_frames),   cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_killed_writer_file),    cmocka_unit_test(test_every_bit_flip),
        cmocka_unit_test(test_bad_order),             cmocka_unit_test(test_unsupported_version),
        cmocka_unit_test(test_corrupt_bodies),        cmocka_unit_test(test_encoder_refusals),
        cmocka_unit_test(test_writer_io_errors),      cmocka_unit_test(test_reader_misc),
        cmocka_unit_test(test_measure_frame_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
