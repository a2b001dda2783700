// ScriptTests.cs — EvalScript and BotScript call the C library's script parsers (io/script.h): rows,
// ticks, applied targets and triggers, inputs per tick, and the library's messages as FormatException.
using System;
using System.IO;
using Blendsync;

static class ScriptTests
{
    public static void Run()
    {
        string demo = Path.Combine(T.Src, "scripts", "demo");
        using (var gc = GraphConfig.Load(Path.Combine(demo, "humanoid_locomotion.json")))
        {
            Graph g = gc.Graph;
            int speed = g.FindParameter("speed");
            using (var sc = EvalScript.Parse("s.csv", "tick,speed,play:upper\r\n0,1.5,\n\n3, ,wave fade=4 carry\n", g))
            {
                T.Check(sc.Rows == 2 && sc.RowTick(0) == 0 && sc.RowTick(1) == 3 && sc.PlayColumns == 1,
                        "EvalScript: 2 rows (ticks 0 and 3), 1 play column");
                var targets = new Fix16[g.ParameterCount];
                var trig = new SwitchTrigger[1];
                int row = 0;
                int n0 = sc.Apply(ref row, 0, targets, trig);
                T.Check(n0 == 0 && row == 1 && targets[speed].Raw == 98304, "Apply(0): speed 1.5, no trigger, next row");
                targets[speed] = Fix16.FromRaw(7);
                int n1 = sc.Apply(ref row, 1, targets, trig);
                T.Check(n1 == 0 && row == 1 && targets[speed].Raw == 7, "Apply(1): no row for tick 1, nothing changes");
                int n3 = sc.Apply(ref row, 3, targets, trig);
                T.Check(n3 == 1 && row == 2 && targets[speed].Raw == 7 && trig[0].Child == 1 && trig[0].FadeTicks == 4 &&
                        trig[0].CarryTime == 1 && trig[0].Inertialize == 0 && trig[0].SwitchIndex == 0,
                        "Apply(3): the empty cell keeps speed; one trigger: wave (child 1), fade 4, carry");
                T.Throws<ArgumentException>(() => sc.Apply(ref row, 4, new Fix16[0], trig), null, "Apply: a too short targets array throws");
            }
            T.Throws<FormatException>(() => EvalScript.Parse("typo.csv", "tick,sped\n0,1\n", g),
                                      e => e.Message.StartsWith("typo.csv:1:6: unknown parameter \"sped\" (parameters: "),
                                      "EvalScript: the library's message for an unknown column (typo.csv:1:6)");
            T.Throws<FormatException>(() => EvalScript.Parse("p.csv", "tick,play:upper\n0,wave fade=x\n", g),
                                      e => e.Message == "p.csv:2:13: fade must be a whole number of ticks from 0 to 1048576, not \"x\"",
                                      "EvalScript: a bad play cell, column counted in bytes");
            T.Throws<FormatException>(() => EvalScript.Load(Path.Combine(T.Work, "none.csv"), g),
                                      e => e.Message.EndsWith("none.csv: cannot read: No such file or directory"),
                                      "EvalScript.Load: a missing file");
            var disposed = EvalScript.Parse("d.csv", "tick,speed\n0,1\n", g);
            disposed.Dispose();
            T.Throws<ObjectDisposedException>(() => disposed.RowTick(0), null, "EvalScript: use after Dispose throws");
        }
        using (var mc = MatchConfig.Load(Path.Combine(demo, "match.json")))
        {
            using (var bs = BotScript.Parse("b.csv", "tick, speed ,action\n0,1.4,\n+5,,2\n", mc))
            {
                var input = new MatchInput();
                input.SetTrigger(0, 9);
                bs.Input(0, ref input);
                bool at0 = input.GetParam(0).Raw == 91750 && input.GetTrigger(0) == 0;
                bs.Input(5, ref input);
                bool at5 = input.GetParam(0).Raw == 91750 && input.GetTrigger(0) == 2;
                bs.Input(6, ref input);
                bool at6 = input.GetParam(0).Raw == 91750 && input.GetTrigger(0) == 0 && input.GetParam(1).Raw == 0;
                T.Check(at0 && at5 && at6, "BotScript: speed 1.4 from tick 0 on; trigger 2 at tick 5 (\"+5\", as the C bot) only");
            }
            T.Throws<FormatException>(() => BotScript.Parse("b.csv", "tick,sped\n0,1\n", mc),
                                      e => e.Message == "b.csv:1: \"sped\" is not an input parameter or trigger of the match",
                                      "BotScript: the C bot's message for an unknown column");
            T.Throws<FormatException>(() => BotScript.Parse("b.csv", "tick,action\n0,256\n", mc),
                                      e => e.Message == "b.csv:2: trigger value \"256\": expected 0..255",
                                      "BotScript: a trigger value above 255");
            T.Throws<FormatException>(() => BotScript.Load(Path.Combine(T.Work, "none.csv"), mc),
                                      e => e.Message.EndsWith("none.csv: cannot read"), "BotScript.Load: a missing file");
        }
    }
}
