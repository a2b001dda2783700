/* replay_sim.c — a replay's match in heap memory and the CLI's output helpers (see replay_sim.h). */
#include "replay_sim.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


int replay_sim_open(replay_sim* s, const bsync_match_config* cfg, char* msg, size_t msg_cap) {
    memset(s, 0, sizeof *s);
    s->cfg = cfg;
    s->desc = bsync_match_config_desc(cfg);
    size_t size = bsync_match_memory_size(s->desc);
    if (size == 0) {
        snprintf(msg, msg_cap, "the match description is invalid");
        return -1;
    }
    for (int i = 0; i < 2; i++) s->mem[i] = malloc(size);
    if (!s->mem[0] || !s->mem[1] || bsync_match_init(s->mem[0], size, s->desc, &s->match) != BSYNC_OK ||
        bsync_match_init(s->mem[1], size, s->desc, &s->other) != BSYNC_OK) {
        snprintf(msg, msg_cap, "cannot set up the match (%zu bytes)", size);
        replay_sim_close(s);
        return -1;
    }
    s->buf_cap = bsync_match_snapshot_size_max(s->match);
    s->buf = malloc(s->buf_cap ? s->buf_cap : 1);
    if (!s->buf) {
        snprintf(msg, msg_cap, "out of memory");
        replay_sim_close(s);
        return -1;
    }
    return 0;
}

void replay_sim_close(replay_sim* s) {
    free(s->mem[0]);
    free(s->mem[1]);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

int replay_sim_find_snapshot(const char* path, uint32_t limit, uint32_t* tick) {
    bsync_replay_reader* r = NULL;
    bsync_error err;
    if (bsync_replay_reader_open_file(path, &r, &err) != BSYNC_OK) return 0;
    static bsync_replay_record rec;
    int found = 0;
    while (bsync_replay_reader_next(r, &rec, NULL, 0) == BSYNC_REPLAY_OK) {
        if (rec.type == BSYNC_REPLAY_SNAPSHOT && rec.snapshot.tick <= limit && (!found || rec.snapshot.tick >= *tick)) {
            *tick = rec.snapshot.tick;
            found = 1;
        }
    }
    bsync_replay_reader_close(r);
    return found;
}

int replay_read_file(const char* path, uint8_t** out, size_t* len) {
    *out = NULL;
    *len = 0;
    FILE* f = fopen(path, "rb");
    if (!f) return -1;
    size_t cap = 4096, n = 0;
    uint8_t* buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        uint8_t* nb = cap > ((size_t)1 << 30) ? NULL : realloc(buf, cap * 2 + 1);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int e = !buf ? ENOMEM : ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (e) {
        free(buf);
        errno = e;
        return -1;
    }
    buf[n] = 0;
    *out = buf;
    *len = n;
    return 0;
}


cJSON* replay_lines_json(cJSON* parent, const char* key, const char* text, int only_indented) {
    cJSON* list = bsync_cli_json_add(parent, key, cJSON_CreateArray());
    const char* p = text;
    char line[1024];
    while (*p) {
        const char* e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (!only_indented || (n >= 2 && p[0] == ' ' && p[1] == ' ')) {
            size_t skip = only_indented ? 2 : 0;
            size_t m = n - skip < sizeof line - 1 ? n - skip : sizeof line - 1;
            memcpy(line, p + skip, m);
            line[m] = '\0';
            bsync_cli_json_str(list, NULL, line);
        }
        p += n + (e ? 1 : 0);
    }
    return list;
}
