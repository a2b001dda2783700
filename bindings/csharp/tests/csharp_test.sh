#!/usr/bin/env bash
# The C# binding's ctests (bindings/csharp/CMakeLists.txt), one mode each:
#   layout  the binding's struct sizes / offsets == the C compiler's (abi_layout.c)
#   unit    Blendsync.Tests.exe (every wrapped call, errors, lifetime, Fix16 vs the C functions)
#   eval    mono Eval.exe CONFIG --script CSV --hash prints the line `blendsync eval ... --hash` prints,
#           and without --hash the same JSON Lines bytes: demo graph, switches/layers/root motion,
#           and real glTF characters when ../shared/data is present
#   bot     blendsync-server + two C bots + one C# bot: all complete, zero desyncs; then a planted
#           desync in the C# bot is reported for its slot, by it and in the server's log
#   readme  the README's usage example is samples/Example.cs verbatim; it runs and its checksums are
#           the C tool's for the same ticks; the Unity package files are well-formed
# usage: csharp_test.sh MODE SOURCE_DIR CS_BIN_DIR WORK_DIR MONO BLENDSYNC ABI_LAYOUT
set -uo pipefail
mode=$1; src=$2; bin=$3; work=$4; mono=$5; tool=$6; layout=$7
server="$(dirname "$tool")/blendsync-server"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pass=0; fail=0
check() { if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }
finish() { echo "$pass passed, $fail failed"; [ "$fail" -eq 0 ]; exit; }

case $mode in
layout)
  "$layout" >c.txt && "$mono" "$bin/Blendsync.Tests.exe" --layout >cs.txt
  diff c.txt cs.txt; rc=$?
  check "the binding's layout of $(grep -c '^size' c.txt) structs ($(grep -c '^offset' c.txt) fields) is the C compiler's" $rc
  finish ;;
unit)
  "$mono" "$bin/Blendsync.Tests.exe" unit "$src" "$work"; exit ;;
eval)
  # same_hash NAME CONFIG SCRIPT [--ticks N]
  same_hash() {
    local name=$1; shift
    c=$("$tool" eval "$@" --hash 2>c.err); rc=$?
    cs=$("$mono" "$bin/Eval.exe" "$@" --hash 2>cs.err); rcs=$?
    [ $rc -eq 0 ] && [ $rcs -eq 0 ] && [ -n "$c" ] && [ "$c" = "$cs" ]
    check "$name: Eval.exe prints blendsync eval's hash ($c / $cs)" $?
    [ $rcs -eq 0 ] || cat cs.err
    "$tool" eval "$@" >c.jsonl 2>/dev/null; rc=$?
    "$mono" "$bin/Eval.exe" "$@" >cs.jsonl 2>cs.err; rcs=$?
    [ $rc -eq 0 ] && [ $rcs -eq 0 ] && [ -s c.jsonl ] && cmp -s c.jsonl cs.jsonl
    check "$name: and its JSON Lines frames byte for byte ($(wc -l <c.jsonl) lines, $(wc -c <c.jsonl) bytes)" $?
    "$tool" eval "$@" 2>c.err >/dev/null
    cmp -s c.err cs.err; check "$name: and the same notes on stderr ($(grep -c '^note: ' c.err) lines)" $?
    [ $rcs -eq 0 ] || cat cs.err
    cmp c.jsonl cs.jsonl >/dev/null || diff <(head -c 3000 c.jsonl) <(head -c 3000 cs.jsonl) | head -6
  }
  same_hash "demo graph, locomotion path" "$src/scripts/demo/humanoid_locomotion.json" --script "$src/scripts/demo/locomotion_path.csv"
  printf 'tick,speed,move_x,move_y\n0,0,0,0\n10,1.4,0.3,0.9\n50,3.5,,\n90,0.2,-0.7,-0.4\n' >demo.csv
  same_hash "demo graph, own script, --ticks 150" "$src/scripts/demo/humanoid_locomotion.json" --script demo.csv --ticks 150
  # switches (play: cells, fades, carry, inertialize) and a layer, on the built-in humanoid
  cat >switch.json <<'JSON'
{ "tick_rate": 30, "root_motion": "extract",
  "parameters": { "speed": { "default": 0, "smooth_time": 0.2 }, "upper": { "default": 0.5 } },
  "root": "base",
  "nodes": {
    "base": { "type": "Switch", "initial": "loco", "children": [ { "motion": "loco" }, { "motion": "run" } ] },
    "loco": { "type": "Simple1D", "parameter": "speed", "children": [
      { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 } ] },
    "arms": { "type": "Simple1D", "parameter": "upper", "children": [
      { "motion": "idle", "threshold": 0 }, { "motion": "run", "threshold": 1 } ] } },
  "layers": [ { "node": "arms", "weight_parameter": "upper", "mask": { "joints": ["spine_01"] } } ],
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } } }
JSON
  printf 'tick,speed,play:base,upper\n0,1,,0.2\n20,,run fade=8,\n45,1.4,loco fade=5 carry,0.9\n70,,run fade=6 inertialize,\n' >switch.csv
  same_hash "switches (fade, carry, inertialize), a masked layer, root motion" switch.json --script switch.csv --ticks 100
  # actions (events of every policy, ranges, exits) and float curves (docs/actions.md)
  printf 'tick,speed,play:act\n0,0.5,\n3,0.9,punch\n50,0.2,punch\n' >actions.csv
  same_hash "actions and curves (events, ranges, exits, float curves)" "$src/tests/fuzz/seeds/actions-switch.json" --script actions.csv --ticks 90
  data=${BSYNC_SHARED_DIR:-$src/../shared}/data
  if [ -f "$data/ozz-animation-pab/pab_skeleton.ozz" ] || [ -d "$data/ozz-animation-pab" ]; then
    for ex in pab_locomotion:pab_speed_ramp kaykit_strafe:kaykit_joystick; do
      cfg=${ex%%:*}; csv=${ex##*:}
      sed "s#../../../shared/data#$data#g" "$src/scripts/examples/$cfg.json" >"$cfg.json"
      same_hash "real glTF character ($cfg.json)" "$cfg.json" --script "$src/scripts/examples/$csv.csv"
    done
  else
    echo "skip real glTF characters (no $data)"
  fi
  # errors: the library's message reaches the C# side unchanged
  printf '{ "parameters": {}, "root": "n", "nodes": {}, "tik_rate": 30 }\n' >bad.json
  printf 'tick\n0\n' >empty.csv
  c=$("$tool" eval bad.json --script empty.csv --hash 2>&1 >/dev/null | sed 's/^blendsync eval: //')
  cs=$("$mono" "$bin/Eval.exe" bad.json --script empty.csv --hash 2>&1 >/dev/null | sed 's/^Eval.exe: //')
  [ -n "$c" ] && [ "$c" = "$cs" ]; check "a bad config: Eval.exe reports the C library's own message ($cs)" $?
  printf 'tick,sped\n0,1\n' >typo.csv
  "$mono" "$bin/Eval.exe" "$src/scripts/demo/humanoid_locomotion.json" --script typo.csv --hash 2>err.txt; rc=$?
  [ $rc -eq 2 ] && grep -q 'typo.csv:1:6: unknown parameter "sped"' err.txt; check "a script typo: exit 2 at typo.csv:1:6" $?
  finish ;;
bot)
  [ -x "$server" ] || { echo "skip: no blendsync-server next to $tool"; exit 0; }
  cat >humanoid_locomotion.json <<'JSON'
{ "tick_rate": 30, "parameters": { "speed": { "default": 0, "smooth_time": 0.25, "max_speed": 10 } },
  "root": "locomotion",
  "nodes": { "locomotion": { "type": "Simple1D", "parameter": "speed", "children": [
    { "motion": "idle", "threshold": 0 }, { "motion": "walk", "threshold": 1.4 }, { "motion": "run", "threshold": 3.5 } ] } },
  "clips": { "idle": { "source": "builtin:humanoid" }, "walk": { "source": "builtin:humanoid" },
             "run": { "source": "builtin:humanoid" } } }
JSON
  cat >match.json <<'JSON'
{ "match_id": 16, "players": [ {"token": "c-bot"}, {"token": "cs-bot"}, {"token": "c-bot-2"} ],
  "input": { "parameters": [ {"name": "speed", "min": 0, "max": 3.5} ] },
  "characters": [ {"name": "c", "graph": "humanoid_locomotion.json", "slot": 0},
                  {"name": "cs", "graph": "humanoid_locomotion.json", "slot": 1},
                  {"name": "c2", "graph": "humanoid_locomotion.json", "slot": 2},
                  {"name": "npc", "graph": "humanoid_locomotion.json", "npc_seed": 5} ],
  "checksum_interval": 15, "replay": "match.bsreplay", "duration_ticks": 120 }
JSON
  # run_match TAG [C# bot options...]: server, C bots in slots 0 and 2, the C# bot in slot 1; sets rc_c, rc_c2, rc_cs
  run_match() {
    local tag=$1; shift
    "$server" --listen 127.0.0.1:0 --match match.json --exit-when-done --status 0 >server-$tag.out 2>server-$tag.log &
    local spid=$! port=""
    for _ in $(seq 1 200); do port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' server-$tag.out); [ -n "$port" ] && break; sleep 0.05; done
    [ -n "$port" ] || { echo "FAIL: server did not start"; cat server-$tag.log; kill $spid; exit 1; }
    "$tool" bot --server 127.0.0.1:$port --config match.json --slot 0 --token c-bot --timeout 60 >c-$tag.out 2>&1 &
    local b0=$!
    "$tool" bot --server 127.0.0.1:$port --config match.json --slot 2 --token c-bot-2 --timeout 60 >c2-$tag.out 2>&1 &
    local b2=$!
    "$mono" "$bin/${cs_exe:-Bot.exe}" --server 127.0.0.1:$port --config match.json --slot 1 --token cs-bot --timeout 60 "$@" >cs-$tag.out 2>&1 &
    local b1=$!
    wait $b0; rc_c=$?; wait $b2; rc_c2=$?; wait $b1; rc_cs=$?; wait $spid
  }
  printf 'tick,speed\n0,0\n20,1.4\n40,3.25\n60,0.5\n' >path.csv
  run_match clean --replay own-clean.bsreplay --script path.csv
  echo "--- C bot (slot 0)"; cat c-clean.out; echo "--- C bot (slot 2)"; cat c2-clean.out; echo "--- C# bot (slot 1)"; cat cs-clean.out
  [ $rc_c -eq 0 ] && [ $rc_c2 -eq 0 ] && [ $rc_cs -eq 0 ]; check "two C bots and a C# bot: all exit 0 (match over, no desync)" $?
  grep -q "^bot slot 0: done: 120 frames applied, 8 checksums sent, 0 desyncs" c-clean.out &&
    grep -q "^bot slot 2: done: 120 frames applied, 8 checksums sent, 0 desyncs" c2-clean.out &&
    grep -q "^bot slot 1: done: 120 frames applied, 8 checksums sent, 0 desyncs" cs-clean.out
  check "all three applied the 120 frames and sent 8 checksums (interval 15) with 0 desyncs" $?
  ! grep -q "event=desync" server-clean.log && grep -q "desyncs=0" server-clean.log
  check "the server logged no desync (desyncs=0)" $?
  "$tool" replay verify match.bsreplay >verify.out 2>&1; check "the server's replay of the mixed match verifies" $?
  "$tool" replay verify own-clean.bsreplay >own.out 2>&1; rc=$?
  [ $rc -eq 0 ] && grep -q "ticks verified: 120" own.out && grep -q "checksums compared: 8 (8 with a pose)" own.out
  check "the C# bot's own replay (--replay) verifies with blendsync replay verify: 120 ticks, 8 pose checksums" $?
  [ $rc -eq 0 ] || cat own.out
  # the scripted path reached the server: decode slot 1's value in the FRAME records (docs/replay.md)
  if command -v python3 >/dev/null; then
    python3 - match.bsreplay >frames.txt <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
o = 8
def varint(b, i):
    v = 0; s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if not c & 0x80: return v, i
while o + 16 <= len(d):
    t, n = d[o], struct.unpack_from('<I', d, o + 4)[0]
    body = d[o + 8:o + 8 + n]
    if t == 2:
        tick = struct.unpack_from('<I', body, 0)[0]
        players, params, trig = body[4], body[5], body[6]
        mask = struct.unpack_from('<H', body, 8)[0]
        i = 10
        for p in range(players):
            vals = []
            for _ in range(params):
                z, i = varint(body, i); vals.append((z >> 1) ^ -(z & 1))
            i += trig
            plen = struct.unpack_from('<H', body, i)[0]; i += 2 + plen
            if p == 1: print(tick, vals[0], (mask >> 1) & 1)
    o += 16 + n
PY
    at() { awk -v t="$1" -v raw="$2" '$1==t && $3==0 { if ($2==raw) f=1; else f=2 } END { exit (f==1 ? 0 : 1) }' frames.txt; }
    at 25 91750 && at 45 212992 && at 70 32768
    check "the C# bot's --script reached the server: slot 1 plays 1.4, 3.25, 0.5 at ticks 25, 45, 70 (raw 91750, 212992, 32768)" $?
  else
    echo "skip: no python3 to decode the replay's frames"
  fi
  printf 'tick,sped\n0,1\n' >typo.csv
  "$mono" "$bin/Bot.exe" --server 127.0.0.1:1 --config match.json --slot 1 --token cs-bot --script typo.csv >err.out 2>&1; rc=$?
  [ $rc -eq 2 ] && grep -q 'typo.csv:1: "sped" is not an input parameter or trigger of the match' err.out
  check "a script with an unknown column: exit 2 with the C bot's message" $?
  rm -f match.bsreplay
  run_match desync --inject-desync 40 --replay own-desync.bsreplay --desync-dir dumps --drop 1000 --delay 5:40
  echo "--- C bots"; cat c-desync.out c2-desync.out
  echo "--- C# bot (desync planted after frame 40; every input packet dropped by --drop 1000)"; cat cs-desync.out
  echo "--- server"; grep "event=desync" server-desync.log
  [ $rc_c -eq 0 ] && [ $rc_c2 -eq 0 ] && [ $rc_cs -eq 1 ]; check "planted desync: the C# bot exits 1, the C bots 0" $?
  grep -q "^bot slot 1: done: 120 frames applied, 8 checksums sent, 1 desyncs, 120 inputs defaulted" cs-desync.out
  check "--drop 1000 reaches the client library: all 120 of the C# bot's inputs were defaulted by the server" $?
  grep -q "^bot slot 1: DESYNC reported by the server at tick 44: character blend state, character 1" cs-desync.out
  check "the C# bot is told: tick 44 (first checksum after 40), character 1's blend state" $?
  grep -q "event=desync match=16 tick=44 slot=1 kind=character_blend character=1 character_name=cs" server-desync.log &&
    grep -q "event=desync_origin match=16 slot=1 tick=40 character=1" server-desync.log
  check "the server reports the desync for slot 1 / character cs and traces its origin to tick 40" $?
  ! grep -q "slot=[02]" <(grep "event=desync" server-desync.log); check "no desync is reported for the C bots' slots 0 and 2" $?
  "$tool" replay verify own-desync.bsreplay >own.out 2>&1; rc=$?
  [ $rc -eq 1 ] && grep -q "^MISMATCH at tick 44: blend checksum" own.out
  check "the C# bot's own replay fails verification where its state was flipped (tick 44)" $?
  [ -s dumps/tick44-slot1/client.bsms ] && [ -s dumps/tick44-slot1/desync.txt ]
  check "its --desync-dir dump: dumps/tick44-slot1/ with client.bsms and desync.txt" $?
  # the same match with session secrets (docs/security.md): every bot, the C# one too, takes its slot's
  # secret from the config and plays over an encrypted session
  python3 - match.json <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
for i, p in enumerate(m["players"]):
    p["secret"] = ("%x" % (i + 10)) * 64
m["replay"] = "secure.bsreplay"
json.dump(m, open(sys.argv[1], "w"), indent=1)
PY
  run_match secure
  [ $rc_c -eq 0 ] && [ $rc_c2 -eq 0 ] && [ $rc_cs -eq 0 ] && grep -q "^bot slot 1: done: 120 frames applied, 8 checksums sent, 0 desyncs" cs-secure.out
  check "with secrets: the C bots and the C# bot finish the match over encrypted sessions (120 frames, 0 desyncs)" $?
  [ $rc_cs -eq 0 ] || cat cs-secure.out server-secure.log
  grep -q "event=session match=16 mode=encrypt" server-secure.log && ! grep -q "event=insecure" server-secure.log && ! grep -q "auth_failed" server-secure.log
  check "the server played it as a session match (event=session, no insecure line, no refusal)" $?
  "$tool" replay verify secure.bsreplay >verify-secure.out 2>&1 && ! grep -q "aaaaaaaa" secure.bsreplay
  check "its replay verifies and does not hold the secrets" $?
  # prediction (docs/prediction.md): the Unity-style driver renders predicted poses in slot 1
  cs_exe=PredictDriver.exe run_match predict --window 8
  [ $rc_c -eq 0 ] && [ $rc_c2 -eq 0 ] && [ $rc_cs -eq 0 ] && grep -q "^bot slot 1: done: 120 frames applied, 8 checksums sent, 0 desyncs" cs-predict.out
  check "a predicting C# driver (PredictDriver.exe) with two C bots: all exit 0, 120 frames, 0 desyncs" $?
  [ $rc_cs -eq 0 ] || cat cs-predict.out
  lc=$(sed -n 's/^bot slot 0: last checksum: //p' c-predict.out); lcs=$(sed -n 's/^bot slot 1: last checksum: //p' cs-predict.out)
  [ -n "$lc" ] && [ "$lc" = "$lcs" ] && [ "${lc%% blend*}" = "tick 119" ]
  check "the predicting driver's confirmed match ends with the C bot's last checksum ($lcs)" $?
  line=$(grep "^bot slot 1: prediction:" cs-predict.out)
  mx=$(echo "$line" | sed -n 's/.* max \([0-9]*\),.*/\1/p')
  [ -n "$mx" ] && [ "$mx" -le 8 ] && grep -q "^bot slot 1: prediction: [0-9]* rollbacks" cs-predict.out
  check "it reports its prediction: $line" $?
  finish ;;
readme)
  awk '/^```csharp$/ {on=1; next} /^```$/ && on {exit} on' "$src/bindings/csharp/README.md" >readme.cs
  diff readme.cs "$src/bindings/csharp/samples/Example.cs"; check "README's usage example is samples/Example.cs ($(wc -l <readme.cs) lines; built as Example.exe)" $?
  out=$("$mono" "$bin/Example.exe" "$src/scripts/demo/humanoid_locomotion.json"); rc=$?
  printf 'tick,speed\n0,1.4\n30,3.5\n' >ramp.csv
  last=$("$tool" eval "$src/scripts/demo/humanoid_locomotion.json" --script ramp.csv --ticks 60 2>/dev/null | tail -1)
  st=$(grep -o '"state_checksum": "[0-9a-f]*"' <<<"$last" | grep -o '[0-9a-f]\{16\}')
  po=$(grep -o '"pose_checksum": "[0-9a-f]*"' <<<"$last" | grep -o '[0-9a-f]\{16\}')
  echo "$out"
  [ $rc -eq 0 ] && [ -n "$st" ] && grep -q "^tick 60 state $st pose $po " <<<"$out"
  check "Example.exe's tick-60 checksums are blendsync eval's last line's" $?
  # the Unity package files: valid JSON, the library's version, the samples they name exist
  if command -v python3 >/dev/null; then
    python3 - "$src" <<'PY'
import json, os, re, sys
src = sys.argv[1]; pkg = os.path.join(src, "bindings", "csharp")
p = json.load(open(os.path.join(pkg, "package.json")))
ver = re.search(r'#define BSYNC_VERSION_STRING "([^"]*)"', open(os.path.join(src, "shared/include/blendsync/base.h")).read()).group(1)
assert p["version"] == ver, (p["version"], ver)
assert all(p.get(k) for k in ("name", "displayName", "unity", "description")), p
assert re.match(r"^[a-z0-9.-]+$", p["name"]) and re.match(r"^20\d\d\.\d$", p["unity"]), p
for s in p["samples"]:
    d = os.path.join(pkg, s["path"]); assert os.path.isdir(d) and any(f.endswith(".cs") for f in os.listdir(d)), d
a = json.load(open(os.path.join(pkg, "Runtime", "Blendsync.asmdef")))
assert a["name"] == "Blendsync" and a["allowUnsafeCode"] is True, a
for s in p["samples"]:
    for f in os.listdir(os.path.join(pkg, s["path"])):
        if f.endswith(".asmdef"): assert "Blendsync" in json.load(open(os.path.join(pkg, s["path"], f)))["references"]
assert os.path.isfile(os.path.join(pkg, "Runtime", "Plugins", "README.md"))
PY
    check "package.json (version = base.h's), Runtime/Blendsync.asmdef (unsafe), two samples with asmdefs, Plugins/README.md" $?
  else
    echo "skip package.json checks (no python3)"
  fi
  finish ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac
