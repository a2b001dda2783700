// Bot.cs — `mono Bot.exe --server HOST:PORT --config MATCH --slot N --token T [--match ID] [--script CSV | --seed S]
// [--inject-desync TICK] [--replay FILE] [--desync-dir DIR] [--quiet] [--timeout SECONDS]`: the C# twin of `blendsync bot`
// (client/cli/cmd_bot.c) through the binding's Client: joins the match, sends the seeded random
// joystick input (bsync_match_random_input, seed default 1000 + slot) once per tick period,
// services the network, prints the same status, desync and summary lines.
// --inject-desync TICK plants a desync of this bot's own character right after frame TICK, so the
// server's detection can be shown and tested: from the client's frame handler (Client.SetFrameHandler,
// bsync_client_set_frame_hook) the character applies frame TICK again from the state before it, with
// its speed target off by one (a client that simulated its own input instead of the confirmed one),
// through the public API only (the C bot moves a clock instead, through client/lib/client_testing.h,
// which is not part of the library).
// --replay FILE records this bot's own view of the match (`blendsync replay verify FILE`), --desync-dir
// keeps its own dump when the server reports its desync, --script CSV plays a joystick path keyed by
// input tick (BotScript: the library's input script, as cmd_bot.c's); --drop PERMILLE skips that share
// of the bot's ticks (no input: the server defaults them) and --delay MIN:MAX hands each input to the
// client that late, as the C bot's (network loss and jitter are the relay's: bsync_udp_relay).
// Exit: 0 match over, no desync; 1 desync reported (or kicked); 2 error; 3 match ended incomplete.
using System;
using Blendsync;

static class Bot
{
    static int Usage(string msg)
    {
        Console.Error.WriteLine("Bot.exe: " + msg);
        Console.Error.WriteLine("usage: Bot.exe --server HOST:PORT --config MATCH.json --slot N --token T\n" +
                                "               [--match ID] [--script FILE | --seed S] [--inject-desync TICK] [--replay FILE]\n" +
                                "               [--desync-dir DIR] [--drop PERMILLE] [--delay MIN_MS:MAX_MS] [--quiet] [--timeout SECONDS]");
        return 2;
    }

    static int Main(string[] args)
    {
        string server = null, config = null, token = null, replay = null, desyncDir = null, scriptPath = null;
        ulong slot = ulong.MaxValue, matchId = 0, seed = 0, inject = 0, timeout = 600, drop = 0;
        uint delayMin = 0, delayMax = 0;
        bool haveSeed = false, haveInject = false, quiet = false;
        for (int i = 0; i < args.Length; i++)
        {
            string a = args[i];
            if (a == "--quiet") { quiet = true; continue; }
            if (i + 1 >= args.Length) return Usage("bad value for \"" + a + "\"");
            string v = args[++i];
            bool bad = false;
            switch (a)
            {
            case "--server": server = v; break;
            case "--config": config = v; break;
            case "--token": token = v; break;
            case "--replay": replay = v; break;
            case "--script": scriptPath = v; break;
            case "--desync-dir": desyncDir = v; break;
            case "--slot": bad = !ulong.TryParse(v, out slot) || slot >= 16; break;
            case "--match": bad = !ulong.TryParse(v, out matchId); break;
            case "--seed": bad = !ulong.TryParse(v, out seed); haveSeed = true; break;
            case "--inject-desync": bad = !ulong.TryParse(v, out inject) || inject > uint.MaxValue; haveInject = true; break;
            case "--timeout": bad = !ulong.TryParse(v, out timeout) || timeout == 0; break;
            case "--drop": bad = !ulong.TryParse(v, out drop) || drop > 1000; break;
            case "--delay":
                string[] mm = v.Split(':');
                bad = mm.Length != 2 || !uint.TryParse(mm[0], out delayMin) || !uint.TryParse(mm[1], out delayMax) || delayMin > delayMax ||
                      delayMax > 10000;
                break;
            default: return Usage("unknown argument \"" + a + "\"");
            }
            if (bad) return Usage("bad value for \"" + a + "\"");
        }
        if (server == null || config == null || token == null || slot == ulong.MaxValue)
            return Usage("--server, --config, --slot and --token are required");
        string host;
        ushort port;
        if (!Net.ParseAddress(server, out host, out port))
        {
            Console.Error.WriteLine("Bot.exe: --server: expected HOST:PORT, got \"" + server + "\"");
            return 2;
        }
        try
        {
            Library.CheckVersion();
            using (var mc = MatchConfig.Load(config))
            {
                BotScript bs = null;
                if (scriptPath != null)
                {
                    try { bs = BotScript.Load(scriptPath, mc); }
                    catch (FormatException e) { Console.Error.WriteLine("Bot.exe: " + e.Message); return 2; }
                }
                if (matchId == 0) matchId = mc.MatchId;
                if (!haveSeed) seed = 1000 + slot;
                var opt = new ClientOptions
                {
                    Host = host, Port = port, MatchId = matchId, Slot = (int)slot, Token = token, ComputePoses = true,
                    Secret = mc.Secret((int)slot), AuthenticateOnly = mc.Session == 2, /* the config's, as the C bot */
                    ReplayPath = replay, DesyncDir = desyncDir,
                    BuildVersion = "blendsync " + Library.VersionString + " Bot.exe slot " + slot
                };
                using (var c = new Client(mc, opt))
                {
                    if (haveInject) PlantDesync(c, mc, (int)slot, (uint)inject);
                    return Run(c, mc, bs, slot, matchId, seed, quiet, timeout, server, (uint)drop, delayMin, delayMax);
                }
            }
        }
        catch (BlendsyncException e)
        {
            Console.Error.WriteLine("Bot.exe: " + e.Message);
            return 2;
        }
    }

    // --inject-desync: the first character of this bot's slot applies frame `tick` again from the state
    // before it, with its first parameter's target one higher than the confirmed one (a client that
    // simulated its own input instead of the server's frame); every later state of that character differs
    // from the server's. The state before each frame is the one kept after the previous frame.
    static void PlantDesync(Client c, MatchConfig mc, int slot, uint tick)
    {
        int own = 0;
        for (int k = mc.CharacterCount - 1; k >= 0; k--)
            if (mc.CharacterSlot(k) == slot) own = k;
        Instance ch = c.Match.Character(own);
        var before = new byte[ch.SnapshotSizeMax];
        int beforeLen = ch.Save(before); // the start of the first frame (a fresh match's initial state)
        c.SetFrameHandler((match, t) =>
        {
            if (t == tick && ch.Graph.ParameterCount > 0)
            {
                var targets = new Fix16[ch.Graph.ParameterCount];
                for (int i = 0; i < targets.Length; i++) targets[i] = ch.Target(i);
                targets[0] = Fix16.FromRaw(targets[0].Raw + Fix16.One.Raw);
                ch.Load(before, beforeLen);
                ch.Tick(targets);
            }
            beforeLen = ch.Save(before);
        });
    }

    static ulong SplitMix(ref ulong s)
    {
        ulong z = (s += 0x9E3779B97F4A7C15UL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        return z ^ (z >> 31);
    }

    static int Run(Client c, MatchConfig mc, BotScript bs, ulong slot, ulong matchId, ulong seed, bool quiet, ulong timeout, string server,
                   uint drop, uint delayMin, uint delayMax)
    {
        MatchScript script = MatchConfig.NewScript(seed);
        ulong rng = seed ^ 0x626c656e64636c69UL; // --drop and --delay: one draw each per tick, as the C bot
        var held = new System.Collections.Generic.List<ulong>(); // --delay: when each held input is handed over
        var input = new MatchInput();
        ulong start = Net.NowUs(), nextInput = 0, nextStatus = start + 1000000, period = 0;
        uint nextScriptTick = 0;
        int status = -1;
        bool desynced = false, incomplete = false;
        uint bye = 0;
        ClientEvent ev;
        ClientStats st;
        while (status < 0)
        {
            c.Service(2);
            while (c.PollEvent(out ev))
            {
                switch (ev.Type)
                {
                case ClientEventType.Welcome:
                    period = 1000000u / c.TickRate;
                    nextInput = Net.NowUs();
                    if (!quiet)
                        Console.WriteLine("bot slot " + slot + ": joined match " + matchId + " at tick " + ev.Tick + " (" + c.TickRate +
                                          " Hz, input delay " + c.InputDelay + ")");
                    break;
                case ClientEventType.Desync:
                    desynced = true;
                    Console.WriteLine("bot slot " + slot + ": DESYNC reported by the server at tick " + ev.Desync.Tick + ": " +
                                      Net.DesyncKindString(ev.Desync.Kind) + ", character " +
                                      (ev.Desync.Character == DesyncNotice.NoCharacter ? -1 : (int)ev.Desync.Character) +
                                      ", expected " + ev.Desync.Expected.ToString("x16") + " got " + ev.Desync.Got.ToString("x16") +
                                      ", action " + Net.ActionString(ev.Desync.Action));
                    break;
                case ClientEventType.Resync:
                    Console.WriteLine("bot slot " + slot + ": resynced from the server's snapshot at tick " + ev.Tick);
                    break;
                case ClientEventType.Incomplete:
                    incomplete = true;
                    Console.Error.WriteLine("Bot.exe: slot " + slot + ": INCOMPLETE: applied frames up to tick " + ev.Tick + " of " +
                                            (ev.EndTicks != 0 ? "" : "at least ") + (ev.EndTicks != 0 ? ev.EndTicks : ev.Tick) + " (" +
                                            Net.ByeReasonString(ev.ByeReason) + "); the match is not complete on this machine");
                    break;
                case ClientEventType.Bye:
                    bye = ev.ByeReason;
                    status = bye == Net.ByeMatchOver || bye == Net.ByeShutdown ? (desynced ? 1 : 0) : bye == Net.ByeKickedDesync ? 1 : 2;
                    break;
                case ClientEventType.Disconnected:
                    if (status < 0) status = 2;
                    break;
                }
            }
            ulong now = Net.NowUs();
            int sendNow = 0;
            if (period != 0 && now >= nextInput && c.State != ClientState.Ended)
            {
                nextInput += period;
                if (now > nextInput + 10 * period) nextInput = now; // paused: do not burst
                if (!(drop != 0 && SplitMix(ref rng) % 1000 < drop))
                {
                    uint span = delayMax - delayMin;
                    uint d = delayMin + (span != 0 ? (uint)(SplitMix(ref rng) % (span + 1)) : 0u);
                    if (delayMax == 0) sendNow = 1;
                    else if (held.Count < 64) held.Add(now + 1000UL * d);
                }
            }
            for (int k = 0; k < held.Count;)
            {
                if (held[k] > now) { k++; continue; }
                held[k] = held[held.Count - 1];
                held.RemoveAt(held.Count - 1);
                sendNow++;
            }
            for (; sendNow > 0 && c.State != ClientState.Ended; sendNow--)
            {
                uint assigned;
                if (bs != null)
                {
                    // keyed by the tick the input will be assigned to (as cmd_bot.c)
                    c.GetStats(out st);
                    uint t = st.ServerTick + c.InputDelay;
                    if (t < nextScriptTick) t = nextScriptTick;
                    bs.Input(t, ref input);
                    if (c.SendInput(ref input, out assigned)) nextScriptTick = assigned + 1;
                }
                else
                {
                    mc.RandomInput(ref script, ref input);
                    c.SendInput(ref input, out assigned);
                }
            }
            if (now >= nextStatus)
            {
                nextStatus += 1000000;
                c.GetStats(out st);
                if (!quiet && period != 0)
                    Console.WriteLine("bot slot " + slot + ": tick " + st.NextFrameTick + "  rtt " + st.RttMs + " ms  checksums sent " +
                                      st.ChecksumsSent + " (last " + st.LastPose.ToString("x16") + ")  desyncs " + st.Desyncs +
                                      "  defaulted " + st.FramesDefaultedSelf);
            }
            if (now - start > timeout * 1000000)
            {
                Console.Error.WriteLine("Bot.exe: slot " + slot + ": gave up after " + timeout + " s");
                status = 2;
            }
        }
        c.GetStats(out st);
        if (incomplete && status != 1) status = 3; // never a partial match reported as a success
        if (status == 2 && bye != 0) Console.Error.WriteLine("Bot.exe: slot " + slot + ": the server said bye: " + Net.ByeReasonString(bye));
        else if (status == 2) Console.Error.WriteLine("Bot.exe: slot " + slot + ": connection lost or refused (is the server at " + server + " running?)");
        Console.WriteLine("bot slot " + slot + ": done" + (incomplete ? " (INCOMPLETE)" : "") + ": " + st.FramesApplied + " frames applied, " +
                          st.ChecksumsSent + " checksums sent, " + st.Desyncs + " desyncs, " + st.FramesDefaultedSelf + " inputs defaulted, " +
                          st.BytesSent + " bytes sent, " + st.BytesReceived + " received (" + (bye != 0 ? Net.ByeReasonString(bye) : "disconnected") + ")");
        return status;
    }
}
