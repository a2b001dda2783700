// PredictedMatchView.cs — a predicting client in Unity (docs/prediction.md "What a Unity team writes"):
// Update services the network, sends this frame's input quantized to fix16 once, and writes one
// character's predicted pose (with the correction offsets: corrections never pop) to the Transforms
// below `skeletonRoot` whose names are joint names (JointMap). Rollbacks are logged. The same driver
// runs under Mono as samples/PredictDriver.cs (tested by csharp_bot). NOT RUN: Unity was not available
// where this was written.
using System.Collections.Generic;
using Blendsync;
using UnityEngine;

public sealed class PredictedMatchView : MonoBehaviour
{
    [Tooltip("Absolute path of the match config (JSON); its graph files beside it")]
    public string matchConfigPath;
    public string host = "127.0.0.1";
    public ushort port = 7777;
    public int localSlot = 0;
    public string token;
    public int character = 0;
    public Transform skeletonRoot;
    public uint rollbackWindow = 8, localDelay = 0;
    public string axisXParam = "move_x", axisYParam = "move_y";

    MatchConfig config;
    Client client;
    JointMap map;
    Transform[] targets;
    Trs[] pose, local;
    TrsF[] poseF;
    RootMotion[] roots;
    int firstJoint, px = -1, py = -1;
    ulong rollbacksSeen;
    MatchInput input;

    void Awake()
    {
        Library.CheckVersion();
        config = MatchConfig.Load(matchConfigPath);
        client = new Client(config, new ClientOptions
        {
            Host = host, Port = port, Slot = localSlot, Token = token,
            Predict = true, RollbackWindow = rollbackWindow, LocalDelay = localDelay // the one switch
        });
        Graph g = config.CharacterGraph(character);
        for (int c = 0; c < character; c++) firstJoint += config.CharacterGraph(c).JointCount;
        var all = skeletonRoot.GetComponentsInChildren<Transform>();
        var names = new List<string>(all.Length);
        foreach (var t in all) names.Add(t.name);
        targets = all;
        map = new JointMap(g, names);
        poseF = new TrsF[g.JointCount];
        local = new Trs[g.JointCount];
        roots = new RootMotion[config.CharacterCount];
        px = config.FindParam(axisXParam);
        py = config.FindParam(axisYParam);
    }

    void Update()
    {
        client.Service(0);
        ClientEvent ev;
        while (client.PollEvent(out ev))
            if (ev.Type == ClientEventType.Desync) Debug.LogWarning("blendsync: desync reported at tick " + ev.Desync.Tick);
        if (client.State != ClientState.Running && client.State != ClientState.Joining) return;
        if (px >= 0) input.SetParam(px, Fix16.FromDouble(System.Math.Round(Input.GetAxis("Horizontal"), 3)));
        if (py >= 0) input.SetParam(py, Fix16.FromDouble(System.Math.Round(Input.GetAxis("Vertical"), 3)));
        uint assigned;
        client.SendInput(ref input, out assigned); // predicted at once, confirmed by the server later
        if (client.State != ClientState.Running) return;
        if (pose == null) pose = new Trs[client.PresentJointCount];
        client.PresentPredicted(client.PredictAlpha, (ulong)(Time.deltaTime * 1e9f), pose, roots);
        System.Array.Copy(pose, firstJoint, local, 0, local.Length); // this character's joints (local space)
        Pose.ToFloat(local, local.Length, poseF);
        for (int k = 0; k < targets.Length; k++)
        {
            int j = map.JointOfTarget[k];
            if (j < 0) continue;
            TrsF p = poseF[j]; // glTF/Unity handedness differ: a real project converts here
            targets[k].localPosition = new Vector3(p.Tx, p.Ty, p.Tz);
            targets[k].localRotation = new Quaternion(p.Rx, p.Ry, p.Rz, p.Rw);
        }
        ClientPredictStats ps;
        client.GetPredictStats(out ps);
        if (ps.Rollbacks != rollbacksSeen)
        {
            rollbacksSeen = ps.Rollbacks;
            Debug.Log("blendsync: rollback " + ps.Rollbacks + " (deepest so far " + ps.DepthMax + " ticks)");
        }
    }

    void OnDestroy()
    {
        if (client != null) client.Dispose();
        if (config != null) config.Dispose();
    }
}
