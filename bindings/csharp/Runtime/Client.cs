// Client.cs — the lockstep network client (client/include/blendsync/client.h): connect to a
// blendsync-server, send this tick's input, service the network (no threads: call Service every
// frame), poll events, read stats; the local match for poses. ENet sockets inside the library.
using System;
using System.Runtime.InteropServices;

namespace Blendsync
{
    /// <summary>What bsync_client_create needs (strings are copied to unmanaged memory for the
    /// client's lifetime).</summary>
    public sealed class ClientOptions
    {
        public string Host = "127.0.0.1";
        public ushort Port;
        /// <summary>0: the config's match id.</summary>
        public ulong MatchId;
        public int Slot;
        public string Token;
        /// <summary>The slot's 32-byte session secret (MatchConfig.Secret(slot) in tests; from the lobby in a
        /// game): an authenticated, encrypted session (docs/security.md). null: the token alone, insecure.</summary>
        public byte[] Secret;
        /// <summary>With a Secret: authenticate only, packets readable (the match's "session").</summary>
        public bool AuthenticateOnly;
        public bool ComputePoses = true;
        public uint ConnectTimeoutMs;
        public uint SynctestDistance;
        /// <summary>Record this client's own view of the match as a replay file (null: none); its header
        /// is the match config's (bsync_match_config_replay_header) with BuildVersion as the writer.</summary>
        public string ReplayPath;
        public string BuildVersion = "Blendsync.dll " + "0.5.0";
        /// <summary>When the server reports a desync of this client, also keep its own dump here.</summary>
        public string DesyncDir;
        /// <summary>Predict and roll back (docs/prediction.md): the shown match runs ahead of the confirmed
        /// one; confirmed frames stay the only authority (checksums, replays).</summary>
        public bool Predict;
        /// <summary>Predict at most this many ticks past the last confirmed frame (0: 8; at most 32).</summary>
        public uint RollbackWindow;
        /// <summary>Show the local input this many ticks after its tick (0: at once).</summary>
        public uint LocalDelay;
        /// <summary>Re-simulate every predicted span and compare (a test mode; costs CPU).</summary>
        public bool PredictSynctest;
        /// <summary>Half-life of the correction offset in ticks (0: 2).</summary>
        public uint SmoothTicks;
        /// <summary>A root error above this (metres) is not smoothed (0: 1 m).</summary>
        public Fix16 TeleportDistance;
    }

    public sealed unsafe class Client : IDisposable
    {
        readonly ClientHandle handle = new ClientHandle();
        readonly MatchConfig config;
        IntPtr hostMem, tokenMem, replayPathMem, desyncDirMem, headerMem;
        readonly Match match;
        bool refAdded;
        FrameHandler frameHandler;
        Exception frameException;
        GCHandle self; // the frame hook's user pointer (weak: the hook never keeps the client alive)

        /// <summary>Create the client and start connecting (returns at once).</summary>
        public Client(MatchConfig config, ClientOptions options)
        {
            if (config == null || options == null) throw new ArgumentNullException(config == null ? "config" : "options");
            if (options.Token == null) throw new ArgumentNullException("options.Token");
            this.config = config;
            config.Handle.DangerousAddRef(ref refAdded);
            byte[] host = Utf8.Z(options.Host), token = Utf8.Z(options.Token);
            hostMem = Marshal.AllocHGlobal(host.Length);
            Marshal.Copy(host, 0, hostMem, host.Length);
            tokenMem = Marshal.AllocHGlobal(token.Length);
            Marshal.Copy(token, 0, tokenMem, token.Length);
            ClientConfigNative c = default(ClientConfigNative);
            c.Host = hostMem;
            c.Port = options.Port;
            c.MatchId = options.MatchId != 0 ? options.MatchId : config.MatchId;
            c.Slot = (byte)options.Slot;
            c.Token = tokenMem;
            c.TokenLen = (uint)(token.Length - 1);
            c.Desc = config.Desc;
            c.ComputePoses = options.ComputePoses ? 1 : 0;
            c.ConnectTimeoutMs = options.ConnectTimeoutMs;
            c.SynctestDistance = options.SynctestDistance;
            c.Predict.Enabled = options.Predict ? 1u : 0u;
            c.Predict.RollbackWindow = options.RollbackWindow;
            c.Predict.LocalDelay = options.LocalDelay;
            c.Predict.Synctest = options.PredictSynctest ? 1u : 0u;
            c.Predict.SmoothTicks = options.SmoothTicks;
            c.Predict.TeleportDistance = options.TeleportDistance.Raw;
            c.Names = config.P;
            if (options.ReplayPath != null)
            {
                replayPathMem = Copy(Utf8.Z(options.ReplayPath));
                headerMem = Marshal.AllocHGlobal(sizeof(ReplayHeaderNative));
                Native.bsync_match_config_replay_header(config.P, Utf8.Z(options.BuildVersion ?? ""), 0, headerMem);
                c.ReplayPath = replayPathMem;
                c.ReplayHeader = headerMem;
            }
            if (options.DesyncDir != null) c.DesyncDir = desyncDirMem = Copy(Utf8.Z(options.DesyncDir));
            if (options.Secret != null && options.Secret.Length != 32)
            {
                Dispose();
                throw new ArgumentException("a session secret is 32 bytes", "options.Secret");
            }
            Error err = default(Error);
            IntPtr p;
            int r;
            byte[] secret = options.Secret != null ? (byte[])options.Secret.Clone() : null;
            fixed (byte* sp = secret) /* bsync_client_create copies it */
            {
                c.Secret = (IntPtr)sp;
                c.SessionMode = secret == null ? 0u : options.AuthenticateOnly ? 2u : 1u;
                r = Native.bsync_client_create(&c, out p, &err);
            }
            if (secret != null) Array.Clear(secret, 0, secret.Length);
            if (r != 0) { Dispose(); BlendsyncException.Check(r, ref err); }
            handle.Set(p);
            match = new Match(Native.bsync_client_match(p), config, handle, this);
        }

        static IntPtr Copy(byte[] z)
        {
            IntPtr p = Marshal.AllocHGlobal(z.Length);
            Marshal.Copy(z, 0, p, z.Length);
            return p;
        }

        IntPtr P { get { return handle.Ptr(this); } }

        /// <summary>Pump the network for at most timeoutMs (0: only what is waiting). An exception thrown by
        /// the frame handler (SetFrameHandler) comes out of here.</summary>
        public void Service(uint timeoutMs)
        {
            BlendsyncException.Check(Native.bsync_client_service(P, timeoutMs), "bsync_client_service");
            Exception e = frameException;
            frameException = null;
            if (e != null) throw new InvalidOperationException("the frame handler threw", e);
        }

        /// <summary>A frame was applied to the local match: the match and the frame's tick.</summary>
        public delegate void FrameHandler(Match match, uint tick);

        /// <summary>Called from Service right after each frame is applied to the local match, before its
        /// checksums (bsync_client_set_frame_hook): a game's per-tick step. Changing the match there is a
        /// desync (what Bot.exe --inject-desync does on purpose). null removes it.</summary>
        public void SetFrameHandler(FrameHandler handler)
        {
            IntPtr p = P;
            frameHandler = handler;
            if (handler != null && !self.IsAllocated) self = GCHandle.Alloc(this, GCHandleType.Weak);
            Native.bsync_client_set_frame_hook(p, handler != null ? FrameThunkPointer : IntPtr.Zero,
                                               handler != null ? GCHandle.ToIntPtr(self) : IntPtr.Zero);
        }

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate void FrameHookNative(IntPtr user, IntPtr match, uint tick);
        static readonly FrameHookNative FrameThunk = OnFrame; // static: alive as long as the code is
        static readonly IntPtr FrameThunkPointer = Marshal.GetFunctionPointerForDelegate(FrameThunk);

        [MonoPInvokeCallback(typeof(FrameHookNative))]
        static void OnFrame(IntPtr user, IntPtr matchPtr, uint tick)
        {
            var c = GCHandle.FromIntPtr(user).Target as Client;
            if (c == null || c.frameHandler == null || c.frameException != null) return;
            try { c.frameHandler(c.match, tick); }
            catch (Exception e) { c.frameException = e; } // never across the native frames: rethrown by Service
        }

        /// <summary>Queue this tick's input; returns false (nothing sent) before the WELCOME, after the end,
        /// or when the client is already far enough ahead; assignedTick is the tick it was given.</summary>
        public bool SendInput(ref MatchInput input, out uint assignedTick)
        {
            IntPtr p = P;
            fixed (MatchInput* i = &input) return Native.bsync_client_send_input(p, i, out assignedTick) == 0;
        }

        /// <summary>The oldest waiting event; false when none.</summary>
        public bool PollEvent(out ClientEvent ev)
        {
            IntPtr p = P;
            fixed (ClientEvent* e = &ev) return Native.bsync_client_poll_event(p, e) != 0;
        }

        public void GetStats(out ClientStats stats)
        {
            IntPtr p = P;
            fixed (ClientStats* s = &stats) Native.bsync_client_get_stats(p, s);
        }

        public ClientState State { get { return (ClientState)Native.bsync_client_get_state(P); } }
        public uint TickRate { get { return Native.bsync_client_tick_rate(P); } }
        public uint InputDelay { get { return Native.bsync_client_input_delay(P); } }
        /// <summary>The fraction of a tick to render the local match at now (presentation clock).</summary>
        public Fix16 PresentAlpha { get { return Fix16.FromRaw(Native.bsync_client_present_alpha(P)); } }
        /// <summary>The predicted match's tick count (the confirmed one's in lockstep).</summary>
        public uint PredictedTick { get { return Native.bsync_client_predict_tick(P); } }
        /// <summary>The fraction of a tick to render the predicted match at now.</summary>
        public Fix16 PredictAlpha { get { return Fix16.FromRaw(Native.bsync_client_predict_alpha(P)); } }

        public void GetPredictStats(out ClientPredictStats stats)
        {
            IntPtr p = P;
            fixed (ClientPredictStats* s = &stats) Native.bsync_client_predict_get_stats(p, s);
        }

        /// <summary>The smallest rollback depth with at least permille/1000 of the rollbacks at or below it.</summary>
        public static uint DepthQuantile(ref ClientPredictStats stats, uint permille)
        {
            fixed (ClientPredictStats* s = &stats) return Native.bsync_client_predict_depth_quantile(s, permille);
        }

        /// <summary>Joints of every character one after another (the layout PresentPredicted fills).</summary>
        public int PresentJointCount { get { return (int)Native.bsync_present_match_joint_count(Native.bsync_client_predict_match(P)); } }

        IntPtr presentScratch;
        UIntPtr presentScratchSize;

        /// <summary>What the player sees (bsync_client_predict_present): every character's local pose at the
        /// predicted tick + alpha with the decaying correction offset, and each character's accumulated root;
        /// frameNs is the time since the previous call (0 the first time). local: PresentJointCount entries,
        /// roots: one per character (or null).</summary>
        public void PresentPredicted(Fix16 alpha, ulong frameNs, Trs[] local, RootMotion[] roots)
        {
            IntPtr p = P;
            IntPtr m = Native.bsync_client_predict_match(p);
            if (local == null || local.Length < (int)Native.bsync_present_match_joint_count(m)) throw new ArgumentException("local: PresentJointCount entries", "local");
            if (roots != null && roots.Length < config.CharacterCount) throw new ArgumentException("roots: one per character", "roots");
            UIntPtr need = Native.bsync_present_match_scratch_size(m);
            if (presentScratch == IntPtr.Zero || presentScratchSize.ToUInt64() < need.ToUInt64())
            {
                if (presentScratch != IntPtr.Zero) Marshal.FreeHGlobal(presentScratch);
                presentScratch = Marshal.AllocHGlobal(new IntPtr((long)need.ToUInt64() + 16));
                presentScratchSize = need;
            }
            IntPtr aligned = new IntPtr((presentScratch.ToInt64() + 15) & ~15L);
            fixed (Trs* l = local)
            fixed (RootMotion* r = roots)
                BlendsyncException.Check(Native.bsync_client_predict_present(p, alpha.Raw, frameNs, aligned, need, l, r),
                                         "bsync_client_predict_present");
        }

        /// <summary>The local match (poses for rendering); valid while the client is.</summary>
        public Match Match { get { if (P == IntPtr.Zero) throw new ObjectDisposedException("Client"); return match; } }
        public MatchConfig Config { get { return config; } }

        /// <summary>Says BYE if connected, flushes, frees.</summary>
        public void Dispose()
        {
            handle.Dispose();
            frameHandler = null;
            if (self.IsAllocated) self.Free();
            if (hostMem != IntPtr.Zero) { Marshal.FreeHGlobal(hostMem); hostMem = IntPtr.Zero; }
            if (tokenMem != IntPtr.Zero) { Marshal.FreeHGlobal(tokenMem); tokenMem = IntPtr.Zero; }
            if (replayPathMem != IntPtr.Zero) { Marshal.FreeHGlobal(replayPathMem); replayPathMem = IntPtr.Zero; }
            if (desyncDirMem != IntPtr.Zero) { Marshal.FreeHGlobal(desyncDirMem); desyncDirMem = IntPtr.Zero; }
            if (headerMem != IntPtr.Zero) { Marshal.FreeHGlobal(headerMem); headerMem = IntPtr.Zero; }
            if (presentScratch != IntPtr.Zero) { Marshal.FreeHGlobal(presentScratch); presentScratch = IntPtr.Zero; }
            if (refAdded) { refAdded = false; config.Handle.DangerousRelease(); }
        }
    }

    /// <summary>proto.h / net.h helpers.</summary>
    public static unsafe class Net
    {
        /// <summary>The library's monotonic clock in microseconds (bsync_net_now_us).</summary>
        public static ulong NowUs() { return Native.bsync_net_now_us(); }
        /// <summary>"HOST:PORT" -> host and port; false when malformed.</summary>
        public static bool ParseAddress(string text, out string host, out ushort port)
        {
            byte* buf = stackalloc byte[256];
            host = null;
            if (Native.bsync_net_parse_address(Utf8.Z(text ?? ""), buf, new UIntPtr(256), out port) != 0) return false;
            host = Utf8.Read(buf, 256);
            return true;
        }
        public static string ByeReasonString(uint reason) { return Utf8.Read(Native.bsync_proto_bye_reason_string(reason)); }
        public static string DesyncKindString(uint kind) { return Utf8.Read(Native.bsync_proto_desync_kind_string(kind)); }
        public static string ActionString(uint action) { return Utf8.Read(Native.bsync_proto_action_string(action)); }
        public const uint ByeMatchOver = 7, ByeKickedDesync = 8, ByeShutdown = 11;
    }
}
