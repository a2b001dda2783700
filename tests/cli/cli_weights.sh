#!/usr/bin/env bash
# `blendsync weights` as a user runs it: plain and --json output against hand-computed weights,
# nan/inf/out-of-range notes, layout warnings, error messages and exit codes.
# usage: cli_weights.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
mkdir -p "$work" && cd "$work" || exit 1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

# Simple1D idle 0 / walk 1.5; the default speed 0.375 is a quarter of the way: idle 0.75, walk 0.25.
cat > simple.json <<'EOF'
{ "parameters": { "speed": { "default": 0.375 } },
  "root": "move",
  "nodes": { "move": { "type": "Simple1D", "parameter": "speed",
                       "children": [ { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.5 } ] } } }
EOF

# Nested: top Direct [loco (a), move (b)]; loco = the Simple1D above; move = SimpleDirectional2D with
# idle at the centre and four directions at radius 1.
cat > loco.json <<'EOF'
{
  "parameters": { "speed": { "default": 0.75 }, "x": {}, "y": {}, "a": { "default": 0.5 }, "b": { "default": 0.5 } },
  "root": "top",
  "nodes": {
    "top": { "type": "Direct", "children": [ { "motion": "loco", "parameter": "a" }, { "motion": "move", "parameter": "b" } ] },
    "loco": { "type": "Simple1D", "parameter": "speed",
              "children": [ { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.5 } ] },
    "move": { "type": "SimpleDirectional2D", "parameters": ["x", "y"],
              "children": [ { "motion": "idle", "position": [0, 0] }, { "motion": "fwd", "position": [0, 1] },
                            { "motion": "right", "position": [1, 0] }, { "motion": "back", "position": [0, -1] },
                            { "motion": "left", "position": [-1, 0] } ] }
  }
}
EOF

# speed 0.75 is the midpoint of 0 and 1.5: 0.5 / 0.5, raw 32768 each.
out=$("$bin" weights simple.json --set speed=0.75 --json 2>err.txt); rc=$?
check "weights --json exits 0" $rc
[ "$out" = '{"node": "move", "weights": [{"motion": "idle", "weight": 0.5, "raw": 32768}, {"motion": "walk", "weight": 0.5, "raw": 32768}], "leaves": {"idle": 0.5, "walk": 0.5}}' ]
check "--json prints exactly the expected object" $?
[ "$(wc -l <<<"$out")" -eq 1 ] && [ ! -s err.txt ]
check "--json is one line and nothing on stderr" $?

out=$("$bin" weights simple.json); rc=$?
check "plain output exits 0" $rc
grep -qE '^node move \(Simple1D\), speed=0\.375$' <<<"$out"
check "plain output names the node, type and parameter default" $?
grep -qE '^ +idle +0\.75 +49152$' <<<"$out" && grep -qE '^ +walk +0\.25 +16384$' <<<"$out"
check "default speed 0.375 gives idle 0.75 (49152) / walk 0.25 (16384)" $?
! grep -q 'leaves' <<<"$out"
check "no flattened section for a node without nested nodes" $?

# Exact decimal: 0.1 -> raw 6554 (6553.6 rounded), printed back as 0.1.
out=$("$bin" weights loco.json --set a=0.1 --set b=0 --json); rc=$?
[ $rc -eq 0 ] && grep -qF '{"motion": "loco", "weight": 0.1, "raw": 6554}' <<<"$out"
check "a=0.1 is raw 6554 and prints as 0.1" $?
# leaves: idle = walk = mul(6554, 32768) = 3277 raw = 0.05 (3276.8 -> 0.05 round-trips to 3277)
grep -qF '"leaves": {"idle": 0.05, "walk": 0.05, "fwd": 0, "right": 0, "back": 0, "left": 0}' <<<"$out"
check "flattened leaves through the nested 1D node (0.05 each)" $?

# Nested defaults: loco mass 0.5 (idle .25, walk .25); move mass 0.5 at (0, 0) -> idle: idle 0.75.
out=$("$bin" weights loco.json); rc=$?
[ $rc -eq 0 ] && grep -qE '^ +loco \(node\) +0\.5 +32768$' <<<"$out"
check "plain output marks nested nodes" $?
grep -q '^leaves (flattened)' <<<"$out" && grep -qE '^ +idle +0\.75 +49152$' <<<"$out" && grep -qE '^ +walk +0\.25 +16384$' <<<"$out"
check "plain flattened leaves: idle 0.75, walk 0.25" $?
# (0.5, 0) lies on the segment centre -> right: idle 0.5 / right 0.5 in the move node.
out=$("$bin" weights loco.json --node move --set x=0.5 --json); rc=$?
[ $rc -eq 0 ] && grep -qF '"weights": [{"motion": "idle", "weight": 0.5, "raw": 32768}, {"motion": "fwd", "weight": 0, "raw": 0}, {"motion": "right", "weight": 0.5, "raw": 32768}' <<<"$out"
check "--node move at (0.5, 0): idle 0.5, right 0.5" $?

# NaN -> 0, infinities and out-of-range values saturate, each with a note.
out=$("$bin" weights simple.json --set speed=nan --json 2>err.txt); rc=$?
[ $rc -eq 0 ] && grep -qF '"leaves": {"idle": 1, "walk": 0}' <<<"$out" && grep -qx 'note: speed=nan is not a number; using 0' err.txt
check "nan becomes 0 with a note" $?
out=$("$bin" weights simple.json --set speed=inf --json 2>err.txt); rc=$?
[ $rc -eq 0 ] && grep -qF '"leaves": {"idle": 0, "walk": 1}' <<<"$out" && grep -q '^note: speed=inf saturates to 32767.99998' err.txt
check "inf saturates (walk 1) with a note" $?
out=$("$bin" weights simple.json --set speed=-inf --json 2>err.txt); rc=$?
[ $rc -eq 0 ] && grep -qF '"leaves": {"idle": 1, "walk": 0}' <<<"$out" && grep -q '^note: speed=-inf saturates to -32767.99998' err.txt
check "-inf saturates (idle 1) with a note" $?
out=$("$bin" weights simple.json --set speed=40000 --json 2>err.txt); rc=$?
[ $rc -eq 0 ] && grep -qF '"leaves": {"idle": 0, "walk": 1}' <<<"$out" && grep -q '^note: speed=40000 is beyond Q16.16 and saturates to 32767.99998' err.txt
check "40000 (beyond Q16.16) saturates with a note" $?
out=$("$bin" weights loco.json --node move --set y=inf --json 2>err.txt); rc=$?
[ $rc -eq 0 ] && grep -qF '"leaves": {"idle": 0, "fwd": 1, "right": 0, "back": 0, "left": 0}' <<<"$out" && grep -q 'pull the point back' err.txt
check "y=inf on a 2D node is pulled back onto fwd" $?

# Layout warnings go to stderr; the command still succeeds.
sed 's/"position": \[-1, 0\] }/"position": [-1, 0] }, { "motion": "left2", "position": [-1, 0.001] }/' loco.json > close.json
out=$("$bin" weights close.json --json 2>err.txt); rc=$?
[ $rc -eq 0 ] && grep -q "^warning: close.json: node move: samples closer than 1% of the layout's size (children 4 and 5: left, left2)" err.txt
check "layout warning printed to stderr" $?

# Errors: exit 2, a message on stderr, nothing on stdout.
expect_error() { # name, expected stderr substring, args...
  local name=$1 want=$2
  shift 2
  out=$("$bin" weights "$@" 2>err.txt); rc=$?
  [ $rc -eq 2 ] && [ -z "$out" ] && grep -qF -- "$want" err.txt
  check "$name" $?
}
sed 's/{ "motion": "fwd", "position": \[0, 1\] }/{ "motion": "fwd", "position": [0, 1] }, { "motion": "run", "position": [2] }/' loco.json > bad.json
expect_error "config error names file and JSON path" \
  "bad.json: /nodes/move/children/2/position: expected an array of 2 numbers" bad.json
printf '{"parameters": {}, "root": "a",\n "nodes": {]}\n' > broken.json
expect_error "invalid JSON names line:column" "broken.json:2:12: invalid JSON: unexpected ']'" broken.json
sed 's/"default": 0.375/"default": 32768/' simple.json > range.json
expect_error "out-of-range number names its path" \
  "range.json: /parameters/speed/default: 32768 is outside the fixed-point range" range.json
expect_error "missing file" "missing.json: cannot read: No such file or directory" missing.json
expect_error "unknown parameter" "no parameter named 'sped' (parameters: speed)" simple.json --set sped=1
expect_error "value that is not a number" "--set speed: 'fast' is not a number" simple.json --set speed=fast
expect_error "--set without =" "--set needs PARAM=VALUE, got 'speed'" simple.json --set speed
expect_error "unknown node" "no node named 'mvoe' (nodes: move)" simple.json --node mvoe
expect_error "unknown option" "unknown option '--bogus'" simple.json --bogus
expect_error "no config" "missing CONFIG"
expect_error "parameter set twice" "parameter 'speed' is set twice" simple.json --set speed=1 --set speed=2

"$bin" weights --help | grep -q '^usage: blendsync weights CONFIG'
check "--help prints the usage (exit 0)" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
