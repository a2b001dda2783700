// MatchTicker.cs — the frame-sync loop of the blend-tree article in Unity: FixedUpdate reads this
// player's input, quantizes it to fix16 once (every machine must feed the same bits), ticks the
// match one step (MatchDriver, tested under Mono) and writes one character's pose to the Transforms
// below `skeletonRoot` whose names are joint names (JointMap). Set Time.fixedDeltaTime to
// 1 / the match's tick rate. NOT RUN: Unity was not available where this was written.
// Single-player / local lockstep only: with a server, use Blendsync.Client and apply Client.Match.
using System.Collections.Generic;
using Blendsync;
using UnityEngine;

public sealed class MatchTicker : MonoBehaviour
{
    [Tooltip("Absolute path of the match config (JSON); its graph files beside it")]
    public string matchConfigPath;
    public int localSlot = 0;
    public int character = 0;
    public Transform skeletonRoot;
    [Tooltip("Input parameter names of the match config driven by the horizontal / vertical axes")]
    public string axisXParam = "move_x", axisYParam = "move_y";

    MatchConfig config;
    MatchDriver driver;
    JointMap map;
    Transform[] targets;
    TrsF[] pose;
    int px = -1, py = -1;

    void Awake()
    {
        Library.CheckVersion();
        config = MatchConfig.Load(matchConfigPath);
        driver = new MatchDriver(config);
        Graph g = config.CharacterGraph(character);
        var all = skeletonRoot.GetComponentsInChildren<Transform>();
        var names = new List<string>(all.Length);
        foreach (var t in all) names.Add(t.name);
        targets = all;
        map = new JointMap(g, names);
        pose = new TrsF[g.JointCount];
        px = config.FindParam(axisXParam);
        py = config.FindParam(axisYParam);
        Time.fixedDeltaTime = 1f / config.TickRate;
        if (map.UnmappedJoints.Count > 0) Debug.Log("blendsync: joints without a Transform: " + string.Join(", ", map.UnmappedJoints));
    }

    void FixedUpdate()
    {
        if (px >= 0) driver.SetParam(localSlot, px, Fix16.FromDouble(System.Math.Round(Input.GetAxis("Horizontal"), 3)));
        if (py >= 0) driver.SetParam(localSlot, py, Fix16.FromDouble(System.Math.Round(Input.GetAxis("Vertical"), 3)));
        driver.Tick();
        driver.ModelPose(character, pose);
        // model-space pose -> world transforms under skeletonRoot (glTF/Unity handedness differ: a real
        // project converts here; the blendsync side stays untouched)
        for (int k = 0; k < targets.Length; k++)
        {
            int j = map.JointOfTarget[k];
            if (j < 0) continue;
            TrsF p = pose[j];
            targets[k].position = skeletonRoot.TransformPoint(new Vector3(p.Tx, p.Ty, p.Tz));
            targets[k].rotation = skeletonRoot.rotation * new Quaternion(p.Rx, p.Ry, p.Rz, p.Rw);
        }
    }

    void OnDestroy()
    {
        if (driver != null) driver.Dispose();
        if (config != null) config.Dispose();
    }

    public MatchDriver Driver { get { return driver; } }
}
