#!/usr/bin/env bash
# `blendsync synctest` as a user (and CI) runs it: the demo graph (scripts/demo/humanoid_locomotion.json,
# builtin:humanoid clips, SmoothDamp on speed) with a speed ramp script passes (exit 0, "no mismatch"),
# with and without poses and fresh poisoned instances; a Switch config with play: columns and fades passes;
# the counts follow io/synctest.h by hand: N ticks with distance D -> N - D + 1 checks of D + 1 comparisons
# per kind (3 kinds with fresh instances, 1 without); the inputs are eval's (the first run's last checksum
# equals eval's last state_checksum, for several --ticks); the JSON form; every error exits 2.
# A mismatch (exit 1) cannot be provoked from a correct build: tests/unit/replay/test_synctest.c plants bugs.
# usage: cli_synctest.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
demo=$src/scripts/demo/humanoid_locomotion.json
mkdir -p "$work" && cd "$work" || exit 1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
line() { sed -n "$1p" <<<"$2"; }
eval_last() { # config script ticks -> eval's last state_checksum
  "$bin" eval "$1" --script "$2" --ticks "$3" 2>/dev/null | tail -1 | grep -oE '"state_checksum": "[0-9a-f]{16}"' | cut -d'"' -f4
}

# The speed ramp: idle, walk, run, slow down, sprint past the last threshold, stop (600 ticks at 30 Hz).
printf 'tick,speed\n0,0\n60,1.4\n150,3.5\n240,0.5\n300,6\n420,0\n599,0\n' > ramp.csv

# --- the CI run on the demo graph: 600 ticks, D = 4 (default), fresh on: 597 checks * 3 kinds * 5 = 8955
out=$("$bin" synctest "$demo" --script ramp.csv 2>err.txt); rc=$?
check "demo graph + speed ramp: exit 0" $rc
[ "$(line 1 "$out")" = "synctest: $demo: 600 ticks, check distance 4, fresh poisoned simulations: yes, checksum: state" ]
check "header line (600 ticks = last row + 1, D = 4 by default, fresh on)" $?
[ "$(line 2 "$out")" = "ticks checked: 597 (8955 comparisons)" ]
check "597 checks, 597 * 3 * 5 = 8955 comparisons" $?
line 3 "$out" | grep -qE '^last tick 599: checksum [0-9a-f]{16}$'
check "last tick line" $?
[ "$(line 4 "$out")" = "no mismatch" ] && [ "$(wc -l <<<"$out")" -eq 4 ]
check "\"no mismatch\", 4 lines" $?
grep -q '^note: builtin:humanoid' err.txt && [ "$(grep -vc '^note: ' err.txt)" -eq 0 ]
check "stderr: the loader's notes only" $?

# the same run with poses in the checksum
out=$("$bin" synctest "$demo" --script ramp.csv --poses 2>/dev/null); rc=$?
[ $rc -eq 0 ] && line 1 "$out" | grep -qF 'checksum: state+pose' && [ "$(line 4 "$out")" = "no mismatch" ]
check "--poses: exit 0, checksum state+pose, no mismatch" $?

# the first run drives exactly eval's inputs: last checksum = eval's last state_checksum (no --poses)
for n in 1 61 151 300 600; do
  d=4; [ $n -lt 4 ] && d=1
  got=$("$bin" synctest "$demo" --script ramp.csv --ticks $n --check-distance $d 2>/dev/null | sed -n 3p | awk '{print $5}')
  want=$(eval_last "$demo" ramp.csv $n)
  [ -n "$want" ] && [ "$got" = "$want" ]
  check "--ticks $n: last checksum $got = eval's $want" $?
done

# --no-fresh, another distance: 600 - 9 + 1 = 592 checks * 1 kind * 10 = 5920
out=$("$bin" synctest "$demo" --script ramp.csv --no-fresh --check-distance 9 2>/dev/null); rc=$?
[ $rc -eq 0 ] && line 1 "$out" | grep -qF 'check distance 9, fresh poisoned simulations: no' \
  && [ "$(line 2 "$out")" = "ticks checked: 592 (5920 comparisons)" ] && [ "$(line 4 "$out")" = "no mismatch" ]
check "--no-fresh --check-distance 9: 592 checks, 5920 comparisons, no mismatch" $?
# D = 64 (the limit) over 64 ticks: one check of 65 states * 3 kinds
out=$("$bin" synctest "$demo" --script ramp.csv --ticks 64 --check-distance 64 2>/dev/null); rc=$?
[ $rc -eq 0 ] && [ "$(line 2 "$out")" = "ticks checked: 1 (195 comparisons)" ]
check "D = 64 over 64 ticks: 1 check, 195 comparisons" $?

# --json
out=$("$bin" synctest "$demo" --script ramp.csv --ticks 100 --check-distance 2 --json 2>/dev/null); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -qE '^\{"config": ".*humanoid_locomotion\.json", "ticks": 100, "check_distance": 2, "fresh": true, "poses": false, "ticks_checked": 99, "comparisons": 891, "failed_comparisons": 0, "mismatch_count": 0, "last_checksum": "[0-9a-f]{16}", "mismatches": \[\]\}$' <<<"$out"
check "--json: one object, 99 checks * 3 * 3 = 891 comparisons, empty mismatch list" $?

# A Switch (sync none: every state its own clock) over a SmoothDamp Simple1D and a time-scaled run, with
# play: columns (fades, carry, a mid-fade interruption) and a second parameter with empty cells.
cat > sw.json <<'JSON'
{ "tick_rate": 30,
  "parameters": { "speed": { "smooth_time": 0.3, "max_speed": 8 }, "lean": { "smooth_time": 0.1 } },
  "root": "act",
  "nodes": {
    "act": { "type": "Switch", "initial": "loco", "children": [ { "motion": "loco" }, { "motion": "run", "time_scale": 1.5 }, { "motion": "idle" } ] },
    "loco": { "type": "Simple1D", "parameter": "speed", "sync": "normalized",
              "children": [ { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" }, "run": { "source": "builtin:humanoid" } } }
JSON
printf 'tick,speed,lean,play:act\n0,0.5,0.2,\n20,2,,run fade=10\n25,,0.7,idle fade=6 carry\n40,3.5,,loco fade=15 carry\n90,,-1,run\n91,1,,loco fade=4\n179,0,0,\n' > sw.csv
out=$("$bin" synctest sw.json --script sw.csv --poses 2>/dev/null); rc=$?
[ $rc -eq 0 ] && [ "$(line 2 "$out")" = "ticks checked: 177 (2655 comparisons)" ] && [ "$(line 4 "$out")" = "no mismatch" ]
check "Switch config with play: columns, --poses: 177 checks, 2655 comparisons, no mismatch" $?
for n in 21 26 41 91 92 180; do
  got=$("$bin" synctest sw.json --script sw.csv --ticks $n 2>/dev/null | sed -n 3p | awk '{print $5}')
  want=$(eval_last sw.json sw.csv $n)
  [ -n "$want" ] && [ "$got" = "$want" ]
  check "Switch config --ticks $n: last checksum = eval's" $?
done

# --- errors: exit 2 with a message
expect_error() { # name, expected stderr substring, args...
  local name=$1 msg=$2
  shift 2
  "$bin" synctest "$@" >out.txt 2>err.txt
  local rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$msg" err.txt && [ ! -s out.txt ]
  check "error: $name (exit 2)" $?
}
expect_error "no script" "missing --script INPUT.csv" "$demo"
expect_error "no config" "missing CONFIG" --script ramp.csv
expect_error "D = 0" "--check-distance needs a whole number from 1 to 64, not '0'" "$demo" --script ramp.csv --check-distance 0
expect_error "D = 65" "--check-distance needs a whole number from 1 to 64, not '65'" "$demo" --script ramp.csv --check-distance 65
expect_error "ticks < D" "3 ticks are fewer than the check distance 4" "$demo" --script ramp.csv --ticks 3
expect_error "--ticks 0" "--ticks needs a whole number from 1 to" "$demo" --script ramp.csv --ticks 0
expect_error "unknown option" "unknown option '--fast'" "$demo" --script ramp.csv --fast
expect_error "missing script file" "nope.csv: cannot read" "$demo" --script nope.csv
printf 'tick,sped\n0,1\n' > bad.csv
expect_error "unknown parameter column" "bad.csv:1:" "$demo" --script bad.csv
cat > noclips.json <<'JSON'
{ "parameters": { "speed": {} }, "root": "move",
  "nodes": { "move": { "type": "Simple1D", "parameter": "speed",
                       "children": [ { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.5 } ] } } }
JSON
expect_error "--poses without clips" "--poses: noclips.json binds no clips" noclips.json --script ramp.csv --poses
out=$("$bin" synctest noclips.json --script ramp.csv 2>/dev/null); rc=$?
[ $rc -eq 0 ] && [ "$(line 4 "$out")" = "no mismatch" ]
check "a config without clips: blend state only, no mismatch" $?

# help and registration
"$bin" synctest --help | grep -q '^usage: blendsync synctest CONFIG --script INPUT.csv'
check "synctest --help" $?
"$bin" --help | grep -qE '^  synctest +rewind and re-simulate'
check "listed by blendsync --help" $?

echo "cli_synctest: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
