/* io/file_internal.h — reading a whole file into memory, and setting an error, for the io readers
 * (config.c, match_config.c, json_exact.c, graph_config.c, and the importers through imp_read_file in
 * asset.c). Not a public header. */
#ifndef BLENDSYNC_IO_FILE_INTERNAL_H
#define BLENDSYNC_IO_FILE_INTERNAL_H

#include <stddef.h>
#include "blendsync/base.h"

/* The largest file bsync_io_read_file reads: 2 GiB. */
#define BSYNC_IO_FILE_MAX ((size_t)1 << 31)

/* Why a read failed, for the caller's message. */
typedef struct bsync_io_file_status {
    int opened;    /* 1 once the file was opened (a BSYNC_IO_ERROR with opened == 0: cannot open) */
    int sys_errno; /* errno at the open or read failure, else 0 */
} bsync_io_file_status;

/* Read the whole file at `path` into a malloc'd buffer (*out, free with free()) of *out_size bytes
 * followed by a '\0' that *out_size does not count. Returns
 *   BSYNC_OK
 *   BSYNC_IO_ERROR        the file cannot be opened or a read failed (see *status)
 *   BSYNC_OUT_OF_MEMORY   no memory for the buffer
 *   BSYNC_LIMIT_EXCEEDED  the file is larger than BSYNC_IO_FILE_MAX bytes
 * On failure *out is NULL and *out_size 0. The caller words the error message. status may be
 * NULL. */
bsync_result bsync_io_read_file(const char* path, unsigned char** out, size_t* out_size,
                                bsync_io_file_status* status);

/* The same through callbacks (io/file.h) when cb has a read function, else bsync_io_read_file: the
 * callback's bytes are copied into the malloc'd buffer and released at once. A callback error gives
 * its code (status->opened = 0 for BSYNC_IO_ERROR). */
struct bsync_file_callbacks;
bsync_result bsync_io_read_file_with(const struct bsync_file_callbacks* cb, const char* path, unsigned char** out,
                                     size_t* out_size, bsync_io_file_status* status);

/* The same into memory from allocator `a` (NULL or zero: malloc/free), through cb when it has a read
 * function (the callback's bytes copied, released at once), else stdio. *out holds *out_size bytes and
 * a NUL; its allocation is *out_cap bytes (free it with a's free_fn and that size). Growing a stdio read
 * allocates the larger block, copies and frees the smaller (allocators have no realloc). */
struct bsync_allocator;
bsync_result bsync_io_read_file_alloc(const struct bsync_file_callbacks* cb, const char* path,
                                      const struct bsync_allocator* a, unsigned char** out, size_t* out_size,
                                      size_t* out_cap, bsync_io_file_status* status);

/* err->code = code and err->message = the formatted text (truncated); err NULL: nothing. The one
 * error setter of the io readers. */
void bsync_io_set_error(bsync_error* err, bsync_result code, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
