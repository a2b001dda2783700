#!/usr/bin/env bash
# `blendsync import` as a user runs it: fixtures written here (tiny BVH files), the shared data when
# present, determinism of the output bytes, --list, --clips, retargeting, and the error messages.
# usage: cli_import.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
cd "$work" || exit 2
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}

write_bvh() { # file, second joint name, frame values
  cat >"$1" <<EOF
HIERARCHY
ROOT Hips
{
  OFFSET 0 100 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
  JOINT $2
  {
    OFFSET 0 20 0
    CHANNELS 3 Zrotation Xrotation Yrotation
    End Site
    {
      OFFSET 0 10 0
    }
  }
}
MOTION
Frames: 3
Frame Time: 0.5
0 100 0 0 0 0 0 0 0
$3
0 100 0 0 0 0 0 0 0
EOF
}
write_bvh walk.bvh Chest "10 100 0 0 0 0 30 0 0"
write_bvh turn.bvh Chest "0 100 0 90 0 0 0 0 45"
write_bvh other.bvh Neck "0 100 0 0 0 0 0 45 0"

out=$("$bin" import walk.bvh -o walk.bsclip); rc=$?
check "import a BVH exits 0" $rc
grep -q "clip 'walk': 1 s, 3 tracks, 9 keys" <<<"$out"
check "the report names the clip, duration, tracks and keys" $?
grep -q "skeleton: 2 joints" <<<"$out" && grep -q "1 End Sites skipped" <<<"$out"
check "the report gives the joints and the skipped End Site" $?
grep -qE "^wrote walk.bsclip: 2 joints, 1 clips, [0-9]+ bytes, checksum [0-9a-f]{16}$" <<<"$out"
check "the summary line gives joints, clips, bytes and checksum" $?
[ "$(head -c 6 walk.bsclip)" = "BSCLIP" ]
check "the file starts with the magic" $?
ls walk.bsclip.tmp.* >/dev/null 2>&1
[ $? -ne 0 ]; check "no temporary file is left behind" $?

"$bin" import walk.bvh -o walk2.bsclip >/dev/null && cmp -s walk.bsclip walk2.bsclip
check "importing the same file twice gives identical bytes" $?
"$bin" import walk.bsclip -o walk3.bsclip >/dev/null && cmp -s walk.bsclip walk3.bsclip
check "re-importing the .bsclip writes identical bytes" $?

out=$("$bin" import walk.bvh turn.bvh -o both.bsclip); rc=$?
[ $rc -eq 0 ] && grep -q "wrote both.bsclip: 2 joints, 2 clips" <<<"$out"
check "two inputs with one skeleton give one file with both clips" $?
! grep -q retargeted <<<"$out"; check "the same skeleton needs no retargeting" $?

out=$("$bin" import walk.bvh other.bvh -o mixed.bsclip); rc=$?
[ $rc -eq 0 ] && grep -q "retargeted other.bvh by name: 1 of 2 target joints mapped; rest pose for 1: Chest; 1 source joints dropped: Neck" <<<"$out"
check "another skeleton is retargeted by name with a report" $?

out=$("$bin" import walk.bvh turn.bvh --clips turn -o one.bsclip); rc=$?
[ $rc -eq 0 ] && grep -q "wrote one.bsclip: 2 joints, 1 clips" <<<"$out"
check "--clips keeps only the named clips" $?

out=$("$bin" import walk.bvh --skeleton-from other.bvh -o onto.bsclip); rc=$?
[ $rc -eq 0 ] && grep -q "target skeleton: other.bvh" <<<"$out" && grep -q "rest pose for 1: Neck" <<<"$out"
check "--skeleton-from retargets onto that file's skeleton" $?

rm -f list.bsclip
out=$("$bin" import walk.bvh turn.bvh --list); rc=$?
[ $rc -eq 0 ] && grep -q "clip 'turn'" <<<"$out" && ! grep -q wrote <<<"$out"
check "--list prints the clips and writes nothing" $?

out=$("$bin" import walk.bvh --bvh-scale 1 --list); rc=$?
grep -q "1 m per unit" <<<"$out" && grep -q "give another BVH scale" <<<"$out"
check "--bvh-scale is used and a suspicious height is noted" $?

# errors: exit 2, a message on stderr naming the problem
err=$("$bin" import missing.bvh -o x.bsclip 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "missing.bvh: cannot open the file" <<<"$err"
check "a missing input is refused with its name" $?
err=$("$bin" import walk.bvh 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q -- "-o OUT.bsclip is required" <<<"$err"
check "no -o is refused" $?
err=$("$bin" import walk.bvh --clips nope -o x.bsclip 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "no input has a clip named 'nope'" <<<"$err"
check "--clips with an unknown name is refused" $?
err=$("$bin" import walk.bvh walk.bvh -o x.bsclip 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "two clips are named 'walk'" <<<"$err"
check "two clips with one name are refused" $?
err=$("$bin" import walk.bvh --bogus -o x.bsclip 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--bogus'" <<<"$err"
check "an unknown option is refused" $?
err=$("$bin" import walk.bvh --rate 0 -o x.bsclip 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q -- "--rate needs a whole number from 1 to 1000" <<<"$err"
check "--rate 0 is refused" $?
head -c 100 walk.bsclip >cut.bsclip
err=$("$bin" import cut.bsclip -o x.bsclip 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "cut.bsclip: not a valid .bsclip file" <<<"$err"
check "a truncated .bsclip is refused" $?
cp walk.bsclip flip.bsclip
printf '\x55' | dd of=flip.bsclip bs=1 seek=300 conv=notrunc 2>/dev/null
err=$("$bin" import flip.bsclip -o x.bsclip 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "checksum mismatch" <<<"$err"
check "a changed byte in a .bsclip is refused (checksum)" $?
echo "not a bvh" >bad.bvh
err=$("$bin" import bad.bvh -o x.bsclip 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "bad.bvh: line 1: expected 'HIERARCHY'" <<<"$err"
check "a malformed BVH is refused with its line" $?
touch model.fbx
err=$("$bin" import model.fbx -o x.bsclip 2>&1 >/dev/null); rc=$?
# without assimp: refused with the conversion named; with assimp (optional): an empty file is refused
# by the importer before assimp sees it, naming the conversion too — never a crash
[ $rc -eq 2 ] && grep -q "convert to glTF" <<<"$err"
check "an (empty) FBX is refused with the conversion to glTF named" $?
[ ! -e x.bsclip ]; check "no output is written on errors" $?
"$bin" --help | grep -q '^  import '
check "--help lists import" $?

# the shared data, when present
data=${BSYNC_SHARED_DIR:-}/data
if [ -n "${BSYNC_SHARED_DIR:-}" ] && [ -f "$data/khronos-fox/Fox.glb" ]; then
  out=$("$bin" import "$data/khronos-fox/Fox.glb" --clips Walk,Run -o fox.bsclip); rc=$?
  [ $rc -eq 0 ] && grep -q "wrote fox.bsclip: 24 joints, 2 clips" <<<"$out"
  check "Fox.glb Walk and Run import" $?
  "$bin" import "$data/khronos-fox/Fox.glb" --clips Walk,Run -o fox2.bsclip >/dev/null && cmp -s fox.bsclip fox2.bsclip
  check "Fox.glb twice: identical bytes" $?
  n=0
  while IFS= read -r f; do
    "$bin" import "$f" -o each.bsclip >/dev/null 2>err.txt || { echo "  $f: $(cat err.txt)"; n=$((n + 1)); }
  done < <(find "$data" -name '*.glb' -o -name '*.gltf' -o -name '*.bvh')
  [ "$n" -eq 0 ]; check "every .glb, .gltf and .bvh in the shared data imports" $?
else
  echo "skip shared data (BSYNC_SHARED_DIR not set or data absent)"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
