// Checksum.cs — the library's XXH64 (checksum.h): one-shot and streaming, little-endian feeders.
using System;

namespace Blendsync
{
    public static unsafe class Checksum
    {
        public static void Init(ref ChecksumState s, ulong seed) { fixed (ChecksumState* p = &s) Native.bsync_checksum_init(p, seed); }
        public static void U64(ref ChecksumState s, ulong v) { fixed (ChecksumState* p = &s) Native.bsync_checksum_u64(p, v); }
        public static void U32(ref ChecksumState s, uint v) { fixed (ChecksumState* p = &s) Native.bsync_checksum_u32(p, v); }
        public static ulong Final(ref ChecksumState s) { fixed (ChecksumState* p = &s) return Native.bsync_checksum_final(p); }
        public static ulong Xxh64(byte[] data, int length, ulong seed)
        {
            if (data == null || length < 0 || length > data.Length) throw new ArgumentException("data / length");
            fixed (byte* d = data) return Native.bsync_checksum_xxh64(d, new UIntPtr((uint)length), seed);
        }
        /// <summary>bsync_checksum_pose of a pose (JointCount transforms).</summary>
        public static ulong Pose(Trs[] pose, int jointCount)
        {
            if (pose == null || jointCount < 0 || pose.Length < jointCount) throw new ArgumentException("pose");
            fixed (Trs* p = pose) return Native.bsync_checksum_pose(p, (uint)jointCount);
        }
    }

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

    /// <summary>The loaded library's version (bsync_version) and the one this binding was made for.</summary>
    public static class Library
    {
        public const uint BindingVersion = 0x000100; // 0.1.0: BSYNC_VERSION_NUMBER of the headers mirrored
        public static uint Version { get { return Native.bsync_version(); } }
        public static string VersionString { get { return Utf8.Read(Native.bsync_version_string()); } }
        /// <summary>Throws when the loaded library is another 0.MINOR (another ABI, docs/library.md).</summary>
        public static void CheckVersion()
        {
            if ((Version >> 8) != (BindingVersion >> 8))
                throw new BlendsyncException(Result.Mismatch, "libblendsync " + VersionString + " is not the 0.1 ABI this binding was built for");
        }
    }
}
