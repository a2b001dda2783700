#!/usr/bin/env python3
"""An independent decoder and encoder of the blendsync wire protocol, written from docs/protocol.md
alone (it shares no code with proto/), and a conformance check of captured matches.

usage: bsync_wire.py CAPTURE [--slot N] [--expect-desync] [--json]

CAPTURE is a file written by `blendsync bot --capture` (docs/protocol.md "Captures"). Every packet
must decode under the document's rules, re-encode to the same bytes (the canonical form), travel on
the channel the document gives its type, in the direction it gives, and the session must follow the
document: HELLO first, WELCOME for our slot, START before the first FRAME on the frame channel,
FRAMEs in order from the WELCOME's start tick, END after the last with their count, our INPUTs
carried verbatim in the FRAMEs of their ticks (unless defaulted), a CHECKSUM every checksum
interval, and after a DESYNC our TRAIL then DUMP upload. Exit 0 when all holds, 1 with the reasons.
"""
import json
import struct
import sys

VERSIONS = (6, 7)  # "Versioning": a version 7 peer decodes 6 and 7
TYPES = {1: "HELLO", 2: "WELCOME", 3: "INPUT", 4: "INPUT_ACK", 5: "FRAME", 6: "CHECKSUM", 7: "DESYNC",
         8: "SNAPSHOT", 9: "BYE", 10: "END", 11: "START", 12: "AUTH_INIT", 13: "AUTH_CHALLENGE", 14: "FRAMES"}
MAX_BODY = {"HELLO": 54, "WELCOME": 1044, "INPUT": 2389, "INPUT_ACK": 8, "FRAME": 9517, "CHECKSUM": 9241,
            "DESYNC": 26, "SNAPSHOT": 1040, "BYE": 4, "END": 8, "START": 12, "AUTH_INIT": 44, "AUTH_CHALLENGE": 36,
            "FRAMES": 9517}
# "ENet channels and reliability"
CHANNEL = {"HELLO": 0, "WELCOME": 0, "BYE": 0, "INPUT": 1, "INPUT_ACK": 1, "FRAME": 2, "START": 2, "END": 2,
           "CHECKSUM": 3, "DESYNC": 3, "SNAPSHOT": 4, "AUTH_INIT": 0, "AUTH_CHALLENGE": 0, "FRAMES": 1}
FROM_CLIENT = {"HELLO", "INPUT", "CHECKSUM", "SNAPSHOT", "BYE", "AUTH_INIT"}
FROM_SERVER = {"WELCOME", "INPUT_ACK", "FRAME", "DESYNC", "SNAPSHOT", "BYE", "END", "START", "AUTH_CHALLENGE",
               "FRAMES"}
MAX_PLAYERS, MAX_PARAMS, MAX_TRIGGERS, MAX_RECORDS, MAX_PAYLOAD = 16, 64, 16, 4, 256
MAX_FRAMES = 8  # version 7: frames in one FRAMES
MAX_TOKEN, MAX_CHARACTERS, MAX_JOINTS, CHUNK, MAX_SNAPSHOT = 32, 64, 1024, 1024, 1 << 20
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


class Bad(Exception):
    """A packet the document says a decoder refuses: the error's name is the document's."""

    def __init__(self, code, what):
        super().__init__(f"{code}: {what}")
        self.code = code


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n, what):
        if self.pos + n > len(self.data):
            raise Bad("TRUNCATED", what)
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def u8(self, what): return self.take(1, what)[0]
    def u16(self, what): return struct.unpack("<H", self.take(2, what))[0]
    def u32(self, what): return struct.unpack("<I", self.take(4, what))[0]
    def u64(self, what): return struct.unpack("<Q", self.take(8, what))[0]

    def varint(self, what):
        """Unsigned LEB128, at most 5 bytes, minimal, below 2^34 (5th byte at most 0x3F)."""
        value = 0
        for i in range(5):
            b = self.u8(what)
            if i == 4 and b > 0x3F:
                raise Bad("BAD_VARINT", what + ": above 2^34")
            value |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                if i > 0 and b == 0:
                    raise Bad("BAD_VARINT", what + ": not minimal")
                return value
        raise Bad("BAD_VARINT", what + ": more than 5 bytes")

    def end(self):
        if self.pos != len(self.data):
            raise Bad("TRAILING_BYTES", f"{len(self.data) - self.pos} bytes after the last field")


class Writer:
    def __init__(self): self.out = bytearray()
    def u8(self, v): self.out += struct.pack("<B", v)
    def u16(self, v): self.out += struct.pack("<H", v)
    def u32(self, v): self.out += struct.pack("<I", v)
    def u64(self, v): self.out += struct.pack("<Q", v)
    def raw(self, b): self.out += b

    def varint(self, v):
        while True:
            b = v & 0x7F
            v >>= 7
            if v:
                self.u8(b | 0x80)
            else:
                self.u8(b)
                return


def zigzag(n): return 2 * n if n >= 0 else -2 * n - 1
def unzigzag(z): return z >> 1 if not z & 1 else -(z >> 1) - 1


def target(value, what):
    """A decoded fix16 parameter target: inside (INT32_MIN, INT32_MAX]."""
    if value <= INT32_MIN or value > INT32_MAX:
        raise Bad("BAD_VALUE", what + f": {value} outside (INT32_MIN, INT32_MAX]")
    return value


def need(cond, code, what):
    if not cond:
        raise Bad(code, what)


# ------------------------------------------------------------------ bodies: decode

def dec_hello(r):
    m = {"match_id": r.u64("match id"), "graph_hash": r.u64("graph hash"), "slot": r.u8("slot")}
    need(m["slot"] < MAX_PLAYERS, "BAD_VALUE", "slot")
    m["resume"] = r.u32("resume")  # version 5: 0 a join, R + 1 a reconnect holding the state at the start of R
    t = r.u8("token length")
    need(1 <= t <= MAX_TOKEN, "BAD_LENGTH", "token length")
    m["token"] = r.take(t, "token")
    return m


def dec_welcome(r):
    m = {"tick_rate": r.u8("tick rate"), "input_delay": r.u8("input delay"), "players": r.u8("player count"),
         "slot": r.u8("your slot"), "params": r.u8("parameter count"), "triggers": r.u8("trigger count"),
         "checksum_interval": r.u16("checksum interval"), "connected": r.u16("connected mask"),
         "start_tick": r.u32("start tick"), "snapshot_size": r.u32("snapshot size")}
    need(15 <= m["tick_rate"] <= 60, "BAD_VALUE", "tick rate")
    need(m["input_delay"] <= 30, "BAD_VALUE", "input delay")
    need(1 <= m["players"] <= MAX_PLAYERS, "BAD_COUNT", "player count")
    need(m["slot"] < m["players"], "BAD_VALUE", "your slot")
    need(m["params"] <= MAX_PARAMS, "BAD_COUNT", "parameter count")
    need(m["triggers"] <= MAX_TRIGGERS, "BAD_COUNT", "trigger count")
    need(1 <= m["checksum_interval"] <= 3600, "BAD_VALUE", "checksum interval")
    need(m["connected"] >> m["players"] == 0, "RESERVED_NONZERO", "connected mask above the player count")
    need(m["connected"] & (1 << m["slot"]), "BAD_VALUE", "own bit not set in the connected mask")
    need(m["snapshot_size"] <= MAX_SNAPSHOT, "BAD_LENGTH", "snapshot size")
    inline = r.u16("inline length")
    need(inline == min(m["snapshot_size"], CHUNK), "BAD_LENGTH", "inline length")
    m["chunk0"] = r.take(inline, "snapshot chunk 0")
    return m


def dec_input(r, version):
    if version >= 7:  # slot (bits 0-3), record count - 1 (bits 4-5), payload (bit 6), bit 7 reserved
        packed = r.u8("slot, record count, payload")
        need(not packed & 0x80, "RESERVED_NONZERO", "INPUT byte 0 bit 7")
        m = {"slot": packed & 0x0F}
        n, with_payload = ((packed >> 4) & 3) + 1, bool(packed & 0x40)
        p, g = r.u8("parameter count"), r.u8("trigger count")
        need(p <= MAX_PARAMS, "BAD_COUNT", "parameter count")
        need(g <= MAX_TRIGGERS, "BAD_COUNT", "trigger count")
        m["first_tick"] = r.varint("first tick")
        need(m["first_tick"] <= 0xFFFFFFFF, "BAD_VALUE", "first tick above 2^32 - 1")
    else:
        m = {"slot": r.u8("slot")}
        need(m["slot"] < MAX_PLAYERS, "BAD_VALUE", "slot")
        p, g, rc = r.u8("parameter count"), r.u8("trigger count"), r.u8("record count")
        need(p <= MAX_PARAMS, "BAD_COUNT", "parameter count")
        need(g <= MAX_TRIGGERS, "BAD_COUNT", "trigger count")
        n, with_payload = rc & 0x7F, bool(rc & 0x80)
        need(1 <= n <= MAX_RECORDS, "BAD_COUNT", "record count")
        m["first_tick"] = r.u32("first tick")
    need(m["first_tick"] + n - 1 <= 0xFFFFFFFF, "BAD_VALUE", "first tick + records")
    if version >= 7:  # the frame ack: varint first tick - F, F = the first frame the sender lacks
        lag = r.varint("frame ack")
        need(lag <= m["first_tick"], "BAD_VALUE", "frame ack below tick 0")
        m["frame_ack"] = m["first_tick"] - lag
    m["p"], m["g"], m["records"] = p, g, []
    prev = None
    for i in range(n):
        vals = []
        for k in range(p):
            z = unzigzag(r.varint(f"record {i} parameter {k}"))
            vals.append(target(z if prev is None else prev[k] + z, f"record {i} parameter {k}"))
        trig = list(r.take(g, f"record {i} triggers"))
        payload = None
        if with_payload:
            length = r.u16(f"record {i} payload length")
            need(length <= MAX_PAYLOAD, "BAD_LENGTH", f"record {i} payload length")
            payload = r.take(length, f"record {i} payload")
        m["records"].append({"tick": m["first_tick"] + i, "params": vals, "triggers": trig, "payload": payload})
        prev = vals
    if with_payload:
        need(any(rec["payload"] for rec in m["records"]), "RESERVED_NONZERO", "payload bit without a payload")
    return m


def dec_input_ack(r):
    return {"next_tick": r.u32("next tick"), "server_tick": r.u32("server tick")}


def dec_frame(r):
    m = {"tick": r.u32("tick")}
    n, p, g = r.u8("player count"), r.u8("parameter count"), r.u8("trigger count")
    need(1 <= n <= MAX_PLAYERS, "BAD_COUNT", "player count")
    need(p <= MAX_PARAMS, "BAD_COUNT", "parameter count")
    need(g <= MAX_TRIGGERS, "BAD_COUNT", "trigger count")
    m["coding"] = r.u8("coding")
    need(m["coding"] <= 1, "BAD_ENUM", "coding")
    m["defaulted"], m["payload_mask"] = r.u16("defaulted mask"), r.u16("payload mask")
    m["input_ack"] = r.u8("input ack")  # version 5: any value
    return dec_frame_players(r, m, n, p, g)


def dec_frame_players(r, m, n, p, g):
    """After a frame's masks (FRAME, and each frame of FRAMES): the changed mask of a CHANGES frame, then
    the players on the wire."""
    need(m["defaulted"] >> n == 0, "RESERVED_NONZERO", "defaulted mask above the player count")
    need(m["payload_mask"] >> n == 0, "RESERVED_NONZERO", "payload mask above the player count")
    everyone = (1 << n) - 1
    m["changed"] = everyone
    if m["coding"] == 1:  # CHANGES
        m["changed"] = r.u16("changed mask")
        need(m["changed"] >> n == 0, "RESERVED_NONZERO", "changed mask above the player count")
        need(m["changed"] != everyone, "BAD_VALUE", "every player changed: that is a FULL frame")
        need(m["payload_mask"] & ~m["changed"] == 0, "BAD_VALUE", "a payload outside the changed players")
    m["p"], m["g"], m["n"], m["players"] = p, g, n, [None] * n
    for i in range(n):
        if not m["changed"] & (1 << i):
            continue
        vals = [target(unzigzag(r.varint(f"player {i} parameter {k}")), f"player {i} parameter {k}") for k in range(p)]
        trig = list(r.take(g, f"player {i} triggers"))
        payload = None
        if m["payload_mask"] & (1 << i):
            length = r.u16(f"player {i} payload length")
            need(1 <= length <= MAX_PAYLOAD, "BAD_LENGTH", f"player {i} payload length")
            payload = r.take(length, f"player {i} payload")
        m["players"][i] = {"params": vals, "triggers": trig, "payload": payload}
    return m


def dec_frames(r):
    """Version 7: u32 first tick, u8 count 1..8, u8 n, u8 p, u8 g, u8 input ack; frame 0 (FULL, no coding
    byte): u16 defaulted, u16 payload mask, players; frames 1..: u8 coding, u16 defaulted, u16 payload
    mask, [u16 changed mask], players (CHANGES against the frame before it in this packet)."""
    first, count = r.u32("first tick"), r.u8("frame count")
    n, p, g = r.u8("player count"), r.u8("parameter count"), r.u8("trigger count")
    need(1 <= count <= MAX_FRAMES, "BAD_COUNT", "frame count")
    need(1 <= n <= MAX_PLAYERS, "BAD_COUNT", "player count")
    need(p <= MAX_PARAMS, "BAD_COUNT", "parameter count")
    need(g <= MAX_TRIGGERS, "BAD_COUNT", "trigger count")
    need(first + count - 1 <= 0xFFFFFFFF, "BAD_VALUE", "first tick + count")
    m = {"first_tick": first, "n": n, "p": p, "g": g, "input_ack": r.u8("input ack"), "frames": []}  # no input
    # of the receiver needed up to first + count - 1 + input ack
    for i in range(count):
        f = {"tick": first + i, "coding": 0, "n": n, "p": p, "g": g}
        if i > 0:
            f["coding"] = r.u8(f"frame {i} coding")
            need(f["coding"] <= 1, "BAD_ENUM", f"frame {i} coding")
        f["defaulted"], f["payload_mask"] = r.u16(f"frame {i} defaulted mask"), r.u16(f"frame {i} payload mask")
        dec_frame_players(r, f, n, p, g)
        m["frames"].append(f)
    return m


def expand(frame, previous):
    """A CHANGES frame made whole from frame tick - 1 of the same connection: unchanged players repeat its
    targets and triggers, with no payload. None when that frame is not there (a protocol error)."""
    if frame["coding"] == 0:
        return frame["players"]
    if previous is None or previous["tick"] + 1 != frame["tick"] or previous["n"] != frame["n"]:
        return None
    return [pl if pl is not None else {"params": list(previous["whole"][i]["params"]), "triggers": list(previous["whole"][i]["triggers"]),
                                        "payload": None} for i, pl in enumerate(frame["players"])]


def dec_checksum(r):
    m = {"tick": r.u32("tick"), "blend": r.u64("root blend"), "pose": r.u64("root pose")}
    c, flags = r.u8("character count"), r.u8("flags")
    need(c <= MAX_CHARACTERS, "BAD_COUNT", "character count")
    need(flags & ~1 == 0, "RESERVED_NONZERO", "checksum flags")
    m["characters"] = [(r.u64(f"character {i} blend"), r.u64(f"character {i} pose")) for i in range(c)]
    m["joints"] = None
    if flags & 1:
        ch = r.u8("joint character")
        need(ch < MAX_CHARACTERS, "BAD_VALUE", "joint character")
        j = r.u16("joint count")
        need(1 <= j <= MAX_JOINTS, "BAD_COUNT", "joint count")
        m["joints"] = (ch, [r.u64(f"joint {k}") for k in range(j)])
    return m


def dec_desync(r):
    m = {"tick": r.u32("tick"), "kind": r.u8("kind"), "character": r.u8("character"), "part": r.u16("part"),
         "action": r.u8("action")}
    need(m["kind"] <= 4, "BAD_ENUM", "kind")
    if m["kind"] <= 1:
        need(m["character"] == 0xFF, "BAD_VALUE", "root kinds carry character 0xFF")
    else:
        need(m["character"] < MAX_CHARACTERS, "BAD_VALUE", "character")
    if m["kind"] == 4:
        need(m["part"] < MAX_JOINTS, "BAD_VALUE", "joint index")
    else:
        need(m["part"] == 0xFFFF, "BAD_VALUE", "part of a non-joint kind")
    need(m["action"] <= 3, "BAD_ENUM", "action")
    need(m["action"] != 3 or m["character"] != 0xFF, "BAD_VALUE", "detail needs a character")
    need(r.u8("reserved") == 0, "RESERVED_NONZERO", "reserved")
    m["expected"], m["got"] = r.u64("expected"), r.u64("got")
    return m


def dec_snapshot(r):
    m = {"tick": r.u32("tick"), "kind": r.u8("kind")}
    need(m["kind"] <= 3, "BAD_ENUM", "kind")
    need(r.u8("reserved") == 0, "RESERVED_NONZERO", "reserved")
    m["index"], m["count"], m["total"] = r.u16("chunk index"), r.u16("chunk count"), r.u32("total size")
    need(1 <= m["total"] <= MAX_SNAPSHOT, "BAD_LENGTH", "total size")
    need(m["count"] == (m["total"] + CHUNK - 1) // CHUNK, "BAD_COUNT", "chunk count")
    need(m["index"] < m["count"], "BAD_COUNT", "chunk index")
    length = r.u16("length")
    last = m["total"] - (m["count"] - 1) * CHUNK
    need(length == (last if m["index"] == m["count"] - 1 else CHUNK), "BAD_LENGTH", "chunk length")
    m["bytes"] = r.take(length, "chunk bytes")
    return m


def dec_end(r):
    m = {"ticks": r.u32("ticks"), "reason": r.u8("reason")}
    need(m["reason"] <= 2, "BAD_ENUM", "reason")
    need(r.u8("reserved") == 0 and r.u16("reserved") == 0, "RESERVED_NONZERO", "reserved")
    return m


def dec_start(r, version):
    m = {"tick": r.u32("tick"), "deadline_us": r.u32("deadline")}
    need(m["deadline_us"] <= 10_000_000, "BAD_VALUE", "deadline")
    if version >= 7:
        m["match_ticks"] = r.u32("match length")  # 0: until every player has left
    return m


def dec_auth_init(r):
    m = {"match_id": r.u64("match id"), "slot": r.u8("slot"), "mode": r.u8("mode")}
    need(m["slot"] < MAX_PLAYERS, "BAD_VALUE", "slot")
    need(m["mode"] in (1, 2), "BAD_ENUM", "mode")
    need(r.u16("reserved") == 0, "RESERVED_NONZERO", "reserved")
    m["client_nonce"] = bytes(r.take(32, "client nonce"))
    return m


def dec_auth_challenge(r):
    m = {"server_nonce": bytes(r.take(32, "server nonce")), "mode": r.u8("mode")}
    need(m["mode"] in (1, 2), "BAD_ENUM", "mode")
    need(r.u8("reserved") == 0 and r.u16("reserved") == 0, "RESERVED_NONZERO", "reserved")
    return m


def dec_bye(r):
    m = {"reason": r.u8("reason"), "version_min": r.u8("version min"), "version_max": r.u8("version max")}
    need(m["reason"] <= 16, "BAD_ENUM", "reason")  # 14 OVERLOADED (version 5); 15 AUTH_REQUIRED, 16 AUTH_FAILED (6)
    need(1 <= m["version_min"] <= m["version_max"], "BAD_VALUE", "version range")
    need(r.u8("reserved") == 0, "RESERVED_NONZERO", "reserved")
    return m


DECODE = {"HELLO": dec_hello, "WELCOME": dec_welcome, "INPUT": dec_input, "INPUT_ACK": dec_input_ack,
          "FRAME": dec_frame, "CHECKSUM": dec_checksum, "DESYNC": dec_desync, "SNAPSHOT": dec_snapshot,
          "END": dec_end, "START": dec_start, "BYE": dec_bye, "AUTH_INIT": dec_auth_init,
          "AUTH_CHALLENGE": dec_auth_challenge, "FRAMES": dec_frames}
BY_VERSION = {"INPUT", "START"}  # bodies that differ between versions 6 and 7


def decode(packet):
    """The document's order of checks: length, magic, version, type, flags, body length, packet length, body."""
    need(len(packet) >= 8, "TRUNCATED", "shorter than the header")
    need(packet[0] == 0x42 and packet[1] == 0x53, "BAD_MAGIC", "magic")
    version, type_, body_len, flags = packet[2], packet[3], *struct.unpack("<HH", packet[4:8])
    name = TYPES.get(type_)
    if version not in VERSIONS and not (name == "BYE" and version >= 1):  # BYE decodes under any version >= 1
        raise Bad("UNSUPPORTED_VERSION", f"version {version}")
    need(name is not None and not (name == "FRAMES" and version < 7), "UNKNOWN_TYPE", f"type {type_}")
    need(flags == 0, "RESERVED_NONZERO", "header flags")
    need(body_len <= MAX_BODY[name], "TOO_LONG", f"body {body_len} > {MAX_BODY[name]}")
    need(len(packet) >= 8 + body_len, "TRUNCATED", "packet shorter than its body length")
    need(len(packet) == 8 + body_len, "TRAILING_BYTES", "packet longer than its body length")
    r = Reader(packet[8:])
    m = DECODE[name](r, version) if name in BY_VERSION else DECODE[name](r)
    r.end()
    m["type"], m["version"] = name, version
    return m


# ------------------------------------------------------------------ bodies: encode

def enc_frame_players(w, m):
    if m["coding"] == 1:
        w.u16(m["changed"])
    for pl in m["players"]:
        if pl is None:
            continue
        for v in pl["params"]:
            w.varint(zigzag(v))
        w.raw(bytes(pl["triggers"]))
        if pl["payload"] is not None:
            w.u16(len(pl["payload"])); w.raw(pl["payload"])


def encode(m):
    w = Writer()
    t = m["type"]
    if t == "HELLO":
        w.u64(m["match_id"]); w.u64(m["graph_hash"]); w.u8(m["slot"]); w.u32(m["resume"])
        w.u8(len(m["token"])); w.raw(m["token"])
    elif t == "WELCOME":
        for k in ("tick_rate", "input_delay", "players", "slot", "params", "triggers"):
            w.u8(m[k])
        w.u16(m["checksum_interval"]); w.u16(m["connected"]); w.u32(m["start_tick"]); w.u32(m["snapshot_size"])
        w.u16(len(m["chunk0"])); w.raw(m["chunk0"])
    elif t == "INPUT":
        recs = m["records"]
        with_payload = any(rec["payload"] for rec in recs)
        if m["version"] >= 7:
            w.u8(m["slot"] | (len(recs) - 1) << 4 | (0x40 if with_payload else 0)); w.u8(m["p"]); w.u8(m["g"])
            w.varint(m["first_tick"]); w.varint(m["first_tick"] - m["frame_ack"])
        else:
            w.u8(m["slot"]); w.u8(m["p"]); w.u8(m["g"]); w.u8(len(recs) | (0x80 if with_payload else 0))
            w.u32(m["first_tick"])
        prev = None
        for rec in recs:
            for k, v in enumerate(rec["params"]):
                w.varint(zigzag(v if prev is None else v - prev[k]))
            w.raw(bytes(rec["triggers"]))
            if with_payload:
                pl = rec["payload"] or b""
                w.u16(len(pl)); w.raw(pl)
            prev = rec["params"]
    elif t == "INPUT_ACK":
        w.u32(m["next_tick"]); w.u32(m["server_tick"])
    elif t == "FRAME":
        w.u32(m["tick"]); w.u8(m["n"]); w.u8(m["p"]); w.u8(m["g"]); w.u8(m["coding"])
        w.u16(m["defaulted"]); w.u16(m["payload_mask"]); w.u8(m["input_ack"])
        enc_frame_players(w, m)
    elif t == "FRAMES":
        w.u32(m["first_tick"]); w.u8(len(m["frames"])); w.u8(m["n"]); w.u8(m["p"]); w.u8(m["g"]); w.u8(m["input_ack"])
        for i, f in enumerate(m["frames"]):
            if i > 0:
                w.u8(f["coding"])
            w.u16(f["defaulted"]); w.u16(f["payload_mask"])
            enc_frame_players(w, f)
    elif t == "CHECKSUM":
        w.u32(m["tick"]); w.u64(m["blend"]); w.u64(m["pose"]); w.u8(len(m["characters"]))
        w.u8(1 if m["joints"] is not None else 0)
        for b, p in m["characters"]:
            w.u64(b); w.u64(p)
        if m["joints"] is not None:
            w.u8(m["joints"][0]); w.u16(len(m["joints"][1]))
            for j in m["joints"][1]:
                w.u64(j)
    elif t == "DESYNC":
        w.u32(m["tick"]); w.u8(m["kind"]); w.u8(m["character"]); w.u16(m["part"]); w.u8(m["action"]); w.u8(0)
        w.u64(m["expected"]); w.u64(m["got"])
    elif t == "SNAPSHOT":
        w.u32(m["tick"]); w.u8(m["kind"]); w.u8(0); w.u16(m["index"]); w.u16(m["count"]); w.u32(m["total"])
        w.u16(len(m["bytes"])); w.raw(m["bytes"])
    elif t == "END":
        w.u32(m["ticks"]); w.u8(m["reason"]); w.u8(0); w.u16(0)
    elif t == "START":
        w.u32(m["tick"]); w.u32(m["deadline_us"])
        if m["version"] >= 7:
            w.u32(m["match_ticks"])
    elif t == "BYE":
        w.u8(m["reason"]); w.u8(m["version_min"]); w.u8(m["version_max"]); w.u8(0)
    elif t == "AUTH_INIT":
        w.u64(m["match_id"]); w.u8(m["slot"]); w.u8(m["mode"]); w.u16(0); w.raw(m["client_nonce"])
    elif t == "AUTH_CHALLENGE":
        w.raw(m["server_nonce"]); w.u8(m["mode"]); w.u8(0); w.u16(0)
    body = bytes(w.out)
    code = {v: k for k, v in TYPES.items()}[t]
    return bytes([0x42, 0x53, m["version"], code]) + struct.pack("<HH", len(body), 0) + body


# ------------------------------------------------------------------ captures and the session

def read_capture(path):
    """docs/protocol.md "Captures": "BSCP", u16 version 1, u16 0; records u8 sent, u8 channel, u16 length,
    u32 ms, bytes."""
    data = open(path, "rb").read()
    if data[:4] != b"BSCP" or struct.unpack("<HH", data[4:8]) != (1, 0):
        raise SystemExit(f"{path}: not a version-1 blendsync capture")
    pos, out = 8, []
    while pos < len(data):
        if pos + 8 > len(data):
            raise SystemExit(f"{path}: cut inside a record header at byte {pos}")
        sent, channel, length, ms = struct.unpack("<BBHI", data[pos:pos + 8])
        if pos + 8 + length > len(data):
            raise SystemExit(f"{path}: cut inside a packet at byte {pos}")
        out.append({"sent": bool(sent), "channel": channel, "ms": ms, "bytes": data[pos + 8:pos + 8 + length]})
        pos += 8 + length
    return out


def check(records, expect_desync):
    errors, counts = [], {}
    def fail(msg):
        if len(errors) < 20:
            errors.append(msg)
    msgs = []
    for i, rec in enumerate(records):
        try:
            m = decode(rec["bytes"])
        except Bad as e:
            fail(f"packet {i} ({'sent' if rec['sent'] else 'received'}, channel {rec['channel']}): {e}")
            continue
        if encode(m) != rec["bytes"]:
            fail(f"packet {i} {m['type']}: re-encoding gives other bytes (not canonical)")
        if rec["channel"] != CHANNEL[m["type"]]:
            fail(f"packet {i} {m['type']} on channel {rec['channel']}, the document says {CHANNEL[m['type']]}")
        if m["type"] not in (FROM_CLIENT if rec["sent"] else FROM_SERVER):
            fail(f"packet {i} {m['type']} {'sent by' if rec['sent'] else 'received by'} a client")
        key = ("sent " if rec["sent"] else "received ") + m["type"]
        counts[key] = counts.get(key, 0) + 1
        if counts[key] <= 3:  # "any cut of a packet ... gives TRUNCATED"
            for cut in range(len(rec["bytes"])):
                try:
                    decode(rec["bytes"][:cut])
                    fail(f"packet {i} {m['type']} cut to {cut} bytes decodes")
                except Bad as e:
                    if e.code != "TRUNCATED":
                        fail(f"packet {i} {m['type']} cut to {cut} bytes gives {e.code}, not TRUNCATED")
        m["sent"] = rec["sent"]
        msgs.append(m)

    sent = [m for m in msgs if m["sent"]]
    got = [m for m in msgs if not m["sent"]]
    if not sent or sent[0]["type"] != "HELLO":
        fail("the first packet sent is not a HELLO")
        return errors, counts, {}
    hello = sent[0]
    welcomes = [m for m in got if m["type"] == "WELCOME"]
    if len(welcomes) != 1:
        fail(f"{len(welcomes)} WELCOMEs")
        return errors, counts, {}
    wel = welcomes[0]
    if wel["slot"] != hello["slot"]:
        fail(f"WELCOME for slot {wel['slot']}, HELLO asked for {hello['slot']}")
    # the frame channel: START, FRAMEs from the start tick in order, END with their count
    stream = [m for m in got if CHANNEL[m["type"]] == 2]
    if not stream or stream[0]["type"] != "START" or stream[0]["tick"] != wel["start_tick"]:
        fail("the frame channel does not begin with START of the WELCOME's start tick")
    frames = [m for m in stream if m["type"] == "FRAME"]
    previous, codings = None, {0: 0, 1: 0}
    packets = [m for m in got if m["type"] == "FRAMES"]  # version 7: unreliable, redundant, any order
    if packets:
        if frames:
            fail("both FRAME and FRAMES on one connection")
        frames = v7_frames(packets, wel, fail, codings)
        previous = None
    for k, f in enumerate(frames if not packets else []):
        if f["tick"] != wel["start_tick"] + k:
            fail(f"frame {k} has tick {f['tick']}, expected {wel['start_tick'] + k}")
            break
        if f["n"] != wel["players"] or f["p"] != wel["params"] or f["g"] != wel["triggers"]:
            fail(f"frame {f['tick']}: layout differs from the WELCOME's")
            break
        if k == 0 and f["coding"] != 0:
            fail(f"the first frame of the connection (tick {f['tick']}) is not FULL")
        f["whole"] = expand(f, previous)
        if f["whole"] is None:
            fail(f"frame {f['tick']}: CHANGES without frame {f['tick'] - 1} before it")
            break
        codings[f["coding"]] += 1
        previous = f
    ends = [m for m in stream if m["type"] == "END"]
    if len(ends) != 1 or stream[-1]["type"] != "END":
        fail("the frame channel does not end with exactly one END")
    elif ends[0]["ticks"] != wel["start_tick"] + len(frames):
        fail(f"END says {ends[0]['ticks']} ticks, {len(frames)} frames from {wel['start_tick']} arrived")
    # our inputs: the newest record we sent for a tick is what its frame carries (unless defaulted)
    mine = {}
    for m in sent:
        if m["type"] == "INPUT":
            if m["slot"] != hello["slot"]:
                fail(f"INPUT for slot {m['slot']}, we are {hello['slot']}")
            for rec in m["records"]:
                mine[rec["tick"]] = rec
    carried = defaulted = 0
    for f in frames:
        if f.get("whole") is None:
            break
        me = f["whole"][hello["slot"]]
        if f["defaulted"] & (1 << hello["slot"]):
            defaulted += 1
            continue
        rec = mine.get(f["tick"])
        if rec is None:
            fail(f"frame {f['tick']} carries an input for our slot that we never sent")
        elif rec["params"] != me["params"] or rec["triggers"] != me["triggers"]:
            fail(f"frame {f['tick']}: our slot's input {me['params']}/{me['triggers']} is not what we sent "
                 f"({rec['params']}/{rec['triggers']})")
        else:
            carried += 1
    if packets:  # every INPUT's frame ack: never a frame we had not received when we sent it
        have, lacks = set(), wel["start_tick"]
        for m in msgs:
            if not m["sent"] and m["type"] == "FRAMES":
                have.update(f["tick"] for f in m["frames"])
                while lacks in have:
                    lacks += 1
            elif m["sent"] and m["type"] == "INPUT" and m["frame_ack"] > lacks:
                fail(f"INPUT acks frames below {m['frame_ack']}, we held only those below {lacks}")
                break
    acks = [m["next_tick"] for m in got if m["type"] == "INPUT_ACK"]
    if any(b < a for a, b in zip(acks, acks[1:])):
        fail("INPUT_ACK next tick went backwards on a sequenced channel")
    # version 5: each FRAME's input ack says our inputs up to tick + ack are not needed; that point never
    # goes backwards on the (ordered) frame channel, and every record we sent after hearing it is later
    needed = [f["tick"] + 1 + f["input_ack"] for f in frames] if not packets else \
        [pk["first_tick"] + len(pk["frames"]) + pk["input_ack"] for pk in packets]
    if any(b < a for a, b in zip(needed, needed[1:])):
        fail("FRAME input ack went backwards on the ordered frame channel" if not packets else
             "FRAMES input ack went backwards on the sequenced input channel")
    # (FRAMES: ticks up to the packet's newest frame are confirmed, what it claims past that must be ours;
    # judged on the live packets only, whose newest frame is the newest yet: a catch-up packet of older
    # frames carries the same ack point, past confirmed frames that may not be ours)
    live, top = [], -1
    for pk in packets:
        newest = pk["first_tick"] + len(pk["frames"]) - 1
        if newest >= top:
            live.append({"tick": newest, "input_ack": pk["input_ack"]})
            top = newest
    for f in (frames if not packets else live):
        held = f["tick"] + 1 + f["input_ack"]
        for t in range(f["tick"] + 1, held):
            if t not in mine:
                fail(f"frame {f['tick']}: input ack says the server holds our tick {t}, which we never sent")
                break
    # checksums: after frame t with (t + 1) a multiple of the interval, CHECKSUM tick t, every character
    checks = [m for m in sent if m["type"] == "CHECKSUM" and m["joints"] is None]
    roots = sorted({m["tick"] for m in checks})
    last = wel["start_tick"] + len(frames)
    want = [t for t in range(wel["start_tick"], last) if (t + 1) % wel["checksum_interval"] == 0]
    missing = [t for t in want if t not in roots]
    if missing:
        fail(f"no CHECKSUM for ticks {missing[:5]} (after frame t with t + 1 a multiple of {wel['checksum_interval']})")
    extra = [t for t in roots if t not in want]
    if extra:
        fail(f"CHECKSUM for ticks {extra[:5]} that are not checksum ticks")
    if len({len(m["characters"]) for m in checks}) > 1:
        fail("CHECKSUMs with different character counts")
    # desync: the server's DESYNC, then our TRAIL and DUMP uploads of its tick, chunks in order
    desyncs = [m for m in got if m["type"] == "DESYNC" and m["action"] != 3]
    uploads = {}
    for m in sent:
        if m["type"] == "SNAPSHOT":
            lst = uploads.setdefault((m["kind"], m["tick"]), [])
            if m["index"] != len(lst):
                fail(f"upload kind {m['kind']} tick {m['tick']}: chunk {m['index']} after {len(lst)} chunks")
            lst.append(m)
    if expect_desync and not desyncs:
        fail("no DESYNC received, one was expected")
    if not expect_desync and desyncs:
        fail(f"{len(desyncs)} DESYNC received, none expected")
    for d in desyncs:
        for kind, name in ((3, "TRAIL"), (2, "DUMP")):
            ch = uploads.get((kind, d["tick"] + 1))  # the state after frame t: the start of tick t + 1
            if not ch or len(ch) != ch[0]["count"]:
                fail(f"DESYNC at tick {d['tick']}: no complete {name} upload of that tick")
    byes = [m for m in got if m["type"] == "BYE"]
    if not byes or byes[-1]["reason"] != 7:
        fail("no BYE MATCH_OVER at the end")
    facts = {"slot": hello["slot"], "start_tick": wel["start_tick"], "frames": len(frames),
             "frames_full_changes": [codings[0], codings[1]] if frames else [0, 0],
             "end_ticks": ends[0]["ticks"] if ends else None, "inputs_carried": carried,
             "frames_defaulted_for_us": defaulted, "root_checksums_sent": len(roots), "desyncs": len(desyncs),
             "uploads": {f"{'DUMP' if k == 2 else 'TRAIL' if k == 3 else k}@{t}": sum(len(c['bytes']) for c in v)
                         for (k, t), v in uploads.items()}}
    return errors, counts, facts


def v7_frames(packets, wel, fail, codings):
    """Version 7: the frames of every FRAMES packet, each made whole inside its packet (its first frame
    FULL, each CHANGES against the frame before it); copies of a tick must agree; the ticks from the
    WELCOME's start on, each once, in order."""
    seen = {}
    for pk in packets:
        previous = None
        newest = pk["first_tick"] + len(pk["frames"]) - 1
        for f in pk["frames"]:
            if f["n"] != wel["players"] or f["p"] != wel["params"] or f["g"] != wel["triggers"]:
                fail(f"FRAMES frame {f['tick']}: layout differs from the WELCOME's")
                return []
            f["whole"] = expand(f, previous)
            f["input_ack"] = pk["input_ack"] + newest - f["tick"]
            previous = f
            codings[f["coding"]] += 1
            old = seen.get(f["tick"])
            if old is None:
                seen[f["tick"]] = f
            elif [(pl["params"], pl["triggers"], pl["payload"]) for pl in old["whole"]] != \
                    [(pl["params"], pl["triggers"], pl["payload"]) for pl in f["whole"]] or old["defaulted"] != f["defaulted"]:
                fail(f"two copies of frame {f['tick']} differ")
    ticks = sorted(seen)
    out = []
    for k, t in enumerate(ticks):
        if t != wel["start_tick"] + k:
            fail(f"FRAMES: frame {wel['start_tick'] + k} never arrived (next held: {t})")
            break
        out.append(seen[t])
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    path, expect_desync, as_json = argv[0], "--expect-desync" in argv, "--json" in argv
    records = read_capture(path)
    errors, counts, facts = check(records, expect_desync)
    if as_json:
        print(json.dumps({"packets": len(records), "counts": counts, "facts": facts, "errors": errors}, indent=1))
    else:
        print(f"{path}: {len(records)} packets; " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
        for k, v in facts.items():
            print(f"  {k}: {v}")
        for e in errors:
            print(f"FAIL {e}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
