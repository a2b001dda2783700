#!/usr/bin/env bash
# Bytes per real client (issue 14): one match of P `blendsync bot`s (each simulates every tick and sends
# a CHECKSUM every 30 ticks) against one blendsync-server on loopback, the demo match
# (scripts/demo/match.json: 600 ticks at 30 Hz) with P players. Prints per player per second of match:
# blendsync bytes down and up (the server's bytes_out / bytes_in; the lobby's HELLO and early INPUTs
# are counted too) and the upstream with ENet's headers (the host's udp_in). Bounded: the match ends
# by itself after 20 s. Loopback only.
# usage: scripts/botbytes.sh [--build DIR] P [P ...]     (default: 4 8 16)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
[ "${1:-}" = "--build" ] && { build=$(cd "$2" && pwd); shift 2; }
[ $# -eq 0 ] && set -- 4 8 16
server="$build/blendsync-server"; bin="$build/blendsync"
[ -x "$server" ] && [ -x "$bin" ] || { echo "botbytes: build first (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cp "$root/scripts/demo/humanoid_locomotion.json" "$work/"
cd "$work"
echo "players  down B/s  up B/s  up with ENet's headers B/s"
for p in "$@"; do
    case "$p" in ''|*[!0-9]*) echo "botbytes: P must be 2..16, got \"$p\"" >&2; exit 2 ;; esac
    [ "$p" -ge 2 ] && [ "$p" -le 16 ] || { echo "botbytes: P must be 2..16, got $p" >&2; exit 2; }
    python3 - "$root/scripts/demo/match.json" "$p" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); p = int(sys.argv[2])
m['players'] = [{'token': 't%d' % i} for i in range(p)]
m['characters'] = [{'name': 'p%d' % i, 'graph': 'humanoid_locomotion.json', 'slot': i} for i in range(p)]
m['replay'] = 'm%d.bsreplay' % p
json.dump(m, open('match%d.json' % p, 'w'))
PY
    "$server" --listen 127.0.0.1:0 --match "match$p.json" --exit-when-done --status 0 >"server$p.out" 2>"server$p.log" &
    spid=$!
    port=""
    for _ in $(seq 1 100); do port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "server$p.out"); [ -n "$port" ] && break; sleep 0.05; done
    [ -n "$port" ] || { echo "botbytes: the server did not start" >&2; cat "server$p.log" >&2; exit 1; }
    pids=()
    for s in $(seq 0 $((p - 1))); do
        "$bin" bot --server "127.0.0.1:$port" --config "match$p.json" --slot "$s" --token "t$s" --seed "$s" --quiet >"bot$p.$s.out" 2>&1 &
        pids+=($!)
    done
    failed=0
    for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
    wait "$spid" || true
    [ "$failed" -eq 0 ] || { echo "botbytes: $failed of $p bots failed:" >&2; cat "bot$p".*.out >&2; exit 1; }
    line=$(grep -h "event=status" "server$p.log" | tail -1)
    python3 - "$p" "$line" "$root/scripts/demo/match.json" <<'PY'
import json, sys
p = int(sys.argv[1]); kv = dict(f.split('=', 1) for f in sys.argv[2].split() if '=' in f)
m = json.load(open(sys.argv[3])); secs = m['duration_ticks'] / m.get('tick_rate', 30)
print("%7d  %8.0f  %6.0f  %26.0f" % (p, int(kv['bytes_out']) / p / secs, int(kv['bytes_in']) / p / secs,
                                     int(kv['udp_in']) / p / secs))
PY
done
