#!/usr/bin/env bash
# `blendsync demo` as a user runs it: output, exit codes and error messages.
# usage: cli_demo.sh PATH_TO_BLENDSYNC
set -uo pipefail
bin=$1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

out=$("$bin" demo --ticks 101 --quiet); rc=$?
check "demo exits 0" $rc
# The script ends at 0.7 m/s, halfway between the idle (0) and walk (1.4) thresholds: tents give 0.5/0.5.
grep -qx 'joints 23, ticks 101 at 30 Hz (3.367 s), final weights idle 0.5000 walk 0.5000 run 0.0000' <<<"$out"
check "summary names joints, ticks and the final weights" $?
grep -qE '^final pose checksum [0-9a-f]{16}$' <<<"$out"
check "final pose checksum printed as 16 hex digits" $?

# Tick 0 is idle (speed 0): weights 1/0/0; the table has a row per second and the last tick.
out=$("$bin" demo --ticks 91); rc=$?
check "table run exits 0" $rc
grep -qE '^ +0 +0\.000 +1\.0000 +0\.0000 +0\.0000 ' <<<"$out"
check "tick 0 is pure idle" $?
rows=$(grep -cE '^ +[0-9]+ +[0-9.]+ ' <<<"$out")
[ "$rows" -eq 4 ]; check "rows at ticks 0, 30, 60 and 90 (the last): got $rows, want 4" $?

a=$("$bin" demo --ticks 500 --rate 60 --quiet | tail -1)
b=$("$bin" demo --ticks 500 --rate 60 --quiet | tail -1)
[ "$a" = "$b" ]; check "two runs give the same checksum" $?
c=$("$bin" demo --ticks 500 --rate 30 --quiet | tail -1)
[ "$a" != "$c" ]; check "another tick rate gives another checksum" $?

err=$("$bin" demo --ticks 0 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q -- '--ticks needs a whole number from 1 to 10000000' <<<"$err"
check "--ticks 0 is refused with exit 2 and a message" $?
err=$("$bin" demo --rate 61 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q -- '--rate needs a whole number from 15 to 60' <<<"$err"
check "--rate 61 is refused" $?
err=$("$bin" demo --bogus 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--bogus'" <<<"$err"
check "unknown option is refused" $?
err=$("$bin" frobnicate 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "unknown command 'frobnicate'" <<<"$err"
check "unknown command is refused" $?
"$bin" --help | grep -q '^  demo ' ; check "--help lists demo" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
