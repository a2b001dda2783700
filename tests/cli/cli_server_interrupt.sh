#!/usr/bin/env bash
# blendsync-server ends cleanly on SIGINT and on SIGTERM (io/platform.h's interrupt handlers): exit 0,
# and the waiting match ended through bsync_server_shutdown (match_end reason=shutdown in the log).
# Without the handlers the default action would kill it (exit 130 / 143, no match_end line); a
# handler that never fires leaves it running (a timeout here).
# A SIGPIPE (stdout to a closed pipe) does not kill it either.
# usage: cli_server_interrupt.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
server="$(dirname "$bin")/blendsync-server"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cat >graph.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" } } }
JSON
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

start_server() { # name -> sets spid and port; stdout into name.out (or a pipe with --pipe)
  local name=$1
  cat >"$name.json" <<JSON
{ "match_id": 7, "players": [ {"token": "alpha"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "graph.json", "slot": 0} ],
  "checksum_interval": 15, "replay": "$name.bsreplay", "duration_ticks": 90 }
JSON
  "$server" --listen 127.0.0.1:0 --match "$name.json" --status 0 --log "$name.log" >"$name.out" 2>&1 &
  spid=$!
  port=""
  for _ in $(seq 1 100); do port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$name.out"); [ -n "$port" ] && break; sleep 0.05; done
}
wait_exit() { # pid -> the exit status, or 255 after 10 s (then it is killed)
  local pid=$1
  for _ in $(seq 1 200); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid"; return $?; }
    sleep 0.05
  done
  kill -KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  return 255
}

for sig in INT TERM; do
  start_server "sig$sig"
  if [ -z "$port" ]; then bad "SIG$sig: the server did not start: $(cat "sig$sig.out" "sig$sig.log")"; kill -KILL "$spid" 2>/dev/null; continue; fi
  kill -s "$sig" "$spid"
  wait_exit "$spid"; rc=$?
  [ $rc -eq 0 ] && ok "SIG$sig: blendsync-server exits 0" || bad "SIG$sig: exit $rc (255: still running after 10 s)"
  grep -q 'event=match_end match=7 .*reason=shutdown' "sig$sig.log" && ok "SIG$sig: the match ended with reason=shutdown" ||
    { bad "SIG$sig: no match_end reason=shutdown in the log:"; cat "sig$sig.log"; }
done

# SIGPIPE is ignored: the server's stdout is a pipe whose reader has gone; its "listening on" line
# (written after the handlers are installed) then fails with EPIPE instead of killing it
mkfifo out.fifo
sed 's/"replay": "[^"]*"/"replay": "pipe.bsreplay"/' sigINT.json >pipe.json
exec 3<>out.fifo # held open so the server's open of the FIFO does not block
"$server" --listen 127.0.0.1:0 --match pipe.json --status 0 --log pipe.log >out.fifo 2>&1 &
spid=$!
exec 3>&- # no reader left: the first write gets SIGPIPE / EPIPE
for _ in $(seq 1 100); do grep -q 'event=listen\|event=match' pipe.log 2>/dev/null && break; sleep 0.05; done
sleep 0.3
if kill -0 "$spid" 2>/dev/null; then
  ok "SIGPIPE: the server is still running after writing to a closed pipe"
  kill -s INT "$spid"; wait_exit "$spid"; rc=$?
  [ $rc -eq 0 ] && ok "SIGPIPE case: then SIGINT ends it with exit 0" || bad "SIGPIPE case: SIGINT exit $rc"
else
  wait "$spid"; rc=$?
  bad "SIGPIPE: the server died (exit $rc) writing to a closed pipe"
fi

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
