#!/usr/bin/env bash
# The README's "A match on your machine" block runs as printed: a server, four bots, replay verify and
# info — on a free port instead of 7777 and with a 90-tick match instead of 600 (the only two
# substitutions), in a scratch copy of scripts/demo/.
# usage: readme_match.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -uo pipefail
src=$1; build=$2; work=$3
rm -rf "$work" && mkdir -p "$work/scripts" && cd "$work" || exit 1
cp -r "$src/scripts/demo" scripts/
sed -i 's/"duration_ticks": [0-9]*/"duration_ticks": 90/' scripts/demo/match.json
block=$(awk '/^## A match on your machine/{f=1} f&&/^```sh$/{c=1;next} c&&/^```$/{exit} c{print}' "$src/README.md")
[ -n "$block" ] || { echo "FAIL: no sh block under '## A match on your machine'"; exit 1; }
port=$((20000 + RANDOM % 30000))
script=${block//127.0.0.1:7777/127.0.0.1:$port}
script=${script//build\/blendsync-server/$build\/blendsync-server}
script=${script//build\/blendsync /$build\/blendsync }
echo "$script" >match_block.sh
if ! out=$(timeout 120 bash -e match_block.sh 2>&1); then
  echo "FAIL: the block exited non-zero"; echo "$out" | tail -20; exit 1
fi
echo "$out" | tail -30
fail=0
grep -q "verified" <<<"$out" || { echo "FAIL: replay verify said nothing about verification"; fail=1; }
grep -qE "frames:? *90|90 frames" <<<"$out" || { echo "FAIL: replay info did not report 90 frames"; fail=1; }
[ -s demo.bsreplay ] || { echo "FAIL: no demo.bsreplay"; fail=1; }
[ $fail -eq 0 ] && echo "ok: the README match block runs as printed"
exit $fail
