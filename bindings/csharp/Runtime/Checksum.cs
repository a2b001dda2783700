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
}
