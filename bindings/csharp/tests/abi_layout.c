/* abi_layout.c — the size and every mirrored field offset of the C structures the C# binding passes
 * by pointer (bindings/csharp/Runtime/Structs.cs), as this compiler lays them out. The csharp_layout
 * test diffs this program's output with the binding's own (Blendsync.Tests.exe --layout): a header
 * change that moves a field fails there instead of corrupting memory at run time. */
#include <stddef.h>
#include <stdio.h>

#include "blendsync/base.h"
#include "blendsync/checksum.h"
#include "blendsync/client.h"
#include "blendsync/fixed.h"
#include "blendsync/graph.h"
#include "blendsync/instance.h"
#include "blendsync/io/replay.h"
#include "blendsync/io/replay_verify.h"
#include "blendsync/match.h"
#include "blendsync/present.h"

#define S(name, type) printf("size %s %zu\n", name, sizeof(type))
#define O(name, type, field) printf("offset %s.%s %zu\n", name, #field, offsetof(type, field))

int main(void) {
    S("Vec3", bsync_vec3);
    S("Quat", bsync_quat);
    S("Trs", bsync_trs);
    O("Trs", bsync_trs, r);
    O("Trs", bsync_trs, s);
    S("TrsF", bsync_present_trs_f);
    S("RootMotion", bsync_root_motion);
    O("RootMotion", bsync_root_motion, rotation);
    S("SwitchTrigger", bsync_switch_trigger);
    S("SwitchEntry", bsync_switch_entry);
    S("ChildRef", bsync_blend_child_ref);
    S("ActionReport", bsync_action_report);
    O("ActionReport", bsync_action_report, kind);
    O("ActionReport", bsync_action_report, active);
    O("ActionReport", bsync_action_report, payload);
    S("GraphActionDesc", bsync_graph_action_desc);
    O("GraphActionDesc", bsync_graph_action_desc, motion);
    O("GraphActionDesc", bsync_graph_action_desc, kind);
    O("GraphActionDesc", bsync_graph_action_desc, time);
    O("GraphActionDesc", bsync_graph_action_desc, payload);
    O("GraphActionDesc", bsync_graph_action_desc, policy);
    O("GraphActionDesc", bsync_graph_action_desc, threshold);
    S("MotionTime", bsync_motion_time);
    O("MotionTime", bsync_motion_time, seconds);
    O("MotionTime", bsync_motion_time, normalized);
    O("MotionTime", bsync_motion_time, finished);
    S("InstanceInput", bsync_instance_input);
    O("InstanceInput", bsync_instance_input, target_count);
    S("Error", bsync_error);
    O("Error", bsync_error, message);
    S("ChecksumState", bsync_checksum_state);
    S("MatchInput", bsync_match_input);
    O("MatchInput", bsync_match_input, triggers);
    S("MatchFrame", bsync_match_frame);
    O("MatchFrame", bsync_match_frame, players);
    S("MatchChecksums", bsync_match_checksums);
    O("MatchChecksums", bsync_match_checksums, character_count);
    O("MatchChecksums", bsync_match_checksums, character_blend);
    O("MatchChecksums", bsync_match_checksums, character_pose);
    S("MatchScript", bsync_match_script);
    O("MatchScript", bsync_match_script, hold_left);
    O("MatchScript", bsync_match_script, record);
    S("DesyncNotice", bsync_proto_desync);
    O("DesyncNotice", bsync_proto_desync, part);
    O("DesyncNotice", bsync_proto_desync, action);
    O("DesyncNotice", bsync_proto_desync, expected);
    O("DesyncNotice", bsync_proto_desync, got);
    S("ClientEvent", bsync_client_event);
    O("ClientEvent", bsync_client_event, defaulted_mask);
    O("ClientEvent", bsync_client_event, end_ticks);
    O("ClientEvent", bsync_client_event, desync);
    S("ClientStats", bsync_client_stats);
    O("ClientStats", bsync_client_stats, rtt_ms);
    O("ClientStats", bsync_client_stats, last_blend);
    O("ClientStats", bsync_client_stats, last_checksum_tick);
    O("ClientStats", bsync_client_stats, synctest_checks);
    O("ClientStats", bsync_client_stats, end_ticks);
    O("ClientStats", bsync_client_stats, frames_missing);
    O("ClientStats", bsync_client_stats, frames_received_upto);
    O("ClientStats", bsync_client_stats, connect_attempts);
    O("ClientStats", bsync_client_stats, start_known);
    O("ClientStats", bsync_client_stats, start_deadline_us);
    O("ClientStats", bsync_client_stats, resumes_snapshot);
    O("ClientStats", bsync_client_stats, sealed_rejected);
    S("ClientConfigNative", bsync_client_config);
    O("ClientConfigNative", bsync_client_config, port);
    O("ClientConfigNative", bsync_client_config, match_id);
    O("ClientConfigNative", bsync_client_config, slot);
    O("ClientConfigNative", bsync_client_config, token);
    O("ClientConfigNative", bsync_client_config, token_len);
    O("ClientConfigNative", bsync_client_config, desc);
    O("ClientConfigNative", bsync_client_config, compute_poses);
    O("ClientConfigNative", bsync_client_config, connect_timeout_ms);
    O("ClientConfigNative", bsync_client_config, replay_path);
    O("ClientConfigNative", bsync_client_config, replay_header);
    O("ClientConfigNative", bsync_client_config, synctest_distance);
    O("ClientConfigNative", bsync_client_config, desync_dir);
    O("ClientConfigNative", bsync_client_config, names);
    O("ClientConfigNative", bsync_client_config, reconnect_timeout_ms);
    O("ClientConfigNative", bsync_client_config, reconnect_off);
    O("ClientConfigNative", bsync_client_config, secret);
    O("ClientConfigNative", bsync_client_config, session_mode);
    O("ClientConfigNative", bsync_client_config, predict);
    O("ClientConfigNative", bsync_client_config, protocol_version);
    S("ClientPredictConfigNative", bsync_client_predict_config);
    O("ClientPredictConfigNative", bsync_client_predict_config, local_delay);
    O("ClientPredictConfigNative", bsync_client_predict_config, teleport_distance);
    S("ClientPredictStats", bsync_client_predict_stats);
    O("ClientPredictStats", bsync_client_predict_stats, depth_max);
    O("ClientPredictStats", bsync_client_predict_stats, depth_histogram);
    O("ClientPredictStats", bsync_client_predict_stats, window_waits);
    O("ClientPredictStats", bsync_client_predict_stats, corrections_teleported);
    O("ClientPredictStats", bsync_client_predict_stats, predicted_tick);
    S("ReplayHeaderNative", bsync_replay_header);
    O("ReplayHeaderNative", bsync_replay_header, build_version);
    O("ReplayHeaderNative", bsync_replay_header, match_id);
    O("ReplayHeaderNative", bsync_replay_header, tick_rate);
    O("ReplayHeaderNative", bsync_replay_header, start_tick);
    O("ReplayHeaderNative", bsync_replay_header, asset_count);
    O("ReplayHeaderNative", bsync_replay_header, assets);
    O("ReplayHeaderNative", bsync_replay_header, config_path);
    O("ReplayHeaderNative", bsync_replay_header, config_text);
    O("ReplayHeaderNative", bsync_replay_header, config_len);
    printf("const ReplayHeaderNative.AssetSize %zu\n", sizeof(bsync_replay_asset));
    printf("const ReplayRecordLayout.Size %zu\n", sizeof(bsync_replay_record));
    printf("const ReplayRecordLayout.UnionOffset %zu\n", offsetof(bsync_replay_record, header));
    printf("const ReplayRecordLayout.FrameInputs %zu\n", offsetof(bsync_replay_frame, inputs));
    printf("const ReplayRecord.checksum.has_pose %zu\n", offsetof(bsync_replay_checksum, has_pose));
    printf("const ReplayRecord.checksum.blend %zu\n", offsetof(bsync_replay_checksum, blend));
    printf("const ReplayRecord.checksum.pose %zu\n", offsetof(bsync_replay_checksum, pose));
    printf("const ReplayRecord.end.reason %zu\n", offsetof(bsync_replay_end, reason));
    S("ReplayVerifyOptionsNative", bsync_replay_verify_options);
    O("ReplayVerifyOptionsNative", bsync_replay_verify_options, replay_path);
    O("ReplayVerifyOptionsNative", bsync_replay_verify_options, poses);
    O("ReplayVerifyOptionsNative", bsync_replay_verify_options, jobs);
    O("ReplayVerifyOptionsNative", bsync_replay_verify_options, from);
    O("ReplayVerifyOptionsNative", bsync_replay_verify_options, continue_after_mismatch);
    O("ReplayVerifyOptionsNative", bsync_replay_verify_options, user);
    typedef bsync_replay_verify_result R;
    typedef bsync_replay_verify_mismatch X;
    printf("const VerifyResult.Size %zu\n", sizeof(R));
    printf("const VerifyResult.message %zu\n", offsetof(R, message));
    printf("const VerifyResult.config_used %zu\n", offsetof(R, config_used));
    printf("const VerifyResult.differences %zu\n", offsetof(R, differences));
    printf("const VerifyResult.have_header %zu\n", offsetof(R, have_header));
    printf("const VerifyResult.jobs %zu\n", offsetof(R, jobs));
    printf("const VerifyResult.ticks_verified %zu\n", offsetof(R, ticks_verified));
    printf("const VerifyResult.checksums_compared %zu\n", offsetof(R, checksums_compared));
    printf("const VerifyResult.pose_checksums_compared %zu\n", offsetof(R, pose_checksums_compared));
    printf("const VerifyResult.snapshots_compared %zu\n", offsetof(R, snapshots_compared));
    printf("const VerifyResult.desync_count %zu\n", offsetof(R, desync_count));
    printf("const VerifyResult.complete %zu\n", offsetof(R, complete));
    printf("const VerifyResult.incomplete %zu\n", offsetof(R, incomplete));
    printf("const VerifyResult.mismatches %zu\n", offsetof(R, mismatches));
    printf("const VerifyResult.first_mismatch %zu\n", offsetof(R, first_mismatch));
    printf("const VerifyMismatch.tick %zu\n", offsetof(X, tick));
    printf("const VerifyMismatch.character %zu\n", offsetof(X, character));
    printf("const VerifyMismatch.expected %zu\n", offsetof(X, expected));
    printf("const VerifyMismatch.got %zu\n", offsetof(X, got));
    printf("const VerifyMismatch.text %zu\n", offsetof(X, text));
    return 0;
}
