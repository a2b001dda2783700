#!/usr/bin/env python3
"""replay_checksums.py FILE: the CHECKSUM records of a replay (blendsync/io/replay.h's format), one
"TICK BLEND" line each (16 lowercase hex digits), read straight from the bytes (an independent reader
for tests/studio: the page's own reader is the library's)."""
import struct
import sys

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"BSRPLY\r\n", "not a replay"
i = 8
while i + 8 <= len(data):
    rtype, _, _, n = struct.unpack_from("<BBHI", data, i)
    body = data[i + 8:i + 8 + n]
    if rtype == 3:
        tick, _flags, blend, _pose = struct.unpack_from("<IIQQ", body, 0)
        print(tick, "%016x" % blend)
    i += 8 + n + 8
