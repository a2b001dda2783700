#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then a program outside the tree (tests/install/consumer.c)
# built against that prefix three ways through find_package (blendsync::core alone, blendsync::io,
# the shared blendsync::blendsync) and two ways through pkg-config (blendsync-io static, blendsync
# shared), and run. The hand position is known by hand (a quarter of (2, 4, -6)); the checksums must
# be the same bits in every variant; the version must be the project's.
# usage: install_consumer.sh SOURCE_DIR BUILD_DIR WORK_DIR PROJECT_VERSION
set -euo pipefail
src=$1 build=$2 work=$3 version=$4
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=1; fi; }
libdir=$(cd "$prefix" && ls -d lib* | head -1)
for f in include/blendsync/base.h include/blendsync/abi.h include/blendsync/io/replay.h include/blendsync/proto.h \
         include/blendsync/net.h include/blendsync/client.h include/blendsync/server.h bin/blendsync bin/blendsync-server \
         "$libdir/libblendsync_core.a" "$libdir/libblendsync_alloc.a" "$libdir/libblendsync_io.a" \
         "$libdir/libblendsync_client.a" "$libdir/libblendsync_server.a" "$libdir/libblendsync.so.$version" \
         "$libdir/libblendsync.so.0" "$libdir/libblendsync.so" "$libdir/cmake/blendsync/blendsyncConfig.cmake" \
         "$libdir/pkgconfig/blendsync.pc" "$libdir/pkgconfig/blendsync-core.pc"; do
    check "[ -e '$prefix/$f' ]" "not installed: $f"
done
[ $fail -eq 0 ] || { echo "0 passed, 1 failed"; exit 1; }
# nothing of the source or build tree leaks into the installed package files
if grep -rlE "$src|$build" "$prefix/$libdir/cmake" "$prefix/$libdir/pkgconfig"; then
    echo "FAIL: installed package files name the source or build tree"; fail=1
fi
"$prefix/bin/blendsync" demo --ticks 2 --every 1 --quiet >"$work/cli.txt" || { echo "FAIL: installed blendsync demo"; fail=1; }

# find_package
cmake -S "$src/tests/install" -B "$work/fp" -DCMAKE_PREFIX_PATH="$prefix" >"$work/fp.log" ||
    { cat "$work/fp.log"; echo "FAIL: find_package configure"; exit 1; }
grep -q "blendsync_VERSION=$version" "$work/fp.log" || { echo "FAIL: package version is not $version"; fail=1; }
cmake --build "$work/fp" >"$work/fp-build.log" 2>&1 || { cat "$work/fp-build.log"; echo "FAIL: find_package build"; exit 1; }
# pkg-config
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
[ "$(pkg-config --modversion blendsync)" = "$version" ] || { echo "FAIL: pkg-config --modversion blendsync"; fail=1; }
# shellcheck disable=SC2046
cc -std=c11 -o "$work/pc_io" "$src/tests/install/consumer.c" -DBSYNC_CONSUMER_IO $(pkg-config --cflags --libs blendsync-io)
# shellcheck disable=SC2046
cc -std=c11 -o "$work/pc_shared" "$src/tests/install/consumer.c" -DBSYNC_CONSUMER_IO $(pkg-config --cflags --libs blendsync) \
    -Wl,-rpath,"$prefix/$libdir"

for v in fp/consumer_core fp/consumer_io fp/consumer_shared pc_io pc_shared; do
    "$work/$v" >"$work/$(basename "$v").txt" || { echo "FAIL: $v exited $?"; fail=1; }
done
for v in consumer_shared pc_shared; do
    needed=$(readelf -d "$work/$( [ $v = pc_shared ] && echo pc_shared || echo fp/consumer_shared)" | grep -c 'NEEDED.*\[libblendsync.so.0\]' || true)
    [ "$needed" = 1 ] || { echo "FAIL: $v does not load libblendsync.so.0"; fail=1; }
done
for v in consumer_core consumer_io consumer_shared pc_io pc_shared; do
    check "grep -qx 'hand at 0.5 s: (0.5, 1, -1.5)' '$work/$v.txt'" "$v: wrong hand position"
    check "grep -q '^version $version ' '$work/$v.txt'" "$v: bsync_version_string() is not $version"
    check "diff <(head -4 '$work/consumer_core.txt') <(head -4 '$work/$v.txt') >/dev/null" "$v: core output differs from consumer_core"
done
for v in consumer_shared pc_io pc_shared; do
    check "diff '$work/consumer_io.txt' '$work/$v.txt' >/dev/null" "$v: output differs from consumer_io"
done
check "grep -qx '1.5 \* -2.25 = -221184 (raw)' '$work/consumer_io.txt'" "bsync_fx_mul_abi(1.5, -2.25) != -3.375"
cat "$work/consumer_io.txt"
[ $fail -eq 0 ] && { echo "installed to $prefix; 3 find_package and 2 pkg-config consumers agree"; echo "1 passed, 0 failed"; exit 0; }
echo "0 passed, 1 failed"; exit 1
