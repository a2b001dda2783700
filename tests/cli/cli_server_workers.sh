#!/usr/bin/env bash
# blendsync-server --workers 2 (issue 14: more than one core): two matches, each served by its own
# worker thread on its own port (match k on worker k % 2). Real bots play both matches at once on
# their worker's port and finish; the server runs two threads while they play; a bot that knocks on
# the other worker's port is refused (BYE unknown match, exit non-zero, logged by that worker); both
# replays verify; bad --workers values exit 2 with a message.
# usage: cli_server_workers.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
server="$(dirname "$bin")/blendsync-server"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cat >loco.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } } }
JSON
for id in 71 72; do
cat >m$id.json <<JSON
{ "match_id": $id, "players": [ {"token": "a$id"}, {"token": "b$id"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0}, {"name": "b", "graph": "loco.json", "slot": 1} ],
  "checksum_interval": 15, "replay": "m$id.bsreplay", "duration_ticks": 150,
  "timeouts": {"start_ms": 8000, "idle_ms": 8000} }
JSON
done
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

"$server" --listen 127.0.0.1:0 --match m71.json --match m72.json --workers 2 --exit-when-done --status 0 >server.out 2>server.log &
spid=$!
ports=()
for _ in $(seq 1 100); do
    mapfile -t ports < <(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' server.out)
    [ ${#ports[@]} -ge 2 ] && break; sleep 0.05
done
[ ${#ports[@]} -eq 2 ] || { echo "FAIL: server did not print two listening lines"; cat server.out server.log; kill $spid; exit 1; }
[ "${ports[0]}" != "${ports[1]}" ] && ok "two workers, two ports (${ports[0]}, ${ports[1]})" || bad "ports ${ports[*]}"
# match 71 is match 0 (worker 0), match 72 is match 1 (worker 1)
"$bin" bot --server 127.0.0.1:${ports[1]} --config m71.json --slot 0 --token a71 --seed 1 --quiet >wrong.out 2>&1; rw=$?
[ $rw -ne 0 ] && grep -q "no such match" wrong.out && ok "a bot of match 71 on worker 1's port is refused (exit $rw)" \
  || { bad "wrong port: exit $rw"; cat wrong.out; }
pids=()
for id in 71 72; do
    p=${ports[0]}; [ $id = 72 ] && p=${ports[1]}
    "$bin" bot --server 127.0.0.1:$p --config m$id.json --slot 0 --token a$id --seed 3 --quiet >bot$id-0.out 2>&1 & pids+=($!)
    "$bin" bot --server 127.0.0.1:$p --config m$id.json --slot 1 --token b$id --seed 4 --quiet >bot$id-1.out 2>&1 & pids+=($!)
done
sleep 2
threads=$(ls /proc/$spid/task 2>/dev/null | wc -l)
[ "$threads" -ge 2 ] && ok "the server runs $threads threads while both matches play" || bad "threads: $threads"
rcs=0
for p in "${pids[@]}"; do wait "$p" || rcs=$((rcs + 1)); done
wait $spid; rs=$?
[ $rcs -eq 0 ] && ok "all four bots finished (exit 0)" || { bad "$rcs bots failed"; cat bot*.out; }
[ $rs -eq 0 ] && ok "the server exits 0 once both matches ended" || bad "server exit $rs"
for id in 71 72; do
    grep -q "150 frames applied" bot$id-0.out && ok "match $id: bot applied 150 frames" || bad "match $id frames: $(cat bot$id-0.out)"
    "$bin" replay verify m$id.bsreplay >verify$id.out 2>&1 && grep -q "ticks verified: 150" verify$id.out \
        && ok "match $id: the server's replay verifies (150 ticks)" || { bad "verify $id"; cat verify$id.out; }
done
[ "$(grep -c 'event=listening' server.log)" -eq 2 ] && ok "two listening log lines" || bad "listening lines: $(grep event=listening server.log)"
grep -q "event=refused reason=unknown_match match=71" server.log && ok "the other worker logged the refusal" || bad "no refusal line"
[ "$(grep -c 'event=match_end.*reason=normal' server.log)" -eq 2 ] && ok "both matches ended normally" || bad "match_end lines"
# bad values
"$server" --listen 127.0.0.1:0 --match m71.json --workers 0 >/dev/null 2>bad0.err; r=$?
[ $r -eq 2 ] && grep -q -- "--workers: expected 1..64" bad0.err && ok "--workers 0: exit 2 with a message" || bad "--workers 0: $r $(cat bad0.err)"
"$server" --listen 127.0.0.1:0 --match m71.json --workers 2 >/dev/null 2>bad2.err; r=$?
[ $r -eq 2 ] && grep -q "at least 2 --match files" bad2.err && ok "--workers 2 with one match: exit 2 with a message" || bad "--workers 2: $r $(cat bad2.err)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
