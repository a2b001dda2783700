#!/usr/bin/env bash
# Upstream bytes per client with authenticated sessions (encrypt), protocol version 7 against 6
# (issues 33 and 34): two matches of 4 `blendsync bot`s at 30 Hz (BSYNC_BYTES_HZ=60: 60 Hz), 10 s each,
# one with every bot on --protocol 6 and one on 7, on loopback. Per client and second of the match: the
# server's `bytes_in` (blendsync bytes as sealed) and `udp_in` (the host's UDP payload, ENet's headers and
# acknowledgements included). Asserted:
#  - version 7's upstream with ENet's headers is below version 6's (version 7's frames are unreliable,
#    so a client no longer sends ENet an acknowledgement for each frame);
#  - version 7 as sealed is at least 400 B/s below version 6 and below 1,100 B/s at 30 Hz: per INPUT the
#    compact seal (12 bytes over the message instead of 26) and the packed INPUT (6 fixed bytes instead
#    of 8, plus the frame ack byte) take 17 bytes, 510 B/s at 30 Hz; the margin is for INPUTs that carry
#    an unacknowledged record more on a loaded machine (docs/protocol.md "Upstream bytes").
# About 25 s. usage: cli_v7_bytes.sh PATH_TO_BLENDSYNC WORK_DIR [--report]
set -uo pipefail
bin=$1; work=$2; report=${3:-}
server="$(dirname "$bin")/blendsync-server"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
proto_flag=1
help=$("$bin" bot --help 2>&1) # whole, not piped into grep -q (which would end the writer early under pipefail)
grep -q -- "--protocol" <<<"$help" || proto_flag=0 # an older build: version 6 only
hz=${BSYNC_BYTES_HZ:-30}
[ $proto_flag -eq 1 ] || [ "$report" = "--report" ] || { echo "skip: this bot has no --protocol"; exit 0; }
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
cat >loco.json <<'JSON'
{ "tick_rate": TICK_RATE, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "run": { "source": "builtin:humanoid" } } }
JSON
sed -i "s/TICK_RATE/$hz/" loco.json
s0=0001020304050607080900010203040506070809000102030405060708090001
python3 - "$s0" "$hz" <<'PY'
import json, sys
s, hz = sys.argv[1], int(sys.argv[2])
m = {"match_id": 34, "players": [{"token": f"p{i}", "secret": s[:-1] + str(i)} for i in range(4)],
     "session": "encrypt", "input": {"parameters": [{"name": "speed", "min": 0, "max": 3.5}], "hold_ticks": [10, 40]},
     "characters": [{"name": f"c{i}", "graph": "loco.json", "slot": i} for i in range(4)],
     "checksum_interval": 30, "replay": "server.bsreplay", "duration_ticks": 10 * hz, "input_delay": 3,
     "timeouts": {"start_ms": 10000}}
open("match.json", "w").write(json.dumps(m))
PY
port_of() { for _ in $(seq 1 100); do p=$(sed -n "s/^$2 127.0.0.1:\([0-9]*\)$/\1/p" "$1"); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.05; done; }
play() { # version -> "bytes_in udp_in" per client per second
  local v=$1
  "$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 >server$v.out 2>server$v.log &
  local spid=$! pids=""
  local sport; sport=$(port_of server$v.out "listening on")
  for b in 0 1 2 3; do
    timeout 40 "$bin" bot --server 127.0.0.1:$sport --config match.json --slot $b --token p$b --seed $((5 + b)) --quiet \
      $([ $proto_flag -eq 1 ] && echo "--protocol $v") >bot$v-$b.out 2>&1 &
    pids="$pids $!"
  done
  for p in $pids; do wait $p; done
  wait $spid
  sed -n 's/.*event=status .* bytes_in=\([0-9]*\) .* udp_in=\([0-9]*\) .*/\1 \2/p' server$v.log | tail -1 |
    awk '{ printf "%d %d\n", $1 / 4 / 10, $2 / 4 / 10 }'
}
r6=$(play 6)
[ $proto_flag -eq 1 ] || { echo "upstream per client, B/s (as sealed / with ENet's headers), version 6 only: $r6"; exit 0; }
r7=$(play 7)
echo "upstream per client, B/s (blendsync bytes as sealed / with ENet's headers): version 6 $r6, version 7 $r7"
[ "$report" = "--report" ] && exit 0
u6=${r6#* }; u7=${r7#* }; s6=${r6% *}; s7=${r7% *}
fail=0
if [ -n "$u6" ] && [ -n "$u7" ] && [ "$u7" -lt "$u6" ]; then echo "ok   version 7 upstream $u7 B/s < version 6 $u6 B/s (with ENet's headers)"
else echo "FAIL version 7 upstream ${u7:-?} B/s, version 6 ${u6:-?} B/s (with ENet's headers)"; fail=1; fi
if [ "$hz" = 30 ]; then
  if [ -n "$s6" ] && [ -n "$s7" ] && [ $((s6 - s7)) -ge 400 ] && [ "$s7" -lt 1100 ]; then
    echo "ok   version 7 as sealed $s7 B/s: $((s6 - s7)) below version 6 ($s6), under 1,100"
  else echo "FAIL version 7 as sealed ${s7:-?} B/s, version 6 ${s6:-?} B/s (want 400 less, under 1,100)"; fail=1; fi
fi
exit $fail
