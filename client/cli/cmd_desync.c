/* cmd_desync.c — `blendsync desync diff`: load two match snapshots (bsync_match_save bytes, e.g. a desync
 * bundle's server.bsms and client.bsms) and say where they differ (bsync_desync_describe).
 * docs/replay-verify.md.
 *
 * Exit status: 0 identical, 1 they differ, 2 an error (unreadable file, not this match's snapshot, no
 * config, bad arguments). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blendsync/fixed.h"
#include "blendsync/io/desync.h"
#include "blendsync/io/trail.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay_verify.h"
#include "blendsync/match.h"
#include "commands.h"
#include "replay_sim.h"

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync desync diff A.bsms B.bsms --match CONFIG [--json]\n"
            "       blendsync desync diff A.bsms REPLAY.bsreplay [--tick T] [--match CONFIG] [--json]\n"
            "       blendsync desync diff BUNDLE_DIR [--match CONFIG] [--json]\n"
            "\n"
            "Loads two snapshots of one match (bsync_match_save bytes) and lists, per character whose state\n"
            "differs, the parameters, nodes and leaf weights that differ (A's value first). A desync bundle\n"
            "directory (written by blendsync-server: bundle.json, server.bsms, client.bsms) names its own\n"
            "match config; A is then the server's state (authoritative), B the client's. When the bundle holds\n"
            "the client's per-tick states (client-trail.bstrail), the match is re-simulated from\n"
            "server-previous.bsms with inputs.csv, and the first divergent tick and the operation that\n"
            "diverged (input, parameter filter, weights, cycle length, clock advance) are named.\n"
            "A snapshot against a replay: the replay is re-simulated (from its start or its newest snapshot\n"
            "before the tick) to the state after frame T (default: A's own tick) and compared with A.\n"
            "  --match CONFIG   the match config (required for two snapshot files; overrides bundle.json's\n"
            "                   or the replay's recorded one)\n"
            "  --tick T         with a replay: compare at the state after frame T\n"
            "  --json           {\"differences\": [...], \"tick\": N, ...}\n"
            "Exit status: 0 identical, 1 different, 2 error.\n");
}

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

static int is_dir(const char* path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int readable(const char* path) { return access(path, R_OK) == 0 && !is_dir(path); }

/* The bundle's match config path: as written (relative to the server's working directory), else
 * relative to the directory holding the "<replay>.desync" folder, else its file name there. */
static int resolve_config(const char* bundle, const char* written, char* out, size_t cap) {
    if (readable(written)) {
        snprintf(out, cap, "%s", written);
        return 0;
    }
    if (written[0] == '/') return -1;
    int n = snprintf(out, cap, "%s/../../%s", bundle, written);
    if (n > 0 && (size_t)n < cap && readable(out)) return 0;
    const char* base = strrchr(written, '/');
    n = snprintf(out, cap, "%s/../../%s", bundle, base ? base + 1 : written);
    return n > 0 && (size_t)n < cap && readable(out) ? 0 : -1;
}

static int load_snapshot(bsync_match* m, const char* path, char* msg, size_t cap) {
    uint8_t* data = NULL;
    size_t len = 0;
    if (replay_read_file(path, &data, &len) != 0) {
        snprintf(msg, cap, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    bsync_result r = bsync_match_load(m, data, len);
    free(data);
    if (r == BSYNC_MISMATCH) {
        snprintf(msg, cap, "%s is a snapshot of another match (its match hash differs from the config's)", path);
        return -1;
    }
    if (r != BSYNC_OK) {
        snprintf(msg, cap, "%s is not a valid match snapshot (%s)", path, bsync_result_string(r));
        return -1;
    }
    return 0;
}

/* Frames [first, first + count) of a bundle's inputs.csv (tick,slot,defaulted,<params>,<triggers>: one
 * row per tick and slot, decimals that are exact fix16 values). 0, or -1 with msg. */
static int read_inputs(const char* path, const bsync_match_desc* d, uint32_t first, uint32_t count,
                       bsync_match_frame* frames, char* msg, size_t cap) {
    uint8_t* data = NULL;
    size_t len = 0;
    if (replay_read_file(path, &data, &len) != 0) {
        snprintf(msg, cap, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    uint8_t* seen = calloc((size_t)count * d->player_count + 1u, 1);
    if (!seen) {
        free(data);
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    memset(frames, 0, (size_t)count * sizeof *frames);
    for (uint32_t f = 0; f < count; f++) frames[f].player_count = d->player_count;
    const uint32_t want = 3u + d->param_count + d->trigger_count;
    int rc = 0;
    unsigned line_no = 0;
    char* save = NULL;
    for (char* line = strtok_r((char*)data, "\n", &save); line && rc == 0; line = strtok_r(NULL, "\n", &save)) {
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
            snprintf(msg, cap, "%s:%u: %u columns, the match's inputs need %u", path, line_no, nc, want);
            rc = -1;
            break;
        }
        if (line_no == 1) continue; /* the header */
        char* end = NULL;
        unsigned long t = strtoul(cells[0], &end, 10), sl = strtoul(cells[1], NULL, 10);
        if (!end || *end || sl >= d->player_count) {
            snprintf(msg, cap, "%s:%u: bad tick or slot", path, line_no);
            rc = -1;
            break;
        }
        if (t < first || t - first >= count) continue;
        bsync_match_input* in = &frames[t - first].players[sl];
        for (uint32_t i = 0; i < d->param_count && rc == 0; i++)
            if (bsync_fx_parse(cells[3 + i], strlen(cells[3 + i]), &in->params[i]) != BSYNC_OK) {
                snprintf(msg, cap, "%s:%u: parameter %u: \"%s\" is not a fix16 decimal", path, line_no, i, cells[3 + i]);
                rc = -1;
            }
        for (uint32_t j = 0; j < d->trigger_count && rc == 0; j++) {
            unsigned long v = strtoul(cells[3 + d->param_count + j], &end, 10);
            if (!end || *end || v > 255) {
                snprintf(msg, cap, "%s:%u: trigger %u: bad value", path, line_no, j);
                rc = -1;
            }
            in->triggers[j] = (uint8_t)v;
        }
        seen[(size_t)(t - first) * d->player_count + sl] = 1;
    }
    for (uint32_t f = 0; f < count && rc == 0; f++)
        for (uint32_t pl = 0; pl < d->player_count && rc == 0; pl++)
            if (!seen[(size_t)f * d->player_count + pl]) {
                snprintf(msg, cap, "%s has no input for tick %u slot %u", path, first + f, pl);
                rc = -1;
            }
    free(seen);
    free(data);
    return rc;
}

/* Data rows of a CSV file (its lines after the header, blank lines not counted); -1 when unreadable. */
static long csv_rows(const char* path) {
    uint8_t* data = NULL;
    size_t len = 0;
    if (replay_read_file(path, &data, &len) != 0) return -1;
    long lines = 0;
    int in_line = 0;
    for (size_t i = 0; i < len; i++) {
        if (data[i] == '\n') {
            lines += in_line;
            in_line = 0;
        } else if (data[i] != '\r') {
            in_line = 1;
        }
    }
    lines += in_line;
    free(data);
    return lines > 0 ? lines - 1 : 0;
}

/* The bundle's trace (bsync_desync_trace): server-previous.bsms + inputs.csv re-simulated against
 * client-trail.bstrail. 1 traced (text in out, *res), 0 the bundle has no trail, -1 error (msg). */
static int bundle_trace(const char* dir, replay_sim* sim, const bsync_match_config* cfg, const uint8_t* server_final,
                        size_t server_final_len, bsync_desync_trace_result* res, char* out, size_t cap, int* reproduced,
                        char* msg, size_t msg_cap) {
    char path[1300];
    snprintf(path, sizeof path, "%s/client-trail.bstrail", dir);
    if (!readable(path)) return 0;
    uint8_t* trail_bytes = NULL;
    size_t trail_len = 0;
    if (replay_read_file(path, &trail_bytes, &trail_len) != 0) {
        snprintf(msg, msg_cap, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    bsync_trail trail;
    bsync_error err;
    int rc = -1;
    bsync_match_frame* frames = NULL;
    if (bsync_trail_parse(trail_bytes, trail_len, &trail, &err) != BSYNC_OK) {
        snprintf(msg, msg_cap, "%.600s: %.500s", path, err.message);
        goto out;
    }
    snprintf(path, sizeof path, "%s/server-previous.bsms", dir);
    if (load_snapshot(sim->match, path, msg, msg_cap) != 0) goto out;
    const uint32_t start = (uint32_t)bsync_match_tick_count(sim->match);
    if (bsync_match_load(sim->other, server_final, server_final_len) != BSYNC_OK) {
        snprintf(msg, msg_cap, "the server's state does not load");
        goto out;
    }
    const uint32_t end = (uint32_t)bsync_match_tick_count(sim->other);
    if (end < start) {
        snprintf(msg, msg_cap, "server-previous.bsms is newer than server.bsms");
        goto out;
    }
    /* The frames to re-simulate are bounded by the bundle's own inputs (one row per tick and slot), so
     * a server.bsms whose tick lies far beyond them is refused before anything is sized by it. */
    snprintf(path, sizeof path, "%s/inputs.csv", dir);
    const long rows = csv_rows(path);
    if (rows < 0) {
        snprintf(msg, msg_cap, "cannot read %s: %s", path, strerror(errno));
        goto out;
    }
    if ((uint64_t)(end - start) * sim->desc->player_count > (uint64_t)rows) {
        snprintf(msg, msg_cap,
                 "server.bsms is the state after frame %lld but server-previous.bsms the state at the start of "
                 "tick %u: %u frames, and inputs.csv holds %ld rows (%u players a frame)",
                 (long long)end - 1, start, end - start, rows, sim->desc->player_count);
        goto out;
    }
    frames = malloc(((size_t)(end - start) + 1u) * sizeof *frames);
    if (!frames) {
        snprintf(msg, msg_cap, "out of memory");
        goto out;
    }
    if (read_inputs(path, sim->desc, start, end - start, frames, msg, msg_cap) != 0) goto out;
    bsync_desync_trace(sim->match, sim->other, cfg, frames, end - start, &trail, res, out, cap);
    size_t sl = 0;
    *reproduced = bsync_match_save(sim->match, sim->buf, sim->buf_cap, &sl) == BSYNC_OK && sl == server_final_len &&
                  memcmp(sim->buf, server_final, sl) == 0;
    rc = 1;
out:
    free(frames);
    free(trail_bytes);
    return rc;
}

/* Is the file a replay (its first 8 bytes are the replay magic, docs/replay.md)? */
static int is_replay_file(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return 0;
    char m[8];
    int ok = fread(m, 1, 8, f) == 8 && memcmp(m, "BSRPLY\r\n", 8) == 0;
    fclose(f);
    return ok;
}

static bsync_replay_record g_drec; /* large: not on the stack */

/* Re-simulates the replay at `path` into m up to the state at the start of tick `target` (the state
 * after frame target - 1): from its first state, fast-forwarding through SNAPSHOT records at or before
 * the target. 0, or -1 with msg. */
static int replay_state_at(bsync_replay_reader* rd, bsync_match* m, uint32_t target, const char* path, char* msg,
                           size_t cap) {
    const bsync_replay_header* h = bsync_replay_reader_header(rd);
    int have = h->start_tick == 0; /* a fresh match starts in its initial state */
    char detail[200];
    bsync_replay_status st;
    while ((!have || bsync_match_tick_count(m) < target) &&
           (st = bsync_replay_reader_next(rd, &g_drec, detail, sizeof detail)) == BSYNC_REPLAY_OK) {
        const bsync_replay_record* r = &g_drec;
        if (r->type == BSYNC_REPLAY_SNAPSHOT && r->snapshot.tick <= target &&
            (!have || r->snapshot.tick > bsync_match_tick_count(m))) {
            if (bsync_match_load(m, r->snapshot.data, r->snapshot.len) != BSYNC_OK) {
                snprintf(msg, cap, "%s: the SNAPSHOT of tick %u does not load", path, r->snapshot.tick);
                return -1;
            }
            have = 1;
        } else if (r->type == BSYNC_REPLAY_FRAME && have && r->frame.tick == bsync_match_tick_count(m)) {
            if (bsync_match_tick(m, &r->frame.inputs) != BSYNC_OK) {
                snprintf(msg, cap, "%s: the FRAME of tick %u does not apply", path, r->frame.tick);
                return -1;
            }
        }
    }
    if (!have || bsync_match_tick_count(m) != target) {
        snprintf(msg, cap, "%s holds no state after frame %lld (its frames end at tick %llu)", path, (long long)target - 1,
                 have ? (unsigned long long)bsync_match_tick_count(m) : 0ull);
        return -1;
    }
    return 0;
}

static int cmd_diff(int argc, char** argv) {
    const char* pos[3] = {NULL, NULL, NULL};
    int npos = 0, json = 0;
    const char* match_path = NULL;
    long long at_tick = -1; /* --tick T: the replay's state after frame T */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json")) json = 1;
        else if (!strcmp(argv[i], "--match") && i + 1 < argc) match_path = argv[++i];
        else if (!strcmp(argv[i], "--tick") && i + 1 < argc) {
            char* end = NULL;
            at_tick = strtoll(argv[++i], &end, 10);
            if (!end || *end || at_tick < 0 || at_tick >= 0xFFFFFFFFll) {
                fprintf(stderr, "blendsync desync diff: --tick: expected a frame number, got \"%s\"\n", argv[i]);
                return 2;
            }
        }
        else if (argv[i][0] != '-' && npos < 2) pos[npos++] = argv[i];
        else {
            fprintf(stderr, "blendsync desync diff: unknown or extra argument \"%s\"\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    char msg[1600] = "";
    char a_path[1200], b_path[1200], cfg_path[1200];
    char a_label[64] = "A", b_label[64] = "B";
    long long bundle_slot = -1;
    int bundle = 0;
    bsync_match_config* cfg = NULL;
    replay_sim sim;
    int have_sim = 0, rc = 2;
    unsigned lines = 0;
    char* text = NULL;
    char* trace_text = NULL;
    bsync_replay_reader* rd = NULL;
    int replay_mode = npos == 2 && is_replay_file(pos[1]);
    if (replay_mode) {
        /* a dump (A) against a replay re-simulated to A's tick or --tick (B) */
        bsync_error rerr;
        if (bsync_replay_reader_open_file(pos[1], &rd, &rerr) != BSYNC_OK) {
            snprintf(msg, sizeof msg, "cannot read %s: %s", pos[1], rerr.message);
            goto done;
        }
        char detail[200];
        bsync_replay_status st = bsync_replay_reader_next(rd, &g_drec, detail, sizeof detail);
        if (st != BSYNC_REPLAY_OK) {
            snprintf(msg, sizeof msg, "%s: not a readable replay (%s)", pos[1], detail);
            goto done;
        }
        char used[1400];
        if (bsync_replay_verify_config_load(bsync_replay_reader_header(rd), pos[1], match_path, NULL, NULL, &cfg, used,
                                            sizeof used, &rerr) != BSYNC_OK) {
            snprintf(msg, sizeof msg, "%s", rerr.message);
            goto done;
        }
        snprintf(cfg_path, sizeof cfg_path, "%.1000s", used);
        snprintf(a_path, sizeof a_path, "%s", pos[0]);
        snprintf(b_path, sizeof b_path, "%s", pos[1]);
        snprintf(a_label, sizeof a_label, "dump");
        if (replay_sim_open(&sim, cfg, msg, sizeof msg) != 0) goto done;
        have_sim = 1;
        if (load_snapshot(sim.match, a_path, msg, sizeof msg) != 0) goto done;
        uint64_t target = at_tick >= 0 ? (uint64_t)at_tick + 1u : bsync_match_tick_count(sim.match);
        if (target > 0xFFFFFFFFu || replay_state_at(rd, sim.other, (uint32_t)target, pos[1], msg, sizeof msg) != 0)
            goto done;
        snprintf(b_label, sizeof b_label, "replay, re-simulated");
    } else if (npos == 1 && is_dir(pos[0])) {
        bundle = 1;
        static char dir[1024]; /* the directory without trailing slashes */
        snprintf(dir, sizeof dir, "%s", pos[0]);
        for (size_t n = strlen(dir); n > 1 && dir[n - 1] == '/'; n--) dir[n - 1] = '\0';
        pos[0] = dir;
        char meta_path[1200];
        snprintf(meta_path, sizeof meta_path, "%s/bundle.json", pos[0]);
        uint8_t* meta = NULL;
        size_t meta_len = 0;
        char srv[512], cli[512], written[1024];
        if (replay_read_file(meta_path, &meta, &meta_len) != 0) {
            snprintf(msg, sizeof msg, "cannot read %s: %s", meta_path, strerror(errno));
            goto done;
        }
        if (json_string_field((const char*)meta, "server", srv, sizeof srv) != 0) snprintf(srv, sizeof srv, "server.bsms");
        if (json_string_field((const char*)meta, "client", cli, sizeof cli) != 0) snprintf(cli, sizeof cli, "client.bsms");
        int have_written = json_string_field((const char*)meta, "match_config", written, sizeof written) == 0;
        json_int_field((const char*)meta, "slot", &bundle_slot);
        free(meta);
        if (snprintf(a_path, sizeof a_path, "%s/%s", pos[0], srv) >= (int)sizeof a_path ||
            snprintf(b_path, sizeof b_path, "%s/%s", pos[0], cli) >= (int)sizeof b_path) {
            snprintf(msg, sizeof msg, "%s: a state file's path is too long", meta_path);
            goto done;
        }
        snprintf(a_label, sizeof a_label, "server (authoritative)");
        if (bundle_slot >= 0) snprintf(b_label, sizeof b_label, "client (slot %lld)", bundle_slot);
        else snprintf(b_label, sizeof b_label, "client");
        if (match_path) snprintf(cfg_path, sizeof cfg_path, "%s", match_path);
        else if (!have_written) {
            snprintf(msg, sizeof msg, "%s names no match_config: pass --match CONFIG", meta_path);
            goto done;
        } else if (resolve_config(pos[0], written, cfg_path, sizeof cfg_path) != 0) {
            snprintf(msg, sizeof msg,
                     "the bundle's match config \"%s\" is not found (as written, or next to the .desync folder): pass "
                     "--match CONFIG",
                     written);
            goto done;
        }
    } else if (npos == 2) {
        if (at_tick >= 0) {
            snprintf(msg, sizeof msg, "--tick needs a replay as the second file");
            goto done;
        }
        if (!match_path) {
            snprintf(msg, sizeof msg, "two snapshot files need --match CONFIG");
            goto done;
        }
        snprintf(a_path, sizeof a_path, "%s", pos[0]);
        snprintf(b_path, sizeof b_path, "%s", pos[1]);
        snprintf(cfg_path, sizeof cfg_path, "%s", match_path);
    } else {
        snprintf(msg, sizeof msg, "expected A B (two snapshot files) or one bundle directory");
        goto done;
    }
    if (!replay_mode) {
        bsync_error err;
        if (bsync_match_config_load(cfg_path, NULL, &cfg, &err) != BSYNC_OK) {
            snprintf(msg, sizeof msg, "%s", err.message);
            goto done;
        }
        if (replay_sim_open(&sim, cfg, msg, sizeof msg) != 0) goto done;
        have_sim = 1;
        if (load_snapshot(sim.match, a_path, msg, sizeof msg) != 0 || load_snapshot(sim.other, b_path, msg, sizeof msg) != 0)
            goto done;
    }
    text = malloc(65536);
    if (!text) {
        snprintf(msg, sizeof msg, "out of memory");
        goto done;
    }
    lines = bsync_desync_describe(sim.match, sim.other, cfg, text, 65536);
    uint64_t ta = bsync_match_tick_count(sim.match), tb = bsync_match_tick_count(sim.other);
    /* a bundle with the client's trail: the first divergent tick and operation */
    int traced = 0, reproduced = 0;
    bsync_desync_trace_result tres;
    memset(&tres, 0, sizeof tres);
    if (bundle && lines) {
        uint8_t* final_bytes = NULL;
        size_t final_len = 0;
        trace_text = malloc(32768);
        if (trace_text && replay_read_file(a_path, &final_bytes, &final_len) == 0) {
            char tmsg[1600] = "";
            traced = bundle_trace(pos[0], &sim, cfg, final_bytes, final_len, &tres, trace_text, 32768, &reproduced, tmsg,
                                  sizeof tmsg);
            if (traced < 0) snprintf(trace_text, 32768, "  trace not possible: %s\n", tmsg);
        }
        free(final_bytes);
    }
    if (json) {
        printf("{\"a\": ");
        replay_json_string(stdout, a_path);
        printf(", \"b\": ");
        replay_json_string(stdout, b_path);
        printf(", \"a_is\": ");
        replay_json_string(stdout, bundle ? "server" : replay_mode ? "dump" : "A");
        printf(", \"b_is\": ");
        replay_json_string(stdout, bundle ? "client" : replay_mode ? "replay" : "B");
        printf(", \"slot\": ");
        if (bundle && bundle_slot >= 0) printf("%lld", bundle_slot);
        else printf("null");
        printf(", \"match_config\": ");
        replay_json_string(stdout, cfg_path);
        printf(", \"match_id\": %" PRIu64 ", \"tick\": ", bsync_match_config_match_id(cfg));
        if (ta > 0) printf("%" PRIu64, ta - 1);
        else printf("null");
        printf(", \"state_ticks\": [%" PRIu64 ", %" PRIu64 "], \"identical\": %s, \"differences\": ", ta, tb,
               lines ? "false" : "true");
        if (lines) replay_lines_json(stdout, text, 1);
        else printf("[]");
        printf(", \"first_divergence\": ");
        if (traced == 1 && tres.located) {
            printf("{\"tick\": %u, \"character\": %u, \"operation\": %d, \"before_trail\": %s, \"lines\": ", tres.tick - 1,
                   tres.character, tres.operation, tres.earlier ? "true" : "false");
            replay_lines_json(stdout, trace_text, 1);
            printf(", \"resimulation_reproduces_server\": %s}", reproduced ? "true" : "false");
        } else {
            printf("null");
        }
        printf("}\n");
    } else {
        printf("A = %s: %s (state after frame %" PRId64 ")\n", a_label, a_path, (int64_t)ta - 1);
        printf("B = %s: %s (state after frame %" PRId64 ")\n", b_label, b_path, (int64_t)tb - 1);
        printf("match %" PRIu64 " (%s)\n", bsync_match_config_match_id(cfg), cfg_path);
        if (lines) printf("differences: %u (A's value first)\n", lines);
        fputs(text, stdout);
        if (traced == 1) {
            printf("first divergence (re-simulated from server-previous.bsms with inputs.csv against the client's "
                   "per-tick states in client-trail.bstrail):\n");
            fputs(trace_text[0] ? trace_text : "  the client's trail agrees with the re-simulation at every tick it holds\n",
                  stdout);
            if (!reproduced)
                printf("  (the re-simulation here does not reproduce server.bsms: this build or its assets differ from "
                       "the server's)\n");
        } else if (traced < 0) {
            fputs(trace_text, stdout);
        }
    }
    rc = lines ? 1 : 0;
done:
    if (rc == 2) {
        if (json) {
            printf("{\"error\": ");
            replay_json_string(stdout, msg);
            printf("}\n");
        } else {
            fprintf(stderr, "blendsync desync diff: %s\n", msg);
        }
    }
    free(text);
    free(trace_text);
    bsync_replay_reader_close(rd);
    if (have_sim) replay_sim_close(&sim);
    bsync_match_config_destroy(cfg);
    return rc;
}

int bsync_cmd_desync(int argc, char** argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "diff")) return cmd_diff(argc - 1, argv + 1);
    fprintf(stderr, "blendsync desync: unknown subcommand \"%s\" (diff)\n", argv[1]);
    usage(stderr);
    return 2;
}
