#!/usr/bin/env bash
# Crash recovery time of a 16-player match killed at tick 5,000 (docs/deploy.md "Recovery time").
#
#   scripts/recover_bench.sh [--build DIR] [--runs N] [--live]
#
# Offline (default): `blendsync replay record` plays the demo's locomotion match with 16 players (the
# bots' seeded joysticks, as blendsync-server records it) for 5,000 ticks at 30 Hz; its END record is
# cut off, which leaves exactly the file of a server killed after tick 4,999. `blendsync-server
# --recover` is started on it N times (default 5): the time it logs for reading the replay, re-simulating
# 5,000 ticks (every recorded checksum compared) and rewriting it (recover_ms), and the wall time from
# the start of the process to its "listening on" line (config, graphs, recovery, bind).
# --live: also one real run: 16 `blendsync bot`s at 60 Hz on loopback, the server SIGKILLed at tick
# 5,000 and restarted with --recover; prints the time from the restart to the match's clock running
# again with all 16 players back (their ENet peer timeout, up to 5 s, dominates), and checks every bot
# finishes clean. Prints one line per measure.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"; runs=5; live=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --live) live=1; shift ;;
    *) echo "usage: scripts/recover_bench.sh [--build DIR] [--runs N] [--live]" >&2; exit 2 ;;
  esac
done
bin="$build/blendsync"; server="$build/blendsync-server"
[ -x "$bin" ] && [ -x "$server" ] || { echo "build blendsync and blendsync-server first ($build)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/recover_bench.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cp "$root/scripts/demo/humanoid_locomotion.json" "$work/"
make_match() { # rate duration -> match16.json (16 players, 16 characters, the demo's inputs)
  python3 - "$root/scripts/demo/match.json" "$work/match16.json" "$1" "$2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["match_id"] = 16
m["players"] = [{"token": "t%d" % i} for i in range(16)]
m["characters"] = [{"name": "p%d" % i, "graph": "humanoid_locomotion.json", "slot": i} for i in range(16)]
m["replay"] = "replays/m16.bsreplay"
m["duration_ticks"] = int(sys.argv[4])
m["timeouts"] = {"start_ms": 20000, "peer_ms": 5000, "idle_ms": 30000}
g = json.load(open(sys.argv[1].replace("match.json", "humanoid_locomotion.json")))
g["tick_rate"] = int(sys.argv[3])
json.dump(g, open(sys.argv[2].replace("match16.json", "humanoid_locomotion.json"), "w"))
json.dump(m, open(sys.argv[2], "w"), indent=1)
PY
}
cd "$work" || exit 1
make_match 30 0
"$bin" replay record match16.json --ticks 5000 -o full.bsreplay >/dev/null || exit 1
size=$(stat -c %s full.bsreplay)
truncate -s $((size - 24)) full.bsreplay # the END record (16 + 8 bytes): now a server killed after tick 4,999
ms=(); wall=()
for i in $(seq 1 "$runs"); do
  rm -rf replays; mkdir replays; cp full.bsreplay replays/m16.bsreplay
  t0=$(date +%s%N)
  "$server" --listen 127.0.0.1:0 --recover replays --status 0 >out.txt 2>log.txt &
  pid=$!
  for _ in $(seq 1 2000); do grep -q "^listening on" out.txt && break; sleep 0.005; done
  t1=$(date +%s%N)
  kill $pid; wait $pid 2>/dev/null
  r=$(sed -n 's/.*event=recovered .*tick=\([0-9]*\) .*recover_ms=\([0-9.]*\).*/\1 \2/p' log.txt)
  [ "${r%% *}" = "5000" ] || { echo "run $i: not recovered at tick 5000: $(grep recovered log.txt)" >&2; exit 1; }
  ms+=("${r##* }"); wall+=("$(( (t1 - t0) / 1000000 ))")
done
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
echo "offline: 16 players, 30 Hz, killed after tick 4,999 ($((size - 24)) bytes of replay), $runs runs:" \
     "rebuild (read, re-simulate 5,000 ticks, rewrite) median $(med "${ms[@]}") ms [${ms[*]}];" \
     "process start to listening median $(med "${wall[@]}") ms [${wall[*]}]"
[ $live -eq 1 ] || exit 0

# live: 16 bots at 60 Hz (5,000 ticks = 83 s), SIGKILL at tick 5,000, --recover, all back
make_match 60 5600
rm -rf replays; mkdir replays
"$server" --listen 127.0.0.1:0 --match match16.json --status 0.05 --exit-when-done >s1.out 2>s1.log &
spid=$!
for _ in $(seq 1 100); do port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' s1.out); [ -n "$port" ] && break; sleep 0.05; done
bots=()
for s in $(seq 0 15); do
  "$bin" bot --server 127.0.0.1:$port --config match16.json --slot $s --token t$s --quiet --reconnect-seconds 30 \
    >bot$s.out 2>&1 &
  bots+=($!)
done
while :; do
  t=$(sed -n 's/.*event=status match=16 tick=\([0-9]*\).*/\1/p' s1.log | tail -1)
  [ -n "$t" ] && [ "$t" -ge 5000 ] && break; sleep 0.01
done
kill -9 $spid; wait $spid 2>/dev/null
tk=$(date +%s%N)
"$server" --listen 127.0.0.1:$port --recover replays --status 0 --exit-when-done >s2.out 2>s2.log &
spid=$!
while ! grep -q "event=match_resume" s2.log; do sleep 0.01; done
tr=$(date +%s%N)
fails=0
for b in "${bots[@]}"; do wait $b || fails=$((fails + 1)); done
wait $spid
rt=$(sed -n 's/.*event=recovered .*tick=\([0-9]*\) .*recover_ms=\([0-9.]*\).*/tick \1, rebuild \2 ms/p' s2.log)
waited=$(sed -n 's/.*event=match_resume .*waited_ms=\([0-9]*\).*/\1/p' s2.log)
clean=$(grep -l "5600 frames applied, .* 0 desyncs" bot*.out | wc -l)
"$bin" replay verify replays/m16.bsreplay >verify.txt 2>&1; vrc=$?
echo "live: 16 bots at 60 Hz, killed at tick $t: recovered at $rt; restart to the clock running with 16/16 back" \
     "$(( (tr - tk) / 1000000 )) ms (waiting for the players $waited ms); bots finished clean $clean/16" \
     "(failed $fails); server replay verify exit $vrc ($(grep -o 'ticks verified: [0-9]*' verify.txt))"
