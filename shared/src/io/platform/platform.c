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

uint64_t bsync_platform_thread_cpu_ns(void) {
#if defined(_WIN32)
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) return 0;
    const uint64_t k = ((uint64_t)kernel.dwHighDateTime << 32) | kernel.dwLowDateTime;
    const uint64_t u = ((uint64_t)user.dwHighDateTime << 32) | user.dwLowDateTime;
    return (k + u) * 100u; /* 100 ns units */
#else
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

void bsync_platform_sleep_us(uint64_t us) {
#if defined(_WIN32)
    Sleep((DWORD)((us + 999u) / 1000u));
#else
    struct timespec ts;
    ts.tv_sec = (time_t)(us / 1000000u);
    ts.tv_nsec = (long)(us % 1000000u) * 1000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
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
static atomic_int g_terminations; /* SIGTERMs only (a server drains on the first: docs/operations.md) */
static void on_signal(int sig) {
    if (sig == SIGTERM) atomic_fetch_add(&g_terminations, 1);
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

int bsync_platform_terminations(void) {
#if defined(_WIN32)
    return 0;
#else
    return atomic_load(&g_terminations);
#endif
}

/* ---- paths (pure: the style is an argument) ---- */
int bsync_platform_path_is_separator(bsync_path_style style, char c) {
    return c == '/' || (style == BSYNC_PATH_WINDOWS && c == '\\');
}

static int is_drive_letter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

size_t bsync_platform_path_root_len(bsync_path_style style, const char* path) {
    if (!path) return 0;
    if (style != BSYNC_PATH_WINDOWS) return path[0] == '/' ? 1 : 0;
    if (is_drive_letter(path[0]) && path[1] == ':')
        return bsync_platform_path_is_separator(style, path[2]) ? 3 : 2;
    if (bsync_platform_path_is_separator(style, path[0]) && bsync_platform_path_is_separator(style, path[1])) {
        /* \\server\share\ : the server and share components belong to the root */
        size_t i = 2;
        for (int part = 0; part < 2; part++) {
            while (path[i] && !bsync_platform_path_is_separator(style, path[i])) i++;
            if (path[i]) i++;
        }
        return i;
    }
    return bsync_platform_path_is_separator(style, path[0]) ? 1 : 0;
}

int bsync_platform_path_is_absolute(bsync_path_style style, const char* path) {
    return bsync_platform_path_root_len(style, path) > 0;
}

size_t bsync_platform_path_dir_len(bsync_path_style style, const char* path) {
    if (!path) return 0;
    size_t n = bsync_platform_path_root_len(style, path);
    for (size_t i = n; path[i]; i++)
        if (bsync_platform_path_is_separator(style, path[i])) n = i + 1;
    return n;
}

static int same_root_char(bsync_path_style style, char a, char b) {
    if (bsync_platform_path_is_separator(style, a) && bsync_platform_path_is_separator(style, b)) return 1;
    if (style == BSYNC_PATH_WINDOWS && a >= 'a' && a <= 'z') a = (char)(a - 'a' + 'A');
    if (style == BSYNC_PATH_WINDOWS && b >= 'a' && b <= 'z') b = (char)(b - 'a' + 'A');
    return a == b;
}

/* the next component of p at or after *i (separators skipped): its start and length, 0 at the end */
static size_t next_component(bsync_path_style style, const char* p, size_t* i, const char** start) {
    while (p[*i] && bsync_platform_path_is_separator(style, p[*i])) (*i)++;
    *start = p + *i;
    size_t n = 0;
    while (p[*i] && !bsync_platform_path_is_separator(style, p[*i])) (*i)++, n++;
    return n;
}

int bsync_platform_path_relative(bsync_path_style style, const char* target, const char* dir, char* out, size_t cap) {
    if (!target || !dir || !out || cap == 0) return -1;
    out[0] = '\0';
    const size_t rt = bsync_platform_path_root_len(style, target), rd = bsync_platform_path_root_len(style, dir);
    if (rt == 0 || rt != rd) return -1;
    for (size_t k = 0; k < rt; k++)
        if (!same_root_char(style, target[k], dir[k])) return -1;
    /* skip the components both share */
    size_t it = rt, id = rt;
    for (;;) {
        size_t jt = it, jd = id;
        const char *ct, *cd;
        const size_t nt = next_component(style, target, &jt, &ct), nd = next_component(style, dir, &jd, &cd);
        if (nt == 0 || nd == 0 || nt != nd || memcmp(ct, cd, nt) != 0) break;
        it = jt;
        id = jd;
    }
    size_t o = 0;
    const char* c;
    while (next_component(style, dir, &id, &c) > 0) {
        if (o + 3 >= cap) return -1;
        memcpy(out + o, "../", 4);
        o += 3;
    }
    size_t n, first = 1;
    while ((n = next_component(style, target, &it, &c)) > 0) {
        if (o + !first + n >= cap) return -1;
        if (!first) out[o++] = '/';
        memcpy(out + o, c, n);
        o += n;
        out[o] = '\0';
        first = 0;
    }
    return first ? -1 : 0; /* target was dir itself or above it: not a file below a shared folder */
}

int bsync_platform_is_separator(char c) { return bsync_platform_path_is_separator(BSYNC_PATH_NATIVE, c); }

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
