#!/usr/bin/env bash
# `blendsync replay verify | info | cut` on replays recorded by a real blendsync-server with real bots:
# a clean 120-tick match (one bot injects a desync: the replay still verifies and lists it), info's
# counts, a flipped bit (CORRUPT, exit 2), a re-encoded frame with a changed input and a re-encoded
# checksum (python3: mismatch at the worked tick, exit 1), a different graph / different asset names
# (refused, exit 2), truncations (incomplete, exit 0; inside the header, exit 2), a cut that verifies,
# --from, and a server killed with kill -9 mid-match (incomplete, exit 0).
# usage: cli_replay.sh PATH_TO_BLENDSYNC WORK_DIR   (blendsync-server is looked for next to blendsync)
set -euo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
server=$(dirname "$bin")/blendsync-server
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export PYTHONPATH="$src/tests/cli${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
if [ ! -x "$server" ]; then
  echo "skip: no blendsync-server next to $bin"
  exit 0
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

cp "$src/scripts/demo/humanoid_locomotion.json" .
# match.json: 2 players, 3 characters (one NPC), checksums every 15 ticks, 120 ticks.
write_match() { # file duration replay
  cat > "$1" <<EOF
{ "match_id": 7, "players": [ {"token": "tok-a"}, {"token": "tok-b"} ],
  "input": { "parameters": [ { "name": "speed", "min": 0, "max": 3.5 } ], "hold_ticks": [10, 30] },
  "characters": [ { "name": "p0", "graph": "humanoid_locomotion.json", "slot": 0 },
                  { "name": "p1", "graph": "humanoid_locomotion.json", "slot": 1 },
                  { "name": "npc0", "graph": "humanoid_locomotion.json", "npc_seed": 7 } ],
  "checksum_interval": 15, "replay": "$3", "duration_ticks": $2,
  "timeouts": { "start_ms": 5000, "peer_ms": 3000, "idle_ms": 3000 } }
EOF
}
start_server() { # config [server options] -> sets srv_pid, port
  local cfg=$1
  shift
  "$server" --listen 127.0.0.1:0 --match "$cfg" --exit-when-done --status 0 "$@" > "$cfg.out" 2> "$cfg.err" &
  srv_pid=$!
  pids+=("$srv_pid")
  port=""
  for _ in $(seq 100); do
    port=$(sed -n 's/^listening on .*:\([0-9][0-9]*\).*$/\1/p' "$cfg.out" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ]
}

# ---------------------------------------------------------------- a real match
# --verify-poses: the server records pose checksums too, so verify compares poses
write_match match.json 120 match.bsreplay
start_server match.json --verify-poses
"$bin" bot --server 127.0.0.1:"$port" --config match.json --slot 0 --token tok-a --quiet --timeout 25 > bot0.txt 2>&1 &
b0=$!
pids+=("$b0")
rc1=0
"$bin" bot --server 127.0.0.1:"$port" --config match.json --slot 1 --token tok-b --quiet --timeout 25 \
  --inject-desync 40 > bot1.txt 2>&1 || rc1=$?
rc0=0
wait "$b0" || rc0=$?
wait "$srv_pid" || true
if [ $rc0 -eq 0 ] && [ $rc1 -eq 1 ] && [ -s match.bsreplay ]; then ok "recorded a 120-tick match (bot 1 injected a desync)"; else
  bad "recording (bots $rc0 $rc1)"; cat bot0.txt bot1.txt match.json.err; fi

rc=0
out=$("$bin" replay verify match.bsreplay) || rc=$?
echo "$out" | sed 's/^/    /'
# 120 frames; checksums after frames 14, 29, ..., 119 (every 15th): 8.
if [ $rc -eq 0 ] && grep -qx 'ticks verified: 120 (frames 0..119)' <<<"$out" \
   && grep -qx 'checksums compared: 8 (8 with a pose)' <<<"$out" && grep -q '^verdict: verified' <<<"$out"; then
  ok "verify: exit 0, 120 ticks, 8 checksums with poses"; else bad "verify a clean replay (rc $rc)"; fi
if grep -q '^desyncs recorded: 1 ' <<<"$out" && grep -qE '^  tick [0-9]+, slot 1: character blend, character 1 \(p1\)' <<<"$out"; then
  ok "verify lists the server's desync (slot 1, character p1) without failing"; else bad "desync listing"; fi
grep -qE '^speed: [0-9]+ ticks/s, [0-9.]+x real time' <<<"$out" && ok "verify reports its speed" || bad "speed line"

rc=0
out=$("$bin" replay verify match.bsreplay --json) || rc=$?
if [ $rc -eq 0 ] && grep -q '"ticks_verified": 120,' <<<"$out" && grep -q '"verdict": "verified"' <<<"$out" \
   && [ "$(wc -l <<<"$out")" -eq 1 ]; then ok "verify --json: one object"; else bad "verify --json"; fi
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["checksums_compared"]==8 and d["complete"] and len(d["desyncs"])==1' <<<"$out" \
    && ok "verify --json parses" || bad "verify --json parses"
fi

rc=0
out=$("$bin" replay info match.bsreplay) || rc=$?
echo "$out" | sed 's/^/    /'
size=$(stat -c %s match.bsreplay)
if [ $rc -eq 0 ] && grep -qx 'frames: 120 (ticks 0..119), 4.000 s' <<<"$out" && grep -qx 'checksums: 8 (8 with a pose)' <<<"$out" \
   && grep -qx 'end: 120 ticks, reason normal' <<<"$out" && grep -q "^size: $size bytes" <<<"$out" \
   && grep -qx 'desyncs: 1' <<<"$out" && grep -q 'humanoid_locomotion.json:walk [0-9a-f]\{16\}' <<<"$out"; then
  ok "info: 120 frames = 4 s at 30 Hz, 8 checksums, END normal, the file size, assets"; else bad "info (rc $rc)"; fi
# bytes per player-minute: size / (2 players x 4 s / 60 s) = size x 7.5
want=$(awk -v s="$size" 'BEGIN { printf "%.0f", s * 7.5 }')
grep -q "bytes, $want bytes per player-minute" <<<"$out" && ok "info: $want bytes per player-minute (size x 7.5)" || bad "bytes per player-minute"

# ---------------------------------------------------------------- refusals
mkdir -p other
sed 's/"smooth_time": 0.25/"smooth_time": 0.3/' humanoid_locomotion.json > other/humanoid_locomotion.json
grep -q '"smooth_time": 0.3' other/humanoid_locomotion.json
cp match.json other/match.json
rc=0
"$bin" replay verify match.bsreplay --match other/match.json > o.txt 2> e.txt || rc=$?
if [ $rc -eq 2 ] && grep -q 'match hash mismatch' e.txt && ! grep -q 'asset' e.txt; then
  ok "--match with a different smooth_time: refused (match hash), exit 2, assets equal"; else bad "hash refusal (rc $rc)"; cat e.txt; fi
# the same graph under another file name: the match hash is the same, the asset names are not
mkdir -p renamed
cp humanoid_locomotion.json renamed/loco.json
sed 's/humanoid_locomotion.json/loco.json/g' match.json > renamed/match.json
rc=0
"$bin" replay verify match.bsreplay --match renamed/match.json > o.txt 2> e.txt || rc=$?
if [ $rc -eq 2 ] && ! grep -q 'match hash' e.txt && grep -q 'asset missing here: clip humanoid_locomotion.json:idle' e.txt \
   && grep -q 'asset missing in the replay: clip loco.json:run' e.txt; then
  ok "renamed graph file: refused for the assets (missing on either side), same match hash"; else bad "asset refusal (rc $rc)"; cat e.txt; fi
# --graph: the recorded match config with every character playing that graph file, wherever it is
# and whatever it is called: the same graph verifies, a changed one is refused by the match hash
rc=0
out=$(cd / && "$bin" replay verify "$work/match.bsreplay" --graph "$work/renamed/loco.json") || rc=$?
if [ $rc -eq 0 ] && grep -q "every character's graph $work/renamed/loco.json (--graph)" <<<"$out" && grep -q '^verdict: verified' <<<"$out"; then
  ok "--graph with the same graph under another name and directory: verified"; else bad "--graph same (rc $rc)"; echo "$out"; fi
rc=0
"$bin" replay verify match.bsreplay --graph other/humanoid_locomotion.json > o.txt 2> e.txt || rc=$?
if [ $rc -eq 2 ] && grep -q 'match hash mismatch' e.txt && ! grep -q 'asset' e.txt; then
  ok "--graph with a different smooth_time: refused (match hash), clip hashes equal"; else bad "--graph refusal (rc $rc)"; cat e.txt; fi
rc=0
"$bin" replay verify match.bsreplay --graph missing.json > o.txt 2> e.txt || rc=$?
[ $rc -eq 2 ] && grep -q -- '--graph missing.json: No such file' e.txt && ok "--graph of a missing file: exit 2, named" || { bad "--graph missing (rc $rc)"; cat e.txt; }
# the recorded config is found next to the replay when run from elsewhere
rc=0
(cd / && "$bin" replay verify "$work/match.bsreplay" > "$work/o.txt") || rc=$?
[ $rc -eq 0 ] && ok "verify from another directory (graphs found next to the replay)" || bad "verify from / (rc $rc)"

# ---------------------------------------------------------------- damage
hlen=$(od -An -tu4 -j12 -N4 match.bsreplay | tr -d ' ')
hend=$((8 + 16 + hlen))     # the first record after the magic and the HEADER
rectype() { od -An -tu1 -j"$1" -N1 match.bsreplay | tr -d ' '; }
reclen() { od -An -tu4 -j$(($1 + 4)) -N4 match.bsreplay | tr -d ' '; }
# walk the records to the FRAME of tick 60 (frames are consecutive from 0)
off=$hend
frame_no=-1
while [ "$off" -lt "$size" ]; do
  if [ "$(rectype $off)" -eq 2 ]; then
    frame_no=$(od -An -tu4 -j$((off + 8)) -N4 match.bsreplay | tr -d ' ')
    [ "$frame_no" -eq 60 ] && break
  fi
  off=$((off + 16 + $(reclen $off)))
done
[ "$frame_no" -eq 60 ] && ok "found the FRAME record of tick 60 at byte $off" || bad "frame 60 not found"
cp match.bsreplay flip.bsreplay
pos=$((off + 8 + 10))
byte=$(od -An -tu1 -j$pos -N1 flip.bsreplay | tr -d ' ')
printf "$(printf '\\%03o' $((byte ^ 4)))" | dd of=flip.bsreplay bs=1 seek=$pos conv=notrunc status=none
rc=0
out=$("$bin" replay verify flip.bsreplay) || rc=$?
if [ $rc -eq 2 ] && grep -qx 'ticks verified: 60 (frames 0..59)' <<<"$out" && grep -q '^error: .*corrupt' <<<"$out" \
   && grep -q 'FRAME record checksum mismatch' <<<"$out"; then
  ok "one flipped bit in frame 60's body: the record XXH64 catches it, frames 0..59 verified, exit 2"; else
  bad "flipped bit (rc $rc)"; echo "$out"; fi

# truncations
trunc_case() { # bytes expected_rc expected_text
  head -c "$1" match.bsreplay > t.bsreplay
  local r=0 o
  o=$("$bin" replay verify t.bsreplay 2>&1) || r=$?
  if [ $r -eq "$2" ] && grep -q "$3" <<<"$o"; then ok "truncated at $1 bytes: exit $2 ($3)"; else bad "truncated at $1 (rc $r)"; echo "$o"; fi
}
trunc_case 5 2 'not a readable replay'
trunc_case $((hend - 3)) 2 'not a readable replay'
trunc_case $((hend + 5)) 0 'incomplete: no END record; verified up to tick 0 '
trunc_case $((off + 3)) 0 "incomplete: no END record; verified up to tick 60 (the last complete record ends at byte $off)"
trunc_case $((size - 24)) 0 'incomplete: no END record; verified up to tick 120 '
trunc_case $((size - 1)) 0 "incomplete: no END record; verified up to tick 120 (the last complete record ends at byte $((size - 24)))"
head -c $((off + 3)) match.bsreplay > t.bsreplay
out=$("$bin" replay info t.bsreplay) || true
grep -qx "end: no END record (incomplete; the last complete record ends at byte $off)" <<<"$out" && grep -q '^frames: 60 ' <<<"$out" \
  && ok "info of a truncated replay: 60 frames, no END record" || bad "info truncated"

# semantic changes with a valid record XXH64 (python3 re-encodes the record)
if command -v python3 >/dev/null; then
  cat > reenc.py <<'PY'
import sys
from bsync_xxh64 import xxh64  # tests/cli/bsync_xxh64.py (PYTHONPATH)
SEED = 0x626c656e64727072
def varint(b, k):
    v, s = 0, 0
    while True:
        c = b[k]; k += 1; v |= (c & 0x7F) << s; s += 7
        if not c & 0x80: return v, k
def enc(v):
    out = bytearray()
    while True:
        c = v & 0x7F; v >>= 7
        if v: out.append(c | 0x80)
        else: out.append(c); return bytes(out)
src, dst, what, tick = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
d = bytearray(open(src, 'rb').read())
if what == 'snapshot':   # the data of the first SNAPSHOT record of argv[5]
    s = open(sys.argv[5], 'rb').read()
    o = 8
    while s[o] != 4: o += 16 + int.from_bytes(s[o + 4:o + 8], 'little')
    snap = s[o + 16:o + 16 + int.from_bytes(s[o + 12:o + 16], 'little')]
off, out, done, verified = 8, bytearray(d[:8]), False, 0
while off < len(d):
    typ, n = d[off], int.from_bytes(d[off + 4:off + 8], 'little')
    rec = d[off:off + 16 + n]
    body = bytearray(rec[8:8 + n])
    stored = int.from_bytes(rec[8 + n:], 'little')
    assert xxh64(bytes(rec[:8 + n]), SEED) == stored, "xxh64 self-check failed at byte %d" % off
    verified += 1
    rtick = int.from_bytes(body[0:4], 'little') if typ != 1 else -1
    if not done and typ == 2 and what == 'frame' and rtick == tick:
        v, k = varint(body, 10)                   # player 0's first parameter (zigzag)
        x = (v >> 1) ^ -(v & 1)
        x = x + 32768 if x < 0x7FFF0000 else x - 32768   # +/- 0.5
        z = (x << 1) if x >= 0 else ((-x) << 1) - 1
        body = body[:10] + enc(z) + body[k:]
        done = True
    elif not done and typ == 3 and what == 'checksum' and rtick == tick:
        blend = int.from_bytes(body[8:16], 'little') ^ 1
        body[8:16] = blend.to_bytes(8, 'little')
        print('%016x' % blend)
        done = True
    elif not done and typ == 3 and what == 'pose' and rtick == tick:
        pose = int.from_bytes(body[16:24], 'little') ^ (1 << 63)
        body[16:24] = pose.to_bytes(8, 'little')
        print('%016x' % pose)
        done = True
    elif not done and typ == 2 and what == 'snapshot' and rtick == tick:
        sb = tick.to_bytes(4, 'little') + len(snap).to_bytes(4, 'little') + snap
        sh = bytes([4, 0, 0, 0]) + len(sb).to_bytes(4, 'little')
        out += sh + sb + xxh64(sh + sb, SEED).to_bytes(8, 'little')
        done = True
    head = bytes(rec[:4]) + len(body).to_bytes(4, 'little')
    out += head + body + xxh64(head + bytes(body), SEED).to_bytes(8, 'little')
    off += 16 + n
assert done and verified > 100
open(dst, 'wb').write(out)
PY
  if python3 reenc.py match.bsreplay frame50.bsreplay frame 50 > /dev/null; then
    rc=0
    out=$("$bin" replay verify frame50.bsreplay) || rc=$?
    # the first checksum after frame 50 is the one after frame 59 ((59 + 1) % 15 == 0)
    if [ $rc -eq 1 ] && grep -q '^MISMATCH at tick 59: blend checksum (the state after frame 59): expected' <<<"$out" \
       && grep -q '^checksums compared: 3 ' <<<"$out"; then
      ok "frame 50 re-encoded with speed +/- 0.5: mismatch at the next checksum (tick 59), exit 1"; else bad "frame mismatch (rc $rc)"; echo "$out"; fi
    # the dump: the state after frame 44 (the last agreeing checksum), this build's after frame 59, and
    # frames 45..59 of both players between them
    d=frame50.bsreplay.mismatch/tick59
    grep -qx "dump: $d/ (previous.bsms, here.bsms, inputs.csv, dump.json, report.txt)" <<<"$out" \
      && [ -s $d/previous.bsms ] && [ -s $d/here.bsms ] && [ ! -e $d/recorded.bsms ] \
      && ok "the mismatch dump is written and named" || bad "dump written"
    if [ -s $d/inputs.csv ] && [ "$(wc -l < $d/inputs.csv)" -eq 31 ] && [ "$(sed -n 2p $d/inputs.csv | cut -d, -f1,2)" = "45,0" ] \
       && [ "$(tail -n 1 $d/inputs.csv | cut -d, -f1,2)" = "59,1" ]; then
      ok "dump inputs.csv: frames 45..59 for slots 0 and 1 (15 x 2 rows + header)"; else bad "dump inputs"; cat $d/inputs.csv; fi
    grep -q '"tick": 59, "what": "blend checksum", "previous": "previous.bsms", "previous_start_tick": 45,' $d/dump.json \
      && ok "dump.json: tick 59, previous state at the start of tick 45" || { bad "dump.json"; cat $d/dump.json; }
    rc=0; "$bin" desync diff $d/previous.bsms $d/here.bsms --match match.json > /dev/null || rc=$?
    [ $rc -eq 1 ] && ok "desync diff of the dump's two states: they differ (exit 1): both load as this match" || bad "dump states (rc $rc)"
    rm -rf frame50.bsreplay.mismatch
    rc=0; "$bin" replay verify frame50.bsreplay --no-dump > /dev/null || rc=$?
    [ $rc -eq 1 ] && [ ! -e frame50.bsreplay.mismatch ] && ok "--no-dump: mismatch, no dump" || bad "--no-dump (rc $rc)"
    rc=0; "$bin" replay verify frame50.bsreplay --dump dumps > /dev/null || rc=$?
    [ $rc -eq 1 ] && [ -s dumps/tick59/here.bsms ] && ok "--dump DIR: the dump under DIR/tick59" || bad "--dump DIR (rc $rc)"
    rc=0
    out2=$("$bin" replay verify frame50.bsreplay --jobs 2) || rc=$?
    if [ $rc -eq 1 ] && grep -q '^MISMATCH at tick 59: blend checksum' <<<"$out2"; then
      ok "--jobs 2 reports the same first mismatch (tick 59), exit 1"; else bad "--jobs 2 mismatch (rc $rc)"; echo "$out2"; fi
  else
    bad "re-encoding frame 50 (the XXH64 self-check in reenc.py)"
  fi
  if want=$(python3 reenc.py match.bsreplay ck29.bsreplay checksum 29); then
    rc=0
    out=$("$bin" replay verify ck29.bsreplay --json) || rc=$?
    if [ $rc -eq 1 ] && grep -q "\"mismatch\": {\"tick\": 29, \"what\": \"blend checksum\", \"text\": \"blend checksum (the state after frame 29): expected $want (recorded)" <<<"$out" \
       && grep -q '"checksums_compared": 1,' <<<"$out"; then
      ok "checksum of tick 29 with one bit flipped (valid XXH64): mismatch at 29, expected $want, exit 1"; else bad "checksum mismatch (rc $rc)"; echo "$out"; fi
  else
    bad "re-encoding checksum 29"
  fi
  if want=$(python3 reenc.py match.bsreplay pose74.bsreplay pose 74); then
    rc=0
    out=$("$bin" replay verify pose74.bsreplay) || rc=$?
    if [ $rc -eq 1 ] && grep -q "^MISMATCH at tick 74: pose checksum (the state after frame 74): expected $want (recorded), got" <<<"$out" \
       && grep -qx 'checksums compared: 4 (4 with a pose)' <<<"$out"; then
      ok "pose checksum of tick 74 with its top bit flipped: pose mismatch at 74, exit 1"; else bad "pose mismatch (rc $rc)"; echo "$out"; fi
  else
    bad "re-encoding pose 74"
  fi
else
  echo "skip semantic re-encoding (no python3)"
fi

# ---------------------------------------------------------------- cut and --from
rc=0
"$bin" replay cut match.bsreplay --from 30 --to 90 --out cut.bsreplay > o.txt || rc=$?
[ $rc -eq 0 ] && [ -s cut.bsreplay ] && ! ls cut.bsreplay.tmp.* >/dev/null 2>&1 && ok "cut --from 30 --to 90 (no temp file left)" || bad "cut (rc $rc)"
rc=0
out=$("$bin" replay verify cut.bsreplay) || rc=$?
# checksums after frames 44, 59, 74, 89 lie in [30, 90)
if [ $rc -eq 0 ] && grep -qx 'ticks verified: 60 (frames 30..89)' <<<"$out" && grep -q '^checksums compared: 4 ' <<<"$out" \
   && grep -q '^start: snapshot at tick 30' <<<"$out" && ! grep -q incomplete <<<"$out"; then
  ok "the cut verifies: starts at its snapshot of tick 30, 60 frames, 4 checksums, complete"; else bad "verify cut (rc $rc)"; echo "$out"; fi
out=$("$bin" replay info cut.bsreplay) || true
grep -q 'start tick: 30$' <<<"$out" && grep -qx 'frames: 60 (ticks 30..89), 2.000 s' <<<"$out" && grep -qx 'end: 90 ticks, reason normal' <<<"$out" \
  && grep -qx 'snapshots: 1 ([0-9]* bytes)' <<<"$out" && ok "info of the cut: start tick 30, frames 30..89, END 90, one snapshot" || bad "info cut"
# a cut of the cut, whose snapshot at 60 is simulated from the snapshot at 30
rc=0
"$bin" replay cut cut.bsreplay --from 60 --to 75 --out cut2.bsreplay > /dev/null && "$bin" replay verify cut2.bsreplay > o.txt || rc=$?
[ $rc -eq 0 ] && grep -qx 'ticks verified: 15 (frames 60..74)' o.txt && ok "a cut of a cut (60..74) verifies" || bad "cut of cut (rc $rc)"
# --from on the cut: the newest snapshot <= 70 is the one at 30
rc=0
out=$("$bin" replay verify cut.bsreplay --from 70) || rc=$?
[ $rc -eq 0 ] && grep -q '^start: snapshot at tick 30' <<<"$out" && ok "--from 70 on the cut starts at its snapshot of tick 30" || bad "--from (rc $rc)"
# --from on the original (no snapshot before 600 ticks): from the start
rc=0
out=$("$bin" replay verify match.bsreplay --from 100) || rc=$?
[ $rc -eq 0 ] && grep -qx 'ticks verified: 120 (frames 0..119)' <<<"$out" && ok "--from without a snapshot: from the start" || bad "--from start"
# snapshots inside a replay are compared byte for byte: the state at the start of 60 (from the cut of
# the cut) inserted before frame 60 matches; the same bytes inserted before frame 75 do not
if command -v python3 >/dev/null; then
  rc=0
  python3 reenc.py match.bsreplay snap60.bsreplay snapshot 60 cut2.bsreplay && out=$("$bin" replay verify snap60.bsreplay) || rc=$?
  [ $rc -eq 0 ] && grep -qx 'snapshots compared: 1' <<<"$out" && ok "a SNAPSHOT of tick 60 inserted before frame 60: compared, equal" \
    || { bad "snapshot 60 (rc $rc)"; echo "$out"; }
  rc=0
  python3 reenc.py match.bsreplay snap75.bsreplay snapshot 75 cut2.bsreplay && out=$("$bin" replay verify snap75.bsreplay) || rc=$?
  [ $rc -eq 1 ] && grep -q '^MISMATCH at tick 75: snapshot (the state at the start of tick 75) differs' <<<"$out" \
    && grep -qx '  tick: 60 vs 75' <<<"$out" && ok "the state of tick 60 labelled 75: snapshot mismatch at 75, described (tick 60 vs 75), exit 1" \
    || { bad "snapshot 75 (rc $rc)"; echo "$out"; }
  rc=0
  out=$("$bin" replay verify snap60.bsreplay --from 70) || rc=$?
  [ $rc -eq 0 ] && grep -q '^start: snapshot at tick 60 (60 earlier frames skipped)' <<<"$out" && grep -qx 'ticks verified: 60 (frames 60..119)' <<<"$out" \
    && ok "--from 70 starts at the inserted snapshot of tick 60" || { bad "--from 70 (rc $rc)"; echo "$out"; }
fi
rc=0
"$bin" replay cut match.bsreplay --from 100 --to 130 --out bad.bsreplay > /dev/null 2> e.txt || rc=$?
[ $rc -eq 2 ] && [ ! -e bad.bsreplay ] && grep -q 'no frames for ticks 120..129' e.txt && ok "cut beyond the end: exit 2, nothing written" || bad "cut beyond end (rc $rc)"
rc=0
"$bin" replay cut match.bsreplay --from 50 --to 50 --out bad.bsreplay > /dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] && ok "cut with --to <= --from: exit 2" || bad "cut empty range"

# ---------------------------------------------------------------- kill -9 mid-match
write_match long.json 3000 long.bsreplay
start_server long.json
"$bin" bot --server 127.0.0.1:"$port" --config long.json --slot 0 --token tok-a --quiet --timeout 20 > /dev/null 2>&1 &
k0=$!
pids+=("$k0")
"$bin" bot --server 127.0.0.1:"$port" --config long.json --slot 1 --token tok-b --quiet --timeout 20 > /dev/null 2>&1 &
k1=$!
pids+=("$k1")
for _ in $(seq 100); do [ -s long.bsreplay ] && break; sleep 0.05; done
sleep 2
kill -9 "$srv_pid"
wait "$srv_pid" 2>/dev/null || true
kill "$k0" "$k1" 2>/dev/null || true
wait "$k0" 2>/dev/null || true
wait "$k1" 2>/dev/null || true
rc=0
out=$("$bin" replay verify long.bsreplay) || rc=$?
n=$(sed -n 's/^incomplete: no END record; verified up to tick \([0-9]*\) .*/\1/p' <<<"$out")
if [ $rc -eq 0 ] && [ -n "$n" ] && [ "$n" -gt 15 ] && [ "$n" -lt 3000 ]; then
  ok "server killed with kill -9 after ~2 s: verify exit 0, incomplete, verified up to tick $n"; else bad "kill -9 (rc $rc)"; echo "$out"; fi

# ---------------------------------------------------------------- usage
rc=0
"$bin" replay verify > /dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] && ok "verify without a file: exit 2" || bad "verify usage"
rc=0
"$bin" replay verify nonexistent.bsreplay > /dev/null 2> e.txt || rc=$?
[ $rc -eq 2 ] && grep -q 'cannot read nonexistent.bsreplay' e.txt && ok "a missing file: exit 2" || bad "missing file"
rc=0
"$bin" replay frobnicate > /dev/null 2>&1 || rc=$?
[ $rc -eq 2 ] && ok "unknown subcommand: exit 2" || bad "unknown subcommand"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
