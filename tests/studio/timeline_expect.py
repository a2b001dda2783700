#!/usr/bin/env python3
"""timeline_expect.py TIMELINE — studio_replay_timeline's lines as the JSON the Replay timeline test
compares with the page (per character: each switch's state per tick; per action of the events fixture,
hit (a range) and whoosh (an instant), the ticks it fired in, was entered, left and open after), after
checking the native reports against the clip times by hand (docs/actions.md, "Crossings"):

The punch clip is 1 s long at 30 Hz; a switch trigger restarts it at 0 in the trigger's tick T (the
first tick whose switch state is punch), so after tick T + j its position is j/30 s. 0.1, 0.2 and 0.35 s
are 6554, 13107 and 22938 raw Q16.16 (0.100006, 0.199997, 0.350006 s). An instant fires in the tick that
goes past it: whoosh (0.1) in tick T + 3 (3/30 = 0.1 is not past 0.100006); the hit range [0.2, 0.35)
is entered in tick T + 5 (5/30 = 0.1667 < 0.199997 < 6/30) and left in tick T + 10 (10/30 = 0.3333 <
0.350006 < 11/30), open after ticks T + 5 .. T + 9 — the same offsets as the unit test's punch triggered
in tick 1 (whoosh 4, hit 6 .. 11). Both use the "always" policy (the punch plays on the layer "upper",
whose weight the "weight" policy does not count). The check holds for every punch that plays 11 ticks
(the match holds each trigger at least 20 ticks); reports outside those windows (a punch re-triggered
or one playing at the match's start) are not derived here, only compared with the page.
"""
import json
import sys

NAMES = [("hit", "range"), ("whoosh", "event")]
chars = {}
for line in open(sys.argv[1]):
    tick, c, _, sw, _, acts = line.split()
    tick, c = int(tick), int(c)
    ch = chars.setdefault(c, {"switches": [], "actions": [{"name": n, "kind": k, "fired": [], "entered": [], "exited": [], "open": []} for n, k in NAMES], "ticks": []})
    states = [int(s) for s in sw.split(",")]
    if not ch["switches"]:
        ch["switches"] = [[] for _ in states]
    for w, s in enumerate(states):
        ch["switches"][w].append(s)
    ch["ticks"].append(tick)
    if acts == "-":
        continue
    for r in acts.split(";"):
        a, kind, count, exits, active = map(int, r.split(":"))
        e = ch["actions"][a]
        assert (kind == 1) == (e["kind"] == "range"), line
        if kind == 0 and count:
            e["fired"].append(tick)
        if kind == 1:
            if count:
                e["entered"].append(tick)
            if exits:
                e["exited"].append(tick)
            if active:
                e["open"].append(tick)

checked = 0
for c, ch in chars.items():
    band, ticks = ch["switches"][0], ch["ticks"]
    hit, whoosh = ch["actions"]
    for i in range(1, len(band) - 11):
        if band[i] == 2 and band[i - 1] != 2 and all(s == 2 for s in band[i:i + 11]):
            t = ticks[i]
            ok = (t + 3 in whoosh["fired"] and t + 5 in hit["entered"] and t + 10 in hit["exited"]
                  and all(t + j in hit["open"] for j in range(5, 10)) and t + 10 not in hit["open"])
            if not ok:
                sys.exit(f"character {c}: a punch from tick {t}: whoosh {whoosh['fired']}, hit entered {hit['entered']}, left {hit['exited']}")
            checked += 1
    del ch["ticks"]
if not checked:
    sys.exit("no punch played 11 ticks")
print(f"checked by hand: {checked} punches", file=sys.stderr)
print(json.dumps([chars[c] for c in sorted(chars)], separators=(",", ":")))
