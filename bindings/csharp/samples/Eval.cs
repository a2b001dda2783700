// Eval.cs — `mono Eval.exe CONFIG --script CSV [--ticks N] [--hash]`: the C# twin of
// `blendsync eval CONFIG --script CSV [--ticks N] --hash` (client/cli/cmd_eval.c). It loads the graph
// config through the binding, drives one instance from the CSV script (EvalScript: the library's
// graph script, io/script.h) exactly as the CLI does, and prints the same one line: XXH64 (seed 0) over,
// for every tick t, u64 t, u64 state checksum and (when clips are bound) u64 pose checksum.
// Without --hash it prints the CLI's JSON Lines frames (params, weights, phase, switches,
// root_motion, actions, curves, checksums; decimals by Fix16.ToString, the port of bsync_fx_format), byte for byte.
// The loader's notes go to stderr as "note: ..." lines, as the CLI prints them.
// Not implemented: --out, --replay, --render-rate.
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
        if (config == null || script == null) return Fail("usage: Eval.exe CONFIG --script INPUT.csv [--ticks N] [--hash]");
        try
        {
            Library.CheckVersion();
            using (var gc = GraphConfig.Load(config))
            {
                Graph g = gc.Graph;
                foreach (string note in gc.Notes.Split('\n'))
                    if (note.Length > 0) Console.Error.WriteLine("note: " + note);
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
                var stdout = new System.IO.StreamWriter(Console.OpenStandardOutput(), new System.Text.UTF8Encoding(false), 1 << 16);
                var line = new System.Text.StringBuilder(4096);
                var weights = new Fix16[Math.Max(g.MotionCount, 1)];
                var stack = new SwitchEntry[4];
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
                        ulong pose = posed ? inst.PoseChecksum() : 0;
                        if (posed) Checksum.U64(ref hs, pose);
                        if (!hash) { Frame(line, t, g, inst, weights, stack, pose, posed); stdout.Write(line.ToString()); }
                    }
                }
                if (hash) stdout.Write(Checksum.Final(ref hs).ToString("x16") + "\n");
                stdout.Flush();
            }
            return 0;
        }
        catch (BlendsyncException e) { return Fail(e.Message); }
        catch (FormatException e) { return Fail(e.Message); }
    }

    static ActionReport[] actions = new ActionReport[16];

    // One line of cmd_eval.c's JSON Lines output for the tick just run.
    static void Frame(System.Text.StringBuilder o, ulong t, Graph g, Instance inst, Fix16[] w, SwitchEntry[] e, ulong pose, bool posed)
    {
        o.Length = 0;
        o.Append("{\"tick\": ").Append(t).Append(", \"params\": {");
        for (int i = 0; i < g.ParameterCount; i++) { if (i > 0) o.Append(", "); Str(o, g.ParameterName(i)); o.Append(": ").Append(inst.Parameter(i)); }
        o.Append("}, \"weights\": {");
        inst.LeafWeights(w);
        for (int m = 0; m < g.MotionCount; m++) { if (m > 0) o.Append(", "); Str(o, g.MotionName(m)); o.Append(": ").Append(w[m]); }
        o.Append("}, \"phase\": {");
        for (int n = 0; n < g.NodeCount; n++) { if (n > 0) o.Append(", "); Str(o, g.NodeName(n)); o.Append(": ").Append(inst.NodePhase(n)); }
        o.Append("}");
        if (g.SwitchCount > 0)
        {
            o.Append(", \"switches\": {");
            for (int i = 0; i < g.SwitchCount; i++)
            {
                int node = g.SwitchNode(i), en = inst.SwitchState(i, e);
                if (i > 0) o.Append(", ");
                Str(o, g.NodeName(node));
                o.Append(": [");
                for (int k = 0; k < en; k++)
                {
                    o.Append(k > 0 ? ", [" : "[");
                    Str(o, g.NodeChildName(node, (int)e[k].Child));
                    o.Append(", ").Append(e[k].Weight).Append("]");
                }
                o.Append("]");
            }
            o.Append("}");
        }
        if (g.ExtractsRootMotion)
        {
            RootMotion rm = inst.RootMotion;
            o.Append(", \"root_motion\": [").Append(rm.Translation.X).Append(", ").Append(rm.Translation.Y).Append(", ")
             .Append(rm.Translation.Z).Append(", ").Append(rm.Rotation.X).Append(", ").Append(rm.Rotation.Y).Append(", ")
             .Append(rm.Rotation.Z).Append(", ").Append(rm.Rotation.W).Append("]");
        }
        if (g.ActionCount > 0)
        {
            int an = inst.ActionCount;
            if (actions.Length < an) actions = new ActionReport[an];
            inst.Actions(actions);
            o.Append(", \"actions\": [");
            for (int i = 0; i < an; i++)
            {
                ActionReport r = actions[i];
                GraphAction a = g.Action((int)r.Action);
                o.Append(i > 0 ? ", {" : "{");
                o.Append("\"name\": "); Str(o, a.Name);
                o.Append(", \"motion\": "); Str(o, g.MotionName(a.Motion));
                o.Append(", \"node\": "); Str(o, g.NodeName((int)r.Node));
                o.Append(", \"child\": ").Append(r.Child);
                if (r.Kind == (uint)ActionKind.Event) o.Append(", \"kind\": \"event\", \"count\": ").Append(r.Count);
                else o.Append(", \"kind\": \"range\", \"enters\": ").Append(r.Count).Append(", \"exits\": ").Append(r.Exits)
                      .Append(", \"active\": ").Append(r.Active);
                o.Append(", \"payload\": ").Append(r.Payload).Append("}");
            }
            o.Append("]");
        }
        if (g.CurveChannelCount > 0)
        {
            o.Append(", \"curves\": {");
            for (int ch = 0; ch < g.CurveChannelCount; ch++)
            {
                if (ch > 0) o.Append(", ");
                Str(o, g.CurveChannelName(ch));
                o.Append(": ").Append(inst.Curve(ch));
            }
            o.Append("}");
        }
        o.Append(", \"state_checksum\": \"").Append(inst.StateChecksum.ToString("x16")).Append("\"");
        if (posed) o.Append(", \"pose_checksum\": \"").Append(pose.ToString("x16")).Append("\"");
        o.Append("}\n");
    }

    // cmd_eval.c's json_string: quote and backslash escaped, control bytes as \u00XX.
    static void Str(System.Text.StringBuilder o, string s)
    {
        o.Append('"');
        foreach (char c in s)
        {
            if (c == '"' || c == '\\') o.Append('\\').Append(c);
            else if (c < 0x20) o.Append("\\u").Append(((int)c).ToString("x4"));
            else o.Append(c);
        }
        o.Append('"');
    }

    static int Fail(string msg)
    {
        Console.Error.WriteLine("Eval.exe: " + msg);
        return 2;
    }
}
