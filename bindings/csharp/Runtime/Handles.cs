// Handles.cs — SafeHandle ownership of every C object the binding creates: the handle's
// ReleaseHandle calls the library's destroy function exactly once (Dispose twice is harmless; a
// finalizer frees what was never disposed). Caller-memory objects (instances, matches) own an
// unmanaged block (8-byte aligned: malloc's alignment) through NativeMemoryHandle.
using System;
using System.Runtime.InteropServices;

namespace Blendsync
{
    internal abstract class BlendsyncHandle : SafeHandle
    {
        protected BlendsyncHandle() : base(IntPtr.Zero, true) { }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        // Disposed by its owner. (SafeHandle.IsClosed is not used for this: while another object holds a
        // DangerousAddRef, Mono keeps IsClosed false until the last release.)
        internal bool UserClosed;
        protected override void Dispose(bool disposing) { UserClosed = true; base.Dispose(disposing); }
        internal IntPtr Ptr(object owner)
        {
            if (UserClosed || IsClosed || IsInvalid) throw new ObjectDisposedException(owner.GetType().Name);
            return handle;
        }
        internal void Set(IntPtr p) { SetHandle(p); }
    }

    internal sealed class GraphConfigHandle : BlendsyncHandle
    {
        protected override bool ReleaseHandle() { Native.bsync_graph_config_destroy(handle); return true; }
    }

    internal sealed class BlendTreeHandle : BlendsyncHandle
    {
        protected override bool ReleaseHandle() { Native.bsync_blend_tree_destroy(handle); return true; }
    }

    internal sealed class MatchConfigHandle : BlendsyncHandle
    {
        protected override bool ReleaseHandle() { Native.bsync_match_config_destroy(handle); return true; }
    }

    internal sealed class ScriptHandle : BlendsyncHandle
    {
        protected override bool ReleaseHandle() { Native.bsync_script_destroy(handle); return true; }
    }

    internal sealed class ReplayReaderHandle : BlendsyncHandle
    {
        protected override bool ReleaseHandle() { Native.bsync_replay_reader_close(handle); return true; }
    }

    internal sealed class ClientHandle : BlendsyncHandle
    {
        protected override bool ReleaseHandle() { Native.bsync_client_destroy(handle); return true; }
    }

    internal sealed class NativeMemoryHandle : BlendsyncHandle
    {
        internal readonly long Size;
        internal NativeMemoryHandle(long size)
        {
            Size = size;
            IntPtr p = Marshal.AllocHGlobal(new IntPtr(size > 0 ? size : 1));
            unsafe { byte* b = (byte*)p; for (long i = 0; i < size; i++) b[i] = 0; }
            Set(p);
        }
        protected override bool ReleaseHandle() { Marshal.FreeHGlobal(handle); return true; }
    }
}
