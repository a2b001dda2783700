/* net_harness.h — the network tests' harness: a match written to a temp directory (the built-in
 * humanoid's locomotion graph), a real blendsync server in-process on a free loopback port, real
 * clients (client library) over ENet, and a pump that services all of them while each client sends
 * one seeded joystick input per tick at the tick rate. No mock: packets cross the loopback socket. */
#ifndef BSYNC_NET_HARNESS_H
#define BSYNC_NET_HARNESS_H

#include <stdint.h>

#include "blendsync/client.h"
#include "blendsync/io/match_config.h"
#include "blendsync/server.h"
#include "client_testing.h" /* planted faults: bsync_client_fault_desync, _pose, _drop */
#include "net_relay.h"

#define NH_MAX_CLIENTS 16
#define NH_MAX_FRAMES 4096

typedef struct nh_client {
    bsync_client* client;
    uint32_t slot;
    bsync_match_script script;
    uint64_t next_input_us, period_us;
    int ended;
    uint32_t bye_reason;
    uint32_t desync_events, resync_events;
    uint32_t incomplete_events;       /* BSYNC_CLIENT_EVENT_INCOMPLETE */
    uint32_t welcome_events, reconnecting_events; /* WELCOME (again after a reconnect), RECONNECTING */
    bsync_proto_desync last_desync;
    uint32_t frames;                  /* FRAME events seen */
    uint32_t first_frame;             /* tick of the first FRAME event */
    uint16_t defaulted[NH_MAX_FRAMES]; /* per tick: the frame's defaulted mask */
    uint64_t frame_time_us[NH_MAX_FRAMES];
    uint64_t max_gap_us;              /* between consecutive FRAME events */
    uint32_t checksum_ticks;
    int send_payload;                 /* 1: every input carries the payload "s<slot>#<n>" (n = inputs sent) */
    uint32_t payload_size;            /* 0: that text; else that many bytes of 'x' (to test the limit) */
    uint32_t inputs_sent;
} nh_client;

typedef struct nh_world {
    char dir[256];
    char match_path[300];
    bsync_match_config* cfg;
    bsync_server* server;
    uint16_t port;
    nh_client clients[NH_MAX_CLIENTS];
    uint32_t client_count;
    const char* second_match_text; /* nh_start_two: a second match (same dir, match2.json) */
    char second_match_path[300];
    nr_relay* relay; /* nh_use_relay: clients connect through it */
} nh_world;

/* The match config's lobby timeout ("timeouts.start_ms") for the next nh_start: 0 = 3000. */
extern uint32_t nh_config_start_ms;
/* The server's overload threshold (bsync_server_config.overload_busy_permille) for the next nh_start:
 * 0 = the server's default. */
extern uint32_t nh_config_overload_permille;

/* Authenticated sessions for the next nh_start: NULL = plain tokens; "encrypt" or "authenticate": every
 * player gets the secret nh_secret_hex(slot) and the match that "session". nh_connect then gives each
 * client its slot's secret unless extra->secret is set, or extra->session_mode is NH_PLAIN (no secret). */
extern const char* nh_config_session;
#define NH_PLAIN 0xFFFFFFFFu
/* The test secret of a slot: 64 hex digits, each the digit (slot + 1) % 16. */
void nh_secret(uint32_t slot, uint8_t out[32]);

/* Write the graph and a match config (players, tick rate 60, input delay, checksum interval, policy,
 * duration) into a fresh temp dir, load it, start the server. Returns 0 on success. */
int nh_start(nh_world* w, uint32_t players, uint32_t npcs, uint32_t input_delay, uint32_t checksum_interval,
             const char* policy, uint32_t duration_ticks, int verify_poses);
/* The same with a second match (its config text, written as match2.json beside the first). */
int nh_start_two(nh_world* w, const char* second_match_text, uint32_t players, uint32_t npcs, uint32_t input_delay,
                 uint32_t checksum_interval, const char* policy, uint32_t duration_ticks, int verify_poses);
/* Another graph and input layout for nh_start_with (any field NULL / 0: the default). The graph text
 * is written as loco.json (it must have the parameters speed and lean); triggers_json is the match
 * config's input "triggers" array; hold_min/hold_max the scripts' hold ticks (default 10, 40). */
typedef struct nh_options {
    const char* graph_text;
    const char* triggers_json;
    uint32_t hold_min, hold_max;
} nh_options;
int nh_start_with(nh_world* w, const nh_options* o, uint32_t players, uint32_t npcs, uint32_t input_delay,
                  uint32_t checksum_interval, const char* policy, uint32_t duration_ticks, int verify_poses);
/* Put a seeded impaired UDP relay (net_relay.h) between the clients connected from now on and the
 * server; nh_pump pumps it. 0 on success. */
int nh_use_relay(nh_world* w, const nr_impair* impair, uint64_t seed);
/* Connect a client for slot (extra: config fields such as synctest_distance, desync_dir or a secret;
 * may be NULL). Returns its index. */
int nh_connect(nh_world* w, uint32_t slot, const bsync_client_config* extra);
/* Service the server and every client for ms milliseconds (clients send inputs at the tick rate). */
void nh_pump(nh_world* w, uint32_t ms);
/* Pump until the server's match has ended and every client has ended (or timeout_ms). 0 when done. */
int nh_run_to_end(nh_world* w, uint32_t timeout_ms);
void nh_disconnect(nh_world* w, int index);
void nh_stop(nh_world* w);
/* Blend / pose checksums of client i's match now. */
void nh_client_checksums(nh_world* w, int i, bsync_match_checksums* out);

#endif
