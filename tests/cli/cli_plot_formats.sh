#!/usr/bin/env bash
# `blendsync plot -o FILE.svg | FILE.pdf`: the format follows the extension (any case; anything else
# is PNG). The SVG must parse as XML (python3) with the picture's size, its glyphs and one embedded
# PNG, the weight field, which decodes and holds each sample's pure palette colour; the PDF must be
# one well-formed page (header, trailer, every xref offset at its object; pdfinfo and pdftotext
# when poppler-utils is installed: one page of SIZE x SIZE points, the title as text).
# usage: cli_plot_formats.sh PATH_TO_BLENDSYNC WORK_DIR
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
rm -rf "$work" && mkdir -p "$work" || exit 1
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }

cat >"$work/svg_check.py" <<'PY'
# svg_check.py FILE.svg SIZE HEX...: the checks named in cli_plot_formats.sh's header
import base64, re, struct, sys, xml.etree.ElementTree as ET, zlib
path, size, want = sys.argv[1], int(sys.argv[2]), ['#' + h.lower() for h in sys.argv[3:]]
root = ET.parse(path).getroot()
ns = {'s': 'http://www.w3.org/2000/svg'}
assert root.tag == '{http://www.w3.org/2000/svg}svg', root.tag
assert root.get('width') == '%dpx' % size and root.get('height') == '%dpx' % size, root.attrib
assert root.get('viewBox') == '0 0 %d %d' % (size, size), root.get('viewBox')
glyphs = root.findall('.//s:symbol', ns)
assert len(glyphs) >= 20, 'glyphs: %d' % len(glyphs)  # the title, ticks and names: many letters
images = root.findall('.//s:image', ns)
assert len(images) == 1, 'images: %d' % len(images)
href = images[0].get('{http://www.w3.org/1999/xlink}href') or images[0].get('href')
m = re.match(r'data:image/png;base64,(.*)$', href, re.S)
png = base64.b64decode(m.group(1))
assert png[:8] == b'\x89PNG\r\n\x1a\n'
pos, idat, w = 8, b'', 0
while pos < len(png):
    n, kind = struct.unpack('>I4s', png[pos:pos + 8])
    body = png[pos + 8:pos + 8 + n]
    assert zlib.crc32(kind + body) == struct.unpack('>I', png[pos + 8 + n:pos + 12 + n])[0], kind
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        assert depth == 8 and ctype in (2, 6) and interlace == 0, body
        bpp = 3 if ctype == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert 0 < w == h < size, (w, h)  # the plot square, inside the picture
raw, stride, prev, colours = zlib.decompress(idat), w * bpp, bytearray(w * bpp), set()
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pred = [0, a, b, (a + b) // 2, a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c][f]
        line[i] = (line[i] + pred) & 0xFF
    colours.update('#%02x%02x%02x' % tuple(line[k:k + 3]) for k in range(0, stride, bpp))
    prev = line
missing = [c for c in want if c not in colours]
assert not missing, 'the field holds no pixel of %s' % missing
print('svg ok: %d glyphs, a %dx%d field with %d colours' % (len(glyphs), w, h, len(colours)))
PY

cat >"$work/pdf_check.py" <<'PY'
# pdf_check.py FILE.pdf: header, %%EOF, startxref at an xref table whose entries point at their objects, one page
import re, sys
d = open(sys.argv[1], 'rb').read()
assert d.startswith(b'%PDF-1.'), d[:8]
assert d.rstrip().endswith(b'%%EOF')
start = int(re.findall(rb'startxref\s+(\d+)\s+%%EOF', d)[-1])
assert d[start:start + 4] == b'xref', d[start:start + 10]
first, count = map(int, re.match(rb'xref\s+(\d+)\s+(\d+)', d[start:]).groups())
entries = re.findall(rb'(\d{10}) (\d{5}) ([nf])', d[start:])[:count]
assert len(entries) == count and count > 3, count
for k, (off, gen, kind) in enumerate(entries):
    if kind == b'n':
        assert re.match(rb'%d %d obj' % (first + k, int(gen)), d[int(off):]), 'object %d not at %d' % (first + k, int(off))
pages = re.findall(rb'/Type\s*/Page\b(?!s)', d)
assert len(pages) == 1, len(pages)
print('pdf ok: %d objects, 1 page' % count)
PY

palette=(e6194b 3cb44b 4363d8 ffe119 f58231 911eb4 42d4f4)

# ---------------------------------------------------------------- SVG
out=$("$bin" plot "$fix/directional.json" --node move -o "$work/d.svg" --size 400); rc=$?
check "svg: exits 0" $rc
grep -qx "plot of node 'move' (SimpleDirectional2D, 5 children) written to $work/d.svg (400x400)" <<<"$out"
check "svg: the same summary line as for a PNG" $?
[ "$(head -c 5 "$work/d.svg")" = "<?xml" ]; check "svg: the file is XML, not a PNG" $?
python3 "$work/svg_check.py" "$work/d.svg" 400 "${palette[@]:0:5}"
check "svg: parses; 400px square; glyphs; the field as one PNG holding the 5 samples' pure colours" $?
"$bin" plot "$fix/delaunay.json" --node loco -o "$work/D.SVG" --size 300 --at 0.6,2.2 >/dev/null &&
  python3 "$work/svg_check.py" "$work/D.SVG" 300 "${palette[@]:0:7}"
check "svg: upper-case .SVG, Delaunay2D with --at, 7 samples" $?

# ---------------------------------------------------------------- PDF
out=$("$bin" plot "$fix/speed1d.json" --node speed -o "$work/s.pdf" --size 500 --at 0.7); rc=$?
[ $rc -eq 0 ] && grep -qx "plot of node 'speed' (Simple1D, 3 children) written to $work/s.pdf (500x500)" <<<"$out" &&
  grep -qE '^  walk +0\.5$' <<<"$out"
check "pdf: exits 0, summary line, --at weights" $?
python3 "$work/pdf_check.py" "$work/s.pdf"; check "pdf: well-formed, one page" $?
"$bin" plot "$fix/grid.json" -o "$work/g.PDF" --size 256 >/dev/null && python3 "$work/pdf_check.py" "$work/g.PDF"
check "pdf: upper-case .PDF" $?
if command -v pdfinfo >/dev/null && command -v pdftotext >/dev/null; then
  info=$(pdfinfo "$work/s.pdf")
  grep -qE '^Pages: +1$' <<<"$info" && grep -qE '^Page size: +500 x 500 pts' <<<"$info"
  check "pdf: pdfinfo reads one page of 500 x 500 points" $?
  pdftotext "$work/s.pdf" - | grep -qF 'speed: Simple1D, weights over speed'
  check "pdf: the title is text (pdftotext)" $?
else
  echo "skip pdfinfo/pdftotext checks (no poppler-utils)"
fi

# ---------------------------------------------------------------- other extensions, errors
"$bin" plot "$fix/grid.json" -o "$work/g.picture" --size 256 >/dev/null &&
  [ "$(head -c 8 "$work/g.picture" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ]
check "any other extension is a PNG" $?
err=$("$bin" plot "$fix/grid.json" -o "$work/no/such/dir/x.svg" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "cannot" <<<"$err" && [ ! -e "$work/no" ]
check "svg into a missing directory: exit 2, a message, nothing written" $?
err=$("$bin" plot "$fix/directional.json" --node face -o "$work/e.pdf" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && [ ! -e "$work/e.pdf" ]; check "pdf of a Direct node: exit 2, no file" $?
mkdir -p "$work/adir.svg"
err=$("$bin" plot "$fix/grid.json" -o "$work/adir.svg" 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] && grep -q "cannot write" <<<"$err" && [ -z "$(ls -A "$work/adir.svg")" ]
check "svg over a directory: exit 2, cannot write" $?
[ -z "$(find "$work" -name '*.tmp*')" ]; check "no temporary file is left behind" $?
"$bin" plot --help | grep -q '\.svg SVG, \.pdf PDF'; check "--help names the formats" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
