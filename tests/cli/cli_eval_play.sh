#!/usr/bin/env bash
# `blendsync eval` / `bake` with Switch nodes and play:NODE script columns (io/script.h), layers and
# "builtin:humanoid" clips in configs. Expected weights are hand-worked from instance.h's rule
# w = (d * 65536 + F / 2) / F (integer division) after tick t + d - 1 for a trigger in tick t:
#   F = 4: 16384, 32768, 49152, 65536 -> 0.25, 0.5, 0.75, 1;
#   F = 3: (65536 + 1) / 3 = 21845 (0.33333), (131072 + 1) / 3 = 43691 (0.66667), and the older state
#          keeps 65536 - 21845 = 43691 (0.66667), 65536 - 43691 = 21845 (0.33333);
#   fade 0 (default): the new state alone (1) in the trigger's tick.
# Every script error prints its exact message and exits 2.
# usage: cli_eval_play.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
mkdir -p "$work" && cd "$work" || exit 1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
line() { sed -n "$1p" <<<"$2"; }

# Root Switch "act" over idle / walk / run (no clips: weights only), initial idle.
cat > sw.json <<'JSON'
{ "parameters": { "speed": {} }, "root": "act",
  "nodes": { "act": { "type": "Switch", "initial": "idle",
                      "children": [ { "motion": "idle" }, { "motion": "walk" }, { "motion": "run" } ] } } }
JSON
printf 'tick,play:act\n0,walk fade=4\n5,run fade=3 carry\n6,\n7,idle\n' > sw.csv
out=$("$bin" eval sw.json --script sw.csv --ticks 9 2>err.txt); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 9 ] && [ ! -s err.txt ]
check "eval with a play: column exits 0, 9 lines, nothing on stderr" $?
line 1 "$out" | grep -qE '^\{"tick": 0, "params": \{"speed": 0\}, "weights": \{"idle": 0\.75, "walk": 0\.25, "run": 0\}, "phase": \{"act": [0-9.]+\}, "switches": \{"act": \[\["idle", 0\.75\], \["walk", 0\.25\]\]\}, "state_checksum": "[0-9a-f]{16}"\}$'
check "tick 0: exact line format with \"switches\", walk 1/4 in the trigger's tick" $?
line 2 "$out" | grep -qF '"weights": {"idle": 0.5, "walk": 0.5, "run": 0}' \
  && line 2 "$out" | grep -qF '"switches": {"act": [["idle", 0.5], ["walk", 0.5]]}'
check "tick 1: 2/4" $?
line 3 "$out" | grep -qF '"weights": {"idle": 0.25, "walk": 0.75, "run": 0}'
check "tick 2: 3/4" $?
line 4 "$out" | grep -qF '"weights": {"idle": 0, "walk": 1, "run": 0}' && line 4 "$out" | grep -qF '"switches": {"act": [["walk", 1]]}'
check "tick 3: 4/4, the stack collapsed to walk alone" $?
line 5 "$out" | grep -qF '"switches": {"act": [["walk", 1]]}'
check "tick 4: no trigger (no row), walk holds" $?
line 6 "$out" | grep -qF '"weights": {"idle": 0, "walk": 0.66667, "run": 0.33333}' \
  && line 6 "$out" | grep -qF '"switches": {"act": [["walk", 0.66667], ["run", 0.33333]]}'
check "tick 5: fade=3 carry: run 1/3 (raw 21845), walk 2/3 (raw 43691)" $?
line 7 "$out" | grep -qF '"weights": {"idle": 0, "walk": 0.33333, "run": 0.66667}'
check "tick 6: an empty play cell triggers nothing: run 2/3 continues" $?
line 8 "$out" | grep -qF '"weights": {"idle": 1, "walk": 0, "run": 0}' && line 8 "$out" | grep -qF '"switches": {"act": [["idle", 1]]}'
check "tick 7: 'idle' without fade= is instant (fade 0)" $?

# A trigger lasts one tick only: playing the state already newest is ignored, so a repeated cell does not
# restart a fade (instance.h); here tick 1 repeats "walk fade=4" mid-fade and the fade goes on: 0.5 at tick 1.
printf 'tick,play:act\n0,walk fade=4\n1,walk fade=4\n' > rep.csv
out=$("$bin" eval sw.json --script rep.csv --ticks 4); rc=$?
[ $rc -eq 0 ] && line 2 "$out" | grep -qF '"walk": 0.5,' && line 4 "$out" | grep -qF '"walk": 1,'
check "a repeated play of the fading state does not restart its fade" $?

# options in any order, carry without fade, spaces around the cell
printf 'tick,speed,play:act\n0,1, walk   carry \n1,,run carry fade=2\n' > opt.csv
out=$("$bin" eval sw.json --script opt.csv --ticks 3); rc=$?
[ $rc -eq 0 ] && line 1 "$out" | grep -qF '"params": {"speed": 1}, "weights": {"idle": 0, "walk": 1, "run": 0}' \
  && line 2 "$out" | grep -qF '"switches": {"act": [["walk", 0.5], ["run", 0.5]]}' \
  && line 3 "$out" | grep -qF '"switches": {"act": [["run", 1]]}'
check "STATE first, options in any order; fade=2 gives 1/2 then 1" $?

# A Switch whose states are a node and a motion, under a nested config; the switch is not the root.
cat > nest.json <<'JSON'
{ "parameters": { "speed": {} }, "root": "top",
  "nodes": {
    "top": { "type": "Simple1D", "parameter": "speed", "children": [ { "motion": "move_or_act", "threshold": 0 } ] },
    "move_or_act": { "type": "Switch", "initial": "loco", "children": [ { "motion": "loco" }, { "motion": "wave" } ] },
    "loco": { "type": "Simple1D", "parameter": "speed",
              "children": [ { "motion": "walk", "threshold": 0 }, { "motion": "run", "threshold": 2 } ] } } }
JSON
printf 'tick,speed,play:move_or_act\n0,1,wave fade=4\n' > nest.csv
out=$("$bin" eval nest.json --script nest.csv --ticks 4); rc=$?
# speed 1 of 2: loco is walk 0.5 / run 0.5; times the switch weight 3/4 of loco after tick 0. Motions
# are numbered in order of first use: wave (a child of move_or_act), then walk, run (of loco).
[ $rc -eq 0 ] && line 1 "$out" | grep -qF '"weights": {"wave": 0.25, "walk": 0.375, "run": 0.375}' \
  && line 1 "$out" | grep -qF '"switches": {"move_or_act": [["loco", 0.75], ["wave", 0.25]]}' \
  && line 4 "$out" | grep -qF '"weights": {"wave": 1, "walk": 0, "run": 0}'
check "nested switch: a node state (loco) and a motion state; weights 0.75 x 0.5 = 0.375" $?

# --hash is stable and sensitive to the play column
h1=$("$bin" eval sw.json --script sw.csv --ticks 9 --hash)
h2=$("$bin" eval sw.json --script sw.csv --ticks 9 --hash)
printf 'tick,play:act\n0,walk fade=5\n5,run fade=3 carry\n6,\n7,idle\n' > sw5.csv
h3=$("$bin" eval sw.json --script sw5.csv --ticks 9 --hash)
[ "$h1" = "$h2" ] && [ "$h1" != "$h3" ] && grep -qxE '[0-9a-f]{16}' <<<"$h1"
check "--hash stable across runs and changed by fade=5 instead of 4" $?

# errors: exit 2, exact message, nothing on stdout
err_case() { # name, expected stderr, args...
  local name=$1 want=$2
  shift 2
  local o
  o=$("$bin" "$@" 2>err.txt); local rc=$?
  local got
  got=$(grep -v '^note: ' err.txt) # the loader's notes (sources loaded) come first
  if [ $rc -eq 2 ] && [ -z "$o" ] && [ "$got" = "$want" ]; then check "$name" 0; else
    echo "  rc=$rc stdout=[$o]"; echo "  got:  $got"; echo "  want: $want"; check "$name" 1; fi
}
printf 'tick,play:act\n0,jump\n' > e1.csv
err_case "unknown state" 'blendsync eval: e1.csv:2:3: no state "jump" in switch "act" (states: idle, walk, run)' eval sw.json --script e1.csv
printf 'tick,play:act\n0,walk fade=x\n' > e2.csv
err_case "bad fade" 'blendsync eval: e2.csv:2:13: fade must be a whole number of ticks from 0 to 1048576, not "x"' eval sw.json --script e2.csv
printf 'tick,play:act\n0,walk fade=1048577\n' > e3.csv
err_case "fade beyond the maximum" 'blendsync eval: e3.csv:2:13: fade must be a whole number of ticks from 0 to 1048576, not "1048577"' eval sw.json --script e3.csv
printf 'tick,play:act\n0,walk fade=2 fade=3\n' > e4.csv
err_case "fade twice" 'blendsync eval: e4.csv:2:15: unexpected "fade=3" (a play cell is: STATE [fade=N] [carry], each option once)' eval sw.json --script e4.csv
printf 'tick,play:act\n0,walk slow\n' > e5.csv
err_case "unknown option" 'blendsync eval: e5.csv:2:8: unexpected "slow" (a play cell is: STATE [fade=N] [carry], each option once)' eval sw.json --script e5.csv
printf 'tick,play:acts\n0,walk\n' > e6.csv
err_case "unknown node" 'blendsync eval: e6.csv:1:6: "play:acts": no node named "acts" (switch nodes: act)' eval sw.json --script e6.csv
printf 'tick,play:loco\n0,walk\n' > e7.csv
err_case "node that is not a Switch" 'blendsync eval: e7.csv:1:6: "play:loco": node "loco" is not a Switch node (switch nodes: move_or_act)' eval nest.json --script e7.csv
printf 'tick,play:act,play:act\n0,walk,run\n' > e8.csv
err_case "duplicate play column" 'blendsync eval: e8.csv:1:15: duplicate column "play:act"' eval sw.json --script e8.csv
printf 'tick,play:act\n0,walk,run\n' > e9.csv
err_case "field count counts play columns" 'blendsync eval: e9.csv:2:1: expected 2 fields (as the header), found 3' eval sw.json --script e9.csv


# config errors for Switch nodes and layers reach the CLI with their paths
printf '{"parameters": {"p": {}}, "root": "s", "nodes": {"s": {"type": "Switch", "initial": "c", "children": [{"motion": "a"}]}}}' > bad1.json
err_case "Switch config error with its path" 'blendsync eval: bad1.json: /nodes/s/initial: no child "c" (children: a)' eval bad1.json --script sw.csv

# builtin:humanoid + switch + layers: pose checksums, bake with triggers
cat > hum.json <<'JSON'
{ "parameters": { "speed": {}, "wave": { "default": 0.8 } }, "root": "act",
  "nodes": {
    "act": { "type": "Switch", "initial": "loco", "children": [ { "motion": "loco" }, { "motion": "run" } ] },
    "loco": { "type": "Simple1D", "parameter": "speed",
              "children": [ { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 } ] },
    "upper": { "type": "Simple1D", "parameter": "speed", "children": [ { "motion": "run", "threshold": 0 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } },
  "layers": [ { "node": "upper", "weight_parameter": "wave",
                "mask": { "joints": [ "spine_01" ], "include_children": true } } ] }
JSON
printf 'tick,speed,play:act\n0,1.4,\n10,,run fade=6\n20,,loco fade=6 carry\n29,0,\n' > hum.csv
out=$("$bin" eval hum.json --script hum.csv 2>err.txt); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 30 ] && grep -qF 'note: builtin:humanoid: 3 animations' err.txt \
  && [ "$(grep -c '"pose_checksum": "[0-9a-f]\{16\}"' <<<"$out")" -eq 30 ]
check "builtin:humanoid config with a switch and a layer: 30 frames with pose checksums" $?
# tick 10: run 1/6 = (65536 + 3) / 6 = 10923 (0.16667); loco 54613 (0.83333), all walk at speed 1.4
line 11 "$out" | grep -qF '"weights": {"run": 0.16667, "idle": 0, "walk": 0.83333}'
check "tick 10: run fades in at 1/6 (raw 10923), loco (all walk) 5/6" $?
tr -d '\n' < hum.json | sed 's/, *"layers": \[.*\] *}$/ }/' > nolayer.json
grep -q layers nolayer.json && echo "FAIL: nolayer.json still has layers"
p_layer=$(line 5 "$out" | grep -oE '"pose_checksum": "[0-9a-f]+"')
p_base=$("$bin" eval nolayer.json --script hum.csv 2>/dev/null | sed -n 5p | grep -oE '"pose_checksum": "[0-9a-f]+"')
[ -n "$p_base" ] && [ -n "$p_layer" ] && [ "$p_base" != "$p_layer" ]
check "the layer changes the pose (pose checksum differs from the same config without layers)" $?
"$bin" bake hum.json --script hum.csv -o a.glb 2>/dev/null; rc1=$?
"$bin" bake hum.json --script hum.csv -o b.glb 2>/dev/null; rc2=$?
printf 'tick,speed,play:act\n0,1.4,\n10,,run fade=2\n20,,loco fade=6 carry\n29,0,\n' > hum2.csv
"$bin" bake hum.json --script hum2.csv -o c.glb 2>/dev/null; rc3=$?
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && cmp -s a.glb b.glb && ! cmp -s a.glb c.glb
check "bake passes triggers: same script -> same bytes, another fade -> another file" $?

printf 'tick,play:act\n0,jump\n' > e10.csv
err_case "bake checks play cells too" 'blendsync bake: e10.csv:2:3: no state "jump" in switch "act" (states: loco, run)' bake hum.json --script e10.csv -o never.glb
[ ! -e never.glb ]
check "a failed bake writes nothing" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
