#!/usr/bin/env bash
# `blendsync bake --compact` carries what the run fired (docs/clip-format.md "Clip actions"): the demo
# graph's punch hit window becomes a range of the baked clip from the key of the tick it opened in to the
# key of the tick it closed in, and a graph's float curves become curves with a key per baked key; both
# compared with what `blendsync eval` prints for the same script (tick t is key t + 1, at
# round((t + 1) * 65536 / rate) raw seconds). The section is read here from the documented layout. A
# graph without actions still bakes a version-2 file.
# usage: cli_bake_actions.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$work" && cd "$work" || exit 1
rm -f ./*.bsclip ./*.jsonl
command -v python3 >/dev/null || { echo "skipped: python3 is needed"; exit 0; }
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

printf 'tick,play:upper\n0,\n1,punch\n' >punch.csv
"$bin" eval "$src/scripts/demo/humanoid_locomotion.json" --script punch.csv --ticks 40 >punch.jsonl 2>/dev/null
check "eval of the punch" $?
"$bin" bake "$src/scripts/demo/humanoid_locomotion.json" --script punch.csv --ticks 40 --compact -o punch.bsclip >/dev/null 2>&1
check "bake --compact of the punch" $?
printf 'tick,speed\n0,0.25\n20,0.75\n' >curves.csv
"$bin" eval "$src/tests/fuzz/seeds/curves.json" --script curves.csv --ticks 40 >curves.jsonl 2>/dev/null
check "eval of the curves graph" $?
"$bin" bake "$src/tests/fuzz/seeds/curves.json" --script curves.csv --ticks 40 --compact -o curves.bsclip >/dev/null 2>&1
check "bake --compact of the curves graph" $?
printf 'tick,speed\n0,0.5\n' >plain.csv
cat >plain.json <<'JSON'
{ "parameters": { "speed": {} }, "root": "loco", "nodes": { "loco": { "type": "Simple1D", "parameter": "speed",
  "children": [ { "motion": "walk", "threshold": 0 }, { "motion": "run", "threshold": 1 } ] } },
  "clips": { "walk": { "source": "builtin:humanoid" }, "run": { "source": "builtin:humanoid" } } }
JSON
"$bin" bake plain.json --script plain.csv --ticks 10 --compact -o plain.bsclip >/dev/null 2>&1
check "bake --compact without actions" $?

python3 - <<'PY'
import json, struct, sys

def section(path):
    d = open(path, "rb").read()
    version = struct.unpack_from("<I", d, 8)[0]
    if version != 3:
        return version, []
    off, size = struct.unpack_from("<QQ", d, 40)
    count = struct.unpack_from("<I", d, off)[0]
    p, out = off + 8, []
    for _ in range(count):
        clip, kind = struct.unpack_from("<II", d, p)
        name = d[p + 8:p + 72].split(b"\0")[0].decode()
        t, e, pay, kc = struct.unpack_from("<iiiI", d, p + 72)
        keys = struct.unpack_from("<%di" % (2 * kc), d, p + 88) if kc else ()
        out.append(dict(clip=clip, kind=kind, name=name, time=t, end=e, payload=pay, times=keys[:kc], values=keys[kc:]))
        p += 88 + 8 * kc
    if p != off + size:
        sys.exit("the section's size is not its actions'")
    return version, out

def key_time(tick, rate=30):  # key tick + 1
    return ((tick + 1) * 65536 + rate // 2) // rate

bad = []
# the punch: the range from the tick it opened (enters) to the tick it closed (exits), as eval prints them
opened = closed = None
for line in open("punch.jsonl"):
    f = json.loads(line)
    for a in f.get("actions", []):
        if a["name"] == "hit" and a.get("enters", 0) > 0 and opened is None:
            opened = f["tick"]
        if a["name"] == "hit" and a.get("exits", 0) > 0 and closed is None:
            closed = f["tick"]
v, acts = section("punch.bsclip")
hits = [a for a in acts if a["name"] == "hit"]
if opened is None or closed is None:
    bad.append("eval shows no hit window opening and closing")
elif v != 3 or len(hits) != 1 or hits[0]["kind"] != 1 or hits[0]["payload"] != 10 or \
        hits[0]["time"] != key_time(opened) or hits[0]["end"] != key_time(closed):
    bad.append("punch: version %d, hits %r; eval opened in tick %s, closed in %s" % (v, hits, opened, closed))
else:
    print("ok   the hit window: [%d, %d) raw s = ticks %d..%d, payload 10" % (hits[0]["time"], hits[0]["end"], opened, closed))
# the curves: one key per baked key, the values eval prints (5 decimals) within 1e-4
v, acts = section("curves.bsclip")
frames = [json.loads(l) for l in open("curves.jsonl")]
curves = {a["name"]: a for a in acts if a["kind"] == 3}
if v != 3 or set(curves) != set(frames[0]["curves"]):
    bad.append("curves: version %d, channels %r, eval prints %r" % (v, sorted(curves), sorted(frames[0]["curves"])))
else:
    for name, c in curves.items():
        if len(c["values"]) != len(frames) + 1:
            bad.append("curve %s: %d keys for %d ticks" % (name, len(c["values"]), len(frames)))
            continue
        for f in frames:
            k = f["tick"] + 1
            if c["times"][k] != key_time(f["tick"]) or abs(c["values"][k] / 65536 - f["curves"][name]) > 1e-4:
                bad.append("curve %s key %d: %d at %d, eval %r" % (name, k, c["values"][k], c["times"][k], f["curves"][name]))
                break
    print("ok   %d curves, %d keys each, as eval prints them" % (len(curves), len(frames) + 1))
v, acts = section("plain.bsclip")
if v != 2:
    bad.append("a graph without actions baked version %d (2 expected)" % v)
for b in bad:
    print("FAIL " + b)
sys.exit(1 if bad else 0)
PY
check "the baked clip actions" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
