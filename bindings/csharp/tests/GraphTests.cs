// GraphTests.cs — graph configs (path and bytes), graphs, instances: ticks, blend state, node
// weights, poses (local, model, float), joint queries, root motion, checksums, snapshots, error
// messages and handle lifetime.
using System;
using System.IO;
using System.Text;
using Blendsync;

static class GraphTests
{
    const string Humanoid = @"{ ""tick_rate"": 30, ROOT_MOTION
  ""parameters"": { ""speed"": { ""default"": 0, ""smooth_time"": 0.25, ""max_speed"": 10 } },
  ""root"": ""locomotion"",
  ""nodes"": { ""locomotion"": { ""type"": ""Simple1D"", ""parameter"": ""speed"", ""children"": [
    { ""motion"": ""idle"", ""threshold"": 0 }, { ""motion"": ""walk"", ""threshold"": 1.4 }, { ""motion"": ""run"", ""threshold"": 3.5 } ] } },
  ""clips"": { ""idle"": { ""source"": ""builtin:humanoid"" }, ""walk"": { ""source"": ""builtin:humanoid"" },
             ""run"": { ""source"": ""builtin:humanoid"" } } }";

    public static void Run()
    {
        string keep = T.Write("humanoid.json", Humanoid.Replace("ROOT_MOTION", ""));
        string extract = T.Write("humanoid_rm.json", Humanoid.Replace("ROOT_MOTION", "\"root_motion\": \"extract\","));

        // ---- load and graph accessors
        var gc = GraphConfig.Load(keep);
        Graph g = gc.Graph;
        T.Check(g.ParameterCount == 1 && g.ParameterName(0) == "speed" && g.FindParameter("speed") == 0 && g.FindParameter("x") == -1,
                "graph: one parameter \"speed\"; FindParameter");
        T.Check(g.MotionCount == 3 && g.MotionName(0) == "idle" && g.MotionName(2) == "run" && g.NodeCount == 1 &&
                g.NodeName(0) == "locomotion" && g.NodeChildCount(0) == 3 && g.NodeChildName(0, 1) == "walk",
                "graph: motions idle/walk/run under node locomotion, in file order");
        T.Check(g.TickRate == 30 && gc.BoundClipCount == 3 && !g.ExtractsRootMotion && g.SwitchCount == 0 && g.PoseRule == 1,
                "graph: 30 Hz, 3 bound clips, root motion kept, no switches, pose rule 1 (the default)");
        T.Check(g.JointCount == 23 && g.JointParent(0) == -1 && g.FindJoint(g.JointName(5)) == 5,
                "graph: the built-in humanoid's 23 joints (procedural.h), joint 0 a root, names found back");
        T.Check(gc.Notes.Contains("builtin:humanoid"), "graph config notes name the built-in source");

        // ---- instance: ticks, blend state
        var inst = new Instance(g);
        var targets = new Fix16[1];
        var w = new Fix16[3];
        targets[0] = Fix16.Parse("1.4");
        for (int t = 0; t < 60; t++) inst.Tick(targets);
        inst.NodeWeights(0, w);
        T.Check(inst.TickCount == 60 && inst.Target(0) == targets[0] && inst.Parameter(0) > Fix16.Parse("1.3") &&
                inst.Parameter(0) <= Fix16.Parse("1.4"), "60 ticks at target 1.4: the smoothed speed approaches 1.4 (" + inst.Parameter(0) + ")");
        T.Check((w[0] + w[1] + w[2]) == Fix16.One && w[2] == Fix16.Zero && w[1] > w[0],
                "Simple1D node weights sum to exactly 1.0 and favour walk near 1.4 (" + w[0] + ", " + w[1] + ", " + w[2] + ")");
        var leaves = new Fix16[3];
        inst.LeafWeights(leaves);
        T.Check(leaves[0] == w[0] && leaves[1] == w[1] && leaves[2] == w[2], "leaf weights of a one-node tree are its node weights");
        T.Check(inst.NodePhase(0) >= Fix16.Zero && inst.NodePhase(0) < Fix16.One, "node phase is in [0, 1)");

        // ---- poses
        int jc = g.JointCount;
        var local = new Trs[jc];
        var model = new Trs[jc];
        var floats = new TrsF[jc];
        inst.Pose(local, model);
        T.Check(Checksum.Pose(local, jc) == inst.PoseChecksum(), "PoseChecksum == bsync_checksum_pose of the local pose");
        T.Check(Same(local[0], model[0]) && !Same(local[jc - 1], model[jc - 1]), "model pose: a root joint equals its local transform, a leaf does not");
        var q = new uint[] { (uint)(jc - 1), 0, 3, (uint)(jc - 1) };
        var qo = new Trs[4];
        inst.JointQuery(q, 4, qo);
        T.Check(Same(qo[0], model[jc - 1]) && Same(qo[1], model[0]) && Same(qo[2], model[3]) && Same(qo[3], model[jc - 1]),
                "joint queries equal the model pose's joints (any order, repeats)");
        inst.PoseFloat(local, model, floats);
        bool fok = true;
        for (int j = 0; j < jc; j++)
            fok &= floats[j].Tx == (float)(model[j].T.X.Raw / 65536.0) && floats[j].Rw == (float)(model[j].R.W.Raw / 65536.0) &&
                   floats[j].Sz == (float)(model[j].S.Z.Raw / 65536.0);
        inst.PoseFloat(local, null, floats);
        fok &= floats[jc - 1].Ty == (float)(local[jc - 1].T.Y.Raw / 65536.0);
        T.Check(fok, "float poses are raw / 65536 of the fix16 model (or local) pose");
        RootMotion rm = inst.RootMotion;
        T.Check(rm.Translation.X == Fix16.Zero && rm.Translation.Z == Fix16.Zero && rm.Rotation.W == Fix16.One,
                "root motion of a KEEP graph is zero / identity");

        // ---- snapshots: save, run on, load, run again: the same states
        var snap = new byte[inst.SnapshotSizeMax];
        int len = inst.Save(snap);
        var first = new ulong[20];
        targets[0] = Fix16.Parse("3.5");
        for (int t = 0; t < 20; t++) { inst.Tick(targets); first[t] = inst.StateChecksum; }
        inst.Load(snap, len);
        bool same = inst.TickCount == 60;
        for (int t = 0; t < 20; t++) { inst.Tick(targets); same &= first[t] == inst.StateChecksum; }
        T.Check(same && len > 0, "instance snapshot (" + len + " bytes): loading it replays the same 20 state checksums");
        ulong before = inst.StateChecksum;
        snap[len / 2] ^= 1;
        T.Throws<BlendsyncException>(() => inst.Load(snap, len), e => e.Code == Result.BadBlob, "a snapshot with a flipped byte: BadBlob");
        T.Check(inst.StateChecksum == before && inst.TickCount == 80, "... and the instance is untouched");
        T.Throws<ArgumentException>(() => inst.Tick(new Fix16[0]), null, "Tick with too few targets: ArgumentException");
        T.Throws<ArgumentException>(() => inst.Pose(new Trs[2], null), null, "Pose into a short array: ArgumentException");

        // ---- root motion (EXTRACT): the walk moves forward (+z), no sideways motion, no turn
        using (var gx = GraphConfig.Load(extract))
        using (var ix = new Instance(gx.Graph))
        {
            targets[0] = Fix16.Parse("1.4");
            for (int t = 0; t < 40; t++) ix.Tick(targets);
            RootMotion r = ix.RootMotion;
            T.Check(gx.Graph.ExtractsRootMotion && r.Translation.Z > Fix16.Zero && r.Translation.X == Fix16.Zero &&
                    r.Rotation == Quat.Identity, "root motion EXTRACT at walk speed: forward delta " + r.Translation);
        }

        // ---- lifetime: dispose twice, use after dispose, config disposed before its instance
        gc.Dispose();
        gc.Dispose();
        T.Throws<ObjectDisposedException>(() => { var x = gc.Graph; }, null, "GraphConfig.Graph after Dispose: ObjectDisposedException");
        T.Throws<ObjectDisposedException>(() => { var x = gc.Notes; }, null, "GraphConfig.Notes after Dispose: ObjectDisposedException");
        inst.Tick(targets);
        T.Check(inst.TickCount == 81, "an instance keeps its graph alive after the config's Dispose (SafeHandle reference)");
        inst.Dispose();
        inst.Dispose();
        T.Throws<ObjectDisposedException>(() => inst.Tick(targets), null, "Instance.Tick after Dispose: ObjectDisposedException");
        T.Throws<ObjectDisposedException>(() => { var x = inst.StateChecksum; }, null, "Instance.StateChecksum after Dispose: ObjectDisposedException");

        // ---- errors: the library's own messages, with file and JSON path
        string bad = T.Write("bad.json", @"{ ""parameters"": { ""x"": {}, ""y"": {} }, ""root"": ""move"",
  ""nodes"": { ""move"": { ""type"": ""SimpleDirectional2D"", ""parameters"": [""x"", ""y""],
    ""children"": [ { ""motion"": ""idle"", ""position"": [0, 0] }, { ""motion"": ""walk"", ""position"": [1] } ] } } }");
        T.Throws<BlendsyncException>(() => GraphConfig.Load(bad),
                e => e.Code == Result.ConfigError && e.Message == bad + ": /nodes/move/children/1/position: expected an array of 2 numbers",
                "bad config: ConfigError with \"FILE: /nodes/move/children/1/position: expected an array of 2 numbers\"");
        string badClip = T.Write("badclip.json", Humanoid.Replace("ROOT_MOTION", "").Replace("\"walk\": { \"source\": \"builtin:humanoid\" }",
                                                                                             "\"walk\": { \"source\": \"builtin:humanoid\", \"animation\": \"wlak\" }"));
        T.Throws<BlendsyncException>(() => GraphConfig.Load(badClip),
                e => e.Code == Result.ConfigError && e.Message.StartsWith(badClip + ": /clips/walk/animation: no animation \"wlak\""),
                "a clip that does not exist: its JSON path /clips/walk/animation in the message");
        T.Throws<BlendsyncException>(() => GraphConfig.Load(Path.Combine(T.Work, "missing.json")), e => e.Code == Result.IoError && e.Message.Contains("missing.json"),
                "a missing config file: IoError naming it");

        // ---- a blend tree from bytes
        byte[] text = Encoding.UTF8.GetBytes(@"{ ""parameters"": { ""speed"": { ""default"": 0.25 } }, ""root"": ""s"",
  ""nodes"": { ""s"": { ""type"": ""Simple1D"", ""parameter"": ""speed"", ""children"": [
    { ""motion"": ""a"", ""threshold"": 0 }, { ""motion"": ""b"", ""threshold"": 1 }, { ""motion"": ""c"", ""threshold"": 2 } ] } } }");
        using (var tree = BlendTree.Parse(text, "mem.json"))
        {
            var pw = new Fix16[3];
            tree.EvalNode(0, new[] { Fix16.Parse("0.5") }, pw);
            T.Check(tree.ParameterCount == 1 && tree.ParameterDefault(0) == Fix16.Parse("0.25") && tree.MotionCount == 3 &&
                    tree.MotionName(1) == "b" && tree.NodeName(0) == "s", "BlendTree.Parse(bytes): names and the exact default 0.25");
            T.Check(pw[0].Raw == 32768 && pw[1].Raw == 32768 && pw[2].Raw == 0, "Simple1D at 0.5 between thresholds 0 and 1: weights 0.5, 0.5, 0");
        }
        T.Throws<BlendsyncException>(() => BlendTree.Parse(Encoding.UTF8.GetBytes("{\n  \"parameters\": [,\n}"), "mem.json"),
                e => e.Code == Result.ConfigError && e.Message.StartsWith("mem.json:2:") && e.Message.Contains("invalid JSON"),
                "invalid JSON from bytes: \"mem.json:LINE:COLUMN: invalid JSON: ...\"");
        T.Throws<BlendsyncException>(() => BlendTree.Parse(Encoding.UTF8.GetBytes("{ \"parameters\": {}, \"root\": \"n\", \"nodes\": {}, \"tick\": 1 }"), "mem.json"),
                e => e.Code == Result.ConfigError && e.Message.StartsWith("mem.json: /"), "an unknown field from bytes: a message with a JSON path");
    }

    static bool Same(Trs a, Trs b) { return a == b; }
}
