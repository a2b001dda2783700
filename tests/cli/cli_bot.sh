#!/usr/bin/env bash
# blendsync bot against a real blendsync-server on loopback: a scripted bot and a seeded bot (with a
# flipped state bit) finish a 2-player match and the server's replay verifies; each bot's own replay
# verifies or fails exactly where its state was flipped; the scripted path reaches the server (the
# replay's frames for slot 0 carry the script's values at the script's ticks); bad scripts and bad
# arguments exit 2 with a message.
# usage: cli_bot.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
server="$(dirname "$bin")/blendsync-server"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cat >humanoid_locomotion.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } } }
JSON
cat >match.json <<'JSON'
{ "match_id": 5, "players": [ {"token": "alpha"}, {"token": "bravo"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "humanoid_locomotion.json", "slot": 0},
                  {"name": "b", "graph": "humanoid_locomotion.json", "slot": 1} ],
  "checksum_interval": 15, "replay": "bot.bsreplay", "duration_ticks": 90 }
JSON
printf 'tick,speed\n0,0\n20,1.4\n40,3.25\n60,0.5\n' >path.csv
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

"$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 >server.out 2>server.log &
spid=$!
port=""
for _ in $(seq 1 100); do port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' server.out); [ -n "$port" ] && break; sleep 0.05; done
[ -n "$port" ] || { echo "FAIL: server did not start"; cat server.log; exit 1; }
"$bin" bot --server 127.0.0.1:$port --config match.json --slot 0 --token alpha --script path.csv --quiet --replay own0.bsreplay >bot0.out 2>&1 &
b0=$!
"$bin" bot --server 127.0.0.1:$port --config match.json --slot 1 --token bravo --seed 9 --quiet --inject-desync 40 --replay own1.bsreplay >bot1.out 2>&1 &
b1=$!
wait $b0; r0=$?; wait $b1; r1=$?; wait $spid
[ $r0 -eq 0 ] && ok "scripted bot exit 0" || { bad "scripted bot exit $r0"; cat bot0.out; }
[ $r1 -eq 1 ] && ok "seeded bot with a flipped bit: exit 1 (desync reported)" || { bad "seeded bot exit $r1"; cat bot1.out; }
grep -q "90 frames applied" bot0.out && ok "scripted bot applied 90 frames" || bad "frames: $(cat bot0.out)"
"$bin" replay verify bot.bsreplay >verify.out 2>&1 && ok "the server's replay verifies" || { bad "replay verify"; cat verify.out; }
# each bot's own view: the clean one verifies (its pose checksums too), the one whose state was flipped
# after frame 40 fails at its first checksum after it (tick 44: (44 + 1) % 15 == 0)
"$bin" replay verify own0.bsreplay >own0.out 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "ticks verified: 90" own0.out && grep -q "checksums compared: 6 (6 with a pose)" own0.out \
  && ok "bot 0's own replay verifies: 90 ticks, 6 pose checksums" || { bad "own0 rc $rc"; cat own0.out; }
"$bin" replay verify own1.bsreplay >own1.out 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "^MISMATCH at tick 44: blend checksum" own1.out \
  && ok "bot 1's own replay fails where its state was flipped (tick 44)" || { bad "own1 rc $rc"; cat own1.out; }
# the scripted values in the replay: decode FRAME records for slot 0 with python (format: docs/replay.md)
if command -v python3 >/dev/null; then
  python3 - bot.bsreplay >frames.txt <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
o = 8
def varint(b, i):
    v = 0; s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if not c & 0x80: return v, i
while o + 16 <= len(d):
    t, n = d[o], struct.unpack_from('<I', d, o + 4)[0]
    body = d[o + 8:o + 8 + n]
    if t == 2:
        tick = struct.unpack_from('<I', body, 0)[0]
        players, params, trig = body[4], body[5], body[6]
        mask = struct.unpack_from('<H', body, 8)[0]
        z, i = varint(body, 10)
        v = (z >> 1) ^ -(z & 1)
        print(tick, v, mask & 1)
    o += 16 + n
PY
  # a row's value must be what slot 0 played at that tick when its input was not defaulted
  check() { awk -v t="$1" -v raw="$2" '$1==t && $3==0 { if ($2==raw) f=1; else f=2 } END { exit (f==1 ? 0 : 1) }' frames.txt; }
  check 25 91750 && ok "tick 25 plays speed 1.4 (raw 91750)" || bad "tick 25: $(awk '$1==25' frames.txt)"
  check 45 212992 && ok "tick 45 plays speed 3.25 (raw 212992)" || bad "tick 45: $(awk '$1==45' frames.txt)"
  check 70 32768 && ok "tick 70 plays speed 0.5 (raw 32768)" || bad "tick 70: $(awk '$1==70' frames.txt)"
else
  echo "skip: no python3 to decode the replay's frames"
fi
# errors
printf 'tick,sped\n0,1\n' >typo.csv
"$bin" bot --server 127.0.0.1:1 --config match.json --slot 0 --token alpha --script typo.csv >err.out 2>&1
rc=$?; [ $rc -eq 2 ] && grep -q 'typo.csv:1: "sped" is not an input parameter' err.out && ok "unknown column: exit 2, named" || { bad "typo: rc $rc"; cat err.out; }
printf 'tick,speed\n5,1\n5,2\n' >order.csv
"$bin" bot --server 127.0.0.1:1 --config match.json --slot 0 --token alpha --script order.csv >err.out 2>&1
rc=$?; [ $rc -eq 2 ] && grep -q 'order.csv:3:' err.out && ok "unordered ticks: exit 2 at line 3" || { bad "order: rc $rc"; cat err.out; }
"$bin" bot --server nowhere --config match.json --slot 0 --token alpha >err.out 2>&1
rc=$?; [ $rc -eq 2 ] && grep -q 'expected HOST:PORT' err.out && ok "bad --server: exit 2" || { bad "server arg: rc $rc"; cat err.out; }
"$bin" bot --server 127.0.0.1:9 --config match.json --slot 0 --token alpha --timeout 3 >err.out 2>&1
rc=$?; [ $rc -eq 2 ] && grep -q 'connection lost or refused' err.out && ok "no server: exit 2 with a message" || { bad "no server: rc $rc"; cat err.out; }
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
