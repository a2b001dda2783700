#!/usr/bin/env bash
# `blendsync eval --replay` (bsync_run_recorder, io/replay_recorder.h): the demo graph driven by the demo path script
# (scripts/demo/locomotion_path.csv: 3 parameter columns, play:upper cells with fade=6 and one with
# fade=8 inertialize) for 700 ticks is written as a match replay, and
#   * `replay verify` re-simulates it: exit 0, 700 ticks, 700 checksums with a pose, the snapshot at 600;
#   * `replay info`: 1 player, 700 frames, 3 input parameters and 2 triggers, END normal;
#   * python3 decodes the file from docs/replay.md alone (its own XXH64, first checked against every
#     record's stored hash) and finds, independently of the C code:
#       - the header's match config: the parameters in script column order with min/max worked by hand
#         from the CSV and the graph's defaults (move_x -1..1, move_y -1..1, speed 0..3.5), and exactly
#         two triggers for switch upper: fade 6, and fade 8 with inertialize;
#       - every frame's parameters = the CSV's held values in Q16.16 (exact fractions, rounded by the
#         test) and its triggers = child + 1 (upper's children: move, wave, punch) at the scripted ticks
#         on the trigger of the cell's options, 0 elsewhere;
#       - every CHECKSUM's root blend and pose checksum = match.h's root formulas (XXH64, seeds
#         "blendmtc" / "blendmps", u64 tick + 1, u32 1 character, the character's checksum, u32 0 NPCs)
#         applied to the state_checksum / pose_checksum that eval printed for that tick in its JSONL —
#         so the recorded states are eval's own;
#   * the same file with move_x and move_y swapped in every frame (records re-encoded with valid
#     XXH64s) fails verification at tick 30, the first tick where they differ (exit 1): a wrong mapping
#     of script columns to input parameters cannot pass;
#   * one byte of a frame changed (no re-encoding): the record XXH64 catches it, exit 2 (docs: a CORRUPT
#     record in the middle of the file is "unreadable", exit 2, not a mismatch);
#   * writing twice gives identical bytes; `replay cut` 550..650 verifies; the replay and the graph moved
#     together to another directory still verify (the graph path is relative to the replay);
#   * `desync diff` of the replay's SNAPSHOT (tick 600) against itself is identical (exit 0) and against
#     the snapshot of a run with one scripted value changed differs (exit 1), with the match config
#     taken from the replay header;
#   * `carry` cells are recorded ("carry": true) and verify; more than 16 kinds of trigger and an
#     unwritable directory are refused (exit 2) with nothing left behind.
# usage: cli_eval_replay.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
src="$(cd "$(dirname "$0")/../.." && pwd)"
export PYTHONPATH="$src/tests/cli${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
work=$(pwd)
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
graph="$src/scripts/demo/humanoid_locomotion.json"
csv="$src/scripts/demo/locomotion_path.csv"

"$bin" eval "$graph" --script "$csv" --ticks 700 --out a.jsonl --replay a.bsreplay >e.out 2>&1; rc=$?
[ $rc -eq 0 ] && [ -s a.bsreplay ] && [ "$(wc -l <a.jsonl)" -eq 700 ] && ok "eval --replay: exit 0, 700 JSONL lines" \
  || { bad "eval --replay rc $rc"; cat e.out; }
ls a.bsreplay.tmp.* >/dev/null 2>&1 && bad "a temporary file was left" || ok "no temporary file left"

"$bin" replay verify a.bsreplay >v.out 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "ticks verified: 700 (frames 0..699)" v.out && grep -q "checksums compared: 700 (700 with a pose)" v.out \
   && grep -q "snapshots compared: 1" v.out && grep -q "^verdict: verified" v.out; then
  ok "replay verify: exit 0, 700 ticks, 700 pose checksums, the snapshot at 600"
else bad "verify rc $rc"; cat v.out; fi
"$bin" replay verify a.bsreplay --json >vj.out 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '"verdict": "verified"' vj.out && grep -q '"ticks_verified": 700' vj.out \
  && ok "replay verify --json: verified, 700 ticks" || { bad "verify --json rc $rc"; cat vj.out; }

"$bin" replay info a.bsreplay >i.out 2>&1; rc=$?
if [ $rc -eq 0 ] && grep -q "1 players, 1 characters, 3 input parameters, 2 triggers" i.out \
   && grep -q "frames: 700 (ticks 0..699)" i.out && grep -q "end: 700 ticks, reason normal" i.out \
   && grep -q "checksum interval: 1 ticks" i.out; then
  ok "replay info: 1 player, 3 parameters, 2 triggers, 700 frames, END normal"
else bad "info rc $rc"; cat i.out; fi

if ! command -v python3 >/dev/null; then
  echo "skip: python3 is needed for the decoding checks"
else
cat >rp.py <<'PY'
import sys, json
from fractions import Fraction
from bsync_xxh64 import xxh64  # tests/cli/bsync_xxh64.py (PYTHONPATH)
SEED = 0x626c656e64727072
def varint(b, k):
    v, s = 0, 0
    while True:
        c = b[k]; k += 1; v |= (c & 0x7F) << s; s += 7
        if not c & 0x80: return v, k
def unzig(z): return (z >> 1) ^ -(z & 1)
def zig(x): return 2 * x if x >= 0 else -2 * x - 1
def enc(v):
    out = bytearray()
    while True:
        c = v & 0x7F; v >>= 7
        if v: out.append(c | 0x80)
        else: out.append(c); return bytes(out)

def records(d):
    assert d[:8] == b'BSRPLY\r\n'
    off = 8
    while off < len(d):
        typ, n = d[off], int.from_bytes(d[off + 4:off + 8], 'little')
        rec = d[off:off + 16 + n]
        assert xxh64(bytes(rec[:8 + n]), SEED) == int.from_bytes(rec[8 + n:16 + n], 'little'), "record hash at %d" % off
        yield off, typ, bytes(rec[8:8 + n])
        off += 16 + n

def text16(b, k):
    n = int.from_bytes(b[k:k + 2], 'little'); return b[k + 2:k + 2 + n].decode(), k + 2 + n

def header(body):
    k = 4
    _, k = text16(body, k)
    k += 16  # match id, hash
    rate, players, params, trigs, chars, delay, interval, start, assets = \
        [int.from_bytes(body[k + 4 * i:k + 4 * i + 4], 'little') for i in range(9)]
    k += 36
    for _ in range(assets):
        _, k = text16(body, k); k += 8
    path, k = text16(body, k)
    n = int.from_bytes(body[k:k + 4], 'little')
    return dict(players=players, params=params, trigs=trigs, path=path, config=body[k + 4:k + 4 + n].decode())

def frame(body, h):
    tick = int.from_bytes(body[0:4], 'little')
    k = 10
    ps = []
    for _ in range(h['params']):
        z, k = varint(body, k); ps.append(unzig(z))
    ts = list(body[k:k + h['trigs']])
    return tick, ps, ts

def fx(text):  # exact decimal -> Q16.16, round to nearest (the test's own rounding; ties do not occur here)
    f = Fraction(text) * 65536
    r = round(f)
    assert abs(f - r) != Fraction(1, 2)
    return int(r)

def check(replay, jsonl, csv, graphfile):
    d = open(replay, 'rb').read()
    recs = list(records(d))
    assert len(recs) > 1400
    h = header(recs[0][2])
    cfg = json.loads(h['config'])
    assert h['players'] == 1 and h['params'] == 3 and h['trigs'] == 2, h
    assert [(p['name'], fx(str(p['min'])), fx(str(p['max']))) for p in cfg['input']['parameters']] == \
        [('move_x', -65536, 65536), ('move_y', -65536, 65536), ('speed', 0, fx('3.5'))], cfg['input']['parameters']
    tr = [(t['switch'], t['fade_ticks'], t.get('carry', False), t.get('inertialize', False)) for t in cfg['input']['triggers']]
    assert tr == [('upper', 6, False, False), ('upper', 8, False, True)], tr
    assert cfg['characters'] == [{"name": "eval", "graph": cfg['characters'][0]['graph'], "slot": 0}]
    # the CSV, held from row to row (defaults 0), and its play cells
    g = json.load(open(graphfile))
    children = [c['motion'] for c in g['nodes']['upper']['children']]
    lines = [l.strip() for l in open(csv) if l.strip()]
    head = lines[0].split(',')
    assert head == ['tick', 'move_x', 'move_y', 'speed', 'play:upper'], head
    rows = {}
    for l in lines[1:]:
        c = l.split(',')
        rows[int(c[0])] = c[1:]
    held = [0, 0, 0]
    want_frames = {}
    for t in range(700):
        trig = [0, 0]
        if t in rows:
            for i in range(3):
                if rows[t][i] != '': held[i] = fx(rows[t][i])
            cell = rows[t][3].split()
            if cell:
                opts = cell[1:]
                fade = int([o for o in opts if o.startswith('fade=')][0][5:])
                j = tr.index(('upper', fade, 'carry' in opts, 'inertialize' in opts))
                trig[j] = children.index(cell[0]) + 1
        want_frames[t] = (list(held), trig)
    # eval's own printed checksums
    ev = [json.loads(l) for l in open(jsonl)]
    assert [e['tick'] for e in ev] == list(range(700))
    frames = checks = 0
    for off, typ, body in recs:
        if typ == 2:
            t, ps, ts = frame(body, h)
            assert (ps, ts) == tuple(want_frames[t]), (t, ps, ts, want_frames[t])
            frames += 1
        elif typ == 3:
            t = int.from_bytes(body[0:4], 'little')
            flags = int.from_bytes(body[4:8], 'little')
            blend = int.from_bytes(body[8:16], 'little'); pose = int.from_bytes(body[16:24], 'little')
            cb, cp = int(ev[t]['state_checksum'], 16), int(ev[t]['pose_checksum'], 16)
            le = lambda v, n: v.to_bytes(n, 'little')
            rb = xxh64(le(t + 1, 8) + le(1, 4) + le(cb, 8) + le(0, 4), 0x626c656e646d7463)
            rp = xxh64(le(t + 1, 8) + le(1, 4) + le(cp, 8), 0x626c656e646d7073)
            assert flags == 1 and blend == rb and pose == rp, (t, hex(blend), hex(rb), hex(pose), hex(rp))
            checks += 1
    assert frames == 700 and checks == 700, (frames, checks)
    print("decoded: 700 frames as scripted, 700 checksums = eval's JSONL through the root formulas")

def rewrite(src, dst, what):
    d = bytearray(open(src, 'rb').read())
    out = bytearray(d[:8])
    for off, typ, body in records(d):
        body = bytearray(body)
        if typ == 2 and what == 'swap':        # move_x <-> move_y (the first two parameters)
            k = 10
            z0, k1 = varint(body, k); z1, k2 = varint(body, k1)
            body = body[:10] + enc(z1) + enc(z0) + body[k2:]
        head = bytes(d[off:off + 4]) + len(body).to_bytes(4, 'little')
        out += head + body + xxh64(head + bytes(body), SEED).to_bytes(8, 'little')
    open(dst, 'wb').write(out)

def flip(src, dst, tick):  # one byte of frame `tick`'s first parameter, the record left as it is
    d = bytearray(open(src, 'rb').read())
    for off, typ, body in records(d):
        if typ == 2 and int.from_bytes(body[0:4], 'little') == tick:
            d[off + 8 + 10] ^= 0x02
            open(dst, 'wb').write(d)
            return
    raise SystemExit("no frame %d" % tick)

def snapshot(src, dst, tick):
    for off, typ, body in records(open(src, 'rb').read()):
        if typ == 4 and int.from_bytes(body[0:4], 'little') == tick:
            open(dst, 'wb').write(body[8:])
            return
    raise SystemExit("no snapshot %d" % tick)

def config(src, dst):  # the header's match config text, written to dst
    for off, typ, body in records(open(src, 'rb').read()):
        h = header(body)
        open(dst, 'w').write(h['config'])
        print(h['path'])
        return

cmd = sys.argv[1]
if cmd == 'check': check(*sys.argv[2:6])
elif cmd == 'swap': rewrite(sys.argv[2], sys.argv[3], 'swap')
elif cmd == 'flip': flip(sys.argv[2], sys.argv[3], int(sys.argv[4]))
elif cmd == 'snapshot': snapshot(sys.argv[2], sys.argv[3], int(sys.argv[4]))
elif cmd == 'config': config(sys.argv[2], sys.argv[3])
PY
  python3 rp.py check a.bsreplay a.jsonl "$csv" "$graph" >p.out 2>&1 \
    && ok "decoded: header config, every frame as scripted, every checksum = eval's printed checksums" \
    || { bad "python decoding checks"; cat p.out; }

  python3 rp.py swap a.bsreplay swap.bsreplay >/dev/null 2>&1 || bad "swap rewrite"
  "$bin" replay verify swap.bsreplay >s.out 2>&1; rc=$?
  [ $rc -eq 1 ] && grep -q "MISMATCH at tick 30" s.out && ok "move_x and move_y swapped in every frame: mismatch at tick 30, exit 1" \
    || { bad "swapped parameters rc $rc"; cat s.out; }

  python3 rp.py flip a.bsreplay flip.bsreplay 100 >/dev/null 2>&1 || bad "flip"
  "$bin" replay verify flip.bsreplay >f.out 2>&1; rc=$?
  [ $rc -eq 2 ] && grep -q "FRAME record checksum mismatch" f.out && grep -q "ticks verified: 100" f.out \
    && ok "one byte of frame 100 changed: the record XXH64 catches it after 100 ticks, exit 2" \
    || { bad "flipped byte rc $rc"; cat f.out; }

  # desync diff with the replay's snapshot and the config from its header (written where the header
  # says the config lies)
  cfgpath=$(python3 rp.py config a.bsreplay header-config.json)
  [ "$cfgpath" = "$work/a.bsreplay.match.json" ] && ok "recorded config path: the replay's directory, absolute" \
    || bad "recorded config path '$cfgpath'"
  cp header-config.json "$cfgpath"
  python3 rp.py snapshot a.bsreplay s600.bsms 600 >/dev/null 2>&1 || bad "snapshot extraction"
  sed -e 's/^400,-0.7,0.7,2.5,/400,-0.7,0.7,2,/' "$csv" >changed.csv
  "$bin" eval "$graph" --script changed.csv --ticks 700 --hash --replay b.bsreplay >/dev/null 2>&1 || bad "eval of changed.csv"
  python3 rp.py snapshot b.bsreplay t600.bsms 600 >/dev/null 2>&1 || bad "snapshot extraction (b)"
  "$bin" desync diff s600.bsms s600.bsms --match "$cfgpath" >d0.out 2>&1; rc0=$?
  "$bin" desync diff s600.bsms t600.bsms --match "$cfgpath" >d1.out 2>&1; rc1=$?
  [ $rc0 -eq 0 ] && [ $rc1 -eq 1 ] && grep -q "character 0 (eval) node locomotion: phase" d1.out \
    && ok "desync diff of the replay's snapshot: itself identical (0); speed 2.5 -> 2 at tick 400: node locomotion's phase differs (1)" \
    || { bad "desync diff rc $rc0 $rc1"; cat d0.out d1.out; }
  rm -f "$cfgpath"
fi

cp a.bsreplay first.bsreplay
"$bin" eval "$graph" --script "$csv" --ticks 700 --hash --replay a.bsreplay >/dev/null 2>&1
cmp -s a.bsreplay first.bsreplay && ok "written twice: identical bytes" || bad "two writes differ"

"$bin" replay cut a.bsreplay --from 550 --to 650 --out cut.bsreplay >c.out 2>&1 \
  && "$bin" replay verify cut.bsreplay >cv.out 2>&1 && grep -q "ticks verified: 100 (frames 550..649)" cv.out \
  && ok "replay cut 550..650 verifies (100 ticks from the cut's snapshot)" || { bad "cut"; cat c.out cv.out; }

# the replay and the graph moved together: the graph path is relative to the replay's directory
mkdir -p X/g X/r && cp "$graph" X/g/
"$bin" eval X/g/humanoid_locomotion.json --script "$csv" --hash --replay X/r/m.bsreplay >/dev/null 2>&1
"$bin" replay info X/r/m.bsreplay >mi.out 2>&1
grep -q "  ../g/humanoid_locomotion.json:idle " mi.out && ok "asset names carry the graph path relative to the replay" \
  || { bad "asset names"; cat mi.out; }
rm -rf Y && mv X Y
(cd / && "$bin" replay verify "$work/Y/r/m.bsreplay") >mv.out 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "ticks verified: 600" mv.out && grep -q "graphs from $work/Y/r" mv.out \
  && ok "moved with its graph, verified from / (600 ticks, graphs from the replay's directory)" || { bad "moved rc $rc"; cat mv.out; }

# carry is recorded and verifies
printf 'tick,speed,play:upper\n0,1,\n10,,wave fade=4 carry\n40,2,move fade=4\n60,,punch fade=3 carry\n79,,\n' >carry.csv
"$bin" eval "$graph" --script carry.csv --hash --replay carry.bsreplay >/dev/null 2>&1; rc=$?
"$bin" replay verify carry.bsreplay >cr.out 2>&1; rc2=$?
"$bin" replay info carry.bsreplay >ci.out 2>&1
[ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "ticks verified: 80" cr.out && grep -q "1 players, 1 characters, 1 input parameters, 3 triggers" ci.out \
  && grep -a -q '"fade_ticks": 4, "carry": true' carry.bsreplay \
  && ok "carry cells: 3 trigger kinds (fade 4 carry, fade 4, fade 3 carry), verified" || { bad "carry rc $rc $rc2"; cat cr.out ci.out; }

# more than 16 kinds of trigger: refused, nothing written
{ echo "tick,play:upper"; for i in $(seq 1 17); do echo "$i,wave fade=$i"; done; } >many.csv
"$bin" eval "$graph" --script many.csv --hash --replay many.bsreplay >m.out 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "more than 16 kinds of trigger" m.out && grep -q "column play:upper, tick 17" m.out \
  && [ ! -e many.bsreplay ] && ! ls many.bsreplay.tmp.* >/dev/null 2>&1 \
  && ok "17 kinds of trigger: exit 2 naming the column and tick, nothing written" || { bad "many rc $rc"; cat m.out; }

"$bin" eval "$graph" --script "$csv" --hash --replay nodir/x.bsreplay >n.out 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "nodir" n.out && [ ! -e nodir ] && ok "a missing directory: exit 2" || { bad "nodir rc $rc"; cat n.out; }

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
