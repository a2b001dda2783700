/* determinism_demo_main.c — `blendsync demo` alone (client/cli/cmd_demo.c with this main), so that
 * tests/cli/determinism.sh can build it for every variant without the CLI's file-format commands
 * and their libraries (cJSON, stb), which have no 32-bit builds on this machine. */
#include "commands.h"

int main(int argc, char** argv) { return bsync_cmd_demo(argc, argv); }
