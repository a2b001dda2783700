#!/usr/bin/env bash
# `blendsync validate` as a user runs it: glTF fixtures this script writes (perl packs the float
# buffers) with planted problems — a joint missing between sibling clips, a NaN key, a broken loop
# seam, an out-of-range translation, clips of very different lengths in one node — and a clean
# fixture; exit statuses 0/1/2, the text and --json formats, --suggest-thresholds, usage errors;
# the demo's graph config (builtin:humanoid sources) and match config, and match configs with an
# input or trigger that drives nothing, a missing graph file and differing tick rates.
# Fox.glb and the pab example config run when ../shared is present.
# usage: cli_validate.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
mkdir -p "$work" && cd "$work" || exit 1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
if ! command -v perl >/dev/null; then
  echo "skip: perl is needed to write the fixtures"
  echo "0 passed, 0 failed"
  exit 0
fi

# gen.pl OUT ANIM... ; ANIM = name:duration:root_dx:spine_last_yaw_deg:head(0|1)[:nan|far]
# Nodes hips(0) -> spine(1) -> head(2); 5 keys evenly over the duration; hips translates dx along x
# (y = 1); spine yaws 0, 10, 0, -10, LAST; head yaws 0, 10, 0, -10, 0.
cat > gen.pl <<'PERL'
use strict; use warnings;
my $out = shift @ARGV;
my ($buf, @views, @acc, @anims) = ('');
sub add { my ($type, @f) = @_; my $off = length $buf; $buf .= pack('f<*', @f);
  push @views, qq({"buffer":0,"byteOffset":$off,"byteLength":) . (4 * @f) . '}';
  my $n = @f / ($type eq 'SCALAR' ? 1 : $type eq 'VEC3' ? 3 : 4);
  push @acc, qq({"bufferView":$#views,"componentType":5126,"count":$n,"type":"$type"}); return $#acc; }
sub yaw { my $h = $_[0] * 3.14159265358979 / 360; return (0, sin($h), 0, cos($h)); }
for my $spec (@ARGV) {
  my ($name, $dur, $dx, $last, $head, $bad) = split /:/, $spec;
  $bad //= '';
  my $t = add('SCALAR', map { $dur * $_ / 4 } 0..4);
  my @tr = map { ($dx * $_ / 4, 1, 0) } 0..4;
  $tr[7] = 'nan' + 0 if $bad eq 'nan';  # key 2's y
  $tr[9] = 40000 if $bad eq 'far';      # key 3's x
  my @ch = ([0, 'translation', add('VEC3', @tr)]);
  push @ch, [1, 'rotation', add('VEC4', map { yaw($_) } (0, 10, 0, -10, $last))];
  push @ch, [2, 'rotation', add('VEC4', map { yaw($_) } (0, 10, 0, -10, 0))] if $head;
  my $s = join ',', map { qq({"input":$t,"output":$_->[2]}) } @ch;
  my $c = join ',', map { qq({"sampler":$_,"target":{"node":$ch[$_][0],"path":"$ch[$_][1]"}}) } 0..$#ch;
  push @anims, qq({"name":"$name","samplers":[$s],"channels":[$c]});
}
my $b64 = ''; my $i = 0;
{ use MIME::Base64; $b64 = encode_base64($buf, ''); }
open my $fh, '>', $out or die;
print $fh '{"asset":{"version":"2.0"},"nodes":[{"name":"hips","children":[1]},{"name":"spine","translation":[0,0.5,0],"children":[2]},'
  . '{"name":"head","translation":[0,0.3,0]}],"scenes":[{"nodes":[0]}],"scene":0,"skins":[{"joints":[0,1,2]}],'
  . '"buffers":[{"byteLength":' . length($buf) . ',"uri":"data:application/octet-stream;base64,' . $b64 . '"}],'
  . '"bufferViews":[' . join(',', @views) . '],"accessors":[' . join(',', @acc) . '],"animations":[' . join(',', @anims) . ']}';
close $fh;
PERL
perl gen.pl clean.gltf walk:1:1:0:1 run:1.05:3.15:0:1 || exit 1
perl gen.pl set.gltf walk:1:1:0:1 limp:1:1:0:0 stumble:1:1:30:1 crawl:2:2:0:1 || exit 1
perl gen.pl nan.gltf walk:1:1:0:1:nan || exit 1
perl gen.pl far.gltf walk:1:1:0:1:far || exit 1
node() { # name sync motion:threshold...
  local n=$1 sync=$2; shift 2
  local ch="" cl="" first=1
  for m in "$@"; do
    [ $first -eq 1 ] || { ch+=","; cl+=","; }
    first=0
    ch+="{\"motion\": \"${m%%:*}\", \"threshold\": ${m#*:}}"
    cl+="\"${m%%:*}\": {\"source\": \"$SRCFILE\"}"
  done
  printf '{"parameters": {"speed": {}}, "root": "move", "nodes": {"move": {"type": "Simple1D", "parameter": "speed", "sync": "%s", "children": [%s]}}, "clips": {%s}, "root_joint": "hips"}\n' \
    "$sync" "$ch" "$cl" > "$n"
}

# --- clean
out=$("$bin" validate clean.gltf 2>err.txt); rc=$?
[ $rc -eq 0 ] && [ ! -s err.txt ]
check "clean file: exit 0, nothing on stderr" $?
grep -q '^0 error(s), 0 warning(s), 2 info; status 0$' <<<"$out"
check "clean file: no errors or warnings, two root_motion infos" $?
# walk: 5 keys over 1 s -> interval 0.25 s, 4 Hz; 3 tracks on 3 joints; root 1 m in 1 s
grep -q "^clip walk (clean.gltf): 1.0000 s, 3 tracks on 3 joints (max 1 per joint), 15 keys, key interval 0.2500 s (4.0 Hz), root 'hips' 1.0000 m/s, seam 0.00 deg / 0.0000 m$" <<<"$out"
check "clean file: walk's duration, key rate, tracks, root speed, seam" $?
SRCFILE=clean.gltf node clean.json normalized walk:1 run:3
out=$("$bin" validate clean.json --suggest-thresholds); rc=$?
[ $rc -eq 0 ] && grep -q '^threshold move/walk: 1.00000 (root speed; now 1.00000)$' <<<"$out" \
  && grep -qE '^threshold move/run: (3\.0000|2\.9999)[0-9] \(root speed; now 3\.00000\)$' <<<"$out"
check "clean config: exit 0; --suggest-thresholds gives 1 and 3 m/s (1 m / 1 s, 3.15 m / 1.05 s)" $?
! grep -q cycle_length_mismatch <<<"$out"
check "clean config: 1.05 s vs 1 s is within 10%: no cycle finding" $?

# --- planted problems
SRCFILE=set.gltf node missing.json normalized walk:0 limp:1
out=$("$bin" validate missing.json); rc=$?
[ $rc -eq 1 ] && grep -q "^warning missing_in_sibling missing.json clip limp joint head: node 'move': motion 'limp' does not animate 1 joint(s) that a sibling animates: head$" <<<"$out"
check "missing joint between siblings: warning naming limp and head, exit 1" $?

out=$("$bin" validate set.gltf); rc=$?
[ $rc -eq 1 ] && grep -q "^warning loop_seam set.gltf clip stumble joint spine: clip 'stumble' does not loop cleanly: first vs last key differ by up to 30.00[0-9] deg" <<<"$out"
check "broken loop seam: 30 deg on spine, exit 1" $?
[ "$(grep -c loop_seam <<<"$out")" -eq 1 ]
check "only the broken clip has a seam finding" $?

SRCFILE=set.gltf node lengths.json none walk:0 crawl:1
out=$("$bin" validate lengths.json); rc=$?
[ $rc -eq 1 ] && grep -q "^warning cycle_length_mismatch lengths.json: node 'move': cycle lengths differ by 100.0% ('walk' 1.0000 s vs 'crawl' 2.0000 s)" <<<"$out"
check "clips of 1 s and 2 s in a node without sync: warning, 100%" $?
SRCFILE=set.gltf node lengths2.json normalized walk:0 crawl:1
out=$("$bin" validate lengths2.json); rc=$?
[ $rc -eq 0 ] && grep -q "^info cycle_length_mismatch lengths2.json: .*normalized sync time-syncs them$" <<<"$out"
check "the same clips under normalized sync: info, exit 0" $?

out=$("$bin" validate nan.gltf clean.gltf); rc=$?
[ $rc -eq 2 ] && grep -q "^error not_finite nan.gltf: " <<<"$out" && grep -q "^clip walk (clean.gltf)" <<<"$out"
check "NaN key: error finding, exit 2, the next file is still checked" $?
out=$("$bin" validate far.gltf); rc=$?
[ $rc -eq 2 ] && grep -q "^error out_of_range far.gltf: " <<<"$out"
check "translation of 40000 m: out_of_range error, exit 2" $?

# --- JSON
out=$("$bin" validate set.gltf far.gltf --json); rc=$?
[ $rc -eq 2 ] && [ "$(head -c 1 <<<"$out")" = "{" ]
check "--json: one object, exit 2" $?
if command -v python3 >/dev/null; then
  python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert d["status"] == 2 and d["errors"] == 1, d["status"]
codes = {f["code"] for f in d["findings"]}
assert {"loop_seam", "out_of_range", "root_motion"} <= codes, codes
s = [f for f in d["findings"] if f["code"] == "loop_seam"][0]
assert s["clip"] == "stumble" and s["joint"] == "spine" and abs(s["value"] - 30) < 0.01 and s["limit"] == 5
c = [c for c in d["clips"] if c["clip"] == "crawl"][0]
assert abs(c["duration"] - 2) < 1e-9 and abs(c["root_speed"] - 1) < 1e-4 and c["tracks"] == 3
' <<<"$out"
  check "--json parses; seam 30 deg on stumble/spine, crawl 2 s at 1 m/s" $?
else
  echo "skip JSON parse (no python3)"
fi

# --- usage
"$bin" validate >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -q "no config or files" err.txt
check "no arguments: exit 2 with a message" $?
"$bin" validate clean.gltf --bogus >/dev/null 2>err.txt; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option --bogus" err.txt
check "unknown option: exit 2" $?
out=$("$bin" validate --help); rc=$?
[ $rc -eq 0 ] && grep -q "exit status: 0 clean, 1 warnings, 2 errors" <<<"$out"
check "--help" $?

# --- built-in sources and match configs (the demo's files, in the repository)
# Expected numbers from procedural.h's contract: 25 keys per track, the last equal to the first (closed
# loops: seam 0); idle 2.0 s, walk 1.0 s at 1.4 m/s, run 0.7 s at 3.5 m/s, walk_back 1.0 s at 1.2 m/s,
# strafes 1.0 s at 1.3 m/s, wave 1.2 s and punch 1.0 s in place.
demo=$src/scripts/demo/humanoid_locomotion.json
out=$("$bin" validate "$demo" 2>err.txt); rc=$?
# Exit 0: no seam (closed loops), every clip animates the same joints (no missing_in_sibling), and the
# only cycle-length differences are in nodes with normalized sync (info): locomotion idle 2.0 s vs run
# 0.7 s = 2 / 0.7 - 1 = 185.7 %, move idle 2.0 s vs 1.0 s = 100 %. The Switch node 'upper' (wave 1.2 s,
# punch 1.0 s: 20 %) plays one state at a time and is not checked. Infos: 5 root_motion + 2 cycle.
[ $rc -eq 0 ] && [ ! -s err.txt ] && grep -q '^0 error(s), 0 warning(s), 7 info; status 0$' <<<"$out"
check "demo graph config (builtin:humanoid): exit 0, 7 infos, no import_failed" $?
[ "$(grep -c '^clip ' <<<"$out")" -eq 8 ] && [ "$(grep -c 'seam 0.00 deg / 0.0000 m$' <<<"$out")" -eq 8 ] \
  && ! grep -q 'loop_seam\|import_failed' <<<"$out"
check "demo graph config: 8 built-in clips, all seams 0 (closed loops)" $?
grep -q "^clip walk = 'walk' (builtin:humanoid): 1.0000 s, 24 tracks on 23 joints (max 2 per joint), 600 keys, key interval 0.0417 s (24.0 Hz), root 'root' 1.4000 m/s" <<<"$out" \
  && grep -q "^clip run = 'run' (builtin:humanoid): 0.7000 s, .* key interval 0.0292 s (34.3 Hz), root 'root' 3.5000 m/s" <<<"$out"
check "demo graph config: walk 1 s / 25 keys (1/24 s) / 1.4 m/s, run 0.7 s / 3.5 m/s" $?
grep -q "^info cycle_length_mismatch .*node 'locomotion': cycle lengths differ by 185.7% ('run' 0.7000 s vs 'idle' 2.0000 s)" <<<"$out" \
  && grep -q "node 'move': cycle lengths differ by 100.0%" <<<"$out" && ! grep -q "node 'upper'" <<<"$out"
check "demo graph config: cycle lengths 185.7% and 100% (info), none for the Switch node" $?
out=$("$bin" validate "$demo" --suggest-thresholds); rc=$?
[ $rc -eq 0 ] && grep -qE '^threshold locomotion/walk: 1\.(39999|40000|40001) ' <<<"$out" \
  && grep -qE '^threshold locomotion/run: 3\.(49999|50000|50001) ' <<<"$out" && ! grep -q '^threshold upper/' <<<"$out"
check "demo graph config: suggested thresholds 1.4 and 3.5 (the speeds), none for the Switch" $?

dmatch=$src/scripts/demo/match.json
out=$("$bin" validate "$dmatch" 2>err.txt); rc=$?
[ $rc -eq 0 ] && [ ! -s err.txt ] \
  && grep -q '^info match_graph .*scripts/demo/humanoid_locomotion.json: graph "humanoid_locomotion.json": characters p0, p1, p2, p3, npc0, npc1 (4 players, 2 NPCs); tick rate 30$' <<<"$out"
check "demo match config: exit 0, names its graph file, its six characters and tick rate 30" $?
# six characters share one graph file: it is checked once (8 clips, not 48); infos = 7 + match_graph
[ "$(grep -c '^clip ' <<<"$out")" -eq 8 ] && grep -q "^clip walk = 'walk' (builtin:humanoid, graph .*scripts/demo/humanoid_locomotion.json): " <<<"$out" \
  && grep -q '^0 error(s), 0 warning(s), 8 info; status 0$' <<<"$out"
check "demo match config: its graph checked once, clips tagged with the graph" $?
if command -v python3 >/dev/null; then
  "$bin" validate "$dmatch" --json | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert d["mode"] == "match" and d["status"] == 0 and d["errors"] == 0 and d["warnings"] == 0, d
assert len(d["clips"]) == 8 and all(c["graph"].endswith("scripts/demo/humanoid_locomotion.json") for c in d["clips"])
assert all(f["graph"].endswith("scripts/demo/humanoid_locomotion.json") for f in d["findings"])
want = {"idle": (2.0, 0), "walk": (1.0, 1.4), "run": (0.7, 3.5), "walk_back": (1.0, 1.2), "strafe_left": (1.0, 1.3),
        "strafe_right": (1.0, 1.3), "wave": (1.2, 0), "punch": (1.0, 0)}
for c in d["clips"]:
    dur, v = want[c["clip"]]
    assert abs(c["duration"] - dur) < 2e-5 and abs(c["root_speed"] - v) < 1e-3 and c["seam_rotation_deg"] == 0, c
'
  check "demo match --json: mode match, 8 clips with the contract durations and speeds, all tagged" $?
fi

# a match whose input parameter "nope" exists in no graph
printf '{"match_id": 5, "players": [{"token": "a"}],\n "input": {"parameters": [{"name": "speed", "min": 0, "max": 3.5}, {"name": "nope", "min": 0, "max": 1}]%s},\n "characters": [{"name": "p0", "graph": "%s", "slot": 0}, {"name": "n0", "graph": "%s", "npc_seed": 2}]}\n' \
  "" "$demo" "$demo" > match_nope.json
out=$("$bin" validate match_nope.json); rc=$?
[ $rc -eq 1 ] && grep -q '^warning unmapped_input .*scripts/demo/humanoid_locomotion.json: input parameter "nope" drives no character: graph ".*humanoid_locomotion.json" (characters p0, n0) has no parameter of that name (parameters: speed, move_x, move_y)$' <<<"$out" \
  && grep -q '^0 error(s), 1 warning(s), ' <<<"$out"
check "match with input parameter nope: one unmapped_input warning naming the graph, exit 1" $?
# triggers on switch "legs" (no such Switch node) and on "upper" (the demo's Switch)
printf '{"match_id": 5, "players": [{"token": "a"}],\n "input": {"parameters": [{"name": "speed", "min": 0, "max": 3.5}]%s},\n "characters": [{"name": "p0", "graph": "%s", "slot": 0}, {"name": "n0", "graph": "%s", "npc_seed": 2}]}\n' \
  ', "triggers": [{"name": "kick", "switch": "legs"}, {"name": "act", "switch": "upper"}]' "$demo" "$demo" > match_trig.json
out=$("$bin" validate match_trig.json); rc=$?
[ $rc -eq 1 ] && grep -q '^warning unmapped_trigger .*humanoid_locomotion.json: input trigger "kick" drives no character: .* has no Switch node "legs" (Switch nodes: upper)$' <<<"$out" \
  && [ "$(grep -c unmapped_ <<<"$out")" -eq 1 ]
check "match with a trigger on switch legs: unmapped_trigger (the one on upper is mapped), exit 1" $?

# a match whose second graph file is missing: the loader's error, with the path; exit 2
printf '{"match_id": 6, "players": [{"token": "a"}],\n "characters": [{"name": "p0", "graph": "%s", "slot": 0}, {"name": "n0", "graph": "%s", "npc_seed": 2}]}\n' \
  "$demo" "nowhere/gone.json" > match_missing.json
out=$("$bin" validate match_missing.json 2>err.txt); rc=$?
[ $rc -eq 2 ] && grep -q '^error match_error match_missing.json: match_missing.json: /characters/1/graph: cannot load "nowhere/gone.json": nowhere/gone.json: cannot read' <<<"$out"
check "match with a missing graph file: exit 2, match_error with the path" $?
grep -q "^clip walk = 'walk' (builtin:humanoid, graph .*humanoid_locomotion.json)" <<<"$out"
check "match with a missing graph file: the graph that exists is still checked" $?

# graphs at 30 and 60 Hz: the loader's tick-rate error
sed 's/"tick_rate": 30/"tick_rate": 60/' "$demo" > fast.json
printf '{"match_id": 7, "players": [{"token": "a"}],\n "characters": [{"name": "p0", "graph": "%s", "slot": 0}, {"name": "n0", "graph": "%s", "npc_seed": 2}]}\n' \
  "$demo" "fast.json" > match_rate.json
out=$("$bin" validate match_rate.json); rc=$?
[ $rc -eq 2 ] && grep -q '^error match_error match_rate.json: .*/characters/1/graph: tick rate 60 of "fast.json" (character n0) differs from tick rate 30' <<<"$out"
check "match with graphs at 30 and 60 Hz: exit 2 with the loader's message" $?

# --- shared data
shared=${BSYNC_SHARED_DIR:-$src/../shared}
if [ -f "$shared/data/khronos-fox/Fox.glb" ]; then
  out=$("$bin" validate "$shared/data/khronos-fox/Fox.glb"); rc=$?
  echo "$out" | sed 's/^/  | /'
  [ $rc -eq 0 ] && [ "$(grep -c '^clip ' <<<"$out")" -eq 3 ]
  check "Fox.glb: 3 clips, exit 0" $?
else
  echo "skip Fox.glb (no shared data)"
fi
ex=$src/scripts/examples/pab_locomotion.json
if [ -f "$src/../shared/data/ozz-animation-pab/converted/pab_locomotion_runtime.gltf" ] && [ -f "$ex" ]; then
  out=$("$bin" validate "$ex" --suggest-thresholds); rc=$?
  echo "$out" | sed 's/^/  | /'
  [ $rc -eq 0 ] && grep -q '^threshold locomotion/walk: 1.069' <<<"$out" && grep -q '^threshold locomotion/jog: 3.12' <<<"$out" \
    && grep -q '^threshold locomotion/run: 5.018' <<<"$out"
  check "pab example: exit 0, suggested thresholds match the config's (1.06913, 3.125, 5.01837)" $?
else
  echo "skip pab example (no ../shared)"
fi

# --suggest-markers (docs/actions.md "Sync markers"): the built-in walk (1.0 s) and run (0.7 s) swing
# their legs in anti-phase (procedural.h: the legs swing +-28 / +-45 deg, one leg half a cycle after the
# other), so the two feet plant half a cycle apart: |foot_r - foot_l| = D / 2 within one of the 64
# samples (D / 64); idle's feet do not move, so any plant is as good (both reported).
cat > markers.json <<'JSON'
{ "parameters": { "speed": {} }, "root": "loco", "nodes": { "loco": { "type": "Simple1D", "parameter": "speed",
  "children": [ { "motion": "walk", "threshold": 0 }, { "motion": "run", "threshold": 1 }, { "motion": "idle", "threshold": 2 } ] } },
  "clips": { "walk": { "source": "builtin:humanoid" }, "run": { "source": "builtin:humanoid" }, "idle": { "source": "builtin:humanoid" } } }
JSON
out=$("$bin" validate markers.json --suggest-markers 2>&1); rc=$?
half_apart() { # motion line -> 0 when |r - l| is within D/64 of D/2
  awk -v m="$1" 'BEGIN { code = 1 } $4 == m { d = substr($5, 2); l = $8; r = $11; x = r - l; if (x < 0) x = -x;
    code = (x - d / 2 <= d / 64 + 0.001 && d / 2 - x <= d / 64 + 0.001) ? 0 : 1 } END { exit code }' <<<"$out"
}
[ $rc -eq 0 ] && [ "$(grep -c '^suggested markers for ' <<<"$out")" -eq 3 ] && half_apart walk && half_apart run
check "--suggest-markers: walk and run feet plant half a cycle apart ($(tr '\n' ';' <<<"$out"))" $?
"$bin" validate markers.json --suggest-markers --json >/dev/null 2>&1
[ $? -eq 2 ]
check "--suggest-markers with --json is refused (exit 2)" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
