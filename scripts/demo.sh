#!/usr/bin/env bash
# The first thing to run: installs what is missing, builds, and runs the demo.
#   scripts/demo.sh            the full demo (10 s of ticks at 30 Hz, a row per second)
#   scripts/demo.sh --short    a short headless run (scripts/test.sh uses it)
#   scripts/demo.sh ARGS...    any `blendsync demo` options, e.g. --ticks 900 --every 15
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null

if [ "${1:-}" = "--short" ]; then
  shift
  set -- --ticks 90 --every 30 "$@"
fi
exec build/blendsync demo "$@"
