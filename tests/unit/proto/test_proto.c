/* test_proto.c — the wire protocol (blendsync/proto.h, docs/protocol.md): hand-built packets written
 * byte by byte from the documented layout, random round trips, every truncation, random byte flips,
 * the exact reason code of each malformed form, maximum sizes and the input message's size. */
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/proto.h"

/* ---------------------------------------------------------------- byte builder (test side) */

typedef struct bytes_ {
    uint8_t data[16384];
    size_t len;
} bytes_;

static void b_u8(bytes_* b, uint32_t v) {
    assert_true(b->len < sizeof b->data);
    b->data[b->len++] = (uint8_t)(v & 0xFFu);
}
static void b_u16(bytes_* b, uint32_t v) { b_u8(b, v & 0xFF); b_u8(b, (v >> 8) & 0xFF); }
static void b_u32(bytes_* b, uint32_t v) { b_u16(b, v & 0xFFFF); b_u16(b, (v >> 16) & 0xFFFF); }
static void b_u64(bytes_* b, uint64_t v) { b_u32(b, (uint32_t)(v & 0xFFFFFFFFu)); b_u32(b, (uint32_t)(v >> 32)); }
static void b_raw(bytes_* b, const char* hex_free_bytes, size_t n) {
    for (size_t i = 0; i < n; i++) b_u8(b, (uint8_t)hex_free_bytes[i]);
}
/* The protocol version the hand-built packets below document (docs/protocol.md: 2 since SNAPSHOT kind
 * TRAIL; the header layout itself is frozen). */
#define V 6 /* the bytes written out here are version 6 (3: END and START; 4: FRAME CHANGES coding; 5: BYE
               * OVERLOADED, issue 14; 6: sessions, issue 18), which a version 7 build still decodes and
               * encodes (msg.version 6); version 7's own changes are in test_proto_v7.c */

/* Header with the body length patched in by b_finish. */
static void b_header(bytes_* b, uint32_t version, uint32_t type) {
    b->len = 0;
    b_u8(b, 'B'); b_u8(b, 'S'); b_u8(b, version); b_u8(b, type); b_u16(b, 0); b_u16(b, 0);
}
static void b_finish(bytes_* b) {
    size_t body = b->len - 8;
    b->data[4] = (uint8_t)(body & 0xFF);
    b->data[5] = (uint8_t)(body >> 8);
}

static bsync_proto_msg* new_msg(void) {
    bsync_proto_msg* m = calloc(1, sizeof *m);
    assert_non_null(m);
    return m;
}

static bsync_proto_result decode_b(const bytes_* b, bsync_proto_msg* m) { return bsync_proto_decode(b->data, b->len, m); }

/* Encoding the decoded message must give back exactly the bytes (canonical form). */
static void assert_reencodes(const bsync_proto_msg* m, const uint8_t* bytes, size_t len) {
    static uint8_t out[BSYNC_PROTO_MAX_PACKET + 16];
    size_t n = 0;
    assert_int_equal(bsync_proto_encode(m, out, sizeof out, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, len);
    assert_memory_equal(out, bytes, len);
}

/* ---------------------------------------------------------------- hand-built packets */

static void test_hello_bytes(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 1);
    b_u64(&b, 0x1122334455667788ull);
    b_u64(&b, 0xA1B2C3D4E5F60718ull);
    b_u8(&b, 3);
    b_u32(&b, 501); /* resume (version 5): a reconnect holding the state at the start of tick 500 */
    b_u8(&b, 5);
    b_raw(&b, "s3cr7", 5);
    b_finish(&b);
    assert_int_equal(b.len, 8 + 22 + 5);
    /* the header bytes exactly as documented */
    static const uint8_t hdr[8] = {0x42, 0x53, V, 0x01, 27, 0x00, 0x00, 0x00};
    assert_memory_equal(b.data, hdr, 8);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->type, BSYNC_PROTO_HELLO);
    assert_true(m->hello.match_id == 0x1122334455667788ull);
    assert_true(m->hello.graph_hash == 0xA1B2C3D4E5F60718ull);
    assert_int_equal(m->hello.slot, 3);
    assert_int_equal(m->hello.resume, 501);
    assert_int_equal(m->hello.token_len, 5);
    assert_memory_equal(m->hello.token, "s3cr7", 5);
    assert_reencodes(m, b.data, b.len);
    free(m);
}

static void test_welcome_bytes(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 2);
    b_u8(&b, 30); b_u8(&b, 2); b_u8(&b, 4); b_u8(&b, 1); b_u8(&b, 4); b_u8(&b, 1);
    b_u16(&b, 10);      /* checksum interval */
    b_u16(&b, 0x000B);  /* slots 0, 1, 3 connected */
    b_u32(&b, 1000);    /* start tick */
    b_u32(&b, 1500);    /* snapshot total: 2 chunks */
    b_u16(&b, 1024);
    for (unsigned i = 0; i < 1024; i++) b_u8(&b, (i * 7u) & 0xFF);
    b_finish(&b);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->type, BSYNC_PROTO_WELCOME);
    const bsync_proto_welcome* w = &m->welcome;
    assert_int_equal(w->tick_rate, 30);
    assert_int_equal(w->input_delay, 2);
    assert_int_equal(w->player_count, 4);
    assert_int_equal(w->slot, 1);
    assert_int_equal(w->param_count, 4);
    assert_int_equal(w->trigger_count, 1);
    assert_int_equal(w->checksum_interval, 10);
    assert_int_equal(w->connected_mask, 0x000B);
    assert_int_equal(w->start_tick, 1000);
    assert_int_equal(w->snapshot_size, 1500);
    assert_int_equal(w->snapshot_len, 1024);
    assert_int_equal(w->snapshot[1023], (1023u * 7u) & 0xFF);
    assert_reencodes(m, b.data, b.len);

    /* a fresh start: no snapshot, 20-byte body */
    b_header(&b, V, 2);
    b_u8(&b, 60); b_u8(&b, 0); b_u8(&b, 1); b_u8(&b, 0); b_u8(&b, 0); b_u8(&b, 0);
    b_u16(&b, 1); b_u16(&b, 1); b_u32(&b, 0); b_u32(&b, 0); b_u16(&b, 0);
    b_finish(&b);
    assert_int_equal(b.len, 28);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->welcome.snapshot_size, 0);
    /* the slot's own bit must be set */
    b.data[8 + 8] = 0; /* connected mask low byte */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_VALUE);
    free(m);
}

/* The input example of docs/protocol.md: 4 parameters, 1 trigger, 2 records. */
static void build_input_example(bytes_* b) {
    b_header(b, V, 3);
    b_u8(b, 2);      /* slot */
    b_u8(b, 4);      /* params */
    b_u8(b, 1);      /* triggers */
    b_u8(b, 2);      /* records */
    b_u32(b, 500);   /* first tick */
    /* record 0, absolute zigzag varints: 0.5 -> 65536; -0.25 -> 32767; 1.0 -> 131072; 0 -> 0 */
    b_u8(b, 0x80); b_u8(b, 0x80); b_u8(b, 0x04);
    b_u8(b, 0xFF); b_u8(b, 0xFF); b_u8(b, 0x01);
    b_u8(b, 0x80); b_u8(b, 0x80); b_u8(b, 0x08);
    b_u8(b, 0x00);
    b_u8(b, 3);      /* trigger */
    /* record 1, deltas: +64 -> 128; 0 -> 0; -1 -> 1; +2 -> 4 */
    b_u8(b, 0x80); b_u8(b, 0x01);
    b_u8(b, 0x00);
    b_u8(b, 0x01);
    b_u8(b, 0x04);
    b_u8(b, 0);      /* trigger */
    b_finish(b);
}

static void test_input_bytes(void** state) {
    (void)state;
    bytes_ b;
    build_input_example(&b);
    assert_int_equal(b.len, 8 + 8 + 11 + 6);
    /* the worked example printed in docs/protocol.md, byte for byte */
    static const uint8_t doc[] = {0x42, 0x53, V, 0x03, 0x19, 0x00, 0x00, 0x00, 0x02, 0x04, 0x01, 0x02,
                                  0xF4, 0x01, 0x00, 0x00, 0x80, 0x80, 0x04, 0xFF, 0xFF, 0x01, 0x80, 0x80,
                                  0x08, 0x00, 0x03, 0x80, 0x01, 0x00, 0x01, 0x04, 0x00};
    assert_int_equal(sizeof doc, b.len);
    assert_memory_equal(doc, b.data, b.len);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    const bsync_proto_input* in = &m->input;
    assert_int_equal(m->type, BSYNC_PROTO_INPUT);
    assert_int_equal(in->slot, 2);
    assert_int_equal(in->param_count, 4);
    assert_int_equal(in->trigger_count, 1);
    assert_int_equal(in->record_count, 2);
    assert_int_equal(in->first_tick, 500);
    assert_int_equal(in->records[0].params[0], fix16_from_dbl(0.5));
    assert_int_equal(in->records[0].params[1], fix16_from_dbl(-0.25));
    assert_int_equal(in->records[0].params[2], fix16_one);
    assert_int_equal(in->records[0].params[3], 0);
    assert_int_equal(in->records[0].triggers[0], 3);
    assert_int_equal(in->records[1].params[0], 32768 + 64);
    assert_int_equal(in->records[1].params[1], -16384);
    assert_int_equal(in->records[1].params[2], 65535);
    assert_int_equal(in->records[1].params[3], 2);
    assert_int_equal(in->records[1].triggers[0], 0);
    assert_reencodes(m, b.data, b.len);
    free(m);
}

static void test_input_ack_bytes(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 4);
    b_u32(&b, 0xDEADBEEFu);
    b_u32(&b, 77);
    b_finish(&b);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->input_ack.next_tick, 0xDEADBEEFu);
    assert_int_equal(m->input_ack.server_tick, 77);
    assert_reencodes(m, b.data, b.len);
    free(m);
}

static void test_frame_bytes(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 5);
    b_u32(&b, 1234);
    b_u8(&b, 3); b_u8(&b, 2); b_u8(&b, 1); b_u8(&b, 0);
    b_u16(&b, 0x0004); /* player 2 defaulted */
    b_u16(&b, 0x0002); /* player 1 has a payload */
    b_u8(&b, 4);       /* input ack (version 5): the receiver's inputs needed from tick 1239 on */
    /* player 0: 1 -> zz 2; -1 -> zz 1; trigger 9 */
    b_u8(&b, 0x02); b_u8(&b, 0x01); b_u8(&b, 9);
    /* player 1: INT32_MAX -> zz 0xFFFFFFFE (5 bytes); 0; trigger 0; payload "hi!" */
    b_u8(&b, 0xFE); b_u8(&b, 0xFF); b_u8(&b, 0xFF); b_u8(&b, 0xFF); b_u8(&b, 0x0F);
    b_u8(&b, 0x00); b_u8(&b, 0);
    b_u16(&b, 3); b_raw(&b, "hi!", 3);
    /* player 2: -INT32_MAX -> zz 0xFFFFFFFD; 63 -> zz 126; trigger 255 */
    b_u8(&b, 0xFD); b_u8(&b, 0xFF); b_u8(&b, 0xFF); b_u8(&b, 0xFF); b_u8(&b, 0x0F);
    b_u8(&b, 0x7E); b_u8(&b, 255);
    b_finish(&b);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    const bsync_proto_frame* f = &m->frame;
    assert_int_equal(f->tick, 1234);
    assert_int_equal(f->player_count, 3);
    assert_int_equal(f->param_count, 2);
    assert_int_equal(f->trigger_count, 1);
    assert_int_equal(f->defaulted_mask, 4);
    assert_int_equal(f->input_ack, 4);
    assert_int_equal(f->players[0].params[0], 1);
    assert_int_equal(f->players[0].params[1], -1);
    assert_int_equal(f->players[0].triggers[0], 9);
    assert_int_equal(f->players[0].payload_len, 0);
    assert_int_equal(f->players[1].params[0], INT32_MAX);
    assert_int_equal(f->players[1].params[1], 0);
    assert_int_equal(f->players[1].payload_len, 3);
    assert_memory_equal(f->players[1].payload, "hi!", 3);
    assert_int_equal(f->players[2].params[0], -INT32_MAX);
    assert_int_equal(f->players[2].params[1], 63);
    assert_int_equal(f->players[2].triggers[0], 255);
    assert_reencodes(m, b.data, b.len);
    free(m);
}

/* Version 4's CHANGES coding (docs/protocol.md FRAME): bytes written by hand from the document. */
static void test_frame_changes(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 5);
    b_u32(&b, 1235);
    b_u8(&b, 3); b_u8(&b, 2); b_u8(&b, 1); b_u8(&b, 1); /* coding 1: CHANGES */
    b_u16(&b, 0x0000); /* nobody defaulted */
    b_u16(&b, 0x0000); /* no payload */
    b_u8(&b, 200);     /* input ack (version 5) */
    b_u16(&b, 0x0002); /* only player 1 on the wire */
    b_u8(&b, 0x04); b_u8(&b, 0x03); b_u8(&b, 0); /* player 1: 2 -> zz 4; -2 -> zz 3; trigger 0 */
    b_finish(&b);
    assert_int_equal(b.len, 8 + 15 + 3);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    bsync_proto_frame* f = &m->frame;
    assert_int_equal(f->coding, BSYNC_PROTO_FRAME_CHANGES);
    assert_int_equal(f->changed_mask, 2);
    assert_int_equal(f->input_ack, 200);
    assert_int_equal(f->players[1].params[0], 2);
    assert_int_equal(f->players[1].params[1], -2);
    assert_reencodes(m, b.data, b.len);
    /* expanded from the previous frame (tick 1234): players 0 and 2 keep its targets and triggers */
    static bsync_proto_frame prev;
    memset(&prev, 0, sizeof prev);
    prev.tick = 1234; prev.player_count = 3; prev.param_count = 2; prev.trigger_count = 1;
    prev.players[0].params[0] = 10; prev.players[0].params[1] = 11; prev.players[0].triggers[0] = 9;
    prev.players[2].params[0] = 20; prev.players[2].params[1] = 21; prev.players[2].payload_len = 2;
    prev.tick = 1233; /* not tick - 1: refused, left as it was */
    assert_int_equal(bsync_proto_frame_expand(f, &prev), -1);
    assert_int_equal(bsync_proto_frame_expand(f, NULL), -1);
    assert_int_equal(f->coding, BSYNC_PROTO_FRAME_CHANGES);
    prev.tick = 1234;
    assert_int_equal(bsync_proto_frame_expand(f, &prev), 0);
    assert_int_equal(f->coding, BSYNC_PROTO_FRAME_FULL);
    assert_int_equal(f->changed_mask, 7);
    assert_int_equal(f->input_ack, 200); /* per connection: not the previous frame's */
    assert_int_equal(f->players[0].params[0], 10);
    assert_int_equal(f->players[0].params[1], 11);
    assert_int_equal(f->players[0].triggers[0], 9);
    assert_int_equal(f->players[1].params[0], 2);
    assert_int_equal(f->players[2].params[1], 21);
    assert_int_equal(f->players[2].payload_len, 0);
    /* the encoder's side: the same frame coded against prev gives the same bytes again */
    assert_int_equal(bsync_proto_frame_changes(f, &prev), 0);
    assert_int_equal(f->coding, BSYNC_PROTO_FRAME_CHANGES);
    assert_int_equal(f->changed_mask, 2); /* players 0 and 2 as in prev (a payload is never repeated) */
    static uint8_t out[64];
    size_t n = 0;
    assert_int_equal(bsync_proto_encode(m, out, sizeof out, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, b.len);
    assert_memory_equal(out, b.data, n);
    /* another trigger or a payload is a change; everyone changed is FULL (2 bytes shorter) */
    f->players[0].triggers[0] = 1;
    f->players[2].payload_len = 1;
    assert_int_equal(bsync_proto_frame_changes(f, &prev), 0);
    assert_int_equal(f->coding, BSYNC_PROTO_FRAME_FULL);
    f->players[0].triggers[0] = 9;
    assert_int_equal(bsync_proto_frame_changes(f, &prev), 0);
    assert_int_equal(f->changed_mask, 6);
    assert_int_equal(bsync_proto_frame_changes(f, NULL), -1);
    assert_int_equal(f->coding, BSYNC_PROTO_FRAME_FULL);
    /* refused on the wire: coding 2; a changed bit above the players; a payload outside the changed
     * players; every player in a CHANGES frame */
    bytes_ x = b;
    x.data[8 + 7] = 2;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_ENUM);
    x = b; x.data[8 + 13] = 0x0A;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_RESERVED_NONZERO);
    x = b; x.data[8 + 10] = 0x01;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE);
    x = b; x.data[8 + 13] = 0x07;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE); /* every player changed: only FULL */
    free(m);
}

static void test_checksum_bytes(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 6);
    b_u32(&b, 90);
    b_u64(&b, 0x0102030405060708ull);
    b_u64(&b, 0x1112131415161718ull);
    b_u8(&b, 2);  /* characters */
    b_u8(&b, 1);  /* joint detail present */
    b_u64(&b, 0xAAull); b_u64(&b, 0xBBull);
    b_u64(&b, 0xCCull); b_u64(&b, 0xDDull);
    b_u8(&b, 1);  /* joint character */
    b_u16(&b, 3); /* joints */
    b_u64(&b, 100); b_u64(&b, 200); b_u64(&b, 0xFFFFFFFFFFFFFFFFull);
    b_finish(&b);
    assert_int_equal(b.len, 8 + 22 + 32 + 3 + 24);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    const bsync_proto_checksum* c = &m->checksum;
    assert_int_equal(c->tick, 90);
    assert_true(c->blend == 0x0102030405060708ull && c->pose == 0x1112131415161718ull);
    assert_int_equal(c->character_count, 2);
    assert_true(c->characters[0].blend == 0xAA && c->characters[0].pose == 0xBB);
    assert_true(c->characters[1].blend == 0xCC && c->characters[1].pose == 0xDD);
    assert_int_equal(c->joint_character, 1);
    assert_int_equal(c->joint_count, 3);
    assert_true(c->joints[2] == 0xFFFFFFFFFFFFFFFFull);
    assert_reencodes(m, b.data, b.len);

    /* the root-only form: 22-byte body */
    b_header(&b, V, 6);
    b_u32(&b, 91); b_u64(&b, 1); b_u64(&b, 2); b_u8(&b, 0); b_u8(&b, 0);
    b_finish(&b);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->checksum.joint_count, 0);
    /* flag bit 1 is reserved */
    b.data[8 + 21] = 2;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_RESERVED_NONZERO);
    free(m);
}

static void test_desync_bytes(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 7);
    b_u32(&b, 4242);
    b_u8(&b, 4);      /* joint */
    b_u8(&b, 5);      /* character */
    b_u16(&b, 17);    /* joint index */
    b_u8(&b, 1);      /* resync */
    b_u8(&b, 0);
    b_u64(&b, 0x1111);
    b_u64(&b, 0x2222);
    b_finish(&b);
    assert_int_equal(b.len, 8 + 26);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    const bsync_proto_desync* d = &m->desync;
    assert_int_equal(d->tick, 4242);
    assert_int_equal(d->kind, BSYNC_PROTO_DESYNC_JOINT);
    assert_int_equal(d->character, 5);
    assert_int_equal(d->part, 17);
    assert_int_equal(d->action, BSYNC_PROTO_ACTION_RESYNC);
    assert_true(d->expected == 0x1111 && d->got == 0x2222);
    assert_reencodes(m, b.data, b.len);
    /* a root kind must say "no character" and "no part" */
    b.data[8 + 4] = 0;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_VALUE);
    b.data[8 + 5] = 0xFF; b.data[8 + 6] = 0xFF; b.data[8 + 7] = 0xFF;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    b.data[8 + 8] = 3; /* detail needs a character */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_VALUE);
    b.data[8 + 8] = 4; /* no such action */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_ENUM);
    b.data[8 + 8] = 0;
    b.data[8 + 4] = 5; /* no such kind */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_ENUM);
    free(m);
}

static void test_snapshot_bytes(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 8);
    b_u32(&b, 600);
    b_u8(&b, 1);       /* resync */
    b_u8(&b, 0);
    b_u16(&b, 2);      /* chunk index: the last of 3 */
    b_u16(&b, 3);
    b_u32(&b, 2100);   /* 1024 + 1024 + 52 */
    b_u16(&b, 52);
    for (unsigned i = 0; i < 52; i++) b_u8(&b, i);
    b_finish(&b);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    const bsync_proto_snapshot* s = &m->snapshot;
    assert_int_equal(s->tick, 600);
    assert_int_equal(s->kind, BSYNC_PROTO_SNAPSHOT_RESYNC);
    assert_int_equal(s->chunk_index, 2);
    assert_int_equal(s->chunk_count, 3);
    assert_int_equal(s->total_size, 2100);
    assert_int_equal(s->len, 52);
    assert_int_equal(s->data[51], 51);
    assert_reencodes(m, b.data, b.len);
    /* kind 3 is TRAIL (version 2), kind 4 does not exist */
    b.data[8 + 4] = 3;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->snapshot.kind, BSYNC_PROTO_SNAPSHOT_TRAIL);
    b.data[8 + 4] = 4;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_ENUM);
    b.data[8 + 4] = 1;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    /* chunk count must be ceil(2100 / 1024) = 3 */
    b.data[8 + 8] = 4;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_COUNT);
    b.data[8 + 8] = 3;
    b.data[8 + 6] = 3; /* index 3 of 3 */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_COUNT);
    b.data[8 + 6] = 1; /* chunk 1 of 3 must be full (1024), not 52 */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_LENGTH);
    b.data[8 + 6] = 2;
    b.data[8 + 10] = 0x33; /* total 2099: the last chunk would be 51 */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_LENGTH);
    b.data[8 + 10] = 0x34;
    b.data[8 + 5] = 1; /* reserved */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_RESERVED_NONZERO);
    b.data[8 + 5] = 0;
    b.data[8 + 4] = 4; /* no such kind (3 is TRAIL since version 2) */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_ENUM);
    free(m);
}

/* AUTH_INIT and AUTH_CHALLENGE (version 6), byte by byte as docs/protocol.md lays them out. */
static void test_auth_bytes(void** state) {
    (void)state;
    bytes_ b;
    bsync_proto_msg* m = new_msg();
    b_header(&b, V, 12);
    b_u32(&b, 0x05060708u); b_u32(&b, 0x01020304u); /* match id 0x0102030405060708 */
    b_u8(&b, 3);  /* slot */
    b_u8(&b, 1);  /* mode: encrypt */
    b_u8(&b, 0); b_u8(&b, 0);
    for (int i = 0; i < 32; i++) b_u8(&b, (uint32_t)(0xA0 + i));
    b_finish(&b);
    assert_int_equal(b.len, 8 + 44);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->type, BSYNC_PROTO_AUTH_INIT);
    assert_true(m->auth_init.match_id == 0x0102030405060708ull);
    assert_int_equal(m->auth_init.slot, 3);
    assert_int_equal(m->auth_init.mode, 1);
    assert_int_equal(m->auth_init.client_nonce[0], 0xA0);
    assert_int_equal(m->auth_init.client_nonce[31], 0xBF);
    assert_reencodes(m, b.data, b.len);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_AUTH_INIT), BSYNC_PROTO_CHANNEL_CONTROL);
    assert_true(bsync_proto_reliable(BSYNC_PROTO_AUTH_INIT));
    b.data[8 + 9] = 3; /* mode 3 */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_ENUM);
    b.data[8 + 9] = 2;
    b.data[8 + 8] = 16; /* slot 16 */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_VALUE);
    b.data[8 + 8] = 3;
    b.data[8 + 11] = 1; /* reserved */
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_RESERVED_NONZERO);
    b.data[8 + 11] = 0;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->auth_init.mode, 2);

    b_header(&b, V, 13);
    for (int i = 0; i < 32; i++) b_u8(&b, (uint32_t)i);
    b_u8(&b, 2); b_u8(&b, 0); b_u8(&b, 0); b_u8(&b, 0);
    b_finish(&b);
    assert_int_equal(b.len, 8 + 36);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->type, BSYNC_PROTO_AUTH_CHALLENGE);
    assert_int_equal(m->auth_challenge.mode, 2);
    assert_int_equal(m->auth_challenge.server_nonce[31], 31);
    assert_reencodes(m, b.data, b.len);
    b.data[8 + 32] = 0;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_ENUM);
    b.data[8 + 32] = 1;
    b.data[8 + 35] = 9;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_RESERVED_NONZERO);
    assert_string_equal(bsync_proto_type_string(BSYNC_PROTO_AUTH_CHALLENGE), "auth_challenge");
    free(m);
}

static void test_bye_bytes_and_versions(void** state) {
    (void)state;
    bytes_ b;
    b_header(&b, V, 9);
    b_u8(&b, 1); b_u8(&b, 1); b_u8(&b, 1); b_u8(&b, 0);
    b_finish(&b);
    bsync_proto_msg* m = new_msg();
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->bye.reason, BSYNC_PROTO_BYE_VERSION_MISMATCH);
    assert_int_equal(m->bye.version_min, 1);
    assert_int_equal(m->bye.version_max, 1);
    assert_string_equal(bsync_proto_bye_reason_string(m->bye.reason), "protocol version mismatch");
    assert_reencodes(m, b.data, b.len);

    /* a newer peer (version 7) says bye: still readable (frozen layout) */
    b_header(&b, 7, 9);
    b_u8(&b, 1); b_u8(&b, 2); b_u8(&b, 3); b_u8(&b, 0);
    b_finish(&b);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->bye.version_min, 2);
    assert_int_equal(m->bye.version_max, 3);
    assert_int_equal(m->bye.header_version, 7);
    assert_reencodes(m, b.data, b.len); /* proto.h: encode(decode(bytes)) == bytes, a BYE of another version too */
    /* a BYE built by hand (header_version 0) goes out with this protocol's version */
    m->bye.header_version = 0;
    m->version = 0;
    static uint8_t own[64];
    size_t own_len = 0;
    assert_int_equal(bsync_proto_encode(m, own, sizeof own, &own_len), BSYNC_PROTO_OK);
    assert_int_equal(own[2], BSYNC_PROTO_VERSION_DEFAULT);
    /* ... but any other message of version 8 is refused, and peek still tells the version */
    b_header(&b, 8, 4);
    b_u32(&b, 1); b_u32(&b, 2);
    b_finish(&b);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_UNSUPPORTED_VERSION);
    bsync_proto_header h;
    assert_int_equal(bsync_proto_peek_header(b.data, b.len, &h), BSYNC_PROTO_OK);
    assert_int_equal(h.version, 8);
    assert_int_equal(h.type, 4);
    assert_int_equal(h.body_len, 8);
    /* version 0 does not exist, even for bye */
    b_header(&b, 0, 9);
    b_u8(&b, 0); b_u8(&b, 1); b_u8(&b, 1); b_u8(&b, 0);
    b_finish(&b);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_UNSUPPORTED_VERSION);
    /* min > max, reason out of range, reserved byte */
    b_header(&b, V, 9);
    b_u8(&b, 0); b_u8(&b, 2); b_u8(&b, 1); b_u8(&b, 0);
    b_finish(&b);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_VALUE);
    b.data[8] = BSYNC_PROTO_BYE_REASON_COUNT; b.data[9] = 1;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_ENUM);
    /* 14 OVERLOADED (version 5), 15 AUTH_REQUIRED and 16 AUTH_FAILED (version 6) are the last reasons
     * (docs/protocol.md "BYE"): 17 is not one */
    assert_int_equal(BSYNC_PROTO_BYE_REASON_COUNT, 17);
    b.data[8] = 16;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->bye.reason, BSYNC_PROTO_BYE_AUTH_FAILED);
    b.data[8] = 14;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->bye.reason, BSYNC_PROTO_BYE_OVERLOADED);
    assert_reencodes(m, b.data, b.len);
    b.data[8] = 0; b.data[11] = 1;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_RESERVED_NONZERO);
    free(m);
}

/* END and START (version 3, issue 14): 8-byte bodies, byte by byte as docs/protocol.md gives them. */
static void test_end_and_start_bytes(void** state) {
    (void)state;
    bytes_ b;
    bsync_proto_msg* m = new_msg();
    b_header(&b, V, 10);
    b_u32(&b, 600); b_u8(&b, 1); b_u8(&b, 0); b_u16(&b, 0);
    b_finish(&b);
    static const uint8_t end_doc[] = {0x42, 0x53, 0x06, 0x0A, 0x08, 0x00, 0x00, 0x00,
                                      0x58, 0x02, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00};
    assert_int_equal(b.len, sizeof end_doc);
    assert_memory_equal(b.data, end_doc, sizeof end_doc);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->type, BSYNC_PROTO_END);
    assert_int_equal(m->end.ticks, 600);
    assert_int_equal(m->end.reason, BSYNC_PROTO_END_SHUTDOWN);
    assert_reencodes(m, b.data, b.len);
    b.data[12] = BSYNC_PROTO_END_REASON_COUNT;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_ENUM);
    b.data[12] = 0; b.data[13] = 1;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_RESERVED_NONZERO);
    b.data[13] = 0; b.data[15] = 1;
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_RESERVED_NONZERO);
    assert_int_equal(bsync_proto_decode(b.data, b.len - 1, m), BSYNC_PROTO_TRUNCATED);

    b_header(&b, V, 11);
    b_u32(&b, 0); b_u32(&b, 100000);
    b_finish(&b);
    static const uint8_t start_doc[] = {0x42, 0x53, 0x06, 0x0B, 0x08, 0x00, 0x00, 0x00,
                                        0x00, 0x00, 0x00, 0x00, 0xA0, 0x86, 0x01, 0x00};
    assert_memory_equal(b.data, start_doc, sizeof start_doc);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);
    assert_int_equal(m->type, BSYNC_PROTO_START);
    assert_int_equal(m->start.tick, 0);
    assert_int_equal(m->start.deadline_in_us, 100000);
    assert_reencodes(m, b.data, b.len);
    /* more than 10 s ahead is refused */
    b_header(&b, V, 11);
    b_u32(&b, 7); b_u32(&b, BSYNC_PROTO_MAX_START_IN_US + 1u);
    b_finish(&b);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_BAD_VALUE);
    m->type = BSYNC_PROTO_START;
    m->start.tick = 7;
    m->start.deadline_in_us = BSYNC_PROTO_MAX_START_IN_US + 1u;
    size_t n = 0;
    assert_int_equal(bsync_proto_encode(m, NULL, 0, &n), BSYNC_PROTO_BAD_VALUE);
    free(m);
}

/* ---------------------------------------------------------------- header-level rejections */

static void test_header_rejections(void** state) {
    (void)state;
    bytes_ b;
    bsync_proto_msg* m = new_msg();
    build_input_example(&b);
    assert_int_equal(decode_b(&b, m), BSYNC_PROTO_OK);

    bytes_ x = b;
    x.data[0] = 'b';
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_MAGIC);
    x = b; x.data[1] = 0;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_MAGIC);
    x = b; x.data[2] = 1; /* version 1 (before SNAPSHOT kind TRAIL) is no longer decoded */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNSUPPORTED_VERSION);
    x = b; x.data[2] = 2; /* version 2 (before END and START) neither */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNSUPPORTED_VERSION);
    x = b; x.data[2] = 3; /* version 3 (before FRAME's CHANGES coding) neither */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNSUPPORTED_VERSION);
    x = b; x.data[2] = 4; /* version 4 (before BYE OVERLOADED) neither */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNSUPPORTED_VERSION);
    x = b; x.data[2] = 5; /* version 5 (before sessions) neither */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNSUPPORTED_VERSION);
    x = b; x.data[2] = 8;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNSUPPORTED_VERSION);
    x = b; x.data[3] = 0;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNKNOWN_TYPE);
    x = b; x.data[3] = 14; /* 10 END and 11 START exist since version 3, 12 and 13 since 6, 14 since 7 */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNKNOWN_TYPE);
    x = b; x.data[3] = 15;
    x.data[2] = 7;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_UNKNOWN_TYPE);
    x = b; x.data[7] = 0x80;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_RESERVED_NONZERO);
    /* one extra byte after the declared body */
    x = b; x.data[x.len++] = 0;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_TRAILING_BYTES);
    /* one extra byte inside the declared body */
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_TRAILING_BYTES);
    /* declared body longer than the type's maximum */
    x = b;
    x.data[4] = (uint8_t)((BSYNC_PROTO_MAX_BODY_INPUT + 1) & 0xFF);
    x.data[5] = (uint8_t)((BSYNC_PROTO_MAX_BODY_INPUT + 1) >> 8);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_TOO_LONG);
    /* an empty or tiny packet */
    assert_int_equal(bsync_proto_decode(b.data, 0, m), BSYNC_PROTO_TRUNCATED);
    assert_int_equal(bsync_proto_decode(b.data, 7, m), BSYNC_PROTO_TRUNCATED);
    assert_int_equal(bsync_proto_decode(NULL, 7, m), BSYNC_PROTO_INVALID_ARGUMENT);
    assert_int_equal(bsync_proto_decode(b.data, b.len, NULL), BSYNC_PROTO_INVALID_ARGUMENT);
    free(m);
}

/* ---------------------------------------------------------------- body-level rejections */

static void test_body_rejections(void** state) {
    (void)state;
    bytes_ b, x;
    bsync_proto_msg* m = new_msg();
    build_input_example(&b);
    /* counts over their maxima: params (65), triggers (17), records (5 and 0) */
    x = b; x.data[9] = 65;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x = b; x.data[10] = 17;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x = b; x.data[11] = 5;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x = b; x.data[11] = 0;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    /* slot 16 */
    x = b; x.data[8] = 16;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE);
    /* record 1 at tick 2^32: wraps */
    x = b; x.data[12] = 0xFF; x.data[13] = 0xFF; x.data[14] = 0xFF; x.data[15] = 0xFF;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE);
    /* a non-minimal varint: 0 written as 0x80 0x00 */
    x = b; x.len = 25; /* up to the last param of record 0 */
    b_u8(&x, 0x80); b_u8(&x, 0x00); b_u8(&x, 3);
    b_u8(&x, 0); b_u8(&x, 0); b_u8(&x, 0); b_u8(&x, 0); b_u8(&x, 0);
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VARINT);
    /* a varint of six bytes, and one of 2^34 */
    bytes_ y;
    b_header(&y, V, 3);
    b_u8(&y, 0); b_u8(&y, 1); b_u8(&y, 0); b_u8(&y, 1); b_u32(&y, 0);
    b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x01);
    b_finish(&y);
    assert_int_equal(decode_b(&y, m), BSYNC_PROTO_BAD_VARINT);
    y.len = 16;
    b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x40);
    b_finish(&y);
    assert_int_equal(decode_b(&y, m), BSYNC_PROTO_BAD_VARINT);
    y.data[y.len - 1] = 0x3F; /* 2^34 - 2^28: a valid varint, but as an absolute value out of range */
    assert_int_equal(decode_b(&y, m), BSYNC_PROTO_BAD_VALUE);
    /* zigzag 0xFFFFFFFF = INT32_MIN: refused; zigzag 2^32 = 2^31: out of range */
    y.len = 16;
    b_u8(&y, 0xFF); b_u8(&y, 0xFF); b_u8(&y, 0xFF); b_u8(&y, 0xFF); b_u8(&y, 0x0F);
    b_finish(&y);
    assert_int_equal(decode_b(&y, m), BSYNC_PROTO_BAD_VALUE);
    y.len = 16;
    b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x80); b_u8(&y, 0x10);
    b_finish(&y);
    assert_int_equal(decode_b(&y, m), BSYNC_PROTO_BAD_VALUE);
    y.data[y.len - 1] = 0x01; /* 2^28 -> 2^27: fine */
    assert_int_equal(decode_b(&y, m), BSYNC_PROTO_OK);
    assert_int_equal(m->input.records[0].params[0], 1 << 27);
    /* INT32_MAX then a delta of +1 leaves the range */
    b_header(&y, V, 3);
    b_u8(&y, 0); b_u8(&y, 1); b_u8(&y, 0); b_u8(&y, 2); b_u32(&y, 0);
    b_u8(&y, 0xFE); b_u8(&y, 0xFF); b_u8(&y, 0xFF); b_u8(&y, 0xFF); b_u8(&y, 0x0F);
    b_u8(&y, 0x02);
    b_finish(&y);
    assert_int_equal(decode_b(&y, m), BSYNC_PROTO_BAD_VALUE);
    y.data[y.len - 1] = 0x01; /* -1 instead: fine */
    assert_int_equal(decode_b(&y, m), BSYNC_PROTO_OK);
    assert_int_equal(m->input.records[1].params[0], INT32_MAX - 1);

    /* hello: token length 0 and 33 */
    b_header(&x, V, 1);
    b_u64(&x, 1); b_u64(&x, 2); b_u8(&x, 0); b_u32(&x, 0); b_u8(&x, 0);
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_LENGTH);
    x.data[8 + 21] = 33;
    for (int i = 0; i < 33; i++) b_u8(&x, 'a');
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_TOO_LONG); /* 55 > 54: caught by the header */
    x.len = 8 + 22 + 32;
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_LENGTH); /* says 33, 32 follow */

    /* frame: 17 players, 0 players, mask bits beyond the players, payload of 257 */
    b_header(&x, V, 5);
    b_u32(&x, 1); b_u8(&x, 17); b_u8(&x, 0); b_u8(&x, 0); b_u8(&x, 0); b_u16(&x, 0); b_u16(&x, 0); b_u8(&x, 0);
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x.data[12] = 0;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x.data[12] = 1;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_OK);
    x.data[16] = 2; /* defaulted bit 1 with one player */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_RESERVED_NONZERO);
    x.data[16] = 0; x.data[18] = 2; /* payload bit 1 */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_RESERVED_NONZERO);
    x.data[18] = 0; x.data[15] = 2; /* the coding byte (version 4): 0 FULL, 1 CHANGES, nothing else */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_ENUM);
    x.data[15] = 0; x.data[18] = 1;
    b_u16(&x, 257);
    for (int i = 0; i < 257; i++) b_u8(&x, 1);
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_LENGTH);
    x.data[21] = 0; x.data[22] = 0; /* payload length 0 with its bit set (after the input ack, byte 20) */
    x.len = 23;
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_LENGTH);

    /* checksum: 65 characters; joint detail with 0 or 1025 joints; joint character 64 */
    b_header(&x, V, 6);
    b_u32(&x, 1); b_u64(&x, 1); b_u64(&x, 1); b_u8(&x, 65); b_u8(&x, 0);
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x.data[8 + 20] = 0; x.data[8 + 21] = 1;
    b_u8(&x, 0); b_u16(&x, 0);
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x.data[8 + 23] = 0x01; x.data[8 + 24] = 0x04; /* 1025 */
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x.data[8 + 23] = 1; x.data[8 + 24] = 0; x.data[8 + 22] = 64;
    b_u64(&x, 5);
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE);
    x.data[8 + 22] = 63;
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_OK);

    /* welcome: tick rate 14 and 61, delay 31, interval 0, snapshot length disagreeing */
    b_header(&x, V, 2);
    b_u8(&x, 30); b_u8(&x, 2); b_u8(&x, 2); b_u8(&x, 0); b_u8(&x, 4); b_u8(&x, 1);
    b_u16(&x, 10); b_u16(&x, 1); b_u32(&x, 0); b_u32(&x, 3); b_u16(&x, 3);
    b_u8(&x, 1); b_u8(&x, 2); b_u8(&x, 3);
    b_finish(&x);
    assert_int_equal(decode_b(&x, m), BSYNC_PROTO_OK);
    x.data[8] = 14;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE);
    x.data[8] = 61;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE);
    x.data[8] = 15;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_OK);
    x.data[9] = 31;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE);
    x.data[9] = 30;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_OK);
    x.data[10] = 17; assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x.data[10] = 2;  x.data[12] = 65; assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_COUNT);
    x.data[12] = 4;  x.data[11] = 2;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE); /* slot >= players */
    x.data[11] = 0;  x.data[14] = 0;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_VALUE); /* interval 0 */
    x.data[14] = 10; x.data[16] = 5;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_RESERVED_NONZERO);
    x.data[16] = 1;  x.data[22] = 4;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_BAD_LENGTH); /* size 4, 3 inline */
    x.data[22] = 3;  assert_int_equal(decode_b(&x, m), BSYNC_PROTO_OK);
    free(m);
}

/* ---------------------------------------------------------------- random valid messages */

static uint32_t rnd(uint64_t* s, uint32_t n) { return (uint32_t)(bsync_test_rand(s) % n); }

static fix16_t rnd_fx(uint64_t* s) {
    switch (rnd(s, 4)) {
    case 0: return (fix16_t)rnd(s, 131073) - 65536;                  /* a stick in [-1, 1] */
    case 1: return (fix16_t)rnd(s, 5) - 2;                            /* near zero */
    case 2: return rnd(s, 2) ? INT32_MAX : -INT32_MAX;                /* extremes */
    default: {
        int64_t v = (int64_t)(bsync_test_rand(s) % 0xFFFFFFFFull) - 0x7FFFFFFF; /* any but INT32_MIN */
        return (fix16_t)v;
    }
    }
}

static void rnd_bytes(uint64_t* s, uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)bsync_test_rand(s);
}

static void random_msg(uint64_t* s, uint32_t type, bsync_proto_msg* m) {
    memset(m, 0, sizeof *m);
    m->type = (bsync_proto_type)type;
    m->version = BSYNC_PROTO_VERSION; /* the newest: every field on the wire (version 6 bytes: the fixed tests) */
    switch (type) {
    case BSYNC_PROTO_HELLO:
        m->hello.match_id = bsync_test_rand(s);
        m->hello.graph_hash = bsync_test_rand(s);
        m->hello.slot = (uint8_t)rnd(s, 16);
        m->hello.resume = (uint32_t)bsync_test_rand(s);
        m->hello.token_len = (uint8_t)(1 + rnd(s, 32));
        rnd_bytes(s, m->hello.token, m->hello.token_len);
        break;
    case BSYNC_PROTO_WELCOME: {
        bsync_proto_welcome* w = &m->welcome;
        w->tick_rate = (uint8_t)(15 + rnd(s, 46));
        w->input_delay = (uint8_t)rnd(s, 31);
        w->player_count = (uint8_t)(1 + rnd(s, 16));
        w->slot = (uint8_t)rnd(s, w->player_count);
        w->param_count = (uint8_t)rnd(s, 65);
        w->trigger_count = (uint8_t)rnd(s, 17);
        w->checksum_interval = (uint16_t)(1 + rnd(s, 3600));
        w->connected_mask = (uint16_t)((rnd(s, 65536) & ((1u << w->player_count) - 1u)) | (1u << w->slot));
        w->start_tick = (uint32_t)bsync_test_rand(s);
        w->snapshot_size = rnd(s, 3) == 0 ? 0 : 1 + rnd(s, rnd(s, 2) ? 2000 : BSYNC_PROTO_MAX_SNAPSHOT);
        w->snapshot_len = (uint16_t)(w->snapshot_size < 1024 ? w->snapshot_size : 1024);
        rnd_bytes(s, w->snapshot, w->snapshot_len);
        break;
    }
    case BSYNC_PROTO_INPUT: {
        bsync_proto_input* in = &m->input;
        in->slot = (uint8_t)rnd(s, 16);
        in->param_count = (uint8_t)(rnd(s, 2) ? 4 : rnd(s, 65));
        in->trigger_count = (uint8_t)(rnd(s, 2) ? 1 : rnd(s, 17));
        in->record_count = (uint8_t)(1 + rnd(s, 4));
        in->first_tick = rnd(s, 8) == 0 ? UINT32_MAX - (in->record_count - 1u) : (uint32_t)bsync_test_rand(s);
        in->frame_ack = rnd(s, 4) == 0 ? in->first_tick : in->first_tick - (uint32_t)rnd(s, in->first_tick < 300u ? in->first_tick + 1u : 300u);
        for (unsigned r = 0; r < in->record_count; r++) {
            for (unsigned p = 0; p < in->param_count; p++) {
                fix16_t v = rnd_fx(s);
                if (r > 0 && rnd(s, 2)) { /* a small step from the previous tick */
                    int64_t step = (int64_t)in->records[r - 1].params[p] + (int64_t)rnd(s, 129) - 64;
                    if (step > INT32_MIN && step <= INT32_MAX) v = (fix16_t)step;
                }
                in->records[r].params[p] = v;
            }
            rnd_bytes(s, in->records[r].triggers, in->trigger_count);
            if (rnd(s, 4) == 0) {
                in->records[r].payload_len = (uint16_t)(rnd(s, 2) ? 1 + rnd(s, 8) : 1 + rnd(s, 256));
                rnd_bytes(s, in->records[r].payload, in->records[r].payload_len);
            }
        }
        break;
    }
    case BSYNC_PROTO_INPUT_ACK:
        m->input_ack.next_tick = (uint32_t)bsync_test_rand(s);
        m->input_ack.server_tick = (uint32_t)bsync_test_rand(s);
        break;
    case BSYNC_PROTO_FRAME: {
        bsync_proto_frame* f = &m->frame;
        f->tick = (uint32_t)bsync_test_rand(s);
        f->player_count = (uint8_t)(1 + rnd(s, 16));
        f->param_count = (uint8_t)rnd(s, 65);
        f->trigger_count = (uint8_t)rnd(s, 17);
        f->defaulted_mask = (uint16_t)(rnd(s, 65536) & ((1u << f->player_count) - 1u));
        f->input_ack = (uint8_t)rnd(s, 256);
        for (unsigned i = 0; i < f->player_count; i++) {
            for (unsigned p = 0; p < f->param_count; p++) f->players[i].params[p] = rnd_fx(s);
            rnd_bytes(s, f->players[i].triggers, f->trigger_count);
            f->players[i].payload_len = (uint16_t)(rnd(s, 2) ? 0 : 1 + rnd(s, 256));
            rnd_bytes(s, f->players[i].payload, f->players[i].payload_len);
        }
        break;
    }
    case BSYNC_PROTO_FRAMES: { /* version 7: a run of frames of one layout, small enough to fit */
        bsync_proto_frames* fs = &m->frames;
        fs->count = (uint8_t)(1 + rnd(s, BSYNC_PROTO_MAX_FRAMES));
        fs->first_tick = (uint32_t)rnd(s, 1u << 30);
        fs->input_ack = (uint8_t)rnd(s, 256);
        const uint8_t n = (uint8_t)(1 + rnd(s, 4)), p = (uint8_t)rnd(s, 9), g = (uint8_t)rnd(s, 3);
        for (unsigned k = 0; k < fs->count; k++) {
            bsync_proto_frame* f = &fs->frames[k];
            f->tick = fs->first_tick + k;
            f->player_count = n;
            f->param_count = p;
            f->trigger_count = g;
            f->defaulted_mask = (uint16_t)(rnd(s, 65536) & ((1u << n) - 1u));
            for (unsigned i = 0; i < n; i++) {
                const int same = k > 0 && rnd(s, 2); /* held inputs make CHANGES frames */
                for (unsigned q = 0; q < p; q++) f->players[i].params[q] = same ? fs->frames[k - 1].players[i].params[q] : rnd_fx(s);
                if (same) memcpy(f->players[i].triggers, fs->frames[k - 1].players[i].triggers, g);
                else rnd_bytes(s, f->players[i].triggers, g);
                f->players[i].payload_len = (uint16_t)(same || rnd(s, 4) ? 0 : 1 + rnd(s, 16));
                rnd_bytes(s, f->players[i].payload, f->players[i].payload_len);
            }
            if (k > 0) bsync_proto_frame_changes(f, &fs->frames[k - 1]);
        }
        break;
    }
    case BSYNC_PROTO_CHECKSUM: {
        bsync_proto_checksum* c = &m->checksum;
        c->tick = (uint32_t)bsync_test_rand(s);
        c->blend = bsync_test_rand(s);
        c->pose = bsync_test_rand(s);
        c->character_count = (uint8_t)rnd(s, 65);
        for (unsigned i = 0; i < c->character_count; i++) {
            c->characters[i].blend = bsync_test_rand(s);
            c->characters[i].pose = bsync_test_rand(s);
        }
        if (rnd(s, 2)) {
            c->joint_character = (uint8_t)rnd(s, 64);
            c->joint_count = (uint16_t)(1 + rnd(s, rnd(s, 4) ? 80 : 1024));
            for (unsigned j = 0; j < c->joint_count; j++) c->joints[j] = bsync_test_rand(s);
        }
        break;
    }
    case BSYNC_PROTO_DESYNC: {
        bsync_proto_desync* d = &m->desync;
        d->tick = (uint32_t)bsync_test_rand(s);
        d->kind = (uint8_t)rnd(s, 5);
        int root = d->kind <= 1;
        d->character = root ? 0xFF : (uint8_t)rnd(s, 64);
        d->part = d->kind == 4 ? (uint16_t)rnd(s, 1024) : 0xFFFF;
        d->action = (uint8_t)(root ? rnd(s, 3) : rnd(s, 4));
        d->expected = bsync_test_rand(s);
        d->got = bsync_test_rand(s);
        break;
    }
    case BSYNC_PROTO_SNAPSHOT: {
        bsync_proto_snapshot* sn = &m->snapshot;
        sn->tick = (uint32_t)bsync_test_rand(s);
        sn->kind = (uint8_t)rnd(s, 3);
        sn->total_size = 1 + rnd(s, rnd(s, 2) ? 3000 : BSYNC_PROTO_MAX_SNAPSHOT);
        sn->chunk_count = (uint16_t)((sn->total_size + 1023) / 1024);
        sn->chunk_index = (uint16_t)(rnd(s, 2) ? (uint32_t)sn->chunk_count - 1u : rnd(s, sn->chunk_count));
        sn->len = (uint16_t)(sn->chunk_index + 1 < sn->chunk_count ? 1024 : sn->total_size - 1024u * (sn->chunk_count - 1u));
        rnd_bytes(s, sn->data, sn->len);
        break;
    }
    case BSYNC_PROTO_BYE:
        m->bye.reason = (uint8_t)rnd(s, BSYNC_PROTO_BYE_REASON_COUNT);
        m->bye.version_min = (uint8_t)(1 + rnd(s, 5));
        m->bye.version_max = (uint8_t)(m->bye.version_min + rnd(s, 5));
        break;
    case BSYNC_PROTO_END:
        m->end.ticks = (uint32_t)rnd(s, 100000);
        m->end.reason = (uint8_t)rnd(s, BSYNC_PROTO_END_REASON_COUNT);
        break;
    case BSYNC_PROTO_START:
        m->start.tick = (uint32_t)rnd(s, 100000);
        m->start.deadline_in_us = (uint32_t)rnd(s, BSYNC_PROTO_MAX_START_IN_US + 1u);
        break;
    case BSYNC_PROTO_AUTH_INIT:
        m->auth_init.match_id = (uint64_t)rnd(s, UINT32_MAX) << 20 | rnd(s, 1u << 20);
        m->auth_init.slot = (uint8_t)rnd(s, BSYNC_PROTO_MAX_PLAYERS);
        m->auth_init.mode = (uint8_t)(1 + rnd(s, 2));
        for (unsigned i = 0; i < BSYNC_PROTO_AUTH_NONCE; i++) m->auth_init.client_nonce[i] = (uint8_t)rnd(s, 256);
        break;
    case BSYNC_PROTO_AUTH_CHALLENGE:
        m->auth_challenge.mode = (uint8_t)(1 + rnd(s, 2));
        for (unsigned i = 0; i < BSYNC_PROTO_AUTH_NONCE; i++) m->auth_challenge.server_nonce[i] = (uint8_t)rnd(s, 256);
        break;
    }
}

/* Field-by-field equality of the meaningful parts. */
static void assert_msg_equal(const bsync_proto_msg* a, const bsync_proto_msg* b) {
    assert_int_equal(a->type, b->type);
    switch (a->type) {
    case BSYNC_PROTO_HELLO:
        assert_true(a->hello.match_id == b->hello.match_id && a->hello.graph_hash == b->hello.graph_hash);
        assert_int_equal(a->hello.slot, b->hello.slot);
        assert_int_equal(a->hello.resume, b->hello.resume);
        assert_int_equal(a->hello.token_len, b->hello.token_len);
        assert_memory_equal(a->hello.token, b->hello.token, a->hello.token_len);
        break;
    case BSYNC_PROTO_WELCOME: {
        const bsync_proto_welcome *x = &a->welcome, *y = &b->welcome;
        assert_int_equal(x->tick_rate, y->tick_rate);
        assert_int_equal(x->input_delay, y->input_delay);
        assert_int_equal(x->player_count, y->player_count);
        assert_int_equal(x->slot, y->slot);
        assert_int_equal(x->param_count, y->param_count);
        assert_int_equal(x->trigger_count, y->trigger_count);
        assert_int_equal(x->checksum_interval, y->checksum_interval);
        assert_int_equal(x->connected_mask, y->connected_mask);
        assert_int_equal(x->start_tick, y->start_tick);
        assert_int_equal(x->snapshot_size, y->snapshot_size);
        assert_int_equal(x->snapshot_len, y->snapshot_len);
        if (x->snapshot_len) assert_memory_equal(x->snapshot, y->snapshot, x->snapshot_len);
        break;
    }
    case BSYNC_PROTO_INPUT: {
        const bsync_proto_input *x = &a->input, *y = &b->input;
        assert_int_equal(x->slot, y->slot);
        assert_int_equal(x->param_count, y->param_count);
        assert_int_equal(x->trigger_count, y->trigger_count);
        assert_int_equal(x->record_count, y->record_count);
        assert_int_equal(x->first_tick, y->first_tick);
        assert_int_equal(x->frame_ack, y->frame_ack);
        for (unsigned r = 0; r < x->record_count; r++) {
            for (unsigned p = 0; p < x->param_count; p++)
                assert_int_equal(x->records[r].params[p], y->records[r].params[p]);
            if (x->trigger_count) assert_memory_equal(x->records[r].triggers, y->records[r].triggers, x->trigger_count);
            assert_int_equal(x->records[r].payload_len, y->records[r].payload_len);
            if (x->records[r].payload_len)
                assert_memory_equal(x->records[r].payload, y->records[r].payload, x->records[r].payload_len);
        }
        break;
    }
    case BSYNC_PROTO_INPUT_ACK:
        assert_int_equal(a->input_ack.next_tick, b->input_ack.next_tick);
        assert_int_equal(a->input_ack.server_tick, b->input_ack.server_tick);
        break;
    case BSYNC_PROTO_FRAME: {
        const bsync_proto_frame *x = &a->frame, *y = &b->frame;
        assert_int_equal(x->tick, y->tick);
        assert_int_equal(x->player_count, y->player_count);
        assert_int_equal(x->param_count, y->param_count);
        assert_int_equal(x->trigger_count, y->trigger_count);
        assert_int_equal(x->defaulted_mask, y->defaulted_mask);
        assert_int_equal(x->input_ack, y->input_ack);
        for (unsigned i = 0; i < x->player_count; i++) {
            for (unsigned p = 0; p < x->param_count; p++)
                assert_int_equal(x->players[i].params[p], y->players[i].params[p]);
            if (x->trigger_count) assert_memory_equal(x->players[i].triggers, y->players[i].triggers, x->trigger_count);
            assert_int_equal(x->players[i].payload_len, y->players[i].payload_len);
            if (x->players[i].payload_len)
                assert_memory_equal(x->players[i].payload, y->players[i].payload, x->players[i].payload_len);
        }
        break;
    }
    case BSYNC_PROTO_FRAMES: {
        assert_int_equal(a->frames.first_tick, b->frames.first_tick);
        assert_int_equal(a->frames.count, b->frames.count);
        assert_int_equal(a->frames.input_ack, b->frames.input_ack);
        for (unsigned k = 0; k < a->frames.count; k++) {
            const bsync_proto_frame *x = &a->frames.frames[k], *y = &b->frames.frames[k];
            assert_int_equal(x->tick, y->tick);
            assert_int_equal(x->coding, y->coding);
            assert_int_equal(x->changed_mask, y->changed_mask);
            assert_int_equal(x->defaulted_mask, y->defaulted_mask);
            for (unsigned i = 0; i < x->player_count; i++) {
                if (x->coding == BSYNC_PROTO_FRAME_CHANGES && !((x->changed_mask >> i) & 1u)) continue;
                for (unsigned p = 0; p < x->param_count; p++) assert_int_equal(x->players[i].params[p], y->players[i].params[p]);
                assert_int_equal(x->players[i].payload_len, y->players[i].payload_len);
            }
        }
        break;
    }
    case BSYNC_PROTO_CHECKSUM: {
        const bsync_proto_checksum *x = &a->checksum, *y = &b->checksum;
        assert_int_equal(x->tick, y->tick);
        assert_true(x->blend == y->blend && x->pose == y->pose);
        assert_int_equal(x->character_count, y->character_count);
        for (unsigned i = 0; i < x->character_count; i++)
            assert_true(x->characters[i].blend == y->characters[i].blend && x->characters[i].pose == y->characters[i].pose);
        assert_int_equal(x->joint_character, y->joint_character);
        assert_int_equal(x->joint_count, y->joint_count);
        for (unsigned j = 0; j < x->joint_count; j++) assert_true(x->joints[j] == y->joints[j]);
        break;
    }
    case BSYNC_PROTO_DESYNC: {
        const bsync_proto_desync *x = &a->desync, *y = &b->desync;
        assert_int_equal(x->tick, y->tick);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->character, y->character);
        assert_int_equal(x->part, y->part);
        assert_int_equal(x->action, y->action);
        assert_true(x->expected == y->expected && x->got == y->got);
        break;
    }
    case BSYNC_PROTO_SNAPSHOT: {
        const bsync_proto_snapshot *x = &a->snapshot, *y = &b->snapshot;
        assert_int_equal(x->tick, y->tick);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->chunk_index, y->chunk_index);
        assert_int_equal(x->chunk_count, y->chunk_count);
        assert_int_equal(x->total_size, y->total_size);
        assert_int_equal(x->len, y->len);
        assert_memory_equal(x->data, y->data, x->len);
        break;
    }
    case BSYNC_PROTO_BYE:
        assert_int_equal(a->bye.reason, b->bye.reason);
        assert_int_equal(a->bye.version_min, b->bye.version_min);
        assert_int_equal(a->bye.version_max, b->bye.version_max);
        break;
    case BSYNC_PROTO_END:
        assert_int_equal(a->end.ticks, b->end.ticks);
        assert_int_equal(a->end.reason, b->end.reason);
        break;
    case BSYNC_PROTO_START:
        assert_int_equal(a->start.tick, b->start.tick);
        assert_int_equal(a->start.deadline_in_us, b->start.deadline_in_us);
        break;
    case BSYNC_PROTO_AUTH_INIT:
        assert_true(a->auth_init.match_id == b->auth_init.match_id);
        assert_int_equal(a->auth_init.slot, b->auth_init.slot);
        assert_int_equal(a->auth_init.mode, b->auth_init.mode);
        assert_memory_equal(a->auth_init.client_nonce, b->auth_init.client_nonce, BSYNC_PROTO_AUTH_NONCE);
        break;
    case BSYNC_PROTO_AUTH_CHALLENGE:
        assert_int_equal(a->auth_challenge.mode, b->auth_challenge.mode);
        assert_memory_equal(a->auth_challenge.server_nonce, b->auth_challenge.server_nonce, BSYNC_PROTO_AUTH_NONCE);
        break;
    }
}

static uint8_t g_buf[BSYNC_PROTO_MAX_PACKET + 64];
static uint8_t g_cut[BSYNC_PROTO_MAX_PACKET + 64];

static size_t encode_ok(const bsync_proto_msg* m) {
    size_t query = 0, n = 0;
    assert_int_equal(bsync_proto_encode(m, NULL, 0, &query), BSYNC_PROTO_OK);
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_OK);
    assert_int_equal(n, query);
    assert_true(n <= BSYNC_PROTO_HEADER_SIZE + bsync_proto_max_body(m->type));
    /* the header as documented */
    assert_int_equal(g_buf[0], 0x42);
    assert_int_equal(g_buf[1], 0x53);
    assert_int_equal(g_buf[2], m->version ? m->version : BSYNC_PROTO_VERSION_DEFAULT);
    assert_int_equal(g_buf[3], m->type);
    assert_int_equal((size_t)g_buf[4] | ((size_t)g_buf[5] << 8), n - 8);
    assert_int_equal(g_buf[6] | g_buf[7], 0);
    return n;
}

static void test_round_trips(void** state) {
    (void)state;
    uint64_t s = 0x70726f746f01ull;
    bsync_proto_msg* m = new_msg();
    bsync_proto_msg* d = new_msg();
    for (int i = 0; i < 9 * 600; i++) {
        uint32_t type = 1 + (uint32_t)(i % 9);
        random_msg(&s, type, m);
        size_t n = encode_ok(m);
        assert_int_equal(bsync_proto_decode(g_buf, n, d), BSYNC_PROTO_OK);
        assert_msg_equal(m, d);
        assert_reencodes(d, g_buf, n);
    }
    free(m);
    free(d);
}

/* Every prefix of every message is TRUNCATED; so is every shortened body whose header is made to
 * agree (the body then ends inside a field). */
static void test_truncations(void** state) {
    (void)state;
    uint64_t s = 0x74727563ull;
    bsync_proto_msg* m = new_msg();
    bsync_proto_msg* d = new_msg();
    for (int i = 0; i < 9 * 12; i++) {
        uint32_t type = 1 + (uint32_t)(i % 9);
        random_msg(&s, type, m);
        size_t n = encode_ok(m);
        for (size_t k = 0; k < n; k++) {
            memcpy(g_cut, g_buf, k);
            assert_int_equal(bsync_proto_decode(g_cut, k, d), BSYNC_PROTO_TRUNCATED);
            if (k >= 8) {
                size_t body = k - 8;
                g_cut[4] = (uint8_t)(body & 0xFF);
                g_cut[5] = (uint8_t)(body >> 8);
                assert_int_equal(bsync_proto_decode(g_cut, k, d), BSYNC_PROTO_TRUNCATED);
            }
        }
        assert_int_equal(bsync_proto_decode(g_buf, n, d), BSYNC_PROTO_OK);
    }
    free(m);
    free(d);
}

/* Random corruption never reads out of bounds (ASan/UBSan), and whatever is accepted is a valid,
 * canonical message: it re-encodes to exactly the corrupted bytes. */
static void test_byte_flips(void** state) {
    (void)state;
    uint64_t s = 0x666c6970ull;
    bsync_proto_msg* m = new_msg();
    bsync_proto_msg* d = new_msg();
    unsigned accepted = 0, rejected = 0, counts[BSYNC_PROTO_RESULT_COUNT] = {0};
    for (int i = 0; i < 9 * 1500; i++) {
        uint32_t type = 1 + (uint32_t)(i % 9);
        random_msg(&s, type, m);
        size_t n = encode_ok(m);
        for (int t = 0; t < 6; t++) {
            memcpy(g_cut, g_buf, n);
            unsigned flips = 1 + rnd(&s, 3);
            for (unsigned f = 0; f < flips; f++) {
                /* favour the header and the counts at the front */
                size_t at = rnd(&s, 2) ? rnd(&s, (uint32_t)(n < 32 ? n : 32)) : rnd(&s, (uint32_t)n);
                g_cut[at] ^= (uint8_t)(1u << rnd(&s, 8));
            }
            bsync_proto_result r = bsync_proto_decode(g_cut, n, d);
            assert_true((unsigned)r < BSYNC_PROTO_RESULT_COUNT);
            assert_true(r != BSYNC_PROTO_INVALID_ARGUMENT && r != BSYNC_PROTO_BUFFER_TOO_SMALL);
            counts[r]++;
            if (r == BSYNC_PROTO_OK) {
                accepted++;
                assert_int_equal(bsync_proto_validate(d), BSYNC_PROTO_OK);
                /* a BYE decodes under any version >= 1 and re-encodes with the version it came with */
                if (d->type == BSYNC_PROTO_BYE) assert_int_equal(d->bye.header_version, g_cut[2]);
                assert_reencodes(d, g_cut, n);
            } else {
                rejected++;
            }
        }
        /* fully random garbage of random length, sometimes with a valid header in front */
        size_t len = rnd(&s, 64);
        rnd_bytes(&s, g_cut, len);
        if (len >= 4 && rnd(&s, 2)) { g_cut[0] = 'B'; g_cut[1] = 'S'; g_cut[2] = V; g_cut[3] = (uint8_t)(1 + rnd(&s, 9)); }
        bsync_proto_result r = bsync_proto_decode(g_cut, len, d);
        if (r == BSYNC_PROTO_OK) {
            if (d->type == BSYNC_PROTO_BYE) g_cut[2] = BSYNC_PROTO_VERSION;
            assert_reencodes(d, g_cut, len);
        }
    }
    assert_true(accepted > 0 && rejected > 0);
    /* the corruption reached the body checks, not only the header */
    static const bsync_proto_result seen[] = {BSYNC_PROTO_TRUNCATED, BSYNC_PROTO_BAD_MAGIC, BSYNC_PROTO_UNSUPPORTED_VERSION,
        BSYNC_PROTO_UNKNOWN_TYPE, BSYNC_PROTO_TOO_LONG, BSYNC_PROTO_TRAILING_BYTES, BSYNC_PROTO_RESERVED_NONZERO,
        BSYNC_PROTO_BAD_COUNT, BSYNC_PROTO_BAD_LENGTH, BSYNC_PROTO_BAD_ENUM, BSYNC_PROTO_BAD_VARINT, BSYNC_PROTO_BAD_VALUE};
    for (size_t k = 0; k < sizeof seen / sizeof seen[0]; k++) assert_true(counts[seen[k]] > 0);
    printf("[ proto    ] %u corrupted packets: %u accepted (all canonical), %u rejected:", accepted + rejected, accepted, rejected);
    for (int k = 1; k < BSYNC_PROTO_RESULT_COUNT; k++)
        if (counts[k]) printf(" %s %u;", bsync_proto_result_string((bsync_proto_result)k), counts[k]);
    printf("\n");
    free(m);
    free(d);
}

/* ---------------------------------------------------------------- encoder side */

static void test_encoder_rules(void** state) {
    (void)state;
    bsync_proto_msg* m = new_msg();
    size_t n = 0;
    uint64_t s = 0x656e63ull;
    /* the encoder refuses what the decoder would refuse, with the same code */
    random_msg(&s, BSYNC_PROTO_INPUT, m);
    m->input.param_count = 4;
    m->input.records[0].params[2] = INT32_MIN;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_BAD_VALUE);
    m->input.record_count = 5;
    assert_int_equal(bsync_proto_encode(m, NULL, 0, &n), BSYNC_PROTO_BAD_COUNT);
    random_msg(&s, BSYNC_PROTO_FRAME, m);
    m->frame.players[0].payload_len = 257;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_BAD_LENGTH);
    random_msg(&s, BSYNC_PROTO_DESYNC, m);
    m->desync.kind = 9;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_BAD_ENUM);
    m->type = (bsync_proto_type)42;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_UNKNOWN_TYPE);
    assert_int_equal(bsync_proto_encode(NULL, g_buf, sizeof g_buf, &n), BSYNC_PROTO_INVALID_ARGUMENT);
    assert_int_equal(bsync_proto_encode(m, NULL, 0, NULL), BSYNC_PROTO_INVALID_ARGUMENT);

    /* a buffer one byte short: refused, the size reported, nothing written past the end */
    random_msg(&s, BSYNC_PROTO_HELLO, m);
    size_t need = 0;
    assert_int_equal(bsync_proto_encode(m, NULL, 0, &need), BSYNC_PROTO_OK);
    assert_int_equal(need, 8 + 22 + m->hello.token_len);
    memset(g_buf, 0xEE, sizeof g_buf);
    assert_int_equal(bsync_proto_encode(m, g_buf, need - 1, &n), BSYNC_PROTO_BUFFER_TOO_SMALL);
    assert_int_equal(n, need);
    for (size_t i = need - 1; i < need + 8; i++) assert_int_equal(g_buf[i], 0xEE);
    assert_int_equal(bsync_proto_encode(m, g_buf, need, NULL), BSYNC_PROTO_OK);
    free(m);
}

/* INPUT payloads: bytes as documented (bit 7 of the record-count byte, then per record u16 length and
 * the bytes), canonical (the bit only with a payload), length bounds. */
static void test_input_payload(void** state) {
    (void)state;
    bsync_proto_msg* m = new_msg();
    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_INPUT;
    m->version = V;
    m->input.slot = 1;
    m->input.param_count = 1;
    m->input.record_count = 2;
    m->input.first_tick = 7;
    m->input.records[0].params[0] = 0x10000; /* 1.0 -> zigzag 0x20000 -> 80 80 08 */
    m->input.records[1].params[0] = 0x10000; /* delta 0 -> 00 */
    m->input.records[1].payload_len = 3;
    memcpy(m->input.records[1].payload, "abc", 3);
    uint8_t buf[64];
    size_t n = 0;
    assert_int_equal(bsync_proto_encode(m, buf, sizeof buf, &n), BSYNC_PROTO_OK);
    static const uint8_t want[] = {0x42, 0x53, V, 0x03, 19, 0, 0, 0,       /* header, body 19 */
                                   1, 1, 0, 0x82, 7, 0, 0, 0,                 /* slot, p, g, 2 | 0x80, tick */
                                   0x80, 0x80, 0x08, 0x00, 0x00,              /* record 0: 1.0, no payload */
                                   0x00, 0x03, 0x00, 'a', 'b', 'c'};          /* record 1: delta 0, "abc" */
    assert_int_equal(n, sizeof want);
    assert_memory_equal(buf, want, sizeof want);
    bsync_proto_msg* d = new_msg();
    assert_int_equal(bsync_proto_decode(buf, n, d), BSYNC_PROTO_OK);
    assert_int_equal(d->input.record_count, 2);
    assert_int_equal(d->input.records[0].payload_len, 0);
    assert_int_equal(d->input.records[1].payload_len, 3);
    assert_memory_equal(d->input.records[1].payload, "abc", 3);
    /* the flag without any payload is not canonical */
    uint8_t flagged[] = {0x42, 0x53, V, 0x03, 14, 0, 0, 0, 1, 1, 0, 0x81, 7, 0, 0, 0, 0x80, 0x80, 0x08, 0x00, 0x00};
    flagged[4] = (uint8_t)(sizeof flagged - 8);
    assert_int_equal(bsync_proto_decode(flagged, sizeof flagged, d), BSYNC_PROTO_RESERVED_NONZERO);
    /* a payload length over 256 */
    m->input.records[1].payload_len = 257;
    assert_int_equal(bsync_proto_encode(m, buf, sizeof buf, &n), BSYNC_PROTO_BAD_LENGTH);
    uint8_t longer[] = {0x42, 0x53, V, 0x03, 10, 0, 0, 0, 1, 0, 0, 0x81, 7, 0, 0, 0, 0x01, 0x01};
    assert_int_equal(bsync_proto_decode(longer, sizeof longer, d), BSYNC_PROTO_BAD_LENGTH);
    /* a payload cut short */
    assert_int_equal(bsync_proto_decode(want, sizeof want - 1, d), BSYNC_PROTO_TRUNCATED);
    free(m);
    free(d);
}

/* The largest message of each variable type reaches exactly its documented maximum. */
static void test_maximum_sizes(void** state) {
    (void)state;
    bsync_proto_msg* m = new_msg();
    size_t n;
    /* the documented sums, written out */
    assert_int_equal(BSYNC_PROTO_MAX_BODY_HELLO, 54);
    assert_int_equal(BSYNC_PROTO_MAX_BODY_WELCOME, 1044);
    assert_int_equal(BSYNC_PROTO_MAX_BODY_INPUT, 8 + 5 + 4 * (64 * 5 + 16 + 2 + 256)); /* version 7: + the frame ack */
    assert_int_equal(BSYNC_PROTO_MAX_BODY_FRAME, 13 + 16 * (64 * 5 + 16 + 2 + 256));
    assert_int_equal(BSYNC_PROTO_MAX_BODY_CHECKSUM, 22 + 64 * 16 + 3 + 1024 * 8);
    assert_int_equal(BSYNC_PROTO_MAX_PACKET, 9525);
    assert_true(BSYNC_PROTO_MAX_PACKET <= BSYNC_PROTO_ENET_MAX_PACKET);

    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_INPUT;
    m->input.param_count = 64; m->input.trigger_count = 16; m->input.record_count = 4;
    m->version = BSYNC_PROTO_VERSION;
    m->input.first_tick = UINT32_MAX - 3u; /* frames held below 0: the frame ack's varint at its longest, 5 bytes */
    for (unsigned r = 0; r < 4; r++) {
        for (unsigned p = 0; p < 64; p++) m->input.records[r].params[p] = (r + p) % 2 ? INT32_MAX : -INT32_MAX;
        m->input.records[r].payload_len = 256;
    }
    n = encode_ok(m);
    assert_int_equal(n, 8 + BSYNC_PROTO_MAX_BODY_INPUT);

    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_FRAME;
    m->frame.player_count = 16; m->frame.param_count = 64; m->frame.trigger_count = 16;
    for (unsigned i = 0; i < 16; i++) {
        for (unsigned p = 0; p < 64; p++) m->frame.players[i].params[p] = -INT32_MAX;
        m->frame.players[i].payload_len = 256;
    }
    n = encode_ok(m);
    assert_int_equal(n, BSYNC_PROTO_MAX_PACKET);
    assert_int_equal(bsync_proto_decode(g_buf, n, m), BSYNC_PROTO_OK);

    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_CHECKSUM;
    m->checksum.character_count = 64; m->checksum.joint_count = 1024; m->checksum.joint_character = 63;
    n = encode_ok(m);
    assert_int_equal(n, 8 + BSYNC_PROTO_MAX_BODY_CHECKSUM);

    memset(m, 0, sizeof *m);
    m->type = BSYNC_PROTO_SNAPSHOT;
    m->snapshot.total_size = BSYNC_PROTO_MAX_SNAPSHOT;
    m->snapshot.chunk_count = 1024; m->snapshot.chunk_index = 1023; m->snapshot.len = 1024;
    n = encode_ok(m);
    assert_int_equal(n, 8 + BSYNC_PROTO_MAX_BODY_SNAPSHOT);
    m->snapshot.total_size = BSYNC_PROTO_MAX_SNAPSHOT + 1;
    assert_int_equal(bsync_proto_encode(m, g_buf, sizeof g_buf, &n), BSYNC_PROTO_BAD_LENGTH);
    free(m);
}

/* Bytes per player per tick of the input message: 4 parameters, 1 trigger. */
static void test_input_size(void** state) {
    (void)state;
    bsync_proto_msg* m = new_msg();
    m->type = BSYNC_PROTO_INPUT;
    m->version = V; /* version 7 adds the frame ack: test_proto_v7.c */
    bsync_proto_input* in = &m->input;
    in->param_count = 4; in->trigger_count = 1; in->record_count = 1; in->first_tick = 1000;
    /* a stick (0.5, -0.25), speed 1.0, a flag 0: zigzag 65536, 32767, 131072, 0 -> 3+3+3+1, + 1 trigger */
    fix16_t base[4] = {32768, -16384, 65536, 0};
    for (unsigned p = 0; p < 4; p++) in->records[0].params[p] = base[p];
    size_t one = encode_ok(m);
    size_t record0 = one - 16;
    assert_int_equal(record0, 11);
    assert_true(record0 <= 16);
    /* redundancy 3: the same packet carries 3 more ticks; the stick moving by small steps */
    in->record_count = 4;
    for (unsigned r = 1; r < 4; r++) {
        in->records[r] = in->records[r - 1];
        in->records[r].params[0] += 40;   /* zigzag 80 -> 1 byte */
        in->records[r].params[1] -= 100;  /* zigzag 199 -> 2 bytes */
    }
    size_t four = encode_ok(m);
    assert_int_equal(four, 16 + 11 + 3 * (1 + 2 + 1 + 1 + 1));
    /* the worst case: every value full range -> 4 x 5 + 1 per record */
    for (unsigned r = 0; r < 4; r++)
        for (unsigned p = 0; p < 4; p++) in->records[r].params[p] = (r + p) % 2 ? INT32_MAX : -INT32_MAX;
    size_t worst = encode_ok(m);
    assert_int_equal(worst, 16 + 4 * 21);
    printf("[ proto    ] input, 4 params + 1 trigger: one record %zu B (packet with 1 record %zu B); "
           "packet with 1 + 3 redundant records %zu B (%zu B per tick carried); worst case %zu B\n",
           record0, one, four, four / 4, worst);
    free(m);
}

static void test_tables(void** state) {
    (void)state;
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_INPUT), 1);
    assert_int_equal(bsync_proto_reliable(BSYNC_PROTO_INPUT), 0);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_INPUT_ACK), 1);
    assert_int_equal(bsync_proto_reliable(BSYNC_PROTO_INPUT_ACK), 0);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_HELLO), 0);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_WELCOME), 0);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_BYE), 0);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_FRAME), 2);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_CHECKSUM), 3);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_DESYNC), 3);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_SNAPSHOT), 4);
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_END), 2);   /* after the last FRAME */
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_START), 2); /* before the first */
    assert_int_equal(bsync_proto_channel(BSYNC_PROTO_FRAMES), 1); /* version 7: unreliable, beside the inputs */
    assert_int_equal(bsync_proto_reliable(BSYNC_PROTO_FRAMES), 0);
    for (uint32_t t = 1; t <= 14; t++) {
        assert_true(bsync_proto_channel(t) < BSYNC_PROTO_CHANNEL_COUNT);
        if (t != BSYNC_PROTO_INPUT && t != BSYNC_PROTO_INPUT_ACK && t != BSYNC_PROTO_FRAMES)
            assert_int_equal(bsync_proto_reliable(t), 1);
        assert_true(bsync_proto_max_body(t) > 0);
    }
    assert_int_equal(bsync_proto_max_body(0), 0);
    assert_int_equal(bsync_proto_max_body(15), 0);
    assert_string_equal(bsync_proto_type_string(BSYNC_PROTO_FRAME), "frame");
    assert_string_equal(bsync_proto_type_string(99), "unknown");
    assert_string_equal(bsync_proto_result_string(BSYNC_PROTO_TRUNCATED), "packet ends before the message does");
    assert_string_equal(bsync_proto_result_string(BSYNC_PROTO_RESULT_COUNT), "unknown proto result");
    assert_string_equal(bsync_proto_bye_reason_string(BSYNC_PROTO_BYE_REASON_COUNT), "unknown bye reason");
    assert_string_equal(bsync_proto_action_string(BSYNC_PROTO_ACTION_DETAIL), "detail");
    assert_string_equal(bsync_proto_desync_kind_string(BSYNC_PROTO_DESYNC_JOINT), "joint");
    /* every code has its own text */
    for (int i = 0; i < BSYNC_PROTO_RESULT_COUNT; i++)
        for (int j = i + 1; j < BSYNC_PROTO_RESULT_COUNT; j++)
            assert_string_not_equal(bsync_proto_result_string((bsync_proto_result)i),
                                    bsync_proto_result_string((bsync_proto_result)j));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hello_bytes),
        cmocka_unit_test(test_welcome_bytes),
        cmocka_unit_test(test_input_bytes),
        cmocka_unit_test(test_input_ack_bytes),
        cmocka_unit_test(test_frame_bytes),
        cmocka_unit_test(test_frame_changes),
        cmocka_unit_test(test_checksum_bytes),
        cmocka_unit_test(test_desync_bytes),
        cmocka_unit_test(test_snapshot_bytes),
        cmocka_unit_test(test_bye_bytes_and_versions), cmocka_unit_test(test_auth_bytes),
        cmocka_unit_test(test_end_and_start_bytes),
        cmocka_unit_test(test_header_rejections),
        cmocka_unit_test(test_body_rejections),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_byte_flips),
        cmocka_unit_test(test_encoder_rules),
        cmocka_unit_test(test_maximum_sizes),
        cmocka_unit_test(test_input_payload),
        cmocka_unit_test(test_input_size),
        cmocka_unit_test(test_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
