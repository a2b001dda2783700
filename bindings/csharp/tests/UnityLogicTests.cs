// UnityLogicTests.cs — the plain classes behind the Unity samples (Samples~): MatchDriver (the
// FixedUpdate loop), JointMap (pose -> Transforms by joint name), NodeWeightsView (the Gizmo).
using System;
using System.Collections.Generic;
using System.IO;
using Blendsync;

static class UnityLogicTests
{
    public static void Run()
    {
        string path = Path.Combine(T.Src, "tests", "fixtures", "replay", "v1", "match.json");
        using (var mc = MatchConfig.Load(path))
        using (var driver = new MatchDriver(mc))
        using (var m = new Match(mc))
        using (var frame = new MatchFrameBuffer(mc.PlayerCount))
        {
            // the driver and a hand-made frame loop get the same inputs: the same checksums
            var a = new MatchChecksums();
            var b = new MatchChecksums();
            for (int t = 0; t < 45; t++)
            {
                Fix16 v = Fix16.FromDouble(0.05 * (t % 20));
                for (int s = 0; s < mc.PlayerCount; s++)
                {
                    driver.SetParam(s, 0, v);
                    frame.Player(s).SetParam(0, v);
                    byte trig = (byte)(t == 10 && s == 1 ? 1 : 0);
                    if (trig != 0) driver.SetTrigger(s, 0, trig);
                    frame.Player(s).SetTrigger(0, trig);
                }
                driver.Tick();
                m.Tick(frame);
            }
            driver.Match.Checksums(true, ref a);
            m.Checksums(true, ref b);
            T.Check(a.Tick == 45 && a.Blend == b.Blend && a.Pose == b.Pose,
                    "MatchDriver: 45 ticks with a trigger give the checksums of the same frames ticked by hand");
            int jc = mc.CharacterGraph(1).JointCount;
            var f = new TrsF[jc];
            var model = new Trs[jc];
            driver.ModelPose(1, f);
            driver.Match.Character(1).Pose(new Trs[jc], model);
            bool same = true;
            for (int j = 0; j < jc; j++) same &= f[j].Ty == (float)(model[j].T.Y.Raw / 65536.0) && f[j].Rx == (float)(model[j].R.X.Raw / 65536.0);
            T.Check(same, "MatchDriver.ModelPose: the character's model pose as floats");

            // JointMap: Transforms named after joints, plus one that is not a joint and a duplicate
            Graph g = mc.CharacterGraph(1);
            var names = new List<string> { "Camera", g.JointName(3), g.JointName(0), g.JointName(3) };
            var map = new JointMap(g, names);
            T.Check(map.JointOfTarget[0] == -1 && map.JointOfTarget[1] == 3 && map.JointOfTarget[2] == 0 && map.JointOfTarget[3] == -1 &&
                    map.MappedCount == 2 && map.UnmappedJoints.Count == jc - 2 && !map.UnmappedJoints.Contains(g.JointName(3)),
                    "JointMap: by exact name; unknown and repeated names map to nothing; the rest listed as unmapped");

            // NodeWeightsView of the root node of character 1's graph
            var view = new NodeWeightsView(g, g.NodeName(g.RootNode));
            view.Refresh(driver.Match.Character(1));
            var raw = new Fix16[view.Weights.Length];
            driver.Match.Character(1).NodeWeights(view.Node, raw);
            float sum = 0;
            bool eq = true;
            for (int k = 0; k < raw.Length; k++) { sum += view.Weights[k]; eq &= view.Weights[k] == raw[k].ToFloat(); }
            T.Check(eq && Math.Abs(sum - 1f) < 1e-4f && view.ChildNames[0] == g.NodeChildName(view.Node, 0),
                    "NodeWeightsView: the root node's " + raw.Length + " child weights as floats (sum " + sum + ")");
            T.Throws<ArgumentException>(() => new NodeWeightsView(g, "no-such-node"), null, "NodeWeightsView of an unknown node: ArgumentException");
        }
    }
}
