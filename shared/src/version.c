/* version.c — the library's version at run time (blendsync/base.h). The numbers come from base.h,
 * which CMake checks against project(VERSION) at configure time, so the header, the package and the
 * soname cannot disagree. */
#include "blendsync/base.h"

uint32_t bsync_version(void) { return BSYNC_VERSION_NUMBER; }

const char* bsync_version_string(void) { return BSYNC_VERSION_STRING; }
