/* blendsync/io/graph_config.h — a graph configuration file -> a ready bsync_graph and everything it
 * points to (tree, skeleton, clips, filter curves), owned by one object.
 *
 * Index
 *   bsync_graph_config_load      read CONFIG, import its clip sources, build curves and the graph
 *   bsync_graph_config_load_ex   the same, reading every file through caller callbacks (a pak file)
 *   bsync_graph_config_parse     the same from text in memory
 *   bsync_graph_config_destroy   free all of it
 *   accessors                    graph, tree, skeleton, parsed fields, bound clip count, notes
 *
 * The format is io/config.h's (tree + graph fields). Loading, in order:
 *   1. bsync_config_load_graph (every syntax and field error, with its JSON path);
 *   2. every "clips" entry in file order: its source (relative to the config file's directory, an
 *      absolute path as is) is imported once per distinct path with bsync_asset_import_file
 *      ("builtin:humanoid": bsync_procedural_humanoid_create instead, once, as an asset with the
 *      humanoid's skeleton and clips "idle", "walk", "run"; its note names it); the FIRST
 *      source's skeleton is the graph's skeleton; a later source whose skeleton differs
 *      (bsync_checksum_skeleton) is retargeted onto it by joint name (io/retarget.h, default flags:
 *      translations copied); what was mapped is written to the notes, and a source sharing no joint
 *      name with the skeleton is an error. The entry's "animation" is looked up by clip name; when
 *      "animation" was not written and no clip has the motion's name, a source with exactly one clip
 *      uses that clip. The clip is bound to the motion of the entry's name;
 *   3. each parameter's curve is built (bsync_curve_create); filter descs and node options are filled
 *      from the fields; "root_joint" is looked up in the skeleton;
 *   3b. switches: one bsync_graph_switch_desc per Switch node (config.h), in node order; layers: one
 *      bsync_graph_layer_desc per "layers" entry, in order, each mask joint looked up by name in the
 *      skeleton (include_descendants from "include_children"); layers without a skeleton (no clips)
 *      are an error at /layers, an unknown joint at /layers/K/mask/joints/J;
 *   4. bsync_graph_create with the switches and layers. When it refuses a root_motion other than
 *      "keep" (detected by building again with "keep"), the error is reported at /root_motion.
 * Every error after step 1 also names the file and a JSON path, returns BSYNC_CONFIG_ERROR (or
 * BSYNC_OUT_OF_MEMORY), e.g.
 *   "loco.json: /clips/walk/animation: no animation \"wlak\" in pab.gltf (animations: walk, jog, run)"
 *   "loco.json: /clips/walk/source: cannot import \"pab.gltf\": ..."
 *   "loco.json: /root_joint: no joint named \"Hip\" in the skeleton (from pab.gltf)"
 *   "loco.json: /root_joint: no clips are bound, so there is no skeleton to find \"Hips\" in"
 *   "loco.json: /root_motion: the graph refused \"extract\": invalid argument (...)"
 *   "loco.json: /layers/0/mask/joints/1: no joint named \"Spine\" in the skeleton (from builtin:humanoid)"
 * *out is NULL on failure. `diags` as in config.h (BSYNC_MAX_BLEND_NODES entries or NULL). The
 * allocator (NULL: default) is used for the tree, curves and graph; imported assets use malloc.
 *
 * Edge code (blendsync_io): reads files, allocates. The graph it returns is the core's, immutable.
 */
#ifndef BLENDSYNC_IO_GRAPH_CONFIG_H
#define BLENDSYNC_IO_GRAPH_CONFIG_H

#include "blendsync/base.h"
#include "blendsync/graph.h"
#include "blendsync/io/config.h"
#include "blendsync/io/file.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bsync_graph_config bsync_graph_config;

BSYNC_API bsync_result bsync_graph_config_load(const char* path, const bsync_allocator* allocator, bsync_graph_config** out,
                                     bsync_blend_diagnostics* diags, bsync_error* err);
/* How config loading reads files: `file` (io/file.h) reads the config itself and every clip source it
 * names (through bsync_import_options.file, so also a glTF's external buffers); zero: stdio. Paths
 * are joined as text (a source relative to the config's folder part), never resolved on disk, so they
 * may name files that exist only behind the callbacks. */
typedef struct bsync_config_load_options {
    bsync_file_callbacks file;
} bsync_config_load_options;

/* bsync_graph_config_load with options (NULL: as bsync_graph_config_load). A failed read of the config
 * is BSYNC_IO_ERROR ("PATH: cannot read: ..."), of a source the usual /clips/NAME/source error. */
BSYNC_API bsync_result bsync_graph_config_load_ex(const char* path, const bsync_config_load_options* options,
                                                  const bsync_allocator* allocator, bsync_graph_config** out,
                                                  bsync_blend_diagnostics* diags, bsync_error* err);
/* The same from text in memory (len bytes; need not be NUL-terminated): `name` (NULL: "graph") is used
 * in messages and as the config's path, so relative clip sources resolve against its directory
 * (a name without a directory: the current one). The fuzz target tests/fuzz/fuzz_graph_config.c. */
BSYNC_API bsync_result bsync_graph_config_parse(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                      bsync_graph_config** out, bsync_blend_diagnostics* diags, bsync_error* err);
BSYNC_API void bsync_graph_config_destroy(bsync_graph_config* config); /* NULL is ignored */

/* Accessors (NULL config: NULL / 0 / ""). */
BSYNC_API const bsync_graph* bsync_graph_config_graph(const bsync_graph_config* config);
BSYNC_API const bsync_blend_tree* bsync_graph_config_tree(const bsync_graph_config* config);
BSYNC_API const bsync_skeleton* bsync_graph_config_skeleton(const bsync_graph_config* config); /* NULL without clips */
BSYNC_API const bsync_config_graph* bsync_graph_config_fields(const bsync_graph_config* config);
BSYNC_API uint32_t bsync_graph_config_bound_clip_count(const bsync_graph_config* config); /* motions with a clip */
/* One line per note ("\n"-separated): sources loaded, retargeting reports. */
BSYNC_API const char* bsync_graph_config_notes(const bsync_graph_config* config);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_GRAPH_CONFIG_H */
