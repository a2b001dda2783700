// EvalScript.cs — the CSV parameter script of `blendsync eval` (client/cli/script_csv.h), ported so a
// C# program drives an instance exactly as the CLI does: header `tick,PARAM,...` (and `play:NODE`
// columns of Switch nodes), rows `TICK,VALUE,...` with strictly increasing ticks; a row sets its
// cells' targets from its tick on (empty cell: unchanged), play cells `STATE [fade=N] [carry]
// [inertialize]` trigger in that tick only. Values are exact decimals (Fix16.TryParse, the port of
// bsync_fx_parse). Errors throw FormatException("SCRIPT:LINE:COLUMN: message") as the CLI words them.
// Parsing allocates; Apply (per tick) does not.
using System;
using System.Collections.Generic;
using System.Text;

namespace Blendsync
{
    public sealed class EvalScript
    {
        const uint MaxFadeTicks = 0x100000;
        int[] paramOfColumn = new int[0];
        int[] switchOfPlayColumn = new int[0];
        readonly List<ulong> ticks = new List<ulong>();
        readonly List<Fix16[]> values = new List<Fix16[]>();
        readonly List<bool[]> given = new List<bool[]>();
        readonly List<SwitchTrigger[]> plays = new List<SwitchTrigger[]>();
        readonly List<bool[]> playGiven = new List<bool[]>();

        public int Rows { get { return ticks.Count; } }
        public ulong RowTick(int r) { return ticks[r]; }
        public int PlayColumns { get { return switchOfPlayColumn.Length; } }

        public static EvalScript Load(string path, Graph graph)
        {
            byte[] text;
            try { text = System.IO.File.ReadAllBytes(path); }
            catch (Exception e) { throw new FormatException(path + ": cannot read: " + e.Message); }
            return Parse(path, Encoding.UTF8.GetString(text), graph);
        }

        public static EvalScript Parse(string name, string text, Graph graph)
        {
            var s = new EvalScript();
            var paramCols = new List<int>();
            var playCols = new List<int>();
            int[] kind = null, kidx = null;
            int fields = 0;
            bool headerDone = false;
            string[] lines = text.Split('\n');
            for (int li = 0; li < lines.Length; li++)
            {
                int lineno = li + 1;
                string line = lines[li];
                if (line.Length > 0 && line[line.Length - 1] == '\r') line = line.Substring(0, line.Length - 1);
                if (line.Trim(' ', '\t').Length == 0) continue;
                var st = new List<int>();
                var fl = new List<int>();
                Split(line, st, fl);
                int n = st.Count;
                if (!headerDone)
                {
                    if (fl[0] != 4 || string.CompareOrdinal(line, st[0], "tick", 0, 4) != 0)
                        throw Err(name, lineno, st[0] + 1, "the first column must be \"tick\" (header: tick,PARAM,...)");
                    kind = new int[n];
                    kidx = new int[n];
                    for (int c = 1; c < n; c++)
                    {
                        if (fl[c] == 0 || fl[c] >= 72) throw Err(name, lineno, st[c] + 1, "expected a parameter name");
                        string col = line.Substring(st[c], fl[c]);
                        if (col.StartsWith("play:", StringComparison.Ordinal))
                        {
                            string nodeName = col.Substring(5);
                            int node = graph.FindNode(nodeName);
                            if (node < 0) throw Err(name, lineno, st[c] + 1, "\"" + col + "\": no node named \"" + nodeName + "\"");
                            int sw = graph.SwitchOfNode(node);
                            if (sw < 0) throw Err(name, lineno, st[c] + 1, "\"" + col + "\": node \"" + nodeName + "\" is not a Switch node");
                            if (playCols.Contains(sw)) throw Err(name, lineno, st[c] + 1, "duplicate column \"" + col + "\"");
                            kind[c] = 1;
                            kidx[c] = playCols.Count;
                            playCols.Add(sw);
                            continue;
                        }
                        int p = graph.FindParameter(col);
                        if (p < 0) throw Err(name, lineno, st[c] + 1, "unknown parameter \"" + col + "\"");
                        if (paramCols.Contains(p)) throw Err(name, lineno, st[c] + 1, "duplicate column \"" + col + "\"");
                        kind[c] = 0;
                        kidx[c] = paramCols.Count;
                        paramCols.Add(p);
                    }
                    fields = n;
                    s.paramOfColumn = paramCols.ToArray();
                    s.switchOfPlayColumn = playCols.ToArray();
                    headerDone = true;
                    continue;
                }
                if (n != fields) throw Err(name, lineno, 1, "expected " + fields + " fields (as the header), found " + n);
                ulong t = 0;
                bool ok = fl[0] > 0 && fl[0] <= 9;
                for (int i = 0; ok && i < fl[0]; i++)
                {
                    char ch = line[st[0] + i];
                    if (ch < '0' || ch > '9') ok = false;
                    else t = t * 10 + (ulong)(ch - '0');
                }
                if (!ok) throw Err(name, lineno, st[0] + 1, "tick must be a whole number from 0 to 999999999, not \"" + line.Substring(st[0], fl[0]) + "\"");
                if (s.ticks.Count > 0 && t <= s.ticks[s.ticks.Count - 1])
                    throw Err(name, lineno, st[0] + 1, "tick " + t + " does not follow the previous row's tick " + s.ticks[s.ticks.Count - 1]);
                var v = new Fix16[paramCols.Count];
                var g = new bool[paramCols.Count];
                var pv = new SwitchTrigger[playCols.Count];
                var pg = new bool[playCols.Count];
                for (int f = 1; f < n; f++)
                {
                    if (fl[f] == 0) continue;
                    string cell = line.Substring(st[f], fl[f]);
                    if (kind[f] == 1)
                    {
                        pv[kidx[f]] = ParsePlay(name, lineno, cell, st[f], graph, playCols[kidx[f]]);
                        pg[kidx[f]] = true;
                        continue;
                    }
                    Fix16 x;
                    Result r = Fix16.TryParse(cell, out x);
                    if (r == Result.Overflow) throw Err(name, lineno, st[f] + 1, cell + " is outside the fixed-point range (-32767.99998 to 32767.99998)");
                    if (r != Result.Ok) throw Err(name, lineno, st[f] + 1, "\"" + cell + "\" is not a number (column \"" + graph.ParameterName(paramCols[kidx[f]]) + "\")");
                    v[kidx[f]] = x;
                    g[kidx[f]] = true;
                }
                s.ticks.Add(t);
                s.values.Add(v);
                s.given.Add(g);
                s.plays.Add(pv);
                s.playGiven.Add(pg);
            }
            if (!headerDone) throw new FormatException(name + ": empty script (expected a header line \"tick,PARAM,...\")");
            return s;
        }

        /// <summary>If row <paramref name="row"/> is for tick t: its cells into targets (by parameter index),
        /// its triggers into triggers (PlayColumns entries), row advanced. Returns the trigger count.</summary>
        public int Apply(ref int row, ulong t, Fix16[] targets, SwitchTrigger[] triggers)
        {
            int n = 0;
            if (row < ticks.Count && ticks[row] == t)
            {
                Fix16[] v = values[row];
                bool[] g = given[row];
                for (int c = 0; c < paramOfColumn.Length; c++) if (g[c]) targets[paramOfColumn[c]] = v[c];
                SwitchTrigger[] pv = plays[row];
                bool[] pg = playGiven[row];
                for (int c = 0; c < pv.Length; c++) if (pg[c] && triggers != null) triggers[n++] = pv[c];
                row++;
            }
            return n;
        }

        static void Split(string line, List<int> start, List<int> len)
        {
            int i = 0, n = line.Length;
            for (;;)
            {
                int b = i;
                while (i < n && line[i] != ',') i++;
                int e = i;
                while (b < e && (line[b] == ' ' || line[b] == '\t')) b++;
                while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t')) e--;
                start.Add(b);
                len.Add(e - b);
                if (i >= n) break;
                i++;
            }
        }

        static SwitchTrigger ParsePlay(string name, int lineno, string cell, int col0, Graph graph, int sw)
        {
            int node = graph.SwitchNode(sw);
            int cc = graph.NodeChildCount(node);
            var t = new SwitchTrigger { SwitchIndex = (uint)sw };
            bool haveFade = false, haveCarry = false;
            int inertCol = 0, tok = 0, i = 0;
            while (i < cell.Length)
            {
                while (i < cell.Length && (cell[i] == ' ' || cell[i] == '\t')) i++;
                if (i >= cell.Length) break;
                int b = i;
                while (i < cell.Length && cell[i] != ' ' && cell[i] != '\t') i++;
                string w = cell.Substring(b, i - b);
                int col = col0 + b + 1;
                if (tok++ == 0)
                {
                    int found = -1;
                    for (int k = 0; k < cc && found < 0; k++) if (graph.NodeChildName(node, k) == w) found = k;
                    if (found < 0) throw Err(name, lineno, col, "no state \"" + w + "\" in switch \"" + graph.NodeName(node) + "\"");
                    t.Child = (uint)found;
                }
                else if (w.Length > 5 && w.StartsWith("fade=", StringComparison.Ordinal) && !haveFade)
                {
                    ulong v = 0;
                    bool ok = w.Length - 5 <= 8;
                    for (int k = 5; ok && k < w.Length; k++)
                    {
                        if (w[k] < '0' || w[k] > '9') ok = false;
                        else v = v * 10 + (ulong)(w[k] - '0');
                    }
                    if (!ok || v > MaxFadeTicks) throw Err(name, lineno, col + 5, "fade must be a whole number of ticks from 0 to " + MaxFadeTicks + ", not \"" + w.Substring(5) + "\"");
                    t.FadeTicks = (uint)v;
                    haveFade = true;
                }
                else if (w == "carry" && !haveCarry) { t.CarryTime = 1; haveCarry = true; }
                else if (w == "inertialize" && inertCol == 0) { t.Inertialize = 1; inertCol = col; }
                else throw Err(name, lineno, col, "unexpected \"" + w + "\" (a play cell is: STATE [fade=N] [carry], each option once)");
            }
            if (inertCol != 0 && t.FadeTicks == 0) throw Err(name, lineno, inertCol, "inertialize needs fade=N with N from 1 to " + MaxFadeTicks + " (the decay length)");
            if (inertCol != 0 && graph.JointCount == 0) throw Err(name, lineno, inertCol, "inertialize needs a graph with a skeleton (it offsets the pose)");
            return t;
        }

        static FormatException Err(string name, int line, int col, string msg)
        {
            return new FormatException(name + ":" + line + ":" + col + ": " + msg);
        }
    }
}
