/* fuzz_session.c — the session layer (blendsync/session.h; issue 18), the first thing a server does
 * with every packet of an authenticated peer. A fixed pair of sessions (one secret, fixed nonces) is
 * derived once; then each input is
 *   1. opened as a packet from the client: a forged packet must never open (a tag is 128 bits: an
 *      input that opens is a forgery, and aborts), and whatever the bytes nothing is read or written
 *      out of bounds, and the replay window moves only for packets that opened;
 *   2. sealed as a message on a lane from its first byte, then opened: the message comes back exactly,
 *      in the compact form (12 bytes more) exactly when it is a plain version 7 message, else the long
 *      one (26 more),
 *      the same packet again is refused as replayed, and with one byte changed (position and xor taken
 *      from the input) it does not open.
 * Built by ctest with blendsync_net (tests/CMakeLists.txt); scripts/fuzz.sh adds session.c and
 * libsodium. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/session.h"
#include "fuzz_target.h"

static bsync_session g_client, g_server;
static int g_ready;

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (!g_ready) {
        uint8_t secret[32], cn[32], sn[32];
        for (int i = 0; i < 32; i++) secret[i] = (uint8_t)(i * 11 + 3), cn[i] = (uint8_t)i, sn[i] = (uint8_t)(200 - i);
        if (bsync_session_derive(&g_client, BSYNC_SESSION_CLIENT, BSYNC_SESSION_ENCRYPT, secret, 77, 1, cn, sn) != BSYNC_OK ||
            bsync_session_derive(&g_server, BSYNC_SESSION_SERVER, BSYNC_SESSION_ENCRYPT, secret, 77, 1, cn, sn) != BSYNC_OK)
            return 0; /* a build without libsodium: nothing to fuzz */
        g_ready = 1;
    }
    if (size > 4096) return 0;
    static uint8_t out[4096 + 64], sealed[4096 + 64];
    /* 1: a packet from the wire */
    bsync_session probe = g_server; /* a copy: inputs do not depend on each other */
    size_t m = 0;
    bsync_session_open_result r = bsync_session_open(&probe, data, size, out, sizeof out, &m);
    if (r == BSYNC_SESSION_OPENED) abort(); /* a forgery opened */
    for (unsigned l = 0; l < BSYNC_SESSION_LANES; l++)
        if (probe.recv_window[l] != g_server.recv_window[l] || probe.recv_any[l] != g_server.recv_any[l]) abort();
    /* 2: a message, sealed and opened */
    if (size < 3) return 0;
    const unsigned lane = data[0] % BSYNC_SESSION_LANES;
    bsync_session c = g_client, s = g_server;
    size_t n = 0;
    if (bsync_session_seal(&c, lane, data + 3, size - 3, sealed, sizeof sealed, &n) != BSYNC_OK) abort();
    const uint8_t* msg = data + 3;
    const size_t len = size - 3;
    const int compact = len >= 8 && msg[0] == 0x42 && msg[1] == 0x53 && msg[2] == 7 &&
                        (size_t)(msg[4] | msg[5] << 8) == len - 8 && msg[6] == 0 && msg[7] == 0;
    if (n != len + (compact ? 12u : BSYNC_SESSION_OVERHEAD)) abort();
    if (compact != (sealed[0] >> 4 == 0xC)) abort();
    if (bsync_session_open(&s, sealed, n, out, sizeof out, &m) != BSYNC_SESSION_OPENED) abort();
    if (m != size - 3 || (m && memcmp(out, data + 3, m) != 0)) abort();
    if (bsync_session_open(&s, sealed, n, out, sizeof out, &m) != BSYNC_SESSION_REPLAYED) abort();
    const size_t at = ((size_t)data[1] << 8 | data[2]) % n;
    const uint8_t x = (uint8_t)(data[1] ^ data[2]) ? (uint8_t)(data[1] ^ data[2]) : 1u;
    sealed[at] ^= x;
    bsync_session fresh = g_server;
    if (bsync_session_open(&fresh, sealed, n, out, sizeof out, &m) == BSYNC_SESSION_OPENED) abort();
    return 0;
}
