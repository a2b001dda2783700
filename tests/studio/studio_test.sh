#!/usr/bin/env bash
# studio_test.sh SCENARIO BLENDSYNC BUILD_DIR WORK — one browser test of the studio page
# (docs/studio.md): starts `blendsync studio` on a free port with a copy of the demo's graph config,
# computes what the page must show with the native CLI (weights --json, eval), and runs
# studio_driver.mjs SCENARIO in Debian's headless chromium through playwright-core. Exit 77 (skipped,
# with the reason) when the tool has no studio command (no libmicrohttpd), the page was not built
# (no emcc / npm), or chromium is absent. Screenshots: WORK/SCENARIO.png.
set -euo pipefail
scenario=$1 bs=$2 build=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
skip() { echo "SKIP $scenario: $*"; exit 77; }
"$bs" studio --help >/dev/null 2>&1 || skip "this blendsync has no studio command (built without libmicrohttpd)"
[ -f "$build/web/dist/studio_core.js" ] || skip "the page's wasm core was not built (emcc, Debian's cJSON source: $build/web/wasm-build.log)"
[ -d "$build/web/npm/node_modules/playwright-core" ] || skip "no playwright-core (npm ci in $build/web/npm failed or npm is absent)"
chromium=${CHROMIUM:-$(command -v chromium || true)}
[ -n "$chromium" ] || skip "no chromium (apt-get install chromium)"
command -v node >/dev/null || skip "no node"

rm -rf "$work" && mkdir -p "$work"
cfg="$work/loco.json"
cp "$src/scripts/demo/humanoid_locomotion.json" "$cfg"
case "$scenario" in
  tune_broken) # a threshold that is not a number: the loader names the file and the JSON path
    sed -i 's/"threshold": 1.4/"threshold": "fast"/' "$cfg"
    grep -q '"fast"' "$cfg"
    msg=$("$bs" weights "$cfg" 2>&1 >/dev/null || true)
    export EXPECT_MESSAGE=${msg#blendsync weights: }
    echo "the CLI says: $EXPECT_MESSAGE"
    case "$EXPECT_MESSAGE" in *"/nodes/locomotion/children/1/threshold: "*) ;; *) echo "FAIL: unexpected CLI message"; exit 1 ;; esac
    # the page loads the config by the name it was given: the same file name as here
    export EXPECT_MESSAGE=${EXPECT_MESSAGE/$cfg/loco.json}
    ;;
esac

files=(loco.json)
case "$scenario" in
  tune_curve) # a response curve on speed (keys as the config format writes them)
    python3 - "$cfg" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
old = '"speed": { "default": 0,'
assert old in t
t = t.replace(old, '"speed": { "default": 0, "curve": [{ "time": 0, "value": 0 }, { "time": 3.5, "value": 3.5 }],', 1)
open(p, "w").write(t)
PY
    "$bs" validate "$cfg" >/dev/null
    ;;
  tune_response) # a response curve on speed that is not the identity (an ease-in to 0.8 at 2, then up to 3.5)
    python3 - "$cfg" <<'PY'
import sys
p = sys.argv[1]
t = open(p).read()
old = '"speed": { "default": 0,'
assert old in t
t = t.replace(old, '"speed": { "default": 0, "curve": [{ "time": 0, "value": 0 }, { "time": 2, "value": 0.8, "in_tangent": 0.2, '
              '"out_tangent": 1.5 }, { "time": 3.5, "value": 3.5 }],', 1)
open(p, "w").write(t)
PY
    "$bs" validate "$cfg" >/dev/null
    ;;
  tune_script) # the demo's joystick path (rows at 0, 30, 90, 150 with a wave trigger, ...)
    cp "$src/scripts/demo/locomotion_path.csv" "$work/path.csv"
    files=(loco.json path.csv)
    ;;
  replay_*) # the demo's match recorded offline (600 ticks, 6 characters), verified natively
    cp "$src/scripts/demo/match.json" "$src/scripts/demo/humanoid_locomotion.json" "$work/"
    (cd "$work" && "$bs" replay record match.json --ticks 600 -o demo.bsreplay >/dev/null)
    (cd "$work" && "$bs" replay verify demo.bsreplay >verify.txt) || { echo "FAIL: replay verify:"; cat "$work/verify.txt"; exit 1; }
    grep -q '^verdict: verified' "$work/verify.txt"
    echo "ok: replay verify: $(grep '^verdict' "$work/verify.txt")"
    files=(demo.bsreplay match.json humanoid_locomotion.json)
    if [ "$scenario" = replay_events ]; then
      # the demo's punch as a one-shot with a hit window and an instant (docs/actions.md, the same events
      # as tests/unit/config/test_graph_config_actions.c): recorded with them, the replay has events
      python3 - "$work/humanoid_locomotion.json" <<'PY'
import json, sys
p = sys.argv[1]
graph = json.load(open(p))  # the demo's punch, whatever events it carries, replaced by this test's own
graph["clips"]["punch"] = {"source": "builtin:humanoid", "loop": False, "events": [
    {"name": "hit", "begin": 0.2, "end": 0.35, "payload": 10, "policy": "always"},
    {"name": "whoosh", "time": 0.1, "policy": "always"}]}
json.dump(graph, open(p, "w"), indent=1)
PY
      "$bs" validate "$work/humanoid_locomotion.json" >/dev/null
      rm -f "$work/demo.bsreplay"
      (cd "$work" && "$bs" replay record match.json --ticks 600 -o demo.bsreplay >/dev/null && "$bs" replay verify demo.bsreplay >verify.txt)
      grep -q '^verdict: verified' "$work/verify.txt" || { echo "FAIL: replay verify (events):"; cat "$work/verify.txt"; exit 1; }
    fi
    [ "$scenario" = replay_bad ] && head -c 20 "$work/demo.bsreplay" >"$work/cut.bsreplay" && files=(cut.bsreplay match.json humanoid_locomotion.json)
    ;;
  desync_*) # the bundle of the studio_desync_bundle_VARIANT fixture (make_bundle.sh)
    b="$build/tests/studio/bundle-${scenario#desync_}"
    found=("$b"/rec/match.bsreplay.desync/tick*-slot*/bundle.json)
    if [ ! -f "${found[0]}" ]; then echo "FAIL: no bundle in $b"; exit 1; fi
    bundle=${found[0]#"$b"/}
    bundle=${bundle%/bundle.json}
    rm -f "$work/loco.json"
    cp -r "$b/." "$work/"
    files=("$bundle" match.json humanoid_locomotion.json)
    ;;
esac
log="$work/studio.log"
(cd "$work" && exec "$bs" studio "${files[@]}") >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 50); do
  url=$(grep -o 'http://127.0.0.1:[0-9]*/' "$log" || true)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "FAIL: the studio printed no URL:"; cat "$log"; exit 1; }
echo "studio at $url"

export STUDIO_NODE_MODULES="$build/web/npm/node_modules" CHROMIUM="$chromium"
case "$scenario" in
  tune_weights)
    export POINT_X=0.43 POINT_Y=0.61 POINT_SPEED=2.1 TICKS=37
    EXPECT_MOVE=$("$bs" weights "$cfg" --node move --set move_x=$POINT_X --set move_y=$POINT_Y --set speed=$POINT_SPEED --json)
    EXPECT_LOCO=$("$bs" weights "$cfg" --node locomotion --set move_x=$POINT_X --set move_y=$POINT_Y --set speed=$POINT_SPEED --json)
    printf 'tick,speed,move_x,move_y\n0,%s,%s,%s\n' "$POINT_SPEED" "$POINT_X" "$POINT_Y" >"$work/point.csv"
    EXPECT_FRAME=$("$bs" eval "$cfg" --script "$work/point.csv" --ticks "$TICKS" 2>/dev/null | tail -n 1)
    EXPECT_VALIDATE=$("$bs" validate "$cfg" | sed -n 's/^\([0-9]*\) error(s), \([0-9]*\) warning(s), \([0-9]*\) info; .*/{"error": \1, "warning": \2, "info": \3}/p')
    [ -n "$EXPECT_VALIDATE" ] || { echo "FAIL: cannot read validate's summary"; exit 1; }
    export EXPECT_MOVE EXPECT_LOCO EXPECT_FRAME EXPECT_VALIDATE
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    ;;
  tune_keep_tick)
    # point A for 20 ticks, point B for 17, then walk's threshold 1.4 -> 1.55: the page re-simulates the
    # edited graph to tick 37, which is eval's tick 36 of the edited config with those two script rows
    export POINT_A='{"move_x": "0.43", "move_y": "0.61", "speed": "2.1"}' POINT_B='{"move_x": "-0.3", "move_y": "0.8", "speed": "1.2"}'
    export TICKS_A=20 TICKS_B=17 EDIT_PTR=/nodes/locomotion/children/1/threshold NEW_VALUE=1.55
    sed 's/"threshold": 1.4 }/"threshold": 1.55 }/' "$cfg" >"$work/edited.json"
    ! cmp -s "$cfg" "$work/edited.json"
    printf 'tick,speed,move_x,move_y\n0,2.1,0.43,0.61\n20,1.2,-0.3,0.8\n' >"$work/points.csv"
    EXPECT_FRAME=$("$bs" eval "$work/edited.json" --script "$work/points.csv" --ticks 37 2>/dev/null | tail -n 1)
    export EXPECT_FRAME
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    ;;
  tune_response)
    # the shaped value the page shows for a target is where the native filter settles when held there:
    # eval's filtered speed after 300 ticks at that target (SmoothDamp 0.25 s has long settled)
    for v in 1.3 2.7; do
      printf 'tick,speed,move_x,move_y\n0,%s,0,1\n' "$v" >"$work/hold.csv"
      s=$("$bs" eval "$cfg" --script "$work/hold.csv" --ticks 300 2>/dev/null | tail -n 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["speed"])')
      export "EXPECT_SHAPED_${v/./_}=$s"
      echo "eval: speed held at $v settles at $s"
    done
    export TARGETS="1.3 2.7"
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    ;;
  tune_script)
    # the page plays the script through the graph: its checksums after 200 ticks are eval's
    export TICKS=200
    EXPECT_FRAME=$("$bs" eval "$cfg" --script "$work/path.csv" --ticks "$TICKS" 2>/dev/null | tail -n 1)
    export EXPECT_FRAME
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    ;;
  tune_drag)
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    read -r x y <"$work/point.txt"
    shown=$(sed -n 2p "$work/point.txt")
    cli=$("$bs" weights "$cfg" --node move --set move_x="$x" --set move_y="$y" --json |
      python3 -c 'import json,sys; print(json.dumps([[w["motion"], repr(w["weight"]) if isinstance(w["weight"], float) else str(w["weight"])] for w in json.load(sys.stdin)["weights"]], separators=(",", ":")))')
    [ "$shown" = "$cli" ] || { echo "FAIL: the page showed $shown after the drag; weights --json at ($x, $y): $cli"; exit 1; }
    echo "ok: the weights after the drag are weights --json's at ($x, $y)"
    ;;
  tune_save | tune_curve)
    if [ "$scenario" = tune_save ]; then # walk's threshold 1.4 -> 1.55
      export EDIT_PTR=/nodes/locomotion/children/1/threshold OLD_VALUE=1.4 NEW_VALUE=1.55
      edit='s/"threshold": 1.4 }/"threshold": 1.55 }/'
    else # speed's response curve: key 1's value 3.5 -> 2.5
      export EDIT_PTR=/parameters/speed/curve/1/value OLD_VALUE=3.5 NEW_VALUE=2.5
      edit='s/{ "time": 3.5, "value": 3.5 }/{ "time": 3.5, "value": 2.5 }/'
    fi
    cp "$cfg" "$work/original.json"
    node "$here/studio_driver.mjs" tune_save "$url" "$work"
    # exactly the edited number changed, the rest of the text is the file's own
    diff "$work/original.json" "$cfg" >"$work/save.diff" || true
    cat "$work/save.diff"
    [ "$(grep -c '^[<>]' "$work/save.diff")" = 2 ] || { echo "FAIL: the save changed more than one line"; exit 1; }
    sed "$edit" "$work/original.json" >"$work/expected.json"
    cmp "$work/expected.json" "$cfg" || { echo "FAIL: the saved file is not the original with $OLD_VALUE -> $NEW_VALUE"; exit 1; }
    echo "ok: the saved file is the original with only $EDIT_PTR $OLD_VALUE -> $NEW_VALUE"
    "$bs" validate "$cfg" >"$work/validate.txt" 2>&1 || { echo "FAIL: validate refuses the saved config:"; cat "$work/validate.txt"; exit 1; }
    echo "ok: validate accepts the saved config"
    printf 'tick,speed,move_x,move_y\n0,1.5,0,1\n60,3.2,0,1\n' >"$work/walk.csv"
    h0=$("$bs" eval "$work/original.json" --script "$work/walk.csv" --ticks 120 --hash 2>/dev/null)
    h1=$("$bs" eval "$cfg" --script "$work/walk.csv" --ticks 120 --hash 2>/dev/null)
    h2=$("$bs" eval "$work/expected.json" --script "$work/walk.csv" --ticks 120 --hash 2>/dev/null)
    [ "$h0" != "$h1" ] && [ "$h1" = "$h2" ] || { echo "FAIL: eval --hash: original $h0, saved $h1, expected $h2"; exit 1; }
    echo "ok: eval --hash of the saved config ($h1) differs from the original's ($h0) and is the edit's"
    if [ "$scenario" != tune_save ]; then mv "$work/tune_save.png" "$work/$scenario.png"; fi
    ;;
  tune_broken)
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    ;;
  replay_tick)
    # the checksum the page computes for tick 89 (its own re-simulation in wasm) is the one the replay
    # recorded there, which replay verify re-computed natively (verified above)
    export STUDIO_HASH="#tick=89&character=2" EXPECT_TICK=89
    EXPECT_BLEND=$(python3 "$here/replay_checksums.py" "$work/demo.bsreplay" | awk '$1 == 89 { print $2 }')
    [ -n "$EXPECT_BLEND" ] || { echo "FAIL: no recorded checksum at tick 89"; exit 1; }
    export EXPECT_BLEND
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    ;;
  replay_events)
    # the switch states and action reports per tick and character, natively (studio_replay_timeline)
    "$build/tests/studio/studio_replay_timeline" "$work/demo.bsreplay" >"$work/timeline.txt"
    EXPECT_TIMELINE=$(python3 "$here/timeline_expect.py" "$work/timeline.txt") || { echo "FAIL: the native timeline"; exit 1; }
    EVENT_CHARACTER=$(python3 -c 'import json,sys; print(next(k for k, c in enumerate(json.loads(sys.argv[1])) if c["actions"][0]["open"]))' "$EXPECT_TIMELINE")
    export EXPECT_TIMELINE EVENT_CHARACTER
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    ;;
  replay_bad)
    # a replay cut inside its header: the page names the file and what is wrong, as replay info does
    msg=$(cd "$work" && "$bs" replay info cut.bsreplay 2>&1 >/dev/null || true)
    echo "the CLI says: $msg"
    export EXPECT_IN="cut.bsreplay: " EXPECT_REASON="the data ends inside a HEADER record"
    grep -qF "$EXPECT_REASON" <<<"$msg" || { echo "FAIL: unexpected CLI message"; exit 1; }
    node "$here/studio_driver.mjs" "$scenario" "$url" "$work"
    ;;
  desync_pose | desync_pose-p0)
    # a pose-only desync: the expectations come from the planted fault (make_bundle.sh's planted.txt,
    # TICK:CHARACTER:JOINT), not from the bundle: the reported and first differing tick is the first
    # checksum tick at or after TICK (after the frames t with t + 1 a multiple of the interval,
    # docs/protocol.md), the character's name is match.json's, the joint's name the humanoid skeleton's
    # joint of that index as `blendsync bake --skin` writes the skin (read from the .glb in Python)
    IFS=: read -r ptick pchar pjoint < "$work/planted.txt"
    interval=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["checksum_interval"])' "$work/match.json")
    cname=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["characters"][int(sys.argv[2])]["name"])' "$work/match.json" "$pchar")
    printf 'tick,speed\n0,0\n' > "$work/still.csv"
    "$bs" bake "$work/humanoid_locomotion.json" --script "$work/still.csv" --ticks 1 --skin -o "$work/skel.glb" >/dev/null
    jname=$(python3 - "$work/skel.glb" "$pjoint" <<'PY'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n, kind = struct.unpack_from("<II", data, 12)
assert struct.unpack_from("<I", data, 0)[0] == 0x46546C67 and kind == 0x4E4F534A
g = json.loads(data[20:20 + n])
print(g["nodes"][g["skins"][0]["joints"][int(sys.argv[2])]]["name"])
PY
)
    EXPECT_TICK=$(( (ptick + interval) / interval * interval - 1 ))
    EXPECT_FIRST=$EXPECT_TICK EXPECT_CHARACTER="$pchar ($cname)" EXPECT_JOINTS="$cname:$jname"
    EXPECT_HIGHLIGHT="[[$pchar,$pjoint]]"
    # the list of differences is report.txt's lines (the pose joints, then the trace's)
    report="$work/$bundle/report.txt"
    EXPECT_LINES=$(grep '^  ' "$report" | sed 's/^  //' | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().splitlines(), separators=(",", ":")))')
    echo "planted $ptick:$pchar:$pjoint, interval $interval: expect tick $EXPECT_TICK, $EXPECT_CHARACTER, joint $EXPECT_JOINTS"
    export EXPECT_TICK EXPECT_FIRST EXPECT_CHARACTER EXPECT_JOINTS EXPECT_HIGHLIGHT EXPECT_LINES
    node "$here/studio_driver.mjs" desync_pose "$url" "$work"
    [ "$scenario" = desync_pose ] || mv "$work/desync_pose.png" "$work/$scenario.png"
    ;;
  desync_*)
    # what the server's report says: the reported tick, the first divergent tick and character, its lines
    report="$work/$bundle/report.txt"
    EXPECT_TICK=$(sed -n 's/^match [0-9]*, slot [0-9]*, tick \([0-9]*\) .*/\1/p' "$report")
    EXPECT_FIRST=$(sed -n 's/^  earliest: tick \([0-9]*\), .*/\1/p' "$report")
    EXPECT_CHARACTER=$(sed -n 's/^  earliest: tick [0-9]*, character \([0-9]* ([^)]*)\).*/\1/p' "$report")
    EXPECT_LINES=$(grep '^  ' "$report" | sed 's/^  //' | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read().splitlines(), separators=(",", ":")))')
    [ -n "$EXPECT_TICK" ] && [ -n "$EXPECT_FIRST" ] && [ -n "$EXPECT_CHARACTER" ] || { echo "FAIL: cannot read $report"; cat "$report"; exit 1; }
    echo "the report: tick $EXPECT_TICK, first divergence at tick $EXPECT_FIRST, character $EXPECT_CHARACTER"
    # own clocks: the flipped clock is sampled, so joints of that character must be highlighted
    EXPECT_POSE_DIFF=$([ "$scenario" = desync_demo ] && echo 0 || echo 1)
    export EXPECT_TICK EXPECT_FIRST EXPECT_CHARACTER EXPECT_LINES EXPECT_POSE_DIFF
    node "$here/studio_driver.mjs" desync "$url" "$work"
    [ -f "$work/desync.png" ] && mv "$work/desync.png" "$work/$scenario.png"
    ;;
  *) echo "unknown scenario $scenario"; exit 2 ;;
esac
