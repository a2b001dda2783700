/* fuzz_clip_file.c — .bsclip bytes (io/clip_file.h): load, and sample every clip and read every clip
 * action (version 3; seed actions.bsclip) when it loads.
 * Most random bytes fail the checksum; each input is tried as it is and once more re-sealed (its
 * checksum at bytes 24..31 recomputed), so libFuzzer's mutations reach the block checks behind it too
 * (the mutator in fuzz_corpus_main.c also re-seals half of its mutations, --seal-bsclip). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/clip_file.h"
#include "blendsync/sample.h"
#include "fuzz_target.h"

static void load(const uint8_t* data, size_t size) {
    bsync_asset asset;
    bsync_error err;
    if (bsync_clip_file_load_memory(data, size, "fuzz.bsclip", &asset, &err) != BSYNC_OK) return;
    static bsync_trs pose[BSYNC_MAX_JOINTS];
    uint32_t n = bsync_skeleton_joint_count(asset.skeleton);
    const bsync_trs* rest = bsync_skeleton_rest_pose(asset.skeleton);
    for (uint32_t c = 0; c < asset.clip_count; c++) {
        fix16_t d = bsync_clip_duration(asset.clips[c]);
        for (int k = 0; k <= 4; k++)
            bsync_clip_sample(asset.clips[c], (fix16_t)((int64_t)d * k / 4), BSYNC_LOOP_WRAP, rest, n, NULL, pose);
    }
    /* clip actions (version 3, docs/clip-format.md "Clip actions"): what loaded keeps the rules */
    for (uint32_t i = 0; i < bsync_asset_clip_action_count(&asset); i++) {
        bsync_clip_action x;
        if (bsync_asset_get_clip_action(&asset, i, &x) != BSYNC_OK || x.clip >= asset.clip_count || !x.name[0]) abort();
        const fix16_t d = bsync_clip_duration(asset.clips[x.clip]);
        for (uint32_t k = 0; k < x.key_count; k++)
            if (x.key_times[k] < 0 || x.key_times[k] > d) abort();
    }
    bsync_asset_destroy(&asset);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    load(data, size);
    if (size < 32) return 0;
    uint8_t* sealed = malloc(size);
    if (!sealed) return 0;
    memcpy(sealed, data, size);
    uint64_t c = bsync_clip_file_checksum(sealed, size);
    for (int i = 0; i < 8; i++) sealed[24 + i] = (uint8_t)(c >> (8 * i));
    if (memcmp(sealed + 24, data + 24, 8) != 0) load(sealed, size); /* an already sealed input was tried */
    free(sealed);
    return 0;
}
