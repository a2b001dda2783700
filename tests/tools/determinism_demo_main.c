/* determinism_demo_main.c — `blendsync demo` alone (client/cli/cmd_demo.c with this main), so that
 * tests/cli/determinism.sh can build it for every variant without the CLI's file-format commands
 * and their libraries (cJSON, stb), which have no 32-bit builds on this machine.
 * BSYNC_SIMD=scalar|avx2|avx512|neon|auto chooses the core's SIMD path as in the CLI (blendsync/simd.h);
 * determinism.sh runs the demo on the automatic path and on the scalar one and compares them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/simd.h"
#include "commands.h"

int main(int argc, char** argv) {
    const char* v = getenv("BSYNC_SIMD");
    if (v && *v) {
        int p = 0;
        while (p < (int)BSYNC_SIMD_PATH_COUNT && strcmp(v, bsync_simd_path_name((bsync_simd_path)p)) != 0) p++;
        if (p == (int)BSYNC_SIMD_PATH_COUNT || bsync_simd_set((bsync_simd_path)p) != BSYNC_OK) {
            fprintf(stderr, "determinism demo: BSYNC_SIMD=%s: no such path in this build or on this CPU\n", v);
            return 2;
        }
    }
    return bsync_cmd_demo(argc, argv);
}
