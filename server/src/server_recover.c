/* server_recover.c — crash recovery (docs/server.md "Recovery"): the unfinished replays of a folder,
 * and one match rebuilt from its replay: the config from the header, the state re-simulated frame by
 * frame (every recorded checksum compared), the last 256 frames and checksums back in the rings (so
 * the clients resume from the frames they had), the replay rewritten up to its last complete record
 * (a torn tail cut away) and renamed over the old file, and the recording going on in it. Edge code:
 * files, malloc, at start-up only. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/replay_verify.h"
#include "platform.h"
#include "server_internal.h"

#define MATCH_ID(m) ((unsigned long long)(m)->stats.match_id)

static bsync_result fail(bsync_error* err, bsync_result code, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
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

/* ---------------------------------------------------------------- the folder */

typedef struct scan_ctx {
    const char* dir;
    char* paths;
    size_t path_cap;
    uint32_t max, count;
    int overflow;
} scan_ctx;

/* 1 when path is a replay (its magic) that has no END record: a match the server did not finish. */
static int unfinished(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t magic[BSYNC_REPLAY_MAGIC_SIZE];
    static const uint8_t k_magic[BSYNC_REPLAY_MAGIC_SIZE] = {0x42, 0x53, 0x52, 0x50, 0x4C, 0x59, 0x0D, 0x0A};
    const int is_replay = fread(magic, 1, sizeof magic, f) == sizeof magic && !memcmp(magic, k_magic, sizeof magic);
    fclose(f);
    if (!is_replay) return 0;
    bsync_replay_reader* r = NULL;
    if (bsync_replay_reader_open_file(path, &r, NULL) != BSYNC_OK) return 0;
    bsync_replay_record* rec = malloc(sizeof *rec);
    int ended = 0, header = 0;
    bsync_replay_status st = BSYNC_REPLAY_OK;
    while (rec && (st = bsync_replay_reader_next(r, rec, NULL, 0)) == BSYNC_REPLAY_OK) {
        header |= rec->type == BSYNC_REPLAY_HEADER;
        ended |= rec->type == BSYNC_REPLAY_END;
    }
    free(rec);
    bsync_replay_reader_close(r);
    return header && !ended && st != BSYNC_REPLAY_UNSUPPORTED && st != BSYNC_REPLAY_BAD_ORDER;
}

static int scan_entry(const char* name, void* user) {
    scan_ctx* c = user;
    if (strstr(name, ".tmp.") || strstr(name, ".recover.tmp")) return 0; /* someone's half-written file */
    char path[BSYNC_PLATFORM_PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", c->dir, name) >= (int)sizeof path) {
        c->overflow = 1;
        return 0;
    }
    if (!bsync_platform_is_readable_file(path) || !unfinished(path)) return 0;
    if (c->count == c->max || strlen(path) >= c->path_cap) {
        c->overflow = 1;
        return 0;
    }
    memcpy(c->paths + (size_t)c->count * c->path_cap, path, strlen(path) + 1u);
    c->count++;
    return 0;
}

/* Selection sort of count paths of cap bytes each, by name, swapping in place (at most
 * BSYNC_SERVER_MAX_MATCHES entries; qsort's comparator could not know cap without a global). */
static void sort_paths(char* paths, size_t cap, uint32_t count) {
    for (uint32_t i = 0; i + 1u < count; i++) {
        uint32_t min = i;
        for (uint32_t j = i + 1u; j < count; j++)
            if (strncmp(paths + (size_t)j * cap, paths + (size_t)min * cap, cap) < 0) min = j;
        char* a = paths + (size_t)i * cap;
        char* b = paths + (size_t)min * cap;
        for (size_t k = 0; min != i && k < cap; k++) {
            const char t = a[k];
            a[k] = b[k];
            b[k] = t;
        }
    }
}

bsync_result bsync_server_recover_scan(const char* dir, char* paths, size_t path_cap, uint32_t max, uint32_t* out_count,
                                       bsync_error* err) {
    if (out_count) *out_count = 0;
    if (!dir || !paths || path_cap == 0 || !out_count)
        return fail(err, BSYNC_INVALID_ARGUMENT, "recover: no folder, buffer or count");
    scan_ctx c = {dir, paths, path_cap, max, 0, 0};
    if (bsync_platform_list_dir(dir, scan_entry, &c) < 0)
        return fail(err, BSYNC_IO_ERROR, "%s: cannot read the folder: %s", dir, strerror(errno));
    sort_paths(paths, path_cap, c.count);
    *out_count = c.count;
    if (c.overflow)
        return fail(err, BSYNC_LIMIT_EXCEEDED, "%s: more than %u unfinished replays, or a path over %zu bytes", dir, max,
                    path_cap);
    return BSYNC_OK;
}

/* ---------------------------------------------------------------- one match */

/* The byte at offset in path (the type of a torn record), or -1. */
static int byte_at(const char* path, uint64_t offset) {
    FILE* f = fopen(path, "rb");
    if (!f) return -1;
    int b = fseeko(f, (off_t)offset, SEEK_SET) == 0 ? fgetc(f) : EOF;
    fclose(f);
    return b == EOF ? -1 : b;
}

static uint64_t file_size(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    uint64_t n = fseeko(f, 0, SEEK_END) == 0 ? (uint64_t)ftello(f) : 0;
    fclose(f);
    return n;
}

typedef struct resim {
    uint64_t kept;         /* records to keep, HEADER included */
    uint32_t next_tick;    /* one past the last FRAME */
    int checksum_written;  /* the CHECKSUM of next_tick - 1 is in the file */
    bsync_match_checksums last_sums;
    bsync_replay_status tail;
    uint64_t valid_bytes;
} resim;

/* Pass 1: re-simulate every FRAME into m, compare every CHECKSUM, refill the rings. */
static bsync_result resimulate(srv_match* m, bsync_replay_reader* r, bsync_replay_record* rec, resim* out,
                               bsync_error* err) {
    const int poses = m->server->cfg.verify_poses;
    uint64_t index = 1; /* the HEADER was record 0 */
    char detail[160] = "";
    bsync_replay_status st;
    while ((st = bsync_replay_reader_next(r, rec, detail, sizeof detail)) == BSYNC_REPLAY_OK) {
        switch (rec->type) {
        case BSYNC_REPLAY_FRAME: {
            const bsync_replay_frame* fr = &rec->frame;
            if (fr->tick != out->next_tick)
                return fail(err, BSYNC_BAD_BLOB, "FRAME of tick %u where %u was due", fr->tick, out->next_tick);
            const uint32_t k = fr->tick % SRV_FRAME_RING;
            m->frames[k] = fr->inputs;
            m->frame_defaulted[k] = fr->defaulted_mask;
            for (uint32_t q = 0; m->frame_payload && q < m->player_count; q++) {
                const size_t at = (size_t)k * m->player_count + q;
                const uint16_t len = fr->payload_len[q] <= m->payload_max ? fr->payload_len[q] : 0;
                m->frame_payload_len[at] = len;
                memcpy(m->frame_payload + at * m->payload_max, fr->payload[q], len);
            }
            for (uint32_t q = 0; q < m->player_count; q++) m->slots[q].last = fr->inputs.players[q];
            bsync_result tr = bsync_match_tick(m->match, &fr->inputs);
            if (tr != BSYNC_OK) return fail(err, tr, "tick %u does not apply: %s", fr->tick, bsync_result_string(tr));
            out->next_tick = fr->tick + 1u;
            out->checksum_written = 0;
            out->kept = index + 1u;
            if ((fr->tick + 1u) % m->checksum_interval == 0) { /* the server's checksum tick (replay_recorder.h) */
                bsync_match_checksums* cs = &out->last_sums;
                if (bsync_match_get_checksums(m->match, poses, cs) != BSYNC_OK)
                    return fail(err, BSYNC_MISMATCH, "no checksums after tick %u", fr->tick);
                srv_check* c = &m->checks[fr->tick % SRV_CHECK_RING];
                memset(c, 0, sizeof *c);
                c->tick = fr->tick;
                c->sums = *cs;
                srv_snap* sn = &m->snaps[m->snap_next];
                m->snap_next = (m->snap_next + 1) % SRV_SNAP_RING;
                sn->tick = bsync_match_save(m->match, sn->data, m->snap_size, &sn->len) == BSYNC_OK ? fr->tick + 1u
                                                                                                    : UINT32_MAX;
            }
            break;
        }
        case BSYNC_REPLAY_CHECKSUM: {
            const srv_check* c = &m->checks[rec->checksum.tick % SRV_CHECK_RING];
            if (c->tick != rec->checksum.tick || c->sums.blend != rec->checksum.blend ||
                (poses && rec->checksum.has_pose && c->sums.pose != rec->checksum.pose))
                return fail(err, BSYNC_MISMATCH,
                            "the re-simulated state differs from the recorded CHECKSUM of tick %u (blend %016llx, "
                            "recorded %016llx): not this match's assets",
                            rec->checksum.tick, (unsigned long long)c->sums.blend,
                            (unsigned long long)rec->checksum.blend);
            if (rec->checksum.tick + 1u == out->next_tick) out->checksum_written = 1;
            out->kept = index + 1u;
            break;
        }
        case BSYNC_REPLAY_DESYNC: out->kept = index + 1u; break;
        case BSYNC_REPLAY_SNAPSHOT: break; /* kept only when a FRAME follows (the recorder writes it again) */
        case BSYNC_REPLAY_END: return fail(err, BSYNC_INVALID_ARGUMENT, "the match has ended (END record)");
        default: break;
        }
        index++;
    }
    if (st == BSYNC_REPLAY_UNSUPPORTED || st == BSYNC_REPLAY_BAD_ORDER)
        return fail(err, BSYNC_BAD_BLOB, "%s", detail);
    out->tail = st; /* EOF, or TRUNCATED / CORRUPT: a torn last record */
    out->valid_bytes = bsync_replay_reader_valid_bytes(r);
    return BSYNC_OK;
}

/* Pass 2: the first `kept` records again, into a new file beside path (renamed over it by the caller). */
static bsync_result rewrite(const char* path, const char* tmp, uint64_t kept, bsync_replay_record* rec,
                            bsync_replay_writer** out, bsync_error* err) {
    bsync_replay_reader* r = NULL;
    bsync_result res = bsync_replay_reader_open_file(path, &r, err);
    if (res != BSYNC_OK) return res;
    bsync_replay_writer* w = NULL;
    for (uint64_t i = 0; i < kept && res == BSYNC_OK; i++) {
        if (bsync_replay_reader_next(r, rec, NULL, 0) != BSYNC_REPLAY_OK) {
            res = fail(err, BSYNC_IO_ERROR, "%s changed while it was recovered", path);
            break;
        }
        if (i == 0) res = bsync_replay_writer_open(tmp, &rec->header, &w, err);
        else res = bsync_replay_writer_append(w, rec, err);
    }
    bsync_replay_reader_close(r);
    if (res != BSYNC_OK) {
        bsync_replay_writer_close(w);
        (void)remove(tmp);
        return res;
    }
    *out = w;
    return BSYNC_OK;
}

srv_match* srv_recover_create(bsync_server* s, uint32_t index, const char* path, bsync_error* err) {
    const uint64_t t0 = bsync_platform_now_ns();
    bsync_replay_reader* r = NULL;
    bsync_replay_record* rec = malloc(sizeof *rec);
    srv_match* m = NULL;
    bsync_result res = rec ? bsync_replay_reader_open_file(path, &r, err) : BSYNC_OUT_OF_MEMORY;
    if (res == BSYNC_OK && bsync_replay_reader_next(r, rec, NULL, 0) != BSYNC_REPLAY_OK)
        res = fail(err, BSYNC_BAD_BLOB, "no readable HEADER");
    bsync_match_config* cfg = NULL;
    if (res == BSYNC_OK) {
        char used[512];
        res = bsync_replay_verify_config_load(&rec->header, path, NULL, NULL, NULL, &cfg, used, sizeof used, err);
    }
    if (res == BSYNC_OK && bsync_match_hash(bsync_match_config_desc(cfg)) != rec->header.match_hash) {
        bsync_match_config_destroy(cfg);
        res = fail(err, BSYNC_MISMATCH, "the match config and graphs found for it do not give the recorded match hash");
    }
    if (res == BSYNC_OK) {
        m = srv_match_create_from(s, index, cfg, path, err); /* owns cfg */
        if (!m && err && err->code == BSYNC_OK) fail(err, BSYNC_OUT_OF_MEMORY, "cannot set up the match");
        res = m ? BSYNC_OK : BSYNC_CONFIG_ERROR;
    }
    resim rs;
    memset(&rs, 0, sizeof rs);
    if (res == BSYNC_OK) res = resimulate(m, r, rec, &rs, err);
    bsync_replay_reader_close(r);
    r = NULL;
    if (res == BSYNC_OK && rs.tail != BSYNC_REPLAY_EOF) { /* a torn last record: what the crash cut */
        const uint64_t size = file_size(path);
        m->stats.recover_torn_bytes = size > rs.valid_bytes ? size - rs.valid_bytes : 0;
        m->stats.recover_lost_ticks = byte_at(path, rs.valid_bytes) == BSYNC_REPLAY_FRAME ? 1u : 0u;
    }
    char tmp[BSYNC_PLATFORM_PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.recover.tmp", path);
    bsync_replay_writer* w = NULL;
    if (res == BSYNC_OK) res = rewrite(path, tmp, rs.kept, rec, &w, err);
    free(rec);
    if (res == BSYNC_OK && bsync_platform_rename(tmp, path) != 0) {
        res = fail(err, BSYNC_IO_ERROR, "cannot rename %s over %s: %s", tmp, path, strerror(errno));
        bsync_replay_writer_close(w);
        (void)remove(tmp);
    }
    if (res != BSYNC_OK) {
        if (err) { /* name the file in front of the message */
            char msg[sizeof err->message];
            memcpy(msg, err->message, sizeof msg);
            msg[sizeof msg - 1u] = '\0';
            const size_t n = strlen(path) < 200u ? strlen(path) : 200u;
            int at = snprintf(err->message, sizeof err->message, "--recover %.*s: ", (int)n, path);
            if (at > 0 && (size_t)at < sizeof err->message) {
                const size_t room = sizeof err->message - (size_t)at - 1u;
                const size_t len = strlen(msg) < room ? strlen(msg) : room;
                memcpy(err->message + at, msg, len);
                err->message[(size_t)at + len] = '\0';
            }
        }
        srv_match_destroy(m);
        return NULL;
    }
    srv_match_resume_at(m, w, path, rs.next_tick);
    if (rs.next_tick > 0 && !rs.checksum_written && (rs.next_tick % m->checksum_interval) == 0) {
        bsync_error e2; /* the checksum of the last frame was never written: it is known now */
        (void)bsync_replay_recorder_write_checksum(&m->recorder, rs.next_tick - 1u, &rs.last_sums, &e2);
    }
    bsync_replay_writer_sync(w);
    m->stats.recovered = 1;
    m->stats.recovered_tick = rs.next_tick;
    m->stats.recover_us = (bsync_platform_now_ns() - t0) / 1000u;
    srv_log(s, "info",
            "event=recovered match=%llu replay=%s tick=%u records=%llu tail=%s torn_bytes=%llu lost_ticks=%u recover_ms=%.1f",
            MATCH_ID(m), path, rs.next_tick, (unsigned long long)rs.kept,
            rs.tail == BSYNC_REPLAY_EOF ? "clean" : rs.tail == BSYNC_REPLAY_TRUNCATED ? "truncated" : "corrupt",
            (unsigned long long)m->stats.recover_torn_bytes, m->stats.recover_lost_ticks, m->stats.recover_us / 1000.0);
    return m;
}
