/* fuzz_gltf.c — glTF 2.0 bytes (.gltf JSON or .glb) through the importer (io/gltf.h). */
#include "blendsync/io/gltf.h"
#include "fuzz_target.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bsync_asset asset;
    bsync_error err;
    if (bsync_gltf_import_memory(data, size, "fuzz.gltf", NULL, NULL, &asset, &err) == BSYNC_OK)
        bsync_asset_destroy(&asset);
    return 0;
}
