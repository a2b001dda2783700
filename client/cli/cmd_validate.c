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
 * --suggest-thresholds adds, for each Simple1D node child with a clip, the clip's root speed as the
 * proposed threshold (Unity's "Compute Thresholds: Speed"); in file mode, each clip's root speed.
 *
 * Exit: 0 clean (info only), 1 warnings, 2 errors (also for bad usage or running out of memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/validate.h"
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
            "  --help                this text\n"
            "exit status: 0 clean, 1 warnings, 2 errors\n");
}

static void json_str(const char* s) {
    putchar('"');
    for (const unsigned char* p = (const unsigned char*)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
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

static void print_json(const bsync_validate_report* r, int status, int suggest, int mode) {
    int config_mode = mode != 0;
    uint32_t counts[3] = {0, 0, 0};
    for (uint32_t i = 0; i < r->finding_count; i++) counts[r->findings[i].severity]++;
    printf("{\"mode\": \"%s\", \"status\": %d, \"errors\": %u, \"warnings\": %u, \"infos\": %u,\n \"clips\": [",
           mode_names[mode], status, (unsigned)counts[2], (unsigned)counts[1], (unsigned)counts[0]);
    for (uint32_t i = 0; i < r->clip_count; i++) {
        const bsync_validate_clip_summary* c = &r->clips[i];
        printf("%s\n  {\"file\": ", i ? "," : "");
        json_str(c->file);
        printf(", \"graph\": ");
        json_str(c->graph);
        printf(", \"clip\": ");
        json_str(c->clip);
        printf(", \"motion\": ");
        json_str(c->motion);
        printf(", \"duration\": %.9g, \"median_key_interval\": %.9g, \"key_rate_hz\": %.9g, \"tracks\": %u, "
               "\"keys\": %u, \"animated_joints\": %u, \"max_tracks_per_joint\": %u, \"root_joint\": ",
               c->duration, c->median_key_interval, c->key_rate_hz, (unsigned)c->tracks, (unsigned)c->keys,
               (unsigned)c->animated_joints, (unsigned)c->max_tracks_per_joint);
        json_str(c->root_joint);
        printf(", \"root_distance\": %.9g, \"root_speed\": %.9g, \"seam_rotation_deg\": %.9g, "
               "\"seam_translation_m\": %.9g, \"precision\": {\"translation\": %.9g, \"rotation\": %.9g, "
               "\"scale\": %.9g, \"time\": %.9g}}",
               c->root_distance, c->root_speed, c->seam_rotation_deg, c->seam_translation_m,
               c->stats.max_translation_error, c->stats.max_rotation_error, c->stats.max_scale_error,
               c->stats.max_time_error);
    }
    printf("],\n \"findings\": [");
    for (uint32_t i = 0; i < r->finding_count; i++) {
        const bsync_validate_finding* f = &r->findings[i];
        printf("%s\n  {\"severity\": \"%s\", \"code\": ", i ? "," : "", bsync_validate_severity_name(f->severity));
        json_str(f->code);
        printf(", \"file\": ");
        json_str(f->file);
        printf(", \"graph\": ");
        json_str(f->graph);
        printf(", \"clip\": ");
        json_str(f->clip);
        printf(", \"joint\": ");
        json_str(f->joint);
        printf(", \"value\": %.9g, \"limit\": %.9g, \"message\": ", f->value, f->limit);
        json_str(f->message);
        printf("}");
    }
    printf("]");
    if (suggest) {
        printf(",\n \"suggested_thresholds\": [");
        if (config_mode) {
            for (uint32_t i = 0; i < r->suggestion_count; i++) {
                const bsync_validate_suggestion* s = &r->suggestions[i];
                printf("%s\n  {\"graph\": ", i ? "," : "");
                json_str(s->graph);
                printf(", \"node\": ");
                json_str(s->node);
                printf(", \"motion\": ");
                json_str(s->motion);
                printf(", \"current\": %.9g, \"speed\": %.9g}", s->current, s->speed);
            }
        } else {
            for (uint32_t i = 0; i < r->clip_count; i++) {
                printf("%s\n  {\"file\": ", i ? "," : "");
                json_str(r->clips[i].file);
                printf(", \"clip\": ");
                json_str(r->clips[i].clip);
                printf(", \"speed\": %.9g}", r->clips[i].root_speed);
            }
        }
        printf("]");
    }
    printf("}\n");
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
    int json = 0, suggest = 0;
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
    bsync_validate_report report;
    bsync_validate_report_init(&report);
    bsync_result res = mode == 2   ? bsync_validate_match(&report, files[0], NULL)
                       : mode == 1 ? bsync_validate_config(&report, files[0], NULL)
                                   : bsync_validate_files(&report, files, nfiles, NULL);
    free(files);
    if (res != BSYNC_OK) {
        fprintf(stderr, "blendsync validate: %s\n", bsync_result_string(res));
        bsync_validate_report_free(&report);
        return 2;
    }
    int status = bsync_validate_exit_status(&report);
    if (json)
        print_json(&report, status, suggest, mode);
    else
        print_text(&report, status, suggest, mode);
    bsync_validate_report_free(&report);
    return status;
}
