/* blendsync/io/graph_config.h — a graph configuration file -> a ready bsync_graph and everything it
 * points to (tree, skeleton, clips, filter curves), owned by one object. Edge code.
 *
 * Index
 *   bsync_graph_config_load      read CONFIG, import its clip sources, build curves and the graph
 *   bsync_graph_config_load_ex, bsync_config_load_options   the same, reading every file through callbacks
 *   bsync_graph_config_parse     the same from text in memory
 *   bsync_graph_config_destroy   free all of it
 *   accessors                    graph, tree, skeleton, parsed fields, bound clip count, notes
 *
 * Errors: BSYNC_CONFIG_ERROR ("FILE: /json/path: message"), BSYNC_IO_ERROR, BSYNC_OUT_OF_MEMORY; *out is
 * NULL on failure. design: docs/graph-config.md#loading-a-whole-graph-iograph_configh (the steps)
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
/* file: reads the config and every source it names (zero: stdio); paths are joined as text. */
typedef struct bsync_config_load_options {
    bsync_file_callbacks file;
} bsync_config_load_options;

/* options NULL: as bsync_graph_config_load. */
BSYNC_API bsync_result bsync_graph_config_load_ex(const char* path, const bsync_config_load_options* options,
                                                  const bsync_allocator* allocator, bsync_graph_config** out,
                                                  bsync_blend_diagnostics* diags, bsync_error* err);
/* `name` (NULL: "graph"): for messages, and its folder for relative sources. */
BSYNC_API bsync_result bsync_graph_config_parse(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                      bsync_graph_config** out, bsync_blend_diagnostics* diags, bsync_error* err);
BSYNC_API void bsync_graph_config_destroy(bsync_graph_config* config);

/* Accessors (NULL config: NULL / 0 / ""). */
BSYNC_API const bsync_graph* bsync_graph_config_graph(const bsync_graph_config* config);
BSYNC_API const bsync_blend_tree* bsync_graph_config_tree(const bsync_graph_config* config);
BSYNC_API const bsync_skeleton* bsync_graph_config_skeleton(const bsync_graph_config* config);
BSYNC_API const bsync_config_graph_fields* bsync_graph_config_fields(const bsync_graph_config* config);
BSYNC_API uint32_t bsync_graph_config_bound_clip_count(const bsync_graph_config* config);
/* Sources loaded, retargeting reports; one line each. */
BSYNC_API const char* bsync_graph_config_notes(const bsync_graph_config* config);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_GRAPH_CONFIG_H */
