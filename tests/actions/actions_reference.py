#!/usr/bin/env python3
"""actions_reference.py — the independent model of docs/actions.md ("Crossings", "Policies", "Ranges",
and with "markers" "Sync markers" / "The marker position"), written from the doc, checked against
tests/actions/actions_trace.c's output.

Usage: actions_reference.py TRACE_PROGRAM [SEEDS] [TICKS] [markers|groups] ("groups": "Sync groups", all
four slots in one group on two node clocks). For each seed it runs the program and, per
tick, predicts the reports from the graph description, the slot positions and contributions the
program prints (the model computes the sync-none clocks itself and checks the printed ones), and the
model's own range states; the R lines (and the X lines of re-simulated ticks) must be exactly the
prediction. Crossings are counted by enumerating the cycles k (no closed form), so the model does not
share the C code's arithmetic."""
import subprocess
import sys

UNITS = 1 << 32


def units(t_raw, dur_raw):
    """ceil(t * 2^32 / duration): the first clock position whose sampled time reaches t."""
    return -((-t_raw * UNITS) // dur_raw)


def crossings(e, p0, p1, one_shot):
    """#{k >= 0 (k = 0 for a one-shot): p0 <= e + k 2^32 < p1}, positions as integers in 2^-32 cycles."""
    if one_shot:
        return 1 if p0 <= e < p1 else 0
    n = 0
    k = max(0, p0 // UNITS - 2)
    while e + k * UNITS < p1:
        if e + k * UNITS >= p0:
            n += 1
        k += 1
    return n


def inside(at, until, p, one_shot):
    """Past the range's begin and not past its end in some cycle k >= 0 (k = 0 for a one-shot)."""
    ks = [0] if one_shot else range(max(0, p // UNITS - 2), p // UNITS + 2)
    return any(at + k * UNITS < p <= until + k * UNITS for k in ks)


def marker_phase(lead, follower, f):
    """docs/actions.md "Sync markers": the follower's phase for the leader at phase f; lead and follower are
    lists of (at, name) in time order. None when either has no markers or the follower lacks the pair."""
    if not lead or not follower:
        return None
    before = [i for i, (at, _) in enumerate(lead) if at <= f]
    p = before[-1] if before else len(lead) - 1
    q = (p + 1) % len(lead)
    span = (lead[q][0] - lead[p][0]) % UNITS or UNITS
    pos = (f - lead[p][0]) % UNITS
    for j in range(len(follower)):
        k = (j + 1) % len(follower)
        if follower[j][1] == lead[p][1] and follower[k][1] == lead[q][1]:
            fspan = (follower[k][0] - follower[j][0]) % UNITS or UNITS
            return (follower[j][0] + pos * fspan // span) % UNITS
    return None


def marker_position(q, motion, weights, markers):
    """docs/actions.md "The marker position": the node position q (cycles counted) moved by the signed
    offset, in [-2^31, 2^31), from its phase to the marker-mapped phase of `motion`; weights: the node's
    motion children (motion, weight), the leader the largest (the first on ties)."""
    best = max(w for _, w in weights)
    if best <= 0:
        return q
    lead = next(m for m, w in weights if w == best)
    if lead == motion:
        return q
    f = q % UNITS
    g = marker_phase(markers.get(lead, []), markers.get(motion, []), f)
    if g is None:
        return q
    d = (g - f) % UNITS
    if d >= UNITS // 2:
        d -= UNITS
    return q + d


def signed_offset(g, f):
    d = (g - f) % UNITS
    return d - UNITS if d >= UNITS // 2 else d


def run(prog, seed, ticks, mode=None):
    with_markers = mode is not None
    out = subprocess.run([prog, str(seed), str(ticks)] + ([mode] if mode else []), capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"seed {seed}: {prog} failed: {out.stderr.strip()}")
    slots, actions, pos, contrib, rep, resim = {}, [], {}, {}, {}, {}
    rate = None
    markers, node_w = {}, {}
    for line in out.stdout.split("\n"):
        f = line.split()
        if not f:
            continue
        if f[0] == "G":
            rate = int(f[1])
        elif f[0] == "M":
            s, m, node, child, once, dur = map(int, f[1:7])
            slots[s] = dict(motion=m, node=node, child=child, once=once, dur=dur, clock=f[7], scale=int(f[8]))
        elif f[0] == "A":
            i, m, kind, t0, t1, pol, thr, pay = map(int, f[1:9])
            actions.append(dict(i=i, motion=m, kind=kind, t0=t0, t1=t1, policy=pol, thr=thr))
        elif f[0] == "K":
            m, name, t_raw = map(int, f[1:4])
            markers.setdefault(m, []).append(name)
            markers[m][-1] = (t_raw, name)
        elif f[0] == "W":
            node_w[int(f[1])] = (int(f[2]), int(f[3]))
        elif f[0] == "S":
            t, s, cyc, ph, c = int(f[1]), int(f[2]), int(f[3]), int(f[4]), int(f[5])
            pos[(t, s)] = cyc * UNITS + ph
            contrib[(t, s)] = c
        elif f[0] in "RX":
            t = int(f[1])
            rec = tuple(map(int, f[2:8]))
            (rep if f[0] == "R" else resim).setdefault(t, []).append(rec)
    # markers as (at, name) with at = ceil(time 2^32 / duration), the motion's duration from its slot
    dur_of = {sl["motion"]: sl["dur"] for sl in slots.values()}
    markers = {m: [(units(t_raw, dur_of[m]), name) for t_raw, name in ks] for m, ks in markers.items()}
    checked = events = mapped = jumps = 0
    opened = {}
    for t in range(1, ticks + 1):
        want = []
        # the sync group of "synced" (slots 4 and 5): the larger contribution leads, ties to slot 4
        c4, c5 = contrib[(t, 4)], contrib[(t, 5)]
        leader = 4 if c4 >= c5 else 5
        if mode == "groups":
            # docs/actions.md "Sync groups": one group of all four slots, the largest contribution leads
            # (ties to the lowest slot); its node's clock anchors every slot
            best = max(contrib[(t, s)] for s in slots)
            if best <= 0:
                raise SystemExit(f"seed {seed} tick {t}: a silent group (the model does not cover it)")
            leader = min(s for s in slots if contrib[(t, s)] == best)
        for s in sorted(slots):
            sl = slots[s]
            if sl["clock"] == "none":  # the model's own clock: floor(n 2^32 scale / (rate duration))
                for n in (t - 1, t):
                    exact = n * UNITS * sl["scale"] // (rate * sl["dur"])
                    if n == t and exact != pos[(t, s)]:
                        raise SystemExit(f"seed {seed} tick {t} slot {s}: clock {pos[(t, s)]} != {exact}")
                p0 = (t - 1) * UNITS * sl["scale"] // (rate * sl["dur"])
            else:
                p0 = pos[(t - 1, s)] if t > 1 else 0
            p1 = pos[(t, s)]
            if mode == "groups":
                lm = slots[leader]["motion"]
                q0 = pos[(t - 1, leader)] if t > 1 else 0
                q1 = pos[(t, leader)]
                p0, p1 = q0, q1
                if s != leader and lm != sl["motion"]:
                    g0 = marker_phase(markers.get(lm, []), markers.get(sl["motion"], []), q0 % UNITS)
                    g1 = marker_phase(markers.get(lm, []), markers.get(sl["motion"], []), q1 % UNITS)
                    p0 = q0 + (signed_offset(g0, q0 % UNITS) if g0 is not None else 0)
                    p1 = q1 + (signed_offset(g1, q1 % UNITS) if g1 is not None else 0)
                if p1 < p0:
                    p0 = p1
                    jumps += 1
                elif s != leader:
                    mapped += 1
            elif with_markers and sl["clock"] == "sync":
                # both ends mapped with this tick's weights; a position that moved back is a jump to p1
                wts = [(2, node_w[t][0]), (3, node_w[t][1])]
                p0 = marker_position(p0, sl["motion"], wts, markers)
                p1 = marker_position(p1, sl["motion"], wts, markers)
                if p1 < p0:
                    p0 = p1
                    jumps += 1
                elif p0 != pos[(t - 1, s)] if t > 1 else p0 != 0:
                    mapped += 1
            c = contrib[(t, s)]
            for a in actions:
                if a["motion"] != sl["motion"]:
                    continue
                if a["policy"] == 2:
                    ok = True
                elif a["policy"] == 1:
                    ok = c > 0 and (sl["clock"] == "none" or s == leader)  # "group": one leader for all
                else:
                    ok = c > 0 and c >= a["thr"]
                at = units(a["t0"], sl["dur"])
                once = sl["once"] == 1
                if a["kind"] == 0:
                    n = crossings(at, p0, p1, once) if ok else 0
                    if n:
                        want.append((a["i"], sl["node"], sl["child"], n, 0, 0))
                        events += n
                    continue
                until = units(a["t1"], sl["dur"])
                was = opened.get((s, a["i"]), 0)
                in0 = inside(at, until, p0, once)
                enters = exits = 0
                if was and not (ok and in0):
                    exits += 1
                if ok and in0 and not was:
                    enters += 1
                if ok:
                    enters += crossings(at, p0, p1, once)
                    exits += crossings(until, p0, p1, once)
                now = 1 if ok and inside(at, until, p1, once) else 0
                opened[(s, a["i"])] = now
                if enters or exits or now:
                    want.append((a["i"], sl["node"], sl["child"], enters, exits, now))
                    events += enters + exits
        if rep.get(t, []) != want:
            raise SystemExit(f"seed {seed} tick {t}: reported {rep.get(t, [])}, the model says {want}")
        checked += 1
        if t in resim:
            # every re-simulation of this tick reported the same (the program checks that), once each
            per = len(want)
            if per and len(resim[t]) % per != 0 or any(r not in want for r in resim[t]):
                raise SystemExit(f"seed {seed} tick {t}: re-simulated {resim[t]}, the model says {want}")
    return checked, events, sum(len(v) for v in resim.values()), mapped, jumps


def main():
    prog = sys.argv[1]
    seeds = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    ticks = int(sys.argv[3]) if len(sys.argv) > 3 else 400
    mode = sys.argv[4] if len(sys.argv) > 4 else None
    if mode not in (None, "markers", "groups"):
        raise SystemExit("usage: actions_reference.py TRACE_PROGRAM [SEEDS] [TICKS] [markers|groups]")
    with_markers = mode is not None
    total = [0, 0, 0, 0, 0]
    for seed in range(1, seeds + 1):
        r = run(prog, seed, ticks, mode)
        total = [x + y for x, y in zip(total, r)]
    if total[1] == 0:
        raise SystemExit("no action fired in any run: the test would prove nothing")
    if with_markers and (total[3] == 0 or total[4] == 0):
        raise SystemExit("no mapped tick or no backward jump: the marker runs would prove nothing")
    print(f"actions_reference: {seeds} seeds, {total[0]} ticks, {total[1]} crossings, "
          f"{total[2]} re-simulated reports" + (f", {total[3]} slot-ticks on a marker position, "
          f"{total[4]} backward jumps" if with_markers else "") + ": all as the model says")


if __name__ == "__main__":
    main()
