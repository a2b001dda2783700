#!/usr/bin/env bash
# Builds and runs every test twice: a normal build (build/) and one under AddressSanitizer +
# UndefinedBehaviorSanitizer (build-asan/); then runs the demo in its short headless mode, so that
# both commands of the README are proven.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/install-deps.sh

echo "== normal build (build/)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBSYNC_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure -j"$jobs")

echo "== AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan/)"
# (the shared library is built and checked by the normal build; here it would only double the compile)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DBSYNC_SANITIZE=ON -DBSYNC_WERROR=ON -DBSYNC_BUILD_SHARED=OFF -DBSYNC_STUDIO=OFF >/dev/null
cmake --build build-asan -j"$jobs"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j"$jobs")

echo "== demo (short, headless)"
scripts/demo.sh --short
