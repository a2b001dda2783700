#!/usr/bin/env bash
# Protocol version 7 against version 6 through the impaired relay (issue 33): one 4-player match at
# 60 Hz with input delay d = 6, 600 ticks; two bots speak version 6 (FRAME, reliable and ordered) and
# two speak version 7 (FRAMES, unreliable, redundant, acknowledged), each through its own relay with
# 10% loss, 40-120 ms each way (jitter, so reordering) and 5% duplication. Counted from each bot's
# capture by the document-only decoder (tests/conformance/pacing_latency.py): the frames after the
# first second whose defaulted bit is set for the bot's own slot. Asserted: every bot applies the
# whole match (exit 0) and its capture conforms (bsync_wire.py); the version 7 bots' defaulted share
# is at most 5% and below the version 6 bots'. About 15 s.
# usage: cli_v7_relay.sh PATH_TO_BLENDSYNC WORK_DIR [--report [SEED]]   (--report: print, no checks)
set -uo pipefail
bin=$1; work=$2; report=${3:-}; seed=${4:-21}
here="$(cd "$(dirname "$0")" && pwd)"
server="$(dirname "$bin")/blendsync-server"
relay="$(dirname "$bin")/tests/bsync_udp_relay"
measure="$here/../conformance/pacing_latency.py"
wire="$here/../conformance/bsync_wire.py"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
[ -x "$relay" ] || { echo "skip: no $relay"; exit 0; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
cat >loco.json <<'JSON'
{ "tick_rate": 60, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "run": { "source": "builtin:humanoid" } } }
JSON
cat >match.json <<'JSON'
{ "match_id": 77, "players": [ {"token": "p0"}, {"token": "p1"}, {"token": "p2"}, {"token": "p3"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0}, {"name": "b", "graph": "loco.json", "slot": 1},
                  {"name": "c", "graph": "loco.json", "slot": 2}, {"name": "d", "graph": "loco.json", "slot": 3} ],
  "checksum_interval": 60, "replay": "server.bsreplay", "duration_ticks": 600, "input_delay": 6,
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
rpids=""; bpids=""
for b in 0 1 2 3; do
  "$relay" --to "$sport" --for 40000 --seed $((seed + b)) --loss 100 --delay 40 120 --dup 50 >r$b.out 2>&1 &
  rpids="$rpids $!"
done
for b in 0 1 2 3; do
  port=$(port_of r$b.out "relaying on")
  proto=$([ $b -lt 2 ] && echo 6 || echo 7)
  timeout 45 "$bin" bot --server 127.0.0.1:$port --config match.json --slot $b --token p$b --seed $((31 + b)) --quiet \
    --protocol $proto --capture bot$b.bscap >bot$b.out 2>&1 &
  bpids="$bpids $!"
done
rcs=""
for p in $bpids; do wait $p; rcs="$rcs $?"; done
wait $spid
kill $rpids 2>/dev/null; wait $rpids 2>/dev/null
python3 "$measure" --warmup 60 bot0.bscap bot1.bscap bot2.bscap bot3.bscap >defaults.json || { echo "FAIL measuring"; exit 1; }
share() { python3 -c "import json; r=[json.loads(l) for l in open('defaults.json')][$1:$2]; print('%.2f' % (100.0 * sum(x['defaulted_self'] for x in r) / max(1, sum(x['frames'] - 60 for x in r))))"; }
v6=$(share 0 2); v7=$(share 2 4)
if [ "$report" = "--report" ]; then
  echo "seed $seed: defaulted v6 $v6% v7 $v7%; bot exits:$rcs"; cat defaults.json; grep "event=drops" server.log | tail -1
  for b in 0 1 2 3; do cat bot$b.out; done
  exit 0
fi
[ "$rcs" = " 0 0 0 0" ] && ok "four bots (two v6, two v7) played the whole match" || bad "bot exits:$rcs $(cat bot*.out)"
for b in 0 1 2 3; do
  python3 "$wire" bot$b.bscap >wire$b.out 2>&1 && ok "bot $b's capture conforms (version $([ $b -lt 2 ] && echo 6 || echo 7))" \
    || { bad "bot $b's capture"; grep FAIL wire$b.out | head -3; }
done
echo "defaulted inputs after the first second: version 6 $v6%, version 7 $v7%"
python3 -c "import sys; sys.exit(0 if $v7 <= 5.0 else 1)" && ok "version 7: $v7% defaulted (<= 5%)" || bad "version 7: $v7% defaulted"
python3 -c "import sys; sys.exit(0 if $v7 < $v6 else 1)" && ok "version 7 ($v7%) below version 6 ($v6%)" \
  || bad "version 7 ($v7%) not below version 6 ($v6%)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
