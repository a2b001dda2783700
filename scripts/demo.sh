#!/usr/bin/env bash
# The first thing to run: installs what is missing, builds, and plays a local lockstep match:
# blendsync-server on 127.0.0.1 with a 4-player match (4 player characters + 2 NPCs on the built-in
# humanoid's locomotion graph, 30 Hz) and 4 bot clients. Every bot recomputes every character's blend
# state and pose and sends checksums; the server compares them with its own authoritative state.
# Bot 3 flips one bit of its own state mid-match: the server detects it, names the client, tick,
# character and node, and writes a desync bundle. The replay is recorded and then verified.
#   scripts/demo.sh            the full demo: 20 s of match (600 ticks)
#   scripts/demo.sh --short    a 5 s headless run (scripts/test.sh uses it)
set -euo pipefail
cd "$(dirname "$0")/.."

ticks=600
inject=300
if [ "${1:-}" = "--short" ]; then
  ticks=150
  inject=70
fi

scripts/install-deps.sh --demo
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

out=build/demo
rm -rf "$out"
mkdir -p "$out"
cp scripts/demo/humanoid_locomotion.json "$out/"
sed "s/\"duration_ticks\": [0-9]*/\"duration_ticks\": $ticks/" scripts/demo/match.json >"$out/match.json"
replay="$out/demo-match.bsreplay"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

echo "== blendsync lockstep demo: 4 players, 6 characters, 30 Hz, $ticks ticks ($((ticks / 30)) s)"
build/blendsync-server --listen 127.0.0.1:0 --match "$out/match.json" --replay "$replay" \
  --exit-when-done --status 5 >"$out/server.out" 2>"$out/server.log" &
server=$!
pids+=("$server")
port=""
for _ in $(seq 1 100); do
  port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$out/server.out")
  [ -n "$port" ] && break
  sleep 0.05
done
if [ -z "$port" ]; then
  echo "demo: the server did not start:" >&2
  cat "$out/server.log" >&2
  exit 1
fi
echo "== server listening on 127.0.0.1:$port (log: $out/server.log)"

for slot in 0 1 2 3; do
  extra=()
  [ "$slot" = 0 ] && extra=(--script scripts/demo/joystick.csv --actions)
  [ "$slot" = 3 ] && extra=(--inject-desync "$inject")
  build/blendsync bot --server "127.0.0.1:$port" --config "$out/match.json" --slot "$slot" \
    --token "demo-token-$slot" --timeout 120 "${extra[@]}" >"$out/bot$slot.out" 2>&1 &
  pids+=("$!")
  botpid[$slot]=$!
done
echo "== 4 bots connected: bot 0 plays the scripted joystick path scripts/demo/joystick.csv (walk, run,"
echo "   strafe, back up, wave, punch), bots 1-3 seeded random paths; bot 3 will flip one bit of its state at tick $inject"
echo

# Show bot 0's status lines (one per second) while the match runs.
tail -n +1 -f "$out/bot0.out" --pid "${botpid[0]}" 2>/dev/null | sed 's/^/  /' &
tailpid=$!
status=0
for slot in 0 1 2 3; do
  rc=0
  wait "${botpid[$slot]}" || rc=$?
  botrc[$slot]=$rc
done
wait "$server" || status=$?
wait "$tailpid" 2>/dev/null || true
echo

echo "== what the bots saw"
for slot in 0 1 2 3; do
  grep -E "DESYNC|resynced|done:" "$out/bot$slot.out" | sed "s/^/  /"
done
echo
echo "== what the server reported"
grep -E "event=(match_start|desync|desync_detail|desync_bundle|match_end)" "$out/server.log" | sed 's/^ts=[^ ]* //; s/^/  /'
grep "event=status" "$out/server.log" | tail -1 | sed 's/^ts=[^ ]* //; s/^/  /'
echo

ok=1
for slot in 0 1 2; do
  if [ "${botrc[$slot]}" != 0 ]; then
    echo "demo: bot $slot exited with ${botrc[$slot]} (expected 0: checksums agreeing)" >&2
    ok=0
  fi
done
if [ "${botrc[3]}" != 1 ]; then
  echo "demo: bot 3 exited with ${botrc[3]} (expected 1: its desync reported)" >&2
  ok=0
fi
if ! grep -q "event=desync .*slot=3" "$out/server.log"; then
  echo "demo: the server did not report bot 3's desync" >&2
  ok=0
fi
if [ "$status" != 0 ] || [ ! -s "$replay" ]; then
  echo "demo: the server failed or wrote no replay (exit $status)" >&2
  ok=0
fi
echo "== replay: $replay ($(stat -c %s "$replay") bytes)"
if build/blendsync replay --help >/dev/null 2>&1; then
  build/blendsync replay verify "$replay" | sed 's/^/  /' || ok=0
fi
bundle=$(ls -d "$replay.desync"/*/ 2>/dev/null | head -1 || true)
if [ -n "$bundle" ]; then
  echo "== desync bundle: $bundle"
  sed 's/^/  /' "$bundle/report.txt"
fi
echo
if [ "$ok" = 1 ]; then
  echo "demo: OK — bots 0-2 agreed with the server on every checksum; bot 3's flipped bit was caught and explained"
else
  echo "demo: FAILED (logs in $out/)" >&2
  exit 1
fi
