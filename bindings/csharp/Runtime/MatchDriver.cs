// MatchDriver.cs — the frame-sync loop of a game that runs its own lockstep (no server): one Match,
// one reused frame, every player's input set for the tick, one Tick per fixed step, and the pose of
// a character as floats for rendering. The Unity sample calls it from FixedUpdate; the Mono tests
// drive the same class. Nothing is allocated per tick.
using System;

namespace Blendsync
{
    public sealed class MatchDriver : IDisposable
    {
        public MatchConfig Config { get; private set; }
        public Match Match { get; private set; }
        readonly MatchFrameBuffer frame;
        readonly Trs[][] local, model;

        public MatchDriver(MatchConfig config)
        {
            Config = config ?? throw new ArgumentNullException("config");
            Match = new Match(config);
            frame = new MatchFrameBuffer(config.PlayerCount);
            int n = Match.CharacterCount;
            local = new Trs[n][];
            model = new Trs[n][];
            for (int c = 0; c < n; c++)
            {
                int jc = config.CharacterGraph(c).JointCount;
                local[c] = new Trs[jc];
                model[c] = new Trs[jc];
            }
        }

        /// <summary>Set input parameter i of a player for the next tick (the value is kept until changed).
        /// Quantize engine floats once, here, with Fix16.FromDouble: every machine must send the same bits.</summary>
        public void SetParam(int slot, int param, Fix16 value) { frame.Player(slot).SetParam(param, value); }
        /// <summary>Set trigger j of a player for the next tick only (cleared after the tick).</summary>
        public void SetTrigger(int slot, int trigger, byte value) { frame.Player(slot).SetTrigger(trigger, value); }

        /// <summary>One tick of every character; triggers are cleared afterwards.</summary>
        public void Tick()
        {
            Match.Tick(frame);
            for (int s = 0; s < frame.PlayerCount; s++)
                for (int j = 0; j < Config.TriggerCount; j++) frame.Player(s).SetTrigger(j, 0);
        }

        /// <summary>Character c's model pose as floats (output: its joint count entries).</summary>
        public void ModelPose(int character, TrsF[] output)
        {
            if ((uint)character >= (uint)local.Length) throw new ArgumentOutOfRangeException("character");
            Match.Character(character).PoseFloat(local[character], model[character], output);
        }

        public void Dispose() { frame.Dispose(); Match.Dispose(); }
    }
}
