#!/usr/bin/env bash
# Real coverage-guided fuzzing of every input format with libFuzzer (clang), under ASan + UBSan.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default 60 s, every tests/fuzz/fuzz_*.c
# Each target starts from a copy of its seed corpus (tests/fuzz/corpus/<format>) in build-fuzz/; crash
# inputs are written there as crash-* files. ctest runs the same targets over the seeds plus
# deterministic mutations on every build; this script is for longer hunts.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
scripts/install-deps.sh
out=build-fuzz
mkdir -p "$out"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do
    n=$(basename "$f" .c)
    [ "$n" = fuzz_corpus_main ] || targets+=("${n#fuzz_}")
  done
fi
core=(shared/src/*.c shared/src/io/*.c)
status=0
for t in "${targets[@]}"; do
  bin="$out/fuzz_$t"
  clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -Ishared/include -Ishared/src -Itests/fuzz -o "$bin" "tests/fuzz/fuzz_$t.c" "${core[@]}" -lcjson -lm
  corpus="$out/corpus-$t"
  mkdir -p "$corpus"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  echo "== fuzz_$t for ${seconds}s"
  if ! (cd "$out" && "./fuzz_$t" -max_total_time="$seconds" -max_len=65536 -print_final_stats=1 "corpus-$t" 2>&1 | tail -12); then
    echo "fuzz_$t FOUND A CRASH (see $out/crash-*)"
    status=1
  fi
done
exit $status
