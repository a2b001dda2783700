#!/usr/bin/env bash
# The README's C example, compiled and run exactly as printed: its output must match the output block
# that follows it in the README.
# usage: readme_example.sh SOURCE_DIR WORK_DIR LIBBLENDSYNC_CORE_A LIBBLENDSYNC_IO_A [EXTRA_CFLAGS]
set -euo pipefail
src=$1; work=$2; core=$3; io=$4; extra=${5:-}
mkdir -p "$work"
# the first ```c block after the "<!-- readme-example -->" marker, and the ```text block after it
awk '/<!-- readme-example -->/{f=1} f&&/^```c$/{c=1;next} c&&/^```$/{exit} c{print}' "$src/README.md" >"$work/example.c"
awk '/<!-- readme-example -->/{f=1} f&&/^```text$/{c=1;next} c&&/^```$/{exit} c{print}' "$src/README.md" >"$work/expected.txt"
[ -s "$work/example.c" ] || { echo "FAIL: no example in README.md"; exit 1; }
[ -s "$work/expected.txt" ] || { echo "FAIL: no expected output in README.md"; exit 1; }
# shellcheck disable=SC2086
cc -std=c11 -Wall -Wextra -Werror $extra -I"$src/shared/include" -o "$work/example" "$work/example.c" "$core" "$io" "$core"
"$work/example" >"$work/actual.txt"
if diff -u "$work/expected.txt" "$work/actual.txt"; then
  echo "README example output matches"
  echo "1 passed, 0 failed"
else
  echo "FAIL: README example output differs"
  echo "0 passed, 1 failed"
  exit 1
fi
