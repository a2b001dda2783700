/* cli_graph_config.c — see cli_graph_config.h. */
#include "cli_graph_config.h"

#include <stdio.h>
#include <string.h>

bsync_graph_config* bsync_cli_load_graph_config(const char* cmd, const char* path, bsync_blend_diagnostics* diags) {
    bsync_graph_config* gc = NULL;
    bsync_error err;
    if (bsync_graph_config_load(path, NULL, &gc, diags, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync %s: %s\n", cmd, err.message);
        return NULL;
    }
    const char* notes = bsync_graph_config_notes(gc);
    for (const char* p = notes; p && *p;) {
        const char* nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "note: %.*s\n", (int)n, p);
        p += n + (nl ? 1 : 0);
    }
    return gc;
}

bsync_script* bsync_cli_load_script(const char* cmd, const char* path, const bsync_graph* graph) {
    bsync_script* sc = NULL;
    bsync_error err;
    if (bsync_script_load(path, graph, NULL, &sc, &err) != BSYNC_OK) {
        fprintf(stderr, "blendsync %s: %s\n", cmd, err.message);
        return NULL;
    }
    return sc;
}
