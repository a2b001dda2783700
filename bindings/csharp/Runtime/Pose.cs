// Pose.cs — poses as floats for an engine (present.h bsync_present_to_float): the edge where the
// fix16 simulation meets rendering.
using System;

namespace Blendsync
{
    /// <summary>Poses as floats for an engine (display only: never fed back into the simulation).</summary>
    public static unsafe class Pose
    {
        /// <summary>bsync_present_to_float: input[0 .. count) -> output[0 .. count), raw / 65536 nearest.</summary>
        public static void ToFloat(Trs[] input, int count, TrsF[] output)
        {
            if (count < 0 || input == null || output == null || input.Length < count || output.Length < count)
                throw new ArgumentException("input / output shorter than count");
            fixed (Trs* i = input) fixed (TrsF* o = output) Native.bsync_present_to_float(i, (uint)count, o);
        }
    }

}
