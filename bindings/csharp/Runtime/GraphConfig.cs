// GraphConfig.cs — graph configuration files (io/graph_config.h): a JSON config and its clips ->
// an immutable graph, plus Graph (a view of it: names, counts, joints, switches) and BlendTree (a
// config's blend tree parsed from bytes, io/config.h bsync_config_parse).
using System;
using System.Runtime.InteropServices;

namespace Blendsync
{
    /// <summary>A loaded graph config (bsync_graph_config): owns the graph, its tree, skeleton and clips.
    /// Instances made from it keep the native object alive until they are disposed too.</summary>
    public sealed class GraphConfig : IDisposable
    {
        internal readonly GraphConfigHandle Handle;
        readonly Graph graph;

        GraphConfig(GraphConfigHandle h)
        {
            Handle = h;
            graph = new Graph(Native.bsync_graph_config_graph(h.DangerousGetHandle()), h, this);
        }

        /// <summary>Load CONFIG and import its clip sources (relative to the config's directory).
        /// Errors throw BlendsyncException with the library's "FILE: /json/path: message".</summary>
        public static unsafe GraphConfig Load(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            var h = new GraphConfigHandle();
            Error err = default(Error);
            IntPtr p;
            int r = Native.bsync_graph_config_load(Utf8.Z(path), IntPtr.Zero, out p, IntPtr.Zero, &err);
            BlendsyncException.Check(r, ref err);
            h.Set(p);
            return new GraphConfig(h);
        }

        public Graph Graph { get { Handle.Ptr(this); return graph; } }
        /// <summary>Motions that have a clip (0: the graph has no pose, only blend state).</summary>
        public uint BoundClipCount { get { return Native.bsync_graph_config_bound_clip_count(Handle.Ptr(this)); } }
        /// <summary>The loader's notes (sources loaded, retargeting), one per line.</summary>
        public string Notes { get { return Utf8.Read(Native.bsync_graph_config_notes(Handle.Ptr(this))); } }
        public void Dispose() { Handle.Dispose(); }
    }

    /// <summary>A view of an immutable bsync_graph owned by a GraphConfig or a MatchConfig.</summary>
    public sealed class Graph
    {
        internal readonly IntPtr Ptr;
        internal readonly BlendsyncHandle Owner;
        internal readonly object OwnerObject;
        readonly bool checkOwner; // false for the graph of an instance or match, which holds a reference

        internal Graph(IntPtr p, BlendsyncHandle owner, object ownerObject, bool checkOwner = true)
        {
            Ptr = p;
            Owner = owner;
            OwnerObject = ownerObject;
            this.checkOwner = checkOwner;
        }

        internal IntPtr P
        {
            get { if (checkOwner && Owner.UserClosed) throw new ObjectDisposedException(OwnerObject.GetType().Name); return Ptr; }
        }
        IntPtr Tree { get { return Native.bsync_graph_tree(P); } }

        public ulong Hash { get { return Native.bsync_graph_hash(P); } }
        public uint TickRate { get { return Native.bsync_graph_tick_rate(P); } }
        public int ParameterCount { get { return (int)Native.bsync_graph_parameter_count(P); } }
        public int MotionCount { get { return (int)Native.bsync_graph_motion_count(P); } }
        public int NodeCount { get { return (int)Native.bsync_graph_node_count(P); } }
        /// <summary>0 without a skeleton (no clips bound: blend state only).</summary>
        public int JointCount { get { return (int)Native.bsync_graph_joint_count(P); } }
        public int SwitchCount { get { return (int)Native.bsync_graph_switch_count(P); } }
        /// <summary>The pose rule (graph.h): 1 normalized (the default), 2 lerped ("pose_rule" in the config).</summary>
        public int PoseRule { get { return Native.bsync_graph_pose_rule(P); } }
        public bool ExtractsRootMotion { get { return Native.bsync_graph_root_motion(P) == 1; } }

        public string ParameterName(int i) { return Utf8.Read(Native.bsync_blend_tree_parameter_name(Tree, (uint)i)); }
        public Fix16 ParameterDefault(int i) { return Fix16.FromRaw(Native.bsync_blend_tree_parameter_default(Tree, (uint)i)); }
        public string MotionName(int i) { return Utf8.Read(Native.bsync_blend_tree_motion_name(Tree, (uint)i)); }
        public string NodeName(int n) { return Utf8.Read(Native.bsync_blend_tree_node_name(Tree, (uint)n)); }
        public int RootNode { get { return (int)Native.bsync_blend_tree_root(Tree); } }
        public int NodeChildCount(int n) { return (int)Native.bsync_blend_tree_node_child_count(Tree, (uint)n); }
        /// <summary>The name of child k of node n: a motion's or a nested node's.</summary>
        public string NodeChildName(int n, int k)
        {
            ChildRef c = Native.bsync_blend_tree_node_child(Tree, (uint)n, (uint)k);
            return c.Kind == 1 ? NodeName((int)c.Index) : MotionName((int)c.Index);
        }
        /// <summary>-1 when there is no such parameter / node / joint.</summary>
        public int FindParameter(string name)
        {
            uint i;
            return Native.bsync_blend_tree_find_parameter(Tree, Utf8.Z(name), out i) == 0 ? (int)i : -1;
        }
        public int FindNode(string name)
        {
            uint i;
            return Native.bsync_blend_tree_find_node(Tree, Utf8.Z(name), out i) == 0 ? (int)i : -1;
        }
        public int FindJoint(string name)
        {
            uint i;
            return Native.bsync_graph_find_joint(P, Utf8.Z(name), out i) == 0 ? (int)i : -1;
        }
        public string JointName(int j)
        {
            IntPtr sk = Native.bsync_graph_skeleton(P);
            if (sk == IntPtr.Zero || (uint)j >= (uint)JointCount) throw new ArgumentOutOfRangeException("j");
            return Utf8.Read(Native.bsync_skeleton_joint_name(sk, (uint)j));
        }
        /// <summary>The parent joint index, -1 for a root.</summary>
        public int JointParent(int j)
        {
            IntPtr sk = Native.bsync_graph_skeleton(P);
            if (sk == IntPtr.Zero || (uint)j >= (uint)JointCount) throw new ArgumentOutOfRangeException("j");
            return Native.bsync_skeleton_parent(sk, (uint)j);
        }
        /// <summary>The tree node of switch sw.</summary>
        public int SwitchNode(int sw) { return (int)Native.bsync_graph_switch_node(P, (uint)sw); }
        /// <summary>True for a one-shot motion ("loop": false, docs/actions.md).</summary>
        public bool MotionOneShot(int m) { return Native.bsync_graph_motion_one_shot(P, (uint)m) != 0; }
        /// <summary>Float curve channels (docs/actions.md "Float curves"): names in order of first appearance.</summary>
        public int CurveChannelCount { get { return (int)Native.bsync_graph_curve_channel_count(P); } }
        public string CurveChannelName(int ch)
        {
            if ((uint)ch >= (uint)CurveChannelCount) throw new ArgumentOutOfRangeException("ch");
            return Utf8.Read(Native.bsync_graph_curve_channel_name(P, (uint)ch));
        }
        /// <summary>-1 when there is no such channel.</summary>
        public int FindCurve(string name)
        {
            uint ch;
            return Native.bsync_graph_find_curve(P, Utf8.Z(name), out ch) == 0 ? (int)ch : -1;
        }
        /// <summary>Events and ranges of the graph (ActionReport.Action indexes them).</summary>
        public int ActionCount { get { return (int)Native.bsync_graph_action_count(P); } }
        public unsafe GraphAction Action(int i)
        {
            GraphActionDesc d;
            BlendsyncException.Check(Native.bsync_graph_action(P, (uint)i, &d), "bsync_graph_action");
            GraphAction a;
            a.Name = Utf8.Read(d.Name);
            a.Motion = (int)d.Motion;
            a.Kind = (ActionKind)d.Kind;
            a.Time = Fix16.FromRaw(d.Time);
            a.End = Fix16.FromRaw(d.End);
            a.Payload = d.Payload;
            a.Policy = (ActionPolicy)d.Policy;
            a.Threshold = Fix16.FromRaw(d.Threshold);
            return a;
        }
        /// <summary>The switch index of a Switch node, -1 for another node.</summary>
        public int SwitchOfNode(int node)
        {
            for (int i = 0; i < SwitchCount; i++) if (SwitchNode(i) == node) return i;
            return -1;
        }
    }

    /// <summary>The blend tree of a config parsed from bytes (bsync_config_parse): names, defaults and
    /// a node's weights for given parameter values. (The C API loads whole graphs, with clips, only from
    /// a path: GraphConfig.Load.)</summary>
    public sealed class BlendTree : IDisposable
    {
        readonly BlendTreeHandle handle;
        BlendTree(BlendTreeHandle h) { handle = h; }

        /// <summary>Parse config text; <paramref name="name"/> is used in error messages.</summary>
        public static unsafe BlendTree Parse(byte[] text, string name)
        {
            if (text == null) throw new ArgumentNullException("text");
            var h = new BlendTreeHandle();
            Error err = default(Error);
            IntPtr p;
            int r;
            fixed (byte* t = text) r = Native.bsync_config_parse(t, new UIntPtr((uint)text.Length), Utf8.Z(name ?? "config"),
                                                                 IntPtr.Zero, out p, IntPtr.Zero, &err);
            BlendsyncException.Check(r, ref err);
            h.Set(p);
            return new BlendTree(h);
        }

        IntPtr P { get { return handle.Ptr(this); } }
        public int ParameterCount { get { return (int)Native.bsync_blend_tree_parameter_count(P); } }
        public int MotionCount { get { return (int)Native.bsync_blend_tree_motion_count(P); } }
        public int NodeCount { get { return (int)Native.bsync_blend_tree_node_count(P); } }
        public string ParameterName(int i) { return Utf8.Read(Native.bsync_blend_tree_parameter_name(P, (uint)i)); }
        public Fix16 ParameterDefault(int i) { return Fix16.FromRaw(Native.bsync_blend_tree_parameter_default(P, (uint)i)); }
        public string MotionName(int i) { return Utf8.Read(Native.bsync_blend_tree_motion_name(P, (uint)i)); }
        public string NodeName(int n) { return Utf8.Read(Native.bsync_blend_tree_node_name(P, (uint)n)); }
        public int NodeChildCount(int n) { return (int)Native.bsync_blend_tree_node_child_count(P, (uint)n); }

        /// <summary>Child weights of node n for parameter values (ParameterCount entries) into weights
        /// (NodeChildCount(n) entries).</summary>
        public unsafe void EvalNode(int node, Fix16[] parameters, Fix16[] weights)
        {
            if (parameters == null || parameters.Length < ParameterCount) throw new ArgumentException("parameters");
            if ((uint)node >= (uint)NodeCount) throw new ArgumentOutOfRangeException("node");
            if (weights == null || weights.Length < NodeChildCount(node)) throw new ArgumentException("weights");
            fixed (Fix16* p = parameters) fixed (Fix16* w = weights)
                BlendsyncException.Check(Native.bsync_blend_tree_eval_node(P, (uint)node, (int*)p, (int*)w), "bsync_blend_tree_eval_node");
        }
        public void Dispose() { handle.Dispose(); }
    }
}
