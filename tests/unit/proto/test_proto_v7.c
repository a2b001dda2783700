/* test_proto_v7.c — protocol version 7 byte for byte (docs/protocol.md "Version 7"): INPUT's frame ack,
 * FRAMES (runs of confirmed frames on the unreliable input channel, each packet whole on its own) and
 * START's match length; the expected bytes are written out by hand from the document, and the same
 * messages in version 6 still give version 6's bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blendsync/proto.h"

static bsync_proto_msg* new_msg(void) {
    bsync_proto_msg* m = calloc(1, sizeof *m);
    assert_non_null(m);
    return m;
}

static uint8_t g_buf[BSYNC_PROTO_MAX_PACKET];

/* Every cut of a packet gives TRUNCATED. */
static void assert_cuts_truncated(const uint8_t* p, size_t n) {
    bsync_proto_msg* m = new_msg();
    for (size_t cut = 0; cut < n; cut++) assert_int_equal(bsync_proto_decode(p, cut, m), BSYNC_PROTO_TRUNCATED);
    free(m);
}

/* The worked example of docs/protocol.md "INPUT (3)", in version 7: slot 2, 4 parameters, 1 trigger, 2
 * records from tick 500, and the frame ack 497 (the sender holds every frame below tick 497) as the
 * varint of 500 - 497 = 3 right after the first tick. Version 7 packs slot, record count - 1 and the
 * payload flag in byte 0 (2 | 1 << 4 = 0x12) and the first tick is a varint (500 = 0x1F4: F4 03). */
static void test_input_frame_ack(void** state) {
    (void)state;
    bsync_proto_msg* m = new_msg();
    m->type = BSYNC_PROTO_INPUT;
    m->version = 7;
    bsync_proto_input* in = &m->input;
    in->slot = 2;
    in->param_count = 4;
    in->trigger_count = 1;
    in->record_count = 2;
    in->first_tick = 500;
    in->frame_ack = 497;
    const fix16_t r0[4] = {32768, -16384, 65536, 0};
    for (unsigned p = 0; p < 4; p++) in->records[0].params[p] = r0[p];
    in->records[0].triggers[0] = 3;
    in->records[1].params[0] = 32768 + 64;
    in->records[1].params[1] = -16384;
    in->records[1].params[2] = 65536 - 1;
    in->records[1].params[3] = 2;
    static const uint8_t want7[] = {0x42, 0x53, 0x07, 0x03, 23, 0, 0, 0,
                                    0x12, 0x04, 0x01, 0xF4, 0x03, 0x03,
                                    0x80, 0x80, 0x04, 0xFF, 0xFF, 0x01, 0x80, 0x80, 0x08, 0x00, 0x03,
                                    0x80, 0x01, 0x00, 0x01, 0x04, 0x00};
    size_t n = 0;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, sizeof want7);
    assert_memory_equal(g_buf, want7, sizeof want7);
    bsync_proto_msg* d = new_msg();
    assert_int_equal(bsync_proto_decode(want7, sizeof want7, d), BSYNC_PROTO_OK);
    assert_int_equal(d->version, 7);
    assert_int_equal(d->input.frame_ack, 497);
    assert_int_equal(d->input.records[1].params[0], 32768 + 64);
    assert_cuts_truncated(want7, sizeof want7);
    /* the same message in version 6: no frame ack (the document's version 6 example) */
    static const uint8_t want6[] = {0x42, 0x53, 0x06, 0x03, 25, 0, 0, 0,
                                    0x02, 0x04, 0x01, 0x02, 0xF4, 0x01, 0x00, 0x00,
                                    0x80, 0x80, 0x04, 0xFF, 0xFF, 0x01, 0x80, 0x80, 0x08, 0x00, 0x03,
                                    0x80, 0x01, 0x00, 0x01, 0x04, 0x00};
    assert_int_equal(bsync_proto_encode_as(m, 6, g_buf, sizeof g_buf, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, sizeof want6);
    assert_memory_equal(g_buf, want6, sizeof want6);
    assert_int_equal(bsync_proto_decode(want6, sizeof want6, d), BSYNC_PROTO_OK);
    assert_int_equal(d->version, 6);
    assert_int_equal(d->input.frame_ack, 0);
    /* a frame ack past the first tick: BAD_VALUE (encode), and a lag past tick 0 (decode) */
    in->frame_ack = 501;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_BAD_VALUE);
    uint8_t bad[sizeof want7];
    memcpy(bad, want7, sizeof bad);
    bad[4] = 22;
    bad[11] = 0x02; /* first tick 2 (one byte), lag 3 */
    memmove(bad + 12, want7 + 13, sizeof want7 - 13);
    assert_int_equal(bsync_proto_decode(bad, sizeof bad - 1, d), BSYNC_PROTO_BAD_VALUE);
    /* byte 0's bit 7 is reserved */
    memcpy(bad, want7, sizeof bad);
    bad[8] |= 0x80;
    assert_int_equal(bsync_proto_decode(bad, sizeof bad, d), BSYNC_PROTO_RESERVED_NONZERO);
    /* a first tick of 2^32 (varint 80 80 80 80 10) is out of range; 2^32 - 1 (FF FF FF FF 0F) with one
     * record and lag 0 decodes */
    static const uint8_t big[] = {0x42, 0x53, 0x07, 0x03, 9, 0, 0, 0, 0x05, 0x00, 0x00, 0x80, 0x80, 0x80, 0x80, 0x10, 0x00};
    assert_int_equal(bsync_proto_decode(big, sizeof big, d), BSYNC_PROTO_BAD_VALUE);
    static const uint8_t top[] = {0x42, 0x53, 0x07, 0x03, 9, 0, 0, 0, 0x05, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00};
    assert_int_equal(bsync_proto_decode(top, sizeof top, d), BSYNC_PROTO_OK);
    assert_int_equal(d->input.slot, 5);
    assert_int_equal(d->input.record_count, 1);
    assert_int_equal(d->input.first_tick, UINT32_MAX);
    assert_int_equal(d->input.frame_ack, UINT32_MAX);
    /* four records (bits 4-5 = 3) from 2^32 - 1 would pass the last tick */
    uint8_t four[sizeof top];
    memcpy(four, top, sizeof four);
    four[8] = 0x35;
    assert_int_equal(bsync_proto_decode(four, sizeof four, d), BSYNC_PROTO_BAD_VALUE);
    free(d);
    free(m);
}

/* A version 7 INPUT with payloads and a 3-byte first tick, as tests/conformance/bsync_wire.py (written
 * from the document alone) encodes it: byte 0 = slot 2 | (r - 1 = 1) << 4 | payload bit 0x40 = 0x52,
 * first tick 70000 = F0 A2 04, lag 10; record 1 carries the payload 01 02 03 (record 0 length 0). */
static void test_input_v7_payload_independent(void** state) {
    (void)state;
    static const uint8_t pk[] = {0x42, 0x53, 0x07, 0x03, 0x1F, 0x00, 0x00, 0x00, 0x52, 0x04, 0x01, 0xF0, 0xA2,
                                 0x04, 0x0A, 0x80, 0x80, 0x04, 0xFF, 0xFF, 0x01, 0x80, 0x80, 0x08, 0x00, 0x03,
                                 0x00, 0x00, 0x80, 0x01, 0x00, 0x01, 0x04, 0x00, 0x03, 0x00, 0x01, 0x02, 0x03};
    bsync_proto_msg* d = new_msg();
    assert_int_equal(bsync_proto_decode(pk, sizeof pk, d), BSYNC_PROTO_OK);
    assert_int_equal(d->input.slot, 2);
    assert_int_equal(d->input.record_count, 2);
    assert_int_equal(d->input.first_tick, 70000);
    assert_int_equal(d->input.frame_ack, 69990);
    assert_int_equal(d->input.records[0].payload_len, 0);
    assert_int_equal(d->input.records[1].payload_len, 3);
    assert_int_equal(d->input.records[1].payload[2], 3);
    size_t n = 0;
    assert_int_equal(bsync_proto_encode(d, g_buf, sizeof g_buf, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, sizeof pk);
    assert_memory_equal(g_buf, pk, sizeof pk);
    assert_cuts_truncated(pk, sizeof pk);
    free(d);
}

/* FRAMES: ticks 100..102 of a 2-player match (1 parameter, 1 trigger), input ack 4 (no input of the
 * receiver needed up to 102 + 4). Frame 100 FULL (no coding byte): speeds 1.0 and 0.5. Frame 101:
 * player 0 moves to 1.5, CHANGES with mask 1. Frame 102: player 1 defaulted, nobody changed: CHANGES
 * with mask 0 and no players. */
static const uint8_t k_frames[] = {0x42, 0x53, 0x07, 0x0E, 39, 0, 0, 0,
                                   0x64, 0x00, 0x00, 0x00, 0x03, 0x02, 0x01, 0x01, 0x04,
                                   0x00, 0x00, 0x00, 0x00, 0x80, 0x80, 0x08, 0x00, 0x80, 0x80, 0x04, 0x00,
                                   0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x80, 0x80, 0x0C, 0x00,
                                   0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00};

static void fill_run(bsync_proto_msg* m) {
    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_FRAMES;
    m->version = 7;
    bsync_proto_frames* fs = &m->frames;
    fs->first_tick = 100;
    fs->count = 3;
    fs->input_ack = 4;
    const fix16_t speed0[3] = {65536, 98304, 98304};
    for (unsigned i = 0; i < 3; i++) {
        bsync_proto_frame* f = &fs->frames[i];
        f->tick = 100 + i;
        f->player_count = 2;
        f->param_count = 1;
        f->trigger_count = 1;
        f->players[0].params[0] = speed0[i];
        f->players[1].params[0] = 32768;
        if (i == 2) f->defaulted_mask = 2;
        if (i > 0) assert_int_equal(bsync_proto_frame_changes(f, &fs->frames[i - 1]), 0);
    }
}

static void test_frames_bytes(void** state) {
    (void)state;
    bsync_proto_msg* m = new_msg();
    fill_run(m);
    assert_int_equal(m->frames.frames[1].coding, BSYNC_PROTO_FRAME_CHANGES);
    assert_int_equal(m->frames.frames[1].changed_mask, 1);
    assert_int_equal(m->frames.frames[2].changed_mask, 0);
    size_t n = 0;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, sizeof k_frames);
    assert_memory_equal(g_buf, k_frames, sizeof k_frames);
    /* decoded, each frame made whole against the one before it in the packet */
    bsync_proto_msg* d = new_msg();
    assert_int_equal(bsync_proto_decode(k_frames, sizeof k_frames, d), BSYNC_PROTO_OK);
    assert_int_equal(d->type, BSYNC_PROTO_FRAMES);
    assert_int_equal(d->frames.count, 3);
    for (unsigned i = 1; i < 3; i++)
        assert_int_equal(bsync_proto_frame_expand(&d->frames.frames[i], &d->frames.frames[i - 1]), 0);
    assert_int_equal(d->frames.frames[1].players[0].params[0], 98304);
    assert_int_equal(d->frames.frames[1].players[1].params[0], 32768);
    assert_int_equal(d->frames.frames[2].players[0].params[0], 98304);
    assert_int_equal(d->frames.frames[2].defaulted_mask, 2);
    /* each frame's input ack is the packet's, from its own tick: tick + ack = 102 + 4 for all */
    for (unsigned i = 0; i < 3; i++) assert_int_equal(d->frames.frames[i].tick + d->frames.frames[i].input_ack, 106);
    assert_cuts_truncated(k_frames, sizeof k_frames);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_FRAMES), BSYNC_PROTO_CHANNEL_INPUT);
    assert_int_equal(bsync_proto_reliable(BSYNC_PROTO_FRAMES), 0);
    free(d);
    free(m);
}

static void test_frames_rules(void** state) {
    (void)state;
    bsync_proto_msg* m = new_msg();
    bsync_proto_msg* d = new_msg();
    uint8_t p[sizeof k_frames];
    size_t n = 0;
    /* not a type of version 6 */
    memcpy(p, k_frames, sizeof p);
    p[2] = 6;
    assert_int_equal(bsync_proto_decode(p, sizeof p, d), BSYNC_PROTO_UNKNOWN_TYPE);
    fill_run(m);
    assert_int_equal(bsync_proto_encode_as(m, 6, g_buf, sizeof g_buf, &n), BSYNC_PROTO_UNKNOWN_TYPE);
    /* counts: 0 and 9 frames */
    memcpy(p, k_frames, sizeof p);
    p[12] = 0;
    assert_int_equal(bsync_proto_decode(p, sizeof p, d), BSYNC_PROTO_BAD_COUNT);
    p[12] = 9;
    assert_int_equal(bsync_proto_decode(p, sizeof p, d), BSYNC_PROTO_BAD_COUNT);
    /* a coding byte of 2 */
    memcpy(p, k_frames, sizeof p);
    p[29] = 2;
    assert_int_equal(bsync_proto_decode(p, sizeof p, d), BSYNC_PROTO_BAD_ENUM);
    /* frame 102 with a changed-mask bit above the player count */
    memcpy(p, k_frames, sizeof p);
    p[45] = 0x04;
    assert_int_equal(bsync_proto_decode(p, sizeof p, d), BSYNC_PROTO_RESERVED_NONZERO);
    /* the first frame CHANGES, a tick out of the run, another layout: BAD_VALUE when encoding */
    fill_run(m);
    m->frames.frames[0].coding = BSYNC_PROTO_FRAME_CHANGES;
    m->frames.frames[0].changed_mask = 1;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_BAD_VALUE);
    fill_run(m);
    m->frames.frames[2].tick = 103;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_BAD_VALUE);
    fill_run(m);
    m->frames.frames[1].param_count = 0;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_BAD_VALUE);
    /* too many bytes for one packet: 8 full frames of 16 players x 64 full-range parameters */
    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_FRAMES;
    m->version = 7;
    m->frames.count = BSYNC_PROTO_MAX_FRAMES;
    for (unsigned i = 0; i < BSYNC_PROTO_MAX_FRAMES; i++) {
        bsync_proto_frame* f = &m->frames.frames[i];
        f->tick = i;
        f->player_count = 16;
        f->param_count = 64;
        for (unsigned q = 0; q < 16; q++)
            for (unsigned k = 0; k < 64; k++) f->players[q].params[k] = (fix16_t)((i + q + k) % 2 ? INT32_MAX : -INT32_MAX);
    }
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_TOO_LONG);
    m->frames.count = 1; /* one largest frame always fits */
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_OK);
    assert_true(n <= BSYNC_PROTO_MAX_PACKET);
    free(d);
    free(m);
}

/* START in version 7 carries the match length (600 ticks here); in version 6 it is 8 bytes. */
static void test_start_match_length(void** state) {
    (void)state;
    bsync_proto_msg* m = new_msg();
    m->type = BSYNC_PROTO_START;
    m->version = 7;
    m->start.tick = 0;
    m->start.deadline_in_us = 100000;
    m->start.match_ticks = 600;
    static const uint8_t want7[] = {0x42, 0x53, 0x07, 0x0B, 12, 0, 0, 0, 0, 0, 0, 0, 0xA0, 0x86, 0x01, 0x00, 0x58, 0x02, 0, 0};
    static const uint8_t want6[] = {0x42, 0x53, 0x06, 0x0B, 8, 0, 0, 0, 0, 0, 0, 0, 0xA0, 0x86, 0x01, 0x00};
    size_t n = 0;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, sizeof want7);
    assert_memory_equal(g_buf, want7, sizeof want7);
    assert_int_equal(bsync_proto_encode_as(m, 6, g_buf, sizeof g_buf, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, sizeof want6);
    assert_memory_equal(g_buf, want6, sizeof want6);
    bsync_proto_msg* d = new_msg();
    assert_int_equal(bsync_proto_decode(want7, sizeof want7, d), BSYNC_PROTO_OK);
    assert_int_equal(d->start.match_ticks, 600);
    assert_int_equal(bsync_proto_decode(want6, sizeof want6, d), BSYNC_PROTO_OK);
    assert_int_equal(d->start.match_ticks, 0);
    /* a version 6 START with version 7's 12 bytes: trailing */
    uint8_t p[sizeof want7];
    memcpy(p, want7, sizeof p);
    p[2] = 6;
    assert_int_equal(bsync_proto_decode(p, sizeof p, d), BSYNC_PROTO_TRAILING_BYTES);
    /* versions outside 6..7 */
    p[2] = 8;
    assert_int_equal(bsync_proto_decode(p, sizeof p, d), BSYNC_PROTO_UNSUPPORTED_VERSION);
    assert_int_equal(bsync_proto_encode_as(m, 5, g_buf, sizeof g_buf, &n), BSYNC_PROTO_UNSUPPORTED_VERSION);
    assert_int_equal(bsync_proto_encode_as(m, 8, g_buf, sizeof g_buf, &n), BSYNC_PROTO_UNSUPPORTED_VERSION);
    free(d);
    free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_frame_ack),
        cmocka_unit_test(test_input_v7_payload_independent),
        cmocka_unit_test(test_frames_bytes),
        cmocka_unit_test(test_frames_rules),
        cmocka_unit_test(test_start_match_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
