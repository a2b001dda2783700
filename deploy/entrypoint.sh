#!/bin/sh
# blendsync-entrypoint: runs blendsync-server in a container and, when it crashes (killed by a signal
# or any exit but 0 and 2), starts it again at once in the same container with --recover on the replay
# folder, so its unfinished matches are rebuilt and served on the same address and port while the
# container (and under Agones the GameServer) stays up: Agones marks a GameServer whose game server
# container exits Unhealthy and a Fleet deletes it, so the restart has to happen inside the container.
# Every argument goes to blendsync-server; --recover DIR is added (DIR: $BLENDSYNC_REPLAYS, default
# /var/lib/blendsync/replays). SIGTERM / SIGINT are passed on (the server ends its matches cleanly).
# At most $BLENDSYNC_MAX_RESTARTS restarts (default 5). docs/deploy.md "Recovery".
set -u
replays=${BLENDSYNC_REPLAYS:-/var/lib/blendsync/replays}
max=${BLENDSYNC_MAX_RESTARTS:-5}
server=${BLENDSYNC_SERVER:-blendsync-server}
child=0
stopping=0
forward() {
    stopping=1
    [ "$child" -ne 0 ] && kill -TERM "$child" 2>/dev/null
}
trap forward TERM INT
restarts=0
while :; do
    "$server" --recover "$replays" "$@" &
    child=$!
    rc=0
    wait "$child" || rc=$?
    while kill -0 "$child" 2>/dev/null; do # a trapped signal ended the wait, not the server
        rc=0
        wait "$child" || rc=$?
    done
    child=0
    if [ "$stopping" -eq 1 ] || [ "$rc" -eq 0 ] || [ "$rc" -eq 2 ]; then
        exit "$rc" # stopped, done, or a start-up error (a restart would fail the same way)
    fi
    restarts=$((restarts + 1))
    if [ "$restarts" -gt "$max" ]; then
        echo "level=error event=server_crashed exit=$rc restarts=$restarts action=give_up" >&2
        exit "$rc"
    fi
    echo "level=warn event=server_crashed exit=$rc restarts=$restarts action=recover dir=$replays" >&2
done
