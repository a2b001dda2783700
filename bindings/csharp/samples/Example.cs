using System;
using Blendsync;

static class Example
{
    static void Main(string[] args)
    {
        // A graph config (JSON + clips), one instance, 60 ticks with a speed ramp.
        using (var config = GraphConfig.Load(args[0]))
        using (var character = new Instance(config.Graph))
        {
            Graph g = config.Graph;
            var targets = new Fix16[g.ParameterCount];          // caller arrays: no per-tick allocation
            var local = new Trs[g.JointCount];
            var floats = new TrsF[g.JointCount];
            int speed = g.FindParameter("speed");
            for (int tick = 0; tick < 60; tick++)
            {
                targets[speed] = Fix16.Parse(tick < 30 ? "1.4" : "3.5");   // exact decimal, as the C side
                character.Tick(targets);
                character.PoseFloat(local, null, floats);                  // fix16 pose + floats to render
            }
            Console.WriteLine("tick " + character.TickCount + " state " + character.StateChecksum.ToString("x16") +
                              " pose " + character.PoseChecksum().ToString("x16") + " joint 0 y " + floats[0].Ty);
        }
    }
}
