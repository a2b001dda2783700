/* consumer.c — a program outside the tree, built against an installed blendsync (find_package or
 * pkg-config; tests/install/install_consumer.sh). It builds a skeleton and a clip, samples, blends
 * and checksums a pose, and prints the library's run-time version. With BSYNC_CONSUMER_IO it also
 * serialises the clip (the io library) and calls the exported twin of an inline helper. */
#include <stdio.h>

#include "blendsync/abi.h"
#include "blendsync/checksum.h"
#include "blendsync/clip.h"
#include "blendsync/sample.h"
#ifdef BSYNC_CONSUMER_IO
#include "blendsync/io/clip_file.h"
#endif

int main(void) {
    printf("version %s (0x%06x)\n", bsync_version_string(), (unsigned)bsync_version());
    bsync_joint_desc joints[2] = {{"root", BSYNC_NO_PARENT, bsync_trs_identity()}, {"hand", 0, bsync_trs_identity()}};
    bsync_skeleton_desc sd = {joints, 2};
    bsync_skeleton* skeleton;
    if (bsync_skeleton_create(&sd, NULL, &skeleton) != BSYNC_OK) return 1;
    /* the hand moves from (0, 0, 0) to (2, 4, -6) in 2 s: at 0.5 s it is a quarter of the way */
    fix16_t times[2] = {0, bsync_fx_from_int(2)};
    bsync_vec3 keys[2] = {{0, 0, 0}, {bsync_fx_from_int(2), bsync_fx_from_int(4), bsync_fx_from_int(-6)}};
    bsync_raw_track track = {1, BSYNC_TRACK_TRANSLATION, 2, times, keys, NULL};
    bsync_clip_desc cd = {"reach", bsync_fx_from_int(2), 0, &track, 1};
    bsync_clip* clip;
    if (bsync_clip_create(&cd, skeleton, NULL, &clip) != BSYNC_OK) return 1;
    bsync_trs pose[2];
    if (bsync_clip_sample(clip, BSYNC_FX_HALF, BSYNC_LOOP_CLAMP, bsync_skeleton_rest_pose(skeleton), 2, NULL, pose) !=
        BSYNC_OK)
        return 1;
    char x[16], y[16], z[16];
    bsync_fx_format(pose[1].t.x, x, sizeof x);
    bsync_fx_format(pose[1].t.y, y, sizeof y);
    bsync_fx_format(pose[1].t.z, z, sizeof z);
    printf("hand at 0.5 s: (%s, %s, %s)\n", x, y, z);
    printf("pose checksum %016llx\n", (unsigned long long)bsync_checksum_pose(pose, 2));
    printf("unsorted keys: %s\n", bsync_result_string(BSYNC_KEYS_UNSORTED));
#ifdef BSYNC_CONSUMER_IO
    const bsync_clip* clips[1] = {clip};
    unsigned char buf[4096];
    size_t size = bsync_clip_file_size(skeleton, clips, 1);
    if (size == 0 || size > sizeof buf || bsync_clip_file_write_memory(skeleton, clips, 1, buf, size) != BSYNC_OK) return 1;
    printf("bsclip %zu bytes, checksum %016llx\n", size, (unsigned long long)bsync_clip_file_checksum(buf, size));
    printf("1.5 * -2.25 = %d (raw)\n", (int)bsync_fx_mul_abi(3 * BSYNC_FX_HALF, -(9 << 14)));
#endif
    bsync_clip_destroy(clip);
    bsync_skeleton_destroy(skeleton);
    return 0;
}
