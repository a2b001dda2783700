// Structs.cs — blittable mirrors of the C structures the binding passes by pointer. Field order and
// types follow the headers exactly; LayoutKind.Sequential pads like the C compiler does. The
// csharp_layout test compares every size and field offset here with the C compiler's
// (bindings/csharp/tests/abi_layout.c), so a header change that moves a field fails a test
// instead of corrupting memory.
using System;
using System.Runtime.InteropServices;

namespace Blendsync
{
    /// <summary>bsync_vec3: three Q16.16 components.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Vec3
    {
        public Fix16 X, Y, Z;
        public Vec3(Fix16 x, Fix16 y, Fix16 z) { X = x; Y = y; Z = z; }
        public override string ToString() { return "(" + X + ", " + Y + ", " + Z + ")"; }
        public static bool operator ==(Vec3 a, Vec3 b) { return a.X == b.X && a.Y == b.Y && a.Z == b.Z; }
        public static bool operator !=(Vec3 a, Vec3 b) { return !(a == b); }
        public override bool Equals(object o) { return o is Vec3 && (Vec3)o == this; }
        public override int GetHashCode() { return X.Raw ^ (Y.Raw * 31) ^ (Z.Raw * 961); }
    }

    /// <summary>bsync_quat: x, y, z, w in Q16.16 (unit for rotations).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Quat
    {
        public Fix16 X, Y, Z, W;
        public Quat(Fix16 x, Fix16 y, Fix16 z, Fix16 w) { X = x; Y = y; Z = z; W = w; }
        public static Quat Identity { get { return new Quat(Fix16.Zero, Fix16.Zero, Fix16.Zero, Fix16.One); } }
        public override string ToString() { return "(" + X + ", " + Y + ", " + Z + ", " + W + ")"; }
        public static bool operator ==(Quat a, Quat b) { return a.X == b.X && a.Y == b.Y && a.Z == b.Z && a.W == b.W; }
        public static bool operator !=(Quat a, Quat b) { return !(a == b); }
        public override bool Equals(object o) { return o is Quat && (Quat)o == this; }
        public override int GetHashCode() { return X.Raw ^ (Y.Raw * 31) ^ (Z.Raw * 961) ^ (W.Raw * 29791); }
    }

    /// <summary>bsync_trs: translation, rotation, scale (fix16; what the simulation and checksums use).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Trs
    {
        public Vec3 T;
        public Quat R;
        public Vec3 S;
        public static bool operator ==(Trs a, Trs b) { return a.T == b.T && a.R == b.R && a.S == b.S; }
        public static bool operator !=(Trs a, Trs b) { return !(a == b); }
        public override bool Equals(object o) { return o is Trs && (Trs)o == this; }
        public override int GetHashCode() { return T.GetHashCode() ^ R.GetHashCode() ^ S.GetHashCode(); }
    }

    /// <summary>bsync_present_trs_f: a transform as floats, for rendering only (never fed back).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct TrsF
    {
        public float Tx, Ty, Tz;
        public float Rx, Ry, Rz, Rw;
        public float Sx, Sy, Sz;
    }

    /// <summary>bsync_root_motion: the last tick's root delta (character frame at the tick's start).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct RootMotion
    {
        public Vec3 Translation;
        public Quat Rotation;
    }

    /// <summary>bsync_switch_trigger: play child <c>Child</c> of switch <c>SwitchIndex</c>.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SwitchTrigger
    {
        public uint SwitchIndex, Child, FadeTicks, CarryTime, Inertialize;
    }

    /// <summary>bsync_switch_entry: one entry of a switch's cross-fade stack.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct SwitchEntry
    {
        public uint Child;
        public Fix16 Weight;
        public uint FadeTicks, FadeDone;
    }

    /// <summary>bsync_action_kind: an instant or a range [time, end) (docs/actions.md).</summary>
    public enum ActionKind { Event = 0, Range = 1 }
    /// <summary>bsync_action_policy: when a slot's action fires (docs/actions.md "Policies").</summary>
    public enum ActionPolicy { Weight = 0, Leader = 1, Always = 2 }

    /// <summary>bsync_action_report: one action of one motion slot in the last tick (Instance.Actions).
    /// Event: Count crossings; range: Count entries, Exits exits, Active 1 when open after the tick.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct ActionReport
    {
        public uint Action, Node, Child, Kind, Count, Exits, Active;
        public int Payload;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct GraphActionDesc
    {
        public IntPtr Name;
        public uint Motion;
        public int Kind;
        public int Time, End, Payload;
        public int Policy;
        public int Threshold;
    }

    /// <summary>bsync_graph_action_desc, read back (Graph.Action): name, motion, kind, clip times in
    /// seconds, payload, policy and threshold.</summary>
    public struct GraphAction
    {
        public string Name;
        public int Motion;
        public ActionKind Kind;
        public Fix16 Time, End;
        public int Payload;
        public ActionPolicy Policy;
        public Fix16 Threshold;
    }

    /// <summary>bsync_motion_time: where a motion slot is (Instance.MotionTime).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct MotionTime
    {
        public long Cycles;
        public Fix16 Seconds, Normalized;
        public uint OneShot, Finished, pad_;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct ChildRef
    {
        public int Kind; // 0 motion, 1 node
        public uint Index;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct InstanceInput
    {
        public int* Targets;
        public uint TargetCount;
    }

    /// <summary>bsync_error: a result code and the library's message (file and JSON path).</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct Error
    {
        public int Code;
        public fixed byte Message[512];
    }

    /// <summary>bsync_checksum_state: XXH64 streaming state (checksum.h).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct ChecksumState
    {
        fixed ulong acc[4];
        ulong seed, totalLen;
        fixed byte buffer[32];
        uint bufferLen, pad;
    }

    /// <summary>bsync_match_input: one player's input for a tick (64 fix16 parameters, 16 triggers).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct MatchInput
    {
        public const int MaxParams = 64, MaxTriggers = 16;
        public fixed int Params[MaxParams];
        public fixed byte Triggers[MaxTriggers];

        public Fix16 GetParam(int i) { Check(i, MaxParams); fixed (int* p = Params) return Fix16.FromRaw(p[i]); }
        public void SetParam(int i, Fix16 v) { Check(i, MaxParams); fixed (int* p = Params) p[i] = v.Raw; }
        public byte GetTrigger(int j) { Check(j, MaxTriggers); fixed (byte* p = Triggers) return p[j]; }
        public void SetTrigger(int j, byte v) { Check(j, MaxTriggers); fixed (byte* p = Triggers) p[j] = v; }
        public void Clear() { fixed (int* p = Params) for (int i = 0; i < MaxParams; i++) p[i] = 0;
                              fixed (byte* t = Triggers) for (int j = 0; j < MaxTriggers; j++) t[j] = 0; }
        static void Check(int i, int n) { if ((uint)i >= (uint)n) throw new ArgumentOutOfRangeException("index"); }
    }

    /// <summary>bsync_match_frame: every player's input for one tick (16 slots).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct MatchFrame
    {
        public const int MaxPlayers = 16;
        public uint PlayerCount;
        fixed byte players[MaxPlayers * 272]; // bsync_match_input[16] (272 bytes each, 4-aligned)

        // Player inputs follow PlayerCount at offset 4, sizeof(MatchInput) bytes each (see MatchFrameBuffer).
    }

    /// <summary>bsync_match_checksums: root and per-character checksums after a tick.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct MatchChecksums
    {
        public const int MaxCharacters = 64;
        public ulong Tick, Blend, Pose;
        public uint CharacterCount;
        fixed ulong characterBlend[MaxCharacters];
        fixed ulong characterPose[MaxCharacters];
        public ulong CharacterBlend(int c) { if ((uint)c >= MaxCharacters) throw new ArgumentOutOfRangeException("c"); fixed (ulong* p = characterBlend) return p[c]; }
        public ulong CharacterPose(int c) { if ((uint)c >= MaxCharacters) throw new ArgumentOutOfRangeException("c"); fixed (ulong* p = characterPose) return p[c]; }
    }

    /// <summary>bsync_match_script: the seeded joystick script (NPCs and bots use the same one).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct MatchScript
    {
        public ulong State;
        public uint HoldLeft;
        public MatchInput Record;
    }

    /// <summary>bsync_proto_desync: the server's desync notice.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct DesyncNotice
    {
        public uint Tick;
        public byte Kind, Character;
        public ushort Part;
        public byte Action;
        public ulong Expected, Got;
        public const byte NoCharacter = 0xFF;
    }

    /// <summary>bsync_client_event_type.</summary>
    public enum ClientEventType
    {
        None = 0, Welcome = 1, Frame = 2, Checksum = 3, Desync = 4, Resync = 5, Bye = 6, Disconnected = 7,
        Synctest = 8, Incomplete = 9, Start = 10, Reconnecting = 11
    }

    /// <summary>bsync_client_state.</summary>
    public enum ClientState { Connecting = 0, Joining = 1, Running = 2, Ended = 3 }

    /// <summary>bsync_client_event.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct ClientEvent
    {
        public ClientEventType Type;
        public uint Tick;
        public uint ByeReason;
        public ushort DefaultedMask;
        public uint EndTicks;
        public DesyncNotice Desync;
    }

    /// <summary>bsync_client_stats.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct ClientStats
    {
        public ulong FramesApplied;
        public ulong InputsSent;
        public ulong ChecksumsSent;
        public ulong Desyncs;
        public ulong Resyncs;
        public ulong FramesDefaultedSelf;
        public ulong BytesSent, BytesReceived;
        public uint RttMs;
        public uint NextFrameTick;
        public uint ServerTick;
        public ulong LastBlend, LastPose;
        public uint LastChecksumTick;
        public ulong SynctestChecks, SynctestMismatches;
        public uint EndTicks;
        public uint Incomplete;
        public ulong FramesMissing;
        public ulong FramesEarly;
        public ulong FramesReceived;
        public uint FramesReceivedUpto;
        public ulong ConnectAttempts;
        public uint StartKnown;
        public uint StartTick;
        public ulong StartDeadlineUs;
        public ulong Reconnects, Resumes, ResumesSnapshot;
        public ulong SessionsOpened, SealedRejected;
    }

    [StructLayout(LayoutKind.Sequential)]
    internal struct ClientConfigNative
    {
        public IntPtr Host;
        public ushort Port;
        public ulong MatchId;
        public byte Slot;
        public IntPtr Token;
        public uint TokenLen;
        public IntPtr Desc;
        public int ComputePoses;
        public uint ConnectTimeoutMs;
        public IntPtr ReplayPath;
        public IntPtr ReplayHeader;
        public uint SynctestDistance;
        public IntPtr DesyncDir;
        public IntPtr Names;
        public uint ReconnectTimeoutMs;
        public int ReconnectOff;
        public IntPtr Secret;      // 32 bytes, or zero: plain token (insecure)
        public uint SessionMode;   // 1 encrypt (0 -> 1), 2 authenticate only
        public ClientPredictConfigNative Predict; // client_predict.h; zero: lockstep
        public uint ProtocolVersion; // 0: the library's newest (7); 6: the older protocol
    }

    // bsync_client_predict_config (client_predict.h).
    [StructLayout(LayoutKind.Sequential)]
    internal struct ClientPredictConfigNative
    {
        public uint Enabled;
        public uint RollbackWindow;   // 0 -> 8, <= 32
        public uint LocalDelay;
        public uint Synctest;
        public uint SmoothTicks;      // 0 -> 2
        public int TeleportDistance;  // fix16 metres; 0 -> 1.0
    }

    /// <summary>bsync_client_predict_stats: what prediction did (docs/prediction.md).</summary>
    [StructLayout(LayoutKind.Sequential)]
    public unsafe struct ClientPredictStats
    {
        public const int WindowMax = 32;
        public ulong PredictedTicks;
        public ulong ResimulatedTicks;
        public ulong MispredictedFrames;
        public ulong Rollbacks;
        public uint DepthMax;
        public fixed ulong DepthHistogram[WindowMax + 1];
        public ulong WindowWaits;
        public ulong SynctestChecks, SynctestMismatches;
        public ulong CorrectionsSmoothed, CorrectionsTeleported;
        public uint ConfirmedTick;
        public uint PredictedTick;
    }

    // bsync_replay_header (io/replay.h), as the reader returns it.
    [StructLayout(LayoutKind.Sequential)]
    internal unsafe struct ReplayHeaderNative
    {
        public const int MaxText = 256, MaxAssets = 256, AssetSize = 272; // bsync_replay_asset: name[257], u64 hash
        public uint FormatVersion;
        public fixed byte BuildVersion[MaxText + 1];
        public ulong MatchId;
        public ulong MatchHash;
        public uint TickRate, PlayerCount, ParamCount, TriggerCount, CharacterCount;
        public uint InputDelay, ChecksumInterval, StartTick;
        public uint AssetCount;
        public fixed ulong Assets[MaxAssets * AssetSize / 8];
        public fixed byte ConfigPath[MaxText + 1];
        public IntPtr ConfigText;
        public uint ConfigLen;
    }

    // The parts of bsync_replay_record the binding reads: the tag, then the union at UnionOffset.
    internal static class ReplayRecordLayout
    {
        internal const int Size = 70256;      // sizeof(bsync_replay_record) (checked by csharp_layout)
        internal const int UnionOffset = 24;  // offsetof(bsync_replay_record, header)
        internal const int FrameInputs = 8;   // offsetof(bsync_replay_frame, inputs)
    }

    /// <summary>bsync_replay_verify_options (io/replay_verify.h); pointers the binding does not use stay zero.</summary>
    [StructLayout(LayoutKind.Sequential)]
    internal struct ReplayVerifyOptionsNative
    {
        public IntPtr Allocator, Config, MatchPath, GraphPath, ReplayPath;
        public int Poses;
        public uint Jobs;
        public int HasFrom;
        public uint From;
        public int ContinueAfterMismatch;
        public IntPtr OnMismatch, User;
    }

    /// <summary>bsync_replay_verify_result is large and mixed (texts, nested structs, an allocator):
    /// the binding reads the fields it exposes at these offsets (checked by csharp_layout).</summary>
    internal static class VerifyResultLayout
    {
        internal const int Size = 3968;
        internal const int Message = 4, ConfigUsed = 1604, Differences = 3008, HaveHeader = 3020, Jobs = 3072;
        internal const int TicksVerified = 3096, ChecksumsCompared = 3120, PoseChecksumsCompared = 3128;
        internal const int SnapshotsCompared = 3144, DesyncCount = 3168, Complete = 3176, Incomplete = 3180;
        internal const int Mismatches = 3408, FirstMismatch = 3416;
        internal const int MismatchTick = 4, MismatchCharacter = 8, MismatchExpected = 16, MismatchGot = 24, MismatchText = 96;
    }
}
