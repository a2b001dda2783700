/* blendsync/io/bvh.h — Biovision Hierarchy (.bvh) motion capture to a fixed-point skeleton and clip.
 *
 * Index
 *   bsync_bvh_import_file     read a .bvh file
 *   bsync_bvh_import_memory   the same from text in memory
 *
 * Grammar read (the project's own parser; keywords case-sensitive, any whitespace):
 *   HIERARCHY  ROOT name { OFFSET x y z  CHANNELS n c1 .. cn  (JOINT name { ... })*  (End Site { OFFSET x y z })? }
 *   (more ROOTs allowed)  MOTION  Frames: N  Frame Time: dt  then N lines of the channel values.
 *   Channels: Xposition Yposition Zposition Xrotation Yrotation Zrotation, any subset, any order.
 *
 * Decisions (recorded in asset.source and notes):
 *   - Units: BVH has none. Translations (OFFSETs and position channels) are multiplied by
 *     options->bvh_scale, default 0.01 (centimetres to metres: what most DCC and mocap exporters
 *     write). The report gives the resulting rest height, and a note suggests another scale when the
 *     skeleton is not between 0.3 m and 3 m tall (CMU's files, for example, use about 0.056 m/unit).
 *   - Axes: Y up, right-handed, as glTF (the usual BVH convention); nothing is rotated.
 *   - Rotation channels are degrees; a joint's local rotation is the product of the axis rotations
 *     in the order the channels are listed (Zrotation Xrotation Yrotation -> Rz * Rx * Ry, so v' =
 *     Rz(Rx(Ry v))), computed in double as quaternions, normalised, made sign-continuous, then
 *     converted once.
 *   - A joint with position channels takes them as its local translation (absolute, replacing the
 *     OFFSET component for each axis present); otherwise its translation is the OFFSET.
 *   - Rest pose: OFFSET translation, identity rotation, unit scale.
 *   - End sites carry no motion and are skipped (their count is noted).
 *   - One clip named after the file (without its folder and extension), keys at k * dt for every
 *     frame; a track per joint per channel group (translation if it has position channels, rotation
 *     if it has rotation channels). Duration (N - 1) * dt.
 * Errors name the file and line: unknown keyword, bad number, missing brace, too many joints,
 * channel count mismatch, fewer motion values than Frames * channels (BSYNC_PARSE_ERROR), and the
 * conversion errors of asset.h.
 */
#ifndef BLENDSYNC_IO_BVH_H
#define BLENDSYNC_IO_BVH_H

#include "blendsync/io/asset.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BSYNC_BVH_DEFAULT_SCALE 0.01

BSYNC_API bsync_result bsync_bvh_import_file(const char* path, const bsync_import_options* options, bsync_asset* out,
                                   bsync_error* err);
/* `name` is the file name used in messages and for the clip name. */
BSYNC_API bsync_result bsync_bvh_import_memory(const char* text, size_t len, const char* name,
                                     const bsync_import_options* options, bsync_asset* out, bsync_error* err);

#ifdef __cplusplus
}
#endif
#endif /* BLENDSYNC_IO_BVH_H */
