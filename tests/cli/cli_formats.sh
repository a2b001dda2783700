#!/usr/bin/env bash
# Every file a released version wrote stays readable (docs/library.md): the files under
# tests/fixtures/formats/<release>/ were written by the release's own blendsync and blendsync-server
# (README.md there: commit and commands). Today's build must read each one and get its content right;
# the expectations are what the old release printed about its own files (expected/):
# - replays (an offline match, a cut of it starting with a snapshot, a live server match with a DESYNC
#   record, a client's own view, an instance run and its cut): `replay verify` gives the old release's
#   verdict, counts and mismatch line, and exit code;
# - the server's desync bundle (bundle.json, match snapshots, the client's trail, inputs.csv):
#   `desync diff` prints the old release's lines, the same as the server's own report.txt;
# - .bsclip files (version 1, and version 2 = --compact where it existed): `import --list` as the old
#   release printed it, and a graph playing the clip gives the old release's pose checksum every tick;
# - 0.3.0/backslash: a bundle whose bundle.json holds a raw backslash (a format 1 writer did not
#   escape paths; 0.3.0 itself could not read it back): read, with the server's report lines.
# usage: cli_formats.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1"); work=$2
src="$(cd "$(dirname "$0")/../.." && pwd)"
fx="$src/tests/fixtures/formats"
rm -rf "$work" && mkdir -p "$work" || exit 1
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

releases=$(cd "$fx" && ls -d [0-9]*.[0-9]*.[0-9]* | tr '\n' ' ')
[ "$releases" = "0.1.0 0.2.0 0.3.0 0.4.0 " ] && ok "fixtures of releases $releases" || bad "fixture folders: $releases"

# "rc=N" of `what` in expected/rc.txt
want_rc() { sed -n "s/^$1 rc=\([0-9]*\)$/\1/p" expected/rc.txt; }
# tick and pose checksum of every line of eval's JSON Lines
poses() { sed -n 's/^{"tick": \([0-9]*\),.*"pose_checksum": "\([0-9a-f]*\)".*$/\1\t\2/p' "$1"; }

for r in $releases; do
  cp -r "$fx/$r" "$work/$r" && cd "$work/$r" || { bad "$r: copy"; continue; }
  for f in record cut server client eval eval-cut; do
    rc=0
    "$bin" replay verify $f.bsreplay --no-dump > verify-$f.out 2>&1 || rc=$?
    # all but the speed and where the graphs were found (the old run's folder, here the current one)
    if [ "$rc" = "$(want_rc "verify $f")" ] && grep -q '^config: recorded ' verify-$f.out \
       && diff <(grep -v '^speed: \|^config: ' verify-$f.out) <(grep -v '^config: ' expected/verify-$f.txt) > /dev/null; then
      ok "$r $f.bsreplay: verify exit $rc, $(grep '^verdict' verify-$f.out)"
    else
      bad "$r $f.bsreplay: verify exit $rc"; diff <(grep -v '^speed: ' verify-$f.out) expected/verify-$f.txt
    fi
  done
  # the record kinds: the live match's replay holds FRAME, CHECKSUM, DESYNC and END; the cut a SNAPSHOT
  grep -q '^  tick 44, slot 1: character blend, character 1 (p1): expected ' verify-server.out \
    && grep -q '^start: snapshot at tick 25 ' verify-cut.out && grep -q '^start: snapshot at tick 20 ' verify-eval-cut.out \
    && "$bin" replay info server.bsreplay > info.out 2>&1 && "$bin" replay info cut.bsreplay >> info.out 2>&1 \
    && ok "$r: the DESYNC record (tick 44, slot 1) and the SNAPSHOT records (verify starts from them) read" \
    || bad "$r: DESYNC / SNAPSHOT records"
  rc=0
  bundle=server.bsreplay.desync/tick44-slot1
  # bundle.json names the config by the old machine's absolute path: --match (the config line differs)
  "$bin" desync diff "$bundle" --match match.json > diff.out 2>&1 || rc=$?
  if [ "$rc" = "$(want_rc "desync diff")" ] && diff <(grep -v '^match 30 (' diff.out) <(grep -v '^match 30 (' expected/desync-diff.txt) > /dev/null \
     && grep -q '^match 30 (' diff.out && diff <(grep '^  ' diff.out) <(grep '^  ' "$bundle/report.txt") > /dev/null; then
    ok "$r desync bundle: diff exit $rc, the old release's lines and the server's report.txt"
  else
    bad "$r desync bundle: diff exit $rc"; diff diff.out expected/desync-diff.txt
  fi
  for c in "" -compact; do
    [ -f baked$c.bsclip ] || continue
    "$bin" import --list baked$c.bsclip > list.out 2>&1
    diff list.out expected/import-list$c.txt > /dev/null && ok "$r baked$c.bsclip: import --list as the old release" \
      || { bad "$r baked$c.bsclip: import --list"; diff list.out expected/import-list$c.txt; }
    "$bin" eval clip$c.json --script clip.csv --ticks 20 --out clip$c.jsonl > /dev/null 2>&1
    if [ "$(poses clip$c.jsonl | wc -l)" -eq 20 ] && diff <(poses clip$c.jsonl) expected/clip$c-pose.tsv > /dev/null; then
      ok "$r baked$c.bsclip: the old release's pose checksum at each of 20 ticks"
    else
      bad "$r baked$c.bsclip: pose checksums"; diff <(poses clip$c.jsonl) expected/clip$c-pose.tsv
    fi
  done
done

cd "$work/0.3.0/backslash" || exit 1
b=bs.bsreplay.desync/tick44-slot1
grep -q '"match_config": "/tmp/fxbs/we\\ird/match.json"' $b/bundle.json && ok "0.3.0 backslash: bundle.json holds a raw backslash" \
  || bad "0.3.0 backslash: fixture"
rc=0
"$bin" desync diff $b > diff.out 2>&1 || rc=$?
# read literally: the path comes back with its backslash (not an escape, not a parse failure)
[ $rc -eq 2 ] && grep -q 'match config "/tmp/fxbs/we\\ird/match.json" is not found' diff.out \
  && ok "0.3.0 backslash: bundle.json read, match_config with its backslash" || { bad "0.3.0 backslash: match_config"; cat diff.out; }
rc=0
"$bin" desync diff $b --match match.json > diff.out 2>&1 || rc=$?
if [ $rc -eq 1 ] && grep -q '^B = client (slot 1): ' diff.out && grep -q '^differences: 1 ' diff.out \
   && diff <(grep '^  ' diff.out) <(grep '^  ' $b/report.txt) > /dev/null; then
  ok "0.3.0 backslash: diff exit 1, slot 1 from bundle.json, the server's report.txt lines"
else
  bad "0.3.0 backslash: diff exit $rc"; cat diff.out
fi

echo "passed $pass, failed $fail"
[ $fail -eq 0 ]
