#!/usr/bin/env bash
# blendsync demo --locomotion: the match demo's graph along scripts/demo/locomotion_path.csv (both
# compiled in at build time). Its pose checksums must equal `blendsync eval` of the same two files
# (an independent path: eval reads them from disk), the strafe and walk_back weights must take over
# when the stick points there, and the baked .glb must re-import with the humanoid's 23 joints.
# usage: cli_demo_locomotion.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
src="$(cd "$(dirname "$0")/../.." && pwd)"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

"$bin" demo --locomotion --out-dir . --every 30 >demo.out 2>demo.err; rc=$?
[ $rc -eq 0 ] && ok "demo --locomotion exits 0" || { bad "exit $rc"; cat demo.err; }
"$bin" eval "$src/scripts/demo/humanoid_locomotion.json" --script "$src/scripts/demo/locomotion_path.csv" \
  --out frames.jsonl 2>/dev/null || bad "eval of the same files"
# eval line for tick t is line t+1; the demo prints rows for ticks 0, 30, ..., 599
mismatch=0; rows=0
while read -r tick rest; do
  [[ "$tick" =~ ^[0-9]+$ ]] || continue
  sum=$(awk '{print $NF}' <<<"$rest")
  want=$(sed -n "$((tick + 1))p" frames.jsonl | sed -n 's/.*"pose_checksum": "\([0-9a-f]*\)".*/\1/p')
  rows=$((rows + 1))
  [ "$sum" = "$want" ] || { mismatch=$((mismatch + 1)); echo "tick $tick: demo $sum, eval $want"; }
done < <(grep -E '^ +[0-9]+ ' demo.out)
[ $rows -eq 21 ] && [ $mismatch -eq 0 ] && ok "21 rows, every pose checksum equals eval's" || bad "rows $rows, mismatches $mismatch"
# columns: tick speed move_x move_y idle walk run strafe_right walk_back strafe_left wave punch ...
col() { awk -v t="$1" -v c="$2" '$1==t {print $c}' demo.out; }
awk -v a="$(col 240 8)" 'BEGIN { exit !(a == 1.0) }' && ok "tick 240 (stick right): strafe_right weight 1" || bad "strafe_right at 240: $(col 240 8)"
awk -v a="$(col 300 9)" 'BEGIN { exit !(a == 1.0) }' && ok "tick 300 (stick back): walk_back weight 1" || bad "walk_back at 300: $(col 300 9)"
awk -v a="$(col 390 10)" 'BEGIN { exit !(a == 1.0) }' && ok "tick 390 (stick left): strafe_left weight 1" || bad "strafe_left at 390: $(col 390 10)"
awk -v a="$(col 150 7)" 'BEGIN { exit !(a == 1.0) }' && ok "tick 150 (full stick forward, speed 3.5): run weight 1" || bad "run at 150: $(col 150 7)"
grep -q "wrote ./locomotion.glb (601 keys, skin)" demo.out && ok "baked ./locomotion.glb: 601 keys" || bad "bake line: $(tail -1 demo.out)"
"$bin" import --list locomotion.glb >list.out 2>&1 || "$bin" import locomotion.glb -o l.bsclip >list.out 2>&1
grep -q "23 joints" list.out && ok "the .glb re-imports with 23 joints" || { bad "re-import"; head -5 list.out; }
"$bin" demo --locomotion --data x >/dev/null 2>err.out; rc=$?
[ $rc -eq 2 ] && grep -q "two different demos" err.out && ok "--locomotion with --data: exit 2" || bad "both: rc $rc"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
