#!/usr/bin/env bash
# The demo graph (scripts/demo/humanoid_locomotion.json, docs/demo.md) under `blendsync eval` with a
# joystick path and play:upper actions. Expected facts, worked from the graph and the docs:
#   - the direction blend: with the stick forward (move_x 0, move_y 1) no strafe clip plays; when move_x
#     goes to 1 (move_y 0) strafe_right rises tick after tick (SmoothDamp, smooth_time 0.2 s: after
#     20 ticks = 0.667 s a critically damped step has covered 1 - (1 + 10 t) e^(-10 t) = 99.0 %, so
#     > 0.9) while strafe_left stays 0; at move_x -1 strafe_left rises and strafe_right falls;
#     back (move_y -1, in tick 90) gives walk_back (> 0.9 after 19 ticks: 98.7 %);
#   - the Switch "upper" (docs/graph-config.md: a trigger in tick t with fade F gives the new state
#     round(k/F) after tick t + k - 1): "wave fade=6" in tick 70 -> wave 1/6 = 0.16667 at tick 70,
#     3/6 = 0.5 at tick 72, alone with weight 1 from tick 75 on; then "punch fade=6" at 100 -> punch 1 at 105,
#     "move fade=6" at 120 -> move alone at 125;
#   - the upper layer's state "move" is the locomotion itself: until the first trigger the pose is
#     bit for bit the pose of the same graph without the layer; with wave playing it is not; the base
#     (legs) does not depend on the layer: leaf weights are the base's, wave and punch stay 0 there;
#   - speed 3.5 forward: run only, at the end.
# usage: cli_demo_graph.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
graph="$src/scripts/demo/humanoid_locomotion.json"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
tickline() { grep -E "^\{\"tick\": $1," <<<"$2"; }
# the weight of motion $2 in tick $1's line (base leaf weights), as a decimal
weight() { tickline "$1" "$3" | sed -E "s/.*\"weights\": \{[^}]*\"$2\": ([-0-9.]+).*/\1/"; }
gt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }

cat > path.csv <<'CSV'
tick,speed,move_x,move_y,play:upper
0,1.4,0,1,
30,,1,0,
60,,-1,0,
70,,,,wave fade=6
90,,0,-1,
100,,,,punch fade=6
110,3.5,0,1,
120,,,,move fade=6
CSV
out=$("$bin" eval "$graph" --script path.csv --ticks 150 2>err.txt); rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <<<"$out")" -eq 150 ]
check "eval of the demo graph: exit 0, 150 ticks" $?
grep -q 'note: builtin:humanoid: 8 animations' err.txt
check "the built-in humanoid offers the 8 clips the graph names (note on stderr)" $?

ok=0
for t in 0 10 29; do
  [ "$(weight $t strafe_right "$out")" = 0 ] && [ "$(weight $t strafe_left "$out")" = 0 ] || ok=1
done
check "stick forward: no strafe weight" $ok

ok=0
prev=0
for t in $(seq 30 45); do
  w=$(weight $t strafe_right "$out")
  gt "$w" "$prev" || ok=1
  [ "$(weight $t strafe_left "$out")" = 0 ] || ok=1
  prev=$w
done
gt "$(weight 50 strafe_right "$out")" 0.9 || ok=1
check "move_x -> 1: strafe_right rises every tick from 30 and passes 0.9 by tick 50, strafe_left stays 0" $ok

ok=0
gt "$(weight 68 strafe_left "$out")" "$(weight 62 strafe_left "$out")" || ok=1
gt "$(weight 62 strafe_right "$out")" "$(weight 68 strafe_right "$out")" || ok=1
gt "$(weight 85 strafe_left "$out")" 0.9 || ok=1
check "move_x -> -1: strafe_left rises, strafe_right falls" $ok

gt "$(weight 109 walk_back "$out")" 0.9
check "stick back: walk_back" $?

tickline 69 "$out" | grep -qF '"switches": {"upper": [["move", 1]]}'
check "tick 69: the upper switch plays move (the initial state)" $?
tickline 70 "$out" | grep -qF '"switches": {"upper": [["move", 0.83333], ["wave", 0.16667]]}'
check "tick 70: wave 1/6 in the trigger's tick" $?
tickline 72 "$out" | grep -qF '"switches": {"upper": [["move", 0.5], ["wave", 0.5]]}'
check "tick 72: wave 3/6" $?
ok=0
for t in 75 80 99; do tickline $t "$out" | grep -qF '"switches": {"upper": [["wave", 1]]}' || ok=1; done
check "ticks 75..99: wave alone, weight 1, after the 6-tick fade" $ok
tickline 105 "$out" | grep -qF '"switches": {"upper": [["punch", 1]]}'
check "tick 105: punch 1" $?
tickline 125 "$out" | grep -qF '"switches": {"upper": [["move", 1]]}'
check "tick 125: back to move" $?
ok=0
for t in 75 105; do
  [ "$(weight $t wave "$out")" = 0 ] && [ "$(weight $t punch "$out")" = 0 ] || ok=1
done
check "the actions play in the layer only: the base's leaf weights of wave and punch stay 0" $ok

ok=0
gt "$(weight 149 run "$out")" 0.99 || ok=1
[ "$(weight 149 strafe_left "$out")" = 0 ] || ok=1
check "speed 3.5 forward at the end: run" $ok

# the layer in state "move" is transparent: the same graph without "layers" gives the same poses
if command -v python3 >/dev/null; then
  python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); del g["layers"]; json.dump(g, open("nolayer.json","w"))' "$graph"
  base=$("$bin" eval nolayer.json --script path.csv --ticks 150 2>/dev/null)
  pc() { grep -o '"pose_checksum": "[0-9a-f]*"' <<<"$1" | sed -n "$2"; }
  [ -n "$(pc "$out" 1,70p)" ] && [ "$(pc "$out" 1,70p)" = "$(pc "$base" 1,70p)" ]
  check "ticks 0..69 (state move): poses bit for bit those of the graph without the layer" $?
  [ "$(pc "$out" 76p)" != "$(pc "$base" 76p)" ]
  check "tick 75 (wave playing): the layer changes the pose" $?
fi

# the same script twice: the same bits
out2=$("$bin" eval "$graph" --script path.csv --ticks 150 2>/dev/null)
[ "$out" = "$out2" ]
check "deterministic: a second run prints the same lines" $?

echo "cli_demo_graph: $pass passed, $fail failed"
[ $fail -eq 0 ]
