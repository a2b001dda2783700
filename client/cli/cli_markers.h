/* cli_markers.h — foot sync-marker suggestions for `blendsync validate --suggest-markers` (cli_markers.c). */
#ifndef BSYNC_CLI_MARKERS_H
#define BSYNC_CLI_MARKERS_H
#include <stdio.h>

/* Prints one line per bound clip of the graph config: "suggested markers for MOTION (D s): foot_l T s
 * foot_r T s". 0, or 2 after a message on stderr. */
int bsync_cli_suggest_markers(const char* config, FILE* out);

#endif
