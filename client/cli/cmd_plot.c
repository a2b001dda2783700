/* cmd_plot.c — `blendsync plot` (being written for issue 3). */
#include <stdio.h>
#include "commands.h"

int bsync_cmd_plot(int argc, char** argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "blendsync plot: not available in this build yet\n");
    return 2;
}
