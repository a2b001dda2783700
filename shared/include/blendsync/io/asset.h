/* blendsync/io/asset.h — what an importer or a .bsclip gives: a skeleton and its clips.
 *
 * Index
 *   bsync_import_options     importer knobs (NULL: defaults)
 *   bsync_import_stats       conversion error per clip
 *   bsync_asset              skeleton, clips, stats, notes (owned)
 *   bsync_asset_import_file  any supported file, by extension
 *   bsync_asset_destroy, bsync_asset_note
 *   bsync_clip_action        an event, range, sync marker or float curve of a clip
 *   bsync_asset_clip_action_count, bsync_asset_get_clip_action
 *
 * Edge code (malloc, files). design: docs/import.md#the-asset-ioasseth
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
    uint32_t resample_hz;        /* CUBICSPLINE resampling; 0: 60 Hz */
    double bvh_scale;            /* metres per BVH unit; 0: 0.01 */
    const char* const* clip_names; /* keep only these (NULL: all) */
    uint32_t clip_name_count;
    bsync_file_callbacks file;   /* zero: stdio */
} bsync_import_options;

/* Largest conversion error over a clip's keys (metres / ratio, radians, seconds). */
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
    bsync_clip** clips;           /* built for `skeleton` */
    bsync_import_stats* stats;    /* clip_count entries */
    bsync_import_stats rest_stats;
    char source[256];             /* e.g. "Fox.glb: glTF 2.0 (metres, Y up)" */
    char notes[4096];             /* one line per note */
    uint64_t file_checksum;       /* .bsclip: its XXH64; else 0 */
    void* memory_;
} bsync_asset;

/* A clip's event, range, sync marker or float curve (docs/clip-format.md "Clip actions"); seconds. */
typedef enum bsync_clip_action_kind {
    BSYNC_CLIP_ACTION_EVENT = 0,
    BSYNC_CLIP_ACTION_RANGE = 1,
    BSYNC_CLIP_ACTION_MARKER = 2,
    BSYNC_CLIP_ACTION_CURVE = 3
} bsync_clip_action_kind;
typedef struct bsync_clip_action {
    uint32_t clip;
    bsync_clip_action_kind kind;
    const char* name;
    fix16_t time;  /* RANGE: begin */
    fix16_t end;   /* RANGE */
    int32_t payload;
    uint32_t key_count; /* CURVE */
    const fix16_t* key_times;
    const fix16_t* key_values;
} bsync_clip_action;

/* .gltf .glb .bvh .bsclip (.fbx .dae with assimp). *out is empty on failure. */
BSYNC_API bsync_result bsync_asset_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                     bsync_error* err);

/* Grouped by clip; pointers into the asset. 0 / BSYNC_INVALID_ARGUMENT: NULL, index out of range. */
BSYNC_API uint32_t bsync_asset_clip_action_count(const bsync_asset* asset);
BSYNC_API bsync_result bsync_asset_get_clip_action(const bsync_asset* asset, uint32_t index, bsync_clip_action* out);

/* Zeroes the asset; NULL is ignored. */
BSYNC_API void bsync_asset_destroy(bsync_asset* asset);

BSYNC_API void bsync_asset_note(bsync_asset* asset, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_ASSET_H */
