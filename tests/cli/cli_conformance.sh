#!/usr/bin/env bash
# Protocol conformance (issue 14): real `blendsync bot`s play a real blendsync-server and capture every
# packet they send and receive (`--capture`); tests/conformance/bsync_wire.py, a decoder and encoder
# written from docs/protocol.md alone (no code shared with proto/), must decode every packet, re-encode
# it to the same bytes, and find the session the document describes (START, FRAMEs in order, END,
# our inputs in the frames, CHECKSUMs on schedule, the TRAIL and DUMP after a DESYNC, BYE MATCH_OVER).
# Bot 0 plays through the impaired relay (10% loss, 20-60 ms delay: reordered datagrams, BYE before
# the last frames). Negative controls: a capture with one flipped header byte, one with a FRAME's
# tick changed, and one cut short must fail. About 15 s. usage: cli_conformance.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
here=$(cd "$(dirname "$0")" && pwd)
wire="$here/../conformance/bsync_wire.py"
server="$(dirname "$bin")/blendsync-server"
relay="$(dirname "$bin")/tests/bsync_udp_relay"
demo="$here/../../scripts/demo"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
[ -x "$relay" ] || { echo "skip: no $relay"; exit 0; }
command -v python3 >/dev/null || { echo "FAIL: python3 is needed (scripts/install-deps.sh installs it)"; exit 1; }
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
cp "$demo/humanoid_locomotion.json" .
python3 - "$demo/match.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["players"] = m["players"][:2]
m["characters"] = [c for c in m["characters"] if c.get("slot", 0) < 2]
m["duration_ticks"], m["checksum_interval"], m["replay"] = 150, 15, "server.bsreplay"
m["timeouts"]["start_ms"] = 8000
json.dump(m, open("match.json", "w"), indent=1)
PY
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
port_of() { for _ in $(seq 1 100); do p=$(sed -n "s/^$2 127.0.0.1:\([0-9]*\)$/\1/p" "$1"); [ -n "$p" ] && { echo "$p"; return; }; sleep 0.05; done; }

"$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 >server.out 2>server.log &
spid=$!
sport=$(port_of server.out "listening on")
[ -n "$sport" ] || { echo "FAIL: the server did not start"; cat server.log; kill $spid; exit 1; }
"$relay" --to "$sport" --for 30000 --seed 5 --loss 100 --delay 20 60 >relay.out 2>&1 &
rpid=$!
rport=$(port_of relay.out "relaying on")
timeout 60 "$bin" bot --server 127.0.0.1:$rport --config match.json --slot 0 --token demo-token-0 --quiet \
    --capture bot0.bscap >bot0.out 2>&1 &
b0=$!
timeout 60 "$bin" bot --server 127.0.0.1:$sport --config match.json --slot 1 --token demo-token-1 --quiet \
    --inject-desync 40 --capture bot1.bscap >bot1.out 2>&1
rc1=$?
wait $b0; rc0=$?
kill $rpid 2>/dev/null; wait $spid $rpid 2>/dev/null
[ $rc0 -eq 0 ] && grep -q "150 frames applied" bot0.out && ok "bot 0 (through the lossy relay) played the whole match" \
    || { bad "bot 0 exit $rc0"; cat bot0.out; }
[ $rc1 -eq 1 ] && grep -q "DESYNC reported" bot1.out && ok "bot 1 desynced as planted (exit 1)" \
    || { bad "bot 1 exit $rc1"; cat bot1.out; }

python3 "$wire" bot0.bscap >wire0.out 2>&1 && ok "bot 0's capture conforms: $(head -1 wire0.out | cut -d';' -f1 | sed 's/.*: //')" \
    || { bad "bot 0's capture"; cat wire0.out; }
python3 "$wire" bot1.bscap --expect-desync >wire1.out 2>&1 && ok "bot 1's capture conforms, with its DESYNC, TRAIL and DUMP" \
    || { bad "bot 1's capture"; cat wire1.out; }
grep -q "frames: 150" wire0.out && grep -q "end_ticks: 150" wire0.out && ok "the decoder counts 150 frames and END 150" \
    || bad "frame count: $(grep -E 'frames|end_ticks' wire0.out | tr '\n' ' ')"
grep -q "inputs_carried: 1[0-9][0-9]" wire0.out && ok "bot 0's inputs are in the frames ($(sed -n 's/ *inputs_carried: //p' wire0.out) ticks)" \
    || bad "inputs carried: $(grep inputs_carried wire0.out)"

# negative controls: the checker must see each of these
python3 - <<'PY'
import struct
data = bytearray(open("bot0.bscap", "rb").read())
def records(d):
    pos, out = 8, []
    while pos < len(d):
        sent, ch, n, ms = struct.unpack("<BBHI", d[pos:pos + 8]); out.append((pos + 8, n, sent, ch)); pos += 8 + n
    return out
recs = records(data)
a = bytearray(data); off = recs[1][0]; a[off + 6] = 1                    # header flags of the 2nd packet
open("flags.bscap", "wb").write(a)
b = bytearray(data)
for off, n, sent, ch in recs:
    if not sent and ch == 2 and b[off + 3] == 5 and struct.unpack("<I", b[off + 8:off + 12])[0] == 60:
        b[off + 8:off + 12] = struct.pack("<I", 61); break                 # FRAME 60 says 61
# version 7: every FRAMES packet that carries frame 60 left out (frame 60 lost for good)
carries = lambda off: struct.unpack("<I", b[off + 8:off + 12])[0] <= 60 < struct.unpack("<I", b[off + 8:off + 12])[0] + b[off + 12]
keep = [(off, n) for off, n, sent, ch in recs if sent or ch != 1 or b[off + 3] != 14 or not carries(off)]
if len(keep) < len(recs):
    b = bytes(data[:8]) + b"".join(bytes(data[off - 8:off + n]) for off, n in keep)
open("tick.bscap", "wb").write(b)
open("cut.bscap", "wb").write(data[:recs[len(recs) // 2][0] - 8])       # ends mid-match, between records
PY
for neg in flags tick cut; do
    if python3 "$wire" $neg.bscap >neg-$neg.out 2>&1; then bad "the checker accepted the $neg capture"
    else ok "the $neg capture is refused: $(grep -m1 FAIL neg-$neg.out | cut -c1-110)"; fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
