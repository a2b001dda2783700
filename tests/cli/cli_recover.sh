#!/usr/bin/env bash
# Crash recovery (docs/server.md "Recovery"), real processes and sockets on loopback: three `blendsync
# bot`s play a 300-tick match through the seeded lossy UDP relay (10% loss, 30-90 ms); the server is
# killed with SIGKILL at a random tick (printed; RECOVER_KILL_TICK=N repeats one) and restarted on the
# same port with --recover on its replay folder. Every bot must resume (from the frames it had: those
# lost on the path with the server are sent again from the rebuilt ring) and finish with all 300 frames
# and no desync (its checksums agreed with the server's), the server's replay (continued in place) must
# verify from tick 0 to 300 and end normal, each bot's own replay too; the log says what was recovered.
# The clients notice the silent server after max(1 s, 8 round trips) and the match runs again within
# 3 s of the restart (measured from the server's log). A second part cuts a replay mid-record (a torn tail) and checks that --recover cuts it back and
# counts it. About 20 s. usage: cli_recover.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
server="$(dirname "$bin")/blendsync-server"
relay="$(dirname "$bin")/tests/bsync_udp_relay"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
[ -x "$relay" ] || { echo "skip: no $relay"; exit 0; }
rm -rf "$work"; install -d "$work/replays" && cd "$work" || exit 1
cat >loco.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } } }
JSON
cat >match.json <<'JSON'
{ "match_id": 41, "players": [ {"token": "alpha"}, {"token": "bravo"}, {"token": "charlie"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0}, {"name": "b", "graph": "loco.json", "slot": 1},
                  {"name": "c", "graph": "loco.json", "slot": 2} ],
  "checksum_interval": 15, "replay": "replays/m41.bsreplay", "duration_ticks": 300, "input_delay": 4,
  "timeouts": { "start_ms": 20000, "peer_ms": 5000, "idle_ms": 30000 } }
JSON
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
port_of() { for _ in $(seq 1 100); do p=$(sed -n "s/^$2 127.0.0.1:\([0-9]*\)$/\1/p" "$1"); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.05; done; }
tick_of() { sed -n 's/.*event=status match=41 tick=\([0-9]*\).*/\1/p' "$1" | tail -1; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

kill_tick=${RECOVER_KILL_TICK:-$((60 + RANDOM % 180))}
echo "killing the server at tick $kill_tick (RECOVER_KILL_TICK=$kill_tick repeats it)"
"$server" --listen 127.0.0.1:0 --match match.json --status 0.1 --exit-when-done >server1.out 2>server1.log &
spid=$!; pids+=($spid)
sport=$(port_of server1.out "listening on")
[ -n "$sport" ] || { bad "server did not start"; exit 1; }
"$relay" --to "$sport" --for 60000 --seed 11 --loss 100 --delay 30 90 >relay.out 2>&1 &
rpid=$!; pids+=($rpid)
rport=$(port_of relay.out "relaying on")
tokens=(alpha bravo charlie)
bots=()
for s in 0 1 2; do
  timeout 60 "$bin" bot --server 127.0.0.1:$rport --config match.json --slot $s --token ${tokens[$s]} --seed $((5 + s)) \
    --quiet --reconnect-seconds 30 --replay bot$s.bsreplay >bot$s.out 2>&1 &
  bots+=($!); pids+=($!)
done
t=0
for _ in $(seq 1 600); do t=$(tick_of server1.log); [ -n "$t" ] && [ "$t" -ge "$kill_tick" ] && break; sleep 0.01; done
kill -9 $spid; wait $spid 2>/dev/null
t_kill=$(tick_of server1.log)
[ -n "$t_kill" ] && [ "$t_kill" -ge "$kill_tick" ] && [ "$t_kill" -lt 300 ] && ok "server killed (SIGKILL) mid-match near tick $t_kill" \
  || bad "server was not killed mid-match (last status tick '${t_kill}')"
cp replays/m41.bsreplay killed.bsreplay
sleep 0.5
t_restart=$(date +%s.%N)
"$server" --listen 127.0.0.1:$sport --recover replays --status 1 --exit-when-done >server2.out 2>server2.log &
spid=$!; pids+=($spid)
rcs=()
for b in "${bots[@]}"; do wait $b; rcs+=($?); done
wait $spid; src=$?
[ $src -eq 0 ] && ok "recovered server exits 0" || { bad "recovered server exit $src"; tail -5 server2.log; }
grep -q "event=recovered match=41 replay=replays/m41.bsreplay" server2.log && ok "the log names the recovered match" \
  || { bad "no event=recovered line"; cat server2.log | head; }
rtick=$(sed -n 's/.*event=recovered match=41 .* tick=\([0-9]*\) .*/\1/p' server2.log)
[ -n "$rtick" ] && [ "$rtick" -ge "$t_kill" ] && ok "served again at tick $rtick (last status before the kill: $t_kill)" \
  || bad "recovered tick '$rtick' is before the last status tick $t_kill"
grep -q "event=match_resume match=41 tick=$rtick players=3/3" server2.log && ok "the clock resumed with all 3 players back" \
  || { bad "no match_resume with 3/3"; grep -E "join|resume" server2.log; }
# Restart to running: the clients notice the silent server max(1 s, 8 round trips) after its last
# packet (client.c; 8 x 180 ms at most on this 30-90 ms path = 1.44 s), i.e. at most 0.94 s after the
# restart 0.5 s later; then a reconnect of four round trips (ENet's connect and verify, HELLO and
# WELCOME: 0.72 s at 180 ms) and the server's START 100 ms ahead; the 10% loss costs a resend of a
# handshake packet after the round trip + 4 deviations (the reconnect starts from the last connection's
# estimate, client_enet.c), up to 0.4 s each: three of them in the slowest of the three bots give
# 0.94 + 0.72 + 0.1 + 1.2 = 2.96 s. Bound: 3 s. Before (ENet's 5 s peer timeout) this was 4.5 s or more.
ts_resume=$(sed -n 's/^ts=\([^ ]*\)Z .*event=match_resume match=41 .*/\1/p' server2.log | head -1)
if [ -n "$ts_resume" ]; then
  run_s=$(awk -v a="$(date -u -d "$ts_resume" +%s.%N)" -v b="$t_restart" 'BEGIN { printf "%.2f", a - b }')
  awk -v r="$run_s" 'BEGIN { exit !(r > 0 && r <= 3.0) }' \
    && ok "restart to running again: $run_s s (<= 3 s; silence noticed after $(sed -n 's/.*, \([0-9]*\) ms after the last packet.*/\1/p' bot*.out | sort -n | tail -1) ms at most)" \
    || bad "restart to running again: $run_s s (> 3 s)"
else bad "no match_resume time in the log"; fi
for s in 0 1 2; do
  if [ "${rcs[$s]}" -eq 0 ] && grep -q "300 frames applied, .* 0 desyncs" bot$s.out && grep -q "reconnected" bot$s.out; then
    ok "bot $s: exit 0, all 300 frames, no desync, $(grep -o 'resumed [0-9]* from frames' bot$s.out)"
  else bad "bot $s: exit ${rcs[$s]}"; cat bot$s.out; fi
  "$bin" replay verify bot$s.bsreplay >bot$s-verify.out 2>&1 && grep -q "ticks verified: 300" bot$s-verify.out \
    && ok "bot $s's replay verifies (300 ticks)" || { bad "bot $s replay verify"; cat bot$s-verify.out; }
done
resent=$(sed -n 's/.*event=join match=41 slot=[0-2] kind=resume start_tick=[0-9]* frames_resent=\([0-9]*\).*/\1/p' server2.log | awk '{s += $1} END {print s + 0}')
# every slot resumed, none from a snapshot: on the server and on the bot (a bot whose first attempt got
# no WELCOME within its 2 s on the 10% path, ENet resending it, connects again and is resumed again:
# two resume joins for its slot and a takeover, one resume on the bot)
resumed_all=1
for s in 0 1 2; do
  grep -q "event=join match=41 slot=$s kind=resume" server2.log || resumed_all=0
  grep -q "resumed [1-9][0-9]* from frames, 0 from a snapshot" bot$s.out || resumed_all=0
done
grep -q "event=join match=41 slot=[0-2] kind=\(reconnect\|late_join\)" server2.log && resumed_all=0
[ $resumed_all -eq 1 ] \
  && ok "all 3 bots resumed from the rebuilt frame ring ($resent frames sent again: those lost on the path when the server died)" \
  || { bad "not every bot resumed from frames"; grep "event=join" server2.log; }
"$bin" replay verify replays/m41.bsreplay >server-verify.out 2>&1 && grep -q "ticks verified: 300" server-verify.out \
  && ok "the server's replay verifies from tick 0 to 300" || { bad "server replay verify"; cat server-verify.out; }
"$bin" replay info replays/m41.bsreplay --json | grep -q '"reason": "normal"' && ok "the server's replay ends normal" \
  || bad "server replay END: $("$bin" replay info replays/m41.bsreplay --json | grep reason)"

# a torn tail: the killed replay plus the first 18 bytes of a FRAME record (its 8-byte record header
# says type 2, body 40 bytes; 10 body bytes follow): the crash came mid-append of the next frame
install -d torn && cp killed.bsreplay torn/m41.bsreplay
printf '\002\000\000\000\050\000\000\000\000\000\000\000\000\000\000\000\000\000' >>torn/m41.bsreplay
"$server" --listen 127.0.0.1:0 --recover torn --status 0 >torn.out 2>torn.log &
tpid=$!; pids+=($tpid)
for _ in $(seq 1 100); do grep -q "event=recovered" torn.log && break; sleep 0.05; done
kill $tpid; wait $tpid 2>/dev/null   # SIGTERM: the rebuilt match ends cleanly (END reason shutdown)
grep -q "event=recovered match=41 .* tail=truncated torn_bytes=18 lost_ticks=1 " torn.log \
  && ok "a torn FRAME (18 bytes) is cut away and counted as one lost tick" || { bad "torn tail: $(grep event=recovered torn.log)"; }
ttick=$(sed -n 's/.*event=recovered match=41 .* tick=\([0-9]*\) .*/\1/p' torn.log)
"$bin" replay verify torn/m41.bsreplay >torn-verify.out 2>&1 && grep -q "ticks verified: $ttick " torn-verify.out \
  && ok "the cut replay verifies up to the tick it was served again at ($ttick)" || { bad "cut replay verify"; cat torn-verify.out; }
"$server" --listen 127.0.0.1:0 --recover replays >none.out 2>&1; nrc=$?
[ $nrc -eq 0 ] && grep -q "nothing to recover" none.out && ok "a folder of finished replays: nothing to recover, exit 0" \
  || { bad "finished folder: exit $nrc"; cat none.out; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
