/* replay.c — the replay file: writer, record encoder and strict reader (blendsync/io/replay.h,
 * docs/replay.md). Edge code: stdio, malloc. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "blendsync/checksum.h"
#include "platform.h"
#include "blendsync/io/replay.h"
#include "file_internal.h"
#include "internal/alloc.h"
#include "internal/le.h"

static const uint8_t k_magic[BSYNC_REPLAY_MAGIC_SIZE] = {0x42, 0x53, 0x52, 0x50, 0x4C, 0x59, 0x0D, 0x0A};

#define DESYNC_KIND_COUNT 5u /* = BSYNC_PROTO_DESYNC_KIND_COUNT (proto.h; io does not link proto) */
#define END_REASON_COUNT 3u
#define FRAME_FIXED 10u      /* tick, 3 counts, reserved, mask */
#define FRAME_MAX_BODY (FRAME_FIXED + BSYNC_MATCH_MAX_PLAYERS * \
                        (BSYNC_MATCH_MAX_PARAMS * 5u + BSYNC_MATCH_MAX_TRIGGERS + 2u + BSYNC_REPLAY_MAX_PAYLOAD))
#define CHECKSUM_BODY 24u
#define DESYNC_BODY 28u
#define END_BODY 8u
#define SNAPSHOT_FIXED 8u

/* ------------------------------------------------------------------ small helpers */


/* zigzag of a fix16 that is not INT32_MIN: fits 32 bits (largest: 2^32 - 2). */
static uint32_t zigzag32(fix16_t v) {
    if (v >= 0) return (uint32_t)v * 2u;
    return (uint32_t)(-(int64_t)v) * 2u - 1u;
}
/* inverse; z != 0xFFFFFFFF (that is INT32_MIN) */
static fix16_t unzigzag32(uint32_t z) {
    if (z & 1u) return (fix16_t)(-(int64_t)(z >> 1) - 1);
    return (fix16_t)(z >> 1);
}

/* bytes of a C string in a fixed field, up to MAX_TEXT + 1 (= too long) */
static size_t text_len(const char* s) {
    size_t n = 0;
    while (n <= BSYNC_REPLAY_MAX_TEXT && s[n]) n++;
    return n;
}

static const char* type_name(uint32_t t) {
    switch (t) {
    case BSYNC_REPLAY_HEADER: return "HEADER";
    case BSYNC_REPLAY_FRAME: return "FRAME";
    case BSYNC_REPLAY_CHECKSUM: return "CHECKSUM";
    case BSYNC_REPLAY_SNAPSHOT: return "SNAPSHOT";
    case BSYNC_REPLAY_DESYNC: return "DESYNC";
    case BSYNC_REPLAY_END: return "END";
    default: return "unknown";
    }
}

const char* bsync_replay_status_string(bsync_replay_status s) {
    switch (s) {
    case BSYNC_REPLAY_OK: return "ok";
    case BSYNC_REPLAY_EOF: return "end of replay";
    case BSYNC_REPLAY_TRUNCATED: return "truncated (the data ends inside a record)";
    case BSYNC_REPLAY_CORRUPT: return "corrupt (bad magic, record header, checksum or body)";
    case BSYNC_REPLAY_BAD_ORDER: return "records out of order";
    case BSYNC_REPLAY_UNSUPPORTED: return "unsupported replay format version";
    default: return "unknown replay status";
    }
}

static bsync_result fail(bsync_error* err, bsync_result code, const char* fmt, ...) {
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
    }
    return code;
}

/* ------------------------------------------------------------------ encoding */

/* A byte sink: p NULL only counts. */
typedef struct sink {
    uint8_t* p;
    size_t len;
} sink;

static void s_u8(sink* s, uint32_t v) {
    if (s->p) s->p[s->len] = (uint8_t)v;
    s->len += 1;
}
static void s_u16(sink* s, uint32_t v) {
    if (s->p) bsync_le_put16(s->p + s->len, v);
    s->len += 2;
}
static void s_u32(sink* s, uint32_t v) {
    if (s->p) bsync_le_put32(s->p + s->len, v);
    s->len += 4;
}
static void s_u64(sink* s, uint64_t v) {
    if (s->p) bsync_le_put64(s->p + s->len, v);
    s->len += 8;
}
static void s_bytes(sink* s, const void* d, size_t n) {
    if (s->p && n) memcpy(s->p + s->len, d, n);
    s->len += n;
}
static void s_varint(sink* s, uint32_t v) {
    while (v >= 0x80u) {
        s_u8(s, (v & 0x7Fu) | 0x80u);
        v >>= 7;
    }
    s_u8(s, v);
}
static void s_text16(sink* s, const char* t) {
    size_t n = text_len(t);
    s_u16(s, (uint32_t)n);
    s_bytes(s, t, n);
}

static int header_ok(const bsync_replay_header* h) {
    if (h->player_count < 1 || h->player_count > BSYNC_MATCH_MAX_PLAYERS) return 0;
    if (h->param_count > BSYNC_MATCH_MAX_PARAMS || h->trigger_count > BSYNC_MATCH_MAX_TRIGGERS) return 0;
    if (h->character_count < 1 || h->character_count > BSYNC_MATCH_MAX_CHARACTERS) return 0;
    if (h->asset_count > BSYNC_REPLAY_MAX_ASSETS) return 0;
    if (text_len(h->build_version) > BSYNC_REPLAY_MAX_TEXT) return 0;
    if (text_len(h->config_path) > BSYNC_REPLAY_MAX_TEXT) return 0;
    for (uint32_t i = 0; i < h->asset_count; i++)
        if (text_len(h->assets[i].name) > BSYNC_REPLAY_MAX_TEXT) return 0;
    if (h->config_len > BSYNC_REPLAY_MAX_CONFIG) return 0;
    if (h->config_len > 0 && !h->config_text) return 0;
    return 1;
}

/* The rules of a record (not HEADER's: header_ok). */
static int record_ok(const bsync_replay_record* rec, const bsync_replay_header* h) {
    switch (rec->type) {
    case BSYNC_REPLAY_HEADER: return header_ok(&rec->header);
    case BSYNC_REPLAY_FRAME: {
        const bsync_replay_frame* f = &rec->frame;
        if (!h || h->player_count < 1 || h->player_count > BSYNC_MATCH_MAX_PLAYERS) return 0;
        if (h->param_count > BSYNC_MATCH_MAX_PARAMS || h->trigger_count > BSYNC_MATCH_MAX_TRIGGERS) return 0;
        if (f->inputs.player_count != h->player_count) return 0;
        if ((uint32_t)f->defaulted_mask >> h->player_count) return 0;
        for (uint32_t p = 0; p < h->player_count; p++) {
            if (f->payload_len[p] > BSYNC_REPLAY_MAX_PAYLOAD) return 0;
            for (uint32_t i = 0; i < h->param_count; i++)
                if (f->inputs.players[p].params[i] == INT32_MIN) return 0;
        }
        return 1;
    }
    case BSYNC_REPLAY_CHECKSUM:
        if (rec->checksum.has_pose > 1) return 0;
        if (!rec->checksum.has_pose && rec->checksum.pose != 0) return 0;
        return 1;
    case BSYNC_REPLAY_SNAPSHOT:
        if (rec->snapshot.len > BSYNC_REPLAY_MAX_BODY - SNAPSHOT_FIXED) return 0;
        if (rec->snapshot.len > 0 && !rec->snapshot.data) return 0;
        return 1;
    case BSYNC_REPLAY_DESYNC: {
        const bsync_replay_desync* d = &rec->desync;
        if (d->kind >= DESYNC_KIND_COUNT) return 0;
        if (h) {
            if (d->slot >= h->player_count) return 0;
            if (d->character != 0xFFu && d->character >= h->character_count) return 0;
        }
        return 1;
    }
    case BSYNC_REPLAY_END: return rec->end.reason < END_REASON_COUNT;
    default: return 0;
    }
}

static void encode_body(sink* s, const bsync_replay_record* rec, const bsync_replay_header* h) {
    switch (rec->type) {
    case BSYNC_REPLAY_HEADER: {
        const bsync_replay_header* x = &rec->header;
        s_u32(s, BSYNC_REPLAY_FORMAT_VERSION);
        s_text16(s, x->build_version);
        s_u64(s, x->match_id);
        s_u64(s, x->match_hash);
        s_u32(s, x->tick_rate);
        s_u32(s, x->player_count);
        s_u32(s, x->param_count);
        s_u32(s, x->trigger_count);
        s_u32(s, x->character_count);
        s_u32(s, x->input_delay);
        s_u32(s, x->checksum_interval);
        s_u32(s, x->start_tick);
        s_u32(s, x->asset_count);
        for (uint32_t i = 0; i < x->asset_count; i++) {
            s_text16(s, x->assets[i].name);
            s_u64(s, x->assets[i].hash);
        }
        s_text16(s, x->config_path);
        s_u32(s, x->config_len);
        s_bytes(s, x->config_text, x->config_len);
        break;
    }
    case BSYNC_REPLAY_FRAME: {
        const bsync_replay_frame* f = &rec->frame;
        s_u32(s, f->tick);
        s_u8(s, h->player_count);
        s_u8(s, h->param_count);
        s_u8(s, h->trigger_count);
        s_u8(s, 0);
        s_u16(s, f->defaulted_mask);
        for (uint32_t p = 0; p < h->player_count; p++) {
            const bsync_match_input* in = &f->inputs.players[p];
            for (uint32_t i = 0; i < h->param_count; i++) s_varint(s, zigzag32(in->params[i]));
            s_bytes(s, in->triggers, h->trigger_count);
            s_u16(s, f->payload_len[p]);
            s_bytes(s, f->payload[p], f->payload_len[p]);
        }
        break;
    }
    case BSYNC_REPLAY_CHECKSUM:
        s_u32(s, rec->checksum.tick);
        s_u32(s, rec->checksum.has_pose);
        s_u64(s, rec->checksum.blend);
        s_u64(s, rec->checksum.pose);
        break;
    case BSYNC_REPLAY_SNAPSHOT:
        s_u32(s, rec->snapshot.tick);
        s_u32(s, rec->snapshot.len);
        s_bytes(s, rec->snapshot.data, rec->snapshot.len);
        break;
    case BSYNC_REPLAY_DESYNC:
        s_u32(s, rec->desync.tick);
        s_u8(s, rec->desync.slot);
        s_u8(s, rec->desync.kind);
        s_u8(s, rec->desync.character);
        s_u8(s, 0);
        s_u16(s, rec->desync.part);
        s_u16(s, 0);
        s_u64(s, rec->desync.expected);
        s_u64(s, rec->desync.got);
        break;
    case BSYNC_REPLAY_END:
        s_u32(s, rec->end.ticks);
        s_u32(s, rec->end.reason);
        break;
    default: break;
    }
}

bsync_result bsync_replay_encode_record(const bsync_replay_record* rec, const bsync_replay_header* header,
                                        uint8_t* buf, size_t cap, size_t* out_len) {
    if (out_len) *out_len = 0;
    if (!rec || !out_len) return BSYNC_INVALID_ARGUMENT;
    if (!record_ok(rec, header)) return BSYNC_INVALID_ARGUMENT;
    sink count = {NULL, 0};
    encode_body(&count, rec, header);
    size_t n = count.len;
    if (n > BSYNC_REPLAY_MAX_BODY) return BSYNC_INVALID_ARGUMENT;
    size_t total = BSYNC_REPLAY_RECORD_OVERHEAD + n;
    *out_len = total;
    if (!buf) return BSYNC_OK;
    if (cap < total) return BSYNC_BUFFER_TOO_SMALL;
    buf[0] = (uint8_t)rec->type;
    buf[1] = 0;
    bsync_le_put16(buf + 2, 0);
    bsync_le_put32(buf + 4, (uint32_t)n);
    sink w = {buf + 8, 0};
    encode_body(&w, rec, header);
    bsync_le_put64(buf + 8 + n, bsync_checksum_xxh64(buf, 8 + n, BSYNC_REPLAY_RECORD_SEED));
    return BSYNC_OK;
}

/* ------------------------------------------------------------------ writer */

struct bsync_replay_writer {
    FILE* f;
    uint64_t bytes;     /* good bytes in the file (magic + complete records) */
    uint64_t next_tick; /* the tick the next FRAME must carry */
    int ended;
    uint8_t* buf;
    size_t cap;
    bsync_replay_header header; /* config_text NULL: only the counts are used */
};

static int ensure_cap(bsync_replay_writer* w, size_t need) {
    if (need <= w->cap) return 1;
    uint8_t* nb = realloc(w->buf, need);
    if (!nb) return 0;
    w->buf = nb;
    w->cap = need;
    return 1;
}

/* One fwrite + fflush; on failure cut the file back to its last good byte (the stream is
 * unbuffered, so nothing of the failed record stays pending) and keep the writer usable. */
static int write_record(bsync_replay_writer* w, const uint8_t* p, size_t n, int* sys_errno) {
    errno = 0;
    size_t put = fwrite(p, 1, n, w->f);
    int ok = put == n;
    if (fflush(w->f) != 0) ok = 0;
    if (ok) return 1;
    *sys_errno = errno;
    clearerr(w->f);
    if (ftruncate(fileno(w->f), (off_t)w->bytes) != 0) { /* best effort: the reader stops there */
    }
    fseeko(w->f, (off_t)w->bytes, SEEK_SET);
    clearerr(w->f);
    return 0;
}

bsync_result bsync_replay_writer_open(const char* path, const bsync_replay_header* header,
                                      bsync_replay_writer** out, bsync_error* err) {
    if (out) *out = NULL;
    if (!path || !header || !out) return fail(err, BSYNC_INVALID_ARGUMENT, "replay: no path, header or output");
    if (!header_ok(header))
        return fail(err, BSYNC_INVALID_ARGUMENT, "%s: the replay header breaks a rule (counts, text lengths, "
                    "asset count or config size)", path);
    bsync_replay_writer* w = calloc(1, sizeof *w);
    if (!w) return fail(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", path);
    bsync_replay_record* rec = malloc(sizeof *rec);
    if (!rec) {
        free(w);
        return fail(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    rec->type = BSYNC_REPLAY_HEADER;
    rec->offset = 0;
    rec->size = 0;
    rec->header = *header;
    size_t len = 0;
    bsync_result r = bsync_replay_encode_record(rec, NULL, NULL, 0, &len);
    if (r == BSYNC_OK && !ensure_cap(w, BSYNC_REPLAY_MAGIC_SIZE + len)) r = BSYNC_OUT_OF_MEMORY;
    if (r == BSYNC_OK) {
        memcpy(w->buf, k_magic, BSYNC_REPLAY_MAGIC_SIZE);
        r = bsync_replay_encode_record(rec, NULL, w->buf + BSYNC_REPLAY_MAGIC_SIZE, len, &len);
    }
    free(rec);
    if (r != BSYNC_OK) {
        free(w->buf);
        free(w);
        return fail(err, r, "%s: cannot encode the replay header: %s", path, bsync_result_string(r));
    }
    w->f = fopen(path, "wb");
    if (!w->f) {
        int e = errno;
        free(w->buf);
        free(w);
        return fail(err, BSYNC_IO_ERROR, "%s: cannot create the replay file: %s", path, strerror(e));
    }
    setvbuf(w->f, NULL, _IONBF, 0);
    int e = 0;
    if (!write_record(w, w->buf, BSYNC_REPLAY_MAGIC_SIZE + len, &e)) {
        fclose(w->f);
        free(w->buf);
        free(w);
        return fail(err, BSYNC_IO_ERROR, "%s: cannot write the replay header: %s", path,
                    e ? strerror(e) : "short write");
    }
    w->bytes = BSYNC_REPLAY_MAGIC_SIZE + len;
    w->header = *header;
    w->header.config_text = NULL;
    w->header.format_version = BSYNC_REPLAY_FORMAT_VERSION;
    w->next_tick = header->start_tick;
    *out = w;
    return BSYNC_OK;
}

bsync_result bsync_replay_writer_append(bsync_replay_writer* w, const bsync_replay_record* rec, bsync_error* err) {
    if (!w || !rec) return fail(err, BSYNC_INVALID_ARGUMENT, "replay: no writer or record");
    if (rec->type == BSYNC_REPLAY_HEADER)
        return fail(err, BSYNC_INVALID_ARGUMENT, "replay: the HEADER record is written by open, not appended");
    if (w->ended)
        return fail(err, BSYNC_INVALID_ARGUMENT, "replay: a %s record after END", type_name((uint32_t)rec->type));
    if (rec->type == BSYNC_REPLAY_FRAME && (uint64_t)rec->frame.tick != w->next_tick)
        return fail(err, BSYNC_INVALID_ARGUMENT, "replay: FRAME for tick %u, expected tick %llu",
                    (unsigned)rec->frame.tick, (unsigned long long)w->next_tick);
    size_t len = 0;
    bsync_result r = bsync_replay_encode_record(rec, &w->header, NULL, 0, &len);
    if (r != BSYNC_OK)
        return fail(err, r, "replay: the %s record breaks a rule of the format (counts, limits, reserved values)",
                    type_name((uint32_t)rec->type));
    if (!ensure_cap(w, len)) return fail(err, BSYNC_OUT_OF_MEMORY, "replay: out of memory");
    r = bsync_replay_encode_record(rec, &w->header, w->buf, w->cap, &len);
    if (r != BSYNC_OK) return fail(err, r, "replay: cannot encode the record");
    int e = 0;
    if (!write_record(w, w->buf, len, &e))
        return fail(err, BSYNC_IO_ERROR, "replay: cannot append the %s record at byte %llu: %s",
                    type_name((uint32_t)rec->type), (unsigned long long)w->bytes, e ? strerror(e) : "short write");
    w->bytes += len;
    if (rec->type == BSYNC_REPLAY_FRAME) w->next_tick++;
    if (rec->type == BSYNC_REPLAY_END) w->ended = 1;
    return BSYNC_OK;
}

bsync_result bsync_replay_writer_sync(bsync_replay_writer* w) {
    if (!w) return BSYNC_INVALID_ARGUMENT;
    if (bsync_platform_fsync(w->f) != 0) return BSYNC_IO_ERROR; /* fflush, then to the disk */
    return BSYNC_OK;
}

uint64_t bsync_replay_writer_bytes(const bsync_replay_writer* w) { return w ? w->bytes : 0; }

void bsync_replay_writer_close(bsync_replay_writer* w) {
    if (!w) return;
    fclose(w->f);
    free(w->buf);
    free(w);
}

/* ------------------------------------------------------------------ reader */

struct bsync_replay_reader {
    const uint8_t* data; /* the bytes read: `owned`, or the caller's when borrowed */
    uint8_t* owned;      /* NULL when borrowed */
    size_t owned_cap;    /* its allocation's size */
    size_t config_cap;   /* config's allocation's size */
    bsync_allocator alloc;
    size_t len;
    size_t pos;
    int magic_ok, have_header, ended;
    uint64_t next_tick;
    uint64_t records;
    uint64_t valid;
    bsync_replay_status final; /* OK while reading goes on */
    char detail[160];
    char* config; /* the header's config text, NUL-terminated */
    bsync_replay_header header;
};

static bsync_replay_reader* reader_new(const bsync_allocator* a) {
    const bsync_allocator al = bsync_allocator_resolve(a);
    bsync_replay_reader* r = (bsync_replay_reader*)al.alloc_fn(sizeof *r, 8, al.user);
    if (!r) return NULL;
    memset(r, 0, sizeof *r);
    r->alloc = al;
    return r;
}

bsync_result bsync_replay_reader_open_memory(const void* data, size_t len, bsync_replay_reader** out) {
    return bsync_replay_reader_open_memory_ex(data, len, NULL, out);
}

bsync_result bsync_replay_reader_open_memory_ex(const void* data, size_t len, const bsync_replay_reader_options* options,
                                                bsync_replay_reader** out) {
    if (out) *out = NULL;
    if (!out || (!data && len)) return BSYNC_INVALID_ARGUMENT;
    bsync_replay_reader* r = reader_new(options ? options->allocator : NULL);
    if (!r) return BSYNC_OUT_OF_MEMORY;
    if (options && options->borrow) {
        r->data = (const uint8_t*)data;
    } else {
        r->owned_cap = len ? len : 1;
        r->owned = (uint8_t*)r->alloc.alloc_fn(r->owned_cap, 8, r->alloc.user);
        if (!r->owned) {
            r->alloc.free_fn(r, sizeof *r, r->alloc.user);
            return BSYNC_OUT_OF_MEMORY;
        }
        if (len) memcpy(r->owned, data, len);
        r->data = r->owned;
    }
    r->len = len;
    *out = r;
    return BSYNC_OK;
}

bsync_result bsync_replay_reader_open_file(const char* path, bsync_replay_reader** out, bsync_error* err) {
    return bsync_replay_reader_open_file_ex(path, NULL, out, err);
}

bsync_result bsync_replay_reader_open_file_ex(const char* path, const bsync_replay_reader_options* options,
                                              bsync_replay_reader** out, bsync_error* err) {
    if (out) *out = NULL;
    if (!path || !out) return fail(err, BSYNC_INVALID_ARGUMENT, "replay: no path or output");
    const bsync_allocator* a = options ? options->allocator : NULL;
    const bsync_file_callbacks* cb = options ? &options->file : NULL;
    unsigned char* buf = NULL;
    size_t size = 0, cap = 0;
    bsync_io_file_status st;
    bsync_result res = bsync_io_read_file_alloc(cb, path, a, &buf, &size, &cap, &st);
    if (res == BSYNC_IO_ERROR)
        return fail(err, res, "%s: cannot %s the replay: %s", path, st.opened ? "read" : "open",
                    st.sys_errno ? strerror(st.sys_errno) : (cb && cb->read ? "the file callback failed" : "read error"));
    if (res == BSYNC_LIMIT_EXCEEDED) return fail(err, res, "%s: the replay is larger than 2 GiB", path);
    if (res != BSYNC_OK) return fail(err, res, "%s: cannot read the replay: %s", path, bsync_result_string(res));
    bsync_replay_reader* r = reader_new(a);
    if (!r) {
        const bsync_allocator al = bsync_allocator_resolve(a);
        al.free_fn(buf, cap, al.user);
        return fail(err, BSYNC_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    r->owned = buf;
    r->owned_cap = cap;
    r->data = buf;
    r->len = size;
    *out = r;
    return BSYNC_OK;
}

/* A strict body cursor: the first failure sticks and names its file offset. */
typedef struct cursor {
    const uint8_t* p;
    size_t n, i;
    uint64_t base;      /* file offset of p[0] */
    uint64_t rec_off;   /* file offset of the record */
    const char* rtype;
    int bad;
    char* msg;
} cursor;

static void c_fail_at(cursor* c, size_t at, const char* fmt, ...) {
    if (c->bad) return;
    c->bad = 1;
    char what[112];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(c->msg, 160, "byte %llu (%s record at byte %llu): %s", (unsigned long long)(c->base + at), c->rtype,
             (unsigned long long)c->rec_off, what);
}

static int c_need(cursor* c, size_t k, const char* what) {
    if (c->bad) return 0;
    if (c->n - c->i < k) {
        c_fail_at(c, c->i, "the body ends inside %s", what);
        return 0;
    }
    return 1;
}
static uint32_t c_u8(cursor* c, const char* what) {
    if (!c_need(c, 1, what)) return 0;
    return c->p[c->i++];
}
static uint32_t c_u16(cursor* c, const char* what) {
    if (!c_need(c, 2, what)) return 0;
    uint32_t v = bsync_le_get16(c->p + c->i);
    c->i += 2;
    return v;
}
static uint32_t c_u32(cursor* c, const char* what) {
    if (!c_need(c, 4, what)) return 0;
    uint32_t v = bsync_le_get32(c->p + c->i);
    c->i += 4;
    return v;
}
static uint64_t c_u64(cursor* c, const char* what) {
    if (!c_need(c, 8, what)) return 0;
    uint64_t v = bsync_le_get64(c->p + c->i);
    c->i += 8;
    return v;
}
static const uint8_t* c_bytes(cursor* c, size_t k, const char* what) {
    if (!c_need(c, k, what)) return NULL;
    const uint8_t* p = c->p + c->i;
    c->i += k;
    return p;
}
static void c_zero(cursor* c, uint32_t v, size_t width, const char* what) {
    if (!c->bad && v != 0) c_fail_at(c, c->i - width, "reserved %s is %u, not 0", what, (unsigned)v);
}
/* A fix16 as varint(zigzag(v)): at most 5 bytes, minimal, value in (INT32_MIN, INT32_MAX]. */
static fix16_t c_fx(cursor* c) {
    if (c->bad) return 0;
    size_t start = c->i;
    uint64_t v = 0;
    for (unsigned k = 0; k < 5; k++) {
        if (c->i >= c->n) {
            c_fail_at(c, start, "the body ends inside a varint");
            return 0;
        }
        uint32_t b = c->p[c->i++];
        v |= (uint64_t)(b & 0x7Fu) << (7u * k);
        if (!(b & 0x80u)) {
            if (k > 0 && b == 0) {
                c_fail_at(c, start, "varint is not minimal");
                return 0;
            }
            if (v > 0xFFFFFFFEull) {
                c_fail_at(c, start, "varint %llu is not a fix16 (zigzag above 2^32 - 2)", (unsigned long long)v);
                return 0;
            }
            return unzigzag32((uint32_t)v);
        }
    }
    c_fail_at(c, start, "varint longer than 5 bytes");
    return 0;
}
static void c_text(cursor* c, char* out, size_t lenbytes, const char* what) {
    uint32_t n = lenbytes == 2 ? c_u16(c, what) : c_u32(c, what);
    if (c->bad) return;
    if (n > BSYNC_REPLAY_MAX_TEXT) {
        c_fail_at(c, c->i - lenbytes, "%s is %u bytes (at most %u)", what, (unsigned)n, BSYNC_REPLAY_MAX_TEXT);
        return;
    }
    const uint8_t* p = c_bytes(c, n, what);
    if (!p) return;
    if (memchr(p, 0, n)) {
        c_fail_at(c, c->i - n, "%s contains a NUL byte", what);
        return;
    }
    memcpy(out, p, n);
    out[n] = '\0';
}

/* Decode a HEADER body (format version already checked) into r->header. */
static void decode_header(cursor* c, bsync_replay_reader* r) {
    bsync_replay_header* h = &r->header;
    memset(h, 0, sizeof *h);
    h->format_version = c_u32(c, "the format version");
    c_text(c, h->build_version, 2, "the build version");
    h->match_id = c_u64(c, "the match id");
    h->match_hash = c_u64(c, "the match hash");
    h->tick_rate = c_u32(c, "the tick rate");
    h->player_count = c_u32(c, "the player count");
    if (!c->bad && (h->player_count < 1 || h->player_count > BSYNC_MATCH_MAX_PLAYERS))
        c_fail_at(c, c->i - 4, "player count %u (1..%u)", (unsigned)h->player_count, BSYNC_MATCH_MAX_PLAYERS);
    h->param_count = c_u32(c, "the param count");
    if (!c->bad && h->param_count > BSYNC_MATCH_MAX_PARAMS)
        c_fail_at(c, c->i - 4, "param count %u (at most %u)", (unsigned)h->param_count, BSYNC_MATCH_MAX_PARAMS);
    h->trigger_count = c_u32(c, "the trigger count");
    if (!c->bad && h->trigger_count > BSYNC_MATCH_MAX_TRIGGERS)
        c_fail_at(c, c->i - 4, "trigger count %u (at most %u)", (unsigned)h->trigger_count,
                  BSYNC_MATCH_MAX_TRIGGERS);
    h->character_count = c_u32(c, "the character count");
    if (!c->bad && (h->character_count < 1 || h->character_count > BSYNC_MATCH_MAX_CHARACTERS))
        c_fail_at(c, c->i - 4, "character count %u (1..%u)", (unsigned)h->character_count,
                  BSYNC_MATCH_MAX_CHARACTERS);
    h->input_delay = c_u32(c, "the input delay");
    h->checksum_interval = c_u32(c, "the checksum interval");
    h->start_tick = c_u32(c, "the start tick");
    h->asset_count = c_u32(c, "the asset count");
    if (!c->bad && h->asset_count > BSYNC_REPLAY_MAX_ASSETS)
        c_fail_at(c, c->i - 4, "asset count %u (at most %u)", (unsigned)h->asset_count, BSYNC_REPLAY_MAX_ASSETS);
    for (uint32_t i = 0; i < h->asset_count && !c->bad; i++) {
        c_text(c, h->assets[i].name, 2, "an asset name");
        h->assets[i].hash = c_u64(c, "an asset hash");
    }
    c_text(c, h->config_path, 2, "the config path");
    h->config_len = c_u32(c, "the config length");
    if (!c->bad && h->config_len > BSYNC_REPLAY_MAX_CONFIG)
        c_fail_at(c, c->i - 4, "config text of %u bytes (at most %u)", (unsigned)h->config_len,
                  BSYNC_REPLAY_MAX_CONFIG);
    const uint8_t* text = c_bytes(c, c->bad ? 0 : h->config_len, "the config text");
    if (!c->bad && c->i != c->n) c_fail_at(c, c->i, "%zu bytes after the config text", c->n - c->i);
    if (c->bad) return;
    if (r->config) r->alloc.free_fn(r->config, r->config_cap, r->alloc.user);
    r->config_cap = (size_t)h->config_len + 1;
    r->config = (char*)r->alloc.alloc_fn(r->config_cap, 8, r->alloc.user);
    if (!r->config) {
        c_fail_at(c, 0, "out of memory for the config text");
        return;
    }
    if (h->config_len) memcpy(r->config, text, h->config_len);
    r->config[h->config_len] = '\0';
    h->config_text = r->config;
}

static void decode_frame(cursor* c, const bsync_replay_header* h, bsync_replay_frame* f) {
    /* everything but the payload bytes, which are read only up to payload_len (4 KiB of a 8.5 KiB
     * frame that would otherwise be cleared on every tick) */
    memset(f, 0, offsetof(bsync_replay_frame, payload));
    f->tick = c_u32(c, "the tick");
    uint32_t pc = c_u8(c, "the player count");
    if (!c->bad && pc != h->player_count)
        c_fail_at(c, c->i - 1, "player count %u, the header says %u", (unsigned)pc, (unsigned)h->player_count);
    uint32_t prm = c_u8(c, "the param count");
    if (!c->bad && prm != h->param_count)
        c_fail_at(c, c->i - 1, "param count %u, the header says %u", (unsigned)prm, (unsigned)h->param_count);
    uint32_t trg = c_u8(c, "the trigger count");
    if (!c->bad && trg != h->trigger_count)
        c_fail_at(c, c->i - 1, "trigger count %u, the header says %u", (unsigned)trg, (unsigned)h->trigger_count);
    c_zero(c, c_u8(c, "a reserved byte"), 1, "byte");
    uint32_t mask = c_u16(c, "the defaulted mask");
    if (!c->bad && (mask >> h->player_count))
        c_fail_at(c, c->i - 2, "defaulted mask 0x%04x has bits at or above the player count %u", (unsigned)mask,
                  (unsigned)h->player_count);
    if (c->bad) return;
    f->defaulted_mask = (uint16_t)mask;
    f->inputs.player_count = pc;
    for (uint32_t p = 0; p < pc && !c->bad; p++) {
        bsync_match_input* in = &f->inputs.players[p];
        for (uint32_t i = 0; i < prm && !c->bad; i++) in->params[i] = c_fx(c);
        const uint8_t* t = c_bytes(c, trg, "the triggers");
        if (t && trg) memcpy(in->triggers, t, trg);
        uint32_t pl = c_u16(c, "a payload length");
        if (!c->bad && pl > BSYNC_REPLAY_MAX_PAYLOAD) {
            c_fail_at(c, c->i - 2, "payload of %u bytes (at most %u)", (unsigned)pl, BSYNC_REPLAY_MAX_PAYLOAD);
            return;
        }
        const uint8_t* pd = c_bytes(c, c->bad ? 0 : pl, "a payload");
        if (c->bad) return;
        f->payload_len[p] = (uint16_t)pl;
        if (pl) memcpy(f->payload[p], pd, pl);
    }
    if (!c->bad && c->i != c->n) c_fail_at(c, c->i, "%zu bytes after the last player", c->n - c->i);
}

static bsync_replay_status stop(bsync_replay_reader* r, bsync_replay_status s, char* detail, size_t cap) {
    r->final = s;
    if (detail && cap) snprintf(detail, cap, "%s", r->detail);
    return s;
}

/* Largest body a record type can have in format version 1 (exact size for fixed-size types). */
static uint32_t max_body(uint32_t type) {
    switch (type) {
    case BSYNC_REPLAY_FRAME: return FRAME_MAX_BODY;
    case BSYNC_REPLAY_CHECKSUM: return CHECKSUM_BODY;
    case BSYNC_REPLAY_DESYNC: return DESYNC_BODY;
    case BSYNC_REPLAY_END: return END_BODY;
    default: return BSYNC_REPLAY_MAX_BODY;
    }
}
static uint32_t min_body(uint32_t type) {
    switch (type) {
    case BSYNC_REPLAY_HEADER: return 4; /* the format version; the rest depends on it */
    case BSYNC_REPLAY_FRAME: return FRAME_FIXED + 2u;
    case BSYNC_REPLAY_CHECKSUM: return CHECKSUM_BODY;
    case BSYNC_REPLAY_SNAPSHOT: return SNAPSHOT_FIXED;
    case BSYNC_REPLAY_DESYNC: return DESYNC_BODY;
    case BSYNC_REPLAY_END: return END_BODY;
    default: return 0;
    }
}

bsync_replay_status bsync_replay_reader_next(bsync_replay_reader* r, bsync_replay_record* rec, char* detail,
                                             size_t detail_cap) {
    if (detail && detail_cap) detail[0] = '\0';
    if (!r) {
        if (detail && detail_cap) snprintf(detail, detail_cap, "no reader");
        return BSYNC_REPLAY_CORRUPT;
    }
    if (r->final != BSYNC_REPLAY_OK) return stop(r, r->final, detail, detail_cap);
    char* msg = r->detail;
    const size_t mc = sizeof r->detail;
    if (!r->magic_ok) {
        size_t k = r->len < BSYNC_REPLAY_MAGIC_SIZE ? r->len : BSYNC_REPLAY_MAGIC_SIZE;
        if (memcmp(r->data, k_magic, k) != 0) {
            snprintf(msg, mc, "byte 0: not a replay file (the magic is not \"BSRPLY\\r\\n\")");
            return stop(r, BSYNC_REPLAY_CORRUPT, detail, detail_cap);
        }
        if (r->len < BSYNC_REPLAY_MAGIC_SIZE) {
            snprintf(msg, mc, "byte %zu: the data ends inside the 8-byte magic", r->len);
            return stop(r, BSYNC_REPLAY_TRUNCATED, detail, detail_cap);
        }
        r->magic_ok = 1;
        r->pos = BSYNC_REPLAY_MAGIC_SIZE;
    }
    const size_t pos = r->pos;
    const size_t avail = r->len - pos;
    if (avail == 0) {
        if (!r->have_header) {
            snprintf(msg, mc, "byte %zu: the data ends after the magic, before the HEADER record", pos);
            return stop(r, BSYNC_REPLAY_TRUNCATED, detail, detail_cap);
        }
        snprintf(msg, mc, "byte %zu: end of the replay after %llu records%s", pos, (unsigned long long)r->records,
                 r->ended ? "" : " (no END record)");
        return stop(r, BSYNC_REPLAY_EOF, detail, detail_cap);
    }
    const uint8_t* p = r->data + pos;
    /* the record header, as far as it is present */
    uint32_t type = p[0];
    if (type < BSYNC_REPLAY_HEADER || type > BSYNC_REPLAY_END) {
        snprintf(msg, mc, "byte %zu: unknown record type %u", pos, (unsigned)type);
        return stop(r, BSYNC_REPLAY_CORRUPT, detail, detail_cap);
    }
    for (size_t k = 1; k < 4 && k < avail; k++)
        if (p[k] != 0) {
            snprintf(msg, mc, "byte %zu: reserved byte %zu of the %s record header is 0x%02x, not 0", pos + k, k,
                     type_name(type), (unsigned)p[k]);
            return stop(r, BSYNC_REPLAY_CORRUPT, detail, detail_cap);
        }
    if (avail >= 8) {
        uint32_t n = bsync_le_get32(p + 4);
        if (n > max_body(type) || n < min_body(type)) {
            snprintf(msg, mc, "byte %zu: %s record body length %u is impossible (%u..%u)", pos + 4, type_name(type),
                     (unsigned)n, (unsigned)min_body(type), (unsigned)max_body(type));
            return stop(r, BSYNC_REPLAY_CORRUPT, detail, detail_cap);
        }
    }
    /* the length is <= BSYNC_REPLAY_MAX_BODY here, so 16 + length cannot wrap */
    if (avail < 8 || avail < BSYNC_REPLAY_RECORD_OVERHEAD + (size_t)bsync_le_get32(p + 4)) {
        if (avail < 8)
            snprintf(msg, mc, "byte %zu: the data ends inside the header of a %s record (%zu of 8 bytes)", pos,
                     type_name(type), avail);
        else
            snprintf(msg, mc, "byte %zu: the data ends inside a %s record (%zu of %llu bytes)", pos, type_name(type),
                     avail, (unsigned long long)bsync_le_get32(p + 4) + BSYNC_REPLAY_RECORD_OVERHEAD);
        return stop(r, BSYNC_REPLAY_TRUNCATED, detail, detail_cap);
    }
    const uint32_t n = bsync_le_get32(p + 4);
    const uint64_t stored = bsync_le_get64(p + 8 + n);
    const uint64_t computed = bsync_checksum_xxh64(p, 8 + (size_t)n, BSYNC_REPLAY_RECORD_SEED);
    if (stored != computed) {
        snprintf(msg, mc, "byte %zu: %s record checksum mismatch (stored %016llx, computed %016llx)", pos + 8 + n,
                 type_name(type), (unsigned long long)stored, (unsigned long long)computed);
        return stop(r, BSYNC_REPLAY_CORRUPT, detail, detail_cap);
    }
    /* order that does not need the body */
    if (!r->have_header && type != BSYNC_REPLAY_HEADER) {
        snprintf(msg, mc, "byte %zu: the first record is %s, not HEADER", pos, type_name(type));
        return stop(r, BSYNC_REPLAY_BAD_ORDER, detail, detail_cap);
    }
    if (r->have_header && type == BSYNC_REPLAY_HEADER) {
        snprintf(msg, mc, "byte %zu: a second HEADER record", pos);
        return stop(r, BSYNC_REPLAY_BAD_ORDER, detail, detail_cap);
    }
    if (r->ended) {
        snprintf(msg, mc, "byte %zu: a %s record after END", pos, type_name(type));
        return stop(r, BSYNC_REPLAY_BAD_ORDER, detail, detail_cap);
    }
    cursor c = {p + 8, n, 0, (uint64_t)pos + 8, (uint64_t)pos, type_name(type), 0, msg};
    bsync_replay_record tmp_small;
    bsync_replay_record* out = rec;
    if (!out && type != BSYNC_REPLAY_HEADER) out = &tmp_small; /* validate anyway */
    switch (type) {
    case BSYNC_REPLAY_HEADER: {
        uint32_t version = bsync_le_get32(p + 8);
        if (version != BSYNC_REPLAY_FORMAT_VERSION) {
            snprintf(msg, mc, "byte %zu: replay format version %u (this build reads version %u)", pos + 8,
                     (unsigned)version, BSYNC_REPLAY_FORMAT_VERSION);
            return stop(r, BSYNC_REPLAY_UNSUPPORTED, detail, detail_cap);
        }
        decode_header(&c, r);
        if (c.bad) {
            memset(&r->header, 0, sizeof r->header);
            return stop(r, BSYNC_REPLAY_CORRUPT, detail, detail_cap);
        }
        break;
    }
    case BSYNC_REPLAY_FRAME:
        decode_frame(&c, &r->header, &out->frame);
        if (!c.bad && (uint64_t)out->frame.tick != r->next_tick) {
            snprintf(msg, mc, "byte %zu: FRAME for tick %u, expected tick %llu (frames are consecutive)", pos + 8,
                     (unsigned)out->frame.tick, (unsigned long long)r->next_tick);
            return stop(r, BSYNC_REPLAY_BAD_ORDER, detail, detail_cap);
        }
        break;
    case BSYNC_REPLAY_CHECKSUM: {
        bsync_replay_checksum* k = &out->checksum;
        k->tick = c_u32(&c, "the tick");
        uint32_t flags = c_u32(&c, "the flags");
        if (!c.bad && flags > 1u) c_fail_at(&c, 4, "flags 0x%08x (only bit 0 is defined)", (unsigned)flags);
        k->has_pose = flags;
        k->blend = c_u64(&c, "the blend checksum");
        k->pose = c_u64(&c, "the pose checksum");
        if (!c.bad && !flags && k->pose != 0) c_fail_at(&c, 16, "a pose checksum without flag bit 0");
        break;
    }
    case BSYNC_REPLAY_SNAPSHOT: {
        bsync_replay_snapshot* s = &out->snapshot;
        s->tick = c_u32(&c, "the tick");
        s->len = c_u32(&c, "the snapshot length");
        if (!c.bad && (uint64_t)s->len != (uint64_t)n - SNAPSHOT_FIXED)
            c_fail_at(&c, 4, "snapshot length %u, the body holds %u bytes", (unsigned)s->len,
                      (unsigned)(n - SNAPSHOT_FIXED));
        s->data = c_bytes(&c, c.bad ? 0 : s->len, "the snapshot");
        break;
    }
    case BSYNC_REPLAY_DESYNC: {
        bsync_replay_desync* d = &out->desync;
        d->tick = c_u32(&c, "the tick");
        d->slot = (uint8_t)c_u8(&c, "the slot");
        if (!c.bad && d->slot >= r->header.player_count)
            c_fail_at(&c, 4, "slot %u, the match has %u players", (unsigned)d->slot,
                      (unsigned)r->header.player_count);
        d->kind = (uint8_t)c_u8(&c, "the kind");
        if (!c.bad && d->kind >= DESYNC_KIND_COUNT) c_fail_at(&c, 5, "unknown desync kind %u", (unsigned)d->kind);
        d->character = (uint8_t)c_u8(&c, "the character");
        if (!c.bad && d->character != 0xFFu && d->character >= r->header.character_count)
            c_fail_at(&c, 6, "character %u, the match has %u", (unsigned)d->character,
                      (unsigned)r->header.character_count);
        c_zero(&c, c_u8(&c, "a reserved byte"), 1, "byte");
        d->part = (uint16_t)c_u16(&c, "the part");
        c_zero(&c, c_u16(&c, "a reserved u16"), 2, "u16");
        d->expected = c_u64(&c, "the expected checksum");
        d->got = c_u64(&c, "the received checksum");
        break;
    }
    case BSYNC_REPLAY_END:
        out->end.ticks = c_u32(&c, "the tick count");
        out->end.reason = c_u32(&c, "the reason");
        if (!c.bad && out->end.reason >= END_REASON_COUNT)
            c_fail_at(&c, 4, "unknown end reason %u", (unsigned)out->end.reason);
        break;
    default: break;
    }
    if (!c.bad && c.i != c.n) c_fail_at(&c, c.i, "%zu bytes after the last field", c.n - c.i);
    if (c.bad) return stop(r, BSYNC_REPLAY_CORRUPT, detail, detail_cap);

    /* accepted */
    if (type == BSYNC_REPLAY_HEADER) {
        r->have_header = 1;
        r->next_tick = r->header.start_tick;
        if (rec) rec->header = r->header;
    }
    if (type == BSYNC_REPLAY_FRAME) r->next_tick++;
    if (type == BSYNC_REPLAY_END) r->ended = 1;
    if (rec) {
        rec->type = (bsync_replay_record_type)type;
        rec->offset = pos;
        rec->size = BSYNC_REPLAY_RECORD_OVERHEAD + n;
    }
    r->pos = pos + BSYNC_REPLAY_RECORD_OVERHEAD + n;
    r->valid = r->pos;
    r->records++;
    return BSYNC_REPLAY_OK;
}

const bsync_replay_header* bsync_replay_reader_header(const bsync_replay_reader* r) {
    return r && r->have_header ? &r->header : NULL;
}

uint64_t bsync_replay_reader_valid_bytes(const bsync_replay_reader* r) { return r ? r->valid : 0; }

void bsync_replay_reader_close(bsync_replay_reader* r) {
    if (!r) return;
    const bsync_allocator a = r->alloc;
    if (r->config) a.free_fn(r->config, r->config_cap, a.user);
    if (r->owned) a.free_fn(r->owned, r->owned_cap, a.user);
    a.free_fn(r, sizeof *r, a.user);
}
