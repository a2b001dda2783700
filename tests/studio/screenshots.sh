#!/usr/bin/env bash
# screenshots.sh [BUILD_DIR [OUT_DIR]] — the screenshots of docs/studio.md (docs/images/studio-*.png),
# rerun by hand after a change to the page: builds nothing, needs BUILD_DIR (default build) with the page,
# blendsync, blendsync-server and build/web/npm (playwright-core), and Debian's chromium.
#   Tune:    the demo graph at a point (move_x 0.43, move_y 0.61, speed 2.1);
#   Replay:  the demo's match (600 ticks) recorded with the punch as a one-shot with a hit window
#            (as studio_replay_events), at tick 87 of character 0 (its hit window open): weight tracks, switch band, events;
#   Desync:  the own-clocks bundle of make_bundle.sh (p1's clock flipped after frame 40);
#   Desync (pose): the pose bundle of make_bundle.sh (bot 1 reports p1's joint 12 as differing from
#            frame 40 on: the bundle names upperarm_r), studio-desync-pose.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$src/build}" && pwd)
out=$(mkdir -p "${2:-$src/docs/images}" && cd "${2:-$src/docs/images}" && pwd)
bs=$build/blendsync
work=$(mktemp -d)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/demo"
cd "$work/demo"
cp "$src/scripts/demo/match.json" "$src/scripts/demo/humanoid_locomotion.json" .
python3 - humanoid_locomotion.json <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
old = '"punch": { "source": "builtin:humanoid" }'
t = t.replace(old, '"punch": { "source": "builtin:humanoid", "loop": false, "events": [ { "name": "hit", "begin": 0.2, '
              '"end": 0.35, "payload": 10, "policy": "always" }, { "name": "whoosh", "time": 0.1, "policy": "always" } ] }')
open(p, "w").write(t)
PY
"$bs" replay record match.json --ticks 600 -o demo.bsreplay >/dev/null
bash "$here/make_bundle.sh" "$bs" "$work/bundle" "$src" own-clocks >/dev/null
bash "$here/make_bundle.sh" "$bs" "$work/pose" "$src" pose >/dev/null
start() { # start DIR FILES...: prints the URL
  local dir=$1; shift
  (cd "$dir" && exec "$bs" studio "$@") >"$dir/studio.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 50); do grep -o 'http://127.0.0.1:[0-9]*/' "$dir/studio.log" && return; sleep 0.1; done
  echo "no URL: $(cat "$dir/studio.log")" >&2; exit 1
}
u1=$(start "$work/demo" humanoid_locomotion.json demo.bsreplay match.json)
u2=$(start "$work/bundle" rec/match.bsreplay.desync/tick44-slot1 match.json humanoid_locomotion.json)
u3=$(start "$work/pose" rec/match.bsreplay.desync/tick44-slot1 match.json humanoid_locomotion.json)
STUDIO_NODE_MODULES="$build/web/npm/node_modules" CHROMIUM=${CHROMIUM:-$(command -v chromium)} node "$here/screenshots.mjs" \
  "$out/studio-tune.png" "${u1}#file=humanoid_locomotion.json&view=tune" \
  "$out/studio-replay.png" "${u1}#file=demo.bsreplay&tick=87&character=0" \
  "$out/studio-desync.png" "${u2}#view=desync" \
  "$out/studio-desync-pose.png" "${u3}#view=desync"
ls -l "$out"/studio-*.png
