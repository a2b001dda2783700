// Layout.cs — the binding's sizes and field offsets in abi_layout.c's format and order, from the
// runtime's own marshalling layout (Marshal.SizeOf / OffsetOf), so csharp_layout can diff the two.
using System;
using System.Runtime.InteropServices;
using Blendsync;

static class Layout
{
    static void S(string name, Type t) { Console.WriteLine("size " + name + " " + Marshal.SizeOf(t)); }
    static void O(string name, Type t, string cField, string csField)
    {
        Console.WriteLine("offset " + name + "." + cField + " " + Marshal.OffsetOf(t, csField).ToInt64());
    }

    public static void Print()
    {
        S("Vec3", typeof(Vec3));
        S("Quat", typeof(Quat));
        S("Trs", typeof(Trs));
        O("Trs", typeof(Trs), "r", "R");
        O("Trs", typeof(Trs), "s", "S");
        S("TrsF", typeof(TrsF));
        S("RootMotion", typeof(RootMotion));
        O("RootMotion", typeof(RootMotion), "rotation", "Rotation");
        S("SwitchTrigger", typeof(SwitchTrigger));
        S("SwitchEntry", typeof(SwitchEntry));
        S("ChildRef", typeof(ChildRef));
        S("ActionReport", typeof(ActionReport));
        O("ActionReport", typeof(ActionReport), "kind", "Kind");
        O("ActionReport", typeof(ActionReport), "active", "Active");
        O("ActionReport", typeof(ActionReport), "payload", "Payload");
        S("GraphActionDesc", typeof(GraphActionDesc));
        O("GraphActionDesc", typeof(GraphActionDesc), "motion", "Motion");
        O("GraphActionDesc", typeof(GraphActionDesc), "kind", "Kind");
        O("GraphActionDesc", typeof(GraphActionDesc), "time", "Time");
        O("GraphActionDesc", typeof(GraphActionDesc), "payload", "Payload");
        O("GraphActionDesc", typeof(GraphActionDesc), "policy", "Policy");
        O("GraphActionDesc", typeof(GraphActionDesc), "threshold", "Threshold");
        S("MotionTime", typeof(MotionTime));
        O("MotionTime", typeof(MotionTime), "seconds", "Seconds");
        O("MotionTime", typeof(MotionTime), "normalized", "Normalized");
        O("MotionTime", typeof(MotionTime), "finished", "Finished");
        S("InstanceInput", typeof(InstanceInput));
        O("InstanceInput", typeof(InstanceInput), "target_count", "TargetCount");
        S("Error", typeof(Error));
        O("Error", typeof(Error), "message", "Message");
        S("ChecksumState", typeof(ChecksumState));
        S("MatchInput", typeof(MatchInput));
        O("MatchInput", typeof(MatchInput), "triggers", "Triggers");
        S("MatchFrame", typeof(MatchFrame));
        O("MatchFrame", typeof(MatchFrame), "players", "players");
        S("MatchChecksums", typeof(MatchChecksums));
        O("MatchChecksums", typeof(MatchChecksums), "character_count", "CharacterCount");
        O("MatchChecksums", typeof(MatchChecksums), "character_blend", "characterBlend");
        O("MatchChecksums", typeof(MatchChecksums), "character_pose", "characterPose");
        S("MatchScript", typeof(MatchScript));
        O("MatchScript", typeof(MatchScript), "hold_left", "HoldLeft");
        O("MatchScript", typeof(MatchScript), "record", "Record");
        S("DesyncNotice", typeof(DesyncNotice));
        O("DesyncNotice", typeof(DesyncNotice), "part", "Part");
        O("DesyncNotice", typeof(DesyncNotice), "action", "Action");
        O("DesyncNotice", typeof(DesyncNotice), "expected", "Expected");
        O("DesyncNotice", typeof(DesyncNotice), "got", "Got");
        S("ClientEvent", typeof(ClientEvent));
        O("ClientEvent", typeof(ClientEvent), "defaulted_mask", "DefaultedMask");
        O("ClientEvent", typeof(ClientEvent), "end_ticks", "EndTicks");
        O("ClientEvent", typeof(ClientEvent), "desync", "Desync");
        S("ClientStats", typeof(ClientStats));
        O("ClientStats", typeof(ClientStats), "rtt_ms", "RttMs");
        O("ClientStats", typeof(ClientStats), "last_blend", "LastBlend");
        O("ClientStats", typeof(ClientStats), "last_checksum_tick", "LastChecksumTick");
        O("ClientStats", typeof(ClientStats), "synctest_checks", "SynctestChecks");
        O("ClientStats", typeof(ClientStats), "end_ticks", "EndTicks");
        O("ClientStats", typeof(ClientStats), "frames_missing", "FramesMissing");
        O("ClientStats", typeof(ClientStats), "frames_received_upto", "FramesReceivedUpto");
        O("ClientStats", typeof(ClientStats), "connect_attempts", "ConnectAttempts");
        O("ClientStats", typeof(ClientStats), "start_known", "StartKnown");
        O("ClientStats", typeof(ClientStats), "start_deadline_us", "StartDeadlineUs");
        O("ClientStats", typeof(ClientStats), "resumes_snapshot", "ResumesSnapshot");
        O("ClientStats", typeof(ClientStats), "sealed_rejected", "SealedRejected");
        Type c = typeof(ClientConfigNative);
        S("ClientConfigNative", c);
        O("ClientConfigNative", c, "port", "Port");
        O("ClientConfigNative", c, "match_id", "MatchId");
        O("ClientConfigNative", c, "slot", "Slot");
        O("ClientConfigNative", c, "token", "Token");
        O("ClientConfigNative", c, "token_len", "TokenLen");
        O("ClientConfigNative", c, "desc", "Desc");
        O("ClientConfigNative", c, "compute_poses", "ComputePoses");
        O("ClientConfigNative", c, "connect_timeout_ms", "ConnectTimeoutMs");
        O("ClientConfigNative", c, "replay_path", "ReplayPath");
        O("ClientConfigNative", c, "replay_header", "ReplayHeader");
        O("ClientConfigNative", c, "synctest_distance", "SynctestDistance");
        O("ClientConfigNative", c, "desync_dir", "DesyncDir");
        O("ClientConfigNative", c, "names", "Names");
        O("ClientConfigNative", c, "reconnect_timeout_ms", "ReconnectTimeoutMs");
        O("ClientConfigNative", c, "reconnect_off", "ReconnectOff");
        O("ClientConfigNative", c, "secret", "Secret");
        O("ClientConfigNative", c, "session_mode", "SessionMode");
        O("ClientConfigNative", c, "predict", "Predict");
        O("ClientConfigNative", c, "protocol_version", "ProtocolVersion");
        Type pc = typeof(ClientPredictConfigNative);
        S("ClientPredictConfigNative", pc);
        O("ClientPredictConfigNative", pc, "local_delay", "LocalDelay");
        O("ClientPredictConfigNative", pc, "teleport_distance", "TeleportDistance");
        Type ps = typeof(ClientPredictStats);
        S("ClientPredictStats", ps);
        O("ClientPredictStats", ps, "depth_max", "DepthMax");
        O("ClientPredictStats", ps, "depth_histogram", "DepthHistogram");
        O("ClientPredictStats", ps, "window_waits", "WindowWaits");
        O("ClientPredictStats", ps, "corrections_teleported", "CorrectionsTeleported");
        O("ClientPredictStats", ps, "predicted_tick", "PredictedTick");
        Type h = typeof(ReplayHeaderNative);
        S("ReplayHeaderNative", h);
        O("ReplayHeaderNative", h, "build_version", "BuildVersion");
        O("ReplayHeaderNative", h, "match_id", "MatchId");
        O("ReplayHeaderNative", h, "tick_rate", "TickRate");
        O("ReplayHeaderNative", h, "start_tick", "StartTick");
        O("ReplayHeaderNative", h, "asset_count", "AssetCount");
        O("ReplayHeaderNative", h, "assets", "Assets");
        O("ReplayHeaderNative", h, "config_path", "ConfigPath");
        O("ReplayHeaderNative", h, "config_text", "ConfigText");
        O("ReplayHeaderNative", h, "config_len", "ConfigLen");
        Console.WriteLine("const ReplayHeaderNative.AssetSize " + ReplayHeaderNative.AssetSize);
        Console.WriteLine("const ReplayRecordLayout.Size " + ReplayRecordLayout.Size);
        Console.WriteLine("const ReplayRecordLayout.UnionOffset " + ReplayRecordLayout.UnionOffset);
        Console.WriteLine("const ReplayRecordLayout.FrameInputs " + ReplayRecordLayout.FrameInputs);
        // ReplayReader reads CHECKSUM's has_pose and END's reason as the second u32 of the union, the
        // checksums at bytes 8 and 16
        Console.WriteLine("const ReplayRecord.checksum.has_pose 4");
        Console.WriteLine("const ReplayRecord.checksum.blend 8");
        Console.WriteLine("const ReplayRecord.checksum.pose 16");
        Console.WriteLine("const ReplayRecord.end.reason 4");
        Type vo = typeof(ReplayVerifyOptionsNative);
        S("ReplayVerifyOptionsNative", vo);
        O("ReplayVerifyOptionsNative", vo, "replay_path", "ReplayPath");
        O("ReplayVerifyOptionsNative", vo, "poses", "Poses");
        O("ReplayVerifyOptionsNative", vo, "jobs", "Jobs");
        O("ReplayVerifyOptionsNative", vo, "from", "From");
        O("ReplayVerifyOptionsNative", vo, "continue_after_mismatch", "ContinueAfterMismatch");
        O("ReplayVerifyOptionsNative", vo, "user", "User");
        Console.WriteLine("const VerifyResult.Size " + VerifyResultLayout.Size);
        Console.WriteLine("const VerifyResult.message " + VerifyResultLayout.Message);
        Console.WriteLine("const VerifyResult.config_used " + VerifyResultLayout.ConfigUsed);
        Console.WriteLine("const VerifyResult.differences " + VerifyResultLayout.Differences);
        Console.WriteLine("const VerifyResult.have_header " + VerifyResultLayout.HaveHeader);
        Console.WriteLine("const VerifyResult.jobs " + VerifyResultLayout.Jobs);
        Console.WriteLine("const VerifyResult.ticks_verified " + VerifyResultLayout.TicksVerified);
        Console.WriteLine("const VerifyResult.checksums_compared " + VerifyResultLayout.ChecksumsCompared);
        Console.WriteLine("const VerifyResult.pose_checksums_compared " + VerifyResultLayout.PoseChecksumsCompared);
        Console.WriteLine("const VerifyResult.snapshots_compared " + VerifyResultLayout.SnapshotsCompared);
        Console.WriteLine("const VerifyResult.desync_count " + VerifyResultLayout.DesyncCount);
        Console.WriteLine("const VerifyResult.complete " + VerifyResultLayout.Complete);
        Console.WriteLine("const VerifyResult.incomplete " + VerifyResultLayout.Incomplete);
        Console.WriteLine("const VerifyResult.mismatches " + VerifyResultLayout.Mismatches);
        Console.WriteLine("const VerifyResult.first_mismatch " + VerifyResultLayout.FirstMismatch);
        Console.WriteLine("const VerifyMismatch.tick " + VerifyResultLayout.MismatchTick);
        Console.WriteLine("const VerifyMismatch.character " + VerifyResultLayout.MismatchCharacter);
        Console.WriteLine("const VerifyMismatch.expected " + VerifyResultLayout.MismatchExpected);
        Console.WriteLine("const VerifyMismatch.got " + VerifyResultLayout.MismatchGot);
        Console.WriteLine("const VerifyMismatch.text " + VerifyResultLayout.MismatchText);
    }
}
