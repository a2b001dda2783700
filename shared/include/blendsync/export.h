/* blendsync/export.h — marks the exported functions.
 *
 * Index
 *   BSYNC_API   (BSYNC_BUILDING_SHARED: building the shared library; BSYNC_SHARED: a DLL consumer)
 *
 * design: docs/library.md#the-exported-abi
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
