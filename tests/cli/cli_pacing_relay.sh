#!/usr/bin/env bash
# Lockstep pacing with real `blendsync bot`s and a real blendsync-server, two of the bots through the
# impaired UDP relay (docs/lockstep.md "Pacing", issue 33). 30 Hz, input delay d = 3, 300 ticks. Bot 0
# on loopback joins first and waits 1.5 s alone in the lobby; bot 1 is on a 20 ms round trip (10 ms
# each way), bot 2 on a 200 ms one. Every packet is captured and measured from the wire by
# tests/conformance/pacing_latency.py (the document-only decoder). Asserted:
#  * no bot sends an INPUT before START (and the server counts none: no before_start drop);
#  * loopback: 0 extra ticks (median lead 0) and decision-to-applied within d + 1 periods (133 ms + 10);
#  * the 20 ms player's median latency is not worse than the 200 ms player's;
#  * after the first second, nobody's inputs are defaulted for more than 5% of the frames (d + lead
#    cover the path; 5% and not 0 because this machine's load delays the server's ticks by up to 50 ms).
# About 15 s. usage: cli_pacing_relay.sh PATH_TO_BLENDSYNC WORK_DIR [--report]
# (--report: print the measurements and skip the checks, e.g. to measure an older build.)
set -uo pipefail
bin=$1; work=$2; report=${3:-}
here="$(cd "$(dirname "$0")" && pwd)"
server="$(dirname "$bin")/blendsync-server"
relay="$(dirname "$bin")/tests/bsync_udp_relay"
measure="$here/../conformance/pacing_latency.py"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
[ -x "$relay" ] || { echo "skip: no $relay"; exit 0; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
cat >loco.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "run": { "source": "builtin:humanoid" } } }
JSON
cat >match.json <<'JSON'
{ "match_id": 33, "players": [ {"token": "p0"}, {"token": "p1"}, {"token": "p2"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0}, {"name": "b", "graph": "loco.json", "slot": 1},
                  {"name": "c", "graph": "loco.json", "slot": 2} ],
  "checksum_interval": 30, "replay": "server.bsreplay", "duration_ticks": 300, "input_delay": 3,
  "timeouts": {"start_ms": 10000} }
JSON
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
port_of() { for _ in $(seq 1 100); do p=$(sed -n "s/^$2 127.0.0.1:\([0-9]*\)$/\1/p" "$1"); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.05; done; }

"$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 >server.out 2>server.log &
spid=$!
sport=$(port_of server.out "listening on")
[ -n "$sport" ] || { echo "FAIL server did not start"; kill $spid; exit 1; }
"$relay" --to "$sport" --for 30000 --seed 5 --delay 10 10 >r1.out 2>&1 &
r1=$!
"$relay" --to "$sport" --for 30000 --seed 6 --delay 100 100 >r2.out 2>&1 &
r2=$!
p1=$(port_of r1.out "relaying on"); p2=$(port_of r2.out "relaying on")
bot() { # slot port
  timeout 40 "$bin" bot --server 127.0.0.1:$2 --config match.json --slot $1 --token p$1 --seed $((11 + $1)) --quiet \
    --capture bot$1.bscap >bot$1.out 2>&1
}
bot 0 "$sport" & b0=$!
sleep 1.5 # bot 0 alone in the lobby
bot 1 "$p1" & b1=$!
bot 2 "$p2" & b2=$!
wait $b0; rc0=$?; wait $b1; rc1=$?; wait $b2; rc2=$?
wait $spid
kill $r1 $r2 2>/dev/null; wait $r1 $r2 2>/dev/null
python3 "$measure" --warmup 30 bot0.bscap bot1.bscap bot2.bscap >pacing.json || { echo "FAIL measuring"; exit 1; }
if [ "$report" = "--report" ]; then cat pacing.json; grep "event=drops" server.log; exit 0; fi
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && ok "three bots played the match (exit 0)" \
  || bad "bot exits $rc0 $rc1 $rc2: $(cat bot*.out)"
field() { python3 -c "import json,sys; print([json.loads(l) for l in open('pacing.json')][$1].get('$2', 'none'))"; }
for b in 0 1 2; do
  [ "$(field $b lobby_inputs)" = "0" ] && ok "bot $b: no INPUT before START" || bad "bot $b: $(field $b lobby_inputs) INPUTs in the lobby"
  frames=$(field $b frames); dflt=$(field $b defaulted_self)
  [ "$frames" -ge 290 ] && [ $((dflt * 20)) -le "$frames" ] && ok "bot $b: $dflt of $frames frames defaulted (<= 5%)" \
    || bad "bot $b: $dflt of $frames frames defaulted"
done
grep -q "before_start=" server.log && bad "the server dropped inputs before START: $(grep event=drops server.log)" \
  || ok "the server counted no input before START"
lead0=$(field 0 lead_median); lat0=$(field 0 latency_ms_median)
python3 -c "import sys; sys.exit(0 if $lead0 == 0 else 1)" && ok "loopback: 0 extra ticks (median lead $lead0)" || bad "loopback: median lead $lead0 (want 0)"
python3 -c "import sys; sys.exit(0 if $lat0 <= 143 else 1)" && ok "loopback: median decision-to-applied $lat0 ms (<= 143)" \
  || bad "loopback: median latency $lat0 ms"
lat1=$(field 1 latency_ms_median); lat2=$(field 2 latency_ms_median)
python3 -c "import sys; sys.exit(0 if $lat1 <= $lat2 else 1)" && ok "20 ms player $lat1 ms <= 200 ms player $lat2 ms" \
  || bad "20 ms player $lat1 ms is worse than the 200 ms player's $lat2 ms"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
