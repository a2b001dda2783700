// MiscTests.cs — the smaller calls: switch nodes (triggers, the cross-fade stack), graph hashes,
// XXH64 (known digests), Fix16 helpers, match config accessors, result texts.
using System;
using System.IO;
using System.Text;
using Blendsync;

static class MiscTests
{
    public static void Run()
    {
        // ---- a Switch node: trigger "run" with a 4-tick fade (instance.h: weight k/F after tick t+k-1)
        string sw = T.Write("switch.json", @"{ ""tick_rate"": 30,
  ""parameters"": { ""speed"": { ""default"": 0 } }, ""root"": ""base"",
  ""nodes"": { ""base"": { ""type"": ""Switch"", ""initial"": ""idle"", ""children"": [ { ""motion"": ""idle"" }, { ""motion"": ""run"" } ] } },
  ""clips"": { ""idle"": { ""source"": ""builtin:humanoid"" }, ""run"": { ""source"": ""builtin:humanoid"" } } }");
        using (var gc = GraphConfig.Load(sw))
        using (var inst = new Instance(gc.Graph))
        {
            Graph g = gc.Graph;
            int node = g.FindNode("base");
            var targets = new Fix16[1];
            var e = new SwitchEntry[4];
            var trig = new[] { new SwitchTrigger { SwitchIndex = 0, Child = 1, FadeTicks = 4 } };
            T.Check(g.SwitchCount == 1 && g.SwitchNode(0) == node && g.SwitchOfNode(node) == 0 && g.FindNode("nope") == -1,
                    "switch graph: one switch, on node \"base\"");
            inst.Tick(targets);
            int n0 = inst.SwitchState(0, e);
            T.Check(n0 == 1 && e[0].Child == 0 && e[0].Weight == Fix16.One, "before any trigger: one entry, idle at 1.0");
            inst.Tick(targets, trig, 1);
            int n1 = inst.SwitchState(0, e);
            T.Check(n1 == 2 && e[1].Child == 1 && e[1].Weight.Raw == 16384 && e[0].Weight.Raw == 49152 && e[1].FadeTicks == 4 && e[1].FadeDone == 1,
                    "the trigger tick of a 4-tick fade: run at 1/4, idle at 3/4");
            for (int t = 0; t < 3; t++) inst.Tick(targets);
            int n2 = inst.SwitchState(0, e);
            T.Check(n2 == 1 && e[0].Child == 1 && e[0].Weight == Fix16.One, "3 ticks later the stack has collapsed to run at 1.0");
            var bad = new[] { new SwitchTrigger { SwitchIndex = 0, Child = 7 } };
            T.Throws<BlendsyncException>(() => inst.Tick(targets, bad, 1), x => x.Code == Result.InvalidArgument, "a trigger for child 7 of 2: InvalidArgument");
            T.Throws<BlendsyncException>(() => inst.SwitchState(3, e), x => x.Code == Result.InvalidArgument, "SwitchState of switch 3 of 1: InvalidArgument");
            ulong h1 = g.Hash;
            using (var again = GraphConfig.Load(sw))
                T.Check(h1 != 0 && again.Graph.Hash == h1, "the same config loads to the same graph hash (" + h1.ToString("x16") + ")");
            File.WriteAllText(sw, File.ReadAllText(sw).Replace("\"tick_rate\": 30", "\"tick_rate\": 60"));
            using (var other = GraphConfig.Load(sw))
                T.Check(other.Graph.Hash != h1 && other.Graph.TickRate == 60, "a 60 Hz variant hashes differently");
        }

        // ---- XXH64: known digests, streaming == one-shot
        T.Check(Checksum.Xxh64(new byte[0], 0, 0) == 0xEF46DB3751D8E999ul, "XXH64(\"\", seed 0) = ef46db3751d8e999 (the reference digest)");
        T.Check(Checksum.Xxh64(Encoding.ASCII.GetBytes("abc"), 3, 0) == 0x44BC2CF5AD770999ul, "XXH64(\"abc\", seed 0) = 44bc2cf5ad770999");
        var hs = new ChecksumState();
        Checksum.Init(ref hs, 5);
        Checksum.U32(ref hs, 0x04030201u);
        Checksum.U64(ref hs, 0x0C0B0A0908070605ul);
        T.Check(Checksum.Final(ref hs) == Checksum.Xxh64(new byte[] { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 }, 12, 5),
                "streaming U32 + U64 (little-endian) == one-shot XXH64 of the 12 bytes");

        // ---- Fix16 helpers
        T.Check(Fix16.Lerp(Fix16.Zero, Fix16.FromInt(10), Fix16.Parse("0.25")) == Fix16.Parse("2.5") &&
                Fix16.Clamp(Fix16.FromInt(5), Fix16.Zero, Fix16.One) == Fix16.One && Fix16.One.CompareTo(Fix16.Zero) > 0 &&
                Fix16.FromRaw(Fix16.RawMin) == Fix16.MinValue && Fix16.MaxValue.Raw == Fix16.RawMax && Fix16.One.Raw == Fix16.RawOne,
                "Fix16 Lerp, Clamp, CompareTo, limits");
        var inp = new MatchInput();
        inp.SetTrigger(15, 9);
        inp.SetParam(63, Fix16.One);
        T.Check(inp.GetTrigger(15) == 9 && inp.GetParam(63) == Fix16.One, "MatchInput: the last trigger and parameter slots");
        T.Throws<ArgumentOutOfRangeException>(() => inp.SetTrigger(MatchInput.MaxTriggers, 1), null, "MatchInput trigger 16: out of range");

        // ---- match config accessors
        string dir = Path.Combine(T.Src, "tests", "fixtures", "replay", "v1");
        using (var mc = MatchConfig.Load(Path.Combine(dir, "match.json")))
        using (var m = new Match(mc))
        {
            T.Check(mc.FindTrigger(mc.TriggerName(0)) == 0 && mc.FindTrigger("none") == -1 && mc.InputDelay == 3 &&
                    ReferenceEquals(m.Config, mc) && mc.DurationTicks == 300 && mc.Notes != null,
                    "match config: FindTrigger, input_delay 3 and duration_ticks 300 as in the file");
        }
        T.Check(BlendsyncException.ResultText(Result.ConfigError) == "configuration file is invalid (see the error message)" &&
                (int)Result.IoError == 24, "Result numbers and texts are base.h's (ConfigError, IoError = 24)");
    }
}
