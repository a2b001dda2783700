// Replay.cs — replay files (io/replay.h) read through the library's reader: the header and a scan of
// every record (Replay.Info), which also checks the whole file record by record (magic, XXH64 of
// each record, order, bodies) and says where and why reading stopped.
//
// Replay.Verify re-simulates a replay and compares its checksums and snapshots through the library's
// bsync_replay_verify_file / _memory (io/replay_verify.h), what `blendsync replay verify` prints.
using System;
using System.Runtime.InteropServices;

namespace Blendsync
{
    /// <summary>bsync_replay_status.</summary>
    public enum ReplayStatus { Ok = 0, Eof = 1, Truncated = 2, Corrupt = 3, BadOrder = 4, Unsupported = 5 }

    public sealed class ReplayInfo
    {
        public uint FormatVersion;
        public string BuildVersion, ConfigPath, ConfigText;
        public ulong MatchId, MatchHash;
        public uint TickRate, PlayerCount, ParamCount, TriggerCount, CharacterCount, InputDelay, ChecksumInterval, StartTick;
        public uint AssetCount;
        public int Frames, Checksums, ChecksumsWithPose, Snapshots, Desyncs;
        public uint FirstFrameTick, LastFrameTick;
        public bool HasEnd;
        public uint EndTicks, EndReason;
        /// <summary>Why reading stopped: Eof for a complete file; anything else names a damaged one.</summary>
        public ReplayStatus Status;
        public string Detail;
        /// <summary>Bytes up to the end of the last complete, valid record.</summary>
        public ulong ValidBytes;
        /// <summary>True when every record read back (EOF after a complete record) and the file has END.</summary>
        public bool Complete { get { return Status == ReplayStatus.Eof && HasEnd; } }
    }

    /// <summary>bsync_replay_record_type.</summary>
    public enum ReplayRecordType { None = 0, Header = 1, Frame = 2, Checksum = 3, Snapshot = 4, Desync = 5, End = 6 }

    /// <summary>The library's replay reader, record by record (bsync_replay_reader_*). The current
    /// record's fields are read in place; CopyFrame puts a FRAME's inputs into a MatchFrameBuffer (the
    /// record holds a bsync_match_frame), so a caller can tick a Match with it.</summary>
    public sealed unsafe class ReplayReader : IDisposable
    {
        readonly ReplayReaderHandle handle = new ReplayReaderHandle();
        readonly NativeMemoryHandle record = new NativeMemoryHandle(ReplayRecordLayout.Size);
        readonly NativeMemoryHandle detail = new NativeMemoryHandle(160);
        ReplayStatus status = ReplayStatus.Ok;

        ReplayReader() { }

        /// <summary>Read a whole file (IoError when it cannot be read; a damaged file opens and
        /// reports itself through Next).</summary>
        public static ReplayReader Open(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            var r = new ReplayReader();
            Error err = default(Error);
            IntPtr p;
            int rc = Native.bsync_replay_reader_open_file(Utf8.Z(path), out p, &err);
            if (rc != 0) { r.Dispose(); BlendsyncException.Check(rc, ref err); }
            r.handle.Set(p);
            return r;
        }

        /// <summary>Read from bytes in memory (copied).</summary>
        public static ReplayReader Open(byte[] data)
        {
            if (data == null) throw new ArgumentNullException("data");
            var r = new ReplayReader();
            IntPtr p;
            int rc;
            fixed (byte* d = data) rc = Native.bsync_replay_reader_open_memory(d, new UIntPtr((uint)data.Length), out p);
            if (rc != 0) { r.Dispose(); BlendsyncException.Check(rc, "bsync_replay_reader_open_memory"); }
            r.handle.Set(p);
            return r;
        }

        IntPtr P { get { return handle.Ptr(this); } }
        byte* Rec { get { return (byte*)record.Ptr(this); } }
        byte* Union { get { return Rec + ReplayRecordLayout.UnionOffset; } }

        /// <summary>The next record: Ok, or why reading stopped (Eof after a complete file; every later
        /// call returns the same).</summary>
        public ReplayStatus Next()
        {
            status = (ReplayStatus)Native.bsync_replay_reader_next(P, (IntPtr)Rec, (byte*)detail.Ptr(this), new UIntPtr(160));
            return status;
        }
        /// <summary>The reader's sentence for the last Next (names the byte offset).</summary>
        public string Detail { get { return Utf8.Read((byte*)detail.Ptr(this), 160); } }
        public ReplayRecordType Type { get { return status == ReplayStatus.Ok ? (ReplayRecordType)(*(int*)Rec) : ReplayRecordType.None; } }
        /// <summary>FRAME, CHECKSUM, SNAPSHOT, DESYNC: the record's tick; END: its tick count.</summary>
        public uint Tick { get { return *(uint*)Union; } }
        /// <summary>CHECKSUM records.</summary>
        public bool ChecksumHasPose { get { Expect(ReplayRecordType.Checksum); return ((uint*)Union)[1] != 0; } }
        public ulong ChecksumBlend { get { Expect(ReplayRecordType.Checksum); return *(ulong*)(Union + 8); } }
        public ulong ChecksumPose { get { Expect(ReplayRecordType.Checksum); return *(ulong*)(Union + 16); } }
        /// <summary>END records: 0 normal, 1 shutdown, 2 aborted.</summary>
        public uint EndReason { get { Expect(ReplayRecordType.End); return ((uint*)Union)[1]; } }
        /// <summary>A FRAME's inputs (all players) into frame.</summary>
        public void CopyFrame(MatchFrameBuffer frame)
        {
            Expect(ReplayRecordType.Frame);
            if (frame == null) throw new ArgumentNullException("frame");
            *frame.Ptr = *(MatchFrame*)(Union + ReplayRecordLayout.FrameInputs);
        }
        public ulong ValidBytes { get { return Native.bsync_replay_reader_valid_bytes(P); } }
        internal ReplayHeaderNative* Header { get { return (ReplayHeaderNative*)Native.bsync_replay_reader_header(P); } }

        void Expect(ReplayRecordType t) { if (Type != t) throw new InvalidOperationException("the current record is " + Type + ", not " + t); }

        public void Dispose() { handle.Dispose(); record.Dispose(); detail.Dispose(); }
    }

    /// <summary>bsync_replay_verify_verdict.</summary>
    public enum VerifyVerdict { Verified = 0, Mismatch = 1, Error = 2, Refused = 3, Unusable = 4 }

    /// <summary>What bsync_replay_verify_file / _memory found (io/replay_verify.h; the fields
    /// `blendsync replay verify` prints).</summary>
    public sealed class VerifyResult
    {
        public VerifyVerdict Verdict;
        /// <summary>Error / Unusable: what went wrong; else empty.</summary>
        public string Message, ConfigUsed;
        /// <summary>Refused: one line per difference between the replay's match and the one built here.</summary>
        public string Differences;
        public bool HaveHeader, Complete, Incomplete;
        public uint Jobs;
        public ulong TicksVerified, ChecksumsCompared, PoseChecksumsCompared, SnapshotsCompared, Mismatches;
        public ulong DesyncRecords;
        /// <summary>The first mismatch (Mismatch): the tick, the character (uint.MaxValue: none), what was
        /// recorded and what was computed here, and the library's sentence.</summary>
        public uint MismatchTick, MismatchCharacter;
        public ulong MismatchExpected, MismatchGot;
        public string MismatchText;
        public bool Verified { get { return Verdict == VerifyVerdict.Verified; } }
    }

    public static unsafe class Replay
    {
        /// <summary>Verify a replay file as `blendsync replay verify` does: rebuild its match from the recorded
        /// config (graphs found next to it, or next to the replay), re-simulate every frame and compare every
        /// checksum and snapshot. jobs 2..64 verify the segments between snapshots on that many threads (the
        /// same result); poses also computes every pose. The verdict says what happened: nothing is thrown
        /// for a replay that fails to verify.</summary>
        public static VerifyResult Verify(string path, int jobs = 1, bool poses = false)
        {
            if (path == null) throw new ArgumentNullException("path");
            return RunVerify(Utf8.Z(path), null, null, jobs, poses);
        }

        /// <summary>The same over a replay's bytes; replayPath (may be null) is where its graphs are looked for.</summary>
        public static VerifyResult Verify(byte[] data, string replayPath, int jobs = 1, bool poses = false)
        {
            if (data == null) throw new ArgumentNullException("data");
            return RunVerify(null, data, replayPath == null ? null : Utf8.Z(replayPath), jobs, poses);
        }

        static VerifyResult RunVerify(byte[] path, byte[] data, byte[] replayPath, int jobs, bool poses)
        {
            if (jobs < 1 || jobs > 64) throw new ArgumentOutOfRangeException("jobs", "1..64");
            var o = new ReplayVerifyOptionsNative();
            o.Jobs = (uint)jobs;
            o.Poses = poses ? 1 : 0;
            IntPtr mem = Marshal.AllocHGlobal(VerifyResultLayout.Size);
            byte* r = (byte*)mem;
            try
            {
                for (int i = 0; i < VerifyResultLayout.Size; i++) r[i] = 0;
                /* the verdict carries every outcome, argument errors included */
                if (path != null) Native.bsync_replay_verify_file(path, &o, r);
                else
                    fixed (byte* d = data)
                    fixed (byte* rp = replayPath)
                    {
                        o.ReplayPath = (IntPtr)rp;
                        Native.bsync_replay_verify_memory(d, new UIntPtr((uint)data.Length), &o, r);
                    }
                var v = new VerifyResult();
                v.Verdict = (VerifyVerdict)(*(int*)r);
                v.Message = Utf8.Read(r + VerifyResultLayout.Message, 1600);
                v.ConfigUsed = Utf8.Read(r + VerifyResultLayout.ConfigUsed, 1400);
                v.Differences = Utf8.Read(*(IntPtr*)(r + VerifyResultLayout.Differences)) ?? "";
                v.HaveHeader = *(int*)(r + VerifyResultLayout.HaveHeader) != 0;
                v.Jobs = *(uint*)(r + VerifyResultLayout.Jobs);
                v.TicksVerified = *(ulong*)(r + VerifyResultLayout.TicksVerified);
                v.ChecksumsCompared = *(ulong*)(r + VerifyResultLayout.ChecksumsCompared);
                v.PoseChecksumsCompared = *(ulong*)(r + VerifyResultLayout.PoseChecksumsCompared);
                v.SnapshotsCompared = *(ulong*)(r + VerifyResultLayout.SnapshotsCompared);
                v.DesyncRecords = *(ulong*)(r + VerifyResultLayout.DesyncCount);
                v.Complete = *(int*)(r + VerifyResultLayout.Complete) != 0;
                v.Incomplete = *(int*)(r + VerifyResultLayout.Incomplete) != 0;
                v.Mismatches = *(ulong*)(r + VerifyResultLayout.Mismatches);
                byte* m = r + VerifyResultLayout.FirstMismatch;
                v.MismatchTick = *(uint*)(m + VerifyResultLayout.MismatchTick);
                v.MismatchCharacter = *(uint*)(m + VerifyResultLayout.MismatchCharacter);
                v.MismatchExpected = *(ulong*)(m + VerifyResultLayout.MismatchExpected);
                v.MismatchGot = *(ulong*)(m + VerifyResultLayout.MismatchGot);
                v.MismatchText = Utf8.Read(m + VerifyResultLayout.MismatchText, 400);
                return v;
            }
            finally
            {
                Native.bsync_replay_verify_result_destroy(r);
                Marshal.FreeHGlobal(mem);
            }
        }

        /// <summary>Read a replay file through the library's reader. IoError when it cannot be read; a
        /// damaged file is reported in Status / Detail, not thrown.</summary>
        public static ReplayInfo Info(string path) { using (var r = ReplayReader.Open(path)) return Scan(r); }

        /// <summary>The same from bytes in memory.</summary>
        public static ReplayInfo Info(byte[] data) { using (var r = ReplayReader.Open(data)) return Scan(r); }

        public static string StatusString(ReplayStatus s) { return Utf8.Read(Native.bsync_replay_status_string((int)s)); }

        static ReplayInfo Scan(ReplayReader r)
        {
            var info = new ReplayInfo();
            bool first = true;
            ReplayStatus st;
            while ((st = r.Next()) == ReplayStatus.Ok)
            {
                switch (r.Type)
                {
                case ReplayRecordType.Frame:
                    if (info.Frames == 0) info.FirstFrameTick = r.Tick;
                    info.LastFrameTick = r.Tick;
                    info.Frames++;
                    break;
                case ReplayRecordType.Checksum:
                    info.Checksums++;
                    if (r.ChecksumHasPose) info.ChecksumsWithPose++;
                    break;
                case ReplayRecordType.Snapshot: info.Snapshots++; break;
                case ReplayRecordType.Desync: info.Desyncs++; break;
                case ReplayRecordType.End: info.HasEnd = true; info.EndTicks = r.Tick; info.EndReason = r.EndReason; break;
                }
                if (!first) continue;
                first = false;
                ReplayHeaderNative* hd = r.Header;
                if (hd == null) continue;
                info.FormatVersion = hd->FormatVersion;
                info.BuildVersion = Utf8.Read(hd->BuildVersion, ReplayHeaderNative.MaxText + 1);
                info.MatchId = hd->MatchId;
                info.MatchHash = hd->MatchHash;
                info.TickRate = hd->TickRate;
                info.PlayerCount = hd->PlayerCount;
                info.ParamCount = hd->ParamCount;
                info.TriggerCount = hd->TriggerCount;
                info.CharacterCount = hd->CharacterCount;
                info.InputDelay = hd->InputDelay;
                info.ChecksumInterval = hd->ChecksumInterval;
                info.StartTick = hd->StartTick;
                info.AssetCount = hd->AssetCount;
                info.ConfigPath = Utf8.Read(hd->ConfigPath, ReplayHeaderNative.MaxText + 1);
                info.ConfigText = hd->ConfigText == IntPtr.Zero ? "" : Utf8.Read((byte*)hd->ConfigText, (int)hd->ConfigLen);
            }
            info.Status = st;
            info.Detail = r.Detail;
            info.ValidBytes = r.ValidBytes;
            return info;
        }
    }
}
