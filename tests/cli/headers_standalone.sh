#!/usr/bin/env bash
# Every public header compiles on its own — one translation unit that includes only it — as C11
# (gcc and clang, -Wall -Wextra -Werror -pedantic) and as C++17 (g++ and clang++), so a game
# includes any one of them first, from C or C++.
# usage: headers_standalone.sh SOURCE_DIR WORK_DIR
set -euo pipefail
src=$1 work=$2
mkdir -p "$work"
incdirs=(shared/include proto/include proto/net/include client/include server/include)
inc=("${incdirs[@]/#/-I$src/}")
compilers=()
for c in "gcc -std=c11" "clang -std=c11" "g++ -std=c++17" "clang++ -std=c++17"; do
    command -v "${c%% *}" >/dev/null && compilers+=("$c")
done
[ ${#compilers[@]} -ge 2 ] || { echo "FAIL: need at least gcc and g++ (scripts/install-deps.sh)"; exit 1; }
n=0 failed=0
for d in "${incdirs[@]}"; do
    for h in $(cd "$src/$d" && find blendsync -name '*.h' | sort); do
        printf '#include "%s"\ntypedef int bsync_tu_not_empty_;\n' "$h" >"$work/tu.c"
        cp "$work/tu.c" "$work/tu.cpp"
        for c in "${compilers[@]}"; do
            f=$work/tu.c; [[ $c == *++* ]] && f=$work/tu.cpp
            # shellcheck disable=SC2086
            if ! $c -Wall -Wextra -Werror -pedantic -D_POSIX_C_SOURCE=200809L "${inc[@]}" -fsyntax-only "$f" 2>"$work/err.txt"; then
                echo "FAIL: $h with $c:"; head -20 "$work/err.txt"; failed=$((failed + 1))
            fi
            n=$((n + 1))
        done
    done
done
echo "$n header compilations (${#compilers[@]} compilers: ${compilers[*]})"
[ $failed -eq 0 ] && { echo "1 passed, 0 failed"; exit 0; }
echo "$failed failed compilations"; echo "0 passed, 1 failed"; exit 1
