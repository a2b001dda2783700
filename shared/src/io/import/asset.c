/* asset.c — bsync_asset_import_file: the importers' dispatcher by file type (glTF, BVH, .bsclip, and
 * FBX/Collada through assimp when built with it). The importers' shared helpers are import_build.c. */
#include <stdlib.h>
#include <string.h>

#include "blendsync/io/asset.h"
#include "blendsync/io/bvh.h"
#include "blendsync/io/clip_file.h"
#include "blendsync/io/gltf.h"
#include "import_internal.h"

static int ext_is(const char* path, const char* ext) {
    size_t pl = strlen(path), el = strlen(ext);
    if (pl < el) return 0;
    for (size_t i = 0; i < el; i++) {
        char c = path[pl - el + i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != ext[i]) return 0;
    }
    return 1;
}

bsync_result bsync_asset_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                     bsync_error* err) {
    if (!path || !out) return imp_fail(err, BSYNC_INVALID_ARGUMENT, path, "no path or output given");
    if (ext_is(path, ".gltf") || ext_is(path, ".glb")) return bsync_gltf_import_file(path, options, out, err);
    if (ext_is(path, ".bvh")) return bsync_bvh_import_file(path, options, out, err);
    if (ext_is(path, ".bsclip")) {
        if (!options || !options->file.read) return bsync_clip_file_load(path, out, err);
        unsigned char* data;
        size_t size;
        bsync_result r = imp_read_input(options, path, out, &data, &size, err);
        if (r != BSYNC_OK) return r;
        r = bsync_clip_file_load_memory(data, size, path, out, err); /* copies what it keeps */
        free(data);
        return r;
    }
#if BSYNC_HAVE_ASSIMP
    if (ext_is(path, ".fbx") || ext_is(path, ".dae")) return bsync_assimp_import(path, options, out, err);
#endif
    memset(out, 0, sizeof *out);
    if (ext_is(path, ".fbx") || ext_is(path, ".dae"))
        return imp_fail(err, BSYNC_INVALID_ARGUMENT, path,
                        "FBX and Collada are not read directly: convert to glTF first (Blender's glTF exporter, "
                        "FBX2glTF, or `assimp export IN OUT.glb` from Debian's assimp-utils), then import that");
    return imp_fail(err, BSYNC_INVALID_ARGUMENT, path,
                    "unknown file type (supported: .gltf, .glb, .bvh, .bsclip; FBX/Collada: convert to glTF)");
}
