/* net_relay.h — a seeded, impaired UDP relay on 127.0.0.1 for the network tests (issue 14).
 *
 * Clients connect to the relay's port instead of the server's; every datagram is forwarded to the
 * server (and the server's answers back) through an impairment: independent loss, bursts of loss
 * (a two-state Gilbert-Elliott channel on a timed schedule), delay with jitter (which reorders), extra reordering,
 * duplication and periodic stalls. Real ENet sockets on both sides: the relay speaks raw UDP (through
 * ENet's portable socket calls) and never looks inside the packets.
 *
 * Why a relay beside the transport ports (server/src/server_transport.h, client/lib/client_transport.h,
 * whose virtual adapter tests/support/vnet.h plays sessions on virtual time): a relay needs no change
 * to the server or the client library, so what the network tests exercise is exactly the code that
 * ships, over the kernel's UDP stack, with ENet's own retransmission, ordering and timeouts in the
 * loop; and it can stand between the real `blendsync bot` and `blendsync-server` processes too
 * (tests/tools/udp_relay.c). It is also where tests get loss and delay: the client library has no
 * switches of its own for them (up_only impairs what clients send and leaves the rest alone).
 *
 * Determinism: every decision (lost?, burst state, delay, duplicate?, reordered?) comes from a
 * splitmix64 stream seeded by (seed, session, direction), one step per datagram, so the n-th datagram
 * of a direction meets the same fate in every run with the same seed; the burst periods come from a
 * second stream per direction as a schedule in time from the session's first datagram, and stalls sit
 * at fixed times from the relay's creation. What a run sends still depends on timing, so runs are alike, not identical.
 *
 * Not thread-safe; no threads: call nr_relay_pump often (the harness does, every 0.5 ms).
 */
#ifndef BSYNC_NET_RELAY_H
#define BSYNC_NET_RELAY_H

#include <stdint.h>

typedef struct nr_impair {
    uint32_t loss_permille;        /* each datagram lost independently */
    /* bursts: each direction alternates good and bad periods on a schedule drawn from the seed, each
     * period uniform in [mean / 2, 3 mean / 2] ms; in a bad period datagrams are lost with
     * burst_loss_permille (so 240 / 60 ms and 1000 lose 20% of the time, in bursts of 30..90 ms) */
    uint32_t burst_good_ms, burst_bad_ms; /* 0: no bursts */
    uint32_t burst_loss_permille;
    uint32_t delay_min_ms, delay_max_ms; /* one-way delay, uniform (jitter reorders) */
    uint32_t reorder_permille, reorder_ms; /* some datagrams held back reorder_ms more */
    uint32_t dup_permille;         /* a second copy, with its own delay */
    uint32_t stall_every_ms, stall_ms; /* from creation: every stall_every_ms, stall_ms with nothing through */
    int stall_drop;                /* 1: datagrams in a stall are lost; 0: held and released at its end */
    uint32_t blackout_after_ms;    /* from creation: after this long nothing gets through (0: never) */
    int up_only;                   /* 1: only client -> server datagrams are impaired; the server's
                                      answers pass at once, untouched */
} nr_impair;

typedef struct nr_dir_stats {
    uint64_t in, delivered, lost, burst_lost, duplicated, reordered, stalled, overflow;
} nr_dir_stats;

typedef struct nr_stats {
    nr_dir_stats up;   /* client -> server */
    nr_dir_stats down; /* server -> client */
    uint32_t sessions;
} nr_stats;

typedef struct nr_relay nr_relay;

/* Listen on 127.0.0.1:0 (a free port) and forward to 127.0.0.1:server_port. NULL on failure. */
nr_relay* nr_relay_create(uint16_t server_port, const nr_impair* impair, uint64_t seed);
uint16_t nr_relay_port(const nr_relay* r);
/* Receive what is waiting on every socket, forward every datagram that is due. Never blocks. */
void nr_relay_pump(nr_relay* r);
/* Wait up to ms for traffic (pumping); for a relay running on its own. */
void nr_relay_run(nr_relay* r, uint32_t ms);
void nr_relay_stats(const nr_relay* r, nr_stats* out);
/* An on-path attacker for the session tests (test_net_auth.c): called with every datagram as it
 * arrives (down = 1: server -> client), before the impairment; it may rewrite the bytes and the
 * length (up to cap). NULL: none. */
typedef void (*nr_tamper_fn)(void* ctx, uint32_t session, int down, uint8_t* data, uint32_t* len, uint32_t cap);
void nr_relay_set_tamper(nr_relay* r, nr_tamper_fn fn, void* ctx);
void nr_relay_destroy(nr_relay* r);

#endif
