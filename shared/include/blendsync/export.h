/* blendsync/export.h — BSYNC_API marks every function of the public API.
 *
 * In a shared build (libblendsync.so / blendsync.dll) only functions marked BSYNC_API are exported;
 * everything else is hidden. Static builds and consumers of the static libraries define nothing.
 *   BSYNC_BUILDING_SHARED  defined while compiling the shared library itself (exports)
 *   BSYNC_SHARED           defined by consumers of the Windows DLL (imports)
 */
#ifndef BLENDSYNC_EXPORT_H
#define BLENDSYNC_EXPORT_H

#if defined(_WIN32) || defined(__CYGWIN__)
#if defined(BSYNC_BUILDING_SHARED)
#define BSYNC_API __declspec(dllexport)
#elif defined(BSYNC_SHARED)
#define BSYNC_API __declspec(dllimport)
#else
#define BSYNC_API
#endif
#elif defined(__GNUC__) || defined(__clang__)
#define BSYNC_API __attribute__((visibility("default")))
#else
#define BSYNC_API
#endif

#endif /* BLENDSYNC_EXPORT_H */
