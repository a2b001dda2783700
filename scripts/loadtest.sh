#!/usr/bin/env bash
# Capacity of one blendsync-server process (issue 14): M matches of P players at R Hz for S seconds of
# play, on loopback, against the real server, with every player a real ENet peer of the load generator
# (tests/tools/loadgen.c: HELLO, one INPUT per tick by the documented pacing rule, to END; it does not
# simulate, so it sends no checksums). Bounded in time; stops by itself.
# When players send (--phase, as real clients do): `spread` (the default) gives player i a phase phi_i
# uniform in [0, one tick) drawn once, and each of its INPUTs leaves at its tick slot + phi_i + u, u
# uniform in [0, J] per send (--jitter-us J, default 1000): the sends of many players are spread over
# the whole tick. `burst`: everybody at the tick's boundary together (no phase, no jitter).
# Prints one line per run: players carried (completed / total), server CPU (% of one core and µs per
# server tick), tick lateness p50 / p99 (the worst match's), defaulted inputs, bytes per player per
# second down and up, matches refused because the server was overloaded (BYE OVERLOADED, docs/server.md
# "Overload") and how often it entered that state, BYEs other than MATCH_OVER and OVERLOADED, timeouts,
# and the load generator's own CPU (on a
# small machine it competes with the server: read the figures with it).
# usage: scripts/loadtest.sh [--build DIR] [--short] [--overload PERMILLE] [--stagger MS] [--workers W]
#                            [--generators G] [--phase spread|burst] [--jitter-us J] [M P R S] ...
#   (default: 8 16 30 10)
#   --workers: the server's worker threads (blendsync-server --workers; match i on worker i % W)
#   --generators: G load generator processes side by side, each with a share of the matches and its
#   own loopback addresses (one generator is one thread: past about 2,000 players it is the limit)
#   --jsonl FILE: also append one JSON object per run to FILE (the figures of the line)
#   --session encrypt|authenticate: every player gets a secret (authenticated sessions, docs/security.md)
#   --overload: the server's threshold (blendsync-server --overload; default its own, 500)
#   --stagger: match i's players connect i x MS after the first (matches arriving over time, so that an
#   overloaded server refuses the later ones; default 0: all at once)
#   several "M P R S" groups run one after another; --short: 2 matches x 8 players at 30 Hz for 4 s
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
args=()
overload=()
stagger=0
workers=1
generators=1
jsonl=""
session=""
phase=()
jitter=()
while [ $# -gt 0 ]; do
    case "$1" in
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    --short) args+=(2 8 30 4); shift ;;
    --overload) overload=(--overload "$2"); shift 2 ;;
    --stagger) stagger=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --generators) generators=$2; shift 2 ;;
    --session) session=$2; shift 2 ;;
    --phase) phase=(--phase "$2"); shift 2 ;;
    --jitter-us) jitter=(--jitter-us "$2"); shift 2 ;;
    --jsonl) jsonl=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    *) args+=("$1"); shift ;;
    esac
done
[ ${#args[@]} -eq 0 ] && args=(8 16 30 10)
[ $(( ${#args[@]} % 4 )) -eq 0 ] || { echo "usage: scripts/loadtest.sh [--build DIR] [--short] [--overload PERMILLE] [--stagger MS] [--workers W] [--generators G] [--jsonl FILE] [--session MODE] [--phase spread|burst] [--jitter-us J] [M P R S] ..." >&2; exit 2; }
server="$build/blendsync-server"; loadgen="$build/tests/bsync_loadgen"
[ -x "$server" ] && [ -x "$loadgen" ] || { echo "loadtest: build first (cmake --build $build): need $server and $loadgen" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/bsync-loadtest.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$root/scripts/demo/humanoid_locomotion.json" "$work/"
hz=$(getconf CLK_TCK)
status=0
set -- "${args[@]}"
while [ $# -gt 0 ]; do
    M=$1 P=$2 R=$3 S=$4; shift 4
    run="$work/m${M}p${P}r${R}"; mkdir -p "$run"; cp "$work/humanoid_locomotion.json" "$run/"
    python3 - "$root/scripts/demo/match.json" "$run" "$M" "$P" "$R" "$S" "$stagger" "$session" <<'PY'
import json, secrets, sys
session = sys.argv[8]
base, run, M, P, R, S, stagger = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:8])
wait_ms = 20000 + M * stagger  # the lobby waits for the last match's players too
demo = json.load(open(base))
graph = json.load(open(f"{run}/humanoid_locomotion.json"))
graph["tick_rate"] = R  # the match runs at its graphs' rate
json.dump(graph, open(f"{run}/humanoid_locomotion.json", "w"))
with open(f"{run}/matches.txt", "w") as lst:
    for i in range(M):
        m = {"match_id": 1000 + i, "players": [dict({"token": f"t{i}-{p}"}, **({"secret": secrets.token_hex(32)} if session else {}))
                                               for p in range(P)],
             "input": demo["input"],
             "characters": [{"name": f"p{p}", "graph": "humanoid_locomotion.json", "slot": p} for p in range(P)],
             "input_delay": 3, "checksum_interval": 30, "desync_policy": "report",
             "duration_ticks": R * S, "timeouts": {"start_ms": wait_ms, "peer_ms": 5000, "idle_ms": wait_ms + 10000}}
        if session:
            m["session"] = session
        path = f"{run}/match{i:03d}.json"
        json.dump(m, open(path, "w"))
        lst.write(path + "\n")
PY
    margs=(); while read -r f; do margs+=(--match "$f"); done <"$run/matches.txt"
    "$server" --listen 127.0.0.1:0 "${margs[@]}" --workers "$workers" --exit-when-done --status 0 "${overload[@]}" --log "$run/server.log" >"$run/server.out" 2>&1 &
    spid=$!
    ports=()
    for _ in $(seq 1 600); do
        mapfile -t ports < <(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$run/server.out")
        [ ${#ports[@]} -ge "$workers" ] && break
        kill -0 $spid 2>/dev/null || break
        sleep 0.05
    done
    [ ${#ports[@]} -ge "$workers" ] || { echo "loadtest: the server did not start"; cat "$run/server.out"; kill $spid 2>/dev/null; exit 1; }
    # match i is served by worker i % W; generator g gets matches g, g + G, ... (tab: the match's port)
    i=0; for g in $(seq 0 $((generators - 1))); do : >"$run/list$g.txt"; done
    while read -r f; do
        printf '%s\t%s\n' "$f" "${ports[$((i % workers))]}" >>"$run/list$((i % generators)).txt"; i=$((i + 1))
    done <"$run/matches.txt"
    cpu0=$(awk '{print $14 + $15}' /proc/$spid/stat)
    # the server's CPU (user + system clock ticks, every thread) sampled until it exits: the last sample is its total
    (while kill -0 $spid 2>/dev/null; do awk '{print $14 + $15}' /proc/$spid/stat >"$run/cpu" 2>/dev/null; sleep 0.2; done) &
    sampler=$!
    gpids=()
    for g in $(seq 0 $((generators - 1))); do
        timer=(); [ -x /usr/bin/time ] && timer=(/usr/bin/time -f "%e %U %S" -o "$run/loadgen$g.cpu")
        "${timer[@]}" "$loadgen" --server 127.0.0.1:${ports[0]} --matches "$run/list$g.txt" --address-base $((g * 4000)) \
            --seconds $((S + 40 + M * stagger / 1000)) --stagger $stagger "${phase[@]}" "${jitter[@]}" --json >"$run/loadgen$g.json" &
        gpids+=($!)
    done
    for gp in "${gpids[@]}"; do wait "$gp" || status=1; done
    wait $spid || status=1
    wait $sampler 2>/dev/null || true
    cpu1=$(cat "$run/cpu" 2>/dev/null || echo "$cpu0")
    python3 - "$run" "$M" "$P" "$R" "$S" "$((cpu1 - cpu0))" "$hz" "$workers" "$generators" "$jsonl" <<'PY'
import glob, json, re, sys
jsonl = sys.argv[10]
run, M, P, R, S, cpu_ticks, hz, W, G = sys.argv[1], *map(int, sys.argv[2:10])
gens = [json.load(open(p)) for p in sorted(glob.glob(f"{run}/loadgen[0-9]*.json"))]
lg = {"players": 0, "completed": 0, "timeouts": 0, "refused_matches": 0, "bye": {}}
for g in gens:
    for k in ("players", "completed", "timeouts", "refused_matches"):
        lg[k] += g.get(k, 0)
    for k, v in g["bye"].items():
        lg["bye"][k] = lg["bye"].get(k, 0) + v
for k in ("down_bytes_per_player_s", "up_bytes_per_player_s", "enet_down_bytes_per_player_s", "enet_up_bytes_per_player_s"):
    lg[k] = round(sum(g[k] * g["players"] for g in gens) / max(1, lg["players"]))
p50s, p99s, got, dflt = [], [], 0, 0
for line in open(f"{run}/server.log"):
    if "event=status" not in line:
        continue
    kv = dict(re.findall(r"(\w+)=(\S+)", line))
    p50s.append(int(kv.get("jitter_p50_us", 0))); p99s.append(int(kv.get("jitter_p99_us", 0)))
    got = got + int(kv.get("inputs", 0)); dflt = dflt + int(kv.get("defaulted", 0))
cpu_s = cpu_ticks / hz
wall, lg_cpu = 0.0, 0.0
try:
    for p in sorted(glob.glob(f"{run}/loadgen[0-9]*.cpu")):
        w, u, s_ = map(float, open(p).read().split()[-3:])
        wall, lg_cpu = max(wall, w), lg_cpu + u + s_
except (OSError, ValueError):
    wall, lg_cpu = float(S), float("nan")
if wall == 0.0:
    wall, lg_cpu = float(S), float("nan")
# the generator runs from before the first connect to the last END: the server's busy wall time too
wall = max(wall, 1e-3)
ticks = R * S
p50s.sort()
bye = {k: v for k, v in lg["bye"].items() if k != "match has ended" and not k.startswith("server overloaded")}
overloads = sum(1 for line in open(f"{run}/server.log") if "event=overload state=on" in line)
busy_max = max([int(m) for m in re.findall(r"event=load_summary busy_permille_max=(\d+)", open(f"{run}/server.log").read())] or [-1])
print(f"{M} x {P} players at {R} Hz, {S} s, {W} worker{'s' if W > 1 else ''}, {G} generator{'s' if G > 1 else ''}: carried {lg['completed']}/{lg['players']}; server CPU {100 * cpu_s / wall:.0f}% of a core "
      f"({1e6 * cpu_s / ticks:.0f} us per tick, {1e6 * cpu_s / ticks / max(1, M * P):.1f} per player); lateness p50 "
      f"{p50s[len(p50s) // 2] / 1000 if p50s else 0:.2f} ms, p99 {max(p99s) / 1000 if p99s else 0:.2f} ms (worst match); defaulted "
      f"{dflt}/{got + dflt} ({100 * dflt / max(1, got + dflt):.2f}%); per player down {lg['down_bytes_per_player_s']} B/s, "
      f"up {lg['up_bytes_per_player_s']} B/s (with ENet headers {lg['enet_down_bytes_per_player_s']} and "
      f"{lg['enet_up_bytes_per_player_s']}); refused matches (overloaded) {lg.get('refused_matches', 0)}/{M} "
      f"(overload episodes {overloads}, busiest second {busy_max / 10:.1f}% busy); other BYEs {bye or 0}; timeouts {lg['timeouts']}; load generator CPU "
      f"{100 * lg_cpu / wall:.0f}% of a core; {wall:.1f} s")
print(json.dumps({"matches": M, "players_per_match": P, "rate": R, "seconds": S, "workers": W, "generators": G,
                  "carried": lg["completed"], "players": lg["players"], "server_cpu_percent": round(100 * cpu_s / wall, 1),
                  "server_us_per_player_tick": round(1e6 * cpu_s / ticks / max(1, M * P), 2),
                  "lateness_p99_ms": max(p99s) / 1000 if p99s else 0, "defaulted": dflt, "inputs": got + dflt,
                  "timeouts": lg["timeouts"], "other_byes": bye, "generator_cpu_percent": round(100 * lg_cpu / wall, 1)}),
      file=open(jsonl, "a")) if jsonl else None
PY
done
exit $status
