#!/usr/bin/env python3
"""Input pacing of one captured client, measured from the wire alone (docs/lockstep.md "Pacing"):
decoded with this directory's document-only decoder (bsync_wire.py), no code shared with the library.

usage: pacing_latency.py [--warmup TICKS] CAPTURE [CAPTURE ...]   prints one JSON object per capture

For every tick the client sent an input for (the newest record of an INPUT, first time it appears):
  lead      = tick - s - d, with s the server tick the client had heard when it sent it (START's tick,
              or one past the newest FRAME received) and d the WELCOME's input delay: the ticks the
              input goes later than the input delay alone would send it. On loopback the frames arrive
              at once, so s is the server's tick and the lead must be 0; on a path it is about the
              round trip in ticks (s lags by the one-way delay down, the input needs the one way up).
  latency   = arrival of the FRAME of that tick - the send, in ms (decision to applied).
Also: INPUT packets sent before START arrived (must be 0), and the frames from START's tick +
max(d, TICKS) on whose defaulted bit for our slot is set (our input missed its deadline or was lost;
the ticks between S + d and the first input's tick are defaulted when the client starts with a lead,
which --warmup leaves out).
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bsync_wire as w  # noqa: E402


def analyse(path, warmup=0):
    records = w.read_capture(path)
    slot = delay = rate = None
    start_tick = None
    s = None
    lobby_inputs = 0
    sent = {}          # tick -> (ms, lead)
    newest_sent = -1
    frame_ms = {}      # tick -> ms
    defaulted = 0
    frames = 0
    for rec in records:
        try:
            m = w.decode(rec["bytes"])
        except w.Bad:
            continue
        t = m["type"]
        if not rec["sent"]:
            if t == "WELCOME":
                slot, delay, rate = m["slot"], m["input_delay"], m["tick_rate"]
            elif t == "START":
                start_tick = m["tick"]
                s = max(s or 0, m["tick"])
            elif t in ("FRAME", "FRAMES"):  # version 7: FRAMES, each frame possibly in several packets
                for f in (m["frames"] if t == "FRAMES" else [m]):
                    if f["tick"] in frame_ms:
                        continue
                    frames += 1
                    frame_ms[f["tick"]] = rec["ms"]
                    s = max(s or 0, f["tick"] + 1)
                    if slot is not None and start_tick is not None and f["tick"] >= start_tick + max(delay, warmup) \
                            and (f["defaulted"] >> slot) & 1:
                        defaulted += 1
        elif t == "INPUT":
            if start_tick is None:
                lobby_inputs += 1
                continue
            newest = m["first_tick"] + len(m["records"]) - 1
            if newest > newest_sent:
                newest_sent = newest
                sent[newest] = (rec["ms"], newest - s - delay)
    leads = [lead for (_, lead) in sent.values()]
    lat = [frame_ms[t] - ms for t, (ms, _) in sent.items() if t in frame_ms]
    out = {"capture": path, "slot": slot, "input_delay": delay, "tick_rate": rate, "lobby_inputs": lobby_inputs,
           "inputs": len(sent), "frames": frames, "defaulted_self": defaulted}
    if leads:
        q = statistics.quantiles(leads, n=10) if len(leads) > 1 else [leads[0]] * 9
        out.update({"lead_median": statistics.median(leads), "lead_p90": q[8], "lead_max": max(leads)})
    if lat:
        q = statistics.quantiles(lat, n=10) if len(lat) > 1 else [lat[0]] * 9
        out.update({"latency_ms_median": statistics.median(lat), "latency_ms_p90": q[8]})
    return out


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    warmup = 0
    if argv[0] == "--warmup":
        warmup, argv = int(argv[1]), argv[2:]
    for path in argv:
        print(json.dumps(analyse(path, warmup)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
