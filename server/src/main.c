/* main.c — `blendsync-server`: the lockstep server's command line (blendsync/server.h does the work).
 *
 *   blendsync-server --listen HOST:PORT --match FILE [--match FILE ...] [--verify-poses]
 *                    [--status SECONDS] [--replay FILE] [--exit-when-done] [--log FILE]
 *                    [--overload PERMILLE] [--workers N]
 *   blendsync-server --listen HOST:PORT --recover DIR [options]   (after a crash: docs/server.md "Recovery")
 *                    [--admin HOST:PORT --admin-token-file F --assets DIR [--replay-dir DIR] [--admin-public]
 *                     [--admin-players N]] [--drain-seconds S]
 *
 * Runs until SIGINT / SIGTERM or Ctrl-C (io/platform.h; every match then ends cleanly: END record, BYE SHUTDOWN, exit 0) or,
 * with --exit-when-done, until every match has ended. Exit: 0 clean, 2 start-up error (message on
 * stderr). Log lines are key=value (docs/server.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/net.h"
#include "blendsync/server.h"
#if defined(BSYNC_HAVE_ADMIN)
#include "server_admin.h"
#endif

#include "platform.h" /* interrupts: SIGINT / SIGTERM, Ctrl-C on Windows */
#if defined(BSYNC_HAVE_AGONES)
#include "server_agones.h"
#endif

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync-server --listen HOST:PORT --match FILE [--match FILE ...] [options]\n"
            "\n"
            "The blendsync lockstep server: holds the authoritative blend state of every character of\n"
            "each match, relays confirmed input frames, verifies the clients' checksums, reports and\n"
            "handles desyncs, records replays. Protocol: docs/lockstep.md; match files:\n"
            "docs/match-config.md; operations: docs/server.md.\n"
            "\n"
            "  --listen HOST:PORT   address to bind (e.g. 127.0.0.1:7777; port 0 = any free port)\n"
            "  --match FILE         a match config (JSON); repeat for several matches (1..256)\n"
            "  --verify-poses       also compute poses and compare the clients' pose checksums with\n"
            "                       the server's own (default: blend state only; poses by majority)\n"
            "  --status SECONDS     a status line per match this often (default 1; 0 = never)\n"
            "  --replay FILE        record the (single) match here instead of the config's \"replay\"\n"
            "  --exit-when-done     exit once every match has ended\n"
            "  --log FILE           append log lines to FILE instead of stderr\n"
            "  --overload PERMILLE  a worker's budget, this share of a core (default 500; 1001 = never\n"
            "                       refuse): a new match is refused (BYE OVERLOADED) at its first HELLO\n"
            "                       when its predicted cost and the admitted matches' exceed it, or\n"
            "                       while the worker is busy this share of each second or more\n"
            "  --workers N          N threads, each with its own port and matches: match k (in --match\n"
            "                       order) is served by worker k %% N on port PORT + k %% N (port 0: any\n"
            "                       free ports, one \"listening on\" line per worker, in worker order);\n"
            "                       default 1. One worker carries about 2,000 players (docs/server.md)\n"
            "\n"
            "Crash recovery and fleets (docs/server.md \"Recovery\", docs/deploy.md):\n"
            "  --recover DIR        rebuild every unfinished match from its replay in DIR (the folder the\n"
            "                       replays were written to; same --listen and assets) and serve it again\n"
            "                       at its last recorded tick, instead of the --match files; when DIR has\n"
            "                       none: the --match files, or without any, exit 0\n"
            "  --agones [URL]       follow the Agones GameServer lifecycle through the SDK sidecar's REST\n"
            "                       API at URL (default http://localhost:$AGONES_SDK_HTTP_PORT, port 9358):\n"
            "                       Ready once loaded, Health pings, Shutdown when the server stops (with\n"
            "                       --exit-when-done: when its matches are done)\n"
            "  --agones-health SECONDS  Health ping interval (default 5)\n"
            "Operating it (docs/operations.md):\n"
            "  --admin HOST:PORT    serve the admin HTTP API (matches, /metrics, /healthz, /readyz) there;\n"
            "                       loopback only unless --admin-public; --match is then optional\n"
            "  --admin-token-file F the bearer token every API request must carry (first line of F)\n"
            "  --assets DIR         graphs of API-created matches are named relative to DIR\n"
            "  --replay-dir DIR     an API match's \"replay\" is relative to DIR (default: --assets)\n"
            "  --admin-public       allow a non-loopback --admin address\n"
            "  --admin-players N    players each worker makes room for (default 2000)\n"
            "  --drain-seconds S    SIGTERM: not ready, no new matches, running matches play on for up\n"
            "                       to S seconds (default 30), then end; a second SIGTERM ends at once\n"
            "  --help               this text\n"
            "\n"
            "ENet does not encrypt: tokens travel in clear text; see README \"Security\".\n"
            "Exit status: 0 after a clean end, SIGINT or a drain (SIGTERM), 2 on a start-up error.\n");
}

/* SIGINT: every match ends now; the first SIGTERM drains, a second one ends at once (atomic flags:
 * safe from every worker's thread) */
static int interrupted(void* user) {
    (void)user;
    const int terms = bsync_platform_terminations();
    return bsync_platform_interrupted() && (terms == 0 || terms >= 2);
}

static int terminated(void* user) {
    (void)user;
    return bsync_platform_terminations() >= 1;
}

typedef struct admin_options {
    const char* listen;
    const char* token_file;
    const char* assets;
    const char* replay_dir;
    int public_ok;
    uint32_t players;
} admin_options;

/* The token: the file's first line without its line end. 0, or -1 after a message. */
static int read_token(const char* path, char* out, size_t cap) {
    FILE* f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t n = fgets(out, (int)cap, f) ? strlen(out) : 0;
    fclose(f);
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' ')) out[--n] = '\0';
    if (n == 0) {
        fprintf(stderr, "blendsync-server: --admin-token-file %s: no token in its first line\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char** argv) {
    const char* listen = NULL;
    const char* matches[BSYNC_SERVER_MAX_MATCHES];
    uint32_t match_count = 0;
    bsync_server_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.status_interval_ms = 1000;
    int exit_when_done = 0;
    uint32_t workers = 1;
    const char* log_path = NULL;
    /* crash recovery and fleets */
    const char* recover_dir = NULL;
    int agones = 0;
    const char* agones_url = NULL;
    uint32_t agones_health_ms = 0;
    admin_options admin;
    memset(&admin, 0, sizeof admin);
    admin.players = 2000;
    uint32_t drain_seconds = 30;
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--listen") && has) {
            listen = argv[++i];
        } else if (!strcmp(a, "--match") && has) {
            if (match_count == BSYNC_SERVER_MAX_MATCHES) {
                fprintf(stderr, "blendsync-server: at most %u --match files\n", BSYNC_SERVER_MAX_MATCHES);
                return 2;
            }
            matches[match_count++] = argv[++i];
        } else if (!strcmp(a, "--verify-poses")) {
            cfg.verify_poses = 1;
        } else if (!strcmp(a, "--status") && has) {
            char* end = NULL;
            double v = strtod(argv[++i], &end); /* a setting, never simulated */
            if (!end || *end || v < 0 || v > 3600) {
                fprintf(stderr, "blendsync-server: --status: expected seconds 0..3600, got \"%s\"\n", argv[i]);
                return 2;
            }
            cfg.status_interval_ms = (uint32_t)(v * 1000.0);
        } else if (!strcmp(a, "--overload") && has) {
            char* end = NULL;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (!end || *end || v < 1 || v > 1001) {
                fprintf(stderr, "blendsync-server: --overload: expected permille 1..1001, got \"%s\"\n", argv[i]);
                return 2;
            }
            cfg.overload_busy_permille = (uint32_t)v;
        } else if (!strcmp(a, "--workers") && has) {
            char* end = NULL;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (!end || *end || v < 1 || v > BSYNC_SERVER_MAX_WORKERS) {
                fprintf(stderr, "blendsync-server: --workers: expected 1..%u, got \"%s\"\n", BSYNC_SERVER_MAX_WORKERS,
                        argv[i]);
                return 2;
            }
            workers = (uint32_t)v;
        } else if (!strcmp(a, "--replay") && has) {
            cfg.replay_override = argv[++i];
        } else if (!strcmp(a, "--exit-when-done")) {
            exit_when_done = 1;
        } else if (!strcmp(a, "--log") && has) {
            log_path = argv[++i];
        } else if (!strcmp(a, "--recover") && has) { /* crash recovery and fleets */
            recover_dir = argv[++i];
        } else if (!strcmp(a, "--agones")) {
            agones = 1;
            if (has && !strncmp(argv[i + 1], "http", 4)) agones_url = argv[++i];
        } else if (!strcmp(a, "--agones-health") && has) {
            char* end = NULL;
            double v = strtod(argv[++i], &end); /* a setting, never simulated */
            if (!end || *end || v < 0.05 || v > 3600) {
                fprintf(stderr, "blendsync-server: --agones-health: expected seconds 0.05..3600, got \"%s\"\n", argv[i]);
                return 2;
            }
            agones_health_ms = (uint32_t)(v * 1000.0);
        /* operating it: the admin API and the drain (docs/operations.md) */
        } else if (!strcmp(a, "--admin") && has) {
            admin.listen = argv[++i];
        } else if (!strcmp(a, "--admin-token-file") && has) {
            admin.token_file = argv[++i];
        } else if (!strcmp(a, "--assets") && has) {
            admin.assets = argv[++i];
        } else if (!strcmp(a, "--replay-dir") && has) {
            admin.replay_dir = argv[++i];
        } else if (!strcmp(a, "--admin-public")) {
            admin.public_ok = 1;
        } else if ((!strcmp(a, "--admin-players") || !strcmp(a, "--drain-seconds")) && has) {
            char* end = NULL;
            unsigned long v = strtoul(argv[++i], &end, 10);
            const int players = a[2] == 'a';
            if (!end || *end || (players ? v < 1 || v > 2000 : v > 86400)) {
                fprintf(stderr, "blendsync-server: %s: expected %s, got \"%s\"\n", a, players ? "1..2000" : "seconds 0..86400",
                        argv[i]);
                return 2;
            }
            if (players) admin.players = (uint32_t)v;
            else drain_seconds = (uint32_t)v;
        } else {
            fprintf(stderr, "blendsync-server: unknown or incomplete argument \"%s\"\n\n", a);
            usage(stderr);
            return 2;
        }
    }
    static char recovered[BSYNC_SERVER_MAX_MATCHES][1024];
    if (recover_dir) {
        bsync_error rerr;
        memset(&rerr, 0, sizeof rerr);
        uint32_t found = 0;
        if (bsync_server_recover_scan(recover_dir, &recovered[0][0], sizeof recovered[0], BSYNC_SERVER_MAX_MATCHES,
                                      &found, &rerr) != BSYNC_OK) {
            fprintf(stderr, "blendsync-server: --recover: %s\n", rerr.message);
            return 2;
        }
        if (found == 0 && match_count == 0 && !admin.listen) {
            fprintf(stderr, "blendsync-server: --recover %s: no unfinished replay, nothing to recover\n", recover_dir);
            return 0;
        }
        if (found > 0) { /* the unfinished matches, instead of any --match files (a restarted container) */
            if (match_count)
                fprintf(stderr, "blendsync-server: --recover %s: %u unfinished replays: recovering them instead of the "
                        "--match files\n", recover_dir, found);
            match_count = found;
            for (uint32_t k = 0; k < match_count; k++) matches[k] = recovered[k];
            cfg.recover = 1;
            cfg.replay_override = NULL; /* each continues in its own file */
        }
    }
#if !defined(BSYNC_HAVE_AGONES)
    (void)agones_url;
    (void)agones_health_ms;
    if (agones) {
        fprintf(stderr, "blendsync-server: --agones: this build has no libcurl (install libcurl4-openssl-dev)\n");
        return 2;
    }
#endif
    if (!listen || (match_count == 0 && !admin.listen)) {
        fprintf(stderr, "blendsync-server: --listen HOST:PORT and at least one --match FILE (or --admin) are required\n\n");
        usage(stderr);
        return 2;
    }
    char token[600] = "";
    char admin_host[256] = "";
    uint16_t admin_port = 0;
    if (admin.listen) {
#if !defined(BSYNC_HAVE_ADMIN)
        fprintf(stderr, "blendsync-server: --admin: this build has no admin API (it needs libmicrohttpd)\n");
        return 2;
#endif
        if (!admin.token_file || !admin.assets) {
            fprintf(stderr, "blendsync-server: --admin needs --admin-token-file FILE and --assets DIR\n");
            return 2;
        }
        if (exit_when_done && match_count == 0) {
            fprintf(stderr, "blendsync-server: --exit-when-done needs a --match (with --admin alone it would exit at once)\n");
            return 2;
        }
        const char* colon = strrchr(admin.listen, ':');
        char* end = NULL;
        unsigned long v = colon ? strtoul(colon + 1, &end, 10) : 0;
        size_t n = colon ? (size_t)(colon - admin.listen) : 0;
        if (!colon || n == 0 || n >= sizeof admin_host || !end || *end || end == colon + 1 || v > 65535) {
            fprintf(stderr, "blendsync-server: --admin: expected HOST:PORT, got \"%s\"\n", admin.listen);
            return 2;
        }
        memcpy(admin_host, admin.listen, n);
        admin_port = (uint16_t)v;
        if (read_token(admin.token_file, token, sizeof token) != 0) return 2;
        cfg.player_capacity = admin.players;
    } else if (admin.token_file || admin.assets || admin.replay_dir || admin.public_ok) {
        fprintf(stderr, "blendsync-server: --admin-token-file, --assets, --replay-dir, --admin-public need --admin\n");
        return 2;
    }
    if (workers > match_count && !admin.listen) {
        fprintf(stderr, "blendsync-server: --workers %u needs at least %u --match files (one per worker)\n", workers,
                workers);
        return 2;
    }
    if (cfg.replay_override && match_count != 1) {
        fprintf(stderr, "blendsync-server: --replay applies to a single match\n");
        return 2;
    }
    char host[256];
    uint16_t port = 0;
    if (bsync_net_parse_address(listen, host, sizeof host, &port) != 0 && strcmp(listen + strlen(listen) - 2, ":0") != 0) {
        fprintf(stderr, "blendsync-server: --listen: expected HOST:PORT, got \"%s\"\n", listen);
        return 2;
    }
    if (port == 0) { /* "HOST:0" */
        const char* colon = strrchr(listen, ':');
        size_t n = colon ? (size_t)(colon - listen) : 0;
        if (!colon || n == 0 || n >= sizeof host) {
            fprintf(stderr, "blendsync-server: --listen: expected HOST:PORT, got \"%s\"\n", listen);
            return 2;
        }
        memcpy(host, listen, n);
        host[n] = '\0';
    }
    FILE* log = NULL;
    if (log_path) {
        log = fopen(log_path, "a");
        if (!log) {
            perror(log_path);
            return 2;
        }
    }
    cfg.host = host;
    cfg.port = port;
    cfg.match_paths = matches;
    cfg.match_count = match_count;
    cfg.log = log;
    if (bsync_platform_catch_interrupts() != 0) {
        fprintf(stderr, "blendsync-server: cannot install the interrupt handlers\n");
        if (log) fclose(log);
        return 2;
    }
    bsync_server_pool* pool = NULL;
    bsync_error err;
    memset(&err, 0, sizeof err);
    if (bsync_server_pool_create(&cfg, workers, &pool, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync-server: %s\n", err.message[0] ? err.message : "cannot start");
        if (log) fclose(log);
        return 2;
    }
    /* for scripts that start the server on port 0: one line per worker, in worker order */
    for (uint32_t k = 0; k < workers; k++)
        printf("listening on %s:%u\n", host, (unsigned)bsync_server_port(bsync_server_pool_worker(pool, k)));
#if defined(BSYNC_HAVE_ADMIN)
    bsync_server_admin* api = NULL;
    if (admin.listen) {
        bsync_server_admin_config ac;
        memset(&ac, 0, sizeof ac);
        ac.host = admin_host;
        ac.port = admin_port;
        ac.allow_public = admin.public_ok;
        ac.token = token;
        ac.assets_dir = admin.assets;
        ac.replay_dir = admin.replay_dir;
        ac.match_host = host;
        if (bsync_server_admin_start(&ac, pool, &api, &err) != BSYNC_OK) {
            fprintf(stderr, "blendsync-server: %s\n", err.message[0] ? err.message : "cannot start the admin API");
            bsync_server_pool_destroy(pool);
            if (log) fclose(log);
            return 2;
        }
        printf("admin on %s:%u\n", admin_host, (unsigned)bsync_server_admin_port(api));
    }
#endif
    memset(token, 0, sizeof token);
    fflush(stdout);
#if defined(BSYNC_HAVE_AGONES)
    srv_agones* ag = NULL; /* Ready now that every match is loaded and every port bound */
    if (agones) {
        srv_agones_config ac;
        memset(&ac, 0, sizeof ac);
        ac.base_url = agones_url;
        ac.health_interval_ms = agones_health_ms;
        ac.log = log;
        if (srv_agones_start(&ac, &ag, &err) != BSYNC_OK) {
            fprintf(stderr, "blendsync-server: --agones: %s\n", err.message);
            bsync_server_pool_destroy(pool);
            if (log) fclose(log);
            return 2;
        }
    }
#endif
    /* until SIGINT / SIGTERM (or every match ended with --exit-when-done); then every worker lets END
     * and the BYEs reach its clients: under loss they need retransmissions, and a client that never
     * gets END reports its match INCOMPLETE (3 s: far above any retransmission round) */
    bsync_server_pool_run_ex(pool, interrupted, terminated, NULL, exit_when_done, 1000u * drain_seconds, 3000);
#if defined(BSYNC_HAVE_AGONES)
    if (ag) (void)srv_agones_shutdown(ag); /* the matches are done (or we were stopped): Shutdown */
#endif
#if defined(BSYNC_HAVE_ADMIN)
    bsync_server_admin_stop(api); /* before the pool it reads */
#else
    (void)admin_port; /* --admin was refused above */
#endif
    bsync_server_pool_destroy(pool);
    if (log) fclose(log);
    return 0;
}
