/* blendsync/io/asset.h — what an importer or a .bsclip file gives: one skeleton and its clips.
 *
 * Index
 *   bsync_import_options     knobs shared by the importers (resampling rate, BVH scale, clip filter)
 *   bsync_import_stats       what the float -> fixed conversion cost, per clip
 *   bsync_asset              skeleton + clips + stats + notes (owned; free with bsync_asset_free)
 *   bsync_asset_import_file  read any supported file by its extension (.gltf .glb .bvh .bsclip)
 *   bsync_asset_free         release everything an asset owns
 *
 * Conventions (every importer normalises to them and records what the source said in `source`):
 *   units metres; Y up; right-handed; quaternions (x, y, z, w) — exactly glTF 2.0's conventions.
 *   Times in seconds. Every imported clip has loop = 1 (the clip's default playback is WRAP; sampling
 *   always takes the mode explicitly), its duration is its latest key time.
 *
 * The conversion rule (the only place floats meet the fixed-point core): every number read from a
 * file is first brought to its final double value (unit scale applied, quaternion normalised and made
 * sign-continuous in double, Euler angles turned into quaternions in double, cubic splines evaluated
 * in double), then converted ONCE by bsync_fx_from_double (round to nearest raw step, ties away from
 * zero; only double arithmetic, no libm), so the same file gives the same clip bits on every machine.
 * A value outside Q16.16 (|x| >= 32768 after scaling) or not finite is an error naming the file, the
 * clip and the joint: BSYNC_OVERFLOW / BSYNC_NOT_FINITE in bsync_error.code.
 *
 * This is edge code (blendsync_io): it allocates with malloc and reads files (through
 * bsync_import_options.file when set). Not for the tick.
 */
#ifndef BLENDSYNC_IO_ASSET_H
#define BLENDSYNC_IO_ASSET_H

#include "blendsync/base.h"
#include "blendsync/io/file.h"
#include "blendsync/skeleton.h"
#include "blendsync/clip.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_IMPORT_DEFAULT_RESAMPLE_HZ 60u
#define BSYNC_IMPORT_MAX_CLIPS 4096u

typedef struct bsync_import_options {
    uint32_t resample_hz;        /* CUBICSPLINE tracks are resampled at this rate (0 -> 60 Hz) */
    double bvh_scale;            /* metres per BVH unit (0 -> 0.01: centimetres; see bvh.h) */
    const char* const* clip_names; /* keep only the clips with these names (NULL = keep all) */
    uint32_t clip_name_count;
    bsync_file_callbacks file;   /* read files through these (io/file.h); zero: stdio. Used by the
                                    *_import_file calls for the file itself and by glTF for its
                                    external buffers (also from *_import_memory with a base_dir) */
} bsync_import_options;

/* Precision lost converting one clip (maximum over its keys), measured against the double values
 * the importer computed just before the conversion: translation and scale per component (metres /
 * ratio), rotation as the angle between the source rotation and the stored (fixed, normalised by the
 * clip builder) key, times in seconds. With the rounding rule above translation, scale and time
 * errors are at most half a raw step (7.63e-6). */
typedef struct bsync_import_stats {
    uint32_t tracks;
    uint32_t keys;
    double max_translation_error;
    double max_rotation_error;
    double max_scale_error;
    double max_time_error;
} bsync_import_stats;

typedef struct bsync_asset {
    bsync_skeleton* skeleton;
    uint32_t clip_count;
    bsync_clip** clips;           /* clip_count clips, all built for `skeleton` */
    bsync_import_stats* stats;    /* clip_count entries (all zero for clips read from a .bsclip) */
    bsync_import_stats rest_stats; /* the rest pose's conversion */
    char source[256];             /* e.g. "Fox.glb: glTF 2.0 (metres, Y up), skin 0" */
    char notes[4096];             /* one line per note: ignored channels, renamed joints, units... */
    uint64_t file_checksum;       /* .bsclip: the XXH64 in its header; 0 for other imports */
    void* memory_;                /* internal: the file buffer the blocks of a .bsclip live in */
} bsync_asset;

/* Import by extension (case-insensitive): .gltf/.glb (gltf.h), .bvh (bvh.h), .bsclip (clip_file.h).
 * Other extensions: BSYNC_INVALID_ARGUMENT, with a message that names the supported formats and, for
 * .fbx/.dae, the conversion to glTF (e.g. Blender, FBX2glTF, or `assimp export IN OUT.gltf`) — unless the
 * project was built with Debian's libassimp-dev installed (BSYNC_HAVE_ASSIMP; docs/import.md): then
 * .fbx and .dae import through assimp (its float math decides those bits: convert to glTF or .bsclip
 * when clips must be identical across machines).
 * `options` may be NULL (defaults). *out is zeroed first and owns everything on success; on failure
 * it is left empty. */
BSYNC_API bsync_result bsync_asset_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                     bsync_error* err);

/* Free the skeleton, clips, stats and file memory of an asset and zero it (NULL is ignored). */
BSYNC_API void bsync_asset_free(bsync_asset* asset);

/* Append a line to asset->notes (truncated with "..." when full). */
BSYNC_API void bsync_asset_note(bsync_asset* asset, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_ASSET_H */
