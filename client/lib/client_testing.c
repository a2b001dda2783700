/* client_testing.c — planted faults (client_testing.h). Tests and the in-tree CLI only: library
 * blendsync_client_testing, not part of libblendsync. The client calls them through its fault slots
 * (client_internal.h, cl_faults) and knows nothing of what they do. */
#include "client_testing.h"

#include <stdlib.h>

#include "blendsync/instance.h"
#include "client_internal.h"

bsync_result bsync_match_fault_clock(bsync_match* match, uint32_t character, uint32_t node, uint32_t phase_xor) {
    bsync_instance* inst = bsync_match_instance(match, character);
    /* the core hands the live clock out read-only; a fault writes through it (the object is the
     * instance's own memory, never const) */
    bsync_clip_time* clock = (bsync_clip_time*)bsync_instance_node_time(inst, node);
    if (!clock) return BSYNC_INVALID_ARGUMENT;
    clock->phase ^= phase_xor;
    /* saved and loaded again: everything derived from the clock follows it, as after a snapshot */
    const size_t cap = bsync_match_snapshot_size_max(match);
    void* buf = malloc(cap);
    if (!buf) return BSYNC_OUT_OF_MEMORY;
    size_t len = 0;
    bsync_result r = bsync_match_save(match, buf, cap, &len);
    if (r == BSYNC_OK) r = bsync_match_load(match, buf, len);
    free(buf);
    return r;
}

/* The first character of the client's slot (0 when it has none: a spectator's match). */
static uint32_t own_character(const bsync_client* c) {
    const bsync_match_desc* d = c->cfg.desc;
    uint32_t own = 0;
    for (uint32_t k = d->character_count; k-- > 0;)
        if (d->characters[k].slot == c->cfg.slot) own = k;
    return own;
}

static void desync_after_frame(bsync_client* c, uint32_t tick) {
    if (tick == c->faults.desync_tick) (void)bsync_match_fault_clock(c->match, own_character(c), 0, 1u << 24);
}

void bsync_client_fault_desync(bsync_client* c, uint32_t tick) {
    if (!c) return;
    c->faults.desync_tick = tick;
    c->faults.after_frame = desync_after_frame;
}

static int pose_on(const bsync_client* c, uint32_t tick) {
    return tick >= c->faults.pose_tick && c->faults.pose_character < BSYNC_MATCH_MAX_CHARACTERS;
}

static void pose_report(bsync_client* c, uint32_t tick, bsync_match_checksums* cs) {
    if (!pose_on(c, tick) || !c->cfg.compute_poses) return;
    cs->character_pose[c->faults.pose_character] ^= 1u;
    cs->pose ^= 1u;
}

static void pose_report_joints(bsync_client* c, uint32_t tick, uint32_t character, uint64_t* joints, uint32_t count) {
    if (pose_on(c, tick) && character == c->faults.pose_character && c->faults.pose_joint < count)
        joints[c->faults.pose_joint] ^= 1u;
}

void bsync_client_fault_pose(bsync_client* c, uint32_t tick, uint32_t character, uint32_t joint) {
    if (!c) return;
    c->faults.pose_tick = tick;
    c->faults.pose_character = character;
    c->faults.pose_joint = joint;
    c->faults.report = pose_report;
    c->faults.report_joints = pose_report_joints;
}

void bsync_client_fault_drop(bsync_client* c) { cl_drop_connection(c); }
