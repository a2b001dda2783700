// Match.cs — the deterministic simulation of a whole match (match.h): every character ticked from one
// frame of player inputs, match checksums, snapshots, per-character instances and joint checksums.
// The match lives in unmanaged memory the object owns (or, for Client.Match, in the client).
using System;
using System.Runtime.InteropServices;

namespace Blendsync
{
    /// <summary>One bsync_match_frame in unmanaged memory, filled in place: allocate one and reuse it
    /// every tick (no per-tick allocation).</summary>
    public sealed unsafe class MatchFrameBuffer : IDisposable
    {
        readonly NativeMemoryHandle memory = new NativeMemoryHandle(sizeof(MatchFrame));
        public MatchFrameBuffer(int playerCount) { PlayerCount = playerCount; }
        internal MatchFrame* Ptr { get { return (MatchFrame*)memory.Ptr(this); } }
        public int PlayerCount
        {
            get { return (int)Ptr->PlayerCount; }
            set { if ((uint)value > MatchFrame.MaxPlayers) throw new ArgumentOutOfRangeException("value"); Ptr->PlayerCount = (uint)value; }
        }
        /// <summary>Player slot's input, by reference into the buffer.</summary>
        public ref MatchInput Player(int slot)
        {
            if ((uint)slot >= MatchFrame.MaxPlayers) throw new ArgumentOutOfRangeException("slot");
            return ref *(MatchInput*)((byte*)Ptr + 4 + slot * sizeof(MatchInput));
        }
        public void Clear() { for (int s = 0; s < MatchFrame.MaxPlayers; s++) Player(s).Clear(); }
        public void Dispose() { memory.Dispose(); }
    }

    public sealed unsafe class Match : IDisposable
    {
        readonly NativeMemoryHandle memory;   // null for a client's match
        readonly BlendsyncHandle owner;       // the config (AddRef'ed) or the client
        readonly object ownerObject;
        readonly MatchConfig config;
        readonly IntPtr match;
        bool disposed;

        /// <summary>A new match of <paramref name="config"/>'s desc at tick 0.</summary>
        public Match(MatchConfig config)
        {
            if (config == null) throw new ArgumentNullException("config");
            IntPtr desc = config.Desc;
            long size = (long)Native.bsync_match_memory_size(desc).ToUInt64();
            if (size == 0) throw new BlendsyncException(Result.InvalidArgument, "bsync_match_memory_size: invalid desc");
            memory = new NativeMemoryHandle(size);
            bool added = false;
            config.Handle.DangerousAddRef(ref added);
            owner = config.Handle;
            ownerObject = config;
            this.config = config;
            IntPtr p;
            int r = Native.bsync_match_init(memory.DangerousGetHandle(), new UIntPtr((ulong)size), desc, out p);
            if (r != 0) { Dispose(); BlendsyncException.Check(r, "bsync_match_init"); }
            match = p;
        }

        internal Match(IntPtr p, MatchConfig config, BlendsyncHandle owner, object ownerObject)
        {
            match = p;
            this.config = config;
            this.owner = owner;
            this.ownerObject = ownerObject;
        }

        Instance[] characters; // views, made once (Character(c) allocates nothing after the first call)

        internal void CheckAlive() { if (P == IntPtr.Zero) throw new ObjectDisposedException("Match"); }

        internal IntPtr P
        {
            get
            {
                if (disposed) throw new ObjectDisposedException("Match");
                if (memory == null && owner.UserClosed) throw new ObjectDisposedException(ownerObject.GetType().Name); // a client's match
                return match;
            }
        }

        public void Dispose()
        {
            if (disposed) return;
            disposed = true;
            if (memory != null) { memory.Dispose(); owner.DangerousRelease(); }
        }

        public MatchConfig Config { get { return config; } }
        public ulong TickCount { get { return Native.bsync_match_tick_count(P); } }
        public int CharacterCount { get { return (int)Native.bsync_match_character_count(P); } }

        /// <summary>Advance every character one tick with the frame (its PlayerCount must be the match's).</summary>
        public void Tick(MatchFrameBuffer frame)
        {
            if (frame == null) throw new ArgumentNullException("frame");
            BlendsyncException.Check(Native.bsync_match_tick(P, frame.Ptr), "bsync_match_tick");
        }

        /// <summary>Root and per-character checksums; withPoses computes every pose too.</summary>
        public void Checksums(bool withPoses, ref MatchChecksums output)
        {
            IntPtr p = P;
            fixed (MatchChecksums* o = &output)
                BlendsyncException.Check(Native.bsync_match_get_checksums(p, withPoses ? 1 : 0, o), "bsync_match_get_checksums");
        }

        /// <summary>Per-joint pose checksums of character c; returns the joint count.</summary>
        public int JointChecksums(int character, ulong[] output)
        {
            if (output == null) throw new ArgumentNullException("output");
            uint n;
            fixed (ulong* o = output)
                BlendsyncException.Check(Native.bsync_match_joint_checksums(P, (uint)character, o, (uint)output.Length, out n), "bsync_match_joint_checksums");
            return (int)n;
        }

        /// <summary>Character c's instance (a view: valid while this match is; the same object every call).</summary>
        public Instance Character(int c)
        {
            IntPtr p = P;
            if (characters == null) characters = new Instance[Native.bsync_match_character_count(p)];
            if ((uint)c >= (uint)characters.Length) throw new ArgumentOutOfRangeException("c");
            if (characters[c] != null) return characters[c];
            IntPtr i = Native.bsync_match_instance(p, (uint)c);
            // the config outlives this match (a reference held by the match or by the client)
            IntPtr gc = Native.bsync_match_config_character_graph(config.Handle.DangerousGetHandle(), (uint)c);
            var g = new Graph(Native.bsync_graph_config_graph(gc), config.Handle, config, false);
            return characters[c] = new Instance(i, g, this);
        }

        public int SnapshotSize { get { return (int)Native.bsync_match_snapshot_size(P).ToUInt64(); } }
        public int SnapshotSizeMax { get { return (int)Native.bsync_match_snapshot_size_max(P).ToUInt64(); } }
        /// <summary>Save into buffer (SnapshotSizeMax always suffices); returns the bytes written.</summary>
        public int Save(byte[] buffer)
        {
            if (buffer == null) throw new ArgumentNullException("buffer");
            UIntPtr w;
            fixed (byte* b = buffer) BlendsyncException.Check(Native.bsync_match_save(P, b, new UIntPtr((uint)buffer.Length), out w), "bsync_match_save");
            return (int)w.ToUInt64();
        }
        /// <summary>Load a snapshot (everything checked first; the match is untouched on failure).</summary>
        public void Load(byte[] buffer, int length)
        {
            if (buffer == null || length < 0 || length > buffer.Length) throw new ArgumentException("buffer / length");
            fixed (byte* b = buffer) BlendsyncException.Check(Native.bsync_match_load(P, b, new UIntPtr((uint)length)), "bsync_match_load");
        }
    }
}
