#!/usr/bin/env bash
# `blendsync eval --render-rate` and `blendsync bake --render-rate` (presentation poses between ticks,
# blendsync/present.h) as a user runs them, on a one-clip graph whose motion is known in closed form:
# hips translation (0,0,0) -> (1,0.5,0) -> (2,0,0) at 0, 0.5, 1 s (linear keys, looping), 30 Hz.
#   - bake at 60 Hz: floor(N * 60 / 30) + 1 keys; every key's hips translation is the clip's motion at
#     the display time f / 60 s (x = 2 t mod the loop, y = the tent), read back from the GLB with python,
#     within 1e-3 m: the frames between ticks really are in between; at 30 Hz the bake is byte for byte
#     the plain bake;
#   - eval at 144 Hz: ceil((N + 1) * 144 / 30) frame lines, alphas in [0, 1), each alpha-0 frame's pose
#     checksum equals the pose checksum of the tick line before it, the tick lines are exactly the
#     plain eval's, and the hash is unchanged;
#   - errors: --render-rate 0, 1001, x, and a config without clips: exit 2.
# usage: cli_present.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
mkdir -p "$work" && cd "$work" || exit 1
rm -f ./*.glb ./*.jsonl ./*.tmp.*
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

cat > clip.gltf <<'JSON'
{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],
 "nodes":[{"name":"hips","children":[1]},{"name":"spine","translation":[0,1,0]}],
 "buffers":[{"uri":"data:application/octet-stream;base64,AAAAAAAAAD8AAIA/AAAAAAAAAAAAAAAAAACAPwAAAD8AAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAPwAAAADzBDU/AAAAAPMENT8AAAAAAACAPwAAAAAAAAAA","byteLength":96}],
 "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":96}],
 "accessors":[{"bufferView":0,"byteOffset":0,"componentType":5126,"count":3,"type":"SCALAR","min":[0],"max":[1]},
              {"bufferView":0,"byteOffset":12,"componentType":5126,"count":3,"type":"VEC3"},
              {"bufferView":0,"byteOffset":48,"componentType":5126,"count":3,"type":"VEC4"}],
 "animations":[{"name":"walk","samplers":[{"input":0,"output":1},{"input":0,"output":2}],
   "channels":[{"sampler":0,"target":{"node":0,"path":"translation"}},{"sampler":1,"target":{"node":1,"path":"rotation"}}]}]}
JSON
cat > one.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": {} }, "root": "move",
  "clips": { "walk": { "source": "clip.gltf" } },
  "nodes": { "move": { "type": "Simple1D", "parameter": "speed",
                       "children": [ { "motion": "walk", "threshold": 0 } ] } } }
JSON
cat > noclips.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": {} }, "root": "move",
  "nodes": { "move": { "type": "Simple1D", "parameter": "speed",
                       "children": [ { "motion": "walk", "threshold": 0 } ] } } }
JSON
printf 'tick,speed\n0,0\n44,1\n' > one.csv

# ---- bake
"$bin" bake one.json --script one.csv -o plain.glb 2>/dev/null
"$bin" bake one.json --script one.csv -o r30.glb --render-rate 30 2>/dev/null
cmp -s plain.glb r30.glb
check "bake --render-rate 30 (the tick rate) is the plain bake byte for byte" $?
"$bin" bake one.json --script one.csv -o r60.glb --render-rate 60 2>/dev/null
check "bake --render-rate 60 exits 0" $?
python3 - r60.glb <<'PY'
import json, struct, sys
data = open(sys.argv[1], 'rb').read()
jlen = struct.unpack_from('<I', data, 12)[0]
doc = json.loads(data[20:20 + jlen])
bin_off = 20 + jlen + 8
def acc(i):
    a = doc['accessors'][i]; v = doc['bufferViews'][a['bufferView']]
    n = {'SCALAR': 1, 'VEC3': 3, 'VEC4': 4}[a['type']]
    off = bin_off + v.get('byteOffset', 0) + a.get('byteOffset', 0)
    return [struct.unpack_from('<%df' % n, data, off + 4 * n * k) for k in range(a['count'])]
times = acc(0); hips = acc(1)
ok = len(times) == 45 * 2 + 1
worst = 0.0
for f, (t,) in enumerate(times):
    if abs(t - f / 60.0) > 1e-6: ok = False
    ph = (f / 60.0) % 1.0
    x = 2.0 * ph
    y = ph if ph <= 0.5 else 1.0 - ph
    worst = max(worst, abs(hips[f][0] - x), abs(hips[f][1] - y))
print('keys %d, worst hips error %.2e m' % (len(times), worst))
sys.exit(0 if ok and worst < 1e-3 else 1)
PY
check "bake --render-rate 60: 91 keys at f / 60 s, hips at the clip's motion at each display time" $?

# ---- eval
"$bin" eval one.json --script one.csv > plain.jsonl 2>/dev/null
"$bin" eval one.json --script one.csv --render-rate 144 > r144.jsonl 2>/dev/null
check "eval --render-rate 144 exits 0" $?
grep '^{"tick"' r144.jsonl | cmp -s - plain.jsonl
check "eval --render-rate: the tick lines are the plain eval's" $?
frames=$(grep -c '^{"frame"' r144.jsonl)
[ "$frames" -eq 221 ] # ceil(46 * 144 / 30)
check "eval --render-rate 144: 221 frame lines (got $frames)" $?
python3 - r144.jsonl <<'PY'
import json, sys
last_tick_pose = None; ok = True; zeros = 0; n = 0
for line in open(sys.argv[1]):
    o = json.loads(line)
    if 'tick' in o:
        last_tick_pose = o['pose_checksum']
        continue
    if o['frame'] != n or not (0 <= o['alpha'] < 1): ok = False
    if o['alpha'] == 0 and o['ticks'] > 0:
        zeros += 1
        if o['pose_checksum'] != last_tick_pose: ok = False
    n += 1
sys.exit(0 if ok and zeros == 9 else 1)  # frames 24, 48, ..., 216: ticks 5, 10, ..., 45
PY
check "eval --render-rate: frames in order, alpha in [0, 1), alpha-0 frames equal the tick poses" $?
[ "$("$bin" eval one.json --script one.csv --hash --render-rate 144 2>/dev/null)" = "$("$bin" eval one.json --script one.csv --hash 2>/dev/null)" ]
check "eval --hash is unchanged by --render-rate" $?

# ---- errors
for bad in 0 1001 x; do
  "$bin" eval one.json --script one.csv --render-rate "$bad" > /dev/null 2>&1
  [ $? -eq 2 ]
  check "eval --render-rate $bad: exit 2" $?
  "$bin" bake one.json --script one.csv -o bad.glb --render-rate "$bad" > /dev/null 2>&1
  [ $? -eq 2 ] && [ ! -e bad.glb ]
  check "bake --render-rate $bad: exit 2, no file" $?
done
"$bin" eval noclips.json --script one.csv --render-rate 60 > /dev/null 2> err.txt
[ $? -eq 2 ] && grep -q "render-rate needs bound clips" err.txt
check "eval --render-rate without clips: exit 2 with a message" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
