/* main.c — `blendsync`: the command-line tool. Dispatches to one cmd_<name>.c per subcommand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/base.h"
#include "commands.h"

typedef struct command {
    const char* name;
    int (*run)(int argc, char** argv);
    const char* summary;
} command;

static const command k_commands[] = {
    {"demo", bsync_cmd_demo, "blend the built-in humanoid's idle/walk/run tick by tick and print checksums"},
    {"weights", bsync_cmd_weights, "print a blend node's weights for given parameter values"},
#if defined(BSYNC_HAVE_PLOT) /* cairo: every CMake build unless -DBSYNC_PLOT=OFF */
    {"plot", bsync_cmd_plot, "draw a blend space as a PNG, SVG or PDF picture"},
#endif
    {"import", bsync_cmd_import, "glTF / BVH files -> one .bsclip (skeleton + fixed-point clips)"},
    {"eval", bsync_cmd_eval, "drive a graph instance from a CSV script; per-tick state as JSON Lines"},
    {"bake", bsync_cmd_bake, "run a graph config tick by tick and write the result as a glTF 2.0 .glb"},
#if defined(BSYNC_HAVE_NET) /* the client library and ENet: every CMake build; builds without ENet leave bot out */
    {"bot", bsync_cmd_bot, "a headless client: join a match on a blendsync-server and play a seeded joystick path"},
#endif
    {"validate", bsync_cmd_validate, "check clips and configs before a match (seams, joints, precision, speeds)"},
    {"replay", bsync_cmd_replay, "verify a recorded match (re-simulate, compare checksums), describe or cut a replay"},
    {"desync", bsync_cmd_desync, "diff two match snapshots (a desync bundle): the parameters and nodes that differ"},
    {"synctest", bsync_cmd_synctest, "rewind and re-simulate a graph instance every tick (sync test): list every mismatch"},
#if defined(BSYNC_HAVE_STUDIO) /* libmicrohttpd: builds without it leave studio out */
    {"studio", bsync_cmd_studio, "serve the studio page: tune blend spaces, scrub replays, see desyncs (browser)"},
#endif
#if defined(BSYNC_HAVE_MATCH_CMD) /* libcurl: builds without it leave match out */
    {"match", bsync_cmd_match, "create, list, show and end matches on a running server (its admin API)"},
#endif
    {"bench", bsync_cmd_bench, "time sampling, blending and graph ticks per character (the ozz-comparison workload)"},
};

static void usage(FILE* f) {
    fprintf(f, "usage: blendsync <command> [options]   (blendsync <command> --help for its options)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        fprintf(f, "  %-10s %s\n", k_commands[i].name, k_commands[i].summary);
    fprintf(f, "\nblendsync %s\n", BSYNC_VERSION_STRING);
}

int main(int argc, char** argv) {
    if (bsync_cli_apply_simd_env("blendsync") != 0) return 2;
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("blendsync %s\n", BSYNC_VERSION_STRING);
        return 0;
    }
    if (!strcmp(argv[1], "demo"))
        for (int i = 2; i < argc; i++)
            if (!strcmp(argv[i], "--data") || !strcmp(argv[i], "--locomotion")) return bsync_cmd_demo_data(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        if (!strcmp(argv[1], k_commands[i].name)) return k_commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "blendsync: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
