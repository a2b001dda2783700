/* io/platform.h — the few operating-system calls blendsync's edges make (the CLI, the server, io),
 * behind one small internal module so that the same sources build with glibc and with mingw-w64
 * (Windows). Not a public header: nothing here is installed or part of the API. POSIX calls on
 * POSIX systems, Win32 / CRT equivalents on Windows (platform.c). The core never calls any of it. */
#ifndef BLENDSYNC_IO_PLATFORM_H
#define BLENDSYNC_IO_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Room for any path bsync_platform_realpath writes (PATH_MAX on Linux). */
#define BSYNC_PLATFORM_PATH_MAX 4096

/* Create one directory (parents must exist). 0 when it was made or already exists, else -1 with
 * errno set. */
int bsync_platform_mkdir(const char* path);

/* The absolute, resolved path of an existing file or directory into out (BSYNC_PLATFORM_PATH_MAX
 * bytes), or a malloc'd copy when out is NULL. NULL (errno set) when it does not exist. On Windows
 * the result uses the system's separators and drive letter (C:\dir\file). */
char* bsync_platform_realpath(const char* path, char* out);

/* size bytes aligned to align (a power of two, at least sizeof(void*)); size is rounded up to a
 * multiple of align here. Free with bsync_platform_aligned_free (Windows needs its own free). */
void* bsync_platform_aligned_alloc(size_t align, size_t size);
void bsync_platform_aligned_free(void* p);

/* Push a stream's written bytes to the disk (fflush, then fsync / FlushFileBuffers). 0 or -1. */
int bsync_platform_fsync(FILE* f);

/* Rename from to to, replacing an existing to (POSIX rename does; Windows' rename does not, so
 * MoveFileEx with MOVEFILE_REPLACE_EXISTING there). 0 or -1. */
int bsync_platform_rename(const char* from, const char* to);

/* Give a file made by mkstemp (mode 0600) the mode of an ordinary new file: 0666 less the umask.
 * Windows has no such modes: nothing to do there. 0 or -1. */
int bsync_platform_make_ordinary(int fd);

/* This process's id (for unique temporary names). */
long bsync_platform_getpid(void);

/* A monotonic clock in nanoseconds (for timings only: never in anything simulated). */
uint64_t bsync_platform_now_ns(void);
/* CPU time the calling thread has used, in nanoseconds (benchmarks; 0 when unavailable). */
uint64_t bsync_platform_thread_cpu_ns(void);
/* Sleep about us microseconds (nanosleep; Sleep in whole milliseconds, rounded up, under _WIN32). */
void bsync_platform_sleep_us(uint64_t us);

/* Interrupts (Ctrl-C, SIGINT / SIGTERM; on Windows the console's Ctrl-C, Ctrl-Break and close
 * events): bsync_platform_catch_interrupts installs the handlers, after which an interrupt no longer
 * ends the process but is counted, and bsync_platform_interrupted says whether one has arrived since.
 * The handler only sets a lock-free atomic flag (async-signal-safe); the program polls it (e.g. its
 * service loop) and ends cleanly. On POSIX it also ignores SIGPIPE, so that writing to a closed log
 * pipe or socket fails with EPIPE instead of killing the process. The flag is the process's one
 * piece of global state here: signals are process-wide by nature. 0, or -1 when a handler cannot be
 * installed. */
int bsync_platform_catch_interrupts(void);
int bsync_platform_interrupted(void);
/* How many of those interrupts were SIGTERM (0 on Windows). */
int bsync_platform_terminations(void);

/* Paths, as pure functions of a path style so that both styles are tested on every host.
 * POSIX: '/' separates, a path starting with '/' is absolute. Windows: '/' and backslash both
 * separate; absolute are C:\x, C:x (a drive: relative to that drive's current folder, so it can no
 * more be joined to a base folder than C:\x), \dir and \\server\share (UNC). Paths
 * blendsync writes into files (match configs, replay headers) use '/', which Windows reads too,
 * so such files are the same bytes on every host. BSYNC_PATH_NATIVE is this host's style. */
typedef enum { BSYNC_PATH_POSIX = 0, BSYNC_PATH_WINDOWS = 1 } bsync_path_style;
#if defined(_WIN32)
#define BSYNC_PATH_NATIVE BSYNC_PATH_WINDOWS
#else
#define BSYNC_PATH_NATIVE BSYNC_PATH_POSIX
#endif

int bsync_platform_path_is_separator(bsync_path_style style, char c);
/* Whether path is absolute (or drive-qualified): never joined to a base folder. */
int bsync_platform_path_is_absolute(bsync_path_style style, const char* path);
/* Length of path's folder part, up to and including its last separator (a Windows drive "C:" without
 * one counts as the folder); 0 when path is a bare file name. path + result is the file name. */
size_t bsync_platform_path_dir_len(bsync_path_style style, const char* path);
/* Length of path's root: / (1) on POSIX; C:\ (3), C: (2), a leading separator (1) or
 * \\server\share\ (UNC, up to its separator after the share) on Windows; 0 for a relative path. */
size_t bsync_platform_path_root_len(bsync_path_style style, const char* path);
/* The path of file target relative to folder dir (both absolute and canonical, e.g. from
 * bsync_platform_realpath: no "." or ".." components), with '/' separators: "../" per component of
 * dir not shared with target, then the rest of target. Windows: roots (drive letters) compare
 * case-insensitively, components exactly (a case difference only costs a longer path). 0, or -1 when
 * the roots differ (another drive: no relative path exists), target is not below a root, or out
 * (cap bytes) is too small. */
int bsync_platform_path_relative(bsync_path_style style, const char* target, const char* dir, char* out, size_t cap);

/* Path separators: '/' everywhere, also '\\' on Windows (where resolved paths look like
 * C:\dir\file). The last separator of path, or NULL. */
int bsync_platform_is_separator(char c);
const char* bsync_platform_last_separator(const char* path);

/* ---- threads (replay verification over segments, io/replay_verify.h) ----
 * One thread runs fn(arg). The struct is the caller's and must stay in place until the join (the
 * thread reads fn and arg from it). pthreads on POSIX, _beginthreadex / WaitForSingleObject under
 * _WIN32. create: 0, or -1 when no thread was started (then do not join it). join: 0 or -1. */
typedef struct bsync_platform_thread {
    void (*fn)(void* arg);
    void* arg;
    union {
        uint64_t u[2];
        void* p;
    } handle; /* pthread_t or HANDLE (platform.c asserts that it fits) */
} bsync_platform_thread;
int bsync_platform_thread_create(bsync_platform_thread* t, void (*fn)(void* arg), void* arg);
int bsync_platform_thread_join(bsync_platform_thread* t);

/* 1 when path names a file (not a directory) this process may read, else 0 (desync bundles). */
int bsync_platform_is_readable_file(const char* path);

/* Call fn(name, user) for each entry of folder dir ("." and ".." left out; any order) until fn returns
 * non-zero. The number of entries seen, or -1 (errno set) when dir cannot be read (platform_dir.c). */
int bsync_platform_list_dir(const char* dir, int (*fn)(const char* name, void* user), void* user);

/* Sleep the calling thread for ms milliseconds (a background thread's wait; never on a tick path). */
void bsync_platform_sleep_ms(uint32_t ms);

#endif
