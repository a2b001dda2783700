#!/usr/bin/env bash
# blendsync-server's graceful drain on SIGTERM (docs/operations.md "Drain"), over real sockets: SIGTERM
# while bots play a match -> /readyz answers 503 within 1 s (/healthz stays 200), a new match is
# refused (POST 503), a player knocking on a match that had not started is refused, the running match
# plays to its end (every frame, reason normal, its replay verifies), exit 0. Then with
# --drain-seconds 1 a match longer than the grace period is ended (reason shutdown) after it, its
# replay synced and verifiable, exit 0; and a second SIGTERM during a drain ends everything at once.
# usage: cli_drain.sh PATH_TO_BLENDSYNC WORK_DIR
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
mk() { # id duration
cat <<JSON
{ "match_id": $1, "players": [ {"token": "a$1"}, {"token": "b$1"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0}, {"name": "b", "graph": "loco.json", "slot": 1} ],
  "checksum_interval": 15, "replay": "m$1.bsreplay", "duration_ticks": $2,
  "timeouts": {"start_ms": 30000, "idle_ms": 30000} }
JSON
}
mk 61 240 >assets/m61.json; mk 62 240 >assets/m62.json; mk 63 240 >assets/m63.json; mk 64 100000 >assets/m64.json
echo "drain-token-0123456789abcdef" >token
H="Authorization: Bearer $(cat token)"
start() { # out log args...
    local out=$1 log=$2; shift 2
    "$server" --listen 127.0.0.1:0 --admin 127.0.0.1:0 --admin-token-file token --assets assets --status 0 "$@" >"$out" 2>"$log" &
    spid=$!
    for _ in $(seq 1 400); do grep -q "^admin on" "$out" && break; sleep 0.05; done
    if grep -q "no admin API" "$log"; then echo "skip: blendsync-server was built without libmicrohttpd"; exit 0; fi
    ap=$(sed -n 's/^admin on 127.0.0.1:\([0-9]*\)$/\1/p' "$out")
    port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$out")
    api="http://127.0.0.1:$ap"
}
wait_running() { # id
    for _ in $(seq 1 300); do
        curl -s -H "$H" "$api/v1/matches/$1" | grep -q '"state":"running"' && return 0; sleep 0.05
    done
    return 1
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# ---- SIGTERM mid-match: the match finishes
start a.out a.log --match assets/m61.json --match assets/m62.json
[ -n "$ap" ] || { echo "FAIL: the server did not start"; cat a.out a.log; exit 1; }
"$bin" bot --server 127.0.0.1:$port --config assets/m61.json --slot 0 --token a61 --seed 1 --quiet >b0.out 2>&1 & b0=$!
"$bin" bot --server 127.0.0.1:$port --config assets/m61.json --slot 1 --token b61 --seed 2 --quiet >b1.out 2>&1 & b1=$!
wait_running 61 && ok "match 61 runs" || bad "match 61 never ran"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$api/readyz")" = 200 ] && ok "/readyz 200 before SIGTERM" || bad "readyz before"
t0=$(now_ms)
kill -TERM $spid
ready=""
while [ $(($(now_ms) - t0)) -lt 3000 ]; do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$api/readyz")" = 503 ] && { ready=$(($(now_ms) - t0)); break; }
    sleep 0.02
done
[ -n "$ready" ] && [ "$ready" -le 1000 ] && ok "/readyz 503 ${ready} ms after SIGTERM (limit 1,000)" || bad "readyz after SIGTERM: '${ready}'"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$api/healthz")" = 200 ] && ok "/healthz stays 200 while draining" || bad "healthz"
code=$(curl -s -o post.json -w '%{http_code}' -H "$H" -X POST --data-binary @assets/m63.json "$api/v1/matches")
[ "$code" = 503 ] && grep -q draining post.json && ok "a new match while draining: 503 draining" || bad "POST while draining: $code $(cat post.json)"
"$bin" bot --server 127.0.0.1:$port --config assets/m62.json --slot 0 --token a62 --seed 3 --quiet >late.out 2>&1; rl=$?
# the refusal is BYE MATCH_OVER (the bot reports the match over, with nothing played)
grep -q "event=refused match=62 slot=0 reason=match_over" a.log && grep -q " 0 frames applied" late.out \
    && ok "a player of match 62 (not started) is refused: match_over, 0 frames (bot exit $rl)" || { bad "late joiner"; cat late.out; }
wait $b0; r0=$?; wait $b1; r1=$?
[ $r0 -eq 0 ] && [ $r1 -eq 0 ] && grep -q "240 frames applied" b0.out && grep -q "240 frames applied" b1.out \
    && ok "the running match played to its end: both bots applied 240 frames" || { bad "bots $r0 $r1"; cat b0.out b1.out; }
wait $spid; rs=$?
elapsed=$(($(now_ms) - t0))
[ $rs -eq 0 ] && ok "the server exits 0 after the drain (${elapsed} ms after SIGTERM)" || bad "server exit $rs"
grep -q "event=match_end match=61 ticks=240 reason=normal" a.log && ok "match 61 ended normally (240 ticks)" || bad "61 end: $(grep match_end a.log)"
grep -q "event=match_end match=62 ticks=0 reason=shutdown" a.log && ok "match 62 (lobby) ended at the drain's start, reason shutdown" || bad "62 end"
grep -q "event=drain state=on" a.log && grep -q "event=drain state=done matches_cut=0" a.log && ok "log: drain on, done with none cut" || bad "drain lines"
"$bin" replay verify assets/m61.bsreplay >v61.out 2>&1 && grep -q "ticks verified: 240" v61.out && ok "match 61's replay verifies (240 ticks)" \
    || { bad "verify 61"; cat v61.out; }

# ---- a match longer than the grace period: ended after --drain-seconds 1
start c.out c.log --match assets/m64.json --drain-seconds 1
"$bin" bot --server 127.0.0.1:$port --config assets/m64.json --slot 0 --token a64 --seed 1 --quiet >c0.out 2>&1 & c0=$!
"$bin" bot --server 127.0.0.1:$port --config assets/m64.json --slot 1 --token b64 --seed 2 --quiet >c1.out 2>&1 & c1=$!
wait_running 64 || bad "match 64 never ran"
sleep 1
t0=$(now_ms)
kill -TERM $spid
wait $spid; rs=$?
elapsed=$(($(now_ms) - t0))
wait $c0 $c1
[ $rs -eq 0 ] && [ $elapsed -ge 1000 ] && [ $elapsed -lt 6000 ] && ok "--drain-seconds 1: exit 0 after ${elapsed} ms (grace 1 s + at most 3 s for the goodbyes)" \
    || bad "drain-seconds 1: exit $rs after $elapsed ms"
grep -q "event=match_end match=64 .*reason=shutdown" c.log && ok "match 64 ended after the grace period, reason shutdown" || bad "64 end: $(grep match_end c.log)"
grep -q "event=drain state=done matches_cut=1" c.log && ok "log: drain done, one match cut" || bad "cut line"
"$bin" replay verify assets/m64.bsreplay >v64.out 2>&1 && ok "match 64's replay (cut by the drain) verifies: $(grep -o 'ticks verified: [0-9]*' v64.out)" \
    || { bad "verify 64"; cat v64.out; }
# ---- a second SIGTERM during the drain ends at once (the grace period is the default 30 s)
mk 65 100000 >assets/m65.json
start d.out d.log --match assets/m65.json
"$bin" bot --server 127.0.0.1:$port --config assets/m65.json --slot 0 --token a65 --seed 1 --quiet >d0.out 2>&1 & d0=$!
"$bin" bot --server 127.0.0.1:$port --config assets/m65.json --slot 1 --token b65 --seed 2 --quiet >d1.out 2>&1 & d1=$!
wait_running 65 || bad "match 65 never ran"
kill -TERM $spid; sleep 0.5
[ "$(curl -s -o /dev/null -w '%{http_code}' "$api/readyz")" = 503 ] || bad "readyz during the first drain"
t0=$(now_ms)
kill -TERM $spid
wait $spid; rs=$?
elapsed=$(($(now_ms) - t0))
wait $d0 $d1
[ $rs -eq 0 ] && [ $elapsed -lt 5000 ] && grep -q "event=match_end match=65 .*reason=shutdown" d.log \
    && ok "a second SIGTERM: match 65 ends at once (reason shutdown), exit 0 ${elapsed} ms later" || bad "second SIGTERM: exit $rs after $elapsed ms"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
