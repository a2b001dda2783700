/* retarget.c — clips onto another skeleton by joint name; see blendsync/io/retarget.h. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/retarget.h"
#include "import_internal.h"

static void add_name(char* list, size_t cap, const char* name) {
    size_t used = strlen(list);
    if (used >= cap - 4) return;
    size_t need = strlen(name) + (used ? 2 : 0);
    if (used + need + 4 >= cap) {
        memcpy(list + used, "...", 4);
        return;
    }
    if (used) {
        memcpy(list + used, ", ", 2);
        used += 2;
    }
    memcpy(list + used, name, strlen(name) + 1);
}

static void make_report(const bsync_skeleton* from, const bsync_skeleton* to, bsync_retarget_report* rep) {
    memset(rep, 0, sizeof *rep);
    uint32_t nt = bsync_skeleton_joint_count(to), nf = bsync_skeleton_joint_count(from);
    rep->target_joints = nt;
    uint32_t idx;
    for (uint32_t i = 0; i < nt; i++) {
        if (bsync_skeleton_find(from, bsync_skeleton_joint_name(to, i), &idx) == BSYNC_OK) rep->mapped++;
        else {
            rep->unmapped_target++;
            add_name(rep->unmapped_target_names, sizeof rep->unmapped_target_names, bsync_skeleton_joint_name(to, i));
        }
    }
    for (uint32_t i = 0; i < nf; i++)
        if (bsync_skeleton_find(to, bsync_skeleton_joint_name(from, i), &idx) != BSYNC_OK) {
            rep->unmapped_source++;
            add_name(rep->unmapped_source_names, sizeof rep->unmapped_source_names, bsync_skeleton_joint_name(from, i));
        }
}

bsync_result bsync_retarget_clip(const bsync_clip* clip, const bsync_skeleton* from, const bsync_skeleton* to,
                                 uint32_t flags, bsync_clip** out, bsync_retarget_report* report) {
    if (!clip || !from || !to || !out) return BSYNC_INVALID_ARGUMENT;
    if (bsync_clip_encoding(clip) != 0) return BSYNC_INVALID_ARGUMENT; /* compact keys: retarget before compacting */
    if (bsync_clip_joint_count(clip) != bsync_skeleton_joint_count(from)) return BSYNC_MISMATCH;
    bsync_retarget_report local;
    make_report(from, to, report ? report : &local);
    bsync_retarget_report* rep = report ? report : &local;
    uint32_t tc = bsync_clip_track_count(clip);
    bsync_raw_track* tracks = calloc(tc ? tc : 1, sizeof *tracks);
    if (!tracks) return BSYNC_OUT_OF_MEMORY;
    uint32_t n = 0;
    for (uint32_t i = 0; i < tc; i++) {
        bsync_track_info ti;
        if (bsync_clip_track_info(clip, i, &ti) != BSYNC_OK) continue;
        uint32_t target;
        if (bsync_skeleton_find(to, bsync_skeleton_joint_name(from, ti.joint), &target) != BSYNC_OK) {
            rep->dropped_tracks++;
            continue;
        }
        if ((flags & BSYNC_RETARGET_TARGET_BONE_LENGTHS) && ti.kind == BSYNC_TRACK_TRANSLATION &&
            bsync_skeleton_parent(to, target) != BSYNC_NO_PARENT) {
            rep->dropped_tracks++;
            continue;
        }
        tracks[n].joint = target;
        tracks[n].kind = ti.kind;
        tracks[n].key_count = ti.key_count;
        tracks[n].times = ti.times;
        tracks[n].vec3s = ti.vec3s;
        tracks[n].quats = ti.quats;
        n++;
    }
    bsync_clip_desc d = {bsync_clip_name(clip), bsync_clip_duration(clip), bsync_clip_loops(clip), tracks, n};
    bsync_result r = bsync_clip_create(&d, to, NULL, out);
    free(tracks);
    return r;
}

/* A fresh copy of a skeleton built from its own joints. */
static bsync_result copy_skeleton(const bsync_skeleton* s, bsync_skeleton** out) {
    uint32_t n = bsync_skeleton_joint_count(s);
    bsync_joint_desc* j = calloc(n ? n : 1, sizeof *j);
    if (!j) return BSYNC_OUT_OF_MEMORY;
    const bsync_trs* rest = bsync_skeleton_rest_pose(s);
    for (uint32_t i = 0; i < n; i++) {
        j[i].name = bsync_skeleton_joint_name(s, i);
        j[i].parent = bsync_skeleton_parent(s, i);
        j[i].rest = rest[i];
    }
    bsync_skeleton_desc d = {j, n};
    bsync_result r = bsync_skeleton_create(&d, NULL, out);
    free(j);
    return r;
}

bsync_result bsync_retarget_asset(bsync_asset* asset, const bsync_skeleton* to, uint32_t flags,
                                  bsync_retarget_report* report, bsync_error* err) {
    if (!asset || !asset->skeleton || !to) return imp_fail(err, BSYNC_INVALID_ARGUMENT, "retarget", "missing asset or skeleton");
    bsync_skeleton* skel = NULL;
    bsync_result r = copy_skeleton(to, &skel);
    if (r != BSYNC_OK) return imp_fail(err, r, asset->source, "copying the target skeleton: %s", bsync_result_string(r));
    bsync_clip** clips = calloc(asset->clip_count ? asset->clip_count : 1, sizeof *clips);
    if (!clips) {
        bsync_skeleton_destroy(skel);
        return imp_fail(err, BSYNC_OUT_OF_MEMORY, asset->source, "out of memory");
    }
    bsync_retarget_report rep;
    for (uint32_t i = 0; i < asset->clip_count; i++) {
        r = bsync_retarget_clip(asset->clips[i], asset->skeleton, skel, flags, &clips[i], &rep);
        if (r != BSYNC_OK) {
            for (uint32_t k = 0; k < i; k++) bsync_clip_destroy(clips[k]);
            free(clips);
            bsync_skeleton_destroy(skel);
            return imp_fail(err, r, asset->source, "retargeting clip '%s': %s", bsync_clip_name(asset->clips[i]),
                            bsync_result_string(r));
        }
    }
    if (asset->clip_count == 0) make_report(asset->skeleton, skel, &rep);
    /* the clip actions (docs/clip-format.md "Clip actions") point into memory_: listed before it goes,
     * attached again to the new clips (same durations) after */
    const uint32_t nact = bsync_asset_clip_action_count(asset);
    bsync_clip_action* acts = calloc(nact ? nact : 1, sizeof *acts);
    if (!acts) {
        for (uint32_t k = 0; k < asset->clip_count; k++) bsync_clip_destroy(clips[k]);
        free(clips);
        bsync_skeleton_destroy(skel);
        return imp_fail(err, BSYNC_OUT_OF_MEMORY, asset->source, "out of memory");
    }
    for (uint32_t k = 0; k < nact; k++) (void)bsync_asset_get_clip_action(asset, k, &acts[k]);
    if (report) *report = rep;
    for (uint32_t i = 0; i < asset->clip_count; i++) bsync_clip_destroy(asset->clips[i]);
    bsync_skeleton_destroy(asset->skeleton);
    free(asset->clips);
    void* old = asset->memory_; /* loaded blocks are no longer referenced */
    asset->memory_ = NULL;
    asset->clips = clips;
    asset->skeleton = skel;
    asset->file_checksum = 0;
    r = imp_attach_actions(asset, acts, nact, asset->source, err);
    free(acts);
    free(old);
    return r;
}
