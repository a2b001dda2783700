/* udp_relay.c — the network tests' seeded impaired UDP relay (tests/net/net_relay.h) as a program, to
 * put between real `blendsync bot` and `blendsync-server` processes (tests/cli/cli_bot_relay.sh).
 * usage: bsync_udp_relay --to PORT [--seed N] [--loss PERMILLE] [--delay MIN_MS MAX_MS] [--dup PERMILLE]
 *                        [--bursts GOOD_MS BAD_MS] [--stalls EVERY_MS MS] [--blackout-after MS] [--for MS]
 * Prints "relaying on 127.0.0.1:PORT" first, runs --for MS (default 60000), then prints its counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net_relay.h"

static unsigned long arg(int argc, char** argv, int* i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "bsync_udp_relay: %s needs a value\n", argv[*i]);
        exit(2);
    }
    return strtoul(argv[++*i], NULL, 10);
}

int main(int argc, char** argv) {
    nr_impair im;
    memset(&im, 0, sizeof im);
    unsigned long to = 0, seed = 1, run_ms = 60000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--to")) to = arg(argc, argv, &i);
        else if (!strcmp(argv[i], "--seed")) seed = arg(argc, argv, &i);
        else if (!strcmp(argv[i], "--loss")) im.loss_permille = (uint32_t)arg(argc, argv, &i);
        else if (!strcmp(argv[i], "--dup")) im.dup_permille = (uint32_t)arg(argc, argv, &i);
        else if (!strcmp(argv[i], "--delay")) {
            im.delay_min_ms = (uint32_t)arg(argc, argv, &i);
            im.delay_max_ms = (uint32_t)arg(argc, argv, &i);
        } else if (!strcmp(argv[i], "--bursts")) {
            im.burst_good_ms = (uint32_t)arg(argc, argv, &i);
            im.burst_bad_ms = (uint32_t)arg(argc, argv, &i);
            im.burst_loss_permille = 1000;
        } else if (!strcmp(argv[i], "--stalls")) {
            im.stall_every_ms = (uint32_t)arg(argc, argv, &i);
            im.stall_ms = (uint32_t)arg(argc, argv, &i);
            im.stall_drop = 1;
        } else if (!strcmp(argv[i], "--blackout-after")) im.blackout_after_ms = (uint32_t)arg(argc, argv, &i);
        else if (!strcmp(argv[i], "--for")) run_ms = arg(argc, argv, &i);
        else {
            fprintf(stderr, "bsync_udp_relay: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (!to || to > 65535 || im.delay_min_ms > im.delay_max_ms || im.loss_permille > 1000 || im.dup_permille > 1000) {
        fprintf(stderr, "bsync_udp_relay: need --to PORT (and sane options)\n");
        return 2;
    }
    nr_relay* r = nr_relay_create((uint16_t)to, &im, seed);
    if (!r) {
        fprintf(stderr, "bsync_udp_relay: cannot open sockets\n");
        return 1;
    }
    printf("relaying on 127.0.0.1:%u\n", (unsigned)nr_relay_port(r));
    fflush(stdout);
    nr_relay_run(r, (uint32_t)run_ms);
    nr_stats st;
    nr_relay_stats(r, &st);
    printf("relay: up %llu in %llu lost %llu dup; down %llu in %llu lost %llu dup; %llu stalled\n",
           (unsigned long long)st.up.in, (unsigned long long)(st.up.lost + st.up.burst_lost),
           (unsigned long long)st.up.duplicated, (unsigned long long)st.down.in,
           (unsigned long long)(st.down.lost + st.down.burst_lost), (unsigned long long)st.down.duplicated,
           (unsigned long long)(st.up.stalled + st.down.stalled));
    nr_relay_destroy(r);
    return 0;
}
