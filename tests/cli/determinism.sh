#!/usr/bin/env bash
# Same inputs, same bits: builds the core with gcc and clang at -O0 and -O3, with -m32 (gcc and
# clang), and under ASan+UBSan, runs tests/tools/determinism_sweep.c and `blendsync demo` (built alone
# with tests/tools/determinism_demo_main.c) with each,
# and requires every build to print exactly the same digests. Within each build, the sweep runs on
# every SIMD path the build and CPU support and the demo on the automatic and the scalar path
# (BSYNC_SIMD), and those must agree too.
# usage: determinism.sh SOURCE_DIR WORK_DIR
# BSYNC_DETERMINISM_VARIANTS (one "name|compiler command|flags|runner" per line; the runner, e.g.
# "qemu-s390x -L /usr/s390x-linux-gnu", is optional) replaces the list below: tests/cli/platform_matrix.sh
# runs the same sweep and demo this way on its cross targets, the first line being the reference.
set -euo pipefail
src=$1
work=$2
mkdir -p "$work"
core=("$src"/shared/src/*.c "$src"/shared/src/io/platform/alloc_default.c)
cli=("$src/client/cli/cmd_demo.c" "$src/client/cli/simd_env.c" "$src/tests/tools/determinism_demo_main.c")
inc=(-I"$src/shared/include" -I"$src/shared/src" -I"$src/client/cli")
flags=(-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror)

variants=(
  "gcc-O0|gcc|-O0"
  "gcc-O3|gcc|-O3"
  "clang-O0|clang|-O0"
  "clang-O3|clang|-O3"
  "gcc-m32-O2|gcc|-m32 -O2"
  "clang-m32-O2|clang|-m32 -O2"
  "gcc-asan-ubsan|gcc|-O1 -fsanitize=address,undefined -fno-sanitize-recover=all"
)
if [ -n "${BSYNC_DETERMINISM_VARIANTS:-}" ]; then
  mapfile -t variants <<<"$BSYNC_DETERMINISM_VARIANTS"
fi

# 32-bit programs run natively where the kernel has IA-32 emulation, else under qemu-i386 (Debian's
# qemu-user, installed by scripts/install-deps.sh).
printf 'int main(void){return 0;}\n' >"$work/probe.c"
runner32=""
if gcc -m32 -o "$work/probe32" "$work/probe.c" 2>/dev/null && ! "$work/probe32" 2>/dev/null; then
  runner32=qemu-i386
  command -v qemu-i386 >/dev/null || { echo "FAIL: 32-bit programs cannot run here and qemu-i386 is missing"; exit 1; }
  echo "32-bit variants run under qemu-i386 (no IA-32 emulation in this kernel)"
fi

reference=""
status=0
for v in "${variants[@]}"; do
  [ -n "$v" ] || continue
  IFS='|' read -r name cc opts vrun <<<"$v"
  if ! command -v "${cc%% *}" >/dev/null; then
    echo "FAIL $name: compiler $cc not installed (scripts/install-deps.sh installs it)"
    status=1
    continue
  fi
  exe=""
  case "$cc" in *mingw*) exe=.exe ;; esac # Windows programs keep their suffix (wine needs it)
  # shellcheck disable=SC2086
  $cc "${flags[@]}" $opts "${inc[@]}" -o "$work/sweep-$name$exe" "$src/tests/tools/determinism_sweep.c" "${core[@]}"
  # shellcheck disable=SC2086
  $cc "${flags[@]}" $opts "${inc[@]}" -o "$work/blendsync-$name$exe" "${cli[@]}" "${core[@]}"
  out="$work/out-$name.txt"
  run=${vrun:-}
  case "$opts" in *-m32*) [ -n "$run" ] || run=$runner32 ;; esac
  # shellcheck disable=SC2086
  # (Windows programs print CRLF line ends: the digests are compared without them)
  # the sweep compares every SIMD path itself; the demo runs on the automatic path (its lines join the
  # digests) and once more on the scalar one (the reference), which must print exactly the same
  # shellcheck disable=SC2086
  $run "$work/blendsync-$name$exe" --ticks 1500 --rate 60 --quiet | tr -d '\r' >"$work/demo-auto-$name.txt"
  # shellcheck disable=SC2086
  { $run "$work/sweep-$name$exe" --paths; cat "$work/demo-auto-$name.txt"; } | tr -d '\r' >"$out"
  # shellcheck disable=SC2086
  BSYNC_SIMD=scalar $run "$work/blendsync-$name$exe" --ticks 1500 --rate 60 --quiet | tr -d '\r' >"$work/demo-scalar-$name.txt"
  if ! cmp -s "$work/demo-auto-$name.txt" "$work/demo-scalar-$name.txt"; then
    echo "FAIL $name: the demo on the scalar SIMD path differs from the automatic path:"
    diff "$work/demo-scalar-$name.txt" "$work/demo-auto-$name.txt" || true
    status=1
  fi
  if grep -q '^FAIL' "$out"; then
    echo "FAIL $name: $(grep '^FAIL' "$out" | head -1)"
    status=1
  fi
  if [ -z "$reference" ]; then
    reference=$out
    echo "reference ($name):"
    sed 's/^/  /' "$out"
  elif cmp -s "$reference" "$out"; then
    echo "same bits: $name"
  else
    echo "FAIL $name differs from the reference:"
    diff "$reference" "$out" || true
    status=1
  fi
done
lines=$(wc -l <"$reference")
[ "$lines" -ge 11 ] || { echo "FAIL: expected at least 11 digest lines, got $lines"; status=1; }
if [ $status -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $status
