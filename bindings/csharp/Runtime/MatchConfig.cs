// MatchConfig.cs — match configuration files (io/match_config.h): players, tokens, input layout,
// characters and their graphs, timing. Load from a path or parse from bytes.
using System;

namespace Blendsync
{
    public sealed unsafe class MatchConfig : IDisposable
    {
        internal readonly MatchConfigHandle Handle;
        MatchConfig(MatchConfigHandle h) { Handle = h; }

        /// <summary>Read and load a match config file (graph paths relative to its directory).</summary>
        public static MatchConfig Load(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            var h = new MatchConfigHandle();
            Error err = default(Error);
            IntPtr p;
            int r = Native.bsync_match_config_load(Utf8.Z(path), IntPtr.Zero, out p, &err);
            BlendsyncException.Check(r, ref err);
            h.Set(p);
            return new MatchConfig(h);
        }

        /// <summary>The same from text: <paramref name="name"/> names it in messages; graph paths are
        /// resolved against <paramref name="baseDir"/> (null: the current directory).</summary>
        public static MatchConfig Parse(byte[] text, string name, string baseDir)
        {
            if (text == null) throw new ArgumentNullException("text");
            var h = new MatchConfigHandle();
            Error err = default(Error);
            IntPtr p;
            int r;
            fixed (byte* t = text)
                r = Native.bsync_match_config_parse(t, new UIntPtr((uint)text.Length), Utf8.Z(name), Utf8.Z(baseDir), IntPtr.Zero, out p, &err);
            BlendsyncException.Check(r, ref err);
            h.Set(p);
            return new MatchConfig(h);
        }

        internal IntPtr P { get { return Handle.Ptr(this); } }
        internal IntPtr Desc { get { return Native.bsync_match_config_desc(P); } }

        public ulong MatchId { get { return Native.bsync_match_config_match_id(P); } }
        /// <summary>bsync_match_hash of the desc (what HELLO carries and replays store).</summary>
        public ulong MatchHash { get { return Native.bsync_match_hash(Desc); } }
        public int PlayerCount { get { return (int)Native.bsync_match_config_player_count(P); } }
        public int ParamCount { get { return (int)((uint*)Desc)[1]; } }    // bsync_match_desc.param_count
        public int TriggerCount { get { return (int)((uint*)Desc)[2]; } }  // bsync_match_desc.trigger_count
        public int CharacterCount
        {
            get { int n = 0; while (Native.bsync_match_config_character_graph(P, (uint)n) != IntPtr.Zero) n++; return n; }
        }
        public uint InputDelay { get { return Native.bsync_match_config_input_delay(P); } }
        public uint ChecksumInterval { get { return Native.bsync_match_config_checksum_interval(P); } }
        public uint DurationTicks { get { return Native.bsync_match_config_duration_ticks(P); } }
        public uint TickRate { get { return Native.bsync_match_config_tick_rate(P); } }
        public string Notes { get { return Utf8.Read(Native.bsync_match_config_notes(P)); } }

        /// <summary>The slot's session secret (32 bytes) when the match gives its players secrets, else null.</summary>
        public byte[] Secret(int slot)
        {
            var b = new byte[32];
            fixed (byte* p = b)
                if (Native.bsync_match_config_secret(P, (uint)slot, (IntPtr)p) == 0) return null;
            return b;
        }

        /// <summary>0 plain tokens (insecure), 1 encrypted sessions, 2 authenticated only.</summary>
        public int Session { get { return Native.bsync_match_config_session(P); } }

        public string Token(int slot)
        {
            UIntPtr len;
            IntPtr t = Native.bsync_match_config_token(P, (uint)slot, out len);
            if (t == IntPtr.Zero || len.ToUInt64() == 0) throw new ArgumentOutOfRangeException("slot");
            return Utf8.Read(t);
        }
        public string ParamName(int i) { return Utf8.Read(Native.bsync_match_config_param_name(P, (uint)i)); }
        public string TriggerName(int j) { return Utf8.Read(Native.bsync_match_config_trigger_name(P, (uint)j)); }
        public string CharacterName(int c) { return Utf8.Read(Native.bsync_match_config_character_name(P, (uint)c)); }
        /// <summary>The player slot whose inputs drive character c; -1 for an NPC.</summary>
        public int CharacterSlot(int c)
        {
            if ((uint)c >= (uint)CharacterCount) throw new ArgumentOutOfRangeException("c");
            uint s = Native.bsync_match_config_character_slot(P, (uint)c);
            return s < MatchFrame.MaxPlayers ? (int)s : -1;
        }
        /// <summary>Character c's graph (shared by characters naming the same file).</summary>
        public Graph CharacterGraph(int c)
        {
            IntPtr gc = Native.bsync_match_config_character_graph(P, (uint)c);
            if (gc == IntPtr.Zero) throw new ArgumentOutOfRangeException("c");
            return new Graph(Native.bsync_graph_config_graph(gc), Handle, this);
        }
        /// <summary>Input parameter index by name, -1 when none.</summary>
        public int FindParam(string name)
        {
            for (int i = 0; i < ParamCount; i++) if (ParamName(i) == name) return i;
            return -1;
        }
        public int FindTrigger(string name)
        {
            for (int j = 0; j < TriggerCount; j++) if (TriggerName(j) == name) return j;
            return -1;
        }

        /// <summary>The seeded joystick script's next record (bsync_match_random_input: NPCs, bots).</summary>
        public void RandomInput(ref MatchScript script, ref MatchInput output)
        {
            IntPtr d = Desc;
            fixed (MatchScript* s = &script) fixed (MatchInput* o = &output) Native.bsync_match_random_input(s, d, o);
        }
        public static MatchScript NewScript(ulong seed)
        {
            MatchScript s;
            Native.bsync_match_script_init(&s, seed);
            return s;
        }

        public void Dispose() { Handle.Dispose(); }
    }
}
