/* internal/names.h — joint, node, parameter and motion names: the checks every builder shares.
 * Not a public header. */
#ifndef BLENDSYNC_INTERNAL_NAMES_H
#define BLENDSYNC_INTERNAL_NAMES_H

#include "blendsync/base.h"

/* Length of a name if it is valid (1 .. BSYNC_MAX_NAME-1 bytes), else 0. Reads at most
 * BSYNC_MAX_NAME bytes and never past the NUL. */
static inline size_t bsync_name_length(const char* name) {
    if (!name) return 0;
    for (size_t i = 0; i < BSYNC_MAX_NAME; i++)
        if (name[i] == '\0') return i;
    return 0;
}

/* Byte equality of two NUL-terminated names. */
static inline int bsync_names_equal(const char* a, const char* b) {
    size_t i = 0;
    while (a[i] != '\0' && a[i] == b[i]) i++;
    return a[i] == b[i];
}

#endif
