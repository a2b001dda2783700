// MatchTests.cs — match configs (path and bytes) and matches: the v1 replay fixture
// (tests/fixtures/replay/v1, recorded by the C tool on 2026-11-30) re-simulated through the binding
// (its FRAME records ticked into a Match, every CHECKSUM record compared with the match's blend and
// pose checksums), character views, joint checksums, snapshots, errors, lifetime.
using System;
using System.IO;
using System.Text;
using Regex = System.Text.RegularExpressions.Regex;
using MatchCollection = System.Text.RegularExpressions.MatchCollection;
using Blendsync;

static class MatchTests
{
    public static void Run()
    {
        string dir = Path.Combine(T.Src, "tests", "fixtures", "replay", "v1");
        string path = Path.Combine(dir, "match.json");
        string json = File.ReadAllText(path);
        var mc = MatchConfig.Load(path);
        MatchCollection tokens = Regex.Matches(json, "\"token\"\\s*:\\s*\"([^\"]*)\"");
        T.Check(mc.MatchId == 1 && mc.PlayerCount == tokens.Count && mc.Token(0) == tokens[0].Groups[1].Value &&
                mc.Token(3) == tokens[3].Groups[1].Value, "match config: id 1, " + tokens.Count + " players, tokens as in the file");
        T.Check(mc.CharacterCount == 6 && mc.TickRate == 30 && mc.ChecksumInterval == 30 && mc.ParamCount == 3 && mc.TriggerCount == 1 &&
                mc.FindParam(mc.ParamName(2)) == 2 && mc.TriggerName(0).Length > 0 && mc.CharacterName(0).Length > 0,
                "match config: 6 characters, 30 Hz, interval 30, 3 input parameters, 1 trigger (as replay info reports)");
        using (var mp = MatchConfig.Parse(Encoding.UTF8.GetBytes(json), "match.json", dir))
            T.Check(mp.MatchHash == mc.MatchHash && mp.MatchHash != 0, "MatchConfig.Parse(bytes) gives the same match hash as Load(path)");

        // ---- re-simulate the fixture's 300 frames
        var m = new Match(mc);
        var frame = new MatchFrameBuffer(mc.PlayerCount);
        var cs = new MatchChecksums();
        int compared = 0, wrong = 0, frames = 0;
        using (var r = ReplayReader.Open(Path.Combine(dir, "v1.bsreplay")))
        {
            while (r.Next() == ReplayStatus.Ok)
            {
                if (r.Type == ReplayRecordType.Frame)
                {
                    if (r.Tick != m.TickCount) wrong++;
                    r.CopyFrame(frame);
                    m.Tick(frame);
                    frames++;
                }
                else if (r.Type == ReplayRecordType.Checksum)
                {
                    m.Checksums(r.ChecksumHasPose, ref cs);
                    compared++;
                    if (cs.Tick != r.Tick + 1 || cs.Blend != r.ChecksumBlend || (r.ChecksumHasPose && cs.Pose != r.ChecksumPose)) wrong++;
                }
            }
        }
        T.Check(frames == 300 && compared == 10 && wrong == 0,
                "the v1 fixture re-simulated through the binding: 300 frames, 10 blend + pose checksums equal the recorded ones");

        // ---- characters, joint checksums
        m.Checksums(true, ref cs);
        Instance c0 = m.Character(0);
        bool viewOk = true;
        for (int c = 0; c < m.CharacterCount; c++) viewOk &= m.Character(c).StateChecksum == cs.CharacterBlend(c);
        T.Check(viewOk && cs.CharacterCount == 6, "each character view's state checksum is the match's character blend checksum");
        T.Check(c0.PoseChecksum() == cs.CharacterPose(0), "character 0's pose checksum is the match's character pose checksum");
        var jcs = new ulong[1024];
        int jn = m.JointChecksums(0, jcs);
        T.Check(jn == c0.Graph.JointCount && jn > 0 && jcs[0] != jcs[jn - 1], "joint checksums: one per joint of character 0 (" + jn + ")");
        var hit = new Trs[1];
        c0.JointQuery(new uint[] { (uint)c0.Graph.FindJoint(c0.Graph.JointName(jn - 1)) }, 1, hit);
        var model = new Trs[jn];
        c0.Pose(new Trs[jn], model);
        T.Check(hit[0] == model[jn - 1], "a hit-box joint query on a match character equals its model pose");

        // ---- snapshots
        var snap = new byte[m.SnapshotSizeMax];
        int len = m.Save(snap);
        ulong at300 = cs.Blend;
        frame.Clear();
        for (int t = 0; t < 10; t++) m.Tick(frame);
        m.Checksums(false, ref cs);
        ulong at310 = cs.Blend;
        m.Load(snap, len);
        m.Checksums(false, ref cs);
        T.Check(len == m.SnapshotSize && m.TickCount == 300 && cs.Blend == at300 && at310 != at300,
                "match snapshot (" + len + " bytes) restores tick 300 and its checksum");
        for (int t = 0; t < 10; t++) m.Tick(frame);
        m.Checksums(false, ref cs);
        T.Check(cs.Blend == at310, "... and the same 10 ticks give the same checksum again");
        snap[20] ^= 0x40;
        T.Throws<BlendsyncException>(() => m.Load(snap, len), e => e.Code == Result.BadBlob || e.Code == Result.Mismatch,
                                     "a damaged match snapshot is refused");
        frame.PlayerCount = 2;
        T.Throws<BlendsyncException>(() => m.Tick(frame), e => e.Code == Result.InvalidArgument, "a frame with the wrong player count: InvalidArgument");

        // ---- the seeded script (bots, NPCs) is deterministic
        MatchScript s1 = MatchConfig.NewScript(7), s2 = MatchConfig.NewScript(7);
        var i1 = new MatchInput();
        var i2 = new MatchInput();
        bool scriptSame = true;
        for (int t = 0; t < 100; t++)
        {
            mc.RandomInput(ref s1, ref i1);
            mc.RandomInput(ref s2, ref i2);
            for (int p = 0; p < 3; p++) scriptSame &= i1.GetParam(p) == i2.GetParam(p);
        }
        T.Check(scriptSame && s1.State == s2.State && s1.State != 7, "RandomInput: the same seed gives the same 100 records");

        // ---- lifetime
        mc.Dispose();
        m.Tick(new MatchFrameBuffer(4));
        T.Check(m.TickCount == 311, "a match keeps its config's graphs alive after the config's Dispose");
        T.Throws<ObjectDisposedException>(() => { var x = mc.MatchId; }, null, "MatchConfig after Dispose: ObjectDisposedException");
        Instance view = m.Character(2);
        view.Dispose();
        T.Check(ReferenceEquals(view, m.Character(2)) && view.TickCount == 311,
                "Character(c) returns one view object per character (no allocation per call); its Dispose is a no-op");
        m.Dispose();
        m.Dispose();
        T.Throws<ObjectDisposedException>(() => m.Tick(frame), null, "Match.Tick after Dispose: ObjectDisposedException");
        T.Throws<ObjectDisposedException>(() => { var x = view.StateChecksum; }, null, "a character view after its match's Dispose: ObjectDisposedException");
        frame.Dispose();
        frame.Dispose();
        T.Throws<ObjectDisposedException>(() => frame.Clear(), null, "MatchFrameBuffer after Dispose: ObjectDisposedException");

        // ---- errors
        string bad = T.Write("badmatch.json", json.Replace("\"slot\": 0", "\"slot\": 0, \"npc_seed\": 3"));
        File.Copy(Path.Combine(dir, "humanoid_locomotion.json"), Path.Combine(T.Work, "humanoid_locomotion.json"), true);
        T.Throws<BlendsyncException>(() => MatchConfig.Load(bad),
                e => e.Code == Result.ConfigError && Regex.IsMatch(e.Message, "^" + Regex.Escape(bad) + @": /characters/\d+: both ""slot"" and ""npc_seed"" given"),
                "a character with slot and npc_seed: ConfigError at /characters/K with the library's text");
        T.Throws<BlendsyncException>(() => MatchConfig.Parse(Encoding.UTF8.GetBytes("{\"match_id\": 1}"), "m.json", null),
                e => e.Code == Result.ConfigError && e.Message.StartsWith("m.json: /"), "a match config from bytes missing its players: a JSON-path message");
    }
}
