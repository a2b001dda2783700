/* client_testing.h — planted faults for tests and the in-tree bot (`blendsync bot --inject-desync`).
 * Not installed; library blendsync_client_testing (client/CMakeLists.txt), never part of
 * libblendsync. Each acts on the client's live state through the core's API (the match, its
 * instances, their clocks) or through its transport, never through byte offsets of a format, and
 * each may be planted once per client (a later call replaces the earlier one of its kind).
 *
 * Index
 *   bsync_client_fault_desync   right after frame T, its character's state diverges (a clock moved)
 *   bsync_client_fault_pose     from frame T, a joint's pose reported wrong (blend state agrees)
 *   bsync_client_fault_drop     the connection lost on this side only (the server sees silence)
 *   bsync_match_fault_clock     the primitive of fault_desync, on any match
 */
#ifndef BLENDSYNC_CLIENT_TESTING_H
#define BLENDSYNC_CLIENT_TESTING_H

#include <stdint.h>

#include "blendsync/client.h"
#include "blendsync/match.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Right after frame `tick` is applied (before its checksums, trail and sync test), the clock of node
 * 0 of the first character of the client's slot jumps by 2^24 phase units (1/256 of a cycle):
 * bsync_match_fault_clock. Every later state of that character differs from everyone else's; the
 * server reports it at the next checksum tick, and a desync trace names tick `tick` and that node's
 * clock advance. (An input changed instead is often absorbed: a 1-raw-step target change can vanish
 * in the dead zone's rounding, and the next frame overwrites the target.) */
void bsync_client_fault_desync(bsync_client* client, uint32_t tick);

/* From frame `tick` on, the client reports the pose of `character` as if joint `joint` differed: its
 * per-joint checksum in a DETAIL answer, and so the character's and the root pose checksums, XOR 1
 * (with compute_poses only). A pose-only desync whose blend state agrees: it exercises the server's
 * narrowing to a joint. */
void bsync_client_fault_pose(bsync_client* client, uint32_t tick, uint32_t character, uint32_t joint);

/* The connection drops as a network would drop it: the transport forgets it on this side only, no BYE,
 * the server is not told (it sees silence). The client then reconnects as after any drop. */
void bsync_client_fault_drop(bsync_client* client);

/* The clock of node `node` of `character` moves by `phase_units` (wrapping), then the match is saved
 * and loaded again (the core's own API), so every value derived from the clock follows. Returns
 * BSYNC_INVALID_ARGUMENT for a character or node out of range. */
bsync_result bsync_match_fault_clock(bsync_match* match, uint32_t character, uint32_t node, uint32_t phase_units);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_CLIENT_TESTING_H */
