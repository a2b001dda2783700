/* hex.c — hexadecimal text to bytes (hex.h). */
#include "hex.h"

#include <string.h>

static int digit(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int bsync_io_hex_decode(const char* hex, uint8_t* out, size_t n) {
    if (!hex || !out || strlen(hex) != 2u * n) return -1;
    for (size_t i = 0; i < 2u * n; i++)
        if (digit(hex[i]) < 0) return -1;
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(digit(hex[2 * i]) << 4 | digit(hex[2 * i + 1]));
    return 0;
}
