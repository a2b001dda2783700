/* platform.c — the operating-system calls of io/platform.h: POSIX, or Win32 / CRT under _WIN32
 * (mingw-w64). Each function is the whole difference; callers stay the same on both. */
#if !defined(_WIN32)
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include "platform.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#include <direct.h>
#include <io.h>
#include <malloc.h>
#include <process.h>
#include <windows.h>
#else
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#endif

int bsync_platform_mkdir(const char* path) {
#if defined(_WIN32)
    int r = _mkdir(path);
#else
    int r = mkdir(path, 0777);
#endif
    return r == 0 || errno == EEXIST ? 0 : -1;
}

char* bsync_platform_realpath(const char* path, char* out) {
    if (!path) {
        errno = EINVAL;
        return NULL;
    }
#if defined(_WIN32)
    char buf[BSYNC_PLATFORM_PATH_MAX];
    if (!_fullpath(buf, path, sizeof buf)) return NULL;
    DWORD attr = GetFileAttributesA(buf);
    if (attr == INVALID_FILE_ATTRIBUTES) {
        errno = ENOENT;
        return NULL;
    }
    if (out) {
        memcpy(out, buf, strlen(buf) + 1);
        return out;
    }
    char* copy = malloc(strlen(buf) + 1);
    if (copy) memcpy(copy, buf, strlen(buf) + 1);
    return copy;
#else
    return realpath(path, out);
#endif
}

void* bsync_platform_aligned_alloc(size_t align, size_t size) {
    size_t n = (size + (align - 1)) & ~(align - 1);
    if (n == 0) n = align;
#if defined(_WIN32)
    return _aligned_malloc(n, align);
#else
    return aligned_alloc(align, n);
#endif
}

void bsync_platform_aligned_free(void* p) {
#if defined(_WIN32)
    _aligned_free(p);
#else
    free(p);
#endif
}

int bsync_platform_fsync(FILE* f) {
    if (!f || fflush(f) != 0) return -1;
#if defined(_WIN32)
    HANDLE h = (HANDLE)_get_osfhandle(_fileno(f));
    return h != INVALID_HANDLE_VALUE && FlushFileBuffers(h) ? 0 : -1;
#else
    return fsync(fileno(f)) == 0 ? 0 : -1;
#endif
}

int bsync_platform_rename(const char* from, const char* to) {
#if defined(_WIN32)
    return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) ? 0 : -1;
#else
    return rename(from, to) == 0 ? 0 : -1;
#endif
}

int bsync_platform_make_ordinary(int fd) {
#if defined(_WIN32)
    return fd >= 0 ? 0 : -1;
#else
    mode_t mask = umask(0);
    umask(mask);
    return fchmod(fd, 0666 & ~mask) == 0 ? 0 : -1;
#endif
}

long bsync_platform_getpid(void) {
#if defined(_WIN32)
    return (long)_getpid();
#else
    return (long)getpid();
#endif
}

uint64_t bsync_platform_now_ns(void) {
#if defined(_WIN32)
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (uint64_t)((double)c.QuadPart * 1e9 / (double)f.QuadPart);
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

int bsync_platform_is_separator(char c) {
#if defined(_WIN32)
    return c == '/' || c == '\\';
#else
    return c == '/';
#endif
}

const char* bsync_platform_last_separator(const char* path) {
    if (!path) return NULL;
    const char* last = NULL;
    for (const char* p = path; *p; p++)
        if (bsync_platform_is_separator(*p)) last = p;
    return last;
}

/* ---- threads (platform.h) */
#if defined(_WIN32)
static unsigned __stdcall thread_start(void* p) {
    bsync_platform_thread* t = (bsync_platform_thread*)p;
    t->fn(t->arg);
    return 0;
}

int bsync_platform_thread_create(bsync_platform_thread* t, void (*fn)(void* arg), void* arg) {
    t->fn = fn;
    t->arg = arg;
    uintptr_t h = _beginthreadex(NULL, 0, thread_start, t, 0, NULL);
    if (h == 0) return -1;
    t->handle.p = (void*)h;
    return 0;
}

int bsync_platform_thread_join(bsync_platform_thread* t) {
    HANDLE h = (HANDLE)t->handle.p;
    int ok = WaitForSingleObject(h, INFINITE) == WAIT_OBJECT_0;
    CloseHandle(h);
    return ok ? 0 : -1;
}
#else
#include <pthread.h>

_Static_assert(sizeof(pthread_t) <= sizeof(((bsync_platform_thread*)0)->handle), "pthread_t fits the handle");

static void* thread_start(void* p) {
    bsync_platform_thread* t = (bsync_platform_thread*)p;
    t->fn(t->arg);
    return NULL;
}

int bsync_platform_thread_create(bsync_platform_thread* t, void (*fn)(void* arg), void* arg) {
    t->fn = fn;
    t->arg = arg;
    pthread_t th;
    if (pthread_create(&th, NULL, thread_start, t) != 0) return -1;
    memcpy(&t->handle, &th, sizeof th);
    return 0;
}

int bsync_platform_thread_join(bsync_platform_thread* t) {
    pthread_t th;
    memcpy(&th, &t->handle, sizeof th);
    return pthread_join(th, NULL) == 0 ? 0 : -1;
}
#endif

/* ---- readable files (platform.h) */
#if defined(_WIN32)
#include <sys/stat.h>
#include <sys/types.h>
#endif
int bsync_platform_is_readable_file(const char* path) {
#if defined(_WIN32)
    struct _stat sb;
    return path && _access(path, 4) == 0 && _stat(path, &sb) == 0 && !(sb.st_mode & _S_IFDIR);
#else
    struct stat sb;
    return path && access(path, R_OK) == 0 && stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode);
#endif
}
