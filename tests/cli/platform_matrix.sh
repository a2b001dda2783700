#!/usr/bin/env bash
# The platform matrix: same inputs, same bits on every target players use. Builds blendsync for
# each target, runs it there (natively, under qemu-user or wine) and requires the host's output:
#   sweep    tests/tools/determinism_sweep.c + `blendsync demo --ticks 1500 --rate 60 --quiet`
#            (the digests tests/cli/determinism.sh compares; sweep-only targets go through it)
#   demo     `blendsync demo --ticks 600 --every 100`
#   markers  `eval` (every frame: actions, curves, checksums) of tests/fuzz/seeds/markers.json (marker sync,
#            a sync group, follower events, curves through layers) over tests/actions/markers_sweep.csv
#   eval     `eval --hash` of the demo graph (scripts/demo) and, with ../shared/data, of the pab
#            glTF character (scripts/examples/pab_locomotion.json)
#   bsclip   the bytes of `import` of a glTF baked on the host (and of Fox.glb with ../shared/data),
#            and `import --list` of the host's .bsclip (a little-endian file read on this target)
#   compact  compact clip keys: `import --list` of the host's compact .bsclip (`bake --compact`), the
#            bench's compact-clip pose checksums (standin; pab with the data), and the bytes of a
#            compact .bsclip baked on this target (with the bsclip column)
#   replay   a replay recorded on the host (and the committed v1 fixture) verifies here; a replay
#            recorded here has the host's bytes and verifies on the host
# On a mismatch it prints the target and the first differing line. A target whose toolchain is
# missing is reported MISSING (never as passing) with what installs it; the script then fails only
# if BSYNC_MATRIX_REQUIRE_ALL=1.
# usage: platform_matrix.sh SOURCE_DIR WORK_DIR HOST_BLENDSYNC
set -uo pipefail
src=$(cd "$1" && pwd)
work=$2
host=$(cd "$(dirname "$3")" && pwd)/$(basename "$3")
mkdir -p "$work"
work=$(cd "$work" && pwd)
jobs=${BSYNC_MATRIX_JOBS:-2}
t_start=$(date +%s)
data="$src/../shared/data"
[ -d "$data" ] || data=""

# ---------------------------------------------------------------- targets
# name | kind | compiler flags | how it runs
#   kind: host (the build under test), native (x86-64 CMake build), cross:<triple> (clang
#   --target with Debian's cross libc), sweep (determinism.sh variant: core + demo only), wasm
#   (emcc: the sweep and the demo linked, run under node; the rest compiled, see build_wasm)
targets=(
  "x86_64-gcc-O2|host||"
  "x86_64-clang-O3-v3|native|-O3 -march=x86-64-v3 -ffp-contract=fast|"
  "x86_64-gcc-O0|sweep:gcc|-O0|"
  "i386-sse|sweep:gcc|-m32 -O2 -msse2 -mfpmath=sse|"
  "i386-x87|sweep:gcc|-m32 -O2 -mfpmath=387|"
  "i386-x87-O0|cross:i686-linux-gnu|-O0 -mno-sse|qemu-i386"
  "aarch64|cross:aarch64-linux-gnu|-O2|qemu-aarch64 -L /usr/aarch64-linux-gnu"
  "s390x|cross:s390x-linux-gnu|-O2|qemu-s390x -L /usr/s390x-linux-gnu"
  "win64-mingw|sweep:x86_64-w64-mingw32-gcc|-O2 -isystem $work/fixmath-include|WINE"
  "wasm32|wasm||node"
)
# libfixmath's header (the core uses its fix16_t only) for targets without their own copy
mkdir -p "$work/fixmath-include" && ln -sfn /usr/include/libfixmath "$work/fixmath-include/libfixmath"
# Debian packages of each cross architecture's libraries, unpacked (dpkg -x) into a sysroot
# (no cairo: the cross builds leave `plot` out, -DBSYNC_PLOT=OFF; no row builds the studio or the admin API,
# -DBSYNC_STUDIO=OFF -DBSYNC_ADMIN=OFF, nor `blendsync match` and --agones (libcurl):
# its libmicrohttpd is the host's, and the sweeps need only the tool)
sysroot_pkgs=(libfixmath-dev libcjson-dev libcjson1 libenet-dev libenet7 libcmocka-dev libcmocka0
  libsodium-dev libsodium23)

wine_bin=""
for w in wine64 wine /usr/lib/wine/wine64; do
  if command -v "$w" >/dev/null 2>&1; then wine_bin=$(command -v "$w"); break; fi
done
export WINEDEBUG=-all WINEPREFIX="$work/wineprefix"

declare -A missing cell note
debian_arch() { # triple -> Debian's name of its architecture
  case "${1%%-*}" in aarch64) echo arm64 ;; i686) echo i386 ;; *) echo "${1%%-*}" ;; esac
}
missing_reason() { # name kind -> prints why the toolchain is missing (empty: available)
  local name=$1 kind=$2
  case "$kind" in
    host) ;;
    native) command -v clang >/dev/null || echo "clang (apt-get install clang)" ;;
    sweep:gcc)
      printf 'int main(void){return 0;}\n' >"$work/probe.c"
      gcc -m32 -o "$work/probe32" "$work/probe.c" 2>/dev/null || echo "gcc -m32 (apt-get install gcc-multilib)" ;;
    sweep:x86_64-w64-mingw32-gcc)
      command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "mingw-w64 (apt-get install gcc-mingw-w64-x86-64)"; return; }
      [ -n "$wine_bin" ] || echo "wine (apt-get install wine64)" ;;
    cross:*)
      local triple=${kind#cross:} q
      q=qemu-${triple%%-*}; [ "$q" = qemu-i686 ] && q=qemu-i386
      command -v clang >/dev/null || { echo "clang"; return; }
      command -v "$q" >/dev/null || { echo "$q (apt-get install qemu-user)"; return; }
      local darch; darch=$(debian_arch "$triple")
      if [ "$darch" = i386 ]; then # gcc-multilib's C library (libc6-dev-i386), as for gcc -m32
        printf 'int main(void){return 0;}\n' >"$work/probe.c"
        clang --target="$triple" -o "$work/probe32" "$work/probe.c" 2>/dev/null || { echo "the i386 C library for clang --target=$triple (apt-get install gcc-multilib)"; return; }
      else
        [ -f "/usr/$triple/include/stdio.h" ] || { echo "the $darch C library (apt-get install libc6-dev-$darch-cross libgcc-12-dev-$darch-cross binutils-$triple)"; return; }
      fi
      dpkg --print-foreign-architectures | grep -x "$darch" >/dev/null || echo "$darch packages (dpkg --add-architecture $darch && apt-get update)" ;;
    wasm)
      command -v emcc >/dev/null || { echo "emscripten (apt-get install emscripten)"; return; }
      command -v node >/dev/null || echo "node (apt-get install nodejs)" ;;
  esac
}

# BSYNC_MATRIX_TARGETS=name,name,... runs only those (the host reference always runs)
if [ -n "${BSYNC_MATRIX_TARGETS:-}" ]; then
  keep=()
  for t in "${targets[@]}"; do
    IFS='|' read -r name _ _ _ <<<"$t"
    case ",$BSYNC_MATRIX_TARGETS," in *",$name,"*) keep+=("$t") ;; *) [ "$name" = x86_64-gcc-O2 ] && keep+=("$t") ;; esac
  done
  targets=("${keep[@]}")
fi

for t in "${targets[@]}"; do
  IFS='|' read -r name kind _ _ <<<"$t"
  r=$(missing_reason "$name" "$kind")
  if [ -n "$r" ]; then missing[$name]=$r; fi
done

# ---------------------------------------------------------------- helpers
first_diff() { # ref got label name: prints the first differing line
  local ref=$1 got=$2 label=$3 name=$4 line
  line=$(diff <(tr -d '\r' <"$ref") <(tr -d '\r' <"$got") | head -n 4 | tr '\n' ' ')
  echo "DIFF $name $label: $line"
}
same_text() { cmp -s <(tr -d '\r' <"$1") <(tr -d '\r' <"$2"); }

prepare_sysroot() { # debian-arch -> prints the sysroot dir (empty on failure)
  local darch=$1 dir="$work/sysroot-$1"
  if [ ! -f "$dir/.done" ] || [ "$(cat "$dir/.done")" != "${sysroot_pkgs[*]}" ]; then # (again when the list changed)
    rm -rf "$dir" "$work/debs-$darch" && mkdir -p "$dir" "$work/debs-$darch"
    local p
    for p in "${sysroot_pkgs[@]}"; do
      (cd "$work/debs-$darch" && apt-get download "$p:$darch" >/dev/null 2>&1) || { echo ""; return; }
    done
    for p in "$work/debs-$darch"/*.deb; do dpkg -x "$p" "$dir" || { echo ""; return; }; done
    echo "${sysroot_pkgs[*]}" >"$dir/.done"
  fi
  echo "$dir"
}

# Sources the Windows and wasm32 rows only compile (-Werror): io, the CLI, the client and server
# libraries, blendsync-server. Debian ships no cJSON or ENet built for either, so they are not linked there.
compile_only_srcs() {
  ls "$src"/shared/src/io/*/*.c "$src"/client/cli/*.c "$src"/client/lib/*.c "$src"/proto/src/*.c \
    "$src"/proto/net/src/*.c "$src"/server/src/*.c
}
dep_include="$work/dep-include" # the host's (architecture-independent) headers of the libraries
mkdir -p "$dep_include"
for h in libfixmath cjson enet cairo; do ln -sfn "/usr/include/$h" "$dep_include/$h"; done
compile_only_incs=(-I"$src/shared/include" -I"$src/shared/src" -I"$src/shared/src/io/platform" -I"$src/shared/src/io/import" -I"$src/shared/src/io/config" -I"$src/shared/src/io/replay" -I"$src/client/cli" -I"$src/client/include" -I"$src/client/lib" -I"$src/proto/include"
  -I"$src/proto/net/include" -I"$src/server/include" -I"$(dirname "$host")/client/generated" -isystem "$dep_include")

# wasm32 with Debian's emscripten 3.1.6. Its sysroot and libc come prebuilt in a frozen cache
# (/usr/share/emscripten/cache, FROZEN_CACHE in its config), so nothing is built on first use; another
# emscripten (emsdk) builds its cache once into $EM_CACHE, set here to the matrix's work folder
# unless given. Debian's emcc runs acorn from /usr/share/nodejs (on NODE_PATH for a node not from
# Debian). -sSINGLE_FILE embeds the .wasm in the .js: that emscripten loads a separate .wasm with
# fetch() when it exists, which fails on a file path under node >= 18.
emcc_env() {
  local cache=()
  [ -n "${EM_CACHE:-}" ] || [ -f /usr/share/emscripten/cache/sysroot_install.stamp ] || cache=(EM_CACHE="$work/emcache")
  env NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}" EMCC_CORES="$jobs" "${cache[@]}" "$@"
}
build_wasm() { # -> prints the build dir (empty on failure): sweep.js, demo.js, compile.log
  local b="$work/build-wasm32" f core=() objs=()
  rm -rf "$b" && mkdir -p "$b/core" "$b/compile"
  for f in "$src"/shared/src/*.c "$src"/shared/src/io/platform/alloc_default.c; do core+=("$f"); objs+=("$(basename "${f%.c}").o"); done
  {
    (cd "$b/core" && emcc_env emcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O2 \
      -I"$src/shared/include" -I"$src/shared/src" -I"$src/client/cli" -isystem "$work/fixmath-include" -c "${core[@]}" \
      "$src/tests/tools/determinism_sweep.c" "$src/client/cli/cmd_demo.c" "$src/client/cli/simd_env.c" \
      "$src/tests/tools/determinism_demo_main.c") &&
      (cd "$b/core" && emcc_env emcc -O2 -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1 -o "$b/sweep.js" determinism_sweep.o "${objs[@]}") &&
      (cd "$b/core" && emcc_env emcc -O2 -sSINGLE_FILE=1 -sALLOW_MEMORY_GROWTH=1 -o "$b/demo.js" \
        determinism_demo_main.o cmd_demo.o simd_env.o "${objs[@]}")
  } >"$b.log" 2>&1 || { echo ""; return; }
  # shellcheck disable=SC2046
  (cd "$b/compile" && emcc_env emcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O0 \
    "${compile_only_incs[@]}" -c $(compile_only_srcs)) >"$b/compile.log" 2>&1
  echo $? >"$b/compile.rc"
  echo "$b"
}

# Debian's cJSON source package (the version installed on the host, Debian's patches applied), for the
# targets Debian builds no cJSON for (mingw-w64, emscripten): fetched with apt-get source through a
# private apt configuration in the work folder (deb-src lines of the host's mirror; nothing of the
# system's apt state is changed) and unpacked with dpkg-source. Prints the folder holding cJSON.c and
# include/cjson/cJSON.h (empty on failure).
prepare_cjson_source() {
  local dir="$work/cjson-src" a="$work/apt-src" ver
  if [ ! -f "$dir/.done" ] || [ "$(cat "$dir/.done")" != "${sysroot_pkgs[*]}" ]; then # (again when the list changed)
    rm -rf "$dir" "$a" && mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/get" "$dir/include/cjson"
    ver=$(dpkg-query -W -f='${source:Version}' libcjson-dev 2>/dev/null) || { echo ""; return; }
    printf 'deb-src http://deb.debian.org/debian bookworm main\ndeb-src http://deb.debian.org/debian bookworm-updates main\ndeb-src http://deb.debian.org/debian-security bookworm-security main\n' >"$a/sources.list"
    local opts=(-q -o Dir::Etc::sourcelist="$a/sources.list" -o Dir::Etc::sourceparts=/nonexistent
      -o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o APT::Sandbox::User="$(id -un)")
    {
      apt-get "${opts[@]}" update &&
        (cd "$a/get" && apt-get "${opts[@]}" source --download-only "cjson=$ver") &&
        (cd "$a/get" && dpkg-source -x --no-check ./*.dsc tree) &&
        cp "$a/get/tree/cJSON.c" "$dir/" && cp "$a/get/tree/cJSON.h" "$dir/include/cjson/"
    } >"$a.log" 2>&1 || { echo ""; return; }
    echo "$ver" >"$dir/.done"
  fi
  echo "$dir"
}

# Windows x86-64 with mingw-w64: the core, io and the CLI linked into blendsync.exe with Debian's
# cJSON source (prepare_cjson_source), run under wine. Debian ships no cairo for mingw-w64 either, so
# `plot` (cmd_plot.c) is left out as well (main.c's BSYNC_HAVE_PLOT).
# Without ENet for mingw-w64 (Debian ships none, and its source package is not on the mirror) the
# `bot` command (cmd_bot.c, the client library) is left out (main.c's BSYNC_HAVE_NET); the client and
# server libraries are still compiled, warnings as errors. mingw's C99 printf
# (__USE_MINGW_ANSI_STDIO) prints %zu; GCC would still check format attributes against msvcrt's
# formats, hence -Wno-format (the Linux builds check them).
win_cc=(x86_64-w64-mingw32-gcc -std=c11 -D_POSIX_C_SOURCE=200809L -D__USE_MINGW_ANSI_STDIO=1 -O2)
build_win_cli() { # -> prints blendsync.exe (empty on failure; build-win64-mingw.log says why)
  local b="$work/build-win64-mingw" cj f o objs=()
  rm -rf "$b" && mkdir -p "$b/obj" "$b/compile"
  cj=$(prepare_cjson_source)
  {
    [ -n "$cj" ] || { echo "cannot fetch Debian's cJSON source: $(tail -n 3 "$work/apt-src.log" 2>/dev/null)"; false; } &&
      for f in "$src"/shared/src/*.c "$src"/shared/src/io/*/*.c "$src"/client/cli/*.c; do
        case "$(basename "$f")" in cmd_bot.c | cmd_plot.c) continue ;; esac
        o="$b/obj/$(basename "$(dirname "$f")")_$(basename "${f%.c}").o"
        "${win_cc[@]}" -Wall -Wextra -Werror -Wno-format "${compile_only_incs[@]}" -isystem "$cj/include" -c "$f" -o "$o" || exit 1
        objs+=("$o")
      done &&
      "${win_cc[@]}" -w -isystem "$cj/include/cjson" -c "$cj/cJSON.c" -o "$b/obj/cJSON.o" &&
      "${win_cc[@]}" -o "$b/blendsync.exe" "${objs[@]}" "$b/obj/cJSON.o" -lm &&
      for f in "$src"/client/lib/*.c "$src"/proto/src/*.c "$src"/proto/net/src/*.c "$src"/server/src/*.c; do
        "${win_cc[@]}" -O0 -Wall -Wextra -Werror -Wno-format "${compile_only_incs[@]}" -c "$f" -o "$b/compile/$(basename "$f").o" || exit 1
      done
  } >"$b.log" 2>&1 || { echo ""; return; }
  echo "$b/blendsync.exe"
}

# wasm32: the CLI (without `bot` and `plot`, as for Windows) linked with emcc and Debian's cJSON source, run under
# node with NODERAWFS (the program reads and writes the host's files directly, so the pipeline's
# paths work as they are). Prints blendsync.js (empty on failure; build-wasm32-cli.log says why).
build_wasm_cli() {
  local b="$work/build-wasm32-cli" cj f srcs=()
  rm -rf "$b" && mkdir -p "$b/obj"
  cj=$(prepare_cjson_source)
  for f in "$src"/shared/src/*.c "$src"/shared/src/io/*/*.c "$src"/client/cli/*.c; do
    case "$(basename "$f")" in cmd_bot.c | cmd_plot.c) ;; *) srcs+=("$f") ;; esac
  done
  {
    [ -n "$cj" ] || { echo "cannot fetch Debian's cJSON source: $(tail -n 3 "$work/apt-src.log" 2>/dev/null)"; false; } &&
      (cd "$b/obj" && emcc_env emcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O2 \
        "${compile_only_incs[@]}" -isystem "$cj/include" -c "${srcs[@]}") &&
      (cd "$b/obj" && emcc_env emcc -O2 -w -isystem "$cj/include/cjson" -c "$cj/cJSON.c") &&
      (cd "$b/obj" && emcc_env emcc -O2 -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1 -sEXIT_RUNTIME=1 -sSINGLE_FILE=1 \
        -o "$b/blendsync.js" ./*.o)
  } >"$b.log" 2>&1 || { echo ""; return; }
  echo "$b/blendsync.js"
}

build_cli() { # name kind flags -> prints the binary (empty on failure); log in build-<name>.log
  local name=$1 kind=$2 flags=$3 b="$work/build-$name" args=()
  case "$kind" in
    native) args=(-DCMAKE_C_COMPILER=clang -DBSYNC_STUDIO=OFF -DBSYNC_ADMIN=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CURL=ON) ;;
    cross:*)
      local triple=${kind#cross:} darch sr
      darch=$(debian_arch "$triple")
      sr=$(prepare_sysroot "$darch")
      [ -n "$sr" ] || { echo "cannot download the $darch libraries (apt-get download ...:$darch)" >"$b.log"; return; }
      args=(-DCMAKE_TOOLCHAIN_FILE="$src/cmake/clang-cross.cmake" -DBSYNC_CROSS_TRIPLE="$triple" -DBSYNC_CROSS_SYSROOT="$sr"
        -DBSYNC_PLOT=OFF -DBSYNC_STUDIO=OFF -DBSYNC_ADMIN=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CURL=ON) ;;
  esac
  {
    cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS=$flags" "${args[@]}" &&
      cmake --build "$b" -j"$jobs" --target blendsync &&
      $( [ "${kind%%:*}" = cross ] && echo clang --target="${kind#cross:}" || echo clang ) -std=c11 $flags \
        -I"$src/shared/include" -I"$src/shared/src" $( [ -n "${sr:-}" ] && echo -isystem "$sr/usr/include" ) \
        -o "$b/determinism_sweep" "$src/tests/tools/determinism_sweep.c" "$b/libblendsync_core.a" "$b/libblendsync_alloc.a"
  } >"$b.log" 2>&1 || { echo ""; return; }
  echo "$b/blendsync"
}

# ---------------------------------------------------------------- the host's reference outputs
ref="$work/ref"
rm -rf "$ref" && mkdir -p "$ref"
cp "$src/tests/fixtures/replay/v1/match.json" "$src/tests/fixtures/replay/v1/humanoid_locomotion.json" "$work/"
run_pipeline() { # runner binary outdir: every output of the pipeline into outdir
  local run=$1 bin=$2 out=$3
  mkdir -p "$out"
  # shellcheck disable=SC2086
  (
    cd "$work" || exit 1
    $run "$bin" demo --ticks 600 --every 100 >"$out/demo.txt" 2>&1
    $run "$bin" eval "$src/scripts/demo/humanoid_locomotion.json" --script "$src/scripts/demo/locomotion_path.csv" --hash >"$out/eval-demo.txt" 2>&1
    $run "$bin" eval "$src/tests/fuzz/seeds/markers.json" --script "$src/tests/actions/markers_sweep.csv" --ticks 300 >"$out/markers.txt" 2>&1
    if [ -n "$data" ]; then
      $run "$bin" eval "$src/scripts/examples/pab_locomotion.json" --script "$src/scripts/examples/pab_speed_ramp.csv" --hash >"$out/eval-pab.txt" 2>/dev/null
      $run "$bin" import "$data/khronos-fox/Fox.glb" -o "$out/fox.bsclip" >/dev/null 2>&1
    fi
    $run "$bin" import "$ref/baked.glb" -o "$out/baked.bsclip" >/dev/null 2>&1
    $run "$bin" import --list "$ref/baked.bsclip" 2>&1 | sed 's/^ *source: .*//' >"$out/list.txt"
    # compact clip keys (issue 17): the host's compact .bsclip read here, one baked here (bytes
    # compared below), and the compact clips' poses (bench checksums: build, decode, sample, blend)
    {
      $run "$bin" import --list "$ref/compact.bsclip" 2>&1 | sed 's/^ *source: .*//'
      $run "$bin" bench --scenario standin --compact --characters 3 --stages blend --ticks 20 --rounds 1 --json 2>&1 |
        grep -o '"clip_bytes": [0-9]*\|"checksum": "[0-9a-f]*"\|"encoding": "[a-z]*"'
      if [ -n "$data" ]; then
        $run "$bin" bench --scenario pab --data "$data" --compact --characters 3 --stages blend --ticks 20 --rounds 1 --json 2>&1 |
          grep -o '"clip_bytes": [0-9]*\|"checksum": "[0-9a-f]*"\|"encoding": "[a-z]*"'
      fi
    } >"$out/compact.txt"
    $run "$bin" bake "$src/scripts/demo/humanoid_locomotion.json" --script "$src/scripts/demo/locomotion_path.csv" \
      --ticks 120 --compact -o "$out/compact.bsclip" >/dev/null 2>&1
    $run "$bin" replay verify "$ref/host.bsreplay" --no-dump >"$out/verify-host.txt" 2>&1
    echo "exit $?" >>"$out/verify-host.txt"
    $run "$bin" replay verify "$src/tests/fixtures/replay/v1/v1.bsreplay" --no-dump >"$out/verify-v1.txt" 2>&1
    echo "exit $?" >>"$out/verify-v1.txt"
    $run "$bin" replay record match.json --ticks 600 --poses -o "$out/own.bsreplay" >/dev/null 2>&1
  )
}
(cd "$work" && "$host" bake "$src/scripts/demo/humanoid_locomotion.json" --script "$src/scripts/demo/locomotion_path.csv" \
  --ticks 120 -o "$ref/baked.glb" >/dev/null 2>&1 &&
  "$host" import "$ref/baked.glb" -o "$ref/baked.bsclip" >/dev/null 2>&1 &&
  "$host" bake "$src/scripts/demo/humanoid_locomotion.json" --script "$src/scripts/demo/locomotion_path.csv" \
    --ticks 120 --compact -o "$ref/compact.bsclip" >/dev/null 2>&1 &&
  "$host" replay record match.json --ticks 600 --poses -o "$ref/host.bsreplay" >/dev/null 2>&1) ||
  { echo "FAIL: the host build cannot make the reference files"; exit 1; }
run_pipeline "" "$host" "$ref"

# ---------------------------------------------------------------- the sweep (determinism.sh)
sweep_lines="x86_64-gcc-O2|gcc|-O2"
for t in "${targets[@]}"; do
  IFS='|' read -r name kind flags run <<<"$t"
  case "$kind" in sweep:*) ;; *) continue ;; esac
  [ -z "${missing[$name]:-}" ] || continue
  [ "$run" = WINE ] && run=$wine_bin
  sweep_lines+=$'\n'"$name|${kind#sweep:}|$flags|$run"
done
[ -n "$wine_bin" ] && "$wine_bin" cmd /c exit >/dev/null 2>&1 # the wine prefix, made once, before timing matters
t0=$(date +%s)
BSYNC_DETERMINISM_VARIANTS=$sweep_lines bash "$src/tests/cli/determinism.sh" "$src" "$work/sweep" >"$work/sweep.log" 2>&1
echo "sweep-only variants built and run in $(( $(date +%s) - t0 )) s"
refsweep="$work/sweep/out-x86_64-gcc-O2.txt"
[ -s "$refsweep" ] || { echo "FAIL: the reference sweep did not run"; cat "$work/sweep.log"; exit 1; }

# ---------------------------------------------------------------- every target
status=0
cols=(sweep builds demo eval-demo markers eval-pab bsclip list compact verify-host verify-v1 own-replay)
for t in "${targets[@]}"; do
  IFS='|' read -r name kind flags run <<<"$t"
  [ "$run" = WINE ] && run=$wine_bin
  prebuilt=""
  for c in "${cols[@]}"; do cell[$name,$c]="-"; done
  if [ -n "${missing[$name]:-}" ]; then
    for c in "${cols[@]}"; do cell[$name,$c]=MISSING; done
    continue
  fi
  case "$kind" in
    host)
      cell[$name,sweep]=ref
      cell[$name,builds]=yes
      for c in demo eval-demo markers eval-pab bsclip list compact verify-host verify-v1 own-replay; do cell[$name,$c]=ref; done
      [ -n "$data" ] || cell[$name,eval-pab]="no data"
      grep -q '^exit 0$' "$ref/verify-v1.txt" || { cell[$name,verify-v1]=FAIL; status=1; echo "FAIL $name: the v1 fixture does not verify"; }
      continue ;;
    sweep:*)
      if grep -qx "same bits: $name" "$work/sweep.log"; then cell[$name,sweep]=same
      else cell[$name,sweep]=DIFF; status=1; echo "DIFF $name sweep:"; grep -A6 "FAIL $name" "$work/sweep.log" | head -8; fi
      [ "$name" = win64-mingw ] || continue
      # the full pipeline under wine (build_win_cli): falls through to the common part below
      prebuilt=win ;;
    wasm)
      # the core's sweep and demo (the core alone) under node, the client and server libraries
      # compiled (no ENet for emscripten), then the CLI without bot through the whole pipeline
      t0=$(date +%s)
      wb=$(build_wasm)
      echo "built $name in $(( $(date +%s) - t0 )) s"
      if [ -z "$wb" ]; then
        for c in "${cols[@]}"; do cell[$name,$c]="no build"; done
        status=1
        echo "FAIL $name: build failed (last lines of $work/build-wasm32.log):"; tail -n 5 "$work/build-wasm32.log"
        continue
      fi
      { $run "$wb/sweep.js"; $run "$wb/demo.js" --ticks 1500 --rate 60 --quiet; } >"$work/sweep-$name.txt" 2>&1
      if same_text "$refsweep" "$work/sweep-$name.txt"; then cell[$name,sweep]=same
      else cell[$name,sweep]=DIFF; status=1; first_diff "$refsweep" "$work/sweep-$name.txt" sweep "$name"; fi
      mkdir -p "$work/out-$name"
      $run "$wb/demo.js" --ticks 600 --every 100 >"$work/out-$name/demo.txt" 2>&1
      if same_text "$ref/demo.txt" "$work/out-$name/demo.txt"; then cell[$name,demo]=same
      else cell[$name,demo]=DIFF; status=1; first_diff "$ref/demo.txt" "$work/out-$name/demo.txt" demo "$name"; fi
      if [ "$(cat "$wb/compile.rc")" != 0 ]; then
        cell[$name,builds]=FAIL; status=1
        echo "FAIL $name: io / CLI / client / server sources do not compile with emcc:"; grep -m5 'error' "$wb/compile.log"
        continue
      fi
      # then the CLI's whole pipeline under node (build_wasm_cli): the common part below
      prebuilt=wasm ;;
  esac
  if [ "${kind%%:*}" = cross ]; then # the target's libraries: without them the target is MISSING
    darch=$(debian_arch "${kind#cross:}")
    if [ -z "$(prepare_sysroot "$darch")" ]; then
      missing[$name]="the $darch libraries (apt-get download ${sysroot_pkgs[*]/%/:$darch} failed: dpkg --add-architecture $darch && apt-get update)"
      for c in "${cols[@]}"; do cell[$name,$c]=MISSING; done
      continue
    fi
  fi
  t0=$(date +%s)
  case "$prebuilt" in
    win) bin=$(build_win_cli) ;;
    wasm) bin=$(build_wasm_cli) ;;
    *) bin=$(build_cli "$name" "$kind" "$flags") ;;
  esac
  echo "built $name in $(( $(date +%s) - t0 )) s"
  if [ -z "$bin" ]; then
    for c in "${cols[@]}"; do cell[$name,$c]="no build"; done
    status=1
    blog="$work/build-$name.log"
    case "$prebuilt" in wasm) blog="$work/build-wasm32-cli.log" ;; esac
    echo "FAIL $name: build failed (last lines of $blog):"; tail -n 5 "$blog"
    continue
  fi
  cell[$name,builds]=yes
  [ -n "$prebuilt" ] && cell[$name,builds]="yes, no bot"
  out="$work/out-$name"
  rm -rf "$out"
  if [ -z "$prebuilt" ]; then # (a prebuilt target's sweep ran with the sweep-only variants)
    # shellcheck disable=SC2086
    { $run "$(dirname "$bin")/determinism_sweep"; $run "$bin" demo --ticks 1500 --rate 60 --quiet; } >"$work/sweep-$name.txt" 2>&1
    if same_text "$refsweep" "$work/sweep-$name.txt"; then cell[$name,sweep]=same
    else cell[$name,sweep]=DIFF; status=1; first_diff "$refsweep" "$work/sweep-$name.txt" sweep "$name"; fi
  fi
  run_pipeline "$run" "$bin" "$out"
  for c in demo eval-demo markers eval-pab list compact verify-host verify-v1; do
    f=$c.txt
    [ -e "$ref/$f" ] || continue
    # the verdict and exit code must match; the speed line is this machine's
    if [[ $c == verify-* ]]; then
      grep -v '^speed:' "$ref/$f" >"$ref/$f.cmp"; grep -v '^speed:' "$out/$f" >"$out/$f.cmp" 2>/dev/null; f=$f.cmp
    fi
    if same_text "$ref/$f" "$out/$f"; then cell[$name,$c]=same
    else cell[$name,$c]=DIFF; status=1; first_diff "$ref/$f" "$out/$f" "$c" "$name"; fi
  done
  [ -n "$data" ] || cell[$name,eval-pab]="no data"
  cell[$name,bsclip]=same
  for f in baked.bsclip fox.bsclip compact.bsclip; do
    [ -e "$ref/$f" ] || continue
    if ! cmp "$ref/$f" "$out/$f" >"$work/cmp.txt" 2>&1; then
      cell[$name,bsclip]=DIFF; status=1; echo "DIFF $name bsclip $f: $(head -n 1 "$work/cmp.txt")"
    fi
  done
  if cmp -s "$ref/own.bsreplay" "$out/own.bsreplay" &&
    (cd "$work" && "$host" replay verify "$out/own.bsreplay" --no-dump >"$out/own-verify.txt" 2>&1); then
    cell[$name,own-replay]=same
  else
    cell[$name,own-replay]=DIFF; status=1
    echo "DIFF $name own-replay: $(cmp "$ref/own.bsreplay" "$out/own.bsreplay" 2>&1 | head -n 1); host verify: $(grep -m1 verdict "$out/own-verify.txt" 2>/dev/null)"
  fi
done

# ---------------------------------------------------------------- the table
echo
printf '| %-20s |' target; for c in "${cols[@]}"; do printf ' %-11s |' "$c"; done; echo
printf '|%s|' "----------------------"; for c in "${cols[@]}"; do printf '%s|' "-------------"; done; echo
for t in "${targets[@]}"; do
  IFS='|' read -r name _ _ _ <<<"$t"
  printf '| %-20s |' "$name"; for c in "${cols[@]}"; do printf ' %-11s |' "${cell[$name,$c]}"; done; echo
done
echo "(same: identical to the x86-64 gcc -O2 host build; -: not run for this target (sweep-only build);"
echo " builds: yes: the CLI was built (the cross builds' without \`plot\`: no cairo in their sysroots);"
echo "   yes, no bot: the CLI without \`bot\` and \`plot\` (no ENet and no cairo for mingw-w64 in Debian;"
echo "   cJSON from Debian's source package), the client and server libraries compiled with -Werror;"
echo "   compiles: io, CLI, client and server library sources compile with -Werror but are not linked;"
echo " wasm32: the core's sweep and demo built with emcc alone, then the CLI (no bot, no plot) run under node;"
echo " markers: eval frames (actions, curves, checksums) of a graph with marker sync, a sync group and curved layers;"
echo " verify-host/verify-v1: a replay recorded on the host / the committed v1 fixture verifies here;"
echo " own-replay: recorded here, byte-identical to the host's and verified on the host)"
n_missing=0
for t in "${targets[@]}"; do
  IFS='|' read -r name _ _ _ <<<"$t"
  if [ -n "${missing[$name]:-}" ]; then
    n_missing=$((n_missing + 1))
    echo "MISSING $name: ${missing[$name]} (scripts/install-deps.sh installs the toolchains)"
  fi
done
echo "matrix time: $(( $(date +%s) - t_start )) s"
if [ "$n_missing" -gt 0 ] && [ "${BSYNC_MATRIX_REQUIRE_ALL:-0}" = 1 ]; then status=1; fi
if [ $status -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $status
