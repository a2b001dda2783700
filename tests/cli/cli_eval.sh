#!/usr/bin/env bash
# `blendsync eval` as a user runs it: the JSON Lines format, filtered values against hand-computed
# expectations (no filter, dead zone, one SmoothDamp step worked in double precision), weights,
# --ticks, --hash (stable, sensitive to the script), --out (atomic), and every script error with its
# exact message and exit status 2. The pab example runs when ../shared is present.
# usage: cli_eval.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$work" && cd "$work" || exit 1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

# Simple1D idle 0 / walk 1.5, no filters.
cat > plain.json <<'JSON'
{ "parameters": { "speed": {} }, "root": "move",
  "nodes": { "move": { "type": "Simple1D", "parameter": "speed",
                       "children": [ { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.5 } ] } } }
JSON
printf 'tick,speed\n0,0.75\n2,0.1\n3,1.23457\n4,-3\n' > plain.csv
out=$("$bin" eval plain.json --script plain.csv 2>err.txt); rc=$?
check "eval exits 0" $rc
[ "$(wc -l <<<"$out")" -eq 5 ] && [ ! -s err.txt ]
check "default --ticks is the last row's tick + 1 (5 lines), nothing on stderr" $?
line0=$(sed -n 1p <<<"$out")
# 0.75 is the midpoint of 0 and 1.5: 0.5 / 0.5. No clip data: cycle length 1 s, so after one tick at 30 Hz
# the phase is 1/30 (raw 2184.5: printed 0.03333 or 0.03334).
grep -qE '^\{"tick": 0, "params": \{"speed": 0\.75\}, "weights": \{"idle": 0\.5, "walk": 0\.5\}, "phase": \{"move": 0\.0333[34]\}, "state_checksum": "[0-9a-f]{16}"\}$' <<<"$line0"
check "tick 0: exact line format, weights 0.5/0.5, phase 1/30, no pose_checksum without clips" $?
sed -n 2p <<<"$out" | grep -qF '{"tick": 1, "params": {"speed": 0.75}, "weights": {"idle": 0.5, "walk": 0.5}'
check "a target holds until the next row" $?
sed -n 3p <<<"$out" | grep -qF '"params": {"speed": 0.1}' && sed -n 4p <<<"$out" | grep -qF '"params": {"speed": 1.23457}' \
  && sed -n 5p <<<"$out" | grep -qF '"params": {"speed": -3}, "weights": {"idle": 1, "walk": 0}'
check "no filter: filtered values equal the targets exactly (0.1, 1.23457, -3 clamps to idle)" $?
# 0.1 of 1.5 -> walk = 0.1/1.5 = 0.066667 (raw 6554/98304 of 65536 = 4369.3)
sed -n 3p <<<"$out" | grep -qE '"weights": \{"idle": 0\.9333[0-9]*, "walk": 0\.0666[0-9]*\}'
check "speed 0.1 gives walk 1/15 and idle 14/15" $?
[ "$(sed -n 1p <<<"$out" | grep -oE '"state_checksum": "[0-9a-f]+"')" != "$(sed -n 3p <<<"$out" | grep -oE '"state_checksum": "[0-9a-f]+"')" ]
check "state checksums differ between different states" $?

out=$("$bin" eval plain.json --script plain.csv --ticks 3); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 3 ]
check "--ticks 3 gives 3 lines" $?
out=$("$bin" eval plain.json --script plain.csv --ticks 8); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 8 ] && sed -n 8p <<<"$out" | grep -qF '{"tick": 7, "params": {"speed": -3}'
check "--ticks 8 runs past the last row with its targets" $?

# Dead zone 0.5 with full scale 1.5: |x| <= 0.5 -> 0; x = 1 -> (1 - 0.5) * 1.5 / (1.5 - 0.5) = 0.75.
cat > dz.json <<'JSON'
{ "parameters": { "speed": { "dead_zone": 0.5, "dead_zone_range": 1.5 } }, "root": "move",
  "nodes": { "move": { "type": "Simple1D", "parameter": "speed",
                       "children": [ { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.5 } ] } } }
JSON
printf 'tick,speed\n0,1\n1,0.25\n2,-1\n3,1.5\n' > dz.csv
out=$("$bin" eval dz.json --script dz.csv); rc=$?
[ $rc -eq 0 ] && sed -n 1p <<<"$out" | grep -qF '"params": {"speed": 0.75}, "weights": {"idle": 0.5, "walk": 0.5}' \
  && sed -n 2p <<<"$out" | grep -qF '"params": {"speed": 0}' && sed -n 3p <<<"$out" | grep -qF '"params": {"speed": -0.75}' \
  && sed -n 4p <<<"$out" | grep -qF '"params": {"speed": 1.5}'
check "dead zone: 1 -> 0.75 (weights 0.5/0.5), 0.25 -> 0, -1 -> -0.75, full scale 1.5 -> 1.5" $?

# SmoothDamp, smooth_time 0.5 at 30 Hz from 0 towards 1. Unity's step in double precision:
# omega = 4, x = 4/30, e = 1/(1 + x + 0.48x^2 + 0.235x^3), output = 1 + (-1 - 4/30) * e.
cat > sd.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "smooth_time": 0.5 } }, "root": "move",
  "nodes": { "move": { "type": "Simple1D", "parameter": "speed",
                       "children": [ { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.5 } ] } } }
JSON
printf 'tick,speed\n0,1\n299,1\n' > sd.csv
out=$("$bin" eval sd.json --script sd.csv); rc=$?
v1=$(sed -n 1p <<<"$out" | sed -E 's/.*"params": \{"speed": ([-0-9.]+)\}.*/\1/')
awk -v got="$v1" 'BEGIN { x = 4 / 30; e = 1 / (1 + x + 0.48 * x * x + 0.235 * x * x * x); want = 1 + (-1 - 4 / 30) * e;
                          d = got - want; if (d < 0) d = -d; exit !(d < 2e-5 && got > 0 && got < 1) }'
check "SmoothDamp first step ($v1) matches Unity's formula in double within 2e-5" $?
sed -n 300p <<<"$out" | grep -qF '{"tick": 299, "params": {"speed": 1}, "weights": {"idle": 0.33333, "walk": 0.66667}'
check "SmoothDamp settles exactly on the target (1 -> idle 1/3, walk 2/3) within 10 s" $?
v2=$(sed -n 2p <<<"$out" | sed -E 's/.*"params": \{"speed": ([-0-9.]+)\}.*/\1/')
awk -v a="$v1" -v b="$v2" 'BEGIN { exit !(b > a) }'
check "SmoothDamp moves monotonically towards the target ($v1 < $v2)" $?

# --hash
h1=$("$bin" eval sd.json --script sd.csv --hash); rc1=$?
h2=$("$bin" eval sd.json --script sd.csv --hash); rc2=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ "$h1" = "$h2" ] && grep -qxE '[0-9a-f]{16}' <<<"$h1"
check "--hash prints one 16-hex-digit line, equal across two runs" $?
printf 'tick,speed\n0,1\n150,0.99998\n299,1\n' > sd2.csv
h3=$("$bin" eval sd.json --script sd2.csv --hash)
[ "$h3" != "$h1" ]
check "--hash changes when the script changes (one target 2^-16 off)" $?
h4=$("$bin" eval sd.json --script sd.csv --ticks 301 --hash)
[ "$h4" != "$h1" ]
check "--hash changes with one more tick" $?

# --out: atomic, same bytes as stdout, no temp file left
"$bin" eval sd.json --script sd.csv > stdout.jsonl
rm -f frames.jsonl
"$bin" eval sd.json --script sd.csv --out frames.jsonl > o.txt; rc=$?
[ $rc -eq 0 ] && cmp -s stdout.jsonl frames.jsonl && [ ! -s o.txt ] && [ -z "$(ls | grep -F '.tmp.')" ]
check "--out writes the same frames as stdout, prints nothing, leaves no temp file" $?
hout=$("$bin" eval sd.json --script sd.csv --out frames2.jsonl --hash); rc=$?
[ $rc -eq 0 ] && [ "$hout" = "$h1" ] && cmp -s frames2.jsonl stdout.jsonl
check "--out with --hash: frames to the file, the same hash on stdout" $?
echo "old content" > keep.jsonl
printf 'tick,speed\n0,abc\n' > bad.csv
"$bin" eval sd.json --script bad.csv --out keep.jsonl 2>/dev/null; rc=$?
[ $rc -eq 2 ] && [ "$(cat keep.jsonl)" = "old content" ] && [ -z "$(ls | grep -F '.tmp.')" ]
check "a failing run leaves an existing --out file untouched" $?

# errors: exit 2, exact message, nothing on stdout
err_case() { # name, expected stderr, args...
  local name=$1 want=$2
  shift 2
  local o
  o=$("$bin" eval "$@" 2>err.txt); local rc=$?
  if [ $rc -eq 2 ] && [ -z "$o" ] && [ "$(cat err.txt)" = "$want" ]; then check "$name" 0; else
    echo "  rc=$rc stdout=[$o]"; echo "  got:  $(cat err.txt)"; echo "  want: $want"; check "$name" 1; fi
}
err_case "bad number: line and column" 'blendsync eval: bad.csv:2:3: "abc" is not a number (column "speed")' sd.json --script bad.csv
printf 'tick,speed\n0,40000\n' > big.csv
err_case "number out of range" 'blendsync eval: big.csv:2:3: 40000 is outside the fixed-point range (-32767.99998 to 32767.99998)' sd.json --script big.csv
printf 'tick,speed,turn\n0,1,2\n' > unk.csv
err_case "unknown column" 'blendsync eval: unk.csv:1:12: unknown parameter "turn" (parameters: speed)' sd.json --script unk.csv
printf 'tick,speed,play:move\n0,1,walk@5\n' > play.csv
err_case "play: column on a node that is not a Switch refused" 'blendsync eval: play.csv:1:12: "play:move": node "move" is not a Switch node (switch nodes: none)' sd.json --script play.csv
printf 'tick,speed\n5,1\n3,1\n' > order.csv
err_case "unsorted ticks" "blendsync eval: order.csv:3:1: tick 3 does not follow the previous row's tick 5 (rows must be sorted by tick, one row per tick)" sd.json --script order.csv
printf 'tick,speed\n0,1,2\n' > count.csv
err_case "wrong field count" 'blendsync eval: count.csv:2:1: expected 2 fields (as the header), found 3' sd.json --script count.csv
printf 'tick,speed\n-1,1\n' > neg.csv
err_case "negative tick" 'blendsync eval: neg.csv:2:1: tick must be a whole number from 0 to 999999999, not "-1"' sd.json --script neg.csv
printf 'time,speed\n0,1\n' > hdr.csv
err_case "header must start with tick" 'blendsync eval: hdr.csv:1:1: the first column must be "tick" (header: tick,PARAM,...)' sd.json --script hdr.csv
printf 'tick,speed,speed\n0,1,1\n' > dup.csv
err_case "duplicate column" 'blendsync eval: dup.csv:1:12: duplicate column "speed"' sd.json --script dup.csv
: > empty.csv
err_case "empty script" 'blendsync eval: empty.csv: empty script (expected a header line "tick,PARAM,...")' sd.json --script empty.csv
printf 'tick,speed\n' > norows.csv
err_case "header only needs --ticks" 'blendsync eval: norows.csv: no rows: give --ticks N' sd.json --script norows.csv
out=$("$bin" eval sd.json --script norows.csv --ticks 2); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 2 ] && sed -n 1p <<<"$out" | grep -qF '"params": {"speed": 0}'
check "header only with --ticks 2: defaults for 2 ticks" $?
err_case "--ticks 0 refused" "blendsync eval: --ticks needs a whole number from 1 to 10000000, not '0'" sd.json --script sd.csv --ticks 0
printf '{ "parameters": { "speed": { "smooth_time": -1 } }, "root": "m", "nodes": { "m": { "type": "Simple1D", "parameter": "speed", "children": [ { "motion": "a", "threshold": 0 } ] } } }' > badcfg.json
err_case "config error: file, JSON path, message" 'blendsync eval: badcfg.json: /parameters/speed/smooth_time: expected a number >= 0 (seconds; 0 = no smoothing)' badcfg.json --script sd.csv
"$bin" eval sd.json > /dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -qF 'blendsync eval: missing --script INPUT.csv' err.txt
check "missing --script exits 2" $?
# blank lines and CRLF are accepted; empty cells keep the previous target
printf 'tick,speed\r\n0,0.75\r\n\r\n2,\r\n' > crlf.csv
out=$("$bin" eval plain.json --script crlf.csv); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 3 ] && sed -n 3p <<<"$out" | grep -qF '"params": {"speed": 0.75}'
check "CRLF, blank lines and empty cells (target unchanged)" $?

# Actions (docs/actions.md): the demo graph's punch (a one-shot, hit window [0.4, 0.6) s = [26214,
# 39322) raw) started by locomotion_path.csv's trigger in tick 300 is at k/30 s after tick 299 + k: the
# window opens in tick 311 (12/30 is past 0.399994), is open after 311..317 and closes in tick 318
# (19/30 is past 0.600006, 18/30 is not). Graphs without events print no "actions".
"$bin" eval "$src/scripts/demo/humanoid_locomotion.json" --script "$src/scripts/demo/locomotion_path.csv" \
  --ticks 330 >demo.jsonl 2>/dev/null
hit='{"name": "hit", "motion": "punch", "node": "upper", "child": 2, "kind": "range"'
got=$(grep -nF "$hit" demo.jsonl | cut -d: -f1 | tr '\n' ' ')
[ "$got" = "312 313 314 315 316 317 318 319 " ] \
  && sed -n 312p demo.jsonl | grep -qF "$hit, \"enters\": 1, \"exits\": 0, \"active\": 1, \"payload\": 10}], \"state_checksum\"" \
  && sed -n 319p demo.jsonl | grep -qF "$hit, \"enters\": 0, \"exits\": 1, \"active\": 0, \"payload\": 10}]" \
  && sed -n 311p demo.jsonl | grep -qF '"actions": [], "state_checksum"'
check "actions: the demo's hit window opens in tick 311, closes in tick 318 (lines: $got)" $?
! grep -q '"actions"' <<<"$("$bin" eval plain.json --script plain.csv 2>/dev/null)"
check "actions: a graph without events prints no \"actions\"" $?

# The pab example (needs ../shared beside the project, as its config's relative data path says).
ex="$src/scripts/examples/pab_locomotion.json"
if [ -f "$src/../shared/data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf" ]; then
  p1=$("$bin" eval "$ex" --script "$src/scripts/examples/pab_speed_ramp.csv" --hash 2>/dev/null); rc1=$?
  p2=$("$bin" eval "$ex" --script "$src/scripts/examples/pab_speed_ramp.csv" --hash 2>/dev/null); rc2=$?
  [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ "$p1" = "$p2" ] && grep -qxE '[0-9a-f]{16}' <<<"$p1"
  check "pab example: --hash stable across runs ($p1)" $?
  out=$("$bin" eval "$ex" --script "$src/scripts/examples/pab_speed_ramp.csv" 2>/dev/null); rc=$?
  first=$(sed -n 1p <<<"$out"); last=$(tail -n 1 <<<"$out")
  [ $rc -eq 0 ] && grep -qE '"pose_checksum": "[0-9a-f]{16}"\}$' <<<"$first" \
    && grep -qF '"weights": {"walk": 1, "jog": 0, "run": 0}' <<<"$first" \
    && grep -qF '"params": {"speed": 1.06914}, "weights": {"walk": 1, "jog": 0, "run": 0}' <<<"$last"
  # 1.06913 is raw 70067 (70066.5 rounds up), which prints back as its nearest 5-digit text 1.06914
  check "pab example: pose checksums present, starts and settles on walk" $?
  grep -q '"run": 1}' <<<"$out"
  check "pab example: the ramp reaches pure run" $?
  ! grep -q '"root_motion"' <<<"$out"
  check "pab example (root_motion keep): no root_motion field" $?
  # The same graph with "root_motion": "extract", held at the walk threshold (1.06913 m/s, the Hips
  # speed measured from the clip data) for 90 ticks at 30 Hz: the extracted deltas add up to about
  # 3 s x 1.06913 m/s = 3.21 m.
  sed -e "s#\.\./\.\./\.\./shared#$src/../shared#g" -e 's#"root_motion": *"keep"#"root_motion": "extract"#' "$ex" > rm.json
  grep -q '"root_motion": "extract"' rm.json || echo "FAIL: the example has no \"root_motion\": \"keep\" to switch"
  printf 'tick,speed\n0,1.06913\n' > walk.csv
  out=$("$bin" eval rm.json --script walk.csv --ticks 90 2>/dev/null); rc=$?
  dist=$(grep -o '"root_motion": \[[^]]*\]' <<<"$out" | tr -d '[]",' | awk '{x+=$2; z+=$4} END {printf "%.4f", sqrt(x*x+z*z)}')
  [ $rc -eq 0 ] && [ "$(grep -c '"root_motion": \[' <<<"$out")" -eq 90 ] \
    && awk -v d="$dist" 'BEGIN {exit !(d > 3.05 && d < 3.37)}'
  check "pab example (root_motion extract): 90 deltas add up to ~3.21 m at walk speed (got $dist m)" $?
else
  echo "skip pab example (no ../shared)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
