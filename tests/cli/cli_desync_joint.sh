#!/usr/bin/env bash
# A pose-only desync named by joint in the desync bundle: a real blendsync-server (--verify-poses) and
# two bots; one plants `--inject-pose-desync TICK:CHARACTER:JOINT` (it reports that joint's checksum,
# and its character's pose checksums, with bit 0 flipped from frame TICK on, while its state stays
# right). Two matches at once, each with its own planted fault:
#   A: bot 1 plants 40:1:12 (character p1, joint 12)   B: bot 0 plants 20:0:3 (character p0, joint 3)
#   C: bot 1 plants 40:1:1000, a joint the skeleton does not have: p1 named, no joint
# Expected from the fault alone: checksums go out after the frames t with t + 1 a multiple of the
# interval (docs/protocol.md "CHECKSUM"), so with interval 15 the first check at or after TICK is the
# first tick whose pose checksums differ and the check before it agreed; the joint's name is the
# humanoid skeleton's joint of that index as `blendsync bake --skin` writes the skin (read here from the
# .glb with Python, not through the desync code); the two per-joint checksums differ in bit 0 alone.
# Checked: report.txt names the character, tick and joint in words; bundle.json's "pose_joints" names
# exactly that joint; `blendsync desync diff BUNDLE` prints report.txt's pose lines, exits 1, and its
# --json has the same joint; a copy of the bundle as an earlier server wrote it (format 2, no
# pose_joints) still reads: exit 0, no pose line; malformed option values are refused (exit 2).
# usage: cli_desync_joint.sh PATH_TO_BLENDSYNC WORK_DIR   (blendsync-server is looked for next to it)
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
server=$(dirname "$bin")/blendsync-server
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ ! -x "$server" ]; then
  echo "skip: no blendsync-server next to $bin"
  exit 0
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

interval=15
# the humanoid's joint names in skeleton order, from the skin bake writes (glTF: skins[0].joints -> nodes)
cp "$src/scripts/demo/humanoid_locomotion.json" .
printf 'tick,speed\n0,0\n' > still.csv
"$bin" bake humanoid_locomotion.json --script still.csv --ticks 1 --skin -o skel.glb > /dev/null
python3 - skel.glb > joints.txt <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
magic, _, _ = struct.unpack_from("<III", data, 0)
assert magic == 0x46546C67, "not a glb"
n, kind = struct.unpack_from("<II", data, 12)
assert kind == 0x4E4F534A, "first chunk is not JSON"
g = json.loads(data[20:20 + n])
for j in g["skins"][0]["joints"]:
    print(g["nodes"][j]["name"])
PY
joint_count=$(wc -l < joints.txt)
[ "$joint_count" -gt 12 ] && ok "the humanoid has $joint_count joints (bake's skin)" || bad "skeleton from bake: $joint_count joints"

# one match: NAME SLOT_THAT_PLANTS TICK CHARACTER JOINT (runs in the background; waits in finish)
start_match() {
  local name=$1 slot=$2 spec=$3
  mkdir -p "$name" && cp humanoid_locomotion.json "$name/"
  cat > "$name/match.json" <<EOF
{ "match_id": 9, "players": [ {"token": "tok-a"}, {"token": "tok-b"} ],
  "input": { "parameters": [ { "name": "speed", "min": 0, "max": 3.5 } ], "hold_ticks": [10, 30] },
  "characters": [ { "name": "p0", "graph": "humanoid_locomotion.json", "slot": 0 },
                  { "name": "p1", "graph": "humanoid_locomotion.json", "slot": 1 } ],
  "checksum_interval": $interval, "replay": "rec/match.bsreplay", "duration_ticks": 60,
  "timeouts": { "start_ms": 5000, "peer_ms": 3000, "idle_ms": 3000 } }
EOF
  (
    cd "$name"
    "$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 --verify-poses > srv.out 2> srv.err &
    srv=$!
    port=""
    for _ in $(seq 100); do
      port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\).*$/\1/p' srv.out | head -n 1)
      [ -n "$port" ] && break
      sleep 0.05
    done
    plant() { if [ "$1" = "$slot" ]; then echo "--inject-pose-desync $spec"; fi; }
    # shellcheck disable=SC2046
    "$bin" bot --server 127.0.0.1:"$port" --config match.json --slot 0 --token tok-a --quiet --timeout 25 $(plant 0) > bot0.txt 2>&1 &
    b0=$!
    # shellcheck disable=SC2046
    "$bin" bot --server 127.0.0.1:"$port" --config match.json --slot 1 --token tok-b --quiet --timeout 25 $(plant 1) > bot1.txt 2>&1 || true
    wait "$b0" || true
    wait "$srv" || true
  ) &
  pids+=($!)
}

check_match() {
  local name=$1 slot=$2 tick=$3 character=$4 joint=$5
  local cname="p$character" jname
  jname=$(sed -n "$((joint + 1))p" joints.txt)
  # the first check at or after the planted frame, and the one before it
  local first=$(( (tick + 1 + interval - 1) / interval * interval - 1 ))
  local agreed=$((first - interval))
  local bundle="$name/rec/match.bsreplay.desync/tick$first-slot$slot"
  echo "-- $name: planted $tick:$character:$joint by slot $slot: expect tick $first (after $agreed), $cname, joint $joint $jname"
  if [ ! -f "$bundle/bundle.json" ]; then
    bad "$name: no bundle $bundle"; ls -R "$name"; cat "$name/srv.err" "$name/bot0.txt" "$name/bot1.txt"; return
  fi
  ok "$name: the server wrote $bundle"
  local head="pose: character $character ($cname): its pose checksums first differed at tick $first (the check before, tick $agreed, agreed); 1 of its $joint_count joints differs:"
  grep -qxF "$head" "$bundle/report.txt" && ok "$name: report.txt: $head" || { bad "$name: report.txt's pose line"; cat "$bundle/report.txt"; }
  local jl
  jl=$(grep "^  joint " "$bundle/report.txt" || true)
  if [ "$(wc -l <<<"$jl")" = 1 ] && [[ "$jl" =~ ^\ \ joint\ $joint\ $jname:\ server\ ([0-9a-f]{16}),\ client\ ([0-9a-f]{16})$ ]] \
     && [ $(( 0x${BASH_REMATCH[1]} ^ 0x${BASH_REMATCH[2]} )) = 1 ]; then
    ok "$name: report.txt names joint $joint $jname alone, its two checksums one bit apart (bit 0)"
  else bad "$name: report.txt's joint line: $jl"; fi
  if python3 - "$bundle/bundle.json" "$first" "$agreed" "$character" "$cname" "$joint" "$jname" "$joint_count" <<'PY'
import json, sys
p, first, agreed, ch, cname, j, jname, count = sys.argv[1:]
b = json.load(open(p))
pj = b["pose_joints"]
assert b["format"] == 3, b["format"]
assert (pj["tick"], pj["agreed_tick"], pj["character"], pj["character_name"]) == (int(first), int(agreed), int(ch), cname), pj
assert (pj["compared"], pj["differing"]) == (int(count), 1), pj
assert [(x["index"], x["name"]) for x in pj["joints"]] == [(int(j), jname)], pj["joints"]
x = pj["joints"][0]
assert int(x["server"], 16) ^ int(x["client"], 16) == 1, x
PY
  then ok "$name: bundle.json's pose_joints names joint $joint $jname of character $character at tick $first"
  else bad "$name: bundle.json's pose_joints"; fi
  # the server's log names the same joint (its own line, as before)
  grep -q "event=desync_joints .* character=$character .* joints_differing=1/$joint_count first_joint=$joint joints=$jname" "$name/srv.err" \
    && ok "$name: the server's log names it too" || bad "$name: event=desync_joints"
  local rc=0 out
  out=$(cd "$name" && "$bin" desync diff "rec/match.bsreplay.desync/tick$first-slot$slot") || rc=$?
  echo "$out" | sed 's/^/    /'
  if [ $rc -eq 1 ] && diff <(grep -E '^(pose: |  joint )' <<<"$out") <(grep -E '^(pose: |  joint )' "$bundle/report.txt") > /dev/null \
     && grep -q '^no difference: the two states are identical$' <<<"$out"; then
    ok "$name: desync diff exits 1 and prints report.txt's pose lines (the states themselves are identical)"
  else bad "$name: desync diff (rc $rc)"; fi
  rc=0
  out=$(cd "$name" && "$bin" desync diff "rec/match.bsreplay.desync/tick$first-slot$slot" --json) || rc=$?
  if [ $rc -eq 1 ] && python3 -c '
import json, sys
o = json.loads(sys.argv[1])
pj = o["pose_joints"]
assert o["identical"] is True and pj["character"] == int(sys.argv[2]) and [(x["index"], x["name"]) for x in pj["joints"]] == [(int(sys.argv[3]), sys.argv[4])]
' "$out" "$character" "$joint" "$jname"; then ok "$name: desync diff --json: pose_joints names the joint"; else bad "$name: desync diff --json (rc $rc)"; fi
}

start_match A 1 40:1:12
start_match B 0 20:0:3
start_match C 1 40:1:1000
for p in "${pids[@]}"; do wait "$p" || true; done
pids=()
check_match A 1 40 1 12
check_match B 0 20 0 3

# C: a joint index beyond the skeleton: the character's pose checksum differs but every per-joint
# checksum the client sends agrees, and the bundle says so (no joint named)
bundleC=C/rec/match.bsreplay.desync/tick44-slot1
want="pose: character 1 (p1): its pose checksums first differed at tick 44 (the check before, tick 29, agreed); all $joint_count of its joints' checksums agree (only the character's pose checksum differs)"
if [ -f "$bundleC/report.txt" ] && grep -qxF "$want" "$bundleC/report.txt" && ! grep -q '^  joint ' "$bundleC/report.txt" \
   && python3 -c '
import json, sys
pj = json.load(open(sys.argv[1]))["pose_joints"]
assert (pj["character"], pj["compared"], pj["differing"], pj["joints"]) == (1, int(sys.argv[2]), 0, []), pj
' "$bundleC/bundle.json" "$joint_count"; then
  ok "C: joint 1000 planted: the bundle names p1 and no joint (all $joint_count agree)"
else bad "C: the bundle of an out-of-range joint"; cat "$bundleC/report.txt" "$bundleC/bundle.json" 2>&1 | head -20; fi

# a bundle as an earlier server wrote it (format 2, no pose_joints) still reads: no pose, states identical
old=A/old-bundle
cp -r A/rec/match.bsreplay.desync/tick44-slot1 "$old"
python3 - "$old/bundle.json" <<'PY'
import json, sys
p = sys.argv[1]
b = json.load(open(p))
del b["pose_joints"]
b["format"] = 2
open(p, "w").write(json.dumps(b) + "\n")
PY
rc=0
out=$(cd A && "$bin" desync diff old-bundle) || rc=$?
if [ $rc -eq 0 ] && ! grep -q '^pose: ' <<<"$out" && grep -q '^no difference: the two states are identical$' <<<"$out"; then
  ok "a format-2 bundle without pose_joints reads: exit 0, no pose line"
else bad "the format-2 bundle (rc $rc)"; echo "$out"; fi

# the option's value: three decimal numbers, a character below 64 and a joint below 1024
for spec in 40:1 40:1:12x -1:1:2 40:64:1 40:1:1024 4294967296:0:0; do
  rc=0
  msg=$("$bin" bot --server 127.0.0.1:1 --config A/match.json --slot 0 --token tok-a --inject-pose-desync "$spec" 2>&1) || rc=$?
  if [ $rc -eq 2 ] && grep -q 'bad value for "--inject-pose-desync"' <<<"$msg"; then ok "--inject-pose-desync $spec is refused"
  else bad "--inject-pose-desync $spec (rc $rc)"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
