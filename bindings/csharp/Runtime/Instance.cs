// Instance.cs — one graph instance (instance.h): tick, blend state, checksums, poses (fix16 and
// float), joint queries, root motion, node weights, snapshots. Either owning (new Instance(graph):
// the instance in unmanaged memory the object owns) or a view of a match's character
// (Match.Character(c), valid while the match is). No call allocates on the C# side: poses, weights
// and snapshots go into caller arrays.
using System;
using System.Runtime.InteropServices;

namespace Blendsync
{
    public sealed unsafe class Instance : IDisposable
    {
        readonly NativeMemoryHandle memory;   // owning instances only
        readonly SafeHandle graphOwner;       // AddRef'ed while an owning instance lives
        readonly Match viewMatch;             // views: the match whose character this is
        readonly IntPtr inst;
        bool disposed;
        public Graph Graph { get; private set; }

        /// <summary>A new instance of <paramref name="graph"/> in memory this object owns.</summary>
        public Instance(Graph graph)
        {
            if (graph == null) throw new ArgumentNullException("graph");
            IntPtr g = graph.P;
            long size = (long)Native.bsync_instance_memory_size(g).ToUInt64();
            memory = new NativeMemoryHandle(size);
            bool added = false;
            graph.Owner.DangerousAddRef(ref added);
            graphOwner = graph.Owner;
            IntPtr p;
            int r = Native.bsync_instance_init(memory.DangerousGetHandle(), new UIntPtr((ulong)size), g, out p);
            if (r != 0) { Dispose(); BlendsyncException.Check(r, "bsync_instance_init"); }
            inst = p;
            Graph = new Graph(graph.Ptr, graph.Owner, graph.OwnerObject, false);
        }

        internal Instance(IntPtr p, Graph graph, Match match)
        {
            inst = p;
            Graph = graph;
            viewMatch = match;
        }

        internal IntPtr P
        {
            get
            {
                if (disposed) throw new ObjectDisposedException("Instance");
                if (viewMatch != null) viewMatch.CheckAlive();
                return inst;
            }
        }

        /// <summary>Frees an owning instance; a match character's view is not owned (a no-op: it lives as
        /// long as its match).</summary>
        public void Dispose()
        {
            if (disposed || viewMatch != null) return;
            disposed = true;
            if (memory != null) memory.Dispose();
            if (presentScratch != null) presentScratch.Dispose();
            if (graphOwner != null) graphOwner.DangerousRelease();
        }

        // ---- ticking
        /// <summary>One tick with parameter targets (Graph.ParameterCount entries).</summary>
        public void Tick(Fix16[] targets) { Tick(targets, null, 0); }

        /// <summary>One tick with targets and the first <paramref name="triggerCount"/> switch triggers.</summary>
        public void Tick(Fix16[] targets, SwitchTrigger[] triggers, int triggerCount)
        {
            IntPtr p = P;
            int pc = Graph.ParameterCount;
            if (targets == null || targets.Length < pc) throw new ArgumentException("targets needs " + pc + " entries");
            if (triggerCount < 0 || (triggerCount > 0 && (triggers == null || triggers.Length < triggerCount)))
                throw new ArgumentException("triggerCount");
            fixed (Fix16* t = targets) fixed (SwitchTrigger* tr = triggers)
            {
                InstanceInput input;
                input.Targets = (int*)t;
                input.TargetCount = (uint)pc;
                BlendsyncException.Check(Native.bsync_instance_tick_ex(p, &input, tr, (uint)triggerCount), "bsync_instance_tick_ex");
            }
        }

        // ---- blend state
        public ulong TickCount { get { return Native.bsync_instance_tick_count(P); } }
        /// <summary>The filtered value of a parameter.</summary>
        public Fix16 Parameter(int i) { CheckIndex(i, Graph.ParameterCount); return Fix16.FromRaw(Native.bsync_instance_parameter(P, (uint)i)); }
        public Fix16 Target(int i) { CheckIndex(i, Graph.ParameterCount); return Fix16.FromRaw(Native.bsync_instance_target(P, (uint)i)); }
        public Fix16 NodePhase(int n) { CheckIndex(n, Graph.NodeCount); return Fix16.FromRaw(Native.bsync_instance_node_phase(P, (uint)n)); }

        /// <summary>Flattened leaf weights (Graph.MotionCount entries) into <paramref name="output"/>.</summary>
        public void LeafWeights(Fix16[] output)
        {
            int mc = Graph.MotionCount;
            if (output == null || output.Length < mc) throw new ArgumentException("output needs " + mc + " entries");
            int* w = Native.bsync_instance_leaf_weights(P);
            for (int i = 0; i < mc; i++) output[i] = Fix16.FromRaw(w[i]);
        }

        /// <summary>Child weights of node n (Graph.NodeChildCount(n) entries): what a debug view draws.
        /// Returns the count written.</summary>
        public int NodeWeights(int node, Fix16[] output)
        {
            CheckIndex(node, Graph.NodeCount);
            int cc = Graph.NodeChildCount(node);
            if (output == null || output.Length < cc) throw new ArgumentException("output needs " + cc + " entries");
            int* w = Native.bsync_instance_node_weights(P, (uint)node);
            for (int i = 0; i < cc; i++) output[i] = Fix16.FromRaw(w[i]);
            return cc;
        }

        /// <summary>The cross-fade stack of switch sw, oldest first (up to 4 entries). Returns the count.</summary>
        public int SwitchState(int sw, SwitchEntry[] output)
        {
            if (output == null || output.Length < 4) throw new ArgumentException("output needs 4 entries");
            uint n;
            fixed (SwitchEntry* e = output) BlendsyncException.Check(Native.bsync_instance_switch_state(P, (uint)sw, e, out n), "bsync_instance_switch_state");
            return (int)n;
        }

        /// <summary>The last tick's event and range reports (docs/actions.md "Reports"), copied into
        /// output without allocating. Returns the count (0 after init or a load, and for graphs without
        /// actions); throws when output is too small (ActionCount tells how many).</summary>
        public int Actions(ActionReport[] output)
        {
            ActionReport* r;
            uint n;
            BlendsyncException.Check(Native.bsync_instance_actions(P, out r, out n), "bsync_instance_actions");
            if (output == null || output.Length < (int)n) throw new ArgumentException("output needs " + n + " entries");
            for (uint i = 0; i < n; i++) output[i] = r[i];
            return (int)n;
        }

        /// <summary>The number of reports of the last tick (Actions).</summary>
        public int ActionCount
        {
            get { ActionReport* r; uint n; BlendsyncException.Check(Native.bsync_instance_actions(P, out r, out n), "bsync_instance_actions"); return (int)n; }
        }

        /// <summary>Float curve channel ch now (bsync_instance_curve: each slot's curve at its clip time,
        /// blended with the pose's weights).</summary>
        public Fix16 Curve(int ch)
        {
            int v;
            BlendsyncException.Check(Native.bsync_instance_curve(P, (uint)ch, out v), "bsync_instance_curve");
            return Fix16.FromRaw(v);
        }

        /// <summary>Where motion slot (node, child) is: cycles, clip seconds, normalised time, one-shot
        /// finished (bsync_instance_motion_time).</summary>
        public MotionTime MotionTime(int node, int child)
        {
            MotionTime t;
            BlendsyncException.Check(Native.bsync_instance_motion_time(P, (uint)node, (uint)child, &t), "bsync_instance_motion_time");
            return t;
        }

        /// <summary>The last tick's root-motion delta (zero / identity unless the graph extracts it).</summary>
        public RootMotion RootMotion
        {
            get { RootMotion rm; BlendsyncException.Check(Native.bsync_instance_root_motion(P, &rm), "bsync_instance_root_motion"); return rm; }
        }

        // ---- checksums
        public ulong StateChecksum { get { return Native.bsync_instance_state_checksum(P); } }
        /// <summary>Computes the pose and checksums it (Mismatch without a skeleton).</summary>
        public ulong PoseChecksum()
        {
            ulong c;
            BlendsyncException.Check(Native.bsync_instance_pose_checksum(P, &c, null), "bsync_instance_pose_checksum");
            return c;
        }

        // ---- poses
        /// <summary>Local transforms (JointCount) and, when <paramref name="model"/> is not null, model ones.</summary>
        public void Pose(Trs[] local, Trs[] model)
        {
            int jc = Graph.JointCount;
            if (local == null || local.Length < jc) throw new ArgumentException("local needs " + jc + " entries");
            if (model != null && model.Length < jc) throw new ArgumentException("model needs " + jc + " entries");
            fixed (Trs* l = local) fixed (Trs* m = model)
                BlendsyncException.Check(Native.bsync_instance_pose(P, l, m), "bsync_instance_pose");
        }

        /// <summary>The pose as floats for rendering: <paramref name="local"/> (JointCount fix16
        /// transforms) receives the local pose, <paramref name="model"/> (null, or JointCount) the model
        /// pose; <paramref name="output"/> gets the float conversion (bsync_present_to_float) of the
        /// model pose when model is given, else of the local one. Display only: never feed floats back.</summary>
        public void PoseFloat(Trs[] local, Trs[] model, TrsF[] output)
        {
            int jc = Graph.JointCount;
            if (output == null || output.Length < jc) throw new ArgumentException("output needs " + jc + " entries");
            Pose(local, model);
            fixed (Trs* l = local) fixed (Trs* m = model) fixed (TrsF* o = output)
                Native.bsync_present_to_float(m != null ? m : l, (uint)jc, o);
        }

        NativeMemoryHandle presentScratch; // made on the first PresentPose (a copy of the instance)

        /// <summary>The presentation pose at tick + alpha (present.h: alpha 0 is the tick pose bit for
        /// bit; alpha in 2^-16 ticks, clamped to 3.0; extrapolated past 1). local: JointCount transforms;
        /// model: null or JointCount; returns the root motion from the tick to tick + alpha. The instance
        /// is not changed. The first call allocates the scratch copy once.</summary>
        public RootMotion PresentPose(Fix16 alpha, Trs[] local, Trs[] model)
        {
            IntPtr p = P;
            int jc = Graph.JointCount;
            if (local == null || local.Length < jc) throw new ArgumentException("local needs " + jc + " entries");
            if (model != null && model.Length < jc) throw new ArgumentException("model needs " + jc + " entries");
            if (presentScratch == null) presentScratch = new NativeMemoryHandle((long)Native.bsync_present_scratch_size(Graph.P).ToUInt64());
            RootMotion root;
            fixed (Trs* l = local) fixed (Trs* m = model)
                BlendsyncException.Check(Native.bsync_present_pose(p, alpha.Raw, presentScratch.Ptr(this), new UIntPtr((ulong)presentScratch.Size),
                                                                   l, m, &root), "bsync_present_pose");
            return root;
        }

        /// <summary>Model transforms of the given joints (hit boxes): output[k] for joints[k].</summary>
        public void JointQuery(uint[] joints, int count, Trs[] output)
        {
            if (count < 0 || joints == null || joints.Length < count || output == null || output.Length < count)
                throw new ArgumentException("joints / output shorter than count");
            fixed (uint* j = joints) fixed (Trs* o = output)
                BlendsyncException.Check(Native.bsync_instance_joint_query(P, j, (uint)count, o), "bsync_instance_joint_query");
        }

        // ---- snapshots
        /// <summary>A buffer of this size always holds a snapshot of this graph.</summary>
        public int SnapshotSizeMax { get { return (int)Native.bsync_instance_snapshot_size_max(Graph.P).ToUInt64(); } }
        /// <summary>Save into buffer; returns the bytes written.</summary>
        public int Save(byte[] buffer)
        {
            if (buffer == null) throw new ArgumentNullException("buffer");
            UIntPtr w;
            fixed (byte* b = buffer) BlendsyncException.Check(Native.bsync_instance_save(P, b, new UIntPtr((uint)buffer.Length), out w), "bsync_instance_save");
            return (int)w.ToUInt64();
        }
        /// <summary>Load a snapshot (checked first: BadBlob / Mismatch leave the instance untouched).</summary>
        public void Load(byte[] buffer, int length)
        {
            if (buffer == null || length < 0 || length > buffer.Length) throw new ArgumentException("buffer / length");
            fixed (byte* b = buffer) BlendsyncException.Check(Native.bsync_instance_load(P, b, new UIntPtr((uint)length)), "bsync_instance_load");
        }

        static void CheckIndex(int i, int n) { if ((uint)i >= (uint)n) throw new ArgumentOutOfRangeException("index", i + " not below " + n); }
    }
}
