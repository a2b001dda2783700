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
#include "blendsync/io/desync_bundle.h"
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
            "diverged (input, parameter filter, weights, cycle length, clock advance) are named. A bundle of a\n"
            "pose desync names the character and the joints whose pose checksums differ (its \"pose_joints\").\n"
            "A snapshot against a replay: the replay is re-simulated (from its start or its newest snapshot\n"
            "before the tick) to the state after frame T (default: A's own tick) and compared with A.\n"
            "  --match CONFIG   the match config (required for two snapshot files; overrides bundle.json's\n"
            "                   or the replay's recorded one)\n"
            "  --tick T         with a replay: compare at the state after frame T\n"
            "  --json           {\"differences\": [...], \"tick\": N, ...}\n"
            "Exit status: 0 identical, 1 different (or a bundle naming joints), 2 error.\n");
}

static int is_dir(const char* path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int load_snapshot(bsync_match* m, const char* path, char* msg, size_t cap) {
    bsync_error err;
    if (bsync_desync_bundle_load_state(m, path, &err) != BSYNC_OK) {
        snprintf(msg, cap, "%s", err.message);
        return -1;
    }
    return 0;
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
    char a_path[1200], b_path[1200], cfg_path[BSYNC_DESYNC_BUNDLE_PATH_MAX + BSYNC_DESYNC_BUNDLE_CONFIG_MAX];
    char a_label[64] = "A", b_label[64] = "B";
    long long bundle_slot = -1;
    int bundle = 0;
    static bsync_desync_bundle bun; /* large: not on the stack */
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
        bsync_error berr;
        if (bsync_desync_bundle_open(pos[0], &bun, &berr) != BSYNC_OK ||
            bsync_desync_bundle_find_config(&bun, match_path, cfg_path, sizeof cfg_path, &berr) != BSYNC_OK) {
            snprintf(msg, sizeof msg, "%s", berr.message);
            goto done;
        }
        pos[0] = bun.dir;
        bundle_slot = bun.slot;
        snprintf(a_path, sizeof a_path, "%s", bun.server_state);
        snprintf(b_path, sizeof b_path, "%s", bun.client_state);
        snprintf(a_label, sizeof a_label, "server (authoritative)");
        if (bundle_slot >= 0) snprintf(b_label, sizeof b_label, "client (slot %lld)", bundle_slot);
        else snprintf(b_label, sizeof b_label, "client");
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
    const int pose = bundle && bun.has_pose; /* a pose desync's joints, from bundle.json */
    if (bundle && (lines || pose)) {
        uint8_t* final_bytes = NULL;
        size_t final_len = 0;
        trace_text = malloc(32768);
        if (trace_text && replay_read_file(a_path, &final_bytes, &final_len) == 0) {
            bsync_error terr;
            bsync_result tr = bsync_desync_bundle_trace(&bun, cfg, sim.match, sim.other, final_bytes, final_len, NULL, &tres,
                                                        trace_text, 32768, &reproduced, &terr);
            traced = tr == BSYNC_OK ? 1 : tr == BSYNC_NOT_FOUND ? 0 : -1;
            if (traced < 0) snprintf(trace_text, 32768, "  trace not possible: %s\n", terr.message);
        }
        free(final_bytes);
    }
    if (json) {
        cJSON* o = cJSON_CreateObject();
        bsync_cli_json_str(o, "a", a_path);
        bsync_cli_json_str(o, "b", b_path);
        bsync_cli_json_str(o, "a_is", bundle ? "server" : replay_mode ? "dump" : "A");
        bsync_cli_json_str(o, "b_is", bundle ? "client" : replay_mode ? "replay" : "B");
        if (bundle && bundle_slot >= 0) bsync_cli_json_num(o, "slot", "%lld", bundle_slot);
        else bsync_cli_json_add(o, "slot", cJSON_CreateNull());
        bsync_cli_json_str(o, "match_config", cfg_path);
        bsync_cli_json_num(o, "match_id", "%" PRIu64, bsync_match_config_match_id(cfg));
        if (ta > 0) bsync_cli_json_num(o, "tick", "%" PRIu64, ta - 1);
        else bsync_cli_json_add(o, "tick", cJSON_CreateNull());
        cJSON* st = bsync_cli_json_add(o, "state_ticks", cJSON_CreateArray());
        bsync_cli_json_num(st, NULL, "%" PRIu64, ta);
        bsync_cli_json_num(st, NULL, "%" PRIu64, tb);
        bsync_cli_json_add(o, "identical", cJSON_CreateBool(!lines));
        replay_lines_json(o, "differences", lines ? text : "", 1);
        if (pose) {
            const bsync_desync_bundle_pose* pj = &bun.pose;
            cJSON* po = bsync_cli_json_add(o, "pose_joints", cJSON_CreateObject());
            bsync_cli_json_num(po, "tick", "%lld", pj->tick);
            bsync_cli_json_num(po, "agreed_tick", "%lld", pj->agreed_tick);
            bsync_cli_json_num(po, "character", "%u", pj->character);
            bsync_cli_json_str(po, "character_name", pj->character_name);
            bsync_cli_json_num(po, "compared", "%u", pj->compared);
            bsync_cli_json_num(po, "differing", "%u", pj->differing);
            cJSON* js = bsync_cli_json_add(po, "joints", cJSON_CreateArray());
            for (uint32_t i = 0; i < pj->joint_count; i++) {
                cJSON* j = bsync_cli_json_add(js, NULL, cJSON_CreateObject());
                bsync_cli_json_num(j, "index", "%u", pj->joints[i].index);
                bsync_cli_json_str(j, "name", pj->joints[i].name);
                bsync_cli_json_hex64(j, "server", pj->joints[i].server);
                bsync_cli_json_hex64(j, "client", pj->joints[i].client);
            }
        } else if (bundle) {
            bsync_cli_json_add(o, "pose_joints", cJSON_CreateNull());
        }
        if (traced == 1 && tres.located) {
            cJSON* fd = bsync_cli_json_add(o, "first_divergence", cJSON_CreateObject());
            bsync_cli_json_num(fd, "tick", "%u", tres.tick - 1);
            bsync_cli_json_num(fd, "character", "%u", tres.character);
            bsync_cli_json_num(fd, "operation", "%d", tres.operation);
            bsync_cli_json_add(fd, "before_trail", cJSON_CreateBool(tres.earlier));
            replay_lines_json(fd, "lines", trace_text, 1);
            bsync_cli_json_add(fd, "resimulation_reproduces_server", cJSON_CreateBool(reproduced));
        } else {
            bsync_cli_json_add(o, "first_divergence", cJSON_CreateNull());
        }
        bsync_cli_json_print(stdout, o, 0);
        cJSON_Delete(o);
    } else {
        printf("A = %s: %s (state after frame %" PRId64 ")\n", a_label, a_path, (int64_t)ta - 1);
        printf("B = %s: %s (state after frame %" PRId64 ")\n", b_label, b_path, (int64_t)tb - 1);
        printf("match %" PRIu64 " (%s)\n", bsync_match_config_match_id(cfg), cfg_path);
        if (pose) {
            char ptext[8192];
            (void)bsync_desync_bundle_pose_text(&bun.pose, ptext, sizeof ptext);
            fputs(ptext, stdout);
        }
        if (lines) printf("differences: %u (A's value first)\n", lines);
        fputs(text, stdout);
        if (traced == 1) {
            printf("first divergence (re-simulated from server-previous.bsms with inputs.csv against the client's "
                   "per-tick states in client-trail.bstrail):\n");
            if (trace_text[0]) fputs(trace_text, stdout);
            else printf("  the client's trail agrees with the re-simulation at every tick it holds (%u)\n", tres.compared);
            if (!reproduced)
                printf("  (the re-simulation here does not reproduce server.bsms: this build or its assets differ from "
                       "the server's)\n");
        } else if (traced < 0) {
            fputs(trace_text, stdout);
        }
    }
    rc = lines || pose ? 1 : 0;
done:
    if (rc == 2) {
        if (json) {
            cJSON* o = cJSON_CreateObject();
            bsync_cli_json_str(o, "error", msg);
            bsync_cli_json_print(stdout, o, 0);
            cJSON_Delete(o);
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
