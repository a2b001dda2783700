/* blendsync/io/file.h — writing a whole file so that nothing half-written is ever left: the one
 * writer behind every output file (baked clips and glTF, desync bundles and dumps, the CLI's files).
 *
 * Index
 *   bsync_file_write   bytes -> PATH.tmp.<pid>, then rename to PATH
 *
 * Edge code (stdio), never per tick.
 */
#ifndef BLENDSYNC_IO_FILE_H
#define BLENDSYNC_IO_FILE_H

#include <stddef.h>

#include "blendsync/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes len bytes of data to PATH.tmp.<pid> and renames it to path (atomic on one file system).
 * BSYNC_OK; BSYNC_INVALID_ARGUMENT for a NULL path (or NULL data with len > 0); BSYNC_OUT_OF_MEMORY;
 * BSYNC_IO_ERROR when a step fails (errno is kept from that step; the temporary file is removed). */
BSYNC_API bsync_result bsync_file_write(const char* path, const void* data, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_FILE_H */
