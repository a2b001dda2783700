// AllocationTests.cs — "no allocation per tick on the C# side": the managed bytes this thread
// allocates (GC.GetAllocatedBytesForCurrentThread) over 300 ticks of the per-tick calls, after a
// warm-up tick (the JIT, the first Character(c) view and the presentation scratch allocate once).
using System;
using System.IO;
using Blendsync;

static class AllocationTests
{
    public static void Run()
    {
        string path = Path.Combine(T.Src, "tests", "fixtures", "replay", "v1", "match.json");
        using (var mc = MatchConfig.Load(path))
        using (var driver = new MatchDriver(mc))
        using (var inst = new Instance(mc.CharacterGraph(0)))
        {
            Graph g = mc.CharacterGraph(0);
            int jc = g.JointCount;
            var floats = new TrsF[jc];
            var local = new Trs[jc];
            var model = new Trs[jc];
            var targets = new Fix16[g.ParameterCount];
            var weights = new Fix16[64];
            var cs = new MatchChecksums();
            var hs = new ChecksumState();
            var hit = new Trs[2];
            var joints = new uint[] { 0, (uint)(jc - 1) };
            var snap = new byte[driver.Match.SnapshotSizeMax];
            Fix16 v = Fix16.Parse("0.7");
            Checksum.Init(ref hs, 0);
            long before = 0;
            for (int t = 0; t <= 300; t++)
            {
                if (t == 1) before = GC.GetAllocatedBytesForCurrentThread();
                driver.SetParam(0, 0, v);
                driver.Tick();
                driver.ModelPose(0, floats);
                driver.Match.Checksums(true, ref cs);
                Instance c0 = driver.Match.Character(0);
                c0.JointQuery(joints, 2, hit);
                c0.NodeWeights(g.RootNode, weights);
                targets[0] = v;
                inst.Tick(targets);
                inst.Pose(local, model);
                inst.PresentPose(Fix16.Parse("0.5"), local, model);
                Checksum.U64(ref hs, inst.StateChecksum);
                Checksum.U64(ref hs, inst.PoseChecksum());
                if (t % 100 == 0) driver.Match.Save(snap);
            }
            long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
            T.Check(bytes == 0, "300 ticks of MatchDriver, Match checksums / snapshots, character views, Instance tick / pose / presentation pose / checksums: " +
                                bytes + " managed bytes allocated");
        }
    }
}
