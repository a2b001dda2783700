#!/usr/bin/env bash
# deploy/ (docs/deploy.md) without docker or kubernetes, which cannot run here: the Agones manifests
# parse (python3-yaml when present, else a YAML-subset parser that must agree with it) and name what the server really uses (the port it listens on, UDP, Health pings
# inside the health period, options blendsync-server accepts, the replay volume the entrypoint
# recovers from, the image's user); the FleetAutoscaler scales that Fleet; the Dockerfile is Debian 12,
# exposes that port, runs unprivileged, and installs the Debian package of every shared library the
# built server needs; the image's match file loads; and the image's entrypoint restarts a SIGKILLed
# server in place with --recover while a bot plays on and finishes every frame. About 15 s.
# usage: cli_deploy.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$1; work=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
server="$(dirname "$bin")/blendsync-server"
[ -x "$server" ] || { echo "skip: no blendsync-server next to $bin"; exit 0; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }
rm -rf "$work"; install -d "$work" && cd "$work" || exit 1
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT

"$server" --help >help.txt
# the server's NEEDED libraries -> their Debian packages (dpkg -S), for the Dockerfile check
: >needed-packages.txt
for lib in $(readelf -d "$server" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p'); do
  case "$lib" in libc.so.*|libm.so.*|libasan.so.*|libubsan.so.*) continue ;; esac # (the sanitizers: not in the image's Release build)
  path=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64|x86_64|64/ {print $NF; exit}')
  [ -n "$path" ] && dpkg -S "$(readlink -f "$path")" 2>/dev/null | head -1 | cut -d: -f1 >>needed-packages.txt
done
python3 - "$src/deploy" help.txt needed-packages.txt <<'PY' >manifests.out 2>&1
import re, shlex, sys

def mini_yaml(text):
    """The subset of YAML deploy/agones/*.yaml use: block maps and sequences by indentation, '- ' items
    (scalars or maps), plain, quoted and {} scalars, comments. Not a YAML parser: a cross-check."""
    lines = []
    for raw in text.splitlines():
        s = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if s.strip():
            lines.append((len(s) - len(s.lstrip(" ")), s.strip()))
    def scalar(v):
        if v == "{}": return {}
        if v == "[]": return []
        if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'": return v[1:-1]
        if v in ("true", "false"): return v == "true"
        if re.fullmatch(r"-?\d+", v): return int(v)
        return v
    def block(i, indent):
        if lines[i][1].startswith("- "):
            out = []
            while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
                item = lines[i][1][2:]
                if re.match(r"^[\w.-]+:( |$)", item):  # a map item: its first key on the dash line
                    lines[i] = (indent + 2, item)
                    v, i = block(i, indent + 2)
                else:
                    v, i = scalar(item), i + 1
                out.append(v)
            return out, i
        out = {}
        while i < len(lines) and lines[i][0] == indent and not lines[i][1].startswith("- "):
            key, _, rest = lines[i][1].partition(":")
            rest = rest.strip()
            if rest:
                out[key], i = scalar(rest), i + 1
            else:
                i += 1
                out[key], i = block(i, lines[i][0]) if i < len(lines) and lines[i][0] > indent or (i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- ")) else (None, i)
        return out, i
    v, i = block(0, lines[0][0])
    assert i == len(lines), "unparsed from line %d: %r" % (i, lines[i])
    return v

deploy, help_text, needed = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read().split()
texts = {f: open(deploy + "/agones/" + f).read() for f in ("fleet.yaml", "fleetautoscaler.yaml")}
out = []
def check(cond, what):
    out.append(("ok   " if cond else "FAIL ") + what)
try:
    import yaml  # python3-yaml: the real parser; the subset parser must read the same documents
    docs = {f: yaml.safe_load(t) for f, t in texts.items()}
    check(all(mini_yaml(t) == docs[f] for f, t in texts.items()), "the manifests are valid YAML (python3-yaml), read the same by the subset parser")
except ImportError:
    docs = {f: mini_yaml(t) for f, t in texts.items()}
    out.append("ok   the manifests parse (no python3-yaml here: the test's YAML-subset parser)")
fleet, fas = docs["fleet.yaml"], docs["fleetautoscaler.yaml"]
docker = open(deploy + "/Dockerfile").read()
assert fleet["apiVersion"] == "agones.dev/v1" and fleet["kind"] == "Fleet"
gs = fleet["spec"]["template"]["spec"]
pod = gs["template"]["spec"]
c = pod["containers"][0]
args = [str(a) for a in c["args"]]
listen = args[args.index("--listen") + 1]
port = int(listen.rsplit(":", 1)[1])
p = gs["ports"][0]
check(p["containerPort"] == port and p["protocol"] == "UDP", "fleet: containerPort %d/UDP is the --listen port (ENet is UDP)" % port)
unknown = [a for a in args if a.startswith("--") and not re.search(r"^\s+%s\b" % re.escape(a), help_text, re.M)]
check(not unknown, "fleet: every option of the container's args is one blendsync-server --help lists %s" % (unknown or ""))
aport = int(args[args.index("--admin") + 1].rsplit(":", 1)[1]) if "--admin" in args else -1
check([q for q in gs["ports"] if q["containerPort"] == aport and q["protocol"] == "TCP"] and "--admin-token-file" in args,
      "fleet: the admin API's port %d/TCP is a GameServer port, with a bearer token file" % aport)
check(re.search(r"^EXPOSE\s+%d/tcp" % aport, docker, re.M), "Dockerfile: EXPOSE %d/tcp (the admin API)" % aport)
tok = args[args.index("--admin-token-file") + 1] if "--admin-token-file" in args else ""
check(any(tok.startswith(m["mountPath"] + "/") and any(v["name"] == m["name"] and "secret" in v for v in pod["volumes"])
          for m in c["volumeMounts"]), "fleet: the token file %s is on a Secret volume" % tok)
check("--agones" in args and "--exit-when-done" in args, "fleet: --agones (lifecycle) and --exit-when-done (Shutdown when the match is done)")
ping = float(args[args.index("--agones-health") + 1])
h = gs["health"]
check(not h.get("disabled") and ping < h["periodSeconds"] and h["failureThreshold"] >= 1,
      "fleet: Health pings every %gs, inside the %ds health period (x%d)" % (ping, h["periodSeconds"], h["failureThreshold"]))
env = {e["name"]: e["value"] for e in c.get("env", [])}
mount = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
vol = re.search(r"^VOLUME\s+(\S+)", docker, re.M).group(1)
check(env.get("BLENDSYNC_REPLAYS") == mount.get("replays") == vol, "fleet: the replay volume %s is the image's VOLUME and the entrypoint's --recover folder" % vol)
uid = int(re.search(r"useradd .*--uid (\d+)", docker).group(1))
sc = pod["securityContext"]
check(sc["runAsNonRoot"] and sc["runAsUser"] == uid and sc["fsGroup"] == uid, "fleet: runs as the image's user %d, the volume writable by it" % uid)
match = args[args.index("--match") + 1]
check(re.search(r"^COPY .*deploy/%s .*/srv/blendsync/" % re.escape(match.rsplit("/", 1)[1]), docker, re.M) and match.startswith("/srv/blendsync/"),
      "fleet: --match %s is a file the image holds" % match)
r = c["resources"]
check(r["requests"]["cpu"] and r["limits"]["memory"], "fleet: cpu and memory requests and limits are set")
check(fas["apiVersion"] == "autoscaling.agones.dev/v1" and fas["kind"] == "FleetAutoscaler" and fas["spec"]["fleetName"] == fleet["metadata"]["name"],
      "fleetautoscaler: scales the Fleet %s" % fleet["metadata"]["name"])
b = fas["spec"]["policy"]["buffer"]
check(fas["spec"]["policy"]["type"] == "Buffer" and 0 < b["bufferSize"] <= b["minReplicas"] <= b["maxReplicas"],
      "fleetautoscaler: buffer %d within %d..%d replicas" % (b["bufferSize"], b["minReplicas"], b["maxReplicas"]))
stages = re.findall(r"^FROM\s+(\S+)", docker, re.M)
check(all(s.startswith("debian:bookworm") for s in stages), "Dockerfile: every stage is Debian 12 bookworm %s" % stages)
check(re.search(r"^EXPOSE\s+%d/udp" % port, docker, re.M), "Dockerfile: EXPOSE %d/udp" % port)
user = re.search(r"^USER\s+(\S+)", docker, re.M).group(1)
check(user.split(":")[0] not in ("0", "root"), "Dockerfile: runs as user %s, not root" % user)
check("install-deps.sh --demo" in docker and "libcurl4-openssl-dev" in docker, "Dockerfile: builds with install-deps.sh --demo plus libcurl")
run_pkgs = set(re.findall(r"[a-z0-9][a-z0-9.+-]+", " ".join(re.findall(r"apt-get install[^\n]*", docker.split("FROM debian:bookworm-slim")[1]))))
missing = [n for n in needed if n not in run_pkgs]
check(needed and not missing, "Dockerfile: the run stage installs the package of every library the server links (%s)%s" % (", ".join(needed), " missing %s" % missing if missing else ""))
cmd = shlex.split(" ".join(re.search(r"^CMD\s+\[(.*)\]", docker, re.M).group(1).replace('"', " ").split(",")))
check(not [a for a in cmd if a.startswith("--") and a not in help_text], "Dockerfile: CMD's options are the server's")
print("\n".join(out))
PY
while IFS= read -r line; do case "$line" in ok*) ok "${line#ok   }" ;; FAIL*) bad "${line#FAIL }" ;; *) echo "$line" ;; esac; done <manifests.out
grep -q "^FAIL\|Traceback\|Error" manifests.out && bad "the manifest checks: $(grep -v '^ok' manifests.out | head -5)"
[ "$(grep -c '^ok' manifests.out)" -ge 17 ] || bad "the manifest checks did not all run: $(tail -3 manifests.out)"

# the image's match file and graph, where the image puts them: the server loads them
install -d srv && cp "$src/deploy/match.json" "$src/scripts/demo/humanoid_locomotion.json" srv/
"$server" --listen 127.0.0.1:0 --match srv/match.json --status 0 >load.out 2>load.log &
lp=$!; pids+=($lp)
for _ in $(seq 1 100); do grep -q "^listening on" load.out && break; sleep 0.05; done
kill $lp; wait $lp 2>/dev/null
grep -q "event=match_loaded match=1 .*replay=/var/lib/blendsync/replays/match-1.bsreplay" load.log \
  && ok "the image's match file loads, its replay on the volume" || { bad "deploy/match.json"; cat load.out load.log | head; }

# the entrypoint: SIGKILL the server mid-match; it is started again with --recover, the bot resumes
cat >loco.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" } } }
JSON
install -d replays
cat >m.json <<JSON
{ "match_id": 3, "players": [ {"token": "alpha"} ], "input": { "parameters": [ {"name": "speed", "min": 0, "max": 1.4} ] },
  "characters": [ {"name": "a", "graph": "loco.json", "slot": 0} ],
  "checksum_interval": 15, "replay": "$work/replays/m3.bsreplay", "duration_ticks": 180, "input_delay": 3 }
JSON
port=$(python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
BLENDSYNC_SERVER="$server" BLENDSYNC_REPLAYS="$work/replays" "$src/deploy/entrypoint.sh" \
  --listen 127.0.0.1:$port --match m.json --exit-when-done --status 0.1 >entry.out 2>entry.log &
epid=$!; pids+=($epid)
timeout 40 "$bin" bot --server 127.0.0.1:$port --config m.json --slot 0 --token alpha --quiet --reconnect-seconds 20 \
  --replay bot.bsreplay >bot.out 2>&1 &
bpid=$!; pids+=($bpid)
for _ in $(seq 1 400); do t=$(sed -n 's/.*event=status match=3 tick=\([0-9]*\).*/\1/p' entry.log | tail -1); [ "${t:-0}" -ge 60 ] && break; sleep 0.02; done
child=$(pgrep -P $epid -f blendsync-server | head -1)
[ -n "$child" ] && kill -9 "$child"
wait $bpid; brc=$?
wait $epid; erc=$?
grep -q "event=server_crashed exit=137 restarts=1 action=recover" entry.log && ok "the entrypoint saw the SIGKILL and restarted the server with --recover" \
  || { bad "no restart line"; tail -5 entry.log; }
grep -q "event=recovered match=3" entry.log && ok "the restarted server rebuilt the match" || bad "no event=recovered"
[ $brc -eq 0 ] && grep -q "180 frames applied, .* 0 desyncs" bot.out && ok "the bot resumed and finished all 180 frames, no desync" \
  || { bad "bot exit $brc"; cat bot.out; }
[ $erc -eq 0 ] && ok "the entrypoint exits 0 once the match is done" || bad "entrypoint exit $erc"
"$bin" replay verify replays/m3.bsreplay 2>&1 | grep -q "ticks verified: 180" && ok "the server's replay verifies from tick 0 to 180" \
  || bad "server replay verify: $("$bin" replay verify replays/m3.bsreplay 2>&1 | tail -3)"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
