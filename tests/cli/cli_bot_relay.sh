#!/usr/bin/env bash
# blendsync bot through the seeded impaired UDP relay (tests/tools/udp_relay.c) to a real
# blendsync-server, all on loopback (issue 14): with 10% loss, 30-90 ms delay and 5% duplication the
# bot applies the whole match, exits 0 and its replay ends "normal" and verifies; when the path goes
# dark mid-match the bot says INCOMPLETE, exits 3, and its replay ends "aborted" (never "normal").
# About 12 s. usage: cli_bot_relay.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
server="$(dirname "$bin")/blendsync-server"
relay="$(dirname "$bin")/tests/bsync_udp_relay"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
[ -x "$relay" ] || { echo "skip: no $relay"; exit 0; }
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
cat >loco.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } } }
JSON
cat >match.json <<'JSON'
{ "match_id": 7, "players": [ {"token": "alpha"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0} ],
  "checksum_interval": 15, "replay": "server.bsreplay", "duration_ticks": 120, "input_delay": 4 }
JSON
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
port_of() { for _ in $(seq 1 100); do p=$(sed -n "s/^$2 127.0.0.1:\([0-9]*\)$/\1/p" "$1"); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.05; done; }

run() { # name relay-options...
  local name=$1; shift
  "$server" --listen 127.0.0.1:0 --match match.json --replay "$name-server.bsreplay" --exit-when-done --status 0 \
    >"$name-server.out" 2>"$name-server.log" &
  spid=$!
  sport=$(port_of "$name-server.out" "listening on")
  [ -n "$sport" ] || { bad "$name: server did not start"; kill $spid; return; }
  "$relay" --to "$sport" --for 15000 "$@" >"$name-relay.out" 2>&1 &
  rpid=$!
  rport=$(port_of "$name-relay.out" "relaying on")
  timeout 40 "$bin" bot --server 127.0.0.1:$rport --config match.json --slot 0 --token alpha --seed 3 --quiet \
    --replay "$name-bot.bsreplay" >"$name-bot.out" 2>&1
  rc=$?
  kill $rpid $spid 2>/dev/null; wait $rpid $spid 2>/dev/null
}

run lossy --seed 7 --loss 100 --delay 30 90 --dup 50
[ $rc -eq 0 ] && grep -q "120 frames applied" lossy-bot.out && ok "10% loss, 30-90 ms, 5% dup: exit 0, 120 frames" \
  || { bad "lossy: exit $rc"; cat lossy-bot.out; }
"$bin" replay verify lossy-bot.bsreplay >lossy-verify.out 2>&1 && grep -q "ticks verified: 120" lossy-verify.out \
  && ok "its replay verifies (120 ticks)" || { bad "lossy replay verify"; cat lossy-verify.out; }
"$bin" replay info lossy-bot.bsreplay --json | grep -q '"reason": "normal"' && ok "its replay ends normal" \
  || bad "lossy replay END: $("$bin" replay info lossy-bot.bsreplay --json)"

run dark --seed 8 --delay 5 15 --blackout-after 2000
[ $rc -eq 3 ] && ok "path dark after 2 s: exit 3" || { bad "dark: exit $rc"; cat dark-bot.out; }
grep -q "INCOMPLETE" dark-bot.out && ok "the bot says INCOMPLETE" || { bad "no INCOMPLETE line"; cat dark-bot.out; }
info=$("$bin" replay info dark-bot.bsreplay --json)
echo "$info" | grep -q '"reason": "aborted"' && ok "its replay ends aborted, not normal" || bad "dark replay END: $info"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
