#!/usr/bin/env bash
# `blendsync bench` as a user runs it (short runs: this checks the tool, not the speed): one JSON line
# per (characters, threads, stage) with the documented fields; no allocation in the measured ticks;
# the computed poses (checksum) the same for 1, 2 and 3 threads and for every round; the pab data
# when it is present and the procedural stand-in when it is not (said in "source"); bad arguments
# refused with exit 2; every SIMD path (BSYNC_SIMD) computes the scalar path's poses.
# usage: cli_bench.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
mkdir -p "$work" && cd "$work" || exit 1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

# The stand-in, forced: 2 character counts x 3 thread counts x 4 stages = 24 lines.
"$bin" bench --scenario standin --characters 4,7 --threads 1,2,3 --ticks 12 --rounds 3 --json > standin.jsonl
check "standin bench exits 0" $?
python3 - standin.jsonl <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 24, len(rows)
keys = {"scenario", "source", "joints", "characters", "threads", "stage", "ns_per_character_tick",
        "bytes_per_character", "scratch_bytes_per_thread", "clip_bytes", "allocations", "checksum", "ticks", "rounds"}
sums = {}
for r in rows:
    assert keys <= set(r), set(keys) - set(r)
    assert r["scenario"] == "standin" and "stand-in" in r["source"], r["source"]
    assert r["joints"] == 67 and r["ticks"] == 12 and r["rounds"] == 3
    assert r["allocations"] == 0
    assert r["ns_per_character_tick"]["cpu"] > 0 and r["ns_per_character_tick"]["wall"] > 0
    # 3 cursors + a local and a model pose of 67 joints (40 bytes each) at least
    assert r["bytes_per_character"] >= 2 * 67 * 40, r["bytes_per_character"]
    if r["stage"] == "sample":
        assert r["checksum"] == "0000000000000000"
    else:
        assert r["checksum"] != "0000000000000000"
    sums.setdefault((r["characters"], r["stage"]), set()).add(r["checksum"])
assert {s for (n, s) in sums} == {"sample", "blend", "ltm", "graph"}
for k, v in sums.items():
    assert len(v) == 1, (k, v)  # the same poses whatever the thread count
# 4 and 7 characters compute different poses (the workload depends on k)
assert sums[(4, "blend")] != sums[(7, "blend")]
print("standin rows ok")
EOF
check "standin: 24 rows, fields, 0 allocations, same poses for 1/2/3 threads" $?

# One stage only, plain text.
out=$("$bin" bench --scenario standin --characters 2 --stages blend --ticks 5 --rounds 1)
check "plain text exits 0" $?
echo "$out" | grep -q "stand-in" && echo "$out" | grep -Eq '^ +2 +1 +blend ' && ! echo "$out" | grep -Eq ' (sample|ltm|graph) '
check "plain text: the stand-in named, one blend row" $?

# pab: with the shared data it is used, without it the stand-in stands in (and says so).
pab="${BSYNC_SHARED_DIR:-../shared}/data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf"
"$bin" bench --characters 3 --stages sample,blend --ticks 5 --rounds 1 --json > pab.jsonl
check "default scenario exits 0" $?
if [ -f "$pab" ]; then
  grep -q '"scenario": "pab"' pab.jsonl && grep -q 'pab_locomotion_runtime.gltf' pab.jsonl
  check "the pab data is used when present" $?
else
  grep -q '"scenario": "standin"' pab.jsonl
  check "without the pab data, the stand-in (said in the output)" $?
fi
"$bin" bench --data "$work/no-such-folder" --characters 2 --stages blend --ticks 5 --rounds 1 --json > nodata.jsonl
check "--data to an empty place exits 0" $?
grep -q '"scenario": "standin"' nodata.jsonl && grep -q 'pab data not found' nodata.jsonl
check "--data without pab: the stand-in, said so" $?

# Every SIMD path (BSYNC_SIMD, read by the CLI): the same poses as the scalar reference, and the path
# named in the output; an unknown path refused.
BSYNC_SIMD=scalar "$bin" bench --characters 5 --threads 1,2 --ticks 30 --rounds 1 --json > simd-scalar.jsonl
check "BSYNC_SIMD=scalar exits 0" $?
grep -q '"simd": "scalar"' simd-scalar.jsonl
check "BSYNC_SIMD=scalar: the path named in every row" $?
for path in avx2 avx512 neon auto; do
  if BSYNC_SIMD=$path "$bin" bench --characters 5 --threads 1,2 --ticks 30 --rounds 1 --json > simd-$path.jsonl 2> simd-err.txt; then
    python3 - simd-scalar.jsonl simd-$path.jsonl <<'EOF'
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
assert len(a) == len(b) == 8, (len(a), len(b))
for x, y in zip(a, b):
    assert (x["stage"], x["threads"]) == (y["stage"], y["threads"])
    assert x["checksum"] == y["checksum"], (x["stage"], x["checksum"], y["checksum"])
assert all(r["simd"] in ("scalar", "avx2", "avx512", "neon") for r in b)
EOF
    check "BSYNC_SIMD=$path: the same poses as the scalar path" $?
  else
    grep -q "no such path" simd-err.txt
    check "BSYNC_SIMD=$path: not on this machine, refused with a message" $?
  fi
done
BSYNC_SIMD=mmx "$bin" bench --characters 1 --ticks 5 --rounds 1 > /dev/null 2> err.txt
rc=$?
[ $rc -eq 2 ] && grep -q "expected scalar" err.txt
check "BSYNC_SIMD=mmx: exit 2 with a message" $?

# --compact: every (stage) twice, default then compact; fewer clip bytes; 0 allocations; compact poses
# are their own (lossy keys: another checksum than the default's), the same for 1 and 2 threads.
"$bin" bench --scenario standin --characters 5 --threads 1,2 --stages sample,blend --ticks 6 --rounds 2 --json --compact > compact.jsonl
check "bench --compact exits 0" $?
python3 - compact.jsonl <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 8, len(rows)
d = [r for r in rows if r["encoding"] == "default"]
c = [r for r in rows if r["encoding"] == "compact"]
assert len(d) == len(c) == 4
for x, y in zip(d, c):
    assert (x["stage"], x["threads"]) == (y["stage"], y["threads"])
    assert y["clip_bytes"] < x["clip_bytes"], (x["clip_bytes"], y["clip_bytes"])
    assert x["allocations"] == y["allocations"] == 0
    if x["stage"] == "blend":
        assert x["checksum"] != y["checksum"]
blend_c = {r["threads"]: r["checksum"] for r in c if r["stage"] == "blend"}
assert blend_c[1] == blend_c[2], blend_c
EOF
check "bench --compact: default and compact rows, fewer clip bytes, same compact poses for 1 and 2 threads" $?

# Bad arguments.
for args in "--characters 0" "--characters x" "--threads 99" "--stages fly" "--scenario mars" "--rounds 0" "--bogus"; do
  # shellcheck disable=SC2086
  "$bin" bench $args > /dev/null 2> err.txt
  rc=$?
  [ $rc -eq 2 ] && [ -s err.txt ]
  check "bench $args: exit 2 with a message" $?
done

echo "cli_bench: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
