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
#include "platform.h"
#include "blendsync/io/file.h"
#include "blendsync/io/match_config.h"
#include "blendsync/io/replay.h"
#include "blendsync/match.h"
#include "commands.h"
#include "blendsync/io/replay_verify.h"
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

static bsync_replay_record g_rec; /* large (frames carry payloads): not on the stack */

/* Where verify's mismatch dump goes and what became of it. */
typedef struct dump_info {
    const char* file;
    const char* parent;
    char dir[1400];  /* where the dump went ("" none) */
    char error[300]; /* why it was not written */
} dump_info;

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
    fprintf(f, "  tick %u, slot %u: %s", d->tick, d->slot, bsync_replay_desync_kind_name(d->kind));
    if (d->character != 0xFF) {
        const char* name = cfg ? bsync_match_config_character_name(cfg, d->character) : "";
        fprintf(f, ", character %u%s%s%s", d->character, name[0] ? " (" : "", name, name[0] ? ")" : "");
    }
    if (d->part != 0xFFFF) fprintf(f, ", joint %u", d->part);
    fprintf(f, ": expected %016" PRIx64 " got %016" PRIx64 "\n", d->expected, d->got);
}

static void desync_json(cJSON* parent, const bsync_replay_desync* items, size_t count, const bsync_match_config* cfg) {
    cJSON* list = bsync_cli_json_add(parent, "desyncs", cJSON_CreateArray());
    for (size_t i = 0; i < count; i++) {
        const bsync_replay_desync* d = &items[i];
        cJSON* e = bsync_cli_json_add(list, NULL, cJSON_CreateObject());
        bsync_cli_json_num(e, "tick", "%u", d->tick);
        bsync_cli_json_num(e, "slot", "%u", d->slot);
        bsync_cli_json_str(e, "kind", bsync_replay_desync_kind_name(d->kind));
        if (d->character != 0xFF) {
            bsync_cli_json_num(e, "character", "%u", d->character);
            bsync_cli_json_str(e, "character_name", cfg ? bsync_match_config_character_name(cfg, d->character) : "");
        } else {
            bsync_cli_json_add(e, "character", cJSON_CreateNull());
            bsync_cli_json_add(e, "character_name", cJSON_CreateNull());
        }
        bsync_cli_json_hex64(e, "expected", d->expected);
        bsync_cli_json_hex64(e, "got", d->got);
    }
}

/* "end": {"ticks": N, "reason": "..."}, or null without an END record */
static void end_json(cJSON* parent, int have, const bsync_replay_end* end) {
    cJSON* e = bsync_cli_json_add(parent, "end", have ? cJSON_CreateObject() : cJSON_CreateNull());
    if (!have) return;
    bsync_cli_json_num(e, "ticks", "%u", end->ticks);
    bsync_cli_json_str(e, "reason", bsync_replay_end_reason_name(end->reason));
}

static void json_error(const char* file, const char* verdict, const char* error, const char* differences) {
    cJSON* o = cJSON_CreateObject();
    bsync_cli_json_str(o, "file", file);
    bsync_cli_json_str(o, "verdict", verdict);
    bsync_cli_json_str(o, "error", error);
    if (differences) replay_lines_json(o, "differences", differences, 0);
    bsync_cli_json_print(stdout, o, 0);
    cJSON_Delete(o);
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
    if (bsync_replay_verify_config_load(o->h, file, match_path, graph_path, NULL, &o->cfg, o->used, sizeof o->used, &err) !=
        BSYNC_OK) {
        snprintf(msg, sizeof msg, "%s", err.message);
        goto fail;
    }
    static char diff[16384];
    unsigned n = bsync_replay_verify_compare(o->h, o->cfg, graph_path && !match_path, diff, sizeof diff);
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

/* The printed report of a verification (bsync_replay_verify_file's result). */
static void verify_print(const char* file, const bsync_replay_verify_result* v, const dump_info* d, int json) {
    uint64_t now_tick = v->verified_up_to;
    int incomplete = v->incomplete;
    double tps = v->seconds > 0 ? (double)v->ticks_verified / v->seconds : 0.0;
    double rt = v->tick_rate ? tps / v->tick_rate : 0.0;
    const int mismatch = v->verdict == BSYNC_VERIFY_MISMATCH;
    const int error = v->verdict == BSYNC_VERIFY_ERROR;
    const char* verdict = error ? "error" : mismatch ? "mismatch" : "verified";
    const bsync_replay_verify_mismatch* mm = &v->first_mismatch;
    if (json) {
        cJSON* o = cJSON_CreateObject();
        bsync_cli_json_str(o, "file", file);
        bsync_cli_json_num(o, "match_id", "%" PRIu64, v->match_id);
        bsync_cli_json_hex64(o, "match_hash", v->match_hash);
        bsync_cli_json_num(o, "players", "%u", v->player_count);
        bsync_cli_json_num(o, "characters", "%u", v->character_count);
        bsync_cli_json_num(o, "tick_rate", "%u", v->tick_rate);
        bsync_cli_json_str(o, "config", v->config_used);
        bsync_cli_json_num(o, "first_tick", "%u", v->first_tick);
        bsync_cli_json_add(o, "from_snapshot", cJSON_CreateBool(v->from_snapshot));
        bsync_cli_json_num(o, "ticks_verified", "%" PRIu64, v->ticks_verified);
        bsync_cli_json_num(o, "verified_up_to", "%" PRIu64, now_tick);
        bsync_cli_json_num(o, "frames_skipped", "%" PRIu64, v->frames_skipped);
        bsync_cli_json_num(o, "checksums_compared", "%" PRIu64, v->checksums_compared);
        bsync_cli_json_num(o, "pose_checksums_compared", "%" PRIu64, v->pose_checksums_compared);
        bsync_cli_json_num(o, "checksums_skipped", "%" PRIu64, v->checksums_skipped);
        bsync_cli_json_num(o, "snapshots_compared", "%" PRIu64, v->snapshots_compared);
        bsync_cli_json_num(o, "desyncs_recorded", "%zu", v->desync_count);
        desync_json(o, v->desyncs, v->desync_count, v->config);
        bsync_cli_json_add(o, "complete", cJSON_CreateBool(v->complete));
        end_json(o, v->complete, &v->end);
        bsync_cli_json_num(o, "valid_bytes", "%" PRIu64, v->valid_bytes);
        bsync_cli_json_str(o, "verdict", verdict);
        cJSON* m = bsync_cli_json_add(o, "mismatch", mismatch ? cJSON_CreateObject() : cJSON_CreateNull());
        if (mismatch) {
            bsync_cli_json_num(m, "tick", "%u", mm->tick);
            bsync_cli_json_str(m, "what", mm->what);
            bsync_cli_json_str(m, "text", mm->text);
            if (v->describe) replay_lines_json(m, "differences", v->describe, 1);
            bsync_cli_json_str(m, "dump", d->dir[0] ? d->dir : NULL);
        }
        bsync_cli_json_str(o, "error", error ? v->message : NULL);
        bsync_cli_json_dbl(o, "seconds", "%.6f", v->seconds);
        bsync_cli_json_dbl(o, "ticks_per_second", "%.1f", tps);
        bsync_cli_json_dbl(o, "realtime_factor", "%.1f", rt);
        bsync_cli_json_print(stdout, o, 0);
        cJSON_Delete(o);
        return;
    }
    printf("replay: %s\n", file);
    printf("match: id %" PRIu64 ", %u players, %u characters, %u Hz, hash %016" PRIx64 "\n", v->match_id, v->player_count,
           v->character_count, v->tick_rate, v->match_hash);
    printf("config: %s\n", v->config_used);
    if (v->from_snapshot)
        printf("start: snapshot at tick %u (%" PRIu64 " earlier frames skipped)\n", v->first_tick, v->frames_skipped);
    if (v->ticks_verified)
        printf("ticks verified: %" PRIu64 " (frames %u..%" PRIu64 ")\n", v->ticks_verified, v->first_tick, now_tick - 1);
    else
        printf("ticks verified: 0\n");
    printf("checksums compared: %" PRIu64 " (%" PRIu64 " with a pose)", v->checksums_compared, v->pose_checksums_compared);
    if (v->checksums_skipped) printf(", %" PRIu64 " before the start skipped", v->checksums_skipped);
    printf("\nsnapshots compared: %" PRIu64 "\n", v->snapshots_compared);
    printf("desyncs recorded: %zu%s\n", v->desync_count, v->desync_count ? " (what the server saw; not failures of the replay)" : "");
    for (size_t i = 0; i < v->desync_count; i++) desync_text(stdout, &v->desyncs[i], v->config);
    if (mismatch) {
        printf("MISMATCH at tick %u: %s\n", mm->tick, mm->text);
        if (v->describe) fputs(v->describe, stdout);
        if (d->dir[0]) printf("dump: %s (previous.bsms, here.bsms%s, inputs.csv, dump.json, report.txt)\n", d->dir,
                              mm->kind == BSYNC_VERIFY_SNAPSHOT ? ", recorded.bsms" : "");
        else if (d->error[0]) printf("dump: not written: %s\n", d->error);
        printf("verdict: mismatch (stopped at the first one)\n");
    } else if (error) {
        printf("error: %s\n", v->message);
        printf("verdict: error (everything before it verified)\n");
    } else {
        if (incomplete)
            printf("incomplete: no END record; verified up to tick %" PRIu64 " (the last complete record ends at byte %" PRIu64
                   ")\n",
                   now_tick, v->valid_bytes);
        else if (v->complete && v->end.ticks != now_tick)
            printf("note: END says %u ticks, the frames reach tick %" PRIu64 "\n", v->end.ticks, now_tick);
        printf("verdict: verified (every checksum and snapshot matches)%s\n", incomplete ? ", incomplete" : "");
    }
    printf("speed: %.0f ticks/s, %.1fx real time (%" PRIu64 " ticks in %.4f s)\n", tps, rt, v->ticks_verified, v->seconds);
}

/* The mismatch dump (docs/replay-verify.md "Dumps"), the library's on_mismatch: under parent/tick<T>/
 * the state at the last agreeing point (previous.bsms, the start of tick previous_tick), this build's
 * state at the mismatch (here.bsms), the recorded snapshot for a snapshot mismatch (recorded.bsms),
 * the frames between them (inputs.csv), dump.json and report.txt. */
static void write_dump(const bsync_replay_verify_states* s, void* user) {
    dump_info* d = (dump_info*)user;
    const bsync_replay_verify_mismatch* mm = s->mismatch;
    const char* file = d->file;
    const char* parent = d->parent;
    char dir[1300], path[1400];
    if (bsync_platform_mkdir(parent) != 0) {
        snprintf(d->error, sizeof d->error, "cannot create %.200s: %s", parent, strerror(errno));
        return;
    }
    snprintf(dir, sizeof dir, "%s/tick%u", parent, mm->tick);
    if (bsync_platform_mkdir(dir) != 0) {
        snprintf(d->error, sizeof d->error, "cannot create %.200s: %s", dir, strerror(errno));
        return;
    }
    const uint32_t prev_tick = s->previous_tick, frame_count = s->frame_count;
    const int recorded = s->mismatch->kind == BSYNC_VERIFY_SNAPSHOT;
    int ok = 1;
    snprintf(path, sizeof path, "%s/previous.bsms", dir);
    ok &= bsync_file_write(path, s->previous, s->previous_len) == BSYNC_OK;
    snprintf(path, sizeof path, "%s/here.bsms", dir);
    ok &= bsync_file_write(path, s->here, s->here_len) == BSYNC_OK;
    if (recorded) {
        snprintf(path, sizeof path, "%s/recorded.bsms", dir);
        ok &= bsync_file_write(path, s->recorded, s->recorded_len) == BSYNC_OK;
    }
    const bsync_match_desc* desc = bsync_match_config_desc(s->config);
    size_t need = bsync_desync_inputs_csv(desc, s->config, s->frames, s->defaulted, prev_tick, frame_count, NULL, 0);
    char* csv = malloc(need + 1);
    if (csv) {
        bsync_desync_inputs_csv(desc, s->config, s->frames, s->defaulted, prev_tick, frame_count, csv, need + 1);
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
                         file, s->header->match_id, s->header->match_hash, s->config_used, "blendsync " BSYNC_VERSION_STRING,
                         prev_tick, mm->tick, mm->text, mm->tick, recorded ? "; the replay's: recorded.bsms" : "", prev_tick,
                         prev_tick + frame_count - 1);
        if (n > 0 && (size_t)n < 32768 && s->describe)
            snprintf(text + n, 32768 - (size_t)n, "\nrecorded (A) vs here (B):\n%s", s->describe);
        snprintf(path, sizeof path, "%s/report.txt", dir);
        ok &= bsync_file_write(path, text, strlen(text)) == BSYNC_OK;
        cJSON* o = cJSON_CreateObject();
        bsync_cli_json_str(o, "replay", file);
        bsync_cli_json_num(o, "match_id", "%" PRIu64, s->header->match_id);
        bsync_cli_json_hex64(o, "match_hash", s->header->match_hash);
        bsync_cli_json_num(o, "tick", "%u", mm->tick);
        bsync_cli_json_str(o, "what", mm->what);
        bsync_cli_json_str(o, "previous", "previous.bsms");
        bsync_cli_json_num(o, "previous_start_tick", "%u", prev_tick);
        bsync_cli_json_str(o, "here", "here.bsms");
        bsync_cli_json_str(o, "recorded", recorded ? "recorded.bsms" : NULL);
        bsync_cli_json_str(o, "inputs", "inputs.csv");
        bsync_cli_json_str(o, "build", "blendsync " BSYNC_VERSION_STRING);
        char* json = bsync_cli_json_text(o, 0);
        cJSON_Delete(o);
        snprintf(path, sizeof path, "%s/dump.json", dir);
        ok &= json && bsync_file_write(path, json, strlen(json)) == BSYNC_OK;
        free(json);
        free(text);
    } else {
        ok = 0;
    }
    if (ok) snprintf(d->dir, sizeof d->dir, "%s/", dir);
    else snprintf(d->error, sizeof d->error, "writing into %.200s failed", dir);
}

static int cmd_verify(int argc, char** argv) {
    const char* file = NULL;
    bsync_replay_verify_options opt;
    memset(&opt, 0, sizeof opt);
    int json = 0, no_dump = 0;
    uint32_t jobs = 1;
    const char* dump_parent = NULL;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        const char* val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--poses")) opt.poses = 1;
        else if (!strcmp(a, "--json")) json = 1;
        else if (!strcmp(a, "--no-dump")) no_dump = 1;
        else if (!strcmp(a, "--dump") && val) dump_parent = argv[++i];
        else if (!strcmp(a, "--match") && val) opt.match_path = argv[++i];
        else if (!strcmp(a, "--graph") && val) opt.graph_path = argv[++i];
        else if (!strcmp(a, "--from") && val) {
            if (parse_u32(argv[++i], &opt.from)) {
                fprintf(stderr, "blendsync replay verify: --from: expected a tick 0..4294967295, got \"%s\"\n", argv[i]);
                return 2;
            }
            opt.has_from = 1;
        } else if (!strcmp(a, "--jobs") && val) {
            if (parse_u32(argv[++i], &jobs) || jobs < 1 || jobs > BSYNC_REPLAY_VERIFY_MAX_JOBS) {
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
    opt.jobs = jobs;
    char parent[1200];
    if (dump_parent) snprintf(parent, sizeof parent, "%s", dump_parent);
    else snprintf(parent, sizeof parent, "%s.mismatch", file);
    dump_info dump;
    memset(&dump, 0, sizeof dump);
    dump.file = file;
    dump.parent = parent;
    if (!no_dump) {
        opt.on_mismatch = write_dump;
        opt.user = &dump;
    }
    bsync_replay_verify_result res;
    bsync_replay_verify_file(file, &opt, &res);
    int rc = 2;
    switch (res.verdict) {
    case BSYNC_VERIFY_UNUSABLE:
        if (json) json_error(file, "error", res.message, NULL);
        else fprintf(stderr, "blendsync replay: %s\n", res.message);
        break;
    case BSYNC_VERIFY_REFUSED:
        if (json) json_error(file, "refused", "the replay's match differs from the one built here", res.differences);
        else
            fprintf(stderr, "blendsync replay: %s: refused: the replay's match differs from the one built here (%s):\n%s",
                    file, res.config_used, res.differences);
        break;
    default:
        if (!json && res.segments)
            printf("parallel: %u threads over %" PRIu64 " segments between snapshots\n", res.jobs, res.segments);
        verify_print(file, &res, &dump, json);
        rc = res.verdict == BSYNC_VERIFY_VERIFIED ? 0 : res.verdict == BSYNC_VERIFY_MISMATCH ? 1 : 2;
        break;
    }
    bsync_replay_verify_result_destroy(&res);
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
        cJSON* o = cJSON_CreateObject();
        bsync_cli_json_str(o, "file", file);
        bsync_cli_json_num(o, "format_version", "%u", h->format_version);
        bsync_cli_json_str(o, "build_version", h->build_version);
        bsync_cli_json_num(o, "match_id", "%" PRIu64, h->match_id);
        bsync_cli_json_hex64(o, "match_hash", h->match_hash);
        bsync_cli_json_num(o, "tick_rate", "%u", h->tick_rate);
        bsync_cli_json_num(o, "players", "%u", h->player_count);
        bsync_cli_json_num(o, "input_parameters", "%u", h->param_count);
        bsync_cli_json_num(o, "input_triggers", "%u", h->trigger_count);
        bsync_cli_json_num(o, "characters", "%u", h->character_count);
        bsync_cli_json_num(o, "input_delay", "%u", h->input_delay);
        bsync_cli_json_num(o, "checksum_interval", "%u", h->checksum_interval);
        bsync_cli_json_num(o, "start_tick", "%u", h->start_tick);
        cJSON* assets = bsync_cli_json_add(o, "assets", cJSON_CreateArray());
        for (uint32_t i = 0; i < h->asset_count; i++) {
            cJSON* e = bsync_cli_json_add(assets, NULL, cJSON_CreateObject());
            bsync_cli_json_str(e, "name", h->assets[i].name);
            bsync_cli_json_hex64(e, "hash", h->assets[i].hash);
        }
        bsync_cli_json_str(o, "config_path", h->config_path);
        bsync_cli_json_num(o, "config_bytes", "%u", h->config_len);
        bsync_cli_json_num(o, "frames", "%" PRIu64, frames);
        bsync_cli_json_dbl(o, "duration_seconds", "%.3f", seconds);
        bsync_cli_json_num(o, "checksums", "%" PRIu64, checksums);
        bsync_cli_json_num(o, "pose_checksums", "%" PRIu64, pose_checksums);
        bsync_cli_json_num(o, "snapshots", "%" PRIu64, snapshots);
        bsync_cli_json_num(o, "snapshot_bytes", "%" PRIu64, snapshot_bytes);
        desync_json(o, desyncs.items, desyncs.count, NULL);
        end_json(o, have_end, &end);
        bsync_cli_json_add(o, "complete", cJSON_CreateBool(have_end));
        bsync_cli_json_num(o, "valid_bytes", "%" PRIu64, valid);
        bsync_cli_json_str(o, "stopped", broken || st == BSYNC_REPLAY_TRUNCATED ? detail : NULL);
        bsync_cli_json_num(o, "file_bytes", "%" PRIu64, size);
        bsync_cli_json_dbl(o, "bytes_per_player_minute", "%.0f", per_pm);
        bsync_cli_json_num(o, "defaulted_player_ticks", "%" PRIu64, defaulted);
        bsync_cli_json_num(o, "player_ticks", "%" PRIu64, player_ticks);
        bsync_cli_json_print(stdout, o, 0);
        cJSON_Delete(o);
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
        if (have_end) printf("end: %u ticks, reason %s\n", end.ticks, bsync_replay_end_reason_name(end.reason));
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
