/* io/platform.h — the operating-system calls the project makes, behind one small interface (internal,
 * not installed). Only files whose name contains "platform" call the OS for these. Minimal: what the
 * presentation clock needs (another branch grows the full Windows-capable layer). */
#ifndef BLENDSYNC_IO_PLATFORM_H
#define BLENDSYNC_IO_PLATFORM_H

#include <stdint.h>

/* A monotonic clock in nanoseconds (arbitrary origin; never goes back). */
uint64_t bsync_platform_now_ns(void);

#endif /* BLENDSYNC_IO_PLATFORM_H */
