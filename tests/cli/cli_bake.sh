#!/usr/bin/env bash
# `blendsync bake` as a user runs it: a graph playing one clip baked to .glb, the GLB header and chunk
# framing checked byte-wise, the file re-imported by `blendsync import --list` (joints, tracks, keys:
# ticks + 1 keys per track, duration ticks / rate), determinism (two bakes are byte-identical), and the
# errors (bad script, unwritable output, missing arguments, a config without clips): exit 2, no file
# left and an existing output untouched. The pab example runs when ../shared is present.
# (The key-by-key round trip against the instance's poses is tests/unit/import/test_gltf_write.c.)
# usage: cli_bake.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$work" && cd "$work" || exit 1
rm -rf out.glb out2.glb keep.glb nodir pab.glb ./*.tmp.*
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; } # little-endian host (x86, arm)

# hips -> spine; "walk" 1 s: hips (0,0,0) (1,0.5,0) (2,0,0) at 0, 0.5, 1 s; spine turns 0, 90, 180 deg about Y.
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
printf 'tick,speed\n0,0\n44,1\n' > one.csv

"$bin" bake one.json --script one.csv -o out.glb 2>err.txt; rc=$?
[ $rc -eq 0 ] && [ -f out.glb ] && ! grep -qv '^note: ' err.txt
check "bake exits 0 and writes out.glb, only config notes on stderr" $?
size=$(stat -c %s out.glb)
[ "$(head -c 4 out.glb)" = "glTF" ] && [ "$(u32 out.glb 4)" -eq 2 ] && [ "$(u32 out.glb 8)" -eq "$size" ] && [ $((size % 4)) -eq 0 ]
check "GLB header: magic glTF, version 2, length = file size ($size), multiple of 4" $?
jl=$(u32 out.glb 12)
[ "$(dd if=out.glb bs=1 skip=16 count=4 2>/dev/null)" = "JSON" ] && [ $((jl % 4)) -eq 0 ]
check "JSON chunk: type JSON, length $jl a multiple of 4" $?
bl=$(u32 out.glb $((20 + jl)))
# 45 ticks -> 46 keys: times 46*4 + 2 joints * 40 * 46 = 3864 bytes
[ "$(dd if=out.glb bs=1 skip=$((24 + jl)) count=3 2>/dev/null)" = "BIN" ] && [ "$bl" -eq 3864 ] && [ $((20 + jl + 8 + bl)) -eq "$size" ]
check "BIN chunk: type BIN, 3864 data bytes (46 keys x (4 + 2 x 40)), the file ends after it" $?
dd if=out.glb bs=1 skip=20 count="$jl" 2>/dev/null > json.txt
grep -qF '"name":"one"' json.txt && grep -qF '"max":[1.5]' json.txt && grep -qF '"generator":"blendsync bake"' json.txt
check "one animation named after the config, last key time 45/30 = 1.5 s" $?
list=$("$bin" import --list out.glb 2>&1); rc=$?
[ $rc -eq 0 ] && grep -qF 'skeleton: 2 joints' <<<"$list" && grep -qF "clip 'one': 1.5 s, 6 tracks, 276 keys" <<<"$list"
check "re-imports: 2 joints, 6 tracks (T/R/S per joint) x 46 keys (ticks + 1)" $?

"$bin" bake one.json --script one.csv -o out2.glb --ticks 10 2>/dev/null; rc=$?
[ $rc -eq 0 ] && "$bin" import --list out2.glb 2>&1 | grep -qF "clip 'one': 0.33333 s, 6 tracks, 66 keys"
check "--ticks 10 gives 11 keys per track, 10/30 s" $?
"$bin" bake one.json --script one.csv -o out2.glb 2>/dev/null && cmp -s out.glb out2.glb
check "two bakes are byte-identical" $?
ls ./*.tmp.* >/dev/null 2>&1
[ $? -ne 0 ]
check "no temporary files left" $?

# --compact: the same keys as a .bsclip of version 2 with compact keys; smaller than the default
# import of the .glb; deterministic; what import --list reads back (same joints, tracks, keys).
"$bin" bake one.json --script one.csv -o c.bsclip --compact 2>/dev/null; rc=$?
[ $rc -eq 0 ] && [ "$(head -c 8 c.bsclip | tr -d '\r\n')" = BSCLIP ] && [ "$(u32 c.bsclip 8)" = 2 ]
check "--compact: a .bsclip of version 2" $?
list=$("$bin" import --list c.bsclip 2>&1); rc=$?
[ $rc -eq 0 ] && grep -qF 'clip file v2' <<<"$list" && grep -qF 'skeleton: 2 joints' <<<"$list" &&
  grep -qF "clip 'one': 1.5 s, 6 tracks, 276 keys" <<<"$list"
check "--compact: re-imports with 2 joints, 6 tracks x 46 keys" $?
"$bin" import out.glb -o d.bsclip >/dev/null 2>&1 && [ "$(wc -c <c.bsclip)" -lt "$(wc -c <d.bsclip)" ] && [ "$(u32 d.bsclip 8)" = 1 ]
check "--compact: smaller than the default .bsclip (which stays version 1)" $?
"$bin" bake one.json --script one.csv -o c2.bsclip --compact 2>/dev/null && cmp -s c.bsclip c2.bsclip
check "--compact: two bakes are byte-identical" $?


# errors: exit 2, message, no file
printf 'tick,sped\n0,1\n' > bad.csv
"$bin" bake one.json --script bad.csv -o nofile.glb 2>err.txt; rc=$?
[ $rc -eq 2 ] && [ ! -e nofile.glb ] && grep -qF 'blendsync bake: bad.csv:1:6: unknown parameter "sped" (parameters: speed)' err.txt
check "bad script: exit 2, eval's message with the bake prefix, no file" $?
printf 'tick,speed\n3,1\n2,0\n' > order.csv
"$bin" bake one.json --script order.csv -o nofile.glb 2>err.txt; rc=$?
[ $rc -eq 2 ] && [ ! -e nofile.glb ] && grep -qF 'order.csv:3:1: tick 2 does not follow' err.txt
check "unsorted script: exit 2, no file" $?
cp out.glb keep.glb
"$bin" bake one.json --script bad.csv -o keep.glb 2>/dev/null; rc=$?
[ $rc -eq 2 ] && cmp -s out.glb keep.glb
check "a failed bake leaves an existing output untouched" $?
"$bin" bake one.json --script one.csv -o nodir/x.glb 2>err.txt; rc=$?
[ $rc -eq 2 ] && [ ! -e nodir ] && grep -qF 'nodir/x.glb: cannot write the file' err.txt && ! ls ./*.tmp.* >/dev/null 2>&1
check "unwritable output: exit 2, message, nothing left" $?
"$bin" bake one.json --script one.csv 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -qF 'missing -o OUT.glb' err.txt
check "missing -o: exit 2" $?
"$bin" bake one.json --script one.csv -o x.glb --ticks 0 2>err.txt; rc=$?
[ $rc -eq 2 ] && [ ! -e x.glb ]
check "--ticks 0: exit 2" $?
cat > noclip.json <<'JSON'
{ "parameters": { "speed": {} }, "root": "move",
  "nodes": { "move": { "type": "Simple1D", "parameter": "speed", "children": [ { "motion": "walk", "threshold": 0 } ] } } }
JSON
"$bin" bake noclip.json --script one.csv -o x.glb 2>err.txt; rc=$?
[ $rc -eq 2 ] && [ ! -e x.glb ] && grep -qF 'binds no clips' err.txt
check "a config without clips: exit 2, no file" $?
"$bin" bake missing.json --script one.csv -o x.glb 2>/dev/null; rc=$?
[ $rc -eq 2 ] && [ ! -e x.glb ]
check "missing config: exit 2" $?

# The pab example (needs ../shared beside the project, as its config's relative data path says).
ex="$src/scripts/examples/pab_locomotion.json"
if [ -f "$src/../shared/data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf" ]; then
  last=$(grep -E '^[0-9]' "$src/scripts/examples/pab_speed_ramp.csv" | tail -1 | cut -d, -f1)
  ticks=$((last + 1))
  "$bin" bake "$ex" --script "$src/scripts/examples/pab_speed_ramp.csv" -o pab.glb 2>/dev/null; rc=$?
  list=$("$bin" import --list pab.glb 2>&1)
  [ $rc -eq 0 ] && grep -qF 'skeleton: 67 joints' <<<"$list" \
    && grep -qF "clip 'pab_locomotion': " <<<"$list" && grep -qF " 201 tracks, $((201 * (ticks + 1))) keys" <<<"$list"
  check "pab example: re-imports with 67 joints, 201 tracks x $((ticks + 1)) keys (ticks + 1)" $?
else
  echo "skip pab example (../shared/data absent)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
