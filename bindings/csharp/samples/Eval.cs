// Eval.cs — `mono Eval.exe CONFIG --script CSV [--ticks N] --hash`: the C# twin of
// `blendsync eval CONFIG --script CSV [--ticks N] --hash` (client/cli/cmd_eval.c). It loads the graph
// config through the binding, drives one instance from the CSV script (EvalScript, the port of the
// CLI's script_csv.c) exactly as the CLI does, and prints the same one line: XXH64 (seed 0) over,
// for every tick t, u64 t, u64 state checksum and (when clips are bound) u64 pose checksum.
// Only --hash output is implemented (not the JSON Lines frames, --out, --replay, --render-rate).
// Exit: 0 success, 2 error (message on stderr).
using System;
using Blendsync;

static class Eval
{
    const ulong MaxTicks = 10000000;

    static int Main(string[] args)
    {
        string config = null, script = null;
        ulong ticks = 0;
        bool ticksGiven = false, hash = false;
        for (int i = 0; i < args.Length; i++)
        {
            string a = args[i];
            if (a == "--hash") hash = true;
            else if (a == "--script" || a == "--ticks")
            {
                if (i + 1 >= args.Length) return Fail(a + " needs a value");
                string v = args[++i];
                if (a == "--script") script = v;
                else if (!ulong.TryParse(v, out ticks) || ticks < 1 || ticks > MaxTicks || v[0] < '0' || v[0] > '9')
                    return Fail("--ticks needs a whole number from 1 to " + MaxTicks + ", not '" + v + "'");
                else ticksGiven = true;
            }
            else if (a.Length > 1 && a[0] == '-') return Fail("unknown option '" + a + "'");
            else if (config == null) config = a;
            else return Fail("one CONFIG file only ('" + a + "' is extra)");
        }
        if (config == null || script == null) return Fail("usage: Eval.exe CONFIG --script INPUT.csv [--ticks N] --hash");
        if (!hash) return Fail("only --hash is implemented (the JSON frames are `blendsync eval`'s)");
        try
        {
            Library.CheckVersion();
            using (var gc = GraphConfig.Load(config))
            {
                Graph g = gc.Graph;
                EvalScript sc = EvalScript.Load(script, g);
                if (!ticksGiven)
                {
                    if (sc.Rows == 0) return Fail(script + ": no rows: give --ticks N");
                    ticks = sc.RowTick(sc.Rows - 1) + 1;
                    if (ticks > MaxTicks) return Fail(script + ": the last tick is beyond " + MaxTicks + " ticks");
                }
                bool posed = gc.BoundClipCount > 0;
                var targets = new Fix16[Math.Max(g.ParameterCount, 1)];
                for (int i = 0; i < g.ParameterCount; i++) targets[i] = g.ParameterDefault(i);
                var triggers = new SwitchTrigger[Math.Max(sc.PlayColumns, 1)];
                var hs = new ChecksumState();
                Checksum.Init(ref hs, 0);
                int row = 0;
                using (var inst = new Instance(g))
                {
                    for (ulong t = 0; t < ticks; t++)
                    {
                        int tn = sc.Apply(ref row, t, targets, triggers);
                        inst.Tick(targets, triggers, tn);
                        Checksum.U64(ref hs, t);
                        Checksum.U64(ref hs, inst.StateChecksum);
                        if (posed) Checksum.U64(ref hs, inst.PoseChecksum());
                    }
                }
                Console.WriteLine(Checksum.Final(ref hs).ToString("x16"));
            }
            return 0;
        }
        catch (BlendsyncException e) { return Fail(e.Message); }
        catch (FormatException e) { return Fail(e.Message); }
    }

    static int Fail(string msg)
    {
        Console.Error.WriteLine("Eval.exe: " + msg);
        return 2;
    }
}
