/* blendsync/procedural.h — a built-in humanoid with idle, walk and run cycles (and, through the
 * _full API, walk_back, strafe_left, strafe_right, wave and punch), made by code.
 *
 * Index
 *   bsync_procedural_humanoid             skeleton + the three original looping clips
 *   bsync_procedural_humanoid_create      generate them (setup time; allocates via the allocator)
 *   bsync_procedural_humanoid_destroy     free them
 *   bsync_procedural_humanoid_full        skeleton + all BSYNC_PROCEDURAL_FULL_CLIP_COUNT clips
 *   bsync_procedural_humanoid_create_full / bsync_procedural_humanoid_full_destroy
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
 * The extra clips (the graph demo's), only in bsync_procedural_humanoid_full, indices 3..7:
 *   walk_back    1.0 s: the walk gait with its cycle angle reversed, shorter steps (+-24 deg), slight
 *                backward lean; root moves -Z at 1.2 m/s;
 *   strafe_left  1.0 s: side steps to the character's left, root moves +X at 1.3 m/s (the _l joints
 *                are on the +X side: the humanoid faces +Z with Y up);
 *   strafe_right 1.0 s: side steps to the right, root moves -X at 1.3 m/s: the stance widens (each
 *                thigh abducts 8 + 8 sin deg, soles kept level) while the right knee lifts, then closes
 *                while the left knee lifts;
 *   wave         1.2 s: right arm raised, forearm waving three times per cycle, left arm hanging;
 *   punch        1.0 s: a right straight punch from a guard and back (extension (1 - cos) / 2).
 * strafe_left is EXACTLY the mirror image of strafe_right through the YZ plane (x -> -x): at every
 * key, joint j of strafe_left has the rotation of the mirror joint of strafe_right (its _l/_r twin;
 * itself for root, pelvis, spine, neck and head) with (x, y, z, w) -> (x, -y, -z, w), and the root
 * and pelvis translations have x negated (y, z equal).
 * wave and punch are upper-body actions: every leg joint (thigh, calf, foot, toe, both sides) and
 * the pelvis keep the identity rotation of the rest pose, the pelvis its rest translation and the
 * root stays at the origin, so they serve as override-layer / switch states without moving the legs.
 * Root translation keys: key k at time t_k = round(duration * k / 24) holds round(v * t_k) along the
 * clip's axis (v the speed below as fix16), so root x or z rises by exactly v * duration per cycle
 * (the one track that does not close; every rotation track and the pelvis translation do).
 * The first three clips of the _full set are the same bits as bsync_procedural_humanoid_create's
 * (same skeleton, same clips, same indices), and BSYNC_PROCEDURAL_CLIP_COUNT keeps meaning 3.
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

/* The extra clips of bsync_procedural_humanoid_full (indices follow the original three). */
enum {
    BSYNC_PROCEDURAL_WALK_BACK = 3,
    BSYNC_PROCEDURAL_STRAFE_LEFT = 4,
    BSYNC_PROCEDURAL_STRAFE_RIGHT = 5,
    BSYNC_PROCEDURAL_WAVE = 6,
    BSYNC_PROCEDURAL_PUNCH = 7,
    BSYNC_PROCEDURAL_FULL_CLIP_COUNT = 8
};
/* Their root speeds in m/s as fix16 (magnitudes; walk_back moves -Z, strafe_left +X, strafe_right -X;
 * wave and punch do not move the root). */
#define BSYNC_PROCEDURAL_SPEED_WALK_BACK ((fix16_t)78643) /* round(1.2 * 65536) = round(78643.2) */
#define BSYNC_PROCEDURAL_SPEED_STRAFE ((fix16_t)85197)    /* round(1.3 * 65536) = round(85196.8) */

typedef struct bsync_procedural_humanoid {
    bsync_skeleton* skeleton;
    bsync_clip* clips[BSYNC_PROCEDURAL_CLIP_COUNT];
} bsync_procedural_humanoid;

BSYNC_API bsync_result bsync_procedural_humanoid_create(const bsync_allocator* allocator, bsync_procedural_humanoid* out);
BSYNC_API void bsync_procedural_humanoid_destroy(bsync_procedural_humanoid* humanoid);

/* The full set: clips[i] for i < BSYNC_PROCEDURAL_CLIP_COUNT are bit-identical to the original API's
 * clips[i]; the rest are the extra clips above (names "walk_back", "strafe_left", "strafe_right",
 * "wave", "punch"). create_full: BSYNC_INVALID_ARGUMENT for a NULL out; BSYNC_OUT_OF_MEMORY (nothing
 * left allocated, *out untouched) when the allocator fails. full_destroy ignores NULL. */
typedef struct bsync_procedural_humanoid_full {
    bsync_skeleton* skeleton;
    bsync_clip* clips[BSYNC_PROCEDURAL_FULL_CLIP_COUNT];
} bsync_procedural_humanoid_full;

BSYNC_API bsync_result bsync_procedural_humanoid_create_full(const bsync_allocator* allocator,
                                                   bsync_procedural_humanoid_full* out);
BSYNC_API void bsync_procedural_humanoid_full_destroy(bsync_procedural_humanoid_full* humanoid);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_PROCEDURAL_H */
