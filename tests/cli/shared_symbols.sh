#!/usr/bin/env bash
# libblendsync.so exports exactly the public API: every function declared in a public header (and
# marked BSYNC_API, else -fvisibility=hidden hides it) and nothing else; and every static inline
# function of a public header (name not ending in "_") has its exported twin NAME_abi
# (blendsync/abi.h). The declarations are read by the compiler itself (gcc -aux-info), not by a
# regex, so a declaration spread over lines or behind a macro is counted the same.
# usage: shared_symbols.sh SOURCE_DIR LIBBLENDSYNC_SO WORK_DIR
set -euo pipefail
src=$1 lib=$2 work=$3
mkdir -p "$work"
[ -f "$lib" ] || { echo "FAIL: $lib not found"; exit 1; }
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libblendsync.so.0" ] || { echo "FAIL: soname is '$soname', expected libblendsync.so.0"; exit 1; }

incdirs=(shared/include proto/include proto/net/include client/include server/include)
: >"$work/all.c"
for d in "${incdirs[@]}"; do
    (cd "$src/$d" && find blendsync -name '*.h' | sort) | sed 's/.*/#include "&"/' >>"$work/all.c"
done
headers=$(wc -l <"$work/all.c")
gcc -std=c11 -D_POSIX_C_SOURCE=200809L "${incdirs[@]/#/-I$src/}" -aux-info "$work/aux.txt" -fsyntax-only "$work/all.c"
# Only declarations from the project's headers (aux-info names them by the -I path given).
grep -F "$src/" "$work/aux.txt" | grep -E '/blendsync/[^ ]*\.h:[0-9]+:N' >"$work/ours.txt" || true
sed -n 's/^.*:NC \*\/ extern .*[ *]\([A-Za-z_][A-Za-z0-9_]*\) (.*/\1/p' "$work/ours.txt" | sort -u >"$work/declared.txt"
sed -n 's/^.*:NF \*\/ static .*[ *]\([A-Za-z_][A-Za-z0-9_]*\) (.*/\1/p' "$work/ours.txt" | grep -v '_$' |
    sort -u >"$work/inline.txt" || true
nm -D --defined-only "$lib" | awk '{print $NF}' | sort -u >"$work/exported.txt"

fail=0
extra=$(comm -13 "$work/declared.txt" "$work/exported.txt")
missing=$(comm -23 "$work/declared.txt" "$work/exported.txt")
no_twin=$(sed 's/$/_abi/' "$work/inline.txt" | comm -23 - "$work/exported.txt")
if [ -n "$extra" ]; then echo "FAIL: exported but declared in no public header:"; echo "$extra"; fail=1; fi
if [ -n "$missing" ]; then echo "FAIL: declared in a public header but not exported (BSYNC_API missing, or not defined):"; echo "$missing"; fail=1; fi
if [ -n "$no_twin" ]; then echo "FAIL: static inline functions without an exported NAME_abi twin:"; echo "$no_twin"; fail=1; fi
n_decl=$(wc -l <"$work/declared.txt") n_exp=$(wc -l <"$work/exported.txt") n_inl=$(wc -l <"$work/inline.txt")
[ "$n_decl" -ge 300 ] || { echo "FAIL: only $n_decl declarations found in $headers headers (parser broken?)"; fail=1; }
echo "$headers public headers: $n_decl functions declared, $n_inl static inline (each with an _abi twin); $n_exp exported by $(basename "$lib") ($soname)"
[ $fail -eq 0 ] && { echo "1 passed, 0 failed"; exit 0; }
echo "0 passed, 1 failed"; exit 1
