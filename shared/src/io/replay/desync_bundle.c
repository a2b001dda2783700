/* desync_bundle.c — reading a server's desync bundle (desync_bundle.h). */
#include "blendsync/io/desync_bundle.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal/alloc.h"
#include "blendsync/fixed.h"
#include "blendsync/io/trail.h"
#include "file_internal.h"
#include "platform.h"

/* The string value of "key" in a flat JSON object (the bundle.json the server writes). 0 or -1. */
static int json_string_field(const char* text, const char* key, char* out, size_t cap) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char* p = strstr(text, pat);
    if (!p) return -1;
    p += strlen(pat);
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p++ != ':') return -1;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (*p++ != '"') return -1;
    size_t n = 0;
    while (*p && *p != '"') {
        char c = *p++;
        if (c == '\\') {
            c = *p++;
            if (c == 'n') c = '\n';
            else if (c == 't') c = '\t';
            else if (c != '"' && c != '\\' && c != '/') return -1;
        }
        if (n + 1 >= cap) return -1;
        out[n++] = c;
    }
    if (*p != '"') return -1;
    out[n] = '\0';
    return 0;
}

static int json_int_field(const char* text, const char* key, long long* out) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char* p = strstr(text, pat);
    if (!p) return -1;
    p += strlen(pat);
    while (*p == ' ' || *p == '\t') p++;
    if (*p++ != ':') return -1;
    char* end = NULL;
    long long v = strtoll(p, &end, 10);
    if (end == p) return -1;
    *out = v;
    return 0;
}

static int path_join(char* out, size_t cap, const char* dir, const char* name) {
    int n = snprintf(out, cap, "%s/%s", dir, name);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* bundle.json's fields into b (b->dir and b->meta already set); meta NUL-terminated. */
static bsync_result bundle_fields(bsync_desync_bundle* b, const char* meta, bsync_error* err) {
    char srv[512], cli[512];
    if (json_string_field(meta, "server", srv, sizeof srv) != 0) snprintf(srv, sizeof srv, "server.bsms");
    if (json_string_field(meta, "client", cli, sizeof cli) != 0) snprintf(cli, sizeof cli, "client.bsms");
    b->has_match_config = json_string_field(meta, "match_config", b->match_config, sizeof b->match_config) == 0;
    if (!b->has_match_config) b->match_config[0] = '\0';
    json_int_field(meta, "slot", &b->slot);
    if (path_join(b->server_state, sizeof b->server_state, b->dir, srv) || path_join(b->client_state, sizeof b->client_state, b->dir, cli) ||
        path_join(b->server_previous, sizeof b->server_previous, b->dir, "server-previous.bsms") ||
        path_join(b->client_trail, sizeof b->client_trail, b->dir, "client-trail.bstrail") ||
        path_join(b->inputs, sizeof b->inputs, b->dir, "inputs.csv")) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED, "%s: a state file's path is too long", b->meta);
        return BSYNC_LIMIT_EXCEEDED;
    }
    bsync_io_set_error(err, BSYNC_OK, "%s", "");
    return BSYNC_OK;
}

static void bundle_names(bsync_desync_bundle* b, const char* dir) {
    memset(b, 0, sizeof *b);
    b->slot = -1;
    snprintf(b->dir, sizeof b->dir, "%s", dir);
    for (size_t n = strlen(b->dir); n > 1 && bsync_platform_is_separator(b->dir[n - 1]); n--) b->dir[n - 1] = '\0';
    snprintf(b->meta, sizeof b->meta, "%s/bundle.json", b->dir);
}

bsync_result bsync_desync_bundle_open(const char* dir, bsync_desync_bundle* b, bsync_error* err) {
    if (!dir || !b) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_open: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bundle_names(b, dir);
    unsigned char* meta = NULL;
    size_t meta_len = 0;
    bsync_io_file_status fs;
    memset(&fs, 0, sizeof fs);
    bsync_result r = bsync_io_read_file(b->meta, &meta, &meta_len, &fs);
    if (r != BSYNC_OK) {
        bsync_io_set_error(err, BSYNC_IO_ERROR, "cannot read %s: %s", b->meta,
                           fs.sys_errno ? strerror(fs.sys_errno) : bsync_result_string(r));
        return BSYNC_IO_ERROR;
    }
    r = bundle_fields(b, (const char*)meta, err);
    free(meta);
    return r;
}

bsync_result bsync_desync_bundle_parse(const char* dir, const char* text, size_t len, bsync_desync_bundle* b, bsync_error* err) {
    if (!dir || !b || (!text && len)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_parse: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    bundle_names(b, dir);
    char* meta = (char*)malloc(len + 1); /* the fields are found in NUL-terminated text, as a file read gives */
    if (!meta) {
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        return BSYNC_OUT_OF_MEMORY;
    }
    if (len) memcpy(meta, text, len);
    meta[len] = '\0';
    bsync_result r = bundle_fields(b, meta, err);
    free(meta);
    return r;
}

bsync_result bsync_desync_bundle_find_config(const bsync_desync_bundle* b, const char* match_path, char* out, size_t cap,
                                             bsync_error* err) {
    if (!b || !out || cap == 0) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_find_config: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    if (match_path) {
        snprintf(out, cap, "%s", match_path);
        return BSYNC_OK;
    }
    if (!b->has_match_config) {
        bsync_io_set_error(err, BSYNC_NOT_FOUND, "%s names no match_config: pass --match CONFIG", b->meta);
        return BSYNC_NOT_FOUND;
    }
    const char* written = b->match_config;
    if (bsync_platform_is_readable_file(written)) {
        snprintf(out, cap, "%s", written);
        return BSYNC_OK;
    }
    if (!bsync_platform_is_separator(written[0])) {
        int n = snprintf(out, cap, "%s/../../%s", b->dir, written);
        if (n > 0 && (size_t)n < cap && bsync_platform_is_readable_file(out)) return BSYNC_OK;
        const char* base = bsync_platform_last_separator(written);
        n = snprintf(out, cap, "%s/../../%s", b->dir, base ? base + 1 : written);
        if (n > 0 && (size_t)n < cap && bsync_platform_is_readable_file(out)) return BSYNC_OK;
    }
    out[0] = '\0';
    bsync_io_set_error(err, BSYNC_NOT_FOUND,
                       "the bundle's match config \"%s\" is not found (as written, or next to the .desync folder): pass "
                       "--match CONFIG",
                       written);
    return BSYNC_NOT_FOUND;
}

bsync_result bsync_desync_bundle_inputs_parse(const char* text, size_t len, const char* name, const bsync_match_desc* d,
                                              uint32_t first, uint32_t count, bsync_match_frame* frames,
                                              const bsync_allocator* allocator, bsync_error* err) {
    if (!d || (!text && len) || (!frames && count)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_inputs_parse: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    if (!name) name = "inputs.csv";
    bsync_allocator a = bsync_allocator_resolve(allocator);
    const size_t seen_size = (size_t)count * d->player_count + 1u;
    const size_t data_size = len + 1u;
    uint8_t* seen = bsync_allocator_alloc(&a, seen_size);
    char* data = bsync_allocator_alloc(&a, data_size); /* a copy to cut into cells */
    if (!seen || !data) {
        bsync_allocator_free(&a, seen, seen_size);
        bsync_allocator_free(&a, data, data_size);
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        return BSYNC_OUT_OF_MEMORY;
    }
    memset(seen, 0, seen_size);
    if (len) memcpy(data, text, len);
    data[len] = '\0';
    if (count) memset(frames, 0, (size_t)count * sizeof *frames);
    for (uint32_t f = 0; f < count; f++) frames[f].player_count = d->player_count;
    const uint32_t want = 3u + d->param_count + d->trigger_count;
    bsync_result rc = BSYNC_OK;
    unsigned line_no = 0;
    char* next = data;
    while (rc == BSYNC_OK && next) {
        /* the next non-empty line (as strtok on "\n" would give it) */
        while (*next == '\n') next++;
        if (!*next) break;
        char* line = next;
        char* nl = strchr(line, '\n');
        if (nl) {
            *nl = '\0';
            next = nl + 1;
        } else {
            next = NULL;
        }
        line_no++;
        size_t ll = strlen(line);
        if (ll && line[ll - 1] == '\r') line[--ll] = '\0';
        char* cells[3 + BSYNC_MATCH_MAX_PARAMS + BSYNC_MATCH_MAX_TRIGGERS];
        uint32_t nc = 0;
        for (char* c = line; nc < 3u + BSYNC_MATCH_MAX_PARAMS + BSYNC_MATCH_MAX_TRIGGERS;) {
            cells[nc++] = c;
            char* comma = strchr(c, ',');
            if (!comma) break;
            *comma = '\0';
            c = comma + 1;
        }
        if (nc != want) {
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%u: %u columns, the match's inputs need %u", name, line_no, nc, want);
            rc = BSYNC_CONFIG_ERROR;
            break;
        }
        if (line_no == 1) continue; /* the header */
        char* end = NULL;
        unsigned long t = strtoul(cells[0], &end, 10), sl = strtoul(cells[1], NULL, 10);
        if (!end || *end || sl >= d->player_count) {
            bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%u: bad tick or slot", name, line_no);
            rc = BSYNC_CONFIG_ERROR;
            break;
        }
        if (t < first || t - first >= count) continue;
        bsync_match_input* in = &frames[t - first].players[sl];
        for (uint32_t i = 0; i < d->param_count && rc == BSYNC_OK; i++)
            if (bsync_fx_parse(cells[3 + i], strlen(cells[3 + i]), &in->params[i]) != BSYNC_OK) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%u: parameter %u: \"%s\" is not a fix16 decimal", name, line_no, i,
                                   cells[3 + i]);
                rc = BSYNC_CONFIG_ERROR;
            }
        for (uint32_t j = 0; j < d->trigger_count && rc == BSYNC_OK; j++) {
            unsigned long v = strtoul(cells[3 + d->param_count + j], &end, 10);
            if (!end || *end || v > 255) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s:%u: trigger %u: bad value", name, line_no, j);
                rc = BSYNC_CONFIG_ERROR;
            }
            in->triggers[j] = (uint8_t)v;
        }
        seen[(size_t)(t - first) * d->player_count + sl] = 1;
    }
    for (uint32_t f = 0; f < count && rc == BSYNC_OK; f++)
        for (uint32_t pl = 0; pl < d->player_count && rc == BSYNC_OK; pl++)
            if (!seen[(size_t)f * d->player_count + pl]) {
                bsync_io_set_error(err, BSYNC_CONFIG_ERROR, "%s has no input for tick %u slot %u", name, first + f, pl);
                rc = BSYNC_CONFIG_ERROR;
            }
    bsync_allocator_free(&a, seen, seen_size);
    bsync_allocator_free(&a, data, data_size);
    if (rc == BSYNC_OK) bsync_io_set_error(err, BSYNC_OK, "%s", "");
    return rc;
}

size_t bsync_desync_bundle_inputs_rows(const char* text, size_t len) {
    size_t lines = 0;
    int in_line = 0;
    for (size_t i = 0; text && i < len; i++) {
        if (text[i] == '\n') {
            lines += (size_t)in_line;
            in_line = 0;
        } else if (text[i] != '\r') {
            in_line = 1;
        }
    }
    lines += (size_t)in_line;
    return lines > 0 ? lines - 1 : 0;
}

/* A whole file, or an error "cannot read PATH: <errno text>". */
static bsync_result read_all(const char* path, unsigned char** data, size_t* len, bsync_error* err) {
    bsync_io_file_status fs;
    memset(&fs, 0, sizeof fs);
    bsync_result r = bsync_io_read_file(path, data, len, &fs);
    if (r != BSYNC_OK)
        bsync_io_set_error(err, BSYNC_IO_ERROR, "cannot read %s: %s", path, fs.sys_errno ? strerror(fs.sys_errno) : bsync_result_string(r));
    return r == BSYNC_OK ? BSYNC_OK : BSYNC_IO_ERROR;
}

static bsync_result load_bytes(bsync_match* m, const char* path, const unsigned char* data, size_t len, bsync_error* err) {
    bsync_result r = bsync_match_load(m, data, len);
    if (r == BSYNC_MISMATCH) {
        bsync_io_set_error(err, r, "%s is a snapshot of another match (its match hash differs from the config's)", path);
        return r;
    }
    if (r != BSYNC_OK) {
        bsync_io_set_error(err, r, "%s is not a valid match snapshot (%s)", path, bsync_result_string(r));
        return r;
    }
    bsync_io_set_error(err, BSYNC_OK, "%s", "");
    return BSYNC_OK;
}

bsync_result bsync_desync_bundle_load_state(bsync_match* m, const char* path, bsync_error* err) {
    if (!m || !path) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_load_state: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    unsigned char* data = NULL;
    size_t len = 0;
    if (read_all(path, &data, &len, err) != BSYNC_OK) return BSYNC_IO_ERROR;
    bsync_result r = load_bytes(m, path, data, len, err);
    free(data);
    return r;
}

bsync_result bsync_desync_bundle_trace_memory(const bsync_desync_bundle* b, const bsync_match_config* cfg, bsync_match* work,
                                              bsync_match* other, const uint8_t* server_final, size_t server_final_len,
                                              const uint8_t* previous, size_t previous_len, const uint8_t* trail_bytes,
                                              size_t trail_len, const char* csv, size_t csv_len,
                                              const bsync_allocator* allocator, bsync_desync_trace_result* res, char* out,
                                              size_t cap, int* reproduced, bsync_error* err) {
    if (!b || !work || !other || !server_final || !res || !reproduced || (!previous && previous_len) ||
        (!trail_bytes && trail_len) || (!csv && csv_len)) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_trace: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    memset(res, 0, sizeof *res);
    *reproduced = 0;
    bsync_allocator a = bsync_allocator_resolve(allocator);
    const bsync_match_desc* desc = bsync_match_get_desc(work);
    bsync_match_frame* frames = NULL;
    size_t frames_size = 0;
    uint8_t* buf = NULL;
    size_t buf_cap = 0;
    bsync_result rc;
    bsync_trail trail;
    bsync_error terr;
    memset(&terr, 0, sizeof terr);
    if (bsync_trail_parse(trail_bytes, trail_len, &trail, &terr) != BSYNC_OK) {
        bsync_io_set_error(err, BSYNC_BAD_BLOB, "%.600s: %.500s", b->client_trail, terr.message);
        rc = BSYNC_BAD_BLOB;
        goto out;
    }
    rc = load_bytes(work, b->server_previous, previous, previous_len, err);
    if (rc != BSYNC_OK) goto out;
    const uint32_t start = (uint32_t)bsync_match_tick_count(work);
    if (bsync_match_load(other, server_final, server_final_len) != BSYNC_OK) {
        bsync_io_set_error(err, BSYNC_MISMATCH, "the server's state does not load");
        rc = BSYNC_MISMATCH;
        goto out;
    }
    const uint32_t end = (uint32_t)bsync_match_tick_count(other);
    if (end < start) {
        bsync_io_set_error(err, BSYNC_MISMATCH, "server-previous.bsms is newer than server.bsms");
        rc = BSYNC_MISMATCH;
        goto out;
    }
    /* The frames to re-simulate are bounded by the bundle's own inputs (one row per tick and slot), so
     * a server.bsms whose tick lies far beyond them is refused before anything is sized by it. */
    const size_t rows = bsync_desync_bundle_inputs_rows(csv ? csv : "", csv_len);
    if ((uint64_t)(end - start) * desc->player_count > (uint64_t)rows) {
        bsync_io_set_error(err, BSYNC_LIMIT_EXCEEDED,
                           "server.bsms is the state after frame %lld but server-previous.bsms the state at the start of "
                           "tick %u: %u frames, and inputs.csv holds %zu rows (%u players a frame)",
                           (long long)end - 1, start, end - start, rows, desc->player_count);
        rc = BSYNC_LIMIT_EXCEEDED;
        goto out;
    }
    frames_size = ((size_t)(end - start) + 1u) * sizeof *frames;
    frames = bsync_allocator_alloc(&a, frames_size);
    buf_cap = bsync_match_snapshot_size_max(work);
    buf = bsync_allocator_alloc(&a, buf_cap ? buf_cap : 1);
    if (!frames || !buf) {
        bsync_io_set_error(err, BSYNC_OUT_OF_MEMORY, "out of memory");
        rc = BSYNC_OUT_OF_MEMORY;
        goto out;
    }
    rc = bsync_desync_bundle_inputs_parse(csv ? csv : "", csv_len, b->inputs, desc, start, end - start, frames, &a, err);
    if (rc != BSYNC_OK) goto out;
    bsync_desync_trace(work, other, cfg, frames, end - start, &trail, res, out, cap);
    size_t sl = 0;
    *reproduced = bsync_match_save(work, buf, buf_cap, &sl) == BSYNC_OK && sl == server_final_len &&
                  memcmp(buf, server_final, sl) == 0;
    bsync_io_set_error(err, BSYNC_OK, "%s", "");
out:
    bsync_allocator_free(&a, frames, frames_size);
    bsync_allocator_free(&a, buf, buf_cap ? buf_cap : 1);
    return rc;
}

bsync_result bsync_desync_bundle_trace(const bsync_desync_bundle* b, const bsync_match_config* cfg, bsync_match* work,
                                       bsync_match* other, const uint8_t* server_final, size_t server_final_len,
                                       const bsync_allocator* allocator, bsync_desync_trace_result* res, char* out,
                                       size_t cap, int* reproduced, bsync_error* err) {
    if (!b || !work || !other || !server_final || !res || !reproduced) {
        bsync_io_set_error(err, BSYNC_INVALID_ARGUMENT, "bsync_desync_bundle_trace: NULL argument");
        return BSYNC_INVALID_ARGUMENT;
    }
    memset(res, 0, sizeof *res);
    *reproduced = 0;
    if (!bsync_platform_is_readable_file(b->client_trail)) return BSYNC_NOT_FOUND;
    unsigned char* trail_bytes = NULL;
    unsigned char* previous = NULL;
    unsigned char* csv = NULL;
    size_t trail_len = 0, previous_len = 0, csv_len = 0;
    bsync_result rc = read_all(b->client_trail, &trail_bytes, &trail_len, err);
    if (rc == BSYNC_OK) rc = read_all(b->server_previous, &previous, &previous_len, err);
    if (rc == BSYNC_OK) rc = read_all(b->inputs, &csv, &csv_len, err);
    if (rc == BSYNC_OK)
        rc = bsync_desync_bundle_trace_memory(b, cfg, work, other, server_final, server_final_len, previous, previous_len,
                                              trail_bytes, trail_len, (const char*)csv, csv_len, allocator, res, out, cap,
                                              reproduced, err);
    free(trail_bytes);
    free(previous);
    free(csv);
    return rc;
}
