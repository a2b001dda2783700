/* cmd_import.c — `blendsync import IN... -o OUT.bsclip [--clips NAME,...] [--skeleton-from FILE]
 * [--list] [--rate HZ] [--bvh-scale S] [--bone-lengths]`: glTF / BVH / .bsclip files -> one native
 * clip file (one skeleton + clips). Exit: 0 success, 2 error (message on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/checksum.h"
#include "blendsync/fixed.h"
#include "blendsync/io/asset.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/io/retarget.h"
#include "commands.h"

static void usage(FILE* f) {
    fprintf(f,
            "usage: blendsync import IN... -o OUT.bsclip [--clips NAME,...] [--skeleton-from FILE] [--list]\n"
            "                        [--rate HZ] [--bvh-scale S] [--bone-lengths]\n"
            "\n"
            "Reads glTF 2.0 (.gltf, .glb), BVH (.bvh) and blendsync clip files (.bsclip), converts every\n"
            "value to Q16.16 once (round to nearest, ties away from zero) and writes one .bsclip holding a\n"
            "skeleton and the clips (through a temporary file and a rename).\n"
            "\n"
            "  -o OUT.bsclip        the file to write\n"
            "  --clips A,B,...      keep only these clips (each must exist in some input)\n"
            "  --skeleton-from FILE retarget every clip by joint name onto FILE's skeleton (otherwise the\n"
            "                       first input's skeleton; later inputs with another skeleton are\n"
            "                       retargeted onto it). Missing joints play the target's rest pose\n"
            "  --bone-lengths       when retargeting, keep the target's bone lengths (translation tracks\n"
            "                       only on root joints)\n"
            "  --list               print what the inputs hold and write nothing (-o not needed)\n"
            "  --rate HZ            resampling rate for glTF CUBICSPLINE tracks (1..1000, default 60)\n"
            "  --bvh-scale S        metres per BVH unit (default 0.01: centimetres)\n"
            "  --help               this text\n"
            "\n"
            "Units and axes: metres, Y up, right-handed (glTF's). Exit status: 0 success, 2 error.\n");
}

static const char* fx(fix16_t v, char* buf) {
    bsync_fx_format(v, buf, 24);
    return buf;
}

static void print_asset(const char* path, const bsync_asset* a) {
    printf("%s\n  source: %s\n  skeleton: %u joints (rest pose lost at most %.3g m, %.3g rad)\n", path, a->source,
           (unsigned)bsync_skeleton_joint_count(a->skeleton), a->rest_stats.max_translation_error,
           a->rest_stats.max_rotation_error);
    for (uint32_t i = 0; i < a->clip_count; i++) {
        const bsync_clip* c = a->clips[i];
        uint32_t keys = 0;
        for (uint32_t t = 0; t < bsync_clip_track_count(c); t++) {
            bsync_track_info ti;
            if (bsync_clip_track_info(c, t, &ti) == BSYNC_OK) keys += ti.key_count;
        }
        char d[24];
        printf("  clip '%s': %s s, %u tracks, %u keys", bsync_clip_name(c), fx(bsync_clip_duration(c), d),
               (unsigned)bsync_clip_track_count(c), (unsigned)keys);
        const bsync_import_stats* s = &a->stats[i];
        if (s->keys)
            printf("; precision lost: translation %.3g m, rotation %.3g rad, scale %.3g, time %.3g s",
                   s->max_translation_error, s->max_rotation_error, s->max_scale_error, s->max_time_error);
        printf("\n");
    }
    const char* n = a->notes;
    while (*n) {
        const char* e = strchr(n, '\n');
        size_t len = e ? (size_t)(e - n) : strlen(n);
        printf("  note: %.*s\n", (int)len, n);
        n += len + (e ? 1 : 0);
    }
}

static void print_report(const char* what, const bsync_retarget_report* r) {
    printf("  retargeted %s by name: %u of %u target joints mapped", what, (unsigned)r->mapped,
           (unsigned)r->target_joints);
    if (r->unmapped_target) printf("; rest pose for %u: %s", (unsigned)r->unmapped_target, r->unmapped_target_names);
    if (r->unmapped_source)
        printf("; %u source joints dropped: %s", (unsigned)r->unmapped_source, r->unmapped_source_names);
    printf("\n");
}

int bsync_cmd_import(int argc, char** argv) {
    const char* out_path = NULL;
    const char* skel_path = NULL;
    char* clips_arg = NULL;
    int list = 0;
    uint32_t flags = 0;
    bsync_import_options opt;
    memset(&opt, 0, sizeof opt);
    const char** inputs = calloc((size_t)argc + 1, sizeof *inputs);
    const char** names = NULL;
    uint32_t ninputs = 0, nnames = 0;
    bsync_asset* assets = NULL;
    bsync_asset target;
    memset(&target, 0, sizeof target);
    int status = 2;
    if (!inputs) {
        fprintf(stderr, "blendsync import: out of memory\n");
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        const char* a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            status = 0;
            goto done;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--clips") || !strcmp(a, "--skeleton-from") || !strcmp(a, "--rate") ||
                   !strcmp(a, "--bvh-scale")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "blendsync import: %s needs a value\n", a);
                goto done;
            }
            const char* v = argv[++i];
            if (!strcmp(a, "-o")) out_path = v;
            else if (!strcmp(a, "--skeleton-from")) skel_path = v;
            else if (!strcmp(a, "--clips")) {
                free(clips_arg);
                clips_arg = strdup(v);
            } else if (!strcmp(a, "--rate")) {
                char* end;
                long r = strtol(v, &end, 10);
                if (*v == '\0' || *end != '\0' || r < 1 || r > 1000) {
                    fprintf(stderr, "blendsync import: --rate needs a whole number from 1 to 1000\n");
                    goto done;
                }
                opt.resample_hz = (uint32_t)r;
            } else {
                char* end;
                double s = strtod(v, &end);
                if (*v == '\0' || *end != '\0' || !(s > 0) || s > 1e6) {
                    fprintf(stderr, "blendsync import: --bvh-scale needs a number above 0\n");
                    goto done;
                }
                opt.bvh_scale = s;
            }
        } else if (!strcmp(a, "--list")) {
            list = 1;
        } else if (!strcmp(a, "--bone-lengths")) {
            flags |= BSYNC_RETARGET_TARGET_BONE_LENGTHS;
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "blendsync import: unknown option '%s'\n", a);
            goto done;
        } else {
            inputs[ninputs++] = a;
        }
    }
    if (ninputs == 0) {
        fprintf(stderr, "blendsync import: no input files (blendsync import --help)\n");
        goto done;
    }
    if (!list && !out_path) {
        fprintf(stderr, "blendsync import: -o OUT.bsclip is required (or --list)\n");
        goto done;
    }
    if (clips_arg) {
        names = calloc(strlen(clips_arg) + 1, sizeof *names);
        if (!names) goto done;
        for (char* tok = strtok(clips_arg, ","); tok; tok = strtok(NULL, ","))
            if (*tok) names[nnames++] = tok;
        if (nnames == 0) {
            fprintf(stderr, "blendsync import: --clips needs at least one name\n");
            goto done;
        }
        opt.clip_names = names;
        opt.clip_name_count = nnames;
    }
    bsync_error err;
    memset(&err, 0, sizeof err);
    assets = calloc(ninputs, sizeof *assets);
    if (!assets) goto done;
    for (uint32_t i = 0; i < ninputs; i++) {
        if (bsync_asset_import_file(inputs[i], &opt, &assets[i], &err) != BSYNC_OK) {
            fprintf(stderr, "blendsync import: %s\n", err.message);
            goto done;
        }
        print_asset(inputs[i], &assets[i]);
    }
    if (list) {
        status = 0;
        goto done;
    }
    const bsync_skeleton* tskel = assets[0].skeleton;
    if (skel_path) {
        bsync_import_options so = opt;
        static const char* const none[1] = {NULL};
        so.clip_names = none; /* no clips needed */
        so.clip_name_count = 0;
        if (bsync_asset_import_file(skel_path, &so, &target, &err) != BSYNC_OK) {
            fprintf(stderr, "blendsync import: --skeleton-from: %s\n", err.message);
            goto done;
        }
        tskel = target.skeleton;
        printf("target skeleton: %s (%u joints)\n", target.source, (unsigned)bsync_skeleton_joint_count(tskel));
    }
    uint64_t tsum = bsync_checksum_skeleton(tskel);
    for (uint32_t i = 0; i < ninputs; i++) {
        if (bsync_checksum_skeleton(assets[i].skeleton) == tsum) continue;
        bsync_retarget_report rep;
        if (bsync_retarget_asset(&assets[i], tskel, flags, &rep, &err) != BSYNC_OK) {
            fprintf(stderr, "blendsync import: %s\n", err.message);
            goto done;
        }
        char what[300];
        snprintf(what, sizeof what, "%.250s", inputs[i]);
        print_report(what, &rep);
        if (i == 0) tskel = skel_path ? target.skeleton : assets[0].skeleton;
    }
    /* collect the clips: unique names, every requested name found */
    uint32_t total = 0;
    for (uint32_t i = 0; i < ninputs; i++) total += assets[i].clip_count;
    const bsync_clip** clips = calloc(total ? total : 1, sizeof *clips);
    if (!clips) goto done;
    uint32_t n = 0;
    for (uint32_t i = 0; i < ninputs; i++)
        for (uint32_t k = 0; k < assets[i].clip_count; k++) {
            for (uint32_t q = 0; q < n; q++)
                if (!strcmp(bsync_clip_name(clips[q]), bsync_clip_name(assets[i].clips[k]))) {
                    fprintf(stderr, "blendsync import: two clips are named '%s' (pick one with --clips)\n",
                            bsync_clip_name(clips[q]));
                    free(clips);
                    goto done;
                }
            clips[n++] = assets[i].clips[k];
        }
    for (uint32_t q = 0; q < nnames; q++) {
        int found = 0;
        for (uint32_t k = 0; k < n; k++)
            if (!strcmp(bsync_clip_name(clips[k]), names[q])) found = 1;
        if (!found) {
            fprintf(stderr, "blendsync import: no input has a clip named '%s'\n", names[q]);
            free(clips);
            goto done;
        }
    }
    /* the inputs' clip actions (a .bsclip of version 3, glTF extras: docs/clip-format.md "Clip actions"),
     * their clip indices moved to the output's; the file is version 3 only when there are some */
    uint32_t nact = 0;
    for (uint32_t i = 0; i < ninputs; i++) nact += bsync_asset_clip_action_count(&assets[i]);
    bsync_clip_action* acts = calloc(nact ? nact : 1, sizeof *acts);
    if (!acts) {
        free(clips);
        goto done;
    }
    for (uint32_t i = 0, base = 0, a = 0; i < ninputs; base += assets[i].clip_count, i++)
        for (uint32_t k = 0; k < bsync_asset_clip_action_count(&assets[i]); k++, a++) {
            (void)bsync_asset_get_clip_action(&assets[i], k, &acts[a]);
            acts[a].clip += base;
        }
    if (bsync_clip_file_save_ex(out_path, tskel, clips, n, acts, nact, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync import: %s\n", err.message);
        free(acts);
        free(clips);
        goto done;
    }
    size_t size = bsync_clip_file_size_ex(tskel, clips, n, acts, nact);
    free(acts);
    free(clips);
    /* read it back: the file must load */
    bsync_asset check;
    if (bsync_clip_file_load(out_path, &check, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync import: the written file does not load back: %s\n", err.message);
        goto done;
    }
    printf("wrote %s: %u joints, %u clips, %zu bytes, checksum %016llx\n", out_path,
           (unsigned)bsync_skeleton_joint_count(check.skeleton), (unsigned)check.clip_count, size,
           (unsigned long long)check.file_checksum);
    bsync_asset_destroy(&check);
    status = 0;
done:
    for (uint32_t i = 0; assets && i < ninputs; i++) bsync_asset_destroy(&assets[i]);
    free(assets);
    bsync_asset_destroy(&target);
    free(inputs);
    free(names);
    free(clips_arg);
    return status;
}
