/* blendsync/procedural.h — a built-in humanoid with idle, walk and run cycles, made by code.
 *
 * Index
 *   bsync_procedural_humanoid             skeleton + three looping clips
 *   bsync_procedural_humanoid_create      generate them (setup time; allocates via the allocator)
 *   bsync_procedural_humanoid_destroy     free them
 *   BSYNC_PROCEDURAL_*                    clip indices and their root speeds
 *
 * What it is: 23 joints (root, pelvis, three spine joints, neck, head, two arms of four joints, two
 * legs of four joints), in metres, Y up, facing +Z, rest pose a T-pose. Clips are generated with the
 * project's own fixed-point trig only (no floats), so every machine builds the same bits:
 *   idle  2.0 s: breathing (spine and clavicles), arms down, slight weight shift;
 *   walk  1.0 s: legs swing +-28 deg, knees flex, arms counter-swing, pelvis bob and sway,
 *                root moves forward at 1.4 m/s;
 *   run   0.7 s: legs +-45 deg, deeper knees, bent elbows, lean, root moves at 3.5 m/s.
 * Each clip has 25 keys per track over its cycle, the last key equal to the first (a closed loop).
 * It exists so that the demo, tests and benchmarks need no asset files.
 *
 * Does not: read files or keep globals.
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

/* Root speeds of the clips in m/s, as fix16: 0, 1.4, 3.5 (the 1D thresholds a speed blend uses). */
#define BSYNC_PROCEDURAL_SPEED_IDLE ((fix16_t)0)
#define BSYNC_PROCEDURAL_SPEED_WALK ((fix16_t)91750)  /* round(1.4 * 65536) */
#define BSYNC_PROCEDURAL_SPEED_RUN ((fix16_t)229376)  /* 3.5 * 65536 */

typedef struct bsync_procedural_humanoid {
    bsync_skeleton* skeleton;
    bsync_clip* clips[BSYNC_PROCEDURAL_CLIP_COUNT];
} bsync_procedural_humanoid;

bsync_result bsync_procedural_humanoid_create(const bsync_allocator* allocator, bsync_procedural_humanoid* out);
void bsync_procedural_humanoid_destroy(bsync_procedural_humanoid* humanoid);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_PROCEDURAL_H */
