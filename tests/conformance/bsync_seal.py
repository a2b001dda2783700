#!/usr/bin/env python3
"""Sealed packets (docs/protocol.md "Sessions", long and compact forms) from the document alone: key
derivation, XChaCha20-Poly1305 (HChaCha20 written here over the ChaCha20-Poly1305 of python3-cryptography),
the choice of form, the compact form's counter rebuilt from its low 16 bits, the replay window.

usage: bsync_seal.py VECTORS   (the output of tests/tools/seal_vectors.c)

Every packet must be exactly the bytes this module seals from the same keys, counter and message, and
must open (in the order given, per direction, with the document's counter rebuilding and window) to
its message; the same packet again must be refused as a replay, and any flipped bit must not open.
Exit 0 when all holds, 1 with the reasons, 77 without python3-cryptography.
"""
import hashlib
import struct
import sys

try:
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.exceptions import InvalidTag
except ImportError:  # pragma: no cover
    ChaCha20Poly1305 = None

MASK32 = 0xFFFFFFFF


def _rotl(v, n): return ((v << n) & MASK32) | (v >> (32 - n))


def hchacha20(key, nonce16):
    """RFC draft-irtf-cfrg-xchacha section 2.2: 20 ChaCha rounds, no final addition, words 0-3 and 12-15."""
    s = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574] + list(struct.unpack("<8I", key)) + \
        list(struct.unpack("<4I", nonce16))

    def qr(a, b, c, d):
        s[a] = (s[a] + s[b]) & MASK32; s[d] = _rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & MASK32; s[b] = _rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & MASK32; s[d] = _rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & MASK32; s[b] = _rotl(s[b] ^ s[c], 7)
    for _ in range(10):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    return struct.pack("<8I", *(s[0:4] + s[12:16]))


def xchacha_seal(key, nonce24, plain, ad):
    """crypto_aead_xchacha20poly1305_ietf: ciphertext || 16-byte tag."""
    sub = hchacha20(key, nonce24[:16])
    return ChaCha20Poly1305(sub).encrypt(b"\0" * 4 + nonce24[16:], plain, ad)


def xchacha_open(key, nonce24, sealed, ad):
    sub = hchacha20(key, nonce24[:16])
    try:
        return ChaCha20Poly1305(sub).decrypt(b"\0" * 4 + nonce24[16:], sealed, ad)
    except InvalidTag:
        return None


def derive(secret, match_id, slot, mode, cn, sn):
    """Step 2 of "Sessions": K = BLAKE2b-512(key = secret, "blendsync session 1" NUL, match u64, slot u32, mode u8, cn, sn)."""
    msg = b"blendsync session 1\0" + struct.pack("<QIB", match_id, slot, mode) + cn + sn
    k = hashlib.blake2b(msg, digest_size=64, key=secret).digest()
    return k[:32], k[32:]  # client -> server, server -> client


def nonce(direction, counter): return bytes([direction]) + b"\0" * 15 + struct.pack("<Q", counter)


def compactable(msg):
    return (len(msg) >= 8 and msg[:3] == b"BS\x07" and struct.unpack_from("<H", msg, 4)[0] == len(msg) - 8
            and msg[6:8] == b"\0\0")


def seal(key, direction, mode, lane, number, msg):
    counter = lane << 56 | number
    n = nonce(direction, counter)
    if compactable(msg):
        head = bytes([0xC0 | (8 if mode == 2 else 0) | lane]) + struct.pack("<H", number & 0xFFFF)
        inner = msg[3:4] + msg[8:]
        if mode == 1:
            return head + xchacha_seal(key, n, inner, head)
        return head + inner + xchacha_seal(key, n, b"", head + inner)
    head = bytes([0xB5, mode]) + struct.pack("<Q", counter)
    if mode == 1:
        return head + xchacha_seal(key, n, msg, head)
    return head + msg + xchacha_seal(key, n, b"", head + msg)


class Receiver:
    """One direction's receiving side: a 64-wide window per lane on the full counter."""

    def __init__(self, key, direction, mode):
        self.key, self.direction, self.mode = key, direction, mode
        self.highest, self.seen = {}, {}

    def allows(self, lane, number):
        if lane not in self.highest or number > self.highest[lane]:
            return True
        return self.highest[lane] - number < 64 and number not in self.seen[lane]

    def accept(self, lane, number):
        if lane not in self.highest or number > self.highest[lane]:
            self.highest[lane] = number
        self.seen.setdefault(lane, set()).add(number)
        self.seen[lane] = {x for x in self.seen[lane] if self.highest[lane] - x < 64}

    def open(self, p):
        """(result, message): 'opened', 'not sealed', 'replayed' or 'bad tag'."""
        if len(p) >= 20 and p[0] >> 4 == 0xC:
            if (2 if p[0] & 8 else 1) != self.mode:
                return "not sealed", None
            lane, low = p[0] & 7, struct.unpack_from("<H", p, 1)[0]
            expected = self.highest[lane] + 1 if lane in self.highest else 0
            c = (expected & ~0xFFFF) | low
            if c + 0x8000 <= expected and c + 0x10000 < (1 << 56):
                c += 0x10000
            elif c > expected + 0x8000 and c >= 0x10000:
                c -= 0x10000
            if not self.allows(lane, c):
                return "replayed", None
            head, body = p[:3], p[3:]
            if self.mode == 1:
                inner = xchacha_open(self.key, nonce(self.direction, lane << 56 | c), body, head)
            else:
                inner = body[:-16] if xchacha_open(self.key, nonce(self.direction, lane << 56 | c), body[-16:],
                                                   head + body[:-16]) is not None else None
            if inner is None:
                return "bad tag", None
            self.accept(lane, c)
            return "opened", b"BS\x07" + inner[:1] + struct.pack("<H", len(inner) - 1) + b"\0\0" + inner[1:]
        if len(p) >= 26 and p[0] == 0xB5:
            if p[1] != self.mode:
                return "not sealed", None
            counter = struct.unpack_from("<Q", p, 2)[0]
            lane, number = counter >> 56, counter & ((1 << 56) - 1)
            if lane >= 8 or not self.allows(lane, number):
                return "replayed", None
            head, body = p[:10], p[10:]
            if self.mode == 1:
                msg = xchacha_open(self.key, nonce(self.direction, counter), body, head)
            else:
                msg = body[:-16] if xchacha_open(self.key, nonce(self.direction, counter), body[-16:],
                                                 head + body[:-16]) is not None else None
            if msg is None:
                return "bad tag", None
            self.accept(lane, number)
            return "opened", msg
        return "not sealed", None


def main(argv):
    if ChaCha20Poly1305 is None:
        print("skip: no python3-cryptography")
        return 77
    if len(argv) != 2:
        print(__doc__)
        return 2
    fields, packets = {}, []
    for line in open(argv[1]):
        w = line.split()
        if not w:
            continue
        if w[0] == "packet":
            packets.append((int(w[1]), int(w[2]), int(w[3]), int(w[4]), bytes.fromhex(w[5]) if w[5] != "-" else b"",
                            bytes.fromhex(w[6])))
        elif w[0] == "skip:":
            print(line.strip())
            return 77
        else:
            fields[w[0]] = w[1]
    secret, cn, sn = (bytes.fromhex(fields[k]) for k in ("secret", "client_nonce", "server_nonce"))
    match_id, slot = int(fields["match"]), int(fields["slot"])
    fails, receivers, forms = [], {}, {"compact": 0, "long": 0}
    for i, (mode, role, lane, number, msg, wire) in enumerate(packets):
        c2s, s2c = derive(secret, match_id, slot, mode, cn, sn)
        key, direction = (c2s, 0) if role == 0 else (s2c, 1)
        want = seal(key, direction, mode, lane, number, msg)
        forms["compact" if compactable(msg) else "long"] += 1
        if want != wire:
            fails.append(f"packet {i} (mode {mode}, role {role}, lane {lane}, counter {number}): bytes differ")
            continue
        need_len = len(msg) + (12 if compactable(msg) else 26)
        if len(wire) != need_len:
            fails.append(f"packet {i}: {len(wire)} bytes, the document says {need_len}")
        rx = receivers.setdefault((mode, role), Receiver(key, direction, mode))
        flipped = bytearray(wire)
        flipped[(7 * i) % len(wire)] ^= 1 << (i % 8)
        r, _ = rx.open(bytes(flipped))
        if r == "opened":
            fails.append(f"packet {i}: a flipped bit opened")
        r, got = rx.open(wire)
        if r != "opened" or got != msg:
            fails.append(f"packet {i} (lane {lane}, counter {number}): {r}, not its message")
        r, _ = rx.open(wire)
        if r != "replayed":
            fails.append(f"packet {i}: the same packet again gives {r}, not replayed")
    print(f"{len(packets)} sealed packets ({forms['compact']} compact, {forms['long']} long) recomputed from "
          f"docs/protocol.md and opened in order; {len(fails)} failures")
    for f in fails[:20]:
        print("FAIL " + f)
    return 1 if fails or not packets else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
