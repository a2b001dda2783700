#!/usr/bin/env bash
# Every public header states contracts, not essays (issue 30; docs/library.md "Headers"):
#  (1) at most 40% of its characters are comments (inside /* */ or after //); byte layouts, hash
#      streams, format histories and behaviour essays live in docs/;
#  (2) it opens with an Index block (its table of contents), and every bsync_* name the Index lists
#      is declared in that header (a function, a type, a struct/enum tag or a macro). Abbreviations
#      are resolved against the name before them ("bsync_clip_create / _destroy"), "bsync_x_*" needs
#      one declared name with that prefix, and names inside parentheses are references to other
#      headers, not entries.
# usage: headers_contract.sh SOURCE_DIR
set -euo pipefail
src=${1:-.}
python3 - "$src" <<'PY'
import glob, os, re, sys

src = sys.argv[1]
MAX_SHARE = 40.0
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)
# The installed include roots, as headers_standalone.sh lists them.
INCLUDE_DIRS = ['shared/include', 'proto/include', 'proto/net/include', 'client/include', 'server/include']
headers = sorted(h for d in INCLUDE_DIRS
                 for h in glob.glob(os.path.join(src, d, 'blendsync', '**', '*.h'), recursive=True))
if len(headers) < 40:
    print('FAIL: only %d public headers found under %s (wrong SOURCE_DIR?)' % (len(headers), src))
    print('0 passed, 1 failed')
    sys.exit(1)

def declared_names(code):
    names = set()
    names.update(re.findall(r'#\s*define\s+(bsync_\w+)', code))
    names.update(re.findall(r'\b(?:struct|enum|union)\s+(bsync_\w+)', code))
    names.update(re.findall(r'}\s*(bsync_\w+)\s*[;,\[]', code))
    names.update(re.findall(r'\btypedef\b[^;{}]*?\b(bsync_\w+)\s*(?:\[[^\]]*\]\s*)?;', code))
    names.update(re.findall(r'\(\s*\*\s*(bsync_\w+)\s*\)\s*\(', code))
    for word, name in re.findall(r'([A-Za-z_]\w*|\*)\s*\**\s*(bsync_\w+)\s*\(', code):
        if word not in ('return', 'else', 'case', 'sizeof', 'do'):
            names.add(name)
    return names

def index_block(text):
    m = re.search(r'/\*.*?\*/', text, re.S)
    if not m:
        return None
    lines = m.group(0).split('\n')
    for i, l in enumerate(lines):
        if re.match(r'\s*\*?\s*Index\s*$', l):
            out = []
            for l2 in lines[i + 1:]:
                body = re.sub(r'^\s*\*/?', '', l2).rstrip('/').rstrip()
                if not body.strip():
                    break
                out.append(body)
            return out
    return None

def strip_parens(s):
    prev = None
    while prev != s:
        prev, s = s, re.sub(r'\([^()]*\)', ' ', s)
    return s

passed = failed = 0
for h in headers:
    rel = os.path.relpath(h, src)
    text = open(h, encoding='utf-8').read()
    problems = []
    share = 100.0 * sum(len(m.group(0)) for m in COMMENT.finditer(text)) / max(1, len(text))
    if share > MAX_SHARE:
        problems.append('comments are %.0f%% of the characters (at most %.0f%%)' % (share, MAX_SHARE))
    code = COMMENT.sub(' ', text)
    decl = declared_names(code)
    block = index_block(text)
    if block is None:
        problems.append('no Index block in the first comment')
    else:
        last = None
        for line in block:
            for tok in re.findall(r'(?<![\w.*])(bsync_\w+\*?|\.*_\w+\*?)', strip_parens(line)):
                if tok.startswith('bsync_'):
                    name = tok
                    if name.endswith('*'):
                        ok = any(d.startswith(name[:-1]) for d in decl)
                    else:
                        ok = name in decl
                    last = name.rstrip('*')
                    if not ok:
                        problems.append('Index names %s, which this header does not declare' % name)
                else:
                    suffix = tok.lstrip('.')
                    if last is None or suffix.endswith('*'):
                        continue
                    parts = last.split('_')
                    cands = ['_'.join(parts[:k]) + suffix for k in range(2, len(parts) + 1)]
                    if not any(c in decl for c in cands):
                        problems.append('Index names %s (after %s), which this header does not declare'
                                        % (suffix, last))
    if problems:
        failed += 1
        print('FAIL %s' % rel)
        for p in problems:
            print('     %s' % p)
    else:
        passed += 1
        print('ok   %s (%.0f%% comments)' % (rel, share))
print('%d passed, %d failed' % (passed, failed))
sys.exit(1 if failed else 0)
PY
