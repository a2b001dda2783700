/* blendsync/io/validate.h — check clips and graph configs before a match (`blendsync validate`).
 *
 * Index
 *   bsync_validate_severity, bsync_validate_finding   one problem (or note) found
 *   bsync_validate_clip_summary                       the measured numbers of one clip
 *   bsync_validate_suggestion                         a Simple1D threshold proposed from root speed
 *   bsync_validate_report                             all of the above (owned; bsync_validate_report_free)
 *   bsync_validate_options / _options_default         the thresholds (documented in docs/validate.md)
 *   bsync_validate_asset                              check one imported asset's clips
 *   bsync_validate_files                              import files and check them (and across them)
 *   bsync_validate_config                             load a graph config's clips and check its blend nodes
 *   bsync_validate_is_match_config                    does a .json file hold a match config?
 *   bsync_validate_match                              a match config: each graph file + match-level checks
 *   bsync_validate_exit_status                        0 clean (info only), 1 warnings, 2 errors
 *
 * Checks (codes in `finding.code`; severity in brackets):
 *   import_failed [error]       the importer refused the file (message = its error); the codes
 *                               not_finite (NaN/inf key), out_of_range (|x| >= 32768 after scaling)
 *                               and bad_rotation (zero quaternion) name the importer's reason.
 *   config_error [error]        the config does not parse; no_animation [error]: a "clips" entry
 *                               names an animation its source does not hold. A "builtin:humanoid"
 *                               source is the built-in procedural humanoid, built exactly as the graph
 *                               loader builds it (graph_config_internal.h); another "builtin:" name
 *                               is an import_failed error.
 *   empty_clip [warning]        a clip without tracks; zero_duration [warning]: duration 0.
 *   joint_not_in_skeleton [warning]  the importer ignored channels on nodes outside the skeleton.
 *   hierarchy_mismatch [warning]     two files (or config sources) give one joint name different
 *                               parents (names compared; roots have parent "").
 *   missing_in_sibling [warning]     in a blend node, joints animated by one child clip but not by
 *                               this one (joint = the first such joint, value = how many).
 *   non_unit_rotation [warning] a stored rotation key whose norm differs from 1 by more than
 *                               unit_tolerance (the importer normalises in double, so this only
 *                               fires for hand-built or .bsclip clips).
 *   loop_seam [warning]         first vs last key of a track: rotation angle > seam_rotation_deg or
 *                               translation distance > seam_translation_m (for the root joint only the
 *                               vertical (y) difference: its horizontal travel is root motion).
 *                               One finding per clip: joint = the worst, value = its angle (deg) or
 *                               distance (m), limit = the threshold, message = joints over the limit.
 *   large_translation [warning] a translation key component above large_translation_m in magnitude
 *                               (squares of such values overflow fix16 vector lengths).
 *   precision_loss [warning]    the import stats exceed precision_translation_m (translation, scale,
 *                               time) or precision_rotation_rad (rotation).
 *   root_motion [info]          the root joint's horizontal (x, z) displacement first -> last key and its
 *                               speed = displacement / duration (value = speed m/s).
 *   cycle_length_mismatch       in a blend node, max/min child clip duration - 1 > cycle_ratio: [info]
 *                               when the node syncs time ("normalized"), [warning] with "sync": "none".
 *                               Not for Switch nodes (one state plays at a time, on its own clock).
 * Match mode only (bsync_validate_match; `file` = the graph file's resolved path unless said otherwise):
 *   match_error [error]         bsync_match_config_load refused the match (message = its error, e.g. a
 *                               missing graph file, differing tick rates, a slot out of range);
 *                               file = the match config. The graph files it names are still checked.
 *   match_graph [info]          one per distinct graph file: the characters using it and its tick rate.
 *   unmapped_input [warning]    an input parameter that no graph of the match has (it drives nothing);
 *                               one finding per graph file. [info] when some other graph file has it.
 *   unmapped_trigger [warning]  an input trigger whose "switch" names no Switch node of any graph;
 *                               [info] when some other graph file has that switch.
 *
 * Edge code (blendsync_io): imports files, allocates with malloc, uses double arithmetic (no libm).
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
    char file[BSYNC_VALIDATE_MAX_FILE];   /* the file (or config) it is about; "" when none */
    char graph[BSYNC_VALIDATE_MAX_FILE];  /* match mode: the graph file (resolved) it came from; else "" */
    char clip[BSYNC_MAX_NAME];            /* the clip (config: the motion name); "" when none */
    char joint[BSYNC_MAX_NAME];           /* "" when none */
    char message[640];
    double value;                         /* the measured number (0 when none) */
    double limit;                         /* the threshold it was compared with (0 when none) */
} bsync_validate_finding;

typedef struct bsync_validate_clip_summary {
    char file[BSYNC_VALIDATE_MAX_FILE];
    char graph[BSYNC_VALIDATE_MAX_FILE];  /* match mode: the graph file (resolved); else "" */
    char clip[BSYNC_MAX_NAME];            /* the clip's own name */
    char motion[BSYNC_MAX_NAME];          /* config mode: the motion it is bound to; else "" */
    double duration;                      /* seconds */
    double median_key_interval;           /* seconds, over every consecutive key pair of every track (0: none) */
    double key_rate_hz;                   /* 1 / median_key_interval (0 when there is no interval) */
    uint32_t tracks, keys, animated_joints, max_tracks_per_joint;
    char root_joint[BSYNC_MAX_NAME];
    double root_distance;                 /* metres, horizontal (x, z), first -> last root translation key */
    double root_speed;                    /* root_distance / duration (0 for duration 0) */
    double seam_rotation_deg;             /* worst first-vs-last rotation angle over the tracks */
    double seam_translation_m;            /* worst first-vs-last translation distance (root: |dy|) */
    bsync_import_stats stats;
} bsync_validate_clip_summary;

typedef struct bsync_validate_suggestion {
    char graph[BSYNC_VALIDATE_MAX_FILE];  /* match mode: the graph file (resolved); else "" */
    char node[BSYNC_MAX_NAME];
    char motion[BSYNC_MAX_NAME];
    double current;                       /* the threshold in the config */
    double speed;                         /* proposed threshold: the clip's root speed (m/s) */
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
    double precision_translation_m; /* 1e-5 (half a raw step is 7.63e-6); also scale and time */
    double precision_rotation_rad;  /* 1e-4 */
    double large_translation_m;     /* 1000 */
    double cycle_ratio;             /* 0.10 */
    double unit_tolerance;          /* 1e-3 */
} bsync_validate_options;

BSYNC_API void bsync_validate_options_default(bsync_validate_options* options);

/* Zero a report before first use; free releases all its arrays and zeroes it again. */
BSYNC_API void bsync_validate_report_init(bsync_validate_report* report);
BSYNC_API void bsync_validate_report_free(bsync_validate_report* report);

/* Check every clip of `asset` (named `file` in findings); the root joint is `root_joint` when it is
 * non-NULL and found, else joint 0. Appends a summary per clip and the findings. options NULL:
 * defaults. BSYNC_INVALID_ARGUMENT (NULL report/asset), BSYNC_OUT_OF_MEMORY. */
BSYNC_API bsync_result bsync_validate_asset(bsync_validate_report* report, const bsync_asset* asset, const char* file,
                                  const char* root_joint, const bsync_validate_options* options);

/* Import each path (bsync_asset_import_file, default options); an import failure becomes an error
 * finding and the other files are still checked. Then hierarchy_mismatch across the files. */
BSYNC_API bsync_result bsync_validate_files(bsync_validate_report* report, const char* const* paths, uint32_t count,
                                  const bsync_validate_options* options);

/* Parse the config (io/config.h), import each distinct source once (relative to the config's folder),
 * check each bound clip (root joint: the config's "root_joint", else joint 0), hierarchy across
 * sources, and every blend node's motion children (missing_in_sibling, cycle_length_mismatch); a
 * Simple1D node's children with clips get a suggestion (their root speed; not a Switch node's, whose
 * Simple1D space only lists its states at thresholds 0, 1, 2, ...). Parse and import failures
 * are error findings, not failures of the call. */
BSYNC_API bsync_result bsync_validate_config(bsync_validate_report* report, const char* path,
                                   const bsync_validate_options* options);

/* 1 when `path` reads as a JSON object with a top-level "characters" array or a "match_id" member
 * (a match config, io/match_config.h), else 0 (also when it cannot be read or parsed: the graph-config
 * path then reports the problem). */
BSYNC_API int bsync_validate_is_match_config(const char* path);

/* A match config: bsync_match_config_load; when it refuses the match, a match_error finding (and the
 * graph files are taken from the "characters" entries that can be read). Then every distinct graph
 * file (resolved against the match config's folder, in order of first use) is checked as
 * bsync_validate_config does, its findings, clips and suggestions tagged with `graph`; then (when
 * the match loaded) match_graph, unmapped_input and unmapped_trigger, from the loader's input maps
 * (param_map / trigger_map BSYNC_MATCH_UNMAPPED, the same facts as its notes). BSYNC_INVALID_ARGUMENT
 * (NULL report/path), BSYNC_OUT_OF_MEMORY; every other problem is a finding. */
BSYNC_API bsync_result bsync_validate_match(bsync_validate_report* report, const char* path,
                                  const bsync_validate_options* options);

/* 2 when any finding is an error, else 1 when any is a warning, else 0. */
BSYNC_API int bsync_validate_exit_status(const bsync_validate_report* report);

BSYNC_API const char* bsync_validate_severity_name(bsync_validate_severity severity); /* "info" "warning" "error" */

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_VALIDATE_H */
