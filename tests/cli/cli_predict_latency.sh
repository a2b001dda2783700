#!/usr/bin/env bash
# Input-to-screen latency, prediction against lockstep (issue 33, benchmark 4; docs/benchmarks.md
# "Prediction and rollback"): at 0, 50, 100 and 150 ms round trip through the impaired relay (no loss),
# a predicting bot and a lockstep bot of the same 60 Hz match, each measuring from sending an input to
# the first 60 Hz display frame whose shown match includes its tick (`blendsync bot --latency`).
# Asserts that prediction shows every input sooner than lockstep (p50) at every round trip, and on
# loopback within two display frames. Prints the table; about 30 s.
# usage: cli_predict_latency.sh PATH_TO_BLENDSYNC WORK_DIR [TICKS] [WINDOW]
set -uo pipefail
bin=$1; work=$2; ticks=${3:-300}; window=${4:-8}
src=$(cd "$(dirname "$0")/../.." && pwd)
server="$(dirname "$bin")/blendsync-server"
relay="$(dirname "$bin")/tests/bsync_udp_relay"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
[ -x "$relay" ] || { echo "skip: no $relay"; exit 0; }
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
server=$(cd "$(dirname "$server")" && pwd)/blendsync-server
relay=$(cd "$(dirname "$relay")" && pwd)/bsync_udp_relay
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
sed 's/"tick_rate": 30/"tick_rate": 60/' "$src/scripts/demo/humanoid_locomotion.json" >graph.json
cat >match.json <<JSON
{ "match_id": 35, "players": [ {"token": "p"}, {"token": "l"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5}, {"name": "move_x", "min": -1, "max": 1} ],
             "hold_ticks": [10, 40] },
  "characters": [ {"name": "p", "graph": "graph.json", "slot": 0}, {"name": "l", "graph": "graph.json", "slot": 1} ],
  "checksum_interval": 30, "duration_ticks": $ticks, "input_delay": 3 }
JSON
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
port_of() { for _ in $(seq 1 100); do p=$(sed -n "s/^$2 127.0.0.1:\([0-9]*\)$/\1/p" "$1"); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.05; done; }
p50() { sed -n 's/.*input-to-screen ([a-z]*, 60 Hz display): p50 \([0-9.]*\) ms.*/\1/p' "$1"; }
printf '%-8s %-26s %-26s %s\n' "RTT" "prediction p50 / p99 (ms)" "lockstep p50 / p99 (ms)" "rollbacks, deepest"
for rtt in 0 50 100 150; do
  "$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 >server-$rtt.out 2>server-$rtt.log &
  spid=$!
  sport=$(port_of server-$rtt.out "listening on")
  half=$((rtt / 2))
  rp=(); rport=()
  for i in 0 1; do
    "$relay" --to "$sport" --seed $((i + 5)) --delay $half $half --for $((ticks * 1000 / 60 + 20000)) >relay-$rtt-$i.out 2>&1 &
    rp+=($!)
  done
  for i in 0 1; do rport+=("$(port_of relay-$rtt-$i.out "relaying on")"); done
  timeout 60 "$bin" bot --server 127.0.0.1:${rport[0]} --config match.json --slot 0 --token p --quiet --latency \
    --predict --rollback-window "$window" >p-$rtt.out 2>&1 &
  b0=$!
  timeout 60 "$bin" bot --server 127.0.0.1:${rport[1]} --config match.json --slot 1 --token l --quiet --latency >l-$rtt.out 2>&1
  rc1=$?; wait $b0; rc0=$?; wait $spid
  kill "${rp[@]}" 2>/dev/null; wait "${rp[@]}" 2>/dev/null
  pl=$(sed -n 's/.*p50 \([0-9.]*\) ms p99 \([0-9.]*\) ms.*/\1 \/ \2/p' p-$rtt.out)
  ll=$(sed -n 's/.*p50 \([0-9.]*\) ms p99 \([0-9.]*\) ms.*/\1 \/ \2/p' l-$rtt.out)
  rb=$(sed -n 's/.*prediction: \([0-9]*\) rollbacks.* max \([0-9]*\),.*/\1, \2/p' p-$rtt.out)
  printf '%-8s %-26s %-26s %s\n' "$rtt ms" "$pl" "$ll" "$rb"
  a=$(p50 p-$rtt.out); b=$(p50 l-$rtt.out)
  [ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { exit !(a < b) }' \
    && ok "$rtt ms: prediction p50 $a ms < lockstep p50 $b ms" || { bad "$rtt ms: exits $rc0 $rc1, p50 '$a' vs '$b'"; cat p-$rtt.out l-$rtt.out; }
  if [ "$rtt" -eq 0 ]; then
    awk -v a="$a" 'BEGIN { exit !(a <= 33.4) }' && ok "loopback: prediction shows the input within two 60 Hz frames ($a ms)" \
      || bad "loopback: prediction p50 $a ms > 33.4 ms"
  fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
