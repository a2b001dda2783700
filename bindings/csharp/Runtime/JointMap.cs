// JointMap.cs — which joint of a graph's skeleton drives which node of an engine's hierarchy, by
// name (what the Unity sample uses to write a pose into Transforms). Plain C#: no engine types.
using System;
using System.Collections.Generic;

namespace Blendsync
{
    public sealed class JointMap
    {
        /// <summary>For target k (the names given), the joint index driving it, or -1.</summary>
        public readonly int[] JointOfTarget;
        /// <summary>Skeleton joints no target is named after.</summary>
        public readonly List<string> UnmappedJoints = new List<string>();
        public int MappedCount { get; private set; }

        /// <summary>Map targets to joints by exact name; a name that appears twice among the targets maps
        /// only its first occurrence.</summary>
        public JointMap(Graph graph, IList<string> targetNames)
        {
            if (graph == null || targetNames == null) throw new ArgumentNullException(graph == null ? "graph" : "targetNames");
            JointOfTarget = new int[targetNames.Count];
            var taken = new HashSet<int>();
            for (int k = 0; k < targetNames.Count; k++)
            {
                int j = targetNames[k] == null ? -1 : graph.FindJoint(targetNames[k]);
                if (j >= 0 && !taken.Add(j)) j = -1;
                JointOfTarget[k] = j;
                if (j >= 0) MappedCount++;
            }
            for (int j = 0; j < graph.JointCount; j++) if (!taken.Contains(j)) UnmappedJoints.Add(graph.JointName(j));
        }
    }
}
