#!/usr/bin/env bash
# Every command of the README's "The tool" block runs as printed, from the project's root, with the
# built tool in build/ (given here as the tool's path): exit status 0 and some output. Lines that
# read ../shared/data (directly or through scripts/examples/) are skipped when that folder is absent.
# usage: readme_commands.sh SOURCE_DIR PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
src=$1; bin=$2; work=$3
mkdir -p "$work"
cmds=$(awk '/^## The tool/{f=1} f&&/^```sh$/{c=1;next} c&&/^```$/{exit} c{print}' "$src/README.md")
[ -n "$cmds" ] || { echo "FAIL: no command block under '## The tool' in README.md"; echo "0 passed, 1 failed"; exit 1; }
pass=0; fail=0; skip=0
skipped_outputs=()   # files that skipped lines would have written (-o FILE): lines using them skip too
# Run in a scratch copy of the paths the commands use, so outputs land in WORK_DIR.
cd "$work" || exit 1
rm -rf tests scripts && mkdir -p tests scripts && cp -r "$src/tests/fixtures" tests/ && cp -r "$src/scripts/examples" scripts/
shared=${BSYNC_SHARED_DIR:-$src/../shared}
ln -sfn "$shared" ../shared 2>/dev/null || true
while IFS= read -r line; do
  [ -z "$line" ] && continue
  needs_skipped=0
  for o in "${skipped_outputs[@]}"; do [[ " $line " == *" $o "* ]] && needs_skipped=1; done
  # lines that read the third-party data: directly, or through the examples' configs
  if { [[ "$line" == *"../shared/data"* || "$line" == *"scripts/examples/"* ]] && [ ! -d "$shared/data" ]; } ||
     [ $needs_skipped -eq 1 ]; then
    echo "skip $line (no ../shared/data)"; skip=$((skip + 1))
    if [[ "$line" =~ -o\ ([^ ]+) ]]; then skipped_outputs+=("${BASH_REMATCH[1]}"); fi
    continue
  fi
  cmd=${line/#build\/blendsync/$bin}
  if out=$(bash -c "$cmd" 2>&1) && [ -n "$out" ]; then
    pass=$((pass + 1)); echo "ok   $line"
  else
    fail=$((fail + 1)); echo "FAIL $line"; echo "$out" | head -5
  fi
done <<<"$cmds"
[ -f loco.png ] && [ -f speed.png ] || { echo "FAIL: the plot commands wrote no pictures"; fail=$((fail + 1)); }
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
