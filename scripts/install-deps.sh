#!/usr/bin/env bash
# Installs the Debian packages blendsync needs, if any are missing.
# As root it runs apt-get; otherwise it prints the exact command to run and exits 1.
# --demo: only what building and playing the demo needs (scripts/demo.sh); without it also the cross
# toolchains, mingw-w64 and wine of the platform matrix and Mono for the C# binding (scripts/test.sh).
set -euo pipefail

packages=(
  cmake make gcc clang gcc-multilib    # build; clang and -m32 for the determinism test
  g++ pkg-config                       # headers_standalone (C++17) and install_consumer (pkg-config)
  qemu-user                            # runs the -m32 build where the kernel cannot (qemu-i386)
  libfixmath-dev libcjson-dev libcmocka-dev
  libenet-dev                          # the lockstep server and client (ENet 1.3)
  libsodium-dev                        # authenticated, encrypted sessions (blendsync/session.h)
  libcairo2-dev                        # blendsync plot draws its PNG, SVG and PDF pictures with cairo
  libstb-dev                           # the plot tests read the PNGs back (tests/tools/png_probe.c)
  python3                              # CLI tests read JSON and GLB files back (cli_present.sh, ...)
)
# tests/cli/platform_matrix.sh: clang cross builds against Debian's cross C libraries (not
# gcc-<arch>-linux-gnu, which on Debian 12 amd64 removes gcc-multilib), qemu-user runs them;
# mingw-w64 and wine for Windows; emscripten for wasm32. Not for --demo (scripts/demo.sh): building and playing needs none.
matrix_packages=(
  libc6-dev-arm64-cross libgcc-12-dev-arm64-cross binutils-aarch64-linux-gnu
  libc6-dev-s390x-cross libgcc-12-dev-s390x-cross binutils-s390x-linux-gnu
  gcc-mingw-w64-x86-64 wine64
  dpkg-dev                             # dpkg-source: Debian's cJSON source package, built for mingw-w64 and wasm32
  emscripten                           # wasm32 (emcc), run under Node.js (node >= 12; emscripten depends on it)
)
# bindings/csharp (the C# binding and its tests, run under Mono; Eval.exe and Bot.exe): mcs and mono.
# Not for --demo either. Without them CMake skips the C# assemblies and the csharp_* tests.
csharp_packages=(
  mono-devel
)
# blendsync studio (docs/studio.md): its HTTP server (libmicrohttpd); its page's tests run Debian's
# chromium headless, driven by playwright-core from npm (web/package.json). Not for --demo.
studio_packages=(
  libmicrohttpd-dev chromium          # (npm: the nodejs package, which emscripten already needs)
)
# Operating the server (docs/operations.md, docs/deploy.md): the admin API is libmicrohttpd (above);
# the Agones lifecycle calls the SDK sidecar's REST API with libcurl; the metrics tests run
# Debian's Prometheus and its promtool. Not for --demo.
ops_packages=(
  libcurl4-openssl-dev prometheus
  python3-cryptography                # cli_conformance_seal: the document-only decoder opens sealed packets
)
# The matrix unpacks the target's libfixmath, cJSON, cmocka, stb and ENet from Debian's arm64,
# s390x and i386 packages (apt-get download, dpkg -x into its work folder; nothing of theirs is
# installed), which needs those architectures known to apt. (i386's C library is gcc-multilib's.)
foreign_archs=(arm64 s390x i386)
if [ "${1:-}" = "--demo" ]; then
  foreign_archs=()
else
  packages+=("${matrix_packages[@]}" "${csharp_packages[@]}" "${studio_packages[@]}" "${ops_packages[@]}")
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
add_archs=()
for a in "${foreign_archs[@]}"; do
  dpkg --print-foreign-architectures | grep -qx "$a" || add_archs+=("$a")
done
[ ${#missing[@]} -eq 0 ] && [ ${#add_archs[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "blendsync needs these Debian packages: ${missing[*]}" >&2
  add=""
  for a in "${add_archs[@]}"; do add+="dpkg --add-architecture $a && "; done
  echo "run as root:  ${add}apt-get update && $cmd" >&2
  exit 1
fi
for a in "${add_archs[@]}"; do echo "adding the $a architecture (for apt-get download)"; dpkg --add-architecture "$a"; done
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $cmd
fi
