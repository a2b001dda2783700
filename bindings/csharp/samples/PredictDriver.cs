// PredictDriver.cs — `mono PredictDriver.exe --server HOST:PORT --config MATCH --slot N --token T [--window W]
// [--local-delay D] [--frames-per-second F] [--seed S] [--timeout SECONDS]`: a Unity-style driver of a
// predicting client (docs/prediction.md "What a Unity team writes"). PredictedMatchDriver has the
// lifecycle of a MonoBehaviour (Start, Update once per displayed frame, OnDestroy); Main calls it at F
// frames per second (default 60) the way Unity's player loop would. Each frame it services the network,
// sends this frame's input (a seeded joystick), and renders every character's predicted pose with the
// correction offsets (Client.PresentPredicted: what a game copies to its Transforms); it prints each
// rollback it sees and, at the end, the prediction summary and the confirmed match's last checksum.
// Exit 0: the match ended normally with no desync reported; 1 a desync; 2 an error.
using System;
using Blendsync;

public sealed class PredictedMatchDriver
{
    public string Host = "127.0.0.1";
    public ushort Port;
    public string MatchConfigPath;
    public int Slot;
    public string Token;
    public uint RollbackWindow = 8, LocalDelay = 0;
    public ulong Seed = 1;

    MatchConfig config;
    Client client;
    MatchScript script;
    MatchInput input;
    Trs[] pose;           // every character's joints, one after another (what the Transforms get)
    RootMotion[] roots;   // every character's accumulated root
    ulong lastFrameUs;
    ulong rollbacksSeen;
    public int Status = -1; // -1 playing; then the exit status
    public bool Desynced;

    public void Start()
    {
        config = MatchConfig.Load(MatchConfigPath);
        client = new Client(config, new ClientOptions
        {
            Host = Host, Port = Port, Slot = Slot, Token = Token, Secret = config.Secret(Slot),
            Predict = true, RollbackWindow = RollbackWindow, LocalDelay = LocalDelay
        });
        script = MatchConfig.NewScript(Seed);
        roots = new RootMotion[config.CharacterCount];
    }

    // Once per displayed frame, as MonoBehaviour.Update.
    public void Update(ulong nowUs)
    {
        client.Service(0);
        ClientEvent ev;
        while (client.PollEvent(out ev))
        {
            if (ev.Type == ClientEventType.Desync) Desynced = true;
            if (ev.Type == ClientEventType.Bye)
                Status = ev.ByeReason == Net.ByeMatchOver || ev.ByeReason == Net.ByeShutdown ? (Desynced ? 1 : 0) : 2;
            if (ev.Type == ClientEventType.Disconnected && Status < 0) Status = 2;
        }
        if (client.State == ClientState.Running || client.State == ClientState.Joining)
        {
            config.RandomInput(ref script, ref input); // a game reads its controls here
            uint assigned;
            client.SendInput(ref input, out assigned);
        }
        if (client.State != ClientState.Running) return;
        if (pose == null) pose = new Trs[client.PresentJointCount];
        client.PresentPredicted(client.PredictAlpha, lastFrameUs != 0 ? (nowUs - lastFrameUs) * 1000 : 0, pose, roots);
        lastFrameUs = nowUs;
        // a game converts pose to floats (Pose.ToFloat) and writes its Transforms; here: report rollbacks
        ClientPredictStats ps;
        client.GetPredictStats(out ps);
        if (ps.Rollbacks != rollbacksSeen)
        {
            rollbacksSeen = ps.Rollbacks;
            Console.WriteLine("slot " + Slot + ": rollback at confirmed tick " + ps.ConfirmedTick + ", shown tick " + ps.PredictedTick +
                              " (" + ps.Rollbacks + " so far, deepest " + ps.DepthMax + ")");
        }
    }

    public void OnDestroy()
    {
        if (client == null) return;
        ClientPredictStats ps;
        client.GetPredictStats(out ps);
        ClientStats st;
        client.GetStats(out st);
        Console.WriteLine("bot slot " + Slot + ": prediction: " + ps.Rollbacks + " rollbacks, depth p50 " + Client.DepthQuantile(ref ps, 500) +
                          " p99 " + Client.DepthQuantile(ref ps, 990) + " max " + ps.DepthMax + ", " + ps.PredictedTicks + " predicted ticks, " +
                          ps.CorrectionsSmoothed + " corrections smoothed, " + ps.CorrectionsTeleported + " teleported");
        Console.WriteLine("bot slot " + Slot + ": done: " + st.FramesApplied + " frames applied, " + st.ChecksumsSent + " checksums sent, " +
                          st.Desyncs + " desyncs");
        Console.WriteLine("bot slot " + Slot + ": last checksum: tick " + st.LastChecksumTick + " blend " + st.LastBlend.ToString("x16") +
                          " pose " + st.LastPose.ToString("x16"));
        client.Dispose();
        config.Dispose();
    }
}

static class PredictDriverMain
{
    static int Main(string[] args)
    {
        var d = new PredictedMatchDriver();
        ulong fps = 60, timeout = 120;
        string server = null;
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            string a = args[i], v = args[i + 1];
            bool ok = true;
            switch (a)
            {
            case "--server": server = v; break;
            case "--config": d.MatchConfigPath = v; break;
            case "--slot": ok = int.TryParse(v, out d.Slot); break;
            case "--token": d.Token = v; break;
            case "--window": ok = uint.TryParse(v, out d.RollbackWindow); break;
            case "--local-delay": ok = uint.TryParse(v, out d.LocalDelay); break;
            case "--seed": ok = ulong.TryParse(v, out d.Seed); break;
            case "--frames-per-second": ok = ulong.TryParse(v, out fps) && fps > 0 && fps <= 1000; break;
            case "--timeout": ok = ulong.TryParse(v, out timeout); break;
            default: ok = false; break;
            }
            if (!ok) { Console.Error.WriteLine("PredictDriver.exe: bad argument " + a); return 2; }
        }
        if (server == null || d.MatchConfigPath == null || d.Token == null || !Net.ParseAddress(server, out d.Host, out d.Port))
        {
            Console.Error.WriteLine("usage: PredictDriver.exe --server HOST:PORT --config MATCH --slot N --token T [--window W] [--local-delay D]");
            return 2;
        }
        try
        {
            d.Start();
            ulong start = Net.NowUs(), next = start;
            while (d.Status < 0 && Net.NowUs() - start < timeout * 1000000)
            {
                ulong now = Net.NowUs();
                if (now < next) { System.Threading.Thread.Sleep(1); continue; }
                next += 1000000 / fps;
                d.Update(now);
            }
            d.OnDestroy();
            return d.Status < 0 ? 2 : d.Status;
        }
        catch (BlendsyncException e)
        {
            Console.Error.WriteLine("PredictDriver.exe: " + e.Message);
            return 2;
        }
    }
}
