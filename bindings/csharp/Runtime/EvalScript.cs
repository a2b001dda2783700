// EvalScript.cs — the graph script of `blendsync eval` (io/script.h bsync_script_parse / _load /
// _apply; docs/scripts.md): header `tick,PARAM,...` and `play:NODE` columns of Switch nodes, rows
// `TICK,VALUE,...` by strictly increasing tick; a row sets its cells' targets from its tick on, play
// cells `STATE [fade=N] [carry] [inertialize]` trigger in that tick only. The C library parses it, so
// C# drives an instance exactly as the CLI does. Errors throw FormatException with the library's
// message ("SCRIPT:LINE:COLUMN: message", columns counting UTF-8 bytes). Parsing allocates (native
// memory, freed by Dispose or the finalizer); Apply (per tick) does not.
using System;
using System.Text;

namespace Blendsync
{
    public sealed unsafe class EvalScript : IDisposable
    {
        readonly ScriptHandle handle;
        readonly int parameterCount;
        EvalScript(ScriptHandle h, int parameterCount) { handle = h; this.parameterCount = parameterCount; }

        public static EvalScript Load(string path, Graph graph)
        {
            if (path == null) throw new ArgumentNullException("path");
            if (graph == null) throw new ArgumentNullException("graph");
            var h = new ScriptHandle();
            Error err = default(Error);
            IntPtr p;
            int r = Native.bsync_script_load(Utf8.Z(path), graph.P, IntPtr.Zero, out p, &err);
            Check(r, ref err);
            h.Set(p);
            return new EvalScript(h, graph.ParameterCount);
        }

        /// <summary>The same from text (UTF-8 encoded); <paramref name="name"/> names it in messages.</summary>
        public static EvalScript Parse(string name, string text, Graph graph)
        {
            if (text == null) throw new ArgumentNullException("text");
            if (graph == null) throw new ArgumentNullException("graph");
            byte[] b = Encoding.UTF8.GetBytes(text);
            var h = new ScriptHandle();
            Error err = default(Error);
            IntPtr p;
            int r;
            fixed (byte* t = b)
                r = Native.bsync_script_parse(t, new UIntPtr((uint)b.Length), Utf8.Z(name), graph.P, IntPtr.Zero, out p, &err);
            Check(r, ref err);
            h.Set(p);
            return new EvalScript(h, graph.ParameterCount);
        }

        IntPtr P { get { return handle.Ptr(this); } }
        public int Rows { get { return (int)Native.bsync_script_row_count(P).ToUInt64(); } }
        public ulong RowTick(int r)
        {
            if (r < 0 || r >= Rows) throw new ArgumentOutOfRangeException("r");
            return Native.bsync_script_row_tick(P, new UIntPtr((uint)r));
        }
        public int PlayColumns { get { return (int)Native.bsync_script_play_column_count(P); } }

        /// <summary>If row <paramref name="row"/> is for tick t: its cells into targets (by parameter index),
        /// its triggers into triggers (PlayColumns entries; null: none), row advanced. Returns the trigger count.</summary>
        public int Apply(ref int row, ulong t, Fix16[] targets, SwitchTrigger[] triggers)
        {
            IntPtr p = P;
            if (targets == null || targets.Length < parameterCount) throw new ArgumentException("targets needs " + parameterCount + " entries");
            if (triggers != null && triggers.Length < PlayColumns) throw new ArgumentException("triggers needs " + PlayColumns + " entries");
            if (row < 0) throw new ArgumentOutOfRangeException("row");
            UIntPtr at = new UIntPtr((uint)row);
            uint n;
            fixed (Fix16* tp = targets) fixed (SwitchTrigger* tr = triggers)
                n = Native.bsync_script_apply(p, &at, t, tp, tr);
            row = (int)at.ToUInt64();
            return (int)n;
        }

        public void Dispose() { handle.Dispose(); }

        // The library's message as FormatException (a bad script or an unreadable file), other codes as BlendsyncException.
        internal static void Check(int r, ref Error err)
        {
            if (r == (int)Result.ParseError || r == (int)Result.IoError)
            {
                string msg;
                fixed (Error* e = &err) msg = Utf8.Read(e->Message, 512);
                throw new FormatException(msg);
            }
            BlendsyncException.Check(r, ref err);
        }
    }
}
