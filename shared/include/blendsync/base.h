/* blendsync/base.h — results, allocator, limits: what every module of the core shares.
 *
 * Index
 *   bsync_result            one enum of every failure the core reports (stable ids)
 *   bsync_result_string()   the stable, human-readable text of a code
 *   bsync_allocator         allocation callbacks given at setup (never used per tick)
 *   BSYNC_MAX_*             hard limits that bound the per-tick scratch space
 *
 * Does not: print, abort, or keep any global state. Every function returns a code instead.
 */
#ifndef BLENDSYNC_BASE_H
#define BLENDSYNC_BASE_H

#include <stddef.h>
#include <stdint.h>

#include "blendsync/export.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_VERSION_MAJOR 0
#define BSYNC_VERSION_MINOR 5
#define BSYNC_VERSION_PATCH 0
#define BSYNC_VERSION_STRING "0.5.0"
/* major << 16 | minor << 8 | patch: what bsync_version() returns (0.5.0 -> 0x000500). */
#define BSYNC_VERSION_NUMBER \
    (((uint32_t)BSYNC_VERSION_MAJOR << 16) | ((uint32_t)BSYNC_VERSION_MINOR << 8) | (uint32_t)BSYNC_VERSION_PATCH)

/* Limits. They bound stack scratch space on the per-tick path. */
#define BSYNC_MAX_JOINTS 1024      /* joints in one skeleton */
#define BSYNC_MAX_BLEND_POSES 64   /* poses blended by one bsync_pose_blend call */
#define BSYNC_MAX_NAME 64          /* bytes of a joint name, including the terminating NUL */
#define BSYNC_NO_PARENT (-1)       /* parent index of a root joint */
#define BSYNC_MAX_BLEND_CHILDREN 64 /* children of one blend node */
#define BSYNC_MAX_BLEND_NODES 256   /* nodes of one blend tree */
#define BSYNC_MAX_PARAMETERS 256    /* parameters of one blend tree */
#define BSYNC_MAX_MOTIONS 1024      /* leaf motions of one blend tree */
/* Tick rates the time and smoothing code accept, in Hz (graphs and matches narrow it to 15..60:
 * graph.h). Plain integers: the text of BSYNC_BAD_TICK_RATE is made from them. */
#define BSYNC_MIN_TICK_RATE 1
#define BSYNC_MAX_TICK_RATE 1000
#define BSYNC_STRINGIFY_(x) #x
#define BSYNC_STRINGIFY(x) BSYNC_STRINGIFY_(x)

/* X-macro of every result: id, text. The numeric values are stable: append only. */
#define BSYNC_RESULTS(X)                                                              \
    X(OK, "ok")                                                                       \
    X(INVALID_ARGUMENT, "invalid argument (null pointer or out-of-range value)")      \
    X(OUT_OF_MEMORY, "out of memory (the allocator returned null)")                   \
    X(BUFFER_TOO_SMALL, "buffer too small (query the size first)")                    \
    X(LIMIT_EXCEEDED, "a hard limit (BSYNC_MAX_*) was exceeded")                      \
    X(OVERFLOW, "value out of the fixed-point range")                                 \
    X(NOT_FINITE, "value is not finite (NaN or infinity)")                            \
    X(PARSE_ERROR, "text is not a number")                                            \
    X(BAD_HIERARCHY, "parent index must be less than the joint's own index")          \
    X(DUPLICATE_NAME, "two joints have the same name")                                \
    X(BAD_NAME, "empty or too long name")                                             \
    X(NOT_FOUND, "no such name")                                                      \
    X(KEYS_UNSORTED, "key times must be strictly ascending")                          \
    X(KEY_OUT_OF_RANGE, "key time outside [0, duration]")                             \
    X(BAD_ROTATION, "rotation key is zero or cannot be normalised")                   \
    X(BAD_DURATION, "duration must be >= 0 and representable")                        \
    X(NO_SUCH_JOINT, "track refers to a joint the skeleton does not have")            \
    X(DUPLICATE_TRACK, "two tracks of the same kind for one joint")                   \
    X(BAD_BLOB, "data block is corrupt (magic, version, size or checksum)")           \
    X(MISMATCH, "objects do not belong together (joint counts or skeletons differ)") \
    X(BAD_TICK_RATE, "tick rate must be between " BSYNC_STRINGIFY(BSYNC_MIN_TICK_RATE) " and "     \
                     BSYNC_STRINGIFY(BSYNC_MAX_TICK_RATE) " Hz")                                \
    X(BAD_LAYOUT, "blend space layout is unusable (see the diagnostics)")             \
    X(CYCLE, "the node graph has a cycle")                                            \
    X(CONFIG_ERROR, "configuration file is invalid (see the error message)")          \
    X(IO_ERROR, "file could not be read or written")

typedef enum bsync_result {
#define BSYNC_RESULT_ENUM_(id, text) BSYNC_##id,
    BSYNC_RESULTS(BSYNC_RESULT_ENUM_)
#undef BSYNC_RESULT_ENUM_
    BSYNC_RESULT_COUNT
} bsync_result;

/* Stable text of a result code; "unknown result" for a value outside the enum. Never null. */
BSYNC_API const char* bsync_result_string(bsync_result r);

/* The version of the library actually loaded, at run time, as BSYNC_VERSION_NUMBER packs it. A
 * program or binding compiled against BSYNC_VERSION_* compares the two: while the major is 0, a
 * different minor means a different ABI (docs/library.md). */
BSYNC_API uint32_t bsync_version(void);
/* The same as text: "MAJOR.MINOR.PATCH" ("0.3.0"). Static storage, never null. */
BSYNC_API const char* bsync_version_string(void);

/* A detailed error for the file-facing functions (config, import): the code plus a message that
 * names the file and the place in it, e.g.
 * "loco.json: /nodes/move/children/2/position: expected an array of 2 numbers". */
typedef struct bsync_error {
    bsync_result code;
    char message[512];
} bsync_error;

/* Allocation callbacks. A zero-initialised allocator means malloc/free. The object that allocates
 * remembers the allocator, so its destroy call frees with the same one; free_fn gets the size
 * that was allocated (arena-friendly). No process-wide allocator exists. Only setup and teardown
 * calls (builders, create/destroy) allocate; the per-tick functions never do. */
typedef struct bsync_allocator {
    void* (*alloc_fn)(size_t size, size_t align, void* user);
    void (*free_fn)(void* ptr, size_t size, void* user);
    void* user;
} bsync_allocator;

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_BASE_H */
