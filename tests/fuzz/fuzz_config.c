/* fuzz_config.c — graph configuration text (io/config.h): parse, and evaluate the root when it builds. */
#include <stdlib.h>

#include "blendsync/io/config.h"
#include "fuzz_target.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bsync_blend_tree* tree = NULL;
    bsync_error err;
    static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];
    if (bsync_config_parse((const char*)data, size, "fuzz.json", NULL, &tree, diags, &err) != BSYNC_OK) return 0;
    static fix16_t params[BSYNC_MAX_PARAMETERS], weights[BSYNC_MAX_MOTIONS];
    uint32_t pc = bsync_blend_tree_parameter_count(tree);
    for (uint32_t i = 0; i < pc; i++) params[i] = (fix16_t)((i * 40503u) & 0x3FFFF) - 0x1FFFF;
    bsync_blend_tree_eval_leaves(tree, bsync_blend_tree_root(tree), params, weights);
    bsync_blend_tree_destroy(tree);
    return 0;
}
