/* blendsync/procedural.h — a built-in 23-joint humanoid and its looping clips, made by code
 * (fixed-point only: the same bits everywhere).
 *
 * Index
 *   bsync_procedural_humanoid             skeleton + idle, walk, run
 *   bsync_procedural_humanoid_create / _destroy   allocate (setup time) / free
 *   bsync_procedural_humanoid_full        skeleton + all 8 clips (the first 3 the same bits)
 *   bsync_procedural_humanoid_full_create / bsync_procedural_humanoid_full_destroy
 *   BSYNC_PROCEDURAL_*                    clip indices and root speeds
 *
 * design: docs/demo.md#the-built-in-humanoid-proceduralh (clips, speeds, mirror rule)
 */
#ifndef BLENDSYNC_PROCEDURAL_H
#define BLENDSYNC_PROCEDURAL_H

#include "blendsync/base.h"
#include "blendsync/skeleton.h"
#include "blendsync/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    BSYNC_PROCEDURAL_IDLE = 0,
    BSYNC_PROCEDURAL_WALK = 1,
    BSYNC_PROCEDURAL_RUN = 2,
    BSYNC_PROCEDURAL_CLIP_COUNT = 3
};

/* Root speeds, m/s. */
#define BSYNC_PROCEDURAL_SPEED_IDLE ((fix16_t)0)
#define BSYNC_PROCEDURAL_SPEED_WALK ((fix16_t)91750)  /* round(1.4 * 65536) */
#define BSYNC_PROCEDURAL_SPEED_RUN ((fix16_t)229376)  /* 3.5 * 65536 */

/* The extra clips of bsync_procedural_humanoid_full. */
enum {
    BSYNC_PROCEDURAL_WALK_BACK = 3,
    BSYNC_PROCEDURAL_STRAFE_LEFT = 4,
    BSYNC_PROCEDURAL_STRAFE_RIGHT = 5,
    BSYNC_PROCEDURAL_WAVE = 6,
    BSYNC_PROCEDURAL_PUNCH = 7,
    BSYNC_PROCEDURAL_FULL_CLIP_COUNT = 8
};
/* Magnitudes: walk_back moves -Z, strafe_left +X, strafe_right -X. */
#define BSYNC_PROCEDURAL_SPEED_WALK_BACK ((fix16_t)78643) /* round(1.2 * 65536) */
#define BSYNC_PROCEDURAL_SPEED_STRAFE ((fix16_t)85197)    /* round(1.3 * 65536) */

typedef struct bsync_procedural_humanoid {
    bsync_skeleton* skeleton;
    bsync_clip* clips[BSYNC_PROCEDURAL_CLIP_COUNT];
} bsync_procedural_humanoid;

BSYNC_API bsync_result bsync_procedural_humanoid_create(const bsync_allocator* allocator, bsync_procedural_humanoid* out);
BSYNC_API void bsync_procedural_humanoid_destroy(bsync_procedural_humanoid* humanoid);

/* full_create: BSYNC_INVALID_ARGUMENT (NULL out), BSYNC_OUT_OF_MEMORY (nothing left allocated). */
typedef struct bsync_procedural_humanoid_full {
    bsync_skeleton* skeleton;
    bsync_clip* clips[BSYNC_PROCEDURAL_FULL_CLIP_COUNT];
} bsync_procedural_humanoid_full;

BSYNC_API bsync_result bsync_procedural_humanoid_full_create(const bsync_allocator* allocator,
                                                   bsync_procedural_humanoid_full* out);
BSYNC_API void bsync_procedural_humanoid_full_destroy(bsync_procedural_humanoid_full* humanoid);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_PROCEDURAL_H */
