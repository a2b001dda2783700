#!/usr/bin/env bash
# `blendsync desync diff` on a desync bundle written by a real blendsync-server: one bot flips a bit of
# its own input at tick 40 (--inject-desync), the server detects it at the next checksum (interval 15:
# the state after frame 44) and writes DIR/{server,client}.bsms, report.txt, bundle.json. The diff of
# the bundle exits 1 and names node locomotion of p1 (the character of slot 1); the same two files with
# --match give the same lines; a state against itself exits 0; a snapshot of another match, a missing
# file and a missing config exit 2.
# usage: cli_desync.sh PATH_TO_BLENDSYNC WORK_DIR   (blendsync-server is looked for next to blendsync)
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
server=$(dirname "$bin")/blendsync-server
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ ! -x "$server" ]; then
  echo "skip: no blendsync-server next to $bin"
  exit 0
fi
rm -rf "$work" && mkdir -p "$work/run" && cd "$work/run"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

cp "$src/scripts/demo/humanoid_locomotion.json" .
cat > match.json <<'EOF'
{ "match_id": 9, "players": [ {"token": "tok-a"}, {"token": "tok-b"} ],
  "input": { "parameters": [ { "name": "speed", "min": 0, "max": 3.5 } ], "hold_ticks": [10, 30] },
  "characters": [ { "name": "p0", "graph": "humanoid_locomotion.json", "slot": 0 },
                  { "name": "p1", "graph": "humanoid_locomotion.json", "slot": 1 } ],
  "checksum_interval": 15, "replay": "rec/match.bsreplay", "duration_ticks": 90,
  "timeouts": { "start_ms": 5000, "peer_ms": 3000, "idle_ms": 3000 } }
EOF
"$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 > srv.out 2> srv.err &
srv=$!
pids+=("$srv")
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\).*$/\1/p' srv.out | head -n 1)
  [ -n "$port" ] && break
  sleep 0.05
done
"$bin" bot --server 127.0.0.1:"$port" --config match.json --slot 0 --token tok-a --quiet --timeout 25 > bot0.txt 2>&1 &
b0=$!
pids+=("$b0")
rc1=0
"$bin" bot --server 127.0.0.1:"$port" --config match.json --slot 1 --token tok-b --quiet --timeout 25 \
  --inject-desync 40 --desync-dir cdump > bot1.txt 2>&1 || rc1=$?
wait "$b0" || true
wait "$srv" || true
# checksums go out after frames 14, 29, 44, ...: the first after the flip at 40 is 44
bundle=rec/match.bsreplay.desync/tick44-slot1
if [ $rc1 -eq 1 ] && [ -s "$bundle/server.bsms" ] && [ -s "$bundle/client.bsms" ] && [ -s "$bundle/bundle.json" ]; then
  ok "the server wrote a desync bundle for slot 1 at tick 44"; else bad "no bundle (bot 1 exit $rc1)"; ls -R; cat srv.err; fi

# from the server's working directory (bundle.json's match_config is relative to it)
rc=0
out=$("$bin" desync diff "$bundle") || rc=$?
echo "$out" | sed 's/^/    /'
if [ $rc -eq 1 ] && grep -q '^A = server (authoritative): ' <<<"$out" && grep -q '^B = client (slot 1): ' <<<"$out" \
   && grep -q '^  character 1 (p1) node locomotion: phase ' <<<"$out" && ! grep -q 'character 0 ' <<<"$out"; then
  ok "diff BUNDLE: exit 1, names node locomotion of character 1 (p1) only"; else bad "diff bundle (rc $rc)"; fi
grep -q '(state after frame 44)' <<<"$out" && ok "both states are after frame 44" || bad "tick"
# the bot's own dump (--desync-dir): what it uploaded is what the server stored, and its state at the
# last agreeing checksum tick (after frame 29) is the server's, byte for byte
cd_=cdump/tick44-slot1
if cmp -s "$cd_/client.bsms" "$bundle/client.bsms" && cmp -s "$cd_/client-trail.bstrail" "$bundle/client-trail.bstrail" \
   && cmp -s "$cd_/client-previous.bsms" "$bundle/server-previous.bsms" && cmp -s "$cd_/inputs.csv" "$bundle/inputs.csv" \
   && grep -q 'reported a desync at tick 44' "$cd_/desync.txt"; then
  ok "the bot's own dump: the state and trail it uploaded, its state at tick 29 equal to the server's, the same inputs"
else bad "the bot's own dump"; ls -l "$cd_" "$bundle"; fi
# the client's trail pins the flip to the frame it was injected after (40), not the checksum tick (44)
grep -q '^  earliest: tick 40, character 1 (p1): the clock advance of node locomotion' <<<"$out" \
  && ok "the first divergence: tick 40 (the injected frame), node locomotion's clock" || bad "earliest tick"
[ -s "$bundle/client-trail.bstrail" ] && ok "the bundle holds the client's trail" || bad "no client-trail.bstrail"
# the same lines as the server's report.txt
diff <(grep '^  ' <<<"$out") <(grep '^  ' "$bundle/report.txt") > /dev/null && ok "the same difference lines as report.txt" || bad "report lines"

# from another directory, naming the config explicitly
rc=0
out2=$(cd "$work" && "$bin" desync diff "run/$bundle" --match run/match.json --json) || rc=$?
if [ $rc -eq 1 ] && grep -q '"tick": 44,' <<<"$out2" && grep -q '"differences": \["character 1 (p1) node locomotion: phase' <<<"$out2" \
   && grep -q '"slot": 1,' <<<"$out2" && [ "$(wc -l <<<"$out2")" -eq 1 ]; then
  ok "--json from another directory with --match: tick 44, slot 1, the differences"; else bad "json (rc $rc)"; echo "$out2"; fi
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["identical"] is False and len(d["differences"]) >= 1' <<<"$out2" \
    && ok "--json parses" || bad "--json parses"
  python3 -c 'import json,sys; d=json.load(sys.stdin)["first_divergence"]; assert d["tick"] == 40 and d["character"] == 1 and d["operation"] == 5 and d["resimulation_reproduces_server"] is True' <<<"$out2" \
    && ok "--json first_divergence: tick 40, character 1, clock advance, re-simulation reproduces the server" || bad "--json first_divergence"
fi

rc=0
out=$("$bin" desync diff "$bundle/server.bsms" "$bundle/client.bsms" --match match.json) || rc=$?
[ $rc -eq 1 ] && grep -q '^  character 1 (p1) node locomotion' <<<"$out" && grep -q '^A = A: ' <<<"$out" \
  && ok "two files + --match: exit 1, same difference" || bad "two files (rc $rc)"
rc=0
out=$("$bin" desync diff "$bundle/server.bsms" "$bundle/server.bsms" --match match.json) || rc=$?
[ $rc -eq 0 ] && grep -q 'no difference' <<<"$out" && ok "a state against itself: exit 0, no difference" || bad "identical (rc $rc)"
rc=0
out=$("$bin" desync diff "$bundle/server.bsms" "$bundle/server.bsms" --match match.json --json) || rc=$?
[ $rc -eq 0 ] && grep -q '"identical": true, "differences": \[\]' <<<"$out" && ok "--json identical: empty differences" || bad "json identical"

# a snapshot of another match (one more NPC: another match hash)
sed 's/"slot": 1 }/"slot": 1 }, { "name": "n", "graph": "humanoid_locomotion.json", "npc_seed": 3 }/' match.json > other.json
rc=0
"$bin" desync diff "$bundle/server.bsms" "$bundle/client.bsms" --match other.json > /dev/null 2> e.txt || rc=$?
[ $rc -eq 2 ] && grep -q 'snapshot of another match' e.txt && ok "another match's config: exit 2 (hash)" || { bad "other match (rc $rc)"; cat e.txt; }
rc=0
"$bin" desync diff "$bundle/server.bsms" missing.bsms --match match.json > /dev/null 2> e.txt || rc=$?
[ $rc -eq 2 ] && grep -q 'cannot read missing.bsms' e.txt && ok "a missing file: exit 2" || bad "missing (rc $rc)"
rc=0
"$bin" desync diff "$bundle/server.bsms" "$bundle/client.bsms" > /dev/null 2> e.txt || rc=$?
[ $rc -eq 2 ] && grep -q 'need --match' e.txt && ok "two files without --match: exit 2" || bad "no match (rc $rc)"
head -c 100 "$bundle/server.bsms" > short.bsms
rc=0
"$bin" desync diff short.bsms "$bundle/client.bsms" --match match.json > /dev/null 2> e.txt || rc=$?
[ $rc -eq 2 ] && grep -q 'not a valid match snapshot' e.txt && ok "a cut snapshot: exit 2" || bad "short (rc $rc)"

# a dump against the replay at a tick: the replay (the server's record) re-simulated to the dump's tick
rc=0
out=$("$bin" desync diff "$bundle/client.bsms" rec/match.bsreplay) || rc=$?
if [ $rc -eq 1 ] && grep -q '^B = replay, re-simulated: rec/match.bsreplay (state after frame 44)' <<<"$out" \
   && grep -q '^  character 1 (p1) node locomotion: phase ' <<<"$out" && ! grep -q 'character 0 ' <<<"$out"; then
  ok "the client's dump against the replay at its tick (44): exit 1, node locomotion of p1"; else bad "dump vs replay (rc $rc)"; echo "$out"; fi
rc=0
"$bin" desync diff "$bundle/server.bsms" rec/match.bsreplay > o.txt || rc=$?
[ $rc -eq 0 ] && grep -q 'no difference' o.txt && ok "the server's state against the replay at tick 44: identical (exit 0)" || { bad "server vs replay (rc $rc)"; cat o.txt; }
rc=0
out=$("$bin" desync diff "$bundle/server-previous.bsms" rec/match.bsreplay --tick 29 --json) || rc=$?
[ $rc -eq 0 ] && grep -q '"b_is": "replay", .*"tick": 29, "state_ticks": \[30, 30\], "identical": true' <<<"$out" \
  && ok "--tick 29 --json: the agreeing state after frame 29 equals the replay's" || { bad "--tick 29 (rc $rc)"; echo "$out"; }
rc=0
"$bin" desync diff "$bundle/server.bsms" rec/match.bsreplay --tick 100000 > /dev/null 2> e.txt || rc=$?
[ $rc -eq 2 ] && grep -q 'holds no state after frame 100000' e.txt && ok "--tick beyond the replay: exit 2, said" || { bad "--tick beyond (rc $rc)"; cat e.txt; }
rc=0
"$bin" desync diff "$bundle/server.bsms" "$bundle/client.bsms" --match match.json --tick 3 > /dev/null 2> e.txt || rc=$?
[ $rc -eq 2 ] && grep -q -- '--tick needs a replay' e.txt && ok "--tick with two snapshots: exit 2" || { bad "--tick two snapshots (rc $rc)"; cat e.txt; }

# a hostile bundle: server.bsms claims the state after frame 2,999,999 (the tick moved, both XXH64s
# resealed), far beyond the bundle's inputs. The frames and the re-simulation are bounded by the
# bundle's own contents: the trace is refused at once, nothing is sized by that tick (the diff of the
# two states is still printed: exit 1, they differ).
if command -v python3 >/dev/null; then
  rm -rf hostile && cp -r "$bundle" hostile
  PYTHONPATH="$src/tests/cli" python3 - hostile/server.bsms <<'PY'
import sys
from bsync_xxh64 import xxh64
path = sys.argv[1]
b = bytearray(open(path, 'rb').read())
u32 = lambda o: int.from_bytes(b[o:o + 4], 'little')
tick = 3000000
b[24:32] = tick.to_bytes(8, 'little')
chars = u32(20)
assert chars == 2  # this test's match: two player characters, no NPC records before the blobs (match.h)
o = 32
for c in range(chars):
    n = u32(o)
    blob = o + 4
    b[blob + 24:blob + 32] = tick.to_bytes(8, 'little')
    b[blob + n - 8:blob + n] = xxh64(bytes(b[blob:blob + n - 8]), 0).to_bytes(8, 'little')
    o += 4 + n
b[len(b) - 8:] = xxh64(bytes(b[:len(b) - 8]), 0).to_bytes(8, 'little')
open(path, 'wb').write(b)
PY
  rc=0
  start=$(date +%s)
  timeout 60 "$bin" desync diff hostile > e.txt 2>&1 || rc=$?
  took=$(( $(date +%s) - start ))
  if [ $rc -eq 1 ] && grep -q 'trace not possible: .*2999970 frames, and inputs.csv holds 30 rows' e.txt && [ $took -le 10 ]; then
    ok "a server.bsms far beyond the bundle's inputs: the diff is printed, the trace refused in ${took} s"
  else
    bad "hostile bundle (rc $rc, ${took} s)"; cat e.txt
  fi
fi

# the replay of the same match verifies and lists the desync
rc=0
out=$("$bin" replay verify rec/match.bsreplay) || rc=$?
[ $rc -eq 0 ] && grep -q '^  tick 44, slot 1: character blend, character 1 (p1)' <<<"$out" && ok "the replay verifies and lists the desync at 44" \
  || bad "replay verify (rc $rc)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
