/* fuzz_bvh.c — BVH text through the importer (io/bvh.h). */
#include "blendsync/io/bvh.h"
#include "fuzz_target.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bsync_asset asset;
    bsync_error err;
    if (bsync_bvh_import_memory((const char*)data, size, "fuzz.bvh", NULL, &asset, &err) == BSYNC_OK)
        bsync_asset_destroy(&asset);
    return 0;
}
