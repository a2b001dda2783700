/* cmd_validate.c — `blendsync validate CONFIG|FILES... [--json] [--suggest-thresholds]`: check clips
 * and graph configs before a match (io/validate.h holds the checks; docs/validate.md the thresholds).
 *
 * One argument ending in .json is a graph config: its clips are imported (a "builtin:humanoid" source
 * is built as the graph loader builds it) and its blend nodes checked; or, when it has a top-level
 * "characters" array or "match_id", a match config: every distinct graph file it names is checked as
 * a graph config, then the match-level findings (loader errors, input parameters and triggers that
 * drive nothing). Findings and clips of a match carry the graph file they came from.
 * Otherwise every argument is an animation file (.gltf .glb .bvh .bsclip), checked on its own and
 * against the others (hierarchy). Text output: one line per clip (duration, key rate, tracks, root
 * speed, worst loop seam), then one line per finding
 * "SEVERITY CODE FILE[ graph G][ clip C][ joint J]: MESSAGE" (graph: match mode, when not FILE itself),
 * then a count line. --json prints one object instead:
 *   {"mode": "files"|"config"|"match", "status": S, "errors": E, "warnings": W, "infos": I,
 *    "clips": [...], "findings": [...] [, "suggested_thresholds": [...]]}
 * (clips, findings and suggestions have a "graph" member: "" outside match mode)
 * --suggest-markers (a graph config) prints only foot sync-marker suggestions per clip (cli_markers.c).
 * --suggest-thresholds adds, for each Simple1D node child with a clip, the clip's root speed as the
 * proposed threshold (Unity's "Compute Thresholds: Speed"); in file mode, each clip's root speed.
 *
 * Exit: 0 clean (info only), 1 warnings, 2 errors (also for bad usage or running out of memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/validate.h"
#include "cli_json.h"
#include "cli_markers.h"
#include "commands.h"

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync validate CONFIG.json | MATCH.json | FILE... [--json] [--suggest-thresholds]\n"
            "  checks per clip: duration, key rate, tracks per joint, empty clips, loop seam (5 deg / 2 cm),\n"
            "  root motion speed, fixed-point precision, NaN/inf and out-of-range keys, large translations;\n"
            "  across files: hierarchy mismatches; per blend node: joints missing in sibling clips and cycle\n"
            "  lengths differing by more than 10%%. Thresholds: docs/validate.md.\n"
            "  A match config (top-level \"characters\" / \"match_id\") checks each graph file it names, the\n"
            "  loader's errors, and input parameters / triggers that drive no graph.\n"
            "  --json                one JSON object (status, counts, clips, findings)\n"
            "  --suggest-thresholds  propose Simple1D thresholds from the clips' root speeds\n"
            "  --suggest-markers     only propose foot sync markers (foot_l, foot_r) for each clip of a\n"
            "                        graph config, where each foot is lowest and slowest\n"
            "  --help                this text\n"
            "exit status: 0 clean, 1 warnings, 2 errors\n");
}

static int ends_with(const char* s, const char* suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    if (n < m) return 0;
    for (size_t i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != suffix[i]) return 0;
    }
    return 1;
}

static const char* const mode_names[] = {"files", "config", "match"};

/* 0, or -1 after a message */
static int print_json(const bsync_validate_report* r, int status, int suggest, int mode) {
    int config_mode = mode != 0;
    uint32_t counts[3] = {0, 0, 0};
    for (uint32_t i = 0; i < r->finding_count; i++) counts[r->findings[i].severity]++;
    cJSON* o = cJSON_CreateObject();
    bsync_cli_json_str(o, "mode", mode_names[mode]);
    bsync_cli_json_num(o, "status", "%d", status);
    bsync_cli_json_num(o, "errors", "%u", (unsigned)counts[2]);
    bsync_cli_json_num(o, "warnings", "%u", (unsigned)counts[1]);
    bsync_cli_json_num(o, "infos", "%u", (unsigned)counts[0]);
    cJSON* clips = bsync_cli_json_add(o, "clips", cJSON_CreateArray());
    for (uint32_t i = 0; i < r->clip_count; i++) {
        const bsync_validate_clip_summary* c = &r->clips[i];
        cJSON* e = bsync_cli_json_add(clips, NULL, cJSON_CreateObject());
        bsync_cli_json_str(e, "file", c->file);
        bsync_cli_json_str(e, "graph", c->graph);
        bsync_cli_json_str(e, "clip", c->clip);
        bsync_cli_json_str(e, "motion", c->motion);
        bsync_cli_json_dbl(e, "duration", "%.9g", c->duration);
        bsync_cli_json_dbl(e, "median_key_interval", "%.9g", c->median_key_interval);
        bsync_cli_json_dbl(e, "key_rate_hz", "%.9g", c->key_rate_hz);
        bsync_cli_json_num(e, "tracks", "%u", (unsigned)c->tracks);
        bsync_cli_json_num(e, "keys", "%u", (unsigned)c->keys);
        bsync_cli_json_num(e, "animated_joints", "%u", (unsigned)c->animated_joints);
        bsync_cli_json_num(e, "max_tracks_per_joint", "%u", (unsigned)c->max_tracks_per_joint);
        bsync_cli_json_str(e, "root_joint", c->root_joint);
        bsync_cli_json_dbl(e, "root_distance", "%.9g", c->root_distance);
        bsync_cli_json_dbl(e, "root_speed", "%.9g", c->root_speed);
        bsync_cli_json_dbl(e, "seam_rotation_deg", "%.9g", c->seam_rotation_deg);
        bsync_cli_json_dbl(e, "seam_translation_m", "%.9g", c->seam_translation_m);
        cJSON* p = bsync_cli_json_add(e, "precision", cJSON_CreateObject());
        bsync_cli_json_dbl(p, "translation", "%.9g", c->stats.max_translation_error);
        bsync_cli_json_dbl(p, "rotation", "%.9g", c->stats.max_rotation_error);
        bsync_cli_json_dbl(p, "scale", "%.9g", c->stats.max_scale_error);
        bsync_cli_json_dbl(p, "time", "%.9g", c->stats.max_time_error);
    }
    cJSON* findings = bsync_cli_json_add(o, "findings", cJSON_CreateArray());
    for (uint32_t i = 0; i < r->finding_count; i++) {
        const bsync_validate_finding* f = &r->findings[i];
        cJSON* e = bsync_cli_json_add(findings, NULL, cJSON_CreateObject());
        bsync_cli_json_str(e, "severity", bsync_validate_severity_name(f->severity));
        bsync_cli_json_str(e, "code", f->code);
        bsync_cli_json_str(e, "file", f->file);
        bsync_cli_json_str(e, "graph", f->graph);
        bsync_cli_json_str(e, "clip", f->clip);
        bsync_cli_json_str(e, "joint", f->joint);
        bsync_cli_json_dbl(e, "value", "%.9g", f->value);
        bsync_cli_json_dbl(e, "limit", "%.9g", f->limit);
        bsync_cli_json_str(e, "message", f->message);
    }
    if (suggest) {
        cJSON* list = bsync_cli_json_add(o, "suggested_thresholds", cJSON_CreateArray());
        if (config_mode) {
            for (uint32_t i = 0; i < r->suggestion_count; i++) {
                const bsync_validate_suggestion* s = &r->suggestions[i];
                cJSON* e = bsync_cli_json_add(list, NULL, cJSON_CreateObject());
                bsync_cli_json_str(e, "graph", s->graph);
                bsync_cli_json_str(e, "node", s->node);
                bsync_cli_json_str(e, "motion", s->motion);
                bsync_cli_json_dbl(e, "current", "%.9g", s->current);
                bsync_cli_json_dbl(e, "speed", "%.9g", s->speed);
            }
        } else {
            for (uint32_t i = 0; i < r->clip_count; i++) {
                cJSON* e = bsync_cli_json_add(list, NULL, cJSON_CreateObject());
                bsync_cli_json_str(e, "file", r->clips[i].file);
                bsync_cli_json_str(e, "clip", r->clips[i].clip);
                bsync_cli_json_dbl(e, "speed", "%.9g", r->clips[i].root_speed);
            }
        }
    }
    int bad = bsync_cli_json_print(stdout, o, BSYNC_CLI_JSON_LINES);
    cJSON_Delete(o);
    return bad;
}

static void print_text(const bsync_validate_report* r, int status, int suggest, int mode) {
    int config_mode = mode != 0;
    uint32_t counts[3] = {0, 0, 0};
    for (uint32_t i = 0; i < r->finding_count; i++) counts[r->findings[i].severity]++;
    for (uint32_t i = 0; i < r->clip_count; i++) {
        const bsync_validate_clip_summary* c = &r->clips[i];
        printf("clip %s%s%s%s (%s%s%s): %.4f s, %u tracks on %u joints (max %u per joint), %u keys, key interval %.4f s "
               "(%.1f Hz), root '%s' %.4f m/s, seam %.2f deg / %.4f m\n",
               c->motion[0] ? c->motion : c->clip, c->motion[0] ? " = '" : "", c->motion[0] ? c->clip : "",
               c->motion[0] ? "'" : "", c->file, c->graph[0] ? ", graph " : "", c->graph, c->duration, (unsigned)c->tracks, (unsigned)c->animated_joints,
               (unsigned)c->max_tracks_per_joint, (unsigned)c->keys, c->median_key_interval, c->key_rate_hz,
               c->root_joint, c->root_speed, c->seam_rotation_deg, c->seam_translation_m);
    }
    for (uint32_t i = 0; i < r->finding_count; i++) {
        const bsync_validate_finding* f = &r->findings[i];
        printf("%s %s %s", bsync_validate_severity_name(f->severity), f->code, f->file[0] ? f->file : "-");
        if (f->graph[0] && strcmp(f->graph, f->file) != 0) printf(" graph %s", f->graph);
        if (f->clip[0]) printf(" clip %s", f->clip);
        if (f->joint[0]) printf(" joint %s", f->joint);
        printf(": %s\n", f->message);
    }
    if (suggest) {
        if (config_mode) {
            for (uint32_t i = 0; i < r->suggestion_count; i++)
                printf("threshold %s/%s%s%s%s: %.5f (root speed; now %.5f)\n", r->suggestions[i].node,
                       r->suggestions[i].motion, r->suggestions[i].graph[0] ? " (graph " : "", r->suggestions[i].graph,
                       r->suggestions[i].graph[0] ? ")" : "", r->suggestions[i].speed, r->suggestions[i].current);
        } else {
            for (uint32_t i = 0; i < r->clip_count; i++)
                printf("threshold %s %s: %.5f (root speed)\n", r->clips[i].file, r->clips[i].clip,
                       r->clips[i].root_speed);
        }
    }
    printf("%u error(s), %u warning(s), %u info; status %d\n", (unsigned)counts[2], (unsigned)counts[1],
           (unsigned)counts[0], status);
}

int bsync_cmd_validate(int argc, char** argv) {
    int json = 0, suggest = 0, markers = 0;
    const char** files = calloc((size_t)(argc > 0 ? argc : 1), sizeof *files);
    uint32_t nfiles = 0;
    if (!files) {
        fprintf(stderr, "blendsync validate: out of memory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            free(files);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--suggest-thresholds")) {
            suggest = 1;
        } else if (!strcmp(a, "--suggest-markers")) {
            markers = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "blendsync validate: unknown option %s (blendsync validate --help)\n", a);
            free(files);
            return 2;
        } else {
            files[nfiles++] = a;
        }
    }
    if (!nfiles) {
        fprintf(stderr, "blendsync validate: no config or files (blendsync validate --help)\n");
        free(files);
        return 2;
    }
    /* mode: 0 animation files, 1 graph config, 2 match config */
    int mode = nfiles == 1 && ends_with(files[0], ".json") ? 1 : 0;
    if (mode == 1 && bsync_validate_is_match_config(files[0])) mode = 2;
    if (markers) { /* only the suggestions (cli_markers.c) */
        const int r = mode == 1 && !json ? bsync_cli_suggest_markers(files[0], stdout) : -1;
        if (r < 0) fprintf(stderr, "blendsync validate: --suggest-markers takes one graph config (no --json)\n");
        free(files);
        return r < 0 ? 2 : r;
    }
    bsync_validate_report report;
    bsync_validate_report_init(&report);
    bsync_result res = mode == 2   ? bsync_validate_match(&report, files[0], NULL)
                       : mode == 1 ? bsync_validate_config(&report, files[0], NULL)
                                   : bsync_validate_files(&report, files, nfiles, NULL);
    free(files);
    if (res != BSYNC_OK) {
        fprintf(stderr, "blendsync validate: %s\n", bsync_result_string(res));
        bsync_validate_report_destroy(&report);
        return 2;
    }
    int status = bsync_validate_exit_status(&report);
    if (json) {
        if (print_json(&report, status, suggest, mode) != 0) status = 2;
    } else
        print_text(&report, status, suggest, mode);
    bsync_validate_report_destroy(&report);
    return status;
}
