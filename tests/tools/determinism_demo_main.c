/* determinism_demo_main.c — `blendsync demo` alone (client/cli/cmd_demo.c with this main), so that
 * tests/cli/determinism.sh can build it for every variant without the CLI's file-format commands
 * and their libraries (cJSON, stb), which have no 32-bit builds on this machine.
 * BSYNC_SIMD chooses the core's SIMD path as in the CLI (client/cli/simd_env.c); determinism.sh runs
 * the demo on the automatic path and on the scalar one and compares them. */
#include "commands.h"

int main(int argc, char** argv) {
    if (bsync_cli_apply_simd_env("determinism demo") != 0) return 2;
    return bsync_cmd_demo(argc, argv);
}
