// ReplayTests.cs — Replay.Info over the v1 fixture (what tests/fixtures/replay/v1/README.md says was
// recorded: 300 ticks, the match config beside it) and over damaged copies of it (a flipped byte,
// a cut end), through the library's reader.
using System;
using System.IO;
using Blendsync;

static class ReplayTests
{
    public static void Run()
    {
        string dir = Path.Combine(T.Src, "tests", "fixtures", "replay", "v1");
        string file = Path.Combine(dir, "v1.bsreplay");
        ReplayInfo info = Replay.Info(file);
        ulong hash;
        using (var mc = MatchConfig.Load(Path.Combine(dir, "match.json"))) hash = mc.MatchHash;
        T.Check(info.Complete && info.Status == ReplayStatus.Eof && info.ValidBytes == (ulong)new FileInfo(file).Length,
                "v1.bsreplay reads to a clean end (" + info.ValidBytes + " bytes)");
        T.Check(info.FormatVersion == 1 && info.Frames == 300 && info.FirstFrameTick == 0 && info.LastFrameTick == 299 &&
                info.EndTicks == 300 && info.EndReason == 0, "300 frames, ticks 0..299, END 300 normal (the recording's --ticks 300)");
        T.Check(info.Checksums == 10 && info.ChecksumsWithPose == 10 && info.Snapshots == 0 && info.Desyncs == 0,
                "10 checksums, all with a pose (interval 30, --poses)");
        T.Check(info.MatchHash == hash && info.MatchId == 1 && info.PlayerCount == 4 && info.CharacterCount == 6 && info.TickRate == 30,
                "the header's match hash is the match config's (" + hash.ToString("x16") + ")");
        T.Check(info.ConfigText == File.ReadAllText(Path.Combine(dir, "match.json")) && info.ConfigPath == "match.json" &&
                info.BuildVersion.StartsWith("blendsync 0.1.0"), "the recorded config text is the fixture's match.json");

        byte[] bytes = File.ReadAllBytes(file);
        byte[] flipped = (byte[])bytes.Clone();
        flipped[bytes.Length / 2] ^= 0x10;
        ReplayInfo bad = Replay.Info(flipped);
        T.Check(bad.Status == ReplayStatus.Corrupt && !bad.Complete && bad.ValidBytes < (ulong)bytes.Length && bad.Detail.Length > 0,
                "a flipped byte: Corrupt after " + bad.ValidBytes + " valid bytes (" + bad.Detail + ")");
        byte[] cut = new byte[bytes.Length - 5];
        Array.Copy(bytes, cut, cut.Length);
        ReplayInfo tr = Replay.Info(cut);
        T.Check(tr.Status == ReplayStatus.Truncated && !tr.HasEnd && tr.Frames == 300, "a cut end: Truncated, the 300 frames before it read");
        T.Check(Replay.StatusString(ReplayStatus.Truncated).Length > 0, "replay status text");
        T.Throws<BlendsyncException>(() => Replay.Info(Path.Combine(T.Work, "none.bsreplay")), e => e.Code == Result.IoError,
                                     "a missing replay file: IoError");
        // verification through the library (bsync_replay_verify_*): the fixture is a clean recording
        VerifyResult v = Replay.Verify(file);
        T.Check(v.Verified && v.HaveHeader && v.Complete && v.TicksVerified == 300 && v.ChecksumsCompared == 10 &&
                v.PoseChecksumsCompared == 10 && v.Mismatches == 0,
                "Replay.Verify: the fixture verifies, 300 ticks, its 10 blend and 10 pose checksums (" + v.ConfigUsed + ")");
        VerifyResult v2 = Replay.Verify(file, 2);
        T.Check(v2.Verified && v2.TicksVerified == 300 && v2.ChecksumsCompared == 10, "Replay.Verify with 2 jobs: the same");
        VerifyResult vm = Replay.Verify(bytes, file);
        T.Check(vm.Verified && vm.TicksVerified == 300 && vm.ChecksumsCompared == 10, "Replay.Verify from bytes: the same");
        VerifyResult vx = Replay.Verify(flipped, file);
        T.Check(!vx.Verified && vx.Message.Length > 0, "Replay.Verify of the flipped copy: " + vx.Verdict + " (" + vx.Message + ")");
        VerifyResult vn = Replay.Verify(Path.Combine(T.Work, "none.bsreplay"));
        T.Check(vn.Verdict == VerifyVerdict.Unusable && vn.Message.Length > 0, "Replay.Verify of a missing file: Unusable (" + vn.Message + ")");
        T.Throws<ArgumentOutOfRangeException>(() => Replay.Verify(file, 65), null, "Replay.Verify jobs 65: refused");
        var rd = ReplayReader.Open(bytes);
        rd.Dispose();
        rd.Dispose();
        T.Throws<ObjectDisposedException>(() => rd.Next(), null, "ReplayReader after Dispose: ObjectDisposedException");
    }
}
