// ActionTests.cs — actions through the binding (docs/actions.md): the graph's one-shot flag and action
// descriptions, the per-tick reports (Instance.Actions), the motion time of a one-shot, and the exit.
// The config and expected ticks are those worked by hand in tests/unit/config/test_graph_config_actions.c
// from the doc: 0.1, 0.2 and 0.35 s are 6554, 13107 and 22938 raw; a punch started by the trigger of
// tick 1 is at k/30 s after tick k (docs/actions.md "Crossings": past it), so "whoosh" (an instant at 0.1, policy always) fires in
// tick 4, the "hit" range [0.2, 0.35) opens in tick 6, is open after ticks 6..10 and closes in tick 11;
// the 1 s punch reaches one whole cycle (finished) after tick 30 and is strictly past it after tick 31,
// so the exit to walk plays from tick 32.
using System;
using Blendsync;

static class ActionTests
{
    const string Config = @"{ ""parameters"": { ""speed"": {} }, ""root"": ""act"", ""nodes"": { ""act"": { ""type"": ""Switch"",
  ""initial"": ""walk"", ""children"": [ { ""motion"": ""walk"" }, { ""motion"": ""punch"", ""exit"": { ""to"": ""walk"", ""fade"": 4 } } ] } },
  ""clips"": { ""walk"": { ""source"": ""builtin:humanoid"" }, ""punch"": { ""source"": ""builtin:humanoid"", ""loop"": false,
  ""events"": [ { ""name"": ""hit"", ""begin"": 0.2, ""end"": 0.35, ""payload"": 10 }, { ""name"": ""whoosh"", ""time"": 0.1, ""policy"": ""always"" } ] } } }";

    public static void Run()
    {
        var gc = GraphConfig.Load(T.Write("actions.json", Config));
        Graph g = gc.Graph;
        T.Check(g.ActionCount == 2 && g.MotionOneShot(1) && !g.MotionOneShot(0), "actions: two actions, punch a one-shot, walk looping");
        GraphAction hit = g.Action(0), whoosh = g.Action(1);
        T.Check(hit.Name == "hit" && hit.Kind == ActionKind.Range && hit.Payload == 10 && hit.Time.Raw == 13107 &&
                hit.End.Raw == 22938 && hit.Policy == ActionPolicy.Weight && g.MotionName(hit.Motion) == "punch",
                "actions: the hit range [0.2, 0.35) s (raw 13107, 22938), payload 10, policy weight, on punch");
        T.Check(whoosh.Name == "whoosh" && whoosh.Kind == ActionKind.Event && whoosh.Time.Raw == 6554 &&
                whoosh.Policy == ActionPolicy.Always, "actions: the whoosh instant at 0.1 s (raw 6554), policy always");
        T.Throws<BlendsyncException>(() => g.Action(2), null, "actions: Action(2) of 2 throws");

        var inst = new Instance(g);
        var targets = new Fix16[1];
        var reports = new ActionReport[4];
        var entries = new SwitchEntry[4];
        var trig = new SwitchTrigger[] { new SwitchTrigger { SwitchIndex = 0, Child = 1 } };
        T.Check(inst.ActionCount == 0, "actions: no reports after init");
        int whooshTick = 0, whooshCount = 0, enter = 0, exit = 0, active = 0, badSlot = 0, exitTick = 0;
        bool finishedAt30 = false, notFinishedAt29 = false, tooSmallThrew = false;
        for (int k = 1; k <= 34; k++)
        {
            inst.Tick(targets, k == 1 ? trig : null, k == 1 ? 1 : 0);
            int n = inst.Actions(reports);
            for (int i = 0; i < n; i++)
            {
                ActionReport r = reports[i];
                if (r.Node != 0 || r.Child != 1) badSlot++;
                if (r.Action == 1) { whooshTick = k; whooshCount += (int)r.Count; continue; }
                if (r.Count > 0) enter = k;
                if (r.Exits > 0) exit = k;
                active += (int)r.Active;
            }
            int en = inst.SwitchState(0, entries);
            if (exitTick == 0 && entries[en - 1].Child == 0) exitTick = k;
            if (k == 29) { MotionTime mt = inst.MotionTime(0, 1); notFinishedAt29 = mt.Finished == 0 && mt.Cycles == 0 && mt.Normalized < Fix16.One; }
            if (k == 30) { MotionTime mt = inst.MotionTime(0, 1); finishedAt30 = mt.Finished == 1 && mt.OneShot == 1 && mt.Normalized == Fix16.One; }
            if (k == 7)
            {
                try { inst.Actions(new ActionReport[0]); } catch (ArgumentException) { tooSmallThrew = true; }
            }
        }
        T.Check(badSlot == 0, "actions: every report is slot (node 0, child 1), the punch");
        T.Check(whooshTick == 4 && whooshCount == 1, "actions: whoosh fires once, in tick 4 (got tick " + whooshTick + ")");
        T.Check(enter == 6 && exit == 11 && active == 5, "actions: hit opens in tick 6, closes in tick 11, open after 5 ticks (got " +
                enter + ", " + exit + ", " + active + ")");
        T.Check(notFinishedAt29 && finishedAt30, "actions: the punch is finished (one whole cycle, normalised 1.0) after tick 30, not after tick 29");
        T.Check(tooSmallThrew, "actions: Actions into too small an array throws (tick 7: the open hit window is one report)");
        T.Check(exitTick == 32, "actions: the exit plays walk from tick 32 (got " + exitTick + ")");
        T.Check(g.CurveChannelCount == 0 && g.FindCurve("lift") == -1, "curves: a graph without curves has no channels");
        gc.Dispose();

        // Float curves (worked by hand in tests/unit/config/test_graph_config_curves.c): walk 0.75, run 0.25
        // (speed 0.25, sync none); "lift" is 4t on walk up to 0.5 s and 4.0 on run: 3t + 65536 raw at walk
        // time t raw; "walk_only" (missing on run) 0.75.
        var cc = GraphConfig.Load(T.Write("curves.json", Curves));
        Graph cg = cc.Graph;
        T.Check(cg.CurveChannelCount == 2 && cg.CurveChannelName(0) == "lift" && cg.FindCurve("walk_only") == 1,
                "curves: channels lift, walk_only");
        var ci = new Instance(cg);
        var ct = new Fix16[] { Fix16.FromRaw(16384) };
        bool ok = true;
        for (int k = 1; k <= 12; k++)
        {
            ci.Tick(ct);
            long t = ci.MotionTime(0, 0).Seconds.Raw;
            ok &= ci.Curve(0).Raw == 3 * t + 65536 && ci.Curve(1).Raw == 49152;
        }
        T.Check(ok, "curves: lift = 3t + 65536 raw and walk_only = 0.75 over 12 ticks");
        T.Throws<BlendsyncException>(() => ci.Curve(2), null, "curves: Curve(2) of 2 throws");
        cc.Dispose();
    }

    const string Curves = @"{ ""parameters"": { ""speed"": {} }, ""root"": ""loco"", ""nodes"": { ""loco"": { ""type"": ""Simple1D"",
  ""parameter"": ""speed"", ""sync"": ""none"", ""children"": [ { ""motion"": ""walk"", ""threshold"": 0 }, { ""motion"": ""run"", ""threshold"": 1 } ] } },
  ""clips"": { ""walk"": { ""source"": ""builtin:humanoid"", ""curves"": { ""lift"": [[0, 0], [0.5, 2]], ""walk_only"": [[0, 1]] } },
             ""run"": { ""source"": ""builtin:humanoid"", ""curves"": { ""lift"": [[0, 4], [0.5, 4]] } } } }";
}
