#!/usr/bin/env bash
# Real coverage-guided fuzzing of every input format with libFuzzer (clang), under ASan + UBSan.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default 60 s, every tests/fuzz/fuzz_*.c
# Each target starts from a copy of its seed corpus (tests/fuzz/corpus/<format>) in build-fuzz/; crash
# inputs are written there as crash-* files. ctest runs the same targets over the seeds plus
# deterministic mutations on every build; this script is for longer hunts (docs/fuzzing.md).
# Every target is built from shared/src and proto/src; a target needing more (the server) adds its
# sources below (sources_of). Targets that load the fuzz match (tests/fuzz/match/) find it through
# BSYNC_FUZZ_MATCH_DIR, compiled in. Extra libFuzzer flags: FUZZ_FLAGS="..."; another output directory:
# FUZZ_OUT=DIR. Targets run with stdin from /dev/null and, for noisy parsers, stderr closed
# (-close_fd_mask=2: libFuzzer keeps its own reports and the sanitizers').
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
scripts/install-deps.sh --demo
out=${FUZZ_OUT:-build-fuzz}
mkdir -p "$out"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do
    n=$(basename "$f" .c)
    [ "$n" = fuzz_corpus_main ] || targets+=("${n#fuzz_}")
  done
fi
core=(shared/src/*.c shared/src/io/*/*.c proto/src/*.c)
# Per-target sources and include directories beyond the libraries (keep in step with tests/fuzz/CMakeLists.txt).
sources_of() {
  case "$1" in
    # the server's sessions on the virtual network (the client's are in vnet.c's reach too; ENet for the adapters)
    server_packet) echo "server/src/server.c server/src/server_session.c server/src/server_match.c client/lib/client.c client/lib/client_enet.c client/lib/client_present.c tests/support/vnet.c proto/net/src/net.c proto/net/src/session.c" ;;
    session) echo "proto/net/src/session.c" ;;
    *) echo "" ;;
  esac
}
libs_of() {
  case "$1" in
    server_packet) echo "-lenet -lsodium" ;;
    session) echo "-lsodium" ;;
    *) echo "" ;;
  esac
}
flags_of() {
  case "$1" in
    *) echo "" ;;
  esac
}
cflags=(-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-sanitize-recover=all -DBSYNC_HAVE_SODIUM=1 -DBSYNC_FUZZ_MATCH_DIR="\"$PWD/tests/fuzz/match\""
        -Ishared/include -Ishared/src -Ishared/src/io/platform -Ishared/src/io/import -Ishared/src/io/config -Ishared/src/io/replay -Iproto/include -Iproto/net/include -Iserver/include -Iserver/src
        -Iclient/include -Iclient/lib -Itests/support -Itests/fuzz)
# The libraries' sources once into one archive (instrumented for coverage), each target linked against it.
lib="$out/libfuzzcore.a"
objdir="$out/obj"
mkdir -p "$objdir"
objs=()
for src in "${core[@]}"; do
  o="$objdir/$(echo "$src" | tr / _).o"
  if [ ! -f "$o" ] || [ "$src" -nt "$o" ] || [ -n "$(find shared/include shared/src proto/include -newer "$o" -name '*.h' -print -quit)" ]; then
    clang "${cflags[@]}" -fsanitize=fuzzer-no-link,address,undefined -c "$src" -o "$o" &
    [ "$(jobs -r | wc -l)" -lt 2 ] || wait -n
  fi
  objs+=("$o")
done
wait
rm -f "$lib" && ar rcs "$lib" "${objs[@]}"
status=0
for t in "${targets[@]}"; do
  [ -f "tests/fuzz/fuzz_$t.c" ] || { echo "no target tests/fuzz/fuzz_$t.c"; status=1; continue; }
  bin="$out/fuzz_$t"
  read -r -a extra <<<"$(sources_of "$t")"
  read -r -a extra_libs <<<"$(libs_of "$t")"
  clang "${cflags[@]}" -fsanitize=fuzzer,address,undefined -o "$bin" \
    "tests/fuzz/fuzz_$t.c" ${extra[@]+"${extra[@]}"} "$lib" -lcjson ${extra_libs[@]+"${extra_libs[@]}"} -lm -lpthread
  corpus="$out/corpus-$t"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  echo "== fuzz_$t for ${seconds}s"
  # shellcheck disable=SC2086
  if ! (cd "$out" && "./fuzz_$t" -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 $(flags_of "$t") \
          ${FUZZ_FLAGS:-} "corpus-$t" </dev/null >"fuzz_$t.log" 2>&1); then
    tail -40 "$out/fuzz_$t.log"
    echo "fuzz_$t FOUND A CRASH (see $out/crash-* and $out/fuzz_$t.log)"
    status=1
  else
    grep -E '^#[0-9]+' "$out/fuzz_$t.log" | tail -1
    tail -12 "$out/fuzz_$t.log" | grep -E 'stat::|Done' || true
    echo "corpus-$t: $(find "$corpus" -type f | wc -l) files"
  fi
done
exit $status
