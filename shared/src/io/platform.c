/* platform.c — the operating-system calls of io/platform.h: POSIX, or Win32 / CRT under _WIN32
 * (mingw-w64). Each function is the whole difference; callers stay the same on both. */
#if !defined(_WIN32)
#define _XOPEN_SOURCE 700 /* realpath */
#endif
#include "platform.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(_WIN32)
#include <direct.h>
#include <io.h>
#include <malloc.h>
#include <process.h>
#include <windows.h>
#else
#include <signal.h>
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

/* ---- interrupts (bsync_platform_catch_interrupts) ---- */
static atomic_int g_interrupted; /* set by the handler; see platform.h (signals are process-wide) */

#if defined(_WIN32)
static BOOL WINAPI on_console_event(DWORD event) {
    if (event != CTRL_C_EVENT && event != CTRL_BREAK_EVENT && event != CTRL_CLOSE_EVENT) return FALSE;
    atomic_store(&g_interrupted, 1);
    return TRUE;
}
#else
static void on_signal(int sig) {
    (void)sig;
    atomic_store(&g_interrupted, 1);
}
#endif

int bsync_platform_catch_interrupts(void) {
#if defined(_WIN32)
    return SetConsoleCtrlHandler(on_console_event, TRUE) ? 0 : -1;
#else
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    if (sigaction(SIGINT, &sa, NULL) != 0 || sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGPIPE, &ign, NULL) != 0)
        return -1;
    return 0;
#endif
}

int bsync_platform_interrupted(void) { return atomic_load(&g_interrupted) != 0; }

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
