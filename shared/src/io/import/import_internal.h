/* io/import_internal.h — the double-precision intermediate form shared by the importers (glTF, BVH)
 * and the one place where it becomes fixed point (import_build.c; the dispatcher is asset.c). Not a public header. */
#ifndef BLENDSYNC_IO_IMPORT_INTERNAL_H
#define BLENDSYNC_IO_IMPORT_INTERNAL_H

#include <stdarg.h>
#include "blendsync/io/asset.h"

typedef struct imp_joint {
    char name[BSYNC_MAX_NAME];
    int32_t parent;      /* lower index or BSYNC_NO_PARENT */
    double t[3], r[4], s[3]; /* rest local TRS (r = x, y, z, w) */
} imp_joint;

typedef struct imp_track {
    uint32_t joint;
    bsync_track_kind kind;
    uint32_t key_count;
    double* times;  /* key_count seconds, strictly ascending, >= 0 */
    double* values; /* key_count * (3 or 4 for rotations) */
    int step;       /* STEP interpolation: hold each value until the next key (see import_build.c) */
} imp_track;

typedef struct imp_clip {
    char name[BSYNC_MAX_NAME];
    imp_track* tracks;
    uint32_t track_count, track_cap;
} imp_clip;

/* Formatted error: err->code = code, message "file: what". Returns code. */
bsync_result imp_fail(bsync_error* err, bsync_result code, const char* file, const char* fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Copy `src` (length n, may not be NUL-terminated) into a valid joint/clip name: at most
 * BSYNC_MAX_NAME-1 bytes; returns 1 when it had to be shortened. */
int imp_copy_name(char dst[BSYNC_MAX_NAME], const char* src, size_t n);

/* Make names unique and non-empty in place (appends "#<index>"); returns how many were changed. */
uint32_t imp_unique_joint_names(imp_joint* joints, uint32_t n);

/* Add a track (takes ownership of times/values, which must come from malloc). Returns 0 on OOM
 * (then times and values are freed). */
int imp_clip_add_track(imp_clip* clip, uint32_t joint, bsync_track_kind kind, uint32_t key_count, double* times,
                       double* values, int step);
void imp_clip_free(imp_clip* clip);

/* Quaternion helpers in double. */
void imp_quat_normalize(double q[4]);
/* Make every key's quaternion unit and sign-continuous with the previous one. */
void imp_quats_continuous(double* q, uint32_t count);

/* Build the skeleton from joints (parents before children), converting the rest pose once. */
bsync_result imp_build_skeleton(const imp_joint* joints, uint32_t n, const char* file, bsync_asset* asset,
                                bsync_error* err);
/* Build one clip for asset->skeleton and append it (with its stats) to the asset. */
bsync_result imp_build_clip(const imp_clip* clip, const char* file, bsync_asset* asset, bsync_error* err);

/* Whether `name` passes the options' clip filter. */
int imp_clip_wanted(const bsync_import_options* o, const char* name);

/* Read a whole file into malloc'd memory (+1 NUL byte, not counted), through o->file when set. */
bsync_result imp_read_file(const bsync_import_options* o, const char* path, unsigned char** out, size_t* out_size,
                           bsync_error* err);
/* The start of every *_import_file / *_load: clear *out, check path and out, read the file. */
bsync_result imp_read_input(const bsync_import_options* o, const char* path, bsync_asset* out, unsigned char** data,
                            size_t* size, bsync_error* err);

/* The last path component. */
const char* imp_basename(const char* path);

/* clip_file.c: gives the asset the clip actions an importer read (glTF extras; docs/clip-format.md
 * "Clip actions"), checked by the .bsclip rules (BSYNC_BAD_BLOB naming the file otherwise); copies. */
bsync_result imp_attach_actions(bsync_asset* asset, const bsync_clip_action* actions, uint32_t count, const char* file,
                                bsync_error* err);

#if BSYNC_HAVE_ASSIMP
/* FBX / Collada through assimp (optional/assimp_import.c; only built when CMake finds assimp). */
bsync_result bsync_assimp_import(const char* path, const bsync_import_options* o, bsync_asset* out,
                                 bsync_error* err);
#endif

#endif
