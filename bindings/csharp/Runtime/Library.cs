// Library.cs — the loaded native library's version against the one this binding mirrors
// (docs/library.md: a different 0.MINOR is a different ABI).
using System;

namespace Blendsync
{
    /// <summary>The loaded library's version (bsync_version) and the one this binding was made for.</summary>
    public static class Library
    {
        public const uint BindingVersion = 0x000500; // 0.5.0: BSYNC_VERSION_NUMBER of the headers mirrored
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
