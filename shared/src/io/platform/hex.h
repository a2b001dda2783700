/* hex.h — hexadecimal text to bytes (internal to the io library and its users in this tree: session
 * secrets in match configs, blendsync/session.h). */
#ifndef BLENDSYNC_IO_HEX_H
#define BLENDSYNC_IO_HEX_H

#include <stddef.h>
#include <stdint.h>

/* Exactly 2 * n hex digits (either case) -> n bytes in out. 0 on success; -1 on anything else, and then
 * out is unchanged. */
int bsync_io_hex_decode(const char* hex, uint8_t* out, size_t n);

#endif
