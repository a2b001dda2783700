/* blendsync/io/file.h — writing a whole file so that nothing half-written is ever left: the one
 * writer behind every output file (baked clips and glTF, desync bundles and dumps, the CLI's files);
 * and the callbacks through which importers may read instead of stdio.
 *
 * Index
 *   bsync_file_callbacks   read / release a whole file (bsync_import_options.file)
 *   bsync_file_write       bytes -> PATH.tmp.<pid>, then rename to PATH
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

/* Where an importer's bytes come from, in the style of cgltf's file callbacks: an engine's pak
 * files, a C# stream or a WASM build's memory instead of stdio. Zero-initialised: stdio.
 * read gives the whole file named path (the path the importer would open: the file given, or an
 * external glTF buffer joined to its folder) as *data / *size, valid until release is called for it
 * (release may be NULL: the memory stays the caller's). The importer copies the bytes and calls
 * release before it returns. BSYNC_OK, or an error code (BSYNC_IO_ERROR: no such file); the
 * importer's message names the file. */
typedef struct bsync_file_callbacks {
    bsync_result (*read)(const char* path, const void** data, size_t* size, void* user);
    void (*release)(const char* path, const void* data, size_t size, void* user);
    void* user;
} bsync_file_callbacks;

/* Writes len bytes of data to PATH.tmp.<pid> and renames it to path (atomic on one file system).
 * BSYNC_OK; BSYNC_INVALID_ARGUMENT for a NULL path (or NULL data with len > 0); BSYNC_OUT_OF_MEMORY;
 * BSYNC_IO_ERROR when a step fails (errno is kept from that step; the temporary file is removed). */
BSYNC_API bsync_result bsync_file_write(const char* path, const void* data, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_FILE_H */
