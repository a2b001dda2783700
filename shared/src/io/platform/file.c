/* io/file.c — read a whole file into memory (see file_internal.h); write one atomically (io/file.h). */
#include "file_internal.h"
#include "internal/alloc.h"
#include "platform.h"
#include "blendsync/io/file.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bsync_result bsync_io_read_file_alloc(const bsync_file_callbacks* cb, const char* path, const bsync_allocator* a,
                                      unsigned char** out, size_t* out_size, size_t* out_cap,
                                      bsync_io_file_status* status) {
    const bsync_allocator al = bsync_allocator_resolve(a);
    bsync_io_file_status st = {0, 0};
    *out = NULL;
    *out_size = 0;
    *out_cap = 0;
    if (cb && cb->read) {
        const void* data = NULL;
        size_t size = 0;
        bsync_result r = cb->read(path, &data, &size, cb->user);
        if (r != BSYNC_OK) {
            st.opened = r != BSYNC_IO_ERROR;
            if (status) *status = st;
            return r;
        }
        st.opened = 1;
        if (status) *status = st;
        unsigned char* buf = NULL;
        if (size >= BSYNC_IO_FILE_MAX) r = BSYNC_LIMIT_EXCEEDED;
        else if (!data && size) r = BSYNC_IO_ERROR;
        else if (!(buf = (unsigned char*)al.alloc_fn(size + 1, 8, al.user))) r = BSYNC_OUT_OF_MEMORY;
        if (r == BSYNC_OK) {
            if (size) memcpy(buf, data, size);
            buf[size] = '\0';
            *out = buf;
            *out_size = size;
            *out_cap = size + 1;
        }
        if (cb->release) cb->release(path, data, size, cb->user);
        return r;
    }
    FILE* f = fopen(path, "rb");
    if (!f) {
        st.sys_errno = errno;
        if (status) *status = st;
        return BSYNC_IO_ERROR;
    }
    st.opened = 1;
    size_t cap = (size_t)1 << 16, len = 0;
    unsigned char* buf = (unsigned char*)al.alloc_fn(cap + 1, 8, al.user);
    bsync_result r = buf ? BSYNC_OK : BSYNC_OUT_OF_MEMORY;
    while (r == BSYNC_OK) {
        if (len == cap) {
            if (cap >= BSYNC_IO_FILE_MAX) {
                if (fgetc(f) != EOF) r = BSYNC_LIMIT_EXCEEDED;
                break;
            }
            unsigned char* nb = (unsigned char*)al.alloc_fn(cap * 2 + 1, 8, al.user);
            if (!nb) {
                r = BSYNC_OUT_OF_MEMORY;
                break;
            }
            memcpy(nb, buf, len);
            al.free_fn(buf, cap + 1, al.user);
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (r == BSYNC_OK && ferror(f)) {
        st.sys_errno = errno;
        r = BSYNC_IO_ERROR;
    }
    fclose(f);
    if (status) *status = st;
    if (r != BSYNC_OK) {
        if (buf) al.free_fn(buf, cap + 1, al.user);
        return r;
    }
    buf[len] = '\0';
    *out = buf;
    *out_size = len;
    *out_cap = cap + 1;
    return BSYNC_OK;
}

/* Both are bsync_io_read_file_alloc with the default allocator (malloc), so callers free() the buffer. */
bsync_result bsync_io_read_file(const char* path, unsigned char** out, size_t* out_size,
                                bsync_io_file_status* status) {
    size_t cap;
    return bsync_io_read_file_alloc(NULL, path, NULL, out, out_size, &cap, status);
}

bsync_result bsync_io_read_file_with(const bsync_file_callbacks* cb, const char* path, unsigned char** out,
                                     size_t* out_size, bsync_io_file_status* status) {
    size_t cap;
    return bsync_io_read_file_alloc(cb, path, NULL, out, out_size, &cap, status);
}

void bsync_io_set_error(bsync_error* err, bsync_result code, const char* fmt, ...) {
    if (!err) return;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

bsync_result bsync_file_write(const char* path, const void* data, size_t len) {
    if (!path || (!data && len > 0)) return BSYNC_INVALID_ARGUMENT;
    size_t pl = strlen(path);
    char* tmp = malloc(pl + 32);
    if (!tmp) return BSYNC_OUT_OF_MEMORY;
    snprintf(tmp, pl + 32, "%s.tmp.%ld", path, bsync_platform_getpid());
    FILE* f = fopen(tmp, "wb");
    int ok = f != NULL;
    if (ok && len > 0) ok = fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = 0;
    if (ok) ok = bsync_platform_rename(tmp, path) == 0;
    if (!ok) {
        int e = errno;
        remove(tmp);
        errno = e;
    }
    free(tmp);
    return ok ? BSYNC_OK : BSYNC_IO_ERROR;
}
