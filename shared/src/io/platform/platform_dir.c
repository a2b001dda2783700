/* platform_dir.c — a folder's entries and a plain sleep (io/platform.h): POSIX opendir/readdir and
 * nanosleep, or FindFirstFile and Sleep under _WIN32. Edge code (the server's crash recovery scans its
 * replay folder; the Agones lifecycle thread waits between pings). */
#if !defined(_WIN32)
#define _XOPEN_SOURCE 700
#endif
#include "platform.h"

#include <stdio.h>
#include <string.h>

#if defined(_WIN32)
#include <windows.h>
#else
#include <dirent.h>
#include <time.h>
#endif

int bsync_platform_list_dir(const char* dir, int (*fn)(const char* name, void* user), void* user) {
    if (!dir || !fn) return -1;
#if defined(_WIN32)
    char pattern[BSYNC_PLATFORM_PATH_MAX];
    if (snprintf(pattern, sizeof pattern, "%s\\*", dir) >= (int)sizeof pattern) return -1;
    WIN32_FIND_DATAA fd;
    HANDLE h = FindFirstFileA(pattern, &fd);
    if (h == INVALID_HANDLE_VALUE) return -1;
    int n = 0;
    do {
        if (!strcmp(fd.cFileName, ".") || !strcmp(fd.cFileName, "..")) continue;
        n++;
        if (fn(fd.cFileName, user) != 0) break;
    } while (FindNextFileA(h, &fd));
    FindClose(h);
    return n;
#else
    DIR* d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent* e = readdir(d); e; e = readdir(d)) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        n++;
        if (fn(e->d_name, user) != 0) break;
    }
    closedir(d);
    return n;
#endif
}

void bsync_platform_sleep_ms(uint32_t ms) {
#if defined(_WIN32)
    Sleep(ms);
#else
    struct timespec ts;
    ts.tv_sec = (time_t)(ms / 1000u);
    ts.tv_nsec = (long)(ms % 1000u) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
#endif
}
