/* seal_vectors.c — sealed packets of both forms from the session library, for the document-only
 * checker tests/conformance/bsync_seal.py (tests/cli/cli_conformance_seal.sh). Fixed secret and nonces
 * (printed first); per mode, both directions: messages of version 7 (compact form) and 6 (long form) on
 * several lanes, then 70,000 packets on lane 1 of which those around the counter's 16-bit wrap are
 * printed. One line per packet: "packet MODE ROLE LANE COUNTER MESSAGE_HEX SEALED_HEX". */
#include <stdio.h>
#include <string.h>

#include "blendsync/session.h"

static void hex(const uint8_t* p, size_t n) {
    if (!n) fputs("-", stdout);
    for (size_t i = 0; i < n; i++) printf("%02x", p[i]);
}

static int emit(bsync_session* s, int mode, unsigned lane, uint64_t counter, const uint8_t* msg, size_t len, int print) {
    uint8_t out[512];
    size_t n = 0;
    if (bsync_session_seal(s, lane, msg, len, out, sizeof out, &n) != BSYNC_OK) return -1;
    if (!print) return 0;
    printf("packet %d %d %u %llu ", mode, (int)s->role, lane, (unsigned long long)counter);
    hex(msg, len);
    putchar(' ');
    hex(out, n);
    putchar('\n');
    return 0;
}

int main(void) {
    if (!bsync_session_available()) {
        puts("skip: built without libsodium");
        return 0;
    }
    uint8_t secret[32], cn[32], sn[32];
    for (int i = 0; i < 32; i++) secret[i] = (uint8_t)(0xA0 ^ i), cn[i] = (uint8_t)(i * 5 + 9), sn[i] = (uint8_t)(250 - i);
    printf("secret ");
    hex(secret, 32);
    printf("\nclient_nonce ");
    hex(cn, 32);
    printf("\nserver_nonce ");
    hex(sn, 32);
    printf("\nmatch 34\nslot 3\n");
    /* a version 7 INPUT (docs/protocol.md "INPUT (3)"), a version 7 BYE, an empty version 7 body, the
     * same INPUT in version 6 (long form), and a version 7 header with flags set (long form) */
    static const uint8_t input7[] = {0x42, 0x53, 0x07, 0x03, 23, 0, 0, 0, 0x12, 0x04, 0x01, 0xF4, 0x03, 0x03, 0x80, 0x80,
                                     0x04, 0xFF, 0xFF, 0x01, 0x80, 0x80, 0x08, 0x00, 0x03, 0x80, 0x01, 0x00, 0x01, 0x04, 0x00};
    static const uint8_t bye7[] = {0x42, 0x53, 0x07, 0x09, 4, 0, 0, 0, 0x00, 0x00, 0x06, 0x07};
    static const uint8_t empty7[] = {0x42, 0x53, 0x07, 0x0A, 0, 0, 0, 0};
    static const uint8_t input6[] = {0x42, 0x53, 0x06, 0x03, 25, 0, 0, 0, 0x02, 0x04, 0x01, 0x02, 0xF4, 0x01, 0x00,
                                     0x00, 0x80, 0x80, 0x04, 0xFF, 0xFF, 0x01, 0x80, 0x80, 0x08, 0x00, 0x03, 0x80, 0x01,
                                     0x00, 0x01, 0x04, 0x00};
    static const uint8_t flags7[] = {0x42, 0x53, 0x07, 0x0A, 0, 0, 1, 0};
    const uint8_t* msgs[] = {input7, bye7, empty7, input6, flags7};
    const size_t lens[] = {sizeof input7, sizeof bye7, sizeof empty7, sizeof input6, sizeof flags7};
    for (int mode = BSYNC_SESSION_ENCRYPT; mode <= BSYNC_SESSION_AUTHENTICATE; mode++) {
        for (int role = 0; role < 2; role++) {
            bsync_session s;
            if (bsync_session_derive(&s, (bsync_session_role)role, (bsync_session_mode)mode, secret, 34, 3, cn, sn) != BSYNC_OK)
                return 1;
            uint64_t next[BSYNC_SESSION_LANES] = {0};
            for (unsigned lane = 0; lane < 5; lane++)
                for (int k = 0; k < 5; k++)
                    if (emit(&s, mode, lane, next[lane]++, msgs[k], lens[k], 1) != 0) return 1;
            for (uint64_t i = next[1]; i < 70000; i++) {
                const int print = (i >= 65530 && i <= 65540) || i == 70000 - 1;
                if (emit(&s, mode, 1, i, msgs[i % 2 ? 0 : 3], lens[i % 2 ? 0 : 3], print) != 0) return 1;
            }
            bsync_session_clear(&s);
        }
    }
    return 0;
}
