// PresentTests.cs — the pose between ticks (present.h), on a walking built-in humanoid: alpha 0 is the
// tick pose bit for bit, alpha is clamped at 3, presenting never changes the instance.
using System;
using Blendsync;

static class PresentTests
{
    public static void Run()
    {
        string path = T.Write("present.json", @"{ ""tick_rate"": 30, ""root_motion"": ""extract"",
  ""parameters"": { ""speed"": { ""default"": 1.4 } }, ""root"": ""loco"",
  ""nodes"": { ""loco"": { ""type"": ""Simple1D"", ""parameter"": ""speed"", ""children"": [
    { ""motion"": ""idle"", ""threshold"": 0 }, { ""motion"": ""walk"", ""threshold"": 1.4 } ] } },
  ""clips"": { ""idle"": { ""source"": ""builtin:humanoid"" }, ""walk"": { ""source"": ""builtin:humanoid"" } } }");
        using (var gc = GraphConfig.Load(path))
        using (var inst = new Instance(gc.Graph))
        {
            int jc = gc.Graph.JointCount;
            var targets = new[] { Fix16.Parse("1.4") };
            for (int t = 0; t < 20; t++) inst.Tick(targets);
            var tick = new Trs[jc];
            var tickModel = new Trs[jc];
            var a0 = new Trs[jc];
            var a0m = new Trs[jc];
            var half = new Trs[jc];
            var three = new Trs[jc];
            var five = new Trs[jc];
            inst.Pose(tick, tickModel);
            ulong state = inst.StateChecksum;
            RootMotion r0 = inst.PresentPose(Fix16.Zero, a0, a0m);
            RootMotion rh = inst.PresentPose(Fix16.Parse("0.5"), half, null);
            inst.PresentPose(Fix16.FromInt(3), three, null);
            inst.PresentPose(Fix16.FromInt(5), five, null);
            bool same0 = true, same35 = true, differs = false;
            for (int j = 0; j < jc; j++) { same0 &= a0[j] == tick[j] && a0m[j] == tickModel[j]; same35 &= three[j] == five[j]; differs |= half[j] != tick[j]; }
            T.Check(same0 && r0.Translation == new Vec3() && r0.Rotation == Quat.Identity, "PresentPose at alpha 0 is the tick's pose bit for bit (local and model), root motion zero");
            T.Check(differs && rh.Translation.Z > Fix16.Zero, "alpha 0.5: a pose between ticks, half a tick of forward root motion (" + rh.Translation + ")");
            T.Check(same35, "alpha 5 is clamped to 3 (BSYNC_PRESENT_ALPHA_MAX)");
            T.Check(inst.StateChecksum == state && inst.TickCount == 20, "presenting never changes the instance");
            T.Throws<BlendsyncException>(() => inst.PresentPose(Fix16.Parse("-0.5"), half, null), e => e.Code == Result.InvalidArgument,
                                         "a negative alpha: InvalidArgument");
            var f = new TrsF[jc];
            Pose.ToFloat(half, jc, f);
            T.Check(f[jc - 1].Tx == (float)(half[jc - 1].T.X.Raw / 65536.0) && f[0].Rw == (float)(half[0].R.W.Raw / 65536.0),
                    "Pose.ToFloat: raw / 65536");
        }
    }
}
