// BotScript.cs — the input script of `blendsync bot --script` (io/script.h bsync_script_parse_inputs /
// _load_inputs / _input; docs/scripts.md): a CSV keyed by input tick, header "tick,NAME,..." naming
// input parameters or triggers of the match config, rows "TICK,VALUE,..." by strictly increasing
// tick; a row sets its columns from its tick on (an empty cell keeps the value), trigger values
// 0..255 fire only on their row's tick. The C library parses it, so the C# bot plays exactly the C
// bot's path. Errors throw FormatException with the library's (the C bot's) message ("FILE:LINE:
// ..."). Loading allocates (native memory, freed by Dispose or the finalizer); Input (per tick) does not.
using System;
using System.Text;

namespace Blendsync
{
    public sealed unsafe class BotScript : IDisposable
    {
        readonly ScriptHandle handle;
        BotScript(ScriptHandle h) { handle = h; }

        public static BotScript Load(string path, MatchConfig mc)
        {
            if (path == null) throw new ArgumentNullException("path");
            if (mc == null) throw new ArgumentNullException("mc");
            var h = new ScriptHandle();
            Error err = default(Error);
            IntPtr p;
            int r = Native.bsync_script_load_inputs(Utf8.Z(path), mc.P, IntPtr.Zero, out p, &err);
            EvalScript.Check(r, ref err);
            h.Set(p);
            return new BotScript(h);
        }

        /// <summary>The same from text (UTF-8 encoded); <paramref name="name"/> names it in messages.</summary>
        public static BotScript Parse(string name, string text, MatchConfig mc)
        {
            if (text == null) throw new ArgumentNullException("text");
            if (mc == null) throw new ArgumentNullException("mc");
            byte[] b = Encoding.UTF8.GetBytes(text);
            var h = new ScriptHandle();
            Error err = default(Error);
            IntPtr p;
            int r;
            fixed (byte* t = b)
                r = Native.bsync_script_parse_inputs(t, new UIntPtr((uint)b.Length), Utf8.Z(name), mc.P, IntPtr.Zero, out p, &err);
            EvalScript.Check(r, ref err);
            h.Set(p);
            return new BotScript(h);
        }

        /// <summary>The input for tick t: parameters from the last row at or before t, triggers only on
        /// a row's own tick.</summary>
        public void Input(uint t, ref MatchInput input)
        {
            IntPtr p = handle.Ptr(this);
            fixed (MatchInput* ip = &input) Native.bsync_script_input(p, t, ip);
        }

        public void Dispose() { handle.Dispose(); }
    }
}
