/* cmd_weights.c — `blendsync weights` (being written for issue 3). */
#include <stdio.h>
#include "commands.h"

int bsync_cmd_weights(int argc, char** argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "blendsync weights: not available in this build yet\n");
    return 2;
}
