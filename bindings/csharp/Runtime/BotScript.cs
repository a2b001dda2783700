// BotScript.cs — the joystick path of `blendsync bot --script` (client/cli/cmd_bot.c), ported: a CSV
// keyed by input tick. Header "tick,NAME,..." naming input parameters or triggers of the match
// config; rows "TICK,VALUE,..." with strictly increasing ticks; a row sets its columns from its tick
// on (an empty cell keeps the value); parameter values are exact decimals (Fix16.TryParse), trigger
// values integers 0..255 that fire only on their row's tick. Errors throw FormatException with the
// C bot's wording ("FILE:LINE: ..."). Loading allocates; Input (per tick) does not.
using System;
using System.Collections.Generic;
using System.IO;

namespace Blendsync
{
    public sealed class BotScript
    {
        readonly List<bool> isTrigger = new List<bool>();
        readonly List<int> index = new List<int>();
        readonly List<uint> ticks = new List<uint>();
        readonly List<int[]> values = new List<int[]>();
        readonly List<bool[]> given = new List<bool[]>();

        public static BotScript Load(string path, MatchConfig mc)
        {
            string[] lines;
            try { lines = File.ReadAllLines(path); }
            catch (Exception) { throw new FormatException(path + ": cannot read"); }
            var s = new BotScript();
            bool header = true;
            uint last = 0;
            for (int li = 0; li < lines.Length; li++)
            {
                int lineno = li + 1;
                string line = lines[li];
                if (line.Length == 0) continue;
                string[] f = line.Split(',');
                for (int k = 0; k < f.Length; k++) f[k] = f[k].Trim(' ', '\t', '\r', '\n');
                if (header)
                {
                    if (f[0] != "tick") throw new FormatException(path + ":" + lineno + ": the header must start with \"tick\"");
                    for (int k = 1; k < f.Length; k++)
                    {
                        int p = mc.FindParam(f[k]), t = p < 0 ? mc.FindTrigger(f[k]) : -1;
                        if ((p < 0 && t < 0) || s.index.Count == MatchInput.MaxParams + MatchInput.MaxTriggers)
                            throw new FormatException(path + ":" + lineno + ": \"" + f[k] + "\" is not an input parameter or trigger of the match");
                        s.isTrigger.Add(p < 0);
                        s.index.Add(p >= 0 ? p : t);
                    }
                    header = false;
                    continue;
                }
                ulong tick;
                if (!ParseU64(f[0], out tick) || tick > uint.MaxValue || (s.ticks.Count > 0 && tick <= last))
                    throw new FormatException(path + ":" + lineno + ": expected a tick greater than the previous row's");
                int cols = s.index.Count;
                var v = new int[cols];
                var g = new bool[cols];
                for (int k = 0; k < cols; k++)
                {
                    string cell = k + 1 < f.Length ? f[k + 1] : "";
                    if (cell.Length == 0) continue;
                    if (s.isTrigger[k])
                    {
                        ulong u;
                        if (!ParseU64(cell, out u) || u > 255)
                            throw new FormatException(path + ":" + lineno + ": trigger value \"" + cell + "\": expected 0..255");
                        v[k] = (int)u;
                    }
                    else
                    {
                        Fix16 x;
                        if (Fix16.TryParse(cell, out x) != Result.Ok || x.Raw == int.MinValue)
                            throw new FormatException(path + ":" + lineno + ": \"" + cell + "\" is not a number in the fix16 range");
                        v[k] = x.Raw;
                    }
                    g[k] = true;
                }
                s.ticks.Add((uint)tick);
                s.values.Add(v);
                s.given.Add(g);
                last = (uint)tick;
            }
            return s;
        }

        /// <summary>The input for tick t: parameters from the last row at or before t, triggers only on
        /// a row's own tick.</summary>
        public void Input(uint t, ref MatchInput input)
        {
            input.Clear();
            for (int r = 0; r < ticks.Count && ticks[r] <= t; r++)
            {
                int[] v = values[r];
                bool[] g = given[r];
                for (int k = 0; k < v.Length; k++)
                {
                    if (!g[k]) continue;
                    if (!isTrigger[k]) input.SetParam(index[k], Fix16.FromRaw(v[k]));
                    else if (ticks[r] == t) input.SetTrigger(index[k], (byte)v[k]);
                }
            }
        }

        // strtoull-like as cmd_bot.c's parse_u64: digits only (no sign), the whole text.
        static bool ParseU64(string s, out ulong v)
        {
            v = 0;
            if (s.Length == 0) return false;
            foreach (char c in s)
            {
                if (c < '0' || c > '9') return false;
                ulong d = (ulong)(c - '0');
                if (v > (ulong.MaxValue - d) / 10) return false;
                v = v * 10 + d;
            }
            return true;
        }
    }
}
