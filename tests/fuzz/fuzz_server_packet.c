/* fuzz_server_packet.c — the server's handling of one received packet (issue 18), through its
 * transport port on the virtual network (tests/support/vnet.h: raw connections): no socket traffic,
 * no clock, the real session code from the size check and per-peer caps through decoding to the
 * HELLO / INPUT / CHECKSUM / SNAPSHOT / BYE handlers, violations and ABUSE, and the desync-upload
 * reassembly; what the server answers is encoded, sealed and handed to the port, then discarded.
 *
 * One server is created at the first input (a 2-player match of the built-in humanoid written to a
 * temporary directory, log to /dev/null, or stderr with BSYNC_FUZZ_LOG=1) and kept; every input starts with no connection and ends
 * with all of them gone, so inputs do not depend on each other beyond the lobby's input ring. Virtual
 * time stands still (no tick is confirmed), and each connection comes from an address of its own (the
 * per-address connect limit never refuses one).
 *
 * Input: a sequence of records, each
 *   u8  flags: bits 0-1 the connection (0..3); bit 6: before this packet, join that connection with a
 *       valid HELLO for slot (connection % 2) (so the packet reaches the joined handlers); bit 7: if the
 *       packet is a HELLO of at least 24 body bytes, its match id and match hash are set to the real
 *       ones (so mutations of the slot, resume and token reach the checks behind them)
 *   u16 length (little-endian; cut to what is left), then that many bytes: the packet.
 * A trailing partial record is one packet of what is left. Never crashes, leaks or reads out of
 * bounds; returns 0. Seeds in corpus/server_packet (written with tests/conformance/bsync_wire.py's
 * encoder). Built by ctest with bsync_vnet (tests/CMakeLists.txt links it); scripts/fuzz.sh
 * compiles the server's and the client's sources and vnet.c, and links ENet for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blendsync/io/match_config.h"
#include "blendsync/match.h"
#include "blendsync/proto.h"
#include "blendsync/server.h"
#include "fuzz_target.h"
#include "vnet.h"

#define CONNECTIONS 4u

static const char* k_graph =
    "{ \"tick_rate\": 60,\n"
    "  \"parameters\": { \"speed\": { \"default\": 0, \"smooth_time\": 0.2, \"max_speed\": 10 },\n"
    "                  \"lean\": { \"default\": 0 } },\n"
    "  \"root\": \"locomotion\",\n"
    "  \"nodes\": { \"locomotion\": { \"type\": \"Simple1D\", \"parameter\": \"speed\", \"children\": [\n"
    "      { \"motion\": \"idle\", \"threshold\": 0 }, { \"motion\": \"walk\", \"threshold\": 1.4 } ] } },\n"
    "  \"clips\": { \"idle\": { \"source\": \"builtin:humanoid\" }, \"walk\": { \"source\": \"builtin:humanoid\" } } }\n";

static const char* k_match =
    "{ \"match_id\": 42, \"players\": [ {\"token\": \"tok-0\"}, {\"token\": \"tok-1\"} ],\n"
    "  \"input\": { \"parameters\": [ {\"name\": \"speed\", \"min\": 0, \"max\": 3.5}, {\"name\": \"lean\", \"min\": -1, \"max\": 1} ] },\n"
    "  \"characters\": [ {\"name\": \"p0\", \"graph\": \"loco.json\", \"slot\": 0}, {\"name\": \"p1\", \"graph\": \"loco.json\", \"slot\": 1} ],\n"
    "  \"input_delay\": 3, \"checksum_interval\": 20, \"payload_max\": 32, \"duration_ticks\": 600 }\n";

static vn_net* g_net;
static bsync_server* g_server;
static uint32_t g_addr; /* the next connection's address key */
static uint64_t g_hash;
static FILE* g_log;
static char g_dir[64];

static int write_text(const char* dir, const char* name, const char* text) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

static void teardown(void) {
    vn_destroy(g_net); /* and its server */
    g_net = NULL;
    g_server = NULL;
    if (g_log) fclose(g_log);
    char path[128];
    snprintf(path, sizeof path, "%s/loco.json", g_dir);
    remove(path);
    snprintf(path, sizeof path, "%s/match.json", g_dir);
    remove(path);
    rmdir(g_dir);
}

static int setup(void) {
    snprintf(g_dir, sizeof g_dir, "/tmp/bsync-fuzz-server-XXXXXX");
    if (!mkdtemp(g_dir) || write_text(g_dir, "loco.json", k_graph) != 0 || write_text(g_dir, "match.json", k_match) != 0)
        return -1;
    char path[128];
    snprintf(path, sizeof path, "%s/match.json", g_dir);
    bsync_match_config* cfg = NULL;
    bsync_error err;
    if (bsync_match_config_load(path, NULL, &cfg, &err) != BSYNC_OK) return -1;
    g_hash = bsync_match_hash(bsync_match_config_desc(cfg));
    bsync_match_config_destroy(cfg);
    g_log = getenv("BSYNC_FUZZ_LOG") ? NULL : fopen("/dev/null", "w"); /* BSYNC_FUZZ_LOG=1: log to stderr */
    const char* paths[1] = {path};
    bsync_server_config sc;
    memset(&sc, 0, sizeof sc);
    sc.host = "127.0.0.1";
    sc.match_paths = paths;
    sc.match_count = 1;
    sc.log = g_log ? g_log : stderr; /* (the virtual network keeps a NULL log for its tests instead) */
    g_net = vn_create(1);
    if (!g_net || vn_server(g_net, &sc, 16u, &g_server, &err) != BSYNC_OK) return -1;
    atexit(teardown);
    return 0;
}

/* The virtual connection of fuzz connection i (0..3), opened when it has none or the server let it go. */
static uint32_t g_conn[CONNECTIONS];

static uint32_t conn_of(uint32_t connection) {
    if (g_conn[connection] == UINT32_MAX) g_conn[connection] = vn_raw_open(g_net, g_addr++);
    return g_conn[connection];
}

static void deliver(uint32_t connection, const uint8_t* data, size_t len) {
    if (vn_raw_packet(g_net, conn_of(connection), data, len) == 0) return;
    g_conn[connection] = UINT32_MAX; /* dropped by the server (a takeover): a connection that has just come up */
    (void)vn_raw_packet(g_net, conn_of(connection), data, len);
}

static void join(uint32_t connection) {
    bsync_proto_msg m;
    memset(&m, 0, sizeof m);
    m.type = BSYNC_PROTO_HELLO;
    m.hello.match_id = 42;
    m.hello.graph_hash = g_hash;
    m.hello.slot = (uint8_t)(connection % 2u);
    m.hello.token_len = 5;
    memcpy(m.hello.token, connection % 2u ? "tok-1" : "tok-0", 5);
    uint8_t buf[64];
    size_t len = 0;
    if (bsync_proto_encode(&m, buf, sizeof buf, &len) == BSYNC_PROTO_OK) deliver(connection, buf, len);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!g_server && setup() != 0) abort(); /* the harness itself is broken */
    for (uint32_t c = 0; c < CONNECTIONS; c++) g_conn[c] = UINT32_MAX;
    size_t at = 0;
    while (at < size) {
        const uint8_t flags = data[at++];
        const uint32_t connection = flags & 3u;
        size_t len = size - at;
        if (len >= 2) {
            size_t want = (size_t)data[at] | (size_t)data[at + 1] << 8;
            at += 2;
            len = size - at;
            if (want < len) len = want;
        }
        if (flags & 0x40u) join(connection);
        uint8_t* packet = malloc(len ? len : 1); /* its own exact-size buffer: ASan sees any overread */
        if (!packet) abort();
        memcpy(packet, data + at, len);
        if ((flags & 0x80u) && len >= 8u + 24u && packet[3] == BSYNC_PROTO_HELLO) {
            const uint64_t id = 42;
            for (int i = 0; i < 8; i++) {
                packet[8 + i] = (uint8_t)(id >> (8 * i));
                packet[16 + i] = (uint8_t)(g_hash >> (8 * i));
            }
        }
        deliver(connection, packet, len);
        free(packet);
        at += len;
    }
    for (uint32_t c = 0; c < CONNECTIONS; c++)
        if (g_conn[c] != UINT32_MAX) vn_raw_gone(g_net, g_conn[c]);
    return 0;
}
