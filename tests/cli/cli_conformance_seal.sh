#!/usr/bin/env bash
# Sealed packets against the document (docs/protocol.md "Sessions", both forms): the session library's
# packets (tests/tools/seal_vectors.c) must be byte for byte what tests/conformance/bsync_seal.py, written
# from the document alone, seals from the same secret, nonces, counters and messages, and must open
# there in order, once. Negative control: one changed byte in one packet must fail it. Skips without
# libsodium or python3-cryptography (Debian python3-cryptography). About 2 s.
# usage: cli_conformance_seal.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
here=$(cd "$(dirname "$0")" && pwd)
vectors="$(dirname "$bin")/tests/bsync_seal_vectors"
[ -x "$vectors" ] || { echo "skip: no $vectors"; exit 0; }
py=""
for p in python3 /usr/bin/python3; do
  command -v "$p" >/dev/null && "$p" -c "import cryptography.hazmat.primitives.ciphers.aead" 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || { echo "skip: no python3 with the cryptography package"; exit 0; }
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
"$vectors" >vectors.txt || { echo "FAIL seal_vectors"; exit 1; }
grep -q '^skip:' vectors.txt && { cat vectors.txt; exit 0; }
"$py" "$here/../conformance/bsync_seal.py" vectors.txt || { echo "FAIL the library's sealed packets against the document"; exit 1; }
# a changed byte in the 7th packet's sealed bytes (last field): the checker must refuse it
awk 'BEGIN{n=0} /^packet/{n++; if(n==7){ s=$7; c=substr(s,9,1); $7=substr(s,1,8) (c=="0"?"1":"0") substr(s,10) }} {print}' \
  vectors.txt >bad.txt
if "$py" "$here/../conformance/bsync_seal.py" bad.txt >bad.out; then echo "FAIL the negative control passed"; exit 1; fi
grep -q "packet 6 .*bytes differ" bad.out || { echo "FAIL the negative control failed for another reason:"; cat bad.out; exit 1; }
echo "ok   sealed packets match the document; the changed byte is refused"
