#!/usr/bin/env bash
# make_bundle.sh BLENDSYNC WORK SRC [demo | own-clocks | own-clocks-p0 | pose | pose-p0] — a desync bundle from a real blendsync-server (as the demo makes
# one): two bots play the demo graph for 60 ticks, bot 1 flips a bit of its speed input after frame 40
# (--inject-desync), the server catches it at the next checksum (after frame 44) and writes
# WORK/rec/match.bsreplay.desync/tick44-slot1/. The ctest fixture of studio_desync. Exit 77 without
# blendsync-server. With own-clocks the graph's root "move" has "sync": "none", so node locomotion's own
# clock (where the flipped bit lands) is what its clips are sampled at: the two poses differ too (with
# the demo graph's normalized root they do not: only the blend state differs). own-clocks-p0: the same
# graph, but bot 0 flips the bit, after frame 25: another character's state (p0's), another bit of the
# match state, caught at the checksum after frame 29 (WORK/rec/match.bsreplay.desync/tick29-slot0/).
# (The bot chooses the tick, not the bit: client.h's test switch always flips bit 24 of node 0's phase
# of the bot's own character.) pose: the demo graph, a server with --verify-poses, and bot 1 plants a
# pose-only desync instead (--inject-pose-desync 40:1:12: from frame 40 it reports joint 12 of character
# 1 as differing while its state stays right): the bundle at tick 44 names that joint (pose_joints);
# pose-p0: bot 0 plants 20:0:3 instead (p0's joint 3, caught at the check after frame 29). The planted
# fault is written to WORK/planted.txt (TICK:CHARACTER:JOINT) for the test's expectations.
set -euo pipefail
bin=$1 work=$2 src=$3 variant=${4:-demo}
[ -x "$(dirname "$bin")/blendsync-server" ] || { echo "SKIP: no blendsync-server next to $bin"; exit 77; }
server=$(dirname "$bin")/blendsync-server
rm -rf "$work" && mkdir -p "$work" && cd "$work"
cp "$src/scripts/demo/humanoid_locomotion.json" .
inj_slot=1 inj_tick=40
[ "$variant" = own-clocks-p0 ] && inj_slot=0 inj_tick=25
verify=()
inject_opt=(--inject-desync "$inj_tick")
case "$variant" in
  pose) spec=40:1:12 ;;
  pose-p0) spec=20:0:3 inj_slot=0 ;;
  *) spec="" ;;
esac
if [ -n "$spec" ]; then
  verify=(--verify-poses)
  inject_opt=(--inject-pose-desync "$spec")
  echo "$spec" > planted.txt
fi
if [ "$variant" = own-clocks ] || [ "$variant" = own-clocks-p0 ]; then
  python3 - <<'PY'
import re
t = open("humanoid_locomotion.json").read()
i = t.index('"move": {')
j = t.index('"sync": "normalized"', i)
open("humanoid_locomotion.json", "w").write(t[:j] + '"sync": "none"' + t[j + len('"sync": "normalized"'):])
PY
  grep -q '"sync": "none"' humanoid_locomotion.json
fi
cat > match.json <<'EOF'
{ "match_id": 9, "players": [ {"token": "tok-a"}, {"token": "tok-b"} ],
  "input": { "parameters": [ { "name": "speed", "min": 0, "max": 3.5 }, { "name": "move_x", "min": -1, "max": 1 }, { "name": "move_y", "min": 0.5, "max": 1 } ], "hold_ticks": [10, 30] },
  "characters": [ { "name": "p0", "graph": "humanoid_locomotion.json", "slot": 0 },
                  { "name": "p1", "graph": "humanoid_locomotion.json", "slot": 1 } ],
  "checksum_interval": 15, "replay": "rec/match.bsreplay", "duration_ticks": 60,
  "timeouts": { "start_ms": 5000, "peer_ms": 3000, "idle_ms": 3000 } }
EOF
"$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 "${verify[@]}" > srv.out 2> srv.err &
srv=$!
port=""
for _ in $(seq 100); do port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\).*$/\1/p' srv.out | head -n 1); [ -n "$port" ] && break; sleep 0.05; done
inject() { if [ "$1" = "$inj_slot" ]; then echo "${inject_opt[@]}"; fi; }
# shellcheck disable=SC2046
"$bin" bot --server 127.0.0.1:"$port" --config match.json --slot 0 --token tok-a --quiet --timeout 25 $(inject 0) > bot0.txt 2>&1 &
b0=$!
# shellcheck disable=SC2046
"$bin" bot --server 127.0.0.1:"$port" --config match.json --slot 1 --token tok-b --quiet --timeout 25 $(inject 1) > bot1.txt 2>&1 || true
wait "$b0" || true; wait "$srv" || true
want=$([ "$variant" = own-clocks-p0 ] || [ "$variant" = pose-p0 ] && echo tick29-slot0 || echo tick44-slot1)
[ -f "rec/match.bsreplay.desync/$want/bundle.json" ] || { echo "FAIL: no bundle $want"; ls -R; cat srv.err bot0.txt bot1.txt; exit 1; }
echo "bundle: $work/rec/match.bsreplay.desync/$want"
