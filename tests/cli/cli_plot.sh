#!/usr/bin/env bash
# `blendsync plot` as a user runs it: pictures read back pixel by pixel, --at weights, errors.
# usage: cli_plot.sh PATH_TO_BLENDSYNC WORK_DIR
# Builds tests/tools/png_probe.c (stb_image from libstb-dev) into WORK_DIR to read the PNGs back.
set -uo pipefail
bin=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
fix=$here/../fixtures/plot
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
rm -rf "$work"
mkdir -p "$work"

probe=$work/png_probe
cc -std=c11 -O1 -Wall -Wextra -Werror -o "$probe" "$here/../tools/png_probe.c" -lstb
check "png_probe builds against libstb" $?

# The documented palette (blendsync plot --help): child i has colour i.
palette=(e6194b 3cb44b 4363d8 ffe119 f58231 911eb4 42d4f4 f032e6 bfef45 469990 9a6324 800000 808000 000075)

# near HEX1 HEX2 TOL: every channel within TOL levels
near() {
  awk -v a="$1" -v b="$2" -v t="$3" 'function h(s, i) { return index("0123456789abcdef", substr(s, i, 1)) - 1 }
    function ch(s, k) { return h(s, 2 * k + 1) * 16 + h(s, 2 * k + 2) }
    BEGIN { a = tolower(a); b = tolower(b); sub(/^#/, "", a); sub(/^#/, "", b); ok = 1
      for (k = 0; k < 3; k++) { d = ch(a, k) - ch(b, k); if (d < 0) d = -d; if (d > t) ok = 0 }
      exit !ok }'
}
# mix W1 HEX1 W2 HEX2 ...: sum of w_i * colour_i in linear light (sRGB transfer, IEC 61966-2-1), as hex
mix() {
  awk -v args="$*" 'function h(s, i) { return index("0123456789abcdef", substr(s, i, 1)) - 1 }
    function ch(s, k) { return h(s, 2 * k + 1) * 16 + h(s, 2 * k + 2) }
    function lin(v) { v /= 255; return v <= 0.04045 ? v / 12.92 : exp(2.4 * log((v + 0.055) / 1.055)) }
    function srgb(l) { s = l <= 0.0031308 ? l * 12.92 : 1.055 * exp(log(l) / 2.4) - 0.055; return int(s * 255 + 0.5) }
    BEGIN { n = split(args, a, " "); r = g = b = 0
      for (i = 1; i < n; i += 2) { c = a[i + 1]; sub(/^#/, "", c)
        r += a[i] * lin(ch(c, 0)); g += a[i] * lin(ch(c, 1)); b += a[i] * lin(ch(c, 2)) }
      printf "#%02x%02x%02x\n", srgb(r), srgb(g), srgb(b) }'
}
# colour_at FILE X Y
colour_at() { "$probe" "$1" "$2,$3" | awk 'NR == 2 { print $2 }'; }

# check_samples NAME FILE OUTPUT COUNT: every sample line's pixel shows that motion's palette colour
check_samples() {
  local name=$1 png=$2 out=$3 want=$4
  local lines n=0 bad=0
  lines=$(grep -E '^sample ' <<<"$out")
  [ "$(grep -c . <<<"$lines")" -eq "$want" ]; check "$name: $want sample lines" $?
  while read -r line; do
    [[ $line =~ pixel\ \(([0-9]+),\ ([0-9]+)\).*colour\ (#[0-9a-f]{6}) ]] || { bad=$((bad + 1)); continue; }
    local x=${BASH_REMATCH[1]} y=${BASH_REMATCH[2]} hex=${BASH_REMATCH[3]}
    if [ "$hex" != "#${palette[$n]}" ]; then echo "  sample $n is $hex, palette says #${palette[$n]}"; bad=$((bad + 1)); fi
    local got
    got=$(colour_at "$png" "$x" "$y")
    if [ "$got" != "#${palette[$n]}" ]; then echo "  sample $n pixel ($x, $y) is $got, want #${palette[$n]}"; bad=$((bad + 1)); fi
    n=$((n + 1))
  done <<<"$lines"
  [ "$bad" -eq 0 ] && [ "$n" -eq "$want" ]; check "$name: the pixel at each sample is exactly that motion's palette colour" $?
}
# pixel_of OUTPUT NAME -> "X Y"
pixel_of() { sed -nE "s/^sample $2 at .*: pixel \(([0-9]+), ([0-9]+)\).*/\1 \2/p" <<<"$1"; }

# ---------------------------------------------------------------- SimpleDirectional2D, 5 samples
png=$work/directional.png
out=$("$bin" plot "$fix/directional.json" --node move -o "$png" --size 400); rc=$?
check "directional: exits 0" $rc
grep -qx "plot of node 'move' (SimpleDirectional2D, 5 children) written to $png (400x400)" <<<"$out"
check "directional: summary line" $?
[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]; check "directional: file starts with the PNG signature" $?
[ "$("$probe" "$png" | head -1)" = "size 400 400" ]; check "directional: decodes as a 400x400 PNG" $?
check_samples directional "$png" "$out" 5
read -r ix iy <<<"$(pixel_of "$out" idle)"
read -r fx fy <<<"$(pixel_of "$out" fwd)"
read -r rx ry <<<"$(pixel_of "$out" right)"
read -r lx ly <<<"$(pixel_of "$out" left)"
read -r bx by <<<"$(pixel_of "$out" back)"
# y up: fwd (0, 1) is above idle in the same column; right (1, 0) is to the right in the same row
[ $((fx - ix)) -ge -1 ] && [ $((fx - ix)) -le 1 ] && [ "$fy" -lt "$iy" ] && [ "$by" -gt "$iy" ]
check "directional: fwd above idle, back below (y points up)" $?
[ $((ry - iy)) -ge -1 ] && [ $((ry - iy)) -le 1 ] && [ "$rx" -gt "$ix" ] && [ "$lx" -lt "$ix" ]
check "directional: right to the right of idle, left to the left" $?
d1=$((iy - fy)); d2=$((rx - ix))
[ $((d1 - d2)) -ge -1 ] && [ $((d1 - d2)) -le 1 ] && [ "$d1" -gt 50 ]
check "directional: one unit is as many pixels across as up (aspect 1:1): $d1 vs $d2" $?
# (0.25, 0.25) lies in the triangle idle, right, fwd: weights 0.5, 0.25, 0.25 (away from grid lines)
qx=$((ix + (rx - ix) / 4)); qy=$((iy - (iy - fy) / 4))
got=$(colour_at "$png" "$qx" "$qy")
want=$(mix 0.5 "${palette[0]}" 0.25 "${palette[4]}" 0.25 "${palette[1]}")
near "$got" "$want" 6; check "directional: (0.25, 0.25) shows the idle/right/fwd mixture 0.5/0.25/0.25 ($got vs $want)" $?
# the background outside the plot is neither motion's colour: corner pixel is the paper colour
[ "$(colour_at "$png" 0 0)" = "#f6f6f4" ]; check "directional: corner shows the paper, not a motion" $?

out=$("$bin" plot "$fix/directional.json" --node move -o "$work/at.png" --size 256 --at 0.5,0); rc=$?
check "directional --at: exits 0" $rc
grep -qx 'weights at (0.5, 0):' <<<"$out" && grep -qE '^  idle +0\.5$' <<<"$out" &&
  grep -qE '^  right +0\.5$' <<<"$out" && grep -qE '^  fwd +0$' <<<"$out" && grep -qE '^  left +0$' <<<"$out"
check "directional --at 0.5,0 prints idle 0.5, right 0.5, the others 0" $?
out=$("$bin" plot "$fix/directional.json" -o "$work/root.png" --size 256 --at -1,1); rc=$?
[ $rc -eq 0 ] && grep -qx "plot of node 'move' (SimpleDirectional2D, 5 children) written to $work/root.png (256x256)" <<<"$out"
check "no --node draws the root node" $?
# (-1, 1) lies on the diagonal between left and fwd, sqrt(2) out: left and fwd share, idle has none
grep -qE '^  idle +0$' <<<"$out" && grep -qE '^  left +0\.5$' <<<"$out" && grep -qE '^  fwd +0\.5$' <<<"$out"
check "directional --at -1,1 (outside the layout) prints left 0.5, fwd 0.5" $?

# ---------------------------------------------------------------- FreeformCartesian2D, 3x3 grid
png=$work/grid.png
out=$("$bin" plot "$fix/grid.json" --node grid -o "$png" --size 320); rc=$?
check "grid: exits 0" $rc
[ "$("$probe" "$png" | head -1)" = "size 320 320" ]; check "grid: decodes as a 320x320 PNG" $?
check_samples grid "$png" "$out" 9
read -r ax ay <<<"$(pixel_of "$out" back_left)"
read -r cx cy <<<"$(pixel_of "$out" fwd_right)"
read -r mx my <<<"$(pixel_of "$out" idle)"
[ $((ax + cx - 2 * mx)) -ge -1 ] && [ $((ax + cx - 2 * mx)) -le 1 ] && [ $((ay + cy - 2 * my)) -ge -1 ] &&
  [ $((ay + cy - 2 * my)) -le 1 ] && [ "$ax" -lt "$cx" ] && [ "$ay" -gt "$cy" ]
check "grid: idle is drawn midway between back_left and fwd_right" $?

# ---------------------------------------------------------------- Delaunay2D, irregular
png=$work/delaunay.png
out=$("$bin" plot "$fix/delaunay.json" --node loco -o "$png" --size 420); rc=$?
check "delaunay: exits 0" $rc
[ "$("$probe" "$png" | head -1)" = "size 420 420" ]; check "delaunay: decodes as a 420x420 PNG" $?
check_samples delaunay "$png" "$out" 7
out=$("$bin" plot "$fix/delaunay.json" --node loco -o "$work/d.png" --size 256 --at 0.1,1.4); rc=$?
[ $rc -eq 0 ] && grep -qE '^  walk +1$' <<<"$out" && grep -qE '^  idle +0$' <<<"$out"
check "delaunay --at a sample (0.1, 1.4) prints walk 1" $?

# ---------------------------------------------------------------- Simple1D idle/walk/run
png=$work/speed.png
out=$("$bin" plot "$fix/speed1d.json" --node speed -o "$png" --size 500); rc=$?
check "1D: exits 0" $rc
[ "$("$probe" "$png" | head -1)" = "size 500 500" ]; check "1D: decodes as a 500x500 PNG" $?
check_samples 1D "$png" "$out" 3
bad=0; n=0
while read -r line; do
  [[ $line =~ peak\ \(([0-9]+),\ ([0-9]+)\) ]] || { bad=$((bad + 1)); continue; }
  got=$(colour_at "$png" "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")
  [ "$got" = "#${palette[$n]}" ] || { echo "  peak $n is $got"; bad=$((bad + 1)); }
  n=$((n + 1))
done < <(grep -E '^sample ' <<<"$out")
[ "$bad" -eq 0 ] && [ "$n" -eq 3 ]; check "1D: each curve reaches weight 1 (top row) at its threshold in its colour" $?
read -r i0 _ <<<"$(pixel_of "$out" idle)"
read -r i1 _ <<<"$(pixel_of "$out" walk)"
read -r i2 _ <<<"$(pixel_of "$out" run)"
# thresholds 0, 1.4, 4: walk sits 1.4/4 = 0.35 of the way from idle to run
awk -v a="$i0" -v b="$i1" -v c="$i2" 'BEGIN { r = (b - a) / (c - a); exit !(c > a && r > 0.34 && r < 0.36) }'
check "1D: threshold columns are proportional to 0, 1.4, 4" $?
out=$("$bin" plot "$fix/speed1d.json" -o "$work/s.png" --size 256 --at 0.7); rc=$?
[ $rc -eq 0 ] && grep -qx 'weights at 0.7:' <<<"$out" && grep -qE '^  idle +0\.5$' <<<"$out" &&
  grep -qE '^  walk +0\.5$' <<<"$out" && grep -qE '^  run +0$' <<<"$out"
check "1D --at 0.7 prints idle 0.5, walk 0.5, run 0" $?

# ---------------------------------------------------------------- errors: exit 2, a message, no file
printf 'old picture' >"$work/keep.png"
expect_error() { # name, message regex, args...
  local name=$1 re=$2
  shift 2
  local err rc
  err=$("$bin" plot "$@" 2>&1 >/dev/null); rc=$?
  [ $rc -eq 2 ] && grep -qE -- "$re" <<<"$err"
  check "$name (exit $rc: $(head -1 <<<"$err" | cut -c1-90))" $?
}
expect_error "missing node is refused" "has no node named 'nope'" "$fix/directional.json" --node nope -o "$work/e1.png"
expect_error "Direct node is refused" "'face' is a Direct node" "$fix/directional.json" --node face -o "$work/e2.png"
expect_error "--size 255 is refused" "--size needs a whole number from 256 to 4096" "$fix/grid.json" -o "$work/e3.png" --size 255
expect_error "--size 5000 is refused" "--size needs a whole number" "$fix/grid.json" -o "$work/e3.png" --size 5000
expect_error "--size abc is refused" "--size needs a whole number" "$fix/grid.json" -o "$work/e3.png" --size abc
expect_error "--at with one number for a 2D node is refused" "--at needs two numbers X,Y" "$fix/grid.json" -o "$work/e4.png" --at 1
expect_error "--at with two numbers for a 1D node is refused" "--at needs one number X" "$fix/speed1d.json" -o "$work/e4.png" --at 1,2
expect_error "output in a missing directory is refused" "cannot" "$fix/grid.json" -o "$work/no/such/dir/x.png" --size 256
mkdir -p "$work/adir"
expect_error "output that is a directory is refused" "cannot write" "$fix/grid.json" -o "$work/adir" --size 256
expect_error "missing config is refused" "nothing.json" "$work/nothing.json" -o "$work/e5.png"
expect_error "no -o is refused" "-o OUT.png is missing" "$fix/grid.json"
expect_error "unknown option is refused" "unknown option '--bogus'" "$fix/grid.json" -o "$work/e6.png" --bogus
expect_error "a failing run leaves an existing picture alone" "has no node" "$fix/grid.json" --node x -o "$work/keep.png"
[ ! -e "$work/e1.png" ] && [ ! -e "$work/e2.png" ] && [ ! -e "$work/e3.png" ] && [ ! -e "$work/e4.png" ] &&
  [ ! -e "$work/e5.png" ] && [ ! -e "$work/e6.png" ] && [ ! -e "$work/no" ] && [ -z "$(ls -A "$work/adir")" ]
check "failed runs wrote no file" $?
[ "$(cat "$work/keep.png")" = "old picture" ]; check "the existing picture is untouched" $?
[ -z "$(find "$work" -name '*.tmp-*')" ]; check "no temporary file is left behind" $?
# success replaces an existing file whole
"$bin" plot "$fix/speed1d.json" -o "$work/keep.png" --size 256 >/dev/null
[ "$("$probe" "$work/keep.png" | head -1)" = "size 256 256" ]; check "a successful run replaces the old file" $?
"$bin" plot --help | grep -q -- '--at X\[,Y\]'; check "--help describes --at" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
