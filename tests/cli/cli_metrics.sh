#!/usr/bin/env bash
# blendsync-server's GET /metrics (docs/operations.md "Metrics") on a live server with a match being
# played by real bots: `promtool check metrics` accepts it (skipped, and said so, without promtool);
# the figures agree with the match (one match running then ended, two players connected while it
# plays, the tick histogram's count equals the ticks confirmed); and a real Prometheus (Debian's
# package, on a temporary folder, scraping every second with the bearer token) scrapes it during the
# match, and a value is read back through its query API (skipped, and said so, without prometheus).
# usage: cli_metrics.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
server="$(dirname "$bin")/blendsync-server"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
command -v curl >/dev/null || { echo "skip: no curl"; exit 0; }
rm -rf "$work" && mkdir -p "$work/assets" && cd "$work" || exit 1
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
cat >assets/loco.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } } }
JSON
cat >assets/m51.json <<'JSON'
{ "match_id": 51, "players": [ {"token": "a51"}, {"token": "b51"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0}, {"name": "b", "graph": "loco.json", "slot": 1} ],
  "checksum_interval": 15, "replay": "m51.bsreplay", "duration_ticks": 180,
  "timeouts": {"start_ms": 20000, "idle_ms": 20000} }
JSON
echo "metrics-token-0123456789abcdef" >token
"$server" --listen 127.0.0.1:0 --match assets/m51.json --admin 127.0.0.1:0 --admin-token-file token --assets assets \
    --status 0 >server.out 2>server.log &
spid=$!
for _ in $(seq 1 400); do grep -q "^admin on" server.out && break; sleep 0.05; done
if grep -q "no admin API" server.log; then echo "skip: blendsync-server was built without libmicrohttpd"; exit 0; fi
ap=$(sed -n 's/^admin on 127.0.0.1:\([0-9]*\)$/\1/p' server.out)
port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' server.out)
[ -n "$ap" ] || { echo "FAIL: no admin line"; cat server.out server.log; kill $spid; exit 1; }
api="http://127.0.0.1:$ap"
H="Authorization: Bearer $(cat token)"
metric() { grep -E "^$1 " metrics.txt | awk '{print $2}'; }

# Prometheus first, so that it scrapes while the match plays
prom=""
if command -v prometheus >/dev/null; then
    pport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >prometheus.yml <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
scrape_configs:
  - job_name: blendsync
    authorization: { type: Bearer, credentials_file: $PWD/token }
    static_configs: [ { targets: ["127.0.0.1:$ap"] } ]
YML
    prometheus --config.file=prometheus.yml --storage.tsdb.path="$PWD/tsdb" --web.listen-address="127.0.0.1:$pport" \
        >prometheus.log 2>&1 &
    prom=$!
else
    echo "skip (part): no prometheus (Debian package prometheus): the scrape-and-query check does not run"
fi

"$bin" bot --server 127.0.0.1:$port --config assets/m51.json --slot 0 --token a51 --seed 1 --quiet >bot0.out 2>&1 & b0=$!
"$bin" bot --server 127.0.0.1:$port --config assets/m51.json --slot 1 --token b51 --seed 2 --quiet >bot1.out 2>&1 & b1=$!
for _ in $(seq 1 300); do # both bots in, the match running (a busy machine may take seconds)
    curl -s -H "$H" "$api/metrics" >metrics.txt
    [ "$(metric blendsync_players_connected)" = 2 ] && [ "$(metric 'blendsync_matches\{state="running"\}')" = 1 ] && break
    sleep 0.05
done
[ "$(metric 'blendsync_matches\{state="running"\}')" = 1 ] && ok "while it plays: one match running" || bad "running: $(grep matches metrics.txt)"
[ "$(metric blendsync_players_connected)" = 2 ] && ok "two players connected" || bad "players: $(metric blendsync_players_connected)"
if command -v promtool >/dev/null; then
    promtool check metrics <metrics.txt >promtool.out 2>&1 && ok "promtool check metrics accepts the live /metrics" \
        || { bad "promtool"; cat promtool.out; }
else
    echo "skip (part): no promtool (Debian package prometheus)"
fi
wait $b0 $b1
sleep 0.3
curl -s -H "$H" "$api/metrics" >metrics.txt
[ "$(metric 'blendsync_matches\{state="ended"\}')" = 1 ] && [ "$(metric blendsync_players_connected)" = 0 ] \
    && ok "after it: one match ended, no player connected" || bad "after: $(grep -E 'matches|players' metrics.txt)"
# 180 ticks confirmed: each went into both histograms once
[ "$(metric blendsync_tick_duration_seconds_count)" = 180 ] && [ "$(metric blendsync_tick_lateness_seconds_count)" = 180 ] \
    && ok "the tick histograms counted the 180 ticks" || bad "histogram counts: $(grep _count metrics.txt)"
[ "$(metric 'blendsync_tick_duration_seconds_bucket\{le="\+Inf"\}')" = 180 ] && ok "+Inf bucket = count" || bad "+Inf"
inputs=$(metric blendsync_inputs_received_total); defaulted=$(metric blendsync_inputs_defaulted_total)
# every confirmed player-tick (2 x 180) was either received in time or defaulted; a bot may also send a
# few inputs for ticks past the end
[ $((${inputs:-0} + ${defaulted:-0})) -ge 360 ] && [ "${defaulted:-999}" -lt 60 ] \
    && ok "inputs received $inputs + defaulted $defaulted cover the 360 player-ticks" || bad "inputs: $inputs defaulted: $defaulted"
[ "$(metric 'blendsync_build_info\{version="[0-9.]*"\}')" = 1 ] && ok "build info" || bad "build_info"
# one more player for the ended match: refused with BYE MATCH_OVER, counted by reason
[ "$(metric 'blendsync_refusals_total\{reason="match_over"\}')" = 0 ] || bad "match_over refusals before: not 0"
"$bin" bot --server 127.0.0.1:$port --config assets/m51.json --slot 0 --token a51 --seed 1 --quiet >late.out 2>&1
sleep 0.3
curl -s -H "$H" "$api/metrics" >metrics.txt
[ "$(metric 'blendsync_refusals_total\{reason="match_over"\}')" = 1 ] && [ "$(metric 'blendsync_refusals_total\{reason="bad_token"\}')" = 0 ] \
    && ok "a HELLO for the ended match: refusals_total{reason=\"match_over\"} 1" || bad "refusals: $(grep refusals_total metrics.txt)"
if [ -n "$prom" ]; then
    got=""
    for _ in $(seq 1 40); do # two scrapes after the end at most, Prometheus' start included
        got=$(curl -s "http://127.0.0.1:$pport/api/v1/query?query=blendsync_inputs_received_total" |
              python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null)
        [ "$got" = "$inputs" ] && break; sleep 0.5
    done
    [ "$got" = "$inputs" ] && ok "Prometheus scraped the server; its query API reads back inputs received = $got" \
        || { bad "Prometheus read back '$got', expected $inputs"; tail -5 prometheus.log; }
    up=$(curl -s "http://127.0.0.1:$pport/api/v1/query?query=up" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])' 2>/dev/null)
    [ "$up" = 1 ] && ok "Prometheus: up = 1 (the bearer token was accepted)" || bad "up = $up"
    kill $prom; wait $prom 2>/dev/null
fi
kill -INT $spid; wait $spid; rs=$?
[ $rs -eq 0 ] && ok "the server exits 0" || bad "server exit $rs"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
