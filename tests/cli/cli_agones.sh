#!/usr/bin/env bash
# The Agones lifecycle of blendsync-server (--agones; docs/deploy.md) against a stand-in that serves
# exactly the Agones SDK sidecar's documented REST endpoints (tests/tools/agones_sdk_standin.py;
# Agones itself needs Kubernetes and cannot run here). The sidecar comes up 1.5 s after the server:
# the server must retry until it answers, then send Ready (and its label), Health pings every 0.3 s
# from its own thread, see the GameServer become Allocated (the test allocates it, as a
# GameServerAllocation would), and send Shutdown once its match is done; the match itself plays clean.
# About 10 s. usage: cli_agones.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
server="$(dirname "$bin")/blendsync-server"
standin="$src/tests/tools/agones_sdk_standin.py"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
command -v python3 >/dev/null || { echo "skip: no python3 for the SDK stand-in"; exit 0; }
case "$("$server" --agones 2>&1)" in *"no libcurl"*) echo "skip: blendsync-server built without libcurl (no --agones)"; exit 0 ;; esac
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
cat >loco.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" } } }
JSON
cat >match.json <<'JSON'
{ "match_id": 9, "players": [ {"token": "alpha"}, {"token": "bravo"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 1.4} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0}, {"name": "b", "graph": "loco.json", "slot": 1} ],
  "checksum_interval": 15, "replay": "agones.bsreplay", "duration_ticks": 90, "input_delay": 3 }
JSON
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
port_of() { for _ in $(seq 1 100); do p=$(sed -n "s/^$2 127.0.0.1:\([0-9]*\)$/\1/p" "$1"); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.05; done; }
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT
sdk_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# the server first; the sidecar 1.5 s later (its default URL comes from AGONES_SDK_HTTP_PORT)
AGONES_SDK_HTTP_PORT=$sdk_port "$server" --listen 127.0.0.1:0 --match match.json --agones --agones-health 0.3 \
  --exit-when-done --status 0 >server.out 2>server.log &
spid=$!; pids+=($spid)
sport=$(port_of server.out "listening on")
python3 "$standin" --port "$sdk_port" --record calls.jsonl --start-after 1.5 --game-port "${sport:-0}" >standin.out 2>&1 &
sdk1=$!; pids+=($sdk1)
for _ in $(seq 1 100); do grep -q '"/ready"' calls.jsonl 2>/dev/null && break; sleep 0.05; done
grep -q "event=agones_sdk url=http://localhost:$sdk_port attempts=" server.log \
  && ok "the server waited for the late sidecar ($(grep -o 'attempts=[0-9]* waited_ms=[0-9]*' server.log | head -1))" \
  || { bad "no agones_sdk line"; cat server.log; }
att=$(sed -n 's/.*event=agones_sdk .*attempts=\([0-9]*\).*/\1/p' server.log)
[ "${att:-0}" -ge 3 ] && ok "it retried with backoff ($att attempts) while the sidecar was down" || bad "attempts '$att' < 3"

# a matchmaker's GameServerAllocation moves the GameServer to Allocated; the server sees it (and the
# stand-in's documented watch stream, GET /watch/gameserver, delivers it as {"result": GameServer})
python3 - "$sdk_port" >watch.out 2>&1 <<'PY' &
import json, sys, urllib.request
with urllib.request.urlopen("http://127.0.0.1:%s/watch/gameserver" % sys.argv[1], timeout=10) as r:
    for line in r:
        state = json.loads(line)["result"]["status"]["state"]
        print("watch:", state, flush=True)
        if state == "Allocated":
            break
PY
wpid=$!; pids+=($wpid)
sleep 0.3
python3 -c "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:$sdk_port/allocate', data=b'{}', headers={'Content-Type': 'application/json'}, method='POST'))"
for _ in $(seq 1 60); do grep -q "event=agones_state state=Allocated" server.log && break; sleep 0.05; done
grep -q "event=agones_state state=Allocated previous=Ready" server.log && ok "the server observed Allocated (after Ready)" \
  || { bad "Allocated not observed"; grep agones server.log; }
wait $wpid
grep -q "watch: Allocated" watch.out && ok "the watch stream delivered Allocated ($(tr '\n' ' ' <watch.out))" || { bad "watch"; cat watch.out; }
sleep 1
for s in 0 1; do
  tok=$([ $s -eq 0 ] && echo alpha || echo bravo)
  timeout 30 "$bin" bot --server 127.0.0.1:$sport --config match.json --slot $s --token $tok --quiet >bot$s.out 2>&1 &
  pids+=($!); bp[$s]=$!
done
wait ${bp[0]}; r0=$?; wait ${bp[1]}; r1=$?
wait $spid; src_rc=$?
[ $r0 -eq 0 ] && [ $r1 -eq 0 ] && grep -q "90 frames applied" bot0.out && ok "the match plays clean (both bots exit 0, 90 frames)" \
  || { bad "bots: $r0 $r1"; cat bot0.out bot1.out; }
[ $src_rc -eq 0 ] && ok "the server exits 0 when its match is done" || bad "server exit $src_rc"
grep -q "event=agones_shutdown status=200" server.log && ok "Shutdown was sent and taken" || { bad "no shutdown"; grep agones server.log; }

# the recorded call sequence: only documented endpoints and bodies, in lifecycle order
python3 - calls.jsonl <<'PY' >sequence.out 2>&1
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
seq = [(c["method"], c["path"]) for c in calls]
bad = [c for c in calls if c["status"] != 200]
assert not bad, "non-200 calls: %r" % bad
first_ready = seq.index(("POST", "/ready"))
assert seq[0] == ("GET", "/gameserver"), seq[:3]
assert all(s == ("GET", "/gameserver") for s in seq[:first_ready]), seq[:first_ready]
assert seq[first_ready + 1] == ("PUT", "/metadata/label"), seq[first_ready + 1]
label = calls[first_ready + 1]["body"]
assert label["key"] == "blendsync-version" and label["value"], label
assert seq[-1] == ("POST", "/shutdown") and seq.count(("POST", "/shutdown")) == 1, seq[-3:]
assert all(c["body"] == {} for c in calls if c["method"] == "POST"), "POST bodies must be {}"
health = [c["t"] for c in calls if c["path"] == "/health"]
assert len(health) >= 5, "only %d health pings" % len(health)
assert calls[first_ready]["t"] < health[0], "Health before Ready"
gaps = [b - a for a, b in zip(health, health[1:])]
assert max(gaps) < 1.0 and min(gaps) > 0.2, "health gaps %r (interval 0.3 s)" % gaps
alloc = [c for c in calls if c["path"] == "/allocate"]
assert alloc and alloc[0]["t"] > calls[first_ready]["t"]
print("sequence ok: %d GET /gameserver before Ready, Ready, label, %d health pings (gaps %.2f..%.2f s), Allocated, Shutdown last"
      % (first_ready, len(health), min(gaps), max(gaps)))
PY
[ $? -eq 0 ] && ok "$(cat sequence.out)" || { bad "call sequence"; cat sequence.out; }
# a server restarted inside its pod while its GameServer is Allocated (crash recovery): no Ready, which
# would offer it to the next allocation while its players are still on it; Health goes on
kill $sdk1; wait $sdk1 2>/dev/null
python3 "$standin" --port "$sdk_port" --record calls2.jsonl --initial-state Allocated >standin2.out 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do grep -q "standin listening" standin2.out && break; sleep 0.05; done
"$server" --listen 127.0.0.1:0 --match match.json --agones "http://127.0.0.1:$sdk_port/" --agones-health 0.2 \
  --status 0 >server2.out 2>server2.log &
s2=$!; pids+=($s2)
for _ in $(seq 1 100); do [ "$(grep -c '"/health"' calls2.jsonl)" -ge 3 ] && break; sleep 0.05; done
kill $s2; wait $s2 2>/dev/null
grep -q "event=agones_ready skipped=1 state=Allocated" server2.log && ! grep -q '"/ready"' calls2.jsonl \
  && [ "$(grep -c '"/health"' calls2.jsonl)" -ge 3 ] && tail -1 calls2.jsonl | grep -q '"/shutdown"' \
  && ok "already Allocated (restarted in its pod): no Ready, Health pings, Shutdown at SIGTERM" \
  || { bad "restart while Allocated"; grep agones server2.log; cat calls2.jsonl; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
