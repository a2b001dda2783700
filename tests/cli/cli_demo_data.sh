#!/usr/bin/env bash
# `blendsync demo --data DIR` on the shared data (skipped when it is absent): it runs the pab
# locomotion and KayKit strafe examples, writes both .glb files, which re-import with the right joint
# counts (67 and 23), track and key counts (3 per joint x (ticks + 1)) and a skin; each file is
# `blendsync bake EXAMPLE --script SCRIPT --skin`'s output but for the generator string ("blendsync
# demo" vs "blendsync bake", 4 differing bytes), so the compiled-in configs and scripts are the
# examples'; the printed pose checksums are `blendsync eval`'s at the same ticks; errors exit 2; no
# temporary config is left behind. (The key-by-key pose round trip of the KayKit bake is
# tests/unit/import/test_gltf_skin.c.)
# usage: cli_demo_data.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
shared=${BSYNC_SHARED_DIR:-$src/../shared}
data=$shared/data
if [ ! -f "$data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf" ] ||
   [ ! -f "$data/kaykit-character-animations/Med_MovementAdvanced.glb" ]; then
  echo "skip: shared data absent ($data)"
  exit 0
fi
mkdir -p "$work" && cd "$work" || exit 1
rm -rf out out2 tmp bake empty ro ./*.json ./*.txt
mkdir -p out out2 tmp bake empty
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

TMPDIR=$work/tmp "$bin" demo --data "$data" --out-dir out >demo.txt 2>err.txt; rc=$?
[ $rc -eq 0 ] && [ -s out/pab_locomotion.glb ] && [ -s out/kaykit_strafe.glb ] && ! grep -qv '^note: ' err.txt
check "demo --data exits 0, writes out/pab_locomotion.glb and out/kaykit_strafe.glb" $?
[ -z "$(ls -A tmp)" ]
check "no temporary config left in TMPDIR" $?
grep -qE '^pab_locomotion: 67 joints, 301 ticks at 30 Hz \(10\.033 s\), final pose checksum [0-9a-f]{16}; wrote out/pab_locomotion\.glb \(302 keys, skin\)$' demo.txt &&
  grep -qE '^kaykit_strafe: 23 joints, 401 ticks at 30 Hz \(13\.367 s\), final pose checksum [0-9a-f]{16}; wrote out/kaykit_strafe\.glb \(402 keys, skin\)$' demo.txt
check "summaries: 67 joints / 301 ticks (pab), 23 joints / 401 ticks (KayKit)" $?
# a row per second plus the last tick: pab ticks 0..300 -> 11 rows, KayKit 0..390 and 400 -> 15 rows
[ "$(grep -cE '^ +[0-9]+ .*  [0-9a-f]{16}$' demo.txt)" -eq 26 ]
check "26 table rows (11 + 15: every 30 ticks and the last)" $?

list=$("$bin" import --list out/pab_locomotion.glb 2>&1)
grep -qF 'skeleton from skin 0' <<<"$list" && grep -qF 'skeleton: 67 joints' <<<"$list" &&
  grep -qE "clip 'pab_locomotion': 10\.0333[34] s, 201 tracks, $((201 * 302)) keys" <<<"$list"
check "pab_locomotion.glb re-imports from its skin: 67 joints, 201 tracks x 302 keys" $?
list=$("$bin" import --list out/kaykit_strafe.glb 2>&1)
grep -qF 'skeleton from skin 0' <<<"$list" && grep -qF 'skeleton: 23 joints' <<<"$list" &&
  grep -qF "clip 'kaykit_strafe': 13.36667 s, 69 tracks, $((69 * 402)) keys" <<<"$list"
check "kaykit_strafe.glb re-imports from its skin: 23 joints, 69 tracks x 402 keys" $?

# The examples baked by `blendsync bake --skin` (sources pointed at $data): the same bytes but the generator.
for ex in pab_locomotion:pab_speed_ramp kaykit_strafe:kaykit_joystick; do
  name=${ex%%:*}
  script=$src/scripts/examples/${ex##*:}.csv
  sed "s#\.\./\.\./\.\./shared/data#$data#g" "$src/scripts/examples/$name.json" >"$name.json"
  "$bin" bake "$name.json" --script "$script" -o "bake/$name.glb" --skin 2>/dev/null; rc=$?
  diffs=$(cmp -l "out/$name.glb" "bake/$name.glb" 2>/dev/null | wc -l)
  [ $rc -eq 0 ] && [ "$(stat -c %s "out/$name.glb")" -eq "$(stat -c %s "bake/$name.glb")" ] && [ "$diffs" -eq 4 ] &&
    grep -qF '"generator":"blendsync demo"' "out/$name.glb" && grep -qF '"generator":"blendsync bake"' "bake/$name.glb"
  check "$name: demo's .glb = bake --skin's but for the generator ($diffs bytes differ, want 4)" $?
  # pose checksums printed by demo = eval's pose_checksum at the same ticks
  "$bin" eval "$name.json" --script "$script" 2>/dev/null >"eval_$name.txt"
  awk -v n="$name" '$0 ~ "^blendsync demo: " n " " {on = 1; next} on && /^$/ && seen {on = 0} on && /^ +[0-9]+ / {seen = 1; print $1, $NF}' demo.txt >"rows_$name.txt"
  ok=$([ -s "rows_$name.txt" ] && echo 0 || echo 1)
  while read -r t sum; do
    grep -qF "{\"tick\": $t, " "eval_$name.txt" && grep -F "{\"tick\": $t, " "eval_$name.txt" | grep -qF "\"pose_checksum\": \"$sum\"" || ok=1
  done <"rows_$name.txt"
  check "$name: the $(wc -l <"rows_$name.txt") printed pose checksums are eval's at those ticks" "$ok"
done

TMPDIR=$work/tmp "$bin" demo --data "$data" --out-dir out2 --quiet >quiet.txt 2>/dev/null; rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <quiet.txt)" -eq 2 ] && cmp -s out/pab_locomotion.glb out2/pab_locomotion.glb &&
  cmp -s out/kaykit_strafe.glb out2/kaykit_strafe.glb
check "--quiet prints the two summaries; a second run writes the same bytes" $?

# errors
"$bin" demo --data "$work/missing" --out-dir out2 >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -qF 'blendsync demo: --data' err.txt
check "--data of a missing folder: exit 2" $?
"$bin" demo --data "$work/empty" --out-dir out2 >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -qF 'pab_locomotion_runtime.gltf (give the shared data folder' err.txt
check "--data of a folder without the data: exit 2, names the missing file" $?
"$bin" demo --data "$data" --ticks 10 >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -qF 'does not go with --data' err.txt
check "--ticks with --data: exit 2" $?
"$bin" demo --data >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -qF -- '--data needs a value' err.txt
check "--data without a value: exit 2" $?
"$bin" demo --data "$data" --out-dir "$work/nodir/sub" >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -qF 'cannot write the file' err.txt && [ ! -e "$work/nodir" ]
check "unwritable --out-dir: exit 2, nothing created" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
