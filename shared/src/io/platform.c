/* io/platform.c — POSIX implementation of io/platform.h. */
#include "platform.h"

#include <time.h>

uint64_t bsync_platform_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
