/* fuzz_clip_file.c — .bsclip bytes (io/clip_file.h): load, and sample every clip when it loads.
 * Most random bytes fail the checksum; the mutator in fuzz_corpus_main.c also re-seals mutated files
 * (recomputes the checksum) so the block checks behind it are reached. */
#include <string.h>

#include "blendsync/io/clip_file.h"
#include "blendsync/sample.h"
#include "fuzz_target.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bsync_asset asset;
    bsync_error err;
    if (bsync_clip_file_load_memory(data, size, "fuzz.bsclip", &asset, &err) != BSYNC_OK) return 0;
    static bsync_trs pose[BSYNC_MAX_JOINTS];
    uint32_t n = bsync_skeleton_joint_count(asset.skeleton);
    const bsync_trs* rest = bsync_skeleton_rest_pose(asset.skeleton);
    for (uint32_t c = 0; c < asset.clip_count; c++) {
        fix16_t d = bsync_clip_duration(asset.clips[c]);
        for (int k = 0; k <= 4; k++)
            bsync_clip_sample(asset.clips[c], (fix16_t)((int64_t)d * k / 4), BSYNC_LOOP_WRAP, rest, n, NULL, pose);
    }
    bsync_asset_free(&asset);
    return 0;
}
