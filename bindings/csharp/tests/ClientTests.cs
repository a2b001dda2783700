// ClientTests.cs — the network client without a server (the bot test, csharp_bot, plays real matches):
// connecting to a closed port ends in DISCONNECTED within the connect timeout; argument errors; net
// helpers; lifetime.
using System;
using System.IO;
using Blendsync;

static class ClientTests
{
    public static void Run()
    {
        string host;
        ushort port;
        T.Check(Net.ParseAddress("127.0.0.1:7777", out host, out port) && host == "127.0.0.1" && port == 7777, "ParseAddress 127.0.0.1:7777");
        T.Check(!Net.ParseAddress("nowhere", out host, out port), "ParseAddress refuses \"nowhere\"");
        T.Check(Net.ByeReasonString(Net.ByeMatchOver) == "match has ended" && Net.ByeReasonString(Net.ByeKickedDesync) == "kicked after a desync",
                "bye reason numbers match proto.h's texts");

        using (var mc = MatchConfig.Load(Path.Combine(T.Src, "tests", "fixtures", "replay", "v1", "match.json")))
        {
            var opt = new ClientOptions { Host = "127.0.0.1", Port = 9, Slot = 0, Token = mc.Token(0), ConnectTimeoutMs = 400 };
            var c = new Client(mc, opt);
            ulong start = Net.NowUs();
            bool disconnected = false;
            ClientEvent ev;
            var input = new MatchInput();
            uint assigned;
            bool sent = c.SendInput(ref input, out assigned);
            while (!disconnected && Net.NowUs() - start < 10000000)
            {
                c.Service(10);
                while (c.PollEvent(out ev)) if (ev.Type == ClientEventType.Disconnected) disconnected = true;
            }
            ClientStats st;
            c.GetStats(out st);
            T.Check(disconnected && c.State == ClientState.Ended && st.FramesApplied == 0 && c.TickRate == 0,
                    "a client connecting to a closed port: DISCONNECTED, state Ended, no frames (" + (Net.NowUs() - start) / 1000 + " ms)");
            T.Check(!sent, "SendInput before the WELCOME is refused");
            T.Check(c.Match.TickCount == 0 && c.PresentAlpha == Fix16.Zero, "the client's local match is at tick 0; present alpha 0 before the first frame");
            c.Dispose();
            c.Dispose();
            T.Throws<ObjectDisposedException>(() => c.Service(0), null, "Client.Service after Dispose: ObjectDisposedException");
            T.Throws<ObjectDisposedException>(() => { var x = c.Match.TickCount; }, null, "the client's match after Dispose: ObjectDisposedException");
            T.Throws<BlendsyncException>(() => new Client(mc, new ClientOptions { Port = 9, Slot = 9, Token = "x" }),
                                         e => e.Code == Result.InvalidArgument && e.Message.Length > 0, "a slot beyond the players: InvalidArgument");
            T.Throws<ArgumentNullException>(() => new Client(mc, new ClientOptions { Port = 9 }), null, "no token: ArgumentNullException");
            // prediction (docs/prediction.md): before any frame the predicted match is the confirmed one
            using (var pc = new Client(mc, new ClientOptions { Port = 9, Slot = 0, Token = mc.Token(0), ConnectTimeoutMs = 200, Predict = true }))
            {
                ClientPredictStats ps;
                pc.GetPredictStats(out ps);
                T.Check(pc.PredictedTick == 0 && ps.Rollbacks == 0 && ps.PredictedTicks == 0 && Client.DepthQuantile(ref ps, 500) == 0 &&
                        pc.PredictAlpha == Fix16.Zero, "a predicting client before its WELCOME: tick 0, no rollbacks, alpha 0");
                var pose = new Trs[pc.PresentJointCount];
                var roots = new RootMotion[mc.CharacterCount];
                pc.PresentPredicted(Fix16.Zero, 0, pose, roots);
                Quat q = pose[0].R;
                double n2 = q.X.ToFloat() * q.X.ToFloat() + q.Y.ToFloat() * q.Y.ToFloat() + q.Z.ToFloat() * q.Z.ToFloat() + q.W.ToFloat() * q.W.ToFloat();
                T.Check(pose.Length > 0 && Math.Abs(n2 - 1.0) < 1e-3, "PresentPredicted before the WELCOME gives the initial pose (" + pose.Length + " joints, unit rotations)");
                T.Throws<ArgumentException>(() => pc.PresentPredicted(Fix16.Zero, 0, new Trs[1], null), null, "PresentPredicted with too few joints: ArgumentException");
            }
            T.Throws<BlendsyncException>(() => new Client(mc, new ClientOptions { Port = 9, Slot = 0, Token = mc.Token(0), Predict = true, RollbackWindow = 33 }),
                                         e => e.Code == Result.InvalidArgument, "a rollback window of 33 (above 32): InvalidArgument");
        }
    }
}
