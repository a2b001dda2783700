// BlendWeightsGizmo.cs — the article's Gizmo debugging tip: draws the child weights of one blend node
// of a MatchTicker's character as bars above this GameObject (NodeWeightsView, tested under Mono).
// NOT RUN: Unity was not available where this was written.
using Blendsync;
using UnityEngine;

public sealed class BlendWeightsGizmo : MonoBehaviour
{
    public MatchTicker ticker;
    public string nodeName = "move";
    public float barHeight = 1f, barSpacing = 0.15f;

    NodeWeightsView view;

    void OnDrawGizmos()
    {
        if (ticker == null || ticker.Driver == null) return;
        Instance inst = ticker.Driver.Match.Character(ticker.character);
        if (view == null) view = new NodeWeightsView(inst.Graph, nodeName);
        view.Refresh(inst);
        Vector3 origin = transform.position + Vector3.up * 2f;
        for (int k = 0; k < view.Weights.Length; k++)
        {
            float w = view.Weights[k];
            Vector3 basePoint = origin + Vector3.right * (k * barSpacing);
            Gizmos.color = Color.HSVToRGB(k / (float)view.Weights.Length, 0.8f, 1f);
            Gizmos.DrawLine(basePoint, basePoint + Vector3.up * (w * barHeight));
#if UNITY_EDITOR
            UnityEditor.Handles.Label(basePoint + Vector3.up * (w * barHeight + 0.05f), view.ChildNames[k] + " " + w.ToString("0.00"));
#endif
        }
    }
}
