// Bot.cs — `mono Bot.exe --server HOST:PORT --config MATCH --slot N --token T [--match ID] [--script CSV | --seed S]
// [--inject-desync TICK] [--replay FILE] [--desync-dir DIR] [--quiet] [--timeout SECONDS]`: the C# twin of `blendsync bot`
// (client/cli/cmd_bot.c) through the binding's Client: joins the match, sends the seeded random
// joystick input (bsync_match_random_input, seed default 1000 + slot) once per tick period,
// services the network, prints the same status, desync and summary lines.
// --inject-desync TICK flips one bit of this bot's own state after frame TICK (the client library's
// test switch, as the C bot), so the server's detection can be shown and tested.
// --replay FILE records this bot's own view of the match (`blendsync replay verify FILE`), --desync-dir
// keeps its own dump when the server reports its desync, --script CSV plays a joystick path keyed by
// input tick (BotScript: the library's input script, as cmd_bot.c's); --drop PERMILLE and --delay MIN:MAX are the
// client library's loss / jitter test switches, as the C bot's.
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
                    TestSeed = seed, InjectDesync = haveInject, InjectDesyncTick = (uint)inject,
                    ReplayPath = replay, DesyncDir = desyncDir,
                    TestDropPermille = (uint)drop, TestDelayMinMs = delayMin, TestDelayMaxMs = delayMax,
                    BuildVersion = "blendsync " + Library.VersionString + " Bot.exe slot " + slot
                };
                using (var c = new Client(mc, opt)) return Run(c, mc, bs, slot, matchId, seed, quiet, timeout, server);
            }
        }
        catch (BlendsyncException e)
        {
            Console.Error.WriteLine("Bot.exe: " + e.Message);
            return 2;
        }
    }

    static int Run(Client c, MatchConfig mc, BotScript bs, ulong slot, ulong matchId, ulong seed, bool quiet, ulong timeout, string server)
    {
        MatchScript script = MatchConfig.NewScript(seed);
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
            if (period != 0 && now >= nextInput && c.State != ClientState.Ended)
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
                nextInput += period;
                if (now > nextInput + 10 * period) nextInput = now; // paused: do not burst
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
