#!/usr/bin/env bash
# The JSON the CLI prints (client/cli/cli_json.c: cJSON escapes, the tool's layout) with names that
# need escaping: quotes, backslashes, a tab, a slash and non-ASCII letters in parameter, node and
# motion names. eval, weights --json and synctest --json must print JSON that python3 reads back to
# the very names, in the tool's layout ({"key": value, ...} on one line), and validate --json its
# one-element-per-line arrays.
# usage: cli_json_output.sh PATH_TO_BLENDSYNC WORK_DIR
set -uo pipefail
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
pass=0
fail=0
check() { # name, condition-result
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi
}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 0; }

# JSON escapes in the config: sp"e\ed é, tab<TAB>x, mo"ve, id"le, wa\lk/ü
cat >odd.json <<'JSON'
{ "parameters": { "sp\"e\\ed \u00e9": {}, "tab\tx": {} }, "root": "mo\"ve",
  "nodes": { "mo\"ve": { "type": "Simple1D", "parameter": "sp\"e\\ed \u00e9",
       "children": [ { "motion": "id\"le", "threshold": 0 }, { "motion": "wa\\lk/\u00fc", "threshold": 1.5 } ] } } }
JSON
printf 'tick,sp"e\\ed \xc3\xa9\n0,0.75\n2,0.1\n' >odd.csv

cat >names.py <<'PY'
import json, sys
want_params = ['sp"e\\ed \u00e9', 'tab\tx']
want_motions = ['id"le', 'wa\\lk/\u00fc']
kind, path = sys.argv[1], sys.argv[2]
text = open(path, encoding='utf-8').read()
lines = text.splitlines()
if kind == 'eval':
    assert len(lines) == 3, lines
    for line in lines:
        d = json.loads(line)
        assert list(d['params']) == want_params, d['params']
        assert list(d['weights']) == want_motions, d['weights']
        assert list(d['phase']) == ['mo"ve'], d['phase']
        # the tool's layout: what json.dumps prints with its default separators
        assert line == json.dumps(d, ensure_ascii=False), line
    first = json.loads(lines[0])
    assert first['params'][want_params[0]] == 0.75 and first['weights'] == {want_motions[0]: 0.5, want_motions[1]: 0.5}
elif kind == 'weights':
    assert len(lines) == 1
    d = json.loads(text)
    assert d['node'] == 'mo"ve' and [w['motion'] for w in d['weights']] == want_motions, d
    assert d['weights'][1]['weight'] == 0.2 and d['weights'][1]['raw'] == 13107, d
    assert list(d['leaves']) == want_motions and lines[0] == json.dumps(d, ensure_ascii=False)
elif kind == 'synctest':
    d = json.loads(text)
    assert d['config'] == 'odd.json' and d['ticks'] == 3 and d['mismatches'] == [] and d['fresh'] is True, d
    assert lines[0] == json.dumps(d, ensure_ascii=False)
elif kind == 'validate':
    d = json.loads(text)
    assert d['mode'] == 'config' and d['status'] == 2 and d['clips'] == [], d
    assert [(f['clip'], f['file']) for f in d['findings']] == [('id"le', 'no"pe.glb'), ('wa\\lk/\u00fc', 'gone\\.glb')], d
    assert lines[0].startswith('{"mode": "config", "status": 2,') and lines[1] == ' "clips": [],', lines
    assert lines[2] == ' "findings": [' and lines[3].startswith('  {"severity": "error", ') and lines[3].endswith('},')
    assert lines[4].endswith('}]}') and len(lines) == 5, lines
print('read back')
PY

out=$("$bin" eval odd.json --script odd.csv --ticks 3 2>err.txt); rc=$?
printf '%s\n' "$out" >eval.jsonl
[ $rc -eq 0 ] && python3 names.py eval eval.jsonl; check "eval: every line parses to the escaped names, in the tool's layout" $?
grep -qF '"sp\"e\\ed é": 0.75, "tab\tx": 0}' eval.jsonl; check "eval: quotes and backslashes escaped, the tab as \\t, UTF-8 as is" $?

"$bin" weights odd.json --set 'sp"e\ed é=0.3' --json >weights.json; rc=$?
[ $rc -eq 0 ] && python3 names.py weights weights.json; check "weights --json: names read back, weight 0.2 (raw 13107)" $?

"$bin" synctest odd.json --script odd.csv --ticks 3 --check-distance 1 --json >synctest.json; rc=$?
[ $rc -eq 0 ] && python3 names.py synctest synctest.json; check "synctest --json parses; no mismatch" $?

# two clips that cannot be read: two error findings naming them (exit 2)
cat >clips.json <<'JSON'
{ "parameters": { "s": {} }, "root": "m",
  "nodes": { "m": { "type": "Simple1D", "parameter": "s",
       "children": [ { "motion": "id\"le", "threshold": 0 }, { "motion": "wa\\lk/\u00fc", "threshold": 1.5 } ] } },
  "clips": { "id\"le": { "source": "no\"pe.glb" }, "wa\\lk/\u00fc": { "source": "gone\\.glb" } } }
JSON
"$bin" validate clips.json --json >validate.json; rc=$?
[ $rc -eq 2 ] && python3 names.py validate validate.json; check "validate --json parses (the escaped clip and file names); arrays one element per line" $?

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
