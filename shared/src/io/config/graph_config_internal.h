/* graph_config_internal.h — internal to blendsync_io: the built-in clip sources of graph configs
 * ("source": "builtin:humanoid", io/config.h), shared by graph_config.c (which loads them) and
 * validate.c (which checks them), so both see the same asset.
 */
#ifndef BLENDSYNC_IO_GRAPH_CONFIG_INTERNAL_H
#define BLENDSYNC_IO_GRAPH_CONFIG_INTERNAL_H

#include "blendsync/base.h"
#include "blendsync/io/asset.h"
#include "blendsync/io/config.h"

/* The built-in procedural humanoid (procedural.h) as an asset (*a zeroed first): skeleton + clips
 * idle, walk, run, owned by the asset exactly as an import's (bsync_asset_destroy frees them), followed
 * by those of the extra clips of bsync_procedural_humanoid_full_create (walk_back, strafe_left,
 * strafe_right, wave, punch) that some "builtin:humanoid" clip entry of `fields` names as its
 * "animation". stats are all zero, notes empty, source "built-in procedural humanoid (procedural.h)".
 * BSYNC_OUT_OF_MEMORY (nothing left allocated) when an allocation fails. */
bsync_result bsync_graph_config_builtin_humanoid(bsync_asset* a, const bsync_config_graph_fields* fields);

/* bsync_config_load_graph reading the file through cb (NULL or no read function: stdio). */
struct bsync_file_callbacks;
bsync_result bsync_config_load_graph_with_(const struct bsync_file_callbacks* cb, const char* path,
                                                const bsync_allocator* allocator, bsync_blend_tree** out_tree,
                                                bsync_config_graph_fields** out_graph, bsync_blend_diagnostics* diags,
                                                bsync_error* err);

#endif /* BLENDSYNC_IO_GRAPH_CONFIG_INTERNAL_H */
