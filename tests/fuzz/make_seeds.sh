#!/usr/bin/env bash
# Regenerates the seed corpora of the fuzz targets that read what the project's own tools write, from a
# build directory (default: build):  tests/fuzz/make_seeds.sh [BUILD_DIR]
#   proto          packets of every message type cut from `blendsync bot --capture` captures of a real
#                  60-tick match on blendsync-server (two bots, one with --inject-desync 20)
#   replay, replay_verify   `blendsync replay record` (40 ticks), `replay cut` of it (a SNAPSHOT record at
#                  tick 10), the server's replay of the match above (with its DESYNC record), a bot's own
#   snapshot       server.bsms, client.bsms, server-previous.bsms of the server's desync bundle, and the
#                  bot's client-previous.bsms (--desync-dir)
#   desync         pairs of those snapshots, A then B (fuzz_desync.c)
#   desync_bundle  the server's bundle packed as fuzz_desync_bundle.c reads it (u32 length + bytes per
#                  file), with and without its trail
#   match_config, graph_config, script_csv, script_inputs   the project's match, graph and CSV files
#                  (copied; script_inputs also one written here)
# Every run is the fuzz match tests/fuzz/match/match.json, so the seeds' match hash is the targets'.
# Files named crash-* or regress-* (kept crashers) are never touched. About 5 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
bin=$build/blendsync
server=$build/blendsync-server
[ -x "$bin" ] && [ -x "$server" ] || { echo "make_seeds.sh: no $bin or $server (build first)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "make_seeds.sh: python3 is needed" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
cp "$here/match/"* "$work/"
cd "$work"

# offline: a recorded replay and a cut of it (the cut starts with a SNAPSHOT)
"$bin" replay record match.json --ticks 40 --seed 3 -o record.bsreplay >/dev/null
"$bin" replay cut record.bsreplay --from 10 --to 30 --out cut.bsreplay >/dev/null

# a real match: blendsync-server and two bots, bot 1 with a planted desync (a bundle on the server)
port_of() { for _ in $(seq 1 200); do p=$(sed -n "s/^$2 127.0.0.1:\([0-9]*\)$/\1/p" "$1"); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.05; done; }
"$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 >server.out 2>server.log &
spid=$!
sport=$(port_of server.out "listening on")
[ -n "$sport" ] || { echo "make_seeds.sh: the server did not start" >&2; cat server.log >&2; exit 1; }
timeout 60 "$bin" bot --server "127.0.0.1:$sport" --config match.json --slot 0 --token fuzz-token-0 --quiet \
    --capture bot0.bscap --replay bot0.bsreplay >bot0.out 2>&1 &
b0=$!
rc1=0
timeout 60 "$bin" bot --server "127.0.0.1:$sport" --config match.json --slot 1 --token fuzz-token-1 --quiet \
    --inject-desync 20 --capture bot1.bscap --desync-dir botdesync >bot1.out 2>&1 || rc1=$?
wait $b0 || { echo "make_seeds.sh: bot 0 failed" >&2; cat bot0.out >&2; exit 1; }
wait $spid || true
[ $rc1 -eq 1 ] || { echo "make_seeds.sh: bot 1 did not desync (exit $rc1)" >&2; cat bot1.out >&2; exit 1; }
bundle=$(ls -d server.bsreplay.desync/tick*-slot1 | head -1)
client=$(ls -d botdesync/tick*-slot1 | head -1)

python3 - "$here/corpus" "$bundle" "$client" "$root" <<'PY'
import os, shutil, struct, sys
corpus, bundle, client, root = sys.argv[1:5]
def reset(fmt):
    d = os.path.join(corpus, fmt)
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        if not (f.startswith("crash-") or f.startswith("regress-")):
            os.remove(os.path.join(d, f))
    return d
def put(d, name, data):
    open(os.path.join(d, name), "wb").write(data)
def read(p):
    return open(p, "rb").read()

# proto: up to 3 packets of each type (distinct sizes first), FRAMEs of both codings
names = {1: "hello", 2: "welcome", 3: "input", 4: "input_ack", 5: "frame", 6: "checksum", 7: "desync",
         8: "snapshot", 9: "bye", 10: "end", 11: "start"}
packets = {}
for cap in ("bot0.bscap", "bot1.bscap"):
    data = read(cap)
    assert data[:4] == b"BSCP", cap
    pos = 8
    while pos + 8 <= len(data):
        sent, ch, n, ms = struct.unpack("<BBHI", data[pos:pos + 8])
        pkt = data[pos + 8:pos + 8 + n]
        pos += 8 + n
        if len(pkt) < 8:
            continue
        key = names.get(pkt[3], "unknown")
        if key == "frame":
            key = "frame_changes" if pkt[8 + 7] == 1 else "frame_full"  # u32 tick, u8 players, params, triggers, coding
        if key == "snapshot":
            key = "snapshot_kind%d" % pkt[8 + 4]
        packets.setdefault(key, []).append(pkt)
d = reset("proto")
for key, pkts in sorted(packets.items()):
    chosen, sizes = [], set()
    for p in pkts:
        if len(p) not in sizes:
            chosen.append(p); sizes.add(len(p))
        if len(chosen) == 3:
            break
    for i, p in enumerate(chosen):
        put(d, "%s-%d.bin" % (key, i), p)

# replays
for fmt in ("replay", "replay_verify"):
    d = reset(fmt)
    for name in ("record.bsreplay", "cut.bsreplay", "server.bsreplay", "bot0.bsreplay"):
        shutil.copy(name, os.path.join(d, name))

# snapshots
states = {n: read(os.path.join(bundle, n)) for n in ("server.bsms", "client.bsms", "server-previous.bsms")}
states["client-previous.bsms"] = read(os.path.join(client, "client-previous.bsms"))
d = reset("snapshot")
for n, b in states.items():
    put(d, n, b)
d = reset("desync")
put(d, "server-client.bin", states["server.bsms"] + states["client.bsms"])
put(d, "previous-server.bin", states["server-previous.bsms"] + states["server.bsms"])
put(d, "client-previous.bin", states["client.bsms"] + states["client-previous.bsms"])

# desync bundles: bundle.json, server.bsms, client.bsms, server-previous.bsms, client-trail.bstrail, inputs.csv
def pack(parts):
    return b"".join(struct.pack("<I", len(p)) + p for p in parts)
meta = read(os.path.join(bundle, "bundle.json"))
trail = read(os.path.join(bundle, "client-trail.bstrail"))
inputs = read(os.path.join(bundle, "inputs.csv"))
d = reset("desync_bundle")
put(d, "bundle.bin", pack([meta, states["server.bsms"], states["client.bsms"], states["server-previous.bsms"], trail, inputs]))
put(d, "no-trail.bin", pack([meta, states["server.bsms"], states["client.bsms"], states["server-previous.bsms"], b"", inputs]))

# configs and scripts of the project
d = reset("match_config")
shutil.copy(os.path.join(root, "tests/fuzz/match/match.json"), os.path.join(d, "fuzz-match.json"))
shutil.copy(os.path.join(root, "scripts/demo/match.json"), os.path.join(d, "demo-match.json"))
shutil.copy(os.path.join(root, "tests/fixtures/replay/v1/match.json"), os.path.join(d, "v1-match.json"))
d = reset("graph_config")
shutil.copy(os.path.join(root, "tests/fuzz/match/humanoid_locomotion.json"), os.path.join(d, "humanoid_locomotion.json"))
for n in sorted(os.listdir(os.path.join(root, "tests/fixtures/plot"))):
    if n.endswith(".json"):
        shutil.copy(os.path.join(root, "tests/fixtures/plot", n), os.path.join(d, "plot-" + n))
for n in ("actions-switch.json", "curves.json", "markers.json"):  # actions seeds (docs/actions.md), kept in tests/fuzz/seeds
    shutil.copy(os.path.join(root, "tests/fuzz/seeds", n), os.path.join(d, n))
d = reset("script_csv")
for n in ("joystick.csv", "locomotion_path.csv"):
    shutil.copy(os.path.join(root, "scripts/demo", n), os.path.join(d, n))
d = reset("script_inputs")
shutil.copy(os.path.join(root, "scripts/demo/joystick.csv"), os.path.join(d, "joystick.csv"))
put(d, "triggers.csv", b"tick, speed ,action,move_x\r\n\r\n0,1.4,,\n7,,2,-0.5\n+9,3.5,255,\n")
for fmt in sorted(os.listdir(corpus)):
    files = os.listdir(os.path.join(corpus, fmt))
    print("%-14s %2d files, %6d bytes" % (fmt, len(files), sum(os.path.getsize(os.path.join(corpus, fmt, f)) for f in files)))
PY
