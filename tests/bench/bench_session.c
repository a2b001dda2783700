/* bench_session.c — the per-packet cost of authenticated sessions (issue 18; docs/security.md "Cost"):
 * seal on one side and open on the other, in both modes, for the sizes a match sends — an INPUT
 * (26 B: one record of 2 parameters, the loadtest's), a CHANGES FRAME of 8 players (~40 B), a FULL
 * FRAME of 16 players (~200 B), a 1 KiB snapshot chunk — plus the handshake (two key derivations).
 * Prints ns per packet, median of 7 rounds of 20,000 packets each.
 * usage: build/tests/bench_session [rounds] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "blendsync/session.h"

#define PER_ROUND 20000

int main(int argc, char** argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    if (rounds < 1 || rounds > 99) rounds = 7;
    if (!bsync_session_available()) {
        fprintf(stderr, "bench_session: no libsodium in this build\n");
        return 1;
    }
    uint8_t secret[32], cn[32], sn[32];
    bsync_session_random(secret, 32);
    bsync_session_random(cn, 32);
    bsync_session_random(sn, 32);
    static const size_t sizes[] = {26, 40, 200, 1040};
    static const char* const names[] = {"INPUT (26 B)", "FRAME changes, 8 players (40 B)", "FRAME full, 16 players (200 B)",
                                        "SNAPSHOT chunk (1040 B)"};
    printf("bench_session: seal + open per packet, median of %d rounds x %d packets\n", rounds, PER_ROUND);
    printf("%-34s %14s %14s\n", "message", "encrypt ns", "authenticate ns");
    static uint8_t msg[2048], sealed[2048 + 64], out[2048];
    for (size_t i = 0; i < sizeof msg; i++) msg[i] = (uint8_t)(i * 31u);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double med[2];
        for (int mode = 1; mode <= 2; mode++) {
            bsync_session c, s;
            bsync_session_derive(&c, BSYNC_SESSION_CLIENT, (bsync_session_mode)mode, secret, 1, 0, cn, sn);
            bsync_session_derive(&s, BSYNC_SESSION_SERVER, (bsync_session_mode)mode, secret, 1, 0, cn, sn);
            double t[99];
            for (int r = 0; r < rounds; r++) {
                double t0 = bench_now_ns();
                for (int i = 0; i < PER_ROUND; i++) {
                    size_t n = 0, m = 0;
                    if (bsync_session_seal(&c, 1, msg, sizes[k], sealed, sizeof sealed, &n) != BSYNC_OK ||
                        bsync_session_open(&s, sealed, n, out, sizeof out, &m) != BSYNC_SESSION_OPENED || m != sizes[k]) {
                        fprintf(stderr, "bench_session: a packet did not open\n");
                        return 1;
                    }
                }
                t[r] = (bench_now_ns() - t0) / PER_ROUND;
            }
            bench_sort(t, rounds);
            med[mode - 1] = t[rounds / 2];
        }
        printf("%-34s %14.0f %14.0f\n", names[k], med[0], med[1]);
    }
    double t[99];
    for (int r = 0; r < rounds; r++) {
        double t0 = bench_now_ns();
        for (int i = 0; i < 2000; i++) {
            bsync_session c;
            bsync_session_derive(&c, BSYNC_SESSION_CLIENT, BSYNC_SESSION_ENCRYPT, secret, 1, (uint32_t)i, cn, sn);
        }
        t[r] = (bench_now_ns() - t0) / 2000;
    }
    bench_sort(t, rounds);
    printf("%-34s %14.0f\n", "key derivation (per side)", t[rounds / 2]);
    return 0;
}
