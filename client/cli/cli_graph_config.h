/* cli_graph_config.h — loading a graph config and its graph script the way every command reports them. */
#ifndef BLENDSYNC_CLI_GRAPH_CONFIG_H
#define BLENDSYNC_CLI_GRAPH_CONFIG_H

#include "blendsync/io/graph_config.h"
#include "blendsync/io/script.h"

/* Load `path` for command `cmd` ("eval", "bake", ...). On failure prints "blendsync CMD: message" on
 * stderr and returns NULL; on success prints the loader's notes on stderr, one "note: ..." line
 * each. `diags` receives BSYNC_MAX_BLEND_NODES entries. Free with bsync_graph_config_destroy. */
bsync_graph_config* bsync_cli_load_graph_config(const char* cmd, const char* path, bsync_blend_diagnostics* diags);

/* Load the graph script `path` (io/script.h) against `graph`; on failure prints "blendsync CMD:
 * message" on stderr and returns NULL. Free with bsync_script_destroy. */
bsync_script* bsync_cli_load_script(const char* cmd, const char* path, const bsync_graph* graph);

#endif
