/* fuzz_graph_config.c — graph configs (io/graph_config.h) from memory: bsync_graph_config_parse of any
 * text named tests/fuzz/match/fuzz-graph.json (so relative clip sources resolve there; the seeds use
 * "builtin:humanoid"), i.e. the JSON fields, clip binding, curves, switches, layers and the graph
 * build. For a config it accepts: the graph's hash is stable, and an instance of it runs a few ticks
 * with targets from the input, saves, loads its own snapshot back (same state checksum) and poses.
 * Seeds: the graph configs of tests/fuzz/match, scripts/demo and tests/fixtures/plot, and the actions
 * seeds (one-shots, events, ranges with policies, exits, float curves; markers.json: marker sync, a sync
 * group, follower events, curves through layers, an exit starting at a marker: docs/actions.md). */
#include <stdlib.h>
#include <string.h>

#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/graph_config.h"
#include "fuzz_target.h"

#ifndef BSYNC_FUZZ_MATCH_DIR
#error "BSYNC_FUZZ_MATCH_DIR (the tests/fuzz/match directory) must be defined"
#endif

static bsync_blend_diagnostics diags[BSYNC_MAX_BLEND_NODES];

static void run(const bsync_graph* g, const bsync_blend_tree* tree, const uint8_t* data, size_t size) {
    size_t size_mem = bsync_instance_memory_size(g);
    void* mem = aligned_alloc(8, (size_mem + 7) & ~(size_t)7);
    bsync_instance* inst = NULL;
    if (!mem) return;
    if (bsync_instance_init(mem, size_mem, g, &inst) != BSYNC_OK) abort();
    static fix16_t targets[BSYNC_MAX_PARAMETERS];
    uint32_t pc = bsync_blend_tree_parameter_count(tree);
    for (int t = 0; t < 4; t++) {
        for (uint32_t i = 0; i < pc; i++) targets[i] = (fix16_t)((int32_t)(int8_t)data[(i * 5 + (uint32_t)t) % size] * 0x1000);
        bsync_instance_input in = {targets, pc};
        if (bsync_instance_tick(inst, &in) != BSYNC_OK) abort();
        /* actions and float curves (docs/actions.md): every report names an action of the graph */
        const bsync_action_report* rep = NULL;
        uint32_t rn = 0;
        if (bsync_instance_actions(inst, &rep, &rn) != BSYNC_OK) abort();
        for (uint32_t k = 0; k < rn; k++)
            if (rep[k].action >= bsync_graph_action_count(g)) abort();
        for (uint32_t ch = 0; ch < bsync_graph_curve_channel_count(g); ch++) {
            fix16_t v;
            if (bsync_instance_curve(inst, ch, &v) != BSYNC_OK) abort();
        }
        /* marker positions (docs/actions.md "The marker position"): every motion child's time is defined */
        for (uint32_t n = 0; n < bsync_blend_tree_node_count(tree); n++)
            for (uint32_t c = 0; c < bsync_blend_tree_node_child_count(tree, n); c++) {
                bsync_motion_time mt;
                if (bsync_instance_motion_time(inst, n, c, &mt) == BSYNC_OK && mt.normalized > BSYNC_FX_ONE) abort();
            }
    }
    size_t cap = bsync_instance_snapshot_size_max(g), n = 0;
    uint8_t* snap = malloc(cap ? cap : 1);
    if (snap) {
        uint64_t before = bsync_instance_state_checksum(inst);
        if (bsync_instance_save(inst, snap, cap, &n) != BSYNC_OK || bsync_instance_load(inst, snap, n) != BSYNC_OK ||
            bsync_instance_state_checksum(inst) != before)
            abort();
        free(snap);
    }
    uint64_t pose = 0;
    (void)bsync_instance_pose_checksum(inst, &pose, NULL);
    free(mem);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    bsync_graph_config* gc = NULL;
    bsync_error err;
    if (bsync_graph_config_parse((const char*)data, size, BSYNC_FUZZ_MATCH_DIR "/fuzz-graph.json", NULL, &gc, diags, &err) !=
        BSYNC_OK) {
        if (gc) abort(); /* *out is NULL on failure */
        return 0;
    }
    const bsync_graph* g = bsync_graph_config_graph(gc);
    const bsync_blend_tree* tree = bsync_graph_config_tree(gc);
    if (!g || !tree || !bsync_graph_config_fields(gc)) abort();
    if (bsync_graph_hash(g) != bsync_graph_hash(g)) abort();
    (void)strlen(bsync_graph_config_notes(gc));
    if (size) run(g, tree, data, size);
    bsync_graph_config_destroy(gc);
    return 0;
}
