#!/usr/bin/env bash
# build_wasm.sh SRC OUT — the studio's wasm core: the deterministic core, the io library (config,
# import, validate, replay) and web/wasm/studio_wasm.c compiled with Debian's emscripten into
# OUT/studio_core.js (an ES module) and OUT/studio_core.wasm, which it fetches from its own folder
# (served as application/wasm: compiled while it downloads). cJSON, which io uses for
# every JSON, comes as source from Debian's cjson package (the version installed here), fetched once
# into OUT/cjson-src with apt-get source, as tests/cli/platform_matrix.sh does; Debian ships no cJSON
# built for emscripten. Emscripten 3.1.6's sysroot is prebuilt in its frozen cache, nothing is built
# on first use. Exit 0 on success and when cJSON's source cannot be had (no network: the page is
# skipped with a message, no studio_core.js); 1 when emcc fails (OUT/wasm-build.log says why).
set -euo pipefail
src=$(cd "$1" && pwd)
mkdir -p "$2/obj" "$2/link"
out=$(cd "$2" && pwd)
log="$out/wasm-build.log"
: >"$log"
export NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}" EMCC_CORES=2
if [ -z "${EM_CACHE:-}" ] && [ ! -f /usr/share/emscripten/cache/sysroot_install.stamp ]; then export EM_CACHE="$out/emcache"; fi

cj="$out/cjson-src"
ver=$(dpkg-query -W -f='${source:Version}' libcjson-dev 2>/dev/null || echo "")
if [ ! -f "$cj/.done" ] || [ "$(cat "$cj/.done")" != "$ver" ]; then
  [ -n "$ver" ] || { echo "studio page: the wasm core is not built: libcjson-dev is not installed (apt-get install libcjson-dev)" | tee -a "$log"; rm -f "$out/studio_core.js" "$out/studio_core.wasm"; exit 0; }
  a="$out/apt-src"
  rm -rf "$cj" "$a" && mkdir -p "$a/lists/partial" "$a/cache/archives/partial" "$a/get" "$cj/include/cjson"
  printf 'deb-src http://deb.debian.org/debian bookworm main\ndeb-src http://deb.debian.org/debian bookworm-updates main\ndeb-src http://deb.debian.org/debian-security bookworm-security main\n' >"$a/sources.list"
  opts=(-q -o Dir::Etc::sourcelist="$a/sources.list" -o Dir::Etc::sourceparts=/nonexistent
    -o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache" -o APT::Sandbox::User="$(id -un)")
  {
    apt-get "${opts[@]}" update &&
      (cd "$a/get" && apt-get "${opts[@]}" source --download-only "cjson=$ver") &&
      (cd "$a/get" && dpkg-source -x --no-check ./*.dsc tree) &&
      cp "$a/get/tree/cJSON.c" "$cj/" && cp "$a/get/tree/cJSON.h" "$cj/include/cjson/"
  } >>"$log" 2>&1 || { echo "studio page: the wasm core is not built: cannot fetch Debian's cJSON source (apt-get source cjson; see $log)"; rm -f "$out/studio_core.js" "$out/studio_core.wasm"; exit 0; }
  echo "$ver" >"$cj/.done"
fi

# libfixmath's header (the core uses its fix16_t type only), without the host's /usr/include
mkdir -p "$out/fixmath-include" && ln -sfn /usr/include/libfixmath "$out/fixmath-include/libfixmath"

srcs=("$src"/shared/src/*.c "$src"/shared/src/io/*/*.c "$src/web/wasm/studio_wasm.c")
exports='["_bs_load","_bs_set_param","_bs_weights","_bs_reset","_bs_tick","_bs_state","_bs_region_map","_bs_curve","_bs_response","_bs_fx_format","_bs_fx_parse","_bs_validate","_bs_script_load","_bs_script_tick","_bs_replay_open","_bs_replay_step","_bs_replay_info","_bs_replay_tracks","_bs_replay_seek","_bs_desync_open","_bs_desync_at","_bs_replay_present","_malloc","_free"]'
{
  (cd "$out/obj" && emcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wshadow -Wvla -Werror -O2 \
    -I"$src/shared/include" -I"$src/shared/src" -I"$src/shared/src/io/platform" -I"$src/shared/src/io/import" \
    -I"$src/shared/src/io/config" -I"$src/shared/src/io/replay" -isystem "$cj/include" -isystem "$out/fixmath-include" \
    -c "${srcs[@]}") &&
    (cd "$out/obj" && emcc -O2 -w -isystem "$cj/include/cjson" -c "$cj/cJSON.c") &&
    (cd "$out/obj" && emcc -O2 -sALLOW_MEMORY_GROWTH=1 -sMODULARIZE=1 -sEXPORT_ES6=1 \
      -sEXPORT_NAME=createStudioCore -sENVIRONMENT=web -sFORCE_FILESYSTEM=1 \
      -sEXPORTED_FUNCTIONS="$exports" -sEXPORTED_RUNTIME_METHODS='["ccall","cwrap","UTF8ToString","FS","HEAPU8"]' \
      -o "$out/link/studio_core.js" ./*.o) &&
    mv "$out/link/studio_core.wasm" "$out/studio_core.wasm" && mv "$out/link/studio_core.js" "$out/studio_core.js"
} >>"$log" 2>&1 || { echo "emcc failed (last lines of $log):" >&2; tail -n 8 "$log" >&2; exit 1; }
