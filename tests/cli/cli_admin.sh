#!/usr/bin/env bash
# blendsync-server's admin API (docs/operations.md), over real sockets: a server started with --admin
# and no --match refuses bad tokens (401), unknown ids (404), wrong methods (405), malformed (400),
# oversized (413) and invalid configs (422, with the JSON path of the fault) and creates nothing; then
# a match is created (201: id, address, four tokens), four `blendsync bot`s join with what the answer
# says and play it to its end, list and show (curl and `blendsync match`) report it, a second match
# is ended with DELETE (END reason shutdown), and the API match's replay is byte for byte the replay of
# the same config started with --match from ASSETS/match-ID.json on another server.
# usage: cli_admin.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
server="$(dirname "$bin")/blendsync-server"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
command -v curl >/dev/null || { echo "skip: no curl"; exit 0; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }
rm -rf "$work" && mkdir -p "$work/assets" "$work/replays" && cd "$work" || exit 1
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
# the four players' joystick paths, by tick (the seeded random path draws once per send, so a send
# that lands one tick later shifts it; a script's input depends on the tick alone)
for s in 0 1 2 3; do printf 'tick,speed\n0,0.%d\n%d,1.4\n%d,3.25\n%d,0.5\n' $s $((20 + s)) $((60 + 3 * s)) $((100 + s)) >path$s.csv; done
cat >assets/loco.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } } }
JSON
# input_delay 10 (333 ms): the bots' inputs arrive long before their deadlines on a busy machine too,
# so both runs default exactly the pacing rule's first ticks and record the same frames
mk() { # id duration replay [start_ms]
cat <<JSON
{ "match_id": $1, "players": [ {"token": "a$1"}, {"token": "b$1"}, {"token": "c$1"}, {"token": "d$1"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0}, {"name": "b", "graph": "loco.json", "slot": 1},
                  {"name": "c", "graph": "loco.json", "slot": 2}, {"name": "d", "graph": "loco.json", "slot": 3},
                  {"name": "npc", "graph": "loco.json", "npc_seed": 9} ],
  "input_delay": 10, "checksum_interval": 15, "replay": "$3", "duration_ticks": $2,
  "timeouts": {"start_ms": ${4:-20000}, "idle_ms": 20000} }
JSON
}
mk 41 150 m41.bsreplay >assets/m41.json
mk 42 100000 m42.bsreplay 3000 >assets/m42.json  # starts 3 s after its creation with whoever is in
# (3 s: a bot of the sanitizer build takes over 0.5 s to load its graphs and connect)
echo "s3cret-admin-token-0123456789" >token
echo "wrong-token" >wrong

"$server" --listen 127.0.0.1:0 --admin 127.0.0.1:0 --admin-token-file token --assets assets --replay-dir replays \
    --status 0 >server.out 2>server.log &
spid=$!
for _ in $(seq 1 400); do grep -q "^admin on" server.out && break; sleep 0.05; done
if grep -q "no admin API" server.log; then echo "skip: blendsync-server was built without libmicrohttpd"; exit 0; fi
ap=$(sed -n 's/^admin on 127.0.0.1:\([0-9]*\)$/\1/p' server.out)
[ -n "$ap" ] || { echo "FAIL: no admin line"; cat server.out server.log; kill $spid; exit 1; }
ok "the server starts with --admin and no --match (admin port $ap)"
api="http://127.0.0.1:$ap"
H="Authorization: Bearer $(cat token)"
code() { curl -s -o body.json -w '%{http_code}' "$@"; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }

# ---- refusals: nothing created, the server unaffected
[ "$(code "$api/v1/matches")" = 401 ] && ok "no token: 401" || bad "no token: $(cat body.json)"
[ "$(code -H "Authorization: Bearer $(cat wrong)" "$api/v1/matches")" = 401 ] && ok "wrong token: 401" || bad "wrong token"
[ "$(code -H "Authorization: Bearer $(cat wrong)" "$api/metrics")" = 401 ] && ok "/metrics needs the token: 401" || bad "metrics token"
[ "$(code -H "$H" "$api/v1/matches/999")" = 404 ] && ok "unknown id: 404" || bad "unknown id: $(cat body.json)"
[ "$(code -H "$H" -X DELETE "$api/v1/matches/999")" = 404 ] && ok "DELETE of an unknown id: 404" || bad "delete unknown"
[ "$(code -H "$H" "$api/v2/nothing")" = 404 ] && ok "unknown path: 404" || bad "unknown path"
[ "$(code -H "$H" -X PUT "$api/v1/matches")" = 405 ] && grep -q method_not_allowed body.json && ok "PUT /v1/matches: 405" || bad "405"
[ "$(code -H "$H" -X POST --data-binary '{"match_id": 1,' "$api/v1/matches")" = 400 ] && grep -q malformed_json body.json \
    && ok "malformed JSON: 400" || bad "malformed: $(cat body.json)"
head -c 1100000 /dev/zero | tr '\0' ' ' >big.json
[ "$(code -H "$H" -X POST --data-binary @big.json "$api/v1/matches")" = 413 ] && ok "a 1.1 MB body: 413" || bad "413: $(cat body.json)"
sed 's/"slot": 1}/"slott": 1}/' assets/m41.json >typo.json
[ "$(code -H "$H" -X POST --data-binary @typo.json "$api/v1/matches")" = 422 ] && \
    [ "$(field body.json 'd["path"]')" = "/characters/1/slott" ] && ok "unknown field: 422 at /characters/1/slott ($(field body.json 'd["message"]'))" \
    || bad "typo: $(cat body.json)"
sed 's/"graph": "loco.json", "slot": 2/"graph": "..\/loco.json", "slot": 2/' assets/m41.json >escape.json
[ "$(code -H "$H" -X POST --data-binary @escape.json "$api/v1/matches")" = 422 ] && \
    [ "$(field body.json 'd["path"]')" = "/characters/2/graph" ] && ok "a graph outside the assets folder: 422 at /characters/2/graph" \
    || bad "escape: $(cat body.json)"
sed 's/"graph": "loco.json", "slot": 3/"graph": "missing.json", "slot": 3/' assets/m41.json >missing.json
[ "$(code -H "$H" -X POST --data-binary @missing.json "$api/v1/matches")" = 422 ] && \
    [ "$(field body.json 'd["path"]')" = "/characters/3/graph" ] && ok "a missing graph: 422 at /characters/3/graph" \
    || bad "missing: $(cat body.json)"
sed 's/"replay": "m41.bsreplay"/"replay": "\/tmp\/x.bsreplay"/' assets/m41.json >abs.json
[ "$(code -H "$H" -X POST --data-binary @abs.json "$api/v1/matches")" = 422 ] && [ "$(field body.json 'd["path"]')" = "/replay" ] \
    && ok "an absolute replay path: 422 at /replay" || bad "abs replay: $(cat body.json)"
[ "$(code -H "$H" "$api/v1/matches")" = 200 ] && [ "$(field body.json 'len(d["matches"])')" = 0 ] \
    && ok "after every refusal: no match exists" || bad "list after refusals: $(cat body.json)"
[ "$(code "$api/healthz")" = 200 ] && [ "$(code "$api/readyz")" = 200 ] && ok "healthz and readyz: 200 without a token" || bad "probes"

# ---- create and play
[ "$(code -H "$H" -X POST --data-binary @assets/m41.json "$api/v1/matches")" = 201 ] && ok "create: 201" || bad "create: $(cat body.json)"
cp body.json created.json
addr=$(field created.json 'd["address"]')
ntok=$(field created.json 'len(d["players"])')
[ "$(field created.json 'd["match_id"]')" = 41 ] && [ "$ntok" = 4 ] && [ -n "$addr" ] \
    && ok "the answer: match 41, address $addr, 4 tokens" || bad "create answer: $(cat created.json)"
[ "$(code -H "$H" -X POST --data-binary @assets/m41.json "$api/v1/matches")" = 409 ] && ok "the same id again: 409" || bad "409: $(cat body.json)"
pids=()
for s in 0 1 2 3; do
    tok=$(field created.json "d['players'][$s]['token']")
    "$bin" bot --server "$addr" --config assets/m41.json --slot $s --token "$tok" --script path$s.csv --quiet >bot$s.out 2>&1 & pids+=($!)
done
running=0
for _ in $(seq 1 300); do
    code -H "$H" "$api/v1/matches/41" >/dev/null
    [ "$(field body.json 'd["state"]')" = running ] && { running=1; break; }; sleep 0.1
done
[ $running = 1 ] && ok "show: running, $(field body.json 'd["players_connected"]') players connected" || bad "never running: $(cat body.json)"
rcs=0
for p in "${pids[@]}"; do wait "$p" || rcs=$((rcs + 1)); done
[ $rcs -eq 0 ] && grep -q "150 frames applied" bot0.out && ok "four bots played the API match to its end (150 frames)" \
    || { bad "$rcs bots failed"; cat bot*.out; }
for _ in $(seq 1 100); do code -H "$H" "$api/v1/matches/41" >/dev/null; [ "$(field body.json 'd["state"]')" = ended ] && break; sleep 0.1; done
[ "$(field body.json 'd["state"]')" = ended ] && [ "$(field body.json 'd["ticks"]')" = 150 ] && \
    [ "$(field body.json 'd["end_reason"]')" = normal ] && [ "$(field body.json 'd["desyncs"]')" = 0 ] && \
    [ "$(field body.json 'd["checksums_compared"]')" -gt 0 ] \
    && ok "show: ended, 150 ticks, reason normal, $(field body.json 'd["checksums_compared"]') checksums compared, no desync" \
    || bad "show after: $(cat body.json)"
if "$bin" match --help >/dev/null 2>&1; then
    "$bin" match list --admin "$api" --token-file token >list.txt; r=$?
    [ $r -eq 0 ] && grep -Eq '^41 +ended +0/4 +150 ' list.txt && ok "blendsync match list: 41 ended 0/4 150" || { bad "match list ($r)"; cat list.txt; }
    "$bin" match show 41 --admin "$api" --token-file token >show.json; r=$?
    [ $r -eq 0 ] && [ "$(field show.json 'd["state"]')" = ended ] && ok "blendsync match show 41" || bad "match show ($r)"
    "$bin" match show 77 --admin "$api" --token-file token >/dev/null 2>show77.err; r=$?
    [ $r -eq 1 ] && grep -q "HTTP 404" show77.err && ok "blendsync match show 77: exit 1, HTTP 404" || bad "show 77: $r $(cat show77.err)"
    "$bin" match create typo.json --admin "$api" --token-file token >/dev/null 2>typo.err; r=$?
    [ $r -eq 1 ] && grep -q "HTTP 422 invalid_config at /characters/1/slott" typo.err && ok "blendsync match create (bad config): exit 1, path" \
        || bad "create typo: $r $(cat typo.err)"
    # ---- a second match, created by the command, ended with DELETE (by the command)
    "$bin" match create assets/m42.json --admin "$api" --token-file token >c42.json; r=$?
    [ $r -eq 0 ] && [ "$(field c42.json 'd["match_id"]')" = 42 ] && ok "blendsync match create assets/m42.json" || bad "create 42 ($r)"
    "$bin" bot --server "$addr" --config assets/m42.json --slot 0 --token a42 --seed 1 --quiet >bot42.out 2>&1 & b42=$!
    for _ in $(seq 1 300); do code -H "$H" "$api/v1/matches/42" >/dev/null; [ "$(field body.json 'd["state"]')" = running ] && break; sleep 0.05; done
    sleep 0.5
    "$bin" match end 42 --admin "$api" --token-file token >e42.json; r=$?
    [ $r -eq 0 ] && ok "blendsync match end 42 (state $(field e42.json 'd["state"]'))" || bad "end 42 ($r)"
else
    echo "note: this blendsync has no match command (no libcurl): curl alone"
    "$server" --help >/dev/null
    curl -s -H "$H" -X POST --data-binary @assets/m42.json "$api/v1/matches" >c42.json
    "$bin" bot --server "$addr" --config assets/m42.json --slot 0 --token a42 --seed 1 --quiet >bot42.out 2>&1 & b42=$!
    for _ in $(seq 1 300); do code -H "$H" "$api/v1/matches/42" >/dev/null; [ "$(field body.json 'd["state"]')" = running ] && break; sleep 0.05; done
    sleep 0.5
    [ "$(code -H "$H" -X DELETE "$api/v1/matches/42")" = 202 ] && ok "DELETE 42: 202" || bad "delete 42: $(cat body.json)"
fi
wait $b42
for _ in $(seq 1 100); do code -H "$H" "$api/v1/matches/42" >/dev/null; [ "$(field body.json 'd["state"]')" = ended ] && break; sleep 0.1; done
t42=$(field body.json 'd["ticks"]')
[ "$(field body.json 'd["state"]')" = ended ] && [ "$(field body.json 'd["end_reason"]')" = shutdown ] && [ "$t42" -gt 0 ] \
    && ok "match 42 ended mid-play by DELETE, reason shutdown, at tick $t42" || bad "42: $(cat body.json)"
grep -q "event=match_end match=42 ticks=$t42 reason=shutdown" server.log && grep -q "$t42 frames applied" bot42.out \
    && ok "the bot of match 42 applied all $t42 frames up to END" || { bad "bot 42"; cat bot42.out; grep "match=42" server.log | tail -3; }
[ "$(code -H "$H" -X DELETE "$api/v1/matches/42")" = 200 ] && ok "DELETE of an ended match: 200 (nothing to do)" || bad "delete again"
kill -INT $spid; wait $spid; rs=$?
[ $rs -eq 0 ] && ok "the server exits 0 on SIGINT" || bad "server exit $rs"
"$bin" replay verify replays/m41.bsreplay >verify.out 2>&1 && grep -q "ticks verified: 150" verify.out \
    && ok "the API match's replay verifies (150 ticks)" || { bad "verify"; cat verify.out; }

# ---- the same config from a file: ASSETS/match-41.json, another server, the same bots
cp assets/m41.json assets/match-41.json
"$server" --listen 127.0.0.1:0 --match assets/match-41.json --exit-when-done --status 0 >file.out 2>file.log &
fpid=$!
for _ in $(seq 1 400); do grep -q "^listening on" file.out && break; sleep 0.05; done
fport=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' file.out)
pids=()
for s in 0 1 2 3; do
    tok=$(field created.json "d['players'][$s]['token']")
    "$bin" bot --server "127.0.0.1:$fport" --config assets/m41.json --slot $s --token "$tok" --script path$s.csv --quiet >fbot$s.out 2>&1 & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
wait $fpid
h1=$(grep -o 'hash=[0-9a-f]*' server.log | head -1); h2=$(grep -o 'hash=[0-9a-f]*' file.log | head -1)
[ -n "$h1" ] && [ "$h1" = "$h2" ] && ok "the same match hash ($h1)" || bad "hashes $h1 / $h2"
defaults() { for s in 0 1 2 3; do grep -o '[0-9]* inputs defaulted' "$1$s.out"; done | tr '\n' ' '; }
if cmp -s replays/m41.bsreplay assets/m41.bsreplay; then
    ok "the API match's replay equals the file-started match's, byte for byte ($(wc -c <assets/m41.bsreplay) bytes)"
elif [ "$(defaults bot)" != "$(defaults fbot)" ]; then
    # an input later than its 333 ms deadline (a starved machine) is defaulted: the frames differ by timing
    echo "note: the replays differ because the two runs defaulted different inputs ($(defaults bot)/ $(defaults fbot)): not comparable"
else
    bad "the replays differ with the same inputs: $(cmp replays/m41.bsreplay assets/m41.bsreplay)"
fi
grep -q "event=match_added match=41" server.log && ok "log: event=match_added" || bad "no match_added line"

# ---- start-up refusals (exit 2 with a message, nothing served)
"$server" --listen 127.0.0.1:0 --admin 0.0.0.0:0 --admin-token-file token --assets assets >/dev/null 2>pub.err; r=$?
[ $r -eq 2 ] && grep -q -- "--admin-public" pub.err && ok "--admin 0.0.0.0 without --admin-public: exit 2" || bad "public: $r $(cat pub.err)"
"$server" --listen 127.0.0.1:0 --admin 127.0.0.1:0 --assets assets >/dev/null 2>notok.err; r=$?
[ $r -eq 2 ] && grep -q -- "--admin-token-file" notok.err && ok "--admin without a token file: exit 2" || bad "no token: $r $(cat notok.err)"
: >empty.token
"$server" --listen 127.0.0.1:0 --admin 127.0.0.1:0 --admin-token-file empty.token --assets assets >/dev/null 2>empty.err; r=$?
[ $r -eq 2 ] && grep -q "no token" empty.err && ok "an empty token file: exit 2" || bad "empty token: $r $(cat empty.err)"
"$server" --listen 127.0.0.1:0 >/dev/null 2>none.err; r=$?
[ $r -eq 2 ] && grep -q "or --admin" none.err && ok "neither --match nor --admin: exit 2" || bad "none: $r"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
