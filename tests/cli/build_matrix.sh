#!/usr/bin/env bash
# Every build configuration builds without a single warning: Debug, Release, RelWithDebInfo and
# MinSizeRel, with gcc and with clang, -DBSYNC_WERROR=ON, the libraries and the two programs
# (targets blendsync and blendsync-server, which pull in every static library; the tests are not
# configured). Also fails on a "warning:" that -Werror does not turn into an error (linker, CMake).
# usage: build_matrix.sh SOURCE_DIR WORK_DIR [JOBS [SKIP]]   (BSYNC_MATRIX_CONFIGS / _COMPILERS narrow it)
# SKIP "gcc-RelWithDebInfo" leaves out the configuration the calling build already is (it is built
# with -Werror there, tests and all).
set -euo pipefail
src=$1 work=$2 jobs=${3:-2} skip=${4:-}
configs=${BSYNC_MATRIX_CONFIGS:-"Debug Release RelWithDebInfo MinSizeRel"}
compilers=${BSYNC_MATRIX_COMPILERS:-"gcc clang"}
mkdir -p "$work"
n=0 failed=0
start=$(date +%s)
for cc in $compilers; do
    command -v "$cc" >/dev/null || { echo "FAIL: compiler $cc not installed"; exit 1; }
    for cfg in $configs; do
        [ "$cc-$cfg" = "$skip" ] && { echo "skip  $cc $cfg (the build running this test)"; continue; }
        dir=$work/$cc-$cfg log=$work/$cc-$cfg.log
        t0=$(date +%s)
        if CC=$cc cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE="$cfg" -DBSYNC_WERROR=ON -DBSYNC_BUILD_TESTS=OFF \
               -DBSYNC_BUILD_SHARED=OFF >"$log" 2>&1 &&
           cmake --build "$dir" -j"$jobs" --target blendsync blendsync-server >>"$log" 2>&1 &&
           ! grep -qiE '(^|[^a-z_])warning[: ]' "$log"; then
            echo "ok    $cc $cfg ($(($(date +%s) - t0)) s)"
        else
            echo "FAIL  $cc $cfg:"; grep -iE 'warning|error' "$log" | head -20
            failed=$((failed + 1))
        fi
        n=$((n + 1))
    done
done
echo "$n configurations in $(($(date +%s) - start)) s"
[ $failed -eq 0 ] && { echo "1 passed, 0 failed"; exit 0; }
echo "0 passed, 1 failed"; exit 1
