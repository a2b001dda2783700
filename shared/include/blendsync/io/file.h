/* blendsync/io/file.h — whole-file reads, atomic writes. design: docs/import.md
 *
 * Index
 *   bsync_file_callbacks   read a whole file instead of stdio
 *   bsync_file_write       bytes -> PATH.tmp.<pid>, renamed to PATH
 */
#ifndef BLENDSYNC_IO_FILE_H
#define BLENDSYNC_IO_FILE_H

#include <stddef.h>

#include "blendsync/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero: stdio. *data valid until release (may be NULL). */
typedef struct bsync_file_callbacks {
    bsync_result (*read)(const char* path, const void** data, size_t* size, void* user);
    void (*release)(const char* path, const void* data, size_t size, void* user);
    void* user;
} bsync_file_callbacks;

/* BSYNC_IO_ERROR keeps errno. */
BSYNC_API bsync_result bsync_file_write(const char* path, const void* data, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_FILE_H */
