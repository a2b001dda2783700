/* blendsync/io/validate.h — check clips and graph configs before a match (`blendsync validate`).
 *
 * Index
 *   bsync_validate_severity, bsync_validate_finding   one problem (or note) found
 *   bsync_validate_clip_summary                       the measured numbers of one clip
 *   bsync_validate_suggestion                         a Simple1D threshold proposed from root speed
 *   bsync_validate_report, bsync_validate_report_init / _report_destroy   all of the above (owned)
 *   bsync_validate_options / _options_default         the thresholds
 *   bsync_validate_asset                              check one imported asset's clips
 *   bsync_validate_files                              import files and check them (and across them)
 *   bsync_validate_config                             a graph config's clips and blend nodes
 *   bsync_validate_is_match_config                    does a .json file hold a match config?
 *   bsync_validate_match                              a match config: each graph file + match checks
 *   bsync_validate_exit_status                        0 clean (info only), 1 warnings, 2 errors
 *
 * Problems are findings, not failures of the call. Edge code (malloc, files, double arithmetic).
 * design: docs/validate.md (every check code, the calls)
 */
#ifndef BLENDSYNC_IO_VALIDATE_H
#define BLENDSYNC_IO_VALIDATE_H

#include "blendsync/base.h"
#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bsync_validate_severity {
    BSYNC_VALIDATE_INFO = 0,
    BSYNC_VALIDATE_WARNING = 1,
    BSYNC_VALIDATE_ERROR = 2
} bsync_validate_severity;

#define BSYNC_VALIDATE_MAX_FILE 256

typedef struct bsync_validate_finding {
    bsync_validate_severity severity;
    char code[32];
    char file[BSYNC_VALIDATE_MAX_FILE];
    char graph[BSYNC_VALIDATE_MAX_FILE];  /* match mode */
    char clip[BSYNC_MAX_NAME];
    char joint[BSYNC_MAX_NAME];
    char message[640];
    double value;                         /* measured */
    double limit;                         /* threshold */
} bsync_validate_finding;

typedef struct bsync_validate_clip_summary {
    char file[BSYNC_VALIDATE_MAX_FILE];
    char graph[BSYNC_VALIDATE_MAX_FILE];
    char clip[BSYNC_MAX_NAME];
    char motion[BSYNC_MAX_NAME];          /* config mode */
    double duration;                      /* seconds */
    double median_key_interval;
    double key_rate_hz;
    uint32_t tracks, keys, animated_joints, max_tracks_per_joint;
    char root_joint[BSYNC_MAX_NAME];
    double root_distance;                 /* metres, horizontal */
    double root_speed;
    double seam_rotation_deg;
    double seam_translation_m;
    bsync_import_stats stats;
} bsync_validate_clip_summary;

typedef struct bsync_validate_suggestion {
    char graph[BSYNC_VALIDATE_MAX_FILE];
    char node[BSYNC_MAX_NAME];
    char motion[BSYNC_MAX_NAME];
    double current;
    double speed;                         /* proposed: root speed (m/s) */
} bsync_validate_suggestion;

typedef struct bsync_validate_report {
    uint32_t finding_count, finding_capacity_;
    bsync_validate_finding* findings;
    uint32_t clip_count, clip_capacity_;
    bsync_validate_clip_summary* clips;
    uint32_t suggestion_count, suggestion_capacity_;
    bsync_validate_suggestion* suggestions;
} bsync_validate_report;

typedef struct bsync_validate_options {
    double seam_rotation_deg;       /* 5 */
    double seam_translation_m;      /* 0.02 */
    double precision_translation_m; /* 1e-5 */
    double precision_rotation_rad;  /* 1e-4 */
    double large_translation_m;     /* 1000 */
    double cycle_ratio;             /* 0.10 */
    double unit_tolerance;          /* 1e-3 */
} bsync_validate_options;

BSYNC_API void bsync_validate_options_default(bsync_validate_options* options);

/* Zero a report before first use; free releases it and zeroes it. */
BSYNC_API void bsync_validate_report_init(bsync_validate_report* report);
BSYNC_API void bsync_validate_report_destroy(bsync_validate_report* report);

/* root_joint NULL or not found: joint 0; options NULL: defaults. BSYNC_INVALID_ARGUMENT,
 * BSYNC_OUT_OF_MEMORY. */
BSYNC_API bsync_result bsync_validate_asset(bsync_validate_report* report, const bsync_asset* asset, const char* file,
                                  const char* root_joint, const bsync_validate_options* options);

BSYNC_API bsync_result bsync_validate_files(bsync_validate_report* report, const char* const* paths, uint32_t count,
                                  const bsync_validate_options* options);

BSYNC_API bsync_result bsync_validate_config(bsync_validate_report* report, const char* path,
                                   const bsync_validate_options* options);

/* 1: a top-level "characters" array or "match_id"; else (also unreadable) 0. */
BSYNC_API int bsync_validate_is_match_config(const char* path);

/* BSYNC_INVALID_ARGUMENT, BSYNC_OUT_OF_MEMORY; a refused match is a match_error finding. */
BSYNC_API bsync_result bsync_validate_match(bsync_validate_report* report, const char* path,
                                  const bsync_validate_options* options);

BSYNC_API int bsync_validate_exit_status(const bsync_validate_report* report);

BSYNC_API const char* bsync_validate_severity_name(bsync_validate_severity severity);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_VALIDATE_H */
