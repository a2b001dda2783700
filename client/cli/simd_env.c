/* simd_env.c — BSYNC_SIMD=scalar|avx2|avx512|neon|auto: the core's kernel path (blendsync/simd.h),
 * read at the edge, once, before any command runs (the CLI's main and the determinism demo's). Every
 * path gives the same bits; this is for measuring and for the sweeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blendsync/simd.h"
#include "commands.h"

int bsync_cli_apply_simd_env(const char* program) {
    const char* v = getenv("BSYNC_SIMD");
    if (!v || !*v) return 0;
    for (int p = 0; p < (int)BSYNC_SIMD_PATH_COUNT; p++) {
        if (strcmp(v, bsync_simd_path_name((bsync_simd_path)p)) != 0) continue;
        if (bsync_simd_set((bsync_simd_path)p) == BSYNC_OK) return 0;
        fprintf(stderr, "%s: BSYNC_SIMD=%s: this build or CPU has no such path\n", program, v);
        return -1;
    }
    fprintf(stderr, "%s: BSYNC_SIMD=%s: expected scalar, avx2, avx512, neon or auto\n", program, v);
    return -1;
}
