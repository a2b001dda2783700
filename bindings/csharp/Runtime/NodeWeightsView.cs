// NodeWeightsView.cs — the weights of one blend node's children for a debug view (the Unity Gizmo
// sample draws them as bars): child names once, the weights as floats after each tick. Plain C#.
using System;

namespace Blendsync
{
    public sealed class NodeWeightsView
    {
        public readonly int Node;
        public readonly string[] ChildNames;
        /// <summary>After Refresh: each child's weight (display only: raw / 65536).</summary>
        public readonly float[] Weights;
        readonly Fix16[] raw;

        public NodeWeightsView(Graph graph, string nodeName)
        {
            if (graph == null) throw new ArgumentNullException("graph");
            Node = graph.FindNode(nodeName);
            if (Node < 0) throw new ArgumentException("no node named \"" + nodeName + "\"");
            int n = graph.NodeChildCount(Node);
            ChildNames = new string[n];
            for (int k = 0; k < n; k++) ChildNames[k] = graph.NodeChildName(Node, k);
            Weights = new float[n];
            raw = new Fix16[n];
        }

        /// <summary>Read the node's current child weights from an instance of the graph.</summary>
        public void Refresh(Instance instance)
        {
            int n = instance.NodeWeights(Node, raw);
            for (int k = 0; k < n; k++) Weights[k] = raw[k].ToFloat();
        }
    }
}
