/* cmd_replay.c — `blendsync replay verify | info | cut`: re-simulate a recorded match and compare its
 * checksums and snapshots, describe a replay file, cut a shorter replay out of one
 * (docs/replay-verify.md, the file format in docs/replay.md).
 *
 * Exit status: verify 0 verified (also an incomplete replay, up to its last complete record), 1 a
 * mismatch, 2 unreadable / refused / bad arguments; info 0, or 2 when unreadable or corrupt; cut 0 or 2. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blendsync/io/desync.h"
#include "../../shared/src/io/platform.h"
#include "blendsync/io/file.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/match.h"
#include "commands.h"
#include "replay_parallel.h"
#include "replay_sim.h"

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync replay verify FILE [--match CONFIG | --graph GRAPH] [--poses] [--from TICK] [--jobs N]\n"
            "                                    [--json] [--dump DIR | --no-dump]\n"
            "       blendsync replay info FILE [--json]\n"
            "       blendsync replay cut FILE --from A --to B --out OUT [--match CONFIG]\n"
            "       blendsync replay record MATCH.json --ticks N -o OUT [--seed S] [--poses]\n"
            "\n"
            "verify  rebuild the match from the replay's recorded config (graphs next to the recorded\n"
            "        config path, else next to the replay), refuse it when the match hash or an asset\n"
            "        hash differs, then re-simulate every frame and compare every checksum and snapshot.\n"
            "        --match CONFIG  use this match config instead of the recorded one\n"
            "        --graph GRAPH   the recorded match config, with every character playing this graph\n"
            "                        config (refused unless its hash is the recorded one)\n"
            "        --poses         compute every character's pose after every frame (a viewer's work);\n"
            "                        recorded pose checksums are compared with or without it\n"
            "        --from TICK     start at the newest snapshot at or before TICK\n"
            "        --jobs N        verify the segments between snapshots on N threads (a mismatch is\n"
            "                        then re-run sequentially to report and explain the first one)\n"
            "        --json          one JSON object\n"
            "        --dump DIR      on a mismatch, write the dump under DIR/tick<T>/ (default:\n"
            "                        FILE.mismatch/tick<T>/): the state at the last agreeing tick, this\n"
            "                        build's state at the mismatch (and the recorded snapshot), the inputs\n"
            "                        between them, dump.json and report.txt; --no-dump: none\n"
            "        exit 0 verified (an incomplete replay: up to its last complete record),\n"
            "        1 mismatch, 2 unreadable or refused\n"
            "info    the header, record counts, desyncs, the end, size per player-minute\n"
            "cut     a replay of ticks A..B-1: a fresh snapshot at A (simulated), the frames,\n"
            "        checksums, snapshots and desyncs of [A, B), END at B; written atomically\n"
            "record  play the match offline with the bots' seeded joysticks and write its replay\n"
            "        as the server would (blendsync replay record --help)\n");
}

static int parse_u32(const char* s, uint32_t* out) {
    if (!s || !*s || *s == '-' || *s == '+') return -1;
    char* end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !end || *end || v > UINT32_MAX) return -1;
    *out = (uint32_t)v;
    return 0;
}

static double now_seconds(void) {
    return (double)bsync_platform_now_ns() * 1e-9;
}

static bsync_replay_record g_rec; /* large (frames carry payloads): not on the stack */

/* ------------------------------------------------------------------ desync list */

typedef struct desync_list {
    bsync_replay_desync* items;
    size_t count, cap;
} desync_list;

static void desync_push(desync_list* l, const bsync_replay_desync* d) {
    if (l->count == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 16;
        bsync_replay_desync* n = realloc(l->items, nc * sizeof *n);
        if (!n) return;
        l->items = n;
        l->cap = nc;
    }
    l->items[l->count++] = *d;
}

static void desync_text(FILE* f, const bsync_replay_desync* d, const bsync_match_config* cfg) {
    fprintf(f, "  tick %u, slot %u: %s", d->tick, d->slot, replay_desync_kind(d->kind));
    if (d->character != 0xFF) {
        const char* name = cfg ? bsync_match_config_character_name(cfg, d->character) : "";
        fprintf(f, ", character %u%s%s%s", d->character, name[0] ? " (" : "", name, name[0] ? ")" : "");
    }
    if (d->part != 0xFFFF) fprintf(f, ", joint %u", d->part);
    fprintf(f, ": expected %016" PRIx64 " got %016" PRIx64 "\n", d->expected, d->got);
}

static void desync_json(FILE* f, const desync_list* l, const bsync_match_config* cfg) {
    fputc('[', f);
    for (size_t i = 0; i < l->count; i++) {
        const bsync_replay_desync* d = &l->items[i];
        fprintf(f, "%s{\"tick\": %u, \"slot\": %u, \"kind\": \"%s\", ", i ? ", " : "", d->tick, d->slot,
                replay_desync_kind(d->kind));
        if (d->character != 0xFF) {
            fprintf(f, "\"character\": %u, \"character_name\": ", d->character);
            replay_json_string(f, cfg ? bsync_match_config_character_name(cfg, d->character) : "");
        } else {
            fputs("\"character\": null, \"character_name\": null", f);
        }
        fprintf(f, ", \"expected\": \"%016" PRIx64 "\", \"got\": \"%016" PRIx64 "\"}", d->expected, d->got);
    }
    fputc(']', f);
}

/* Print the lines of a multi-line text as a JSON array (only lines starting with two spaces when
 * only_indented, without those spaces). */

static void json_error(const char* file, const char* verdict, const char* error, const char* differences) {
    printf("{\"file\": ");
    replay_json_string(stdout, file);
    printf(", \"verdict\": \"%s\", \"error\": ", verdict);
    replay_json_string(stdout, error);
    if (differences) {
        printf(", \"differences\": ");
        replay_lines_json(stdout, differences, 0);
    }
    printf("}\n");
}

/* ------------------------------------------------------------------ opening */

typedef struct opened {
    bsync_replay_reader* reader;
    const bsync_replay_header* h;
    bsync_match_config* cfg;
    replay_sim sim;
    int have_sim;
    char used[1400];
} opened;

static void opened_close(opened* o) {
    if (o->have_sim) replay_sim_close(&o->sim);
    bsync_match_config_destroy(o->cfg);
    bsync_replay_reader_close(o->reader);
    memset(o, 0, sizeof *o);
}

/* Open the file, read the header, load the config, refuse a different match, set up the match.
 * Returns 0, or 2 after reporting (text to stderr, or JSON to stdout). */
static int open_replay(const char* file, const char* match_path, const char* graph_path, int json, opened* o) {
    memset(o, 0, sizeof *o);
    bsync_error err;
    char msg[2048], detail[200];
    if (bsync_replay_reader_open_file(file, &o->reader, &err) != BSYNC_OK) {
        snprintf(msg, sizeof msg, "cannot read %s: %s", file, err.message);
        goto fail;
    }
    bsync_replay_status st = bsync_replay_reader_next(o->reader, &g_rec, detail, sizeof detail);
    if (st != BSYNC_REPLAY_OK) {
        snprintf(msg, sizeof msg, "%s: not a readable replay (%s: %s)", file, bsync_replay_status_string(st), detail);
        goto fail;
    }
    o->h = bsync_replay_reader_header(o->reader);
    if (replay_sim_config(o->h, file, match_path, graph_path, &o->cfg, o->used, sizeof o->used, msg, sizeof msg) != 0) goto fail;
    static char diff[16384];
    unsigned n = replay_sim_compare(o->h, o->cfg, graph_path && !match_path, diff, sizeof diff);
    if (n) {
        if (json) {
            json_error(file, "refused", "the replay's match differs from the one built here", diff);
        } else {
            fprintf(stderr, "blendsync replay: %s: refused: the replay's match differs from the one built here (%s):\n%s",
                    file, o->used, diff);
        }
        opened_close(o);
        return 2;
    }
    if (replay_sim_open(&o->sim, o->cfg, msg, sizeof msg) != 0) goto fail;
    o->have_sim = 1;
    return 0;
fail:
    if (json) json_error(file, "error", msg, NULL);
    else fprintf(stderr, "blendsync replay: %s\n", msg);
    opened_close(o);
    return 2;
}

/* ------------------------------------------------------------------ verify */

typedef struct verify_state {
    uint32_t first_tick;      /* where the simulation started */
    int from_snapshot;        /* started by loading a snapshot */
    uint64_t ticks;           /* frames simulated */
    uint64_t frames_skipped;  /* frames before the start snapshot */
    uint64_t checksums, pose_checksums, checksums_skipped;
    uint64_t snapshots, snapshots_skipped;
    desync_list desyncs;
    int have_end;
    bsync_replay_end end;
    bsync_replay_status stop; /* why reading stopped */
    char stop_detail[200];
    uint64_t valid_bytes;
    int mismatch;
    uint32_t mismatch_tick;
    char mismatch_what[64];
    char mismatch_text[400];
    char* describe; /* snapshot mismatch: bsync_desync_describe text */
    char error[600];
    double seconds;
    char dump_dir[1400]; /* where the mismatch dump went ("" none) */
    char dump_error[300];
} verify_state;

static void verify_print(const char* file, const opened* o, const verify_state* v, int json) {
    const bsync_replay_header* h = o->h;
    uint64_t now_tick = o->sim.match ? bsync_match_tick_count(o->sim.match) : 0;
    int incomplete = !v->have_end && (v->stop == BSYNC_REPLAY_EOF || v->stop == BSYNC_REPLAY_TRUNCATED);
    double tps = v->seconds > 0 ? (double)v->ticks / v->seconds : 0.0;
    double rt = h->tick_rate ? tps / h->tick_rate : 0.0;
    const char* verdict = v->error[0] ? "error" : v->mismatch ? "mismatch" : "verified";
    if (json) {
        printf("{\"file\": ");
        replay_json_string(stdout, file);
        printf(", \"match_id\": %" PRIu64 ", \"match_hash\": \"%016" PRIx64 "\", \"players\": %u, \"characters\": %u, "
               "\"tick_rate\": %u, \"config\": ",
               h->match_id, h->match_hash, h->player_count, h->character_count, h->tick_rate);
        replay_json_string(stdout, o->used);
        printf(", \"first_tick\": %u, \"from_snapshot\": %s, \"ticks_verified\": %" PRIu64 ", \"verified_up_to\": %" PRIu64
               ", \"frames_skipped\": %" PRIu64 ", \"checksums_compared\": %" PRIu64 ", \"pose_checksums_compared\": %" PRIu64
               ", \"checksums_skipped\": %" PRIu64 ", \"snapshots_compared\": %" PRIu64 ", \"desyncs_recorded\": %zu, "
               "\"desyncs\": ",
               v->first_tick, v->from_snapshot ? "true" : "false", v->ticks, now_tick, v->frames_skipped, v->checksums,
               v->pose_checksums, v->checksums_skipped, v->snapshots, v->desyncs.count);
        desync_json(stdout, &v->desyncs, o->cfg);
        printf(", \"complete\": %s, \"end\": ", v->have_end ? "true" : "false");
        if (v->have_end) printf("{\"ticks\": %u, \"reason\": \"%s\"}", v->end.ticks, replay_end_reason(v->end.reason));
        else printf("null");
        printf(", \"valid_bytes\": %" PRIu64 ", \"verdict\": \"%s\", \"mismatch\": ", v->valid_bytes, verdict);
        if (v->mismatch) {
            printf("{\"tick\": %u, \"what\": ", v->mismatch_tick);
            replay_json_string(stdout, v->mismatch_what);
            printf(", \"text\": ");
            replay_json_string(stdout, v->mismatch_text);
            if (v->describe) {
                printf(", \"differences\": ");
                replay_lines_json(stdout, v->describe, 1);
            }
            printf(", \"dump\": ");
            if (v->dump_dir[0]) replay_json_string(stdout, v->dump_dir);
            else printf("null");
            printf("}");
        } else {
            printf("null");
        }
        printf(", \"error\": ");
        if (v->error[0]) replay_json_string(stdout, v->error);
        else printf("null");
        printf(", \"seconds\": %.6f, \"ticks_per_second\": %.1f, \"realtime_factor\": %.1f}\n", v->seconds, tps, rt);
        return;
    }
    printf("replay: %s\n", file);
    printf("match: id %" PRIu64 ", %u players, %u characters, %u Hz, hash %016" PRIx64 "\n", h->match_id, h->player_count,
           h->character_count, h->tick_rate, h->match_hash);
    printf("config: %s\n", o->used);
    if (v->from_snapshot)
        printf("start: snapshot at tick %u (%" PRIu64 " earlier frames skipped)\n", v->first_tick, v->frames_skipped);
    if (v->ticks)
        printf("ticks verified: %" PRIu64 " (frames %u..%" PRIu64 ")\n", v->ticks, v->first_tick, now_tick - 1);
    else
        printf("ticks verified: 0\n");
    printf("checksums compared: %" PRIu64 " (%" PRIu64 " with a pose)", v->checksums, v->pose_checksums);
    if (v->checksums_skipped) printf(", %" PRIu64 " before the start skipped", v->checksums_skipped);
    printf("\nsnapshots compared: %" PRIu64 "\n", v->snapshots);
    printf("desyncs recorded: %zu%s\n", v->desyncs.count, v->desyncs.count ? " (what the server saw; not failures of the replay)" : "");
    for (size_t i = 0; i < v->desyncs.count; i++) desync_text(stdout, &v->desyncs.items[i], o->cfg);
    if (v->mismatch) {
        printf("MISMATCH at tick %u: %s\n", v->mismatch_tick, v->mismatch_text);
        if (v->describe) fputs(v->describe, stdout);
        if (v->dump_dir[0]) printf("dump: %s (previous.bsms, here.bsms%s, inputs.csv, dump.json, report.txt)\n", v->dump_dir,
                                   !strcmp(v->mismatch_what, "snapshot") ? ", recorded.bsms" : "");
        else if (v->dump_error[0]) printf("dump: not written: %s\n", v->dump_error);
        printf("verdict: mismatch (stopped at the first one)\n");
    } else if (v->error[0]) {
        printf("error: %s\n", v->error);
        printf("verdict: error (everything before it verified)\n");
    } else {
        if (incomplete)
            printf("incomplete: no END record; verified up to tick %" PRIu64 " (the last complete record ends at byte %" PRIu64
                   ")\n",
                   now_tick, v->valid_bytes);
        else if (v->have_end && v->end.ticks != now_tick)
            printf("note: END says %u ticks, the frames reach tick %" PRIu64 "\n", v->end.ticks, now_tick);
        printf("verdict: verified (every checksum and snapshot matches)%s\n", incomplete ? ", incomplete" : "");
    }
    printf("speed: %.0f ticks/s, %.1fx real time (%" PRIu64 " ticks in %.4f s)\n", tps, rt, v->ticks, v->seconds);
}

/* The FRAME records of ticks [first, end) of the replay at path, read again (a second reader, so the
 * caller's current record stays valid): the count found (frames stop at the first gap), with the
 * inputs and defaulted masks in malloc'd arrays (NULL when none). */
static uint32_t read_frames(const char* path, uint32_t first, uint32_t end, bsync_match_frame** frames,
                            uint16_t** defaulted) {
    static bsync_replay_record rec; /* large: not on the stack */
    *frames = NULL;
    *defaulted = NULL;
    if (end <= first) return 0;
    bsync_replay_reader* rd = NULL;
    bsync_error err;
    if (bsync_replay_reader_open_file(path, &rd, &err) != BSYNC_OK) return 0;
    *frames = malloc((size_t)(end - first) * sizeof **frames);
    *defaulted = malloc((size_t)(end - first) * sizeof **defaulted);
    uint32_t n = 0;
    char detail[200];
    while (*frames && *defaulted && first + n < end &&
           bsync_replay_reader_next(rd, &rec, detail, sizeof detail) == BSYNC_REPLAY_OK) {
        if (rec.type != BSYNC_REPLAY_FRAME || rec.frame.tick != first + n) continue;
        (*frames)[n] = rec.frame.inputs;
        (*defaulted)[n] = rec.frame.defaulted_mask;
        n++;
    }
    bsync_replay_reader_close(rd);
    return n;
}

/* s with JSON string escapes for '"', '\\' and control characters, into out (truncated). */
static const char* json_escaped(const char* s, char* out, size_t cap) {
    size_t n = 0;
    for (; *s && n + 7 < cap; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[n++] = '\\';
            out[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
        } else {
            out[n++] = (char)c;
        }
    }
    out[n] = '\0';
    return out;
}

/* The mismatch dump (docs/replay-verify.md "Dumps"): under parent/tick<T>/ the state at the last
 * agreeing point (previous.bsms, the start of tick prev_tick), this build's state at the mismatch
 * (here.bsms), the recorded snapshot for a snapshot mismatch (recorded.bsms), the frames between them
 * (inputs.csv), dump.json and report.txt. Every file through a temporary name and rename. */
static void write_dump(const char* file, const opened* o, verify_state* v, const char* parent, const uint8_t* prev,
                       size_t prev_len, uint32_t prev_tick, const uint8_t* here, size_t here_len, const uint8_t* recorded,
                       size_t recorded_len, const bsync_match_frame* frames, const uint16_t* defaulted, uint32_t frame_count) {
    char dir[1300], path[1400];
    if (bsync_platform_mkdir(parent) != 0) {
        snprintf(v->dump_error, sizeof v->dump_error, "cannot create %.200s: %s", parent, strerror(errno));
        return;
    }
    snprintf(dir, sizeof dir, "%s/tick%u", parent, v->mismatch_tick);
    if (bsync_platform_mkdir(dir) != 0) {
        snprintf(v->dump_error, sizeof v->dump_error, "cannot create %.200s: %s", dir, strerror(errno));
        return;
    }
    int ok = 1;
    snprintf(path, sizeof path, "%s/previous.bsms", dir);
    ok &= bsync_file_write(path, prev, prev_len) == BSYNC_OK;
    snprintf(path, sizeof path, "%s/here.bsms", dir);
    ok &= bsync_file_write(path, here, here_len) == BSYNC_OK;
    if (recorded) {
        snprintf(path, sizeof path, "%s/recorded.bsms", dir);
        ok &= bsync_file_write(path, recorded, recorded_len) == BSYNC_OK;
    }
    size_t need = bsync_desync_inputs_csv(bsync_match_config_desc(o->cfg), o->cfg, frames, defaulted, prev_tick, frame_count, NULL, 0);
    char* csv = malloc(need + 1);
    if (csv) {
        bsync_desync_inputs_csv(bsync_match_config_desc(o->cfg), o->cfg, frames, defaulted, prev_tick, frame_count, csv, need + 1);
        snprintf(path, sizeof path, "%s/inputs.csv", dir);
        ok &= bsync_file_write(path, csv, need) == BSYNC_OK;
        free(csv);
    } else {
        ok = 0;
    }
    char* text = malloc(32768);
    if (text) {
        int n = snprintf(text, 32768,
                         "blendsync replay verification dump\nreplay: %s\nmatch %" PRIu64 " (hash %016" PRIx64
                         "), config %s\nverified by: %s\nlast agreeing state: the start of tick %u, i.e. after the frames before it (previous.bsms)\n"
                         "mismatch at tick %u: %s\nthis build's state after frame %u: here.bsms%s\ninputs of frames "
                         "%u..%u: inputs.csv\n",
                         file, o->h->match_id, o->h->match_hash, o->used, "blendsync " BSYNC_VERSION_STRING, prev_tick, v->mismatch_tick,
                         v->mismatch_text, v->mismatch_tick, recorded ? "; the replay's: recorded.bsms" : "", prev_tick,
                         prev_tick + frame_count - 1);
        if (n > 0 && (size_t)n < 32768 && v->describe)
            snprintf(text + n, 32768 - (size_t)n, "\nrecorded (A) vs here (B):\n%s", v->describe);
        snprintf(path, sizeof path, "%s/report.txt", dir);
        ok &= bsync_file_write(path, text, strlen(text)) == BSYNC_OK;
        char esc[2100];
        n = snprintf(text, 32768,
                     "{\"replay\": \"%s\", \"match_id\": %" PRIu64 ", \"match_hash\": \"%016" PRIx64 "\", "
                     "\"tick\": %u, \"what\": \"%s\", \"previous\": \"previous.bsms\", \"previous_start_tick\": %u, "
                     "\"here\": \"here.bsms\", \"recorded\": %s, \"inputs\": \"inputs.csv\", \"build\": \"%s\"}\n",
                     json_escaped(file, esc, sizeof esc), o->h->match_id, o->h->match_hash, v->mismatch_tick,
                     v->mismatch_what, prev_tick,
                     recorded ? "\"recorded.bsms\"" : "null", "blendsync " BSYNC_VERSION_STRING);
        snprintf(path, sizeof path, "%s/dump.json", dir);
        if (n > 0 && (size_t)n < 32768) ok &= bsync_file_write(path, text, (size_t)n) == BSYNC_OK;
        free(text);
    } else {
        ok = 0;
    }
    if (ok) snprintf(v->dump_dir, sizeof v->dump_dir, "%s/", dir);
    else snprintf(v->dump_error, sizeof v->dump_error, "writing into %.200s failed", dir);
}

static int cmd_verify(int argc, char** argv) {
    const char* file = NULL;
    const char* match_path = NULL;
    int poses = 0, json = 0, have_from = 0, no_dump = 0;
    uint32_t from = 0, jobs = 1;
    const char* dump_parent = NULL;
    const char* graph_path = NULL;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--poses")) poses = 1;
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--no-dump")) no_dump = 1;
        else if (!strcmp(a, "--dump") && val) dump_parent = argv[++i];
        else if (!strcmp(a, "--match") && val) match_path = argv[++i];
        else if (!strcmp(a, "--graph") && val) graph_path = argv[++i];
        else if (!strcmp(a, "--from") && val) {
            if (parse_u32(argv[++i], &from)) {
                fprintf(stderr, "blendsync replay verify: --from: expected a tick 0..4294967295, got \"%s\"\n", argv[i]);
                return 2;
            }
            have_from = 1;
        } else if (!strcmp(a, "--jobs") && val) {
            if (parse_u32(argv[++i], &jobs) || jobs < 1 || jobs > 64) {
                fprintf(stderr, "blendsync replay verify: --jobs: expected 1..64, got \"%s\"\n", argv[i]);
                return 2;
            }
        } else if (a[0] != '-' && !file) file = a;
        else {
            fprintf(stderr, "blendsync replay verify: unknown or incomplete argument \"%s\"\n", a);
            usage(stderr);
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "blendsync replay verify: a replay FILE is needed\n");
        usage(stderr);
        return 2;
    }
    opened o;
    int rc = open_replay(file, match_path, graph_path, json, &o);
    if (rc) return rc;
    const bsync_replay_header* h = o.h;
    bsync_match* m = o.sim.match;
    verify_state v;
    memset(&v, 0, sizeof v);
    if (jobs > 1 && !have_from && h->start_tick == 0) {
        /* segments between snapshots in parallel; a mismatch (or anything unusual) falls back to the
         * sequential pass below, which stops at the same first mismatch and explains it */
        replay_par_result pr;
        double p0 = now_seconds();
        if (replay_verify_parallel(file, bsync_match_config_desc(o.cfg), jobs, poses, &pr) == 0 && !pr.mismatch &&
            pr.final_state && bsync_match_load(m, pr.final_state, pr.final_len) == BSYNC_OK) {
            v.seconds = now_seconds() - p0;
            /* the records' other facts (desyncs, END, where reading stopped) without simulating */
            bsync_replay_status st2;
            while ((st2 = bsync_replay_reader_next(o.reader, &g_rec, v.stop_detail, sizeof v.stop_detail)) ==
                   BSYNC_REPLAY_OK) {
                if (g_rec.type == BSYNC_REPLAY_DESYNC) desync_push(&v.desyncs, &g_rec.desync);
                else if (g_rec.type == BSYNC_REPLAY_END) v.have_end = 1, v.end = g_rec.end;
            }
            v.stop = st2;
            v.valid_bytes = bsync_replay_reader_valid_bytes(o.reader);
            v.ticks = pr.ticks;
            v.checksums = pr.checksums;
            v.pose_checksums = pr.pose_checksums;
            v.snapshots = pr.snapshots;
            if (st2 == BSYNC_REPLAY_CORRUPT || st2 == BSYNC_REPLAY_BAD_ORDER || st2 == BSYNC_REPLAY_UNSUPPORTED)
                snprintf(v.error, sizeof v.error, "the replay is unreadable from here on (%s): %s",
                         bsync_replay_status_string(st2), v.stop_detail);
            if (!json)
                printf("parallel: %u threads over %" PRIu64 " segments between snapshots\n", jobs, pr.segments);
            free(pr.final_state);
            verify_print(file, &o, &v, json);
            rc = v.error[0] ? 2 : 0;
            free(v.desyncs.items);
            opened_close(&o);
            return rc;
        }
        free(pr.final_state);
    }
    /* where to start: the newest snapshot <= --from; a cut replay starts with its snapshot */
    uint32_t wait_tick = 0;
    int waiting = 0;
    if (have_from && replay_sim_find_snapshot(file, from, &wait_tick) && wait_tick >= h->start_tick) waiting = 1;
    if (!waiting && h->start_tick > 0) wait_tick = h->start_tick, waiting = 1;
    v.first_tick = waiting ? wait_tick : 0;
    int first_record = 1;
    /* for the mismatch dump: the state at the last agreeing point (its frames are read again from the
     * file when a mismatch needs them, so nothing is kept per tick) */
    uint8_t* agreed = no_dump ? NULL : malloc(o.sim.buf_cap);
    size_t agreed_len = 0;
    uint32_t agreed_tick = 0;
    int keep = agreed != NULL;
#define AGREE_HERE()                                                                        \
    do {                                                                                    \
        if (keep && bsync_match_save(m, agreed, o.sim.buf_cap, &agreed_len) == BSYNC_OK) { \
            agreed_tick = (uint32_t)bsync_match_tick_count(m);                              \
        }                                                                                   \
    } while (0)
    const uint8_t* mismatch_recorded = NULL;
    size_t mismatch_recorded_len = 0;
    static bsync_match_checksums sums;
    static bsync_trs pose_scratch[BSYNC_MAX_JOINTS];
    uint64_t sums_tick = UINT64_MAX; /* the tick count sums (with poses) belongs to */
    double t0 = now_seconds();
    bsync_replay_status st;
    while ((st = bsync_replay_reader_next(o.reader, &g_rec, v.stop_detail, sizeof v.stop_detail)) == BSYNC_REPLAY_OK) {
        const bsync_replay_record* r = &g_rec;
        if (first_record && h->start_tick > 0 && (r->type != BSYNC_REPLAY_SNAPSHOT || r->snapshot.tick != h->start_tick)) {
            snprintf(v.error, sizeof v.error,
                     "a replay with start tick %u must begin with a SNAPSHOT at tick %u (byte %" PRIu64 ")", h->start_tick,
                     h->start_tick, r->offset);
            break;
        }
        first_record = 0;
        uint64_t tc = bsync_match_tick_count(m);
        if (r->type == BSYNC_REPLAY_SNAPSHOT) {
            if (waiting) {
                if (r->snapshot.tick != wait_tick) continue;
                bsync_result lr = bsync_match_load(m, r->snapshot.data, r->snapshot.len);
                if (lr != BSYNC_OK || bsync_match_tick_count(m) != r->snapshot.tick) {
                    snprintf(v.error, sizeof v.error, "the SNAPSHOT at tick %u (byte %" PRIu64 ") does not load: %s",
                             r->snapshot.tick, r->offset, lr != BSYNC_OK ? bsync_result_string(lr) : "its tick differs");
                    break;
                }
                waiting = 0;
                v.from_snapshot = 1;
                AGREE_HERE();
                continue;
            }
            if (r->snapshot.tick != tc) {
                v.snapshots_skipped++;
                continue;
            }
            size_t len = 0;
            bsync_result sr = bsync_match_save(m, o.sim.buf, o.sim.buf_cap, &len);
            if (sr != BSYNC_OK) {
                snprintf(v.error, sizeof v.error, "cannot save the match state at tick %" PRIu64 ": %s", tc,
                         bsync_result_string(sr));
                break;
            }
            if (len != r->snapshot.len || memcmp(o.sim.buf, r->snapshot.data, len) != 0) {
                v.mismatch = 1;
                v.mismatch_tick = r->snapshot.tick;
                snprintf(v.mismatch_what, sizeof v.mismatch_what, "snapshot");
                size_t k = 0;
                while (k < len && k < r->snapshot.len && o.sim.buf[k] == r->snapshot.data[k]) k++;
                snprintf(v.mismatch_text, sizeof v.mismatch_text,
                         "snapshot (the state at the start of tick %u) differs: %u bytes recorded, %zu here, first "
                         "difference at byte %zu",
                         r->snapshot.tick, r->snapshot.len, len, k);
                if (bsync_match_load(o.sim.other, r->snapshot.data, r->snapshot.len) == BSYNC_OK) {
                    v.describe = malloc(16384);
                    if (v.describe) {
                        bsync_desync_describe(o.sim.other, m, o.cfg, v.describe, 16384);
                        /* recorded = A (first column), here = B */
                    }
                }
                mismatch_recorded = r->snapshot.data;
                mismatch_recorded_len = r->snapshot.len;
                break;
            }
            v.snapshots++;
            AGREE_HERE();
        } else if (r->type == BSYNC_REPLAY_FRAME) {
            if (waiting) {
                v.frames_skipped++;
                continue;
            }
            if (r->frame.tick != tc) {
                snprintf(v.error, sizeof v.error, "FRAME for tick %u (byte %" PRIu64 ") but the state is at tick %" PRIu64,
                         r->frame.tick, r->offset, tc);
                break;
            }
            if (keep && agreed_len == 0) AGREE_HERE(); /* a fresh start: the initial state agrees */
            bsync_result tr = bsync_match_tick(m, &r->frame.inputs);
            if (tr != BSYNC_OK) {
                snprintf(v.error, sizeof v.error, "the FRAME for tick %u does not apply: %s", r->frame.tick,
                         bsync_result_string(tr));
                break;
            }
            v.ticks++;
            if (poses) {
                /* a viewer's work after every frame; the checksums (with the poses) only where the
                 * replay's checksum interval puts a recorded checksum, the only place one is compared */
                const uint32_t iv = h->checksum_interval;
                if (iv == 0 || (tc + 1u) % iv == 0) {
                    bsync_match_checksums_get(m, 1, &sums);
                    sums_tick = tc + 1;
                } else if (replay_sim_pose_all(m, pose_scratch) != 0) {
                    snprintf(v.error, sizeof v.error, "a pose after frame %" PRIu64 " fails", tc);
                    break;
                }
            }
        } else if (r->type == BSYNC_REPLAY_CHECKSUM) {
            if (waiting || (uint64_t)r->checksum.tick + 1u != tc) {
                v.checksums_skipped++;
                continue;
            }
            int want_pose = r->checksum.has_pose != 0;
            if (sums_tick != tc || (want_pose && !poses)) {
                bsync_match_checksums_get(m, want_pose || poses, &sums);
                sums_tick = (want_pose || poses) ? tc : UINT64_MAX;
            }
            const char* what = NULL;
            uint64_t exp = 0, got = 0;
            if (sums.blend != r->checksum.blend) what = "blend checksum", exp = r->checksum.blend, got = sums.blend;
            else if (want_pose && sums.pose != r->checksum.pose)
                what = "pose checksum", exp = r->checksum.pose, got = sums.pose;
            if (what) {
                v.mismatch = 1;
                v.mismatch_tick = r->checksum.tick;
                snprintf(v.mismatch_what, sizeof v.mismatch_what, "%s", what);
                snprintf(v.mismatch_text, sizeof v.mismatch_text,
                         "%s (the state after frame %u): expected %016" PRIx64 " (recorded), got %016" PRIx64, what,
                         r->checksum.tick, exp, got);
                break;
            }
            v.checksums++;
            v.pose_checksums += (uint64_t)want_pose;
            AGREE_HERE();
        } else if (r->type == BSYNC_REPLAY_DESYNC) {
            desync_push(&v.desyncs, &r->desync);
        } else if (r->type == BSYNC_REPLAY_END) {
            v.have_end = 1;
            v.end = r->end;
        }
    }
    v.seconds = now_seconds() - t0;
    v.stop = st;
    v.valid_bytes = bsync_replay_reader_valid_bytes(o.reader);
    if (!v.mismatch && !v.error[0]) {
        if (st == BSYNC_REPLAY_CORRUPT || st == BSYNC_REPLAY_BAD_ORDER || st == BSYNC_REPLAY_UNSUPPORTED)
            snprintf(v.error, sizeof v.error, "the replay is unreadable from here on (%s): %s", bsync_replay_status_string(st),
                     v.stop_detail);
        else if (waiting)
            snprintf(v.error, sizeof v.error, "the SNAPSHOT at tick %u to start from was not found", wait_tick);
    }
#undef AGREE_HERE
    if (v.mismatch && keep && agreed_len > 0) {
        size_t here_len = 0;
        if (bsync_match_save(m, o.sim.buf, o.sim.buf_cap, &here_len) == BSYNC_OK) {
            char parent[1200];
            if (dump_parent) snprintf(parent, sizeof parent, "%s", dump_parent);
            else snprintf(parent, sizeof parent, "%s.mismatch", file);
            const uint32_t here_tick = (uint32_t)bsync_match_tick_count(m);
            bsync_match_frame* since = NULL;
            uint16_t* since_defaulted = NULL;
            uint32_t n = read_frames(file, agreed_tick, here_tick, &since, &since_defaulted);
            write_dump(file, &o, &v, parent, agreed, agreed_len, agreed_tick, o.sim.buf, here_len, mismatch_recorded,
                       mismatch_recorded_len, since, since_defaulted, n);
            free(since);
            free(since_defaulted);
        }
    }
    verify_print(file, &o, &v, json);
    rc = v.error[0] ? 2 : v.mismatch ? 1 : 0;
    free(agreed);
    free(v.describe);
    free(v.desyncs.items);
    opened_close(&o);
    return rc;
}

/* ------------------------------------------------------------------ info */

static int cmd_info(int argc, char** argv) {
    const char* file = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--json")) json = 1;
        else if (argv[i][0] != '-' && !file) file = argv[i];
        else {
            fprintf(stderr, "blendsync replay info: unknown argument \"%s\"\n", argv[i]);
            return 2;
        }
    }
    if (!file) {
        fprintf(stderr, "blendsync replay info: a replay FILE is needed\n");
        return 2;
    }
    bsync_replay_reader* r = NULL;
    bsync_error err;
    char detail[200];
    if (bsync_replay_reader_open_file(file, &r, &err) != BSYNC_OK) {
        if (json) json_error(file, "error", err.message, NULL);
        else fprintf(stderr, "blendsync replay info: cannot read %s: %s\n", file, err.message);
        return 2;
    }
    bsync_replay_status st = bsync_replay_reader_next(r, &g_rec, detail, sizeof detail);
    if (st != BSYNC_REPLAY_OK) {
        char msg[400];
        snprintf(msg, sizeof msg, "not a readable replay (%s: %s)", bsync_replay_status_string(st), detail);
        if (json) json_error(file, "error", msg, NULL);
        else fprintf(stderr, "blendsync replay info: %s: %s\n", file, msg);
        bsync_replay_reader_close(r);
        return 2;
    }
    const bsync_replay_header* h = bsync_replay_reader_header(r);
    uint64_t frames = 0, checksums = 0, pose_checksums = 0, snapshots = 0, snapshot_bytes = 0, defaulted = 0;
    uint32_t first_frame = 0, last_frame = 0;
    desync_list desyncs = {0};
    int have_end = 0;
    bsync_replay_end end = {0, 0};
    while ((st = bsync_replay_reader_next(r, &g_rec, detail, sizeof detail)) == BSYNC_REPLAY_OK) {
        switch (g_rec.type) {
        case BSYNC_REPLAY_FRAME:
            if (!frames) first_frame = g_rec.frame.tick;
            last_frame = g_rec.frame.tick;
            frames++;
            for (uint32_t m = g_rec.frame.defaulted_mask; m; m &= m - 1u) defaulted++;
            break;
        case BSYNC_REPLAY_CHECKSUM:
            checksums++;
            pose_checksums += g_rec.checksum.has_pose != 0;
            break;
        case BSYNC_REPLAY_SNAPSHOT:
            snapshots++;
            snapshot_bytes += g_rec.snapshot.len;
            break;
        case BSYNC_REPLAY_DESYNC: desync_push(&desyncs, &g_rec.desync); break;
        case BSYNC_REPLAY_END:
            have_end = 1;
            end = g_rec.end;
            break;
        default: break;
        }
    }
    uint64_t valid = bsync_replay_reader_valid_bytes(r);
    struct stat sb;
    uint64_t size = stat(file, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    double seconds = h->tick_rate ? (double)frames / h->tick_rate : 0.0;
    double player_minutes = (double)h->player_count * seconds / 60.0;
    double per_pm = player_minutes > 0 ? (double)size / player_minutes : 0.0;
    uint64_t player_ticks = frames * h->player_count;
    int broken = st == BSYNC_REPLAY_CORRUPT || st == BSYNC_REPLAY_BAD_ORDER || st == BSYNC_REPLAY_UNSUPPORTED;
    if (json) {
        printf("{\"file\": ");
        replay_json_string(stdout, file);
        printf(", \"format_version\": %u, \"build_version\": ", h->format_version);
        replay_json_string(stdout, h->build_version);
        printf(", \"match_id\": %" PRIu64 ", \"match_hash\": \"%016" PRIx64 "\", \"tick_rate\": %u, \"players\": %u, "
               "\"input_parameters\": %u, \"input_triggers\": %u, \"characters\": %u, \"input_delay\": %u, "
               "\"checksum_interval\": %u, \"start_tick\": %u, \"assets\": [",
               h->match_id, h->match_hash, h->tick_rate, h->player_count, h->param_count, h->trigger_count,
               h->character_count, h->input_delay, h->checksum_interval, h->start_tick);
        for (uint32_t i = 0; i < h->asset_count; i++) {
            printf("%s{\"name\": ", i ? ", " : "");
            replay_json_string(stdout, h->assets[i].name);
            printf(", \"hash\": \"%016" PRIx64 "\"}", h->assets[i].hash);
        }
        printf("], \"config_path\": ");
        replay_json_string(stdout, h->config_path);
        printf(", \"config_bytes\": %u, \"frames\": %" PRIu64 ", \"duration_seconds\": %.3f, \"checksums\": %" PRIu64
               ", \"pose_checksums\": %" PRIu64 ", \"snapshots\": %" PRIu64 ", \"snapshot_bytes\": %" PRIu64 ", \"desyncs\": ",
               h->config_len, frames, seconds, checksums, pose_checksums, snapshots, snapshot_bytes);
        desync_json(stdout, &desyncs, NULL);
        printf(", \"end\": ");
        if (have_end) printf("{\"ticks\": %u, \"reason\": \"%s\"}", end.ticks, replay_end_reason(end.reason));
        else printf("null");
        printf(", \"complete\": %s, \"valid_bytes\": %" PRIu64 ", \"stopped\": ", have_end ? "true" : "false", valid);
        if (broken || st == BSYNC_REPLAY_TRUNCATED) replay_json_string(stdout, detail);
        else printf("null");
        printf(", \"file_bytes\": %" PRIu64 ", \"bytes_per_player_minute\": %.0f, \"defaulted_player_ticks\": %" PRIu64
               ", \"player_ticks\": %" PRIu64 "}\n",
               size, per_pm, defaulted, player_ticks);
    } else {
        printf("replay: %s\n", file);
        printf("format: %u, written by \"%s\"\n", h->format_version, h->build_version);
        printf("match: id %" PRIu64 ", hash %016" PRIx64 ", %u Hz, %u players, %u characters, %u input parameters, %u "
               "triggers\n",
               h->match_id, h->match_hash, h->tick_rate, h->player_count, h->character_count, h->param_count,
               h->trigger_count);
        printf("input delay: %u ticks, checksum interval: %u ticks, start tick: %u\n", h->input_delay,
               h->checksum_interval, h->start_tick);
        printf("config: %s (%u bytes recorded)\n", h->config_path, h->config_len);
        printf("assets: %u\n", h->asset_count);
        for (uint32_t i = 0; i < h->asset_count; i++) printf("  %s %016" PRIx64 "\n", h->assets[i].name, h->assets[i].hash);
        if (frames)
            printf("frames: %" PRIu64 " (ticks %u..%u), %.3f s\n", frames, first_frame, last_frame, seconds);
        else
            printf("frames: 0\n");
        printf("checksums: %" PRIu64 " (%" PRIu64 " with a pose)\n", checksums, pose_checksums);
        printf("snapshots: %" PRIu64 " (%" PRIu64 " bytes)\n", snapshots, snapshot_bytes);
        printf("desyncs: %zu\n", desyncs.count);
        for (size_t i = 0; i < desyncs.count; i++) desync_text(stdout, &desyncs.items[i], NULL);
        if (have_end) printf("end: %u ticks, reason %s\n", end.ticks, replay_end_reason(end.reason));
        else printf("end: no END record (incomplete; the last complete record ends at byte %" PRIu64 ")\n", valid);
        if (broken) printf("stopped: %s: %s\n", bsync_replay_status_string(st), detail);
        printf("size: %" PRIu64 " bytes", size);
        if (per_pm > 0) printf(", %.0f bytes per player-minute", per_pm);
        printf("\ndefaulted player-ticks: %" PRIu64 " of %" PRIu64 "\n", defaulted, player_ticks);
    }
    free(desyncs.items);
    bsync_replay_reader_close(r);
    return broken ? 2 : 0;
}

/* ------------------------------------------------------------------ cut */

static int cmd_cut(int argc, char** argv) {
    const char* file = NULL;
    const char* out = NULL;
    const char* match_path = NULL;
    uint32_t a = 0, b = 0;
    int have_a = 0, have_b = 0;
    for (int i = 1; i < argc; i++) {
        const char* arg = argv[i];
        const char* val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--from") && val) {
            if (parse_u32(argv[++i], &a)) goto bad;
            have_a = 1;
        } else if (!strcmp(arg, "--to") && val) {
            if (parse_u32(argv[++i], &b)) goto bad;
            have_b = 1;
        } else if (!strcmp(arg, "--out") && val) out = argv[++i];
        else if (!strcmp(arg, "--match") && val) match_path = argv[++i];
        else if (arg[0] != '-' && !file) file = arg;
        else {
        bad:
            fprintf(stderr, "blendsync replay cut: unknown, incomplete or bad argument \"%s\"\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!file || !out || !have_a || !have_b) {
        fprintf(stderr, "blendsync replay cut: FILE, --from A, --to B and --out OUT are needed\n");
        return 2;
    }
    if (b <= a) {
        fprintf(stderr, "blendsync replay cut: --to (%u) must be greater than --from (%u)\n", b, a);
        return 2;
    }
    opened o;
    int rc = open_replay(file, match_path, NULL, 0, &o);
    if (rc) return rc;
    const bsync_replay_header* h = o.h;
    bsync_match* m = o.sim.match;
    char tmp[1200], detail[200], msg[3000] = "";
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out, bsync_platform_getpid());
    bsync_replay_writer* w = NULL;
    bsync_error err;
    if (a < h->start_tick) {
        snprintf(msg, sizeof msg, "--from %u is before the replay's start tick %u", a, h->start_tick);
        goto fail;
    }
    uint32_t wait_tick = 0;
    int waiting = replay_sim_find_snapshot(file, a, &wait_tick) && wait_tick >= h->start_tick;
    if (!waiting && h->start_tick > 0) wait_tick = h->start_tick, waiting = 1;
    uint64_t frames = 0, checksums = 0, snapshots = 0, desyncs = 0;
    bsync_replay_status st;
    while ((st = bsync_replay_reader_next(o.reader, &g_rec, detail, sizeof detail)) == BSYNC_REPLAY_OK) {
        bsync_replay_record* r = &g_rec;
        if (r->type == BSYNC_REPLAY_END) break;
        if (!w) {
            /* simulating towards A */
            if (r->type == BSYNC_REPLAY_SNAPSHOT && waiting && r->snapshot.tick == wait_tick) {
                if (bsync_match_load(m, r->snapshot.data, r->snapshot.len) != BSYNC_OK) {
                    snprintf(msg, sizeof msg, "the SNAPSHOT at tick %u does not load", r->snapshot.tick);
                    goto fail;
                }
                waiting = 0;
            } else if (r->type == BSYNC_REPLAY_FRAME && !waiting) {
                if (r->frame.tick == a) {
                    /* the state at the start of A: open the cut with it */
                    size_t len = 0;
                    bsync_result saved = bsync_match_tick_count(m) != a ? BSYNC_MISMATCH
                                                                        : bsync_match_save(m, o.sim.buf, o.sim.buf_cap, &len);
                    if (saved != BSYNC_OK) {
                        snprintf(msg, sizeof msg, "cannot save the state at tick %u: %s", a,
                                 bsync_match_tick_count(m) != a ? "the re-simulation is at another tick"
                                                                : bsync_result_string(saved));
                        goto fail;
                    }
                    static bsync_replay_header nh;
                    nh = *h;
                    nh.start_tick = a;
                    if (bsync_replay_writer_open(tmp, &nh, &w, &err) != BSYNC_OK) {
                        snprintf(msg, sizeof msg, "%s", err.message);
                        goto fail;
                    }
                    static bsync_replay_record sr;
                    memset(&sr, 0, sizeof sr);
                    sr.type = BSYNC_REPLAY_SNAPSHOT;
                    sr.snapshot.tick = a;
                    sr.snapshot.len = (uint32_t)len;
                    sr.snapshot.data = o.sim.buf;
                    if (bsync_replay_writer_append(w, &sr, &err) != BSYNC_OK) {
                        snprintf(msg, sizeof msg, "%s", err.message);
                        goto fail;
                    }
                } else if (bsync_match_tick(m, &r->frame.inputs) != BSYNC_OK) {
                    snprintf(msg, sizeof msg, "the FRAME for tick %u does not apply", r->frame.tick);
                    goto fail;
                }
            }
            if (!w) {
                /* desyncs recorded before A's frame may still concern [A, B): none can (a desync is
                 * reported after its tick), so nothing else is kept */
                continue;
            }
        }
        /* copying [A, B) */
        int keep = 0;
        switch (r->type) {
        case BSYNC_REPLAY_FRAME: keep = r->frame.tick < b; frames += (uint64_t)keep; break;
        case BSYNC_REPLAY_CHECKSUM: keep = r->checksum.tick >= a && r->checksum.tick < b; checksums += (uint64_t)keep; break;
        case BSYNC_REPLAY_SNAPSHOT: keep = r->snapshot.tick > a && r->snapshot.tick <= b; snapshots += (uint64_t)keep; break;
        case BSYNC_REPLAY_DESYNC: keep = r->desync.tick >= a && r->desync.tick < b; desyncs += (uint64_t)keep; break;
        default: break;
        }
        if (keep && bsync_replay_writer_append(w, r, &err) != BSYNC_OK) {
            snprintf(msg, sizeof msg, "%s", err.message);
            goto fail;
        }
    }
    if (frames < (uint64_t)(b - a)) {
        if (st == BSYNC_REPLAY_CORRUPT || st == BSYNC_REPLAY_BAD_ORDER || st == BSYNC_REPLAY_UNSUPPORTED)
            snprintf(msg, sizeof msg, "the replay is unreadable before tick %u (%s: %s)", b, bsync_replay_status_string(st),
                     detail);
        else
            snprintf(msg, sizeof msg, "the replay has no frames for ticks %u..%u (it ends at tick %" PRIu64 ")",
                     a + (uint32_t)frames, b - 1, w ? (uint64_t)a + frames : bsync_match_tick_count(m));
        goto fail;
    }
    if (st != BSYNC_REPLAY_OK && st != BSYNC_REPLAY_EOF && st != BSYNC_REPLAY_TRUNCATED)
        fprintf(stderr, "blendsync replay cut: note: the replay is unreadable after tick %u (%s)\n", b - 1, detail);
    static bsync_replay_record er;
    memset(&er, 0, sizeof er);
    er.type = BSYNC_REPLAY_END;
    er.end.ticks = b;
    er.end.reason = 0;
    if (bsync_replay_writer_append(w, &er, &err) != BSYNC_OK || bsync_replay_writer_sync(w) != BSYNC_OK) {
        snprintf(msg, sizeof msg, "cannot finish %s", tmp);
        goto fail;
    }
    uint64_t bytes = bsync_replay_writer_bytes(w);
    bsync_replay_writer_close(w);
    w = NULL;
    if (bsync_platform_rename(tmp, out) != 0) {
        snprintf(msg, sizeof msg, "cannot rename %s to %s: %s", tmp, out, strerror(errno));
        goto fail;
    }
    printf("wrote %s: ticks %u..%u (%" PRIu64 " frames, a snapshot at %u), %" PRIu64 " checksums, %" PRIu64
           " later snapshots, %" PRIu64 " desyncs, %" PRIu64 " bytes\n",
           out, a, b - 1, frames, a, checksums, snapshots, desyncs, bytes);
    opened_close(&o);
    return 0;
fail:
    if (w) bsync_replay_writer_close(w);
    remove(tmp);
    fprintf(stderr, "blendsync replay cut: %s: %s\n", file, msg);
    opened_close(&o);
    return 2;
}

int bsync_cmd_replay(int argc, char** argv) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "verify")) return cmd_verify(argc - 1, argv + 1);
    if (!strcmp(argv[1], "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(argv[1], "cut")) return cmd_cut(argc - 1, argv + 1);
    if (!strcmp(argv[1], "record")) return bsync_cmd_replay_record(argc - 1, argv + 1);
    fprintf(stderr, "blendsync replay: unknown subcommand \"%s\" (verify, info, cut, record)\n", argv[1]);
    usage(stderr);
    return 2;
}
