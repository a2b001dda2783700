// BlendsyncException.cs — bsync_result as an enum and the exception every failing call throws: the
// code, and the library's own message (for file-facing calls the bsync_error text, which names the
// file and the JSON path: "loco.json: /nodes/move/children/2/position: expected an array of 2 numbers").
using System;

namespace Blendsync
{
    /// <summary>bsync_result (base.h); the numeric values are the library's (stable, append only).</summary>
    public enum Result
    {
        Ok = 0, InvalidArgument, OutOfMemory, BufferTooSmall, LimitExceeded, Overflow, NotFinite, ParseError,
        BadHierarchy, DuplicateName, BadName, NotFound, KeysUnsorted, KeyOutOfRange, BadRotation, BadDuration,
        NoSuchJoint, DuplicateTrack, BadBlob, Mismatch, BadTickRate, BadLayout, Cycle, ConfigError, IoError
    }

    public class BlendsyncException : Exception
    {
        public Result Code { get; private set; }

        public BlendsyncException(Result code, string message) : base(message) { Code = code; }

        /// <summary>The library's stable text of a code (bsync_result_string).</summary>
        public static string ResultText(Result r) { return Utf8.Read(Native.bsync_result_string((int)r)); }

        internal static void Check(int r, string what)
        {
            if (r != 0) throw new BlendsyncException((Result)r, what + ": " + ResultText((Result)r));
        }

        internal static unsafe void Check(int r, ref Error err)
        {
            if (r == 0) return;
            string msg;
            fixed (Error* e = &err) msg = Utf8.Read(e->Message, 512);
            if (msg.Length == 0) msg = ResultText((Result)r);
            throw new BlendsyncException((Result)r, msg);
        }
    }
}
