/* blendsync/io/config.h — graph configuration files (JSON) -> blend trees.
 *
 * Index
 *   bsync_config_parse        text -> bsync_blend_tree (with exact decimal numbers)
 *   bsync_config_load_file    a file -> bsync_blend_tree
 *
 * Format (the graph issue extends it; unknown fields are errors so typos never pass silently):
 *   {
 *     "parameters": { "speed": { "default": 0 }, "x": {}, "y": {} },
 *     "root": "move",
 *     "nodes": {
 *       "move":  { "type": "SimpleDirectional2D", "parameters": ["x", "y"],
 *                  "children": [ { "motion": "idle", "position": [0, 0] }, ... ] },
 *       "speed": { "type": "Simple1D", "parameter": "speed",
 *                  "children": [ { "motion": "idle", "threshold": 0 }, ... ] },
 *       "face":  { "type": "Direct", "normalize": false,
 *                  "children": [ { "motion": "smile", "parameter": "smile" } ] },
 *       "spread":{ "type": "InverseDistance2D", "power": 2, "parameters": ["x", "y"], "children": [...] }
 *     }
 *   }
 * A child's "motion" names another node (nesting) or a motion (a leaf); motions need no clip data.
 * Numbers become fix16 by exact decimal rounding of their text (bsync_fx_parse), never through a
 * float; a number outside Q16.16's range is an error naming its path.
 *
 * "parameters", "root" and "nodes" are required; a parameter's "default" is optional (0). Fields per
 * type: Simple1D "parameter" + children {"motion", "threshold"}; the 2D types "parameters" [x, y] +
 * children {"motion", "position": [x, y]} (InverseDistance2D also "power", an integer 1..8);
 * Direct "normalize" (bool, optional) + children {"motion", "parameter"}. Nodes are indexed in file
 * order, parameters in file order, motions in order of first use (one motion per name).
 * The text must be strict JSON (RFC 8259); invalid JSON is reported as "FILE:LINE:COLUMN: invalid
 * JSON: ..." at the first offending byte (columns count bytes from 1).
 *
 * Errors fill a bsync_error whose message names the file and the JSON path, e.g.
 *   "loco.json: /nodes/move/children/2/position: expected an array of 2 numbers"
 * and return BSYNC_CONFIG_ERROR (BSYNC_IO_ERROR when the file cannot be read, BSYNC_OUT_OF_MEMORY
 * when an allocation fails, BSYNC_INVALID_ARGUMENT for null arguments). *out is NULL on failure. Layout warnings of
 * the blend spaces are reported per node through `diags` (node_count entries, may be NULL).
 */
#ifndef BLENDSYNC_IO_CONFIG_H
#define BLENDSYNC_IO_CONFIG_H

#include "blendsync/base.h"
#include "blendsync/blend_tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `name` is used in messages (a file name). `diags` receives BSYNC_MAX_BLEND_NODES entries at most:
 * pass an array of BSYNC_MAX_BLEND_NODES or NULL. */
bsync_result bsync_config_parse(const char* text, size_t len, const char* name, const bsync_allocator* allocator,
                                bsync_blend_tree** out, bsync_blend_diagnostics* diags, bsync_error* err);
bsync_result bsync_config_load_file(const char* path, const bsync_allocator* allocator, bsync_blend_tree** out,
                                    bsync_blend_diagnostics* diags, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_CONFIG_H */
